"""Regression group metrics: per-group error and bias, their gaps and intervals.

Every number is checked against a pandas groupby on the same rows (with
frequency weights: on the rows repeated by their weights), every closed-form
interval against scipy's formulas.
"""

import inspect
import itertools
import pickle
import sys
import traceback
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import skfair.metrics
from skfair.metrics import (
    mean_absolute_error_difference,
    mean_residual_difference,
    regression_gap_intervals,
    regression_group_table,
    root_mean_squared_error_difference,
)
from skfair.metrics._regression_stats import FREQUENCY_WEIGHT_ERROR
from skfair.metrics._regression_table import (
    NO_SPREAD_NOTE,
    ONE_SAMPLE_NOTE,
    REFERENCE_NOTE,
)
from skfair.utils import SmallGroupWarning
from skfair.utils._labels import group_label_text

GAPS = {
    "mean_residual": mean_residual_difference,
    "mae": mean_absolute_error_difference,
    "rmse": root_mean_squared_error_difference,
}


def _data(n=300, n_groups=3, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n_groups, n)
    y_true = rng.normal(5.0, 2.0, n)
    y_pred = y_true + rng.standard_t(4, n) * (1 + 0.5 * s) + 0.3 * s
    return y_true, y_pred, s


def _groupby(y_true, y_pred, s, weights=None):
    """Per-group mean residual, MAE, RMSE, mean prediction of the expanded rows."""
    frame = pd.DataFrame({"s": s, "pred": y_pred, "r": np.subtract(y_pred, y_true)})
    if weights is not None:
        frame = frame.loc[frame.index.repeat(weights)]
    frame["abs"], frame["sq"] = frame["r"].abs(), frame["r"] ** 2
    grouped = frame.groupby("s")
    return pd.DataFrame(
        {
            "n": grouped.size(),
            "mean_prediction": grouped["pred"].mean(),
            "mean_residual": grouped["r"].mean(),
            "mae": grouped["abs"].mean(),
            "rmse": np.sqrt(grouped["sq"].mean()),
        }
    )


def _brute_gap(values, agg):
    gaps = [abs(a - b) for a, b in itertools.combinations(values, 2)]
    return max(gaps) if agg == "max" else float(np.mean(gaps))


# --- gaps ----------------------------------------------------------------------


