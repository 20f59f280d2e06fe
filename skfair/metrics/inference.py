"""The interval and test machinery, as the audit report uses it.

This module is skfair's internal interface between :mod:`skfair.metrics` and
:mod:`skfair.report`: plain names with docstrings, so that neither side
reaches into the other's private helpers. It is not part of the public API
(no ``__all__`` entry in :mod:`skfair.metrics`, no stability promise).

Everything here shares work across metrics: :func:`shared_sort` validates the
data through the public metrics and sorts the scores once; intervals and
tests of several metrics are then computed on the same resamples and
permutations of that one sort. :func:`metric_confidence_interval` and
:func:`disparity_test` are the one-metric cases of the same functions.
"""

from __future__ import annotations

import numpy as np

from ._base import aggregate, pairs_of
from ._uncertainty import (
    _bootstrap,
    _check_confidence_level,
    _check_n_resamples,
    _dkw,
    _generator,
    _ks_problem,
    _ks_pvalue,
    _permutation_pvalues,
    _prepare,
    _spec,
)

__all__ = [
    "aggregate",
    "check_confidence_level",
    "check_n_resamples",
    "dask_group_summary",
    "infer_metrics",
    "metric_spec",
    "pairs_of",
    "random_generator",
]


def metric_spec(metric, params=None):
    """One metric (``"mcdp"``, ``"abcc"``, ``"abpc"``, ``"delta_dp"``) and its options.

    Parameters
    ----------
    metric : str
        The metric's name.
    params : dict or None
        Keyword arguments of the public metric function (not
        ``sample_weight``, ``combine`` or ``sensitive_features``).

    Returns
    -------
    spec : hashable
        What the other functions of this module take.
    """
    return _spec(metric, params)


def check_confidence_level(value):
    """``value`` as a float in (0, 1), or the public functions' ValueError."""
    return _check_confidence_level(value)


def check_n_resamples(value):
    """``value`` as an int >= 1, or the public functions' ValueError."""
    return _check_n_resamples(value)


def random_generator(random_state):
    """A numpy Generator from scikit-learn's ``random_state`` conventions."""
    return _generator(random_state)


def infer_metrics(
    y_score,
    sensitive_features,
    specs,
    *,
    combine,
    confidence_level,
    n_resamples,
    n_permutations,
    random_state,
    min_group_size,
):
    """Every metric's value, confidence intervals and p-value, on one sort.

    Parameters
    ----------
    y_score : ndarray of shape (n_samples,)
        Validated scores.
    sensitive_features : array-like
        Group labels, as for the metrics.
    specs : list
        From :func:`metric_spec`.
    combine : {"intersection", "marginal"}
    confidence_level : float
    n_resamples, n_permutations : int
        Bootstrap resamples and permutations, shared by every metric.
    random_state : int, RandomState, Generator or None
    min_group_size : int
        Groups smaller than this are in no comparison.

    Returns
    -------
    rows : list of dict
        One per spec: ``value``, ``bootstrap_low``, ``bootstrap_high``,
        ``bootstrap_se``, ``dkw_low``, ``dkw_high`` (NaN for ABPC),
        ``pvalue`` and ``test`` (``"ks"`` or ``"permutation"``).
    """
    estimates, shared = _prepare(
        None, y_score, sensitive_features, None, combine, specs, min_group_size
    )
    rng = _generator(random_state)
    low, high, se = _bootstrap(
        shared,
        specs,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        bootstrap_method="basic",
        rng=rng,
    )
    dkw_at = [j for j, s in enumerate(specs) if s.metric != "abpc"]
    dkw_low, dkw_high = _dkw(shared, [specs[j] for j in dkw_at], None, confidence_level)
    ks = [j for j, s in enumerate(specs) if _ks_problem(s, shared, None) is None]
    permuted = [j for j in range(len(specs)) if j not in ks]
    pvalues = np.full(len(specs), np.nan)
    tests = [""] * len(specs)
    for j in ks:
        pvalues[j], tests[j] = _ks_pvalue(shared), "ks"
    if permuted:
        pvalues[permuted] = _permutation_pvalues(
            shared, [specs[j] for j in permuted], n_resamples=n_permutations, rng=rng
        )
        for j in permuted:
            tests[j] = "permutation"
    rows = []
    for j, spec in enumerate(specs):
        upper = 2.0 if spec.metric == "abpc" else 1.0
        d = dkw_at.index(j) if j in dkw_at else None
        rows.append(
            {
                "value": estimates[j],
                "bootstrap_low": float(np.clip(low[j], 0.0, upper)),
                "bootstrap_high": float(np.clip(high[j], 0.0, upper)),
                "bootstrap_se": float(se[j]),
                "dkw_low": float("nan") if d is None else float(dkw_low[d]),
                "dkw_high": float("nan") if d is None else float(dkw_high[d]),
                "pvalue": float(pvalues[j]),
                "test": tests[j],
            }
        )
    return rows


def dask_group_summary(y_true, y_score, sensitive_features, threshold):
    """Per distinct (sensitive row, label) of Dask data: counts, sums, decisions.

    One pass over the partitions (the Dask metric engines' scan).

    Returns
    -------
    summary : dict
        ``n`` (samples), ``low`` and ``high`` (extreme scores), and per
        distinct row ``count``, ``sum`` (of scores) and ``above`` (scores at
        least ``threshold``).
    sensitive : Series or DataFrame
        The distinct rows' group labels, shaped like ``sensitive_features``,
        for :func:`skfair.utils.check_sensitive_features`.
    labels : ndarray or None
        The distinct rows' labels (None without ``y_true``).
    """
    from ._dask_engine import _LABEL_COLUMNS, _sensitive_table, _start, _summarise

    options = {"sensitive_features": sensitive_features}
    names, aligned, meta = _start(y_true, y_score, options)
    spec = {"score": "y_score", "want": ("sum", "above"), "n_bins": 0}
    spec.update(threshold=threshold, labels=("y_true",))
    out = _summarise(names, aligned, meta, spec)
    table = out["table"]
    arrays = out["arrays"]
    summary = {
        "n": out["n"],
        "low": out.get("low"),
        "high": out.get("high"),
        "count": arrays["count"][0].astype(np.float64),
        "sum": arrays["sum"][0],
        "above": arrays["above"][0],
    }
    labels = None if y_true is None else table[_LABEL_COLUMNS[0]].to_numpy()
    return summary, _sensitive_table(table, meta, out["n"]), labels
