"""The interval and test machinery, in plain names: skfair's internal interface.

``_uncertainty.py`` is the engine (the one sort, the shared resamples and
permutations); this module names each step it offers, with a docstring, and
is the only module that calls the engine's private names. Its users are the
public :func:`~skfair.metrics.metric_confidence_interval` and
:func:`~skfair.metrics.disparity_test` (``_confidence.py``) and the audit
report (:mod:`skfair.report`), so neither reaches into the engine's private
helpers. It is not part of the public API (no ``__all__`` entry in
:mod:`skfair.metrics`, no stability promise).

Everything here shares work across metrics: :func:`shared_sort` validates
the data through the public metrics and sorts the scores once; intervals and
tests of several metrics are then computed on the same resamples and
permutations of that one sort (:func:`infer_metrics` for the report; the
public functions are its one-metric cases).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._bands import BandData
from ._base import aggregate, pairs_of
from ._intervals import wilson_interval
from ._uncertainty import (
    _auto_method,
    _bootstrap,
    _check_confidence_level,
    _check_n_resamples,
    _closed_form,
    _closed_form_pvalue,
    _dkw,
    _generator,
    _interval_bounds,
    _ks_problem,
    _ks_pvalue,
    _permutation_pvalues,
    _permutation_resolution,
    _prepare,
    _spec,
    _upper,
    _zero_if_not_rejected,
    band_norm,
)

__all__ = [
    "aggregate",
    "auto_method",
    "band_maxima",
    "bootstrap_draws",
    "check_confidence_level",
    "check_n_resamples",
    "closed_form_pvalue",
    "dask_group_summary",
    "delta_dp_test",
    "dkw_bounds",
    "infer_metrics",
    "interval_band",
    "interval_bounds",
    "ks_problem",
    "ks_pvalue",
    "metric_spec",
    "metric_upper",
    "pairs_of",
    "permutation_pvalues",
    "permutation_resolution",
    "proportion_interval",
    "random_generator",
    "shared_sort",
    "zero_if_not_rejected",
]


# -- arguments -------------------------------------------------------------------


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
        What the other functions of this module take; ``spec.metric`` is the
        name and ``spec.options`` the keyword arguments.

    Raises
    ------
    ValueError
        For an unknown metric, or ``params`` holding one of the excluded keys.
    """
    return _spec(metric, params)


def metric_upper(shared, spec):
    """The largest value of ``spec``'s metric on ``shared``: where intervals clip.

    2 for ABPC; 1 for MCDP and ΔDP_b^t; for ABCC and ΔDP_c 1 when the scores
    lie in [0, 1], else ``inf`` (their values grow with the scores' range).
    """
    return _upper(shared, spec)


def check_confidence_level(value):
    """``value`` as a float in (0, 1), or the public functions' ValueError."""
    return _check_confidence_level(value)


def check_n_resamples(value):
    """``value`` as an int >= 1, or the public functions' ValueError."""
    return _check_n_resamples(value)


def random_generator(random_state):
    """A numpy Generator from scikit-learn's ``random_state`` conventions.

    An int or a RandomState seeds a new Generator (``None`` draws the seed
    from numpy's global RandomState); a Generator is returned as is.
    """
    return _generator(random_state)


