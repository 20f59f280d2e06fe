"""The ``data=`` argument of the public metrics: a frame and the names of its columns.

With ``data=``, the data arguments of a public metric (``y_true``,
``y_score``/``y_pred``, ``sensitive_features``, ``sample_weight``) are the
*names* of columns of ``data``. What happens next depends on the frame:

* an eager frame (pandas, polars ``DataFrame``, PyArrow table, ...): its
  columns are taken out and the in-memory function runs on them, so every
  option of the function is available and the result is the one of the
  same call on the columns themselves;
* a Dask DataFrame: with one score column, the metrics of
  :data:`LAZY_METRICS` run on narwhals' Dask backend of the lazy engine
  (measured faster than the Dask engine); class-probability columns and
  the other functions take its columns (Dask Series) to the Dask engine,
  as when they are passed directly;
* any other lazy frame narwhals supports (a DuckDB relation, a polars
  ``LazyFrame``, PySpark, SQLFrame, Ibis): the metrics with an engine
  (:data:`LAZY_METRICS`; the engines load on the first lazy call, through
  :data:`LAZY_ENGINE_LOADERS`) are computed inside it by group-by
  aggregations; the others raise :data:`LAZY_IN_MEMORY_ERROR`.

fairlearn's rate differences and ratios (``demographic_parity_difference``,
``equalized_odds_difference``, ...) go through :func:`rates_on_frame`:
their per-group rates come from the engine's ``group_rates`` on any lazy
frame, Dask included (they have no Dask engine of their own: narwhals'
Dask backend runs the same group-by), and from the columns in memory on an
eager frame.

This module sits below the metric modules and the engines, so that neither
imports the other through it.
"""

from __future__ import annotations

import functools
import inspect
import warnings

import narwhals.stable.v2 as nw

from ..utils._dask import is_dask_collection
from ._given import on_sides

# The arguments that name columns of ``data``.
COLUMN_ARGUMENTS = (
    "y_true",
    "y_score",
    "y_pred",
    "sensitive_features",
    "sample_weight",
)

# Loaders of the engines on lazy frames, registered by the module above both
# the metrics and the engines (``_disaggregation``); each returns a dict
# metric name -> engine (the frame first). They run on the first lazy call,
# so that NumPy calls never load the engines.
LAZY_ENGINE_LOADERS = []
# The metrics with an engine (known without loading it).
LAZY_METRICS = ("mcdp", "mcdp_details", "mcdp_curve", "delta_dp", "abcc")


def lazy_engine(name):
    """The engine of the metric ``name`` on lazy frames (loaded on first use)."""
    engines = {}
    for loader in LAZY_ENGINE_LOADERS:
        engines.update(loader())
    return engines[name]


LAZY_DATA_ERROR = (
    "data must be a dataframe narwhals supports (a DuckDB relation, a polars "
    "LazyFrame or DataFrame, a PySpark or SQLFrame DataFrame, an Ibis table, "
    "a Dask or pandas DataFrame, ...); got {type}."
)
LAZY_COLUMN_NAME_ERROR = (
    "With data=, {role} must be the name of a column (a str){plural}; got {value!r}."
)
LAZY_MISSING_COLUMN_ERROR = (
    "{role}={name!r} is not a column of data; its columns are {columns}. "
    "Pass the name of one of them."
)
LAZY_CLASS_SCORES_ERROR = (
    "With a lazy frame as data=, {name} computes one score column in the "
    "engine; class probabilities (several y_score columns, classes=) are not "
    "computed there. Pass one class's probability column, or collect the "
    "frame first."
)
LAZY_IN_MEMORY_ERROR = (
    "{name} does not run inside a lazy engine ({kind}): {why}. Collect the "
    "columns it needs first (e.g. frame.select([...]).collect() for a polars "
    "LazyFrame, relation.df() for DuckDB); mcdp, mcdp_details, mcdp_curve, "
    "abcc, delta_dp and fairlearn's rate differences and ratios take the "
    "lazy frame itself as data=."
)
_WHY = {
    "abpc": "its kernel density estimates need every score",
    "metric_confidence_interval": "its resampling intervals need every score",
    "disparity_test": "its permutation tests need every score",
}


