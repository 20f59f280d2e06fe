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

A ``domain`` other than [0, 1] only moves the neighbourhood of its lower end
``lo`` (windows that reach ``hi`` reach the largest score, where the gap is
0): the bins' bounds are taken from the bin holding ``lo``, with window
lengths in bins from the widest and narrowest bins of the grid (exact on the
unit grid, with a bin to spare on the data's ``np.linspace`` edges).
``domain=None`` takes each grouping's range from every distinct sensitive
row's smallest and largest score (pass 1); Algorithm 2's probes then depend
on it, so they take a second pass.
"""

from __future__ import annotations

import numpy as np

from .._base import (
    OUTSIDE_DOMAIN_ERROR,
    UNIT_DOMAIN,
    aggregate,
    check_agg,
    check_domain,
)
from .._kernels import (
    PairGap,
    approx_probes,
    group_pairs,
    mcdp_pair_approx,
    mcdp_pair_exact,
    sliding_min,
)
from .._mcdp import (
    DOMAIN_REASON,
    EMPTY_EPSILONS_ERROR,
    UNIT_INTERVAL_REASON,
    MCDPResult,
    check_epsilon,
    check_mcdp_method,
)
from ._groups import per_group, summary_groupings
from ._inputs import start
from ._pair_bounds import PairBounds, exact_numerators, pair_points
from ._passes import bins_of, gather_points, histogram_summary, summarise, unit_spec

_BIG = np.iinfo(np.int64).max


def _window_bins(epsilon, spec, lo):
    """``(k0, D, D0, Dp, K0)``: window lengths in bins, and ``lo``'s bin.

    A window ``[p, p + 2ε]`` starting in bin ``k`` covers the edges
    ``k+1..k+D`` and stays in bins ``k..k+Dp-1`` (from the breakpoint at or
    before edge ``k``); ``lo``'s neighbourhood ``[lo, lo + ε]`` covers the
    edges ``k0+1..k0+D0`` and stays in bins ``k0..k0+K0-1``; ``k0`` is None
    when ``lo`` is below every bin (no score there: the gap is 0 at ``lo``).
    """
    B = spec["n_bins"]
    if spec["grid"] == "unit" and lo == 0.0:  # exact: the edges are k / B
        return (
            0,
            int(np.floor(2.0 * epsilon * B)) - 1,
            int(np.floor(epsilon * B)) - 1,
            int(np.ceil(2.0 * epsilon * B)) + 2,
            min(int(np.floor(epsilon * B)) + 2, B + 1),
        )
    edges = spec["edges"]
    widths = np.diff(edges)
    wide, narrow = float(widths.max()), float(widths.min())
    k0 = None if lo < edges[0] else int(bins_of(np.array([lo]), spec)[0])
    return (
        k0,
        int(np.floor(2.0 * epsilon / wide)) - 1,
        int(np.floor(epsilon / wide)) - 1,
        int(np.ceil(2.0 * epsilon / narrow)) + 2,
        min(int(np.ceil((epsilon + wide) / narrow)) + 2, B + 1),
    )


def _plan_eps(bounds, epsilon, spec, lo=0.0):
    """Decided bins of one pair for MCDP(ε), ε > 0, windows from ``lo``."""
    B = spec["n_bins"]
    absE = np.abs(bounds.E[: B + 1])  # before the edges k/B, k = 0..B
    U, L = bounds.U, bounds.L
    k0, D, D0, Dp, K0 = _window_bins(epsilon, spec, lo)
    # Upper bound: a window starting in bin k covers the edges k+1..k+D.
    if D >= 1:
        ahead = sliding_min(np.r_[absE[1:], _BIG], D, _BIG)  # edges k+1..k+D
        ub_start = np.minimum(U, ahead[: B + 1])
    else:
        ub_start = U.copy()
    ub_start[B] = 0
    ub0 = lb0 = 0  # lo below every score: the gap is 0 at lo
    if k0 is not None:
        ahead0 = absE[k0 + 1 : k0 + 1 + max(D0, 0)]
        ub0 = min(int(U[k0]), int(ahead0.min())) if ahead0.size else int(U[k0])
        lb0 = int(L[k0 : k0 + K0].min())
    ub = max(ub0, int(ub_start.max()))
    # Lower bound: the window of the breakpoint at or before edge k stays in
    # bins k..k+D'.
    lb_start = sliding_min(L, Dp, 0)
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


def _mcdp_setup(y_true, y_score, epsilons, options, domain):
    """Pass 1 of MCDP's histograms (and probes), the groupings, their domains."""
    names, aligned, meta = start(y_true, y_score, options)
    positive = max(epsilons) > 0
    approx = options["method"] == "approx"
    want = ["hist"]
    extra = {}
    if options["method"] == "exact" and options["rounding"] == "float" and positive:
        want.append("fmin")
    if positive and domain is None:
        want.append("range")
    if approx and domain is not None:
        k = options["sampling_frequency"]
        extra["probes"] = tuple(approx_probes(e, k, domain) for e in epsilons)
    unit = domain == UNIT_DOMAIN
    summary, spec = histogram_summary(
        names,
        aligned,
        meta,
        want,
        UNIT_INTERVAL_REASON if positive and unit else None,
        **extra,
    )
    if positive and domain is not None and not unit:
        low, high = summary["low"], summary["high"]
        if low < domain[0] or high > domain[1]:
            raise ValueError(
                OUTSIDE_DOMAIN_ERROR.format(
                    lo=domain[0], hi=domain[1], why=DOMAIN_REASON, low=low, high=high
                )
            )
    groupings = summary_groupings(
        summary,
        meta,
        combine=options["combine"],
        min_group_size=options["min_group_size"],
    )
    domains = _domains(summary, groupings, domain if positive else UNIT_DOMAIN)
    probes = None
    if approx:
        probes = _probes(names, aligned, meta, summary, epsilons, options, domains)
    return names, aligned, meta, summary, spec, groupings, domains, probes


def _domains(summary, groupings, domain):
    """Per grouping, the ``(lo, hi)`` of the windows (the rows' range for None)."""
    if domain is not None:
        return [domain] * len(groupings)
    low, high = summary["arrays"]["rmin"][0], summary["arrays"]["rmax"][0]
    return [
        (float(low[codes >= 0].min()), float(high[codes >= 0].max()))
        for _, codes, _ in groupings
    ]


def _probes(names, aligned, meta, summary, epsilons, options, domains):
    """Per grouping and ε, Algorithm 2's probes and their per-row histogram.

    Pass 1 computed them for a fixed domain; for ``domain=None`` they are
    computed now (a second pass), once per distinct grouping domain.
    """
    k = options["sampling_frequency"]
    if "probe0" in summary["arrays"]:
        probes = [approx_probes(e, k, domains[0]) for e in epsilons]
        return [
            [
                (probes[j], summary["arrays"][f"probe{j}"][0])
                for j in range(len(epsilons))
            ]
            for _ in domains
        ]
    width = max(hi - lo for lo, hi in domains)
    for e in epsilons:
        check_mcdp_method("approx", e, k, "exact", width)
    keys = list(dict.fromkeys((d, e) for d in domains for e in epsilons))
    arrays = [approx_probes(e, k, d) for d, e in keys]
    found = summarise(names, aligned, meta, unit_spec((), probes=tuple(arrays)))
    # rows in pass 1's order
    index = {key: j for j, key in enumerate(found["keys"])}
    rows = np.array([index[key] for key in summary["keys"]], dtype=np.intp)
    by_key = {
        key: (arrays[j], found["arrays"][f"probe{j}"][0][rows])
        for j, key in enumerate(keys)
    }
    return [[by_key[(d, e)] for e in epsilons] for d in domains]


def _mcdp_values(y_true, y_score, epsilons, options, domain):
    """Per ε: list over groupings of list over pairs of (_pair_* output, labels)."""
    names, aligned, meta, summary, spec, groupings, domains, probes = _mcdp_setup(
        y_true, y_score, epsilons, options, domain
    )
    if options["method"] == "approx":
        return _mcdp_approx_values(groupings, epsilons, options, domains, probes)
    # exact: plan every pair and ε, ship the undecided bins once
    plans, needed = _mcdp_plans(summary, spec, groupings, epsilons, domains)
    points = gather_points(names, aligned, meta, spec, needed, summary["keys"])
    fast_pad = summary["low"] >= 0.0 and summary["high"] <= 1.0
    results = [[] for _ in epsilons]
    for plan, dom in zip(plans, domains):
        per_eps = _mcdp_exact_pairs(
            plan, points, spec, epsilons, options, fast_pad, dom
        )
        for j in range(len(epsilons)):
            results[j].append(per_eps[j])
    return results


def _mcdp_approx_values(groupings, epsilons, options, domains, probes):
    """The approximate algorithm on every pair, from the probes' histograms."""
    results = [[] for _ in epsilons]
    for (name, codes, labels), domain, found in zip(groupings, domains, probes):
        per_eps = [[] for _ in epsilons]
        for j, e in enumerate(epsilons):
            points, rows = found[j]
            h = per_group(rows, codes, len(labels))
            cum = np.cumsum(h, axis=1)[:, : points.size]
            sizes = h.sum(axis=1)
            for a, b in group_pairs(len(labels)):
                na, nb = int(sizes[a]), int(sizes[b])
                num = cum[a] * nb - cum[b] * na
                pair = PairGap(points, num, float(na) * float(nb), a, b)
                out = mcdp_pair_approx(pair, e, options["sampling_frequency"], domain)
                per_eps[j].append((out, name, labels[a], labels[b]))
        for j in range(len(epsilons)):
            results[j].append(per_eps[j])
    return results


def _mcdp_plans(summary, spec, groupings, epsilons, domains):
    """Per grouping, the bins every pair and ε still needs, and their union."""
    n_bins = spec["n_bins"]
    rows_hist = summary["arrays"]["hist"][0]
    plans, needed = [], np.zeros(n_bins + 1, dtype=bool)
    fmin_rows = summary["arrays"]["fmin"][0] if "fmin" in summary["arrays"] else None
    for (name, codes, labels), domain in zip(groupings, domains):
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
                    und, inside, out, ub = _plan_eps(bounds, e, spec, domain[0])
                    per_eps.append((und, inside, out, ub))
                needed |= und
            pair_plans.append((a, b, per_eps))
        plans.append((name, codes, labels, h, fmin, pair_plans))
    return plans, needed


def _mcdp_exact_pairs(plan, points, spec, epsilons, options, fast_pad, domain):
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
            out_ = mcdp_pair_exact(pair, e, options["rounding"], domain)
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
        given=options.get("given"),
    )


def _mcdp_results(y_true, y_score, epsilons, options):
    """The MCDPResult of each ε, the arguments checked as in memory."""
    epsilons = [check_epsilon(e) for e in epsilons]
    if not epsilons:
        raise ValueError(EMPTY_EPSILONS_ERROR)
    domain = check_domain(options["domain"])
    width = 0.0 if domain is None else domain[1] - domain[0]  # None: once known
    for e in epsilons:
        check_mcdp_method(
            options["method"],
            e,
            options["sampling_frequency"],
            options["rounding"],
            width,
        )
    check_agg(options["agg"])
    results = _mcdp_values(y_true, y_score, epsilons, options, domain)
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
