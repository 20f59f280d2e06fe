"""Fixtures shared by the test suite.

``constructor`` builds the same columns as a pandas DataFrame (NumPy-backed),
a pyarrow-backed pandas DataFrame or a polars DataFrame (fairlearn's
``constructor`` fixture, issue 20), so that a test written once runs over
every dataframe library skfair reads. The libraries that are not installed
are skipped.
"""

import numpy as np
import pandas as pd
import pytest


def _pandas(columns):
    return pd.DataFrame(columns)


def _pyarrow(columns):
    """pandas with Arrow columns (``ArrowDtype``); categoricals stay pandas'."""
    pa = pytest.importorskip("pyarrow")
    out = {}
    for name, values in columns.items():
        if isinstance(values, pd.Categorical):
            out[name] = values
        else:
            array = pa.array(np.asarray(values))
            out[name] = pd.array(array, dtype=pd.ArrowDtype(array.type))
    return pd.DataFrame(out)


def _polars(columns):
    """polars; a pandas categorical becomes an ``Enum`` of its categories."""
    pl = pytest.importorskip("polars")
    out = []
    for name, values in columns.items():
        if isinstance(values, pd.Categorical):
            dtype = pl.Enum(list(values.categories))
            out.append(pl.Series(name, np.asarray(values).tolist(), dtype=dtype))
        else:
            out.append(pl.Series(name, np.asarray(values)))
    return pl.DataFrame(out)


CONSTRUCTORS = {"pandas": _pandas, "pyarrow": _pyarrow, "polars": _polars}


@pytest.fixture(params=list(CONSTRUCTORS))
def constructor(request):
    """A function ``{name: column} -> DataFrame`` of one dataframe library."""
    return CONSTRUCTORS[request.param]
