"""The headline's facts, which pair each metric comes from, and untestable tests.

:func:`threshold_facts` reads the group table: the most disadvantaged group
whose Wilson interval lies wholly below the reference group's rate (groups
whose interval contains it are too few to tell, and named as such), the
impact ratio and the TPR and FPR gaps. The gaps and the impact ratio are
fairlearn's between-group difference and ratio, computed by the public
``true_positive_rate_difference``, ``false_positive_rate_difference`` and
``demographic_parity_ratio`` (``four_fifths(...).ratio``) of
:mod:`skfair.metrics` on the table's confusion counts
(:func:`~skfair.report._compute.between_groups`): one definition. The
four-fifths *verdict* is defined differently on purpose: the report compares
every group with its reference group (within 0.8 to 1.25 times the
reference's rate, the table's per-group column), as the audit's other
reference-group ratios do, while :func:`skfair.metrics.four_fifths` compares
the lowest rate with the highest (the two agree when the reference is the
top group); the impact ratio printed beside the verdict is the latter.
:func:`attach_pairs` names the two groups each metric's value comes from;
:func:`mark_untestable` flags a permutation test whose statistic is saturated.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..metrics import abcc, abpc
from ..utils import SMALL_GROUP_SIZE, group_label_text
from ._common import FEW_POSITIVES, counted, report_metrics
from ._compute import between_groups, check_metrics, metrics_table, rate_closeness
from ._facts import DistributionFacts, GroupRate, Headline, RateGap, ThresholdFacts

_PAIR_FUNCTIONS = {"abcc": abcc, "abpc": abpc}
_MATCH = 1e-9  # a pair "attains" the metric's value within this


# -- the threshold facts ---------------------------------------------------------
def _group_rate(row, reference_rate):
    rate = float(row["positive_rate"])
    positives = float(row["n_positive"])
    return GroupRate(
        group=row["group"],
        size=int(row["size"]),
        rate=rate,
        low=float(row["positive_rate_low"]),
        high=float(row["positive_rate_high"]),
        ratio=rate / reference_rate if reference_rate > 0 else None,
        n_positive=int(positives) if math.isfinite(positives) else None,
    )


def _rate_gap(records, rate, count):
    """The ``rate`` gap between the groups with enough samples in ``count``.

    Groups with fewer than ``FEW_POSITIVES`` positives (``count`` =
    "n_positive") or negatives ("n_negative") are left out, so that a group
    with one positive (TPR 0 or 1) does not make the gap; they are listed in
    ``left_out``. With fewer than two such groups, every group counts. None
    when fewer than two groups have the rate (e.g. two groups, one without
    positives): there is no gap to state.
    """
    finite = [r for r in records if math.isfinite(float(r[rate]))]
    enough = [r for r in finite if r[count] >= FEW_POSITIVES]
    left_out = ()
    if len(enough) >= 2:
        left_out = tuple(r["group"] for r in finite if r[count] < FEW_POSITIVES)
        finite = enough
    if len(finite) < 2:
        return None
    low = min(finite, key=lambda r: r[rate])
    high = max(finite, key=lambda r: r[rate])

    def point(r):
        return GroupRate(r["group"], int(r["size"]), float(r[rate]), *_bounds(r, rate))

    return RateGap(
        rate=rate,
        value=between_groups(_columns(finite), rate, "difference"),
        lowest=point(low),
        highest=point(high),
        left_out=left_out,
    )


def _columns(records):
    """The group table's count columns of ``records``, for :func:`between_groups`."""
    keys = ("size", "n_selected", "n_positive", "tn", "fp", "fn", "tp")
    return {key: np.array([float(r[key]) for r in records]) for key in keys}


def _impact_ratio(records, highest):
    """Lowest over highest selection rate (None when no group is selected)."""
    if highest.rate <= 0:
        return None
    if len(records) < 2:  # one group: no comparison, a ratio of 1 to itself
        return 1.0
    return between_groups(_columns(records), "positive_rate", "ratio")


def _bounds(row, rate):
    return float(row[f"{rate}_low"]), float(row[f"{rate}_high"])