@pytest.mark.parametrize("metric", list(GAPS))
@pytest.mark.parametrize("agg", ["max", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
def test_gaps_equal_groupby(metric, agg, weighted):
    y_true, y_pred, s = _data(n_groups=4)
    weights = np.random.default_rng(1).integers(0, 4, s.shape[0]) if weighted else None
    expected = _brute_gap(_groupby(y_true, y_pred, s, weights)[metric], agg)
    value = GAPS[metric](
        y_true, y_pred, sensitive_features=s, agg=agg, sample_weight=weights
    )
    assert isinstance(value, float)
    assert value == pytest.approx(expected, rel=1e-12)


def test_residual_sign_is_prediction_minus_truth():
    # group a is over-predicted by 2, group b exact: the table says +2
    y_true = np.zeros(60)
    y_pred = np.r_[np.full(30, 2.0), np.zeros(30)]
    s = np.repeat(["a", "b"], 30)
    table = regression_group_table(y_true, y_pred, sensitive_features=s)
    assert table.loc["a", "mean_residual"] == 2.0
    assert mean_residual_difference(y_true, y_pred, sensitive_features=s) == 2.0


def test_marginal_takes_the_worst_attribute():
    y_true, y_pred, s = _data(n=400)
    other = np.random.default_rng(5).integers(0, 2, 400)
    frame = np.column_stack([s, other])
    for metric, gap in GAPS.items():
        expected = max(
            _brute_gap(_groupby(y_true, y_pred, col)[metric], "max")
            for col in (s, other)
        )
        value = gap(y_true, y_pred, sensitive_features=frame, combine="marginal")
        assert value == pytest.approx(expected, rel=1e-12)


def test_many_intersections_equal_groupby():
    rng = np.random.default_rng(3)
    n = 6000
    attrs = np.column_stack(
        [rng.integers(0, 4, n), rng.integers(0, 4, n), rng.integers(0, 3, n)]
    )  # 48 intersectional groups
    y_true = rng.normal(size=n)
    y_pred = y_true + rng.normal(size=n) * (1 + attrs[:, 0])
    keys = [tuple(row) for row in attrs.tolist()]
    brute = _groupby(y_true, y_pred, pd.Series(keys).map(str).to_numpy())
    assert len(brute) == 48
    for metric, gap in GAPS.items():
        value = gap(y_true, y_pred, sensitive_features=attrs)
        assert value == pytest.approx(_brute_gap(brute[metric], "max"), rel=1e-12)
    table = regression_group_table(y_true, y_pred, sensitive_features=attrs)
    assert table.shape[0] == 48
    label = group_label_text((1, 2, 0))
    mask = (attrs == [1, 2, 0]).all(axis=1)
    r = y_pred[mask] - y_true[mask]
    assert table.loc[label, "mae"] == pytest.approx(np.abs(r).mean(), rel=1e-12)
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=attrs, n_resamples=199, random_state=0
    )
    assert (gaps["lower"] <= gaps["gap"]).all() and (gaps["gap"] <= gaps["upper"]).all()


# --- the table -----------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_table_equals_groupby(weighted):
    y_true, y_pred, s = _data()
    weights = np.random.default_rng(2).integers(0, 5, s.shape[0]) if weighted else None
    table = regression_group_table(
        y_true,
        y_pred,
        sensitive_features=s,
        sample_weight=weights,
        quantiles=(0.025, 0.5, 0.9),
    )
    brute = _groupby(y_true, y_pred, s, weights)
    assert table.index.tolist() == ["0", "1", "2"]
    assert table.index.name == "sensitive_features"
    for column in brute:
        np.testing.assert_allclose(table[column], brute[column], rtol=1e-12)
    assert table["n"].dtype == np.int64
    expanded = pd.DataFrame({"s": s, "pred": y_pred})
    if weighted:
        expanded = expanded.loc[expanded.index.repeat(weights)]
    for q, column in [(0.025, "q2.5"), (0.5, "q50"), (0.9, "q90")]:
        expected = expanded.groupby("s")["pred"].quantile(q)
        np.testing.assert_allclose(table[column], expected, rtol=1e-12)


def test_table_intervals_equal_scipy_t():
    y_true, y_pred, s = _data()
    table = regression_group_table(
        y_true, y_pred, sensitive_features=s, confidence_level=0.9
    )
    for g in range(3):
        r = (y_pred - y_true)[s == g]
        row = table.loc[str(g)]
        for name, x in (("mean_residual", r), ("mae", np.abs(r))):
            low, high = stats.t.interval(
                0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x)
            )
            assert row[f"{name}_lower"] == pytest.approx(low, rel=1e-12)
            assert row[f"{name}_upper"] == pytest.approx(high, rel=1e-12)
        # RMSE: the t interval of log(MSE) by the delta method, square-rooted
        sq = r * r
        half = stats.t.isf(0.05, sq.size - 1) * stats.sem(sq) / sq.mean()
        assert row["rmse_lower"] == pytest.approx(
            np.sqrt(sq.mean() * np.exp(-half)), rel=1e-12
        )
        assert row["rmse_upper"] == pytest.approx(
            np.sqrt(sq.mean() * np.exp(half)), rel=1e-12
        )
        assert row["note"] == ""


def test_weighted_intervals_equal_the_expanded_rows():
    y_true, y_pred, s = _data(n=120)
    weights = np.random.default_rng(4).integers(1, 4, 120)
    weighted = regression_group_table(
        y_true, y_pred, sensitive_features=s, sample_weight=weights, reference=0
    )
    rep = np.repeat(np.arange(120), weights)
    expanded = regression_group_table(
        y_true[rep], y_pred[rep], sensitive_features=s[rep], reference=0
    )
    pd.testing.assert_frame_equal(weighted, expanded, rtol=1e-10)


