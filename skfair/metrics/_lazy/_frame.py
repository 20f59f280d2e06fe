"""The frame and its columns: names checked, nulls and NaN counted in the engine.

:class:`LazyColumns` takes any frame narwhals supports, eager or lazy, and
the *names* of the columns that carry ``y_true``, ``y_score`` (or
``y_pred``), ``sensitive_features`` and ``sample_weight``. Before any metric
runs, one aggregation in the engine (:meth:`LazyColumns.checked`) counts the
rows, the nulls of every named column, the NaN and infinite values of the
float ones, the negative weights and the scores' range; only those numbers
reach the client, and each problem is an error that names the column, the
count and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass

import narwhals.stable.v2 as nw

from ...utils._validation import EMPTY_INPUT_ERROR
from .._frame_arg import (
    LAZY_COLUMN_NAME_ERROR,
    LAZY_MISSING_COLUMN_ERROR,
    as_frame,
)
from .._given import GIVEN_POS_LABEL_ERROR, GIVEN_Y_TRUE_ERROR, check_given

LAZY_NOT_NUMERIC_ERROR = (
    "{role} column {name!r} must be numeric; its type in the engine is "
    "{dtype}. Cast it to a float column first, e.g. "
    "frame.with_columns(nw.col({name!r}).cast(nw.Float64))."
)
LAZY_NULL_ERROR = (
    "{role} column {name!r} has {count:,} null value(s) (counted in the "
    "engine); every sample needs a {what}. Drop or fill them first, e.g. "
    "frame.drop_nulls(subset=[{name!r}])."
)
LAZY_NAN_ERROR = (
    "{role} column {name!r} has {count:,} NaN value(s) (counted in the "
    "engine); every {what} must be a finite number. Drop them first, e.g. "
    "frame.filter(~nw.col({name!r}).is_nan())."
)
LAZY_INFINITE_ERROR = (
    "{role} column {name!r} has {count:,} infinite value(s) (counted in the "
    "engine); every {what} must be a finite number. Drop or clip them first."
)
LAZY_NEGATIVE_WEIGHT_ERROR = (
    "sample_weight column {name!r} has {count:,} negative value(s) (counted "
    "in the engine); weights must be >= 0 with a positive sum."
)
LAZY_ZERO_WEIGHTS_ERROR = (
    "sample_weight column {name!r} sums to zero; weights must be >= 0 with a "
    "positive sum."
)

# What a null or NaN in each role stands in for, in the messages.
_WHAT = {
    "y_score": "score",
    "y_true": "label",
    "y_pred": "label",
    "sensitive_features": "group label",
    "sample_weight": "weight",
}


def _names(value, role, several=False):
    """A column name, or (``several``) a non-empty list of them."""
    if isinstance(value, str):
        return [value]
    ok = several and isinstance(value, list | tuple) and len(value) > 0
    if not ok or not all(isinstance(v, str) for v in value):
        plural = " or a list of names" if several else ""
        raise TypeError(
            LAZY_COLUMN_NAME_ERROR.format(role=role, plural=plural, value=value)
        )
    return list(value)


@dataclass(frozen=True)
class Checked:
    """What the checking pass measured: rows, the scores' range, the largest weight."""

    n: int
    low: float | None
    high: float | None
    weight_max: float | None = None


