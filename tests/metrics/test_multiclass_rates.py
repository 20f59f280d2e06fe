"""Multiclass rate metrics: per class, the binary metric of each one-vs-rest indicator.

Oracles: fairlearn's binary metrics and skfair's own on each indicator
``y == k``, and a pandas crosstab brute force (every pair of groups
enumerated) for the aggregations over pairs, classes and attributes.
"""

import doctest
import itertools
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from skfair.metrics import (
    MulticlassRateResult,
    demographic_parity_difference,
    equalized_odds_difference,
    false_positive_rate_difference,
    make_rate_scorer,
    multiclass_equalized_odds_difference,
    multiclass_false_positive_rate_difference,
    multiclass_rate_details,
    multiclass_rate_table,
    multiclass_selection_rate_difference,
    multiclass_true_positive_rate_difference,
    true_positive_rate_difference,
)
from skfair.metrics._base import AGG_ERROR
from skfair.metrics._multiclass import CLASS_AGG_ERROR
from skfair.metrics._multiclass_counts import (
    LABELS_ABSENT_ERROR,
    LABELS_ERROR,
    NOT_HARD_LABELS_ERROR,
)
from skfair.metrics._multiclass_rates import RATE_ERROR
from skfair.metrics._multiclass_table import REFERENCE_ERROR
from skfair.model_selection import fairest_within
from skfair.utils import SmallGroupWarning
from skfair.utils._validation import LABEL_NAN_ERROR

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")

CLASSES = ["High", "Low", "Medium"]
PUBLIC = {  # rate of multiclass_rate_details -> the public metric
    "selection_rate": multiclass_selection_rate_difference,
    "true_positive_rate": multiclass_true_positive_rate_difference,
    "false_positive_rate": multiclass_false_positive_rate_difference,
    "equalized_odds": multiclass_equalized_odds_difference,
}
BINARY = {  # rate -> (skfair binary, fairlearn binary)
    "selection_rate": (
        demographic_parity_difference,
        fairlearn_metrics.demographic_parity_difference,
    ),
    "true_positive_rate": (
        true_positive_rate_difference,
        fairlearn_metrics.true_positive_rate_difference,
    ),
    "false_positive_rate": (
        false_positive_rate_difference,
        fairlearn_metrics.false_positive_rate_difference,
    ),
    "equalized_odds": (
        equalized_odds_difference,
        fairlearn_metrics.equalized_odds_difference,
    ),
}


