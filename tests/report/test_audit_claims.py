"""The audit's claims: regression tests of issues 36 and 40 (each a reproducer)."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import logit

from skfair import audit
from skfair._cli import main

FAST = {"n_resamples": 19, "n_permutations": 19}


def _one_group_without_positives(seed=1, n=60):
    rng = np.random.default_rng(seed)
    groups = np.repeat(["a", "b"], n // 2)
    scores = rng.uniform(0.01, 0.99, n)
    y = (rng.random(n) < scores).astype(int)
    y[n // 2 :] = 0  # group b: no positives, so no TPR
    return y, scores, groups


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"pos_label": 1},
        {"score_type": "logit", "threshold": 0.0},
        {"min_group_size": 5},
    ],
)
def test_one_group_with_a_tpr_does_not_crash(options):
    # issue 40: two groups, one without positives, crashed blaming "a
    # cross-validation fold"; there is no TPR gap to state
    y, scores, groups = _one_group_without_positives()
    if options.get("score_type") == "logit":
        scores = logit(scores)
    report = audit(y, scores, sensitive_features=groups, **options, **FAST)
    facts = report.headline.threshold
    assert facts.tpr_gap is None
    # FPR is defined in both groups: its gap is the difference of the rates
    table = report.groups.set_index("group")
    assert facts.fpr_gap.value == pytest.approx(
        abs(table["fpr"]["a"] - table["fpr"]["b"])
    )
    html = report.to_html(figures=False)
    assert "cross-validation" not in html
    assert "true-positive rates range" not in html


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_one_group_with_an_fpr_does_not_crash():
    y, scores, groups = _one_group_without_positives()
    y[: len(y) // 2] = 1  # group a: no negatives, group b: no positives
    report = audit(y, scores, sensitive_features=groups, **FAST)
    assert report.headline.threshold.tpr_gap is None
    assert report.headline.threshold.fpr_gap is None
    html = report.to_html(figures=False)
    assert "Without true labels" not in html
    assert "neither rate can be compared" in html


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_marginal_with_one_group_without_positives():
    y, scores, groups = _one_group_without_positives()
    frame = pd.DataFrame({"sex": groups, "race": np.tile(["x", "y", "z"], 20)})
    report = audit(y, scores, sensitive_features=frame, combine="marginal", **FAST)
    assert report.headline.threshold is not None


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_cli_with_one_group_without_positives(tmp_path, capsys):
    y, scores, groups = _one_group_without_positives()
    path = tmp_path / "p.csv"
    pd.DataFrame({"s": scores, "g": groups, "y": y}).to_csv(path, index=False)
    out = tmp_path / "r.html"
    argv = ["audit", "--predictions", str(path), "--score", "s", "--sensitive", "g"]
    argv += ["--label", "y", "--n-resamples", "19", "--output", str(out)]
    assert main(argv) == 0
    assert "cross-validation" not in out.read_text()


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_repr_counts_the_compared_groups():
    # issue 40: 2 x 5 attributes with 7 compared... the repr counted every
    # table's rows (attributes and intersection)
    rng = np.random.default_rng(0)
    n = 140
    frame = pd.DataFrame(
        {"sex": np.repeat(["f", "m"], n // 2), "race": np.tile(list("vwxyz"), n // 5)}
    )
    scores = rng.random(n)
    marginal = audit(None, scores, sensitive_features=frame, combine="marginal", **FAST)
    assert "n_groups=7," in repr(marginal)
    both = audit(None, scores, sensitive_features=frame, **FAST)
    assert len(both.groups) == 2 + 5 + 10
    assert "n_groups=10," in repr(both)
    assert "left_out" not in repr(both)


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_repr_says_how_many_groups_were_set_aside():
    # issue 40: 3 groups of 40 and 2 of 5 with min_group_size=10: 3 compared, 2 aside
    rng = np.random.default_rng(1)
    groups = np.repeat(["a", "b", "c", "d", "e"], [40, 40, 40, 5, 5])
    scores = rng.random(len(groups))
    report = audit(None, scores, sensitive_features=groups, min_group_size=10, **FAST)
    assert len(report.left_out) == 2
    assert "n_groups=3, left_out=2," in repr(report)


# -- issue 36 item 1: the lead compares with the most-selected group ------------------
def _census_like(seed=0, n=4000):
    """The largest group (f, 60%) is the one selected less: 10% against 30%."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n, p=[0.6, 0.4])
    scores = np.clip(rng.beta(2, 6, n) + 0.25 * (sex == "m"), 0, 1)
    y = (rng.random(n) < scores).astype(int)
    return y, scores, sex


