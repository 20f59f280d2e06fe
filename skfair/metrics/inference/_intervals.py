"""Closed-form confidence intervals and p-values for the two ΔDP metrics.

ΔDP_c (a difference of group means) and ΔDP_b^t (a difference of group
positive rates) are smooth functionals with classical intervals that are
close to exact at moderate sample sizes and need no resampling:

* the **Welch** interval for a difference of means (unequal variances,
  Welch–Satterthwaite degrees of freedom);
* **Newcombe's hybrid score interval** (method 10 of Newcombe, 1998) for a
  difference of proportions, built from the two groups' Wilson score
  intervals; unlike the Wald interval it keeps its coverage near 0 and 1.

Both are intervals for the *signed* difference ``d`` of one pair of groups.
The metric is ``|d|`` (then the maximum or mean over pairs), so each pair's
interval is *folded* (:func:`fold_abs`): if ``[L, U]`` covers ``d``, then
``[max(L, -U, 0), max(|L|, |U|)]`` covers ``|d|``. With several pairs the
level of every pair is Bonferroni-corrected (``alpha / n_pairs``), so all
pair intervals hold *simultaneously* with probability at least
``1 - alpha``; on that event every monotone aggregate of the pair values
(their maximum, their mean) lies between the same aggregate of the lower
bounds and of the upper bounds (:func:`aggregate_bounds`).

Sample weights enter through Kish's effective sample size
``n_eff = (sum w)^2 / sum w^2``: the weighted mean's variance is the
linearisation (sandwich) estimate ``sum w_i^2 (x_i - m)^2 / (sum w)^2``
(times ``n / (n - 1)``), Welch's degrees of freedom use ``n_eff - 1``, and
the Wilson intervals see ``n_eff`` trials with the weighted proportion.
Both reduce to the unweighted formulas for equal weights.

References
----------
.. [1] R. G. Newcombe, "Interval estimation for the difference between
   independent proportions: comparison of eleven methods", Statistics in
   Medicine 17 (1998) 873-890.
.. [2] B. L. Welch, "The generalization of 'Student's' problem when several
   different population variances are involved", Biometrika 34 (1947).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._kernels import pair_codes
from .._kernels._pivots import pair_blocks


@dataclass(frozen=True)
class GroupSummary:
    """Per-group sufficient statistics of one grouping (arrays in code order).

    Attributes
    ----------
    n : ndarray
        Samples per group.
    n_eff : ndarray
        Kish's effective sample size (``n`` without weights).
    mean : ndarray
        Weighted mean score.
    se2 : ndarray
        Estimated variance of the weighted mean (NaN for a single sample).
    rate : ndarray or None
        Weighted share of scores ``>= threshold`` (None without threshold).
    positives : ndarray or None
        Unweighted count of scores ``>= threshold``.
    """

    n: np.ndarray
    n_eff: np.ndarray
    mean: np.ndarray
    se2: np.ndarray
    rate: np.ndarray | None = None
    positives: np.ndarray | None = None


def summarise_groups(scores, codes, weights, n_groups, threshold=None):
    """The :class:`GroupSummary` of ``scores`` grouped by ``codes`` (-1: left out)."""
    kept = codes >= 0
    x, c = scores[kept], codes[kept]
    w = np.ones(x.shape[0]) if weights is None else weights[kept]
    n = np.bincount(c, minlength=n_groups).astype(np.float64)
    total = np.bincount(c, weights=w, minlength=n_groups)
    n_eff = total**2 / np.bincount(c, weights=w * w, minlength=n_groups)
    mean = np.bincount(c, weights=w * x, minlength=n_groups) / total
    resid = w * (x - mean[c])
    with np.errstate(divide="ignore", invalid="ignore"):
        se2 = (
            np.bincount(c, weights=resid * resid, minlength=n_groups)
            / total**2
            * n
            / (n - 1.0)
        )
    se2 = np.where(n > 1, se2, np.nan)
    if threshold is None:
        return GroupSummary(n, n_eff, mean, se2)
    above = x >= threshold
    rate = np.bincount(c, weights=w * above, minlength=n_groups) / total
    positives = np.bincount(c, weights=above, minlength=n_groups)
    return GroupSummary(n, n_eff, mean, se2, rate, positives)


def fold_abs(low, high):
    """An interval for ``|d|`` from an interval ``[low, high]`` for ``d``.

    Examples
    --------
    >>> from skfair.metrics.inference import fold_abs
    >>> [tuple(map(float, fold_abs(lo, hi))) for lo, hi in [(0.1, 0.3), (-0.3, -0.1),
    ...                                                  (-0.1, 0.3)]]
    [(0.1, 0.3), (0.1, 0.3), (0.0, 0.3)]
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    folded_low = np.where(low > 0, low, np.where(high < 0, -high, 0.0))
    return folded_low, np.maximum(np.abs(low), np.abs(high))


