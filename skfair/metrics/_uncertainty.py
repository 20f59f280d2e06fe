"""Confidence intervals and tests of "no disparity" for the distribution metrics.

Two kinds of interval for ΔDP, ABCC, ABPC and MCDP(ε):

* a **stratified bootstrap** (:func:`scipy.stats.bootstrap`, each group
  resampled on its own, so every resample keeps the group sizes);
* a **distribution-free DKW interval** for the metrics that are functionals
  of the group CDFs (MCDP(ε), ABCC, ΔDP), from the Dvoretzky–Kiefer–Wolfowitz
  inequality with Massart's constant.

and one test: a permutation test of any distribution metric
(:func:`scipy.stats.permutation_test`, group labels permuted), with the exact
two-sample Kolmogorov–Smirnov p-value for MCDP(0) of two groups.

Speed
-----
A bootstrap resample is a multinomial reweighting of the observations, and a
permutation a relabelling of them; neither changes the sorted order of the
scores. The sort-based metrics (ΔDP, ABCC, MCDP) are therefore evaluated on
every resample from *one* sort: scipy draws the resamples of the sample
indices, and each resample becomes weights (bootstrap) or group codes
(permutation) along the sorted scores, followed by a linear pass (weighted
ECDF gaps). ABPC, a kernel density estimate, is recomputed on each resample.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils import check_random_state

from ..utils import (
    check_at_least_two_groups,
    check_scores,
    check_sensitive_features,
    sensitive_groupings,
)
from ..utils._sensitive import codes_as_groups
from ._base import aggregate, pairs_of
from ._distribution import abcc, abpc, delta_dp
from ._ecdf import PairGap, _run_ends
from ._mcdp import _pair_approx, _pair_exact, mcdp
from ._windows import window_ends

METRIC_ERROR = (
    "metric must be one of 'delta_dp', 'abcc', 'abpc', 'mcdp'; got {metric!r}."
)
METRIC_PARAMS_ERROR = (
    "metric_params must not hold {key!r}; pass it as its own argument."
)
INTERVAL_METHOD_ERROR = "method must be 'bootstrap' or 'dkw'; got {method!r}."
TEST_METHOD_ERROR = "method must be 'auto', 'permutation' or 'ks'; got {method!r}."
CONFIDENCE_LEVEL_ERROR = (
    "confidence_level must be a real number strictly between 0 and 1; got {value!r}."
)
N_RESAMPLES_ERROR = "n_resamples must be an integer >= 1; got {value!r}."
BOOTSTRAP_METHOD_ERROR = (
    "bootstrap_method must be 'basic', 'percentile' or 'BCa'; got {value!r}."
)
DKW_METRIC_ERROR = (
    "method='dkw' bounds metrics that are functionals of the group CDFs "
    "(delta_dp, abcc, mcdp); {metric!r} depends on kernel density estimates. "
    "Use method='bootstrap'."
)
DKW_WEIGHT_ERROR = (
    "method='dkw' assumes unweighted i.i.d. samples in each group; "
    "sample_weight is not supported. Use method='bootstrap'."
)
DKW_UNIT_REASON = "a DKW interval of {metric}, which integrates the CDF gap over [0, 1]"
KS_ERROR = (
    "method='ks' tests MCDP(0), the two-sample Kolmogorov-Smirnov statistic, "
    "of exactly two groups without sample weights; got {problem}. Use "
    "method='permutation'."
)

_METRICS = {"delta_dp": delta_dp, "abcc": abcc, "abpc": abpc, "mcdp": mcdp}
_DKW_METRICS = ("delta_dp", "abcc", "mcdp")
_BOOTSTRAP_METHODS = {"basic": "basic", "percentile": "percentile", "bca": "BCa"}
# Below this many distinct scores, MCDP(ε) of a resample uses the vectorised
# sparse table (fewer Python-level steps than the block sweep of _pair_exact).
_SMALL_SWEEP = 1 << 16
# Above this many samples the permutations are drawn without
# scipy.stats.permutation_test (see _permutation_pvalues).
_SCIPY_PERMUTATION_MAX = 50_000
# Rows (resamples x samples) that one batch of scipy resampling may hold.
_BATCH_CELLS = 4_000_000


@dataclass(frozen=True)
class MetricConfidenceInterval:
    """A metric's confidence interval, as :func:`metric_confidence_interval` returns.

    Attributes
    ----------
    metric : str
        The metric's name.
    estimate : float
        The metric on the data.
    low, high : float
        The interval's bounds, within the metric's range.
    confidence_level : float
        The nominal coverage, e.g. 0.95.
    method : str
        "bootstrap" (with ``bootstrap_method``) or "dkw".
    n_resamples : int or None
        Bootstrap resamples; None for "dkw".
    bootstrap_method : str or None
        scipy's interval type ("basic", "percentile" or "BCa"); None for "dkw".
    standard_error : float or None
        The bootstrap standard error; None for "dkw".

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import metric_confidence_interval
    >>> y_score = np.r_[np.linspace(0, 0.6, 200), np.linspace(0.4, 1, 200)]
    >>> groups = np.repeat(["a", "b"], 200)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 method="dkw")
    >>> ci.metric, ci.method, round(ci.estimate, 4), ci.confidence_level
    ('mcdp', 'dkw', 0.665, 0.95)
    >>> ci.low <= ci.estimate <= ci.high, ci.n_resamples is None
    (True, True)
    """

    metric: str
    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    n_resamples: int | None = None
    bootstrap_method: str | None = None
    standard_error: float | None = None


@dataclass(frozen=True)
class DisparityTestResult:
    """The p-value of a test of "no disparity", as :func:`disparity_test` returns.

    Attributes
    ----------
    metric : str
        The test statistic's name.
    statistic : float
        The metric on the data.
    pvalue : float
        The probability, if every group's scores come from the same
        distribution, of a metric at least as large.
    method : str
        "permutation" or "ks".
    n_resamples : int or None
        Permutations drawn (None for "ks").

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import disparity_test
    >>> y_score = np.r_[np.linspace(0, 0.6, 50), np.linspace(0.4, 1, 50)]
    >>> groups = np.repeat([0, 1], 50)
    >>> res = disparity_test(None, y_score, sensitive_features=groups)
    >>> res.metric, res.method, round(res.statistic, 2), res.pvalue < 1e-6
    ('mcdp', 'ks', 0.66, True)
    >>> res.n_resamples is None
    True
    """

    metric: str
    statistic: float
    pvalue: float
    method: str
    n_resamples: int | None = None


def _check_metric(metric):
    if metric not in _METRICS:
        raise ValueError(METRIC_ERROR.format(metric=metric))


def _check_confidence_level(value):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not 0.0 < value < 1.0:
        raise ValueError(CONFIDENCE_LEVEL_ERROR.format(value=value))
    return float(value)


def _check_n_resamples(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(N_RESAMPLES_ERROR.format(value=value))
    return int(value)


def _check_bootstrap_method(value):
    key = value.lower() if isinstance(value, str) else None
    if key not in _BOOTSTRAP_METHODS:
        raise ValueError(BOOTSTRAP_METHOD_ERROR.format(value=value))
    return _BOOTSTRAP_METHODS[key]


def _generator(random_state):
    """A numpy Generator from scikit-learn's ``random_state`` conventions."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)


