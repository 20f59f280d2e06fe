"""Exact distribution metrics on Dask collections, partition by partition.

The public metrics hand Dask inputs to the functions of this module (see
``skfair.utils._dask.dask_dispatch``, which passes every argument by keyword
with the public defaults applied); each returns exactly what the in-memory
function returns on the same data. Dask is imported inside the functions only.

How MCDP stays exact without gathering the scores
-------------------------------------------------
Pass 1 reads every partition once and returns, per distinct sensitive row, a
histogram of the scores on a fine grid: for scores in [0, 1] the bins are
``[k/B, (k+1)/B)`` with ``B = 2**16`` and a last bin holding the score 1
exactly (``floor(x * B)`` is exact because ``B`` is a power of two); other
real scores (MCDP(0), ABCC) use ``np.linspace(min, max, B + 1)`` as edges and
``searchsorted``. The partial results are summed in a tree on the workers, so
the client receives O(bins x groups) numbers.

For a pair of groups ``a, b`` the histogram gives the exact counts below every
edge, hence the exact numerator ``N(t) = c_a(t) n_b - c_b(t) n_a`` of the CDF
gap just before every edge, and, inside each bin, certified integer bounds
``lo <= N(t) <= hi``. With them:

* ``LB``, a lower bound on MCDP(ε) (times ``n_a n_b``) that is attained by a
  window (for ε = 0, the largest ``|N|`` just before an edge; for ε > 0, the
  smallest in-bin lower bound over the bins a window can touch);
* ``UB``, an upper bound (for ε > 0, a window starting in bin ``k`` cannot
  beat ``|N|`` just before any edge it must cover);
* bins whose largest ``|N|`` is below ``LB`` (*out*) or whose smallest ``|N|``
  exceeds ``UB`` (*in*) cannot start or end a maximising window nor hold its
  minimum. Only the scores of the other bins travel, compressed to distinct
  (score, group) pairs with counts, so atoms cost one entry. Each *in* or
  *out* bin is replaced by one point at its left edge (or at its smallest
  score for ``rounding="float"``) whose value, ``UB + 1`` or 0, is on the
  correct side of every window's minimum, so windows that span bins keep
  their exact minimum.

The client rebuilds the exact numerators of the surviving scores from the
prefix counts at the start of their bins plus the in-bin counts, and runs
skfair's exact sweep (``_mcdp._pair_exact``) on that reduced step function:
the value is bit-for-bit the in-memory one. When several windows attain the
maximum, the window reported by ``mcdp_details`` may be another maximising
window than the in-memory one (the value is the same).

ABCC: in bins where ``N`` keeps one sign the area is linear in the per-bin
sums ``sum(right_edge - x)`` of each group (computed in pass 1); only bins
where the gap may change sign travel and are integrated exactly. The float
result agrees with the in-memory one to rounding (about 1e-12 relative), not
bit for bit, since the additions happen in another order. ΔDP_c (group means)
likewise agrees to rounding; ΔDP at a threshold, the group gaps, Algorithm 2
(``method="approx"``) and ABCC's grid method are computed from exact counts
and equal the in-memory results exactly.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd

N_BINS = 1 << 16
# What the last exact computation shipped to the client (for the benchmark).
_STATS = {}
SPLIT_EVERY = 8

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


# --------------------------------------------------------------------------
# Inputs: aligned partitions


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


def _collect(named):
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
                _check_lengths(k, (n1, int(a)), (n2, int(b)))
    names = list(named)
    aligned = list(zip(*(parts[n] for n in names)))
    return names, aligned, meta


def _check_lengths(k, first, second):
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


def _check_partition(k, data):
    """Lengths and indexes of one partition's inputs must agree."""
    items = list(data.items())
    first_name, first = items[0]
    for name, value in items[1:]:
        _check_lengths(k, (first_name, len(first)), (name, len(value)))
    indexed = [
        (n, v.index) for n, v in items if isinstance(v, pd.Series | pd.DataFrame)
    ]
    for (n1, i1), (n2, i2) in zip(indexed, indexed[1:]):
        if not i1.equals(i2):
            raise ValueError(
                PARTITION_INDEX_ERROR.format(partition=k, first_name=n1, second_name=n2)
            )


def _scores_of(k, part, name="y_score"):
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


_LABEL_COLUMNS = ("__skfair_y_true__", "__skfair_y_pred__")


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


