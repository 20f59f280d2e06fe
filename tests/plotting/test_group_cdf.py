import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from skfair.metrics import mcdp, mcdp_details
from skfair.plotting import GroupCDFDisplay
from skfair.utils import select_sensitive


def _data(seed=0, n_per_group=40, n_groups=2, decimals=2):
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(n_groups), n_per_group)
    scores = rng.beta(2 + group, 2).round(decimals)
    return scores, group


def _brute_ecdf(values, x, weights=None):
    w = np.ones_like(values) if weights is None else weights
    return np.array([w[values <= t].sum() / w.sum() for t in x])


def _span_x(span):
    if hasattr(span, "get_width"):  # matplotlib >= 3.9: a Rectangle
        return span.get_x(), span.get_x() + span.get_width()
    xy = np.asarray(span.get_xy())
    return xy[:, 0].min(), xy[:, 0].max()


def _annotated_value(display):
    return float(re.search(r"= ([0-9.e+-]+)", display.annotation_.get_text())[1])


def test_lines_are_the_exact_group_ecdfs():
    scores, group = _data()
    display = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=group)
    assert set(display.lines_) == {0, 1}
    for label, line in display.lines_.items():
        x, y = line.get_xdata(), line.get_ydata()
        assert line.get_drawstyle() == "steps-post"
        assert np.array_equal(y, _brute_ecdf(scores[group == label], x))
        # every breakpoint is drawn, plus the two ends of [0, 1]
        assert np.array_equal(x[1:-1], np.unique(scores[group == label]))
        assert (x[0], x[-1]) == (0.0, 1.0)


def test_threshold_marker_and_value_at_epsilon_zero():
    scores, group = _data(seed=3)
    display = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=group)
    details = mcdp_details(None, scores, sensitive_features=group)
    value = mcdp(None, scores, sensitive_features=group)
    assert display.window_span_ is None
    assert display.threshold_line_.get_xdata()[0] == details.threshold
    t = details.threshold
    gx, gy = display.gap_line_.get_xdata(), display.gap_line_.get_ydata()
    assert list(gx) == [t, t]
    expected = sorted(_brute_ecdf(scores[group == g], [t])[0] for g in (0, 1))
    assert sorted(gy) == pytest.approx(expected, abs=1e-15)
    assert abs(gy[0] - gy[1]) == pytest.approx(value, abs=1e-12)
    assert _annotated_value(display) == pytest.approx(value, rel=1e-3)
    assert display.mcdp_result.value == value
    assert "MCDP(0)" in display.annotation_.get_text()


@pytest.mark.parametrize("epsilon", [0.02, 0.05, 0.1])
def test_window_marker_at_positive_epsilon(epsilon):
    scores, group = _data(seed=5, decimals=3)
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, epsilon=epsilon
    )
    details = mcdp_details(None, scores, sensitive_features=group, epsilon=epsilon)
    value = mcdp(None, scores, sensitive_features=group, epsilon=epsilon)
    assert display.threshold_line_ is None
    low, high = details.window
    assert _span_x(display.window_span_) == pytest.approx((low, high), abs=1e-15)
    # the gap segment sits inside the window, where the gap is smallest,
    # and that smallest gap is MCDP(epsilon) (brute force over a fine grid).
    t = display.gap_line_.get_xdata()[0]
    assert low <= t <= high
    gy = display.gap_line_.get_ydata()
    assert abs(gy[0] - gy[1]) == pytest.approx(value, abs=1e-12)
    grid = np.union1d(np.linspace(low, high, 2001), scores[(scores >= low)])
    grid = grid[grid <= high]
    brute_gap = np.abs(
        _brute_ecdf(scores[group == 0], grid) - _brute_ecdf(scores[group == 1], grid)
    )
    assert brute_gap.min() == pytest.approx(value, abs=1e-12)
    assert _annotated_value(display) == pytest.approx(value, rel=1e-3)


