"""Found by users: the errors of non-numeric inputs and of diverged training."""

import re

import numpy as np
import pandas as pd
import pytest

from skfair.inprocessing import (
    AdversarialDebiasingClassifier,
    FairLGBMClassifier,
    FairMLPClassifier,
)
from skfair.inprocessing._mlp import DIVERGED_ERROR
from skfair.utils._estimator import (
    NON_NUMERIC_FEATURE_ERROR,
    NON_NUMERIC_SENSITIVE_HINT,
)

ESTIMATORS = [
    (FairMLPClassifier, {"max_iter": 2}),
    (AdversarialDebiasingClassifier, {"max_iter": 2}),
    (FairLGBMClassifier, {"n_estimators": 2}),
]


def _frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.normal(size=n), "grp": rng.choice(["a", "b"], n)})
    return X, (X["x"] > 0).astype(int)


@pytest.mark.parametrize(("cls", "fast"), ESTIMATORS, ids=lambda v: str(v)[:20])
def test_string_sensitive_column_as_feature_is_named_with_the_way_out(cls, fast):
    if cls is FairLGBMClassifier:
        pytest.importorskip("lightgbm")
    X, y = _frame()
    model = cls(sensitive="grp", sensitive_as_feature=True, **fast)
    with pytest.raises(ValueError) as caught:
        model.fit(X, y)
    assert str(caught.value) == NON_NUMERIC_FEATURE_ERROR.format(
        estimator=cls.__name__, columns=["grp"], hint=NON_NUMERIC_SENSITIVE_HINT
    )


def test_string_feature_is_named_without_the_hint():
    X, y = _frame()
    X = X.assign(colour=np.where(y == 1, "red", "blue"))
    with pytest.raises(ValueError) as caught:
        FairMLPClassifier(sensitive="grp", max_iter=2).fit(X, y)
    assert str(caught.value) == NON_NUMERIC_FEATURE_ERROR.format(
        estimator="FairMLPClassifier", columns=["colour"], hint=""
    )
    # numbers held as strings still convert, as check_array converts them
    X, y = _frame()
    X["x"] = X["x"].astype(str).astype(object)
    FairMLPClassifier(sensitive="grp", max_iter=2, random_state=0).fit(X, y)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's overflow
@pytest.mark.parametrize("penalty", ["mcdp", "dp", "abcc"])
def test_divergence_is_named_whatever_the_penalty(penalty):
    # finite float64 features beyond float32's range: the first forward pass
    # of the float32 network overflows; the mcdp penalty used to fail first,
    # with the metric's "y_score contains NaN"
    X, y = _frame()
    X["x"] = X["x"] * 1e39
    model = FairMLPClassifier(
        sensitive="grp", penalty=penalty, max_iter=5, random_state=0
    )
    largest = float(X["x"].abs().max())
    message = DIVERGED_ERROR.format(step=0, largest=largest)
    with pytest.raises(FloatingPointError, match=re.escape(message)):
        model.fit(X, y)
    with pytest.raises(FloatingPointError, match=re.escape(message)):
        AdversarialDebiasingClassifier(sensitive="grp", max_iter=5).fit(X, y)
