"""The inputs of a :class:`~skfair.metrics.GroupMetricFrame`, checked.

Metrics by callable or by name (the confusion-count metrics of
``_group_counts.py``, or any scikit-learn scorer or ``sklearn.metrics``
function name), their sample parameters, and the grouping columns with
fairlearn's default names.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd

from ..utils import check_sensitive_features
from ..utils._dataframe import to_pandas
from ..utils._validation import (
    check_hard_labels,
    check_same_length,
    check_sample_weight_1d,
    same_label,
)
from ._disaggregation_strata import FrameMetric
from ._group_counts import RATE_METRICS, SummedWeights

METRIC_TYPE_ERROR = (
    "metrics must be a callable f(y_true, y_pred, ...), a metric name, or a dict "
    "of them; got {type}."
)
METRIC_NAME_ERROR = (
    "metrics: unknown metric name {name!r}. Names computed from the confusion "
    "counts: {rates}; any other scikit-learn scorer name (e.g. 'roc_auc', "
    "'r2') or sklearn.metrics function name (e.g. 'log_loss') is called per group."
)
NEGATED_NAME_ERROR = (
    "metrics: {name!r} is a negated scorer; a frame reports the metric itself. "
    "Pass {plain!r} (the sklearn.metrics function) instead."
)
SAMPLE_PARAMS_ERROR = (
    "sample_params must be None or a dict: {{parameter: array}} for one metric, "
    "{{metric name: {{parameter: array}}}} for a dict of metrics; got {type}."
)
SAMPLE_PARAMS_KEYS_ERROR = (
    "sample_params has keys {extra} that are not keys of metrics {keys}."
)
RATE_PARAMS_ERROR = (
    "metric {name!r} is computed from the confusion counts and takes only "
    "'sample_weight' as a sample parameter; got {params}. Pass a callable to "
    "use other parameters."
)
DUPLICATE_NAME_ERROR = (
    "the sensitive and control features share the name {name!r}; every "
    "grouping column needs its own name."
)


#: The names of scikit-learn's functions among the rate names: they keep its
#: ``zero_division="warn"`` (0.0 where undefined, with a warning), as the
#: functions themselves do; the other rate names are NaN where undefined.
ZERO_DIVISION_NAMES = frozenset(
    {"precision", "precision_score", "recall", "recall_score", "f1", "f1_score"}
)


def _sklearn_rates():
    """scikit-learn's functions of the confusion counts.

    Function -> (rate name, the keyword arguments it may be given and their
    defaults, whether it has a ``pos_label``).
    """
    import sklearn.metrics as skm

    set_wise = {
        "pos_label": 1,
        "average": "binary",
        "labels": None,
        "zero_division": "warn",
    }
    return {
        skm.accuracy_score: ("accuracy", {"normalize": True}),
        skm.zero_one_loss: ("zero_one_loss", {"normalize": True}),
        skm.balanced_accuracy_score: ("balanced_accuracy", {"adjusted": False}),
        skm.recall_score: ("true_positive_rate", set_wise),
        skm.precision_score: ("precision", set_wise),
        skm.f1_score: ("f1", set_wise),
    }


def _as_rate(metric, params):
    """A scikit-learn function (or a ``functools.partial`` of one) as a rate.

    Returns ``(rate name, pos_label, zero_division)``, or None for anything
    that must be called per group: another callable, positional or other
    keyword arguments than the rate's, or sample parameters other than
    ``sample_weight``.
    """
    func, keywords = metric, {}
    if isinstance(metric, functools.partial) and not metric.args:
        func, keywords = metric.func, metric.keywords
    try:
        known = _sklearn_rates().get(func)
    except TypeError:  # an unhashable callable
        known = None
    if known is None or set(params) - {"sample_weight"}:
        return None
    name, defaults = known
    if set(keywords) - set(defaults):
        return None
    options = {**defaults, **keywords}
    fixed = {
        key: value
        for key, value in defaults.items()
        if key not in ("pos_label", "zero_division")
    }
    if any(
        options[key] is not value and options[key] != value
        for key, value in fixed.items()
    ):
        return None
    zero_division = options.get("zero_division")
    if zero_division is not None and zero_division != "warn":
        try:
            zero_division = float(zero_division)
        except (TypeError, ValueError):
            return None  # scikit-learn's own error, from the call
    return name, options.get("pos_label"), zero_division


def _sklearn_metric(name):
    """The function behind a scikit-learn scorer or ``sklearn.metrics`` name."""
    import sklearn.metrics as skm

    if name.startswith("neg_"):
        raise ValueError(NEGATED_NAME_ERROR.format(name=name, plain=name[4:]))
    if name in skm.get_scorer_names():
        scorer = skm.get_scorer(name)
        # Private: scikit-learn offers no public accessor of a scorer's metric.
        func, kwargs = scorer._score_func, scorer._kwargs
        return functools.partial(func, **kwargs) if kwargs else func
    if name in skm.__all__ and name.endswith(("_score", "_error", "_loss")):
        return getattr(skm, name)
    raise ValueError(METRIC_NAME_ERROR.format(name=name, rates=sorted(RATE_METRICS)))


def sample_rows(values, name):
    """``values`` as an array with one row per sample (a column is flattened)."""
    array = np.asarray(to_pandas(values, what=name))
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim == 0:
        raise ValueError(f"{name} must hold one value per sample; got a scalar.")
    return array


def check_metrics(metrics, sample_params, n_samples):
    """The :class:`FrameMetric` list, and whether one metric was given alone."""
    single = not isinstance(metrics, dict)
    if sample_params is None:
        sample_params = {}
    if not isinstance(sample_params, dict):
        raise ValueError(SAMPLE_PARAMS_ERROR.format(type=type(sample_params).__name__))
    if single:
        name = metrics if isinstance(metrics, str) else None
        if name is None:
            name = getattr(metrics, "__name__", "metric")
        return True, [_metric(name, metrics, sample_params, n_samples)]
    extra = set(sample_params) - set(metrics)
    if extra:
        raise ValueError(
            SAMPLE_PARAMS_KEYS_ERROR.format(extra=sorted(extra), keys=list(metrics))
        )
    for params in sample_params.values():
        if not isinstance(params, dict):
            raise ValueError(SAMPLE_PARAMS_ERROR.format(type=type(params).__name__))
    return single, [
        _metric(str(key), metric, sample_params.get(key, {}), n_samples)
        for key, metric in metrics.items()
    ]


def _metric(name, metric, params, n_samples):
    params = {key: value for key, value in params.items() if value is not None}
    if isinstance(metric, str) and metric in RATE_METRICS:
        if set(params) - {"sample_weight"}:
            raise ValueError(RATE_PARAMS_ERROR.format(name=name, params=sorted(params)))
        weights = params.get("sample_weight")
        if not isinstance(weights, SummedWeights):  # checked in the engine
            weights = check_sample_weight_1d(weights, n_samples, against="y_true")
        zero_division = "warn" if metric in ZERO_DIVISION_NAMES else None
        return FrameMetric(
            name,
            rate=RATE_METRICS[metric],
            weights=weights,
            zero_division=zero_division,
        )
    if isinstance(metric, str):
        metric = _sklearn_metric(metric)
    if not callable(metric):
        raise TypeError(METRIC_TYPE_ERROR.format(type=type(metric).__name__))
    summed = params.get("sample_weight")
    if isinstance(summed, SummedWeights):  # a lazy frame: a known function only
        rate, pos_label, zero_division = _as_rate(metric, params)
        return FrameMetric(
            name,
            rate=RATE_METRICS[rate],
            func=metric,
            weights=summed,
            zero_division=zero_division,
            pos_label=pos_label,
        )
    arrays = {}
    for key, value in params.items():
        arrays[key] = sample_rows(value, key)
        check_same_length(arrays[key], n_samples, first_name=key, second_name="y_true")
    called = FrameMetric(name, func=metric, params=arrays)
    as_rate = _as_rate(metric, params)
    if as_rate is None:
        return called
    rate, pos_label, zero_division = as_rate
    weights = arrays.get("sample_weight")
    if weights is not None:
        try:
            weights = check_sample_weight_1d(weights, n_samples, against="y_true")
        except (TypeError, ValueError):
            return called  # scikit-learn's own error (or value), from the call
    return FrameMetric(
        name,
        rate=RATE_METRICS[rate],
        func=metric,
        params=arrays,
        weights=weights,
        zero_division=zero_division,
        pos_label=pos_label,
    )


def engine_refusal(metrics, sample_params):
    """The first metric that needs the rows, as ``(key, what)``; None if none does.

    What a lazy engine computes: the confusion-count names, and the
    scikit-learn functions (or their ``functools.partial``) that
    :func:`_as_rate` reads as one of them, with at most ``sample_weight``.
    """
    single = not isinstance(metrics, dict)
    items = [(None, metrics)] if single else list(metrics.items())
    sample_params = sample_params if isinstance(sample_params, dict) else {}
    for key, metric in items:
        params = sample_params if single else sample_params.get(key, {})
        params = params if isinstance(params, dict) else {}
        if isinstance(metric, str):
            if metric not in RATE_METRICS:
                return key, f"the metric name {metric!r} (called per group)"
        elif callable(metric) and _as_rate(metric, params) is None:
            what = getattr(metric, "__name__", type(metric).__name__)
            return key, f"the callable {what!r}"
    return None


def with_indicators(metrics, y_true, y_pred, pos_label):
    """Every rate with its label indicators; a function whose labels do not fit, called.

    A rate by name takes the frame's ``pos_label`` (and raises on labels
    that are not binary); a recognised scikit-learn function its own
    ``pos_label``, and is called per group, exactly as given, where its
    labels are not plain binary labels (more than two classes, a
    ``pos_label`` not among two labels, non-integral floats, ...).
    """
    cache = []  # (pos_label, indicators): one pass per positive class

    def indicators(label):
        for known, pair in cache:
            if known is label or (
                label is not None and known is not None and same_label(known, label)
            ):
                return pair
        pair = check_hard_labels(y_true, y_pred, pos_label=label)
        cache.append((label, pair))
        return pair

    out = []
    for metric in metrics:
        if not metric.by_counts:
            out.append(metric)
        elif metric.func is None:
            out.append(dataclasses.replace(metric, indicators=indicators(pos_label)))
        elif not _plain_binary(y_true, y_pred):
            out.append(FrameMetric(metric.name, func=metric.func, params=metric.params))
        else:
            try:
                pair = indicators(metric.pos_label)
            except ValueError:  # scikit-learn's error or values, from the call
                out.append(
                    FrameMetric(metric.name, func=metric.func, params=metric.params)
                )
                continue
            out.append(dataclasses.replace(metric, indicators=pair))
    return out


def _plain_binary(y_true, y_pred):
    """Whether scikit-learn reads both as labels (1-D, no fractions, one kind)."""
    kinds = set()
    for array in (y_true, y_pred):
        if array.ndim != 1:
            return False
        if array.dtype.kind == "f" and not np.all(np.mod(array, 1.0) == 0.0):
            return False  # scikit-learn's "continuous" target
        kinds.add("string" if array.dtype.kind in "OUS" else "number")
    return len(kinds) == 1


def grouping_columns(features, prefix, n_samples, what):
    """Encoded grouping columns and their names (fairlearn's default names)."""
    if isinstance(features, dict):
        features = pd.DataFrame(features)
    features = to_pandas(features, what=what)
    check_same_length(features, n_samples, first_name=what, second_name="y_true")
    attributes = check_sensitive_features(
        features, n_samples=n_samples, against="y_true"
    )
    if isinstance(features, pd.DataFrame):
        names = [str(column) for column in features.columns]
    elif isinstance(features, pd.Series) and features.name is not None:
        names = [str(features.name)]
    else:
        names = [f"{prefix}{k}" for k in range(attributes.n_attributes)]
    return attributes, names
