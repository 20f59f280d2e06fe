import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from skfair.metrics import make_mcdp_scorer
from skfair.model_selection import compare_estimators, fairest_within
from skfair.plotting import FairnessTradeoffDisplay
from skfair.plotting._tradeoff import (
    MIXED_SIGN_ERROR,
    TABLE_COLUMNS_ERROR,
    pareto_front,
)

# (performance, unfairness) by hand:
# 0 A (0.90, 0.30) front: best performance
# 1 B (0.80, 0.10) front
# 2 C (0.85, 0.20) front
# 3 D (0.70, 0.05) front: fairest
# 4 E (0.85, 0.25) dominated by C (same performance, fairer)
# 5 F (0.85, 0.20) a copy of C: neither beats the other, both on the front
# 6 G (0.75, 0.10) dominated by B
# 7 H (nan, 0.01) failed fit: never on the front
PERF = [0.90, 0.80, 0.85, 0.70, 0.85, 0.85, 0.75, np.nan]
UNFAIR = [0.30, 0.10, 0.20, 0.05, 0.25, 0.20, 0.10, 0.01]
FRONT = [True, True, True, True, False, True, False, False]


def _cv_results():
    return {
        "params": [{"C": c, "solver": "lbfgs"} for c in range(8)],
        "mean_test_ap": np.array(PERF),
        "std_test_ap": np.full(8, 0.01),
        "mean_test_mcdp": -np.array(UNFAIR),
        "std_test_mcdp": np.linspace(0.01, 0.08, 8),
    }


def test_hand_made_cv_results():
    cv_results = _cv_results()
    display = FairnessTradeoffDisplay.from_cv_results(
        cv_results, fairness="mcdp", performance="ap", tolerance=0.9
    )
    assert display.pareto_mask_.tolist() == FRONT
    # front drawn in increasing performance: D, B, C, F, A
    px, py = display.pareto_line_.get_xdata(), display.pareto_line_.get_ydata()
    assert px.tolist() == [0.70, 0.80, 0.85, 0.85, 0.90]
    assert py.tolist() == [0.05, 0.10, 0.20, 0.20, 0.30]
    # floor = 0.9 - 0.1 * 0.9 = 0.81: eligible A, C, E, F; fairest C (first of C/F)
    rule = fairest_within(fairness="mcdp", performance="ap", tolerance=0.9)
    assert display.selected == rule(cv_results) == 2
    assert display.tolerance_line_.get_xdata()[0] == pytest.approx(0.81)
    mx, my = display.selected_marker_.get_xdata(), display.selected_marker_.get_ydata()
    assert (mx[0], my[0]) == (0.85, 0.20)
    assert display.annotation_.get_text() == "C=2, solver='lbfgs'"
    points = display.errorbar_.lines[0]
    assert np.array_equal(points.get_xdata(), PERF, equal_nan=True)
    assert np.allclose(points.get_ydata(), UNFAIR)
    assert display.ax_.get_xlabel() == "ap (higher is better)"
    assert display.ax_.get_ylabel() == "mcdp (lower is fairer)"
    # the floor separates the eligible candidates from the others
    eligible = rule.eligible(cv_results)
    finite = np.isfinite(PERF)
    p = np.array(PERF)
    assert (p[eligible] >= display.tolerance_floor).all()
    assert (p[finite & ~eligible] < display.tolerance_floor).all()


def _brute_front(p, u):
    keep = []
    for i in range(len(p)):
        if not (np.isfinite(p[i]) and np.isfinite(u[i])):
            keep.append(False)
            continue
        dominated = any(
            p[j] >= p[i] and u[j] <= u[i] and (p[j] > p[i] or u[j] < u[i])
            for j in range(len(p))
            if np.isfinite(p[j]) and np.isfinite(u[j])
        )
        keep.append(not dominated)
    return keep


@pytest.mark.parametrize("seed", range(5))
def test_pareto_front_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    p = rng.integers(0, 5, 30).astype(float)  # many ties
    u = rng.integers(0, 5, 30).astype(float)
    p[rng.integers(0, 30, 2)] = np.nan
    assert pareto_front(p, u).tolist() == _brute_front(p, u)


def test_from_grid_search_picks_best_index():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=240), np.tile([0, 1], 120)])
    y = (X[:, 0] + X[:, 1] + rng.normal(size=240) > 0.5).astype(int)
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [1e-4, 1e-3, 1e-2, 1.0]},
        scoring={"ap": "average_precision", "mcdp": make_mcdp_scorer(sensitive=1)},
        refit=fairest_within(fairness="mcdp", performance="ap"),
        cv=3,
    ).fit(X, y)
    display = FairnessTradeoffDisplay.from_cv_results(
        search.cv_results_, fairness="mcdp", performance="ap"
    )
    assert display.selected == search.best_index_
    k = search.best_index_
    assert display.selected_marker_.get_ydata()[0] == pytest.approx(
        -search.cv_results_["mean_test_mcdp"][k]
    )
    assert display.annotation_.get_text() == f"C={search.cv_results_['param_C'][k]:.4g}"


