"""Rate-parity metrics of multiclass predictions, one class against the rest.

Class ``k`` of a multiclass prediction is a binary decision, "predicted
``k``" or not. Its demographic-parity gap is the gap between groups in the
selection rate of ``y_pred == k``; its true and false positive rate gaps are
those of the indicators ``y_true == k`` and ``y_pred == k`` (one-vs-rest),
exactly fairlearn's binary definitions applied to each indicator. The
per-class gaps are then aggregated over the classes: ``class_agg="max"``
(the worst class, the default) or ``"mean"`` (the macro average). The
counts of every group and class come from one pass (``_multiclass_counts``).
The four metrics are :func:`multiclass_rate_details`'s value, made by one
factory (``_multiclass_rate``, see ``_rate_factory.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..utils import sensitive_groupings
from ._base import check_agg
from ._group_counts import RATE_METRICS
from ._multiclass import check_class_agg
from ._multiclass_counts import (
    check_class_labels,
    class_counts,
    group_index,
    pair_gaps,
    reduce_classes,
    warn_undefined_rates,
    worst_pairs,
)
from ._rate_factory import published

RATE_ERROR = "rate must be one of {names}; got {rate!r}."
#: The rates of :func:`multiclass_rate_details`, by name.
MULTICLASS_RATES = {
    "selection_rate": ("selection_rate",),
    "true_positive_rate": ("true_positive_rate",),
    "false_positive_rate": ("false_positive_rate",),
    "equalized_odds": ("true_positive_rate", "false_positive_rate"),
}


@dataclass(frozen=True)
class MulticlassRateResult:
    """A multiclass rate gap, class by class.

    Returned by :func:`multiclass_rate_details`.

    Attributes
    ----------
    value : float
        The metric: ``class_agg`` of ``by_class["difference"]`` over the
        classes whose difference is defined (NaN if none is).
    rate : str
        ``"selection_rate"``, ``"true_positive_rate"``,
        ``"false_positive_rate"`` or ``"equalized_odds"``.
    classes : tuple
        The classes, in the order of ``by_class``.
    worst_class : object or None
        The class with the largest difference (the one ``class_agg="max"``
        reports); None if no class has one.
    by_class : pandas.DataFrame
        One row per class: ``difference`` (the class's gap between groups,
        aggregated over pairs of groups by ``agg``), ``rate`` (the rate
        that attains it: for ``"equalized_odds"``, the true or the false
        positive rate), ``grouping`` (the attribute, or the intersection),
        ``lowest_group`` and ``highest_group`` (the groups with the lowest
        and highest rate: the worst pair) and their rates ``lowest`` and
        ``highest``.
    by_group : dict of str to pandas.DataFrame
        For each grouping (one, or one per attribute with
        ``combine="marginal"``): the rate of every group (rows) and class
        (columns; ``(rate, class)`` for ``"equalized_odds"``).
    class_agg, agg : str
        The aggregations over classes and over pairs of groups.

    Examples
    --------
    >>> from skfair.metrics import multiclass_rate_details
    >>> result = multiclass_rate_details(
    ...     [0, 1, 2, 2, 1, 0], [0, 1, 2, 2, 2, 2],
    ...     sensitive_features=["a", "a", "a", "b", "b", "b"], min_group_size=1)
    >>> result.rate, result.classes, result.worst_class, round(result.value, 4)
    ('selection_rate', (0, 1, 2), 2, 0.6667)
    """

    value: float
    rate: str
    classes: tuple
    worst_class: object
    by_class: pd.DataFrame
    by_group: dict
    class_agg: str
    agg: str


def _checked_labels(
    y_true, y_pred, *, rate, agg, class_agg, labels, sample_weight, sensitive_features
):
    """The options checked, then the labels encoded (a ``ClassLabels``).

    The public function encodes the groups itself, so that the small-group
    warning points at the user's line.
    """
    check_agg(agg)
    check_class_agg(class_agg)
    if rate not in MULTICLASS_RATES:
        raise ValueError(RATE_ERROR.format(names=sorted(MULTICLASS_RATES), rate=rate))
    return check_class_labels(
        y_true,
        y_pred,
        labels=labels,
        sample_weight=sample_weight,
        sensitive_features=sensitive_features,
    )


def _evaluate(rate, classes, groupings, *, agg, class_agg, stacklevel):
    """The :class:`MulticlassRateResult` of ``rate``; warnings ``stacklevel`` up."""
    candidates, by_group = [], {}
    for grouping in groupings:
        counts = class_counts(classes, grouping).weighted
        tables = {}
        for name in MULTICLASS_RATES[rate]:
            metric = RATE_METRICS[name]
            warn_undefined_rates(
                metric, counts, grouping, classes.classes, stacklevel=stacklevel + 1
            )
            values = metric.value(counts)
            candidates.append((grouping, name, values, *pair_gaps(values, agg)))
            tables[name] = pd.DataFrame(
                values, index=group_index(grouping), columns=list(classes.classes)
            )
        by_group[grouping.name] = (
            tables[name] if len(tables) == 1 else pd.concat(tables, axis=1)
        )
    by_class = worst_pairs(candidates, classes.classes)
    value, worst = reduce_classes(
        by_class["difference"].to_numpy(),
        classes.classes,
        class_agg,
        metric=rate,
        stacklevel=stacklevel + 1,
    )
    return MulticlassRateResult(
        value=value,
        rate=rate,
        classes=classes.classes,
        worst_class=None if worst < 0 else classes.classes[worst],
        by_class=by_class,
        by_group=by_group,
        class_agg=class_agg,
        agg=agg,
    )


def _rate_details(
    rate,
    y_true,
    y_pred,
    *,
    sensitive_features,
    class_agg,
    labels,
    agg,
    combine,
    sample_weight,
    min_group_size,
):
    """The :class:`MulticlassRateResult` of ``rate``: every public function's body.

    Called by the public functions directly, so that the undefined-rate
    warnings (three frames up) point at the user's line; the small-group
    warning finds it by itself.
    """
    classes = _checked_labels(
        y_true,
        y_pred,
        rate=rate,
        agg=agg,
        class_agg=class_agg,
        labels=labels,
        sample_weight=sample_weight,
        sensitive_features=sensitive_features,
    )
    groupings = sensitive_groupings(
        sensitive_features,
        n_samples=classes.n_samples,
        combine=combine,
        against="y_true",
        min_group_size=min_group_size,
    )
    return _evaluate(
        rate, classes, groupings, agg=agg, class_agg=class_agg, stacklevel=3
    )


def multiclass_rate_details(
    y_true,
    y_pred,
    *,
    sensitive_features,
    rate="selection_rate",
    class_agg="max",
    labels=None,
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
):
    """A multiclass rate gap with its per-class values, classes and groups.

    Its ``value`` is that of :func:`multiclass_selection_rate_difference`
    (``rate="selection_rate"``),
    :func:`multiclass_true_positive_rate_difference`,
    :func:`multiclass_false_positive_rate_difference` or
    :func:`multiclass_equalized_odds_difference` (``"equalized_odds"``);
    the result also says which class is the worst, which pair of groups
    makes each class's gap, and every group's rate of every class.

    Parameters
    ----------
    y_true, y_pred, sensitive_features
        See :func:`multiclass_selection_rate_difference`.
    rate : {"selection_rate", "true_positive_rate", "false_positive_rate", \
"equalized_odds"}, default="selection_rate"
        The rate compared.
    class_agg, labels, agg, combine, sample_weight, min_group_size
        See :func:`multiclass_selection_rate_difference`.

    Returns
    -------
    result : MulticlassRateResult

    See Also
    --------
    multiclass_rate_table : Every group's rates with Wilson intervals.

    Examples
    --------
    >>> y_true = ["Low", "Low", "High", "Medium", "High", "Low", "Medium", "High"]
    >>> y_pred = ["Low", "Medium", "High", "Medium", "High", "High", "Low", "High"]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> result = multiclass_rate_details(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1)
    >>> result.value, result.worst_class
    (0.5, 'High')
    >>> result.by_class[["difference", "lowest_group", "highest_group"]]
            difference lowest_group highest_group
    class
    High          0.50            a             b
    Low           0.00            a             a
    Medium        0.50            b             a
    >>> result.by_group["sensitive_features"]
                        High   Low  Medium
    sensitive_features
    a                   0.25  0.25    0.50
    b                   0.75  0.25    0.00
    """
    return _rate_details(
        rate,
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        class_agg=class_agg,
        labels=labels,
        agg=agg,
        combine=combine,
        sample_weight=sample_weight,
        min_group_size=min_group_size,
    )


def _multiclass_rate(name, rate, doc):
    """The public metric ``name``: the value of :func:`multiclass_rate_details`."""

    def multiclass_rate(
        y_true,
        y_pred,
        *,
        sensitive_features,
        class_agg="max",
        labels=None,
        agg="max",
        combine="intersection",
        sample_weight=None,
        min_group_size=None,
    ):
        return _rate_details(
            rate,
            y_true,
            y_pred,
            sensitive_features=sensitive_features,
            class_agg=class_agg,
            labels=labels,
            agg=agg,
            combine=combine,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
        ).value

    return published(multiclass_rate, name, doc)


multiclass_selection_rate_difference = _multiclass_rate(
    "multiclass_selection_rate_difference",
    "selection_rate",
    r"""Largest gap between groups in the rate of predicting each class.

    For each class :math:`k`, the demographic-parity gap of the decision
    "predicted :math:`k`": with :math:`s_{a,k} = P(\hat y = k \mid A = a)`,
    the largest pairwise gap :math:`\max_{a,b} |s_{a,k} - s_{b,k}|`
    (``agg="max"``: fairlearn's ``demographic_parity_difference`` of the
    indicator ``y_pred == k``) or its mean over the pairs of groups
    (``agg="mean"``). The per-class gaps are then aggregated over the
    classes: the worst class (``class_agg="max"``) or their mean
    (``"mean"``, a macro average). In [0, 1]; 0 when every group is given
    every class at the same rate.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels; unused here (kept first for scikit-learn's scorer
        conventions) but validated with ``y_pred``, and their classes are
        part of the class list.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels (``estimator.predict``): any hashable values,
        e.g. ``"Low"``, ``"Medium"``, ``"High"``; floats must be whole.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels (pandas or polars frames and series, arrays, lists).
    class_agg : {"max", "mean"}, default="max"
        Aggregation over classes: the largest per-class gap, or their mean.
        A class whose gap is undefined (fewer than two groups with a defined
        rate) takes no part, with an ``UndefinedMetricWarning``.
    labels : array-like or None, default=None
        The classes, in order. None takes the sorted union of the labels of
        ``y_true`` and ``y_pred``. A listed class that a group is never
        given has rate 0 there; a label left out of the list counts as
        "not ``k``" for every listed class ``k`` (so that, as with
        scikit-learn's ``labels=``, a class can be left out of the
        aggregate).
    agg : {"max", "mean"}, default="max"
        Aggregation over pairs of groups: the worst pair, or the mean over
        the pairs.
    combine : {"intersection", "marginal"}, default="intersection"
        With several attributes: compare their intersections, or each
        attribute on its own and keep, for each class, the worst attribute.
    sample_weight : array-like of shape (n_samples,), default=None
        Each rate becomes a weighted proportion.
    min_group_size : int or None, default=None
        None keeps every group and warns about groups under 30 samples; an
        int ``k`` leaves out the groups of fewer than ``k`` samples.

    Returns
    -------
    difference : float

    Warns
    -----
    UndefinedMetricWarning
        When a group has total weight 0 (its rate is NaN and it takes no
        part), or a class's gap is undefined.

    See Also
    --------
    multiclass_rate_details : The per-class gaps, worst class and groups.
    multiclass_rate_table : Every group's per-class rates with intervals.
    demographic_parity_difference : The binary metric.

    Notes
    -----
    With two classes both per-class gaps equal the binary
    :func:`demographic_parity_difference` (the two indicators are
    complements), so ``class_agg`` makes no difference.

    Examples
    --------
    >>> y_true = ["Low", "Low", "High", "Medium", "High", "Low", "Medium", "High"]
    >>> y_pred = ["Low", "Medium", "High", "Medium", "High", "High", "Low", "High"]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> multiclass_selection_rate_difference(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1)
    0.5
    >>> round(multiclass_selection_rate_difference(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1,
    ...     class_agg="mean"), 4)
    0.3333
    """,
)


multiclass_true_positive_rate_difference = _multiclass_rate(
    "multiclass_true_positive_rate_difference",
    "true_positive_rate",
    r"""Largest gap between groups in each class's one-vs-rest true positive rate.

    For each class :math:`k`, the gap between groups of
    :math:`P(\hat y = k \mid y = k, A = a)` (the recall of class :math:`k`):
    fairlearn's ``true_positive_rate_difference`` of the indicators
    ``y_true == k`` and ``y_pred == k`` (``agg="max"``), aggregated over
    the classes by ``class_agg``. A group with no sample of class :math:`k`
    has no TPR for it: NaN, named in an ``UndefinedMetricWarning``, and left
    out of that class's gap (fairlearn counts it as 0).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, class_agg, labels, agg
        See :func:`multiclass_selection_rate_difference`; here the true
        class labels ``y_true`` say which samples are each class's positives.
    combine, sample_weight, min_group_size
        See :func:`multiclass_selection_rate_difference`.

    Returns
    -------
    difference : float

    See Also
    --------
    multiclass_equalized_odds_difference, multiclass_rate_details
    true_positive_rate_difference : The binary metric.

    Examples
    --------
    >>> y_true = ["Low", "Low", "High", "Medium", "High", "Low", "Medium", "High"]
    >>> y_pred = ["Low", "Medium", "High", "Medium", "High", "High", "Low", "High"]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> multiclass_true_positive_rate_difference(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1)
    1.0
    """,
)


multiclass_false_positive_rate_difference = _multiclass_rate(
    "multiclass_false_positive_rate_difference",
    "false_positive_rate",
    r"""Largest gap between groups in each class's one-vs-rest false positive rate.

    For each class :math:`k`, the gap between groups of
    :math:`P(\hat y = k \mid y \ne k, A = a)`: fairlearn's
    ``false_positive_rate_difference`` of the indicators ``y_true == k``
    and ``y_pred == k`` (``agg="max"``), aggregated over the classes by
    ``class_agg``. A group whose every sample is of class :math:`k` has no
    FPR for it (NaN, with an ``UndefinedMetricWarning``).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, class_agg, labels, agg
        See :func:`multiclass_true_positive_rate_difference`.
    combine, sample_weight, min_group_size
        See :func:`multiclass_selection_rate_difference`.

    Returns
    -------
    difference : float

    See Also
    --------
    multiclass_equalized_odds_difference, multiclass_rate_details
    false_positive_rate_difference : The binary metric.

    Examples
    --------
    >>> y_true = ["Low", "Low", "High", "Medium", "High", "Low", "Medium", "High"]
    >>> y_pred = ["Low", "Medium", "High", "Medium", "High", "High", "Low", "High"]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> multiclass_false_positive_rate_difference(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1)
    0.5
    """,
)


multiclass_equalized_odds_difference = _multiclass_rate(
    "multiclass_equalized_odds_difference",
    "equalized_odds",
    r"""Multiclass equalized odds: each class's larger TPR or FPR gap, over classes.

    For each class :math:`k`, the larger of its one-vs-rest true and false
    positive rate gaps (:func:`multiclass_true_positive_rate_difference`
    and :func:`multiclass_false_positive_rate_difference` of that class):
    fairlearn's ``equalized_odds_difference`` (``agg="worst_case"``) of the
    indicators ``y_true == k`` and ``y_pred == k``. The per-class values
    are aggregated by ``class_agg``; with ``class_agg="max"`` the result is
    the larger of the two multiclass metrics.

    Parameters
    ----------
    y_true, y_pred, sensitive_features, class_agg, labels, agg
        See :func:`multiclass_true_positive_rate_difference`.
    combine, sample_weight, min_group_size
        See :func:`multiclass_selection_rate_difference`.

    Returns
    -------
    difference : float

    See Also
    --------
    multiclass_rate_details : Which rate, class and groups make the value.
    equalized_odds_difference : The binary metric.

    Examples
    --------
    >>> y_true = ["Low", "Low", "High", "Medium", "High", "Low", "Medium", "High"]
    >>> y_pred = ["Low", "Medium", "High", "Medium", "High", "High", "Low", "High"]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> multiclass_equalized_odds_difference(
    ...     y_true, y_pred, sensitive_features=groups, min_group_size=1)
    1.0
    """,
)
