"""MCDP(ε) of a frame, exactly, computed by aggregations in its engine.

The Dask engine's plan, unchanged: pass 1 gives every pair of groups its
histograms and certified bounds (``PairBounds``, ``_plan_zero`` /
``_plan_eps``); only the scores of the bins that may start or end a
maximising window (or hold its minimum) travel (pass 2, as distinct
(row, score) pairs with counts); the client runs the in-memory exact sweep
on the reduced step function (``_mcdp_exact_pairs``), so that the value is
bit-for-bit the in-memory one. This module adds the engine's passes and the
weighted case, which the Dask engine refuses: the bounds are computed on
the weighted CDFs, widened by :data:`SLACK` and scaled to integers so that
the same planners apply, and the gaps at the shipped scores are the
weighted CDF gaps (equal to the in-memory ones to rounding).
"""

from __future__ import annotations

import functools

import numpy as np

from ...utils._validation import OUT_OF_UNIT_INTERVAL_ERROR
from .._base import OUTSIDE_DOMAIN_ERROR, UNIT_DOMAIN, check_agg, check_domain
from .._dask._groups import per_group
from .._dask._mcdp import (
    _assemble,
    _domains,
    _mcdp_exact_pairs,
    _mcdp_plans,
    _plan_eps,
    _plan_zero,
)
from .._dask._passes import bins_of
from .._kernels import PairGap, group_pairs, mcdp_pair_exact
from .._mcdp import (
    DOMAIN_REASON,
    EMPTY_EPSILONS_ERROR,
    UNIT_INTERVAL_REASON,
    check_epsilon,
    check_mcdp_method,
)
from ._frame import LazyColumns
from ._groups import group_weights, groupings_of
from ._passes import candidate_points, grid_for, histogram

LAZY_APPROX_ERROR = (
    "method='approx' (Algorithm 2) is not computed in the engine; use "
    "method='exact' (the definition, and as fast there), or compute the "
    "approximation in memory."
)
#: Absolute widening of the weighted CDF bounds: larger than the rounding of
#: any sum of weights, so a bin is left out only when it cannot matter.
SLACK = 1e-9
_SCALE = float(2**50)


def _check_range(checked, epsilons, domain):
    """The in-memory range checks of MCDP(ε > 0), on the engine's min and max."""
    if max(epsilons) == 0 or domain is None:
        return
    low, high = checked.low, checked.high
    if domain == UNIT_DOMAIN and (low < 0.0 or high > 1.0):
        raise ValueError(
            OUT_OF_UNIT_INTERVAL_ERROR.format(
                name="y_score", why=UNIT_INTERVAL_REASON, low=low, high=high
            )
        )
    if low < domain[0] or high > domain[1]:
        raise ValueError(
            OUTSIDE_DOMAIN_ERROR.format(
                lo=domain[0], hi=domain[1], why=DOMAIN_REASON, low=low, high=high
            )
        )


def _checked_options(epsilons, options):
    epsilons = [check_epsilon(e) for e in epsilons]
    if not epsilons:
        raise ValueError(EMPTY_EPSILONS_ERROR)
    domain = check_domain(options["domain"])
    width = 1.0 if domain == UNIT_DOMAIN else 0.0
    for e in epsilons:
        check_mcdp_method(
            options["method"],
            e,
            options["sampling_frequency"],
            options["rounding"],
            width,
        )
    if options["method"] != "exact":
        raise NotImplementedError(LAZY_APPROX_ERROR)
    check_agg(options["agg"])
    return epsilons, domain