def _encode_rows(k, part, kind, extra, labels=None):
    """Local row codes and the table of distinct sensitive rows.

    With ``labels`` (the partitions of y_true and y_pred), the rows are the
    distinct (sensitive row, y_true, y_pred) triples.
    """
    frame = _sensitive_frame(part, kind, extra)
    if labels is not None:
        frame = frame.reset_index(drop=True).assign(
            **{
                column: np.asarray(values).ravel()
                for column, values in zip(_LABEL_COLUMNS, labels)
            }
        )
    codes, uniques = [], []
    for name in frame.columns:
        column = frame[name]
        c, u = _factorize(column)
        missing = c < 0
        if missing.any() and name in _LABEL_COLUMNS:
            label_name = "y_true" if name == _LABEL_COLUMNS[0] else "y_pred"
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


# --------------------------------------------------------------------------
# Pass 1: per-partition summaries, summed in a tree


def _bins(x, spec):
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
    _check_partition(k, data)
    kind, extra = kinds["sensitive_features"]
    # rows are the distinct (group, labels named in the spec) tuples
    labels = tuple(data[n] for n in spec.get("labels", ()) if n in data) or None
    score = spec["score"]
    x = np.zeros(0) if score is None else _scores_of(k, data[score], score)
    rows, table, keys = _encode_rows(
        k, data["sensitive_features"], kind, extra, labels=labels
    )
    _refuse_continuous(table, rows.size)
    n_rows = len(keys)
    arrays = {"count": (np.bincount(rows, minlength=n_rows).astype(np.int64), "add")}
    nb = spec["n_bins"] + 1
    want = spec["want"]
    if "sum" in want:
        arrays["sum"] = (np.bincount(rows, weights=x, minlength=n_rows), "add")
    if "above" in want:
        above = (x >= spec["threshold"]).astype(np.float64)
        arrays["above"] = (np.bincount(rows, weights=above, minlength=n_rows), "add")
    for j, probes in enumerate(spec.get("probes", ())):
        idx = np.searchsorted(probes, x, side="left")
        p = probes.size + 1
        h = np.bincount(rows * p + idx, minlength=n_rows * p).astype(np.int64)
        arrays[f"probe{j}"] = (h.reshape(n_rows, p), "add")
    if "hist" in want or "dsum" in want or "fmin" in want:
        b = _bins(x, spec)
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

    The resolver refuses it on the whole data (see ``_sensitive_table``), but
    only after this pass, whose histograms take a row per distinct value.
    """
    from ..utils._sensitive import MAX_NUMERIC_GROUPS, _check_continuous

    for column in table.columns.drop(list(_LABEL_COLUMNS), errors="ignore"):
        values = table[column]
        categorical = isinstance(values.dtype, pd.CategoricalDtype)
        if (
            not categorical
            and values.dtype.kind in "iuf"
            and values.size > MAX_NUMERIC_GROUPS
        ):
            n_groups = values.nunique()
            _check_continuous(str(column), values.dtype.kind, n_groups, n_samples)


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
        fill = 0 if how == "add" else np.inf
        out = np.full((n_rows, *shape), fill, dtype=dtype)
        for p in partials:
            if not p["keys"]:
                continue
            idx = np.array([index[key] for key in p["keys"]], dtype=np.intp)
            value = p["arrays"][name][0]
            if how == "add":
                out[idx] += value
            else:
                out[idx] = np.minimum(out[idx], value)
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


def _summarise(names, aligned, meta, spec):
    import dask
    from dask import delayed

    kinds = {n: meta[n] for n in names}
    parts = [
        delayed(_scan, pure=True)(k, names, kinds, spec, *p)
        for k, p in enumerate(aligned)
    ]
    (out,) = dask.compute(_tree(parts, _merge))
    return out


# --------------------------------------------------------------------------
# Groups: the in-memory resolver on the table of distinct rows


def _sensitive_table(table, meta, n_samples):
    """The distinct sensitive rows of a summary, shaped like the input.

    The resolver would count distinct rows, not samples, in its rule on the
    mean group size of a non-numeric attribute (more than 50 groups of fewer
    than 5 samples each look continuous): that rule is checked here on the
    ``n_samples`` of the data, and such columns go on as categoricals, which
    the resolver takes as they are. Its rule on numeric attributes does not
    depend on the counts. Columns carry the names the resolver gives them.
    """
    from ..utils._sensitive import _check_continuous

    kind, extra = meta["sensitive_features"]
    sens = table.drop(columns=list(_LABEL_COLUMNS), errors="ignore")
    for column in sens.columns:
        values = sens[column]
        if isinstance(values.dtype, pd.CategoricalDtype) or values.dtype.kind in "biuf":
            continue
        _check_continuous(str(column), values.dtype.kind, values.nunique(), n_samples)
        sens[column] = values.astype("category")
    if kind == "series":
        return sens.iloc[:, 0].rename(extra)
    if kind == "array":
        return sens.iloc[:, 0].rename(None)
    return sens


def _groupings(summary, meta, options):
    """Groupings of the distinct rows, with the true group sizes."""
    from ..utils import SmallGroupWarning, sensitive_groupings
    from ..utils._sensitive import check_min_group_size

    min_group_size = options["min_group_size"]
    check_min_group_size(min_group_size)
    counts = summary["arrays"]["count"][0]
    sens = _sensitive_table(summary["table"], meta, int(counts.sum()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        groupings = sensitive_groupings(sens, combine=options["combine"])
    out = []
    for g in groupings:
        codes = np.asarray(g.codes, dtype=np.intp)
        sizes = np.bincount(codes, weights=counts, minlength=g.n_groups)
        codes, labels = _apply_min_group_size(g, codes, sizes, min_group_size)
        out.append((g.name, codes, labels))
    return out


def _apply_min_group_size(grouping, codes, sizes, min_group_size):
    from ..utils._sensitive import warn_small_groups

    labels = tuple(grouping.labels)
    if min_group_size is None:
        warn_small_groups(grouping, sizes, stacklevel=6)
        return codes, labels
    keep = sizes >= min_group_size
    if keep.all():
        return codes, labels
    table = np.cumsum(keep) - 1
    table[~keep] = -1
    labels = tuple(lab for lab, k in zip(labels, keep) if k)
    if len(labels) < 2:
        from ..utils._sensitive import TOO_FEW_GROUPS_ERROR

        raise ValueError(
            TOO_FEW_GROUPS_ERROR.format(
                name=grouping.name,
                n_groups=len(labels),
                labels=list(labels),
                n_samples=int(sizes.sum()),
            )
        )
    return table[codes], labels


def _per_group(array, codes, n_groups, how="add"):
    """Sum (or min) the per-row ``array`` into per-group rows."""
    kept = codes >= 0
    shape = (n_groups, *array.shape[1:])
    if how == "add":
        out = np.zeros(shape, dtype=array.dtype)
        np.add.at(out, codes[kept], array[kept])
    else:
        out = np.full(shape, np.inf)
        np.minimum.at(out, codes[kept], array[kept])
    return out


# --------------------------------------------------------------------------
# Shared driver


def _check_no_weights(sample_weight):
    if sample_weight is not None:
        raise NotImplementedError(DASK_SAMPLE_WEIGHT_ERROR)


def _start(y_true, y_score, options):
    _check_no_weights(options.get("sample_weight"))
    sensitive_features = options["sensitive_features"]
    return _collect(
        {"y_score": y_score, "y_true": y_true, "sensitive_features": sensitive_features}
    )


def _unit_spec(want, **extra):
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


def _check_summary(summary, unit_interval_for):
    from ..utils._validation import EMPTY_INPUT_ERROR, OUT_OF_UNIT_INTERVAL_ERROR

    if summary["n"] == 0:
        raise ValueError(EMPTY_INPUT_ERROR.format(name="y_score"))
    low, high = summary["low"], summary["high"]
    if unit_interval_for is not None and (low < 0.0 or high > 1.0):
        raise ValueError(
            OUT_OF_UNIT_INTERVAL_ERROR.format(
                name="y_score", why=unit_interval_for, low=low, high=high
            )
        )


def _histogram_summary(names, aligned, meta, want, unit_interval_for, **extra):
    """Pass 1 on the unit grid; again on the data's range if scores leave [0, 1]."""
    spec = _unit_spec(want, **extra)
    summary = _summarise(names, aligned, meta, spec)
    _check_summary(summary, unit_interval_for)
    if summary["low"] < 0.0 or summary["high"] > 1.0:
        spec = _general_spec(summary["low"], summary["high"], want, **extra)
        summary = _summarise(names, aligned, meta, spec)
    return summary, spec


