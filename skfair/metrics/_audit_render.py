"""Rendering an :class:`~skfair.metrics.AuditReport`: figures, HTML, Markdown.

The HTML page is self-contained: inline CSS, figures as ``data:`` PNG images,
no script and no reference to any other host. Figures come from
:mod:`skfair.plotting`, imported only here and only when they are drawn.
"""

from __future__ import annotations

import base64
import html
import io
import math

import numpy as np

from .. import __version__

_CSS = """
.skfair-audit { font-family: system-ui, -apple-system, "Segoe UI", Roboto,
  "DejaVu Sans", sans-serif; color: #1f2328; max-width: 1120px; margin: 0 auto;
  padding: 24px; line-height: 1.45; }
.skfair-audit h1 { font-size: 1.7em; margin: 0 0 4px; }
.skfair-audit h2 { font-size: 1.25em; margin: 28px 0 8px; padding-bottom: 4px;
  border-bottom: 1px solid #d0d7de; }
.skfair-audit h3 { font-size: 1.05em; margin: 16px 0 6px; }
.skfair-audit .lead { color: #57606a; margin: 0 0 12px; }
.skfair-audit .verdict { background: #f6f8fa; border-left: 4px solid #0969da;
  padding: 10px 14px; margin: 12px 0; }
.skfair-audit table { border-collapse: collapse; margin: 6px 0 10px;
  font-size: 0.92em; }
.skfair-audit th, .skfair-audit td { border: 1px solid #d0d7de; padding: 4px 9px; }
.skfair-audit th { background: #f6f8fa; text-align: left; }
.skfair-audit td.num { text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }
.skfair-audit .small { color: #57606a; font-size: 0.88em; }
.skfair-audit .figures { display: grid; grid-template-columns:
  repeat(auto-fit, minmax(480px, 1fr)); gap: 18px; }
.skfair-audit figure.wide { grid-column: 1 / -1; }
.skfair-audit figure.wide img { max-width: 900px; }
.skfair-audit figure { margin: 0; border: 1px solid #d0d7de; padding: 8px;
  border-radius: 6px; }
.skfair-audit figure img { width: 100%; height: auto; display: block; }
.skfair-audit figcaption { font-size: 0.88em; color: #57606a; margin-top: 6px; }
"""

_METRIC_HELP = (
    "All metrics compare the groups' score distributions; 0 means identical "
    "distributions and lower is fairer. Values are fractions (the papers "
    "report ×100). The bootstrap interval resamples each group on its own; the "
    "DKW interval is distribution-free and conservative (guaranteed coverage, "
    "wider). The p-value tests “every group's scores come from one "
    "distribution”."
)

