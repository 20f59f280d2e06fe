"""Frames of one pandas DataFrame on every engine the lazy tests cover.

One DuckDB connection (with a SQLFrame session on it) per test module;
polars, pandas and Dask frames are built from the same rows.
"""

import pytest


@pytest.fixture(scope="module")
def duckdb_connection():
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    connection.execute("SET threads = 1")
    yield connection
    connection.close()
