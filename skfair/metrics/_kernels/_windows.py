"""Exact max–min over sliding value windows of a step function (MCDP's core).

Given the distinct breakpoints ``p_0 < ... < p_{m-1}`` of a right-continuous
step function with values ``d_k`` on ``[p_k, p_{k+1})``, and a width ``w``,
compute ``max_k min{d_j : p_k <= p_j <= p_k + w}`` in O(m) time and memory.

Window membership ``p_j <= p_k + w`` is decided *exactly* in real arithmetic:
``p_k + w`` is rounded to ``s`` with the rounding error recovered by Knuth's
TwoSum, and ``p_j == s`` counts only when the exact sum is at least ``s``. The reference
code of the MCDP paper compares with the rounded ``s`` instead, which can only
add points: with ``p_k = 0.1`` and ``w = 0.2`` (ε = 0.1) the sum rounds up to
``0.30000000000000004``, the value ``np.arange(0, 1, 0.1)[3]`` holds, so the
reference puts that score inside the window although the exact sum of the two
doubles, 0.3000000000000000166..., is smaller. ``rounding="float"`` reproduces
the reference.

Algorithm
---------
The breakpoints are cut into blocks greedily: a block starts at ``s_t`` and
ends where the window of ``s_t`` ends. Every window that starts in block ``t``
then covers the rest of block ``t`` and ends inside block ``t + 1`` (van
Herk/Gil-Werman in value space). Its minimum is ``min(f(k), g(k))`` with ``f``
the suffix minimum within block ``t`` (non-decreasing in ``k``) and ``g`` the
prefix minimum of block ``t + 1`` up to the window's end (non-increasing in
``k``), so the best window of each block is found by a binary search for the
crossing of ``f`` and ``g``, done for all blocks at once. When there are very
many blocks (tiny ``w``), a level-by-level sparse table (O(m log L) time, O(m)
memory, ``L`` the longest window in points) is used instead.

The same module holds MCDP(ε) of one pair of groups on its gap function
(:func:`mcdp_pair_exact`, :func:`mcdp_pair_approx`, the paper's Algorithm 2)
and the fixed-width sliding minimum (:func:`sliding_min`) behind Algorithm 2
and the Dask engine's bounds.
"""

from __future__ import annotations

import numpy as np

from ._ecdf import ecdf_gap_at

# Above this many blocks the per-block binary searches (Python-level steps)
# cost more than the sparse-table passes.
_MAX_BLOCKS = 512


def window_ends(points, starts, width, rounding="exact"):
    """Index of the last point ``p_j <= p_k + width`` for each ``k`` in starts.

    ``rounding`` is "exact" (real arithmetic) or "float" (the rounded sum, as
    the MCDP reference code), as the module docstring explains.
    """
    left = points[starts]
    upper = left + width
    ends = np.searchsorted(points, upper, side="right") - 1
    if rounding == "exact":
        # TwoSum: left + width == upper + err exactly.
        back = upper - left
        err = (left - (upper - back)) + (width - back)
        hit = (err < 0) & (points[np.maximum(ends, 0)] == upper)
        ends = ends - hit
    return ends


def left_window(padded, epsilon, rounding, lo=0.0):
    """``(at_lo, n_left)``: the points of ``[lo, lo + ε]`` (see ``window_plan``)."""
    at_lo = int(np.searchsorted(padded, lo, side="left"))
    if at_lo == padded.shape[0] or padded[at_lo] != lo:
        return -1, 0
    end = window_ends(padded, np.array([at_lo]), epsilon, rounding)[0]
    return at_lo, int(end) + 1


