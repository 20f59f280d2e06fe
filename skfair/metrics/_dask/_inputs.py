"""The Dask inputs: aligned partitions, their scores and their group rows.

Every data argument of a metric must be a Dask collection with the same
partitions (:func:`collect`); each partition's scores are checked finite
(:func:`scores_of`) and its sensitive rows encoded against a table of the
distinct rows (:func:`encode_rows`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...utils._validation import same_label
from .._given import (
    GIVEN_POS_LABEL_ERROR,
    GIVEN_Y_TRUE_ERROR,
    check_given,
    take_rows,
)

PARTITION_COUNT_ERROR = (
    "The Dask inputs must have the same partitions; got {counts}. Build them "
    "from one Dask DataFrame (e.g. ddf['score'] and ddf['group']) or give "
    "the arrays the same chunks."
)
PARTITION_LENGTH_ERROR = (
    "The Dask inputs must have the same partitions: partition {partition} of "
    "{first_name} has {first_len} rows but that of {second_name} has "
    "{second_len}."
)
PARTITION_INDEX_ERROR = (
    "The Dask inputs must have the same partitions: in partition {partition} "
    "the index of {first_name} differs from the index of {second_name}; "
    "the rows would be misaligned."
)
PARTITION_NON_FINITE_ERROR = (
    "{name} contains {what} in partition {partition} ({count} value(s), the "
    "first at row {first} of that partition); every score must be a finite "
    "number."
)
PARTITION_NAN_SENSITIVE_ERROR = (
    "sensitive_features column {name!r} has {count} missing value(s) in "
    "partition {partition} (the first at row {first} of that partition); "
    "every sample needs a group label."
)
PARTITION_NAN_LABEL_ERROR = (
    "{name} contains missing values in partition {partition}; hard labels are needed."
)
DASK_SAMPLE_WEIGHT_ERROR = (
    "sample_weight is not supported with Dask inputs; compute the weighted "
    "metric in memory, or drop sample_weight."
)
DASK_NDIM_ERROR = "{name} must be a 1-D Dask array or a Dask Series; got ndim={ndim}."
DASK_TYPE_ERROR = (
    "{name} is a Dask collection of type {type}; pass a Dask array, Series "
    "or DataFrame."
)


def _partitions(x, name):
    """Delayed partitions of a Dask collection, and its kind and known lengths."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(x, da.Array):
        if x.ndim == 1:
            return list(x.to_delayed().ravel()), "array", x.chunks[0], None
        if x.ndim == 2 and name == "sensitive_features":
            x = x.rechunk({1: -1})
            return list(x.to_delayed()[:, 0]), "array2d", x.chunks[0], None
        raise ValueError(DASK_NDIM_ERROR.format(name=name, ndim=x.ndim))
    if isinstance(x, dd.Series):
        return list(x.to_delayed()), "series", None, x.name
    if isinstance(x, dd.DataFrame):
        if name != "sensitive_features" and len(x.columns) == 1:
            return list(x.to_delayed()), "frame1", None, None
        if name != "sensitive_features":
            raise ValueError(DASK_NDIM_ERROR.format(name=name, ndim=2))
        return list(x.to_delayed()), "frame", None, list(x.columns)
    raise TypeError(DASK_TYPE_ERROR.format(name=name, type=type(x).__name__))


def collect(named):
    """Align the Dask inputs; returns (names, per-partition tuples, meta)."""
    named = {k: v for k, v in named.items() if v is not None}
    meta, parts, counts = {}, {}, {}
    for name, value in named.items():
        delayed_parts, kind, lengths, extra = _partitions(value, name)
        parts[name] = delayed_parts
        meta[name] = (kind, extra)
        counts[name] = (len(delayed_parts), lengths)
    if len({c for c, _ in counts.values()}) > 1:
        shown = ", ".join(f"{n}: {c} partitions" for n, (c, _) in counts.items())
        raise ValueError(PARTITION_COUNT_ERROR.format(counts=shown))
    known = [(n, lengths) for n, (_, lengths) in counts.items() if lengths is not None]
    for (n1, l1), (n2, l2) in zip(known, known[1:]):
        for k, (a, b) in enumerate(zip(l1, l2)):
            if not (np.isnan(a) or np.isnan(b)):
                check_lengths(k, (n1, int(a)), (n2, int(b)))
    names = list(named)
    aligned = list(zip(*(parts[n] for n in names)))
    return names, aligned, meta


