"""One pair of groups from the histograms: certified bounds, exact numerators.

For groups ``a``, ``b`` the histograms of pass 1 give the exact counts below
every bin edge, hence the exact numerator ``N(t) = c_a(t) n_b - c_b(t) n_a``
of the CDF gap just before every edge and certified integer bounds
``lo <= N(t) <= hi`` inside each bin (:class:`PairBounds`). The scores that
pass 2 ships for the undecided bins (:func:`pair_points`) get their exact
numerators from the prefix counts at the start of their bins plus the
in-bin counts (:func:`exact_numerators`).
"""

from __future__ import annotations

import numpy as np

from ._passes import bins_of


class PairBounds:
    """Certified bounds on the gap numerator of one pair, bin by bin."""

    def __init__(self, ha, hb):
        self.Ca = np.concatenate(([0], np.cumsum(ha))).astype(np.int64)
        self.Cb = np.concatenate(([0], np.cumsum(hb))).astype(np.int64)
        self.na, self.nb = int(self.Ca[-1]), int(self.Cb[-1])
        na, nb = self.na, self.nb
        self.E = self.Ca * nb - self.Cb * na  # just before each edge
        lo = self.Ca[:-1] * nb - self.Cb[1:] * na
        hi = self.Ca[1:] * nb - self.Cb[:-1] * na
        self.U = np.maximum(np.abs(lo), np.abs(hi))
        self.L = np.where((lo <= 0) & (hi >= 0), 0, np.minimum(np.abs(lo), np.abs(hi)))
        self.crossing = (lo < 0) & (hi > 0)
        self.nonempty = (ha + hb) > 0


def pair_points(points, a, b, spec):
    """Distinct scores of groups a, b among the shipped ones, with in-bin counts."""
    values, codes, counts = points
    mask = (codes == a) | (codes == b)
    v, c, n = values[mask], codes[mask], counts[mask]
    order = np.argsort(v, kind="stable")
    v, c, n = v[order], c[order], n[order]
    if v.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return v, empty, empty, np.zeros(0, dtype=np.intp)
    new = np.r_[True, v[1:] != v[:-1]]
    group = np.cumsum(new) - 1
    m = int(group[-1]) + 1
    ca = np.bincount(group, weights=n * (c == a), minlength=m).astype(np.int64)
    cb = np.bincount(group, weights=n * (c == b), minlength=m).astype(np.int64)
    u = v[new]
    return u, ca, cb, bins_of(u, spec)


def exact_numerators(u, ca, cb, bins, Ca, Cb, na, nb):
    """``c_a n_b - c_b n_a`` at the shipped scores, from bin prefix counts."""
    if u.size == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.r_[True, bins[1:] != bins[:-1]]
    run = np.cumsum(first) - 1
    cum_a, cum_b = np.cumsum(ca), np.cumsum(cb)
    base_a, base_b = (cum_a - ca)[first], (cum_b - cb)[first]
    c_a = Ca[bins] + cum_a - base_a[run]
    c_b = Cb[bins] + cum_b - base_b[run]
    return c_a * nb - c_b * na
