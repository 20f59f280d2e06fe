"""The positive class's scores from a fitted classifier: the one extraction.

Scorers, displays and post-processors all need the same thing from a
fitted model: a score per sample for the positive class (its
``predict_proba`` column, its ``decision_function`` oriented so that larger
means more positive, or its hard ``predict`` as a 0/1 indicator).
:func:`positive_class_scores` is that extraction.
"""

from __future__ import annotations

import numpy as np

#: What ``response_method="auto"`` tries, in order.
AUTO_RESPONSE = ("predict_proba", "decision_function")
RESPONSE_METHODS = ("predict_proba", "decision_function", "predict")
RESPONSE_METHOD_ERROR = (
    "response_method must be 'auto', one of {methods} or a sequence of them; "
    "got {value!r}."
)
NO_RESPONSE_METHOD_ERROR = (
    "{estimator} has none of the response methods {methods}; pass a fitted "
    "classifier with one of them, or its scores directly."
)
POSITIVE_CLASS_NEEDED_ERROR = (
    "{estimator} has {n_classes} classes {classes}; pass pos_label= to name "
    "the positive class (with two classes it defaults to the greater one)."
)
POSITIVE_CLASS_UNKNOWN_ERROR = (
    "pos_label={pos_label!r} is not one of {estimator}'s classes {classes}."
)


def _methods(response_method):
    """``response_method`` as a tuple of method names, validated."""
    if isinstance(response_method, str):
        if response_method == "auto":
            return AUTO_RESPONSE
        methods = (response_method,)
    else:
        methods = tuple(response_method)
    if not methods or not all(m in RESPONSE_METHODS for m in methods):
        raise ValueError(
            RESPONSE_METHOD_ERROR.format(
                methods=list(RESPONSE_METHODS), value=response_method
            )
        )
    return methods


def positive_class_scores(estimator, X, *, response_method="auto", pos_label=None):
    """Scores of a fitted classifier for its positive class, one per sample.

    Parameters
    ----------
    estimator : fitted estimator
        A classifier (with ``classes_``); without ``classes_`` (a regressor)
        the response is returned as it is, with ``pos_label=None``.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The samples to score.
    response_method : "auto", str or sequence of str, default="auto"
        The method to call: ``"predict_proba"``, ``"decision_function"`` or
        ``"predict"``, or a sequence of them, the first one the estimator
        has being used; ``"auto"`` is ``("predict_proba",
        "decision_function")``.
    pos_label : object or None, default=None
        The positive class; None takes the greater of two classes
        (``classes_[-1]``) and needs a binary classifier.

    Returns
    -------
    y_score : ndarray of shape (n_samples,)
        The positive class's ``predict_proba`` column; its
        ``decision_function`` (the matching column with several classes),
        negated when the positive class is ``classes_[0]`` of two, so that
        larger always means more positive; or, for ``predict``, 1.0 where
        the positive class is predicted and 0.0 elsewhere.
    pos_label : object or None
        The positive class used (None without ``classes_``).

    Raises
    ------
    AttributeError
        If ``estimator`` has none of the methods.
    ValueError
        For an unknown ``response_method``, a ``pos_label`` that is not a
        class, or ``pos_label=None`` with more than two classes.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = [[0.0], [1.0], [2.0], [3.0]], ["no", "no", "yes", "yes"]
    >>> model = LogisticRegression().fit(X, y)
    >>> scores, label = positive_class_scores(model, X)
    >>> print(label, bool(scores[3] > scores[0]))
    yes True
    >>> margin, _ = positive_class_scores(
    ...     model, X, response_method="decision_function", pos_label="no")
    >>> bool(margin[0] > margin[3])
    True
    """
    methods = _methods(response_method)
    name = type(estimator).__name__
    method = next((m for m in methods if hasattr(estimator, m)), None)
    if method is None:
        raise AttributeError(
            NO_RESPONSE_METHOD_ERROR.format(estimator=name, methods=list(methods))
        )
    response = np.asarray(getattr(estimator, method)(X))
    if not hasattr(estimator, "classes_"):
        return response, None
    classes = list(estimator.classes_)
    shown = np.asarray(estimator.classes_).tolist()  # plain values in messages
    if pos_label is None:
        if len(classes) > 2:
            raise ValueError(
                POSITIVE_CLASS_NEEDED_ERROR.format(
                    estimator=name, n_classes=len(classes), classes=shown
                )
            )
        pos_label = classes[-1]
    elif pos_label not in classes:
        raise ValueError(
            POSITIVE_CLASS_UNKNOWN_ERROR.format(
                pos_label=pos_label, estimator=name, classes=shown
            )
        )
    if method == "predict":
        return (response == pos_label).astype(np.float64), pos_label
    column = classes.index(pos_label)
    if response.ndim == 2 and response.shape[1] > 1:
        return response[:, column].astype(np.float64, copy=False), pos_label
    response = response.ravel().astype(np.float64, copy=False)
    return (response if column == 1 else -response), pos_label
