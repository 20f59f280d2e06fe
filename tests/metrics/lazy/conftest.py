"""Frames of one pandas DataFrame on every engine the lazy tests cover.

One DuckDB connection (with a SQLFrame session on it) per test module;
polars, pandas and Dask frames are built from the same rows.
"""

import sys

import pytest


@pytest.fixture(scope="module")
def duckdb_connection():
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    connection.execute("SET threads = 1")
    yield connection
    connection.close()
    # SQLFrame's sessions are one process-wide singleton that keeps the cursor
    # of the first connection it was given: forget it with the closed
    # connection, or the next module's SQLFrame frames use a closed cursor
    sqlframe = sys.modules.get("sqlframe.base.session")
    if sqlframe is not None:
        sqlframe._BaseSession._instance = None
