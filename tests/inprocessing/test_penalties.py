import numpy as np
import pytest
from scipy.special import expit

from skfair.inprocessing import fairness_penalty
from skfair.inprocessing._penalties import (
    ABCC_GRID_POINTS,
    PENALTY_ERROR,
    SCORE_NAN_ERROR,
    SCORE_UNIT_INTERVAL_ERROR,
    SINGLE_GROUP_ERROR,
    TEMPERATURE_ERROR,
    _locate_mcdp,
)
from skfair.metrics import abcc, delta_dp, mcdp, mcdp_details

H = 1e-6

# tiny groups on purpose: the metrics used as oracles warn about them
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


def _data(n_groups, n=45, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), n // n_groups)
    scores = np.clip(rng.beta(2, 3, groups.size) + 0.08 * groups, 0.01, 0.99)
    return scores, groups


def _smooth_gap(t, scores, groups, a, b, tau):
    s = expit(tau * (t - scores))
    return abs(s[groups == a].mean() - s[groups == b].mean())


def _central_difference(f, scores, skip=()):
    out = np.full(scores.size, np.nan)
    for i in range(scores.size):
        if i in skip:
            continue
        up, down = scores.copy(), scores.copy()
        up[i] += H
        down[i] -= H
        out[i] = (f(up) - f(down)) / (2 * H)
    return out


@pytest.mark.parametrize("n_groups", [2, 3])
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_mcdp_gradient_matches_finite_differences(n_groups, epsilon):
    scores, groups = _data(n_groups)
    t, a, b = _locate_mcdp(scores, groups, 10.0, epsilon)
    value, grad = fairness_penalty(scores, groups, temperature=10.0, epsilon=epsilon)
    assert value == pytest.approx(_smooth_gap(t, scores, groups, a, b, 10.0))
    # the location is held fixed (bi-level scheme): differentiate the smooth
    # gap at that location; the one sample sitting at it is left out.
    skip = set(np.flatnonzero(np.isclose(scores, t, atol=0, rtol=1e-12)))
    fd = _central_difference(
        lambda s: _smooth_gap(t, s, groups, a, b, 10.0), scores, skip
    )
    keep = ~np.isnan(fd)
    assert keep.sum() >= scores.size - 1
    np.testing.assert_allclose(grad[keep], fd[keep], atol=1e-7)
    # the penalty's value moves with the scores as its gradient says
    others = np.flatnonzero(keep)
    fd_full = _central_difference(
        lambda s: fairness_penalty(s, groups, epsilon=epsilon)[0],
        scores,
        skip | {i for i in range(scores.size) if i not in others[:8]},
    )
    ok = ~np.isnan(fd_full)
    np.testing.assert_allclose(grad[ok], fd_full[ok], atol=1e-6)
    # samples outside the worst pair get no gradient
    assert np.all(grad[(groups != a) & (groups != b)] == 0)


@pytest.mark.parametrize("n_groups", [2, 3])
@pytest.mark.parametrize("penalty", ["dp", "abcc"])
def test_dp_abcc_gradient_matches_finite_differences(n_groups, penalty):
    scores, groups = _data(n_groups, seed=1)
    _value, grad = fairness_penalty(scores, groups, penalty=penalty)
    fd = _central_difference(
        lambda s: fairness_penalty(s, groups, penalty=penalty)[0], scores
    )
    np.testing.assert_allclose(grad, fd, atol=1e-7)


@pytest.mark.parametrize("n_groups", [2, 3])
def test_dp_value_is_worst_mean_gap(n_groups):
    scores, groups = _data(n_groups, seed=2)
    value, _ = fairness_penalty(scores, groups, penalty="dp")
    means = [scores[groups == g].mean() for g in range(n_groups)]
    assert value == pytest.approx(max(means) - min(means))
    assert value == pytest.approx(delta_dp(None, scores, sensitive_features=groups))


def test_abcc_tends_to_exact_area_at_high_temperature():
    scores, groups = _data(2, n=400, seed=3)
    value, _ = fairness_penalty(scores, groups, penalty="abcc", temperature=2000.0)
    exact = abcc(None, scores, sensitive_features=groups)
    # grid of ABCC_GRID_POINTS points: error of order one grid step
    assert value == pytest.approx(exact, abs=1.0 / (ABCC_GRID_POINTS - 1))


