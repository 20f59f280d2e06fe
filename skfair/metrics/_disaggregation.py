"""Any metric by group, in fairlearn's vocabulary: :class:`GroupMetricFrame`.

The frame's inputs are checked in ``_disaggregation_inputs.py``; the cells
and the metrics on them are ``_disaggregation_strata.py``, the intervals
``_disaggregation_intervals.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..utils._groups import check_min_group_size
from ._base import checked_label_pair
from ._disaggregation_inputs import (
    DUPLICATE_NAME_ERROR,
    check_metrics,
    engine_refusal,
    grouping_columns,
    sample_rows,
    with_indicators,
)
from ._disaggregation_intervals import compare_bounds, value_bounds
from ._disaggregation_strata import Samples, evaluate, make_strata
from ._frame_arg import LAZY_ENGINE_LOADERS
from ._group_counts import (
    RATE_METRICS,
    check_compare_method,
    compare,
)
from .inference import check_confidence_level, random_generator

#: Elementwise ``value is None`` of an object array.
_is_none = np.frompyfunc(lambda value: value is None, 1, 1)


def _lazy_engines():
    """The engines of the metrics' ``data=`` on lazy frames.

    Registered here, above both the metrics and the engines, so that neither
    imports the other; imported on the first lazy call only.
    """
    from ._lazy import _counts, _distribution, _mcdp

    return {
        "group_rates": _counts.group_rates,
        "distinct_rows": _counts.distinct_rows,
        "mcdp": _mcdp.mcdp,
        "mcdp_details": _mcdp.mcdp_details,
        "mcdp_curve": _mcdp.mcdp_curve,
        "delta_dp": _distribution.delta_dp,
        "abcc": _distribution.abcc,
    }


LAZY_ENGINE_LOADERS.append(_lazy_engines)

LAZY_GROUP_METRIC_ERROR = (
    "GroupMetricFrame computes on a lazy frame ({kind}) the metrics of the "
    "confusion counts only, inside the engine: the names {names}, and "
    "scikit-learn's accuracy_score, zero_one_loss, balanced_accuracy_score, "
    "recall_score, precision_score and f1_score (or a functools.partial of "
    "them setting pos_label or zero_division) on binary labels. {which} is "
    "{what}, which needs every row. Pass one of those names, or collect the "
    "columns first (e.g. frame.select([...]).collect() for a polars "
    "LazyFrame, relation.df() for DuckDB) and pass the eager frame as data=."
)


def _frame_inputs(data, metrics, y_true, y_pred, sensitive, control, sample_params):
    """The frame's inputs from the columns of ``data`` (see ``data`` of the class).

    An eager frame's columns; a lazy frame's distinct rows from its engine,
    with ``"multiplicity"`` (None for the columns themselves); Dask too.
    """
    from ._frame_arg import (
        frame_group_inputs,
        is_lazy_frame,
        lazy_group_inputs,
    )

    refused = engine_refusal(metrics, sample_params)
    if is_lazy_frame(data):
        if refused is not None:
            key, what = refused
            raise TypeError(
                LAZY_GROUP_METRIC_ERROR.format(
                    kind=type(data).__name__,
                    names=", ".join(sorted(RATE_METRICS)),
                    which="The metric" if key is None else f"Metric {key!r}",
                    what=what,
                )
            )
        args = (y_true, y_pred, sensitive, control, sample_params)
        return lazy_group_inputs(data, *args)
    inputs = frame_group_inputs(data, y_true, y_pred, sensitive, control, sample_params)
    inputs["multiplicity"] = None
    return inputs


class GroupMetricFrame:
    """Any metric by group, with fairlearn's ``MetricFrame`` vocabulary.

    The name says what it is to a fairlearn user (a metric frame, by group)
    without claiming to *be* fairlearn's ``MetricFrame``: the values agree
    with it, but undefined rates are NaN rather than 0, small groups follow
    skfair's ``min_group_size`` rule, and intervals are methods with stated
    coverage rather than bootstrap quantiles fixed at construction.

    Metrics given by name (accuracy, precision, recall, selection rate,
    true/false positive/negative rates, F1, balanced accuracy, zero-one
    loss, count) are computed together from every group's confusion counts
    in one pass over the samples, and so are scikit-learn's own
    ``accuracy_score``, ``zero_one_loss``, ``balanced_accuracy_score``,
    ``recall_score``, ``precision_score`` and ``f1_score`` (or a
    ``functools.partial`` of them setting ``pos_label`` or
    ``zero_division``) on binary labels, with the numbers they give per
    group; any other metric is called once per group.

    Parameters
    ----------
    metrics : callable, str or dict
        ``f(y_true, y_pred, **sample_params)`` returning a value; a name
        (the confusion-count metrics: "accuracy", "balanced_accuracy",
        "precision", "recall", "f1", "selection_rate", "true_positive_rate",
        "false_positive_rate", "true_negative_rate", "false_negative_rate",
        "zero_one_loss", "count", and their ``*_score`` spellings; or any
        scikit-learn scorer or ``sklearn.metrics`` function name, called per
        group); or a dict of them, by column name. As in fairlearn, one
        metric alone gives scalars and Series where a dict gives Series and
        DataFrames. Where a rate is undefined (a group without positives has
        no recall) the names of scikit-learn's functions ("precision",
        "recall", "f1" and their ``*_score`` spellings) give what the
        function gives (``zero_division="warn"``: 0.0, with a warning naming
        the groups); the other names give NaN, which takes no part in a
        difference or ratio. "count" is the number of samples, or with
        ``sample_weight`` their total weight.
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, k)
        Passed to the metrics (the confusion-count metrics need binary
        labels: at most two classes in both together).
    sensitive_features : array-like, Series, DataFrame or dict of arrays
        One or several grouping columns (pandas or polars); several give a
        MultiIndex of every combination of their labels (empty combinations
        are NaN rows). Unnamed columns are named ``sensitive_feature_k``.
    control_features : same types as sensitive_features, default=None
        Columns to compare *within*: every aggregate (``overall``,
        ``difference``, ...) is given per control level. Unnamed columns are
        named ``control_feature_k``.
    sample_params : dict, default=None
        ``{parameter: array}`` for one metric, ``{name: {parameter: array}}``
        for a dict of metrics; split by group alongside ``y_true`` (e.g.
        ``sample_weight``, the only one the confusion-count metrics take).
    pos_label : object, default=None
        The positive class of the metrics given by name; None is the
        larger of two labels, and with one label ``pos_label=1`` as in
        scikit-learn and fairlearn (a model that predicts 0 for everyone
        selects nobody). scikit-learn's functions keep their own
        ``pos_label``.
    min_group_size : int or None, default=None
        None keeps every group and warns about those of fewer than 30
        samples; an int ``k`` leaves out the groups of fewer than ``k``
        samples (NaN rows, or no row with one grouping column); their
        samples still count in ``overall``.
    data : DataFrame, default=None
        A frame narwhals supports, eager (pandas, polars, PyArrow, ...) or
        lazy (a DuckDB relation, a polars ``LazyFrame``, a Dask, PySpark or
        SQLFrame DataFrame, ...); then ``y_true``, ``y_pred``,
        ``sensitive_features`` (a name or a list of names),
        ``control_features`` and the values of ``sample_params`` are the
        names of its columns. On a lazy frame the metrics must be those of
        the confusion counts (by name, or the scikit-learn functions above):
        one group-by in the engine by the grouping columns and the two
        labels returns each distinct row's number of samples (and sums of
        weights and squared weights), from which every result is the
        in-memory one (bit-equal without weights and with integer weights,
        to rounding with real-valued weights); nulls and NaN are counted in
        the engine. Any other callable, and the bootstrap of weighted
        metrics (it resamples rows), are refused with what to do (collect
        the columns).

    Attributes
    ----------
    by_group : Series or DataFrame
        Every metric on every group (rows: groups; columns: metrics).
    overall : scalar, Series or DataFrame
        Every metric on all samples (per control level).
    sensitive_levels, control_levels : list of str or None
        The grouping columns' names.

    See Also
    --------
    demographic_parity_difference, equalized_odds_difference, four_fifths

    Notes
    -----
    Intervals: see :meth:`by_group_interval` and :meth:`difference_interval`
    for which interval each value gets and what it covers.

    Examples
    --------
    >>> y_true = [1, 1, 1, 1, 1, 0, 0, 1, 1, 0]
    >>> y_pred = [0, 1, 1, 1, 1, 0, 0, 0, 1, 1]
    >>> sex = ["Female"] * 5 + ["Male"] * 5
    >>> frame = GroupMetricFrame(metrics={"accuracy": "accuracy",
    ...                                   "selection_rate": "selection_rate"},
    ...                          y_true=y_true, y_pred=y_pred,
    ...                          sensitive_features=sex)
    >>> frame.by_group
                         accuracy  selection_rate
    sensitive_feature_0
    Female                    0.8             0.8
    Male                      0.6             0.4
    >>> frame.difference()
    accuracy          0.2
    selection_rate    0.4
    dtype: float64
    >>> low, high = frame.by_group_interval(confidence_level=0.95)
    >>> low.round(3)
                         accuracy  selection_rate
    sensitive_feature_0
    Female                  0.376           0.376
    Male                    0.231           0.118
    """

    def __init__(
        self,
        *,
        metrics,
        y_true,
        y_pred,
        sensitive_features,
        control_features=None,
        sample_params=None,
        pos_label=None,
        min_group_size=None,
        data=None,
    ):
        multiplicity = None
        if data is not None:
            inputs = _frame_inputs(
                data,
                metrics,
                y_true,
                y_pred,
                sensitive_features,
                control_features,
                sample_params,
            )
            y_true, y_pred = inputs["y_true"], inputs["y_pred"]
            sensitive_features = inputs["sensitive_features"]
            control_features = inputs["control_features"]
            sample_params = inputs["sample_params"]
            multiplicity = inputs["multiplicity"]
        check_min_group_size(min_group_size)
        y_true, y_pred = checked_label_pair(
            y_true,
            y_pred,
            sample_rows,
            sensitive_features=sensitive_features,
            control_features=control_features,
        )
        n_samples = y_true.shape[0]
        self._single, metrics = check_metrics(metrics, sample_params, n_samples)
        metrics = with_indicators(metrics, y_true, y_pred, pos_label)
        if multiplicity is not None:
            _check_in_engine(metrics, data)
        columns = self._columns(sensitive_features, control_features, n_samples)
        strata = make_strata(
            columns["codes"],
            columns["dims"],
            columns["n_control"],
            self._cell_label,
            min_group_size,
            name=" & ".join(self._sensitive_names),
            multiplicity=multiplicity,
        )
        samples = Samples(y_true, y_pred)
        self._evaluation = evaluate(metrics, samples, strata, self._cell_label)
        self._names = [metric.name for metric in metrics]
        self._index_rows(strata)

    def _columns(self, sensitive_features, control_features, n_samples):
        """Encode the grouping columns (control first) and keep their labels."""
        sensitive, names = grouping_columns(
            sensitive_features, "sensitive_feature_", n_samples, "sensitive_features"
        )
        self._sensitive_names, self._control_names = names, None
        parts = [sensitive]
        if control_features is not None:
            control, self._control_names = grouping_columns(
                control_features, "control_feature_", n_samples, "control_features"
            )
            for name in self._control_names:
                if name in self._sensitive_names:
                    raise ValueError(DUPLICATE_NAME_ERROR.format(name=name))
            parts.insert(0, control)
        self._levels = [list(c) for part in parts for c in part.categories]
        dims = tuple(len(levels) for levels in self._levels)
        n_control = int(np.prod(dims[: len(dims) - sensitive.n_attributes]))
        codes = [part.codes[:, k] for part in parts for k in range(part.n_attributes)]
        return {"codes": codes, "dims": dims, "n_control": n_control}

    def _cell_label(self, position):
        """The label of table row ``position`` (a tuple with several columns)."""
        if len(self._levels) == 1:
            return self._levels[0][position]
        dims = tuple(len(levels) for levels in self._levels)
        parts = np.unravel_index(position, dims)
        return tuple(levels[i] for levels, i in zip(self._levels, parts))

    def _index_rows(self, strata):
        """The by-group index, the table rows it shows, and the control index."""
        names = (self._control_names or []) + self._sensitive_names
        if len(names) == 1:
            self._rows = strata.position[strata.kept]
            self._index = pd.Index(
                [self._levels[0][p] for p in self._rows], name=names[0]
            )
        else:
            self._rows = np.arange(strata.n_control * strata.n_sensitive)
            self._index = pd.MultiIndex.from_product(self._levels, names=names)
        self._control_index = None
        if self._control_names is not None:
            levels = self._levels[: len(self._control_names)]
            self._control_index = (
                pd.Index(levels[0], name=self._control_names[0])
                if len(levels) == 1
                else pd.MultiIndex.from_product(levels, names=self._control_names)
            )

    # -- formatting, as fairlearn's MetricFrame returns its results ---------

    def _table(self, by_cell, dtype=np.float64):
        """Cell values (n_cells, M) as the by-group Series or DataFrame."""
        strata = self._evaluation.strata
        fill = None if dtype is object else np.nan
        full = np.full((strata.n_control * strata.n_sensitive, by_cell.shape[1]), fill)
        full = full.astype(dtype)
        full[strata.position[strata.kept]] = by_cell[strata.kept]
        full = full[self._rows]
        if dtype is object:  # missing cells NaN before the dtypes are inferred
            # (``fillna`` after them warns of a downcast on pandas 2)
            full[_is_none(full).astype(bool)] = np.nan
        frame = pd.DataFrame(full, index=self._index, columns=self._names)
        if dtype is object:
            frame = frame.infer_objects()
        return frame.iloc[:, 0] if self._single else frame

    def _per_level(self, values):
        """Values (C, M) as a scalar, Series or DataFrame (fairlearn's types)."""
        if self._control_index is None:
            if self._single:
                return values[0, 0]
            return pd.Series(list(values[0]), index=self._names)
        frame = pd.DataFrame(values, index=self._control_index, columns=self._names)
        frame = frame.infer_objects()
        return frame.iloc[:, 0] if self._single else frame

    def _group_values(self):
        """Float values as an array (C, G, M) over the full table."""
        strata, by_cell = self._evaluation.strata, self._evaluation.by_cell
        full = np.full(
            (strata.n_control * strata.n_sensitive, by_cell.shape[1]), np.nan
        )
        full[strata.position[strata.kept]] = by_cell[strata.kept]
        return full.reshape(strata.n_control, strata.n_sensitive, -1)

    # -- fairlearn's API -------------------------------------------------------

    @property
    def by_group(self):
        """Every metric on every group: a Series (one metric) or DataFrame."""
        return self._table(self._evaluation.raw_cells, dtype=object)

    @property
    def overall(self):
        """Every metric on all samples: a scalar, Series or DataFrame.

        One metric without control features gives its value; a dict gives
        a Series by metric; with control features, one row per control level.
        """
        levels = self._evaluation.raw_levels.copy()
        for index, value in np.ndenumerate(levels):
            if value is None:  # an empty control level
                levels[index] = np.nan
        return self._per_level(levels)

    @property
    def sensitive_levels(self):
        """Names of the sensitive feature columns."""
        return list(self._sensitive_names)

    @property
    def control_levels(self):
        """Names of the control feature columns, or None."""
        return None if self._control_names is None else list(self._control_names)

    def group_min(self):
        """Smallest group value of every metric (per control level).

        Returns
        -------
        minimum : scalar, Series or DataFrame
            Typed like :attr:`overall`; NaN and non-scalar values are skipped.
        """
        return self._per_level(_nan_reduce(np.nanmin, self._group_values()))

    def group_max(self):
        """Largest group value of every metric (per control level).

        Returns
        -------
        maximum : scalar, Series or DataFrame
            Typed like :attr:`overall`.
        """
        return self._per_level(_nan_reduce(np.nanmax, self._group_values()))

    def difference(self, method="between_groups"):
        """Largest difference between groups, or between a group and overall.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            ``group_max() - group_min()``, or the largest
            ``|group value - overall|``.

        Returns
        -------
        difference : scalar, Series or DataFrame
            Typed like :attr:`overall`; groups whose value is NaN (an
            undefined rate) are skipped, and ``"between_groups"`` is NaN
            unless two groups have a value (pandas, and so fairlearn, would
            give 0).
        """
        check_compare_method(method)
        return self._per_level(self._compare("difference", method))

    def ratio(self, method="between_groups"):
        """Smallest ratio between groups, or between a group and overall.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            ``group_min() / group_max()``, or the smallest
            ``group value / overall`` turned below one (``min(r, 1 / r)``).

        Returns
        -------
        ratio : scalar, Series or DataFrame
            Typed like :attr:`overall`.
        """
        check_compare_method(method)
        return self._per_level(self._compare("ratio", method))

    def _compare(self, how, method):
        return compare(
            self._group_values(), self._evaluation.overall, how=how, method=method
        )

    # -- intervals --------------------------------------------------------------

    def by_group_interval(
        self,
        confidence_level=0.95,
        *,
        interval="auto",
        n_resamples=999,
        random_state=None,
    ):
        """Confidence interval of every group's value.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Each group's interval covers its value with this probability
            (pointwise, not simultaneously over groups).
        interval : {"auto", "wilson", "bootstrap"}, default="auto"
            "auto": Wilson's score interval on the metric's own denominator
            for the proportions (accuracy, selection rate, true/false
            positive/negative rates, precision, zero-one loss; with weights,
            on Kish's effective sample size), the percentile interval of a
            stratified bootstrap (resampling within each group) for the
            other metrics. "wilson" refuses a metric that is no proportion.
        n_resamples : int, default=999
            Bootstrap resamples (unused by Wilson).
        random_state : int, RandomState, Generator or None, default=None
            Seeds the bootstrap.

        Returns
        -------
        low, high : Series or DataFrame
            Typed like :attr:`by_group` (count: its own value).
        """
        return self._bounds(
            "cells", None, confidence_level, interval, n_resamples, random_state
        )

    def overall_interval(
        self,
        confidence_level=0.95,
        *,
        interval="auto",
        n_resamples=999,
        random_state=None,
    ):
        """Confidence interval of every metric's overall value.

        Parameters are those of :meth:`by_group_interval`.

        Returns
        -------
        low, high : scalar, Series or DataFrame
            Typed like :attr:`overall`.
        """
        return self._bounds(
            "levels", None, confidence_level, interval, n_resamples, random_state
        )

    def difference_interval(
        self,
        method="between_groups",
        *,
        confidence_level=0.95,
        interval="auto",
        n_resamples=999,
        random_state=None,
    ):
        """Confidence interval of :meth:`difference`.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            As in :meth:`difference`.
        confidence_level : float, default=0.95
            Coverage of each metric's (and control level's) interval.
        interval : {"auto", "newcombe", "bootstrap"}, default="auto"
            "auto": for a proportion's ``between_groups`` difference,
            Newcombe's interval for every pair of groups, Bonferroni-corrected
            (Newcombe's own interval with two groups); otherwise the
            simultaneous band of a stratified bootstrap, whose extremes bound
            the difference (conservative). "newcombe" refuses the rest.
        n_resamples : int, default=999
            Bootstrap resamples (at least enough for the band's quantile).
        random_state : int, RandomState, Generator or None, default=None
            Seeds the bootstrap.

        Returns
        -------
        low, high : scalar, Series or DataFrame
            Typed like :attr:`overall`.
        """
        return self._bounds(
            "difference", method, confidence_level, interval, n_resamples, random_state
        )

    def ratio_interval(
        self,
        method="between_groups",
        *,
        confidence_level=0.95,
        interval="auto",
        n_resamples=999,
        random_state=None,
    ):
        """Confidence interval of :meth:`ratio` (a bootstrap band).

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            As in :meth:`ratio`.
        confidence_level, n_resamples, random_state
            See :meth:`difference_interval`.
        interval : {"auto", "bootstrap"}, default="auto"
            Both: the ratio's bounds from the stratified bootstrap's
            simultaneous band of the group values (NaN for metrics with
            negative values).

        Returns
        -------
        low, high : scalar, Series or DataFrame
            Typed like :attr:`overall`.
        """
        return self._bounds(
            "ratio", method, confidence_level, interval, n_resamples, random_state
        )

    def _bounds(
        self, what, method, confidence_level, interval, n_resamples, random_state
    ):
        """Low and high of the values ("cells", "levels") or of a comparison.

        A comparison is ``what="difference"`` or ``"ratio"`` by ``method``.
        The arguments are checked in the order of the public methods; the
        bounds are typed like :attr:`by_group` ("cells") or :attr:`overall`.
        """
        compared = what in ("difference", "ratio")
        if compared:
            check_compare_method(method)
        level = check_confidence_level(confidence_level)
        rng = random_generator(random_state)
        if compared:
            low, high = compare_bounds(
                self._evaluation, what, method, level, interval, n_resamples, rng
            )
        else:
            low, high = value_bounds(
                self._evaluation, what, level, interval, n_resamples, rng
            )
        form = self._table if what == "cells" else self._per_level
        return form(low), form(high)

    def __repr__(self):
        groups = len(self._index)
        return (
            f"GroupMetricFrame(metrics={self._names}, "
            f"sensitive_levels={self._sensitive_names}, "
            f"control_levels={self._control_names}, n_groups={groups})"
        )


def _check_in_engine(metrics, data):
    """Refuse a scikit-learn function that must be called (labels not binary)."""
    for metric in metrics:
        if not metric.by_counts:
            raise TypeError(
                LAZY_GROUP_METRIC_ERROR.format(
                    kind=type(data).__name__,
                    names=", ".join(sorted(RATE_METRICS)),
                    which=f"Metric {metric.name!r}",
                    what="a scikit-learn function called per group on these "
                    "labels (not two classes, or its pos_label not among them)",
                )
            )


def _nan_reduce(reduce, values):
    """``reduce`` over the groups axis of (C, G, M); NaN for an all-NaN slice."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices
        return reduce(values, axis=1)
