"""The lazy engine's clear errors, its SQL text and its file entry point (issue 39).

Missing columns, nulls, NaN, infinities and negative weights are counted in
the engine and named with their counts; a non-numeric score is refused
before any pass. The hand-written KS query equals the engine's MCDP(0) pair
values bit for bit; the SQL of pass 1 is narwhals' DuckDB query and runs.
"""

import re

import numpy as np
import pandas as pd
import pytest

import skfair.metrics as M
from skfair.metrics import _lazy
from skfair.metrics._frame_arg import (
    LAZY_COLUMN_NAME_ERROR,
    LAZY_DATA_ERROR,
    LAZY_MISSING_COLUMN_ERROR,
)
from skfair.metrics._lazy._distribution import LAZY_ABCC_GRID_ERROR
from skfair.metrics._lazy._files import (
    FILES_FORMAT_ERROR,
    FILES_MIXED_ERROR,
    FILES_NOT_FOUND_ERROR,
)
from skfair.metrics._lazy._frame import (
    LAZY_INFINITE_ERROR,
    LAZY_NAN_ERROR,
    LAZY_NEGATIVE_WEIGHT_ERROR,
    LAZY_NOT_NUMERIC_ERROR,
    LAZY_NULL_ERROR,
    LAZY_ZERO_WEIGHTS_ERROR,
)
from skfair.metrics._lazy._mcdp import LAZY_APPROX_ERROR
from skfair.metrics._lazy._sql import LAZY_SQL_BACKEND_ERROR

duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")


def exactly(template, **fields):
    return "^" + re.escape(template.format(**fields)) + "$"


def frame(**columns):
    return pl.LazyFrame(columns)


SCORES = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
GROUPS = [0, 0, 0, 1, 1, 1]


def test_missing_column_names_the_columns():
    lf = frame(score=SCORES, g=GROUPS)
    with pytest.raises(ValueError, match=re.escape("'race' is not a column")):
        _lazy.mcdp(lf, None, "score", sensitive_features=["g", "race"])
    with pytest.raises(
        ValueError,
        match=exactly(
            LAZY_MISSING_COLUMN_ERROR, role="y_true", name="y", columns=["score", "g"]
        ),
    ):
        _lazy.abcc(lf, "y", "score", sensitive_features="g")


def test_column_names_must_be_names():
    lf = frame(score=SCORES, g=GROUPS)
    with pytest.raises(TypeError, match=re.escape("must be the name of a column")):
        _lazy.mcdp(lf, None, np.array(SCORES), sensitive_features="g")
    with pytest.raises(
        TypeError,
        match=exactly(
            LAZY_COLUMN_NAME_ERROR,
            role="sensitive_features",
            plural=" or a list of names",
            value=[],
        ),
    ):
        _lazy.mcdp(lf, None, "score", sensitive_features=[])


def test_not_a_frame():
    with pytest.raises(TypeError, match=exactly(LAZY_DATA_ERROR, type="list")):
        _lazy.mcdp([1, 2], None, "score", sensitive_features="g")


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_nulls_and_nan_are_counted_in_the_engine(engine, duckdb_connection):
    rows = [
        (0.1, "a", 1.0, 0.1),
        (float("nan"), None, 2.0, 0.4),
        (0.3, "b", -1.0, 0.35),
        (float("nan"), "a", 1.0, 0.8),
        (0.5, "b", float("inf"), 0.2),
        (0.6, None, 1.0, 0.9),
    ]
    names = ["score", "g", "w", "clean"]
    if engine == "duckdb":
        values = ", ".join(
            "("
            + ", ".join(
                "NULL"
                if v is None
                else f"'{v}'::DOUBLE"
                if isinstance(v, float)
                else f"'{v}'"
                for v in row
            )
            + ")"
            for row in rows
        )
        data = duckdb_connection.sql(
            f"SELECT * FROM (VALUES {values}) t({', '.join(names)})"
        )
    else:
        data = pl.LazyFrame(rows, schema=names, orient="row")
    with pytest.raises(
        ValueError,
        match=exactly(
            LAZY_NAN_ERROR, role="y_score", name="score", count=2, what="score"
        ),
    ):
        _lazy.mcdp(data, None, "score", sensitive_features="clean")
    with pytest.raises(
        ValueError,
        match=exactly(
            LAZY_NULL_ERROR,
            role="sensitive_features",
            name="g",
            count=2,
            what="group label",
        ),
    ):
        _lazy.mcdp(data, None, "clean", sensitive_features="g")
    with pytest.raises(
        ValueError,
        match=exactly(
            LAZY_INFINITE_ERROR, role="sample_weight", name="w", count=1, what="weight"
        ),
    ):
        _lazy.abcc(data, None, "clean", sensitive_features="clean", sample_weight="w")


