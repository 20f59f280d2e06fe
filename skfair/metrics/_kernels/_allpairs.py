"""Every pair of groups at once: the pairs' CDF gaps from one sort, vectorised.

A group's ECDF steps only at its own scores, so the gap ``F_a - F_b`` of a
pair steps only at the scores of ``a`` and ``b``. On that *merged support*
(plus the first and last point) the gap is the same step function as on all
the distinct scores, with the same floating-point values, so every metric of
the pair is a pass over ``n_a + n_b`` points rather than over all of them,
and all pairs together over ``(n_groups - 1) * n`` points rather than
``n_pairs * n``. The passes here are vectorised over many pairs at once: the
pairs' supports are laid end to end in one flat array (a *segment* per pair),
in batches of at most ``_CHUNK`` points.

With ``agg="max"`` most pairs need not be evaluated at all:
:func:`max_over_pairs` evaluates pairs in decreasing order of a cheap upper
bound and stops when no remaining bound exceeds the best value found. The
bounds (:func:`cell_bounds`, :func:`grid_bounds`) hold for the values as
computed in floating point (or in integers), so the maximum is the one of
the full evaluation, to the last bit.

Exactness
---------
MCDP(ε) of a pair, evaluated on the merged support, equals the value on all
the scores: the best window can always start at a point where the gap steps
(a window starting between two steps contains the window starting at the
step before it, since window ends are non-decreasing in the start), and the
window minima are minima of the same floating-point gap values. The first
and last point (the padding 0 and 1 when the scores lie inside [0, 1]) are
kept in every support. The windows are clipped to a domain ``[lo, hi]``
holding every score (``(0, 1)`` by default): the neighbourhood ``[lo, lo +
ε]`` of its lower end counts where ``lo`` is a score of the pair (else the
gap is 0 at ``lo``), and windows that reach ``hi`` reach the largest score,
where the gap is 0, so clipping them changes nothing. ABCC sums the same
terms grouped differently (rounding at the level of 1e-15 relative).
"""

from __future__ import annotations

import functools

import numpy as np

from ._ecdf import pair_codes, run_ends
from ._pivots import first_largest_pair, pivot_cut, pivot_row, pivot_rows, use_pivots
from ._windows import left_window, window_ends

# Points of merged supports (summed over the pairs of one batch) per batch.
_CHUNK = 1 << 21
# Cells of the coarse partition behind the MCDP(0) and ABCC bounds, and of
# the first cut that many pairs take (the pairs evaluated after it, and the
# fewest pairs it is made for).
_N_CELLS = 256
_COARSE_CELLS = 16
_FIRST_PAIRS = 256
_COARSE_MIN_PAIRS = 4096
# Grid points per ε of the MCDP(ε) bound, and the most grid points used.
_GRID_PER_EPSILON = 8
_MAX_GRID = 4096
# The grid of the MCDP(ε) bound needs a step this far above the rounding of
# its points (relative to the domain's ends).
_GRID_ROUNDING = 1e-9
# Relative slack on the ABCC bounds (floating-point sums in another order).
_SUM_SLACK = 1e-9
# Points within this of the largest swept gap give candidate pairs (the sweep's
# sums are rounded differently from the pairs' own gaps).
_SWEEP_SLACK = 1e-9
# Largest dense table (groups x points) of CDF positions in merged_gaps.
_DENSE_CELLS = 1 << 22


class GroupSteps:
    """Every group's CDF where it steps, for one grouping (and one resample).

    Attributes
    ----------
    points : ndarray of shape (n_steps,)
        Point index (into the padded distinct scores) of each step, group by
        group, increasing within a group.
    values : ndarray of shape (n_steps,)
        The CDF after each step: ``cum / total`` (float) or, with
        ``exact=True``, the integer count ``cum``.
    bounds : ndarray of shape (n_groups + 1,)
        Group ``g``'s steps are ``bounds[g]:bounds[g + 1]``.
    totals : ndarray of shape (n_groups,)
        Each group's total weight (count).
    n_points : int
        Number of (padded) points.
    exact : bool
        Whether ``values`` are integer counts: gaps are then the exact
        numerators ``c_a n_b - c_b n_a`` of :class:`~._ecdf.PairGap`.
    """

    def __init__(self, points, values, bounds, totals, n_points, exact):
        self.points, self.values, self.bounds = points, values, bounds
        self.totals, self.n_points, self.exact = totals, n_points, exact
        self.cache = {}  # bounds of this grouping's pairs (see cell_bounds)
        self.n_groups = bounds.shape[0] - 1
        self.stride = np.int64(n_points + 1)
        group = np.repeat(np.arange(self.n_groups, dtype=np.int64), np.diff(bounds))
        self.keys = group * self.stride + points

    def at(self, groups, points):
        """Each group's CDF value (or count) at point indices (broadcast)."""
        groups = np.asarray(groups, dtype=np.int64)
        j = np.searchsorted(self.keys, groups * self.stride + points, side="right") - 1
        found = j >= self.bounds[groups]
        return np.where(found, self.values[np.maximum(j, 0)], 0)

    def gap(self, a, b, points):
        """``F_a - F_b`` at point indices (the numerator with ``exact``)."""
        fa, fb = self.at(a, points), self.at(b, points)
        if self.exact:
            return fa * self.totals[b] - fb * self.totals[a]
        return fa - fb

    def scale(self, a, b):
        """What the gaps of pairs ``(a, b)`` are divided by (1 unless ``exact``)."""
        if self.exact:
            return self.totals[a].astype(np.float64) * self.totals[b]
        return np.ones(np.shape(a))