def proportion_interval(successes, trials, confidence_level):
    """Wilson's score interval of ``successes / trials`` (NaN where ``trials`` is 0).

    Unlike the normal (Wald) interval it stays in [0, 1] and does not
    collapse to a point at a rate of 0 or 1: the report's per-group rates.

    Examples
    --------
    >>> low, high = proportion_interval([0, 81], [10, 263], 0.95)
    >>> [round(float(v), 4) for v in low], [round(float(v), 4) for v in high]
    ([0.0, 0.2553], [0.2775, 0.3662])
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = stats.norm.isf((1.0 - confidence_level) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = wilson_interval(k / n, n, z)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def auto_method(spec, shared=None):
    """The default interval of a metric: "welch", "newcombe" or "band".

    Welch for ΔDP_c, Newcombe for ΔDP_b^t (closed forms), the bootstrap band
    of the centred gap for ABCC, ABPC and MCDP(ε). Given the ``shared``
    sort, ΔDP_c of scores that are all 0 or 1 (hard predictions, whose means
    are proportions) gets Newcombe's interval too.
    """
    return _auto_method(spec, shared)


# -- the one sort ----------------------------------------------------------------


def shared_sort(data, specs, min_group_size=None):
    """Validate the data through the public metrics and sort the scores once.

    Parameters
    ----------
    data : tuple
        ``(y_true, y_score, sensitive_features, sample_weight, combine)``, as
        for the metrics.
    specs : list
        From :func:`metric_spec`.
    min_group_size : int or None, default=None
        None warns once about small groups and keeps every group; an int
        leaves out the smaller groups, as the metrics do.

    Returns
    -------
    estimates : list of float
        Each spec's metric on the data (the public metric function's value;
        invalid data raise its errors).
    shared : object
        The sorted data, which every other function of this module takes.
    """
    return _prepare(*data, specs, min_group_size)


# -- intervals -------------------------------------------------------------------


def interval_band(shared, specs):
    """The simultaneous bands of the specs' gaps, one per norm, or None.

    Each metric is 1-Lipschitz in a norm of the group gap (sup for MCDP(ε)
    and ΔDP_b^t, L1 for ABCC and ΔDP_c, the density gap's L1 for ABPC); the
    band of each norm distinct among ``specs`` is built on ``shared``. None
    when ``specs`` is empty.
    """
    norms = [band_norm(s) for s in specs]
    return BandData(shared, norms) if norms else None


def bootstrap_draws(
    shared, specs, *, confidence_level, n_resamples, bootstrap_method, rng, band=None
):
    """The stratified bootstrap of several metrics (and bands) on shared resamples.

    Each group is resampled on its own (:func:`scipy.stats.bootstrap`); a
    resample reweights the once-sorted scores.

    Parameters
    ----------
    shared : object
        From :func:`shared_sort`.
    specs : list
        The metrics bootstrapped (may be empty when ``band`` is given).
    confidence_level : float
    n_resamples : int
    bootstrap_method : {"basic", "percentile", "BCa"}
        scipy's interval type of the metrics.
    rng : numpy.random.Generator
    band : object or None, default=None
        From :func:`interval_band`: its studentised maxima are drawn on the
        same resamples.

    Returns
    -------
    draws : namedtuple
        ``low``, ``high``, ``se``: each spec's interval and standard error
        (NaN where a resample leaves the metric undefined); ``values``: the
        bootstrap distributions (n_specs, n_resamples); ``maxima``: the band
        norms' studentised maxima (n_norms, n_resamples), or None.
    """
    return _bootstrap(
        shared,
        specs,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        bootstrap_method=bootstrap_method,
        rng=rng,
        band=band,
    )


def band_maxima(shared, band, n_resamples, rng):
    """The bootstrap distribution of the band norms' studentised maxima.

    :func:`bootstrap_draws` of the band alone; (n_norms, n_resamples).
    """
    return bootstrap_draws(
        shared,
        [],
        confidence_level=0.95,  # unused: the quantiles are taken by the caller
        n_resamples=n_resamples,
        bootstrap_method="percentile",
        rng=rng,
        band=band,
    ).maxima


def interval_bounds(shared, specs, methods, confidence_level, band=None, maxima=None):
    """``low`` and ``high`` of each spec by its method: "welch", "newcombe" or "band".

    Parameters
    ----------
    shared : object
        From :func:`shared_sort`.
    specs : list
        From :func:`metric_spec`.
    methods : list of str
        One per spec (see :func:`auto_method`).
    confidence_level : float
    band, maxima : optional
        For the "band" specs: :func:`interval_band` of them, and its
        :func:`band_maxima` (or the ``maxima`` of :func:`bootstrap_draws`).

    Returns
    -------
    low, high : ndarray of shape (n_specs,)
        Within each metric's range; pairs aggregated as the metric does.
    """
    return _interval_bounds(shared, specs, methods, confidence_level, band, maxima)


def dkw_bounds(shared, specs, confidence_level):
    """Distribution-free intervals from the DKW inequality (Massart's constant).

    For metrics that are functionals of the group CDFs (not ABPC): each
    group's band is :func:`~skfair.metrics.dkw_halfwidth` at the error
    probability split over all groups (Bonferroni). Returns ``low`` and
    ``high``, arrays of shape (n_specs,) within [0, 1].
    """
    return _dkw(shared, specs, None, confidence_level)


def zero_if_not_rejected(low, pvalue, confidence_level):
    """``low`` set to 0 where the test of "no disparity" does not reject.

    Lowering a bound never reduces coverage, and the interval then agrees
    with the test: it contains 0 whenever the p-value exceeds
    ``1 - confidence_level``. A NaN p-value (no test) keeps ``low``.
    """
    return _zero_if_not_rejected(low, pvalue, confidence_level)


# -- tests -----------------------------------------------------------------------


def closed_form_pvalue(shared, spec):
    """``(pvalue, test)`` of a test of "no disparity" needing no resampling, or None.

    The exact Kolmogorov–Smirnov test ("ks") for MCDP(0) of two groups;
    "welch" / "alexander-govern" (ΔDP_c) and "chi2" / "fisher" (ΔDP_b^t) for
    ΔDP. Unweighted data only.
    """
    return _closed_form_pvalue(shared, spec)


def ks_problem(shared, spec, sample_weight):
    """Why the exact KS test does not apply to ``spec`` (a string), or None.

    It applies to MCDP(0) (``method="exact"``) of exactly two unweighted
    groups.
    """
    return _ks_problem(spec, shared, sample_weight)


def ks_pvalue(shared):
    """The two-sample Kolmogorov–Smirnov p-value of the two groups.

    :func:`scipy.stats.ks_2samp` with ``method="auto"``; only where
    :func:`ks_problem` is None.
    """
    return _ks_pvalue(shared)


def delta_dp_test(shared, spec):
    """``(pvalue, test)`` of ΔDP's closed-form tests, or None.

    Welch / Alexander–Govern (equal means, ΔDP_c) or chi-square / Fisher
    (equal positive rates, ΔDP_b^t); None for other metrics or weighted data.
    """
    return _closed_form(shared, spec)


def permutation_pvalues(shared, specs, *, n_permutations, rng):
    """One-sided permutation p-values of several specs on shared permutations.

    Group labels are permuted among the samples of the compared groups
    (:func:`scipy.stats.permutation_test`, or the same computation without
    scipy above 50 000 samples); large values are evidence of disparity.
    Returns an array of shape (n_specs,), NaN where a permutation leaves the
    metric undefined; never below the floor of :func:`permutation_resolution`.
    """
    return _permutation_pvalues(shared, specs, n_resamples=n_permutations, rng=rng)


def permutation_resolution(shared, n_permutations):
    """``(n_evaluated, pvalue_floor)`` of :func:`permutation_pvalues`.

    With at most ``n_permutations`` distinct partitions of the permuted
    samples into groups, scipy evaluates them all (an exact test): then
    ``n_evaluated`` is their number and the floor ``1 / n_evaluated``.
    Otherwise ``n_permutations`` random permutations, floor
    ``1 / (n_permutations + 1)``. No p-value is below the floor.
    """
    return _permutation_resolution(shared, n_permutations)


# -- the report ------------------------------------------------------------------


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
        - ``dkw_low``, ``dkw_high``: the DKW interval (NaN for ABPC, and for
          ABCC and ΔDP_c with scores outside [0, 1]);
        - ``pvalue`` and ``test`` ("ks", "welch", "alexander-govern",
          "chi2", "fisher" or "permutation", as in
          :func:`~skfair.metrics.disparity_test`);
        - ``pvalue_floor``: for a permutation test the smallest p-value it
          can give, ``1 / (n_permutations + 1)``, or ``1 / n_partitions``
          when every partition is enumerated (:func:`permutation_resolution`;
          NaN for the other tests).
    """
    data = (None, y_score, sensitive_features, None, combine)
    estimates, shared = shared_sort(data, specs, min_group_size)
    rng = random_generator(random_state)
    methods = [auto_method(s, shared) for s in specs]
    band = interval_band(shared, [s for s, m in zip(specs, methods) if m == "band"])
    legacy, maxima = _shared_draws(
        shared, specs, legacy_bootstrap, band, confidence_level, n_resamples, rng
    )
    low, high = interval_bounds(shared, specs, methods, confidence_level, band, maxima)
    # DKW bounds CDF gaps, and ABCC and ΔDP_c only for scores in [0, 1]
    dkw_at = [j for j, s in enumerate(specs) if metric_upper(shared, s) == 1.0]
    dkw_low, dkw_high = dkw_bounds(shared, [specs[j] for j in dkw_at], confidence_level)
    pvalues, tests, floors = _pvalues(shared, specs, n_permutations, rng)
    low = zero_if_not_rejected(low, pvalues, confidence_level)
    rows = []
    for j, spec in enumerate(specs):
        upper = metric_upper(shared, spec)
        d = dkw_at.index(j) if j in dkw_at else None
        rows.append(
            {
                "value": estimates[j],
                "low": float(low[j]),
                "high": float(high[j]),
                "interval": methods[j],
                "bootstrap_low": float(np.clip(legacy[0][j], 0.0, upper)),
                "bootstrap_high": float(np.clip(legacy[1][j], 0.0, upper)),
                "bootstrap_se": float(legacy[2][j]),
                "dkw_low": float("nan") if d is None else float(dkw_low[d]),
                "dkw_high": float("nan") if d is None else float(dkw_high[d]),
                "pvalue": float(pvalues[j]),
                "pvalue_floor": floors[j],
                "test": tests[j],
            }
        )
    return rows


def _shared_draws(
    shared, specs, legacy_bootstrap, band, confidence_level, n_resamples, rng
):
    """The 'basic' bootstrap of every spec and the band maxima, on shared resamples.

    Returns ``(low, high, se)`` of each spec (NaN arrays without
    ``legacy_bootstrap``) and the band maxima (None without ``band``); draws
    nothing, ``rng`` untouched, when neither is asked for.
    """
    legacy = list(specs) if legacy_bootstrap else []
    nan = tuple(np.full(len(specs), np.nan) for _ in range(3))
    if not legacy and band is None:
        return nan, None
    draws = bootstrap_draws(
        shared,
        legacy,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        bootstrap_method="basic",
        rng=rng,
        band=band,
    )
    return ((draws.low, draws.high, draws.se) if legacy else nan), draws.maxima


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
        closed = closed_form_pvalue(shared, spec)
        if closed is None:
            permuted.append(j)
        else:
            pvalues[j], tests[j] = closed
    if permuted:
        pvalues[permuted] = permutation_pvalues(
            shared, [specs[j] for j in permuted], n_permutations=n_permutations, rng=rng
        )
        floor = permutation_resolution(shared, n_permutations)[1]
        for j in permuted:
            tests[j] = "permutation"
            floors[j] = floor
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