def _grouping_facts(frame, threshold):
    records = frame.to_dict(orient="records")
    for r in records:
        r["n_negative"] = r["size"] - r["n_positive"]
    k = next(i for i, r in enumerate(records) if r["is_reference"])
    reference_rate = float(records[k]["positive_rate"])
    rates = [_group_rate(r, reference_rate) for r in records]
    others = [g for i, g in enumerate(rates) if i != k]
    below = [g for g in others if g.high < reference_rate]
    close = rate_closeness([g.rate for g in rates], reference_rate)
    farthest = four_fifths = None
    if np.isfinite(close).any():
        farthest = rates[int(np.nanargmin(close))]
        verdicts = list(frame["four_fifths"])
        four_fifths = "pass" if all(v is not False for v in verdicts) else "fail"
    lowest = min(rates, key=lambda g: g.rate)
    highest = max(rates, key=lambda g: g.rate)
    return ThresholdFacts(
        threshold=threshold,
        grouping=frame["grouping"].iloc[0],
        reference=rates[k],
        disadvantaged=min(below, key=lambda g: (g.high, g.rate)) if below else None,
        unclear=tuple(
            sorted(
                (g for g in others if g.rate < reference_rate <= g.high),
                key=lambda g: (g.rate, -g.size),
            )
        ),
        farthest=farthest,
        four_fifths=four_fifths,
        lowest=lowest,
        highest=highest,
        impact_ratio=_impact_ratio(records, highest),
        tpr_gap=_rate_gap(records, "tpr", "n_positive"),
        fpr_gap=_rate_gap(records, "fpr", "n_negative"),
    )


def threshold_facts(groups, compared_names, threshold):
    """The :class:`ThresholdFacts` of the compared grouping that fares worst.

    That is the grouping whose most disadvantaged group is furthest below
    its reference (relative to the reference's rate, at the top of the
    group's Wilson interval); without such a group, the one with the lowest
    impact ratio.
    """

    def severity(facts):
        if facts.disadvantaged is not None:
            return (0, facts.disadvantaged.high / facts.reference.rate)
        return (1, 1.0 if facts.impact_ratio is None else facts.impact_ratio)

    candidates = [
        _grouping_facts(groups[groups["grouping"] == name], threshold)
        for name in compared_names
    ]
    return min(candidates, key=severity)


def group_sizes(groups):
    """``{(grouping, group text): size}`` from the report's group table."""
    return {
        (grouping, group): int(size)
        for grouping, group, size in zip(
            groups["grouping"], groups["group"], groups["size"]
        )
    }


def distribution_facts(results, details, scores, epsilon, groups, per_class=None):
    """MCDP(0), where it is attained and the share of scores within ±ε of it.

    When the worst pair involves a group of fewer than ``SMALL_GROUP_SIZE``
    samples (a one-person group's CDF is a single step, so its gap to any
    group is large whatever the model does), the facts also name that group
    and the largest MCDP(0) among the pairs of larger groups: over every
    class of ``per_class`` (``{class: MCDPResult}``) when given.
    """
    worst = details[0.0]
    by_key = {r.key: r for r in results}
    share = None
    if scores is not None:
        share = float(np.mean(np.abs(scores - worst.threshold) <= epsilon))
    sizes = group_sizes(groups)
    labels = tuple(group_label_text(g) for g in worst.groups)
    pair_sizes = [sizes.get((worst.attribute, g), 0) for g in labels]
    small_group = large = None
    if min(pair_sizes) < SMALL_GROUP_SIZE:
        k = int(np.argmin(pair_sizes))
        small_group = (labels[k], pair_sizes[k])
        tables = {None: worst} if per_class is None else per_class
        large = max(
            (
                (*found, label)
                for label, result in tables.items()
                if (found := _largest_between_large_groups(result.pair_values, sizes))
            ),
            default=None,
            key=lambda t: t[0],
        )
    return DistributionFacts(
        value=float(by_key["mcdp"].value),
        groups=labels,
        attribute=worst.attribute,
        score=float(worst.threshold),
        higher_cdf_group=group_label_text(worst.higher_cdf_group),
        epsilon=float(epsilon),
        share_near=share,
        local_value=float(by_key[f"mcdp@{epsilon:g}"].value),
        small_group=small_group,
        large_pair=large,
    )


