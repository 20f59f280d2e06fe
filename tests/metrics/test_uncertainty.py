"""Confidence intervals and tests of "no disparity" (skfair.metrics.inference)."""

import re
from dataclasses import asdict

import numpy as np
import pytest
from scipy import stats

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    disparity_test,
    dkw_halfwidth,
    mcdp,
    metric_confidence_interval,
)
from skfair.metrics._confidence import (
    BOOTSTRAP_METHOD_ERROR,
    DKW_METRIC_ERROR,
    DKW_WEIGHT_ERROR,
    INTERVAL_METHOD_ERROR,
)
from skfair.metrics._disparity_test import KS_ERROR, TEST_METHOD_ERROR
from skfair.metrics.inference import metric_spec, shared_sort
from skfair.metrics.inference._resampling import resampled_statistic
from skfair.metrics.inference._specs import (
    CONFIDENCE_LEVEL_ERROR,
    METRIC_ERROR,
    METRIC_PARAMS_ERROR,
    N_RESAMPLES_ERROR,
)
from skfair.utils._validation import OUT_OF_UNIT_INTERVAL_ERROR

# The one-sort engine against the public metric on the same resample.
ENGINE_CASES = [
    ("mcdp", {}),
    ("mcdp", {"epsilon": 0.05}),
    ("mcdp", {"epsilon": 0.05, "rounding": "float"}),
    ("mcdp", {"epsilon": 0.05, "method": "approx", "sampling_frequency": 4}),
    ("abcc", {}),
    ("abcc", {"method": "grid", "n_points": 101}),
    ("delta_dp", {}),
    ("delta_dp", {"threshold": 0.3}),
    ("delta_dp", {"threshold": 0.3, "agg": "mean"}),
    ("mcdp", {"agg": "mean"}),
]


def _shifted_uniforms(rng, n, shape=()):
    """Group a ~ U(0, 0.8), b ~ U(0.2, 1): MCDP(ε <= 0.3) = 0.25, ABCC = 0.2."""
    return np.concatenate(
        [rng.uniform(0, 0.8, shape + (n,)), rng.uniform(0.2, 1.0, shape + (n,))],
        axis=-1,
    )


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
@pytest.mark.parametrize(("metric", "kwargs"), ENGINE_CASES)
@pytest.mark.parametrize(
    ("combine", "weighted"), [("intersection", False), ("marginal", True)]
)
@pytest.mark.parametrize("kind", ["bootstrap", "permutation"])
def test_one_sort_engine_equals_the_metric_on_each_resample(
    metric, kwargs, combine, weighted, kind
):
    rng = np.random.default_rng(0)
    n = 150
    y = np.round(rng.beta(2, 3, n), 2)  # many ties
    y[:5] = [0.0, 0.0, 1.0, 0.3, 0.3]
    sensitive = np.c_[rng.integers(0, 2, n), rng.choice(["x", "y", "z"], n)]
    weights = rng.uniform(0.1, 2.0, n) if weighted else None
    spec = metric_spec(metric, kwargs)
    estimates, resampler = shared_sort((None, y, sensitive, weights, combine), [spec])
    empty = np.empty(0, np.intp)
    fast = resampled_statistic(resampler, [spec], kind, empty)
    direct = resampled_statistic(resampler, [spec], kind, empty, force_direct=True)
    assert fast(*resampler.members) == pytest.approx(estimates[0], abs=1e-12)
    for _ in range(2):
        if kind == "bootstrap":
            idx = [rng.choice(m, m.size) for m in resampler.members]
        else:
            sizes = np.cumsum([m.size for m in resampler.members])[:-1]
            idx = np.split(rng.permutation(n), sizes)
        assert fast(*idx) == pytest.approx(direct(*idx), abs=1e-12)


