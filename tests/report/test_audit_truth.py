"""Issue 36: every sentence of the audit is true of the facts it speaks of.

Each test builds messy groupings (one-person groups, groups without
positives, 40+ intersections) or uses a bundled dataset, and checks the
report's sentences against a recomputation from its own tables.
"""

import numpy as np
import pytest

from skfair import audit
from skfair.datasets import load_compas, load_german_credit

FAST = {"n_resamples": 19, "n_permutations": 19}
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


def messy(seed, n=600, n_groups=44):
    """Scores and labels over ``n_groups`` groups, some tiny, some one-outcome."""
    rng = np.random.default_rng(seed)
    sizes = rng.multinomial(n - n_groups, rng.dirichlet(np.full(n_groups, 0.4))) + 1
    g = np.repeat([f"g{k:02d}" for k in range(n_groups)], sizes)
    shift = rng.normal(0, 0.25, n_groups)[np.repeat(np.arange(n_groups), sizes)]
    scores = np.clip(rng.beta(2, 3, g.size) + shift, 0, 1)
    y = (rng.random(g.size) < scores).astype(int)
    y[g == "g00"] = 0  # a group without positives
    y[g == "g01"] = 1  # a group without negatives
    return y, scores, g


def compas():
    bunch = load_compas()
    return (
        np.asarray(bunch.target),
        bunch.data["decile_score"].to_numpy() / 10.0,
        bunch.sensitive,
    )


def german():
    bunch = load_german_credit()
    numeric = bunch.data.select_dtypes("number")
    z = (numeric - numeric.mean()) / numeric.std()
    scores = 1 / (1 + np.exp(-z.mean(axis=1).to_numpy()))
    return np.asarray(bunch.target), scores, bunch.sensitive


def below_half():
    """A group with both outcomes that the audit's 0.5 selects nobody in.

    ``low`` (scores below 0.45) is at 0% at 0.5 and ``high`` (0.35 to 0.9)
    at 73%; every threshold with a smaller gap selects everybody in ``high``
    (below 0.35) or nobody in ``low`` (above 0.45), as 0.5 itself does, and
    those in between have larger gaps.
    """
    rng = np.random.default_rng(4)
    parts = {"low": (0.0, 0.45, 400), "high": (0.35, 0.9, 400)}
    g = np.concatenate([np.repeat(k, n) for k, (_, _, n) in parts.items()])
    scores = np.concatenate([rng.uniform(a, b, n) for a, b, n in parts.values()])
    y = (rng.random(g.size) < 0.5).astype(int)
    return y, scores, g


CASES = {
    "messy-44": lambda: messy(0),
    "messy-one-person": lambda: messy(1, n=300, n_groups=50),
    "below-half": below_half,
    "compas": compas,
    "german": german,
}


# -- item 3: the trade-off note --------------------------------------------------------
def _both_outcome_trivial(report):
    """Per candidate threshold, whether a group with both outcomes is at 0 or 1."""
    tradeoff, advice = report.tradeoff, report.advice
    rates = tradeoff.positive_rates
    one = set(advice.no_positives) | set(advice.no_negatives)
    no_pos, no_neg = set(advice.no_positives), set(advice.no_negatives)
    out = np.zeros(len(rates), bool)
    for column in rates.columns:
        name = str(column)
        r = rates[column].to_numpy(float)
        low = (r <= 0) & (name not in no_pos)
        high = (r >= 1) & (name not in no_neg)
        out |= low | high
    assert one <= {str(c) for c in rates.columns}
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_tradeoff_note_is_true(case):
    y, scores, groups = CASES[case]()
    report = audit(y, scores, sensitive_features=groups, **FAST)
    advice = report.advice
    table = report.tradeoff.candidates
    gaps = table["delta_dp"].to_numpy(float)
    t = table["threshold"].to_numpy(float)
    smaller = gaps < advice.current.delta_dp - 1e-12
    trivial = _both_outcome_trivial(report)
    at = int(np.flatnonzero(np.isclose(t, advice.current.threshold))[0])
    no_pos, no_neg = set(advice.no_positives), set(advice.no_negatives)
    at_rates = report.tradeoff.positive_rates.iloc[at]
    current_trivial = {
        str(c)
        for c, r in at_rates.items()
        if (r <= 0 and str(c) not in no_pos) or (r >= 1 and str(c) not in no_neg)
    }
    assert set(advice.current_trivial) == current_trivial
    assert advice.n_smaller == int(smaller.sum())
    why = advice.reason
    if advice.recommended is not None:
        assert why is None
        k = int(np.flatnonzero(np.isclose(t, advice.recommended.threshold))[0])
        assert smaller[k] and not trivial[k]
        return
    summary = " ".join(report.to_dict()["plain_summary"])
    assert why in summary
    if why.startswith("every threshold with a smaller gap selects nobody"):
        assert smaller.any() and trivial[smaller].all()
        # the audit's own threshold is named when it does the same
        assert ("so does the audit's own threshold" in why) == bool(current_trivial)
    elif why.startswith("every threshold with a smaller gap keeps less than"):
        floor = 0.95 * advice.best.performance
        perf = table["performance"].to_numpy(float)
        assert smaller.any() and not (perf[smaller] >= floor).any()
    elif why == "no candidate threshold has a smaller gap":
        assert not smaller.any()
    elif why.startswith("of the "):
        n = int(why.split()[2])
        assert n == smaller.sum()
        k = int(why.split(", ")[1].split()[0]) if "select nobody" in why else 0
        assert k == int((smaller & trivial).sum())
    else:
        assert why.startswith("every candidate threshold selects nobody")
        assert advice.best is None
        if "or leaves the performance undefined" not in why:
            assert trivial.all()
        assert ("the audit's own included" in why) == bool(current_trivial)


