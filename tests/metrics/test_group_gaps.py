"""DP, EO and PQP gaps of the HFM paper (footnote 6) on hard labels."""

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from skfair.metrics import (
    demographic_parity_gap,
    equal_opportunity_gap,
    predictive_quality_parity_gap,
)
from skfair.utils._groups import PRIVILEGED_UNKNOWN_ERROR
from skfair.utils._validation import POS_LABEL_ERROR, TOO_MANY_CLASSES_ERROR

# Most cases compare a handful of samples on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")

GAPS = [demographic_parity_gap, equal_opportunity_gap, predictive_quality_parity_gap]
Y_TRUE = [1, 1, 0, 0, 1, 1, 0, 0]
Y_PRED = [1, 1, 1, 0, 1, 0, 0, 0]
GROUPS = [1, 1, 1, 1, 0, 0, 0, 0]


def brute(y, yhat, priv, kind):
    """Eq. 23 with exact fractions; None where a conditional is empty."""
    rates = []
    for a in (True, False):
        if kind == "dp":
            pairs = [(yhat[i], True) for i in range(len(y)) if priv[i] == a]
        elif kind == "eo":
            pairs = [(yhat[i], y[i] == 1) for i in range(len(y)) if priv[i] == a]
        else:
            pairs = [(y[i], yhat[i] == 1) for i in range(len(y)) if priv[i] == a]
        kept = [event for event, condition in pairs if condition]
        if not kept:
            return None
        rates.append(Fraction(sum(v == 1 for v in kept), len(kept)))
    return abs(rates[0] - rates[1])


def test_worked_example():
    kw = {"sensitive_features": GROUPS, "privileged": 1}
    assert demographic_parity_gap(Y_TRUE, Y_PRED, **kw) == 0.5
    assert equal_opportunity_gap(Y_TRUE, Y_PRED, **kw) == 0.5
    assert predictive_quality_parity_gap(Y_TRUE, Y_PRED, **kw) == pytest.approx(1 / 3)


