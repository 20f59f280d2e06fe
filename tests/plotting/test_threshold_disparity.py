import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from skfair.metrics import delta_dp, mcdp, mcdp_details
from skfair.plotting import ThresholdDisparityDisplay
from skfair.plotting._threshold_disparity import AGG_ERROR


def _data(seed=0, n_per_group=40, n_groups=3, decimals=2):
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(n_groups), n_per_group)
    scores = rng.beta(2 + group, 2).round(decimals)  # rounding makes ties
    return scores, group


def _step_value(display, t):
    """Value of the drawn steps-pre curve at t (that of the next grid point)."""
    k = np.searchsorted(display.thresholds, t, side="left")
    return display.disparity[k]


@pytest.mark.parametrize("agg", ["max", "mean"])
def test_exact_curve_equals_delta_dp_everywhere(agg):
    scores, group = _data()
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group, agg=agg
    )
    line = display.line_
    assert line.get_drawstyle() == "steps-pre"
    x, y = line.get_xdata(), line.get_ydata()
    assert np.array_equal(x[1:-1], np.unique(scores))
    for t, v in zip(x, y):
        assert v == delta_dp(
            None, scores, sensitive_features=group, threshold=t, agg=agg
        )
    # between the points too: the drawn step is delta_dp at sampled thresholds
    rng = np.random.default_rng(1)
    for t in np.concatenate((rng.uniform(x[0], x[-1], 200), np.unique(scores) + 1e-9)):
        if t > x[-1]:
            continue
        expected = delta_dp(
            None, scores, sensitive_features=group, threshold=t, agg=agg
        )
        assert _step_value(display, t) == expected


def test_peak_marks_the_mcdp_threshold():
    scores, group = _data(seed=2, n_groups=2)
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group
    )
    details = mcdp_details(None, scores, sensitive_features=group)
    value = mcdp(None, scores, sensitive_features=group)
    distinct = np.unique(scores)
    next_score = distinct[distinct > details.threshold][0]
    mx, my = display.peak_marker_.get_xdata(), display.peak_marker_.get_ydata()
    # delta_dp subtracts float rates, mcdp uses exact integer counts: 1 ulp apart
    assert mx[0] == next_score and my[0] == pytest.approx(value, abs=1e-12)
    assert my[0] == delta_dp(
        None, scores, sensitive_features=group, threshold=next_score
    )
    assert display.peak_line_.get_xdata()[0] == next_score
    assert display.disparity.max() == pytest.approx(value, abs=1e-12)
    assert display.mcdp_value == value
    assert f"{value:.4g}" in display.annotation_.get_text()
    # it is the smallest threshold reaching the maximum (up to float rounding)
    reached = display.thresholds[np.isclose(display.disparity, value, atol=1e-12)]
    assert reached.min() == next_score


def test_given_thresholds_marginal_and_intersection():
    rng = np.random.default_rng(3)
    n = 240
    sf = pd.DataFrame(
        {"a": np.repeat([0, 1], n // 2), "b": np.tile(np.repeat(["x", "y"], n // 4), 2)}
    )
    scores = rng.random(n).round(2)
    grid = np.linspace(0, 1, 21)
    for combine in ("intersection", "marginal"):
        display = ThresholdDisparityDisplay.from_predictions(
            None, scores, sensitive_features=sf, thresholds=grid, combine=combine
        )
        assert display.line_.get_drawstyle() == "default"
        # the given thresholds and the peak, so the line passes through the marker
        assert np.array_equal(
            display.thresholds, np.union1d(grid, [display.peak_threshold])
        )
        expected = [
            delta_dp(None, scores, sensitive_features=sf, threshold=t, combine=combine)
            for t in display.thresholds
        ]
        assert display.line_.get_ydata().tolist() == expected
        assert display.mcdp_value == mcdp(
            None, scores, sensitive_features=sf, combine=combine
        )


def test_sample_weight():
    scores, group = _data(seed=4)
    weights = np.random.default_rng(4).random(scores.size) + 0.1
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group, sample_weight=weights
    )
    expected = [
        delta_dp(
            None, scores, sensitive_features=group, threshold=t, sample_weight=weights
        )
        for t in display.thresholds
    ]
    assert np.allclose(display.disparity, expected, rtol=0, atol=1e-12)


def test_decision_function_scores_and_from_estimator():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.normal(size=200), np.repeat([0, 1], 100)])
    y = (X[:, 0] + X[:, 1] + rng.normal(size=200) > 0.5).astype(int)
    clf = LogisticRegression().fit(X, y)
    display = ThresholdDisparityDisplay.from_estimator(
        clf, X, y, sensitive=1, response_method="decision_function"
    )
    scores = clf.decision_function(X)
    for t, v in zip(display.thresholds, display.disparity):
        assert v == delta_dp(None, scores, sensitive_features=X[:, 1], threshold=t)
    assert display.thresholds[0] < scores.min() < scores.max() < display.thresholds[-1]
    assert display.line_.get_label() == "LogisticRegression"


def test_bad_agg():
    scores, group = _data()
    with pytest.raises(ValueError, match="agg must be"):
        ThresholdDisparityDisplay.from_predictions(
            None, scores, sensitive_features=group, agg="min"
        )
    assert "agg" in AGG_ERROR


def test_min_group_size_leaves_out_small_groups():
    from skfair.utils import SmallGroupWarning

    rng = np.random.default_rng(6)
    group = np.repeat([0, 1, 2], [50, 50, 5])
    scores = rng.random(group.size).round(2)
    with pytest.warns(SmallGroupWarning):
        ThresholdDisparityDisplay.from_predictions(
            None, scores, sensitive_features=group
        )
    display = ThresholdDisparityDisplay.from_predictions(
        None, scores, sensitive_features=group, min_group_size=10
    )
    kept = group < 2
    assert np.array_equal(display.thresholds[1:-1], np.unique(scores[kept]))
    for t, v in zip(display.thresholds, display.disparity):
        assert v == delta_dp(
            None, scores, sensitive_features=group, threshold=t, min_group_size=10
        )
    assert display.mcdp_value == mcdp(
        None, scores, sensitive_features=group, min_group_size=10
    )
