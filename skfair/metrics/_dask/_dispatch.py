"""Dispatch of the public metric functions to their Dask engines.

A metric decorated with :func:`dask_dispatch` runs unchanged on NumPy/pandas
inputs; when its data arguments are Dask collections (recognised without
importing Dask by :func:`skfair.utils._dask.check_not_mixed`) the call goes to the
engine of the same name in this package, which computes the same number
partition by partition. The engines are imported on the first Dask call only,
so ``import skfair`` and NumPy calls never load them (nor Dask).
"""

from __future__ import annotations

import functools
import inspect

from ...utils._dask import check_not_mixed
from .._given import on_sides

# The arguments that carry one value per sample.
DATA_ARGUMENTS = ("y_true", "y_score", "y_pred", "sensitive_features", "sample_weight")


def dask_engine(name):
    """The Dask engine of the public metric ``name`` (imported on first use).

    Parameters
    ----------
    name : str
        A metric with a Dask engine: ``"mcdp"``, ``"mcdp_details"``,
        ``"mcdp_curve"``, ``"delta_dp"``, ``"abcc"``,
        ``"demographic_parity_gap"``, ``"equal_opportunity_gap"`` or
        ``"predictive_quality_parity_gap"``.

    Returns
    -------
    engine : callable
        Takes every argument of the metric by keyword.
    """
    from . import _distribution, _gaps, _mcdp

    engines = {
        "mcdp": _mcdp.mcdp,
        "mcdp_details": _mcdp.mcdp_details,
        "mcdp_curve": _mcdp.mcdp_curve,
        "delta_dp": _distribution.delta_dp,
        "abcc": _distribution.abcc,
        "demographic_parity_gap": _gaps.demographic_parity_gap,
        "equal_opportunity_gap": _gaps.equal_opportunity_gap,
        "predictive_quality_parity_gap": _gaps.predictive_quality_parity_gap,
    }
    return engines[name]


def dask_dispatch(engine_name):
    """Decorate a metric so that Dask inputs run on its Dask engine.

    Parameters
    ----------
    engine_name : str
        The metric's name (see :func:`dask_engine`); the engine is called with
        every argument of the metric by keyword, defaults applied, so that the
        defaults live in the metric alone.

    Returns
    -------
    decorator : callable
        Wraps the metric. NumPy/pandas calls go straight to the metric;
        calls whose data arguments are all Dask collections go to the engine
        (class probabilities, a 2-D ``y_score``, to the engine once per class
        column, aggregated by ``class_agg``: ``_multiclass``);
        a mix of Dask and in-memory data raises a TypeError
        (:data:`skfair.utils._dask.MIXED_INPUT_ERROR`).

    Examples
    --------
    >>> from skfair.metrics._dask import dask_dispatch
    >>> def metric(y_true, y_score, *, sensitive_features):
    ...     return 0.0
    >>> dask_dispatch("mcdp")(metric)(None, [0.1], sensitive_features=[0])
    0.0
    """

    def decorator(func):
        signature = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind_partial(*args, **kwargs)
            data = {
                name: value
                for name, value in bound.arguments.items()
                if name in DATA_ARGUMENTS and value is not None
            }
            if not check_not_mixed(data):
                return func(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            engine = dask_engine(engine_name)
            if "class_agg" in arguments:  # the metrics of class probabilities
                from ._multiclass import class_engine, is_dask_class_scores

                if is_dask_class_scores(arguments["y_score"]):
                    return class_engine(engine_name, engine, arguments)
                del arguments["class_agg"], arguments["classes"]
            return on_sides(engine, arguments)

        return wrapper

    return decorator
