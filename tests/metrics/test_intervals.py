"""The default interval methods (Welch, Newcombe, bands) and the closed-form tests."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit

from skfair.metrics import (
    abcc,
    delta_dp,
    disparity_test,
    mcdp,
    metric_confidence_interval,
)
from skfair.metrics._confidence import (
    CLOSED_FORM_METRIC_ERROR,
    METRIC_PARAMS_KEY_ERROR,
)
from skfair.metrics._disparity_test import (
    CLOSED_FORM_TEST_ERROR,
    ONE_SAMPLE_FIX,
    ONE_SAMPLE_GROUP_ERROR,
    ONE_SAMPLE_MARGINAL_FIX,
)
from skfair.metrics.inference import (
    _bands,
    fold_abs,
    infer_metrics,
    metric_spec,
    min_band_resamples,
    newcombe_interval,
    shared_sort,
    welch_interval,
    wilson_interval,
)
from skfair.metrics.inference._bands import BandData, critical_value
from skfair.metrics.inference._intervals import summarise_groups
from skfair.metrics.inference._specs import TOO_FEW_RESAMPLES_ERROR
from skfair.utils import SmallGroupWarning

Z95 = stats.norm.isf(0.025)


# -- closed forms ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("counts", "expected"),
    [  # Newcombe (1998), Table II, method 10
        ((56, 70, 48, 80), (0.0524, 0.3339)),
        ((9, 10, 3, 10), (0.1705, 0.8090)),
        ((6, 7, 2, 7), (0.0582, 0.8062)),
        ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ],
)
def test_newcombe_matches_the_published_examples(counts, expected):
    k_a, n_a, k_b, n_b = counts
    low, high = newcombe_interval(k_a / n_a, n_a, k_b / n_b, n_b, Z95)
    assert (round(float(low), 4), round(float(high), 4)) == expected


def test_wilson_interval_closed_form():
    rate, n = 0.2, 50
    low, high = wilson_interval(rate, n, Z95)
    # the Wilson bounds solve |p - rate| = z sqrt(p (1 - p) / n)
    for p in (low, high):
        assert abs(p - rate) == pytest.approx(Z95 * np.sqrt(p * (1 - p) / n))
    assert wilson_interval(0.0, 10, Z95)[0] == 0.0


@pytest.mark.parametrize(
    ("low", "high", "folded"),
    [
        (0.1, 0.3, (0.1, 0.3)),
        (-0.3, -0.1, (0.1, 0.3)),
        (-0.1, 0.3, (0.0, 0.3)),
        (-0.4, 0.2, (0.0, 0.4)),
        (0.0, 0.0, (0.0, 0.0)),
    ],
)
def test_fold_abs(low, high, folded):
    assert tuple(map(float, fold_abs(low, high))) == pytest.approx(folded)


def test_welch_interval_is_scipys():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.5, 0.1, 40), rng.normal(0.4, 0.3, 70)
    x = np.r_[a, b]
    s = summarise_groups(x, np.repeat([0, 1], [40, 70]), None, 2)
    low, high = welch_interval(
        s.mean[0], s.se2[0], s.n[0] - 1, s.mean[1], s.se2[1], s.n[1] - 1, 0.05
    )
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert (low, high) == pytest.approx((ref.low, ref.high), rel=1e-10)


def test_two_group_defaults_are_welch_and_newcombe_folded():
    rng = np.random.default_rng(1)
    y = np.r_[rng.beta(2, 5, 80), rng.beta(3, 4, 90)]
    g = np.repeat([0, 1], [80, 90])
    welch = metric_confidence_interval(None, y, sensitive_features=g, metric="delta_dp")
    a, b = y[g == 0], y[g == 1]
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert welch.method == "welch"
    assert (welch.low, welch.high) == pytest.approx((-ref.high, -ref.low), rel=1e-10)
    newcombe = metric_confidence_interval(
        None,
        y,
        sensitive_features=g,
        metric="delta_dp",
        metric_params={"threshold": 0.3},
    )
    k_a, k_b = (a >= 0.3).sum(), (b >= 0.3).sum()
    low, high = fold_abs(*newcombe_interval(k_a / 80, 80, k_b / 90, 90, Z95))
    assert newcombe.method == "newcombe"
    assert (newcombe.low, newcombe.high) == pytest.approx((float(low), float(high)))


def test_several_groups_are_bonferroni_over_pairs():
    rng = np.random.default_rng(2)
    y = rng.beta(2, 5, 240)
    g = np.repeat([0, 1, 2], 80)
    ci = metric_confidence_interval(
        None, y, sensitive_features=g, metric="delta_dp", metric_params={"agg": "mean"}
    )
    s = summarise_groups(y, g, None, 3)
    lows, highs = [], []
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        lo, hi = welch_interval(
            s.mean[a], s.se2[a], s.n[a] - 1, s.mean[b], s.se2[b], s.n[b] - 1, 0.05 / 3
        )
        lo, hi = fold_abs(lo, hi)
        lows.append(lo)
        highs.append(hi)
    assert ci.high == pytest.approx(np.mean(highs))
    assert ci.low <= np.mean(lows) + 1e-15  # or 0 when the test does not reject


def test_equal_weights_change_nothing_and_weights_use_kish():
    rng = np.random.default_rng(3)
    y, g = rng.beta(2, 5, 200), np.repeat([0, 1], 100)
    for params in ({}, {"threshold": 0.3}):
        plain = metric_confidence_interval(
            None, y, sensitive_features=g, metric="delta_dp", metric_params=params
        )
        weighted = metric_confidence_interval(
            None,
            y,
            sensitive_features=g,
            metric="delta_dp",
            metric_params=params,
            sample_weight=np.full(200, 3.0),
        )
        # no closed-form test with weights, so the lower bound is not zeroed
        assert weighted.high == pytest.approx(plain.high)
    w = np.r_[np.ones(50), np.full(50, 3.0), np.ones(100)]
    s = summarise_groups(y, g, w, 2)
    assert s.n_eff[0] == pytest.approx(200**2 / (50 + 450))
    assert s.n_eff[1] == 100


def test_closed_form_method_errors():
    y, g = np.linspace(0, 1, 60), np.repeat([0, 1], 30)
    with pytest.raises(ValueError) as info:
        metric_confidence_interval(None, y, sensitive_features=g, method="welch")
    assert str(info.value) == CLOSED_FORM_METRIC_ERROR.format(
        method="welch", metric="mcdp", options={}
    )
    with pytest.raises(ValueError, match="method='newcombe'"):
        metric_confidence_interval(
            None, y, sensitive_features=g, metric="delta_dp", method="newcombe"
        )


# -- bands -----------------------------------------------------------------------
def _ecdf(x, t):
    return np.searchsorted(np.sort(x), t, side="right") / x.shape[0]


@pytest.mark.parametrize("n_groups", [2, 3])
def test_band_maxima_against_brute_force(n_groups, monkeypatch):
    """sup and L1 norms of the centred resampled CDF gaps, pair by pair."""
    rng = np.random.default_rng(4)
    sizes = [7, 5, 6][:n_groups]
    y = np.round(rng.random(sum(sizes)), 1)  # ties
    g = np.repeat(np.arange(n_groups), sizes)
    specs = [metric_spec("mcdp", {}), metric_spec("abcc", {})]
    _, resampler = shared_sort((None, y, g, None, "intersection"), specs, 1)
    band = BandData(resampler, ["sup", "l1"])
    idx = [
        rng.choice(np.flatnonzero(g == k), (3, n), replace=True)
        for k, n in enumerate(sizes)
    ]
    order = np.argsort(y, kind="stable")
    w_rows = np.zeros((3, y.size))
    for r in range(3):
        rows = np.concatenate([i[r] for i in idx])
        np.add.at(w_rows[r], resampler.rank[rows], 1.0)
    assert np.array_equal(np.sort(order), np.arange(y.size))
    got = band.studentised_maxima(w_rows)
    t = np.unique(y)
    for r in range(3):
        rows = np.concatenate([i[r] for i in idx])
        sup, l1 = [], []
        for a in range(n_groups):
            for b in range(a + 1, n_groups):
                gap = _ecdf(y[g == a], t) - _ecdf(y[g == b], t)
                boot = _ecdf(y[rows][g[rows] == a], t) - _ecdf(y[rows][g[rows] == b], t)
                d = np.abs(boot - gap)
                s = np.sqrt(1 / sizes[a] + 1 / sizes[b])
                sup.append(d.max() / s)
                l1.append(d[:-1] @ np.diff(t) / s)
        assert got[0, r] == pytest.approx(max(sup))
        assert got[1, r] == pytest.approx(max(l1))
    # the per-group fallback bounds every pair by the triangle inequality
    monkeypatch.setattr(_bands, "PAIR_BAND_CELLS", 0)
    group = BandData(resampler, ["sup"])
    assert not group.pair_mode("sup")
    pair_half = band.pair_halfwidths("sup", 1.0)
    group_half = group.pair_halfwidths("sup", 1.0)
    assert all((gh >= ph).all() for gh, ph in zip(group_half, pair_half))


def test_critical_value_is_the_b_plus_one_order_statistic():
    values = np.arange(1.0, 200.0)  # 199 resamples
    assert critical_value(values, 0.95) == 190.0
    assert critical_value(values, 0.90) == 180.0
    assert np.isnan(critical_value([np.nan], 0.95))


def test_band_interval_is_estimate_plus_minus_the_critical_value():
    rng = np.random.default_rng(5)
    y, g = np.r_[rng.beta(2, 5, 150), rng.beta(3, 4, 150)], np.repeat([0, 1], 150)
    for metric, function in (("mcdp", mcdp), ("abcc", abcc)):
        ci = metric_confidence_interval(
            None,
            y,
            sensitive_features=g,
            metric=metric,
            n_resamples=99,
            random_state=0,
        )
        value = function(None, y, sensitive_features=g)
        assert ci.method == "band" and ci.n_resamples == 99
        assert ci.estimate - ci.low == pytest.approx(ci.high - ci.estimate)
        assert ci.low > 0 and ci.estimate == value


def test_band_with_weights_and_marginal_attributes():
    rng = np.random.default_rng(6)
    n = 300
    y = rng.beta(2, 5, n)
    sensitive = np.c_[rng.integers(0, 2, n), rng.integers(0, 3, n)]
    w = rng.uniform(0.5, 2.0, n)
    for metric in ("mcdp", "abcc", "abpc", "delta_dp"):
        ci = metric_confidence_interval(
            None,
            y,
            sensitive_features=sensitive,
            metric=metric,
            n_resamples=49,
            random_state=0,
            sample_weight=w,
            combine="marginal",
        )
        assert 0 <= ci.low <= ci.estimate <= ci.high


def test_mcdp_zero_when_the_exact_ks_test_does_not_reject():
    rng = np.random.default_rng(7)
    y, g = rng.random(200), np.repeat([0, 1], 100)
    p = disparity_test(None, y, sensitive_features=g).pvalue
    assert p > 0.05
    ci = metric_confidence_interval(
        None, y, sensitive_features=g, n_resamples=49, random_state=0
    )
    assert ci.low == 0.0


# -- tests -----------------------------------------------------------------------
def test_closed_form_tests_are_scipys():
    rng = np.random.default_rng(8)
    parts = [rng.beta(2, 5, 60), rng.beta(2.5, 5, 70), rng.beta(2, 4, 50)]
    y, g = np.concatenate(parts), np.repeat([0, 1, 2], [60, 70, 50])
    two = g < 2
    res = disparity_test(None, y[two], sensitive_features=g[two], metric="delta_dp")
    ref = stats.ttest_ind(parts[0], parts[1], equal_var=False).pvalue
    assert (res.method, res.pvalue_floor) == ("welch", None)
    assert res.pvalue == pytest.approx(ref, rel=1e-10)
    res = disparity_test(None, y, sensitive_features=g, metric="delta_dp")
    assert res.method == "alexander-govern"
    assert res.pvalue == pytest.approx(stats.alexandergovern(*parts).pvalue, rel=1e-8)
    res = disparity_test(
        None,
        y,
        sensitive_features=g,
        metric="delta_dp",
        metric_params={"threshold": 0.3},
    )
    table = [[(p >= 0.3).sum(), (p < 0.3).sum()] for p in parts]
    ref = stats.chi2_contingency(table, correction=False).pvalue
    assert res.method == "chi2" and res.pvalue == pytest.approx(ref, rel=1e-10)
    assert delta_dp(None, y, sensitive_features=g, threshold=0.3) == res.statistic


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_fisher_for_small_tables_and_test_errors():
    y = np.r_[np.full(9, 0.9), [0.1], np.full(3, 0.9), np.full(7, 0.1)]
    g = np.repeat([0, 1], 10)
    res = disparity_test(
        None,
        y,
        sensitive_features=g,
        metric="delta_dp",
        metric_params={"threshold": 0.5},
        method="chi2",
    )
    ref = stats.fisher_exact([[9, 1], [3, 7]]).pvalue
    assert res.method == "fisher" and res.pvalue == pytest.approx(ref)
    with pytest.raises(ValueError) as info:
        disparity_test(None, y, sensitive_features=g, metric="abcc", method="welch")
    assert str(info.value) == CLOSED_FORM_TEST_ERROR.format(
        method="welch",
        what="means",
        options="no threshold",
        metric="abcc",
        problem={},
    )


def test_permutation_result_has_its_resolution_floor():
    rng = np.random.default_rng(9)
    y, g = rng.random(80), np.repeat([0, 1], 40)
    res = disparity_test(
        None, y, sensitive_features=g, metric="abcc", n_resamples=199, random_state=0
    )
    assert res.method == "permutation" and res.pvalue_floor == 1 / 200


def test_infer_metrics_rows():
    rng = np.random.default_rng(10)
    y, g = np.r_[rng.beta(2, 5, 150), rng.beta(3, 4, 150)], np.repeat([0, 1], 150)
    specs = [
        metric_spec("delta_dp"),
        metric_spec("delta_dp", {"threshold": 0.5}),
        metric_spec("abcc"),
        metric_spec("mcdp"),
        metric_spec("mcdp", {"epsilon": 0.05}),
    ]
    common = {
        "combine": "intersection",
        "confidence_level": 0.95,
        "n_resamples": 49,
        "n_permutations": 99,
        "random_state": 0,
        "min_group_size": 1,
    }
    rows = infer_metrics(y, g, specs, **common)
    keys = {
        "value",
        "low",
        "high",
        "interval",
        "dkw_low",
        "dkw_high",
        "pvalue",
        "pvalue_floor",
        "test",
    }
    assert all(set(row) == keys for row in rows)
    assert [r["interval"] for r in rows] == [
        "welch",
        "newcombe",
        "band",
        "band",
        "band",
    ]
    assert [r["test"] for r in rows] == [
        "welch",
        "chi2",
        "permutation",
        "ks",
        "permutation",
    ]
    assert rows[2]["pvalue_floor"] == 1 / 100 and np.isnan(rows[3]["pvalue_floor"])
    for row in rows:
        assert row["low"] <= row["value"] <= row["high"]
        if row["pvalue"] > 0.05:
            assert row["low"] == 0.0
    ci = metric_confidence_interval(None, y, sensitive_features=g, metric="delta_dp")
    assert (rows[0]["low"], rows[0]["high"]) == pytest.approx((ci.low, ci.high))


# -- review fixes ------------------------------------------------------------------
def test_mean_and_area_intervals_are_not_clipped_at_one_for_wide_scores():
    """ΔDP_c and ABCC grow with the scores' range (logits): no clip at 1."""
    rng = np.random.default_rng(11)
    a, b = rng.normal(0.0, 2.0, 100), rng.normal(3.0, 2.0, 100)
    y, g = np.r_[a, b], np.repeat([0, 1], 100)
    welch = metric_confidence_interval(None, y, sensitive_features=g, metric="delta_dp")
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert welch.estimate > 1
    assert (welch.low, welch.high) == pytest.approx((-ref.high, -ref.low), rel=1e-10)
    for metric, method in (("abcc", "auto"), ("delta_dp", "bootstrap")):
        ci = metric_confidence_interval(
            None,
            y,
            sensitive_features=g,
            metric=metric,
            method=method,
            n_resamples=99,
            random_state=0,
        )
        assert 1 < ci.low < ci.estimate < ci.high
    rows = infer_metrics(
        y,
        g,
        [metric_spec("abcc"), metric_spec("mcdp")],
        combine="intersection",
        confidence_level=0.95,
        n_resamples=49,
        n_permutations=49,
        random_state=0,
        min_group_size=1,
    )
    assert rows[0]["low"] < rows[0]["value"] < rows[0]["high"]
    # DKW integrates the CDF gap over [0, 1]: no bound for ABCC off [0, 1]
    assert np.isnan(rows[0]["dkw_low"]) and rows[1]["dkw_low"] <= rows[1]["value"]


