"""The report's sentences: the lead, the headline and the plain summary.

Everything here is plain text (no markup), read from the report's typed
facts (:mod:`._facts`); renderers (:mod:`._html`, :mod:`._markdown`) escape
it for their format and lay it out. Rates are percentages
(:func:`format_percent`), gaps and metrics fractions with 4 decimals, ratios
of rates 3 decimals, everywhere.
"""

from __future__ import annotations

import math

from ..utils import SMALL_GROUP_SIZE
from ._common import (
    FEW_POSITIVES,
    FOUR_FIFTHS,
    counted,
    format_interval,
    format_percent,
    format_pvalue,
    format_ratio,
    group_support,
    survey_weighted,
)
from ._explain import (
    compared_groups,
    decision_rule,
    group_caveats,
    interval_of,
    methods,
    notes,
    read_with_care,
    test_phrase,
)
from ._survey import rows_text, weighted_count

__all__ = ["headline", "lead", "methods", "notes", "plain_summary"]

_LISTED = 5  # groups named in a sentence before "and k more"


def _pct(value):
    return format_percent(value)


def _listing(names):
    """``"a, b, c"``, at most ``_LISTED`` names, then ``"and k more"``."""
    names = list(names)
    shown = ", ".join(map(str, names[:_LISTED]))
    if len(names) > _LISTED:
        shown += f" and {len(names) - _LISTED} more"
    return shown


def _size_text(g):
    """``"n = 1,234"``; with survey weights the weighted count, rows and ``n_eff``."""
    if g.n_eff is None:
        return f"n = {g.size:,}"
    return (
        f"weighted n = {weighted_count(g.size)}, {rows_text(g.n_rows)}, "
        f"n_eff = {g.n_eff:,.1f}"
    )


def _who(g):
    """``"b (n = 1,234)"``."""
    return f"{g.group} ({_size_text(g)})"


def _rate_with_interval(g):
    return f"{_pct(g.rate)} (Wilson interval {_pct(g.low)}–{_pct(g.high)})"


def lead(report):
    s = report.settings
    label = "—" if s.pos_label is None else repr(s.pos_label)
    samples = f"{report.n_samples:,} samples"
    if survey_weighted(report):
        samples = (
            f"{report.n_samples:,} rows standing for "
            f"{weighted_count(report.provenance.n_people)} people (survey weights)"
        )
    return (
        f"{samples}; sensitive attribute(s): "
        f"{', '.join(map(str, report.data.attributes))}; decision: positive "
        f"when {decision_rule(s)}; positive label: {label}; "
        f"ε = {s.epsilon:g}."
    )


# -- the headline ------------------------------------------------------------------
def _small(g):
    """``", a small group"`` for a group of fewer than ``SMALL_GROUP_SIZE``."""
    return ", a small group" if g.support < SMALL_GROUP_SIZE else ""


def _who_small(g):
    """``"b (n = 12, a small group)"`` or ``"b (n = 1,234)"``."""
    return f"{g.group} ({_size_text(g)}{_small(g)})"


def _standard(facts):
    """How the comparison group is named: the most-selected or the reference."""
    ref = facts.reference
    if facts.comparison == "most selected":
        return f"the most-selected group {_who_small(ref)}"
    return f"the reference group {_who_small(ref)}"


def _points(value):
    return f"{100 * value:+.1f}".replace("-", "−")


def _interval_name(facts):
    """``"95% Newcombe interval"``, simultaneous when corrected."""
    name = f"{100 * facts.confidence_level:g}% Newcombe interval"
    m = facts.n_comparisons
    if m > 1:
        name = f"simultaneous {name} (Bonferroni over {m:,} comparisons)"
    return name


def _diff_clause(g, ref, facts):
    return (
        f"a difference of {_points(g.rate - ref.rate)} percentage points "
        f"({_interval_name(facts)} {_points(g.diff_low)} to "
        f"{_points(g.diff_high)})"
    )