def test_missing_key():
    with pytest.raises(KeyError, match="mean_test_eo"):
        FairnessTradeoffDisplay.from_cv_results(
            _cv_results(), fairness="eo", performance="ap"
        )


def _table(fair_means):
    names = ["a", "b", "c"]
    rows = []
    for name, acc, fair in zip(names, [0.85, 0.84, 0.70], fair_means):
        rows.append((name, "accuracy", acc, 0.01, 5))
        rows.append((name, "dp[sex]", fair, 0.02, 5))
    return pd.DataFrame(rows, columns=["estimator", "metric", "mean", "std", "n_folds"])


@pytest.mark.parametrize(
    ("fair_means", "greater"),
    [
        ([0.20, 0.05, 0.01], None),
        ([-0.20, -0.05, -0.01], None),
        ([0.20, 0.05, 0.01], False),
        ([-0.20, -0.05, -0.01], True),
    ],
)
def test_from_compare_table_signs(fair_means, greater):
    display = FairnessTradeoffDisplay.from_compare_table(
        _table(fair_means),
        fairness="dp[sex]",
        performance="accuracy",
        fairness_greater_is_better=greater,
    )
    assert display.candidate_names == ["a", "b", "c"]
    assert display.unfairness.tolist() == [0.20, 0.05, 0.01]
    assert display.selected == 1  # c is below 95 % of 0.85
    assert display.pareto_mask_.tolist() == [True, True, True]
    assert display.annotation_.get_text() == "b"


def test_from_compare_table_errors():
    with pytest.raises(ValueError, match="both signs"):
        FairnessTradeoffDisplay.from_compare_table(
            _table([0.2, -0.1, 0.0]), fairness="dp[sex]", performance="accuracy"
        )
    assert "fairness_greater_is_better" in MIXED_SIGN_ERROR
    with pytest.raises(ValueError, match="compare_estimators summary"):
        FairnessTradeoffDisplay.from_compare_table(
            pd.DataFrame({"x": [1]}), fairness="f", performance="p"
        )
    assert "columns" in TABLE_COLUMNS_ERROR
    with pytest.raises(KeyError, match="eo"):
        FairnessTradeoffDisplay.from_compare_table(
            _table([0.1, 0.1, 0.1]), fairness="eo", performance="accuracy"
        )


def test_from_real_compare_estimators():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=300), np.repeat([0, 1], 150)])
    y = (X[:, 0] + X[:, 1] + rng.normal(size=300) > 0.5).astype(int)
    estimators = {f"C={c}": LogisticRegression(C=c) for c in (1e-3, 1e-2, 1.0)}
    summary = compare_estimators(
        estimators, X, y, sensitive=1, cv=3, random_state=0, progress=False
    )
    display = FairnessTradeoffDisplay.from_compare_table(
        summary, fairness="dp[x1]", performance="accuracy"
    )
    wide = summary.pivot(index="estimator", columns="metric", values="mean")
    wide = wide.loc[list(estimators)]
    assert np.array_equal(display.unfairness, wide["dp[x1]"].to_numpy())
    assert np.array_equal(display.performance, wide["accuracy"].to_numpy())
    rule = fairest_within(fairness="f", performance="p")
    expected = rule(
        {"mean_test_f": -wide["dp[x1]"].to_numpy(), "mean_test_p": wide["accuracy"]}
    )
    assert display.selected == expected
    assert list(itertools.compress(display.candidate_names, [True] * 3)) == list(
        estimators
    )


def test_without_std_params_and_with_a_failed_candidate():
    import matplotlib.pyplot as plt

    cv_results = {
        "mean_test_f": [-0.1, -0.2, np.nan],
        "mean_test_p": [0.8, 0.9, 0.85],
    }
    display = FairnessTradeoffDisplay.from_cv_results(
        cv_results, fairness="f", performance="p", tolerance=0.85
    )
    assert display.selected == 0  # 0.8 >= 0.85 * 0.9; the NaN one is ignored
    assert display.pareto_mask_.tolist() == [True, True, False]
    assert display.candidate_names is None and display.annotation_ is None
    _, ax = plt.subplots()
    again = display.plot(ax=ax)
    assert again.ax_ is ax
    assert again.selected_marker_.get_xdata()[0] == 0.8