def as_frame(data):
    """``data`` as a narwhals frame (eager or lazy), or :data:`LAZY_DATA_ERROR`."""
    if isinstance(data, nw.DataFrame | nw.LazyFrame):
        return data
    try:
        with warnings.catch_warnings():
            # narwhals >= 2.x announces that its Dask backend moves to the
            # ``narwhals-dask`` package; skfair pins narwhals, so the notice
            # is skfair's to act on, not the user's
            warnings.filterwarnings(
                "ignore", "Dask support is moving out of Narwhals", FutureWarning
            )
            return nw.from_native(data)
    except TypeError:
        raise TypeError(LAZY_DATA_ERROR.format(type=type(data).__name__)) from None


def _frame(data):
    """``data`` as a narwhals frame, or a Dask DataFrame as it is.

    Dask frames are not wrapped: their columns (Dask Series) go to the Dask
    engine, and narwhals' Dask support is moving to another package.
    """
    return data if is_dask_collection(data) else as_frame(data)


def _is_eager(frame):
    return is_dask_collection(frame) or isinstance(frame, nw.DataFrame)


def _native(frame):
    return frame if is_dask_collection(frame) else nw.to_native(frame)


def check_column_names(arguments):
    """Refuse data arguments that are not column names (``None`` is allowed)."""
    for role in COLUMN_ARGUMENTS:
        value = arguments.get(role)
        if value is None or isinstance(value, str):
            continue
        # several names: attributes, or class probabilities (eager frames)
        several = role in ("sensitive_features", "y_score")
        if several and isinstance(value, list | tuple) and value:
            if all(isinstance(v, str) for v in value):
                continue
        raise TypeError(
            LAZY_COLUMN_NAME_ERROR.format(
                role=role,
                plural=" or a list of names" if several else "",
                value=value
                if isinstance(value, str | int | float)
                else type(value).__name__,
            )
        )


def eager_columns(frame, arguments):
    """The arguments with each column name replaced by the native column."""
    native = _native(frame)
    names = set(native.columns)
    out = dict(arguments)
    for role in COLUMN_ARGUMENTS:
        value = arguments.get(role)
        if value is None:
            continue
        wanted = [value] if isinstance(value, str) else list(value)
        missing = [name for name in wanted if name not in names]
        if missing:
            raise ValueError(
                LAZY_MISSING_COLUMN_ERROR.format(
                    role=role, name=missing[0], columns=sorted(names)
                )
            )
        out[role] = native[value] if isinstance(value, str) else native[wanted]
    return out


def frame_columns(name, arguments):
    """The arguments with ``data`` gone and its named columns in their place.

    For an eager frame, or a Dask frame (Dask Series, for the functions with
    a Dask path); any other lazy frame raises :data:`LAZY_IN_MEMORY_ERROR`
    for the public function ``name``.
    """
    arguments = dict(arguments)
    frame = _frame(arguments.pop("data"))
    check_column_names(arguments)
    if not _is_eager(frame):
        raise TypeError(
            LAZY_IN_MEMORY_ERROR.format(
                name=name, kind=type(_native(frame)).__name__, why=_WHY[name]
            )
        )
    return eager_columns(frame, arguments)


def call_on_frame(name, func, arguments):
    """Run the public function ``name`` on the frame ``arguments["data"]``.

    ``func`` is the in-memory function (called on an eager frame's columns,
    and on a Dask frame's, which it sends to the Dask engine); ``arguments``
    holds every argument by keyword, defaults applied, ``data`` included.
    """
    arguments = dict(arguments)
    frame = _frame(arguments["data"])
    if (
        is_dask_collection(frame)
        and name in LAZY_METRICS
        and isinstance(arguments.get("y_score"), str)
    ):
        # one score column of a Dask DataFrame: narwhals' Dask backend of
        # the lazy engine, measured faster than the Dask engine (1e8 rows,
        # MCDP(0.05): 47.0 s / 4.2 GB against 56.7 s / 5.1 GB) and taking
        # weights; class-probability columns keep the Dask engine
        frame = as_frame(frame)
    if name not in LAZY_METRICS or _is_eager(frame):
        return func(**frame_columns(name, arguments))
    del arguments["data"]
    check_column_names(arguments)
    if not isinstance(arguments["y_score"], str):
        raise TypeError(LAZY_CLASS_SCORES_ERROR.format(name=name))
    arguments.pop("class_agg", None)  # one score column: nothing to aggregate
    if arguments.pop("classes", None) is not None:
        raise ValueError(LAZY_CLASS_SCORES_ERROR.format(name=name))
    engine = functools.partial(lazy_engine(name), _native(frame))
    return on_sides(engine, arguments)  # given="both": the larger side


