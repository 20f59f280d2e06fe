"""Survey weights in the regression audit (issue 36): weighted and honest.

Every per-group number of a regression audit with non-integer
``sample_weight`` is checked against an independent pandas/numpy weighted
recomputation (vectorised groupby sums); intervals rest on Kish's
effective size; no test is run and no sentence claims what a test would.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skfair import audit
from skfair.report._common import SURVEY_NO_DKW, SURVEY_NO_TEST
from skfair.report._figures import SURVEY_NO_BOXES

FAST = {"n_resamples": 49}
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


def regression_sample(seed=0, n=800):
    """Targets, predictions biased for one group, two attributes, weights 1 / π."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(["n", "s", "w"], n)
    y = rng.normal(40, 10, n)
    pred = y + rng.normal(0, 5, n) + 2.0 * (sex == "M") + 0.15 * (y - 40)
    # over-sampled men and low targets: weights pull toward women, high y
    w = np.where(sex == "F", 3.0, 1.0) * np.where(y > 45, 2.5, 1.0)
    w = w * rng.uniform(0.8, 1.25, n)
    return y, pred, pd.DataFrame({"sex": sex, "region": region}), w


def _weighted_sums(data, by, columns):
    """Per group of ``by``: sums of ``w``, ``w²`` and ``w * column`` (vectorised)."""
    parts = {"w": data["w"], "w2": data["w"] ** 2}
    for c in columns:
        parts[f"w_{c}"] = data["w"] * data[c]
    return pd.DataFrame(parts).assign(key=data[by].to_numpy()).groupby("key").sum()


def _t_interval(mean, se, n_eff, level=0.95):
    half = stats.t.ppf(0.5 + level / 2, n_eff - 1) * se
    return mean - half, mean + half


def test_weighted_regression_table_equals_pandas_recomputation():
    y, pred, frame, w = regression_sample()
    report = audit(y, pred, sensitive_features=frame, sample_weight=w, **FAST)
    data = frame.assign(y=y, p=pred, w=w, r=pred - y)
    data["a"], data["r2"] = data["r"].abs(), data["r"] ** 2
    data["both"] = data["sex"] + " & " + data["region"]
    table = report.groups.set_index(["grouping", "group"])
    for grouping, column in [
        ("sex", "sex"),
        ("region", "region"),
        ("sex & region", "both"),
    ]:
        sums = _weighted_sums(data, column, ["p", "y", "r", "a", "r2"])
        rows = data.groupby(column).size()
        for label in sums.index:
            row, s = table.loc[(grouping, label)], sums.loc[label]
            n_eff = s["w"] ** 2 / s["w2"]
            assert row["size"] == pytest.approx(s["w"], rel=1e-12)
            assert row["n_rows"] == rows[label]
            assert row["n_eff"] == pytest.approx(n_eff, rel=1e-12)
            assert row["design_effect"] == pytest.approx(rows[label] / n_eff)
            assert row["mean_prediction"] == pytest.approx(s["w_p"] / s["w"])
            assert row["mean_true"] == pytest.approx(s["w_y"] / s["w"])
            assert row["mean_residual"] == pytest.approx(s["w_r"] / s["w"])
            assert row["mae"] == pytest.approx(s["w_a"] / s["w"])
            assert row["rmse"] == pytest.approx(np.sqrt(s["w_r2"] / s["w"]))
    # the intervals of one group, in full: linearisation variance, n_eff - 1 dof
    g = data[data["sex"] == "F"]
    wg, n = g["w"].to_numpy(), len(g)
    n_eff = wg.sum() ** 2 / (wg * wg).sum()
    row = table.loc[("sex", "F")]
    for name, x in (("mean_residual", g["r"]), ("mae", g["a"])):
        mean = np.average(x, weights=wg)
        se = np.sqrt(((wg * (x - mean)) ** 2).sum() / wg.sum() ** 2 * n / (n - 1))
        low, high = _t_interval(mean, se, n_eff)
        assert row[f"{name}_low"] == pytest.approx(
            max(low, 0) if name == "mae" else low
        )
        assert row[f"{name}_high"] == pytest.approx(high)
    mse = np.average(g["r2"], weights=wg)
    se = np.sqrt(((wg * (g["r2"] - mse)) ** 2).sum() / wg.sum() ** 2 * n / (n - 1))
    factor = np.exp(stats.t.ppf(0.975, n_eff - 1) * se / mse)
    assert row["rmse_low"] == pytest.approx(np.sqrt(mse / factor))
    assert row["rmse_high"] == pytest.approx(np.sqrt(mse * factor))
    # the weighted quantiles invert the weighted CDF
    for q in (0.1, 0.5, 0.9):
        expected = np.quantile(g["p"], q, method="inverted_cdf", weights=wg)
        assert row[f"q{int(100 * q)}"] == pytest.approx(expected)
    # the unweighted bias of a group differs: the test can tell them apart
    plain = audit(y, pred, sensitive_features=frame, **FAST).groups
    plain = plain.set_index(["grouping", "group"])
    assert abs(plain.loc[("sex", "F"), "mean_residual"] - row["mean_residual"]) > 0.05


