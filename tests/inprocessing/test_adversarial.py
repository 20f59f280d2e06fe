"""AdversarialDebiasingClassifier: gradients, the update, training, errors."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.utils._param_validation import InvalidParameterError

from skfair.inprocessing import AdversarialDebiasingClassifier, FairMLPClassifier
from skfair.inprocessing._adversarial import adversary_loss_grad, project_out
from skfair.inprocessing._mlp import NEVER_APPLIED_WARNING
from skfair.metrics import delta_dp, make_delta_dp_scorer
from skfair.model_selection import fairest_within
from skfair.utils._groups import TOO_FEW_GROUPS_ERROR

H = 1e-6


def _data(n=600, seed=0, n_groups=2):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n)
    x1 = rng.normal(group, 1.0)
    x2 = rng.normal(size=n)
    y = (x1 + 0.5 * x2 + rng.normal(scale=0.7, size=n) > 0.5).astype(int)
    return np.column_stack([group, x1, x2]), y, group


def _fast(**params):
    defaults = {
        "sensitive": 0,
        "hidden_layer_sizes": (16,),
        "batch_size": 128,
        "max_iter": 150,
        "learning_rate_init": 1e-2,
        "projection": False,
        "random_state": 0,
    }
    return AdversarialDebiasingClassifier(**{**defaults, **params})


@pytest.mark.parametrize("constraints", ["demographic_parity", "equalized_odds"])
@pytest.mark.parametrize("n_groups", [2, 3])
def test_adversary_gradients_match_finite_differences(constraints, n_groups):
    rng = np.random.default_rng(0)
    z, y = rng.normal(size=50), (rng.random(50) < 0.5).astype(float)
    codes = rng.integers(0, n_groups, 50)
    k = 1 if constraints == "demographic_parity" else 3
    params = [
        rng.normal(size=(k, n_groups)),
        rng.normal(size=n_groups),
        np.array([0.7]),
    ]

    def loss(z, params):
        return adversary_loss_grad(z, y, codes, params, constraints)[0]

    _, grad_z, grads = adversary_loss_grad(z, y, codes, params, constraints)
    eye = np.eye(z.size)
    fd = [(loss(z + H * e, params) - loss(z - H * e, params)) / (2 * H) for e in eye]
    np.testing.assert_allclose(grad_z, fd, atol=1e-8)
    for param, grad in zip(params, grads):
        for idx in np.ndindex(param.shape):
            old = param[idx]
            param[idx] = old + H
            up = loss(z, params)
            param[idx] = old - H
            down = loss(z, params)
            param[idx] = old
            assert grad[idx] == pytest.approx((up - down) / (2 * H), abs=1e-8)


def test_project_out_is_zhangs_update():
    rng = np.random.default_rng(1)
    g = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    h = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    flat_g = np.concatenate([a.ravel() for a in g])
    flat_h = np.concatenate([a.ravel() for a in h])
    out = project_out(g, h, 0.5)
    flat = np.concatenate([a.ravel() for a in out])
    expected = flat_g - (flat_g @ flat_h) / (flat_h @ flat_h) * flat_h - 0.5 * flat_h
    np.testing.assert_allclose(flat, expected)
    # the projected log-loss part is orthogonal to the adversary's gradient
    orthogonal = np.concatenate([a.ravel() for a in project_out(g, h, 0.0)])
    assert orthogonal @ flat_h == pytest.approx(0.0, abs=1e-12)
    plain = np.concatenate([a.ravel() for a in project_out(g, h, 0.5, False)])
    np.testing.assert_allclose(plain, flat_g - 0.5 * flat_h)
    assert [a.shape for a in out] == [(3, 2), (2,)]


def test_zero_weight_is_the_plain_mlp():
    X, y, _ = _data()
    common = {
        k: v
        for k, v in _fast().get_params().items()
        if k
        in (
            "sensitive",
            "hidden_layer_sizes",
            "batch_size",
            "max_iter",
            "learning_rate_init",
            "random_state",
        )
    }
    erm = FairMLPClassifier(penalty=None, **common).fit(X, y)
    for projection in (True, False):
        zero = _fast(adversary_weight=0.0, projection=projection).fit(X, y)
        for a, b in zip(erm.coefs_ + erm.intercepts_, zero.coefs_ + zero.intercepts_):
            np.testing.assert_array_equal(a, b)
        # the adversary is still fitted: it reads the groups from ERM's output
        assert zero.adversary_loss_curve_[-1] < np.log(2) - 0.02


@pytest.mark.parametrize("projection", [True, False])
def test_predictor_steps_against_the_adversary_before_its_last_update(
    projection, monkeypatch
):
    # The adversary starts at zero weights, where its gradient with respect to
    # the predictor's output is 0. With one adversary step per predictor step,
    # the predictor's first step is taken against that starting point (the
    # updates are simultaneous); with two, against the adversary after one.
    seen = []
    against = AdversarialDebiasingClassifier._against

    def spy(self, grads, adversary_grads):
        seen.append(max(float(np.abs(h).max()) for h in adversary_grads))
        return against(self, grads, adversary_grads)

    monkeypatch.setattr(AdversarialDebiasingClassifier, "_against", spy)
    X, y, _ = _data()
    params = {"adversary_weight": 10.0, "projection": projection, "max_iter": 1}
    _fast(adversary_steps=1, **params).fit(X, y)
    _fast(adversary_steps=2, **params).fit(X, y)
    assert seen[0] == 0.0
    assert seen[1] > 0.0


@pytest.mark.parametrize(
    ("params", "factor"),
    [
        ({"projection": False, "adversary_weight": 10.0}, 0.5),
        ({"projection": True, "adversary_weight": 0.3, "adversary_steps": 5}, 0.6),
        ({"constraints": "equalized_odds", "adversary_weight": 10.0}, 0.6),
    ],
    ids=["plain", "projection", "equalized_odds"],
)
def test_adversary_lowers_the_disparity(params, factor):
    X, y, group = _data()
    erm = _fast(adversary_weight=0.0).fit(X, y)
    fair = _fast(max_iter=300, **params).fit(X, y)
    before = delta_dp(y, erm.predict_proba(X)[:, 1], sensitive_features=group)
    after = delta_dp(y, fair.predict_proba(X)[:, 1], sensitive_features=group)
    assert after < factor * before
    assert fair.adversary_coef_.shape == (
        3 if params.get("constraints") == "equalized_odds" else 1,
        2,
    )


def test_several_groups_softmax_adversary():
    X, y, group = _data(n=900, n_groups=3)
    erm = _fast(adversary_weight=0.0).fit(X, y)
    fair = _fast(adversary_weight=10.0, max_iter=300).fit(X, y)
    assert fair.adversary_coef_.shape == (1, 3)
    assert fair.adversary_intercept_.shape == (3,)
    before = delta_dp(y, erm.predict_proba(X)[:, 1], sensitive_features=group)
    after = delta_dp(y, fair.predict_proba(X)[:, 1], sensitive_features=group)
    assert after < 0.7 * before


def test_deterministic_pickle_and_predictions():
    X, y, _ = _data()
    a = _fast(adversary_weight=1.0).fit(X, y)
    b = clone(a).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.predict_proba(X), a.predict_proba(X))
    z = a.decision_function(X)
    np.testing.assert_array_equal(a.predict(X), (z >= 0).astype(int))
    assert a.n_iter_ == 150 and a.loss_curve_.shape == (150,)
    assert a.adversary_loss_curve_.shape == (150,)
    assert isinstance(a.adversary_sharpness_, float)


def test_dataframe_with_string_groups():
    X, y, group = _data()
    frame = pd.DataFrame(
        {"x1": X[:, 1], "sex": np.where(group, "m", "f"), "x2": X[:, 2]}
    )
    model = _fast(sensitive="sex", max_iter=20).fit(frame, np.where(y, "yes", "no"))
    assert list(model.classes_) == ["no", "yes"]
    assert model.coefs_[0].shape == (2, 16)


def test_batches_of_one_group_and_min_group_size():
    X, y, _ = _data(n=200)
    X[:, 0] = np.r_[np.zeros(198), np.ones(2)]
    with pytest.warns(UserWarning) as record:
        model = _fast(batch_size=1, max_iter=5, min_group_size=1).fit(X, y)
    assert [str(w.message) for w in record] == [
        NEVER_APPLIED_WARNING.format(n_steps=5, n_groups=2, smallest=2, batch_size=1)
    ]
    assert np.isnan(model.adversary_loss_curve_).all()
    # a group left out by min_group_size is neither seen nor predicted
    X, y, _ = _data(n=300)
    X[:5, 0] = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _fast(min_group_size=10, max_iter=10).fit(X, y)
    assert model.adversary_coef_.shape == (1, 2)


def test_errors():
    X, y, _ = _data(n=100)
    ones = X.copy()
    ones[:, 0] = 1
    with pytest.raises(ValueError) as info:
        _fast().fit(ones, y)
    assert str(info.value) == TOO_FEW_GROUPS_ERROR.format(
        name="x0", n_groups=1, labels=[1.0], n_samples=100
    )
    for param, value in [
        ("adversary_weight", -1.0),
        ("constraints", "parity"),
        ("adversary_steps", 0),
        ("adversary_learning_rate", 0.0),
        ("projection", "yes"),
    ]:
        with pytest.raises(InvalidParameterError, match=param):
            _fast(**{param: value}).fit(X, y)
    X[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fast().fit(X, y)


def test_grid_search_with_fairest_within():
    X, y, _ = _data(n=400)
    search = GridSearchCV(
        _fast(max_iter=150),
        {"adversary_weight": [0.0, 10.0, 30.0]},
        scoring={"ap": "average_precision", "dp": make_delta_dp_scorer(sensitive=0)},
        refit=fairest_within(fairness="dp", performance="ap", tolerance=0.8),
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(X, y)
    results = search.cv_results_
    assert search.best_index_ != 0
    assert results["mean_test_dp"][search.best_index_] > results["mean_test_dp"][0]
