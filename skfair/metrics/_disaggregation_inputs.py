"""The inputs of a :class:`~skfair.metrics.GroupMetricFrame`, checked.

Metrics by callable or by name (the confusion-count metrics of
``_group_counts.py``, or any scikit-learn scorer or ``sklearn.metrics``
function name), their sample parameters, and the grouping columns with
fairlearn's default names.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ..utils import check_sensitive_features
from ..utils._dataframe import to_pandas
from ..utils._validation import check_same_length, check_sample_weight_1d
from ._disaggregation_strata import FrameMetric
from ._group_counts import RATE_METRICS

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
        weights = check_sample_weight_1d(
            params.get("sample_weight"), n_samples, against="y_true"
        )
        return FrameMetric(name, rate=RATE_METRICS[metric], weights=weights)
    if isinstance(metric, str):
        metric = _sklearn_metric(metric)
    if not callable(metric):
        raise TypeError(METRIC_TYPE_ERROR.format(type=type(metric).__name__))
    arrays = {}
    for key, value in params.items():
        arrays[key] = sample_rows(value, key)
        check_same_length(arrays[key], n_samples, first_name=key, second_name="y_true")
    return FrameMetric(name, func=metric, params=arrays)


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
