"""MCDP(ε): brute-force definition, closed forms, worked values, properties."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from skfair.metrics import mcdp, mcdp_curve, mcdp_details
from skfair.metrics._base import MAX_GRID_POINTS
from skfair.metrics._kernels import _windows as windows
from skfair.metrics._kernels import max_window_min, sliding_min
from skfair.metrics._kernels._windows import _MAX_BLOCKS, _sparse_table_max_min
from skfair.metrics._mcdp import (
    APPROX_EPSILON_ERROR,
    EMPTY_EPSILONS_ERROR,
    EPSILON_ERROR,
    SAMPLING_FREQUENCY_ERROR,
)

# Most cases compare a handful of samples on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")

EPSILONS = [0.0, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9]


def ks(a, b):
    """scipy's two-sample KS statistic.

    Its p-value computation warns on tiny or tied samples; only the statistic
    is compared here, so those warnings are silenced.
    """
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return stats.ks_2samp(a, b).statistic


def ecdf_gap(y0, y1, t):
    """|F0(t) - F1(t)| as an exact Fraction."""
    f0 = Fraction(sum(v <= t for v in y0), len(y0))
    f1 = Fraction(sum(v <= t for v in y1), len(y1))
    return abs(f0 - f1)


def brute_mcdp(y0, y1, epsilon):
    """Eq. 4 in exact rational arithmetic, straight from the definition.

    max over y0 in [0, 1] of min over [y0 - ε, y0 + ε] ∩ [0, 1] of ΔF. ΔF is a
    right-continuous step function with breakpoints at the scores, so the
    minimum over a closed interval [lo, hi] is the minimum of ΔF(lo) and of ΔF
    at the breakpoints in (lo, hi]; the window minimum only changes when an
    end of the neighbourhood crosses a breakpoint, so it suffices to try the
    critical centres (breakpoints ± ε, 0, 1) and the midpoints between them.
    """
    points = sorted({Fraction(v) for v in [*y0, *y1]})
    y0 = [Fraction(v) for v in y0]
    y1 = [Fraction(v) for v in y1]
    eps = Fraction(epsilon)
    if eps == 0:
        return max(ecdf_gap(y0, y1, t) for t in points)
    one, zero = Fraction(1), Fraction(0)
    critical = {zero, one}
    for p in points:
        for c in (p - eps, p + eps):
            if zero <= c <= one:
                critical.add(c)
    critical = sorted(critical)
    centres = set(critical)
    centres.update((a + b) / 2 for a, b in zip(critical, critical[1:]))
    best = zero
    for c in centres:
        lo, hi = max(zero, c - eps), min(one, c + eps)
        inside = [ecdf_gap(y0, y1, lo)]
        inside += [ecdf_gap(y0, y1, p) for p in points if lo < p <= hi]
        best = max(best, min(inside))
    return best


def run(y0, y1, **kwargs):
    y = np.concatenate([y0, y1]).astype(float)
    s = np.r_[np.zeros(len(y0), int), np.ones(len(y1), int)]
    return mcdp(None, y, sensitive_features=s, **kwargs)


# Scores on a coarse grid (many ties, exact 0s and 1s) or anywhere in [0, 1].
grid_scores = st.lists(
    st.sampled_from([0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.5, 0.7, 0.95, 1.0]),
    min_size=1,
    max_size=9,
)
free_scores = st.lists(
    st.floats(0, 1, allow_nan=False, allow_subnormal=False), min_size=1, max_size=9
)
scores = st.one_of(grid_scores, free_scores)


@settings(max_examples=300, deadline=None)
@given(y0=scores, y1=scores, epsilon=st.sampled_from(EPSILONS))
def test_exact_matches_definition(y0, y1, epsilon):
    expected = float(brute_mcdp(y0, y1, epsilon))
    assert run(y0, y1, epsilon=epsilon) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(y0=scores, y1=scores, epsilon=st.floats(0.001, 0.6))
def test_exact_matches_definition_any_epsilon(y0, y1, epsilon):
    expected = float(brute_mcdp(y0, y1, epsilon))
    assert run(y0, y1, epsilon=epsilon) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(y0=scores, y1=scores, epsilon=st.sampled_from(EPSILONS[1:]))
def test_approx_never_below_exact(y0, y1, epsilon):
    exact = run(y0, y1, epsilon=epsilon)
    for k in (1, 2, 8, 32):
        approx = run(y0, y1, epsilon=epsilon, method="approx", sampling_frequency=k)
        assert approx >= exact - 1e-12


@settings(max_examples=100, deadline=None)
@given(y0=scores, y1=scores, epsilon=st.sampled_from(EPSILONS[1:]))
def test_approx_non_increasing_in_powers_of_two(y0, y1, epsilon):
    values = [
        run(y0, y1, epsilon=epsilon, method="approx", sampling_frequency=2**p)
        for p in range(6)
    ]
    assert all(b <= a + 1e-12 for a, b in zip(values, values[1:]))


@settings(max_examples=100, deadline=None)
@given(y0=scores, y1=scores)
def test_non_increasing_in_epsilon(y0, y1):
    y = np.r_[y0, y1]
    s = np.r_[np.zeros(len(y0)), np.ones(len(y1))]
    curve = mcdp_curve(None, y, sensitive_features=s, epsilons=EPSILONS)
    assert np.all(np.diff(curve) <= 1e-12)
    assert np.all((curve >= 0) & (curve <= 1))
    singles = [mcdp(None, y, sensitive_features=s, epsilon=e) for e in EPSILONS]
    np.testing.assert_array_equal(curve, singles)


@settings(max_examples=100, deadline=None)
@given(
    y0=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=30),
    y1=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=30),
)
def test_epsilon_zero_is_ks_statistic(y0, y1):
    assert run(y0, y1) == pytest.approx(ks(y0, y1), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    y0=scores,
    y1=scores,
    seed=st.integers(0, 2**32 - 1),
    epsilon=st.sampled_from(EPSILONS),
)
def test_invariant_to_order_and_relabelling(y0, y1, seed, epsilon):
    y = np.r_[y0, y1]
    s = np.array(["b"] * len(y0) + ["a"] * len(y1))
    perm = np.random.default_rng(seed).permutation(y.size)
    base = mcdp(None, y, sensitive_features=s, epsilon=epsilon)
    assert mcdp(None, y[perm], sensitive_features=s[perm], epsilon=epsilon) == base
    swapped = np.where(s == "a", "b", "a")
    assert mcdp(None, y, sensitive_features=swapped, epsilon=epsilon) == base


@settings(max_examples=100, deadline=None)
@given(y0=scores, y1=scores)
def test_epsilon_zero_invariant_to_increasing_transforms(y0, y1):
    y = np.r_[y0, y1]
    s = np.r_[np.zeros(len(y0)), np.ones(len(y1))]
    base = mcdp(None, y, sensitive_features=s)
    order = np.argsort(y, kind="stable")
    for transform in (np.sqrt, lambda v: np.exp(3 * v), lambda v: 5 * v - 2):
        t = transform(y)
        # Strictly increasing in real numbers, but rounding may merge close
        # scores; the invariance holds when the order and ties are preserved.
        assume(np.unique(t).size == np.unique(y).size)
        assert np.all(np.diff(t[order]) >= 0)
        assert mcdp(None, t, sensitive_features=s) == pytest.approx(base)


def test_worked_values():
    y0, y1 = [0.1, 0.2, 0.3, 0.4, 0.5], [0.12, 0.33, 0.35, 0.6, 0.9]
    assert run(y0, y1) == pytest.approx(0.4)
    assert run(y0, y1, epsilon=0.05) == pytest.approx(0.2)
    # Algorithm 2 over-estimates here, as Theorem 3.3 allows.
    assert run(y0, y1, epsilon=0.05, method="approx", sampling_frequency=32) == (
        pytest.approx(0.4)
    )


def test_reference_code_bug_with_zero_scores():
    # The published exact code returns 0 here; Eq. 4 gives 0.5: the
    # neighbourhood [0, 0.1] of y0 = 0 has a CDF gap of 0.5 throughout.
    assert run([0, 0, 0.15, 0.15], [0.15] * 4, epsilon=0.1) == 0.5
    assert brute_mcdp([0, 0, 0.15, 0.15], [0.15] * 4, 0.1) == Fraction(1, 2)


def test_exact_window_membership_differs_from_rounded_sum():
    # 0.1 + 0.2 rounds up to 0.30000000000000004 == np.arange(0, 1, .1)[3],
    # but the exact sum of the two doubles is smaller, so that score is
    # outside the window [0.1, 0.1 + 2ε] with ε = 0.1.
    p = np.arange(0, 1, 0.1)[3]
    assert p == 0.1 + 0.2
    y0, y1 = [0.1, 0.1, 0.1], [p, p, 0.5]
    exact = run(y0, y1, epsilon=0.1)
    rounded = run(y0, y1, epsilon=0.1, rounding="float")
    assert brute_mcdp(y0, y1, 0.1) == 1
    assert exact == 1.0
    assert rounded == pytest.approx(1 / 3)


def test_details_locate_the_maximum():
    y0, y1 = [0.1, 0.2, 0.3, 0.4, 0.5], [0.12, 0.33, 0.35, 0.6, 0.9]
    s = [0] * 5 + [1] * 5
    res = mcdp_details(None, y0 + y1, sensitive_features=s)
    assert res.value == pytest.approx(0.4)
    assert res.threshold == 0.3
    assert res.groups == (0, 1)
    assert res.higher_cdf_group == 0
    res = mcdp_details(None, y0 + y1, sensitive_features=s, epsilon=0.05)
    low, high = res.window
    assert high - low == pytest.approx(0.1) or low == 0.0
    # The CDF gap is at least the value throughout the reported window.
    grid = np.linspace(low, high, 101)
    gaps = [float(ecdf_gap(y0, y1, t)) for t in grid]
    assert min(gaps) >= res.value - 1e-12


def test_several_groups_and_attributes():
    rng = np.random.default_rng(0)
    y = rng.random(300)
    race = rng.choice(["a", "b", "c"], 300)
    sex = rng.choice(["f", "m"], 300)
    y[race == "c"] *= 0.5
    pairs = {}
    for a, b in [("a", "b"), ("a", "c"), ("b", "c")]:
        pairs[(a, b)] = ks(y[race == a], y[race == b])
    assert mcdp(None, y, sensitive_features=race) == pytest.approx(max(pairs.values()))
    assert mcdp(None, y, sensitive_features=race, agg="mean") == pytest.approx(
        np.mean(list(pairs.values()))
    )
    both = np.column_stack([race, sex])
    marginal = mcdp(None, y, sensitive_features=both, combine="marginal")
    sex_ks = ks(y[sex == "f"], y[sex == "m"])
    assert marginal == pytest.approx(max(max(pairs.values()), sex_ks))
    inter = mcdp(None, y, sensitive_features=both)
    labels = [f"{r}{s}" for r, s in both]
    assert inter == pytest.approx(mcdp(None, y, sensitive_features=labels))


def test_sample_weight_equals_repetition():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 20, 40) / 20
    s = rng.integers(0, 2, 40)
    w = rng.integers(1, 4, 40)
    for eps in (0.0, 0.05, 0.2):
        weighted = mcdp(None, y, sensitive_features=s, epsilon=eps, sample_weight=w)
        repeated = mcdp(
            None, np.repeat(y, w), sensitive_features=np.repeat(s, w), epsilon=eps
        )
        assert weighted == pytest.approx(repeated, abs=1e-12)


def test_large_input_uses_both_window_engines(monkeypatch):
    rng = np.random.default_rng(2)
    y = rng.random(20000)
    s = rng.random(20000) < 0.4
    y[s] = y[s] ** 1.1
    points = np.sort(np.unique(y))
    values = rng.integers(-1000, 1000, points.size)
    # Force the block engine at every width, then compare with the table.
    monkeypatch.setattr(windows, "_block_budget", lambda m: m + 1)
    for width in (0.1, 0.01, 1e-4, 1e-6):
        for absolute in (False, True):
            fast = max_window_min(points, values, width, absolute=absolute)
            ref = np.abs(values) if absolute else values
            table = _sparse_table_max_min(points, ref, width, "exact")
            assert fast[0] == table[0]
    monkeypatch.undo()
    # A tiny ε has more blocks than the block engine takes: same result.
    eps = 1e-6
    assert 1 / (2 * eps) > _MAX_BLOCKS
    value = mcdp(None, y, sensitive_features=s, epsilon=eps)
    small = mcdp(None, y, sensitive_features=s, epsilon=1e-9)
    assert 0 <= value <= small <= mcdp(None, y, sensitive_features=s)


def test_general_sort_path_for_scores_outside_unit_interval():
    rng = np.random.default_rng(3)
    y, s = rng.normal(size=500) * 10, rng.integers(0, 2, 500)
    assert mcdp(None, y, sensitive_features=s) == pytest.approx(
        ks(y[s == 0], y[s == 1])
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": -0.1}, EPSILON_ERROR.format(epsilon=-0.1)),
        ({"epsilon": float("nan")}, "epsilon must be a finite"),
        ({"epsilon": 0.0, "method": "approx"}, APPROX_EPSILON_ERROR[:40]),
        (
            {"epsilon": 0.1, "method": "approx", "sampling_frequency": 0},
            SAMPLING_FREQUENCY_ERROR.format(value=0),
        ),
        ({"method": "fast"}, "method must be 'exact' or 'approx'"),
        ({"rounding": "up"}, "rounding must be"),
        ({"agg": "min"}, "agg must be"),
        ({"combine": "union"}, "combine must be"),
    ],
)
def test_parameter_errors(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")[:40]):
        mcdp(None, [0.1, 0.2], sensitive_features=[0, 1], **kwargs)


def test_input_errors():
    with pytest.raises(ValueError, match="contains NaN"):
        mcdp(None, [0.1, np.nan], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="contains infinity"):
        mcdp(None, [0.1, np.inf], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="has 3 and"):
        mcdp([0, 1, 1], [0.1, 0.2], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="sensitive_features has 3"):
        mcdp(None, [0.1, 0.2], sensitive_features=[0, 1, 1])
    with pytest.raises(ValueError, match="at least two groups are needed"):
        mcdp(None, [0.1, 0.2], sensitive_features=["a", "a"])
    with pytest.raises(ValueError, match="missing value"):
        mcdp(None, [0.1, 0.2], sensitive_features=["a", None])
    # ε > 0 needs scores in [0, 1]; ε = 0 accepts any real scores.
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\] for MCDP"):
        mcdp(None, [0.1, 1.5], sensitive_features=[0, 1], epsilon=0.1)
    assert mcdp(None, [0.1, 1.5], sensitive_features=[0, 1]) == 1.0


class ECDF:
    """statsmodels' ECDF, which the paper's code uses: right-continuous."""

    def __init__(self, x):
        self.x = np.sort(np.asarray(x, dtype=float))

    def __call__(self, t):
        return np.searchsorted(self.x, t, side="right") / self.x.size


def paper_approximate(y_pred, s, epsilon, K):
    """Algorithm 5 of the MCDP paper, verbatim but for np.max(a, b) -> max."""
    y_pre_1, y_pre_0 = y_pred[s == 1], y_pred[s == 0]
    ecdf0, ecdf1 = ECDF(y_pre_0), ECDF(y_pre_1)
    delta = epsilon / K
    samples = np.arange(0, 1, delta)
    mcdp_value = np.min(np.abs(ecdf0(samples[: K + 1]) - ecdf1(samples[: K + 1])))
    delta_ecdf = np.abs(ecdf0(samples) - ecdf1(samples))
    indices = np.arange(1, np.ceil(1 / delta) - 2 * K + 1).astype(int)
    indices = indices + np.arange(2 * K).reshape((-1, 1))
    if indices.size:
        mcdp_value = max(mcdp_value, np.max(np.min(delta_ecdf[indices], axis=0)))
    return mcdp_value


@settings(max_examples=100, deadline=None)
@given(
    y0=scores,
    y1=scores,
    epsilon=st.sampled_from([0.01, 0.05, 0.1, 0.3, 0.45]),
    k=st.sampled_from([1, 2, 5, 32]),
)
def test_approx_reproduces_algorithm_2(y0, y1, epsilon, k):
    y = np.r_[y0, y1].astype(float)
    s = np.r_[np.zeros(len(y0), int), np.ones(len(y1), int)]
    expected = paper_approximate(y, s, epsilon, k)
    got = mcdp(
        None,
        y,
        sensitive_features=s,
        epsilon=epsilon,
        method="approx",
        sampling_frequency=k,
    )
    assert got == pytest.approx(expected, abs=1e-12)


# Issue 10 items 8 and 12.


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=60),
    st.integers(1, 70),
)
def test_sliding_min_matches_brute_force(values, width):
    values = np.array(values)
    width = min(width, values.size)
    # windows that run past the end see only the values left (fill=inf)
    expected = [values[i : i + width].min() for i in range(values.size)]
    np.testing.assert_array_equal(sliding_min(values, width), expected)


def test_approx_refuses_absurd_grids():
    y, s = [0.1, 0.4, 0.3, 0.8], [0, 0, 1, 1]
    for kwargs in ({"sampling_frequency": 10**7}, {"epsilon": 1e-7}):
        params = {"epsilon": 0.01, "method": "approx", **kwargs}
        with pytest.raises(ValueError, match="MAX_GRID_POINTS"):
            mcdp(None, y, sensitive_features=s, **params)
    # The largest allowed grid still runs, linearly in its size.
    k = MAX_GRID_POINTS // 10
    got = mcdp(
        None,
        y,
        sensitive_features=s,
        epsilon=0.1,
        method="approx",
        sampling_frequency=k,
    )
    assert got >= mcdp(None, y, sensitive_features=s, epsilon=0.1)


def test_curve_needs_epsilons():
    with pytest.raises(ValueError, match="epsilons must hold at least one"):
        mcdp_curve(None, [0.1, 0.2], sensitive_features=[0, 1], epsilons=[])
    assert EMPTY_EPSILONS_ERROR.startswith("epsilons")


def test_curve_equals_details_for_each_epsilon():
    rng = np.random.default_rng(0)
    y, s = rng.random(200), rng.integers(0, 3, 200)
    epsilons = [0.0, 0.01, 0.1]
    curve = mcdp_curve(None, y, sensitive_features=s, epsilons=epsilons)
    for e, value in zip(epsilons, curve):
        assert value == mcdp_details(None, y, sensitive_features=s, epsilon=e).value