def wilson_interval(rate, n, z):
    """Wilson's score interval for a proportion ``rate`` out of ``n`` trials.

    Examples
    --------
    >>> from skfair.metrics.inference import wilson_interval
    >>> [round(float(v), 4) for v in wilson_interval(81 / 263, 263, 1.959964)]
    [0.2553, 0.3662]
    >>> [float(v) for v in wilson_interval([0.0, 1.0], 7, 1.959964)[0]]
    [0.0, 0.6456695613241317]
    """
    rate, n = np.asarray(rate, dtype=np.float64), np.asarray(n, dtype=np.float64)
    denominator = 1.0 + z * z / n
    centre = (rate + z * z / (2.0 * n)) / denominator
    half = z * np.sqrt(rate * (1.0 - rate) / n + z * z / (4.0 * n * n)) / denominator
    # At a rate of exactly 0 (or 1) the bound is 0 (or 1) exactly; centre -
    # half leaves a rounding residue (5.6e-17 for 0 out of 7).
    low = np.where(rate == 0.0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(rate == 1.0, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high


def proportion_interval(successes, trials, confidence_level):
    """Wilson's score interval of ``successes / trials`` (NaN where ``trials`` is 0).

    Unlike the normal (Wald) interval it stays in [0, 1] and does not
    collapse to a point at a rate of 0 or 1: the report's per-group rates.

    Examples
    --------
    >>> from skfair.metrics.inference import proportion_interval
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


def newcombe_interval(rate_a, n_a, rate_b, n_b, z):
    """Newcombe's hybrid score interval (method 10) for ``rate_a - rate_b``.

    Examples
    --------
    Newcombe's (1998) worked example (h): 56/70 - 48/80 has the interval
    (0.0524, 0.3339).

    >>> from skfair.metrics.inference import newcombe_interval
    >>> [round(float(v), 4) for v in newcombe_interval(56 / 70, 70, 48 / 80, 80,
    ...                                                 1.959964)]
    [0.0524, 0.3339]
    """
    low_a, high_a = wilson_interval(rate_a, n_a, z)
    low_b, high_b = wilson_interval(rate_b, n_b, z)
    d = np.asarray(rate_a) - np.asarray(rate_b)
    low = d - np.sqrt((rate_a - low_a) ** 2 + (high_b - rate_b) ** 2)
    high = d + np.sqrt((high_a - rate_a) ** 2 + (rate_b - low_b) ** 2)
    return low, high


def welch_interval(mean_a, se2_a, dof_a, mean_b, se2_b, dof_b, alpha):
    """Welch's two-sided ``1 - alpha`` interval for ``mean_a - mean_b``.

    ``se2`` are the variances of the two means and ``dof`` their degrees of
    freedom (``n - 1``, or ``n_eff - 1`` with weights). A pair with a
    one-sample group (``se2`` NaN) gets an infinite interval.
    """
    se2 = se2_a + se2_b
    with np.errstate(divide="ignore", invalid="ignore"):
        df = se2**2 / (se2_a**2 / dof_a + se2_b**2 / dof_b)
    df = np.where(np.isfinite(df) & (df > 0), df, np.inf)  # se2 = 0: no spread
    half = stats.t.isf(alpha / 2.0, df) * np.sqrt(se2)
    half = np.where(np.isnan(half), np.inf, half)
    d = mean_a - mean_b
    return d - half, d + half


def delta_dp_pair_bounds(summaries, threshold, alpha, method="welch", worst=False):
    """Folded simultaneous pair intervals of ΔDP (Welch or Newcombe), per grouping.

    ``summaries`` holds one entry per grouping; every pair of every grouping
    gets level ``alpha / n_pairs`` (Bonferroni). With a threshold the rates
    get Newcombe's interval; without one (ΔDP_c) the means get Welch's, or,
    with ``method="newcombe"``, Newcombe's: for scores that are all 0 or 1
    (hard predictions) each mean is a proportion, and Welch's interval
    collapses to a point when a group's predictions are all equal. With
    ``worst`` (``agg="max"``) each grouping's arrays hold only the largest
    low and high of each block of pairs
    (:func:`~skfair.metrics._kernels._pivots.pair_blocks`), whose maximum is
    that of every pair: memory bounded whatever the pairs.
    """
    n_groups = [summary.n.shape[0] for summary in summaries]
    n_pairs = max(1, sum(k * (k - 1) // 2 for k in n_groups))
    lows, highs = [], []
    for summary, k in zip(summaries, n_groups):
        if not worst:
            low, high = _pair_bounds(
                summary, *pair_codes(k), threshold, alpha / n_pairs, method
            )
        else:
            ends = [
                _pair_bounds(summary, a, b, threshold, alpha / n_pairs, method)
                for a, b in pair_blocks(k)
            ]
            low = np.array([np.max(lo) for lo, _ in ends])  # empty: no pair
            high = np.array([np.max(hi) for _, hi in ends])
        lows.append(low)
        highs.append(high)
    return lows, highs


def _pair_bounds(summary, a, b, threshold, level, method):
    """The folded intervals of the pairs ``(a, b)`` at ``level`` (Bonferroni'd)."""
    if threshold is None and method == "welch":
        dof = summary.n_eff - 1.0
        low, high = welch_interval(
            summary.mean[a],
            summary.se2[a],
            dof[a],
            summary.mean[b],
            summary.se2[b],
            dof[b],
            level,
        )
    else:
        z = stats.norm.isf(level / 2.0)
        rate = summary.mean if threshold is None else summary.rate
        n_eff = summary.n_eff
        low, high = newcombe_interval(rate[a], n_eff[a], rate[b], n_eff[b], z)
    return fold_abs(low, high)


def aggregate_bounds(lows, highs, agg, upper):
    """Bounds of the metric (max over groupings of ``agg`` over pairs), clipped."""
    reduce = np.max if agg == "max" else np.mean
    low = max(float(reduce(v)) for v in lows)
    high = max(float(reduce(v)) for v in highs)
    return float(np.clip(low, 0.0, upper)), float(np.clip(high, 0.0, upper))


def delta_dp_pvalue(summaries, threshold):
    """Closed-form p-value of "equal means" / "equal positive rates" (unweighted).

    Returns ``(pvalue, test)``: for ΔDP_c Welch's t-test (two groups) or the
    Alexander–Govern test (more: a heteroscedastic one-way ANOVA), for
    ΔDP_b^t Pearson's chi-square test of the groups x decision table, or
    Fisher's exact test for two groups with an expected count below 5 (the
    caller tests ΔDP_c of 0/1 scores as ΔDP_b^0.5). Several
    groupings (``combine="marginal"``) combine by Bonferroni. None when a
    group has fewer than two samples or (ΔDP_c) no spread.
    """
    pvalues, names = [], set()
    for summary in summaries:
        result = _mean_test(summary) if threshold is None else _rate_test(summary)
        if result is None:
            return None
        pvalues.append(result[0])
        names.add(result[1])
    test = names.pop() if len(names) == 1 else "+".join(sorted(names))
    return float(min(1.0, len(pvalues) * min(pvalues))), test


def _mean_test(summary):
    if (summary.n < 2).any() or not (summary.se2 > 0).all():
        return None
    mean, se2, dof = summary.mean, summary.se2, summary.n - 1.0
    if mean.shape[0] == 2:
        t = (mean[0] - mean[1]) / np.sqrt(se2[0] + se2[1])
        df = (se2[0] + se2[1]) ** 2 / (se2[0] ** 2 / dof[0] + se2[1] ** 2 / dof[1])
        return float(2.0 * stats.t.sf(abs(t), df)), "welch"
    # Alexander-Govern (1994), as scipy.stats.alexandergovern, from the summaries
    w = (1.0 / se2) / np.sum(1.0 / se2)
    grand = np.sum(w * mean)
    t = (mean - grand) / np.sqrt(se2)
    a = dof - 0.5
    b = 48.0 * a**2
    c = np.sqrt(a * np.log1p(t**2 / dof))
    z = (
        c
        + (c**3 + 3 * c) / b
        - (4 * c**7 + 33 * c**5 + 240 * c**3 + 855 * c)
        / (10 * b**2 + 8 * b * c**4 + 1000 * b)
    )
    statistic = float(np.sum(z**2))
    return float(stats.chi2.sf(statistic, mean.shape[0] - 1)), "alexander-govern"


def _rate_test(summary):
    positives = summary.positives
    table = np.c_[positives, summary.n - positives]
    if table.sum(axis=0).min() == 0:  # every decision the same: no evidence
        return 1.0, "chi2"
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    if table.shape[0] == 2 and expected.min() < 5:
        return float(stats.fisher_exact(table).pvalue), "fisher"
    statistic = float(np.sum((table - expected) ** 2 / expected))
    return float(stats.chi2.sf(statistic, table.shape[0] - 1)), "chi2"