# --------------------------------------------------------------------------
# Pass 2: the scores of the undecided bins


def _ship(k, names, kinds, spec, needed, *parts):
    data = dict(zip(names, parts))
    x = _scores_of(k, data[spec["score"]], spec["score"])
    kind, extra = kinds["sensitive_features"]
    rows, _table, keys = _encode_rows(k, data["sensitive_features"], kind, extra)
    keep = needed[_bins(x, spec)]
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


def _gather_points(names, aligned, meta, spec, needed, all_keys):
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
    if not values:
        _STATS.update(bins_shipped=int(needed.sum()), points_shipped=0)
        return np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    out = np.concatenate(values), np.concatenate(rows), np.concatenate(counts)
    _STATS.update(bins_shipped=int(needed.sum()), points_shipped=int(out[0].size))
    return out


def _pair_points(points, a, b, spec):
    """Distinct scores of groups a, b among the shipped ones, with in-bin counts."""
    values, codes, counts = points
    mask = (codes == a) | (codes == b)
    v, c, n = values[mask], codes[mask], counts[mask]
    order = np.argsort(v, kind="stable")
    v, c, n = v[order], c[order], n[order]
    if v.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return v, empty, empty, np.zeros(0, dtype=np.intp)
    new = np.r_[True, v[1:] != v[:-1]]
    group = np.cumsum(new) - 1
    m = int(group[-1]) + 1
    ca = np.bincount(group, weights=n * (c == a), minlength=m).astype(np.int64)
    cb = np.bincount(group, weights=n * (c == b), minlength=m).astype(np.int64)
    u = v[new]
    return u, ca, cb, _bins(u, spec)


