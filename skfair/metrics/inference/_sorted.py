"""The one sort: validation through the public metrics, then the scores sorted once.

A bootstrap resample is a multinomial reweighting of the observations, and a
permutation a relabelling of them; neither changes the sorted order of the
scores. :class:`SharedSort` therefore sorts the data once and evaluates the
sort-based metrics (ΔDP, ABCC, MCDP) of any resample from a weight per
sorted position and a cell per sorted position, by one linear pass per
grouping (:func:`~skfair.metrics._kernels.group_steps`) and the vectorised
all-pairs kernels. ABPC, a kernel density estimate, is recomputed by the
public function on the resampled data (:meth:`SharedSort.direct`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...utils import check_sensitive_features, sensitive_groupings
from ...utils._groups import check_at_least_two_groups, codes_as_groups
from ...utils._validation import check_scores
from .._base import UNIT_DOMAIN, aggregate, check_domain
from .._kernels import (
    PairGap,
    end_candidates,
    group_steps,
    left_window,
    mcdp_pair_approx,
    padded_points,
    pair_codes,
    pairs_abcc,
    pairs_max_gap,
    pairs_mcdp,
    pivot_row,
    pivot_rows,
    use_pivots,
    window_ends,
    worst_abcc,
    worst_mcdp,
)
from ._dense import DENSE_CELLS, abpc_statistic, cdf_table, worst_from_table
from ._specs import METRICS


class SharedSort:
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
        # min_group_size=None warned once already (in shared_sort); keep every group
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
        # the distinct scores padded with 0 and 1 (MCDP's breakpoints on
        # [0, 1]; harmless elsewhere, and other domains are handled by the
        # windows' plan) and each sorted sample's point there
        self.padded, self.point_of, self.ends = padded_points(self.sorted)
        self.points = self.sorted if self.ends is None else self.sorted[self.ends]
        self.pad_left = int(self.points[0] > 0.0)
        self._cells(cells)
        self._windows = {}
        self._observed = {}  # the data's CDFs and pair values (observed_pairs)

    def _cells(self, cells):
        """Each cell's members, groups, and whether it is permuted or resampled."""
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

    # -- the one-sort engine -------------------------------------------------
    def _cdfs(self, w_pos, cell_pos):
        """Per grouping: every group's CDF where it steps, and the group codes.

        One :func:`~skfair.metrics._kernels.group_steps` per grouping (all
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
            a, b = pair_codes(grouping.n_groups)
            for j, spec in enumerate(specs):
                values = self._pairs(spec, steps, a, b, codes, w_pos)
                out[j].append(np.asarray(values, dtype=np.float64))
        return out

    def observed_pairs(self, specs):
        """For each spec, per grouping, every pair's metric on the data.

        :meth:`pair_values` with the data's weights and cells, each spec
        evaluated once (the group CDFs too): the intervals and DKW bounds of
        a spec share them.
        """
        w_pos = np.ones(self.n) if self.w_sorted is None else self.w_sorted
        if "cdfs" not in self._observed:
            self._observed["cdfs"] = self._cdfs(w_pos, self.cell_sorted)
        missing = [s for s in dict.fromkeys(specs) if s not in self._observed]
        if missing:
            cdfs = self._observed["cdfs"]
            values = self.pair_values(w_pos, self.cell_sorted, missing, cdfs)
            self._observed.update(zip(missing, values))
        return [self._observed[s] for s in specs]

    def observed_pair_ends(self, spec, offsets, sparse=False):
        """Per grouping, the pair values that an interval's ends need.

        ``offsets``: per grouping, arrays ``u`` over its groups; a pair's end
        is ``value + u[a] + u[b]`` and only the largest end over the pairs
        matters (``agg="max"``). With many groups and an exact MCDP or ABCC
        the pairs that cannot attain the largest end for any ``u`` (by the
        pivots' triangle bounds: :func:`~skfair.metrics._kernels.end_candidates`)
        get 0, a lower bound of their value, instead of their value;
        otherwise (and when the bounds cannot cut) every value, as
        :meth:`observed_pairs`. With ``sparse`` a grouping whose pairs were
        cut gets ``(a, b, values)`` of the pairs kept instead (no array of
        every pair: 400 MB at 10,000 groups).
        """
        exact = spec.options.get("method", "exact") == "exact"
        if (
            spec.metric not in ("abcc", "mcdp")
            or not exact
            or self.w_sorted is not None
        ):
            return self.observed_pairs([spec])[0]
        if "cdfs" not in self._observed:
            self._observed["cdfs"] = self._cdfs(np.ones(self.n), self.cell_sorted)
        out = []
        for k, (steps, codes) in enumerate(self._observed["cdfs"]):
            n_groups = self.groupings[k].n_groups
            found = None
            if use_pivots(n_groups):
                rows = self._pivot_rows(spec, steps, codes)
                found = end_candidates(*rows, offsets[k])
            if found is None:
                out.append(self.observed_pairs([spec])[0][k])
                continue
            a, b = found
            if sparse:
                out.append(
                    (a, b, self._pairs(spec, steps, a, b, codes, np.ones(self.n)))
                )
                continue
            values = np.zeros(n_groups * (n_groups - 1) // 2)
            at = a * n_groups - a * (a + 1) // 2 + b - a - 1  # pair_codes order
            values[at] = self._pairs(spec, steps, a, b, codes, np.ones(self.n))
            out.append(values)
        return out

    def _pivot_rows(self, spec, steps, codes):
        """:func:`~skfair.metrics._kernels.pivot_rows` of MCDP or ABCC."""
        ones = np.ones(self.n)

        def value(x, y):
            return self._pairs(spec, steps, x, y, codes, ones)

        def row_of(g):
            values = pivot_row(steps.n_groups, g, value)
            if spec.metric == "abcc" or float(spec.options.get("epsilon", 0.0)) == 0:
                return values, values  # a metric
            ks = pivot_row(steps.n_groups, g, lambda x, y: pairs_max_gap(steps, x, y))
            return ks, values  # MCDP(ε) <= MCDP(0), a metric

        return pivot_rows(steps.n_groups, row_of)

    def _pairs(self, spec, steps, a, b, codes, w_pos):
        """One metric of every pair at once (vectorised over the pairs)."""
        opts = spec.options
        if spec.metric == "delta_dp":
            return self._delta_dp_pairs(
                opts.get("threshold"), steps, a, b, codes, w_pos
            )
        if spec.metric == "abcc" and opts.get("method", "exact") == "exact":
            return pairs_abcc(steps, a, b, self.padded)
        epsilon = float(opts.get("epsilon", 0.0))
        domain = self.domain(opts, codes, w_pos)
        if spec.metric == "mcdp" and opts.get("method", "exact") == "exact":
            if epsilon == 0.0:
                return pairs_max_gap(steps, a, b)
            return pairs_mcdp(steps, a, b, self._plan(epsilon, opts, domain[0]))
        return self._pairs_on_grid(spec, steps, a, b, domain)

    def domain(self, opts, codes, w_pos):
        """The ``(lo, hi)`` of MCDP's windows on one resample of one grouping.

        ``opts["domain"]`` as given, or for None the range of the scores
        compared (``codes >= 0``) with positive weight, as the public
        function takes it on the resampled data.
        """
        domain = opts.get("domain", UNIT_DOMAIN)
        if domain is not None:
            return check_domain(domain)
        kept = codes >= 0
        if w_pos is not None:
            kept &= w_pos > 0
        first, last = int(np.argmax(kept)), self.n - 1 - int(np.argmax(kept[::-1]))
        return float(self.sorted[first]), float(self.sorted[last])

    def _delta_dp_pairs(self, threshold, steps, a, b, codes, w_pos):
        """ΔDP_c (group means) or ΔDP_b^t (CDFs at the threshold) of every pair."""
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

    def _pairs_on_grid(self, spec, steps, a, b, domain):
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
                epsilon = float(opts.get("epsilon", 0.0))
                out[i] = mcdp_pair_approx(pair, epsilon, k, domain)[0]
        return out

    def _plan(self, epsilon, opts, lo):
        """The windows of MCDP(ε) on the padded scores, for a domain from ``lo``.

        The windows' ends are shared by all resamples; the neighbourhood of
        ``lo`` is found per call (one search). See
        :func:`~skfair.metrics._kernels.window_plan`.
        """
        rounding = opts.get("rounding", "exact")
        key = (epsilon, rounding)
        if key not in self._windows:
            starts = np.arange(self.padded.shape[0])
            self._windows[key] = window_ends(
                self.padded, starts, 2.0 * epsilon, rounding
            )
        at_lo, n_left = left_window(self.padded, epsilon, rounding, lo)
        return n_left, self._windows[key], at_lo

    def _pair_max(self, spec, steps, a, b, domain):
        """The worst pair's exact MCDP or ABCC, evaluating few pairs.

        See :func:`~skfair.metrics._kernels.worst_mcdp`; the maximum is the
        one over every pair.
        """
        if spec.metric == "abcc":
            return worst_abcc(steps, a, b, self.padded)
        epsilon = float(spec.options.get("epsilon", 0.0))
        plan = None
        if epsilon > 0.0:
            plan = self._plan(epsilon, spec.options, domain[0])
        return worst_mcdp(steps, a, b, self.padded, epsilon, plan, domain)

    def values(self, w_pos, cell_pos, specs):
        """The aggregated value of every spec on one resample (None for ABPC).

        With ``agg="max"``, exact MCDP and ABCC evaluate only the pairs that
        may be the worst: MCDP(0) and ABCC of few groups from one dense CDF
        table per grouping (:func:`~._dense.worst_from_table`), the others by
        :meth:`_pair_max`; other specs evaluate every pair.
        """
        fast = [s for s in specs if s.sortable]
        results = {}
        cdfs = self._cdfs(w_pos, cell_pos) if fast else None
        tables = {}
        for spec in fast:
            agg = spec.options.get("agg", "max")
            exact = spec.options.get("method", "exact") == "exact"
            # a group of total weight 0 (NaN CDF) takes every pair, as before
            defined = all((steps.totals > 0).all() for steps, _ in cdfs)
            if agg == "max" and exact and defined and spec.metric in ("abcc", "mcdp"):
                results[spec] = max(
                    self._worst(spec, k, cdfs[k], tables, w_pos)
                    for k in range(len(self.groupings))
                )
            else:
                per_grouping = self.pair_values(w_pos, cell_pos, [spec], cdfs)[0]
                results[spec] = aggregate(per_grouping, agg)
        return [results[s] if s.sortable else None for s in specs]

    def _worst(self, spec, k, cdfs, tables, w_pos):
        """The worst pair's exact MCDP or ABCC in grouping ``k`` (``tables``: cache).

        ``cdfs`` is the grouping's steps and codes; ``w_pos`` the resample's
        weights (for the domain of ``domain=None``).
        """
        steps, codes = cdfs
        n_groups = self.groupings[k].n_groups
        plain = spec.metric == "abcc" or float(spec.options.get("epsilon", 0.0)) == 0
        dense = plain and not steps.exact
        if dense and n_groups * self.points.shape[0] <= DENSE_CELLS:
            if k not in tables:
                tables[k] = cdf_table(steps, self.points.shape[0], self.pad_left)
            return worst_from_table(tables[k], self.points, spec.metric)
        domain = self.domain(spec.options, codes, w_pos)
        return self._pair_max(spec, steps, *pair_codes(n_groups), domain)

    def abpc(self, w_pos, cell_pos, spec):
        """ABPC of a relabelling (a permutation: weights unchanged), or None.

        :func:`~._dense.abpc_statistic` for ``method="binned"`` or
        ``"direct"``; None for ``"auto"``, which the public function decides
        by the sizes.
        """
        if spec.options.get("method", "auto") not in ("binned", "direct"):
            return None
        weights = self.w_sorted  # a permutation keeps the sample weights
        per_grouping = []
        for to_group, grouping in zip(self.cell_to_group, self.groupings):
            codes = to_group[cell_pos]
            value = abpc_statistic(
                self.sorted, codes, weights, grouping.n_groups, spec.options
            )
            per_grouping.append([value])
        return aggregate(per_grouping, "max")

    # -- the direct path (ABPC, and an oracle in tests) ----------------------
    def direct(self, idx, cell_of_idx, spec):
        """The public metric on samples ``idx`` labelled with cells ``cell_of_idx``."""
        codes = self.attributes.codes[self.first_of_cell[cell_of_idx]]
        columns = [codes_as_groups(c) for c in codes.T]
        sensitive = columns[0] if len(columns) == 1 else pd.concat(columns, axis=1)
        weights = None if self.weights is None else self.weights[idx]
        return METRICS[spec.metric](
            None,
            self.scores[idx],
            sensitive_features=sensitive,
            sample_weight=weights,
            combine=self.combine,
            min_group_size=self.min_group_size,
            **spec.options,
        )


def shared_sort(data, specs, min_group_size=None, estimates=None):
    """Validate the data through the public metrics and sort the scores once.

    Parameters
    ----------
    data : tuple
        ``(y_true, y_score, sensitive_features, sample_weight, combine)``, as
        for the metrics.
    specs : list
        From :func:`~skfair.metrics.inference.metric_spec`.
    min_group_size : int or None, default=None
        None warns once about small groups and keeps every group; an int
        leaves out the smaller groups, as the metrics do.
    estimates : list of float or None, default=None
        The specs' values, when the caller has computed them by the public
        functions on these (validated) data: returned as they are, and the
        data are not validated again.

    Returns
    -------
    estimates : list of float
        Each spec's metric on the data (the public metric function's value;
        invalid data raise its errors).
    shared : SharedSort
        The sorted data, which the other functions of
        :mod:`skfair.metrics.inference` take.
    """
    y_true, y_score, sensitive_features, sample_weight, combine = data
    if estimates is not None:
        estimates = [float(v) for v in estimates]
    else:
        sensitive_groupings(
            sensitive_features,
            n_samples=len(y_score) if hasattr(y_score, "__len__") else None,
            combine=combine,
            min_group_size=min_group_size,
        )
        keep = 1 if min_group_size is None else min_group_size
        estimates = [
            float(
                METRICS[s.metric](
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
    weights = None
    if sample_weight is not None:
        weights = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weights.max() > 0:  # a power of two: exact, and sums stay finite (1e308)
            weights = np.ldexp(weights, -np.frexp(weights.max())[1])
    return estimates, SharedSort(
        scores, sensitive_features, weights, combine, min_group_size
    )
