"""ΔDP and ABCC of Dask data.

ΔDP comes from per-group counts and sums (pass 1); it agrees with the
in-memory value to rounding (ΔDP_c) or exactly (ΔDP at a threshold). ABCC:
in bins where the pair's gap keeps one sign the area is linear in per-bin
sums, and only the bins where it may change sign travel (pass 2); the float
result agrees with the in-memory one to rounding (about 1e-12 relative),
since the additions happen in another order. ABCC's grid method is computed
from exact counts and equals the in-memory result.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._base import aggregate, check_agg
from .._distribution import (
    ABCC_METHOD_ERROR,
    GRID_REASON,
    THRESHOLD_ERROR,
    check_n_points,
)
from .._kernels import group_pairs
from ._groups import per_group, summary_groupings
from ._inputs import start
from ._pair_bounds import PairBounds, exact_numerators, pair_points
from ._passes import (
    check_summary,
    gather_points,
    histogram_summary,
    summarise,
    unit_spec,
)


def delta_dp(y_true, y_score, *, threshold, **options):
    """:func:`skfair.metrics.delta_dp` on Dask inputs."""
    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, numbers.Real)
        or not np.isfinite(threshold)
    ):
        raise ValueError(THRESHOLD_ERROR.format(value=threshold))
    check_agg(options["agg"])
    names, aligned, meta = start(y_true, y_score, options)
    want = ["sum"] if threshold is None else ["above"]
    spec = unit_spec(want, threshold=threshold)
    summary = summarise(names, aligned, meta, spec)
    check_summary(summary, None)
    groupings = summary_groupings(
        summary,
        meta,
        combine=options["combine"],
        min_group_size=options["min_group_size"],
    )
    per_grouping = []
    for _, codes, labels in groupings:
        totals = per_group(
            summary["arrays"]["count"][0].astype(np.float64), codes, len(labels)
        )
        sums = per_group(summary["arrays"][want[0]][0], codes, len(labels))
        means = sums / totals
        per_grouping.append(
            [abs(means[a] - means[b]) for a, b in group_pairs(len(labels))]
        )
    return aggregate(per_grouping, options["agg"])


def abcc(y_true, y_score, *, method, n_points, **options):
    """:func:`skfair.metrics.abcc` on Dask inputs."""
    if method not in ("exact", "grid"):
        raise ValueError(ABCC_METHOD_ERROR.format(method=method))
    n_points = check_n_points(n_points, "abcc(method='grid')")
    check_agg(options["agg"])
    names, aligned, meta = start(y_true, y_score, options)
    if method == "grid":
        grid = np.linspace(0, 1, n_points)
        spec = unit_spec([], probes=(grid,))
        summary = summarise(names, aligned, meta, spec)
        check_summary(summary, GRID_REASON)
    else:
        summary, spec = histogram_summary(names, aligned, meta, ["hist", "dsum"], None)
    groupings = summary_groupings(
        summary,
        meta,
        combine=options["combine"],
        min_group_size=options["min_group_size"],
    )
    if method == "grid":
        return _abcc_grid(summary, groupings, grid, options["agg"])
    collected = (names, aligned, meta)
    return _abcc_exact(collected, summary, spec, groupings, options["agg"])


def _abcc_grid(summary, groupings, grid, agg):
    """ABCC's grid method (the paper's integral) from the probes' histograms."""
    n_points = grid.shape[0]
    per_grouping = []
    for _, codes, labels in groupings:
        h = per_group(summary["arrays"]["probe0"][0], codes, len(labels))
        cum = np.cumsum(h, axis=1)[:, :n_points]
        sizes = h.sum(axis=1)
        values = []
        for a, b in group_pairs(len(labels)):
            na, nb = int(sizes[a]), int(sizes[b])
            gap = (cum[a] * nb - cum[b] * na) / (float(na) * float(nb))
            values.append(float(np.trapezoid(np.abs(gap), grid)))
        per_grouping.append(values)
    return aggregate(per_grouping, agg)


def _abcc_exact(collected, summary, spec, groupings, agg):
    """Exact ABCC: linear in the bins where the gap keeps its sign, exact elsewhere.

    In bins where ``N`` keeps one sign the area is linear in the per-bin sums
    ``sum(right_edge - x)`` of each group (pass 1); only the bins where the
    gap may change sign travel (pass 2) and are integrated exactly.
    ``collected`` is ``(names, aligned, meta)`` of the inputs.
    """
    plans, needed = [], np.zeros(spec["n_bins"] + 1, dtype=bool)
    for _name, codes, labels in groupings:
        h = per_group(summary["arrays"]["hist"][0], codes, len(labels))
        d = per_group(summary["arrays"]["dsum"][0], codes, len(labels))
        pairs = []
        for a, b in group_pairs(len(labels)):
            bounds = PairBounds(h[a], h[b])
            cross = bounds.crossing & bounds.nonempty
            needed |= cross
            pairs.append((a, b, cross))
        plans.append((codes, h, d, pairs))
    points = gather_points(*collected, spec, needed, summary["keys"])
    per_grouping = []
    for codes, h, d, pairs in plans:
        group_points = (points[0], codes[points[1]], points[2])
        values = []
        for a, b, cross in pairs:
            bounds = PairBounds(h[a], h[b])  # rebuilt, as in the MCDP engine
            pair = (group_points, a, b)
            values.append(_pair_area(bounds, (d[a], d[b]), cross, pair, spec))
        per_grouping.append(values)
    return aggregate(per_grouping, agg)


def _pair_area(bounds, dsums, cross, pair, spec):
    """ABCC of one pair: the linear bins, then the shipped scores of the others.

    ``dsums`` are the two groups' per-bin sums of ``right_edge - x``, ``pair``
    is ``(group_points, a, b)``: the shipped points and the pair's codes.
    """
    edges = spec["edges"]
    widths = np.r_[np.diff(edges), 0.0]
    na, nb = bounds.na, bounds.nb
    (da, db), (group_points, a, b) = dsums, pair
    E = bounds.E[:-1].astype(np.float64)
    linear = E * widths + nb * da - na * db
    area = float(np.abs(linear[~cross]).sum())
    u, ca, cb, ubins = pair_points(group_points, a, b, spec)
    keep = cross[ubins]
    u, ca, cb, ubins = u[keep], ca[keep], cb[keep], ubins[keep]
    if u.size:
        num = exact_numerators(u, ca, cb, ubins, bounds.Ca, bounds.Cb, na, nb)
        last = np.r_[ubins[1:] != ubins[:-1], True]
        nxt = np.r_[u[1:], 0.0]
        nxt[last] = edges[np.minimum(ubins[last] + 1, edges.size - 1)]
        area += float(np.dot(np.abs(num).astype(np.float64), nxt - u))
        first = np.r_[True, ubins[1:] != ubins[:-1]]
        fb = ubins[first]
        area += float(
            np.dot(np.abs(bounds.E[fb]).astype(np.float64), u[first] - edges[fb])
        )
    return area / (float(na) * float(nb))
