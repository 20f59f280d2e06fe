"""``fairness_target``: the weight search of the MLP estimators."""

import re
import warnings

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skfair.inprocessing import (
    FairMLPClassifier,
    FairMLPRegressor,
    FairnessTargetWarning,
)
from skfair.inprocessing._mlp import AUTO_WEIGHT
from skfair.inprocessing._target import (
    BRACKET_RATIO,
    TARGET_WITHOUT_PENALTY_ERROR,
    VALIDATION_GROUPS_ERROR,
    penalised_metric,
    search_weight,
    validation_split,
)
from skfair.metrics import abcc, delta_dp, mcdp

# -- the search, on functions whose answer is known ----------------------------


def _decreasing(weight):
    """A metric that falls with the weight: 1 / (1 + weight)."""
    return 1.0 / (1.0 + weight), {"weight": weight}


@pytest.mark.parametrize("start", [0.01, 0.2, 1.0, 30.0])
@pytest.mark.parametrize("target", [0.05, 0.3, 0.7])
def test_search_brackets_the_smallest_weight_that_meets_the_target(start, target):
    weight, metric, state, tried, reached = search_weight(
        _decreasing, target, start, budget=40
    )
    root = 1.0 / target - 1.0  # where 1 / (1 + w) = target
    assert reached
    assert metric <= target
    assert metric == _decreasing(weight)[0]
    assert state == {"weight": weight}
    # the smallest weight meeting the target, to within the bracket's ratio
    assert root <= weight * (1 + 1e-12)
    assert weight <= root * BRACKET_RATIO
    # it is the smallest weight tried that met the target
    met = [w for w, m in tried if m <= target]
    assert weight == min(met)
    assert len(tried) < 40


def test_search_stays_within_its_budget_and_reports_the_closest():
    weight, metric, _, tried, reached = search_weight(
        _decreasing, 0.0, start=1.0, budget=5
    )
    assert not reached
    assert len(tried) == 5
    assert [w for w, _ in tried] == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert metric == min(m for _, m in tried) == _decreasing(16.0)[0]
    assert weight == 16.0


def test_search_on_a_noisy_metric_keeps_its_bracket():
    # not monotone: every answer must still meet the target and be a weight tried
    rng = np.random.default_rng(0)
    noise = {}

    def noisy(weight):
        value = noise.setdefault(weight, rng.normal(0, 0.02))
        return 1.0 / (1.0 + weight) + value, None

    weight, metric, _, tried, reached = search_weight(noisy, 0.4, 0.2, budget=12)
    assert reached
    assert metric <= 0.4
    assert (weight, metric) in tried


def test_validation_split_holds_out_each_stratum():
    rng = np.random.default_rng(0)
    strata = np.repeat([0, 1, 2, 3], [100, 37, 5, 1])
    train, val = validation_split(strata, 0.2, rng)
    assert np.intersect1d(train, val).size == 0
    np.testing.assert_array_equal(np.union1d(train, val), np.arange(strata.size))
    counts = np.bincount(strata[val], minlength=4)
    np.testing.assert_array_equal(counts, [20, 7, 1, 0])  # round(0.2 * size)
    assert set(strata[train]) == {0, 1, 2, 3}  # every stratum still trains


def test_penalised_metric_is_the_metric_of_the_penalty():
    rng = np.random.default_rng(1)
    scores = rng.uniform(size=200)
    codes = rng.integers(-1, 3, 200)  # -1: left out of the penalty
    kept = codes >= 0
    groups = codes[kept]
    s = scores[kept]
    opts = {"sensitive_features": groups, "min_group_size": 1}
    unit = (0.0, 1.0)
    assert penalised_metric(scores, codes, "mcdp", 0.0, unit) == mcdp(None, s, **opts)
    assert penalised_metric(scores, codes, "mcdp", 0.05, unit) == mcdp(
        None, s, epsilon=0.05, **opts
    )
    assert penalised_metric(scores, codes, "abcc", 0.0, unit) == abcc(None, s, **opts)
    assert penalised_metric(scores, codes, "dp", 0.0, unit) == delta_dp(None, s, **opts)
    # the worst pair's mean gap, by brute force
    means = [s[groups == g].mean() for g in range(3)]
    assert np.isclose(
        penalised_metric(scores, codes, "dp", 0.0, unit), max(means) - min(means)
    )


