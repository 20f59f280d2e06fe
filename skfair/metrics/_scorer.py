"""Scorers for cross-validation and fairness-aware model selection.

A skfair scorer is called like any scikit-learn scorer, ``scorer(estimator,
X, y)``, and returns the *negated* metric (greater is better, like
``neg_log_loss``). It finds the sensitive attribute in one of two places:

* ``sensitive=`` names columns of the ``X`` it receives (names for a
  DataFrame of any library, pandas or polars; integer indices for an array),
  so it works with metadata routing off, inside pipelines whose first step
  drops those columns, and with ``n_jobs > 1``;
* ``sensitive=None``: the scorer requests ``sensitive_features`` as routed
  metadata by default (no ``set_score_request`` needed), which scikit-learn
  passes when ``enable_metadata_routing=True`` and ``params=`` holds it.

The scorers are plain callables on scikit-learn's public API (routing needs
only ``get_metadata_routing`` and ``set_score_request``; the latter takes
``sample_weight`` where the metric does). Each factory takes the options of
its metric and checks them at once on a six-sample probe.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.metadata_routing import MetadataRequest
from sklearn.utils.validation import check_is_fitted

from ..utils import (
    check_min_group_size,
    check_sensitive_spec,
    drop_sensitive,
    is_dataframe,
    non_numeric_columns,
    numeric_array,
    positive_class_scores,
    select_sensitive,
)
from ._distribution import abcc, abpc, delta_dp
from ._hfm import hfm
from ._mcdp import mcdp

MISSING_SENSITIVE_ERROR = (
    "{scorer} has no sensitive attribute: either build it with sensitive=<column "
    "name(s) or index(es) of X>, or enable metadata routing "
    "(sklearn.set_config(enable_metadata_routing=True)) and pass "
    "params={{'sensitive_features': ...}} to cross_validate / GridSearchCV.fit."
)
RESPONSE_METHOD_ERROR = (
    "response_method for {metric} must be one of {allowed}; got {value!r}."
)
ROUTING_OFF_ERROR = (
    "set_score_request needs metadata routing: "
    "sklearn.set_config(enable_metadata_routing=True)."
)
REQUEST_ERROR = "{scorer} cannot receive {params} as metadata; it accepts {allowed}."
HFM_KIND_ERROR = "kind must be 'avg', 'max' or 'prev'; got {kind!r}."
HFM_FEATURES_ERROR = (
    "make_hfm_scorer: the non-sensitive features of X must be numeric for "
    "HFM's distances; got non-numeric column(s) {columns}. Pass transform= "
    "(e.g. a fitted encoder, or a callable) to encode them."
)

#: Response methods each metric may score. decision_function (unbounded
#: margins) only where the metric is invariant to increasing maps: MCDP(0).
_RESPONSES = {
    mcdp: ("predict_proba", "decision_function", "predict"),
    abcc: ("predict_proba", "predict"),
    abpc: ("predict_proba",),
    delta_dp: ("predict_proba", "predict"),
    hfm: ("predict",),
}
_PROBE_SCORE = np.array([0.1, 0.6, 0.3, 0.8, 0.5, 0.9])
_PROBE_GROUP = np.array([0, 0, 0, 1, 1, 1])


class _FairnessScorer:
    """``scorer(estimator, X, y)`` returning minus a metric of groups.

    Built by the ``make_*_scorer`` factories from their arguments (``params``):
    ``sensitive``, ``response_method`` and ``pos_label`` are the scorer's own,
    the others go to ``metric``.
    """

    _OWN = ("sensitive", "response_method", "pos_label")
    #: The scorer returns ``_sign * metric``: -1 when smaller is fairer.
    _sign = -1

    def __init__(self, factory, metric, params):
        self._factory, self._metric, self._params = factory, metric, dict(params)
        self._kwargs = {k: v for k, v in params.items() if k not in self._OWN}
        self._sensitive = params["sensitive"]
        if self._sensitive is not None:
            check_sensitive_spec(self._sensitive)  # fail at construction on a bad spec
        check_min_group_size(self._kwargs["min_group_size"])
        self._probe({**self._kwargs, "min_group_size": None})  # groups of 3
        value = params.get("response_method", "predict")
        allowed = self._allowed_responses()
        if self._kwargs.get("epsilon", 0) != 0:  # ε > 0 needs scores in [0, 1]
            allowed = tuple(a for a in allowed if a != "decision_function")
        self._methods = (value,) if isinstance(value, str) else tuple(value)
        if not self._methods or not set(self._methods) <= set(allowed):
            raise ValueError(
                RESPONSE_METHOD_ERROR.format(
                    metric=metric.__name__, allowed=allowed, value=value
                )
            )
        self._request = {"sensitive_features": True} if self._sensitive is None else {}

    def _allowed_responses(self):
        return _RESPONSES[self._metric]

    def _probe(self, kwargs):
        """Run the metric on six made-up samples: bad options raise here."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args = self._probe_args((_PROBE_SCORE > 0.55).astype(np.float64))
            self._metric(*args, sensitive_features=_PROBE_GROUP, **kwargs)

    def _probe_args(self, y):
        return y, _PROBE_SCORE

    def __repr__(self):
        defaults = inspect.signature(self._factory).parameters
        args = [
            f"{k}={v!r}"
            for k, v in self._params.items()
            if k == "sensitive" or not _same(v, defaults[k].default)
        ]
        return f"{self._factory.__name__}({', '.join(args)})"

    def _response(self, estimator, X):
        """The scored output of ``estimator`` on ``X``, and the positive label.

        :func:`~skfair.utils.positive_class_scores` with the scorer's methods
        and ``pos_label``: the positive class's probability, its margin, or
        its 0/1 indicator for hard predictions; without ``classes_`` (a
        regressor) the output as is.
        """
        return positive_class_scores(
            estimator,
            X,
            response_method=self._methods,
            pos_label=self._params["pos_label"],
        )

    def _value(self, X, y_true, y_score, pos_label, sensitive_features, kwargs):
        return self._metric(
            y_true, y_score, sensitive_features=sensitive_features, **kwargs
        )

    def __call__(self, estimator, X, y_true, **kwargs):
        """The signed metric of ``estimator`` on ``X``; kwargs: routed metadata."""
        sensitive_features = kwargs.pop("sensitive_features", None)
        if self._sensitive is not None:
            sensitive_features = select_sensitive(X, self._sensitive)
        elif sensitive_features is None:
            raise ValueError(MISSING_SENSITIVE_ERROR.format(scorer=repr(self)))
        y_score, pos_label = self._response(estimator, X)
        y_true = None if y_true is None else np.asarray(y_true)
        kwargs = {**self._kwargs, **kwargs}
        value = self._value(X, y_true, y_score, pos_label, sensitive_features, kwargs)
        return self._sign * float(value)

    def _routable(self):
        names = ["sensitive_features"] if self._sensitive is None else []
        weighted = "sample_weight" in inspect.signature(self._metric).parameters
        return names + ["sample_weight"] if weighted else names

    def _accept_sample_weight(self):
        # Duck-typed hook scikit-learn's searches call (routing off) before
        # forwarding fit's sample_weight to scorers; a plain callable lacks it.
        return "sample_weight" in self._routable()

    def set_score_request(self, **requests):
        """Request ``sample_weight`` or ``sensitive_features``, as scikit-learn does."""
        if not sklearn.get_config()["enable_metadata_routing"]:
            raise RuntimeError(ROUTING_OFF_ERROR)
        allowed = self._routable()
        params = sorted(set(requests) - set(allowed))
        if params:
            raise ValueError(
                REQUEST_ERROR.format(scorer=self, params=params, allowed=allowed)
            )
        _metadata_request(self, {**self._request, **requests})  # bad aliases raise
        self._request = {**self._request, **requests}
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests, for scikit-learn's routing."""
        return _metadata_request(self, self._request)


