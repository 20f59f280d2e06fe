"""Input validation (and the estimators' shared pieces) for all of skfair.

Error messages are module constants so that tests can import and compare them
(the fairlearn convention). Private helpers downstream trust what these return.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ._dataframe import check_not_lazy

NON_FINITE_ERROR = (
    "{name} contains {what}; every score must be a finite number. "
    "Got {count} non-finite value(s), the first at position {first}."
)
NOT_1D_ERROR = "{name} must be 1-dimensional, got an array of shape {shape}."
RAGGED_ERROR = (
    "{name} is a sequence of rows of different lengths ({lengths}); it needs one "
    "value per sample, or a matrix with the same number of columns in every row "
    "(class probabilities: one column per class)."
)
NOT_NUMERIC_ERROR = "{name} must be numeric (real numbers), got dtype {dtype}."
INDEX_MISMATCH_ERROR = (
    "{first} and {second} are pandas objects with different indexes; skfair "
    "pairs samples by position, so it would pair samples of one with other "
    "samples of the other. Align them first (e.g. "
    "{second}.reindex({first}.index)), or pass .to_numpy() of both if their "
    "order already matches."
)
OUT_OF_UNIT_INTERVAL_ERROR = (
    "{name} must lie in [0, 1] for {why}; got values in [{low!r}, {high!r}]."
)
LENGTH_MISMATCH_ERROR = (
    "Inconsistent numbers of samples: {first_name} has {first_len} and "
    "{second_name} has {second_len}."
)
EMPTY_INPUT_ERROR = "{name} is empty; at least one sample is needed."
NON_BINARY_ERROR = (
    "{name} must hold exactly two classes for {why}; got {n_classes} class(es): "
    "{classes}."
)
TOO_MANY_CLASSES_ERROR = (
    "y_true and y_pred must be hard labels of the same two classes; together "
    "they hold {n_classes} distinct values: {classes}. Pass predicted class "
    "labels (estimator.predict), not scores or probabilities."
)
POS_LABEL_ERROR = (
    "pos_label={pos_label!r} is not among the labels of y_true and y_pred "
    "({classes}); pass the positive class as pos_label."
)
LABEL_NAN_ERROR = "{name} contains missing values; hard labels are needed."
POS_LABEL_NEEDED_ERROR = (
    "{name} holds the labels {classes}, so the positive class is ambiguous: "
    "pass pos_label= (the label of the positive outcome, e.g. "
    "pos_label={example!r}), or encode {name} as {{0, 1}}, {{False, True}} or "
    "{{-1, 1}}, where the larger label is positive."
)
POS_LABEL_NOT_FOUND_ERROR = (
    "pos_label={pos_label!r} is not one of the labels of {name}: {classes}."
)
SAMPLE_WEIGHT_ERROR = (
    "sample_weight must be finite and non-negative with a positive sum; {problem}."
)
ONLY_BINARY_ERROR = (
    "Only binary classification is supported. {estimator} needs a target of "
    "exactly two classes, but y holds {n_classes} distinct value(s) (type of "
    "target {y_type!r}): {classes}. Fit on data holding both classes, or reduce "
    "the target to two (e.g. one class against the rest)."
)


def column_1d(values, *, name):
    """Return ``values`` as a 1-D array (an ``(n, 1)`` column is flattened).

    scikit-learn's ``column_or_1d`` adds a ``check_array`` pass, and its
    error does not name the argument.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, 1)
        Any values (pandas Series and lists are accepted); the dtype is kept.
    name : str
        The argument's name, used in error messages.

    Returns
    -------
    array : ndarray of shape (n_samples,)

    Examples
    --------
    >>> column_1d([["a"], ["b"]], name="y_true")
    array(['a', 'b'], dtype='<U1')
    """
    _check_not_lazy(values, name)
    try:
        array = np.asarray(values)
    except ValueError:  # numpy's "inhomogeneous shape"
        if not isinstance(values, (list, tuple)):
            raise
        lengths = sorted({np.size(row) for row in values})
        raise ValueError(RAGGED_ERROR.format(name=name, lengths=lengths[:5])) from None
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError(NOT_1D_ERROR.format(name=name, shape=array.shape))
    return array


def column_or_1d_numeric(values, *, name):
    """Return ``values`` as a 1-D float64 array, with clear errors.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, 1)
        Real numbers (pandas Series and lists are accepted); complex numbers,
        datetimes and timedeltas are refused.
    name : str
        The argument's name, used in error messages.

    Returns
    -------
    array : ndarray of shape (n_samples,), dtype float64
        The values; finiteness is *not* checked here (see :func:`check_scores`).

    Examples
    --------
    >>> column_or_1d_numeric([[1], [2]], name="y_score")
    array([1., 2.])
    """
    array = column_1d(values, name=name)
    try:
        if array.dtype.kind in "cmM":  # complex, timedelta, datetime
            raise TypeError
        return np.ascontiguousarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            NOT_NUMERIC_ERROR.format(name=name, dtype=array.dtype)
        ) from None


def same_label(label, value):
    """Whether a group or class ``label`` equals ``value`` (tuples elementwise).

    Parameters
    ----------
    label, value : object
        Labels: scalars of any type, or tuples of them (intersections).

    Returns
    -------
    equal : bool
        False, rather than an error, for values that cannot be compared.

    Examples
    --------
    >>> same_label(("f", 1), ("f", 1)), same_label("1", 1)
    (True, False)
    """
    if isinstance(label, tuple) or isinstance(value, tuple):
        return (
            isinstance(label, tuple)
            and isinstance(value, tuple)
            and len(label) == len(value)
            and all(same_label(a, b) for a, b in zip(label, value))
        )
    try:
        return bool(label == value)
    except (TypeError, ValueError):
        return False


def check_same_index(**named):
    """Raise a ValueError when two pandas arguments carry different indexes.

    Samples are paired by position; two Series/DataFrames whose indexes are
    equal (same labels in the same order) are paired correctly, and so are
    arrays. Different indexes mean the positions probably do not match, so
    skfair refuses to guess.

    Parameters
    ----------
    **named : object
        The arguments, by name; None and non-pandas values are skipped.

    Examples
    --------
    >>> import pandas as pd
    >>> check_same_index(y_score=pd.Series([.1, .2]), sensitive_features=[0, 1])
    """
    indexed = [
        (name, value.index)
        for name, value in named.items()
        if isinstance(value, (pd.Series, pd.DataFrame))
    ]
    for name, index in indexed[1:]:
        if not index.equals(indexed[0][1]):
            raise ValueError(
                INDEX_MISMATCH_ERROR.format(first=indexed[0][0], second=name)
            )


def check_scores(y_score, *, name="y_score", unit_interval_for=None):
    """Validate a vector of real-valued scores.

    Parameters
    ----------
    y_score : array-like of shape (n_samples,)
        The model's scores.
    name : str, default="y_score"
        Name used in error messages.
    unit_interval_for : str or None, default=None
        When given, the scores must lie in [0, 1]; the string says why (it is
        quoted in the error message).

    Returns
    -------
    y_score : ndarray of shape (n_samples,), dtype float64

    Raises
    ------
    ValueError
        If the scores are empty, not 1-D, contain NaN or infinities, or (with
        ``unit_interval_for``) leave [0, 1].

    Examples
    --------
    >>> check_scores([0.2, 0.9])
    array([0.2, 0.9])
    >>> check_scores([0.2, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: y_score contains NaN; every score must be a finite number. ...
    """
    scores = column_or_1d_numeric(y_score, name=name)
    if scores.size == 0:
        raise ValueError(EMPTY_INPUT_ERROR.format(name=name))
    low, high = scores.min(), scores.max()  # NaN propagates; no copy
    if not (np.isfinite(low) and np.isfinite(high)):
        bad = np.flatnonzero(~np.isfinite(scores))
        what = "NaN" if np.isnan(scores[bad[0]]) else "infinity"
        raise ValueError(
            NON_FINITE_ERROR.format(
                name=name, what=what, count=bad.size, first=int(bad[0])
            )
        )
    if unit_interval_for is not None and (low < 0.0 or high > 1.0):
        raise ValueError(
            OUT_OF_UNIT_INTERVAL_ERROR.format(
                name=name, why=unit_interval_for, low=float(low), high=float(high)
            )
        )
    return scores


def check_same_length(first, second, *, first_name, second_name):
    """Raise a ValueError naming both lengths when they differ.

    scikit-learn's ``check_consistent_length`` does not name the arguments.

    Parameters
    ----------
    first, second : sized or int
        Objects with ``len`` (arrays, Series, DataFrames), or a number of
        samples.
    first_name, second_name : str
        Their argument names.

    Examples
    --------
    >>> check_same_length([1, 2], [1, 2], first_name="a", second_name="b")
    """
    _check_not_lazy(first, first_name)
    _check_not_lazy(second, second_name)
    n_first, n_second = _num_samples(first), _num_samples(second)
    if n_first != n_second:
        raise ValueError(
            LENGTH_MISMATCH_ERROR.format(
                first_name=first_name,
                first_len=n_first,
                second_name=second_name,
                second_len=n_second,
            )
        )


def _check_not_lazy(values, name):
    """Refuse a lazy frame as ``name`` (``LAZY_FRAME_ERROR``).

    NumPy would wrap it as a 0-d object array, whose shape error does not
    say that the frame must be collected.
    """
    if not isinstance(values, (np.ndarray, pd.Series, pd.DataFrame, list, tuple)):
        check_not_lazy(values, what=name)


def _num_samples(x):
    if isinstance(x, numbers.Integral):
        return int(x)
    shape = getattr(x, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    return len(x)


def check_binary_target(y_true, *, name="y_true", why="this metric"):
    """Encode a binary target as 0/1, the larger label being the positive class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels of exactly two distinct values (ints, bools or strings).
    name : str, default="y_true"
        Name used in error messages.
    why : str, default="this metric"
        What needs the binary target, quoted in the error message.

    Returns
    -------
    y : ndarray of shape (n_samples,), dtype int64
        0/1 labels; 1 is the larger of the two sorted labels.
    classes : ndarray of shape (2,)
        The original labels, ``classes[1]`` being the positive one.

    Examples
    --------
    >>> y, classes = check_binary_target(["no", "yes", "yes"])
    >>> y.tolist(), classes.tolist()
    ([0, 1, 1], ['no', 'yes'])
    """
    classes, encoded = np.unique(_labels_1d(y_true, name), return_inverse=True)
    if classes.size != 2:
        shown = classes[:10].tolist()
        raise ValueError(
            NON_BINARY_ERROR.format(
                name=name, why=why, n_classes=classes.size, classes=shown
            )
        )
    return encoded.astype(np.int64), classes


def check_pos_label(y_true, *, pos_label=None, name="y_true", why="this metric"):
    """Encode a binary target as 0/1, 1 being the positive class ``pos_label``.

    As scikit-learn's metrics do, the positive class must be stated unless
    the labels are {0, 1}, {False, True} or {-1, 1} (then the larger is
    positive).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels of exactly two distinct values.
    pos_label : object or None, default=None
        The positive class; None only for the three unambiguous encodings.
    name : str, default="y_true"
        Name used in error messages.
    why : str, default="this metric"
        What needs the binary target, quoted in the two-class error.

    Returns
    -------
    y : ndarray of shape (n_samples,), dtype int64
        1 where ``y_true == pos_label``.
    pos_label : object
        The positive class used (a Python scalar).

    Raises
    ------
    ValueError
        If ``y_true`` does not hold two classes, if ``pos_label`` is not one
        of them, or if it is None and the labels are not one of the three
        unambiguous encodings.

    Examples
    --------
    >>> y, pos = check_pos_label(["no", "yes", "no"], pos_label="no")
    >>> y.tolist(), pos
    ([1, 0, 1], 'no')
    >>> check_pos_label([-1, 1, 1])[1]
    1
    """
    y, classes = check_binary_target(y_true, name=name, why=why)
    labels = classes.tolist()
    if pos_label is None:
        if classes.dtype.kind not in "biuf" or set(labels) not in ({0, 1}, {-1, 1}):
            raise ValueError(
                POS_LABEL_NEEDED_ERROR.format(
                    name=name, classes=labels, example=labels[-1]
                )
            )
        return y, labels[1]
    matches = [k for k, c in enumerate(labels) if same_label(c, pos_label)]
    if not matches:
        raise ValueError(
            POS_LABEL_NOT_FOUND_ERROR.format(
                pos_label=pos_label, name=name, classes=labels
            )
        )
    return (y == matches[0]).astype(np.int64), labels[matches[0]]


def check_binary_y(y, *, estimator):
    """Check the target of a binary classifier's ``fit``: ``(y01, classes)``.

    As :func:`check_binary_target`, but any other target (one class,
    multiclass, continuous) raises :data:`ONLY_BINARY_ERROR`, which names
    ``estimator`` and opens as scikit-learn's common checks expect.
    """
    from sklearn.utils.multiclass import type_of_target  # skfair.utils is light

    y_type = type_of_target(y, input_name="y", raise_unknown=True)
    classes, name = np.unique(y), type(estimator).__name__
    if y_type != "binary" or classes.size != 2:
        raise ValueError(
            ONLY_BINARY_ERROR.format(
                estimator=name,
                y_type=y_type,
                n_classes=classes.size,
                classes=classes[:10].tolist(),
            )
        )
    return check_binary_target(y, name="y", why=name)


def _labels_1d(values, name):
    """``values`` as a 1-D array of class labels, none missing."""
    array = column_1d(values, name=name)
    if pd.isna(array).any():
        raise ValueError(LABEL_NAN_ERROR.format(name=name))
    return array


def check_hard_labels(y_true, y_pred, *, pos_label=None):
    """Check binary hard labels and return the positive-class indicators.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels; together at most two distinct values.
    pos_label : object or None, default=None
        The positive class; None means the larger of two observed (sorted)
        labels, and with one observed label scikit-learn's and fairlearn's
        ``pos_label=1`` (so a model that predicts 0 for everyone selects
        nobody, whatever the truth). With two observed labels it must be one
        of them; with one, a missing ``pos_label`` simply means that no
        sample is positive.

    Returns
    -------
    truth, pred : ndarray of shape (n_samples,), dtype bool
        ``y_true == pos_label`` and ``y_pred == pos_label``.

    Examples
    --------
    >>> truth, pred = check_hard_labels(["no", "yes"], ["yes", "yes"])
    >>> truth.tolist(), pred.tolist()
    ([False, True], [True, True])
    >>> truth, pred = check_hard_labels([0, 0], [0, 0])
    >>> truth.tolist(), pred.tolist()
    ([False, False], [False, False])
    """
    arrays = [_labels_1d(y_true, "y_true"), _labels_1d(y_pred, "y_pred")]
    check_same_length(*arrays, first_name="y_true", second_name="y_pred")
    classes = _sorted_classes(arrays)
    if len(classes) > 2:
        raise ValueError(
            TOO_MANY_CLASSES_ERROR.format(n_classes=len(classes), classes=classes[:10])
        )
    if pos_label is None:
        # One observed label says nothing about which class is positive.
        pos_label = classes[-1] if len(classes) == 2 else 1
    elif len(classes) == 2 and not any(same_label(c, pos_label) for c in classes):
        raise ValueError(POS_LABEL_ERROR.format(pos_label=pos_label, classes=classes))
    return arrays[0] == pos_label, arrays[1] == pos_label


def _sorted_classes(arrays):
    """The sorted distinct labels of ``arrays``.

    Integer and boolean labels with at most two values (the common case, at
    millions of rows) are read from their extremes in one vectorised pass;
    anything else goes through :func:`pandas.unique` on object arrays.
    """
    if all(a.dtype.kind in "biu" and a.size for a in arrays):
        low = min(a.min() for a in arrays)
        high = max(a.max() for a in arrays)
        if all(((a == low) | (a == high)).all() for a in arrays):
            return sorted({low.item(), high.item()})
    classes = pd.unique(np.concatenate([a.astype(object) for a in arrays]))
    try:
        return sorted(classes.tolist())
    except TypeError:  # unorderable mixed labels
        return sorted(classes.tolist(), key=repr)


def check_sample_weight_1d(sample_weight, n_samples, *, against="X"):
    """Validate optional sample weights; return float64 weights or None.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
        Non-negative finite weights with a positive sum.
    n_samples : int
        Expected length.
    against : str, default="X"
        What ``n_samples`` was taken from, named in a length-mismatch message.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,) or None

    Examples
    --------
    >>> check_sample_weight_1d([1, 2], 2)
    array([1., 2.])
    """
    if sample_weight is None:
        return None
    weights = column_or_1d_numeric(sample_weight, name="sample_weight")
    check_same_length(
        weights, n_samples, first_name="sample_weight", second_name=against
    )
    if not np.isfinite(weights).all():
        raise ValueError(SAMPLE_WEIGHT_ERROR.format(problem="got NaN or infinity"))
    if (weights < 0).any():
        raise ValueError(SAMPLE_WEIGHT_ERROR.format(problem="got negative weights"))
    if not weights.any():  # non-negative: a zero sum (a sum may overflow)
        raise ValueError(SAMPLE_WEIGHT_ERROR.format(problem="the weights sum to zero"))
    return weights


def check_fraction(value, *, name, closed=True):
    """Check that a scalar is a real number in [0, 1] (or (0, 1) if not closed).

    Parameters
    ----------
    value : float
        The value to check.
    name : str
        Its name, for the error message.
    closed : bool, default=True
        Whether the end points are allowed.

    Returns
    -------
    value : float

    Examples
    --------
    >>> check_fraction(0.5, name="repair")
    0.5
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        value = float(value)
        ok = 0.0 <= value <= 1.0 if closed else 0.0 < value < 1.0
    if not ok:
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ValueError(f"{name} must be a real number in {interval}; got {value!r}.")
    return value
