"""Every metric's value, intervals and p-value on one sort: the audit report's call."""

from __future__ import annotations

import numpy as np

from ._bands import interval_band
from ._bounds import dkw_bounds, interval_bounds, zero_if_not_rejected
from ._closed_form import closed_form_pvalue
from ._permutation import permutation_pvalues, permutation_resolution
from ._resampling import band_maxima
from ._sorted import shared_sort
from ._specs import auto_method, metric_upper, random_generator


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
    estimates=None,
    progress=None,
    sample_weight=None,
    survey=False,
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
        From :func:`~skfair.metrics.inference.metric_spec`.
    combine : {"intersection", "marginal"}
    confidence_level : float
    n_resamples, n_permutations : int
        Bootstrap resamples and permutations, shared by every metric.
    random_state : int, RandomState, Generator or None
    min_group_size : int
        Groups smaller than this are in no comparison.
    estimates : list of float or None, default=None
        The specs' values on the data, from their public functions, when the
        caller has them (and has validated the data): they are not
        evaluated again. None evaluates them.
    progress : callable or None, default=None
        Called as ``progress(done, total)`` as the resamples and permutations
        are evaluated (``total``: the bootstrap resamples of the bands, if
        any, plus the permutations evaluated, if any).

    Returns
    -------
    rows : list of dict
        One per spec, with the keys

        - ``value``: the metric;
        - ``low``, ``high``: the default interval; ``interval``: its method
          ("band", "welch" or "newcombe");
        - ``dkw_low``, ``dkw_high``: the DKW interval (NaN for ABPC, and for
          ABCC and ΔDP_c with scores outside [0, 1]);
        - ``pvalue`` and ``test`` ("ks", "welch", "alexander-govern",
          "chi2", "fisher" or "permutation", as in
          :func:`~skfair.metrics.disparity_test`);
        - ``pvalue_floor``: for a permutation test the smallest p-value it
          can give, ``1 / (n_permutations + 1)``, or ``1 / n_partitions``
          when every partition is enumerated
          (:func:`~skfair.metrics.inference.permutation_resolution`; NaN for
          the other tests).
    """
    data = (None, y_score, sensitive_features, sample_weight, combine)
    estimates, shared = shared_sort(data, specs, min_group_size, estimates)
    rng = random_generator(random_state)
    methods = [auto_method(s, shared) for s in specs]
    band = interval_band(shared, [s for s, m in zip(specs, methods) if m == "band"])
    closed = [closed_form_pvalue(shared, s) for s in specs]
    permuted = [] if survey else [j for j, c in enumerate(closed) if c is None]
    counter = _Counter(
        progress,
        (0 if band is None else n_resamples)
        + (permutation_resolution(shared, n_permutations)[0] if permuted else 0),
    )
    # draws nothing, rng untouched, without a band
    maxima = (
        None
        if band is None
        else band_maxima(shared, band, n_resamples, rng, progress=counter)
    )
    low, high = interval_bounds(shared, specs, methods, confidence_level, band, maxima)
    # DKW bounds CDF gaps, and ABCC and ΔDP_c only for scores in [0, 1]
    dkw_at = [j for j, s in enumerate(specs) if metric_upper(shared, s) == 1.0]
    if survey:
        dkw_at = []
    dkw_low, dkw_high = dkw_bounds(shared, [specs[j] for j in dkw_at], confidence_level)
    if survey:
        pvalues, tests = np.full(len(specs), np.nan), [""] * len(specs)
        floors = [float("nan")] * len(specs)
    else:
        pvalues, tests, floors = _pvalues(
            shared, specs, closed, n_permutations, rng, counter
        )
    low = zero_if_not_rejected(low, pvalues, confidence_level)
    rows = []
    for j in range(len(specs)):
        d = dkw_at.index(j) if j in dkw_at else None
        rows.append(
            {
                "value": estimates[j],
                "low": float(low[j]),
                "high": float(high[j]),
                "interval": methods[j],
                "dkw_low": float("nan") if d is None else float(dkw_low[d]),
                "dkw_high": float("nan") if d is None else float(dkw_high[d]),
                "pvalue": float(pvalues[j]),
                "pvalue_floor": floors[j],
                "test": tests[j],
            }
        )
    return rows


class _Counter:
    """Resamples and permutations done, told to ``progress(done, total)``."""

    def __init__(self, progress, total):
        self.progress, self.total, self.done = progress, int(total), 0
        if progress is not None and self.total:
            progress(0, self.total)

    def __call__(self, n_rows):
        if self.progress is not None:
            self.done = min(self.total, self.done + int(n_rows))
            self.progress(self.done, self.total)


def _pvalues(shared, specs, closed, n_permutations, rng, progress=None):
    """Per spec: p-value, test name and resolution floor (NaN unless permutation).

    Closed-form tests where they exist (``closed``: each spec's
    :func:`closed_form_pvalue`), one shared set of permutations for the
    others.
    """
    pvalues = np.full(len(specs), np.nan)
    tests = [""] * len(specs)
    floors = [float("nan")] * len(specs)
    permuted = []
    for j, result in enumerate(closed):
        if result is None:
            permuted.append(j)
        else:
            pvalues[j], tests[j] = result
    if permuted:
        pvalues[permuted] = permutation_pvalues(
            shared,
            [specs[j] for j in permuted],
            n_permutations=n_permutations,
            rng=rng,
            progress=progress,
        )
        floor = permutation_resolution(shared, n_permutations)[1]
        for j in permuted:
            tests[j] = "permutation"
            floors[j] = floor
    return pvalues, tests, floors
