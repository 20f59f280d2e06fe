"""ThresholdInvariantClassifier(constraint=): equal opportunity, predictive equality."""

import numpy as np
import pandas as pd
import pytest
from _row_groups import RowGroups as _RowGroups
from scipy.stats import ks_2samp
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair import postprocessing
from skfair.metrics import mcdp
from skfair.postprocessing._barycentre import fit_quantile_tables
from skfair.postprocessing._threshold_invariant import MISSING_LABEL_ERROR
from skfair.utils._validation import POS_LABEL_NOT_FOUND_ERROR

TIC = postprocessing.ThresholdInvariantClassifier
CONSTRAINTS = ["demographic_parity", "equal_opportunity", "predictive_equality"]


def _shifted(n, *, seed=0, n_groups=2):
    """Groups whose scores, and whose positives' and negatives' scores, differ."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n)
    x = rng.normal(0.8 * group, 1.0)
    X = np.column_stack([group, x, rng.normal(size=n)])
    y = (x + 0.5 * X[:, 2] + rng.normal(0, 1, n) > 0.5).astype(int)
    return X, y, group


def _conditioned(y, constraint, pos_label=1):
    if constraint == "equal_opportunity":
        return y == pos_label
    if constraint == "predictive_equality":
        return y != pos_label
    return np.ones(y.shape, dtype=bool)


# ---------------------------------------------------------------- default


@pytest.mark.parametrize(
    "estimator",
    [LogisticRegression(), DecisionTreeClassifier(max_depth=4, random_state=0)],
)
def test_default_is_demographic_parity_bit_for_bit(estimator):
    X, y, _ = _shifted(3000)
    default = TIC(estimator, sensitive=0, random_state=0).fit(X[:1500], y[:1500])
    explicit = TIC(
        estimator, sensitive=0, constraint="demographic_parity", random_state=0
    ).fit(X[:1500], y[:1500])
    assert np.array_equal(default.predict_proba(X), explicit.predict_proba(X))
    assert np.array_equal(default.predict(X), explicit.predict(X))
    # pos_label does not enter demographic parity
    other = TIC(estimator, sensitive=0, pos_label=0, random_state=0)
    other.fit(X[:1500], y[:1500])
    assert np.array_equal(default.predict_proba(X), other.predict_proba(X))


@pytest.mark.parametrize("constraint", CONSTRAINTS)
def test_tables_are_the_engines_on_the_conditioned_rows(constraint):
    """The fitted tables are the engine's, on the rows the constraint picks."""
    X, y, group = _shifted(4000, n_groups=3)
    frozen = FrozenEstimator(LogisticRegression().fit(X[:2000], y[:2000]))
    weights = np.random.default_rng(1).integers(1, 4, 2000).astype(float)
    clf = TIC(frozen, sensitive=0, constraint=constraint, n_quantiles=200)
    clf.fit(X[2000:], y[2000:], sample_weight=weights)
    scores = frozen.predict_proba(X[2000:])[:, 1]
    keep = _conditioned(y[2000:], constraint)
    expected = fit_quantile_tables(
        scores,
        group[2000:].astype(np.intp),
        n_groups=3,
        weights=np.where(keep, weights, 0.0),
        n_quantiles=200,
        smoothing=10.0,
    )
    assert np.array_equal(clf.quantiles_, expected.tables)
    assert np.array_equal(clf.pooled_quantiles_, expected.pooled)
    assert np.array_equal(clf.barycenter_, expected.barycentre)
    shares = (
        np.bincount(group[2000:][keep], weights=weights[keep]) / weights[keep].sum()
    )
    np.testing.assert_allclose(clf.group_weights_, shares)


# ------------------------------------------------------------- brute force


def _hazen(values):
    """Sorted sample and its Hazen plotting positions (i - 0.5) / n."""
    values = np.sort(values)
    return values, (np.arange(values.size) + 0.5) / values.size


