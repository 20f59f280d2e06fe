"""The MCDP paper's classifier: an MLP trained with a fairness penalty."""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
    StrOptions,
)
from sklearn.utils.validation import check_random_state
from threadpoolctl import threadpool_limits

from skfair.utils._docstrings import fill_doc
from skfair.utils._groups import user_stacklevel

from ._base import PENALISED_DOCS, BaseFairPenalised, score_penalty
from ._model_penalties import (
    MODEL_PENALTIES,
    dralign_alignment,
    group_members,
    mixup_penalty,
)
from ._multiclass import (
    MODEL_PENALTY_MULTICLASS_ERROR,
    softmax_cross_entropy,
    softmax_vjp,
)
from ._network import Adam, backward, batches, forward, init_params
from ._penalties import PENALTIES
from ._target import TARGET_DOCS, FairnessTargetMixin

#: Precision of the weights and of the forward/backward passes (the penalties
#: and the loss are computed in float64).
_DTYPE = np.float32

HIDDEN_SIZES_ERROR = (
    "hidden_layer_sizes must be a positive integer or a sequence of positive "
    "integers; got {value!r}."
)
NEVER_APPLIED_WARNING = (
    "The fairness term was applied on none of the {n_steps} mini-batches: "
    "none held two groups of the penalty ({n_groups} groups; the smallest has "
    "{smallest} training samples, batch_size={batch_size}). Increase "
    "batch_size, or leave the small groups out with min_group_size."
)
DIVERGED_ERROR = (
    "Training diverged at step {step}: the network's outputs are no longer "
    "finite numbers (NaN or infinity), so neither the loss nor the fairness "
    "penalty can be computed. Lower learning_rate_init or the fairness "
    "weight, or scale the features (the largest |value| among them is "
    "{largest:.3g}; the float32 weights overflow beyond 3.4e+38)."
)

#: ``fairness_weight="auto"`` by number of classes (3: three or more). Two: the
#: MCDP paper's 0.2. More: 0.8, as 0.2 (and up to 0.6) leaves the held-out
#: MCDP(0) of a three-class COMPAS model where ERM has it, and 0.8 cuts it by
#: more than half (``benchmarks/bench_fairness_target.py``).
AUTO_WEIGHT = {2: 0.2, 3: 0.8}

#: Docstring parts (:func:`skfair.utils._docstrings.fill_doc`) of the parameters that
#: the MLP estimators describe alike.
MLP_DOCS = {
    "min_group_size": """
        min_group_size : int or None, default=None
            None keeps every group in the penalty and warns
            (:class:`skfair.utils.SmallGroupWarning`) about groups with fewer
            than 30 samples; an int ``k >= 1`` leaves the groups with fewer than
            ``k`` samples out of the penalty, without a warning (the model still
            trains on their samples). Fewer than two groups left is an error.
    """,
    "sensitive_as_feature": """
        sensitive_as_feature : bool, default=False
            Whether the sensitive columns are also model inputs. When True they
            must be numeric.
    """,
    "random_state": """
        random_state : int, RandomState instance or None, default=None
            Seeds the weight initialisation, the mini-batch order and dropout.
    """,
}


def _log_loss(z, proba, y, w):
    """Weighted mean log-loss and its gradient with respect to the logits."""
    total = max(w.sum(), np.finfo(np.float64).tiny)
    loss = float(w @ (np.logaddexp(0.0, z) - y * z) / total)
    return loss, w * (proba - y) / total