def group_steps(point_of, codes, n_groups, n_points, weights=None, integral=True):
    """:class:`GroupSteps` of samples sorted by score.

    Parameters
    ----------
    point_of : ndarray of shape (n,)
        Non-decreasing (padded) point index of each sorted sample.
    codes : ndarray of shape (n,)
        Group code of each sorted sample (-1: in no group).
    n_groups, n_points : int
    weights : ndarray of shape (n,) or None
        None: unit weights, and the exact integer representation. Otherwise
        the CDFs are ``cum / total`` with ``cum`` the running sum of the
        group's weights in score order, as ``np.cumsum`` adds them.
    integral : bool
        Whether the weights are integers (bootstrap counts): any order of
        summation is then exact, and one cumulative sum serves all groups.
    """
    keep = codes >= 0
    small = codes[keep].astype(np.int16) if n_groups < 1 << 15 else codes[keep]
    order = np.argsort(small, kind="stable")  # a radix sort for int16
    group = codes[keep][order]
    at = point_of[keep][order].astype(np.int64)
    bounds = np.searchsorted(group, np.arange(n_groups + 1))
    first = np.repeat(bounds[:-1], np.diff(bounds))
    if weights is None:
        cum = np.arange(1, group.shape[0] + 1, dtype=np.int64) - first
    elif integral:
        cum = np.cumsum(weights[keep][order])
        cum -= np.r_[0.0, cum][first]  # integer-valued floats: exact
    else:  # np.cumsum's order within each group, as a masked cumsum gives
        w = weights[keep][order]
        cum = np.concatenate(
            [np.cumsum(w[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]
        )
    # the last sample of each (group, point) is the step
    last = np.ones(group.shape[0], dtype=bool)
    last[:-1] = (group[1:] != group[:-1]) | (at[1:] != at[:-1])
    totals = cum[bounds[1:] - 1]
    at, cum, group = at[last], cum[last], group[last]
    bounds = np.searchsorted(group, np.arange(n_groups + 1))
    if weights is None:
        return GroupSteps(at, cum, bounds, totals, n_points, exact=True)
    return GroupSteps(at, cum / totals[group], bounds, totals, n_points, exact=False)


def _ranges(starts, lengths):
    """Concatenated ``arange(s, s + l)`` for every ``(s, l)``."""
    total = int(lengths.sum())
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(total, dtype=np.int64)


def _batches(sizes, limit=_CHUNK):
    """Consecutive slices of pairs whose sizes sum to at most ``limit`` (or one)."""
    ends = np.cumsum(sizes)
    lo = 0
    while lo < sizes.shape[0]:
        base = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + limit, side="right")))
        yield slice(lo, hi)
        lo = hi


def support_sizes(steps, a, b):
    lengths = np.diff(steps.bounds)
    return lengths[a] + lengths[b] + 2


def _lookup(steps):
    """``(keys, values, heads)``: each group's CDF as a searchable table.

    Group ``g``'s entries are a head (key ``g * stride``, value 0: the CDF
    before its first step) then its steps (key ``g * stride + point + 1``);
    ``values`` has one more leading slot, so ``searchsorted(keys, g * stride
    + p + 1, side="right")`` indexes ``values`` at ``F_g(p)``, and ``heads[g]``
    is the index of group ``g``'s 0. Kept in ``steps.cache``.
    """
    found = steps.cache.get("lookup")
    if found is None:
        n, n_groups = steps.points.shape[0], steps.n_groups
        heads = steps.bounds[:-1] + np.arange(n_groups)
        body = np.ones(n + n_groups, dtype=bool)
        body[heads] = False
        keys = np.empty(n + n_groups, dtype=np.int64)
        keys[heads] = np.arange(n_groups, dtype=np.int64) * steps.stride
        keys[body] = steps.keys + 1
        values = np.zeros(n + n_groups + 1, dtype=steps.values.dtype)
        values[1:][body] = steps.values
        found = steps.cache["lookup"] = (keys, values, heads + 1)
    return found