@dataclass(frozen=True)
class _Spec:
    """One metric with its keyword arguments (those of the public function)."""

    metric: str
    kwargs: tuple = ()

    @property
    def options(self):
        return dict(self.kwargs)

    @property
    def sortable(self):
        """Whether the one-sort engine computes it (everything but ABPC)."""
        return self.metric != "abpc"


def _spec(metric, params):
    _check_metric(metric)
    params = {} if params is None else dict(params)
    for key in ("sample_weight", "combine", "sensitive_features"):
        if key in params:
            raise ValueError(METRIC_PARAMS_ERROR.format(key=key))
    return _Spec(metric, tuple(sorted(params.items())))


class _Resampler:
    """The data sorted once, and the metrics on reweighted or relabelled samples.

    Samples are partitioned into *cells*, the intersections of every
    sensitive attribute: the bootstrap resamples within each cell, the
    permutation test permutes cell labels. A resample is described along the
    sorted scores by a weight per position (bootstrap counts times sample
    weights) and a cell per position.
    """

    def __init__(self, scores, sensitive_features, weights, combine, min_group_size):
        attributes = check_sensitive_features(
            sensitive_features, n_samples=scores.shape[0]
        )
        cells = attributes.intersection()
        # min_group_size=None warned once already (in _prepare); keep every group
        keep = 1 if min_group_size is None else min_group_size
        self.groupings = [g.keep_at_least(keep) for g in attributes.groupings(combine)]
        for grouping in self.groupings:
            check_at_least_two_groups(grouping)
        self.min_group_size = keep
        self.scores, self.weights, self.combine = scores, weights, combine
        self.attributes, self.n = attributes, scores.shape[0]
        order = np.argsort(scores, kind="stable")
        self.sorted = scores[order]
        self.rank = np.empty(self.n, dtype=np.intp)
        self.rank[order] = np.arange(self.n)
        self.cell_sorted = cells.codes[order]
        self.w_sorted = None if weights is None else weights[order]
        self.ends = _run_ends(self.sorted)
        self.points = self.sorted if self.ends is None else self.sorted[self.ends]
        by_cell = np.argsort(cells.codes, kind="stable")
        sizes = np.bincount(cells.codes, minlength=cells.n_groups)
        self.members = np.split(by_cell, np.cumsum(sizes)[:-1])
        first = by_cell[np.concatenate(([0], np.cumsum(sizes)[:-1]))]
        self.first_of_cell = first
        self.cell_to_group = [g.codes[first] for g in self.groupings]
        # the cells compared in every grouping; the permutation test moves
        # labels among their samples only (left-out groups keep theirs)
        compared = np.logical_and.reduce([c >= 0 for c in self.cell_to_group])
        self.permuted_cells = np.flatnonzero(compared)
        self.fixed_cells = np.flatnonzero(~compared)
        # cells in no comparison at all: the bootstrap need not resample them
        used = np.logical_or.reduce([c >= 0 for c in self.cell_to_group])
        self.unused_cells = np.flatnonzero(~used)
        self._windows = {}

    # -- the one-sort engine -------------------------------------------------
    def _cdfs(self, w_pos, cell_pos):
        """Per grouping: weighted group CDFs at the distinct scores, totals, codes."""
        out = []
        for to_group, grouping in zip(self.cell_to_group, self.groupings):
            codes = to_group[cell_pos]
            cum = np.empty((grouping.n_groups, self.points.shape[0]))
            for g in range(grouping.n_groups):
                running = np.cumsum(np.where(codes == g, w_pos, 0.0))
                cum[g] = running if self.ends is None else running[self.ends]
            totals = cum[:, -1].copy()
            out.append((cum / totals[:, None], totals, codes))
        return out

    def pair_values(self, w_pos, cell_pos, specs, cdfs=None):
        """For each spec, per grouping, the metric of every pair of groups."""
        cdfs = self._cdfs(w_pos, cell_pos) if cdfs is None else cdfs
        out = [[] for _ in specs]
        for grouping, (cdf, totals, codes) in zip(self.groupings, cdfs):
            a, b = (np.array(side, dtype=np.intp) for side in zip(*pairs_of(grouping)))
            gap = cdf[a] - cdf[b]  # (n_pairs, n_points): F_a - F_b of every pair
            gap[:, -1] = 0.0  # both CDFs reach exactly 1 at the largest score
            for j, spec in enumerate(specs):
                values = self._pairs(spec, gap, a, b, cdf, totals, codes, w_pos)
                out[j].append([float(v) for v in values])
        return out

    def _pairs(self, spec, gap, a, b, cdf, totals, codes, w_pos):
        """One metric of every pair at once, from the pairs' CDF gaps."""
        opts = spec.options
        if spec.metric == "delta_dp":
            threshold = opts.get("threshold")
            if threshold is None:
                kept = codes >= 0  # -1: a group left out by min_group_size
                sums = np.bincount(
                    codes[kept],
                    weights=(w_pos * self.sorted)[kept],
                    minlength=cdf.shape[0],
                )
                level = sums / totals
            else:
                k = int(np.searchsorted(self.points, threshold, side="left")) - 1
                level = cdf[:, k] if k >= 0 else np.zeros(cdf.shape[0])
            return np.abs(level[a] - level[b])
        if spec.metric == "abcc":
            if opts.get("method", "exact") == "exact":
                return np.abs(gap[:, :-1]) @ np.diff(self.points)
            grid = np.linspace(0, 1, opts.get("n_points", 10000))
            at = np.searchsorted(self.points, grid, side="right") - 1
            on_grid = np.where(at >= 0, gap[:, np.maximum(at, 0)], 0.0)
            return np.trapezoid(np.abs(on_grid), grid, axis=1)
        epsilon = float(opts.get("epsilon", 0.0))
        if opts.get("method", "exact") == "approx":
            k = opts.get("sampling_frequency", 32)
            return [
                _pair_approx(PairGap(self.points, row, 1.0, 0, 1), epsilon, k)[0]
                for row in gap
            ]
        if epsilon == 0.0:
            return np.abs(gap).max(axis=1)
        rounding = opts.get("rounding", "exact")
        if self.points.shape[0] > _SMALL_SWEEP:
            return [
                _pair_exact(PairGap(self.points, row, 1.0, 0, 1), epsilon, rounding)[0]
                for row in gap
            ]
        return self._window_max_min(gap, epsilon, rounding)

    def _window_max_min(self, gap, epsilon, rounding):
        """Exact MCDP(ε) of every pair: the sparse table, vectorised over pairs.

        The windows depend only on the sorted scores, so their ends are found
        once per (ε, rounding) and shared by every pair and every resample.
        """
        key = (epsilon, rounding)
        if key not in self._windows:
            self._windows[key] = _window_plan(self.points, epsilon, rounding)
        pad_left, pad_right, n_left, ends, levels = self._windows[key]
        magnitude = np.abs(gap)
        if pad_left or pad_right:  # ΔF = 0 at the added scores 0 and 1
            magnitude = np.pad(magnitude, ((0, 0), (pad_left, pad_right)))
        m = magnitude.shape[1]
        window_min = np.empty_like(magnitude)
        table = magnitude
        for level, at in enumerate(levels):
            span = 1 << level
            if at.size:
                window_min[:, at] = np.minimum(
                    table[:, at], table[:, ends[at] - span + 1]
                )
            if 2 * span <= m:
                table = np.minimum(
                    table[:, : m - 2 * span + 1], table[:, span : m - span + 1]
                )
        left = magnitude[:, :n_left].min(axis=1)  # the neighbourhood [0, ε] of 0
        return np.maximum(left, window_min.max(axis=1))

    def values(self, w_pos, cell_pos, specs):
        """The aggregated value of every spec on one resample."""
        fast = [s for s in specs if s.sortable]
        results = {}
        if fast:
            per_spec = self.pair_values(w_pos, cell_pos, fast)
            for spec, per_grouping in zip(fast, per_spec):
                results[spec] = aggregate(per_grouping, spec.options.get("agg", "max"))
        return [results[s] if s.sortable else None for s in specs]

    # -- the direct path (ABPC, and an oracle in tests) ----------------------
    def direct(self, idx, cell_of_idx, spec):
        """The public metric on samples ``idx`` labelled with cells ``cell_of_idx``."""
        codes = self.attributes.codes[self.first_of_cell[cell_of_idx]]
        columns = [codes_as_groups(c) for c in codes.T]
        sensitive = columns[0] if len(columns) == 1 else pd.concat(columns, axis=1)
        weights = None if self.weights is None else self.weights[idx]
        opts = dict(spec.options)
        return _METRICS[spec.metric](
            None,
            self.scores[idx],
            sensitive_features=sensitive,
            sample_weight=weights,
            combine=self.combine,
            min_group_size=self.min_group_size,
            **opts,
        )


