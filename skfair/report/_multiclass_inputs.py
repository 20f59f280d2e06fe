"""The inputs of a multiclass audit: detection, classes, probabilities, labels.

:func:`multiclass_reason` tells multiclass data from binary and regression
(for :func:`skfair.report._regression.detect_task`); :func:`multiclass_inputs` validates
``y_score`` (an ``(n_samples, n_classes)`` probability matrix, a DataFrame
whose columns are the classes, or predicted labels) and ``y_true`` against
one class list and encodes them as class codes.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from ..utils._dataframe import is_dataframe, to_pandas
from ..utils._validation import check_fraction, check_same_index

#: Detection reads numeric labels as classes up to this many distinct values.
MAX_DETECTED_CLASSES = 20
MULTICLASS_OPTION_ERROR = (
    "{name} is for binary classification and does not apply to "
    "task='multiclass'; {advice}"
)
MULTICLASS_THRESHOLD_ERROR = (
    "threshold does not apply to task='multiclass': the predicted class is "
    "the most probable one (or the label given); pass threshold='auto'; got "
    "{value!r}."
)
CLASSES_ERROR = (
    "classes must be a list of at least two distinct class labels; got {value!r}."
)
PROBA_COLUMNS_ERROR = (
    "y_score has {n_columns} columns but there are {n_classes} classes "
    "({classes}); pass classes= with one label per column, in column order."
)
FRAME_COLUMNS_ERROR = (
    "the columns of y_score ({columns}) must be the classes ({classes}), one "
    "column per class."
)
PROBA_RANGE_ERROR = (
    "y_score must hold probabilities in [0, 1] for task='multiclass' (one "
    "column per class, e.g. predict_proba(X)); found {value!r}."
)
UNKNOWN_LABEL_ERROR = (
    "{name} holds {label!r}, which is not one of the classes {classes}; pass "
    "classes= with every class."
)
PROBA_NDIM_ERROR = (
    "y_score must be predicted labels of shape (n_samples,) or probabilities "
    "of shape (n_samples, n_classes) for task='multiclass'; got shape {shape}."
)
SCORE_NOT_LABELS_ERROR = (
    "y_score holds {value!r}, a fraction, not a class label: for "
    "task='multiclass' pass predicted labels or probabilities of shape "
    "(n_samples, n_classes) (predict_proba(X)); one column of scores is a "
    "binary classifier's (task='binary')."
)
MULTICLASS_LABELS_NEEDED_ERROR = (
    "y_true is None and y_score holds predicted labels: pass classes= (the "
    "classes, in order) so that every class is known."
)


@dataclasses.dataclass(frozen=True)
class MulticlassInputs:
    """Validated multiclass inputs: probabilities, predicted and true codes."""

    proba: np.ndarray
    pred: np.ndarray
    truth: np.ndarray | None
    classes: tuple
    prediction: str


# -- detection and validation ------------------------------------------------------
def _labels_set(values):
    """The distinct labels of a 1-D array-like (None when unreadable)."""
    array = np.asarray(values, dtype=object).ravel()
    if array.size == 0 or any(_missing(v) for v in array[:1000]):
        return None
    try:
        return set(pd.unique(pd.Series(array, dtype=object)).tolist())
    except TypeError:
        return None


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def _sorted(labels):
    try:
        return tuple(sorted(labels))
    except TypeError:
        return tuple(sorted(labels, key=lambda v: (type(v).__name__, str(v))))


def _numeric_labels_ok(labels):
    """Numbers read as classes: whole numbers, few distinct values."""
    numbers = [v for v in labels if isinstance(v, (int, float, np.number))]
    if not numbers:
        return True
    if len(labels) > MAX_DETECTED_CLASSES:
        return False
    return all(float(v).is_integer() for v in numbers)


def multiclass_reason(y_true, y_score):
    """``"K classes: a, b, c"`` when the data are multiclass, else None.

    Multiclass: ``y_true`` has three or more distinct labels (strings, or
    at most ``MAX_DETECTED_CLASSES`` whole numbers) and ``y_score`` is a 2-D
    matrix with a column per class, or labels from the same set.
    """
    if y_true is None or np.ndim(y_true) != 1:
        return None
    truth = _labels_set(y_true)
    if truth is None or len(truth) < 3 or not _numeric_labels_ok(truth):
        return None
    if is_dataframe(y_score) or np.ndim(y_score) == 2:
        n_columns = np.shape(to_pandas(y_score) if is_dataframe(y_score) else y_score)
        if len(n_columns) == 2 and n_columns[1] >= len(truth):
            classes = _frame_classes(y_score) or _sorted(truth)
            return _classes_text(classes)
        return None
    if np.ndim(y_score) != 1:
        return None
    predicted = _labels_set(y_score)
    if predicted is None or not predicted <= truth:
        return None
    return _classes_text(_sorted(truth))


def _classes_text(classes):
    shown = ", ".join(map(str, classes[:10])) + (", ..." if len(classes) > 10 else "")
    return f"{len(classes)} classes: {shown}"


def _frame_classes(y_score):
    if not is_dataframe(y_score):
        return None
    return tuple(to_pandas(y_score).columns)


def check_multiclass_options(*, X, pos_label, score_type):
    """Refuse the options that belong to a binary classifier's audit."""
    for name, given, advice in (
        ("X (HFM of the decisions)", X is not None, "pass X=None."),
        ("pos_label", pos_label is not None, "every class is audited."),
        (
            f"score_type={score_type!r}",
            score_type != "probability",
            "pass probabilities (predict_proba) or labels.",
        ),
    ):
        if given:
            raise ValueError(MULTICLASS_OPTION_ERROR.format(name=name, advice=advice))


