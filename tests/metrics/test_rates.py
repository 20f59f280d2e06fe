"""Rate-parity metrics: equal to fairlearn's, plus skfair's conventions."""

import inspect
import pickle
import sys
import traceback

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import skfair.metrics
from skfair.metrics import (
    FourFifthsResult,
    demographic_parity_difference,
    demographic_parity_gap,
    demographic_parity_ratio,
    equal_opportunity_gap,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_positive_rate_difference,
    false_positive_rate_ratio,
    four_fifths,
    multiclass_equalized_odds_difference,
    multiclass_false_positive_rate_difference,
    multiclass_selection_rate_difference,
    multiclass_true_positive_rate_difference,
    predictive_quality_parity_gap,
    true_positive_rate_difference,
    true_positive_rate_ratio,
)
from skfair.metrics._group_counts import COMPARE_METHOD_ERROR
from skfair.metrics._rates import AGG_ERROR
from skfair.utils import SmallGroupWarning

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")

PAIRS = [  # skfair function, fairlearn function, takes agg
    (demographic_parity_difference, fairlearn_metrics.demographic_parity_difference, 0),
    (demographic_parity_ratio, fairlearn_metrics.demographic_parity_ratio, 0),
    (equalized_odds_difference, fairlearn_metrics.equalized_odds_difference, 1),
    (equalized_odds_ratio, fairlearn_metrics.equalized_odds_ratio, 1),
    (
        true_positive_rate_difference,
        fairlearn_metrics.true_positive_rate_difference,
        0,
    ),
    (true_positive_rate_ratio, fairlearn_metrics.true_positive_rate_ratio, 0),
    (
        false_positive_rate_difference,
        fairlearn_metrics.false_positive_rate_difference,
        0,
    ),
    (false_positive_rate_ratio, fairlearn_metrics.false_positive_rate_ratio, 0),
]


