"""The two passes over the partitions, summed in a tree on the workers.

Pass 1 (:func:`summarise`) reads every partition once and returns, per
distinct sensitive row, the counts, sums and histograms a metric asks for in
its *spec* (:func:`unit_spec`: bins ``[k/B, (k+1)/B)`` of scores in [0, 1];
else the data's range cut in ``B`` bins), merged in a tree of fan-in
``SPLIT_EVERY``. Pass 2 (:func:`gather_points`) ships to the client the
distinct (score, row) pairs of the bins pass 1 could not decide; what it
ships can be recorded with :func:`record_shipments`.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...utils._group_encoding import MAX_NUMERIC_GROUPS, check_continuous
from ...utils._validation import EMPTY_INPUT_ERROR, OUT_OF_UNIT_INTERVAL_ERROR
from ._inputs import LABEL_COLUMNS, check_partition, encode_rows, scores_of

N_BINS = 1 << 16
SPLIT_EVERY = 8


@dataclass(frozen=True)
class Shipment:
    """What one pass 2 shipped to the client: undecided bins and distinct points."""

    bins: int
    points: int


_SHIPMENTS = contextvars.ContextVar("skfair_dask_shipments", default=None)


@contextlib.contextmanager
def record_shipments():
    """Record what the exact Dask engines ship to the client (for benchmarks).

    Yields a list to which every pass 2 run inside the ``with`` block appends
    a :class:`Shipment`; nothing is recorded outside such a block.

    Examples
    --------
    >>> from skfair.metrics._dask import record_shipments
    >>> with record_shipments() as shipments:
    ...     pass  # a Dask mcdp or abcc call here appends its Shipment
    >>> shipments
    []
    """
    log = []
    token = _SHIPMENTS.set(log)
    try:
        yield log
    finally:
        _SHIPMENTS.reset(token)


def bins_of(x, spec):
    grid = spec["grid"]
    if grid == "unit":
        scaled = x * spec["n_bins"]  # exact: n_bins is a power of two
        np.floor(scaled, out=scaled)
        np.clip(scaled, 0, spec["n_bins"], out=scaled)
        return scaled.astype(np.intp)
    b = np.searchsorted(spec["edges"], x, side="right") - 1
    np.clip(b, 0, spec["n_bins"], out=b)
    return b


def _scan(k, names, kinds, spec, *parts):
    """Summaries of one partition, keyed by distinct sensitive row."""
    data = dict(zip(names, parts))
    check_partition(k, data)
    kind, extra = kinds["sensitive_features"]
    # rows are the distinct (group, labels named in the spec) tuples
    labels = tuple(data[n] for n in spec.get("labels", ()) if n in data) or None
    score = spec["score"]
    x = np.zeros(0) if score is None else scores_of(k, data[score], score)
    rows, table, keys = encode_rows(
        k, data["sensitive_features"], kind, extra, labels=labels
    )
    _refuse_continuous(table, rows.size)
    n_rows = len(keys)
    arrays = {"count": (np.bincount(rows, minlength=n_rows).astype(np.int64), "add")}
    nb = spec["n_bins"] + 1
    want = spec["want"]
    if "sum" in want:
        arrays["sum"] = (np.bincount(rows, weights=x, minlength=n_rows), "add")
    if "range" in want:  # each row's smallest and largest score
        low = np.full(n_rows, np.inf)
        high = np.full(n_rows, -np.inf)
        np.minimum.at(low, rows, x)
        np.maximum.at(high, rows, x)
        arrays["rmin"], arrays["rmax"] = (low, "min"), (high, "max")
    if "above" in want:
        above = (x >= spec["threshold"]).astype(np.float64)
        arrays["above"] = (np.bincount(rows, weights=above, minlength=n_rows), "add")
    for j, probes in enumerate(spec.get("probes", ())):
        idx = np.searchsorted(probes, x, side="left")
        p = probes.size + 1
        h = np.bincount(rows * p + idx, minlength=n_rows * p).astype(np.int64)
        arrays[f"probe{j}"] = (h.reshape(n_rows, p), "add")
    if "hist" in want or "dsum" in want or "fmin" in want:
        b = bins_of(x, spec)
        if "dsum" in want:
            right = spec["edges"][np.minimum(b + 1, nb - 1)]
            right -= x
        flat = rows  # rows are not needed any more: build the flat index in place
        flat *= nb
        flat += b
        del b
        if "hist" in want:
            h = np.bincount(flat, minlength=n_rows * nb).astype(np.int64)
            arrays["hist"] = (h.reshape(n_rows, nb), "add")
        if "dsum" in want:
            d = np.bincount(flat, weights=right, minlength=n_rows * nb)
            d = d.reshape(n_rows, nb)
            d[:, -1] = 0.0
            arrays["dsum"] = (d, "add")
        if "fmin" in want:
            m = np.full(n_rows * nb, np.inf)
            np.minimum.at(m, flat, x)
            arrays["fmin"] = (m.reshape(n_rows, nb), "min")
    return {
        "n": int(x.size),
        "low": float(x.min()) if x.size else np.inf,
        "high": float(x.max()) if x.size else -np.inf,
        "keys": keys,
        "table": table if n_rows else None,
        "arrays": arrays,
    }


def _refuse_continuous(table, n_samples):
    """Refuse a numeric attribute with too many values in one partition.

    The resolver refuses it on the whole data (see ``sensitive_table``), but
    only after this pass, whose histograms take a row per distinct value.
    """
    for column in table.columns.drop(list(LABEL_COLUMNS), errors="ignore"):
        values = table[column]
        categorical = isinstance(values.dtype, pd.CategoricalDtype)
        if (
            not categorical
            and values.dtype.kind in "iuf"
            and values.size > MAX_NUMERIC_GROUPS
        ):
            n_groups = values.nunique()
            check_continuous(str(column), values.dtype.kind, n_groups, n_samples)


def _merge(*partials):
    """Sum partial summaries (a tree-reduction step)."""
    keys, index, tables = [], {}, []
    for p in partials:
        new = []
        for j, key in enumerate(p["keys"]):
            if key not in index:
                index[key] = len(keys)
                keys.append(key)
                new.append(j)
        if new:
            tables.append(p["table"].iloc[new])
    n_rows = len(keys)
    arrays = {}
    for name, (_, how) in partials[0]["arrays"].items():
        shape = partials[0]["arrays"][name][0].shape[1:]
        dtype = np.result_type(*(p["arrays"][name][0].dtype for p in partials))
        fill = {"add": 0, "min": np.inf, "max": -np.inf}[how]
        out = np.full((n_rows, *shape), fill, dtype=dtype)
        for p in partials:
            if not p["keys"]:
                continue
            idx = np.array([index[key] for key in p["keys"]], dtype=np.intp)
            value = p["arrays"][name][0]
            if how == "add":
                out[idx] += value
            elif how == "min":
                out[idx] = np.minimum(out[idx], value)
            else:
                out[idx] = np.maximum(out[idx], value)
        arrays[name] = (out, how)
    table = (
        pd.concat(tables, ignore_index=True)
        if len(tables) > 1
        else (tables[0].reset_index(drop=True) if tables else None)
    )
    return {
        "n": sum(p["n"] for p in partials),
        "low": min(p["low"] for p in partials),
        "high": max(p["high"] for p in partials),
        "keys": keys,
        "table": table,
        "arrays": arrays,
    }


def _tree(delayed_parts, combine):
    from dask import delayed

    level = list(delayed_parts)
    while len(level) > 1:
        level = [
            delayed(combine, pure=True)(*level[i : i + SPLIT_EVERY])
            for i in range(0, len(level), SPLIT_EVERY)
        ]
    return level[0]


def summarise(names, aligned, meta, spec):
    import dask
    from dask import delayed

    kinds = {n: meta[n] for n in names}
    parts = [
        delayed(_scan, pure=True)(k, names, kinds, spec, *p)
        for k, p in enumerate(aligned)
    ]
    (out,) = dask.compute(_tree(parts, _merge))
    return out


def unit_spec(want, **extra):
    edges = np.arange(N_BINS + 1, dtype=np.float64) / N_BINS
    return {
        "grid": "unit",
        "n_bins": N_BINS,
        "edges": edges,
        "want": tuple(want),
        "score": "y_score",
        **extra,
    }


def _general_spec(low, high, want, **extra):
    edges = np.linspace(low, high, N_BINS + 1)
    return {
        "grid": "edges",
        "n_bins": N_BINS,
        "edges": edges,
        "want": tuple(want),
        "score": "y_score",
        **extra,
    }


def check_summary(summary, unit_interval_for):
    if summary["n"] == 0:
        raise ValueError(EMPTY_INPUT_ERROR.format(name="y_score"))
    low, high = summary["low"], summary["high"]
    if unit_interval_for is not None and (low < 0.0 or high > 1.0):
        raise ValueError(
            OUT_OF_UNIT_INTERVAL_ERROR.format(
                name="y_score", why=unit_interval_for, low=low, high=high
            )
        )


def histogram_summary(names, aligned, meta, want, unit_interval_for, **extra):
    """Pass 1 on the unit grid; again on the data's range if scores leave [0, 1]."""
    spec = unit_spec(want, **extra)
    summary = summarise(names, aligned, meta, spec)
    check_summary(summary, unit_interval_for)
    if summary["low"] < 0.0 or summary["high"] > 1.0:
        spec = _general_spec(summary["low"], summary["high"], want, **extra)
        summary = summarise(names, aligned, meta, spec)
    return summary, spec


