"""The report as GitHub-flavoured Markdown (tables; no figures)."""

from __future__ import annotations

import html

from ._views import METRIC_HELP, details_rows, group_tables, metrics_rows, verdict


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
        html.unescape(verdict(report).replace("<b>", "**").replace("</b>", "**")),
        "",
        "## Disparity metrics",
        "",
        METRIC_HELP,
        "",
        _md_table(*metrics_rows(report)),
        "",
        "## Where MCDP is attained",
        "",
        _md_table(*details_rows(report)),
        "",
        f"## Groups at the threshold {report.threshold:g}",
    ]
    for name, header, rows in group_tables(report):
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
