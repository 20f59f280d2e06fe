"""Time and peak memory against the number of groups (issue 40).

``mcdp`` (MCDP(0), the worst pair), ``metric_confidence_interval(metric="abpc")``
and ``audit()`` on 10, 100, 1,000 and 10,000 groups of 20 rows each (scores
uniform on [0, 1], labels drawn with the score as probability). Each case runs
in its own process (``python -c``), so that its peak memory is its own: the
table reports wall time, the peak of Python's allocations (``tracemalloc``,
numpy arrays included) and the process's peak resident set
(``resource.getrusage``).

A case whose time, extrapolated from the two sizes before it (time grows as
``groups ** k``, ``k`` fitted on them), exceeds ``--budget`` seconds is not
run: its row says "skipped: budget" with the extrapolated seconds. A case
that runs longer than twice the budget is stopped ("stopped after").

For ``audit()`` the last column is :func:`skfair.report.resampling_estimate`
(the estimate by which ``audit()`` refuses more than
``MAX_RESAMPLING_SECONDS``), to compare with the measured seconds; an audit
it refuses prints the refusal ("error: ...").

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
rng = np.random.default_rng(0)
groups = np.repeat([f"g{k}" for k in range(n_groups)], 20)
scores = rng.random(groups.size)
y = (rng.random(groups.size) < scores).astype(int)
from skfair.metrics import mcdp, metric_confidence_interval
from skfair.report import audit
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
peak = tracemalloc.get_traced_memory()[1]
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak, "rss": rss}))
"""

CASES = {
    "mcdp": "mcdp(ε=0)",
    "abpc": "metric_confidence_interval(abpc)",
    "audit": "audit()",
}


def run(case, n_groups, n_resamples, timeout):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, case, str(n_groups), str(n_resamples)],
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


def _audit_estimate(n_groups, n_resamples):
    """``resampling_estimate`` of the benchmarked audit (20 rows a group)."""
    sys.path.insert(0, os.getcwd())
    from skfair.report import resampling_estimate

    return resampling_estimate(20 * n_groups, n_groups, n_resamples, n_resamples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--n-resamples", type=int, default=99)
    parser.add_argument("--groups", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    args = parser.parse_args()
    print(f"20 rows per group; n_resamples = n_permutations = {args.n_resamples}")
    header = (
        f"{'call':34} {'groups':>7} {'seconds':>9} {'peak MB':>9} {'RSS MB':>8}"
        f" {'estimate s':>10}"
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
            guess = ""
            if case == "audit":
                guess = f" {_audit_estimate(n_groups, args.n_resamples):>10.1f}"
            print(
                f"{CASES[case]:34} {n_groups:>7} {result['seconds']:>9.2f} "
                f"{result['peak'] / 1e6:>9.1f} {result['rss'] / 1e6:>8.0f}{guess}"
            )


if __name__ == "__main__":
    main()
