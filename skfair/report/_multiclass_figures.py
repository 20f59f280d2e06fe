"""The figures of a multiclass audit: per-class group CDFs and a heat map.

Each draws on the axes :func:`._figures.draw_figures` gives it (the CDFs
replace them with one panel per class, on the same figure) and returns its
title, caption and ``alt`` text, read from what was drawn. The groups are
the report's (``report.group_arguments()``), so every value is the table's.
"""

from __future__ import annotations

import functools
import textwrap

import numpy as np

from ..utils._labels import group_label_text

#: Rows of the heat map (the largest groups when there are more).
MAX_HEATMAP_ROWS = 40
#: Panels per row of the per-class CDFs.
PANELS_PER_ROW = 3
#: Groups the per-class CDFs' legend lists (every group is drawn).
MAX_LEGEND_GROUPS = 12
#: A largest gap this close to 0 or 1 is drawn on a logit axis.
EDGE = 0.01


def class_cdf_figure(report, ax, context):
    """Each group's CDF of each class's probability: one panel per class."""
    from ..plotting import GroupCDFDisplay

    facts = report.headline.multiclass
    fig, k = ax.figure, len(facts.classes)
    ax.remove()
    n_rows = -(-k // PANELS_PER_ROW)
    n_cols = min(k, PANELS_PER_ROW)
    fig.set_size_inches(3.0 * n_cols + 2.2, 3.3 * n_rows)
    axes = np.atleast_1d(fig.subplots(n_rows, n_cols, sharey=True, squeeze=False))
    values, logit = [], []
    for j, cls in enumerate(facts.classes):
        panel = axes.flat[j]
        draw = functools.partial(
            GroupCDFDisplay.from_predictions,
            None,
            context["scores"][:, j],
            ax=panel,
            max_points=2000,
            **context["common"],
        )
        display = draw(xscale="linear")
        result = display.mcdp_result
        t = result.threshold
        if t is not None and min(t, 1.0 - t) < EDGE:
            # the segment sits against an edge a linear axis squeezes to a
            # line: redraw on a logit axis, which spreads [1e-6, 1 - 1e-6]
            panel.clear()
            try:
                display = draw(xscale="logit")
            except ValueError:  # every probability 0 or 1: no logit axis
                panel.clear()
                display = draw(xscale="linear")
            result = display.mcdp_result
        if display.xscale_ == "logit":
            logit.append(str(cls))
        pair = " vs ".join(group_label_text(g) for g in result.groups)
        values.append(f"class {cls}: MCDP(0) = {result.value:.4f} ({pair})")
        panel.set_title(
            textwrap.fill(f"class {cls}: MCDP(0) = {result.value:.3f}", 30),
            fontsize="small",
        )
        panel.set_xlabel(textwrap.shorten(f"probability of {cls}", 40))
        legend = panel.get_legend()
        if legend is not None:
            legend.remove()
    for panel in axes.flat[k:]:
        panel.set_visible(False)
    handles, listed = _outside_legend(fig, axes.flat[k - 1])
    labels = facts.prediction == "labels"
    caption = (
        "Empirical CDF of each group's probability of each class (one panel per "
        "class, one-vs-rest); the black segment marks where two groups' CDFs are "
        "furthest apart (MCDP(0) of that class)."
    )
    if logit:
        caption += (
            f" The probability axis of class {', '.join(logit)} is on a logit "
            "scale: the largest gap lies within 0.01 of 0 or 1, where a linear "
            "axis would squeeze it against the edge."
        )
    if len(handles) > listed:
        caption += f" Every group is drawn; the legend lists {listed} of them."
    if labels:
        caption += (
            " The labels were given: each column is 0/1 (predicted the class or "
            "not), so each CDF is one step, at the share not predicted the class."
        )
    return {
        "title": "Group CDFs of each class's probability",
        "caption": caption,
        "alt": (
            f"{k} panels of step plots, one per class, of each group's empirical "
            f"CDF of the probability of that class; {'; '.join(values)}."
        ),
    }


def _outside_legend(fig, panel):
    """The groups' legend outside the panels, on the right (the first listed).

    Returns the legend handles and how many are listed.
    """
    handles, names = panel.get_legend_handles_labels()
    listed = min(len(handles), MAX_LEGEND_GROUPS)
    if handles:
        title = None if listed == len(handles) else f"{listed} of {len(handles)} listed"
        fig.legend(
            handles[:listed],
            [textwrap.shorten(n, 40) for n in names[:listed]],
            loc="outside right center",
            fontsize="x-small",
            title=title,
            title_fontsize="x-small",
        )
    return handles, listed


def selection_heatmap_figure(report, ax, context):
    """The selection rate of each group (rows) and class (columns)."""
    facts = report.headline.multiclass
    frame = report.groups[report.groups["grouping"] == facts.grouping]
    classes = list(facts.classes)
    table = frame.pivot_table(
        index="group", columns="class", values="selection_rate", sort=False
    )[classes]
    sizes = frame.drop_duplicates("group").set_index("group")["size"]
    n_groups = len(table)
    if n_groups > MAX_HEATMAP_ROWS:
        keep = sizes.sort_values(ascending=False, kind="stable").index
        table = table.loc[[g for g in table.index if g in set(keep[:MAX_HEATMAP_ROWS])]]
    rows = len(table)
    ax.figure.set_size_inches(max(6.0, 1.3 * len(classes) + 4.0), 1.2 + 0.32 * rows)
    image = ax.imshow(
        table.to_numpy(), cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto"
    )
    ax.set_xticks(
        np.arange(len(classes)),
        [textwrap.shorten(f"class {c}", 24, placeholder="…") for c in classes],
        rotation=30 if len(classes) > 3 else 0,
        ha="right" if len(classes) > 3 else "center",
        fontsize="small",
    )
    ax.set_yticks(
        np.arange(rows),
        [
            f"{g} (weighted n={sizes[g]:,.1f})"  # survey weights
            if "n_eff" in frame
            else f"{g} (n={int(sizes[g]):,})"
            for g in table.index
        ],
        fontsize="small" if rows <= 20 else "x-small",
    )
    ax.set_title(facts.grouping, fontsize="small")
    for i in range(rows):
        for j in range(len(classes)):
            value = float(table.iat[i, j])
            ax.text(
                j,
                i,
                f"{100 * value:.1f}%",
                ha="center",
                va="center",
                fontsize="x-small" if rows > 20 else "small",
                color="black" if value > 0.6 else "white",
            )
    ax.figure.colorbar(image, ax=ax, label="selection rate (share predicted)")
    caption = (
        f"The share of each group of {facts.grouping} predicted each class "
        "(the selection-rate table's values); a column with uneven colours is a "
        "class predicted more often for some groups."
    )
    if rows < n_groups:
        caption += f" The {rows} largest of {n_groups} groups are drawn."
    worst = max(facts.selection, key=lambda g: g.value)
    return {
        "title": "Selection rate by group and class",
        "caption": caption,
        "alt": (
            f"Heat map of the selection rate of {rows} groups of {facts.grouping} "
            f"(rows) and {len(classes)} classes (columns); the largest gap is for "
            f"class {worst.label}, from {100 * worst.lowest.rate:.1f}% "
            f"({worst.lowest.group}) to {100 * worst.highest.rate:.1f}% "
            f"({worst.highest.group})."
        ),
    }
