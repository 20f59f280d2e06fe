"""What each task's report says, for the renderers: one view per task.

A view names the functions that give a report's text and tables (lead,
headline, summary, methods, notes, the group tables and their title, the
metrics table's help). The HTML, Markdown and dict renderings read them
through :func:`view_of`, so a task (``"binary"``, ``"regression"``,
``"multiclass"``) is one entry here and one module of content, rendered by
the same machinery.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from . import _multiclass_views as multiclass
from . import _regression_views as regression
from . import _sentences as sentences
from . import _tables as tables
from ._provenance import record_notes


class View(NamedTuple):
    """The content functions of one task's report (each takes the report)."""

    lead: Callable
    headline: Callable
    plain_summary: Callable
    methods: Callable
    notes: Callable
    groups_title: Callable
    group_tables: Callable
    metric_help: str


def _binary_groups_title(report):
    return f"Groups at the threshold {report.threshold:g}"


def _task_view(module):
    """The view of a task's module of content (same names in each)."""
    return View(
        lead=module.lead,
        headline=module.headline,
        plain_summary=module.plain_summary,
        methods=module.methods,
        notes=module.notes,
        groups_title=module.groups_title,
        group_tables=module.group_tables,
        metric_help=module.METRIC_HELP,
    )


VIEWS = {
    "binary": View(
        lead=sentences.lead,
        headline=sentences.headline,
        plain_summary=sentences.plain_summary,
        methods=sentences.methods,
        notes=sentences.notes,
        groups_title=_binary_groups_title,
        group_tables=tables.group_tables,
        metric_help=tables.METRIC_HELP,
    ),
    "regression": _task_view(regression),
    "multiclass": _task_view(multiclass),
}


def _with_record(notes):
    """``notes`` followed by the exclusions, weights and provenance."""

    def with_record(report):
        return notes(report) + record_notes(report)

    return with_record


def view_of(report):
    """The :class:`View` of the report's task (notes end with the provenance)."""
    view = VIEWS[report.settings.task]
    return view._replace(notes=_with_record(view.notes))
