"""Fairness-aware model selection and the comparison harness."""

from ._compare import compare_estimators
from ._hfm_paper import hfm_paper_learners, hfm_paper_scoring, make_hfm_encoder
from ._selection import fairest_within
from ._threshold_tradeoff import ThresholdTradeoff, threshold_tradeoff

__all__ = [
    "ThresholdTradeoff",
    "compare_estimators",
    "fairest_within",
    "hfm_paper_learners",
    "hfm_paper_scoring",
    "make_hfm_encoder",
    "threshold_tradeoff",
]