def _exact_numerators(u, ca, cb, bins, Ca, Cb, na, nb):
    """``c_a n_b - c_b n_a`` at the shipped scores, from bin prefix counts."""
    if u.size == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.r_[True, bins[1:] != bins[:-1]]
    run = np.cumsum(first) - 1
    cum_a, cum_b = np.cumsum(ca), np.cumsum(cb)
    base_a, base_b = (cum_a - ca)[first], (cum_b - cb)[first]
    c_a = Ca[bins] + cum_a - base_a[run]
    c_b = Cb[bins] + cum_b - base_b[run]
    return c_a * nb - c_b * na


# --------------------------------------------------------------------------
# MCDP


class _PairBounds:
    """Certified bounds on the gap numerator of one pair, bin by bin."""

    def __init__(self, ha, hb):
        self.Ca = np.concatenate(([0], np.cumsum(ha))).astype(np.int64)
        self.Cb = np.concatenate(([0], np.cumsum(hb))).astype(np.int64)
        self.na, self.nb = int(self.Ca[-1]), int(self.Cb[-1])
        na, nb = self.na, self.nb
        self.E = self.Ca * nb - self.Cb * na  # just before each edge
        lo = self.Ca[:-1] * nb - self.Cb[1:] * na
        hi = self.Ca[1:] * nb - self.Cb[:-1] * na
        self.U = np.maximum(np.abs(lo), np.abs(hi))
        self.L = np.where((lo <= 0) & (hi >= 0), 0, np.minimum(np.abs(lo), np.abs(hi)))
        self.crossing = (lo < 0) & (hi > 0)
        self.nonempty = (ha + hb) > 0