def rates_on_frame(in_memory, names, arguments):
    """Per-group and overall values of the rates ``names`` of a frame's columns.

    ``arguments`` holds ``data``, the column names ``y_true``, ``y_pred``,
    ``sensitive_features`` and ``sample_weight``, and ``pos_label`` and
    ``min_group_size``. An eager frame's columns go to ``in_memory`` (the
    in-memory ``group_rates(names, ...)``); any lazy frame (Dask included)
    to the engine's, which computes the confusion counts by one group-by.
    Returns ``(values, overall)``: ``(n_groups, len(names))`` and
    ``(len(names),)`` arrays.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._frame_arg import rates_on_frame
    >>> def in_memory(names, y_true, y_pred, **options):
    ...     return [[float(y_pred.mean())]], [0.0], None
    >>> frame = pl.DataFrame({"y": [0, 1], "p": [1, 1], "g": [0, 1]})
    >>> rates_on_frame(in_memory, ["selection_rate"], {
    ...     "data": frame, "y_true": "y", "y_pred": "p",
    ...     "sensitive_features": "g", "sample_weight": None,
    ...     "pos_label": 1, "min_group_size": 1})
    ([[1.0]], [0.0])
    """
    arguments = dict(arguments)
    data = arguments["data"]
    frame = as_frame(data)  # a Dask frame: narwhals' Dask backend, lazy
    if isinstance(frame, nw.DataFrame):
        values, overall, _ = in_memory(names, **frame_columns("group_rates", arguments))
        return values, overall
    del arguments["data"]
    check_column_names(arguments)
    values, overall, _ = lazy_engine("group_rates")(names, data, **arguments)
    return values, overall


def collected_columns(arguments):
    """The arguments with ``data`` gone and its named columns in memory in their place.

    For the functions that need every row in memory (:func:`skfair.report.
    audit`): an eager frame's columns are taken out; a Dask frame's stay Dask
    Series (the function's Dask path); any other lazy frame is reduced *in
    its engine* to the named columns, which alone are collected (as pandas),
    so only they leave the engine.

    Examples
    --------
    >>> import polars as pl
    >>> from skfair.metrics._frame_arg import collected_columns
    >>> lf = pl.LazyFrame({"s": [.1, .7], "g": ["a", "b"], "other": [1, 2]})
    >>> out = collected_columns(
    ...     {"y_true": None, "y_score": "s", "sensitive_features": "g", "data": lf})
    >>> out["y_score"].tolist(), out["sensitive_features"].tolist()
    ([0.1, 0.7], ['a', 'b'])
    """
    arguments = dict(arguments)
    frame = _frame(arguments.pop("data"))
    check_column_names(arguments)
    if not _is_eager(frame):
        names = frame.collect_schema().names()
        wanted = []
        for role in COLUMN_ARGUMENTS:
            value = arguments.get(role)
            for name in (
                [] if value is None else [value] if isinstance(value, str) else value
            ):
                if name not in names:
                    raise ValueError(
                        LAZY_MISSING_COLUMN_ERROR.format(
                            role=role, name=name, columns=sorted(names)
                        )
                    )
                wanted.append(name)
        collected = frame.select(list(dict.fromkeys(wanted))).collect()
        frame = nw.from_native(collected.to_pandas(), eager_only=True)
    return eager_columns(frame, arguments)


