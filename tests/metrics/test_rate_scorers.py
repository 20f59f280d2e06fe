"""make_rate_scorer: the fairlearn-style rate metrics as scikit-learn scorers."""

import pickle
import re

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from skfair.metrics import (
    demographic_parity_difference,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_positive_rate_ratio,
    make_rate_scorer,
    true_positive_rate_difference,
)
from skfair.metrics._rate_scorers import RATE_REGRESSOR_ERROR, RATE_SCORER_METRICS
from skfair.model_selection import fairest_within

CV = KFold(3, shuffle=True, random_state=0)


def data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    x = rng.normal(size=n) + 0.8 * g
    y = (x + rng.normal(scale=0.7, size=n) > 0.4).astype(int)
    return pd.DataFrame({"x": x, "g": g}), y


def by_hand(model, X, y, metric, **kwargs):
    out = []
    for train, test in CV.split(X):
        fitted = model.fit(X.iloc[train], y[train])
        pred = fitted.predict(X.iloc[test])
        groups = X["g"].to_numpy()[test]
        out.append(metric(y[test], pred, sensitive_features=groups, **kwargs))
    return np.array(out)


@pytest.mark.parametrize("name", sorted(RATE_SCORER_METRICS))
def test_scorer_equals_signed_metric_in_cross_val_score(name):
    X, y = data()
    metric = RATE_SCORER_METRICS[name]
    expected = by_hand(LogisticRegression(), X, y, metric)
    scorer = make_rate_scorer(name, sensitive="g")
    got = cross_val_score(LogisticRegression(), X, y, cv=CV, scoring=scorer)
    sign = 1 if name.endswith("_ratio") else -1
    assert scorer.greater_is_better is (sign == 1)
    np.testing.assert_allclose(got, sign * expected, rtol=0, atol=1e-15)
    assert np.all(np.abs(expected - (1.0 if sign == 1 else 0.0)) > 1e-3)  # unfair


def test_routed_sensitive_features_and_function_argument():
    X, y = data()
    expected = by_hand(LogisticRegression(), X, y, equalized_odds_ratio, agg="mean")
    scorer = make_rate_scorer(equalized_odds_ratio, agg="mean")
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_val_score(
            LogisticRegression(),
            X,
            y,
            cv=CV,
            scoring=scorer,
            params={"sensitive_features": X["g"]},
        )
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="no sensitive attribute"):
        scorer(LogisticRegression().fit(X, y), X, y)


def test_string_labels_and_pos_label():
    X, y = data(300)
    labels = np.where(y == 1, "yes", "no")
    model = LogisticRegression().fit(X, labels)
    pred = model.predict(X)
    values = []
    for pos_label, truth in (("yes", y), ("no", 1 - y)):
        scorer = make_rate_scorer(
            "true_positive_rate_difference", sensitive="g", pos_label=pos_label
        )
        expected = true_positive_rate_difference(
            truth, (pred == pos_label).astype(int), sensitive_features=X["g"]
        )
        assert scorer(model, X, labels) == -expected
        values.append(expected)
    assert values[0] != pytest.approx(values[1])  # pos_label matters
    default = make_rate_scorer("true_positive_rate_difference", sensitive="g")
    assert default(model, X, labels) == -values[0]  # "yes" > "no"


def test_grid_search_refit_fairest_within():
    X, y = data(900)
    scoring = {
        "accuracy": "accuracy",
        "eod": make_rate_scorer("equalized_odds_difference", sensitive="g"),
    }
    grid = {"C": [1e-4, 1e-2, 1.0]}
    search = GridSearchCV(
        LogisticRegression(),
        grid,
        cv=CV,
        scoring=scoring,
        refit=fairest_within(fairness="eod", performance="accuracy", tolerance=0.8),
    ).fit(X, y)
    results = search.cv_results_
    for k, params in enumerate(results["params"]):
        expected = by_hand(
            LogisticRegression(**params), X, y, equalized_odds_difference
        )
        assert results["mean_test_eod"][k] == pytest.approx(-expected.mean(), abs=1e-12)
    best = results["mean_test_accuracy"].max()
    keep = results["mean_test_accuracy"] >= 0.8 * best
    fairest = np.flatnonzero(keep)[np.argmax(results["mean_test_eod"][keep])]
    assert search.best_index_ == fairest
    assert len(set(np.round(results["mean_test_eod"], 9))) > 1  # a real choice


def test_pickle_repr_and_sample_weight_routing():
    scorer = make_rate_scorer("false_positive_rate_ratio", sensitive=["g"])
    assert (
        repr(scorer)
        == "make_rate_scorer(metric='false_positive_rate_ratio', sensitive=['g'])"
    )
    assert repr(pickle.loads(pickle.dumps(scorer))) == repr(scorer)
    X, y = data(400)
    w = np.random.default_rng(3).uniform(0.2, 3.0, len(y))
    model = LogisticRegression().fit(X, y)
    pred = model.predict(X)
    expected = false_positive_rate_ratio(
        y, pred, sensitive_features=X["g"], sample_weight=w
    )
    assert expected != pytest.approx(
        false_positive_rate_ratio(y, pred, sensitive_features=X["g"])
    )
    assert scorer(model, X, y, sample_weight=w) == pytest.approx(expected, abs=1e-15)
    assert scorer._accept_sample_weight()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metric": "mcdp"}, "metric must be one of"),
        ({"metric": np.mean}, "metric must be one of"),
        ({"metric": "demographic_parity_ratio", "agg": "mean"}, "agg applies"),
        ({"metric": "equalized_odds_ratio", "agg": "median"}, "agg must be"),
        ({"metric": "demographic_parity_difference", "method": "x"}, "method must"),
    ],
)
def test_bad_options_fail_at_construction(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_rate_scorer(**kwargs)


def test_demographic_parity_difference_matches_on_array_columns():
    X, y = data(300)
    Xa = X.to_numpy()
    model = LogisticRegression().fit(Xa, y)
    expected = demographic_parity_difference(
        y, model.predict(Xa), sensitive_features=Xa[:, 1]
    )
    scorer = make_rate_scorer("demographic_parity_difference", sensitive=1)
    assert scorer(model, Xa, y) == -expected


@pytest.mark.parametrize(
    "name", ["demographic_parity_difference", "multiclass_selection_rate_difference"]
)
def test_a_regressor_is_refused(name):
    # a regressor fitted to 0/1 labels (a linear probability model) predicts
    # reals: they were cast to int8 against y == None and gave a number
    X, y = data()
    model = LinearRegression().fit(X, y)
    message = RATE_REGRESSOR_ERROR.format(estimator="LinearRegression")
    with pytest.raises(TypeError, match=re.escape(message)):
        make_rate_scorer(name, sensitive="g")(model, X, y)
