"""fairlearn's fit(X, y, sensitive_features=s) gets what to do instead (issue 40)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

from skfair.postprocessing import (
    ThresholdInvariantClassifier,
    ThresholdInvariantRegressor,
)
from skfair.postprocessing._repair import SENSITIVE_AT_FIT_ERROR

rng = np.random.default_rng(40)
X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
s = rng.integers(0, 2, 200)  # group codes the model may read too
y = (X["a"] + s > 0.5).astype(int)


@pytest.mark.parametrize(
    ("postprocessor", "estimator", "target"),
    [
        (ThresholdInvariantClassifier, LogisticRegression(), y),
        (ThresholdInvariantRegressor, Ridge(), X["b"] + s),
    ],
)
def test_sensitive_features_at_fit_says_to_name_the_column(
    postprocessor, estimator, target
):
    model = postprocessor(estimator, sensitive="a", random_state=0)
    with pytest.raises(TypeError) as info:
        model.fit(X, target, sensitive_features=s)
    assert str(info.value) == SENSITIVE_AT_FIT_ERROR.format(
        name=postprocessor.__name__, estimator=type(estimator).__name__
    )
    # the way the message names fits and predicts
    fitted = postprocessor(estimator, sensitive="group", random_state=0)
    fitted.fit(X.assign(group=s), target)
    assert fitted.predict(X.assign(group=s)).shape == (200,)
    array = np.column_stack([X.to_numpy(), s])
    fitted = postprocessor(estimator, sensitive=-1, random_state=0)
    assert fitted.fit(array, target).predict(array).shape == (200,)
