"""Which decision threshold? Performance against ΔDP_b^t, trivial ones excluded.

:func:`threshold_tradeoff` scores every candidate threshold ``t`` of one
model's scores (decisions ``y_score >= t``) by a performance measure that
does not reward trivial classifiers and by the gap in positive rate between
the groups (ΔDP_b^t), and picks the fairest threshold whose performance is
within ``tolerance`` of the best: the rule of :class:`fairest_within`, with
thresholds as the candidates. Given the threshold in use (``current``), it
never recommends one with a larger gap.

A threshold is trivial when it selects everyone or no one: not when one
group's positive rate is 0 or 1, since a group without positive labels is
rightly at rate 0 (such groups are listed in the result).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..utils import sensitive_groupings
from ..utils._groups import check_min_group_size
from ..utils._labels import group_label_text
from ..utils._validation import (
    check_pos_label,
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
)
from ._selection import check_tolerance, checked_real, tolerance_floor
from ._threshold_counts import (
    confusion_counts,
    measure_by_call,
    measure_from_counts,
    weight_at_or_above,
)

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
CURRENT_ERROR = "current must be a finite real number or None; got {value!r}."
NO_PICK_NOTE = (
    "No threshold was recommended: every candidate selects everyone or no one{why}."
)
CURRENT_KEPT_NOTE = (
    "No candidate improves on the current threshold {current:g}: none within "
    "{tolerance:.0%} of the best {name} has a smaller ΔDP_b than its {gap:.3g}; "
    "the current threshold is kept."
)
# a gap must be smaller than the current one by more than this to count
_GAP_SLACK = 1e-12
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
        within ``tolerance`` of the best one; with ``current``, that
        threshold only if its ΔDP_b^t is smaller than the current one's, else
        the current threshold (``improves_on_current`` False). None when no
        threshold is non-trivial and no ``current`` was given (see ``note``).
    performance : str
        The performance measure's name (a callable's ``__name__``).
    performance_value : float or None
        Its value at ``threshold``.
    delta_dp : float or None
        ΔDP_b at ``threshold``: the largest gap between two groups' positive
        rates (over every grouping, as :func:`skfair.metrics.delta_dp`).
    positive_rate : dict of str to float
        Each group's positive rate at ``threshold`` (empty without a pick);
        keys are the group labels as :func:`skfair.utils._labels.group_label_text`
        writes them (``"a & b"`` for intersections), prefixed with
        ``"attribute: "`` with several groupings.
    best_threshold : float or None
        The threshold of best performance among all non-trivial candidates
        (ignoring fairness).
    best_performance_value, best_delta_dp : float or None
        Performance and ΔDP_b at ``best_threshold``.
    tolerance : float
        The fraction of the best performance the pick keeps.
    pos_label : object
        The positive class of ``y_true``.
    candidates : DataFrame
        One row per candidate threshold (ascending): ``threshold``,
        ``performance``, ``delta_dp``, ``min_positive_rate``,
        ``max_positive_rate`` (over the groups), ``trivial`` (everyone or no
        one is selected, or the performance is undefined: never recommended),
        ``within_tolerance`` and ``overall_positive_rate`` (of all the
        compared samples).
    positive_rates : DataFrame
        Each group's positive rate (columns, keyed as ``positive_rate``) at
        each candidate threshold (index).
    note : str or None
        Why there is no pick, or why the pick is the current threshold.
    current_threshold : float or None, default=None
        The ``current`` threshold given to :func:`threshold_tradeoff` (it is
        among the candidates).
    current_performance_value, current_delta_dp : float or None, default=None
        Performance and ΔDP_b at ``current_threshold``.
    improves_on_current : bool or None, default=None
        Whether ``threshold`` has a smaller ΔDP_b than ``current_threshold``
        (False: no candidate does, and ``threshold`` is the current one);
        None without ``current``.
    no_positives, no_negatives : tuple of str, default=()
        The groups (keyed as ``positive_rate``) without positive (negative)
        labels. Their positive rate counts in ΔDP_b, but their TPR (FPR),
        hence their balanced accuracy, is undefined, and a rate of 0 (1) is
        the right decision for everyone in them.

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
    current_threshold: float | None = None
    current_performance_value: float | None = None
    current_delta_dp: float | None = None
    improves_on_current: bool | None = None
    no_positives: tuple = ()
    no_negatives: tuple = ()

    def to_dict(self):
        """The pick as plain Python values (no candidate table).

        Returns
        -------
        tradeoff : dict
            ``threshold``, ``performance`` (``{"name", "value"}``),
            ``delta_dp``, ``positive_rate`` (group -> rate), ``best``
            (``{"threshold", "performance", "delta_dp"}``), ``current``
            (the same keys, or None without ``current``),
            ``improves_on_current``, ``tolerance``, ``n_candidates``,
            ``n_trivial``, ``no_positives``, ``no_negatives`` (lists),
            ``pos_label`` and ``note``.
        """
        current = None
        if self.current_threshold is not None:
            current = {
                "threshold": self.current_threshold,
                "performance": self.current_performance_value,
                "delta_dp": self.current_delta_dp,
            }
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
            "current": current,
            "improves_on_current": self.improves_on_current,
            "tolerance": self.tolerance,
            "n_candidates": len(self.candidates),
            "n_trivial": int(self.candidates["trivial"].sum()),
            "no_positives": list(self.no_positives),
            "no_negatives": list(self.no_negatives),
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
    current=None,
):
    """The fairest decision threshold that keeps most of the best performance.

    Every candidate threshold ``t`` (decisions ``y_score >= t``) gets a
    performance value and ΔDP_b^t, the largest gap between two groups'
    positive rates (:func:`skfair.metrics.delta_dp` with ``threshold=t``).
    A threshold that selects everyone or no one is *trivial* (ΔDP_b^t is 0
    for no good reason) and is never recommended. Among the other
    thresholds, the one of best performance sets the bar: those whose
    performance is at least ``tolerance`` times the best are eligible, and
    the one with the smallest ΔDP_b^t is picked (ties: the better
    performance, then the lower threshold), as :class:`fairest_within`
    picks among a search's candidates. Given the ``current`` threshold, the
    pick is that threshold only if its ΔDP_b^t is smaller than the current
    one's; otherwise the current threshold is kept and the result says so.

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
        classifier on imbalanced data; the trivial-threshold rule keeps that
        one from being picked, but not a threshold selecting only a few.
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
        attribute's groups (then ΔDP_b^t is the largest over attributes).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Weights of the rates and of the built-in performance measures.
    min_group_size : int or None, default=None
        Groups with fewer samples are left out (as the metrics do): their
        samples are in no rate of that attribute, performance value or
        default threshold (with ``combine="marginal"`` they still count in
        the other attributes' groups, as in :func:`~skfair.metrics.delta_dp`);
        None keeps every group and warns about groups under 30 samples.
    current : float or None, default=None
        The threshold in use. It is added to the candidates, and the pick
        never has a larger ΔDP_b than it: when no eligible threshold has a
        smaller one, the pick is ``current`` itself, with
        ``improves_on_current=False`` and a ``note``.

    Returns
    -------
    result : ThresholdTradeoff
        The pick (``threshold``, ``performance_value``, ``delta_dp``,
        ``positive_rate``), the best-performing and the current thresholds
        for comparison, the groups without positive (negative) labels
        (``no_positives``, ``no_negatives``), and the table of every
        candidate (``candidates``, ``positive_rates``);
        ``result.to_dict()`` gives the pick as plain values. ``threshold`` is
        None, with a ``note``, when every candidate is trivial and no
        ``current`` was given.

    Raises
    ------
    ValueError
        On invalid labels (see ``pos_label``), scores or groups, fewer than
        two groups, an unknown performance name, empty or non-finite
        thresholds, a non-finite ``current``, or ``tolerance`` outside
        (0, 1].

    See Also
    --------
    fairest_within : The same rule over a search's candidates.
    skfair.metrics.delta_dp : ΔDP_b^t at one threshold.

    Notes
    -----
    A group without positive labels has an undefined TPR (and balanced
    accuracy), and a positive rate of 0 is the right decision for it; so a
    group's rate of 0 or 1 does not make a threshold trivial, only the
    whole population's does. Such groups are listed in ``no_positives``
    (``no_negatives`` for the groups without negative labels); their rates
    still count in ΔDP_b^t.

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
    >>> kept = threshold_tradeoff(y, score, sensitive_features=group, current=0.5)
    >>> kept.delta_dp <= kept.current_delta_dp
    True
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
    tolerance = check_tolerance(tolerance)
    current = _check_current(current)
    name, measure = _check_performance(performance)
    groupings = sensitive_groupings(
        sensitive_features, n_samples=n, combine=combine, min_group_size=min_group_size
    )
    w = np.ones(n) if weights is None else weights
    # each grouping's rates on its own kept samples, as delta_dp (with
    # combine="marginal", a group left out of one attribute still counts in
    # the other attributes' groups); the performance, the overall rate and the
    # default grid on the samples every grouping keeps
    kept = np.logical_and.reduce([g.kept for g in groupings])
    kept = slice(None) if kept.all() else kept  # no copies when all are kept
    grid = _check_thresholds(thresholds, scores[kept])
    if current is not None:
        grid = np.union1d(grid, [current])
    rates = _group_positive_rates(scores, w, groupings, grid)
    if measure is None:
        values = measure_from_counts(
            name, *confusion_counts(scores[kept], y[kept], w[kept], grid)
        )
    else:
        extra = None if weights is None else weights[kept]
        values = measure_by_call(measure, scores[kept], y[kept], extra, grid)
    overall = weight_at_or_above(scores[kept], w[kept], grid) / w[kept].sum()
    table = _candidates(grid, values, rates, overall, groupings)
    return _result(
        table,
        rates,
        outcomes=_one_outcome_groups(y, w, groupings),
        name=name,
        tolerance=tolerance,
        pos_label=pos_label,
        current=current,
    )


def _check_current(current):
    if current is None:
        return None
    return checked_real(current, np.isfinite, CURRENT_ERROR)


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


def _group_label(grouping, label, several):
    """A group's column key: its written label, with the attribute when several."""
    text = group_label_text(label)
    return f"{grouping.name}: {text}" if several else text


def _group_positive_rates(scores, weights, groupings, grid):
    """DataFrame: each kept group's (weighted) positive rate at each threshold."""
    columns = {}
    several = len(groupings) > 1
    for grouping in groupings:
        for g, label in enumerate(grouping.labels):
            members = grouping.codes == g
            above = weight_at_or_above(scores[members], weights[members], grid)
            total = weights[members].sum()
            rate = above / total if total > 0 else np.full(grid.shape, np.nan)
            columns[_group_label(grouping, label, several)] = rate
    return pd.DataFrame(columns, index=pd.Index(grid, name="threshold"))


def _candidates(grid, values, rates, overall, groupings):
    """The table of every candidate (``within_tolerance`` filled in later)."""
    gaps = np.zeros(grid.shape)
    several = len(groupings) > 1
    for grouping in groupings:
        cols = [_group_label(grouping, lab, several) for lab in grouping.labels]
        part = rates[cols].to_numpy()
        gaps = np.maximum(gaps, part.max(axis=1) - part.min(axis=1))
    return pd.DataFrame(
        {
            "threshold": grid,
            "performance": values,
            "delta_dp": gaps,
            "min_positive_rate": rates.min(axis=1).to_numpy(),
            "max_positive_rate": rates.max(axis=1).to_numpy(),
            # everyone or no one selected: a degenerate decision, not a choice
            "trivial": (overall <= 0) | (overall >= 1) | ~np.isfinite(values),
            "within_tolerance": np.zeros(grid.shape, dtype=bool),
            "overall_positive_rate": overall,
        }
    )


def _one_outcome_groups(y, weights, groupings):
    """The labels of the groups without positive / without negative labels."""
    no_pos, no_neg = [], []
    several = len(groupings) > 1
    for grouping in groupings:
        codes = grouping.restrict(grouping.codes)
        w = grouping.restrict(weights)
        size = np.bincount(codes, weights=w, minlength=grouping.n_groups)
        pos = np.bincount(
            codes, weights=w * grouping.restrict(y), minlength=grouping.n_groups
        )
        for label, p, total in zip(grouping.labels, pos, size):
            text = _group_label(grouping, label, several)
            if p <= 0:
                no_pos.append(text)
            if p >= total:
                no_neg.append(text)
    return tuple(no_pos), tuple(no_neg)


def _choose(table, tolerance, current_index):
    """(best, pick, improves): candidate indices, and the pick beats current."""
    values = table["performance"].to_numpy()
    gaps = table["delta_dp"].to_numpy()
    usable = ~table["trivial"].to_numpy()
    best = pick = None
    if usable.any():
        best = int(np.flatnonzero(usable)[np.argmax(values[usable])])
        within = usable & (values >= tolerance_floor(values[best], tolerance))
        table["within_tolerance"] = within
        eligible = np.flatnonzero(within)
        # lexsort: the last key is primary -> smallest gap, best value, lowest t
        order = np.lexsort((eligible, -values[eligible], gaps[eligible]))
        pick = int(eligible[order[0]])
    if current_index is None:
        return best, pick, None
    if pick is None or gaps[pick] >= gaps[current_index] - _GAP_SLACK:
        return best, current_index, False
    return best, pick, True


def _result(table, rates, *, outcomes, name, tolerance, pos_label, current):
    """The :class:`ThresholdTradeoff` of a candidate table."""
    grid = table["threshold"].to_numpy()
    at_current = None
    if current is not None:
        at_current = int(np.searchsorted(grid, current))
    best, pick, improves = _choose(table, tolerance, at_current)

    def at(k, column):
        return None if k is None else float(table[column].iloc[k])

    note = None
    if improves is False:
        note = CURRENT_KEPT_NOTE.format(
            current=current, tolerance=tolerance, name=name, gap=at(pick, "delta_dp")
        )
    elif pick is None:
        values = table["performance"].to_numpy()
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
        candidates=table,
        positive_rates=rates,
        note=note,
        current_threshold=current,
        current_performance_value=at(at_current, "performance"),
        current_delta_dp=at(at_current, "delta_dp"),
        improves_on_current=improves,
        no_positives=outcomes[0],
        no_negatives=outcomes[1],
    )
