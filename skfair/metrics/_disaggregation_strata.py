"""The cells of a :class:`~skfair.metrics.GroupMetricFrame`, and its metrics on them.

A *cell* is one observed combination of the control and sensitive labels.
The frame's table has one row per combination of every grouping column's
labels (``C * G`` rows, control-major: ``C`` control combinations times
``G`` sensitive combinations), as fairlearn's ``MetricFrame`` builds it;
cells are the rows that hold samples. Each sample carries its cell's code
(cells are numbered in table order), so:

* the rate metrics of ``_group_counts.py`` come from one ``np.bincount``
  over ``(cell, truth, pred)``, and the overall value of each control level
  is the sum of its cells' counts;
* any other metric is called once per cell on a slice of the samples sorted
  by cell (a control level's samples are contiguous, so its overall value
  is one more call);
* a stratified bootstrap resamples within cells: a multinomial draw of each
  cell's counts (unweighted rate metrics: no pass over the samples), or row
  indices drawn within each cell's slice (weighted rates, other metrics).
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ..utils._groups import drop_small_groups
from ._group_counts import (
    ConfusionCounts,
    RateMetric,
    confusion_counts,
    warn_undefined,
    weight_scale,
)

ZERO_DIVISION_WARNING = (
    "{metric} is ill-defined for {n_groups} group(s) ({groups}): no sample with "
    "{condition}; as scikit-learn's zero_division='warn', their value is 0.0 and "
    "counts in a difference or ratio. Pass functools.partial(<the "
    "sklearn.metrics function>, zero_division=np.nan) to leave them out, or "
    "zero_division=0.0 to silence this warning."
)

LAZY_RESAMPLE_ERROR = (
    "The bootstrap of the weighted metrics {names} resamples rows, and a "
    "GroupMetricFrame of a lazy frame holds only the engine's counts per "
    "group and label. Use interval='wilson' or 'newcombe' (their proportions "
    "take Kish's effective size from the engine's sums of squared weights), "
    "or collect the columns first and pass the eager frame as data=."
)


@dataclass(frozen=True)
class FrameMetric:
    """One metric of a frame: a rate of the confusion counts, or a callable.

    Attributes
    ----------
    name : str
        Its column in the frame's tables.
    rate : RateMetric or None
        The rate, computed from the counts; None for a callable.
    func : callable or None
        ``func(y_true, y_pred, **params)``, called per cell.
    params : dict
        Sample parameters (arrays of ``n_samples`` rows) passed to ``func``.
    weights : ndarray or None
        A rate's validated ``sample_weight``.
    zero_division : {"warn"} or float or None, default=None
        A rate's value where it is undefined: None is skfair's NaN (with an
        ``UndefinedMetricWarning`` naming the groups); otherwise
        scikit-learn's ``zero_division`` ("warn": 0.0 with a warning).
    pos_label : object or None, default=None
        A rate's positive class when it is its own (a scikit-learn function's
        ``pos_label``); None is the frame's.
    indicators : tuple of two ndarray or None, default=None
        A rate's ``(y_true == pos_label, y_pred == pos_label)``, set once the
        labels are checked.
    """

    name: str
    rate: RateMetric | None = None
    func: object = None
    params: dict = field(default_factory=dict)
    weights: np.ndarray | None = None
    zero_division: object = None
    pos_label: object = None
    indicators: tuple | None = None

    @property
    def by_counts(self):
        """Whether the metric comes from the confusion counts."""
        return self.rate is not None

    @property
    def bounded(self):
        """Whether the metric's values lie in [0, 1] (every rate but count)."""
        return self.rate is not None and self.rate.name != "count"

    def values(self, counts, unit=1.0):
        """The rate of every row of ``counts``, ``zero_division`` where undefined."""
        values = self.rate.value(counts, unit)
        if self.zero_division is None:
            return values
        fill = 0.0 if self.zero_division == "warn" else float(self.zero_division)
        return np.where(self.rate.undefined(counts), fill, values)

    def warn_undefined(self, counts, labels, *, stacklevel):
        """Name the groups whose rate is undefined (skfair's or scikit-learn's way)."""
        if self.zero_division is None:
            warn_undefined(
                self.rate, counts, labels, name=self.name, stacklevel=stacklevel + 1
            )
            return
        undefined = np.flatnonzero(self.rate.undefined(counts))
        if self.zero_division != "warn" or undefined.size == 0:
            return  # a zero_division value chosen by the caller is silent
        shown = ", ".join(repr(labels[k]) for k in undefined[:10])
        if undefined.size > 10:
            shown += f", ... ({undefined.size - 10} more)"
        warnings.warn(
            ZERO_DIVISION_WARNING.format(
                metric=self.name,
                n_groups=undefined.size,
                groups=shown,
                condition=self.rate.condition,
            ),
            UndefinedMetricWarning,
            stacklevel=stacklevel + 1,
        )