def _disadvantage_sentence(facts):
    t, ref, d = facts.threshold, facts.reference, facts.disadvantaged
    if ref.rate <= 0:
        none = "; it has no positive labels" if ref.n_positive == 0 else ""
        return (
            f"At the threshold {t:g}, {_standard(facts)} of "
            f"{facts.grouping} selects no one: {_pct(ref.rate)}, Wilson interval "
            f"{_pct(ref.low)}–{_pct(ref.high)}{none}. No group can be selected "
            "less often, and no ratio to it is defined."
        )
    if d is None:
        return (
            f"At the threshold {t:g}, no group of {facts.grouping} is selected "
            f"clearly less often than {_standard(facts)}, selected at "
            f"{_rate_with_interval(ref)}: for every other group compared, the "
            f"{_interval_name(facts)} of the "
            "difference in positive rates contains 0 or lies above it."
        )
    return (
        f"At the threshold {t:g}, {_who_small(d)} is selected less often than "
        f"{_standard(facts)} of {facts.grouping}: {_rate_with_interval(d)} "
        f"against {_pct(ref.rate)}, a positive-rate ratio of "
        f"{format_ratio(d.ratio)}, {_diff_clause(d, ref, facts)}"
        f"{_among_below(facts)}."
    )


def _among_below(facts):
    """``"; the least selected of 3 groups clearly below it"`` or ""."""
    n = facts.n_below
    return "" if n < 2 else f"; the least selected of {n} groups clearly below it"


def _fixed_outcome_sentence(facts):
    """The groups set apart as their outcome is fixed in the labels, or None."""
    if not facts.fixed_outcome:
        return None
    none = [g for g in facts.fixed_outcome if g.n_positive == 0]
    all_ = [g for g in facts.fixed_outcome if g.n_positive != 0]
    parts = []
    if none:
        parts.append(
            "no positive labels (selecting no one is right there): "
            + _listing(f"{_who(g)} selected at {_pct(g.rate)}" for g in none)
        )
    if all_:
        parts.append(
            "no negative labels (selecting everyone is right there): "
            + _listing(f"{_who(g)} selected at {_pct(g.rate)}" for g in all_)
        )
    return (
        f"Set apart from the comparisons, ratios and gaps of {facts.grouping}, "
        f"as their outcome is fixed in y_true: {'; '.join(parts)}."
    )


def _unclear_sentence(report, facts):
    out = []
    fixed = _fixed_outcome_sentence(facts)
    if fixed:
        out.append(fixed)
    if facts.unclear:
        listed = [
            f"{_who_small(g)}: {_pct(g.rate)}, {_pct(g.low)}–{_pct(g.high)}"
            for g in facts.unclear
        ]
        out.append(
            f"Too few to tell (selected less often than {facts.reference.group}, "
            f"but the Newcombe interval of the difference contains 0): "
            f"{_listing(listed)}."
        )
    if report.left_out:
        out.append(
            f"Left out as smaller than min_group_size = {report.min_group_size}: "
            f"{counted(len(report.left_out), 'group')} (named in the notes)."
        )
    return " ".join(out)


def _farthest_text(facts):
    f, ref = facts.farthest, facts.reference
    how = f"selected at {_pct(f.rate)} against {_pct(ref.rate)} for {ref.group}"
    notes = [] if f.ratio is None else [f"a ratio of {format_ratio(f.ratio)}"]
    if math.isfinite(f.diff_high) and f.diff_low <= 0 <= f.diff_high:
        notes.append(
            "too few to tell: the Newcombe interval of the difference contains 0"
        )
    return f"{_who_small(f)}, {how}" + (f" ({'; '.join(notes)})" if notes else "")


def _impact_sentence(facts):
    low, high = facts.lowest, facts.highest
    if facts.impact_ratio is None:
        sentence = (
            "No group is selected at this threshold: the impact ratio (lowest / "
            "highest positive rate) is undefined."
        )
    else:
        sentence = (
            f"Impact ratio (lowest / highest positive rate): "
            f"{format_ratio(facts.impact_ratio)}, {_who_small(low)} at "
            f"{_pct(low.rate)} against {_who_small(high)} at {_pct(high.rate)}."
        )
    if facts.four_fifths == "pass":
        sentence += (
            f" Four-fifths rule: every group compared is within {FOUR_FIFTHS:g} "
            f"to {1 / FOUR_FIFTHS:g} times the rate of {facts.reference.group}."
        )
    elif facts.four_fifths == "fail":
        sentence += (
            f" Four-fifths rule ({FOUR_FIFTHS:g} to {1 / FOUR_FIFTHS:g} times the "
            f"rate of {facts.reference.group}): failed; farthest is "
            f"{_farthest_text(facts)}."
        )
    return sentence


