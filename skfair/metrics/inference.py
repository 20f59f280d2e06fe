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

from ._bands import BandData
from ._base import aggregate, pairs_of
from ._uncertainty import (
    _auto_method,
    _bootstrap,
    _check_confidence_level,
    _check_n_resamples,
    _closed_form_pvalue,
    _dkw,
    _Draws,
    _generator,
    _interval_bounds,
    _permutation_pvalues,
    _prepare,
    _spec,
    _zero_if_not_rejected,
    band_norm,
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
    legacy_bootstrap=True,
):
    """Every metric's value, confidence intervals and p-value, on one sort.

    The interval of each metric is the default of
    :func:`~skfair.metrics.metric_confidence_interval` (``method="auto"``:
    Welch for ΔDP_c, Newcombe for ΔDP_b^t, the bootstrap band of the centred
    gap for ABCC, ABPC and MCDP(ε); see its Notes and the coverage table of
    the user guide), on resamples shared by every metric. Its lower bound is
    set to 0 whenever the metric's reported test does not reject "no
    disparity" at ``1 - confidence_level`` (never lowering coverage), so the
    interval and the p-value never disagree in that direction.

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
    legacy_bootstrap : bool, default=True
        Also compute the plain 'basic' bootstrap interval of every metric
        (``bootstrap_*`` keys; NaN when False). It under-covers (see the
        user guide) and costs a metric evaluation per resample (for ABPC a
        kernel density estimate); kept for comparison.

    Returns
    -------
    rows : list of dict
        One per spec, with the keys

        - ``value``: the metric;
        - ``low``, ``high``: the default interval; ``interval``: its method
          ("band", "welch" or "newcombe");
        - ``bootstrap_low``, ``bootstrap_high``, ``bootstrap_se``: the plain
          'basic' bootstrap (NaN without ``legacy_bootstrap``);
        - ``dkw_low``, ``dkw_high``: the DKW interval (NaN for ABPC);
        - ``pvalue`` and ``test`` ("ks", "welch", "alexander-govern",
          "chi2", "fisher" or "permutation", as in
          :func:`~skfair.metrics.disparity_test`);
        - ``pvalue_floor``: ``1 / (n_permutations + 1)`` for a permutation
          test, the smallest p-value it can give (NaN for the other tests).
    """
    estimates, shared = _prepare(
        None, y_score, sensitive_features, None, combine, specs, min_group_size
    )
    rng = _generator(random_state)
    methods = [_auto_method(s) for s in specs]
    norms = [band_norm(s) for s, m in zip(specs, methods) if m == "band"]
    band = BandData(shared, norms) if norms else None
    legacy = list(specs) if legacy_bootstrap else []
    draws = _Draws(*(np.full(len(specs), np.nan) for _ in range(4)), None)
    if legacy or band is not None:
        drawn = _bootstrap(
            shared,
            legacy,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            bootstrap_method="basic",
            rng=rng,
            band=band,
        )
        draws = drawn if legacy else draws._replace(maxima=drawn.maxima)
    low, high = _interval_bounds(
        shared, specs, methods, confidence_level, band, draws.maxima
    )
    dkw_at = [j for j, s in enumerate(specs) if s.metric != "abpc"]
    dkw_low, dkw_high = _dkw(shared, [specs[j] for j in dkw_at], None, confidence_level)
    pvalues, tests, floors = _pvalues(shared, specs, n_permutations, rng)
    low = _zero_if_not_rejected(low, pvalues, confidence_level)
    rows = []
    for j, spec in enumerate(specs):
        upper = 2.0 if spec.metric == "abpc" else 1.0
        d = dkw_at.index(j) if j in dkw_at else None
        rows.append(
            {
                "value": estimates[j],
                "low": float(low[j]),
                "high": float(high[j]),
                "interval": methods[j],
                "bootstrap_low": float(np.clip(draws.low[j], 0.0, upper)),
                "bootstrap_high": float(np.clip(draws.high[j], 0.0, upper)),
                "bootstrap_se": float(draws.se[j]),
                "dkw_low": float("nan") if d is None else float(dkw_low[d]),
                "dkw_high": float("nan") if d is None else float(dkw_high[d]),
                "pvalue": float(pvalues[j]),
                "pvalue_floor": floors[j],
                "test": tests[j],
            }
        )
    return rows


def _pvalues(shared, specs, n_permutations, rng):
    """Per spec: p-value, test name and resolution floor (NaN unless permutation).

    Closed-form tests where they exist (exact KS, Welch / Alexander–Govern,
    chi-square / Fisher), one shared set of permutations for the others.
    """
    pvalues = np.full(len(specs), np.nan)
    tests = [""] * len(specs)
    floors = [float("nan")] * len(specs)
    permuted = []
    for j, spec in enumerate(specs):
        closed = _closed_form_pvalue(shared, spec)
        if closed is None:
            permuted.append(j)
        else:
            pvalues[j], tests[j] = closed
    if permuted:
        pvalues[permuted] = _permutation_pvalues(
            shared, [specs[j] for j in permuted], n_resamples=n_permutations, rng=rng
        )
        for j in permuted:
            tests[j] = "permutation"
            floors[j] = 1.0 / (n_permutations + 1)
    return pvalues, tests, floors


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
