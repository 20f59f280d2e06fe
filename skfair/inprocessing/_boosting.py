"""The differentiable fairness penalties inside LightGBM's gradient boosting."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit, logit, softmax
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
)
from sklearn.utils.validation import check_random_state

from skfair.utils._docstrings import fill_doc

from ._base import PENALISED_DOCS, BaseFairPenalised, BaseFairPenalisedRegressor
from ._multiclass import softmax_vjp

#: Smallest hessian handed to LightGBM (its leaves divide by the sum).
MIN_HESSIAN = 1e-6
#: Smallest class prior of the multiclass starting score (LightGBM's kEpsilon).
MIN_PRIOR = 1e-15

#: Docstring parts (:func:`skfair.utils._docstrings.fill_doc`) of the parameters that
#: both LightGBM estimators take (see ``_BoostingMixin._boosting_constraints``).
BOOSTING_DOCS = {
    "boosting": """
        n_estimators : int, default=100
            Boosting rounds.
        learning_rate : float, default=0.1
            Shrinkage.
        num_leaves : int, default=31
            Maximum leaves per tree.
        min_child_samples : int, default=20
            Minimum samples per leaf.
        reg_lambda : float, default=0.0
            L2 regularisation of the leaf values.
    """,
    "features_threads_seed": """
        sensitive_as_feature : bool, default=False
            Whether the sensitive columns are also model inputs.
        n_jobs : int, default=1
            LightGBM threads.
        random_state : int, RandomState instance or None, default=None
            Seeds LightGBM.
    """,
}


class _PenalisedObjective:
    """LightGBM custom objective: the estimator's loss plus ``λ · N · penalty``.

    LightGBM minimises a *sum* over samples, so the penalty, defined like the
    MLP's on the scale of the *mean* loss, is multiplied by the total weight.
    The estimator's ``_loss_terms(raw, y, weight)`` gives the penalised
    scores, their slope with respect to the raw score, and the loss's
    gradient and hessian. With ``K`` classes, ``raw`` and the scores have
    shape (n, K) (LightGBM's layout for a multiclass custom objective) and
    the penalty's gradient goes through the softmax's Jacobian.
    """

    def __init__(self, estimator, y, weight, codes):
        self.estimator, self.y, self.weight, self.codes = estimator, y, weight, codes
        self.values = []

    def __call__(self, raw, _dataset):
        scores, slope, grad, hess = self.estimator._loss_terms(raw, self.y, self.weight)
        if self.estimator.penalty is not None:
            value, dpen = self.estimator._penalty_grad(scores, self.codes)
            if scores.ndim == 2:
                grad = grad + self.weight.sum() * softmax_vjp(scores, dpen)
            else:
                grad = grad + self.weight.sum() * dpen * slope
            self.values.append(value)
        return grad, np.maximum(hess, MIN_HESSIAN)


class _BoostingMixin:
    """LightGBM's trees on a penalised custom objective, for both tasks.

    Subclasses implement ``_loss_terms(raw, y, weight)`` (see
    :class:`_PenalisedObjective`) and ``_init_score(y, weight)``, the
    constant raw score boosting starts from: a float, or one per class (an
    array of shape (K,)), which trains ``K`` trees per round.
    """

    _boosting_constraints: ClassVar[dict] = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "num_leaves": [Interval(Integral, 2, None, closed="left")],
        "min_child_samples": [Interval(Integral, 1, None, closed="left")],
        "reg_lambda": [Interval(Real, 0, None, closed="left")],
        "n_jobs": [Integral],
    }

    def _fit(self, features, target, w, codes):
        import lightgbm

        self.init_score_ = self._init_score(target, w)
        objective = _PenalisedObjective(self, target, w, codes)

        def fobj(raw, dataset):
            # a plain function: lightgbm deep-copies its params, and a copy
            # of the objective object would copy the data and lose the log
            return objective(raw, dataset)

        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        params = {
            "objective": fobj,
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": self.min_child_samples,
            "lambda_l2": self.reg_lambda,
            "num_threads": self.n_jobs,
            "seed": int(seed),
            "verbosity": -1,
        }
        n_samples = features.shape[0]
        if np.ndim(self.init_score_):  # one raw score per class
            params["num_class"] = len(self.init_score_)
            init_score = np.tile(self.init_score_, (n_samples, 1))
        else:
            init_score = np.full(n_samples, self.init_score_)
        data = lightgbm.Dataset(
            features,
            label=target,
            init_score=init_score,
            # keep every feature: on small data the pre-filter can drop them
            # all, which LightGBM's custom-objective path does not survive
            params={"feature_pre_filter": False, "verbosity": -1},
        )
        booster = lightgbm.train(params, data, num_boost_round=self.n_estimators)
        # A fresh booster from the model text: the custom objective (which
        # holds the training data) is not kept, and the model pickles.
        self.booster_ = lightgbm.Booster(model_str=booster.model_to_string())
        self.penalty_curve_ = np.asarray(objective.values)

    def _raw_score(self, features):
        raw = self.booster_.predict(features, raw_score=True)
        return np.asarray(raw, dtype=np.float64) + self.init_score_


@fill_doc(PENALISED_DOCS, BOOSTING_DOCS)
class FairLGBMClassifier(_BoostingMixin, BaseFairPenalised):
    """LightGBM classifier whose objective adds a demographic-parity penalty.

    Each boosting round fits a tree to the gradient of
    ``sum_i w_i log-loss_i + fairness_weight * sum_i w_i * penalty(p)``,
    where ``p`` are the current probabilities on the training set and the
    penalty is DiffMCDP, DiffDP or DiffABCC (:func:`fairness_penalty`). For
    DiffMCDP the location ŷ* and the worst pair of groups are re-found with
    the exact MCDP on the whole training set at every round (boosting is
    full-batch), which is Algorithm 3 of Jin et al. (ICML 2024) with trees
    in place of gradient steps. ``penalty=None`` is plain LightGBM with the
    binary log-loss. A target of more than two classes trains one tree per
    class and round on the softmax cross-entropy (LightGBM's ``multiclass``
    objective), with the penalty on each class's probability (see Notes).

    Parameters
    ----------
    <sensitive>
    penalty : {"mcdp", "dp", "abcc"} or None, default="mcdp"
        The fairness regulariser; None is the plain log-loss.
    fairness_weight : float, default=0.5
        λ >= 0, on the scale of the *mean* log-loss (as for
        :class:`FairMLPClassifier`).
    temperature : float, default=10.0
        τ > 0 of the sigmoid CDFs (``"mcdp"`` and ``"abcc"``).
    epsilon : float, default=0.0
        ε of MCDP(ε) for ``penalty="mcdp"``.
    class_agg : {"max", "mean"}, default="max"
        With more than two classes, how the penalties of the classes'
        probabilities are aggregated at each round: the worst class or their
        mean (as :class:`FairMLPClassifier`). Ignored for a binary target.
    <boosting>
    min_group_size : int or None, default=None
        As for :class:`FairMLPClassifier`: an int ``k`` leaves the groups of
        fewer than ``k`` samples out of the penalty (the trees still fit
        them); None keeps them all and warns about those under 30 samples.
    <features_threads_seed>

    Attributes
    ----------
    <classes_>
    <fitted_inputs>
    booster_ : lightgbm.Booster
        The trained trees (without the custom objective, so it pickles).
    init_score_ : float or ndarray of shape (n_classes,)
        The starting raw score, the log-odds of the weighted positive rate
        (what LightGBM's ``boost_from_average`` does for its own binary
        objective, which a custom objective does not get); with more than
        two classes, the log of each class's weighted frequency (LightGBM's
        own ``multiclass`` start).
    penalty_curve_ : ndarray of shape (n_estimators,)
        The penalty on the training set before each round (empty for
        ``penalty=None``).

    See Also
    --------
    FairMLPClassifier : The paper's MLP trained with the same penalties.
    fairness_penalty : The value and score gradient this objective adds.
    skfair.postprocessing.ThresholdInvariantClassifier : Repairs a fitted
        model's scores instead (compared in ``benchmarks/bench_inprocessing.py``).

    Notes
    -----
    The hessian handed to LightGBM is the log-loss's, ``w p (1 - p)``: the
    penalty's own curvature is left out, because it is indefinite (the CDF
    gap is concave on one side of ŷ* and convex on the other) and
    concentrated on the samples whose scores lie within a few ``1/τ`` of ŷ*;
    a negative or spiky hessian would make the Newton leaf values unstable.
    The penalty therefore acts as a first-order term whose step size the
    log-loss curvature sets. Its gradient is non-zero only where
    ``σ_τ'(ŷ* - p_i)`` is, so each round mostly moves the samples of the
    worst pair whose probabilities are near ŷ*; ŷ* moves as they do.
    lightgbm is imported inside ``fit`` only.

    **More than two classes** (LightGBM's multiclass custom objective: the
    raw scores of shape (n_samples, n_classes) in, the gradient and hessian
    of that shape out): the loss's gradient and diagonal hessian are those
    of LightGBM's own ``multiclass`` objective, so ``penalty=None`` gives
    LightGBM's multiclass model (up to float rounding). Each class's
    probability is penalised as :class:`FairMLPClassifier` does, the
    classes aggregated by ``class_agg``, and the penalty's gradient reaches
    the ``K`` raw scores through the softmax's Jacobian; its curvature is
    left out, as above.

    Examples
    --------
    The groups may be any labels in a DataFrame column:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from skfair.inprocessing import FairLGBMClassifier
    >>> from skfair.metrics import mcdp
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"group": rng.choice(["a", "b"], 600)})
    >>> X["x1"] = rng.normal(size=600) + (X["group"] == "b")
    >>> X["x2"] = rng.normal(size=600)
    >>> y = (X["x1"] + rng.normal(size=600) > 0.5).astype(int)
    >>> params = dict(sensitive="group", n_estimators=50, random_state=0)
    >>> plain = FairLGBMClassifier(penalty=None, **params).fit(X, y)
    >>> fair = FairLGBMClassifier(fairness_weight=2.0, **params).fit(X, y)
    >>> gaps = [mcdp(y, model.predict_proba(X)[:, 1], sensitive_features=X["group"])
    ...         for model in (plain, fair)]
    >>> bool(gaps[1] < gaps[0])
    True

    Three classes ("Low", "Medium", "High"): the worst class's MCDP(0) goes
    down.

    >>> t = X["x1"] + rng.normal(size=600)
    >>> y3 = np.array(["Low", "Medium", "High"])[np.digitize(t, [0.0, 1.5])]
    >>> plain = FairLGBMClassifier(penalty=None, **params).fit(X, y3)
    >>> fair = FairLGBMClassifier(fairness_weight=2.0, **params).fit(X, y3)
    >>> fair.predict_proba(X).shape
    (600, 3)
    >>> def worst(model):
    ...     proba = model.predict_proba(X)
    ...     return max(mcdp(None, proba[:, k], sensitive_features=X["group"])
    ...                for k in range(3))
    >>> bool(worst(fair) < worst(plain) / 2)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairPenalised._parameter_constraints,
        **_BoostingMixin._boosting_constraints,
        **BaseFairPenalised._class_agg_constraint,
    }

    def __init__(
        self,
        *,
        sensitive,
        penalty="mcdp",
        fairness_weight=0.5,
        temperature=10.0,
        epsilon=0.0,
        class_agg="max",
        n_estimators=100,
        learning_rate=0.1,
        num_leaves=31,
        min_child_samples=20,
        reg_lambda=0.0,
        min_group_size=None,
        sensitive_as_feature=False,
        n_jobs=1,
        random_state=None,
    ):
        self.sensitive = sensitive
        self.penalty = penalty
        self.fairness_weight = fairness_weight
        self.temperature = temperature
        self.epsilon = epsilon
        self.class_agg = class_agg
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_child_samples = min_child_samples
        self.reg_lambda = reg_lambda
        self.min_group_size = min_group_size
        self.sensitive_as_feature = sensitive_as_feature
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _init_score(self, target, w):
        if len(self.classes_) > 2:
            # LightGBM's own multiclass start: the log of the class priors
            counts = np.bincount(target, weights=w, minlength=len(self.classes_))
            return np.log(np.maximum(counts / w.sum(), MIN_PRIOR))
        rate = float(np.clip(w @ target / w.sum(), 1e-6, 1 - 1e-6))
        return float(logit(rate))

    @staticmethod
    def _loss_terms(raw, target, w):
        """Probabilities, ``dp/draw`` and the log-loss's gradient and hessian.

        With ``K`` classes (``raw`` of shape (n, K)): the softmax, no slope
        (the objective chains through the softmax's Jacobian), and the
        gradient and diagonal hessian of LightGBM's own ``multiclass``
        objective, ``w (p - 1[y = k])`` and ``w K/(K-1) p (1 - p)``.
        """
        if raw.ndim == 2:
            n, n_classes = raw.shape
            p = softmax(raw, axis=1)
            grad = p.copy()
            grad[np.arange(n), target] -= 1.0
            factor = n_classes / (n_classes - 1.0)
            return p, None, w[:, None] * grad, w[:, None] * factor * p * (1.0 - p)
        p = expit(raw)
        slope = p * (1.0 - p)
        return p, slope, w * (p - target), w * slope