def _metadata_request(scorer, requests):
    request = MetadataRequest(owner=repr(scorer))
    for param, alias in requests.items():
        request.score.add_request(param=param, alias=alias)
    return request


def _same(value, default):
    return value is default or (type(value) is type(default) and value == default)


def make_mcdp_scorer(
    *,
    sensitive=None,
    response_method="predict_proba",
    pos_label=None,
    epsilon=0.0,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
    agg="max",
    combine="intersection",
    min_group_size=None,
):
    """Make a scorer returning −MCDP(ε) of the positive-class scores.

    Parameters
    ----------
    sensitive : str, int, list of str or int, or None, default=None
        Sensitive column(s) of ``X``: names (DataFrame) or indices (array).
        None reads routed ``sensitive_features`` metadata instead.
    response_method : str or tuple of str, default="predict_proba"
        The estimator method scored (the first it has, for a tuple):
        ``"predict_proba"``, ``"predict"`` (the 0/1 indicator of the positive
        class) or, for ε = 0 only, ``"decision_function"`` (MCDP(0) is
        invariant to increasing maps; ε > 0 needs scores in [0, 1]).
    pos_label : int, float, bool, str or None, default=None
        The positive class; None takes the greater of the estimator's two
        ``classes_``. With more than two classes it is required and the
        scorer compares that class against the rest.
    epsilon, method, sampling_frequency, rounding, agg, combine, min_group_size
        Passed to :func:`skfair.metrics.mcdp`, with its defaults, and checked
        when the scorer is made.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y)``; greater is better (it is −MCDP).

    Examples
    --------
    >>> from skfair.metrics import make_mcdp_scorer
    >>> scorer = make_mcdp_scorer(sensitive="g", epsilon=0.05)
    >>> scorer
    make_mcdp_scorer(sensitive='g', epsilon=0.05)

    It reads the groups from column ``g`` of each test fold:

    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> X = pd.DataFrame({"x": [i % 7 for i in range(350)], "g": [0, 1] * 175})
    >>> y = (X["x"] + X["g"] > 3).astype(int)
    >>> scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer)
    >>> bool(((-1 <= scores) & (scores <= 0)).all())
    True
    """
    return _FairnessScorer(
        make_mcdp_scorer,
        mcdp,
        {
            "sensitive": sensitive,
            "response_method": response_method,
            "pos_label": pos_label,
            "epsilon": epsilon,
            "method": method,
            "sampling_frequency": sampling_frequency,
            "rounding": rounding,
            "agg": agg,
            "combine": combine,
            "min_group_size": min_group_size,
        },
    )


