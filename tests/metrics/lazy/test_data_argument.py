"""The public metrics' ``data=``: column names of a frame, eager or lazy.

Each public function called with ``data=frame`` and column names gives the
value of the same call on the columns in memory: exactly for MCDP and ΔDP at
a threshold (bit-equal, as the engine's docstring promises), to rounding for
ABCC and ΔDP_c; eager frames and the in-memory-only functions take the
columns out (equal values, every option).
"""

import numpy as np
import pytest
from _frames import frame_on, make_rows

from skfair.metrics import (
    GroupMetricFrame,
    abcc,
    abpc,
    delta_dp,
    disparity_test,
    mcdp,
    mcdp_curve,
    mcdp_details,
    metric_confidence_interval,
)

# SQLFrame keeps one session per process, bound to the first DuckDB
# connection it saw (test_lazy_metrics.py covers it on the engine's API)
ENGINES = ["duckdb", "polars-lazy", "polars", "pandas", "dask"]


def _columns(df, weights):
    return {
        "y_true": df["y"],
        "sensitive_features": df[["g", "h"]],
        "sample_weight": None if weights is None else df["w"].to_numpy(),
    }


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("weights", [None, "int"])
@pytest.mark.parametrize("seed", [0, 1])
def test_distribution_metrics_equal_the_in_memory_call(
    engine, weights, seed, duckdb_connection
):
    if engine == "dask" and weights is not None:
        pytest.skip("the Dask engine refuses weights (as without data=)")
    df = make_rows(seed, 400, 3, 2, weights)
    frame = frame_on(engine, df, duckdb_connection)
    names = {
        "sensitive_features": ["g", "h"],
        "sample_weight": None if weights is None else "w",
    }
    mem = _columns(df, weights)
    for epsilon in (0.0, 0.05):
        got = mcdp(
            "y",
            "score",
            sensitive_features=names["sensitive_features"],
            sample_weight=names["sample_weight"],
            epsilon=epsilon,
            min_group_size=1,
            data=frame,
        )
        want = mcdp(
            mem["y_true"],
            df["score"],
            sensitive_features=mem["sensitive_features"],
            sample_weight=mem["sample_weight"],
            epsilon=epsilon,
            min_group_size=1,
        )
        assert got == want
    details = mcdp_details(
        None,
        "score",
        sensitive_features=["g", "h"],
        sample_weight=names["sample_weight"],
        min_group_size=1,
        data=frame,
    )
    want = mcdp_details(
        None,
        df["score"],
        sensitive_features=mem["sensitive_features"],
        sample_weight=mem["sample_weight"],
        min_group_size=1,
    )
    assert (details.value, details.threshold) == (want.value, want.threshold)
    curve = mcdp_curve(
        None,
        "score",
        sensitive_features="g",
        epsilons=[0.0, 0.1],
        sample_weight=names["sample_weight"],
        min_group_size=1,
        data=frame,
    )
    np.testing.assert_array_equal(
        curve,
        mcdp_curve(
            None,
            df["score"],
            sensitive_features=df["g"],
            epsilons=[0.0, 0.1],
            sample_weight=mem["sample_weight"],
            min_group_size=1,
        ),
    )
    for threshold in (None, 0.5):
        got = delta_dp(
            None,
            "score",
            sensitive_features="g",
            threshold=threshold,
            sample_weight=names["sample_weight"],
            min_group_size=1,
            data=frame,
        )
        want = delta_dp(
            None,
            df["score"],
            sensitive_features=df["g"],
            threshold=threshold,
            sample_weight=mem["sample_weight"],
            min_group_size=1,
        )
        if threshold is None:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
        else:
            assert got == want
    got = abcc(
        None,
        "score",
        sensitive_features="g",
        agg="mean",
        sample_weight=names["sample_weight"],
        min_group_size=1,
        data=frame,
    )
    want = abcc(
        None,
        df["score"],
        sensitive_features=df["g"],
        agg="mean",
        sample_weight=mem["sample_weight"],
        min_group_size=1,
    )
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_in_memory_functions_take_an_eager_frame(engine, duckdb_connection):
    df = make_rows(3, 300, 2, 2, "float")
    frame = frame_on(engine, df, duckdb_connection)
    common = {"sensitive_features": "g", "sample_weight": "w", "random_state": 0}
    mem = {"sensitive_features": df["g"], "sample_weight": df["w"], "random_state": 0}
    got = metric_confidence_interval(
        "y", "score", metric="abcc", n_resamples=49, data=frame, **common
    )
    want = metric_confidence_interval(
        df["y"], df["score"], metric="abcc", n_resamples=49, **mem
    )
    assert got == want
    got = disparity_test("y", "score", n_resamples=49, data=frame, **common)
    want = disparity_test(df["y"], df["score"], n_resamples=49, **mem)
    assert got.pvalue == want.pvalue and got.statistic == want.statistic
    assert abpc(None, "score", sensitive_features="g", data=frame) == abpc(
        None, df["score"], sensitive_features=df["g"]
    )
    metrics = {"recall": "recall", "selection_rate": "selection_rate"}
    got = GroupMetricFrame(
        metrics=metrics,
        y_true="y",
        y_pred="pred",
        sensitive_features=["g", "h"],
        control_features=None,
        sample_params={"recall": {"sample_weight": "w"}},
        data=frame,
    )
    want = GroupMetricFrame(
        metrics=metrics,
        y_true=df["y"],
        y_pred=df["pred"],
        sensitive_features=df[["g", "h"]],
        sample_params={"recall": {"sample_weight": df["w"]}},
    )
    assert got.by_group.equals(want.by_group)
    assert got.difference().equals(want.difference())