def test_exact_permutation_test_reports_its_partitions():
    """Two groups of 5 have 252 partitions: scipy enumerates them all."""
    y, g = np.r_[np.linspace(0, 0.4, 5), np.linspace(0.6, 1, 5)], np.repeat([0, 1], 5)
    with pytest.warns(SmallGroupWarning):
        res = disparity_test(
            None, y, sensitive_features=g, metric="abcc", n_resamples=9999
        )
    assert (res.method, res.n_resamples, res.pvalue_floor) == (
        "permutation",
        252,
        1 / 252,
    )
    # exact: the observed partition and its mirror image are the most extreme
    assert res.pvalue == pytest.approx(2 / 252) and res.pvalue >= res.pvalue_floor
    rows = infer_metrics(
        y,
        g,
        [metric_spec("abcc")],
        combine="intersection",
        confidence_level=0.95,
        n_resamples=49,
        n_permutations=9999,
        random_state=0,
        min_group_size=1,
    )
    assert rows[0]["pvalue_floor"] == 1 / 252
    res = disparity_test(
        None,
        y,
        sensitive_features=g,
        metric="abcc",
        n_resamples=251,
        random_state=0,
        min_group_size=1,
    )
    assert (res.n_resamples, res.pvalue_floor) == (251, 1 / 252)


