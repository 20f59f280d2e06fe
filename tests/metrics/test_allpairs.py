"""The all-pairs engine equals the per-pair paths it replaces, to the last bit.

The oracles below are the engine as it was before the all-pairs kernels: the
group CDFs as a dense (n_groups, n_points) matrix of masked running sums, the
gap of every pair at every distinct score, and :func:`mcdp_pair_exact` (or the
dense formulas) on each pair's row.
"""

import numpy as np
import pytest

from skfair.metrics import abcc, mcdp, mcdp_curve, mcdp_details
from skfair.metrics._base import aggregate
from skfair.metrics._kernels import (
    PairGap,
    _pivots,
    all_pair_areas,
    group_steps,
    mcdp_pair_exact,
    pair_codes,
    pair_gap,
    pair_l1_bounds,
    pair_l1_values,
    pairs_abcc,
    pairs_l1,
    pairs_mcdp,
    sort_scores,
    window_plan,
    worst_abcc,
    worst_l1,
    worst_mcdp,
)
from skfair.metrics._kernels._allpairs import (
    _COARSE_MIN_PAIRS,
    cell_bounds,
    grid_bounds,
    max_over_pairs,
    pairs_max_gap,
    support_sizes,
    swept_max_gap,
)
from skfair.metrics._kernels._pivots import pivot_row
from skfair.metrics.inference import metric_spec, shared_sort

EPSILONS = (0.0, 0.05, 0.3)


def _data(seed, n_groups, n=600, weighted=False, ties=True):
    rng = np.random.default_rng(seed)
    shift = rng.normal(0, 0.7, n_groups)
    codes = rng.integers(0, n_groups, n)
    codes[: 2 * n_groups] = np.repeat(np.arange(n_groups), 2)  # tiny groups too
    scores = 1 / (1 + np.exp(-rng.normal(shift[codes], 1.0)))
    if ties:
        scores = np.round(scores, 2)
        scores[:3], scores[3:5] = 0.0, 1.0
    weights = rng.uniform(0.2, 3.0, n) if weighted else None
    return scores, np.array([f"g{c}" for c in codes]), weights


def _dense_pairs(resampler, w_pos, cell_pos, spec):
    """The former engine: every pair's gap at every distinct score."""
    to_group, grouping = resampler.cell_to_group[0], resampler.groupings[0]
    codes = to_group[cell_pos]
    ends = resampler.ends
    cum = np.empty((grouping.n_groups, resampler.points.shape[0]))
    for g in range(grouping.n_groups):
        running = np.cumsum(np.where(codes == g, w_pos, 0.0))
        cum[g] = running if ends is None else running[ends]
    cdf = cum / cum[:, -1:]
    a, b = np.triu_indices(grouping.n_groups, 1)
    gap = cdf[a] - cdf[b]
    gap[:, -1] = 0.0
    opts = spec.options
    if spec.metric == "abcc":
        return np.abs(gap[:, :-1]) @ np.diff(resampler.points)
    eps = float(opts.get("epsilon", 0.0))
    if eps == 0.0:
        return np.abs(gap).max(axis=1)
    return np.array(
        [
            mcdp_pair_exact(PairGap(resampler.points, row, 1.0, 0, 1), eps, "exact")[0]
            for row in gap
        ]
    )


def _specs():
    return [metric_spec("abcc", None)] + [
        metric_spec("mcdp", {"epsilon": e}) for e in EPSILONS
    ]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_groups", [2, 3, 11])
@pytest.mark.parametrize("weighted", [False, True])
def test_resampler_equals_dense_pairs(seed, n_groups, weighted):
    scores, groups, weights = _data(seed, n_groups, weighted=weighted)
    specs = _specs()
    _, resampler = shared_sort(
        (None, scores, groups, weights, "intersection"), specs, 1
    )
    rng = np.random.default_rng(seed)
    base = np.ones(resampler.n) if weights is None else resampler.w_sorted
    counts = rng.multinomial(resampler.n, np.full(resampler.n, 1 / resampler.n))
    rows = [
        (base, resampler.cell_sorted),  # the data
        (counts * base, resampler.cell_sorted),  # a bootstrap-like reweighting
        (base, rng.permutation(resampler.cell_sorted)),  # a relabelling
    ]
    for w_pos, cell_pos in rows:
        fast = resampler.pair_values(w_pos, cell_pos, specs)
        pruned = resampler.values(w_pos, cell_pos, specs)
        for spec, per_grouping, value in zip(specs, fast, pruned):
            expected = _dense_pairs(resampler, w_pos, cell_pos, spec)
            got = np.array(per_grouping[0])
            if spec.metric == "abcc":
                np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
                np.testing.assert_allclose(value, expected.max(), rtol=1e-12)
            else:
                np.testing.assert_array_equal(got, expected)
                assert value == aggregate([list(expected)], "max")


