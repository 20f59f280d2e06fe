"""A Dask DataFrame as ``data=`` runs on the narwhals lazy engine (issue 39).

The narwhals path was measured faster than the Dask engine on 1e8 rows
(``benchmarks/bench_lazy.py``); it also takes weights, which the Dask
engine refuses, so a weighted call shows which path ran.
"""

import numpy as np
import pytest

pytest.importorskip("dask", reason="the dask extra is not installed")

import dask.dataframe as dd
import pandas as pd

from skfair.metrics import abcc, delta_dp, mcdp


@pytest.fixture
def frames():
    rng = np.random.default_rng(3)
    n = 2000
    df = pd.DataFrame(
        {
            "s": np.round(rng.random(n), 2),
            "g": rng.choice(["a", "b", "c"], n),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )
    return df, dd.from_pandas(df, npartitions=4)


def test_weighted_dask_frame_equals_in_memory(frames):
    df, ddf = frames
    common = {"sensitive_features": "g", "sample_weight": "w"}
    for epsilon in (0.0, 0.05):
        assert mcdp(None, "s", epsilon=epsilon, data=ddf, **common) == mcdp(
            None, "s", epsilon=epsilon, data=df, **common
        )
    assert delta_dp(None, "s", threshold=0.5, data=ddf, **common) == delta_dp(
        None, "s", threshold=0.5, data=df, **common
    )
    assert abcc(None, "s", data=ddf, **common) == pytest.approx(
        abcc(None, "s", data=df, **common), rel=1e-12
    )


def test_dask_series_keep_the_dask_engine(frames):
    # positional Dask Series stay on the Dask engine, which refuses weights
    _, ddf = frames
    with pytest.raises(NotImplementedError):
        mcdp(None, ddf["s"], sensitive_features=ddf["g"], sample_weight=ddf["w"])
