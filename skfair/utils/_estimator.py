"""Shared pieces of skfair's estimators (ensemble, in-processing, post-processing)."""

from __future__ import annotations

import numpy as np

from ._dataframe import check_not_lazy, numpy_columns
from ._sensitive_spec import select_sensitive

NON_NUMERIC_FEATURE_ERROR = (
    "{estimator} needs numeric features, but column(s) {columns} of X are not "
    "numeric. Encode them first (e.g. a OneHotEncoder in a Pipeline, or "
    "skfair.datasets' HFM encoder){hint}."
)
NON_NUMERIC_SENSITIVE_HINT = (
    ", or set sensitive_as_feature=False so that the sensitive column(s) are "
    "used only to define the groups"
)
NO_FEATURES_ERROR = (
    "{estimator}: X has {n_features} feature(s), all of them sensitive "
    "({names}); with sensitive_as_feature=False no feature is left to learn "
    "from. Add non-sensitive features or set sensitive_as_feature=True."
)


class SensitiveColumnsMixin:
    """For estimators that read their groups from the ``sensitive`` columns of X.

    Also the checks of ``X`` that do not depend on the target (the binary
    classifiers of :class:`BinaryDecisionMixin` and the in-processing
    regressors use them alike).
    """

    def _sensitive_columns(self, X):
        """The sensitive columns of ``X`` as a DataFrame (a hook for tests)."""
        return select_sensitive(X, self.sensitive)

    def _check_X_y(self, X, y, *, reset):
        """``validate_data`` of ``X`` (and ``y``) keeping any dtype and NaN.

        Returns ``(X, y)``; ``y="no_validation"`` (predict) gives ``y=None``.
        """
        from sklearn.utils.validation import validate_data  # skfair.utils is light

        X = numpy_columns(check_not_lazy(X))  # Arrow strings: see numpy_columns
        kwargs = {"reset": reset, "dtype": None, "ensure_all_finite": False}
        if isinstance(y, str) and y == "no_validation":
            return validate_data(self, X, **kwargs), None
        return validate_data(self, X, y, **kwargs)

    def _check_features_left(self, n_left, n_features):
        """Raise :data:`NO_FEATURES_ERROR` when the model has no column left."""
        if n_left == 0:
            names = self._feature_names(n_features)
            raise ValueError(
                NO_FEATURES_ERROR.format(
                    estimator=type(self).__name__,
                    n_features=n_features,
                    names=[str(name) for name in names],
                )
            )

    def _feature_names(self, n_features):
        """The names of X's columns: ``feature_names_in_``, else ``x<k>``."""
        names = getattr(self, "feature_names_in_", None)
        return [f"x{k}" for k in range(n_features)] if names is None else names

    def _non_numeric_error(self, bad, sensitive, n_features):
        """:data:`NON_NUMERIC_FEATURE_ERROR` for the columns at positions ``bad``.

        ``sensitive`` holds the sensitive columns' positions: when one of them
        is among ``bad``, the message says that it need not be a feature.
        """
        names = self._feature_names(n_features)
        hint = NON_NUMERIC_SENSITIVE_HINT if set(sensitive).intersection(bad) else ""
        return ValueError(
            NON_NUMERIC_FEATURE_ERROR.format(
                estimator=type(self).__name__,
                columns=[str(names[k]) for k in bad],
                hint=hint,
            )
        )


class BinaryDecisionMixin(SensitiveColumnsMixin):
    """``predict_proba`` and ``predict`` of the binary classifiers.

    Subclasses define ``decision_function`` and ``_proba_of_positive``, a
    monotone map of the decision to the probability of ``classes_[1]`` that
    takes 0 to 0.5.
    """

    def predict_proba(self, X):
        """Class probabilities, a monotone map of :meth:`decision_function`.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Probabilities of ``classes_[0]`` and ``classes_[1]``.
        """
        positive = self._proba_of_positive(self.decision_function(X))
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X):
        """Predicted labels: ``classes_[1]`` where the decision is positive.

        A decision of exactly 0 (a probability of 0.5) predicts ``classes_[0]``,
        as in scikit-learn: ``predict`` agrees with the sign of
        :meth:`decision_function` and the argmax of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Samples to classify (any labels in the sensitive columns).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        decision = self.decision_function(X)  # checks that it is fitted
        return self.classes_[(decision > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