@pytest.mark.parametrize("metric", ["mcdp", "abcc"])
def test_band_of_a_one_sample_group_is_uninformative(metric):
    """Resampling one sample gives that sample: the band cannot bound its pair."""
    rng = np.random.default_rng(12)
    y, g = rng.random(201), np.repeat([0, 1], [1, 200])
    ci = metric_confidence_interval(
        None,
        y,
        sensitive_features=g,
        metric=metric,
        n_resamples=49,
        random_state=0,
        min_group_size=1,
    )
    assert (ci.method, ci.low, ci.high) == ("band", 0.0, 1.0)


def test_band_mean_over_pairs_clips_each_pair_at_zero():
    """agg='mean': a pair's lower bound below 0 counts as 0 (pair values are >= 0)."""
    rng = np.random.default_rng(13)
    parts = [rng.beta(2, 5, 150), rng.beta(2, 5, 150), rng.beta(5, 2, 150)]
    y, g = np.concatenate(parts), np.repeat([0, 1, 2], 150)
    common = {"metric": "abcc", "n_resamples": 99, "random_state": 0}
    worst = metric_confidence_interval(None, y, sensitive_features=g, **common)
    mean = metric_confidence_interval(
        None, y, sensitive_features=g, metric_params={"agg": "mean"}, **common
    )
    pairs = [(0, 1), (0, 2), (1, 2)]
    values = [
        abcc(None, np.r_[parts[a], parts[b]], sensitive_features=np.repeat([a, b], 150))
        for a, b in pairs
    ]
    half = max(values) - worst.low  # equal sizes: one half-width for every pair
    assert values[0] < half < min(values[1:])
    assert mean.low == pytest.approx(np.mean(np.maximum(np.subtract(values, half), 0)))


