"""The MCDP paper's classifier: an MLP trained with a fairness penalty."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
)
from sklearn.utils.validation import check_random_state
from threadpoolctl import threadpool_limits

from skfair.utils._estimator import store_params

from ._base import BaseFairPenalised

#: Precision of the weights and of the forward/backward passes (the penalties
#: and the loss are computed in float64).
_DTYPE = np.float32

HIDDEN_SIZES_ERROR = (
    "hidden_layer_sizes must be a positive integer or a sequence of positive "
    "integers; got {value!r}."
)


class _Adam:
    """Adam (Kingma & Ba, 2015) with PyTorch's defaults and bias correction."""

    def __init__(self, params, beta1=0.9, beta2=0.999, eps=1e-8):
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params, grads, lr):
        self.t += 1
        c1, c2 = 1.0 - self.beta1**self.t, 1.0 - self.beta2**self.t
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def _batches(n_samples, batch_size, rng):
    """Endless mini-batches: a fresh permutation per epoch, last one dropped."""
    size = min(batch_size, n_samples)
    while True:
        order = rng.permutation(n_samples)
        for start in range(0, n_samples - size + 1, size):
            yield order[start : start + size]


class FairMLPClassifier(BaseFairPenalised):
    """MLP classifier trained with a differentiable demographic-parity penalty.

    The classifier of Jin et al. (ICML 2024): a multi-layer perceptron with
    ReLU hidden layers and a sigmoid output, trained by Adam on mini-batches
    to minimise ``log-loss + fairness_weight * penalty`` where the penalty is
    DiffMCDP (the paper's Algorithm 3: on every mini-batch, locate ŷ* with
    the exact MCDP, then descend on the smooth CDF gap there), DiffDP or
    DiffABCC (see :func:`fairness_penalty`). ``penalty=None`` is ERM.
    Forward and backward passes are plain numpy.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: names for a DataFrame, integer
        indices for an array. Several columns are intersected.
    penalty : {"mcdp", "dp", "abcc"} or None, default="mcdp"
        The fairness regulariser; None trains the plain classifier (ERM).
    fairness_weight : float, default=0.2
        λ >= 0, the weight of the penalty (the paper's grid for DiffMCDP on
        Adult and Bank is 0.1 to 0.3).
    temperature : float, default=10.0
        τ > 0 of the sigmoid CDFs (``"mcdp"`` and ``"abcc"``).
    epsilon : float, default=0.0
        ε of MCDP(ε) for ``penalty="mcdp"``; the paper trains with 0.
    hidden_layer_sizes : int or tuple of int, default=(256,)
        Units of each hidden layer (the paper: one layer of 256).
    learning_rate_init : float, default=1e-3
        Adam's initial step size.
    batch_size : int, default=1024
        Mini-batch size (clipped to the number of samples).
    max_iter : int, default=150
        Number of optimisation steps (mini-batches), the paper's 150 training
        steps. Unlike :class:`sklearn.neural_network.MLPClassifier`, where it
        counts epochs.
    lr_step_size : int, default=50
        The learning rate is multiplied by ``lr_decay`` every ``lr_step_size``
        steps (PyTorch's StepLR, as in the paper's code).
    lr_decay : float, default=0.1
        Multiplicative decay of the step schedule.
    dropout : float, default=0.0
        Dropout rate on the hidden units during training.
    min_group_size : int or None, default=None
        None keeps every group in the penalty and warns
        (:class:`skfair.utils.SmallGroupWarning`) about groups with fewer
        than 30 samples; an int ``k >= 1`` leaves the groups with fewer than
        ``k`` samples out of the penalty, without a warning (the model still
        trains on their samples). Fewer than two groups left is an error.
    sensitive_as_feature : bool, default=False
        Whether the sensitive columns are also model inputs (the paper leaves
        them out). When True they must be numeric.
    random_state : int, RandomState instance or None, default=None
        Seeds the weight initialisation, the mini-batch order and dropout.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels.
    coefs_ : list of ndarray
        Weight matrices, ``coefs_[i]`` of shape (fan_in, fan_out).
    intercepts_ : list of ndarray
        Bias vectors.
    n_iter_ : int
        Optimisation steps taken.
    loss_curve_ : ndarray of shape (n_iter_,)
        Mini-batch log-loss at each step.
    penalty_curve_ : ndarray of shape (n_iter_,)
        Mini-batch penalty at each step (0 for ERM or a batch holding one
        group only).
    n_features_in_ : int
        Number of columns of ``X`` seen in fit (sensitive ones included).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` is a DataFrame with string column names.

    See Also
    --------
    fairness_penalty : The penalties and their gradients.
    FairLGBMClassifier : The same penalties inside gradient boosting.

    Notes
    -----
    Initialisation follows PyTorch's ``nn.Linear`` (uniform in
    ``±1/sqrt(fan_in)``), the optimiser PyTorch's Adam, and mini-batches
    its shuffled loader with ``drop_last=True``, as the paper's code does. The
    penalty is evaluated on each mini-batch (batches holding a single group
    add none). Where we differ from the paper's code: ŷ* is the exact
    maximiser of the empirical CDF gap rather than the result of 31 Adam steps
    on the smooth gap; the default network is the paper's one hidden layer of
    256 units (its code defaults to three layers, 512-256-64, with dropout 0.5).
    ``sample_weight`` weights the log-loss only, not the penalty. Training
    runs on one BLAS thread (``threadpoolctl``): the mini-batch products are
    small, and several threads only contend, most of all under ``n_jobs``.
    ``penalty="mcdp"`` and ``"abcc"`` compare every pair of groups on every
    step, so their cost grows with the square of the number of groups.

    References
    ----------
    .. [1] Jin et al., ICML 2024 (cited in full under :func:`fairness_penalty`):
       Section 3.4 and Algorithm 3 (training), Appendix D (the classifier).

    Examples
    --------
    ERM and the penalised MLP, on data whose second feature depends on the
    group in the first column (left out of the model's inputs):

    >>> import numpy as np
    >>> from skfair.inprocessing import FairMLPClassifier
    >>> from skfair.metrics import mcdp
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = np.column_stack([group, rng.normal(group, 1.0, 400),
    ...                      rng.normal(size=400)])
    >>> y = (X[:, 1] + rng.normal(size=400) > 0.5).astype(int)
    >>> erm = FairMLPClassifier(sensitive=0, penalty=None, random_state=0).fit(X, y)
    >>> fair = FairMLPClassifier(sensitive=0, fairness_weight=1.0,
    ...                          random_state=0).fit(X, y)
    >>> def gap(model):
    ...     return mcdp(y, model.predict_proba(X)[:, 1], sensitive_features=group)
    >>> bool(gap(fair) < gap(erm))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairPenalised._parameter_constraints,
        "hidden_layer_sizes": [
            "array-like",
            Interval(Integral, 1, None, closed="left"),
        ],
        "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "lr_step_size": [Interval(Integral, 1, None, closed="left")],
        "lr_decay": [Interval(Real, 0, 1, closed="right")],
        "dropout": [Interval(Real, 0, 1, closed="left")],
    }

    def __init__(
        self,
        *,
        sensitive,
        penalty="mcdp",
        fairness_weight=0.2,
        temperature=10.0,
        epsilon=0.0,
        hidden_layer_sizes=(256,),
        learning_rate_init=1e-3,
        batch_size=1024,
        max_iter=150,
        lr_step_size=50,
        lr_decay=0.1,
        dropout=0.0,
        min_group_size=None,
        sensitive_as_feature=False,
        random_state=None,
    ):
        store_params(self, locals())

    def _hidden_sizes(self):
        sizes = self.hidden_layer_sizes
        sizes = [sizes] if isinstance(sizes, Integral) else list(sizes)
        if any(
            isinstance(s, bool) or not isinstance(s, Integral) or s < 1 for s in sizes
        ):
            raise ValueError(HIDDEN_SIZES_ERROR.format(value=self.hidden_layer_sizes))
        return [int(s) for s in sizes]

    def _init_params(self, n_features, rng):
        sizes = [n_features, *self._hidden_sizes(), 1]
        self.coefs_, self.intercepts_ = [], []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / np.sqrt(fan_in)
            W = rng.uniform(-bound, bound, (fan_in, fan_out))
            self.coefs_.append(W.astype(_DTYPE))
            self.intercepts_.append(rng.uniform(-bound, bound, fan_out).astype(_DTYPE))

    def _forward(self, X, rng=None, dtype=None):
        """Logits and the hidden activations (with dropout masks applied).

        In the weights' precision unless ``dtype`` is given.
        """
        dtype = self.coefs_[0].dtype if dtype is None else dtype
        X = X.astype(dtype, copy=False)
        activations, h = [X], X
        params = [
            (W.astype(dtype, copy=False), b)
            for W, b in zip(self.coefs_, self.intercepts_)
        ]
        for W, b in params[:-1]:
            h = np.maximum(h @ W + b, 0.0)
            if rng is not None and self.dropout > 0:
                keep = rng.random(h.shape) >= self.dropout
                h = h * (keep / (1.0 - self.dropout)).astype(h.dtype)
            activations.append(h)
        W, b = params[-1]
        z = (h @ W + b)[:, 0]
        return z.astype(np.float64), activations

    def _backward(self, activations, grad_z):
        """Gradients of every weight and bias given d(loss)/d(logit)."""
        delta = grad_z[:, None].astype(self.coefs_[0].dtype)
        grads_W, grads_b = [], []
        for layer in range(len(self.coefs_) - 1, -1, -1):
            grads_W.append(activations[layer].T @ delta)
            grads_b.append(delta.sum(axis=0))
            if layer:
                # ReLU (and dropout) pass the gradient where the unit was on.
                delta = (delta @ self.coefs_[layer].T) * (activations[layer] > 0)
        return grads_W[::-1] + grads_b[::-1]

    def _step(self, X, y, w, codes, lr, rng):
        z, activations = self._forward(X, rng)
        proba = expit(z)
        # weighted mean log-loss, d/dz = w (p - y) / sum(w)
        total = max(w.sum(), np.finfo(np.float64).tiny)
        grad_z = w * (proba - y) / total
        loss = float(w @ (np.logaddexp(0.0, z) - y * z) / total)
        value, grad_p = self._penalty_grad(proba, codes)
        grad_z += grad_p * proba * (1.0 - proba)
        grads = self._backward(activations, grad_z)
        self._optimizer.step(self.coefs_ + self.intercepts_, grads, lr)
        return loss, value

    def _fit(self, features, y01, w, codes):
        rng = check_random_state(self.random_state)
        self._init_params(features.shape[1], rng)
        self._optimizer = _Adam(self.coefs_ + self.intercepts_)
        batches = _batches(features.shape[0], self.batch_size, rng)
        losses, penalties = [], []
        # Mini-batch products are small: one BLAS thread is faster than
        # several, and does not oversubscribe cores under n_jobs > 1.
        with threadpool_limits(limits=1, user_api="blas"):
            for step in range(self.max_iter):
                decay = self.lr_decay ** (step // self.lr_step_size)
                idx = next(batches)
                loss, value = self._step(
                    features[idx],
                    y01[idx],
                    w[idx],
                    codes[idx],
                    self.learning_rate_init * decay,
                    rng,
                )
                if not np.isfinite(loss):
                    raise FloatingPointError(DIVERGED_ERROR.format(step=step))
                losses.append(loss)
                penalties.append(value)
        self.n_iter_ = self.max_iter
        self.loss_curve_ = np.asarray(losses)
        self.penalty_curve_ = np.asarray(penalties)
        del self._optimizer

    def _raw_score(self, features):
        # float64 at prediction: the rounding of a float32 product depends on
        # how BLAS blocks the rows, and a sample's score must not depend on
        # which other rows are predicted with it.
        return self._forward(features, dtype=np.float64)[0]


DIVERGED_ERROR = (
    "Training diverged at step {step} (non-finite loss); lower "
    "learning_rate_init or fairness_weight."
)