def _window_plan(points, epsilon, rounding):
    """Padding, the [0, ε] neighbourhood and the windows' sparse-table levels.

    As ``_pair_exact``: ΔF on [0, 1] has breakpoints at 0 and 1 (added when no
    score is there); windows are ``[p_k, p_k + 2ε]`` with exact membership.
    """
    pad_left, pad_right = int(points[0] > 0.0), int(points[-1] < 1.0)
    padded = np.concatenate(([0.0] * pad_left, points, [1.0] * pad_right))
    n_left = int(np.searchsorted(padded, epsilon, side="right"))
    starts = np.arange(padded.shape[0])
    ends = window_ends(padded, starts, 2.0 * epsilon, rounding)
    levels = np.floor(np.log2(ends - starts + 1)).astype(np.intp)
    by_level = [
        np.flatnonzero(levels == level) for level in range(int(levels.max()) + 1)
    ]
    return pad_left, pad_right, n_left, ends, by_level


def _rows(samples):
    """Broadcast scipy's resampled samples and stack them: (n_rows, n_total)."""
    samples = [np.asarray(s) for s in samples]
    lead = np.broadcast_shapes(*(s.shape[:-1] for s in samples))
    flat = [
        np.broadcast_to(s, lead + s.shape[-1:]).reshape(-1, s.shape[-1])
        for s in samples
    ]
    return lead, flat


