"""What every rendering of a report shows: the verdict and the tables' rows.

Renderers (:mod:`._html`, :mod:`._markdown`) lay these out; they compute
nothing themselves.
"""

from __future__ import annotations

import math

from ._common import (
    escape,
    format_interval,
    format_number,
    format_pvalue,
    format_table_pvalue,
    label_text,
)

METRIC_HELP = (
    "All metrics compare the groups' score distributions; 0 means identical "
    "distributions and lower is fairer. Values are fractions (the papers "
    "report ×100). The bootstrap interval resamples each group on its own; the "
    "DKW interval is distribution-free and conservative (guaranteed coverage, "
    "wider). The p-value tests “every group's scores come from one "
    "distribution”."
)

GROUP_COLUMNS = [
    ("group", "group", None),
    ("size", "size", "int"),
    ("share", "share", "pct"),
    ("base_rate", "base rate", "pct"),
    ("mean_score", "mean score", "num"),
    ("positive_rate", "positive rate", "pct"),
    ("tpr", "TPR", "pct"),
    ("fpr", "FPR", "pct"),
    ("precision", "precision", "pct"),
]


def verdict(report):
    row = report.metrics.loc["mcdp"]
    p = row["pvalue"]
    worst = report.mcdp_details[0.0]
    pair = " and ".join(label_text(g) for g in worst.groups)
    floor = 1.0 / (report.n_permutations + 1)
    opening = (
        f"The largest gap between the groups' score CDFs, MCDP(0), is "
        f"<b>{row['value']:.3f}</b> (between {escape(pair)}, at the score "
        f"{worst.threshold:.3g}); {100 * report.confidence_level:g}%"
    )
    if report.engine == "dask":  # no resampling on Dask: the DKW interval
        return (
            f"{opening} DKW interval "
            f"{format_interval(row['dkw_low'], row['dkw_high'])}; "
            "no p-value on Dask input (see the notes)."
        )
    if row["test"] == "permutation" and p <= floor * (1 + 1e-9):
        evidence = (
            f"p ≤ {floor:.3g}: larger than in every one of the "
            f"{report.n_permutations} permutations of the group labels"
        )
    else:
        strength = (
            "unlikely to be noise"
            if p < 0.01
            else (
                "weak evidence of a real gap" if p < 0.05 else "compatible with noise"
            )
        )
        shown = format_pvalue(p) if p < 0.001 else "= " + format_pvalue(p)
        evidence = f"p {shown}: {strength}"
    return (
        f"{opening} bootstrap interval "
        f"{format_interval(row['bootstrap_low'], row['bootstrap_high'])}; {evidence}."
    )


def metrics_rows(report):
    level = f"{100 * report.confidence_level:g}%"
    header = [
        "metric",
        "value",
        f"{level} bootstrap CI",
        f"{level} DKW CI",
        "p-value",
        "test",
    ]
    rows = []
    for _, row in report.metrics.iterrows():
        rows.append(
            [
                row["metric"],
                f"{row['value']:.4f}" if math.isfinite(row["value"]) else "—",
                format_interval(row["bootstrap_low"], row["bootstrap_high"]),
                format_interval(row["dkw_low"], row["dkw_high"]),
                format_table_pvalue(row["pvalue"], row["test"], report.n_permutations),
                row["test"],
            ]
        )
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


def group_tables(report):
    out = []
    for name, frame in report.groups.groupby("grouping", sort=False):
        header = [title for _, title, _ in GROUP_COLUMNS]
        rows = [
            [
                r[key] if kind is None else format_number(r[key], kind)
                for key, _, kind in GROUP_COLUMNS
            ]
            for r in frame.to_dict(orient="records")
        ]
        out.append((name, header, rows))
    return out
