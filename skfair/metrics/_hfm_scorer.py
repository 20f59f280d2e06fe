"""The HFM scorer: a classifier's hard predictions and the features of ``X``.

Built on the scorer machinery of ``_scorer`` (:class:`_FairnessScorer`); HFM
scores hard labels of two classes, so a regressor is refused.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..utils import drop_sensitive
from ..utils._dataframe import is_dataframe, non_numeric_columns, numeric_array
from ._hfm import hfm
from ._scorer import _FairnessScorer, scorer_factory

HFM_KIND_ERROR = "kind must be 'avg', 'max' or 'prev'; got {kind!r}."
HFM_REGRESSOR_ERROR = (
    "make_hfm_scorer scores a classifier's hard predictions (HFM compares "
    "two classes); {estimator} is a regressor. Score a regressor's "
    "predictions with make_mcdp_scorer, make_abcc_scorer, make_abpc_scorer "
    "or make_delta_dp_scorer."
)
HFM_MULTICLASS_ERROR = (
    "make_hfm_scorer scores hard predictions of two classes (HFM compares a "
    "sample's prediction with its neighbours' across groups, for one "
    "positive class); {estimator} has {n_classes} classes {classes}. Pass "
    "pos_label=<class> to score that class against the rest, or score all "
    "classes with make_mcdp_scorer (class probabilities) or "
    "make_rate_scorer('multiclass_selection_rate_difference')."
)
HFM_FEATURES_ERROR = (
    "make_hfm_scorer: the non-sensitive features of X must be numeric for "
    "HFM's distances; got non-numeric column(s) {columns}. Pass transform= "
    "(e.g. a fitted encoder, or a callable) to encode them."
)


class _HFMScorer(_FairnessScorer):
    """Scorer for HFM: hard predictions and the non-sensitive features of X."""

    _OWN = _FairnessScorer._OWN + ("kind", "transform")
    _multiclass = False  # HFM is defined for one positive class

    def __init__(self, factory, metric, params):
        if params["kind"] not in ("avg", "max", "prev"):
            raise ValueError(HFM_KIND_ERROR.format(kind=params["kind"]))
        super().__init__(factory, metric, params)

    def _probe_args(self, y):
        return np.arange(12.0).reshape(6, 2), y, y[::-1]

    def _response(self, estimator, X):
        if is_regressor(estimator):
            raise TypeError(
                HFM_REGRESSOR_ERROR.format(estimator=type(estimator).__name__)
            )
        classes = getattr(estimator, "classes_", ())
        if self._params["pos_label"] is None and len(classes) > 2:
            raise ValueError(
                HFM_MULTICLASS_ERROR.format(
                    estimator=type(estimator).__name__,
                    n_classes=len(classes),
                    classes=np.asarray(classes).tolist(),
                )
            )
        return super()._response(estimator, X)

    def _features(self, X):
        transform, sensitive = self._params["transform"], self._sensitive
        if transform is None:
            rest = X if sensitive is None else drop_sensitive(X, sensitive)
        elif hasattr(transform, "fit_transform"):
            try:
                check_is_fitted(transform)
                rest = transform.transform(X)
            except NotFittedError:  # fit on the data being scored
                rest = clone(transform).fit_transform(X)
        else:
            rest = transform(X)
        if is_dataframe(rest):
            bad = [name for name, _ in non_numeric_columns(rest)]
            if bad:
                raise TypeError(HFM_FEATURES_ERROR.format(columns=bad))
            rest = numeric_array(rest)
        rest = np.asarray(rest)
        if rest.dtype.kind not in "biuf":
            raise TypeError(HFM_FEATURES_ERROR.format(columns="(array)"))
        return rest.astype(np.float64, copy=False)

    def _value(self, X, y_true, y_score, pos_label, sensitive_features, kwargs):
        y_true = (y_true == pos_label).astype(np.float64)
        result = self._metric(
            self._features(X),
            y_true,
            y_score,
            sensitive_features=sensitive_features,
            **kwargs,
        )
        kind = self._params["kind"]
        return {"avg": result.df_avg, "max": result.df, "prev": result.df_prev}[kind]


@scorer_factory(_HFMScorer)
def make_hfm_scorer(
    *,
    sensitive=None,
    pos_label=None,
    kind="avg",
    transform=None,
    method="exact",
    m1=25,
    m2=None,
    random_state=None,
    min_group_size=None,
):
    """Make a scorer returning −HFM of the estimator's hard predictions.

    HFM's points are ``[label, non-sensitive features]``: the scorer takes the
    features from ``X`` minus the ``sensitive`` columns (or from
    ``transform(X)``), the labels from ``y`` and ``estimator.predict(X)``,
    both as the 0/1 indicator of the positive class.

    Parameters
    ----------
    sensitive : str, int, list of str or int, or None, default=None
        Sensitive column(s) of ``X``, or None for routed
        ``sensitive_features`` (then all of ``X`` is used as features).
    pos_label : int, float, bool, str or None, default=None
        The positive class, as for :func:`make_mcdp_scorer`.
    kind : {"avg", "max", "prev"}, default="avg"
        Which degree: ``df_avg`` (average HFM), ``df`` (maximum HFM) or
        ``df_prev`` (previous HFM) of :func:`skfair.metrics.hfm`.
    transform : transformer or callable, default=None
        Maps the scored ``X`` (all its columns) to the numeric non-sensitive
        features, e.g. :func:`skfair.model_selection.make_hfm_encoder`,
        which drops the sensitive columns, min-max scales and one-hot encodes.
        A fitted transformer is applied as is; an unfitted one is cloned and
        fitted on the data being scored (the test fold); a callable is
        called. Without it, the features are ``X`` minus the ``sensitive``
        columns, which must then be numeric.
    method, m1, m2, random_state, min_group_size
        Passed to :func:`skfair.metrics.hfm`, with its defaults.

    Returns
    -------
    scorer : callable
        Greater is better (it is −df).

    Examples
    --------
    >>> from skfair.metrics import make_hfm_scorer
    >>> make_hfm_scorer(sensitive="sex", kind="max")
    make_hfm_scorer(sensitive='sex', kind='max')
    """
    return hfm
