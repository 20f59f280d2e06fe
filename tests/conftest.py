"""Fixtures shared by the test suite.

``constructor`` builds the same columns as a pandas DataFrame (NumPy-backed),
a pyarrow-backed pandas DataFrame or a polars DataFrame (fairlearn's
``constructor`` fixture, issue 20), so that a test written once runs over
every dataframe library skfair reads. The libraries that are not installed
are skipped. ``client`` is the small in-process Dask cluster of the Dask tests;
``run_without`` runs a script where some packages cannot be imported.
"""

import subprocess
import sys
import textwrap
import warnings

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


@pytest.fixture(scope="module")
def client():
    """A small in-process ``distributed`` cluster (2 workers), for Dask tests."""
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # port-in-use notices of a shared box
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
        )
        c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


# The first lines of a script for a fresh interpreter in which the packages in
# BLOCKED cannot be found, as if they were not installed (None in sys.modules
# would break other libraries' checks of sys.modules, and pandas 3.0.0 takes
# such an entry for the module); the script may discard names from BLOCKED.
_HIDE_PACKAGES = """
import importlib.abc, sys
BLOCKED = {blocked!r}
class _Hide(importlib.abc.MetaPathFinder):
    def __init__(self, finders):
        self.finders = finders
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            return None
        for finder in self.finders:
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                return spec
        return None
sys.meta_path[:] = [_Hide(list(sys.meta_path))]
"""


@pytest.fixture
def run_without():
    """Run a script in a fresh interpreter where some packages are hidden.

    ``run_without(script, "polars", "pyarrow", timeout=300)`` returns the
    ``subprocess.CompletedProcess`` (text output captured); the script sees
    the hidden names in the set ``BLOCKED`` and may discard some of them.
    """

    def run(script, *blocked, timeout=300):
        prelude = _HIDE_PACKAGES.format(blocked=set(blocked))
        return subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(script)],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )

    return run