def frame_dispatch(name):
    """Decorate a public function so that ``data=`` goes to :func:`call_on_frame`.

    Calls without ``data`` go straight to the function.

    Examples
    --------
    >>> import pandas as pd
    >>> from skfair.metrics._frame_arg import frame_dispatch
    >>> @frame_dispatch("abpc")
    ... def metric(y_true, y_score, *, sensitive_features, data=None):
    ...     return len(y_score)
    >>> frame = pd.DataFrame({"s": [.1], "g": [0]})
    >>> metric(None, "s", sensitive_features="g", data=frame)
    1
    """

    def decorator(func):
        signature = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if kwargs.get("data") is None:
                return func(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return call_on_frame(name, wrapper, dict(bound.arguments))

        return wrapper

    return decorator


def frame_group_inputs(
    data, y_true, y_pred, sensitive_features, control_features, sample_params
):
    """:class:`~skfair.metrics.GroupMetricFrame`'s inputs from the columns of ``data``.

    ``y_true``, ``y_pred`` and ``sensitive_features`` (``control_features``
    too) name columns; so may the values of ``sample_params`` (a column name
    in place of an array, e.g. ``{"sample_weight": "w"}``, or per metric
    ``{"recall": {"sample_weight": "w"}}``).
    """
    arguments = frame_columns(
        "GroupMetricFrame",
        {
            "y_true": y_true,
            "y_pred": y_pred,
            "sensitive_features": sensitive_features,
            "data": data,
        },
    )
    native = _native(_frame(data))
    arguments["control_features"] = None
    if control_features is not None:
        arguments["control_features"] = frame_columns(
            "GroupMetricFrame", {"sensitive_features": control_features, "data": data}
        )["sensitive_features"]

    def column(value):
        return native[value] if isinstance(value, str) else value

    if isinstance(sample_params, dict):
        sample_params = {
            key: (
                {k: column(v) for k, v in value.items()}
                if isinstance(value, dict)
                else column(value)
            )
            for key, value in sample_params.items()
        }
    arguments["sample_params"] = sample_params
    return arguments


def is_lazy_frame(data):
    """Whether ``data`` is a lazy frame (Dask included), not an eager one."""
    frame = _frame(data)
    return is_dask_collection(frame) or not _is_eager(frame)


def lazy_group_inputs(
    data, y_true, y_pred, sensitive_features, control_features, sample_params
):
    """:class:`~skfair.metrics.GroupMetricFrame`'s inputs from a lazy frame's engine.

    One group-by in the engine (the engine's ``distinct_rows``) by the
    control and sensitive columns and the two label columns; the inputs are
    the columns of its distinct rows, ``"multiplicity"`` the number of
    samples of each, and every ``sample_weight`` column of ``sample_params``
    is replaced by the rows' sums of weights and squared weights (a
    ``SummedWeights``).
    """
    check_column_names(
        {"y_true": y_true, "y_pred": y_pred, "sensitive_features": sensitive_features}
    )
    check_column_names({"sensitive_features": control_features})

    def names(value):
        return [] if value is None else [value] if isinstance(value, str) else value

    weights = []
    if sample_params is not None:
        for params in _sample_param_dicts(sample_params):
            for value in params.values():
                if value is not None:
                    check_column_names({"sample_weight": value})
                    weights.append(value)
    grouping = list(names(control_features)) + list(names(sensitive_features))
    table, multiplicity, summed = lazy_engine("distinct_rows")(
        as_frame(data), y_true, y_pred, grouping=grouping, sample_weights=weights
    )

    def columns(value):
        return None if value is None else table[value]

    def replaced(params):
        return {
            key: None if value is None else summed[value]
            for key, value in params.items()
        }

    if sample_params is not None:
        single = all(not isinstance(v, dict) for v in sample_params.values())
        sample_params = (
            replaced(sample_params)
            if single
            else {key: replaced(value) for key, value in sample_params.items()}
        )
    return {
        "y_true": table[y_true],
        "y_pred": table[y_pred],
        "sensitive_features": columns(sensitive_features),
        "control_features": columns(control_features),
        "sample_params": sample_params,
        "multiplicity": multiplicity,
    }


def _sample_param_dicts(sample_params):
    """The ``{parameter: value}`` dicts of ``sample_params`` (one, or per metric)."""
    if not isinstance(sample_params, dict):
        return []
    if all(not isinstance(v, dict) for v in sample_params.values()):
        return [sample_params]
    return [v for v in sample_params.values() if isinstance(v, dict)]
