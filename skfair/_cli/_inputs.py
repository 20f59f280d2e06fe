"""Reading a predictions file and shaping its columns for the audit.

The file is read with polars when it is installed (fast, and Parquet without
PyArrow), else with pandas (CSV needs nothing more; Parquet needs PyArrow),
and handed to the audit as pandas columns. Both readers take the same
strings for missing values (:data:`NA_STRINGS`), and both read the
sensitive columns of a CSV file as text, as written (``"01"`` is not ``1``),
the scores and labels as numbers where they are. A score column that is not
numeric is refused with its first offending cell, and ``--pos-label`` is read
as one of the label column's own labels. The sensitive columns are shaped
into groups in :mod:`skfair._cli._groups`.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
import pandas as pd

_PANDAS_PARSES_EXACTLY = tuple(map(int, pd.__version__.split(".")[:2])) >= (3, 1)

#: The file suffixes read, and as what.
READERS = {".csv": "csv", ".gz": "csv", ".parquet": "parquet", ".pq": "parquet"}
#: Cells read as missing by both readers (pandas' default NA strings).
NA_STRINGS = (
    *("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan"),
    *("1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a"),
    *("nan", "null"),
)
#: The label sets whose positive class needs no ``--pos-label``.
STANDARD_LABELS = ({0, 1}, {-1, 1})

PARQUET_NEEDS_ERROR = (
    "reading Parquet needs polars or pyarrow; install one (pip install polars)"
)
SCORE_NOT_NUMERIC_ERROR = (
    "argument --score: column {column!r} must hold numbers, but data row {row} "
    "(the header not counted) holds {value!r}{more}"
)
POS_LABEL_NEEDED_ERROR = (
    "argument --label: column {column!r} has the labels {labels}; say which one "
    "is the positive outcome with --pos-label LABEL (needed unless the labels "
    "are 0/1, False/True or -1/1)"
)
POS_LABEL_UNKNOWN_ERROR = (
    "argument --pos-label: {text!r} is not a label of column {column!r}; its "
    "labels are {labels}"
)
POS_LABEL_NO_LABELS_ERROR = "argument --pos-label: needs --label COL"


def polars_available():
    """Whether polars is installed (the CLI then reads files with it)."""
    if "polars" in sys.modules:  # None when an import of it is blocked
        return sys.modules["polars"] is not None
    return importlib.util.find_spec("polars") is not None


def reader_note():
    """How files are read here, for ``--help``."""
    if polars_available():
        return "read with polars, which is installed here; else with pandas"
    return "read with pandas; Parquet needs pyarrow. polars, if installed, reads both"


def file_kind(path):
    """``"csv"``, ``"parquet"`` or None (an unknown suffix)."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".gz" and not path.lower().endswith(".csv.gz"):
        return None
    return READERS.get(suffix)


def read_columns(path, kind):
    """The file's column names, read without loading the data.

    Raises OSError, ValueError or ImportError when the file cannot be read.
    """
    if polars_available():
        import polars as pl

        try:
            scan = pl.scan_csv(path) if kind == "csv" else pl.scan_parquet(path)
            return list(scan.collect_schema().names())
        except pl.exceptions.PolarsError as error:
            raise ValueError(str(error)) from None
    if kind == "csv":
        return list(pd.read_csv(path, nrows=0).columns)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(PARQUET_NEEDS_ERROR) from None
    return list(pq.read_schema(path).names)


