"""Prediction files opened lazily with DuckDB: the entry point of ``--engine duckdb``.

:func:`scan_files` turns Parquet or CSV paths and globs into one DuckDB
relation without reading the rows; every metric of this package then runs
its passes in DuckDB, which streams the files (larger than memory is fine)
and returns only aggregates.
"""

from __future__ import annotations

import glob
import os

FILES_NOT_FOUND_ERROR = (
    "No file matches {pattern!r}; give Parquet or CSV paths or globs "
    "(e.g. 'preds/*.parquet')."
)
FILES_FORMAT_ERROR = (
    "Cannot tell the format of {path!r} from its name; pass "
    "format='parquet' or format='csv'."
)
FILES_MIXED_ERROR = (
    "The files mix formats ({formats}); scan the Parquet and the CSV files separately."
)
_FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
}


def _format_of(path):
    name = path.lower()
    for suffix in (".gz", ".zst", ".bz2"):
        name = name.removesuffix(suffix)
    fmt = _FORMATS.get(os.path.splitext(name)[1])
    if fmt is None:
        raise ValueError(FILES_FORMAT_ERROR.format(path=path))
    return fmt


def scan_files(paths, *, format=None, connection=None):
    """Open Parquet or CSV files lazily as one DuckDB relation.

    Parameters
    ----------
    paths : str, path-like or list of them
        Files or globs (``"preds/*.parquet"``); local patterns must match a
        file. Remote URLs (``s3://...``) are handed to DuckDB as they are.
    format : {"parquet", "csv"} or None, default=None
        None tells the format from the names' extensions.
    connection : duckdb.DuckDBPyConnection or None, default=None
        The connection to read with (its settings, such as ``threads`` or
        ``memory_limit``, apply); None opens a new in-memory database.

    Returns
    -------
    relation : duckdb.DuckDBPyRelation
        Nothing is read until a metric aggregates it.

    Examples
    --------
    >>> import os, tempfile
    >>> import duckdb
    >>> from skfair.metrics._lazy import mcdp, scan_files
    >>> folder = tempfile.mkdtemp()
    >>> duckdb.sql("SELECT range / 10 AS score, range % 2 AS g FROM range(10)"
    ...            ).write_parquet(os.path.join(folder, "part-0.parquet"))
    >>> rel = scan_files(os.path.join(folder, "*.parquet"))
    >>> mcdp(rel, None, "score", sensitive_features="g", min_group_size=1)
    0.2
    """
    import duckdb

    raw = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    raw = [os.fspath(p) for p in raw]
    for pattern in raw:
        if "://" not in pattern and not glob.glob(pattern, recursive=True):
            raise FileNotFoundError(FILES_NOT_FOUND_ERROR.format(pattern=pattern))
    formats = {format} if format is not None else {_format_of(p) for p in raw}
    if len(formats) > 1:
        raise ValueError(FILES_MIXED_ERROR.format(formats=sorted(formats)))
    (fmt,) = formats
    connection = duckdb.connect() if connection is None else connection
    if fmt == "parquet":
        return connection.read_parquet(raw)
    return connection.read_csv(raw)