_GAPS = (
    ("tpr_gap", "true-positive", "positives"),
    ("fpr_gap", "false-positive", "negatives"),
)


def _gap_sentence(facts):
    parts = []
    for key, what, counts in _GAPS:
        gap = getattr(facts, key)
        if gap is None:
            continue
        part = (
            f"{what} rates range from {_pct(gap.lowest.rate)} ({gap.lowest.group}) "
            f"to {_pct(gap.highest.rate)} ({gap.highest.group}), a gap of "
            f"{gap.value:.4f}"
        )
        if gap.left_out:
            effective = "" if gap.lowest.n_eff is None else "effective (Kish) "
            part += (
                f" (left out of this gap, fewer than {FEW_POSITIVES} "
                f"{effective}{counts}: {_listing(gap.left_out)})"
            )
        parts.append(part)
    if not parts:
        if facts.reference.n_positive is None:
            return "Without true labels, the TPR and FPR gaps are not available."
        return (
            "No TPR or FPR gap: fewer than two groups have both positive and "
            "negative labels, so neither rate can be compared between groups."
        )
    sentence = "; ".join(parts)
    sentence = sentence[0].upper() + sentence[1:]
    if facts.tpr_gap is not None and facts.fpr_gap is not None:
        odds = max(facts.tpr_gap.value, facts.fpr_gap.value)
        sentence += f"; equal opportunity is the TPR gap, equalised odds {odds:.4f}"
    return sentence + "."


def shown_pvalue(result):
    """``"= 0.231"``, ``"< 0.001"`` or ``"≤ 0.005"`` (a permutation test's floor)."""
    p, floor = result.pvalue, result.pvalue_floor
    if result.test == "permutation" and math.isfinite(floor):
        if p <= floor * (1 + 1e-9):
            return f"≤ {floor:.3g}"
    return format_pvalue(p) if p < 0.001 else "= " + format_pvalue(p)


def tested_family(report):
    """``(decidable, rejected)``: the tests the summary reads, and Holm's rejections.

    The decidable tests are those with a p-value, a test and no
    ``untestable_reason``; the rejected ones are those Holm's step-down
    procedure rejects at the audit's level (:func:`holm_rejected`). Every
    sentence that reads a test reads it through this one family, so that
    the headline and the summary never disagree.
    """
    results = [r for r in report.metric_results if r.defined]
    decidable = [
        r
        for r in results
        if math.isfinite(r.pvalue) and r.untestable_reason is None and r.test
    ]
    return decidable, holm_rejected(decidable, report.settings.alpha)


def evidence(report, result):
    """What a metric's test says, in words, read as the summary reads it."""
    if result.untestable_reason is not None:
        return (
            f"untestable here: its {test_phrase(result.test)} cannot decide "
            f"({result.untestable_reason.split(':')[0]}; see the notes)"
        )
    if survey_weighted(report):
        return _survey_evidence(result)
    if report.engine == "dask" or not math.isfinite(result.pvalue):
        return "no p-value (see the notes)"
    p, level = result.pvalue, report.settings.alpha
    decidable, rejected = tested_family(report)
    m = len(decidable)
    said = f"{test_phrase(result.test)} p {shown_pvalue(result)}"
    if any(r.key == result.key for r in rejected):
        correction = f" after Holm's correction for {m} tests" if m > 1 else ""
        return f"{said}, unlikely to be noise{correction}"
    if p < level:
        said = (
            f"{said}, below {level:g} alone but not after Holm's correction for "
            f"{m} tests: no finding"
        )
    else:
        said = f"{said}, compatible with noise"
    low = interval_of(result)[0]
    if low is not None and math.isfinite(low) and low > 0:
        said += (
            "; the interval lies above 0 as that of a gap, never negative, does "
            "even between identical groups, so it is no test"
        )
    return said


