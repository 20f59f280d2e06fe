"""The report's figures, drawn by :mod:`skfair.plotting` (matplotlib).

Imported only when figures are drawn; :mod:`skfair.plotting` is the only
place that imports matplotlib.
"""

from __future__ import annotations

import io

import numpy as np

from ..metrics import delta_dp
from ._common import AUDIT_DASK_FIGURES_ERROR

# The fairness axis of the trade-off figure (a cv_results key, shown as label).
_TRADEOFF_KEY = "ΔDP_b^t"


def draw_figures(report):
    """The four figures as PNG bytes (see :meth:`AuditReport.figures`)."""
    from ..plotting import (
        FairnessTradeoffDisplay,
        GroupCDFDisplay,
        MCDPCurveDisplay,
        ThresholdDisparityDisplay,
        check_matplotlib_support,  # the one matplotlib guard
    )

    if report._data is None:
        raise ValueError(AUDIT_DASK_FIGURES_ERROR)
    plt = check_matplotlib_support("AuditReport.figures")
    scores, sensitive, y = report._data
    common = {"sensitive_features": sensitive, "combine": report.combine}
    n_distinct = np.unique(scores).shape[0]
    out = []

    def render(title, caption, draw, wide=False):
        size = (9.0, 4.8) if wide else (6.4, 4.2)
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        try:
            draw(ax)
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=110)
        finally:
            plt.close(fig)
        out.append(
            {"title": title, "caption": caption, "png": buffer.getvalue(), "wide": wide}
        )

    render(
        "Group score CDFs",
        "Empirical CDF of each group's scores; the marker shows where the CDF "
        "gap is largest (MCDP(0)) and which groups realise it.",
        lambda ax: GroupCDFDisplay.from_predictions(
            None, scores, ax=ax, max_points=2000, **common
        ),
        wide=True,
    )
    epsilons = np.linspace(0, 0.2, 41 if report.n_samples <= 200_000 else 11)
    render(
        "MCDP(ε) over ε",
        "How the local disparity depends on the neighbourhood radius ε "
        "(ε = 0: the largest CDF gap).",
        lambda ax: MCDPCurveDisplay.from_predictions(
            None, scores, epsilons=epsilons, ax=ax, **common
        ),
    )
    thresholds = None if n_distinct <= 20_000 else np.linspace(0, 1, 1001)

    def disparity(ax):
        ThresholdDisparityDisplay.from_predictions(
            None, scores, thresholds=thresholds, ax=ax, **common
        )
        ax.axvline(report.threshold, color="0.4", linestyle=":", linewidth=1)

    render(
        "Disparity over decision thresholds",
        f"ΔDP_b^t (gap in positive rate) for every threshold t; the dotted "
        f"line is the audit's threshold {report.threshold:g}.",
        disparity,
    )
    title = "Accuracy–fairness trade-off over thresholds"
    caption = (
        "Each point is a decision threshold t (no error bars: one model, one "
        "test set): accuracy against ΔDP_b^t; the star is the fairest "
        "threshold within 95% of the best accuracy."
    )
    if y is None:
        out.append(
            {"title": title, "caption": caption, "note": "Needs true labels (y_true)."}
        )
        return out
    grid = np.unique(np.r_[np.round(np.linspace(0.05, 0.95, 19), 2), report.threshold])
    cv_results = _threshold_candidates(scores, sensitive, y, grid, report.combine)
    render(
        title,
        caption,
        lambda ax: FairnessTradeoffDisplay.from_cv_results(
            cv_results, fairness=_TRADEOFF_KEY, performance="accuracy", ax=ax
        ),
    )
    return out


def _threshold_candidates(scores, sensitive, y, grid, combine):
    """cv_results-like dict: each threshold a candidate (accuracy, -ΔDP_b^t)."""
    accuracy = [float(np.mean((scores >= t) == (y == 1))) for t in grid]
    gaps = [
        delta_dp(
            None,
            scores,
            sensitive_features=sensitive,
            threshold=float(t),
            combine=combine,
        )
        for t in grid
    ]
    return {
        "params": [{"t": float(t)} for t in grid],
        "mean_test_accuracy": np.array(accuracy),
        f"mean_test_{_TRADEOFF_KEY}": -np.array(gaps),
    }