def test_the_note_names_the_audit_threshold_when_it_selects_nobody_too():
    # the case: the note ruled fairer thresholds out for leaving a
    # group with both outcomes at 0%, which the audit's 0.5 does as well
    y, scores, g = below_half()
    report = audit(y, scores, sensitive_features=g, **FAST)
    advice = report.advice
    assert advice.current_trivial == ("low",)
    assert advice.recommended is None and advice.best is not None
    assert advice.reason == (
        "every threshold with a smaller gap selects nobody (or everybody) in "
        "some group with both outcomes; so does the audit's own threshold "
        "(low at 0%)"
    )
    summary = report.to_dict()["plain_summary"]
    assert any(advice.reason in sentence for sentence in summary)


# -- item 5: resampling sized to the tests; one verdict per test ----------------------
def _holm(pvalues, level):
    """Brute-force Holm: the indices rejected at ``level``."""
    order = np.argsort(pvalues, kind="stable")
    out = set()
    for i, k in enumerate(order):
        if pvalues[k] > level / (len(pvalues) - i):
            break
        out.add(int(k))
    return out


def _multiclass_shift(n=120, k=3, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat(["a", "b"], n // 2)
    logits = rng.normal(0, 1, (n, k))
    logits[:, 0] += 2.5 * (g == "a")
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=p) for p in proba])
    return y, proba, g


def test_default_permutations_let_holm_reject_over_every_test():
    y, proba, g = _multiclass_shift()
    report = audit(y, proba, sensitive_features=g, n_resamples=9)
    # n_resamples given, n_permutations None: the same number (the user's)
    assert report.n_permutations == 9
    report = audit(y, proba, sensitive_features=g)
    tests = [r for r in report.metric_results if r.test]
    m = len(tests)
    assert m == 15  # five metrics with a test, three classes
    assert report.n_permutations == 300
    assert 1 / (report.n_permutations + 1) <= 0.05 / m
    # a clear shift of class 0 is a finding by a permutation test, and the
    # headline says what the summary says
    summary = " ".join(report.to_dict()["plain_summary"])
    rejected = _holm(np.array([r.pvalue for r in tests]), 0.05)
    assert any(tests[i].test == "permutation" for i in rejected)
    mcdp = next(r for r in tests if r.key == "mcdp[0]")
    assert tests.index(mcdp) in rejected
    assert "class 0: MCDP(0) (" in summary.split("On its own")[0]
    text = report.to_dict()["headline"]["text"]
    assert "unlikely to be noise after Holm's correction for 15 tests" in text[-1]


