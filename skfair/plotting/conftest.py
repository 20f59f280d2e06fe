"""Doctests of the Displays: the Agg backend, and every figure closed after.

The Examples then show only what a user writes; without matplotlib (the
optional ``plot`` extra) they are skipped.
"""

import pytest


@pytest.fixture(autouse=True)
def _agg_backend():
    """Draw with Agg; close the figures a doctest leaves open."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    yield
    matplotlib.pyplot.close("all")
