"""Post-processing of a regressor to demographic parity of its predictions.

:class:`ThresholdInvariantRegressor` moves every group's distribution of
predictions onto their common 1-D Wasserstein barycentre (Chzhen et al.,
2020), with the engine of :class:`ThresholdInvariantClassifier`: the share
of predictions above any value is then the same in every group.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import (
    BaseEstimator,
    MetaEstimatorMixin,
    RegressorMixin,
    _fit_context,  # no public equivalent (parameter validation)
)
from sklearn.utils import check_array, get_tags
from sklearn.utils._param_validation import HasMethods  # no public equivalent
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
)

from ..utils._docstrings import fill_doc
from ..utils._sensitive_spec import columns_at, resolve_columns
from ..utils._validation import check_sample_weight_1d, check_scores
from ._repair import REPAIR_DOCS, REPAIR_PARAMETER_CONSTRAINTS, BarycentreRepairMixin


@fill_doc(REPAIR_DOCS)
class ThresholdInvariantRegressor(
    BarycentreRepairMixin, RegressorMixin, MetaEstimatorMixin, BaseEstimator
):
    """Repair a regressor's predictions to demographic parity at every threshold.

    The Wasserstein-barycentre post-processing of Chzhen et al. [1]_. For each
    group ``g`` (the intersection of the ``sensitive`` columns of ``X``), the
    regressor estimates the CDF ``F_g`` and quantile function ``Q_g`` of the
    base estimator's predictions, and the barycentric quantile function
    ``Q̄ = Σ_g w_g Q_g`` (``w_g`` the group proportions): the 1-D Wasserstein
    barycentre of the groups' distributions of predictions, the fair
    predictor closest to the base one in mean squared error [1]_. A
    prediction ``f`` of a member of ``g`` becomes

        ``(1 - repair) * f + repair * Q̄(F_g(f))``.

    With ``repair=1`` every group's repaired predictions follow the same
    distribution (up to estimation error): demographic parity holds for the
    decision ``prediction >= t`` at every ``t``, the Kolmogorov-Smirnov
    distance between groups (MCDP(0)) and their Wasserstein distance (ABCC)
    are close to zero. Smaller values move each prediction part of the way,
    along the Wasserstein geodesic; the unfairness then shrinks with
    ``1 - repair`` [1]_. Within each group the order of the predictions is
    preserved.

    It shares its engine with
    :class:`~skfair.postprocessing.ThresholdInvariantClassifier`: the same
    groups, calibration, quantile tables and tie-breaking, applied to the
    estimator's ``predict`` instead of a class's score.

    Parameters
    ----------
    estimator : estimator instance
        The regressor whose predictions are repaired. It is cloned and fitted
        on all the data given to :meth:`fit`, unless it is a
        :class:`~sklearn.frozen.FrozenEstimator`: an already-fitted model is
        then used as is, and its predictions on the data passed to
        :meth:`fit` (which should not be its training data) estimate
        ``F_g``; ``cv`` and ``calibration`` are then ignored.

    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: name(s) when ``X`` is a DataFrame,
        integer index(es) when it is an array or a sparse matrix. With
        several columns the groups are their intersection. The columns are
        also passed to ``estimator``; drop them inside a pipeline if the model
        should not see them. A numeric column with many distinct values (a
        continuous variable) is refused: bin it first.

    repair : float in [0, 1], default=1.0
        How far every prediction moves towards the barycentre: 0 returns the
        base predictions exactly, 1 repairs them fully. Used at predict time
        only, so ``set_params(repair=...)`` on a fitted instance traces the
        fairness-accuracy trade-off without refitting.

    cv : int, cross-validation generator or iterable, default=5
        How the out-of-fold predictions that estimate ``F_g`` are produced
        (with ``calibration="oof"``, by
        :func:`~sklearn.model_selection.cross_val_predict`): an int ``k``
        deals the rows of every group to ``k`` folds in turn, so that each
        clone is fitted on every group (contiguous folds would leave a group
        out on rows sorted by group); a splitter or iterable must put every
        sample in exactly one test fold.

    calibration : {"oof", "in_sample"}, default="oof"
        Which predictions estimate ``F_g``. "oof": out-of-fold predictions of
        clones fitted on the ``cv`` training folds (``cv`` extra fits),
        unless they cannot stand for the refitted model's (discrete
        predictions whose values the clones do not share, such as a single
        tree's leaves, or clones that differ more than the predictions vary),
        when the refitted model's own predictions are used; ``calibration_``
        says which. "in_sample": always the refitted model's predictions on
        its own training data (one fit; only for models that do not overfit).

    <n_quantiles>

    smoothing : float, default=10.0
        Pseudo-count of the pooled distribution of predictions mixed into
        every group's: ``F_g`` is estimated as ``(n_g F̂_g + smoothing F̂) /
        (n_g + smoothing)``, with ``n_g`` the group's (weighted) size and
        ``F̂`` the pooled empirical CDF. Steadies the maps of small groups.
        0 uses each group alone.

    ties : {"random", "midrank"}, default="random"
        How a prediction on an atom of ``F_g`` (a value shared by a positive
        fraction of the group) is placed in ``[F_g(f-), F_g(f)]``. "random":
        at a pseudo-random point drawn from a seeded hash of the sample's row
        of ``X``, so that models with discrete predictions (trees, k-NN) are
        repaired too while predictions stay deterministic per row. "midrank":
        at the midpoint, so an atom stays an atom. See Notes for the relation
        to the jitter of [1]_.

    unseen_group : {"error", "pooled", "identity"}, default="error"
        What :meth:`predict` does with a group absent at fit time: raise a
        ValueError, map its predictions with the pooled CDF ``F̂`` onto the
        barycentre, or leave them unrepaired.

    min_group_size : int or None, default=None
        None gives every group its own map and warns (``SmallGroupWarning``)
        about groups of fewer than 30 samples. An int ``k`` leaves out the
        groups of fewer than ``k`` fit samples: they get no map of their own,
        do not weigh in the barycentre, and their predictions are mapped
        through the pooled CDF onto the barycentre. Fewer than two groups
        left is an error.

    <n_jobs_random_state>

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted base regressor used at predict time.

    <group_attributes>

    quantiles_ : ndarray of shape (n_groups, n_quantiles)
        Every group's (smoothed) quantile function ``Q_g`` of the
        predictions, in the target's units.

    pooled_quantiles_ : ndarray of shape (n_quantiles,)
        The quantile function of all fit predictions pooled.

    <barycenter_>

    calibration_ : {"oof", "in_sample", "frozen"}
        Which predictions estimated ``F_g``: out-of-fold, the refitted
        model's own on its training data, or the frozen estimator's on the
        data passed to :meth:`fit`.

    <feature_attributes>

    See Also
    --------
    ThresholdInvariantClassifier : The same repair of a binary classifier's
        scores.
    skfair.metrics.mcdp : MCDP(0) is the largest gap between the groups'
        CDFs of the predictions (the Kolmogorov-Smirnov distance).

    Notes
    -----
    **The method.** Chzhen et al. [1]_ show that the predictor satisfying
    demographic parity that is closest in mean squared error to the Bayes
    regressor ``f*`` maps ``f*(x)`` of a member of ``g`` to
    ``Q̄(F_g(f*(x)))``; its excess risk over ``f*`` is the barycentre's
    Wasserstein cost ``Σ_g w_g W_2²(law_g, barycentre)``. Their Algorithm 1
    plugs in any regressor's predictions, estimates ``F_g`` on unlabelled
    data and ``Q_g`` on another split. Here both come from the out-of-fold
    predictions of the training rows (cross-fitting: every row is used, none
    is scored by a model that saw it), or from a frozen model's predictions
    on held-out rows, stored as quantile tables at ``n_quantiles`` levels.
    Fitting sorts each group once: O(N log N). Prediction is a binary search
    in the group's table and a linear interpolation in ``Q̄``: O(log m) per
    row for m quantile levels. ``repair`` in between interpolates the
    prediction and its repaired value, the geodesic of [1]_'s relaxation
    (their Section 5).

    **Ties.** Algorithm 1 adds a small uniform noise ``U(-σ, σ)`` to every
    prediction so that the predictions' distributions are continuous. This
    estimator does not change the predictions: a prediction on an atom of
    ``F_g`` (a value that a positive fraction of the group shares) is placed
    uniformly at random inside the CDF's jump, ``ties="random"``. That is the
    limit of the noise as ``σ`` goes to zero, needs no ``σ`` in the target's
    units, and, drawn from a hash of the row, is deterministic per row.
    Continuous predictions (a linear model, boosting) have no atoms and are
    not affected.

    **Extremes.** A prediction beyond the range of its group's table is
    mapped to the barycentre's extreme (``F_g`` is 0 below the table and 1
    above it): the repaired predictions stay within the range of the
    barycentre estimated at fit.

    References
    ----------
    .. [1] E. Chzhen, C. Denis, M. Hebiri, L. Oneto and M. Pontil, "Fair
       regression with Wasserstein barycenters", NeurIPS 2020.
    .. [2] T. Le Gouic, J.-M. Loubes and P. Rigollet, "Projection to
       fairness in statistical learning", arXiv:2005.11720, 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skfair.metrics import mcdp
    >>> from skfair.postprocessing import ThresholdInvariantRegressor
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 20_000)
    >>> x = rng.normal(2.0 * group, 1.0)
    >>> X = np.column_stack([group, x, rng.normal(size=20_000)])
    >>> y = 10.0 + 3.0 * x + rng.normal(0, 2.0, 20_000)
    >>> reg = ThresholdInvariantRegressor(
    ...     LinearRegression(), sensitive=0, random_state=0
    ... ).fit(X[:10_000], y[:10_000])
    >>> X_new, y_new, g_new = X[10_000:], y[10_000:], group[10_000:]
    >>> raw = reg.estimator_.predict(X_new)
    >>> fair = reg.predict(X_new)
    >>> for name, pred in (("raw", raw), ("repaired", fair)):
    ...     ks = mcdp(y_new, pred, sensitive_features=g_new)
    ...     rmse = np.sqrt(np.mean((y_new - pred) ** 2))
    ...     print(f"{name}: KS between groups {ks:.2f}, RMSE {rmse:.2f}")
    raw: KS between groups 0.69, RMSE 1.99
    repaired: KS between groups 0.03, RMSE 3.56

    The groups' mean predictions differ by 6, so each moves by 3 to the
    barycentre: the repaired RMSE is close to ``sqrt(2² + 3²) = 3.6``, the
    noise plus the Wasserstein cost of fairness [1]_.
    """

    _parameter_constraints: ClassVar[dict] = {
        **REPAIR_PARAMETER_CONSTRAINTS,
        "estimator": [HasMethods(["fit", "predict"])],
    }

    def __init__(
        self,
        estimator,
        *,
        sensitive,
        repair=1.0,
        cv=5,
        calibration="oof",
        n_quantiles=1000,
        smoothing=10.0,
        ties="random",
        unseen_group="error",
        min_group_size=None,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.sensitive = sensitive
        self.repair = repair
        self.cv = cv
        self.calibration = calibration
        self.n_quantiles = n_quantiles
        self.smoothing = smoothing
        self.ties = ties
        self.unseen_group = unseen_group
        self.min_group_size = min_group_size
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _sensitive_columns(self, X):
        """The sensitive columns of ``X``; of a sparse matrix, densified alone."""
        if not sparse.issparse(X):
            return super()._sensitive_columns(X)
        shape = np.empty((0, X.shape[1]))  # the resolver's rules on X's shape
        positions, names = resolve_columns(shape, self.sensitive)
        dense = sparse.csc_array(X)[:, positions].toarray()
        return columns_at(dense, range(len(positions)), names)

    @_fit_context(
        # ThresholdInvariantRegressor.estimator is not validated yet
        prefer_skip_nested_validation=False
    )
    @fill_doc(REPAIR_DOCS)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base regressor and estimate every group's distribution.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, \
                n_features)
            Training data, including the ``sensitive`` column(s).

        y : array-like of shape (n_samples,)
            Real-valued target.

        <fit_parameters>

        Returns
        -------
        <fit_returns>
        """
        self._fit_repair(X, y, sample_weight, fit_params)
        return self

    def _check_fit_target(self, X, y, sample_weight):
        """Validate ``y`` and ``sample_weight`` at fit: ``(y, None, sample_weight)``."""
        y = column_or_1d(y, warn=True)
        y = check_array(y, ensure_2d=False, dtype="numeric", input_name="y")
        check_consistent_length(X, y)
        return y, None, check_sample_weight_1d(sample_weight, y.shape[0])

    def _fit_response_method(self):
        """The estimator's method whose scores are repaired."""
        return "predict"

    # listed among this class's own methods (API docs)
    get_metadata_routing = BarycentreRepairMixin.get_metadata_routing

    def predict(self, X):
        """Repaired predictions.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, \
                n_features)
            Samples, including the ``sensitive`` column(s).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``(1 - repair) * f + repair * Q̄(F_g(f))`` for the base
            prediction ``f`` of each sample of group ``g``.
        """
        check_is_fitted(self)
        # the estimator validates X first, with its own messages
        predictions = np.asarray(self.estimator_.predict(X), dtype=np.float64)
        predictions = check_scores(predictions.ravel(), name="the predictions")
        return self._repair(X, predictions)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        estimator_tags = get_tags(self.estimator)
        tags.input_tags.sparse = estimator_tags.input_tags.sparse
        tags.input_tags.allow_nan = estimator_tags.input_tags.allow_nan
        return tags
