"""mcdp_details of many groups: the worst pair without every pair (issue 40).

With ``agg="max"``, the exact method and 100 groups or more,
:func:`~skfair.metrics.mcdp_details` finds the worst pair from pivots and a
bounded scan, and its ``pair_values`` are evaluated only when read. The
oracle is the same call with the pivots switched off (every pair evaluated
into a dict, the path of fewer groups): everything must be equal to the last
bit, with ties (one-sample groups, rounded scores), weights and a domain.
"""

import pickle

import numpy as np
import pandas as pd
import pytest

from skfair.metrics import mcdp, mcdp_details
from skfair.metrics._kernels import AllPairs, _pivots, pair_codes
from skfair.metrics._kernels._pivots import first_largest_pair
from skfair.metrics._mcdp_pairs import GroupingPairs, PairValues, largest_in


def _groups(codes):
    return pd.Series([f"g{c}" for c in codes]).astype("category")


def _data(seed, n_groups, rows, decimals, weighted, spread):
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(n_groups), rows)
    codes[: n_groups // 4] = 0  # a few one-sample groups, one large group
    shift = rng.normal(0, spread, n_groups)[codes]
    scores = np.round(1 / (1 + np.exp(-rng.normal(shift, 1.0))), decimals)
    weights = rng.uniform(0.2, 3.0, codes.size) if weighted else None
    return scores, _groups(codes), weights


def _eager(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(_pivots, "_MIN_GROUPS", 10**9)
        return mcdp_details(*args, **kwargs)


CASES = [
    # seed, groups, rows per group, decimals, weighted, spread of group means
    (0, 104, 12, 2, False, 0.0),
    (1, 140, 30, 6, False, 0.4),
    (2, 120, 20, 3, True, 0.3),
    (3, 210, 8, 1, True, 0.0),
]


@pytest.mark.parametrize(
    ("seed", "n_groups", "rows", "decimals", "weighted", "spread"), CASES
)
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_lazy_details_equal_every_pair(
    seed, n_groups, rows, decimals, weighted, spread, epsilon, monkeypatch
):
    scores, groups, weights = _data(seed, n_groups, rows, decimals, weighted, spread)
    kw = {
        "sensitive_features": groups,
        "epsilon": epsilon,
        "sample_weight": weights,
        "min_group_size": 1,
    }
    lazy = mcdp_details(None, scores, **kw)
    eager = _eager(monkeypatch, None, scores, **kw)
    assert isinstance(lazy.pair_values, PairValues)  # the path under test ran
    assert isinstance(eager.pair_values, dict)
    assert lazy == eager  # value, groups, window, threshold, sign and every pair
    assert list(lazy.pair_values) == list(eager.pair_values)
    assert lazy.value == mcdp(None, scores, **kw)
    key = next(iter(eager.pair_values))
    assert lazy.pair_values[key] == eager.pair_values[key]
    with pytest.raises(KeyError):
        lazy.pair_values[("sensitive_features", "g1", "g0")]  # not in pair order
    assert pickle.loads(pickle.dumps(lazy)) == eager

    # the audit's claim about large groups: the largest over chosen groups
    def keep(name, label):
        return int(label[1:]) % 3 != 1

    assert lazy.pair_values.largest(keep) == largest_in(eager.pair_values, keep)


def test_lazy_details_with_two_groupings_and_domain(monkeypatch):
    """Marginal groupings (one of many groups, one of two) and real scores."""
    rng = np.random.default_rng(5)
    n = 3000
    many = rng.integers(0, 150, n)
    two = rng.integers(0, 2, n)
    scores = np.round(rng.normal(many / 150.0, 1.0), 2)
    frame = pd.DataFrame({"region": _groups(many), "sex": two})
    kw = {
        "sensitive_features": frame,
        "combine": "marginal",
        "domain": None,
        "min_group_size": 1,
    }
    for epsilon in (0.0, 0.1):
        lazy = mcdp_details(None, scores, epsilon=epsilon, **kw)
        eager = _eager(monkeypatch, None, scores, epsilon=epsilon, **kw)
        assert isinstance(lazy.pair_values, PairValues)
        assert lazy == eager
        assert len(lazy.pair_values) == 150 * 149 // 2 + 1


def test_worst_pair_is_the_first_of_tied_maxima():
    """Every pair of one-sample groups with distinct scores has MCDP(0) = 1:
    the first pair in pair order is the worst, found without a full scan."""
    n_groups = 300
    scores = np.linspace(0.01, 0.99, n_groups)
    engine = AllPairs(scores, np.arange(n_groups), n_groups)
    assert engine.worst_pair(0.0, "exact") == (1.0, 0, 1)
    evaluated = []

    def evaluate(a, b):
        evaluated.append(a.shape[0])
        return np.ones(a.shape[0])

    rows = [np.ones(n_groups)]
    assert first_largest_pair(n_groups, rows, 1.0, evaluate, block=1000) == (1.0, 0, 1)
    assert sum(evaluated) <= 1000  # stopped in the first block


def test_first_largest_pair_falls_back_when_the_best_is_rounded_away():
    """A ``best`` no pair reaches (rounded differently): every pair is scanned
    and the true largest and its first pair are returned."""
    n_groups = 50
    a, b = pair_codes(n_groups)
    values = 0.5 * np.random.default_rng(0).random(a.shape[0])
    values[[7, 100]] = 0.9  # tied maxima: the first (7) wins

    def evaluate(pa, pb):
        return values[pa * n_groups - pa * (pa + 1) // 2 + pb - pa - 1]

    loose = [np.full(n_groups, 0.6)]  # bounds that keep every pair
    assert first_largest_pair(n_groups, loose, 0.95, evaluate, block=100) == (
        0.9,
        int(a[7]),
        int(b[7]),
    )
    tight = [np.full(n_groups, 0.1)]  # wrong bounds rule out every pair
    assert first_largest_pair(n_groups, tight, 0.95, evaluate, block=100) == (
        0.9,
        int(a[7]),
        int(b[7]),
    )


def test_grouping_pairs_is_a_read_only_mapping():
    scores = np.round(np.random.default_rng(1).random(400), 2)
    codes = np.repeat(np.arange(100), 4)
    lazy = mcdp_details(
        None, scores, sensitive_features=_groups(codes), min_group_size=1
    )
    part = lazy.pair_values.parts[0]
    assert isinstance(part, GroupingPairs)
    assert len(part) == 4950 and ("other", "g0", "g1") not in part
    assert "4,950 pairs" in repr(lazy.pair_values)


@pytest.mark.parametrize("metric", ["abcc", "abpc"])
@pytest.mark.parametrize("weighted", [False, True])
def test_first_pair_reaching_is_the_first_worst_pair(metric, weighted):
    """The audit's ABCC/ABPC pair of many groups: the first pair (in pair
    order) within 1e-9 of the public value, against every pair's value."""
    from skfair.metrics import abcc, abpc
    from skfair.metrics._distribution import first_pair_reaching
    from skfair.utils._group_encoding import sensitive_groupings

    scores, groups, weights = _data(7, 110, 15, 3, weighted, 0.3)
    public = {"abcc": abcc, "abpc": abpc}[metric]
    params = {} if metric == "abcc" else {"method": "binned"}
    value = public(
        None,
        scores,
        sensitive_features=groups,
        sample_weight=weights,
        min_group_size=1,
        **params,
    )
    grouping = sensitive_groupings(groups, n_samples=scores.size, min_group_size=1)[0]
    found = first_pair_reaching(
        metric, scores, grouping.codes, grouping, value - 1e-9, weights, params
    )
    a, b = pair_codes(grouping.n_groups)
    if metric == "abcc":
        from skfair.metrics._kernels import area_steps, pairs_abcc, sort_scores

        steps, padded = area_steps(
            sort_scores(scores, grouping.codes, grouping.n_groups, weights)
        )
        every = pairs_abcc(steps, a, b, padded)
    else:
        from skfair.metrics._distribution import group_densities
        from skfair.metrics._kernels import pairs_l1

        dens, grid = group_densities(
            scores,
            weights,
            grouping.codes,
            grouping,
            "scott",
            5000,
            "binned",
            (0.0, 1.0),
        )
        every = pairs_l1(dens, a, b, grid)
    assert every.max() == pytest.approx(value, abs=1e-12)
    first = int(np.flatnonzero(every >= value - 1e-9)[0])
    assert found == (int(a[first]), int(b[first]))
    assert (
        first_pair_reaching(
            metric, scores, grouping.codes, grouping, value + 0.01, weights, params
        )
        is None
    )
    assert (
        first_pair_reaching(
            "abcc", scores, grouping.codes, grouping, value, weights, {"method": "grid"}
        )
        is NotImplemented
    )


@pytest.mark.parametrize(
    ("threshold", "method"), [(None, "welch"), (None, "newcombe"), (0.5, "newcombe")]
)
def test_delta_dp_bounds_of_the_worst_pair_by_blocks(threshold, method):
    """ΔDP's Welch/Newcombe bounds with agg="max", block by block (1,600
    groups: 1,279,200 pairs, two blocks): the maxima of every pair's bounds,
    to the last bit, without the arrays of every pair (issue 40)."""
    from skfair.metrics.inference._intervals import (
        GroupSummary,
        aggregate_bounds,
        delta_dp_pair_bounds,
    )

    rng = np.random.default_rng(3)
    k = 1600
    n = rng.integers(2, 40, k).astype(float)
    mean = rng.random(k)
    fields = {
        "n": n,
        "n_eff": n,
        "mean": mean,
        "se2": mean * (1 - mean) / n,
        "rate": rng.random(k),
    }
    extra = {
        f: np.zeros(k) for f in GroupSummary.__dataclass_fields__ if f not in fields
    }
    summary = GroupSummary(**fields, **extra)
    full = delta_dp_pair_bounds([summary], threshold, 0.05, method)
    blocks = delta_dp_pair_bounds([summary], threshold, 0.05, method, worst=True)
    assert full[0][0].shape[0] == k * (k - 1) // 2 and blocks[0][0].shape[0] == 2
    assert aggregate_bounds(*full, "max", 1.0) == aggregate_bounds(*blocks, "max", 1.0)


@pytest.mark.parametrize(
    ("metric", "params"),
    [("abpc", {}), ("abcc", {}), ("mcdp", {"metric_params": {"epsilon": 0.05}})],
)
def test_band_ends_by_blocks_equal_one_block(metric, params, monkeypatch):
    """The band interval of 120 groups (a band of groups): ABPC's ends over
    blocks of 997 pairs or over all 7,140 pairs at once (the arrays of every
    pair, as before); MCDP's and ABCC's from the pairs the pivots keep, or
    from every pair in blocks: the same bounds, to the last bit (issue 40)."""
    from skfair.metrics import metric_confidence_interval
    from skfair.metrics._kernels import _pivots as pivots
    from skfair.metrics.inference import _bounds

    scores, groups, _ = _data(11, 120, 15, 3, False, 0.3)
    kw = {
        "sensitive_features": groups,
        "metric": metric,
        "method": "band",
        "n_resamples": 39,
        "min_group_size": 1,
        "random_state": 0,
        **params,
    }
    whole = metric_confidence_interval(None, scores, **kw)
    calls = []

    def small_blocks(n):
        calls.append(n)
        return pivots.pair_blocks(n, block=997)

    monkeypatch.setattr(_bounds, "pair_blocks", small_blocks)
    blocks = metric_confidence_interval(None, scores, **kw)
    assert (blocks.low, blocks.high) == (whole.low, whole.high)
    assert np.isfinite(whole.high)
    if metric == "abpc":
        assert calls  # the path under test ran
        return
    # MCDP and ABCC: the pivots' kept pairs alone (no array of every pair),
    # against every pair's value taken block by block without the pivots
    assert not calls
    monkeypatch.setattr(pivots, "_MIN_GROUPS", 10**9)
    every = metric_confidence_interval(None, scores, **kw)
    assert calls
    assert (every.low, every.high) == (whole.low, whole.high)
