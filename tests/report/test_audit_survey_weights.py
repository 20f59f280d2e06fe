"""Survey weights in the audit (issue 36): weighted numbers, honest intervals.

Every count, rate and metric of an audit with non-integer ``sample_weight``
is checked against an independent pandas/numpy weighted recomputation; the
tests that do not hold under survey weights are not run and the report
says so; the design-effect note and the small-group rules read Kish's
effective size.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skfair import audit
from skfair.report._common import SURVEY_NO_DKW, SURVEY_NO_TEST
from skfair.report._provenance import (
    SURVEY_HFM_ERROR,
    WEIGHT_ERROR,
)

FAST = {"n_resamples": 49}
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


def survey_sample(seed=0, n=900):
    """Scores, labels, two attributes and unequal weights 1 / π."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.45, 0.55])
    region = rng.choice(["north", "south", "west"], n)
    scores = np.clip(rng.beta(2, 4, n) + 0.12 * (sex == "M"), 0, 1)
    y = (rng.random(n) < scores).astype(int)
    pi = np.where(sex == "F", 0.6, 0.2) * np.where(y == 1, 1.0, 0.5)
    w = 1.0 / pi * rng.uniform(0.8, 1.25, n)
    frame = pd.DataFrame({"sex": sex, "region": region})
    return y, scores, frame, w


def _wilson(rate, n, level=0.95):
    z = stats.norm.isf((1 - level) / 2)
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _kish(w):
    return w.sum() ** 2 / (w * w).sum()


def test_weighted_group_table_equals_pandas_recomputation():
    y, scores, frame, w = survey_sample()
    report = audit(y, scores, sensitive_features=frame, sample_weight=w, **FAST)
    data = frame.assign(y=y, s=scores, w=w, sel=(scores >= 0.5).astype(int))
    data["both"] = data["sex"] + " & " + data["region"]
    table = report.groups.set_index(["grouping", "group"])
    for grouping, column in [("sex", "sex"), ("region", "region")]:
        for label, rows in data.groupby(column):
            row = table.loc[(grouping, label)]
            ww = rows["w"]
            assert row["size"] == pytest.approx(ww.sum(), rel=1e-12)
            assert row["n_rows"] == len(rows)
            assert row["n_eff"] == pytest.approx(_kish(ww.to_numpy()), rel=1e-12)
            assert row["design_effect"] == pytest.approx(len(rows) / row["n_eff"])
            selected = (ww * rows["sel"]).sum()
            positives = (ww * rows["y"]).sum()
            tp = (ww * rows["sel"] * rows["y"]).sum()
            assert row["n_selected"] == pytest.approx(selected, rel=1e-12)
            assert row["n_positive"] == pytest.approx(positives, rel=1e-12)
            assert row["tp"] == pytest.approx(tp, rel=1e-12)
            assert row["positive_rate"] == pytest.approx(selected / ww.sum())
            assert row["base_rate"] == pytest.approx(positives / ww.sum())
            assert row["tpr"] == pytest.approx(tp / positives)
            assert row["mean_score"] == pytest.approx(np.average(rows["s"], weights=ww))
            # Wilson's interval on Kish's effective size of the denominator
            low, high = _wilson(selected / ww.sum(), _kish(ww.to_numpy()))
            assert row["positive_rate_low"] == pytest.approx(low, rel=1e-9)
            assert row["positive_rate_high"] == pytest.approx(high, rel=1e-9)
            pos = rows["y"] == 1
            low, high = _wilson(tp / positives, _kish(ww[pos].to_numpy()))
            assert row["tpr_low"] == pytest.approx(low, rel=1e-9)
            assert row["tpr_high"] == pytest.approx(high, rel=1e-9)
    # the metrics are the weighted ones: ΔDP_b and ΔDP_c over intersections
    weighted = data.assign(ws=data["sel"] * data["w"], wsc=data["s"] * data["w"])
    sums = weighted.groupby("both")[["ws", "wsc", "w"]].sum()
    rate = sums["ws"] / sums["w"]
    mean = sums["wsc"] / sums["w"]
    metrics = report.metrics
    assert metrics.loc["delta_dp@0.5", "value"] == pytest.approx(
        rate.max() - rate.min(), rel=1e-9
    )
    assert metrics.loc["delta_dp", "value"] == pytest.approx(
        mean.max() - mean.min(), rel=1e-9
    )
    # the unweighted gap differs: the test would not tell them apart otherwise
    plain = data.groupby("both")["sel"].mean()
    assert abs((plain.max() - plain.min()) - (rate.max() - rate.min())) > 1e-3
    # the headline's impact ratio is of the weighted rates of its grouping
    facts = report.headline.threshold
    rates = table.xs(facts.grouping)["positive_rate"]
    assert facts.impact_ratio == pytest.approx(rates.min() / rates.max(), rel=1e-9)
    assert report.provenance.n_people == pytest.approx(w.sum())
    assert report.provenance.survey and report.provenance.n_audited_rows == len(y)


