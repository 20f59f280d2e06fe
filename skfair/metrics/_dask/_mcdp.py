"""MCDP(ε) of Dask data, exactly, without gathering the scores.

Pass 1 gives each pair of groups its histograms and certified bounds
(:class:`~._pair_bounds.PairBounds`): ``LB``, a lower bound on MCDP(ε) (times
``n_a n_b``) attained by a window, and ``UB``, an upper bound. Bins whose
largest ``|N|`` is below ``LB`` (*out*) or whose smallest ``|N|`` exceeds
``UB`` (*in*) cannot start or end a maximising window nor hold its minimum;
only the scores of the other bins travel (pass 2). Each *in* or *out* bin is
replaced by one point at its left edge (or at its smallest score for
``rounding="float"``) whose value, ``UB + 1`` or 0, is on the correct side of
every window's minimum, so windows that span bins keep their exact minimum.
The client then runs the in-memory exact sweep
(:func:`~skfair.metrics._kernels.mcdp_pair_exact`) on that reduced step
function: the value is bit-for-bit the in-memory one. When several windows
attain the maximum, the window reported by ``mcdp_details`` may be another
maximising window than the in-memory one (the value is the same).
"""

from __future__ import annotations

import numpy as np

from .._base import aggregate, check_agg
from .._kernels import (
    PairGap,
    group_pairs,
    mcdp_pair_approx,
    mcdp_pair_exact,
    sliding_min,
)
from .._mcdp import (
    EMPTY_EPSILONS_ERROR,
    UNIT_INTERVAL_REASON,
    MCDPResult,
    check_epsilon,
    check_mcdp_method,
)
from ._groups import per_group, summary_groupings
from ._inputs import start
from ._pair_bounds import PairBounds, exact_numerators, pair_points
from ._passes import gather_points, histogram_summary

_BIG = np.iinfo(np.int64).max


def _plan_eps(bounds, epsilon, n_bins):
    """Decided bins of one pair for MCDP(ε), ε > 0 (unit grid only)."""
    B = n_bins
    absE = np.abs(bounds.E[: B + 1])  # before the edges k/B, k = 0..B
    U, L = bounds.U, bounds.L
    # Upper bound: a window starting in bin k covers the edges k+1..k+D.
    D = int(np.floor(2.0 * epsilon * B)) - 1
    if D >= 1:
        ahead = sliding_min(np.r_[absE[1:], _BIG], D, _BIG)  # edges k+1..k+D
        ub_start = np.minimum(U, ahead[: B + 1])
    else:
        ub_start = U.copy()
    ub_start[B] = 0
    D0 = int(np.floor(epsilon * B)) - 1
    ub0 = int(U[0]) if D0 < 1 else min(int(U[0]), int(absE[1 : 1 + D0].min()))
    ub = max(ub0, int(ub_start.max()))
    # Lower bound: the window of the breakpoint at or before edge k stays in
    # bins k..k+D'.
    Dp = int(np.ceil(2.0 * epsilon * B)) + 2
    lb_start = sliding_min(L, Dp, 0)
    K0 = min(int(np.floor(epsilon * B)) + 2, B + 1)
    lb0 = int(L[:K0].min())
    lb = max(lb0, int(lb_start.max()))
    out = lb > U
    inside = ub < L
    undecided = bounds.nonempty & ~out & ~inside
    undecided[B] = bounds.nonempty[B]
    return (
        undecided,
        bounds.nonempty & inside & ~undecided,
        bounds.nonempty & out & ~undecided,
        ub,
    )


def _plan_zero(bounds):
    """Undecided bins of one pair for MCDP(0): those whose ``|N|`` may reach the max."""
    lb = int(np.abs(bounds.E).max())
    return bounds.nonempty & (lb <= bounds.U)


