"""The stratified bootstrap of several metrics, and of the bands, on shared resamples.

scipy draws the resamples of the sample indices (:func:`scipy.stats.bootstrap`,
each cell of the sensitive attributes resampled on its own, and
:func:`scipy.stats.permutation_test` for the permutations, ``_permutation``);
:func:`resampled_statistic` turns each row of indices into weights
(bootstrap) or cells (permutation) along the once-sorted scores and
evaluates every spec there (:class:`~._sorted.SharedSort`). The band maxima
are drawn on the same resamples.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy import stats

from .._kernels import DegenerateGroupError
from ._threads import map_chunks, map_ordered

# Rows (resamples x samples) that one batch of scipy resampling may hold.
_BATCH_CELLS = 4_000_000


def batch_size(n_samples):
    """Resamples per scipy batch for ``n_samples`` samples."""
    return max(1, _BATCH_CELLS // max(n_samples, 1))


def _rows(samples):
    """Broadcast scipy's resampled samples and stack them: (n_rows, n_total)."""
    samples = [np.asarray(s) for s in samples]
    lead = np.broadcast_shapes(*(s.shape[:-1] for s in samples))
    flat = [
        np.broadcast_to(s, lead + s.shape[-1:]).reshape(-1, s.shape[-1])
        for s in samples
    ]
    return lead, flat


def _bootstrap_row(shared, idx):
    """Weights along the sorted scores of a resample ``idx``, cells unchanged."""
    pos = shared.rank[idx]
    w = shared.w_sorted
    w_pos = np.bincount(
        pos, weights=None if w is None else w[pos], minlength=shared.n
    ).astype(np.float64)
    return shared.cell_sorted[pos], w_pos, shared.cell_sorted


def _permutation_row(shared, sizes, fixed, idx):
    """Cells along the sorted scores of a permutation ``idx``, weights unchanged.

    ``idx`` holds the permuted cells' samples (``sizes`` of each, in
    ``shared.permuted_cells`` order), then the ``fixed`` samples.
    """
    cell_of_idx = np.repeat(shared.permuted_cells, sizes)
    if fixed.size:
        cell_of_idx = np.concatenate(
            (cell_of_idx, shared.cell_sorted[shared.rank[fixed]])
        )
    cell_pos = np.empty(shared.n, dtype=np.intp)
    cell_pos[shared.rank[idx]] = cell_of_idx
    w_pos = np.ones(shared.n) if shared.w_sorted is None else shared.w_sorted
    return cell_of_idx, w_pos, cell_pos


def _metric_or_nan(shared, idx, cell_of_idx, spec):
    """The public metric on a resample, NaN where it is undefined (ABPC, no spread)."""
    try:
        return shared.direct(idx, cell_of_idx, spec)
    except DegenerateGroupError:
        return np.nan


def _row_values(shared, specs, kind, fixed, sizes, idx, force_direct):
    """Every spec on one resample.

    ``idx`` holds the resample's samples (``sizes`` of each moved cell), then
    the ``fixed`` samples.
    """
    if kind == "bootstrap":
        cell_of_idx, w_pos, cell_pos = _bootstrap_row(shared, idx)
    else:
        cell_of_idx, w_pos, cell_pos = _permutation_row(shared, sizes, fixed, idx)
    if force_direct:
        return [_metric_or_nan(shared, idx, cell_of_idx, spec) for spec in specs]
    out = shared.values(w_pos, cell_pos, specs)
    for j, spec in enumerate(specs):
        if out[j] is None and kind == "permutation":
            try:
                out[j] = shared.abpc(w_pos, cell_pos, spec)
            except DegenerateGroupError:
                out[j] = np.nan
        if out[j] is None:
            out[j] = _metric_or_nan(shared, idx, cell_of_idx, spec)
    return out


