"""HFM's approximate distances: AcceleDist (Alg. 1) and ApproxDist (Algs. 2, 4).

Bian et al. (2024) approximate every point's distance to the nearest point of
another group by projecting the points on random directions, sorting the
projections, and examining only the ``m2`` nearest other-group points on
each side in that order (AcceleDist); ApproxDist keeps the smallest of the
maxima (and means) over ``m1`` directions. Each estimate is the true distance
to *some* other-group point, so it never falls below the exact one
(:func:`~skfair.metrics._kernels.nearest_other_group`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...utils._parallel import effective_n_threads

#: Coordinates gathered at once by the approximation (about 2 MB of float64).
_SCAN_BUDGET = 1 << 18


def _scan_neighbours(Zm, Zo, before, m2):
    """Nearest of the ``m2`` other-group neighbours on each side, squared.

    ``Zm`` are one group's points and ``Zo`` the other groups' points, both
    in projection order; ``before[i]`` is the number of other-group points
    that precede member ``i``, so its ``t``-th other-group neighbour on the
    left is ``Zo[before[i] - t]`` and on the right ``Zo[before[i] + t - 1]``.
    """
    n_members, n_others = Zm.shape[0], Zo.shape[0]
    m2 = min(m2, n_others)  # farther offsets fall outside on both sides
    offsets = np.concatenate([-np.arange(1, m2 + 1), np.arange(m2)])
    out = np.empty(n_members)
    step = max(1, _SCAN_BUDGET // (offsets.size * max(Zm.shape[1], 1)))
    for start in range(0, n_members, step):
        stop = min(start + step, n_members)
        index = before[start:stop, None] + offsets
        outside = (index < 0) | (index >= n_others)
        np.clip(index, 0, n_others - 1, out=index)
        # Same arithmetic as _rowwise_sqdist: difference, square, row sum.
        diff = np.subtract(Zm[start:stop, None, :], Zo[index])
        np.square(diff, out=diff)
        sq = diff.sum(axis=2)
        sq[outside] = np.inf
        sq.min(axis=1, out=out[start:stop])
    return out


def _accele_dist(Z, codes, n_groups, projection, m2):
    """Algorithm 1 (AcceleDist), vectorised over the points.

    Sort the points by their projection; for every point examine at most
    ``m2`` points of *other* groups on each side in that order (same-group
    points are skipped without counting) and keep the nearest. Returns the
    estimated nearest-other-group distance of every point (in sorted order).
    Every estimate is the true distance to some other-group point, hence
    never below the exact one.
    """
    order = np.argsort(projection, kind="stable")
    sorted_codes = codes[order]
    best = np.empty(Z.shape[0])
    for g in range(n_groups):
        own = sorted_codes == g
        members = np.flatnonzero(own)
        others = np.flatnonzero(~own)
        before = members - np.arange(members.size)
        best[members] = _scan_neighbours(
            Z[order[members]], Z[order[others]], before, m2
        )
    return np.sqrt(best)


def _l1_direction(dim, rng):
    """A random direction with ||w||_1 = 1, uniform on the l1 sphere."""
    w = rng.standard_exponential(dim)
    w /= w.sum()
    w *= rng.choice((-1.0, 1.0), size=dim)
    return w[:, None]


def _orthonormal_directions(dim, n_directions, rng):
    """``n_directions`` orthonormal random directions (Haar-distributed)."""
    n_directions = min(n_directions, dim)
    q, r = np.linalg.qr(rng.standard_normal((dim, n_directions)))
    return q * np.sign(np.diag(r))


def projected_other_group_distances(Z, codes, n_groups, m1, m2, rng, n_directions=2):
    """ApproxDist: Algorithm 4 (binary attribute) or Algorithm 2 (multi-valued).

    Returns the approximations of ``D`` and ``D_avg``: the minima, over
    ``m1`` repetitions and their projection directions, of AcceleDist's
    maximum and mean. The directions are drawn first, in order, so the
    result does not depend on the worker threads that evaluate them.
    """
    if n_groups == 2:
        directions = [_l1_direction(Z.shape[1], rng) for _ in range(m1)]
    else:
        directions = [
            _orthonormal_directions(Z.shape[1], n_directions, rng) for _ in range(m1)
        ]
    directions = np.concatenate(directions, axis=1).T

    def evaluate(w):
        nearest = _accele_dist(Z, codes, n_groups, Z @ w, m2)
        return float(nearest.max()), float(nearest.sum())

    n_workers = min(effective_n_threads(), len(directions))
    if n_workers > 1 and Z.shape[0] >= 2048:
        with ThreadPoolExecutor(n_workers) as pool:
            found = list(pool.map(evaluate, directions))
    else:
        found = [evaluate(w) for w in directions]
    d_max = min(d for d, _ in found)
    d_sum = min(s for _, s in found)
    return d_max, d_sum / Z.shape[0]