def _check_classes(classes):
    if classes is None:
        return None
    values = list(classes) if not isinstance(classes, str) else None
    if (
        values is None
        or len(values) < 2
        or len(_labels_set(values) or ()) != len(values)
    ):
        raise ValueError(CLASSES_ERROR.format(value=classes))
    return tuple(v.item() if isinstance(v, np.generic) else v for v in values)


def _codes(values, classes, name):
    """Each label's position in ``classes`` (an error names an unknown label)."""
    array = np.asarray(values, dtype=object).ravel()
    lookup = {c: k for k, c in enumerate(classes)}
    text = {str(c): k for k, c in enumerate(classes)}
    out = np.empty(array.shape[0], dtype=np.intp)
    for i, v in enumerate(array):
        v = v.item() if isinstance(v, np.generic) else v
        k = lookup.get(v) if not _missing(v) else None
        if k is None:
            k = text.get(str(v)) if not _missing(v) else None
        if k is None:
            raise ValueError(
                UNKNOWN_LABEL_ERROR.format(name=name, label=v, classes=list(classes))
            )
        out[i] = k
    return out


def _proba(y_score, classes, y_true):
    """The probability matrix, its columns in the order of the classes."""
    if is_dataframe(y_score):
        frame = to_pandas(y_score)
        columns = tuple(frame.columns)
        if classes is None:
            classes = columns
        order = _codes(list(classes), columns, "classes")
        if len(columns) != len(classes) or len(set(order)) != len(classes):
            raise ValueError(
                FRAME_COLUMNS_ERROR.format(columns=list(columns), classes=list(classes))
            )
        matrix = frame.to_numpy(dtype=np.float64)[:, order]
    else:
        matrix = np.asarray(y_score, dtype=np.float64)
        if classes is None:
            labels = None if y_true is None else _labels_set(y_true)
            classes = _sorted(labels) if labels else tuple(range(matrix.shape[1]))
        if matrix.shape[1] != len(classes):
            raise ValueError(
                PROBA_COLUMNS_ERROR.format(
                    n_columns=matrix.shape[1],
                    n_classes=len(classes),
                    classes=", ".join(map(str, classes)),
                )
            )
    bad = ~np.isfinite(matrix) | (matrix < 0) | (matrix > 1)
    if bad.any():
        raise ValueError(PROBA_RANGE_ERROR.format(value=float(matrix[bad][0])))
    return matrix, tuple(classes)


def multiclass_inputs(y_true, y_score, sensitive_features, classes, options):
    """The validated :class:`MulticlassInputs` of a multiclass audit.

    ``options``: the audit's ``X``, ``pos_label`` and ``score_type``, which
    must be those of a multiclass audit (:func:`check_multiclass_options`).
    """
    check_multiclass_options(**options)
    check_same_index(
        y_true=y_true, y_score=y_score, sensitive_features=sensitive_features
    )
    classes = _check_classes(classes)
    frame = is_dataframe(y_score)
    ndim = 2 if frame else np.ndim(y_score)
    if ndim == 2:
        proba, classes = _proba(y_score, classes, y_true)
        pred, prediction = np.argmax(proba, axis=1), "probabilities"
    elif ndim == 1:
        _check_not_scores(y_score)
        if classes is None:
            if y_true is None:
                raise ValueError(MULTICLASS_LABELS_NEEDED_ERROR)
            classes = _sorted(_labels_set(y_true) | (_labels_set(y_score) or set()))
        pred, prediction = _codes(y_score, classes, "y_score"), "labels"
        proba = np.zeros((pred.shape[0], len(classes)))
        proba[np.arange(pred.shape[0]), pred] = 1.0
    else:
        raise ValueError(PROBA_NDIM_ERROR.format(shape=np.shape(y_score)))
    truth = None
    if y_true is not None:
        truth = _codes(y_true, classes, "y_true")
        if truth.shape[0] != proba.shape[0]:
            raise ValueError(
                f"y_true has {truth.shape[0]} samples but y_score has "
                f"{proba.shape[0]}; they must have the same length."
            )
    return MulticlassInputs(proba, pred, truth, classes, prediction)


def _check_not_scores(y_score):
    """Refuse 1-D fractions as predicted labels (each would become a class)."""
    values = np.asarray(y_score).ravel()
    if values.dtype.kind == "f":
        fraction = values[np.isfinite(values) & (values != np.round(values))]
        if fraction.size:
            raise ValueError(SCORE_NOT_LABELS_ERROR.format(value=float(fraction[0])))


def multiclass_settings(settings, reason):
    """``settings`` for a multiclass audit: no threshold, ε in (0, 1)."""
    threshold = settings.threshold
    if not (isinstance(threshold, str) and threshold == "auto"):
        raise ValueError(MULTICLASS_THRESHOLD_ERROR.format(value=threshold))
    epsilon = settings.epsilon
    epsilon = 0.05 if isinstance(epsilon, str) and epsilon == "auto" else epsilon
    return dataclasses.replace(
        settings,
        threshold=None,
        epsilon=check_fraction(epsilon, name="epsilon", closed=False),
        task="multiclass",
        task_reason=reason,
    )
