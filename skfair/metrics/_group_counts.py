"""Per-group confusion counts, and every rate metric derived from them.

One ``np.bincount`` over the code ``4 * group + 2 * truth + pred`` gives each
group's (weighted) true negatives, false positives, false negatives and true
positives; every rate metric of :data:`RATE_METRICS` (accuracy, selection
rate, true/false positive rate, precision, ...) is then arithmetic on those
counts, vectorised over groups and over bootstrap resamples of the counts.
:class:`~skfair.metrics.GroupMetricFrame` and the rate metrics of
``_rates.py`` (``demographic_parity_difference``, ...) share it.

A rate whose denominator is empty (the precision of a group with no positive
prediction) is NaN and named in an ``UndefinedMetricWarning``; the group then
takes no part in a difference or a ratio. scikit-learn's ``zero_division``
default and fairlearn's rate functions return 0 there instead.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

# Column of each cell of the 2 x 2 confusion table: 2 * truth + pred.
TN, FP, FN, TP = 0, 1, 2, 3
_ALL = (TN, FP, FN, TP)
UNDEFINED_RATE_WARNING = (
    "{metric} is undefined for {n_groups} group(s) ({groups}): no sample with "
    "{condition}, so the rate has no denominator; their value is NaN and they "
    "take no part in a difference or ratio."
)
COMPARE_METHOD_ERROR = (
    "method must be 'between_groups' or 'to_overall' (fairlearn's options); "
    "got {method!r}."
)
COMPARE_METHODS = ("between_groups", "to_overall")


@dataclass(frozen=True)
class RateMetric:
    """A metric of the binary confusion counts.

    Attributes
    ----------
    name : str
        Canonical name.
    numerator, denominator : tuple of int
        Confusion cells (:data:`TN`, :data:`FP`, :data:`FN`, :data:`TP`)
        summed above and below the fraction; ``denominator=()`` marks a
        metric that is not one proportion (F1, balanced accuracy, count).
    condition : str
        What the denominator counts, for the undefined-rate warning.
    """

    name: str
    numerator: tuple = ()
    denominator: tuple = ()
    condition: str = ""

    @property
    def is_proportion(self):
        """Whether the metric is one proportion (Wilson and Newcombe apply)."""
        return bool(self.denominator)

    def fraction(self, counts):
        """Numerator and denominator sums of ``counts`` (shape ``(..., 4)``)."""
        top = counts[..., list(self.numerator)].sum(axis=-1)
        return top, counts[..., list(self.denominator)].sum(axis=-1)

    def value(self, counts, unit=1.0):
        """The metric of every row of ``counts`` (NaN where undefined).

        ``unit`` is the weight that one count stands for (weighted counts
        are kept in units of a power of two near the largest weight): the
        rates are free of it, ``count`` (the total weight) is not.
        """
        counts = np.asarray(counts, dtype=np.float64)
        if self.name == "count":
            return counts.sum(axis=-1) * unit
        if self.name == "f1":
            tp = counts[..., TP]
            return _divide(2.0 * tp, 2.0 * tp + counts[..., FP] + counts[..., FN])
        if self.name == "balanced_accuracy":  # scikit-learn: mean of defined recalls
            recalls = np.stack(
                [
                    _divide(counts[..., TP], counts[..., TP] + counts[..., FN]),
                    _divide(counts[..., TN], counts[..., TN] + counts[..., FP]),
                ]
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN groups
                return np.nanmean(recalls, axis=0)
        return _divide(*self.fraction(counts))

    def undefined(self, counts):
        """Boolean mask of the rows of ``counts`` whose metric is undefined."""
        if self.name == "count":
            return np.zeros(counts.shape[:-1], dtype=bool)
        if self.name in ("f1", "balanced_accuracy"):
            return np.isnan(self.value(counts))
        return ~(self.fraction(counts)[1] > 0)


def _divide(top, bottom):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)


_RATES = [
    RateMetric("accuracy", (TN, TP), _ALL, "any label"),
    RateMetric("selection_rate", (FP, TP), _ALL, "any label"),
    RateMetric("zero_one_loss", (FP, FN), _ALL, "any label"),
    RateMetric("true_positive_rate", (TP,), (FN, TP), "a positive true label"),
    RateMetric("false_negative_rate", (FN,), (FN, TP), "a positive true label"),
    RateMetric("false_positive_rate", (FP,), (TN, FP), "a negative true label"),
    RateMetric("true_negative_rate", (TN,), (TN, FP), "a negative true label"),
    RateMetric("precision", (TP,), (FP, TP), "a positive prediction"),
    RateMetric("f1", condition="a positive true label or prediction"),
    RateMetric("balanced_accuracy", condition="any label"),
    RateMetric("count"),
]
#: Metric names computed from the confusion counts, with their aliases
#: (scikit-learn's scorer and function names, fairlearn's function names).
RATE_METRICS = {metric.name: metric for metric in _RATES}
for _alias, _name in {
    "accuracy_score": "accuracy",
    "recall": "true_positive_rate",
    "recall_score": "true_positive_rate",
    "precision_score": "precision",
    "f1_score": "f1",
    "balanced_accuracy_score": "balanced_accuracy",
}.items():
    RATE_METRICS[_alias] = RATE_METRICS[_name]


@dataclass(frozen=True)
class ConfusionCounts:
    """Per-group confusion counts (arrays of shape ``(n_groups, 4)``).

    Attributes
    ----------
    weighted : ndarray
        Sum of the weights per group and cell (the row counts without weights).
    squared : ndarray or None
        Sum of the squared weights (None without weights).
    rows : ndarray
        Number of samples per group and cell.
    unit : float, default=1.0
        The weight one unit of ``weighted`` stands for (``squared``: its
        square); see :func:`weight_scale`.
    """

    weighted: np.ndarray
    squared: np.ndarray | None
    rows: np.ndarray
    unit: float = 1.0

    def trials(self, metric):
        """Wilson's number of trials of ``metric`` per group.

        The denominator's row count, or with weights Kish's effective sample
        size ``(sum w)^2 / sum w^2`` of the samples in the denominator.
        """
        if self.squared is None:
            return metric.fraction(self.rows)[1]
        total = metric.fraction(self.weighted)[1]
        return _divide(total * total, metric.fraction(self.squared)[1])

    def summed(self, labels, n_labels):
        """The counts summed over the groups sharing a label (``labels[g]``)."""
        return ConfusionCounts(
            *(
                None if counts is None else _sum_rows(counts, labels, n_labels)
                for counts in (self.weighted, self.squared, self.rows)
            ),
            unit=self.unit,
        )


def _sum_rows(counts, labels, n_labels):
    out = np.zeros((n_labels, counts.shape[1]))
    np.add.at(out, labels, counts)
    return out


def weight_scale(largest):
    """The power of two at most ``largest`` (a weight), that weights are divided by.

    Dividing by a power of two is exact, so the weighted cells are exact
    sums of integer weights, in any order: the lazy engine's sums (added in
    the engine, then divided) equal the in-memory ones bit for bit.

    Examples
    --------
    >>> from skfair.metrics._group_counts import weight_scale
    >>> weight_scale(3.0), weight_scale(4.0), weight_scale(0.3)
    (2.0, 4.0, 0.25)
    """
    if not (largest > 0 and np.isfinite(largest)):
        return largest
    return float(np.ldexp(1.0, np.frexp(largest)[1] - 1))


@dataclass(frozen=True, eq=False)
class SummedWeights:
    """The weights of rows that each stand for several samples.

    A lazy frame's distinct rows of (grouping columns, labels) reach the
    client with the sums of their samples' weights and squared weights,
    summed in the engine; :func:`confusion_counts` adds them up per cell.

    Attributes
    ----------
    sums, squares : ndarray of shape (n_rows,)
        Per row, the sum of its samples' weights and of their squares.
    largest : float
        The largest weight of any sample (the unit of :func:`weight_scale`).
    """

    sums: np.ndarray
    squares: np.ndarray
    largest: float


def confusion_counts(truth, pred, codes, n_groups, weights=None, *, rows=None):
    """The :class:`ConfusionCounts` of groups ``codes`` (-1: left out) in one pass.

    ``weights`` is one weight per row, or a :class:`SummedWeights`; ``rows``
    the number of samples each row stands for (None: one each).
    """
    key = codes * 4 + truth * 2 + pred
    summed = isinstance(weights, SummedWeights)
    sums = weights.sums if summed else weights
    squares = weights.squares if summed else None
    if (codes < 0).any():
        kept = codes >= 0
        key, sums, squares, rows = (
            None if a is None else a[kept] for a in (key, sums, squares, rows)
        )
    size = 4 * n_groups
    rows = np.bincount(key, weights=rows, minlength=size)
    rows = rows.reshape(n_groups, 4).astype(np.float64)
    if weights is None:
        return ConfusionCounts(rows, None, rows)
    unit = weight_scale(weights.largest if summed else weights.max())
    sums = sums / unit  # exact; sums of 1e308s must not overflow
    squares = sums * sums if squares is None else squares / (unit * unit)
    weighted = np.bincount(key, weights=sums, minlength=size).reshape(n_groups, 4)
    squared = np.bincount(key, weights=squares, minlength=size)
    return ConfusionCounts(weighted, squared.reshape(n_groups, 4), rows, unit)


def warn_undefined(metric, counts, labels, *, name=None, stacklevel=2):
    """One UndefinedMetricWarning naming the groups whose ``metric`` is undefined."""
    undefined = np.flatnonzero(metric.undefined(counts))
    if undefined.size == 0:
        return
    shown = ", ".join(repr(labels[k]) for k in undefined[:10])
    if undefined.size > 10:
        shown += f", ... ({undefined.size - 10} more)"
    warnings.warn(
        UNDEFINED_RATE_WARNING.format(
            metric=name or metric.name,
            n_groups=undefined.size,
            groups=shown,
            condition=metric.condition,
        ),
        UndefinedMetricWarning,
        stacklevel=stacklevel + 1,
    )


def check_compare_method(method):
    """Raise :data:`COMPARE_METHOD_ERROR` unless ``method`` is fairlearn's option."""
    if method not in COMPARE_METHODS:
        raise ValueError(COMPARE_METHOD_ERROR.format(method=method))


def compare(values, overall, *, how, method):
    """Fairlearn's difference or ratio of group values, over the last-but-one axis.

    ``values`` has shape ``(..., n_groups, k)`` and ``overall`` ``(..., k)``;
    NaN groups are skipped, as pandas skips them, but ``"between_groups"``
    needs two groups with a value (pandas would return 0 or 1 for one group:
    no comparison is no parity). ``how`` is "difference"
    (``max - min``, or the largest ``|value - overall|``) or "ratio"
    (``min / max``, or the smallest ``value / overall`` turned below one).
    """
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices
        if method == "between_groups":
            low, high = np.nanmin(values, axis=-2), np.nanmax(values, axis=-2)
            out = high - low if how == "difference" else low / high
            defined = (~np.isnan(values)).sum(axis=-2)
            return np.where(defined >= 2, out, np.nan)
        if how == "difference":
            return np.nanmax(np.abs(values - overall[..., None, :]), axis=-2)
        ratio = values / overall[..., None, :]
        return np.nanmin(np.where(ratio > 1.0, 1.0 / ratio, ratio), axis=-2)
