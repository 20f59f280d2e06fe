r"""Sufficiency: calibration curves by group, the calibration gap and a test.

:func:`calibration_by_group` bins the scores once, on all samples, and gives
every group's observed rate of the positive class in every bin with Wilson's
score interval, the mean score and the counts; the calibration gap between
two groups is the weighted mean absolute difference of their observed rates
over the bins both occupy (Becker et al.'s calibration measure on skfair's
bins), and a test of equal calibration: within every bin, a score test of
the groups' outcomes beyond what the score explains, summed over the bins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..utils._group_encoding import sensitive_groupings
from ..utils._validation import (
    check_pos_label,
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
)
from .inference._intervals import wilson_interval
from .inference._specs import check_confidence_level

STRATEGY_ERROR = "strategy must be 'quantile' or 'uniform'; got {value!r}."
N_BINS_ERROR = "n_bins must be an integer >= 1; got {value!r}."
# The fitted probabilities of the score test are clipped to [_P_FLOOR, 1 - _P_FLOOR].
_P_FLOOR = 1e-6
# A group enters a bin's test when it expects this many of each outcome there.
_MIN_EXPECTED = 5.0
TABLE_COLUMNS = (
    "attribute",
    "group",
    "bin",
    "bin_low",
    "bin_high",
    "count",
    "weight",
    "mean_score",
    "observed_rate",
    "ci_low",
    "ci_high",
)
SUMMARY_COLUMNS = (
    "attribute",
    "gap",
    "gap_groups",
    "max_bin_gap",
    "statistic",
    "dof",
    "pvalue",
)


@dataclass(frozen=True)
class CalibrationByGroupResult:
    """The outcome of :func:`calibration_by_group`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per attribute (or intersection), group and non-empty bin:
        ``attribute``, ``group``, ``bin`` (its index), ``bin_low`` and
        ``bin_high`` (its edges), ``count`` (samples), ``weight`` (their
        total weight; the count without weights), ``mean_score``,
        ``observed_rate`` (the weighted share of the positive class) and its
        Wilson interval ``ci_low``, ``ci_high``.
    summary : pandas.DataFrame
        One row per attribute: ``gap`` and the pair ``gap_groups`` it is
        between, ``max_bin_gap`` (the largest difference of two groups'
        rates in one bin), the test's ``statistic``, ``dof`` (its degrees of
        freedom) and ``pvalue``.
    gap : float
        The largest calibration gap over the attributes and pairs of groups
        (NaN when no two groups share a bin).
    gap_groups : tuple
        The pair of groups with that gap.
    pvalue : float
        The p-value of equal calibration of every group (with several
        attributes, ``combine="marginal"``: the smallest, times their number,
        at most 1: Bonferroni).
    bin_edges : ndarray
        The bin edges.

    Examples
    --------
    >>> from skfair.metrics import calibration_by_group
    >>> y = [0, 1, 0, 1, 1, 1, 0, 0]
    >>> s = [.2, .8, .2, .8, .2, .8, .2, .8]
    >>> g = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> result = calibration_by_group(y, s, sensitive_features=g, n_bins=2)
    >>> result.gap, result.gap_groups
    (0.5, ('a', 'b'))
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    gap: float
    gap_groups: tuple
    pvalue: float
    bin_edges: np.ndarray

    def __repr__(self):
        n_bins = self.bin_edges.size - 1
        lines = [
            f"CalibrationByGroupResult(gap={self.gap:.4g} between "
            f"{self.gap_groups[0]!r} and {self.gap_groups[1]!r}, "
            f"p={self.pvalue:.3g}, {n_bins} bins)"
        ]
        if len(self.summary) > 1:
            for row in self.summary.itertuples():
                lines.append(
                    f"  {row.attribute}: gap={row.gap:.4g}, p={row.pvalue:.3g}"
                )
        return "\n".join(lines)