@dataclass(frozen=True, eq=False)
class Strata:
    """Samples partitioned into cells (compared by identity).

    Attributes
    ----------
    codes : ndarray of shape (n_samples,)
        Cell of every sample, in ``range(n_cells)``.
    position : ndarray of shape (n_cells,)
        Row of each cell in the ``C * G`` table.
    kept : ndarray of shape (n_cells,), dtype bool
        False for the cells left out by ``min_group_size`` (they still count
        in the overall values).
    n_control, n_sensitive : int
        ``C`` and ``G``.
    multiplicity : ndarray of shape (n_samples,) or None, default=None
        The number of samples each row stands for (a lazy frame's distinct
        rows); None: one each.
    """

    codes: np.ndarray
    position: np.ndarray
    kept: np.ndarray
    n_control: int
    n_sensitive: int
    multiplicity: np.ndarray | None = None

    @property
    def n_cells(self):
        """Number of cells with samples."""
        return self.position.shape[0]

    @property
    def control(self):
        """The control level (``range(C)``) of each cell."""
        return self.position // self.n_sensitive

    def sizes(self):
        """Samples per cell."""
        return np.bincount(self.codes, minlength=self.n_cells)

    @cached_property
    def order(self):
        """Sample indices sorted by cell (a radix sort for up to 65536 cells)."""
        codes = self.codes
        if self.n_cells <= np.iinfo(np.uint16).max:
            codes = codes.astype(np.uint16)
        return np.argsort(codes, kind="stable")

    @cached_property
    def bounds(self):
        """Slice bounds of every cell in :attr:`order`."""
        return np.concatenate([[0], np.cumsum(self.sizes())])

    def control_bounds(self):
        """Slice bounds (in cell-sorted order) of every control level's samples."""
        ends = np.searchsorted(self.control, np.arange(self.n_control + 1))
        return self.bounds[ends]

    def one_hot_control(self):
        """``(n_cells, C)`` indicator of each cell's control level."""
        out = np.zeros((self.n_cells, self.n_control))
        out[np.arange(self.n_cells), self.control] = 1.0
        return out


def make_strata(
    code_columns, dims, n_control, labels, min_group_size, *, name, multiplicity=None
):
    """The :class:`Strata` of the grouping columns (control first), with the rule.

    ``labels(position)`` gives a cell's label for the small-group warning
    (``min_group_size=None``); ``stacklevel`` points at the frame's caller.
    With ``multiplicity`` (rows standing for several samples), the rule
    applies to the cells' numbers of samples.
    """
    if len(code_columns) == 1:
        flat = code_columns[0]
    else:
        flat = np.ravel_multi_index(tuple(code_columns), dims)
    position, codes = _encode_cells(flat, int(np.prod(dims)))
    sizes = np.bincount(codes, minlength=position.shape[0])
    if multiplicity is not None:
        sizes = np.bincount(codes, weights=multiplicity, minlength=position.shape[0])
        sizes = np.rint(sizes).astype(np.int64)
    cell_labels = [labels(p) for p in position]
    renumbered, _ = drop_small_groups(
        np.arange(position.shape[0]),
        cell_labels,
        sizes,
        min_group_size,
        name=name,
        stacklevel=4,
    )
    n_sensitive = int(np.prod(dims)) // n_control
    return Strata(
        codes, position, renumbered >= 0, n_control, n_sensitive, multiplicity
    )