@pytest.mark.parametrize("case", sorted(CASES))
def test_headline_and_summary_read_each_test_the_same_way(case):
    y, scores, groups = CASES[case]()
    report = audit(y, scores, sensitive_features=groups, n_resamples=19)
    decidable = [
        r
        for r in report.metric_results
        if r.defined and np.isfinite(r.pvalue) and r.test and not r.untestable_reason
    ]
    rejected = _holm(np.array([r.pvalue for r in decidable]), 0.05)
    found = {decidable[i].short_name for i in rejected}
    mcdp = next(r for r in report.metric_results if r.key == "mcdp")
    text = " ".join(report.to_dict()["headline"]["text"])
    summary = " ".join(report.to_dict()["plain_summary"])
    claims = "unlikely to be noise" in text
    assert claims == ("MCDP(0)" in found and mcdp in decidable)
    if "MCDP(0)" in found:
        assert "The groups differ beyond chance" in summary
    elif mcdp in decidable and mcdp.pvalue < 0.05:
        assert "not after Holm's correction" in text and "no finding" in text


# -- item 7: raw scores decide at 0 ----------------------------------------------------
@pytest.mark.parametrize("case", ["messy-44", "compas"])
@pytest.mark.parametrize("score_type", ["logit", "margin"])
def test_raw_scores_decide_at_zero_by_default(case, score_type):
    from scipy.special import expit, logit

    y, scores, groups = CASES[case]()
    raw = logit(np.clip(scores, 1e-6, 1 - 1e-6))
    report = audit(y, raw, sensitive_features=groups, score_type=score_type, **FAST)
    assert report.settings.decision_threshold == 0.0
    # the decisions are raw >= 0: brute force from the group table's counts
    table = report.groups
    first = table[table["grouping"] == table["grouping"].iloc[0]]
    assert first["n_selected"].sum() == int((raw >= 0).sum())
    if score_type == "logit":
        assert report.threshold == pytest.approx(expit(0.0))
        rule = "the logit ≥ 0 (the sigmoid-mapped probability ≥ 0.5; threshold auto"
    else:
        assert report.threshold == 0.0
        rule = "the margin ≥ 0 (threshold auto: 0 for margins, the decision boundary)"
    assert rule in report.to_markdown()
    # given explicitly, the threshold is not said to be the default
    given = audit(
        y, raw, sensitive_features=groups, score_type=score_type, threshold=0.0, **FAST
    )
    assert "threshold auto" not in given.to_markdown()


# -- item 4: regression bias -----------------------------------------------------------
def _regression_cases():
    from skfair.datasets import load_communities_crime

    rng = np.random.default_rng(7)
    n = 900
    g = rng.choice(["f", "m", "x"], n, p=[0.45, 0.45, 0.1])
    y = rng.integers(0, 53, n).astype(float)  # weeks worked: many ties
    noise = y + rng.normal(0, 3, n)  # no bias anywhere
    shrunk = np.clip(0.6 * y + 20 + rng.normal(0, 4, n), 0, 52)  # biased by truth
    bunch = load_communities_crime()
    truth = np.asarray(bunch.target, dtype=float)
    crime = np.clip(truth + np.random.default_rng(1).normal(0, 0.1, truth.size), 0, 1)
    return {
        "noise": (y, noise, g),
        "shrunk": (y, shrunk, g),
        "crime": (truth, crime, bunch.sensitive),
    }


def _t_interval(values):
    from scipy import stats

    ci = stats.ttest_1samp(values, 0.0).confidence_interval(0.95)
    return ci.low, ci.high


@pytest.mark.parametrize("case", ["noise", "shrunk", "crime"])
def test_regression_bias_claims_need_an_interval_away_from_zero(case):
    y, pred, groups = _regression_cases()[case]
    report = audit(y, pred, sensitive_features=groups, task="regression", **FAST)
    summary = " ".join(report.to_dict()["plain_summary"])
    codes = np.asarray(pd_series(groups))
    for label in np.unique(codes):
        low, high = _t_interval(pred[codes == label] - y[codes == label])
        if f"over-predicts {label} by" in summary:
            assert low > 0
        if f"under-predicts {label} by" in summary:
            assert high < 0
        if low <= 0 <= high:
            assert f"predicts {label} by" not in summary
    # an interval containing 0 is never read as "no bias"
    assert "no bias" not in summary and "no clear bias" not in summary
    highest = report.headline.regression.bias.highest
    if highest.low <= 0 <= highest.high:
        told = f"has a bias for {highest.group} that cannot be told from 0"
        assert told in summary
    facts = report.headline.regression
    # the bins partition the samples; each bin's bias is its mean residual
    bins = facts.bias_by_truth
    assert sum(b.size for b in bins) == y.size
    for b in bins:
        rows = (y >= b.low_value) & (y <= b.high_value)
        assert rows.sum() == b.size
        assert b.value == pytest.approx(np.mean(pred[rows] - y[rows]))
        assert (b.low, b.high) == pytest.approx(_t_interval(pred[rows] - y[rows]))
    assert facts.overall_bias.value == pytest.approx(np.mean(pred - y))
    if case == "shrunk":
        # over-prediction for the lowest true values, none for the highest
        assert bins[0].low > 0 and bins[0].value > 10
        assert "by quantile bin of the true values (y_true): true values 0" in summary


