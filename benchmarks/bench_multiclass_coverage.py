"""Coverage of the intervals, and size of the test, on class probabilities.

Simulation: 3 classes, Dirichlet probabilities, two groups; group 1's
Dirichlet parameter is shifted towards class 0 (``shift``), so every class's
probability distribution differs between the groups. For each of
``--reps`` replications of ``n`` samples:

* the 95 % interval (``method="auto"``: the band, shared resamples over the
  classes) of MCDP(0) with ``class_agg="max"`` (and "mean"), covering the
  true value, computed once on 2,000,000 samples per group (its Monte Carlo
  error is about 1e-3);
* with ``shift=0`` (no group effect), the rejection rate at 5 % of the
  permutation test of the aggregated MCDP(0): the test's size.

Run: ``python benchmarks/bench_multiclass_coverage.py --reps 500``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from skfair.metrics import disparity_test, mcdp, metric_confidence_interval

ALPHA0 = np.array([2.0, 2.0, 2.0])


def draw(rng, n, shift):
    """``n`` samples: probabilities (n, 3) and a 0/1 group (half each)."""
    groups = np.repeat([0, 1], [n - n // 2, n // 2])
    alpha = np.where(groups[:, None] == 1, ALPHA0 + [shift, 0.0, 0.0], ALPHA0)
    proba = rng.gamma(alpha)
    return proba / proba.sum(axis=1, keepdims=True), groups


def true_values(shift, n_big=2_000_000, seed=12345):
    """MCDP(0) max and mean over classes on a very large sample (0 without shift)."""
    if shift == 0.0:
        return {"max": 0.0, "mean": 0.0}
    rng = np.random.default_rng(seed)
    proba, groups = draw(rng, 2 * n_big, shift)
    return {
        agg: mcdp(None, proba, sensitive_features=groups, class_agg=agg)
        for agg in ("max", "mean")
    }


def coverage(reps, n, shift, n_resamples, seed=0):
    """Coverage and mean width of the auto (band) interval, per class_agg."""
    truth = true_values(shift)
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(truth, 0)
    widths = {agg: [] for agg in truth}
    for _ in range(reps):
        proba, groups = draw(rng, n, shift)
        for agg, value in truth.items():
            ci = metric_confidence_interval(
                None,
                proba,
                sensitive_features=groups,
                metric_params={"class_agg": agg},
                n_resamples=n_resamples,
                random_state=rng,
            )
            hits[agg] += ci.low <= value <= ci.high
            widths[agg].append(ci.high - ci.low)
    return (
        truth,
        {a: hits[a] / reps for a in hits},
        {a: np.mean(w) for a, w in widths.items()},
    )


def size(reps, n, n_resamples, seed=1):
    """Rejection rate at 5 % of the permutation test under the null."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(reps):
        proba, groups = draw(rng, n, 0.0)
        res = disparity_test(
            None,
            proba,
            sensitive_features=groups,
            n_resamples=n_resamples,
            random_state=rng,
        )
        rejected += res.pvalue <= 0.05
    return rejected / reps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--resamples", type=int, default=499)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    se = np.sqrt(0.95 * 0.05 / args.reps)
    print(
        f"reps={args.reps} n={args.n} resamples={args.resamples} (MC se of a 95% coverage: {se:.3f})"
    )
    for shift in (0.0, 1.0):
        start = time.perf_counter()
        truth, cov, width = coverage(args.reps, args.n, shift, args.resamples)
        took = time.perf_counter() - start
        for agg in truth:
            print(
                f"shift={shift:.1f} MCDP(0) class_agg={agg:<4} true={truth[agg]:.4f} "
                f"coverage={cov[agg]:.3f} mean width={width[agg]:.3f} ({took:.0f}s)"
            )
    start = time.perf_counter()
    rate = size(args.reps, args.n, args.resamples)
    took = time.perf_counter() - start
    print(
        f"permutation test, no group effect: rejection rate at 5% = {rate:.3f} ({took:.0f}s)"
    )


if __name__ == "__main__":
    main()
