"""Build the same rows as a frame of each engine (shared by the lazy tests)."""

import itertools

import numpy as np
import pandas as pd

ENGINES = ["duckdb", "polars-lazy", "polars", "pandas", "sqlframe", "dask"]
_names = itertools.count()


def frame_on(engine, df, connection):
    """``df`` on ``engine`` (a DuckDB table for SQLFrame, as on a database)."""
    if engine == "duckdb":
        return connection.from_df(df)
    if engine == "polars-lazy":
        import polars as pl

        return pl.from_pandas(df).lazy()
    if engine == "polars":
        import polars as pl

        return pl.from_pandas(df)
    if engine == "pandas":
        return df
    if engine == "sqlframe":
        from sqlframe.duckdb import DuckDBSession

        name = f"preds_{next(_names)}"
        connection.register("__frame", df)
        connection.execute(f"CREATE TABLE {name} AS SELECT * FROM __frame")
        connection.unregister("__frame")
        return DuckDBSession(conn=connection).table(name)
    if engine == "dask":
        import dask.dataframe as dd

        return dd.from_pandas(df, npartitions=2)
    raise ValueError(engine)


def make_rows(seed, n, n_groups, decimals, weights):
    """Scores with ties (rounded), two attributes, labels, weights."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    score = rng.beta(2 + g, 3.0)
    if decimals is not None:
        score = np.round(score, decimals)
    df = pd.DataFrame(
        {
            "score": score,
            "g": g,
            "h": rng.choice(np.array(["a", "b"], dtype=object), n).astype("str"),
            "y": rng.integers(0, 2, n),
        }
    )
    df["pred"] = (df["score"] >= 0.5).astype(np.int64)
    if weights == "int":
        df["w"] = rng.integers(1, 4, n).astype(np.float64)
    elif weights == "float":
        df["w"] = rng.random(n) + 0.01
    return df