@pytest.mark.parametrize("constraint", ["equal_opportunity", "predictive_equality"])
def test_map_is_the_quantile_composition(constraint):
    """Brute force: s -> sum_h w_h Q_h(F_g(s)), from each group's labelled sample."""
    X, y, group = _shifted(6000, n_groups=3, seed=3)
    frozen = FrozenEstimator(LogisticRegression().fit(X[:2000], y[:2000]))
    fit, new = slice(2000, 4000), slice(4000, None)
    clf = TIC(
        frozen,
        sensitive=0,
        constraint=constraint,
        smoothing=0.0,
        ties="midrank",
        n_quantiles=20_001,
    ).fit(X[fit], y[fit])
    scores = frozen.predict_proba(X[fit])[:, 1]
    keep = _conditioned(y[fit], constraint)
    samples = [_hazen(scores[keep & (group[fit] == g)]) for g in range(3)]
    shares = np.array([s.size for s, _ in samples]) / keep.sum()

    def barycentre(u):
        return sum(w * np.interp(u, p, s) for w, (s, p) in zip(shares, samples))

    new_scores = frozen.predict_proba(X[new])[:, 1]
    expected = np.empty_like(new_scores)
    for g, (s, p) in enumerate(samples):
        rows = group[new] == g
        # F_g, the inverse of Q_g (constant below p[0] and above p[-1])
        level = np.interp(new_scores[rows], s, p, left=0.0, right=1.0)
        expected[rows] = barycentre(level)
    got = clf.predict_proba(X[new])[:, 1]
    # only the tables' discretisation at 20,001 levels separates the two
    np.testing.assert_allclose(got, expected, atol=2e-4)
    assert np.max(np.abs(got - new_scores)) > 0.05  # the map did move them


def test_pos_label_swaps_the_conditioned_rows():
    """Equal opportunity for label 0 is predictive equality for label 1."""
    X, y, _ = _shifted(3000)
    a = TIC(
        LogisticRegression(),
        sensitive=0,
        constraint="equal_opportunity",
        pos_label=0,
        random_state=0,
    ).fit(X[:1500], y[:1500])
    b = TIC(
        LogisticRegression(),
        sensitive=0,
        constraint="predictive_equality",
        random_state=0,
    ).fit(X[:1500], y[:1500])
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.pos_label_ == 0 and b.pos_label_ == 1


def test_string_labels_and_pos_label():
    X, y, _ = _shifted(3000)
    labels = np.where(y == 1, "yes", "no")
    clf = TIC(
        LogisticRegression(),
        sensitive=0,
        constraint="equal_opportunity",
        pos_label="yes",
        random_state=0,
    ).fit(X[:1500], labels[:1500])
    ref = TIC(
        LogisticRegression(),
        sensitive=0,
        constraint="equal_opportunity",
        random_state=0,
    ).fit(X[:1500], y[:1500])
    np.testing.assert_array_equal(clf.predict_proba(X), ref.predict_proba(X))
    assert set(clf.predict(X)) <= {"yes", "no"}


def test_integer_weights_are_repeated_rows():
    X, y, _ = _shifted(3000)
    frozen = FrozenEstimator(LogisticRegression().fit(X[:1000], y[:1000]))
    weights = np.random.default_rng(2).integers(0, 3, 2000)
    kwargs = {"sensitive": 0, "constraint": "equal_opportunity", "ties": "midrank"}
    weighted = TIC(frozen, **kwargs).fit(X[1000:], y[1000:], sample_weight=weights)
    repeated = TIC(frozen, **kwargs).fit(
        np.repeat(X[1000:], weights, axis=0), np.repeat(y[1000:], weights)
    )
    np.testing.assert_allclose(
        weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12
    )


def test_cross_fitted_maps_use_the_labelled_out_of_fold_scores():
    X, y, group = _shifted(3000, n_groups=3)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    clf = TIC(
        LogisticRegression(), sensitive=0, constraint="equal_opportunity", cv=cv
    ).fit(X, y)
    assert clf.calibration_ == "oof"
    oof = cross_val_predict(LogisticRegression(), X, y, cv=cv, method="predict_proba")
    expected = fit_quantile_tables(
        oof[:, 1],
        group.astype(np.intp),
        n_groups=3,
        weights=(y == 1).astype(float),
        n_quantiles=1000,
        smoothing=10.0,
    )
    np.testing.assert_allclose(clf.quantiles_, expected.tables, atol=1e-12)


