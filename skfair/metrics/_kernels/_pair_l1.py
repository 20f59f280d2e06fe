"""The L1 distance of every pair of densities on a grid, or only the largest.

ABPC of a pair is the trapezoid integral of ``|f_a - f_b|`` over the grid's
points (5,000 by default): over every pair of ``G`` groups that is
``G^2 / 2`` rows of the grid, half a million rows (2.5e9 cells) at 1,000
groups. With ``agg="max"`` only the pairs that may attain the largest value
need their row: :func:`pair_l1_bounds` bounds every pair by a projection of
the densities on ``_N_CELLS`` coarse cells (a cost of 64 cells a pair instead
of 5,000 points), :func:`worst_l1` evaluates the pairs, a block at a time,
in decreasing order of the upper bound until none can beat the best value
found, and
:func:`pair_l1_values` keeps exact only the pairs that may attain the
largest ``value + offset`` (an interval's ends).

The exact rows are computed as :func:`numpy.trapezoid` computes them (one
row per pair, a reduction along the contiguous last axis), so a value does
not depend on which other pairs are evaluated with it: the largest value is
the one of the full evaluation, to the last bit.
"""

from __future__ import annotations

import numpy as np

from ._pivots import (
    pivot_row,
    pivot_rows,
    surviving_pairs,
    triangle_floor,
    use_pivots,
)

# Elements (pairs x points, or pairs x cells) of one vectorised block of pairs.
_BLOCK = 1 << 21
# Cells of the coarse projection behind the bounds.
_N_CELLS = 64
# Below this many pairs every pair is evaluated (the bounds cost more).
_MIN_PAIRS = 64
# Relative and absolute slack of the bounds (sums in another order).
_SUM_SLACK = 1e-9


