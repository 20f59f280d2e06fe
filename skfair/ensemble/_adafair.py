"""AdaFair: cumulative-fairness adaptive boosting for equalized odds."""

from __future__ import annotations

import numbers
from typing import ClassVar

import numpy as np
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_random_state

from skfair.utils import resolve_privileged
from skfair.utils._validation import check_sample_weight_1d

from ._base import BaseFairEnsemble, Interval, _fit_context

#: Weighted error used for the learner weight of a stump that makes no error
#: on the weighted training data, so that its weight stays finite.
_MIN_ERROR = 1e-10


def _rate(hits, cell, sample_weight):
    """Weighted fraction of ``hits`` within ``cell``; None for an empty cell."""
    total = sample_weight[cell].sum()
    if total <= 0:
        return None
    return sample_weight[cell & hits].sum() / total


def _stage_statistics(y, y_pred, protected, sample_weight, kept=True):
    """Error, balanced error and equalized-odds gaps of one partial ensemble.

    Parameters
    ----------
    y, y_pred : ndarray of shape (n_samples,) of 0/1
        True labels and the partial ensemble's predictions.
    protected : ndarray of shape (n_samples,), dtype bool
        Membership of the protected (non-privileged) groups.
    sample_weight : ndarray of shape (n_samples,)
        The user's sample weights.
    kept : ndarray of shape (n_samples,), dtype bool, or True
        The samples whose group is compared (``min_group_size``); the gaps
        ignore the others.

    Returns
    -------
    error : float
        Weighted error rate.
    balanced_error : float
        One minus the mean of the weighted TPR and TNR.
    delta_tpr, delta_tnr : float
        Non-protected minus protected TPR (resp. TNR); 0 when a group has no
        sample of that class.
    """
    correct = y_pred == y
    error = sample_weight[~correct].sum() / sample_weight.sum()
    positive, negative = y == 1, y == 0
    tpr = _rate(correct, positive, sample_weight)
    tnr = _rate(correct, negative, sample_weight)
    balanced_error = 1.0 - 0.5 * ((tpr or 0.0) + (tnr or 0.0))
    deltas = []
    for cls in (positive & kept, negative & kept):
        rate_non_protected = _rate(correct, cls & ~protected, sample_weight)
        rate_protected = _rate(correct, cls & protected, sample_weight)
        if rate_non_protected is None or rate_protected is None:
            deltas.append(0.0)
        else:
            deltas.append(float(rate_non_protected - rate_protected))
    return float(error), float(balanced_error), deltas[0], deltas[1]


def _fairness_costs(y, incorrect, protected, delta_tpr, delta_tnr, kept=True):
    """AdaFair's fairness cost ``u`` of every sample.

    ``u = 1 + |δ|`` on the samples the weak learner misclassified in the
    disadvantaged (group, class) cell: the protected positives when
    ``δTPR > 0``, the non-protected positives when ``δTPR < 0``, and likewise
    for the negatives with ``δTNR``; ``u = 1`` everywhere else.

    Parameters
    ----------
    y : ndarray of shape (n_samples,) of 0/1
        True labels.
    incorrect : ndarray of shape (n_samples,), dtype bool
        Samples the current weak learner misclassified.
    protected : ndarray of shape (n_samples,), dtype bool
        Membership of the protected groups.
    delta_tpr, delta_tnr : float
        Non-protected minus protected TPR and TNR of the partial ensemble.
    kept : ndarray of shape (n_samples,), dtype bool, or True
        The samples whose group is compared; the others keep ``u = 1``.

    Returns
    -------
    u : ndarray of shape (n_samples,)
    """
    u = np.ones(y.shape[0])
    for cls, delta in ((1, delta_tpr), (0, delta_tnr)):
        if delta == 0:
            continue
        disadvantaged = (protected if delta > 0 else ~protected) & kept
        u[(y == cls) & incorrect & disadvantaged] = 1.0 + abs(delta)
    return u


def _update_weights(weights, incorrect, alpha, confidence, u):
    """Reweight the misclassified samples and renormalise.

    ``w_i <- w_i * u_i * exp(alpha * confidence_i)`` for the misclassified
    samples, unchanged otherwise, then divided by the sum.
    """
    new = weights.copy()
    new[incorrect] *= u[incorrect] * np.exp(alpha * confidence[incorrect])
    return new / new.sum()


