"""Warnings about the user's data point at the user's line, not into skfair.

A fixed ``stacklevel`` cannot do this: the depth of skfair's own calls
differs from function to function, and before Python 3.12 a list
comprehension is a frame of its own (the small-group warning pointed into
``skfair/metrics/_base.py`` on Python 3.11).
"""

import warnings

import numpy as np
import pytest

from skfair import metrics
from skfair.utils import SmallGroupWarning

Y = np.linspace(0.01, 0.99, 60)
LABELS = (Y > 0.5).astype(int)
GROUPS = np.array([0] * 50 + [1] * 10)

CALLS = {
    "mcdp": lambda: metrics.mcdp(None, Y, sensitive_features=GROUPS),
    "mcdp_eps": lambda: metrics.mcdp(None, Y, sensitive_features=GROUPS, epsilon=0.05),
    "abcc": lambda: metrics.abcc(None, Y, sensitive_features=GROUPS),
    "abpc": lambda: metrics.abpc(None, Y, sensitive_features=GROUPS),
    "delta_dp": lambda: metrics.delta_dp(None, Y, sensitive_features=GROUPS),
    "demographic_parity_difference": lambda: metrics.demographic_parity_difference(
        LABELS, (Y > 0.3).astype(int), sensitive_features=GROUPS
    ),
    "mean_absolute_error_difference": lambda: metrics.mean_absolute_error_difference(
        Y, Y + 0.1, sensitive_features=GROUPS
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_small_group_warning_points_at_the_callers_line(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CALLS[name]()
    small = [w for w in caught if issubclass(w.category, SmallGroupWarning)]
    assert small, f"{name} gave no SmallGroupWarning"
    assert {w.filename for w in small} == {__file__}
