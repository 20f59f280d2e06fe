"""The audit of a multiclass classifier: numbers, detection, sentences, errors."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skfair import audit
from skfair.metrics import (
    abcc,
    delta_dp,
    mcdp,
    multiclass_equalized_odds_difference,
    multiclass_selection_rate_difference,
    multiclass_true_positive_rate_difference,
)
from skfair.report._multiclass_inputs import (
    MULTICLASS_THRESHOLD_ERROR,
    PROBA_COLUMNS_ERROR,
    UNKNOWN_LABEL_ERROR,
)
from skfair.report._regression import detect_task

CLASSES = ["High", "Low", "Medium"]
FAST = {"n_resamples": 9, "n_permutations": 9}


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.35, 0.15])
    proba = rng.dirichlet([2, 2, 2], n)
    proba[group == "b", 0] += 0.3  # b gets "High" more often
    proba /= proba.sum(axis=1, keepdims=True)
    y = np.array(CLASSES)[rng.integers(0, 3, n)]
    return y, proba, group


def _audit(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-group warnings
        return audit(*args, **FAST, **kwargs)


def test_numbers_equal_a_pandas_crosstab():
    y, proba, group = _data()
    report = _audit(y, proba, sensitive_features=group)
    assert report.settings.task == "multiclass"
    assert report.settings.task_reason == "3 classes: High, Low, Medium"
    pred = np.array(CLASSES)[proba.argmax(axis=1)]
    expected = pd.crosstab(group, pred, normalize="index")
    table = report.groups.pivot(index="group", columns="class", values="selection_rate")
    pd.testing.assert_frame_equal(
        table.loc[expected.index, CLASSES], expected[CLASSES], check_names=False
    )
    counts = pd.crosstab([group, y], pred)
    for m in report.headline.multiclass.confusion:
        for i, true in enumerate(CLASSES):
            want = [int(counts.loc[(m.group, true)].get(c, 0)) for c in CLASSES]
            assert list(m.counts[i]) == want
    # the rendered tables print the same confusion counts
    text = report.to_markdown()
    row = counts.loc[("b", "High")]
    cells = " | ".join(f"{int(row.get(c, 0)):,}" for c in CLASSES)
    assert f"| b | High | {cells} | {int(row.sum()):,} |" in text
    # TPR one-vs-rest of class High in group a
    a = (group == "a") & (y == "High")
    tpr = report.groups.query("group == 'a' and `class` == 'High'")["tpr"].item()
    assert tpr == pytest.approx(np.mean(pred[a] == "High"))


def test_per_class_metrics_equal_the_binary_metrics_of_each_column():
    y, proba, group = _data(seed=1)
    report = _audit(y, proba, sensitive_features=group)
    metrics = report.metrics
    for k, cls in enumerate(CLASSES):
        col = proba[:, k]
        common = {"sensitive_features": group}
        assert metrics.loc[f"mcdp[{cls}]", "value"] == pytest.approx(
            mcdp(None, col, **common)
        )
        assert metrics.loc[f"mcdp@0.05[{cls}]", "value"] == pytest.approx(
            mcdp(None, col, epsilon=0.05, **common)
        )
        assert metrics.loc[f"abcc[{cls}]", "value"] == pytest.approx(
            abcc(None, col, **common)
        )
        assert metrics.loc[f"delta_dp[{cls}]", "value"] == pytest.approx(
            delta_dp(None, col, **common)
        )
        assert np.isfinite(metrics.loc[f"mcdp[{cls}]", "low"])
    pred = np.array(CLASSES)[proba.argmax(axis=1)]
    kw = {"sensitive_features": group, "labels": CLASSES}
    assert metrics.loc["selection_rate_gap", "value"] == pytest.approx(
        multiclass_selection_rate_difference(y, pred, **kw)
    )
    assert metrics.loc["selection_rate_gap_mean", "value"] == pytest.approx(
        multiclass_selection_rate_difference(y, pred, class_agg="mean", **kw)
    )
    assert metrics.loc["tpr_gap", "value"] == pytest.approx(
        multiclass_true_positive_rate_difference(y, pred, **kw)
    )
    assert metrics.loc["equalized_odds_gap", "value"] == pytest.approx(
        multiclass_equalized_odds_difference(y, pred, **kw)
    )
    # the headline's distribution facts are those of the worst class
    worst = max(CLASSES, key=lambda c: metrics.loc[f"mcdp[{c}]", "value"])
    assert report.headline.multiclass.distribution_class == worst
    assert report.headline.distribution.value == metrics.loc[f"mcdp[{worst}]", "value"]


def test_labels_frame_and_classes_order():
    y, proba, group = _data(seed=2)
    pred = np.array(CLASSES)[proba.argmax(axis=1)]
    by_labels = _audit(y, pred, sensitive_features=group)
    assert by_labels.headline.multiclass.prediction == "labels"
    frame = pd.DataFrame(proba[:, ::-1], columns=CLASSES[::-1])
    by_frame = _audit(y, frame, sensitive_features=group)
    by_array = _audit(y, proba, sensitive_features=group)
    assert by_frame.headline.multiclass.classes == tuple(CLASSES[::-1])
    keys = ["grouping", "group", "class"]
    ordered = by_frame.groups.sort_values(keys).reset_index(drop=True)
    for column in ("selection_rate", "tpr", "fpr", "mean_score"):
        np.testing.assert_allclose(ordered[column], by_array.groups[column])
    np.testing.assert_allclose(
        by_labels.groups["selection_rate"], by_array.groups["selection_rate"]
    )
    # with labels, MCDP(0) of a class is its selection-rate gap over all groups
    assert by_labels.metrics.loc["mcdp[High]", "value"] == pytest.approx(
        by_labels.metrics.loc["selection_rate_gap[High]", "value"]
    )
    reordered = _audit(
        y, proba[:, [1, 2, 0]], sensitive_features=group, classes=CLASSES[1:] + ["High"]
    )
    assert reordered.headline.multiclass.classes == ("Low", "Medium", "High")
    np.testing.assert_allclose(
        reordered.metrics.loc["mcdp[High]", "value"],
        by_array.metrics.loc["mcdp[High]", "value"],
    )


def test_detection_and_binary_regression_unchanged():
    assert detect_task(["a", "b", "c"], ["a", "a", "b"]) == (
        "multiclass",
        "3 classes: a, b, c",
    )
    assert detect_task([0, 1, 2, 2], np.full((4, 3), 1 / 3))[0] == "multiclass"
    assert detect_task([0, 1, 1], [0.2, 0.7, 0.9]) == ("binary", None)
    assert detect_task([1.5, 2.0, 7.25], [1.0, 2.5, 6.0])[0] == "regression"
    # predicted labels outside y_true's set, or scores: not multiclass
    assert detect_task(["a", "b", "c"], ["a", "d", "b"])[0] == "binary"
    assert detect_task([0, 1, 2], [0.2, 0.5, 0.9])[0] == "binary"


def test_messy_groupings_give_true_sentences():
    rng = np.random.default_rng(3)
    n = 900
    # 7 x 7 = 49 intersections, a one-person group, a group with no "High"
    first = rng.choice(list("ABCDEFG"), n).astype(object)
    second = rng.choice(list("tuvwxyz"), n).astype(object)
    y = np.array(CLASSES)[rng.integers(0, 3, n)]
    first[0], second[0] = "solo", "solo"
    lone = (first == "B") & (second == "u")
    y[lone] = "Low"
    proba = rng.dirichlet([1, 1, 1], n)
    frame = pd.DataFrame({"f": first, "s": second})
    report = _audit(y, proba, sensitive_features=frame)
    facts = report.headline.multiclass
    # the intersections (about 18 people each) are not the headline's
    assert facts.grouping in ("f", "s")
    # every gap the headline states is the table's, among the groups it names
    for gap in facts.selection:
        rows = report.groups[
            (report.groups["grouping"] == facts.grouping)
            & (report.groups["class"] == gap.label)
        ]
        kept = rows[~rows["group"].isin(gap.left_out)]
        assert gap.value == pytest.approx(
            kept["selection_rate"].max() - kept["selection_rate"].min()
        )
        assert gap.lowest.size >= 30 and gap.highest.size >= 30
    text = report.to_markdown()
    # the one-person group is named as small, never as an end of a gap
    assert "solo & solo (n = 1)" in text
    inter = report.groups[report.groups["grouping"] == "f & s"]
    no_high = inter[(inter["class"] == "High") & (inter["n_true"] == 0)]["group"]
    assert "B & u" in set(no_high)
    assert "no sample of class High, so no TPR of it" in text
    for gap in facts.tpr:
        assert "B & u" not in (gap.lowest.group, gap.highest.group)
    # every percentage printed in the headline's first sentence is in the table
    first_sentence = report.to_dict()["headline"]["text"][0]
    worst = max(facts.selection, key=lambda g: g.value)
    for g in (worst.lowest, worst.highest):
        assert f"{g.group} (n = {g.size:,})" in first_sentence
    html = report.to_html(figures=False)
    assert "Confusion matrix" in html and "solo" in html


def test_one_group_per_class_and_equal_rates():
    # every group predicted every class at the same rate: said so
    y = np.tile(["High", "Low", "Medium"], 40)
    group = np.repeat(["a", "b"], 60)
    pred = np.tile(["High", "Low", "Medium"], 40)
    report = _audit(y, pred, sensitive_features=group)
    assert report.to_dict()["headline"]["text"][0] == (
        "Every compared group of sensitive_features is predicted each class at the "
        "same rate."
    )
    assert report.metrics.loc["selection_rate_gap", "value"] == 0


def test_errors():
    y, proba, group = _data(n=60)
    message = MULTICLASS_THRESHOLD_ERROR.format(value=0.3)
    with pytest.raises(ValueError, match=re.escape(message)):
        _audit(y, proba, sensitive_features=group, threshold=0.3)
    with pytest.raises(ValueError, match="pos_label"):
        _audit(y, proba, sensitive_features=group, pos_label="High")
    message = PROBA_COLUMNS_ERROR.format(
        n_columns=2, n_classes=3, classes="High, Low, Medium"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        _audit(y, proba[:, :2], sensitive_features=group, task="multiclass")
    bad = np.where(y == "Low", "Lowest", y)
    message = UNKNOWN_LABEL_ERROR.format(name="y_true", label="Lowest", classes=CLASSES)
    with pytest.raises(ValueError, match=re.escape(message)):
        _audit(bad, proba, sensitive_features=group, classes=CLASSES)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        _audit(y, proba * 2, sensitive_features=group)


def test_figures_are_drawn():
    pytest.importorskip("matplotlib")
    y, proba, group = _data(n=200, seed=4)
    report = _audit(y, proba, sensitive_features=group)
    figures = report.figures()
    assert [f["title"] for f in figures] == [
        "Group CDFs of each class's probability",
        "Selection rate by group and class",
    ]
    assert all(f["png"].startswith(b"\x89PNG") for f in figures)
    mcdp_high = report.metrics.loc["mcdp[High]", "value"]
    assert f"class High: MCDP(0) = {mcdp_high:.4f}" in figures[0]["alt"]


def test_one_column_of_scores_is_not_predicted_labels():
    """Fractions given as labels would make each distinct score a class."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    scores = rng.random(200)
    group = np.repeat(["a", "b"], 100)
    with pytest.raises(ValueError, match=r"y_score holds .*, a fraction, not a"):
        _audit(y, scores, sensitive_features=group, task="multiclass")
    # whole numbers read as floats (a CSV) are still labels
    labels = rng.integers(0, 3, 200).astype(float)
    report = _audit(rng.integers(0, 3, 200), labels, sensitive_features=group)
    assert report.settings.task == "multiclass"
    assert len(report.headline.multiclass.classes) == 3


def test_three_labels_with_one_score_column_names_the_tasks():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200)
    group = np.repeat(["a", "b"], 100)
    with pytest.raises(ValueError, match="exactly two classes") as info:
        _audit(y, rng.random(200), sensitive_features=group)
    assert "task='multiclass'" in str(info.value)
    assert "task='regression'" in str(info.value)