def _survey_evidence(result):
    """What a metric's interval says with survey weights (no test is run)."""
    low = interval_of(result)[0]
    said = "not tested (survey weights; see the notes)"
    if low is None or not math.isfinite(low):
        return said + ", and no interval"
    if low > 0:
        return (
            f"{said}; its weighted interval lies above 0: a disparity at the "
            "interval's confidence level, for this metric alone (no correction "
            "over the audit's metrics)"
        )
    return (
        f"{said}; its weighted interval contains 0: the gap may be noise "
        "(which does not show that the groups are alike)"
    )


def _metric(report, key):
    return next(r for r in report.metric_results if r.key == key)


def interval_clause(row):
    """``", <method> interval [low, high]"`` of a metric's main interval, or ""."""
    low, high, method = interval_of(row)
    return "" if method is None else f", {method} interval {format_interval(low, high)}"


def mcdp_clauses(report, key="mcdp"):
    """MCDP(0)'s :func:`interval_clause` and :func:`evidence` (metric ``key``)."""
    row = _metric(report, key)
    return interval_clause(row), evidence(report, row)


def small_pair_sentence(d, survey=False):
    """What MCDP(0)'s worst pair means when one of its groups is tiny, or None.

    A group of a few samples has a CDF of a few steps, so its gap to any
    other group is large whatever the model does; the sentence names it and
    states the largest gap between groups of ``SMALL_GROUP_SIZE`` or more
    (Kish effective sizes with ``survey`` weights).
    """
    fixed = getattr(d, "fixed_group", None)
    if d.small_group is None and fixed is None:
        return None
    texts = []
    if d.small_group is not None:
        label, n = d.small_group
        size = f"Kish effective size {n}" if survey else counted(n, "person", "people")
        texts.append(
            f"{label}, a group of {size}, whose CDF has "
            "too few steps for the gap to say much about the model"
        )
    if fixed is not None:
        texts.append(
            f"{fixed}, whose outcome is fixed in y_true (no positive or no "
            "negative labels)"
        )
    text = "That pair involves " + " and ".join(texts)
    between = (
        f"groups of {SMALL_GROUP_SIZE} or more"
        + (" effective samples (Kish)" if survey else "")
        + (" with both outcomes" if fixed is not None else "")
    )
    if d.large_pair is None:
        return f"{text}; fewer than two {between} remain, so no gap between them."
    value, (a, b), label = d.large_pair
    where = "" if label is None else f", class {label}"
    return (
        f"{text}; between {between} the largest is "
        f"MCDP(0) = {value:.4f} ({a} vs {b}{where})."
    )


def _distribution_sentences(report):
    d = report.headline.distribution
    interval, said = mcdp_clauses(report)
    out = [
        f"Over all thresholds, the largest gap between two groups' score CDFs "
        f"is MCDP(0) = {d.value:.4f} ({' vs '.join(d.groups)}, at the score "
        f"{d.score:.3g}{interval}; {said})."
    ]
    small = small_pair_sentence(d, survey_weighted(report))
    if small:
        out.append(small)
    if d.share_near is not None:
        near = abs(d.score - report.threshold) <= d.epsilon
        scores = "people's scores (weighted)" if survey_weighted(report) else "scores"
        out.append(
            f"{_pct(d.share_near)} of the {scores} lie within ±{d.epsilon:g} of that "
            f"score, and the decision threshold is {'' if near else 'not '}"
            f"among them; MCDP({d.epsilon:g}) = {d.local_value:.4f} is the gap "
            f"that persists over a window of ±{d.epsilon:g}, less sensitive to a "
            "few scores at one point."
        )
    return out


def headline(report):
    """The headline: threshold facts first, then the distribution-level finding."""
    facts = report.headline.threshold
    out = [_disadvantage_sentence(facts)]
    unclear = _unclear_sentence(report, facts)
    if unclear:
        out.append(unclear)
    out += [_impact_sentence(facts), _gap_sentence(facts)]
    return out + _distribution_sentences(report)


