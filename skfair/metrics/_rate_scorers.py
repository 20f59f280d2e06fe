"""One scorer factory for the fairlearn-style rate metrics of ``_rates.py``.

:func:`make_rate_scorer` takes the metric by its fairlearn name
(``"equalized_odds_difference"``, ...) rather than one factory per metric:
the eight metrics share every option but ``agg``, so eight factories would
repeat one signature eight times, and the name a fairlearn user already
knows is the one to pass. The scorer shares the machinery of the other
skfair scorers (``_scorer.py``): ``sensitive=`` columns of ``X`` or routed
``sensitive_features``, ``sample_weight`` routing, pickling and the repr.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_regressor

from ..utils._docstrings import fill_doc
from . import _multiclass_rates, _rates
from ._scorer import SCORER_DOCS, _FairnessScorer

#: The metrics :func:`make_rate_scorer` scores, by their (fairlearn) name.
RATE_SCORER_METRICS = {
    f.__name__: f
    for f in (
        _rates.demographic_parity_difference,
        _rates.demographic_parity_ratio,
        _rates.equalized_odds_difference,
        _rates.equalized_odds_ratio,
        _rates.true_positive_rate_difference,
        _rates.true_positive_rate_ratio,
        _rates.false_positive_rate_difference,
        _rates.false_positive_rate_ratio,
        _multiclass_rates.multiclass_selection_rate_difference,
        _multiclass_rates.multiclass_true_positive_rate_difference,
        _multiclass_rates.multiclass_false_positive_rate_difference,
        _multiclass_rates.multiclass_equalized_odds_difference,
    )
}
RATE_METRIC_ERROR = (
    "metric must be one of {names} (or one of those functions); got {metric!r}."
)
AGG_ONLY_ERROR = (
    "agg applies to the equalized_odds_* and multiclass_* metrics only; got "
    "agg={agg!r} with metric={metric!r}."
)
MULTICLASS_ONLY_ERROR = (
    "{option} applies to the multiclass_* metrics only; got {option}={value!r} "
    "with metric={metric!r}."
)
BINARY_ONLY_ERROR = (
    "{option} applies to the binary rate metrics only; the multiclass_* "
    "metrics compare every class ({option}={value!r} with metric={metric!r})."
)
RATE_REGRESSOR_ERROR = (
    "make_rate_scorer scores a classifier's hard predictions (rates of "
    "predicted classes); {estimator} is a regressor. Score a regressor's "
    "predictions with make_mcdp_scorer, make_abcc_scorer, make_abpc_scorer "
    "or make_delta_dp_scorer."
)
_PROBE_PRED = np.array([0, 1, 1, 1, 0, 1])


def _metric_name(metric):
    """The name of ``metric``: one of :data:`RATE_SCORER_METRICS`, or its function."""
    name = getattr(metric, "__name__", None) if callable(metric) else metric
    known = isinstance(name, str) and name in RATE_SCORER_METRICS
    if not known or (callable(metric) and metric is not RATE_SCORER_METRICS[name]):
        raise ValueError(
            RATE_METRIC_ERROR.format(names=sorted(RATE_SCORER_METRICS), metric=metric)
        )
    return name


class _RateScorer(_FairnessScorer):
    """Scorer of a rate metric: hard predictions against the 0/1 true labels."""

    _OWN = _FairnessScorer._OWN + ("metric",)

    def __init__(self, factory, params):
        name = params["metric"]
        multiclass = name.startswith("multiclass_")
        if "agg" in params and not (multiclass or name.startswith("equalized_odds")):
            raise ValueError(AGG_ONLY_ERROR.format(agg=params["agg"], metric=name))
        for option in ("class_agg", "labels"):
            if option in params and not multiclass:
                raise ValueError(
                    MULTICLASS_ONLY_ERROR.format(
                        option=option, value=params[option], metric=name
                    )
                )
        if multiclass:
            _check_binary_defaults(params, name)
            params = {k: v for k, v in params.items() if k != "method"}
        self._multiclass_labels = multiclass
        super().__init__(factory, RATE_SCORER_METRICS[name], params)
        self._sign = 1 if name.endswith("_ratio") else -1
        self.greater_is_better = name.endswith("_ratio")

    def _allowed_responses(self):
        return ("predict",)

    def _probe_args(self, y):
        return y.astype(np.int8), _PROBE_PRED

    def _probe(self, kwargs):
        # the probe's labels are 0 and 1, not the classes ``labels`` names
        super()._probe({k: v for k, v in kwargs.items() if k != "labels"})

    def _response(self, estimator, X):
        # a regressor's real-valued predictions are no labels (cast to int8
        # against y == None they gave a confident, meaningless rate gap)
        if is_regressor(estimator):
            raise TypeError(
                RATE_REGRESSOR_ERROR.format(estimator=type(estimator).__name__)
            )
        if self._multiclass_labels:  # the predicted labels, every class
            return np.asarray(estimator.predict(X)), None
        return super()._response(estimator, X)

    def _value(self, X, y_true, y_score, pos_label, sensitive_features, kwargs):
        if self._multiclass_labels:
            return self._metric(
                y_true, y_score, sensitive_features=sensitive_features, **kwargs
            )
        # positive_class_scores gave the 0/1 indicator of the positive class;
        # the true labels are turned into the same indicator.
        truth = (y_true == pos_label).astype(np.int8)
        pred = np.asarray(y_score).astype(np.int8)
        return self._metric(
            truth, pred, sensitive_features=sensitive_features, pos_label=1, **kwargs
        )


def _check_binary_defaults(params, name):
    """Refuse the binary metrics' ``pos_label`` and ``method`` for a multiclass one."""
    for option, default in (("pos_label", None), ("method", "between_groups")):
        if params.get(option, default) != default:
            raise ValueError(
                BINARY_ONLY_ERROR.format(
                    option=option, value=params[option], metric=name
                )
            )