def _cdf_at(steps, groups, lengths, points):
    """Index in ``_lookup(steps)[1]`` of ``F_g(p)``, ``g`` repeated ``lengths``.

    A binary search per point, or, once the points looked up in ``steps``
    reach an eighth of its groups x points (at most ``_DENSE_CELLS``), a
    dense table of every group's CDF index at every point, built once per
    ``steps`` (then a gather per point).
    """
    keys = _lookup(steps)[0]
    needle = np.repeat(groups * steps.stride + 1, lengths)
    needle += points
    table = steps.cache.get("table")
    cells = steps.n_groups * int(steps.stride)
    wanted = steps.cache.get("wanted", 0) + needle.shape[0]
    steps.cache["wanted"] = wanted
    if table is None and cells <= _DENSE_CELLS and 8 * wanted >= cells:
        table = np.zeros(cells, dtype=np.int32)
        table[keys] = 1
        table = steps.cache["table"] = np.cumsum(table, dtype=np.int32)
    if table is not None:
        return table[needle]
    return np.searchsorted(keys, needle, side="right")


def merged_gaps(steps, a, b):
    """The gaps of pairs ``(a[i], b[i])`` on their merged supports, end to end.

    Returns ``(starts, points, keys, gap)``: segment ``i`` is
    ``starts[i]:starts[i + 1]``; ``points`` are the increasing point indices
    where ``F_a`` or ``F_b`` steps, with the first and last point; ``keys``
    are ``i * stride + points``; ``gap`` is ``F_a - F_b`` there (the exact
    numerator with ``steps.exact``). The two sorted runs of steps are merged
    in linear time: a step of ``a`` at point ``p`` lands after the first
    point, ``a``'s earlier steps and ``b``'s steps at or before ``p``
    (:func:`_cdf_at`, which also gives ``F_b(p)``), and symmetrically. Where
    both step at ``p`` the two land in one slot with the same content and
    leave the slot before it empty; the empty slot takes its successor's
    point, and of equal points only the last is kept.
    """
    bounds, stride, n_pairs = steps.bounds, steps.stride, a.shape[0]
    _, values, heads = _lookup(steps)
    lengths = np.diff(bounds)
    la, lb = lengths[a], lengths[b]
    size = la + lb + 2
    first = np.zeros(n_pairs + 1, dtype=np.int64)
    np.cumsum(size, out=first[1:])
    total, head, last = int(first[-1]), first[:-1], first[1:] - 1
    points = np.full(total, -1, dtype=np.int64)
    points[head], points[last] = 0, steps.n_points - 1
    at_a, at_b = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
    at_a[head], at_b[head] = heads[a], heads[b]  # the CDFs before any step: 0
    at_a[last], at_b[last] = bounds[a + 1] + a + 1, bounds[b + 1] + b + 1
    for own, other, n_own, at_own, at_other in (
        (a, b, la, at_a, at_b),
        (b, a, lb, at_b, at_a),
    ):
        source = _ranges(bounds[own], n_own)
        p = steps.points[source]
        found = _cdf_at(steps, other, n_own, p)
        pos = np.repeat(head + 1 - heads[other] - bounds[own], n_own)
        pos += source
        pos += found
        points[pos] = p
        at_other[pos] = found
        source += np.repeat(own + 2, n_own)
        at_own[pos] = source
    empty = np.flatnonzero(points < 0)
    points[empty] = points[empty + 1]
    keys = np.repeat(np.arange(n_pairs, dtype=np.int64) * stride, size)
    keys += points
    # one entry per point: the last of equal keys
    keep = np.ones(total, dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=keep[:-1])
    keys, points = keys[keep], points[keep]
    fa, fb = values[at_a[keep]], values[at_b[keep]]
    starts = np.searchsorted(keys, np.arange(n_pairs + 1) * stride)
    if steps.exact:
        counts = np.diff(starts)
        gap = fa * np.repeat(steps.totals[b], counts)
        gap -= fb * np.repeat(steps.totals[a], counts)
    else:
        gap = fa - fb
    return starts, points, keys, gap


