"""Scorers in cross-validation, with and without metadata routing."""

import inspect
import pickle
import re

import numpy as np
import pandas as pd
import pytest
import sklearn
from packaging.version import Version
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from sklearn.svm import LinearSVC

from skfair.datasets import load_adult
from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    hfm,
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_hfm_scorer,
    make_mcdp_scorer,
    mcdp,
)
from skfair.metrics._scorer import MISSING_SENSITIVE_ERROR
from skfair.model_selection import fairest_within
from skfair.utils import SmallGroupWarning
from skfair.utils._response import (
    NO_RESPONSE_METHOD_ERROR,
    POSITIVE_CLASS_UNKNOWN_ERROR,
    positive_class_scores,
)

CV = StratifiedKFold(5, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def adult():
    bunch = load_adult()
    return bunch.data, bunch.target


def lgbm_without_sex():
    from lightgbm import LGBMClassifier

    drop = ColumnTransformer(
        [("sex", "drop", ["sex"]), ("race", OrdinalEncoder(), ["race"])],
        remainder="passthrough",
    )
    drop.set_output(transform="pandas")
    model = LGBMClassifier(n_estimators=20, num_leaves=15, verbose=-1, n_jobs=1)
    return make_pipeline(drop, model)


def by_hand(model, X, y, metric, **kwargs):
    out = []
    for train, test in CV.split(X, y):
        fitted = sklearn.base.clone(model).fit(X.iloc[train], y.iloc[train])
        proba = fitted.predict_proba(X.iloc[test])[:, 1]
        out.append(
            -metric(None, proba, sensitive_features=X["sex"].iloc[test], **kwargs)
        )
    return np.array(out)


@pytest.mark.slow
def test_mcdp_scorer_equals_metric_fold_by_fold_on_adult(adult):
    X, y = adult
    model = lgbm_without_sex()
    expected = by_hand(model, X, y, mcdp, epsilon=0.05)
    scorer = make_mcdp_scorer(sensitive="sex", epsilon=0.05)
    got = cross_val_score(model, X, y, cv=CV, scoring=scorer)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert np.all(expected < -0.05)  # the model is measurably unfair
    got_parallel = cross_val_score(model, X, y, cv=CV, scoring=scorer, n_jobs=2)
    np.testing.assert_allclose(got_parallel, expected, rtol=0, atol=1e-12)
    # routing on, sensitive attribute as metadata
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_val_score(
            model,
            X,
            y,
            cv=CV,
            scoring=make_mcdp_scorer(epsilon=0.05),
            params={"sensitive_features": X["sex"]},
        )
    np.testing.assert_allclose(routed, expected, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_multi_metric_cross_validate_mixes_builtin_and_skfair(adult):
    X, y = adult
    X, y = X.iloc[:8000], y.iloc[:8000]
    scoring = {
        "ap": "average_precision",
        "accuracy": "accuracy",
        "mcdp0": make_mcdp_scorer(sensitive="sex"),
        "mcdp05": make_mcdp_scorer(sensitive="sex", epsilon=0.05),
        "abcc": make_abcc_scorer(sensitive="sex"),
        "abpc": make_abpc_scorer(sensitive="sex"),
        "ddp": make_delta_dp_scorer(
            sensitive=["sex", "race"], threshold=0.5, min_group_size=30
        ),
    }
    res = cross_validate(lgbm_without_sex(), X, y, cv=3, scoring=scoring)
    for key in scoring:
        values = res[f"test_{key}"]
        assert values.shape == (3,) and np.all(np.isfinite(values))
    for key in ("mcdp0", "mcdp05", "abcc", "abpc", "ddp"):
        assert np.all(res[f"test_{key}"] <= 0)
    assert np.all(res["test_mcdp05"] >= res["test_mcdp0"])  # ε-monotone
    assert np.all(res["test_ap"] > 0.5)


def toy(n=400, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    x = rng.normal(size=n) + 0.8 * group
    y = (x + rng.normal(scale=0.5, size=n) > 0.4).astype(int)
    return pd.DataFrame({"x": x, "g": group}), pd.Series(y)


@pytest.mark.parametrize(
    ("factory", "metric", "kwargs"),
    [
        (make_mcdp_scorer, mcdp, {"epsilon": 0.02}),
        (make_abcc_scorer, abcc, {}),
        (make_abpc_scorer, abpc, {}),
        (make_delta_dp_scorer, delta_dp, {"threshold": 0.5}),
    ],
)
def test_scorers_equal_negated_metric(factory, metric, kwargs, constructor):
    X, y = toy()
    X = constructor({c: X[c].to_numpy() for c in X.columns})  # any library
    model = LogisticRegression().fit(X[["x"]], y)
    pipe = make_pipeline(
        ColumnTransformer([("x", "passthrough", ["x"])]), LogisticRegression()
    ).fit(X, y)
    proba = pipe.predict_proba(X)[:, 1]
    assert model is not None
    for spec, data in [("g", X), (1, X.to_numpy())]:
        scorer = factory(sensitive=spec, **kwargs)
        fitted = (
            pipe
            if spec == "g"
            else make_pipeline(
                ColumnTransformer([("x", "passthrough", [0])]), LogisticRegression()
            ).fit(data, y)
        )
        p = fitted.predict_proba(data)[:, 1]
        np.testing.assert_allclose(p, proba)
        expected = -metric(y, p, sensitive_features=X["g"], **kwargs)
        assert scorer(fitted, data, y) == pytest.approx(expected, abs=1e-12)
        clone = pickle.loads(pickle.dumps(scorer))
        assert clone(fitted, data, y) == pytest.approx(expected, abs=1e-12)
        assert repr(clone) == repr(scorer)


def test_decision_function_allowed_for_mcdp0_only():
    X, y = toy()
    model = LogisticRegression().fit(X, y)
    by_proba = make_mcdp_scorer(sensitive="g")(model, X, y)
    by_margin = make_mcdp_scorer(sensitive="g", response_method="decision_function")
    assert by_margin(model, X, y) == pytest.approx(by_proba)
    with pytest.raises(ValueError, match="response_method for mcdp"):
        make_mcdp_scorer(
            sensitive="g", epsilon=0.1, response_method="decision_function"
        )


def test_missing_sensitive_names_both_options():
    X, y = toy()
    model = LogisticRegression().fit(X, y)
    scorer = make_mcdp_scorer()
    with pytest.raises(ValueError, match="enable_metadata_routing") as info:
        scorer(model, X, y)
    assert "sensitive=" in str(info.value)
    assert MISSING_SENSITIVE_ERROR.split(":")[0].format(scorer="") in str(info.value)


@pytest.mark.parametrize(
    ("factory", "metric"),
    [
        (make_mcdp_scorer, mcdp),
        (make_abcc_scorer, abcc),
        (make_abpc_scorer, abpc),
        (make_delta_dp_scorer, delta_dp),
    ],
)
def test_fold_with_one_class_is_scored_by_metrics_that_ignore_y(factory, metric):
    # issue 10 item 10: these metrics never read y, so a one-class fold is fine.
    X, y = toy()
    model = LogisticRegression().fit(X, y)
    one_class = (y == 1).to_numpy()
    proba = model.predict_proba(X[one_class])[:, 1]
    expected = -metric(None, proba, sensitive_features=X["g"][one_class])
    got = factory(sensitive="g")(model, X[one_class], y[one_class])
    assert got == pytest.approx(expected, abs=1e-12) and got < 0


def test_fold_with_one_group_raises_clearly():
    X, y = toy()
    model = LogisticRegression().fit(X, y)
    scorer = make_mcdp_scorer(sensitive="g")
    one_group = X["g"] == 1
    with pytest.raises(ValueError, match="at least two groups"):
        scorer(model, X[one_group], y[one_group])
    # GridSearchCV turns it into error_score (nan) with a warning, never a 0.
    X_bad = X.copy()
    X_bad.loc[X_bad.index[:200], "g"] = 0
    X_bad.loc[X_bad.index[200:], "g"] = 1
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [1.0]},
        cv=[(np.arange(100, 400), np.arange(0, 100))],
        scoring=scorer,
    )
    with pytest.warns(UserWarning) as record:
        search.fit(X_bad, y)
    messages = " ".join(str(w.message) for w in record)
    assert "at least two groups" in messages and "non-finite" in messages
    assert np.isnan(search.cv_results_["mean_test_score"][0])


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")  # folds of 67
def test_hfm_scorer_equals_hfm_by_hand(constructor):
    X, y = toy(200)
    X["z"] = np.random.default_rng(3).normal(size=200)
    X = constructor({c: X[c].to_numpy() for c in X.columns})  # any library
    labels = np.where(y == 1, "good", "bad")  # HFM sees 0/1 indicators of "good"
    drop = ColumnTransformer([("drop", "drop", ["g"])], remainder="passthrough")
    pipe = make_pipeline(drop, LogisticRegression()).fit(X, labels)
    y_pred = (pipe.predict(X) == "good").astype(float)
    result = hfm(
        X[["x", "z"]].to_numpy(), y.to_numpy(), y_pred, sensitive_features=X["g"]
    )
    y = labels
    for kind, attr in [("avg", "df_avg"), ("max", "df"), ("prev", "df_prev")]:
        scorer = make_hfm_scorer(sensitive="g", kind=kind)
        assert scorer(pipe, X, y) == pytest.approx(-getattr(result, attr))
    res = cross_validate(
        pipe,
        X,
        y,
        cv=3,
        scoring={"hfm": make_hfm_scorer(sensitive="g"), "acc": "accuracy"},
    )
    assert np.all(np.isfinite(res["test_hfm"]))


def test_hfm_scorer_rejects_non_numeric_features(constructor):
    X, y = toy(100)
    X["c"] = np.where(X["x"] > 0, "a", "b")
    X = constructor({c: X[c].to_numpy() for c in X.columns})  # any library
    drop = ColumnTransformer([("drop", "drop", ["g", "c"])], remainder="passthrough")
    pipe = make_pipeline(drop, LogisticRegression()).fit(X, y)
    with pytest.raises(TypeError, match="must be numeric"):
        make_hfm_scorer(sensitive="g")(pipe, X, y)


SCORER_MODULES = ["skfair/metrics/_scorer.py", "skfair/model_selection/_selection.py"]


@pytest.mark.parametrize("path", SCORER_MODULES)
def test_scorers_import_no_private_sklearn_name(path):
    # issue 10 item 16: built on scikit-learn's public API only.
    import ast
    from pathlib import Path

    import skfair

    source = (Path(skfair.__file__).parents[1] / path).read_text()
    private = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("sklearn")
        for alias in node.names
        if any(part.startswith("_") for part in [*node.module.split("."), alias.name])
    ]
    assert private == []