def test_the_lead_names_the_group_selected_less_when_it_is_the_largest():
    y, scores, sex = _census_like()
    report = audit(y, scores, sensitive_features=sex, **FAST)
    facts = report.headline.threshold
    rate = {g: float(np.mean(scores[sex == g] >= 0.5)) for g in ("f", "m")}
    assert rate["f"] < rate["m"] and (sex == "f").sum() > (sex == "m").sum()
    assert facts.comparison == "most selected" and facts.reference.group == "m"
    assert facts.disadvantaged.group == "f"
    assert facts.disadvantaged.ratio == pytest.approx(rate["f"] / rate["m"])
    lead = report.to_dict()["headline"]["text"][0]
    assert lead.startswith(
        "At the threshold 0.5, f (n = 2,4"  # who, relative to whom, how much
    )
    assert "selected less often than the most-selected group m" in lead
    assert f"a positive-rate ratio of {rate['f'] / rate['m']:.3f}" in lead
    # the table's reference stays the largest group (its ratios are unchanged)
    table = report.groups.set_index("group")
    assert table.loc["f", "is_reference"]


def test_a_claimed_direction_rests_on_the_newcombe_interval():
    y, scores, sex = _census_like()
    facts = audit(y, scores, sensitive_features=sex, **FAST).headline.threshold
    d, ref = facts.disadvantaged, facts.reference
    # brute force: Newcombe's hybrid score interval (method 10) from scipy's
    # Wilson intervals of the two rates
    from scipy.stats import binomtest

    def wilson(p, n):
        ci = binomtest(round(p * n), n).proportion_ci(0.95, method="wilson")
        return ci.low, ci.high

    (l1, u1), (l2, u2) = wilson(d.rate, d.size), wilson(ref.rate, ref.size)
    delta = d.rate - ref.rate
    low = delta - np.hypot(d.rate - l1, u2 - ref.rate)
    high = delta + np.hypot(u1 - d.rate, ref.rate - l2)
    assert (d.diff_low, d.diff_high) == pytest.approx((low, high), rel=1e-6)
    assert high < 0


# -- item 2: groups whose outcome is fixed are set apart, once -------------------------
def _with_children(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "age": rng.choice(["child", "adult", "old"], n, p=[0.1, 0.8, 0.1]),
        }
    )
    scores = np.clip(rng.beta(2, 5, n) + 0.2 * (frame["sex"] == "M"), 0, 1)
    y = (rng.random(n) < scores).astype(int)
    y[(frame["age"] == "child").to_numpy()] = 0  # nobody has the outcome
    return y, scores, frame


def test_groups_with_a_fixed_outcome_are_never_crowned_nor_behind_a_pair():
    y, scores, frame = _with_children()
    report = audit(y, scores, sensitive_features=frame, **FAST)
    facts = report.headline.threshold
    apart = {g.group for g in facts.fixed_outcome}
    assert apart == {"F & child", "M & child"}
    named = [facts.reference, facts.disadvantaged, facts.farthest]
    named += [facts.lowest, facts.highest, *facts.unclear]
    for gap in (facts.tpr_gap, facts.fpr_gap):
        named += [gap.lowest, gap.highest]
    assert not apart & {g.group for g in named if g is not None}
    d = report.headline.distribution
    if set(d.groups) & apart:
        assert d.fixed_group in apart
        assert not set(d.large_pair[1]) & apart
    text = report.to_dict()["headline"]["text"] + report.to_dict()["plain_summary"]
    assert sum("F & child (n =" in t for t in text) == 1  # reported once


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_claims_about_small_groups_name_their_support():
    rng = np.random.default_rng(3)
    g = np.r_[np.repeat(["a", "b"], 200), np.repeat("c", 12)]
    scores = np.r_[
        rng.uniform(0.3, 0.9, 200), rng.uniform(0.1, 0.8, 200), np.full(12, 0.1)
    ]
    y = (rng.random(g.size) < 0.5).astype(int)
    report = audit(y, scores, sensitive_features=g, **FAST)
    facts = report.headline.threshold
    assert facts.lowest.group == "c"
    text = " ".join(report.to_dict()["headline"]["text"])
    assert "c (n = 12, a small group)" in text


# -- item 6: one worst group under a given reference -----------------------------------
def test_the_disadvantaged_and_the_farthest_group_agree_under_a_reference():
    rng = np.random.default_rng(5)
    sizes = {"ref": 800, "x": 600, "y": 40}
    rates = {"ref": 0.5, "x": 0.25, "y": 0.2}
    g = np.concatenate([np.repeat(k, n) for k, n in sizes.items()])
    chosen = np.concatenate(
        [rng.permutation(n) < round(rates[k] * n) for k, n in sizes.items()]
    )
    scores = np.where(chosen, 0.8, 0.2)
    y = (rng.random(g.size) < 0.5).astype(int)
    facts = audit(
        y, scores, sensitive_features=g, reference="ref", **FAST
    ).headline.threshold
    assert facts.comparison == "reference" and facts.reference.group == "ref"
    # both x and y are clearly below; the least selected is named, and the
    # four-fifths rule's farthest group is the same
    assert facts.n_below == 2
    assert facts.disadvantaged.group == facts.farthest.group == "y"
