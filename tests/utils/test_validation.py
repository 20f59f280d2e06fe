"""Input validation helpers."""

import numpy as np
import pandas as pd
import pytest

from skfair.utils._dataframe import LAZY_FRAME_ERROR
from skfair.utils._validation import (
    INDEX_MISMATCH_ERROR,
    LABEL_NAN_ERROR,
    NON_BINARY_ERROR,
    ONLY_BINARY_ERROR,
    check_binary_target,
    check_binary_y,
    check_fraction,
    check_hard_labels,
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
    column_1d,
    same_label,
)


def test_check_scores():
    np.testing.assert_array_equal(check_scores([[0.1], [0.2]]), [0.1, 0.2])
    with pytest.raises(ValueError, match="2 non-finite value.*position 1"):
        check_scores([0.1, np.nan, np.inf])
    with pytest.raises(ValueError, match="is empty"):
        check_scores([])
    with pytest.raises(ValueError, match="1-dimensional"):
        check_scores(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="numeric"):
        check_scores(["a", "b"])
    with pytest.raises(ValueError, match=r"\[0, 1\] for testing; got values"):
        check_scores([0.5, 1.5], unit_interval_for="testing")
    # huge but finite values are not mistaken for infinities
    assert check_scores([1e308, 1e308]).max() == 1e308


def test_check_binary_target():
    y, classes = check_binary_target([-1, 1, 1])
    assert y.tolist() == [0, 1, 1] and classes.tolist() == [-1, 1]
    with pytest.raises(ValueError, match=NON_BINARY_ERROR.split("{")[1][-22:]):
        check_binary_target([0, 1, 2])
    with pytest.raises(ValueError, match="1 class"):
        check_binary_target([1, 1])


def test_other_checks():
    with pytest.raises(ValueError, match="a has 2 and b has 3"):
        check_same_length([1, 2], [1, 2, 3], first_name="a", second_name="b")
    assert check_sample_weight_1d(None, 3) is None
    with pytest.raises(ValueError, match="sum to zero"):
        check_sample_weight_1d([0, 0], 2)
    with pytest.raises(ValueError, match="sample_weight has 1"):
        check_sample_weight_1d([1], 2)
    assert check_fraction(1, name="r") == 1.0
    with pytest.raises(ValueError, match=r"r must be a real number in \[0, 1\]"):
        check_fraction(1.5, name="r")


# Issue 10 item 12 and item 6; issue 11 (shared label helpers).


@pytest.mark.parametrize(
    "scores",
    [
        np.array([0.1 + 1j, 0.2]),
        np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]"),
        np.array([1, 2], dtype="timedelta64[s]"),
        pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02"])),
    ],
)
def test_complex_and_datetime_scores_are_refused(scores):
    with pytest.raises(TypeError, match="must be numeric"):
        check_scores(scores)


def test_sample_weight_message_names_the_argument():
    with pytest.raises(ValueError, match="sample_weight has 1 and X has 2"):
        check_sample_weight_1d([1.0], 2)
    with pytest.raises(ValueError, match="sample_weight has 1 and y_true has 2"):
        check_sample_weight_1d([1.0], 2, against="y_true")


def test_check_same_index():
    a = pd.Series([0.1, 0.2, 0.3], index=[2, 0, 1])
    check_same_index(y_score=a, sensitive_features=a.to_frame(), y_true=None)
    check_same_index(y_score=a, sensitive_features=[0, 1, 1])  # arrays: by position
    with pytest.raises(ValueError, match="y_score and sensitive_features are pandas"):
        check_same_index(y_score=a, sensitive_features=a.reset_index(drop=True))
    assert "{first}" in INDEX_MISMATCH_ERROR


def test_check_hard_labels_and_same_label():
    truth, pred = check_hard_labels([-1, 1, 1], [1, 1, -1], pos_label=1)
    assert truth.tolist() == [False, True, True] and pred.tolist() == [
        True,
        True,
        False,
    ]
    with pytest.raises(ValueError, match="same two classes"):
        check_hard_labels([0, 1], [0.2, 0.9])
    with pytest.raises(ValueError, match="pos_label=2 is not among"):
        check_hard_labels([0, 1], [0, 1], pos_label=2)
    assert check_hard_labels(["a"], ["a"], pos_label="b")[0].tolist() == [False]
    assert same_label(("a", 1), ("a", np.int64(1))) and not same_label("a", ("a",))
    assert column_1d(pd.Series([1, 2]), name="y").tolist() == [1, 2]


@pytest.mark.parametrize("y", [[0.0, np.nan, 1.0], np.array(["a", None], dtype=object)])
def test_missing_labels_are_refused_by_one_message(y):
    message = LABEL_NAN_ERROR.format(name="y_true")
    with pytest.raises(ValueError, match=message):
        check_binary_target(y)
    with pytest.raises(ValueError, match=message):
        check_hard_labels(y, y)


def test_check_same_length_takes_a_number_of_samples():
    check_same_length(np.zeros((3, 2)), 3, first_name="X", second_name="y")
    with pytest.raises(ValueError, match="X has 3 and y has 4"):
        check_same_length(np.zeros((3, 2)), 4, first_name="X", second_name="y")


class _Clf:
    """An estimator's stand-in: check_binary_y names its class."""


def test_check_binary_y():
    y, classes = check_binary_y(np.array(["b", "a", "b"]), estimator=_Clf())
    assert y.tolist() == [1, 0, 1] and classes.tolist() == ["a", "b"]
    cases = [([0, 1, 2], "multiclass", 3, [0, 1, 2]), ([1, 1], "binary", 1, [1])]
    cases.append(([0.5, 1.5, 2.0], "continuous", 3, [0.5, 1.5, 2.0]))
    for y, y_type, n, classes in cases:
        with pytest.raises(ValueError) as info:
            check_binary_y(np.array(y), estimator=_Clf())
        assert str(info.value) == ONLY_BINARY_ERROR.format(
            estimator="_Clf", y_type=y_type, n_classes=n, classes=classes
        )
    assert str(info.value).startswith("Only binary classification is supported.")


def test_a_lazy_frame_is_asked_to_be_collected():
    # np.asarray wrapped it as a 0-d array: "must be 1-dimensional, got ()"
    pl = pytest.importorskip("polars")
    lazy = pl.DataFrame({"v": [0.1, 0.2]}).lazy()

    def message(name):
        return LAZY_FRAME_ERROR.format(
            what=name, library="polars", kind="polars.LazyFrame"
        )

    calls = [
        ("y_score", lambda: check_scores(lazy)),
        ("y_pred", lambda: column_1d(lazy, name="y_pred")),
        ("sample_weight", lambda: check_sample_weight_1d(lazy, 2)),
        ("y_true", lambda: check_binary_target(lazy)),
        ("y_pred", lambda: check_hard_labels([0, 1], lazy)),
        (
            "y_true",
            lambda: check_same_length(lazy, 2, first_name="y_true", second_name="y"),
        ),
    ]
    for name, call in calls:
        with pytest.raises(TypeError) as caught:
            call()
        assert str(caught.value) == message(name)
    # an eager polars Series is still read
    np.testing.assert_array_equal(check_scores(pl.Series([0.1, 0.2])), [0.1, 0.2])


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_huge_weights_are_valid_without_an_overflow_warning():
    weights = check_sample_weight_1d(np.full(3, 1e308), 3)
    np.testing.assert_array_equal(weights, np.full(3, 1e308))
    with pytest.raises(ValueError, match="the weights sum to zero"):
        check_sample_weight_1d(np.zeros(3), 3)