def test_scorer_classes_are_private():
    import skfair.metrics

    for name in ("FairnessScorer", "HFMScorer"):
        assert name not in skfair.metrics.__all__
        assert not hasattr(skfair.metrics, name)


@pytest.mark.parametrize(
    ("factory", "metric"),
    [
        (make_mcdp_scorer, mcdp),
        (make_abcc_scorer, abcc),
        (make_abpc_scorer, abpc),
        (make_delta_dp_scorer, delta_dp),
        (make_hfm_scorer, hfm),
    ],
)
def test_factories_take_every_option_of_their_metric(factory, metric):
    # issue 11: same options, same defaults.
    # data= (a frame and column names) is the metric's; a scorer gets arrays
    data = {"X", "y_true", "y_score", "y_pred", "sensitive_features", "sample_weight"}
    data.add("data")
    options = inspect.signature(factory).parameters
    for name, param in inspect.signature(metric).parameters.items():
        if name not in data:
            assert name in options, name
            if (
                name == "pos_label"
            ):  # the scorer's: None is the estimator's greater class
                continue
            assert options[name].default == param.default, name
    assert repr(factory()) == f"{factory.__name__}(sensitive=None)"


@pytest.mark.parametrize(
    "factory",
    [
        make_mcdp_scorer,
        make_abcc_scorer,
        make_abpc_scorer,
        make_delta_dp_scorer,
        make_hfm_scorer,
    ],
)
def test_factory_gives_its_scorer_every_argument_in_signature_order(factory):
    # issue 26: the factories are written signatures under scorer_factory.
    parameters = inspect.signature(factory).parameters
    scorer = factory(sensitive="g", min_group_size=5)
    assert list(scorer._params) == list(parameters)
    assert scorer._params["sensitive"] == "g"
    assert scorer._params["min_group_size"] == 5
    for name, param in parameters.items():
        if name not in ("sensitive", "min_group_size"):
            assert scorer._params[name] is param.default, name
    unknown = rf"{factory.__name__}\(\) got an unexpected keyword argument 'eps'"
    with pytest.raises(TypeError, match=unknown):
        factory(eps=0.1)
    with pytest.raises(TypeError, match=rf"{factory.__name__}\(\) takes 0 positional"):
        factory("g")
    assert pickle.loads(pickle.dumps(factory)) is factory


