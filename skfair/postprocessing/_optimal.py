"""Optimal group-specific decision rules under a tolerance on a parity gap.

:class:`OptimalParityClassifier` learns, for every group, the randomised
decision rule on a classifier's scores that maximises accuracy (or
minimises a cost) while the largest between-group gap of demographic
parity, equal opportunity or equalised odds stays within a tolerance; the
rule is the solution of one linear program (:mod:`._parity_lp`).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,  # no public equivalent (parameter validation)
    clone,
)
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import cross_val_predict
from sklearn.utils import get_tags
from sklearn.utils._param_validation import (  # no public equivalent
    HasMethods,
    Interval,
    StrOptions,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    assert_all_finite,
    check_array,
    check_is_fitted,
    check_random_state,
    column_or_1d,
    indexable,
    validate_data,
)

from ..utils._dataframe import check_not_lazy
from ..utils._estimator import SensitiveColumnsMixin
from ..utils._group_encoding import check_sensitive_features, drop_unused_categories
from ..utils._validation import check_sample_weight_1d
from ._barycentre import _row_uniforms
from ._calibration import FROZEN_CLASSES_ERROR, route_fit_params, stratified_folds
from ._groups import fit_groups, table_indices
from ._parity_lp import (
    cell_generators,
    largest_gap,
    rate_pairs,
    roc_generators,
    solve_mixtures,
)
from ._repair import BarycentreRepairMixin, check_fit_shape
from ._response import positive_scores, resolve_response_method

SINGLE_CLASS_ERROR = (
    "OptimalParityClassifier needs samples of at least 2 classes in y; got "
    "one class ({classes}) only. Fit on data that holds every class."
)
MULTICLASS_SCORES_ERROR = (
    "With {n_classes} classes OptimalParityClassifier needs class "
    "probabilities (predict_proba): the multiclass program reads them as "
    "P(Y = k | x). {name} scores with decision_function only; wrap it in "
    "sklearn.calibration.CalibratedClassifierCV, or pass "
    "response_method='predict_proba'."
)
MISSING_CLASS_ERROR = (
    "constraint={constraint!r} compares the groups' rates among the samples of "
    "class {label!r}, but group {group!r} has none (of positive weight). Use "
    "constraint='demographic_parity', merge the group with another, or fit on "
    "data where every group holds every class."
)
COST_MATRIX_ERROR = (
    "cost_matrix must be a finite array of shape (n_classes, n_classes) = "
    "{expected}, its [i, j] the cost of deciding classes_[j] for a sample of "
    "classes_[i]; got {got}."
)

#: Probability that counts as "never": mixing weights below it are dropped.
_NEGLIGIBLE = 1e-12


def _plain(label):
    """A class label as a Python scalar (for messages and column names)."""
    return label.item() if isinstance(label, np.generic) else label


class OptimalParityClassifier(
    ClassifierMixin, MetaEstimatorMixin, SensitiveColumnsMixin, BaseEstimator
):
    """Most accurate group-specific randomised rules within a parity tolerance.

    Post-processes a classifier's scores: for every group ``g`` (the
    intersection of the ``sensitive`` columns of ``X``) it learns a
    randomised decision rule, chosen so that the expected accuracy (or, with
    ``cost_matrix``, the expected cost) on the fit data is the best possible
    while the largest between-group gap of the ``constraint``'s rates is at
    most ``tolerance``. The optimum is found exactly, by one linear program
    (scipy's HiGHS); "randomised" means that two people of the same group
    with the same score may get different decisions (see Notes).

    Binary problems (two classes): each group's rule mixes threshold rules
    ``score >= t`` on the base model's scores, the vertices of the group's
    ROC hull; the rates and the accuracy are counted from the labels, as in
    Hardt et al. (2016) and Cruz & Hardt (2024). Multiclass problems: each
    group's rule decides a class (or a mixture of classes) for every cell of
    probability vectors (rounded to multiples of ``1 / n_bins``); the rates
    and the accuracy are those the probabilities predict, as in Xian et
    al. (2023) and Xian & Zhao (2024). Any number of groups.

    Parameters
    ----------
    estimator : estimator instance
        The classifier whose scores are post-processed. It is cloned and
        fitted, and the rules are learnt on out-of-fold scores (``cv``),
        unless it is a :class:`~sklearn.frozen.FrozenEstimator`: an
        already-fitted model is then used as is and its scores on the data
        passed to :meth:`fit` (which should not be its training data) are
        used.

    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: name(s) when ``X`` is a DataFrame,
        integer index(es) when it is an array; with several columns the
        groups are their intersection. The columns are also passed to
        ``estimator``; drop them inside a pipeline if the model should not
        see them.

    constraint : {"demographic_parity", "equal_opportunity", \
            "equalized_odds"}, default="demographic_parity"
        Which rates must agree across groups. Binary: the selection rate
        ``P(Ŷ = 1 | g)``; the true-positive rate ``P(Ŷ = 1 | Y = 1, g)``;
        the true- and the false-positive rates. Multiclass: every class's
        selection rate ``P(Ŷ = k | g)``; every class's recall
        ``P(Ŷ = k | Y = k, g)``; every ``P(Ŷ = k | Y = y, g)``.

    tolerance : float in [0, 1], default=0.0
        The largest allowed between-group gap (largest minus smallest over
        the groups) of every constrained rate; 0 asks for exact parity.

    cost_matrix : array-like of shape (n_classes, n_classes), default=None
        ``cost_matrix[i, j]`` is the cost of deciding ``classes_[j]`` for a
        sample of class ``classes_[i]``; the expected cost is minimised.
        None is ``1 - identity``: the error rate (maximise accuracy). Class
        weights ``c_i`` are the matrix with ``c_i`` off the diagonal of row
        ``i``.

    cv : int, cross-validation generator or iterable, default=5
        How the out-of-fold scores are produced: an int ``k`` deals the rows
        of every group and class to ``k`` folds in turn (every clone sees
        every group); a splitter or iterable must put every sample in exactly
        one test fold. Ignored for a frozen estimator.

    response_method : {"auto", "predict_proba", "decision_function"}, \
            default="auto"
        The estimator's method that gives the scores; "auto" tries
        ``predict_proba`` then ``decision_function``. Multiclass problems
        need ``predict_proba``.

    n_bins : int, default=100
        Multiclass only: probability vectors are rounded to multiples of
        ``1 / n_bins`` to form the cells of the program (a rule is one
        mixture of classes per group and cell). Larger values follow the
        scores more finely and make the program larger.

    n_jobs : int, default=None
        Number of jobs fitting the cross-validation clones in parallel.

    random_state : int, RandomState instance or None, default=None
        Seeds the hash of each row of ``X`` that draws its decision from the
        randomised rule (see Notes).

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted base classifier used at predict time.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    groups_ : list
        The group labels seen during fit (tuples with several sensitive
        columns), in the order of the rules.

    thresholds_ : list of ndarray
        Binary only: for every group, the thresholds ``t`` of the rules
        ``score >= t`` that its decision mixes (decreasing; ``inf`` decides
        nothing positive, ``-inf`` everything).

    mixing_weights_ : list of ndarray
        Binary only: the probability of each of those thresholds; a sample
        of the group with score ``s`` is decided positive with probability
        ``sum(w for t, w in zip(thresholds, weights) if s >= t)``.

    coef_ : ndarray of shape (n_groups, n_classes, n_classes)
        Multiclass only: a sample of group ``g`` with a probability vector
        ``p`` whose cell held no fit sample of ``g`` is decided
        ``argmax_k (p @ coef_[g] + intercept_[g])[k]``, the program's linear
        rule read from its dual solution (see Notes).

    intercept_ : ndarray of shape (n_groups, n_classes)
        Multiclass only: see ``coef_``.

    rates_ : pandas.DataFrame
        The constrained rates of every group (rows) under the fitted
        randomised rule, on the fit data (the out-of-fold scores).

    violation_ : float
        The largest between-group gap of ``rates_``.

    accuracy_ : float
        The (weighted) expected accuracy of the fitted randomised rule on the
        fit data.

    response_method_ : str
        The estimator's method whose scores are post-processed.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when ``X`` has string
        column names.

    See Also
    --------
    ThresholdInvariantClassifier : Demographic parity at every threshold, by
        repairing the scores instead of choosing decisions.
    sklearn.model_selection.FixedThresholdClassifier : One threshold for
        everyone.

    Notes
    -----
    **The program (binary).** For group ``g`` let ``(FP_v, TP_v)`` be the
    weights of the negative and positive samples that the rule
    ``score >= t_v`` decides positive, over every distinct score ``t_v``
    (plus ``inf``). Mixing those rules with weights ``λ_gv`` reaches every
    point of the convex hull of these ROC points, so only the hull's
    vertices are kept. The program minimises
    ``Σ_g Σ_v λ_gv cost_gv`` over ``λ_g`` in the simplex, subject to
    ``|R_gr(λ_g) - z_r| <= tolerance / 2`` for every constrained rate ``r``
    (selection ``(TP + FP) / n_g``, ``TPR = TP / P_g``,
    ``FPR = FP / N_g``) with free centres ``z_r``. On the fit data the
    fitted rule's expected rates and accuracy are exactly the program's.

    **The program (multiclass).** Cells ``c`` of group ``g`` with weight
    ``m_gc`` and mean probability vector ``s_gc``; the variables
    ``γ_gck >= 0``, ``Σ_k γ_gck = 1``, are the probabilities of deciding
    ``k`` in the cell. As in Xian et al. (2023) (demographic parity) and
    LinearPost (Xian & Zhao, 2024) the scores stand for the labels: the
    expected cost is ``Σ m_gc γ_gck Σ_y s_gcy C[y, k]`` and
    ``P(Ŷ = k | Y = y, g) = Σ_c m_gc s_gcy γ_gck / Σ_c m_gc s_gcy``. Demographic
    parity does not involve the labels, so its gap on the fit data is
    within the tolerance exactly; the label-conditional rates hold as the
    (calibrated) probabilities predict them. A cell unseen at fit is decided
    by the argmin of the reduced costs (cost plus the dual prices of the
    rates), which is linear in the probability vector: ``coef_`` and
    ``intercept_`` (their negation, so that larger is better).

    **Where this differs from the reference code.** error-parity's
    ``RelaxedThresholdOptimizer`` solves the binary equalised-odds program
    for a point in every group's ROC polygon with cvxpy/ECOS on at most
    ``max_roc_ticks`` thresholds; here the hull of *every* distinct score
    is kept (so the optimum is over all threshold rules) and the program is
    a plain LP over mixing weights, which also gives the rule itself (the
    thresholds and their probabilities) without a second step, for
    demographic parity and equal opportunity too and with a tolerance for
    each. fairlearn's ``ThresholdOptimizer`` takes no tolerance for
    equalised odds and interpolates on a grid of ``grid_size`` thresholds.
    Xian et al.'s code solves the multiclass program per sample with cvxpy
    (CBC) and then recovers the rule by a quadratic program; here samples
    are first collapsed into cells, which keeps 10⁶ rows to a few thousand
    variables, and the rule is read from the dual solution. Their
    "perfect-predictor" rows weigh every group equally (one row per class
    and group, weighted by the class shares); ``sample_weight = 1 / n_g``
    reproduces them (``benchmarks/bench_optimal_postprocessing.py``).

    **Randomisation and individuals.** Where the optimum sits between two
    threshold rules (or splits a cell between classes), members of the
    group with the same score are decided differently, at random, in the
    proportions of the mixture: the gap and the accuracy hold on average
    over the group, not person by person. The draw for a row is a seeded
    hash of its values, so the same row always gets the same decision
    (``predict`` does not depend on which other rows are predicted with
    it), two identical rows get the same decision, and ``random_state``
    fixes which rows of a tie go which way. ``predict_proba`` gives the
    probability of each class under the randomised rule.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of opportunity in
       supervised learning", NeurIPS 2016.
    .. [2] A. F. Cruz and M. Hardt, "Unprocessing seven years of algorithmic
       fairness", ICLR 2024.
    .. [3] R. Xian, L. Yin and H. Zhao, "Fair and optimal classification via
       post-processing", ICML 2023.
    .. [4] R. Xian and H. Zhao, "A unified post-processing framework for
       group fairness in classification", arXiv:2405.04025, 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.postprocessing import OptimalParityClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 4000)
    >>> x = rng.normal(group, 1.0, 4000)
    >>> y = (x + rng.normal(0, 1, 4000) > 0.5).astype(int)
    >>> X = np.column_stack([group, x])
    >>> clf = OptimalParityClassifier(
    ...     LogisticRegression(), sensitive=0, constraint="equalized_odds",
    ...     tolerance=0.02, random_state=0,
    ... ).fit(X, y)
    >>> print(f"gap {clf.violation_:.3f}, accuracy {clf.accuracy_:.3f}")
    gap 0.020, accuracy 0.765
    >>> clf.rates_.round(3)
           TPR    FPR
    x0
    0.0  0.739  0.216
    1.0  0.759  0.232

    Group 1 gets one threshold; group 0 mixes two, each row of the group
    going to the first with probability 0.28:

    >>> [t.round(3).tolist() for t in clf.thresholds_]
    [[0.437, 0.346], [0.634]]
    >>> [w.round(2).tolist() for w in clf.mixing_weights_]
    [[0.28, 0.72], [1.0]]
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "sensitive": [str, Integral, list, tuple],
        "constraint": [
            StrOptions({"demographic_parity", "equal_opportunity", "equalized_odds"})
        ],
        "tolerance": [Interval(Real, 0, 1, closed="both")],
        "cost_matrix": ["array-like", None],
        "cv": ["cv_object"],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        *,
        sensitive,
        constraint="demographic_parity",
        tolerance=0.0,
        cost_matrix=None,
        cv=5,
        response_method="auto",
        n_bins=100,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.sensitive = sensitive
        self.constraint = constraint
        self.tolerance = tolerance
        self.cost_matrix = cost_matrix
        self.cv = cv
        self.response_method = response_method
        self.n_bins = n_bins
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(
        # OptimalParityClassifier.estimator is not validated yet
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base classifier and the optimal rules on its scores.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, including the ``sensitive`` column(s).

        y : array-like of shape (n_samples,)
            Class labels (two classes or more).

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, passed to the estimator's ``fit`` and used in
            every rate and in the accuracy.

        **fit_params : dict
            Further parameters of the estimator's ``fit``. With metadata
            routing enabled, they (and ``sample_weight``) go where they are
            requested, e.g. ``groups`` to a group-aware ``cv`` splitter.

        Returns
        -------
        self : object
            The fitted post-processor.
        """
        X, y = indexable(check_not_lazy(X), y)
        check_fit_shape(self, X)
        y, y_index, sample_weight = self._check_fit_target(y, sample_weight)
        grouping = self._groups(X, fit=True)
        self.response_method_ = resolve_response_method(
            self.estimator, self.response_method
        )
        n_classes = self.classes_.size
        if n_classes > 2 and self.response_method_ != "predict_proba":
            raise ValueError(
                MULTICLASS_SCORES_ERROR.format(
                    n_classes=n_classes, name=type(self.estimator).__name__
                )
            )
        scores = self._fit_scores(X, y, y_index, sample_weight, fit_params, grouping)
        weights = np.ones(y_index.shape[0]) if sample_weight is None else sample_weight
        keep = weights > 0
        present = np.unique(grouping.codes[keep])  # the groups of positive weight
        self.groups_ = [grouping.labels[g] for g in present]
        self._sensitive_name = grouping.name
        codes = np.where(keep, np.searchsorted(present, grouping.codes), -1)
        cost = self._cost_matrix(n_classes)
        if n_classes == 2:
            decisions = self._fit_thresholds(scores, y_index, codes, weights, cost)
        else:
            decisions = self._fit_cells(scores, y_index, codes, weights, cost)
        self._fit_summary(decisions, y_index, codes, weights)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        self._hash_seed = int(seed)
        return self

    def _check_fit_target(self, y, sample_weight):
        """Validate ``y`` and ``sample_weight``; set ``classes_``.

        Returns ``y`` as a 1-D array, each sample's class index and the
        checked weights.
        """
        y = column_or_1d(y, warn=True)
        if y.dtype.kind in "fc":
            assert_all_finite(y, input_name="y")
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        sample_weight = check_sample_weight_1d(sample_weight, y.shape[0])
        present = y_index if sample_weight is None else y_index[sample_weight > 0]
        if np.unique(present).size < 2:
            raise ValueError(
                SINGLE_CLASS_ERROR.format(classes=self.classes_[present[:1]].tolist())
            )
        return y, y_index, sample_weight

    def _groups(self, X, *, fit=False):
        """Encode the groups of ``X`` (every group kept)."""
        columns = drop_unused_categories(self._sensitive_columns(X))
        if not fit:
            return check_sensitive_features(columns).intersection()
        grouping, _ = fit_groups(columns, min_group_size=None)
        return grouping

    def _cost_matrix(self, n_classes):
        """The checked cost matrix (``1 - identity`` by default)."""
        if self.cost_matrix is None:
            return 1.0 - np.eye(n_classes)
        cost = np.asarray(self.cost_matrix, dtype=np.float64)
        if cost.shape != (n_classes, n_classes) or not np.isfinite(cost).all():
            raise ValueError(
                COST_MATRIX_ERROR.format(
                    expected=(n_classes, n_classes), got=np.shape(self.cost_matrix)
                )
            )
        return cost

    def _fit_scores(self, X, y, y_index, sample_weight, fit_params, grouping):
        """Fit ``estimator_``; return the scores the rules are learnt on."""
        frozen = isinstance(self.estimator, FrozenEstimator)
        fit_params, split_params = route_fit_params(
            self, sample_weight=sample_weight, fit_params=fit_params, frozen=frozen
        )
        if frozen:
            self.estimator_ = self.estimator
            check_is_fitted(self.estimator_)
            fitted = np.asarray(self.estimator_.classes_)
            if fitted.shape != self.classes_.shape or np.any(fitted != self.classes_):
                raise ValueError(
                    FROZEN_CLASSES_ERROR.format(
                        fitted=fitted.tolist(), given=self.classes_.tolist()
                    )
                )
            return self._scores(self.estimator_, X)
        strata = grouping.codes * self.classes_.size + y_index
        oof = cross_val_predict(
            clone(self.estimator),
            X,
            y,
            cv=stratified_folds(self.cv, y, strata=strata, classifier=True),
            method=self.response_method_,
            n_jobs=self.n_jobs,
            params={**fit_params, **split_params},
        )
        self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        return self._as_scores(oof)

    def _scores(self, estimator, X):
        """The estimator's scores of ``X``, as the rules read them."""
        return self._as_scores(getattr(estimator, self.response_method_)(X))

    def _as_scores(self, raw):
        """Positive-class scores (binary) or probability rows (multiclass)."""
        if self.classes_.size == 2:
            return positive_scores(raw, self.response_method_)
        return check_array(raw, dtype=np.float64, input_name="probabilities")

    def _fit_thresholds(self, scores, y_index, codes, weights, cost):
        """The binary program; returns the fit rows' decision probabilities."""
        thresholds, generators = [], []
        for g, label in enumerate(self.groups_):
            rows = codes == g
            self._check_classes_present(y_index[rows], label)
            t, gen = roc_generators(
                scores[rows],
                y_index[rows] == 1,
                weights[rows],
                constraint=self.constraint,
                cost_matrix=cost,
                total=weights.sum(),
            )
            thresholds.append(t)
            generators.append(gen)
        solution = solve_mixtures(generators, tolerance=self.tolerance)
        used = [w > _NEGLIGIBLE for w in solution.weights]
        self.thresholds_ = [t[u] for t, u in zip(thresholds, used)]
        self.mixing_weights_ = [
            w[u] / w[u].sum() for w, u in zip(solution.weights, used)
        ]
        return self._threshold_decisions(scores, codes)

    def _check_classes_present(self, y_index, label):
        """Refuse a group without a class whose rates are constrained."""
        needed = {
            "demographic_parity": [],
            "equal_opportunity": [1] if self.classes_.size == 2 else [],
            "equalized_odds": [0, 1] if self.classes_.size == 2 else [],
        }[self.constraint]
        for k in needed:
            if not np.any(y_index == k):
                raise ValueError(
                    MISSING_CLASS_ERROR.format(
                        constraint=self.constraint,
                        label=_plain(self.classes_[k]),
                        group=label,
                    )
                )

    def _threshold_decisions(self, scores, codes):
        """``(n, 2)`` probabilities of each class under the mixed thresholds."""
        positive = np.zeros(scores.shape[0])
        for g, (t, w) in enumerate(zip(self.thresholds_, self.mixing_weights_)):
            rows = codes == g
            order = np.argsort(t)  # increasing thresholds
            below = np.searchsorted(t[order], scores[rows], side="right")
            positive[rows] = np.r_[0.0, np.cumsum(w[order])][below]
        positive = np.clip(positive, 0.0, 1.0)
        return np.column_stack([1.0 - positive, positive])

    def _cell_keys(self, proba):
        """The cell of every probability vector, as one integer per row.

        The vector rounded to multiples of ``1 / n_bins``, read as the digits
        of a number in base ``n_bins + 1`` (or kept as rows of digits when
        that number would not fit in 63 bits).
        """
        digits = np.rint(proba * self.n_bins).astype(np.int64)
        base = self.n_bins + 1
        if proba.shape[1] * np.log2(base) >= 63:
            return digits
        return digits @ base ** np.arange(proba.shape[1], dtype=np.int64)

    def _fit_cells(self, proba, y_index, codes, weights, cost):
        """The multiclass program; returns the fit rows' decision probabilities."""
        keys = self._cell_keys(proba)
        generators, cells = [], []
        for g in range(len(self.groups_)):
            rows = np.flatnonzero(codes == g)
            cell_keys, inverse = np.unique(keys[rows], axis=0, return_inverse=True)
            inverse = inverse.ravel()
            mass = np.bincount(inverse, weights=weights[rows])
            mean = (
                np.column_stack(
                    [
                        np.bincount(inverse, weights=weights[rows] * proba[rows, k])
                        for k in range(proba.shape[1])
                    ]
                )
                / mass[:, None]
            )
            self._check_class_mass(mass @ mean, self.groups_[g])
            generators.append(
                cell_generators(
                    mass,
                    mean,
                    constraint=self.constraint,
                    cost_matrix=cost,
                    total=weights.sum(),
                )
            )
            cells.append((rows, inverse, cell_keys))
        solution = solve_mixtures(generators, tolerance=self.tolerance)
        decisions = np.zeros_like(proba)
        self._cells = []
        for (rows, inverse, cell_keys), w in zip(cells, solution.weights):
            rule = w.reshape(len(cell_keys), proba.shape[1])
            decisions[rows] = rule[inverse]
            self._cells.append((cell_keys, rule))
        self._fit_linear_rules(solution, proba, codes, weights, cost)
        return decisions

    def _check_class_mass(self, class_mass, label):
        """Refuse a group whose scores give a constrained class no weight."""
        if self.constraint != "demographic_parity" and np.any(class_mass <= 0):
            k = int(np.flatnonzero(class_mass <= 0)[0])
            raise ValueError(
                MISSING_CLASS_ERROR.format(
                    constraint=self.constraint,
                    label=_plain(self.classes_[k]),
                    group=label,
                )
            )

    def _fit_linear_rules(self, solution, proba, codes, weights, cost):
        """``coef_`` and ``intercept_``: minus the reduced costs, linear in ``p``.

        A unit of mass with probabilities ``p`` in group ``g`` costs
        ``p @ C / W`` for deciding ``k``, plus the dual price ``ν_gr`` of
        every rate ``r`` it moves: ``1 / W_g`` for a selection rate,
        ``p_y / D_gy`` for ``P(Ŷ = k | Y = y)`` (``D_gy = Σ w p_y``).
        """
        n_groups, n_classes = len(self.groups_), proba.shape[1]
        total = weights.sum()
        coef = np.broadcast_to(cost / total, (n_groups, n_classes, n_classes)).copy()
        intercept = np.zeros((n_groups, n_classes))
        pairs = rate_pairs(self.constraint, n_classes)
        for g in range(n_groups):
            rows = codes == g
            group_weight = weights[rows].sum()
            class_mass = weights[rows] @ proba[rows]
            for r, (true, decided) in enumerate(pairs):
                price = solution.duals[g, r]
                if true is None:
                    intercept[g, decided] += price / group_weight
                else:
                    coef[g, true, decided] += price / class_mass[true]
        self.coef_, self.intercept_ = -coef, -intercept

    def _rate_pairs(self):
        """The constrained rates as (true class, decision) pairs, for reporting."""
        if self.classes_.size > 2:
            return rate_pairs(self.constraint, self.classes_.size)
        return {
            "demographic_parity": [(None, 1)],
            "equal_opportunity": [(1, 1)],
            "equalized_odds": [(1, 1), (0, 1)],
        }[self.constraint]

    def _rate_name(self, true, decided):
        """A column name of ``rates_``."""
        if self.classes_.size == 2:
            return {None: "selection_rate", 1: "TPR", 0: "FPR"}[true]
        k = _plain(self.classes_[decided])
        if true is None:
            return f"P(pred={k!r})"
        return f"P(pred={k!r} | y={_plain(self.classes_[true])!r})"

    def _fit_summary(self, decisions, y_index, codes, weights):
        """``rates_``, ``violation_`` and ``accuracy_`` on the fit data."""
        kept = codes >= 0
        self.accuracy_ = float(
            np.sum(weights[kept] * decisions[kept, y_index[kept]]) / weights[kept].sum()
        )
        pairs = self._rate_pairs()
        n_groups = len(self.groups_)
        rates = np.full((n_groups, len(pairs)), np.nan)
        for r, (true, decided) in enumerate(pairs):
            rows = kept if true is None else kept & (y_index == true)
            mass = np.bincount(codes[rows], weights=weights[rows], minlength=n_groups)
            hits = np.bincount(
                codes[rows],
                weights=weights[rows] * decisions[rows, decided],
                minlength=n_groups,
            )
            np.divide(hits, mass, out=rates[:, r], where=mass > 0)
        index = pd.Index(self.groups_)
        if not isinstance(index, pd.MultiIndex):
            index.name = self._sensitive_name
        self.rates_ = pd.DataFrame(
            rates, index=index, columns=[self._rate_name(t, d) for t, d in pairs]
        )
        # a rate undefined in a group (no sample of its class) is not compared
        self.violation_ = max(
            largest_gap(column[~np.isnan(column)][:, None])
            for column in rates.T
            if (~np.isnan(column)).sum() > 0
        )

    # listed among this class's own methods (API docs and snapshot)
    get_metadata_routing = BarycentreRepairMixin.get_metadata_routing

    def predict_proba(self, X):
        """Probability of each class under the randomised rule.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples, including the ``sensitive`` column(s).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The probability with which :meth:`predict` decides each class of
            ``classes_``.
        """
        check_is_fitted(self)
        # the estimator validates X first, with its own messages
        scores = self._scores(self.estimator_, X)
        validate_data(self, check_not_lazy(X), reset=False, skip_check_array=True)
        codes = table_indices(
            self._groups(X),
            groups=self.groups_,
            left_out_groups=[],
            unseen_group="error",
            name=self._sensitive_name,
        )
        if self.classes_.size == 2:
            return self._threshold_decisions(scores, codes)
        return self._cell_decisions(scores, codes)

    def _cell_decisions(self, proba, codes):
        """The multiclass rule: the fit cell's mixture, else the linear rule."""
        keys = self._cell_keys(proba)
        decisions = np.zeros_like(proba)
        for g, (cell_keys, rule) in enumerate(self._cells):
            rows = np.flatnonzero(codes == g)
            both = np.concatenate([cell_keys, keys[rows]])
            _, inverse = np.unique(both, axis=0, return_inverse=True)
            inverse, n_cells = inverse.ravel(), len(cell_keys)
            lookup = np.full(inverse.max() + 1, -1)
            lookup[inverse[:n_cells]] = np.arange(n_cells)
            cell = lookup[inverse[n_cells:]]
            seen = cell >= 0
            decisions[rows[seen]] = rule[cell[seen]]
            unseen = rows[~seen]
            adjusted = proba[unseen] @ self.coef_[g] + self.intercept_[g]
            decisions[unseen, np.argmax(adjusted, axis=1)] = 1.0
        return decisions

    def predict(self, X):
        """Decide a class for every sample by drawing from the randomised rule.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples to classify (with the ``sensitive`` columns).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The class drawn for each sample from :meth:`predict_proba`, with
            a seeded hash of its row (the same row always gets the same
            class).
        """
        proba = self.predict_proba(X)
        draw = _row_uniforms(check_not_lazy(X), self._hash_seed)
        index = (draw[:, None] >= np.cumsum(proba, axis=1)).sum(axis=1)
        return self.classes_[np.minimum(index, self.classes_.size - 1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        return tags
