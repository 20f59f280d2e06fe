"""Confidence bounds of several metrics on one sort: by method, and by DKW.

:func:`interval_bounds` gives each spec its interval by its method: the
closed forms of ΔDP (Welch, Newcombe: ``_intervals``) or the bootstrap
simultaneous band of the metric's gap norm (``_bands``), Bonferroni over
pairs and aggregated as the metric aggregates pairs. :func:`dkw_bounds` is the
distribution-free interval of the Dvoretzky–Kiefer–Wolfowitz inequality, and
:func:`zero_if_not_rejected` makes an interval agree with its test.
"""

from __future__ import annotations

import numpy as np

from .._base import aggregate
from .._kernels import pair_codes
from .._kernels._pivots import pair_blocks
from ._bands import critical_value
from ._intervals import aggregate_bounds, delta_dp_pair_bounds, summarise_groups
from ._specs import MetricSpec, band_norm, metric_upper


def group_summaries(shared, threshold):
    """Per grouping of ``shared``, the groups' :class:`GroupSummary`."""
    return [
        summarise_groups(
            shared.sorted,
            to_group[shared.cell_sorted],
            shared.w_sorted,
            grouping.n_groups,
            threshold,
        )
        for to_group, grouping in zip(shared.cell_to_group, shared.groupings)
    ]


def _band_pair_values(shared, band, spec, half, critical, sparse=False):
    """Per grouping, the metric of every pair (MCDP exact, also for 'approx').

    With ``agg="max"`` only the largest ``value - half`` and ``value + half``
    over the pairs matter (``half``: the pairs' half-widths): ABPC's pairs
    are exact only where they may give one (a lower bound elsewhere, see
    :func:`~skfair.metrics._kernels.pair_l1_values`), and so are MCDP's and
    ABCC's with a band of groups (half-widths ``h_a + h_b``; see
    :meth:`~skfair.metrics.inference.SharedSort.observed_pair_ends`).
    """
    worst = spec.options.get("agg", "max") == "max"
    norm = band_norm(spec)
    if spec.metric == "abpc":
        return band.kde_pair_values(norm, half if worst else None)
    if spec.metric == "mcdp" and spec.options.get("method") == "approx":
        drop = ("method", "sampling_frequency")
        spec = MetricSpec(
            spec.metric, tuple(kv for kv in spec.kwargs if kv[0] not in drop)
        )
    if worst and not band.pair_mode(norm):
        ends = [[u, -u] for u in band.group_halfwidths(norm, critical)]
        per_grouping = shared.observed_pair_ends(spec, ends, sparse=sparse)
    else:
        per_grouping = shared.observed_pairs([spec])[0]
    return [
        v if isinstance(v, tuple) else np.asarray(v, dtype=np.float64)
        for v in per_grouping
    ]


def _band_ends(shared, band, spec, norm, critical):
    """Per grouping, every pair's band interval ``(low, high)`` (lows >= 0).

    With ``agg="max"`` and a band of groups (many pairs) the half-widths
    (and ABPC's values, pruned within each block) are made block by block
    over the pairs (:func:`~skfair.metrics._kernels._pivots.pair_blocks`)
    and only each block's largest ends are kept: the same maxima without
    the arrays of every pair.
    """
    worst = spec.options.get("agg", "max") == "max"
    if not worst or band.pair_mode(norm):
        half = band.pair_halfwidths(norm, critical)
        values = _band_pair_values(shared, band, spec, half, critical)
        low = [np.maximum(v - h, 0.0) for v, h in zip(values, half)]  # pairs >= 0
        return low, [v + h for v, h in zip(values, half)]
    abpc = spec.metric == "abpc"  # ABPC: each block's values, pruned on it
    values = (
        None
        if abpc
        else _band_pair_values(shared, band, spec, None, critical, sparse=True)
    )
    lows, highs = [], []
    for k, scale in enumerate(band.scales(norm)):
        if values is not None and isinstance(values[k], tuple):  # the pairs kept
            a, b, v = values[k]  # the others' ends cannot be the largest
            h = band.halfwidths_of(norm, critical, k, a, b, scale)
            lows.append(np.array([np.max(np.maximum(v - h, 0.0))]))
            highs.append(np.array([np.max(v + h)]))
            continue
        lo, hi, start = [], [], 0
        for a, b in pair_blocks(scale.shape[0]):
            h = band.halfwidths_of(norm, critical, k, a, b, scale)
            if abpc:
                block = band.kde_block_values(norm, k, a, b, h)
            else:
                block = values[k][start : start + a.shape[0]]
            lo.append(np.max(np.maximum(block - h, 0.0)))
            hi.append(np.max(block + h))
            start += a.shape[0]
        lows.append(np.array(lo))
        highs.append(np.array(hi))
    return lows, highs


