"""MCDP of real-valued Dask predictions with ``domain=`` equals the in-memory one.

Runs on the small in-process ``distributed.LocalCluster`` of
``tests/conftest.py`` (``client``), like ``tests/dask/test_dask_metrics.py``.
"""

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason="the dask extra is not installed")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")

import dask.array as da  # noqa: E402

from skfair.metrics import mcdp, mcdp_curve, mcdp_details  # noqa: E402
from skfair.metrics._dask import _passes  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("client"),
    pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning"),
]


def _data(kind, seed, n=600, n_groups=3):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    if kind == "amounts":  # real values with ties, a group shifted
        y = np.round(rng.normal(50.0 + 5.0 * g, 10.0), 1)
    elif kind == "inside":  # in [0.2, 0.8]: the unit grid, lo != 0
        y = np.round(0.2 + 0.6 * rng.beta(2 + g, 3.0), 3)
    else:  # dyadic values around 0
        y = rng.integers(-64, 64, n) / 16.0
    return y, g


def _dask(y, g, n_parts=4):
    chunks = -(-y.size // n_parts)
    return da.from_array(y, chunks=chunks), da.from_array(g, chunks=chunks)


@pytest.mark.parametrize(
    ("kind", "n_bins"),
    [("amounts", 1 << 4), ("amounts", None), ("inside", 1 << 8), ("dyadic", 1 << 6)],
)
def test_dask_mcdp_with_a_domain_equals_numpy(kind, n_bins, monkeypatch):
    if n_bins is not None:
        monkeypatch.setattr(_passes, "N_BINS", n_bins)
    y, g = _data(kind, seed=n_bins or 0, n=400)
    dy, dg = _dask(y, g)
    width = float(y.max() - y.min())
    epsilons = [0.0, 0.004 * width, 0.03 * width, 0.2 * width]
    domains = [None, (float(y.min()), float(y.max()) + 1.0)]
    if kind == "inside":
        domains.append((0.0, 1.0))
    for domain in domains:
        for method, rounding in [("exact", "exact"), ("exact", "float")]:
            kw = {"domain": domain, "method": method, "rounding": rounding}
            want = mcdp_curve(None, y, sensitive_features=g, epsilons=epsilons, **kw)
            got = mcdp_curve(None, dy, sensitive_features=dg, epsilons=epsilons, **kw)
            np.testing.assert_array_equal(got, want)
        e = epsilons[2]
        want = mcdp_details(None, y, sensitive_features=g, epsilon=e, domain=domain)
        got = mcdp_details(None, dy, sensitive_features=dg, epsilon=e, domain=domain)
        assert got.value == want.value
        assert got.pair_values == want.pair_values
        kw = {"domain": domain, "method": "approx", "sampling_frequency": 4}
        want = mcdp(None, y, sensitive_features=g, epsilon=e, **kw)
        assert mcdp(None, dy, sensitive_features=dg, epsilon=e, **kw) == want


def test_dask_domain_none_per_grouping():
    """With combine="marginal" each attribute's compared rows give its range."""
    rng = np.random.default_rng(7)
    n = 500
    s = np.c_[rng.integers(0, 2, n), rng.integers(0, 3, n)]
    y = np.round(rng.gamma(2.0, 10.0, n) + 3.0 * s[:, 0], 1)
    y[s[:, 1] == 2] += 40.0  # the third group of the second attribute: higher
    chunks = -(-n // 3)
    dy = da.from_array(y, chunks=chunks)
    ds = da.from_array(s, chunks=(chunks, 2))
    for kw in (
        {"epsilon": 1.5},
        {"epsilon": 1.5, "method": "approx", "sampling_frequency": 3},
        {"epsilon": 1.5, "min_group_size": 150},
    ):
        want = mcdp(
            None, y, sensitive_features=s, combine="marginal", domain=None, **kw
        )
        got = mcdp(
            None, dy, sensitive_features=ds, combine="marginal", domain=None, **kw
        )
        assert got == want


def test_dask_domain_errors():
    y, g = _data("amounts", seed=1, n=100)
    dy, dg = _dask(y, g)
    with pytest.raises(ValueError, match=r"domain=\(0.0, 50.0\).*domain=None"):
        mcdp(None, dy, sensitive_features=dg, epsilon=1.0, domain=(0.0, 50.0))
    with pytest.raises(ValueError, match=r"domain=\(0.0, 1.0\).*domain=None"):
        mcdp(None, dy, sensitive_features=dg, epsilon=1.0)
    with pytest.raises(ValueError, match="domain must be None"):
        mcdp(None, dy, sensitive_features=dg, epsilon=1.0, domain=(3.0, 1.0))
    # ε = 0 (the KS statistic): the domain does not enter
    assert mcdp(None, dy, sensitive_features=dg, domain=(0.0, 1.0)) == mcdp(
        None, y, sensitive_features=g
    )