def max_window_min(points, values, width, rounding="exact", absolute=False):
    """Maximum over windows ``[p_k, p_k + width]`` of the minimum of ``values``.

    ``points`` (``m >= 1`` strictly increasing breakpoints) and ``values``
    (the step function there) have shape (m,); ``width > 0``; ``rounding`` as
    in :func:`window_ends`; ``absolute=True`` uses ``|values|`` (computed
    piecewise, without a full-size copy). Returns ``(best, start, end)``: the
    maximal window minimum (of the dtype of ``values``) and the indices of the
    first and last breakpoint of a maximising window.
    """
    bounds = _greedy_blocks(points, width, rounding)
    if bounds is None:
        values = np.abs(values) if absolute else values
        return _sparse_table_max_min(points, values, width, rounding)
    ranges = _RangeMin(values, absolute)
    best = None
    for t in range(bounds.shape[0] - 1):
        lo, end = int(bounds[t]), int(bounds[t + 1])  # block t is [lo, end)

        def f(k, end=end):  # min over the rest of the block: non-decreasing
            return ranges.min(k, end)

        def g(k, end=end):  # min over the spill into the next block
            stop = int(window_ends(points, np.array([k]), width, rounding)[0]) + 1
            return (ranges.min(end, stop) if stop > end else None), stop - 1

        # first k in [lo, end) with f(k) >= g(k) ("None" is +infinity)
        left, right = lo, end
        while left < right:
            mid = (left + right) // 2
            g_mid, _ = g(mid)
            if g_mid is not None and f(mid) >= g_mid:
                right = mid
            else:
                left = mid + 1
        for k in (left - 1, left):  # the best window of block t starts here
            if lo <= k < end:
                g_k, stop = g(k)
                value = f(k) if g_k is None else min(f(k), g_k)
                if best is None or value > best[0]:
                    best = (value, k, stop)
    return best