def test_intervals_are_weighted_and_tests_are_not_run():
    y, scores, frame, w = survey_sample(1)
    report = audit(y, scores, sensitive_features=frame["sex"], sample_weight=w, **FAST)
    m = report.metrics
    defined = m[m["undefined_reason"].isna()]
    assert defined["pvalue"].isna().all()
    assert defined["test"].isna().all()
    assert defined["dkw_low"].isna().all() and defined["dkw_high"].isna().all()
    assert (defined["low"] <= defined["value"] + 1e-12).all()
    assert (defined["value"] <= defined["high"] + 1e-12).all()
    # ΔDP_b's interval is Newcombe's on Kish's effective sizes
    sel = (scores >= 0.5).astype(float)
    parts = {}
    for g in ("F", "M"):
        rows = (frame["sex"] == g).to_numpy()
        parts[g] = (np.average(sel[rows], weights=w[rows]), _kish(w[rows]))
    from skfair.metrics.inference import fold_abs, newcombe_interval

    z = stats.norm.isf(0.025)
    lo, hi = newcombe_interval(*parts["M"], *parts["F"], z)
    lo, hi = fold_abs(lo, hi)
    assert m.loc["delta_dp@0.5", "interval"] == "newcombe"
    assert m.loc["delta_dp@0.5", "low"] == pytest.approx(float(lo), rel=1e-9)
    assert m.loc["delta_dp@0.5", "high"] == pytest.approx(float(hi), rel=1e-9)
    text = report.to_dict()
    assert SURVEY_NO_TEST in " ".join(text["methods"])
    assert SURVEY_NO_DKW in text["notes"]
    headline = " ".join(text["headline"]["text"])
    assert "not tested (survey weights" in headline
    assert "p =" not in headline and "p ≤" not in headline
    summary = " ".join(text["plain_summary"])
    assert "No test is run with survey weights" in summary
    # the bootstrap band draws the same resamples again: reproducible
    again = audit(y, scores, sensitive_features=frame["sex"], sample_weight=w, **FAST)
    assert again.metrics["high"].equals(m["high"])


def test_design_effect_note_and_small_groups_use_n_eff():
    rng = np.random.default_rng(3)
    n = 400
    g = np.repeat(["a", "b", "c"], [200, 150, 50])
    scores = rng.random(n)
    y = (rng.random(n) < scores).astype(int)
    w = rng.uniform(1, 2, n)
    w[g == "c"] = 0.5
    w[np.flatnonzero(g == "c")[:2]] = 60.0  # two rows carry group c
    report = audit(y, scores, sensitive_features=g, sample_weight=w, **FAST)
    table = report.groups.set_index("group")
    n_eff_c = _kish(w[g == "c"])
    assert n_eff_c < 30 <= (g == "c").sum()
    assert table.loc["c", "n_eff"] == pytest.approx(n_eff_c)
    notes = report.to_dict()["notes"]
    note = next(t for t in notes if t.startswith("Design effect"))
    overall = _kish(w)
    assert f"n_eff = (Σw)²/Σw² = {overall:,.1f}" in note
    assert f"deff = n / n_eff = {n / overall:.2f}" in note
    deff_c = 50 / n_eff_c
    assert f"c: 50 rows, n_eff {n_eff_c:,.1f}, deff {deff_c:.2f}" in note
    assert "Every interval rests on these effective sizes" in note
    small = next(t for t in notes if t.startswith("Small groups"))
    assert "Kish effective size under 30" in small and "c (n_eff" in small
    assert "b (n_eff" not in small
    # with the same rows unweighted, c (50 rows) is not small
    plain = audit(y, scores, sensitive_features=g, **FAST)
    assert not any(t.startswith("Small groups") for t in plain.to_dict()["notes"])


