"""Coverage of the audit's intervals with survey weights, by simulation.

A finite population of ``--population`` people (default 20 000) in three
groups of unequal size (A 20%, B 30%, C 50%) has scores ``Beta(2, 4)``
shifted by group (A +0.10, B +0.05, C 0) and true labels
``Bernoulli(score)``. Each replicate draws a **Poisson sample** with
inclusion probabilities that depend on the group and the outcome,
``π_i = base · g(group) · h(group)^y_i`` with ``g`` = 4, 2, 1 and ``h`` =
3, 1.5, 1 for A, B, C (the rare group oversampled, and its positives most:
the design distorts the groups' score distributions unequally; about 1 000
rows per sample), and audits it with ``sample_weight = 1 / π_i`` (non-integer: survey
weights) at the defaults (199 bootstrap resamples, 95%).

For each interval the report gives, the table prints the share of
replicates whose interval contains the **population's** value (the metric
of all ``N`` people, unweighted), the mean width, and the same share for
the *naive* audit of the same sample without weights (its intervals are for
the sample's own distribution, biased by the design):

* the metrics' intervals: ΔDP_c (Welch on Kish's n_eff), ΔDP_b at 0.5
  (Newcombe on n_eff), ABCC, MCDP(0) and MCDP(0.05) (the weighted bootstrap
  band); ABPC is left out (its band covers the kernel-smoothed ABPC, whose
  population value depends on the bandwidth);
* each group's selection rate at 0.5 (Wilson on the n_eff of the group);
* the headline's Newcombe interval of each group's selection rate minus the
  most-selected group's (simultaneous over the pairs, Bonferroni), against
  the population's difference between the same two groups.

``--scenario null`` gives every group the same scores (no shift), under
the same design: every population gap is then (up to the finite
population's sampling noise) 0, and the column "excl. 0" (the share of
replicates whose interval excludes 0: for a metric, lies above 0, the
report's evidence of a disparity; for the headline's difference, lies below
0, its claim "selected less often") is the false-claim rate; the naive
audit's shows the design's bias. (For a rate the column is trivially 1.)

Run ``python benchmarks/bench_weighted_audit_coverage.py`` (``--replicates
500``; ``--quick`` for a smoke run). The naive audits run their permutation
tests (default permutations), so they take most of the time.
"""

import argparse
import time
import warnings

import numpy as np
from _coverage import Tally

from skfair import audit
from skfair.metrics import abcc, delta_dp, mcdp

GROUPS = np.array(["A", "B", "C"])
SHARES = (0.2, 0.3, 0.5)
SHIFTS = {
    "shift": {"A": 0.10, "B": 0.05, "C": 0.0},
    "null": {"A": 0.0, "B": 0.0, "C": 0.0},
}
OVERSAMPLE = {"A": 4.0, "B": 2.0, "C": 1.0}
POSITIVES = {"A": 3.0, "B": 1.5, "C": 1.0}  # the positives' extra factor
METRICS = ("delta_dp", "delta_dp@0.5", "abcc", "mcdp", "mcdp@0.05")
THRESHOLD = 0.5


def population(n, seed, scenario="shift"):
    """The finite population: groups, scores, labels and inclusion probabilities."""
    rng = np.random.default_rng(seed)
    groups = rng.choice(GROUPS, n, p=SHARES)
    shift = np.vectorize(SHIFTS[scenario].get)(groups)
    scores = np.clip(rng.beta(2, 4, n) + shift, 0, 1)
    y = (rng.random(n) < scores).astype(int)
    extra = np.where(y == 1, np.vectorize(POSITIVES.get)(groups), 1.0)
    odds = np.vectorize(OVERSAMPLE.get)(groups) * extra
    pi = np.minimum(1.0, odds * 1000 / odds.sum())  # about 1 000 expected rows
    return groups, scores, y, pi


