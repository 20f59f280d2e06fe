"""The in-processing estimators' docstrings, written with shared parts."""

import inspect
import re

import pytest

from skfair.inprocessing import (
    AdversarialDebiasingClassifier,
    FairLGBMClassifier,
    FairLGBMRegressor,
    FairMLPClassifier,
    FairMLPRegressor,
)

ESTIMATORS = [
    AdversarialDebiasingClassifier,
    FairLGBMClassifier,
    FairLGBMRegressor,
    FairMLPClassifier,
    FairMLPRegressor,
]
ENTRY = re.compile(r"^(\w+) :", re.MULTILINE)


def _section(doc, title):
    """The text of the numpydoc section ``title`` of a cleaned docstring."""
    start = doc.index(f"\n{title}\n{'-' * len(title)}\n") + 2 * len(title) + 3
    end = re.search(r"\n\n\w[\w ]*\n-+\n", doc[start:])
    return doc[start : start + end.start()] if end else doc[start:]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_parameters_are_the_signature_s_in_order(estimator):
    doc = inspect.cleandoc(estimator.__doc__)
    documented = ENTRY.findall(_section(doc, "Parameters"))
    assert documented == list(inspect.signature(estimator).parameters)
    assert not re.search(r"^\s*<\w+>$", estimator.__doc__, re.MULTILINE)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_attributes_name_the_fitted_inputs_and_target(estimator):
    doc = inspect.cleandoc(estimator.__doc__)
    attributes = ENTRY.findall(_section(doc, "Attributes"))
    assert {"n_features_in_", "feature_names_in_"} <= set(attributes)
    expected = ("y_mean_", "y_scale_") if "Regressor" in estimator.__name__ else ()
    expected = expected or ("classes_",)
    assert set(expected) <= set(attributes)
    # the shared part is the same text in every estimator that names it
    entry = re.search(r"^n_features_in_ : int\n    (.+)$", doc, re.MULTILINE)
    assert entry.group(1) == (
        "Number of columns of ``X`` seen in fit (sensitive ones included)."
    )
