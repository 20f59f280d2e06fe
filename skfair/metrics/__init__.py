"""Fairness metrics on scores and predictions, and the scorers built on them.

Distribution-level demographic parity (ΔDP, ABCC, ABPC, MCDP), the HFM
manifold measure, group gaps and discriminative risk, confidence intervals
and tests; fairlearn's rate-parity metrics and any metric by group
(:class:`GroupMetricFrame`). Every metric returns a float where lower is
fairer (fairlearn's ``*_ratio`` metrics excepted: 1 is parity); every scorer
returns the negated metric.

Layout: the metric definitions are private modules named after their family
(``_distribution``, ``_mcdp``, ``_hfm``, ``_group_gaps``,
``_discriminative_risk``, ``_confidence``, ``_disparity_test``,
``_scorer``, ``_rates`` and ``_four_fifths`` on the confusion counts of
``_group_counts`` (per class: ``_multiclass_rates``, ``_multiclass_table``
on ``_multiclass_counts``), ``_disaggregation`` with its ``_disaggregation_*``
parts, ``_calibration_groups`` (sufficiency) and ``_standardized`` (Becker
et al.'s measures split by the group favoured)); they stand on three
private layers, each a package with an architecture note in its
``__init__``: ``_kernels`` (the sort-based machinery),
:mod:`skfair.metrics.inference` (intervals and tests on one sort) and
``_dask`` (the Dask backend of the public metrics, with its dispatcher).
Other subpackages import the private modules they need directly (privacy
ends at the package boundary); this ``__init__`` imports only ``__all__``.
"""

from ._calibration_groups import CalibrationByGroupResult, calibration_by_group
from ._confidence import MetricConfidenceInterval, metric_confidence_interval
from ._disaggregation import GroupMetricFrame
from ._discriminative_risk import discriminative_risk
from ._disparity_test import DisparityTestResult, disparity_test
from ._distribution import abcc, abpc, delta_dp
from ._four_fifths import FourFifthsResult, four_fifths
from ._group_gaps import (
    demographic_parity_gap,
    equal_opportunity_gap,
    predictive_quality_parity_gap,
)
from ._hfm import HFMResult, HFMUndefinedWarning, hfm, hfm_distances
from ._hfm_scorer import make_hfm_scorer
from ._mcdp import MCDPResult, mcdp, mcdp_curve, mcdp_details
from ._multiclass import per_class_values
from ._multiclass_rates import (
    MulticlassRateResult,
    multiclass_equalized_odds_difference,
    multiclass_false_positive_rate_difference,
    multiclass_rate_details,
    multiclass_selection_rate_difference,
    multiclass_true_positive_rate_difference,
)
from ._multiclass_table import multiclass_rate_table
from ._rate_scorers import make_rate_scorer
from ._rates import (
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_positive_rate_difference,
    false_positive_rate_ratio,
    true_positive_rate_difference,
    true_positive_rate_ratio,
)
from ._regression import (
    mean_absolute_error_difference,
    mean_residual_difference,
    root_mean_squared_error_difference,
)
from ._regression_table import regression_gap_intervals, regression_group_table
from ._scorer import (
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_mcdp_scorer,
)
from ._standardized import FavourSplit, abcc_split, abroca_split, calibration_split
from .inference import dkw_halfwidth

__all__ = [
    "CalibrationByGroupResult",
    "DisparityTestResult",
    "FavourSplit",
    "FourFifthsResult",
    "GroupMetricFrame",
    "HFMResult",
    "HFMUndefinedWarning",
    "MCDPResult",
    "MetricConfidenceInterval",
    "MulticlassRateResult",
    "abcc",
    "abcc_split",
    "abpc",
    "abroca_split",
    "calibration_by_group",
    "calibration_split",
    "delta_dp",
    "demographic_parity_difference",
    "demographic_parity_gap",
    "demographic_parity_ratio",
    "discriminative_risk",
    "disparity_test",
    "dkw_halfwidth",
    "equal_opportunity_gap",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "false_positive_rate_difference",
    "false_positive_rate_ratio",
    "four_fifths",
    "hfm",
    "hfm_distances",
    "make_abcc_scorer",
    "make_abpc_scorer",
    "make_delta_dp_scorer",
    "make_hfm_scorer",
    "make_mcdp_scorer",
    "make_rate_scorer",
    "mcdp",
    "mcdp_curve",
    "mcdp_details",
    "mean_absolute_error_difference",
    "mean_residual_difference",
    "metric_confidence_interval",
    "multiclass_equalized_odds_difference",
    "multiclass_false_positive_rate_difference",
    "multiclass_rate_details",
    "multiclass_rate_table",
    "multiclass_selection_rate_difference",
    "multiclass_true_positive_rate_difference",
    "per_class_values",
    "predictive_quality_parity_gap",
    "regression_gap_intervals",
    "regression_group_table",
    "root_mean_squared_error_difference",
    "true_positive_rate_difference",
    "true_positive_rate_ratio",
]
