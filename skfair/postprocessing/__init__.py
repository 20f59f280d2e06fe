"""Post-processors that repair a classifier's scores or a regressor's predictions."""

from ._optimal import OptimalParityClassifier
from ._threshold_invariant import ThresholdInvariantClassifier
from ._threshold_invariant_regressor import ThresholdInvariantRegressor

__all__ = [
    "OptimalParityClassifier",
    "ThresholdInvariantClassifier",
    "ThresholdInvariantRegressor",
]
