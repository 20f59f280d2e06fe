"""Group-fairness gaps on hard labels: DP, EO and PQP as in the HFM paper.

Bian et al. (2024, footnote 6) compare the privileged group (``a = 1``) with
the rest (``a = 0``): the gaps in positive prediction rate (demographic
parity), in true-positive rate (equality of opportunity) and in precision
(predictive quality parity); each function's docstring gives the formula.
The three share one signature, written once in a factory
(``_privileged_gap``, see ``_rate_factory.py``), and their inputs'
checks with the rate metrics (``_rates.binary_group_inputs``).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ..utils import resolve_privileged
from ..utils._groups import user_stacklevel
from ._dask import dask_dispatch
from ._rate_factory import published
from ._rates import binary_group_inputs

EMPTY_RATE_WARNING = (
    "{metric} is undefined: the {group} group has no samples with {condition}, "
    "so {rate} cannot be computed; returning nan."
)
# metric name -> (numerator, condition, condition text, rate text)
_GAPS = {
    "demographic_parity_gap": (
        "pred",
        None,
        "any sample",
        "the positive prediction rate",
    ),
    "equal_opportunity_gap": (
        "pred",
        "truth",
        "a positive true label",
        "the true positive rate",
    ),
    "predictive_quality_parity_gap": (
        "truth",
        "pred",
        "a positive prediction",
        "the precision",
    ),
}


def _gap(metric, truth, pred, weights, grouping, privileged):
    """``metric`` (a key of ``_GAPS``) of checked labels, weights and grouping."""
    privileged = grouping.codes == resolve_privileged(privileged, grouping)
    labels = {"truth": truth, "pred": pred}
    numerator, condition, condition_text, rate = _GAPS[metric]
    numerator = labels[numerator]
    condition = grouping.kept if condition is None else labels[condition]
    if weights is None:
        weights = np.ones(truth.shape[0])
    elif weights.max() > 0:
        # a power of two keeps the rates exact and their sums finite (1e308)
        weights = np.ldexp(weights, -np.frexp(weights.max())[1])
    rates = []
    for mask, group in (
        (privileged, "privileged"),
        (grouping.kept & ~privileged, "unprivileged"),
    ):
        total = weights[condition & mask].sum()
        if not total > 0:
            warnings.warn(
                EMPTY_RATE_WARNING.format(
                    metric=metric, group=group, condition=condition_text, rate=rate
                ),
                UndefinedMetricWarning,
                stacklevel=user_stacklevel(),  # the Dask dispatcher is a frame too
            )
            return np.nan
        rates.append(weights[numerator & condition & mask].sum() / total)
    return float(abs(rates[0] - rates[1]))


def _privileged_gap(metric, doc):
    """The public metric ``metric`` (a key of ``_GAPS``), with its Dask engine."""

    def privileged_gap(
        y_true,
        y_pred,
        *,
        sensitive_features,
        privileged=None,
        pos_label=1,
        sample_weight=None,
        min_group_size=None,
    ):
        truth, pred, weights, grouping = binary_group_inputs(
            y_true,
            y_pred,
            sensitive_features,
            sample_weight,
            pos_label=pos_label,
            min_group_size=min_group_size,
        )
        return _gap(metric, truth, pred, weights, grouping, privileged)

    return dask_dispatch(metric)(published(privileged_gap, metric, doc))


demographic_parity_gap = _privileged_gap(
    "demographic_parity_gap",
    r"""Gap in positive-prediction rate between the privileged group and the rest.

    .. math::

        \mathrm{DP}(f) = |P(f(x) = 1 \mid a = 1) - P(f(x) = 1 \mid a = 0)|

    as in Bian et al. (2024, footnote 6, Eq. 23a), with :math:`a = 1` the
    privileged group and :math:`a = 0` all other samples. In [0, 1]; lower is
    fairer.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels; unused by DP (kept first for scikit-learn's scorer
        conventions) but validated.
    y_pred : array-like of shape (n_samples,)
        Hard predictions.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; several attributes are combined into their
        intersection (whose labels are tuples).
    privileged : object or None, default=None
        Label of the privileged group (a tuple of labels for several
        attributes, e.g. ``bunch.privileged[col]`` of the bundled datasets);
        every other group is unprivileged. None takes the most frequent group
        (see :func:`skfair.utils.resolve_privileged`); with two groups the gap
        does not depend on the choice.
    pos_label : object, default=1
        The positive class.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights: each rate becomes a weighted proportion.
    min_group_size : int or None, default=None
        None keeps every group and warns about groups of fewer than 30
        samples; an int ``k`` leaves out groups of fewer than ``k`` samples
        (they belong to neither side of the gap).

    Returns
    -------
    gap : float

    Warns
    -----
    UndefinedMetricWarning
        Never for DP (both groups have samples); see
        :func:`equal_opportunity_gap`.

    See Also
    --------
    equal_opportunity_gap, predictive_quality_parity_gap

    References
    ----------
    Y. Bian, Y. Luo, P. Xu. "Does Machine Bring in Extra Bias in Learning?
    Approximating Discrimination Within Models Quickly", 2024, footnote 6.

    Examples
    --------
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> demographic_parity_gap(y_true, y_pred,
    ...                        sensitive_features=[1, 1, 1, 1, 0, 0, 0, 0])
    0.5
    """,
)


equal_opportunity_gap = _privileged_gap(
    "equal_opportunity_gap",
    r"""Gap in true-positive rate between the privileged group and the rest.

    .. math::

        \mathrm{EO}(f) = |P(f(x) = 1 \mid a = 1, y = 1)
                          - P(f(x) = 1 \mid a = 0, y = 1)|

    (Bian et al., 2024, footnote 6, Eq. 23b: equality of opportunity of
    Hardt et al., on the positive class). In [0, 1]; lower is fairer.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True labels and hard predictions.
    sensitive_features, privileged, pos_label, sample_weight, min_group_size
        See :func:`demographic_parity_gap`.

    Returns
    -------
    gap : float
        nan if a group has no positive true label.

    Warns
    -----
    UndefinedMetricWarning
        When a group has no sample with a positive true label (its TPR is
        undefined); the gap is then nan.

    See Also
    --------
    demographic_parity_gap, predictive_quality_parity_gap

    Examples
    --------
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> equal_opportunity_gap(y_true, y_pred,
    ...                       sensitive_features=[1, 1, 1, 1, 0, 0, 0, 0])
    0.5
    """,
)


predictive_quality_parity_gap = _privileged_gap(
    "predictive_quality_parity_gap",
    r"""Gap in precision between the privileged group and the rest.

    .. math::

        \mathrm{PQP}(f) = |P(y = 1 \mid a = 1, f(x) = 1)
                           - P(y = 1 \mid a = 0, f(x) = 1)|

    (Bian et al., 2024, footnote 6, Eq. 23c: predictive quality parity, i.e.
    equal positive predictive value). In [0, 1]; lower is fairer.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True labels and hard predictions.
    sensitive_features, privileged, pos_label, sample_weight, min_group_size
        See :func:`demographic_parity_gap`.

    Returns
    -------
    gap : float
        nan if a group has no positive prediction.

    Warns
    -----
    UndefinedMetricWarning
        When a group has no positive prediction (its precision is
        undefined); the gap is then nan.

    See Also
    --------
    demographic_parity_gap, equal_opportunity_gap

    Examples
    --------
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> round(predictive_quality_parity_gap(
    ...     y_true, y_pred, sensitive_features=[1, 1, 1, 1, 0, 0, 0, 0]), 6)
    0.333333
    """,
)
