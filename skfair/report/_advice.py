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


def _trivial(rates, no_pos, no_neg):
    """Per candidate, whether a group with both outcomes is selected at 0 or 1.

    A group without positives may have rate 0 and one without negatives
    rate 1 (the right decision there).
    """
    bad_low = (rates <= 0) & ~no_pos[None, :]
    bad_high = (rates >= 1) & ~no_neg[None, :]
    return bad_low | bad_high


def _at_current(candidates, current):
    """The candidate row of the audit's threshold (None if it is not one)."""
    at = np.flatnonzero(
        np.isclose(candidates["threshold"].to_numpy(np.float64), current.threshold)
    )
    return int(at[0]) if at.size else None


def _current_clause(trivial_groups, rates, names, lead="; so does the audit's own"):
    """``"; so does the audit's own threshold (a at 0%, b at 100%)"`` or ""."""
    if not trivial_groups:
        return ""
    listed = [f"{n} at {100 * rates[names.index(n)]:.0f}%" for n in trivial_groups]
    shown = ", ".join(listed[:5]) + (
        f" and {len(listed) - 5} more" if len(listed) > 5 else ""
    )
    return f"{lead} threshold ({shown})"


def _reason(masks, current_clause, floor_text):
    """Why no threshold is recommended, stated only as the masks show it.

    ``masks``: per candidate, ``smaller`` (a smaller gap than the audit's
    threshold), ``trivial`` (a group with both outcomes at 0% or 100%),
    ``undefined`` (the performance is undefined) and ``low`` (below the
    performance floor, or no floor). Each clause counts the candidates it is
    true of, so that the sentence is true of every threshold it speaks of.
    """
    smaller, trivial, low = masks["smaller"], masks["trivial"], masks["low"]
    undefined = masks["undefined"]
    n = int(smaller.sum())
    if n == 0:
        return "no candidate threshold has a smaller gap"
    if (low[smaller]).all() and floor_text is not None:
        return f"every threshold with a smaller gap keeps less than {floor_text}"
    if (trivial[smaller]).all():
        return (
            "every threshold with a smaller gap selects nobody (or everybody) in "
            f"some group with both outcomes{current_clause}"
        )
    parts = []
    k = int((smaller & trivial).sum())
    if k:
        parts.append(
            f"{k} select nobody (or everybody) in some group with both outcomes"
        )
    k = int((smaller & ~trivial & undefined).sum())
    if k:
        parts.append(f"{k} leave the performance undefined")
    k = int((smaller & ~trivial & ~undefined & low).sum())
    if k and floor_text is not None:
        parts.append(f"{k} keep less than {floor_text}")
    return (
        f"of the {n} thresholds with a smaller gap, "
        + ", ".join(parts[:-1])
        + (" and " if len(parts) > 1 else "")
        + parts[-1]
        + current_clause
    )


def threshold_advice(tradeoff, current, compared, y, pos_label):
    """The report's :class:`ThresholdAdvice` from a trade-off and the current point.

    A candidate is excluded when a group with both outcomes is selected at
    0% or 100% there (:func:`_trivial`) or its performance is undefined.
    Among the candidates not excluded, the best
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
        names = [str(c) for c in tradeoff.positive_rates.columns]
    performance = candidates["performance"].to_numpy(dtype=np.float64)
    gaps = candidates["delta_dp"].to_numpy(dtype=np.float64)
    trivial_cells = _trivial(rates, no_pos, no_neg)
    trivial = trivial_cells.any(axis=1)
    undefined = ~np.isfinite(performance)
    excluded = trivial | undefined
    at = _at_current(candidates, current)
    current_trivial = ()
    if at is not None:
        current_trivial = tuple(n for n, bad in zip(names, trivial_cells[at]) if bad)
    smaller = gaps < current.delta_dp - 1e-12
    best = recommended = None
    floor_text = None
    low = np.ones(len(candidates), bool)
    if (~excluded).any():
        b = int(np.flatnonzero(~excluded)[np.argmax(performance[~excluded])])
        best = _point(candidates, b)
        floor = tolerance_floor(best.performance, tradeoff.tolerance)
        low = ~(performance >= floor)
        floor_text = (
            f"{100 * tradeoff.tolerance:g}% of the best "
            f"{tradeoff.performance.replace('_', ' ')} ({best.performance:.4f}, "
            f"at t = {best.threshold:.3g})"
        )
        eligible = np.flatnonzero(~excluded & smaller & ~low)
        if eligible.size:
            order = np.lexsort((eligible, -performance[eligible], gaps[eligible]))
            pick = int(eligible[order[0]])
            recommended = _point(candidates, pick)
    reason = None
    if recommended is None:
        masks = {
            "smaller": smaller,
            "trivial": trivial,
            "undefined": undefined,
            "low": low,
        }
        row = rates[at] if at is not None else None
        if best is None:  # every candidate is excluded
            reason = "every candidate threshold " + (
                "selects nobody (or everybody) in some group with both outcomes"
                if trivial.all()
                else "selects nobody (or everybody) in some group with both "
                "outcomes or leaves the performance undefined"
            )
            reason += _current_clause(
                current_trivial, row, names, lead=", the audit's own included"
            )
        else:
            clause = _current_clause(current_trivial, row, names)
            reason = _reason(masks, clause, floor_text)
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
        current_trivial=current_trivial,
        n_smaller=int(smaller.sum()),
    )
