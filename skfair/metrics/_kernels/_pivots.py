"""The worst pair of many groups without bounding every pair: pivots.

ABCC (the 1-Wasserstein distance), MCDP(0) (the Kolmogorov-Smirnov
distance) and ABPC's trapezoid L1 of densities are metrics on the groups,
so ``d(a, b) <= d(a, p) + d(p, b)`` for any pivot group ``p``: one row of
``n_groups - 1`` pair values per pivot bounds every pair, and the largest
value of the rows is a first best. :func:`pivot_cut` evaluates a few pivots
(each the farthest from the one before, which also makes the best of the
rows close to the largest value), then lists only the pairs whose bound by
every pivot reaches that best: the pairs are enumerated from the first
pivot's sorted row (``O(n_groups log n_groups)`` plus the pairs listed), not
from all ``n_groups^2 / 2`` of them. The bounds are widened by a relative
and absolute ``_SLACK`` for the rounding of the computed values.

The pairs it drops have values below the best of the rows, so the largest
value over the pairs it keeps and the rows is the largest over every pair,
to the last bit. MCDP(ε), ε > 0, is not a metric, but it is at most
MCDP(0): the rows then hold both, the bound from MCDP(0) and the best from
MCDP(ε).
"""

from __future__ import annotations

import numpy as np

# Fewest groups the pivots are tried for; pivots per search.
_MIN_GROUPS = 100
_N_PIVOTS = 3
# The cut is used when it keeps at most this share of the pairs.
_KEEP_SHARE = 0.25
# Relative and absolute widening of the triangle bounds (rounding).
_SLACK = 1e-9


def use_pivots(n_groups):
    """Whether the pivots are tried for ``n_groups`` groups."""
    return n_groups >= _MIN_GROUPS


def _arange_each(lengths):
    """Concatenated ``arange(l)`` for every ``l``."""
    total = int(lengths.sum())
    offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - offsets


def triangle_pairs(bounds, best):
    """Pairs ``(a, b)``, ``a < b``, whose triangle bound reaches ``best``.

    ``bounds``: rows of a metric's values from pivots (``row[g] = d(g, p)``).
    The pair is kept when ``d(a, p) + d(p, b)``, widened, reaches ``best``
    for every pivot. None when that keeps over ``_KEEP_SHARE`` of the pairs.
    """
    first = bounds[0]
    n = first.shape[0]
    floor = (best - _SLACK) / (1.0 + _SLACK)  # keep: d_a + d_b >= floor
    order = np.argsort(-first, kind="stable")
    ranked = first[order]
    # partners of rank i: the ranks j whose value is at least floor - ranked[i]
    reach = np.searchsorted(-ranked, ranked - floor, side="right")
    lengths = np.minimum(np.arange(n), reach)  # j < i: each pair once
    if lengths.sum() > _KEEP_SHARE * n * (n - 1) / 2:
        return None
    j = _arange_each(lengths)
    i = np.repeat(np.arange(n, dtype=np.int64), lengths)
    a, b = order[j], order[i]
    a, b = np.minimum(a, b), np.maximum(a, b)
    for row in bounds[1:]:
        keep = row[a] + row[b] >= floor
        a, b = a[keep], b[keep]
    return a, b


def pivot_cut(n_groups, row_of, n_pairs):
    """``(best, a, b)``: the pivots' best value and the pairs that may beat it.

    ``row_of(g)`` gives ``(bound, value)``: arrays over the groups of a
    metric's values between ``g`` and every group (0 at ``g``) and of the
    values whose maximum is sought (the same array for a metric; MCDP(ε)
    under MCDP(0)). ``n_pairs`` is the number of pairs searched: None unless
    it is every pair of ``n_groups`` (at least ``_MIN_GROUPS``), or when the
    cut would keep too many pairs.
    """
    if not use_pivots(n_groups) or n_pairs != n_groups * (n_groups - 1) // 2:
        return None
    _, bounds, values = pivot_rows(n_groups, row_of)
    best = max(float(np.max(value)) for value in values)
    found = triangle_pairs(bounds, best)
    if found is None:
        return None
    return best, found[0], found[1]


def pivot_row(n_groups, pivot, evaluate):
    """``evaluate(a, b)`` of the pairs of ``pivot`` with every group, by group.

    The pairs are passed with ``a < b``; the row is 0 at ``pivot``.
    """
    others = np.delete(np.arange(n_groups, dtype=np.intp), pivot)
    mine = np.full(others.shape[0], pivot, dtype=np.intp)
    values = evaluate(np.minimum(mine, others), np.maximum(mine, others))
    row = np.zeros(n_groups)
    row[others] = values
    return row


def pivot_rows(n_groups, row_of):
    """``(pivots, bounds, values)``: :data:`_N_PIVOTS` pivots and their rows.

    As in :func:`pivot_cut`, each pivot is the farthest (by its bound) from
    the one before; ``row_of(g)`` gives ``(bound, value)``.
    """
    pivots, bounds, values, pivot = [], [], [], 0
    for _ in range(_N_PIVOTS):
        pivots.append(pivot)
        bound, value = row_of(pivot)
        bounds.append(bound)
        values.append(value)
        ranked = np.argsort(-bound, kind="stable")
        pivot = int(next((g for g in ranked if g not in pivots), pivot))
    return pivots, bounds, values


