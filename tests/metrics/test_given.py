"""Label-conditional distribution metrics: ``given=`` and ``pos_label=``.

Each metric with ``given`` must equal the unconditional metric on the rows
of that label, and scipy's closed forms on them (``ks_2samp`` for MCDP(0),
``wasserstein_distance`` for ABCC, weighted means for ΔDP_c), with ties,
integer weights (a weight k is k copies of the row) and several groups.
"""

import itertools
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    mcdp,
    mcdp_curve,
    mcdp_details,
)
from skfair.metrics._given import (
    GIVEN_ERROR,
    GIVEN_POS_LABEL_ERROR,
    GIVEN_Y_TRUE_ERROR,
)
from skfair.utils import SmallGroupWarning

SIDES = ("positive", "negative")

# scores on a coarse grid (many ties) or free in [0, 1]
_score = st.one_of(
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]),
    st.floats(0, 1, allow_nan=False, allow_subnormal=False),
)
_row = st.tuples(_score, st.integers(0, 1), st.integers(0, 2), st.integers(1, 3))
rows = st.lists(_row, min_size=4, max_size=40)


def _columns(data):
    score, label, group, weight = (np.array(c) for c in zip(*data))
    return score.astype(float), label, group, weight.astype(float)


def _side(label, side, pos_label=1):
    return label == pos_label if side == "positive" else label != pos_label


def _groups_of(group, keep, label=None):
    """The groups of the kept rows (at least two, or the example is skipped).

    ``pos_label`` must be a label of ``y_true`` (else an error, tested below).
    """
    if label is not None:
        assume((label == 1).any())
    present = np.unique(group[keep])
    assume(present.size >= 2)
    return present


def _pairs_max(values_of, score, group, weight, keep, present):
    """Max over pairs of ``values_of(x_a, x_b)``; a weight k repeats a row k times."""
    samples = {
        g: np.repeat(
            score[keep & (group == g)], weight[keep & (group == g)].astype(int)
        )
        for g in present
    }
    return max(
        values_of(samples[a], samples[b]) for a, b in itertools.combinations(present, 2)
    )


@settings(max_examples=80, deadline=None)
@given(data=rows, side=st.sampled_from(SIDES), weighted=st.booleans())
def test_given_is_the_metric_on_the_subset_and_scipy(data, side, weighted):
    score, label, group, weight = _columns(data)
    keep = _side(label, side)
    present = _groups_of(group, keep, label)
    w = weight if weighted else None
    w_sub = None if w is None else w[keep]
    if not weighted:
        weight = np.ones_like(weight)
    common = {"sensitive_features": group, "sample_weight": w, "min_group_size": 1}
    subset = {
        "sensitive_features": group[keep],
        "sample_weight": w_sub,
        "min_group_size": 1,
    }
    # MCDP(0): the two-sample KS statistic of the kept rows
    value = mcdp(label, score, given=side, **common)
    assert value == mcdp(None, score[keep], **subset)
    ks = _pairs_max(_ks, score, group, weight, keep, present)
    assert value == pytest.approx(ks, abs=1e-12)
    # MCDP(ε > 0), and the curve
    for epsilon in (0.05, 0.2):
        assert mcdp(label, score, given=side, epsilon=epsilon, **common) == mcdp(
            None, score[keep], epsilon=epsilon, **subset
        )
    curve = mcdp_curve(label, score, given=side, epsilons=[0, 0.1], **common)
    expected = mcdp_curve(None, score[keep], epsilons=[0, 0.1], **subset)
    np.testing.assert_array_equal(curve, expected)
    # ABCC: the Wasserstein-1 distance of the kept rows
    value = abcc(label, score, given=side, **common)
    assert value == abcc(None, score[keep], **subset)
    w1 = _pairs_max(stats.wasserstein_distance, score, group, weight, keep, present)
    assert value == pytest.approx(w1, abs=1e-12)
    # ΔDP_c: the gap of the kept rows' (weighted) means; ΔDP_b^t of their rates
    value = delta_dp(label, score, given=side, **common)
    assert value == delta_dp(None, score[keep], **subset)
    means = _pairs_max(
        lambda a, b: abs(a.mean() - b.mean()), score, group, weight, keep, present
    )
    assert value == pytest.approx(means, abs=1e-12)
    value = delta_dp(label, score, given=side, threshold=0.5, **common)
    rates = _pairs_max(
        lambda a, b: abs((a >= 0.5).mean() - (b >= 0.5).mean()),
        score,
        group,
        weight,
        keep,
        present,
    )
    assert value == pytest.approx(rates, abs=1e-12)
    # agg="mean" over the pairs too
    assert mcdp(label, score, given=side, agg="mean", **common) == mcdp(
        None, score[keep], agg="mean", **subset
    )