def test_hard_predictions_get_newcombe_for_the_mean_gap():
    # ΔDP_c of 0/1 predictions is a difference of proportions: a group whose
    # predictions are all 1 has zero variance, and Welch's interval would be
    # the single point [1, 1]; Newcombe's is the one at the threshold 0.5
    y = np.r_[np.ones(50), np.zeros(50)]
    groups = np.repeat([0, 1], 50)
    mean_gap = metric_confidence_interval(
        None, y, sensitive_features=groups, metric="delta_dp"
    )
    at_half = metric_confidence_interval(
        None,
        y,
        sensitive_features=groups,
        metric="delta_dp",
        metric_params={"threshold": 0.5},
    )
    assert mean_gap.method == "newcombe"
    assert mean_gap.low < 1.0 and mean_gap.high == 1.0
    assert (mean_gap.low, mean_gap.high) == pytest.approx((at_half.low, at_half.high))
    # and the audit's table says the same
    row = infer_metrics(
        y,
        groups,
        [metric_spec("delta_dp")],
        combine="intersection",
        confidence_level=0.95,
        n_resamples=9,
        n_permutations=9,
        random_state=0,
        min_group_size=1,
    )[0]
    assert row["interval"] == "newcombe" and row["low"] == pytest.approx(mean_gap.low)
    # tested as a gap in proportions (Welch's t-test needs spread in a group)
    assert row["test"] in ("chi2", "fisher") and row["pvalue"] < 1e-10
    # soft scores keep Welch's interval
    soft = metric_confidence_interval(
        None,
        np.clip(y + 0.01 * np.arange(100) / 100, 0, 1),
        sensitive_features=groups,
        metric="delta_dp",
    )
    assert soft.method == "welch"


# -- unusual inputs ---------------------------------------------------------------
@pytest.mark.parametrize("metric", ["mcdp", "abcc", "delta_dp"])
def test_a_permuted_group_of_one_sample_is_named(metric):
    # scipy said "each sample in `data` must contain two or more observations"
    rng = np.random.default_rng(14)
    y, g = rng.random(61), np.repeat(["a", "b", "c"], [30, 30, 1])
    options = {"sensitive_features": g, "metric": metric, "n_resamples": 99}
    with pytest.raises(ValueError) as info:
        disparity_test(None, y, min_group_size=1, **options)
    assert str(info.value) == ONE_SAMPLE_GROUP_ERROR.format(
        label="c", where="sensitive_features", metric=metric, fix=ONE_SAMPLE_FIX
    )
    # the way out the message names
    res = disparity_test(None, y, min_group_size=2, random_state=0, **options)
    assert 0.0 < res.pvalue <= 1.0


def test_a_one_sample_intersection_under_marginal_names_the_way_out():
    rng = np.random.default_rng(15)
    sex = np.r_[np.tile(["f", "m"], 30), ["f", "m"]]
    race = np.r_[np.repeat(["x", "y"], 30), ["z", "z"]]
    frame = pd.DataFrame({"sex": sex, "race": race})
    y = rng.random(62)
    with pytest.raises(ValueError) as info:
        disparity_test(
            None,
            y,
            sensitive_features=frame,
            metric="abcc",
            combine="marginal",
            n_resamples=99,
            min_group_size=1,
        )
    assert str(info.value) == ONE_SAMPLE_GROUP_ERROR.format(
        label=("f", "z"),
        where="sensitive_features ('sex & race')",
        metric="abcc",
        fix=ONE_SAMPLE_MARGINAL_FIX,
    )