def test_abcc_worst_pair_by_brute_force():
    scores, groups = _data(3, n=60, seed=4)
    grid = np.linspace(0, 1, ABCC_GRID_POINTS)
    cdf = [
        expit(10.0 * (grid[:, None] - scores[groups == g][None, :])).mean(axis=1)
        for g in range(3)
    ]
    areas = [
        np.trapezoid(np.abs(cdf[a] - cdf[b]), grid)
        for a in range(3)
        for b in range(a + 1, 3)
    ]
    value, _ = fairness_penalty(scores, groups, penalty="abcc")
    assert value == pytest.approx(max(areas))


@pytest.mark.parametrize("n_groups", [2, 3])
def test_location_is_mcdp_details_threshold(n_groups):
    scores, groups = _data(n_groups, seed=5)
    details = mcdp_details(None, scores, sensitive_features=groups)
    t, a, b = _locate_mcdp(scores, groups, 10.0, 0.0)
    assert t == details.threshold
    assert (a, b) == tuple(details.groups)


def test_location_for_epsilon_lies_in_mcdp_window():
    scores, groups = _data(3, seed=6)
    details = mcdp_details(None, scores, sensitive_features=groups, epsilon=0.05)
    t, a, b = _locate_mcdp(scores, groups, 10.0, 0.05)
    low, high = details.window
    assert low <= t <= high
    assert (a, b) == tuple(details.groups)


def test_mcdp_penalty_tends_to_mcdp_at_high_temperature():
    # Theorem 3.5: the smooth gap converges to the empirical one; with
    # distinct scores the exact ECDF at t counts the sample at t, the
    # sigmoid counts it half.
    scores, groups = _data(2, n=200, seed=7)
    value, _ = fairness_penalty(scores, groups, temperature=1e7)
    exact = mcdp(None, scores, sensitive_features=groups)
    n_min = np.bincount(groups).min()
    assert value == pytest.approx(exact, abs=0.5 / n_min + 1e-9)


def test_intersection_of_two_attributes():
    scores, groups = _data(2, n=40, seed=8)
    other = np.tile([0, 1], 20)
    v2, g2 = fairness_penalty(scores, np.column_stack([groups, other]))
    v1, g1 = fairness_penalty(scores, groups * 2 + other)
    assert v2 == pytest.approx(v1)
    np.testing.assert_allclose(g2, g1)


@pytest.mark.parametrize("temperature", [0, -1.0, np.inf, np.nan, True])
def test_bad_temperature(temperature):
    with pytest.raises(ValueError) as info:
        fairness_penalty([0.1, 0.2], [0, 1], temperature=temperature)
    assert str(info.value) == TEMPERATURE_ERROR.format(value=temperature)


def test_bad_epsilon_and_penalty():
    with pytest.raises(ValueError) as info:
        fairness_penalty([0.1, 0.2], [0, 1], epsilon=-0.1)
    # metrics' check_epsilon: the message is the one it always was
    assert str(info.value) == "epsilon must be a finite real number >= 0; got -0.1."
    with pytest.raises(ValueError) as info:
        fairness_penalty([0.1, 0.2], [0, 1], penalty="ks")
    assert str(info.value) == PENALTY_ERROR.format(
        options=["mcdp", "dp", "abcc"], penalty="ks"
    )


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_scores(bad):
    with pytest.raises(ValueError) as info:
        fairness_penalty([0.1, bad, 0.3, 0.4], [0, 0, 1, 1])
    assert str(info.value) == SCORE_NAN_ERROR.format(n_bad=1, first=1)


def test_single_group():
    with pytest.raises(ValueError) as info:
        fairness_penalty([0.1, 0.2, 0.3], ["a", "a", "a"])
    assert str(info.value) == SINGLE_GROUP_ERROR.format(
        n_groups=1, labels=["a"], n_samples=3
    )


def test_scores_outside_unit_interval():
    with pytest.raises(ValueError) as info:
        fairness_penalty([-0.5, 0.2, 1.5], [0, 1, 1], penalty="abcc")
    assert str(info.value) == SCORE_UNIT_INTERVAL_ERROR.format(
        penalty="abcc", extra="", low=-0.5, high=1.5
    )
    # MCDP(0) and DP accept any real scores (logits)
    fairness_penalty([-0.5, 0.2, 1.5], [0, 1, 1])
    fairness_penalty([-0.5, 0.2, 1.5], [0, 1, 1], penalty="dp")