def test_reference_columns_equal_welch():
    y_true, y_pred, s = _data()
    table = regression_group_table(y_true, y_pred, sensitive_features=s, reference=1)
    r = y_pred - y_true
    for g in (0, 2):
        for name, f in (("mean_residual", lambda x: x), ("mae", np.abs)):
            x, ref = f(r[s == g]), f(r[s == 1])
            ci = stats.ttest_ind(x, ref, equal_var=False).confidence_interval(0.95)
            row = table.loc[str(g)]
            assert row[f"{name}_diff"] == pytest.approx(x.mean() - ref.mean())
            assert row[f"{name}_diff_lower"] == pytest.approx(ci.low, rel=1e-9)
            assert row[f"{name}_diff_upper"] == pytest.approx(ci.high, rel=1e-9)
    ref_row = table.loc["1"]
    assert ref_row["mae_diff"] == 0.0 and np.isnan(ref_row["mae_diff_lower"])
    assert ref_row["note"] == REFERENCE_NOTE


def test_reference_by_written_intersection_label():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"sex": rng.choice(["F", "M"], 400), "race": rng.choice(["A", "B"], 400)}
    )
    y_true = rng.normal(size=400)
    y_pred = y_true + rng.normal(size=400)
    by_text = regression_group_table(
        y_true, y_pred, sensitive_features=frame, reference="F & A"
    )
    by_tuple = regression_group_table(
        y_true, y_pred, sensitive_features=frame, reference=("F", "A")
    )
    pd.testing.assert_frame_equal(by_text, by_tuple)
    assert by_text.index.name == "sex & race"
    assert by_text.loc["F & A", "note"] == REFERENCE_NOTE


def test_marginal_table_has_attribute_and_group_levels():
    y_true, y_pred, s = _data()
    frame = pd.DataFrame({"x": s, "y": s % 2})
    table = regression_group_table(
        y_true, y_pred, sensitive_features=frame, combine="marginal"
    )
    assert table.index.names == ["attribute", "group"]
    assert table.index.tolist() == [
        ("x", "0"),
        ("x", "1"),
        ("x", "2"),
        ("y", "0"),
        ("y", "1"),
    ]
    brute = _groupby(y_true, y_pred, s % 2)
    np.testing.assert_allclose(table.loc["y", "rmse"], brute["rmse"], rtol=1e-12)


def test_one_sample_and_constant_groups():
    rng = np.random.default_rng(0)
    y_true = rng.normal(size=62)
    y_pred = y_true + rng.normal(size=62)
    y_true[30:60] = np.arange(30.0)
    y_pred[30:60] = y_true[30:60] + 0.5  # group "c": every residual 0.5
    s = np.array(["a"] * 30 + ["c"] * 30 + ["one"] + ["a"])
    with pytest.warns(SmallGroupWarning, match="'one' \\(1 samples\\)"):
        table = regression_group_table(y_true, y_pred, sensitive_features=s)
    one = table.loc["one"]
    assert one["n"] == 1 and one["note"] == ONE_SAMPLE_NOTE
    assert one["mean_residual"] == pytest.approx(y_pred[60] - y_true[60])
    bounds = one[["mae_lower", "mae_upper", "rmse_lower", "rmse_upper"]]
    assert np.isnan(bounds.to_numpy(dtype=float)).all()
    constant = table.loc["c"]
    assert constant["note"] == NO_SPREAD_NOTE
    assert constant["mean_residual_lower"] == constant["mean_residual_upper"]
    assert constant["rmse_lower"] == pytest.approx(0.5)
    assert table.loc["a", "note"] == ""
    with pytest.warns(SmallGroupWarning):
        gaps = regression_gap_intervals(y_true, y_pred, sensitive_features=s)
    assert gaps["lower"].isna().all() and gaps["upper"].isna().all()
    assert (
        gaps["note"]
        .str.contains("'one' has 1 sample(s), fewer than 10", regex=False)
        .all()
    )
    assert gaps.loc["mae", "gap"] == pytest.approx(
        mean_absolute_error_difference(
            y_true, y_pred, sensitive_features=s, min_group_size=1
        )
    )
    # min_group_size leaves the one-sample group out
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=s, min_group_size=2, method="welch"
    )
    assert gaps["upper"].notna().all() and (gaps["note"] == "").all()


