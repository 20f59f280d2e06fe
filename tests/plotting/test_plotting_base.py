import inspect
import re
import sys

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfair.plotting import (
    FairnessTradeoffDisplay,
    GroupCDFDisplay,
    MCDPCurveDisplay,
    ThresholdDisparityDisplay,
)
from skfair.plotting._base import (
    MATPLOTLIB_ERROR,
    MAX_POINTS_ERROR,
    NOT_BINARY_ERROR,
    RESPONSE_METHOD_ERROR,
    ecdf_at,
    get_response_values,
    thin_ecdf,
    weighted_ecdf,
)
from skfair.utils._response import POSITIVE_CLASS_UNKNOWN_ERROR


def _scores(seed=0, n=120):
    rng = np.random.default_rng(seed)
    group = np.repeat([0, 1], n // 2)
    return rng.random(n).round(2), group


@pytest.mark.parametrize(
    "draw",
    [
        lambda s, g: GroupCDFDisplay.from_predictions(None, s, sensitive_features=g),
        lambda s, g: MCDPCurveDisplay.from_predictions(None, s, sensitive_features=g),
        lambda s, g: ThresholdDisparityDisplay.from_predictions(
            None, s, sensitive_features=g
        ),
        lambda s, g: FairnessTradeoffDisplay.from_cv_results(
            {"mean_test_f": [-0.1, -0.2], "mean_test_p": [0.8, 0.9]},
            fairness="f",
            performance="p",
        ),
    ],
)
def test_missing_matplotlib_names_the_extra(monkeypatch, draw):
    s, g = _scores()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError) as info:
        draw(s, g)
    assert 'pip install "skfair-learn[plot]"' in str(info.value)
    assert str(info.value).startswith(MATPLOTLIB_ERROR.split("{")[0])


def test_weighted_ecdf_matches_brute_force():
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 7, 50) / 6
    weights = rng.random(50)
    x, F = weighted_ecdf(scores)
    assert np.array_equal(x, np.unique(scores))
    assert np.allclose(F, [(scores <= t).mean() for t in x], rtol=0, atol=0)
    x, F = weighted_ecdf(scores, weights)
    brute = [weights[scores <= t].sum() / weights.sum() for t in x]
    assert np.allclose(F, brute) and F[-1] == 1.0


def test_ecdf_at_right_and_left_limits():
    x, F = np.array([0.1, 0.5]), np.array([0.25, 1.0])
    t = np.array([0.0, 0.1, 0.3, 0.5, 0.7])
    assert ecdf_at(x, F, t).tolist() == [0.0, 0.25, 0.25, 1.0, 1.0]
    assert ecdf_at(x, F, t, left=True).tolist() == [0.0, 0.0, 0.25, 0.25, 1.0]


@pytest.mark.parametrize("max_points", [2, 5, 50])
def test_thin_ecdf_stays_within_one_level(max_points):
    rng = np.random.default_rng(max_points)
    scores = rng.beta(0.3, 3, 3000).round(3)
    x, F = weighted_ecdf(scores)
    xs, Fs = thin_ecdf(x, F, max_points)
    assert xs.size <= max_points + 2
    # the kept points are exact ECDF values ...
    assert np.array_equal(Fs, ecdf_at(x, F, xs))
    # ... and the drawn step (hold the last kept value) is within 1/max_points
    drawn = ecdf_at(xs, Fs, x)
    assert (drawn <= F).all()
    assert (F - drawn < 1 / max_points).all()
    assert xs[-1] == x[-1] and xs[0] == x[0]


def test_thin_ecdf_rejects_bad_max_points():
    s, g = _scores()
    with pytest.raises(ValueError, match=MAX_POINTS_ERROR.format(value=1)[:20]):
        GroupCDFDisplay.from_predictions(None, s, sensitive_features=g, max_points=1)


def test_get_response_values_orientation():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    y = np.where(X[:, 0] > 0, "yes", "no")
    clf = LogisticRegression().fit(X, y)
    proba, pos = get_response_values(clf, X)
    assert pos == "yes" and np.array_equal(proba, clf.predict_proba(X)[:, 1])
    proba, pos = get_response_values(clf, X, pos_label="no")
    assert np.array_equal(proba, clf.predict_proba(X)[:, 0])
    dec, _ = get_response_values(clf, X, response_method="decision_function")
    assert np.array_equal(dec, clf.decision_function(X))
    dec, _ = get_response_values(
        clf, X, response_method="decision_function", pos_label="no"
    )
    assert np.array_equal(dec, -clf.decision_function(X))
    with pytest.raises(ValueError, match="response_method"):
        get_response_values(clf, X, response_method="predict")
    assert "response_method" in RESPONSE_METHOD_ERROR
    unknown = POSITIVE_CLASS_UNKNOWN_ERROR.format(
        pos_label="maybe", estimator="LogisticRegression", classes=["no", "yes"]
    )
    with pytest.raises(ValueError, match=re.escape(unknown)):
        get_response_values(clf, X, pos_label="maybe")
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    clf3 = LogisticRegression().fit(X, y3)
    with pytest.raises(ValueError, match="binary classifier"):
        get_response_values(clf3, X)
    assert "binary" in NOT_BINARY_ERROR


@pytest.mark.parametrize(
    "cls", [GroupCDFDisplay, MCDPCurveDisplay, ThresholdDisparityDisplay]
)
def test_from_estimator_forwards_every_argument(cls, monkeypatch):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=60), np.repeat([0, 1], 30)])
    y = (X[:, 0] > 0).astype(int)
    clf = LogisticRegression().fit(X, y)
    own = {"estimator", "X", "y", "sensitive", "response_method", "pos_label"}
    shared = set(inspect.signature(cls.from_estimator).parameters) - own - {"name"}
    scores_and_groups = {"y_true", "y_score", "sensitive_features", "name"}
    assert set(inspect.signature(cls.from_predictions).parameters) == (
        shared | scores_and_groups
    )
    received = {}

    def spy(_, y_true, y_score, **kwargs):
        received.update(kwargs, y_true=y_true, y_score=y_score)

    monkeypatch.setattr(cls, "from_predictions", classmethod(spy))
    given = {key: object() for key in shared}  # each must arrive untouched
    cls.from_estimator(clf, X, y, sensitive=1, pos_label=0, **given)
    assert received.pop("y_true") is y
    assert np.array_equal(received.pop("y_score"), clf.predict_proba(X)[:, 0])
    assert np.array_equal(np.ravel(received.pop("sensitive_features")), X[:, 1])
    assert received.pop("name") == "LogisticRegression"
    assert received == given


@pytest.mark.parametrize(
    "cls",
    [
        GroupCDFDisplay,
        MCDPCurveDisplay,
        ThresholdDisparityDisplay,
        FairnessTradeoffDisplay,
    ],
)
def test_every_parameter_is_documented(cls):
    methods = ["plot", "from_predictions", "from_estimator"]
    methods += ["from_cv_results", "from_compare_table"]
    for name in (m for m in methods if hasattr(cls, m)):
        method = getattr(cls, name)
        doc = inspect.getdoc(method)
        assert not re.search(r"^\s*<\w+>$", doc, flags=re.M), "unfilled placeholder"
        section = doc.split("Parameters\n----------\n")[1].split("\n\n")[0]
        documented = {
            part.strip()
            for line in section.splitlines()
            if not line.startswith(" ")
            for part in line.split(" :")[0].split(",")
        }
        assert documented == set(inspect.signature(method).parameters) - {"self"}