@pytest.mark.parametrize("seed", range(3))
def test_mean_aggregation_equals_dense_pairs(seed):
    scores, groups, _ = _data(seed, 7)
    specs = [metric_spec("mcdp", {"epsilon": 0.05, "agg": "mean"})]
    _, resampler = shared_sort((None, scores, groups, None, "intersection"), specs, 1)
    w_pos = np.ones(resampler.n)
    expected = _dense_pairs(resampler, w_pos, resampler.cell_sorted, specs[0])
    value = resampler.values(w_pos, resampler.cell_sorted, specs)[0]
    assert value == aggregate([list(expected)], "mean")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("epsilon", [0.01, 0.05, 0.3, 0.6])
def test_bounds_hold_and_pruning_is_exact(seed, epsilon):
    scores, groups, _ = _data(seed, 9, n=400, ties=seed % 2 == 0)
    spec = metric_spec("mcdp", {"epsilon": epsilon})
    _, resampler = shared_sort((None, scores, groups, None, "intersection"), [spec], 1)
    codes = resampler.cell_to_group[0][resampler.cell_sorted]
    steps = group_steps(
        resampler.point_of, codes, 9, resampler.padded.shape[0], np.ones(resampler.n)
    )
    a, b = np.triu_indices(9, 1)
    exact = _dense_pairs(resampler, np.ones(resampler.n), resampler.cell_sorted, spec)
    top, _ = cell_bounds(steps, a, b, resampler.padded)
    grid = grid_bounds(steps, a, b, resampler.padded, epsilon)
    assert (top >= exact).all()
    assert grid is None or (grid >= exact).all()
    plan = window_plan(resampler.padded, epsilon, "exact")
    best = max_over_pairs(
        top if grid is None else np.minimum(top, grid),
        lambda i: pairs_mcdp(steps, a[i], b[i], plan),
        support_sizes(steps, a, b),
    )
    assert best == exact.max()


def _per_pair_details(scores, groups, epsilon, weights=None):
    """The former public path: one merged pair gap and ``mcdp_pair_exact`` per pair."""
    labels, codes = np.unique(groups, return_inverse=True)
    ordered = sort_scores(scores, codes, labels.shape[0], weights)
    out = {}
    for a, b in zip(*np.triu_indices(labels.shape[0], 1)):
        res = mcdp_pair_exact(pair_gap(ordered, a, b), epsilon, "exact")
        out[("sensitive_features", labels[a], labels[b])] = res
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_public_mcdp_equals_per_pair_path(seed, weighted, epsilon):
    scores, groups, weights = _data(seed, 12, weighted=weighted, ties=seed != 1)
    expected = _per_pair_details(scores, groups, epsilon, weights)
    kwargs = {"sensitive_features": groups, "sample_weight": weights}
    res = mcdp_details(None, scores, epsilon=epsilon, **kwargs)
    assert res.pair_values == {k: v[0] for k, v in expected.items()}
    worst = max(expected, key=lambda k: expected[k][0])  # first of the maxima
    assert res.groups == worst[1:]
    assert res.window == expected[worst][1]
    assert res.threshold == expected[worst][2]
    assert res.value == mcdp(None, scores, epsilon=epsilon, **kwargs)
    values = [v[0] for v in expected.values()]
    assert res.value == max(values)
    mean = mcdp(None, scores, epsilon=epsilon, agg="mean", **kwargs)
    assert mean == float(np.mean(values))
    curve = mcdp_curve(None, scores, epsilons=[epsilon, 0.0], **kwargs)
    assert curve[0] == res.value


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_groups", [2, 5, 40, 300])
@pytest.mark.parametrize("weighted", [False, True])
def test_swept_worst_mcdp0_equals_every_pair_to_the_last_bit(seed, n_groups, weighted):
    """MCDP(0), agg="max", over many groups: linear in the groups (issue 40)."""
    scores, groups, weights = _data(
        seed, n_groups, n=max(600, 20 * n_groups), weighted=weighted, ties=seed % 2 == 0
    )
    spec = metric_spec("mcdp", None)
    _, resampler = shared_sort(
        (None, scores, groups, weights, "intersection"), [spec], 1
    )
    base = np.ones(resampler.n) if weights is None else resampler.w_sorted
    codes = resampler.cell_to_group[0][resampler.cell_sorted]
    n = resampler.padded.shape[0]
    steps = group_steps(resampler.point_of, codes, n_groups, n, base, integral=False)
    exact = group_steps(resampler.point_of, codes, n_groups, n)  # integer counts
    a, b = np.triu_indices(n_groups, 1)
    for one in (steps, exact) if weights is None else (steps,):
        every = pairs_max_gap(one, a, b).max()
        assert swept_max_gap(one, a) == every
    assert swept_max_gap(steps, a[:-1]) is None  # not every pair: no sweep