def pd_series(groups):
    return groups.iloc[:, 0] if hasattr(groups, "iloc") and groups.ndim == 2 else groups


# -- item 8: Methods says what was done ------------------------------------------------
def test_methods_of_a_regression_audit_say_what_was_done():
    y, pred, groups = _regression_cases()["noise"]
    report = audit(y, pred, sensitive_features=groups, task="regression", **FAST)
    methods = " ".join(report.to_dict()["methods"])
    assert not any(r.key.startswith("delta_dp@") for r in report.metric_results)
    assert "chi-square" not in methods  # no threshold: no ΔDP_b test run
    assert "log-scale interval" in methods
    assert "square root of the t interval" not in methods
    page = report.to_html(figures=False)
    assert "0 means identical distributions" not in page
    with_t = audit(
        y, pred, sensitive_features=groups, task="regression", threshold=26, **FAST
    )
    assert "chi-square" in " ".join(with_t.to_dict()["methods"])


def test_a_multiclass_gap_below_one_over_k_is_said_to_be_no_decision():
    rng = np.random.default_rng(2)
    n, k = 400, 5
    g = np.repeat(["a", "b"], n // 2)
    proba = rng.dirichlet(np.ones(k), n)
    # class 0: tiny probabilities that differ between the groups, never predicted
    proba[:, 0] = np.where(g == "a", 1e-7, 1e-5) * rng.uniform(1, 2, n)
    proba /= proba.sum(axis=1, keepdims=True)
    y = rng.integers(1, k, n)
    report = audit(y, proba, sensitive_features=g, classes=range(k), **FAST)
    d = report.headline.distribution
    text = report.to_dict()["headline"]["text"][-1]
    if d.score < 1 / k:
        assert "where the class is never the predicted one" in text
        assert "is at most" not in text
    else:
        assert "is at most" in text
    assert report.headline.multiclass.distribution_class == "0"
    assert "0 means identical distributions" not in report.to_html(figures=False)


# -- item 5 (multiclass): shares beside true shares, small denominators ---------------
def _multiclass_messy(seed=3, n=700, k=5):
    rng = np.random.default_rng(seed)
    g = rng.choice([f"g{i}" for i in range(6)], n, p=[0.4, 0.3, 0.2, 0.05, 0.04, 0.01])
    logits = rng.normal(0, 1, (n, k))
    logits[:, 0] += 1.5 * (g == "g0")
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=p) for p in proba])
    y[(g == "g5") & (y == 0)] = 1  # a group with no one of class 0
    return y, proba, g


def test_multiclass_shares_and_denominators_are_stated():
    y, proba, g = _multiclass_messy()
    report = audit(y, proba, sensitive_features=g, **FAST)
    f = report.headline.multiclass
    pred = proba.argmax(axis=1)
    for c in f.shares:
        rows = g == c.group
        k = int(c.label)
        assert c.size == rows.sum()
        assert c.predicted == pytest.approx(np.mean(pred[rows] == k))
        assert c.true == pytest.approx(np.mean(y[rows] == k))
    text = report.to_dict()["headline"]["text"]
    worst = max(f.selection, key=lambda gap: gap.value)
    shares = next(t for t in text if t.startswith("The predicted (true) share"))
    assert f"class {worst.label} in each group" in shares
    # TPR and FPR rest on the people of (or not of) the class: said, and
    # called small under 30
    for gap in (*f.tpr, *f.fpr):
        for end in (gap.lowest, gap.highest):
            rows = g == end.group
            k = int(gap.label)
            denominator = int(
                np.sum(y[rows] == k) if gap.rate == "tpr" else np.sum(y[rows] != k)
            )
            assert end.n_positive == denominator
    rates = [t for t in text if t.startswith("One-vs-rest")]
    for t in rates:
        assert "the rate rests on" in t
    for t in rates:
        for piece in t.split("the rate rests on ")[1:]:
            count = int(piece.split()[0].replace(",", ""))
            small = piece.split(")")[0].endswith("a small denominator")
            assert small == (count < 30)
    page = report.to_html(figures=False).lower()
    assert "disadvantage" not in page  # classes have no declared good side


