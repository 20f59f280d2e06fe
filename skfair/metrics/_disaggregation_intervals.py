"""Confidence intervals of a :class:`~skfair.metrics.GroupMetricFrame`'s values.

Which interval each value gets (``interval="auto"``), and what it claims:

* **A group's or the overall value of a proportion** (accuracy, selection
  rate, true/false positive/negative rates, precision, zero-one loss):
  Wilson's score interval on the metric's own denominator (the group's
  samples, its positives, its predicted positives, ...); with weights the
  weighted rate and Kish's effective size ``(sum w)^2 / sum w^2`` of the
  denominator. Each interval covers its own value (pointwise).
* **The ``between_groups`` difference of a proportion**: Newcombe's hybrid
  score interval for every pair of groups at level ``1 - alpha / n_pairs``
  (Bonferroni), folded to ``|d|``; on the event that every pair's interval
  holds (probability at least ``1 - alpha``) the largest gap lies between
  the largest lower and the largest upper bound. With two groups this is
  Newcombe's interval itself.
* **Anything else** (F1, balanced accuracy, any callable, ``to_overall``
  comparisons, ratios): a stratified bootstrap (resampling within each
  cell, so group sizes are fixed, as in the data). A group's value gets the
  percentile interval; a difference or ratio gets a *simultaneous band*:
  the bootstrap quantile ``c`` of ``max_g |v*_g - v_g| / se_g`` over the
  groups (and the overall value for ``to_overall``) makes
  ``[v_g - c se_g, v_g + c se_g]`` hold for every group at once, and the
  difference or ratio of the band's ends bounds the true one. ``se_g`` is
  the bootstrap standard deviation, or Agresti and Coull's
  ``sqrt(p (1 - p) / (n + 4))`` with ``p = (k + 2) / (n + 4)`` for a
  proportion, which stays positive at rates of 0 or 1. The band is
  conservative for the extremes it bounds; its own coverage is the
  bootstrap's (accurate once each group has a few dozen samples).

With control features every control level's interval holds at the
confidence level on its own (no correction across levels or metrics).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._disaggregation_strata import bootstrap
from .inference import (
    check_band_resamples,
    check_n_resamples,
    fold_abs,
    newcombe_interval,
    wilson_interval,
)

INTERVAL_OPTIONS = ("auto", "wilson", "newcombe", "bootstrap")
INTERVAL_ERROR = "interval must be one of {options} for {what}; got {interval!r}."
NOT_A_PROPORTION_ERROR = (
    "interval={interval!r} needs a proportion, and {metric!r} is not one; the "
    "proportions are accuracy, selection rate, true/false positive/negative "
    "rates, precision and zero-one loss given by name. Use interval='bootstrap' "
    "(or 'auto')."
)


def check_interval(interval, options, what):
    """Raise :data:`INTERVAL_ERROR` unless ``interval`` is one of ``options``."""
    if interval not in options:
        raise ValueError(
            INTERVAL_ERROR.format(options=list(options), what=what, interval=interval)
        )


def _is_proportion(metric):
    return metric.rate is not None and metric.rate.is_proportion


def _closed_form(metric, interval, name, *, applies=True):
    """Whether ``metric`` takes the closed-form interval ``name`` (else the bootstrap).

    A proportion does where the closed form ``applies``, unless ``interval``
    is "bootstrap"; ``interval=name`` refuses any other metric
    (:data:`NOT_A_PROPORTION_ERROR`).
    """
    if applies and _is_proportion(metric) and interval != "bootstrap":
        return True
    if interval == name:
        raise ValueError(
            NOT_A_PROPORTION_ERROR.format(interval=interval, metric=metric.name)
        )
    return False


def _z(level):
    return stats.norm.isf((1.0 - level) / 2.0)


def value_bounds(evaluation, where, level, interval, n_resamples, rng):
    """Pointwise intervals of every metric's values by cell or by control level.

    ``where`` is "cells" (shape ``(n_cells, M)``) or "levels" (``(C, M)``).
    """
    check_interval(interval, ("auto", "wilson", "bootstrap"), "a group's value")
    metrics = evaluation.metrics
    values = evaluation.by_cell if where == "cells" else evaluation.overall
    low, high = np.full(values.shape, np.nan), np.full(values.shape, np.nan)
    drawn = []
    for m, metric in enumerate(metrics):
        if metric.rate is not None and metric.rate.name == "count":
            low[:, m] = high[:, m] = values[:, m]  # fixed by the stratified design
        elif _closed_form(metric, interval, "wilson"):
            counts = evaluation.counts[m][0 if where == "cells" else 1]
            rate, trials = values[:, m], counts.trials(metric.rate)
            with np.errstate(divide="ignore", invalid="ignore"):
                bounds = wilson_interval(rate, trials, _z(level))
            low[:, m], high[:, m] = np.where(trials > 0, bounds, np.nan)
        else:
            drawn.append(m)
    if drawn:
        check_n_resamples(n_resamples)
        draws = _draws(evaluation, drawn, n_resamples, rng)[
            0 if where == "cells" else 1
        ]
        alpha = 1.0 - level
        with np.errstate(invalid="ignore"):
            quantiles = np.nanquantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
        low[:, drawn], high[:, drawn] = quantiles
        low[np.isnan(values)] = high[np.isnan(values)] = np.nan
    return low, high


def _draws(evaluation, indices, n_resamples, rng):
    metrics = [evaluation.metrics[m] for m in indices]
    return bootstrap(metrics, evaluation.samples, evaluation.strata, n_resamples, rng)


def compare_bounds(evaluation, how, method, level, interval, n_resamples, rng):
    """Intervals of every metric's difference or ratio (``how``), shape ``(C, M)``."""
    closed_form = how == "difference" and method == "between_groups"
    options = (
        ("auto", "newcombe", "bootstrap") if closed_form else ("auto", "bootstrap")
    )
    check_interval(interval, options, f"a {method} {how}")
    strata, metrics = evaluation.strata, evaluation.metrics
    shape = (strata.n_control, len(metrics))
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    banded = []
    for m, metric in enumerate(metrics):
        if _closed_form(metric, interval, "newcombe", applies=closed_form):
            low[:, m], high[:, m] = _newcombe_bounds(evaluation, m, level)
        else:
            banded.append(m)
    if banded:
        check_band_resamples(n_resamples, level)
        draws = _draws(evaluation, banded, n_resamples, rng)
        for j, m in enumerate(banded):
            for c in range(strata.n_control):
                low[c, m], high[c, m] = _band_bounds(
                    evaluation,
                    m,
                    c,
                    (draws[0][..., j], draws[1][..., j]),
                    how,
                    method,
                    level,
                )
    return low, high


