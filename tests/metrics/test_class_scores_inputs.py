"""Clear errors for class probabilities that are no finite (n, K) matrix (#40)."""

import re

import numpy as np
import pytest

from skfair.metrics import abcc, mcdp, per_class_values
from skfair.metrics._multiclass import PROBA_NDIM_ERROR, PROBA_NON_FINITE_ERROR
from skfair.utils._validation import RAGGED_ERROR

Y = np.array([0, 1, 2] * 20)
GROUPS = np.repeat(["a", "b"], 30)
PROBA = np.tile([0.1, 0.8, 0.1], (60, 1))


def test_one_dimensional_scores_say_what_per_class_values_needs():
    with pytest.raises(ValueError) as info:
        per_class_values(Y, np.linspace(0, 1, 60), sensitive_features=GROUPS)
    assert str(info.value) == PROBA_NDIM_ERROR.format(what="an array of shape (60,)")
    with pytest.raises(ValueError, match=re.escape("shape (60, 3, 1)")):
        per_class_values(Y, PROBA[:, :, None], sensitive_features=GROUPS)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("metric", [per_class_values, mcdp, abcc])
def test_non_finite_class_probabilities_are_named_as_such(bad, metric):
    proba = PROBA.copy()
    proba[7, 2] = bad
    proba[9, 0] = bad
    with pytest.raises(ValueError) as info:
        metric(Y, proba, sensitive_features=GROUPS, min_group_size=1)
    assert str(info.value) == PROBA_NON_FINITE_ERROR.format(n_bad=2, row=7, column=2)
    assert "got values in" not in str(info.value)


@pytest.mark.parametrize("metric", [per_class_values, mcdp])
def test_a_ragged_list_of_rows_is_named(metric):
    ragged = [[0.2, 0.8]] + [[0.1, 0.1, 0.8]] * 59
    with pytest.raises(ValueError) as info:
        metric(Y, ragged, sensitive_features=GROUPS, min_group_size=1)
    assert str(info.value) == RAGGED_ERROR.format(name="y_score", lengths=[2, 3])
