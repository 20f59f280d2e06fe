"""threshold_tradeoff: a usable threshold pick (issue 19, item 4)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, f1_score

from skfair.metrics import delta_dp
from skfair.model_selection import ThresholdTradeoff, threshold_tradeoff
from skfair.model_selection._threshold_tradeoff import (
    PERFORMANCE_ERROR,
    THRESHOLDS_ERROR,
)
from skfair.utils._validation import POS_LABEL_NEEDED_ERROR


def imbalanced(seed=0, n=6000):
    """Base rate about 4%; scores crowd near 0 (as real credit/income models)."""
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.35, 0.15])
    y = (rng.random(n) < 0.03 + 0.02 * (group == "b")).astype(int)
    logit = rng.normal(-4, 1, n) + 2.5 * y + 0.6 * (group == "c")
    return y, 1 / (1 + np.exp(-logit)), group


def test_imbalanced_pick_is_not_trivial():
    y, score, group = imbalanced()
    assert y.mean() <= 0.06
    result = threshold_tradeoff(y, score, sensitive_features=group)
    assert isinstance(result, ThresholdTradeoff)
    rates = result.positive_rate
    assert set(rates) == {"a", "b", "c"}
    assert all(0 < r < 1 for r in rates.values())
    # the values are the public metrics' at the pick
    t = result.threshold
    assert result.delta_dp == pytest.approx(
        delta_dp(None, score, sensitive_features=group, threshold=t)
    )
    assert result.performance_value == pytest.approx(
        balanced_accuracy_score(y, score >= t)
    )
    for g, rate in rates.items():
        assert rate == pytest.approx(np.mean(score[group == g] >= t))
    # within 95% of the best non-trivial balanced accuracy, the fairest
    table = result.candidates
    eligible = table[~table["trivial"]]
    best = eligible["performance"].max()
    assert result.best_performance_value == best
    assert result.performance_value >= 0.95 * best
    within = eligible[eligible["performance"] >= 0.95 * best]
    assert result.delta_dp == within["delta_dp"].min()
    # the fairest candidate of all is trivial: the rule is what keeps it out
    assert table.loc[table["delta_dp"].idxmin(), "trivial"]
    out = result.to_dict()
    assert {"threshold", "performance", "positive_rate"} <= set(out)
    assert out["performance"] == {
        "name": "balanced_accuracy",
        "value": result.performance_value,
    }


def test_accuracy_would_reward_the_all_negative_classifier():
    y, score, group = imbalanced(1)
    grid = np.linspace(0.05, 0.95, 19)  # the grid of the old report panel
    result = threshold_tradeoff(
        y, score, sensitive_features=group, performance="accuracy", thresholds=grid
    )
    table = result.candidates
    # accuracy of (nearly) all negative is within 95% of the best, ΔDP 0 there
    trivial = table[table["trivial"]]
    assert (trivial["performance"] >= 0.95 * table["performance"].max()).any()
    assert (
        result.threshold is None
        or result.candidates.loc[
            result.candidates["threshold"] == result.threshold, "min_positive_rate"
        ].iloc[0]
        > 0
    )
    ba = threshold_tradeoff(y, score, sensitive_features=group, thresholds=grid)
    assert all(0 < r < 1 for r in ba.positive_rate.values())


def test_f1_and_a_callable_agree():
    y, score, group = imbalanced(2)
    by_name = threshold_tradeoff(y, score, sensitive_features=group, performance="f1")
    by_call = threshold_tradeoff(
        y, score, sensitive_features=group, performance=f1_score
    )
    assert by_call.performance == "f1_score" and by_name.performance == "f1"
    np.testing.assert_allclose(
        by_name.candidates["performance"], by_call.candidates["performance"]
    )
    assert by_name.threshold == by_call.threshold


def test_built_in_measures_match_scikit_learn():
    from sklearn import metrics

    y, score, group = imbalanced(3, n=800)
    grid = [0.02, 0.05, 0.1, 0.3]
    for name, func in [
        ("balanced_accuracy", metrics.balanced_accuracy_score),
        ("f1", metrics.f1_score),
        ("matthews_corrcoef", metrics.matthews_corrcoef),
        ("accuracy", metrics.accuracy_score),
        ("recall", metrics.recall_score),
    ]:
        result = threshold_tradeoff(
            y, score, sensitive_features=group, performance=name, thresholds=grid
        )
        expected = [func(y, (score >= t).astype(int)) for t in grid]
        np.testing.assert_allclose(result.candidates["performance"], expected)


def test_sample_weight_equals_repeated_rows():
    y, score, group = imbalanced(4, n=600)
    w = np.random.default_rng(0).integers(1, 4, y.size)
    weighted = threshold_tradeoff(
        y, score, sensitive_features=group, sample_weight=w, thresholds=[0.05, 0.1]
    )
    repeated = threshold_tradeoff(
        np.repeat(y, w),
        np.repeat(score, w),
        sensitive_features=np.repeat(group, w),
        thresholds=[0.05, 0.1],
    )
    pd.testing.assert_frame_equal(weighted.candidates, repeated.candidates)


def test_min_group_size_leaves_the_group_out_of_everything():
    y, score, group = imbalanced(5, n=3000)
    group = group.astype(object)
    group[:5] = "tiny"
    left = threshold_tradeoff(y, score, sensitive_features=group, min_group_size=10)
    keep = group != "tiny"
    without = threshold_tradeoff(y[keep], score[keep], sensitive_features=group[keep])
    assert left.to_dict() == without.to_dict()


def test_no_pick_when_every_threshold_is_trivial():
    y, score, group = imbalanced(6, n=500)
    result = threshold_tradeoff(
        y, score, sensitive_features=group, thresholds=[0.0, 2.0]
    )
    assert result.threshold is None and result.positive_rate == {}
    assert result.note.startswith("No threshold was recommended")
    assert result.to_dict()["performance"]["value"] is None


def test_labels_and_errors():
    y, score, group = imbalanced(7, n=400)
    words = np.where(y == 1, "bad", "good")
    with pytest.raises(ValueError, match="the positive class is ambiguous"):
        threshold_tradeoff(words, score, sensitive_features=group)
    assert POS_LABEL_NEEDED_ERROR.startswith("{name} holds the labels")
    a = threshold_tradeoff(words, score, sensitive_features=group, pos_label="bad")
    b = threshold_tradeoff(y, score, sensitive_features=group)
    assert a.to_dict() | {"pos_label": 1} == b.to_dict()
    with pytest.raises(ValueError, match="performance must be one of"):
        threshold_tradeoff(y, score, sensitive_features=group, performance="auc")
    assert "callable" in PERFORMANCE_ERROR
    with pytest.raises(ValueError, match="thresholds must be"):
        threshold_tradeoff(y, score, sensitive_features=group, thresholds=[])
    with pytest.raises(ValueError, match="thresholds must be"):
        threshold_tradeoff(y, score, sensitive_features=group, thresholds=[np.nan])
    assert THRESHOLDS_ERROR.startswith("thresholds")
    with pytest.raises(ValueError, match="tolerance"):
        threshold_tradeoff(y, score, sensitive_features=group, tolerance=0)


def test_marginal_gaps_are_delta_dp_with_groups_left_out():
    # a group left out of one attribute still counts in the other attribute's
    # groups, as in delta_dp: the trade-off's gaps are the metric's
    rng = np.random.default_rng(8)
    n = 600
    sensitive = pd.DataFrame(
        {"A": rng.choice(["a", "b"], n), "B": rng.choice(["x", "y"], n)}
    )
    sensitive.loc[:4, "A"] = "tiny"
    score = rng.random(n)
    score[:5] = 0.95
    y = (rng.random(n) < score).astype(int)
    grid = [0.3, 0.5, 0.7]
    result = threshold_tradeoff(
        y,
        score,
        sensitive_features=sensitive,
        combine="marginal",
        min_group_size=10,
        thresholds=grid,
    )
    expected = [
        delta_dp(
            None,
            score,
            sensitive_features=sensitive,
            combine="marginal",
            min_group_size=10,
            threshold=t,
        )
        for t in grid
    ]
    np.testing.assert_allclose(result.candidates["delta_dp"], expected)
    rate = result.positive_rates.loc[0.5, "B: x"]
    assert rate == pytest.approx(np.mean(score[sensitive["B"] == "x"] >= 0.5))
    assert "A: tiny" not in result.positive_rates
    # the performance is on the samples every attribute keeps
    keep = (sensitive["A"] != "tiny").to_numpy()
    assert result.candidates["performance"].iloc[1] == pytest.approx(
        balanced_accuracy_score(y[keep], score[keep] >= 0.5)
    )


def test_no_labels_is_a_clear_error():
    from skfair.model_selection._threshold_tradeoff import NO_LABELS_ERROR

    with pytest.raises(ValueError, match="needs the true labels y_true"):
        threshold_tradeoff(None, [0.2, 0.8], sensitive_features=[0, 1])
    assert "got None" in NO_LABELS_ERROR


def test_tolerance_floor_is_the_rule_of_fairest_within():
    from skfair.model_selection import tolerance_floor

    assert tolerance_floor(0.8, 0.95) == pytest.approx(0.76)
    assert tolerance_floor(-0.2, 0.95) == pytest.approx(-0.21)  # a negated loss
