"""ΔDP, ABCC and ABPC against definitions, closed forms and the papers."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    demographic_parity_gap,
    equal_opportunity_gap,
    hfm,
    mcdp,
    mcdp_curve,
    metric_confidence_interval,
    predictive_quality_parity_gap,
)
from skfair.metrics._base import GRID_TOO_LARGE_ERROR, MAX_GRID_POINTS
from skfair.metrics._kernels import (
    DEGENERATE_GROUP_ERROR,
    binned_kde,
    compact_plans,
    direct_kde,
    kde_bandwidth,
    kde_grid,
    kde_plan,
    kde_rows,
    resampled_kde_rows,
)
from skfair.utils import SmallGroupWarning

# Most cases compare a handful of samples on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")

Y0, Y1 = [0.1, 0.2, 0.3, 0.4, 0.5], [0.12, 0.33, 0.35, 0.6, 0.9]
S = [0] * 5 + [1] * 5

grid_scores = st.lists(
    st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 0.9, 1.0]),
    min_size=1,
    max_size=10,
)
free_scores = st.lists(
    st.floats(0, 1, allow_nan=False, allow_subnormal=False), min_size=1, max_size=10
)
scores = st.one_of(grid_scores, free_scores)


def brute_abcc(y0, y1):
    """∫|F0 - F1| exactly: the step functions integrated between breakpoints."""
    points = sorted({Fraction(v) for v in [*y0, *y1]})
    total = Fraction(0)
    for left, right in zip(points, points[1:]):
        f0 = Fraction(sum(Fraction(v) <= left for v in y0), len(y0))
        f1 = Fraction(sum(Fraction(v) <= left for v in y1), len(y1))
        total += abs(f0 - f1) * (right - left)
    return total


def split(y0, y1):
    y = np.r_[y0, y1].astype(float)
    s = np.r_[np.zeros(len(y0), int), np.ones(len(y1), int)]
    return y, s


def test_worked_values():
    assert abcc(None, Y0 + Y1, sensitive_features=S) == pytest.approx(0.16)
    assert delta_dp(None, Y0 + Y1, sensitive_features=S) == pytest.approx(0.16)
    # decisions y_score >= t; the reference code's ">" gives 0.4 here
    assert delta_dp(None, Y0 + Y1, sensitive_features=S, threshold=0.5) == 0.2
    y, s = [0.2, 0.4, 0.6, 0.3, 0.5, 0.7], [0, 0, 0, 1, 1, 1]
    assert abcc(None, y, sensitive_features=s) == pytest.approx(0.1)
    assert abpc(None, y, sensitive_features=s) == pytest.approx(0.2814, abs=5e-5)


@settings(max_examples=200, deadline=None)
@given(y0=scores, y1=scores)
def test_abcc_matches_definition_and_wasserstein(y0, y1):
    y, s = split(y0, y1)
    value = abcc(None, y, sensitive_features=s)
    assert value == pytest.approx(float(brute_abcc(y0, y1)), abs=1e-12)
    assert value == pytest.approx(stats.wasserstein_distance(y0, y1), abs=1e-12)
    assert 0 <= value <= 1


@settings(max_examples=100, deadline=None)
@given(
    y0=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30),
    y1=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30),
)
def test_abcc_is_wasserstein_on_any_reals(y0, y1):
    y, s = split(y0, y1)
    assert abcc(None, y, sensitive_features=s) == pytest.approx(
        stats.wasserstein_distance(y0, y1), rel=1e-9, abs=1e-9
    )


def paper_abcc(y_pred, z, sample_n=10000):
    """The ABCC paper's Algorithm 2 (ECDFs on a linspace, trapezoid rule)."""
    x = np.linspace(0, 1, sample_n)

    def ecdf(v):
        return np.searchsorted(np.sort(v), x, side="right") / len(v)

    return np.trapezoid(np.abs(ecdf(y_pred[z == 0]) - ecdf(y_pred[z == 1])), x)


@settings(max_examples=50, deadline=None)
@given(y0=scores, y1=scores)
def test_abcc_grid_reproduces_paper(y0, y1):
    y, s = split(y0, y1)
    grid = abcc(None, y, sensitive_features=s, method="grid")
    assert grid == pytest.approx(paper_abcc(y, s), abs=1e-12)
    # the grid rule converges to the exact area
    assert grid == pytest.approx(abcc(None, y, sensitive_features=s), abs=2e-4)