# -- item 10: weights, exclusions, provenance -------------------------------------
def _children(seed=0, n=400):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    age = rng.choice(["child", "adult", "old"], n, p=[0.2, 0.6, 0.2])
    scores = np.clip(rng.beta(2, 4, n) + 0.2 * (sex == "M"), 0, 1)
    y = (rng.random(n) < scores).astype(int)
    y[age == "child"] = 0
    import pandas as pd

    return y, scores, pd.DataFrame({"sex": sex, "age": age})


def test_integer_weights_are_frequency_weights():
    y, scores, frame = _children()
    w = np.random.default_rng(1).integers(0, 4, len(y))
    weighted = audit(y, scores, sensitive_features=frame, sample_weight=w, **FAST)
    index = np.repeat(np.arange(len(y)), w)
    repeated = audit(
        y[index],
        scores[index],
        sensitive_features=frame.iloc[index].reset_index(drop=True),
        **FAST,
    )
    # every count, rate and interval is that of the repeated rows
    cols = ["group", "size", "n_selected", "n_positive", "positive_rate"]
    cols += ["positive_rate_low", "positive_rate_high"]
    assert weighted.groups[cols].equals(repeated.groups[cols])
    assert weighted.headline == repeated.headline
    sel = scores >= 0.5
    table = weighted.groups.set_index("group")
    for sex in ("F", "M"):
        rows = (frame["sex"] == sex).to_numpy()
        assert table.loc[sex, "size"] == w[rows].sum()
        assert table.loc[sex, "n_selected"] == w[rows & sel].sum()
    notes = weighted.to_dict()["notes"]
    assert any(
        f"the {len(y):,} input rows stand for {w.sum():,} people" in n for n in notes
    )
    with pytest.raises(ValueError, match="finite non-negative numbers"):
        audit(y, scores, sensitive_features=frame, sample_weight=w - 0.5, **FAST)


def test_exclude_sets_groups_aside_with_the_reason():
    y, scores, frame = _children()
    reason = "children cannot have the outcome"
    report = audit(
        y, scores, sensitive_features=frame, exclude={"child": reason}, **FAST
    )
    kept = (frame["age"] != "child").to_numpy()
    assert report.n_samples == kept.sum()
    assert "child" not in set(report.groups["group"])
    notes = report.to_dict()["notes"]
    line = next(n for n in notes if n.startswith("Set aside before the audit"))
    assert f"child, {int((~kept).sum()):,} rows; reason: {reason}." in line
    # by the text of an intersection, without a reason
    one = audit(y, scores, sensitive_features=frame, exclude=["F & child"], **FAST)
    rows = ((frame["sex"] == "F") & (frame["age"] == "child")).to_numpy()
    assert one.n_samples == (~rows).sum()
    with pytest.raises(ValueError, match="is not a group"):
        audit(y, scores, sensitive_features=frame, exclude=["nobody"], **FAST)


def test_provenance_records_version_call_rows_checksum_and_date():
    import hashlib
    import re

    import skfair

    y, scores, frame = _children()
    report = audit(y, scores, sensitive_features=frame, threshold=0.4, **FAST)
    p = report.provenance
    assert p.version == skfair.__version__
    assert p.n_rows == len(y) and p.n_people == len(y)
    assert "threshold=0.4" in p.call
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", p.date)
    assert re.fullmatch(r"[0-9a-f]{64}", p.checksum)
    # the checksum follows the data: one changed score changes it
    other = scores.copy()
    other[0] = 1 - other[0]
    changed = audit(y, other, sensitive_features=frame, threshold=0.4, **FAST)
    assert changed.provenance.checksum != p.checksum
    again = audit(y, scores, sensitive_features=frame, threshold=0.4, **FAST)
    assert again.provenance.checksum == p.checksum
    assert hashlib.sha256().hexdigest() != p.checksum
    notes = report.to_dict()["notes"]
    assert notes[-1].startswith(f"Provenance: skfair {skfair.__version__}; audit(")
    assert report.to_dict()["provenance"]["checksum"] == p.checksum
    assert p.checksum in report.to_html(figures=False)