def _case(seed, n_classes=3, n_groups=3, complete=True):
    """String labels, groups and weights; with ``complete`` every group holds
    every class among its true labels and some sample of another class, so
    every one-vs-rest rate is defined (fairlearn counts undefined ones as 0).
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(80, 300))
    classes = np.array(CLASSES + ["Extreme", "None"])[:n_classes]
    groups = rng.choice([f"g{k}" for k in range(n_groups)], n)
    y_true = rng.choice(classes, n, p=rng.dirichlet(np.ones(n_classes)))
    y_pred = np.where(rng.random(n) < 0.6, y_true, rng.choice(classes, n))
    if complete:
        for g in np.unique(groups):
            rows = np.flatnonzero(groups == g)[: n_classes + 1]
            y_true[rows] = np.append(classes, classes[0])[: rows.size]
    weights = rng.uniform(0.1, 3.0, n)
    return y_true, y_pred, groups, weights


def _crosstab_rates(y_true, y_pred, groups, classes, weights=None):
    """{rate: DataFrame of groups x classes}, from a pandas crosstab.

    ``classes`` holds every label of ``y_true`` and ``y_pred``.
    """
    weights = np.ones(len(y_true)) if weights is None else np.asarray(weights)
    table = pd.crosstab(
        [np.asarray(groups), np.asarray(y_true)],
        np.asarray(y_pred),
        values=weights,
        aggfunc="sum",
    ).fillna(0.0)
    rates = {name: {} for name in ("selection_rate", "tpr", "fpr")}
    for g in table.index.get_level_values(0).unique():
        cm = table.loc[g].reindex(index=classes, columns=classes, fill_value=0.0)
        total = cm.to_numpy().sum()
        for k in classes:
            tp, predicted, true = cm.loc[k, k], cm[k].sum(), cm.loc[k].sum()
            negatives = cm.drop(index=k).to_numpy().sum()
            rates["selection_rate"].setdefault(k, {})[g] = predicted / total
            rates["tpr"].setdefault(k, {})[g] = tp / true if true > 0 else np.nan
            rates["fpr"].setdefault(k, {})[g] = (
                (predicted - tp) / negatives if negatives > 0 else np.nan
            )
    return {name: pd.DataFrame(v)[list(classes)] for name, v in rates.items()}


def _pair_gap(rates, agg):
    """max or mean over every pair of defined groups of |r_a - r_b|."""
    values = [v for v in rates if not np.isnan(v)]
    gaps = [abs(a - b) for a, b in itertools.combinations(values, 2)]
    if not gaps:
        return np.nan
    return max(gaps) if agg == "max" else float(np.mean(gaps))


def _brute(rate, tables, classes, agg, class_agg):
    """Per-class gaps and their ``class_agg`` from :func:`_crosstab_rates`."""
    names = {
        "selection_rate": ["selection_rate"],
        "true_positive_rate": ["tpr"],
        "false_positive_rate": ["fpr"],
        "equalized_odds": ["tpr", "fpr"],
    }[rate]
    per_class = np.array(
        [
            np.nanmax([_pair_gap(tables[n][k].to_numpy(), agg) for n in names])
            if not all(np.isnan(_pair_gap(tables[n][k].to_numpy(), agg)) for n in names)
            else np.nan
            for k in classes
        ]
    )
    if np.isnan(per_class).all():
        return per_class, np.nan
    reduce = np.nanmax if class_agg == "max" else np.nanmean
    return per_class, float(reduce(per_class))


def _brute_of(rate, y_true, y_pred, groups, classes, weights, agg, class_agg):
    tables = _crosstab_rates(y_true, y_pred, groups, classes, weights)
    return _brute(rate, tables, classes, agg, class_agg)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", SmallGroupWarning)
        return function(*args, **kwargs)


# -- equal to the binary metrics of each indicator ---------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rate", list(PUBLIC))
def test_per_class_equals_fairlearn_and_skfair_binary(seed, rate):
    y_true, y_pred, groups, weights = _case(seed, n_classes=3 + seed % 3)
    weights = weights if seed % 2 else None
    result = multiclass_rate_details(
        y_true,
        y_pred,
        sensitive_features=groups,
        rate=rate,
        sample_weight=weights,
        min_group_size=1,
    )
    ours_binary, fairlearn_binary = BINARY[rate]
    for k in result.classes:
        truth, pred = (y_true == k).astype(int), (y_pred == k).astype(int)
        expected = fairlearn_binary(
            truth, pred, sensitive_features=groups, sample_weight=weights
        )
        binary = ours_binary(
            truth,
            pred,
            sensitive_features=groups,
            sample_weight=weights,
            min_group_size=1,
        )
        got = result.by_class.loc[k, "difference"]
        assert got == pytest.approx(float(expected), abs=1e-12)
        assert got == pytest.approx(binary, abs=1e-12)
    assert result.value == pytest.approx(result.by_class["difference"].max())
    assert (
        PUBLIC[rate](
            y_true,
            y_pred,
            sensitive_features=groups,
            sample_weight=weights,
            min_group_size=1,
        )
        == result.value
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rate", list(PUBLIC))
def test_equal_to_crosstab_brute_force_with_undefined_rates(seed, rate):
    # incomplete groups: some have no member of a class (TPR undefined there)
    y_true, y_pred, groups, weights = _case(seed, n_groups=5, complete=False)
    y_true[groups == "g0"] = "Low"  # g0: no "High" nor "Medium", no FPR of "Low"
    weights = weights if seed % 2 else None
    classes = sorted(set(y_true) | set(y_pred))
    tables = _crosstab_rates(y_true, y_pred, groups, classes, weights)
    for agg, class_agg in itertools.product(["max", "mean"], ["max", "mean"]):
        per_class, expected = _brute(rate, tables, classes, agg, class_agg)
        result = _quiet(
            multiclass_rate_details,
            y_true,
            y_pred,
            sensitive_features=groups,
            rate=rate,
            agg=agg,
            class_agg=class_agg,
            sample_weight=weights,
            min_group_size=1,
        )
        np.testing.assert_allclose(result.by_class["difference"], per_class, atol=1e-12)
        assert result.value == pytest.approx(expected, abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from("xyz")),
        min_size=4,
        max_size=40,
    ),
    agg=st.sampled_from(["max", "mean"]),
    class_agg=st.sampled_from(["max", "mean"]),
    seed=st.integers(0, 2**16),
)
def test_brute_force_and_sample_order_on_small_inputs(rows, agg, class_agg, seed):
    y_true, y_pred, groups = (np.array(column) for column in zip(*rows))
    if len(set(groups)) < 2:
        groups[0], groups[-1] = "x", "y"
    classes = sorted(set(y_true) | set(y_pred))
    tables = _crosstab_rates(y_true, y_pred, groups, classes)
    order = np.random.default_rng(seed).permutation(len(rows))
    for rate in PUBLIC:
        per_class, expected = _brute(rate, tables, classes, agg, class_agg)
        options = {"rate": rate, "agg": agg, "class_agg": class_agg}
        result = _quiet(
            multiclass_rate_details,
            y_true,
            y_pred,
            sensitive_features=groups,
            min_group_size=1,
            **options,
        )
        np.testing.assert_allclose(result.by_class["difference"], per_class, atol=1e-12)
        np.testing.assert_allclose(result.value, expected, atol=1e-12)
        shuffled = _quiet(
            multiclass_rate_details,
            y_true[order],
            y_pred[order],
            sensitive_features=groups[order],
            min_group_size=1,
            **options,
        )
        np.testing.assert_allclose(shuffled.value, result.value, atol=1e-12)


def test_class_agg_max_is_worst_class_and_mean_is_macro_average():
    y_true, y_pred, groups, _ = _case(3, n_classes=4)
    common = {"sensitive_features": groups, "min_group_size": 1}
    worst = multiclass_rate_details(y_true, y_pred, **common)
    macro = multiclass_rate_details(y_true, y_pred, class_agg="mean", **common)
    gaps = worst.by_class["difference"]
    assert worst.value == gaps.max() > macro.value == pytest.approx(gaps.mean())
    assert worst.worst_class == gaps.idxmax() == macro.worst_class
    assert (macro.by_class == worst.by_class).all().all()  # class_agg: only the value


def test_two_classes_equal_the_binary_metric_for_either_class_agg():
    y_true, y_pred, groups, _ = _case(5, n_classes=2)
    binary = demographic_parity_difference(
        y_true, y_pred, sensitive_features=groups, pos_label="High", min_group_size=1
    )
    for class_agg in ("max", "mean"):
        assert multiclass_selection_rate_difference(
            y_true,
            y_pred,
            sensitive_features=groups,
            class_agg=class_agg,
            min_group_size=1,
        ) == pytest.approx(binary, abs=1e-15)


def test_details_name_the_worst_pair_and_the_rates():
    y_true = np.array(["Low"] * 6 + ["High"] * 6)
    y_pred = np.array(["Low"] * 4 + ["High"] * 2 + ["High"] * 6)
    groups = np.array(["a", "b", "c"] * 4)
    result = multiclass_rate_details(
        y_true,
        y_pred,
        sensitive_features=groups,
        rate="equalized_odds",
        min_group_size=1,
    )
    assert isinstance(result, MulticlassRateResult)
    # Low: TPR by group a 1, b 1/2, c 1/2; FPR 0 everywhere
    row = result.by_class.loc["Low"]
    assert row["difference"] == pytest.approx(0.5)
    assert (row["rate"], row["lowest_group"], row["highest_group"]) == (
        "true_positive_rate",
        "b",
        "a",
    )
    assert (row["lowest"], row["highest"]) == (0.5, 1.0)
    table = result.by_group["sensitive_features"]
    assert table.loc["b", ("true_positive_rate", "Low")] == 0.5
    assert table.loc["a", ("false_positive_rate", "High")] == 0.0


# -- labels ------------------------------------------------------------------------
def test_labels_fix_order_add_unseen_classes_and_leave_classes_out():
    y_true, y_pred, groups, _ = _case(1)
    base = multiclass_rate_details(
        y_true, y_pred, sensitive_features=groups, min_group_size=1
    )
    assert base.classes == tuple(sorted(CLASSES))
    result = multiclass_rate_details(
        y_true,
        y_pred,
        sensitive_features=groups,
        min_group_size=1,
        labels=["Medium", "Extreme", "Low", "High"],
    )
    assert result.classes == ("Medium", "Extreme", "Low", "High")
    # a class nobody is given has rate 0 everywhere, so a gap of 0
    assert result.by_class.loc["Extreme", "difference"] == 0.0
    assert (result.by_group["sensitive_features"]["Extreme"] == 0).all()
    pd.testing.assert_series_equal(
        result.by_class["difference"].drop("Extreme"),
        base.by_class["difference"].reindex(["Medium", "Low", "High"]),
    )
    # its TPR is undefined in every group: the class takes no part, with a warning
    with pytest.warns(UndefinedMetricWarning) as caught:
        tpr = multiclass_rate_details(
            y_true,
            y_pred,
            sensitive_features=groups,
            min_group_size=1,
            labels=["Extreme", "Low"],
            rate="true_positive_rate",
        )
    messages = " ".join(str(w.message) for w in caught)
    assert "no sample with true label 'Extreme'" in messages
    assert "undefined for 1 class(es) ('Extreme')" in messages
    assert np.isnan(tpr.by_class.loc["Extreme", "difference"])
    assert tpr.value == tpr.by_class.loc["Low", "difference"]
    # a subset of the labels: the rest are "not k" (FPR denominators keep them)
    low = (y_true == "Low").astype(int), (y_pred == "Low").astype(int)
    assert tpr.value == pytest.approx(
        true_positive_rate_difference(*low, sensitive_features=groups)
    )


def test_integer_and_whole_float_labels_agree_with_strings():
    y_true, y_pred, groups, _ = _case(2)
    codes = {c: i for i, c in enumerate(CLASSES)}
    as_int = [np.vectorize(codes.get)(y) for y in (y_true, y_pred)]
    expected = multiclass_equalized_odds_difference(
        y_true, y_pred, sensitive_features=groups, min_group_size=1
    )
    for cast in (np.int64, np.float64, np.int8):
        got = multiclass_equalized_odds_difference(
            as_int[0].astype(cast),
            as_int[1].astype(cast),
            sensitive_features=groups,
            min_group_size=1,
        )
        assert got == expected


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"class_agg": "macro"}, ValueError, CLASS_AGG_ERROR.format(class_agg="macro")),
        ({"agg": "worst_case"}, ValueError, AGG_ERROR.format(agg="worst_case")),
        ({"labels": []}, ValueError, LABELS_ERROR.format(labels=[])),
        ({"labels": ["a", "a"]}, ValueError, LABELS_ERROR.format(labels=["a", "a"])),
        ({"labels": "abc"}, ValueError, LABELS_ERROR.format(labels="abc")),
        ({"combine": "union"}, ValueError, "combine must be"),
        (
            {"labels": [1, 2]},
            ValueError,
            LABELS_ABSENT_ERROR.format(labels=[1, 2], observed=["a", "b"]),
        ),
    ],
)
def test_bad_options_raise_named_errors(kwargs, error, match):
    with pytest.raises(error, match=f"^{_escape(match)}"):
        multiclass_selection_rate_difference(
            ["a", "b"] * 20,
            ["a", "b"] * 20,
            sensitive_features=[0, 1] * 20,
            **kwargs,
        )


def _escape(text):
    return re.escape(text)


def test_bad_inputs_raise_named_errors():
    groups = [0, 1] * 20
    with pytest.raises(
        ValueError,
        match=_escape(RATE_ERROR.format(names=sorted(PUBLIC), rate="precision")),
    ):
        multiclass_rate_details(
            [0] * 40, [0] * 40, sensitive_features=groups, rate="precision"
        )
    scores = np.linspace(0.05, 0.95, 40)
    expected = NOT_HARD_LABELS_ERROR.format(name="y_pred", example=0.05)
    with pytest.raises(ValueError, match=_escape(expected)):
        multiclass_selection_rate_difference(
            [0] * 40, scores, sensitive_features=groups
        )
    with pytest.raises(
        ValueError, match=_escape(LABEL_NAN_ERROR.format(name="y_true"))
    ):
        multiclass_selection_rate_difference(
            ["a", None] * 20, ["a"] * 40, sensitive_features=groups
        )
    with pytest.raises(ValueError, match="y_pred must be 1-dimensional"):
        multiclass_selection_rate_difference(
            [0] * 40, np.full((40, 3), 1 / 3), sensitive_features=groups
        )
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        multiclass_selection_rate_difference(
            [0] * 39, [0] * 40, sensitive_features=groups
        )


# -- weights -------------------------------------------------------------------------
@pytest.mark.parametrize("rate", list(PUBLIC))
def test_integer_weights_equal_repeated_rows(rate):
    y_true, y_pred, groups, _ = _case(4)
    counts = np.random.default_rng(4).integers(0, 4, len(y_true))
    counts[:3] = 1  # keep every group
    weighted = multiclass_rate_details(
        y_true,
        y_pred,
        sensitive_features=groups,
        rate=rate,
        sample_weight=counts,
        min_group_size=1,
    )
    repeated = multiclass_rate_details(
        np.repeat(y_true, counts),
        np.repeat(y_pred, counts),
        sensitive_features=np.repeat(groups, counts),
        rate=rate,
        min_group_size=1,
    )
    np.testing.assert_allclose(
        weighted.by_class["difference"], repeated.by_class["difference"], atol=1e-12
    )
    # weights are scale-free, even near the float64 maximum
    huge = multiclass_rate_details(
        y_true,
        y_pred,
        sensitive_features=groups,
        rate=rate,
        sample_weight=counts * 1e300,
        min_group_size=1,
    )
    assert huge.value == pytest.approx(weighted.value, abs=1e-12)


# -- messy groupings -----------------------------------------------------------------
def test_one_person_group_and_min_group_size():
    y_true, y_pred, groups, _ = _case(6)
    groups = groups.astype(object)
    groups[0] = "alone"
    with pytest.warns(SmallGroupWarning, match="'alone' \\(1 samples\\)"):
        multiclass_selection_rate_difference(y_true, y_pred, sensitive_features=groups)
    with_alone = multiclass_rate_details(
        y_true, y_pred, sensitive_features=groups, min_group_size=1
    )
    rates = with_alone.by_group["sensitive_features"].loc["alone"]
    assert rates[y_pred[0]] == 1.0 and rates.sum() == 1.0
    without = multiclass_rate_details(
        y_true, y_pred, sensitive_features=groups, min_group_size=2
    )
    assert "alone" not in without.by_group["sensitive_features"].index
    _, expected = _brute_of(
        "selection_rate",
        y_true[1:],
        y_pred[1:],
        groups[1:],
        without.classes,
        None,
        "max",
        "max",
    )
    assert without.value == pytest.approx(expected)


def test_undefined_rate_warning_names_group_and_class_and_points_at_caller():
    y_true = np.array(["A"] * 30 + ["B"] * 15 + ["A"] * 15)
    y_pred = np.array(["A", "B"] * 30)
    groups = np.repeat(["x", "y"], 30)
    with pytest.warns(UndefinedMetricWarning) as caught:
        value = multiclass_true_positive_rate_difference(
            y_true, y_pred, sensitive_features=groups
        )
    assert [w.filename for w in caught] == [__file__] * len(caught)
    assert "true_positive_rate of class 'B' is undefined for 1 group(s) ('x')" in str(
        caught[0].message
    )
    # B: only group y has a TPR, so B's gap is undefined; A's is |1/2 - 8/15|
    assert value == pytest.approx(abs(15 / 30 - 8 / 15))


def test_group_of_zero_weight_warns_once_for_the_selection_rate():
    y_true, y_pred, groups, weights = _case(12, n_groups=3)
    weights[groups == "g2"] = 0.0
    with pytest.warns(UndefinedMetricWarning) as caught:
        value = multiclass_selection_rate_difference(
            y_true,
            y_pred,
            sensitive_features=groups,
            sample_weight=weights,
            min_group_size=1,
        )
    messages = [str(w.message) for w in caught]
    assert messages == [
        "selection_rate is undefined for 1 group(s) ('g2'): no sample with any "
        "label, so the rate has no denominator; their value is NaN and they take "
        "no part in a difference or ratio."
    ]
    kept = groups != "g2"
    assert value == multiclass_selection_rate_difference(
        y_true[kept],
        y_pred[kept],
        sensitive_features=groups[kept],
        sample_weight=weights[kept],
        min_group_size=1,
    )


def test_forty_eight_intersections_and_marginal():
    rng = np.random.default_rng(7)
    n = 2000
    frame = pd.DataFrame(
        {
            "race": rng.choice(list("abcd"), n),
            "sex": rng.choice(["f", "m", "x", "u"], n),
            "age": rng.choice(["young", "mid", "old"], n),
        }
    )
    y_true = rng.choice(CLASSES, n)
    y_pred = np.where(rng.random(n) < 0.5, y_true, rng.choice(CLASSES, n))
    cells = frame.astype(str).agg("|".join, axis=1).to_numpy()
    assert len(set(cells)) == 48
    for agg in ("max", "mean"):
        result = _quiet(
            multiclass_rate_details,
            y_true,
            y_pred,
            sensitive_features=frame,
            agg=agg,
            rate="equalized_odds",
        )
        per_class, value = _brute_of(
            "equalized_odds", y_true, y_pred, cells, result.classes, None, agg, "max"
        )
        np.testing.assert_allclose(result.by_class["difference"], per_class, atol=1e-12)
        assert result.value == pytest.approx(value, abs=1e-12)
        assert result.by_group["race & sex & age"].index.names == ["race", "sex", "age"]
    marginal = multiclass_rate_details(
        y_true, y_pred, sensitive_features=frame, combine="marginal"
    )
    expected = [
        _brute_of(
            "selection_rate",
            y_true,
            y_pred,
            frame[c],
            marginal.classes,
            None,
            "max",
            "max",
        )[0]
        for c in frame.columns
    ]
    np.testing.assert_allclose(
        marginal.by_class["difference"], np.max(expected, axis=0), atol=1e-12
    )
    worst = np.argmax(expected, axis=0)
    assert marginal.by_class["grouping"].tolist() == [frame.columns[w] for w in worst]
    assert set(marginal.by_group) == {"race", "sex", "age"}


def test_frames_of_any_library_give_the_numpy_answer(constructor):
    y_true, y_pred, groups, weights = _case(8)
    sex = np.where(np.arange(len(groups)) % 2, "f", "m")
    expected = multiclass_rate_details(
        y_true,
        y_pred,
        sensitive_features=np.column_stack([groups, sex]),
        sample_weight=weights,
        min_group_size=1,
        rate="equalized_odds",
    )
    frame = constructor(
        {"group": groups, "sex": sex, "y_true": y_true, "y_pred": y_pred, "w": weights}
    )
    got = multiclass_rate_details(
        frame["y_true"],
        frame["y_pred"],
        sensitive_features=frame[["group", "sex"]],
        sample_weight=frame["w"],
        min_group_size=1,
        rate="equalized_odds",
    )
    assert got.value == expected.value
    pd.testing.assert_series_equal(
        got.by_class["difference"], expected.by_class["difference"]
    )
    table = multiclass_rate_table(
        frame["y_true"],
        frame["y_pred"],
        sensitive_features=frame["group"],
        min_group_size=1,
    )
    assert table.index.name == "group"


# -- the table -----------------------------------------------------------------------
def test_table_equals_crosstab_and_wilson_definition():
    y_true, y_pred, groups, _ = _case(9, n_groups=4)
    y_true[groups == "g3"] = "Low"  # no High/Medium in g3: their TPR undefined
    with pytest.warns(UndefinedMetricWarning) as caught:
        table = multiclass_rate_table(
            y_true,
            y_pred,
            sensitive_features=groups,
            min_group_size=1,
            confidence_level=0.9,
        )
    assert {w.filename for w in caught} == {__file__}
    assert {str(w.message).split(" is ")[0] for w in caught} == {
        "true_positive_rate of class 'High'",
        "true_positive_rate of class 'Medium'",
        "false_positive_rate of class 'Low'",
    }
    brute = _crosstab_rates(y_true, y_pred, groups, CLASSES)
    for ours, theirs in [
        ("selection_rate", "selection_rate"),
        ("true_positive_rate", "tpr"),
        ("false_positive_rate", "fpr"),
    ]:
        got = table[ours].rename_axis(index=None, columns=None)
        pd.testing.assert_frame_equal(got, brute[theirs].sort_index(), atol=1e-12)
    sizes = pd.Series(groups).value_counts().sort_index()
    assert table["size"].tolist() == sizes.tolist()
    counts = pd.crosstab(groups, y_pred)[CLASSES]
    assert (table["n_predicted"].to_numpy() == counts.to_numpy()).all()
    assert (
        table["n_true"].to_numpy()
        == pd.crosstab(groups, y_true).reindex(columns=CLASSES, fill_value=0).to_numpy()
    ).all()
    # Wilson's bounds solve (p_hat - p)^2 = z^2 p (1 - p) / n
    z = stats.norm.isf(0.05)
    n = table["n_true"].to_numpy().astype(float)
    p_hat = table["true_positive_rate"].to_numpy()
    for bound in ("true_positive_rate_low", "true_positive_rate_high"):
        p = table[bound].to_numpy()
        defined = n > 0
        np.testing.assert_allclose(
            (p_hat - p)[defined] ** 2, (z * z * p * (1 - p) / n)[defined], atol=1e-12
        )
        assert np.isnan(p[~defined]).all() and (~defined).any()
    low, high = table["selection_rate_low"], table["selection_rate_high"]
    rate = table["selection_rate"]
    assert ((low <= rate) & (rate <= high)).all().all()


def test_table_ratio_to_reference_group():
    y_true, y_pred, groups, _ = _case(10, n_groups=3)
    groups[:200] = "g1"  # the largest group
    table = multiclass_rate_table(
        y_true, y_pred, sensitive_features=groups, min_group_size=1
    )
    assert table["is_reference"].tolist() == [False, True, False]
    rates = table["selection_rate"]
    np.testing.assert_allclose(table["selection_rate_ratio"], rates / rates.loc["g1"])
    given = multiclass_rate_table(
        y_true, y_pred, sensitive_features=groups, min_group_size=1, reference="g2"
    )
    np.testing.assert_allclose(given["selection_rate_ratio"], rates / rates.loc["g2"])
    expected = REFERENCE_ERROR.format(
        reference="zz", name="sensitive_features", labels=["g0", "g1", "g2"]
    )
    with pytest.raises(ValueError, match=_escape(expected)):
        multiclass_rate_table(
            y_true, y_pred, sensitive_features=groups, reference="zz", min_group_size=1
        )


def test_table_weights_and_intersection_reference():
    y_true, y_pred, groups, weights = _case(11)
    sex = np.where(np.arange(len(groups)) % 3, "f", "m")
    frame = pd.DataFrame({"group": groups, "sex": sex})
    table = _quiet(
        multiclass_rate_table,
        y_true,
        y_pred,
        sensitive_features=frame,
        sample_weight=weights,
        reference=("g0", "m"),
    )
    assert table.index.names == ["group", "sex"]
    assert table.loc[("g0", "m"), ("is_reference", "")]
    cells = frame.agg("|".join, axis=1)
    brute = _crosstab_rates(y_true, y_pred, cells, CLASSES, weights)["selection_rate"]
    np.testing.assert_allclose(table["selection_rate"], brute.sort_index(), atol=1e-12)
    # the counts stay numbers of samples
    one = _quiet(multiclass_rate_table, y_true, y_pred, sensitive_features=frame)
    assert (table["size"] == one["size"]).all().all()
    assert (table["n_true"] == one["n_true"]).all().all()
    # Wilson's bounds with Kish's effective number of trials (sum w)^2 / sum w^2
    z = stats.norm.isf(0.025)
    for k in CLASSES:
        positives = y_true == k
        for cell in table.index:
            mask = (frame["group"] == cell[0]).to_numpy() & (
                frame["sex"] == cell[1]
            ).to_numpy()
            w = weights[mask & positives]
            if w.size == 0:
                continue
            n_eff = w.sum() ** 2 / (w * w).sum()
            p_hat = table.loc[cell, ("true_positive_rate", k)]
            for bound in ("low", "high"):
                p = table.loc[cell, (f"true_positive_rate_{bound}", k)]
                assert (p_hat - p) ** 2 == pytest.approx(
                    z * z * p * (1 - p) / n_eff, abs=1e-12
                )


# -- scorers -------------------------------------------------------------------------
def _three_class_problem(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.normal(size=n), "g": rng.integers(0, 2, n)})
    latent = X["x"] + 0.8 * X["g"] + rng.normal(scale=0.5, size=n)
    y = np.array(["Low", "Medium", "High"])[np.digitize(latent, [-0.4, 0.6])]
    return X, y


def test_per_class_rate_scorer_in_grid_search_on_three_classes():
    X, y = _three_class_problem()
    scorer = make_rate_scorer(
        "demographic_parity_difference", sensitive="g", pos_label="High"
    )
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=cv)
    for (train, test), score in zip(cv.split(X, y), scores):
        model = LogisticRegression().fit(X.iloc[train], y[train])
        pred = model.predict(X.iloc[test])
        detail = multiclass_rate_details(
            y[test], pred, sensitive_features=X["g"].iloc[test]
        )
        assert -score == pytest.approx(detail.by_class.loc["High", "difference"])
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [0.001, 1.0]},
        scoring={"accuracy": "accuracy", "dp": scorer},
        refit=fairest_within(fairness="dp", performance="accuracy", tolerance=0.5),
        cv=cv,
    ).fit(X, y)
    assert search.best_params_ in ({"C": 0.001}, {"C": 1.0})
    assert np.isfinite(search.cv_results_["mean_test_dp"]).all()


def test_multiclass_metric_through_routed_sklearn_scorer():
    X, y = _three_class_problem()
    scorer = make_scorer(multiclass_selection_rate_difference, greater_is_better=False)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = scorer.set_score_request(sensitive_features=True)
        params = {"sensitive_features": X["g"]}
        scores = cross_val_score(
            LogisticRegression(), X, y, scoring=scorer, cv=cv, params=params
        )
        search = GridSearchCV(
            LogisticRegression(),
            {"C": [0.001, 1.0]},
            scoring={"accuracy": "accuracy", "fair": scorer},
            refit=fairest_within(fairness="fair", performance="accuracy"),
            cv=cv,
        ).fit(X, y, **params)
    for (train, test), score in zip(cv.split(X, y), scores):
        pred = LogisticRegression().fit(X.iloc[train], y[train]).predict(X.iloc[test])
        assert -score == multiclass_selection_rate_difference(
            y[test], pred, sensitive_features=X["g"].iloc[test]
        )
    assert np.isfinite(search.cv_results_["mean_test_fair"]).all()


def test_make_rate_scorer_takes_the_multiclass_metrics():
    X, y = _three_class_problem()
    model = LogisticRegression().fit(X, y)
    scorer = make_rate_scorer(
        multiclass_true_positive_rate_difference, sensitive="g", class_agg="mean"
    )
    expected = multiclass_true_positive_rate_difference(
        y, model.predict(X), sensitive_features=X["g"], class_agg="mean"
    )
    assert expected > 0 and scorer(model, X, y) == -expected


# -- the user guide page -------------------------------------------------------------
def test_multiclass_user_guide_page_runs():
    page = (
        Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "multiclass.rst"
    )
    parser = doctest.DocTestParser()
    test = parser.get_doctest(page.read_text(), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    )
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 20
    assert result.failed == 0
