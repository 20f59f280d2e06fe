"""Time skfair's distribution metrics against baselines run in the same process.

Prints, for N scores in two groups (40/60), the median time of each skfair
call divided by the median time of a baseline on the same data:

* ``mcdp exact (ε=0, ε=0.05) / np.sort``  -- the cost of one sort is the floor;
* ``mcdp(ε=0) / scipy.stats.ks_2samp``   -- the same statistic;
* ``abcc / scipy.stats.wasserstein_distance``;
* ``mcdp exact (ε=0.05) / paper approx K=32`` -- the MCDP paper's Algorithm 5
  as published (ECDF objects evaluated on the probe grid);
* ``mcdp(ε=0) / ks_2samp`` with *string* groups ("Female"/"Male", as a pandas
  ``str`` Series, a NumPy unicode array and a categorical), the split by mask
  included in the baseline (``ks_2samp(y[g == "Female"], y[g == "Male"])``);
  target: at most 0.5 at N=1e6;
* at N=1e5, ``abpc binned / abpc direct KDE`` and their absolute difference;
* the peak memory of ``mcdp`` (tracemalloc, numpy allocations included);
* targets at N=1e6 and 1e7 (uniform scores, two groups): ``abcc /
  mcdp(ε=0)`` at most 1.5 and ``mcdp(ε=0.05) / np.sort`` at most 2, the
  calls interleaved and timed by medians, with BLAS on its default threads
  and on one (``threadpoolctl.threadpool_limits(1)``).

Run: ``python benchmarks/bench_metrics.py [--sizes 1e4 1e5 1e6 1e7] [--repeat 5]
[--target-sizes 1e6 1e7]``
Figures depend on the machine and its load; compare ratios, not seconds.
"""

import argparse
import gc
import time
import tracemalloc

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits

from skfair.metrics import abcc, abpc, mcdp


class ECDF:
    """statsmodels' ECDF as the paper's code uses it (sorts in __init__)."""

    def __init__(self, x):
        self.x = np.sort(x)
        self.n = x.shape[0]

    def __call__(self, t):
        return np.searchsorted(self.x, t, side="right") / self.n


def paper_approximate(y_pred, s, epsilon, K):
    """Algorithm 5 of the MCDP paper (np.max(a, b) read as max(a, b))."""
    y_pre_1, y_pre_0 = y_pred[s == 1], y_pred[s == 0]
    ecdf0, ecdf1 = ECDF(y_pre_0), ECDF(y_pre_1)
    delta = epsilon / K
    samples = np.arange(0, 1, delta)
    mcdp_value = np.min(np.abs(ecdf0(samples[: K + 1]) - ecdf1(samples[: K + 1])))
    delta_ecdf = np.abs(ecdf0(samples) - ecdf1(samples))
    indices = np.arange(1, np.ceil(1 / delta) - 2 * K + 1).astype(int)
    indices = indices + np.arange(2 * K).reshape((-1, 1))
    return max(mcdp_value, np.max(np.min(delta_ecdf[indices], axis=0)))


