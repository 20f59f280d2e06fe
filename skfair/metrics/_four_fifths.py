"""The four-fifths rule of adverse impact, on fairlearn's selection rates."""

from __future__ import annotations

from dataclasses import dataclass

import narwhals.stable.v2 as nw
import numpy as np

from ..utils._validation import check_fraction
from ._frame_arg import as_frame, check_column_names, frame_columns, lazy_engine
from ._rates import group_rates


@dataclass(frozen=True)
class FourFifthsResult:
    """The outcome of :func:`four_fifths`.

    Attributes
    ----------
    passed : bool
        Whether every group's selection rate is at least ``threshold`` times
        the highest (also when no group is selected at all).
    ratio : float
        Lowest over highest group selection rate (NaN if none is selected).
    lowest_group, highest_group : object
        The labels of the groups with the lowest and the highest selection
        rate (tuples for intersections; the first in label order on ties).
    selection_rates : dict
        Every group's selection rate, by label.
    threshold : float
        The ratio the rule requires.

    Examples
    --------
    >>> result = four_fifths([0, 1, 0, 1], [1, 1, 0, 1],
    ...                      sensitive_features=["a", "a", "b", "b"])
    >>> result.passed, result.lowest_group, result.highest_group
    (False, 'b', 'a')
    """

    passed: bool
    ratio: float
    lowest_group: object
    highest_group: object
    selection_rates: dict
    threshold: float = 0.8


def four_fifths(
    y_true,
    y_pred,
    *,
    sensitive_features,
    threshold=0.8,
    pos_label=1,
    sample_weight=None,
    min_group_size=None,
    data=None,
):
    r"""The four-fifths rule: every group selected at 80 % of the top rate or more.

    The adverse-impact rule of the U.S. Uniform Guidelines on Employee
    Selection Procedures (29 CFR 1607.4 D): a selection rate below four
    fifths of the highest group's is evidence of adverse impact. The ratio
    is :func:`demographic_parity_ratio`; the result also names the groups
    at both ends.

    Parameters
    ----------
    y_true, y_pred, sensitive_features : array-like
        See :func:`demographic_parity_difference`.
    threshold : float, default=0.8
        The required ratio, in [0, 1].
    pos_label, sample_weight, min_group_size, data
        See :func:`demographic_parity_difference`. With ``data`` a lazy
        frame (DuckDB, polars lazy, SQLFrame, PySpark) the group selection
        rates are computed in its engine, as for the rate metrics.

    Returns
    -------
    result : FourFifthsResult

    See Also
    --------
    demographic_parity_ratio, FourFifthsResult

    Notes
    -----
    The rule is a screening heuristic on observed rates, not a test: with
    small groups a ratio under 0.8 can be noise (the guidelines ask for
    statistical and practical significance too), so look at the groups'
    intervals (:meth:`GroupMetricFrame.by_group_interval`) before concluding.

    Examples
    --------
    >>> result = four_fifths([0, 1, 1, 0, 1, 0, 0, 1], [1, 1, 1, 0, 1, 1, 0, 1],
    ...                      sensitive_features=["a"] * 4 + ["b"] * 4)
    >>> result.passed, result.ratio, result.selection_rates
    (True, 1.0, {'a': 0.75, 'b': 0.75})

    On a lazy frame's columns (``data=``), computed in its engine:

    >>> import polars as pl
    >>> frame = pl.LazyFrame({"y": [0, 1, 0, 1], "p": [1, 1, 0, 1],
    ...                       "g": ["a", "a", "b", "b"]})
    >>> four_fifths("y", "p", sensitive_features="g", data=frame).ratio
    0.5
    """
    threshold = check_fraction(threshold, name="threshold")
    arguments = {
        "y_true": y_true,
        "y_pred": y_pred,
        "sensitive_features": sensitive_features,
        "pos_label": pos_label,
        "sample_weight": sample_weight,
        "min_group_size": min_group_size,
    }
    names = ["selection_rate"]
    if data is None:
        values, _, grouping = group_rates(names, **arguments)
        labels = grouping.labels
    elif isinstance(as_frame(data), nw.DataFrame):
        values, _, grouping = group_rates(
            names, **frame_columns("group_rates", {**arguments, "data": data})
        )
        labels = grouping.labels
    else:
        check_column_names(arguments)
        values, _, labels = lazy_engine("group_rates")(names, data, **arguments)
    rates = np.asarray(values, dtype=float)[:, 0]
    low, high = int(np.nanargmin(rates)), int(np.nanargmax(rates))
    ratio = rates[low] / rates[high] if rates[high] > 0 else float("nan")
    return FourFifthsResult(
        passed=bool(rates[low] >= threshold * rates[high]),
        ratio=float(ratio),
        lowest_group=labels[low],
        highest_group=labels[high],
        selection_rates=dict(zip(labels, rates.tolist())),
        threshold=threshold,
    )