def read_frame(path, kind, columns, *, text=()):
    """The ``columns`` of the file as a pandas DataFrame (default index).

    Missing cells (:data:`NA_STRINGS`, and nulls in Parquet) are NaN/None.
    The columns ``text`` of a CSV file are read as text as written (``"01"``,
    ``"007"``), the others as the reader infers them; Parquet columns keep
    their stored types.
    """
    text = [column for column in text if column in columns]
    if polars_available():
        import polars as pl

        from skfair.utils._dataframe import to_pandas

        if kind == "csv":
            frame = pl.read_csv(
                path,
                columns=columns,
                null_values=list(NA_STRINGS),
                infer_schema_length=None,
                schema_overrides=dict.fromkeys(text, pl.String),
            )
        else:
            frame = pl.read_parquet(path, columns=columns)
        return to_pandas(frame.select(columns))
    if kind == "csv":
        # pandas < 3.1 parses floats with a fast, inexact reader by default;
        # round_trip gives every score the exact float that was written
        exact = {} if _PANDAS_PARSES_EXACTLY else {"float_precision": "round_trip"}
        frame = pd.read_csv(
            path,
            usecols=columns,
            keep_default_na=False,
            na_values=list(NA_STRINGS),
            dtype=dict.fromkeys(text, str),
            **exact,
        )
        return frame[columns]
    try:
        return pd.read_parquet(path, columns=columns)
    except ImportError:
        raise ImportError(PARQUET_NEEDS_ERROR) from None


def numeric_scores(values, column):
    """The score column ``values`` as numbers, or the CLI's error.

    A column of text that all reads as numbers (e.g. a Parquet string
    column) is converted; any other cell is an error naming the column, the
    first such cell's data row (from 1, the header not counted) and value.

    Examples
    --------
    >>> import pandas as pd
    >>> numeric_scores(pd.Series(["0.5", "0.25"]), "p").tolist()
    [0.5, 0.25]
    >>> try:
    ...     numeric_scores(pd.Series(["0.5", "high", "x"]), "p")
    ... except ValueError as error:
    ...     print(str(error).split(", but ")[1])
    data row 2 (the header not counted) holds 'high' (and 1 more such cell)
    """
    if pd.api.types.is_numeric_dtype(values):
        return values
    numbers = pd.to_numeric(values, errors="coerce")
    bad = (numbers.isna() & values.notna()).to_numpy()
    if not bad.any():
        return numbers
    first, others = int(np.flatnonzero(bad)[0]), int(bad.sum()) - 1
    raise ValueError(
        SCORE_NOT_NUMERIC_ERROR.format(
            column=column,
            row=first + 1,
            value=values.iloc[first],
            more=f" (and {others} more such cell{'s' * (others > 1)})"
            if others
            else "",
        )
    )


def _labels_text(labels):
    return ", ".join(repr(label) for label in labels)


def match_label(text, labels):
    """The label among ``labels`` that ``text`` (command-line text) names.

    A label matches when its text is ``text`` (``1`` for ``1`` and ``1.0``,
    ``True`` for ``true``); returns None if none does.

    Examples
    --------
    >>> match_label("no", ["no", "yes"]), match_label("1", [0, 1])
    ('no', 1)
    >>> match_label("true", [False, True]), match_label("x", [0, 1]) is None
    (True, True)
    """
    for label in labels:
        forms = {str(label)}
        if isinstance(label, (bool, np.bool_)):
            forms.add(str(label).lower())
        elif isinstance(label, (float, np.floating)) and float(label).is_integer():
            forms.add(str(int(label)))
        if text in forms:
            return label
    return None


def positive_label(y_true, text, column):
    """The positive label for ``audit(pos_label=...)``, from ``--pos-label``.

    None when ``text`` is None and the labels are 0/1, False/True or -1/1
    (the audit's default then holds). Raises ValueError with the CLI's message
    when the labels need ``--pos-label`` or ``text`` names none of them.
    """
    labels = pd.unique(y_true.dropna())
    labels = sorted(
        (v.item() if isinstance(v, np.generic) else v for v in labels), key=str
    )
    if text is None:
        standard = len(labels) > 2 or any(
            set(labels) <= allowed and all(not isinstance(v, str) for v in labels)
            for allowed in STANDARD_LABELS
        )
        if standard:  # (more than two classes: the audit's own error)
            return None
        raise ValueError(
            POS_LABEL_NEEDED_ERROR.format(column=column, labels=_labels_text(labels))
        )
    label = match_label(text, labels)
    if label is None:
        raise ValueError(
            POS_LABEL_UNKNOWN_ERROR.format(
                text=text, column=column, labels=_labels_text(labels)
            )
        )
    return label
