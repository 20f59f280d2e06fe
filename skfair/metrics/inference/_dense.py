"""Resampled statistics from dense tables: few groups' CDFs, every group's KDE.

With few groups a table of every group's CDF at every distinct score (the
groups' steps, each value repeated to the next step) gives MCDP(0) and ABCC
of any pair by one pass over the scores, which beats merging the pair's steps
(:func:`~skfair.metrics._kernels.merged_gaps`) for the handful of pairs
that :func:`worst_from_table` evaluates: pairs are taken in decreasing order
of an upper bound from a coarse partition of the scores, and the pairs whose
bound is below the best value found are never evaluated.

ABPC of a permutation (:func:`abpc_statistic`) is the public function's
computation (each group's bandwidth and binned KDE, the trapezoid L1 of
every pair) on the relabelled sorted scores, without revalidating them; its
pairs are pruned the same way, by a coarse projection of the densities.

The values are those of the one-sort engine (the CDFs bit for bit); the
bounds hold for the values as computed in floating point.
"""

from __future__ import annotations

import numpy as np
from scipy import fft as sp_fft

from .._base import UNIT_DOMAIN, check_domain
from .._kernels import (
    MAX_FINE_GRID,
    TRUNCATE,
    binned_kde,
    direct_kde,
    fine_grid,
    kde_bandwidth,
    kde_grid,
    linear_bins,
    pair_codes,
    pairs_l1,
    worst_l1,
)

#: Largest dense CDF table (groups x distinct scores) of :func:`cdf_table`.
DENSE_CELLS = 1 << 23
# Cells of the coarse partitions behind the bounds.
_N_CELLS = 1024
# Elements of one block of pairs (pairs x points).
_BLOCK = 1 << 21
# Fine-grid cells (groups x points) of one batch of binned KDEs: the FFTs of
# a batch hold a few arrays of twice this size (1,000 groups at once held
# about 400 MB); each row's transform is its own, whatever the batch.
_FFT_BATCH_CELLS = 1 << 20
# Relative and absolute slack of the bounds of sums (summation order).
_SUM_SLACK = 1e-9


def cdf_table(steps, n_points, pad_left):
    """Every group's CDF at every distinct score: (n_groups, n_points).

    From the groups' steps (:class:`~skfair.metrics._kernels.GroupSteps`,
    float CDFs, point indices into the scores padded with ``pad_left``
    leading points): each step's value repeated up to the next step, so the
    values are the steps' own.
    """
    rows = np.zeros((steps.n_groups, n_points))
    for g in range(steps.n_groups):
        lo, hi = steps.bounds[g], steps.bounds[g + 1]
        at = steps.points[lo:hi] - pad_left
        if at.shape[0]:
            lengths = np.diff(np.append(at, n_points))
            rows[g, at[0] :] = np.repeat(steps.values[lo:hi], lengths)
    return rows