def test_engine_batches_like_scipy():
    """A 2-D batch gives one value per row; several specs stack as scipy expects."""
    rng = np.random.default_rng(1)
    y, g = _shifted_uniforms(rng, 50), np.repeat([0, 1], 50)
    specs = [metric_spec("mcdp", {}), metric_spec("abcc", {})]
    _, resampler = shared_sort((None, y, g, None, "intersection"), specs)
    batch = [
        np.stack([rng.choice(m, m.size) for _ in range(4)]) for m in resampler.members
    ]
    boot = resampled_statistic(resampler, specs, "bootstrap", np.empty(0, np.intp))(
        *batch
    )
    shuffled = np.stack([rng.permutation(100) for _ in range(4)])
    perm = resampled_statistic(resampler, specs, "permutation", np.empty(0, np.intp))(
        shuffled[:, :50], shuffled[:, 50:]
    )
    assert boot.shape == (2, 4) and perm.shape == (4, 2)
    assert perm[0, 0] == pytest.approx(mcdp(None, y[shuffled[0]], sensitive_features=g))
    for r in range(4):
        rows = np.concatenate([b[r] for b in batch])
        assert boot[0, r] == pytest.approx(
            mcdp(None, y[rows], sensitive_features=g[rows])
        )
        assert boot[1, r] == pytest.approx(
            abcc(None, y[rows], sensitive_features=g[rows])
        )


def test_dkw_halfwidth_closed_form():
    assert dkw_halfwidth(200, 0.05) == pytest.approx(np.sqrt(np.log(40) / 400))
    # Massart's bound at the half-width is exactly alpha.
    t = dkw_halfwidth(57, 0.01)
    assert 2 * np.exp(-2 * 57 * t**2) == pytest.approx(0.01)


@pytest.mark.parametrize(
    ("metric", "kwargs", "function"),
    [
        ("mcdp", {}, mcdp),
        ("mcdp", {"epsilon": 0.1}, mcdp),
        ("abcc", {}, abcc),
        ("delta_dp", {"threshold": 0.5}, delta_dp),
    ],
)
def test_dkw_interval_is_estimate_plus_minus_both_bands(metric, kwargs, function):
    rng = np.random.default_rng(2)
    y, g = (
        np.r_[rng.beta(2, 5, 80), rng.beta(3, 4, 120)],
        np.repeat(["a", "b"], [80, 120]),
    )
    res = metric_confidence_interval(
        None, y, sensitive_features=g, metric=metric, method="dkw", metric_params=kwargs
    )
    estimate = function(None, y, sensitive_features=g, **kwargs)
    slack = dkw_halfwidth(80, 0.025) + dkw_halfwidth(120, 0.025)
    assert res.estimate == estimate
    assert res.low == pytest.approx(max(0.0, estimate - slack))
    assert res.high == pytest.approx(min(1.0, estimate + slack))
    assert (res.method, res.n_resamples, res.standard_error) == ("dkw", None, None)


def test_dkw_bonferroni_over_every_group_and_pair_aggregation():
    rng = np.random.default_rng(3)
    sizes = [50, 80, 120]
    y = rng.random(sum(sizes))
    g = np.repeat([0, 1, 2], sizes)
    res = metric_confidence_interval(None, y, sensitive_features=g, method="dkw")
    t = dkw_halfwidth(np.array(sizes), 0.05 / 3)
    pairs = [(0, 1), (0, 2), (1, 2)]
    values = [
        mcdp(None, y[(g == a) | (g == b)], sensitive_features=g[(g == a) | (g == b)])
        for a, b in pairs
    ]
    assert res.low == pytest.approx(
        max(0, max(v - t[a] - t[b] for v, (a, b) in zip(values, pairs)))
    )
    assert res.high == pytest.approx(
        min(1, max(v + t[a] + t[b] for v, (a, b) in zip(values, pairs)))
    )


@pytest.mark.parametrize(
    ("metric", "kwargs", "truth"),
    [
        ("mcdp", {}, 0.25),
        ("abcc", {}, 0.2),
        ("delta_dp", {"threshold": 0.5}, 0.25),
        ("delta_dp", {}, 0.2),
    ],
)
def test_dkw_coverage_by_simulation(metric, kwargs, truth):
    """500 seeded draws with known truth: the DKW interval covers >= 95%.

    MCDP(ε > 0) has the same band (see
    test_dkw_interval_is_estimate_plus_minus_both_bands); its coverage over 200
    draws is measured in benchmarks/bench_uncertainty.py.
    """
    rng = np.random.default_rng(4)
    n_draws, n = 500, 60
    draws = _shifted_uniforms(rng, n, (n_draws,))
    g = np.repeat([0, 1], n)
    hits, widths = 0, []
    for y in draws:
        res = metric_confidence_interval(
            None,
            y,
            sensitive_features=g,
            metric=metric,
            method="dkw",
            metric_params=kwargs,
        )
        hits += res.low <= truth <= res.high
        widths.append(res.high - res.low)
    assert hits / n_draws >= 0.95
    assert np.mean(widths) < 0.9  # an informative interval, not [0, 1]


