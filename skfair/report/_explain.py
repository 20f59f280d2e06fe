"""How the report's numbers were obtained (Methods) and what they cannot say (Notes).

Plain text read from the report's typed facts, as :mod:`._sentences`.
"""

from __future__ import annotations

import math

from ..utils import SMALL_GROUP_SIZE
from ._common import (
    DASK_NOTE,
    FEW_POSITIVES,
    FOUR_FIFTHS,
    SURVEY_NO_DKW,
    SURVEY_NO_TEST,
    SURVEY_RATES,
    counted,
    group_support,
    survey_weighted,
)

#: How each test is named in a sentence.
TEST_NAMES = {
    "ks": "exact Kolmogorov–Smirnov",
    "welch": "Welch",
    "alexander-govern": "Alexander–Govern",
    "chi2": "chi-square",
    "fisher": "Fisher exact",
    "permutation": "permutation",
}


def test_phrase(test):
    """The reader's name of a test, or of one test per attribute.

    Under ``combine="marginal"`` each attribute may take its own test:
    ``"alexander-govern+welch"`` reads "Alexander–Govern and Welch tests".
    """
    parts = test.split("+")
    names = " and ".join(TEST_NAMES[part] for part in parts)
    return f"{names} test" if len(parts) == 1 else f"{names} tests"


_INTERVAL_METHODS = {
    "welch": "Welch (normal theory for the gap in means, folded to its absolute "
    "value; Bonferroni over pairs of groups)",
    "newcombe": "Newcombe's hybrid score interval for a difference of two "
    "proportions (folded; Bonferroni over pairs of groups)",
    "band": "a bootstrap band of the centred gap between the groups' CDFs "
    "(densities for ABPC), simultaneous over pairs of groups",
    "dkw": "the distribution-free DKW band (guaranteed coverage, wider)",
}
_HOW = {
    "given": "as given",
    "component": "the given reference's part for this attribute",
    "largest": "the largest group",
}


def _finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


def interval_of(result):
    """(low, high, method name) of a metric's main interval, or (.., None)."""
    if _finite(result.low):
        return result.low, result.high, result.interval or "confidence"
    if _finite(result.dkw_low):
        return result.dkw_low, result.dkw_high, "DKW"
    return math.nan, math.nan, None


def _references_text(report):
    if all(r.how == "largest" for r in report.references):
        return "the reference group of each table is its largest group"
    return "reference groups: " + "; ".join(
        f"{r.grouping}: {r.group} ({_HOW[r.how]})" for r in report.references
    )


def _groups_text(report):
    kept = (
        f", groups under {report.min_group_size} samples left out of everything"
        if report.min_group_size is not None
        else ", every group kept"
    )
    return (
        f"Groups: {report.combine} of the sensitive attributes{kept}; "
        f"{_references_text(report)}."
    )


def _rates_text(report):
    level = f"{100 * report.confidence_level:g}%"
    if survey_weighted(report):  # the rules read Kish's effective sizes
        flagged = (
            f"a group whose positive labels have a Kish effective size under "
            f"{FEW_POSITIVES} is flagged (its TPR and FNR rest on a handful of "
            "effective samples (Kish))"
        )
        large = f"{SMALL_GROUP_SIZE} or more effective samples (Kish)"
    else:
        flagged = (
            f"a group with fewer than {FEW_POSITIVES} positive labels is flagged "
            "(its TPR and FNR rest on a handful of samples)"
        )
        large = f"{SMALL_GROUP_SIZE} or more people"
    return (
        f"Per-group rates: {level} Wilson score intervals; {flagged}. The headline "
        "compares every group with the most-selected group (the four-fifths "
        f"convention; among the groups of {large} when two or more are), or with the "
        "reference group when one is given; groups whose outcome is fixed in "
        "the labels (no positives or no negatives) are set apart from every "
        "comparison, ratio and gap there. Four-fifths rule: every group's "
        f"positive rate within {FOUR_FIFTHS:g} to {1 / FOUR_FIFTHS:g} times that "
        "group's (in the group table: the table's reference group's). A group "
        f"is said to be selected less often only when the {level} Newcombe "
        "hybrid score interval of the difference of the two rates lies below 0 "
        "(the least selected such group is named); a group whose interval "
        "contains 0 is too few to tell. Impact ratio: the lowest positive rate "
        "over the highest, of the groups compared. "
        "Rates are percentages; gaps between rates, and every metric, are "
        "fractions (0.05 is 5 percentage points); ratios of rates have 3 "
        "decimals." + (SURVEY_RATES if survey_weighted(report) else "")
    )