def _steps_of(scores, groups, weights):
    spec = metric_spec("abcc", None)
    _, resampler = shared_sort(
        (None, scores, groups, weights, "intersection"), [spec], 1
    )
    base = np.ones(resampler.n) if weights is None else resampler.w_sorted
    codes = resampler.cell_to_group[0][resampler.cell_sorted]
    n_groups = resampler.groupings[0].n_groups
    n = resampler.padded.shape[0]
    steps = group_steps(resampler.point_of, codes, n_groups, n, base, integral=False)
    return steps, resampler.padded, n_groups


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_coarse_first_cut_keeps_the_worst_pair_to_the_last_bit(
    seed, weighted, epsilon, monkeypatch
):
    """Over 4,096 pairs a 16-cell bound first sets most pairs aside (issue 40)."""
    monkeypatch.setattr(_pivots, "_MIN_GROUPS", 10**9)  # no pivots: the cut alone
    n_groups = 120  # 7,140 pairs: the first cut runs
    scores, groups, weights = _data(
        seed, n_groups, n=20 * n_groups, weighted=weighted, ties=seed % 2 == 0
    )
    steps, padded, n_groups = _steps_of(scores, groups, weights)
    a, b = np.triu_indices(n_groups, 1)
    assert a.shape[0] > _COARSE_MIN_PAIRS
    areas = pairs_abcc(steps, a, b, padded)
    assert worst_abcc(steps, a, b, padded) == areas.max()
    for n_cells in (16, 256):  # the bounds the cut and the search rely on
        area = cell_bounds(steps, a, b, padded, n_cells=n_cells)[1]
        assert (area >= areas).all()
    if epsilon == 0.0:
        every = pairs_max_gap(steps, a, b)
        assert (cell_bounds(steps, a, b, padded, n_cells=16)[0] >= every).all()
        # not every pair (no sweep): the bounds and the first cut
        found = worst_mcdp(steps, a[1:], b[1:], padded, 0.0, None)
        assert found == every[1:].max()
    else:
        plan = window_plan(padded, epsilon, "exact")
        every = pairs_mcdp(steps, a, b, plan)
        assert worst_mcdp(steps, a, b, padded, epsilon, plan) == every.max()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_public_abcc_of_many_groups_equals_every_pair(seed, weighted):
    """Over 435 pairs abcc runs the vectorised kernels: the per-pair values."""
    n_groups = 45
    scores, groups, weights = _data(
        seed, n_groups, n=15 * n_groups, weighted=weighted, ties=seed != 1
    )
    labels, codes = np.unique(groups, return_inverse=True)
    ordered = sort_scores(scores, codes, labels.shape[0], weights)
    per_pair = []
    for a, b in zip(*np.triu_indices(labels.shape[0], 1)):
        gap = pair_gap(ordered, a, b)
        width = np.diff(gap.points)
        per_pair.append(float(np.abs(gap.numerator[:-1]) @ width) / gap.scale)
    kwargs = {
        "sensitive_features": groups,
        "sample_weight": weights,
        "min_group_size": 1,
    }
    for agg, expected in (("max", max(per_pair)), ("mean", np.mean(per_pair))):
        value = abcc(None, scores, agg=agg, **kwargs)
        assert value == pytest.approx(expected, rel=1e-13, abs=1e-15)
    assert abcc(None, scores, **kwargs) == all_pair_areas(ordered, True)[0]
    if weighted:  # a group without weight: refused, as on the per-pair path
        zero = np.where(groups == groups[0], 0.0, weights)
        with pytest.raises(ValueError, match="total sample weight of 0"):
            abcc(None, scores, **{**kwargs, "sample_weight": zero})