def pairs_max_gap(steps, a, b):
    """MCDP(0) of every pair: ``max |F_a - F_b|`` over the pair's steps.

    No merge: the gap at each step of ``a`` (of ``b``) takes ``F_b``
    (``F_a``) there from :func:`_cdf_at`; a point where both step gives the
    same value twice, and the gap at the first and last point is 0.
    """
    lengths = np.diff(steps.bounds)
    values = _lookup(steps)[1]
    out = np.empty(a.shape[0])
    for s in _batches(lengths[a] + lengths[b] + 2):
        pa, pb = a[s], b[s]
        best = np.zeros(pa.shape[0], dtype=steps.values.dtype)
        for own, other in ((pa, pb), (pb, pa)):
            n_own = lengths[own]
            source = _ranges(steps.bounds[own], n_own)
            f_own = steps.values[source]
            f_other = values[_cdf_at(steps, other, n_own, steps.points[source])]
            fa, fb = (f_own, f_other) if own is pa else (f_other, f_own)
            if steps.exact:
                gap = fa * np.repeat(steps.totals[pb], n_own)
                gap -= fb * np.repeat(steps.totals[pa], n_own)
            else:
                gap = fa - fb
            if gap.shape[0]:
                cuts = np.minimum(np.cumsum(n_own) - n_own, gap.shape[0] - 1)
                top = np.maximum.reduceat(np.abs(gap, out=gap), cuts)
                best = np.maximum(best, np.where(n_own > 0, top, 0))
        out[s] = best / steps.scale(pa, pb)
    return out


def pairs_abcc(steps, a, b, padded):
    """ABCC of every pair: ``sum |F_a - F_b| * (next point - point)``."""
    out = np.empty(a.shape[0])
    for s in _batches(support_sizes(steps, a, b)):
        starts, points, _, gap = merged_gaps(steps, a[s], b[s])
        width = np.zeros(points.shape[0])
        width[:-1] = padded[points[1:]] - padded[points[:-1]]
        width[starts[1:] - 1] = 0.0  # the last point of each segment
        area = np.abs(gap) * width
        out[s] = [area[lo:hi].sum() for lo, hi in zip(starts[:-1], starts[1:])]
    return out


def pairs_mcdp(steps, a, b, plan):
    """Exact MCDP(ε) of every pair; ``plan`` from :func:`window_plan`.

    The neighbourhood ``[lo, lo + ε]`` of the domain's lower end counts for a
    pair whose support holds ``lo`` (the point where the segment's step
    function takes its value at ``lo``); otherwise neither group has a score
    at ``lo``, the gap there is 0, and so is that neighbourhood's minimum.
    """
    n_left, ends, at_lo = plan
    out = np.empty(a.shape[0])
    for s in _batches(support_sizes(steps, a, b)):
        starts, points, keys, gap = merged_gaps(steps, a[s], b[s])
        magnitude = np.abs(gap)
        # the last support point of each window, within the segment
        stop = np.searchsorted(keys, keys - points + ends[points], side="right") - 1
        best = _max_window_min(magnitude, stop, starts)
        if at_lo < 0:  # lo is no score: the gap is 0 at lo
            out[s] = best / steps.scale(a[s], b[s])
            continue
        big = np.inf if magnitude.dtype.kind == "f" else np.iinfo(np.int64).max
        inside = points < n_left
        if at_lo > 0:
            inside &= points >= at_lo
        left = np.minimum.reduceat(np.where(inside, magnitude, big), starts[:-1])
        if at_lo > 0:  # the head (point 0) is in every segment; lo may not be
            has_lo = np.logical_or.reduceat(points == at_lo, starts[:-1])
            left = np.where(has_lo, left, 0)
        out[s] = np.maximum(best, left) / steps.scale(a[s], b[s])
    return out


def _max_window_min(values, stop, starts):
    """Per segment, ``max_i min(values[i:stop[i] + 1])``: a sparse table."""
    n = values.shape[0]
    levels = np.log2(stop - np.arange(n) + 1).astype(np.intp)
    order = np.argsort(levels, kind="stable")
    cuts = np.searchsorted(levels[order], np.arange(int(levels.max()) + 2))
    window_min = np.empty_like(values)
    table = values
    for level in range(cuts.shape[0] - 1):
        span = 1 << level
        at = order[cuts[level] : cuts[level + 1]]
        if at.size:
            window_min[at] = np.minimum(table[at], table[stop[at] - span + 1])
        if 2 * span <= n and level + 2 < cuts.shape[0]:
            table = np.minimum(table[: n - 2 * span + 1], table[span : n - span + 1])
    return np.maximum.reduceat(window_min, starts[:-1])


def window_plan(padded, epsilon, rounding, lo=0.0):
    """``(n_left, ends, at_lo)`` of MCDP(ε) on the padded points.

    ``at_lo`` is the index of the domain's lower end ``lo`` among the padded
    points (-1 if it is none of them: then no score is ``lo`` and the gap
    is 0 there), and the points ``at_lo .. n_left - 1`` lie in its
    neighbourhood ``[lo, lo + ε]`` (see ``mcdp_pair_exact``); ``ends[k]`` is
    the last point of the window ``[p_k, p_k + 2ε]``.
    """
    at_lo, n_left = left_window(padded, epsilon, rounding, lo)
    return (
        n_left,
        window_ends(padded, np.arange(padded.shape[0]), 2.0 * epsilon, rounding),
        at_lo,
    )


def _group_rows(steps, points):
    """Every group's CDF (or count) at ``points``: (n_groups, n_points)."""
    return steps.at(np.arange(steps.n_groups)[:, None], points[None, :])


