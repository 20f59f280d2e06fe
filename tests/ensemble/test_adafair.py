import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import AdaBoostClassifier
from sklearn.metrics import accuracy_score, balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from skfair.ensemble import AdaFairClassifier
from skfair.ensemble._adafair import (
    _MIN_ERROR,
    _fairness_costs,
    _stage_statistics,
    _update_weights,
)
from skfair.utils._groups import PRIVILEGED_UNKNOWN_ERROR

# parametrize_with_checks for every estimator lives in tests/test_common.py


def _biased_data(n=1000, seed=0):
    """Group 0 (protected) positives are hard to recognise."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    x = y * np.where(group == 1, 2.0, 0.5) + rng.normal(size=n)
    X = np.column_stack([x, rng.normal(size=n), group])
    return X, y, group


# --------------------------------------------------------------------------
# Fairness costs and weight updates
# --------------------------------------------------------------------------


def test_costs_hit_the_disadvantaged_cell_only():
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    protected = np.array([True, True, False, False, True, True, False, False])
    incorrect = np.array([True, False, True, False, True, False, True, False])
    # Protected positives have the lower TPR, non-protected negatives the
    # lower TNR: the reference code would test ΔTPR's sign for negatives too
    # and put the negative cost on the protected group.
    u = _fairness_costs(y, incorrect, protected, delta_tpr=0.3, delta_tnr=-0.2)
    np.testing.assert_allclose(u, [1.3, 1, 1, 1, 1, 1, 1.2, 1])
    u = _fairness_costs(y, incorrect, protected, delta_tpr=-0.3, delta_tnr=0.2)
    np.testing.assert_allclose(u, [1, 1, 1.3, 1, 1.2, 1, 1, 1])
    u = _fairness_costs(y, incorrect, protected, delta_tpr=0.0, delta_tnr=0.0)
    np.testing.assert_allclose(u, 1.0)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1),
    st.floats(-1, 1),
    st.floats(-1, 1),
)
def test_costs_property(rows, delta_tpr, delta_tnr):
    y = np.array([r[0] for r in rows], dtype=int)
    protected = np.array([r[1] for r in rows])
    incorrect = np.array([r[2] for r in rows])
    u = _fairness_costs(y, incorrect, protected, delta_tpr, delta_tnr)
    assert np.all(u >= 1)
    assert np.all(u[~incorrect] == 1)  # correct samples never pay
    for cls, delta in ((1, delta_tpr), (0, delta_tnr)):
        cell = (y == cls) & incorrect
        expected_group = protected if delta > 0 else ~protected
        paying = cell & expected_group if delta != 0 else np.zeros_like(cell)
        np.testing.assert_allclose(u[paying], 1 + abs(delta))
        np.testing.assert_allclose(u[cell & ~paying], 1)


def test_update_raises_misclassified_disadvantaged_weights_most():
    weights = np.full(4, 0.25)
    incorrect = np.array([True, True, False, False])
    u = np.array([1.5, 1.0, 1.0, 1.0])  # sample 0 is in the disadvantaged cell
    confidence = np.array([0.8, 0.8, 0.8, 0.8])
    new = _update_weights(weights, incorrect, alpha=1.0, confidence=confidence, u=u)
    np.testing.assert_allclose(new.sum(), 1.0)
    assert new[0] > new[1] > new[2] == new[3]
    np.testing.assert_allclose(new[0] / new[1], 1.5)
    np.testing.assert_allclose(new[1] / new[2], np.exp(0.8))


@pytest.fixture
def recorded_stumps(monkeypatch):
    """Record every stump AdaFair fits, with the weights it was fitted on."""
    records = []

    class RecordingStump(DecisionTreeClassifier):
        def fit(self, X, y, sample_weight=None):
            records.append((self, np.array(sample_weight, copy=True)))
            return super().fit(X, y, sample_weight=sample_weight)

    monkeypatch.setattr(
        "skfair.ensemble._adafair.DecisionTreeClassifier", RecordingStump
    )
    return records


def _brute_force_gaps(y, pred, protected):
    tpr = [np.mean(pred[(y == 1) & (protected == p)] == 1) for p in (False, True)]
    tnr = [np.mean(pred[(y == 0) & (protected == p)] == 0) for p in (False, True)]
    return tpr[0] - tpr[1], tnr[0] - tnr[1]


def test_second_round_weights_follow_the_update_rule(recorded_stumps):
    X, y, group = _biased_data()
    protected = group == 0
    AdaFairClassifier(sensitive=2, privileged=1, n_estimators=2, random_state=0).fit(
        X, y
    )
    (first, w0), (_, w1) = recorded_stumps
    np.testing.assert_allclose(w0, 1 / y.size)
    proba = first.predict_proba(X[:, :2])
    pred = first.predict(X[:, :2])
    incorrect = pred != y
    error = w0[incorrect].sum()
    alpha = np.log((1 - error) / error)
    delta_tpr, delta_tnr = _brute_force_gaps(y, pred, protected)
    assert delta_tpr > 0  # the protected positives are disadvantaged
    u = np.ones(y.size)
    u[(y == 1) & protected & incorrect] = 1 + abs(delta_tpr)
    cell = (y == 0) & incorrect & (protected if delta_tnr > 0 else ~protected)
    u[cell] = 1 + abs(delta_tnr)
    expected = np.where(incorrect, w0 * u * np.exp(alpha * proba.max(axis=1)), w0)
    np.testing.assert_allclose(w1, expected / expected.sum())
    # Direction: the misclassified protected positives gain weight relative
    # to the other misclassified positives, compared with plain boosting.
    hard = (y == 1) & protected & incorrect
    other = (y == 1) & ~protected & incorrect
    assert hard.any()
    assert other.any()
    ratio_before = w0[hard].mean() / w0[other].mean()
    ratio_after = w1[hard].mean() / w1[other].mean()
    assert ratio_after > ratio_before


# --------------------------------------------------------------------------
# Stage statistics against brute force
# --------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=2, max_size=40
    )
)
def test_stage_statistics_match_sklearn(rows):
    y = np.array([r[0] for r in rows], dtype=int)
    y_pred = np.array([r[1] for r in rows], dtype=int)
    protected = np.array([r[2] for r in rows])
    if len(set(y)) < 2:
        return
    err, ber, delta_tpr, delta_tnr = _stage_statistics(
        y, y_pred, protected, np.ones(y.size)
    )
    np.testing.assert_allclose(err, 1 - accuracy_score(y, y_pred))
    np.testing.assert_allclose(ber, 1 - balanced_accuracy_score(y, y_pred))

    def rate(cls, mask):
        cell = (y == cls) & mask
        return None if not cell.any() else np.mean(y_pred[cell] == cls)

    for cls, delta in ((1, delta_tpr), (0, delta_tnr)):
        a, b = rate(cls, ~protected), rate(cls, protected)
        expected = 0.0 if a is None or b is None else a - b
        np.testing.assert_allclose(delta, expected)


# --------------------------------------------------------------------------
# θ selection
# --------------------------------------------------------------------------


def test_theta_is_the_argmin_of_the_objective_path():
    X, y, _ = _biased_data()
    clf = AdaFairClassifier(sensitive=2, privileged=1, n_estimators=30, random_state=0)
    clf.fit(X, y)
    assert clf.objective_path_.shape == (30,)
    assert clf.theta_ == np.argmin(clf.objective_path_) + 1
    assert len(clf.estimators_) == clf.theta_ == clf.estimator_weights_.size
    # Refitting with n_estimators=θ reproduces the same rounds, hence the same
    # prefix of the path and the same model.
    short = AdaFairClassifier(
        sensitive=2, privileged=1, n_estimators=clf.theta_, random_state=0
    ).fit(X, y)
    np.testing.assert_allclose(short.objective_path_, clf.objective_path_[: clf.theta_])
    assert short.theta_ == clf.theta_
    np.testing.assert_array_equal(short.predict(X), clf.predict(X))


def test_objective_path_matches_staged_ensembles(recorded_stumps):
    X, y, group = _biased_data(400)
    c = 0.3
    clf = AdaFairClassifier(
        sensitive=2, privileged=1, n_estimators=8, trade_off_c=c, random_state=0
    ).fit(X, y)
    alphas = np.log((1 - clf.estimator_errors_) / clf.estimator_errors_)
    assert len(recorded_stumps) == alphas.size == 8
    margin = np.zeros(y.size)
    for k, ((stump, _), alpha) in enumerate(zip(recorded_stumps, alphas, strict=True)):
        margin += alpha * (2 * stump.predict(X[:, :2]) - 1)
        pred = (margin > 0).astype(int)
        delta_tpr, delta_tnr = _brute_force_gaps(y, pred, group == 0)
        expected = (
            c * (1 - balanced_accuracy_score(y, pred))
            + (1 - c) * (1 - accuracy_score(y, pred))
            + abs(delta_tpr)
            + abs(delta_tnr)
        )
        np.testing.assert_allclose(clf.objective_path_[k], expected)


def test_trade_off_c_is_used():
    X, y, _ = _biased_data()
    paths = [
        AdaFairClassifier(
            sensitive=2, privileged=1, n_estimators=10, trade_off_c=c, random_state=0
        )
        .fit(X, y)
        .objective_path_
        for c in (0.0, 1.0)
    ]
    assert not np.allclose(paths[0], paths[1])


# --------------------------------------------------------------------------
# Degenerate learners and labels
# --------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")  # tiny data
def test_zero_error_stump():
    X = np.array([[0.0, 0], [1.0, 0], [2.0, 1], [3.0, 1], [4.0, 0], [5.0, 1]])
    y = np.array([0, 0, 0, 1, 1, 1])
    clf = AdaFairClassifier(sensitive=1, n_estimators=10, random_state=0).fit(X, y)
    assert clf.estimator_errors_.tolist() == [0.0]  # stopped after one round
    assert clf.theta_ == 1
    np.testing.assert_allclose(
        clf.estimator_weights_, [np.log((1 - _MIN_ERROR) / _MIN_ERROR)]
    )
    np.testing.assert_array_equal(clf.predict(X), y)
    assert np.all(np.isfinite(clf.decision_function(X)))


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")  # tiny data
def test_chance_level_first_stump_is_kept():
    X = np.column_stack([np.zeros(6), [0, 1, 0, 1, 0, 1]])  # nothing to split on
    y = np.array([0, 1, 0, 1, 1, 0])
    clf = AdaFairClassifier(sensitive=1, n_estimators=5, random_state=0).fit(X, y)
    assert clf.estimator_errors_.tolist() == [0.5]
    assert clf.theta_ == 1
    np.testing.assert_allclose(clf.estimator_weights_, [1.0])
    assert len(set(clf.predict(X))) == 1


@pytest.mark.parametrize(
    "labels",
    [np.array(["bad", "good"]), np.array([-1, 1]), np.array([False, True])],
    ids=["strings", "plus-minus-one", "bools"],
)
def test_any_binary_labels_give_the_same_model(labels):
    X, y, _ = _biased_data(400)
    params = {"sensitive": 2, "privileged": 1, "n_estimators": 10, "random_state": 0}
    reference = AdaFairClassifier(**params).fit(X, y)
    relabelled = AdaFairClassifier(**params).fit(X, labels[y])
    assert relabelled.classes_.tolist() == labels.tolist()
    np.testing.assert_array_equal(relabelled.predict(X), labels[reference.predict(X)])
    np.testing.assert_allclose(relabelled.objective_path_, reference.objective_path_)


def test_negatives_are_reweighted_with_plus_minus_one_labels():
    # The HFM paper's code passed 0/1 labels to a reference implementation
    # that only reweights ``y == -1`` negatives; here a TNR gap must change
    # the weights of misclassified negatives whatever the labels are.
    X, y, group = _biased_data(600)
    y_flipped = 1 - y  # the hard cell is now the protected negatives
    for labels in (np.array([0, 1]), np.array([-1, 1])):
        clf = AdaFairClassifier(
            sensitive=2, privileged=1, n_estimators=20, random_state=0
        ).fit(X, labels[y_flipped])
        pred = clf.predict(X) == labels[1]
        protected = group == 0
        tnr = [np.mean(~pred[(y_flipped == 0) & (protected == p)]) for p in (0, 1)]
        plain = AdaBoostClassifier(n_estimators=20, random_state=0).fit(
            X[:, :2], y_flipped
        )
        pred_plain = plain.predict(X[:, :2]) == 1
        tnr_plain = [
            np.mean(~pred_plain[(y_flipped == 0) & (protected == p)]) for p in (0, 1)
        ]
        assert abs(tnr[0] - tnr[1]) < abs(tnr_plain[0] - tnr_plain[1])


def test_privileged_default_and_errors():
    X, y, group = _biased_data(300)
    frame = pd.DataFrame(
        {"x": X[:, 0], "z": X[:, 1], "sex": np.where(group == 1, "m", "f")}
    )
    frame.loc[:200, "sex"] = "m"  # make "m" the majority
    clf = AdaFairClassifier(sensitive="sex", n_estimators=3, random_state=0)
    assert clf.fit(frame, y).privileged_ == "m"
    clf.set_params(privileged="x")
    message = PRIVILEGED_UNKNOWN_ERROR.format(
        privileged="x", name="sex", labels=["f", "m"]
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.fit(frame, y)


def test_intersection_privileged_tuple():
    X, y, group = _biased_data(300)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "x": X[:, 0],
            "sex": np.where(group == 1, "m", "f"),
            "age": rng.choice(["old", "young"], 300),
        }
    )
    clf = AdaFairClassifier(
        sensitive=["sex", "age"], privileged=("m", "old"), n_estimators=3
    ).fit(frame, y)
    assert clf.privileged_ == ("m", "old")
    assert len(clf.groups_) == 4


def test_proba_is_the_vote_share():
    X, y, _ = _biased_data(300)
    clf = AdaFairClassifier(sensitive=2, n_estimators=10, random_state=0).fit(X, y)
    margin = clf.decision_function(X)
    assert np.all(np.abs(margin) <= 1 + 1e-12)
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], (1 + margin) / 2)
    np.testing.assert_array_equal(clf.predict(X), (margin > 0).astype(int))


@pytest.mark.slow
def test_income_eo_gap_smaller_than_adaboost_on_held_out_data():
    from skfair.datasets import load_hfm_dataset
    from skfair.model_selection import make_hfm_encoder

    income = load_hfm_dataset("income")
    X, y = income.data, income.target.to_numpy()
    male = (X["sex"] == "Male").to_numpy().astype(float)
    X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(
        X, y, male, test_size=0.3, random_state=0, stratify=y
    )
    encoder = make_hfm_encoder(list(income.sensitive))
    Z_train = np.column_stack([s_train, encoder.fit_transform(X_train)])
    Z_test = np.column_stack([s_test, encoder.transform(X_test)])
    n_learners = 50
    fair = AdaFairClassifier(
        sensitive=0,
        privileged=1,
        n_estimators=n_learners,
        random_state=0,
        sensitive_as_feature=True,
    ).fit(Z_train, y_train)
    plain = AdaBoostClassifier(n_estimators=n_learners, random_state=0)
    plain.fit(Z_train, y_train)

    def tpr_gap(pred):
        tpr = [np.mean(pred[(y_test == 1) & (s_test == g)] == 1) for g in (0, 1)]
        return abs(tpr[0] - tpr[1])

    assert tpr_gap(fair.predict(Z_test)) < tpr_gap(plain.predict(Z_test))


def test_left_out_samples_take_no_part_in_the_gaps_and_costs():
    # issue 10 item 2: min_group_size leaves groups out of the comparison
    rng = np.random.default_rng(0)
    y, y_pred = rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    protected, kept = rng.random(60) < 0.5, rng.random(60) < 0.7
    weight = rng.uniform(0.5, 2.0, 60)
    everyone = _stage_statistics(y, y_pred, protected, weight)
    with_kept = _stage_statistics(y, y_pred, protected, weight, kept)
    subset = _stage_statistics(y[kept], y_pred[kept], protected[kept], weight[kept])
    assert with_kept[:2] == everyone[:2]  # errors: every sample
    assert with_kept[2:] == subset[2:]  # gaps: the kept samples only
    incorrect = y_pred != y
    u = _fairness_costs(y, incorrect, protected, 0.3, -0.2, kept)
    np.testing.assert_array_equal(u[~kept], 1.0)
    np.testing.assert_array_equal(
        u[kept], _fairness_costs(y[kept], incorrect[kept], protected[kept], 0.3, -0.2)
    )


def test_min_group_size_fit_leaves_the_small_group_out():
    X, y, _ = _biased_data(400)
    X[:3, 2] = 7  # a group of three
    clf = AdaFairClassifier(sensitive=2, n_estimators=5, min_group_size=10)
    clf.fit(X, y)
    assert clf.groups_ == (0.0, 1.0)