def _mcdp_setup(y_true, y_score, epsilons, options):
    """Pass 1 of MCDP's histograms (and probes), and the groupings."""
    names, aligned, meta = start(y_true, y_score, options)
    positive = max(epsilons) > 0
    want = ["hist"]
    extra = {}
    if options["method"] == "exact" and options["rounding"] == "float" and positive:
        want.append("fmin")
    if options["method"] == "approx":
        extra["probes"] = tuple(
            np.arange(0, 1, e / options["sampling_frequency"]) for e in epsilons
        )
    summary, spec = histogram_summary(
        names, aligned, meta, want, UNIT_INTERVAL_REASON if positive else None, **extra
    )
    groupings = summary_groupings(
        summary,
        meta,
        combine=options["combine"],
        min_group_size=options["min_group_size"],
    )
    return names, aligned, meta, summary, spec, groupings


def _mcdp_values(y_true, y_score, epsilons, options):
    """Per ε: list over groupings of list over pairs of (_pair_* output, labels)."""
    names, aligned, meta, summary, spec, groupings = _mcdp_setup(
        y_true, y_score, epsilons, options
    )
    if options["method"] == "approx":
        return _mcdp_approx_values(summary, spec, groupings, epsilons, options)
    # exact: plan every pair and ε, ship the undecided bins once
    plans, needed = _mcdp_plans(summary, spec, groupings, epsilons)
    points = gather_points(names, aligned, meta, spec, needed, summary["keys"])
    fast_pad = summary["low"] >= 0.0 and summary["high"] <= 1.0
    results = [[] for _ in epsilons]
    for plan in plans:
        per_eps = _mcdp_exact_pairs(plan, points, spec, epsilons, options, fast_pad)
        for j in range(len(epsilons)):
            results[j].append(per_eps[j])
    return results


def _mcdp_approx_values(summary, spec, groupings, epsilons, options):
    """The approximate algorithm on every pair, from the probes' histograms."""
    results = [[] for _ in epsilons]
    for name, codes, labels in groupings:
        per_eps = [[] for _ in epsilons]
        for j, e in enumerate(epsilons):
            probes = spec["probes"][j]
            h = per_group(summary["arrays"][f"probe{j}"][0], codes, len(labels))
            cum = np.cumsum(h, axis=1)[:, : probes.size]
            sizes = h.sum(axis=1)
            for a, b in group_pairs(len(labels)):
                na, nb = int(sizes[a]), int(sizes[b])
                num = cum[a] * nb - cum[b] * na
                pair = PairGap(probes, num, float(na) * float(nb), a, b)
                out = mcdp_pair_approx(pair, e, options["sampling_frequency"])
                per_eps[j].append((out, name, labels[a], labels[b]))
        for j in range(len(epsilons)):
            results[j].append(per_eps[j])
    return results


def _mcdp_plans(summary, spec, groupings, epsilons):
    """Per grouping, the bins every pair and ε still needs, and their union."""
    n_bins = spec["n_bins"]
    rows_hist = summary["arrays"]["hist"][0]
    plans, needed = [], np.zeros(n_bins + 1, dtype=bool)
    fmin_rows = summary["arrays"]["fmin"][0] if "fmin" in summary["arrays"] else None
    for name, codes, labels in groupings:
        h = per_group(rows_hist, codes, len(labels))
        fmin = (
            None
            if fmin_rows is None
            else per_group(fmin_rows, codes, len(labels), "min")
        )
        pair_plans = []
        for a, b in group_pairs(len(labels)):
            bounds = PairBounds(h[a], h[b])
            per_eps = []
            for e in epsilons:
                if e == 0.0:
                    und = _plan_zero(bounds)
                    per_eps.append((und, None, None, None))
                else:
                    und, inside, out, ub = _plan_eps(bounds, e, n_bins)
                    per_eps.append((und, inside, out, ub))
                needed |= und
            pair_plans.append((a, b, per_eps))
        plans.append((name, codes, labels, h, fmin, pair_plans))
    return plans, needed