@fill_doc(SCORER_DOCS)
def make_rate_scorer(
    metric,
    *,
    sensitive=None,
    pos_label=None,
    method="between_groups",
    agg=None,
    min_group_size=None,
    class_agg=None,
    labels=None,
):
    """Make a scorer of a fairlearn-style rate metric of hard predictions.

    One factory for the eight metrics, named as in fairlearn (and
    :mod:`skfair.metrics`): ``"demographic_parity_difference"``,
    ``"demographic_parity_ratio"``, ``"equalized_odds_difference"``,
    ``"equalized_odds_ratio"``, ``"true_positive_rate_difference"``,
    ``"true_positive_rate_ratio"``, ``"false_positive_rate_difference"``,
    ``"false_positive_rate_ratio"``, and the multiclass ones
    (``"multiclass_selection_rate_difference"``,
    ``"multiclass_true_positive_rate_difference"``,
    ``"multiclass_false_positive_rate_difference"``,
    ``"multiclass_equalized_odds_difference"``), which score a multiclass
    ``predict`` against the true labels of every class (``pos_label`` and
    ``method`` are the binary metrics' options). They share their options,
    so one factory keyed by the name a fairlearn user already knows
    replaces a factory per metric.

    The sign follows scikit-learn's convention that a greater score is
    better. A ``*_difference`` is 0 at parity and smaller is fairer, so the
    scorer returns minus the difference (``greater_is_better=False``, as
    ``neg_log_loss``). A ``*_ratio`` is 1 at parity and greater is fairer,
    so it is returned as is (``greater_is_better=True``). The scorer's
    ``greater_is_better`` attribute says which.

    Parameters
    ----------
    metric : str or callable
        The metric's name, or the function itself (e.g.
        :func:`skfair.metrics.equalized_odds_difference`).
    <sensitive>
    pos_label : int, float, bool, str or None, default=None
        The positive class; None takes the greater of the estimator's two
        ``classes_``. With more than two classes it is required and the
        scorer compares that class against the rest. The true labels and
        ``estimator.predict`` are both read as "is the positive class".
    method : {"between_groups", "to_overall"}, default="between_groups"
        Passed to the metric (fairlearn's option).
    agg : {"worst_case", "mean"}, {"max", "mean"} or None, default=None
        For the ``equalized_odds_*`` metrics (``"worst_case"`` or
        ``"mean"``) and the ``multiclass_*`` ones (over pairs of groups,
        ``"max"`` or ``"mean"``) only: None is the metric's default.
    min_group_size : int or None, default=None
        Passed to the metric.
    class_agg : {"max", "mean"} or None, default=None
        For the ``multiclass_*`` metrics only: the worst class or the mean
        over classes (None: the metric's default, "max").
    labels : sequence or None, default=None
        For the ``multiclass_*`` metrics only: the classes compared (None:
        those of the data).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y)``: minus a difference, or a ratio.

    See Also
    --------
    make_delta_dp_scorer : The gap in mean score or positive rate.

    Examples
    --------
    >>> from skfair.metrics import make_rate_scorer
    >>> scorer = make_rate_scorer("equalized_odds_difference", sensitive="g")
    >>> scorer, scorer.greater_is_better
    (make_rate_scorer(metric='equalized_odds_difference', sensitive='g'), False)

    It reads the groups from column ``g`` of each test fold:

    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> X = pd.DataFrame({"x": [i % 7 for i in range(350)], "g": [0, 1] * 175})
    >>> y = (X["x"] + X["g"] > 3).astype(int)
    >>> scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer)
    >>> bool(((-1 <= scores) & (scores <= 0)).all())
    True

    A multiclass model's ``predict``, every class compared:

    >>> y3 = X["x"] % 3 + (X["g"] * (X["x"] > 4))
    >>> scorer = make_rate_scorer("multiclass_selection_rate_difference",
    ...                           sensitive="g")
    >>> scores = cross_val_score(LogisticRegression(), X, y3, scoring=scorer)
    >>> bool(((-1 <= scores) & (scores <= 0)).all())
    True
    """
    name = _metric_name(metric)
    params = {
        "metric": name,
        "sensitive": sensitive,
        "pos_label": pos_label,
        "method": method,
        "min_group_size": min_group_size,
    }
    if agg is not None:
        params["agg"] = agg
    if class_agg is not None:
        params["class_agg"] = class_agg
    if labels is not None:
        params["labels"] = labels
    return _RateScorer(make_rate_scorer, params)