@pytest.mark.parametrize("test", [metric_confidence_interval, disparity_test])
@pytest.mark.parametrize(
    ("metric", "params", "bad", "valid"),
    [
        (
            "mcdp",
            {"foo": 1},
            ["foo"],
            [
                "epsilon",
                "method",
                "sampling_frequency",
                "rounding",
                "agg",
                "domain",
                "class_agg",
                "classes",
                "given",
                "pos_label",
            ],
        ),
        (
            "delta_dp",
            {"agg": "max", "epsilon": 0.1},
            ["epsilon"],
            ["threshold", "agg", "class_agg", "classes", "given", "pos_label"],
        ),
        (
            "abcc",
            {"min_group_size": 5},
            ["min_group_size"],
            ["method", "n_points", "agg", "class_agg", "classes", "given", "pos_label"],
        ),
    ],
)
def test_an_unknown_metric_params_key_is_named(test, metric, params, bad, valid):
    # the metric's signature binding raised a TypeError naming only "foo"
    y, g = np.linspace(0, 1, 60), np.repeat([0, 1], 30)
    with pytest.raises(ValueError) as info:
        test(None, y, sensitive_features=g, metric=metric, metric_params=params)
    assert str(info.value) == METRIC_PARAMS_KEY_ERROR.format(
        keys=bad, metric=metric, valid=valid
    )