class _MLPTrainingMixin:
    """The network, its training loop and its scores, for the MLP estimators.

    Subclasses implement ``_setup(n_groups)`` (extra state before the first
    step), ``_step(z, cache, X, y, w, codes, lr, rng)`` (one step on the
    mini-batch, given the outputs ``z`` of the forward pass and its
    ``cache``) returning ``(loss, value, applied)`` where ``loss`` (the
    log-loss of the classifiers, the squared error of the regressors) is
    logged in ``loss_curve_``, ``value`` in ``<_curve_name>``, and
    ``applied`` says whether the fairness term acted on the batch, and
    ``_fairness_active()``.
    The network has one output (the logit of a binary classifier, the
    standardised prediction of a regressor) or, for a classifier of ``K > 2``
    classes, ``K`` (the logits of a softmax).
    """

    _mlp_constraints: ClassVar[dict] = {
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
    _curve_name = "penalty_curve_"

    def _hidden_sizes(self):
        sizes = self.hidden_layer_sizes
        sizes = [sizes] if isinstance(sizes, Integral) else list(sizes)
        if any(
            isinstance(s, bool) or not isinstance(s, Integral) or s < 1 for s in sizes
        ):
            raise ValueError(HIDDEN_SIZES_ERROR.format(value=self.hidden_layer_sizes))
        return [int(s) for s in sizes]

    def _n_outputs(self):
        """1, or the number of classes of a classifier of more than two."""
        classes = getattr(self, "classes_", None)
        return 1 if classes is None or len(classes) <= 2 else len(classes)

    def _init_params(self, n_features, rng):
        sizes = [n_features, *self._hidden_sizes(), self._n_outputs()]
        self.coefs_, self.intercepts_ = init_params(sizes, rng, _DTYPE)

    def _forward(self, X, rng=None, dtype=None):
        """Logits and the cache of the backward passes (dropout if ``rng``).

        In the weights' precision unless ``dtype`` is given.
        """
        dtype = self.coefs_[0].dtype if dtype is None else dtype
        return forward(
            self.coefs_, self.intercepts_, X, dtype=dtype, rng=rng, dropout=self.dropout
        )

    def _backward(self, cache, grad_z):
        """Gradients of every weight and bias given d(loss)/d(logit)."""
        return backward(self.coefs_, cache, grad_z)

    def _fit(self, features, target, w, codes):
        self._train(features, target, w, codes, self.random_state)

    def _train(self, features, y01, w, codes, random_state):
        """One training run, seeded by ``random_state``."""
        rng = check_random_state(random_state)
        self._init_params(features.shape[1], rng)
        self._optimizer = Adam(self.coefs_ + self.intercepts_)
        self._setup(int(codes.max()) + 1)
        batch_iter = batches(features.shape[0], self.batch_size, rng)
        losses, values, n_applied = [], [], 0
        # Mini-batch products are small: one BLAS thread is faster than
        # several, and does not oversubscribe cores under n_jobs > 1.
        with threadpool_limits(limits=1, user_api="blas"):
            for step in range(self.max_iter):
                decay = self.lr_decay ** (step // self.lr_step_size)
                idx = next(batch_iter)
                loss, value, applied = self._forward_step(
                    features[idx],
                    y01[idx],
                    w[idx],
                    codes[idx],
                    self.learning_rate_init * decay,
                    rng,
                )
                if not np.isfinite(loss):
                    largest = float(np.max(np.abs(features), initial=0.0))
                    raise FloatingPointError(
                        DIVERGED_ERROR.format(step=step, largest=largest)
                    )
                losses.append(loss)
                values.append(value)
                n_applied += applied
        del self._optimizer
        self.n_iter_ = self.max_iter
        self.loss_curve_ = np.asarray(losses)
        setattr(self, self._curve_name, np.asarray(values, dtype=np.float64))
        self._finish_training()
        if n_applied == 0 and self._fairness_active():
            self._warn_never_applied(codes)

    def _finish_training(self):
        """Set the fitted attributes of a subclass's own curves."""

    def _forward_step(self, X, y, w, codes, lr, rng):
        """The forward pass, then ``_step`` on it; a NaN loss if it diverged."""
        z, cache = self._forward(X, rng)
        if not np.isfinite(z).all():  # diverged: _fit says so
            return np.nan, np.nan, False
        return self._step(z, cache, X, y, w, codes, lr, rng)

    def _warn_never_applied(self, codes):
        counts = np.bincount(codes[codes >= 0])
        warnings.warn(
            NEVER_APPLIED_WARNING.format(
                n_steps=self.max_iter,
                n_groups=int((counts > 0).sum()),
                smallest=int(counts[counts > 0].min()),
                batch_size=self.batch_size,
            ),
            UserWarning,
            stacklevel=user_stacklevel(),
        )

    def _raw_score(self, features):
        # float64 at prediction: the rounding of a float32 product depends on
        # how BLAS blocks the rows, and a sample's score must not depend on
        # which other rows are predicted with it.
        return self._forward(features, dtype=np.float64)[0]


@fill_doc(PENALISED_DOCS, MLP_DOCS, TARGET_DOCS)
class FairMLPClassifier(FairnessTargetMixin, _MLPTrainingMixin, BaseFairPenalised):
    """MLP classifier trained with a differentiable demographic-parity penalty.

    The classifier of Jin et al. (ICML 2024): a multi-layer perceptron with
    ReLU hidden layers and a sigmoid output (a softmax for more than two
    classes), trained by Adam on mini-batches to minimise ``log-loss +
    fairness_weight * penalty`` where the penalty is
    DiffMCDP (the paper's Algorithm 3: on every mini-batch, locate ŷ* with
    the exact MCDP, then descend on the smooth CDF gap there), DiffDP or
    DiffABCC (see :func:`fairness_penalty`), or one of the paper's two
    baselines that regularise the network rather than its scores: Fair Mixup
    (Chuang & Mroueh, 2021) and DRAlign (Li et al., 2023). ``penalty=None``
    is ERM. Forward, backward and second-order passes are plain numpy.

    Parameters
    ----------
    <sensitive>
    penalty : {"mcdp", "dp", "abcc", "mixup", "dralign"} or None, default="mcdp"
        The fairness regulariser; None trains the plain classifier (ERM).
        ``"mixup"`` and ``"dralign"`` are described in the Notes.
    fairness_weight : float or "auto", default="auto"
        λ >= 0, the weight of the penalty (the paper's grid for DiffMCDP on
        Adult and Bank is 0.1 to 0.3); for ``"dralign"``, the weight of its
        ΔDP term. ``"auto"`` is 0.2 (the paper's) for a binary target and
        0.8 for more classes, where 0.2 barely moves the per-class
        disparity (see the Notes); ``fairness_weight_`` holds the value used.
    temperature : float, default=10.0
        τ > 0 of the sigmoid CDFs (``"mcdp"`` and ``"abcc"``).
    epsilon : float, default=0.0
        ε of MCDP(ε) for ``penalty="mcdp"``; the paper trains with 0.
    class_agg : {"max", "mean"}, default="max"
        With more than two classes, how the penalties of the classes'
        probabilities are aggregated (as :func:`skfair.metrics.mcdp`
        aggregates its per-class values): the class of the largest penalty
        on each mini-batch (the worst class), or their mean. Ignored for a
        binary target.
    alignment_strength : float, default=0.05
        β >= 0 of DRAlign's alignment term, which is *not* scaled by
        ``fairness_weight`` (the reference code's 0.05 on Adult, 0.03 on
        Bank); ignored by the other penalties.
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
        Dropout rate on the hidden units during training (also in Fair
        Mixup's pass on the mixed inputs).
    <min_group_size>
    sensitive_as_feature : bool, default=False
        Whether the sensitive columns are also model inputs (the paper leaves
        them out). When True they must be numeric.
    <random_state>
    <fairness_target>

    Attributes
    ----------
    <classes_>
    coefs_ : list of ndarray
        Weight matrices, ``coefs_[i]`` of shape (fan_in, fan_out); the last
        has one output for two classes, ``n_classes`` otherwise.
    intercepts_ : list of ndarray
        Bias vectors.
    n_iter_ : int
        Optimisation steps taken.
    loss_curve_ : ndarray of shape (n_iter_,)
        Mini-batch log-loss (cross-entropy) at each step.
    penalty_curve_ : ndarray of shape (n_iter_,)
        Mini-batch penalty at each step (0 for ERM or a batch holding one
        group only), aggregated over the classes by ``class_agg``; for
        ``"dralign"`` its ΔDP term.
    alignment_curve_ : ndarray of shape (n_iter_,)
        ``"dralign"`` only: the alignment ``sum_l cos(r_a^l, r_b^l)`` of the
        least aligned pair at each step (NaN for a batch holding one group).
    <target_attributes>
    <fitted_inputs>

    See Also
    --------
    fairness_penalty : The score penalties and their gradients.
    AdversarialDebiasingClassifier : The paper's adversarial baseline.
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

    **Fair Mixup** (``"mixup"``), the path regulariser the MCDP paper's code
    uses: on each mini-batch, for a pair of groups ``(a, b)``, ``m =
    min(n_a, n_b)`` rows of each are paired, ``γ ~ Beta(1, 1)``, ``x_mix =
    γ x_a + (1 - γ) x_b``, and the penalty is ``|mean ⟨∇ₓ f(x_mix), x_b -
    x_a⟩|`` with ``f`` the predicted probability (its mean over γ is the
    pair's mean-score gap). The input gradient's directional derivative and
    its gradient with respect to the weights are exact (forward-mode through
    the network, then a second backward pass). The reference code draws 512
    rows of each group as a separate, group-balanced batch, on which it also
    computes the log-loss; here the pairs come from the ordinary mini-batch,
    so that every penalty trains on the same batches and weight 0 is ERM.

    **DRAlign** (``"dralign"``; Li et al., 2023, "FAIRER"): ``log-loss +
    fairness_weight · ΔDP_c - alignment_strength · sum_l cos(r_a^l,
    r_b^l)``, where ``r_g^l[j] = sum_i (W_l[i, j] ∂ℓ_g/∂W_l[i, j])²`` is the
    importance of unit ``j`` of hidden layer ``l`` for group ``g``'s mean
    log-loss ``ℓ_g``. Its gradient needs a Hessian-vector product of each
    ``ℓ_g``, computed exactly (Pearlmutter's R-operator). ``fairness_weight=0``
    is ERM only with ``alignment_strength=0``.

    With more than two groups, Fair Mixup penalises the pair with the largest
    value, DRAlign the pair with the largest mean gap (ΔDP term) and the
    least aligned pair (alignment term). A mini-batch holding fewer than two
    groups adds no fairness term; a ``UserWarning`` says so when that was
    the case of every batch.

    **More than two classes**: the network has one output per class and a
    softmax; the loss is the cross-entropy. Class ``k``'s predicted
    probability is a score (one-vs-rest): DiffMCDP, DiffDP and DiffABCC
    are computed on each class's probability column exactly as on a binary
    classifier's positive probability, and aggregated by ``class_agg`` (the
    worst class, or the mean), so that they train towards the per-class
    :func:`skfair.metrics.mcdp`; their gradient reaches the logits through
    the softmax's Jacobian. With ``"max"``, the worst class is re-chosen on
    every mini-batch, by the penalty's own (smooth) value. Fair Mixup and
    DRAlign are defined for a binary target (a path or a rationale of one
    score, with the binary log-loss) and raise a ``ValueError`` on a target
    of more than two classes; their estimator tags say so. The multiclass
    penalty needs a larger weight to act: on a three-class COMPAS model
    (``score_text``, by race) the held-out worst-class MCDP(0) stays where
    ERM has it up to a weight of about 0.6 and falls by more than half at
    0.8, hence ``fairness_weight="auto"``.

    **Asking for a fairness level** (``fairness_target``): the estimator
    holds out ``validation_fraction`` of the samples, stratified by group and
    class, and trains on the rest at weights chosen by a search: from the
    starting weight, doubled while the validation metric is above the
    target (halved while it is below), then bisected in log space between
    the last weight above and the first at or below the target, for at most
    ``max_fairness_search`` fits (a ``FairnessTargetWarning`` when none meets
    the target; the fit closest to it is kept). Every fit starts from the
    same initial weights and sees the same mini-batches (no warm start: a
    run that continues another would depend on the order of the search),
    so the metric changes with the weight only. The smallest weight that
    meets the target is kept, the least accuracy given up for it. The
    target holds on the validation split; on new data the metric also
    carries its sampling error.

    References
    ----------
    .. [1] Jin et al., ICML 2024 (cited in full under :func:`fairness_penalty`):
       Section 3.4 and Algorithm 3 (training), Appendix D (the classifier).
    .. [2] C.-Y. Chuang and Y. Mroueh. "Fair Mixup: Fairness via
       Interpolation". ICLR 2021.
    .. [3] T. Li, Q. Guo, A. Liu, M. Du, Z. Li and Y. Liu. "FAIRER: Fairness
       as Decision Rationale Alignment". ICML 2023.

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
    >>> mixup = FairMLPClassifier(sensitive=0, penalty="mixup", fairness_weight=1.0,
    ...                           random_state=0).fit(X, y)
    >>> bool(gap(mixup) < gap(erm))
    True

    Asking for a level of MCDP(0) rather than a weight: the weight is searched
    on a validation split of a fifth of the samples, doubling from 0.2, then
    bisecting:

    >>> aimed = FairMLPClassifier(sensitive=0, fairness_target=0.2,
    ...                           random_state=0).fit(X, y)
    >>> aimed.fairness_search_["weight"].round(3).tolist()
    [0.2, 0.4, 0.8, 0.566, 0.476, 0.519]
    >>> round(aimed.fairness_weight_, 3), bool(aimed.fairness_achieved_ <= 0.2)
    (0.519, True)

    Three classes with string labels: the penalty acts on each class's
    probability, and the worst class's MCDP(0) goes down:

    >>> t = X[:, 1] + rng.normal(size=400)
    >>> y3 = np.array(["Low", "Medium", "High"])[np.digitize(t, [0.0, 1.5])]
    >>> params = dict(sensitive=0, max_iter=300, batch_size=128,
    ...               learning_rate_init=1e-2, random_state=0)
    >>> erm = FairMLPClassifier(fairness_weight=0.0, **params).fit(X, y3)
    >>> fair = FairMLPClassifier(fairness_weight=3.0, **params).fit(X, y3)
    >>> erm.classes_.tolist(), fair.predict_proba(X).shape
    (['High', 'Low', 'Medium'], (400, 3))
    >>> def worst(model):
    ...     proba = model.predict_proba(X)
    ...     return max(mcdp(None, proba[:, k], sensitive_features=group)
    ...                for k in range(3))
    >>> bool(worst(fair) < worst(erm) / 2)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairPenalised._parameter_constraints,
        **_MLPTrainingMixin._mlp_constraints,
        **FairnessTargetMixin._target_constraints,
        "penalty": [StrOptions(set(PENALTIES) | set(MODEL_PENALTIES)), None],
        "fairness_weight": [
            Interval(Real, 0, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "alignment_strength": [Interval(Real, 0, None, closed="left")],
        **BaseFairPenalised._class_agg_constraint,
    }

    def __init__(
        self,
        *,
        sensitive,
        penalty="mcdp",
        fairness_weight="auto",
        temperature=10.0,
        epsilon=0.0,
        class_agg="max",
        alignment_strength=0.05,
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
        fairness_target=None,
        validation_fraction=0.2,
        max_fairness_search=8,
    ):
        self.sensitive = sensitive
        self.penalty = penalty
        self.fairness_weight = fairness_weight
        self.temperature = temperature
        self.epsilon = epsilon
        self.class_agg = class_agg
        self.alignment_strength = alignment_strength
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Fair Mixup and DRAlign are defined for a binary target only
        tags.classifier_tags.multi_class = self.penalty not in MODEL_PENALTIES
        return tags

    def _resolved_weight(self):
        """``"auto"``: :data:`AUTO_WEIGHT` of the number of classes."""
        if isinstance(self.fairness_weight, str):  # "auto"
            return AUTO_WEIGHT[min(len(self.classes_), 3)]
        return float(self.fairness_weight)

    def _fairness_active(self):
        if self.penalty == "dralign" and self.alignment_strength > 0:
            return True
        return self.penalty is not None and self.fairness_weight_ > 0

    def _setup(self, n_groups):
        self._alignment = [] if self.penalty == "dralign" else None

    def _fit(self, features, target, w, codes):
        if len(self.classes_) > 2 and self.penalty in MODEL_PENALTIES:
            raise ValueError(
                MODEL_PENALTY_MULTICLASS_ERROR.format(
                    penalty=self.penalty,
                    n_classes=len(self.classes_),
                    classes=self.classes_[:10].tolist(),
                )
            )
        super()._fit(features, target, w, codes)

    def _finish_training(self):
        if self._alignment is not None:
            self.alignment_curve_ = np.asarray(self._alignment, dtype=np.float64)
        del self._alignment

    def _step(self, z, cache, X, y, w, codes, lr, rng):
        applied = len(group_members(codes)) >= 2
        if z.ndim == 2:  # K classes: the score penalties of each class
            loss, proba, grad_z = softmax_cross_entropy(z, y, w)
            value, grad_p = self._penalty_grad(proba, codes)
            grad_z += softmax_vjp(proba, grad_p)
            grads = self._backward(cache, grad_z)
            self._optimizer.step(self.coefs_ + self.intercepts_, grads, lr)
            return loss, value, applied
        proba = expit(z)
        loss, grad_z = _log_loss(z, proba, y, w)
        extra = None
        if self.penalty in MODEL_PENALTIES:
            value, grad_p, extra = self._model_penalty(X, y, codes, cache, proba, rng)
        else:
            value, grad_p = self._penalty_grad(proba, codes)
        grad_z += grad_p * proba * (1.0 - proba)
        grads = self._backward(cache, grad_z)
        if extra is not None:
            grads = [g + e for g, e in zip(grads, extra)]
        self._optimizer.step(self.coefs_ + self.intercepts_, grads, lr)
        return loss, value, applied

    def _model_penalty(self, X, y, codes, cache, proba, rng):
        """Fair Mixup or DRAlign: ``(value, d/d proba, extra weight grads)``."""
        lam = float(self.fairness_weight_)
        if self.penalty == "mixup":
            if lam == 0:
                return 0.0, 0.0, None
            value, grads = mixup_penalty(
                self.coefs_,
                self.intercepts_,
                X,
                codes,
                rng,
                dtype=self.coefs_[0].dtype,
                dropout=self.dropout,
            )
            extra = None if grads is None else [lam * g for g in grads]
            return value, 0.0, extra
        value, grad_p = score_penalty(proba, codes, "dp", lam)
        beta = float(self.alignment_strength)
        alignment, grads = np.nan, None
        if beta > 0:
            alignment, grads = dralign_alignment(self.coefs_, cache, proba, y, codes)
            if grads is None:
                alignment = np.nan
        self._alignment.append(alignment)
        extra = None if grads is None else [-beta * g for g in grads]
        return value, grad_p, extra
