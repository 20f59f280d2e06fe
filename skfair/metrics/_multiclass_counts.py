"""Per-group, per-class one-vs-rest confusion counts of multiclass hard labels.

Class ``k``'s one-vs-rest problem is the binary problem of the indicators
``y_true == k`` and ``y_pred == k``. Its confusion counts in every group
follow from three ``np.bincount`` over the code ``group * (K + 1) + class``
(of the true classes, of the predicted classes, and of the true classes of
the correct predictions), whatever the number of classes ``K``:
``TP`` = correct, ``FP`` = predicted - ``TP``, ``FN`` = true - ``TP`` and
``TN`` = size - ``TP`` - ``FP`` - ``FN``. They fill the binary
:class:`~skfair.metrics._group_counts.ConfusionCounts` with arrays of shape
``(n_groups, n_classes, 4)``, so every rate of ``RATE_METRICS``, its
undefined-rate warning and its Wilson trials apply to each class unchanged.

Labels outside the class list (``labels=`` leaves them out) take the code
``K``: they are "not ``k``" for every class ``k``, as one-vs-rest reads them.

Here too is what the multiclass rate metrics do with those rates: each
class's gap between groups (:func:`pair_gaps`: worst pair, or the mean over
pairs in one sort), the worst grouping and pair per class
(:func:`worst_pairs`) and the aggregate over classes (:func:`reduce_classes`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning

from ..utils._validation import LABEL_NAN_ERROR, check_sample_weight_1d, column_1d
from ._base import checked_label_pair
from ._group_counts import ConfusionCounts, compare, warn_undefined

LABELS_ERROR = (
    "labels must be a non-empty 1-D list of distinct class labels; got {labels!r}."
)
LABELS_ABSENT_ERROR = (
    "None of labels={labels!r} occurs in y_true or y_pred, whose labels are "
    "{observed}; pass classes of the data (of the same type: 1 and '1' differ)."
)
NOT_HARD_LABELS_ERROR = (
    "{name} holds non-integer numbers (e.g. {example!r}); multiclass rate "
    "metrics need class labels (estimator.predict), not scores or "
    "probabilities. For (n_samples, n_classes) probabilities, use the "
    "distribution metrics with class_agg."
)
UNDEFINED_CLASS_WARNING = (
    "The {metric} difference is undefined for {n_classes} class(es) ({classes}): "
    "fewer than two groups have a defined rate. They take no part in "
    "class_agg={class_agg!r}."
)
# What a group lacks when a one-vs-rest rate of class {cls} is undefined.
_CONDITIONS = {
    "true_positive_rate": "true label {cls!r}",
    "false_positive_rate": "a true label other than {cls!r}",
}


@dataclass(frozen=True)
class ClassLabels:
    """Validated multiclass labels, encoded against one class list.

    Attributes
    ----------
    truth, pred : ndarray of shape (n_samples,), dtype intp
        Class code of every sample's true and predicted label; ``n_classes``
        for a label outside ``classes``.
    classes : tuple
        The classes, in code order.
    weights : ndarray or None
        The sample weights (None without).
    """

    truth: np.ndarray
    pred: np.ndarray
    classes: tuple
    weights: np.ndarray | None

    @property
    def n_samples(self):
        """Number of samples."""
        return self.truth.shape[0]

    @property
    def n_classes(self):
        """Number of classes."""
        return len(self.classes)


def check_class_labels(y_true, y_pred, *, labels, sample_weight, sensitive_features):
    """Validate the labels and weights of a multiclass rate metric.

    The classes are ``labels`` in their order, or the sorted union of the
    labels of ``y_true`` and ``y_pred``.
    """
    truth, pred = checked_label_pair(
        y_true,
        y_pred,
        _label_column,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    factorized = [pd.factorize(array) for array in (truth, pred)]  # one hash pass
    if labels is None:
        classes = _sorted_classes([uniques for _, uniques in factorized])
    else:
        classes = _labels(labels)
    index = pd.Index(classes)
    weights = check_sample_weight_1d(sample_weight, truth.shape[0], against="y_true")
    truth, pred = (_codes(index, codes, uniques) for codes, uniques in factorized)
    if (
        labels is not None
        and (truth == len(index)).all()
        and (pred == len(index)).all()
    ):
        observed = _sorted_classes([uniques for _, uniques in factorized])
        raise ValueError(
            LABELS_ABSENT_ERROR.format(labels=labels, observed=observed[:10])
        )
    return ClassLabels(truth, pred, tuple(classes), weights)


def _label_column(values, name):
    """``values`` as a 1-D array of class labels: none missing, no fractions."""
    array = column_1d(values, name=name)
    if pd.isna(array).any():
        raise ValueError(LABEL_NAN_ERROR.format(name=name))
    if array.dtype.kind == "f":
        fractional = array != np.round(array)
        if fractional.any():
            example = array[np.argmax(fractional)].item()
            raise ValueError(NOT_HARD_LABELS_ERROR.format(name=name, example=example))
    return array


def _sorted_classes(uniques):
    """The sorted union of the arrays ``uniques`` (by repr if unorderable)."""
    classes = pd.unique(np.concatenate([_object_array(u) for u in uniques])).tolist()
    try:
        return sorted(classes)
    except TypeError:  # unorderable mixed labels
        return sorted(classes, key=repr)


def _labels(labels):
    """``labels`` as a list of distinct hashable classes, or :data:`LABELS_ERROR`."""
    if isinstance(labels, (str, bytes)) or not np.iterable(labels):
        raise ValueError(LABELS_ERROR.format(labels=labels))
    classes = _object_array(labels)
    try:
        distinct = len(pd.unique(classes))
    except TypeError:  # unhashable
        distinct = -1
    if not classes.size or distinct != classes.size or pd.isna(classes).any():
        raise ValueError(LABELS_ERROR.format(labels=labels))
    return classes.tolist()


def _object_array(values):
    """A 1-D object array of ``values`` (tuples stay elements)."""
    values = values.tolist() if hasattr(values, "tolist") else list(values)
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _codes(index, codes, uniques):
    """Class codes of factorised labels: position in ``index``, else ``len(index)``."""
    table = index.get_indexer(uniques)
    table = np.where(table < 0, len(index), table).astype(np.intp)
    return table[codes]


def class_counts(classes, grouping):
    """One-vs-rest :class:`ConfusionCounts` of every group and class.

    Arrays of shape ``(n_groups, n_classes, 4)``; samples of groups left
    out by ``min_group_size`` (code -1) take no part.
    """
    codes, truth, pred = grouping.codes, classes.truth, classes.pred
    weights = classes.weights
    if grouping.n_left_out:
        kept = grouping.kept
        codes, truth, pred = codes[kept], truth[kept], pred[kept]
        weights = None if weights is None else weights[kept]
    width = classes.n_classes + 1
    keys = (codes * width + truth, codes * width + pred)
    correct = truth == pred
    shape = (grouping.n_groups, width)
    rows = _cells(keys, correct, None, shape)
    if weights is None:
        return ConfusionCounts(rows, None, rows)
    weights = weights / weights.max()  # rates are scale-free; sums must not overflow
    weighted = _cells(keys, correct, weights, shape)
    squared = _cells(keys, correct, weights * weights, shape)
    return ConfusionCounts(weighted, squared, rows)


def _cells(keys, correct, weights, shape):
    """TN, FP, FN, TP of each group and class (``(n_groups, n_classes, 4)``)."""
    size = shape[0] * shape[1]
    key_true, key_pred = keys
    true = np.bincount(key_true, weights=weights, minlength=size).reshape(shape)
    predicted = np.bincount(key_pred, weights=weights, minlength=size).reshape(shape)
    hit_weights = None if weights is None else weights[correct]
    tp = np.bincount(key_true[correct], weights=hit_weights, minlength=size)
    tp = tp.reshape(shape)
    group = true.sum(axis=1, keepdims=True)  # the "other" column included
    true, predicted, tp = true[:, :-1], predicted[:, :-1], tp[:, :-1]
    fp, fn = predicted - tp, true - tp
    tn = np.maximum(group - tp - fp - fn, 0.0)  # rounding of weighted sums
    return np.stack([tn, fp, fn, tp], axis=-1).astype(np.float64)


def warn_undefined_rates(metric, counts, grouping, classes, *, stacklevel):
    """One UndefinedMetricWarning per class whose ``metric`` is undefined in a group.

    A rate whose denominator does not depend on the class (the selection
    rate: a group of total weight 0) is undefined in the same groups for
    every class: one warning, naming no class. ``stacklevel`` counts frames
    from the caller, as :func:`warnings.warn`.
    """
    condition = _CONDITIONS.get(metric.name)
    if condition is None:
        warn_undefined(metric, counts[:, 0], grouping.labels, stacklevel=stacklevel + 1)
        return
    for k, cls in enumerate(classes):
        warn_undefined(
            replace(metric, condition=condition.format(cls=cls)),
            counts[:, k],
            grouping.labels,
            name=f"{metric.name} of class {cls!r}",
            stacklevel=stacklevel + 1,
        )


def pair_gaps(values, agg):
    """Each class's gap between groups, and its lowest and highest group.

    ``values`` has shape ``(n_groups, n_classes)`` (NaN: undefined). The
    gap is the largest pairwise ``|r_a - r_b|`` (``agg="max"``, that is
    ``max - min``, fairlearn's ``between_groups`` difference) or its mean
    over the pairs of groups with a defined rate (``"mean"``); NaN with
    fewer than two such groups. Returns ``(gaps, lowest, highest)``, the
    last two group codes (-1 where the gap is NaN).
    """
    n_classes = values.shape[1]
    if agg == "max":
        gaps = compare(values, None, how="difference", method="between_groups")
    else:
        gaps = _mean_pair_gap(values)
    defined = ~np.isnan(gaps)
    filled = np.where(np.isnan(values), np.inf, values)
    lowest = np.where(defined, np.argmin(filled, axis=0), -1)
    filled = np.where(np.isnan(values), -np.inf, values)
    highest = np.where(defined, np.argmax(filled, axis=0), -1)
    return gaps.reshape(n_classes), lowest, highest


def _mean_pair_gap(values):
    """Mean ``|r_a - r_b|`` over the pairs of defined groups, per column.

    With the ``m`` defined values of a column sorted, the sum over pairs is
    ``sum_i x_(i) (2 i - m + 1)``: one sort, no pair enumeration.
    """
    ordered = np.sort(values, axis=0)  # NaN last
    m = (~np.isnan(values)).sum(axis=0)
    i = np.arange(values.shape[0])[:, None]
    weights = np.where(i < m, 2.0 * i - m + 1.0, 0.0)
    total = np.nansum(ordered * weights, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m >= 2, total / (m * (m - 1) / 2.0), np.nan)


def worst_pairs(candidates, classes):
    """Per class, the largest gap over groupings and rates, with its pair.

    ``candidates``: ``(grouping, rate name, values, gaps, lowest, highest)``
    per grouping and rate, the last three from :func:`pair_gaps`. Returns
    the ``by_class`` frame of a ``MulticlassRateResult``.
    """
    gaps = np.array([gap for *_, gap, _, _ in candidates])  # (n_candidates, K)
    best = np.argmax(np.where(np.isnan(gaps), -np.inf, gaps), axis=0)
    rows = []
    for k in range(len(classes)):
        grouping, name, values, gap, lowest, highest = candidates[best[k]]
        low, high = lowest[k], highest[k]
        defined = low >= 0
        rows.append(
            {
                "difference": gap[k],
                "rate": name,
                "grouping": grouping.name,
                "lowest_group": grouping.labels[low] if defined else None,
                "highest_group": grouping.labels[high] if defined else None,
                "lowest": values[low, k] if defined else np.nan,
                "highest": values[high, k] if defined else np.nan,
            }
        )
    return pd.DataFrame(rows, index=pd.Index(list(classes), name="class"))


def group_index(grouping):
    """The groups of ``grouping`` as a pandas index (one level per attribute)."""
    labels = list(grouping.labels)
    if labels and isinstance(labels[0], tuple):
        names = grouping.name.split(" & ")
        if len(names) != len(labels[0]):  # an attribute's name holds " & "
            names = None
        return pd.MultiIndex.from_tuples(labels, names=names)
    return pd.Index(labels, name=grouping.name)


def reduce_classes(gaps, classes, class_agg, *, metric, stacklevel):
    """``class_agg`` of the per-class gaps, skipping (and naming) undefined ones.

    Returns ``(value, worst)``: a float (NaN if no class is defined) and the
    code of the class with the largest gap (-1 if none).
    """
    undefined = np.flatnonzero(np.isnan(gaps))
    if undefined.size:
        shown = ", ".join(repr(classes[k]) for k in undefined[:10])
        warnings.warn(
            UNDEFINED_CLASS_WARNING.format(
                metric=metric,
                n_classes=undefined.size,
                classes=shown,
                class_agg=class_agg,
            ),
            UndefinedMetricWarning,
            stacklevel=stacklevel + 1,
        )
    if undefined.size == gaps.size:
        return float("nan"), -1
    worst = int(np.nanargmax(gaps))
    value = gaps[worst] if class_agg == "max" else np.nanmean(gaps)
    return float(value), worst
