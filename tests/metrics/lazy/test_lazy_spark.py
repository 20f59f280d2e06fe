"""The lazy engine on a local PySpark session (skipped without Java or pyspark).

One ``local[2]`` session for the module; the frame is a cached Spark
DataFrame of the same rows as the in-memory reference.
"""

import shutil

import numpy as np
import pytest
from _frames import make_rows

import skfair.metrics as M
from skfair.metrics import _lazy
from skfair.metrics._rates import group_rates

pytest.importorskip("pyspark", reason="the spark extra is not installed")
if shutil.which("java") is None:
    pytest.skip("PySpark needs Java (openjdk-17-jre-headless)", allow_module_level=True)

pytestmark = [
    # PySpark 4.3 warns that it does not support pandas 3 fully
    pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support:FutureWarning"
    ),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("skfair-lazy-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_spark_gives_the_in_memory_values(spark):
    """Few calls: each is a few Spark jobs (the slowest engine to start a job)."""
    df = make_rows(seed=11, n=500, n_groups=3, decimals=2, weights="int")
    frame = spark.createDataFrame(df).cache()
    sens = ["g", "h"]
    expected = M.mcdp_details(
        None, df["score"], sensitive_features=df[sens], epsilon=0.05, min_group_size=1
    )
    found = _lazy.mcdp_details(
        frame, None, "score", sensitive_features=sens, epsilon=0.05, min_group_size=1
    )
    assert found.pair_values == expected.pair_values
    weighted = _lazy.mcdp(
        frame,
        None,
        "score",
        sensitive_features=sens,
        sample_weight="w",
        min_group_size=1,
    )
    assert weighted == M.mcdp(
        None,
        df["score"],
        sensitive_features=df[sens],
        sample_weight=df["w"],
        min_group_size=1,
    )
    names = ["selection_rate", "true_positive_rate"]
    values, overall, labels = _lazy.group_rates(
        names, frame, "y", "pred", sensitive_features=sens, min_group_size=1
    )
    ref, ref_overall, grouping = group_rates(
        names,
        df["y"],
        df["pred"],
        sensitive_features=df[sens],
        pos_label=1,
        sample_weight=None,
        min_group_size=1,
    )
    assert labels == grouping.labels
    np.testing.assert_array_equal(values, ref)
    np.testing.assert_array_equal(overall, ref_overall)


def test_spark_nulls_are_counted(spark):
    frame = spark.createDataFrame(
        [(0.1, "a"), (None, "a"), (0.3, "b"), (None, "b")],
        schema="score double, g string",
    )
    with pytest.raises(ValueError, match="has 2 null value"):
        _lazy.mcdp(frame, None, "score", sensitive_features="g")


def test_spark_public_data_argument(spark):
    """The public functions with ``data=`` a Spark DataFrame: MCDP(0), ΔDP, ABCC."""
    df = make_rows(seed=5, n=400, n_groups=3, decimals=1, weights=None)
    frame = spark.createDataFrame(df).cache()
    kw = {"sensitive_features": "g", "min_group_size": 2}
    memory = {"sensitive_features": df["g"], "min_group_size": 2}
    assert M.mcdp(None, "score", data=frame, **kw) == M.mcdp(
        None, df["score"], **memory
    )
    assert M.delta_dp(None, "score", threshold=0.5, data=frame, **kw) == M.delta_dp(
        None, df["score"], threshold=0.5, **memory
    )
    assert M.abcc(None, "score", data=frame, **kw) == pytest.approx(
        M.abcc(None, df["score"], **memory), rel=1e-12
    )
    with pytest.raises(ValueError, match="nope"):
        M.mcdp(None, "nope", data=frame, **kw)


def test_spark_rate_metrics_with_data(spark):
    """The 8 rate metrics and MCDP(0) with ``data=`` a Spark DataFrame:
    two sensitive columns (intersections), integer weights, min_group_size."""
    df = make_rows(seed=3, n=400, n_groups=3, decimals=1, weights="int")
    frame = spark.createDataFrame(df).cache()
    kw = {"sensitive_features": ["g", "h"], "sample_weight": "w"}
    memory = {"sensitive_features": df[["g", "h"]], "sample_weight": df["w"]}
    for metric in [
        M.demographic_parity_difference,
        M.demographic_parity_ratio,
        M.true_positive_rate_difference,
        M.true_positive_rate_ratio,
        M.false_positive_rate_difference,
        M.false_positive_rate_ratio,
        M.equalized_odds_difference,
        M.equalized_odds_ratio,
    ]:
        assert metric("y", "pred", data=frame, **kw) == metric(
            df["y"], df["pred"], **memory
        ), metric.__name__
    assert M.mcdp(None, "score", data=frame, min_group_size=5, **kw) == M.mcdp(
        None, df["score"], min_group_size=5, **memory
    )
    assert M.four_fifths("y", "pred", data=frame, **kw) == M.four_fifths(
        df["y"], df["pred"], **memory
    )
