"""The barycentre engine: group quantile tables and the transport onto their mean.

Shared by the post-processors that map every group's score distribution onto
the groups' common 1-D Wasserstein barycentre. A group's distribution is
stored as its quantile function at evenly spaced levels (a *table*); its CDF
is the table's piecewise-linear inverse, with a jump at every value repeated
in the table (an atom). The barycentre's quantile function is the weighted
mean of the groups' tables. A score is transported by reading its level in
its group's CDF (a point of the jump, for an atom) and the barycentre's
quantile at that level.

The tables hold values on the real line, in the scores' own units (a
probability, a decision value, a regressor's prediction): nothing here
assumes [0, 1]. Where in an atom's jump a score lands is a *level* in
[0, 1], so the tie-breaking needs no scale of the scores. It is the limit
of the small uniform noise that Chzhen et al. (2020, Algorithm 1) add to
every prediction: noise narrower than the gap between distinct values
spreads an atom evenly over its jump, whatever its width in the scores'
units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from ..utils._dataframe import as_pandas_frame


def _weighted_quantiles(values, weights, levels):
    """Quantile function of a weighted sample at ``levels``.

    Weights are frequencies: a sample of weight ``w`` holds the mass interval
    ``[a, b]`` of the cumulative weight (divided by the total ``W``). It is
    placed at the points ``a + h`` and ``b - h`` with ``h = min(w, 1) / 2W``,
    a plateau as wide as that of ``w`` repeated samples when ``w`` is an
    integer, and the single Hazen plotting position ``(i - 0.5) / n`` of the
    i-th smallest of ``n`` unit-weight samples. The quantile function
    interpolates linearly between these points and is constant below the
    first and above the last. Samples of zero weight are ignored.
    """
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    upper = np.cumsum(weights)
    total = upper[-1]
    half = 0.5 * np.minimum(weights, 1.0)
    positions = np.column_stack([upper - weights + half, upper - half]) / total
    return np.interp(levels, positions.ravel(), np.repeat(values, 2))


def _cdf_bounds(table, levels, scores):
    """Left and right limits of the CDF whose quantile function is ``table``.

    ``table`` holds the (non-decreasing) quantiles at ``levels``. Between two
    distinct table values the CDF is the linear interpolation of the levels;
    a value repeated in the table is an atom, whose CDF jumps from the first
    to the last of its levels. Below ``table[0]`` the CDF is 0, above
    ``table[-1]`` it is 1. O(n log m) for n scores and m levels.
    """
    lo = np.searchsorted(table, scores, side="left")
    first = np.minimum(lo, table.shape[0] - 1)
    atom = table[first] == scores  # the score equals table[lo:hi]
    # elsewhere strictly between two distinct table values, or outside
    value = np.interp(scores, table, levels, left=0.0, right=1.0)
    left = np.where(atom, levels[first], value)
    right = value.copy()
    hi = np.searchsorted(table, scores[atom], side="right")  # atoms only
    right[atom] = levels[hi - 1]
    return left, right


def _sparse_row_hashes(X):
    """A 64-bit hash of each row of a sparse matrix, from its non-zero entries.

    Each stored non-zero ``(column, value)`` is hashed and a row's hashes are
    summed (modulo 2**64), so the result depends on the row's values alone,
    not on how they are stored (order, duplicates, explicit zeros).
    """
    csr = sparse.csr_array(X, dtype=np.float64, copy=True)
    csr.sum_duplicates()
    csr.eliminate_zeros()
    columns = pd.util.hash_array(csr.indices.astype(np.int64))
    values = pd.util.hash_array(csr.data + 0.0)  # -0.0 and 0.0 alike
    entries = columns * np.uint64(0x9E3779B97F4A7C15) ^ values
    cumulative = np.concatenate([[np.uint64(0)], np.cumsum(entries, dtype=np.uint64)])
    row_sums = cumulative[csr.indptr[1:]] - cumulative[csr.indptr[:-1]]
    return row_sums + np.uint64(0x632BE59BD9B4E019)  # an empty row is not 0


def _row_uniforms(X, seed):
    """Deterministic pseudo-random numbers in [0, 1), one per row of ``X``.

    pandas' hash of each row's values (of its non-zero entries for a sparse
    matrix), mixed with ``seed`` by the SplitMix64 finaliser: the same row
    always gets the same number, whichever other rows are predicted with it
    and in whichever order.
    """
    z = _sparse_row_hashes(X) if sparse.issparse(X) else _dense_row_hashes(X)
    z = z + np.full_like(z, seed) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _dense_row_hashes(X):
    """The 64-bit pandas hash of each row of an array or dataframe."""
    frame = as_pandas_frame(X)  # a dataframe of any library, or an array
    # One dtype per column whatever the other rows: a polars integer (boolean)
    # column reaches pandas as float (object) in a batch with a null, else as
    # int (bool), and the two hash differently; hash integers as floats and
    # booleans as objects.
    stable = {
        name: np.float64 if pd.api.types.is_integer_dtype(dtype) else object
        for name, dtype in frame.dtypes.items()
        if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
    }
    frame = frame.astype(stable) if stable else frame
    return pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)


@dataclass(frozen=True)
class QuantileTables:
    """Every group's quantile table, the pooled one and their barycentre.

    Attributes
    ----------
    groups : ndarray of int
        The codes of the groups with a table (those of positive weight), in
        the order of the rows of ``tables``.
    weights : ndarray of shape (n_tables,)
        The groups' (weighted) proportions, summing to 1.
    levels : ndarray of shape (n_quantiles,)
        The levels at which every table holds its quantiles.
    tables : ndarray of shape (n_tables, n_quantiles)
        Every group's (smoothed) quantile function.
    pooled : ndarray of shape (n_quantiles,)
        The quantile function of all the scores pooled.
    barycentre : ndarray of shape (n_quantiles,)
        The barycentric quantile function ``weights @ tables``.
    """

    groups: np.ndarray
    weights: np.ndarray
    levels: np.ndarray
    tables: np.ndarray
    pooled: np.ndarray
    barycentre: np.ndarray


def fit_quantile_tables(scores, codes, *, n_groups, weights, n_quantiles, smoothing):
    """Estimate every group's quantile table and their barycentre.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        The scores whose group-wise distributions are estimated.
    codes : ndarray of int of shape (n_samples,)
        Each sample's group, in ``range(n_groups)``; a negative code (a group
        left out) counts in the pooled table only.
    n_groups : int
        Number of group codes.
    weights : ndarray of shape (n_samples,)
        Frequency weights; a group whose samples all weigh 0 gets no table.
    n_quantiles : int
        Number of levels, evenly spaced on [0, 1].
    smoothing : float
        Pseudo-count of the pooled distribution mixed into every group's.

    Returns
    -------
    tables : QuantileTables
    """
    levels = np.linspace(0.0, 1.0, n_quantiles)
    kept = codes >= 0
    sizes = np.bincount(codes[kept], weights=weights[kept], minlength=n_groups)
    present = np.flatnonzero(sizes > 0)
    # One O(N log N) sort: every later (stable) sort then meets sorted runs,
    # which timsort merges in linear time, and the ties keep their order
    # (which matters only between ties of different weights).
    equal = weights.size == 0 or np.all(weights == weights[0])
    order = np.argsort(scores, kind=None if equal else "stable")
    scores, codes, weights = scores[order], codes[order], weights[order]
    pooled = _weighted_quantiles(scores, weights, levels)
    # the pooled table as pseudo-samples: one per level, `smoothing` in all
    # (with smoothing=0 their weight is 0 and _weighted_quantiles drops them)
    prior_weights = np.full(n_quantiles, smoothing / n_quantiles)
    tables = np.vstack(
        [
            _weighted_quantiles(
                np.concatenate([scores[codes == g], pooled]),
                np.concatenate([weights[codes == g], prior_weights]),
                levels,
            )
            for g in present
        ]
    )
    proportions = sizes[present] / sizes[present].sum()
    return QuantileTables(
        groups=present,
        weights=proportions,
        levels=levels,
        tables=tables,
        pooled=pooled,
        barycentre=proportions @ tables,
    )


def transport(scores, table_index, *, tables, levels, barycentre, jitter):
    """Map every score through its group's CDF onto the barycentre.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        The scores to transport.
    table_index : ndarray of int of shape (n_samples,)
        The row of ``tables`` holding each score's group; a negative index
        leaves the score where it is.
    tables : sequence of ndarray of shape (n_quantiles,)
        The quantile tables.
    levels : ndarray of shape (n_quantiles,)
        The tables' levels.
    barycentre : ndarray of shape (n_quantiles,)
        The barycentric quantile function.
    jitter : ndarray of shape (n_samples,)
        Where in ``[F(s-), F(s)]`` a score on an atom of its group's CDF is
        placed (0: the bottom of the jump, 1: its top); no effect elsewhere.

    Returns
    -------
    transported : ndarray of shape (n_samples,)
        ``Q̄(F_g(s))``, or ``s`` where ``table_index`` is negative.
    """
    mapped = table_index >= 0
    at = np.zeros_like(scores)
    for k in np.unique(table_index[mapped]):
        rows = table_index == k
        left, right = _cdf_bounds(tables[k], levels, scores[rows])
        at[rows] = left + jitter[rows] * (right - left)
    return np.where(mapped, np.interp(at, levels, barycentre), scores)