def check_lengths(k, first, second):
    """Partition ``k`` of two inputs, given as (name, length), must agree."""
    if first[1] != second[1]:
        raise ValueError(
            PARTITION_LENGTH_ERROR.format(
                partition=k,
                first_name=first[0],
                first_len=first[1],
                second_name=second[0],
                second_len=second[1],
            )
        )


def check_partition(k, data):
    """Lengths and indexes of one partition's inputs must agree."""
    items = list(data.items())
    first_name, first = items[0]
    for name, value in items[1:]:
        check_lengths(k, (first_name, len(first)), (name, len(value)))
    indexed = [
        (n, v.index) for n, v in items if isinstance(v, pd.Series | pd.DataFrame)
    ]
    for (n1, i1), (n2, i2) in zip(indexed, indexed[1:]):
        if not i1.equals(i2):
            raise ValueError(
                PARTITION_INDEX_ERROR.format(partition=k, first_name=n1, second_name=n2)
            )


def scores_of(k, part, name="y_score"):
    x = np.asarray(part, dtype=np.float64)
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    x = np.ascontiguousarray(x.ravel())
    if x.size and not np.isfinite(x.min() + x.max()):
        bad = np.flatnonzero(~np.isfinite(x))
        what = "NaN" if np.isnan(x[bad[0]]) else "infinity"
        raise ValueError(
            PARTITION_NON_FINITE_ERROR.format(
                name=name, what=what, partition=k, count=bad.size, first=int(bad[0])
            )
        )
    return x


def _sensitive_frame(part, kind, extra):
    if kind == "frame":
        return part
    if kind == "series":
        name = extra if extra is not None else "sensitive_features"
        return part.to_frame(name=name)
    array = np.asarray(part)
    if array.ndim == 1:
        return pd.DataFrame({"sensitive_features": array})
    return pd.DataFrame({f"attribute_{j}": array[:, j] for j in range(array.shape[1])})


LABEL_COLUMNS = ("__skfair_y_true__", "__skfair_y_pred__")


def _factorize(column):
    """``pd.factorize``, with a linear-time lookup table for small integers."""
    values = column.to_numpy() if column.dtype.kind in "biu" else None
    if values is not None and values.size and values.dtype.kind in "biu":
        if values.dtype.kind == "b":
            values = values.view(np.uint8)
        low, high = int(values.min()), int(values.max())
        if high - low <= 4 * values.size + 1024:
            shifted = values.astype(np.intp) - low
            present = np.flatnonzero(np.bincount(shifted))
            table = np.zeros(high - low + 1, dtype=np.intp)
            table[present] = np.arange(present.size)
            uniques = (present + low).astype(
                column.dtype.type if column.dtype.kind != "b" else np.int64
            )
            if column.dtype.kind == "b":
                uniques = uniques.astype(bool)
            return table[shifted], pd.Index(uniques, dtype=column.dtype)
    return pd.factorize(column, sort=False)


def encode_rows(k, part, kind, extra, labels=None):
    """Local row codes and the table of distinct sensitive rows.

    With ``labels`` (the partitions of y_true and y_pred), the rows are the
    distinct (sensitive row, y_true, y_pred) triples.
    """
    frame = _sensitive_frame(part, kind, extra)
    if labels is not None:
        frame = frame.reset_index(drop=True).assign(
            **{
                column: np.asarray(values).ravel()
                for column, values in zip(LABEL_COLUMNS, labels)
            }
        )
    codes, uniques = [], []
    for name in frame.columns:
        column = frame[name]
        c, u = _factorize(column)
        missing = c < 0
        if missing.any() and name in LABEL_COLUMNS:
            label_name = "y_true" if name == LABEL_COLUMNS[0] else "y_pred"
            raise ValueError(
                PARTITION_NAN_LABEL_ERROR.format(name=label_name, partition=k)
            )
        if missing.any():
            raise ValueError(
                PARTITION_NAN_SENSITIVE_ERROR.format(
                    name=str(name),
                    count=int(missing.sum()),
                    partition=k,
                    first=int(np.flatnonzero(missing)[0]),
                )
            )
        if isinstance(column.dtype, pd.CategoricalDtype) and not isinstance(
            u, pd.Categorical | pd.CategoricalIndex
        ):  # pragma: no cover - pandas keeps the dtype
            u = pd.Categorical(u, dtype=column.dtype)
        codes.append(c.astype(np.intp))
        uniques.append(u)
    if len(codes) == 1:
        rows = codes[0]
        table = pd.DataFrame({frame.columns[0]: uniques[0]})
    else:
        dims = tuple(max(len(u), 1) for u in uniques)
        flat = np.ravel_multi_index(tuple(codes), dims)
        present, rows = np.unique(flat, return_inverse=True)
        unravelled = np.unravel_index(present, dims)
        table = pd.DataFrame(
            {
                name: pd.Series(u).take(idx).reset_index(drop=True)
                for name, u, idx in zip(frame.columns, uniques, unravelled)
            }
        )
        rows = rows.astype(np.intp).ravel()
    keys = list(table.itertuples(index=False, name=None))
    return rows, table, keys


