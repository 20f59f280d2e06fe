"""What a multiclass audit says: its lead, headline, summary, tables and notes.

Plain text read from the report's typed facts (:class:`MulticlassFacts`, the
worst class's :class:`DistributionFacts`), as :mod:`._sentences` and
:mod:`._tables` are for a binary classifier; the renderers lay them out
through :mod:`._views`. Rates are percentages, gaps between rates and
metrics fractions with 4 decimals, ratios 3 decimals.
"""

from __future__ import annotations

import math

from ..utils import SMALL_GROUP_SIZE
from ._common import (
    FEW_POSITIVES,
    SURVEY_NO_DKW,
    counted,
    format_percent,
    format_ratio,
    group_support,
    survey_weighted,
)
from ._explain import (
    _groups_text,
    _tests_text,
    compared_groups,
    group_caveats,
    interval_method_text,
    left_out_text,
    metric_notes,
    read_with_care,
    small_group_notes,
)
from ._sentences import (
    _listing,
    _size_text,
    _verdict_sentences,
    mcdp_clauses,
    small_pair_sentence,
)
from ._survey import weighted_count

METRIC_HELP = (
    "Class k's rows compare the groups' distributions of the probability of "
    "class k (one-vs-rest; lower is fairer; ABCC, ABPC and MCDP(0) are 0 only "
    "for identical distributions, ΔDP_c for equal mean probabilities). "
    "The gap rows are the largest difference over pairs of groups in a rate of "
    "one class (selection rate: the share predicted k; TPR: the share of "
    "class-k people predicted k; FPR: the share of the others predicted k), "
    "then the worst class and the mean over classes "
    "(skfair.metrics.multiclass_selection_rate_difference and co.), without "
    "intervals. “Groups” are the two groups the value comes from. See Methods."
)
_RATE_WORDS = {
    "selection_rate": "selection rate (share predicted {c})",
    "tpr": "true positive rate (share of class-{c} people predicted {c})",
    "fpr": "false positive rate (share of people not of class {c} predicted {c})",
}
_LEAST = {"selection_rate": SMALL_GROUP_SIZE, "tpr": FEW_POSITIVES}
_LEAST_WHAT = {
    "selection_rate": "samples",
    "tpr": "samples of the class",
    "fpr": "samples of other classes",
}


def _level(report):
    return f"{100 * report.confidence_level:g}%"


def _facts(report):
    return report.headline.multiclass


def _task_text(settings):
    if settings.task_reason is not None:
        return f"task detected: multiclass ({settings.task_reason})"
    return "task: multiclass (as given)"


def _prediction_text(facts):
    if facts.prediction == "probabilities":
        return "predicted class: the most probable (first in class order on ties)"
    return "predicted class: the labels given"


def lead(report):
    f, s = _facts(report), report.settings
    labels = "with true labels" if report.has_labels else "no true labels"
    samples = f"{report.n_samples:,} samples"
    if survey_weighted(report):
        samples = (
            f"{report.n_samples:,} rows standing for "
            f"{weighted_count(report.provenance.n_people)} people (survey weights)"
        )
    return (
        f"{samples}; sensitive attribute(s): "
        f"{', '.join(map(str, report.data.attributes))}; {_task_text(s)}; "
        + ("" if s.task_reason else f"classes: {', '.join(f.classes)}; ")
        + f"{_prediction_text(f)}; {labels}; "
        f"ε = {s.epsilon:g}."
    )


# -- the headline ------------------------------------------------------------------
def _who(g):
    return f"{g.group} ({_size_text(g)})"


_DENOMINATOR = {"tpr": "of class {c}", "fpr": "not of class {c}"}