@pytest.mark.parametrize(
    ("factory", "options", "message"),
    [
        (make_mcdp_scorer, {"method": "aprox"}, "method must be"),
        (make_mcdp_scorer, {"epsilon": -0.1}, "epsilon must be"),
        (make_mcdp_scorer, {"rounding": "round"}, "rounding must be"),
        (make_mcdp_scorer, {"agg": "median"}, "agg must be"),
        (make_abcc_scorer, {"method": "grd"}, "method must be"),
        (make_abcc_scorer, {"combine": "union"}, "combine must be"),
        (make_abpc_scorer, {"n_points": 1}, "n_points must be"),
        (make_delta_dp_scorer, {"threshold": "half"}, "threshold must be"),
        (make_hfm_scorer, {"method": "fast"}, "method must be"),
        (make_hfm_scorer, {"m1": 0}, "m1"),
        (make_hfm_scorer, {"kind": "min"}, "kind must be"),
        (make_abpc_scorer, {"response_method": "predict"}, "response_method for"),
    ],
)
def test_bad_options_raise_when_the_scorer_is_made(factory, options, message):
    # issue 10 item 9: at construction, with the metric's own message.
    with pytest.raises(ValueError, match=message):
        factory(sensitive="g", **options)


def positive_rate_gap(indicator, groups):
    rates = [indicator[groups == g].mean() for g in np.unique(groups)]
    return max(rates) - min(rates)


