"""``given=`` on Dask inputs equals the in-memory metric (issue 37)."""

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason="the dask extra is not installed")
pytest.importorskip("distributed", reason="distributed is not installed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

from skfair.metrics import abcc, delta_dp, mcdp, mcdp_details  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("client"),
    pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning"),
]


@pytest.mark.parametrize("side", ["positive", "negative", "both"])
def test_dask_arrays_and_series(side):
    rng = np.random.default_rng(0)
    n = 3000
    label = rng.choice(["yes", "no"], n)
    group = rng.integers(0, 3, n)
    score = np.round(rng.beta(2 + group, 3.0 + (label == "yes")), 2)
    mem = {"sensitive_features": group, "given": side, "pos_label": "yes"}
    lazy = {
        "sensitive_features": da.from_array(group, chunks=700),
        "given": side,
        "pos_label": "yes",
    }
    y, s = da.from_array(label, chunks=700), da.from_array(score, chunks=700)
    for epsilon in (0.0, 0.05):
        assert mcdp(y, s, epsilon=epsilon, **lazy) == mcdp(
            label, score, epsilon=epsilon, **mem
        )
    got, want = mcdp_details(y, s, **lazy), mcdp_details(label, score, **mem)
    assert (got.value, got.given, got.threshold) == (
        want.value,
        want.given,
        want.threshold,
    )
    assert delta_dp(y, s, threshold=0.5, **lazy) == delta_dp(
        label, score, threshold=0.5, **mem
    )
    assert abcc(y, s, **lazy) == pytest.approx(abcc(label, score, **mem), rel=1e-12)
    frame = dd.from_pandas(pd.DataFrame({"y": label, "s": score, "g": group}), 3)
    got = mcdp(
        frame["y"],
        frame["s"],
        sensitive_features=frame["g"],
        given=side,
        pos_label="yes",
    )
    assert got == mcdp(label, score, **mem)


def test_dask_class_probabilities_per_true_class():
    rng = np.random.default_rng(1)
    n = 2000
    proba = rng.dirichlet(np.ones(3), n)
    truth, group = rng.integers(0, 3, n), rng.integers(0, 2, n)
    for side in ("positive", "negative"):
        got = mcdp(
            da.from_array(truth, chunks=500),
            da.from_array(proba, chunks=(500, 3)),
            sensitive_features=da.from_array(group, chunks=500),
            given=side,
            class_agg="mean",
        )
        assert got == mcdp(
            truth, proba, sensitive_features=group, given=side, class_agg="mean"
        )


@pytest.mark.parametrize("side", ["positive", "negative"])
def test_dask_misspelt_pos_label_is_refused(side):
    # In memory a pos_label absent from y_true is an error; on Dask each
    # partition alone cannot tell, so the check is global (one pass).
    rng = np.random.default_rng(1)
    label = rng.choice(["yes", "no"], 600)
    group = rng.integers(0, 2, 600)
    score = rng.random(600)
    with pytest.raises(ValueError, match="pos_label='Yes' is not a label") as memory:
        mcdp(label, score, sensitive_features=group, given=side, pos_label="Yes")
    with pytest.raises(ValueError, match="pos_label='Yes' is not a label") as lazy:
        mcdp(
            da.from_array(label, chunks=200),
            da.from_array(score, chunks=200),
            sensitive_features=da.from_array(group, chunks=200),
            given=side,
            pos_label="Yes",
        )
    assert str(lazy.value) == str(memory.value)


def test_dask_pos_label_absent_from_some_partitions_is_fine():
    # Partitions without positives are legitimate: only a label absent
    # everywhere is refused.
    label = np.array(["no"] * 400 + ["yes", "yes", "no", "no"] * 50)
    group = np.tile([0, 1], 300)
    score = np.linspace(0, 1, 600)
    lazy = mcdp(
        da.from_array(label, chunks=200),
        da.from_array(score, chunks=200),
        sensitive_features=da.from_array(group, chunks=200),
        given="positive",
        pos_label="yes",
    )
    assert lazy == mcdp(
        label, score, sensitive_features=group, given="positive", pos_label="yes"
    )