def test_intersection_labels_and_emphasis():
    rng = np.random.default_rng(7)
    n = 360
    sf = pd.DataFrame(
        {
            "sex": np.repeat(["f", "m"], n // 2),
            "race": np.tile(np.repeat(["a", "b", "c"], n // 6), 2),
        }
    )
    shift = (sf["sex"] == "m") * 0.15 + (sf["race"] == "c") * 0.1
    scores = np.clip(rng.random(n) * 0.7 + shift, 0, 1).round(3)
    display = GroupCDFDisplay.from_predictions(None, scores, sensitive_features=sf)
    labels = {(s, r) for s in "fm" for r in "abc"}
    assert set(display.lines_) == labels
    legend = display.ax_.get_legend()
    assert legend.get_title().get_text() == "sex & race"
    texts = [t.get_text() for t in legend.get_texts()]
    assert "f & a (n=60)" in texts and "m & c (n=60)" in texts
    worst = set(display.mcdp_result.groups)
    assert len(worst) == 2
    for label, line in display.lines_.items():
        mask = (sf["sex"] == label[0]).to_numpy() & (sf["race"] == label[1]).to_numpy()
        x = line.get_xdata()
        assert np.array_equal(line.get_ydata(), _brute_ecdf(scores[mask], x))
        thick = line.get_linewidth() > 2
        assert thick == (label in worst)
    assert display.mcdp_result.value == mcdp(None, scores, sensitive_features=sf)


def test_marginal_draws_the_worst_attribute():
    rng = np.random.default_rng(8)
    n = 240
    sf = pd.DataFrame(
        {"a": np.repeat([0, 1], n // 2), "b": np.tile(np.repeat([0, 1], n // 4), 2)}
    )
    scores = (rng.random(n) * 0.8 + 0.2 * sf["b"].to_numpy()).round(3)
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=sf, combine="marginal"
    )
    assert display.mcdp_result.attribute == "b"
    assert display.attribute == "b"
    assert set(display.lines_) == {0, 1}
    for label, line in display.lines_.items():
        values = scores[sf["b"].to_numpy() == label]
        assert np.array_equal(line.get_ydata(), _brute_ecdf(values, line.get_xdata()))


def test_max_points_thins_but_stays_exact_at_drawn_points():
    scores, group = _data(seed=9, n_per_group=2000, decimals=6)
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, max_points=50
    )
    for label, line in display.lines_.items():
        x, y = line.get_xdata(), line.get_ydata()
        assert len(x) <= 50 + 4
        assert np.array_equal(y, _brute_ecdf(scores[group == label], x))


def test_sample_weight_gives_weighted_ecdfs():
    scores, group = _data(seed=10)
    weights = np.random.default_rng(10).random(scores.size) + 0.1
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, sample_weight=weights
    )
    for label, line in display.lines_.items():
        m = group == label
        brute = _brute_ecdf(scores[m], line.get_xdata(), weights[m])
        assert np.allclose(line.get_ydata(), brute, rtol=0, atol=1e-12)
    expected = mcdp(None, scores, sensitive_features=group, sample_weight=weights)
    assert display.mcdp_result.value == expected


def test_scores_outside_unit_interval_at_epsilon_zero():
    scores, group = _data(seed=11)
    logits = np.log(scores + 0.01) * 3
    display = GroupCDFDisplay.from_predictions(None, logits, sensitive_features=group)
    low, high = display.ax_.get_xlim()
    assert low < logits.min() and high > logits.max()
    assert display.threshold_line_.get_xdata()[0] == (
        mcdp_details(None, logits, sensitive_features=group).threshold
    )


def test_from_estimator_reads_groups_from_X_and_plot_reuses_ax():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(12)
    X = pd.DataFrame({"x": rng.normal(size=200), "sex": np.repeat(["f", "m"], 100)})
    y = (X["x"] + (X["sex"] == "m") + rng.normal(size=200) > 0.5).astype(int)
    clf = LogisticRegression().fit(pd.get_dummies(X, dtype=float), y)

    class OnRaw:  # the classifier, taking the raw frame
        classes_ = clf.classes_

        def predict_proba(self, X):
            return clf.predict_proba(pd.get_dummies(X, dtype=float))

    fig, ax = plt.subplots()
    display = GroupCDFDisplay.from_estimator(
        OnRaw(), X, y, sensitive="sex", epsilon=0.02, ax=ax
    )
    assert display.ax_ is ax and display.figure_ is fig
    assert display.ax_.get_title() == "OnRaw"
    scores = OnRaw().predict_proba(X)[:, 1]
    expected = GroupCDFDisplay.from_predictions(
        y, scores, sensitive_features=select_sensitive(X, "sex"), epsilon=0.02
    )
    assert display.mcdp_result == expected.mcdp_result
    assert set(display.lines_) == {"f", "m"}
    for label in ("f", "m"):
        assert np.array_equal(
            display.lines_[label].get_ydata(), expected.lines_[label].get_ydata()
        )
    display.plot(annotate=False)
    assert display.ax_ is not ax
    assert display.annotation_ is None
    low, high = display.mcdp_result.window
    assert low <= display.gap_line_.get_xdata()[0] <= high


def test_min_group_size_leaves_out_small_groups():
    from skfair.utils import SmallGroupWarning

    rng = np.random.default_rng(13)
    group = np.repeat(["a", "b", "tiny"], [50, 50, 5])
    scores = rng.random(group.size).round(2)
    with pytest.warns(SmallGroupWarning, match="tiny") as record:
        display = GroupCDFDisplay.from_predictions(
            None, scores, sensitive_features=group
        )
    assert len(record) == 1  # the Display does not repeat the metric's warning
    assert set(display.lines_) == {"a", "b", "tiny"}
    display = GroupCDFDisplay.from_predictions(
        None, scores, sensitive_features=group, min_group_size=10
    )
    assert set(display.lines_) == {"a", "b"}
    assert display.counts == {"a": 50, "b": 50}
    assert display.mcdp_result.value == mcdp(
        None, scores, sensitive_features=group, min_group_size=10
    )