def mcdp_results(columns, epsilons, options):
    """One :class:`~skfair.metrics.MCDPResult` per ε (see the module docstring)."""
    epsilons, domain = _checked_options(epsilons, options)
    checked = columns.checked()
    _check_range(checked, epsilons, domain)
    positive = max(epsilons) > 0
    weighted = columns.weight is not None
    want = ["hist"] + (["whist"] if weighted else [])
    if positive and options["rounding"] == "float":
        want.append("fmin")
    if positive and domain is None:
        want.append("range")
    spec = grid_for(checked.low, checked.high, want)
    summary = histogram(columns, spec)
    groupings = groupings_of(
        summary, combine=options["combine"], min_group_size=options["min_group_size"]
    )
    domains = _domains(summary, groupings, domain if positive else UNIT_DOMAIN)
    if weighted:
        gather = functools.partial(candidate_points, columns)
        per_eps = weighted_exact(
            gather, summary, spec, groupings, epsilons, options, domains
        )
    else:
        plans, needed = _mcdp_plans(summary, spec, groupings, epsilons, domains)
        values, rows, counts, _ = candidate_points(columns, spec, needed, summary)
        fast_pad = checked.low >= 0.0 and checked.high <= 1.0
        per_eps = [[] for _ in epsilons]
        for plan, dom in zip(plans, domains):
            pairs = _mcdp_exact_pairs(
                plan, (values, rows, counts), spec, epsilons, options, fast_pad, dom
            )
            for j in range(len(epsilons)):
                per_eps[j].append(pairs[j])
    return [_assemble(r, e, options) for r, e in zip(per_eps, epsilons)]


class _Bounds:
    """Integer bounds of a weighted pair for the Dask planners (``E``, ``U``, ``L``)."""

    def __init__(self, E, U, L, nonempty):
        self.E, self.U, self.L, self.nonempty = E, U, L, nonempty


def _up(x):
    return np.ceil((np.abs(x) + SLACK) * _SCALE).astype(np.int64)


def _down(x):
    return np.floor(np.maximum(np.abs(x) - SLACK, 0.0) * _SCALE).astype(np.int64)


class WeightedPairBounds:
    """One weighted pair's CDF gap just before every edge, and bounds per bin.

    ``Fa``, ``Fb``: the weighted CDFs before each edge; ``E``: their gap;
    ``lo``, ``hi``: bounds on the gap inside each bin. :meth:`for_eps` and
    :meth:`for_zero` give conservative integer versions (``|gap| * 2**50``,
    widened by :data:`SLACK`) for ``_plan_eps`` and ``_plan_zero``.
    """

    def __init__(self, wa, wb, nonempty):
        self.Wa, self.Wb = float(wa.sum()), float(wb.sum())
        self.Ca, self.Cb = np.r_[0.0, np.cumsum(wa)], np.r_[0.0, np.cumsum(wb)]
        self.E = self.Ca / self.Wa - self.Cb / self.Wb
        self.lo = self.Ca[:-1] / self.Wa - self.Cb[1:] / self.Wb
        self.hi = self.Ca[1:] / self.Wa - self.Cb[:-1] / self.Wb
        self.nonempty = nonempty
        self.crossing = (self.lo < SLACK) & (self.hi > -SLACK)

    def _u_l(self):
        U = np.maximum(np.abs(self.lo), np.abs(self.hi))
        L = np.where(
            (self.lo <= 0) & (self.hi >= 0),
            0.0,
            np.minimum(np.abs(self.lo), np.abs(self.hi)),
        )
        return _up(U), _down(L)

    def for_eps(self):
        U, L = self._u_l()
        return _Bounds(_up(self.E), U, L, self.nonempty)

    def for_zero(self):
        U, L = self._u_l()
        return _Bounds(_down(self.E), U, L, self.nonempty)

    def gaps_at(self, u, wa, wb, bins):
        """The weighted CDF gap at the shipped scores ``u`` (sorted; in-bin weights)."""
        if u.size == 0:
            return np.zeros(0)
        first = np.r_[True, bins[1:] != bins[:-1]]
        run = np.cumsum(first) - 1
        cum_a, cum_b = np.cumsum(wa), np.cumsum(wb)
        base_a, base_b = (cum_a - wa)[first], (cum_b - wb)[first]
        c_a = self.Ca[bins] + cum_a - base_a[run]
        c_b = self.Cb[bins] + cum_b - base_b[run]
        return c_a / self.Wa - c_b / self.Wb


