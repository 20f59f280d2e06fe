"""Every group's per-class rates of multiclass predictions, with Wilson intervals.

:func:`multiclass_rate_table` is the disaggregated view behind the
multiclass rate gaps (``_multiclass_rates.py``): for each group and class,
the selection rate, true and false positive rates (one-vs-rest), each with
Wilson's score interval, and the selection rate's ratio to a reference
group. One pass over the data (``_multiclass_counts.class_counts``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ..utils import resolve_privileged, sensitive_groupings
from ._group_counts import RATE_METRICS
from ._multiclass_counts import (
    check_class_labels,
    class_counts,
    group_index,
    warn_undefined_rates,
)
from .inference import check_confidence_level, wilson_interval

REFERENCE_ERROR = (
    "reference={reference!r} is not a group of {name!r}; its groups are "
    "{labels}. Pass one of them (a tuple of labels when several attributes "
    "are intersected), or None for the largest group."
)
#: The rates of the table, in column order.
TABLE_RATES = ("selection_rate", "true_positive_rate", "false_positive_rate")


def multiclass_rate_table(
    y_true,
    y_pred,
    *,
    sensitive_features,
    labels=None,
    sample_weight=None,
    min_group_size=None,
    reference=None,
    confidence_level=0.95,
):
    """Each group's selection, true and false positive rates of every class.

    One row per group (of the intersection of the attributes), and for
    every class ``k``: how many of the group's samples are predicted ``k``
    and truly ``k``, the selection rate ``P(y_pred = k | group)``, the
    one-vs-rest true positive rate ``P(y_pred = k | y_true = k, group)``
    and false positive rate ``P(y_pred = k | y_true != k, group)``, each
    with Wilson's score interval, and the selection rate's ratio to the
    reference group's.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; several attributes are intersected.
    labels : array-like or None, default=None
        The classes, in order (see
        :func:`multiclass_selection_rate_difference`).
    sample_weight : array-like of shape (n_samples,), default=None
        Rates become weighted proportions and each interval counts Kish's
        effective number of trials ``(sum w)^2 / sum w^2``; the counts
        (``size``, ``n_predicted``, ``n_true``) stay numbers of samples.
    min_group_size : int or None, default=None
        None keeps every group and warns about groups under 30 samples; an
        int ``k`` leaves out the groups of fewer than ``k`` samples.
    reference : object or None, default=None
        The group whose selection rates the ratios divide by: a group label
        (a tuple of labels for several attributes), or None for the largest
        group (by number of samples; ties: the first in label order).
    confidence_level : float, default=0.95
        Level of every interval; each holds for its own rate (pointwise,
        no correction across groups or classes).

    Returns
    -------
    table : pandas.DataFrame
        Index: the groups (one level per attribute). Columns: a
        ``(quantity, class)`` MultiIndex. ``("size", "")`` and
        ``("is_reference", "")`` describe the group; for each class,
        ``n_predicted``, ``n_true``, ``selection_rate`` (with
        ``selection_rate_low`` and ``selection_rate_high``),
        ``selection_rate_ratio`` (to the reference group; NaN when its rate
        is 0), ``true_positive_rate`` and ``false_positive_rate`` (each
        with ``_low`` and ``_high``). ``table["selection_rate"]`` is the
        group-by-class matrix of selection rates.

    Warns
    -----
    UndefinedMetricWarning
        For a group with no sample of class ``k`` (its TPR of ``k`` is NaN,
        as are the bounds), or with every sample of class ``k`` (its FPR).

    Notes
    -----
    Wilson's score interval stays within [0, 1] and keeps near its nominal
    coverage in small groups and at rates near 0 or 1, where the normal
    (Wald) interval collapses, though it dips below it at rates within
    about ``1 / n`` of 0 or 1; it is the interval of the binary rates of
    :class:`GroupMetricFrame` and of the audit.

    Examples
    --------
    >>> y_true = ["Low", "Low", "High", "Medium", "High", "Low", "Medium", "High"]
    >>> y_pred = ["Low", "Medium", "High", "Medium", "High", "High", "Low", "High"]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> table = multiclass_rate_table(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1)
    >>> table["selection_rate"]
    class               High   Low  Medium
    sensitive_features
    a                   0.25  0.25    0.50
    b                   0.75  0.25    0.00
    >>> table["selection_rate_low"].round(3)
    class                High    Low  Medium
    sensitive_features
    a                   0.046  0.046   0.150
    b                   0.301  0.046   0.000
    >>> table["selection_rate_ratio"]
    class               High  Low  Medium
    sensitive_features
    a                    1.0  1.0     1.0
    b                    3.0  1.0     0.0
    """
    check_confidence_level(confidence_level)
    classes = check_class_labels(
        y_true,
        y_pred,
        labels=labels,
        sample_weight=sample_weight,
        sensitive_features=sensitive_features,
    )
    (grouping,) = sensitive_groupings(
        sensitive_features,
        n_samples=classes.n_samples,
        against="y_true",
        min_group_size=min_group_size,
    )
    ref = _reference(reference, grouping)
    counts = class_counts(classes, grouping)
    z = stats.norm.isf((1.0 - confidence_level) / 2.0)
    columns = {
        ("size", ""): counts.rows[:, 0].sum(axis=-1).astype(np.int64),
        ("is_reference", ""): np.arange(grouping.n_groups) == ref,
    }
    rows = counts.rows.astype(np.int64)  # (n_groups, n_classes, 4): TN FP FN TP
    columns.update(_class_columns("n_predicted", rows[..., 1] + rows[..., 3], classes))
    columns.update(_class_columns("n_true", rows[..., 2] + rows[..., 3], classes))
    for name in TABLE_RATES:
        metric = RATE_METRICS[name]
        warn_undefined_rates(
            metric, counts.weighted, grouping, classes.classes, stacklevel=2
        )
        values = metric.value(counts.weighted)
        trials = counts.trials(metric)
        with np.errstate(divide="ignore", invalid="ignore"):
            low, high = wilson_interval(values, trials, z)
        columns.update(_class_columns(name, values, classes))
        for suffix, bound in (("low", low), ("high", high)):
            bound = np.where(trials > 0, bound, np.nan)
            columns.update(_class_columns(f"{name}_{suffix}", bound, classes))
        if name == "selection_rate":
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(values[ref] > 0, values / values[ref], np.nan)
            columns.update(_class_columns("selection_rate_ratio", ratio, classes))
    table = pd.DataFrame(columns, index=group_index(grouping))
    table.columns = table.columns.set_names(["quantity", "class"])
    return table


def _class_columns(quantity, values, classes):
    """``{(quantity, class): column}`` of a ``(n_groups, n_classes)`` array."""
    return {(quantity, cls): values[:, k] for k, cls in enumerate(classes.classes)}


def _reference(reference, grouping):
    """The code of the reference group: ``reference``, or the largest group."""
    try:
        return resolve_privileged(reference, grouping)
    except ValueError:
        raise ValueError(
            REFERENCE_ERROR.format(
                reference=reference,
                name=grouping.name,
                labels=list(grouping.labels),
            )
        ) from None
