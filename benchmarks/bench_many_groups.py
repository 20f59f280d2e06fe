"""Time and peak memory against the number of groups (issue 40).

``mcdp`` (MCDP(0), the worst pair), ``metric_confidence_interval(metric="abpc")``
and ``audit()`` on 10, 100, 1,000 and 10,000 groups of 20 rows each (scores
uniform on [0, 1], labels drawn with the score as probability). Each case runs
in its own process (``python -c``), so that its peak memory is its own: the
table reports wall time and the process's peak resident set
(``resource.getrusage``) of a run without ``tracemalloc`` (which slows
code that makes many small arrays several times over: ABPC's interval of
1,000 groups took 44 s traced and 11 s untraced), then the peak of Python's
allocations (``tracemalloc``, numpy arrays included) from a second, traced
run of the same case when the first took under a quarter of the budget
("--" otherwise).

A case whose time, extrapolated from the two sizes before it (time grows as
``groups ** k``, ``k`` fitted on them), exceeds ``--budget`` seconds is not
run: its row says "skipped: budget" with the extrapolated seconds. A case
that runs longer than twice the budget is stopped ("stopped after"). The
audit runs with its refusal lifted, so that its last column, the seconds
:func:`skfair.report.resampling_estimate` predicts for its intervals and
tests (on which :func:`audit` refuses), can be checked against the time
measured.

Run ``python benchmarks/bench_many_groups.py [--budget 60] [--n-resamples 99]
[--groups 10 100 1000 10000]`` from the repository root (the child
processes import skfair from the current directory).
"""

import argparse
import json
import math
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time, tracemalloc, warnings
import numpy as np
warnings.simplefilter("ignore")
case, n_groups, n_resamples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
trace = sys.argv[4] == "1"
rng = np.random.default_rng(0)
groups = np.repeat([f"g{k}" for k in range(n_groups)], 20)
scores = rng.random(groups.size)
y = (rng.random(groups.size) < scores).astype(int)
from skfair.metrics import mcdp, metric_confidence_interval
from skfair.report import audit
import skfair.report._budget as budget
estimate = budget.resampling_estimate(groups.size, n_groups, n_resamples, n_resamples)
budget.MAX_RESAMPLING_SECONDS = float("inf")  # measure what the audit refuses
if trace:
    tracemalloc.start()
start = time.perf_counter()
if case == "mcdp":
    mcdp(y, scores, sensitive_features=groups, min_group_size=1)
elif case == "abpc":
    metric_confidence_interval(
        None, scores, sensitive_features=groups, metric="abpc",
        n_resamples=n_resamples, min_group_size=1, random_state=0,
    )
else:
    audit(
        y, scores, sensitive_features=groups, n_resamples=n_resamples,
        n_permutations=n_resamples, random_state=0,
    )
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1] if trace else None
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak, "rss": rss, "estimate": estimate}))
"""

CASES = {
    "mcdp": "mcdp(ε=0)",
    "abpc": "metric_confidence_interval(abpc)",
    "audit": "audit()",
}


def run(case, n_groups, n_resamples, timeout, trace=False):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                CHILD,
                case,
                str(n_groups),
                str(n_resamples),
                "1" if trace else "0",
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"stopped": timeout}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:80]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def estimate(history, n_groups):
    """Seconds at ``n_groups`` from the last two measured sizes (a power law)."""
    if len(history) < 2:
        return None
    (g1, t1), (g2, t2) = history[-2:]
    k = max(1.0, math.log(max(t2, 1e-3) / max(t1, 1e-3)) / math.log(g2 / g1))
    return t2 * (n_groups / g2) ** k


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--n-resamples", type=int, default=99)
    parser.add_argument("--groups", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    args = parser.parse_args()
    print(f"20 rows per group; n_resamples = n_permutations = {args.n_resamples}")
    header = (
        f"{'call':34} {'groups':>7} {'seconds':>9} {'peak MB':>9} {'RSS MB':>8} "
        f"{'estimate s':>10}"
    )
    print(header)
    print("-" * len(header))
    for case in args.cases:
        history = []
        for n_groups in args.groups:
            guess = estimate(history, n_groups)
            if guess is not None and guess > args.budget:
                row = f"skipped: budget (extrapolated {guess:,.0f} s)"
                print(f"{CASES[case]:34} {n_groups:>7} {row}")
                continue
            result = run(case, n_groups, args.n_resamples, 2 * args.budget)
            if "stopped" in result:
                print(
                    f"{CASES[case]:34} {n_groups:>7} stopped after {result['stopped']:.0f} s"
                )
                history.append((n_groups, result["stopped"]))
                continue
            if "error" in result:
                print(f"{CASES[case]:34} {n_groups:>7} error: {result['error']}")
                continue
            history.append((n_groups, result["seconds"]))
            peak = "--"
            if result["seconds"] < args.budget / 4:
                traced = run(case, n_groups, args.n_resamples, 2 * args.budget, True)
                if "peak" in traced:
                    peak = f"{traced['peak'] / 1e6:.1f}"
            print(
                f"{CASES[case]:34} {n_groups:>7} {result['seconds']:>9.2f} "
                f"{peak:>9} {result['rss'] / 1e6:>8.0f} "
                + (f"{result['estimate']:>10.1f}" if case == "audit" else "")
            )


if __name__ == "__main__":
    main()
