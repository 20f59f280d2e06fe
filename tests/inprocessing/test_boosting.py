import pickle

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skfair.inprocessing import FairLGBMClassifier
from skfair.metrics import mcdp

lightgbm = pytest.importorskip("lightgbm")


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    X = np.column_stack([group, rng.normal(group, 1.0, n), rng.normal(size=n)])
    y = (X[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    return X, y, group


def test_no_penalty_is_lightgbm_binary_objective():
    # the custom objective, with boost-from-average start, reproduces
    # LightGBM's own binary log-loss to rounding
    X, y, _ = _data()
    ours = FairLGBMClassifier(
        sensitive=0, penalty=None, n_estimators=30, random_state=0
    ).fit(X, y)
    ref = lightgbm.LGBMClassifier(
        n_estimators=30, verbose=-1, n_jobs=1, random_state=0
    ).fit(X[:, 1:], y)
    np.testing.assert_allclose(
        ours.predict_proba(X)[:, 1], ref.predict_proba(X[:, 1:])[:, 1], atol=1e-12
    )
    assert ours.penalty_curve_.shape == (0,)


def test_zero_weight_is_no_penalty():
    X, y, _ = _data()
    a = FairLGBMClassifier(
        sensitive=0, penalty=None, n_estimators=20, random_state=0
    ).fit(X, y)
    b = FairLGBMClassifier(
        sensitive=0, fairness_weight=0.0, n_estimators=20, random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("penalty", ["mcdp", "dp", "abcc"])
def test_penalty_lowers_training_mcdp(penalty):
    X, y, group = _data()
    plain = FairLGBMClassifier(
        sensitive=0, penalty=None, n_estimators=40, random_state=0
    ).fit(X, y)
    fair = FairLGBMClassifier(
        sensitive=0,
        penalty=penalty,
        fairness_weight=2.0,
        n_estimators=40,
        random_state=0,
    ).fit(X, y)
    before = mcdp(y, plain.predict_proba(X)[:, 1], sensitive_features=group)
    after = mcdp(y, fair.predict_proba(X)[:, 1], sensitive_features=group)
    assert before > 0.4
    assert after < 0.5 * before
    assert fair.penalty_curve_.shape == (40,)


def test_pickle_and_consistency():
    X, y, _ = _data()
    model = FairLGBMClassifier(sensitive=0, n_estimators=10, random_state=0)
    model.fit(X, np.where(y, "pos", "neg"))
    restored = pickle.loads(pickle.dumps(model))
    z = model.decision_function(X)
    np.testing.assert_array_equal(restored.decision_function(X), z)
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], 1 / (1 + np.exp(-z)))
    assert set(model.predict(X)) <= {"neg", "pos"}


@pytest.mark.parametrize(
    ("param", "value"), [("fairness_weight", -1.0), ("temperature", 0.0)]
)
def test_bad_parameters(param, value):
    X, y, _ = _data(n=100)
    with pytest.raises(InvalidParameterError, match=param):
        FairLGBMClassifier(sensitive=0, **{param: value}).fit(X, y)


def test_a_decision_of_exactly_zero_predicts_the_first_class():
    # balanced labels and leaves too small to split: every raw score is 0.
    # predict agrees with the sign of the decision and with predict_proba's
    # argmax (scikit-learn's rule), as it did not when it thresholded >= 0.5
    X = np.array([[0, 1.0], [1, 2.0], [0, 3.0], [1, 4.0]] * 3)
    y = np.array(["a", "b", "b", "a"] * 3)
    clf = FairLGBMClassifier(sensitive=0, n_estimators=3, min_group_size=1)
    clf.fit(X, y)
    np.testing.assert_array_equal(clf.decision_function(X), 0.0)
    np.testing.assert_array_equal(clf.predict_proba(X), 0.5)
    assert clf.predict(X).tolist() == ["a"] * 12
