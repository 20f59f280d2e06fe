"""What every rendering of a report shows: its sentences and its tables' rows.

Everything here is plain text (no markup); renderers (:mod:`._html`,
:mod:`._markdown`) escape it for their format and lay it out. They compute
nothing themselves.
"""

from __future__ import annotations

import math

from ..utils import SMALL_GROUP_SIZE
from ._common import (
    FEW_POSITIVES,
    FOUR_FIFTHS,
    format_interval,
    format_number,
    format_pvalue,
    format_table_pvalue,
)

METRIC_HELP = (
    "All metrics compare the groups' score distributions; 0 means identical "
    "distributions and lower is fairer. Values are fractions (the papers "
    "report ×100). The p-value tests “every group's scores come from one "
    "distribution”; see Methods for the intervals."
)


def _finite(value):
    return (
        value is not None and isinstance(value, (int, float)) and math.isfinite(value)
    )


def _pct(value):
    return format_number(value, "pct")


def _resolution(report):
    return 1.0 / (report.n_permutations + 1)


# -- sentences ---------------------------------------------------------------------
def lead(report):
    s = report._summary()
    return (
        f"{s['n_samples']:,} samples; sensitive attribute(s): "
        f"{', '.join(map(str, s['attributes']))}; decision: positive when the "
        f"score ≥ {s['threshold']:g}; positive label: "
        f"{'—' if s['pos_label'] is None else repr(s['pos_label'])}; "
        f"ε = {s['epsilon']:g}."
    )


def _ratio_sentence(facts):
    t, ref, worst = facts["threshold"], facts["reference"], facts["worst"]
    if worst is None:
        return (
            f"At the threshold {t:g}, the reference group {ref['group']} has a "
            f"positive rate of {_pct(ref['positive_rate'])}, so ratios to it are "
            "undefined."
        )
    ratio = worst["positive_rate_ratio"]
    rule = (
        "within the four-fifths rule (0.8 to 1.25 for every group)"
        if facts["four_fifths"] == "pass"
        else "outside the four-fifths rule (0.8 to 1.25)"
    )
    low, high = worst["positive_rate_interval"]
    # the reference may select no one: then no ratio, and the rule fails
    ratio = (
        f"a positive-rate ratio of {ratio:.2f}"
        if math.isfinite(ratio)
        else "no positive-rate ratio (the reference selects no one)"
    )
    return (
        f"At the threshold {t:g}, {worst['group']} (n = {worst['size']:,}) is "
        f"selected at {_pct(worst['positive_rate'])} (Wilson interval "
        f"{_pct(low)}–{_pct(high)}) against {_pct(ref['positive_rate'])} "
        f"for the reference group {ref['group']} ({facts['grouping']}): "
        f"{ratio}, {rule}."
    )


def _gap_sentence(facts):
    parts = []
    for key, what in (("tpr_gap", "true-positive"), ("fpr_gap", "false-positive")):
        gap = facts[key]
        if gap is None:
            continue
        parts.append(
            f"{what} rates range from {_pct(gap['lowest']['rate'])} "
            f"({gap['lowest']['group']}) to {_pct(gap['highest']['rate'])} "
            f"({gap['highest']['group']}), a gap of {gap['value']:.3f}"
        )
    if not parts:
        return "Without true labels, the TPR and FPR gaps are not available."
    sentence = "; ".join(parts)
    sentence = sentence[0].upper() + sentence[1:]
    if len(parts) == 2:
        odds = max(facts["tpr_gap"]["value"], facts["fpr_gap"]["value"])
        sentence += f" (equal opportunity: the TPR gap; equalised odds: {odds:.3f})"
    left_out = sorted(
        {
            g
            for key in ("tpr_gap", "fpr_gap")
            if facts[key]
            for g in facts[key]["left_out"]
        }
    )
    if left_out:
        sentence += (
            f"; groups with fewer than {FEW_POSITIVES} positives (or negatives) "
            f"are left out of these gaps, their rates too uncertain: "
            f"{', '.join(map(str, left_out))}"
        )
    return sentence + "."


def _evidence(report, row):
    if report.engine == "dask" or not _finite(row.get("pvalue")):
        return "no p-value (see the notes)"
    p = row["pvalue"]
    floor = _resolution(report)
    if row["test"] == "permutation" and p <= floor * (1 + 1e-9):
        return (
            f"p ≤ {floor:.3g}, the smallest p-value {report.n_permutations} "
            "permutations can give: larger than in every permutation"
        )
    strength = (
        "unlikely to be noise"
        if p < 0.01
        else ("weak evidence of a real gap" if p < 0.05 else "compatible with noise")
    )
    shown = format_pvalue(p) if p < 0.001 else "= " + format_pvalue(p)
    return f"p {shown}, {strength}"


def _distribution_sentences(report):
    d = report.headline["distribution"]
    row = report.metrics.loc["mcdp"].to_dict()
    low, high, method = interval_of(report, row)
    interval = (
        "" if method is None else f", {method} interval {format_interval(low, high)}"
    )
    out = [
        f"Over all thresholds, the largest gap between two groups' score CDFs "
        f"is MCDP(0) = {d['value']:.3f} ({' vs '.join(d['groups'])}, at the "
        f"score {d['score']:.3g}{interval}; {_evidence(report, row)})."
    ]
    eps = d["epsilon"]
    if d["share_near"] is not None:
        near = abs(d["score"] - report.threshold) <= eps
        out.append(
            f"{_pct(d['share_near'])} of the scores lie within ±{eps:g} of that "
            f"score, and the decision threshold is {'' if near else 'not '}"
            f"among them; MCDP({eps:g}) = {d['local_value']:.3f} is the gap "
            f"that persists over a window of ±{eps:g}, less sensitive to a few "
            "scores at one point."
        )
    return out


def headline(report):
    """The headline: threshold facts first, then the distribution-level finding."""
    facts = report.headline["threshold"]
    return [
        _ratio_sentence(facts),
        _gap_sentence(facts),
        *_distribution_sentences(report),
    ]


def plain_summary(report):
    """A few plain-language sentences for a decision-maker."""
    facts = report.headline["threshold"]
    out = []
    worst = facts["worst"]
    if worst is not None:
        ratio, ref = worst["positive_rate_ratio"], facts["reference"]["group"]
        how_often = (
            f"{ratio:.2f} times as often as {ref}"
            if math.isfinite(ratio)
            else f"{_pct(worst['positive_rate'])} of the time and {ref} never"
        )
        if facts["four_fifths"] == "fail":
            out.append(
                f"Decisions are unbalanced: {worst['group']}{_few_people(worst)} "
                f"receives a positive decision {how_often}, outside the "
                "0.8–1.25 range of the four-fifths rule."
            )
        else:
            out.append(
                "Every group receives positive decisions at 0.8 to 1.25 times the "
                f"rate of {facts['reference']['group']} (the four-fifths rule)."
            )
    if facts["tpr_gap"] is not None:
        out.append(
            "Among people whose true outcome is positive, the share the model "
            f"selects differs by up to {100 * facts['tpr_gap']['value']:.1f} "
            "percentage points between groups."
        )
    row = report.metrics.loc["mcdp"]
    if report.engine != "dask" and _finite(row.get("pvalue")):
        p, floor = row["pvalue"], _resolution(report)
        if row["test"] == "permutation" and p <= floor * (1 + 1e-9):
            differ = (
                "differ between groups more than in every one of "
                f"{report.n_permutations} random relabellings of the groups"
            )
        elif p < 0.05:
            differ = "differ between groups beyond chance"
        else:
            differ = "do not differ between groups more than chance would explain"
        out.append(f"The model's scores {differ} (p-value in the metrics table).")
    out += _tradeoff_sentence(report)
    caveats = _caveats(report)
    if caveats:
        out.append("Read with care: " + "; ".join(caveats) + ".")
    return out


def _few_people(worst):
    """`` (only n people: ...)`` when the verdict rests on a small group."""
    if worst["size"] >= SMALL_GROUP_SIZE:
        return ""
    low, high = worst["positive_rate_interval"]
    return (
        f" (only {worst['size']} people: its positive rate is very uncertain, "
        f"{_pct(low)}–{_pct(high)})"
    )


def _tradeoff_sentence(report):
    tradeoff = report.tradeoff
    if tradeoff is None or tradeoff.threshold is None:
        return []
    at = report.tradeoff_at_threshold
    now = "" if at is None else f" (at {report.threshold:g}: {at['delta_dp']:.3f})"
    return [
        f"The fairest threshold keeping {100 * tradeoff.tolerance:g}% of the best "
        f"{tradeoff.performance.replace('_', ' ')} is {tradeoff.threshold:.3g}: "
        f"a positive-rate gap of {tradeoff.delta_dp:.3f}{now}, with "
        f"{tradeoff.performance.replace('_', ' ')} {tradeoff.performance_value:.3f}."
    ]


def _caveats(report):
    out = []
    if report.left_out:
        out.append(f"{len(report.left_out)} small group(s) left out")
    compared = report.groups[report.groups["grouping"].isin(list(report.kept_groups))]
    small = int((compared["size"] < SMALL_GROUP_SIZE).sum())
    if small:
        out.append(f"{small} group(s) of fewer than {SMALL_GROUP_SIZE} samples")
    undefined = report.metrics["undefined_reason"].dropna()
    if len(undefined):
        names = report.metrics.loc[undefined.index, "metric"]
        out.append(f"{', '.join(n.split(' (')[0] for n in names)} undefined here")
    few = report.groups[report.groups["few_positives"] == True]  # noqa: E712
    if len(few):
        out.append(f"{len(few)} group(s) with fewer than {FEW_POSITIVES} positives")
    return out


def methods(report):
    """How every number was obtained, and what was left out."""
    level = f"{100 * report.confidence_level:g}%"
    s = report._summary()
    ref = "given" if report.reference is not None else "the largest group"
    out = [
        f"Decisions: positive when the score ≥ {report.threshold:g}; the positive "
        f"label is {s['pos_label']!r}."
        if s["pos_label"] is not None
        else f"Decisions: positive when the score ≥ {report.threshold:g}; no labels.",
        f"Groups: {report.combine} of the sensitive attributes"
        + (
            f", groups under {report.min_group_size} samples left out of everything"
            if report.min_group_size is not None
            else ", every group kept"
        )
        + f"; the reference group of each table is {ref}.",
        f"Per-group rates: {level} Wilson score intervals; a group with fewer than "
        f"{FEW_POSITIVES} positive labels is flagged (its TPR and FNR rest on a "
        f"handful of samples). Four-fifths rule: every group's positive rate "
        f"within {FOUR_FIFTHS:g} to {1 / FOUR_FIFTHS:g} times the reference's.",
        interval_method_text(report),
    ]
    if report.engine != "dask":
        floor = _resolution(report)
        out.append(
            "Tests of “no disparity”: MCDP(0) with two groups, the exact "
            "Kolmogorov–Smirnov test (asymptotic above 10 000 samples per group); "
            f"otherwise a permutation test with {report.n_permutations} "
            "permutations of the group labels, shared by the metrics. With "
            f"{report.n_permutations} permutations the smallest p-value is "
            f"1/({report.n_permutations} + 1) = {floor:.3g}: the resolution limit "
            f"(“≤ {floor:.3g}” means larger than in every permutation)."
        )
    if report.tradeoff is not None:
        t = report.tradeoff
        out.append(
            f"Trade-off: {len(t.candidates)} candidate thresholds (quantiles of the "
            f"scores and 0.01 to 0.99), scored by "
            f"{t.performance.replace('_', ' ')} and ΔDP_b^t; "
            "thresholds where some group's positive rate is 0 or 1 are never "
            f"recommended ({int(t.candidates['trivial'].sum())} here)."
        )
    out.append("Left out: " + left_out_text(report))
    return out


def interval_of(report, row):
    """(low, high, method name) of a metric row's main interval, or (.., None)."""
    if "low" in row and "high" in row and _finite(row["low"]):
        return row["low"], row["high"], str(row.get("interval") or "confidence")
    if "bootstrap_low" in row and _finite(row["bootstrap_low"]):
        return row["bootstrap_low"], row["bootstrap_high"], "bootstrap"
    if "dkw_low" in row and _finite(row["dkw_low"]):
        return row["dkw_low"], row["dkw_high"], "DKW"
    return math.nan, math.nan, None


_INTERVAL_METHODS = {
    "welch": "Welch (normal theory for the gap in means, folded to its absolute "
    "value; Bonferroni over pairs of groups)",
    "newcombe": "Newcombe's hybrid score interval for a difference of two "
    "proportions (folded; Bonferroni over pairs of groups)",
    "band": "a bootstrap band of the centred gap between the groups' CDFs "
    "(densities for ABPC), simultaneous over pairs of groups",
    "dkw": "the distribution-free DKW band (guaranteed coverage, wider)",
}


def interval_method_text(report):
    level = f"{100 * report.confidence_level:g}%"
    m = report.metrics
    parts = []
    if "interval" in m and m["interval"].notna().any():
        used = sorted({str(v) for v in m["interval"].dropna() if v})
        described = [f"{name}: {_INTERVAL_METHODS.get(name, name)}" for name in used]
        parts.append(f"{level} intervals by method ({'; '.join(described)})")
        if "band" in used and report.engine != "dask":
            parts.append(
                f"the band uses {report.n_resamples} resamples, each group "
                "resampled on its own; an interval starts at 0 when the test "
                "cannot reject “no disparity” (coverage measured in "
                "benchmarks/bench_coverage.py)"
            )
    if "dkw_low" in m and "interval" in m and report.engine != "dask":
        parts.append(
            "DKW intervals beside them (distribution-free, guaranteed coverage, "
            "wider; not for ABPC)"
        )
    return "Disparity metrics: " + ("; ".join(parts) or "no intervals") + "."


def left_out_text(report):
    items = []
    if report.left_out:
        items.append(
            f"{len(report.left_out)} group(s) under min_group_size = "
            f"{report.min_group_size}"
        )
    undefined = report.metrics["undefined_reason"].dropna()
    items += [f"{report.metrics.loc[k, 'metric']} (undefined)" for k in undefined.index]
    if not report.has_labels:
        items.append("every label-based rate, the trade-off and HFM (no labels)")
    if report.engine == "dask":
        items.append(
            "bootstrap intervals, p-values, ABPC, the trade-off and figures (Dask)"
        )
    return (", ".join(items) or "nothing") + "."


# -- tables ------------------------------------------------------------------------
def metrics_rows(report):
    level = f"{100 * report.confidence_level:g}%"
    m = report.metrics
    header = ["metric", "value", f"{level} CI", "method"]
    dkw = "dkw_low" in m and ("low" in m or "bootstrap_low" in m)
    if dkw:
        header.append(f"{level} DKW CI")
    has_p = "pvalue" in m
    if has_p:
        header += ["p-value", "test"]
    rows = []
    for _, row in m.iterrows():
        row = row.to_dict()
        if row.get("undefined_reason"):
            rows.append(
                [row["metric"], "undefined"] + [""] * (len(header) - 3) + ["see notes"]
            )
            continue
        low, high, method = interval_of(report, row)
        cells = [
            row["metric"],
            format_number(row["value"]),
            format_interval(low, high),
            method or "—",
        ]
        if dkw:
            cells.append(format_interval(row["dkw_low"], row["dkw_high"]))
        if has_p:
            cells.append(
                format_table_pvalue(row["pvalue"], row["test"], report.n_permutations)
            )
            cells.append(row["test"] or "—")
        rows.append(cells)
    return header, rows


def details_rows(report):
    header = [
        "ε",
        "MCDP(ε)",
        "attribute",
        "groups",
        "where",
        "higher CDF (more low scores)",
    ]
    rows = [
        [
            f"{r['epsilon']:g}",
            f"{r['value']:.4f}",
            r["attribute"],
            r["groups"],
            r["where"],
            r["higher_cdf_group"],
        ]
        for r in report._details_rows()
    ]
    return header, rows


def _rate_cell(row, rate):
    value = row[rate]
    if not _finite(value):
        return "—"
    low, high = row[f"{rate}_low"], row[f"{rate}_high"]
    return f"{100 * value:.1f}% ({100 * low:.1f}–{100 * high:.1f})"


def _count(value):
    return format_number(value, "int") if _finite(value) else "—"


def _group_name(row):
    return f"{row['group']} (reference)" if row["is_reference"] else row["group"]


_TITLES = {
    "positive_rate": "positive rate",
    "base_rate": "base rate",
    "tpr": "TPR",
    "fpr": "FPR",
    "fnr": "FNR",
    "precision": "precision",
}


def _sub_tables(records, labelled, level):
    counts = ["group", "size", "share", "selected"]
    if labelled:
        counts += ["positives", "TP", "FP", "FN", "TN"]
    count_rows = [
        [_group_name(r), _count(r["size"]), _pct(r["share"]), _count(r["n_selected"])]
        + (
            [_count(r[k]) for k in ("n_positive", "tp", "fp", "fn", "tn")]
            if labelled
            else []
        )
        for r in records
    ]
    rates = ["positive_rate"] + (
        ["base_rate", "tpr", "fpr", "fnr", "precision"] if labelled else []
    )
    rate_header = ["group", "mean score"] + [_TITLES[k] for k in rates]
    if labelled:
        rate_header.append("few positives")
    rate_rows = [
        [_group_name(r), format_number(r["mean_score"])]
        + [_rate_cell(r, k) for k in rates]
        + (["yes" if r["few_positives"] else ""] if labelled else [])
        for r in records
    ]
    compared = ["positive_rate"] + (["tpr", "fpr", "fnr"] if labelled else [])
    ref_header = ["group"]
    for k in compared:
        name = _TITLES[k]
        ref_header += [f"{name} ratio", f"{name} difference"]
    ref_header.append("four-fifths rule")
    ref_rows = [
        [_group_name(r)]
        + [
            cell
            for k in compared
            for cell in (
                f"{r[f'{k}_ratio']:.2f}" if _finite(r[f"{k}_ratio"]) else "—",
                f"{r[f'{k}_diff']:+.3f}" if _finite(r[f"{k}_diff"]) else "—",
            )
        ]
        + [{True: "pass", False: "fail"}.get(r["four_fifths"], "—")]
        for r in records
    ]
    return [
        ("Counts", counts, count_rows),
        (f"Rates with {level} Wilson intervals", rate_header, rate_rows),
        ("Against the reference group", ref_header, ref_rows),
    ]


def group_tables(report):
    """Per table grouping: (name, [(subtitle, header, rows), ...])."""
    level = f"{100 * report.confidence_level:g}%"
    return [
        (name, _sub_tables(frame.to_dict(orient="records"), report.has_labels, level))
        for name, frame in report.groups.groupby("grouping", sort=False)
    ]


def tradeoff_rows(report):
    """The trade-off's pick, the best threshold and the audit's threshold."""
    t = report.tradeoff
    if t is None:
        return None
    name = t.performance.replace("_", " ")
    header = ["threshold", name, "ΔDP_b at the threshold (gap in positive rate)"]
    rows = []
    at = report.tradeoff_at_threshold
    if at is not None:
        rows.append(
            [
                f"{report.threshold:g} (the audit's)",
                format_number(at["performance"]),
                format_number(at["delta_dp"]),
            ]
        )
    if t.best_threshold is not None:
        rows.append(
            [
                f"{t.best_threshold:.3g} (best {name})",
                format_number(t.best_performance_value),
                format_number(t.best_delta_dp),
            ]
        )
    if t.threshold is not None:
        rows.append(
            [
                f"{t.threshold:.3g} (fairest within {100 * t.tolerance:g}%)",
                format_number(t.performance_value),
                format_number(t.delta_dp),
            ]
        )
    return header, rows
