"""Confusion counts and performance measures at many thresholds at once.

The building blocks of :func:`threshold_tradeoff`: one sort of the scores
gives the (weighted) count at or above every candidate threshold.
"""

import numpy as np


def weight_at_or_above(scores, weights, grid):
    """Total weight of the samples with score >= t, for every t of ``grid``."""
    order = np.argsort(scores, kind="stable")
    cumulative = np.r_[0.0, np.cumsum(weights[order])]
    below = cumulative[np.searchsorted(scores[order], grid, side="left")]
    return cumulative[-1] - below


def confusion_counts(scores, y, weights, grid):
    """TP, FP, FN, TN (weighted) at every threshold."""
    positive = y == 1
    tp = weight_at_or_above(scores[positive], weights[positive], grid)
    fp = weight_at_or_above(scores[~positive], weights[~positive], grid)
    return tp, fp, weights[positive].sum() - tp, weights[~positive].sum() - fp


def _ratio(numerator, denominator, empty=np.nan):
    out = np.full(np.shape(numerator), empty, dtype=np.float64)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def measure_from_counts(name, tp, fp, fn, tn):
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


def measure_by_call(measure, scores, y, weights, grid):
    """A user's ``measure(y_true, y_pred[, sample_weight])`` at every threshold."""
    extra = {} if weights is None else {"sample_weight": weights}
    return np.array(
        [float(measure(y, (scores >= t).astype(np.int64), **extra)) for t in grid]
    )
