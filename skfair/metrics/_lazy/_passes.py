"""The engine's passes: group-by aggregations whose results reach the client.

Pass 1 (:func:`histogram`) groups the rows by their sensitive row (and
labels) and their score's bin and returns, per group and bin, the counts,
weights and sums a metric asks for: about ``65,537 x groups`` rows. The bin
of a score ``x`` is ``floor(x * 2**s) - K`` (:func:`grid_for`), exact in
every IEEE engine (a product by a power of two, a floor, a difference of
integers), so the client recomputes the same bin for any score; for scores
in [0, 1] it is the Dask engine's unit grid (``s = 16``, ``K = 0``). Pass 2
(:func:`candidate_points`) ships the distinct (sensitive row, score) pairs
of the bins pass 1 could not decide, with their counts and weights.

:func:`per_row` is the aggregation without bins (ΔDP, confusion counts,
moments).

Pass 2's grouping has two shapes that ship the same points: by score
alone, with each sensitive row's samples counted in a column of its own
(``count(CASE WHEN row THEN score END)``: "pivot"), or by (sensitive row,
score) ("pairs"). An engine's hash aggregation keeps an entry per group (in
every thread), so when the groups share scores (scores rounded to a few
decimals, or float32: the usual case at scale) the pivot holds up to as
many times fewer entries as there are sensitive rows; when scores never
tie, its entries are no fewer and several times wider. :func:`pass2_shape`
chooses from a probe of the candidate rows' ties and pass 1's counts; more
than :data:`MAX_PIVOT_KEYS` rows always take the pairs. The performance
page has the figures.
"""

from __future__ import annotations

import math

import narwhals.stable.v2 as nw
import numpy as np
import pandas as pd

from .._dask._passes import N_BINS, bins_of, unit_spec
from ._frame import collect

BIN = "__skfair_bin"
# the most ranges of bins in pass 2's filter
MAX_RUNS = 32
# pass 2 groups by score alone, a count per key, for at most this many keys
MAX_PIVOT_KEYS = 16
# the rows of pass 2 whose ties decide its grouping (pass2_shape)
PROBE_ROWS = 200_000
# bytes an entry of DuckDB's hash aggregation took in pass 2 (2 threads, 5e6
# distinct points): a (key, score) pair's; a score's, plus a count per key
PAIR_BYTES, PIVOT_BYTES, KEY_BYTES = 81, 60, 16
# the largest |x * 2**s| for which the engine's floor and difference are exact
_EXACT = 2.0**52


def grid_for(low, high, want):
    """The grid of scores in ``[low, high]``: the Dask spec, and the shift ``s``.

    Scores in [0, 1] take the unit grid (bins ``[k/B, (k+1)/B)``, the score
    1 alone in bin ``B``); other ranges an aligned grid of width ``2**-s``
    whose bins ``0 .. B-1`` hold every score (bin ``B`` stays empty).
    """
    if low >= 0.0 and high <= 1.0:
        spec = unit_spec(want)
        spec["shift"], spec["offset"] = 16, 0.0
        return spec
    span = high - low
    shift = 0 if span == 0 else math.floor(math.log2((N_BINS - 1) / span))
    peak = max(abs(low), abs(high), 1e-300)
    shift = min(shift, math.floor(math.log2(_EXACT / peak)))
    while shift > -1000 and (
        math.floor(high * 2.0**shift) - math.floor(low * 2.0**shift) > N_BINS - 1
    ):
        shift -= 1
    offset = float(math.floor(low * 2.0**shift))
    edges = (offset + np.arange(N_BINS + 1, dtype=np.float64)) * 2.0**-shift
    return {
        "grid": "edges",
        "n_bins": N_BINS,
        "edges": edges,
        "want": tuple(want),
        "score": "y_score",
        "shift": shift,
        "offset": offset,
    }


def bin_expr(score, spec):
    """The engine's bin of each score on ``spec``'s grid (an Int64 column)."""
    scaled = (nw.col(score) * 2.0 ** spec["shift"]).floor()
    if spec["offset"]:  # the unit grid needs no clip: its scores are in [0, 1]
        scaled = scaled - spec["offset"]
    return scaled.cast(nw.Int64)


def _right_edge(spec):
    """The right edge of each score's bin, as the engine computes it."""
    step = 2.0 ** -spec["shift"]
    right = (nw.col(BIN) + 1 + spec["offset"]).cast(nw.Float64) * step
    if spec["grid"] == "unit":  # the last bin, the score 1, has width 0
        right = nw.when(nw.col(BIN) == spec["n_bins"]).then(1.0).otherwise(right)
    return right


