"""Rejection rate of calibration_by_group's test under the null, and its power.

Data: each group's scores from a Beta distribution, the outcome drawn with
probability f(score) for the *same* f in every group (sufficiency holds:
the null), or with the second group's probability shifted (the
alternative). At level 0.05 a valid test rejects at most 5% of the null
draws. Beside skfair's test (a score test within each bin, adjusted for the
score) the table gives the naive test of equal rates per bin (Pearson's
chi-square stratified by bin), which rejects more often when the groups'
scores differ within the bins.

    python benchmarks/bench_calibration_groups.py [--reps 1000]
"""

import argparse
import time

import numpy as np
from scipy import stats

from skfair.metrics import calibration_by_group

SCENARIOS = [
    # name, group sizes, beta of even groups, beta of odd groups, link, shift
    ("same scores, f(s)=s", (1000, 1000), (2, 2), (2, 2), "identity", 0.0),
    ("same scores, f(s)=s^2", (1000, 1000), (2, 2), (2, 2), "square", 0.0),
    ("B(2,3) vs B(3,2), f(s)=s", (1000, 1000), (2, 3), (3, 2), "identity", 0.0),
    ("B(2,3) vs B(3,2), n=5000", (5000, 5000), (2, 3), (3, 2), "identity", 0.0),
    ("B(1,4) vs B(4,1), n=5000", (5000, 5000), (1, 4), (4, 1), "identity", 0.0),
    ("B(2,3) vs B(3,2), f=s^2, n=5000", (5000, 5000), (2, 3), (3, 2), "square", 0.0),
    ("100 vs 2000 samples", (100, 2000), (2, 2), (2, 3), "identity", 0.0),
    ("4 groups, 300-1200", (300, 600, 900, 1200), (2, 2), (3, 2), "identity", 0.0),
    ("alternative: +0.05", (1000, 1000), (2, 2), (2, 2), "identity", 0.05),
    ("alternative: +0.10", (1000, 1000), (2, 2), (2, 2), "identity", 0.10),
]


def draw(rng, sizes, beta_even, beta_odd, link, shift):
    """Outcomes, scores and groups of one scenario."""
    scores, groups = [], []
    for g, n in enumerate(sizes):
        a, b = beta_even if g % 2 == 0 else beta_odd
        scores.append(rng.beta(a, b, size=n))
        groups.append(np.full(n, g))
    s, g = np.concatenate(scores), np.concatenate(groups)
    p = s if link == "identity" else s**2
    p = np.clip(p + shift * (g == 1), 0.0, 1.0)
    return (rng.uniform(size=s.size) < p).astype(int), s, g


def naive_binned_pvalue(table):
    """Pearson's chi-square of equal rates per bin, summed over bins."""
    statistic, dof = 0.0, 0
    for _, cells in table.groupby("bin"):
        n = cells["count"].to_numpy(float)
        x = n * cells["observed_rate"].to_numpy()
        p = x.sum() / n.sum()
        if n.size < 2 or p in (0.0, 1.0):
            continue
        statistic += np.sum((x - n * p) ** 2 / (n * p * (1 - p)))
        dof += n.size - 1
    return stats.chi2.sf(statistic, dof) if dof else 1.0


def rejection_rates(scenario, reps, seed, n_bins=10):
    """Shares of ``reps`` draws rejected at 0.05: skfair's test and the naive one."""
    _, sizes, beta_even, beta_odd, link, shift = scenario
    rng = np.random.default_rng(seed)
    ours = naive = 0
    for _ in range(reps):
        y, s, g = draw(rng, sizes, beta_even, beta_odd, link, shift)
        result = calibration_by_group(
            y, s, sensitive_features=g, n_bins=n_bins, min_group_size=1
        )
        ours += result.pvalue <= 0.05
        naive += naive_binned_pvalue(result.table) <= 0.05
    return ours / reps, naive / reps


def main():
    """Print the table of rejection rates."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    args = parser.parse_args()
    start = time.perf_counter()
    header = f"{'scenario (null unless alternative)':34s} {'skfair':>7s} {'naive':>7s}"
    print(header)
    print("-" * len(header))
    for k, scenario in enumerate(SCENARIOS):
        ours, naive = rejection_rates(scenario, args.reps, seed=k)
        print(f"{scenario[0]:34s} {ours:7.3f} {naive:7.3f}", flush=True)
    se = np.sqrt(0.05 * 0.95 / args.reps)
    print(
        f"\nrejection rates at level 0.05, 10 quantile bins, {args.reps} draws "
        f"per cell (SE at 0.05: {se:.3f}); {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
