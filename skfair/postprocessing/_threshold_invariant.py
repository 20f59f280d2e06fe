"""Post-processing to demographic parity at every threshold.

:class:`ThresholdInvariantClassifier` moves every group's score distribution
onto their common 1-D Wasserstein barycentre, so that the share of positive
decisions is the same in every group whatever threshold is used afterwards.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn import get_config
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,  # no public equivalent (parameter validation)
    clone,
)
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import check_cv, cross_val_predict
from sklearn.utils import get_tags
from sklearn.utils._param_validation import (  # no public equivalent
    HasMethods,
    Interval,
    StrOptions,
)
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import (
    assert_all_finite,
    check_is_fitted,
    check_random_state,
    column_or_1d,
    has_fit_parameter,
    indexable,
    validate_data,
)

from ..utils._dataframe import as_pandas_frame, check_not_lazy
from ..utils._estimator import SensitiveColumnsMixin, store_params
from ..utils._sensitive import (
    check_sensitive_features,
    drop_unused_categories,
    sensitive_groupings,
)
from ..utils._validation import (
    check_binary_target,
    check_binary_y,
    check_sample_weight_1d,
    check_scores,
)

UNSEEN_GROUP_ERROR = (
    "X contains {count} sample(s) of group(s) {labels} of {name!r} that were "
    "not seen during fit; the groups seen during fit are {known}. Fit on data "
    "that holds every group, or set unseen_group='pooled' (map them through "
    "the pooled score distribution) or unseen_group='identity' (leave their "
    "scores unrepaired)."
)
SAMPLE_WEIGHT_UNSUPPORTED_ERROR = (
    "sample_weight was given, but {name}.fit does not accept sample_weight; "
    "pass an estimator whose fit takes sample_weight, or fit without it."
)
FROZEN_CLASSES_ERROR = (
    "The frozen estimator was fitted on classes {fitted}, but y holds classes "
    "{given}; fit the post-processor on data with the same labels."
)


def _weighted_quantiles(values, weights, levels):
    """Quantile function of a weighted sample at ``levels``.

    Weights are frequencies: a sample of weight ``w`` holds the mass interval
    ``[a, b]`` of the cumulative weight (divided by the total ``W``). It is
    placed at the points ``a + h`` and ``b - h`` with ``h = min(w, 1) / 2W``,
    a plateau as wide as that of ``w`` repeated samples when ``w`` is an
    integer, and the single Hazen plotting position ``(i - 0.5) / n`` of the
    i-th smallest of ``n`` unit-weight samples. The quantile function
    interpolates linearly between these points and is constant below the
    first and above the last. Samples of zero weight are ignored.
    """
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    upper = np.cumsum(weights)
    total = upper[-1]
    half = 0.5 * np.minimum(weights, 1.0)
    positions = np.column_stack([upper - weights + half, upper - half]) / total
    return np.interp(levels, positions.ravel(), np.repeat(values, 2))


def _cdf_bounds(table, levels, scores):
    """Left and right limits of the CDF whose quantile function is ``table``.

    ``table`` holds the (non-decreasing) quantiles at ``levels``. Between two
    distinct table values the CDF is the linear interpolation of the levels;
    a value repeated in the table is an atom, whose CDF jumps from the first
    to the last of its levels. Below ``table[0]`` the CDF is 0, above
    ``table[-1]`` it is 1. O(n log m) for n scores and m levels.
    """
    lo = np.searchsorted(table, scores, side="left")
    hi = np.searchsorted(table, scores, side="right")
    atom = hi > lo  # the score equals table[lo:hi]
    # elsewhere strictly between two distinct table values, or outside
    value = np.interp(scores, table, levels, left=0.0, right=1.0)
    left = np.where(atom, levels[np.minimum(lo, table.shape[0] - 1)], value)
    right = np.where(atom, levels[hi - 1], value)
    return left, right


def _row_uniforms(X, seed):
    """Deterministic pseudo-random numbers in [0, 1), one per row of ``X``.

    pandas' hash of each row's values, mixed with ``seed`` by the SplitMix64
    finaliser: the same row always gets the same number, whichever other rows
    are predicted with it and in whichever order.
    """
    frame = as_pandas_frame(X)  # a dataframe of any library, or an array
    # One dtype per column whatever the other rows: a polars integer (boolean)
    # column reaches pandas as float (object) in a batch with a null, else as
    # int (bool), and the two hash differently; hash integers as floats and
    # booleans as objects.
    stable = {
        name: np.float64 if pd.api.types.is_integer_dtype(dtype) else object
        for name, dtype in frame.dtypes.items()
        if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
    }
    frame = frame.astype(stable) if stable else frame
    z = pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)
    z = z + np.full_like(z, seed) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _positive_scores(scores, response_method):
    """The positive class's (``classes_[1]``) column of ``response_method``."""
    if response_method == "predict_proba":
        scores = scores[:, 1]
    return check_scores(np.asarray(scores, dtype=np.float64).ravel(), name="scores")