@settings(max_examples=100, deadline=None)
@given(y0=scores, y1=scores, t=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]))
def test_delta_dp_definitions(y0, y1, t):
    y, s = split(y0, y1)
    assert delta_dp(None, y, sensitive_features=s) == pytest.approx(
        abs(np.mean(y0) - np.mean(y1)), abs=1e-12
    )
    rate0 = np.mean(np.asarray(y0) >= t)
    rate1 = np.mean(np.asarray(y1) >= t)
    assert delta_dp(None, y, sensitive_features=s, threshold=t) == pytest.approx(
        abs(rate0 - rate1)
    )


@settings(max_examples=50, deadline=None)
@given(y0=scores, y1=scores, seed=st.integers(0, 2**31))
def test_order_and_relabelling_invariance(y0, y1, seed):
    y, s = split(y0, y1)
    perm = np.random.default_rng(seed).permutation(y.size)
    labels = np.where(s == 0, "x", "y")
    for metric in (abcc, delta_dp):
        base = metric(None, y, sensitive_features=s)
        assert metric(None, y[perm], sensitive_features=labels[perm]) == (
            pytest.approx(base, abs=1e-12)
        )


def paper_abpc(y_pred, z, bw_method="scott", sample_n=5000):
    """The ABCC paper's Algorithm 1 (gaussian_kde, linspace, trapezoid)."""
    kde0 = stats.gaussian_kde(y_pred[z == 0], bw_method=bw_method)
    kde1 = stats.gaussian_kde(y_pred[z == 1], bw_method=bw_method)
    x = np.linspace(0, 1, sample_n)
    return np.trapezoid(np.abs(kde0(x) - kde1(x)), x)


@pytest.mark.parametrize("bw_method", ["scott", "silverman", 0.3])
def test_abpc_direct_matches_paper(bw_method):
    rng = np.random.default_rng(0)
    y = rng.beta(2, 5, 400)
    s = rng.integers(0, 2, 400)
    y[s == 1] = np.clip(y[s == 1] + 0.1, 0, 1)
    ours = abpc(None, y, sensitive_features=s, bw_method=bw_method, method="direct")
    assert ours == pytest.approx(paper_abpc(y, s, bw_method), abs=1e-10)


@pytest.mark.parametrize("n", [2_000, 50_000])
def test_abpc_binned_agrees_with_direct(n):
    rng = np.random.default_rng(n)
    s = rng.random(n) < 0.4
    y = np.where(s, rng.beta(2.0, 5.0, n), rng.beta(2.5, 4.0, n))
    y[:10] = [0, 0, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 1]
    binned = abpc(None, y, sensitive_features=s, method="binned")
    direct = abpc(None, y, sensitive_features=s, method="direct")
    assert abs(binned - direct) <= 1e-3
    assert abs(binned - direct) <= 1e-5  # the documented accuracy, with margin


def test_binned_kde_tiny_bandwidth_uses_exact_truncated_sum():
    rng = np.random.default_rng(5)
    x = rng.random(300)
    grid = np.linspace(0, 1, 5000)
    bandwidth = 1e-6  # the fine grid would be huge: exact truncated sum
    np.testing.assert_allclose(
        binned_kde(x, None, bandwidth, grid),
        direct_kde(x, None, bandwidth, grid),
        rtol=1e-9,
        atol=1e-6,
    )


@given(
    n=st.integers(1, 32),
    n_points=st.sampled_from([2, 3, 50, 501]),
    factor=st.sampled_from([0.02, 0.3, 1.0]),
    ends=st.booleans(),
    domain=st.sampled_from([(0.0, 1.0), None]),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=60, deadline=None)
def test_resampled_kde_rows_are_the_binned_kde(n, n_points, factor, ends, domain, seed):
    # the kernel-sum path of the bootstrap band equals the FFT path (up to
    # its round-off, relative to the kernel's peak 1 / (h sqrt(2 pi))) for
    # any weights, refinement, grid and end samples; and so does a compact
    # plan, which recomputes its kernel
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    if ends:
        x[0], x[-1] = 0.0, 1.0
    bandwidth = factor * (0.05 + x.std())
    grid = kde_grid(domain, x, [bandwidth], n_points)
    plan = kde_plan(x, bandwidth, grid)
    w_rows = rng.integers(0, 4, (3, n)).astype(float)
    w_rows[:, 0] += 1.0  # every row has some weight
    expected = kde_rows(plan, w_rows)
    got = resampled_kde_rows(plan, w_rows)
    compact = {key: value for key, value in plan.items() if key != "kernel"}
    assert np.array_equal(resampled_kde_rows(compact, w_rows), got)
    assert got.shape == expected.shape == (3, n_points)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 / bandwidth)
    np.testing.assert_allclose(
        got[0],
        binned_kde(x, w_rows[0], bandwidth, grid),
        rtol=1e-9,
        atol=1e-12 / bandwidth,
    )


