"""The report's figures, drawn by :mod:`skfair.plotting` (matplotlib).

One function per figure; each draws on the axes it is given and returns the
figure's title, caption and ``alt`` text. The alt text states what the figure
shows and the value it annotates, read from the Display that drew it: the
same groups as the tables (``min_group_size`` and ``combine`` are passed to
every Display), so the figure's value is the table's.

Imported only when figures are drawn; :mod:`skfair.plotting` is the only
place that imports matplotlib.
"""

from __future__ import annotations

import inspect
import io

import numpy as np

from ..model_selection._selection import tolerance_floor
from ..utils._labels import group_label_text
from ._common import AUDIT_DASK_FIGURES_ERROR
from ._multiclass_figures import class_cdf_figure, selection_heatmap_figure

# Above this many distinct scores the threshold curve is evaluated on a grid.
_EXACT_CURVE_UP_TO = 20_000
_SCALE_NOTE = (
    " The score axis is on a logit scale: most scores are below 0.1 or above "
    "0.9, where a linear axis would squeeze every curve against its edge."
)
_DISPARITY = r"$\Delta DP_b^t$"


def draw_figures(report):
    """The task's figures (see :meth:`AuditReport.figures` and :data:`FIGURES`).

    Each is a dict with ``title``, ``caption``, ``alt`` and ``png`` (bytes),
    and ``wide`` for the full-width one; or ``note`` instead of ``png`` when
    it cannot be drawn (the trade-off without labels).
    """
    from ..plotting._base import check_matplotlib_support  # the one matplotlib guard

    if report.inputs is None:
        raise ValueError(AUDIT_DASK_FIGURES_ERROR)
    plt = check_matplotlib_support("AuditReport.figures")
    context = figure_context(report)
    figures = FIGURES[report.settings.task]
    return [_render(plt, draw, report, context, wide) for draw, wide in figures]


def figure_context(report):
    """What every figure reads: the scores, labels and the Displays' arguments.

    ``common`` holds the arguments that select the groups (``combine`` and
    ``min_group_size``), as the report's tables used them.
    """
    inputs = report.inputs
    return {"scores": inputs.scores, "y": inputs.y, "common": report.group_arguments()}


def _render(plt, draw, report, context, wide):
    """Draw one figure on a new figure; its dict with the PNG bytes."""
    size = (9.0, 4.8) if wide else (6.4, 4.2)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    try:
        figure = draw(report, ax, context)
        if "note" not in figure:
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=110)
            figure["png"] = buffer.getvalue()
    finally:
        plt.close(fig)
    figure["wide"] = wide
    return figure


def _faded_note(display, pair):
    """What the CDF plot colours when it fades groups ("" when it fades none)."""
    n_groups, n_coloured = len(display.lines_), len(display.highlighted_)
    if n_coloured >= n_groups:
        return ""
    return (
        f" {n_groups} groups: coloured are {pair} (the pair realising MCDP(0), "
        f"red and blue) and the {n_coloured - 2} largest other groups; the "
        f"other {n_groups - n_coloured} groups are faded grey."
    )


def group_cdf_figure(report, ax, context):
    """Each group's score CDF, with where MCDP(0) is attained."""
    from ..plotting import GroupCDFDisplay

    display = GroupCDFDisplay.from_predictions(
        None, context["scores"], ax=ax, max_points=2000, **context["common"]
    )
    result = display.mcdp_result
    pair = " and ".join(group_label_text(g) for g in result.groups)
    caption = (
        "Empirical CDF of each group's scores; the black segment marks where two "
        "groups' CDFs are furthest apart (MCDP(0)), the dotted line its score."
    )
    if display.xscale_ == "logit":
        caption += _SCALE_NOTE
    n_groups = len(display.lines_)
    caption += _faded_note(display, pair)
    scale = " on a logit score axis" if display.xscale_ == "logit" else ""
    return {
        "title": "Group score CDFs",
        "caption": caption,
        "alt": (
            f"Step plot of the empirical score CDF of each of the {n_groups} "
            f"groups{scale}; MCDP(0) = {result.value:.4f} between {pair} at "
            f"score {result.threshold:.3g}.{_faded_alt(display)}"
        ),
    }


def _faded_alt(display):
    """Which groups the CDF plot colours and names when it fades the others."""
    n_groups, n_coloured = len(display.lines_), len(display.highlighted_)
    if n_coloured >= n_groups:
        return ""
    names = ", ".join(group_label_text(g) for g in display.highlighted_)
    return (
        f" Coloured and named in the legend: {names}; the other "
        f"{n_groups - n_coloured} groups are faded grey, unnamed."
    )


