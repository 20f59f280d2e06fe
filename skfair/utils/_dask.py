"""Dask detection: whether inputs are Dask collections, and never a mix.

The one place in skfair that recognises a Dask collection (a
``dask.array.Array``, ``dask.dataframe.Series`` or ``DataFrame``). Dask is
never imported here: collections are recognised by the ``__dask_graph__``
method that every Dask collection implements, so ``import skfair`` and NumPy
calls never touch Dask. The metrics' Dask backend and its dispatcher live in
``skfair.metrics._dask``; the audit report checks its inputs here too.
"""

from __future__ import annotations

__all__ = ["MIXED_INPUT_ERROR", "check_not_mixed", "is_dask_collection"]

MIXED_INPUT_ERROR = (
    "{dask_names} {dask_verb} Dask collection(s) but {other_names} {other_verb} "
    "not: with Dask inputs every data argument (y_true, the scores or "
    "predictions, sensitive_features, sample_weight) must be a Dask collection "
    "with the same partitions, so that rows cannot be misaligned. Wrap the "
    "in-memory ones with dask.array.from_array / dask.dataframe.from_pandas "
    "using the same chunks, or compute the Dask ones first."
)


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