# -- the plain summary -----------------------------------------------------------
def _decision_sentence(facts):
    d, f, ref = facts.disadvantaged, facts.farthest, facts.reference
    role = "most selected" if facts.comparison == "most selected" else "reference"
    if facts.four_fifths == "pass":
        return (
            f"Every group compared receives positive decisions at {FOUR_FIFTHS:g} "
            f"to {1 / FOUR_FIFTHS:g} times the rate of {ref.group} (the {role} "
            "group; the four-fifths rule)."
        )
    if facts.four_fifths is None:
        return "No group is selected at this threshold."
    if d is not None and d.ratio is not None and d.ratio < FOUR_FIFTHS:
        return (
            f"Decisions are unbalanced: {_who_small(d)} receives a positive "
            f"decision {format_ratio(d.ratio)} times as often as {ref.group} (the "
            f"{role} group), outside the {FOUR_FIFTHS:g}–{1 / FOUR_FIFTHS:g} "
            "range of the four-fifths rule."
        )
    sentence = (
        f"The four-fifths rule fails: the farthest group is {_farthest_text(facts)}."
    )
    if f.support < SMALL_GROUP_SIZE:
        only = (
            counted(f.size, "person", "people")
            if f.n_eff is None
            else f"an effective size of {f.n_eff:,.1f}"
        )
        sentence += (
            f" With only {only}, its positive "
            f"rate is very uncertain ({_pct(f.low)}–{_pct(f.high)})."
        )
    return sentence


def holm_rejected(results, level):
    """The results whose tests Holm's step-down procedure rejects at ``level``.

    The family-wise error rate of "the groups differ by these tests" is then
    at most ``level`` under no difference, whatever the tests' dependence.
    On 100 audits of randomly drawn groups each, some test alone below 0.05
    claimed a difference in 11 (regression) and 17 (multiclass) of them,
    Holm's procedure in 3 and 0 (``benchmarks/bench_task_audits.py --null
    100``).
    """
    ordered = sorted(results, key=lambda r: r.pvalue)
    rejected = []
    for i, r in enumerate(ordered):
        if r.pvalue > level / (len(ordered) - i):
            break
        rejected.append(r)
    return rejected


def _held_back_sentence(held_back, n_tests, level):
    """Tests below ``level`` alone but not after Holm's correction, and the fix."""
    names = ", ".join(r.short_name for r in held_back)
    floors = [
        r.pvalue_floor
        for r in held_back
        if r.pvalue_floor is not None and math.isfinite(r.pvalue_floor)
    ]
    sentence = (
        f"On its own, {names} would be below {level:g}; not after the "
        f"correction for {n_tests} tests, so these are no finding either way."
    )
    if floors and min(floors) > level / n_tests:
        needed = math.ceil(n_tests / level)
        sentence += (
            f" Their permutation tests cannot reach the corrected level: pass "
            f"n_permutations >= {needed} (--n-resamples on the command line) "
            "to let them decide."
        )
    return sentence


def _verdict_sentences(report, noun="scores"):
    """What the tests that can decide say, and which tests cannot.

    ``noun`` is what the groups have ("scores", a regressor's "predictions").
    """
    if report.engine == "dask":
        return []
    results = [r for r in report.metric_results if r.defined]
    decidable, rejecting = tested_family(report)
    untestable = [r for r in results if r.untestable_reason is not None]
    level = report.settings.alpha
    held_back = [r for r in decidable if r.pvalue < level and r not in rejecting]

    def cited(rs):
        return "; ".join(
            f"{r.short_name} ({test_phrase(r.test)}, p {shown_pvalue(r)})" for r in rs
        )

    family = (
        f"Holm's correction for {len(decidable)} tests"
        if len(decidable) > 1
        else "one test"
    )
    if rejecting:
        out = [
            "The groups differ beyond chance by the tests that can decide "
            f"({family}, at the {level:g} level): {cited(rejecting)}."
        ]
    elif decidable:
        out = [
            "No test that can decide finds a difference between the groups' "
            f"{noun} beyond chance at the {level:g} level ({family}): "
            f"{cited(decidable)}. This is no evidence that they are equal."
        ]
    elif survey_weighted(report):
        out = [
            "No test is run with survey weights (see the notes): read each "
            "metric's weighted interval, whose lower bound above 0 is the "
            "evidence of a disparity."
        ]
    else:
        out = [f"No test here can decide whether the groups' {noun} differ."]
    if held_back:
        out.append(_held_back_sentence(held_back, len(decidable), level))
    if untestable:
        kinds = {}
        for r in untestable:
            kinds.setdefault(r.untestable_reason.split(":")[0], []).append(r.short_name)
        listed = "; ".join(
            f"{', '.join(names)} ({why})" for why, names in kinds.items()
        )
        out.append(
            f"Untestable here, their permutation tests cannot decide: {listed}. "
            "Their p-values are no evidence of fairness (see the notes)."
        )
    return out