def truths(groups, scores):
    """Every headline quantity of the whole population (unweighted)."""
    common = {"sensitive_features": groups, "min_group_size": 1}
    out = {
        "delta_dp": delta_dp(None, scores, **common),
        "delta_dp@0.5": delta_dp(None, scores, threshold=THRESHOLD, **common),
        "abcc": abcc(None, scores, **common),
        "mcdp": mcdp(None, scores, **common),
        "mcdp@0.05": mcdp(None, scores, epsilon=0.05, **common),
    }
    rates = {g: float(np.mean(scores[groups == g] >= THRESHOLD)) for g in GROUPS}
    return out, rates


def intervals(report):
    """``{quantity: (low, high)}`` of one audit, and the headline's differences."""
    out = {}
    for key in METRICS:
        row = report.metrics.loc[key]
        out[key] = (float(row["low"]), float(row["high"]))
    table = report.groups.set_index("group")
    for g in GROUPS:
        out[f"rate {g}"] = (
            float(table.loc[g, "positive_rate_low"]),
            float(table.loc[g, "positive_rate_high"]),
        )
    facts = report.headline.threshold
    diffs = {}
    for rate in (facts.lowest, facts.highest, *facts.unclear):
        if rate.group != facts.reference.group and np.isfinite(rate.diff_low):
            diffs[(rate.group, facts.reference.group)] = (rate.diff_low, rate.diff_high)
    if facts.disadvantaged is not None:
        d = facts.disadvantaged
        diffs[(d.group, facts.reference.group)] = (d.diff_low, d.diff_high)
    return out, diffs


def record(tally, found, diffs, truth, rates):
    for key, interval in found.items():
        value = truth[key] if key in truth else rates[key.split()[1]]
        tally.add(key, interval, value)
    for (a, b), interval in diffs.items():
        tally.add("headline diff", interval, rates[a] - rates[b])


def run(args):
    groups, scores, y, pi = population(args.population, args.seed, args.scenario)
    truth, rates = truths(groups, scores)
    print(
        f"population: {args.population:,} people; group shares "
        + ", ".join(f"{g} {np.mean(groups == g):.2f}" for g in GROUPS)
        + f"; expected sample {pi.sum():.0f} rows"
    )
    print(
        "population values: "
        + ", ".join(f"{k} {v:.4f}" for k, v in truth.items())
        + "; selection rates "
        + ", ".join(f"{g} {v:.4f}" for g, v in rates.items())
    )
    weighted, naive = Tally(), Tally()
    rng = np.random.default_rng(args.seed + 1)
    deffs, start = [], time.perf_counter()
    for k in range(args.replicates):
        if k and k % 50 == 0:
            print(f"  {k} replicates, {time.perf_counter() - start:.0f} s", flush=True)
        rows = rng.random(args.population) < pi
        w = 1.0 / pi[rows]
        deffs.append(rows.sum() * (w * w).sum() / w.sum() ** 2)
        common = {"sensitive_features": groups[rows]}
        report = audit(y[rows], scores[rows], sample_weight=w, **common)
        record(weighted, *intervals(report), truth, rates)
        if not args.no_naive:
            report = audit(y[rows], scores[rows], **common)
            record(naive, *intervals(report), truth, rates)
    seconds = time.perf_counter() - start
    names = [*METRICS, *(f"rate {g}" for g in GROUPS), "headline diff"]
    print(
        f"{args.replicates} replicates, Kish design effect of the samples: mean "
        f"{np.mean(deffs):.2f}; {seconds:.0f} s"
    )
    print()
    print(
        f"{'quantity':<15} {'nominal':>7} {'coverage':>9} {'mean width':>11} "
        f"{'excl. 0':>8} {'naive coverage':>15} {'naive width':>12} "
        f"{'naive excl. 0':>14} {'intervals':>10}"
    )
    for name in names:
        cov, width, apart, n = weighted.row(name)
        ncov, nwidth, napart, _ = naive.row(name)
        print(
            f"{name:<15} {'0.95':>7} {cov:>9.3f} {width:>11.4f} {apart:>8.3f} "
            f"{ncov:>15.3f} {nwidth:>12.4f} {napart:>14.3f} {n:>10}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=500)
    parser.add_argument("--population", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--scenario", choices=sorted(SHIFTS), default="shift")
    parser.add_argument("--no-naive", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.replicates = 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(args)


if __name__ == "__main__":
    main()