def mcdp_curve_figure(report, ax, context):
    """MCDP(ε) over ε, with MCDP(0) and the report's MCDP(ε) marked on it."""
    from ..plotting import MCDPCurveDisplay

    if report.settings.score_type == "margin":
        return {
            "title": "MCDP(ε) over ε",
            "caption": "",
            "note": "MCDP(ε) with ε > 0 needs scores in [0, 1]; these are margins.",
        }

    n_points = 41 if report.n_samples <= 200_000 else 11
    grid = np.round(np.linspace(0, 0.2, n_points), 10)
    epsilons = np.union1d(grid, [report.epsilon])
    display = MCDPCurveDisplay.from_predictions(
        None, context["scores"], epsilons=epsilons, ax=ax, **context["common"]
    )
    values = display.curves["MCDP(ε)"]
    color = display.lines_["MCDP(ε)"].get_color()
    marked = {}
    for eps in (0.0, report.epsilon):
        value = float(values[np.searchsorted(epsilons, eps)])
        marked[eps] = value
        ax.plot([eps], [value], "o", color=color, markersize=7, zorder=4)
        # MCDP(ε) decreases with ε: above and right of the point is clear
        _note(ax, f"MCDP({eps:g}) = {value:.4f}", (eps, value), dy=8)
    ax.set_ylim(top=1.2 * max(float(np.max(values)), 1e-3))
    eps = report.epsilon
    return {
        "title": "MCDP(ε) over ε",
        "caption": (
            "How the local disparity depends on the neighbourhood radius ε "
            "(ε = 0: the largest CDF gap); the circles are the values in the "
            "metrics table."
        ),
        "alt": (
            f"Line plot of MCDP(ε) for ε from 0 to {epsilons[-1]:g}; "
            f"MCDP(0) = {marked[0.0]:.4f} and MCDP({eps:g}) = {marked[eps]:.4f}."
        ),
    }


def threshold_disparity_figure(report, ax, context):
    """ΔDP over thresholds t, with MCDP(0) and the audit's threshold marked."""
    from ..plotting import ThresholdDisparityDisplay

    scores, t = context["scores"], report.threshold
    thresholds = None
    if np.unique(scores).shape[0] > _EXACT_CURVE_UP_TO:
        thresholds = np.union1d(np.linspace(0, 1, 1001), [t])
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, thresholds=thresholds, ax=ax, **context["common"]
    )
    _include_x(ax, t)
    # the drawn curve's value at t (steps-pre: that of the next grid point)
    value = float(display.disparity[np.searchsorted(display.thresholds, t)])
    ax.axvline(t, color="0.4", linestyle="--", linewidth=1)
    ax.plot([t], [value], "s", color="0.2", markersize=6, zorder=4)
    # below the curve: the Display's MCDP(0) note sits above it
    _note(ax, f"{_DISPARITY} at t = {t:g}: {value:.4f}", (t, value), dy=-14)
    caption = (
        "The gap in positive rate between groups, ΔDP, for every decision "
        "threshold t; the circle is its maximum, MCDP(0), the square the "
        f"audit's threshold {t:g} (dashed)."
    )
    if display.xscale_ == "logit":
        caption += _SCALE_NOTE
    return {
        "title": "Disparity over decision thresholds",
        "caption": caption,
        "alt": (
            "Step plot of the gap in positive rate between groups, ΔDP, at "
            f"every decision threshold t; its maximum MCDP(0) = "
            f"{display.mcdp_value:.4f} is reached from t = "
            f"{display.peak_threshold:.3g}; at the audit's threshold {t:g}, "
            f"ΔDP = {value:.4f}."
        ),
    }


def tradeoff_figure(report, ax, context):
    """Performance against ΔDP over thresholds, with the report's recommendation.

    The candidates are the trade-off's; the excluded ones, the star (the
    recommended threshold, if any) and the square (the audit's threshold)
    are the report's (:class:`ThresholdAdvice`), as its tables say.
    """
    title = "Performance–fairness trade-off over thresholds"
    advice = report.advice
    if advice is None:
        return {"title": title, "caption": "", "note": "Needs true labels (y_true)."}
    name = advice.performance.replace("_", " ")
    share = f"{100 * advice.tolerance:g}%"
    caption = (
        f"Each point is a decision threshold t (no error bars: one model, one test "
        f"set): {name} against the gap in positive rate ΔDP at t. Grey crosses "
        "are thresholds at which some group with both outcomes has a positive "
        f"rate of 0 or 1, never recommended; the square is the audit's threshold, "
        f"the star (if any) a threshold with a smaller gap within {share} of the "
        f"best {name}."
    )
    display = _advice_display(report, ax, name)
    current, rec = advice.current, advice.recommended
    thresholds = report.tradeoff.candidates["threshold"]
    if rec is None:
        pick = f"no threshold improves on the audit's {current.threshold:g}"
    else:
        pick = (
            f"recommended t = {rec.threshold:.3g} ({name} {rec.performance:.4f}, "
            f"ΔDP {rec.delta_dp:.4f})"
        )
    return {
        "title": title,
        "caption": caption,
        "alt": (
            f"Scatter plot of {name} against ΔDP for {len(thresholds)} candidate "
            f"thresholds; the audit's t = {current.threshold:g} has {name} "
            f"{current.performance:.4f} and ΔDP {current.delta_dp:.4f}; {pick}; "
            f"{_excluded_alt(int(np.sum(display.excluded)), len(thresholds))}."
        ),
    }


