"""Adversarial debiasing (Zhang, Lemoine & Mitchell, 2018) in numpy."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit, log_softmax, softmax
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
    StrOptions,
)

from skfair.utils._docstrings import fill_doc

from ._base import PENALISED_DOCS, BaseFairPenalised
from ._mlp import MLP_DOCS, _log_loss, _MLPTrainingMixin
from ._model_penalties import group_members
from ._multiclass import adversary_loss_grad as multiclass_adversary_loss_grad
from ._multiclass import softmax_cross_entropy
from ._network import Adam

CONSTRAINTS = ("demographic_parity", "equalized_odds")


def _adversary_inputs(z, y, sharpness, constraints):
    """Zhang et al.'s adversary features: ``s = σ((1 + |c|) z)`` (and ``s·y``)."""
    s = expit((1.0 + abs(sharpness)) * z)
    if constraints == "demographic_parity":
        return s[:, None], s
    return np.column_stack([s, s * y, s * (1.0 - y)]), s


def adversary_loss_grad(z, y, codes, params, constraints):
    """Softmax adversary's mean cross-entropy and its gradients.

    ``params = [coef (k, n_groups), intercept (n_groups,), sharpness (1,)]``;
    the adversary sees ``s = σ((1 + |c|) z)`` of the predictor's logits ``z``
    (and ``s·y``, ``s·(1 - y)`` for equalised odds) and predicts the group
    ``codes`` of every row. Returns ``(loss, d loss / d z, [d loss / d
    params])``.
    """
    coef, intercept, sharpness = params
    c = float(sharpness[0])
    A, s = _adversary_inputs(z, y, c, constraints)
    logits = A @ coef + intercept
    n = z.size
    loss = float(-log_softmax(logits, axis=1)[np.arange(n), codes].mean())
    delta = softmax(logits, axis=1)
    delta[np.arange(n), codes] -= 1.0
    delta /= n
    d_A = delta @ coef.T
    d_s = d_A[:, 0]
    if constraints == "equalized_odds":
        d_s = d_s + d_A[:, 1] * y + d_A[:, 2] * (1.0 - y)
    ds_du = s * (1.0 - s)  # u = (1 + |c|) z
    grad_z = d_s * ds_du * (1.0 + abs(c))
    grad_c = float(d_s @ (ds_du * z)) * np.sign(c)
    return loss, grad_z, [A.T @ delta, delta.sum(axis=0), np.array([grad_c])]


def project_out(grads, adversary_grads, weight, projection=True):
    """Zhang et al.'s update ``g - proj_h g - weight · h``.

    ``g`` and ``h`` are the gradients of the predictor's and the adversary's
    losses with respect to every weight of the predictor (lists of arrays),
    taken as one vector; ``projection=False`` leaves the projection out.
    """
    g = np.concatenate([a.ravel() for a in grads]).astype(np.float64)
    h = np.concatenate([a.ravel() for a in adversary_grads]).astype(np.float64)
    norm = np.linalg.norm(h)
    if projection and norm > 0:
        g -= (g @ h) / norm**2 * h
    g -= weight * h
    out, start = [], 0
    for a in grads:
        out.append(g[start : start + a.size].reshape(a.shape))
        start += a.size
    return out


