"""Coverage of the regression audit's intervals with survey weights, by simulation.

The sibling of ``bench_weighted_audit_coverage.py`` for ``task="regression"``.
A finite population of ``--population`` people (default 20 000) in two
groups (A 30%, B 70%) has true values ``y ~ Normal(40, 10)`` and
predictions ``y + 1.5·[A] + 0.15·(y - 40) + Normal(0, 5)``: group A is
over-predicted by 1.5 on average, and everyone's residual grows with the
true value (a bias conditional on ``y``). Each replicate draws a **Poisson
sample** with inclusion probabilities that depend on the group and the true
value, ``π_i ∝ g(group) · h(y_i)`` with ``g`` = 3 for A, 1 for B and ``h`` =
3 for ``y < 40``, 1 otherwise (the small group and the low values
oversampled: the sample's residuals are biased downwards, more in A; about
1 000 rows per sample), and audits it with ``sample_weight = 1 / π_i``
(survey weights).

For each interval, the table prints the share of replicates whose interval
contains the **population's** value (of all ``N`` people, unweighted), the
mean width, and the same for the *naive* audit of the same sample without
weights:

* each group's bias (mean residual), MAE and RMSE (Student-t / log-scale
  intervals on the linearisation variance and Kish's ``n_eff``);
* the bias gap between the groups (Welch on Kish's sizes);
* the overall bias of the headline (everyone's mean residual).

Run ``python benchmarks/bench_weighted_regression_coverage.py`` (200
replicates by default; ``--quick`` for a smoke run). The bootstrap bands
and the naive audit's permutations are cut to 19 draws: none of the
intervals measured here uses them.
"""

import argparse
import time
import warnings

import numpy as np
from _coverage import Tally

from skfair import audit

GROUPS = np.array(["A", "B"])
SHARES = (0.3, 0.7)
GROUP_BIAS = {"A": 1.5, "B": 0.0}
OVERSAMPLE = {"A": 3.0, "B": 1.0}
LOW_VALUES = 3.0  # the extra inclusion factor of y < 40
QUANTITIES = (
    "bias A",
    "bias B",
    "MAE A",
    "MAE B",
    "RMSE A",
    "RMSE B",
    "bias gap",
    "overall bias",
)


def population(n, seed):
    """The finite population: groups, true values, predictions, inclusion π."""
    rng = np.random.default_rng(seed)
    groups = rng.choice(GROUPS, n, p=SHARES)
    y = rng.normal(40.0, 10.0, n)
    pred = (
        y
        + np.vectorize(GROUP_BIAS.get)(groups)
        + 0.15 * (y - 40.0)
        + rng.normal(0.0, 5.0, n)
    )
    odds = np.vectorize(OVERSAMPLE.get)(groups) * np.where(y < 40.0, LOW_VALUES, 1.0)
    pi = np.minimum(1.0, odds * 1000 / odds.sum())  # about 1 000 expected rows
    return groups, y, pred, pi


def truths(groups, y, pred):
    """Every measured quantity of the whole population (unweighted)."""
    r = pred - y
    out = {"overall bias": float(r.mean())}
    for g in GROUPS:
        rows = groups == g
        out[f"bias {g}"] = float(r[rows].mean())
        out[f"MAE {g}"] = float(np.abs(r[rows]).mean())
        out[f"RMSE {g}"] = float(np.sqrt((r[rows] ** 2).mean()))
    out["bias gap"] = abs(out["bias A"] - out["bias B"])
    return out


def intervals(report):
    """``{quantity: (low, high)}`` of one regression audit."""
    table = report.groups.set_index("group")
    out = {}
    for g in GROUPS:
        for name, column in (
            ("bias", "mean_residual"),
            ("MAE", "mae"),
            ("RMSE", "rmse"),
        ):
            out[f"{name} {g}"] = (
                float(table.loc[g, f"{column}_low"]),
                float(table.loc[g, f"{column}_high"]),
            )
    gap = report.metrics.loc["mean_residual_gap"]
    out["bias gap"] = (float(gap["low"]), float(gap["high"]))
    overall = report.headline.regression.overall_bias
    out["overall bias"] = (overall.low, overall.high)
    return out


def run(args):
    groups, y, pred, pi = population(args.population, args.seed)
    truth = truths(groups, y, pred)
    print(
        f"population: {args.population:,} people; group shares "
        + ", ".join(f"{g} {np.mean(groups == g):.2f}" for g in GROUPS)
        + f"; expected sample {pi.sum():.0f} rows"
    )
    print("population values: " + ", ".join(f"{k} {v:.4f}" for k, v in truth.items()))
    weighted, naive = Tally(), Tally()
    rng = np.random.default_rng(args.seed + 1)
    deffs, start = [], time.perf_counter()
    fast = {"n_resamples": 19, "n_permutations": 19, "task": "regression"}
    for k in range(args.replicates):
        if k and k % 50 == 0:
            print(f"  {k} replicates, {time.perf_counter() - start:.0f} s", flush=True)
        rows = rng.random(args.population) < pi
        w = 1.0 / pi[rows]
        deffs.append(rows.sum() * (w * w).sum() / w.sum() ** 2)
        common = {"sensitive_features": groups[rows], **fast}
        report = audit(y[rows], pred[rows], sample_weight=w, **common)
        for name, interval in intervals(report).items():
            weighted.add(name, interval, truth[name])
        report = audit(y[rows], pred[rows], **common)
        for name, interval in intervals(report).items():
            naive.add(name, interval, truth[name])
    seconds = time.perf_counter() - start
    print(
        f"{args.replicates} replicates, Kish design effect of the samples: mean "
        f"{np.mean(deffs):.2f}; {seconds:.0f} s"
    )
    print()
    print(
        f"{'quantity':<13} {'nominal':>7} {'coverage':>9} {'mean width':>11} "
        f"{'naive coverage':>15} {'naive width':>12} {'intervals':>10}"
    )
    for name in QUANTITIES:
        cov, width, _, n = weighted.row(name)
        ncov, nwidth, _, _ = naive.row(name)
        print(
            f"{name:<13} {'0.95':>7} {cov:>9.3f} {width:>11.4f} "
            f"{ncov:>15.3f} {nwidth:>12.4f} {n:>10}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--population", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.replicates = 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(args)


if __name__ == "__main__":
    main()
