"""What a regression audit says: its lead, headline, summary, tables and notes.

Plain text read from the report's typed facts (:class:`RegressionFacts`,
:class:`DistributionFacts`, the threshold's :class:`ThresholdFacts` when a
threshold was given), as :mod:`._sentences` and :mod:`._tables` are for a
classifier; the renderers lay them out through :mod:`._views`. Numbers in
the target's units have four significant digits (:func:`format_target`),
shares of people are percentages, metrics fractions with 4 decimals.
"""

from __future__ import annotations

import math

from ..utils import SMALL_GROUP_SIZE
from ._common import (
    SURVEY_NO_DKW,
    counted,
    format_percent,
    format_ratio,
    format_target,
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
    _disadvantage_sentence,
    _impact_sentence,
    _listing,
    _metric,
    _unclear_sentence,
    _verdict_sentences,
    mcdp_clauses,
    small_pair_sentence,
)
from ._survey import rows_text, weighted_count
from ._tables import _group_name, _rate_cell, _weighted

METRIC_HELP = (
    "The metrics compare the groups' prediction distributions, lower is "
    "fairer; ABCC, ABPC and MCDP(0) are 0 only for identical distributions, "
    "ΔDP_c for equal mean predictions (and ΔDP_b for equal shares predicted "
    "at or above the threshold) whatever the distributions. ΔDP_c, ABCC and "
    "the gaps in bias, MAE and RMSE are in the target's units; MCDP and "
    "ΔDP_b are shares of people (fractions); ABPC is between 0 and 2. "
    "“Groups” are the two groups the value comes from (the largest gap over "
    "pairs). The p-value tests “every group's predictions come from one "
    "distribution”; the error gaps have intervals and no test. See Methods."
)
_WHAT = {
    "mean_prediction": "mean prediction",
    "mean_residual": "bias (mean residual, prediction − truth)",
    "mae": "MAE",
    "rmse": "RMSE",
}


def _signed(value):
    text = format_target(value)
    return text if text.startswith(("-", "—")) or value == 0 else "+" + text


def _span(low, high):
    if not (math.isfinite(low) and math.isfinite(high)):
        return "—"
    return f"[{format_target(low)}, {format_target(high)}]"


def _size_text(g):
    """``"n = 1,234"``; with survey weights the weighted count, rows and ``n_eff``."""
    if getattr(g, "n_eff", None) is None:
        return f"n = {g.size:,}"
    return (
        f"weighted n = {weighted_count(g.size)}, {rows_text(g.n_rows)}, "
        f"n_eff = {g.n_eff:,.1f}"
    )


def _who(g):
    return f"{g.group} ({_size_text(g)})"


def _level(report):
    return f"{100 * report.confidence_level:g}%"


def _task_text(settings):
    if settings.task_reason is not None:
        return f"task detected: regression ({settings.task_reason})"
    return "task: regression (as given)"


def _epsilon_text(settings):
    how = "as given" if settings.epsilon_rule is None else settings.epsilon_rule
    return f"ε = {settings.epsilon:g} in the target's units ({how})"


def lead(report):
    s = report.settings
    scores = None if report.inputs is None else report.inputs.scores
    span = ""
    if scores is not None:
        span = (
            f"; predictions from {format_target(float(scores.min()))} to "
            f"{format_target(float(scores.max()))}"
        )
    rule = (
        "no decision threshold"
        if s.threshold is None
        else f"decision: positive when the prediction ≥ {s.threshold:g}"
    )
    labels = "with true values" if report.has_labels else "no true values"
    samples = f"{report.n_samples:,} samples"
    if survey_weighted(report):
        samples = (
            f"{report.n_samples:,} rows standing for "
            f"{weighted_count(report.provenance.n_people)} people (survey weights)"
        )
    return (
        f"{samples}; sensitive attribute(s): "
        f"{', '.join(map(str, report.data.attributes))}; {_task_text(s)}"
        f"{span}; {labels}; {rule}; {_epsilon_text(s)}."
    )