def _largest_between_large_groups(pair_values, sizes):
    """The largest ``(value, (a, b))`` over pairs of groups of 30 or more.

    None when fewer than two groups have ``SMALL_GROUP_SIZE`` samples.
    """
    best = None
    for (attribute, a, b), value in pair_values.items():
        a, b = group_label_text(a), group_label_text(b)
        if min(sizes.get((attribute, a), 0), sizes.get((attribute, b), 0)) < (
            SMALL_GROUP_SIZE
        ):
            continue
        if best is None or value > best[0]:
            best = (float(value), (a, b))
    return best


def binary_headline(groups, compared, settings, results, details, scores):
    """A classifier's :class:`Headline`: at the threshold, then over all of them.

    ``scores`` are those of the rows MCDP(0) compares (None: no share near it).
    """
    return Headline(
        threshold_facts(groups, [g.name for g in compared], settings.threshold),
        distribution_facts(results, details, scores, settings.epsilon, groups),
    )


# -- which pair each metric comes from ---------------------------------------------
def _table_pair(groups, compared_names, column, value):
    """The (highest, lowest) groups of ``column`` whose gap is ``value``."""
    for name in compared_names:
        frame = groups[groups["grouping"] == name]
        values = frame[column].astype(float)
        if values.notna().sum() < 2:
            continue
        high, low = frame.loc[values.idxmax()], frame.loc[values.idxmin()]
        if abs(float(high[column] - low[column]) - value) <= _MATCH:
            return (high["group"], low["group"]), name
    return None, None


def _pair_value(function, params, scores, codes, a, b):
    rows = (codes == a) | (codes == b)
    return function(
        None, scores[rows], sensitive_features=codes[rows], min_group_size=1, **params
    )


def worst_pair(function, params, scores, grouping, value):
    """The codes ``(a, b)`` of the pair whose metric is ``value``, or None.

    ABCC and ABPC are L1 distances (between CDFs, between densities), so
    ``d(a, b) <= d(a, p) + d(p, b)`` for a pivot group ``p`` (the largest):
    the pairs are evaluated in decreasing order of that bound, and only
    while it can reach ``value``; ``n_groups - 1`` evaluations and a few
    more instead of every pair.
    """
    codes, n = grouping.codes, grouping.n_groups
    sizes = np.bincount(codes[codes >= 0], minlength=n)
    pivot = int(np.argmax(sizes))
    to_pivot = np.zeros(n)
    for g in range(n):
        if g != pivot:
            to_pivot[g] = _pair_value(function, params, scores, codes, pivot, g)
            if abs(to_pivot[g] - value) <= _MATCH:
                return pivot, g
    a, b = np.triu_indices(n, k=1)
    bound = to_pivot[a] + to_pivot[b]
    for k in np.argsort(-bound, kind="stable"):
        if bound[k] < value - _MATCH:
            break
        if pivot in (a[k], b[k]):
            continue
        if (
            abs(_pair_value(function, params, scores, codes, a[k], b[k]) - value)
            <= _MATCH
        ):
            return int(a[k]), int(b[k])
    return None


def _search_pair(result, definition, scores, compared):
    function = _PAIR_FUNCTIONS[definition.metric]
    for grouping in compared:
        found = worst_pair(function, definition.params, scores, grouping, result.value)
        if found is not None:
            labels = tuple(group_label_text(grouping.labels[g]) for g in found)
            return labels, grouping.name
    return None, None


def attach_pairs(
    results, definitions, *, groups, compared, details, scores, mean="mean_score"
):
    """``results`` with ``pair`` (and ``pair_grouping``) set where it is known.

    MCDP's pairs come from :func:`~skfair.metrics.mcdp_details`; ΔDP's from
    the group table (the groups of highest and lowest ``mean`` column, the
    mean score or prediction, or positive rate); ABCC's and ABPC's from
    :func:`worst_pair` (in memory only: ``scores`` None leaves them out).
    """
    names = [g.name for g in compared]
    out = []
    for result, definition in zip(results, definitions):
        pair = grouping = None
        if result.defined and math.isfinite(result.value):
            if definition.metric == "mcdp":
                found = details[definition.params.get("epsilon", 0.0)]
                pair = tuple(group_label_text(g) for g in found.groups)
                grouping = found.attribute
            elif definition.metric == "delta_dp":
                column = "positive_rate" if definition.params else mean
                pair, grouping = _table_pair(groups, names, column, result.value)
            elif scores is not None:
                pair, grouping = _search_pair(result, definition, scores, compared)
        out.append(dataclasses.replace(result, pair=pair, pair_grouping=grouping))
    return out


