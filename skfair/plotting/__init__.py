"""Displays for fairness audits, following scikit-learn's Display API.

Each Display is built with ``from_predictions`` (scores and groups),
``from_estimator`` (a fitted classifier and data holding the sensitive
columns) or, for the trade-off plot, ``from_cv_results``,
``from_compare_table`` or ``from_threshold_tradeoff``; ``plot(ax=None)``
draws it again, and the Display keeps ``ax_``, ``figure_`` and its artists.
matplotlib (``pip install "skfair-learn[plot]"``) is imported only when a Display
draws.
"""

from ._group_cdf import GroupCDFDisplay
from ._mcdp_curve import MCDPCurveDisplay
from ._threshold_disparity import ThresholdDisparityDisplay
from ._tradeoff import FairnessTradeoffDisplay

__all__ = [
    "FairnessTradeoffDisplay",
    "GroupCDFDisplay",
    "MCDPCurveDisplay",
    "ThresholdDisparityDisplay",
]