# -- the headline ------------------------------------------------------------------
def _left_out_part(gap):
    if not gap.left_out:
        return ""
    what = "samples" if gap.lowest.n_eff is None else "effective samples (Kish)"
    return (
        f" (left out of this range, fewer than {SMALL_GROUP_SIZE} {what}: "
        f"{_listing(gap.left_out)})"
    )


def _gap_interval_text(report, gap):
    if math.isfinite(gap.low):
        return (
            f"simultaneous {_level(report)} Welch interval {_span(gap.low, gap.high)}"
        )
    return f"no interval: {gap.note}" if gap.note else "no interval"


def _group_end(g, with_interval):
    text = f"{format_target(g.value)} for {_who(g)}"
    if with_interval:
        if math.isfinite(g.low):
            text += f", interval {_span(g.low, g.high)}"
        else:
            text += ", no interval (one sample)"
    return text


def _range_sentence(report, facts, gap):
    what = _WHAT[gap.metric]
    error = gap.metric != "mean_prediction"
    sentence = (
        f"The {what} of the groups of {facts.grouping} ranges from "
        f"{_group_end(gap.lowest, error)} to {_group_end(gap.highest, error)}"
        f"{_left_out_part(gap)}: a gap of {format_target(gap.value)} in the "
        "target's units"
    )
    if error:
        sentence += f" ({_gap_interval_text(report, gap)})"
    return sentence + "."


def _distribution_sentences(report):
    d = report.headline.distribution
    interval, said = mcdp_clauses(report)
    out = [
        f"Over all thresholds, the largest gap between two groups' prediction "
        f"CDFs is MCDP(0) = {d.value:.4f}, the Kolmogorov–Smirnov statistic: at "
        f"the prediction {format_target(d.score)}, the shares of {d.groups[0]} "
        f"and {d.groups[1]} predicted at most that differ by "
        f"{100 * d.value:.1f} percentage points; {said}{interval}."
    ]
    small = small_pair_sentence(d, survey_weighted(report))
    if small:
        out.append(small)
    abcc = _metric(report, "abcc")
    if abcc.defined and math.isfinite(abcc.value) and abcc.pair is not None:
        out.append(
            f"ABCC = {format_target(abcc.value)} (the 1-Wasserstein distance, in "
            f"the target's units): matched by rank, the predictions of "
            f"{abcc.pair[0]} and {abcc.pair[1]} differ by that much on average."
        )
    if d.share_near is not None:
        noun = "people's predictions (weighted)" if survey_weighted(report) else ""
        out.append(
            f"{format_percent(d.share_near)} of the {noun or 'predictions'} lie within "
            f"±{d.epsilon:g} of {format_target(d.score)}; "
            f"MCDP({d.epsilon:g}) = {d.local_value:.4f} is the CDF gap that "
            f"persists over a window of ±{d.epsilon:g} (target units)."
        )
    return out


def headline(report):
    """Facts at the threshold (if one was given), the groups, then the CDFs."""
    facts, out = report.headline.threshold, []
    if facts is not None:
        out.append(_disadvantage_sentence(facts))
        unclear = _unclear_sentence(report, facts)
        if unclear:
            out.append(unclear)
        out.append(_impact_sentence(facts))
    elif report.left_out:
        out.append(
            f"Left out as smaller than min_group_size = {report.min_group_size}: "
            f"{counted(len(report.left_out), 'group')} (named in the notes)."
        )
    groups = report.headline.regression
    out.append(_range_sentence(report, groups, groups.predictions))
    gaps = [g for g in (groups.bias, groups.mae, groups.rmse) if g is not None]
    if not report.has_labels:
        out.append(
            "Without true values (y_true), the groups' bias, MAE and RMSE are "
            "not available."
        )
    out += [_range_sentence(report, groups, gap) for gap in gaps]
    return out + _distribution_sentences(report)


# -- the plain summary -------------------------------------------------------------
def _direction(g, report):
    """What the model does to group ``g`` on average: a direction only with evidence.

    "over-predicts" only when the group's interval of its mean residual
    lies above 0, "under-predicts" only when below; otherwise the bias and
    its interval, with no direction.
    """
    interval = (
        f"{_level(report)} interval {_span(g.low, g.high)}"
        if math.isfinite(g.low)
        else "no interval"
    )
    if math.isfinite(g.low) and g.low > 0:
        return (
            f"over-predicts {g.group} by {format_target(g.value)} on average "
            f"({interval})"
        )
    if math.isfinite(g.high) and g.high < 0:
        return (
            f"under-predicts {g.group} by {format_target(-g.value)} on average "
            f"({interval})"
        )
    return (
        f"has a bias for {g.group} that cannot be told from 0 (mean residual "
        f"{format_target(g.value)}, {interval}, which contains 0)"
        if math.isfinite(g.low)
        else f"has a mean residual of {format_target(g.value)} for {g.group} "
        "(no interval, so no direction is claimed)"
    )


def _among(report):
    """Which groups a summary sentence covers when small ones are left out."""
    unit = "effective samples (Kish)" if survey_weighted(report) else "samples"
    return f" (among the groups of at least {SMALL_GROUP_SIZE} {unit})"


def _bias_summary(report, bias):
    clear = math.isfinite(bias.low) and bias.low > 0
    verdict = (
        "its interval excludes 0, so it is unlikely to be noise"
        if clear
        else "its interval includes 0 or is undefined, so it may be noise"
    )
    among = _among(report) if bias.left_out else ""
    return (
        f"The model {_direction(bias.highest, report)} and "
        f"{_direction(bias.lowest, report)}"
        f"{among}: a bias gap of {format_target(bias.value)} ({verdict})."
    )


def _bin_text(b, report):
    where = (
        f"true values {format_target(b.low_value)}"
        if b.low_value == b.high_value
        else f"true values {format_target(b.low_value)} to "
        f"{format_target(b.high_value)}"
    )
    if not math.isfinite(b.low):
        return f"{where} ({_size_text(b)}): {format_target(b.value)}, no interval"
    sign = (
        "over-prediction"
        if b.low > 0
        else "under-prediction"
        if b.high < 0
        else "interval contains 0"
    )
    return (
        f"{where} ({_size_text(b)}): {format_target(b.value)}, "
        f"{_level(report)} interval {_span(b.low, b.high)}, {sign}"
    )


def bias_by_truth_sentence(report):
    """The bias conditional on the true value beside the overall bias, or None."""
    facts = report.headline.regression
    overall = getattr(facts, "overall_bias", None)
    if overall is None or len(facts.bias_by_truth) < 2:
        return None
    bins = "; ".join(_bin_text(b, report) for b in facts.bias_by_truth)
    clear = [
        b
        for b in facts.bias_by_truth
        if math.isfinite(b.low) and (b.low > 0 or b.high < 0)
    ]
    signs = {b.low > 0 for b in clear}
    hidden = (
        " The overall bias hides biases of opposite signs at different true values."
        if len(signs) == 2
        else ""
    )
    everyone = _bin_text(overall, report).split(": ", 1)[1]
    return (
        f"Bias (mean residual) over everyone: {everyone}; by quantile bin of "
        f"the true values (y_true): {bins}.{hidden}"
    )


def plain_summary(report):
    """A few plain-language sentences for a decision-maker."""
    groups = report.headline.regression
    out = []
    if groups.bias is not None:
        out.append(_bias_summary(report, groups.bias))
        by_truth = bias_by_truth_sentence(report)
        if by_truth:
            out.append(by_truth)
    if groups.mae is not None:
        mae = groups.mae
        out.append(
            f"Typical errors (MAE) range from {format_target(mae.lowest.value)} "
            f"for {mae.lowest.group} to {format_target(mae.highest.value)} for "
            f"{mae.highest.group}" + (f"{_among(report)}." if mae.left_out else ".")
        )
    out += _verdict_sentences(report, noun="predictions")
    caveats = group_caveats(report, group_support(compared_groups(report)))
    return out + read_with_care(caveats)


# -- methods and notes ---------------------------------------------------------------
def _per_group_text(report):
    """How the group table's means, quantiles and intervals were obtained."""
    level = _level(report)
    if survey_weighted(report):
        return (
            "Per group, with survey weights: the weighted count (the people the "
            "rows stand for) beside the rows and Kish's effective size n_eff = "
            "(Σw)²/Σw²; the weighted mean prediction and its 10%, 50% and 90% "
            "weighted quantiles (the inverse of the weighted CDF, as "
            "numpy.quantile(method='inverted_cdf', weights=w)); with true "
            f"values, the weighted mean residual and MAE with {level} Student-t "
            "intervals on the linearisation variance of a weighted mean, "
            "Σw²(x − mean)²/(Σw)² × n/(n − 1), with n_eff − 1 degrees of "
            "freedom, and the weighted RMSE with the log-scale interval, the "
            "square root of MSE × exp(± t × se / MSE), on the same variance; "
            "differences to the reference group, the gaps below and the bias "
            "by quantile bin of the true values (cut at the weighted "
            "quantiles) with Welch and Student-t intervals on those variances "
            "and effective sizes. Every distribution metric is the weighted "
            "one (the groups' weighted prediction CDFs)."
        )
    return (
        f"Per group: mean prediction and its 10%, 50% and 90% quantiles (linear "
        "interpolation, as numpy.quantile); with true values, the mean residual "
        f"and MAE with {level} Student-t intervals and the RMSE with a "
        "log-scale interval, the square root of MSE × exp(± t × se / MSE) (the "
        "delta method for log MSE: positive and longer upwards), each group's "
        "own; "
        "differences to the reference group with Welch intervals."
    )


def methods(report):
    """How every number of a regression audit was obtained."""
    s, level = report.settings, _level(report)
    out = [
        f"{_task_text(s).capitalize()}. The predictions are used on their "
        "own scale; the residual is prediction − true value (positive: "
        "over-prediction).",
        _groups_text(report),
        "Distribution metrics on the predictions: ΔDP_c, the gap in mean "
        "prediction, and ABCC, the 1-Wasserstein distance, are in the target's "
        "units (they scale with it); MCDP(0) is the Kolmogorov–Smirnov "
        "statistic, a share of people, the same under any increasing map of the "
        "predictions; MCDP(ε) and ABPC (binned KDE) live on the observed range "
        f"of the predictions; {_epsilon_text(s)}.",
        _per_group_text(report),
        "Gaps in bias, MAE and RMSE: the largest absolute difference over pairs "
        f"of groups (skfair.metrics.regression_gap_intervals), with {level} Welch "
        "intervals, Bonferroni over the pairs, folded to the absolute value; "
        "no test. The headline's ranges compare the groups of at least "
        f"{SMALL_GROUP_SIZE} "
        + ("effective samples (Kish)" if survey_weighted(report) else "samples")
        + " when two or more have that many.",
        interval_method_text(report),
    ]
    out.append(_tests_text(report))
    if s.threshold is None:
        out.append(
            "No decision threshold was given: no rates at a threshold (pass "
            "threshold=, or --threshold, in the target's units)."
        )
    else:
        out.append(
            f"Decisions: positive when the prediction ≥ {s.threshold:g} (given); "
            f"shares predicted ≥ {s.threshold:g} with {level} Wilson intervals, "
            "ratios to the reference group and the four-fifths rule."
        )
    left_out = left_out_text(
        report,
        "bias, MAE, RMSE and the residuals (no true values)",
        ["the threshold trade-off and HFM (classifiers only)"],
    )
    out.append("Left out: " + left_out)
    return out


def notes(report):
    """Plain-language notes on what a regression report can and cannot say."""
    compared = compared_groups(report)
    out = [SURVEY_NO_DKW] if survey_weighted(report) else []
    out += small_group_notes(
        report, compared, "metric, interval, table", "means, quantiles"
    )
    if "note" in compared:
        rows = compared["n_rows"] if "n_rows" in compared else compared["size"]
        single = compared[rows <= 1]
        if len(single):
            out.append(
                "One sample, so no spread and no interval: "
                f"{_listing(single['group'])}; gaps involving them have no interval."
            )
        flat = compared[(rows > 1) & (compared["note"].str.startswith("no spread"))]
        if len(flat):
            out.append(
                "Every residual equal, so zero-width intervals: "
                f"{_listing(flat['group'])}."
            )
    return out + metric_notes(
        report, "bias, MAE, RMSE and the residuals", labels="values"
    )


# -- the tables --------------------------------------------------------------------
def groups_title(report):
    t = report.threshold
    return "Groups" if t is None else f"Groups (decisions at the threshold {t:g})"


def _value_cell(row, name):
    value = row[name]
    if not math.isfinite(value):
        return "—"
    text = format_target(value)
    low, high = row[f"{name}_low"], row[f"{name}_high"]
    return text + (f" {_span(low, high)}" if math.isfinite(low) else "")


def _size_cells(r):
    """The size cell, or (survey weights) the weighted size, rows, n_eff, deff."""
    if "n_eff" not in r:
        return [f"{int(r['size']):,}"]
    return [
        _weighted(r["size"]),
        f"{int(r['n_rows']):,}",
        f"{r['n_eff']:,.1f}",
        f"{r['design_effect']:.2f}",
    ]


def _predictions_table(records, labelled):
    sizes = ["size"]
    if "n_eff" in records[0]:
        sizes = ["weighted size", "rows", "n_eff", "deff"]
    header = ["group", *sizes, "share", "mean prediction", "q10", "q50", "q90"]
    if labelled:
        header.append("mean true value")
    rows = [
        [
            _group_name(r),
            *_size_cells(r),
            format_percent(r["share"]),
            *(format_target(r[k]) for k in ("mean_prediction", "q10", "q50", "q90")),
        ]
        + ([format_target(r["mean_true"])] if labelled else [])
        for r in records
    ]
    return header, rows


def _errors_table(records):
    header = ["group", "bias (mean residual)", "MAE", "RMSE", "note"]
    rows = [
        [_group_name(r)]
        + [_value_cell(r, k) for k in ("mean_residual", "mae", "rmse")]
        + [r["note"]]
        for r in records
    ]
    return header, rows


def _reference_table(records):
    header = ["group", "bias difference", "MAE difference", "RMSE difference"]
    rows = [
        [_group_name(r)]
        + [
            ("—" if not math.isfinite(r[f"{k}_diff"]) else _signed(r[f"{k}_diff"]))
            + (
                f" {_span(r[f'{k}_diff_low'], r[f'{k}_diff_high'])}"
                if math.isfinite(r[f"{k}_diff_low"])
                else ""
            )
            for k in ("mean_residual", "mae", "rmse")
        ]
        for r in records
    ]
    return header, rows


def _threshold_table(records):
    header = [
        "group",
        "predicted ≥ t",
        "share (Wilson interval)",
        "ratio",
        "difference",
    ]
    header.append("four-fifths rule")
    rows = [
        [
            _group_name(r),
            _weighted(r["n_selected"]) if "n_eff" in r else f"{int(r['n_selected']):,}",
            _rate_cell(r, "positive_rate"),
            format_ratio(r["positive_rate_ratio"]),
            f"{r['positive_rate_diff']:+.4f}",
            {True: "pass", False: "fail"}.get(r["four_fifths"], "—"),
        ]
        for r in records
    ]
    return header, rows


def group_tables(report):
    """Per table grouping: (name, [(subtitle, header, rows), ...])."""
    level = _level(report)
    out = []
    for name, frame in report.groups.groupby("grouping", sort=False):
        records = frame.to_dict(orient="records")
        weighted = " (weighted)" if "n_eff" in frame else ""
        on = " on Kish's n_eff" if weighted else ""
        parts = [
            (
                f"Predictions: mean and quantiles{weighted} (target units)",
                *_predictions_table(records, report.has_labels),
            )
        ]
        if report.has_labels:
            parts += [
                (
                    f"Errors{weighted} with {level} intervals{on} "
                    "(residual = prediction − true value; positive: "
                    "over-prediction)",
                    *_errors_table(records),
                ),
                (
                    f"Against the reference group (target units, {level} Welch "
                    "intervals)",
                    *_reference_table(records),
                ),
            ]
        if report.threshold is not None:
            parts.append(
                (
                    f"At the threshold {report.threshold:g}: share predicted ≥ "
                    f"{report.threshold:g}{weighted}, {level} Wilson intervals{on}",
                    *_threshold_table(records),
                )
            )
        out.append((name, parts))
    return out
