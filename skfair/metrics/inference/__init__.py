"""Confidence intervals and tests of "no disparity" on one sort: skfair's internal API.

Its users are the public :func:`~skfair.metrics.metric_confidence_interval`
and :func:`~skfair.metrics.disparity_test` (``metrics/_confidence.py``) and the
audit report (:mod:`skfair.report`). It is not part of the public API (no
stability promise), but every name here is the real function, documented
once. The modules, by concept:

``_specs``
    The metric registry (``METRICS``) and :func:`metric_spec`; which interval
    a metric gets (:func:`auto_method`), in which norm (:func:`band_norm`),
    and where it clips (:func:`metric_upper`); the shared argument checks.
``_sorted``
    :func:`shared_sort`: the data validated through the public metrics and
    sorted once (``SharedSort``); every resample and permutation of any
    sort-based metric is then a weight or a cell per sorted position and a
    linear pass (the all-pairs kernels of :mod:`skfair.metrics._kernels`).
``_intervals``, ``_bands``, ``_bounds``
    Closed-form intervals (Welch, Newcombe, Wilson: :func:`proportion_interval`),
    bootstrap simultaneous bands of the group CDF (density) gaps
    (:func:`interval_band`), and the intervals of several metrics by method
    (:func:`interval_bounds`) or by the DKW inequality (:func:`dkw_bounds`).
``_resampling``
    The stratified bootstrap of several metrics and of the bands' maxima on
    shared resamples (:func:`bootstrap_draws`, :func:`band_maxima`).
``_closed_form``, ``_permutation``
    Tests of "no disparity": exact Kolmogorov–Smirnov, Welch /
    Alexander–Govern, chi-square / Fisher (:func:`closed_form_pvalue`), and the
    permutation test of any metric on shared permutations
    (:func:`permutation_pvalues`).
``_infer``
    :func:`infer_metrics`: every metric of the audit report on one sort.

:func:`dask_group_summary` is the Dask engine's one-pass group summary
(:mod:`skfair.metrics._dask`), for the report's Dask path.
"""

from .._base import aggregate, pairs_of
from .._dask import dask_group_summary
from ._bands import interval_band
from ._bounds import dkw_bounds, dkw_halfwidth, interval_bounds, zero_if_not_rejected
from ._closed_form import closed_form_pvalue, delta_dp_test, ks_problem, ks_pvalue
from ._infer import infer_metrics
from ._intervals import (
    fold_abs,
    newcombe_interval,
    proportion_interval,
    welch_interval,
    wilson_interval,
)
from ._permutation import permutation_pvalues, permutation_resolution, permutation_test
from ._resampling import (
    band_maxima,
    bootstrap_draws,
    class_band_maxima,
    resampled_statistic,
)
from ._sorted import shared_sort
from ._specs import (
    auto_method,
    band_norm,
    check_band_resamples,
    check_confidence_level,
    check_n_resamples,
    metric_spec,
    metric_upper,
    min_band_resamples,
    random_generator,
)

__all__ = [
    "aggregate",
    "auto_method",
    "band_maxima",
    "band_norm",
    "bootstrap_draws",
    "check_band_resamples",
    "check_confidence_level",
    "check_n_resamples",
    "class_band_maxima",
    "closed_form_pvalue",
    "dask_group_summary",
    "delta_dp_test",
    "dkw_bounds",
    "dkw_halfwidth",
    "fold_abs",
    "infer_metrics",
    "interval_band",
    "interval_bounds",
    "ks_problem",
    "ks_pvalue",
    "metric_spec",
    "metric_upper",
    "min_band_resamples",
    "newcombe_interval",
    "pairs_of",
    "permutation_pvalues",
    "permutation_resolution",
    "permutation_test",
    "proportion_interval",
    "random_generator",
    "resampled_statistic",
    "shared_sort",
    "welch_interval",
    "wilson_interval",
    "zero_if_not_rejected",
]
