"""Exact distance from every point to the nearest point of another group.

This is the engine behind the exact HFM distances (:func:`skfair.metrics.hfm`):
for points ``Z`` (one row per sample) partitioned into groups, it returns, for
every point, the Euclidean distance to the nearest point of a *different*
group. Every HFM set distance is a max or a mean of these numbers.

Two exact strategies, chosen by dimension:

* ``"kd_tree"`` -- one :class:`sklearn.neighbors.KDTree` per group complement,
  queried with that group's points. Distances are computed directly from the
  coordinate differences, so they are exact up to the rounding of a single
  distance evaluation. Fast in low dimension.
* ``"gemm"`` -- blocked matrix products ``|a|^2 + |b|^2 - 2 a.b`` through BLAS,
  one tile of at most ``tile_rows x tile_cols`` distances in memory per worker
  thread (never an ``n x n`` matrix), followed by an **exactness
  refinement**: the expansion rounds (badly so for points far from the
  origin or nearly tied), so every row/column minimum is *certified* with a
  rigorous floating-point error bound, and all pairs that the bound cannot
  rule out are recomputed from the coordinate differences. The minimum of
  those direct distances is returned, so the result is the same as a
  brute-force ``scipy.spatial.distance.cdist`` computation up to the rounding
  of that one distance evaluation (a few ulps), whatever the data.

Identical points within a group are merged first (they share their nearest
other-group distance), which keeps both strategies fast on tie-heavy data
such as one-hot encoded tables.

The certificate of the GEMM strategy. The points are centred first (``zc =
z - mean``; a distance moves by at most ``u (|zc_i| + |zc_j|)``, ``u`` the unit
roundoff). A GEMM entry ``s`` of ``|zc_i|^2 + |zc_j|^2 - 2 zc_i.zc_j`` with
``K`` coordinates is within ``E = 2 gamma_{K+2} (|zc_i| + |zc_j|)^2`` of the
exact squared distance, whatever the summation order or FMA use of the BLAS
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Sec. 3.1),
with ``gamma_k = k u / (1 - k u)``; the code uses ``4 (K + 4) u``. Within a
tile, with ``s_min`` a row's smallest entry, every entry above
``T = ((sqrt(s_min + E) + 2 H) (1 + rho))^2 + E`` belongs to a point strictly
farther than the row's nearest one, even after rounding its direct distance
(``H`` bounds the centring shift and ``rho`` the relative error of one direct
distance); the entries up to ``T`` are recomputed from the differences. In
practice only the argmin and exact ties survive, so the refinement costs O(n)
direct distances, while points far from the origin or near-ties simply give
more candidates. Tiles that cannot beat a point's current exact minimum are
skipped. The one costly case is data made of clusters far apart from each
other (relative to their inner distances), which a single centring cannot
bring near the origin: the result stays exact, but many pairs are recomputed
directly. HFM's inputs, scaled to [0, 1], are far from it.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
from sklearn.neighbors import KDTree
from threadpoolctl import threadpool_limits

from ...utils._parallel import effective_n_threads

#: Unit roundoff of float64.
_U = np.finfo(np.float64).eps / 2

#: Dimension (label + features) up to which the KD-tree is used by default:
#: on uniform data at n = 30,000 the tree wins below ~9 dimensions, and real
#: (low intrinsic dimension) data favour the tree further.
_TREE_MAX_DIM = 10

#: Largest coordinate magnitude for which the squared norms cannot overflow.
_GEMM_MAX_ABS = 1e150

#: Default tile shape of the GEMM strategy (rows x columns of one block).
_TILE_ROWS = 256
_TILE_COLS = 2048

#: Largest number of coordinates gathered at once when recomputing distances.
_REFINE_BATCH = 1 << 21

ALGORITHM_ERROR = "algorithm must be 'auto', 'kd_tree' or 'gemm'; got {algorithm!r}."


def _rowwise_sqdist(A, B):
    """``|A[t] - B[t]|^2`` for every row ``t``, from the differences.

    Each row is summed on its own (numpy's pairwise sum along that row), so
    the value of one pair never depends on the other rows: the exact and the
    approximate algorithms give bit-identical distances for the same pair.
    """
    diff = np.subtract(A, B)
    np.square(diff, out=diff)
    return diff.sum(axis=1)


def _sqdist_pairs(Z, rows, cols):
    """Squared distances ``|Z[rows[t]] - Z[cols[t]]|^2``, in bounded memory."""
    out = np.empty(rows.shape[0], dtype=np.float64)
    step = max(1, _REFINE_BATCH // max(Z.shape[1], 1))
    for start in range(0, rows.shape[0], step):
        stop = start + step
        out[start:stop] = _rowwise_sqdist(Z[rows[start:stop]], Z[cols[start:stop]])
    return out


def _hash_multipliers(dim):
    """Fixed odd 64-bit multipliers hashing a row of ``dim`` coordinates."""
    rng = np.random.default_rng(20240601)
    mult = rng.integers(1, np.iinfo(np.int64).max, size=dim, dtype=np.int64)
    return mult.astype(np.uint64) | np.uint64(1)


def _dedupe(Z, codes):
    """Merge identical rows within each group.

    Returns ``(Z_unique, codes_unique, inverse)`` with
    ``Z_unique[inverse] == Z``, or ``None`` when all rows are distinct.
    """
    n, dim = Z.shape
    if n < 2:
        return None
    # Hash the bit patterns (+0.0 turns -0.0 into 0.0), then verify exactly.
    bits = np.ascontiguousarray(Z + 0.0).view(np.uint64)
    with np.errstate(over="ignore"):
        key = (bits * _hash_multipliers(dim)).sum(axis=1, dtype=np.uint64)
        key = key * np.uint64(0x9E3779B97F4A7C15) + codes.astype(np.uint64)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if first.shape[0] == n:
        return None
    same = np.array_equal(Z[first[inverse]], Z) and np.array_equal(
        codes[first[inverse]], codes
    )
    if not same:  # a hash collision: fall back to an exact row sort
        table = np.column_stack([codes.astype(np.float64), Z + 0.0])
        _, first, inverse = np.unique(
            table, axis=0, return_index=True, return_inverse=True
        )
        if first.shape[0] == n:
            return None
    return Z[first], codes[first], inverse.ravel()


def nearest_other_group(Z, codes, *, algorithm="auto", n_threads=None):
    """Distance from every point to the nearest point of another group.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_dims), dtype float64
        Finite coordinates, one row per point.
    codes : ndarray of shape (n_samples,), dtype intp
        Group of every point, in ``range(n_groups)``; at least two groups,
        none empty.
    algorithm : {"auto", "kd_tree", "gemm"}, default="auto"
        ``"auto"`` uses the KD-tree up to 10 dimensions, else the certified
        GEMM strategy (see the module docstring). Both are exact.
    n_threads : int or None, default=None
        Worker threads. None means the BLAS thread setting (see
        ``threadpoolctl``), capped by the CPUs available to this process.

    Returns
    -------
    distances : ndarray of shape (n_samples,)
        ``min ||Z[i] - Z[j]||`` over the points ``j`` of other groups.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0], [1.0], [3.0]])
    >>> nearest_other_group(Z, np.array([0, 0, 1]))
    array([3., 2., 2.])
    """
    if algorithm not in ("auto", "kd_tree", "gemm"):
        raise ValueError(ALGORITHM_ERROR.format(algorithm=algorithm))
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)
    if n_threads is None:
        n_threads = effective_n_threads()
    merged = _dedupe(Z, codes)
    if merged is not None:
        Zu, codes_u, inverse = merged
        return _nearest(Zu, codes_u, algorithm, n_threads)[inverse]
    return _nearest(Z, codes, algorithm, n_threads)


def _nearest(Z, codes, algorithm, n_threads):
    """:func:`nearest_other_group` on rows without within-group duplicates."""
    if algorithm == "auto":
        algorithm = "kd_tree" if Z.shape[1] <= _TREE_MAX_DIM else "gemm"
    if algorithm == "gemm" and Z.size and np.abs(Z).max() > _GEMM_MAX_ABS:
        # Squared norms would overflow: the tree works on the differences.
        algorithm = "kd_tree"
    if algorithm == "kd_tree":
        return _tree_nearest(Z, codes, n_threads)
    return _gemm_nearest(Z, codes, n_threads)


# ----------------------------------------------------------------------------
# KD-tree strategy


def _query_nearest(tree, queries):
    return tree.query(queries, k=1)[0][:, 0]


def _tree_nearest(Z, codes, n_threads):
    n_groups = int(codes.max()) + 1
    out = np.empty(Z.shape[0], dtype=np.float64)
    for g in range(n_groups):
        members = np.flatnonzero(codes == g)
        others = np.flatnonzero(codes != g)
        tree = KDTree(Z[others])
        queries = Z[members]
        n_jobs = min(n_threads, max(1, queries.shape[0] // 2048))
        if n_jobs == 1:
            dist = _query_nearest(tree, queries)
        else:
            parts = np.array_split(queries, n_jobs)
            with ThreadPoolExecutor(n_jobs) as pool:
                found = list(pool.map(partial(_query_nearest, tree), parts))
            dist = np.concatenate(found)
        out[members] = dist
    return out


# ----------------------------------------------------------------------------
# GEMM strategy with certified minima


class _GemmProblem:
    """Data shared (read-only) by the GEMM workers.

    Points are sorted by group so that every group is a contiguous slice.
    ``left @ right.T`` is the matrix of squared distances of the centred
    points: ``left = [Zc, |Zc|^2, 1]`` and ``right = [-2 Zc, 1, |Zc|^2]``.
    """

    def __init__(self, Z, codes):
        self.perm = np.argsort(codes, kind="stable")
        self.Z = Z[self.perm]
        codes = codes[self.perm]
        n, dim = self.Z.shape
        self.bounds = np.searchsorted(codes, np.arange(int(codes[-1]) + 2))
        centred = self.Z - self.Z.mean(axis=0)
        sq = np.einsum("ij,ij->i", centred, centred)
        self.left = np.empty((n, dim + 2))
        self.left[:, :dim] = centred
        self.left[:, dim] = sq
        self.left[:, dim + 1] = 1.0
        self.right = np.empty((n, dim + 2))
        np.multiply(centred, -2.0, out=self.right[:, :dim])
        self.right[:, dim] = 1.0
        self.right[:, dim + 1] = sq
        # Upper bounds of the exact norms of the centred points.
        self.norms = np.sqrt(sq) * (1.0 + (dim + 2) * _U) + np.finfo(float).tiny
        # Error of one entry of left @ right.T against the exact squared
        # distance of the centred points is <= gemm_err * (N_i + N_j)^2: the
        # dot product of dim + 2 terms (any summation order) plus the error of
        # the squared norms, with a safety factor 2.
        self.gemm_err = 4.0 * (dim + 4) * _U
        # Centring rounds every coordinate: distances of the centred points
        # differ from the original ones by <= shift_err * (N_i + N_j).
        self.shift_err = 1.01 * _U
        # Relative error of one directly computed distance; candidates are
        # kept with this much slack so that the minimum of the *computed*
        # distances is found even among near-ties.
        self.slack = 3.0 * (dim + 6) * _U

    def _bounds(self, low, own, other):
        """Per-entry error terms and the lower bound on the true distances.

        ``low`` are the tile's minima (GEMM values) of the points ``own``
        against the points ``other``; returns ``(err, shift, lower)`` where
        every true distance in the tile is ``>= lower`` and the threshold of
        the candidates follows from ``err`` and ``shift``.
        """
        span = self.norms[own] + self.norms[other].max()
        err = self.gemm_err * span * span
        shift = self.shift_err * span
        lower = np.sqrt(np.maximum(low - err, 0.0)) - shift
        return err, shift, lower

    def _threshold(self, low, err, shift):
        """GEMM value above which an entry cannot hold the computed minimum."""
        upper = (np.sqrt(low + err) + 2.0 * shift) * (1.0 + self.slack)
        return upper * upper + err

    def refine_rows(self, S, r0, c0, best):
        """Certified minima of the rows of tile ``S`` (rows ``r0 + i``)."""
        n_rows, n_cols = S.shape
        rows = np.arange(r0, r0 + n_rows)
        arg = S.argmin(axis=1)
        low = S[np.arange(n_rows), arg]
        err, shift, lower = self._bounds(low, rows, slice(c0, c0 + n_cols))
        need = np.flatnonzero(lower * (1.0 - self.slack) <= best[rows])
        if need.size == 0:
            return
        threshold = self._threshold(low[need], err[need], shift[need])
        # The argmin is a candidate; look for others with the second minimum.
        block = S if need.size == n_rows else S[need]
        local = np.arange(need.size)
        saved = block[local, arg[need]]
        block[local, arg[need]] = np.inf
        second = block.min(axis=1)
        block[local, arg[need]] = saved
        own = r0 + need
        dist = np.sqrt(_sqdist_pairs(self.Z, own, c0 + arg[need]))
        np.minimum.at(best, own, dist)
        tied = np.flatnonzero(second <= threshold)
        if tied.size:
            hit_row, hit_col = np.nonzero(block[tied] <= threshold[tied, None])
            own = r0 + need[tied[hit_row]]
            dist = np.sqrt(_sqdist_pairs(self.Z, own, c0 + hit_col))
            np.minimum.at(best, own, dist)

    def refine_cols(self, S, r0, c0, best):
        """Certified minima of the columns of tile ``S`` (points ``c0 + j``)."""
        n_rows, n_cols = S.shape
        cols = np.arange(c0, c0 + n_cols)
        low = S.min(axis=0)
        err, shift, lower = self._bounds(low, cols, slice(r0, r0 + n_rows))
        need = np.flatnonzero(lower * (1.0 - self.slack) <= best[cols])
        if need.size == 0:
            return
        threshold = self._threshold(low[need], err[need], shift[need])
        block = S if need.size == n_cols else S[:, need]
        hit_row, hit_col = np.nonzero(block <= threshold)
        own = c0 + need[hit_col]
        dist = np.sqrt(_sqdist_pairs(self.Z, own, r0 + hit_row))
        np.minimum.at(best, own, dist)

    def tasks(self, tile_rows):
        """(row slice, column group) work items, largest first."""
        items = []
        n_groups = self.bounds.shape[0] - 1
        for g in range(n_groups):
            for h in range(g + 1, n_groups):
                start, stop = self.bounds[g], self.bounds[g + 1]
                for r0 in range(start, stop, tile_rows):
                    r1 = min(r0 + tile_rows, stop)
                    cost = (r1 - r0) * (self.bounds[h + 1] - self.bounds[h])
                    items.append((cost, r0, r1, h))
        items.sort(key=lambda item: -item[0])
        return [item[1:] for item in items]

    def run(self, r0, r1, h, tile_cols, best):
        """Process rows ``r0:r1`` against every column of group ``h``."""
        left = self.left[r0:r1]
        start, stop = self.bounds[h], self.bounds[h + 1]
        for c0 in range(start, stop, tile_cols):
            c1 = min(c0 + tile_cols, stop)
            S = left @ self.right[c0:c1].T
            self.refine_cols(S, r0, c0, best)
            self.refine_rows(S, r0, c0, best)


def _gemm_nearest(Z, codes, n_threads, tile_rows=_TILE_ROWS, tile_cols=_TILE_COLS):
    problem = _GemmProblem(Z, codes)
    n = Z.shape[0]
    tasks = problem.tasks(tile_rows)
    n_workers = max(1, min(n_threads, len(tasks)))
    if n_workers == 1:
        best = np.full(n, np.inf)
        for r0, r1, h in tasks:
            problem.run(r0, r1, h, tile_cols, best)
    else:
        lock = threading.Lock()
        queue = iter(tasks)

        def worker():
            mine = np.full(n, np.inf)
            while True:
                with lock:
                    task = next(queue, None)
                if task is None:
                    return mine
                problem.run(*task, tile_cols, mine)

        # One BLAS thread per worker: the workers share the cores instead.
        with threadpool_limits(limits=1, user_api="blas"):
            with ThreadPoolExecutor(n_workers) as pool:
                futures = [pool.submit(worker) for _ in range(n_workers)]
                results = [f.result() for f in futures]
        best = np.minimum.reduce(results)
    out = np.empty(n)
    out[problem.perm] = best
    return out