_GROUP_COLUMNS = [
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


# The fairness axis of the trade-off figure (a cv_results key, shown as label).
_TRADEOFF_KEY = "ΔDP_b^t"


def png_data_uri(png):
    """``data:image/png;base64,...`` for PNG bytes."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _e(text):
    return html.escape(str(text), quote=True)


def _num(value, kind="num"):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    return f"{value:.4f}"


def _pvalue(p):
    if p is None or not math.isfinite(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _table_pvalue(p, test, n_permutations):
    floor = 1.0 / (n_permutations + 1)
    if test == "permutation" and p <= floor * (1 + 1e-9):
        return f"≤ {floor:.3g}"
    return _pvalue(p)


def _interval(low, high):
    if not (math.isfinite(low) and math.isfinite(high)):
        return "—"
    return f"[{low:.4f}, {high:.4f}]"


def _verdict(report):
    from ._audit import _label_text

    row = report.metrics.loc["mcdp"]
    p = row["pvalue"]
    worst = report.mcdp_details[0.0]
    pair = " and ".join(_label_text(g) for g in worst.groups)
    floor = 1.0 / (report.n_permutations + 1)
    opening = (
        f"The largest gap between the groups' score CDFs, MCDP(0), is "
        f"<b>{row['value']:.3f}</b> (between {_e(pair)}, at the score "
        f"{worst.threshold:.3g}); {100 * report.confidence_level:g}%"
    )
    if report.engine == "dask":  # no resampling on Dask: the DKW interval
        return (
            f"{opening} DKW interval {_interval(row['dkw_low'], row['dkw_high'])}; "
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
        evidence = f"p {_pvalue(p) if p < 0.001 else '= ' + _pvalue(p)}: {strength}"
    return (
        f"{opening} bootstrap interval "
        f"{_interval(row['bootstrap_low'], row['bootstrap_high'])}; {evidence}."
    )


def _metrics_rows(report):
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
                _interval(row["bootstrap_low"], row["bootstrap_high"]),
                _interval(row["dkw_low"], row["dkw_high"]),
                _table_pvalue(row["pvalue"], row["test"], report.n_permutations),
                row["test"],
            ]
        )
    return header, rows


def _details_rows(report):
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


def _group_tables(report):
    out = []
    for name, frame in report.groups.groupby("grouping", sort=False):
        header = [title for _, title, _ in _GROUP_COLUMNS]
        rows = [
            [
                r[key] if kind is None else _num(r[key], kind)
                for key, _, kind in _GROUP_COLUMNS
            ]
            for r in frame.to_dict(orient="records")
        ]
        out.append((name, header, rows))
    return out


def _html_table(header, rows, numeric=None):
    """A table; columns in ``numeric`` (default: all but the first) align right."""
    numeric = set(range(1, len(header))) if numeric is None else set(numeric)
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{_e(c)}</td>' if j in numeric else f"<td>{_e(c)}</td>"
            for j, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figures_html(report):
    if report.engine == "dask":
        return (
            '<p class="small">Figures omitted: the data are Dask collections '
            "(see the notes).</p>"
        )
    try:
        figures = draw_figures(report)
    except ImportError:
        from ._audit import NO_MATPLOTLIB_NOTE

        return f"<p>{_e(NO_MATPLOTLIB_NOTE)}</p>"
    parts = []
    for fig in figures:
        if "png" in fig:
            body = f'<img src="{png_data_uri(fig["png"])}" alt="{_e(fig["title"])}">'
        else:
            body = f'<p class="small">{_e(fig["note"])}</p>'
        wide = ' class="wide"' if fig.get("wide") else ""
        parts.append(
            f"<figure{wide}><h3>{_e(fig['title'])}</h3>{body}"
            f"<figcaption>{_e(fig['caption'])}</figcaption></figure>"
        )
    return '<div class="figures">' + "".join(parts) + "</div>"


def render_html(report, *, figures=True, full_page=True):
    """The report as HTML (see :meth:`AuditReport.to_html`)."""
    s = report._summary()
    lead = (
        f"{s['n_samples']:,} samples; sensitive attribute(s): "
        f"{', '.join(map(str, s['attributes']))}; decision threshold "
        f"{s['threshold']:g} (score ≥ threshold); ε = {s['epsilon']:g}."
    )
    sections = [
        f"<h1>{_e(report.title)}</h1>",
        f'<p class="lead">{_e(lead)}</p>',
        f'<p class="verdict">{_verdict(report)}</p>',
        '<section id="metrics"><h2>Disparity metrics</h2>',
        f'<p class="small">{_e(_METRIC_HELP)}</p>',
        _html_table(*_metrics_rows(report), numeric=(1, 2, 3, 4)),
        "</section>",
        '<section id="mcdp-location"><h2>Where MCDP is attained</h2>',
        _html_table(*_details_rows(report), numeric=(0, 1)),
        "</section>",
        f'<section id="groups"><h2>Groups at the threshold {report.threshold:g}</h2>',
    ]
    for name, header, rows in _group_tables(report):
        sections.append(f"<h3>{_e(name)}</h3>")
        sections.append(_html_table(header, rows))
    sections.append("</section>")
    if report.hfm is not None:
        values = report.hfm.to_dict()
        sections += [
            '<section id="hfm"><h2>HFM (harmonic fairness via manifolds)</h2>',
            '<p class="small">Extra bias the decisions add over the labels, '
            "measured on the features: negative means the model brings the groups "
            "closer than the labels do, 0 as far, positive further.</p>",
            _html_table(
                list(values),
                [[f"{v:.4f}" for v in values.values()]],
                numeric=range(len(values)),
            ),
            "</section>",
        ]
    sections.append('<section id="figures"><h2>Figures</h2>')
    sections.append(
        _figures_html(report) if figures else '<p class="small">Figures not drawn.</p>'
    )
    sections.append("</section>")
    notes = "".join(f"<li>{_e(n)}</li>" for n in report.notes())
    sections.append(f'<section id="notes"><h2>Notes</h2><ul>{notes}</ul></section>')
    sections.append(
        f'<p class="small">Generated by skfair {_e(__version__)}. This page loads '
        "nothing from elsewhere and needs no JavaScript.</p>"
    )
    body = '<main class="skfair-audit">' + "\n".join(sections) + "</main>"
    if not full_page:
        return f"<div><style>{_CSS}</style>{body}</div>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(report.title)}</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )


def _md_table(header, rows):
    def cell(c):
        return str(c).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(report):
    """The report as Markdown (see :meth:`AuditReport.to_markdown`)."""
    s = report._summary()
    out = [
        f"# {report.title}",
        "",
        f"{s['n_samples']:,} samples; sensitive attribute(s): "
        f"{', '.join(map(str, s['attributes']))}; decision threshold "
        f"{s['threshold']:g}; ε = {s['epsilon']:g}.",
        "",
        html.unescape(_verdict(report).replace("<b>", "**").replace("</b>", "**")),
        "",
        "## Disparity metrics",
        "",
        _METRIC_HELP,
        "",
        _md_table(*_metrics_rows(report)),
        "",
        "## Where MCDP is attained",
        "",
        _md_table(*_details_rows(report)),
        "",
        f"## Groups at the threshold {report.threshold:g}",
    ]
    for name, header, rows in _group_tables(report):
        out += ["", f"### {name}", "", _md_table(header, rows)]
    if report.hfm is not None:
        values = report.hfm.to_dict()
        out += [
            "",
            "## HFM",
            "",
            _md_table(list(values), [[f"{v:.4f}" for v in values.values()]]),
        ]
    out += ["", "## Notes", ""] + [f"- {n}" for n in report.notes()]
    out += ["", "Figures are in the HTML report (`to_html()`)."]
    return "\n".join(out) + "\n"


def draw_figures(report):
    """The four figures as PNG bytes (see :meth:`AuditReport.figures`)."""
    from ..plotting import (
        FairnessTradeoffDisplay,
        GroupCDFDisplay,
        MCDPCurveDisplay,
        ThresholdDisparityDisplay,
    )
    from ..plotting._base import check_matplotlib_support  # the one matplotlib guard

    if report._data is None:
        from ._audit import AUDIT_DASK_FIGURES_ERROR

        raise ValueError(AUDIT_DASK_FIGURES_ERROR)
    plt = check_matplotlib_support("AuditReport.figures")
    scores, sensitive, y = report._data
    common = {"sensitive_features": sensitive, "combine": report.combine}
    n_distinct = np.unique(scores).shape[0]
    out = []

    def render(title, caption, draw, wide=False):
        size = (9.0, 4.8) if wide else (6.4, 4.2)
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        try:
            draw(ax)
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=110)
        finally:
            plt.close(fig)
        out.append(
            {"title": title, "caption": caption, "png": buffer.getvalue(), "wide": wide}
        )

    render(
        "Group score CDFs",
        "Empirical CDF of each group's scores; the marker shows where the CDF "
        "gap is largest (MCDP(0)) and which groups realise it.",
        lambda ax: GroupCDFDisplay.from_predictions(
            None, scores, ax=ax, max_points=2000, **common
        ),
        wide=True,
    )
    epsilons = np.linspace(0, 0.2, 41 if report.n_samples <= 200_000 else 11)
    render(
        "MCDP(ε) over ε",
        "How the local disparity depends on the neighbourhood radius ε "
        "(ε = 0: the largest CDF gap).",
        lambda ax: MCDPCurveDisplay.from_predictions(
            None, scores, epsilons=epsilons, ax=ax, **common
        ),
    )
    thresholds = None if n_distinct <= 20_000 else np.linspace(0, 1, 1001)

    def disparity(ax):
        ThresholdDisparityDisplay.from_predictions(
            None, scores, thresholds=thresholds, ax=ax, **common
        )
        ax.axvline(report.threshold, color="0.4", linestyle=":", linewidth=1)

    render(
        "Disparity over decision thresholds",
        f"ΔDP_b^t (gap in positive rate) for every threshold t; the dotted "
        f"line is the audit's threshold {report.threshold:g}.",
        disparity,
    )
    title = "Accuracy–fairness trade-off over thresholds"
    caption = (
        "Each point is a decision threshold t (no error bars: one model, one "
        "test set): accuracy against ΔDP_b^t; the star is the fairest "
        "threshold within 95% of the best accuracy."
    )
    if y is None:
        out.append(
            {"title": title, "caption": caption, "note": "Needs true labels (y_true)."}
        )
        return out
    grid = np.unique(np.r_[np.round(np.linspace(0.05, 0.95, 19), 2), report.threshold])
    cv_results = _threshold_candidates(scores, sensitive, y, grid, report.combine)
    render(
        title,
        caption,
        lambda ax: FairnessTradeoffDisplay.from_cv_results(
            cv_results, fairness=_TRADEOFF_KEY, performance="accuracy", ax=ax
        ),
    )
    return out


def _threshold_candidates(scores, sensitive, y, grid, combine):
    """cv_results-like dict: each threshold a candidate (accuracy, -ΔDP_b^t)."""
    from ._distribution import delta_dp

    accuracy = [float(np.mean((scores >= t) == (y == 1))) for t in grid]
    gaps = [
        delta_dp(
            None,
            scores,
            sensitive_features=sensitive,
            threshold=float(t),
            combine=combine,
        )
        for t in grid
    ]
    return {
        "params": [{"t": float(t)} for t in grid],
        "mean_test_accuracy": np.array(accuracy),
        f"mean_test_{_TRADEOFF_KEY}": -np.array(gaps),
    }
