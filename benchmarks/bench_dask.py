"""skfair's exact metrics on Dask against the in-memory functions.

Two experiments (issue 15):

1. ``--rows`` (default 1e8) scores in two groups, generated chunk by chunk from
   fixed seeds. The in-memory functions run on the concatenated arrays in a
   fresh process (its peak RSS is reported); the Dask engines run on a
   ``distributed.LocalCluster`` of 2 worker processes on the same rows, built
   lazily from the same seeds. Reported: the values (MCDP equal to the last
   bit; ABCC, a sum of areas added in another order, to 1e-12), the
   wall-clock times and their ratio, the client's and each worker's peak RSS.
   The Dask rows are generated on the workers and persisted there first, so
   both timings exclude data generation.
2. ``--huge`` (default 1e9) rows generated lazily inside the workers, one
   chunk per task, never materialised anywhere (each pass over the data
   generates the chunks again): time and each worker's peak RSS (the workers
   get ``--memory-limit``, 4 GB by default) for ``--huge-metrics`` (default
   exact MCDP(0.05)).

Scores are ``u`` (group 0) or ``sqrt(u)`` (group 1) for uniform ``u``,
rounded to 6 decimals, so there are ties and exact 0s and 1s.

Run: ``python benchmarks/bench_dask.py [--rows 1e8] [--huge 1e9] [--chunk 1e7]``
(``--huge 0`` skips experiment 2). Figures depend on the machine and on its
load; the load average is printed with them.
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

EPSILON = 0.05


def make_groups(seed, i, size):
    return np.random.default_rng([seed, i, 0]).integers(0, 2, size, dtype=np.int8)


def make_scores(seed, i, size):
    s = make_groups(seed, i, size)
    u = np.random.default_rng([seed, i, 1]).random(size)
    np.sqrt(u, out=u, where=s == 1)
    return np.round(u, 6, out=u)


def chunk_sizes(rows, chunk):
    sizes = [chunk] * (rows // chunk)
    if rows % chunk:
        sizes.append(rows % chunk)
    return sizes


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def in_memory(rows, chunk, seed):
    """Runs in a fresh process: the in-memory metrics on all rows at once."""
    from skfair.metrics import abcc, mcdp

    sizes = chunk_sizes(rows, chunk)
    y = np.concatenate([make_scores(seed, i, n) for i, n in enumerate(sizes)])
    s = np.concatenate([make_groups(seed, i, n) for i, n in enumerate(sizes)])
    out = {"rss_after_data_mb": peak_rss_mb()}
    for name, call in (
        ("mcdp_eps0", lambda: mcdp(None, y, sensitive_features=s)),
        ("mcdp_eps005", lambda: mcdp(None, y, sensitive_features=s, epsilon=EPSILON)),
        ("abcc", lambda: abcc(None, y, sensitive_features=s)),
    ):
        t = time.perf_counter()
        out[name] = call()
        out[f"{name}_seconds"] = time.perf_counter() - t
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def lazy_inputs(rows, chunk, seed):
    import dask.array as da
    from dask import delayed

    sizes = chunk_sizes(rows, chunk)
    y = da.concatenate(
        [
            da.from_delayed(delayed(make_scores)(seed, i, n), (n,), np.float64)
            for i, n in enumerate(sizes)
        ]
    )
    s = da.concatenate(
        [
            da.from_delayed(delayed(make_groups)(seed, i, n), (n,), np.int8)
            for i, n in enumerate(sizes)
        ]
    )
    return y, s


def on_dask(client, rows, chunk, seed, metrics, persist=False):
    from distributed import wait

    from skfair.metrics import abcc, mcdp
    from skfair.metrics._dask import record_shipments

    y, s = lazy_inputs(rows, chunk, seed)
    client.run(_warm_up)  # imports skfair in the workers before timing
    if persist:  # the rows live in the workers' memory, as in the in-memory run
        y, s = client.persist([y, s])
        wait([y, s])
    out = {}
    for name in metrics:
        t = time.perf_counter()
        with record_shipments() as shipments:
            if name == "mcdp_eps0":
                out[name] = mcdp(None, y, sensitive_features=s)
            elif name == "mcdp_eps005":
                out[name] = mcdp(None, y, sensitive_features=s, epsilon=EPSILON)
            else:
                out[name] = abcc(None, y, sensitive_features=s)
        out[f"{name}_seconds"] = time.perf_counter() - t
        last = shipments[-1] if shipments else None
        out[f"{name}_shipped"] = (
            {}
            if last is None
            else {"bins_shipped": last.bins, "points_shipped": last.points}
        )
    out["worker_peak_rss_mb"] = sorted(client.run(peak_rss_mb).values())
    out["client_peak_rss_mb"] = peak_rss_mb()
    return out


def _warm_up():
    import skfair.metrics._dask._mcdp  # noqa: F401


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--huge", type=float, default=1e9)
    parser.add_argument("--chunk", type=float, default=1e7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-limit", default="4GB")
    parser.add_argument(
        "--huge-metrics",
        nargs="+",
        default=["mcdp_eps005"],
        choices=["mcdp_eps0", "mcdp_eps005", "abcc"],
    )
    parser.add_argument("--in-memory-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows, huge, chunk = int(args.rows), int(args.huge), int(args.chunk)
    if args.in_memory_only:
        print(json.dumps(in_memory(rows, chunk, args.seed)))
        return

    from distributed import Client, LocalCluster

    print(f"load average at start: {os.getloadavg()}", flush=True)
    report = {"rows": rows, "chunk": chunk}
    if rows:
        t = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--rows",
                str(rows),
                "--chunk",
                str(chunk),
                "--seed",
                str(args.seed),
                "--in-memory-only",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        report["in_memory"] = json.loads(done.stdout.strip().splitlines()[-1])
        report["in_memory"]["process_seconds"] = time.perf_counter() - t
        print(json.dumps({"in_memory": report["in_memory"]}), flush=True)
        print(f"load average: {os.getloadavg()}", flush=True)
    metrics = ("mcdp_eps0", "mcdp_eps005", "abcc")
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        if rows:
            report["dask"] = on_dask(
                client, rows, chunk, args.seed, metrics, persist=True
            )
            mem = report["in_memory"]
            report["dask_over_in_memory_time"] = {
                m: report["dask"][f"{m}_seconds"] / mem[f"{m}_seconds"] for m in metrics
            }
            report["equal"] = {  # ABCC: the same areas, added in another order
                m: math.isclose(report["dask"][m], mem[m], rel_tol=1e-12)
                if m == "abcc"
                else report["dask"][m] == mem[m]
                for m in metrics
            }
            print(
                json.dumps(
                    {
                        k: report[k]
                        for k in ("dask", "dask_over_in_memory_time", "equal")
                    }
                ),
                flush=True,
            )
            print(f"load average: {os.getloadavg()}", flush=True)
    if huge:
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                memory_limit=args.memory_limit,
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
            report["huge"] = {
                "rows": huge,
                **on_dask(client, huge, chunk, args.seed + 1, args.huge_metrics),
            }
            print(json.dumps({"huge": report["huge"]}), flush=True)
            print(f"load average: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
