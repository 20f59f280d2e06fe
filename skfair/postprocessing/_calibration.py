"""The deployed model, and the scores that estimate the groups' distributions.

The barycentric map is applied, at predict time, to the *deployed* model's
scores on new rows. Out-of-fold scores (each row scored by a clone fitted on
the other folds) stand for those scores when the clones and the deployed
model score alike; they do not in the two cases that
:func:`oof_misses_deployed` detects, where the deployed model's own scores on
its training rows are the better estimate. :func:`fit_deployed` fits the
deployed model and scores the training rows both ways;
:func:`calibration_scores` picks the scores that apply;
:func:`route_fit_params` says which fit parameters reach the model.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import clone
from sklearn.model_selection import PredefinedSplit, check_cv, cross_val_predict
from sklearn.utils.metadata_routing import process_routing
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from ._barycentre import _row_uniforms
from ._response import positive_scores

SAMPLE_WEIGHT_UNSUPPORTED_ERROR = (
    "sample_weight was given, but {name}.fit does not accept sample_weight; "
    "pass an estimator whose fit takes sample_weight, or fit without it."
)
FROZEN_CLASSES_ERROR = (
    "The frozen estimator was fitted on classes {fitted}, but y holds classes "
    "{given}; fit the post-processor on data with the same labels."
)

#: Share of the (weighted) rows that must sit on atoms for a model's scores to
#: count as discrete, and share of those whose atom must be an out-of-fold
#: value for the out-of-fold scores to reproduce them.
ATOM_SHARE = 0.5
#: How many times wider than the deployed model's scores the out-of-fold
#: scores may spread before the clones' differences are taken to swamp them.
SPREAD_RATIO = 2.0


def _weighted_std(values, weights):
    """Standard deviation of ``values`` under frequency ``weights``."""
    mean = np.average(values, weights=weights)
    return float(np.sqrt(np.average((values - mean) ** 2, weights=weights)))


def oof_misses_deployed(oof, deployed, weights, *, rows):
    """Whether out-of-fold scores fail to stand for the deployed model's scores.

    True in either case:

    * **Foreign atoms.** At least :data:`ATOM_SHARE` of the weight sits on
      atoms, deployed scores that the model gives to two different rows of
      ``X`` or more (its scores are discrete: leaves of a tree, cells of
      discrete features, a constant; copies of one row do not count, as
      they say nothing of the model), and fewer than :data:`ATOM_SHARE` of
      it on values the out-of-fold scores also take. The clones' atoms then
      lie elsewhere (a tree refitted on other rows has other leaf values),
      so no table built from them holds the deployed atoms, and the
      tie-breaking that spreads an atom over its CDF jump never applies:
      every atom would map to a single point per group. k-NN and
      random-forest scores (fractions of votes) keep their atoms across
      refits and are left to the out-of-fold scores.
    * **Swamping clones.** The out-of-fold scores spread more than
      :data:`SPREAD_RATIO` times as widely (standard deviation) as the
      deployed model's: the clones differ from one another by more than the
      deployed model's scores vary (a constant or near-constant model, whose
      level shifts from fold to fold). Such a model does not overfit either:
      overfitting spreads in-sample scores wider, not narrower.

    Both are unchanged when rows are repeated instead of weighted.

    Parameters
    ----------
    oof : ndarray of shape (n_samples,)
        Out-of-fold scores.
    deployed : ndarray of shape (n_samples,)
        The refitted model's scores on the same (its training) rows.
    weights : ndarray of shape (n_samples,)
        Frequency weights; rows of weight 0 are ignored.
    rows : ndarray of shape (n_samples,)
        An identifier of each row's values (equal for copies of a row).

    Returns
    -------
    misses : bool
    """
    keep = weights > 0
    oof, deployed, weights = oof[keep], deployed[keep], weights[keep]
    total = weights.sum()
    distinct = np.unique(np.column_stack([deployed, rows[keep]]), axis=0)[:, 0]
    values, n_rows = np.unique(distinct, return_counts=True)
    on_atoms = weights[np.isin(deployed, values[n_rows > 1])].sum() / total
    if on_atoms >= ATOM_SHARE:
        reproduced = weights[np.isin(deployed, oof)].sum() / total
        if reproduced < ATOM_SHARE:
            return True
    spread = _weighted_std(deployed, weights)
    return _weighted_std(oof, weights) > SPREAD_RATIO * spread


def route_fit_params(router, *, sample_weight, fit_params, frozen):
    """The parameters of the estimator's ``fit`` and of the splitter's ``split``.

    With metadata routing enabled, where ``router`` (the post-processor)
    routes them; otherwise all to the estimator, ``sample_weight`` included
    (refused, with :data:`SAMPLE_WEIGHT_UNSUPPORTED_ERROR`, by an unfrozen
    estimator whose ``fit`` does not take it).
    """
    if get_config()["enable_metadata_routing"]:
        routed = process_routing(
            router, "fit", sample_weight=sample_weight, **fit_params
        )
        return routed.estimator.fit, routed.splitter.split
    if sample_weight is None:
        return fit_params, {}
    estimator = router.estimator
    if not frozen and not has_fit_parameter(estimator, "sample_weight"):
        raise TypeError(
            SAMPLE_WEIGHT_UNSUPPORTED_ERROR.format(name=type(estimator).__name__)
        )
    return {**fit_params, "sample_weight": sample_weight}, {}


def frozen_scores(estimator, X, *, classes, response_method):
    """A frozen (fitted) estimator's scores on ``X``, its classes checked.

    ``classes`` is None for a regressor (nothing to check).
    """
    check_is_fitted(estimator)
    if classes is not None:
        fitted = np.asarray(estimator.classes_)
        if fitted.shape != classes.shape or not np.all(fitted == classes):
            raise ValueError(
                FROZEN_CLASSES_ERROR.format(
                    fitted=fitted.tolist(), given=classes.tolist()
                )
            )
    return positive_scores(getattr(estimator, response_method)(X), response_method)


def stratified_folds(cv, y, *, strata, classifier):
    """The splitter of the out-of-fold scores: ``cv``, or folds by stratum for an int.

    An int (or None, 5) ``k`` deals the rows of every stratum (a group, or a
    group and class) to the ``k`` folds in turn, in their order in ``X``, so
    that every fold holds every group in proportion and each clone is fitted
    on every group. Contiguous folds (:class:`~sklearn.model_selection.KFold`,
    and :class:`~sklearn.model_selection.StratifiedKFold` by class) would,
    on rows sorted by group, leave a group out of a clone's training rows,
    and its out-of-fold scores would then not stand for the deployed
    model's. Anything else (a splitter, an iterable, too few rows, or no
    ``strata``) goes through :func:`~sklearn.model_selection.check_cv`.
    """
    n_splits = 5 if cv is None else cv
    if strata is None or not isinstance(n_splits, Integral) or strata.size < n_splits:
        return check_cv(cv, y, classifier=classifier)
    test_fold = np.empty(strata.shape[0], dtype=np.intp)
    test_fold[np.argsort(strata, kind="stable")] = np.arange(strata.shape[0]) % n_splits
    return PredefinedSplit(test_fold)


def fit_deployed(
    estimator,
    X,
    y,
    *,
    calibration,
    cv,
    response_method,
    fit_params,
    split_params,
    n_jobs,
    classifier=True,
    strata=None,
):
    """Fit the deployed model; score the training rows with it and out-of-fold.

    Parameters
    ----------
    estimator : estimator instance
        The unfitted base model (cloned here).
    X, y : array-like
        The training data.
    calibration : {"oof", "in_sample"}
        "oof" also computes out-of-fold scores with ``cv``.
    cv : int, cross-validation generator or iterable
        The splitter of the out-of-fold scores.
    response_method : str
        The estimator's method whose scores are repaired.
    fit_params, split_params : dict
        Parameters of the estimator's ``fit`` and of the splitter's ``split``.
    n_jobs : int or None
        Jobs fitting the cross-validation clones.
    classifier : bool, default=True
        Whether ``cv`` is checked as a classifier's (stratified by class).
    strata : ndarray of int of shape (n_samples,) or None, default=None
        Each row's stratum (its group, and class for a classifier): an int
        ``cv`` then gives folds holding every stratum in proportion
        (:func:`stratified_folds`).

    Returns
    -------
    deployed : estimator
        ``estimator`` cloned and fitted on all of ``X``.
    oof : ndarray of shape (n_samples,) or None
        The out-of-fold scores (None with "in_sample"): the positive class's
        for a classifier, the predictions for a regressor.
    own : ndarray of shape (n_samples,)
        The deployed model's scores on ``X``.
    """
    oof = None
    if calibration == "oof":
        oof = cross_val_predict(
            clone(estimator),
            X,
            y,
            cv=stratified_folds(cv, y, strata=strata, classifier=classifier),
            method=response_method,
            n_jobs=n_jobs,
            params={**fit_params, **split_params},
        )
        oof = positive_scores(oof, response_method)
    deployed = clone(estimator).fit(X, y, **fit_params)
    own = positive_scores(getattr(deployed, response_method)(X), response_method)
    return deployed, oof, own


def calibration_scores(oof, own, *, weights, X):
    """The scores that estimate the groups' CDFs, and which they are.

    The out-of-fold scores ``oof``, unless there are none or
    :func:`oof_misses_deployed`; the deployed model's own scores ``own`` on
    its training rows ``X`` otherwise.

    Returns
    -------
    scores : ndarray of shape (n_samples,)
    used : {"oof", "in_sample"}
    """
    if oof is not None and not oof_misses_deployed(
        oof,
        own,
        weights,
        rows=_row_uniforms(X, 0),  # equal for copies of a row
    ):
        return oof, "oof"
    return own, "in_sample"