@pytest.mark.parametrize(
    ("labels", "pos_label", "positive"),
    [
        ([0, 1], None, 1),
        ([-1, 1], None, 1),
        (["no", "yes"], None, "yes"),
        (["yes", "no"], "yes", "yes"),
        ([0, 1, 2], 2, 2),
        ([0, 1, 2], 0, 0),
    ],
)
def test_delta_dp_on_predictions_is_the_positive_rate_gap(labels, pos_label, positive):
    # issue 10 item 3: hard predictions become the positive-class indicator.
    X, y = toy()
    rng = np.random.default_rng(1)
    y = np.asarray(labels, dtype=object)[
        y.to_numpy() if len(labels) == 2 else rng.integers(0, 3, len(y))
    ]
    y = y.astype(type(labels[0]))
    model = LogisticRegression().fit(X, y)
    groups = X["g"].to_numpy()
    expected = positive_rate_gap(model.predict(X) == positive, groups)
    scorer = make_delta_dp_scorer(
        sensitive="g", response_method="predict", pos_label=pos_label
    )
    assert scorer(model, X, y) == pytest.approx(-expected, abs=1e-12)
    assert expected > 0
    # probabilities: the pos_label column, also with several classes
    proba = model.predict_proba(X)[:, list(model.classes_).index(positive)]
    expected = -delta_dp(None, proba, sensitive_features=groups, threshold=0.3)
    scorer = make_delta_dp_scorer(sensitive="g", pos_label=pos_label, threshold=0.3)
    assert scorer(model, X, y) == pytest.approx(expected, abs=1e-12)


def test_several_classes_score_every_class_or_name_an_unknown_pos_label():
    # without pos_label a 3-class model is scored on every class (class_agg);
    # an unknown pos_label is named, from skfair.utils._response.positive_class_scores
    X, _ = toy()
    y = np.random.default_rng(1).integers(0, 3, len(X))
    model = LogisticRegression().fit(X, y)
    proba = model.predict_proba(X)
    expected = max(mcdp(None, proba[:, k], sensitive_features=X["g"]) for k in range(3))
    assert make_mcdp_scorer(sensitive="g")(model, X, y) == -expected
    unknown = POSITIVE_CLASS_UNKNOWN_ERROR.format(
        pos_label=5, estimator="LogisticRegression", classes=[0, 1, 2]
    )
    with pytest.raises(ValueError, match=re.escape(unknown)):
        make_mcdp_scorer(sensitive="g", pos_label=5)(model, X, y)


def test_scores_are_those_of_positive_class_scores():
    X, y = toy()
    model = LinearSVC().fit(X, y)  # no predict_proba
    margin = model.decision_function(X)
    scorer = make_mcdp_scorer(sensitive="g", response_method="decision_function")
    assert scorer(model, X, y) == -mcdp(None, margin, sensitive_features=X["g"])
    scorer = make_mcdp_scorer(
        sensitive="g", response_method="decision_function", pos_label=0
    )
    scores, _ = positive_class_scores(
        model, X, response_method="decision_function", pos_label=0
    )
    np.testing.assert_array_equal(scores, -margin)
    assert scorer(model, X, y) == -mcdp(None, scores, sensitive_features=X["g"])
    missing = NO_RESPONSE_METHOD_ERROR.format(
        estimator="LinearSVC", methods=["predict_proba"]
    )
    with pytest.raises(AttributeError, match=re.escape(missing)):
        make_mcdp_scorer(sensitive="g")(model, X, y)


