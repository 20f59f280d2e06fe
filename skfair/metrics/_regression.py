"""Error and bias of a regressor by group, their gaps, and intervals.

The residual is ``y_pred - y_true``: positive means over-prediction. For
each group, the mean residual (bias), the mean absolute error (MAE) and
the root mean squared error (RMSE); a gap is the absolute difference of
one of them between two groups, the largest (``agg="max"``) or mean over
pairs: the "bounded group loss" view of fairness for regression (every
group's loss below a bound, so no group is served much worse).

:func:`regression_group_table` gives every group's numbers with intervals,
:func:`regression_gap_intervals` the gaps with simultaneous intervals
(``_regression_table.py``); the per-group moments, intervals and the
stratified bootstrap are in ``_regression_stats.py``. The three gap
functions share one signature and body, written once in ``_gap_function``.
"""

from __future__ import annotations

import numpy as np

from ._base import aggregate, check_agg
from ._kernels import pair_codes
from ._rate_factory import published
from ._regression_stats import METRICS, group_moments, prepare_regression


def _gap_function(name, metric, doc):
    """The public function ``name``: the aggregated pairwise gap of ``metric``.

    One signature and one body for the three gap functions (see
    ``_rate_factory.py``); ``metric`` is a name in ``METRICS``, ``doc`` the
    function's docstring.
    """
    k = METRICS.index(metric)

    def gap(
        y_true,
        y_pred,
        *,
        sensitive_features,
        agg="max",
        combine="intersection",
        sample_weight=None,
        min_group_size=None,
    ):
        check_agg(agg)
        per_grouping = []
        for data in prepare_regression(
            y_true,
            y_pred,
            sensitive_features=sensitive_features,
            sample_weight=sample_weight,
            combine=combine,
            min_group_size=min_group_size,
        ):
            values = group_moments(data).estimates()[:, k]
            a, b = pair_codes(data.grouping.n_groups)
            per_grouping.append(np.abs(values[a] - values[b]))
        return aggregate(per_grouping, agg)

    return published(gap, name, doc)


mean_residual_difference = _gap_function(
    "mean_residual_difference",
    "mean_residual",
    r"""Largest gap in mean residual (bias) between groups.

    With residuals :math:`r = \hat y - y` (positive: over-prediction), the
    gap of a pair of groups is :math:`|\bar r_a - \bar r_b|`, in the
    target's units; the worst pair (``agg="max"``) or the mean over pairs.
    0 when every group is over- or under-predicted by the same amount on
    average. Lower is fairer.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True targets (finite real numbers).
    y_pred : array-like of shape (n_samples,)
        Predictions.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels (pandas or polars frames and series, arrays, lists).
    agg, combine
        See :func:`delta_dp`: the same pairs of groups and attributes.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights; each group's mean becomes a weighted mean.
    min_group_size : int or None, default=None
        See :func:`delta_dp`.

    Returns
    -------
    gap : float
        In the target's units.

    See Also
    --------
    mean_absolute_error_difference, root_mean_squared_error_difference
    regression_group_table : Every group's numbers, with intervals.
    regression_gap_intervals : The gaps with confidence intervals.

    Examples
    --------
    >>> from skfair.metrics import mean_residual_difference
    >>> y_true = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    >>> y_pred = [1.5, 2.5, 3.5, 1.0, 1.0, 3.0]
    >>> s = ["a"] * 3 + ["b"] * 3
    >>> round(mean_residual_difference(y_true, y_pred, sensitive_features=s,
    ...                                min_group_size=1), 6)
    0.833333
    """,
)


mean_absolute_error_difference = _gap_function(
    "mean_absolute_error_difference",
    "mae",
    r"""Largest gap in mean absolute error between groups.

    The gap of a pair of groups is :math:`|\mathrm{MAE}_a -
    \mathrm{MAE}_b|` with :math:`\mathrm{MAE}_a` the mean of
    :math:`|\hat y - y|` over group ``a``, in the target's units; the worst
    pair (``agg="max"``) or the mean over pairs. Lower is fairer.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, agg, combine, sample_weight, min_group_size
        See :func:`mean_residual_difference`.

    Returns
    -------
    gap : float
        In the target's units.

    See Also
    --------
    mean_residual_difference, root_mean_squared_error_difference
    regression_gap_intervals : The gaps with confidence intervals.

    Examples
    --------
    >>> from skfair.metrics import mean_absolute_error_difference
    >>> y_true = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    >>> y_pred = [1.5, 2.5, 3.5, 1.0, 1.0, 3.0]
    >>> s = ["a"] * 3 + ["b"] * 3
    >>> round(mean_absolute_error_difference(y_true, y_pred, sensitive_features=s,
    ...                                      min_group_size=1), 6)
    0.166667
    """,
)


root_mean_squared_error_difference = _gap_function(
    "root_mean_squared_error_difference",
    "rmse",
    r"""Largest gap in root mean squared error between groups.

    The gap of a pair of groups is :math:`|\mathrm{RMSE}_a -
    \mathrm{RMSE}_b|` with :math:`\mathrm{RMSE}_a` the square root of the
    mean of :math:`(\hat y - y)^2` over group ``a``, in the target's units;
    the worst pair (``agg="max"``) or the mean over pairs. Lower is fairer.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, agg, combine, sample_weight, min_group_size
        See :func:`mean_residual_difference`.

    Returns
    -------
    gap : float
        In the target's units.

    See Also
    --------
    mean_residual_difference, mean_absolute_error_difference
    regression_gap_intervals : The gaps with confidence intervals.

    Examples
    --------
    >>> from skfair.metrics import root_mean_squared_error_difference
    >>> y_true = [0.0, 0.0, 0.0, 0.0]
    >>> y_pred = [3.0, -3.0, 1.0, 1.0]
    >>> root_mean_squared_error_difference(
    ...     y_true, y_pred, sensitive_features=["a", "a", "b", "b"], min_group_size=1)
    2.0
    """,
)
