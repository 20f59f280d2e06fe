"""The resampling engine's shortcuts: dense tables, ABPC's statistic, threads."""

import numpy as np
import pytest

from skfair.metrics.inference import _bands, infer_metrics, metric_spec, shared_sort
from skfair.metrics.inference._bands import BandData


def _ecdf(x, t):
    return np.searchsorted(np.sort(x), t, side="right") / x.shape[0]


# -- the resampling engine's shortcuts -------------------------------------------
def _engine_data(n_groups, n=3000, seed=11, ties=False):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    y = 1 / (1 + np.exp(-rng.normal(0.3 * g / n_groups, 1.0, n)))
    return (np.round(y, 2) if ties else y), g


@pytest.mark.parametrize(("n_groups", "ties"), [(2, False), (6, True), (12, False)])
def test_dense_worst_pair_is_the_kernels_worst_pair(n_groups, ties, monkeypatch):
    """MCDP(0) and ABCC of the worst pair from the dense CDF table, on
    bootstrap weights and on permutations, equal the merged-support kernels."""
    from skfair.metrics.inference import _dense, _sorted

    y, g = _engine_data(n_groups, ties=ties)
    specs = [metric_spec("abcc", {}), metric_spec("mcdp", {})]
    _, shared = shared_sort((None, y, g, None, "intersection"), specs, 1)
    rng = np.random.default_rng(0)
    rows = [
        (rng.multinomial(y.size, np.ones(y.size) / y.size) * 1.0, shared.cell_sorted)
    ]
    rows.append((np.ones(y.size), rng.permutation(shared.cell_sorted)))
    for w_pos, cells in rows:
        dense = shared.values(w_pos, cells, specs)
        monkeypatch.setattr(_sorted, "DENSE_CELLS", 0)  # the kernels' path
        kernels = shared.values(w_pos, cells, specs)
        monkeypatch.setattr(_sorted, "DENSE_CELLS", _dense.DENSE_CELLS)
        assert dense[0] == pytest.approx(kernels[0], rel=1e-12)
        assert dense[1] == kernels[1]  # the same floating-point CDFs


@pytest.mark.parametrize(("n_groups", "agg"), [(3, "max"), (70, "max"), (5, "mean")])
def test_permuted_abpc_is_the_public_abpc(n_groups, agg):
    """The permutation statistic of ABPC (pruned pairs with many groups) is
    abpc() of the relabelled data."""
    from skfair.metrics import abpc

    y, g = _engine_data(n_groups, n=40 * n_groups)
    g = np.char.add("g", g.astype(str))  # more than 50 numbers look continuous
    spec = metric_spec("abpc", {"method": "binned", "agg": agg})
    _, shared = shared_sort((None, y, g, None, "intersection"), [spec], 1)
    cells = np.random.default_rng(1).permutation(shared.cell_sorted)
    got = shared.abpc(np.ones(y.size), cells, spec)
    labels = np.char.add("g", shared.cell_to_group[0][cells].astype(str))
    want = abpc(
        None,
        shared.sorted,
        sensitive_features=labels,
        method="binned",
        agg=agg,
        min_group_size=1,
    )
    assert got == pytest.approx(want, rel=1e-9)


def test_group_band_against_brute_force(monkeypatch):
    """The per-group band (every group's centred CDF, at its own steps)."""
    monkeypatch.setattr(_bands, "PAIR_BAND_CELLS", 0)
    rng = np.random.default_rng(5)
    sizes = [9, 6, 8]
    y = np.round(rng.random(sum(sizes)), 1)  # ties
    g = np.repeat(np.arange(3), sizes)
    specs = [metric_spec("mcdp", {}), metric_spec("abcc", {})]
    _, shared = shared_sort((None, y, g, None, "intersection"), specs, 1)
    band = BandData(shared, ["sup", "l1"])
    idx = [rng.choice(np.flatnonzero(g == k), (4, n)) for k, n in enumerate(sizes)]
    w_rows = np.zeros((4, y.size))
    for r in range(4):
        np.add.at(w_rows[r], shared.rank[np.concatenate([i[r] for i in idx])], 1.0)
    got = band.studentised_maxima(w_rows)
    t = np.unique(y)
    for r in range(4):
        rows = np.concatenate([i[r] for i in idx])
        sup, l1 = [], []
        for k in range(3):
            d = np.abs(_ecdf(y[rows][g[rows] == k], t) - _ecdf(y[g == k], t))
            sup.append(d.max() * np.sqrt(sizes[k]))
            l1.append(d[:-1] @ np.diff(t) * np.sqrt(sizes[k]))
        assert got[0, r] == pytest.approx(max(sup))
        assert got[1, r] == pytest.approx(max(l1))


def test_threads_do_not_change_the_numbers(monkeypatch):
    """The draws stay in order: one thread or two give the same rows."""
    from skfair.metrics.inference import _threads

    y, g = _engine_data(4, n=2000)
    specs = [
        metric_spec(m, p)
        for m, p in [
            ("abcc", {}),
            ("abpc", {"method": "binned"}),
            ("mcdp", {}),
            ("mcdp", {"epsilon": 0.05}),
        ]
    ]
    options = {
        "combine": "intersection",
        "confidence_level": 0.95,
        "n_resamples": 39,
        "n_permutations": 39,
        "random_state": 3,
        "min_group_size": 1,
    }
    counts = []
    monkeypatch.setattr(_threads, "n_threads", lambda: 2)
    monkeypatch.setattr(_threads, "_MIN_PARALLEL_WORK", 0)
    two = infer_metrics(
        y, g, specs, progress=lambda d, t: counts.append((d, t)), **options
    )
    monkeypatch.setattr(_threads, "n_threads", lambda: 1)
    one = infer_metrics(y, g, specs, **options)
    for a, b in zip(one, two):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == b[key] or (a[key] != a[key] and b[key] != b[key]), key
    assert counts[0] == (0, 78) and counts[-1] == (78, 78)
    assert all(a[0] <= b[0] for a, b in zip(counts, counts[1:]))


# -- permutations with a one-sample group -----------------------------------------
def test_a_one_sample_group_is_permuted_like_any_other():
    """scipy's permutation test refuses a group of one sample; the engine
    permutes it anyway, and its p-value estimates the exact one (every
    relabelling enumerated by brute force)."""
    import itertools

    from skfair.metrics import mcdp

    y = np.array([0.9, 0.1, 0.2, 0.3, 0.35, 0.5, 0.55, 0.6])
    g = np.array([0, 1, 1, 1, 1, 2, 2, 2])
    observed = mcdp(None, y, sensitive_features=g, min_group_size=1)
    exceed = total = 0
    for solo in range(8):
        for rest in itertools.combinations(set(range(8)) - {solo}, 4):
            labels = np.full(8, 2)
            labels[solo], labels[list(rest)] = 0, 1
            value = mcdp(None, y, sensitive_features=labels, min_group_size=1)
            exceed += value >= observed - 1e-12
            total += 1
    exact = exceed / total
    (result,) = infer_metrics(
        y,
        g,
        [metric_spec("mcdp", {})],
        combine="intersection",
        confidence_level=0.95,
        n_resamples=99,
        n_permutations=4000,
        random_state=0,
        min_group_size=1,
    )
    pvalue = result["pvalue"]
    assert result["test"] == "permutation"
    # 4,000 random relabellings: within 4 standard errors of the exact value
    assert abs(pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000) + 1e-3
    assert 0 < exact < 1
