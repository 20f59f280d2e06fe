"""An MLP regressor trained with a demographic-parity penalty on its predictions."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from skfair.utils._docstrings import fill_doc

from ._base import PENALISED_DOCS, BaseFairPenalisedRegressor
from ._mlp import MLP_DOCS, _MLPTrainingMixin
from ._target import TARGET_DOCS, FairnessTargetMixin


def _half_squared_error(z, y, w):
    """Weighted mean of ``(z - y)² / 2`` and its gradient with respect to ``z``."""
    total = max(w.sum(), np.finfo(np.float64).tiny)
    residual = z - y
    return float(w @ residual**2 / (2.0 * total)), w * residual / total


@fill_doc(PENALISED_DOCS, MLP_DOCS, TARGET_DOCS)
class FairMLPRegressor(
    FairnessTargetMixin, _MLPTrainingMixin, BaseFairPenalisedRegressor
):
    """MLP regressor trained with a differentiable demographic-parity penalty.

    The regression counterpart of :class:`FairMLPClassifier`: a multi-layer
    perceptron with ReLU hidden layers and a linear output, trained by Adam
    on mini-batches to minimise ``squared error + fairness_weight *
    penalty``, where the penalty compares the groups' distributions of the
    predictions: DiffMCDP, DiffDP or DiffABCC (:func:`fairness_penalty`).
    ``penalty=None`` is the plain least-squares MLP.

    The network is trained on the standardised target ``(y - y_mean_) /
    y_scale_`` and ``predict`` maps back, so the loss, the penalty and
    ``fairness_weight`` mean the same whatever the target's scale: the loss
    is half the mean squared error in units of the target's variance (0.5
    for the constant prediction ``y_mean_``), and on each mini-batch the
    penalty is computed on the standardised predictions over their observed
    range (``domain=None`` of :func:`fairness_penalty`). In the target's
    units:

    - ``"mcdp"``: the groups' largest CDF gap (their Kolmogorov-Smirnov
      statistic for ε = 0, :func:`skfair.metrics.mcdp` with ``epsilon=0``),
      smoothed over about ``y_scale_ / temperature``; it has no unit and
      ignores any monotone rescaling of the predictions.
    - ``"dp"``: the largest gap between two groups' mean predictions,
      divided by ``y_scale_``.
    - ``"abcc"``: the area between the groups' smoothed CDFs, which is the
      1-Wasserstein distance between their predictions (the mean amount by
      which a prediction must move to make the groups alike), divided by
      ``y_scale_``.

    No squashing of the predictions is needed: DiffMCDP's CDF gap and
    DiffABCC's integral are those of the predictions on their own range
    (through its affine map onto [0, 1]), so each penalty keeps the meaning
    of the metric of the same name on real-valued predictions.

    Parameters
    ----------
    <sensitive>
    penalty : {"mcdp", "dp", "abcc"} or None, default="mcdp"
        The fairness regulariser; None trains the plain regressor.
    fairness_weight : float, default=0.5
        λ >= 0, the weight of the penalty against half the mean squared
        error of the standardised target.
    temperature : float, default=10.0
        τ > 0 of the sigmoid CDFs (``"mcdp"`` and ``"abcc"``), in units of
        ``1 / y_scale_``: the CDFs are smoothed over about ``y_scale_ / τ``.
    epsilon : float, default=0.0
        ε of MCDP(ε) for ``penalty="mcdp"``, in the target's units.
    hidden_layer_sizes : int or tuple of int, default=(100,)
        Units of each hidden layer.
    learning_rate_init : float, default=1e-3
        Adam's initial step size.
    batch_size : int, default=256
        Mini-batch size (clipped to the number of samples).
    max_iter : int, default=2000
        Number of optimisation steps (mini-batches), as for
        :class:`FairMLPClassifier`; not epochs.
    lr_step_size : int, default=1000
        The learning rate is multiplied by ``lr_decay`` every ``lr_step_size``
        steps.
    lr_decay : float, default=0.1
        Multiplicative decay of the step schedule.
    dropout : float, default=0.0
        Dropout rate on the hidden units during training.
    <min_group_size>
    <sensitive_as_feature>
    <random_state>
    <fairness_target>

    Attributes
    ----------
    <target_scale>
    coefs_ : list of ndarray
        Weight matrices, ``coefs_[i]`` of shape (fan_in, fan_out).
    intercepts_ : list of ndarray
        Bias vectors.
    n_iter_ : int
        Optimisation steps taken.
    loss_curve_ : ndarray of shape (n_iter_,)
        Mini-batch half mean squared error of the standardised target.
    penalty_curve_ : ndarray of shape (n_iter_,)
        Mini-batch penalty of the standardised predictions at each step (0
        without penalty or for a batch holding one group).
    <target_attributes>
    <fitted_inputs>

    See Also
    --------
    FairMLPClassifier : The same network and penalties for a binary target.
    FairLGBMRegressor : The same penalties inside gradient boosting.
    fairness_penalty : The penalties and their gradients.

    Notes
    -----
    Training is that of :class:`FairMLPClassifier` (PyTorch's initialisation
    and Adam, shuffled mini-batches without the last incomplete one, the
    penalty on each mini-batch, one BLAS thread) with the squared error in
    place of the log-loss and the penalty's gradient taken with respect to
    the network's output itself. ``sample_weight`` weights the squared error
    and the target's mean and standard deviation, not the penalty. The
    network and optimiser defaults (one hidden layer of 100 units, Adam at
    1e-3) are :class:`sklearn.neural_network.MLPRegressor`'s; the training
    length is a number of steps, not epochs, without early stopping.

    Examples
    --------
    Amounts whose second feature depends on the group in the first column
    (left out of the model's inputs); the penalty narrows the gap between
    the groups' distributions of predictions (their KS statistic, MCDP(0)):

    >>> import numpy as np
    >>> from skfair.inprocessing import FairMLPRegressor
    >>> from skfair.metrics import mcdp
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 600)
    >>> X = np.column_stack([group, rng.normal(group, 1.0, 600),
    ...                      rng.normal(size=600)])
    >>> y = 1000 + 300 * X[:, 1] + 100 * X[:, 2] + rng.normal(0, 50, 600)
    >>> params = dict(sensitive=0, max_iter=500, random_state=0)
    >>> plain = FairMLPRegressor(penalty=None, **params).fit(X, y)
    >>> fair = FairMLPRegressor(fairness_weight=2.0, **params).fit(X, y)
    >>> def ks(model):
    ...     return mcdp(None, model.predict(X), sensitive_features=group)
    >>> bool(ks(fair) < ks(plain) / 2)
    True
    >>> bool(plain.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairPenalisedRegressor._parameter_constraints,
        **_MLPTrainingMixin._mlp_constraints,
        **FairnessTargetMixin._target_constraints,
    }

    def __init__(
        self,
        *,
        sensitive,
        penalty="mcdp",
        fairness_weight=0.5,
        temperature=10.0,
        epsilon=0.0,
        hidden_layer_sizes=(100,),
        learning_rate_init=1e-3,
        batch_size=256,
        max_iter=2000,
        lr_step_size=1000,
        lr_decay=0.1,
        dropout=0.0,
        min_group_size=None,
        sensitive_as_feature=False,
        random_state=None,
        fairness_target=None,
        validation_fraction=0.2,
        max_fairness_search=8,
    ):
        self.sensitive = sensitive
        self.penalty = penalty
        self.fairness_weight = fairness_weight
        self.temperature = temperature
        self.epsilon = epsilon
        self.hidden_layer_sizes = hidden_layer_sizes
        self.learning_rate_init = learning_rate_init
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.lr_step_size = lr_step_size
        self.lr_decay = lr_decay
        self.dropout = dropout
        self.min_group_size = min_group_size
        self.sensitive_as_feature = sensitive_as_feature
        self.random_state = random_state
        self.fairness_target = fairness_target
        self.validation_fraction = validation_fraction
        self.max_fairness_search = max_fairness_search

    def _fairness_active(self):
        return self.penalty is not None and self.fairness_weight_ > 0

    def _setup(self, n_groups):
        pass

    def _step(self, z, cache, X, y, w, codes, lr, rng):
        loss, grad_z = _half_squared_error(z, y, w)
        value, grad_p = self._penalty_grad(z, codes)
        applied = np.unique(codes[codes >= 0]).size >= 2
        grads = self._backward(cache, grad_z + grad_p)
        self._optimizer.step(self.coefs_ + self.intercepts_, grads, lr)
        return loss, value, applied