class LazyColumns:
    """A frame and the roles of its columns.

    Parameters
    ----------
    data : frame
        Any frame narwhals supports, eager or lazy.
    score : str or None
        The column of scores (``y_score``), or None for the label metrics.
    sensitive : str or list of str
        The sensitive columns (several: one attribute each).
    weight : str or None
        The ``sample_weight`` column.
    labels : dict
        Role (``"y_true"``, ``"y_pred"``) to column name, for the columns
        whose distinct values the metric counts; None values are dropped.
    ignored : dict
        Role to column name of the columns that must exist but are not read
        (``y_true`` of the distribution metrics).
    given : tuple or None
        ``(given, pos_label, y_true)``: keep only the rows whose ``y_true``
        column equals ``pos_label`` (``given="positive"``) or differs from
        it ("negative"), by ``frame.filter`` in the engine; the label
        column is checked first (no nulls, ``pos_label`` among its values).
    """

    def __init__(
        self, data, score, sensitive, weight=None, labels=None, ignored=None, given=None
    ):
        self.frame = as_frame(data)
        if given is not None and given[0] is not None:
            self.frame = _given_rows(self.frame, *given)
        self.score = None if score is None else _names(score, "y_score")[0]
        self.sensitive = _names(sensitive, "sensitive_features", several=True)
        self.weight = None if weight is None else _names(weight, "sample_weight")[0]
        self.labels = {
            role: _names(name, role)[0]
            for role, name in (labels or {}).items()
            if name is not None
        }
        ignored = {r: _names(n, r)[0] for r, n in (ignored or {}).items() if n}
        schema = self.frame.collect_schema()
        self._check_present(schema, ignored)
        self._check_numeric(schema)
        self.schema = schema

    def roles(self):
        """``(role, column)`` of every column the metric reads."""
        out = [("sensitive_features", name) for name in self.sensitive]
        out += list(self.labels.items())
        if self.score is not None:
            out.append(("y_score", self.score))
        if self.weight is not None:
            out.append(("sample_weight", self.weight))
        return out

    def _check_present(self, schema, ignored):
        columns = list(schema.names())
        for role, name in self.roles() + list(ignored.items()):
            if name not in columns:
                raise ValueError(
                    LAZY_MISSING_COLUMN_ERROR.format(
                        role=role, name=name, columns=columns
                    )
                )

    def _check_numeric(self, schema):
        for role, name in (("y_score", self.score), ("sample_weight", self.weight)):
            if name is not None and not schema[name].is_numeric():
                raise TypeError(
                    LAZY_NOT_NUMERIC_ERROR.format(
                        role=role, name=name, dtype=schema[name]
                    )
                )

    @property
    def keys(self):
        """The columns a metric groups by: the sensitive ones, then the labels."""
        return self.sensitive + list(self.labels.values())

    def checked(self):
        """Run the checking pass in the engine; raise on the first problem found."""
        exprs = [nw.len().alias("__n")]
        for j, (_, name) in enumerate(self.roles()):
            exprs.append(nw.col(name).null_count().alias(f"__null{j}"))
            if self.schema[name].is_float():
                col = nw.col(name)
                exprs.append(col.is_nan().cast(nw.Int64).sum().alias(f"__nan{j}"))
                infinite = (col.abs() == float("inf")).cast(nw.Int64)
                exprs.append(infinite.sum().alias(f"__inf{j}"))
        if self.score is not None:
            exprs += [
                nw.col(self.score).min().alias("__low"),
                nw.col(self.score).max().alias("__high"),
            ]
        if self.weight is not None:
            negative = (nw.col(self.weight) < 0).cast(nw.Int64).sum()
            exprs += [
                negative.alias("__negative"),
                nw.col(self.weight).max().alias("__wmax"),
            ]
        row = collect(self.frame.select(*exprs)).iloc[0]
        self._raise_problems(row)
        n = int(row["__n"])
        if n == 0:
            raise ValueError(
                EMPTY_INPUT_ERROR.format(name=self.score or self.sensitive[0])
            )
        low = high = weight_max = None
        if self.score is not None:
            low, high = float(row["__low"]), float(row["__high"])
        if self.weight is not None:
            weight_max = float(row["__wmax"])
        return Checked(n, low, high, weight_max)

    def _raise_problems(self, row):
        for j, (role, name) in enumerate(self.roles()):
            what = _WHAT[role]
            for key, message in (
                ("__null", LAZY_NULL_ERROR),
                ("__nan", LAZY_NAN_ERROR),
                ("__inf", LAZY_INFINITE_ERROR),
            ):
                count = _count(row.get(f"{key}{j}"))
                if count:
                    raise ValueError(
                        message.format(role=role, name=name, count=count, what=what)
                    )
        if self.weight is not None:
            count = _count(row["__negative"])
            if count:
                raise ValueError(
                    LAZY_NEGATIVE_WEIGHT_ERROR.format(name=self.weight, count=count)
                )
            if int(row["__n"]) and not float(row["__wmax"]) > 0:
                raise ValueError(LAZY_ZERO_WEIGHTS_ERROR.format(name=self.weight))


def _given_rows(frame, given, pos_label, label):
    """The rows of ``frame`` on the ``given`` side of ``pos_label`` in ``label``."""
    check_given(given)
    if label is None:
        raise ValueError(GIVEN_Y_TRUE_ERROR.format(given=given))
    label = _names(label, "y_true")[0]
    columns = list(frame.collect_schema().names())
    if label not in columns:
        raise ValueError(
            LAZY_MISSING_COLUMN_ERROR.format(role="y_true", name=label, columns=columns)
        )
    dtype = frame.collect_schema()[label]
    text = dtype == nw.String
    comparable = text == isinstance(pos_label, str)
    found = 0
    if comparable:
        row = collect(
            frame.select(
                nw.col(label).null_count().alias("__null"),
                (nw.col(label) == pos_label).cast(nw.Int64).sum().alias("__found"),
            )
        ).iloc[0]
        nulls = _count(row["__null"])
        if nulls:
            raise ValueError(
                LAZY_NULL_ERROR.format(
                    role="y_true", name=label, count=nulls, what="label"
                )
            )
        found = _count(row["__found"])
    if not found:
        labels = collect(frame.select(nw.col(label)).unique().head(10))[label]
        raise ValueError(
            GIVEN_POS_LABEL_ERROR.format(
                given=given,
                pos_label=pos_label,
                labels=sorted(labels.tolist(), key=repr),
            )
        )
    keep = nw.col(label) == pos_label
    return frame.filter(keep if given == "positive" else ~keep)


def _count(value):
    """An engine's count (None or NaN for an empty sum) as an int."""
    if value is None or value != value:
        return 0
    return int(value)


def collect(frame):
    """The rows of an aggregated narwhals frame, as a pandas DataFrame."""
    if isinstance(frame, nw.LazyFrame):
        frame = frame.collect(backend="pyarrow")
    return frame.to_pandas()