def test_abpc_band_without_kept_kernels_is_the_same(monkeypatch):
    # over KEPT_KERNEL_BYTES the small groups' plans drop their kernels and
    # recompute them: the interval is the same to the last bit
    from skfair.metrics._kernels import _kde

    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(30), rng.integers(2, 40, 30))
    scores = np.clip(rng.beta(2, 4, groups.size) + 0.01 * groups, 0, 1)
    args = {"sensitive_features": groups, "metric": "abpc", "n_resamples": 39}
    kept = metric_confidence_interval(None, scores, random_state=0, **args)
    monkeypatch.setattr(_kde, "KEPT_KERNEL_BYTES", 0)
    plans = [kde_plan(scores[:20], 0.1, np.linspace(0, 1, 100))]
    assert "kernel" not in compact_plans(plans)[0]
    dropped = metric_confidence_interval(None, scores, random_state=0, **args)
    assert (dropped.low, dropped.high) == (kept.low, kept.high)


def test_weighted_bandwidth_matches_scipy():
    rng = np.random.default_rng(6)
    x, w = rng.random(50), rng.random(50)
    kde = stats.gaussian_kde(x, weights=w)
    assert kde_bandwidth(x, w, "scott", label=0) == pytest.approx(
        np.sqrt(kde.covariance[0, 0])
    )
    grid = np.linspace(0, 1, 101)
    np.testing.assert_allclose(
        direct_kde(x, w, kde_bandwidth(x, w, "scott", label=0), grid), kde(grid)
    )


def test_abpc_constant_group_raises():
    with pytest.raises(ValueError, match="all scores equal"):
        abpc(None, [0.5, 0.5, 0.5, 0.1, 0.2], sensitive_features=[0, 0, 0, 1, 1])
    with pytest.raises(ValueError, match="one sample"):
        abpc(None, [0.5, 0.1, 0.2], sensitive_features=[0, 1, 1])
    assert "abcc or mcdp" in DEGENERATE_GROUP_ERROR


def test_several_groups_mean_over_pairs_as_in_paper():
    rng = np.random.default_rng(7)
    y = rng.random(300)
    g = rng.choice(["a", "b", "c"], 300)
    y[g == "a"] **= 2
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    w1 = [stats.wasserstein_distance(y[g == a], y[g == b]) for a, b in pairs]
    assert abcc(None, y, sensitive_features=g, agg="mean") == pytest.approx(np.mean(w1))
    assert abcc(None, y, sensitive_features=g) == pytest.approx(max(w1))
    gaps = [abs(y[g == a].mean() - y[g == b].mean()) for a, b in pairs]
    assert delta_dp(None, y, sensitive_features=g) == pytest.approx(max(gaps))


def test_sample_weight_equals_repetition():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 10, 40) / 10
    s = rng.integers(0, 2, 40)
    w = rng.integers(1, 4, 40)
    ry, rs = np.repeat(y, w), np.repeat(s, w)
    for metric, kwargs in [(abcc, {}), (delta_dp, {}), (delta_dp, {"threshold": 0.5})]:
        assert metric(None, y, sensitive_features=s, sample_weight=w, **kwargs) == (
            pytest.approx(metric(None, ry, sensitive_features=rs, **kwargs))
        )


def test_errors():
    with pytest.raises(ValueError, match="method must be 'exact' or 'grid'"):
        abcc(None, [0.1, 0.2], sensitive_features=[0, 1], method="kde")
    with pytest.raises(ValueError, match="must lie in"):
        abcc(None, [0.1, 2.0], sensitive_features=[0, 1], method="grid")
    with pytest.raises(ValueError, match="must lie in"):
        abpc(None, [-0.1, 0.2, 0.3, 0.4], sensitive_features=[0, 0, 1, 1])
    with pytest.raises(ValueError, match="bw_method"):
        abpc(None, [0.1, 0.2], sensitive_features=[0, 1], bw_method="huge")
    with pytest.raises(ValueError, match="threshold must be"):
        delta_dp(None, [0.1, 0.2], sensitive_features=[0, 1], threshold="0.5")
    with pytest.raises(ValueError, match="total sample weight of 0"):
        abcc(None, [0.1, 0.2], sensitive_features=[0, 1], sample_weight=[1, 0])
    with pytest.raises(ValueError, match="negative"):
        abcc(None, [0.1, 0.2], sensitive_features=[0, 1], sample_weight=[1, -1])


# ----------------------------------------------------------------------------
# Issue 10 items 1, 2, 6, 8 on every public metric; issue 11 vocabulary.

SCORE_METRICS = [delta_dp, abcc, abpc, mcdp, mcdp_curve]


def _call(metric, y_true, y_score, groups, **kwargs):
    extra = {"epsilons": [0.0, 0.05]} if metric is mcdp_curve else {}
    out = metric(y_true, y_score, sensitive_features=groups, **extra, **kwargs)
    return np.asarray(out).tolist()


def _compas_like(seed=0):
    rng = np.random.default_rng(seed)
    groups = np.array(["a"] * 300 + ["b"] * 300 + ["tiny"] * 2, dtype=object)
    return rng.integers(0, 2, groups.size), rng.random(groups.size), groups


@pytest.mark.filterwarnings("error::skfair.utils.SmallGroupWarning")
@pytest.mark.parametrize("metric", SCORE_METRICS)
def test_small_groups_warn_and_min_group_size_leaves_them_out(metric):
    y, scores, groups = _compas_like()
    with pytest.warns(SmallGroupWarning, match=r"'tiny' \(2 samples\)"):
        _call(metric, y, scores, groups)
    big = groups != "tiny"
    expected = _call(metric, y[big], scores[big], groups[big])
    assert _call(metric, y, scores, groups, min_group_size=30) == expected
    with pytest.raises(ValueError, match="at least two groups"):
        _call(metric, y, scores, groups, min_group_size=301)


@pytest.mark.filterwarnings("error::skfair.utils.SmallGroupWarning")
@pytest.mark.parametrize(
    "metric",
    [demographic_parity_gap, equal_opportunity_gap, predictive_quality_parity_gap],
)
def test_gaps_small_groups(metric):
    y, scores, groups = _compas_like()
    pred = (scores >= 0.5).astype(int)
    with pytest.warns(SmallGroupWarning, match="'tiny'"):
        metric(y, pred, sensitive_features=groups, privileged="a")
    big = groups != "tiny"
    expected = metric(y[big], pred[big], sensitive_features=groups[big], privileged="a")
    got = metric(y, pred, sensitive_features=groups, privileged="a", min_group_size=30)
    assert got == expected


@pytest.mark.filterwarnings("error::skfair.utils.SmallGroupWarning")
def test_hfm_small_groups():
    y, scores, groups = _compas_like()
    X = scores.reshape(-1, 1)
    pred = (scores >= 0.5).astype(int)
    with pytest.warns(SmallGroupWarning, match="'tiny'"):
        hfm(X, y, pred, sensitive_features=groups)
    big = groups != "tiny"
    expected = hfm(X[big], y[big], pred[big], sensitive_features=groups[big])
    got = hfm(X, y, pred, sensitive_features=groups, min_group_size=30)
    assert got.to_dict() == expected.to_dict()


def test_tiny_groups_no_longer_decide_silently():
    # COMPAS-like: scores independent of the groups, two cells of 2 people.
    rng = np.random.default_rng(3)
    n = 2000
    frame = pd.DataFrame(
        {"race": rng.choice(["w", "b"], n), "sex": rng.choice(["f", "m"], n)}
    )
    frame.loc[:1, ["race", "sex"]] = [["o", "f"], ["o", "f"]]
    frame.loc[2:3, ["race", "sex"]] = [["o", "m"], ["o", "m"]]
    scores = rng.random(n)
    with pytest.warns(SmallGroupWarning):
        noisy = mcdp(None, scores, sensitive_features=frame)
    kept = mcdp(None, scores, sensitive_features=frame, min_group_size=30)
    assert noisy > 0.4 and kept < 0.1


@pytest.mark.parametrize("metric", SCORE_METRICS)
def test_continuous_sensitive_column_is_refused_quickly(metric):
    rng = np.random.default_rng(0)
    age = rng.integers(18, 90, 1000)
    with pytest.raises(ValueError, match="looks continuous"):
        _call(metric, None, rng.random(1000), age)
    binned = pd.cut(age, bins=[0, 30, 50, 120])
    assert 0 <= np.max(_call(metric, None, rng.random(1000), binned)) <= 2


