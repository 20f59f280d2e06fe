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
from scipy.stats import norm

from ..metrics import abcc, abpc
from ..metrics._distribution import first_pair_reaching
from ..metrics._kernels._pivots import use_pivots
from ..metrics._mcdp_pairs import largest_pair
from ..metrics.inference import newcombe_interval
from ..utils import SMALL_GROUP_SIZE
from ..utils._labels import group_label_text
from ._common import (
    FEW_POSITIVES,
    FOUR_FIFTHS,
    counted,
    group_support,
    report_metrics,
)
from ._compute import between_groups, check_metrics, metrics_table, rate_closeness
from ._facts import DistributionFacts, GroupRate, Headline, RateGap, ThresholdFacts

_PAIR_FUNCTIONS = {"abcc": abcc, "abpc": abpc}
_MATCH = 1e-9  # a pair "attains" the metric's value within this


# -- the threshold facts ---------------------------------------------------------
def _weighted_fields(row):
    """``n_eff`` and ``n_rows`` of a group table row with survey weights (else {})."""
    if "n_eff" not in row:
        return {}
    return {"n_eff": float(row["n_eff"]), "n_rows": int(row["n_rows"])}


def _count(value, row):
    """A count of the group table: an int, a float when weighted (survey)."""
    return float(value) if "n_eff" in row else int(value)


def _group_rate(row, reference_rate):
    rate = float(row["positive_rate"])
    positives = float(row["n_positive"])
    return GroupRate(
        group=row["group"],
        size=_count(row["size"], row),
        rate=rate,
        low=float(row["positive_rate_low"]),
        high=float(row["positive_rate_high"]),
        ratio=rate / reference_rate if reference_rate > 0 else None,
        n_positive=_count(positives, row) if math.isfinite(positives) else None,
        **_weighted_fields(row),
    )


def _support(row, count="size"):
    """A row's ``count`` for small-group rules: its Kish ``n_eff`` when weighted."""
    if "n_eff" not in row:
        return row[count]
    effective = {
        "size": "n_eff",
        "n_positive": "n_eff_positive",
        "n_negative": "n_eff_negative",
    }
    return row[effective[count]]


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
    enough = [r for r in finite if _support(r, count) >= FEW_POSITIVES]
    left_out = ()
    if len(enough) >= 2:
        left_out = tuple(
            r["group"] for r in finite if _support(r, count) < FEW_POSITIVES
        )
        finite = enough
    if len(finite) < 2:
        return None
    low = min(finite, key=lambda r: r[rate])
    high = max(finite, key=lambda r: r[rate])

    def point(r):
        return GroupRate(
            r["group"],
            _count(r["size"], r),
            float(r[rate]),
            *_bounds(r, rate),
            **_weighted_fields(r),
        )

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


def fixed_outcome(record):
    """Whether a group's outcome is fixed: labels, and no positives or no negatives."""
    positives = float(record["n_positive"])
    return math.isfinite(positives) and positives in (0.0, float(record["size"]))


def _comparison_index(records, eligible, given):
    """The index of the group every other is compared with in the headline.

    The reference given by the user (``given``), else the most-selected group
    (the four-fifths convention) among the ``eligible`` groups, those of at
    least ``SMALL_GROUP_SIZE`` people when two or more are that large (a
    group of 3 selected at 100% is no standard to compare with): ties go to
    the larger group.
    """
    if given is not None:
        return given
    large = [i for i in eligible if _support(records[i]) >= SMALL_GROUP_SIZE]
    pool = large if len(large) >= 2 else eligible
    return max(pool, key=lambda i: (records[i]["positive_rate"], records[i]["size"]))


def _with_difference(g, reference, z):
    """``g`` with the Newcombe interval of its rate minus ``reference``'s.

    On the groups' Kish effective sizes with survey weights (``support``).
    """
    low, high = newcombe_interval(
        g.rate, g.support, reference.rate, reference.support, z
    )
    return dataclasses.replace(g, diff_low=float(low), diff_high=float(high))