# ------------------------------------------------------------ held-out data


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("n_groups", [2, 3])
@pytest.mark.parametrize("constraint", ["equal_opportunity", "predictive_equality"])
def test_held_out_label_conditional_ks(constraint, n_groups, frozen):
    """On fresh rows the conditioned label's scores agree between groups."""
    X, y, group = _shifted(100_000, n_groups=n_groups, seed=5)
    estimator = LogisticRegression()
    fit_rows = slice(0, 40_000)
    if frozen:
        estimator = FrozenEstimator(LogisticRegression().fit(X[:10_000], y[:10_000]))
        fit_rows = slice(10_000, 40_000)
    clf = TIC(estimator, sensitive=0, constraint=constraint, random_state=0)
    clf.fit(X[fit_rows], y[fit_rows])
    X_new, y_new, g_new = X[40_000:], y[40_000:], group[40_000:]
    keep = _conditioned(y_new, constraint)
    raw = clf.estimator_.predict_proba(X_new)[:, 1]
    repaired = clf.predict_proba(X_new)[:, 1]

    def worst_ks(scores):
        return max(
            ks_2samp(scores[keep & (g_new == a)], scores[keep & (g_new == b)]).statistic
            for a in range(n_groups)
            for b in range(a + 1, n_groups)
        )

    assert worst_ks(raw) >= 0.2  # the shift is there to repair
    assert worst_ks(repaired) <= 0.05
    # skfair's MCDP(0) given the label is the same KS distance
    given = "positive" if constraint == "equal_opportunity" else "negative"
    assert mcdp(
        y_new, repaired, sensitive_features=g_new, epsilon=0, given=given
    ) == pytest.approx(worst_ks(repaired), abs=1e-12)


def test_equal_opportunity_leaves_the_negatives_unequalised():
    """The docstring's caveat: the other label's scores are not repaired."""
    X, y, group = _shifted(40_000, seed=6)
    eo = TIC(
        LogisticRegression(),
        sensitive=0,
        constraint="equal_opportunity",
        random_state=0,
    ).fit(X[:20_000], y[:20_000])
    dp = TIC(LogisticRegression(), sensitive=0, random_state=0)
    dp.fit(X[:20_000], y[:20_000])
    X_new, y_new, g_new = X[20_000:], y[20_000:], group[20_000:]
    positives = y_new == 1
    negative_ks = mcdp(
        None,
        eo.predict_proba(X_new)[~positives, 1],
        sensitive_features=g_new[~positives],
    )
    positive_ks = mcdp(
        None,
        eo.predict_proba(X_new)[positives, 1],
        sensitive_features=g_new[positives],
    )
    assert positive_ks <= 0.05 < negative_ks
    # and demographic parity's repair does not equalise the positives
    dp_positive_ks = mcdp(
        None,
        dp.predict_proba(X_new)[positives, 1],
        sensitive_features=g_new[positives],
    )
    assert dp_positive_ks > 0.05


# --------------------------------------------------- pipelines and searches


def test_grid_search_over_constraint_and_pipelines():
    X, y, _ = _shifted(3000)
    frame = pd.DataFrame(X, columns=["group", "x", "z"]).astype({"group": int})
    inner = make_pipeline(StandardScaler(), LogisticRegression())
    search = GridSearchCV(
        TIC(inner, sensitive="group", cv=3, random_state=0),
        {"constraint": CONSTRAINTS, "repair": [0.5, 1.0]},
        cv=3,
        scoring="accuracy",
    ).fit(frame, y)
    assert len(search.cv_results_["params"]) == 6
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_estimator_.constraint in CONSTRAINTS
    outer = make_pipeline(
        FunctionTransformer(),
        TIC(LogisticRegression(), sensitive=0, constraint="predictive_equality"),
    ).fit(X, y)
    assert outer.predict_proba(X).shape == (3000, 2)
    # set_params on a fitted instance needs a refit for a new constraint
    clf = TIC(LogisticRegression(), sensitive=0, random_state=0).fit(X, y)
    before = clf.predict_proba(X)
    clf.set_params(constraint="equal_opportunity").fit(X, y)
    assert not np.array_equal(before, clf.predict_proba(X))