def test_routing_sensitive_features_and_sample_weight():
    X, y = toy()
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    train, test = np.arange(0, 300), np.arange(300, 400)
    proba = (
        LogisticRegression().fit(X.iloc[train], y[train]).predict_proba(X.iloc[test])
    )
    groups = X["g"].to_numpy()[test]
    expected = {
        "mcdp": -mcdp(None, proba[:, 1], sensitive_features=groups),
        "ddp": -delta_dp(
            None, proba[:, 1], sensitive_features=groups, sample_weight=w[test]
        ),
    }
    with sklearn.config_context(enable_metadata_routing=True):
        scoring = {
            "mcdp": make_mcdp_scorer(),
            "ddp": make_delta_dp_scorer().set_score_request(sample_weight=True),
        }
        res = cross_validate(
            LogisticRegression().set_fit_request(sample_weight=False),
            X,
            y,
            cv=[(train, test)],
            scoring=scoring,
            params={"sensitive_features": X["g"], "sample_weight": w},
        )
        with pytest.raises(ValueError, match="cannot receive"):
            make_mcdp_scorer(sensitive="g").set_score_request(sensitive_features=True)
    for key, value in expected.items():
        assert res[f"test_{key}"][0] == pytest.approx(value, abs=1e-12)
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        make_mcdp_scorer().set_score_request(sample_weight=True)


def test_search_forwards_sample_weight_with_routing_off():
    # A dict of scorers with sample_weight and routing off: scikit-learn asks
    # each scorer whether it takes weights (plain callables crash, #31599).
    X, y = toy()
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    train, test = np.arange(0, 300), np.arange(300, 400)
    fitted = LogisticRegression().fit(X.iloc[train], y[train], sample_weight=w[train])
    proba = fitted.predict_proba(X.iloc[test])[:, 1]
    groups = X["g"].to_numpy()[test]
    expected = delta_dp(None, proba, sensitive_features=groups, sample_weight=w[test])
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [1.0]},
        cv=[(train, test)],
        scoring={"ap": "average_precision", "ddp": make_delta_dp_scorer(sensitive=1)},
        refit=fairest_within(fairness="ddp", performance="ap"),
    ).fit(X.to_numpy(), y, sample_weight=w)
    unweighted = delta_dp(None, proba, sensitive_features=groups)
    assert expected != pytest.approx(unweighted)
    if Version(sklearn.__version__) < Version("1.7"):  # searches weigh scores since
        expected = unweighted
    assert search.cv_results_["mean_test_ddp"][0] == pytest.approx(-expected)


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_hfm_scorer_sample_weight_is_used_or_refused_when_requested():
    # issue 10 item 12: never accepted at request time and crashing at scoring.
    scorer = make_hfm_scorer(sensitive="g")
    with sklearn.config_context(enable_metadata_routing=True):
        if "sample_weight" not in inspect.signature(hfm).parameters:
            with pytest.raises(ValueError, match="cannot receive.*sample_weight"):
                scorer.set_score_request(sample_weight=True)
            return
        scorer.set_score_request(sample_weight=True)
    X, y = toy(100)
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    model = LogisticRegression().fit(X[["x"]], y)
    expected = hfm(
        X[["x"]].to_numpy(),
        y.to_numpy(),
        model.predict(X[["x"]]),
        sensitive_features=X["g"],
        sample_weight=w,
    ).df_avg
    pipe = make_pipeline(ColumnTransformer([("x", "passthrough", ["x"])]), model)
    assert scorer(pipe.fit(X, y), X, y, sample_weight=w) == pytest.approx(-expected)


def test_min_group_size_reaches_the_metric():
    # issue 10 item 2: scorers leave out small groups as the metrics do.
    X, y = toy()
    X.loc[X["x"].nlargest(8).index, "g"] = 2  # a small group with high scores
    model = LogisticRegression().fit(X, y)
    proba = model.predict_proba(X)[:, 1]
    for factory, metric in [(make_mcdp_scorer, mcdp), (make_abcc_scorer, abcc)]:
        kept = -metric(None, proba, sensitive_features=X["g"], min_group_size=10)
        scorer = factory(sensitive="g", min_group_size=10)
        assert scorer(model, X, y) == pytest.approx(kept, abs=1e-12)
        with pytest.warns(SmallGroupWarning, match="8 samples"):
            every = factory(sensitive="g")(model, X, y)
        assert every != pytest.approx(kept)
    with pytest.raises(ValueError, match="min_group_size"):
        make_delta_dp_scorer(sensitive="g", min_group_size=0)
