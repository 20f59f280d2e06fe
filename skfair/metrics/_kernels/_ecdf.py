"""The group-ECDF engine shared by every distribution-level metric.

The scores are sorted once. For each pair of groups the engine then yields the
*gap function* ``F_a - F_b`` of the two groups' empirical CDFs, evaluated at
every distinct score (the breakpoints of the step function). Every
distribution metric (ΔDP at a threshold, ABCC, MCDP(ε) and its curve) is a
linear-time pass over that representation.

Exactness
---------
Unweighted gaps are computed in integer arithmetic: with ``c_a(t)`` samples of
group ``a`` at or below ``t``, ``F_a(t) - F_b(t) = (c_a n_b - c_b n_a) /
(n_a n_b)``; the numerator is an exact int64, so ties between gaps (which
decide MCDP's maximum) are resolved exactly. Weighted gaps use float
cumulative sums.

Speed
-----
For two groups and scores in [0, 2) (probabilities), one sort of int64 keys
packing each score with its group label (:func:`_sort_two_groups`) yields
both together; other inputs use one ``np.argsort``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...utils._parallel import sort_in_place


@dataclass(frozen=True, eq=False)
class SortedScores:
    """Scores sorted once, with the group code of every sorted score.

    Attributes
    ----------
    values : ndarray of shape (n_samples,)
        Sorted scores.
    codes : ndarray of shape (n_samples,)
        Group code (``0 .. n_groups-1``) of each sorted score.
    weights : ndarray of shape (n_samples,) or None
        Sample weights in the same order, or None.
    n_groups : int
        Number of groups.
    gap : PairGap or None
        For two groups on the fast path, the gap of the only pair, computed
        while sorting (then ``values``, ``codes`` and ``weights`` are None).
    members : list of ndarray or None
        With more than two groups, the sorted positions of each group's
        scores: a pair's merged scores are gathered from them in
        O(n_a + n_b), so all pairs together read the data ``n_groups - 1``
        times rather than once per pair.
    """

    values: np.ndarray
    codes: np.ndarray
    weights: np.ndarray | None
    n_groups: int
    gap: PairGap | None = None
    members: list | None = None


@dataclass(frozen=True, eq=False)
class PairGap:
    """The gap ``F_a - F_b`` of two groups' ECDFs at their distinct scores.

    Attributes
    ----------
    points : ndarray of shape (n_points,)
        Distinct scores of the two groups, increasing.
    numerator : ndarray of shape (n_points,)
        ``scale * (F_a(t) - F_b(t))`` at each point (right-continuous ECDFs):
        exact int64 counts ``c_a n_b - c_b n_a`` without weights, floats with.
    scale : float
        ``n_a * n_b`` without weights, 1.0 with weights.
    a, b : int
        Group codes.
    """

    points: np.ndarray
    numerator: np.ndarray
    scale: float
    a: int
    b: int

    @property
    def gap(self):
        """``F_a - F_b`` at ``points``, as floats."""
        return self.numerator / self.scale


def sort_scores(scores, codes, n_groups, weights=None):
    """Sort finite ``scores`` once, carrying ``codes`` (and ``weights``) along."""
    if weights is None and n_groups == 2:
        low, high = scores.min(), scores.max()
        if low >= 0.0 and high < 2.0:
            return _sort_two_groups(scores, codes, pad=high <= 1.0)
    order = np.argsort(scores, kind="stable")
    codes = codes[order]
    members = None
    if n_groups > 2:
        by_group = np.argsort(codes, kind="stable")
        ends = np.cumsum(np.bincount(codes, minlength=n_groups))[:-1]
        members = np.split(by_group, ends)
    weights = None if weights is None else weights[order]
    return SortedScores(scores[order], codes, weights, n_groups, None, members)


def _sort_two_groups(scores, codes, pad):
    """One ``np.sort`` of int64 keys for two groups and scores in [0, 2).

    Non-negative doubles below 2 have bit patterns below 2**62, ordered like
    the values: shifted left one bit (which also maps -0.0 to the key of 0.0)
    they leave the lowest bit free for the group label. Sorting the keys sorts
    scores and labels together (on several threads when large: see
    :func:`skfair.utils._parallel.sort_in_place`); the gap numerator is a cumulative
    sum computed in place. With ``pad`` (scores in [0, 1]) the key buffer has
    two extra slots holding the scores 0 and 1 with no group (step 0), so the
    breakpoints of ΔF on [0, 1] come out without another copy.
    """
    n = scores.shape[0]
    extra = 1 if pad else 0
    keys = np.empty(n + 2 * extra, dtype=np.int64)
    body = keys[extra : extra + n]
    np.left_shift(scores.view(np.int64), 1, out=body)
    body |= codes
    sort_in_place(body)
    if pad:
        keys[0] = 0
        keys[-1] = np.left_shift(np.float64(1.0).view(np.int64), 1)
    steps = keys & 1  # the padding slots hold no group: step 0
    keys >>= 1
    gap = _counting_gap(keys.view(np.float64), steps, n, 0, 1)
    return SortedScores(None, None, None, 2, gap)


def _counting_gap(values, in_b, n, a, b):
    """The exact gap from sorted ``values`` and ``in_b`` (0/1, int64, reused).

    A member of ``a`` steps by ``+n_b`` and a member of ``b`` by ``-n_a``
    (entries that are neither step by 0), so the running sum is
    ``c_a * n_b - c_b * n_a``, exactly.
    """
    n_b = int(np.count_nonzero(in_b))
    outside = in_b.shape[0] - n  # padding entries, counted as members of a
    steps = np.multiply(in_b, -n, out=in_b)
    steps += n_b
    if outside:
        steps[0] = steps[-1] = 0
    numerator = np.cumsum(steps, out=steps)
    ends = run_ends(values)
    if ends is not None:
        values, numerator = values[ends], numerator[ends]
    return PairGap(values, numerator, float(n - n_b) * float(n_b), a, b)


def run_ends(values, slab=1 << 20):
    """Indices of the last element of each run of equal sorted values.

    Returns None when every value is distinct. The search for a tie runs one
    slab at a time in a small buffer: a fresh full-size boolean array costs
    more in first-touch page faults than the comparison itself.
    """
    n = values.shape[0]
    buffer = np.empty(min(slab, max(n - 1, 0)), dtype=bool)
    for lo in range(0, n - 1, slab):
        hi = min(lo + slab, n - 1)
        if np.equal(
            values[lo:hi], values[lo + 1 : hi + 1], out=buffer[: hi - lo]
        ).any():
            break
    else:
        return None  # every value distinct: every index ends a run
    ends = np.flatnonzero(values[1:] != values[:-1])
    return np.append(ends, n - 1)


def pair_gap(sorted_scores, a, b):
    """The :class:`PairGap` ``F_a - F_b`` of group codes ``a`` and ``b``."""
    if sorted_scores.gap is not None:
        return sorted_scores.gap
    values, codes = sorted_scores.values, sorted_scores.codes
    weights = sorted_scores.weights
    if sorted_scores.n_groups != 2:
        members = sorted_scores.members
        # Two sorted runs: the stable sort (timsort) merges them in linear time.
        at = np.sort(np.concatenate((members[a], members[b])), kind="stable")
        values, codes = values[at], codes[at]
        weights = None if weights is None else weights[at]
    if weights is None:
        in_b = (codes == b).astype(np.int64)
        return _counting_gap(values, in_b, in_b.shape[0], a, b)
    w_b = np.where(codes == b, weights, 0.0)
    w_a = weights - w_b
    cum_a, cum_b = np.cumsum(w_a), np.cumsum(w_b)
    ends = run_ends(values)
    if ends is not None:
        values, cum_a, cum_b = values[ends], cum_a[ends], cum_b[ends]
    gap = cum_a / cum_a[-1] - cum_b / cum_b[-1]
    gap[-1] = 0.0  # both CDFs reach exactly 1 at the largest score
    return PairGap(values, gap, 1.0, a, b)


def pair_codes(n_groups):
    """The group codes ``(a, b)``, ``a < b``, of every pair: two int arrays.

    The one enumeration of the pairs of groups in skfair's metrics, in
    lexicographic order; :func:`group_pairs` is the same list as tuples.

    Examples
    --------
    >>> from skfair.metrics._kernels import pair_codes
    >>> [c.tolist() for c in pair_codes(3)]
    [[0, 0, 1], [1, 2, 2]]
    """
    a, b = np.triu_indices(n_groups, 1)
    return a.astype(np.intp), b.astype(np.intp)


def group_pairs(n_groups):
    """All unordered pairs of group codes, in lexicographic order.

    Examples
    --------
    >>> from skfair.metrics._kernels import group_pairs
    >>> group_pairs(3)
    [(0, 1), (0, 2), (1, 2)]
    """
    a, b = pair_codes(n_groups)
    return list(zip(a.tolist(), b.tolist()))


def ecdf_gap_at(pair, thresholds):
    """``F_a - F_b`` of a :class:`PairGap` at arbitrary ``thresholds``.

    The ECDFs are right-continuous; the result has the shape of ``thresholds``.
    """
    idx = np.searchsorted(pair.points, thresholds, side="right") - 1
    out = np.where(idx >= 0, pair.numerator[np.maximum(idx, 0)], 0)
    return out / pair.scale
