"""Tests for ThresholdInvariantClassifier."""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
    cross_validate,
    train_test_split,
)
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from skfair.metrics import abcc, delta_dp, make_mcdp_scorer, mcdp
from skfair.model_selection import fairest_within
from skfair.postprocessing import ThresholdInvariantClassifier
from skfair.postprocessing._barycentre import _cdf_bounds, _weighted_quantiles
from skfair.postprocessing._calibration import SAMPLE_WEIGHT_UNSUPPORTED_ERROR
from skfair.postprocessing._groups import UNSEEN_GROUP_ERROR
from skfair.postprocessing._threshold_invariant import MULTICLASS_ERROR
from skfair.utils import SmallGroupWarning
from skfair.utils._validation import NON_BINARY_ERROR


def make_data(n=1000, seed=0, n_groups=2):
    """A feature shifted by group, so that raw scores differ strongly by group."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n)
    x = rng.normal(group, 1.0, n)
    y = (x + rng.normal(0, 1, n) > 0.5).astype(int)
    return np.column_stack([group, x, rng.normal(size=n)]), y, group


def ks_between_groups(scores, group):
    """Largest ΔDP over all thresholds (MCDP(0)) between groups 0 and 1.

    The two-sample Kolmogorov-Smirnov statistic, by its definition: the
    largest gap between the groups' empirical CDFs over every observed score.
    """
    a, b = np.sort(scores[group == 0]), np.sort(scores[group == 1])
    grid = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, grid, side="right") / a.size
    cdf_b = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(cdf_a - cdf_b)))


def test_ks_between_groups_is_scipys_statistic():
    rng = np.random.default_rng(0)
    scores, group = rng.normal(size=300).round(1), rng.integers(0, 2, 300)
    expected = ks_2samp(scores[group == 0], scores[group == 1]).statistic
    assert ks_between_groups(scores, group) == pytest.approx(expected)


@pytest.fixture(scope="module")
def frozen_lr():
    X, y, _ = make_data(2000, seed=1)
    return FrozenEstimator(LogisticRegression().fit(X, y))


# --- the repair ------------------------------------------------------------


def test_full_repair_equalises_the_groups_at_every_threshold(frozen_lr):
    X, y, group = make_data(3000, seed=2)
    raw = frozen_lr.predict_proba(X)[:, 1]
    assert ks_between_groups(raw, group) > 0.3  # the base model is unfair
    clf = ThresholdInvariantClassifier(frozen_lr, sensitive=0, smoothing=0.0)
    fair = clf.fit(X, y).predict_proba(X)[:, 1]
    # on the data the distributions were estimated on: ranks -> same quantiles
    assert ks_between_groups(fair, group) < 0.005
    # on new data from the same distribution: estimation noise only (about
    # 0.045 on average for these sizes, and 0.3 without repair)
    X_new, _, group_new = make_data(3000, seed=3)
    fair_new = clf.predict_proba(X_new)[:, 1]
    assert ks_between_groups(fair_new, group_new) < 0.1
    X_big, y_big, group_big = make_data(40_000, seed=4)
    clf.fit(X_big[:20_000], y_big[:20_000])
    fair_big = clf.predict_proba(X_big[20_000:])[:, 1]
    assert ks_between_groups(fair_big, group_big[20_000:]) < 0.04
    # the repaired distribution is the barycentre: between the two groups
    med = [np.median(raw[group == g]) for g in (0, 1)]
    assert min(med) < np.median(fair) < max(med)


def test_repair_zero_is_the_base_model_and_repair_interpolates(frozen_lr):
    X, y, _ = make_data(500, seed=4)
    raw = frozen_lr.predict_proba(X)[:, 1]
    scores = {}
    for repair in (0.0, 0.5, 1.0):
        clf = ThresholdInvariantClassifier(
            frozen_lr, sensitive=0, repair=repair, random_state=0
        )
        scores[repair] = clf.fit(X, y).predict_proba(X)[:, 1]
    np.testing.assert_array_equal(scores[0.0], raw)
    np.testing.assert_allclose(scores[0.5], (scores[0.0] + scores[1.0]) / 2)
    assert not np.allclose(scores[1.0], raw)


def test_repair_keeps_the_order_within_each_group(frozen_lr):
    X, y, group = make_data(800, seed=5)
    clf = ThresholdInvariantClassifier(frozen_lr, sensitive=0).fit(X, y)
    raw = frozen_lr.predict_proba(X)[:, 1]
    fair = clf.predict_proba(X)[:, 1]
    for g in (0, 1):
        order = np.argsort(raw[group == g])
        assert np.all(np.diff(fair[group == g][order]) >= 0)


def test_predict_thresholds_the_repaired_scores(frozen_lr):
    X, y, _ = make_data(500, seed=6)
    labels = np.array(["no", "yes"])[y]
    model = FrozenEstimator(LogisticRegression().fit(X, labels))
    for threshold, expected in (("auto", 0.5), (0.3, 0.3)):
        clf = ThresholdInvariantClassifier(model, sensitive=0, threshold=threshold)
        clf.fit(X, labels)
        assert clf.threshold_ == expected
        fair = clf.predict_proba(X)[:, 1]
        np.testing.assert_array_equal(
            clf.predict(X), np.where(fair >= expected, "yes", "no")
        )
    assert list(clf.classes_) == ["no", "yes"]


def test_intersection_of_several_multivalued_attributes():
    rng = np.random.default_rng(7)
    n = 3000
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "flag": rng.integers(0, 2, n).astype(bool),
            "x": rng.normal(size=n),
        }
    )
    shift = X["colour"].map({"red": 0.0, "green": 1.0, "blue": 2.0}) + X["flag"]
    X["x"] += shift
    y = (X["x"] + rng.normal(size=n) > 1.5).astype(int)
    model = make_pipeline(
        ColumnTransformer([("x", "passthrough", ["x"])]), LogisticRegression()
    )
    clf = ThresholdInvariantClassifier(
        model, sensitive=["colour", "flag"], smoothing=0.0, calibration="in_sample"
    ).fit(X, y)
    assert len(clf.groups_) == 6
    assert ("blue", True) in clf.groups_
    np.testing.assert_allclose(clf.group_weights_.sum(), 1.0)
    fair = clf.predict_proba(X)[:, 1]
    raw = clf.estimator_.predict_proba(X)[:, 1]
    sf = X[["colour", "flag"]]
    assert mcdp(y, raw, sensitive_features=sf) > 0.5
    assert mcdp(y, fair, sensitive_features=sf) < 0.02


def test_categorical_sensitive_column_with_a_missing_category_at_predict():
    X, y, _ = make_data(600, seed=8)
    frame = pd.DataFrame(X[:, 1:], columns=["x", "z"])
    frame["g"] = pd.Categorical(np.where(X[:, 0] == 1, "b", "a"))
    model = make_pipeline(
        ColumnTransformer([("num", "passthrough", ["x", "z"])]), LogisticRegression()
    )
    clf = ThresholdInvariantClassifier(model, sensitive="g", cv=3).fit(frame, y)
    only_b = frame[frame["g"] == "b"]
    assert clf.predict_proba(only_b).shape == (len(only_b), 2)
    assert clf.groups_ == ["a", "b"]


def test_unseen_group(frozen_lr):
    X, y, _ = make_data(500, seed=9)
    X_new = X[:20].copy()
    X_new[:5, 0] = 7  # a group absent at fit time
    clf = ThresholdInvariantClassifier(frozen_lr, sensitive=0, ties="midrank")
    clf.fit(X, y)
    expected = UNSEEN_GROUP_ERROR.format(
        count=5, labels=[7.0], name="x0", known=clf.groups_
    )
    with pytest.raises(ValueError) as excinfo:
        clf.predict(X_new)
    assert str(excinfo.value) == expected

    raw = frozen_lr.predict_proba(X_new)[:, 1]
    seen = clf.predict_proba(X_new[5:])[:, 1]
    identity = clf.set_params(unseen_group="identity").predict_proba(X_new)[:, 1]
    np.testing.assert_array_equal(identity[:5], raw[:5])
    np.testing.assert_array_equal(identity[5:], seen)

    pooled = clf.set_params(unseen_group="pooled").predict_proba(X_new)[:, 1]
    levels = clf.quantile_levels_
    rank = np.interp(raw[:5], clf.pooled_quantiles_, levels)
    np.testing.assert_allclose(pooled[:5], np.interp(rank, levels, clf.barycenter_))
    np.testing.assert_array_equal(pooled[5:], seen)


def test_targets_that_are_not_binary(frozen_lr):
    X, y, _ = make_data(300, seed=10)
    clf = ThresholdInvariantClassifier(LogisticRegression(), sensitive=0)
    y3 = y + (X[:, 1] > 1.5)
    with pytest.raises(ValueError) as excinfo:
        clf.fit(X, y3)
    assert str(excinfo.value) == MULTICLASS_ERROR.format(classes=[0, 1, 2])
    with pytest.raises(ValueError, match="Only binary classification"):
        clf.fit(X, X[:, 1])  # continuous
    expected = NON_BINARY_ERROR.format(
        name="y (where sample_weight > 0)",
        why="ThresholdInvariantClassifier",
        n_classes=1,
        classes=[1],
    )
    with pytest.raises(ValueError) as excinfo:
        clf.fit(X, y, sample_weight=y.astype(float))
    assert str(excinfo.value) == expected


def test_frozen_estimator_is_used_as_is(frozen_lr):
    X, y, _ = make_data(400, seed=11)
    coef = frozen_lr.coef_.copy()
    clf = ThresholdInvariantClassifier(frozen_lr, sensitive=0).fit(X, y)
    assert clf.estimator_ is frozen_lr
    np.testing.assert_array_equal(frozen_lr.coef_, coef)
    # F_g comes from the frozen model's scores on the data given to fit
    raw = frozen_lr.predict_proba(X)[:, 1]
    np.testing.assert_allclose(
        clf.pooled_quantiles_,
        _weighted_quantiles(raw, np.ones(raw.size), clf.quantile_levels_),
    )
    with pytest.raises(ValueError, match="fitted on classes"):
        clf.fit(X, np.where(y == 1, "a", "b"))


def test_out_of_fold_scores_estimate_the_distributions():
    X, y, _ = make_data(600, seed=12)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    clf = ThresholdInvariantClassifier(LogisticRegression(), sensitive=0, cv=cv)
    clf.fit(X, y)
    oof = cross_val_predict(LogisticRegression(), X, y, cv=cv, method="predict_proba")
    np.testing.assert_allclose(
        clf.pooled_quantiles_,
        _weighted_quantiles(oof[:, 1], np.ones(len(y)), clf.quantile_levels_),
    )
    in_sample = clone(clf).set_params(calibration="in_sample").fit(X, y)
    raw = in_sample.estimator_.predict_proba(X)[:, 1]
    np.testing.assert_allclose(
        in_sample.pooled_quantiles_,
        _weighted_quantiles(raw, np.ones(len(y)), clf.quantile_levels_),
    )
    with pytest.raises(ValueError, match="only works for partitions"):
        clf.set_params(cv=ShuffleSplit(2, test_size=0.2, random_state=0)).fit(X, y)


def test_decision_function_estimators():
    X, y, _ = make_data(400, seed=13)
    clf = ThresholdInvariantClassifier(LinearSVC(), sensitive=0, cv=3).fit(X, y)
    assert clf.response_method_ == "decision_function"
    assert clf.threshold_ == 0.0
    assert not hasattr(clf, "predict_proba")
    decision = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), (decision >= 0).astype(int))
    lr = ThresholdInvariantClassifier(
        LogisticRegression(), sensitive=0, response_method="decision_function"
    )
    assert not hasattr(lr, "predict_proba")
    assert hasattr(lr, "decision_function")
    assert not hasattr(
        ThresholdInvariantClassifier(LogisticRegression(), sensitive=0),
        "decision_function",
    )


class _CoarseScores(ClassifierMixin, BaseEstimator):
    """A fitted stub whose score takes only 4 values: rounded to quarters."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p = np.clip(
            np.round(1 / (1 + np.exp(-2 * np.asarray(X)[:, 1])) * 4) / 4, 0.0, 1.0
        )
        return np.column_stack([1 - p, p])


