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

On a regressor (:func:`sklearn.base.is_regressor`, e.g. ``Ridge``,
``LGBMRegressor`` or a pipeline ending in one) every scorer scores its
real-valued ``predict(X)``, whatever ``response_method`` says; MCDP(ε > 0)
and ABPC then take ``domain=None`` (the predictions' observed range) or a
``domain=(lo, hi)`` in the target's units.
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np
import sklearn
from sklearn.base import is_regressor
from sklearn.utils.metadata_routing import MetadataRequest

from ..utils import select_sensitive
from ..utils._docstrings import fill_doc
from ..utils._groups import check_min_group_size
from ..utils._response import positive_class_scores
from ..utils._sensitive_spec import check_sensitive_spec
from ._base import UNIT_DOMAIN
from ._distribution import abcc, abpc, delta_dp
from ._given import check_given
from ._hfm import hfm
from ._mcdp import mcdp
from ._multiclass import check_class_agg

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
MULTICLASS_RESPONSE_ERROR = (
    "{scorer} scores a {n_classes}-class {estimator} on all its classes "
    "(pos_label=None) through predict_proba, or predict (the indicator of "
    "each predicted class); got response_method={methods!r}, of which "
    "{estimator} has none. Pass pos_label=<class> to score one class's "
    "{methods!r} against the rest."
)
SCORER_GIVEN_ERROR = (
    "{scorer} compares the groups among the samples of one true label "
    "(given={given!r}), relative to the positive class, but {estimator} has "
    "none (no classes_; a regressor's targets are not classes). Score a "
    "classifier, or pass pos_label=<the positive label of y>."
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
#: Docstring parts (:func:`skfair.utils._docstrings.fill_doc`) of the parameters that
#: the scorer factories describe alike.
SCORER_DOCS = {
    "sensitive": """
        sensitive : str, int, list of str or int, or None, default=None
            Sensitive column(s) of ``X``: names (DataFrame) or indices (array).
            None reads routed ``sensitive_features`` metadata instead.
    """,
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
    #: Whether a classifier of more than two classes is scored on all its
    #: classes when ``pos_label`` is None (class probabilities, ``class_agg``).
    _multiclass = True

    def __init__(self, factory, metric, params):
        self._factory, self._metric, self._params = factory, metric, dict(params)
        self._kwargs = {k: v for k, v in params.items() if k not in self._OWN}
        self._sensitive = params["sensitive"]
        if self._sensitive is not None:
            check_sensitive_spec(self._sensitive)  # fail at construction on a bad spec
        check_min_group_size(self._kwargs["min_group_size"])
        if "class_agg" in self._kwargs:
            check_class_agg(self._kwargs["class_agg"])
        probe = {**self._kwargs, "min_group_size": None}  # groups of 3
        if "given" in probe:  # checked here; the probe compares every row
            probe["given"] = check_given(probe["given"]) and None
        self._probe(probe)
        value = params.get("response_method", "predict")
        allowed = self._allowed_responses()
        if self._unit_domain() and self._kwargs.get("epsilon", 0) != 0:
            # ε > 0 on the default domain needs scores in [0, 1]
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
        allowed = _RESPONSES[self._metric]
        if "domain" in self._kwargs and not self._unit_domain():
            # margins have a domain of their own (None: their range)
            allowed = (*allowed, "decision_function")
        return tuple(dict.fromkeys(allowed))

    def _unit_domain(self):
        """Whether the metric's ``domain`` (if it has one) is [0, 1]."""
        domain = self._kwargs.get("domain", UNIT_DOMAIN)
        return isinstance(domain, (tuple, list)) and tuple(domain) == UNIT_DOMAIN

    def _probe(self, kwargs):
        """Run the metric on six made-up samples: bad options raise here."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args = self._probe_args((_PROBE_SCORE > 0.55).astype(np.float64))
            self._metric(*args, sensitive_features=_PROBE_GROUP, **kwargs)

    def _probe_args(self, y):
        domain = self._kwargs.get("domain")
        if isinstance(domain, (tuple, list)) and len(domain) == 2:
            try:  # probe scores inside a domain (lo, hi); a bad one raises later
                lo, hi = float(domain[0]), float(domain[1])
                return y, lo + _PROBE_SCORE * (hi - lo)
            except (TypeError, ValueError):
                pass
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

        A regressor's ``predict(X)`` (its real-valued predictions, with no
        positive label); else :func:`~skfair.utils._response.positive_class_scores`
        with the scorer's methods and ``pos_label``: the positive class's
        probability, its margin, or its 0/1 indicator for hard predictions;
        without ``classes_`` the output as is.
        """
        if is_regressor(estimator):
            return np.asarray(estimator.predict(X), dtype=np.float64).ravel(), None
        classes = getattr(estimator, "classes_", None)
        if (
            self._multiclass
            and self._params["pos_label"] is None
            and classes is not None
            and len(classes) > 2
        ):
            return self._class_scores(estimator, X, classes), None
        return positive_class_scores(
            estimator,
            X,
            response_method=self._methods,
            pos_label=self._params["pos_label"],
        )

    def _class_scores(self, estimator, X, classes):
        """``(n_samples, n_classes)`` class probabilities of a multiclass model.

        ``predict_proba``, or for ``"predict"`` the one-hot indicator of the
        predicted class (its per-class ΔDP_c is the gap of the rates of
        predicting each class); ``decision_function`` margins are not
        probabilities and are refused.
        """
        methods = [m for m in self._methods if m in ("predict_proba", "predict")]
        method = next((m for m in methods if hasattr(estimator, m)), None)
        if method is None:
            raise ValueError(
                MULTICLASS_RESPONSE_ERROR.format(
                    scorer=repr(self),
                    n_classes=len(classes),
                    estimator=type(estimator).__name__,
                    methods=self._methods,
                )
            )
        response = np.asarray(getattr(estimator, method)(X))
        if method == "predict":
            response = response[:, None] == np.asarray(classes)[None, :]
        return response.astype(np.float64)

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
        kwargs = self._given_options({**self._kwargs, **kwargs}, estimator, pos_label)
        value = self._value(X, y_true, y_score, pos_label, sensitive_features, kwargs)
        return self._sign * float(value)

    def _given_options(self, kwargs, estimator, pos_label):
        """The metric's ``pos_label`` (or ``classes``) for ``given``: the scored class.

        1-D scores are those of the positive class ``pos_label`` (the
        estimator's, or the scorer's own); class probabilities are compared
        one-vs-rest on each true class, the columns named by ``classes_``.
        """
        if kwargs.get("given") is None:
            return kwargs
        classes = getattr(estimator, "classes_", None)
        if (
            self._params["pos_label"] is None
            and classes is not None
            and len(classes) > 2
        ):
            if kwargs.get("classes") is None:
                kwargs = {**kwargs, "classes": list(classes)}
            return kwargs
        if pos_label is None:
            pos_label = self._params["pos_label"]
        if pos_label is None:
            raise ValueError(
                SCORER_GIVEN_ERROR.format(
                    scorer=repr(self),
                    given=kwargs["given"],
                    estimator=type(estimator).__name__,
                )
            )
        return {**kwargs, "pos_label": pos_label}

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


def scorer_factory(scorer_class=_FairnessScorer):
    """Make a ``make_*_scorer`` of the function written under it.

    The decorated function states the factory's signature and docstring,
    and its body returns the metric the scorer scores. The factory calls it
    (so that Python checks the arguments), then returns ``scorer_class(
    factory, metric, params)``, with ``params`` every argument by name in
    the signature's order, defaults applied (what the scorer's repr shows).

    Examples
    --------
    >>> from skfair.metrics import delta_dp
    >>> @scorer_factory()
    ... def make_gap_scorer(*, sensitive=None, response_method="predict",
    ...                     pos_label=None, agg="max", min_group_size=None):
    ...     return delta_dp
    >>> make_gap_scorer(sensitive="g", agg="mean")
    make_gap_scorer(sensitive='g', agg='mean')
    """

    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def factory(*args, **kwargs):
            metric = function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return scorer_class(factory, metric, bound.arguments)

        return factory

    return decorate


@scorer_factory()
@fill_doc(SCORER_DOCS)
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
    domain=(0.0, 1.0),
    class_agg="max",
    classes=None,
    given=None,
):
    """Make a scorer returning −MCDP(ε) of the positive-class scores.

    Parameters
    ----------
    <sensitive>
    response_method : str or tuple of str, default="predict_proba"
        The estimator method scored (the first it has, for a tuple):
        ``"predict_proba"``, ``"predict"`` (the 0/1 indicator of the positive
        class) or, for ε = 0 or a ``domain`` other than [0, 1] only,
        ``"decision_function"`` (MCDP(0) is invariant to increasing maps;
        ε > 0 on the default domain needs scores in [0, 1]). A regressor's
        ``predict`` is scored whatever this says.
    pos_label : int, float, bool, str or None, default=None
        The positive class; None takes the greater of the estimator's two
        ``classes_``. With more than two classes, None scores every class:
        the metric of each column of ``predict_proba`` (one-vs-rest; with
        ``response_method="predict"``, of the indicator of each predicted
        class) aggregated by ``class_agg``; a class compares that class
        against the rest alone.
    epsilon, method, sampling_frequency, rounding, agg, combine, min_group_size
        Passed to :func:`skfair.metrics.mcdp`, with its defaults, and checked
        when the scorer is made.
    domain : tuple of (float, float) or None, default=(0.0, 1.0)
        Passed to :func:`skfair.metrics.mcdp`: the interval the
        ε-neighbourhoods are clipped to. For a regressor with ε > 0 pass
        None (each test fold's observed range) or ``(lo, hi)`` in the
        target's units, and ε in those units.
    class_agg : {"max", "mean"}, default="max"
        For a classifier of more than two classes scored with
        ``pos_label=None``: the worst class's metric or the mean over classes
        (see :func:`skfair.metrics.mcdp`). Ignored otherwise.
    classes : sequence or None, default=None
        Passed to the metric: labels of the probability columns (they name
        the classes only; the score does not depend on them). None for the
        estimator's ``classes_`` order.
    given : {None, "positive", "negative", "both"}, default=None
        Passed to the metric (see :func:`skfair.metrics.mcdp`): compare the
        groups' scores among the test samples whose ``y`` is the positive
        class (``pos_label``, or the greater of ``classes_``), among the
        others, or the larger of the two: threshold-free equal opportunity,
        predictive equality and equalised odds. With more than two classes
        and ``pos_label=None``, each class's column is compared among the
        samples of that true class (``classes_`` name the columns).

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

    On a regressor it scores ``predict``; ε is then in the target's units:

    >>> from sklearn.linear_model import Ridge
    >>> amounts = 100 * X["x"] + 50 * X["g"]
    >>> scorer = make_mcdp_scorer(sensitive="g", epsilon=10.0, domain=None)
    >>> scores = cross_val_score(Ridge(), X, amounts, scoring=scorer)
    >>> bool(((-1 <= scores) & (scores <= 0)).all())
    True

    Equal opportunity over all thresholds (the largest TPR gap):

    >>> scorer = make_mcdp_scorer(sensitive="g", given="positive")
    >>> scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer)
    >>> bool(((-1 <= scores) & (scores <= 0)).all())
    True
    """
    return mcdp


@scorer_factory()
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
    class_agg="max",
    classes=None,
    given=None,
):
    """Make a scorer returning −ABCC of the positive-class probabilities.

    Parameters
    ----------
    sensitive, pos_label, class_agg, classes, given
        See :func:`make_mcdp_scorer`.
    response_method : {"predict_proba", "predict"}, default="predict_proba"
        Probabilities, or the 0/1 indicator of the predicted positive class.
        A regressor's ``predict`` is scored whatever this says (ABCC is then
        the Wasserstein-1 distance in the target's units).
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
    return abcc


@scorer_factory()
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
    domain=(0.0, 1.0),
    class_agg="max",
    classes=None,
    given=None,
):
    """Make a scorer returning −ABPC of the positive-class probabilities.

    Parameters
    ----------
    sensitive, pos_label, class_agg, classes, given
        See :func:`make_mcdp_scorer`.
    response_method : {"predict_proba"}, default="predict_proba"
        Probabilities only: a density of hard 0/1 predictions means nothing
        (``"decision_function"`` too with a ``domain`` other than [0, 1]). A
        regressor's ``predict`` is scored whatever this says.
    bw_method, n_points, method, agg, combine, min_group_size
        Passed to :func:`skfair.metrics.abpc`, with its defaults.
    domain : tuple of (float, float) or None, default=(0.0, 1.0)
        Passed to :func:`skfair.metrics.abpc`: where the densities are
        integrated. For a regressor pass None (the real line) or ``(lo,
        hi)`` in the target's units.

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
    return abpc


@scorer_factory()
def make_delta_dp_scorer(
    *,
    sensitive=None,
    response_method="predict_proba",
    pos_label=None,
    threshold=None,
    agg="max",
    combine="intersection",
    min_group_size=None,
    class_agg="max",
    classes=None,
    given=None,
):
    """Make a scorer returning −ΔDP (mean-score gap, or positive-rate gap).

    Parameters
    ----------
    sensitive, pos_label, class_agg, classes, given
        See :func:`make_mcdp_scorer`.
    response_method : {"predict_proba", "predict"}, default="predict_proba"
        ``"predict"`` scores the 0/1 indicator of the positive class among
        the estimator's own decisions (use it with ``threshold=None``): the
        gap of positive rates, whatever the labels ({-1, 1}, strings, ...).
        A regressor's ``predict`` is scored whatever this says (ΔDP_c is
        then the gap of mean predictions, in the target's units).
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
    return delta_dp