def _tests_text(report):
    if survey_weighted(report):
        return f"Tests of “no disparity”: {SURVEY_NO_TEST}."
    n = report.n_permutations
    floor = 1.0 / (n + 1)
    keys = {r.key for r in report.metric_results}
    binary = (
        "ΔDP_b, the chi-square (Fisher's exact) test; "
        if any(k.startswith("delta_dp@") for k in keys)
        else ""
    )
    return (
        "Tests of “no disparity”: MCDP(0) with two groups, the exact "
        "Kolmogorov–Smirnov test (asymptotic above 10 000 samples per group); "
        f"ΔDP_c, Welch's (Alexander–Govern's) test; {binary}"
        f"otherwise a permutation test with {n} permutations of the "
        f"group labels, shared by the metrics. With {n} permutations the smallest "
        f"p-value is 1/({n} + 1) = {floor:.3g}: the resolution limit (“≤ "
        f"{floor:.3g}” means larger than in every permutation). A permutation "
        "test whose statistic is at its largest possible value and is not "
        "rejected is untestable (saturated), not evidence of no disparity. The "
        "summary's verdict reads the other tests with Holm's step-down "
        "correction for their number, at a family-wise level of "
        f"{report.settings.alpha:g}."
    )


def _tradeoff_text(report):
    advice = report.advice
    name = advice.performance.replace("_", " ")
    return (
        f"Trade-off: {advice.n_candidates} candidate thresholds (quantiles of the "
        f"scores and 0.01 to 0.99), scored by {name} and ΔDP_b^t. A threshold is "
        "recommended only if its positive-rate gap is smaller than at the "
        f"audit's threshold and its {name} at least "
        f"{100 * advice.tolerance:g}% of the best; never one at which some group "
        "with both outcomes has a positive rate of 0 or 1 "
        f"({advice.n_excluded} such thresholds here). A group without positive "
        "(negative) labels may have a positive rate of 0 (1)."
        + (
            " Every rate and score of the trade-off is weighted by the survey weights."
            if survey_weighted(report)
            else ""
        )
    )


def decision_rule(settings):
    """``"the score ≥ 0.5"``, or the rule in logits or margins (their units)."""
    kind = settings.score_type
    rule = getattr(settings, "threshold_rule", None)
    chosen = "" if rule is None or kind == "probability" else f"; {rule}"
    if kind == "logit":
        return (
            f"the logit ≥ {settings.decision_threshold:g} (the sigmoid-mapped "
            f"probability ≥ {settings.threshold:.4g}{chosen})"
        )
    chosen = chosen.replace("; ", " (", 1) + ")" if chosen else ""
    if kind == "margin":
        return f"the margin ≥ {settings.decision_threshold:g}{chosen}"
    return f"the score ≥ {settings.threshold:g}"


def score_type_text(settings):
    """The sentence stating how raw scores were used (None for probabilities)."""
    kind = settings.score_type
    if kind == "logit":
        return (
            "Scores: logits, mapped through the sigmoid (expit) before anything "
            "else; every number is that of the mapped probabilities, and the "
            "thresholds of the tables and the trade-off are probabilities."
        )
    if kind == "margin":
        return (
            "Scores: margins, kept on their own scale. ΔDP_c, ΔDP_b, ABCC and "
            "MCDP(0) are computed on the margins (ΔDP_c and ABCC in margin "
            "units: they change with the scale, whereas MCDP(0), the KS "
            "statistic, is the same under any increasing map of the scores); "
            "ABPC, MCDP(ε) and the DKW intervals of ΔDP_c and ABCC need scores "
            "in [0, 1] and are not applicable."
        )
    return None


def methods(report):
    """How every number was obtained, and what was left out."""
    pos_label = report.pos_label
    rule = decision_rule(report.settings)
    out = [
        f"Decisions: positive when {rule}; the positive label is {pos_label!r}."
        if pos_label is not None
        else f"Decisions: positive when {rule}; no labels.",
        score_type_text(report.settings),
        _groups_text(report),
        _rates_text(report),
        interval_method_text(report),
    ]
    out = [text for text in out if text is not None]
    if report.engine != "dask":
        out.append(_tests_text(report))
    if report.advice is not None:
        out.append(_tradeoff_text(report))
    out.append("Left out: " + _binary_left_out_text(report))
    return out


def interval_method_text(report):
    level = f"{100 * report.confidence_level:g}%"
    used = sorted({r.interval for r in report.metric_results if r.interval})
    parts = []
    if used:
        described = [f"{name}: {_INTERVAL_METHODS.get(name, name)}" for name in used]
        parts.append(f"{level} intervals by method ({'; '.join(described)})")
        if "band" in used and survey_weighted(report):
            parts.append(
                f"the band uses {report.n_resamples} resamples of each group's "
                "rows with their survey weights (a weighted bootstrap), and the "
                "Welch and Newcombe intervals Kish's effective sizes"
            )
        elif "band" in used and report.engine != "dask":
            parts.append(
                f"the band uses {report.n_resamples} resamples, each group "
                "resampled on its own; an interval starts at 0 when the test "
                "cannot reject “no disparity”"
            )
    if report.engine != "dask" and any(
        _finite(r.dkw_low) for r in report.metric_results
    ):
        parts.append(
            "DKW intervals beside them (distribution-free, guaranteed coverage, "
            "wider; not for ABPC)"
        )
    return "Disparity metrics: " + ("; ".join(parts) or "no intervals") + "."