def end_candidates(pivots, bounds, values, offsets):
    """Pairs that may attain ``max(value(a, b) + u[a] + u[b])`` for each ``u``.

    ``offsets``: arrays over the groups (an interval's per-group half-widths,
    signed; infinite allowed). The pivots' own pairs are known exactly (their
    rows); another pair's end is at most ``(d(a, p) + u[a]) + (d(p, b) +
    u[b])`` for each pivot ``p``. Returns ``(a, b)`` with ``a < b``, the
    pivots' pairs included, or None when a cut would keep too many pairs.
    """
    n = bounds[0].shape[0]
    groups = np.arange(n)
    kept = []
    for p in pivots:
        others = groups[groups != p]
        kept.append(np.minimum(others, p) * n + np.maximum(others, p))
    for u in offsets:
        ends = [np.delete(value + u + u[p], p) for p, value in zip(pivots, values)]
        best = max(float(np.max(e)) for e in ends)
        if not np.isfinite(best):  # every end, or the largest, is infinite
            continue
        found = triangle_pairs([bound + u for bound in bounds], best)
        if found is None:
            return None
        kept.append(found[0] * n + found[1])
    keys = np.unique(np.concatenate(kept))
    return keys // n, keys % n


def surviving_pairs(n_groups, rows, floor, block):
    """The pairs ``a < b`` that a triangle bound keeps, in lexicographic order.

    ``block`` pairs at a time are bounded by every row of ``rows`` (None: no
    bound) and kept when the bound reaches ``floor``.
    """
    counts = np.arange(n_groups - 1, -1, -1, dtype=np.int64)  # partners of a
    start = 0
    while start < n_groups - 1:
        cum = np.cumsum(counts[start : n_groups - 1])
        stop = start + max(1, int(np.searchsorted(cum, block, side="right")))
        stop = min(stop, n_groups - 1)
        lengths = counts[start:stop]
        a = np.repeat(np.arange(start, stop, dtype=np.intp), lengths)
        b = a + 1 + _arange_each(lengths)
        if rows is not None:
            keep = np.ones(a.shape[0], dtype=bool)
            for row in rows:
                keep &= row[a] + row[b] >= floor
            a, b = a[keep], b[keep]
        if a.shape[0]:
            yield a, b
        start = stop


def pair_blocks(n_groups, block=1 << 20):
    """Every pair ``a < b`` in lexicographic order, ``block`` pairs at a time.

    The pairs of :func:`~._ecdf.pair_codes`, without its 16 bytes a pair at
    once: yields ``(a, b)`` arrays.
    """
    yield from surviving_pairs(n_groups, None, -np.inf, block)


def triangle_floor(best):
    """The widened threshold a triangle bound must reach for a value ``best``."""
    return (best - _SLACK) / (1.0 + _SLACK)


def first_largest_pair(n_groups, bounds, best, evaluate, block=1 << 20):
    """``(value, a, b)``: the largest pair value and the first pair attaining it.

    The pairs ``a < b`` are scanned in lexicographic order (the order of
    :func:`~._ecdf.pair_codes`), ``block`` at a time, and ``evaluate(a, b)``
    (arrays) runs only on the pairs whose triangle bound by every row of
    ``bounds`` (as in :func:`triangle_pairs`) reaches ``best``, the largest
    value (from a search that does not say where it is attained). The scan
    stops at the first pair whose value is ``best``: memory is bounded by
    ``block`` pairs whatever ``n_groups``, and with ties (many one-sample
    groups) it stops early. Should no evaluated pair reach ``best`` (it came
    from a computation rounded differently), every pair is evaluated: the
    result is always the largest value and the first pair with it, as from
    evaluating every pair.
    """
    for rows in (bounds, None):
        top = None
        for a, b in surviving_pairs(n_groups, rows, triangle_floor(best), block):
            values = evaluate(a, b)
            i = int(np.argmax(values))
            if top is None or values[i] > top[0]:
                top = (float(values[i]), int(a[i]), int(b[i]))
            if top[0] == best:
                return top
        if top is not None and top[0] > best:
            return top
    return top


def first_pair_at_least(n_groups, bounds, target, evaluate, block=1 << 20):
    """``(a, b)``: the first pair (lexicographic) whose value reaches ``target``.

    As :func:`first_largest_pair`, scanning only the pairs whose triangle
    bound by ``bounds`` reaches ``target``; None when no pair does.
    """
    for a, b in surviving_pairs(n_groups, bounds, triangle_floor(target), block):
        hits = np.flatnonzero(evaluate(a, b) >= target)
        if hits.shape[0]:
            return int(a[hits[0]]), int(b[hits[0]])
    return None
