"""The differentiable fairness penalties inside LightGBM's gradient boosting."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit, logit
from sklearn.utils._param_validation import (  # scikit-learn's own validation;
    Interval,  # no public equivalent of these parameter constraints
)
from sklearn.utils.validation import check_random_state

from ._base import BaseFairPenalised

#: Smallest hessian handed to LightGBM (its leaves divide by the sum).
MIN_HESSIAN = 1e-6


class _PenalisedLogLoss:
    """LightGBM custom objective: log-loss plus ``λ · N · penalty``.

    LightGBM minimises a *sum* over samples, so the penalty, defined like the
    MLP's on the mean log-loss scale, is multiplied by the total weight.
    """

    def __init__(self, estimator, y, weight, codes):
        self.estimator, self.y, self.weight, self.codes = estimator, y, weight, codes
        self.values = []

    def __call__(self, raw, _dataset):
        p = expit(raw)
        slope = p * (1.0 - p)  # dp / draw
        grad = self.weight * (p - self.y)
        hess = np.maximum(self.weight * slope, MIN_HESSIAN)
        if self.estimator.penalty is not None:
            value, dpen = self.estimator._penalty_grad(p, self.codes)
            grad = grad + self.weight.sum() * dpen * slope
            self.values.append(value)
        return grad, hess


class FairLGBMClassifier(BaseFairPenalised):
    """LightGBM classifier whose objective adds a demographic-parity penalty.

    Each boosting round fits a tree to the gradient of
    ``sum_i w_i log-loss_i + fairness_weight * sum_i w_i * penalty(p)``,
    where ``p`` are the current probabilities on the training set and the
    penalty is DiffMCDP, DiffDP or DiffABCC (:func:`fairness_penalty`). For
    DiffMCDP the location ŷ* and the worst pair of groups are re-found with
    the exact MCDP on the whole training set at every round (boosting is
    full-batch), which is Algorithm 3 of Jin et al. (ICML 2024) with trees
    in place of gradient steps. ``penalty=None`` is plain LightGBM with the
    binary log-loss.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: names for a DataFrame, integer
        indices for an array. Several columns are intersected.
    penalty : {"mcdp", "dp", "abcc"} or None, default="mcdp"
        The fairness regulariser; None is the plain log-loss.
    fairness_weight : float, default=0.5
        λ >= 0, on the scale of the *mean* log-loss (as for
        :class:`FairMLPClassifier`).
    temperature : float, default=10.0
        τ > 0 of the sigmoid CDFs (``"mcdp"`` and ``"abcc"``).
    epsilon : float, default=0.0
        ε of MCDP(ε) for ``penalty="mcdp"``.
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
    min_group_size : int or None, default=None
        As for :class:`FairMLPClassifier`: an int ``k`` leaves the groups of
        fewer than ``k`` samples out of the penalty (the trees still fit
        them); None keeps them all and warns about those under 30 samples.
    sensitive_as_feature : bool, default=False
        Whether the sensitive columns are also model inputs.
    n_jobs : int, default=1
        LightGBM threads.
    random_state : int, RandomState instance or None, default=None
        Seeds LightGBM.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels.
    n_features_in_ : int
        Number of columns of ``X`` seen in fit (sensitive ones included).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` is a DataFrame with string column names.
    booster_ : lightgbm.Booster
        The trained trees (without the custom objective, so it pickles).
    init_score_ : float
        The starting raw score, the log-odds of the weighted positive rate
        (what LightGBM's ``boost_from_average`` does for its own binary
        objective, which a custom objective does not get).
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
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairPenalised._parameter_constraints,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "num_leaves": [Interval(Integral, 2, None, closed="left")],
        "min_child_samples": [Interval(Integral, 1, None, closed="left")],
        "reg_lambda": [Interval(Real, 0, None, closed="left")],
        "n_jobs": [Integral],
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

    def _fit(self, features, y01, w, codes):
        import lightgbm

        rate = float(np.clip(w @ y01 / w.sum(), 1e-6, 1 - 1e-6))
        self.init_score_ = float(logit(rate))
        objective = _PenalisedLogLoss(self, y01, w, codes)

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
        data = lightgbm.Dataset(
            features,
            label=y01,
            init_score=np.full(features.shape[0], self.init_score_),
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