def test_dkw_coverage_of_the_ks_distance_of_two_normals():
    """MCDP(0) of N(0, 1) and N(0.5, 1) is the KS distance 2Φ(0.25) − 1."""
    truth = 2 * stats.norm.cdf(0.25) - 1
    rng = np.random.default_rng(5)
    n_draws, n = 500, 80
    draws = np.concatenate(
        [rng.normal(0, 1, (n_draws, n)), rng.normal(0.5, 1, (n_draws, n))], axis=1
    )
    g = np.repeat([0, 1], n)
    hits = sum(
        (
            r := metric_confidence_interval(None, y, sensitive_features=g, method="dkw")
        ).low
        <= truth
        <= r.high
        for y in draws
    )
    assert hits / n_draws >= 0.95


def test_bootstrap_coverage_is_reasonable():
    """The basic bootstrap of ABCC covers the true W1 = 0.2 most of the time.

    Measured with benchmarks/bench_uncertainty.py; asserted loosely here
    (40 draws), since the bootstrap is only asymptotically valid.
    """
    rng = np.random.default_rng(6)
    g = np.repeat([0, 1], 150)
    hits = 0
    for seed in range(40):
        y = _shifted_uniforms(rng, 150)
        res = metric_confidence_interval(
            None,
            y,
            sensitive_features=g,
            metric="abcc",
            method="bootstrap",
            n_resamples=99,
            random_state=seed,
        )
        hits += res.low <= 0.2 <= res.high
    assert hits / 40 >= 0.75


def test_bootstrap_interval_is_reproducible_and_in_range():
    rng = np.random.default_rng(7)
    y, g = _shifted_uniforms(rng, 100), np.repeat(["a", "b"], 100)
    first = metric_confidence_interval(
        None,
        y,
        sensitive_features=g,
        metric="mcdp",
        metric_params={"epsilon": 0.05},
        method="bootstrap",
        n_resamples=99,
        random_state=3,
    )
    again = metric_confidence_interval(
        None,
        y,
        sensitive_features=g,
        metric="mcdp",
        metric_params={"epsilon": 0.05},
        method="bootstrap",
        n_resamples=99,
        random_state=3,
    )
    assert first == again
    assert first.estimate == mcdp(None, y, sensitive_features=g, epsilon=0.05)
    assert 0 <= first.low <= first.high <= 1
    assert first.low < first.estimate < first.high
    assert (first.method, first.n_resamples, first.bootstrap_method) == (
        "bootstrap",
        99,
        "basic",
    )


@pytest.mark.parametrize("bootstrap_method", ["percentile", "BCa"])
def test_other_bootstrap_intervals(bootstrap_method):
    rng = np.random.default_rng(8)
    y, g = _shifted_uniforms(rng, 40), np.repeat([0, 1], 40)
    res = metric_confidence_interval(
        None,
        y,
        sensitive_features=g,
        metric="abcc",
        method="bootstrap",
        n_resamples=99,
        bootstrap_method=bootstrap_method,
        random_state=0,
    )
    assert res.low < res.estimate < res.high


def test_abpc_bootstrap_and_weights():
    rng = np.random.default_rng(9)
    y, g = _shifted_uniforms(rng, 60), np.repeat([0, 1], 60)
    w = rng.uniform(0.5, 2, 120)
    res = metric_confidence_interval(
        None,
        y,
        sensitive_features=g,
        metric="abpc",
        method="bootstrap",
        metric_params={"method": "binned"},
        n_resamples=19,
        random_state=0,
        sample_weight=w,
    )
    assert 0 <= res.low <= res.high <= 2


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_bootstrap_with_a_single_sample_cell():
    """scipy needs two observations per sample; a one-sample group stays fixed."""
    rng = np.random.default_rng(10)
    y = rng.random(61)
    g = np.r_[np.zeros(30), np.ones(30), [2]]
    res = metric_confidence_interval(
        None, y, sensitive_features=g, n_resamples=49, random_state=0
    )
    assert res.estimate == mcdp(None, y, sensitive_features=g)
    assert 0 <= res.low <= res.high <= 1


