"""The one-sort engine of the confidence intervals and tests of "no disparity".

Private to :mod:`skfair.metrics`: its users, the public
:func:`~skfair.metrics.metric_confidence_interval` and
:func:`~skfair.metrics.disparity_test` (``_confidence.py``) and the audit
report, reach it through :mod:`skfair.metrics.inference`, which gives each
step a plain name and a docstring. Here:

* validation through the public metrics and the one sort of the scores
  (:func:`_prepare`, :class:`_Resampler`);
* the stratified bootstrap of several metrics, and of the band norms'
  studentised maxima, on shared resamples (:func:`_bootstrap`), and the
  intervals built from it: **Welch** / **Newcombe** closed forms for ΔDP
  (:mod:`._intervals`) and **bootstrap simultaneous bands** of the centred
  CDF (density) gap for MCDP(ε), ABCC and ABPC (:mod:`._bands`)
  (:func:`_interval_bounds`);
* the **distribution-free DKW interval** (:func:`_dkw`, :func:`dkw_halfwidth`)
  of the metrics that are functionals of the group CDFs;
* the tests: closed forms (exact Kolmogorov–Smirnov for MCDP(0) of two
  groups, Welch / Alexander–Govern and chi-square / Fisher for ΔDP) and the
  permutation test of any metric on shared permutations
  (:func:`_permutation_pvalues`);
* the argument checks and error messages they share.

Speed
-----
A bootstrap resample is a multinomial reweighting of the observations, and a
permutation a relabelling of them; neither changes the sorted order of the
scores. The sort-based metrics (ΔDP, ABCC, MCDP) are therefore evaluated on
every resample from *one* sort: scipy draws the resamples of the sample
indices, and each resample becomes weights (bootstrap) or group codes
(permutation) along the sorted scores, followed by a linear pass (weighted
ECDF gaps). The bands are vectorised over resamples and pairs the same way
(:mod:`._bands`). ABPC, a kernel density estimate, is recomputed on each
resample by the plain bootstrap; the band bins the data once and convolves
every resample's weights with the data's kernels.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import special, stats
from sklearn.utils import check_random_state

from ..utils import (
    check_at_least_two_groups,
    check_scores,
    check_sensitive_features,
    sensitive_groupings,
)
from ..utils._sensitive import codes_as_groups
from ._allpairs import (
    cell_bounds,
    grid_bounds,
    group_steps,
    max_over_pairs,
    pairs_abcc,
    pairs_max_gap,
    pairs_mcdp,
    support_sizes,
    window_plan,
)
from ._bands import critical_value
from ._base import aggregate, pairs_of
from ._distribution import abcc, abpc, delta_dp
from ._ecdf import PairGap, _run_ends
from ._intervals import (
    aggregate_bounds,
    delta_dp_pair_bounds,
    delta_dp_pvalue,
    pair_codes,
    summarise_groups,
)
from ._mcdp import _pair_approx, mcdp

METRIC_ERROR = (
    "metric must be one of 'delta_dp', 'abcc', 'abpc', 'mcdp'; got {metric!r}."
)
METRIC_PARAMS_ERROR = (
    "metric_params must not hold {key!r}; pass it as its own argument."
)
INTERVAL_METHOD_ERROR = (
    "method must be 'auto', 'band', 'welch', 'newcombe', 'bootstrap' or 'dkw'; "
    "got {method!r}."
)
CLOSED_FORM_METRIC_ERROR = (
    "method='welch' is for delta_dp without a threshold (ΔDP_c) and "
    "method='newcombe' for delta_dp with a threshold (ΔDP_b^t); got "
    "method={method!r} for metric={metric!r} with {options}. Use method='auto'."
)
TEST_METHOD_ERROR = (
    "method must be 'auto', 'permutation', 'ks', 'welch' or 'chi2'; got {method!r}."
)
CLOSED_FORM_TEST_ERROR = (
    "method={method!r} tests equal group {what} for metric='delta_dp' "
    "({options}) on unweighted data with at least two samples per group; got "
    "metric={metric!r} with {problem}. Use method='permutation'."
)
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
# Above this many samples the permutations are drawn without
# scipy.stats.permutation_test (see _permutation_pvalues).
_SCIPY_PERMUTATION_MAX = 50_000
# Rows (resamples x samples) that one batch of scipy resampling may hold.
_BATCH_CELLS = 4_000_000


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


def _pair_codes(grouping):
    """Every pair's group codes ``(a, b)``, two arrays in ``pairs_of`` order."""
    return pair_codes(grouping.n_groups)


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
        # the distinct scores padded with 0 and 1 (MCDP's breakpoints on
        # [0, 1]; harmless elsewhere) and each sorted sample's point there
        self.pad_left = int(self.points[0] > 0.0)
        pad_right = int(self.points[-1] < 1.0)
        self.padded = np.concatenate(
            ([0.0] * self.pad_left, self.points, [1.0] * pad_right)
        )
        run = np.arange(self.n)
        if self.ends is not None:
            run = np.searchsorted(self.ends, run, side="left")
        self.point_of = run + self.pad_left

    # -- the one-sort engine -------------------------------------------------
    def _cdfs(self, w_pos, cell_pos):
        """Per grouping: every group's CDF where it steps, and the group codes.

        One :func:`~skfair.metrics._allpairs.group_steps` per grouping (all
        groups at once): the CDF values are those of a running sum of each
        group's weights along the sorted scores, divided by its total.
        """
        out = []
        for to_group, grouping in zip(self.cell_to_group, self.groupings):
            codes = to_group[cell_pos]
            steps = group_steps(
                self.point_of,
                codes,
                grouping.n_groups,
                self.padded.shape[0],
                w_pos,
                integral=self.w_sorted is None,  # bootstrap counts or ones
            )
            out.append((steps, codes))
        return out

    def pair_values(self, w_pos, cell_pos, specs, cdfs=None):
        """For each spec, per grouping, the metric of every pair of groups."""
        cdfs = self._cdfs(w_pos, cell_pos) if cdfs is None else cdfs
        out = [[] for _ in specs]
        for grouping, (steps, codes) in zip(self.groupings, cdfs):
            a, b = _pair_codes(grouping)
            for j, spec in enumerate(specs):
                values = self._pairs(spec, steps, a, b, codes, w_pos)
                out[j].append([float(v) for v in values])
        return out

    def _pairs(self, spec, steps, a, b, codes, w_pos):
        """One metric of every pair at once (vectorised over the pairs)."""
        opts = spec.options
        if spec.metric == "delta_dp":
            threshold = opts.get("threshold")
            if threshold is None:
                kept = codes >= 0  # -1: a group left out by min_group_size
                sums = np.bincount(
                    codes[kept],
                    weights=(w_pos * self.sorted)[kept],
                    minlength=steps.n_groups,
                )
                level = sums / steps.totals
            else:
                k = int(np.searchsorted(self.points, threshold, side="left")) - 1
                groups = np.arange(steps.n_groups)
                level = steps.at(groups, k + self.pad_left) if k >= 0 else 0.0 * groups
            return np.abs(level[a] - level[b])
        if spec.metric == "abcc" and opts.get("method", "exact") == "exact":
            return pairs_abcc(steps, a, b, self.padded)
        epsilon = float(opts.get("epsilon", 0.0))
        if spec.metric == "mcdp" and opts.get("method", "exact") == "exact":
            if epsilon == 0.0:
                return pairs_max_gap(steps, a, b)
            return pairs_mcdp(steps, a, b, self._plan(epsilon, opts))
        return self._pairs_on_grid(spec, steps, a, b)

    def _pairs_on_grid(self, spec, steps, a, b):
        """ABCC on a grid and MCDP's Algorithm 2: a pair's gap at every score."""
        opts = spec.options
        grid = np.linspace(0, 1, opts.get("n_points", 10000))
        at = np.searchsorted(self.points, grid, side="right") - 1
        k = opts.get("sampling_frequency", 32)
        out = np.empty(a.shape[0])
        for i in range(a.shape[0]):
            row = steps.gap(a[i], b[i], np.arange(self.points.shape[0]) + self.pad_left)
            if spec.metric == "abcc":
                on_grid = np.where(at >= 0, row[np.maximum(at, 0)], 0.0)
                out[i] = np.trapezoid(np.abs(on_grid), grid)
            else:
                pair = PairGap(self.points, row, 1.0, 0, 1)
                out[i] = _pair_approx(pair, float(opts.get("epsilon", 0.0)), k)[0]
        return out

    def _plan(self, epsilon, opts):
        """The windows of MCDP(ε) on the padded scores (shared by all resamples)."""
        key = (epsilon, opts.get("rounding", "exact"))
        if key not in self._windows:
            self._windows[key] = _window_plan(self.padded, *key)
        return self._windows[key]

    def _pair_max(self, spec, steps, a, b):
        """The worst pair's exact MCDP or ABCC, evaluating few pairs.

        Pairs are evaluated on their merged supports in decreasing order of
        an upper bound (:func:`~skfair.metrics._allpairs.max_over_pairs`);
        the maximum is the one over every pair.
        """
        sizes = support_sizes(steps, a, b)
        top, area = cell_bounds(steps, a, b, self.padded)
        if spec.metric == "abcc":
            return max_over_pairs(
                area, lambda i: pairs_abcc(steps, a[i], b[i], self.padded), sizes
            )
        epsilon = float(spec.options.get("epsilon", 0.0))
        if epsilon == 0.0:
            return max_over_pairs(
                top, lambda i: pairs_max_gap(steps, a[i], b[i]), sizes
            )
        plan = self._plan(epsilon, spec.options)
        grid = grid_bounds(steps, a, b, self.padded, epsilon)
        bound = top if grid is None else np.minimum(top, grid)
        return max_over_pairs(
            bound, lambda i: pairs_mcdp(steps, a[i], b[i], plan), sizes
        )

    def values(self, w_pos, cell_pos, specs):
        """The aggregated value of every spec on one resample.

        With ``agg="max"``, exact MCDP and ABCC evaluate only the pairs that
        may be the worst (:meth:`_pair_max`); other specs evaluate every pair.
        """
        fast = [s for s in specs if s.sortable]
        results = {}
        cdfs = self._cdfs(w_pos, cell_pos) if fast else None
        for spec in fast:
            agg = spec.options.get("agg", "max")
            exact = spec.options.get("method", "exact") == "exact"
            # a group of total weight 0 (NaN CDF) takes every pair, as before
            defined = all((steps.totals > 0).all() for steps, _ in cdfs)
            if agg == "max" and exact and defined and spec.metric in ("abcc", "mcdp"):
                results[spec] = max(
                    self._pair_max(spec, steps, *_pair_codes(grouping))
                    for grouping, (steps, _) in zip(self.groupings, cdfs)
                )
            else:
                per_grouping = self.pair_values(w_pos, cell_pos, [spec], cdfs)[0]
                results[spec] = aggregate(per_grouping, agg)
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


