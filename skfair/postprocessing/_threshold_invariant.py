"""Post-processing to demographic parity or equal opportunity at every threshold.

:class:`ThresholdInvariantClassifier` moves every group's score distribution
onto their common 1-D Wasserstein barycentre, so that the share of positive
decisions is the same in every group whatever threshold is used afterwards.
With ``constraint="equal_opportunity"`` (``"predictive_equality"``) the maps
are learnt on the scores of the positives (negatives) only, so that the
true-positive (false-positive) rate is the same in every group at every
threshold.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,  # no public equivalent (parameter validation)
)
from sklearn.utils import get_tags
from sklearn.utils._param_validation import (  # no public equivalent
    HasMethods,
    StrOptions,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import assert_all_finite, check_is_fitted, column_or_1d

from ..utils._docstrings import fill_doc
from ..utils._validation import (
    POS_LABEL_NOT_FOUND_ERROR,
    check_binary_target,
    check_binary_y,
    check_sample_weight_1d,
    same_label,
)
from ._optimal import _plain
from ._repair import REPAIR_DOCS, REPAIR_PARAMETER_CONSTRAINTS, BarycentreRepairMixin
from ._response import has_response, positive_scores, resolve_response_method

MULTICLASS_ERROR = (
    "Only binary classification is supported. ThresholdInvariantClassifier "
    "repairs binary classifiers only; y holds "
    "more than two classes ({classes}). Mapping each class's probability "
    "onto its own barycentre does not keep the rows summing to 1, and "
    "renormalising them breaks each class's parity in general, so skfair has no "
    "multiclass repair. Train a fair multiclass model instead "
    "(skfair.inprocessing.FairMLPClassifier or FairLGBMClassifier, with "
    "class_agg='max'), or repair one class against the rest (y == k). See the "
    "user guide's 'Why there is no multiclass post-processing'."
)
MISSING_LABEL_ERROR = (
    "constraint={constraint!r} maps every group's scores so that those of its "
    "{which} (y {op} {pos_label!r}) follow one common distribution, but group "
    "{group!r} of {name!r} has no {which} (of positive weight) in the fit "
    "data, so its map cannot be learnt. Fit on data where every group holds "
    "{which}, merge the group with another, leave it out with "
    "min_group_size, or use constraint='demographic_parity'."
)
#: The rows each constraint's maps are learnt on: y == pos_label or not.
_CONDITIONED_ON = {
    "equal_opportunity": ("positives", "=="),
    "predictive_equality": ("negatives", "!="),
}


@fill_doc(REPAIR_DOCS)
class ThresholdInvariantClassifier(
    BarycentreRepairMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Repair a binary classifier's scores to parity at every threshold.

    For each group ``g`` (the intersection of the ``sensitive`` columns of
    ``X``), the classifier estimates the CDF ``F_g`` and quantile function
    ``Q_g`` of the base estimator's positive-class scores, and the barycentric
    quantile function ``Q̄ = Σ_g w_g Q_g`` (``w_g`` the group proportions), the
    1-D Wasserstein barycentre of the groups' score distributions. A score
    ``s`` of a member of ``g`` becomes

        ``(1 - repair) * s + repair * Q̄(F_g(s))``.

    With ``repair=1`` every group's repaired scores follow the same
    distribution (up to estimation error), so demographic parity holds at
    every threshold: ΔDP at any ``t``, MCDP(0) (the largest gap over all
    thresholds) and ABCC are all close to zero. Smaller values trace the
    fairness-accuracy trade-off along the Wasserstein geodesic. Within each
    group the order of the scores is preserved.

    ``constraint`` says whose scores ``F_g``, ``Q_g`` and ``w_g`` describe:
    every member's of the group (demographic parity, the default), its
    positives' (``y == pos_label``: equal opportunity) or its negatives'
    (predictive equality). The map is learnt on labelled rows at fit and
    applied to *every* score of the group at predict, without labels. With
    equal opportunity the repaired scores of every group's positives then
    follow ``Q̄``, so the share of a group's positives on either side of any
    threshold (its true-positive rate) is the same in every group: the
    largest TPR gap over all thresholds, MCDP(0) among the positives, is close
    to zero. Predictive equality does the same for the negatives and the
    false-positive rate. The other label's distributions are not equalised
    (see Notes).

    The groups are read from ``X`` itself, so ``predict`` needs no extra
    argument and the estimator works in :class:`~sklearn.pipeline.Pipeline`,
    :func:`~sklearn.model_selection.cross_validate` and
    :class:`~sklearn.model_selection.GridSearchCV` with scikit-learn's
    built-in scorers.

    Parameters
    ----------
    estimator : estimator instance
        The binary classifier whose scores are repaired. It is cloned and
        fitted, unless it is a :class:`~sklearn.frozen.FrozenEstimator`: an
        already-fitted model is then used as is, and its scores on the data
        passed to :meth:`fit` (which should not be its training data) estimate
        ``F_g``; ``cv`` and ``calibration`` are then ignored.

    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: name(s) when ``X`` is a DataFrame,
        integer index(es) when it is an array. With several columns the groups
        are their intersection. The columns are also passed to ``estimator``;
        drop them inside a pipeline if the model should not see them. A
        numeric column with many distinct values (a continuous variable) is
        refused: bin it first.

    constraint : {"demographic_parity", "equal_opportunity", \
            "predictive_equality"}, default="demographic_parity"
        Which scores the maps equalise: every group's (the share above any
        threshold is the same in every group), its positives' (equal
        true-positive rates at every threshold) or its negatives' (equal
        false-positive rates at every threshold). With the last two, ``F_g``
        and ``Q_g`` are those of the group's positives' (negatives') scores,
        ``w_g`` is the group's share of all the positives (negatives), and
        ``smoothing`` mixes in the pooled positives' (negatives') scores. Every
        group must hold positives (negatives) of positive weight in the fit
        data, or be left out by ``min_group_size``.

    pos_label : int, float, bool or str, default=None
        The label of the positives that ``constraint="equal_opportunity"``
        conditions on (the negatives, for ``"predictive_equality"``, are the
        other label); None is ``classes_[1]``. The scores repaired are always
        those of ``classes_[1]``. Unused with demographic parity.

    repair : float in [0, 1], default=1.0
        How far every score moves towards the barycentre: 0 leaves the scores
        unchanged, 1 repairs them fully. Used at predict time only, so that
        ``set_params(repair=...)`` on a fitted instance traces the
        fairness-accuracy trade-off without refitting.

    cv : int, cross-validation generator or iterable, default=5
        How the out-of-fold scores that estimate ``F_g`` are produced (with
        ``calibration="oof"``, by
        :func:`~sklearn.model_selection.cross_val_predict`): an int ``k``
        deals the rows of every group and class to ``k`` folds in turn, so
        that each clone is fitted on every group (contiguous folds would
        leave a group out on rows sorted by group); a splitter or iterable
        must put every sample in exactly one test fold.

    threshold : "auto" or float, default="auto"
        Decision threshold on the repaired scores used by :meth:`predict`
        (``score >= threshold`` is the positive class): "auto" is 0.5 for
        probabilities and 0 for decision functions.

    response_method : {"auto", "predict_proba", "decision_function"}, \
            default="auto"
        The estimator's method that gives the scores; "auto" tries
        ``predict_proba`` then ``decision_function``. The repaired scores are
        exposed through the same method.

    calibration : {"oof", "in_sample"}, default="oof"
        Which scores estimate ``F_g``. "oof": out-of-fold scores from clones
        fitted on the ``cv`` training folds (``cv`` extra fits), unless they
        cannot stand for the refitted model's scores (discrete scores whose
        values the clones do not share, or clones that differ more than the
        model's scores vary; see Notes), when the refitted model's own scores
        are used; ``calibration_`` says which. "in_sample": always the
        refitted estimator's scores on its own training data (one fit; only
        for models that do not overfit).

    <n_quantiles>

    smoothing : float, default=10.0
        Pseudo-count of the pooled score distribution mixed into every
        group's: ``F_g`` is estimated as ``(n_g F̂_g + smoothing F̂) /
        (n_g + smoothing)``, with ``n_g`` the group's (weighted) size and
        ``F̂`` the pooled empirical CDF. Steadies the maps of small groups;
        its effect on a group of ``n_g`` samples is at most
        ``smoothing / (n_g + smoothing)`` in CDF. 0 uses each group alone.

    ties : {"random", "midrank"}, default="random"
        How a score on an atom of ``F_g`` (a value shared by a positive
        fraction of the group) is placed in ``[F_g(s-), F_g(s)]``. "random":
        at a pseudo-random point drawn from a seeded hash of the sample's row
        of ``X``, so that models with discrete scores (trees, forests, k-NN)
        are repaired too while predictions stay deterministic per row
        (identical rows keep identical scores). "midrank": at the midpoint,
        so an atom stays an atom.

    unseen_group : {"error", "pooled", "identity"}, default="error"
        What :meth:`predict` does with a group absent at fit time: raise a
        ValueError, map its scores with the pooled CDF ``F̂`` onto the
        barycentre, or leave them unrepaired.

    min_group_size : int or None, default=None
        None gives every group its own map and warns (``SmallGroupWarning``)
        about groups of fewer than 30 samples. An int ``k`` leaves out the
        groups of fewer than ``k`` fit samples: they get no map of their own,
        do not weigh in the barycentre, and their scores are mapped like
        ``unseen_group="pooled"`` maps (through the pooled CDF onto the
        barycentre), whatever ``unseen_group`` says. Fewer than two groups
        left is an error.

    <n_jobs_random_state>

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted base classifier used at predict time.

    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the class whose scores are
        repaired.

    pos_label_ : object
        The label of the positives (``pos_label``, or ``classes_[1]``).

    <group_attributes>

    quantiles_ : ndarray of shape (n_groups, n_quantiles)
        Every group's (smoothed) score quantile function ``Q_g`` (of its
        positives' or negatives' scores, as ``constraint`` says).

    pooled_quantiles_ : ndarray of shape (n_quantiles,)
        The quantile function of all fit scores pooled (all the positives' or
        negatives', as ``constraint`` says).

    <barycenter_>

    calibration_ : {"oof", "in_sample", "frozen"}
        Which scores estimated ``F_g``: out-of-fold, the refitted model's own
        on its training data, or the frozen estimator's on the data passed to
        :meth:`fit`.

    response_method_ : str
        The estimator's method whose scores are repaired.

    threshold_ : float
        The decision threshold used by :meth:`predict`.

    <feature_attributes>

    See Also
    --------
    sklearn.model_selection.FixedThresholdClassifier : Thresholds scores
        without changing them.
    skfair.metrics.mcdp : Maximal cumulative demographic-parity gap; MCDP(0)
        is the largest ΔDP over all thresholds (among the positives: the
        largest TPR gap).
    OptimalParityClassifier : The most accurate randomised decisions meeting
        a parity constraint at one threshold.

    Notes
    -----
    **Estimation.** ``Q_g`` is the weighted empirical quantile function with
    Hazen plotting positions: the i-th smallest of ``n_g`` scores sits at
    level ``(i - 0.5) / n_g`` and levels in between are interpolated
    linearly; it is stored at ``n_quantiles`` evenly spaced levels, and
    ``F_g`` is its piecewise-linear inverse. A score repeated in the table
    is an atom, handled as ``ties`` says. Prediction evaluates ``F_g`` by a
    binary search in the group's table and ``Q̄`` by linear interpolation:
    O(n log m) for n samples and m quantile levels.

    **Which scores estimate F_g.** The map is applied at predict time to the
    refitted (deployed) model's scores on new data, so ``F_g`` must be the
    CDF of *those* scores. Out-of-fold scores stand for them when the clones
    score like the refitted model; the refitted model's own training scores
    do when it does not overfit. The first fail in two cases, where
    ``calibration="oof"`` falls back on the second:

    * *Discrete scores whose atoms the clones do not share*: at least half
      of the (weighted) rows sit on a score the model gives to different
      rows, and fewer than half on a value the out-of-fold scores also take. A tree
      refitted on other rows has other leaf values, so the atoms the deployed
      tree produces would never appear in out-of-fold tables and each would
      map to one point per group: no repair at all. Its own training scores
      hold exactly its atoms, and an atom's mass in a group is the share of
      the group's rows in the leaves (cells) that give that score, which the
      training rows estimate without the bias that overfitting puts in the
      score *values*. k-NN and forests (fractions of votes) keep their atoms
      across refits and stay out-of-fold.
    * *Clones that differ more than the scores vary*: the out-of-fold
      scores' standard deviation exceeds twice the refitted model's (a
      constant or near-constant model, whose level moves from fold to fold;
      such a model does not overfit, which would widen its own scores).

    With ``ties="random"`` each atom of the deployed model is then spread
    over its jump ``[F_g(s-), F_g(s)]`` in the group's table, so every
    group's repaired scores follow the barycentre. A strongly overfitting
    model with continuous scores is best repaired out-of-fold, or frozen and
    repaired on held-out rows; the user guide gives the measurements.

    **What equal opportunity does to the other rates.** The maps of
    ``constraint="equal_opportunity"`` are fitted to the positives alone;
    the negatives' scores go through the same maps, but nothing makes their
    distributions agree, so the false-positive-rate gaps may shrink or grow,
    and demographic parity is not guaranteed either (it fails whenever the
    groups' shares of positives differ and the negatives' distributions do
    not make up for it). The same holds, labels swapped, for predictive
    equality. Both (equalised odds at every threshold) would take two maps
    per group, one per label, and the label is not known at predict.
    A score outside the range of the group's table (smoothed with the pooled
    one) maps to an end of the barycentre: with equal opportunity many of the
    lowest-scoring negatives may share the lowest repaired score (their order
    among themselves is lost; no decision at a higher threshold changes).

    **Every threshold, not one.** fairlearn's ``ThresholdOptimizer`` (with
    ``constraints="true_positive_rate_parity"``) and
    :class:`OptimalParityClassifier` choose per-group (randomised) decisions
    that equalise the true-positive rates at the *one* operating point they
    optimise; the scores are left as they are, so another threshold is not
    fair. Here the scores themselves are repaired: the rates agree at every
    threshold, so the threshold can be chosen, or moved, after fitting, the
    scores can be ranked, and predictions are deterministic per row. When
    one threshold is fixed in advance, the one-point methods may keep more
    accuracy, since they need not constrain the other thresholds.

    References
    ----------
    .. [1] E. Chzhen, C. Denis, M. Hebiri, L. Oneto and M. Pontil, "Fair
       regression with Wasserstein barycenters", NeurIPS 2020.
    .. [2] R. Jiang, A. Pacchiano, T. Stepleton, H. Jiang and S. Chiappa,
       "Wasserstein fair classification", UAI 2020.
    .. [3] M. Chen and M. Wu, "Towards threshold invariant fair
       classification", UAI 2020.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 10_000)
    >>> X = np.column_stack([group, rng.normal(group, 1.0)])
    >>> y = (X[:, 1] + rng.normal(0, 1, 10_000) > 0.5).astype(int)
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.postprocessing import ThresholdInvariantClassifier
    >>> clf = ThresholdInvariantClassifier(
    ...     LogisticRegression(), sensitive=0, random_state=0
    ... ).fit(X[:5000], y[:5000])
    >>> X_new, g_new = X[5000:], group[5000:]
    >>> raw = clf.estimator_.predict_proba(X_new)[:, 1]
    >>> fair = clf.predict_proba(X_new)[:, 1]
    >>> def gap(scores, t):
    ...     rates = [(scores[g_new == g] >= t).mean() for g in (0, 1)]
    ...     return abs(rates[1] - rates[0])
    >>> for t in (0.2, 0.4, 0.6, 0.8):
    ...     print(f"threshold {t}: raw gap {gap(raw, t):.2f}, "
    ...           f"repaired gap {gap(fair, t):.2f}")
    threshold 0.2: raw gap 0.28, repaired gap 0.01
    threshold 0.4: raw gap 0.35, repaired gap 0.01
    threshold 0.6: raw gap 0.36, repaired gap 0.02
    threshold 0.8: raw gap 0.29, repaired gap 0.00

    With ``constraint="equal_opportunity"`` the positives' scores agree
    instead. MCDP(0) among the positives is the largest gap between the
    groups' true-positive rates over all thresholds:

    >>> from skfair.metrics import mcdp
    >>> eo = ThresholdInvariantClassifier(
    ...     LogisticRegression(), sensitive=0,
    ...     constraint="equal_opportunity", random_state=0,
    ... ).fit(X[:5000], y[:5000])
    >>> def tpr_gap(scores):
    ...     return mcdp(y[5000:], scores, sensitive_features=g_new, given="positive")
    >>> repaired = eo.predict_proba(X_new)[:, 1]
    >>> print(f"raw {tpr_gap(raw):.2f}, repaired {tpr_gap(repaired):.2f}")
    raw 0.34, repaired 0.04
    """

    _parameter_constraints: ClassVar[dict] = {
        **REPAIR_PARAMETER_CONSTRAINTS,
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "constraint": [
            StrOptions(
                {"demographic_parity", "equal_opportunity", "predictive_equality"}
            )
        ],
        "pos_label": [Real, str, "boolean", None],
        "threshold": [StrOptions({"auto"}), Real],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
    }

    def __init__(
        self,
        estimator,
        *,
        sensitive,
        constraint="demographic_parity",
        pos_label=None,
        repair=1.0,
        cv=5,
        threshold="auto",
        response_method="auto",
        calibration="oof",
        n_quantiles=1000,
        smoothing=10.0,
        ties="random",
        unseen_group="error",
        min_group_size=None,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.sensitive = sensitive
        self.constraint = constraint
        self.pos_label = pos_label
        self.repair = repair
        self.cv = cv
        self.threshold = threshold
        self.response_method = response_method
        self.calibration = calibration
        self.n_quantiles = n_quantiles
        self.smoothing = smoothing
        self.ties = ties
        self.unseen_group = unseen_group
        self.min_group_size = min_group_size
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(
        # ThresholdInvariantClassifier.estimator is not validated yet
        prefer_skip_nested_validation=False
    )
    @fill_doc(REPAIR_DOCS)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base classifier and estimate the groups' score distributions.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, including the ``sensitive`` column(s).

        y : array-like of shape (n_samples,)
            Binary target (any two labels). With equal opportunity or
            predictive equality it also picks the rows each group's map is
            learnt on.

        <fit_parameters>

        Returns
        -------
        <fit_returns>
        """
        response_method = self._fit_repair(X, y, sample_weight, fit_params)
        self.classes_ = np.asarray(self.estimator_.classes_)
        self.response_method_ = response_method
        if self.threshold == "auto":
            self.threshold_ = 0.5 if response_method == "predict_proba" else 0.0
        else:
            self.threshold_ = float(self.threshold)
        return self

    def _check_fit_target(self, X, y, sample_weight):
        """Validate ``y``, ``pos_label`` and ``sample_weight`` at fit.

        Returns ``(y, classes, sample_weight)``; sets ``pos_label_``.
        """
        y = column_or_1d(y, warn=True)
        if y.dtype.kind in "fc":
            assert_all_finite(y, input_name="y")
        if type_of_target(y) == "multiclass":
            raise ValueError(
                MULTICLASS_ERROR.format(classes=np.unique(y).tolist()[:10])
            )
        _, classes = check_binary_y(y, estimator=self)
        self.pos_label_ = self._resolve_pos_label(classes)
        sample_weight = check_sample_weight_1d(sample_weight, y.shape[0])
        if sample_weight is not None:  # weight 0 must not leave one class
            check_binary_target(
                y[sample_weight > 0],
                name="y (where sample_weight > 0)",
                why="ThresholdInvariantClassifier",
            )
        return y, classes, sample_weight

    def _resolve_pos_label(self, classes):
        """``pos_label`` as the class label it names (``classes[1]`` for None)."""
        if self.pos_label is None:
            return classes[1]
        for label in classes:
            if same_label(label, self.pos_label):
                return label
        raise ValueError(
            POS_LABEL_NOT_FOUND_ERROR.format(
                pos_label=self.pos_label, name="y", classes=classes.tolist()
            )
        )

    def _table_weights(self, y, weights, grouping):
        """The sample weights of the rows the constraint conditions on, 0 elsewhere.

        Raises :data:`MISSING_LABEL_ERROR` for a group (not left out) of
        positive weight none of whose conditioned rows has a positive weight.
        """
        if self.constraint == "demographic_parity":
            return weights
        which, op = _CONDITIONED_ON[self.constraint]
        positive = y == self.pos_label_
        conditioned = positive if op == "==" else ~positive
        kept = grouping.codes >= 0
        codes = grouping.codes[kept]
        n = grouping.n_groups
        size = np.bincount(codes, weights=weights[kept], minlength=n)
        held = np.bincount(codes, weights=(weights * conditioned)[kept], minlength=n)
        missing = np.flatnonzero((size > 0) & (held <= 0))
        if missing.size:
            raise ValueError(
                MISSING_LABEL_ERROR.format(
                    constraint=self.constraint,
                    which=which,
                    op=op,
                    pos_label=_plain(self.pos_label_),
                    group=grouping.labels[missing[0]],
                    name=grouping.name,
                )
            )
        return np.where(conditioned, weights, 0.0)

    def _fit_response_method(self):
        """The estimator's method whose scores are repaired."""
        return resolve_response_method(self.estimator, self.response_method)

    # listed among this class's own methods (API docs and snapshot)
    get_metadata_routing = BarycentreRepairMixin.get_metadata_routing

    def _repaired_scores(self, X):
        check_is_fitted(self)
        # the estimator validates X first, with its own messages
        method = getattr(self.estimator_, self.response_method_)
        scores = positive_scores(method(X), self.response_method_)
        return self._repair(X, scores)

    @available_if(has_response("predict_proba"))
    def predict_proba(self, X):
        """Repaired class probabilities.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples, including the ``sensitive`` column(s).

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Column 1 holds the repaired positive-class scores, column 0 their
            complement.
        """
        positive = self._repaired_scores(X)
        return np.column_stack([1.0 - positive, positive])

    @available_if(has_response("decision_function"))
    def decision_function(self, X):
        """Repaired decision function (when the estimator's scores come from it).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to score, with the sensitive column(s) that pick each one's map.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            Repaired scores; larger means more likely ``classes_[1]``.
        """
        return self._repaired_scores(X)

    def predict(self, X):
        """Predict classes by thresholding the repaired scores.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to classify (with the ``sensitive`` columns).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the repaired score is at least
            ``threshold_``, else ``classes_[0]``.
        """
        scores = self._repaired_scores(X)
        return self.classes_[(scores >= self.threshold_).astype(np.intp)]

    def __sklearn_is_fitted__(self):
        """Whether :meth:`fit` ran to its end (a failed fit leaves it unfitted)."""
        return hasattr(self, "threshold_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        return tags