def weighted_pair_points(points, a, b, spec):
    """Distinct scores of groups a, b among the shipped ones, with in-bin weights."""
    values, codes, _, weights = points
    mask = (codes == a) | (codes == b)
    v, c, w = values[mask], codes[mask], weights[mask]
    order = np.argsort(v, kind="stable")
    v, c, w = v[order], c[order], w[order]
    if v.size == 0:
        return v, v, v, np.zeros(0, dtype=np.intp)
    new = np.r_[True, v[1:] != v[:-1]]
    group = np.cumsum(new) - 1
    m = int(group[-1]) + 1
    wa = np.bincount(group, weights=w * (c == a), minlength=m)
    wb = np.bincount(group, weights=w * (c == b), minlength=m)
    u = v[new]
    return u, wa, wb, bins_of(u, spec)


def weighted_exact(gather, summary, spec, groupings, epsilons, options, domains):
    """Per ε, per grouping, every pair's exact sweep on weighted CDFs.

    ``summary`` is pass 1's (with ``hist`` and ``whist``);
    ``gather(spec, needed, summary)`` runs pass 2 and returns ``(values, rows,
    counts, weights)`` of the distinct (row, score) pairs of the ``needed``
    bins, so that any backend's passes can call it (the Dask engine's
    ``gather_points``, given weights, would).
    """
    plans, needed = [], np.zeros(spec["n_bins"] + 1, dtype=bool)
    arrays = summary["arrays"]
    for (name, codes, labels), dom in zip(groupings, domains):
        group_weights(summary, codes, labels, name)
        h = per_group(arrays["hist"][0], codes, len(labels))
        hw = per_group(arrays["whist"][0], codes, len(labels))
        pair_plans = []
        for a, b in group_pairs(len(labels)):
            bounds = WeightedPairBounds(hw[a], hw[b], (h[a] + h[b]) > 0)
            per_e = []
            for e in epsilons:
                if e == 0.0:
                    per_e.append((_plan_zero(bounds.for_zero()), None, None, None))
                else:
                    per_e.append(_plan_eps(bounds.for_eps(), e, spec, dom[0]))
                needed |= per_e[-1][0]
            pair_plans.append((a, b, per_e))
        plans.append((name, codes, labels, h, hw, pair_plans))
    points = gather(spec, needed, summary)
    fmin_rows = arrays["fmin"][0] if "fmin" in arrays else None
    per_eps = [[] for _ in epsilons]
    for plan, dom in zip(plans, domains):
        name, codes, labels, h, hw, pair_plans = plan
        fmin = None
        if fmin_rows is not None:
            fmin = per_group(fmin_rows, codes, len(labels), "min")
        group_points = (points[0], codes[points[1]], points[2], points[3])
        results = [[] for _ in epsilons]
        for a, b, pair_eps in pair_plans:
            nonempty = (h[a] + h[b]) > 0
            bounds = WeightedPairBounds(hw[a], hw[b], nonempty)
            first = None if fmin is None else np.minimum(fmin[a], fmin[b])
            u, wa, wb, ubins = weighted_pair_points(group_points, a, b, spec)
            gaps = bounds.gaps_at(u, wa, wb, ubins)
            last = int(np.flatnonzero(nonempty)[-1])
            if u.size and ubins[-1] == last:
                gaps[-1] = 0.0  # both CDFs reach exactly 1 at the largest score
            for j, e in enumerate(epsilons):
                pair = _weighted_pair(u, gaps, ubins, pair_eps[j], e, spec, first, a, b)
                out = mcdp_pair_exact(pair, e, options["rounding"], dom)
                results[j].append((out, name, labels[a], labels[b]))
        for j in range(len(epsilons)):
            per_eps[j].append(results[j])
    return per_eps


