"""Tests for the barycentre engine: quantile tables, CDF bounds, transport."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skfair.postprocessing._barycentre import (
    _cdf_bounds,
    _weighted_quantiles,
    fit_quantile_tables,
    transport,
)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
        min_size=1,
        max_size=40,
    )
)
def test_weighted_quantiles_are_hazen_quantiles(values):
    values = np.asarray(values)
    n = values.size
    levels = np.linspace(0.5 / n, 1 - 0.5 / n, 25) if n > 1 else np.array([0.5])
    got = _weighted_quantiles(values, np.ones(n), levels)
    expected = np.quantile(values, levels, method="hazen")
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
    # constant outside the first and last plotting positions
    outside = _weighted_quantiles(values, np.ones(n), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(outside, [values.min(), values.max()])


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-10, 10, allow_nan=False), st.integers(0, 4)),
        min_size=1,
        max_size=20,
    ).filter(lambda pairs: sum(w for _, w in pairs) > 0)
)
def test_integer_weights_equal_repeated_samples(pairs):
    values = np.array([v for v, _ in pairs])
    weights = np.array([w for _, w in pairs], dtype=float)
    levels = np.linspace(0, 1, 101)
    weighted = _weighted_quantiles(values, weights, levels)
    repeated = np.repeat(values, weights.astype(int))
    expected = _weighted_quantiles(repeated, np.ones(repeated.size), levels)
    np.testing.assert_allclose(weighted, expected, rtol=1e-12, atol=1e-12)


def test_cdf_bounds_invert_a_strictly_increasing_table():
    levels = np.linspace(0, 1, 11)
    table = np.cumsum(np.random.default_rng(0).uniform(0.1, 1, 11))
    left, right = _cdf_bounds(table, levels, table)
    np.testing.assert_allclose(left, levels)
    np.testing.assert_array_equal(left, right)
    mid = (table[:-1] + table[1:]) / 2
    left, right = _cdf_bounds(table, levels, mid)
    np.testing.assert_allclose(left, np.interp(mid, table, levels))
    left, _ = _cdf_bounds(table, levels, np.array([table[0] - 1, table[-1] + 1]))
    np.testing.assert_array_equal(left, [0.0, 1.0])


def test_cdf_bounds_of_atoms_span_their_levels():
    levels = np.linspace(0, 1, 6)  # 0, .2, .4, .6, .8, 1
    table = np.array([0.0, 1.0, 1.0, 1.0, 2.0, 3.0])
    left, right = _cdf_bounds(table, levels, np.array([1.0, 0.5, 2.5]))
    np.testing.assert_allclose(left, [0.2, 0.1, 0.9])
    np.testing.assert_allclose(right, [0.6, 0.1, 0.9])


def test_quantile_tables_weights_groups_and_barycentre():
    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.normal(0, 1, 300), rng.normal(2, 1, 100)])
    codes = np.repeat([0, 1], [300, 100])
    codes[:10] = -1  # a left-out group: in the pooled table only
    weights = np.ones(400)
    weights[codes == 1] = 0.0  # a group of weight 0 gets no table
    codes = np.concatenate([codes, [2] * 50])
    scores = np.concatenate([scores, rng.normal(-1, 1, 50)])
    weights = np.concatenate([weights, np.ones(50)])
    fitted = fit_quantile_tables(
        scores, codes, n_groups=3, weights=weights, n_quantiles=101, smoothing=0.0
    )
    np.testing.assert_array_equal(fitted.groups, [0, 2])
    np.testing.assert_allclose(fitted.weights, [290 / 340, 50 / 340])
    np.testing.assert_allclose(
        fitted.tables[1],
        _weighted_quantiles(scores[codes == 2], np.ones(50), fitted.levels),
    )
    np.testing.assert_allclose(fitted.barycentre, fitted.weights @ fitted.tables)
    np.testing.assert_allclose(
        fitted.pooled, _weighted_quantiles(scores, weights, fitted.levels)
    )


def test_transport_spreads_an_atom_over_its_jump():
    levels = np.linspace(0, 1, 6)  # 0, .2, .4, .6, .8, 1
    table = np.array([0.0, 1.0, 1.0, 1.0, 2.0, 3.0])  # atom at 1 on [.2, .6]
    barycentre = levels * 10.0  # Q̄(u) = 10 u
    scores = np.array([1.0, 1.0, 1.0, 2.5, 9.0])
    index = np.array([0, 0, 0, 0, -1])  # the last row keeps its score
    jitter = np.array([0.0, 0.5, 1.0, 0.3, 0.3])
    out = transport(
        scores,
        index,
        tables=[table],
        levels=levels,
        barycentre=barycentre,
        jitter=jitter,
    )
    np.testing.assert_allclose(out, [2.0, 4.0, 6.0, 9.0, 9.0])
