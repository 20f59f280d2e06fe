"""``min_group_size``: small groups warned about, or left out of the penalty."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.metrics import log_loss

from skfair.inprocessing import FairLGBMClassifier, FairMLPClassifier, fairness_penalty
from skfair.utils import SmallGroupWarning


def _data(n_small=12, seed=0):
    """Groups 0 and 1 (150 rows each) and a group 2 of ``n_small`` rows whose
    scores are the highest, so that it is in the worst pair when compared."""
    rng = np.random.default_rng(seed)
    group = np.repeat([0, 1, 2], [150, 150, n_small])
    x = rng.normal(group * 1.5, 1.0)
    X = np.column_stack([group, x, rng.normal(size=group.size)])
    y = (x + rng.normal(size=group.size) > 1.0).astype(int)
    return X, y, group


def _mlp(**params):
    # one full-batch step of a negligible size: penalty_curve_[0] is the
    # penalty at (to float32 precision) the fitted network's probabilities
    return FairMLPClassifier(
        sensitive=0,
        penalty="dp",
        max_iter=1,
        batch_size=10_000,
        learning_rate_init=1e-12,
        random_state=0,
        **params,
    )


def _lgbm(**params):
    return FairLGBMClassifier(
        sensitive=0, penalty="dp", n_estimators=6, random_state=0, **params
    )


def _penalty_then_proba(model, X):
    """(penalty logged in fit, probabilities it was computed from)."""
    if isinstance(model, FairMLPClassifier):
        return model.penalty_curve_[0], model.predict_proba(X)[:, 1]
    raw = model.booster_.predict(X[:, 1:], raw_score=True, num_iteration=5)
    return model.penalty_curve_[5], expit(raw + model.init_score_)


@pytest.mark.parametrize("make", [_mlp, _lgbm], ids=["mlp", "lgbm"])
def test_none_warns_and_keeps_the_small_group(make):
    X, y, group = _data()
    with pytest.warns(SmallGroupWarning, match=r"2\.0 \(12 samples\)|2 \(12"):
        model = make().fit(X, y)
    value, proba = _penalty_then_proba(model, X)
    expected = fairness_penalty(proba, group, penalty="dp")[0]
    np.testing.assert_allclose(value, expected, rtol=1e-4)


@pytest.mark.parametrize("make", [_mlp, _lgbm], ids=["mlp", "lgbm"])
def test_int_leaves_the_small_group_out_of_the_penalty(make):
    X, y, group = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SmallGroupWarning
        model = make(min_group_size=30).fit(X, y)
    value, proba = _penalty_then_proba(model, X)
    kept = group < 2
    expected = fairness_penalty(proba[kept], group[kept], penalty="dp")[0]
    every_group = fairness_penalty(proba, group, penalty="dp")[0]
    assert abs(every_group - expected) > 1e-2  # the oracle tells them apart
    np.testing.assert_allclose(value, expected, rtol=1e-4)
    # the left-out group is still trained on
    if isinstance(model, FairMLPClassifier):
        # the logged loss is the log-loss of every row, group 2's included
        np.testing.assert_allclose(model.loss_curve_[0], log_loss(y, proba), rtol=1e-5)
    else:
        without = make(min_group_size=30).fit(X[kept], y[kept])
        assert not np.allclose(without.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("make", [_mlp, _lgbm], ids=["mlp", "lgbm"])
def test_min_group_size_one_keeps_every_group_without_warning(make):
    X, y, group = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = make(min_group_size=1).fit(X, y)
    value, proba = _penalty_then_proba(model, X)
    np.testing.assert_allclose(
        value, fairness_penalty(proba, group, penalty="dp")[0], rtol=1e-4
    )


@pytest.mark.parametrize("make", [_mlp, _lgbm], ids=["mlp", "lgbm"])
def test_fewer_than_two_groups_left_is_an_error(make):
    X, y, _ = _data()
    with pytest.raises(ValueError) as info:
        make(min_group_size=151).fit(X, y)
    # min_group_size, not the fold, left a single group: the message says so
    assert "once min_group_size has left out the smaller groups" in str(info.value)
    assert "cross-validation fold" not in str(info.value)


@pytest.mark.parametrize("make", [_mlp, _lgbm], ids=["mlp", "lgbm"])
@pytest.mark.parametrize("bad", [0, -1, 2.5, "3"])
def test_min_group_size_is_validated(make, bad):
    from sklearn.utils._param_validation import InvalidParameterError

    X, y, _ = _data()
    with pytest.raises(InvalidParameterError, match="min_group_size"):
        make(min_group_size=bad).fit(X, y)


@pytest.mark.parametrize(
    "estimator",
    [
        FairLGBMClassifier(sensitive=1, n_estimators=3),
        FairMLPClassifier(sensitive=1, max_iter=3),
    ],
    ids=["boosting", "mlp"],
)
def test_more_than_fifty_groups_train(estimator):
    # the MCDP penalty locates the worst pair on the group codes: as plain
    # integers, 60 groups looked like a continuous attribute and fit failed
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(60), 30).astype(str)
    X = np.column_stack([rng.normal(size=groups.size), groups]).astype(object)
    y = (X[:, 0].astype(float) + rng.normal(size=groups.size) > 0).astype(int)
    assert estimator.fit(X, y).predict_proba(X).shape == (groups.size, 2)