def test_null_scores_and_labels():
    lf = frame(score=[0.1, None, 0.3, 0.4], g=[0, 0, 1, 1], y=[0, 1, None, 1])
    with pytest.raises(
        ValueError,
        match=exactly(
            LAZY_NULL_ERROR, role="y_score", name="score", count=1, what="score"
        ),
    ):
        _lazy.delta_dp(lf, None, "score", sensitive_features="g")
    with pytest.raises(
        ValueError,
        match=exactly(LAZY_NULL_ERROR, role="y_true", name="y", count=1, what="label"),
    ):
        _lazy.group_rates(["selection_rate"], lf, "y", "g", sensitive_features="g")


def test_infinite_scores():
    lf = frame(score=[0.1, float("inf"), 0.3, float("-inf")], g=[0, 0, 1, 1])
    with pytest.raises(
        ValueError,
        match=exactly(
            LAZY_INFINITE_ERROR, role="y_score", name="score", count=2, what="score"
        ),
    ):
        _lazy.mcdp(lf, None, "score", sensitive_features="g")


def test_negative_and_zero_weights():
    lf = frame(score=SCORES, g=GROUPS, w=[1.0, -2, 1, -1, 1, 1], z=[0.0] * 6)
    with pytest.raises(
        ValueError, match=exactly(LAZY_NEGATIVE_WEIGHT_ERROR, name="w", count=2)
    ):
        _lazy.mcdp(lf, None, "score", sensitive_features="g", sample_weight="w")
    with pytest.raises(ValueError, match=exactly(LAZY_ZERO_WEIGHTS_ERROR, name="z")):
        _lazy.mcdp(lf, None, "score", sensitive_features="g", sample_weight="z")


def test_non_numeric_score():
    lf = frame(score=["0.1", "0.2"], g=[0, 1])
    with pytest.raises(TypeError, match=re.escape("must be numeric; its type")):
        _lazy.mcdp(lf, None, "score", sensitive_features="g")
    with pytest.raises(
        TypeError,
        match=exactly(
            LAZY_NOT_NUMERIC_ERROR, role="y_score", name="score", dtype="String"
        ),
    ):
        _lazy.abcc(lf, None, "score", sensitive_features="g")


def test_out_of_unit_interval_and_unsupported_methods():
    lf = frame(score=[0.1, 1.5, 0.2, 0.3], g=[0, 0, 1, 1])
    with pytest.raises(ValueError) as expected:
        M.mcdp(None, [0.1, 1.5, 0.2, 0.3], sensitive_features=[0, 0, 1, 1], epsilon=0.1)
    with pytest.raises(ValueError, match=f"^{re.escape(str(expected.value))}$"):
        _lazy.mcdp(lf, None, "score", sensitive_features="g", epsilon=0.1)
    with pytest.raises(NotImplementedError, match=re.escape(LAZY_APPROX_ERROR)):
        _lazy.mcdp(
            lf, None, "score", sensitive_features="g", epsilon=0.1, method="approx"
        )
    with pytest.raises(NotImplementedError, match=re.escape(LAZY_ABCC_GRID_ERROR)):
        _lazy.abcc(lf, None, "score", sensitive_features="g", method="grid")


def test_zero_weight_group_as_in_memory():
    lf = frame(score=SCORES, g=GROUPS, w=[1.0, 1, 1, 0, 0, 0])
    with pytest.raises(ValueError) as expected:
        M.mcdp(
            None,
            SCORES,
            sensitive_features=pd.Series(GROUPS, name="g"),
            sample_weight=[1.0, 1, 1, 0, 0, 0],
            min_group_size=1,
        )
    with pytest.raises(ValueError, match=f"^{re.escape(str(expected.value))}$"):
        _lazy.mcdp(
            lf,
            None,
            "score",
            sensitive_features="g",
            sample_weight="w",
            min_group_size=1,
        )


