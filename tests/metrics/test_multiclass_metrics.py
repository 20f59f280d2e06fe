"""The distribution metrics, intervals, tests and scorers on class probabilities."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score

from skfair.metrics import (
    MCDPResult,
    abcc,
    abpc,
    delta_dp,
    disparity_test,
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_hfm_scorer,
    make_mcdp_scorer,
    make_rate_scorer,
    mcdp,
    mcdp_curve,
    mcdp_details,
    metric_confidence_interval,
    multiclass_selection_rate_difference,
    per_class_values,
)
from skfair.metrics._multiclass import (
    CLASS_AGG_ERROR,
    CLASS_COLUMNS_ERROR,
    PROBA_COLUMNS_ERROR,
    PROBA_RANGE_ERROR,
)
from skfair.metrics._multiclass_inference import CLASS_METHOD_ERROR
from skfair.model_selection import fairest_within

METRICS = {"mcdp": mcdp, "abcc": abcc, "abpc": abpc, "delta_dp": delta_dp}
OPTIONS = [
    ("mcdp", {}),
    ("mcdp", {"epsilon": 0.05}),
    ("abcc", {}),
    ("abpc", {"method": "direct", "n_points": 200}),
    ("delta_dp", {}),
    ("delta_dp", {"threshold": 0.3}),
]


def _data(n=240, n_classes=3, n_groups=3, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    alpha = (
        1.0 + np.arange(n_classes) + groups[:, None] * 0.7 * (np.arange(n_classes) == 0)
    )
    proba = rng.gamma(alpha)
    return proba / proba.sum(axis=1, keepdims=True), groups, rng.random(n) + 0.1


@pytest.fixture(autouse=True)
def _quiet_small_groups():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=Warning)
        yield


@pytest.mark.parametrize(("name", "options"), OPTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_per_class_equals_binary_metric_on_each_column(name, options, weighted):
    proba, groups, weights = _data()
    w = weights if weighted else None
    metric = METRICS[name]
    brute = [
        metric(None, proba[:, k], sensitive_features=groups, sample_weight=w, **options)
        for k in range(proba.shape[1])
    ]
    got = {
        agg: metric(
            None,
            proba,
            sensitive_features=groups,
            sample_weight=w,
            class_agg=agg,
            **options,
        )
        for agg in ("max", "mean")
    }
    assert got["max"] == max(brute)
    assert got["mean"] == pytest.approx(np.mean(brute), abs=1e-15)
    assert got["max"] > got["mean"]  # the classes differ on this data
    series = per_class_values(
        None,
        proba,
        sensitive_features=groups,
        metric=name,
        metric_params=options,
        sample_weight=w,
    )
    assert series.tolist() == brute and series.index.tolist() == [0, 1, 2]


def test_one_dimensional_scores_unchanged_and_class_agg_ignored():
    proba, groups, _ = _data()
    for name, metric in METRICS.items():
        before = metric(None, proba[:, 0], sensitive_features=groups)
        assert (
            metric(None, proba[:, 0], sensitive_features=groups, class_agg="mean")
            == before
        )
        assert metric(None, proba[:, :1], sensitive_features=groups) == before, name


def test_mcdp_details_names_worst_class_pair_and_threshold():
    proba, groups, _ = _data()
    labels = ["Low", "Medium", "High"]
    res = mcdp_details(None, proba, sensitive_features=groups, classes=labels)
    per = [mcdp_details(None, proba[:, k], sensitive_features=groups) for k in range(3)]
    k = int(np.argmax([r.value for r in per]))
    assert isinstance(res, MCDPResult) and res.class_label == labels[k]
    assert (res.groups, res.threshold, res.pair_values) == (
        per[k].groups,
        per[k].threshold,
        per[k].pair_values,
    )
    # brute force: the worst pair's KS statistic at the reported threshold
    a, b = res.groups
    col = proba[:, k]
    gap = abs(
        np.mean(col[groups == a] <= res.threshold)
        - np.mean(col[groups == b] <= res.threshold)
    )
    assert gap == pytest.approx(res.value)
    assert list(res.per_class) == labels
    assert [r.value for r in res.per_class.values()] == [r.value for r in per]
    mean = mcdp_details(None, proba, sensitive_features=groups, class_agg="mean")
    assert mean.value == pytest.approx(np.mean([r.value for r in per]))
    assert mean.class_label == k
    curve = mcdp_curve(None, proba, sensitive_features=groups, epsilons=[0, 0.02, 0.1])
    brute = np.max(
        [
            mcdp_curve(
                None, proba[:, j], sensitive_features=groups, epsilons=[0, 0.02, 0.1]
            )
            for j in range(3)
        ],
        axis=0,
    )
    np.testing.assert_array_equal(curve, brute)


def test_dataframes_name_the_classes():
    pl = pytest.importorskip("polars")
    proba, groups, _ = _data()
    frame = pd.DataFrame(proba, columns=["a", "b", "c"])
    expected = mcdp(None, proba, sensitive_features=groups)
    assert mcdp(None, frame, sensitive_features=pd.Series(groups)) == expected
    assert mcdp(None, pl.DataFrame(frame), sensitive_features=groups) == expected
    res = mcdp_details(None, pl.DataFrame(frame), sensitive_features=groups)
    assert res.class_label in ("a", "b", "c") and set(res.per_class) == {"a", "b", "c"}
    with pytest.raises(ValueError, match="index"):
        mcdp(
            None,
            frame.set_axis(frame.index + 1000),
            sensitive_features=pd.Series(groups),
        )


def test_classes_read_a_frame_by_column_name():
    pl = pytest.importorskip("polars")
    proba, groups, _ = _data()
    frame = pd.DataFrame(proba, columns=["High", "Low", "Medium"])
    own = [mcdp(None, proba[:, k], sensitive_features=groups) for k in range(3)]
    order = ["Low", "Medium", "High"]  # model.classes_ in another order
    expected = [own[1], own[2], own[0]]
    for y_score in (frame, pl.DataFrame(frame)):
        got = per_class_values(None, y_score, sensitive_features=groups, classes=order)
        assert got.index.tolist() == order and got.tolist() == expected
        res = mcdp_details(None, y_score, sensitive_features=groups, classes=order)
        assert {c: r.value for c, r in res.per_class.items()} == dict(
            zip(order, expected)
        )
        assert res.value == max(own)
        assert res.class_label == order[expected.index(res.value)]
    # names that are not the frame's columns label the columns in order
    got = per_class_values(None, frame, sensitive_features=groups, classes=list("abc"))
    assert got.to_dict() == dict(zip("abc", own))
    # a class named as another column would be a wrong label: an error
    with pytest.raises(ValueError) as err:
        mcdp(None, frame, sensitive_features=groups, classes=["Low", "High", "Mid"])
    assert str(err.value) == CLASS_COLUMNS_ERROR.format(
        classes=["Low", "High", "Mid"], columns=["High", "Low", "Medium"]
    )


def test_messy_groups_one_person_and_many_intersections():
    rng = np.random.default_rng(3)
    n = 900
    proba = rng.dirichlet([1, 2, 3], n)
    sens = np.c_[rng.integers(0, 7, n), rng.integers(0, 7, n)]  # 49 intersections
    sens[0] = [99, 99]  # a group of one person
    for name, metric in METRICS.items():
        if name == "abpc":
            continue  # a one-sample group has no density
        got = metric(None, proba, sensitive_features=sens)
        assert got == max(
            metric(None, proba[:, k], sensitive_features=sens) for k in range(3)
        )
    got = mcdp(
        None, proba, sensitive_features=sens, combine="marginal", min_group_size=2
    )
    assert got == max(
        mcdp(
            None,
            proba[:, k],
            sensitive_features=sens,
            combine="marginal",
            min_group_size=2,
        )
        for k in range(3)
    )


def test_validation_errors():
    proba, groups, _ = _data()
    with pytest.raises(ValueError) as err:
        mcdp(None, proba, sensitive_features=groups, class_agg="macro")
    assert str(err.value) == CLASS_AGG_ERROR.format(class_agg="macro")
    with pytest.raises(ValueError) as err:
        mcdp(None, proba * 2, sensitive_features=groups)
    assert str(err.value).startswith(PROBA_RANGE_ERROR.split("[{low")[0])
    bad = proba.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        abcc(None, bad, sensitive_features=groups)
    with pytest.raises(ValueError, match="one distinct label per column"):
        mcdp(None, proba, sensitive_features=groups, classes=["a", "b"])
    with pytest.raises(ValueError) as err:
        mcdp(None, np.empty((5, 0)), sensitive_features=[0] * 5)
    assert "column" in str(err.value)
    assert PROBA_COLUMNS_ERROR.split("{")[0] in str(err.value)


# -- intervals and tests ----------------------------------------------------------
@pytest.mark.parametrize("agg", ["max", "mean"])
@pytest.mark.parametrize(
    ("metric", "method"),
    [("mcdp", "auto"), ("abcc", "band"), ("delta_dp", "auto"), ("mcdp", "dkw")],
)
def test_interval_holds_the_aggregated_point_value(metric, method, agg):
    proba, groups, _ = _data(n=300)
    ci = metric_confidence_interval(
        None,
        proba,
        sensitive_features=groups,
        metric=metric,
        method=method,
        metric_params={"class_agg": agg},
        n_resamples=99,
        random_state=0,
    )
    value = METRICS[metric](None, proba, sensitive_features=groups, class_agg=agg)
    assert ci.estimate == value
    assert 0.0 <= ci.low < value < ci.high <= 1.0
    # the aggregate's interval is wider than each class's own
    one = metric_confidence_interval(
        None,
        proba[:, 0],
        sensitive_features=groups,
        metric=metric,
        method=method,
        n_resamples=99,
        random_state=0,
    )
    assert ci.high - ci.low >= 0.5 * (one.high - one.low)


def test_interval_and_test_refuse_what_does_not_apply():
    proba, groups, _ = _data()
    with pytest.raises(ValueError) as err:
        metric_confidence_interval(
            None, proba, sensitive_features=groups, method="bootstrap"
        )
    assert str(err.value).startswith(CLASS_METHOD_ERROR.split("{")[0])
    with pytest.raises(ValueError, match="permutation"):
        disparity_test(None, proba, sensitive_features=groups, method="ks")
    with pytest.raises(ValueError, match="score_type"):
        disparity_test(None, proba, sensitive_features=groups, score_type="logit")


def test_permutation_test_on_classes_agrees_with_the_point_value():
    proba, groups, _ = _data(n=300)
    res = disparity_test(
        None,
        proba,
        sensitive_features=groups,
        n_resamples=199,
        random_state=0,
        metric_params={"class_agg": "mean"},
    )
    assert res.statistic == mcdp(
        None, proba, sensitive_features=groups, class_agg="mean"
    )
    assert res.method == "permutation" and res.pvalue == res.pvalue_floor  # shifted
    rng = np.random.default_rng(5)
    null = disparity_test(
        None,
        proba,
        sensitive_features=rng.permutation(groups),
        n_resamples=199,
        random_state=0,
    )
    assert null.pvalue > 0.05
    # brute force: the p-value from the permuted labels' aggregated statistic
    perm_rng = np.random.default_rng(7)
    observed = mcdp(None, proba, sensitive_features=groups)
    count = sum(
        mcdp(None, proba, sensitive_features=perm_rng.permutation(groups)) >= observed
        for _ in range(50)
    )
    assert count == 0


# -- scorers ------------------------------------------------------------------------
def _three_class_problem(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {"x1": rng.normal(size=n), "x2": rng.normal(size=n), "g": rng.integers(0, 2, n)}
    )
    score = X["x1"] + 0.8 * X["g"] + rng.normal(scale=0.5, size=n)
    y = np.digitize(score, [-0.5, 0.7])
    return X, y


@pytest.mark.parametrize(
    "factory",
    [make_mcdp_scorer, make_abcc_scorer, make_abpc_scorer, make_delta_dp_scorer],
)
def test_scorers_on_a_three_class_logistic_regression(factory):
    X, y = _three_class_problem()
    scorer = factory(sensitive="g")
    model = LogisticRegression().fit(X, y)
    proba = model.predict_proba(X)
    expected = {
        make_mcdp_scorer: mcdp,
        make_abcc_scorer: abcc,
        make_abpc_scorer: abpc,
        make_delta_dp_scorer: delta_dp,
    }[factory]
    assert scorer(model, X, y) == -expected(None, proba, sensitive_features=X["g"])
    mean = factory(sensitive="g", class_agg="mean")
    assert mean(model, X, y) == -expected(
        None, proba, sensitive_features=X["g"], class_agg="mean"
    )
    one = factory(sensitive="g", pos_label=2)  # one class against the rest, as before
    assert one(model, X, y) == -expected(None, proba[:, 2], sensitive_features=X["g"])
    scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=3)
    assert np.all((scores <= 0) & (scores >= -2))


def test_predict_scorer_scores_the_indicator_of_each_class():
    X, y = _three_class_problem()
    model = LogisticRegression().fit(X, y)
    scorer = make_delta_dp_scorer(sensitive="g", response_method="predict")
    expected = multiclass_selection_rate_difference(
        y, model.predict(X), sensitive_features=X["g"]
    )
    assert scorer(model, X, y) == pytest.approx(-expected)


def test_grid_search_with_fairest_within_on_three_classes():
    X, y = _three_class_problem()
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [0.001, 0.1, 10.0]},
        scoring={"accuracy": "accuracy", "mcdp": make_mcdp_scorer(sensitive="g")},
        refit=fairest_within(fairness="mcdp", performance="accuracy", tolerance=0.5),
        cv=3,
    ).fit(X, y)
    mcdps = search.cv_results_["mean_test_mcdp"]
    assert np.all(np.isfinite(mcdps)) and np.all(mcdps <= 0)
    assert search.best_estimator_.classes_.tolist() == [0, 1, 2]


def test_lightgbm_and_rate_scorer_in_grid_search():
    lgb = pytest.importorskip("lightgbm")
    X, y = _three_class_problem()
    model = lgb.LGBMClassifier(n_estimators=20, verbose=-1)
    scores = cross_val_score(model, X, y, scoring=make_mcdp_scorer(sensitive="g"), cv=3)
    assert np.all((scores < 0) & (scores >= -1))
    rate = make_rate_scorer(
        "multiclass_selection_rate_difference", sensitive="g", class_agg="mean"
    )
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [0.01, 1.0]},
        scoring={"accuracy": "accuracy", "dp": rate},
        refit="accuracy",
        cv=3,
    ).fit(X, y)
    fitted = LogisticRegression(C=1.0).fit(X, y)
    direct = multiclass_selection_rate_difference(
        y, fitted.predict(X), sensitive_features=X["g"], class_agg="mean"
    )
    assert rate(fitted, X, y) == pytest.approx(-direct)
    assert np.all(search.cv_results_["mean_test_dp"] <= 0)
    with pytest.raises(ValueError, match="multiclass_"):
        make_rate_scorer(
            "demographic_parity_difference", sensitive="g", class_agg="max"
        )


def test_hfm_scorer_refuses_three_classes_without_pos_label():
    X, y = _three_class_problem()
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        make_hfm_scorer(sensitive="g")(model, X, y)
    assert make_hfm_scorer(sensitive="g", pos_label=2)(model, X, y) <= 0


def test_binary_scorer_unchanged():
    X, y = _three_class_problem()
    yb = (y == 2).astype(int)
    model = LogisticRegression().fit(X, yb)
    got = make_mcdp_scorer(sensitive="g")(model, X, yb)
    assert got == -mcdp(None, model.predict_proba(X)[:, 1], sensitive_features=X["g"])


@pytest.mark.parametrize("metric", [mcdp, abcc, delta_dp])
def test_class_options_on_one_dimensional_scores_are_checked(metric):
    # class_agg and classes do not apply to 1-D scores, but a typo or a
    # classes= meant for another model is an error, not ignored
    from skfair.metrics._multiclass import CLASS_AGG_ERROR, CLASSES_ON_SCORES_ERROR

    y = np.linspace(0.05, 0.95, 40)
    g = np.tile([0, 1], 20)
    with pytest.raises(ValueError, match=re.escape(CLASS_AGG_ERROR[:20])):
        metric(None, y, sensitive_features=g, class_agg="foo", min_group_size=1)
    with pytest.raises(ValueError, match=re.escape(CLASSES_ON_SCORES_ERROR[-30:])):
        metric(None, y, sensitive_features=g, classes=["a", "b"], min_group_size=1)
    assert metric(None, y, sensitive_features=g, min_group_size=1) >= 0