def _ship(k, names, kinds, spec, needed, *parts):
    data = dict(zip(names, parts))
    x = scores_of(k, data[spec["score"]], spec["score"])
    kind, extra = kinds["sensitive_features"]
    rows, _table, keys = encode_rows(k, data["sensitive_features"], kind, extra)
    keep = needed[bins_of(x, spec)]
    v, r = x[keep], rows[keep]
    order = np.lexsort((r, v))
    v, r = v[order], r[order]
    if v.size:
        new = np.r_[True, (v[1:] != v[:-1]) | (r[1:] != r[:-1])]
        starts = np.flatnonzero(new)
        counts = np.diff(np.r_[starts, v.size]).astype(np.int64)
        v, r = v[starts], r[starts]
    else:
        counts = np.zeros(0, dtype=np.int64)
    return {"keys": keys, "values": v, "rows": r, "counts": counts}


def gather_points(names, aligned, meta, spec, needed, all_keys):
    import dask
    from dask import delayed

    kinds = {n: meta[n] for n in names}
    parts = [
        delayed(_ship, pure=True)(k, names, kinds, spec, needed, *p)
        for k, p in enumerate(aligned)
    ]
    shipped = dask.compute(*parts)
    index = {key: j for j, key in enumerate(all_keys)}
    values, rows, counts = [], [], []
    for s in shipped:
        if s["values"].size:
            local = np.array([index[key] for key in s["keys"]], dtype=np.intp)
            values.append(s["values"])
            rows.append(local[s["rows"]])
            counts.append(s["counts"])
    if values:
        out = np.concatenate(values), np.concatenate(rows), np.concatenate(counts)
    else:
        out = np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    log = _SHIPMENTS.get()
    if log is not None:
        log.append(Shipment(bins=int(needed.sum()), points=int(out[0].size)))
    return out