def _evaluate(rows, widths, a, b, metric):
    """MCDP(0) (``"mcdp"``) or ABCC (``"abcc"``) of pairs ``(a, b)`` from the table.

    One pair at a time in one reused buffer (no pairs x points copies).
    """
    out = np.empty(a.shape[0])
    gap = np.empty(rows.shape[1])
    area = np.empty(rows.shape[1] - 1)
    for i in range(a.shape[0]):
        np.abs(np.subtract(rows[a[i]], rows[b[i]], out=gap), out=gap)
        if metric == "mcdp":
            out[i] = gap.max()
        else:
            out[i] = np.multiply(gap[:-1], widths, out=area).sum()
    return out


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
    L1 of every pair, aggregated by ``agg``), on data already validated; the
    binned KDEs of all groups at once (:func:`_binned_kdes`). Raises
    :class:`~skfair.metrics._kernels.DegenerateGroupError` for a group
    without spread.
    """
    small = codes.astype(np.int16) if n_groups < 1 << 15 else codes
    order = np.argsort(small, kind="stable")  # a radix sort for int16
    starts = np.searchsorted(small[order], np.arange(n_groups + 1))
    groups = [order[starts[g] : starts[g + 1]] for g in range(n_groups)]
    bw_method = options.get("bw_method", "scott")
    bandwidths = [
        kde_bandwidth(
            scores[at], None if weights is None else weights[at], bw_method, label=g
        )
        for g, at in enumerate(groups)
    ]
    grid = abpc_grid(scores, codes, weights, bandwidths, options)
    if options.get("method") == "direct":
        densities = np.stack(
            [
                direct_kde(
                    scores[at], None if weights is None else weights[at], h, grid
                )
                for at, h in zip(groups, bandwidths)
            ]
        )
    else:
        densities = _binned_kdes(scores, weights, groups, bandwidths, grid)
    if options.get("agg", "max") == "mean":
        return float(np.mean(pairs_l1(densities, *pair_codes(n_groups), grid)))
    return worst_l1(densities, grid)


def abpc_grid(scores, codes, weights, bandwidths, options):
    """ABPC's grid for ``options["domain"]`` (see :func:`~skfair.metrics.abpc`).

    The compared scores (``codes >= 0``) of positive weight give the range
    of ``domain=None``.
    """
    domain = check_domain(options.get("domain", UNIT_DOMAIN))
    observed = codes >= 0
    if weights is not None:
        observed &= weights > 0
    n_points = int(options.get("n_points", 5000))
    return kde_grid(domain, scores[observed], bandwidths, n_points)


def _binned_kdes(scores, weights, groups, bandwidths, grid):
    """:func:`~skfair.metrics._kernels.binned_kde` of every group, batched.

    The same linear binning and Gaussian kernel (truncated at 8 bandwidths)
    on each group's fine grid; the groups sharing a fine grid are binned by
    one ``bincount`` and convolved by one batched real FFT (a circular
    convolution long enough not to wrap). Groups whose fine grid is huge
    (tiny bandwidths) take ``binned_kde`` itself.
    """
    n_points = grid.shape[0]
    out = np.empty((len(groups), n_points))
    fine = {}
    for g, h in enumerate(bandwidths):
        _, refine, n_fine = fine_grid(n_points, h, grid[-1] - grid[0])
        if n_fine > MAX_FINE_GRID:
            at = groups[g]
            w = None if weights is None else weights[at]
            out[g] = binned_kde(scores[at], w, h, grid)
        else:
            fine.setdefault(refine, []).append(g)
    for refine, members in fine.items():
        per_batch = max(1, _FFT_BATCH_CELLS // (n_points * refine))
        for lo in range(0, len(members), per_batch):  # memory: a block of rows
            part = members[lo : lo + per_batch]
            batch = [groups[g] for g in part]
            h = [bandwidths[g] for g in part]
            out[part] = _binned_batch(scores, weights, batch, h, refine, grid)
    return out


def _binned_batch(scores, weights, groups, bandwidths, refine, grid):
    """The binned KDEs of ``groups`` (of one fine grid): (n_groups, n_points)."""
    n_points = grid.shape[0]
    spacing = (grid[-1] - grid[0]) / (n_points - 1)
    step, n_fine = spacing / refine, (n_points - 1) * refine + 1
    at = np.concatenate(groups)
    sizes = np.array([g.shape[0] for g in groups])
    row = np.repeat(np.arange(len(groups)), sizes)
    if weights is None:
        w = np.repeat(1.0 / sizes, sizes)
    else:
        w = weights[at] / np.repeat(np.bincount(row, weights[at]), sizes)
    left, frac = linear_bins(scores[at], step, n_fine, grid[0])
    left += row * (n_fine + 1)
    size = len(groups) * (n_fine + 1)
    binned = np.bincount(left, weights=w * (1.0 - frac), minlength=size)
    binned += np.bincount(left + 1, weights=w * frac, minlength=size)
    binned = binned.reshape(len(groups), n_fine + 1)[:, :n_fine]
    h = np.asarray(bandwidths, dtype=np.float64)
    halves = np.ceil(TRUNCATE * h / step).astype(np.intp)
    length = sp_fft.next_fast_len(n_fine + int(halves.max()), real=True)
    kernels = np.zeros((len(groups), length))
    for k, (half, bandwidth) in enumerate(zip(halves, h)):
        offsets = np.arange(-half, half + 1) * (step / bandwidth)
        kernels[k, np.arange(-half, half + 1) % length] = np.exp(-0.5 * offsets**2)
    spectrum = sp_fft.rfft(binned, length, axis=1) * sp_fft.rfft(kernels, axis=1)
    smooth = sp_fft.irfft(spectrum, length, axis=1)[:, :n_fine:refine]
    density = smooth / (h[:, None] * np.sqrt(2.0 * np.pi))
    return np.maximum(density, 0.0)
