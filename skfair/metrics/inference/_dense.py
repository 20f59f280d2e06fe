"""Resampled statistics from dense tables: few groups' CDFs, every group's KDE.

With few groups a table of every group's CDF at every distinct score (one
masked cumulative sum per group) gives MCDP(0) and ABCC of any pair by one
pass over the scores, which beats merging the pair's steps
(:func:`~skfair.metrics._kernels.merged_gaps`) for the handful of pairs
that :func:`worst_from_table` evaluates: pairs are taken in decreasing order
of an upper bound from a coarse partition of the scores, and the pairs whose
bound is below the best value found are never evaluated.

ABPC of a permutation (:func:`abpc_statistic`) is the public function's
computation (each group's bandwidth and binned KDE, the trapezoid L1 of
every pair) on the relabelled sorted scores, without revalidating them; its
pairs are pruned the same way, by a coarse projection of the densities.

The values are those of the one-sort engine (for the CDFs, bit for bit:
adding the zero weights of other groups changes no partial sum); the
bounds hold for the values as computed in floating point.
"""

from __future__ import annotations

import numpy as np

from .._kernels import binned_kde, direct_kde, kde_bandwidth, pair_codes

#: Largest dense CDF table (groups x distinct scores) of :func:`cdf_table`.
DENSE_CELLS = 1 << 23
# Cells of the coarse partitions behind the bounds.
_N_CELLS = 1024
_N_KDE_CELLS = 64
# Elements of one block of pairs (pairs x points).
_BLOCK = 1 << 21
# Relative and absolute slack of the bounds of sums (summation order).
_SUM_SLACK = 1e-9


def cdf_table(codes, w_pos, n_groups, ends):
    """Every group's CDF at every distinct score: (n_groups, n_points).

    ``codes`` (group per sorted sample, -1 in none), ``w_pos`` (weight per
    sorted sample), ``ends`` (the last sample of each distinct score, None
    when all are distinct). The CDF is the running sum of the group's
    weights in score order over its total, as
    :func:`~skfair.metrics._kernels.group_steps` computes it.
    """
    n_points = codes.shape[0] if ends is None else ends.shape[0]
    rows = np.empty((n_groups, n_points))
    masked = np.empty(codes.shape[0])
    for g in range(n_groups):
        np.multiply(w_pos, codes == g, out=masked)
        cum = np.cumsum(masked, out=masked)
        rows[g] = cum if ends is None else cum[ends]
        rows[g] /= cum[-1]
    return rows


def _evaluate(rows, widths, a, b, metric):
    """MCDP(0) (``"mcdp"``) or ABCC (``"abcc"``) of pairs ``(a, b)`` from the table."""
    gap = np.abs(rows[a] - rows[b])
    if metric == "mcdp":
        return gap.max(axis=1)
    return np.multiply(gap[:, :-1], widths).sum(axis=1)