def histogram_query(columns, spec):
    """Pass 1 as a lazy query: one row per (key row, bin) with ``spec["want"]``."""
    want, score, weight = spec["want"], columns.score, columns.weight
    frame = columns.frame.with_columns(bin_expr(score, spec).alias(BIN))
    aggs = [nw.len().alias("hist")]
    if "whist" in want:
        aggs.append(nw.col(weight).sum().alias("whist"))
    if "dsum" in want or "wdsum" in want:
        frame = frame.with_columns((_right_edge(spec) - nw.col(score)).alias("__d"))
        if "dsum" in want:
            aggs.append(nw.col("__d").sum().alias("dsum"))
        if "wdsum" in want:
            frame = frame.with_columns((nw.col("__d") * nw.col(weight)).alias("__wd"))
            aggs.append(nw.col("__wd").sum().alias("wdsum"))
    if "fmin" in want:
        aggs.append(nw.col(score).min().alias("fmin"))
    if "range" in want:  # of the scores of positive weight, as in memory
        ranged = nw.col(score)
        if weight is not None:
            ranged = nw.when(nw.col(weight) > 0).then(nw.col(score))
        aggs += [ranged.min().alias("__rmin"), ranged.max().alias("__rmax")]
    return frame.group_by(*columns.keys, BIN).agg(*aggs)


def histogram(columns, spec):
    """Pass 1: per distinct sensitive row, the ``(rows, nb)`` arrays of ``want``.

    ``want`` may hold ``"hist"`` (counts), ``"whist"`` (weights),
    ``"dsum"`` / ``"wdsum"`` (sums of ``right_edge - x``, weighted),
    ``"fmin"`` (smallest score) and ``"range"`` (each row's smallest and
    largest score). Returns the summary as the Dask engine's: ``keys``,
    ``table``, ``arrays`` (name to ``(array, how)``), ``n``.
    """
    want = spec["want"]
    out = collect(histogram_query(columns, spec))
    rows, table, keys = encode_keys(out, columns.keys)
    bins = out[BIN].to_numpy(dtype=np.intp)
    nb = spec["n_bins"] + 1
    arrays = {}
    for name, fill, how in (
        ("hist", 0, "add"),
        ("whist", 0.0, "add"),
        ("dsum", 0.0, "add"),
        ("wdsum", 0.0, "add"),
        ("fmin", np.inf, "min"),
    ):
        if name in out.columns:
            dtype = np.int64 if name == "hist" else np.float64
            array = np.full((len(keys), nb), fill, dtype=dtype)
            array[rows, bins] = out[name].to_numpy(dtype=dtype)
            if name == "dsum" or name == "wdsum":
                array[:, -1] = 0.0
            arrays[name] = (array, how)
    arrays["count"] = (arrays["hist"][0].sum(axis=1), "add")
    if "range" in want:
        low = np.full(len(keys), np.inf)
        high = np.full(len(keys), -np.inf)
        found = out["__rmin"].notna().to_numpy()
        rmin = out["__rmin"].to_numpy(dtype=np.float64, na_value=np.inf)
        rmax = out["__rmax"].to_numpy(dtype=np.float64, na_value=-np.inf)
        np.minimum.at(low, rows[found], rmin[found])
        np.maximum.at(high, rows[found], rmax[found])
        arrays["rmin"], arrays["rmax"] = (low, "min"), (high, "max")
    n = int(arrays["count"][0].sum())
    return {"n": n, "keys": keys, "table": table, "arrays": arrays}


def encode_keys(out, names):
    """Row codes of the aggregated rows, the table of distinct keys, their tuples."""
    codes, uniques = [], []
    for name in names:
        c, u = pd.factorize(out[name], sort=False)
        if u.dtype == object and all(isinstance(v, str) for v in u):
            u = u.astype("str")  # an engine's object column of str: pandas' str
        codes.append(np.asarray(c, dtype=np.intp))
        uniques.append(u)
    if len(names) == 1:
        rows, table = codes[0], pd.DataFrame({names[0]: uniques[0]})
    else:
        dims = tuple(max(len(u), 1) for u in uniques)
        flat = np.ravel_multi_index(tuple(codes), dims)
        present, rows = np.unique(flat, return_inverse=True)
        parts = np.unravel_index(present, dims)
        table = pd.DataFrame(
            {name: u.take(idx) for name, u, idx in zip(names, uniques, parts)}
        )
    keys = list(table.itertuples(index=False, name=None))
    return np.asarray(rows, dtype=np.intp).ravel(), table, keys


