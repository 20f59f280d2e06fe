r"""Becker et al.'s standardized two-group measures, split by the group favoured.

Becker, Dumitrasc & Broelemann (ICML 2024) compare two groups' continuous
risk scores with measures that say not only *how far apart* the groups are,
but *which group is favoured where*: each measure is an area (or a weighted
average) of a signed difference, and its positive and negative parts are the
shares of the distance in which the first and the second group is favoured.

- :func:`abcc_split`: the Wasserstein-1 distance (ABCC) of the groups' score
  distributions, of all samples (independence), of those with the favourable
  outcome (``given="positive"``: equal opportunity) or of the others
  (``given="negative"``: predictive equality); standardized by the pooled
  quantile transform of the scores (``score_transform="quantile"``).
- :func:`abroca_split`: the area between the groups' ROC curves (ABROCA),
  or between their cross-ROC curves (``cross=True``: xROC).
- :func:`calibration_split`: the pooled-count weighted mean difference of the
  groups' observed favourable rates in quantile bins of the scores.

Convention: ``y_score`` ranks people by their chance of the favourable
outcome ``pos_label`` (a credit score, or minus a risk score), so a higher
score is the better decision. A group is *favoured* where it gets higher
scores than the other at equal rank (ABCC), a higher true-positive rate at
equal false-positive rate (ROC), or a lower observed favourable rate at
equal score (calibration: its scores overstate it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..utils._group_encoding import check_sensitive_features
from ..utils._validation import (
    check_pos_label,
    check_same_index,
    check_same_length,
    check_scores,
    same_label,
)
from ._calibration_groups import check_n_bins

GROUPS_ERROR = (
    "groups must be None (sensitive_features then holds exactly two groups) or "
    "a pair of two distinct group labels; got {groups!r}."
)
TWO_GROUPS_ERROR = (
    "{what} compares exactly two groups, but sensitive_features holds "
    "{n_groups}: {labels}. Pass groups=(first, second) to choose two."
)
GROUP_NOT_FOUND_ERROR = (
    "group {label!r} of groups= is not in sensitive_features, whose groups "
    "are {labels}."
)
EMPTY_CELL_ERROR = (
    "{what} needs samples of {needed} in both groups; group {label!r} has none."
)
GIVEN_NEEDS_Y_ERROR = (
    "abcc_split(given={given!r}) compares the scores of one outcome and needs "
    "y_true; got None. Pass the outcomes."
)
GIVEN_ERROR = "given must be None, 'positive' or 'negative'; got {given!r}."
SCORE_TRANSFORM_ERROR = "score_transform must be None or 'quantile'; got {value!r}."


@dataclass(frozen=True)
class FavourSplit:
    """A two-group distance and the parts of it in which each group is favoured.

    Attributes
    ----------
    measure : str
        What was measured (``"abcc"``, ``"abcc given positive"``, ``"roc"``,
        ``"xroc"``, ``"calibration"``).
    value : float
        The distance: ``first_favoured + second_favoured``.
    first_favoured, second_favoured : float
        The parts of ``value`` in which the first and the second group is
        favoured.
    groups : tuple
        The two group labels, first and second.

    Examples
    --------
    >>> from skfair.metrics import abcc_split
    >>> split = abcc_split(None, [.2, .4, .6, .3, .5, .7],
    ...                    sensitive_features=[0, 0, 0, 1, 1, 1])
    >>> split
    FavourSplit(measure='abcc', value=0.1, favoured: 0 0%, 1 100%)
    >>> split.share_second
    1.0
    """

    measure: str
    value: float
    first_favoured: float
    second_favoured: float
    groups: tuple

    @property
    def share_first(self):
        """The share of ``value`` in which the first group is favoured (NaN at 0)."""
        return self.first_favoured / self.value if self.value > 0 else float("nan")

    @property
    def share_second(self):
        """The share of ``value`` in which the second group is favoured (NaN at 0)."""
        return self.second_favoured / self.value if self.value > 0 else float("nan")

    def __repr__(self):
        first, second = self.groups
        if self.value > 0:
            shares = (
                f"favoured: {first!r} {self.share_first:.0%}, "
                f"{second!r} {self.share_second:.0%}"
            )
        else:
            shares = "no group favoured"
        return (
            f"FavourSplit(measure={self.measure!r}, value={self.value:.4g}, {shares})"
        )


def _two_groups(y_true, y_score, sensitive_features, groups, pos_label, what):
    """Validated scores, 0/1 favourable labels and 0/1 group codes of two groups."""
    check_same_index(
        y_true=y_true, y_score=y_score, sensitive_features=sensitive_features
    )
    scores = check_scores(y_score)
    if y_true is None:  # abcc_split without given=: the outcomes are unused
        y = np.zeros(scores.size, dtype=np.int64)
    else:
        check_same_length(y_true, scores, first_name="y_true", second_name="y_score")
        y, _ = check_pos_label(y_true, pos_label=pos_label, why=what)
    attributes = check_sensitive_features(sensitive_features, n_samples=scores.size)
    grouping = attributes.intersection()
    labels = list(grouping.labels)
    if groups is None:
        if len(labels) != 2:
            raise ValueError(
                TWO_GROUPS_ERROR.format(
                    what=what, n_groups=len(labels), labels=labels[:10]
                )
            )
        chosen = labels
    else:
        if not isinstance(groups, (tuple, list)) or len(groups) != 2:
            raise ValueError(GROUPS_ERROR.format(groups=groups))
        chosen = []
        for label in groups:
            match = [g for g in labels if same_label(g, label)]
            if not match:
                raise ValueError(
                    GROUP_NOT_FOUND_ERROR.format(label=label, labels=labels[:10])
                )
            chosen.append(match[0])
        if chosen[0] is chosen[1] or same_label(chosen[0], chosen[1]):
            raise ValueError(GROUPS_ERROR.format(groups=groups))
    first = labels.index(chosen[0])
    second = labels.index(chosen[1])
    keep = (grouping.codes == first) | (grouping.codes == second)
    codes = (grouping.codes[keep] == second).astype(np.intp)
    return scores[keep], y[keep], codes, tuple(chosen)


def _check_score_transform(value):
    if value not in (None, "quantile"):
        raise ValueError(SCORE_TRANSFORM_ERROR.format(value=value))


def quantile_scores(scores):
    r"""Becker et al.'s standardization: the pooled quantile of every score.

    :math:`q_i = (\mathrm{rank}_i - 1) / (n - 1)`, tied scores at their
    average rank, the smallest score 0 and the largest 1: what
    ``sklearn.preprocessing.quantile_transform(n_quantiles=n)`` (fairscoring's
    transform) computes, without its rounding on ties (its interpolation
    between repeated quantiles depends on rounding: a tie at ranks 6 and 7
    of 11 can get 0.5 instead of 0.55; on COMPAS it moves ABCC by 6e-6)
    and without its cap of 50,000 quantiles. Only
    the order of the scores matters: any strictly increasing rescaling
    leaves it unchanged.

    Examples
    --------
    >>> quantile_scores(np.array([3.0, 1.0, 3.0, 2.0, 5.0])).tolist()
    [0.625, 0.0, 0.625, 0.25, 1.0]
    """
    if scores.size == 1:
        return np.full(1, 0.5)
    quantiles = (stats.rankdata(scores, method="average") - 1.0) / (scores.size - 1.0)
    quantiles[scores == scores.min()] = 0.0
    quantiles[scores == scores.max()] = 1.0
    return quantiles


def _check_given(given):
    if given not in (None, "positive", "negative"):
        raise ValueError(GIVEN_ERROR.format(given=given))


def _check_cells(codes, mask, groups, what, needed):
    for g in (0, 1):
        if not np.any(mask & (codes == g)):
            raise ValueError(
                EMPTY_CELL_ERROR.format(what=what, needed=needed, label=groups[g])
            )


def signed_ecdf_areas(first, second):
    r"""``(∫(F_2 - F_1)_+, ∫(F_1 - F_2)_+)`` of two samples' ECDFs, exactly.

    The first part is where the first sample's ECDF lies *below* the second's
    (its values are higher there); the two parts sum to the Wasserstein-1
    distance.

    Examples
    --------
    >>> signed_ecdf_areas(np.array([0.0, 2.0]), np.array([1.0, 1.0]))
    (0.5, 0.5)
    """
    grid = np.sort(np.concatenate([first, second]))
    f1 = np.searchsorted(np.sort(first), grid[:-1], side="right") / first.size
    f2 = np.searchsorted(np.sort(second), grid[:-1], side="right") / second.size
    widths = np.diff(grid)
    gap = f2 - f1
    return (
        float(np.sum(np.clip(gap, 0.0, None) * widths)),
        float(np.sum(np.clip(-gap, 0.0, None) * widths)),
    )


def abcc_split(
    y_true,
    y_score,
    *,
    sensitive_features,
    groups=None,
    given=None,
    pos_label=1,
    score_transform=None,
):
    r"""ABCC between two groups, split into the parts where each is favoured.

    ABCC (the Wasserstein-1 distance :math:`\int |F_a - F_b|`) of the two
    groups' score distributions, with the part where the first group's
    ECDF lies below the second's (its scores are higher: it is favoured)
    and the part where it lies above. With ``score_transform="quantile"``
    and ``given=`` this is Becker et al.'s standardized equal-opportunity
    (``given="positive"``) or predictive-equality (``given="negative"``)
    measure, with its positive/negative split.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Binary outcomes; needed with ``given=`` (may be None without it).
    y_score : array-like of shape (n_samples,)
        Scores, higher for a higher chance of the favourable outcome
        ``pos_label``.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels (several attributes are intersected).
    groups : pair of labels or None, default=None
        The two groups compared, first and second; the other samples are
        left out before anything else (also before the quantile transform).
        None: ``sensitive_features`` must hold exactly two groups, taken in
        label order.
    given : {None, "positive", "negative"}, default=None
        Compare the scores of all samples (None), of those whose outcome is
        ``pos_label`` ("positive", equal opportunity) or of the others
        ("negative", predictive equality).
    pos_label : int, float, bool or str, default=1
        The favourable outcome.
    score_transform : {None, "quantile"}, default=None
        "quantile" first maps the two groups' pooled scores (all outcomes) to
        their quantiles in [0, 1] (mid-ranks, the extremes at 0 and 1:
        Becker et al.'s standardization with scikit-learn's
        ``quantile_transform``, without its rounding on ties), which makes
        the measure invariant to monotone rescaling of the scores.

    Returns
    -------
    split : FavourSplit
        ``value`` is ABCC (:func:`abcc` of the same scores with the same
        ``given=``);
        ``first_favoured`` and ``second_favoured`` its two parts.

    See Also
    --------
    abcc : The distance alone, for any number of groups.
    abroca_split, calibration_split : Becker et al.'s other measures.

    Notes
    -----
    With the first group's ECDF :math:`F_1` and the second's :math:`F_2`,
    ``first_favoured`` is :math:`\int (F_2 - F_1)_+\,dt` and
    ``second_favoured`` is :math:`\int (F_1 - F_2)_+\,dt`; the integrals are
    exact over the merged sorted scores, as in Becker et al.'s
    ``fairscoring.metrics.WassersteinMetric`` (p = 1). Becker et al. pass the
    disadvantaged group first.

    References
    ----------
    .. [1] C. Becker, D. Dumitrasc and K. Broelemann, "Standardized
       Interpretable Fairness Measures for Continuous Risk Scores", ICML 2024.

    Examples
    --------
    >>> from skfair.metrics import abcc_split
    >>> y = [1, 0, 1, 1, 0, 1]
    >>> split = abcc_split(y, [.2, .4, .6, .3, .5, .7],
    ...                    sensitive_features=["a", "a", "a", "b", "b", "b"],
    ...                    given="positive")
    >>> round(split.value, 12), split.share_second
    (0.1, 1.0)
    """
    _check_given(given)
    _check_score_transform(score_transform)
    if y_true is None and given is not None:
        raise ValueError(GIVEN_NEEDS_Y_ERROR.format(given=given))
    scores, y, codes, labels = _two_groups(
        y_true, y_score, sensitive_features, groups, pos_label, "abcc_split"
    )
    if score_transform == "quantile":
        scores = quantile_scores(scores)
    mask = np.ones(y.size, dtype=bool)
    if given is not None:
        mask = y == (1 if given == "positive" else 0)
    _check_cells(codes, mask, labels, "abcc_split", "the compared outcome")
    first, second = signed_ecdf_areas(
        scores[mask & (codes == 0)], scores[mask & (codes == 1)]
    )
    measure = "abcc" if given is None else f"abcc given {given}"
    return FavourSplit(measure, first + second, first, second, labels)


def roc_vertices(positives, negatives):
    """The ROC curve's vertices ``(fpr, tpr)`` of a score, from (0, 0) to (1, 1).

    A threshold ``t`` accepts the scores ``>= t``; ``tpr`` is the share of
    ``positives`` accepted, ``fpr`` that of ``negatives``. Both rise with
    falling thresholds, one vertex per distinct score.

    Examples
    --------
    >>> fpr, tpr = roc_vertices(np.array([2.0, 3.0]), np.array([1.0, 2.0]))
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    """
    thresholds = np.unique(np.concatenate([positives, negatives]))[::-1]
    pos, neg = np.sort(positives), np.sort(negatives)
    tpr = 1.0 - np.searchsorted(pos, thresholds, side="left") / pos.size
    fpr = 1.0 - np.searchsorted(neg, thresholds, side="left") / neg.size
    return np.concatenate([[0.0], fpr]), np.concatenate([[0.0], tpr])


def _limits(xp, fp, x):
    """The left and right limits at ``x`` of the curve through ``(xp, fp)``.

    ``xp`` is non-decreasing; a repeated ``xp`` is a vertical segment,
    whose lower end is the left limit and upper end the right limit.
    """
    right = np.searchsorted(xp, x, side="right") - 1
    left = np.searchsorted(xp, x, side="left")
    lo_i = np.clip(right, 0, xp.size - 1)
    hi_i = np.clip(right + 1, 0, xp.size - 1)
    span = xp[hi_i] - xp[lo_i]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(span > 0, (x - xp[lo_i]) / span, 0.0)
    right_limit = np.where(
        xp[lo_i] == x, fp[lo_i], fp[lo_i] + frac * (fp[hi_i] - fp[lo_i])
    )
    lo_j = np.clip(left - 1, 0, xp.size - 1)
    hi_j = np.clip(left, 0, xp.size - 1)
    span = xp[hi_j] - xp[lo_j]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(span > 0, (x - xp[lo_j]) / span, 0.0)
    left_limit = np.where(
        xp[hi_j] == x, fp[hi_j], fp[lo_j] + frac * (fp[hi_j] - fp[lo_j])
    )
    return left_limit, right_limit


def signed_curve_areas(curve_a, curve_b):
    r"""``(∫(a - b)_+, ∫(b - a)_+)`` of two piecewise-linear curves on [0, 1], exactly.

    Each curve is its vertices ``(x, y)`` with ``x`` non-decreasing from 0
    to 1 (a repeated ``x`` is a vertical segment); on every interval between
    merged vertices both curves are linear, and a sign change of their
    difference is split at the crossing.

    Examples
    --------
    >>> line = (np.array([0.0, 1.0]), np.array([0.0, 1.0]))
    >>> flat = (np.array([0.0, 1.0]), np.array([0.5, 0.5]))
    >>> signed_curve_areas(line, flat)
    (0.125, 0.125)
    """
    x = np.unique(np.concatenate([curve_a[0], curve_b[0]]))
    a_left, a_right = _limits(*curve_a, x)
    b_left, b_right = _limits(*curve_b, x)
    d0 = (a_right - b_right)[:-1]  # just right of each merged vertex
    d1 = (a_left - b_left)[1:]  # just left of the next one
    width = np.diff(x)
    return _linear_parts(d0, d1, width), _linear_parts(-d0, -d1, width)


def _linear_parts(d0, d1, width):
    """``∫ max(d, 0)`` of linear pieces from ``d0`` to ``d1`` over ``width``."""
    both = (d0 >= 0) & (d1 >= 0)
    area = np.where(both, width * (d0 + d1) / 2.0, 0.0)
    cross = ((d0 > 0) ^ (d1 > 0)) & ~both
    top = np.where(d0 > 0, d0, d1)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = width * top * top / (2.0 * (np.abs(d0) + np.abs(d1)))
    area = area + np.where(cross & (np.abs(d0) + np.abs(d1) > 0), part, 0.0)
    return float(np.sum(area))


def abroca_split(
    y_true, y_score, *, sensitive_features, groups=None, cross=False, pos_label=1
):
    r"""The area between two groups' ROC or cross-ROC curves, split by who is favoured.

    ``cross=False``: ABROCA, the absolute area between the groups' ROC
    curves (Becker et al.'s ROC measure): how differently the score
    separates the outcomes within each group. ``cross=True``: the area
    between the cross-ROC curves (xROC): the first group's favourable
    outcomes against the second group's others, and the second's against
    the first's (Kallus & Zhou's xAUC, over all thresholds). The split
    gives the part where the first group's curve lies above (it is
    favoured) and where it lies below.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes.
    y_score : array-like of shape (n_samples,)
        Scores, higher for a higher chance of the favourable outcome
        ``pos_label``. Only their order matters (no transform is needed).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    groups : pair of labels or None, default=None
        The two groups, first and second, as in :func:`abcc_split`.
    cross : bool, default=False
        Compare the cross-ROC curves (xROC) instead of the groups' own.
    pos_label : int, float, bool or str, default=1
        The favourable outcome (the ROC curves' positive class).

    Returns
    -------
    split : FavourSplit
        ``value`` in [0, 1]; ``first_favoured`` is the area where the first
        group's (cross-)ROC curve is above the second's.

    Raises
    ------
    ValueError
        If a group has no sample of one of the two outcomes.

    See Also
    --------
    abcc_split, calibration_split : Becker et al.'s other measures.

    Notes
    -----
    The ROC curve of group :math:`g` plots
    :math:`\mathrm{TPR}_g(t) = P(S \ge t \mid Y = 1, G = g)` against
    :math:`\mathrm{FPR}_g(t) = P(S \ge t \mid Y = 0, G = g)` (:math:`Y = 1`:
    ``pos_label``), linear between the vertices of consecutive distinct
    scores. The cross-ROC curve of the first group takes its TPR from the
    first group and its FPR from the second; the second's the other way
    round. The area is integrated exactly, a sign change of the difference
    split at the crossing; Becker et al.'s ``fairscoring`` applies the
    trapezoid rule to the clipped differences on the merged vertices, which
    differs from the exact area only on the intervals where the curves
    cross.

    References
    ----------
    .. [1] C. Becker, D. Dumitrasc and K. Broelemann, "Standardized
       Interpretable Fairness Measures for Continuous Risk Scores", ICML 2024.
    .. [2] J. Gardner, C. Brooks and R. Baker, "Evaluating the Fairness of
       Predictive Student Models Through Slicing Analysis", LAK 2019.
    .. [3] N. Kallus and A. Zhou, "The Fairness of Risk Scores Beyond
       Classification: Bipartite Ranking and the xAUC Metric", NeurIPS 2019.

    Examples
    --------
    >>> from skfair.metrics import abroca_split
    >>> y = [1, 0, 1, 0, 1, 0, 1, 0]
    >>> s = [.9, .5, .8, .3, .6, .4, .35, .2]
    >>> g = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> abroca_split(y, s, sensitive_features=g)
    FavourSplit(measure='roc', value=0.25, favoured: 'a' 100%, 'b' 0%)
    >>> abroca_split(y, s, sensitive_features=g, cross=True).value
    0.25
    """
    what = "abroca_split"
    scores, y, codes, labels = _two_groups(
        y_true, y_score, sensitive_features, groups, pos_label, what
    )
    for outcome, name in ((1, "the favourable outcome"), (0, "the other outcome")):
        _check_cells(codes, y == outcome, labels, what, name)
    pos = [scores[(codes == g) & (y == 1)] for g in (0, 1)]
    neg = [scores[(codes == g) & (y == 0)] for g in (0, 1)]
    if cross:
        curve_a, curve_b = roc_vertices(pos[0], neg[1]), roc_vertices(pos[1], neg[0])
    else:
        curve_a, curve_b = roc_vertices(pos[0], neg[0]), roc_vertices(pos[1], neg[1])
    first, second = signed_curve_areas(curve_a, curve_b)
    measure = "xroc" if cross else "roc"
    return FavourSplit(measure, first + second, first, second, labels)


NO_SHARED_BIN_ERROR = (
    "calibration_split compares the groups' observed rates bin by bin, but no "
    "score bin of the {n_bins} holds people of both groups {groups!r}, so the "
    "measure is undefined: use fewer bins (n_bins) or check that the groups' "
    "scores overlap."
)


def calibration_split(
    y_true,
    y_score,
    *,
    sensitive_features,
    groups=None,
    n_bins=50,
    pos_label=1,
    score_transform="quantile",
):
    r"""Becker et al.'s calibration measure of two groups, split by who is favoured.

    The scores are binned (by default into 50 bins of the two groups'
    pooled quantiles); in every bin holding both groups, the difference of
    their observed rates of ``pos_label`` is weighted by the bin's pooled
    count. The measure is the weighted mean absolute difference; the first
    group is favoured in the bins where its observed favourable rate is the
    lower one (its scores overstate it), the second in the others.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes.
    y_score : array-like of shape (n_samples,)
        Scores, higher for a higher chance of the favourable outcome.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    groups : pair of labels or None, default=None
        The two groups, first and second, as in :func:`abcc_split`.
    n_bins : int, default=50
        Number of bins (Becker et al.'s default); tied quantiles make some
        bins empty, which are skipped.
    pos_label : int, float, bool or str, default=1
        The favourable outcome.
    score_transform : {"quantile", None}, default="quantile"
        "quantile": map the pooled scores to their quantiles and bin at the
        pooled percentiles of those (``n_bins`` bins of about equal pooled
        count); None: ``n_bins`` bins of equal width on the observed score
        range (Becker et al.'s ``score_transform=None``).

    Returns
    -------
    split : FavourSplit
        ``value`` in [0, 1].

    See Also
    --------
    calibration_by_group : The per-bin rates with intervals, for any number
        of groups, and a test.
    abcc_split, abroca_split : Becker et al.'s other measures.

    Notes
    -----
    With bins :math:`k` holding both groups, pooled counts :math:`n_k` and
    observed rates :math:`r_{1k}, r_{2k}` of the favourable outcome,
    ``first_favoured`` is
    :math:`\sum_k n_k (r_{2k} - r_{1k})_+ / \sum_k n_k` and
    ``second_favoured`` is :math:`\sum_k n_k (r_{1k} - r_{2k})_+ / \sum_k n_k`.
    As in ``fairscoring.metrics.CalibrationMetric``: the bin edges are the
    ``np.percentile`` of the transformed scores at ``k / n_bins`` (the outer
    edges set to 0 and 1), and a bin holds the scores in
    :math:`(e_k, e_{k+1}]`, the first also :math:`e_0`.

    References
    ----------
    .. [1] C. Becker, D. Dumitrasc and K. Broelemann, "Standardized
       Interpretable Fairness Measures for Continuous Risk Scores", ICML 2024.

    Examples
    --------
    >>> from skfair.metrics import calibration_split
    >>> y = [1, 0, 1, 0, 1, 1, 1, 0]
    >>> s = [.8, .8, .2, .2, .8, .8, .2, .2]
    >>> g = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> calibration_split(y, s, sensitive_features=g, n_bins=2)
    FavourSplit(measure='calibration', value=0.25, favoured: 'a' 100%, 'b' 0%)
    """
    _check_score_transform(score_transform)
    n_bins = check_n_bins(n_bins)
    scores, y, codes, labels = _two_groups(
        y_true, y_score, sensitive_features, groups, pos_label, "calibration_split"
    )
    if score_transform == "quantile":
        scores = quantile_scores(scores)
        edges = np.percentile(scores, np.linspace(0.0, 100.0, n_bins + 1))
        edges[0], edges[-1] = 0.0, 1.0
    else:
        edges = np.linspace(scores.min(), scores.max(), n_bins + 1)
    bins = np.searchsorted(edges[1:], scores, side="left")
    bins = np.minimum(bins, n_bins - 1)  # rounding at the top edge
    count = np.bincount(codes * n_bins + bins, minlength=2 * n_bins).reshape(2, -1)
    hits = np.bincount(codes * n_bins + bins, weights=y, minlength=2 * n_bins)
    both = (count > 0).all(axis=0)
    rates = hits.reshape(2, -1)[:, both] / count[:, both]
    weights = count[:, both].sum(axis=0)
    if not both.any():
        raise ValueError(NO_SHARED_BIN_ERROR.format(groups=labels, n_bins=n_bins))
    diff = rates[1] - rates[0]
    first = float(np.average(np.clip(diff, 0.0, None), weights=weights))
    second = float(np.average(np.clip(-diff, 0.0, None), weights=weights))
    return FavourSplit("calibration", first + second, first, second, labels)
