"""Group sizes, confusion counts, rates and moments of a frame, by aggregation.

One group-by in the engine per call: by the sensitive columns (and, for
the rates, the two label columns), with the number of rows and the sums of
the weights and squared weights (and, for :func:`group_summaries`, of the
scores' first and second moments). The client resolves the groups on the
distinct rows as in memory, then builds exactly the in-memory objects:
:class:`~skfair.metrics._group_counts.ConfusionCounts` (the rates of
:class:`~skfair.metrics.GroupMetricFrame` and of
``demographic_parity_difference`` and its relatives), and the
``GroupSummary`` from which the Welch and Newcombe intervals of ΔDP are
computed; :func:`group_sizes` feeds the DKW bands. Without weights the
counts are exact integers and every rate is bit-equal to the in-memory one;
weighted sums agree to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import narwhals.stable.v2 as nw
import numpy as np
import pandas as pd

from ...utils._group_encoding import MAX_NUMERIC_GROUPS, check_continuous
from ...utils._groups import user_stacklevel
from ...utils._validation import check_hard_labels
from .._dask._groups import per_group
from .._dask._inputs import LABEL_COLUMNS
from .._group_counts import (
    RATE_METRICS,
    ConfusionCounts,
    SummedWeights,
    warn_undefined,
    weight_scale,
)
from ..inference._intervals import GroupSummary
from ._frame import LazyColumns
from ._groups import groupings_of
from ._passes import per_row


@dataclass(frozen=True)
class GroupConfusion:
    """The per-group confusion counts of a frame, and everyone's.

    Attributes
    ----------
    name : str
        The grouping's name (the sensitive columns joined by " & ").
    labels : tuple
        The groups' labels, in code order (those ``min_group_size`` keeps).
    counts : ConfusionCounts
        Per group, cells ``TN, FP, FN, TP``.
    total : ConfusionCounts
        The counts of every sample (one row), groups left out included.
    """

    name: str
    labels: tuple
    counts: ConfusionCounts
    total: ConfusionCounts


def _weight_sums(weight):
    if weight is None:
        return {}
    w = nw.col(weight)
    return {"w": w, "w2": w * w}


def group_confusion(
    data,
    y_true,
    y_pred,
    *,
    sensitive_features,
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    """Per-group confusion counts of hard labels (a :class:`GroupConfusion`).

    ``y_true``, ``y_pred``, ``sensitive_features`` (a name or a list, whose
    intersection is the grouping) and ``sample_weight`` are column names of
    ``data``. Weighted cells are divided by the power of two at most the
    largest weight, as in memory (exact: integer weights give exact cells).

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import group_confusion
    >>> lf = pl.LazyFrame({"y": [0, 1, 1, 0], "p": [0, 1, 0, 1], "g": [0, 0, 1, 1]})
    >>> group_confusion(lf, "y", "p", sensitive_features="g",
    ...                 min_group_size=1).counts.rows.tolist()
    [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]
    """
    columns = LazyColumns(
        data,
        None,
        sensitive_features,
        sample_weight,
        labels={"y_true": y_true, "y_pred": y_pred},
    )
    checked = columns.checked()
    table, sums = per_row(columns, _weight_sums(sample_weight))
    truth, pred = check_hard_labels(
        table[y_true].to_numpy(), table[y_pred].to_numpy(), pos_label=pos_label
    )
    cell = 2 * truth.astype(np.intp) + pred.astype(np.intp)
    table = table.rename(columns={y_true: LABEL_COLUMNS[0], y_pred: LABEL_COLUMNS[1]})
    summary = {"table": table, "arrays": {"count": (sums["__count"], "add")}}
    ((name, codes, labels),) = groupings_of(
        summary, combine="intersection", min_group_size=min_group_size
    )
    everyone = np.zeros(codes.shape[0], dtype=np.intp)
    # weighted cells are divided by the in-memory power of two
    scale = None if checked.weight_max is None else weight_scale(checked.weight_max)
    return GroupConfusion(
        name,
        labels,
        _cells(sums, cell, codes, len(labels), scale),
        _cells(sums, cell, everyone, 1, scale),
    )


def _cells(sums, cell, codes, n_groups, scale):
    """:class:`ConfusionCounts` of the distinct rows' sums, grouped by ``codes``."""

    def table(values):
        out = np.zeros((n_groups, 4))
        kept = codes >= 0
        np.add.at(out, (codes[kept], cell[kept]), values[kept])
        return out

    rows = table(sums["__count"])
    if scale is None:
        return ConfusionCounts(rows, None, rows)
    return ConfusionCounts(
        table(sums["w"] / scale), table(sums["w2"] / (scale * scale)), rows
    )