def _encode_cells(flat, n_rows):
    """The table rows holding samples, and each sample's cell, in linear time."""
    if n_rows > 4 * flat.shape[0] + 1024:  # too sparse for a table
        position, codes = np.unique(flat, return_inverse=True)
        return position, codes.astype(np.intp).ravel()
    position = np.flatnonzero(np.bincount(flat, minlength=n_rows))
    table = np.zeros(n_rows, dtype=np.intp)
    table[position] = np.arange(position.shape[0])
    return position, table[flat]


@dataclass(frozen=True, eq=False)
class Samples:
    """What the called metrics read, per sample: the labels.

    The rates read their own :attr:`FrameMetric.indicators`.
    """

    y_true: np.ndarray
    y_pred: np.ndarray


def point_counts(metric, strata):
    """A rate's :class:`ConfusionCounts` per cell and per control level."""
    truth, pred = metric.indicators
    cells = confusion_counts(
        truth,
        pred,
        strata.codes,
        n_groups=strata.n_cells,
        weights=metric.weights,
        rows=strata.multiplicity,
    )
    return cells, cells.summed(strata.control, strata.n_control)


def call_per_cell(metric, samples, strata, rows):
    """``metric.func`` on every kept cell and control level of ``rows``.

    ``rows`` holds sample indices in cell-sorted order (the identity sort,
    or a stratified resample): cell ``k`` occupies ``bounds[k]:bounds[k+1]``.
    Returns object arrays of shape ``(n_cells,)`` and ``(C,)`` (None where
    there is nothing to compute).
    """
    by_cell = np.full(strata.n_cells, None, dtype=object)
    for k in np.flatnonzero(strata.kept):
        by_cell[k] = _call(
            metric, samples, rows[strata.bounds[k] : strata.bounds[k + 1]]
        )
    limits = strata.control_bounds()
    overall = np.full(strata.n_control, None, dtype=object)
    for c in range(strata.n_control):
        if limits[c + 1] > limits[c]:
            overall[c] = _call(metric, samples, rows[limits[c] : limits[c + 1]])
    return by_cell, overall


def _call(metric, samples, rows):
    params = {key: value[rows] for key, value in metric.params.items()}
    return metric.func(samples.y_true[rows], samples.y_pred[rows], **params)


def as_float(values):
    """``values`` as floats; None and non-scalar values become NaN."""
    out = np.full(values.shape, np.nan)
    for k, value in np.ndenumerate(values):
        if value is not None and np.ndim(value) == 0:
            with contextlib.suppress(TypeError, ValueError):  # stays NaN
                out[k] = float(value)
    return out


def resample_rows(samples, strata, rng):
    """One stratified bootstrap resample: row indices in cell-sorted order."""
    sizes = np.diff(strata.bounds)
    cell = np.repeat(np.arange(strata.n_cells), sizes)
    offsets = (rng.random(cell.shape[0]) * sizes[cell]).astype(np.intp)
    return strata.order[strata.bounds[:-1][cell] + offsets]


def bootstrap(metrics, samples, strata, n_resamples, rng):
    """Stratified bootstrap values: ``(B, n_cells, M)`` and ``(B, C, M)``.

    Unweighted rates share one multinomial draw of every cell's counts; the
    other metrics share row resamples (one pass over the samples each), whose
    warnings (a class missing from a resampled group, ...) are silenced.
    """
    n_cells, n_control, n_metrics = strata.n_cells, strata.n_control, len(metrics)
    by_cell = np.full((n_resamples, n_cells, n_metrics), np.nan)
    overall = np.full((n_resamples, n_control, n_metrics), np.nan)
    multinomial = [m for m, metric in enumerate(metrics) if _multinomial(metric)]
    by_labels = {}  # one multinomial draw per set of indicators
    for m in multinomial:
        by_labels.setdefault(id(metrics[m].indicators[0]), []).append(m)
    for shared in by_labels.values():
        truth, pred = metrics[shared[0]].indicators
        rows = confusion_counts(
            truth, pred, strata.codes, n_cells, rows=strata.multiplicity
        ).rows
        sizes = rows.sum(axis=1).astype(np.int64)
        draws = rng.multinomial(
            sizes, rows / sizes[:, None], size=(n_resamples, n_cells)
        )
        summed = np.einsum("bsk,sc->bck", draws, strata.one_hot_control())
        for m in shared:
            by_cell[:, :, m] = metrics[m].values(draws)
            overall[:, :, m] = metrics[m].values(summed)
    others = [m for m in range(n_metrics) if m not in multinomial]
    if not others:
        return by_cell, overall
    if strata.multiplicity is not None:
        names = [metrics[m].name for m in others]
        raise ValueError(LAZY_RESAMPLE_ERROR.format(names=names))
    with warnings.catch_warnings():  # the point estimates have warned already
        warnings.simplefilter("ignore")
        for b in range(n_resamples):
            rows = resample_rows(samples, strata, rng)
            for m in others:
                cells, levels = _resampled_values(metrics[m], samples, strata, rows)
                by_cell[b, :, m], overall[b, :, m] = cells, levels
    return by_cell, overall


