"""Rejection rate of calibration_by_group's test under the null, and its power.

Data: each group's scores from a Beta distribution, the outcome drawn with
probability f(score) for the *same* f in every group (sufficiency holds), or
with a shift of the second group's probability (the alternative). The test
(stratified chi-square, or the within-bin permutation test) should reject at
most 5% of the null draws at level 0.05.

    python benchmarks/bench_calibration_groups.py [--reps 1000] [--perm-reps 200]
"""

import argparse
import time

import numpy as np

from skfair.metrics import calibration_by_group

SCENARIOS = [
    # name, (n_a, n_b), (beta a), (beta b), link, shift of group b
    ("same scores, calibrated", (1000, 1000), (2, 2), (2, 2), "identity", 0.0),
    ("same scores, miscalibrated f=s^2", (1000, 1000), (2, 2), (2, 2), "square", 0.0),
    ("different scores, calibrated", (1000, 1000), (2, 3), (3, 2), "identity", 0.0),
    ("different scores, n=5000", (5000, 5000), (2, 3), (3, 2), "identity", 0.0),
    ("small vs large group", (100, 2000), (2, 2), (2, 3), "identity", 0.0),
    ("unbalanced, 4 groups", (300, 600, 900, 1200), (2, 2), (3, 2), "identity", 0.0),
    ("alternative: b +0.05", (1000, 1000), (2, 2), (2, 2), "identity", 0.05),
    ("alternative: b +0.10", (1000, 1000), (2, 2), (2, 2), "identity", 0.10),
]


def draw(rng, sizes, beta_a, beta_b, link, shift):
    """Scores, outcomes and groups of one scenario."""
    scores, groups = [], []
    for g, n in enumerate(sizes):
        a, b = beta_a if g % 2 == 0 else beta_b
        scores.append(rng.beta(a, b, size=n))
        groups.append(np.full(n, g))
    s, g = np.concatenate(scores), np.concatenate(groups)
    p = s if link == "identity" else s**2
    p = np.clip(p + shift * (g == 1), 0.0, 1.0)
    return (rng.uniform(size=s.size) < p).astype(int), s, g


def rejection_rate(scenario, test, reps, seed, n_bins=10):
    """Share of ``reps`` draws whose p-value is at most 0.05."""
    _, sizes, beta_a, beta_b, link, shift = scenario
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(reps):
        y, s, g = draw(rng, sizes, beta_a, beta_b, link, shift)
        result = calibration_by_group(
            y,
            s,
            sensitive_features=g,
            n_bins=n_bins,
            test=test,
            n_resamples=199,
            random_state=rng,
        )
        rejected += result.pvalue <= 0.05
    return rejected / reps


def main():
    """Print the table of rejection rates."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--perm-reps", type=int, default=200)
    args = parser.parse_args()
    start = time.perf_counter()
    header = f"{'scenario':36s} {'chi2':>7s} {'perm':>7s}  (n_bins=10, level 0.05)"
    print(header)
    print("-" * len(header))
    for k, scenario in enumerate(SCENARIOS):
        chi2 = rejection_rate(scenario, "chi2", args.reps, seed=k)
        perm = rejection_rate(scenario, "permutation", args.perm_reps, seed=100 + k)
        print(f"{scenario[0]:36s} {chi2:7.3f} {perm:7.3f}")
    se = np.sqrt(0.05 * 0.95 / args.reps)
    print(
        f"\n{args.reps} draws per chi2 cell (SE at 0.05: {se:.3f}), "
        f"{args.perm_reps} per permutation cell (199 permutations each); "
        f"{time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
