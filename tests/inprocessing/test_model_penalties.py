"""Fair Mixup and DRAlign: gradients against finite differences, and training."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.utils._param_validation import InvalidParameterError

from skfair.inprocessing import FairMLPClassifier
from skfair.inprocessing._mlp import NEVER_APPLIED_WARNING
from skfair.inprocessing._model_penalties import dralign_alignment, mixup_penalty
from skfair.inprocessing._network import (
    backward,
    forward,
    hessian_vector_product,
    init_params,
    tangent_forward,
)
from skfair.metrics import delta_dp, make_mcdp_scorer, mcdp
from skfair.model_selection import fairest_within

H = 1e-6


def _net(seed=0, sizes=(5, 7, 6, 1), n=40, n_groups=2):
    rng = np.random.default_rng(seed)
    coefs, intercepts = init_params(list(sizes), rng, np.float64)
    X = rng.normal(size=(n, sizes[0]))
    y = (rng.random(n) < 0.5).astype(float)
    codes = rng.integers(0, n_groups, n)
    return coefs, intercepts, X, y, codes, rng


def _check_gradient(objective, params, grads, rng, n_probe=4, atol=1e-7):
    """Central differences of ``objective()`` at a few entries of each tensor."""
    for param, grad in zip(params, grads):
        picks = rng.choice(param.size, min(n_probe, param.size), replace=False)
        for flat in picks:
            idx = np.unravel_index(flat, param.shape)
            old = param[idx]
            param[idx] = old + H
            up = objective()
            param[idx] = old - H
            down = objective()
            param[idx] = old
            assert grad[idx] == pytest.approx((up - down) / (2 * H), abs=atol)


def test_hessian_vector_product_matches_gradient_differences():
    coefs, intercepts, X, y, _, rng = _net()
    params = coefs + intercepts
    w = np.full(y.size, 1.0 / y.size)

    def gradient(shift):
        moved = [p + shift * v for p, v in zip(params, vector)]
        z, cache = forward(moved[:3], moved[3:], X, dtype=np.float64)
        return backward(moved[:3], cache, w * (expit(z) - y))

    vector = [rng.normal(size=p.shape) for p in params]
    z, cache = forward(coefs, intercepts, X, dtype=np.float64)
    hv = hessian_vector_product(coefs, cache, expit(z), y, w, vector)
    up, down = gradient(1e-5), gradient(-1e-5)
    for h, a, b in zip(hv, up, down):
        np.testing.assert_allclose(h, (a - b) / 2e-5, atol=1e-8)


def test_input_tangent_is_the_directional_derivative():
    coefs, intercepts, X, _, _, rng = _net(seed=1)
    d = rng.normal(size=X.shape)
    _, cache = forward(coefs, intercepts, X, dtype=np.float64)
    _, z_dot = tangent_forward(coefs, cache, input_tangent=d)
    up = forward(coefs, intercepts, X + H * d, dtype=np.float64)[0]
    down = forward(coefs, intercepts, X - H * d, dtype=np.float64)[0]
    np.testing.assert_allclose(z_dot, (up - down) / (2 * H), atol=1e-7)


@pytest.mark.parametrize("n_groups", [2, 3])
def test_mixup_gradient_matches_finite_differences(n_groups):
    coefs, intercepts, X, _, codes, rng = _net(seed=2, n_groups=n_groups)

    def objective():  # same γ and pairs every call: a fixed seed
        return mixup_penalty(
            coefs, intercepts, X, codes, np.random.RandomState(0), dtype=np.float64
        )

    value, grads = objective()
    assert value > 0
    _check_gradient(lambda: objective()[0], coefs + intercepts, grads, rng)


def test_mixup_value_is_the_mean_gap_along_the_path():
    # the value is |mean_i ⟨∇f(x_mix_i), x_b_i - x_a_i⟩| on rows paired in batch
    # order, and its signed version integrates over γ to the pair's mean gap
    # (fundamental theorem of calculus)
    coefs, intercepts, X, _, codes, rng = _net(seed=3, n=60)
    X[codes == 1] += rng.normal(size=5)  # a clear gap between the groups
    a_rows, b_rows = (np.flatnonzero(codes == g) for g in (0, 1))
    m = min(a_rows.size, b_rows.size)
    x_a, x_b = X[a_rows[:m]], X[b_rows[:m]]

    class Fixed:
        def __init__(self, gamma):
            self.gamma = gamma

        def beta(self, a, b):
            return self.gamma

    def signed(gamma):
        x_mix = gamma * x_a + (1 - gamma) * x_b
        z, cache = forward(coefs, intercepts, x_mix, dtype=np.float64)
        p = expit(z)
        _, z_dot = tangent_forward(coefs, cache, input_tangent=x_b - x_a)
        return np.mean(p * (1 - p) * z_dot)

    for gamma in (0.1, 0.5, 0.9):
        value, _ = mixup_penalty(
            coefs, intercepts, X, codes, Fixed(gamma), dtype=np.float64
        )
        assert value == pytest.approx(abs(signed(gamma)), rel=1e-12)
    # ReLU kinks: a fine midpoint rule rather than Gauss nodes
    integral = np.mean([signed(g) for g in (np.arange(4000) + 0.5) / 4000])
    proba = [
        expit(forward(coefs, intercepts, x, dtype=np.float64)[0]) for x in (x_a, x_b)
    ]
    gap = proba[1].mean() - proba[0].mean()  # ⟨∇f, x_b - x_a⟩: from x_a to x_b
    assert abs(gap) > 1e-3
    assert integral == pytest.approx(gap, rel=1e-3)


@pytest.mark.parametrize("n_groups", [2, 3])
@pytest.mark.parametrize("sizes", [(5, 7, 1), (5, 7, 6, 1)])
def test_dralign_gradient_matches_finite_differences(n_groups, sizes):
    coefs, intercepts, X, y, codes, rng = _net(seed=4, sizes=sizes, n_groups=n_groups)

    def objective():
        z, cache = forward(coefs, intercepts, X, dtype=np.float64)
        return dralign_alignment(coefs, cache, expit(z), y, codes)

    value, grads = objective()
    assert 0 < value <= len(sizes) - 2
    _check_gradient(lambda: objective()[0], coefs + intercepts, grads, rng)


def test_model_penalties_need_two_groups_in_the_batch():
    coefs, intercepts, X, y, _, _ = _net(seed=5)
    one = np.zeros(y.size, dtype=int)
    rng = np.random.RandomState(0)
    assert mixup_penalty(coefs, intercepts, X, one, rng, dtype=np.float64) == (
        0.0,
        None,
    )
    z, cache = forward(coefs, intercepts, X, dtype=np.float64)
    assert dralign_alignment(coefs, cache, expit(z), y, one) == (0.0, None)
    # codes of -1 (left out by min_group_size) do not count as a group
    assert dralign_alignment(coefs, cache, expit(z), y, one - (np.arange(40) < 5))[
        1
    ] is (None)


def _data(n=600, seed=0):
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


@pytest.mark.parametrize("penalty", ["mixup", "dralign"])
def test_penalty_lowers_training_disparity(penalty):
    X, y, group = _data()
    erm = _fast(penalty=None).fit(X, y)
    fair = _fast(penalty=penalty, fairness_weight=2.0).fit(X, y)
    for metric in (mcdp, delta_dp):
        before = metric(y, erm.predict_proba(X)[:, 1], sensitive_features=group)
        after = metric(y, fair.predict_proba(X)[:, 1], sensitive_features=group)
        assert after < 0.7 * before
    assert fair.penalty_curve_.shape == (120,)
    assert (fair.penalty_curve_ > 0).all()


def test_zero_weight_mixup_and_dralign_without_alignment_are_erm():
    X, y, _ = _data()
    erm = _fast(penalty=None).fit(X, y)
    for params in (
        {"penalty": "mixup"},
        {"penalty": "dralign", "alignment_strength": 0.0},
    ):
        zero = _fast(fairness_weight=0.0, **params).fit(X, y)
        for a, b in zip(erm.coefs_ + erm.intercepts_, zero.coefs_ + zero.intercepts_):
            np.testing.assert_array_equal(a, b)


def test_dralign_alignment_alone_changes_the_model():
    X, y, _ = _data()
    erm = _fast(penalty=None).fit(X, y)
    aligned = _fast(penalty="dralign", fairness_weight=0.0, alignment_strength=1.0)
    aligned.fit(X, y)
    assert aligned.alignment_curve_.shape == (120,)
    assert np.isfinite(aligned.alignment_curve_).all()
    assert np.all(aligned.penalty_curve_ == 0)
    assert not np.allclose(erm.coefs_[0], aligned.coefs_[0])
    assert not hasattr(_fast(penalty="mixup").fit(X, y), "alignment_curve_")


@pytest.mark.parametrize("penalty", ["mixup", "dralign"])
def test_three_groups_and_dropout(penalty):
    rng = np.random.default_rng(1)
    group = rng.integers(0, 3, 450)
    X = np.column_stack([group, rng.normal(group, 1.0), rng.normal(size=450)])
    y = (X[:, 1] + rng.normal(size=450) > 1).astype(int)
    erm = _fast(penalty=None, hidden_layer_sizes=(8, 8), dropout=0.2).fit(X, y)
    model = _fast(
        penalty=penalty, fairness_weight=2.0, hidden_layer_sizes=(8, 8), dropout=0.2
    ).fit(X, y)
    before = mcdp(y, erm.predict_proba(X)[:, 1], sensitive_features=group)
    after = mcdp(y, model.predict_proba(X)[:, 1], sensitive_features=group)
    assert after < before


@pytest.mark.parametrize("penalty", ["mixup", "dralign"])
def test_warns_when_no_batch_holds_two_groups(penalty):
    X, y, _ = _data(n=200)
    X[:, 0] = np.r_[np.zeros(198), np.ones(2)]  # a group of 2 among 200
    model = _fast(penalty=penalty, batch_size=1, max_iter=5, min_group_size=1)
    with pytest.warns(UserWarning) as record:
        model.fit(X, y)
    assert [str(w.message) for w in record] == [
        NEVER_APPLIED_WARNING.format(n_steps=5, n_groups=2, smallest=2, batch_size=1)
    ]
    # no warning when the fairness term is off
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _fast(
            penalty=penalty,
            batch_size=1,
            max_iter=5,
            min_group_size=1,
            fairness_weight=0.0,
            alignment_strength=0.0,
        ).fit(X, y)


def test_nan_features_and_bad_alignment_strength():
    X, y, _ = _data(n=100)
    with pytest.raises(InvalidParameterError, match="alignment_strength"):
        _fast(penalty="dralign", alignment_strength=-1.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="penalty"):
        _fast(penalty="mixupp").fit(X, y)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fast(penalty="mixup").fit(X, y)


@pytest.mark.parametrize("penalty", ["mixup", "dralign"])
def test_grid_search_with_fairest_within(penalty):
    X, y, _ = _data(n=400)
    search = GridSearchCV(
        _fast(penalty=penalty, max_iter=60),
        {"fairness_weight": [0.0, 1.0, 4.0]},
        scoring={"ap": "average_precision", "mcdp": make_mcdp_scorer(sensitive=0)},
        refit=fairest_within(fairness="mcdp", performance="ap", tolerance=0.9),
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(X, y)
    results = search.cv_results_
    assert results["mean_test_mcdp"][search.best_index_] > results["mean_test_mcdp"][0]
    assert clone(search.best_estimator_).penalty == penalty


def test_backward_with_dropout_matches_finite_differences():
    # the same dropout masks on every call (same seed): the scaled mask is
    # part of the function, and the backward pass must scale by it too
    coefs, intercepts, X, y, _, rng = _net(seed=6)
    w = np.full(y.size, 1.0 / y.size)

    def run():
        z, cache = forward(
            coefs,
            intercepts,
            X,
            dtype=np.float64,
            rng=np.random.RandomState(0),
            dropout=0.5,
        )
        loss = float(w @ (np.logaddexp(0.0, z) - y * z))
        return loss, backward(coefs, cache, w * (expit(z) - y))

    _, grads = run()
    _check_gradient(lambda: run()[0], coefs + intercepts, grads, rng)