def _grouping_facts(frame, threshold, given=False, confidence_level=0.95):
    records = frame.to_dict(orient="records")
    for r in records:
        r["n_negative"] = r["size"] - r["n_positive"]
    fixed = [i for i, r in enumerate(records) if fixed_outcome(r)]
    eligible = [i for i in range(len(records)) if i not in fixed]
    if len(eligible) < 2:  # nothing to compare once they are set apart
        eligible = list(range(len(records)))
        fixed = []
    table_ref = next(i for i, r in enumerate(records) if r["is_reference"])
    if given and table_ref in fixed:  # the user's reference is compared anyway
        fixed.remove(table_ref)
        eligible = sorted([*eligible, table_ref])
    k = _comparison_index(records, eligible, table_ref if given else None)
    reference_rate = float(records[k]["positive_rate"])
    # simultaneous intervals: Bonferroni over the comparisons the claim could
    # have come from; every pair when the data chose the reference (the
    # most-selected group), the others against a reference the user gave
    m = len(eligible)
    n_comparisons = max(1, m - 1 if given else m * (m - 1) // 2)
    z = float(norm.ppf(1 - (1 - confidence_level) / (2 * n_comparisons)))
    rates = [_group_rate(r, reference_rate) for r in records]
    rates[k] = _with_difference(rates[k], rates[k], z)
    compared = [rates[i] for i in eligible]
    others = [_with_difference(rates[i], rates[k], z) for i in eligible if i != k]
    below = [g for g in others if g.diff_high < 0]
    close = rate_closeness([g.rate for g in compared], reference_rate)
    farthest = four_fifths = None
    if np.isfinite(close).any():
        farthest = compared[int(np.nanargmin(close))]
        if farthest.group != rates[k].group:
            farthest = next(g for g in others if g.group == farthest.group)
        fine = [c >= FOUR_FIFTHS for c in close if np.isfinite(c)]
        four_fifths = "pass" if all(fine) else "fail"
    lowest = min(compared, key=lambda g: (g.rate, -g.size))
    highest = max(compared, key=lambda g: (g.rate, g.size))
    kept = [records[i] for i in eligible]
    return ThresholdFacts(
        threshold=threshold,
        grouping=frame["grouping"].iloc[0],
        reference=rates[k],
        disadvantaged=min(below, key=lambda g: (g.rate, -g.size)) if below else None,
        unclear=tuple(
            sorted(
                (g for g in others if g.rate < reference_rate and g.diff_high >= 0),
                key=lambda g: (g.rate, -g.size),
            )
        ),
        farthest=farthest,
        four_fifths=four_fifths,
        lowest=lowest,
        highest=highest,
        impact_ratio=_impact_ratio(kept, highest),
        tpr_gap=_rate_gap(kept, "tpr", "n_positive"),
        fpr_gap=_rate_gap(kept, "fpr", "n_negative"),
        comparison="reference" if given else "most selected",
        fixed_outcome=tuple(rates[i] for i in fixed),
        confidence_level=confidence_level,
        n_below=len(below),
        n_comparisons=n_comparisons,
    )


def threshold_facts(
    groups, compared_names, threshold, *, references=(), confidence_level=0.95
):
    """The :class:`ThresholdFacts` of the compared grouping that fares worst.

    Each grouping's groups are compared with its reference group when the
    user gave one (``references``: the tables' :class:`TableReference`,
    ``how`` other than "largest"), else with its most-selected group (see
    :func:`_comparison_index`); groups whose outcome is fixed (no positive
    or no negative labels) are set apart. The grouping that fares worst is
    the one whose most disadvantaged group (the least selected among those
    whose Newcombe interval of the difference lies below 0) has the lowest
    ratio to its comparison group; without such a group, the one with the
    lowest impact ratio.
    """
    given = {r.grouping for r in references if r.how != "largest"}

    def severity(facts):
        if facts.disadvantaged is not None:
            return (0, facts.disadvantaged.rate / facts.reference.rate)
        return (1, 1.0 if facts.impact_ratio is None else facts.impact_ratio)

    candidates = [
        _grouping_facts(
            groups[groups["grouping"] == name],
            threshold,
            given=name in given,
            confidence_level=confidence_level,
        )
        for name in compared_names
    ]
    return min(candidates, key=severity)


def group_sizes(groups):
    """``{(grouping, group text): size}`` from the report's group table.

    The sizes of the small-group rules: Kish's ``n_eff`` (rounded down) with
    survey weights (:func:`~._common.group_support`).
    """
    return {
        (grouping, group): int(size)
        for grouping, group, size in zip(
            groups["grouping"], groups["group"], group_support(groups)
        )
    }


def distribution_facts(
    results, details, scores, epsilon, groups, per_class=None, weights=None
):
    """MCDP(0), where it is attained and the share of scores within ±ε of it.

    When the worst pair involves a group of fewer than ``SMALL_GROUP_SIZE``
    samples (a one-person group's CDF is a single step, so its gap to any
    group is large whatever the model does), the facts also name that group
    and the largest MCDP(0) among the pairs of larger groups: over every
    class of ``per_class`` (``{class: MCDPResult}``) when given. With survey
    ``weights`` (of ``scores``) the share is the weighted share of people.
    """
    worst = details[0.0]
    by_key = {r.key: r for r in results}
    share = None
    if scores is not None:
        near = np.abs(scores - worst.threshold) <= epsilon
        share = float(np.average(near, weights=weights))
    sizes = group_sizes(groups)
    fixed = fixed_outcome_groups(groups)
    labels = tuple(group_label_text(g) for g in worst.groups)
    pair_sizes = [sizes.get((worst.attribute, g), 0) for g in labels]
    pair_fixed = [g for g in labels if (worst.attribute, g) in fixed]
    small_group = large = None
    if min(pair_sizes) < SMALL_GROUP_SIZE or pair_fixed:
        k = int(np.argmin(pair_sizes))
        if pair_sizes[k] < SMALL_GROUP_SIZE:
            small_group = (labels[k], pair_sizes[k])
        tables = {None: worst} if per_class is None else per_class
        large = max(
            (
                (*found, label)
                for label, result in tables.items()
                if (
                    found := _largest_between_large_groups(
                        result.pair_values, sizes, fixed
                    )
                )
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
        fixed_group=pair_fixed[0] if pair_fixed else None,
    )


def fixed_outcome_groups(groups):
    """``{(grouping, group text)}`` of the groups whose outcome is fixed."""
    if "n_positive" not in groups:
        return set()
    return {
        (r["grouping"], r["group"])
        for r in groups.to_dict(orient="records")
        if fixed_outcome(r)
    }


def _largest_between_large_groups(pair_values, sizes, fixed=()):
    """The largest ``(value, (a, b))`` over pairs of groups of 30 or more.

    Groups in ``fixed`` (whose outcome is fixed) are left out too. None when
    fewer than two groups remain. The pairs of many groups are not all
    evaluated (:meth:`~skfair.metrics._mcdp_pairs.PairValues.largest`).
    """

    def keep(attribute, label):
        key = (attribute, group_label_text(label))
        return sizes.get(key, 0) >= SMALL_GROUP_SIZE and key not in fixed

    found = largest_pair(pair_values, keep)
    if found is None:
        return None
    value, (a, b) = found
    return float(value), (group_label_text(a), group_label_text(b))


def binary_headline(
    groups, compared, settings, results, details, scores, references=(), weights=None
):
    """A classifier's :class:`Headline`: at the threshold, then over all of them.

    ``scores`` are those of the rows MCDP(0) compares (None: no share near
    it), ``weights`` their survey weights (None without).
    """
    return Headline(
        threshold_facts(
            groups,
            [g.name for g in compared],
            settings.threshold,
            references=references,
            confidence_level=settings.confidence_level,
        ),
        distribution_facts(
            results, details, scores, settings.epsilon, groups, weights=weights
        ),
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


def _pair_value(function, params, scores, codes, a, b, weights=None):
    rows = (codes == a) | (codes == b)
    return function(
        None,
        scores[rows],
        sensitive_features=codes[rows],
        min_group_size=1,
        sample_weight=None if weights is None else weights[rows],
        **params,
    )


def worst_pair(function, params, scores, grouping, value, weights=None):
    """The codes ``(a, b)`` of the pair whose metric is ``value``, or None.

    ABCC and ABPC are L1 distances (between CDFs, between densities), so
    ``d(a, b) <= d(a, p) + d(p, b)`` for a pivot group ``p`` (the largest):
    the pairs are evaluated in decreasing order of that bound, and only
    while it can reach ``value``; ``n_groups - 1`` evaluations and a few
    more instead of every pair. ``weights``: survey weights (the weighted
    metric of each pair).
    """
    codes, n = grouping.codes, grouping.n_groups
    sizes = np.bincount(codes[codes >= 0], minlength=n)
    pivot = int(np.argmax(sizes))
    to_pivot = np.zeros(n)
    for g in range(n):
        if g != pivot:
            to_pivot[g] = _pair_value(
                function, params, scores, codes, pivot, g, weights
            )
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
            abs(
                _pair_value(function, params, scores, codes, a[k], b[k], weights)
                - value
            )
            <= _MATCH
        ):
            return int(a[k]), int(b[k])
    return None


def _search_pair(result, definition, scores, compared, weights=None):
    """The labels and grouping of the pair attaining ABCC's or ABPC's value.

    Many groups (:func:`~skfair.metrics._kernels._pivots.use_pivots`): the
    first pair in pair order whose value is within ``_MATCH`` of it
    (:func:`~skfair.metrics._distribution.first_pair_reaching`, vectorised
    and in memory bounded whatever the pairs); fewer: :func:`worst_pair`.
    """
    function = _PAIR_FUNCTIONS[definition.metric]
    for grouping in compared:
        found = NotImplemented
        if use_pivots(grouping.n_groups):
            found = first_pair_reaching(
                definition.metric,
                scores,
                grouping.codes,
                grouping,
                result.value - _MATCH,
                weights,
                definition.params,
            )
        if found is NotImplemented:
            found = worst_pair(
                function, definition.params, scores, grouping, result.value, weights
            )
        if found is not None:
            labels = tuple(group_label_text(grouping.labels[g]) for g in found)
            return labels, grouping.name
    return None, None


def attach_pairs(
    results,
    definitions,
    *,
    groups,
    compared,
    details,
    scores,
    mean="mean_score",
    weights=None,
):
    """``results`` with ``pair`` (and ``pair_grouping``) set where it is known.

    MCDP's pairs come from :func:`~skfair.metrics.mcdp_details`; ΔDP's from
    the group table (the groups of highest and lowest ``mean`` column, the
    mean score or prediction, or positive rate); ABCC's and ABPC's from
    :func:`worst_pair` (in memory only: ``scores`` None leaves them out;
    with survey ``weights``, of the weighted metric).
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
                pair, grouping = _search_pair(
                    result, definition, scores, compared, weights
                )
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
    scores,
    sensitive_features,
    settings,
    resampling,
    progress,
    groups,
    compared,
    weights=None,
):
    """The metrics of in-memory scores, their intervals, tests and pairs.

    Returns ``(results, details)``: :func:`metrics_table`'s results through
    :func:`finish_metrics`, and :func:`check_metrics`' MCDP details. With
    survey ``weights``: weighted metrics and intervals, no tests (each
    result's ``untestable_reason`` says why).
    """
    progress("metrics")
    checked = check_metrics(scores, sensitive_features, settings, weights)
    details = checked[2]
    progress("intervals and tests")
    results = metrics_table(
        scores,
        sensitive_features,
        settings,
        resampling,
        checked,
        progress.count,
        weights=weights,
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
        weights=weights,
    )
    return results, details


def finish_metrics(
    results,
    *,
    settings,
    groups,
    compared,
    details,
    scores,
    n_permutations,
    weights=None,
):
    """The metrics with their pairs (:func:`attach_pairs`) and untestable tests.

    With survey ``weights`` no test was run (:data:`~._common.SURVEY_NO_TEST`):
    there is nothing to mark.
    """
    definitions = report_metrics(settings)
    results = attach_pairs(
        results,
        definitions,
        groups=groups,
        compared=compared,
        details=details,
        scores=scores,
        mean="mean_prediction" if settings.task == "regression" else "mean_score",
        weights=weights,
    )
    if weights is not None:  # no test was run (see SURVEY_NO_TEST)
        return results
    return mark_untestable(
        results,
        alpha=settings.alpha,
        sizes=group_sizes(groups),
        n_permutations=n_permutations,
        task=settings.task,
    )
