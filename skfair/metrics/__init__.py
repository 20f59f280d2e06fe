"""Fairness metrics on scores and predictions, and the scorers built on them.

Distribution-level demographic parity (ΔDP, ABCC, ABPC, MCDP), the HFM
manifold measure, group gaps and discriminative risk, confidence intervals
and tests. Every metric returns a float where lower is fairer; every scorer
returns the negated metric.
"""

from ._confidence import (
    DisparityTestResult,
    MetricConfidenceInterval,
    disparity_test,
    metric_confidence_interval,
)
from ._discriminative_risk import discriminative_risk
from ._distribution import abcc, abpc, delta_dp
from ._group_gaps import (
    demographic_parity_gap,
    equal_opportunity_gap,
    predictive_quality_parity_gap,
)
from ._hfm import HFMResult, HFMUndefinedWarning, hfm, hfm_distances
from ._mcdp import MCDPResult, mcdp, mcdp_curve, mcdp_details
from ._scorer import (
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_hfm_scorer,
    make_mcdp_scorer,
)
from ._uncertainty import dkw_halfwidth

__all__ = [
    "DisparityTestResult",
    "HFMResult",
    "HFMUndefinedWarning",
    "MCDPResult",
    "MetricConfidenceInterval",
    "abcc",
    "abpc",
    "delta_dp",
    "demographic_parity_gap",
    "discriminative_risk",
    "disparity_test",
    "dkw_halfwidth",
    "equal_opportunity_gap",
    "hfm",
    "hfm_distances",
    "make_abcc_scorer",
    "make_abpc_scorer",
    "make_delta_dp_scorer",
    "make_hfm_scorer",
    "make_mcdp_scorer",
    "mcdp",
    "mcdp_curve",
    "mcdp_details",
    "metric_confidence_interval",
    "predictive_quality_parity_gap",
]
