"""A fitted model's scores for its positive class (``_response.py``)."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.svm import LinearSVC

from skfair.utils._response import (
    NO_RESPONSE_METHOD_ERROR,
    POSITIVE_CLASS_NEEDED_ERROR,
    POSITIVE_CLASS_UNKNOWN_ERROR,
    RESPONSE_METHOD_ERROR,
    positive_class_scores,
)

X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
Y = np.array(["no", "no", "no", "yes", "yes", "yes"])


def test_proba_column_of_the_positive_class():
    model = LogisticRegression().fit(X, Y)
    proba = model.predict_proba(X)
    scores, label = positive_class_scores(model, X)
    assert label == "yes"
    np.testing.assert_array_equal(scores, proba[:, 1])
    scores, label = positive_class_scores(model, X, pos_label="no")
    assert label == "no"
    np.testing.assert_array_equal(scores, proba[:, 0])


def test_decision_function_is_oriented_towards_the_positive_class():
    model = LinearSVC().fit(X, Y)  # no predict_proba: "auto" falls back
    margin = model.decision_function(X)
    scores, _ = positive_class_scores(model, X)
    np.testing.assert_array_equal(scores, margin)
    scores, _ = positive_class_scores(model, X, pos_label="no")
    np.testing.assert_array_equal(scores, -margin)
    model = LogisticRegression().fit(X, Y)
    scores, _ = positive_class_scores(
        model, X, response_method=("decision_function", "predict_proba")
    )
    np.testing.assert_array_equal(scores, model.decision_function(X))


def test_predict_is_the_indicator_of_the_positive_class():
    model = LogisticRegression().fit(X, Y)
    scores, _ = positive_class_scores(model, X, response_method="predict")
    np.testing.assert_array_equal(scores, (model.predict(X) == "yes").astype(float))


def test_multiclass_needs_pos_label_and_takes_its_column():
    y = np.array([0, 0, 1, 1, 2, 2])
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError) as caught:
        positive_class_scores(model, X)
    assert str(caught.value) == POSITIVE_CLASS_NEEDED_ERROR.format(
        estimator="LogisticRegression", n_classes=3, classes=[0, 1, 2]
    )
    for method in ("predict_proba", "decision_function"):
        scores, label = positive_class_scores(
            model, X, response_method=method, pos_label=1
        )
        assert label == 1
        np.testing.assert_array_equal(scores, getattr(model, method)(X)[:, 1])


def test_errors_name_the_estimator_and_the_argument():
    model = LogisticRegression().fit(X, Y)
    with pytest.raises(ValueError) as caught:
        positive_class_scores(model, X, pos_label="maybe")
    assert str(caught.value) == POSITIVE_CLASS_UNKNOWN_ERROR.format(
        pos_label="maybe", estimator="LogisticRegression", classes=["no", "yes"]
    )
    with pytest.raises(ValueError) as caught:
        positive_class_scores(model, X, response_method="predict_log_proba")
    assert str(caught.value) == RESPONSE_METHOD_ERROR.format(
        methods=["predict_proba", "decision_function", "predict"],
        value="predict_log_proba",
    )
    with pytest.raises(AttributeError) as caught:
        positive_class_scores(LinearSVC().fit(X, Y), X, response_method="predict_proba")
    assert str(caught.value) == NO_RESPONSE_METHOD_ERROR.format(
        estimator="LinearSVC", methods=["predict_proba"]
    )


def test_a_regressor_output_is_returned_as_it_is():
    model = LinearRegression().fit(X, np.arange(6.0))
    scores, label = positive_class_scores(model, X, response_method="predict")
    assert label is None
    np.testing.assert_allclose(scores, model.predict(X))
