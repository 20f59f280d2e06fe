"""Time skfair's exact HFM distances against direct cdist and the paper's algorithm.

Run ``python benchmarks/bench_hfm.py [--repeats R] [--quick]``. For every case
it times, in this one process:

* ``skfair exact`` -- :func:`skfair.metrics.hfm_distances` (KD-tree or
  certified blocked BLAS),
* ``cdist direct`` -- the definition computed directly: every group's points
  against the rest with :func:`scipy.spatial.distance.cdist`, in row chunks of
  1024 (exact, O(chunk * n) memory),
* ``paper approx`` -- ``hfm_distances(method="approx")``, the paper's
  ApproxDist/ExtendDist with its defaults m1 = 25, m2 = ceil(2 log10 n),

and prints the median wall-clock time, the median CPU time (all threads), the
wall-clock ratio to skfair exact, D and D_avg and their relative error against
the direct computation. On a shared machine the CPU time is the steadier
figure of the work done.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial

import numpy as np
from scipy.spatial.distance import cdist
from threadpoolctl import threadpool_info

from skfair.metrics import hfm_distances


def direct_cdist(X, y, sensitive, chunk=1024):
    """(D, D_avg) straight from the definition with chunked cdist."""
    Z = np.column_stack([np.asarray(y, dtype=float), X])
    columns = [sensitive] if sensitive.ndim == 1 else list(sensitive.T)
    per_attribute = []
    for column in columns:
        nearest = np.empty(Z.shape[0])
        for group in np.unique(column):
            inside = np.flatnonzero(column == group)
            outside = Z[column != group]
            for start in range(0, inside.size, chunk):
                rows = inside[start : start + chunk]
                nearest[rows] = cdist(Z[rows], outside).min(axis=1)
        per_attribute.append((nearest.max(), nearest.mean()))
    return (
        float(max(d for d, _ in per_attribute)),
        float(np.mean([a for _, a in per_attribute])),
    )


def timed(func, repeats):
    """Median wall-clock and CPU (all threads) seconds of ``func()``, and its value.

    The CPU time tells how much work was done when other processes share the
    machine (the wall-clock time then depends on the load).
    """
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = func()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def synthetic(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = rng.integers(0, 2, n)
    sensitive = (rng.random(n) < 0.4).astype(int)  # a 40/60 binary attribute
    return X, y, sensitive


def cases(quick):
    n = 5_000 if quick else 30_000
    for d in (100, 6):
        X, y, s = synthetic(n, d)
        yield f"uniform n={n} d={d}, binary 40/60", X, y, s
    try:
        from skfair.datasets import load_adult
        from skfair.model_selection import make_hfm_encoder
    except ImportError:  # pragma: no cover - datasets not available
        return
    adult = load_adult(preprocessing="hfm")
    X = make_hfm_encoder(list(adult.sensitive)).fit_transform(adult.data)
    y = adult.target.to_numpy()
    if quick:
        X, y = X[:n], y[:n]
    sex = adult.sensitive["sex"].to_numpy()[: len(y)]
    both = adult.sensitive[["race", "sex"]].to_numpy()[: len(y)]
    yield f"Adult HFM encoding n={len(y)} d={X.shape[1]}, sex", X, y, sex
    yield f"Adult HFM encoding n={len(y)} d={X.shape[1]}, race+sex", X, y, both


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--cdist-repeats", type=int, default=3, help="repeats of the slow baseline"
    )
    parser.add_argument("--quick", action="store_true", help="n = 5,000")
    args = parser.parse_args(argv)

    blas = [
        f"{i['internal_api']} {i['version']} ({i['num_threads']} threads)"
        for i in threadpool_info()
        if i["user_api"] == "blas"
    ]
    print(f"numpy {np.__version__}; BLAS: {', '.join(blas) or 'unknown'}")
    header = (
        f"{'case':<44} {'method':<13} {'median s':>9} {'cpu s':>8} {'x exact':>8} "
        f"{'D':>12} {'D_avg':>12} {'rel.err D':>10} {'rel.err avg':>11}"
    )
    print(header)
    print("-" * len(header))
    for name, X, y, s in cases(args.quick):
        hfm_distances(X[:200], y[:200], sensitive_features=s[:200])  # warm-up
        exact_run = partial(hfm_distances, X, y, sensitive_features=s)
        approx_run = partial(
            hfm_distances, X, y, sensitive_features=s, method="approx", random_state=0
        )
        t_exact, c_exact, exact = timed(exact_run, args.repeats)
        t_direct, c_direct, direct = timed(
            partial(direct_cdist, X, y, s), args.cdist_repeats
        )
        t_approx, c_approx, approx = timed(approx_run, args.repeats)
        for method, seconds, cpu, (d_max, d_avg) in (
            ("skfair exact", t_exact, c_exact, exact),
            ("cdist direct", t_direct, c_direct, direct),
            ("paper approx", t_approx, c_approx, approx),
        ):
            err_max = abs(d_max - direct[0]) / direct[0]
            err_avg = abs(d_avg - direct[1]) / direct[1]
            print(
                f"{name:<44} {method:<13} {seconds:9.3f} {cpu:8.3f} "
                f"{seconds / t_exact:8.2f} {d_max:12.6g} {d_avg:12.6g} "
                f"{err_max:10.2e} {err_avg:11.2e}"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