def _sliding_min(a, width, fill):
    """``out[i] = min(a[i : i + width])`` (``fill`` past the end), in O(n)."""
    n = a.size
    if width <= 1:
        return a.copy()
    m = -(-(n + width - 1) // width) * width
    padded = np.full(m, fill, dtype=a.dtype)
    padded[:n] = a
    blocks = padded.reshape(-1, width)
    prefix = np.minimum.accumulate(blocks, axis=1).ravel()
    suffix = np.minimum.accumulate(blocks[:, ::-1], axis=1)[:, ::-1].ravel()
    i = np.arange(n)
    return np.minimum(suffix[i], prefix[i + width - 1])


_BIG = np.iinfo(np.int64).max


def _plan_eps(bounds, epsilon, n_bins):
    """Decided bins of one pair for MCDP(ε), ε > 0 (unit grid only)."""
    B = n_bins
    absE = np.abs(bounds.E[: B + 1])  # before the edges k/B, k = 0..B
    U, L = bounds.U, bounds.L
    # Upper bound: a window starting in bin k covers the edges k+1..k+D.
    D = int(np.floor(2.0 * epsilon * B)) - 1
    if D >= 1:
        ahead = _sliding_min(np.r_[absE[1:], _BIG], D, _BIG)  # edges k+1..k+D
        ub_start = np.minimum(U, ahead[: B + 1])
    else:
        ub_start = U.copy()
    ub_start[B] = 0
    D0 = int(np.floor(epsilon * B)) - 1
    ub0 = int(U[0]) if D0 < 1 else min(int(U[0]), int(absE[1 : 1 + D0].min()))
    ub = max(ub0, int(ub_start.max()))
    # Lower bound: the window of the breakpoint at or before edge k stays in
    # bins k..k+D'.
    Dp = int(np.ceil(2.0 * epsilon * B)) + 2
    lb_start = _sliding_min(L, Dp, 0)
    K0 = min(int(np.floor(epsilon * B)) + 2, B + 1)
    lb0 = int(L[:K0].min())
    lb = max(lb0, int(lb_start.max()))
    out = lb > U
    inside = ub < L
    undecided = bounds.nonempty & ~out & ~inside
    undecided[B] = bounds.nonempty[B]
    return (
        undecided,
        bounds.nonempty & inside & ~undecided,
        bounds.nonempty & out & ~undecided,
        ub,
    )


def _plan_zero(bounds):
    lb = int(np.abs(bounds.E).max())
    return bounds.nonempty & (lb <= bounds.U)


def _mcdp_setup(y_true, y_score, epsilons, options):
    from ._mcdp import UNIT_INTERVAL_REASON

    names, aligned, meta = _start(y_true, y_score, options)
    positive = max(epsilons) > 0
    want = ["hist"]
    extra = {}
    if options["method"] == "exact" and options["rounding"] == "float" and positive:
        want.append("fmin")
    if options["method"] == "approx":
        extra["probes"] = tuple(
            np.arange(0, 1, e / options["sampling_frequency"]) for e in epsilons
        )
    summary, spec = _histogram_summary(
        names, aligned, meta, want, UNIT_INTERVAL_REASON if positive else None, **extra
    )
    groupings = _groupings(summary, meta, options)
    return names, aligned, meta, summary, spec, groupings


def _pair_list(n_groups):
    from ._ecdf import group_pairs

    return group_pairs(n_groups)


def _mcdp_values(y_true, y_score, epsilons, options):
    """Per ε: list over groupings of list over pairs of (_pair_* output, labels)."""
    names, aligned, meta, summary, spec, groupings = _mcdp_setup(
        y_true, y_score, epsilons, options
    )
    if options["method"] == "approx":
        return _mcdp_approx_values(summary, spec, groupings, epsilons, options)
    # exact: plan every pair and ε, ship the undecided bins once
    plans, needed = _mcdp_plans(summary, spec, groupings, epsilons)
    points = _gather_points(names, aligned, meta, spec, needed, summary["keys"])
    fast_pad = summary["low"] >= 0.0 and summary["high"] <= 1.0
    results = [[] for _ in epsilons]
    for plan in plans:
        per_eps = _mcdp_exact_pairs(plan, points, spec, epsilons, options, fast_pad)
        for j in range(len(epsilons)):
            results[j].append(per_eps[j])
    return results


def _mcdp_approx_values(summary, spec, groupings, epsilons, options):
    """The approximate algorithm on every pair, from the probes' histograms."""
    from ._ecdf import PairGap
    from ._mcdp import _pair_approx

    results = [[] for _ in epsilons]
    for name, codes, labels in groupings:
        per_eps = [[] for _ in epsilons]
        for j, e in enumerate(epsilons):
            probes = spec["probes"][j]
            h = _per_group(summary["arrays"][f"probe{j}"][0], codes, len(labels))
            cum = np.cumsum(h, axis=1)[:, : probes.size]
            sizes = h.sum(axis=1)
            for a, b in _pair_list(len(labels)):
                na, nb = int(sizes[a]), int(sizes[b])
                num = cum[a] * nb - cum[b] * na
                pair = PairGap(probes, num, float(na) * float(nb), a, b)
                out = _pair_approx(pair, e, options["sampling_frequency"])
                per_eps[j].append((out, name, labels[a], labels[b]))
        for j in range(len(epsilons)):
            results[j].append(per_eps[j])
    return results


def _mcdp_plans(summary, spec, groupings, epsilons):
    """Per grouping, the bins every pair and ε still needs, and their union."""
    n_bins = spec["n_bins"]
    rows_hist = summary["arrays"]["hist"][0]
    plans, needed = [], np.zeros(n_bins + 1, dtype=bool)
    fmin_rows = summary["arrays"]["fmin"][0] if "fmin" in summary["arrays"] else None
    for name, codes, labels in groupings:
        h = _per_group(rows_hist, codes, len(labels))
        fmin = (
            None
            if fmin_rows is None
            else _per_group(fmin_rows, codes, len(labels), "min")
        )
        pair_plans = []
        for a, b in _pair_list(len(labels)):
            bounds = _PairBounds(h[a], h[b])
            per_eps = []
            for e in epsilons:
                if e == 0.0:
                    und = _plan_zero(bounds)
                    per_eps.append((und, None, None, None))
                else:
                    und, inside, out, ub = _plan_eps(bounds, e, n_bins)
                    per_eps.append((und, inside, out, ub))
                needed |= und
            pair_plans.append((a, b, per_eps))
        plans.append((name, codes, labels, h, fmin, pair_plans))
    return plans, needed


def _mcdp_exact_pairs(plan, points, spec, epsilons, options, fast_pad):
    """Exact MCDP(ε) of every pair of one grouping, on the gathered points."""
    from ._ecdf import PairGap
    from ._mcdp import _pair_exact

    name, codes, labels, h, fmin, pair_plans = plan
    group_points = (points[0], codes[points[1]], points[2])
    per_eps = [[] for _ in epsilons]
    for a, b, pair_eps in pair_plans:
        # rebuilt, not kept: all pairs' bounds would take O(pairs * bins)
        bounds = _PairBounds(h[a], h[b])
        first = None if fmin is None else np.minimum(fmin[a], fmin[b])
        u, ca, cb, ubins = _pair_points(group_points, a, b, spec)
        num = _exact_numerators(
            u, ca, cb, ubins, bounds.Ca, bounds.Cb, bounds.na, bounds.nb
        )
        scale = float(bounds.na) * float(bounds.nb)
        for j, e in enumerate(epsilons):
            und, inside, out, ub = pair_eps[j]
            keep = und[ubins]
            p, q = u[keep], num[keep]
            if e == 0.0:
                if len(labels) == 2 and fast_pad:
                    # the in-memory two-group sort pads the scores 0 and 1
                    if p.size == 0 or p[0] > 0.0:
                        p, q = np.r_[0.0, p], np.r_[0, q]
                    if p[-1] < 1.0:
                        p, q = np.r_[p, 1.0], np.r_[q, 0]
                pair = PairGap(p, q.astype(np.int64), scale, a, b)
            else:
                decided = np.flatnonzero(inside | out)
                where = spec["edges"][decided] if first is None else first[decided]
                value = np.where(inside[decided], ub + 1, 0).astype(np.int64)
                p = np.concatenate((p, where))
                q = np.concatenate((q.astype(np.int64), value))
                order = np.argsort(p, kind="stable")
                pair = PairGap(p[order], q[order], scale, a, b)
            out_ = _pair_exact(pair, e, options["rounding"])
            per_eps[j].append((out_, name, labels[a], labels[b]))
    return per_eps


def _assemble(per_grouping, epsilon, options):
    from ._base import aggregate
    from ._mcdp import MCDPResult

    pair_values, worst, values = {}, None, []
    for pairs in per_grouping:
        vals = []
        for out, name, label_a, label_b in pairs:
            vals.append(out[0])
            pair_values[(name, label_a, label_b)] = out[0]
            if worst is None or out[0] > worst[0]:
                higher = label_a if out[3] >= 0 else label_b
                worst = (*out[:3], name, (label_a, label_b), higher)
        values.append(vals)
    return MCDPResult(
        value=aggregate(values, options["agg"]),
        epsilon=epsilon,
        method=options["method"],
        attribute=worst[3],
        groups=worst[4],
        window=worst[1],
        threshold=worst[2],
        higher_cdf_group=worst[5],
        pair_values=pair_values,
    )


def _mcdp_results(y_true, y_score, epsilons, options):
    """The MCDPResult of each ε, the arguments checked as in memory."""
    from ._base import check_agg
    from ._mcdp import EMPTY_EPSILONS_ERROR, _check_epsilon, _check_method

    epsilons = [_check_epsilon(e) for e in epsilons]
    if not epsilons:
        raise ValueError(EMPTY_EPSILONS_ERROR)
    for e in epsilons:
        _check_method(
            options["method"], e, options["sampling_frequency"], options["rounding"]
        )
    check_agg(options["agg"])
    results = _mcdp_values(y_true, y_score, epsilons, options)
    return [_assemble(r, e, options) for r, e in zip(results, epsilons)]


def mcdp_details(y_true, y_score, *, epsilon, **options):
    """:func:`skfair.metrics.mcdp_details` on Dask inputs."""
    return _mcdp_results(y_true, y_score, [epsilon], options)[0]


def mcdp(y_true, y_score, **arguments):
    """:func:`skfair.metrics.mcdp` on Dask inputs."""
    return mcdp_details(y_true, y_score, **arguments).value


def mcdp_curve(y_true, y_score, *, epsilons, **options):
    """:func:`skfair.metrics.mcdp_curve` on Dask inputs."""
    epsilons = np.atleast_1d(epsilons).tolist()
    results = _mcdp_results(y_true, y_score, epsilons, options)
    return np.array([result.value for result in results])


# --------------------------------------------------------------------------
# ΔDP and ABCC


def delta_dp(y_true, y_score, *, threshold, **options):
    """:func:`skfair.metrics.delta_dp` on Dask inputs."""
    from ._base import aggregate, check_agg
    from ._distribution import THRESHOLD_ERROR

    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, numbers.Real)
        or not np.isfinite(threshold)
    ):
        raise ValueError(THRESHOLD_ERROR.format(value=threshold))
    check_agg(options["agg"])
    names, aligned, meta = _start(y_true, y_score, options)
    want = ["sum"] if threshold is None else ["above"]
    spec = _unit_spec(want, threshold=threshold)
    summary = _summarise(names, aligned, meta, spec)
    _check_summary(summary, None)
    per_grouping = []
    for _, codes, labels in _groupings(summary, meta, options):
        totals = _per_group(
            summary["arrays"]["count"][0].astype(np.float64), codes, len(labels)
        )
        sums = _per_group(summary["arrays"][want[0]][0], codes, len(labels))
        means = sums / totals
        per_grouping.append(
            [abs(means[a] - means[b]) for a, b in _pair_list(len(labels))]
        )
    return aggregate(per_grouping, options["agg"])