def _weighted_pair(u, gaps, ubins, plan, epsilon, spec, first, a, b):
    """The reduced step function of one weighted pair at one ε (a PairGap)."""
    und, inside, out, ub = plan
    keep = und[ubins]
    p, q = u[keep], gaps[keep]
    if epsilon > 0.0:
        decided = np.flatnonzero(inside | out)
        where = spec["edges"][decided] if first is None else first[decided]
        value = np.where(inside[decided], (ub + 2) / _SCALE, 0.0)
        p, q = np.concatenate((p, where)), np.concatenate((q, value))
        order = np.argsort(p, kind="stable")
        p, q = p[order], q[order]
    return PairGap(p, q, 1.0, a, b)


def mcdp_details(
    data,
    y_true,
    y_score,
    *,
    sensitive_features,
    epsilon=0.0,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    domain=(0.0, 1.0),
    given=None,
    pos_label=1,
):
    """:func:`skfair.metrics.mcdp_details` on the columns of a frame.

    ``y_true`` (ignored, but must be a column if given), ``y_score``,
    ``sensitive_features`` (a name or a list of names) and ``sample_weight``
    are column names of ``data``; the other parameters are the public
    function's.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import mcdp_details
    >>> lf = pl.LazyFrame({"s": [.1, .2, .3, .4, .5, .12, .33, .35, .6, .9],
    ...                    "g": [0] * 5 + [1] * 5})
    >>> res = mcdp_details(lf, None, "s", sensitive_features="g", min_group_size=1)
    >>> res.value, res.threshold, res.higher_cdf_group
    (0.4, 0.3, 0)
    """
    columns = LazyColumns(
        data,
        y_score,
        sensitive_features,
        sample_weight,
        ignored={"y_true": y_true},
        given=(given, pos_label, y_true),
    )
    options = {
        "method": method,
        "sampling_frequency": sampling_frequency,
        "rounding": rounding,
        "agg": agg,
        "combine": combine,
        "min_group_size": min_group_size,
        "domain": domain,
        "given": given,
    }
    return mcdp_results(columns, [epsilon], options)[0]


def mcdp(
    data,
    y_true,
    y_score,
    *,
    sensitive_features,
    epsilon=0.0,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    domain=(0.0, 1.0),
    given=None,
    pos_label=1,
):
    """:func:`skfair.metrics.mcdp` on the columns of a frame (see :func:`mcdp_details`).

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import mcdp
    >>> lf = pl.LazyFrame({"s": [.1, .2, .3, .4, .5, .12, .33, .35, .6, .9],
    ...                    "g": [0] * 5 + [1] * 5})
    >>> mcdp(lf, None, "s", sensitive_features="g", epsilon=0.05, min_group_size=1)
    0.2
    """
    return mcdp_details(
        data,
        y_true,
        y_score,
        sensitive_features=sensitive_features,
        epsilon=epsilon,
        method=method,
        sampling_frequency=sampling_frequency,
        rounding=rounding,
        agg=agg,
        combine=combine,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
        domain=domain,
        given=given,
        pos_label=pos_label,
    ).value


def mcdp_curve(
    data,
    y_true,
    y_score,
    *,
    sensitive_features,
    epsilons,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    domain=(0.0, 1.0),
    given=None,
    pos_label=1,
):
    """:func:`skfair.metrics.mcdp_curve` on the columns of a frame (two passes).

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import mcdp_curve
    >>> lf = pl.LazyFrame({"s": [.1, .2, .3, .4, .5, .12, .33, .35, .6, .9],
    ...                    "g": [0] * 5 + [1] * 5})
    >>> mcdp_curve(lf, None, "s", sensitive_features="g", epsilons=[0, 0.05, 0.5],
    ...            min_group_size=1).tolist()
    [0.4, 0.2, 0.0]
    """
    columns = LazyColumns(
        data,
        y_score,
        sensitive_features,
        sample_weight,
        ignored={"y_true": y_true},
        given=(given, pos_label, y_true),
    )
    options = {
        "method": method,
        "sampling_frequency": sampling_frequency,
        "rounding": rounding,
        "agg": agg,
        "combine": combine,
        "min_group_size": min_group_size,
        "domain": domain,
        "given": given,
    }
    epsilons = np.atleast_1d(epsilons).tolist()
    return np.array([r.value for r in mcdp_results(columns, epsilons, options)])
