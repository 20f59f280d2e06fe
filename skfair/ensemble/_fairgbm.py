"""FairGBM: gradient boosting with group-wise FPR/FNR constraints.

A scikit-learn estimator on FairGBM's native engine (``fairgbm.train``), whose
own scikit-learn wrapper no longer works with scikit-learn >= 1.8. The groups
are read from ``X`` through ``sensitive=``, so the estimator works unchanged in
``cross_val_score``, ``GridSearchCV`` and ``Pipeline``.
"""

from __future__ import annotations

import contextlib
import numbers
import sys
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from scipy.special import expit
from sklearn.utils.validation import check_random_state

from skfair.utils._dataframe import to_pandas

from ._base import BaseFairEnsemble, Interval, StrOptions, _fit_context

FAIRGBM_MISSING_ERROR = (
    "FairGBMClassifier needs the fairgbm package, which ships binaries for "
    "Linux only, and it could not be imported on this platform ({platform}). "
    "On Linux, `pip install fairgbm`; elsewhere use another estimator (e.g. "
    "AdaFairClassifier)."
)


def _import_fairgbm():
    try:
        import fairgbm
    except ImportError as exc:
        raise ImportError(FAIRGBM_MISSING_ERROR.format(platform=sys.platform)) from exc
    return fairgbm


_SILENT_LOGGER = SimpleNamespace(info=lambda msg: None, warning=lambda msg: None)


@contextlib.contextmanager
def _quiet_fairgbm():
    """Silence fairgbm's native log while loading a model from a string.

    ``verbose=-1`` silences training, but loading a saved
    ``constrained_cross_entropy`` model always warns that the objective cannot
    be restored (only resuming training needs it). fairgbm routes its native
    log through a module-level logger, which is swapped for a silent one here.
    """
    basic = _import_fairgbm().basic
    previous = basic._LOGGER
    basic._LOGGER = _SILENT_LOGGER
    try:
        yield
    finally:
        basic._LOGGER = previous


