"""Warnings about the user's data point at the user's line, not into skfair.

A fixed ``stacklevel`` cannot do this: the depth of skfair's own calls
differs from function to function, and before Python 3.12 a list
comprehension is a frame of its own (the small-group warning pointed into
``skfair/metrics/_base.py`` on Python 3.11).
"""

import warnings

import numpy as np
import pytest

from skfair import ensemble, inprocessing, metrics
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


# The estimators' fit is wrapped by scikit-learn's _fit_context: the warning
# pointed at that wrapper (sklearn/base.py) before, not at the user's fit.
X_SMALL = np.column_stack([GROUPS, Y])
FITS = {
    "FairMLPClassifier": lambda: inprocessing.FairMLPClassifier(
        sensitive=0, max_iter=2
    ).fit(X_SMALL, LABELS),
    "FairMLPRegressor": lambda: inprocessing.FairMLPRegressor(
        sensitive=0, max_iter=2
    ).fit(X_SMALL, Y),
    "AdaFairClassifier": lambda: ensemble.AdaFairClassifier(
        sensitive=0, n_estimators=2
    ).fit(X_SMALL, LABELS),
}


@pytest.mark.parametrize("name", sorted(FITS))
def test_small_group_warning_of_fit_points_at_the_fit_call(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FITS[name]()
    small = [w for w in caught if issubclass(w.category, SmallGroupWarning)]
    assert small, f"{name} gave no SmallGroupWarning"
    assert {w.filename for w in small} == {__file__}


@pytest.mark.parametrize("cls", ["FairMLPClassifier", "FairMLPRegressor"])
def test_penalty_never_applied_warning_points_at_the_fit_call(cls):
    # mini-batches of one sample hold one group: the penalty never acts
    X = np.column_stack([np.repeat([0, 1], 40), np.linspace(-1, 1, 80)])
    model = getattr(inprocessing, cls)(sensitive=0, max_iter=3, batch_size=1)
    with pytest.warns(UserWarning, match="applied on none") as caught:
        model.fit(X, np.tile([0, 1], 40))
    assert {w.filename for w in caught} == {__file__}