def median_time(func, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def make_scores(n, seed=0):
    rng = np.random.default_rng(seed)
    s = (rng.random(n) < 0.4).astype(np.int64)
    y = np.where(s == 1, rng.beta(2.0, 5.0, n), rng.beta(2.3, 5.0, n))
    return y, s


def peak_memory_mb(func):
    gc.collect()
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def bench_size(n, repeat, report_memory):
    y, s = make_scores(n)
    y0, y1 = y[s == 0], y[s == 1]
    t_sort = median_time(lambda: np.sort(y), repeat)
    t_mcdp0 = median_time(lambda: mcdp(None, y, sensitive_features=s), repeat)
    t_mcdp05 = median_time(
        lambda: mcdp(None, y, sensitive_features=s, epsilon=0.05), repeat
    )
    t_ks = median_time(lambda: stats.ks_2samp(y0, y1), repeat)
    t_abcc = median_time(lambda: abcc(None, y, sensitive_features=s), repeat)
    t_w1 = median_time(lambda: stats.wasserstein_distance(y0, y1), repeat)
    t_paper = median_time(lambda: paper_approximate(y, s, 0.05, 32), repeat)
    exact = mcdp(None, y, sensitive_features=s, epsilon=0.05)
    approx = mcdp(None, y, sensitive_features=s, epsilon=0.05, method="approx")
    ks_gap = abs(mcdp(None, y, sensitive_features=s) - stats.ks_2samp(y0, y1).statistic)
    print(
        f"{n:>9.0e} {1e3 * t_sort:>8.1f} {t_mcdp0 / t_sort:>10.2f} "
        f"{t_mcdp05 / t_sort:>12.2f} {t_mcdp0 / t_ks:>9.2f} {t_abcc / t_w1:>8.2f} "
        f"{t_mcdp05 / t_paper:>12.2f} {ks_gap:>8.1e} {approx - exact:>12.2e}",
        flush=True,
    )
    if report_memory:
        for eps in (0.0, 0.05):
            peak = peak_memory_mb(
                lambda eps=eps: mcdp(None, y, sensitive_features=s, epsilon=eps)
            )
            print(
                f"peak traced memory of mcdp(ε={eps}) at N={n:.0e}: {peak:.0f} MiB "
                f"(the scores themselves: {y.nbytes / 2**20:.0f} MiB)"
            )


def interleaved_medians(funcs, repeat):
    """Median time of each of ``funcs`` (a dict), the calls interleaved."""
    times = {name: [] for name in funcs}
    for _ in range(repeat):
        for name, func in funcs.items():
            gc.collect()
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def bench_targets(n, repeat):
    """abcc / mcdp(ε=0) and mcdp(ε=0.05) / np.sort on uniform scores."""
    rng = np.random.default_rng(0)
    y, s = rng.random(n), (rng.random(n) < 0.4).astype(np.int64)
    funcs = {
        "sort": lambda: np.sort(y),
        "mcdp0": lambda: mcdp(None, y, sensitive_features=s, epsilon=0),
        "mcdp05": lambda: mcdp(None, y, sensitive_features=s, epsilon=0.05),
        "abcc": lambda: abcc(None, y, sensitive_features=s),
    }
    for blas, limit in (("default", None), ("1 thread", 1)):
        with threadpool_limits(limit):
            t = interleaved_medians(funcs, repeat)
        print(
            f"{n:>9.0e} {blas:>8} {1e3 * t['sort']:>8.1f} {1e3 * t['mcdp0']:>8.1f} "
            f"{1e3 * t['mcdp05']:>9.1f} {1e3 * t['abcc']:>8.1f} "
            f"{t['abcc'] / t['mcdp0']:>11.2f} {t['mcdp05'] / t['sort']:>12.2f}",
            flush=True,
        )


def bench_string_groups(n, repeat):
    """mcdp(ε=0) with string group labels vs ks_2samp, the split included."""
    y, s = make_scores(n)
    labels = np.where(s == 1, "Female", "Male")
    kinds = {
        "str Series": pd.Series(labels, dtype="str"),
        "unicode array": labels,
        "categorical": pd.Series(labels, dtype="category"),
        "int8 codes": s.astype(np.int8),
    }
    t_ks = median_time(
        lambda: stats.ks_2samp(y[labels == "Female"], y[labels == "Male"]), repeat
    )
    cells = []
    for name, groups in kinds.items():
        t = median_time(lambda g=groups: mcdp(None, y, sensitive_features=g), repeat)
        cells.append(f"{name} {t / t_ks:.2f}")
    print(f"{n:>9.0e} ks+split {1e3 * t_ks:>7.1f} ms | " + " | ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6, 1e7])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--abpc-size", type=float, default=1e5)
    parser.add_argument("--target-sizes", nargs="+", type=float, default=[1e6, 1e7])
    args = parser.parse_args()

    header = (
        f"{'N':>9} {'sort ms':>8} {'mcdp0/sort':>10} {'mcdp.05/sort':>12} "
        f"{'mcdp0/ks':>9} {'abcc/W1':>8} {'exact/approx':>12} {'|Δks|':>8} "
        f"{'approx-exact':>12}"
    )
    print(header)
    largest = max(int(v) for v in args.sizes)
    for n in (int(v) for v in args.sizes):
        repeat = args.repeat if n < 10**7 else max(3, args.repeat // 2)
        bench_size(n, repeat, report_memory=n == largest)

    print("mcdp(ε=0) / (ks_2samp + split by string mask), by group-label input:")
    for n in (int(v) for v in args.sizes if v <= 1e6):
        bench_string_groups(n, args.repeat)

    print(
        "targets (uniform scores; ms are medians): abcc/mcdp0 <= 1.5, "
        "mcdp.05/sort <= 2\n"
        f"{'N':>9} {'BLAS':>8} {'sort ms':>8} {'mcdp0 ms':>8} {'mcdp.05 ms':>9} "
        f"{'abcc ms':>8} {'abcc/mcdp0':>11} {'mcdp.05/sort':>12}"
    )
    for n in (int(v) for v in args.target_sizes):
        bench_targets(n, args.repeat if n < 10**7 else max(3, args.repeat // 2))

    n = int(args.abpc_size)
    y, s = make_scores(n, seed=1)
    t_fast = median_time(
        lambda: abpc(None, y, sensitive_features=s, method="binned"), args.repeat
    )
    t_direct = median_time(
        lambda: abpc(None, y, sensitive_features=s, method="direct"), 1
    )
    diff = abs(
        abpc(None, y, sensitive_features=s, method="binned")
        - abpc(None, y, sensitive_features=s, method="direct")
    )
    print(
        f"abpc at N={n:.0e}: binned {1e3 * t_fast:.1f} ms, direct KDE "
        f"{1e3 * t_direct:.0f} ms, speed-up {t_direct / t_fast:.0f}x, "
        f"|difference| {diff:.1e}"
    )


if __name__ == "__main__":
    main()