@pytest.mark.parametrize(
    ("level", "minimum"), [(0.95, 19), (0.9, 9), (0.99, 99), (0.8, 4)]
)
def test_band_needs_enough_resamples_for_its_quantile(level, minimum):
    # with fewer, the quantile index was clamped to the largest value and the
    # interval still claimed `level` (it covered 64% at B = 1 for 95%)
    assert min_band_resamples(level) == minimum
    # the rank ceil((B + 1) level) <= B holds at the minimum, not below it
    assert int(np.ceil((minimum + 1) * level)) <= minimum
    assert int(np.ceil(minimum * level)) > minimum - 1
    rng = np.random.default_rng(16)
    y, g = rng.random(100), np.repeat([0, 1], 50)
    options = {"sensitive_features": g, "confidence_level": level, "random_state": 0}
    ci = metric_confidence_interval(None, y, n_resamples=minimum, **options)
    assert ci.method == "band" and ci.n_resamples == minimum
    with pytest.raises(ValueError) as info:
        metric_confidence_interval(None, y, n_resamples=minimum - 1, **options)
    assert str(info.value) == TOO_FEW_RESAMPLES_ERROR.format(
        value=minimum - 1, level=level, minimum=minimum
    )
    # the other methods are not held to it
    ci = metric_confidence_interval(
        None, y, metric="delta_dp", n_resamples=1, **options
    )
    assert ci.method == "welch"


# -- score_type: logits and margins ---------------------------------------------
def _raw_scores():
    rng = np.random.default_rng(11)
    logits = np.r_[rng.normal(-0.3, 1.0, 150), rng.normal(0.5, 1.4, 150)]
    return logits, np.repeat([0, 1], 150)


@pytest.mark.parametrize(
    ("metric", "params"),
    [("mcdp", {"epsilon": 0.05}), ("abcc", None), ("abpc", None), ("delta_dp", None)],
)
def test_logit_scores_give_the_interval_and_test_of_the_probabilities(metric, params):
    logits, groups = _raw_scores()
    common = {"sensitive_features": groups, "metric": metric, "metric_params": params}
    raw = metric_confidence_interval(
        None, logits, **common, n_resamples=99, random_state=0, score_type="logit"
    )
    prob = metric_confidence_interval(
        None, expit(logits), **common, n_resamples=99, random_state=0
    )
    assert raw == prob
    raw = disparity_test(
        None, logits, **common, n_resamples=99, random_state=0, score_type="logit"
    )
    assert raw == disparity_test(
        None, expit(logits), **common, n_resamples=99, random_state=0
    )


def test_logit_threshold_is_in_logit_units():
    logits, groups = _raw_scores()
    raw = metric_confidence_interval(
        None,
        logits,
        sensitive_features=groups,
        metric="delta_dp",
        metric_params={"threshold": 0.4},
        score_type="logit",
    )
    by_hand = delta_dp(None, logits, sensitive_features=groups, threshold=0.4)
    assert raw.estimate == pytest.approx(by_hand)
    assert raw.method == "newcombe"


