"""Coverage of the label-conditional intervals (``metric_params={"given": ...}``).

For MCDP(0), ABCC and ΔDP_c given the positive and given the negative label,
draws seeded samples whose true conditional metric is known and counts how
often :func:`skfair.metrics.metric_confidence_interval` (``method="auto"``:
the bootstrap band for MCDP and ABCC, Welch for ΔDP_c; and the DKW interval
of MCDP) covers it at nominal 95%, with the median width.

Data: group ``g`` (sizes below), label ``Y ~ Bernoulli(p_g)``, score
``Φ(X)`` with ``X ~ N(μ(g, Y), 1)``. Given a label the groups' scores are
Φ of two normals a shift ``δ`` apart, so MCDP(0) = 2Φ(|δ|/2) - 1 and ABCC =
ΔDP_c = |Φ(μ_a/√2) - Φ(μ_b/√2)| (one group's scores dominate the other's).
Cases:

* ``base-rate``: μ(g, y) = 0.8 y for both groups, p = (0.3, 0.6), 600 + 600:
  the groups differ in their positive rates only, so every conditional
  metric is 0 (identical groups given the label) while the unconditional
  ones are not;
* ``shift``: μ(g, 1) = (0.8, 1.1), μ(g, 0) = (0, 0.2), p = (0.4, 0.4),
  600 + 600;
* ``unequal``: as ``shift`` with 150 + 1200 samples.

Run ``python benchmarks/bench_given_coverage.py`` (``--draws N``, default
400; ``--resamples``, default 199).
"""

import argparse
import time

import numpy as np
from scipy import stats

from skfair.metrics import metric_confidence_interval

CASES = {
    "base-rate": {"mu": ((0.0, 0.8), (0.0, 0.8)), "p": (0.3, 0.6), "n": (600, 600)},
    "shift": {"mu": ((0.0, 0.8), (0.2, 1.1)), "p": (0.4, 0.4), "n": (600, 600)},
    "unequal": {"mu": ((0.0, 0.8), (0.2, 1.1)), "p": (0.4, 0.4), "n": (150, 1200)},
}
SIDES = {"positive": 1, "negative": 0}
METHODS = [("mcdp", "auto"), ("mcdp", "dkw"), ("abcc", "auto"), ("delta_dp", "auto")]


def truth(metric, case, label):
    mu_a, mu_b = case["mu"][0][label], case["mu"][1][label]
    if metric == "mcdp":
        return 2 * stats.norm.cdf(abs(mu_a - mu_b) / 2) - 1
    return abs(stats.norm.cdf(mu_a / np.sqrt(2)) - stats.norm.cdf(mu_b / np.sqrt(2)))


def draw(case, rng):
    groups, labels, scores = [], [], []
    for g, n in enumerate(case["n"]):
        y = (rng.random(n) < case["p"][g]).astype(int)
        mu = np.asarray(case["mu"][g])[y]
        groups.append(np.full(n, g))
        labels.append(y)
        scores.append(stats.norm.cdf(rng.normal(mu, 1.0)))
    return np.concatenate(scores), np.concatenate(labels), np.concatenate(groups)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=199)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = []
    for name, case in CASES.items():
        rng = np.random.default_rng(0)
        hits = {(m, k, s): [] for m, k in METHODS for s in SIDES}
        widths = {key: [] for key in hits}
        for _ in range(args.draws):
            score, label, group = draw(case, rng)
            for side, value in SIDES.items():
                for metric, method in METHODS:
                    ci = metric_confidence_interval(
                        label,
                        score,
                        sensitive_features=group,
                        metric=metric,
                        method=method,
                        n_resamples=args.resamples,
                        random_state=rng,
                        metric_params={"given": side},
                        min_group_size=1,
                    )
                    true = truth(metric, case, value)
                    key = (metric, method, side)
                    hits[key].append(ci.low <= true <= ci.high)
                    widths[key].append(ci.high - ci.low)
        for (metric, method, side), covered in hits.items():
            shown = f"{metric} ({'dkw' if method == 'dkw' else 'auto'})"
            rows.append(
                (
                    name,
                    side,
                    shown,
                    truth(metric, case, SIDES[side]),
                    np.mean(covered),
                    np.median(widths[(metric, method, side)]),
                )
            )
    print(
        f"Coverage at nominal 95%, {args.draws} draws per cell, "
        f"{args.resamples} resamples ({time.perf_counter() - start:.0f} s)"
    )
    print(
        f"{'case':<10} {'given':<9} {'interval':<16} {'true':>6} {'cover':>6} {'width':>6}"
    )
    for name, side, shown, true, cover, width in rows:
        print(f"{name:<10} {side:<9} {shown:<16} {true:6.3f} {cover:6.3f} {width:6.3f}")
    print(f"lowest coverage: {min(r[4] for r in rows):.3f}")


if __name__ == "__main__":
    main()
