"""Rate-parity metrics with fairlearn's definitions, and the four-fifths rule.

``demographic_parity_difference`` and its relatives compare a rate of hard
predictions across *all* groups, as fairlearn defines them: the largest
minus the smallest group rate (``method="between_groups"``), or the largest
distance of a group's rate to the overall rate (``method="to_overall"``);
the ``*_ratio`` variants take the smallest over the largest rate (or the
smallest group-to-overall ratio, turned below one). The HFM paper's gaps
(``demographic_parity_gap``, ...) compare the privileged group with the
rest instead.

Every function computes its groups' confusion counts in one pass
(``_group_counts.py``); several sensitive columns are intersected, and
``sample_weight`` and ``min_group_size`` follow skfair's conventions.
"""

from __future__ import annotations

import numpy as np

from ..utils import (
    check_hard_labels,
    check_same_index,
    check_sample_weight_1d,
    sensitive_groupings,
)
from ._group_counts import (
    RATE_METRICS,
    check_compare_method,
    compare,
    confusion_counts,
    warn_undefined,
)

AGG_ERROR = "agg must be 'worst_case' or 'mean' (fairlearn's options); got {agg!r}."


def _rate_gap(
    names,
    how,
    y_true,
    y_pred,
    *,
    sensitive_features,
    method,
    pos_label,
    sample_weight,
    min_group_size,
):
    """The difference or ratio (``how``) of each rate of ``names``, as an array.

    Called by the public functions directly, so that the small-group and
    undefined-rate warnings point at the user's line.
    """
    check_compare_method(method)
    values, overall, _ = group_rates(
        names,
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return compare(values, overall, how=how, method=method)


def group_rates(
    names,
    y_true,
    y_pred,
    *,
    sensitive_features,
    pos_label,
    sample_weight,
    min_group_size,
):
    """Group values ``(n_groups, len(names))``, overall values, and the grouping."""
    check_same_index(
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    truth, pred = check_hard_labels(y_true, y_pred, pos_label=pos_label)
    n_samples = truth.shape[0]
    weights = check_sample_weight_1d(sample_weight, n_samples, against="y_true")
    (grouping,) = sensitive_groupings(
        sensitive_features,
        n_samples=n_samples,
        against="y_true",
        min_group_size=min_group_size,
    )
    counts = confusion_counts(truth, pred, grouping.codes, grouping.n_groups, weights)
    everyone = np.zeros(n_samples, dtype=np.intp)
    total = confusion_counts(truth, pred, everyone, 1, weights).weighted[0]
    metrics = [RATE_METRICS[name] for name in names]
    for metric in metrics:
        warn_undefined(metric, counts.weighted, grouping.labels, stacklevel=4)
    values = np.column_stack([m.value(counts.weighted) for m in metrics])
    return values, np.array([m.value(total) for m in metrics]), grouping


def _check_agg(agg):
    if agg not in ("worst_case", "mean"):
        raise ValueError(AGG_ERROR.format(agg=agg))


def demographic_parity_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    r"""Largest gap in selection rate :math:`P(\hat y = 1 \mid A = a)` between groups.

    fairlearn's definition: ``max_a s_a - min_a s_a`` over the groups'
    selection rates ``s_a`` (``method="between_groups"``), or
    ``max_a |s_a - s|`` with ``s`` the overall rate (``"to_overall"``).
    In [0, 1]; 0 when every group is selected at the same rate.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels; unused (kept first for scikit-learn's scorer
        conventions) but validated with ``y_pred``: at most two classes.
    y_pred : array-like of shape (n_samples,)
        Hard predictions.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels (pandas or polars frames and series, arrays, lists);
        several attributes are intersected.
    method : {"between_groups", "to_overall"}, default="between_groups"
        Compare the groups with each other, or each group with everyone.
    pos_label : object, default=1
        The selected (positive) class.
    sample_weight : array-like of shape (n_samples,), default=None
        Each rate becomes a weighted proportion.
    min_group_size : int or None, default=None
        None keeps every group and warns about groups under 30 samples; an
        int ``k`` leaves out the groups of fewer than ``k`` samples (they
        still count in the overall rate of ``"to_overall"``).

    Returns
    -------
    difference : float

    See Also
    --------
    demographic_parity_ratio, four_fifths, GroupMetricFrame
    demographic_parity_gap : The privileged group against the rest.

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> demographic_parity_difference(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.5
    """
    (value,) = _rate_gap(
        ["selection_rate"],
        "difference",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return float(value)


def demographic_parity_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    r"""Smallest over largest group selection rate (1 is parity).

    fairlearn's definition: ``min_a s_a / max_a s_a``
    (``method="between_groups"``), or the smallest ``s_a / s`` turned
    below one (``min(r, 1 / r)``) with ``s`` the overall rate
    (``"to_overall"``). In [0, 1]; NaN when no group is ever selected.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight, min_group_size
        See :func:`demographic_parity_difference`.

    Returns
    -------
    ratio : float

    See Also
    --------
    demographic_parity_difference, four_fifths

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> round(demographic_parity_ratio(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4), 4)
    0.3333
    """
    (value,) = _rate_gap(
        ["selection_rate"],
        "ratio",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return float(value)


def equalized_odds_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    agg="worst_case",
    min_group_size=None,
):
    r"""The larger (or mean) of the TPR and FPR differences between groups.

    fairlearn's definition: with ``agg="worst_case"``, the larger of
    :func:`true_positive_rate_difference` and
    :func:`false_positive_rate_difference`; with ``agg="mean"``, their mean.
    0 when every group has the same error rates on both classes.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`demographic_parity_difference`.
    agg : {"worst_case", "mean"}, default="worst_case"
        How the two differences combine.
    min_group_size : int or None, default=None
        See :func:`demographic_parity_difference`.

    Returns
    -------
    difference : float

    Warns
    -----
    UndefinedMetricWarning
        When a group has no positive (or no negative) true label: its TPR
        (FPR) is NaN and it takes no part in that difference (fairlearn
        counts it as 0).

    See Also
    --------
    equalized_odds_ratio, true_positive_rate_difference

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> equalized_odds_difference(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.5
    """
    _check_agg(agg)
    values = _rate_gap(
        ["true_positive_rate", "false_positive_rate"],
        "difference",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return _aggregate(values, np.nanmax, agg)


def _aggregate(values, worst, agg):
    if np.isnan(values).all():
        return float("nan")
    return float(worst(values) if agg == "worst_case" else np.nanmean(values))


def equalized_odds_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    agg="worst_case",
    min_group_size=None,
):
    r"""The smaller (or mean) of the TPR and FPR ratios between groups.

    fairlearn's definition: with ``agg="worst_case"``, the smaller of
    :func:`true_positive_rate_ratio` and :func:`false_positive_rate_ratio`;
    with ``agg="mean"``, their mean. 1 is parity.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`demographic_parity_difference`.
    agg, min_group_size
        See :func:`equalized_odds_difference`.

    Returns
    -------
    ratio : float

    See Also
    --------
    equalized_odds_difference

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> equalized_odds_ratio(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.0
    """
    _check_agg(agg)
    values = _rate_gap(
        ["true_positive_rate", "false_positive_rate"],
        "ratio",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return _aggregate(values, np.nanmin, agg)


def true_positive_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    r"""Largest gap in true positive rate :math:`P(\hat y = 1 \mid Y = 1, A = a)`.

    fairlearn's ``true_positive_rate_difference`` (its
    ``equal_opportunity_difference``): see
    :func:`demographic_parity_difference` for ``method``. Groups without a
    positive true label have no TPR and take no part (with an
    ``UndefinedMetricWarning``).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight, min_group_size
        See :func:`equalized_odds_difference`.

    Returns
    -------
    difference : float

    See Also
    --------
    true_positive_rate_ratio, equalized_odds_difference

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> true_positive_rate_difference(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.5
    """
    (value,) = _rate_gap(
        ["true_positive_rate"],
        "difference",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return float(value)


def true_positive_rate_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    r"""Smallest over largest group true positive rate (1 is parity).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight, min_group_size
        See :func:`equalized_odds_difference`.

    Returns
    -------
    ratio : float

    See Also
    --------
    true_positive_rate_difference

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> true_positive_rate_ratio(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.5
    """
    (value,) = _rate_gap(
        ["true_positive_rate"],
        "ratio",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return float(value)


def false_positive_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    r"""Largest gap in false positive rate :math:`P(\hat y = 1 \mid Y = 0, A = a)`.

    Groups without a negative true label have no FPR and take no part
    (with an ``UndefinedMetricWarning``).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight, min_group_size
        See :func:`equalized_odds_difference`.

    Returns
    -------
    difference : float

    See Also
    --------
    false_positive_rate_ratio, equalized_odds_difference

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> false_positive_rate_difference(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.5
    """
    (value,) = _rate_gap(
        ["false_positive_rate"],
        "difference",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return float(value)


def false_positive_rate_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="between_groups",
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
):
    r"""Smallest over largest group false positive rate (1 is parity).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight, min_group_size
        See :func:`equalized_odds_difference`.

    Returns
    -------
    ratio : float

    See Also
    --------
    false_positive_rate_difference

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> false_positive_rate_ratio(
    ...     y_true, y_pred, sensitive_features=["a"] * 4 + ["b"] * 4)
    0.0
    """
    (value,) = _rate_gap(
        ["false_positive_rate"],
        "ratio",
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        method=method,
        pos_label=pos_label,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )
    return float(value)
