"""Class probabilities in Dask: each class through the binary engine, aggregated."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from skfair.metrics import abcc, delta_dp, mcdp, mcdp_curve, mcdp_details

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 3, n)
    alpha = np.where(groups[:, None] == 2, [4.0, 2.0, 1.0], [2.0, 2.0, 2.0])
    proba = rng.gamma(alpha)
    return proba / proba.sum(axis=1, keepdims=True), groups


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("class_agg", ["max", "mean"])
def test_dask_array_equals_in_memory(class_agg):
    proba, groups = _data()
    P, g = da.from_array(proba, chunks=(128, 3)), da.from_array(groups, chunks=128)
    for metric, exact in ((mcdp, True), (abcc, False), (delta_dp, False)):
        want = metric(None, proba, sensitive_features=groups, class_agg=class_agg)
        got = metric(None, P, sensitive_features=g, class_agg=class_agg)
        assert got == want if exact else got == pytest.approx(want, rel=1e-12)
    curve = mcdp_curve(
        None, P, sensitive_features=g, epsilons=[0, 0.05], class_agg=class_agg
    )
    np.testing.assert_array_equal(
        curve,
        mcdp_curve(
            None,
            proba,
            sensitive_features=groups,
            epsilons=[0, 0.05],
            class_agg=class_agg,
        ),
    )


def test_dask_dataframe_names_the_worst_class():
    proba, groups = _data()
    frame = pd.DataFrame(proba, columns=["Low", "Medium", "High"]).assign(g=groups)
    ddf = dd.from_pandas(frame, npartitions=4)
    got = mcdp_details(
        None, ddf[["Low", "Medium", "High"]], sensitive_features=ddf["g"]
    )
    want = mcdp_details(
        None, frame[["Low", "Medium", "High"]], sensitive_features=frame["g"]
    )
    assert (got.value, got.class_label, got.groups) == (
        want.value,
        want.class_label,
        want.groups,
    )
    assert {k: r.value for k, r in got.per_class.items()} == {
        k: r.value for k, r in want.per_class.items()
    }


def test_dask_probabilities_outside_unit_interval_are_refused():
    proba, groups = _data()
    P, g = da.from_array(proba * 3, chunks=(128, 3)), da.from_array(groups, chunks=128)
    with pytest.raises(ValueError, match=r"must lie in\s+\[0, 1\]"):
        mcdp(None, P, sensitive_features=g)