def _who_rate(g, rate, label):
    """``"b (n = 9,746)"``, or with a TPR's or FPR's own denominator.

    A rate on fewer than ``SMALL_GROUP_SIZE`` people (the group for the
    selection rate, its people of the class for TPR, the others for FPR)
    is said to rest on a small denominator, with its size.
    """
    if rate not in _DENOMINATOR or g.n_positive is None:
        small = ", a small group" if g.support < SMALL_GROUP_SIZE else ""
        return f"{g.group} ({_size_text(g)}{small})"
    d = g.n_positive
    what = _DENOMINATOR[rate].format(c=label)
    if g.n_eff_positive is None:
        small = ", a small denominator" if d < SMALL_GROUP_SIZE else ""
        return f"{g.group} (n = {g.size:,}; the rate rests on {d:,} {what}{small})"
    # survey weights: the denominator's weighted count and its Kish size
    small = ", a small denominator" if g.n_eff_positive < SMALL_GROUP_SIZE else ""
    return (
        f"{g.group} ({_size_text(g)}; the rate rests on a weighted "
        f"{weighted_count(d)} {what}, n_eff = {g.n_eff_positive:,.1f}{small})"
    )


def _rate_text(g):
    bounds = f"{format_percent(g.low)}–{format_percent(g.high)}"
    return f"{format_percent(g.rate)} (Wilson {bounds})"


def _left_out_part(gap, rate):
    if not gap.left_out:
        return ""
    least = _LEAST.get(rate, FEW_POSITIVES)
    what = _LEAST_WHAT[rate]
    if gap.lowest.n_eff is not None:  # survey weights: Kish's effective sizes
        what = f"effective {what} (Kish)"
    return (
        f" (left out of this comparison, fewer than {least} {what}: "
        f"{_listing(gap.left_out)})"
    )


def _gap_sentence(facts, gap, lead_in):
    what = _RATE_WORDS[gap.rate].format(c=gap.label)
    if gap.lowest.group == gap.highest.group:
        return (
            f"{lead_in}class {gap.label}: only {_who(gap.highest)} has a {what}, "
            f"{_rate_text(gap.highest)}: no comparison."
        )
    overlap = gap.lowest.high >= gap.highest.low
    reading = (
        "their intervals overlap, so the gap may be noise"
        if overlap
        else "their intervals do not overlap"
    )
    return (
        f"{lead_in}class {gap.label} has the largest gap in {what} among the "
        f"groups of {facts.grouping}: {_rate_text(gap.highest)} for "
        f"{_who_rate(gap.highest, gap.rate, gap.label)} against "
        f"{_rate_text(gap.lowest)} for "
        f"{_who_rate(gap.lowest, gap.rate, gap.label)}, a gap of {gap.value:.4f} "
        f"({100 * gap.value:.1f} percentage points)"
        f"{_left_out_part(gap, gap.rate)}; {reading}."
    )


def _worst(gaps):
    return max(gaps, key=lambda g: g.value) if gaps else None


def _shares_sentence(facts, label):
    """Predicted beside true shares of class ``label`` in each group, or None."""
    shares = [c for c in facts.shares if c.label == label]
    if not shares:
        return None
    labelled = any(math.isfinite(c.true) for c in shares)
    parts = [
        f"{c.group} {format_percent(c.predicted)}"
        + (f" (true {format_percent(c.true)})" if labelled else "")
        for c in shares
    ]
    what = "predicted (true) share" if labelled else "predicted share"
    return (
        f"The {what} of class {label} in each group of {facts.grouping}: "
        f"{_listing(parts)}."
    )


def _by_class_sentence(facts):
    parts = [
        f"{g.label} {g.value:.4f}"
        + (
            ""
            if g.lowest.group == g.highest.group
            else f" ({g.highest.group} vs {g.lowest.group})"
        )
        for g in facts.selection
    ]
    return (
        f"Selection-rate gap of each class ({facts.grouping}): "
        + "; ".join(parts)
        + "."
    )


def _distribution_sentence(report):
    d, f = report.headline.distribution, _facts(report)
    key = f"mcdp[{_class_key(report, f.distribution_class)}]"
    interval, said = mcdp_clauses(report, key)
    pair = " vs ".join(d.groups)
    if f.prediction == "labels":
        return (
            f"On the predicted labels, class {f.distribution_class} has the largest "
            f"MCDP(0) = {d.value:.4f} ({pair}, {d.attribute}): the gap in the share "
            f"predicted {f.distribution_class} over all groups{interval}; {said}."
        )
    k = len(f.classes)
    where = (
        f"whose probability of {f.distribution_class} is at most {d.score:.3g} "
        f"differ by {100 * d.value:.1f} percentage points"
    )
    if d.score < 1.0 / k:
        # below 1/K the class is never the most probable: no decision reads it
        where = (
            f"differ most, by {100 * d.value:.1f} percentage points, at a "
            f"probability of class {f.distribution_class} below 1/{k} (at most "
            f"{d.score:.3g}), where the class is never the predicted one: a "
            "gap in the scores, at no decision the model makes"
        )
    return (
        "Over all thresholds of a class's probability, the largest gap between "
        f"two groups' CDFs is that of class {f.distribution_class}: MCDP(0) = "
        f"{d.value:.4f} ({pair}, {d.attribute}): the shares of the two groups "
        f"{where}{interval}; {said}."
    )


def _class_key(report, text):
    """The class as in the metric keys (its ``str``)."""
    return text


def headline(report):
    """The worst class's selection gap, all classes, TPR/FPR, then the CDFs."""
    f, out = _facts(report), []
    worst = _worst(f.selection)
    if all(g.value == 0 for g in f.selection):
        out.append(
            f"Every compared group of {f.grouping} is predicted each class at the "
            "same rate."
        )
    else:
        out.append(_gap_sentence(f, worst, f"Of the {len(f.classes)} classes, "))
        shares = _shares_sentence(f, worst.label)
        if shares:
            out.append(shares)
    if len(f.selection) > 1:
        out.append(_by_class_sentence(f))
    if report.left_out:
        out.append(
            f"Left out as smaller than min_group_size = {report.min_group_size}: "
            f"{counted(len(report.left_out), 'group')} (named in the notes)."
        )
    if report.has_labels:
        for gaps, lead_in in ((f.tpr, "One-vs-rest, "), (f.fpr, "One-vs-rest, ")):
            gap = _worst(gaps)
            if gap is not None and gap.value > 0:
                out.append(_gap_sentence(f, gap, lead_in))
    else:
        out.append(
            "Without true labels (y_true), the TPR, FPR and confusion matrices "
            "are not available."
        )
    small = small_pair_sentence(report.headline.distribution, survey_weighted(report))
    return out + [_distribution_sentence(report)] + ([small] if small else [])


def _survey_methods(report):
    """How the survey weights enter a multiclass audit (None without)."""
    if not survey_weighted(report):
        return None
    return (
        "With survey weights: every count (the group's size, its people "
        "predicted and truly of each class, the confusion matrices) is a "
        "weighted count, beside the rows and Kish's effective size n_eff = "
        "(Σw)²/Σw²; every share, rate and gap between groups is a weighted "
        "estimate; each rate's Wilson interval counts the n_eff of its "
        "denominator (the group for the selection rate, its people of the "
        "class for TPR, the others for FPR), and so do the small-group rules; "
        "the distribution metrics are of the weighted CDFs of each class's "
        "probability."
    )


# -- the plain summary -------------------------------------------------------------
def plain_summary(report):
    """A few plain-language sentences for a decision-maker."""
    f, out = _facts(report), []
    worst = _worst(f.selection)
    if worst.lowest.group != worst.highest.group and worst.value > 0:
        ratio = worst.lowest.rate / worst.highest.rate
        out.append(
            f"The model predicts class {worst.label} for "
            f"{format_percent(worst.highest.rate)} of {worst.highest.group} but "
            f"{format_percent(worst.lowest.rate)} of {worst.lowest.group}, "
            f"{format_ratio(ratio)} times as often."
        )
    noun = "class probabilities" if f.prediction == "probabilities" else "predictions"
    out += _verdict_sentences(report, noun=noun)
    return out + read_with_care(_caveats(report))


