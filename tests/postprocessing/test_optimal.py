"""OptimalParityClassifier: exact against brute force, rules, errors, frames."""

import itertools

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.fixes import parse_version

from skfair.postprocessing import OptimalParityClassifier
from skfair.postprocessing._groups import UNSEEN_GROUP_ERROR
from skfair.postprocessing._optimal import (
    COST_MATRIX_ERROR,
    MISSING_CLASS_ERROR,
    MULTICLASS_SCORES_ERROR,
    SINGLE_CLASS_ERROR,
)
from skfair.utils._groups import TOO_FEW_GROUPS_ERROR

# the brute-force checks use groups of a few samples on purpose
pytestmark = pytest.mark.filterwarnings(
    "ignore::skfair.utils._groups.SmallGroupWarning"
)


class Columns(ClassifierMixin, BaseEstimator):
    """A fitted classifier that reads its scores from columns 1: of X."""

    def __init__(self, proba=True):
        self.proba = proba

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=float)
        if X.shape[1] == 2:  # binary: column 1 is P(y = 1)
            return np.column_stack([1 - X[:, 1], X[:, 1]])
        return X[:, 1:]


def frozen(X, y):
    return FrozenEstimator(Columns().fit(X, y))


def fit(X, y, **params):
    return OptimalParityClassifier(frozen(X, y), sensitive=0, **params).fit(X, y)


# ------------------------------------------------------------ brute force
def threshold_rules(scores, y):
    """(rate, TPR count, FPR count, correct count) of every threshold rule."""
    rules = []
    for t in [np.inf, *np.unique(scores)]:
        pos = scores >= t
        tp, fp = np.sum(pos & (y == 1)), np.sum(pos & (y == 0))
        rules.append((pos.mean(), tp, fp, tp + np.sum(~pos & (y == 0))))
    return rules


def best_at_rate(rules, rho):
    """A group's most correct decisions at selection rate rho (mixing 2 rules)."""
    best = -np.inf
    for (ra, _, _, ca), (rb, _, _, cb) in itertools.product(rules, rules):
        if np.isclose(ra, rho) and np.isclose(rb, rho):
            best = max(best, ca, cb)
        elif ra < rho < rb:
            lam = (rho - ra) / (rb - ra)
            best = max(best, (1 - lam) * ca + lam * cb)
    return best


def brute_dp(scores, y, group, tolerance):
    """Best accuracy of two groups' threshold mixtures with |rate gap| <= tol."""
    rules = [threshold_rules(scores[group == g], y[group == g]) for g in (0, 1)]
    breaks = [sorted({r[0] for r in rs}) for rs in rules]
    candidates = set()
    for a, b in itertools.product(*breaks):
        candidates.add((a, b))
    for a in breaks[0]:
        candidates.update({(a, a + tolerance), (a, a - tolerance)})
    for b in breaks[1]:
        candidates.update({(b + tolerance, b), (b - tolerance, b)})
    best = -np.inf
    for a, b in candidates:
        if 0 <= a <= 1 and 0 <= b <= 1 and abs(a - b) <= tolerance + 1e-12:
            best = max(best, best_at_rate(rules[0], a) + best_at_rate(rules[1], b))
    return best / y.size


def in_hull(point, points):
    """Whether point lies in the convex hull of points (triangles and segments)."""
    p = np.asarray(point)
    for i, j in itertools.combinations(range(len(points)), 2):
        a, b = points[i], points[j]
        d = b - a
        t = np.dot(p - a, d) / max(np.dot(d, d), 1e-300)
        if 0 <= t <= 1 and np.linalg.norm(a + t * d - p) < 1e-9:
            return True
    for i, j, k in itertools.combinations(range(len(points)), 3):
        m = np.column_stack([points[j] - points[i], points[k] - points[i]])
        if abs(np.linalg.det(m)) < 1e-12:
            continue
        u, v = np.linalg.solve(m, p - points[i])
        if u >= -1e-12 and v >= -1e-12 and u + v <= 1 + 1e-12:
            return True
    return False