def test_weighted_regression_metrics_and_gaps():
    y, pred, frame, w = regression_sample(1)
    sex = frame["sex"]
    report = audit(y, pred, sensitive_features=sex, sample_weight=w, **FAST)
    plain = audit(y, pred, sensitive_features=sex, **FAST)
    m, p = report.metrics, plain.metrics
    data = pd.DataFrame({"sex": sex, "w": w, "p": pred, "r": pred - y})
    sums = _weighted_sums(data, "sex", ["p", "r"])
    means, bias = sums["w_p"] / sums["w"], sums["w_r"] / sums["w"]
    assert m.loc["delta_dp", "value"] == pytest.approx(abs(means["M"] - means["F"]))
    assert m.loc["mean_residual_gap", "value"] == pytest.approx(
        abs(bias["M"] - bias["F"])
    )
    for key in ("delta_dp", "abcc", "mcdp", "mean_residual_gap"):
        assert abs(m.loc[key, "value"] - p.loc[key, "value"]) > 1e-3, key
    # the bias gap's Welch interval on Kish's sizes
    parts = {}
    for g in ("F", "M"):
        rows = (sex == g).to_numpy()
        wg, r = w[rows], pred[rows] - y[rows]
        mean = np.average(r, weights=wg)
        se2 = (
            ((wg * (r - mean)) ** 2).sum()
            / wg.sum() ** 2
            * rows.sum()
            / (rows.sum() - 1)
        )
        parts[g] = (mean, se2, wg.sum() ** 2 / (wg * wg).sum() - 1)
    se2 = parts["M"][1] + parts["F"][1]
    df = se2**2 / (
        parts["M"][1] ** 2 / parts["M"][2] + parts["F"][1] ** 2 / parts["F"][2]
    )
    d = parts["M"][0] - parts["F"][0]
    half = stats.t.isf(0.025, df) * np.sqrt(se2)
    assert m.loc["mean_residual_gap", "high"] == pytest.approx(
        max(abs(d - half), abs(d + half))
    )
    assert m.loc["mean_residual_gap", "low"] == pytest.approx(
        max(d - half, -(d + half), 0)
    )
    # no test under survey weights, and no DKW interval
    defined = m[m["undefined_reason"].isna()]
    assert defined["pvalue"].isna().all() and defined["test"].isna().all()
    assert defined["dkw_low"].isna().all()
    assert p["pvalue"].notna().any()  # the same audit unweighted has tests


def test_bias_by_truth_bins_are_weighted():
    y, pred, frame, w = regression_sample(2)
    report = audit(y, pred, sensitive_features=frame["sex"], sample_weight=w, **FAST)
    facts = report.headline.regression
    edges = np.quantile(y, [0.25, 0.5, 0.75], method="inverted_cdf", weights=w)
    which = np.searchsorted(np.unique(edges), y, side="left")
    r = pred - y
    assert len(facts.bias_by_truth) == 4
    for k, b in enumerate(facts.bias_by_truth):
        rows = which == k
        assert b.size == pytest.approx(w[rows].sum())
        assert b.n_rows == rows.sum()
        assert b.value == pytest.approx(np.average(r[rows], weights=w[rows]))
        assert b.n_eff == pytest.approx(w[rows].sum() ** 2 / (w[rows] ** 2).sum())
    assert facts.overall_bias.value == pytest.approx(np.average(r, weights=w))
    summary = " ".join(report.to_dict()["plain_summary"])
    assert "weighted n = " in summary and "n_eff = " in summary


def test_regression_report_says_not_tested_and_claims_no_direction_from_tests():
    y, pred, frame, w = regression_sample(3)
    report = audit(y, pred, sensitive_features=frame, sample_weight=w, **FAST)
    text = report.to_dict()
    assert SURVEY_NO_TEST in " ".join(text["methods"])
    assert SURVEY_NO_DKW in text["notes"]
    headline = " ".join(text["headline"]["text"])
    assert "not tested (survey weights" in headline
    assert "p =" not in headline and "p ≤" not in headline
    summary = " ".join(text["plain_summary"])
    assert "No test is run with survey weights" in summary
    assert "no finding" not in summary and "beyond chance" not in summary
    assert "compatible with noise" not in headline + summary
    assert "Design effect of the survey weights" in " ".join(text["notes"])
    markdown = report.to_markdown()
    assert "| group | weighted size | rows | n\\_eff | deff |" in markdown
    assert "on Kish's n\\_eff" in markdown