def check_no_weights(sample_weight):
    """Refuse ``sample_weight`` with Dask inputs."""
    if sample_weight is not None:
        raise NotImplementedError(DASK_SAMPLE_WEIGHT_ERROR)


def start(y_true, y_score, options):
    """The aligned partitions of a score metric's Dask inputs (no weights).

    With ``options["given"]`` ("positive" or "negative"), each partition
    keeps the rows on that side of ``options["pos_label"]`` in ``y_true``
    (:func:`_given_partition`, one delayed task per partition).
    """
    check_no_weights(options.get("sample_weight"))
    sensitive_features = options["sensitive_features"]
    names, aligned, meta = collect(
        {"y_score": y_score, "y_true": y_true, "sensitive_features": sensitive_features}
    )
    given = check_given(options.get("given"))
    if given is not None:
        import dask

        if y_true is None:
            raise ValueError(GIVEN_Y_TRUE_ERROR.format(given=given))
        keep = dask.delayed(_given_partition, nout=len(names), pure=True)
        pos_label = options.get("pos_label", 1)
        _check_pos_label_present(names, aligned, given, pos_label)
        aligned = [
            tuple(keep(k, names, given, pos_label, *parts))
            for k, parts in enumerate(aligned)
        ]
    return names, aligned, meta


def _check_pos_label_present(names, aligned, given, pos_label):
    """Refuse a ``pos_label`` that no partition's ``y_true`` holds.

    One light pass over ``y_true`` (its distinct labels per partition). Each
    partition alone cannot tell a misspelt label (which would keep every row
    with ``given="negative"`` and none with ``"positive"``) from a partition
    that happens to hold no positives, so the check is global, as in memory.
    """
    import dask

    index = names.index("y_true")
    distinct = dask.delayed(_partition_labels, pure=True)
    found = dask.compute(
        *[distinct(k, parts[index]) for k, parts in enumerate(aligned)]
    )
    classes = pd.unique(np.concatenate([np.asarray(f, dtype=object) for f in found]))
    if not any(same_label(c, pos_label) for c in classes):
        shown = sorted(classes.tolist(), key=repr)[:10]
        raise ValueError(
            GIVEN_POS_LABEL_ERROR.format(given=given, pos_label=pos_label, labels=shown)
        )


def _partition_labels(k, labels):
    """The distinct labels of partition ``k``'s ``y_true`` (NaN refused)."""
    labels = np.asarray(labels).ravel()
    if pd.isna(labels).any():
        raise ValueError(PARTITION_NAN_LABEL_ERROR.format(name="y_true", partition=k))
    return pd.unique(labels)


def _given_partition(k, names, given, pos_label, *parts):
    """Partition ``k``'s inputs restricted to the rows of one side of ``pos_label``."""
    labels = np.asarray(parts[names.index("y_true")]).ravel()
    if pd.isna(labels).any():
        raise ValueError(PARTITION_NAN_LABEL_ERROR.format(name="y_true", partition=k))
    match = [c for c in pd.unique(labels) if same_label(c, pos_label)]
    mask = labels == match[0] if match else np.zeros(labels.shape, dtype=bool)
    if given == "negative":
        mask = ~mask
    return tuple(take_rows(part, mask) for part in parts)