def _response_method(estimator, response_method):
    """The method of ``estimator`` whose scores are repaired."""
    if response_method != "auto":
        return response_method
    return (
        "predict_proba" if hasattr(estimator, "predict_proba") else "decision_function"
    )


def _has_response(needed):
    """Build an ``available_if`` check: is ``needed`` the repaired method."""

    def check(self):
        estimator = getattr(self, "estimator_", self.estimator)
        getattr(estimator, needed)  # AttributeError if the estimator lacks it
        used = _response_method(estimator, self.response_method)
        if used != needed:
            raise AttributeError(
                f"{needed} is not available: the repaired scores come from "
                f"{used} (response_method={self.response_method!r})."
            )
        return True

    return check


class ThresholdInvariantClassifier(
    SensitiveColumnsMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Repair a binary classifier's scores to demographic parity at every threshold.

    For each group ``g`` (the intersection of the ``sensitive`` columns of
    ``X``), the classifier estimates the CDF ``F_g`` and quantile function
    ``Q_g`` of the base estimator's positive-class scores, and the barycentric
    quantile function ``Q̄ = Σ_g w_g Q_g`` (``w_g`` the group proportions), the
    1-D Wasserstein barycentre of the groups' score distributions. A score
    ``s`` of a member of ``g`` becomes

        ``(1 - repair) * s + repair * Q̄(F_g(s))``.

    With ``repair=1`` every group's repaired scores follow the same
    distribution (up to estimation error), so demographic parity holds at
    every threshold: ΔDP at any ``t``, MCDP(0) (the largest gap over all
    thresholds) and ABCC are all close to zero. Smaller values trace the
    fairness-accuracy trade-off along the Wasserstein geodesic. Within each
    group the order of the scores is preserved.

    The groups are read from ``X`` itself, so ``predict`` needs no extra
    argument and the estimator works in :class:`~sklearn.pipeline.Pipeline`,
    :func:`~sklearn.model_selection.cross_validate` and
    :class:`~sklearn.model_selection.GridSearchCV` with scikit-learn's
    built-in scorers.

    Parameters
    ----------
    estimator : estimator instance
        The binary classifier whose scores are repaired. It is cloned and
        fitted, unless it is a :class:`~sklearn.frozen.FrozenEstimator`: an
        already-fitted model is then used as is, and its scores on the data
        passed to :meth:`fit` (which should not be its training data) estimate
        ``F_g``; ``cv`` and ``calibration`` are then ignored.

    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: name(s) when ``X`` is a DataFrame,
        integer index(es) when it is an array. With several columns the groups
        are their intersection. The columns are also passed to ``estimator``;
        drop them inside a pipeline if the model should not see them. A
        numeric column with many distinct values (a continuous variable) is
        refused: bin it first.

    repair : float in [0, 1], default=1.0
        How far every score moves towards the barycentre: 0 leaves the scores
        unchanged, 1 repairs them fully. Used at predict time only, so that
        ``set_params(repair=...)`` on a fitted instance traces the
        fairness-accuracy trade-off without refitting.

    cv : int, cross-validation generator or iterable, default=5
        How the out-of-fold scores that estimate ``F_g`` are produced (with
        ``calibration="oof"``, by
        :func:`~sklearn.model_selection.cross_val_predict`): an int gives a
        :class:`~sklearn.model_selection.StratifiedKFold` on ``y``; a splitter
        or iterable must put every sample in exactly one test fold.

    threshold : "auto" or float, default="auto"
        Decision threshold on the repaired scores used by :meth:`predict`
        (``score >= threshold`` is the positive class): "auto" is 0.5 for
        probabilities and 0 for decision functions.

    response_method : {"auto", "predict_proba", "decision_function"}, \
            default="auto"
        The estimator's method that gives the scores; "auto" tries
        ``predict_proba`` then ``decision_function``. The repaired scores are
        exposed through the same method.

    calibration : {"oof", "in_sample"}, default="oof"
        Which scores estimate ``F_g``. "oof": out-of-fold scores from clones
        fitted on the ``cv`` training folds, after which a clone is refitted on
        all the data (safe for every model; costs ``cv`` extra fits).
        "in_sample": the refitted estimator's scores on its own training data
        (one fit; only for models that do not overfit, see Notes).

    n_quantiles : int, default=1000
        Number of quantile levels, evenly spaced on [0, 1], at which every
        group's quantile function is stored.

    smoothing : float, default=10.0
        Pseudo-count of the pooled score distribution mixed into every
        group's: ``F_g`` is estimated as ``(n_g F̂_g + smoothing F̂) /
        (n_g + smoothing)``, with ``n_g`` the group's (weighted) size and
        ``F̂`` the pooled empirical CDF. Steadies the maps of small groups;
        its effect on a group of ``n_g`` samples is at most
        ``smoothing / (n_g + smoothing)`` in CDF. 0 uses each group alone.

    ties : {"random", "midrank"}, default="random"
        How a score on an atom of ``F_g`` (a value shared by a positive
        fraction of the group) is placed in ``[F_g(s-), F_g(s)]``. "random":
        at a pseudo-random point drawn from a seeded hash of the sample's row
        of ``X``, which makes the repaired distributions match even for models
        with discrete scores (forests, k-NN) while keeping predictions
        deterministic per row (identical rows keep identical scores).
        "midrank": at the midpoint, so an atom stays an atom.

    unseen_group : {"error", "pooled", "identity"}, default="error"
        What :meth:`predict` does with a group absent at fit time: raise a
        ValueError, map its scores with the pooled CDF ``F̂`` onto the
        barycentre, or leave them unrepaired.

    min_group_size : int or None, default=None
        None gives every group its own map and warns (``SmallGroupWarning``)
        about groups of fewer than 30 samples. An int ``k`` leaves out the
        groups of fewer than ``k`` fit samples: they get no map of their own,
        do not weigh in the barycentre, and their scores are mapped like
        ``unseen_group="pooled"`` maps (through the pooled CDF onto the
        barycentre), whatever ``unseen_group`` says. Fewer than two groups
        left is an error.

    n_jobs : int, default=None
        Number of jobs fitting the cross-validation clones in parallel.

    random_state : int, RandomState instance or None, default=None
        Seeds the hash used by ``ties="random"``.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted base classifier used at predict time.

    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class.

    groups_ : list
        The group labels seen during fit (tuples with several sensitive
        columns), in the order of the rows of ``quantiles_``.

    left_out_groups_ : list
        The groups seen during fit but left out by ``min_group_size``.

    group_weights_ : ndarray of shape (n_groups,)
        The groups' (weighted) proportions ``w_g``.

    quantile_levels_ : ndarray of shape (n_quantiles,)
        The levels at which the quantile functions are stored.

    quantiles_ : ndarray of shape (n_groups, n_quantiles)
        Every group's (smoothed) score quantile function ``Q_g``.

    pooled_quantiles_ : ndarray of shape (n_quantiles,)
        The quantile function of all fit scores pooled.

    barycenter_ : ndarray of shape (n_quantiles,)
        The barycentric quantile function ``Q̄``.

    response_method_ : str
        The estimator's method whose scores are repaired.

    threshold_ : float
        The decision threshold used by :meth:`predict`.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when ``X`` has string
        column names.

    See Also
    --------
    sklearn.model_selection.FixedThresholdClassifier : Thresholds scores
        without changing them.
    skfair.metrics.mcdp : Maximal cumulative demographic-parity gap; MCDP(0)
        is the largest ΔDP over all thresholds.

    Notes
    -----
    **Estimation.** ``Q_g`` is the weighted empirical quantile function with
    Hazen plotting positions: the i-th smallest of ``n_g`` scores sits at
    level ``(i - 0.5) / n_g`` and levels in between are interpolated
    linearly; it is stored at ``n_quantiles`` evenly spaced levels, and
    ``F_g`` is its piecewise-linear inverse. A score repeated in the table
    is an atom, handled as ``ties`` says. Prediction evaluates ``F_g`` by a
    binary search in the group's table and ``Q̄`` by linear interpolation:
    O(n log m) for n samples and m quantile levels.

    **Which scores estimate F_g.** The map is applied at predict time to the
    refitted estimator's scores on new data, whose distribution neither the
    out-of-fold scores (other models, fitted on less data) nor the in-sample
    scores (the same model, on the data it was trained on) reproduce exactly.
    Measured on the bundled Adult data (sensitive ``sex``, stratified 70/30
    splits, 4 seeds, evaluated on half of the test split, where two
    independent samples of the same distribution differ by 0.022 in MCDP(0)
    on average), the MCDP(0) after a full repair was, for LightGBM with 200
    trees: 0.029 ± 0.004 out-of-fold, 0.017 ± 0.004 in-sample, 0.027 ± 0.006
    for a :class:`~sklearn.frozen.FrozenEstimator` fitted on 80 % of the
    training rows and repaired on the other 20 %, and 0.026 ± 0.003 for the
    refitted model repaired on fresh test rows (the ideal); for an
    overfitting LightGBM (1000 trees of 127 leaves): 0.038 ± 0.003
    out-of-fold, 0.140 ± 0.009 in-sample, 0.028 ± 0.002 frozen on held-out
    rows and 0.027 ± 0.005 ideal. In-sample scores are thus slightly better
    for a model that barely overfits and far worse for one that does, hence
    the default ``calibration="oof"``; for a strongly overfitting model a
    frozen model repaired on held-out rows is best
    (``benchmarks/bench_postprocessing.py --mismatch`` reproduces these
    figures).

    References
    ----------
    .. [1] E. Chzhen, C. Denis, M. Hebiri, L. Oneto and M. Pontil, "Fair
       regression with Wasserstein barycenters", NeurIPS 2020.
    .. [2] R. Jiang, A. Pacchiano, T. Stepleton, H. Jiang and S. Chiappa,
       "Wasserstein fair classification", UAI 2020.
    .. [3] M. Chen and M. Wu, "Towards threshold invariant fair
       classification", UAI 2020.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 10_000)
    >>> X = np.column_stack([group, rng.normal(group, 1.0)])
    >>> y = (X[:, 1] + rng.normal(0, 1, 10_000) > 0.5).astype(int)
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.postprocessing import ThresholdInvariantClassifier
    >>> clf = ThresholdInvariantClassifier(
    ...     LogisticRegression(), sensitive=0, random_state=0
    ... ).fit(X[:5000], y[:5000])
    >>> X_new, g_new = X[5000:], group[5000:]
    >>> raw = clf.estimator_.predict_proba(X_new)[:, 1]
    >>> fair = clf.predict_proba(X_new)[:, 1]
    >>> def gap(scores, t):
    ...     rates = [(scores[g_new == g] >= t).mean() for g in (0, 1)]
    ...     return abs(rates[1] - rates[0])
    >>> for t in (0.2, 0.4, 0.6, 0.8):
    ...     print(f"threshold {t}: raw gap {gap(raw, t):.2f}, "
    ...           f"repaired gap {gap(fair, t):.2f}")
    threshold 0.2: raw gap 0.28, repaired gap 0.01
    threshold 0.4: raw gap 0.35, repaired gap 0.01
    threshold 0.6: raw gap 0.36, repaired gap 0.02
    threshold 0.8: raw gap 0.29, repaired gap 0.00
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "sensitive": [str, Integral, list, tuple],
        "repair": [Interval(Real, 0, 1, closed="both")],
        "cv": ["cv_object"],
        "threshold": [StrOptions({"auto"}), Real],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
        "calibration": [StrOptions({"oof", "in_sample"})],
        "n_quantiles": [Interval(Integral, 2, None, closed="left")],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "ties": [StrOptions({"random", "midrank"})],
        "unseen_group": [StrOptions({"error", "pooled", "identity"})],
        "min_group_size": [Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        *,
        sensitive,
        repair=1.0,
        cv=5,
        threshold="auto",
        response_method="auto",
        calibration="oof",
        n_quantiles=1000,
        smoothing=10.0,
        ties="random",
        unseen_group="error",
        min_group_size=None,
        n_jobs=None,
        random_state=None,
    ):
        store_params(self, locals())

    def _groups(self, X, *, fit=False):
        """Encode the groups of ``X``: the intersection of its sensitive columns.

        At fit through :func:`~skfair.utils.sensitive_groupings` (two groups
        at least, ``min_group_size``, small-group warning). A categorical's
        unused categories are not groups: a subset of rows may miss some.
        """
        columns = drop_unused_categories(self._sensitive_columns(X))
        if not fit:
            return check_sensitive_features(columns).intersection()
        (grouping,) = sensitive_groupings(columns, min_group_size=self.min_group_size)
        left_out = columns[~grouping.kept]
        self.left_out_groups_ = (
            list(check_sensitive_features(left_out).intersection().labels)
            if len(left_out)
            else []
        )
        return grouping

    @_fit_context(
        # ThresholdInvariantClassifier.estimator is not validated yet
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base classifier and estimate every group's score distribution.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, including the ``sensitive`` column(s).

        y : array-like of shape (n_samples,)
            Binary target (any two labels).

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, passed to the estimator's ``fit`` and used in the
            groups' quantiles and proportions.

        **fit_params : dict
            Further parameters of the estimator's ``fit``. With metadata
            routing enabled, they (and ``sample_weight``) go where they are
            requested, e.g. ``groups`` to a group-aware ``cv`` splitter.

        Returns
        -------
        self : object
            The fitted post-processor.
        """
        X, y = indexable(check_not_lazy(X), y)
        # X is the estimator's to validate: here only its shape and names
        validate_data(self, X, skip_check_array=True)
        for axis, what in enumerate(("sample", "feature")):  # scikit-learn's text
            if len(np.shape(X)) > axis and np.shape(X)[axis] == 0:
                raise ValueError(
                    f"Found array with 0 {what}(s) (shape={np.shape(X)}) while a "
                    f"minimum of 1 is required by {type(self).__name__}."
                )
        y = column_or_1d(y, warn=True)
        if y.dtype.kind in "fc":
            assert_all_finite(y, input_name="y")
        _, classes = check_binary_y(y, estimator=self)
        sample_weight = check_sample_weight_1d(sample_weight, y.shape[0])
        if sample_weight is not None:  # weight 0 must not leave one class
            check_binary_target(
                y[sample_weight > 0],
                name="y (where sample_weight > 0)",
                why="ThresholdInvariantClassifier",
            )
        try:
            grouping = self._groups(X, fit=True)
        except TypeError:  # unhashable labels: let the estimator reject X first
            grouping = None
        response_method = _response_method(self.estimator, self.response_method)
        frozen = isinstance(self.estimator, FrozenEstimator)
        fit_params, split_params = self._route(sample_weight, fit_params, frozen)

        if frozen:
            check_is_fitted(self.estimator)
            self.estimator_ = self.estimator
            fitted = np.asarray(self.estimator_.classes_)
            if fitted.shape != classes.shape or not np.all(fitted == classes):
                raise ValueError(
                    FROZEN_CLASSES_ERROR.format(
                        fitted=fitted.tolist(), given=classes.tolist()
                    )
                )
        elif self.calibration == "oof":
            scores = cross_val_predict(
                clone(self.estimator),
                X,
                y,
                cv=check_cv(self.cv, y, classifier=True),
                method=response_method,
                n_jobs=self.n_jobs,
                params={**fit_params, **split_params},
            )
        if not frozen:
            self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        if frozen or self.calibration == "in_sample":
            scores = getattr(self.estimator_, response_method)(X)
        scores = _positive_scores(scores, response_method)

        self.classes_ = np.asarray(self.estimator_.classes_)
        self.response_method_ = response_method
        if self.threshold == "auto":
            self.threshold_ = 0.5 if response_method == "predict_proba" else 0.0
        else:
            self.threshold_ = float(self.threshold)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        self._hash_seed = int(seed)
        if grouping is None:  # labels were unhashable and X passed the estimator
            grouping = self._groups(X, fit=True)
        self._fit_tables(scores, grouping, sample_weight)
        return self

    def _route(self, sample_weight, fit_params, frozen):
        """The parameters of the estimator's ``fit`` and of the splitter."""
        if get_config()["enable_metadata_routing"]:
            routed = process_routing(
                self, "fit", sample_weight=sample_weight, **fit_params
            )
            return routed.estimator.fit, routed.splitter.split
        if sample_weight is None:
            return fit_params, {}
        if not frozen and not has_fit_parameter(self.estimator, "sample_weight"):
            raise TypeError(
                SAMPLE_WEIGHT_UNSUPPORTED_ERROR.format(
                    name=type(self.estimator).__name__
                )
            )
        return {**fit_params, "sample_weight": sample_weight}, {}

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
                splitter=check_cv(self.cv, classifier=True),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def _fit_tables(self, scores, grouping, sample_weight):
        """Store the groups' quantile tables and their barycentre."""
        weights = np.ones(scores.shape[0]) if sample_weight is None else sample_weight
        levels = np.linspace(0.0, 1.0, self.n_quantiles)
        pooled = _weighted_quantiles(scores, weights, levels)
        kept = grouping.kept
        sizes = np.bincount(
            grouping.codes[kept], weights=weights[kept], minlength=grouping.n_groups
        )
        present = sizes > 0  # groups whose samples all have weight 0 are dropped
        # the pooled table as pseudo-samples: one per level, `smoothing` in all
        # (with smoothing=0 their weight is 0 and _weighted_quantiles drops them)
        prior_weights = np.full(levels.shape[0], self.smoothing / levels.shape[0])
        tables = []
        for g in np.flatnonzero(present):
            mask = grouping.codes == g
            values = np.concatenate([scores[mask], pooled])
            group_weights = np.concatenate([weights[mask], prior_weights])
            tables.append(_weighted_quantiles(values, group_weights, levels))
        self.groups_ = [grouping.labels[g] for g in np.flatnonzero(present)]
        self.group_weights_ = sizes[present] / sizes[present].sum()
        self.quantile_levels_ = levels
        self.quantiles_ = np.vstack(tables)
        self.pooled_quantiles_ = pooled
        self.barycenter_ = self.group_weights_ @ self.quantiles_
        self._sensitive_name = grouping.name

    def _repaired_scores(self, X):
        check_is_fitted(self)
        # the estimator validates X first, with its own messages
        method = getattr(self.estimator_, self.response_method_)
        scores = _positive_scores(method(X), self.response_method_)
        validate_data(self, check_not_lazy(X), reset=False, skip_check_array=True)
        grouping = self._groups(X)
        pooled = len(self.groups_)  # the pooled table's index
        index = dict.fromkeys(self.left_out_groups_, pooled)
        index.update({label: k for k, label in enumerate(self.groups_)})
        fit_codes = np.array([index.get(lab, -1) for lab in grouping.labels])
        codes = fit_codes[grouping.codes]
        unseen = codes < 0
        if unseen.any() and self.unseen_group == "error":
            labels = [lab for lab, c in zip(grouping.labels, fit_codes) if c < 0]
            raise ValueError(
                UNSEEN_GROUP_ERROR.format(
                    count=int(unseen.sum()),
                    labels=labels,
                    name=self._sensitive_name,
                    known=self.groups_,
                )
            )
        if self.ties == "random":
            jitter = _row_uniforms(X, self._hash_seed)
        else:
            jitter = np.full(scores.shape[0], 0.5)
        tables = [*self.quantiles_, self.pooled_quantiles_]
        if self.unseen_group == "pooled":
            codes = np.where(unseen, pooled, codes)
        mapped = codes >= 0  # the other rows keep their scores
        levels = np.zeros_like(scores)
        for k in np.unique(codes[mapped]):
            rows = codes == k
            left, right = _cdf_bounds(tables[k], self.quantile_levels_, scores[rows])
            levels[rows] = left + jitter[rows] * (right - left)
        target = np.interp(levels, self.quantile_levels_, self.barycenter_)
        repaired = (1.0 - self.repair) * scores + self.repair * target
        return np.where(mapped, repaired, scores)

    @available_if(_has_response("predict_proba"))
    def predict_proba(self, X):
        """Repaired class probabilities.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples, including the ``sensitive`` column(s).

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Column 1 holds the repaired positive-class scores, column 0 their
            complement.
        """
        positive = self._repaired_scores(X)
        return np.column_stack([1.0 - positive, positive])

    @available_if(_has_response("decision_function"))
    def decision_function(self, X):
        """Repaired decision function (when the estimator's scores come from it).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to score, with the sensitive column(s) that pick each one's map.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            Repaired scores; larger means more likely ``classes_[1]``.
        """
        return self._repaired_scores(X)

    def predict(self, X):
        """Predict classes by thresholding the repaired scores.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to classify (with the ``sensitive`` columns).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the repaired score is at least
            ``threshold_``, else ``classes_[0]``.
        """
        scores = self._repaired_scores(X)
        return self.classes_[(scores >= self.threshold_).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        return tags
