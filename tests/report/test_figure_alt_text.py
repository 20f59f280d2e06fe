"""Every figure's alt text names what the figure draws (issue 36, item 9)."""

import numpy as np
import pytest

from skfair import audit

pytest.importorskip("matplotlib")
FAST = {"n_resamples": 9, "n_permutations": 19}


def test_residual_boxes_alt_text_names_exactly_the_drawn_groups():
    # 40 groups: 20 large ones are drawn; the most over-predicted group is a
    # small one, which is not drawn, and the alt text must say so
    rng = np.random.default_rng(0)
    sizes = [60] * 20 + [31] * 20
    g = np.repeat([f"g{k:02d}" for k in range(40)], sizes)
    y = rng.normal(50, 10, g.size)
    p = y + rng.normal(0, 3, g.size) + 25 * (g == "g39")
    report = audit(y, p, sensitive_features=g, **FAST)
    (box,) = [f for f in report.figures() if f["title"] == "Residuals by group"]
    drawn = {f"g{k:02d}" for k in range(20)}
    named = set(box["alt"].split("top to bottom: ", 1)[1].split(".")[0].split(", "))
    assert named == drawn
    assert "g39, not drawn" in box["alt"]
    assert "The 20 largest of 40 groups are drawn." in box["caption"]


def test_residual_boxes_alt_text_when_every_group_is_drawn():
    rng = np.random.default_rng(1)
    g = np.repeat(["a", "b", "c"], 100)
    y = rng.normal(size=300)
    p = y + 0.5 * (g == "c")
    report = audit(y, p, sensitive_features=g, **FAST)
    (box,) = [f for f in report.figures() if f["title"] == "Residuals by group"]
    assert "3 groups of" in box["alt"] and "top to bottom: a, b, c." in box["alt"]
    assert "not drawn" not in box["alt"]


@pytest.mark.parametrize("shift", [0.0, 0.3])
def test_tradeoff_legend_lists_only_what_is_drawn(shift):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skfair.report._figures import figure_context, tradeoff_figure

    rng = np.random.default_rng(2)
    g = np.repeat(["a", "b"], 300)
    y = rng.integers(0, 2, 600)
    s = np.clip(0.3 * y + rng.random(600) * 0.7 + shift * (g == "b"), 0, 1)
    report = audit(y, s, sensitive_features=g, **FAST)
    fig, ax = plt.subplots()
    try:
        tradeoff_figure(report, ax, figure_context(report))
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        lines = [line for line in ax.get_lines() if line.get_label() == "Pareto front"]
        drawn = [line for line in ax.get_lines() if len(line.get_xdata()) >= 2]
        listed = "Pareto front" in labels
        assert listed == any(line.get_linestyle() == "--" for line in drawn)
        assert all(len(line.get_xdata()) >= 2 for line in lines)
    finally:
        plt.close(fig)


def test_multiclass_segment_near_zero_is_drawn_on_a_logit_axis():
    # class "c" is almost never likely for half the groups: the largest gap
    # of its CDFs lies near 1e-5, which a linear axis squeezes to its edge
    rng = np.random.default_rng(0)
    n = 1200
    g = rng.choice([f"r{k}" for k in range(8)], n)
    classes = np.array(["a", "b", "c"])
    y = classes[rng.integers(0, 3, n)]
    logits = rng.normal(size=(n, 3))
    logits[:, 2] -= 12 * np.isin(g, ["r0", "r1", "r2", "r3"])
    p = np.exp(logits)
    p /= p.sum(1, keepdims=True)
    report = audit(y, p, sensitive_features=g, classes=list(classes), **FAST)
    (cdf,) = [f for f in report.figures() if f["title"].startswith("Group CDFs")]
    assert "class c is on a logit scale" in cdf["caption"]
    assert "class a is on" not in cdf["caption"]


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_cdf_alt_text_names_the_coloured_groups_of_many():
    # issue 36: with 45 groups the CDF plot colours 10 and fades 35; the alt
    # text said only "each of the 45 groups": it must name the legend's groups
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skfair.report._figures import figure_context, group_cdf_figure

    rng = np.random.default_rng(3)
    g = np.repeat([f"g{k:02d}" for k in range(45)], 40)
    s = np.clip(rng.beta(2, 5, g.size) + 0.2 * (g == "g07"), 0, 1)
    y = (rng.random(g.size) < s).astype(int)
    report = audit(y, s, sensitive_features=g, **FAST)
    fig, ax = plt.subplots()
    try:
        cdf = group_cdf_figure(report, ax, figure_context(report))
        legend = (
            [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else []
        )
        legend = legend or [t.get_text() for t in ax.get_legend().get_texts()]
    finally:
        plt.close(fig)
    named = cdf["alt"].split("named in the legend: ", 1)[1].split(";")[0].split(", ")
    assert len(named) == 10
    in_legend = [
        text.split(" (n=")[0] for text in legend if not text.startswith("other")
    ]
    assert sorted(named) == sorted(in_legend)
    assert "the other 35 groups are faded grey" in cdf["alt"]


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_tradeoff_legend_without_candidates_lists_no_candidate():
    # issue 36: adult-like audit where a group with both outcomes is selected
    # all or none at every threshold: all excluded, yet "candidate" was listed
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skfair.report._figures import figure_context, tradeoff_figure

    rng = np.random.default_rng(4)
    g = np.repeat(["a", "b", "c"], [300, 300, 4])
    y = np.r_[rng.integers(0, 2, 600), [0, 1, 0, 1]]
    s = np.r_[rng.random(600), [0.001, 0.001, 0.002, 0.002]]
    report = audit(y, s, sensitive_features=g, **FAST)
    fig, ax = plt.subplots()
    try:
        tradeoff_figure(report, ax, figure_context(report))
        legend = fig.legends[0] if fig.legends else ax.get_legend()
        labels = [t.get_text() for t in legend.get_texts()]
        drawn = any(len(c.get_offsets()) for c in ax.collections) or any(
            line.get_marker() == "o" and len(line.get_xdata())
            for line in ax.get_lines()
        )
        assert any(text.startswith("candidate") for text in labels) == drawn
        alt = tradeoff_figure(report, ax, figure_context(report))["alt"]
        assert ("none is a candidate" in alt) == (not drawn)
    finally:
        plt.close(fig)