def test_zero_weight_rows_stand_for_no_one():
    y, scores, frame, w = survey_sample(2, n=300)
    w = w.copy()
    w[:40] = 0.0
    with_zero = audit(y, scores, sensitive_features=frame, sample_weight=w, **FAST)
    dropped = audit(
        y[40:],
        scores[40:],
        sensitive_features=frame.iloc[40:].reset_index(drop=True),
        sample_weight=w[40:],
        **FAST,
    )
    cols = ["group", "size", "n_rows", "n_eff", "positive_rate", "positive_rate_low"]
    pd.testing.assert_frame_equal(with_zero.groups[cols], dropped.groups[cols])
    assert with_zero.provenance.n_audited_rows == 260
    assert with_zero.provenance.n_rows == 300


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("nan", "1 NaN or infinite value(s), the first nan at row 3"),
        ("inf", "1 NaN or infinite value(s), the first inf at row 3"),
        ("negative", "1 negative value(s), the first -0.5 at row 3"),
        ("zeros", "weights that are all 0"),
        ("short", "shape (299,) for 300 rows"),
        ("2d", "shape (300, 1) for 300 rows"),
        ("text", "dtype <U3"),
    ],
)
def test_invalid_weights_are_refused_with_the_reason(bad, reason):
    y, scores, frame, w = survey_sample(4, n=300)
    w = w.copy()
    values = {
        "nan": lambda: np.where(np.arange(300) == 3, np.nan, w),
        "inf": lambda: np.where(np.arange(300) == 3, np.inf, w),
        "negative": lambda: np.where(np.arange(300) == 3, -0.5, w),
        "zeros": lambda: np.zeros(300),
        "short": lambda: w[:-1],
        "2d": lambda: w[:, None],
        "text": lambda: np.array(["1.5"] * 300),
    }[bad]()
    with pytest.raises(ValueError) as info:
        audit(y, scores, sensitive_features=frame, sample_weight=values, **FAST)
    assert str(info.value) == WEIGHT_ERROR.format(reason=reason)


def test_integer_valued_weights_keep_the_frequency_audit():
    y, scores, frame, _ = survey_sample(5, n=300)
    w = np.random.default_rng(0).integers(0, 4, 300)
    as_int = audit(y, scores, sensitive_features=frame, sample_weight=w, **FAST)
    as_float = audit(
        y, scores, sensitive_features=frame, sample_weight=w.astype(float), **FAST
    )
    index = np.repeat(np.arange(300), w)
    repeated = audit(
        y[index],
        scores[index],
        sensitive_features=frame.iloc[index].reset_index(drop=True),
        **FAST,
    )
    for report in (as_int, as_float):
        assert not report.provenance.survey
        assert "n_eff" not in report.groups
        pd.testing.assert_frame_equal(report.groups, repeated.groups)
        pd.testing.assert_frame_equal(report.metrics, repeated.metrics)
        assert report.headline == repeated.headline


def test_survey_weights_refuse_hfm():
    y, scores, frame, w = survey_sample(6, n=300)
    X = np.random.default_rng(0).random((300, 2))
    with pytest.raises(ValueError) as info:
        audit(y, scores, sensitive_features=frame, sample_weight=w, X=X, **FAST)
    assert str(info.value) == SURVEY_HFM_ERROR


def test_tradeoff_share_near_and_figures_are_weighted():
    y, scores, frame, w = survey_sample(7, n=400)
    report = audit(y, scores, sensitive_features=frame["sex"], sample_weight=w, **FAST)
    assert report.group_arguments()["sample_weight"] is report.inputs.weights
    # the trade-off at the audit's threshold is the weighted ΔDP_b
    sel = scores >= 0.5
    rates = [
        np.average(sel[(frame["sex"] == g).to_numpy()], weights=w[frame["sex"] == g])
        for g in ("F", "M")
    ]
    assert report.advice.current.delta_dp == pytest.approx(
        abs(rates[0] - rates[1]), rel=1e-9
    )
    d = report.headline.distribution
    near = np.abs(scores - d.score) <= d.epsilon
    assert d.share_near == pytest.approx(np.average(near, weights=w), rel=1e-12)
    pytest.importorskip("matplotlib")
    figures = report.figures()
    mcdp = report.metrics.loc["mcdp", "value"]
    assert f"MCDP(0) = {mcdp:.4f}" in figures[0]["alt"]


def test_exclude_with_survey_weights_counts_the_people_set_aside():
    y, scores, frame, w = survey_sample(8, n=300)
    report = audit(
        y,
        scores,
        sensitive_features=frame,
        sample_weight=w,
        exclude={"west": "not in scope"},
        **FAST,
    )
    west = (frame["region"] == "west").to_numpy()
    assert report.n_samples == (~west).sum()
    assert report.provenance.n_people == pytest.approx(w[~west].sum())
    note = next(t for t in report.notes() if t.startswith("Set aside"))
    assert f"west, {w[west].sum():,.1f} people; reason: not in scope." in note
    table = report.groups.set_index("group")
    assert table.loc["F", "size"] == pytest.approx(
        w[~west & (frame["sex"] == "F").to_numpy()].sum()
    )


def test_rendered_report_shows_weighted_counts_rows_and_n_eff():
    y, scores, frame, w = survey_sample(9, n=300)
    report = audit(y, scores, sensitive_features=frame["sex"], sample_weight=w, **FAST)
    text = report.to_markdown()
    assert "| group | weighted size | rows | n\\_eff | deff |" in text
    f = report.groups.set_index("group").loc["F"]
    assert f"| F | {f['size']:,.1f} | {int(f['n_rows'])} | {f['n_eff']:,.1f} |" in (
        text.replace(" (reference)", "")
    )
    assert "Wilson intervals on Kish's n\\_eff" in text
    lead = report.to_dict()["headline"]["text"][0]
    g = report.headline.threshold.reference
    assert f"weighted n = {g.size:,.1f}, {g.n_rows:,} rows, n_eff = {g.n_eff:,.1f}" in (
        lead
    )