_free_rows = st.lists(
    st.tuples(
        st.floats(0, 1, allow_nan=False).map(lambda x: round(x, 6)),
        st.integers(0, 1),
        st.integers(0, 1),
        st.just(1),
    ),
    min_size=12,
    max_size=40,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)
@given(data=_free_rows, side=st.sampled_from(SIDES))
def test_abpc_given_is_abpc_on_the_subset(data, side):
    score, label, group, _ = _columns(data)
    keep = _side(label, side)
    present = _groups_of(group, keep, label)
    for g in present:  # a KDE needs two distinct scores in every group
        assume(np.unique(score[keep & (group == g)]).size >= 2)
    options = {"min_group_size": 1, "n_points": 200}
    value = abpc(label, score, sensitive_features=group, given=side, **options)
    assert value == abpc(None, score[keep], sensitive_features=group[keep], **options)


def _ks(a, b):
    """scipy's two-sample KS statistic (its p-value, unused, may warn)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return stats.ks_2samp(a, b).statistic


def _largest_rate_gap(score, label, group, positive):
    """Brute force: the largest TPR (FPR) gap of two groups over every threshold."""
    keep = label == 1 if positive else label == 0
    thresholds = np.r_[-np.inf, np.unique(score)]
    gaps = []
    for t in thresholds:
        rates = [np.mean(score[keep & (group == g)] > t) for g in (0, 1)]
        gaps.append(abs(rates[0] - rates[1]))
    return max(gaps)


@settings(max_examples=100, deadline=None)
@given(
    data=st.lists(
        st.tuples(_score, st.integers(0, 1), st.integers(0, 1)), min_size=4, max_size=30
    )
)
def test_mcdp0_is_the_largest_tpr_and_fpr_gap_over_thresholds(data):
    score, label, group = (np.array(c) for c in zip(*data))
    score = score.astype(float)
    for positive, side in ((True, "positive"), (False, "negative")):
        keep = label == (1 if positive else 0)
        assume(all((keep & (group == g)).any() for g in (0, 1)))
        value = mcdp(
            label, score, sensitive_features=group, given=side, min_group_size=1
        )
        assert value == pytest.approx(
            _largest_rate_gap(score, label, group, positive), abs=1e-12
        )
    both = mcdp(label, score, sensitive_features=group, given="both", min_group_size=1)
    assert both == max(
        mcdp(label, score, sensitive_features=group, given=s, min_group_size=1)
        for s in SIDES
    )


def test_pos_label_strings_and_pandas_inputs_keep_their_index():
    rng = np.random.default_rng(1)
    n = 200
    index = pd.RangeIndex(1000, 1000 + n)
    score = pd.Series(rng.random(n), index=index)
    group = pd.Series(rng.choice(["f", "m"], n), index=index)
    label = pd.Series(rng.choice(["yes", "no"], n), index=index)
    keep = (label == "no").to_numpy()
    value = abcc(
        label, score, sensitive_features=group, given="positive", pos_label="no"
    )
    assert value == abcc(None, score[keep], sensitive_features=group[keep])
    # the indexes are still checked against each other
    with pytest.raises(ValueError, match="index"):
        abcc(
            label.reset_index(drop=True),
            score,
            sensitive_features=group,
            given="positive",
            pos_label="no",
        )


def test_several_attributes_frame_and_marginal():
    rng = np.random.default_rng(2)
    n = 600
    frame = pd.DataFrame(
        {"sex": rng.choice(["f", "m"], n), "race": rng.choice(["a", "b", "c"], n)}
    )
    score, label = rng.random(n), rng.integers(0, 2, n)
    keep = label == 0
    for combine in ("intersection", "marginal"):
        options = {"combine": combine, "min_group_size": 1}
        assert mcdp(
            label, score, sensitive_features=frame, given="negative", **options
        ) == mcdp(None, score[keep], sensitive_features=frame[keep], **options)


def test_polars_and_list_inputs():
    pl = pytest.importorskip("polars")
    score = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.6, 0.7]
    label = [1, 0, 1, 1, 0, 1, 0, 1]
    group = ["a", "a", "a", "a", "b", "b", "b", "b"]
    keep = np.array(label) == 1
    expected = mcdp(
        None,
        np.array(score)[keep],
        sensitive_features=np.array(group)[keep],
        min_group_size=1,
    )
    got = mcdp(
        label, score, sensitive_features=group, given="positive", min_group_size=1
    )
    assert got == expected
    got = mcdp(
        pl.Series(label),
        pl.Series(score),
        sensitive_features=pl.Series("g", group),
        given="positive",
        min_group_size=1,
    )
    assert got == expected


# -- class probabilities: one-vs-rest on the true class ------------------------


def _class_case(seed=3, n=300, k=3):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(k), n)
    truth = rng.integers(0, k, n)
    group = rng.integers(0, 2, n)
    return proba, truth, group


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("class_agg", ["max", "mean"])
@pytest.mark.parametrize(
    "metric", [mcdp, abcc, delta_dp], ids=["mcdp", "abcc", "delta_dp"]
)
def test_class_probabilities_per_true_class(metric, class_agg, side):
    proba, truth, group = _class_case()
    per_class = []
    for k in range(proba.shape[1]):
        keep = truth == k if side == "positive" else truth != k
        per_class.append(
            metric(
                None, proba[keep, k], sensitive_features=group[keep], min_group_size=1
            )
        )
    value = metric(
        truth,
        proba,
        sensitive_features=group,
        given=side,
        class_agg=class_agg,
        min_group_size=1,
        pos_label="ignored for class probabilities",
    )
    expected = max(per_class) if class_agg == "max" else np.mean(per_class)
    assert value == pytest.approx(expected, abs=1e-15)


def test_class_probabilities_named_columns_and_details():
    proba, truth, group = _class_case(seed=4)
    names = np.array(["low", "mid", "high"])
    frame = pd.DataFrame(proba, columns=names)
    res = mcdp_details(
        names[truth],
        frame,
        sensitive_features=group,
        given="positive",
        min_group_size=1,
    )
    ks = {
        name: _ks(
            proba[(truth == k) & (group == 0), k], proba[(truth == k) & (group == 1), k]
        )
        for k, name in enumerate(names)
    }
    assert res.value == pytest.approx(max(ks.values()), abs=1e-12)
    assert res.class_label == max(ks, key=ks.get)
    assert res.given == "positive"
    assert {k: r.value for k, r in res.per_class.items()} == pytest.approx(ks)
    # labels 0..K-1 for an array do not name string classes: a clear error
    with pytest.raises(ValueError, match="is not a label of y_true"):
        mcdp(names[truth], proba, sensitive_features=group, given="positive")


# -- the result and given="both" ------------------------------------------------


def test_details_given_attribute_and_repr():
    score = [0.1, 0.2, 0.3, 0.4, 0.5, 0.12, 0.33, 0.35, 0.6, 0.9]
    label = [1, 1, 1, 0, 0] * 2
    group = [0] * 5 + [1] * 5
    options = {"sensitive_features": group, "min_group_size": 1}
    plain = mcdp_details(label, score, **options)
    assert plain.given is None and "given" not in repr(plain)
    for side in SIDES:
        res = mcdp_details(label, score, given=side, **options)
        assert res.given == side and f"given={side!r}" in repr(res)
        assert res.value == mcdp(label, score, given=side, **options)
    both = mcdp_details(label, score, given="both", **options)
    assert both.given == "negative" and both.value == 1.0  # negatives: 0.4 < 0.6
    for function in (abcc, delta_dp):
        assert function(label, score, given="both", **options) == max(
            function(label, score, given=side, **options) for side in SIDES
        )
    curve = mcdp_curve(label, score, given="both", epsilons=[0, 0.05], **options)
    sides = [
        mcdp_curve(label, score, given=s, epsilons=[0, 0.05], **options) for s in SIDES
    ]
    np.testing.assert_array_equal(curve, np.maximum(*sides))


def test_threshold_is_where_the_tpr_gap_is_largest():
    rng = np.random.default_rng(5)
    n = 400
    label, group = rng.integers(0, 2, n), rng.integers(0, 2, n)
    score = np.clip(rng.normal(0.5 + 0.1 * group * label, 0.2), 0, 1)
    res = mcdp_details(label, score, sensitive_features=group, given="positive")
    t = res.threshold
    keep = label == 1
    rates = [np.mean(score[keep & (group == g)] > t) for g in (0, 1)]
    assert abs(rates[0] - rates[1]) == pytest.approx(res.value, abs=1e-12)


# -- errors and warnings --------------------------------------------------------

SCORE = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
LABEL = [1, 1, 0, 0, 1, 0]
GROUP = [0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize(
    "metric", [mcdp, mcdp_details, abcc, delta_dp, abpc], ids=lambda f: f.__name__
)
def test_errors(metric):
    with pytest.raises(
        ValueError, match=re.escape(GIVEN_Y_TRUE_ERROR.format(given="positive"))
    ):
        metric(None, SCORE, sensitive_features=GROUP, given="positive")
    with pytest.raises(ValueError, match=re.escape(GIVEN_ERROR.format(given="pos"))):
        metric(LABEL, SCORE, sensitive_features=GROUP, given="pos")
    message = GIVEN_POS_LABEL_ERROR.format(
        given="negative", pos_label="yes", labels=[0, 1]
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        metric(
            LABEL, SCORE, sensitive_features=GROUP, given="negative", pos_label="yes"
        )
    with pytest.raises(ValueError, match="y_true"):  # a length mismatch
        metric(LABEL[:-1], SCORE, sensitive_features=GROUP, given="positive")


def test_a_subset_with_one_group_is_the_unconditional_error_with_a_note():
    label = [1, 1, 1, 0, 1, 0]  # the negatives are all in group 1
    options = {"sensitive_features": GROUP, "min_group_size": 1}
    with pytest.raises(ValueError, match="at least two groups") as info:
        mcdp(label, SCORE, given="negative", **options)
    assert "given='negative'" in str(info.value)
    assert "2 of 6 samples whose y_true != pos_label=1" in str(info.value)
    # min_group_size applies to the groups of the subset
    with pytest.raises(ValueError, match="min_group_size") as info:
        abcc(LABEL, SCORE, sensitive_features=GROUP, given="positive", min_group_size=2)
    assert "given='positive'" in str(info.value)
    # every row on one side: nothing to compare on the other
    with pytest.raises(ValueError, match="given='negative'"):
        delta_dp([1] * 6, SCORE, sensitive_features=GROUP, given="negative")


def test_small_group_warning_names_the_subset():
    with pytest.warns(SmallGroupWarning, match="given='positive'") as record:
        mcdp(LABEL, SCORE, sensitive_features=GROUP, given="positive")
    assert record[0].message.groups == ((1, 1), (0, 2))
    assert record[0].filename == __file__  # points at the call
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mcdp(LABEL, SCORE, sensitive_features=GROUP, given="positive", min_group_size=1)


def test_given_none_ignores_pos_label_and_y_true():
    value = mcdp(None, SCORE, sensitive_features=GROUP, min_group_size=1)
    assert value == mcdp(
        LABEL, SCORE, sensitive_features=GROUP, min_group_size=1, pos_label="zz"
    )


# -- scorers ---------------------------------------------------------------------


def _scorer_data(n=600, n_classes=2, seed=6):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.normal(size=n), "g": rng.integers(0, 2, n)})
    latent = X["x"] + 0.5 * X["g"] + rng.normal(scale=0.5, size=n)
    y = np.digitize(latent, np.quantile(latent, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("side", [*SIDES, "both"])
@pytest.mark.parametrize(
    ("factory", "metric"),
    [
        ("make_mcdp_scorer", mcdp),
        ("make_abcc_scorer", abcc),
        ("make_abpc_scorer", abpc),
        ("make_delta_dp_scorer", delta_dp),
    ],
)
def test_scorers_in_cross_val_score_equal_the_metric_per_fold(factory, metric, side):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold, cross_val_score

    from skfair import metrics

    X, y = _scorer_data()
    y = np.where(y == 1, "yes", "no")  # pos_label: the greater class, "yes"
    scorer = getattr(metrics, factory)(sensitive="g", given=side)
    assert f"given={side!r}" in repr(scorer)
    cv = KFold(3)
    model = LogisticRegression()
    scores = cross_val_score(model, X, y, scoring=scorer, cv=cv)
    for score, (train, test) in zip(scores, cv.split(X)):
        proba = model.fit(X.iloc[train], y[train]).predict_proba(X.iloc[test])[:, 1]
        expected = metric(
            y[test],
            proba,
            sensitive_features=X["g"].iloc[test],
            given=side,
            pos_label="yes",
        )
        assert score == pytest.approx(-expected, abs=1e-12)


def test_scorer_multiclass_and_grid_search():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, KFold

    from skfair.metrics import make_mcdp_scorer

    X, y = _scorer_data(n_classes=3)
    cv = KFold(3)
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [0.01, 1.0]},
        scoring={
            "eo": make_mcdp_scorer(sensitive="g", given="positive", min_group_size=1)
        },
        refit=False,
        cv=cv,
    )
    search.fit(X, y)
    for i, C in enumerate([0.01, 1.0]):
        for k, (train, test) in enumerate(cv.split(X)):
            model = LogisticRegression(C=C).fit(X.iloc[train], y[train])
            expected = mcdp(
                y[test],
                model.predict_proba(X.iloc[test]),
                sensitive_features=X["g"].iloc[test],
                given="positive",
                min_group_size=1,
            )
            got = search.cv_results_[f"split{k}_test_eo"][i]
            assert got == pytest.approx(-expected, abs=1e-12)


def test_scorer_given_on_a_regressor_is_an_error():
    from sklearn.linear_model import Ridge

    from skfair.metrics import make_abcc_scorer
    from skfair.metrics._scorer import SCORER_GIVEN_ERROR

    X, y = _scorer_data()
    scorer = make_abcc_scorer(sensitive="g", given="positive")
    model = Ridge().fit(X, y)
    message = SCORER_GIVEN_ERROR.format(
        scorer=repr(scorer), given="positive", estimator="Ridge"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        scorer(model, X, y)


# -- intervals and tests ---------------------------------------------------------


def _interval_case(seed=7, n=400):
    rng = np.random.default_rng(seed)
    label, group = rng.integers(0, 2, n), rng.integers(0, 3, n)
    score = np.clip(rng.normal(0.4 + 0.1 * label + 0.05 * group, 0.2), 0, 1)
    return score, label, group, rng.integers(1, 4, n).astype(float)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize(
    ("metric", "params", "method"),
    [
        ("mcdp", {}, "band"),
        ("mcdp", {}, "dkw"),
        ("abcc", {}, "band"),
        ("delta_dp", {}, "welch"),
        ("delta_dp", {"threshold": 0.5}, "newcombe"),
        ("mcdp", {"epsilon": 0.05}, "bootstrap"),
    ],
)
def test_interval_given_is_the_interval_on_the_subset(metric, params, method, side):
    from skfair.metrics import metric_confidence_interval

    score, label, group, weight = _interval_case()
    keep = _side(label, side)
    weights = None if method == "dkw" else weight
    options = {"metric": metric, "method": method, "n_resamples": 99, "random_state": 0}
    got = metric_confidence_interval(
        label,
        score,
        sensitive_features=group,
        sample_weight=weights,
        metric_params={**params, "given": side},
        **options,
    )
    expected = metric_confidence_interval(
        None,
        score[keep],
        sensitive_features=group[keep],
        sample_weight=None if weights is None else weights[keep],
        metric_params=params,
        **options,
    )
    assert got == expected


@pytest.mark.parametrize(
    ("metric", "params", "method"),
    [
        ("mcdp", {}, "ks"),
        ("mcdp", {}, "permutation"),
        ("delta_dp", {}, "welch"),
        ("delta_dp", {"threshold": 0.5}, "chi2"),
    ],
)
def test_disparity_test_given_is_the_test_on_the_subset(metric, params, method):
    from skfair.metrics import disparity_test

    score, label, group, _ = _interval_case()
    two = group < 2  # the KS test compares two groups
    score, label, group = score[two], label[two], group[two]
    keep = label == 0
    options = {
        "metric": metric,
        "method": method,
        "n_resamples": 199,
        "random_state": 0,
    }
    got = disparity_test(
        label,
        score,
        sensitive_features=group,
        metric_params={**params, "given": "negative"},
        **options,
    )
    expected = disparity_test(
        None,
        score[keep],
        sensitive_features=group[keep],
        metric_params=params,
        **options,
    )
    assert got == expected
    # the statistic is the conditional metric
    assert got.statistic == pytest.approx(
        {"mcdp": mcdp, "delta_dp": delta_dp}[metric](
            label, score, sensitive_features=group, given="negative", **params
        )
    )


def test_interval_and_test_given_errors():
    from skfair.metrics import disparity_test, metric_confidence_interval
    from skfair.metrics._given import GIVEN_BOTH_ERROR, GIVEN_CLASS_SCORES_ERROR

    score, label, group, _ = _interval_case()
    for function in (metric_confidence_interval, disparity_test):
        name = function.__name__
        with pytest.raises(
            ValueError, match=re.escape(GIVEN_BOTH_ERROR.format(what=name))
        ):
            function(
                label, score, sensitive_features=group, metric_params={"given": "both"}
            )
        with pytest.raises(
            ValueError, match=re.escape(GIVEN_Y_TRUE_ERROR.format(given="positive"))
        ):
            function(
                None,
                score,
                sensitive_features=group,
                metric_params={"given": "positive"},
            )
        proba = np.column_stack([score, 1 - score])
        message = GIVEN_CLASS_SCORES_ERROR.format(given="positive", what=name)
        with pytest.raises(ValueError, match=re.escape(message)):
            function(
                label,
                proba,
                sensitive_features=group,
                metric_params={"given": "positive"},
            )
