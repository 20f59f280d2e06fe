"""The report as GitHub-flavoured Markdown (tables; no figures).

Every text of the report goes through :func:`markdown_text`, so a group,
column or title such as ``<script>`` or ``a|b`` stays literal text.
"""

from __future__ import annotations

from . import _sentences as sentences
from . import _tables as tables
from ._common import markdown_text as md
from ._views import view_of


def _md_table(header, rows):
    lines = ["| " + " | ".join(md(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(report):
    """The report as Markdown (see :meth:`AuditReport.to_markdown`)."""
    view = view_of(report)
    first, *rest = view.headline(report)
    out = [
        f"# {md(report.title)}",
        "",
        md(view.lead(report)),
        "",
        f"**{md(first)}**",
    ]
    for sentence in rest:
        out += ["", md(sentence)]
    out += ["", "## Summary", ""] + [f"- {md(s)}" for s in view.plain_summary(report)]
    out += ["", f"## {md(view.groups_title(report))}"]
    for name, parts in view.group_tables(report):
        out += ["", f"### {md(name)}"]
        for subtitle, header, rows in parts:
            out += ["", f"*{md(subtitle)}*", "", _md_table(header, rows)]
    out += [
        "",
        "## Disparity metrics",
        "",
        md(view.metric_help),
        "",
        _md_table(*tables.metrics_rows(report)),
        "",
        "## Where MCDP is attained",
        "",
        _md_table(*tables.details_rows(report)),
    ]
    tradeoff = tables.tradeoff_rows(report)
    if tradeoff is not None:
        out += ["", "## Threshold trade-off", "", _md_table(*tradeoff)]
        out += [
            line for s in sentences.advice_sentences(report) for line in ("", md(s))
        ]
    if report.hfm is not None:
        values = report.hfm.to_dict()
        out += [
            "",
            "## HFM",
            "",
            _md_table(list(values), [[f"{v:.4f}" for v in values.values()]]),
        ]
    out += ["", "## Methods", ""] + [f"- {md(m)}" for m in view.methods(report)]
    out += ["", "## Notes", ""] + [f"- {md(n)}" for n in view.notes(report)]
    out += ["", "The figures are in the HTML report."]
    return "\n".join(out) + "\n"
