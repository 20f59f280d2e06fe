"""The distribution metrics on class probabilities, one class at a time.

A multiclass model's ``predict_proba`` is an ``(n_samples, n_classes)``
array; class *k*'s column is a score like any other (one-vs-rest), so every
distribution metric (ΔDP, ABCC, ABPC, MCDP(ε)) of class *k* is the binary
metric on that column, and the multiclass value is their ``class_agg``: the
worst class ("max", the default) or the mean over classes ("mean", macro).
The public metrics branch here on 2-D scores (:func:`is_class_scores`);
1-D scores never reach this module, so they behave exactly as before.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd

from ..utils import SmallGroupWarning

CLASS_AGG_ERROR = "class_agg must be 'max' or 'mean'; got {class_agg!r}."
CLASSES_ON_SCORES_ERROR = (
    "classes={classes!r} names the columns of class probabilities (y_score of "
    "shape (n_samples, n_classes)), but y_score is 1-D. Pass classes=None."
)
PROBA_COLUMNS_ERROR = (
    "y_score of shape {shape} has {n_columns} column(s); class probabilities "
    "need one column per class, at least two (a 1-D y_score is a binary "
    "model's positive-class score)."
)
PROBA_RANGE_ERROR = (
    "y_score holds class probabilities (one column per class) and must lie in "
    "[0, 1]; got values in [{low!r}, {high!r}] (column {column!r}). Pass "
    "predict_proba's output, not margins or logits."
)
CLASSES_ERROR = (
    "classes must hold one distinct label per column of y_score ({n_columns}); "
    "got {classes!r}."
)
CLASS_COLUMNS_ERROR = (
    "classes={classes!r} puts column names of the y_score frame ({columns}) "
    "in other places, so a column would be labelled with another class; pass "
    "classes in the frame's column order, or no classes (the columns name "
    "the classes)."
)
CLASS_SCORES_ERROR = (
    "y_score of shape (n_samples, n_classes) is not supported by {what}; {fix}"
)


def check_class_agg(class_agg):
    """Raise :data:`CLASS_AGG_ERROR` unless ``class_agg`` is "max" or "mean".

    Examples
    --------
    >>> from skfair.metrics._multiclass import check_class_agg
    >>> check_class_agg("mean")
    'mean'
    """
    if not isinstance(class_agg, str) or class_agg not in ("max", "mean"):
        raise ValueError(CLASS_AGG_ERROR.format(class_agg=class_agg))
    return class_agg


def check_scores_class_options(class_agg, classes):
    """The class options of a 1-D ``y_score``: a valid ``class_agg``, no ``classes``.

    They do not apply to 1-D scores, but a typo or a ``classes`` meant for
    another model should not pass unnoticed.
    """
    check_class_agg(class_agg)
    if classes is not None:
        raise ValueError(CLASSES_ON_SCORES_ERROR.format(classes=classes))


def score_shape(y_score):
    """The shape of ``y_score`` without copying it (None if it has none)."""
    shape = getattr(y_score, "shape", None)
    if shape is None and isinstance(y_score, (list, tuple)):
        try:
            shape = np.shape(y_score)
        except ValueError:  # ragged: not a matrix, the 1-D checks say so
            return None
    return None if shape is None else tuple(shape)


def is_class_scores(y_score):
    """Whether ``y_score`` is a matrix of class probabilities.

    Any 2-D input but a single column: ``(n_samples, 1)`` stays the column
    vector it always was (scikit-learn's ``column_or_1d``).

    Examples
    --------
    >>> from skfair.metrics._multiclass import is_class_scores
    >>> is_class_scores([[0.2, 0.8], [0.6, 0.4]]), is_class_scores([0.2, 0.6])
    (True, False)
    """
    shape = score_shape(y_score)
    return shape is not None and len(shape) == 2 and shape[1] != 1


def class_labels(y_score, classes, n_columns):
    """The label of each column: ``classes``, a DataFrame's columns, or 0..K-1.

    ``classes`` that name a frame's columns in other places raise
    :data:`CLASS_COLUMNS_ERROR` rather than relabel them (a frame whose
    columns are the classes in another order is first put in the order of
    ``classes`` by :func:`class_columns`).
    """
    columns = getattr(y_score, "columns", None)
    if classes is None:
        return tuple(range(n_columns)) if columns is None else tuple(columns)
    labels = _distinct_labels(classes, n_columns)
    if columns is not None:
        names = tuple(columns)
        if any(name in labels and name != label for name, label in zip(names, labels)):
            raise ValueError(
                CLASS_COLUMNS_ERROR.format(classes=list(labels), columns=list(names))
            )
    return labels


def _distinct_labels(classes, n_columns):
    """``classes`` as ``n_columns`` distinct labels, or :data:`CLASSES_ERROR`."""
    labels = tuple(np.asarray(classes, dtype=object).ravel().tolist())
    if len(labels) != n_columns or len(set(labels)) != n_columns:
        raise ValueError(CLASSES_ERROR.format(n_columns=n_columns, classes=classes))
    return labels


def _by_name(y_score, classes, n_columns):
    """The frame's columns in the order of ``classes`` when they are the classes.

    ``y_score`` unchanged when it is not a frame, without ``classes``, or
    when its column names are not the classes in another order.
    """
    columns = getattr(y_score, "columns", None)
    if classes is None or columns is None:
        return y_score
    names, labels = list(columns), list(_distinct_labels(classes, n_columns))
    if names == labels or len(set(names)) != n_columns or set(names) != set(labels):
        return y_score
    return y_score[[names[names.index(label)] for label in labels]]


def class_columns(y_score, classes=None):
    """The columns of a probability matrix, validated, and their class labels.

    Returns ``(columns, labels)``: one 1-D column per class (a pandas Series
    with the frame's index for a pandas DataFrame, so the metrics check it
    against the other inputs' index; a float array otherwise) and the
    labels. A frame whose columns are ``classes`` in another order is read
    by column name. NaN and infinities are left to the metrics' own error.
    """
    shape = score_shape(y_score)
    if shape[1] < 2:
        raise ValueError(PROBA_COLUMNS_ERROR.format(shape=shape, n_columns=shape[1]))
    y_score = _by_name(y_score, classes, shape[1])
    labels = class_labels(y_score, classes, shape[1])
    if isinstance(y_score, pd.DataFrame):
        columns = [y_score.iloc[:, k] for k in range(shape[1])]
        matrix = y_score.to_numpy(dtype=np.float64)
    else:
        if hasattr(y_score, "to_numpy"):  # polars and other frames
            y_score = y_score.to_numpy()
        matrix = np.asarray(y_score, dtype=np.float64)
        columns = [matrix[:, k] for k in range(shape[1])]
    check_probabilities(matrix, labels)
    return columns, labels


def check_probabilities(matrix, labels):
    """Raise :data:`PROBA_RANGE_ERROR` if a finite entry leaves [0, 1]."""
    with np.errstate(invalid="ignore"):
        outside = (matrix < 0.0) | (matrix > 1.0)
    if outside.any():
        column = int(np.flatnonzero(outside.any(axis=0))[0])
        finite = matrix[np.isfinite(matrix)]
        raise ValueError(
            PROBA_RANGE_ERROR.format(
                low=float(finite.min()), high=float(finite.max()), column=labels[column]
            )
        )


def aggregate_classes(values, class_agg):
    """``class_agg`` of the per-class values (arrays: over the first axis)."""
    values = np.asarray(values, dtype=np.float64)
    out = values.max(axis=0) if class_agg == "max" else values.mean(axis=0)
    return float(out) if out.ndim == 0 else out


def per_class(
    evaluate, y_score, *, class_agg, classes, labelled=False, warn_each=False
):
    """``evaluate(column)`` of every class column: ``(labels, results)``.

    With ``labelled``, ``evaluate(column, label)``. The small-group warning,
    the same for every class, is raised once (for each class with
    ``warn_each``: when the classes compare different rows).
    """
    check_class_agg(class_agg)
    columns, labels = class_columns(y_score, classes)
    calls = [(c, label) if labelled else (c,) for c, label in zip(columns, labels)]
    results = [evaluate(*calls[0])]
    with warnings.catch_warnings():
        if not warn_each:
            warnings.simplefilter("ignore", SmallGroupWarning)
        results += [evaluate(*call) for call in calls[1:]]
    return labels, results


def per_class_call(function, y_true, y_score, *, class_agg, classes, **kwargs):
    """:func:`per_class` of ``function(y_true, column, **kwargs)``."""

    def evaluate(column):
        return function(y_true, column, **kwargs)

    return per_class(evaluate, y_score, class_agg=class_agg, classes=classes)


def worst_class(values):
    """The index of the first largest value (the class ``class_agg="max"`` reports)."""
    return int(np.argmax(np.asarray(values, dtype=np.float64)))


def class_details(labels, results, class_agg):
    """One result of many classes: the worst class's, with the per-class breakdown.

    ``results`` holds one ``MCDPResult`` per class; the returned one keeps
    the worst class's pair, threshold and window, its ``value`` is the
    ``class_agg`` over the classes, ``class_label`` names the worst class
    and ``per_class`` maps each class to its own result.
    """
    values = [r.value for r in results]
    k = worst_class(values)
    return replace(
        results[k],
        value=aggregate_classes(values, class_agg),
        class_label=labels[k],
        per_class=dict(zip(labels, results)),
    )


def per_class_values(
    y_true,
    y_score,
    *,
    sensitive_features,
    metric="mcdp",
    metric_params=None,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
    classes=None,
):
    """A distribution metric of each class's probabilities (one-vs-rest).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored by the demographic-parity metrics; its length is checked.
    y_score : array-like or DataFrame of shape (n_samples, n_classes)
        Class probabilities (``predict_proba``); a DataFrame's columns are
        the class names.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    metric : {"mcdp", "abcc", "abpc", "delta_dp"}, default="mcdp"
        The metric applied to each class's column.
    metric_params : dict or None, default=None
        Other keyword arguments of the metric, e.g. ``{"epsilon": 0.05}``.
    sample_weight, combine, min_group_size
        As for the metric.
    classes : sequence or None, default=None
        The label of each column; None takes a DataFrame's columns, or
        ``0 .. n_classes - 1``.

    Returns
    -------
    values : pandas.Series
        The metric of each class, indexed by class; its ``max()`` is the
        metric with ``class_agg="max"``, its ``mean()`` with ``"mean"``.

    See Also
    --------
    mcdp_details : The worst class, pair of groups and threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import per_class_values
    >>> proba = np.array([[.7, .2, .1], [.6, .3, .1], [.2, .5, .3], [.1, .3, .6]])
    >>> per_class_values(None, proba, sensitive_features=[0, 0, 1, 1],
    ...                  classes=["Low", "Medium", "High"], min_group_size=1)
    Low       1.0
    Medium    0.5
    High      1.0
    dtype: float64
    """
    from ._confidence import checked_metric_spec  # they import this module
    from .inference._specs import METRICS

    spec = checked_metric_spec(metric, metric_params)
    options = {k: v for k, v in spec.options.items() if k not in CLASS_OPTIONS}
    labels, values = per_class_call(
        METRICS[metric],
        y_true,
        y_score,
        class_agg="max",
        classes=classes,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
        combine=combine,
        min_group_size=min_group_size,
        **options,
    )
    return pd.Series(values, index=pd.Index(labels), dtype=np.float64)


#: The options of the metrics that concern the classes, not one class's metric.
CLASS_OPTIONS = ("class_agg", "classes")
