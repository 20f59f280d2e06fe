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
``sample_weight`` and ``min_group_size`` follow skfair's conventions. The
eight functions share two signatures, each written once in a factory
(``_rate_factory.py``): ``_one_rate`` (one rate's difference or ratio)
and ``_equalized_odds`` (the TPR's and FPR's, combined by ``agg``).
"""

from __future__ import annotations

import numpy as np

from ..utils import sensitive_groupings
from ..utils._groups import user_stacklevel
from ..utils._validation import (
    check_hard_labels,
    check_same_index,
    check_sample_weight_1d,
)
from ._frame_arg import rates_on_frame
from ._group_counts import (
    RATE_METRICS,
    check_compare_method,
    compare,
    confusion_counts,
    warn_undefined,
)
from ._rate_factory import published

AGG_ERROR = "agg must be 'worst_case' or 'mean' (fairlearn's options); got {agg!r}."


def binary_group_inputs(
    y_true, y_pred, sensitive_features, sample_weight, *, pos_label, min_group_size
):
    """The checked hard labels, weights (or None) and grouping of a binary metric.

    The four per-sample arrays by position (as scikit-learn's
    ``check_consistent_length`` takes them), the options by name.
    """
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
    return truth, pred, weights, grouping


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
    """Group values ``(n_groups, len(names))``, overall values, and the grouping.

    The undefined-rate warnings point at the user's line, however deep the
    call.
    """
    truth, pred, weights, grouping = binary_group_inputs(
        y_true,
        y_pred,
        sensitive_features,
        sample_weight,
        pos_label=pos_label,
        min_group_size=min_group_size,
    )
    counts = confusion_counts(truth, pred, grouping.codes, grouping.n_groups, weights)
    everyone = np.zeros(truth.shape[0], dtype=np.intp)
    total = confusion_counts(truth, pred, everyone, 1, weights).weighted[0]
    metrics = [RATE_METRICS[name] for name in names]
    for metric in metrics:
        warn_undefined(
            metric, counts.weighted, grouping.labels, stacklevel=user_stacklevel()
        )
    values = np.column_stack([m.value(counts.weighted) for m in metrics])
    return values, np.array([m.value(total) for m in metrics]), grouping


def _rates_of(
    names,
    y_true,
    y_pred,
    *,
    sensitive_features,
    pos_label,
    sample_weight,
    min_group_size,
    data,
):
    """:func:`group_rates`' values and overall values; of ``data``'s columns if given.

    With ``data``, the data arguments are column names; a lazy frame's
    rates are computed in its engine (``_frame_arg.rates_on_frame``).
    """
    arguments = {
        "y_true": y_true,
        "y_pred": y_pred,
        "sensitive_features": sensitive_features,
        "pos_label": pos_label,
        "sample_weight": sample_weight,
        "min_group_size": min_group_size,
    }
    if data is not None:
        return rates_on_frame(group_rates, names, {**arguments, "data": data})
    values, overall, _ = group_rates(names, **arguments)
    return values, overall


def _one_rate(name, rate, how, doc):
    """The public metric ``name``: the ``how`` of ``rate`` between the groups."""

    def one_rate(
        y_true,
        y_pred,
        *,
        sensitive_features,
        method="between_groups",
        pos_label=1,
        sample_weight=None,
        min_group_size=None,
        data=None,
    ):
        check_compare_method(method)
        values, overall = _rates_of(
            (rate,),
            y_true,
            y_pred,
            sensitive_features=sensitive_features,
            pos_label=pos_label,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
            data=data,
        )
        (value,) = compare(values, overall, how=how, method=method)
        return float(value)

    return published(one_rate, name, doc)


def _equalized_odds(name, how, worst, doc):
    """The public metric ``name``: ``agg`` of the TPR and FPR ``how``."""

    def equalized_odds(
        y_true,
        y_pred,
        *,
        sensitive_features,
        method="between_groups",
        pos_label=1,
        sample_weight=None,
        agg="worst_case",
        min_group_size=None,
        data=None,
    ):
        if agg not in ("worst_case", "mean"):
            raise ValueError(AGG_ERROR.format(agg=agg))
        check_compare_method(method)
        values, overall = _rates_of(
            ("true_positive_rate", "false_positive_rate"),
            y_true,
            y_pred,
            sensitive_features=sensitive_features,
            pos_label=pos_label,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
            data=data,
        )
        values = compare(values, overall, how=how, method=method)
        if np.isnan(values).all():
            return float("nan")
        return float(worst(values) if agg == "worst_case" else np.nanmean(values))

    return published(equalized_odds, name, doc)


demographic_parity_difference = _one_rate(
    "demographic_parity_difference",
    "selection_rate",
    "difference",
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
    data : DataFrame or lazy frame, default=None
        A frame narwhals supports, eager or lazy (pandas, polars
        ``DataFrame`` or ``LazyFrame``, a DuckDB relation, PySpark, SQLFrame,
        Ibis, Dask); then ``y_true``, ``y_pred``, ``sensitive_features`` (a
        name or a list of names) and ``sample_weight`` are the names of its
        columns. An eager frame's columns are taken out and computed in
        memory; a lazy frame's confusion counts are computed inside its
        engine by one group-by, only the counts reaching the client (see
        :ref:`warehouse`): without weights (or with integer weights) the
        result is bit-equal to the in-memory value, with real-valued weights
        equal to rounding.

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
    """,
)


