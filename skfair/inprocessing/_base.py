"""What the in-processing estimators share: input, groups, penalty, predict.

:class:`_FairPenalisedMixin` holds what does not depend on the target (the
inputs, the groups, the penalty); :class:`BaseFairPenalised` adds the
classifiers' target and decision (binary: one log-odds; ``K > 2`` classes:
``K`` softmax logits, see ``_multiclass``), :class:`BaseFairPenalisedRegressor`
the regressors' (a standardised real target). A training backend (the MLP of
``_mlp``, the boosting of ``_boosting``) implements ``_fit`` and
``_raw_score`` once for all.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy.special import expit, softmax
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _fit_context,  # no public equivalent: parameter validation before fit
)
from sklearn.utils import check_array
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
    StrOptions,
)
from sklearn.utils.validation import check_is_fitted

from skfair.utils import drop_sensitive, sensitive_groupings
from skfair.utils._dataframe import is_dataframe
from skfair.utils._estimator import BinaryDecisionMixin, SensitiveColumnsMixin
from skfair.utils._sensitive_spec import resolve_columns
from skfair.utils._validation import check_sample_weight_1d

from ._multiclass import CLASS_AGGS, check_class_target, per_class_penalty
from ._penalties import PENALTIES, _observed_range, _penalty_on_domain

UNIT_DOMAIN = (0.0, 1.0)

#: Docstring parts (:func:`skfair.utils._docstrings.fill_doc`) of the parameters and
#: attributes that the in-processing estimators describe alike.
PENALISED_DOCS = {
    "sensitive": """
        sensitive : str, int or list of str or int
            The sensitive column(s) of ``X``: names for a DataFrame, integer
            indices for an array. Several columns are intersected.
    """,
    "classes_": """
        classes_ : ndarray of shape (n_classes,)
            The class labels (any type, sorted).
    """,
    "target_scale": """
        y_mean_ : float
            The (weighted) mean of the training target.
        y_scale_ : float
            Its (weighted) standard deviation, 1.0 for a constant target.
    """,
    "fitted_inputs": """
        n_features_in_ : int
            Number of columns of ``X`` seen in fit (sensitive ones included).
        feature_names_in_ : ndarray of shape (n_features_in_,)
            Column names, when ``X`` is a DataFrame with string column names.
    """,
}


def score_penalty(
    proba, codes, penalty, weight, temperature=10.0, epsilon=0.0, domain=UNIT_DOMAIN
):
    """``(penalty, weight * d(penalty)/d(proba))`` on the rows with ``codes >= 0``.

    The penalty is 0 (and so is its gradient) when fewer than two groups are
    among those rows, e.g. a mini-batch holding one group. ``domain`` is that
    of :func:`fairness_penalty` (None: the observed range of those rows).
    """
    grad = np.zeros_like(proba)
    kept = codes >= 0
    present, local = np.unique(codes[kept], return_inverse=True)
    if weight == 0 or present.size < 2:
        return 0.0, grad
    scores = proba[kept]
    domain = _observed_range(scores) if domain is None else domain
    value, grad[kept] = _penalty_on_domain(
        scores, local, present.size, penalty, temperature, epsilon, domain
    )
    return value, weight * grad


def _converts_to_float(column):
    """Whether ``column`` (a 1-D array) converts to float64."""
    try:
        column.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


class _FairPenalisedMixin(SensitiveColumnsMixin):
    """Inputs, groups and penalty of the estimators trained with a penalty.

    The sensitive columns named by ``sensitive`` are read from ``X``
    (:func:`skfair.utils.select_sensitive`); they feed the model only when
    ``sensitive_as_feature`` is True, and then must be numeric. The groups go
    through :func:`skfair.utils.sensitive_groupings`, which refuses a single
    group or a continuous column and applies ``min_group_size``: None keeps
    every group and warns (:class:`skfair.utils.SmallGroupWarning`) about
    those under 30 samples; an int ``k`` leaves the groups with fewer than
    ``k`` samples out of the penalty (the model still trains on them).

    Subclasses set ``_penalty_domain`` (the domain of the penalised scores:
    [0, 1] for probabilities, None for the observed range of real-valued
    predictions) and implement ``_check_target(y)``, the training target.
    """

    _parameter_constraints: ClassVar[dict] = {
        "sensitive": "no_validation",
        "penalty": [StrOptions(set(PENALTIES)), None],
        "fairness_weight": [Interval(Real, 0, None, closed="left")],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "min_group_size": [Interval(Integral, 1, None, closed="left"), None],
        "sensitive_as_feature": ["boolean"],
        "random_state": ["random_state"],
    }
    _penalty_domain = UNIT_DOMAIN

    def _validate_X(self, X, y="no_validation", *, reset):
        """Validate ``X`` (and ``y``); return ``(source, features, y)``.

        ``source`` is ``X`` as a DataFrame or array (where the sensitive
        columns are read), ``features`` the model's float64 inputs.
        ``y="no_validation"`` (predict) skips the target.
        """
        X_arr, y = self._check_X_y(X, y, reset=reset)
        if X_arr.dtype.kind in "biufc":
            # numeric X: NaN/inf anywhere (sensitive columns too) is an error
            X_arr = check_array(X_arr, dtype=None)
        source = X if is_dataframe(X) else X_arr
        model_X = (
            source
            if self.sensitive_as_feature
            else drop_sensitive(source, self.sensitive)
        )
        self._check_features_left(model_X.shape[1], X_arr.shape[1])
        if X_arr.dtype.kind not in "biufc":  # e.g. a string column
            self._check_numeric_features(X, X_arr)
        return source, check_array(model_X, dtype=np.float64), y

    def _check_numeric_features(self, X, X_arr):
        """Name the model's input columns that are no numbers (and why).

        A column counts as numeric when it converts to float64, as
        ``check_array`` does; a sensitive column is an input only with
        ``sensitive_as_feature=True``.
        """
        sensitive, _ = resolve_columns(X, self.sensitive)
        n_features = X_arr.shape[1]
        inputs = [
            k
            for k in range(n_features)
            if self.sensitive_as_feature or k not in sensitive
        ]
        bad = [k for k in inputs if not _converts_to_float(X_arr[:, k])]
        if bad:
            raise self._non_numeric_error(bad, sensitive, n_features)

    def _fit_inputs(self, X, y, sample_weight):
        """``(features, target, sample_weight, codes)`` of a ``fit`` call.

        ``target`` is ``_check_target(y)``; ``codes`` are the groups of the
        intersection of the sensitive attributes, -1 for the samples of
        groups that ``min_group_size`` leaves out of the penalty.
        """
        source, features, y = self._validate_X(X, y, reset=True)
        target = self._check_target(y)
        n_samples = features.shape[0]
        sample_weight = check_sample_weight_1d(sample_weight, n_samples)
        if sample_weight is None:
            sample_weight = np.ones(n_samples)
        (grouping,) = sensitive_groupings(
            self._sensitive_columns(source),
            n_samples=n_samples,
            against="X",
            min_group_size=self.min_group_size,
        )
        codes = np.asarray(grouping.codes, dtype=np.intp)
        return features, target, sample_weight, codes

    def _penalty_grad(self, scores, codes):
        """``(penalty, weight * d(penalty)/d(scores))`` on ``scores``.

        ``weight`` is :meth:`_training_weight`, ``fairness_weight`` unless a
        search for ``fairness_target`` sets another.

        Only the samples with ``codes >= 0`` are compared; the penalty is 0
        (and so is its gradient) when fewer than two groups are among them,
        e.g. a mini-batch holding one group.
        """
        if self.penalty is None:
            return 0.0, np.zeros_like(scores)
        return score_penalty(
            scores,
            codes,
            self.penalty,
            self._training_weight(),
            float(self.temperature),
            self._penalty_epsilon(),
            self._penalty_domain,
        )

    def _penalty_epsilon(self):
        """ε on the scale of the penalised scores."""
        return float(self.epsilon)

    def _training_weight(self):
        """The weight of the penalty in the fit under way."""
        return float(self.fairness_weight)


class BaseFairPenalised(
    _FairPenalisedMixin, BinaryDecisionMixin, ClassifierMixin, BaseEstimator
):
    """Base of the classifiers trained with a fairness penalty.

    Subclasses implement ``_fit(features, target, sample_weight, codes)``
    (training, with :meth:`_penalty_grad` on the probabilities) and
    ``_raw_score(features)``. With a binary target, ``target`` holds the 0/1
    floats of ``classes_[1]`` and ``_raw_score`` returns its log-odds, shape
    (n_samples,); with ``K > 2`` classes, ``target`` holds the class indices
    and ``_raw_score`` the ``K`` softmax logits, shape (n_samples, K).
    ``fit``, ``decision_function``, ``predict_proba`` and ``predict`` are
    written here (the binary ones in the shared mixin). Subclasses with a
    score penalty add the ``class_agg`` parameter (``_class_agg_constraint``).
    Inputs and groups: see :class:`_FairPenalisedMixin`.
    """

    _class_agg_constraint: ClassVar[dict] = {"class_agg": [StrOptions(set(CLASS_AGGS))]}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train on the log-loss plus ``fairness_weight`` times the penalty.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, including the sensitive column(s).
        y : array-like of shape (n_samples,)
            Class labels (two classes or more; any label type).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the log-loss; the penalty compares the
            groups' unweighted score distributions.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        features, target, sample_weight, codes = self._fit_inputs(X, y, sample_weight)
        self._fit(features, target, sample_weight, codes)
        return self

    def _check_target(self, y):
        """0/1 floats (binary) or class indices (multiclass); sets ``classes_``."""
        target, self.classes_ = check_class_target(y, estimator=self)
        return target

    def _penalty_grad(self, scores, codes):
        """The penalty and its weighted gradient; per class for ``K`` columns.

        With a 2-D ``scores`` (the ``K`` class probabilities), each column is
        penalised as a binary classifier's probability is and the classes are
        aggregated by ``class_agg`` (:func:`._multiclass.per_class_penalty`).
        """
        if scores.ndim == 1:
            return super()._penalty_grad(scores, codes)
        return per_class_penalty(
            scores,
            lambda column: _FairPenalisedMixin._penalty_grad(self, column, codes),
            self.class_agg,
        )

    def decision_function(self, X):
        """Log-odds of ``classes_[1]`` (binary), or the ``K`` logits.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to score, with the columns seen in fit.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: ``log(p / (1 - p))`` where ``p`` is the probability of
            ``classes_[1]``. More classes: the logits whose softmax is
            :meth:`predict_proba`, in the order of ``classes_``.
        """
        check_is_fitted(self)
        return self._raw_score(self._validate_X(X, reset=False)[1])

    def predict_proba(self, X):
        """Class probabilities, in the order of ``classes_``.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Binary: the sigmoid of :meth:`decision_function` and its
            complement; more classes: its softmax. Rows sum to 1.
        """
        check_is_fitted(self)
        if len(self.classes_) == 2:
            return super().predict_proba(X)
        return softmax(self.decision_function(X), axis=1)

    def predict(self, X):
        """Predicted labels: the class of the largest probability.

        Binary: ``classes_[1]`` where the decision is positive (a decision of
        exactly 0 predicts ``classes_[0]``, as in scikit-learn); more classes:
        the argmax of :meth:`decision_function` (the first on ties).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Samples to classify (any labels in the sensitive columns).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        if len(self.classes_) == 2:
            return super().predict(X)
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]

    _proba_of_positive = staticmethod(expit)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