@pytest.mark.parametrize("metric", SCORE_METRICS)
def test_pandas_inputs_with_different_indexes_are_refused(metric):
    rng = np.random.default_rng(0)
    groups = pd.Series(np.repeat(["a", "b"], 50))
    scores = pd.Series(rng.random(100))
    shuffled = scores.sample(frac=1.0, random_state=0)
    with pytest.raises(ValueError, match="different indexes"):
        _call(metric, None, shuffled, groups)
    with pytest.raises(ValueError, match="different indexes"):
        _call(metric, shuffled.round(), scores, groups)
    # Same index (in the same order), or a plain array: paired by position.
    aligned = _call(metric, None, shuffled, groups.loc[shuffled.index])
    assert aligned == _call(
        metric, None, shuffled.to_numpy(), groups.loc[shuffled.index].to_numpy()
    )


def test_gaps_and_hfm_refuse_different_indexes():
    y = pd.Series([0, 1] * 40)
    groups = pd.Series(np.repeat(["a", "b"], 40), index=np.arange(80)[::-1])
    with pytest.raises(ValueError, match="different indexes"):
        demographic_parity_gap(y, y, sensitive_features=groups)
    with pytest.raises(ValueError, match="different indexes"):
        hfm(np.zeros((80, 1)), y, y, sensitive_features=groups)


@pytest.mark.parametrize("n_points", [MAX_GRID_POINTS + 1, 4_300_000])
def test_abpc_and_abcc_refuse_absurd_grids(n_points):
    with pytest.raises(ValueError, match="MAX_GRID_POINTS"):
        abpc(
            None,
            [0.1, 0.5, 0.2, 0.7],
            sensitive_features=[0, 0, 1, 1],
            n_points=n_points,
        )
    with pytest.raises(ValueError, match="MAX_GRID_POINTS"):
        abcc(
            None,
            [0.1, 0.5, 0.2, 0.7],
            sensitive_features=[0, 0, 1, 1],
            method="grid",
            n_points=n_points,
        )
    assert "{limit:,}" in GRID_TOO_LARGE_ERROR


def test_public_vocabulary():
    """Every metric: y_true first, scores named by kind, the shared keywords."""
    import inspect

    import skfair.metrics as m

    by_kind = {
        "y_score": [m.delta_dp, m.abcc, m.abpc, m.mcdp, m.mcdp_details, m.mcdp_curve],
        "y_pred": [
            m.demographic_parity_gap,
            m.equal_opportunity_gap,
            m.predictive_quality_parity_gap,
        ],
    }
    for kind, functions in by_kind.items():
        for function in functions:
            params = inspect.signature(function).parameters
            assert list(params)[:2] == ["y_true", kind], function.__name__
            assert params["sensitive_features"].kind is inspect.Parameter.KEYWORD_ONLY
            for keyword in ("sample_weight", "min_group_size"):
                assert params[keyword].default is None, (function.__name__, keyword)
            if kind == "y_pred":
                assert "pos_label" in params and "privileged" in params
    # hfm keeps the paper's argument order (X first); it takes no pos_label or weights.
    assert list(inspect.signature(m.hfm).parameters)[:3] == ["X", "y_true", "y_pred"]
    assert "min_group_size" in inspect.signature(m.hfm).parameters
    dr = inspect.signature(m.discriminative_risk).parameters
    assert {"sample_weight", "min_group_size", "privileged"} <= set(dr)


def test_abpc_of_many_groups_is_the_worst_pair_computed_alone():
    # the pairs are integrated in vectorised blocks: each pair's value must be
    # the one of the two groups on their own (each group's density depends
    # only on its own scores)
    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(7), 60)
    scores = rng.beta(2 + groups % 3, 3, groups.shape[0])
    alone = [
        abpc(
            None,
            scores[(groups == a) | (groups == b)],
            sensitive_features=groups[(groups == a) | (groups == b)],
            min_group_size=1,
        )
        for a in range(7)
        for b in range(a + 1, 7)
    ]
    both = {"sensitive_features": groups, "min_group_size": 1}
    assert abpc(None, scores, **both) == max(alone)
    assert abpc(None, scores, agg="mean", **both) == pytest.approx(np.mean(alone))
