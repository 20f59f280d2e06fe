import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from skfair.metrics import mcdp_curve
from skfair.plotting import MCDPCurveDisplay

EPS = [0.0, 0.01, 0.02, 0.05, 0.1]


def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    sf = pd.DataFrame(
        {
            "sex": np.repeat(["f", "m"], n // 2),
            "age": np.tile(np.repeat(["young", "old"], n // 4), 2),
        }
    )
    scores = np.clip(
        rng.random(n) * 0.8 + 0.15 * (sf["sex"] == "m") + 0.05 * (sf["age"] == "old"),
        0,
        1,
    ).round(3)
    return scores, sf


def test_curve_is_mcdp_curve():
    scores, sf = _data()
    display = MCDPCurveDisplay.from_predictions(None, scores, sensitive_features=sf)
    (line,) = display.lines_.values()
    eps = np.linspace(0, 0.2, 41)
    assert np.array_equal(line.get_xdata(), eps)
    assert np.array_equal(
        line.get_ydata(), mcdp_curve(None, scores, sensitive_features=sf, epsilons=eps)
    )
    assert display.ax_.get_xlabel().startswith("ε")


@pytest.mark.parametrize("combine", ["intersection", "marginal"])
def test_custom_epsilons_and_combine(combine):
    scores, sf = _data(seed=1)
    eps = [0.0, 0.01, 0.03, 0.3]
    display = MCDPCurveDisplay.from_predictions(
        None, scores, sensitive_features=sf, epsilons=eps, combine=combine, agg="mean"
    )
    expected = mcdp_curve(
        None, scores, sensitive_features=sf, epsilons=eps, combine=combine, agg="mean"
    )
    assert np.array_equal(display.lines_["MCDP(ε)"].get_ydata(), expected)


def test_one_line_per_attribute():
    scores, sf = _data(seed=2)
    display = MCDPCurveDisplay.from_predictions(
        None,
        scores,
        sensitive_features=sf,
        by_attribute=True,
        name="model",
        epsilons=EPS,
    )
    assert list(display.lines_) == ["sex", "age"]
    for attribute, line in display.lines_.items():
        expected = mcdp_curve(
            None, scores, sensitive_features=sf[attribute], epsilons=display.epsilons
        )
        assert np.array_equal(line.get_ydata(), expected)
        assert line.get_label() == f"model: {attribute}"
    # ndarray input: attribute_k names
    display = MCDPCurveDisplay.from_predictions(
        None, scores, sensitive_features=sf.to_numpy(), by_attribute=True, epsilons=EPS
    )
    assert list(display.lines_) == ["attribute_0", "attribute_1"]
    expected = mcdp_curve(
        None, scores, sensitive_features=sf["age"], epsilons=display.epsilons
    )
    assert np.array_equal(display.lines_["attribute_1"].get_ydata(), expected)


def test_several_models_on_one_ax():
    import matplotlib.pyplot as plt

    scores, sf = _data(seed=3)
    other = np.random.default_rng(3).random(scores.size)
    _, ax = plt.subplots()
    first = MCDPCurveDisplay.from_predictions(
        None, scores, sensitive_features=sf, name="A", ax=ax, epsilons=EPS
    )
    second = MCDPCurveDisplay.from_predictions(
        None,
        other,
        sensitive_features=sf,
        name="B",
        ax=ax,
        line_kwargs={"color": "k"},
        epsilons=EPS,
    )
    assert first.ax_ is second.ax_ is ax
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "B"]
    assert second.lines_["MCDP(ε)"].get_color() == "k"
    assert np.array_equal(
        ax.get_lines()[1].get_ydata(),
        mcdp_curve(None, other, sensitive_features=sf, epsilons=second.epsilons),
    )
    # plot() again on a new axes redraws the same data
    redrawn = second.plot(name="B again")
    assert redrawn.ax_ is not ax
    assert redrawn.lines_["MCDP(ε)"].get_label() == "B again"


def test_from_estimator_matches_from_predictions():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(size=200), np.repeat([0, 1], 100)])
    y = (X[:, 0] + X[:, 1] + rng.normal(size=200) > 0.5).astype(int)
    clf = LogisticRegression().fit(X, y)
    display = MCDPCurveDisplay.from_estimator(clf, X, y, sensitive=1, epsilons=EPS)
    expected = mcdp_curve(
        y,
        clf.predict_proba(X)[:, 1],
        sensitive_features=X[:, 1],
        epsilons=display.epsilons,
    )
    line = display.lines_["MCDP(ε)"]
    assert np.array_equal(line.get_ydata(), expected)
    assert line.get_label() == "LogisticRegression"


def test_min_group_size_is_forwarded():
    rng = np.random.default_rng(5)
    group = np.repeat([0, 1, 2], [50, 50, 5])
    scores = rng.random(group.size).round(2)
    display = MCDPCurveDisplay.from_predictions(
        None, scores, sensitive_features=group, epsilons=EPS, min_group_size=10
    )
    expected = mcdp_curve(
        None, scores, sensitive_features=group, epsilons=EPS, min_group_size=10
    )
    assert np.array_equal(display.lines_["MCDP(ε)"].get_ydata(), expected)