def bin_runs(needed, max_runs=MAX_RUNS):
    """At most ``max_runs`` closed ranges of bins covering the ``needed`` ones.

    The runs of consecutive needed bins, the shortest gaps between them
    filled until ``max_runs`` remain: a short filter for every engine (a
    list of thousands of literals makes Spark's planner crawl), written on
    the scores themselves (a bin's edges are exact doubles), which engines
    compare cheaply and push down to the files. The client drops the points
    of the filled gaps.
    """
    edges = np.diff(np.r_[0, needed.astype(np.int8), 0])
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    if starts.size > max_runs:
        gaps = starts[1:] - ends[:-1]
        breaks = np.sort(np.argsort(gaps, kind="stable")[gaps.size - max_runs + 1 :])
        starts, ends = starts[np.r_[0, breaks + 1]], ends[np.r_[breaks, ends.size - 1]]
    return list(zip(starts.tolist(), ends.tolist()))


def _score_filter(score, spec, runs):
    """The rows whose score lies in one of the ``runs`` of bins."""
    inside = None
    for lo, hi in runs:  # bins lo..hi hold the scores in [edges[lo], edges[hi + 1])
        term = nw.col(score) >= float(spec["edges"][lo])
        if hi < spec["n_bins"]:
            term = term & (nw.col(score) < float(spec["edges"][hi + 1]))
        inside = term if inside is None else inside | term
    return inside


def _literal(value):
    """A key's value as a Python scalar (narwhals compares with those)."""
    return value.item() if isinstance(value, np.generic) else value


def _pivot_points(columns, frame, keys):
    """Pass 2 grouped by score alone, one count (and weight) column per key.

    Returns ``(values, counts, weights)``: the distinct scores and
    ``(scores, keys)`` matrices. With ties across groups (scores rounded to
    a few decimals, the common case at scale) the engine's hash table holds
    one entry a distinct score instead of one a distinct (key, score) pair:
    a few times less memory (see the module docstring).
    """
    score, weight = columns.score, columns.weight
    marks, aggs = [], []
    for j, key in enumerate(keys):
        match = None
        for name, value in zip(columns.sensitive, key):
            term = nw.col(name) == _literal(value)
            match = term if match is None else match & term
        # elementary aggregations of prepared columns (narwhals' pandas and
        # Dask backends evaluate no conditional inside an aggregation)
        marks.append(nw.when(match).then(nw.col(score)).alias(f"__c{j}"))
        aggs.append(nw.col(f"__c{j}").count().alias(f"__c{j}"))
        if weight is not None:
            marks.append(nw.when(match).then(nw.col(weight)).alias(f"__w{j}"))
            aggs.append(nw.col(f"__w{j}").sum().alias(f"__w{j}"))
    out = collect(frame.with_columns(*marks).group_by(score).agg(*aggs))
    values = out[score].to_numpy(dtype=np.float64)
    counts = np.column_stack(
        [out[f"__c{j}"].to_numpy(dtype=np.int64, na_value=0) for j in range(len(keys))]
    ).reshape(len(values), len(keys))
    weights = None
    if weight is not None:
        weights = np.column_stack(
            [
                out[f"__w{j}"].to_numpy(dtype=np.float64, na_value=0.0)
                for j in range(len(keys))
            ]
        ).reshape(len(values), len(keys))
    return values, counts, weights


def _pair_points(columns, frame, keys):
    """Pass 2 grouped by (sensitive row, score): ``(values, rows, counts, weights)``."""
    score, weight = columns.score, columns.weight
    aggs = [nw.len().alias("__count")]
    if weight is not None:
        aggs.append(nw.col(weight).sum().alias("__weight"))
    out = collect(frame.group_by(*columns.sensitive, score).agg(*aggs))
    index = {key: j for j, key in enumerate(keys)}
    rows = np.zeros(0, dtype=np.intp)
    if len(out):
        local_rows, _, local = encode_keys(out, columns.sensitive)
        table = np.array([index[key] for key in local], dtype=np.intp)
        rows = table[local_rows]
    counts = out["__count"].to_numpy(dtype=np.int64)
    weights = None if weight is None else out["__weight"].to_numpy(dtype=np.float64)
    return out[score].to_numpy(dtype=np.float64), rows, counts, weights


def _occupied(values, rows):
    """Distinct values expected in ``rows`` draws from ``values`` equally likely."""
    return values * -np.expm1(-rows / values)


def _distinct_values(rows, distinct):
    """The number of equally likely values that gives ``distinct`` among ``rows``.

    The inverse of :func:`_occupied` in its first argument (by bisection on
    a log scale); infinite when no two of the rows tie.
    """
    if distinct >= rows:
        return np.inf
    low, high = float(distinct), float(distinct) * 2.0
    while _occupied(high, rows) < distinct:
        low, high = high, high * 2.0
    for _ in range(60):
        mid = np.sqrt(low * high)
        low, high = (mid, high) if _occupied(mid, rows) < distinct else (low, mid)
    return high