def resampled_statistic(shared, specs, kind, fixed, force_direct=False, progress=None):
    """The vectorised statistic given to scipy (samples are index arrays).

    ``kind`` is "bootstrap" (resamples within cells; output (n_specs, n_rows))
    or "permutation" (cells relabelled; output (n_rows, n_specs)), the layouts
    scipy expects; with a single spec the output is (n_rows,). ``fixed``
    samples are in every row; ``force_direct`` evaluates every spec by the
    public function (an oracle in tests). The rows of a call are shared
    among the threads (:func:`~._threads.map_chunks`); ``progress``, if
    given, is called with the number of rows of each call once it is done.
    """

    def statistic(*samples, axis=-1):
        lead, flat = _rows(samples)
        n_rows = flat[0].shape[0]
        tail = [fixed] if fixed.size else []
        sizes = [f.shape[1] for f in flat]

        def rows(part):
            values = []
            for r in range(part.start, part.stop):
                idx = np.concatenate([f[r] for f in flat] + tail)
                values.append(
                    _row_values(shared, specs, kind, fixed, sizes, idx, force_direct)
                )
            return values

        out = np.array(
            [v for part in map_chunks(rows, n_rows) for v in part], dtype=np.float64
        ).T.reshape((len(specs), n_rows))
        if progress is not None:
            progress(n_rows)
        if len(specs) == 1:
            return out[0].reshape(lead)
        out = out.reshape((len(specs),) + lead)
        return out if kind == "bootstrap" else np.moveaxis(out, 0, -1)

    return statistic


def _strata(shared):
    """The cells scipy resamples, and the samples that stay fixed.

    scipy needs two observations per sample; a one-sample cell is constant,
    and a cell left out of every comparison (min_group_size) is not resampled.
    """
    unused = set(shared.unused_cells.tolist())
    moved = [m.shape[0] >= 2 and c not in unused for c, m in enumerate(shared.members)]
    data = tuple(m for m, mv in zip(shared.members, moved) if mv)
    fixed = np.concatenate(
        [m for m, mv in zip(shared.members, moved) if not mv] + [np.empty(0, np.intp)]
    ).astype(np.intp)
    if not data:  # every cell has one sample: resamples equal the data
        data, fixed = (fixed,), np.empty(0, np.intp)
    return data, fixed


def _resample_weights(shared, flat, fixed):
    """Bootstrap counts (times sample weights) along the sorted scores, per row."""
    n_rows = flat[0].shape[0]
    parts = flat + (
        [np.broadcast_to(fixed, (n_rows, fixed.size))] if fixed.size else []
    )
    pos = shared.rank[np.concatenate(parts, axis=1)]
    pos += (np.arange(n_rows) * shared.n)[:, None]
    counts = np.bincount(pos.ravel(), minlength=n_rows * shared.n)
    w = counts.reshape(n_rows, shared.n).astype(np.float64)
    return w if shared.w_sorted is None else w * shared.w_sorted


def _bootstrap_statistic(shared, specs, fixed, band, progress=None):
    """The metrics (``specs``) and the band maxima of each resample, for scipy.

    ``progress``, if given, is called with the number of resamples of each
    call once they are evaluated.
    """
    values = resampled_statistic(shared, specs, "bootstrap", fixed) if specs else None

    def statistic(*samples, axis=-1):
        lead, flat = _rows(samples)
        out = []
        if values is not None:
            out.append(np.asarray(values(*samples)).reshape(len(specs), -1))
        if band is not None:
            w_rows = _resample_weights(shared, flat, fixed)
            out.append(band.studentised_maxima(w_rows))
        out = np.concatenate(out).reshape((-1,) + lead)
        if progress is not None:
            progress(int(np.prod(lead)))
        return out[0] if out.shape[0] == 1 else out

    return statistic


class Draws(NamedTuple):
    """What :func:`bootstrap_draws` returns.

    ``low``, ``high``, ``se``: scipy's interval and standard error of each
    spec (NaN where a resample leaves the metric undefined); ``values``:
    their bootstrap distributions (n_specs, n_resamples); ``maxima``: the
    band norms' studentised maxima (n_norms, n_resamples) or None.
    """

    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    values: np.ndarray
    maxima: np.ndarray | None


