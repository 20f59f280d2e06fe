"""Bootstrap simultaneous bands of the group CDF gaps (and KDE gaps).

MCDP(ε) for every ε (a max over windows of the min of ``|F_a - F_b|``), its
special case MCDP(0) = ``sup |F_a - F_b|``, and ABCC = ``∫ |F_a - F_b|`` are
1-Lipschitz functions of the CDF gap ``G = F_a - F_b``: in the sup norm for
MCDP, in the L1 norm for ABCC. ABPC = ``∫ |f_a - f_b|`` is 1-Lipschitz in
the L1 norm of the density gap. So if the estimated gap is within ``c`` of
the true gap in that norm, the estimated metric is within ``c`` of the true
metric, *whatever the true value*, including 0 and including ties between
the worst thresholds or pairs, where the plain bootstrap of the metric
fails. ``c`` is estimated by the bootstrap of the *centred* gap process
``Ĝ* - Ĝ`` (each group resampled on its own), whose norm has, for i.i.d.
groups, the limiting distribution of ``Ĝ - G`` (the bootstrap of the
empirical process is consistent; for the KDE at a fixed bandwidth, the
centred process has mean exactly 0).

Several pairs are treated simultaneously: each pair's norm is studentised by
its scale ``s_p`` (``sqrt(1/n_a + 1/n_b)`` for CDFs, ``sqrt(1/(n_a h_a) +
1/(n_b h_b))`` for KDEs of bandwidths ``h``), and ``c`` is the bootstrap
quantile of ``max_p norm_p / s_p``; pair ``p`` gets the half-width
``c * s_p``. When ``n_pairs * n_points`` is too large, the per-group
processes are bounded instead (``max_g norm(F*_g - F_g) / s_g`` with ``s_g =
1/sqrt(n_g)``) and a pair gets ``c (s_a + s_b)`` by the triangle inequality:
valid, a little wider.

A resample arrives as weights along the once-sorted scores (bootstrap
counts times sample weights), so everything here is a vectorised pass over
``(n_resamples, n_samples)`` arrays: cumulative sums per group, gathered at
the distinct scores, and for ABPC a linear binning and one FFT convolution
per group.
"""

from __future__ import annotations

import numpy as np

from .._kernels import (
    compact_plans,
    kde_bandwidth,
    kde_plan,
    kde_rows,
    pair_codes,
    pair_l1_values,
    pairs_l1,
    resampled_kde_rows,
)
from ._dense import abpc_grid
from ._specs import band_norm
from ._threads import map_chunks

# A pair band evaluates n_pairs x n_points gaps per resample; above this the
# per-group band (triangle inequality) is used.
PAIR_BAND_CELLS = 4_000_000
# Elements (pairs x rows x points) of one block of pairs' gaps.
_PAIR_BLOCK = 1 << 21


def critical_value(distribution, level):
    """The ``ceil((B + 1) level)``-th smallest of ``B`` bootstrap values.

    The (B + 1) rule makes a resampling quantile conservative at small B.
    """
    values = np.sort(np.asarray(distribution, dtype=np.float64))
    values = values[np.isfinite(values)]
    if values.size == 0:
        return np.nan
    k = int(np.ceil((values.size + 1) * level)) - 1
    return float(values[min(max(k, 0), values.size - 1)])