def _newcombe_bounds(evaluation, m, level):
    """Bonferroni-Newcombe bounds of each control level's largest pair gap."""
    strata, metric = evaluation.strata, evaluation.metrics[m]
    trials = evaluation.counts[m][0].trials(metric.rate)
    rates = evaluation.by_cell[:, m]
    low, high = np.full(strata.n_control, np.nan), np.full(strata.n_control, np.nan)
    for c in range(strata.n_control):
        cells = np.flatnonzero((strata.control == c) & ~np.isnan(rates) & (trials > 0))
        if cells.size < 2:
            continue
        a, b = np.triu_indices(cells.size, k=1)
        a, b = cells[a], cells[b]
        z = stats.norm.isf((1.0 - level) / (2.0 * a.size))
        pair_low, pair_high = fold_abs(
            *newcombe_interval(rates[a], trials[a], rates[b], trials[b], z)
        )
        low[c], high[c] = np.clip([pair_low.max(), pair_high.max()], 0.0, 1.0)
    return low, high


def _standard_errors(evaluation, m, cells, draws_cells, c, draws_level):
    """Each band member's scale: Agresti-Coull for proportions, else bootstrap SD."""
    metric = evaluation.metrics[m]
    if not _is_proportion(metric):
        with np.errstate(invalid="ignore"):
            stacked = np.column_stack([draws_cells, draws_level])
            sd = np.nanstd(stacked, axis=0, ddof=1)
        return sd[:-1], sd[-1]
    values = [evaluation.by_cell[cells, m], evaluation.overall[[c], m]]
    counts = [evaluation.counts[m][0], evaluation.counts[m][1]]
    index = [cells, [c]]
    out = []
    for value, count, k in zip(values, counts, index):
        n = count.trials(metric.rate)[k]
        p = (value * n + 2.0) / (n + 4.0)
        out.append(np.sqrt(p * (1.0 - p) / (n + 4.0)))
    return out[0], out[1][0]