# -- tests that cannot decide ------------------------------------------------------
def _upper(key, task="binary"):
    """The largest value a metric can take (scores in [0, 1]).

    On a regressor's predictions ΔDP_c and ABCC are in the target's units,
    without a largest value (infinity); ΔDP_b, MCDP and ABPC keep theirs.
    """
    if task == "regression" and key in ("delta_dp", "abcc"):
        return math.inf
    return 2.0 if key == "abpc" else 1.0


def _untestable_reason(r, pair_sizes, n_permutations, task="binary"):
    """Why a permutation test that does not reject cannot decide, or None."""
    p = r.pvalue
    if r.value >= _upper(r.key, task) - 1e-12:
        return (
            f"saturated statistic: it is at its largest possible value, "
            f"{_upper(r.key):g}, and so are about {100 * p:.0f}% of the statistics "
            f"of {n_permutations} random relabellings of the groups (p = {p:.3f}), "
            "so the test cannot detect a disparity"
        )
    small = [(g, n) for g, n in pair_sizes if n < SMALL_GROUP_SIZE]
    if small:
        named = " and ".join(
            f"{g} ({counted(n, 'person', 'people')})" for g, n in small
        )
        return (
            f"groups too small: the largest gap over pairs involves {named}; about "
            f"{100 * p:.0f}% of random relabellings give some pair a gap as large "
            f"(p = {p:.3f}), tiny groups being that variable, so the test cannot "
            "detect a disparity between the larger groups"
        )
    return None


def mark_untestable(results, *, alpha, sizes, n_permutations, task="binary"):
    """``results`` with ``untestable_reason`` set where the test cannot decide.

    A permutation test (of the largest gap over pairs) that does not reject
    cannot decide when its statistic is saturated (at its largest possible
    value: the permuted statistics reach it too, the p-value is about the
    share that do) or when the pair that attains it involves a group of
    fewer than ``SMALL_GROUP_SIZE`` samples (tiny groups dominate the
    maximum under every relabelling). Such a test is untestable, not
    "compatible with noise". ``sizes`` maps ``(grouping, group text)`` to
    the group's size.
    """
    out = []
    for r in results:
        reason = None
        if (
            r.test == "permutation"
            and math.isfinite(r.pvalue)
            and math.isfinite(r.value)
            and r.pvalue > alpha
        ):
            pair = r.pair or ()
            pair_sizes = [(g, sizes.get((r.pair_grouping, g), 0)) for g in pair]
            reason = _untestable_reason(r, pair_sizes, n_permutations, task)
        out.append(dataclasses.replace(r, untestable_reason=reason))
    return out


def computed_metrics(
    scores, sensitive_features, settings, resampling, progress, groups, compared
):
    """The metrics of in-memory scores, their intervals, tests and pairs.

    Returns ``(results, details)``: :func:`metrics_table`'s results through
    :func:`finish_metrics`, and :func:`check_metrics`' MCDP details.
    """
    progress("metrics")
    checked = check_metrics(scores, sensitive_features, settings)
    details = checked[2]
    progress("intervals and tests")
    results = metrics_table(
        scores, sensitive_features, settings, resampling, checked, progress.count
    )
    progress("where MCDP is attained")  # found with MCDP's value (check_metrics)
    results = finish_metrics(
        results,
        settings=settings,
        groups=groups,
        compared=compared,
        details=details,
        scores=scores,
        n_permutations=resampling.n_permutations,
    )
    return results, details


def finish_metrics(
    results, *, settings, groups, compared, details, scores, n_permutations
):
    """The metrics with their pairs (:func:`attach_pairs`) and untestable tests."""
    definitions = report_metrics(settings)
    results = attach_pairs(
        results,
        definitions,
        groups=groups,
        compared=compared,
        details=details,
        scores=scores,
        mean="mean_prediction" if settings.task == "regression" else "mean_score",
    )
    return mark_untestable(
        results,
        alpha=settings.alpha,
        sizes=group_sizes(groups),
        n_permutations=n_permutations,
        task=settings.task,
    )