def _window_plan(padded, epsilon, rounding):
    """The [0, ε] neighbourhood and the window ends of MCDP(ε) on ``padded``.

    As ``_pair_exact``: ΔF on [0, 1] has breakpoints at 0 and 1 (added when no
    score is there); windows are ``[p_k, p_k + 2ε]`` with ``rounding``'s
    membership. See :func:`~skfair.metrics._allpairs.window_plan`.
    """
    return window_plan(padded, epsilon, rounding)


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


def _strata(resampler):
    """The cells scipy resamples, and the samples that stay fixed.

    scipy needs two observations per sample; a one-sample cell is constant,
    and a cell left out of every comparison (min_group_size) is not resampled.
    """
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
    return data, fixed


def _resample_weights(resampler, flat, fixed):
    """Bootstrap counts (times sample weights) along the sorted scores, per row."""
    n_rows = flat[0].shape[0]
    parts = flat + (
        [np.broadcast_to(fixed, (n_rows, fixed.size))] if fixed.size else []
    )
    pos = resampler.rank[np.concatenate(parts, axis=1)]
    pos += (np.arange(n_rows) * resampler.n)[:, None]
    counts = np.bincount(pos.ravel(), minlength=n_rows * resampler.n)
    w = counts.reshape(n_rows, resampler.n).astype(np.float64)
    return w if resampler.w_sorted is None else w * resampler.w_sorted