def _statistic(resampler, specs, kind, fixed, force_direct=False):
    """The vectorised statistic given to scipy (samples are index arrays).

    ``kind`` is "bootstrap" (resamples within cells; output (n_specs, n_rows))
    or "permutation" (cells relabelled; output (n_rows, n_specs)), the layouts
    scipy expects; with a single spec the output is (n_rows,).
    """

    def statistic(*samples, axis=-1):
        lead, flat = _rows(samples)
        n_rows = flat[0].shape[0]
        out = np.empty((len(specs), n_rows))
        for r in range(n_rows):
            parts = [f[r] for f in flat] + ([fixed] if fixed.size else [])
            idx = np.concatenate(parts)
            if kind == "bootstrap":
                cell_of_idx = resampler.cell_sorted[resampler.rank[idx]]
                pos = resampler.rank[idx]
                w = resampler.w_sorted
                w_pos = np.bincount(
                    pos, weights=None if w is None else w[pos], minlength=resampler.n
                ).astype(np.float64)
                cell_pos = resampler.cell_sorted
            else:  # the permuted cells' samples, then the fixed samples
                cell_of_idx = np.repeat(
                    resampler.permuted_cells, [f.shape[1] for f in flat]
                )
                if fixed.size:
                    cell_of_idx = np.concatenate(
                        (cell_of_idx, resampler.cell_sorted[resampler.rank[fixed]])
                    )
                cell_pos = np.empty(resampler.n, dtype=np.intp)
                cell_pos[resampler.rank[idx]] = cell_of_idx
                w_pos = (
                    np.ones(resampler.n)
                    if resampler.w_sorted is None
                    else resampler.w_sorted
                )
            fast = (
                [None] * len(specs)
                if force_direct
                else resampler.values(w_pos, cell_pos, specs)
            )
            for j, spec in enumerate(specs):
                out[j, r] = (
                    fast[j]
                    if fast[j] is not None
                    else _undefined_as_nan(resampler, idx, cell_of_idx, spec)
                )
        if len(specs) == 1:
            return out[0].reshape(lead)
        out = out.reshape((len(specs),) + lead)
        return out if kind == "bootstrap" else np.moveaxis(out, 0, -1)

    return statistic