class FairGBMClassifier(BaseFairEnsemble):
    """Gradient boosting under group-wise error-rate constraints (FairGBM).

    FairGBM (Cruz et al., 2023) trains LightGBM-style trees on a Lagrangian
    of the cross-entropy loss and smooth proxies of group-wise false-positive
    and/or false-negative rate constraints, updating one multiplier per
    constraint by gradient ascent. This estimator drives FairGBM's native
    engine, ``fairgbm.train(params, fairgbm.Dataset(X, label=y,
    constraint_group=groups))`` with objective ``constrained_cross_entropy``,
    and reads the groups from ``X`` itself.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X``: names for a DataFrame, integer
        indices for an array. Several columns are combined into their
        intersection: every observed combination is one constraint group.
        Group labels may be of any type (they are encoded as integers from 0);
        a numeric column with many distinct values (a continuous variable) is
        refused: bin it first.
    constraint_type : {"FPR", "FNR", "FPR,FNR"}, default="FPR,FNR"
        Which group-wise rates are constrained to be equal: false-positive
        rates (predictive equality), false-negative rates (equal opportunity)
        or both (equalized odds).
    n_estimators : int, default=100
        Number of boosting rounds (trees).
    learning_rate : float, default=0.1
        Shrinkage of every tree.
    num_leaves : int, default=31
        Maximum number of leaves per tree.
    max_depth : int, default=-1
        Maximum tree depth; -1 means no limit.
    min_child_samples : int, default=20
        Minimum number of samples in a leaf.
    multiplier_learning_rate : float, default=0.1
        Step size of the gradient ascent on the Lagrange multipliers.
    constraint_fpr_tolerance : float, default=0.01
        Slack allowed on the group-wise FPR constraints, in [0, 1).
    constraint_fnr_tolerance : float, default=0.01
        Slack allowed on the group-wise FNR constraints, in [0, 1].
    constraint_stepwise_proxy : {"cross_entropy", "quadratic", "hinge"}, \
default="cross_entropy"
        Differentiable proxy of the step function in the constraints.
    score_threshold : float, default=0.5
        Probability threshold at which the constrained rates are measured.
    global_constraint_type : {"FPR", "FNR", "FPR,FNR"} or None, default=None
        Optional global (not group-wise) rate constraint(s), with targets
        ``global_target_fpr`` / ``global_target_fnr``.
    global_target_fpr : float, default=0.99
        Upper bound on the global FPR when ``global_constraint_type`` holds
        "FPR".
    global_target_fnr : float, default=0.99
        Upper bound on the global FNR when ``global_constraint_type`` holds
        "FNR".
    min_group_size : int or None, default=None
        None constrains every group and warns (``SmallGroupWarning``) about
        groups of fewer than 30 samples. An int ``k`` leaves out the groups of
        fewer than ``k`` samples: they get no constraint of their own (see
        Notes); fewer than two groups left is an error.
    sensitive_as_feature : bool, default=False
        Whether the sensitive columns are also model inputs. When False they
        only define the constraint groups (and may hold any labels, e.g.
        strings); when True they must be numeric like every other feature.
    random_state : int, RandomState instance or None, default=None
        Seeds LightGBM's randomness (``seed``); pass an int for reproducible
        fits.
    n_jobs : int or None, default=None
        Number of threads (not 0); None lets LightGBM/OpenMP decide, -1 uses
        all cores.

    Attributes
    ----------
    booster_ : fairgbm.Booster
        The trained booster.
    classes_ : ndarray of shape (2,)
        The two class labels; ``classes_[1]`` is the positive class (the
        larger label, as in scikit-learn).
    groups_ : tuple
        The label of every constrained group, in code order (tuples when
        several sensitive columns are intersected); groups left out by
        ``min_group_size`` are not listed.
    n_features_in_ : int
        Number of columns of ``X`` seen in fit (sensitive ones included).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``, when it is a DataFrame with string names.

    See Also
    --------
    AdaFairClassifier : Boosting of stumps with a cumulative equalized-odds
        cost.

    Notes
    -----
    ``fit`` takes no ``sample_weight``: FairGBM's constrained objective
    rejects non-uniform weights ("not implemented yet").

    Features must be numeric or categorical columns (pandas ``category``,
    polars ``Enum`` or ``Categorical``). A category column is handled as
    :class:`lightgbm.LGBMClassifier` handles it
    (``categorical_feature="auto"``): its codes are the feature, split on as
    categories unless the categorical is ordered; the categories seen in fit
    are stored, and at predict the column is coded with them, a category
    unseen in fit or a missing value becoming a missing value. Other
    non-numeric inputs raise a ValueError naming the columns (encode them
    first, e.g. with a ``OneHotEncoder`` in a ``Pipeline``), and so do NaN
    and infinity in numeric features. Groups are only needed in ``fit``:
    prediction reads no group, so unseen group labels at predict are fine.

    fairgbm constrains every group of its ``constraint_group`` (one
    multiplier each), so no sample can be left unconstrained: with
    ``min_group_size`` the samples of the groups left out are counted in the
    largest kept group. They are trained on, and only the kept groups' rates
    are equalised (a pooled group of their own would be as small and noisy).

    fairgbm ships Linux-only binaries; it is imported inside ``fit`` and
    when a fitted model is unpickled (an ImportError naming the platform
    when it is missing), so ``import skfair`` works everywhere. Its console
    output is silenced (``verbose=-1``).

    References
    ----------
    .. [1] A. F. Cruz, C. Belém, J. Bravo, P. Saleiro and P. Bizarro,
       "FairGBM: Gradient Boosting with Fairness Constraints", ICLR 2023.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skfair.ensemble import FairGBMClassifier
    >>> rng = np.random.default_rng(0)
    >>> region = pd.Categorical(rng.choice(["north", "south", "west"], 300))
    >>> X = pd.DataFrame({"income": rng.normal(size=300), "region": region,
    ...                   "sex": rng.choice(["female", "male"], 300)})
    >>> y = (X["income"] + (X["region"] == "west") > 0.5).astype(int)
    >>> clf = FairGBMClassifier(sensitive="sex", constraint_type="FNR",
    ...                         n_estimators=20, random_state=0).fit(X, y)
    >>> clf.groups_  # "region" is split on as a category, like LightGBM does
    ('female', 'male')
    >>> clf.predict_proba(X.head(2)).shape
    (2, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseFairEnsemble._parameter_constraints,
        "constraint_type": [StrOptions({"FPR", "FNR", "FPR,FNR"})],
        "n_estimators": [Interval(numbers.Integral, 1, None, closed="left")],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        "num_leaves": [Interval(numbers.Integral, 2, None, closed="left")],
        "max_depth": [numbers.Integral],
        "min_child_samples": [Interval(numbers.Integral, 0, None, closed="left")],
        "multiplier_learning_rate": [Interval(numbers.Real, 0, None, closed="left")],
        "constraint_fpr_tolerance": [Interval(numbers.Real, 0, 1, closed="left")],
        "constraint_fnr_tolerance": [Interval(numbers.Real, 0, 1, closed="both")],
        "constraint_stepwise_proxy": [
            StrOptions({"cross_entropy", "quadratic", "hinge"})
        ],
        "score_threshold": [Interval(numbers.Real, 0, 1, closed="both")],
        "global_constraint_type": [StrOptions({"FPR", "FNR", "FPR,FNR"}), None],
        "global_target_fpr": [Interval(numbers.Real, 0, 1, closed="both")],
        "global_target_fnr": [Interval(numbers.Real, 0, 1, closed="both")],
        "n_jobs": [
            Interval(numbers.Integral, None, -1, closed="right"),
            Interval(numbers.Integral, 1, None, closed="left"),
            None,
        ],
    }

    def __init__(
        self,
        *,
        sensitive,
        constraint_type="FPR,FNR",
        n_estimators=100,
        learning_rate=0.1,
        num_leaves=31,
        max_depth=-1,
        min_child_samples=20,
        multiplier_learning_rate=0.1,
        constraint_fpr_tolerance=0.01,
        constraint_fnr_tolerance=0.01,
        constraint_stepwise_proxy="cross_entropy",
        score_threshold=0.5,
        global_constraint_type=None,
        global_target_fpr=0.99,
        global_target_fnr=0.99,
        min_group_size=None,
        sensitive_as_feature=False,
        random_state=None,
        n_jobs=None,
    ):
        self.sensitive = sensitive
        self.constraint_type = constraint_type
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.max_depth = max_depth
        self.min_child_samples = min_child_samples
        self.multiplier_learning_rate = multiplier_learning_rate
        self.constraint_fpr_tolerance = constraint_fpr_tolerance
        self.constraint_fnr_tolerance = constraint_fnr_tolerance
        self.constraint_stepwise_proxy = constraint_stepwise_proxy
        self.score_threshold = score_threshold
        self.global_constraint_type = global_constraint_type
        self.global_target_fpr = global_target_fpr
        self.global_target_fnr = global_target_fnr
        self.min_group_size = min_group_size
        self.sensitive_as_feature = sensitive_as_feature
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _engine_params(self, seed):
        return {
            "objective": "constrained_cross_entropy",
            "constraint_type": self.constraint_type,
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "max_depth": self.max_depth,
            "min_data_in_leaf": self.min_child_samples,
            "multiplier_learning_rate": self.multiplier_learning_rate,
            "constraint_fpr_tolerance": self.constraint_fpr_tolerance,
            "constraint_fnr_tolerance": self.constraint_fnr_tolerance,
            "constraint_stepwise_proxy": self.constraint_stepwise_proxy,
            "score_threshold": self.score_threshold,
            "global_constraint_type": self.global_constraint_type or "",
            "global_target_fpr": self.global_target_fpr,
            "global_target_fnr": self.global_target_fnr,
            "seed": seed,
            "deterministic": True,
            "force_col_wise": True,
            # None: LightGBM's default 0 (OpenMP decides)
            "num_threads": effective_n_jobs(self.n_jobs) if self.n_jobs else 0,
            "verbose": -1,
        }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the constrained booster.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Training data, including the sensitive column(s).
        y : array-like of shape (n_samples,)
            Binary labels of any type (ints, bools, strings).

        Returns
        -------
        self : FairGBMClassifier
            The fitted estimator.
        """
        fairgbm = _import_fairgbm()
        features, y01, grouping = self._fit_input(X, y)
        groups = grouping.codes
        if grouping.n_left_out:  # into the largest kept group, see Notes
            groups = np.where(groups < 0, np.argmax(grouping.counts()), groups)
        seed = int(
            check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        )
        positions = self._feature_positions
        categorical = [positions.index(k) for k in self._categorical if k in positions]
        dataset = fairgbm.Dataset(
            features,
            label=y01.astype(np.float64),
            constraint_group=groups.astype(np.int32),
            categorical_feature=categorical,
            params={"verbose": -1},
        )
        self.booster_ = fairgbm.train(
            self._engine_params(seed),
            dataset,
            num_boost_round=self.n_estimators,
            categorical_feature=categorical,  # the same, or fairgbm warns
            verbose_eval=False,
        )
        return self

    def _model_input(self, X, *, reset):
        """``X`` with its ``category`` columns coded as at fit (as LightGBM).

        A dataframe of another library is read as pandas first: a polars
        ``Enum`` or ``Categorical`` column is a ``category`` column.
        """
        X = to_pandas(X)
        if reset:
            dtypes = X.dtypes if isinstance(X, pd.DataFrame) else []
            self._categories = {
                k: list(dtype.categories)
                for k, dtype in enumerate(dtypes)
                if isinstance(dtype, pd.CategoricalDtype)
            }
            self._categorical = [
                k for k in self._categories if not dtypes.iloc[k].ordered
            ]
        if not self._categories or not isinstance(X, pd.DataFrame):
            return X
        X = X.copy(deep=False)
        for k, categories in self._categories.items():
            codes = pd.Index(categories).get_indexer(X.iloc[:, k])
            X.isetitem(k, np.where(codes < 0, np.nan, codes))
        return X

    def _missing_allowed(self, values, positions):
        allowed = np.zeros(values.shape, dtype=bool)
        for j, k in enumerate(positions):
            if k in self._categories:  # a missing or unseen category
                allowed[:, j] = np.isnan(values[:, j])
        return allowed

    def decision_function(self, X):
        """Raw scores (log-odds of the positive class ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Data with the same columns as in fit.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Higher means more likely ``classes_[1]``; ``predict_proba`` is
            their logistic sigmoid.
        """
        features = self._predict_features(X)
        return np.asarray(self.booster_.predict(features, raw_score=True))

    _proba_of_positive = staticmethod(expit)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        return tags

    def __getstate__(self):
        state = dict(super().__getstate__())
        booster = state.pop("booster_", None)
        if booster is not None:
            state["_booster_model_str"] = booster.model_to_string(num_iteration=-1)
        return state

    def __setstate__(self, state):
        state = dict(state)
        model_str = state.pop("_booster_model_str", None)
        super().__setstate__(state)
        if model_str is not None:
            with _quiet_fairgbm():
                self.booster_ = _import_fairgbm().Booster(model_str=model_str)
