"""The audit report's figures show the tables' groups and values."""

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

from skfair import audit
from skfair.report._figures import (
    group_cdf_figure,
    mcdp_curve_figure,
    threshold_disparity_figure,
)


@pytest.fixture(scope="module")
def report():
    """Two large groups and two tiny ones left out by ``min_group_size``.

    The tiny groups are the most different (one sample at 0.99, one at
    0.01): were they drawn, the figures would say MCDP(0) = 1.
    """
    rng = np.random.default_rng(0)
    groups = np.repeat(["A", "B", "tiny", "single"], [300, 250, 5, 1])
    scores = np.r_[rng.beta(1, 20, 300), rng.beta(1, 8, 250), [0.99] * 5, [0.001]]
    y = (rng.random(scores.size) < scores).astype(int)
    return audit(
        y,
        scores,
        sensitive_features=groups,
        min_group_size=10,
        n_resamples=9,
        n_permutations=9,
    )


def _number(pattern, text):
    return float(re.search(pattern, text)[1])


def _texts(ax):
    return "\n".join(t.get_text() for t in ax.texts)


def _draw(draw, report):
    from skfair.report._figures import figure_context

    _, ax = plt.subplots()
    return draw(report, ax, figure_context(report)), ax


def test_figures_annotate_the_tables_values_under_min_group_size(report):
    assert {g for _, g, _ in report.left_out} == {"tiny", "single"}
    mcdp0 = report.metrics.loc["mcdp", "value"]
    eps = report.epsilon
    mcdp_eps = report.metrics.loc[f"mcdp@{eps:g}", "value"]
    gap_t = report.metrics.loc[f"delta_dp@{report.threshold:g}", "value"]
    assert mcdp0 < 1  # the left-out pair would give 1

    figure, ax = _draw(group_cdf_figure, report)
    assert _number(r"MCDP\(0\) = (\d+\.\d+)", figure["alt"]) == round(mcdp0, 4)
    assert _number(r"MCDP\(0\) = (\d+\.\d+)", _texts(ax)) == pytest.approx(
        mcdp0, abs=5e-5
    )
    assert "tiny" not in figure["alt"] and "between A and B" in figure["alt"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["A (n=300)", "B (n=250)"]

    figure, ax = _draw(mcdp_curve_figure, report)
    assert _number(r"MCDP\(0\) = (\d+\.\d+)", figure["alt"]) == round(mcdp0, 4)
    pattern = rf"MCDP\({eps:g}\) = (\d+\.\d+)"
    assert _number(pattern, figure["alt"]) == round(mcdp_eps, 4)
    assert _number(pattern, _texts(ax)) == round(mcdp_eps, 4)

    figure, ax = _draw(threshold_disparity_figure, report)
    assert _number(r"MCDP\(0\) = (\d+\.\d+)", figure["alt"]) == round(mcdp0, 4)
    assert _number(r"ΔDP = (\d+\.\d+)", figure["alt"]) == round(gap_t, 4)
    assert _number(r"MCDP\(0\) = (\d+\.\d+)", _texts(ax)) == pytest.approx(
        mcdp0, abs=5e-5
    )
    assert _number(r": (\d+\.\d+)$", _texts(ax)) == round(gap_t, 4)


def test_alt_texts_in_the_html(report):
    figures = report.figures()
    assert [f["title"] for f in figures if "png" in f] == [f["title"] for f in figures]
    html = report.to_html()
    for figure in figures:
        assert figure["alt"] and figure["alt"] != figure["title"]
        alt = figure["alt"].replace("'", "&#x27;")
        assert f'alt="{alt}"' in html
    tradeoff = report.to_dict()["tradeoff"]
    if tradeoff["threshold"] is None:
        assert "no threshold improves on the audit's 0.5" in figures[3]["alt"]
    else:
        assert f"recommended t = {tradeoff['threshold']:.3g}" in figures[3]["alt"]


def test_scores_near_zero_are_drawn_on_a_logit_axis(report):
    # most scores of A and B are below 0.1: both score axes say so
    for draw in (group_cdf_figure, threshold_disparity_figure):
        figure, ax = _draw(draw, report)
        assert ax.get_xscale() == "logit"
        assert "logit scale" in ax.get_xlabel()
        assert "logit scale" in figure["caption"]
        left, right = ax.get_xlim()
        assert left <= report.threshold <= right  # the audit's threshold shows


def test_many_groups_caption_names_the_coloured_ones():
    rng = np.random.default_rng(1)
    groups = np.repeat([f"g{k:02d}" for k in range(20)], 40)
    scores = rng.beta(2, 2 + np.repeat(np.arange(20) % 5, 40))
    report = audit(
        None, scores, sensitive_features=groups, n_resamples=9, n_permutations=9
    )
    figure, ax = _draw(group_cdf_figure, report)
    assert "the 8 largest other groups" in figure["caption"]
    assert "other 10 groups are faded grey" in figure["caption"]
    assert len(ax.get_legend().get_texts()) == 11
