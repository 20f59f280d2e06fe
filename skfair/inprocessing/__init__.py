"""In-processing: training with differentiable demographic-parity penalties.

The DiffMCDP, DiffDP and DiffABCC penalties of Jin et al. (ICML 2024) as plain
functions, the paper's MLP classifier trained with them, and the same
penalties inside LightGBM's gradient boosting.
"""

from ._boosting import FairLGBMClassifier
from ._mlp import FairMLPClassifier
from ._penalties import fairness_penalty

__all__ = [
    "FairLGBMClassifier",
    "FairMLPClassifier",
    "fairness_penalty",
]
