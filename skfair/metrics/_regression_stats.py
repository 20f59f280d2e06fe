"""Per-group moments, intervals and the stratified bootstrap of the regression metrics.

The regression group metrics (``_regression.py``) read everything from one
pass of :func:`numpy.bincount` over the groups: each group's total weight,
and the weighted mean and variance of its residuals, absolute errors and
squared errors (:class:`GroupMoments`). Weights are *frequency* weights: a
row of weight ``k`` stands for ``k`` identical rows, so every number here,
intervals included, is the one of the data with each row repeated ``k``
times. The bootstrap (:func:`bootstrap_estimates`) resamples each group on
its own from those expanded data (a multinomial draw of the rows' counts),
which :func:`scipy.stats.bootstrap` cannot do: it resamples rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ..utils import sensitive_groupings
from ..utils._validation import (
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
)
from ._base import ZERO_WEIGHT_GROUP_ERROR
from .inference._intervals import summarise_groups

# The three metrics, in the column order of every (n_groups, 3) array here.
METRICS = ("mean_residual", "mae", "rmse")
FREQUENCY_WEIGHT_ERROR = (
    "The intervals treat sample_weight as frequency weights (a row of weight k "
    "counts as k identical rows), so the weights must be whole numbers; got "
    "{value!r} at position {position}. Pass integer counts, or "
    "confidence_level=None for the point values alone (any weights)."
)
# Multinomial counts (resamples x rows of a group) drawn in one batch.
_BATCH_CELLS = 4_000_000


class RegressionData(NamedTuple):
    """The validated rows of one grouping that belong to a compared group.

    Attributes
    ----------
    grouping : Grouping
        The grouping (an attribute, or an intersection of several).
    codes : ndarray of intp
        Group code of each kept row.
    pred : ndarray of float64
        Its prediction.
    residual : ndarray of float64
        ``y_pred - y_true``.
    weights : ndarray of float64 or None
        Its frequency weight.
    """

    grouping: object
    codes: np.ndarray
    pred: np.ndarray
    residual: np.ndarray
    weights: np.ndarray | None


def prepare_regression(
    y_true,
    y_pred,
    *,
    sensitive_features,
    sample_weight,
    combine,
    min_group_size,
    frequency_weights=False,
):
    """Validate a regression metric's inputs: one :class:`RegressionData` per grouping.

    Both targets and predictions must be finite reals of the same length;
    the groups follow :func:`~skfair.utils.sensitive_groupings` (at least
    two, ``min_group_size``, the small-group warning). With
    ``frequency_weights`` (the intervals), the weights of the rows that any
    grouping compares must be whole numbers (:data:`FREQUENCY_WEIGHT_ERROR`).
    """
    check_same_index(
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    pred = check_scores(y_pred, name="y_pred")
    truth = check_scores(y_true, name="y_true")
    check_same_length(truth, pred, first_name="y_true", second_name="y_pred")
    n_samples = pred.shape[0]
    weights = check_sample_weight_1d(sample_weight, n_samples, against="y_pred")
    groupings = sensitive_groupings(
        sensitive_features,
        n_samples=n_samples,
        combine=combine,
        against="y_pred",
        min_group_size=min_group_size,
    )
    if frequency_weights and weights is not None:
        used = np.logical_or.reduce([grouping.kept for grouping in groupings])
        _check_whole(np.where(used, weights, 0.0))
    residual = pred - truth
    prepared = []
    for grouping in groupings:
        codes = grouping.restrict(grouping.codes)
        kept_weights = None if weights is None else grouping.restrict(weights)
        if kept_weights is not None:
            total = np.bincount(
                codes, weights=kept_weights, minlength=grouping.n_groups
            )
            if (total <= 0).any():
                label = grouping.labels[int(np.flatnonzero(total <= 0)[0])]
                raise ValueError(
                    ZERO_WEIGHT_GROUP_ERROR.format(label=label, name=grouping.name)
                )
        prepared.append(
            RegressionData(
                grouping,
                codes,
                grouping.restrict(pred),
                grouping.restrict(residual),
                kept_weights,
            )
        )
    return prepared


def _check_whole(weights):
    """Raise :data:`FREQUENCY_WEIGHT_ERROR` unless every weight is a whole number."""
    bad = np.flatnonzero(weights != np.round(weights))
    if bad.size:
        raise ValueError(
            FREQUENCY_WEIGHT_ERROR.format(
                value=float(weights[bad[0]]), position=int(bad[0])
            )
        )


def error_columns(residual):
    """``(n, 3)``: residual, absolute error and squared error of each row."""
    return np.column_stack([residual, np.abs(residual), residual * residual])


@dataclass(frozen=True)
class GroupMoments:
    """Weighted moments of each group's errors (arrays in group-code order).

    Attributes
    ----------
    rows : ndarray of shape (n_groups,)
        Number of rows of each group.
    total : ndarray of shape (n_groups,)
        Sum of each group's weights (its size under frequency weights).
    mean : ndarray of shape (n_groups, 3)
        Weighted means of the residual, absolute error and squared error.
    var : ndarray of shape (n_groups, 3)
        Their sample variances ``sum w (x - mean)^2 / (total - 1)``; NaN
        where ``total <= 1``.
    mean_pred : ndarray of shape (n_groups,)
        Weighted mean prediction.
    """

    rows: np.ndarray
    total: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    mean_pred: np.ndarray

    def estimates(self):
        """``(n_groups, 3)``: mean residual, MAE and RMSE of each group."""
        return np.column_stack([self.mean[:, :2], np.sqrt(self.mean[:, 2])])

    def se2(self):
        """``(n_groups, 3)``: squared standard errors of :meth:`estimates`.

        Means: ``var / total``. RMSE: the delta method on the mean squared
        error, ``se2(MSE) / (4 MSE)`` (0 for a group of exact predictions).
        """
        se2 = self.var / self.total[:, None]
        mse = self.mean[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            rmse = np.where(mse > 0, se2[:, 2] / (4.0 * mse), 0.0)
        return np.column_stack(
            [se2[:, :2], np.where(np.isnan(se2[:, 2]), np.nan, rmse)]
        )


def group_moments(data):
    """The :class:`GroupMoments` of one :class:`RegressionData`."""
    n_groups = data.grouping.n_groups
    codes = data.codes
    w = np.ones(codes.shape[0]) if data.weights is None else data.weights
    columns = error_columns(data.residual)
    rows = np.bincount(codes, minlength=n_groups)
    total = np.bincount(codes, weights=w, minlength=n_groups)
    mean = np.column_stack(
        [np.bincount(codes, weights=w * c, minlength=n_groups) for c in columns.T]
    )
    mean /= total[:, None]
    dev = columns - mean[codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.column_stack(
            [np.bincount(codes, weights=w * d * d, minlength=n_groups) for d in dev.T]
        ) / (total[:, None] - 1.0)
    var[total <= 1.0] = np.nan
    mean_pred = np.bincount(codes, weights=w * data.pred, minlength=n_groups) / total
    return GroupMoments(rows, total, mean, var, mean_pred)


def survey_moments(data):
    """The :class:`GroupMoments` of one :class:`RegressionData` with survey weights.

    The weights are survey weights (e.g. ``1 / inclusion probability``): a
    row stands for ``w`` people but is one observation. The means are the
    weighted ones (as :func:`group_moments`); ``total`` is Kish's effective
    size ``n_eff = (sum w)^2 / sum w^2`` of each group, and ``var`` is
    ``n_eff`` times the linearisation (sandwich) variance of each weighted
    mean, ``sum w^2 (x - mean)^2 / (sum w)^2 * n / (n - 1)`` (``n`` the
    group's rows; the estimate of
    :func:`~skfair.metrics.inference._intervals.summarise_groups`), so that
    :meth:`GroupMoments.se2` is that variance and every interval built on
    the moments (:func:`group_intervals`, Welch's) has ``n_eff - 1``
    degrees of freedom. NaN for a group of one row. Each column's
    moments are :func:`~skfair.metrics.inference._intervals.summarise_groups`'
    (the binary audit's Welch interval rests on the same estimate); equal
    weights give :func:`group_moments` to rounding.
    """
    n_groups = data.grouping.n_groups
    codes, w = data.codes, data.weights
    per_column = [
        summarise_groups(column, codes, w, n_groups)
        for column in error_columns(data.residual).T
    ]
    rows = np.bincount(codes, minlength=n_groups)
    n_eff = per_column[0].n_eff
    mean = np.column_stack([s.mean for s in per_column])
    se2 = np.column_stack([s.se2 for s in per_column])
    mean_pred = summarise_groups(data.pred, codes, w, n_groups).mean
    return GroupMoments(rows, n_eff, mean, se2 * n_eff[:, None], mean_pred)


def survey_quantiles(data, quantiles):
    """``(n_groups, len(quantiles))``: each group's weighted prediction quantiles.

    The inverse of the weighted CDF: the smallest prediction whose
    cumulative share of the group's weight reaches ``q`` (as
    ``numpy.quantile(..., method="inverted_cdf", weights=w)``); with
    survey weights a row's weight is a share of people, not a count of
    repeated rows, so :func:`weighted_quantiles`' interpolation does not
    apply.
    """
    n_groups = data.grouping.n_groups
    order = np.lexsort((data.pred, data.codes))
    pred, codes, w = data.pred[order], data.codes[order], data.weights[order]
    starts = np.searchsorted(codes, np.arange(n_groups + 1))
    q = np.asarray(quantiles, dtype=np.float64)
    out = np.empty((n_groups, q.size))
    for g in range(n_groups):
        x, cum = (
            pred[starts[g] : starts[g + 1]],
            np.cumsum(w[starts[g] : starts[g + 1]]),
        )
        at = np.searchsorted(cum, q * cum[-1], side="left")
        out[g] = x[np.minimum(at, x.size - 1)]
    return out


def group_intervals(moments, confidence_level):
    """Per-group two-sided intervals: ``(lower, upper)``, each ``(n_groups, 3)``.

    Mean residual and MAE: Student's t interval ``mean ± t * s / sqrt(n)``
    with ``n - 1`` degrees of freedom (``n`` the total weight). RMSE: the
    square root of the t interval of the mean squared error on the log
    scale, ``MSE * exp(± t * se / MSE)`` (the delta method for
    ``log MSE``): positive, and longer upwards, as the skewed sampling
    distribution of a mean of squares is. The MAE's lower end is clipped
    at 0 (an absolute error is never negative; the coverage is unchanged).
    NaN for a group of one sample (total weight <= 1).
    """
    dof = moments.total - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = stats.t.isf((1.0 - confidence_level) / 2.0, np.where(dof > 0, dof, np.nan))
        half = t[:, None] * np.sqrt(moments.var / moments.total[:, None])
        lower, upper = moments.mean - half, moments.mean + half
        mse = moments.mean[:, 2]
        factor = np.exp(np.where(mse > 0, half[:, 2] / mse, 0.0))
    factor[np.isnan(half[:, 2])] = np.nan
    lower[:, 1] = np.maximum(lower[:, 1], 0.0)  # NaN stays NaN
    lower[:, 2] = np.sqrt(mse / factor)
    upper[:, 2] = np.sqrt(mse * factor)
    return lower, upper


def weighted_quantiles(data, quantiles):
    """``(n_groups, len(quantiles))``: each group's prediction quantiles.

    The linear interpolation of :func:`numpy.quantile` (its default) on
    the data with every row repeated ``weight`` times: the ``h = (n - 1) q``
    -th order statistic, between the two rows whose cumulative weights
    enclose it. Without weights it is :func:`numpy.quantile` of each group.
    """
    n_groups = data.grouping.n_groups
    order = np.lexsort((data.pred, data.codes))
    pred, codes = data.pred[order], data.codes[order]
    w = np.ones(pred.shape[0]) if data.weights is None else data.weights[order]
    out = np.empty((n_groups, len(quantiles)))
    starts = np.searchsorted(codes, np.arange(n_groups + 1))
    q = np.asarray(quantiles, dtype=np.float64)
    for g in range(n_groups):
        x, cum = (
            pred[starts[g] : starts[g + 1]],
            np.cumsum(w[starts[g] : starts[g + 1]]),
        )
        h = (cum[-1] - 1.0) * q if cum[-1] > 1.0 else np.zeros_like(q)
        lo, hi = np.floor(h), np.ceil(h)
        # the k-th (0-based) repeated value is the first row with cum > k
        x_lo = x[np.minimum(np.searchsorted(cum, lo, side="right"), x.size - 1)]
        x_hi = x[np.minimum(np.searchsorted(cum, hi, side="right"), x.size - 1)]
        out[g] = x_lo + (h - lo) * (x_hi - x_lo)
    return out


def bootstrap_estimates(data, n_resamples, rng):
    """The metrics of each group on each resample, and their squared standard errors.

    Each group is resampled on its own (a bootstrap stratified by group) from
    its rows repeated by their frequency weight: the row counts of a
    resample are multinomial with ``total`` trials and probabilities
    ``w / total``, so a resample has the group's size. Groups are drawn in
    batches of at most ``_BATCH_CELLS`` counts.

    Returns
    -------
    estimates, se2 : ndarray of shape (n_resamples, n_groups, 3)
        As :meth:`GroupMoments.estimates` and :meth:`GroupMoments.se2` on
        every resample.
    """
    n_groups = data.grouping.n_groups
    order = np.argsort(data.codes, kind="stable")
    codes = data.codes[order]
    errors = error_columns(data.residual[order])
    columns = np.column_stack([errors, errors[:, 2] ** 2])  # r, |r|, r^2, r^4
    w = np.ones(codes.shape[0]) if data.weights is None else data.weights[order]
    starts = np.searchsorted(codes, np.arange(n_groups + 1))
    raw = np.empty((n_resamples, n_groups, 4))
    sizes = np.empty(n_groups)
    for g in range(n_groups):
        rows = slice(starts[g], starts[g + 1])
        sizes[g] = size = round(float(w[rows].sum()))
        p = w[rows] / w[rows].sum()
        batch = max(1, _BATCH_CELLS // p.size)
        for first in range(0, n_resamples, batch):
            last = min(n_resamples, first + batch)
            counts = rng.multinomial(size, p, size=last - first)
            raw[first:last, g] = (counts @ columns[rows]) / size
    mean_r, mean_abs, mse, mean_r4 = np.moveaxis(raw, -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = 1.0 / (sizes - 1.0)  # variance / n with Bessel's correction
        se2 = np.stack(
            [
                np.maximum(mse - mean_r**2, 0.0) * scale,
                np.maximum(mse - mean_abs**2, 0.0) * scale,
                np.where(
                    mse > 0, np.maximum(mean_r4 - mse**2, 0.0) * scale / (4 * mse), 0.0
                ),
            ],
            axis=-1,
        )
    return np.stack([mean_r, mean_abs, np.sqrt(mse)], axis=-1), se2
