"""fairlearn's rate differences and ratios with ``data=`` (issue 39).

On DuckDB and polars lazy frames the confusion counts are computed in the
engine; on eager frames the columns are taken out. Each call is compared
with the same call on the columns in memory, on hypothesis rows with
weights (none, integer, real), one attribute or an intersection of two,
``min_group_size`` and both methods: bit-equal without weights and with
integer weights (their cells are exact sums in any order), to 1e-12 with
real weights. An input the in-memory function refuses is refused with the
same message; nulls are counted in the engine.
"""

import re
import warnings

import numpy as np
import pytest
from _frames import frame_on, make_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import skfair.metrics as M
from skfair.metrics._lazy._frame import LAZY_NULL_ERROR

pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings(
    # narwhals announces that its Dask backend moves to a plugin package
    "ignore:Dask support is moving out of Narwhals:FutureWarning",
)

ONE_RATE = [
    M.demographic_parity_difference,
    M.demographic_parity_ratio,
    M.true_positive_rate_difference,
    M.true_positive_rate_ratio,
    M.false_positive_rate_difference,
    M.false_positive_rate_ratio,
]
EQUALIZED_ODDS = [M.equalized_odds_difference, M.equalized_odds_ratio]
rows = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "n": st.integers(2, 150),
        "n_groups": st.integers(2, 4),
        "decimals": st.sampled_from([1, 2, None]),
        "weights": st.sampled_from([None, "int", "float"]),
    }
)
options = st.fixed_dictionaries(
    {
        "sens": st.sampled_from(["g", ["g", "h"]]),
        "method": st.sampled_from(["between_groups", "to_overall"]),
        "min_group_size": st.sampled_from([1, 3, 10]),
        "agg": st.sampled_from(["worst_case", "mean"]),
    }
)
SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _call(metric, df, opts, frame=None):
    """The metric on ``frame``'s columns by name, or on ``df``'s arrays."""
    options = {"method": opts["method"], "min_group_size": opts["min_group_size"]}
    if metric in EQUALIZED_ODDS:
        options["agg"] = opts["agg"]
    weight = "w" if "w" in df else None
    if frame is not None:
        return metric(
            "y",
            "pred",
            sensitive_features=opts["sens"],
            sample_weight=weight,
            data=frame,
            **options,
        )
    return metric(
        df["y"],
        df["pred"],
        sensitive_features=df[opts["sens"]],
        sample_weight=None if weight is None else df[weight],
        **options,
    )


def _same(found, expected, df):
    if np.isnan(expected):
        assert np.isnan(found)
    elif "w" in df and not (df["w"] == np.round(df["w"])).all():
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-15)
    else:
        assert found == expected  # bit-equal


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy", "polars"])
@SETTINGS
@given(data=rows, opts=options)
def test_rate_metrics_equal_the_in_memory_call(engine, duckdb_connection, data, opts):
    df = make_rows(**data)
    df["pred"] = np.where(df["score"] >= 0.4, 1, 0)  # not a copy of the labels
    frame = frame_on(engine, df, duckdb_connection)
    for metric in ONE_RATE + EQUALIZED_ODDS:
        with warnings.catch_warnings():  # both warn (small or undefined groups)
            warnings.simplefilter("ignore")
            try:
                expected = _call(metric, df, opts)
            except ValueError as error:
                with pytest.raises(ValueError, match=f"^{re.escape(str(error))}$"):
                    _call(metric, df, opts, frame)
                continue
            found = _call(metric, df, opts, frame)
        _same(found, expected, df)


def test_dask_frames_run_through_narwhals(duckdb_connection):
    pytest.importorskip("dask.dataframe")
    df = make_rows(seed=2, n=300, n_groups=3, decimals=2, weights="int")
    frame = frame_on("dask", df, duckdb_connection)
    opts = {"sens": ["g", "h"], "method": "to_overall", "min_group_size": 1}
    for metric in (M.demographic_parity_ratio, M.true_positive_rate_difference):
        assert _call(metric, df, opts, frame) == _call(metric, df, opts)


def test_undefined_rates_warn_at_the_callers_line(duckdb_connection):
    # group 1 has no negative label: its FPR is undefined, in both paths
    df = make_rows(seed=3, n=80, n_groups=2, decimals=2, weights=None)
    df.loc[df["g"] == 1, "y"] = 1
    frame = duckdb_connection.from_df(df)
    for data in (frame, df):
        with pytest.warns(UndefinedMetricWarning, match="false_positive_rate") as got:
            M.false_positive_rate_difference(
                "y", "pred", sensitive_features="g", min_group_size=1, data=data
            )
        assert {w.filename for w in got} == {__file__}
    with pytest.warns(UndefinedMetricWarning) as got:
        M.false_positive_rate_difference(
            df["y"], df["pred"], sensitive_features=df["g"], min_group_size=1
        )
    assert {w.filename for w in got} == {__file__}


def test_nulls_are_counted_in_the_engine(duckdb_connection):
    df = make_rows(seed=4, n=60, n_groups=2, decimals=2, weights=None)
    df["pred"] = df["pred"].astype("float")
    df.loc[[3, 7, 11], "pred"] = np.nan  # NULL in DuckDB, null in polars
    pl = pytest.importorskip("polars")
    expected = "^" + re.escape(
        LAZY_NULL_ERROR.format(role="y_pred", name="pred", count=3, what="label")
    )
    for frame in (
        duckdb_connection.sql(
            "SELECT * REPLACE (CAST(pred AS INTEGER) AS pred) FROM df"
        ),
        pl.from_pandas(df).lazy().with_columns(pl.col("pred").cast(pl.Int64)),
    ):
        with pytest.raises(ValueError, match=expected):
            M.demographic_parity_difference(
                "y", "pred", sensitive_features="g", min_group_size=1, data=frame
            )


def test_column_arguments_must_be_names(duckdb_connection):
    df = make_rows(seed=5, n=40, n_groups=2, decimals=2, weights=None)
    frame = duckdb_connection.from_df(df)
    with pytest.raises(TypeError, match=re.escape("y_pred must be the name")):
        M.equalized_odds_difference("y", df["pred"], sensitive_features="g", data=frame)
    with pytest.raises(ValueError, match=re.escape("'nope' is not a column of data")):
        M.demographic_parity_difference("y", "pred", sensitive_features="nope", data=df)


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy", "polars"])
@pytest.mark.parametrize("sens", ["g", ["g", "h"]])
@pytest.mark.parametrize("weights", [None, "int"])
def test_four_fifths_equals_the_in_memory_call(
    engine, sens, weights, duckdb_connection
):
    df = make_rows(seed=7, n=300, n_groups=3, decimals=1, weights=weights)
    frame = frame_on(engine, df, duckdb_connection)
    w = "w" if weights else None
    found = M.four_fifths(
        "y",
        "pred",
        sensitive_features=sens,
        sample_weight=w,
        min_group_size=3,
        data=frame,
    )
    expected = M.four_fifths(
        df["y"],
        df["pred"],
        sensitive_features=df[sens],
        sample_weight=None if w is None else df[w],
        min_group_size=3,
    )
    assert found == expected
