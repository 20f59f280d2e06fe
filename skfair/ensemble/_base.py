"""What the ensemble estimators share: reading ``X``, groups and target."""

from __future__ import annotations

import contextlib
import numbers
from typing import ClassVar

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    _fit_context,  # noqa: F401 - no public equivalent; for the ensembles' fit
)

# No public equivalent (scikit-learn's parameter validation); shared with the
# ensembles, which import these from here.
from sklearn.utils._param_validation import Interval, StrOptions  # noqa: F401
from sklearn.utils.validation import check_is_fitted

from skfair.utils import sensitive_groupings
from skfair.utils._estimator import BinaryDecisionMixin
from skfair.utils._group_encoding import drop_unused_categories
from skfair.utils._sensitive_spec import resolve_columns
from skfair.utils._validation import check_binary_y

NON_FINITE_FEATURE_ERROR = (
    "Input X contains NaN or infinity in column(s) {columns} (the first at row "
    "{row}); {estimator} needs finite numbers. Impute or drop those values first."
)


def _is_numeric_column(column):
    """Whether an object column holds only real numbers (bools included)."""
    if column.dtype.kind in "biuf":
        return True
    return all(
        isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, str)
        for value in column
    )


class BaseFairEnsemble(BinaryDecisionMixin, ClassifierMixin, BaseEstimator):
    """Base of the binary ensembles that read their groups from ``X``.

    The groups go through the shared resolver (:mod:`skfair.utils`), which
    refuses continuous columns and single groups and applies
    ``min_group_size``. Subclasses build ``fit`` on :meth:`_fit_input` and
    ``decision_function`` on :meth:`_predict_features`, and map the decision
    to the probability of ``classes_[1]`` with ``_proba_of_positive``.
    """

    _parameter_constraints: ClassVar[dict] = {
        "sensitive": "no_validation",
        "min_group_size": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "sensitive_as_feature": ["boolean"],
        "random_state": ["random_state"],
    }

    def _model_input(self, X, *, reset):
        """``X`` as the validation below receives it (a hook for subclasses)."""
        return X

    def _fit_input(self, X, y):
        """Validate the training data, set ``classes_`` and ``groups_``.

        Returns the float64 features, ``y`` as 0/1 (1 for ``classes_[1]``) and
        the :class:`~skfair.utils._groups.Grouping` (a categorical's unused categories
        are no groups: a cross-validation fold may miss some).
        """
        features, y = self._validate_X(X, y, reset=True)
        y01, self.classes_ = check_binary_y(y, estimator=self)
        columns = drop_unused_categories(self._sensitive_columns(X))
        (grouping,) = sensitive_groupings(columns, min_group_size=self.min_group_size)
        self.groups_ = grouping.labels
        return features, y01, grouping

    def _predict_features(self, X):
        """Check that the estimator is fitted and validate ``X``."""
        check_is_fitted(self)
        return self._validate_X(X, reset=False)[0]

    def _validate_X(self, X, y="no_validation", *, reset):
        """Validate ``X`` (and ``y``); return the model's features and ``y``.

        Only the columns the model learns from must be numeric and finite;
        the sensitive columns may hold any labels when they are not features.
        """
        name = type(self).__name__
        X_checked, y = self._check_X_y(
            self._model_input(X, reset=reset), y, reset=reset
        )
        if reset:
            self._sensitive_positions, _ = resolve_columns(X, self.sensitive)
        positions = set(self._sensitive_positions)
        n_features = X_checked.shape[1]
        names = self._feature_names(n_features)
        keep = [k for k in range(n_features) if k not in positions]
        keep = list(range(n_features)) if self.sensitive_as_feature else keep
        if reset:
            self._feature_positions = keep
        self._check_features_left(len(keep), n_features)
        features = X_checked[:, keep]
        if features.dtype.kind not in "biuf":
            # A TypeError here means an object that is neither a number nor a
            # string (e.g. a dict): numpy's own message says so.
            with contextlib.suppress(ValueError):
                features = features.astype(np.float64)
        bad = [k for j, k in enumerate(keep) if not _is_numeric_column(features[:, j])]
        if bad:
            raise self._non_numeric_error(bad, positions, n_features)
        features = np.ascontiguousarray(features, dtype=np.float64)
        # every numeric column, sensitive ones included, must be finite
        numeric = X_checked.dtype.kind in "biuf"
        checked = list(range(n_features)) if numeric else keep
        values = X_checked.astype(np.float64, copy=False) if numeric else features
        finite = np.isfinite(values) | self._missing_allowed(values, checked)
        if not finite.all():
            rows, columns = np.nonzero(~finite)
            raise ValueError(
                NON_FINITE_FEATURE_ERROR.format(
                    columns=[str(names[checked[j]]) for j in np.unique(columns)],
                    row=int(rows[0]),
                    estimator=name,
                )
            )
        return features, y

    def _missing_allowed(self, values, positions):
        """Mask of the ``values`` (columns ``positions`` of X) that may be NaN."""
        return False
