"""Which decision threshold? Performance against ΔDP_b^t, trivial ones excluded.

:func:`threshold_tradeoff` scores every candidate threshold ``t`` of one
model's scores (decisions ``y_score >= t``) by a performance measure that
does not reward trivial classifiers and by the gap in positive rate between
the groups (ΔDP_b^t), and picks the fairest threshold whose performance is
within ``tolerance`` of the best: the rule of :class:`fairest_within`, with
thresholds as the candidates.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..utils import (
    check_min_group_size,
    check_pos_label,
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
    sensitive_groupings,
)
from ._selection import TOLERANCE_ERROR, tolerance_floor

PERFORMANCE_MEASURES = (
    "balanced_accuracy",
    "f1",
    "matthews_corrcoef",
    "accuracy",
    "precision",
    "recall",
)
PERFORMANCE_ERROR = (
    "performance must be one of {names} or a callable "
    "performance(y_true, y_pred[, sample_weight=...]) -> float; got {value!r}."
)
NO_LABELS_ERROR = (
    "threshold_tradeoff needs the true labels y_true (its performance measure "
    "compares the decisions with them); got None."
)
THRESHOLDS_ERROR = (
    "thresholds must be a non-empty 1-D array of finite real numbers; got {value!r}."
)
NO_PICK_NOTE = (
    "No threshold was recommended: at every candidate some group's positive "
    "rate is 0 or 1 (a trivial decision for that group){why}."
)
# the default grid: these quantiles of the scores (where the mass is), and, for
# scores in [0, 1], the round thresholds 0.01, 0.02, ..., 0.99
_QUANTILE_LEVELS = np.linspace(0.005, 0.995, 199)
_ROUND_GRID = np.round(np.linspace(0.01, 0.99, 99), 2)


@dataclass(frozen=True)
class ThresholdTradeoff:
    """The result of :func:`threshold_tradeoff`: the candidates and the pick.

    Attributes
    ----------
    threshold : float or None
        The recommended threshold (decisions ``y_score >= threshold``): the
        lowest ΔDP_b^t among the non-trivial thresholds whose performance is
        within ``tolerance`` of the best non-trivial one. None when no
        threshold is non-trivial (see ``note``).
    performance : str
        The performance measure's name (a callable's ``__name__``).
    performance_value : float or None
        Its value at ``threshold``.
    delta_dp : float or None
        ΔDP_b at ``threshold``: the largest gap between two groups' positive
        rates (over every grouping, as :func:`skfair.metrics.delta_dp`).
    positive_rate : dict of str to float
        Each group's positive rate at ``threshold`` (empty without a pick);
        keys are the group labels as text (``"a & b"`` for intersections,
        ``"attribute: label"`` with several groupings).
    best_threshold : float or None
        The non-trivial threshold of best performance (ignoring fairness).
    best_performance_value, best_delta_dp : float or None
        Performance and ΔDP_b at ``best_threshold``.
    tolerance : float
        The fraction of the best performance the pick keeps.
    pos_label : object
        The positive class of ``y_true``.
    candidates : DataFrame
        One row per candidate threshold (ascending): ``threshold``,
        ``performance``, ``delta_dp``, ``min_positive_rate``,
        ``max_positive_rate`` (over the groups), ``trivial`` (some group's
        positive rate is 0 or 1, or the performance is undefined: never
        recommended) and ``within_tolerance``.
    positive_rates : DataFrame
        Each group's positive rate (columns, keyed as ``positive_rate``) at
        each candidate threshold (index).
    note : str or None
        Why there is no pick, if there is none.

    Examples
    --------
    >>> from skfair.model_selection import threshold_tradeoff
    >>> result = threshold_tradeoff(
    ...     [0, 0, 1, 1, 0, 0, 1, 1], [.1, .4, .6, .8, .2, .3, .7, .5],
    ...     sensitive_features=["a"] * 4 + ["b"] * 4, thresholds=[.35, .45, .55])
    >>> result.threshold, result.performance_value, result.positive_rate
    (0.45, 1.0, {'a': 0.5, 'b': 0.5})
    >>> result.candidates["trivial"].tolist()
    [False, False, False]
    """

    threshold: float | None
    performance: str
    performance_value: float | None
    delta_dp: float | None
    positive_rate: dict
    best_threshold: float | None
    best_performance_value: float | None
    best_delta_dp: float | None
    tolerance: float
    pos_label: object
    candidates: pd.DataFrame = field(repr=False)
    positive_rates: pd.DataFrame = field(repr=False)
    note: str | None = None

    def to_dict(self):
        """The pick as plain Python values (no candidate table).

        Returns
        -------
        tradeoff : dict
            ``threshold``, ``performance`` (``{"name", "value"}``),
            ``delta_dp``, ``positive_rate`` (group -> rate), ``best``
            (``{"threshold", "performance", "delta_dp"}``), ``tolerance``,
            ``n_candidates``, ``n_trivial``, ``pos_label`` and ``note``.
        """
        return {
            "threshold": self.threshold,
            "performance": {"name": self.performance, "value": self.performance_value},
            "delta_dp": self.delta_dp,
            "positive_rate": dict(self.positive_rate),
            "best": {
                "threshold": self.best_threshold,
                "performance": self.best_performance_value,
                "delta_dp": self.best_delta_dp,
            },
            "tolerance": self.tolerance,
            "n_candidates": len(self.candidates),
            "n_trivial": int(self.candidates["trivial"].sum()),
            "pos_label": self.pos_label,
            "note": self.note,
        }


def threshold_tradeoff(
    y_true,
    y_score,
    *,
    sensitive_features,
    performance="balanced_accuracy",
    thresholds=None,
    tolerance=0.95,
    pos_label=None,
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
):
    """The fairest decision threshold that keeps most of the best performance.

    Every candidate threshold ``t`` (decisions ``y_score >= t``) gets a
    performance value and ΔDP_b^t, the largest gap between two groups'
    positive rates (:func:`skfair.metrics.delta_dp` with ``threshold=t``).
    A threshold at which some group's positive rate is 0 or 1 is *trivial*
    (everyone in that group gets the same decision, and ΔDP_b^t can be 0 for
    no good reason) and is never recommended. Among the other thresholds,
    those whose performance is at least ``tolerance`` times the best are
    eligible, and the one with the smallest ΔDP_b^t is picked (ties: the
    better performance, then the lower threshold), as
    :class:`fairest_within` picks among a search's candidates.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_score : array-like of shape (n_samples,)
        Scores (higher means more likely positive), e.g.
        ``predict_proba(X)[:, 1]``.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; a DataFrame names its attributes.
    performance : str or callable, default="balanced_accuracy"
        ``"balanced_accuracy"`` (the mean of TPR and TNR: 0.5 for any
        constant decision, so it never rewards a trivial classifier),
        ``"f1"``, ``"matthews_corrcoef"``, ``"accuracy"``, ``"precision"`` or
        ``"recall"``, computed from the confusion counts at every threshold;
        or a callable ``performance(y_true, y_pred)`` (as scikit-learn's
        metrics, 0/1 arrays, ``sample_weight=`` passed when given) returning a
        float, greater being better. ``"accuracy"`` rewards the all-negative
        classifier on imbalanced data; the trivial-threshold rule keeps it
        from being picked, but a threshold just inside that rule can be.
    thresholds : array-like or None, default=None
        Candidate thresholds. None: 199 quantiles of the scores (0.5% to
        99.5%, so the candidates follow the scores even when they crowd near
        0), with 0.01, 0.02, ..., 0.99 added for scores in [0, 1].
    tolerance : float, default=0.95
        In (0, 1]: the fraction of the best non-trivial performance the pick
        must keep (for a negative best, within ``(1 - tolerance) * |best|``).
    pos_label : object or None, default=None
        The positive class of ``y_true``; needed unless the labels are
        {0, 1}, {False, True} or {-1, 1}.
    combine : {"intersection", "marginal"}, default="intersection"
        With several attributes: the groups are their intersections, or each
        attribute's groups (then ΔDP_b^t is the largest over attributes and
        every attribute's groups must be non-trivial).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Weights of the rates and of the built-in performance measures.
    min_group_size : int or None, default=None
        Groups with fewer samples are left out (as the metrics do): their
        samples are in no rate of that attribute, performance value or
        default threshold (with ``combine="marginal"`` they still count in
        the other attributes' groups, as in :func:`~skfair.metrics.delta_dp`);
        None keeps every group and warns about groups under 30 samples.

    Returns
    -------
    result : ThresholdTradeoff
        The pick (``threshold``, ``performance_value``, ``delta_dp``,
        ``positive_rate``), the best-performing threshold for comparison, and
        the table of every candidate (``candidates``, ``positive_rates``);
        ``result.to_dict()`` gives the pick as plain values. ``threshold`` is
        None, with a ``note``, when every candidate is trivial.

    Raises
    ------
    ValueError
        On invalid labels (see ``pos_label``), scores or groups, fewer than
        two groups, an unknown performance name, empty or non-finite
        thresholds, or ``tolerance`` outside (0, 1].

    See Also
    --------
    fairest_within : The same rule over a search's candidates.
    skfair.metrics.delta_dp : ΔDP_b^t at one threshold.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> y = (rng.random(2000) < 0.05 + 0.03 * group).astype(int)
    >>> score = 1 / (1 + np.exp(-(rng.normal(-3, 1, 2000) + 2 * y + 0.5 * group)))
    >>> from skfair.model_selection import threshold_tradeoff
    >>> result = threshold_tradeoff(y, score, sensitive_features=group)
    >>> result.performance, round(result.performance_value, 3)
    ('balanced_accuracy', 0.81)
    >>> 0 < min(result.positive_rate.values()) <= max(result.positive_rate.values()) < 1
    True
    >>> sorted(result.to_dict())[:4]
    ['best', 'delta_dp', 'n_candidates', 'n_trivial']
    """
    if y_true is None:
        raise ValueError(NO_LABELS_ERROR)
    check_same_index(
        y_true=y_true,
        y_score=y_score,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    scores = check_scores(y_score)
    n = scores.shape[0]
    y, pos_label = check_pos_label(
        y_true, pos_label=pos_label, why="the threshold trade-off"
    )
    check_same_length(y, scores, first_name="y_true", second_name="y_score")
    weights = check_sample_weight_1d(sample_weight, n, against="y_score")
    check_min_group_size(min_group_size)
    tolerance = _check_tolerance(tolerance)
    name, measure = _check_performance(performance)
    groupings = sensitive_groupings(
        sensitive_features, n_samples=n, combine=combine, min_group_size=min_group_size
    )
    w = np.ones(n) if weights is None else weights
    # each grouping's rates on its own kept samples, as delta_dp (with
    # combine="marginal", a group left out of one attribute still counts in
    # the other attributes' groups); the performance and the default grid on
    # the samples every grouping keeps
    kept = np.logical_and.reduce([g.kept for g in groupings])
    kept = slice(None) if kept.all() else kept  # no copies when all are kept
    grid = _check_thresholds(thresholds, scores[kept])
    rates = _group_positive_rates(scores, w, groupings, grid)
    if measure is None:
        values = _measure_from_counts(
            name, *_confusion(scores[kept], y[kept], w[kept], grid)
        )
    else:
        extra = None if weights is None else weights[kept]
        values = _measure_by_call(measure, scores[kept], y[kept], extra, grid)
    return _pick(grid, values, rates, groupings, name, tolerance, pos_label)


def _check_tolerance(tolerance):
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, numbers.Real)
        or not 0 < tolerance <= 1
    ):
        raise ValueError(TOLERANCE_ERROR.format(value=tolerance))
    return float(tolerance)


def _check_performance(performance):
    """(name, callable or None for a built-in measure)."""
    if callable(performance):
        return getattr(performance, "__name__", repr(performance)), performance
    if isinstance(performance, str) and performance in PERFORMANCE_MEASURES:
        return performance, None
    raise ValueError(
        PERFORMANCE_ERROR.format(names=list(PERFORMANCE_MEASURES), value=performance)
    )


def _check_thresholds(thresholds, scores):
    """The candidate thresholds, sorted and distinct."""
    if thresholds is None:
        grid = np.quantile(scores, _QUANTILE_LEVELS)
        if scores.min() >= 0 and scores.max() <= 1:
            grid = np.r_[grid, _ROUND_GRID]
        return np.unique(grid)
    try:
        grid = np.asarray(thresholds, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(THRESHOLDS_ERROR.format(value=thresholds)) from None
    grid = np.atleast_1d(grid)
    if grid.ndim != 1 or grid.size == 0 or not np.isfinite(grid).all():
        raise ValueError(THRESHOLDS_ERROR.format(value=thresholds))
    return np.unique(grid)


def _weight_at_or_above(scores, weights, grid):
    """Total weight of the samples with score >= t, for every t of ``grid``."""
    order = np.argsort(scores, kind="stable")
    cumulative = np.r_[0.0, np.cumsum(weights[order])]
    below = cumulative[np.searchsorted(scores[order], grid, side="left")]
    return cumulative[-1] - below


def _group_label(grouping, label, several):
    text = " & ".join(map(str, label)) if isinstance(label, tuple) else str(label)
    return f"{grouping.name}: {text}" if several else text


def _group_positive_rates(scores, weights, groupings, grid):
    """DataFrame: each kept group's (weighted) positive rate at each threshold."""
    columns = {}
    several = len(groupings) > 1
    for grouping in groupings:
        for g, label in enumerate(grouping.labels):
            members = grouping.codes == g
            above = _weight_at_or_above(scores[members], weights[members], grid)
            total = weights[members].sum()
            rate = above / total if total > 0 else np.full(grid.shape, np.nan)
            columns[_group_label(grouping, label, several)] = rate
    return pd.DataFrame(columns, index=pd.Index(grid, name="threshold"))


def _confusion(scores, y, weights, grid):
    """TP, FP, FN, TN (weighted) at every threshold."""
    positive = y == 1
    tp = _weight_at_or_above(scores[positive], weights[positive], grid)
    fp = _weight_at_or_above(scores[~positive], weights[~positive], grid)
    return tp, fp, weights[positive].sum() - tp, weights[~positive].sum() - fp


def _ratio(numerator, denominator, empty=np.nan):
    out = np.full(np.shape(numerator), empty, dtype=np.float64)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def _measure_from_counts(name, tp, fp, fn, tn):
    """A built-in performance measure from the confusion counts."""
    tpr = _ratio(tp, tp + fn)
    if name == "balanced_accuracy":
        return (tpr + _ratio(tn, tn + fp)) / 2
    if name == "f1":
        return _ratio(2 * tp, 2 * tp + fp + fn, empty=0.0)
    if name == "matthews_corrcoef":  # 0 where undefined, as scikit-learn
        denominator = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        return _ratio(tp * tn - fp * fn, denominator, empty=0.0)
    if name == "accuracy":
        return (tp + tn) / (tp + fp + fn + tn)
    if name == "precision":
        return _ratio(tp, tp + fp)
    return tpr  # recall


def _measure_by_call(measure, scores, y, weights, grid):
    """A user's ``measure(y_true, y_pred[, sample_weight])`` at every threshold."""
    extra = {} if weights is None else {"sample_weight": weights}
    return np.array(
        [float(measure(y, (scores >= t).astype(np.int64), **extra)) for t in grid]
    )


def _pick(grid, values, rates, groupings, name, tolerance, pos_label):
    """The candidates table and the fairest non-trivial threshold near the best."""
    gaps = np.zeros(grid.shape)
    several = len(groupings) > 1
    for grouping in groupings:
        cols = [_group_label(grouping, lab, several) for lab in grouping.labels]
        part = rates[cols].to_numpy()
        gaps = np.maximum(gaps, part.max(axis=1) - part.min(axis=1))
    low, high = rates.min(axis=1).to_numpy(), rates.max(axis=1).to_numpy()
    trivial = (low <= 0) | (high >= 1) | ~np.isfinite(values)
    within = np.zeros(grid.shape, dtype=bool)
    best = pick = None
    if (~trivial).any():
        best = int(np.flatnonzero(~trivial)[np.argmax(values[~trivial])])
        within = ~trivial & (values >= tolerance_floor(values[best], tolerance))
        eligible = np.flatnonzero(within)
        # lexsort: the last key is primary -> smallest gap, best value, lowest t
        pick = int(
            eligible[np.lexsort((eligible, -values[eligible], gaps[eligible]))[0]]
        )
    candidates = pd.DataFrame(
        {
            "threshold": grid,
            "performance": values,
            "delta_dp": gaps,
            "min_positive_rate": low,
            "max_positive_rate": high,
            "trivial": trivial,
            "within_tolerance": within,
        }
    )

    def at(k, column):
        return None if k is None else float(candidates[column].iloc[k])

    note = None
    if pick is None:
        why = "" if np.isfinite(values).any() else f", or {name} is undefined"
        note = NO_PICK_NOTE.format(why=why)
    return ThresholdTradeoff(
        threshold=at(pick, "threshold"),
        performance=name,
        performance_value=at(pick, "performance"),
        delta_dp=at(pick, "delta_dp"),
        positive_rate={} if pick is None else rates.iloc[pick].astype(float).to_dict(),
        best_threshold=at(best, "threshold"),
        best_performance_value=at(best, "performance"),
        best_delta_dp=at(best, "delta_dp"),
        tolerance=tolerance,
        pos_label=pos_label,
        candidates=candidates,
        positive_rates=rates,
        note=note,
    )
