"""The estimators' shared pieces (skfair.utils._estimator)."""

import numpy as np
import pytest

from skfair.utils._estimator import BinaryDecisionMixin


class _Clf(BinaryDecisionMixin):
    classes_ = np.array(["no", "yes"])

    def __init__(self, a=1, b=None):
        self.a = a
        self.b = b

    def decision_function(self, X):
        return np.asarray(X, dtype=float)

    _proba_of_positive = staticmethod(lambda d: (1.0 + d) / 2.0)


def test_the_binary_decision_mixin():
    clf = _Clf(a=2)
    assert vars(clf) == {"a": 2, "b": None}
    # a decision of 0 (probability 0.5) predicts classes_[0], as scikit-learn
    decision = [-0.5, 0.0, 1e-300, 0.5]
    assert clf.predict(decision).tolist() == ["no", "no", "yes", "yes"]
    decision = [-0.5, 0.0, 0.5]
    argmax = clf.classes_[clf.predict_proba(decision).argmax(axis=1)]
    assert argmax.tolist() == clf.predict(decision).tolist() == ["no", "no", "yes"]
    with pytest.raises(ValueError, match=r"all of them sensitive \(\['x0', 'x1'\]\)"):
        clf._check_features_left(0, 2)
    clf._check_features_left(1, 2)