class AdaFairClassifier(BaseFairEnsemble):
    """AdaFair: AdaBoost of stumps with a cumulative equalized-odds cost.

    AdaFair (Iosifidis & Ntoutsi, 2019) boosts decision stumps, and in every
    round raises the weights of the misclassified samples of the group that
    the *ensemble so far* treats worse, separately for each class, so that
    the ensemble's true-positive and true-negative rates become equal across
    the protected and non-protected groups (equalized odds). Finally it keeps
    the first θ learners, θ minimising a balanced-error + fairness objective
    on the training data, which also tackles class imbalance.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: names for a DataFrame, integer
        indices for an array. Several columns are intersected. A numeric
        column with many distinct values (a continuous variable) is refused:
        bin it first.
    privileged : object or None, default=None
        The label of the non-protected group (a tuple of labels for several
        intersected columns); every other group is protected. None takes the
        most frequent group in the training data (ties: the first label in
        sorted order), as in :func:`skfair.utils.resolve_privileged`. Pass it
        explicitly whenever the privileged group is not the majority (e.g.
        race in COMPAS).
    n_estimators : int, default=50
        Maximum number of boosting rounds.
    trade_off_c : float, default=1.0
        The weight ``c`` in [0, 1] of the balanced error against the error in
        the θ-selection objective ``c·BER + (1 − c)·ERR + |ΔTPR| + |ΔTNR|``.
    learning_rate : float, default=1.0
        Multiplies every learner weight α. 1.0 follows the reference
        implementation (α = ln((1 − err)/err)); 0.5 gives the classical
        AdaBoost weight ½ ln((1 − err)/err).
    min_group_size : int or None, default=None
        None keeps every group and warns (``SmallGroupWarning``) about groups
        of fewer than 30 samples. An int ``k`` leaves out groups of fewer than
        ``k`` samples: they are boosted but take no part in ΔTPR, ΔTNR and the
        fairness costs. Fewer than two groups left is an error.
    sensitive_as_feature : bool, default=False
        Whether the sensitive columns are also inputs of the stumps. When
        False they only define the groups and may hold any labels.
    random_state : int, RandomState instance or None, default=None
        Seeds the stumps (which break ties between equally good splits).

    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
        The θ kept stumps (fitted on 0/1 labels, 1 meaning ``classes_[1]``).
    estimator_weights_ : ndarray of shape (theta_,)
        Their weights α.
    estimator_errors_ : ndarray of shape (n_rounds,)
        Weighted training error of every trained stump (θ-selection may keep
        fewer).
    objective_path_ : ndarray of shape (n_rounds,)
        The θ-selection objective of the partial ensemble after each round.
    theta_ : int
        Number of kept learners, ``argmin(objective_path_) + 1``.
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class.
    groups_ : tuple
        The group labels found in fit (without those left out by
        ``min_group_size``).
    privileged_ : object
        The non-protected group's label.
    n_features_in_ : int
        Number of columns of ``X`` in fit, the sensitive ones included.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X`` in fit, when a DataFrame with string names.

    See Also
    --------
    FairGBMClassifier : Gradient boosting under group-wise FPR/FNR
        constraints.

    Notes
    -----
    Round ``t`` fits a stump ``h_t`` on the weights ``w``, with weighted error
    ``err_t`` and weight ``α_t = learning_rate · ln((1 − err_t)/err_t)``. The
    partial ensemble ``H_t = sign(Σ_{s≤t} α_s h_s)`` gives, on the training
    data, ``ΔTPR = TPR_non-protected − TPR_protected`` and likewise ``ΔTNR``.
    The fairness cost ``u_i = 1 + |Δ|`` on the samples that ``h_t``
    misclassified in the disadvantaged (group, class) cell — the protected
    positives if ``ΔTPR > 0``, the non-protected positives if ``ΔTPR < 0``,
    the same for negatives with ``ΔTNR`` — and ``u_i = 1`` elsewhere. Then
    ``w_i ← w_i · u_i · exp(α_t · ĉ_i)`` for the misclassified samples, where
    ``ĉ_i`` is the stump's confidence (the class probability of its leaf,
    in [0.5, 1], as in the reference code), and ``w`` is renormalised.

    Deviations from the reference implementation, which are fixes:

    * The reference's TNR branch tests the sign of ΔTPR instead of ΔTNR; here
      each class uses its own gap.
    * The reference needs labels in {-1, +1} (it reweights negatives only
      when ``y == -1``); the HFM paper's code called it with 0/1 labels, so
      negatives were never reweighted. Any two labels work here.
    * A stump with zero weighted error crashed the reference; here it gets
      the weight of an error of 1e-10 and boosting stops (the weights would
      no longer change). A stump no better than chance (``err ≥ 0.5``) stops
      boosting and is discarded, unless it is the first, which is kept with
      α = 1 (the ensemble then predicts like that stump).
    * ΔTPR and ΔTNR are measured from the first round on (the reference
      scores round one's fairness as 1), weighted by ``sample_weight``; a gap
      is 0 when a group has no sample of that class.

    ``decision_function`` returns the normalised margin
    ``Σ α_t h_t(x) / Σ α_t`` in [−1, 1] (``h_t`` in {−1, +1}), and
    ``predict_proba`` its affine map ``(1 + margin)/2``, the α-weighted share
    of votes for ``classes_[1]``; a tie (margin 0) predicts ``classes_[0]``.

    References
    ----------
    .. [1] V. Iosifidis and E. Ntoutsi, "AdaFair: Cumulative Fairness Adaptive
       Boosting", CIKM 2019, pp. 781–790.

    Examples
    --------
    >>> from skfair.ensemble import AdaFairClassifier
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 400)
    >>> x = rng.normal(size=400) + (sex == "male")
    >>> X = pd.DataFrame({"x": x, "sex": sex})
    >>> y = (x + rng.normal(size=400) > 0.5).astype(int)
    >>> clf = AdaFairClassifier(sensitive="sex", privileged="male",
    ...                         n_estimators=20, random_state=0).fit(X, y)
    >>> clf.privileged_, 1 <= clf.theta_ <= 20
    ('male', True)
    >>> clf.predict_proba(X.head(2)).shape
    (2, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairEnsemble._parameter_constraints,
        "privileged": "no_validation",
        "n_estimators": [Interval(numbers.Integral, 1, None, closed="left")],
        "trade_off_c": [Interval(numbers.Real, 0, 1, closed="both")],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        sensitive,
        privileged=None,
        n_estimators=50,
        trade_off_c=1.0,
        learning_rate=1.0,
        min_group_size=None,
        sensitive_as_feature=False,
        random_state=None,
    ):
        self.sensitive = sensitive
        self.privileged = privileged
        self.n_estimators = n_estimators
        self.trade_off_c = trade_off_c
        self.learning_rate = learning_rate
        self.min_group_size = min_group_size
        self.sensitive_as_feature = sensitive_as_feature
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Boost stumps with the cumulative fairness cost, then select θ.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Training data, including the sensitive column(s).
        y : array-like of shape (n_samples,)
            Binary labels of any type (ints, bools, strings, ±1).
        sample_weight : array-like of shape (n_samples,), default=None
            Initial sample weights; the error rates that drive the fairness
            costs and θ-selection are weighted by them too.

        Returns
        -------
        self : AdaFairClassifier
            The fitted estimator.
        """
        features, y01, grouping = self._fit_input(X, y)
        n_samples = features.shape[0]
        user_weight = check_sample_weight_1d(sample_weight, n_samples)
        user_weight = np.ones(n_samples) if user_weight is None else user_weight
        privileged_code = resolve_privileged(self.privileged, grouping)
        self.privileged_ = grouping.labels[privileged_code]
        protected, kept = grouping.codes != privileged_code, grouping.kept
        rng = check_random_state(self.random_state)
        c = self.trade_off_c

        weights = user_weight / user_weight.sum()
        margin = np.zeros(n_samples)
        estimators, alphas, errors, objectives = [], [], [], []
        for iboost in range(self.n_estimators):
            stump = DecisionTreeClassifier(
                max_depth=1, random_state=rng.randint(np.iinfo(np.int32).max)
            )
            stump.fit(features, y01, sample_weight=weights)
            proba = stump.predict_proba(features)
            stump_pred = stump.classes_[np.argmax(proba, axis=1)]
            incorrect = stump_pred != y01
            error = float(weights[incorrect].sum())
            stop = False
            if error >= 0.5:
                if iboost > 0:
                    break  # no better than chance: discard and stop
                alpha, stop = 1.0, True
            else:
                if error <= 0.0:
                    error_for_alpha, stop = _MIN_ERROR, True
                else:
                    error_for_alpha = error
                alpha = self.learning_rate * np.log(
                    (1.0 - error_for_alpha) / error_for_alpha
                )
            estimators.append(stump)
            alphas.append(alpha)
            errors.append(error)
            margin += alpha * (2.0 * stump_pred - 1.0)
            ensemble_pred = (margin > 0).astype(np.int64)
            err, ber, delta_tpr, delta_tnr = _stage_statistics(
                y01, ensemble_pred, protected, user_weight, kept
            )
            objectives.append(
                c * ber + (1.0 - c) * err + abs(delta_tpr) + abs(delta_tnr)
            )
            if stop or iboost == self.n_estimators - 1:
                break
            u = _fairness_costs(y01, incorrect, protected, delta_tpr, delta_tnr, kept)
            confidence = proba.max(axis=1)
            weights = _update_weights(weights, incorrect, alpha, confidence, u)

        self.objective_path_ = np.asarray(objectives)
        self.estimator_errors_ = np.asarray(errors)
        self.theta_ = int(np.argmin(self.objective_path_)) + 1
        self.estimators_ = estimators[: self.theta_]
        self.estimator_weights_ = np.asarray(alphas[: self.theta_])
        return self

    def decision_function(self, X):
        """Normalised ensemble margin, in [-1, 1].

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            The samples to score; the columns are those of fit.

        Returns
        -------
        margin : ndarray of shape (n_samples,)
            ``Σ α_t h_t(x) / Σ α_t`` with ``h_t`` in {-1, +1}; positive means
            ``classes_[1]``.
        """
        features = self._predict_features(X)
        margin = np.zeros(features.shape[0])
        for stump, alpha in zip(self.estimators_, self.estimator_weights_, strict=True):
            proba = stump.predict_proba(features)
            margin += alpha * (2.0 * stump.classes_[np.argmax(proba, axis=1)] - 1.0)
        return margin / self.estimator_weights_.sum()

    @staticmethod
    def _proba_of_positive(margin):
        return (1.0 + margin) / 2.0