def _compared(report):
    """The compared groups, once each (the group table has a row per class)."""
    return compared_groups(report).drop_duplicates(["grouping", "group"])


def _caveats(report):
    return group_caveats(report, group_support(_compared(report)), listing=_listing)


# -- methods and notes ---------------------------------------------------------------
def methods(report):
    """How every number of a multiclass audit was obtained."""
    s, f, level = report.settings, _facts(report), _level(report)
    # with survey weights the confusion matrices are weighted counts, and the
    # headline's size rules read Kish's effective sizes
    unit, counted_what = "samples", "samples"
    if survey_weighted(report):
        unit, counted_what = "effective samples (Kish)", "people (weighted counts)"
    out = [
        f"{_task_text(s)[0].upper()}{_task_text(s)[1:]}; {_prediction_text(f)}.",
        _groups_text(report),
        f"Per group and class (skfair.metrics.multiclass_rate_table): the "
        "selection rate (share predicted the class), its ratio and difference "
        "to the reference group, and one-vs-rest the true positive rate (share "
        "of the class predicted it) and false positive rate (share of the other "
        f"classes predicted it), each with a {level} Wilson score interval "
        f"(pointwise). The confusion matrices count each group's {counted_what} "
        "by true class (rows) and predicted class (columns).",
        "Gaps between groups: for each class the largest difference over pairs "
        "of groups of its selection rate, TPR and FPR (skfair.metrics."
        "multiclass_rate_details), then the worst class and the mean over "
        "classes (multiclass_selection_rate_difference, ..._true_positive_rate_"
        "difference, ..._false_positive_rate_difference and multiclass_"
        "equalized_odds_difference with class_agg='max' and 'mean'); no interval. "
        "The headline compares the groups of at least "
        f"{SMALL_GROUP_SIZE} {unit} for the selection rate (of at least "
        f"{FEW_POSITIVES} {unit} of the class, or not of it, for TPR and FPR) "
        "when two or more have that many.",
        "Distribution metrics of each class k on its probability column, one-vs-"
        "rest (ΔDP_c, ABCC, ABPC, MCDP(0) and MCDP(ε)), as for a binary "
        "classifier's scores"
        + (
            "; with predicted labels the column is 0/1 (predicted k or not), so "
            "ΔDP_c, ABCC and MCDP(0) equal the selection-rate gap over all groups."
            if f.prediction == "labels"
            else "."
        ),
        *([_survey_methods(report)] if survey_weighted(report) else []),
        interval_method_text(report),
        _tests_text(report)
        + (
            ""
            if survey_weighted(report)
            else " Each class has its own tests; no correction across classes."
        ),
        "Left out: "
        + left_out_text(
            report,
            "TPR, FPR and the confusion matrices (no true labels)",
            ["ΔDP_b, the threshold trade-off and HFM (binary classifiers only)"],
        ),
    ]
    return out


def _missing_class_notes(report):
    """Groups with no sample of a class (TPR undefined) or only of it (FPR)."""
    out = []
    for gaps, lacking in (
        (_facts(report).tpr, "no sample of class {c}, so no TPR of it"),
        (_facts(report).fpr, "every sample of class {c}, so no FPR of it"),
    ):
        for gap in gaps:
            if gap.undefined:
                count = counted(len(gap.undefined), "group")
                out.append(
                    f"{_listing(gap.undefined)} ({count} of {_facts(report).grouping}"
                    f"): {lacking.format(c=gap.label)}."
                )
    return out


def notes(report):
    """Plain-language notes on what a multiclass report can and cannot say."""
    out = [SURVEY_NO_DKW] if survey_weighted(report) else []
    out += small_group_notes(
        report, _compared(report), "metric, interval, table", "rates"
    )
    if report.has_labels:
        out += _missing_class_notes(report)
    return out + metric_notes(report, "TPR, FPR and the confusion matrices")


