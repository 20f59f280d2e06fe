"""The classifiers on more than two classes: target, softmax, per-class penalty.

A binary target keeps its one output (the log-odds of ``classes_[1]``); a
target of ``K > 2`` classes gets ``K`` outputs, the logits of a softmax. The
fairness penalties are those of one score: with ``K`` classes, class ``k``'s
predicted probability is a score (one-vs-rest), each class is penalised as a
binary classifier's positive probability is, and the classes are aggregated
as :func:`skfair.metrics.mcdp` aggregates them (``class_agg``): the worst
class (``"max"``) or their mean (``"mean"``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax, softmax

from skfair.utils._validation import check_binary_y

CLASS_AGGS = ("max", "mean")

TARGET_ERROR = (
    "{estimator} needs class labels, but the type of target y is {y_type!r} "
    "({n_classes} distinct value(s), e.g. {classes}). A continuous target "
    "needs a regressor (e.g. FairMLPRegressor)."
)
ONE_CLASS_ERROR = (
    "{estimator} cannot learn from one class: y holds only the class "
    "{label!r}. Fit on data holding at least two classes."
)
LABEL_TYPES_ERROR = (
    "{estimator}: the labels of y cannot be sorted into classes: they mix "
    "types {types} (a missing label is None). Give every label the same type "
    "and drop or fill the missing ones."
)
MODEL_PENALTY_MULTICLASS_ERROR = (
    "Only binary classification is supported with penalty={penalty!r}, and y "
    "holds {n_classes} classes {classes}. Use penalty='mcdp', 'dp' or 'abcc', "
    "which penalise each class's predicted probability (aggregated by "
    "class_agg), or reduce the target to two classes."
)


def check_class_target(y, *, estimator):
    """The training target of a classifier and its classes.

    A binary target gives ``(y01, classes)`` with ``y01`` the 0/1 floats of
    ``classes[1]`` (:func:`skfair.utils._validation.check_binary_y`); a target of more
    than two classes gives ``(codes, classes)`` with ``codes`` the index of
    each label in ``classes`` (sorted, any label type). One class raises
    :data:`ONE_CLASS_ERROR`, anything else (a continuous or multi-output
    target) :data:`TARGET_ERROR`; labels that cannot be sorted (mixed
    types, None) :data:`LABEL_TYPES_ERROR`.
    """
    from sklearn.utils.multiclass import type_of_target

    name = type(estimator).__name__
    labels = np.asarray(y)
    try:
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        classes, codes = np.unique(labels, return_inverse=True)
    except TypeError:  # e.g. strings and None, or strings and numbers
        types = sorted({type(v).__name__ for v in labels.ravel()})
        raise TypeError(LABEL_TYPES_ERROR.format(estimator=name, types=types)) from None
    if y_type == "multiclass" and classes.size > 2:
        return codes.astype(np.intp).ravel(), classes
    if y_type == "binary" and classes.size == 1:
        label = classes[:1].tolist()[0]
        raise ValueError(ONE_CLASS_ERROR.format(estimator=name, label=label))
    if y_type != "binary":
        raise ValueError(
            TARGET_ERROR.format(
                estimator=name,
                y_type=y_type,
                n_classes=classes.size,
                classes=classes[:5].tolist(),
            )
        )
    y01, classes = check_binary_y(y, estimator=estimator)
    return y01.astype(np.float64), classes


def softmax_cross_entropy(z, codes, w):
    """Weighted mean cross-entropy, the probabilities and d(loss)/d(logits).

    ``z`` of shape (n, K) are the logits, ``codes`` the index of each row's
    class and ``w`` the sample weights.
    """
    total = max(w.sum(), np.finfo(np.float64).tiny)
    rows = np.arange(z.shape[0])
    log_p = log_softmax(z, axis=1)
    loss = float(w @ -log_p[rows, codes] / total)
    proba = np.exp(log_p)
    grad = proba.copy()
    grad[rows, codes] -= 1.0
    grad *= (w / total)[:, None]
    return loss, proba, grad


def softmax_vjp(proba, grad_p):
    """d(f)/d(logits) given d(f)/d(proba), with ``proba = softmax(logits)``."""
    return proba * (grad_p - (grad_p * proba).sum(axis=1, keepdims=True))


def per_class_penalty(proba, column_penalty, class_agg):
    """A score penalty on each class's probability, aggregated over classes.

    ``column_penalty(scores)`` returns ``(value, gradient)`` for one column of
    ``proba`` (shape (n, K)). ``class_agg="max"`` keeps the class of the
    largest value (the gradient is zero on the other columns), ``"mean"``
    averages values and gradients over the ``K`` classes. Returns ``(value,
    gradient of shape (n, K))``.
    """
    n_classes = proba.shape[1]
    values, grads = zip(*(column_penalty(proba[:, k]) for k in range(n_classes)))
    if class_agg == "mean":
        return float(np.mean(values)), np.column_stack(grads) / n_classes
    worst = int(np.argmax(values))
    grad = np.zeros_like(proba)
    grad[:, worst] = grads[worst]
    return float(values[worst]), grad


def adversary_inputs(z, y, sharpness, constraints):
    """The adversary's features for ``K`` classes: ``s = softmax((1 + |c|) z)``.

    For equalised odds, also ``s`` times the one-hot label: column ``K + c·K
    + j`` holds ``s_j`` on the rows of class ``c`` (the binary adversary's
    ``s·y`` and ``s·(1 - y)``, one block per class).
    """
    s = softmax((1.0 + abs(sharpness)) * z, axis=1)
    if constraints == "demographic_parity":
        return s, s
    n, n_classes = s.shape
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), y] = 1.0
    crossed = (onehot[:, :, None] * s[:, None, :]).reshape(n, n_classes**2)
    return np.column_stack([s, crossed]), s


def adversary_loss_grad(z, y, codes, params, constraints):
    """The adversary of :func:`._adversarial.adversary_loss_grad` for ``K`` classes.

    The adversary sees the predictor's class probabilities sharpened by its
    ``c`` (and their products with the one-hot label for equalised odds) and
    predicts the group ``codes``. Returns ``(loss, d loss / d z (n, K), [d
    loss / d params])``.
    """
    coef, intercept, sharpness = params
    c = float(sharpness[0])
    A, s = adversary_inputs(z, y, c, constraints)
    logits = A @ coef + intercept
    n, n_classes = z.shape
    rows = np.arange(n)
    loss = float(-log_softmax(logits, axis=1)[rows, codes].mean())
    delta = softmax(logits, axis=1)
    delta[rows, codes] -= 1.0
    delta /= n
    d_A = delta @ coef.T
    d_s = d_A[:, :n_classes]
    if constraints == "equalized_odds":
        d_s = d_s + d_A[:, n_classes:].reshape(n, n_classes, n_classes)[rows, y]
    d_u = softmax_vjp(s, d_s)  # u = (1 + |c|) z
    grad_z = d_u * (1.0 + abs(c))
    grad_c = float((d_u * z).sum()) * np.sign(c)
    return loss, grad_z, [A.T @ delta, delta.sum(axis=0), np.array([grad_c])]
