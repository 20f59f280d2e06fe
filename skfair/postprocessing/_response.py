"""The estimator's method whose scores are repaired, and its positive column."""

from __future__ import annotations

import numpy as np

from ..utils._validation import check_scores


def resolve_response_method(estimator, response_method):
    """The method of ``estimator`` whose scores are repaired."""
    if response_method != "auto":
        return response_method
    return (
        "predict_proba" if hasattr(estimator, "predict_proba") else "decision_function"
    )


def has_response(needed):
    """Build an ``available_if`` check: is ``needed`` the repaired method."""

    def check(self):
        estimator = getattr(self, "estimator_", self.estimator)
        getattr(estimator, needed)  # AttributeError if the estimator lacks it
        used = resolve_response_method(estimator, self.response_method)
        if used != needed:
            raise AttributeError(
                f"{needed} is not available: the repaired scores come from "
                f"{used} (response_method={self.response_method!r})."
            )
        return True

    return check


def positive_scores(scores, response_method):
    """The positive class's (``classes_[1]``) column of ``response_method``."""
    if response_method == "predict_proba":
        scores = scores[:, 1]
    return check_scores(np.asarray(scores, dtype=np.float64).ravel(), name="scores")