# --- gap intervals -------------------------------------------------------------


def test_two_group_welch_gap_is_the_folded_welch_interval():
    y_true, y_pred, s = _data(n_groups=2)
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=s, method="welch", confidence_level=0.9
    )
    r = y_pred - y_true
    for name, f in (("mean_residual", lambda x: x), ("mae", np.abs)):
        x, y = f(r[s == 0]), f(r[s == 1])
        ci = stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.9)
        low, high = ci.low, ci.high
        folded = (max(low, -high, 0.0), max(abs(low), abs(high)))
        assert gaps.loc[name, "lower"] == pytest.approx(folded[0], rel=1e-9)
        assert gaps.loc[name, "upper"] == pytest.approx(folded[1], rel=1e-9)
        assert gaps.loc[name, "gap"] == pytest.approx(abs(x.mean() - y.mean()))
    assert (gaps["method"] == "welch").all()
    assert gaps.loc["rmse", "gap"] == pytest.approx(
        root_mean_squared_error_difference(y_true, y_pred, sensitive_features=s)
    )


def test_welch_gap_is_bonferroni_over_pairs():
    y_true, y_pred, s = _data(n_groups=3)
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=s, method="welch"
    )
    r = y_pred - y_true
    lows, highs = [], []
    for a, b in itertools.combinations(range(3), 2):
        ci = stats.ttest_ind(r[s == a], r[s == b], equal_var=False)
        ci = ci.confidence_interval(1 - 0.05 / 3)
        lows.append(max(ci.low, -ci.high, 0.0))
        highs.append(max(abs(ci.low), abs(ci.high)))
    assert gaps.loc["mean_residual", "lower"] == pytest.approx(max(lows), rel=1e-9)
    assert gaps.loc["mean_residual", "upper"] == pytest.approx(max(highs), rel=1e-9)


def test_gap_intervals_match_the_gap_functions_and_pairs():
    y_true, y_pred, s = _data(n_groups=4)
    for agg in ("max", "mean"):
        gaps = regression_gap_intervals(
            y_true,
            y_pred,
            sensitive_features=s,
            agg=agg,
            n_resamples=199,
            random_state=0,
        )
        for metric, gap in GAPS.items():
            expected = gap(y_true, y_pred, sensitive_features=s, agg=agg)
            assert gaps.loc[metric, "gap"] == pytest.approx(expected, rel=1e-12)
            assert gaps.loc[metric, "lower"] <= expected <= gaps.loc[metric, "upper"]
    brute = _groupby(y_true, y_pred, s)["mae"]
    a, b = max(
        itertools.combinations(range(4), 2),
        key=lambda p: abs(brute[p[0]] - brute[p[1]]),
    )
    assert (gaps.loc["mae", "group_a"], gaps.loc["mae", "group_b"]) == (None, None)
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=s, n_resamples=199
    )
    assert (gaps.loc["mae", "group_a"], gaps.loc["mae", "group_b"]) == (str(a), str(b))


def test_reference_gap_compares_every_group_with_the_reference():
    y_true, y_pred, s = _data(n_groups=4)
    brute = _groupby(y_true, y_pred, s)
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=s, reference=2, method="welch"
    )
    for metric in GAPS:
        diffs = (brute[metric].drop(2) - brute[metric][2]).abs()
        assert gaps.loc[metric, "gap"] == pytest.approx(diffs.max(), rel=1e-12)
        assert gaps.loc[metric, "group_b"] == "2"