def _multinomial(metric):
    return metric.by_counts and metric.weights is None


def _resampled_values(metric, samples, strata, rows):
    if not metric.by_counts:
        cells, levels = call_per_cell(metric, samples, strata, rows)
        return as_float(cells), as_float(levels)
    truth, pred = metric.indicators
    key = strata.codes[rows] * 4 + truth[rows] * 2 + pred[rows]
    unit = weight_scale(metric.weights.max())
    weights = metric.weights[rows] / unit  # exact; no overflow
    size = 4 * strata.n_cells
    weighted = np.bincount(key, weights=weights, minlength=size).reshape(-1, 4)
    counts = ConfusionCounts(weighted, None, weighted)
    levels = counts.summed(strata.control, strata.n_control).weighted
    return metric.values(weighted, unit), metric.values(levels, unit)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """A frame's metrics on its cells and control levels (``M`` metrics).

    Attributes
    ----------
    metrics : tuple of FrameMetric
    strata : Strata
    samples : Samples
    raw_cells, raw_levels : ndarray of object, shapes (n_cells, M) and (C, M)
        What each metric returned (None for a left-out cell or an empty
        control level).
    by_cell, overall : ndarray of float, same shapes
        The same as floats (NaN for None and non-scalar values).
    counts : dict
        A rate metric's index -> its :class:`ConfusionCounts` per cell and
        per control level.
    """

    metrics: tuple
    strata: Strata
    samples: Samples
    raw_cells: np.ndarray
    raw_levels: np.ndarray
    by_cell: np.ndarray
    overall: np.ndarray
    counts: dict


def evaluate(metrics, samples, strata, cell_label):
    """Every metric on every kept cell and control level (one pass per rate).

    An undefined rate warns once per metric, naming its cells
    (``cell_label(position)``); the warning points at the frame's caller.
    """
    shape_cells = (strata.n_cells, len(metrics))
    raw_cells = np.full(shape_cells, None, dtype=object)
    raw_levels = np.full((strata.n_control, len(metrics)), None, dtype=object)
    counts, passes = {}, {}  # one pass per distinct sample_weight and indicators
    for m, metric in enumerate(metrics):
        if metric.by_counts:
            key = (id(metric.weights), id(metric.indicators[0]))
            if key not in passes:
                passes[key] = point_counts(metric, strata)
            cells, levels = counts[m] = passes[key]
            kept = np.flatnonzero(strata.kept)
            labels = [cell_label(strata.position[k]) for k in kept]
            metric.warn_undefined(cells.weighted[kept], labels, stacklevel=3)
            values = metric.values(cells.weighted, cells.unit)
            raw_cells[kept, m] = values[kept]
            present = levels.rows.sum(axis=1) > 0
            raw_levels[present, m] = metric.values(levels.weighted, levels.unit)[
                present
            ]
        else:
            raw_cells[:, m], raw_levels[:, m] = call_per_cell(
                metric, samples, strata, strata.order
            )
    return Evaluation(
        tuple(metrics),
        strata,
        samples,
        raw_cells,
        raw_levels,
        as_float(raw_cells),
        as_float(raw_levels),
        counts,
    )