def _densities(seed, n_groups, n_points=501):
    rng = np.random.default_rng(seed)
    grid = np.linspace(0.0, 1.0, n_points)
    centres = rng.uniform(0.2, 0.8, n_groups)[:, None]
    widths = rng.uniform(0.05, 0.3, n_groups)[:, None]
    dens = np.exp(-0.5 * ((grid - centres) / widths) ** 2)
    dens += rng.uniform(0, 0.05, dens.shape)  # not smooth: loose bounds
    return dens / np.trapezoid(dens, grid, axis=1)[:, None], grid


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_groups", [5, 30, 150])
def test_pair_l1_pruning_is_exact(seed, n_groups):
    """ABPC's worst pair and interval ends, evaluating few pairs (issue 40)."""
    dens, grid = _densities(seed, n_groups)
    a, b = pair_codes(n_groups)
    every = pairs_l1(dens, a, b, grid)
    for k in range(a.shape[0]):  # one np.trapezoid per pair, bit for bit
        if k % 97 == 0:
            assert every[k] == np.trapezoid(np.abs(dens[a[k]] - dens[b[k]]), grid)
    lower, upper = pair_l1_bounds(dens, grid, a, b)
    assert (lower <= every).all() and (every <= upper).all()
    for block in (1, 7, 1 << 20):  # every pair by blocks, bit for bit
        assert worst_l1(dens, grid, block=block) == every.max()
    rng = np.random.default_rng(seed)
    half = rng.uniform(0, 0.3, a.shape[0])
    half[rng.random(a.shape[0]) < 0.01] = np.inf  # a one-sample group's pairs
    values = pair_l1_values(dens, a, b, grid, [half, -half])
    assert (values <= every).all() and (values >= 0).all()
    for offset in (half, -half):
        assert np.max(values + offset) == np.max(every + offset)


@pytest.mark.parametrize("seed", range(3))
def test_worst_l1_finds_a_maximum_the_pivots_miss(seed):
    """Smooth densities whose distances are all alike (sine waves of random
    phase): the pivots' rows hold a best below the largest value, which the
    block scan must still find; the coarse bounds are tight (within 0.05)."""
    rng = np.random.default_rng(seed)
    n_groups, grid = 120, np.linspace(0.0, 1.0, 400)
    waves = rng.integers(1, 4, (n_groups, 1))
    phase = rng.uniform(0.0, 2 * np.pi, (n_groups, 1))
    dens = 1.0 + 0.5 * np.sin(2 * np.pi * waves * grid + phase)
    dens /= np.trapezoid(dens, grid, axis=1)[:, None]
    a, b = pair_codes(n_groups)
    every = pairs_l1(dens, a, b, grid)

    def row_of(g):
        row = pivot_row(n_groups, g, lambda x, y: pairs_l1(dens, x, y, grid))
        return row, row

    _, _, values = _pivots.pivot_rows(n_groups, row_of)
    assert max(v.max() for v in values) < every.max()  # the case under test
    for block in (1, 50, 1 << 20):
        assert worst_l1(dens, grid, block=block) == every.max()


