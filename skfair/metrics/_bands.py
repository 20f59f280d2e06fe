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
from scipy.signal import fftconvolve

from ._intervals import pair_codes
from ._kde import (
    _BINS_PER_BANDWIDTH,
    _MAX_FINE_GRID,
    _TRUNCATE,
    binned_kde,
    kde_bandwidth,
)

# A pair band evaluates n_pairs x n_points gaps per resample; above this the
# per-group band (triangle inequality) is used.
PAIR_BAND_CELLS = 4_000_000


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
    resampler : _Resampler
        The once-sorted data.
    norms : sequence
        ``"sup"``, ``"l1"`` (CDF gap) and ``("kde", bw_method, n_points)``.
    """

    def __init__(self, resampler, norms):
        self.norms = tuple(dict.fromkeys(norms))
        self.points = resampler.points
        self.n = resampler.n
        w = np.ones(resampler.n) if resampler.w_sorted is None else resampler.w_sorted
        self.groupings = []
        for to_group, grouping in zip(resampler.cell_to_group, resampler.groupings):
            codes = to_group[resampler.cell_sorted]
            members = [np.flatnonzero(codes == g) for g in range(grouping.n_groups)]
            last = np.arange(resampler.n) if resampler.ends is None else resampler.ends
            at = [np.searchsorted(m, last, side="right") for m in members]
            n_eff = np.array([w[m].sum() ** 2 / (w[m] ** 2).sum() for m in members])
            self.groupings.append(
                {"members": members, "at": at, "n_eff": n_eff, "kde": {}}
            )
        self.n_pairs = sum(
            len(g["members"]) * (len(g["members"]) - 1) // 2 for g in self.groupings
        )
        self._scores = resampler.sorted
        for norm in self.norms:
            if isinstance(norm, tuple):
                self._prepare_kde(norm, w)
        data = w[None, :]
        self.data_cdfs = [
            self._cdfs(grouping, data)[:, 0] for grouping in self.groupings
        ]

    def pair_mode(self, norm):
        """Whether the band of ``norm`` bounds every pair (else every group)."""
        width = self.points.shape[0] if norm in ("sup", "l1") else norm[2]
        return self.n_pairs * width <= PAIR_BAND_CELLS

    # -- CDFs ------------------------------------------------------------------
    def _cdfs(self, grouping, w_rows):
        """Group CDFs at the distinct scores: (n_groups, n_rows, n_points)."""
        out = np.empty(
            (len(grouping["members"]), w_rows.shape[0], self.points.shape[0])
        )
        for g, (m, at) in enumerate(zip(grouping["members"], grouping["at"])):
            cum = np.zeros((w_rows.shape[0], m.shape[0] + 1))
            np.cumsum(w_rows[:, m], axis=1, out=cum[:, 1:])
            out[g] = cum[:, at] / cum[:, -1:]
        return out

    # -- KDEs ------------------------------------------------------------------
    def _prepare_kde(self, norm, w):
        _, bw_method, n_points = norm
        grid = np.linspace(0.0, 1.0, n_points)
        for grouping in self.groupings:
            plans = []
            for g, m in enumerate(grouping["members"]):
                x = self._scores[m]
                h = kde_bandwidth(x, w[m], bw_method, label=g)
                plans.append(_kde_plan(x, h, grid))
            data = [
                _kde_rows(plan, w[None, m])
                for plan, m in zip(plans, grouping["members"])
            ]
            grouping["kde"][norm] = (plans, np.stack([d[0] for d in data]))

    def kde_pair_values(self, norm):
        """ABPC of every pair of every grouping, from the data's KDEs."""
        grid = np.linspace(0.0, 1.0, norm[2])
        out = []
        for grouping in self.groupings:
            dens = grouping["kde"][norm][1]
            a, b = pair_codes(len(grouping["members"]))
            out.append(np.trapezoid(np.abs(dens[a] - dens[b]), grid, axis=-1))
        return out

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

    def pair_halfwidths(self, norm, critical):
        """Per grouping, the half-width of every pair's interval.

        Infinite for a pair with a one-sample group: its resamples all equal
        the data, so the bootstrap says nothing about that group's spread.
        """
        out = []
        for scale, grouping in zip(self.scales(norm), self.groupings):
            a, b = pair_codes(scale.shape[0])
            if self.pair_mode(norm):
                half = critical * np.sqrt(scale[a] ** 2 + scale[b] ** 2)
            else:
                half = critical * (scale[a] + scale[b])
            single = np.array([m.shape[0] < 2 for m in grouping["members"]])
            out.append(np.where(single[a] | single[b], np.inf, half))
        return out

    # -- the statistic -----------------------------------------------------------
    def studentised_maxima(self, w_rows):
        """Per norm, ``max`` over pairs (or groups) of the studentised norm.

        ``w_rows`` (n_rows, n_samples): resample weights along the sorted
        scores. Returns (n_norms, n_rows).
        """
        out = np.full((len(self.norms), w_rows.shape[0]), -np.inf)
        cdf_norms = [n for n in self.norms if not isinstance(n, tuple)]
        for k, grouping in enumerate(self.groupings):
            if cdf_norms:
                centred = self._cdfs(grouping, w_rows) - self.data_cdfs[k][:, None]
                for norm in cdf_norms:
                    j = self.norms.index(norm)
                    out[j] = np.maximum(out[j], self._maximum(norm, centred, k))
            for j, norm in enumerate(self.norms):
                if isinstance(norm, tuple):
                    plans, data = grouping["kde"][norm]
                    centred = np.stack(
                        [
                            _kde_rows(plan, w_rows[:, m]) - d
                            for plan, m, d in zip(plans, grouping["members"], data)
                        ]
                    )
                    out[j] = np.maximum(out[j], self._maximum(norm, centred, k))
        return out

    def _maximum(self, norm, centred, k):
        """Max over pairs (or groups) of the studentised norm of ``centred``."""
        scale = self.scales(norm)[k]
        integrate = self._integrator(norm)
        if not self.pair_mode(norm):
            return (integrate(np.abs(centred)) / scale[:, None]).max(axis=0)
        a, b = pair_codes(scale.shape[0])
        s = np.sqrt(scale[a] ** 2 + scale[b] ** 2)
        best = np.full(centred.shape[1], -np.inf)
        for p in range(a.shape[0]):  # one pair at a time: no n_pairs x n_points copy
            norm_p = integrate(np.abs(centred[a[p]] - centred[b[p]]))
            best = np.maximum(best, norm_p / s[p])
        return best

    def _integrator(self, norm):
        if norm == "sup":
            return lambda v: v.max(axis=-1)
        if norm == "l1":
            widths = np.diff(self.points)
            return lambda v: v[..., :-1] @ widths
        grid = np.linspace(0.0, 1.0, norm[2])
        return lambda v: np.trapezoid(v, grid, axis=-1)


