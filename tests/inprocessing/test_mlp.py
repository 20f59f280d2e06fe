import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.utils._param_validation import InvalidParameterError

from skfair.inprocessing import FairMLPClassifier
from skfair.metrics import make_mcdp_scorer, mcdp
from skfair.model_selection import fairest_within
from skfair.utils._estimator import (
    NO_FEATURES_ERROR,
    NON_NUMERIC_FEATURE_ERROR,
    NON_NUMERIC_SENSITIVE_HINT,
)
from skfair.utils._groups import TOO_FEW_GROUPS_ERROR


def _data(n=600, seed=0):
    """Group 1 has higher scores: ERM is unfair on it."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    x1 = rng.normal(group, 1.0)
    x2 = rng.normal(size=n)
    y = (x1 + 0.5 * x2 + rng.normal(scale=0.7, size=n) > 0.5).astype(int)
    return np.column_stack([group, x1, x2]), y, group


def _fast(**params):
    defaults = {
        "sensitive": 0,
        "hidden_layer_sizes": (16,),
        "batch_size": 128,
        "max_iter": 120,
        "learning_rate_init": 1e-2,
        "random_state": 0,
    }
    return FairMLPClassifier(**{**defaults, **params})


def test_zero_weight_is_erm():
    X, y, _ = _data()
    erm = _fast(penalty=None).fit(X, y)
    for penalty in ("mcdp", "dp", "abcc"):
        zero = _fast(penalty=penalty, fairness_weight=0.0).fit(X, y)
        for a, b in zip(erm.coefs_ + erm.intercepts_, zero.coefs_ + zero.intercepts_):
            np.testing.assert_array_equal(a, b)
        assert np.all(zero.penalty_curve_ == 0)


@pytest.mark.parametrize("penalty", ["mcdp", "dp", "abcc"])
def test_penalty_lowers_training_mcdp(penalty):
    X, y, group = _data()
    erm = _fast(penalty=None).fit(X, y)
    fair = _fast(penalty=penalty, fairness_weight=1.0).fit(X, y)
    before = mcdp(y, erm.predict_proba(X)[:, 1], sensitive_features=group)
    after = mcdp(y, fair.predict_proba(X)[:, 1], sensitive_features=group)
    assert before > 0.3
    assert after < 0.6 * before
    assert fair.penalty_curve_.shape == (120,)


def test_mcdp_epsilon_penalty_trains():
    X, y, group = _data()
    erm = _fast(penalty=None).fit(X, y)
    fair = _fast(fairness_weight=1.0, epsilon=0.05).fit(X, y)
    before = mcdp(y, erm.predict_proba(X)[:, 1], sensitive_features=group)
    after = mcdp(y, fair.predict_proba(X)[:, 1], sensitive_features=group)
    assert after < before


def test_deterministic_and_predictions_consistent():
    X, y, _ = _data()
    a = _fast().fit(X, y)
    b = clone(a).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    proba = a.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    z = a.decision_function(X)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-z)))
    np.testing.assert_array_equal(a.predict(X), (z >= 0).astype(int))
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.decision_function(X), z)
    assert a.n_iter_ == 120 and a.loss_curve_.shape == (120,)
    assert a.n_features_in_ == 3


def test_accurate_on_easy_data():
    # stands in for check_classifiers_train, which the common checks cannot
    # run with a continuous column as the sensitive attribute
    X, y, _ = _data()
    model = _fast(penalty=None).fit(X, y)
    assert (model.predict(X) == y).mean() > 0.83


def test_dataframe_with_string_groups_and_labels():
    X, y, group = _data()
    frame = pd.DataFrame(
        {"x1": X[:, 1], "sex": np.where(group, "m", "f"), "x2": X[:, 2]}
    )
    labels = np.where(y, "yes", "no")
    model = FairMLPClassifier(
        sensitive="sex", hidden_layer_sizes=8, max_iter=20, random_state=0
    ).fit(frame, labels)
    assert list(model.classes_) == ["no", "yes"]
    assert list(model.feature_names_in_) == ["x1", "sex", "x2"]
    assert model.coefs_[0].shape == (2, 8)  # sex is not a model input
    assert set(model.predict(frame)) <= {"no", "yes"}
    # the string column is named, and why it is a model input at all
    message = NON_NUMERIC_FEATURE_ERROR.format(
        estimator="FairMLPClassifier",
        columns=["sex"],
        hint=NON_NUMERIC_SENSITIVE_HINT,
    )
    with pytest.raises(ValueError) as caught:
        clone(model).set_params(sensitive_as_feature=True).fit(frame, labels)
    assert str(caught.value) == message


def test_sensitive_as_feature_uses_the_column():
    X, y, _ = _data()
    model = _fast(sensitive_as_feature=True).fit(X, y)
    assert model.coefs_[0].shape[0] == 3


def test_sample_weight_of_ones_is_unweighted():
    X, y, _ = _data()
    a = _fast().fit(X, y)
    b = _fast().fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    c = _fast().fit(X, y, sample_weight=np.where(y == 1, 5.0, 1.0))
    assert c.predict_proba(X)[:, 1].mean() > a.predict_proba(X)[:, 1].mean()


def test_a_continuous_target_is_refused():
    # three classes are served (tests/inprocessing/test_multiclass.py); a
    # continuous target is no classification
    X, y, _ = _data()
    with pytest.raises(ValueError, match="continuous"):
        _fast().fit(X, y + X[:, 2])


def test_single_group():
    X, y, _ = _data(n=100)
    X[:, 0] = 1
    with pytest.raises(ValueError) as info:
        _fast().fit(X, y)
    assert str(info.value) == TOO_FEW_GROUPS_ERROR.format(
        name="x0", n_groups=1, labels=[1.0], n_samples=100
    )


def test_no_feature_left():
    X, y, _ = _data(n=100)
    with pytest.raises(ValueError) as info:
        _fast().fit(X[:, :1], y)
    assert str(info.value) == NO_FEATURES_ERROR.format(
        estimator="FairMLPClassifier", n_features=1, names=["x0"]
    )


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("fairness_weight", -0.1),
        ("temperature", 0.0),
        ("temperature", -1.0),
        ("epsilon", -0.01),
        ("penalty", "ks"),
        ("max_iter", 0),
    ],
)
def test_bad_parameters(param, value):
    X, y, _ = _data(n=100)
    with pytest.raises(InvalidParameterError, match=param):
        _fast(**{param: value}).fit(X, y)


def test_nan_in_features():
    X, y, _ = _data(n=100)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fast().fit(X, y)


def test_grid_search_with_fairest_within():
    X, y, _ = _data(n=400)
    rule = fairest_within(fairness="mcdp", performance="ap", tolerance=0.9)
    search = GridSearchCV(
        _fast(max_iter=60),
        {"fairness_weight": [0.0, 0.5, 2.0]},
        scoring={"ap": "average_precision", "mcdp": make_mcdp_scorer(sensitive=0)},
        refit=rule,
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(X, y)
    results = search.cv_results_
    ok = results["mean_test_ap"] >= 0.9 * results["mean_test_ap"].max()
    expected = np.flatnonzero(ok)[np.argmax(results["mean_test_mcdp"][ok])]
    assert search.best_index_ == expected
    # the penalty made the selected model fairer than ERM
    assert results["mean_test_mcdp"][expected] > results["mean_test_mcdp"][0]


def test_backward_matches_finite_differences(monkeypatch):
    # the whole network's gradient (log-loss + λ·DiffABCC) in float64
    from scipy.special import expit

    from skfair.inprocessing import _mlp, fairness_penalty

    monkeypatch.setattr(_mlp, "_DTYPE", np.float64)
    X, y, group = _data(n=80)
    model = _fast(
        hidden_layer_sizes=(5, 4), penalty="abcc", fairness_weight=0.7, max_iter=3
    ).fit(X, y)
    features = X[:, 1:]

    def objective():
        z, _ = model._forward(features)
        loss = np.mean(np.logaddexp(0.0, z) - y * z)
        return loss + 0.7 * fairness_penalty(expit(z), group, penalty="abcc")[0]

    z, activations = model._forward(features)
    p = expit(z)
    grad_z = (p - y) / len(y) + model._penalty_grad(p, group)[1] * p * (1 - p)
    grads = model._backward(activations, grad_z)
    rng = np.random.default_rng(0)
    for param, grad in zip(model.coefs_ + model.intercepts_, grads):
        for flat in rng.choice(param.size, min(4, param.size), replace=False):
            idx = np.unravel_index(flat, param.shape)
            old = param[idx]
            param[idx] = old + 1e-6
            up = objective()
            param[idx] = old - 1e-6
            down = objective()
            param[idx] = old
            assert grad[idx] == pytest.approx((up - down) / 2e-6, abs=1e-7)