def _clustered(seed, n_groups, weighted):
    """Groups in a few clusters (near-equal distributions), ties, tiny groups."""
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, 4, n_groups)
    codes = np.repeat(np.arange(n_groups), rng.integers(2, 30, n_groups))
    shift = (cluster * 0.6 + rng.normal(0, 0.05, n_groups))[codes]
    scores = np.round(1 / (1 + np.exp(-rng.normal(shift - 1, 1.0))), 2)
    weights = rng.uniform(0.2, 3.0, codes.size) if weighted else None
    return scores, np.array([f"g{c}" for c in codes]), weights


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("data", ["uniform", "clustered"])
def test_pivots_keep_the_worst_pair_to_the_last_bit(seed, weighted, data):
    """Triangle bounds from three pivots list only the pairs that may be the
    worst (issue 40): the maxima of every pair, bit for bit."""
    n_groups = 160
    if data == "uniform":
        scores, groups, weights = _data(
            seed, n_groups, n=15 * n_groups, weighted=weighted, ties=seed % 2 == 0
        )
    else:
        scores, groups, weights = _clustered(seed, n_groups, weighted)
    steps, padded, n_groups = _steps_of(scores, groups, weights)
    a, b = np.triu_indices(n_groups, 1)

    def row_of(g):
        row = pivot_row(n_groups, g, lambda x, y: pairs_abcc(steps, x, y, padded))
        return row, row

    areas = pairs_abcc(steps, a, b, padded)
    cut = _pivots.pivot_cut(n_groups, row_of, a.shape[0])
    assert cut is not None  # the path under test runs
    best, ka, kb = cut
    assert ka.shape[0] < a.shape[0] / 4 and (ka < kb).all()
    assert (
        max(
            best,
            areas[ka * n_groups - ka * (ka + 1) // 2 + kb - ka - 1].max(
                initial=-np.inf
            ),
        )
        == areas.max()
    )
    assert worst_abcc(steps, a, b, padded) == areas.max()
    every = pairs_max_gap(steps, a, b)
    found = worst_mcdp(steps, a, b, padded, 0.0, None)
    assert found == every.max()
    plan = window_plan(padded, 0.05, "exact")
    exact = pairs_mcdp(steps, a, b, plan)
    assert worst_mcdp(steps, a, b, padded, 0.05, plan) == exact.max()
    dens, grid = _densities(seed, n_groups)
    pa, pb = pair_codes(n_groups)
    assert worst_l1(dens, grid, block=1000) == pairs_l1(dens, pa, pb, grid).max()


def test_triangle_pairs_refuses_a_cut_that_keeps_most_pairs():
    """Every pair equally far: the bounds cannot cut, and say so (None)."""
    rows = [np.r_[0.0, np.full(199, 1.0)], np.r_[1.0, 0.0, np.full(198, 1.0)]]
    assert _pivots.triangle_pairs(rows, 1.0) is None
    tight = [np.r_[0.0, np.full(199, 0.4)]]
    kept, _ = _pivots.triangle_pairs(tight, 1.0)  # 0.4 + 0.4 < 1: nothing kept
    assert kept.shape[0] == 0


@pytest.mark.parametrize(
    ("metric", "params"),
    [("abcc", None), ("mcdp", None), ("mcdp", {"epsilon": 0.05})],
)
@pytest.mark.parametrize("method", ["band", "dkw"])
def test_interval_ends_from_pivots_equal_every_pair(
    metric, params, method, monkeypatch
):
    """The band and DKW intervals of 150 groups of 20, with the pivots' cut and
    with every pair evaluated: the same bounds, to the last bit (issue 40)."""
    from skfair.metrics import metric_confidence_interval
    from skfair.metrics.inference import _sorted

    rng = np.random.default_rng(7)
    codes = np.repeat(np.arange(150), 20)
    shift = rng.normal(0, 0.5, 150)[codes]
    scores = 1 / (1 + np.exp(-rng.normal(shift, 1.0)))  # a band of groups:
    scores[::7] = np.round(scores[::7], 2)  # 11,175 pairs x ~2,600 points
    groups = np.array([f"g{c}" for c in codes])
    kwargs = {
        "sensitive_features": groups,
        "metric": metric,
        "metric_params": params,
        "method": method,
        "n_resamples": 19,
        "random_state": 0,
        "min_group_size": 1,
    }
    calls = []
    real = _sorted.end_candidates

    def spy(*args):
        found = real(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(_sorted, "end_candidates", spy)
    cut = metric_confidence_interval(None, scores, **kwargs)
    assert calls and all(calls)  # the cut ran, and kept few pairs
    monkeypatch.setattr(_pivots, "_MIN_GROUPS", 10**9)
    every = metric_confidence_interval(None, scores, **kwargs)
    assert (cut.estimate, cut.low, cut.high) == (every.estimate, every.low, every.high)
    assert cut.high > 0
