"""Reading a predictions file and shaping its columns for the audit.

The file is read with polars when it is installed (fast, and Parquet without
PyArrow), else with pandas (CSV needs nothing more; Parquet needs PyArrow),
and handed to the audit as pandas columns. Both readers take the same
strings for missing values (:data:`NA_STRINGS`). The options that shape the
columns live here too: ``--bins`` (group a continuous attribute),
``--na-group`` (missing sensitive values as a group), ``--pos-label`` and
``--reference`` (read the user's text as the column's own labels).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
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
BINS_FORMAT_ERROR = (
    "expected COL=EDGES (increasing numbers, e.g. age=25,45,65) or COL=qN "
    "(N >= 2 quantile groups, e.g. age=q4); got {text!r}"
)
BINS_COLUMN_ERROR = "argument --bins: {column!r} is not a --sensitive column"
BINS_NOT_NUMERIC_ERROR = (
    "argument --bins: column {column!r} is not numeric (its values are like "
    "{example!r}); --bins groups numbers only"
)
MISSING_GROUP_ERROR = (
    "argument --sensitive: column {column!r} has {count} missing value(s) "
    "(empty cells or NA-like text such as 'NA'); drop those rows, or pass "
    "--na-group LABEL to read them as a group named LABEL"
)
CONTINUOUS_ERROR = (
    "argument --sensitive: column {column!r} looks continuous ({n_groups} "
    "distinct values in {n_samples} rows), and each value would be a group of "
    "its own; group it with --bins {column}=EDGES (e.g. --bins {column}=25,45,65) "
    "or --bins {column}=qN (N quantile groups, e.g. --bins {column}=q4)"
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
REFERENCE_UNKNOWN_ERROR = (
    "argument --reference: {text!r} is not a group of {name}; its groups are {groups}"
)


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


def read_frame(path, kind, columns):
    """The ``columns`` of the file as a pandas DataFrame (default index).

    Missing cells (:data:`NA_STRINGS`, and nulls in Parquet) are NaN/None.
    """
    if polars_available():
        import polars as pl

        from skfair.utils import to_pandas

        if kind == "csv":
            frame = pl.read_csv(
                path,
                columns=columns,
                null_values=list(NA_STRINGS),
                infer_schema_length=None,
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
            **exact,
        )
        return frame[columns]
    try:
        return pd.read_parquet(path, columns=columns)
    except ImportError:
        raise ImportError(PARQUET_NEEDS_ERROR) from None


def bins_type(text):
    """An argparse type for ``--bins COL=EDGES`` or ``--bins COL=qN``.

    Returns ``(column, edges)`` with a tuple of increasing floats, or
    ``(column, n)`` with an int ``n >= 2`` (quantile groups).

    Examples
    --------
    >>> bins_type("age=25,45,65"), bins_type("income=q4")
    (('age', (25.0, 45.0, 65.0)), ('income', 4))
    """
    column, equals, spec = text.rpartition("=")
    spec = spec.strip().lower()
    if not equals or not column:
        raise argparse.ArgumentTypeError(BINS_FORMAT_ERROR.format(text=text))
    if spec.startswith("q"):
        if spec[1:].isdigit() and int(spec[1:]) >= 2:
            return column, int(spec[1:])
        raise argparse.ArgumentTypeError(BINS_FORMAT_ERROR.format(text=text))
    try:
        edges = tuple(float(edge) for edge in spec.split(","))
    except ValueError:
        edges = ()
    finite = all(math.isfinite(edge) for edge in edges)
    if not edges or not finite or any(np.diff(edges) <= 0):
        raise argparse.ArgumentTypeError(BINS_FORMAT_ERROR.format(text=text))
    return column, edges


def _number(value):
    return f"{value:g}"


def bin_column(values, spec):
    """Group the numbers ``values`` by ``--bins``: an ordered categorical.

    The groups are ``[min, e1)``, ``[e1, e2)``, ..., ``[ek, max]`` with the
    column's own minimum and maximum at the ends (``spec`` the edges; those
    outside the data are dropped), or ``spec`` groups of about equal size cut
    at the quantiles (fewer when values tie); groups with no sample are left
    out, missing values stay missing.

    Examples
    --------
    >>> import pandas as pd
    >>> ages = pd.Series([18, 30, 50, 70, 90, 44])
    >>> bin_column(ages, (25, 45, 65)).tolist()
    ['[18, 25)', '[25, 45)', '[45, 65)', '[65, 90]', '[65, 90]', '[25, 45)']
    >>> bin_column(ages, 2).cat.categories.tolist()
    ['[18, 47)', '[47, 90]']
    """
    numbers = pd.to_numeric(values, errors="raise").to_numpy(dtype=np.float64)
    present = numbers[~np.isnan(numbers)]
    low, high = present.min(), present.max()
    if isinstance(spec, int):
        edges = np.quantile(present, np.arange(1, spec) / spec)
        above = present[present > low]
        if above.size:  # a cut at the minimum would leave [min, min) empty
            edges = np.where(edges <= low, above.min(), edges)
        edges = np.unique(edges)
    else:
        edges = np.asarray(spec, dtype=np.float64)
    edges = edges[(edges > low) & (edges <= high)]  # no group outside the data
    bounds = [low, *edges, high]
    labels = [
        f"[{_number(bounds[k])}, {_number(bounds[k + 1])})" for k in range(len(edges))
    ]
    labels.append(f"[{_number(bounds[-2])}, {_number(high)}]")
    codes = np.searchsorted(edges, numbers, side="right")
    codes[np.isnan(numbers)] = -1
    used = np.unique(codes[codes >= 0])
    renumber = np.full(len(labels), -1)
    renumber[used] = np.arange(used.size)
    codes = np.where(codes >= 0, renumber[np.maximum(codes, 0)], -1)
    categories = [labels[k] for k in used]
    binned = pd.Categorical.from_codes(codes, categories, ordered=True)
    return pd.Series(binned, index=values.index, name=values.name)


def shape_sensitive(sensitive, *, bins=(), na_group=None):
    """The sensitive columns with ``--bins`` and ``--na-group`` applied.

    Raises ValueError with the CLI's message (:data:`BINS_NOT_NUMERIC_ERROR`,
    :data:`MISSING_GROUP_ERROR`) for a column that cannot be used.
    """
    sensitive = sensitive.copy()
    for column, spec in bins:
        values = sensitive[column]
        if not pd.api.types.is_numeric_dtype(values) or values.dtype == bool:
            example = values.dropna().iloc[0] if values.notna().any() else None
            raise ValueError(
                BINS_NOT_NUMERIC_ERROR.format(column=column, example=example)
            )
        sensitive[column] = bin_column(values, spec)
    for column in sensitive.columns:
        values = sensitive[column]
        missing = values.isna()
        if not missing.any():
            continue
        if na_group is None:
            raise ValueError(
                MISSING_GROUP_ERROR.format(column=column, count=int(missing.sum()))
            )
        sensitive[column] = _fill_group(values, missing, na_group)
    return sensitive


def _fill_group(values, missing, label):
    """``values`` with the missing ones replaced by the group ``label``."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        if label not in values.cat.categories:
            values = values.cat.add_categories([label])
        return values.fillna(label)
    if pd.api.types.is_numeric_dtype(values):  # numbers as text, 1.0 as "1"
        text = [label if m else _number(v) for v, m in zip(values, missing)]
        return pd.Series(text, index=values.index, name=values.name, dtype=str)
    filled = values.astype(object).where(~missing, label)
    return filled.astype(str) if values.dtype == "str" else filled


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


def reference_group(sensitive, text):
    """The group ``--reference`` names: a label, or a tuple of labels.

    With several attributes, ``text`` names one label per attribute joined
    by ``&`` (as the report writes intersections: ``female & black``).
    """
    parts = [p.strip() for p in text.split("&")] if sensitive.shape[1] > 1 else [text]
    found = []
    if len(parts) == sensitive.shape[1]:
        for part, column in zip(parts, sensitive.columns):
            values = sensitive[column]
            labels = (
                values.cat.categories
                if isinstance(values.dtype, pd.CategoricalDtype)
                else pd.unique(values)
            )
            labels = [v.item() if isinstance(v, np.generic) else v for v in labels]
            found.append(match_label(part, labels))
    if len(found) != sensitive.shape[1] or any(f is None for f in found):
        groups = sensitive.drop_duplicates().astype(str).agg(" & ".join, axis=1)
        shown = sorted(groups)[:20]
        raise ValueError(
            REFERENCE_UNKNOWN_ERROR.format(
                text=text,
                name=" & ".join(map(str, sensitive.columns)),
                groups=", ".join(shown) + (", ..." if len(groups) > 20 else ""),
            )
        )
    return found[0] if len(found) == 1 else tuple(found)
