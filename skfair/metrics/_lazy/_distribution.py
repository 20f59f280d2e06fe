"""ΔDP and ABCC of a frame, from aggregations in its engine.

ΔDP: per distinct sensitive row, the counts and (weighted) sums of the
scores or of the decisions ``y_score >= threshold``; ΔDP at a threshold
without weights is a ratio of exact counts and equals the in-memory value
bit for bit, ΔDP_c (a ratio of sums added in another order) to rounding.
ABCC: the Dask engine's two passes, the area linear in per-bin sums where a
pair's CDF gap keeps its sign and integrated exactly on the shipped scores
where it may change sign (``_pair_area``); weighted, the same on the
weighted CDFs. Agreement with the in-memory value: to rounding (the sums
run in another order).
"""

from __future__ import annotations

import numbers

import narwhals.stable.v2 as nw
import numpy as np

from .._base import aggregate, check_agg
from .._dask._distribution import _pair_area
from .._dask._groups import per_group
from .._dask._pair_bounds import PairBounds
from .._distribution import ABCC_METHOD_ERROR, THRESHOLD_ERROR, check_n_points
from .._kernels import group_pairs
from ._frame import LazyColumns
from ._groups import group_weights, groupings_of
from ._mcdp import WeightedPairBounds, weighted_pair_points
from ._passes import candidate_points, grid_for, histogram, per_row

LAZY_ABCC_GRID_ERROR = (
    "abcc(method='grid') is not computed in the engine; use method='exact' "
    "(the exact area, which the grid method approximates)."
)


def delta_dp(
    data,
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold=None,
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    given=None,
    pos_label=1,
):
    """:func:`skfair.metrics.delta_dp` on the columns of a frame.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import delta_dp
    >>> lf = pl.LazyFrame({"s": [.1, .2, .3, .4, .5, .12, .33, .35, .6, .9],
    ...                    "g": [0] * 5 + [1] * 5})
    >>> delta_dp(lf, None, "s", sensitive_features="g", threshold=0.5,
    ...          min_group_size=1)
    0.2
    """
    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, numbers.Real)
        or not np.isfinite(threshold)
    ):
        raise ValueError(THRESHOLD_ERROR.format(value=threshold))
    check_agg(agg)
    columns = LazyColumns(
        data,
        y_score,
        sensitive_features,
        sample_weight,
        ignored={"y_true": y_true},
        given=(given, pos_label, y_true),
    )
    columns.checked()
    value = nw.col(y_score)
    if threshold is not None:
        value = (value >= threshold).cast(nw.Float64)
    aggs = {"sum": value}
    if sample_weight is not None:
        aggs = {"sum": value * nw.col(sample_weight)}
        aggs["weight"] = nw.col(sample_weight)
    table, sums = per_row(columns, aggs)
    summary = _row_summary(table, sums, sample_weight is not None)
    groupings = groupings_of(summary, combine=combine, min_group_size=min_group_size)
    per_grouping = []
    for name, codes, labels in groupings:
        if sample_weight is None:
            totals = per_group(sums["__count"], codes, len(labels))
        else:
            totals = group_weights(summary, codes, labels, name)
        means = per_group(sums["sum"], codes, len(labels)) / totals
        per_grouping.append(
            [abs(means[a] - means[b]) for a, b in group_pairs(len(labels))]
        )
    return aggregate(per_grouping, agg)


def _row_summary(table, sums, weighted):
    """The summary the group resolver reads, from :func:`per_row`'s output."""
    arrays = {"count": (sums["__count"].astype(np.int64), "add")}
    if weighted:
        arrays["whist"] = (sums["weight"][:, None], "add")
    return {"table": table, "arrays": arrays}