def test_clear_errors(duckdb_connection):
    df = make_rows(4, 100, 2, 2, None)
    lazy = frame_on("duckdb", df, duckdb_connection)
    with pytest.raises(TypeError, match="y_score must be the name of a column"):
        mcdp(None, df["score"].to_numpy(), sensitive_features="g", data=lazy)
    with pytest.raises(ValueError, match="'nope' is not a column of data"):
        mcdp(None, "nope", sensitive_features="g", data=lazy)
    with pytest.raises(ValueError, match="'nope' is not a column of data"):
        abcc(None, "score", sensitive_features="nope", data=df)
    with pytest.raises(TypeError, match="class probabilities"):
        mcdp(None, ["score", "y"], sensitive_features="g", data=lazy)
    with pytest.raises(TypeError, match="abpc does not run inside a lazy engine"):
        abpc(None, "score", sensitive_features="g", data=lazy)
    for call in (
        lambda: metric_confidence_interval(
            None, "score", sensitive_features="g", data=lazy
        ),
        lambda: disparity_test(None, "score", sensitive_features="g", data=lazy),
    ):
        with pytest.raises(TypeError, match="does not run inside a lazy engine"):
            call()
    # the confusion-count metrics run in the engine (test_lazy_group_metric_
    # frame.py); a callable needs the rows
    with pytest.raises(TypeError, match="which needs every row"):
        GroupMetricFrame(
            metrics=lambda y_true, y_pred: 0.0,
            y_true="y",
            y_pred="pred",
            sensitive_features="g",
            data=lazy,
        )
    with pytest.raises(TypeError, match="data must be a dataframe"):
        mcdp(None, "score", sensitive_features="g", data=[1, 2, 3])


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_class_probability_columns_of_an_eager_frame(engine, duckdb_connection):
    # several y_score names on an eager frame are class probabilities, as a
    # DataFrame of them is in memory (a lazy engine refuses them, above)
    rng = np.random.default_rng(5)
    proba = rng.dirichlet([1.0, 2.0, 3.0], 300)
    df = make_rows(5, 300, 2, None, None)
    df[["p0", "p1", "p2"]] = proba
    frame = frame_on(engine, df, duckdb_connection)
    for func in (mcdp, abcc, delta_dp):
        got = func(
            None,
            ["p0", "p1", "p2"],
            sensitive_features="g",
            class_agg="mean",
            data=frame,
        )
        want = func(
            None, df[["p0", "p1", "p2"]], sensitive_features=df["g"], class_agg="mean"
        )
        assert got == want