def pairs_l1(densities, a, b, grid):
    """``np.trapezoid(|f_a - f_b|, grid)`` of pairs ``(a, b)``, block by block."""
    step = max(1, _BLOCK // max(grid.shape[0], 1))
    out = np.empty(a.shape[0])
    for start in range(0, a.shape[0], step):
        block = slice(start, start + step)
        gaps = np.abs(densities[a[block]] - densities[b[block]])
        out[block] = np.trapezoid(gaps, grid, axis=1)
    return out


def pair_l1_bounds(densities, grid, a, b):
    """Lower and upper bounds of the pairs' trapezoid L1, from coarse cells.

    The trapezoid rule is a weighted L1 norm ``sum_i t_i |d_i|``; with ``P``
    the weighted average on each cell, ``|P f_a - P f_b| <= |f_a - f_b| <=
    |P f_a - P f_b| + |f_a - P f_a| + |f_b - P f_b|`` (the first as ``P`` is
    an averaging, the second the triangle inequality), and ``|P f_a - P
    f_b| = sum_c |S_a,c - S_b,c|`` with ``S`` the cells' weighted sums. Both
    widened by a relative and absolute ``_SUM_SLACK`` (the trapezoid sums
    round differently).
    """
    return _bounds_of(_coarse_cells(densities, grid), a, b)


def _coarse_cells(densities, grid):
    """``(sums, residual)`` of :func:`pair_l1_bounds`: once per set of densities."""
    dx = np.diff(grid)
    t = np.zeros(grid.shape[0])
    t[:-1] += dx / 2.0
    t[1:] += dx / 2.0
    cuts = np.unique(np.linspace(0, grid.shape[0], _N_CELLS + 1).astype(np.intp))
    sums = np.add.reduceat(densities * t, cuts[:-1], axis=1)
    totals = np.add.reduceat(t, cuts[:-1])
    cell_of = np.repeat(np.arange(cuts.shape[0] - 1), np.diff(cuts))
    means = sums / totals
    residual = (np.abs(densities - means[:, cell_of]) * t).sum(axis=1)
    return sums, residual


def _bounds_of(coarse, a, b):
    """:func:`pair_l1_bounds` of the pairs ``(a, b)`` from :func:`_coarse_cells`."""
    sums, residual = coarse
    lower, upper = np.empty(a.shape[0]), np.empty(a.shape[0])
    step = max(1, _BLOCK // sums.shape[1])
    for start in range(0, a.shape[0], step):
        pa, pb = a[start : start + step], b[start : start + step]
        coarse = np.abs(sums[pa] - sums[pb]).sum(axis=1)
        lower[start : start + step] = coarse
        upper[start : start + step] = coarse + residual[pa] + residual[pb]
    return (
        lower * (1.0 - _SUM_SLACK) - _SUM_SLACK,
        upper * (1.0 + _SUM_SLACK) + _SUM_SLACK,
    )


def _largest_from(best, densities, a, b, upper, grid):
    """``max(best, pairs_l1 of (a, b))``, evaluating the pairs by bound.

    In decreasing order of the upper bounds ``upper``, in batches growing
    fourfold from one pair, until no bound exceeds the best value found.
    """
    per_batch = max(1, _BLOCK // grid.shape[0])
    order = np.argsort(-upper, kind="stable")
    i, batch = 0, 1
    while i < order.shape[0] and upper[order[i]] > best:
        stop = min(order.shape[0], i + min(batch, per_batch))
        rows = order[i:stop]
        best = max(best, float(np.max(pairs_l1(densities, a[rows], b[rows], grid))))
        i, batch = stop, 4 * batch
    return best


def worst_l1(densities, grid, block=1 << 20):
    """The largest trapezoid L1 over every pair of ``densities``' rows.

    ``max(pairs_l1(...))`` of every pair, without an array over them (16
    bytes a pair for the codes and 24 for the bounds: 2 GB at 10,000
    groups): the pivots' rows give a first best (and triangle bounds), and
    the pairs are bounded ``block`` at a time (lexicographic order) by the
    coarse cells, computed once; a block's pairs whose upper bound exceeds
    the best value so far are evaluated by :func:`_largest_from`. The
    same float as ``pairs_l1`` of every pair's maximum.
    """
    n_groups = densities.shape[0]
    if n_groups * (n_groups - 1) // 2 < _MIN_PAIRS:
        a, b = np.triu_indices(n_groups, 1)
        return float(np.max(pairs_l1(densities, a, b, grid)))
    best, rows = -np.inf, None
    if use_pivots(n_groups):

        def row_of(g):  # the trapezoid L1 of densities is a metric
            row = pivot_row(n_groups, g, lambda x, y: pairs_l1(densities, x, y, grid))
            return row, row

        _, rows, values = pivot_rows(n_groups, row_of)
        best = max(float(np.max(value)) for value in values)
    coarse = _coarse_cells(densities, grid)
    floor = -np.inf if rows is None else triangle_floor(best)
    for a, b in surviving_pairs(n_groups, rows, floor, block):
        upper = _bounds_of(coarse, a, b)[1]
        keep = np.flatnonzero(upper > best)
        if keep.shape[0]:
            best = _largest_from(best, densities, a[keep], b[keep], upper[keep], grid)
    return best


def pair_l1_values(densities, a, b, grid, offsets):
    """Pair values exact where they may attain ``max(value + offset)``.

    ``offsets``: arrays (one number per pair; infinite allowed) or scalars.
    The pairs that cannot attain the largest ``value + offset`` for any of
    them get a lower bound of their value (at least 0) instead of the value,
    so that ``max(values + offset)`` is the one of the exact values, for
    every offset given: the maxima of an interval's ends ``v - h`` and ``v +
    h`` over the pairs, with every pair evaluated only in the worst case.
    """
    if a.shape[0] < _MIN_PAIRS:
        return pairs_l1(densities, a, b, grid)
    lower, upper = pair_l1_bounds(densities, grid, a, b)
    wanted = np.zeros(a.shape[0], dtype=bool)
    for offset in offsets:
        reach = np.max(lower + offset)  # the largest is at least this
        wanted |= upper + offset >= reach
    out = np.maximum(lower, 0.0)
    rows = np.flatnonzero(wanted)
    out[rows] = pairs_l1(densities, a[rows], b[rows], grid)
    return out