def _bootstrap_statistic(resampler, specs, fixed, band):
    """The metrics (``specs``) and the band maxima of each resample, for scipy."""
    values = _statistic(resampler, specs, "bootstrap", fixed) if specs else None

    def statistic(*samples, axis=-1):
        lead, flat = _rows(samples)
        out = []
        if values is not None:
            out.append(np.asarray(values(*samples)).reshape(len(specs), -1))
        if band is not None:
            w_rows = _resample_weights(resampler, flat, fixed)
            out.append(band.studentised_maxima(w_rows))
        out = np.concatenate(out).reshape((-1,) + lead)
        return out[0] if out.shape[0] == 1 else out

    return statistic


def _bootstrap(
    resampler,
    specs,
    *,
    confidence_level,
    n_resamples,
    bootstrap_method,
    rng,
    band=None,
):
    """Scipy's stratified bootstrap of several specs (and bands) on shared resamples.

    Returns the metrics' ``low``, ``high`` and standard errors (scipy's
    ``bootstrap_method`` interval), and the bootstrap distribution of each
    band norm's studentised maximum (n_norms, n_resamples), or None.
    """
    data, fixed = _strata(resampler)
    batch = _batch(resampler.n)
    if band is not None:
        n_groups = sum(g.n_groups for g in resampler.groupings)
        batch = max(1, _BATCH_CELLS // (resampler.n + n_groups * band.points.size))
    with warnings.catch_warnings():
        # NaN resamples (ABPC undefined) give NaN bounds, reported as such
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap(
            data,
            _bootstrap_statistic(resampler, specs, fixed, band),
            n_resamples=n_resamples,
            batch=batch,
            vectorized=True,
            paired=False,
            confidence_level=confidence_level,
            method=bootstrap_method if specs else "percentile",
            rng=rng,
        )
    k = len(specs)
    distribution = np.atleast_2d(res.bootstrap_distribution)
    undefined = np.isnan(distribution[:k]).any(axis=-1)
    low = np.where(undefined, np.nan, np.atleast_1d(res.confidence_interval.low)[:k])
    high = np.where(undefined, np.nan, np.atleast_1d(res.confidence_interval.high)[:k])
    se = np.where(undefined, np.nan, np.atleast_1d(res.standard_error)[:k])
    maxima = distribution[k:] if band is not None else None
    return _Draws(low, high, se, distribution[:k], maxima)


class _Draws(NamedTuple):
    """What :func:`_bootstrap` returns.

    ``low``, ``high``, ``se``: scipy's interval and standard error of each
    spec; ``values``: their bootstrap distributions (n_specs, n_resamples);
    ``maxima``: the band norms' studentised maxima (n_norms, n_resamples) or
    None.
    """

    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    values: np.ndarray
    maxima: np.ndarray | None


def _auto_method(spec, resampler=None):
    """The default interval of a metric: closed form for ΔDP, a band otherwise.

    ΔDP_c of scores that are all 0 or 1 (hard predictions, known from the
    ``resampler``'s data) is a difference of proportions: Newcombe's.
    """
    if spec.metric == "delta_dp":
        if spec.options.get("threshold") is not None:
            return "newcombe"
        binary = resampler is not None and _binary_scores(resampler)
        return "newcombe" if binary else "welch"
    return "band"


def _binary_scores(resampler):
    """Whether every score is 0 or 1."""
    scores = resampler.points
    return bool(np.all((scores == 0.0) | (scores == 1.0)))


def band_norm(spec):
    """The norm of the gap in which a metric is 1-Lipschitz (see ``_bands``)."""
    opts = spec.options
    if spec.metric == "abpc":
        return ("kde", opts.get("bw_method", "scott"), int(opts.get("n_points", 5000)))
    if spec.metric == "mcdp" or opts.get("threshold") is not None:
        return "sup"  # MCDP(ε) for every ε, and ΔDP_b^t = |G(t)|
    return "l1"  # ABCC = ∫|G|, and ΔDP_c = |∫G|


def _summaries(resampler, threshold):
    """Per grouping, the groups' :class:`GroupSummary`."""
    return [
        summarise_groups(
            resampler.sorted,
            to_group[resampler.cell_sorted],
            resampler.w_sorted,
            grouping.n_groups,
            threshold,
        )
        for to_group, grouping in zip(resampler.cell_to_group, resampler.groupings)
    ]


def _upper(resampler, spec):
    """The largest value ``spec``'s metric can take, the clip of its intervals.

    2 for ABPC and 1 for a CDF gap (MCDP, ΔDP_b^t); ABCC and ΔDP_c are at
    most the width of the scores' support: 1 for scores in [0, 1], else
    unbounded (scores such as logits).
    """
    if spec.metric == "abpc":
        return 2.0
    if spec.metric == "mcdp" or spec.options.get("threshold") is not None:
        return 1.0
    unit = resampler.points[0] >= 0.0 and resampler.points[-1] <= 1.0
    return 1.0 if unit else np.inf


def _band_pair_values(resampler, band, spec):
    """Per grouping, the metric of every pair (MCDP exact, also for 'approx')."""
    if spec.metric == "abpc":
        return band.kde_pair_values(band_norm(spec))
    if spec.metric == "mcdp" and spec.options.get("method") == "approx":
        drop = ("method", "sampling_frequency")
        spec = _Spec(spec.metric, tuple(kv for kv in spec.kwargs if kv[0] not in drop))
    w = np.ones(resampler.n) if resampler.w_sorted is None else resampler.w_sorted
    per_grouping = resampler.pair_values(w, resampler.cell_sorted, [spec])[0]
    return [np.asarray(v, dtype=np.float64) for v in per_grouping]


def _interval_bounds(resampler, specs, methods, level, band=None, maxima=None):
    """``low`` and ``high`` of each spec by its method: welch, newcombe or band.

    ``maxima``: the bootstrap distribution of each of ``band.norms``'
    studentised maximum, as :func:`_bootstrap` returns it.
    """
    lows, highs = [], []
    for spec, method in zip(specs, methods):
        if method == "band":
            norm = band_norm(spec)
            critical = critical_value(maxima[band.norms.index(norm)], level)
            values = _band_pair_values(resampler, band, spec)
            half = band.pair_halfwidths(norm, critical)
            low = [np.maximum(v - h, 0.0) for v, h in zip(values, half)]  # pairs >= 0
            high = [v + h for v, h in zip(values, half)]
        else:
            threshold = spec.options.get("threshold")
            summaries = _summaries(resampler, threshold)
            low, high = delta_dp_pair_bounds(summaries, threshold, 1.0 - level, method)
        upper = _upper(resampler, spec)
        low, high = aggregate_bounds(low, high, spec.options.get("agg", "max"), upper)
        lows.append(low)
        highs.append(high)
    return np.array(lows), np.array(highs)


def _closed_form_pvalue(resampler, spec):
    """``(pvalue, test)`` of a test needing no resampling, or None.

    The exact KS test for MCDP(0) of two groups; Welch / Alexander–Govern
    (ΔDP_c) and chi-square / Fisher (ΔDP_b^t) for ΔDP. Unweighted data only.
    """
    if _ks_problem(spec, resampler, resampler.weights) is None:
        return _ks_pvalue(resampler), "ks"
    return _closed_form(resampler, spec)


def _zero_if_not_rejected(low, pvalue, confidence_level):
    """``low`` set to 0 where the test of "no disparity" does not reject.

    Lowering a bound never reduces coverage, and the interval then agrees
    with the test: it contains 0 whenever the p-value exceeds ``1 - level``.
    """
    keep = ~(np.asarray(pvalue, dtype=np.float64) > 1.0 - confidence_level)
    return np.where(keep, low, 0.0)


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


def _closed_form(resampler, spec):
    """``(pvalue, test)`` of the ΔDP tests needing no resampling, or None."""
    if resampler.weights is not None or spec.metric != "delta_dp":
        return None
    threshold = spec.options.get("threshold")
    if threshold is None and _binary_scores(resampler):
        # hard predictions: the mean gap is the gap in positive rate at 0.5,
        # tested as such (Welch's t-test needs spread within each group)
        threshold = 0.5
    return delta_dp_pvalue(_summaries(resampler, threshold), threshold)


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


def _permutation_resolution(resampler, n_resamples):
    """``(n_permutations, pvalue_floor)`` of :func:`_permutation_pvalues`.

    :func:`scipy.stats.permutation_test` enumerates every distinct partition
    of the permuted samples into groups of their sizes (an exact test, whose
    p-values are multiples of ``1 / n_partitions``) when there are at most
    ``n_resamples`` of them; otherwise it draws ``n_resamples`` at random and
    the smallest p-value is ``1 / (n_resamples + 1)``.
    """
    sizes = [resampler.members[c].shape[0] for c in resampler.permuted_cells]
    n_moved = sum(sizes)
    if n_moved <= _SCIPY_PERMUTATION_MAX:
        # the multinomial coefficient's log first: the count itself can be huge
        log_count = (
            special.gammaln(n_moved + 1) - special.gammaln(np.add(sizes, 1)).sum()
        )
        if log_count < np.log(n_resamples) + 1.0:
            cum = np.cumsum([0, *sizes]).tolist()
            count = math.prod(math.comb(n, k) for n, k in zip(cum[1:], cum[:-1]))
            if count <= n_resamples:  # scipy's criterion for the exact test
                return count, 1.0 / count
    return n_resamples, 1.0 / (n_resamples + 1)


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
