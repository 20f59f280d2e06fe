"""The distribution metrics' shared input handling (``_base.py``), on unusual inputs."""

import numpy as np
import pytest

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    demographic_parity_gap,
    discriminative_risk,
    disparity_test,
    equal_opportunity_gap,
    hfm,
    mcdp,
    mcdp_curve,
    mcdp_details,
    metric_confidence_interval,
    predictive_quality_parity_gap,
)
from skfair.metrics._base import ZERO_WEIGHT_GROUP_ERROR
from skfair.utils._dataframe import LAZY_FRAME_ERROR

# Groups of 20 samples on purpose: the values, not their noise, are compared.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
RNG = np.random.default_rng(0)
SCORES = RNG.random(60)
GROUPS = np.repeat(["a", "b", "c"], 20)
LABELS = (SCORES > 0.5).astype(int)


@pytest.mark.parametrize(
    ("metric", "kwargs"),
    [
        (mcdp, {}),
        (mcdp, {"epsilon": 0.05}),
        (abcc, {}),
        (abpc, {}),
        (delta_dp, {}),
        (delta_dp, {"threshold": 0.5}),
    ],
)
@pytest.mark.parametrize("peak", [1e308, 1e-300])
def test_a_common_weight_scale_changes_nothing(metric, kwargs, peak):
    # weights of 1e308 summed to infinity: the metrics returned NaN (or -inf)
    w = RNG.uniform(0.5, 1.0, 60)
    scaled = w / w.max() * peak
    expected = metric(
        None, SCORES, sensitive_features=GROUPS, sample_weight=w, **kwargs
    )
    value = metric(
        None, SCORES, sensitive_features=GROUPS, sample_weight=scaled, **kwargs
    )
    assert np.isfinite(expected)
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-12)
    ones = metric(None, SCORES, sensitive_features=GROUPS, **kwargs)
    huge = np.full(60, peak)
    value = metric(
        None, SCORES, sensitive_features=GROUPS, sample_weight=huge, **kwargs
    )
    assert value == pytest.approx(ones, rel=1e-9, abs=1e-12)


def test_a_scale_per_group_changes_nothing():
    # each group's distribution is normalised by its own total weight
    w = RNG.uniform(0.5, 1.0, 60)
    per_group = w * np.repeat([1e308, 1.0, 1e-300], 20) / w.max()
    for metric in (mcdp, abcc, delta_dp):
        expected = metric(None, SCORES, sensitive_features=GROUPS, sample_weight=w)
        value = metric(None, SCORES, sensitive_features=GROUPS, sample_weight=per_group)
        assert value == pytest.approx(expected, rel=1e-9)


def test_a_group_of_zero_weight_is_still_refused():
    w = np.where(GROUPS == "b", 0.0, 1e308)
    message = ZERO_WEIGHT_GROUP_ERROR.format(label="b", name="sensitive_features")
    with pytest.raises(ValueError, match=message):
        mcdp(None, SCORES, sensitive_features=GROUPS, sample_weight=w)


class Constant:
    def predict(self, X):
        return np.zeros(len(X))


def _calls(lazy):
    """Every metric called with ``lazy`` as y_true, y_score/y_pred or sample_weight."""
    g = {"sensitive_features": GROUPS}
    for metric in (mcdp, abcc, abpc, delta_dp, mcdp_details):
        yield "y_score", lambda m=metric: m(None, lazy, **g)
        yield "y_true", lambda m=metric: m(lazy, SCORES, **g)
        yield "sample_weight", lambda m=metric: m(None, SCORES, sample_weight=lazy, **g)
    yield "y_score", lambda: mcdp_curve(None, lazy, epsilons=[0.0], **g)
    for test in (metric_confidence_interval, disparity_test):
        yield "y_score", lambda t=test: t(None, lazy, **g)
        yield "sample_weight", lambda t=test: t(None, SCORES, sample_weight=lazy, **g)
    gaps = (
        demographic_parity_gap,
        equal_opportunity_gap,
        predictive_quality_parity_gap,
    )
    for gap in gaps:
        yield "y_true", lambda m=gap: m(lazy, LABELS, **g)
        yield "y_pred", lambda m=gap: m(LABELS, lazy, **g)
        yield "sample_weight", lambda m=gap: m(LABELS, LABELS, sample_weight=lazy, **g)
    X = SCORES.reshape(-1, 1)
    yield "y_true", lambda: hfm(X, lazy, LABELS, **g)
    yield "y_pred", lambda: hfm(X, LABELS, lazy, **g)
    X = np.column_stack([SCORES, GROUPS == "a"])
    yield (
        "sample_weight",
        lambda: discriminative_risk(Constant(), X, sensitive=1, sample_weight=lazy),
    )


def test_every_metric_asks_to_collect_a_lazy_frame():
    # it said "y_score must be 1-dimensional, got an array of shape ()"
    pl = pytest.importorskip("polars")
    lazy = pl.DataFrame({"v": np.ones(60)}).lazy()
    for name, call in _calls(lazy):
        message = LAZY_FRAME_ERROR.format(
            what=name, library="polars", kind="polars.LazyFrame"
        )
        with pytest.raises(TypeError) as caught:
            call()
        assert str(caught.value) == message