# -- the tables --------------------------------------------------------------------
def groups_title(report):
    return "Groups and classes"


def _cell(row, rate):
    value = row[rate]
    if not math.isfinite(value):
        return "—"
    low, high = row[f"{rate}_low"], row[f"{rate}_high"]
    return f"{format_percent(value)} ({format_percent(low)}–{format_percent(high)})"


def _ratio_cell(row):
    diff = row["selection_rate_diff"]
    return f"{format_ratio(row['selection_rate_ratio'])} ({diff:+.4f})"


def _name(row):
    return f"{row['group']} (reference)" if row["is_reference"] else row["group"]


def _size_cells(row):
    """The size cell, or (survey weights) the weighted size, rows, n_eff, deff."""
    if "n_eff" not in row:
        return [f"{int(row['size']):,}"]
    return [
        weighted_count(row["size"]),
        f"{int(row['n_rows']):,}",
        f"{row['n_eff']:,.1f}",
        f"{row['design_effect']:.2f}",
    ]


def _wide(frame, classes, cell, first=("size",)):
    """One row per group, one column per class, ``cell(row)`` in each."""
    if first and "n_eff" in frame:
        first = ("weighted size", "rows", "n_eff", "deff")
    header = ["group"] + list(first) + [f"class {c}" for c in classes]
    rows = []
    for _, part in frame.groupby("group", sort=False):
        by_class = {r["class"]: r for r in part.to_dict(orient="records")}
        r0 = next(iter(by_class.values()))
        lead = _size_cells(r0) if first else []
        rows.append([_name(r0)] + lead + [cell(by_class[c]) for c in classes])
    return header, rows


def _confusion_table(facts, grouping, classes):
    header = ["group", "true class"] + [f"predicted {c}" for c in classes] + ["total"]
    rows = []
    for m in facts.confusion:
        if m.grouping != grouping:
            continue
        count = weighted_count if isinstance(m.size, float) else "{:,}".format
        for c, counts in zip(classes, m.counts):
            rows.append(
                [m.group, c] + [count(n) for n in counts] + [count(sum(counts))]
            )
    return header, rows


def group_tables(report):
    """Per table grouping: (name, [(subtitle, header, rows), ...])."""
    f, level = _facts(report), _level(report)
    classes = f.classes
    out = []
    for name, frame in report.groups.groupby("grouping", sort=False):
        weighted = ", weighted" if "n_eff" in frame else ""
        on = " on Kish's n_eff" if weighted else ""
        parts = [
            (
                f"Selection rate of each class (share predicted it{weighted}), "
                f"{level} Wilson intervals{on}",
                *_wide(frame, classes, lambda r: _cell(r, "selection_rate")),
            ),
            (
                "Against the reference group: ratio of selection rates "
                "(difference, a fraction)",
                *_wide(frame, classes, _ratio_cell, first=()),
            ),
        ]
        if report.has_labels:
            parts += [
                (
                    f"True positive rate, one-vs-rest (share of the class predicted "
                    f"it{weighted}), {level} Wilson intervals{on}",
                    *_wide(frame, classes, lambda r: _cell(r, "tpr"), first=()),
                ),
                (
                    f"False positive rate, one-vs-rest (share of the other classes "
                    f"predicted it{weighted}), {level} Wilson intervals{on}",
                    *_wide(frame, classes, lambda r: _cell(r, "fpr"), first=()),
                ),
                (
                    f"Confusion matrix{' (weighted counts)' if weighted else ''} "
                    "(rows: true class; columns: predicted class)",
                    *_confusion_table(f, name, classes),
                ),
            ]
        if f.prediction == "probabilities":
            parts.append(
                (
                    "Mean predicted probability of each class",
                    *_wide(
                        frame, classes, lambda r: f"{r['mean_score']:.4f}", first=()
                    ),
                )
            )
        out.append((name, parts))
    return out