# -- the estimators -------------------------------------------------------------


def _shifted(n, seed, n_classes=2):
    """A feature that carries the group strongly: ERM is far from parity."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    x1 = rng.normal(1.5 * group, 1.0)
    x2 = rng.normal(size=n)
    t = x1 + x2 + rng.normal(scale=0.7, size=n)
    y = (t > 0.8).astype(int) if n_classes == 2 else np.digitize(t, [0.0, 1.5])
    return np.column_stack([group, x1, x2]), y, group


def _classifier(**params):
    defaults = {
        "sensitive": 0,
        "hidden_layer_sizes": (16,),
        "batch_size": 256,
        "max_iter": 150,
        "learning_rate_init": 1e-2,
        "random_state": 0,
    }
    return FairMLPClassifier(**{**defaults, **params})


def _regressor(**params):
    defaults = {
        "sensitive": 0,
        "hidden_layer_sizes": (16,),
        "batch_size": 256,
        "max_iter": 300,
        "lr_step_size": 200,
        "learning_rate_init": 1e-2,
        "random_state": 0,
    }
    return FairMLPRegressor(**{**defaults, **params})


def _check_search_record(model, target):
    weights = model.fairness_search_["weight"]
    values = model.fairness_search_["fairness"]
    assert weights.shape == values.shape
    assert 1 <= weights.size <= model.max_fairness_search
    # the smallest weight tried whose validation metric met the target
    met = values <= target
    assert met.any()
    assert model.fairness_weight_ == weights[met].min()
    assert model.fairness_achieved_ == values[weights == model.fairness_weight_][0]
    assert model.fairness_achieved_ <= target


#: Held-out metric may exceed the validation one by its sampling error; with
#: 2,000 held-out samples per group the KS statistic's is about 0.04.
TOLERANCE = 0.06


def test_classifier_reaches_the_target_on_held_out_data():
    X, y, _group = _shifted(4000, 0)
    X_new, _, group_new = _shifted(4000, 1)
    erm = _classifier(penalty=None).fit(X, y)
    before = mcdp(None, erm.predict_proba(X_new)[:, 1], sensitive_features=group_new)
    assert before > 0.4  # a strong shift
    target = 0.1
    model = _classifier(fairness_target=target).fit(X, y)
    _check_search_record(model, target)
    after = mcdp(None, model.predict_proba(X_new)[:, 1], sensitive_features=group_new)
    assert after <= target + TOLERANCE


def test_multiclass_classifier_reaches_the_target():
    X, y, _group = _shifted(4000, 0, n_classes=3)
    X_new, _, group_new = _shifted(4000, 1, n_classes=3)
    target = 0.15
    model = _classifier(fairness_target=target).fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2]
    _check_search_record(model, target)
    assert model.fairness_search_["weight"][0] == AUTO_WEIGHT[3]
    after = mcdp(None, model.predict_proba(X_new), sensitive_features=group_new)
    assert after <= target + TOLERANCE


def test_regressor_reaches_the_target():
    X, _, _group = _shifted(3000, 0)
    X_new, _, group_new = _shifted(3000, 1)
    rng = np.random.default_rng(2)
    y = 100 + 30 * X[:, 1] + 10 * X[:, 2] + rng.normal(0, 5, X.shape[0])
    plain = _regressor(penalty=None).fit(X, y)
    before = mcdp(None, plain.predict(X_new), sensitive_features=group_new)
    assert before > 0.4
    target = 0.15
    model = _regressor(fairness_target=target).fit(X, y)
    _check_search_record(model, target)
    after = mcdp(None, model.predict(X_new), sensitive_features=group_new)
    assert after <= target + TOLERANCE


def test_unreachable_target_warns_with_the_closest_value():
    X, y, _ = _shifted(1000, 0)
    model = _classifier(fairness_target=0.0, max_fairness_search=3, max_iter=60)
    with pytest.warns(FairnessTargetWarning) as caught:
        model.fit(X, y)
    values = model.fairness_search_["fairness"]
    assert values.size == 3
    assert model.fairness_achieved_ == values.min() > 0.0
    assert model.fairness_weight_ == model.fairness_search_["weight"][values.argmin()]
    assert {w.filename for w in caught} == {__file__}  # points at the fit call
    message = str(caught[0].message)
    assert "max_fairness_search=3" in message
    assert (
        f"is {values.min():.4g}, at fairness_weight={model.fairness_weight_:.4g}"
        in (message)
    )


def test_search_is_reproducible_under_random_state():
    X, y, _ = _shifted(1000, 0)
    params = {"fairness_target": 0.15, "max_iter": 80, "max_fairness_search": 3}
    with warnings.catch_warnings():  # reached or not: the same both times
        warnings.simplefilter("ignore", FairnessTargetWarning)
        a = _classifier(**params).fit(X, y)
        b = _classifier(**params).fit(X, y)
        c = _classifier(**params, random_state=1).fit(X, y)
    np.testing.assert_array_equal(
        a.fairness_search_["weight"], b.fairness_search_["weight"]
    )
    assert a.fairness_weight_ == b.fairness_weight_
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))


def test_without_target_the_weight_is_recorded_and_training_unchanged():
    X, y, _ = _shifted(600, 0)
    auto = _classifier().fit(X, y)
    explicit = _classifier(fairness_weight=AUTO_WEIGHT[2]).fit(X, y)
    assert auto.fairness_weight_ == explicit.fairness_weight_ == 0.2
    np.testing.assert_array_equal(auto.predict_proba(X), explicit.predict_proba(X))
    assert not hasattr(auto, "fairness_achieved_")
    assert not hasattr(auto, "fairness_search_")
    X3, y3, _ = _shifted(600, 0, n_classes=3)
    assert _classifier(max_iter=10).fit(X3, y3).fairness_weight_ == 0.8
    assert _regressor(max_iter=10).fit(X, X[:, 1]).fairness_weight_ == 0.5


def test_target_without_penalty_is_an_error():
    X, y, _ = _shifted(300, 0)
    with pytest.raises(ValueError) as info:
        _classifier(penalty=None, fairness_target=0.1).fit(X, y)
    assert str(info.value) == TARGET_WITHOUT_PENALTY_ERROR.format(target=0.1)


def test_validation_split_without_two_groups_is_an_error():
    X, y, _ = _shifted(300, 0)
    X[:, 0] = 0
    X[:2, 0] = 1  # a group of two: round(0.2 * 2) = 0 held out
    with pytest.raises(ValueError) as info:
        _classifier(fairness_target=0.1, min_group_size=1).fit(X, y)
    assert str(info.value) == VALIDATION_GROUPS_ERROR.format(fraction=0.2, n_groups=1)


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("fairness_target", -0.1),
        ("validation_fraction", 0.0),
        ("validation_fraction", 1.0),
        ("max_fairness_search", 0),
        ("fairness_weight", "large"),
    ],
)
@pytest.mark.parametrize("make", [_classifier, _regressor])
def test_bad_target_parameters(make, param, value):
    if make is _regressor and param == "fairness_weight":
        value = "auto"  # the regressor's weight is a number
    X, y, _ = _shifted(100, 0)
    with pytest.raises(InvalidParameterError, match=re.escape(param)):
        make(**{param: value}).fit(X, y)


def test_model_penalties_search_their_mean_gap():
    X, y, _ = _shifted(1500, 0)
    model = _classifier(penalty="mixup", fairness_target=0.1, max_iter=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairnessTargetWarning)
        model.fit(X, y)
    assert model.fairness_search_["weight"][0] == AUTO_WEIGHT[2]
    assert np.all(model.fairness_search_["fairness"] >= 0)