def plain_summary(report):
    """A few plain-language sentences for a decision-maker."""
    facts = report.headline.threshold
    out = [_decision_sentence(facts)]
    if facts.tpr_gap is not None:
        out.append(
            "Among people whose true outcome is positive, the share the model "
            f"selects differs by up to {facts.tpr_gap.value:.4f} between groups "
            "(the TPR gap)."
        )
    out += _verdict_sentences(report)
    out += advice_sentences(report)
    return out + read_with_care(_caveats(report))


def _one_outcome_sentence(names, outcome, rate, right):
    return (
        f"No {outcome} labels in {_listing(names)}: balanced accuracy is undefined "
        f"there and {right} is the right decision, so a positive rate of {rate} "
        "there rules no threshold out (it still counts in the gap)."
    )


def advice_sentences(report):
    """Whether another threshold is fairer, and the groups with one outcome."""
    advice = report.advice
    if advice is None:
        return []
    name = advice.performance.replace("_", " ")
    cur, rec, best = advice.current, advice.recommended, advice.best
    share = f"{100 * advice.tolerance:g}%"
    if rec is not None:
        out = [
            f"A fairer threshold: t = {rec.threshold:.3g} narrows the positive-rate "
            f"gap from {cur.delta_dp:.4f} (at the audit's {cur.threshold:g}) to "
            f"{rec.delta_dp:.4f}, with {name} {rec.performance:.4f} (now "
            f"{cur.performance:.4f}), at least {share} of the best "
            f"({best.performance:.4f}, at t = {best.threshold:.3g})."
        ]
    else:
        why = advice.reason
        out = [
            f"No threshold improves on the audit's {cur.threshold:g} (positive-rate "
            f"gap {cur.delta_dp:.4f}, {name} {cur.performance:.4f}): {why}."
        ]
        if best is not None and cur.performance < best.performance * advice.tolerance:
            out[0] += (
                f" The audit's threshold itself keeps only "
                f"{_share_below(cur.performance / best.performance, advice.tolerance)} "
                f"of the best {name}."
            )
    facts = report.headline.threshold
    if facts is not None and facts.fixed_outcome:
        # named once, in the headline; here only what it means for thresholds
        out.append(
            "The groups set apart in the headline as their outcome is fixed rule "
            "no threshold out (their balanced accuracy is undefined)."
        )
        return out
    if advice.no_positives:
        out.append(
            _one_outcome_sentence(
                advice.no_positives, "positive", 0, "selecting no one"
            )
        )
    if advice.no_negatives:
        out.append(
            _one_outcome_sentence(
                advice.no_negatives, "negative", 1, "selecting everyone"
            )
        )
    return out


def _caveats(report):
    compared = compared_groups(report)
    out = group_caveats(report, group_support(compared))
    few = int((compared["few_positives"] == True).sum())  # noqa: E712
    if few:
        out.append(f"{counted(few, 'group')} with fewer than {FEW_POSITIVES} positives")
    return out


def _share_below(share, tolerance):
    """``share`` as a percentage with the digits that keep it below ``tolerance``.

    0.948 against a tolerance of 0.95 reads "94.8%", never "95%".
    """
    for digits in range(4):
        text = f"{100 * share:.{digits}f}"
        if float(text) < 100 * tolerance:
            return text + "%"
    return f"{100 * share:.4g}%"