@pytest.fixture
def preds(duckdb_connection):
    rng = np.random.default_rng(7)
    n = 3000
    df = pd.DataFrame(
        {
            "score": np.round(rng.beta(2, 3, n), 3),
            "sex": rng.choice(np.array(["F", "M"], dtype=object), n).astype("str"),
            "race": rng.integers(0, 3, n),
        }
    )
    duckdb_connection.register("preds_df", df)
    duckdb_connection.execute("CREATE OR REPLACE TABLE preds AS SELECT * FROM preds_df")
    duckdb_connection.unregister("preds_df")
    return df


def test_ks_sql_equals_the_engine_bit_for_bit(duckdb_connection, preds):
    sens = ["sex", "race"]
    rows = duckdb_connection.sql(
        _lazy.ks_sql("preds", "score", sensitive_features=sens)
    ).fetchall()
    found = _lazy.mcdp_details(
        duckdb_connection.table("preds"),
        None,
        "score",
        sensitive_features=sens,
        min_group_size=1,
    )
    expected = M.mcdp_details(
        None, preds["score"], sensitive_features=preds[sens], min_group_size=1
    )
    assert found.pair_values == expected.pair_values
    assert len(rows) == len(expected.pair_values) == 15
    for sex_a, race_a, sex_b, race_b, n_a, n_b, ks in rows:
        key = ("sex & race", (sex_a, race_a), (sex_b, race_b))
        assert expected.pair_values[key] == ks
        assert n_a > 0 and n_b > 0
    assert max(r[-1] for r in rows) == expected.value


def test_histogram_sql_runs_and_gives_pass_one(duckdb_connection, preds):
    relation = duckdb_connection.table("preds")
    sql = _lazy.histogram_sql(relation, "score", sensitive_features=["sex", "race"])
    rows = duckdb_connection.sql(sql).df()
    assert list(rows.columns) == ["sex", "race", "__skfair_bin", "hist"]
    assert rows["hist"].sum() == len(preds)
    bins = np.floor(preds["score"].to_numpy() * 65536).astype(int)
    counts = (
        pd.Series(
            1, index=pd.MultiIndex.from_arrays([preds["sex"], preds["race"], bins])
        )
        .groupby(level=[0, 1, 2])
        .sum()
    )
    got = rows.set_index(["sex", "race", "__skfair_bin"])["hist"].sort_index()
    assert got.to_dict() == counts.sort_index().to_dict()
    with pytest.raises(
        TypeError, match=exactly(LAZY_SQL_BACKEND_ERROR, type="LazyFrame")
    ):
        _lazy.histogram_sql(
            pl.LazyFrame({"score": [0.1], "g": [0]}), "score", sensitive_features="g"
        )


def test_scan_files_parquet_and_csv_globs(tmp_path, preds, duckdb_connection):
    for k in range(3):
        preds.iloc[k::3].to_parquet(tmp_path / f"part-{k}.parquet")
    preds.to_csv(tmp_path / "all.csv", index=False)
    expected = M.mcdp(
        None,
        preds["score"],
        sensitive_features=preds[["sex", "race"]],
        epsilon=0.05,
        min_group_size=1,
    )
    for pattern in (str(tmp_path / "*.parquet"), [tmp_path / "all.csv"]):
        relation = _lazy.scan_files(pattern, connection=duckdb_connection)
        assert (
            _lazy.mcdp(
                relation,
                None,
                "score",
                sensitive_features=["sex", "race"],
                epsilon=0.05,
                min_group_size=1,
            )
            == expected
        )
    missing = str(tmp_path / "nothing" / "*.parquet")
    with pytest.raises(
        FileNotFoundError, match=exactly(FILES_NOT_FOUND_ERROR, pattern=missing)
    ):
        _lazy.scan_files(missing)
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(
        ValueError, match=exactly(FILES_FORMAT_ERROR, path=str(tmp_path / "notes.json"))
    ):
        _lazy.scan_files(str(tmp_path / "notes.json"))
    with pytest.raises(
        ValueError, match=exactly(FILES_MIXED_ERROR, formats=["csv", "parquet"])
    ):
        _lazy.scan_files([str(tmp_path / "all.csv"), str(tmp_path / "part-0.parquet")])