def test_few_effective_positives_leave_a_group_out_of_the_tpr_gap():
    rng = np.random.default_rng(11)
    g = np.repeat(["a", "b", "c"], [300, 300, 120])
    scores = rng.random(g.size)
    y = (rng.random(g.size) < scores).astype(int)
    w = rng.uniform(1, 2, g.size)
    positives_c = np.flatnonzero((g == "c") & (y == 1))
    assert len(positives_c) >= 20
    w[positives_c[0]] = 500.0  # one positive carries group c's positives
    n_eff = _kish(w[positives_c])
    assert n_eff < 10
    report = audit(y, scores, sensitive_features=g, sample_weight=w, **FAST)
    table = report.groups.set_index("group")
    assert table.loc["c", "n_eff_positive"] == pytest.approx(n_eff)
    assert bool(table.loc["c", "few_positives"])
    gap = report.headline.threshold.tpr_gap
    assert gap.left_out == ("c",)
    tpr = table.loc[["a", "b"], "tpr"]
    assert gap.value == pytest.approx(tpr.max() - tpr.min(), rel=1e-9)
    text = " ".join(report.to_dict()["headline"]["text"])
    assert "fewer than 10 effective (Kish) positives: c" in text


@pytest.mark.parametrize("weights", ["survey", "integer"])
@pytest.mark.parametrize("exclude", [None, "c"])
def test_weights_with_another_index_are_refused(weights, exclude):
    """A weight Series indexed differently from the scores is not paired by
    position (neither before nor after exclude= and the weights reset the
    rows)."""
    rng = np.random.default_rng(3)
    n = 300
    scores = pd.Series(rng.random(n))
    y = pd.Series((rng.random(n) < scores).astype(int))
    groups = pd.Series(rng.choice(["a", "b", "c"], n))
    values = rng.uniform(0.5, 2.0, n) if weights == "survey" else rng.integers(1, 3, n)
    shuffled = pd.Series(values, index=np.arange(n)[::-1])
    with pytest.raises(ValueError, match="index"):
        audit(
            y,
            scores,
            sensitive_features=groups,
            sample_weight=shuffled,
            exclude=exclude,
            n_resamples=19,
            n_permutations=19,
        )
    shifted = groups.set_axis(np.arange(n) + 1)  # the groups, misaligned
    with pytest.raises(ValueError, match="index"):
        audit(
            y,
            scores,
            sensitive_features=shifted,
            sample_weight=values,
            exclude=exclude,
            n_resamples=19,
            n_permutations=19,
        )


def test_one_row_group_reads_one_row_and_no_test_is_not_parity():
    """A one-row group with survey weights: "1 row"; an interval containing 0
    is not read as the groups being alike."""
    from skfair.report._survey import rows_text

    assert (rows_text(1), rows_text(2), rows_text(1234)) == (
        "1 row",
        "2 rows",
        "1,234 rows",
    )
    rng = np.random.default_rng(1)
    n = 400
    groups = np.array(rng.choice(["a", "b"], n), dtype=object)
    groups[0] = "solo"
    scores = rng.random(n)
    y = (rng.random(n) < scores).astype(int)
    report = audit(
        y,
        scores,
        sensitive_features=groups,
        sample_weight=rng.uniform(0.3, 4.0, n),
        n_resamples=19,
        n_permutations=19,
        random_state=0,
        min_group_size=1,
    )
    text = " ".join(report.to_dict()["headline"]["text"])
    assert "1 rows" not in text and "no evidence of a disparity" not in text
    assert "1 row," in text


def test_methods_state_the_size_rules_in_effective_samples():
    """The Methods text of a survey-weighted audit gives the small-group
    rules in Kish's effective samples; the unweighted one is unchanged."""
    y, scores, frame, w = survey_sample(4, n=400)
    common = {"sensitive_features": frame["sex"], **FAST}
    methods = " ".join(audit(y, scores, sample_weight=w, **common).to_dict()["methods"])
    assert "among the groups of 30 or more effective samples (Kish)" in methods
    assert "positive labels have a Kish effective size under 10" in methods
    assert "30 or more people" not in methods
    assert "(under 30 people" not in methods
    plain = " ".join(audit(y, scores, **common).to_dict()["methods"])
    assert "among the groups of 30 or more people when two or more are" in plain
    assert "fewer than 10 positive labels is flagged" in plain