def test_margins_keep_their_scale_and_refuse_unit_interval_metrics():
    logits, groups = _raw_scores()
    margins = 4.0 * logits
    ci = metric_confidence_interval(
        None, margins, sensitive_features=groups, metric="abcc", score_type="margin"
    )
    assert ci.estimate == pytest.approx(abcc(None, margins, sensitive_features=groups))
    assert ci.estimate > 1.0 and ci.high > ci.estimate
    ks = disparity_test(None, margins, sensitive_features=groups, score_type="margin")
    assert ks.method == "ks"
    assert ks == disparity_test(None, expit(margins), sensitive_features=groups)
    for metric, params, method in [
        ("abpc", None, "auto"),
        ("mcdp", {"epsilon": 0.05}, "auto"),
        ("abcc", None, "dkw"),
    ]:
        with pytest.raises(ValueError, match="not applicable to score_type='margin'"):
            metric_confidence_interval(
                None,
                expit(margins),  # in [0, 1], yet still margins: refused
                sensitive_features=groups,
                metric=metric,
                metric_params=params,
                method=method,
                score_type="margin",
            )
    with pytest.raises(ValueError, match="not applicable to score_type='margin'"):
        disparity_test(
            None, margins, sensitive_features=groups, metric="abpc", score_type="margin"
        )


def test_out_of_range_probabilities_name_score_type():
    logits, groups = _raw_scores()
    with pytest.raises(ValueError, match="pass score_type='logit' or 'margin'"):
        metric_confidence_interval(
            None, logits, sensitive_features=groups, metric="abpc"
        )
    with pytest.raises(ValueError, match="pass score_type='logit' or 'margin'"):
        disparity_test(
            None,
            logits,
            sensitive_features=groups,
            metric="mcdp",
            metric_params={"epsilon": 0.1},
        )
    with pytest.raises(ValueError, match="score_type must be"):
        disparity_test(None, logits, sensitive_features=groups, score_type="raw")


@pytest.mark.parametrize("metric", ["abcc", "mcdp", "delta_dp"])
def test_huge_weights_give_the_unit_weight_interval(metric):
    # weights of 1e308 made the resampled sums infinite: NaN bounds, silently
    rng = np.random.default_rng(0)
    scores, groups = rng.random(400), rng.integers(0, 2, 400)
    common = {"sensitive_features": groups, "metric": metric, "n_resamples": 99}
    huge = metric_confidence_interval(
        None, scores, sample_weight=np.full(400, 1e308), random_state=0, **common
    )
    unit = metric_confidence_interval(
        None, scores, sample_weight=np.ones(400), random_state=0, **common
    )
    assert np.isfinite([huge.low, huge.high]).all()
    np.testing.assert_allclose([huge.low, huge.high], [unit.low, unit.high], rtol=1e-9)


@pytest.mark.parametrize(
    ("metric", "params"), [("mcdp", None), ("delta_dp", {"threshold": 42.0})]
)
def test_logits_the_sigmoid_rounds_to_one_stay_apart(metric, params):
    # expit(40) == expit(45) == 1.0 in floating point: mapped, the two groups'
    # logits tied and their KS gap (and the rate gap at 42) vanished
    rng = np.random.default_rng(3)
    logits = np.r_[np.full(60, 40.0), np.full(60, 45.0), rng.normal(size=120)]
    groups = np.r_[np.zeros(60, int), np.ones(60, int), rng.integers(0, 2, 120)]
    assert expit(40.0) == expit(45.0) == 1.0
    common = {"sensitive_features": groups, "metric": metric, "metric_params": params}
    on_logits = (mcdp if metric == "mcdp" else delta_dp)(
        None, logits, sensitive_features=groups, **(params or {})
    )
    ci = metric_confidence_interval(
        None, logits, **common, n_resamples=99, random_state=0, score_type="logit"
    )
    assert ci.estimate == on_logits
    assert ci == metric_confidence_interval(
        None, logits, **common, n_resamples=99, random_state=0, score_type="margin"
    )
    test = disparity_test(
        None, logits, **common, n_resamples=99, random_state=0, score_type="logit"
    )
    assert test.statistic == on_logits > 0.4