def _undefined_as_nan(resampler, idx, cell_of_idx, spec):
    """The metric on a resample, NaN where it is undefined (ABPC, no spread)."""
    try:
        return resampler.direct(idx, cell_of_idx, spec)
    except ValueError as error:
        if spec.metric != "abpc" or "all scores equal" not in str(error):
            raise
        return np.nan


def _batch(n_samples):
    return max(1, _BATCH_CELLS // max(n_samples, 1))


def _prepare(
    y_true,
    y_score,
    sensitive_features,
    sample_weight,
    combine,
    specs,
    min_group_size=None,
):
    """Validate through the public metrics (same errors) and build the engine.

    ``min_group_size=None`` warns about small groups once (here) and keeps
    every group; an int leaves out the smaller groups, as the metrics do.
    """
    sensitive_groupings(
        sensitive_features,
        n_samples=len(y_score) if hasattr(y_score, "__len__") else None,
        combine=combine,
        min_group_size=min_group_size,
    )
    keep = 1 if min_group_size is None else min_group_size
    estimates = [
        float(
            _METRICS[s.metric](
                y_true,
                y_score,
                sensitive_features=sensitive_features,
                sample_weight=sample_weight,
                combine=combine,
                min_group_size=keep,
                **s.options,
            )
        )
        for s in specs
    ]
    scores = check_scores(y_score)
    weights = (
        None
        if sample_weight is None
        else np.asarray(sample_weight, dtype=np.float64).ravel()
    )
    return estimates, _Resampler(
        scores, sensitive_features, weights, combine, min_group_size
    )


def _bootstrap(
    resampler, specs, *, confidence_level, n_resamples, bootstrap_method, rng
):
    """Scipy's stratified bootstrap of several specs on shared resamples."""
    # scipy needs two observations per sample; a one-sample cell is constant,
    # and a cell left out of every comparison (min_group_size) is not resampled
    unused = set(resampler.unused_cells.tolist())
    moved = [
        m.shape[0] >= 2 and c not in unused for c, m in enumerate(resampler.members)
    ]
    data = tuple(m for m, mv in zip(resampler.members, moved) if mv)
    fixed = np.concatenate(
        [m for m, mv in zip(resampler.members, moved) if not mv]
        + [np.empty(0, np.intp)]
    ).astype(np.intp)
    if not data:  # every cell has one sample: resamples equal the data
        data, fixed = (fixed,), np.empty(0, np.intp)
    with warnings.catch_warnings():
        # NaN resamples (ABPC undefined) give NaN bounds, reported as such
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap(
            data,
            _statistic(resampler, specs, "bootstrap", fixed),
            n_resamples=n_resamples,
            batch=_batch(resampler.n),
            vectorized=True,
            paired=False,
            confidence_level=confidence_level,
            method=bootstrap_method,
            rng=rng,
        )
    undefined = np.isnan(np.atleast_2d(res.bootstrap_distribution)).any(axis=-1)
    low = np.where(undefined, np.nan, np.atleast_1d(res.confidence_interval.low))
    high = np.where(undefined, np.nan, np.atleast_1d(res.confidence_interval.high))
    se = np.where(undefined, np.nan, np.atleast_1d(res.standard_error))
    return low, high, se


def _dkw(resampler, specs, estimates, confidence_level):
    """Distribution-free intervals from the DKW inequality (Massart's constant)."""
    alpha = 1.0 - confidence_level
    n_groups_total = sum(g.n_groups for g in resampler.groupings)
    w_pos = np.ones(resampler.n)
    per_spec = resampler.pair_values(w_pos, resampler.cell_sorted, specs)
    lows, highs = [], []
    for spec, per_grouping in zip(specs, per_spec):
        agg = spec.options.get("agg", "max")
        lo_g, hi_g = [], []
        for grouping, values in zip(resampler.groupings, per_grouping):
            t = dkw_halfwidth(grouping.counts(), alpha / n_groups_total)
            slack = [t[a] + t[b] for a, b in pairs_of(grouping)]
            lo_g.append([v - s for v, s in zip(values, slack)])
            hi_g.append([v + s for v, s in zip(values, slack)])
        lows.append(max(0.0, aggregate(lo_g, agg)))
        highs.append(min(1.0, aggregate(hi_g, agg)))
    return np.array(lows), np.array(highs)


def dkw_halfwidth(n_samples, alpha):
    r"""Half-width of the DKW confidence band of an empirical CDF.

    With probability at least ``1 - alpha``, the empirical CDF of ``n``
    i.i.d. samples stays within ``t`` of the true CDF everywhere, where
    :math:`P(\sup_x |F_n(x) - F(x)| > t) \le 2 e^{-2 n t^2}` (Massart's
    tight constant) gives :math:`t = \sqrt{\ln(2/\alpha) / (2n)}`.

    Parameters
    ----------
    n_samples : int or array-like of int
        Sample size(s).
    alpha : float
        The error probability, in (0, 1).

    Returns
    -------
    t : float or ndarray
        The half-width(s).

    Examples
    --------
    >>> from skfair.metrics import dkw_halfwidth
    >>> round(float(dkw_halfwidth(1000, 0.05)), 4)
    0.0429
    """
    n = np.asarray(n_samples, dtype=np.float64)
    return np.sqrt(np.log(2.0 / alpha) / (2.0 * n))


def metric_confidence_interval(
    y_true,
    y_score,
    *,
    sensitive_features,
    metric="mcdp",
    method="bootstrap",
    confidence_level=0.95,
    n_resamples=999,
    bootstrap_method="basic",
    random_state=None,
    metric_params=None,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
):
    r"""Confidence interval of a distribution metric (ΔDP, ABCC, ABPC, MCDP).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored by the demographic-parity metrics; kept first for scikit-learn
        conventions. Its length is checked if given.
    y_score : array-like of shape (n_samples,)
        Scores.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels, as for the metric.
    metric : {"mcdp", "abcc", "abpc", "delta_dp"}, default="mcdp"
        The metric.
    method : {"bootstrap", "dkw"}, default="bootstrap"
        "bootstrap": :func:`scipy.stats.bootstrap` with every group (every
        intersection of the sensitive attributes) resampled on its own, so
        the group sizes are those of the data. "dkw": the distribution-free
        interval of the Dvoretzky–Kiefer–Wolfowitz inequality (MCDP, ABCC and
        ΔDP only; see Notes).
    confidence_level : float, default=0.95
        Nominal coverage.
    n_resamples : int, default=999
        Bootstrap resamples.
    bootstrap_method : {"basic", "percentile", "BCa"}, default="basic"
        scipy's interval type. "basic" (reverse percentile) corrects the
        upward bias of these distances; "BCa" needs a jackknife of n
        evaluations and suits small samples only.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the resampling.
    metric_params : dict or None, default=None
        Other keyword arguments of the metric, e.g. ``{"epsilon": 0.05}``,
        ``{"threshold": 0.5}``, ``{"agg": "mean"}`` or the metric's own
        ``{"method": "binned"}``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (bootstrap only; resampled with their samples).
    combine : {"intersection", "marginal"}, default="intersection"
        How several attributes are combined, as for the metric.
    min_group_size : int or None, default=None
        As for the metric: None keeps every group and emits a
        :class:`~skfair.utils.SmallGroupWarning` naming each group of fewer
        than 30 samples; an int ``k`` leaves out the groups with fewer than
        ``k`` samples (they are in no comparison; the DKW Bonferroni split
        counts the compared groups only).

    Returns
    -------
    result : MetricConfidenceInterval
        ``estimate`` equals the metric on the data; ``low`` and ``high`` lie
        in the metric's range. They are NaN when the metric is undefined on
        some resample (ABPC when a tiny group's resampled scores are all
        equal).

    Raises
    ------
    ValueError
        On invalid inputs (the metric's own errors), an unknown metric or
        method, ``method="dkw"`` for ABPC or with sample weights, or
        ``method="dkw"`` for ABCC or ΔDP_c with scores outside [0, 1].

    See Also
    --------
    disparity_test : The p-value of "no disparity".

    Notes
    -----
    **DKW.** If group *g*'s empirical CDF is within :math:`t_g` of its CDF
    everywhere (:func:`dkw_halfwidth`, the error probability split equally
    over all groups: Bonferroni), the CDF gap of groups *a*, *b* is within
    :math:`t_a + t_b` of the true gap at every score, so MCDP(ε) for every ε,
    ΔDP_b^t at every threshold, and ABCC and ΔDP_c (integrals of the gap over
    [0, 1]) move by at most :math:`t_a + t_b`. The interval
    ``[estimate - (t_a + t_b), estimate + (t_a + t_b)]`` per pair, aggregated
    like the metric and clipped to [0, 1], has coverage of at least
    ``confidence_level`` for every distribution and sample size: it is the
    conservative choice, valid with ties, tiny groups and many groups, but
    wide (its width shrinks like :math:`1/\sqrt{n}` with no smaller
    constant, and the Bonferroni split widens it with many groups).

    **Bootstrap.** Narrower and usually close to nominal for large groups,
    but only asymptotically valid; these metrics are maxima or absolute
    values of noisy gaps, biased upwards when the true disparity is small,
    where the bootstrap under-covers. Prefer it to *compare* models or report
    a typical range on large data; prefer DKW when a guarantee is needed
    (small groups, disparity near zero, audits).

    The resamples are drawn by scipy; for ΔDP, ABCC and MCDP each resample is
    evaluated from a single sort of the data (a resample is a reweighting of
    the sorted scores), which gives the same values as re-sorting.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import metric_confidence_interval
    >>> rng = np.random.default_rng(0)
    >>> y_score = np.r_[rng.beta(2, 5, 300), rng.beta(3, 4, 300)]
    >>> groups = np.repeat(["a", "b"], 300)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 method="dkw")
    >>> round(ci.estimate, 3), round(ci.low, 3), round(ci.high, 3)
    (0.29, 0.119, 0.461)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 n_resamples=200, random_state=0)
    >>> ci.low < ci.estimate < ci.high
    True
    """
    confidence_level = _check_confidence_level(confidence_level)
    if method not in ("bootstrap", "dkw"):
        raise ValueError(INTERVAL_METHOD_ERROR.format(method=method))
    spec = _spec(metric, metric_params)
    if method == "dkw":
        _check_dkw(spec, y_score, sample_weight)
    else:
        n_resamples = _check_n_resamples(n_resamples)
        bootstrap_method = _check_bootstrap_method(bootstrap_method)
    data = (y_true, y_score, sensitive_features, sample_weight, combine)
    estimates, resampler = _prepare(*data, [spec], min_group_size)
    if method == "dkw":
        low, high = _dkw(resampler, [spec], estimates, confidence_level)
        return MetricConfidenceInterval(
            metric, estimates[0], float(low[0]), float(high[0]), confidence_level, "dkw"
        )
    low, high, se = _bootstrap(
        resampler,
        [spec],
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        bootstrap_method=bootstrap_method,
        rng=_generator(random_state),
    )
    low, high = np.clip([low[0], high[0]], 0.0, 2.0 if metric == "abpc" else 1.0)
    return MetricConfidenceInterval(
        metric,
        estimates[0],
        float(low),
        float(high),
        confidence_level,
        "bootstrap",
        n_resamples,
        bootstrap_method,
        float(se[0]),
    )


def _check_dkw(spec, y_score, sample_weight):
    if spec.metric not in _DKW_METRICS:
        raise ValueError(DKW_METRIC_ERROR.format(metric=spec.metric))
    if sample_weight is not None:
        raise ValueError(DKW_WEIGHT_ERROR)
    opts = spec.options
    if spec.metric == "abcc" or (
        spec.metric == "delta_dp" and opts.get("threshold") is None
    ):
        check_scores(
            y_score, unit_interval_for=DKW_UNIT_REASON.format(metric=spec.metric)
        )


def disparity_test(
    y_true,
    y_score,
    *,
    sensitive_features,
    metric="mcdp",
    method="auto",
    n_resamples=9999,
    random_state=None,
    metric_params=None,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
):
    """Test "no disparity": whether the groups' score distributions are the same.

    The null hypothesis is that every group's scores are drawn from one
    distribution (the group labels are exchangeable); a small p-value says
    the observed disparity is unlikely to be noise.

    Parameters
    ----------
    y_true, y_score
        See :func:`metric_confidence_interval`.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; with several attributes their intersections are
        permuted.
    metric : {"mcdp", "abcc", "abpc", "delta_dp"}, default="mcdp"
        The test statistic.
    method : {"auto", "permutation", "ks"}, default="auto"
        "permutation": :func:`scipy.stats.permutation_test`, group labels
        permuted, one-sided (large values are evidence of disparity). "ks":
        for MCDP(0) of two unweighted groups, the two-sample
        Kolmogorov–Smirnov p-value of :func:`scipy.stats.ks_2samp` (exact
        when each group has at most 10 000 samples, asymptotic above, as
        scipy's ``method="auto"``). "auto" is "ks" where it applies, else
        "permutation".
    n_resamples : int, default=9999
        Permutations; the smallest p-value is ``1 / (n_resamples + 1)``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the permutations.
    metric_params, combine
        See :func:`metric_confidence_interval`.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (they stay with their samples when labels move).
    min_group_size : int or None, default=None
        As for :func:`metric_confidence_interval`; the permutations move
        labels among the samples of the compared groups only (the samples of
        groups left out keep theirs).

    Returns
    -------
    result : DisparityTestResult

    Raises
    ------
    ValueError
        On invalid inputs, or ``method="ks"`` where it does not apply.

    See Also
    --------
    metric_confidence_interval : How large the disparity may be.

    Notes
    -----
    MCDP(0) is the two-sample KS statistic, so for ε = 0 the KS test is exact
    and needs no resampling. Since MCDP(ε) <= MCDP(0), the KS p-value at the
    observed MCDP(ε) is also a valid, conservative p-value for ε > 0; the
    permutation test is sharper.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import disparity_test
    >>> rng = np.random.default_rng(0)
    >>> y_score, groups = rng.random(120), np.repeat([0, 1], 60)
    >>> res = disparity_test(None, y_score, sensitive_features=groups)
    >>> res.method, round(res.statistic, 3), res.pvalue > 0.05  # one distribution
    ('ks', 0.167, True)
    >>> y_score[groups == 1] **= 0.5  # group 1 now scores higher
    >>> res = disparity_test(None, y_score, sensitive_features=groups,
    ...                      metric="abcc", n_resamples=999, random_state=0)
    >>> res.method, res.pvalue < 0.01
    ('permutation', True)
    """
    if method not in ("auto", "permutation", "ks"):
        raise ValueError(TEST_METHOD_ERROR.format(method=method))
    spec = _spec(metric, metric_params)
    data = (y_true, y_score, sensitive_features, sample_weight, combine)
    estimates, resampler = _prepare(*data, [spec], min_group_size)
    problem = _ks_problem(spec, resampler, sample_weight)
    if method == "ks" and problem is not None:
        raise ValueError(KS_ERROR.format(problem=problem))
    if method == "ks" or (method == "auto" and problem is None):
        return DisparityTestResult(metric, estimates[0], _ks_pvalue(resampler), "ks")
    n_resamples = _check_n_resamples(n_resamples)
    pvalues = _permutation_pvalues(
        resampler, [spec], n_resamples=n_resamples, rng=_generator(random_state)
    )
    return DisparityTestResult(
        metric, estimates[0], float(pvalues[0]), "permutation", n_resamples
    )


def _ks_problem(spec, resampler, sample_weight):
    """Why the exact KS test does not apply (None if it does)."""
    opts = spec.options
    if spec.metric != "mcdp" or float(opts.get("epsilon", 0.0)) != 0.0:
        return f"metric={spec.metric!r} with {opts}"
    if opts.get("method", "exact") != "exact":
        return "method='approx'"
    if sample_weight is not None:
        return "sample weights"
    if len(resampler.groupings) != 1 or resampler.groupings[0].n_groups != 2:
        n = [g.n_groups for g in resampler.groupings]
        return f"groupings with {n} groups"
    return None


def _ks_pvalue(resampler):
    codes = resampler.cell_to_group[0][resampler.cell_sorted]
    a = resampler.sorted[codes == 0]
    b = resampler.sorted[codes == 1]
    return float(stats.ks_2samp(a, b, method="auto").pvalue)


def _permutation_pvalues(resampler, specs, *, n_resamples, rng):
    """One-sided permutation p-values of several specs on shared permutations.

    :func:`scipy.stats.permutation_test` first counts the distinct
    partitions exactly (``math.comb(n, n_a)``, a big integer that alone takes
    many seconds at a million samples); above ``_SCIPY_PERMUTATION_MAX``
    samples, where that count always exceeds ``n_resamples``, the same random
    permutations and the same p-value formula are computed here instead.

    Only the samples of groups compared in every grouping are permuted; the
    samples of groups left out by ``min_group_size`` keep their labels.
    """
    members = [resampler.members[c] for c in resampler.permuted_cells]
    fixed = np.concatenate(
        [resampler.members[c] for c in resampler.fixed_cells] + [np.empty(0, np.intp)]
    ).astype(np.intp)
    statistic = _statistic(resampler, specs, "permutation", fixed)
    n_moved = sum(m.shape[0] for m in members)
    if n_moved <= _SCIPY_PERMUTATION_MAX:
        # scipy < 1.17 counts the partitions with a float product that may
        # overflow to inf: harmless (it then samples permutations), so quiet it
        with np.errstate(over="ignore"):
            res = stats.permutation_test(
                tuple(members),
                statistic,
                permutation_type="independent",
                vectorized=True,
                n_resamples=n_resamples,
                batch=_batch(resampler.n),
                alternative="greater",
                rng=rng,
            )
        undefined = np.isnan(np.atleast_2d(res.null_distribution.T)).any(axis=-1)
        return np.where(undefined, np.nan, np.atleast_1d(res.pvalue))
    pooled = np.concatenate(members)
    cuts = np.cumsum([m.shape[0] for m in members])[:-1]
    observed = np.atleast_1d(statistic(*members))
    null = np.array(
        [
            np.atleast_1d(statistic(*np.split(pooled[rng.permutation(n_moved)], cuts)))
            for _ in range(n_resamples)
        ]
    )
    # scipy's one-sided p-value, with its tolerance for floating-point ties
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
    pvalues = (np.sum(null >= observed - gamma, axis=0) + 1) / (n_resamples + 1)
    return np.where(np.isnan(null).any(axis=0), np.nan, pvalues)