def _pair_rows(steps, a, b, rows):
    """``|F_a - F_b|`` of pairs from :func:`_group_rows`, in value units."""
    if steps.exact:
        na, nb = steps.totals[a][:, None], steps.totals[b][:, None]
        gap = rows[a] * nb - rows[b] * na
        return np.abs(gap) / steps.scale(a, b)[:, None]
    return np.abs(rows[a] - rows[b])


def cell_bounds(steps, a, b, padded, n_cells=_N_CELLS):
    """Upper bounds of MCDP(0) and ABCC of pairs, from a coarse partition.

    On a cell of points ``[c_i, c_{i+1})`` (``n_cells`` of them) each CDF
    lies between its values at ``c_i`` and ``c_{i+1} - 1``; the gap's
    magnitude there is at most ``u_i = max(hi_a - lo_b, hi_b - lo_a)``,
    computed in the arithmetic of the gap itself (so the bound holds for the
    computed gaps). Kept in ``steps.cache`` for the pairs of ``steps``.
    """
    key = ("cells", n_cells, a.tobytes(), b.tobytes())
    if key in steps.cache:
        return steps.cache[key]
    m = padded.shape[0]
    cuts = np.unique(np.linspace(0, m, min(n_cells, m) + 1).astype(np.int64))
    width = padded[np.minimum(cuts[1:], m - 1)] - padded[cuts[:-1]]
    lo, hi = _group_rows(steps, cuts[:-1]), _group_rows(steps, cuts[1:] - 1)
    top, area = np.empty(a.shape[0]), np.empty(a.shape[0])
    for s in _batches(np.full(a.shape[0], width.shape[0])):
        pa, pb = a[s], b[s]
        if steps.exact:
            na, nb = steps.totals[pa][:, None], steps.totals[pb][:, None]
            up = np.maximum(hi[pa] * nb - lo[pb] * na, hi[pb] * na - lo[pa] * nb)
            up = up / steps.scale(pa, pb)[:, None]
        else:
            up = np.maximum(hi[pa] - lo[pb], hi[pb] - lo[pa])
        top[s] = up.max(axis=1)
        area[s] = up @ width
    steps.cache[key] = top, area * (1.0 + _SUM_SLACK)
    return steps.cache[key]


def grid_bounds(steps, a, b, padded, epsilon, domain=(0.0, 1.0)):
    """Upper bounds of MCDP(ε), ε > 0, from the gaps on a grid of step ε/r.

    The grid is ``lo, lo + ε/r, ...`` up to ``hi`` (``domain = (lo, hi)``).
    Every neighbourhood ``[y - ε, y + ε]`` inside the domain holds at least
    ``2r - 1`` consecutive grid points, and ``[lo, lo + ε]`` at least ``r``;
    the window minimum is at most the minimum over ``2r - 2`` (``r - 1``) of
    them, with a point to spare for rounding. Neighbourhoods that reach the
    largest score hold ``F_a - F_b = 0``. None when ε is too small for a
    grid (relative to the domain's width, or to the rounding of its ends).
    """
    lo, hi = domain
    width = hi - lo
    if not width > 0:  # every score equal: nothing to bound
        return None
    r = min(_GRID_PER_EPSILON, int(_MAX_GRID * epsilon / width))
    delta = epsilon / max(r, 1)
    if r < 2 or delta < _GRID_ROUNDING * max(abs(lo), abs(hi)):
        return None
    grid = np.minimum(lo + np.arange(int(np.ceil(width / delta)) + 1) * delta, hi)
    points = np.searchsorted(padded, grid, side="right") - 1
    run = 2 * r - 2
    bound = np.empty(a.shape[0])
    per_group = _group_rows(steps, points)
    for s in _batches(np.full(a.shape[0], grid.shape[0])):
        rows = _pair_rows(steps, a[s], b[s], per_group)
        left = rows[:, : r - 1].min(axis=1)
        inner = _run_min(rows, run).max(axis=1) if rows.shape[1] >= run else 0.0
        bound[s] = np.maximum(left, inner)
    return bound


def _run_min(rows, length):
    """``rows[:, i:i + length].min(axis=1)`` for every ``i`` (doubling)."""
    table, span = rows, 1
    while 2 * span <= length:
        table = np.minimum(table[:, :-span], table[:, span:])
        span *= 2
    n = rows.shape[1] - length + 1
    return np.minimum(table[:, :n], table[:, length - span : length - span + n])