def test_bootstrap_is_seeded_and_weights_resample_the_expanded_rows():
    y_true, y_pred, s = _data(n=200, n_groups=2)
    weights = np.random.default_rng(6).integers(1, 3, 200)
    kwargs = {"sensitive_features": s, "sample_weight": weights, "n_resamples": 299}
    first = regression_gap_intervals(y_true, y_pred, random_state=1, **kwargs)
    again = regression_gap_intervals(y_true, y_pred, random_state=1, **kwargs)
    pd.testing.assert_frame_equal(first, again)
    # a bootstrap of the expanded rows has the same distribution: with many
    # resamples the bounds agree to Monte Carlo error
    rep = np.repeat(np.arange(200), weights)
    expanded = regression_gap_intervals(
        y_true[rep],
        y_pred[rep],
        sensitive_features=s[rep],
        n_resamples=4000,
        random_state=2,
    )
    weighted = regression_gap_intervals(
        y_true,
        y_pred,
        sensitive_features=s,
        sample_weight=weights,
        n_resamples=4000,
        random_state=3,
    )
    width = expanded["upper"] - expanded["lower"]
    np.testing.assert_allclose(
        weighted["upper"], expanded["upper"], atol=0.05 * width.max()
    )
    welch = regression_gap_intervals(
        y_true[rep], y_pred[rep], sensitive_features=s[rep], method="welch"
    )
    np.testing.assert_allclose(expanded["upper"], welch["upper"], rtol=0.1)


def test_identical_groups_gap_interval_reaches_zero():
    rng = np.random.default_rng(0)
    y_true = rng.normal(size=2000)
    y_pred = y_true + rng.normal(size=2000)
    s = np.tile([0, 1], 1000)
    y_true[s == 1], y_pred[s == 1] = y_true[s == 0], y_pred[s == 0]  # same rows
    for method in ("bootstrap", "welch"):
        gaps = regression_gap_intervals(
            y_true, y_pred, sensitive_features=s, method=method, random_state=0
        )
        assert (gaps["gap"] == 0).all() and (gaps["lower"] == 0).all()
        assert (gaps["upper"] > 0).all()


# --- inputs --------------------------------------------------------------------


def test_frames_of_any_library_give_the_numpy_answer(constructor):
    y_true, y_pred, s = _data()
    labels = np.array(["x", "y", "z"])[s]
    frame = constructor({"y_true": y_true, "y_pred": y_pred, "g": labels, "w": s + 1})
    expected = regression_group_table(
        y_true, y_pred, sensitive_features=labels, sample_weight=s + 1
    )
    table = regression_group_table(
        frame["y_true"],
        frame["y_pred"],
        sensitive_features=frame["g"],
        sample_weight=frame["w"],
    )
    pd.testing.assert_frame_equal(table.rename_axis(None), expected.rename_axis(None))
    for metric, gap in GAPS.items():
        assert gap(
            frame["y_true"], frame["y_pred"], sensitive_features=frame[["g"]]
        ) == pytest.approx(expected[metric].max() - expected[metric].min())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y_true": [1.0, np.nan, 2.0, 3.0]}, "y_true contains NaN"),
        ({"y_pred": [1.0, np.inf, 2.0, 3.0]}, "y_pred contains infinity"),
        ({"y_pred": [1.0, 2.0, 3.0]}, "y_true has 4 and y_pred has 3"),
        ({"sensitive_features": ["a"] * 4}, "at least two groups"),
        ({"sensitive_features": ["a", None, "b", "b"]}, "sensitive"),
        ({"sample_weight": [1, 1, -1, 1]}, "negative weights"),
        ({"sample_weight": [0, 0, 1, 1]}, "total sample weight of 0"),
    ],
)
def test_invalid_inputs_are_named(kwargs, match):
    args = {
        "y_true": [1.0, 2.0, 3.0, 4.0],
        "y_pred": [1.5, 2.0, 3.5, 4.0],
        "sensitive_features": ["a", "a", "b", "b"],
        "min_group_size": 1,
    }
    args.update(kwargs)
    y_true, y_pred = args.pop("y_true"), args.pop("y_pred")
    for function in [*GAPS.values(), regression_group_table, regression_gap_intervals]:
        with pytest.raises(ValueError, match=match):
            function(y_true, y_pred, **args)