def _mcdp_exact_pairs(plan, points, spec, epsilons, options, fast_pad):
    """Exact MCDP(ε) of every pair of one grouping, on the gathered points."""
    name, codes, labels, h, fmin, pair_plans = plan
    group_points = (points[0], codes[points[1]], points[2])
    per_eps = [[] for _ in epsilons]
    for a, b, pair_eps in pair_plans:
        # rebuilt, not kept: all pairs' bounds would take O(pairs * bins)
        bounds = PairBounds(h[a], h[b])
        first = None if fmin is None else np.minimum(fmin[a], fmin[b])
        u, ca, cb, ubins = pair_points(group_points, a, b, spec)
        num = exact_numerators(
            u, ca, cb, ubins, bounds.Ca, bounds.Cb, bounds.na, bounds.nb
        )
        scale = float(bounds.na) * float(bounds.nb)
        for j, e in enumerate(epsilons):
            und, inside, out, ub = pair_eps[j]
            keep = und[ubins]
            p, q = u[keep], num[keep]
            if e == 0.0:
                if len(labels) == 2 and fast_pad:
                    # the in-memory two-group sort pads the scores 0 and 1
                    if p.size == 0 or p[0] > 0.0:
                        p, q = np.r_[0.0, p], np.r_[0, q]
                    if p[-1] < 1.0:
                        p, q = np.r_[p, 1.0], np.r_[q, 0]
                pair = PairGap(p, q.astype(np.int64), scale, a, b)
            else:
                decided = np.flatnonzero(inside | out)
                where = spec["edges"][decided] if first is None else first[decided]
                value = np.where(inside[decided], ub + 1, 0).astype(np.int64)
                p = np.concatenate((p, where))
                q = np.concatenate((q.astype(np.int64), value))
                order = np.argsort(p, kind="stable")
                pair = PairGap(p[order], q[order], scale, a, b)
            out_ = mcdp_pair_exact(pair, e, options["rounding"])
            per_eps[j].append((out_, name, labels[a], labels[b]))
    return per_eps


def _assemble(per_grouping, epsilon, options):
    """The :class:`~skfair.metrics.MCDPResult` of one ε from every pair's output."""
    pair_values, worst, values = {}, None, []
    for pairs in per_grouping:
        vals = []
        for out, name, label_a, label_b in pairs:
            vals.append(out[0])
            pair_values[(name, label_a, label_b)] = out[0]
            if worst is None or out[0] > worst[0]:
                higher = label_a if out[3] >= 0 else label_b
                worst = (*out[:3], name, (label_a, label_b), higher)
        values.append(vals)
    return MCDPResult(
        value=aggregate(values, options["agg"]),
        epsilon=epsilon,
        method=options["method"],
        attribute=worst[3],
        groups=worst[4],
        window=worst[1],
        threshold=worst[2],
        higher_cdf_group=worst[5],
        pair_values=pair_values,
    )


def _mcdp_results(y_true, y_score, epsilons, options):
    """The MCDPResult of each ε, the arguments checked as in memory."""
    epsilons = [check_epsilon(e) for e in epsilons]
    if not epsilons:
        raise ValueError(EMPTY_EPSILONS_ERROR)
    for e in epsilons:
        check_mcdp_method(
            options["method"], e, options["sampling_frequency"], options["rounding"]
        )
    check_agg(options["agg"])
    results = _mcdp_values(y_true, y_score, epsilons, options)
    return [_assemble(r, e, options) for r, e in zip(results, epsilons)]


def mcdp_details(y_true, y_score, *, epsilon, **options):
    """:func:`skfair.metrics.mcdp_details` on Dask inputs."""
    return _mcdp_results(y_true, y_score, [epsilon], options)[0]


def mcdp(y_true, y_score, **arguments):
    """:func:`skfair.metrics.mcdp` on Dask inputs."""
    return mcdp_details(y_true, y_score, **arguments).value


def mcdp_curve(y_true, y_score, *, epsilons, **options):
    """:func:`skfair.metrics.mcdp_curve` on Dask inputs."""
    epsilons = np.atleast_1d(epsilons).tolist()
    results = _mcdp_results(y_true, y_score, epsilons, options)
    return np.array([result.value for result in results])