def bin_edges(scores, n_bins, strategy):
    """The edges of ``n_bins`` bins of ``scores`` (quantile: tied edges merged).

    ``"uniform"`` bins split [0, 1] when every score lies in it, else the
    observed range; ``"quantile"`` bins hold about equally many samples.

    Examples
    --------
    >>> bin_edges(np.array([0.1, 0.4, 0.4, 0.9]), 2, "uniform").tolist()
    [0.0, 0.5, 1.0]
    >>> bin_edges(np.array([0.1, 0.4, 0.4, 0.9]), 4, "quantile").tolist()
    [0.1, 0.325, 0.4, 0.525, 0.9]
    """
    low, high = float(scores.min()), float(scores.max())
    if strategy == "uniform":
        if low >= 0.0 and high <= 1.0:
            low, high = 0.0, 1.0
        if low == high:
            return np.array([low, high])
        return np.linspace(low, high, n_bins + 1)
    edges = np.unique(np.quantile(scores, np.linspace(0.0, 1.0, n_bins + 1)))
    return edges if edges.size >= 2 else np.array([low, high])


def assign_bins(scores, edges):
    """Bin index of every score: ``(e_k, e_{k+1}]``, the first bin from ``e_0``.

    As ``sklearn.calibration.calibration_curve``.

    Examples
    --------
    >>> assign_bins(np.array([0.0, 0.5, 0.6, 1.0]), np.array([0.0, 0.5, 1.0]))
    array([0, 0, 1, 1])
    """
    return np.searchsorted(edges[1:-1], scores, side="left")


def calibration_score_test(codes, bins, scores, y, weights, n_bins):
    r"""The score test of equal calibration: ``(statistic, dof)``, summed over bins.

    In every bin :math:`k`, over the groups expected to have 5 or more
    of each outcome there (at the bin's pooled rate, in Kish's effective
    samples), if at least two, the outcome is regressed on the score
    (pooled over the groups, weighted least squares on :math:`1, s`; on the
    intercept alone when the bin's scores are tied), and the group
    indicators (all but one group) are tested: with :math:`\tilde Z` the
    indicators less their projection on :math:`(1, s)`, :math:`r` the
    residuals and :math:`\hat p` the fitted probabilities (clipped to
    :math:`[10^{-6}, 1 - 10^{-6}]`),
    :math:`U = \tilde Z^\top W r`, :math:`V = \tilde Z^\top W^2
    \mathrm{diag}(\hat p (1 - \hat p)) \tilde Z` and the bin adds
    :math:`U^\top V^{+} U` on :math:`\mathrm{rank}(V)` degrees of freedom.
    With tied scores (intercept only) and unit weights this is Pearson's
    chi-square of equal rates of the groups in the bin.

    Examples
    --------
    Pearson's chi-square of 15/20 against 5/20 in one bin of tied scores:

    >>> codes = np.repeat([0, 1], 20)
    >>> y = np.r_[np.ones(15), np.zeros(5), np.ones(5), np.zeros(15)]
    >>> statistic, dof = calibration_score_test(
    ...     codes, np.zeros(40, dtype=int), np.full(40, 0.5), y, np.ones(40), 1)
    >>> round(statistic, 10), dof
    (10.0, 1)
    """
    statistic, dof = 0.0, 0
    for k in range(n_bins):
        inside = bins == k
        g, t, w = codes[inside], y[inside], weights[inside]
        present = _testable_groups(g, t, w)
        if present.size < 2:
            continue
        inside = np.isin(g, present)
        g, t, w = g[inside], t[inside], w[inside]
        part, rank = _bin_score_test(scores[bins == k][inside], g, t, w, present)
        statistic += part
        dof += rank
    return float(statistic), int(dof)


