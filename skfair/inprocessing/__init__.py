"""In-processing: training with differentiable demographic-parity penalties.

The DiffMCDP, DiffDP and DiffABCC penalties of Jin et al. (ICML 2024) as plain
functions, the paper's MLP classifier trained with them or with its Fair
Mixup and DRAlign baselines, adversarial debiasing (its AdvDebias baseline),
and the same score penalties inside LightGBM's gradient boosting.
"""

from ._adversarial import AdversarialDebiasingClassifier
from ._boosting import FairLGBMClassifier
from ._mlp import FairMLPClassifier
from ._penalties import fairness_penalty

__all__ = [
    "AdversarialDebiasingClassifier",
    "FairLGBMClassifier",
    "FairMLPClassifier",
    "fairness_penalty",
]