# ------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("constraint", "missing_label", "which", "op"),
    [
        ("equal_opportunity", 1, "positives", "=="),
        ("predictive_equality", 0, "negatives", "!="),
    ],
)
def test_group_without_the_conditioned_label_is_named(
    constraint, missing_label, which, op
):
    X, y, _ = _shifted(600)
    frame = pd.DataFrame({"race": np.where(X[:, 0] == 1, "b", "a"), "x": X[:, 1]})
    frame.loc[:49, "race"] = "c"
    y[:50] = 1 - missing_label
    clf = TIC(
        make_pipeline(FunctionTransformer(lambda f: f[["x"]]), LogisticRegression()),
        sensitive="race",
        constraint=constraint,
    )
    message = MISSING_LABEL_ERROR.format(
        constraint=constraint, which=which, op=op, pos_label=1, group="c", name="race"
    )
    with pytest.raises(ValueError, match="group 'c' of 'race' has no") as info:
        clf.fit(frame, y)
    assert str(info.value) == message
    with pytest.raises(NotFittedError):
        clf.predict(frame)
    # rows of zero weight count as absent
    y2 = y.copy()
    y2[:25] = missing_label
    weights = np.where(np.arange(600) < 25, 0.0, 1.0)
    with pytest.raises(ValueError, match="group 'c' of 'race' has no"):
        clf.fit(frame, y2, sample_weight=weights)
    # demographic parity and min_group_size, as the message says, avoid it
    TIC(clf.estimator, sensitive="race").fit(frame, y)
    left_out = clf.set_params(min_group_size=60).fit(frame, y)
    assert left_out.left_out_groups_ == ["c"]


def test_pos_label_not_a_class():
    X, y, _ = _shifted(300)
    clf = TIC(
        LogisticRegression(), sensitive=0, constraint="equal_opportunity", pos_label=2
    )
    message = POS_LABEL_NOT_FOUND_ERROR.format(pos_label=2, name="y", classes=[0, 1])
    with pytest.raises(ValueError) as info:
        clf.fit(X, y)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "params", [{"constraint": "equalized_odds"}, {"pos_label": [1]}]
)
def test_invalid_parameters(params):
    X, y, _ = _shifted(300)
    with pytest.raises(InvalidParameterError):
        TIC(LogisticRegression(), sensitive=0, **params).fit(X, y)


# ---------------------------------------------------------- common checks


class ThresholdInvariantClassifier(_RowGroups, TIC):  # module level: pickles
    pass


# The sample_weight checks fit on 16 rows, in which one of the two groups
# holds a single class: the label-conditional maps refuse it, as they should.
_ONE_CLASS_GROUP = (
    "the check's 16 rows leave a group without positives or negatives, which "
    "a label-conditional constraint refuses (MISSING_LABEL_ERROR)"
)
_EXPECTED_FAILED = {
    "equal_opportunity": [
        "check_sample_weights_shape",
        "check_sample_weights_not_overwritten",
    ],
    "predictive_equality": [
        "check_sample_weights_pandas_series",
        "check_sample_weights_not_an_array",
        "check_sample_weights_shape",
        "check_sample_weights_not_overwritten",
    ],
}


def _expected_failed_checks(estimator):
    return dict.fromkeys(_EXPECTED_FAILED[estimator.constraint], _ONE_CLASS_GROUP)


# The checks' data sets are small: every group has fewer than 30 samples.
@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
@parametrize_with_checks(
    [
        ThresholdInvariantClassifier(
            LogisticRegression(), sensitive=0, cv=3, constraint=constraint
        )
        for constraint in CONSTRAINTS[1:]
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