def test_ks_test_is_the_exact_two_sample_ks_test():
    rng = np.random.default_rng(11)
    a, b = np.round(rng.beta(2, 5, 40), 1), np.round(rng.beta(3, 4, 55), 1)  # ties
    y, g = np.r_[a, b], np.repeat(["a", "b"], [40, 55])
    res = disparity_test(None, y, sensitive_features=g)
    ks = stats.ks_2samp(a, b, method="exact")
    assert res.method == "ks" and res.n_resamples is None
    assert res.statistic == pytest.approx(ks.statistic, abs=1e-15)  # MCDP(0) = KS
    assert res.pvalue == pytest.approx(ks.pvalue, rel=1e-12)
    assert disparity_test(None, y, sensitive_features=g, method="ks") == res


def test_permutation_test():
    rng = np.random.default_rng(12)
    g = np.repeat([0, 1], 60)
    shifted = disparity_test(
        None,
        _shifted_uniforms(rng, 60),
        sensitive_features=g,
        metric="abcc",
        n_resamples=199,
        random_state=0,
    )
    assert shifted.method == "permutation" and shifted.n_resamples == 199
    assert shifted.pvalue == pytest.approx(1 / 200)
    same = rng.beta(2, 5, 120)
    null = disparity_test(
        None,
        same,
        sensitive_features=g,
        metric="mcdp",
        metric_params={"epsilon": 0.05},
        n_resamples=199,
        random_state=0,
    )
    assert null.statistic == mcdp(None, same, sensitive_features=g, epsilon=0.05)
    assert null.pvalue > 0.05
    # MCDP(0) by permutation agrees with the exact KS p-value up to noise
    perm = disparity_test(
        None,
        same,
        sensitive_features=g,
        method="permutation",
        n_resamples=999,
        random_state=0,
    )
    exact = disparity_test(None, same, sensitive_features=g)
    assert abs(perm.pvalue - exact.pvalue) < 0.06


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_permutation_p_values_are_uniform_under_the_null():
    """Under the null the p-value is (super-)uniform: P(p <= 0.2) <= ~0.2."""
    rng = np.random.default_rng(13)
    g = np.repeat([0, 1, 2], 20)
    pvalues = [
        disparity_test(
            None,
            rng.random(60),
            sensitive_features=g,
            metric="delta_dp",
            method="permutation",
            n_resamples=99,
            random_state=seed,
        ).pvalue
        for seed in range(40)
    ]
    assert np.mean(np.array(pvalues) <= 0.2) <= 0.4


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"metric": "ks"}, ValueError, METRIC_ERROR.format(metric="ks")),
        (
            {"method": "jackknife"},
            ValueError,
            INTERVAL_METHOD_ERROR.format(method="jackknife"),
        ),
        (
            {"metric": "abpc", "method": "dkw"},
            ValueError,
            DKW_METRIC_ERROR.format(metric="abpc"),
        ),
        (
            {"confidence_level": 1.0},
            ValueError,
            CONFIDENCE_LEVEL_ERROR.format(value=1.0),
        ),
        ({"n_resamples": 0}, ValueError, N_RESAMPLES_ERROR.format(value=0)),
        (
            {"method": "bootstrap", "bootstrap_method": "bias"},
            ValueError,
            BOOTSTRAP_METHOD_ERROR.format(value="bias"),
        ),
        (
            {"metric_params": {"combine": "marginal"}},
            ValueError,
            METRIC_PARAMS_ERROR.format(key="combine"),
        ),
    ],
)
def test_interval_errors(kwargs, error, message):
    y, g = np.linspace(0, 1, 60), np.repeat([0, 1], 30)
    with pytest.raises(error) as info:
        metric_confidence_interval(None, y, sensitive_features=g, **kwargs)
    assert str(info.value) == message


