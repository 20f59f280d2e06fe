"""In-processing: training with differentiable demographic-parity penalties.

The DiffMCDP, DiffDP and DiffABCC penalties of Jin et al. (ICML 2024) as plain
functions, the paper's MLP classifier trained with them or with its Fair
Mixup and DRAlign baselines, adversarial debiasing (its AdvDebias baseline),
and the same score penalties inside LightGBM's gradient boosting; the
regressors ``FairMLPRegressor`` and ``FairLGBMRegressor`` apply them to the
distributions of real-valued predictions.
"""

from ._adversarial import AdversarialDebiasingClassifier
from ._boosting import FairLGBMClassifier, FairLGBMRegressor
from ._mlp import FairMLPClassifier
from ._mlp_regressor import FairMLPRegressor
from ._penalties import fairness_penalty
from ._target import FairnessTargetWarning

__all__ = [
    "AdversarialDebiasingClassifier",
    "FairLGBMClassifier",
    "FairLGBMRegressor",
    "FairMLPClassifier",
    "FairMLPRegressor",
    "FairnessTargetWarning",
    "fairness_penalty",
]