def brute_equalized_odds(scores, y, group):
    """Best accuracy at a common (FPR, TPR) of two groups' ROC hulls."""
    hulls, sizes = [], []
    for g in (0, 1):
        s, t = scores[group == g], y[group == g]
        n_pos, n_neg = np.sum(t == 1), np.sum(t == 0)
        hulls.append(
            np.array(
                [(fp / n_neg, tp / n_pos) for _, tp, fp, _ in threshold_rules(s, t)]
            )
        )
        sizes.append((n_pos, n_neg))
    candidates = [p for h in hulls for p in h]
    for (a, b), (c, d) in itertools.product(
        itertools.combinations(hulls[0], 2), itertools.combinations(hulls[1], 2)
    ):
        m = np.column_stack([b - a, c - d])
        if abs(np.linalg.det(m)) > 1e-12:
            u, v = np.linalg.solve(m, c - a)
            if 0 <= u <= 1 and 0 <= v <= 1:
                candidates.append(a + u * (b - a))
    best = -np.inf
    for fpr, tpr in candidates:
        if all(in_hull((fpr, tpr), h) for h in hulls):
            correct = sum(p * tpr + n * (1 - fpr) for p, n in sizes)
            best = max(best, correct)
    return best / y.size


@st.composite
def two_groups(draw, *, both_classes=False):
    n = draw(st.integers(4, 12))
    scores = np.array(
        draw(
            st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9]), min_size=n, max_size=n)
        )
    )
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    group = np.array([0, 1] * (n // 2) + [0] * (n % 2))
    y[:4] = [0, 0, 1, 1]  # both classes in both groups
    if not both_classes:
        y[:2] = draw(
            st.sampled_from([[0, 0], [1, 0], [0, 1]])
        )  # a group may be one class
    return np.column_stack([group, scores]), y


@settings(max_examples=60, deadline=None)
@given(data=two_groups(), tolerance=st.sampled_from([0.0, 0.1, 0.25, 1.0]))
def test_demographic_parity_is_the_brute_force_optimum(data, tolerance):
    X, y = data
    clf = fit(X, y, tolerance=tolerance)
    expected = brute_dp(X[:, 1], y, X[:, 0], tolerance)
    assert clf.accuracy_ == pytest.approx(expected, abs=1e-9)
    assert clf.violation_ <= tolerance + 1e-9


@settings(max_examples=40, deadline=None)
@given(data=two_groups(both_classes=True))
def test_equalized_odds_is_the_brute_force_optimum(data):
    X, y = data
    clf = fit(X, y, constraint="equalized_odds")
    assert clf.accuracy_ == pytest.approx(
        brute_equalized_odds(X[:, 1], y, X[:, 0]), abs=1e-9
    )
    assert clf.violation_ <= 1e-9


@settings(max_examples=30, deadline=None)
@given(data=two_groups(both_classes=True))
def test_tolerance_one_is_each_groups_best_threshold(data):
    X, y = data
    best = sum(
        max(r[3] for r in threshold_rules(X[X[:, 0] == g, 1], y[X[:, 0] == g]))
        for g in (0, 1)
    )
    for constraint in ("demographic_parity", "equal_opportunity", "equalized_odds"):
        clf = fit(X, y, constraint=constraint, tolerance=1.0)
        assert clf.accuracy_ == pytest.approx(best / y.size, abs=1e-9)


def brute_multiclass(mass, labels, tolerance):
    """DP optimum over mixtures of each group's deterministic cell rules.

    ``mass[g][c]`` is cell c's weight in group g, ``labels[g][c]`` its
    class-share vector (the scores); an LP over the mixing weights of every
    deterministic rule (one class per cell), not over the cells.
    """
    n_classes = labels[0].shape[1]
    total = sum(m.sum() for m in mass)
    rules = []
    for g, (m, s) in enumerate(zip(mass, labels)):
        for choice in itertools.product(range(n_classes), repeat=m.size):
            rates = np.zeros(n_classes)
            gain = 0.0
            for c, k in enumerate(choice):
                rates[k] += m[c] / m.sum()
                gain += m[c] * s[c, k]
            rules.append((g, rates, gain / total))
    n_x, n_groups = len(rules), len(mass)
    a_ub, b_ub = [], []
    for g in range(n_groups):
        for k in range(n_classes):
            for sign in (1, -1):
                row = np.zeros(n_x + n_classes)
                for i, (h, rates, _) in enumerate(rules):
                    if h == g:
                        row[i] = sign * rates[k]
                row[n_x + k] = -sign
                a_ub.append(row)
                b_ub.append(tolerance / 2)
    a_eq = np.zeros((n_groups, n_x + n_classes))
    for i, (g, _, _) in enumerate(rules):
        a_eq[g, i] = 1
    c = np.r_[[-gain for _, _, gain in rules], np.zeros(n_classes)]
    bounds = [(0, None)] * n_x + [(None, None)] * n_classes
    res = linprog(
        c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.ones(n_groups), bounds=bounds
    )
    return -res.fun


@pytest.mark.parametrize("tolerance", [0.0, 0.1, 0.3])
@pytest.mark.parametrize("seed", range(4))
def test_multiclass_is_the_optimum_over_deterministic_cell_rules(seed, tolerance):
    rng = np.random.default_rng(seed)
    cells = rng.dirichlet(np.ones(3), size=(2, 3)).round(2)  # 2 groups x 3 cells
    cells /= cells.sum(axis=2, keepdims=True)
    counts = rng.integers(1, 5, size=(2, 3))
    rows = [(g, c) for g in range(2) for c in range(3) for _ in range(counts[g, c])]
    group = np.array([g for g, _ in rows])
    proba = np.array([cells[g, c] for g, c in rows])
    y = np.arange(len(rows)) % 3
    X = np.column_stack([group, proba])
    clf = fit(X, y, tolerance=tolerance, n_bins=1000)
    lp_gain = np.sum(clf.predict_proba(X) * proba) / len(rows)  # score-based
    mass = [counts[g].astype(float) for g in range(2)]
    assert lp_gain == pytest.approx(
        brute_multiclass(mass, list(cells), tolerance), abs=1e-9
    )
    assert clf.violation_ <= tolerance + 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_multiclass_perfect_predictor_matches_the_closed_form(seed):
    # one-hot scores: the least error at DP is min over q of sum_g w_g TV(p_g, q),
    # which for two groups is min(w) TV(p_0, p_1) (Xian et al., 2023)
    rng = np.random.default_rng(seed)
    n = 300
    group = (rng.random(n) < 0.35).astype(int)
    y = np.where(group == 1, rng.choice(3, n, p=[0.6, 0.3, 0.1]), rng.choice(3, n))
    X = np.column_stack([group, np.eye(3)[y]])
    clf = fit(X, y)
    shares = [
        np.bincount(y[group == g], minlength=3) / np.sum(group == g) for g in (0, 1)
    ]
    weight = min(np.mean(group == 0), np.mean(group == 1))
    tv = 0.5 * np.abs(shares[0] - shares[1]).sum()
    assert clf.accuracy_ == pytest.approx(1 - weight * tv, abs=1e-9)
    assert clf.violation_ <= 1e-9


# ------------------------------------------------------------ the fitted rule
@pytest.fixture
def binary_data():
    rng = np.random.default_rng(0)
    n = 3000
    group = rng.integers(0, 3, n)
    x = rng.normal(0.5 * group, 1.0, n)
    y = (x + rng.normal(0, 1, n) > 0.5).astype(int)
    return np.column_stack([group, x, rng.normal(size=n)]), y


@pytest.mark.parametrize(
    "constraint", ["demographic_parity", "equal_opportunity", "equalized_odds"]
)
@pytest.mark.parametrize("tolerance", [0.0, 0.03])
def test_rates_accuracy_and_rules_agree_on_the_fit_data(
    binary_data, constraint, tolerance
):
    X, y = binary_data
    model = LogisticRegression().fit(X, y)
    clf = OptimalParityClassifier(
        FrozenEstimator(model), sensitive=0, constraint=constraint, tolerance=tolerance
    ).fit(X, y)
    proba = clf.predict_proba(X)[:, 1]
    assert clf.accuracy_ == pytest.approx(np.mean(np.where(y == 1, proba, 1 - proba)))
    assert clf.violation_ <= tolerance + 1e-9
    scores = model.predict_proba(X)[:, 1]
    for g, (t, w) in enumerate(zip(clf.thresholds_, clf.mixing_weights_)):
        rows = X[:, 0] == g
        by_hand = (scores[rows, None] >= t[None, :]) @ w
        np.testing.assert_allclose(proba[rows], by_hand)
        assert w.sum() == pytest.approx(1.0) and np.all(np.diff(t) < 0)
    column = {"demographic_parity": None, "equal_opportunity": 1}.get(constraint, 1)
    rows = np.ones(y.size, bool) if column is None else y == column
    rate = [proba[(X[:, 0] == g) & rows].mean() for g in range(3)]
    np.testing.assert_allclose(clf.rates_.iloc[:, 0], rate)


def test_predict_draws_from_predict_proba_reproducibly(binary_data):
    X, y = binary_data
    clf = OptimalParityClassifier(
        FrozenEstimator(LogisticRegression().fit(X, y)), sensitive=0, random_state=3
    ).fit(X, y)
    proba = clf.predict_proba(X)[:, 1]
    pred = clf.predict(X)
    mixed = (proba > 0.05) & (proba < 0.95)
    assert mixed.sum() > 100  # the rule randomises somewhere
    assert abs(pred[mixed].mean() - proba[mixed].mean()) < 0.1
    np.testing.assert_array_equal(pred[(proba == 0)], 0)
    np.testing.assert_array_equal(pred[(proba == 1)], 1)
    np.testing.assert_array_equal(clf.predict(X[::-1])[::-1], pred)
    np.testing.assert_array_equal(clf.predict(X[:100]), pred[:100])
    other = OptimalParityClassifier(
        FrozenEstimator(clf.estimator_.estimator), sensitive=0, random_state=4
    ).fit(X, y)
    assert np.any(other.predict(X)[mixed] != pred[mixed])


def test_cross_fitting_and_held_out_gap(binary_data):
    X, y = binary_data
    clf = OptimalParityClassifier(
        LogisticRegression(),
        sensitive=0,
        constraint="equalized_odds",
        tolerance=0.02,
        random_state=0,
    ).fit(X[:2000], y[:2000])
    assert clf.violation_ <= 0.02 + 1e-9
    pred = clf.predict(X[2000:])
    rates = [
        [np.mean(pred[(X[2000:, 0] == g) & (y[2000:] == c)]) for g in range(3)]
        for c in (0, 1)
    ]
    assert max(max(r) - min(r) for r in rates) < 0.15  # 1,000 held-out rows
    assert np.mean(pred == y[2000:]) > 0.7


def test_cost_matrix_moves_the_thresholds(binary_data):
    X, y = binary_data
    cheap = fit(X[:, :2], y, tolerance=1.0)
    costly_misses = fit(X[:, :2], y, tolerance=1.0, cost_matrix=[[0, 1], [5, 0]])
    assert np.all(
        costly_misses.predict_proba(X[:, :2])[:, 1]
        >= cheap.predict_proba(X[:, :2])[:, 1]
    )
    assert costly_misses.accuracy_ < cheap.accuracy_


def test_multiclass_linear_rule_agrees_with_pure_cells():
    rng = np.random.default_rng(1)
    n = 4000
    group = rng.integers(0, 2, n)
    x = rng.normal(group[:, None] * 0.7, 1, (n, 2))
    y = np.digitize(x.sum(axis=1) + rng.normal(0, 1, n), [0.3, 1.8])
    X = np.column_stack([group, x])
    for constraint in ("demographic_parity", "equal_opportunity", "equalized_odds"):
        clf = OptimalParityClassifier(
            LogisticRegression(), sensitive=0, constraint=constraint, tolerance=0.02
        ).fit(X, y)
        proba = clf.estimator_.predict_proba(X)
        decided = clf.predict_proba(X)
        pure = decided.max(axis=1) > 1 - 1e-9
        for g in (0, 1):
            rows = pure & (group == g)
            adjusted = proba[rows] @ clf.coef_[g] + clf.intercept_[g]
            chosen = adjusted[np.arange(rows.sum()), decided[rows].argmax(axis=1)]
            assert np.mean(chosen >= adjusted.max(axis=1) - 1e-6) > 0.99
        # a probability vector no fit row had goes through the linear rule
        probe = np.array([[0, 0.333, 0.333, 0.334], [1, 0.05, 0.05, 0.9]])
        probe_proba = clf._cell_decisions(probe[:, 1:], np.array([0, 1]))
        assert set(np.unique(probe_proba)) <= {0.0, 1.0}


def test_multiclass_demographic_parity_holds_out():
    rng = np.random.default_rng(2)
    n = 20000
    group = rng.integers(0, 2, n)
    x = rng.normal(group[:, None] * 0.8, 1, (n, 2))
    y = np.digitize(x.sum(axis=1) + rng.normal(0, 1, n), [0.3, 1.8])
    X = np.column_stack([group, x])
    clf = OptimalParityClassifier(
        LogisticRegression(), sensitive=0, tolerance=0.02, random_state=0
    ).fit(X[: n // 2], y[: n // 2])
    assert clf.violation_ <= 0.02 + 1e-9
    pred = clf.predict(X[n // 2 :])
    test_group = group[n // 2 :]
    gap = max(
        abs(np.mean(pred[test_group == 0] == k) - np.mean(pred[test_group == 1] == k))
        for k in range(3)
    )
    raw = clf.estimator_.predict(X[n // 2 :])
    raw_gap = max(
        abs(np.mean(raw[test_group == 0] == k) - np.mean(raw[test_group == 1] == k))
        for k in range(3)
    )
    assert gap <= 0.02 + 0.03 < raw_gap


# ------------------------------------------------------------ inputs and errors
def test_dataframes_pandas_and_polars_agree(binary_data):
    pl = pytest.importorskip("polars")
    if not hasattr(pl.DataFrame, "size") and parse_version(
        sklearn.__version__
    ) < parse_version("1.8"):
        pytest.skip(
            "scikit-learn's ColumnTransformer reads DataFrame.size, which this "
            f"polars ({pl.__version__}) lacks"
        )
    X, y = binary_data
    frame = pd.DataFrame({"g": X[:, 0].astype(int).astype(str), "x": X[:, 1]})
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["g"]), remainder="passthrough"),
        LogisticRegression(),
    )
    clf = OptimalParityClassifier(model, sensitive="g", random_state=0, cv=3)
    pred = clf.fit(frame, y).predict(frame)
    assert clf.groups_ == ["0", "1", "2"] and clf.rates_.index.name == "g"
    pred_pl = clf.fit(pl.from_pandas(frame), y).predict(pl.from_pandas(frame))
    np.testing.assert_array_equal(pred, pred_pl)


def test_intersection_of_two_sensitive_columns(binary_data):
    X, y = binary_data
    X = np.column_stack([X, (X[:, 2] > 0).astype(int)])
    both = OptimalParityClassifier(
        FrozenEstimator(LogisticRegression().fit(X, y)),
        sensitive=[0, 3],
        tolerance=0.05,
    ).fit(X, y)
    assert len(both.groups_) == 6 and isinstance(both.rates_.index, pd.MultiIndex)
    assert both.violation_ <= 0.05 + 1e-9


def test_errors(binary_data):
    X, y = binary_data
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="at least two groups"):
        OptimalParityClassifier(FrozenEstimator(model), sensitive=0).fit(
            np.column_stack([np.zeros(len(y)), X[:, 1:]]), y
        )
    assert "at least two groups" in TOO_FEW_GROUPS_ERROR
    clf = OptimalParityClassifier(FrozenEstimator(model), sensitive=0).fit(X, y)
    unseen = X.copy()
    unseen[:5, 0] = 7
    with pytest.raises(ValueError, match="not seen during fit"):
        clf.predict(unseen)
    assert "not seen during fit" in UNSEEN_GROUP_ERROR
    nan = X.copy()
    nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        OptimalParityClassifier(FrozenEstimator(model), sensitive=0).fit(nan, y)
    for tolerance in (-0.1, 1.5):
        with pytest.raises(InvalidParameterError, match="tolerance"):
            OptimalParityClassifier(model, sensitive=0, tolerance=tolerance).fit(X, y)
    with pytest.raises(InvalidParameterError, match="estimator"):
        OptimalParityClassifier(object(), sensitive=0).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        OptimalParityClassifier(model, sensitive=0).fit(X, np.ones_like(y))
    assert "one class" in SINGLE_CLASS_ERROR
    y3 = np.arange(len(y)) % 3
    with pytest.raises(ValueError) as info:
        OptimalParityClassifier(LinearSVC(), sensitive=0).fit(X, y3)
    assert str(info.value) == MULTICLASS_SCORES_ERROR.format(
        n_classes=3, name="LinearSVC"
    )
    y_missing = y.copy()
    y_missing[X[:, 0] == 2] = 0
    with pytest.raises(ValueError) as info:
        OptimalParityClassifier(
            FrozenEstimator(model), sensitive=0, constraint="equal_opportunity"
        ).fit(X, y_missing)
    assert str(info.value) == MISSING_CLASS_ERROR.format(
        constraint="equal_opportunity", label=1, group=2.0
    )
    with pytest.raises(ValueError) as info:
        OptimalParityClassifier(
            FrozenEstimator(model), sensitive=0, cost_matrix=np.ones(3)
        ).fit(X, y)
    assert str(info.value) == COST_MATRIX_ERROR.format(expected=(2, 2), got=(3,))


def test_a_presolve_infeasible_verdict_is_solved_again(binary_data, monkeypatch):
    # HiGHS's presolve once called a (feasible) 3-class equalised-odds program
    # at tolerance 0 infeasible; the solver then runs again without presolve
    import skfair.postprocessing._parity_lp as parity_lp

    calls = []
    real = parity_lp.linprog

    def presolve_says_infeasible(**kwargs):
        calls.append(kwargs.get("options"))
        result = real(**kwargs)
        if kwargs.get("options") is None:
            result.status = 2
        return result

    monkeypatch.setattr(parity_lp, "linprog", presolve_says_infeasible)
    X, y = binary_data
    clf = fit(X[:, :2], y, constraint="equalized_odds")
    assert calls == [None, {"presolve": False}]
    assert clf.violation_ <= 1e-9