def make_abcc_scorer(
    *,
    sensitive=None,
    response_method="predict_proba",
    pos_label=None,
    method="exact",
    n_points=10000,
    agg="max",
    combine="intersection",
    min_group_size=None,
):
    """Make a scorer returning −ABCC of the positive-class probabilities.

    Parameters
    ----------
    sensitive, pos_label
        See :func:`make_mcdp_scorer`.
    response_method : {"predict_proba", "predict"}, default="predict_proba"
        Probabilities, or the 0/1 indicator of the predicted positive class.
    method, n_points, agg, combine, min_group_size
        Passed to :func:`skfair.metrics.abcc`, with its defaults.

    Returns
    -------
    scorer : callable
        Greater is better (it is −ABCC).

    Examples
    --------
    >>> from skfair.metrics import make_abcc_scorer
    >>> make_abcc_scorer(sensitive="sex", agg="mean")
    make_abcc_scorer(sensitive='sex', agg='mean')
    """
    return _FairnessScorer(
        make_abcc_scorer,
        abcc,
        {
            "sensitive": sensitive,
            "response_method": response_method,
            "pos_label": pos_label,
            "method": method,
            "n_points": n_points,
            "agg": agg,
            "combine": combine,
            "min_group_size": min_group_size,
        },
    )


def make_abpc_scorer(
    *,
    sensitive=None,
    response_method="predict_proba",
    pos_label=None,
    bw_method="scott",
    n_points=5000,
    method="auto",
    agg="max",
    combine="intersection",
    min_group_size=None,
):
    """Make a scorer returning −ABPC of the positive-class probabilities.

    Parameters
    ----------
    sensitive, pos_label
        See :func:`make_mcdp_scorer`.
    response_method : {"predict_proba"}, default="predict_proba"
        Probabilities only: a density of hard 0/1 predictions means nothing.
    bw_method, n_points, method, agg, combine, min_group_size
        Passed to :func:`skfair.metrics.abpc`, with its defaults.

    Returns
    -------
    scorer : callable
        Greater is better (it is −ABPC).

    Examples
    --------
    >>> from skfair.metrics import make_abpc_scorer
    >>> make_abpc_scorer(sensitive=["sex", "race"], combine="marginal")
    make_abpc_scorer(sensitive=['sex', 'race'], combine='marginal')
    """
    return _FairnessScorer(
        make_abpc_scorer,
        abpc,
        {
            "sensitive": sensitive,
            "response_method": response_method,
            "pos_label": pos_label,
            "bw_method": bw_method,
            "n_points": n_points,
            "method": method,
            "agg": agg,
            "combine": combine,
            "min_group_size": min_group_size,
        },
    )


