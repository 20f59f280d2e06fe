"""Time ``python -m skfair audit`` on a large predictions file and on adult.

Generates a predictions file (Parquet) of ``--rows`` samples: two groups
(60/40) with Beta-distributed scores that differ, labels drawn from the
scores; runs the ``audit`` command on it in this process and prints the
wall time and the number of bootstrap resamples and permutations used. With
``--adult`` it also times the bundled-data demonstration.

Run ``python benchmarks/bench_audit.py --rows 1000000 --adult``.
"""

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

from skfair._cli import main


def make_predictions(path, n_rows, seed=0):
    rng = np.random.default_rng(seed)
    group = np.where(rng.random(n_rows) < 0.6, "a", "b")
    score = np.where(group == "a", rng.beta(2, 5, n_rows), rng.beta(2.6, 4.4, n_rows))
    label = (rng.random(n_rows) < score).astype(np.int8)
    pd.DataFrame({"proba": score, "group": group, "label": label}).to_parquet(path)


def timed(argv):
    """Exit status, wall time and CPU time (the machine may be shared)."""
    start, cpu = time.perf_counter(), time.process_time()
    status = main(argv)
    return status, time.perf_counter() - start, time.process_time() - cpu


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--adult", action="store_true")
    parser.add_argument(
        "--output",
        default=os.path.join(tempfile.gettempdir(), "skfair_bench_report.html"),
    )
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    if args.rows:
        path = os.path.join(folder, "predictions.parquet")
        start = time.perf_counter()
        make_predictions(path, args.rows)
        print(f"generated {args.rows:,} rows in {time.perf_counter() - start:.1f} s")
        status, elapsed, cpu = timed(
            [
                "audit",
                "--predictions",
                path,
                "--score",
                "proba",
                "--sensitive",
                "group",
                "--label",
                "label",
                "--output",
                args.output,
            ]
        )
        print(
            f"audit of {args.rows:,} rows: status {status}, {elapsed:.1f} s wall, "
            f"{cpu:.1f} s CPU -> {args.output}"
        )
    if args.adult:
        out = os.path.join(folder, "adult.html")
        status, elapsed, cpu = timed(["audit", "--dataset", "adult", "--output", out])
        print(
            f"audit --dataset adult: status {status}, {elapsed:.1f} s wall, "
            f"{cpu:.1f} s CPU -> {out}"
        )
