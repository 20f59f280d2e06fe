"""What the in-processing estimators share: input, groups, penalty, predict."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    _fit_context,  # no public equivalent: parameter validation before fit
)
from sklearn.utils import check_array
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
    StrOptions,
)
from sklearn.utils.validation import check_is_fitted

from skfair.utils import (
    BinaryDecisionMixin,
    check_binary_y,
    check_sample_weight_1d,
    drop_sensitive,
    is_dataframe,
    resolve_columns,
    sensitive_groupings,
)

from ._penalties import PENALTIES, _penalty_from_codes


def score_penalty(proba, codes, penalty, weight, temperature=10.0, epsilon=0.0):
    """``(penalty, weight * d(penalty)/d(proba))`` on the rows with ``codes >= 0``.

    The penalty is 0 (and so is its gradient) when fewer than two groups are
    among those rows, e.g. a mini-batch holding one group.
    """
    grad = np.zeros_like(proba)
    kept = codes >= 0
    present, local = np.unique(codes[kept], return_inverse=True)
    if weight == 0 or present.size < 2:
        return 0.0, grad
    value, grad[kept] = _penalty_from_codes(
        proba[kept], local, present.size, penalty, temperature, epsilon
    )
    return value, weight * grad


def _converts_to_float(column):
    """Whether ``column`` (a 1-D array) converts to float64."""
    try:
        column.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


class BaseFairPenalised(BinaryDecisionMixin, ClassifierMixin, BaseEstimator):
    """Base of the binary classifiers trained with a fairness penalty.

    Subclasses implement ``_fit(features, y01, sample_weight, codes)``
    (training, with :meth:`_penalty_grad`) and ``_raw_score(features)`` (the
    log-odds of ``classes_[1]``); ``fit`` and ``decision_function`` are
    written here, ``predict_proba`` and ``predict`` in the shared mixin.

    The sensitive columns named by ``sensitive`` are read from ``X``
    (:func:`skfair.utils.select_sensitive`); they feed the model only when
    ``sensitive_as_feature`` is True, and then must be numeric. The groups go
    through :func:`skfair.utils.sensitive_groupings`, which refuses a single
    group or a continuous column and applies ``min_group_size``: None keeps
    every group and warns (:class:`skfair.utils.SmallGroupWarning`) about
    those under 30 samples; an int ``k`` leaves the groups with fewer than
    ``k`` samples out of the penalty (the model still trains on them).
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train on the log-loss plus ``fairness_weight`` times the penalty.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, including the sensitive column(s).
        y : array-like of shape (n_samples,)
            Binary target.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the log-loss; the penalty compares the
            groups' unweighted score distributions.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        source, features, y = self._validate_X(X, y, reset=True)
        y01, self.classes_ = check_binary_y(y, estimator=self)
        n_samples = features.shape[0]
        sample_weight = check_sample_weight_1d(sample_weight, n_samples)
        if sample_weight is None:
            sample_weight = np.ones(n_samples)
        # codes: the intersection of the sensitive attributes, -1 for the
        # samples of groups that min_group_size leaves out of the penalty
        (grouping,) = sensitive_groupings(
            self._sensitive_columns(source),
            n_samples=n_samples,
            against="X",
            min_group_size=self.min_group_size,
        )
        codes = np.asarray(grouping.codes, dtype=np.intp)
        self._fit(features, y01.astype(np.float64), sample_weight, codes)
        return self

    def _penalty_grad(self, proba, codes):
        """``(penalty, fairness_weight * d(penalty)/d(proba))`` on ``proba``.

        Only the samples with ``codes >= 0`` are compared; the penalty is 0
        (and so is its gradient) when fewer than two groups are among them,
        e.g. a mini-batch holding one group.
        """
        if self.penalty is None:
            return 0.0, np.zeros_like(proba)
        return score_penalty(
            proba,
            codes,
            self.penalty,
            self.fairness_weight,
            float(self.temperature),
            float(self.epsilon),
        )

    def decision_function(self, X):
        """Log-odds of the positive class ``classes_[1]``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to score, with the columns seen in fit.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``log(p / (1 - p))`` where ``p`` is the probability of
            ``classes_[1]``.
        """
        check_is_fitted(self)
        return self._raw_score(self._validate_X(X, reset=False)[1])

    _proba_of_positive = staticmethod(expit)