def pass2_shape(columns, frame, sizes):
    """``"pivot"`` or ``"pairs"``: the grouping of pass 2 that takes less memory.

    ``frame`` holds the rows of the candidate bins, ``sizes`` each key's
    number of them (from pass 1). A probe of the first :data:`PROBE_ROWS`
    of them counts their distinct scores and distinct (key, score) pairs;
    taking the scores as drawn from ``V`` equally likely values (solved
    from the probe), the whole pass then holds about ``D = V (1 -
    exp(-R / V))`` distinct scores among its ``R`` rows, and ``P``, the same
    sum over the keys, distinct pairs. A pivot entry costs about
    ``PIVOT_BYTES + KEY_BYTES x keys``, a pair's ``PAIR_BYTES`` (DuckDB's
    hash aggregation, measured), so the pivot is taken when ``D`` pivot
    entries cost less than ``P`` pairs. Only the memory depends on the
    choice, never the points; a probe that is not representative (files
    sorted by score) costs memory, not exactness.
    """
    score = columns.score
    probe = collect(
        frame.head(PROBE_ROWS)
        .group_by(*columns.sensitive, score)
        .agg(nw.len().alias("__count"))
    )
    pairs0 = len(probe)
    if pairs0 == 0:
        return "pairs"
    rows0 = int(probe["__count"].sum())
    values = _distinct_values(rows0, int(probe[score].nunique()))
    if not np.isfinite(values):
        return "pairs"
    sizes = np.asarray(sizes, dtype=np.float64)
    distinct = _occupied(values, sizes.sum())
    pairs = _occupied(values, sizes[sizes > 0]).sum()
    cost = PIVOT_BYTES + KEY_BYTES * len(sizes)
    return "pivot" if distinct * cost < pairs * PAIR_BYTES else "pairs"


def candidate_points(columns, spec, needed, summary, shape=None):
    """Pass 2: the distinct (sensitive row, score) pairs of the ``needed`` bins.

    Returns ``(values, rows, counts, weights)`` sorted by score, then row,
    ``rows`` the codes of ``summary["keys"]`` (pass 1's distinct rows),
    ``weights`` the sums of weights (None without a weight column).
    ``shape`` is the engine's grouping: ``"pivot"`` (by score, a count per
    key), ``"pairs"`` (by sensitive row and score), or None: ``"pairs"``
    for more than :data:`MAX_PIVOT_KEYS` keys, else :func:`pass2_shape`'s
    choice. Both give the same points.
    """
    keys = summary["keys"]
    runs = bin_runs(needed)
    if not runs:
        empty = np.zeros(0)
        return (
            empty,
            np.zeros(0, dtype=np.intp),
            np.zeros(0, dtype=np.int64),
            (None if columns.weight is None else empty),
        )
    # on the scores: cheap, and pushed down to the files
    frame = columns.frame.filter(_score_filter(columns.score, spec, runs))
    if shape is None and len(keys) > MAX_PIVOT_KEYS:
        shape = "pairs"
    elif shape is None:
        sizes = summary["arrays"]["hist"][0][:, needed].sum(axis=1)
        shape = pass2_shape(columns, frame, sizes)
    if shape == "pivot":
        values, counts, weights = _pivot_points(columns, frame, keys)
        keep = needed[bins_of(values, spec)]
        order = np.argsort(values[keep], kind="stable")
        values, counts = values[keep][order], counts[keep][order]
        at, rows = np.nonzero(counts)  # by score, then key: sorted
        return (
            values[at],
            rows.astype(np.intp),
            counts[at, rows],
            None if weights is None else weights[keep][order][at, rows],
        )
    values, rows, counts, weights = _pair_points(columns, frame, keys)
    keep = needed[bins_of(values, spec)]
    values, rows, counts = values[keep], rows[keep], counts[keep]
    order = np.lexsort((rows, values))
    return (
        values[order],
        rows[order],
        counts[order],
        None if weights is None else weights[keep][order],
    )


def per_row(columns, sums):
    """Per distinct key row (sensitive row and labels): the named sums.

    ``sums`` maps output names to per-row narwhals expressions, each made a
    column first and summed per key (elementary aggregations: narwhals' Dask
    backend refuses others); returns ``(table, values)`` with ``values`` a
    dict of arrays in table order and ``"__count"`` the rows of each key.
    """
    frame = columns.frame
    if sums:  # prefixed: no clash with the columns of the frame
        frame = frame.with_columns(*(e.alias(f"__sum_{n}") for n, e in sums.items()))
    exprs = [nw.len().alias("__count")]
    exprs += [nw.col(f"__sum_{n}").sum().alias(n) for n in sums]
    out = collect(frame.group_by(*columns.keys).agg(*exprs))
    rows, table, _ = encode_keys(out, columns.keys)
    order = np.argsort(rows, kind="stable")
    values = {
        name: out[name].to_numpy(dtype=np.float64)[order] for name in ["__count", *sums]
    }
    return table, values