def bootstrap_draws(
    shared,
    specs,
    *,
    confidence_level,
    n_resamples,
    bootstrap_method,
    rng,
    band=None,
    progress=None,
):
    """The stratified bootstrap of several metrics (and bands) on shared resamples.

    Each group is resampled on its own (:func:`scipy.stats.bootstrap`); a
    resample reweights the once-sorted scores.

    Parameters
    ----------
    shared : SharedSort
        From :func:`~skfair.metrics.inference.shared_sort`.
    specs : list
        The metrics bootstrapped (may be empty when ``band`` is given).
    confidence_level : float
    n_resamples : int
    bootstrap_method : {"basic", "percentile", "BCa"}
        scipy's interval type of the metrics.
    rng : numpy.random.Generator
    band : BandData or None, default=None
        From :func:`~skfair.metrics.inference.interval_band`: its studentised
        maxima are drawn on the same resamples.
    progress : callable or None, default=None
        Called with the number of resamples of each batch once evaluated.

    Returns
    -------
    draws : Draws
        ``low``, ``high``, ``se``: each spec's interval and standard error
        (NaN where a resample leaves the metric undefined); ``values``: the
        bootstrap distributions (n_specs, n_resamples); ``maxima``: the band
        norms' studentised maxima (n_norms, n_resamples), or None.
    """
    data, fixed = _strata(shared)
    batch = batch_size(shared.n)
    if band is not None:
        n_groups = sum(g.n_groups for g in shared.groupings)
        batch = max(1, _BATCH_CELLS // (shared.n + n_groups * band.row_width))
    with warnings.catch_warnings():
        # NaN resamples (ABPC undefined) give NaN bounds, reported as such
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap(
            data,
            _bootstrap_statistic(shared, specs, fixed, band, progress),
            n_resamples=n_resamples,
            batch=batch,
            vectorized=True,
            paired=False,
            confidence_level=confidence_level,
            method=bootstrap_method if specs else "percentile",
            rng=rng,
        )
    k = len(specs)
    distribution = np.atleast_2d(res.bootstrap_distribution)
    undefined = np.isnan(distribution[:k]).any(axis=-1)
    low = np.where(undefined, np.nan, np.atleast_1d(res.confidence_interval.low)[:k])
    high = np.where(undefined, np.nan, np.atleast_1d(res.confidence_interval.high)[:k])
    se = np.where(undefined, np.nan, np.atleast_1d(res.standard_error)[:k])
    maxima = distribution[k:] if band is not None else None
    return Draws(low, high, se, distribution[:k], maxima)


def band_maxima(shared, band, n_resamples, rng, progress=None):
    """The bootstrap distribution of the band norms' studentised maxima.

    :func:`bootstrap_draws` of the band alone (n_norms, n_resamples): the
    same resamples, drawn in the same order and batches as
    :func:`scipy.stats.bootstrap` draws them (each cell's indices by
    ``rng.integers``, batch by batch), so the numbers are scipy's; the
    batches are evaluated two at a time on the threads. ``progress``: as
    for :func:`bootstrap_draws`.
    """
    return class_band_maxima([shared], [band], n_resamples, rng, progress)


def class_band_maxima(shareds, bands, n_resamples, rng, progress=None):
    """:func:`band_maxima` of several sorts of the same cells, on shared resamples.

    For class probabilities: one :class:`SharedSort` and band per class,
    whose cells (the groups' rows) are the same. Each resample's rows are
    drawn once, within the cells, and read along every class's sort; the
    maxima are the largest over the classes (n_norms, n_resamples). With one
    class it is :func:`band_maxima`.
    """
    first = shareds[0]
    data, fixed = _strata(first)
    n_groups = sum(g.n_groups for g in first.groupings)
    cells = sum(first.n + n_groups * band.row_width for band in bands)
    batch = max(1, _BATCH_CELLS // cells)
    # scipy's batches: each cell's resampled indices, in this order
    draws = (
        [
            cell[
                rng.integers(
                    0, cell.shape[0], (min(batch, n_resamples - k), cell.shape[0])
                )
            ]
            for cell in data
        ]
        for k in range(0, n_resamples, batch)
    )

    def evaluate(flat):
        maxima = [
            band.studentised_maxima(_resample_weights(shared, flat, fixed))
            for shared, band in zip(shareds, bands)
        ]
        return maxima[0] if len(maxima) == 1 else np.max(np.stack(maxima), axis=0)

    out = []
    for maxima in map_ordered(evaluate, draws):
        out.append(maxima)
        if progress is not None:
            progress(maxima.shape[1])
    return np.concatenate(out, axis=1)