def interval_bounds(shared, specs, methods, confidence_level, band=None, maxima=None):
    """``low`` and ``high`` of each spec by its method: "welch", "newcombe" or "band".

    Parameters
    ----------
    shared : SharedSort
        From :func:`~skfair.metrics.inference.shared_sort`.
    specs : list
        From :func:`~skfair.metrics.inference.metric_spec`.
    methods : list of str
        One per spec (see :func:`~skfair.metrics.inference.auto_method`).
    confidence_level : float
    band, maxima : optional
        For the "band" specs: :func:`~skfair.metrics.inference.interval_band`
        of them, and its :func:`~skfair.metrics.inference.band_maxima` (or the
        ``maxima`` of :func:`~skfair.metrics.inference.bootstrap_draws`): the
        bootstrap distribution of each of ``band.norms``' studentised maximum.

    Returns
    -------
    low, high : ndarray of shape (n_specs,)
        Within each metric's range; pairs aggregated as the metric does.
    """
    lows, highs = [], []
    for spec, method in zip(specs, methods):
        if method == "band":
            norm = band_norm(spec)
            critical = critical_value(maxima[band.norms.index(norm)], confidence_level)
            low, high = _band_ends(shared, band, spec, norm, critical)
        else:
            threshold = spec.options.get("threshold")
            summaries = group_summaries(shared, threshold)
            alpha = 1.0 - confidence_level
            worst = spec.options.get("agg", "max") == "max"
            low, high = delta_dp_pair_bounds(
                summaries, threshold, alpha, method, worst=worst
            )
        upper = metric_upper(shared, spec)
        low, high = aggregate_bounds(low, high, spec.options.get("agg", "max"), upper)
        lows.append(low)
        highs.append(high)
    return np.array(lows), np.array(highs)


def dkw_bounds(shared, specs, confidence_level):
    """Distribution-free intervals from the DKW inequality (Massart's constant).

    For metrics that are functionals of the group CDFs (not ABPC): each
    group's band is :func:`dkw_halfwidth` at the error probability split over
    all groups (Bonferroni); a pair's gap moves by at most the sum of its two
    groups' half-widths. Returns ``low`` and ``high``, arrays of shape
    (n_specs,) within [0, 1].
    """
    alpha = 1.0 - confidence_level
    n_groups_total = sum(g.n_groups for g in shared.groupings)
    halves = [
        dkw_halfwidth(g.counts(), alpha / n_groups_total) for g in shared.groupings
    ]
    if shared.w_sorted is None:  # agg="max": the pairs the largest ends need
        per_spec = [
            shared.observed_pair_ends(s, [[t, -t] for t in halves], sparse=True)
            if s.options.get("agg", "max") == "max"
            else shared.observed_pairs([s])[0]
            for s in specs
        ]
    else:  # the unweighted gaps, as the DKW inequality is stated
        per_spec = shared.pair_values(np.ones(shared.n), shared.cell_sorted, specs)
    lows, highs = [], []
    for spec, per_grouping in zip(specs, per_spec):
        agg = spec.options.get("agg", "max")
        lo_g, hi_g = [], []
        for grouping, values, t in zip(shared.groupings, per_grouping, halves):
            if not isinstance(values, tuple):
                values = np.asarray(values, dtype=np.float64)
            lo, hi = _dkw_ends(values, t, grouping.n_groups, agg == "max")
            lo_g.append(lo)
            hi_g.append(hi)
        lows.append(max(0.0, aggregate(lo_g, agg)))
        highs.append(min(1.0, aggregate(hi_g, agg)))
    return np.array(lows), np.array(highs)


def _dkw_ends(values, t, n_groups, worst):
    """Every pair's ``value -/+ (t_a + t_b)``, or with ``worst`` each block's largest.

    The blocks are those of :func:`~skfair.metrics._kernels._pivots.pair_blocks`:
    the same maximum without the arrays of every pair.
    """
    if isinstance(values, tuple):  # the pairs kept: the others' ends are lower
        a, b, kept = values
        slack = t[a] + t[b]
        return np.array([np.max(kept - slack)]), np.array([np.max(kept + slack)])
    if not worst:
        a, b = pair_codes(n_groups)
        slack = t[a] + t[b]
        return values - slack, values + slack
    lows, highs, start = [], [], 0
    for a, b in pair_blocks(n_groups):
        block = values[start : start + a.shape[0]]
        slack = t[a] + t[b]
        lows.append(np.max(block - slack))
        highs.append(np.max(block + slack))
        start += a.shape[0]
    return np.array(lows), np.array(highs)


def dkw_halfwidth(n_samples, alpha):
    r"""Half-width of the DKW confidence band of an empirical CDF.

    With probability at least ``1 - alpha``, the empirical CDF of ``n``
    i.i.d. samples stays within ``t`` of the true CDF everywhere, where
    :math:`P(\sup_x |F_n(x) - F(x)| > t) \le 2 e^{-2 n t^2}` (Massart's
    tight constant) gives :math:`t = \sqrt{\ln(2/\alpha) / (2n)}`.

    Parameters
    ----------
    n_samples : int or array-like of int
        Sample size(s).
    alpha : float
        The error probability, in (0, 1).

    Returns
    -------
    t : float or ndarray
        The half-width(s).

    Examples
    --------
    >>> from skfair.metrics import dkw_halfwidth
    >>> round(float(dkw_halfwidth(1000, 0.05)), 4)
    0.0429
    """
    n = np.asarray(n_samples, dtype=np.float64)
    return np.sqrt(np.log(2.0 / alpha) / (2.0 * n))


def zero_if_not_rejected(low, pvalue, confidence_level):
    """``low`` set to 0 where the test of "no disparity" does not reject.

    Lowering a bound never reduces coverage, and the interval then agrees
    with the test: it contains 0 whenever the p-value exceeds
    ``1 - confidence_level``. A NaN p-value (no test) keeps ``low``.
    """
    keep = ~(np.asarray(pvalue, dtype=np.float64) > 1.0 - confidence_level)
    return np.where(keep, low, 0.0)