def max_over_pairs(bounds, evaluate, sizes):
    """``max(evaluate(all pairs))``, evaluating only pairs that may attain it.

    Pairs are evaluated in decreasing order of ``bounds`` (upper bounds of
    their values as ``evaluate`` computes them), first one, then batches
    growing fourfold; the pairs whose bound is at most the best value found
    are never evaluated. ``sizes`` (points per pair) caps a batch's points.
    """
    order = np.argsort(-bounds, kind="stable")
    descending = -bounds[order]
    best, i, batch = -np.inf, 0, 1
    while i < order.shape[0] and bounds[order[i]] > best:
        live = int(np.searchsorted(descending, -best, side="left"))
        stop = min(live, i + batch)
        cum = np.cumsum(sizes[order[i:stop]])
        stop = i + max(1, int(np.searchsorted(cum, _CHUNK, side="right")))
        best = max(best, float(np.max(evaluate(order[i:stop]))))
        i, batch = stop, 4 * batch
    return best


def padded_points(sorted_values):
    """The distinct sorted scores padded with 0 and 1, and each sample's point.

    Returns ``(padded, point_of, ends)``: 0 is prepended when every score is
    above it and 1 appended when every score is below it (the breakpoints of
    ``F_a - F_b`` on [0, 1]; harmless for any other use, where the gap is 0
    there), ``point_of[i]`` is the index of ``sorted_values[i]`` in
    ``padded``, and ``ends`` is :func:`~._ecdf.run_ends` of the scores (None
    when they are all distinct).
    """
    n = sorted_values.shape[0]
    ends = run_ends(sorted_values)
    points = sorted_values if ends is None else sorted_values[ends]
    pad_left, pad_right = int(points[0] > 0.0), int(points[-1] < 1.0)
    padded = np.concatenate(([0.0] * pad_left, points, [1.0] * pad_right))
    run = np.arange(n)
    if ends is not None:
        run = np.searchsorted(ends, run, side="left")
    return padded, run + pad_left, ends


class AllPairs:
    """Every pair of one grouping's groups, from samples sorted once.

    ``values(epsilon, rounding)`` gives MCDP(ε) of every pair (in
    :func:`group_pairs` order) and ``worst(...)`` only
    the largest, evaluating few pairs; ``domain`` is the ``(lo, hi)`` the
    windows are clipped to (the scores lie in it).
    """

    def __init__(self, sorted_values, codes, n_groups, weights=None, domain=(0.0, 1.0)):
        self.padded, point_of, _ = padded_points(sorted_values)
        self.steps = group_steps(
            point_of, codes, n_groups, self.padded.shape[0], weights, integral=False
        )
        self.n_groups = n_groups
        self.domain = domain
        self._plans = {}

    @functools.cached_property
    def _pairs(self):
        """Every pair's codes (made on first use: 50 million at 10,000 groups)."""
        return pair_codes(self.n_groups)

    @property
    def a(self):
        """The first group of every pair."""
        return self._pairs[0]

    @property
    def b(self):
        """The second group of every pair."""
        return self._pairs[1]

    def _plan(self, epsilon, rounding):
        key = (epsilon, rounding)
        if key not in self._plans:
            self._plans[key] = window_plan(
                self.padded, epsilon, rounding, self.domain[0]
            )
        return self._plans[key]

    def values(self, epsilon, rounding):
        """Exact MCDP(ε) of every pair."""
        if epsilon == 0.0:
            return pairs_max_gap(self.steps, self.a, self.b)
        return pairs_mcdp(self.steps, self.a, self.b, self._plan(epsilon, rounding))

    def worst(self, epsilon, rounding):
        """Exact MCDP(ε) of the worst pair (:func:`worst_mcdp`)."""
        if epsilon == 0.0:
            swept = swept_max_gap(self.steps)  # every pair, none made
            if swept is not None:
                return swept
        plan = None if epsilon == 0.0 else self._plan(epsilon, rounding)
        steps, padded, domain = self.steps, self.padded, self.domain
        return worst_mcdp(steps, None, None, padded, epsilon, plan, domain)

    def worst_pair(self, epsilon, rounding):
        """``(value, a, b)``: MCDP(ε) of the worst pair and its codes.

        The pair is the first (in :func:`group_pairs` order) of those with
        the largest value, as from :meth:`values`; many groups (see
        :func:`~._pivots.use_pivots`) are not evaluated pair by pair: the
        value comes from :meth:`worst` and the pair from a scan of the pairs
        that pivots' rows cannot rule out (:func:`~._pivots.first_largest_pair`),
        in memory bounded whatever the number of pairs.
        """
        if self.n_groups < 2:
            raise ValueError("worst_pair needs two groups or more.")
        plan = None if epsilon == 0.0 else self._plan(epsilon, rounding)

        def evaluate(pa, pb):
            if epsilon == 0.0:
                return pairs_max_gap(self.steps, pa, pb)
            return pairs_mcdp(self.steps, pa, pb, plan)

        if not use_pivots(self.n_groups):
            values = evaluate(self.a, self.b)
            i = int(np.argmax(values))
            return float(values[i]), int(self.a[i]), int(self.b[i])

        def row_of(g):  # MCDP(ε) <= MCDP(0), a metric: the bounds are MCDP(0)
            row = pivot_row(self.n_groups, g, self._max_gap)
            return row, row

        _, bounds, _ = pivot_rows(self.n_groups, row_of)
        best = self.worst(epsilon, rounding)
        return first_largest_pair(self.n_groups, bounds, best, evaluate)

    def _max_gap(self, a, b):
        return pairs_max_gap(self.steps, a, b)