@fill_doc(PENALISED_DOCS, BOOSTING_DOCS)
class FairLGBMRegressor(_BoostingMixin, BaseFairPenalisedRegressor):
    """LightGBM regressor whose objective adds a demographic-parity penalty.

    The regression counterpart of :class:`FairLGBMClassifier`. The target
    is standardised, ``(y - y_mean_) / y_scale_``, and each boosting round
    fits a tree to the gradient of ``sum_i w_i (f_i - y_i)² / 2 +
    fairness_weight * sum_i w_i * penalty(f)``, where ``f`` are the current
    standardised predictions on the training set and the penalty is
    DiffMCDP, DiffDP or DiffABCC (:func:`fairness_penalty`) of their groups'
    distributions over their observed range. ``predict`` maps back to the
    target's units. ``penalty=None`` is LightGBM's own L2 regression (on the
    standardised target, which gives the same trees up to rounding).

    What each penalty measures, in the target's units, is said under
    :class:`FairMLPRegressor`: ``"mcdp"`` the groups' (smoothed) KS statistic,
    ``"dp"`` their largest mean gap and ``"abcc"`` their 1-Wasserstein
    distance, the last two divided by ``y_scale_``.

    Parameters
    ----------
    <sensitive>
    penalty : {"mcdp", "dp", "abcc"} or None, default="mcdp"
        The fairness regulariser; None is the plain squared error.
    fairness_weight : float, default=0.5
        λ >= 0, on the scale of half the *mean* squared error of the
        standardised target (as for :class:`FairMLPRegressor`).
    temperature : float, default=10.0
        τ > 0 of the sigmoid CDFs (``"mcdp"`` and ``"abcc"``), in units of
        ``1 / y_scale_``.
    epsilon : float, default=0.0
        ε of MCDP(ε) for ``penalty="mcdp"``, in the target's units.
    <boosting>
    min_group_size : int or None, default=None
        As for :class:`FairMLPRegressor`: an int ``k`` leaves the groups of
        fewer than ``k`` samples out of the penalty (the trees still fit
        them); None keeps them all and warns about those under 30 samples.
    <features_threads_seed>

    Attributes
    ----------
    <target_scale>
    <fitted_inputs>
    booster_ : lightgbm.Booster
        The trained trees on the standardised target (without the custom
        objective, so it pickles).
    init_score_ : float
        The starting raw score, the weighted mean of the standardised target
        (0 up to rounding), as LightGBM's ``boost_from_average``.
    penalty_curve_ : ndarray of shape (n_estimators,)
        The penalty of the standardised predictions on the training set
        before each round (empty for ``penalty=None``).

    See Also
    --------
    FairMLPRegressor : An MLP trained with the same penalties.
    FairLGBMClassifier : The same objective for a binary target.
    fairness_penalty : The value and gradient this objective adds.

    Notes
    -----
    The hessian handed to LightGBM is the squared error's, ``w``: as for
    :class:`FairLGBMClassifier`, the penalty acts as a first-order term
    (its curvature is indefinite). DiffMCDP re-finds the location ŷ* and
    the worst pair of groups with the exact MCDP on the whole training set
    at every round. lightgbm is imported inside ``fit`` only.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skfair.inprocessing import FairLGBMRegressor
    >>> from skfair.metrics import mcdp
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"group": rng.choice(["a", "b"], 800)})
    >>> X["x1"] = rng.normal(size=800) + (X["group"] == "b")
    >>> X["x2"] = rng.normal(size=800)
    >>> y = 50 + 10 * X["x1"] + 5 * X["x2"] + rng.normal(0, 2, 800)
    >>> params = dict(sensitive="group", random_state=0)
    >>> plain = FairLGBMRegressor(penalty=None, **params).fit(X, y)
    >>> fair = FairLGBMRegressor(fairness_weight=2.0, **params).fit(X, y)
    >>> ks = [mcdp(None, model.predict(X), sensitive_features=X["group"])
    ...       for model in (plain, fair)]
    >>> bool(ks[1] < ks[0] / 2)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairPenalisedRegressor._parameter_constraints,
        **_BoostingMixin._boosting_constraints,
    }

    def __init__(
        self,
        *,
        sensitive,
        penalty="mcdp",
        fairness_weight=0.5,
        temperature=10.0,
        epsilon=0.0,
        n_estimators=100,
        learning_rate=0.1,
        num_leaves=31,
        min_child_samples=20,
        reg_lambda=0.0,
        min_group_size=None,
        sensitive_as_feature=False,
        n_jobs=1,
        random_state=None,
    ):
        self.sensitive = sensitive
        self.penalty = penalty
        self.fairness_weight = fairness_weight
        self.temperature = temperature
        self.epsilon = epsilon
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_child_samples = min_child_samples
        self.reg_lambda = reg_lambda
        self.min_group_size = min_group_size
        self.sensitive_as_feature = sensitive_as_feature
        self.n_jobs = n_jobs
        self.random_state = random_state

    @staticmethod
    def _init_score(y, w):
        return float(w @ y / w.sum())

    @staticmethod
    def _loss_terms(raw, y, w):
        """Predictions, their slope 1 and the squared error's gradient and hessian."""
        return raw, 1.0, w * (raw - y), w
