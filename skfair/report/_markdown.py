"""The report as GitHub-flavoured Markdown (tables; no figures).

Every text of the report goes through :func:`markdown_text`, so a group,
column or title such as ``<script>`` or ``a|b`` stays literal text.
"""

from __future__ import annotations

from . import _views as views
from ._common import markdown_text as md


def _md_table(header, rows):
    lines = ["| " + " | ".join(md(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(report):
    """The report as Markdown (see :meth:`AuditReport.to_markdown`)."""
    first, *rest = views.headline(report)
    out = [f"# {md(report.title)}", "", md(views.lead(report)), "", f"**{md(first)}**"]
    for sentence in rest:
        out += ["", md(sentence)]
    out += ["", "## Summary", ""] + [f"- {md(s)}" for s in views.plain_summary(report)]
    out += ["", f"## Groups at the threshold {report.threshold:g}"]
    for name, parts in views.group_tables(report):
        out += ["", f"### {md(name)}"]
        for subtitle, header, rows in parts:
            out += ["", f"*{md(subtitle)}*", "", _md_table(header, rows)]
    out += [
        "",
        "## Disparity metrics",
        "",
        md(views.METRIC_HELP),
        "",
        _md_table(*views.metrics_rows(report)),
        "",
        "## Where MCDP is attained",
        "",
        _md_table(*views.details_rows(report)),
    ]
    tradeoff = views.tradeoff_rows(report)
    if tradeoff is not None:
        out += ["", "## Threshold trade-off", "", _md_table(*tradeoff)]
    if report.hfm is not None:
        values = report.hfm.to_dict()
        out += [
            "",
            "## HFM",
            "",
            _md_table(list(values), [[f"{v:.4f}" for v in values.values()]]),
        ]
    out += ["", "## Methods", ""] + [f"- {md(m)}" for m in views.methods(report)]
    out += ["", "## Notes", ""] + [f"- {md(n)}" for n in report.notes()]
    out += ["", "Figures are in the HTML report (`to_html()`)."]
    return "\n".join(out) + "\n"
