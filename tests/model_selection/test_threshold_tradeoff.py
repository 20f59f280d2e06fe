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


def test_accuracy_rewards_selecting_almost_no_one():
    # the docstring's warning: only the all-negative threshold is trivial, so
    # accuracy picks one that selects almost no one; balanced accuracy does not
    y, score, group = imbalanced(1)
    grid = np.linspace(0.05, 0.95, 19)  # the grid of the old report panel
    result = threshold_tradeoff(
        y, score, sensitive_features=group, performance="accuracy", thresholds=grid
    )
    table = result.candidates.set_index("threshold")
    pick = table.loc[result.threshold]
    assert not pick["trivial"] and 0 < pick["overall_positive_rate"] < 0.01
    assert table["trivial"].equals(table["overall_positive_rate"].isin([0.0, 1.0]))
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
    assert result.candidates["trivial"].all()
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
    from skfair.model_selection._selection import tolerance_floor

    assert tolerance_floor(0.8, 0.95) == pytest.approx(0.76)
    assert tolerance_floor(-0.2, 0.95) == pytest.approx(-0.21)  # a negated loss


def young_without_positives(seed=0, n=40_000):
    """The census case: quartile age bins, the youngest without positive labels.

    The youngest quarter has scores <= 0.001, so it is at rate 0 at almost every
    candidate threshold.
    """
    rng = np.random.default_rng(seed)
    age = rng.uniform(17, 90, n)
    young = age < np.quantile(age, 0.25)
    y = np.where(young, 0, rng.random(n) < 0.15 + 0.2 * (age > 45)).astype(int)
    score = 1 / (1 + np.exp(-(rng.normal(-2.5, 1.5, n) + 3 * y + 0.8 * (age > 45))))
    score[young] = rng.uniform(0, 0.001, young.sum())
    bins = pd.qcut(age, 4).astype(str)
    return y, score, np.asarray(bins), str(bins[np.argmin(age)])


def brute_force(y, score, group, thresholds):
    """Balanced accuracy and ΔDP_b at each threshold, from their definitions."""
    codes = np.unique(group, return_inverse=True)[1]
    ba, gap = [], []
    for t in thresholds:
        chosen = score >= t
        ba.append((chosen[y == 1].mean() + (~chosen[y == 0]).mean()) / 2)
        rates = np.bincount(codes, weights=chosen) / np.bincount(codes)
        gap.append(rates.max() - rates.min())
    return np.array(ba), np.array(gap)


def test_a_group_without_positives_does_not_make_thresholds_trivial():
    y, score, bins, youngest = young_without_positives()
    result = threshold_tradeoff(y, score, sensitive_features=bins, current=0.5)
    table = result.candidates
    # the youngest group is at rate 0 at most candidates, and they stay usable
    at_zero = result.positive_rates[youngest] == 0
    assert at_zero.mean() > 0.8
    assert not table["trivial"].any()
    assert result.no_positives == (youngest,) and result.no_negatives == ()
    # the pick is no worse than 0.5, and better there than the old pick (the
    # youngest group's largest score) in both gap and balanced accuracy
    ba, gap = brute_force(y, score, bins, [0.5, score[bins == youngest].max()])
    assert result.current_delta_dp == pytest.approx(gap[0])
    assert result.improves_on_current and result.delta_dp < gap[0]
    assert result.threshold > 0.001 and result.performance_value > ba[1] + 0.1
    # the best balanced accuracy is the maximum over every candidate
    all_ba, _ = brute_force(y, score, bins, table["threshold"])
    assert result.best_performance_value == pytest.approx(all_ba.max())
    assert result.to_dict()["no_positives"] == [youngest]


def many_groups(seed, n_groups=40):
    """Groups of mixed sizes (30 to ~5000), some without positives or negatives."""
    rng = np.random.default_rng(seed)
    sizes = np.round(np.exp(rng.uniform(np.log(30), np.log(5000), n_groups)))
    group = np.repeat([f"g{k:02d}" for k in range(n_groups)], sizes.astype(int))
    codes = np.unique(group, return_inverse=True)[1]
    base = rng.uniform(0.02, 0.5, n_groups)
    base[:3], base[3] = (
        0.0,
        1.0,
    )  # three groups without positives, one without negatives
    y = (rng.random(group.size) < base[codes]).astype(int)
    shift = rng.normal(0, 1, n_groups)[codes]
    score = 1 / (1 + np.exp(-(rng.normal(-1.5, 1.2, group.size) + 2.5 * y + shift)))
    return y, score, group