@fill_doc(PENALISED_DOCS, MLP_DOCS)
class AdversarialDebiasingClassifier(_MLPTrainingMixin, BaseFairPenalised):
    """MLP classifier trained against an adversary that predicts the group.

    Adversarial debiasing (Zhang, Lemoine & Mitchell, 2018): a predictor (the
    MLP of :class:`FairMLPClassifier`) and an adversary that predicts the
    sensitive group from the predictor's output, trained together on
    mini-batches. The adversary minimises its cross-entropy ``L_A``; the
    predictor descends on

    ``∇L_P - proj_{∇L_A} ∇L_P - adversary_weight · ∇L_A``

    (gradients with respect to the predictor's weights): it removes from its
    log-loss gradient the component that would help the adversary, then moves
    to hurt it. Demographic parity holds when the adversary can do no better
    than the group frequencies.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: names for a DataFrame, integer
        indices for an array. Several columns are intersected; with more than
        two groups the adversary is a softmax over them.
    adversary_weight : float, default=0.5
        α >= 0 of the update above. 0 trains the plain classifier (the
        projection is applied only with a positive weight, so that the weight
        tunes the trade-off from ERM); the adversary is then still fitted, and
        ``adversary_loss_curve_`` tells how well it reads the groups.
    projection : bool, default=True
        Whether to remove the projection of ``∇L_P`` on ``∇L_A`` (Zhang et
        al.'s update). False is plain adversarial training: the predictor
        descends on ``L_P - adversary_weight · L_A`` (a gradient-reversal
        layer on the output, as in Louppe et al. (2017) and the ABCC paper's
        "ADV"), whose trade-off moves smoothly with the weight.
    constraints : {"demographic_parity", "equalized_odds"}, default="demographic_parity"
        What the adversary sees: the predictor's output ``s`` alone, or also
        ``s·y`` and ``s·(1 - y)`` (equalised odds: independence of the output
        and the group given the label). With ``K > 2`` classes ``s`` is the
        vector of the ``K`` class probabilities, and equalised odds adds
        ``s`` times the one-hot label (``K²`` inputs).
    adversary_learning_rate : float or None, default=None
        Adam's initial step size for the adversary (same StepLR schedule);
        ``learning_rate_init`` if None.
    adversary_steps : int, default=1
        Adam steps of the adversary per step of the predictor, on the same
        mini-batch. The predictor's gradient against the adversary is taken
        at the adversary of the last of these steps, before its update: with
        one step, both are updated from the same point (simultaneous
        gradient steps). Zhang et al.'s analysis assumes the adversary
        trained to convergence; with one step a slow adversary can be fooled
        by inverting the predictions rather than by removing the group from
        them.
    hidden_layer_sizes : int or tuple of int, default=(256,)
        Units of each hidden layer of the predictor.
    learning_rate_init : float, default=1e-3
        Adam's initial step size for the predictor.
    batch_size : int, default=1024
        Mini-batch size (clipped to the number of samples).
    max_iter : int, default=150
        Number of optimisation steps (mini-batches).
    lr_step_size : int, default=50
        Both learning rates are multiplied by ``lr_decay`` every
        ``lr_step_size`` steps (PyTorch's StepLR).
    lr_decay : float, default=0.1
        Multiplicative decay of the step schedule.
    dropout : float, default=0.0
        Dropout rate on the predictor's hidden units during training.
    min_group_size : int or None, default=None
        None keeps every group and warns
        (:class:`skfair.utils.SmallGroupWarning`) about groups with fewer
        than 30 samples; an int ``k >= 1`` leaves the groups with fewer than
        ``k`` samples out of the adversary (the predictor still trains on
        them). Fewer than two groups left is an error.
    <sensitive_as_feature>
    <random_state>

    Attributes
    ----------
    <classes_>
    coefs_ : list of ndarray
        The predictor's weight matrices, ``coefs_[i]`` of shape (fan_in,
        fan_out); the last has one output for two classes, ``n_classes``
        otherwise.
    intercepts_ : list of ndarray
        The predictor's bias vectors.
    adversary_coef_ : ndarray of shape (n_inputs, n_groups)
        The adversary's weights (``n_inputs`` is 1, or 3 for equalised
        odds; with ``K > 2`` classes, ``K`` or ``K + K²``).
    adversary_intercept_ : ndarray of shape (n_groups,)
        The adversary's biases.
    adversary_sharpness_ : float
        ``c`` of the adversary's input ``σ((1 + |c|) z)`` (``softmax((1 +
        |c|) z)`` for more than two classes).
    n_iter_ : int
        Optimisation steps taken.
    loss_curve_ : ndarray of shape (n_iter_,)
        Mini-batch log-loss of the predictor at each step.
    adversary_loss_curve_ : ndarray of shape (n_iter_,)
        Mini-batch cross-entropy of the adversary at each step (NaN for a
        batch holding one group, where neither is updated against the
        other). Compare it with the entropy of the group frequencies: equal
        means the adversary cannot tell the groups apart.
    <fitted_inputs>

    See Also
    --------
    FairMLPClassifier : The same MLP with a fairness penalty instead.

    Notes
    -----
    The adversary is Zhang et al.'s: a linear softmax layer on ``s =
    σ((1 + |c|) z)`` of the predictor's logit ``z``, with a learnt
    sharpness ``c`` (so that it can read the output at any scale); for two
    groups it is logistic regression. It starts at zero weights, ``c = 1``,
    and takes one Adam step per predictor step. The projection is taken on
    the vector of all the predictor's weights and biases, as in the paper's
    formula (AIF360 projects each tensor separately, which removes a scalar
    bias's log-loss gradient entirely), and the result is fed to Adam. The
    projection acts whatever the weight, so the trade-off does not shrink to
    ERM as the weight goes to 0 and need not be monotone in it; on Adult it
    is much stronger than ``projection=False`` (see
    :ref:`reproducing_papers`). A mini-batch holding fewer than two groups updates
    the predictor on its log-loss only.

    **More than two classes**: the predictor has one output per class and
    a softmax (its loss is the cross-entropy), and the adversary predicts
    the group from the ``K`` class probabilities, sharpened by its learnt
    ``c``: ``s = softmax((1 + |c|) z)`` of the ``K`` logits ``z``, which for
    two classes is the binary adversary's ``σ((1 + |c|) z)`` and its
    complement. Demographic parity of every class (``s`` independent of the
    group) holds when it can do no better than the group frequencies.

    Where the MCDP paper's code differs: its "AdvDebias" is a
    gradient-reversal network (CFair's): a 60-unit representation, a
    50-unit adversary on that representation, and ``log-loss + λ ·
    adversary loss`` with the representation's gradient reversed, without
    the projection. :ref:`reproducing_papers` compares the two.

    References
    ----------
    .. [1] B. H. Zhang, B. Lemoine and M. Mitchell. "Mitigating Unwanted
       Biases with Adversarial Learning". AIES 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.inprocessing import AdversarialDebiasingClassifier
    >>> from skfair.metrics import delta_dp
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = np.column_stack([group, rng.normal(group, 1.0, 400),
    ...                      rng.normal(size=400)])
    >>> y = (X[:, 1] + rng.normal(size=400) > 0.5).astype(int)
    >>> params = dict(sensitive=0, max_iter=300, learning_rate_init=1e-2,
    ...               projection=False, random_state=0)
    >>> erm = AdversarialDebiasingClassifier(adversary_weight=0, **params).fit(X, y)
    >>> fair = AdversarialDebiasingClassifier(adversary_weight=3.0, **params).fit(X, y)
    >>> def gap(model):
    ...     return delta_dp(y, model.predict_proba(X)[:, 1], sensitive_features=group)
    >>> bool(gap(fair) < 0.6 * gap(erm))
    True

    Three classes: the adversary reads the group from the three class
    probabilities, and the largest of the classes' gaps narrows:

    >>> y3 = np.digitize(X[:, 1] + rng.normal(size=400), [0.0, 1.5])
    >>> erm = AdversarialDebiasingClassifier(adversary_weight=0, **params).fit(X, y3)
    >>> fair = AdversarialDebiasingClassifier(adversary_weight=10, **params).fit(X, y3)
    >>> def worst_gap(model):
    ...     proba = model.predict_proba(X)
    ...     return max(delta_dp(None, proba[:, k], sensitive_features=group)
    ...                for k in range(3))
    >>> bool(worst_gap(fair) < 0.6 * worst_gap(erm))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **{
            key: value
            for key, value in BaseFairPenalised._parameter_constraints.items()
            if key not in ("penalty", "fairness_weight", "temperature", "epsilon")
        },
        **_MLPTrainingMixin._mlp_constraints,
        "adversary_weight": [Interval(Real, 0, None, closed="left")],
        "projection": ["boolean"],
        "constraints": [StrOptions(set(CONSTRAINTS))],
        "adversary_learning_rate": [Interval(Real, 0, None, closed="neither"), None],
        "adversary_steps": [Interval(Integral, 1, None, closed="left")],
    }
    _curve_name = "adversary_loss_curve_"

    def __init__(
        self,
        *,
        sensitive,
        adversary_weight=0.5,
        projection=True,
        constraints="demographic_parity",
        adversary_learning_rate=None,
        adversary_steps=1,
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
        self.sensitive = sensitive
        self.adversary_weight = adversary_weight
        self.projection = projection
        self.constraints = constraints
        self.adversary_learning_rate = adversary_learning_rate
        self.adversary_steps = adversary_steps
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

    def _fairness_active(self):
        return self.adversary_weight > 0

    def _setup(self, n_groups):
        k = self._n_outputs()  # 1, or the number of classes (K > 2)
        if k == 1:
            n_inputs = 1 if self.constraints == "demographic_parity" else 3
        else:
            n_inputs = k if self.constraints == "demographic_parity" else k + k * k
        # zero weights: the adversary starts at the uniform guess, and the
        # random stream (weights, batches, dropout) stays the predictor's
        self._adversary = [
            np.zeros((n_inputs, n_groups)),
            np.zeros(n_groups),
            np.ones(1),
        ]
        self._adversary_optimizer = Adam(self._adversary)

    def _fit(self, features, y01, w, codes):
        super()._fit(features, y01, w, codes)
        self.adversary_coef_, self.adversary_intercept_, sharpness = self._adversary
        self.adversary_sharpness_ = float(sharpness[0])
        del self._adversary, self._adversary_optimizer

    def _against(self, grads, adversary_grads):
        return project_out(
            grads, adversary_grads, float(self.adversary_weight), self.projection
        )

    def _step(self, z, cache, X, y, w, codes, lr, rng):
        if z.ndim == 2:  # K classes: softmax predictor and adversary
            loss, _, grad_z = softmax_cross_entropy(z, y, w)
            adversary = multiclass_adversary_loss_grad
        else:
            loss, grad_z = _log_loss(z, expit(z), y, w)
            adversary = adversary_loss_grad
        grads = self._backward(cache, grad_z)
        kept = codes >= 0
        applied = len(group_members(codes)) >= 2
        adversary_loss = np.nan
        if applied:
            lr_adv = lr
            if self.adversary_learning_rate is not None:
                lr_adv *= self.adversary_learning_rate / self.learning_rate_init
            for _ in range(self.adversary_steps):
                adversary_loss, grad_z_adv, grads_adv = adversary(
                    z[kept], y[kept], codes[kept], self._adversary, self.constraints
                )
                self._adversary_optimizer.step(self._adversary, grads_adv, lr_adv)
            if self.adversary_weight > 0:
                grad_z_full = np.zeros_like(z)
                grad_z_full[kept] = grad_z_adv
                against = self._backward(cache, grad_z_full)
                grads = self._against(grads, against)
        self._optimizer.step(self.coefs_ + self.intercepts_, grads, lr)
        return loss, adversary_loss, applied
