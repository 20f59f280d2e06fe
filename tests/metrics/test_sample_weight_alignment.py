"""A pandas ``sample_weight`` is checked against the other inputs' index (issue 19).

Samples are paired by position; a weight Series whose index differs from the
scores' (or the sensitive features', or X's) would silently pair weights with
other samples, so every entry point refuses it with the same message.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    demographic_parity_gap,
    discriminative_risk,
    disparity_test,
    make_mcdp_scorer,
    mcdp,
    metric_confidence_interval,
)

MISMATCH = "are pandas objects with different indexes"
N = 200


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    index = pd.RangeIndex(N)
    scores = pd.Series(rng.random(N), index=index)
    groups = pd.Series(np.repeat(["a", "b"], N // 2), index=index)
    weights = pd.Series(rng.random(N) + 0.5, index=index)
    shuffled = weights.sample(frac=1.0, random_state=0)  # same values, other order
    return scores, groups, weights, shuffled


@pytest.mark.parametrize("metric", [delta_dp, abcc, abpc, mcdp])
def test_distribution_metrics(data, metric):
    scores, groups, weights, shuffled = data
    metric(None, scores, sensitive_features=groups, sample_weight=weights)
    with pytest.raises(ValueError, match=MISMATCH):
        metric(None, scores, sensitive_features=groups, sample_weight=shuffled)


def test_aligned_weights_with_array_scores_are_accepted(data):
    scores, groups, weights, _ = data
    expected = abcc(None, scores, sensitive_features=groups, sample_weight=weights)
    got = abcc(
        None, scores.to_numpy(), sensitive_features=groups, sample_weight=weights
    )
    assert got == expected


def test_group_gaps(data):
    scores, groups, _, shuffled = data
    y_pred = (scores > 0.5).astype(int)
    with pytest.raises(ValueError, match=MISMATCH):
        demographic_parity_gap(
            y_pred, y_pred, sensitive_features=groups, sample_weight=shuffled
        )


def test_interval_and_test(data):
    scores, groups, _, shuffled = data
    common = {"sensitive_features": groups, "sample_weight": shuffled}
    with pytest.raises(ValueError, match=MISMATCH):
        metric_confidence_interval(
            None, scores, metric="abcc", method="bootstrap", n_resamples=9, **common
        )
    with pytest.raises(ValueError, match=MISMATCH):
        disparity_test(None, scores, metric="abcc", n_resamples=9, **common)


def test_scorer_with_routed_weights(data):
    _, _, weights, shuffled = data
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.normal(size=N), "sex": rng.integers(0, 2, N)})
    y = (rng.random(N) < 0.5).astype(int)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_mcdp_scorer(sensitive="sex")
        scorer = scorer.set_score_request(sample_weight=True)
        model = LogisticRegression().set_fit_request(sample_weight=False)
        cross_val_score(
            model, X, y, scoring=scorer, cv=2, params={"sample_weight": weights}
        )
        with pytest.raises(ValueError, match=MISMATCH):
            scorer(model.fit(X, y), X, y, sample_weight=shuffled)


def test_discriminative_risk(data):
    _, _, weights, shuffled = data
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"x": rng.normal(size=N), "s": rng.integers(0, 2, N)})
    y = (X["x"] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    discriminative_risk(model, X, sensitive="s", sample_weight=weights)
    with pytest.raises(ValueError, match=MISMATCH):
        discriminative_risk(model, X, sensitive="s", sample_weight=shuffled)