def test_argument_errors():
    y_true, y_pred, s = _data()
    with pytest.raises(ValueError, match="agg must be 'max' or 'mean'"):
        mean_residual_difference(y_true, y_pred, sensitive_features=s, agg="worst")
    with pytest.raises(ValueError, match="quantiles must be"):
        regression_group_table(y_true, y_pred, sensitive_features=s, quantiles=[1.5])
    with pytest.raises(ValueError, match="reference='q' is not a group"):
        regression_group_table(y_true, y_pred, sensitive_features=s, reference="q")
    with pytest.raises(ValueError, match="method must be 'bootstrap' or 'welch'"):
        regression_gap_intervals(y_true, y_pred, sensitive_features=s, method="x")
    with pytest.raises(ValueError, match="confidence_level"):
        regression_gap_intervals(
            y_true, y_pred, sensitive_features=s, confidence_level=95
        )
    with pytest.raises(ValueError, match="combine must be"):
        regression_group_table(y_true, y_pred, sensitive_features=s, combine="x")


def test_non_integer_weights_need_confidence_level_none():
    y_true, y_pred, s = _data()
    w = np.full(300, 0.5)
    message = FREQUENCY_WEIGHT_ERROR.format(value=0.5, position=0)
    with pytest.raises(
        ValueError, match=message.split(";")[0].replace("(", "\\(").replace(")", "\\)")
    ):
        regression_group_table(y_true, y_pred, sensitive_features=s, sample_weight=w)
    with pytest.raises(ValueError, match="whole numbers"):
        regression_gap_intervals(y_true, y_pred, sensitive_features=s, sample_weight=w)
    table = regression_group_table(
        y_true, y_pred, sensitive_features=s, sample_weight=w, confidence_level=None
    )
    assert "note" not in table and "mae_lower" not in table
    unweighted = regression_group_table(
        y_true, y_pred, sensitive_features=s, confidence_level=None
    )
    # equal weights: the same means and quantiles (n halves)
    np.testing.assert_allclose(table["mae"], unweighted["mae"], rtol=1e-12)
    np.testing.assert_allclose(table["n"], unweighted["n"] / 2)
    # the gaps accept any weights
    assert mean_absolute_error_difference(
        y_true, y_pred, sensitive_features=s, sample_weight=w
    ) == pytest.approx(
        mean_absolute_error_difference(y_true, y_pred, sensitive_features=s)
    )


@pytest.mark.parametrize("function", [regression_group_table, regression_gap_intervals])
def test_whole_weights_are_checked_on_every_compared_row(function):
    # The check read the first grouping's kept rows only: a fractional weight
    # in a row that min_group_size left out of attribute A but that B compares
    # reached B's intervals, and a position was counted among the kept rows.
    y_true, y_pred, s = _data(n=120)
    a = np.where(np.arange(120) < 5, "tiny", np.where(s == 0, "x", "y"))
    frame = pd.DataFrame({"A": a, "B": s})
    w = np.ones(120)
    w[3] = 0.5  # in A's left-out group, compared by B
    with pytest.raises(ValueError) as excinfo:
        function(
            y_true,
            y_pred,
            sensitive_features=frame,
            combine="marginal",
            min_group_size=10,
            sample_weight=w,
        )
    assert str(excinfo.value) == FREQUENCY_WEIGHT_ERROR.format(value=0.5, position=3)
    w[3], w[7] = 1.0, 2.5  # the position is the row's in the input
    with pytest.raises(ValueError) as excinfo:
        function(
            y_true, y_pred, sensitive_features=a, min_group_size=10, sample_weight=w
        )
    assert str(excinfo.value) == FREQUENCY_WEIGHT_ERROR.format(value=2.5, position=7)
    w[7], w[2] = 1.0, 0.5  # a row no grouping compares may weigh anything
    function(y_true, y_pred, sensitive_features=a, min_group_size=10, sample_weight=w)


