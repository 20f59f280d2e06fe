"""The fit and predict steps shared by the barycentre post-processors.

:class:`~skfair.postprocessing.ThresholdInvariantClassifier` and
:class:`~skfair.postprocessing.ThresholdInvariantRegressor` differ in their
targets and in which method of the estimator gives the scores (a class's
probability or decision value, or a regressor's prediction). Everything
else is :class:`BarycentreRepairMixin`: the groups read from ``X``
(``_groups``), the deployed model and the scores that estimate the groups'
distributions (``_calibration``), the quantile tables, their barycentre and
the transport (``_barycentre``), and the routing of fit parameters.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import check_cv
from sklearn.utils._param_validation import (  # no public equivalent
    Interval,
    StrOptions,
)
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping
from sklearn.utils.validation import check_random_state, indexable, validate_data

from ..utils import check_sensitive_features
from ..utils._dataframe import check_not_lazy
from ..utils._estimator import SensitiveColumnsMixin
from ..utils._group_encoding import drop_unused_categories
from ._barycentre import _row_uniforms, fit_quantile_tables, transport
from ._calibration import (
    calibration_scores,
    fit_deployed,
    frozen_scores,
    route_fit_params,
)
from ._groups import fit_groups, table_indices

#: The constraints of the parameters both post-processors take.
REPAIR_PARAMETER_CONSTRAINTS = {
    "sensitive": [str, Integral, list, tuple],
    "repair": [Interval(Real, 0, 1, closed="both")],
    "cv": ["cv_object"],
    "calibration": [StrOptions({"oof", "in_sample"})],
    "n_quantiles": [Interval(Integral, 2, None, closed="left")],
    "smoothing": [Interval(Real, 0, None, closed="left")],
    "ties": [StrOptions({"random", "midrank"})],
    "unseen_group": [StrOptions({"error", "pooled", "identity"})],
    "min_group_size": [Interval(Integral, 1, None, closed="left"), None],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}

#: Docstring parts (:func:`~skfair.utils._docstrings.fill_doc`) both post-processors
#: share word for word.
REPAIR_DOCS = {
    "n_quantiles": """
        n_quantiles : int, default=1000
            Number of quantile levels, evenly spaced on [0, 1], at which every
            group's quantile function is stored.
    """,
    "n_jobs_random_state": """
        n_jobs : int, default=None
            Number of jobs fitting the cross-validation clones in parallel.

        random_state : int, RandomState instance or None, default=None
            Seeds the hash used by ``ties="random"``.
    """,
    "group_attributes": """
        groups_ : list
            The group labels seen during fit (tuples with several sensitive
            columns), in the order of the rows of ``quantiles_``.

        left_out_groups_ : list
            The groups seen during fit but left out by ``min_group_size``.

        group_weights_ : ndarray of shape (n_groups,)
            The groups' (weighted) proportions ``w_g``.

        quantile_levels_ : ndarray of shape (n_quantiles,)
            The levels at which the quantile functions are stored.
    """,
    "barycenter_": """
        barycenter_ : ndarray of shape (n_quantiles,)
            The barycentric quantile function ``Q̄``.
    """,
    "feature_attributes": """
        n_features_in_ : int
            Number of features seen during :term:`fit`.

        feature_names_in_ : ndarray of shape (`n_features_in_`,)
            Names of features seen during :term:`fit`, when ``X`` has string
            column names.
    """,
    "fit_parameters": """
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, passed to the estimator's ``fit`` and used in the
            groups' quantiles and proportions.

        **fit_params : dict
            Further parameters of the estimator's ``fit``. With metadata
            routing enabled, they (and ``sample_weight``) go where they are
            requested, e.g. ``groups`` to a group-aware ``cv`` splitter.
    """,
    "fit_returns": """
        self : object
            The fitted post-processor.
    """,
}


def check_fit_shape(estimator, X):
    """Store ``X``'s shape and names; refuse an ``X`` without rows or columns.

    ``X`` is the base estimator's to validate: only its shape and feature
    names are read here, with scikit-learn's message for an empty ``X``.
    """
    validate_data(estimator, X, skip_check_array=True)
    for axis, what in enumerate(("sample", "feature")):  # scikit-learn's text
        if len(np.shape(X)) > axis and np.shape(X)[axis] == 0:
            raise ValueError(
                f"Found array with 0 {what}(s) (shape={np.shape(X)}) while a "
                f"minimum of 1 is required by {type(estimator).__name__}."
            )


def _strata(grouping, y, classes):
    """Each row's group, and class for a classifier (None without groups yet)."""
    if grouping is None:
        return None
    if classes is None:
        return grouping.codes
    return 2 * grouping.codes + (y == classes[1])


