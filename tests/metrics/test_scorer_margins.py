"""A model with decision_function only: the scorers name the option that scores it."""

import re

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.svm import LinearSVC

from skfair.metrics import (
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_mcdp_scorer,
)
from skfair.metrics._scorer import MARGINS_FIXES, MARGINS_ONLY_ERROR

rng = np.random.default_rng(40)
X = rng.normal(size=(120, 3))
X[:, 0] = rng.integers(0, 2, 120)
y = (X[:, 1] + 0.5 * X[:, 0] > 0).astype(int)

# (factory, its options, the fix the message names, the options of that fix)
CASES = [
    (make_mcdp_scorer, {}, "allowed", {"response_method": "decision_function"}),
    (
        make_mcdp_scorer,
        {"epsilon": 0.05},
        "domain",
        {"response_method": "decision_function", "domain": None},
    ),
    (
        make_abpc_scorer,
        {},
        "domain",
        {"response_method": "decision_function", "domain": None},
    ),
    (make_abcc_scorer, {}, "neither", {"response_method": "predict"}),
    (make_delta_dp_scorer, {}, "neither", {"response_method": "predict"}),
]


@pytest.mark.parametrize(("factory", "options", "fix", "fixed"), CASES)
def test_margins_only_model_gets_the_option_that_scores_it(
    factory, options, fix, fixed
):
    scorer = factory(sensitive=0, min_group_size=1, **options)
    model = LinearSVC().fit(X, y)
    with pytest.raises(AttributeError) as info:
        scorer(model, X, y)
    assert str(info.value) == MARGINS_ONLY_ERROR.format(
        scorer=repr(scorer),
        methods=("predict_proba",),
        estimator="LinearSVC",
        fix=MARGINS_FIXES[fix],
    )
    for name, value in fixed.items():  # the message names the options it passes
        assert re.search(rf"{name}=\W?{value}", str(info.value))
    # and they score the model
    fixed_scorer = factory(sensitive=0, min_group_size=1, **options, **fixed)
    scores = cross_val_score(LinearSVC(), X, y, cv=3, scoring=fixed_scorer)
    assert np.all(np.isfinite(scores)) and np.all(scores <= 0)
