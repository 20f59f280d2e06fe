"""Penalised training aimed at a fairness target: the search for the weight.

``fairness_target`` asks for a value of the penalised metric instead of a
weight. The estimator holds out a validation split (stratified by group, and
by class for a classifier), and :func:`search_weight` looks for the smallest
``fairness_weight`` whose model meets the target there: it doubles (or
halves) the weight from its starting value until the target is bracketed,
then bisects the bracket in log space, for at most ``max_fairness_search``
fits. Every fit uses the same seed (the same initial weights and the same
mini-batches), so that the validation metric changes with the weight only.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import is_classifier
from sklearn.utils._param_validation import Interval  # no public equivalent
from sklearn.utils.validation import check_random_state

from skfair.metrics import abcc, delta_dp, mcdp
from skfair.utils._groups import user_stacklevel

from ._penalties import PENALTIES

#: Bisection stops once the bracket's ends are within this ratio.
BRACKET_RATIO = 2.0 ** (1.0 / 8.0)
#: The starting weight of the search when ``fairness_weight`` is 0.
START_WEIGHT = 1.0


class FairnessTargetWarning(UserWarning):
    """A penalised estimator did not reach its ``fairness_target``.

    Emitted by :class:`FairMLPClassifier` and :class:`FairMLPRegressor` when
    none of the ``max_fairness_search`` fits met ``fairness_target`` on the
    validation split; the message gives the closest value reached and its
    weight, and the estimator keeps that fit (``fairness_achieved_`` >
    ``fairness_target``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skfair.inprocessing import FairMLPClassifier, FairnessTargetWarning
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = np.column_stack([group, rng.normal(2 * group, 1.0, 400)])
    >>> y = (X[:, 1] > 1).astype(int)
    >>> model = FairMLPClassifier(sensitive=0, fairness_target=0.0,
    ...                           max_fairness_search=2, random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always", FairnessTargetWarning)
    ...     _ = model.fit(X, y)
    >>> caught[0].category.__name__
    'FairnessTargetWarning'
    >>> bool(model.fairness_achieved_ > 0.0)
    True
    """


class FairnessTargetMixin:
    """``fairness_target``: the MLP estimators' search for their weight.

    For an estimator with the training run ``_train(features, target, w,
    codes, random_state)`` (of :class:`._mlp._MLPTrainingMixin`), which
    reads the penalty's weight from :meth:`_training_weight`. Without a
    target, ``_fit`` trains once at ``fairness_weight``; with one, it holds
    out a validation split and runs :func:`search_weight`, every run on the
    same seed, then keeps the fitted state of the chosen run.
    """

    _target_constraints: ClassVar[dict] = {
        "fairness_target": [Interval(Real, 0, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "max_fairness_search": [Interval(Integral, 1, None, closed="left")],
    }

    def _fit(self, features, target, w, codes):
        """Train once at ``fairness_weight``, or search for ``fairness_target``."""
        if self.fairness_target is None:
            self.fairness_weight_ = self._resolved_weight()
            super()._fit(features, target, w, codes)
            return
        if self.penalty is None:
            raise ValueError(
                TARGET_WITHOUT_PENALTY_ERROR.format(target=self.fairness_target)
            )
        rng = check_random_state(self.random_state)
        strata = self._split_strata(target, codes)
        train, val = validation_split(strata, float(self.validation_fraction), rng)
        n_groups = np.unique(codes[val][codes[val] >= 0]).size
        if n_groups < 2:
            raise ValueError(
                VALIDATION_GROUPS_ERROR.format(
                    fraction=self.validation_fraction, n_groups=n_groups
                )
            )
        seed = int(rng.randint(np.iinfo(np.int32).max))
        parts = (features[train], target[train], w[train], codes[train])
        self._search(parts, features[val], codes[val], seed)

    def _search(self, parts, X_val, codes_val, seed):
        """Run :func:`search_weight`, keep the chosen fit, warn if it misses."""

        def evaluate(weight):
            self.fairness_weight_ = weight
            self._train(*parts, seed)
            scores = self._validation_scores(self._raw_score(X_val))
            metric = penalised_metric(
                scores,
                codes_val,
                self._target_metric(),
                self._penalty_epsilon(),
                self._penalty_domain,
                getattr(self, "class_agg", "max"),
            )
            state = {
                k: getattr(self, k) for k in self._fitted_state() if hasattr(self, k)
            }
            return metric, state

        start = self._resolved_weight() or START_WEIGHT
        target_value = float(self.fairness_target)
        budget = int(self.max_fairness_search)
        weight, metric, state, tried, reached = search_weight(
            evaluate, target_value, start, budget
        )
        for key in self._fitted_state():
            if hasattr(self, key):
                delattr(self, key)
        for key, value in state.items():
            setattr(self, key, value)
        self.fairness_weight_ = weight
        self.fairness_achieved_ = metric
        self.fairness_search_ = {
            "weight": np.array([t[0] for t in tried]),
            "fairness": np.array([t[1] for t in tried]),
        }
        if not reached:
            name = self._target_metric_name()
            warn_not_reached(target_value, budget, name, weight, metric, tried)

    def _split_strata(self, target, codes):
        """Validation strata: the groups (and the classes of a classifier)."""
        groups = codes + 1  # -1: left out of the penalty
        if not is_classifier(self):
            return groups
        classes = np.asarray(target, dtype=np.intp)
        return groups * (int(classes.max()) + 1) + classes

    def _validation_scores(self, raw):
        """The penalised scores of raw outputs: probabilities or predictions."""
        if not is_classifier(self):
            return raw
        return expit(raw) if raw.ndim == 1 else softmax(raw, axis=1)

    def _target_metric(self):
        """The penalty whose exact metric ``fairness_target`` is a level of."""
        return self.penalty if self.penalty in PENALTIES else "dp"

    def _target_metric_name(self):
        metric = self._target_metric()
        if metric == "mcdp":
            return f"MCDP({float(self.epsilon):g})"
        return {"abcc": "ABCC", "dp": "mean-score gap"}[metric]

    def _fitted_state(self):
        """The fitted attributes one training run sets."""
        return (
            "coefs_",
            "intercepts_",
            "n_iter_",
            "loss_curve_",
            self._curve_name,
            "alignment_curve_",
        )

    def _resolved_weight(self):
        """``fairness_weight`` as a number (subclasses resolve ``"auto"``)."""
        return float(self.fairness_weight)

    def _training_weight(self):
        return self.fairness_weight_


TARGET_NOT_REACHED_WARNING = (
    "fairness_target={target:.4g} was not reached within max_fairness_search="
    "{budget} fits: the closest validation {metric} reached is {best:.4g}, at "
    "fairness_weight={weight:.4g} (weights tried: {tried}). The model of that "
    "fit is kept. Raise max_fairness_search, relax the target, or train "
    "longer (max_iter)."
)
TARGET_WITHOUT_PENALTY_ERROR = (
    "fairness_target={target!r} asks for a level of the penalised metric, but "
    "penalty=None trains without a penalty. Choose a penalty (e.g. "
    "penalty='mcdp'), or set fairness_target=None."
)
VALIDATION_GROUPS_ERROR = (
    "fairness_target needs at least two groups of the penalty in the "
    "validation split (validation_fraction={fraction}); it holds {n_groups}. "
    "Fit on more samples per group or raise validation_fraction."
)

#: Docstring parts (:func:`skfair.utils._docstrings.fill_doc`) of the MLP
#: estimators' target parameters and attributes.
TARGET_DOCS = {
    "fairness_target": """
        fairness_target : float or None, default=None
            A level of the penalised metric to reach instead of a weight, on a
            validation split of ``validation_fraction`` of the training
            samples: the exact metric the penalty smooths, i.e.
            :func:`skfair.metrics.mcdp` with ``epsilon`` for ``"mcdp"``,
            :func:`skfair.metrics.abcc` for ``"abcc"``, and the largest gap in
            mean score (:func:`skfair.metrics.delta_dp`) for the others; with
            more than two classes, per class and aggregated by ``class_agg``;
            for a regressor, of the standardised predictions (``"dp"`` and
            ``"abcc"`` are then in units of ``y_scale_``). When given,
            ``fairness_weight`` is where the search for the weight starts
            (1.0 if it is 0) and ``fairness_weight_`` the weight found; the
            model is the one trained on the rest of the samples at that weight.
            None trains once at ``fairness_weight`` on every sample.
        validation_fraction : float, default=0.2
            With ``fairness_target``, the share of the samples held out
            (stratified by group, and by class for a classifier) to measure
            the metric; ignored without a target.
        max_fairness_search : int, default=8
            With ``fairness_target``, the most fits of the search: the weight
            is doubled (or halved) until the target is bracketed, then the
            bracket is bisected in log space. A
            :class:`FairnessTargetWarning` says so when no fit met the target.
    """,
    "target_attributes": """
        fairness_weight_ : float
            The penalty's weight of the fitted model: ``fairness_weight``, or
            the weight found for ``fairness_target``.
        fairness_achieved_ : float
            With ``fairness_target`` only: the penalised metric of the fitted
            model on the validation split.
        fairness_search_ : dict of ndarray
            With ``fairness_target`` only: ``"weight"`` and ``"fairness"``, the
            weight and validation metric of each fit of the search, in order.
    """,
}


def penalised_metric(scores, codes, penalty, epsilon, domain, class_agg="max"):
    """The exact metric that ``penalty`` smooths, on the rows ``codes >= 0``.

    ``scores`` are a binary classifier's probabilities, a regressor's
    standardised predictions (1-D) or ``K`` class probabilities (2-D, the
    classes aggregated by ``class_agg``): MCDP(ε) for ``"mcdp"``, ABCC for
    ``"abcc"``, the largest gap in mean score for ``"dp"`` and for Fair
    Mixup and DRAlign (whose fairness terms are mean gaps), over the worst
    pair of groups. ``domain`` is that of :func:`skfair.metrics.mcdp` (it
    matters for ε > 0 only).
    """
    kept = codes >= 0
    scores, groups = scores[kept], codes[kept]
    options = {"sensitive_features": groups, "min_group_size": 1}
    if scores.ndim == 2:
        options["class_agg"] = class_agg
    if penalty == "mcdp":
        value = mcdp(None, scores, epsilon=epsilon, domain=domain, **options)
    elif penalty == "abcc":
        value = abcc(None, scores, **options)
    else:
        value = delta_dp(None, scores, **options)
    return float(value)


def validation_split(strata, fraction, rng):
    """``(train, validation)`` indices: ``fraction`` of each stratum held out.

    Each stratum (an integer label per sample) gives ``round(fraction *
    size)`` of its samples, chosen at random, to the validation split, and
    keeps at least one in training, so that every class a classifier sees is
    still in its training split.
    """
    validation = []
    for label in np.unique(strata):
        members = np.flatnonzero(strata == label)
        n_out = min(members.size - 1, round(fraction * members.size))
        validation.append(rng.permutation(members)[:n_out])
    validation = np.sort(np.concatenate(validation))
    train = np.setdiff1d(np.arange(strata.size), validation)
    return train, validation


def search_weight(evaluate, target, start, budget):
    """The smallest weight whose ``evaluate(weight)[0]`` is at most ``target``.

    ``evaluate(weight)`` fits a model at ``weight`` and returns ``(metric,
    state)``. The weight starts at ``start`` and is doubled while the metric
    is above the target (halved while it is at most the target) until the
    target is bracketed, then the bracket ``lo < hi`` is bisected at
    ``sqrt(lo * hi)`` until ``hi / lo <= BRACKET_RATIO``; at most ``budget``
    fits in all.

    Returns ``(weight, metric, state, trials, reached)``: the smallest weight
    tried that met the target (or, if none did, the one of the smallest
    metric), its metric and state, every ``(weight, metric)`` tried, and
    whether the target was met.
    """
    trials = []

    def meets(weight):
        metric, state = evaluate(weight)
        trials.append((weight, metric, state))
        return metric <= target

    lo = hi = None
    weight = float(start)
    if meets(weight):
        hi = weight
        while len(trials) < budget and lo is None:
            weight /= 2.0
            lo, hi = (None, weight) if meets(weight) else (weight, hi)
    else:
        lo = weight
        while len(trials) < budget and hi is None:
            weight *= 2.0
            lo, hi = (lo, weight) if meets(weight) else (weight, None)
    while len(trials) < budget and lo is not None and hi is not None:
        if hi / lo <= BRACKET_RATIO:
            break
        weight = float(np.sqrt(lo * hi))
        lo, hi = (lo, weight) if meets(weight) else (weight, hi)
    met = [t for t in trials if t[1] <= target]
    best = min(met, key=lambda t: t[0]) if met else min(trials, key=lambda t: t[1])
    tried = [(w, m) for w, m, _ in trials]
    return best[0], best[1], best[2], tried, bool(met)


def warn_not_reached(target, budget, metric_name, weight, best, tried):
    """Warn that no fit met ``target``, with the closest value reached."""
    warnings.warn(
        TARGET_NOT_REACHED_WARNING.format(
            target=target,
            budget=budget,
            metric=metric_name,
            best=best,
            weight=weight,
            tried=", ".join(f"{w:.3g}" for w, _ in tried),
        ),
        FairnessTargetWarning,
        stacklevel=user_stacklevel(),
    )