def _advice_display(report, ax, name):
    """The trade-off's candidates with the report's exclusions, pick and square."""
    from ..plotting import FairnessTradeoffDisplay

    advice = report.advice
    table = report.tradeoff.candidates
    thresholds = table["threshold"].to_numpy()
    rec = advice.recommended
    selected = (
        None if rec is None else int(np.flatnonzero(thresholds == rec.threshold)[0])
    )
    floor = None
    if advice.best is not None:
        floor = tolerance_floor(advice.best.performance, advice.tolerance)
    display = FairnessTradeoffDisplay(
        performance=table["performance"].to_numpy(dtype=np.float64),
        unfairness=table["delta_dp"].to_numpy(dtype=np.float64),
        candidate_names=[f"t = {t:.3g}" for t in thresholds],
        selected=selected,
        tolerance_floor=floor,
        tolerance=advice.tolerance,
        performance_name=name,
        fairness_name=_DISPARITY,
        excluded=np.asarray(advice.excluded, dtype=bool),
        pick_label="recommended threshold",
    ).plot(ax=ax)
    current = advice.current
    ax.plot(
        [current.performance],
        [current.delta_dp],
        marker="s",
        color="0.15",
        linestyle="",
        markersize=8,
        zorder=5,
        label="the audit's threshold",
    )
    if display.excluded_marker_ is not None:  # the report's rule, not the Display's
        display.excluded_marker_.set_label(
            "excluded: a group with both outcomes all selected or none"
        )
    front = display.pareto_line_
    if front is not None and len(front.get_xdata()) < 2:
        # a front of one candidate draws no line: the legend must not list it
        front.set_label("_nolegend_")
    ax.legend(  # as the Display's, with the square
        loc="lower center",
        bbox_to_anchor=(0.5, 1.02),
        ncols=2,
        fontsize="small",
        borderaxespad=0.0,
    )
    _note(
        ax,
        f"t = {current.threshold:g} (the audit's)",
        (current.performance, current.delta_dp),
        dy=-14,
    )
    return display


def _note(ax, text, xy, *, dy):
    """A boxed note ``dy`` points above ``xy`` (below if negative), roomier side.

    Below a point in the lowest fifth of the axes the note would cover the
    tick labels: it goes above instead.
    """
    display = ax.transData.transform(xy)
    right, up = ax.transAxes.inverted().transform(display)
    right = right < 0.6
    if dy < 0 and up < 0.2:
        dy = -dy
    ax.annotate(
        text,
        xy=xy,
        xytext=(8 if right else -8, dy),
        textcoords="offset points",
        ha="left" if right else "right",
        va="bottom" if dy >= 0 else "top",
        fontsize="small",
        bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.9},
        zorder=5,
    )


def _include_x(ax, x):
    """Widen the x limits (on the axis's own scale) so that ``x`` is shown."""
    left, right = ax.get_xlim()
    if left <= x <= right:
        return
    scale = ax.xaxis.get_transform()
    a, b = scale.transform([left, right])
    c = float(scale.transform([x])[0])
    pad = 0.04 * (max(b, c) - min(a, c))
    low, high = (c - pad, b) if c < a else (a, c + pad)
    ax.set_xlim(*scale.inverted().transform([low, high]))


# -- a regressor's figures ------------------------------------------------------------
#: Why the residuals figure is not drawn with survey weights.
SURVEY_NO_BOXES = (
    "Not drawn with survey weights: a box plot's quartiles and whiskers are "
    "of the rows, not of the people they stand for; the group table gives "
    "each group's weighted bias, MAE and RMSE with their intervals."
)
#: Groups drawn in the residuals figure (the largest ones).
MAX_BOXES = 20


def prediction_cdf_figure(report, ax, context):
    """Each group's prediction CDF (target units), with where MCDP(0) is."""
    from ..plotting import GroupCDFDisplay

    display = GroupCDFDisplay.from_predictions(
        None,
        context["scores"],
        ax=ax,
        max_points=2000,
        xscale="linear",
        **context["common"],
    )
    ax.set_xlabel("prediction (the target's units)")
    ax.set_ylabel(r"empirical CDF  $P(\mathrm{prediction} \leq t \mid \mathrm{group})$")
    result = display.mcdp_result
    pair = " and ".join(group_label_text(g) for g in result.groups)
    caption = (
        "Empirical CDF of each group's predictions; the black segment marks where "
        "two groups' CDFs are furthest apart (MCDP(0), the Kolmogorov–Smirnov "
        "statistic), the dotted line that prediction."
    )
    n_groups = len(display.lines_)
    caption += _faded_note(display, pair)
    return {
        "title": "Group prediction CDFs",
        "caption": caption,
        "alt": (
            f"Step plot of the empirical CDF of the predictions of each of the "
            f"{n_groups} groups; MCDP(0) = {result.value:.4f} between {pair} at "
            f"the prediction {result.threshold:.4g}."
        ),
    }