def _testable_groups(g, t, w):
    """The groups of a bin whose expected counts of both outcomes reach 5.

    Expected at the bin's pooled rate, in effective samples (Kish); the
    chi-square approximation needs them (the rule of thumb of Pearson's
    test), and a bin of one outcome only tells nothing.
    """
    total = np.sum(w)
    rate = np.sum(w * t) / total if total > 0 else 0.0
    labels, inverse = np.unique(g, return_inverse=True)
    weight = np.bincount(inverse, weights=w)
    n_eff = weight**2 / np.maximum(np.bincount(inverse, weights=w * w), 1e-300)
    ok = (n_eff * rate >= _MIN_EXPECTED) & (n_eff * (1 - rate) >= _MIN_EXPECTED)
    return labels[ok & (weight > 0)]


def _bin_score_test(s, g, t, w, present):
    """One bin's score statistic and its degrees of freedom (see above)."""
    centred = s - np.average(s, weights=w)
    if np.ptp(s) > 0:
        x = np.column_stack([np.ones(s.size), centred / np.abs(centred).max()])
    else:
        x = np.ones((s.size, 1))
    z = (g[:, None] == present[None, 1:]).astype(np.float64)
    xtw = x.T * w
    gram = np.linalg.pinv(xtw @ x)
    beta = gram @ (xtw @ t)
    fitted = x @ beta
    z_tilde = z - x @ (gram @ (xtw @ z))
    u = z_tilde.T @ (w * (t - fitted))
    p = np.clip(fitted, _P_FLOOR, 1.0 - _P_FLOOR)
    v = (z_tilde * (w * w * p * (1.0 - p))[:, None]).T @ z_tilde
    rank = int(np.linalg.matrix_rank(v))
    if rank == 0:
        return 0.0, 0
    return float(u @ np.linalg.pinv(v) @ u), rank


def _pair_gaps(rate, weight, labels):
    """``(gap, pair, max_bin_gap)`` of the worst pair of groups."""
    best = (-1.0, None, 0.0)
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            both = (weight[a] > 0) & (weight[b] > 0)
            if not both.any():
                continue
            diff = np.abs(rate[a, both] - rate[b, both])
            w = weight[a, both] + weight[b, both]
            gap = float(np.sum(w * diff) / np.sum(w))
            if gap > best[0]:
                best = (gap, (labels[a], labels[b]), best[2])
            best = (best[0], best[1], max(best[2], float(diff.max())))
    if best[1] is None:
        return float("nan"), (labels[0], labels[1]), float("nan")
    return best


def _grouping_rows(grouping, scores, y, weights, bins, edges, z):
    """The table rows and cell arrays of one grouping."""
    codes = grouping.restrict(grouping.codes)
    s, t, w, k = (grouping.restrict(v) for v in (scores, y, weights, bins))
    n_groups, n_bins = grouping.n_groups, edges.size - 1
    cells = codes * n_bins + k
    size = n_groups * n_bins
    count = np.bincount(cells, minlength=size).reshape(n_groups, -1)
    weight = np.bincount(cells, weights=w, minlength=size).reshape(n_groups, -1)
    w2 = np.bincount(cells, weights=w * w, minlength=size).reshape(n_groups, -1)
    pos = np.bincount(cells, weights=w * t, minlength=size).reshape(n_groups, -1)
    mass = np.bincount(cells, weights=w * s, minlength=size).reshape(n_groups, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = pos / weight
        mean = mass / weight
        n_eff = weight**2 / w2
        low, high = wilson_interval(rate, n_eff, z)
    g_idx, b_idx = np.nonzero(count > 0)
    rows = pd.DataFrame(
        {
            "attribute": grouping.name,
            "group": [grouping.labels[g] for g in g_idx],
            "bin": b_idx,
            "bin_low": edges[b_idx],
            "bin_high": edges[b_idx + 1],
            "count": count[g_idx, b_idx],
            "weight": weight[g_idx, b_idx],
            "mean_score": mean[g_idx, b_idx],
            "observed_rate": rate[g_idx, b_idx],
            "ci_low": low[g_idx, b_idx],
            "ci_high": high[g_idx, b_idx],
        },
        columns=list(TABLE_COLUMNS),
    )
    return rows, (codes, k, t, w), rate, weight


def check_n_bins(n_bins):
    """``n_bins`` as an int >= 1, or :data:`N_BINS_ERROR`."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)):
        raise ValueError(N_BINS_ERROR.format(value=n_bins))
    if n_bins < 1:
        raise ValueError(N_BINS_ERROR.format(value=n_bins))
    return int(n_bins)


def _check_options(n_bins, strategy):
    check_n_bins(n_bins)
    if strategy not in ("quantile", "uniform"):
        raise ValueError(STRATEGY_ERROR.format(value=strategy))


def calibration_by_group(
    y_true,
    y_score,
    *,
    sensitive_features,
    n_bins=10,
    strategy="quantile",
    pos_label=1,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
    confidence_level=0.95,
):
    r"""Each group's calibration curve, the calibration gap between groups, a test.

    Sufficiency asks whether a score means the same in every group: among
    people with similar scores, is the share of the positive class the
    same whatever their group? The scores are binned once, on all samples;
    for every group and bin the result gives the observed rate of
    ``pos_label`` with Wilson's score interval, the mean score and the
    counts (a calibration curve per group). The **calibration gap** of two
    groups is the absolute difference of their observed rates, averaged
    over the bins both occupy with the pair's weight in each bin; the
    **test** asks whether, within the bins, the group tells anything about
    the outcome that the score does not.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes.
    y_score : array-like of shape (n_samples,)
        Scores (any real numbers; probabilities for a calibration curve to
        compare with the diagonal).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    n_bins : int, default=10
        Number of bins.
    strategy : {"quantile", "uniform"}, default="quantile"
        "quantile": bins of about equal count at the pooled quantiles (tied
        quantiles merged, so there may be fewer bins); "uniform": equal
        widths on [0, 1] if every score lies in it, else on the observed
        range. A bin holds the scores in :math:`(e_k, e_{k+1}]` (the first
        from :math:`e_0`), as in ``sklearn.calibration.calibration_curve``.
    pos_label : int, float, bool or str, default=1
        The class whose rate is observed.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Weights: weighted rates and mean scores, Wilson intervals on Kish's
        effective number of samples :math:`(\sum w)^2 / \sum w^2`; the bins
        are the unweighted quantiles.
    combine : {"intersection", "marginal"}, default="intersection"
        With several attributes, compare the groups of their intersection,
        or of each attribute (then ``gap`` is the largest over them and
        ``pvalue`` Bonferroni's).
    min_group_size : int or None, default=None
        Leave out the groups of fewer samples (None: keep them, with a
        ``SmallGroupWarning`` under 30).
    confidence_level : float, default=0.95
        Of the Wilson intervals.

    Returns
    -------
    result : CalibrationByGroupResult
        ``table`` (per group and bin), ``summary`` (per attribute), ``gap``,
        ``gap_groups``, ``pvalue``, ``bin_edges``.

    See Also
    --------
    calibration_split : Becker et al.'s calibration measure of two groups
        (on their 50 pooled-quantile bins), split by the group favoured.
    sklearn.calibration.calibration_curve : One calibration curve.

    Notes
    -----
    The gap of groups :math:`a, b` is
    :math:`\sum_k w_k |r_{ak} - r_{bk}| / \sum_k w_k` over the bins holding
    both, :math:`w_k` the two groups' total weight in bin :math:`k`:
    Becker et al.'s calibration measure, with its pooled-count weights, on
    these bins (it is 0 when the curves coincide; ``max_bin_gap`` is the
    largest single-bin difference, noisier).

    The test's null hypothesis is sufficiency, :math:`Y \perp G \mid S`:
    the same probability of ``pos_label`` at the same score in every group
    (calibrated or not). A test of equal rates per bin (Pearson's
    chi-square stratified by bin) is not valid for it: within a wide bin,
    a group whose scores sit near the bin's top has a higher rate with the
    same calibration, and that test rejects more often the more data there
    is. So in every bin the outcome is regressed on the score (linear, pooled
    over the groups) and the group indicators are tested with a score test
    on the residuals (``calibration_score_test``); the statistics of the
    bins add up, chi-square on the sum of their degrees of freedom. Within a
    bin of tied scores it is Pearson's chi-square. A group enters a bin's
    test when it expects at least 5 of each outcome there (the rule of
    thumb of chi-square tests); the table and the gap keep every cell. With weights the
    weights are taken as fixed (the variance of a weighted sum);
    ``benchmarks/bench_calibration_groups.py`` measures its rejection rate
    under the null and its power (see the user guide).

    References
    ----------
    .. [1] C. Becker, D. Dumitrasc and K. Broelemann, "Standardized
       Interpretable Fairness Measures for Continuous Risk Scores", ICML 2024.
    .. [2] E. B. Wilson, "Probable Inference, the Law of Succession, and
       Statistical Inference", JASA 22 (1927).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import calibration_by_group
    >>> rng = np.random.default_rng(0)
    >>> score = rng.uniform(size=2000)
    >>> group = rng.choice(["a", "b"], size=2000)
    >>> y = rng.uniform(size=2000) < score  # calibrated in both groups
    >>> result = calibration_by_group(y, score, sensitive_features=group,
    ...                               n_bins=5, pos_label=True)
    >>> result.table.columns.tolist()[:6]
    ['attribute', 'group', 'bin', 'bin_low', 'bin_high', 'count']
    >>> round(result.gap, 3), result.pvalue > 0.05
    (0.05, True)
    """
    _check_options(n_bins, strategy)
    z = stats.norm.isf((1.0 - check_confidence_level(confidence_level)) / 2.0)
    check_same_index(
        y_true=y_true,
        y_score=y_score,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    scores = check_scores(y_score)
    check_same_length(y_true, scores, first_name="y_true", second_name="y_score")
    y, _ = check_pos_label(y_true, pos_label=pos_label, why="calibration_by_group")
    y = y.astype(np.float64)
    weights = check_sample_weight_1d(sample_weight, scores.size, against="y_score")
    weights = np.ones(scores.size) if weights is None else weights
    groupings = sensitive_groupings(
        sensitive_features,
        n_samples=scores.size,
        combine=combine,
        min_group_size=min_group_size,
    )
    edges = bin_edges(scores, n_bins, strategy)
    bins = assign_bins(scores, edges)
    tables, summary = [], []
    for grouping in groupings:
        rows, cells, rate, weight = _grouping_rows(
            grouping, scores, y, weights, bins, edges, z
        )
        gap, pair, max_gap = _pair_gaps(rate, weight, grouping.labels)
        codes, k, t, w = cells
        statistic, dof = calibration_score_test(
            codes, k, grouping.restrict(scores), t, w, edges.size - 1
        )
        pvalue = float(stats.chi2.sf(statistic, dof)) if dof > 0 else 1.0
        tables.append(rows)
        summary.append((grouping.name, gap, pair, max_gap, statistic, dof, pvalue))
    summary = pd.DataFrame(summary, columns=list(SUMMARY_COLUMNS))
    gaps = summary["gap"].to_numpy()
    worst = int(np.nanargmax(gaps)) if np.isfinite(gaps).any() else 0
    pvalue = min(1.0, float(summary["pvalue"].min()) * len(summary))
    return CalibrationByGroupResult(
        table=pd.concat(tables, ignore_index=True),
        summary=summary,
        gap=float(summary["gap"].iloc[worst]),
        gap_groups=summary["gap_groups"].iloc[worst],
        pvalue=pvalue,
        bin_edges=edges,
    )