def _coarse_filter(steps, a, b, padded, evaluate, which):
    """``(best, a, b)``: a first best value and the pairs that may beat it.

    With many pairs, every pair is first bounded on ``_COARSE_CELLS`` cells
    (:func:`cell_bounds`; ``which``: 0 for the MCDP(0) bound, 1 for ABCC's),
    the ``_FIRST_PAIRS`` of highest bound are evaluated (``evaluate(a, b)``)
    and only the pairs whose bound exceeds the best of them are kept: a
    sixteenth of the finer bounds' cost on the pairs that cannot be the
    worst. ``best`` is -inf (every pair kept) with few pairs.
    """
    if a.shape[0] <= _COARSE_MIN_PAIRS:
        return -np.inf, a, b
    bound = cell_bounds(steps, a, b, padded, n_cells=_COARSE_CELLS)[which]
    first = np.argpartition(-bound, _FIRST_PAIRS)[:_FIRST_PAIRS]
    best = float(np.max(evaluate(a[first], b[first])))
    keep = bound > best
    return best, a[keep], b[keep]


def _pivot_pairs(n_groups, row_of, a, b):
    """``(first best, a, b)``: :func:`~._pivots.pivot_cut` of the pairs ``(a, b)``.

    ``a`` and ``b`` None stand for every pair, made (:func:`pair_codes`:
    16 bytes a pair, 800 MB at 10,000 groups) only when the pivots keep too
    many of them.
    """
    n_pairs = n_groups * (n_groups - 1) // 2 if a is None else a.shape[0]
    cut = pivot_cut(n_groups, row_of, n_pairs)
    if cut is not None:
        return cut
    if a is None:
        a, b = pair_codes(n_groups)
    return -np.inf, a, b


def worst_mcdp(steps, a, b, padded, epsilon, plan, domain=(0.0, 1.0)):
    """Exact MCDP(ε) of the worst of the pairs ``(a, b)``, evaluating few pairs.

    ``a`` and ``b`` None: every pair (made only if needed, see
    :func:`_pivot_pairs`).

    Pairs are evaluated on their merged supports in decreasing order of an
    upper bound (:func:`max_over_pairs`; :func:`cell_bounds`, and for ε > 0
    :func:`grid_bounds` too), after a coarse first cut (:func:`_coarse_filter`);
    ``plan`` is :func:`window_plan` of ``padded`` (None for ε = 0) and
    ``domain`` the ``(lo, hi)`` of the windows. The maximum is the one over
    every pair.
    """
    if epsilon == 0.0:
        swept = swept_max_gap(steps, a)
        if swept is not None:
            return swept

    def evaluate(pa, pb):
        if epsilon == 0.0:
            return pairs_max_gap(steps, pa, pb)
        return pairs_mcdp(steps, pa, pb, plan)

    def row_of(g):  # MCDP(ε) <= MCDP(0), a metric
        bound = pivot_row(steps.n_groups, g, lambda x, y: pairs_max_gap(steps, x, y))
        if epsilon == 0.0:
            return bound, bound
        return bound, pivot_row(steps.n_groups, g, evaluate)

    first, a, b = _pivot_pairs(steps.n_groups, row_of, a, b)
    best, a, b = _coarse_filter(steps, a, b, padded, evaluate, 0)
    top = cell_bounds(steps, a, b, padded)[0]
    sizes = support_sizes(steps, a, b)
    bound = top
    if epsilon > 0.0:
        grid = grid_bounds(steps, a, b, padded, epsilon, domain)
        bound = top if grid is None else np.minimum(top, grid)
    rest = max_over_pairs(bound, lambda i: evaluate(a[i], b[i]), sizes)
    return max(first, best, rest)