def _band_bounds(evaluation, m, c, draws, how, method, level):
    """One control level's bounds of a difference or ratio from the bootstrap band."""
    strata, metric = evaluation.strata, evaluation.metrics[m]
    cells = np.flatnonzero(
        (strata.control == c) & strata.kept & ~np.isnan(evaluation.by_cell[:, m])
    )
    overall = evaluation.overall[c, m]
    too_few = cells.size < 2 if method == "between_groups" else np.isnan(overall)
    if cells.size == 0 or too_few:
        return np.nan, np.nan
    se, se_level = _standard_errors(
        evaluation, m, cells, draws[0][:, cells], c, draws[1][:, c]
    )
    centre = np.append(evaluation.by_cell[cells, m], overall)
    spread = np.append(se, se_level)
    members = np.column_stack([draws[0][:, cells], draws[1][:, c]])
    if method == "between_groups":  # the overall value is no member of the band
        centre, spread, members = centre[:-1], spread[:-1], members[:, :-1]
    critical = _critical_value(members, centre, spread, level)
    with np.errstate(invalid="ignore"):  # 0 * inf: a member without spread
        half = np.where(
            spread > 0, critical * spread, 0.0 if critical < np.inf else np.inf
        )
    low, high = centre - half, centre + half
    if metric.bounded:
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    elif (centre >= 0).all() and not (members < 0).any():  # a non-negative metric
        low = np.maximum(low, 0.0)
    if method == "between_groups":
        return _between_bounds(low, high, how)
    return _to_overall_bounds(low[:-1], high[:-1], low[-1], high[-1], how)


def _critical_value(members, centre, spread, level):
    """The ``level`` quantile of the bootstrap's studentised maximum deviation."""
    deviation = np.abs(members - centre)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(
            spread > 0, deviation / spread, np.where(deviation > 0, np.inf, 0.0)
        )
    scaled = np.where(np.isnan(members), np.inf, scaled)  # undefined in a resample
    maxima = np.sort(scaled.max(axis=1))
    rank = int(np.ceil((maxima.shape[0] + 1) * level)) - 1
    return maxima[min(rank, maxima.shape[0] - 1)]


def _between_bounds(low, high, how):
    if how == "difference":
        return max(0.0, low.max() - high.min()), high.max() - low.min()
    if low.min() < 0:  # a ratio of signed values means nothing
        return np.nan, np.nan
    top = high.max()
    lower = low.min() / top if top > 0 else 0.0
    bottom = low.max()
    upper = min(1.0, high.min() / bottom) if bottom > 0 else 1.0
    return lower, upper


def _to_overall_bounds(low, high, low_all, high_all, how):
    if how == "difference":
        folded_low, folded_high = fold_abs(low - high_all, high - low_all)
        return folded_low.max(), folded_high.max()
    if low.min() < 0 or low_all < 0:
        return np.nan, np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        smallest = np.where(high_all > 0, low / high_all, 0.0)
        largest = np.where(low_all > 0, high / low_all, np.inf)
    below = np.minimum(_below_one(smallest), _below_one(largest))
    above = np.where(
        (smallest <= 1.0) & (largest >= 1.0),
        1.0,
        np.maximum(_below_one(smallest), _below_one(largest)),
    )
    return below.min(), above.min()


def _below_one(ratio):
    """Fairlearn's ratio turned below one: ``min(r, 1 / r)`` (0 at 0 and infinity)."""
    with np.errstate(divide="ignore"):
        return np.where(ratio > 1.0, 1.0 / ratio, ratio)