@pytest.mark.parametrize("gap", GAPS)
def test_two_groups_are_symmetric_and_need_no_privileged(gap):
    values = {
        gap(Y_TRUE, Y_PRED, sensitive_features=GROUPS, privileged=p)
        for p in (None, 0, 1)
    }
    assert len(values) == 1
    assert type(values.pop()) is float


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 40),
    n_groups=st.integers(2, 4),
    kind=st.sampled_from(["dp", "eo", "pqp"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_matches_definition(n, n_groups, kind, seed):
    rng = np.random.default_rng(seed)
    y, yhat = rng.integers(0, 2, n), rng.integers(0, 2, n)
    groups = rng.integers(0, n_groups, n)
    assume(np.unique(groups).size >= 2)
    privileged = int(groups[0])
    gap = dict(zip(["dp", "eo", "pqp"], GAPS))[kind]
    expected = brute(y, yhat, groups == privileged, kind)
    with warnings.catch_warnings():
        # Empty conditionals warn; checked in their own tests.
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = gap(y, yhat, sensitive_features=groups, privileged=privileged)
        shuffled = rng.permutation(n)
        again = gap(
            y[shuffled],
            yhat[shuffled],
            sensitive_features=groups[shuffled],
            privileged=privileged,
        )
    if expected is None:
        assert np.isnan(got) and np.isnan(again)
    else:
        assert got == pytest.approx(float(expected), abs=1e-15)
        assert again == pytest.approx(got, abs=1e-15)
        assert 0.0 <= got <= 1.0


@pytest.mark.parametrize("gap", GAPS)
def test_multi_valued_attribute_privileged_vs_rest(gap):
    groups = ["a", "a", "b", "b", "c", "c", "a", "b"]
    # None means the most frequent group ("a" and "b" tie: the first sorted).
    default = gap(Y_TRUE, Y_PRED, sensitive_features=groups)
    assert default == gap(Y_TRUE, Y_PRED, sensitive_features=groups, privileged="a")
    binarised = gap(
        Y_TRUE, Y_PRED, sensitive_features=[g == "a" for g in groups], privileged=True
    )
    got = gap(Y_TRUE, Y_PRED, sensitive_features=groups, privileged="a")
    assert got == pytest.approx(binarised)


def test_several_attributes_use_their_intersection():
    frame = pd.DataFrame({"sex": ["m"] * 4 + ["f"] * 4, "race": ["w", "b"] * 4})
    got = demographic_parity_gap(
        Y_TRUE, Y_PRED, sensitive_features=frame, privileged=("m", "w")
    )
    priv = (frame["sex"] == "m") & (frame["race"] == "w")
    expected = abs(np.mean(np.array(Y_PRED)[priv]) - np.mean(np.array(Y_PRED)[~priv]))
    assert got == pytest.approx(expected)
    # None: the most frequent cell (all tie at 2: the first sorted, ("f", "b")).
    assert demographic_parity_gap(
        Y_TRUE, Y_PRED, sensitive_features=frame
    ) == demographic_parity_gap(
        Y_TRUE, Y_PRED, sensitive_features=frame, privileged=("f", "b")
    )


def test_no_positive_label_in_a_group_warns_and_gives_nan():
    y = [1, 1, 0, 0, 0, 0]
    yhat = [1, 0, 1, 0, 1, 0]
    s = [1, 1, 1, 0, 0, 0]
    with pytest.warns(UndefinedMetricWarning, match="unprivileged group has no"):
        assert np.isnan(
            equal_opportunity_gap(y, yhat, sensitive_features=s, privileged=1)
        )


def test_no_positive_prediction_in_a_group_warns_and_gives_nan():
    y = [1, 0, 1, 0]
    yhat = [0, 0, 1, 1]
    with pytest.warns(UndefinedMetricWarning, match="privileged group has no"):
        got = predictive_quality_parity_gap(
            y, yhat, sensitive_features=[1, 1, 0, 0], privileged=1
        )
    assert np.isnan(got)


@pytest.mark.parametrize("gap", [equal_opportunity_gap, predictive_quality_parity_gap])
def test_undefined_gap_warning_points_at_the_caller(gap):
    # it pointed at the Dask dispatcher's wrapper (skfair/metrics/_dask)
    y, yhat = [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 1, 1]
    with pytest.warns(UndefinedMetricWarning) as caught:
        gap(y, yhat, sensitive_features=[1, 1, 1, 1, 0, 0], privileged=1)
    assert {w.filename for w in caught} == {__file__}


def test_string_labels_and_pos_label():
    y = np.where(np.array(Y_TRUE) == 1, "yes", "no")
    yhat = np.where(np.array(Y_PRED) == 1, "yes", "no")
    got = predictive_quality_parity_gap(
        y, yhat, sensitive_features=GROUPS, pos_label="yes"
    )
    assert got == predictive_quality_parity_gap(
        Y_TRUE, Y_PRED, sensitive_features=GROUPS
    )
    with pytest.raises(ValueError, match="pos_label=1 is not among"):
        demographic_parity_gap(y, yhat, sensitive_features=GROUPS)
    assert "{pos_label!r}" in POS_LABEL_ERROR


def test_single_observed_class_means_no_positives():
    got = demographic_parity_gap(
        [0, 0, 0, 0], [0, 0, 0, 0], sensitive_features=[0, 0, 1, 1]
    )
    assert got == 0.0


def test_invalid_inputs():
    with pytest.raises(ValueError, match="3 distinct values"):
        demographic_parity_gap([0, 1, 2], [0, 1, 1], sensitive_features=[0, 1, 1])
    assert "{n_classes}" in TOO_MANY_CLASSES_ERROR
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        demographic_parity_gap([0, 1, 1], [0, 1], sensitive_features=[0, 1, 1])
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        demographic_parity_gap([0, 1, 1], [0, 1, 0], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="at least two groups"):
        demographic_parity_gap([0, 1], [0, 1], sensitive_features=[0, 0])
    with pytest.raises(ValueError, match="privileged='x' is not a group"):
        demographic_parity_gap(
            [0, 1], [0, 1], sensitive_features=[0, 1], privileged="x"
        )
    assert "{privileged!r}" in PRIVILEGED_UNKNOWN_ERROR
    with pytest.raises(ValueError, match="missing values"):
        demographic_parity_gap([0, None], [0, 1], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="1-dimensional"):
        demographic_parity_gap([[0, 1], [1, 0]], [0, 1], sensitive_features=[0, 1])


# Issue 10 item 4 (hard labels) and issue 11 (sample_weight, privileged=None).


@pytest.mark.parametrize("gap", GAPS)
def test_gaps_require_hard_labels(gap):
    with pytest.raises(ValueError, match="same two classes"):
        gap(Y_TRUE, np.linspace(0, 1, 8), sensitive_features=GROUPS)


@pytest.mark.parametrize("gap", GAPS)
def test_sample_weight_equals_repetition(gap):
    rng = np.random.default_rng(0)
    y, pred, groups = (rng.integers(0, 2, 60) for _ in range(3))
    weights = rng.integers(0, 4, 60)
    weights[:4] = 1
    repeat = np.repeat(np.arange(60), weights)
    weighted = gap(y, pred, sensitive_features=groups, sample_weight=weights)
    repeated = gap(y[repeat], pred[repeat], sensitive_features=groups[repeat])
    assert weighted == pytest.approx(repeated, abs=1e-12)
    unit = gap(y, pred, sensitive_features=groups, sample_weight=np.ones(60))
    assert unit == pytest.approx(gap(y, pred, sensitive_features=groups), abs=1e-15)


@pytest.mark.parametrize(
    "gap",
    [demographic_parity_gap, equal_opportunity_gap, predictive_quality_parity_gap],
)
def test_huge_weights_give_the_unit_weight_answer(gap):
    # weights of 1e308 overflowed the weighted sums to inf (NaN gaps)
    rng = np.random.default_rng(0)
    y, pred, group = (rng.integers(0, 2, 300) for _ in range(3))
    huge = gap(y, pred, sensitive_features=group, sample_weight=np.full(300, 1e308))
    unit = gap(y, pred, sensitive_features=group, sample_weight=np.ones(300))
    assert np.isfinite(huge)
    assert huge == pytest.approx(unit, rel=1e-12)