def _table_bounds(rows, points, a, b, metric):
    """Upper bounds of MCDP(0) or ABCC of pairs, from a coarse partition.

    On a cell of points ``[c_i, c_{i+1})`` each CDF lies between its values
    at the cell's ends, so the gap's magnitude is at most ``max(hi_a - lo_b,
    hi_b - lo_a)`` (in the arithmetic of the gap itself).
    """
    m = points.shape[0]
    n_cells = min(_N_CELLS, m, max(16, _BLOCK // max(a.shape[0], 1)))
    cuts = np.unique(np.linspace(0, m, n_cells + 1).astype(np.intp))
    lo, hi = rows[:, cuts[:-1]], rows[:, cuts[1:] - 1]
    width = points[np.minimum(cuts[1:], m - 1)] - points[cuts[:-1]]
    out = np.empty(a.shape[0])
    step = max(1, _BLOCK // width.shape[0])
    for start in range(0, a.shape[0], step):
        pa, pb = a[start : start + step], b[start : start + step]
        up = np.maximum(hi[pa] - lo[pb], hi[pb] - lo[pa])
        if metric == "mcdp":
            out[start : start + step] = up.max(axis=1)
        else:
            area = np.multiply(up, width).sum(axis=1)
            out[start : start + step] = area * (1.0 + _SUM_SLACK) + _SUM_SLACK
    return out


def _worst(bounds, evaluate, per_batch):
    """``max(evaluate(every pair))``, evaluating pairs by decreasing ``bounds``.

    Batches grow fourfold from one pair (at most ``per_batch``); the pairs
    whose bound is at most the best value found are never evaluated.
    """
    order = np.argsort(-bounds, kind="stable")
    best, i, batch = -np.inf, 0, 1
    while i < order.shape[0] and bounds[order[i]] > best:
        stop = min(order.shape[0], i + min(batch, per_batch))
        best = max(best, float(np.max(evaluate(order[i:stop]))))
        i, batch = stop, 4 * batch
    return best


def worst_from_table(rows, points, metric):
    """MCDP(0) or ABCC of the worst pair of groups, from :func:`cdf_table`.

    The maximum over every pair; ``points`` are the distinct scores.
    """
    a, b = pair_codes(rows.shape[0])
    widths = np.diff(points)
    bounds = _table_bounds(rows, points, a, b, metric)
    return _worst(
        bounds,
        lambda i: _evaluate(rows, widths, a[i], b[i], metric),
        max(1, _BLOCK // points.shape[0]),
    )


# -- ABPC ----------------------------------------------------------------------
def abpc_statistic(scores, codes, weights, n_groups, options):
    """ABPC of the groups ``codes`` of ``scores`` (samples in any order).

    The public function's computation for ``method="binned"`` or
    ``"direct"`` (each group's bandwidth, its KDE on the grid, the trapezoid
    L1 of every pair, aggregated by ``agg``), on data already validated.
    Raises :class:`~skfair.metrics._kernels.DegenerateGroupError` for a
    group without spread.
    """
    n_points = int(options.get("n_points", 5000))
    grid = np.linspace(0.0, 1.0, n_points)
    kde = direct_kde if options.get("method") == "direct" else binned_kde
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(n_groups + 1))
    densities = np.empty((n_groups, n_points))
    for g in range(n_groups):
        at = order[starts[g] : starts[g + 1]]
        x, w = scores[at], None if weights is None else weights[at]
        bandwidth = kde_bandwidth(x, w, options.get("bw_method", "scott"), label=g)
        densities[g] = kde(x, w, bandwidth, grid)
    a, b = pair_codes(n_groups)
    if options.get("agg", "max") == "mean":
        return float(np.mean(_pairs_l1(densities, a, b, grid)))
    bounds = _kde_bounds(densities, grid, a, b)
    return _worst(
        bounds,
        lambda i: _pairs_l1(densities, a[i], b[i], grid),
        max(1, _BLOCK // n_points),
    )


def _pairs_l1(densities, a, b, grid):
    """``np.trapezoid(|f_a - f_b|, grid)`` of pairs, block by block."""
    step = max(1, _BLOCK // grid.shape[0])
    out = np.empty(a.shape[0])
    for start in range(0, a.shape[0], step):
        block = slice(start, start + step)
        gaps = np.abs(densities[a[block]] - densities[b[block]])
        out[block] = np.trapezoid(gaps, grid, axis=1)
    return out


def _kde_bounds(densities, grid, a, b):
    """Upper bounds of the pairs' trapezoid L1, by a projection on coarse cells.

    The trapezoid rule is a weighted L1 norm ``sum_i t_i |d_i|``; with ``P``
    the weighted average on each cell, ``|f_a - f_b| <= |P f_a - P f_b| +
    |f_a - P f_a| + |f_b - P f_b|`` (triangle inequality), and ``|P f_a - P
    f_b| = sum_c |S_a,c - S_b,c|`` with ``S`` the cells' weighted sums.
    """
    dx = np.diff(grid)
    t = np.zeros(grid.shape[0])
    t[:-1] += dx / 2.0
    t[1:] += dx / 2.0
    cuts = np.unique(np.linspace(0, grid.shape[0], _N_KDE_CELLS + 1).astype(np.intp))
    sums = np.add.reduceat(densities * t, cuts[:-1], axis=1)
    totals = np.add.reduceat(t, cuts[:-1])
    cell_of = np.repeat(np.arange(cuts.shape[0] - 1), np.diff(cuts))
    means = sums / totals
    residual = (np.abs(densities - means[:, cell_of]) * t).sum(axis=1)
    out = np.empty(a.shape[0])
    step = max(1, _BLOCK // sums.shape[1])
    for start in range(0, a.shape[0], step):
        pa, pb = a[start : start + step], b[start : start + step]
        coarse = np.abs(sums[pa] - sums[pb]).sum(axis=1)
        out[start : start + step] = coarse + residual[pa] + residual[pb]
    return out * (1.0 + _SUM_SLACK) + _SUM_SLACK
