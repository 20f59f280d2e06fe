"""Dispatch of the public metric functions to their Dask engines.

A metric decorated with :func:`dask_dispatch` runs unchanged on NumPy/pandas
inputs; when one of its data arguments is a Dask collection (a
``dask.array.Array``, ``dask.dataframe.Series`` or ``DataFrame``) the call is
handed to the engine of the same name in ``skfair.metrics._dask_engine``,
which computes the same number partition by partition. Dask is never imported
here: collections are recognised by the ``__dask_graph__`` method that every
Dask collection implements, so ``import skfair`` and NumPy calls never touch
Dask.
"""

from __future__ import annotations

import functools
import importlib
import inspect

__all__ = [
    "DATA_ARGUMENTS",
    "MIXED_INPUT_ERROR",
    "check_not_mixed",
    "dask_dispatch",
    "is_dask_collection",
]

MIXED_INPUT_ERROR = (
    "{dask_names} {dask_verb} Dask collection(s) but {other_names} {other_verb} "
    "not: with Dask inputs every data argument (y_true, the scores or "
    "predictions, sensitive_features, sample_weight) must be a Dask collection "
    "with the same partitions, so that rows cannot be misaligned. Wrap the "
    "in-memory ones with dask.array.from_array / dask.dataframe.from_pandas "
    "using the same chunks, or compute the Dask ones first."
)

# The arguments that carry one value per sample.
DATA_ARGUMENTS = ("y_true", "y_score", "y_pred", "sensitive_features", "sample_weight")

_ENGINE_MODULE = "skfair.metrics._dask_engine"


def is_dask_collection(x):
    """Whether ``x`` is a Dask collection, without importing Dask.

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        True for Dask arrays, Series, DataFrames (and other collections that
        implement the Dask collection protocol), False otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> is_dask_collection(np.arange(3)), is_dask_collection(None)
    (False, False)
    """
    if isinstance(x, type):
        return False
    graph = getattr(type(x), "__dask_graph__", None)
    return graph is not None and callable(graph)


def check_not_mixed(data):
    """Raise if some data arguments are Dask collections and others are not.

    Parameters
    ----------
    data : dict
        Argument name to value, for the non-None data arguments.

    Returns
    -------
    bool
        Whether the call has Dask inputs (then all of them are).
    """
    lazy = [name for name, value in data.items() if is_dask_collection(value)]
    if not lazy:
        return False
    eager = [name for name in data if name not in lazy]
    if eager:
        raise TypeError(
            MIXED_INPUT_ERROR.format(
                dask_names=", ".join(lazy),
                dask_verb="is a" if len(lazy) == 1 else "are",
                other_names=", ".join(eager),
                other_verb="is" if len(eager) == 1 else "are",
            )
        )
    return True


def dask_dispatch(engine_name):
    """Decorate a metric so that Dask inputs run on its Dask engine.

    Parameters
    ----------
    engine_name : str
        Name of the engine function in ``skfair.metrics._dask_engine``; it
        is called with every argument of the metric by keyword, defaults
        applied, so that the defaults live in the metric alone.

    Returns
    -------
    decorator : callable
        Wraps the metric. NumPy/pandas calls go straight to the metric;
        calls whose data arguments are all Dask collections go to the engine;
        a mix of Dask and in-memory data raises a TypeError
        (:data:`MIXED_INPUT_ERROR`).

    Examples
    --------
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
            engine = getattr(importlib.import_module(_ENGINE_MODULE), engine_name)
            return engine(**bound.arguments)

        wrapper.__skfair_dask_engine__ = engine_name
        return wrapper

    return decorator