def abcc(y_true, y_score, *, method, n_points, **options):
    """:func:`skfair.metrics.abcc` on Dask inputs."""
    from ._base import aggregate, check_agg
    from ._distribution import ABCC_METHOD_ERROR, GRID_REASON, _check_n_points

    if method not in ("exact", "grid"):
        raise ValueError(ABCC_METHOD_ERROR.format(method=method))
    n_points = _check_n_points(n_points, "abcc(method='grid')")
    check_agg(options["agg"])
    names, aligned, meta = _start(y_true, y_score, options)
    if method == "grid":
        grid = np.linspace(0, 1, n_points)
        spec = _unit_spec([], probes=(grid,))
        summary = _summarise(names, aligned, meta, spec)
        _check_summary(summary, GRID_REASON)
        per_grouping = []
        for _, codes, labels in _groupings(summary, meta, options):
            h = _per_group(summary["arrays"]["probe0"][0], codes, len(labels))
            cum = np.cumsum(h, axis=1)[:, :n_points]
            sizes = h.sum(axis=1)
            values = []
            for a, b in _pair_list(len(labels)):
                na, nb = int(sizes[a]), int(sizes[b])
                gap = (cum[a] * nb - cum[b] * na) / (float(na) * float(nb))
                values.append(float(np.trapezoid(np.abs(gap), grid)))
            per_grouping.append(values)
        return aggregate(per_grouping, options["agg"])
    summary, spec = _histogram_summary(names, aligned, meta, ["hist", "dsum"], None)
    groupings = _groupings(summary, meta, options)
    edges = spec["edges"]
    widths = np.r_[np.diff(edges), 0.0]
    plans, needed = [], np.zeros(spec["n_bins"] + 1, dtype=bool)
    for _name, codes, labels in groupings:
        h = _per_group(summary["arrays"]["hist"][0], codes, len(labels))
        d = _per_group(summary["arrays"]["dsum"][0], codes, len(labels))
        pairs = []
        for a, b in _pair_list(len(labels)):
            bounds = _PairBounds(h[a], h[b])
            cross = bounds.crossing & bounds.nonempty
            needed |= cross
            pairs.append((a, b, cross))
        plans.append((codes, h, d, pairs))
    points = _gather_points(names, aligned, meta, spec, needed, summary["keys"])
    per_grouping = []
    for codes, h, d, pairs in plans:
        group_points = (points[0], codes[points[1]], points[2])
        values = []
        for a, b, cross in pairs:
            bounds = _PairBounds(h[a], h[b])  # rebuilt, as in the MCDP engine
            na, nb, da, db = bounds.na, bounds.nb, d[a], d[b]
            E = bounds.E[:-1].astype(np.float64)
            linear = E * widths + nb * da - na * db
            area = float(np.abs(linear[~cross]).sum())
            u, ca, cb, ubins = _pair_points(group_points, a, b, spec)
            keep = cross[ubins]
            u, ca, cb, ubins = u[keep], ca[keep], cb[keep], ubins[keep]
            if u.size:
                num = _exact_numerators(u, ca, cb, ubins, bounds.Ca, bounds.Cb, na, nb)
                last = np.r_[ubins[1:] != ubins[:-1], True]
                nxt = np.r_[u[1:], 0.0]
                nxt[last] = edges[np.minimum(ubins[last] + 1, edges.size - 1)]
                area += float(np.dot(np.abs(num).astype(np.float64), nxt - u))
                first = np.r_[True, ubins[1:] != ubins[:-1]]
                fb = ubins[first]
                area += float(
                    np.dot(
                        np.abs(bounds.E[fb]).astype(np.float64), u[first] - edges[fb]
                    )
                )
            values.append(area / (float(na) * float(nb)))
        per_grouping.append(values)
    return aggregate(per_grouping, options["agg"])