@pytest.mark.parametrize("seed", range(4))
def test_forty_groups_never_worse_than_the_current_threshold(seed):
    y, score, group = many_groups(seed)
    for current in (0.3, 0.5, 0.7):
        result = threshold_tradeoff(
            y, score, sensitive_features=group, current=current, min_group_size=1
        )
        table = result.candidates
        assert current in table["threshold"].to_numpy()
        assert result.no_positives == ("g00", "g01", "g02")
        assert result.no_negatives == ("g03",)
        ba, gap = brute_force(y, score, group, table["threshold"])
        np.testing.assert_allclose(table["delta_dp"], gap)
        # best balanced accuracy: the true maximum over the candidates
        assert result.best_performance_value == pytest.approx(ba.max())
        now = delta_dp(None, score, sensitive_features=group, threshold=current)
        assert result.current_delta_dp == pytest.approx(now)
        assert result.current_performance_value == pytest.approx(
            balanced_accuracy_score(y, score >= current)
        )
        assert result.delta_dp <= now
        if result.improves_on_current:
            assert result.delta_dp < now
            assert result.performance_value >= 0.95 * ba.max()
            fairer = (gap < now) & (ba >= 0.95 * ba.max())
            assert result.delta_dp == pytest.approx(gap[fairer].min())
        else:
            assert result.threshold == current and "kept" in result.note
            assert not ((gap < now - 1e-9) & (ba >= 0.95 * ba.max())).any()


def test_the_current_threshold_is_kept_when_nothing_is_fairer():
    # two groups with the same scores: every threshold has gap 0
    rng = np.random.default_rng(3)
    score = np.tile(rng.random(300), 2)
    group = np.repeat(["a", "b"], 300)
    y = (rng.random(600) < score).astype(int)
    result = threshold_tradeoff(
        y, score, sensitive_features=group, current=0.42, thresholds=[0.3, 0.6]
    )
    assert result.threshold == 0.42 and result.improves_on_current is False
    assert result.delta_dp == 0 == result.current_delta_dp
    assert result.note.startswith("No candidate improves on the current threshold")
    assert result.candidates["threshold"].tolist() == [0.3, 0.42, 0.6]
    assert result.performance_value == pytest.approx(
        balanced_accuracy_score(y, score >= 0.42)
    )
    out = result.to_dict()
    assert out["current"]["threshold"] == 0.42
    assert out["improves_on_current"] is False
    # without current: a pick, nothing said about improving
    plain = threshold_tradeoff(
        y, score, sensitive_features=group, thresholds=[0.3, 0.6]
    )
    assert plain.improves_on_current is None and plain.to_dict()["current"] is None
    # every candidate trivial: the current threshold is still the answer
    none = threshold_tradeoff(
        y, score, sensitive_features=group, current=2.0, thresholds=[-1.0]
    )
    assert none.threshold == 2.0 and none.improves_on_current is False


def test_current_must_be_a_finite_number():
    from skfair.model_selection._threshold_tradeoff import CURRENT_ERROR

    y, score, group = imbalanced(9, n=300)
    for bad in (np.nan, np.inf, "0.5", True):
        with pytest.raises(ValueError, match="current must be a finite real number"):
            threshold_tradeoff(y, score, sensitive_features=group, current=bad)
    assert CURRENT_ERROR.startswith("current")


def test_group_labels_containing_the_separator_are_quoted():
    from skfair.utils._labels import parse_group_label

    rng = np.random.default_rng(4)
    n = 400
    sensitive = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "race": rng.choice(
                ["White", "Native Hawaiian & Other Pacific Islander"], n
            ),
        }
    )
    score = rng.random(n)
    y = (rng.random(n) < score).astype(int)
    result = threshold_tradeoff(y, score, sensitive_features=sensitive)
    keys = set(result.positive_rate)
    assert 'F & "Native Hawaiian & Other Pacific Islander"' in keys
    assert {parse_group_label(k) for k in keys} == {
        (s, r) for s in ("F", "M") for r in sensitive["race"].unique()
    }
    marginal = threshold_tradeoff(
        y, score, sensitive_features=sensitive, combine="marginal"
    )
    assert "race: Native Hawaiian & Other Pacific Islander" in marginal.positive_rate