demographic_parity_ratio = _one_rate(
    "demographic_parity_ratio",
    "selection_rate",
    "ratio",
    r"""Smallest over largest group selection rate (1 is parity).

    fairlearn's definition: ``min_a s_a / max_a s_a``
    (``method="between_groups"``), or the smallest ``s_a / s`` turned
    below one (``min(r, 1 / r)``) with ``s`` the overall rate
    (``"to_overall"``). In [0, 1]; NaN when no group is ever selected.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`demographic_parity_difference`.
    min_group_size, data
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
    """,
)


equalized_odds_difference = _equalized_odds(
    "equalized_odds_difference",
    "difference",
    np.nanmax,
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
    min_group_size, data
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
    """,
)


equalized_odds_ratio = _equalized_odds(
    "equalized_odds_ratio",
    "ratio",
    np.nanmin,
    r"""The smaller (or mean) of the TPR and FPR ratios between groups.

    fairlearn's definition: with ``agg="worst_case"``, the smaller of
    :func:`true_positive_rate_ratio` and :func:`false_positive_rate_ratio`;
    with ``agg="mean"``, their mean. 1 is parity.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`demographic_parity_difference`.
    agg, min_group_size, data
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
    """,
)


true_positive_rate_difference = _one_rate(
    "true_positive_rate_difference",
    "true_positive_rate",
    "difference",
    r"""Largest gap in true positive rate :math:`P(\hat y = 1 \mid Y = 1, A = a)`.

    fairlearn's ``true_positive_rate_difference`` (its
    ``equal_opportunity_difference``): see
    :func:`demographic_parity_difference` for ``method``. Groups without a
    positive true label have no TPR and take no part (with an
    ``UndefinedMetricWarning``).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`equalized_odds_difference`.
    min_group_size, data
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
    """,
)


true_positive_rate_ratio = _one_rate(
    "true_positive_rate_ratio",
    "true_positive_rate",
    "ratio",
    r"""Smallest over largest group true positive rate (1 is parity).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`equalized_odds_difference`.
    min_group_size, data
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
    """,
)


false_positive_rate_difference = _one_rate(
    "false_positive_rate_difference",
    "false_positive_rate",
    "difference",
    r"""Largest gap in false positive rate :math:`P(\hat y = 1 \mid Y = 0, A = a)`.

    Groups without a negative true label have no FPR and take no part
    (with an ``UndefinedMetricWarning``).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`equalized_odds_difference`.
    min_group_size, data
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
    """,
)


false_positive_rate_ratio = _one_rate(
    "false_positive_rate_ratio",
    "false_positive_rate",
    "ratio",
    r"""Smallest over largest group false positive rate (1 is parity).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, method, pos_label, sample_weight
        See :func:`equalized_odds_difference`.
    min_group_size, data
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
    """,
)