class BarycentreRepairMixin(SensitiveColumnsMixin):
    """Groups, calibration, quantile tables and transport of the post-processors.

    The subclass validates its target (``_check_fit_target``), names the
    estimator's method whose scores are repaired (``_fit_response_method``),
    calls :meth:`_fit_repair` in ``fit`` and :meth:`_repair` on the deployed
    model's scores at predict time.
    """

    def _groups(self, X, *, fit=False):
        """Encode the groups of ``X``; at fit, store ``left_out_groups_``."""
        columns = drop_unused_categories(self._sensitive_columns(X))
        if not fit:
            return check_sensitive_features(columns).intersection()
        grouping, self.left_out_groups_ = fit_groups(
            columns, min_group_size=self.min_group_size
        )
        return grouping

    def _fit_groups_first(self, X):
        """The groups of ``X`` at fit, or None when its labels are unhashable.

        None lets the estimator reject such an ``X`` first, with its own
        message; :meth:`_fit_repair` then encodes the groups after it.
        """
        try:
            return self._groups(X, fit=True)
        except TypeError:
            return None

    def _fit_repair(self, X, y, sample_weight, fit_params):
        """Validate the fit data, fit the deployed model and the tables.

        Sets ``estimator_``, ``calibration_`` and the tables' attributes;
        returns the estimator's method whose scores were repaired. The
        groups are encoded before the estimator sees ``X``, or after it when
        their labels are unhashable (the estimator's message comes first).
        """
        X, y = indexable(check_not_lazy(X), y)
        check_fit_shape(self, X)
        y, classes, sample_weight = self._check_fit_target(X, y, sample_weight)
        grouping = self._fit_groups_first(X)
        weights = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        # checked before any fit, unless the groups wait for the estimator
        table_weights = (
            None if grouping is None else self._table_weights(y, weights, grouping)
        )
        response_method = self._fit_response_method()
        frozen = isinstance(self.estimator, FrozenEstimator)
        fit_params, split_params = route_fit_params(
            self, sample_weight=sample_weight, fit_params=fit_params, frozen=frozen
        )
        if frozen:
            self.estimator_, oof = self.estimator, None
            own = frozen_scores(
                self.estimator_, X, classes=classes, response_method=response_method
            )
        else:
            self.estimator_, oof, own = fit_deployed(
                self.estimator,
                X,
                y,
                calibration=self.calibration,
                cv=self.cv,
                response_method=response_method,
                fit_params=fit_params,
                split_params=split_params,
                n_jobs=self.n_jobs,
                classifier=is_classifier(self),
                strata=_strata(grouping, y, classes),
            )
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        self._hash_seed = int(seed)
        if grouping is None:  # labels were unhashable and X passed the estimator
            grouping = self._groups(X, fit=True)
            table_weights = self._table_weights(y, weights, grouping)
        scores, self.calibration_ = calibration_scores(oof, own, weights=weights, X=X)
        if frozen:
            self.calibration_ = "frozen"
        self._fit_tables(scores, grouping, table_weights)
        return response_method

    def _table_weights(self, y, weights, grouping):
        """The weight of every fit row in the quantile tables: its sample weight.

        A subclass whose tables hold one class's rows only gives the others 0.
        """
        return weights

    def _fit_tables(self, scores, grouping, weights):
        """Store the groups' quantile tables and their barycentre."""
        fitted = fit_quantile_tables(
            scores,
            grouping.codes,
            n_groups=grouping.n_groups,
            weights=weights,
            n_quantiles=self.n_quantiles,
            smoothing=self.smoothing,
        )
        # groups whose samples all have weight 0 get no table
        self.groups_ = [grouping.labels[g] for g in fitted.groups]
        self.group_weights_ = fitted.weights
        self.quantile_levels_ = fitted.levels
        self.quantiles_ = fitted.tables
        self.pooled_quantiles_ = fitted.pooled
        self.barycenter_ = fitted.barycentre
        self._sensitive_name = grouping.name

    def _repair(self, X, scores):
        """``(1 - repair) * s + repair * Q̄(F_g(s))`` for the scores of ``X``."""
        validate_data(self, check_not_lazy(X), reset=False, skip_check_array=True)
        table_index = table_indices(
            self._groups(X),
            groups=self.groups_,
            left_out_groups=self.left_out_groups_,
            unseen_group=self.unseen_group,
            name=self._sensitive_name,
        )
        if self.ties == "random":
            jitter = _row_uniforms(X, self._hash_seed)
        else:
            jitter = np.full(scores.shape[0], 0.5)
        target = transport(
            scores,
            table_index,
            tables=[*self.quantiles_, self.pooled_quantiles_],
            levels=self.quantile_levels_,
            barycentre=self.barycenter_,
            jitter=jitter,
        )
        return (1.0 - self.repair) * scores + self.repair * target

    def get_metadata_routing(self):
        """Route ``fit``'s metadata to the estimator's ``fit`` and the cv's ``split``.

        Returns
        -------
        routing : MetadataRouter
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
            .add(
                splitter=check_cv(self.cv, classifier=is_classifier(self)),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )
