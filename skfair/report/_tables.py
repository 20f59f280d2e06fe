"""The report's tables as rows of plain text: metrics, MCDP location, groups.

Read from the report's typed facts; the renderers escape and lay them out.
"""

from __future__ import annotations

import math

from ._common import format_interval, format_number, format_percent, format_ratio
from ._explain import interval_of
from ._survey import weighted_count

METRIC_HELP = (
    "All metrics compare the groups' score distributions, lower is fairer; "
    "ABCC, ABPC and MCDP(0) are 0 only for identical distributions, while "
    "ΔDP_c is 0 for equal mean scores and ΔDP_b for equal positive rates, "
    "whatever the distributions. Values are fractions (the papers "
    "report ×100). “Groups” are the two groups the value comes from (the "
    "largest gap over pairs). The p-value tests “every group's scores come "
    "from one distribution”; see Methods for the intervals and tests."
)


def _finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


def _pvalue_cell(result):
    if result.untestable_reason is not None:
        return "untestable (see notes)"
    p, floor = result.pvalue, result.pvalue_floor
    if not _finite(p):
        return "—"
    if result.test == "permutation" and _finite(floor) and p <= floor * (1 + 1e-9):
        return f"≤ {floor:.3g}"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def metrics_rows(report):
    """Header and rows of the metrics table (one row per metric)."""
    level = f"{100 * report.confidence_level:g}%"
    results = report.metric_results
    header = ["metric", "value", "groups", f"{level} CI", "method"]
    dkw = any(_finite(r.dkw_low) for r in results) and report.engine != "dask"
    if dkw:
        header.append(f"{level} DKW CI")
    has_p = report.engine != "dask"
    if has_p:
        header += ["p-value", "test"]
    rows = []
    for r in results:
        if not r.defined:
            rows.append(
                [r.name, "undefined"] + [""] * (len(header) - 3) + ["see notes"]
            )
            continue
        low, high, method = interval_of(r)
        cells = [
            r.name,
            format_number(r.value),
            "—" if r.pair is None else " vs ".join(r.pair),
            format_interval(low, high),
            method or "—",
        ]
        if dkw:
            cells.append(format_interval(r.dkw_low, r.dkw_high))
        if has_p:
            cells += [_pvalue_cell(r), r.test or "—"]
        rows.append(cells)
    return header, rows


def details_rows(report):
    """Header and rows of the "where MCDP is attained" table."""
    noun = "predictions" if report.settings.task == "regression" else "scores"
    header = [
        "ε",
        "MCDP(ε)",
        "attribute",
        "groups",
        "where",
        f"higher CDF (more low {noun})",
    ]
    rows = []
    for loc in report.locations:
        if loc.threshold is not None:
            where = f"at the threshold {loc.threshold:.4g}"
        else:
            where = f"over the {noun} [{loc.window[0]:.4g}, {loc.window[1]:.4g}]"
        rows.append(
            [
                f"{loc.epsilon:g}",
                f"{loc.value:.4f}",
                loc.attribute,
                " vs ".join(loc.groups),
                where,
                loc.higher_cdf_group,
            ]
        )
    return header, rows


def _rate_cell(row, rate):
    value = row[rate]
    if not _finite(value):
        return "—"
    low, high = row[f"{rate}_low"], row[f"{rate}_high"]
    return f"{format_percent(value)} ({format_percent(low)}–{format_percent(high)})"


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


def _weighted(value):
    return weighted_count(value) if _finite(value) else "—"


def _count_table(records, labelled):
    weighted = "n_eff" in records[0]  # survey weights: weighted counts, rows, n_eff
    count = _weighted if weighted else _count
    header = ["group", "size", "share", "selected"]
    if weighted:
        header = ["group", "weighted size", "rows", "n_eff", "deff"]
        header += ["share", "selected (weighted)"]
    if labelled:
        header += ["positives", "TP", "FP", "FN", "TN"]
    rows = [
        [_group_name(r), count(r["size"])]
        + (
            [_count(r["n_rows"]), f"{r['n_eff']:,.1f}", f"{r['design_effect']:.2f}"]
            if weighted
            else []
        )
        + [format_percent(r["share"]), count(r["n_selected"])]
        + (
            [count(r[k]) for k in ("n_positive", "tp", "fp", "fn", "tn")]
            if labelled
            else []
        )
        for r in records
    ]
    return header, rows


def _rate_table(records, labelled):
    rates = ["positive_rate"] + (
        ["base_rate", "tpr", "fpr", "fnr", "precision"] if labelled else []
    )
    header = ["group", "mean score"] + [_TITLES[k] for k in rates]
    if labelled:
        header.append("few positives")
    rows = [
        [_group_name(r), format_number(r["mean_score"])]
        + [_rate_cell(r, k) for k in rates]
        + (["yes" if r["few_positives"] else ""] if labelled else [])
        for r in records
    ]
    return header, rows


def _reference_table(records, labelled):
    compared = ["positive_rate"] + (["tpr", "fpr", "fnr"] if labelled else [])
    header = ["group"]
    for k in compared:
        header += [f"{_TITLES[k]} ratio", f"{_TITLES[k]} difference"]
    header.append("four-fifths rule")
    rows = [
        [_group_name(r)]
        + [
            cell
            for k in compared
            for cell in (
                format_ratio(r[f"{k}_ratio"]),
                f"{r[f'{k}_diff']:+.4f}" if _finite(r[f"{k}_diff"]) else "—",
            )
        ]
        + [{True: "pass", False: "fail"}.get(r["four_fifths"], "—")]
        for r in records
    ]
    return header, rows


def group_tables(report):
    """Per table grouping: (name, [(subtitle, header, rows), ...])."""
    level = f"{100 * report.confidence_level:g}%"
    labelled = report.has_labels
    out = []
    for name, frame in report.groups.groupby("grouping", sort=False):
        records = frame.to_dict(orient="records")
        on = " on Kish's n_eff" if "n_eff" in frame else ""
        out.append(
            (
                name,
                [
                    ("Counts", *_count_table(records, labelled)),
                    (
                        f"Rates with {level} Wilson intervals{on}",
                        *_rate_table(records, labelled),
                    ),
                    (
                        "Against the reference group (differences are fractions)",
                        *_reference_table(records, labelled),
                    ),
                ],
            )
        )
    return out


def tradeoff_rows(report):
    """The audit's threshold, the best-performing one and the recommendation."""
    advice = report.advice
    if advice is None:
        return None
    name = advice.performance.replace("_", " ")
    header = ["threshold", name, "ΔDP_b at the threshold (gap in positive rate)"]

    def row(point, label):
        return [
            f"{point.threshold:.3g} ({label})",
            format_number(point.performance),
            format_number(point.delta_dp),
        ]

    rows = [row(advice.current, "the audit's")]
    if advice.best is not None:
        rows.append(row(advice.best, f"best {name}"))
    if advice.recommended is not None:
        share = f"{100 * advice.tolerance:g}%"
        rows.append(row(advice.recommended, f"recommended: fairer, within {share}"))
    return header, rows