def test_regression_residual_boxes_are_refused_with_survey_weights():
    pytest.importorskip("matplotlib")
    y, pred, frame, w = regression_sample(4, n=300)
    report = audit(y, pred, sensitive_features=frame["sex"], sample_weight=w, **FAST)
    figures = report.figures()
    assert figures[1]["note"] == SURVEY_NO_BOXES and "png" not in figures[1]
    assert "png" in figures[0]


def test_regression_threshold_facts_are_weighted():
    y, pred, frame, w = regression_sample(5)
    sex = frame["sex"]
    report = audit(
        y, pred, sensitive_features=sex, sample_weight=w, threshold=45.0, **FAST
    )
    table = report.groups.set_index("group")
    for g in ("F", "M"):
        rows = (sex == g).to_numpy()
        assert table.loc[g, "n_selected"] == pytest.approx(
            (w[rows] * (pred[rows] >= 45)).sum()
        )
        assert table.loc[g, "positive_rate"] == pytest.approx(
            np.average(pred[rows] >= 45, weights=w[rows])
        )
    lead = report.to_dict()["headline"]["text"][0]
    assert "weighted n = " in lead


def test_gap_without_interval_names_the_small_effective_size():
    """A group of 40 rows whose weights rest on two rows: n_eff under 10, so
    the gaps have no interval, and the note gives its Kish size."""
    y, pred, _, w = regression_sample(6, n=400)
    groups = np.repeat(["a", "b", "c"], [200, 160, 40])
    w = w.copy()
    w[groups == "c"] = 0.5
    w[np.flatnonzero(groups == "c")[:2]] = 80.0
    report = audit(y, pred, sensitive_features=groups, sample_weight=w, **FAST)
    gap = report.metrics.loc["mean_residual_gap"]
    assert np.isnan(gap["low"]) and np.isnan(gap["high"])
    c = w[groups == "c"]
    n_eff = c.sum() ** 2 / (c * c).sum()
    assert (
        f"group 'c' has a Kish effective size of {n_eff:.1f}"
        in (gap["inference_error"])
    )


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_summary_names_effective_samples_when_small_groups_are_left_out():
    """With survey weights the groups left out of the summary's ranges are
    those under 30 *effective* samples: the sentence says so."""
    rng = np.random.default_rng(0)
    n = 3000
    g = rng.choice(["a", "b", "c", "tiny"], n, p=[0.5, 0.3, 0.198, 0.002])
    y = rng.normal(40, 10, n)
    pred = y + rng.normal(0, 5, n) + (g == "a") * 1.5
    w = rng.uniform(0.5, 3, n)
    kw = {"task": "regression", "n_resamples": 19, "n_permutations": 19}
    summary = " ".join(
        audit(
            y, pred, sensitive_features=g, sample_weight=w, random_state=0, **kw
        ).to_dict()["plain_summary"]
    )
    assert "(among the groups of at least 30 effective samples (Kish))" in summary
    plain = " ".join(
        audit(y, pred, sensitive_features=g, random_state=0, **kw).to_dict()[
            "plain_summary"
        ]
    )
    assert "(among the groups of at least 30 samples)" in plain


def test_small_pair_sentence_gives_the_kish_size_not_people():
    """A group of 50 rows carried by two rows (n_eff about 2): when MCDP(0)'s
    worst pair involves it, the headline gives its Kish effective size, not
    that many "people", and the rule's groups are of effective samples."""
    rng = np.random.default_rng(3)
    groups = np.repeat(["a", "b", "c"], [300, 250, 50])
    y = rng.normal(40, 10, groups.size)
    pred = y + rng.normal(0, 5, groups.size)
    w = rng.uniform(1, 2, groups.size)
    w[groups == "c"] = 0.5
    w[np.flatnonzero(groups == "c")[:2]] = 60.0
    c = w[groups == "c"]
    n_eff = int(c.sum() ** 2 / (c * c).sum())
    report = audit(
        y, pred, sensitive_features=groups, sample_weight=w, task="regression", **FAST
    )
    assert "c" in report.headline.distribution.groups
    headline = " ".join(report.to_dict()["headline"]["text"])
    assert f"c, a group of Kish effective size {n_eff}," in headline
    assert f"a group of {n_eff} people" not in headline
    assert "between groups of 30 or more effective samples (Kish)" in headline
    methods = " ".join(report.to_dict()["methods"])
    assert "the groups of at least 30 effective samples (Kish) when" in methods