def swept_max_gap(steps, a=None):
    """MCDP(0) of the worst of all pairs, in time linear in the steps, or None.

    The largest gap over pairs at a point ``p`` is ``max_g F_g(p) - min_g
    F_g(p)``; every CDF is non-decreasing, so the first is a running maximum
    of the steps' values and the second one minus a running maximum (from
    the right) of the survival ``1 - F_g`` just before each step: two passes
    over the steps instead of one bound per pair (``n_groups^2`` of them).
    These floating-point sums only *find* the pair: at each point within
    ``_SWEEP_SLACK`` of the largest, the groups of the largest and the
    smallest CDF are a candidate pair, and the candidates are evaluated by
    :func:`pairs_max_gap`, so the value is the one of the full evaluation.
    None unless ``a`` (the first group of each pair; None: every pair)
    holds every pair (:func:`~._ecdf.pair_codes`) of groups that all have a
    step and a positive total.
    """
    lengths = np.diff(steps.bounds)
    n_groups = steps.n_groups
    if (
        n_groups < 2
        or (a is not None and a.shape[0] != n_groups * (n_groups - 1) // 2)
        or not (lengths > 0).all()
        or not (steps.totals > 0).all()
    ):
        return None
    group = np.repeat(np.arange(n_groups), lengths)
    cdf = steps.values / steps.totals[group] if steps.exact else steps.values
    before = np.r_[0.0, cdf[:-1]]
    before[steps.bounds[:-1]] = 0.0  # a group's CDF before its first step
    m = steps.n_points
    highest = np.zeros(m)
    np.maximum.at(highest, steps.points, cdf)
    highest = np.maximum.accumulate(highest)  # max_g F_g(p)
    survival = np.zeros(m + 1)
    np.maximum.at(survival, steps.points, 1.0 - before)
    survival = np.maximum.accumulate(survival[::-1])[::-1]
    gap = highest - (1.0 - survival[1:])  # min_g F_g(p) = 1 - max_{q > p} S
    near = np.flatnonzero(gap >= gap.max() - _SWEEP_SLACK)
    pairs = []
    chunk = max(1, _DENSE_CELLS // n_groups)
    for lo in range(0, near.shape[0], chunk):
        at = near[lo : lo + chunk]
        rows = steps.at(np.arange(n_groups)[:, None], at[None, :])
        if steps.exact:
            rows = rows / steps.totals[:, None]
        pairs.append(np.stack([rows.argmax(axis=0), rows.argmin(axis=0)], axis=1))
    pairs = np.unique(np.sort(np.concatenate(pairs), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    if pairs.shape[0] == 0:  # every CDF equal everywhere
        return 0.0
    return float(pairs_max_gap(steps, pairs[:, 0], pairs[:, 1]).max())


def worst_abcc(steps, a, b, padded):
    """Exact ABCC of the worst of the pairs ``(a, b)``, as :func:`worst_mcdp`.

    ``a`` and ``b`` None: every pair (made only if needed).
    """

    def evaluate(pa, pb):
        return pairs_abcc(steps, pa, pb, padded)

    def row_of(g):  # ABCC, the 1-Wasserstein distance, is a metric
        row = pivot_row(steps.n_groups, g, evaluate)
        return row, row

    first, a, b = _pivot_pairs(steps.n_groups, row_of, a, b)
    best, a, b = _coarse_filter(steps, a, b, padded, evaluate, 1)
    area = cell_bounds(steps, a, b, padded)[1]
    sizes = support_sizes(steps, a, b)
    rest = max_over_pairs(area, lambda i: evaluate(a[i], b[i]), sizes)
    return max(first, best, rest)


def all_pair_areas(sorted_scores, worst_only=False):
    """ABCC of every pair of groups of :class:`~._ecdf.SortedScores`, vectorised.

    The public :func:`~skfair.metrics.abcc` with many groups: the groups'
    steps from the one sort, every pair's area on its merged support
    (:func:`pairs_abcc`), or with ``worst_only`` only the largest
    (:func:`worst_abcc`, as a one-element list). The CDFs are ``cum /
    total`` (weights or ones), the gaps their differences: the pair-by-pair
    path's values up to the order of summation (about 1e-16 relative).
    Every group has a positive weight (the public functions refuse a group
    of total weight 0). None with two groups (one pair, sorted with its
    gap).
    """
    if sorted_scores.gap is not None:
        return None
    steps, padded = area_steps(sorted_scores)
    if worst_only:
        return [worst_abcc(steps, None, None, padded)]
    return pairs_abcc(steps, *pair_codes(sorted_scores.n_groups), padded)


def area_steps(sorted_scores):
    """``(steps, padded)`` of :func:`pairs_abcc` for :class:`~._ecdf.SortedScores`.

    The CDFs are ``cum / total`` (weights or ones): ``pairs_abcc(steps, a,
    b, padded)`` is the ABCC of :func:`all_pair_areas` for any pairs.
    """
    values, codes, weights = (
        sorted_scores.values,
        sorted_scores.codes,
        sorted_scores.weights,
    )
    integral = weights is None
    if weights is None:
        weights = np.ones(values.shape[0])
    padded, point_of, _ = padded_points(values)
    steps = group_steps(
        point_of,
        codes,
        sorted_scores.n_groups,
        padded.shape[0],
        weights,
        integral=integral,
    )
    return steps, padded