def _kde_plan(x, bandwidth, grid):
    """Linear-binning weights and kernel of :func:`binned_kde` for fixed ``x``, h."""
    n_points = grid.shape[0]
    spacing = 1.0 / (n_points - 1)
    refine = max(1, int(np.ceil(spacing * _BINS_PER_BANDWIDTH / bandwidth)))
    n_fine = (n_points - 1) * refine + 1
    plan = {"x": x, "bandwidth": bandwidth, "grid": grid, "n_fine": n_fine}
    if n_fine > _MAX_FINE_GRID:
        return plan  # tiny bandwidth: binned_kde's exact path, one row at a time
    step = spacing / refine
    position = x / step
    left = np.minimum(np.floor(position).astype(np.intp), n_fine - 1)
    half = int(np.ceil(_TRUNCATE * bandwidth / step))
    offsets = np.arange(-half, half + 1) * (step / bandwidth)
    plan.update(
        left=left,
        frac=position - left,
        refine=refine,
        half=half,
        kernel=np.exp(-0.5 * offsets * offsets) / (bandwidth * np.sqrt(2.0 * np.pi)),
    )
    return plan


def _kde_rows(plan, w_rows):
    """The KDE on the grid of every row of weights: (n_rows, n_points)."""
    n_rows, n_fine = w_rows.shape[0], plan["n_fine"]
    w_rows = w_rows / w_rows.sum(axis=1, keepdims=True)
    if "left" not in plan:
        return np.stack(
            [binned_kde(plan["x"], w, plan["bandwidth"], plan["grid"]) for w in w_rows]
        )
    offset = (np.arange(n_rows) * (n_fine + 1))[:, None]
    size = n_rows * (n_fine + 1)
    left, frac = plan["left"][None, :] + offset, plan["frac"][None, :]
    binned = np.bincount(left.ravel(), (w_rows * (1.0 - frac)).ravel(), size)
    binned += np.bincount((left + 1).ravel(), (w_rows * frac).ravel(), size)
    binned = binned.reshape(n_rows, n_fine + 1)[:, :n_fine]
    half = plan["half"]
    smooth = fftconvolve(binned, plan["kernel"][None, :], mode="full", axes=1)
    return np.maximum(smooth[:, half : half + n_fine : plan["refine"]], 0.0)