class _RangeMin:
    """Minimum of ``values[lo:hi]`` from per-chunk minima, without big copies.

    Full-size temporary arrays are what costs here: on large inputs a fresh
    array's first touch (page faults) takes longer than the arithmetic.
    Chunk minima take one reduction pass and m/1024 floats; a query reduces
    at most two partial chunks and a run of chunk minima.
    """

    chunk = 1024
    _slab = 1 << 20  # |values| is taken one slab at a time into one buffer

    def __init__(self, values, absolute=False):
        self.values = values
        self.absolute = absolute
        starts = np.arange(0, values.shape[0], self.chunk)
        if not absolute:
            self.chunk_min = np.minimum.reduceat(values, starts)
            return
        self.chunk_min = np.empty(starts.shape[0], dtype=values.dtype)
        buffer = np.empty(min(self._slab, values.shape[0]), dtype=values.dtype)
        per_slab = self._slab // self.chunk
        for first in range(0, starts.shape[0], per_slab):
            lo = first * self.chunk
            piece = values[lo : lo + self._slab]
            magnitude = np.abs(piece, out=buffer[: piece.shape[0]])
            offsets = starts[first : first + per_slab] - lo
            self.chunk_min[first : first + offsets.shape[0]] = np.minimum.reduceat(
                magnitude, offsets
            )

    def _partial(self, lo, hi):
        part = self.values[lo:hi]
        return (np.abs(part) if self.absolute else part).min()

    def min(self, lo, hi):
        """``values[lo:hi].min()`` (of ``|values|`` if absolute) for ``lo < hi``."""
        c = self.chunk
        first, last = -(-lo // c), hi // c  # full chunks [first, last)
        if first >= last:
            return self._partial(lo, hi)
        out = self.chunk_min[first:last].min()
        if lo < first * c:
            out = min(out, self._partial(lo, first * c))
        if last * c < hi:
            out = min(out, self._partial(last * c, hi))
        return out


def _block_budget(m):
    """Most blocks worth a binary search each, for ``m`` breakpoints."""
    return _MAX_BLOCKS if m > _MAX_BLOCKS * 64 else max(16, m // 64)


def _greedy_blocks(points, width, rounding):
    """Block bounds ``s_0 = 0``, ``s_{t+1} = end(s_t) + 1``, ..., ``m``.

    Returns None when the blocks are so many that the sparse table is the
    cheaper engine (each block costs a binary search of Python-level steps).
    """
    m = points.shape[0]
    starts = [0]
    budget = _block_budget(m)
    while True:
        end = int(window_ends(points, np.array([starts[-1]]), width, rounding)[0])
        if end + 1 >= m:
            starts.append(m)
            return np.array(starts)
        starts.append(end + 1)
        if len(starts) > budget:
            return None


def _sparse_table_max_min(points, values, width, rounding):
    """Same result via a sparse table built one level at a time."""
    m = points.shape[0]
    starts = np.arange(m)
    ends = window_ends(points, starts, width, rounding)
    lengths = ends - starts + 1
    levels = np.floor(np.log2(lengths)).astype(np.intp)
    window_min = np.empty(m, dtype=values.dtype)
    table = values.copy()
    for level in range(int(levels.max()) + 1):
        span = 1 << level
        at = np.flatnonzero(levels == level)
        if at.size:
            window_min[at] = np.minimum(table[at], table[ends[at] - span + 1])
        if 2 * span <= m:
            table = np.minimum(table[: m - 2 * span + 1], table[span : m - span + 1])
    k = int(np.argmax(window_min))
    return window_min[k], k, int(ends[k])


def sliding_min(values, width, fill=np.inf):
    """``values[i:i + width].min()`` for every start ``i``, in O(n).

    Cut ``values`` into blocks of ``width``: a window then covers the end of
    one block and the start of the next, so its minimum is the smaller of a
    block-suffix minimum and a block-prefix minimum (van Herk/Gil-Werman).
    Returns an array of the shape of ``values``: windows that run past the
    end see ``fill`` there (``values[n - width + 1:]`` are those starts).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics._kernels import sliding_min
    >>> sliding_min(np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0]), 2).tolist()
    [1.0, 1.0, 1.0, 1.0, 5.0, 9.0]
    """
    n = values.shape[0]
    if width <= 1:
        return values.copy()
    padded = np.full(-(-(n + width - 1) // width) * width, fill, dtype=values.dtype)
    padded[:n] = values
    blocks = padded.reshape(-1, width)
    prefix = np.minimum.accumulate(blocks, axis=1).ravel()
    suffix = np.minimum.accumulate(blocks[:, ::-1], axis=1)[:, ::-1].ravel()
    return np.minimum(suffix[:n], prefix[width - 1 : n + width - 1])


def clip_to_domain(points, gap, domain):
    """A step function's breakpoints and values restricted to ``domain``.

    ``points`` (increasing) and ``gap`` (its value on ``[p_k, p_{k+1})``, 0
    before the first point) describe a right-continuous step function; the
    result describes the same function on ``[lo, hi]``, with ``lo`` and ``hi``
    as breakpoints: ``lo`` carries the value at ``lo`` (that of the last point
    at or before it, 0 if none), points above ``hi`` are dropped and ``hi``
    carries 0 (both CDFs are 1 there when every score is at most ``hi``).
    For ``domain=(0, 1)`` and scores in [0, 1] this is the padding with the
    scores 0 and 1 of the MCDP paper's definition.
    """
    lo, hi = domain
    m = points.shape[0]
    first = int(np.searchsorted(points, lo, side="right")) - 1  # last point <= lo
    stop = int(np.searchsorted(points, hi, side="right"))  # points[:stop] <= hi
    if first == 0 and points[0] == lo and stop == m and points[-1] == hi:
        return points, gap
    if first >= 0 and points[first] == lo:
        head_p, head_g, body = [], [], slice(first, stop)
    else:
        head_p, head_g = [lo], [gap[first] if first >= 0 else 0]
        body = slice(first + 1, stop)
    tail = int(stop == 0 or points[stop - 1] < hi)
    points = np.concatenate((head_p, points[body], [hi] * tail))
    gap = np.concatenate((head_g, gap[body], [0] * tail)).astype(gap.dtype)
    return points, gap


def mcdp_pair_exact(pair, epsilon, rounding, domain=(0.0, 1.0)):
    """Exact MCDP(ε) of one pair's gap: ``(value, window, threshold, sign)``.

    ``pair`` is a :class:`PairGap` (scores in ``domain = (lo, hi)`` when
    ``epsilon > 0``); ``sign`` is the gap where the value is attained
    (positive: group ``a``'s CDF is the higher), ``threshold`` the
    maximising score for ε = 0 (None otherwise) and ``window`` the
    maximising ``[y0 - ε, y0 + ε] ∩ [lo, hi]``.
    """
    points, gap, scale = pair.points, pair.numerator, pair.scale
    if epsilon == 0.0:
        k_max, k_min = int(np.argmax(gap)), int(np.argmin(gap))
        k = k_max if gap[k_max] >= -gap[k_min] else k_min
        t = float(points[k])
        return abs(float(gap[k])) / scale, (t, t), t, gap[k]
    # ΔF on [lo, hi] has breakpoints at lo (ΔF(lo) = 0 when no score is lo)
    # and at hi, where both CDFs are 1; the fast sort pads 0 and 1 already.
    # The window engine reads |gap| without a full-size copy.
    points, gap = clip_to_domain(points, gap, domain)
    lo, hi = domain
    # y0 = lo: the neighbourhood [lo, min(lo + ε, hi)], membership exact.
    n_left = int(window_ends(points, np.array([0]), epsilon, rounding)[0]) + 1
    at = int(np.argmin(np.abs(gap[:n_left])))
    best = abs(gap[at])
    window = (lo, min(lo + epsilon, hi))
    # lo + ε < y0 < hi - ε: windows [p_k, p_k + 2ε]; larger y0 reach hi.
    value, start, end = max_window_min(
        points, gap, 2.0 * epsilon, rounding, absolute=True
    )
    if value > best:
        best = value
        low = float(points[start])
        window = (low, min(low + 2.0 * epsilon, hi))
        at = start + int(np.argmin(np.abs(gap[start : end + 1])))
    return float(best) / scale, window, None, gap[at]


def approx_probes(epsilon, sampling_frequency, domain=(0.0, 1.0)):
    """The probes of Algorithm 2: ``np.arange(lo, hi, ε / K)`` (``[lo]`` if empty)."""
    lo, hi = domain
    probes = np.arange(lo, hi, epsilon / sampling_frequency)
    return probes if probes.size else np.array([lo])


def mcdp_pair_approx(pair, epsilon, sampling_frequency, domain=(0.0, 1.0)):
    """The MCDP paper's Algorithm 2 on one pair (its published code, ``max`` mended).

    Returns ``(value, window, None, sign)`` as :func:`mcdp_pair_exact`. The
    probes are :func:`approx_probes` on ``domain`` (``np.arange(0, 1, δ)``
    by default). The minima of the 2K-probe windows come from one
    :func:`sliding_min` pass, linear in the number of probes, where the
    reference code takes each window's minimum anew (O(K/ε · K)).
    """
    k = sampling_frequency
    delta = epsilon / k
    lo, hi = domain
    probes = approx_probes(epsilon, k, domain)
    gap = ecdf_gap_at(pair, probes)
    disparity = np.abs(gap)
    j0 = int(np.argmin(disparity[: k + 1]))
    best = float(disparity[j0])
    window = (float(probes[0]), float(probes[min(k, probes.size - 1)]))
    sign = gap[j0]
    n_windows = min(int(np.ceil((hi - lo) / delta)) - 2 * k, probes.size - 2 * k)
    if n_windows >= 1:
        windows = disparity[1 : n_windows + 2 * k]
        minima = sliding_min(windows, 2 * k)[: windows.shape[0] - 2 * k + 1]
        j = int(np.argmax(minima))
        if minima[j] > best:
            best = float(minima[j])
            window = (float(probes[j + 1]), float(probes[j + 2 * k]))
            inner = j + 1 + int(np.argmin(disparity[j + 1 : j + 1 + 2 * k]))
            sign = gap[inner]
    return best, window, None, sign