def _case(seed):
    """Random labels, 1-2 sensitive columns, maybe weights; every rate defined."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 400))
    n_columns = int(rng.integers(1, 3))
    columns = {
        f"s{k}": rng.choice(["a", "b", "c"][: int(rng.integers(2, 4))], n)
        for k in range(n_columns)
    }
    sensitive = pd.DataFrame(columns)
    cell = sensitive.astype(str).agg("|".join, axis=1)
    y_true = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
    y_pred = np.where(rng.random(n) < 0.7, y_true, 1 - y_true)
    for label in cell.unique():  # every cell has both classes, both predictions
        rows = np.flatnonzero(cell.to_numpy() == label)
        if rows.size >= 4:
            y_true[rows[:4]], y_pred[rows[:4]] = [0, 0, 1, 1], [0, 1, 0, 1]
    keep = cell.map(cell.value_counts()) >= 4
    sensitive = sensitive[keep.to_numpy()].reset_index(drop=True)
    y_true, y_pred = y_true[keep.to_numpy()], y_pred[keep.to_numpy()]
    weights = rng.uniform(0.1, 3.0, len(y_true)) if rng.random() < 0.5 else None
    if n_columns == 1 and rng.random() < 0.5:
        sensitive = sensitive["s0"].to_numpy()
    return y_true, y_pred, sensitive, weights


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
def test_equal_to_fairlearn_on_random_cases(seed, method):
    y_true, y_pred, sensitive, weights = _case(seed)
    for ours, theirs, takes_agg in PAIRS:
        for agg in ["worst_case", "mean"] if takes_agg else [None]:
            extra = {"agg": agg} if agg else {}
            expected = theirs(
                y_true,
                y_pred,
                sensitive_features=sensitive,
                method=method,
                sample_weight=weights,
                **extra,
            )
            got = ours(
                y_true,
                y_pred,
                sensitive_features=sensitive,
                method=method,
                sample_weight=weights,
                min_group_size=1,
                **extra,
            )
            assert isinstance(got, float)
            assert got == pytest.approx(float(expected), abs=1e-12), (
                ours.__name__,
                agg,
            )


def test_frames_of_any_library_give_the_pandas_answer(constructor):
    y_true, y_pred, sensitive, _ = _case(3)
    sensitive = pd.DataFrame(sensitive).rename(columns=str)
    expected = equalized_odds_difference(
        y_true, y_pred, sensitive_features=sensitive, min_group_size=1
    )
    data = {name: sensitive[name].to_list() for name in sensitive.columns}
    got = equalized_odds_difference(
        y_true, y_pred, sensitive_features=constructor(data), min_group_size=1
    )
    assert got == expected


def test_string_labels_and_pos_label():
    y_true = np.array(["no", "yes"] * 40)
    y_pred = np.array(["yes"] * 30 + ["no"] * 50)
    groups = np.repeat(["a", "b"], 40)
    got = demographic_parity_difference(
        y_true, y_pred, sensitive_features=groups, pos_label="yes"
    )
    assert got == pytest.approx(30 / 40)
    flipped = demographic_parity_difference(
        y_true, y_pred, sensitive_features=groups, pos_label="no"
    )
    assert flipped == pytest.approx(30 / 40)


def test_undefined_rate_is_nan_and_left_out_where_fairlearn_counts_zero():
    y_true = np.array([1, 0] * 20 + [0] * 40)  # group "b" has no positive label
    y_pred = np.array([1, 1, 0, 0] * 10 + [1, 0] * 20)
    groups = np.repeat(["a", "b"], 40)
    with pytest.warns(UndefinedMetricWarning, match="true_positive_rate is undefined"):
        ours = true_positive_rate_difference(y_true, y_pred, sensitive_features=groups)
    assert np.isnan(ours)  # one group with a TPR: no difference
    theirs = fairlearn_metrics.true_positive_rate_difference(
        y_true, y_pred, sensitive_features=groups
    )
    assert theirs == pytest.approx(0.5)  # fairlearn: TPR("b") = 0
    with pytest.warns(UndefinedMetricWarning):
        odds = equalized_odds_difference(y_true, y_pred, sensitive_features=groups)
    fpr = false_positive_rate_difference(y_true, y_pred, sensitive_features=groups)
    assert odds == fpr == pytest.approx(0.0)


def test_min_group_size_leaves_groups_out_but_not_of_the_overall_rate():
    rng = np.random.default_rng(0)
    groups = np.repeat(["a", "b", "tiny"], [50, 60, 5])
    y_pred = rng.integers(0, 2, groups.size)
    y_pred[-5:] = 1
    y_true = rng.integers(0, 2, groups.size)
    kept = groups != "tiny"
    expected = fairlearn_metrics.demographic_parity_difference(
        y_true[kept], y_pred[kept], sensitive_features=groups[kept]
    )
    got = demographic_parity_difference(
        y_true, y_pred, sensitive_features=groups, min_group_size=30
    )
    assert got == pytest.approx(expected)
    overall = y_pred.mean()  # with the tiny group
    rates = [y_pred[groups == g].mean() for g in ["a", "b"]]
    got = demographic_parity_difference(
        y_true,
        y_pred,
        sensitive_features=groups,
        method="to_overall",
        min_group_size=30,
    )
    assert got == pytest.approx(max(abs(r - overall) for r in rates))
    with pytest.warns(SmallGroupWarning, match="'tiny'"):
        demographic_parity_difference(y_true, y_pred, sensitive_features=groups)


def test_four_fifths_names_the_groups_and_matches_the_ratio():
    groups = np.repeat(["a", "b", "c"], 40)
    y_pred = np.concatenate([np.r_[np.ones(20), np.zeros(20)]] * 2 + [np.ones(40)])
    y_true = np.zeros(120, dtype=int)
    result = four_fifths(y_true, y_pred.astype(int), sensitive_features=groups)
    assert isinstance(result, FourFifthsResult)
    assert (result.passed, result.lowest_group, result.highest_group) == (
        False,
        "a",
        "c",
    )
    assert result.ratio == pytest.approx(0.5)
    assert result.selection_rates == {"a": 0.5, "b": 0.5, "c": 1.0}
    assert result.ratio == demographic_parity_ratio(
        y_true, y_pred.astype(int), sensitive_features=groups
    )
    lenient = four_fifths(
        y_true, y_pred.astype(int), sensitive_features=groups, threshold=0.5
    )
    assert lenient.passed and lenient.threshold == 0.5


def test_four_fifths_passes_at_exactly_the_threshold_and_when_nobody_is_selected():
    groups = np.repeat(["a", "b"], 50)
    y_pred = np.r_[np.ones(40), np.zeros(10), np.ones(50)].astype(int)
    result = four_fifths(np.zeros(100, int), y_pred, sensitive_features=groups)
    assert result.ratio == pytest.approx(0.8) and result.passed
    nobody = four_fifths(
        np.zeros(100, int), np.zeros(100, int), sensitive_features=groups
    )
    assert nobody.passed and np.isnan(nobody.ratio)


def test_intersections_of_several_columns():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {"sex": rng.choice(["f", "m"], 400), "race": rng.choice(["x", "y"], 400)}
    )
    y_pred = rng.integers(0, 2, 400)
    labels = frame["sex"] + frame["race"]
    rates = pd.Series(y_pred).groupby(labels).mean()
    got = demographic_parity_difference(
        np.zeros(400, int), y_pred, sensitive_features=frame
    )
    assert got == pytest.approx(rates.max() - rates.min())


def test_errors_name_the_argument():
    y = [0, 1] * 20
    groups = ["a"] * 20 + ["b"] * 20
    with pytest.raises(
        ValueError, match=COMPARE_METHOD_ERROR.format(method="pairs")[:30]
    ):
        demographic_parity_difference(y, y, sensitive_features=groups, method="pairs")
    with pytest.raises(ValueError, match=AGG_ERROR.format(agg="max")[:25]):
        equalized_odds_difference(y, y, sensitive_features=groups, agg="max")
    with pytest.raises(ValueError, match="threshold must be a real number"):
        four_fifths(y, y, sensitive_features=groups, threshold=80)
    with pytest.raises(ValueError, match="3 classes|three|classes"):
        demographic_parity_difference(
            [0, 1, 2] * 20, [0, 1, 2] * 20, sensitive_features=groups + ["a"] * 20
        )


def test_huge_weights_give_the_unit_weight_answer():
    y_true, y_pred, sensitive, _ = _case(4)
    n = len(y_true)
    huge = equalized_odds_ratio(
        y_true,
        y_pred,
        sensitive_features=sensitive,
        sample_weight=np.full(n, 1e308),
        min_group_size=1,
    )
    unit = equalized_odds_ratio(
        y_true, y_pred, sensitive_features=sensitive, min_group_size=1
    )
    assert huge == pytest.approx(unit, rel=1e-12)


# -- the functions are ordinary functions (made by factories, _rate_factory) ---------
@pytest.mark.parametrize(
    "metric",
    [skfair_function for skfair_function, _, _ in PAIRS]
    + [
        multiclass_selection_rate_difference,
        multiclass_true_positive_rate_difference,
        multiclass_false_positive_rate_difference,
        multiclass_equalized_odds_difference,
        demographic_parity_gap,
        equal_opportunity_gap,
        predictive_quality_parity_gap,
    ],
    ids=lambda f: f.__name__,
)
def test_each_metric_is_an_ordinary_function_under_its_public_name(metric):
    name = metric.__name__
    assert metric is getattr(skfair.metrics, name)
    assert metric.__qualname__ == name
    assert metric.__module__.startswith("skfair.metrics._")
    assert getattr(sys.modules[metric.__module__], name) is metric
    assert pickle.loads(pickle.dumps(metric)) is metric
    assert metric.__doc__.splitlines()[0].strip() and "<" not in metric.__doc__
    parameters = inspect.signature(metric).parameters
    assert list(parameters)[:3] == ["y_true", "y_pred", "sensitive_features"]
    assert all(p.kind is not p.VAR_KEYWORD for p in parameters.values())
    with pytest.raises(ValueError) as error:  # tracebacks name the metric
        metric([0, 1], [0, 1, 1], sensitive_features=[0, 1])
    assert name in [frame.name for frame in traceback.extract_tb(error.tb)]


# four_fifths's warning used to point one frame above its caller
@pytest.mark.parametrize(
    "metric", [true_positive_rate_difference, equalized_odds_ratio, four_fifths]
)
def test_undefined_rate_warnings_point_at_the_caller(metric):
    y_true = [0, 0, 1, 1, 1, 0]
    y_pred = [1, 0, 1, 0, 1, 1]
    groups = ["a", "a", "b", "b", "c", "c"]
    weights = [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]  # group b weighs nothing
    with pytest.warns(UndefinedMetricWarning) as caught:
        metric(
            y_true,
            y_pred,
            sensitive_features=groups,
            sample_weight=weights,
            min_group_size=1,
        )
    assert {w.filename for w in caught} == {__file__}