def make_delta_dp_scorer(
    *,
    sensitive=None,
    response_method="predict_proba",
    pos_label=None,
    threshold=None,
    agg="max",
    combine="intersection",
    min_group_size=None,
):
    """Make a scorer returning −ΔDP (mean-score gap, or positive-rate gap).

    Parameters
    ----------
    sensitive, pos_label
        See :func:`make_mcdp_scorer`.
    response_method : {"predict_proba", "predict"}, default="predict_proba"
        ``"predict"`` scores the 0/1 indicator of the positive class among
        the estimator's own decisions (use it with ``threshold=None``): the
        gap of positive rates, whatever the labels ({-1, 1}, strings, ...).
    threshold, agg, combine, min_group_size
        Passed to :func:`skfair.metrics.delta_dp`: ``threshold=None`` for
        ΔDP_c, a number ``t`` for ΔDP_b^t with decisions ``proba >= t``.

    Returns
    -------
    scorer : callable
        Greater is better (it is −ΔDP).

    Examples
    --------
    >>> from skfair.metrics import make_delta_dp_scorer
    >>> make_delta_dp_scorer(sensitive=0, response_method="predict")
    make_delta_dp_scorer(sensitive=0, response_method='predict')
    """
    return _FairnessScorer(
        make_delta_dp_scorer,
        delta_dp,
        {
            "sensitive": sensitive,
            "response_method": response_method,
            "pos_label": pos_label,
            "threshold": threshold,
            "agg": agg,
            "combine": combine,
            "min_group_size": min_group_size,
        },
    )


class _HFMScorer(_FairnessScorer):
    """Scorer for HFM: hard predictions and the non-sensitive features of X."""

    _OWN = _FairnessScorer._OWN + ("kind", "transform")

    def __init__(self, factory, metric, params):
        if params["kind"] not in ("avg", "max", "prev"):
            raise ValueError(HFM_KIND_ERROR.format(kind=params["kind"]))
        super().__init__(factory, metric, params)

    def _probe_args(self, y):
        return np.arange(12.0).reshape(6, 2), y, y[::-1]

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
    return _HFMScorer(
        make_hfm_scorer,
        hfm,
        {
            "sensitive": sensitive,
            "pos_label": pos_label,
            "kind": kind,
            "transform": transform,
            "method": method,
            "m1": m1,
            "m2": m2,
            "random_state": random_state,
            "min_group_size": min_group_size,
        },
    )