def test_small_group_warning_and_min_group_size():
    y_true, y_pred, s = _data(n=90)
    s = s.copy()
    s[:5] = 7
    with pytest.warns(SmallGroupWarning):
        mean_residual_difference(y_true, y_pred, sensitive_features=s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = regression_group_table(
            y_true, y_pred, sensitive_features=s, min_group_size=6
        )
    assert "7" not in table.index


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
@pytest.mark.parametrize("method", ["welch", "bootstrap"])
def test_a_gap_with_a_group_under_ten_has_no_interval(method):
    # a group of 2 made the 95 % interval of the gap cover only 0.78-0.90:
    # its spread is too uncertain, so the interval is undefined, with a note
    rng = np.random.default_rng(0)
    y_true, y_pred = np.zeros(200), rng.normal(size=200)
    groups = np.r_[np.zeros(198), np.ones(2)]
    gaps = regression_gap_intervals(
        y_true, y_pred, sensitive_features=groups, method=method, random_state=0
    )
    assert gaps["lower"].isna().all() and gaps["upper"].isna().all()
    assert (
        gaps["note"].str.contains("has 2 sample(s), fewer than 10", regex=False).all()
    )
    kept = regression_gap_intervals(
        y_true,
        y_pred,
        sensitive_features=np.r_[np.zeros(190), np.ones(10)],
        method=method,
        random_state=0,
    )
    assert kept["lower"].notna().all() and (kept["note"] == "").all()


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_a_difference_to_the_reference_with_a_group_under_ten_has_no_interval():
    rng = np.random.default_rng(0)
    y_true, y_pred = np.zeros(200), rng.normal(size=200)
    groups = np.r_[np.zeros(198), np.ones(2)]
    table = regression_group_table(
        y_true, y_pred, sensitive_features=groups, reference=0.0
    )
    assert np.isnan(table.loc["1.0", "mae_diff_lower"])
    assert (
        table.loc["1.0", "note"]
        == "fewer than 10 samples: no interval of the difference"
    )
    assert table.loc["1.0", "mae_lower"] >= 0.0  # an absolute error is never negative


# -- the three gaps are one factory's functions (_regression._gap_function) ----------
@pytest.mark.parametrize("metric", list(GAPS.values()), ids=lambda f: f.__name__)
def test_each_gap_is_an_ordinary_function_under_its_public_name(metric):
    name = metric.__name__
    assert metric is getattr(skfair.metrics, name)
    assert metric.__qualname__ == metric.__code__.co_name == name
    assert getattr(sys.modules[metric.__module__], name) is metric
    assert pickle.loads(pickle.dumps(metric)) is metric
    assert metric.__doc__.startswith("Largest gap in ")
    assert str(inspect.signature(metric)) == (
        "(y_true, y_pred, *, sensitive_features, agg='max', "
        "combine='intersection', sample_weight=None, min_group_size=None)"
    )
    with pytest.raises(ValueError) as error:  # tracebacks name the metric
        metric([0.0, 1.0], [0.0, 1.0, 1.0], sensitive_features=[0, 1])
    assert name in [frame.name for frame in traceback.extract_tb(error.tb)]
    with pytest.warns(SmallGroupWarning) as caught:  # points at this file
        metric(
            [0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 2.0, 2.0], sensitive_features=[0, 0, 1, 1]
        )
    assert caught[0].filename == __file__