def abcc(
    data,
    y_true,
    y_score,
    *,
    sensitive_features,
    method="exact",
    n_points=10000,
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    given=None,
    pos_label=1,
):
    """:func:`skfair.metrics.abcc` (``method="exact"``) on the columns of a frame.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import abcc
    >>> lf = pl.LazyFrame({"s": [.2, .4, .6, .3, .5, .7], "g": [0, 0, 0, 1, 1, 1]})
    >>> round(abcc(lf, None, "s", sensitive_features="g", min_group_size=1), 12)
    0.1
    """
    if method not in ("exact", "grid"):
        raise ValueError(ABCC_METHOD_ERROR.format(method=method))
    check_n_points(n_points, "abcc(method='grid')")
    if method == "grid":
        raise NotImplementedError(LAZY_ABCC_GRID_ERROR)
    check_agg(agg)
    columns = LazyColumns(
        data,
        y_score,
        sensitive_features,
        sample_weight,
        ignored={"y_true": y_true},
        given=(given, pos_label, y_true),
    )
    checked = columns.checked()
    weighted = sample_weight is not None
    want = ["hist", "whist", "wdsum"] if weighted else ["hist", "dsum"]
    spec = grid_for(checked.low, checked.high, want)
    summary = histogram(columns, spec)
    groupings = groupings_of(summary, combine=combine, min_group_size=min_group_size)
    plans, needed = _abcc_plans(summary, groupings, spec, weighted)
    points = candidate_points(columns, spec, needed, summary)
    per_grouping = []
    for (_, codes, _), (h, w, d, pairs) in zip(groupings, plans):
        group_points = (points[0], codes[points[1]], points[2], points[3])
        values = []
        for a, b, cross in pairs:
            if weighted:
                bounds = WeightedPairBounds(w[a], w[b], (h[a] + h[b]) > 0)
                pair = (group_points, a, b)
                area = _weighted_area(bounds, (d[a], d[b]), cross, pair, spec)
            else:
                bounds = PairBounds(h[a], h[b])
                pair = (group_points[:3], a, b)
                area = _pair_area(bounds, (d[a], d[b]), cross, pair, spec)
            values.append(area)
        per_grouping.append(values)
    return aggregate(per_grouping, agg)


def _abcc_plans(summary, groupings, spec, weighted):
    """Per grouping ``(h, w, d, pairs)``, and the bins where a gap may change sign."""
    arrays = summary["arrays"]
    needed = np.zeros(spec["n_bins"] + 1, dtype=bool)
    plans = []
    for name, codes, labels in groupings:
        n = len(labels)
        h = per_group(arrays["hist"][0], codes, n)
        w = d = None
        if weighted:
            group_weights(summary, codes, labels, name)
            w = per_group(arrays["whist"][0], codes, n)
            d = per_group(arrays["wdsum"][0], codes, n)
        else:
            d = per_group(arrays["dsum"][0], codes, n)
        pairs = []
        for a, b in group_pairs(n):
            nonempty = (h[a] + h[b]) > 0
            if weighted:
                cross = WeightedPairBounds(w[a], w[b], nonempty).crossing & nonempty
            else:
                cross = PairBounds(h[a], h[b]).crossing & nonempty
            needed |= cross
            pairs.append((a, b, cross))
        plans.append((h, w, d, pairs))
    return plans, needed


def _weighted_area(bounds, dsums, cross, pair, spec):
    """Weighted ABCC of one pair: linear bins, then the shipped scores of the rest."""
    edges = spec["edges"]
    widths = np.r_[np.diff(edges), 0.0]
    (da, db), (group_points, a, b) = dsums, pair
    E = bounds.E[:-1]
    linear = E * widths + da / bounds.Wa - db / bounds.Wb
    area = float(np.abs(linear[~cross]).sum())
    u, wa, wb, ubins = weighted_pair_points(group_points, a, b, spec)
    keep = cross[ubins]
    u, wa, wb, ubins = u[keep], wa[keep], wb[keep], ubins[keep]
    if u.size:
        gaps = bounds.gaps_at(u, wa, wb, ubins)
        last = np.r_[ubins[1:] != ubins[:-1], True]
        nxt = np.r_[u[1:], 0.0]
        nxt[last] = edges[np.minimum(ubins[last] + 1, edges.size - 1)]
        area += float(np.dot(np.abs(gaps), nxt - u))
        first = np.r_[True, ubins[1:] != ubins[:-1]]
        fb = ubins[first]
        area += float(np.dot(np.abs(bounds.E[fb]), u[first] - edges[fb]))
    return area