def group_rates(
    names,
    data,
    y_true,
    y_pred,
    *,
    sensitive_features,
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    """Group values ``(n_groups, len(names))``, overall values and group labels.

    The in-memory ``group_rates`` of ``skfair.metrics`` (the rates of
    :data:`~skfair.metrics._group_counts.RATE_METRICS` by name) on the
    columns of a frame, warning as it does about undefined rates;
    ``compare(values, overall, how=..., method=...)`` then gives fairlearn's
    differences and ratios.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import group_rates
    >>> lf = pl.LazyFrame({"y": [0, 1, 1, 0], "p": [0, 1, 1, 1], "g": [0, 0, 1, 1]})
    >>> values, overall, labels = group_rates(
    ...     ["selection_rate"], lf, "y", "p", sensitive_features="g",
    ...     min_group_size=1)
    >>> values.tolist(), overall.tolist(), labels
    ([[0.5], [1.0]], [0.75], (0, 1))
    """
    confusion = group_confusion(
        data,
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    metrics = [RATE_METRICS[name] for name in names]
    for metric in metrics:
        warn_undefined(
            metric,
            confusion.counts.weighted,
            confusion.labels,
            stacklevel=user_stacklevel(),
        )
    weighted = confusion.counts.weighted
    values = np.column_stack([m.value(weighted) for m in metrics])
    total = confusion.total.weighted[0]
    return values, np.array([m.value(total) for m in metrics]), confusion.labels


def group_sizes(
    data,
    *,
    sensitive_features,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
):
    """Per grouping, its groups' sizes: the aggregates of the DKW bands.

    Returns a list of ``(name, labels, n, weight, weight2)``: the number of
    samples of each group (the DKW half-width's ``n``), and with weights
    their sums and sums of squares (Kish's ``n_eff = weight**2 /
    weight2``); None without weights.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import group_sizes
    >>> lf = pl.LazyFrame({"g": ["a", "b", "b"]})
    >>> [(name, labels, n.tolist()) for name, labels, n, _, _ in
    ...  group_sizes(lf, sensitive_features="g", min_group_size=1)]
    [('g', ('a', 'b'), [1.0, 2.0])]
    """
    columns = LazyColumns(data, None, sensitive_features, sample_weight)
    columns.checked()
    table, sums = per_row(columns, _weight_sums(sample_weight))
    summary = {"table": table, "arrays": {"count": (sums["__count"], "add")}}
    out = []
    for name, codes, labels in groupings_of(
        summary, combine=combine, min_group_size=min_group_size
    ):
        k = len(labels)
        n = per_group(sums["__count"], codes, k)
        if sample_weight is None:
            out.append((name, labels, n, None, None))
        else:
            out.append(
                (
                    name,
                    labels,
                    n,
                    per_group(sums["w"], codes, k),
                    per_group(sums["w2"], codes, k),
                )
            )
    return out


def group_summaries(
    data,
    y_score,
    *,
    sensitive_features,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
    threshold=None,
):
    """Per grouping, the ``GroupSummary`` of the Welch and Newcombe intervals.

    The groups' sizes, Kish's effective sizes, weighted means, the variance
    of the weighted means and (with ``threshold``) the weighted rates of
    ``y_score >= threshold``, from first and second moments summed in the
    engine about the smallest score (the in-memory
    ``summarise_groups`` sums squared residuals instead: equal to rounding).
    Returns a list of ``(name, labels, GroupSummary)``.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy import group_summaries
    >>> lf = pl.LazyFrame({"s": [.1, .3, .5, .9], "g": [0, 0, 1, 1]})
    >>> (_, labels, summary), = group_summaries(lf, "s", sensitive_features="g",
    ...                                         min_group_size=1)
    >>> summary.mean.round(6).tolist(), summary.n.tolist()
    ([0.2, 0.7], [2.0, 2.0])
    """
    columns = LazyColumns(data, y_score, sensitive_features, sample_weight)
    checked = columns.checked()
    shift = checked.low
    x = nw.col(y_score) - shift
    # a column of ones without weights
    w = nw.col(y_score) * 0.0 + 1.0 if sample_weight is None else nw.col(sample_weight)
    aggs = {
        "w": w,
        "w2": w * w,
        "wx": w * x,
        "w2x": w * w * x,
        "w2x2": w * w * x * x,
    }
    if threshold is not None:
        above = (nw.col(y_score) >= threshold).cast(nw.Float64)
        aggs["wa"] = w * above
        aggs["a"] = above
    table, sums = per_row(columns, aggs)
    summary = {"table": table, "arrays": {"count": (sums["__count"], "add")}}
    out = []
    for name, codes, labels in groupings_of(
        summary, combine=combine, min_group_size=min_group_size
    ):
        g = {key: per_group(value, codes, len(labels)) for key, value in sums.items()}
        out.append((name, labels, _summary(g, shift, threshold)))
    return out


def _summary(g, shift, threshold):
    n, total = g["__count"], g["w"]
    m = g["wx"] / total  # the mean about the shift
    resid2 = g["w2x2"] - 2.0 * m * g["w2x"] + m * m * g["w2"]
    with np.errstate(divide="ignore", invalid="ignore"):
        se2 = np.maximum(resid2, 0.0) / total**2 * n / (n - 1.0)
    se2 = np.where(n > 1, se2, np.nan)
    n_eff = total**2 / g["w2"]
    if threshold is None:
        return GroupSummary(n, n_eff, m + shift, se2)
    return GroupSummary(n, n_eff, m + shift, se2, g["wa"] / total, g["a"])


def distinct_rows(data, y_true, y_pred, *, grouping, sample_weights=()):
    """The distinct rows of (``grouping`` columns, ``y_true``, ``y_pred``), with sums.

    What :class:`~skfair.metrics.GroupMetricFrame` needs of a lazy frame for
    the metrics of the confusion counts: one group-by in the engine, after
    the checking pass (missing columns, nulls and NaN, negative weights),
    once per weight column. Returns ``(table, count, summed)``: the distinct
    rows (a pandas DataFrame, grouping columns as the in-memory resolver
    would read them, see :func:`_as_groups`), the number of samples of each,
    and per weight column its :class:`SummedWeights` on those rows.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._lazy._counts import distinct_rows
    >>> lf = pl.LazyFrame({"y": [0, 1, 1, 1], "p": [1, 1, 1, 1], "g": [0, 0, 0, 1],
    ...                    "w": [1.0, 2.0, 3.0, 4.0]})
    >>> table, count, summed = distinct_rows(lf, "y", "p", grouping=["g"],
    ...                                      sample_weights=["w"])
    >>> table.values.tolist(), count.tolist(), summed["w"].sums.tolist()
    ([[0, 0, 1], [0, 1, 1], [1, 1, 1]], [1.0, 2.0, 1.0], [1.0, 5.0, 4.0])
    """
    weights = list(dict.fromkeys(sample_weights))
    labels = {"y_true": y_true, "y_pred": y_pred}
    largest = []
    for weight in weights or [None]:
        columns = LazyColumns(data, None, grouping, weight, labels=labels)
        largest.append(columns.checked().weight_max)
    sums = {}
    for j, weight in enumerate(weights):
        sums[f"w{j}"], sums[f"q{j}"] = nw.col(weight), nw.col(weight) ** 2
    table, values = per_row(columns, sums)
    order = table.sort_values(list(table.columns), kind="stable").index.to_numpy()
    table = table.iloc[order].reset_index(drop=True)
    values = {key: value[order] for key, value in values.items()}
    count = values["__count"]
    summed = {
        weight: SummedWeights(values[f"w{j}"], values[f"q{j}"], largest[j])
        for j, weight in enumerate(weights)
    }
    return _as_groups(table, grouping, count), count, summed


def _as_groups(table, grouping, count):
    """The grouping columns made categorical where the resolver would count rows.

    The in-memory resolver refuses a column that looks continuous by its
    numbers of samples (a non-numeric column: their mean per group; more than
    50 numeric values: each group's); on distinct rows it would count rows,
    so the rule is applied here on the samples, and such columns go on as
    categoricals (sorted: the in-memory labels' order), taken as they are.
    """
    table = table.copy()
    n_samples = int(count.sum())
    for name in dict.fromkeys(grouping):
        values = table[name]
        kind = values.dtype.kind
        if isinstance(values.dtype, pd.CategoricalDtype) or kind == "b":
            continue
        numeric = kind in "iuf"
        codes, labels = pd.factorize(values, sort=True)
        if numeric and len(labels) <= MAX_NUMERIC_GROUPS:
            continue
        sizes = np.bincount(codes, weights=count).astype(np.int64)
        check_continuous(
            name,
            kind if numeric else "O",
            len(labels),
            n_samples,
            sizes=sizes if numeric else None,
            labels=list(labels) if numeric else None,
        )
        table[name] = values.astype("category")
    return table