NON_NUMERIC_TARGET_ERROR = (
    "{estimator} is a regressor: y must hold numbers; got values of dtype "
    "{dtype} such as {example!r}. Encode the target as numbers, or use a "
    "classifier for class labels."
)
NON_FINITE_TARGET_ERROR = (
    "{estimator}: y contains {count} NaN or infinite value(s), the first at "
    "position {first}; a regression target must be finite. Drop or impute "
    "those samples."
)


def _target_scale(y, weight):
    """The weighted mean and standard deviation of ``y``; ``(c, 1.0)`` if constant.

    A target that is ``c`` on every sample of positive weight is recognised
    as such: its weighted moments would carry rounding noise (a standard
    deviation of 9e-16 for 7.0 under uneven weights), which would then
    scale the problem by 1e15. Nothing to scale: the model learns 0.
    """
    weighted = y[weight > 0]
    if weighted.min() == weighted.max():
        return float(weighted[0]), 1.0
    mean = float(np.average(y, weights=weight))
    std = float(np.sqrt(np.average((y - mean) ** 2, weights=weight)))
    return mean, std if std > 0 else 1.0


class BaseFairPenalisedRegressor(_FairPenalisedMixin, RegressorMixin, BaseEstimator):
    """Base of the regressors trained with a fairness penalty.

    The target is standardised with its (weighted) mean ``y_mean_`` and
    standard deviation ``y_scale_``: the model is trained on ``(y -
    y_mean_) / y_scale_`` and ``predict`` maps back to the target's units,
    so the loss, the penalty and ``fairness_weight`` mean the same for any
    target scale. The penalty compares the groups' distributions of the
    standardised predictions over their observed range (``domain=None`` of
    :func:`fairness_penalty`); ``epsilon`` is given in the target's units.

    Subclasses implement ``_fit(features, target, sample_weight, codes)``
    (training on the standardised target, with :meth:`_penalty_grad` on the
    standardised predictions) and ``_raw_score(features)`` (the standardised
    prediction). Inputs and groups: see :class:`_FairPenalisedMixin`.
    """

    _penalty_domain = None

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train on the squared error plus ``fairness_weight`` times the penalty.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, including the sensitive column(s).
        y : array-like of shape (n_samples,)
            Real-valued target.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the squared error and in the target's
            mean and standard deviation; the penalty compares the groups'
            unweighted prediction distributions.

        Returns
        -------
        self : object
            The fitted regressor.
        """
        features, y, sample_weight, codes = self._fit_inputs(X, y, sample_weight)
        self.y_mean_, self.y_scale_ = _target_scale(y, sample_weight)
        self._fit(features, (y - self.y_mean_) / self.y_scale_, sample_weight, codes)
        return self

    def _check_X_y(self, X, y, *, reset):
        # the target's own errors first, before scikit-learn's generic ones
        if y is not None and not (isinstance(y, str) and y == "no_validation"):
            if np.asarray(y).dtype.kind != "c":  # complex: scikit-learn's error
                self._check_target(y)
        return super()._check_X_y(X, y, reset=reset)

    def _check_target(self, y):
        """The target as finite float64 values, with errors that say why."""
        y = np.asarray(y)
        if y.dtype.kind == "O":  # None, pd.NA, NaT: missing, not non-numeric
            y = np.where(pd.isna(y), np.nan, y)
        try:
            if y.dtype.kind in "cmMSU":  # complex, dates, bytes, strings
                raise TypeError
            values = y.astype(np.float64)
        except (TypeError, ValueError):
            flat = y.ravel()
            example = next(
                (v for v in flat if not _converts_to_float(np.asarray([v]))), flat[0]
            )
            raise ValueError(
                NON_NUMERIC_TARGET_ERROR.format(
                    estimator=type(self).__name__, dtype=y.dtype, example=example
                )
            ) from None
        bad = ~np.isfinite(values.ravel())
        if bad.any():
            raise ValueError(
                NON_FINITE_TARGET_ERROR.format(
                    estimator=type(self).__name__,
                    count=int(bad.sum()),
                    first=int(np.argmax(bad)),
                )
            )
        return values

    def _penalty_epsilon(self):
        """ε in the standardised predictions' units (given in the target's)."""
        return float(self.epsilon) / self.y_scale_

    def predict(self, X):
        """Predicted values, in the target's units.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples, with the columns seen in fit (any labels in the
            sensitive columns).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``y_mean_ + y_scale_ * f(X)`` with ``f`` the model trained on
            the standardised target.
        """
        check_is_fitted(self)
        features = self._validate_X(X, reset=False)[1]
        return self.y_mean_ + self.y_scale_ * self._raw_score(features)