# --------------------------------------------------------------------------
# Group gaps on hard labels


class _GroupSizes:
    """The parts of a Grouping that ``resolve_privileged`` reads."""

    def __init__(self, name, labels, sizes):
        self.name, self.labels, self._sizes = name, labels, sizes

    def counts(self):
        return self._sizes


def _gap(metric, y_true, y_pred, options):
    """The in-memory gap on the distinct (group, y_true, y_pred) rows.

    Each distinct row is weighted by its count (zero in the groups that
    ``min_group_size`` leaves out), and the privileged group is resolved here
    on the true group sizes, so the in-memory rates are the rates of the data.
    """
    from ..utils import resolve_privileged
    from ..utils._validation import EMPTY_INPUT_ERROR, check_hard_labels
    from . import _group_gaps

    _check_no_weights(options["sample_weight"])
    sensitive_features = options["sensitive_features"]
    names, aligned, meta = _collect(
        {"y_true": y_true, "y_pred": y_pred, "sensitive_features": sensitive_features}
    )
    spec = {"score": None, "want": (), "n_bins": 0, "labels": ("y_true", "y_pred")}
    summary = _summarise(names, aligned, meta, spec)
    table = summary["table"]
    if table is None:
        raise ValueError(EMPTY_INPUT_ERROR.format(name="y_true"))
    truth, pred = (table[column].to_numpy() for column in _LABEL_COLUMNS)
    check_hard_labels(truth, pred, pos_label=options["pos_label"])
    grouping_options = {**options, "combine": "intersection"}
    ((name, codes, labels),) = _groupings(summary, meta, grouping_options)
    counts = summary["arrays"]["count"][0].astype(np.float64)
    kept = codes >= 0
    sizes = np.bincount(codes[kept], weights=counts[kept], minlength=len(labels))
    code = resolve_privileged(options["privileged"], _GroupSizes(name, labels, sizes))
    options = dict(  # every other option (pos_label) as given
        options,
        sensitive_features=_sensitive_table(table, meta, int(counts.sum())),
        privileged=labels[code],
        sample_weight=counts * kept,
        min_group_size=1,
    )
    return getattr(_group_gaps, metric)(truth, pred, **options)


def _gap_engine(metric):
    def engine(y_true, y_pred, **options):
        return _gap(metric, y_true, y_pred, options)

    engine.__name__ = metric
    engine.__doc__ = f":func:`skfair.metrics.{metric}` on Dask inputs."
    return engine


demographic_parity_gap = _gap_engine("demographic_parity_gap")
equal_opportunity_gap = _gap_engine("equal_opportunity_gap")
predictive_quality_parity_gap = _gap_engine("predictive_quality_parity_gap")
