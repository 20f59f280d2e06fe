"""Whether another decision threshold would be fairer, read from the trade-off.

:func:`skfair.model_selection.threshold_tradeoff` scores every candidate
threshold; the report recommends one only when it narrows the positive-rate
gap of the audit's threshold while keeping ``tolerance`` of the best
performance, and says plainly when none does.

A group with no positive labels (or no negative ones) is told apart: its
balanced accuracy is undefined, and a positive rate of 0 (1) there is the
right decision for everyone in it, so, unlike a group with both outcomes,
it does not rule a threshold out as trivial. Its rate still counts in the
gap.
"""

from __future__ import annotations

import numpy as np

from ..model_selection._selection import tolerance_floor
from ..utils._labels import group_label_text
from ._facts import ThresholdAdvice, ThresholdPoint

#: ``ThresholdAdvice.reason`` when every fairer threshold performs too poorly.
LOSES_PERFORMANCE = "every threshold with a smaller gap loses more performance"


def _one_outcome_groups(compared, y):
    """Per trade-off column (group), whether it has no positives / no negatives."""
    no_pos, no_neg, names = [], [], []
    for grouping in compared:
        kept = grouping.kept
        sizes = np.bincount(grouping.codes[kept], minlength=grouping.n_groups)
        positives = np.bincount(
            grouping.codes[kept], weights=y[kept], minlength=grouping.n_groups
        )
        no_pos += list(positives == 0)
        no_neg += list(positives == sizes)
        names += [group_label_text(label) for label in grouping.labels]
    return np.array(no_pos, bool), np.array(no_neg, bool), names


def _point(candidates, k):
    row = candidates.iloc[k]
    return ThresholdPoint(
        float(row["threshold"]), float(row["performance"]), float(row["delta_dp"])
    )


def _excluded(rates, performance, no_pos, no_neg):
    """Candidates never recommended: a group with both outcomes all 0 or all 1.

    Also where the performance is undefined. A group without positives may
    have rate 0 and one without negatives rate 1.
    """
    bad_low = (rates <= 0) & ~no_pos[None, :]
    bad_high = (rates >= 1) & ~no_neg[None, :]
    return (bad_low | bad_high).any(axis=1) | ~np.isfinite(performance)


def threshold_advice(tradeoff, current, compared, y, pos_label):
    """The report's :class:`ThresholdAdvice` from a trade-off and the current point.

    Among the candidates not excluded (see :func:`_excluded`), the best
    performance sets the floor (``tolerance`` of it); a candidate is
    recommended only if it reaches the floor and its positive-rate gap is
    smaller than at the current threshold: the smallest such gap (ties: the
    better performance, then the lower threshold).
    """
    candidates = tradeoff.candidates
    rates = tradeoff.positive_rates.to_numpy(dtype=np.float64)
    no_pos, no_neg, names = _one_outcome_groups(compared, y)
    if len(names) != rates.shape[1]:  # not the report's groups: no exemption
        no_pos = no_neg = np.zeros(rates.shape[1], bool)
    performance = candidates["performance"].to_numpy(dtype=np.float64)
    gaps = candidates["delta_dp"].to_numpy(dtype=np.float64)
    excluded = _excluded(rates, performance, no_pos, no_neg)
    best = recommended = None
    reason = "every candidate leaves some group with both outcomes all selected or none"
    if (~excluded).any():
        b = int(np.flatnonzero(~excluded)[np.argmax(performance[~excluded])])
        best = _point(candidates, b)
        floor = tolerance_floor(best.performance, tradeoff.tolerance)
        smaller = gaps < current.delta_dp - 1e-12
        fairer = ~excluded & smaller
        eligible = np.flatnonzero(fairer & (performance >= floor))
        if eligible.size:
            order = np.lexsort((eligible, -performance[eligible], gaps[eligible]))
            pick = int(eligible[order[0]])
            recommended = _point(candidates, pick)
            reason = None
        elif fairer.any():
            reason = LOSES_PERFORMANCE
        elif smaller.any():
            reason = (
                "every threshold with a smaller gap selects nobody (or everybody) "
                "in some group with both outcomes"
            )
        else:
            reason = "no candidate threshold has a smaller gap"
    rate_at = {}
    if recommended is not None:
        rate_at = dict(zip(names, rates[pick].tolist()))
    return ThresholdAdvice(
        performance=tradeoff.performance,
        tolerance=tradeoff.tolerance,
        current=current,
        best=best,
        recommended=recommended,
        positive_rate=rate_at,
        reason=reason,
        no_positives=tuple(n for n, f in zip(names, no_pos) if f),
        no_negatives=tuple(n for n, f in zip(names, no_neg) if f),
        n_candidates=len(candidates),
        n_excluded=int(excluded.sum()),
        excluded=tuple(bool(e) for e in excluded),
        pos_label=pos_label,
    )
