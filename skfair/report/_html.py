"""The report as one self-contained HTML page.

Inline CSS, figures as ``data:`` PNG images, no script and no reference to
any other host.
"""

from __future__ import annotations

import base64

from .. import __version__
from . import _sentences as sentences
from . import _tables as tables
from ._common import NO_MATPLOTLIB_NOTE, escape
from ._figures import draw_figures
from ._views import view_of

_CSS = """
.skfair-audit { font-family: system-ui, -apple-system, "Segoe UI", Roboto,
  "DejaVu Sans", sans-serif; color: #1f2328; max-width: 1120px; margin: 0 auto;
  padding: 24px; line-height: 1.45; }
.skfair-audit h1 { font-size: 1.7em; margin: 0 0 4px; }
.skfair-audit h2 { font-size: 1.25em; margin: 28px 0 8px; padding-bottom: 4px;
  border-bottom: 1px solid #d0d7de; }
.skfair-audit h3 { font-size: 1.05em; margin: 16px 0 6px; }
.skfair-audit .lead { color: #57606a; margin: 0 0 12px; }
.skfair-audit .verdict p { margin: 4px 0; }
.skfair-audit .verdict { background: #f6f8fa; border-left: 4px solid #0969da;
  padding: 10px 14px; margin: 12px 0; }
.skfair-audit .table-wrap { max-width: 100%; overflow-x: auto; }
.skfair-audit table { border-collapse: collapse; margin: 6px 0 10px;
  font-size: 0.92em; max-width: 100%; }
.skfair-audit th, .skfair-audit td { border: 1px solid #d0d7de; padding: 4px 7px;
  overflow-wrap: break-word; }
.skfair-audit th { background: #f6f8fa; text-align: left; }
.skfair-audit td.num { text-align: right; font-variant-numeric: tabular-nums;
  overflow-wrap: normal; }
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


def png_data_uri(png):
    """``data:image/png;base64,...`` for PNG bytes."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _html_table(header, rows, numeric=None):
    """A table; columns in ``numeric`` (default: all but the first) align right."""
    numeric = set(range(1, len(header))) if numeric is None else set(numeric)
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{escape(c)}</td>'
            if j in numeric
            else f"<td>{escape(c)}</td>"
            for j, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    # a wide table scrolls on its own instead of widening the whole page
    return f'<div class="table-wrap">{table}</div>'


def _figures_html(report):
    if report.engine == "dask":
        return (
            '<p class="small">Figures omitted: the data are Dask collections '
            "(see the notes).</p>"
        )
    try:
        figures = draw_figures(report)
    except ImportError:
        return f"<p>{escape(NO_MATPLOTLIB_NOTE)}</p>"
    parts = []
    for fig in figures:
        if "png" in fig:
            body = (
                f'<img src="{png_data_uri(fig["png"])}" '
                f'alt="{escape(fig.get("alt", fig["title"]))}">'
            )
        else:
            body = f'<p class="small">{escape(fig["note"])}</p>'
        wide = ' class="wide"' if fig.get("wide") else ""
        parts.append(
            f"<figure{wide}><h3>{escape(fig['title'])}</h3>{body}"
            f"<figcaption>{escape(fig['caption'])}</figcaption></figure>"
        )
    return '<div class="figures">' + "".join(parts) + "</div>"


def _list(items):
    return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>"


def render_html(report, *, figures=True, full_page=True):
    """The report as HTML (see :meth:`AuditReport.to_html`)."""
    view = view_of(report)
    first, *rest = view.headline(report)
    sections = [
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="lead">{escape(view.lead(report))}</p>',
        f'<div class="verdict"><p><b>{escape(first)}</b></p>'
        + "".join(f"<p>{escape(s)}</p>" for s in rest)
        + "</div>",
        '<section id="summary"><h2>Summary</h2>',
        _list(view.plain_summary(report)),
        "</section>",
        f'<section id="groups"><h2>{escape(view.groups_title(report))}</h2>',
    ]
    for name, parts in view.group_tables(report):
        sections.append(f"<h3>{escape(name)}</h3>")
        for subtitle, header, rows in parts:
            sections.append(f'<p class="small">{escape(subtitle)}</p>')
            sections.append(_html_table(header, rows))
    sections.append("</section>")
    sections += [
        '<section id="metrics"><h2>Disparity metrics</h2>',
        f'<p class="small">{escape(view.metric_help)}</p>',
        _html_table(*tables.metrics_rows(report), numeric=(1, 3, 5, 6)),
        "</section>",
        '<section id="mcdp-location"><h2>Where MCDP is attained</h2>',
        _html_table(*tables.details_rows(report), numeric=(0, 1)),
        "</section>",
    ]
    tradeoff = tables.tradeoff_rows(report)
    if tradeoff is not None:
        sections += [
            '<section id="tradeoff"><h2>Threshold trade-off</h2>',
            _html_table(*tradeoff),
            "".join(f"<p>{escape(s)}</p>" for s in sentences.advice_sentences(report)),
            "</section>",
        ]
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
    sections.append(
        f'<section id="methods"><h2>Methods</h2>{_list(view.methods(report))}</section>'
    )
    sections.append(
        f'<section id="notes"><h2>Notes</h2>{_list(view.notes(report))}</section>'
    )
    sections.append(
        f'<p class="small">Generated by skfair {escape(__version__)}. This page loads '
        "nothing from elsewhere and needs no JavaScript.</p>"
    )
    body = '<main class="skfair-audit">' + "\n".join(sections) + "</main>"
    if not full_page:
        return f"<div><style>{_CSS}</style>{body}</div>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(report.title)}</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )
