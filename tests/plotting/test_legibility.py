"""Figures stay readable: score-axis scale, many groups, markers, labels."""

import numpy as np
import pytest

from skfair.metrics import delta_dp, mcdp
from skfair.model_selection import threshold_tradeoff
from skfair.plotting import (
    FairnessTradeoffDisplay,
    GroupCDFDisplay,
    ThresholdDisparityDisplay,
)
from skfair.plotting._base import XSCALE_ERROR, resolve_xscale, score_limits


def _near_zero(n_per_group=300, seed=0):
    """Two groups whose scores sit near 0, as most credit/income models'."""
    rng = np.random.default_rng(seed)
    group = np.repeat(["a", "b"], n_per_group)
    scores = np.r_[rng.beta(1, 40, n_per_group), rng.beta(1, 15, n_per_group)]
    return scores, group


def _many_groups(n_groups=24, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(30, 120, n_groups)
    group = np.repeat([f"group number {k:02d}" for k in range(n_groups)], sizes)
    shift = np.repeat(rng.normal(0, 0.6, n_groups), sizes)
    scores = 1 / (1 + np.exp(-(rng.normal(size=group.size) + shift)))
    return scores, group, dict(zip(np.unique(group), sizes))


def _step_post_at(line, t):
    """Value of a drawn steps-post line at t (that of the last x <= t)."""
    x, y = line.get_xdata(), line.get_ydata()
    return y[np.searchsorted(x, t, side="right") - 1]


@pytest.mark.parametrize("cls", [GroupCDFDisplay, ThresholdDisparityDisplay])
def test_auto_scale_is_logit_for_scores_near_zero(cls):
    scores, group = _near_zero()
    display = cls.from_predictions(None, scores, sensitive_features=group)
    assert display.xscale_ == "logit"
    assert display.ax_.get_xscale() == "logit"
    assert "logit scale" in display.ax_.get_xlabel()
    left, right = display.ax_.get_xlim()
    # the axis spans the scores, not [0, 1]: the mass is in view
    low, high = np.quantile(scores, [0.005, 0.995])
    assert 0 < left < low and high < right < 0.5


@pytest.mark.parametrize("cls", [GroupCDFDisplay, ThresholdDisparityDisplay])
def test_auto_scale_is_linear_for_spread_scores(cls):
    rng = np.random.default_rng(1)
    scores, group = rng.random(400), np.repeat([0, 1], 200)
    display = cls.from_predictions(None, scores, sensitive_features=group)
    assert display.xscale_ == "linear"
    assert display.ax_.get_xscale() == "linear"
    assert "scale" not in display.ax_.get_xlabel()
    assert display.ax_.get_xlim() == (0.0, 1.0)


@pytest.mark.parametrize("heavy", ["extreme", "central"])
def test_auto_scale_reads_sample_weight_in_both_displays(heavy):
    # a third of each group's scores near 0: the weights decide whether most
    # of the mass is extreme, and both Displays must read them alike
    rng = np.random.default_rng(2)
    group = np.repeat([0, 1], 300)
    near_zero = np.tile(np.arange(300) < 100, 2)
    scores = np.where(near_zero, rng.uniform(0.001, 0.05, 600), rng.random(600))
    heavy_rows = near_zero if heavy == "extreme" else ~near_zero
    weights = np.where(heavy_rows, 10.0, 1.0)
    kwargs = {"sensitive_features": group, "sample_weight": weights}
    cdf = GroupCDFDisplay.from_predictions(None, scores, **kwargs)
    disparity = ThresholdDisparityDisplay.from_predictions(None, scores, **kwargs)
    assert cdf.xscale_ == disparity.xscale_
    assert cdf.xscale_ == ("logit" if heavy == "extreme" else "linear")


@pytest.mark.parametrize("cls", [GroupCDFDisplay, ThresholdDisparityDisplay])
def test_auto_scale_is_linear_for_scores_outside_the_unit_interval(cls):
    # log-odds concentrated near 0: extreme by the [0.1, 0.9] rule, yet a
    # logit axis cannot draw them
    rng = np.random.default_rng(3)
    scores, group = rng.normal(0.0, 0.03, 400), np.repeat([0, 1], 200)
    display = cls.from_predictions(None, scores, sensitive_features=group)
    assert display.xscale_ == "linear"
    left, right = display.ax_.get_xlim()
    assert left < scores.min() and scores.max() < right


@pytest.mark.parametrize("cls", [GroupCDFDisplay, ThresholdDisparityDisplay])
@pytest.mark.parametrize("xscale", ["linear", "log", "logit"])
def test_scale_is_overridable(cls, xscale):
    scores, group = _near_zero()
    display = cls.from_predictions(
        None, scores, sensitive_features=group, xscale=xscale
    )
    assert display.xscale_ == xscale
    assert display.ax_.get_xscale() == xscale
    assert (xscale == "linear") == ("scale" not in display.ax_.get_xlabel())
    display.figure_.canvas.draw()  # the scale renders


def test_scale_errors():
    scores, group = _near_zero()
    with pytest.raises(ValueError, match="xscale must be"):
        GroupCDFDisplay.from_predictions(
            None, scores, sensitive_features=group, xscale="symlog"
        )
    assert "xscale" in XSCALE_ERROR
    with pytest.raises(ValueError, match="xscale='logit' needs scores in"):
        ThresholdDisparityDisplay.from_predictions(
            None, scores - 0.5, sensitive_features=group, xscale="logit"
        )
    # decision-function scores: auto stays linear
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores - 0.5, sensitive_features=group
    )
    assert display.xscale_ == "linear"


def test_a_logit_axis_ignores_outlying_scores():
    rng = np.random.default_rng(2)
    values = np.r_[rng.uniform(0.001, 0.05, 5000), 1 - 1e-16, 1e-300]
    left, right = score_limits("logit", values)
    assert 1e-6 < left < 0.001 and 0.05 < right < 0.1


def test_scores_of_exactly_zero_and_one_on_a_logit_axis():
    values = np.array([0.0, 0.0, 0.001, 0.01, 0.02, 1.0])
    assert resolve_xscale("auto", values, share=0.9) == "logit"
    left, right = score_limits("logit", values)
    assert 0 < left < 0.001 and 0.02 < right < 1
    scores = np.r_[np.zeros(50), np.full(50, 0.01), np.zeros(30), np.full(70, 0.02)]
    group = np.repeat([0, 1], 100)
    display = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=group)
    assert display.xscale_ == "logit"
    for line in display.lines_.values():  # the zeros are drawn at the edge
        assert np.isfinite(line.get_xdata()).all()
        assert line.get_xdata().min() == display.ax_.get_xlim()[0]


def test_many_groups_top_k_highlighted_and_legend_outside():
    scores, group, sizes = _many_groups()
    display = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=group)
    worst = display.mcdp_result.groups
    assert len(display.highlighted_) == 10
    assert set(worst) <= set(display.highlighted_)
    others = [g for g in display.highlighted_ if g not in worst]
    rest = [g for g in sizes if g not in display.highlighted_]
    assert min(sizes[g] for g in others) >= max(sizes[g] for g in rest)
    for label, line in display.lines_.items():
        faded = label not in display.highlighted_
        assert (line.get_color() == "0.6") == faded
    legend = display.ax_.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert len(texts) == 11
    assert texts.count("other 14 groups (faded)") == 1
    # the legend is beside the axes and inside the figure: nothing is clipped
    fig = display.figure_
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box, axes_box = legend.get_window_extent(renderer), display.ax_.get_window_extent()
    assert box.x0 >= axes_box.x1
    assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)


def test_highlight_parameter():
    scores, group, _ = _many_groups(n_groups=12)
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, highlight=3
    )
    assert len(display.highlighted_) == 3
    assert set(display.mcdp_result.groups) <= set(display.highlighted_)
    chosen = ["group number 05"]
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, highlight=chosen
    )
    assert set(display.highlighted_) == set(chosen) | set(display.mcdp_result.groups)
    few = GroupCDFDisplay.from_predictions(
        None,
        scores[group < "group number 04"],
        sensitive_features=group[group < "group number 04"],
    )
    assert len(few.highlighted_) == 4  # up to ten groups: every group coloured


def test_gap_marker_sits_on_both_thinned_curves():
    scores, group = _near_zero(n_per_group=3000, seed=3)
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, max_points=20, xscale="linear"
    )
    t = display.gap_line_.get_xdata()[0]
    ends = sorted(display.gap_line_.get_ydata())
    drawn = sorted(_step_post_at(display.lines_[g], t) for g in ("a", "b"))
    assert drawn == ends
    assert ends[1] - ends[0] == pytest.approx(display.mcdp_result.value, abs=1e-12)


@pytest.mark.parametrize("thresholds", [None, np.linspace(0, 1, 11)])
def test_peak_marker_sits_on_the_curve(thresholds):
    rng = np.random.default_rng(4)
    scores, group = rng.random(600).round(3), np.repeat([0, 1, 2], 200)
    scores[group == 1] **= 2
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group, thresholds=thresholds
    )
    (mx,), (my,) = display.peak_marker_.get_data()
    x, y = display.line_.get_data()
    assert np.any((x == mx) & (y == my))  # a vertex of the drawn line
    assert my == pytest.approx(mcdp(None, scores, sensitive_features=group), abs=1e-12)
    assert my == delta_dp(None, scores, sensitive_features=group, threshold=mx)
    # the annotation's box is above the axes' bottom and inside the figure
    display.figure_.canvas.draw()
    box = display.annotation_.get_window_extent()
    assert display.figure_.bbox.contains(box.x0, box.y0)
    assert display.figure_.bbox.contains(box.x1, box.y1)


def test_mathtext_labels():
    scores, group = _near_zero()
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group
    )
    assert r"$\Delta DP_b^t$" in display.ax_.get_ylabel()
    assert display.line_.get_label() == r"$\Delta DP_b^t$"
    assert "ΔDP" not in display.ax_.get_ylabel()
    cdf = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=group)
    assert "$" in cdf.ax_.get_ylabel()
    display.figure_.canvas.draw()  # mathtext parses
    cdf.figure_.canvas.draw()


def test_tradeoff_thresholds_never_picks_a_trivial_threshold():
    rng = np.random.default_rng(5)
    n = 3000
    group = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.03 + 0.03 * group).astype(int)  # base rate <= 6%
    score = 1 / (1 + np.exp(-(rng.normal(-3.5, 1, n) + 2 * y + group)))
    display = FairnessTradeoffDisplay.from_threshold_tradeoff(
        threshold_tradeoff(y, score, sensitive_features=group)
    )
    result = display.tradeoff_
    assert result.performance == "balanced_accuracy"
    assert display.excluded.any() and not display.excluded[display.selected]
    rates = result.positive_rate.values()
    assert 0 < min(rates) <= max(rates) < 1
    assert display.performance_name == "balanced accuracy"
    assert display.ax_.get_ylabel() == r"$\Delta DP_b^t$ (lower is fairer)"
    texts = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert "recommended threshold" in texts
    assert "excluded: a group's positive rate is 0 or 1" in texts
    # excluded thresholds are not on the Pareto front
    assert not (display.pareto_mask_ & display.excluded).any()
    fig = display.figure_
    fig.canvas.draw()
    legend = display.ax_.get_legend().get_window_extent()
    assert legend.y0 >= display.ax_.get_window_extent().y1  # above the points
    assert fig.bbox.contains(legend.x0, legend.y0)
    assert fig.bbox.contains(legend.x1, legend.y1)


def test_a_peak_below_the_logit_axis_start_stays_on_its_curve():
    # 12 scores of group a below 0.0006 and 4000 of b from beta(2, 40): the
    # central 99% of the scores start at 0.0012, but MCDP(0) is reached from
    # t = 0.0007. The axis is widened: the marker is on the curve, not
    # clipped to the edge.
    rng = np.random.default_rng(0)
    scores = np.r_[rng.uniform(0.0002, 0.0006, 12), rng.beta(2, 40, 4000)]
    group = np.repeat(["a", "b"], [12, 4000])
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group, min_group_size=1
    )
    assert display.xscale_ == "logit"
    inner = display.thresholds[1:-1]
    assert display.peak_threshold < score_limits("logit", inner)[0]
    left, right = display.ax_.get_xlim()
    (mx,), (my,) = display.peak_marker_.get_data()
    assert mx == display.peak_threshold and left < mx < right
    x, y = display.line_.get_data()
    assert np.any((x == mx) & (y == my))  # a vertex of the drawn line
    assert "beyond the axis" not in display.annotation_.get_text()


def test_legends_never_cover_the_curves_with_few_groups():
    scores, group = _near_zero()
    display = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=group)
    fig = display.figure_
    fig.canvas.draw()
    legend = display.ax_.get_legend().get_window_extent()
    assert legend.x0 >= display.ax_.get_window_extent().x1  # beside the axes
    assert fig.bbox.contains(legend.x1, legend.y1)
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group
    )
    display.figure_.canvas.draw()
    legend = display.ax_.get_legend().get_window_extent()
    x, y = display.line_.get_data()
    points = display.ax_.transData.transform(np.column_stack([x, y]))
    inside = (
        (points[:, 0] > legend.x0)
        & (points[:, 0] < legend.x1)
        & (points[:, 1] > legend.y0)
        & (points[:, 1] < legend.y1)
    )
    assert not inside.any()


def test_intersection_labels_with_the_separator_are_quoted_in_legends():
    import pandas as pd

    rng = np.random.default_rng(1)
    frame = {
        "sex": np.repeat(["F", "M"], 100),
        "race": np.tile(["Pacific & Other", "White"], 100),
    }
    display = GroupCDFDisplay.from_predictions(
        None, rng.random(200), sensitive_features=pd.DataFrame(frame)
    )
    texts = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert 'F & "Pacific & Other" (n=50)' in texts