def test_dkw_errors():
    y, g = np.linspace(0, 1, 60), np.repeat([0, 1], 30)
    with pytest.raises(ValueError) as info:
        metric_confidence_interval(
            None, y, sensitive_features=g, method="dkw", sample_weight=np.ones(60)
        )
    assert str(info.value) == DKW_WEIGHT_ERROR
    with pytest.raises(ValueError, match="must lie in"):
        metric_confidence_interval(
            None, y * 2, sensitive_features=g, metric="abcc", method="dkw"
        )
    assert "ABCC" not in OUT_OF_UNIT_INTERVAL_ERROR  # the reason names the metric
    # MCDP(0), a supremum, needs no bounded scores
    res = metric_confidence_interval(
        None, y * 5 - 2, sensitive_features=g, method="dkw"
    )
    assert 0 <= res.low <= res.high <= 1


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_invalid_inputs_raise_the_metric_errors():
    g = np.repeat([0, 1], 3)
    with pytest.raises(ValueError, match="NaN"):
        metric_confidence_interval(
            None, [0.1, np.nan, 0.3, 0.4, 0.5, 0.6], sensitive_features=g
        )
    with pytest.raises(ValueError, match="at least two groups"):
        disparity_test(None, np.linspace(0, 1, 6), sensitive_features=np.zeros(6))


def test_test_errors():
    y, g = np.linspace(0, 1, 90), np.repeat([0, 1, 2], 30)
    with pytest.raises(ValueError) as info:
        disparity_test(None, y, sensitive_features=g, method="bootstrap")
    assert str(info.value) == TEST_METHOD_ERROR.format(method="bootstrap")
    with pytest.raises(ValueError) as info:
        disparity_test(None, y, sensitive_features=g, method="ks")
    assert str(info.value) == KS_ERROR.format(problem="groupings with [3] groups")
    with pytest.raises(ValueError, match="method='ks' tests MCDP"):
        disparity_test(None, y, sensitive_features=g % 2, metric="abcc", method="ks")


def test_large_sample_permutations_match_scipy(monkeypatch):
    """Above _SCIPY_PERMUTATION_MAX the permutations are drawn without scipy
    (its exact partition count is a huge big integer); same statistic, same
    p-value formula: the p-values agree up to Monte Carlo noise."""
    import skfair.metrics.inference._permutation as module

    rng = np.random.default_rng(14)
    g = np.repeat([0, 1], 100)
    shifted = _shifted_uniforms(rng, 100)
    null = rng.beta(2, 5, 200)
    options = {"metric": "abcc", "n_resamples": 399, "random_state": 0}
    scipy_p = [
        disparity_test(None, y, sensitive_features=g, **options).pvalue
        for y in (shifted, null)
    ]
    monkeypatch.setattr(module, "_SCIPY_PERMUTATION_MAX", 0)
    own_p = [
        disparity_test(None, y, sensitive_features=g, **options).pvalue
        for y in (shifted, null)
    ]
    assert own_p[0] == scipy_p[0] == 1 / 400
    assert abs(own_p[1] - scipy_p[1]) < 0.08


# -- min_group_size ------------------------------------------------------------


def _with_tiny_group(seed=0, n=120, tiny=4):
    """Two groups of ``n`` plus a group "c" of ``tiny`` samples at the end."""
    rng = np.random.default_rng(seed)
    y = np.r_[rng.beta(2, 5, n), rng.beta(3, 4, n), rng.random(tiny)]
    s = np.r_[np.repeat(["a", "b"], n), np.repeat("c", tiny)]
    return y, s


@pytest.mark.parametrize("metric", ["mcdp", "abcc", "delta_dp", "abpc"])
def test_min_group_size_equals_dropping_the_group(metric):
    """An int k gives the result on the data without the small group.

    The same resamples and permutations (the left-out group is not resampled),
    so the same numbers up to rounding.
    """
    y, s = _with_tiny_group()
    kept = s != "c"
    params = {"mcdp": {"epsilon": 0.05}, "abpc": {"method": "binned"}}.get(metric)
    options = {"n_resamples": 30, "random_state": 3, "metric_params": params}
    left_out = metric_confidence_interval(
        None, y, sensitive_features=s, metric=metric, min_group_size=10, **options
    )
    dropped = metric_confidence_interval(
        None, y[kept], sensitive_features=s[kept], metric=metric, **options
    )
    # equal up to rounding: ABCC sums its areas over every distinct score
    assert asdict(left_out) == _fields(dropped)
    test_left_out = disparity_test(
        None, y, sensitive_features=s, metric=metric, min_group_size=10, **options
    )
    test_dropped = disparity_test(
        None, y[kept], sensitive_features=s[kept], metric=metric, **options
    )
    assert asdict(test_left_out) == _fields(test_dropped)
    if metric != "abpc":
        a = metric_confidence_interval(
            None, y, sensitive_features=s, metric=metric, method="dkw",
            min_group_size=10, metric_params=params,
        )  # fmt: skip
        b = metric_confidence_interval(
            None, y[kept], sensitive_features=s[kept], metric=metric, method="dkw",
            metric_params=params,
        )  # fmt: skip
        assert asdict(a) == _fields(b)


def _fields(result):
    return {
        k: pytest.approx(v, rel=1e-12, abs=1e-15) if isinstance(v, float) else v
        for k, v in asdict(result).items()
    }


def test_min_group_size_ks_and_marginal():
    y, s = _with_tiny_group(seed=1)
    kept = s != "c"
    res = disparity_test(None, y, sensitive_features=s, min_group_size=5)
    assert res.method == "ks"  # two groups remain
    assert res.pvalue == stats.ks_2samp(y[s == "a"], y[s == "b"]).pvalue
    # marginal: "c" is left out of the first attribute only; the permutation
    # moves the labels of the samples compared in both attributes
    other = np.tile([0, 1], y.size // 2)
    both = np.c_[s, other]
    res = disparity_test(
        None,
        y,
        sensitive_features=both,
        combine="marginal",
        min_group_size=5,
        n_resamples=99,
        random_state=0,
    )
    expected = mcdp(
        None, y, sensitive_features=both, combine="marginal", min_group_size=5
    )
    assert res.statistic == expected and 0 < res.pvalue <= 1
    assert res.method == "permutation" and kept.sum() < y.size


def test_min_group_size_none_warns_once():
    from skfair.utils import SmallGroupWarning

    y, s = _with_tiny_group()
    with pytest.warns(SmallGroupWarning) as caught:
        metric_confidence_interval(
            None, y, sensitive_features=s, n_resamples=20, random_state=0
        )
    assert len([w for w in caught if w.category is SmallGroupWarning]) == 1
    assert "'c' (4 samples)" in str(caught[0].message)
    with pytest.warns(SmallGroupWarning) as caught:
        disparity_test(
            None, y, sensitive_features=s, metric="abpc", n_resamples=20,
            random_state=0,
        )  # fmt: skip
    assert len([w for w in caught if w.category is SmallGroupWarning]) == 1


def test_min_group_size_errors():
    from skfair.utils._groups import MIN_GROUP_SIZE_ERROR, TOO_FEW_GROUPS_LEFT_ERROR

    # the fixed end of the message: min_group_size, not a fold, left too few
    tail = TOO_FEW_GROUPS_LEFT_ERROR.rsplit("}", 1)[1]
    y, s = _with_tiny_group()
    for func in (metric_confidence_interval, disparity_test):
        with pytest.raises(ValueError, match="min_group_size must be None"):
            func(None, y, sensitive_features=s, min_group_size=0)
        with pytest.raises(ValueError, match=re.escape(tail)):
            func(None, y, sensitive_features=s, min_group_size=500)
    assert "min_group_size" in MIN_GROUP_SIZE_ERROR


def test_more_than_fifty_groups_stay_groups_on_resamples():
    # the direct path relabels resamples with group codes: as plain integers,
    # 60 groups looked like a continuous numeric attribute and were refused
    rng = np.random.default_rng(4)
    groups = np.repeat([f"g{i:02d}" for i in range(60)], 40)
    y_score = rng.random(groups.size)
    result = metric_confidence_interval(
        None,
        y_score,
        sensitive_features=groups,
        metric="abpc",
        n_resamples=19,  # the fewest a 95% band accepts
        metric_params={"n_points": 64},
        random_state=0,
    )
    expected = abpc(None, y_score, sensitive_features=groups, n_points=64)
    assert result.estimate == expected
    assert result.low <= result.high