def left_out_text(report, without_labels, also=()):
    """What the report leaves out: small groups, undefined metrics and more.

    ``without_labels`` is what needs the true labels (named when there are
    none), ``also`` what the report never has.
    """
    items = []
    if report.left_out:
        items.append(
            f"{counted(len(report.left_out), 'group')} under min_group_size = "
            f"{report.min_group_size}"
        )
    items += [f"{r.name} (undefined)" for r in report.metric_results if not r.defined]
    if not report.has_labels:
        items.append(without_labels)
    items += also
    return (", ".join(items) or "nothing") + "."


def _binary_left_out_text(report):
    dask = ["bootstrap intervals, p-values, ABPC, the trade-off and figures (Dask)"]
    return left_out_text(
        report,
        "every label-based rate, the trade-off and HFM (no labels)",
        dask if report.engine == "dask" else (),
    )


def _listed(rows, column, form):
    """``"group (form(value))"`` of each row of a group table, comma-separated."""
    return ", ".join(f"{g} ({form(n)})" for g, n in zip(rows["group"], rows[column]))


def compared_groups(report):
    """The group table's rows of the groupings the metrics compare."""
    groups = report.groups
    return groups[groups["grouping"].isin(list(report.kept_groups))]


def group_caveats(report, sizes, listing=", ".join):
    """The "read with care" items every task shares, on the groups' ``sizes``."""
    out = []
    if report.left_out:
        out.append(f"{counted(len(report.left_out), 'small group')} left out")
    small = int((sizes < SMALL_GROUP_SIZE).sum())
    what = "effective samples (Kish)" if survey_weighted(report) else "samples"
    if small:
        out.append(f"{counted(small, 'group')} of fewer than {SMALL_GROUP_SIZE} {what}")
    undefined = [r.short_name for r in report.metric_results if not r.defined]
    if undefined:
        out.append(f"{listing(undefined)} undefined here")
    return out


def read_with_care(caveats):
    """The sentence of the ``caveats`` (none without them), as a list."""
    return ["Read with care: " + "; ".join(caveats) + "."] if caveats else []


def small_group_notes(report, groups, places, uncertain, after=""):
    """The notes on the left-out groups and on the ``groups`` that are small.

    ``places`` are where a left-out group is not, ``uncertain`` the numbers
    of a small group that are very uncertain, ``after`` a clause that follows.
    """
    out = []
    if report.left_out:
        names = ", ".join(f"{g} (n = {s:,})" for _, g, s in report.left_out)
        out.append(
            f"Left out (min_group_size = {report.min_group_size}): {names}. "
            f"These groups are in no {places} or figure."
        )
    small = groups[group_support(groups) < SMALL_GROUP_SIZE]
    if len(small) and "n_eff" in groups:
        out.append(
            f"Small groups (Kish effective size under {SMALL_GROUP_SIZE}): "
            f"{_listed(small, 'n_eff', 'n_eff = {:,.1f}'.format)}. Their "
            f"{uncertain} and every interval involving them are very uncertain."
        )
    elif len(small):
        out.append(
            f"Small groups: {_listed(small, 'size', 'n = {:,}'.format)}. Their "
            f"{uncertain} and every interval involving them are very uncertain"
            f"{after}."
        )
    return out


def _group_notes(report):
    compared = compared_groups(report)
    out = small_group_notes(
        report,
        compared,
        "metric, interval, test, table",
        "rates",
        "; prefer the DKW interval there",
    )
    few = compared[compared["few_positives"] == True]  # noqa: E712
    if len(few) and "n_eff" in compared:
        out.append(
            f"Few positives (Kish effective size of the positives under "
            f"{FEW_POSITIVES}): "
            f"{_listed(few, 'n_eff_positive', 'n_eff = {:,.1f}'.format)}. Their "
            "TPR and FNR rest on a handful of effective samples (Kish); read the "
            "Wilson intervals."
        )
    elif len(few):
        out.append(
            f"Few positives (under {FEW_POSITIVES} positive labels): "
            f"{_listed(few, 'n_positive', int)}. Their TPR and FNR rest on a "
            "handful of samples; read the Wilson intervals."
        )
    return out


def _metric_notes(report):
    out = []
    for r in report.metric_results:
        if not r.defined:
            out.append(
                f"{r.name} is undefined on these groups and reported as such: "
                f"{r.undefined_reason}"
            )
        elif r.inference_error is not None and report.engine != "dask":
            out.append(
                f"{r.name}: no interval or p-value on these groups "
                f"({r.inference_error})"
            )
        if r.untestable_reason is not None:
            out.append(
                f"{r.name}: its {test_phrase(r.test)} is untestable here "
                f"({r.untestable_reason})."
            )
    return out


def metric_notes(report, without_labels, labels="labels"):
    """The notes on each metric, then on what is missing without true labels."""
    out = _metric_notes(report)
    if not report.has_labels:
        out.append(f"No true {labels} were given: {without_labels} are not available.")
    return out


def notes(report):
    """Plain-language notes on what the report can and cannot say."""
    out = [DASK_NOTE] if report.engine == "dask" else []
    if survey_weighted(report):
        out.append(SURVEY_NO_DKW)
    out += _group_notes(report)
    return out + metric_notes(
        report,
        "base rates, TP/FP/FN/TN, TPR, FPR, FNR, precision, the trade-off and HFM",
    )
