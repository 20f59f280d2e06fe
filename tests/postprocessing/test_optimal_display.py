"""FairnessTradeoffDisplay.from_tolerances on OptimalParityClassifier."""

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from skfair.postprocessing import OptimalParityClassifier

pytest.importorskip("matplotlib")


def test_from_tolerances_draws_the_exact_tradeoff():
    import matplotlib.pyplot as plt

    from skfair.plotting import FairnessTradeoffDisplay

    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, 3000)
    x = rng.normal(0.6 * group, 1.0, 3000)
    X = np.column_stack([group, x])
    y = (x + rng.normal(size=3000) > 0.5).astype(int)
    model = FrozenEstimator(LogisticRegression().fit(X[:1000], y[:1000]))
    tolerances = [0.0, 0.02, 0.05, 0.1, 1.0]
    display = FairnessTradeoffDisplay.from_tolerances(
        OptimalParityClassifier(model, sensitive=0, constraint="equalized_odds"),
        X[1000:],
        y[1000:],
        tolerances=tolerances,
    )
    assert len(display.estimators_) == len(tolerances)
    for clf, tolerance, acc, gap in zip(
        display.estimators_, tolerances, display.performance, display.unfairness
    ):
        assert clf.tolerance == tolerance
        assert acc == clf.accuracy_ and gap == clf.violation_ <= tolerance + 1e-9
    # a larger tolerance never costs accuracy: every point is on the front
    assert np.all(np.diff(display.performance) >= -1e-12)
    assert display.pareto_mask_.all()
    assert display.candidate_names[0] == "tolerance=0"
    assert display.ax_.get_ylabel() == "equalized odds gap (lower is fairer)"
    plt.close("all")
