"""Confidence intervals of the distribution metrics.

Intervals for ΔDP, ABCC, ABPC and MCDP(ε), :func:`metric_confidence_interval`:

* the default, ``method="auto"``, valid for every true value (0 included),
  ties and several groups: **Welch** (ΔDP_c) and **Newcombe** (ΔDP_b^t),
  closed forms folded to the absolute gap and Bonferroni-corrected over
  pairs (:mod:`.inference._intervals`), and for MCDP(ε), ABCC and ABPC a **bootstrap
  simultaneous band** of the centred CDF (density) gap, in the norm in which
  the metric is 1-Lipschitz (:mod:`.inference._bands`);
* a plain **stratified bootstrap** of the metric
  (:func:`scipy.stats.bootstrap`, each group resampled on its own), which
  under-covers these non-smooth metrics, kept by name;
* a **distribution-free DKW interval** for the metrics that are functionals
  of the group CDFs (MCDP(ε), ABCC, ΔDP), from the Dvoretzky–Kiefer–Wolfowitz
  inequality with Massart's constant.

The tests of "no disparity" are :func:`~skfair.metrics.disparity_test`
(``_disparity_test.py``). Both are the one-metric cases of
:mod:`skfair.metrics.inference`, the interface the audit report uses too
(several metrics on one sort, shared resamples and permutations).
Measured coverage: ``benchmarks/bench_coverage.py`` and the user guide.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

import numpy as np

from ..utils._validation import check_scores
from ._distribution import abcc, abpc, delta_dp
from ._frame_arg import frame_dispatch
from ._given import given_inputs, noted
from ._mcdp import mcdp
from ._multiclass import is_class_scores
from ._multiclass_inference import (
    ClassSorts,
    check_class_score_type,
    class_interval,
    class_method,
)
from ._score_type import DKW_REASON, scores_for
from .inference import (
    auto_method,
    band_maxima,
    bootstrap_draws,
    check_band_resamples,
    check_confidence_level,
    check_n_resamples,
    closed_form_pvalue,
    dkw_bounds,
    interval_band,
    interval_bounds,
    metric_spec,
    metric_upper,
    random_generator,
    shared_sort,
    zero_if_not_rejected,
)

INTERVAL_METHOD_ERROR = (
    "method must be 'auto', 'band', 'welch', 'newcombe', 'bootstrap' or 'dkw'; "
    "got {method!r}."
)
CLOSED_FORM_METRIC_ERROR = (
    "method='welch' is for delta_dp without a threshold (ΔDP_c) and "
    "method='newcombe' for delta_dp with a threshold (ΔDP_b^t); got "
    "method={method!r} for metric={metric!r} with {options}. Use method='auto'."
)
BOOTSTRAP_METHOD_ERROR = (
    "bootstrap_method must be 'basic', 'percentile' or 'BCa'; got {value!r}."
)
DKW_METRIC_ERROR = (
    "method='dkw' bounds metrics that are functionals of the group CDFs "
    "(delta_dp, abcc, mcdp); {metric!r} depends on kernel density estimates. "
    "Use method='bootstrap'."
)
DKW_WEIGHT_ERROR = (
    "method='dkw' assumes unweighted i.i.d. samples in each group; "
    "sample_weight is not supported. Use method='bootstrap'."
)
METRIC_PARAMS_KEY_ERROR = (
    "metric_params holds {keys}, not option(s) of metric={metric!r}; its valid "
    "keys are {valid}. sensitive_features, sample_weight, combine and "
    "min_group_size are arguments of their own."
)
__all__ = ["MetricConfidenceInterval", "metric_confidence_interval"]

_DKW_METRICS = ("delta_dp", "abcc", "mcdp")
_INTERVAL_METHODS = ("auto", "band", "welch", "newcombe", "bootstrap", "dkw")
_BOOTSTRAP_METHODS = {"basic": "basic", "percentile": "percentile", "bca": "BCa"}


@dataclass(frozen=True)
class MetricConfidenceInterval:
    """A metric's confidence interval, as :func:`metric_confidence_interval` returns.

    Attributes
    ----------
    metric : str
        The metric's name.
    estimate : float
        The metric on the data.
    low, high : float
        The interval's bounds, within the metric's range.
    confidence_level : float
        The nominal coverage, e.g. 0.95.
    method : str
        "bootstrap" (with ``bootstrap_method``) or "dkw".
    n_resamples : int or None
        Bootstrap resamples; None for "dkw".
    bootstrap_method : str or None
        scipy's interval type ("basic", "percentile" or "BCa"); None for "dkw".
    standard_error : float or None
        The bootstrap standard error; None for "dkw".

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import metric_confidence_interval
    >>> y_score = np.r_[np.linspace(0, 0.6, 200), np.linspace(0.4, 1, 200)]
    >>> groups = np.repeat(["a", "b"], 200)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 method="dkw")
    >>> ci.metric, ci.method, round(ci.estimate, 4), ci.confidence_level
    ('mcdp', 'dkw', 0.665, 0.95)
    >>> ci.low <= ci.estimate <= ci.high, ci.n_resamples is None
    (True, True)
    """

    metric: str
    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    n_resamples: int | None = None
    bootstrap_method: str | None = None
    standard_error: float | None = None


def given_dispatch(name):
    """Decorate an interval or test so that ``metric_params["given"]`` filters first.

    With ``given`` ("positive" or "negative", relative to
    ``metric_params["pos_label"]``, default 1) the decorated function runs on
    the rows of that label only (:func:`~._given.given_inputs`), with
    ``given`` and ``pos_label`` taken out of ``metric_params``: every method
    (band, bootstrap, Welch, Newcombe, DKW, permutation, KS) then sees those
    rows, and the resampling within groups is within each (group, label)
    cell. The errors and warnings on those rows say so (:class:`~._given.noted`).
    """

    def decorator(func):
        signature = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            arguments = bound.arguments
            rows, params = given_inputs(
                name,
                arguments.get("metric_params"),
                arguments.get("y_true"),
                arguments.get("y_score"),
                arguments.get("sensitive_features"),
                arguments.get("sample_weight"),
                is_class_scores(arguments.get("y_score")),
            )
            if rows is None:
                return func(*args, **kwargs)
            arguments.update(
                y_true=rows.y_true,
                y_score=rows.y_score,
                sensitive_features=rows.sensitive_features,
                sample_weight=rows.sample_weight,
                metric_params=params,
            )
            with noted(rows.note):
                return func(*bound.args, **bound.kwargs)

        return wrapper

    return decorator


@frame_dispatch("metric_confidence_interval")
@given_dispatch("metric_confidence_interval")
def metric_confidence_interval(
    y_true,
    y_score,
    *,
    sensitive_features,
    metric="mcdp",
    method="auto",
    confidence_level=0.95,
    n_resamples=999,
    bootstrap_method="basic",
    random_state=None,
    metric_params=None,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
    score_type="probability",
    data=None,
):
    r"""Confidence interval of a distribution metric (ΔDP, ABCC, ABPC, MCDP).

    The default (``method="auto"``) is, per metric, the interval with
    asymptotically valid coverage for *every* true value (including 0, ties
    between thresholds or pairs, and several groups) that is tightest among
    the methods measured in ``benchmarks/bench_coverage.py``; the measured
    coverage and widths are in the user guide
    (:ref:`uncertainty_and_audit`, "How good are the intervals").

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored by the demographic-parity metrics; kept first for scikit-learn
        conventions. Its length is checked if given.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores, or class probabilities (``predict_proba``, a DataFrame's
        columns naming the classes): the interval is then that of the
        metric aggregated over classes by ``metric_params["class_agg"]``
        ("max", the default, or "mean"); see Notes for the methods.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels, as for the metric.
    metric : {"mcdp", "abcc", "abpc", "delta_dp"}, default="mcdp"
        The metric.
    method : {"auto", "band", "welch", "newcombe", "bootstrap", "dkw"}, default="auto"
        "auto" is "welch" for ΔDP_c ("newcombe" when every score is 0 or 1:
        hard predictions, whose means are proportions and whose Welch
        interval collapses when a group's predictions are all equal),
        "newcombe" for ΔDP_b^t and "band" for MCDP(ε), ABCC and ABPC (see
        Notes). "bootstrap" is the plain
        stratified bootstrap of the metric (:func:`scipy.stats.bootstrap`,
        ``bootstrap_method``), which *under-covers* these non-smooth metrics
        (kept for comparison); "dkw" the distribution-free, conservative
        interval of the Dvoretzky–Kiefer–Wolfowitz inequality (MCDP, ABCC and
        ΔDP only).
    confidence_level : float, default=0.95
        Nominal coverage.
    n_resamples : int, default=999
        Bootstrap resamples ("band" and "bootstrap"). The band needs at least
        ``ceil(1 / (1 - confidence_level)) - 1`` of them (19 at 0.95, 99 at
        0.99) for its quantile to exist.
    bootstrap_method : {"basic", "percentile", "BCa"}, default="basic"
        scipy's interval type, for ``method="bootstrap"`` only.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the resampling.
    metric_params : dict or None, default=None
        Other keyword arguments of the metric, e.g. ``{"epsilon": 0.05}``,
        ``{"threshold": 0.5}``, ``{"agg": "mean"}`` or the metric's own
        ``{"method": "binned"}``. ``{"given": "positive"}`` (with
        ``"pos_label"``, default 1) gives the interval of the metric among
        the samples whose ``y_true`` is ``pos_label`` (threshold-free equal
        opportunity for MCDP(0)), ``"negative"`` among the others: every
        method then sees those rows only, so the resampling is within each
        (group, label) cell (1-D scores only; ``"both"`` is refused).
        Real-valued predictions (a regressor's) take ``{"epsilon": e,
        "domain": None}`` for MCDP(ε) and ``{"domain": None}`` for ABPC
        (see :func:`mcdp`, :func:`abpc`); the interval is then the metric's
        on those predictions.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (not for "dkw"): resampled with their samples by the
        band and the bootstrap; through Kish's effective sample size in
        "welch" and "newcombe".
    combine : {"intersection", "marginal"}, default="intersection"
        How several attributes are combined, as for the metric.
    min_group_size : int or None, default=None
        As for the metric: None keeps every group and emits a
        :class:`~skfair.utils.SmallGroupWarning` naming each group of fewer
        than 30 samples; an int ``k`` leaves out the groups with fewer than
        ``k`` samples (they are in no comparison and no multiplicity
        correction).
    score_type : {"probability", "logit", "margin"}, default="probability"
        What the scores are. "probability": as they are (the metrics that
        need [0, 1] check it). "logit": mapped through the sigmoid
        (:func:`scipy.special.expit`) first, and a ΔDP_b ``threshold`` in
        ``metric_params`` is in logit units (mapped too); the result is
        that of the mapped probabilities (MCDP(0) and ΔDP_b, which depend
        on the scores' order only, are computed on the logits themselves:
        the same values, without the ties of logits above 36.7, all 1.0
        once mapped in floating point). "margin" (e.g.
        ``decision_function``): kept on their own scale for MCDP(0), ABCC
        and ΔDP (ABCC and ΔDP_c are then in margin units), and for MCDP(ε)
        and ABPC given a ``domain`` other than ``(0.0, 1.0)`` in
        ``metric_params``; ABPC and MCDP(ε) with ε > 0 on the default
        domain, ABCC's ``method="grid"`` and the DKW interval of ABCC and
        ΔDP_c need [0, 1] and raise a ValueError.

    data : DataFrame, default=None
        An eager frame (pandas, polars, PyArrow, ...) or a Dask frame; then
        ``y_true``, ``y_score``, ``sensitive_features`` and ``sample_weight``
        are the names of its columns. A lazy frame is refused with what to
        do (resampling needs every score).

    Returns
    -------
    result : MetricConfidenceInterval
        ``estimate`` equals the metric on the data; ``low`` and ``high`` lie
        in the metric's range; ``method`` names the interval used. Bounds are
        NaN where the method is undefined (the bootstrap of ABPC when a tiny
        group's resampled scores are all equal).

    Raises
    ------
    ValueError
        On invalid inputs (the metric's own errors), an unknown metric or
        method, a key of ``metric_params`` that is not an option of the
        metric, too few ``n_resamples`` for the band at ``confidence_level``,
        a method that does not apply to the metric ("welch" is for
        ΔDP_c, "newcombe" for ΔDP_b^t, "dkw" not for ABPC nor with sample
        weights), or ``method="dkw"`` for ABCC or ΔDP_c with scores outside
        [0, 1] (their DKW bound integrates over a known bounded support:
        real-valued predictions take the default band interval).

    See Also
    --------
    disparity_test : The p-value of "no disparity".

    Notes
    -----
    **Band** (MCDP(ε) for every ε, ABCC, ABPC). These metrics are maxima or
    integrals of absolute gaps: non-smooth functionals, for which the plain
    bootstrap of the metric under-covers (badly at a true value of 0, or
    when several thresholds or pairs tie for the maximum). They are,
    however, 1-Lipschitz in a norm of the gap :math:`G = F_a - F_b`: MCDP(ε)
    in the sup norm, ABCC in the L1 norm, ABPC in the L1 norm of the density
    gap. So :math:`|\hat M - M| \le \|\hat G - G\|`, and the interval
    :math:`[\max(0, \hat M - c), \hat M + c]` covers whenever
    :math:`\|\hat G - G\| \le c`. The critical value :math:`c` is the
    bootstrap quantile of the norm of the *centred* resampled gap
    :math:`\|\hat G^* - \hat G\|` (each group resampled on its own),
    consistent for the law of :math:`\|\hat G - G\|` whatever the true
    gap. With several groups the pairs are covered simultaneously: each
    pair's norm is studentised by :math:`s_p = \sqrt{1/n_a + 1/n_b}` and
    :math:`c` is the quantile of their maximum, so the interval of the worst
    pair (or of the mean over pairs) holds for the maximum (mean) of the
    true values. The interval is conservative when the true disparity is
    clearly positive (the metric moves less than the whole gap), and
    contains 0 exactly when the bootstrap test of "no disparity" does not
    reject. For ABPC the band is the bootstrap of the kernel density
    estimates at the data's bandwidths; it covers the smoothed densities'
    ABPC, and the true (unsmoothed) ABPC up to the smoothing bias, small at
    the default bandwidth (see the benchmark table).

    **Welch** (ΔDP_c, a difference of means) and **Newcombe** (ΔDP_b^t, a
    difference of proportions: the hybrid Wilson score interval, method 10
    of Newcombe 1998) give each pair an interval for the signed gap
    :math:`d`, folded to :math:`|d|` (:math:`[0, \max(|L|, |U|)]` when it
    contains 0), at level :math:`1 - \alpha / n_{pairs}` (Bonferroni, so
    all pairs hold together). Their width is the normal-theory one for two
    groups. Weights enter through Kish's effective sample size.

    **Zero when the test does not reject.** For MCDP(0) of two unweighted
    groups (exact Kolmogorov–Smirnov test) and unweighted ΔDP (Welch or
    Alexander–Govern, chi-square or Fisher: see :func:`disparity_test`), the
    lower bound is set to 0 when the test's p-value exceeds
    :math:`1 - ` ``confidence_level``; lowering a bound never reduces
    coverage, and the interval then never claims a disparity the test
    cannot see.

    **DKW.** If group *g*'s empirical CDF is within :math:`t_g` of its CDF
    everywhere (:func:`dkw_halfwidth`, the error probability split equally
    over all groups: Bonferroni), the CDF gap of groups *a*, *b* is within
    :math:`t_a + t_b` of the true gap at every score, so MCDP(ε), ΔDP_b^t,
    ABCC and ΔDP_c (integrals of the gap over [0, 1]) move by at most
    :math:`t_a + t_b`. Coverage of at least ``confidence_level`` for every
    distribution and sample size, but wide.

    **Class probabilities** (2-D ``y_score``): "auto" and "band" bootstrap
    every class on the same resamples (row indices) and take the critical
    value of the largest studentised gap over every class and pair, so all
    classes hold at once and the ``class_agg`` of the per-class intervals
    covers the aggregated metric; "welch", "newcombe" and "dkw" give each
    class its interval at level ``1 - alpha / n_classes`` (Bonferroni).
    "bootstrap" (the plain bootstrap, which under-covers) is refused, as
    are ``score_type`` other than "probability"; the lower bound is not
    lowered by a test. Measured coverage:
    ``benchmarks/bench_multiclass_coverage.py``.

    All resampling is stratified by group (every intersection of the
    attributes resampled on its own; scipy draws the indices); a resample is
    a reweighting of the once-sorted scores, so the CDF bands, ΔDP, ABCC
    and MCDP of each resample come from one sort of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import metric_confidence_interval
    >>> rng = np.random.default_rng(0)
    >>> y_score = np.r_[rng.beta(2, 5, 300), rng.beta(3, 4, 300)]
    >>> groups = np.repeat(["a", "b"], 300)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 n_resamples=199, random_state=0)
    >>> ci.method, round(ci.estimate, 3), ci.low < ci.estimate < ci.high
    ('band', 0.29, True)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 metric="delta_dp")
    >>> ci.method, round(ci.estimate, 3), round(ci.low, 3), round(ci.high, 3)
    ('welch', 0.118, 0.091, 0.144)
    >>> ci = metric_confidence_interval(None, y_score, sensitive_features=groups,
    ...                                 method="dkw")
    >>> round(ci.low, 3), round(ci.high, 3)
    (0.119, 0.461)
    """
    confidence_level = check_confidence_level(confidence_level)
    spec = checked_metric_spec(metric, metric_params)
    asked, method = method, _check_interval_method(method, spec)
    if is_class_scores(y_score):
        check_class_score_type(score_type)
        data = (y_true, y_score, sensitive_features, sample_weight, combine)
        sorts = ClassSorts(data, spec, min_group_size)
        return _class_interval(
            sorts, method, confidence_level, n_resamples, random_state, sample_weight
        )
    y_score, metric_params = scores_for(
        y_score, metric, metric_params, score_type, dkw=method == "dkw"
    )
    spec = checked_metric_spec(metric, metric_params)  # a logit threshold mapped
    if method == "dkw":
        _check_dkw(spec, y_score, sample_weight)
    elif method == "band":
        n_resamples = check_band_resamples(n_resamples, confidence_level)
    elif method == "bootstrap":
        n_resamples = check_n_resamples(n_resamples)
    if method == "bootstrap":
        bootstrap_method = _check_bootstrap_method(bootstrap_method)
    data = (y_true, y_score, sensitive_features, sample_weight, combine)
    estimates, shared = shared_sort(data, [spec], min_group_size)
    if asked == "auto":  # hard predictions' ΔDP_c gets Newcombe's (auto_method)
        method = auto_method(spec, shared)
    result = (metric, estimates[0])
    if method == "dkw":
        low, high = dkw_bounds(shared, [spec], confidence_level)
        return MetricConfidenceInterval(
            *result, float(low[0]), float(high[0]), confidence_level, "dkw"
        )
    rng = random_generator(random_state)
    if method == "bootstrap":
        return _bootstrap_interval(
            result, shared, spec, confidence_level, n_resamples, bootstrap_method, rng
        )
    band = maxima = None
    if method == "band":
        band = interval_band(shared, [spec])
        maxima = band_maxima(shared, band, n_resamples, rng)
    low, high = interval_bounds(
        shared, [spec], [method], confidence_level, band, maxima
    )
    test = closed_form_pvalue(shared, spec)
    if test is not None:
        low = zero_if_not_rejected(low, test[0], confidence_level)
    return MetricConfidenceInterval(
        *result,
        float(low[0]),
        float(high[0]),
        confidence_level,
        method,
        n_resamples if method == "band" else None,
    )


def _class_interval(
    sorts, method, confidence_level, n_resamples, random_state, sample_weight
):
    """The interval of a metric of class probabilities (``_multiclass_inference``)."""
    method = class_method(method, sorts.spec)
    if method == "dkw":
        _check_dkw(sorts.spec, np.zeros(1), sample_weight)
    if method == "band":
        n_resamples = check_band_resamples(n_resamples, confidence_level)
    low, high = class_interval(
        sorts, method, confidence_level, n_resamples, random_generator(random_state)
    )
    return MetricConfidenceInterval(
        sorts.spec.metric,
        sorts.estimate,
        low,
        high,
        confidence_level,
        method,
        n_resamples if method == "band" else None,
    )


def _bootstrap_interval(
    result, shared, spec, confidence_level, n_resamples, bootstrap_method, rng
):
    """The ``method="bootstrap"`` interval, clipped to the metric's range."""
    draws = bootstrap_draws(
        shared,
        [spec],
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        bootstrap_method=bootstrap_method,
        rng=rng,
    )
    low, high = np.clip([draws.low[0], draws.high[0]], 0.0, metric_upper(shared, spec))
    return MetricConfidenceInterval(
        *result,
        float(low),
        float(high),
        confidence_level,
        "bootstrap",
        n_resamples,
        bootstrap_method,
        float(draws.se[0]),
    )


# the arguments of the metrics that the intervals and tests take themselves
_OWN_ARGUMENTS = (
    "y_true",
    "y_score",
    "sensitive_features",
    "sample_weight",
    "combine",
    "min_group_size",
    "data",
)
_METRIC_FUNCTIONS = {"delta_dp": delta_dp, "abcc": abcc, "abpc": abpc, "mcdp": mcdp}


def checked_metric_spec(metric, metric_params):
    """:func:`~.inference.metric_spec`, unknown ``metric_params`` keys refused.

    The metric would fail on an unknown key with an ``inspect`` TypeError
    that never names ``metric_params``; this names the bad keys and the
    valid ones (:data:`METRIC_PARAMS_KEY_ERROR`).
    """
    spec = metric_spec(metric, metric_params)  # the metric's name checked there
    parameters = inspect.signature(_METRIC_FUNCTIONS[metric]).parameters
    valid = [name for name in parameters if name not in _OWN_ARGUMENTS]
    bad = [key for key in spec.options if key not in valid]
    if bad:
        raise ValueError(
            METRIC_PARAMS_KEY_ERROR.format(keys=bad, metric=metric, valid=valid)
        )
    return spec


def _check_interval_method(method, spec):
    """The interval method, "auto" resolved; errors for unknown or misapplied ones."""
    if method not in _INTERVAL_METHODS:
        raise ValueError(INTERVAL_METHOD_ERROR.format(method=method))
    if method == "auto":
        return auto_method(spec)
    if method in ("welch", "newcombe") and auto_method(spec) != method:
        raise ValueError(
            CLOSED_FORM_METRIC_ERROR.format(
                method=method, metric=spec.metric, options=spec.options
            )
        )
    return method


def _check_dkw(spec, y_score, sample_weight):
    if spec.metric not in _DKW_METRICS:
        raise ValueError(DKW_METRIC_ERROR.format(metric=spec.metric))
    if sample_weight is not None:
        raise ValueError(DKW_WEIGHT_ERROR)
    opts = spec.options
    if spec.metric == "abcc" or (
        spec.metric == "delta_dp" and opts.get("threshold") is None
    ):
        check_scores(y_score, unit_interval_for=DKW_REASON.format(metric=spec.metric))


def _check_bootstrap_method(value):
    key = value.lower() if isinstance(value, str) else None
    if key not in _BOOTSTRAP_METHODS:
        raise ValueError(BOOTSTRAP_METHOD_ERROR.format(value=value))
    return _BOOTSTRAP_METHODS[key]
