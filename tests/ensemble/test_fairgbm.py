import pickle
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score, train_test_split

from skfair.ensemble import FairGBMClassifier
from skfair.utils._estimator import (
    NO_FEATURES_ERROR,
    NON_NUMERIC_FEATURE_ERROR,
    NON_NUMERIC_SENSITIVE_HINT,
)
from skfair.utils._sensitive_spec import SPEC_MISSING_COLUMN_ERROR
from skfair.utils._validation import ONLY_BINARY_ERROR

pytest.importorskip("fairgbm")

# parametrize_with_checks for every estimator lives in tests/test_common.py


def _rates(y_true, y_pred, group):
    """FNR and FPR of every group value, by brute force."""
    fnr = {g: np.mean(y_pred[(group == g) & (y_true == 1)] == 0) for g in (0, 1)}
    fpr = {g: np.mean(y_pred[(group == g) & (y_true == 0)] == 1) for g in (0, 1)}
    return fnr, fpr


def _biased_data(n=1200, seed=0):
    """Group 1 positives are easy to find, group 0 positives hard: FNR gap."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    signal = np.where(group == 1, 2.0, 0.4)
    x = y * signal + rng.normal(size=n)
    noise = rng.normal(size=n)
    frame = pd.DataFrame(
        {"x": x, "noise": noise, "group": np.where(group == 1, "a", "b")}
    )
    return frame, y, group


def test_fit_predict_dataframe_string_groups_and_labels():
    X, y, _ = _biased_data(300)
    labels = np.where(y == 1, "yes", "no")
    clf = FairGBMClassifier(sensitive="group", n_estimators=10, random_state=0)
    clf.fit(X, labels)
    assert clf.classes_.tolist() == ["no", "yes"]
    assert clf.groups_ == ("a", "b")
    assert clf.n_features_in_ == 3
    assert clf.feature_names_in_.tolist() == ["x", "noise", "group"]
    assert clf.booster_.num_feature() == 2  # the group column is not a feature
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    pred = clf.predict(X)
    assert set(pred) <= {"no", "yes"}
    np.testing.assert_array_equal(pred == "yes", proba[:, 1] > 0.5)
    np.testing.assert_array_equal(pred == "yes", clf.decision_function(X) > 0)
    assert np.mean(pred == labels) > 0.7


def test_sensitive_as_feature_uses_the_columns():
    X, y, group = _biased_data(300)
    X = X.assign(group=group)
    clf = FairGBMClassifier(
        sensitive="group", sensitive_as_feature=True, n_estimators=5, random_state=0
    ).fit(X, y)
    assert clf.booster_.num_feature() == 3


def test_two_sensitive_columns_are_intersected():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200), rng.integers(0, 2, (200, 2))])
    y = (X[:, 0] > 0).astype(int)
    clf = FairGBMClassifier(sensitive=[1, 2], n_estimators=5, random_state=0)
    clf.fit(X, y)
    assert clf.groups_ == ((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0))


def test_unseen_group_at_predict_is_fine():
    X, y, _ = _biased_data(200)
    clf = FairGBMClassifier(sensitive="group", n_estimators=5, random_state=0)
    clf.fit(X, y)
    new = X.assign(group="never seen")
    np.testing.assert_array_equal(clf.predict(new), clf.predict(X))


def test_non_numeric_feature_error():
    X, y, _ = _biased_data(100)
    X = X.assign(colour=np.where(y == 1, "red", "blue"))
    clf = FairGBMClassifier(sensitive="group", n_estimators=2)
    message = NON_NUMERIC_FEATURE_ERROR.format(
        estimator="FairGBMClassifier", columns=["colour"], hint=""
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.fit(X, y)


def test_non_numeric_sensitive_used_as_feature_error_has_hint():
    X, y, _ = _biased_data(100)
    clf = FairGBMClassifier(sensitive="group", sensitive_as_feature=True)
    message = NON_NUMERIC_FEATURE_ERROR.format(
        estimator="FairGBMClassifier",
        columns=["group"],
        hint=NON_NUMERIC_SENSITIVE_HINT,
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.fit(X, y)


def test_only_sensitive_columns_error():
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    message = NO_FEATURES_ERROR.format(
        estimator="FairGBMClassifier", n_features=1, names=["x0"]
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        FairGBMClassifier(sensitive=0).fit(X, [0, 1, 1, 0])


def test_multiclass_error():
    X = np.column_stack([np.arange(9.0), np.arange(9) % 2])
    message = ONLY_BINARY_ERROR.format(
        estimator="FairGBMClassifier",
        y_type="multiclass",
        n_classes=3,
        classes=[0, 1, 2],
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        FairGBMClassifier(sensitive=1).fit(X, np.arange(9) % 3)


def test_missing_sensitive_column_error():
    X, y, _ = _biased_data(50)
    message = SPEC_MISSING_COLUMN_ERROR.format(
        missing=["sex"], kind="a pandas DataFrame", columns=["x", "noise", "group"]
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        FairGBMClassifier(sensitive="sex").fit(X, y)


def test_fit_and_pickle_are_silent(capfd):
    X, y, _ = _biased_data(200)
    clf = FairGBMClassifier(sensitive="group", n_estimators=5, random_state=0)
    clf.fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.predict_proba(X), clf.predict_proba(X))
    out, err = capfd.readouterr()
    assert out == ""
    assert err == ""


def test_reproducible_with_random_state():
    X, y, _ = _biased_data(300)
    clf = FairGBMClassifier(sensitive="group", n_estimators=10, random_state=3)
    first = clf.fit(X, y).predict_proba(X)
    second = clone(clf).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(first, second)


def test_works_in_cross_val_score():
    X, y, _ = _biased_data(300)
    clf = FairGBMClassifier(sensitive="group", n_estimators=10, random_state=0)
    scores = cross_val_score(clf, X, y, cv=3)
    assert scores.shape == (3,)
    assert scores.mean() > 0.6


def test_fnr_constraint_narrows_the_training_fnr_gap():
    # multiplier_learning_rate=0 keeps the Lagrange multipliers at 0: the
    # plain cross-entropy booster, trained on the same trees' settings.
    X, y, group = _biased_data()
    params = {"sensitive": "group", "constraint_type": "FNR", "n_estimators": 50}
    fair = FairGBMClassifier(**params, random_state=0).fit(X, y)
    plain = FairGBMClassifier(**params, multiplier_learning_rate=0.0, random_state=0)
    plain.fit(X, y)
    fnr_fair, _ = _rates(y, fair.predict(X), group)
    fnr_plain, _ = _rates(y, plain.predict(X), group)
    gap_fair = abs(fnr_fair[0] - fnr_fair[1])
    gap_plain = abs(fnr_plain[0] - fnr_plain[1])
    assert gap_plain > 0.2  # the data really is biased
    assert gap_fair < gap_plain / 2


def test_fpr_constraint_narrows_the_training_fpr_gap():
    X, y, group = _biased_data()
    y_flipped = 1 - y  # now group 0's negatives are the hard ones: FPR gap
    params = {"sensitive": "group", "constraint_type": "FPR", "n_estimators": 50}
    fair = FairGBMClassifier(**params, random_state=0).fit(X, y_flipped)
    plain = FairGBMClassifier(**params, multiplier_learning_rate=0.0, random_state=0)
    plain.fit(X, y_flipped)
    _, fpr_fair = _rates(y_flipped, fair.predict(X), group)
    _, fpr_plain = _rates(y_flipped, plain.predict(X), group)
    assert abs(fpr_plain[0] - fpr_plain[1]) > 0.2
    assert abs(fpr_fair[0] - fpr_fair[1]) < abs(fpr_plain[0] - fpr_plain[1]) / 2


@pytest.mark.slow
def test_income_fnr_gap_smaller_than_lightgbm_on_held_out_data():
    lightgbm = pytest.importorskip("lightgbm")
    from skfair.datasets import load_hfm_dataset
    from skfair.model_selection import make_hfm_encoder

    income = load_hfm_dataset("income")
    X, y = income.data, income.target.to_numpy()
    male = (X["sex"] == "Male").to_numpy().astype(float)
    gaps = {"fairgbm": [], "lightgbm": []}
    for seed in range(3):
        X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(
            X, y, male, test_size=0.5, random_state=seed, stratify=y
        )
        encoder = make_hfm_encoder(list(income.sensitive))
        Z_train = np.column_stack([s_train, encoder.fit_transform(X_train)])
        Z_test = np.column_stack([s_test, encoder.transform(X_test)])
        # Same trees for both; neither sees sex as a feature.
        fair = FairGBMClassifier(
            sensitive=0,
            constraint_type="FNR",
            n_estimators=100,
            random_state=0,
            n_jobs=1,
        ).fit(Z_train, y_train)
        plain = lightgbm.LGBMClassifier(
            n_estimators=100, random_state=0, n_jobs=1, verbose=-1
        ).fit(Z_train[:, 1:], y_train)
        for name, pred in (
            ("fairgbm", fair.predict(Z_test)),
            ("lightgbm", plain.predict(Z_test[:, 1:])),
        ):
            fnr, _ = _rates(y_test, pred, s_test)
            gaps[name].append(abs(fnr[0] - fnr[1]))
    assert np.mean(gaps["fairgbm"]) < np.mean(gaps["lightgbm"])


def test_left_out_groups_are_counted_in_the_largest_kept_group():
    # issue 10 item 2: fairgbm constrains every group it is given, so the
    # samples of a group left out by min_group_size join the largest group
    X, y, _ = _biased_data(400)
    X.loc[:4, "group"] = "tiny"
    params = {"sensitive": "group", "n_estimators": 10, "random_state": 0}
    left_out = FairGBMClassifier(**params, min_group_size=30).fit(X, y)
    largest = X["group"].value_counts().idxmax()
    merged = X.assign(group=X["group"].replace("tiny", largest))
    reference = FairGBMClassifier(**params).fit(merged, y)
    assert left_out.groups_ == ("a", "b")
    np.testing.assert_array_equal(left_out.predict_proba(X), reference.predict_proba(X))


def _categorical_data(n=600, seed=0):
    """y depends on a category column in a way no threshold on its codes fits."""
    rng = np.random.default_rng(seed)
    colour = pd.Categorical(rng.choice(["red", "green", "blue", "grey"], n))
    y = (np.isin(np.asarray(colour), ["red", "blue"]) ^ (rng.random(n) < 0.1)).astype(
        int
    )
    X = pd.DataFrame(
        {"x": rng.normal(size=n), "colour": colour, "sex": rng.choice(["f", "m"], n)}
    )
    return X, y


def test_category_columns_switch_from_lightgbm():
    # issue 10 item 13: change the class name, keep the data
    lightgbm = pytest.importorskip("lightgbm")
    X, y = _categorical_data()
    params = {"n_estimators": 20, "random_state": 0, "n_jobs": 1}
    plain = lightgbm.LGBMClassifier(**params, verbose=-1).fit(X.drop(columns="sex"), y)
    fair = FairGBMClassifier(**params, sensitive="sex", multiplier_learning_rate=0.0)
    fair.fit(X, y)
    # split on as a category (a threshold on the codes cannot separate
    # {red, blue} from {green, grey}), like LightGBM
    assert '"decision_type": "=="' in str(fair.booster_.dump_model()).replace("'", '"')
    accuracy = np.mean(fair.predict(X) == y)
    assert accuracy > 0.85
    assert accuracy == pytest.approx(np.mean(plain.predict(X.drop(columns="sex")) == y))
    # predict maps categories by label, as at fit: reordered categories, plain
    # strings, and unseen labels or missing values (as missing, like LightGBM)
    reordered = X.assign(
        colour=X["colour"].cat.reorder_categories(["red", "grey", "green", "blue"])
    )
    np.testing.assert_array_equal(fair.predict_proba(reordered), fair.predict_proba(X))
    as_strings = X.assign(colour=X["colour"].astype(object))
    np.testing.assert_array_equal(fair.predict_proba(as_strings), fair.predict_proba(X))
    unseen = X.assign(colour="purple")
    missing = X.assign(colour=pd.Categorical([None] * len(X), categories=["red"]))
    np.testing.assert_array_equal(
        fair.predict_proba(unseen), fair.predict_proba(missing)
    )
    restored = pickle.loads(pickle.dumps(fair))
    np.testing.assert_array_equal(restored.predict_proba(X), fair.predict_proba(X))