class _ColumnScores(ClassifierMixin, BaseEstimator):
    """A stub whose positive-class score is column 1 of X."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=float)[:, 1]
        return np.column_stack([1 - p, p])


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")  # tiny groups
@settings(max_examples=40, deadline=None)
@given(
    sizes=st.tuples(st.integers(5, 60), st.integers(5, 60)),
    shifts=st.tuples(st.floats(-2, 2), st.floats(-2, 2)),
    seed=st.integers(0, 2**16),
)
def test_in_sample_repair_matches_the_groups_up_to_one_rank(sizes, shifts, seed):
    # KS between the repaired groups on the fit data is at most the rank
    # granularity 1/n_g plus the quantile grid's resolution.
    rng = np.random.default_rng(seed)
    group = np.repeat([0, 1], sizes)
    raw = 1 / (1 + np.exp(-(rng.normal(size=group.size) + np.take(shifts, group))))
    X = np.column_stack([group, raw])
    y = np.arange(group.size) % 2
    model = FrozenEstimator(_ColumnScores().fit(X, y))
    clf = ThresholdInvariantClassifier(
        model, sensitive=0, smoothing=0.0, ties="midrank", n_quantiles=500
    ).fit(X, y)
    fair = clf.predict_proba(X)[:, 1]
    assert ks_between_groups(fair, group) <= 1 / min(sizes) + 2 / 500 + 1e-12
    # relabelling the groups changes nothing
    relabelled = np.column_stack([np.where(group == 0, 5, -1), raw])
    again = clone(clf).fit(relabelled, y).predict_proba(relabelled)[:, 1]
    np.testing.assert_allclose(again, fair, rtol=1e-12)


def test_random_tie_breaking_repairs_discrete_scores():
    X, y, group = make_data(4000, seed=14)
    model = FrozenEstimator(_CoarseScores().fit(X, y))
    raw = model.predict_proba(X)[:, 1]
    assert np.unique(raw).size <= 5
    kw = {"sensitive": 0, "smoothing": 0.0, "random_state": 0}
    midrank = ThresholdInvariantClassifier(model, ties="midrank", **kw).fit(X, y)
    rand = ThresholdInvariantClassifier(model, ties="random", **kw).fit(X, y)
    # midrank keeps atoms, so the groups' distributions stay apart
    assert ks_between_groups(midrank.predict_proba(X)[:, 1], group) > 0.1
    fair = rand.predict_proba(X)[:, 1]
    assert ks_between_groups(fair, group) < 0.05
    # deterministic per row: the same row gets the same score in any batch
    rows = np.random.default_rng(0).permutation(len(y))[:300]
    np.testing.assert_array_equal(rand.predict_proba(X[rows])[:, 1], fair[rows])
    refit = clone(rand).fit(X, y)
    np.testing.assert_array_equal(refit.predict_proba(X)[:, 1], fair)
    other_seed = clone(rand).set_params(random_state=1).fit(X, y)
    assert not np.array_equal(other_seed.predict_proba(X)[:, 1], fair)


def test_sample_weight_counts_like_repeated_rows(frozen_lr):
    X, y, _ = make_data(300, seed=15)
    weights = np.random.default_rng(0).integers(0, 4, len(y))
    clf = ThresholdInvariantClassifier(frozen_lr, sensitive=0, random_state=0)
    weighted = clone(clf).fit(X, y, sample_weight=weights)
    repeated = clone(clf).fit(np.repeat(X, weights, 0), np.repeat(y, weights))
    np.testing.assert_allclose(weighted.quantiles_, repeated.quantiles_)
    np.testing.assert_allclose(weighted.group_weights_, repeated.group_weights_)
    np.testing.assert_allclose(
        weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12
    )
    knn = ThresholdInvariantClassifier(KNeighborsClassifier(), sensitive=0)
    with pytest.raises(TypeError) as excinfo:
        knn.fit(X, y, sample_weight=weights)
    assert str(excinfo.value) == SAMPLE_WEIGHT_UNSUPPORTED_ERROR.format(
        name="KNeighborsClassifier"
    )


def test_pickle_roundtrip(frozen_lr):
    X, y, _ = make_data(300, seed=16)
    clf = ThresholdInvariantClassifier(LogisticRegression(), sensitive=0, cv=3)
    clf.fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


# --- scikit-learn integration ----------------------------------------------


def _frame(n=1500, seed=17):
    X, y, _ = make_data(n, seed=seed)
    frame = pd.DataFrame(X[:, 1:], columns=["x", "z"])
    frame["sex"] = np.where(X[:, 0] == 1, "m", "f")
    return frame, y


def _model_without_sensitive_column():
    drop = ColumnTransformer([("sex", "drop", ["sex"])], remainder=StandardScaler())
    return make_pipeline(drop, LogisticRegression())


def test_cross_validate_and_grid_search_with_fairness_scorers():
    X, y = _frame()
    clf = ThresholdInvariantClassifier(
        _model_without_sensitive_column(), sensitive="sex", cv=3
    )
    scoring = {"ap": "average_precision", "mcdp": make_mcdp_scorer(sensitive="sex")}
    base = cross_validate(_model_without_sensitive_column(), X, y, scoring=scoring)
    repaired = cross_validate(clf, X, y, scoring=scoring)
    assert -repaired["test_mcdp"].mean() < 0.5 * -base["test_mcdp"].mean()

    search = GridSearchCV(
        clf,
        {"repair": [0.0, 0.5, 1.0]},
        scoring=scoring,
        refit=fairest_within(fairness="mcdp", performance="ap", tolerance=0.9),
        cv=3,
    ).fit(X, y)
    results = search.cv_results_
    chosen = search.best_index_
    eligible = results["mean_test_ap"] >= 0.9 * results["mean_test_ap"].max()
    assert eligible[chosen]
    assert (
        results["mean_test_mcdp"][chosen] == results["mean_test_mcdp"][eligible].max()
    )
    assert search.best_estimator_.repair == search.best_params_["repair"]


def test_inside_a_pipeline():
    X, y = _frame(800)
    pipe = make_pipeline(
        ThresholdInvariantClassifier(
            _model_without_sensitive_column(), sensitive="sex", cv=3
        )
    )
    scores = cross_val_score(pipe, X, y, scoring="average_precision", cv=3)
    assert np.all(scores > 0.5)


# parametrize_with_checks (default and unseen_group='pooled') is in tests/test_common.py


# --- acceptance on the bundled Adult data -----------------------------------

THRESHOLDS = np.round(np.arange(0.05, 0.951, 0.05), 2)


def _lightgbm(seed=0):
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.LGBMClassifier(
        n_estimators=200, n_jobs=1, verbose=-1, random_state=seed
    )


@pytest.fixture(scope="module")
def adult():
    from skfair.datasets import load_adult

    X, y = load_adult(return_X_y=True)
    # LightGBM takes pandas categoricals, not strings
    X = X.astype(dict.fromkeys(X.select_dtypes(exclude="number"), "category"))
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    base = _lightgbm().fit(X_train, y_train)
    repaired = ThresholdInvariantClassifier(
        _lightgbm(), sensitive="sex", random_state=0
    ).fit(X_train, y_train)
    return {
        "X_train": X_train,
        "y_train": y_train,
        "X_test": X_test,
        "y_test": y_test,
        "base": base,
        "repaired": repaired,
    }


def _fairness(y, scores, sex):
    return {
        "ap": average_precision_score(y, scores),
        "mcdp": mcdp(y, scores, sensitive_features=sex),
        "abcc": abcc(y, scores, sensitive_features=sex),
        "dp_max": max(
            delta_dp(y, scores, sensitive_features=sex, threshold=t) for t in THRESHOLDS
        ),
    }


@pytest.mark.slow
def test_adult_full_repair(adult):
    X, y = adult["X_test"], adult["y_test"]
    base = _fairness(y, adult["base"].predict_proba(X)[:, 1], X["sex"])
    fair = _fairness(y, adult["repaired"].predict_proba(X)[:, 1], X["sex"])
    assert base["mcdp"] > 0.3
    assert base["dp_max"] > 0.3
    assert fair["mcdp"] <= 0.05
    assert fair["abcc"] <= 0.015
    assert fair["dp_max"] <= 0.05
    assert fair["ap"] >= 0.90 * base["ap"]


@pytest.mark.slow
def test_adult_repair_traces_a_frontier(adult):
    X, y = adult["X_test"], adult["y_test"]
    clf = copy.deepcopy(adult["repaired"])  # `repair` acts at predict time only
    points = [
        _fairness(y, clf.set_params(repair=r).predict_proba(X)[:, 1], X["sex"])
        for r in (0.0, 0.5, 1.0)
    ]
    base_ap = average_precision_score(y, adult["base"].predict_proba(X)[:, 1])
    np.testing.assert_allclose(points[0]["ap"], base_ap)  # repair=0 is the base
    assert points[0]["mcdp"] > points[1]["mcdp"] > points[2]["mcdp"]
    assert points[0]["ap"] > points[1]["ap"] > points[2]["ap"]


@pytest.mark.slow
def test_adult_grid_search_fairest_within(adult):
    X, y = adult["X_train"], adult["y_train"]
    search = GridSearchCV(
        ThresholdInvariantClassifier(_lightgbm(), sensitive="sex", cv=3),
        {"repair": [0.0, 0.5, 0.75, 1.0]},
        scoring={
            "ap": "average_precision",
            "mcdp": make_mcdp_scorer(sensitive="sex"),
        },
        refit=fairest_within(fairness="mcdp", performance="ap", tolerance=0.95),
        cv=3,
    ).fit(X, y)
    X_test, y_test = adult["X_test"], adult["y_test"]
    scores = search.predict_proba(X_test)[:, 1]
    assert 0.0 < search.best_params_["repair"] < 1.0
    assert mcdp(y_test, scores, sensitive_features=X_test["sex"]) <= 0.12
    base_ap = average_precision_score(y_test, adult["base"].predict_proba(X_test)[:, 1])
    assert average_precision_score(y_test, scores) >= 0.93 * base_ap


@pytest.mark.slow
def test_adult_cross_val_score_with_a_builtin_scorer(adult):
    clf = ThresholdInvariantClassifier(_lightgbm(), sensitive="sex", cv=3)
    scores = cross_val_score(
        clf, adult["X_train"], adult["y_train"], scoring="average_precision", cv=3
    )
    assert scores.shape == (3,)
    assert np.all((scores > 0.7) & (scores < 0.85))


# --- issue 10 regressions ---------------------------------------------------


def test_frozen_unfitted_estimator_raises_not_fitted():
    # issue 10 item 12
    X, y, _ = make_data(100)
    clf = ThresholdInvariantClassifier(
        FrozenEstimator(LogisticRegression()), sensitive=0
    )
    with pytest.raises(NotFittedError):
        clf.fit(X, y)


def test_continuous_and_single_group_sensitive_columns_are_refused(frozen_lr):
    # issue 10 items 1 and 5: the estimators refuse what the metrics refuse
    X, y, _ = make_data(200)
    clf = ThresholdInvariantClassifier(frozen_lr, sensitive=1)  # x: continuous
    with pytest.raises(ValueError, match="looks continuous"):
        clf.fit(X, y)
    X[:, 0] = 1.0
    with pytest.raises(ValueError, match="at least two groups"):
        clf.set_params(sensitive=0).fit(X, y)


def test_left_out_groups_are_mapped_through_the_pooled_distribution(frozen_lr):
    # issue 10 item 2
    X, y, _ = make_data(400, seed=3)
    X[:4, 0] = 5.0  # a group of four
    params = {"sensitive": 0, "ties": "midrank"}
    with pytest.warns(SmallGroupWarning, match="5.0"):
        ThresholdInvariantClassifier(frozen_lr, **params).fit(X, y)
    clf = ThresholdInvariantClassifier(frozen_lr, min_group_size=10, **params)
    clf.fit(X, y)
    assert clf.groups_ == [0.0, 1.0] and clf.left_out_groups_ == [5.0]
    assert clf.group_weights_.sum() == pytest.approx(1.0)  # kept groups only
    # their scores go through the pooled CDF onto the barycentre
    scores = frozen_lr.predict_proba(X[:4])[:, 1]
    left, right = _cdf_bounds(clf.pooled_quantiles_, clf.quantile_levels_, scores)
    expected = np.interp((left + right) / 2, clf.quantile_levels_, clf.barycenter_)
    np.testing.assert_allclose(clf.predict_proba(X[:4])[:, 1], expected)


def test_fit_parameters_are_routed_to_the_estimator_and_the_splitter():
    # issue 11: cross_val_predict brings metadata routing of fit parameters
    X, y, _ = make_data(300, seed=4)
    groups = np.arange(len(y)) % 5
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    with config_context(enable_metadata_routing=True):
        estimator = LogisticRegression().set_fit_request(sample_weight=True)
        clf = ThresholdInvariantClassifier(
            estimator, sensitive=0, cv=GroupKFold(5), smoothing=0.0
        ).fit(X, y, sample_weight=weights, groups=groups)
        oof = cross_val_predict(
            estimator,
            X,
            y,
            cv=GroupKFold(5),
            method="predict_proba",
            params={"sample_weight": weights, "groups": groups},
        )[:, 1]
    expected = _weighted_quantiles(oof, weights, clf.quantile_levels_)
    np.testing.assert_allclose(clf.pooled_quantiles_, expected)
    refit = LogisticRegression().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(clf.estimator_.coef_, refit.coef_)


def test_a_multiclass_target_points_to_the_in_processing_route():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 2, 300), rng.normal(size=(300, 2))])
    y = rng.integers(0, 3, 300)
    model = ThresholdInvariantClassifier(LogisticRegression(), sensitive=0)
    with pytest.raises(ValueError, match="no multiclass repair") as info:
        model.fit(X, y)
    assert "FairMLPClassifier" in str(info.value)
    assert "[0, 1, 2]" in str(info.value)
