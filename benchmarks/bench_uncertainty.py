"""Coverage of skfair's confidence intervals, measured by simulation.

Draws seeded samples from distributions whose MCDP(ε), ABCC and ΔDP are known
in closed form and counts how often each interval covers the true value:

* ``shift``: group a ~ U(0, 0.8), group b ~ U(0.2, 1). The CDF gap is 0.25 on
  [0.2, 0.8], so MCDP(0) = MCDP(0.05) = 0.25, ΔDP_b^0.5 = 0.25, and
  ABCC = W1 = ΔDP_c = 0.2 (a shift by 0.2).
* ``null``: both groups ~ Beta(2, 5); every metric is 0.

Run ``python benchmarks/bench_uncertainty.py [n_draws] [n_per_group]``. The
default intervals and every case of the issue are measured by
``benchmarks/bench_coverage.py``; this script compares the old methods.
"""

import sys
import time

import numpy as np

from skfair.metrics.inference import (
    bootstrap_draws,
    dkw_bounds,
    metric_spec,
    random_generator,
    shared_sort,
)

SPECS = [
    ("mcdp", {}),
    ("mcdp", {"epsilon": 0.05}),
    ("abcc", {}),
    ("delta_dp", {}),
    ("delta_dp", {"threshold": 0.5}),
]
TRUTH = {"shift": [0.25, 0.25, 0.2, 0.2, 0.25], "null": [0.0] * 5}


def draw(case, rng, n):
    if case == "shift":
        return np.r_[rng.uniform(0, 0.8, n), rng.uniform(0.2, 1.0, n)]
    return rng.beta(2, 5, 2 * n)


def main(n_draws=200, n=200, n_resamples=499):
    specs = [metric_spec(m, kw) for m, kw in SPECS]
    groups = np.repeat([0, 1], n)
    for case, truth in TRUTH.items():
        truth = np.array(truth)
        hits = {"dkw": 0, "basic": 0, "percentile": 0}
        width = dict.fromkeys(hits, 0.0)
        start = time.perf_counter()
        for seed in range(n_draws):
            rng = np.random.default_rng(seed)
            y = draw(case, rng, n)
            data = (None, y, groups, None, "intersection")
            _, resampler = shared_sort(data, specs)
            lo, hi = dkw_bounds(resampler, specs, 0.95)
            hits["dkw"] += (lo <= truth + 1e-12) & (truth <= hi + 1e-12)
            width["dkw"] += hi - lo
            for kind in ("basic", "percentile"):
                draws = bootstrap_draws(
                    resampler,
                    specs,
                    confidence_level=0.95,
                    n_resamples=n_resamples,
                    bootstrap_method=kind,
                    rng=random_generator(seed),
                )
                lo, hi = np.clip(draws.low, 0, 1), np.clip(draws.high, 0, 1)
                hits[kind] += (lo <= truth + 1e-12) & (truth <= hi + 1e-12)
                width[kind] += hi - lo
        elapsed = time.perf_counter() - start
        print(
            f"case={case}: {n_draws} draws, n={n} per group, "
            f"{n_resamples} bootstrap resamples ({elapsed:.1f} s)"
        )
        for kind in hits:
            cov = ", ".join(
                f"{m}{kw or ''}: {c / n_draws:.3f} (w {w / n_draws:.3f})"
                for (m, kw), c, w in zip(SPECS, hits[kind], width[kind])
            )
            print(f"  {kind:10s} {cov}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