class BandData:
    """The data side of the bands: group positions, data CDFs and KDEs, scales.

    Parameters
    ----------
    shared : SharedSort
        The once-sorted data.
    norms : sequence
        ``"sup"``, ``"l1"`` (CDF gap) and ``("kde", bw_method, n_points)``.
    """

    def __init__(self, shared, norms):
        self.norms = tuple(dict.fromkeys(norms))
        self.points = shared.points
        #: Values per group and resample: the CDF points and the KDE grids,
        #: which size the batches of resamples (memory, whatever the groups).
        self.row_width = self.points.size + sum(
            norm[2] for norm in self.norms if isinstance(norm, tuple)
        )
        self.n = shared.n
        w = np.ones(shared.n) if shared.w_sorted is None else shared.w_sorted
        self.groupings = []
        for to_group, grouping in zip(shared.cell_to_group, shared.groupings):
            codes = to_group[shared.cell_sorted]
            members = [np.flatnonzero(codes == g) for g in range(grouping.n_groups)]
            n_eff = np.array([w[m].sum() ** 2 / (w[m] ** 2).sum() for m in members])
            self.groupings.append({"members": members, "n_eff": n_eff, "kde": {}})
        self.n_pairs = sum(
            len(g["members"]) * (len(g["members"]) - 1) // 2 for g in self.groupings
        )
        self._scores = shared.sorted
        self._widths = np.diff(self.points)
        for norm in self.norms:
            if isinstance(norm, tuple):
                self._prepare_kde(norm, w)
        point_of = shared.point_of - shared.pad_left  # index into self.points
        last = np.arange(shared.n) if shared.ends is None else shared.ends
        paired = any(self.pair_mode(n) for n in self.norms if not isinstance(n, tuple))
        for grouping in self.groupings:
            members = grouping["members"]
            if paired:  # every group's CDF at every point
                at = [np.searchsorted(m, last, side="right") for m in members]
                grouping["at"] = at
            else:  # every group's CDF where it steps
                grouping["steps"] = [self._steps(m, point_of, w) for m in members]
        self.data_cdfs = [
            self._cdfs(grouping, w[None, :])[:, 0] if paired else None
            for grouping in self.groupings
        ]

    def _steps(self, members, point_of, w):
        """Where a group's CDF steps, its data CDF there, and each step's width.

        ``(last, data, widths)``: the index among ``members`` of the last
        member at each of its distinct points, the data's CDF there, and the
        distance to its next step (to the last point after the last step).
        """
        at = point_of[members]
        last = np.flatnonzero(np.append(at[1:] != at[:-1], True))
        cum = np.cumsum(w[members])
        data = cum[last] / cum[-1]
        step_points = at[last]
        following = np.append(step_points[1:], self.points.shape[0] - 1)
        return last, data, self.points[following] - self.points[step_points]

    def pair_mode(self, norm):
        """Whether the band of ``norm`` bounds every pair (else every group)."""
        width = self.points.shape[0] if norm in ("sup", "l1") else norm[2]
        return self.n_pairs * width <= PAIR_BAND_CELLS

    # -- CDFs ------------------------------------------------------------------
    def _cdfs(self, grouping, w_rows):
        """Group CDFs at the distinct scores: (n_groups, n_rows, n_points).

        ``np.take`` along the last axis: the same values as fancy indexing,
        several times faster on (rows, samples) arrays. The groups are
        shared among the threads.
        """
        members, at = grouping["members"], grouping["at"]
        out = np.empty((len(members), w_rows.shape[0], self.points.shape[0]))

        def fill(part):
            for g in range(part.start, part.stop):
                cum = np.zeros((w_rows.shape[0], members[g].shape[0] + 1))
                np.cumsum(np.take(w_rows, members[g], axis=1), axis=1, out=cum[:, 1:])
                np.take(cum, at[g], axis=1, out=out[g])
                out[g] /= cum[:, -1:]

        map_chunks(fill, len(members), work=out[0].size)
        return out

    # -- KDEs ------------------------------------------------------------------
    def _prepare_kde(self, norm, w):
        """Each group's KDE plan and data KDE on the grouping's ABPC grid.

        The grid is the public function's (:func:`~._dense.abpc_grid`: the
        norm's domain, or the compared scores' range widened by 4 of the
        largest bandwidths for ``domain=None``).
        """
        _, bw_method, n_points, domain = norm
        options = {"n_points": n_points, "domain": domain}
        for grouping in self.groupings:
            members = grouping["members"]
            h = [
                kde_bandwidth(self._scores[m], w[m], bw_method, label=g)
                for g, m in enumerate(members)
            ]
            at = np.concatenate(members)
            codes = np.repeat(np.arange(len(members)), [m.shape[0] for m in members])
            grid = abpc_grid(self._scores[at], codes, w[at], h, options)
            plans = [kde_plan(self._scores[m], hg, grid) for m, hg in zip(members, h)]
            rows = [kde_rows(p, w[None, m])[0] for p, m in zip(plans, members)]
            data = np.stack(rows)
            plans = compact_plans(plans)  # small groups' kernels, if many
            grouping["kde"][norm] = (plans, data, grid)

    def _centred_kdes(self, grouping, norm, w_rows):
        """Each group's resampled KDE less the data's: (n_groups, n_rows, n_points)."""
        plans, data, _ = grouping["kde"][norm]
        members = grouping["members"]
        out = np.empty((len(members), w_rows.shape[0], norm[2]))

        def fill(part):
            for g in range(part.start, part.stop):
                w_g = np.take(w_rows, members[g], axis=1)
                out[g] = resampled_kde_rows(plans[g], w_g)
                out[g] -= data[g]

        map_chunks(fill, len(members), work=w_rows.shape[0] * norm[2])
        return out

    def kde_pair_values(self, norm, half=None):
        """ABPC of every pair of every grouping, from the data's KDEs.

        Pairs in blocks of ``_PAIR_BLOCK`` gaps: memory independent of the
        number of pairs (all at once held ~130 KB per pair at 5000 points).
        With ``half`` (per grouping, every pair's half-width) a pair is
        exact only where it may give the largest ``value - half`` or ``value
        + half``, and a lower bound of its value elsewhere
        (:func:`~skfair.metrics._kernels.pair_l1_values`): the ends of the
        interval of ``agg="max"`` are those of every pair exact.
        """
        out = []
        for k, grouping in enumerate(self.groupings):
            _, dens, grid = grouping["kde"][norm]
            a, b = pair_codes(len(grouping["members"]))
            if half is None:
                out.append(pairs_l1(dens, a, b, grid))
            else:
                ends = [half[k], -half[k]]
                out.append(pair_l1_values(dens, a, b, grid, ends))
        return out

    def kde_block_values(self, norm, k, a, b, half):
        """:meth:`kde_pair_values` of the pairs ``(a, b)`` of grouping ``k``.

        ``half``: their half-widths; exact where a pair may give the largest
        ``value - half`` or ``value + half`` among these pairs.
        """
        _, dens, grid = self.groupings[k]["kde"][norm]
        return pair_l1_values(dens, a, b, grid, [half, -half])

    def scales(self, norm):
        """Per grouping, the studentising scale of each group (``1/sqrt(n h)``)."""
        out = []
        for grouping in self.groupings:
            n_eff = grouping["n_eff"]
            if isinstance(norm, tuple):
                h = np.array([p["bandwidth"] for p in grouping["kde"][norm][0]])
                out.append(1.0 / np.sqrt(n_eff * h))
            else:
                out.append(1.0 / np.sqrt(n_eff))
        return out

    def group_halfwidths(self, norm, critical):
        """Per grouping, each group's part ``critical * scale`` of a band of groups.

        A pair's half-width is the sum of its two groups' (infinite for a
        one-sample group, as in :meth:`pair_halfwidths`).
        """
        out = []
        for scale, grouping in zip(self.scales(norm), self.groupings):
            single = np.array([m.shape[0] < 2 for m in grouping["members"]])
            out.append(np.where(single, np.inf, critical * scale))
        return out

    def pair_halfwidths(self, norm, critical):
        """Per grouping, the half-width of every pair's interval.

        Infinite for a pair with a one-sample group: its resamples all equal
        the data, so the bootstrap says nothing about that group's spread.
        """
        out = []
        for k, scale in enumerate(self.scales(norm)):
            a, b = pair_codes(scale.shape[0])
            out.append(self.halfwidths_of(norm, critical, k, a, b, scale))
        return out

    def halfwidths_of(self, norm, critical, k, a, b, scale):
        """:meth:`pair_halfwidths` of the pairs ``(a, b)`` of grouping ``k``.

        ``scale``: that grouping's :meth:`scales`.
        """
        if self.pair_mode(norm):
            half = critical * np.sqrt(scale[a] ** 2 + scale[b] ** 2)
        else:
            half = critical * (scale[a] + scale[b])
        members = self.groupings[k]["members"]
        single = np.array([m.shape[0] < 2 for m in members])
        return np.where(single[a] | single[b], np.inf, half)

    # -- the statistic -----------------------------------------------------------
    def studentised_maxima(self, w_rows):
        """Per norm, ``max`` over pairs (or groups) of the studentised norm.

        ``w_rows`` (n_rows, n_samples): resample weights along the sorted
        scores. Returns (n_norms, n_rows).
        """
        out = np.full((len(self.norms), w_rows.shape[0]), -np.inf)
        cdf_norms = [n for n in self.norms if not isinstance(n, tuple)]
        for k, grouping in enumerate(self.groupings):
            if cdf_norms and self.data_cdfs[k] is None:
                maxima = self._group_maxima(cdf_norms, grouping, k, w_rows)
            elif cdf_norms:
                centred = self._cdfs(grouping, w_rows)
                centred -= self.data_cdfs[k][:, None]
                maxima = self._cdf_maxima(cdf_norms, centred, k)
            if cdf_norms:
                for norm, best in zip(cdf_norms, maxima):
                    j = self.norms.index(norm)
                    out[j] = np.maximum(out[j], best)
            for j, norm in enumerate(self.norms):
                if isinstance(norm, tuple) and not self.pair_mode(norm):
                    best = self._group_kde_maxima(grouping, norm, k, w_rows)
                    out[j] = np.maximum(out[j], best)
                elif isinstance(norm, tuple):
                    centred = self._centred_kdes(grouping, norm, w_rows)
                    out[j] = np.maximum(out[j], self._maximum(norm, centred, k))
        return out

    def _group_kde_maxima(self, grouping, norm, k, w_rows):
        """Max over groups of the studentised L1 norm of the centred KDE.

        Group mode: each group's centred KDE is integrated as soon as it is
        made, so the memory is one group's rows, not ``(n_groups, n_rows,
        n_points)`` (400 MB a resample at 10,000 groups); each row is
        integrated on its own, as the whole array was. The groups are shared
        among the threads.
        """
        plans, data, grid = grouping["kde"][norm]
        members, scale = grouping["members"], self.scales(norm)[k]

        def best_of(part):
            best = np.full(w_rows.shape[0], -np.inf)
            for g in range(part.start, part.stop):
                w_g = np.take(w_rows, members[g], axis=1)
                centred = resampled_kde_rows(plans[g], w_g)
                centred -= data[g]
                np.abs(centred, out=centred)
                value = np.trapezoid(centred, grid, axis=-1) / scale[g]
                np.maximum(best, value, out=best)
            return best

        parts = map_chunks(best_of, len(members), work=w_rows.shape[0] * norm[2])
        return np.max(np.stack(parts), axis=0)

    def _cdf_maxima(self, norms, centred, k):
        """The studentised maxima of the CDF norms in pair mode.

        The norms share each pair's ``|centred_a - centred_b|`` (one buffer
        per thread, reused; the pairs are shared among the threads).
        """
        a, b = pair_codes(centred.shape[0])
        steps = [
            np.sqrt(scale[a] ** 2 + scale[b] ** 2)
            for scale in (self.scales(n)[k] for n in norms)
        ]  # each pair's studentising scale, per norm
        integrators = [self._integrator(n) for n in norms]

        def best_of(part):
            best = np.full((len(norms), centred.shape[1]), -np.inf)
            buffer = np.empty(centred.shape[1:])
            for p in range(part.start, part.stop):  # no pairs x points copy
                gap = np.subtract(centred[a[p]], centred[b[p]], out=buffer)
                np.abs(gap, out=gap)
                for j, integrate in enumerate(integrators):
                    np.maximum(best[j], integrate(gap) / steps[j][p], out=best[j])
            return best

        parts = map_chunks(best_of, a.shape[0], work=centred[0].size)
        return list(np.max(np.stack(parts), axis=0))

    def _group_maxima(self, norms, grouping, k, w_rows):
        """The studentised maxima of the CDF norms in group mode.

        A group's centred CDF ``F*_g - F_g`` is constant between its own
        steps, so its sup and L1 norms are taken there: a pass over the
        group's samples, not over every score. The groups are shared among
        the threads.
        """
        members, steps = grouping["members"], grouping["steps"]
        scales = [self.scales(n)[k] for n in norms]

        def best_of(part):
            best = np.full((len(norms), w_rows.shape[0]), -np.inf)
            for g in range(part.start, part.stop):
                last, data, widths = steps[g]
                cum = np.cumsum(np.take(w_rows, members[g], axis=1), axis=1)
                gap = np.take(cum, last, axis=1)
                gap /= cum[:, -1:]
                gap -= data
                np.abs(gap, out=gap)
                for j, norm in enumerate(norms):
                    if norm == "sup":
                        value = gap.max(axis=1)
                    else:
                        value = np.multiply(gap, widths).sum(axis=1)
                    np.maximum(best[j], value / scales[j][g], out=best[j])
            return best

        parts = map_chunks(best_of, len(members), work=w_rows.shape[1])
        return list(np.max(np.stack(parts), axis=0))

    def _maximum(self, norm, centred, k):
        """Max over pairs of the studentised KDE norm of ``centred`` (pair mode).

        Group mode integrates each group as it is made
        (:meth:`_group_kde_maxima`).
        """
        scale = self.scales(norm)[k]
        integrate = self._integrator(norm, k)
        a, b = pair_codes(scale.shape[0])
        s = np.sqrt(scale[a] ** 2 + scale[b] ** 2)
        best = np.full(centred.shape[1], -np.inf)
        block = max(1, _PAIR_BLOCK // max(centred[0].size, 1))
        for lo in range(0, a.shape[0], block):  # pairs x points in blocks
            pa, pb = a[lo : lo + block], b[lo : lo + block]
            norm_p = integrate(np.abs(centred[pa] - centred[pb]))
            best = np.maximum(best, (norm_p / s[lo : lo + block, None]).max(axis=0))
        return best

    def _integrator(self, norm, k=0):
        """The norm of the rows of a ``|gap|`` array (its last axis).

        A KDE norm integrates on grouping ``k``'s grid.

        The L1 norm multiplies and sums (``np.multiply(...).sum()``), not
        ``@``: a BLAS call wakes a thread pool, which on a busy machine costs
        far more than the product.
        """
        if norm == "sup":
            return lambda v: v.max(axis=-1)
        if norm == "l1":
            widths = self._widths
            return lambda v: np.multiply(v[..., :-1], widths).sum(axis=-1)
        grid = self.groupings[k]["kde"][norm][2]
        return lambda v: np.trapezoid(v, grid, axis=-1)


def interval_band(shared, specs):
    """The simultaneous bands of the specs' gaps, one per norm, or None.

    Each metric is 1-Lipschitz in a norm of the group gap (sup for MCDP(ε)
    and ΔDP_b^t, L1 for ABCC and ΔDP_c, the density gap's L1 for ABPC:
    :func:`~skfair.metrics.inference.band_norm`); the band of each norm
    distinct among ``specs`` is built on ``shared``. None when ``specs`` is
    empty.
    """
    norms = [band_norm(s) for s in specs]
    return BandData(shared, norms) if norms else None