def residuals_figure(report, ax, context):
    """Box plots of the residuals (prediction − truth) of each group."""
    title = "Residuals by group"
    if context["y"] is None:
        return {"title": title, "caption": "", "note": "Needs true values (y_true)."}
    if report.inputs.weights is not None:
        return {"title": title, "caption": "", "note": SURVEY_NO_BOXES}
    facts = report.headline.regression
    grouping = report.groups[report.groups["grouping"] == facts.grouping]
    codes, labels = _grouping_codes(report, facts.grouping)
    residuals = context["scores"] - context["y"]
    sizes = grouping["size"].to_numpy()
    order = np.sort(np.argsort(-sizes, kind="stable")[:MAX_BOXES])[::-1]
    code = {text: k for k, text in enumerate(labels)}
    groups = grouping["group"].to_numpy()
    data = [residuals[codes == code[groups[k]]] for k in order]  # table order
    # matplotlib 3.10 names the orientation; vert=False is deprecated there
    horizontal = (
        {"orientation": "horizontal"}
        if "orientation" in inspect.signature(ax.boxplot).parameters
        else {"vert": False}
    )
    ax.boxplot(data, widths=0.6, flierprops={"markersize": 2}, **horizontal)
    names = [f"{groups[k]} (n={int(sizes[k]):,})" for k in order]
    ax.set_yticks(np.arange(1, len(order) + 1), names, fontsize="small")
    ax.axvline(0.0, color="0.3", linestyle="--", linewidth=1)
    ax.set_xlabel("residual = prediction − true value (the target's units)")
    ax.set_title(facts.grouping, fontsize="small")
    shown = len(order)
    caption = (
        "Each group's residuals: the box spans the middle half, the line is the "
        "median, the whiskers reach 1.5 box lengths, dots beyond are single "
        "people; right of the dashed line the model over-predicts."
    )
    if shown < len(grouping):
        caption += f" The {shown} largest of {len(grouping)} groups are drawn."
    drawn = {str(groups[k]) for k in order}
    lowest, highest = facts.bias.lowest, facts.bias.highest
    alt = (
        f"Horizontal box plots of the residuals of {shown} groups of "
        f"{facts.grouping}, top to bottom: "
        f"{', '.join(str(groups[k]) for k in order[::-1])}."
    )
    if {str(lowest.group), str(highest.group)} <= drawn:
        alt += (
            f" Mean residuals from {lowest.value:.4g} ({lowest.group}) to "
            f"{highest.value:.4g} ({highest.group})."
        )
    else:  # name the extremes, saying which are not drawn
        ends = [
            f"{which} {end.value:.4g} ({end.group}"
            + ("" if str(end.group) in drawn else ", not drawn")
            + ")"
            for which, end in (("lowest", lowest), ("highest", highest))
        ]
        alt += f" Mean residuals of all {len(grouping)} groups: {'; '.join(ends)}."
    return {"title": title, "caption": caption, "alt": alt}


def _grouping_codes(report, name):
    """Each row's code in the compared grouping ``name`` and the groups' texts."""
    from ..utils import sensitive_groupings

    common = report.group_arguments()
    for grouping in sensitive_groupings(
        common["sensitive_features"],
        n_samples=report.n_samples,
        combine=common["combine"],
        min_group_size=common["min_group_size"],
    ):
        if grouping.name == name:
            return grouping.codes, [group_label_text(g) for g in grouping.labels]
    raise ValueError(f"no grouping named {name!r}")  # pragma: no cover


#: The figures of each task, in order, and whether each is full-width.
FIGURES = {
    "binary": (
        (group_cdf_figure, True),
        (mcdp_curve_figure, False),
        (threshold_disparity_figure, False),
        (tradeoff_figure, False),
    ),
    "regression": ((prediction_cdf_figure, True), (residuals_figure, True)),
    "multiclass": ((class_cdf_figure, True), (selection_heatmap_figure, True)),
}


def _excluded_alt(n_excluded, n_thresholds):
    """How many thresholds the trade-off figure draws as grey crosses."""
    if n_excluded == n_thresholds:
        return f"all {n_thresholds} are excluded (grey crosses), none is a candidate"
    return f"{n_excluded} thresholds are excluded (grey crosses)"
