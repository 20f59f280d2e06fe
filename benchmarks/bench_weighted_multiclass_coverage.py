"""Coverage of the multiclass audit's intervals with survey weights, by simulation.

The sibling of ``bench_weighted_audit_coverage.py`` for ``task="multiclass"``.
A finite population of ``--population`` people (default 20 000) in three
groups of unequal size (A 20%, B 30%, C 50%) has class probabilities over
four classes, the softmax of ``Normal(0, 1)`` logits plus a shift by group
(A +0.6 on class 0's logit, B +0.3 on class 1's, C none), and true classes
drawn from those probabilities (a calibrated model). The predicted class is
the most probable one, as the audit decides. Each replicate draws a
**Poisson sample** with inclusion probabilities that depend on the group
and the true class, ``π_i ∝ g(group) · h(group)^[y_i = 0]`` with ``g`` = 4,
2, 1 and ``h`` = 3, 1.5, 1 for A, B, C (the rare group oversampled, and its
people of class 0 most: the design distorts the groups' probability
distributions unequally; about 1 000 rows per sample), and audits it with
``sample_weight = 1 / π_i`` (non-integer: survey weights) at the defaults
(199 bootstrap resamples, 95%).

For each interval the multiclass report gives, the table prints the share
of replicates whose interval contains the **population's** value (of all
``N`` people, unweighted), the mean width, and the same for the *naive*
audit of the same sample without weights:

* each class's distribution metrics of its probability column, one-vs-rest:
  ΔDP_c (Welch on Kish's ``n_eff``), ABCC, MCDP(0) and MCDP(0.05) (the
  weighted bootstrap band); ABPC is left out, as in the binary benchmark
  (its band covers the kernel-smoothed ABPC, whose population value depends
  on the bandwidth);
* each group's selection rate (share predicted the class), TPR (share of the
  class predicted it) and FPR (share of the other classes predicted it) of
  every class, Wilson on the ``n_eff`` of the denominator (the group, its
  people of the class, the others). The main table pools the four classes of
  a group (48 intervals a replicate in all); ``--cells`` prints every
  (rate, group, class) cell, and the line under the table names the cell of
  lowest coverage.

The multiclass report has no other interval: its gap rows (the largest
difference of a rate over pairs of groups) and its headline's comparisons
carry none (the headline sets the two groups' Wilson intervals side by
side).

``--scenario null`` gives every group the same logits (no shift), under the
same design: every population gap is then (up to the finite population's
noise) 0, and the column "excl. 0" (the share of replicates whose metric
interval lies above 0, the report's evidence of a disparity with survey
weights) is the false-claim rate; the naive audit's shows the design's bias.
(For a rate the column is trivially about 1.)

Run ``python benchmarks/bench_weighted_multiclass_coverage.py`` (200
replicates by default; ``--quick`` for a smoke run). A weighted audit takes
about 1.3 s, a naive one about 9.5 s: it runs its permutation tests (the
default, sized to Holm's correction: 400 permutations of four classes; an
unweighted band interval starts at 0 when its test cannot reject), so only
the first ``--naive-replicates`` (default 30) samples are also audited
without weights: the default run took 457 s on 2 shared cores (load about
2.6), its weighted columns equal to those of the run below.

Measured with ``--naive-replicates 100`` (200 replicates, seed 20261203;
mean Kish design effect 1.72; 2,253 s beside the null run on 2 shared
cores; the whole table in the user guide, "Survey weights"): the weighted
intervals cover 0.975-1.000 (metrics, class by class) and 0.950-0.963 (the
rates, pooled by group; single cells 0.935-0.980), the naive ones down to
0.150 (ΔDP_c of class 0) and 0.273 (A's selection rates). Null scenario
(deff 1.62, 2,214 s): the weighted metric intervals exclude 0 in
0.000-0.075 of the samples per class and metric, the naive ones up to 0.750
(ΔDP_c of class 0).
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
N_CLASSES = 4
CLASSES = tuple(range(N_CLASSES))
SHIFTS = {  # the shift of each group's logits, by class
    "shift": {"A": (0.6, 0.0, 0.0, 0.0), "B": (0.0, 0.3, 0.0, 0.0), "C": (0.0,) * 4},
    "null": dict.fromkeys(GROUPS, (0.0,) * 4),
}
OVERSAMPLE = {"A": 4.0, "B": 2.0, "C": 1.0}
CLASS_ZERO = {"A": 3.0, "B": 1.5, "C": 1.0}  # the extra factor of true class 0
METRICS = ("delta_dp", "abcc", "mcdp", "mcdp@0.05")
RATES = ("selection_rate", "tpr", "fpr")


def population(n, seed, scenario="shift"):
    """The finite population: groups, probabilities, true classes and π."""
    rng = np.random.default_rng(seed)
    groups = rng.choice(GROUPS, n, p=SHARES)
    shift = np.array([SHIFTS[scenario][g] for g in groups])
    logits = rng.normal(0.0, 1.0, (n, N_CLASSES)) + shift
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    cumulative = proba.cumsum(axis=1)
    y = np.minimum((rng.random(n)[:, None] > cumulative).sum(axis=1), N_CLASSES - 1)
    extra = np.where(y == 0, np.vectorize(CLASS_ZERO.get)(groups), 1.0)
    odds = np.vectorize(OVERSAMPLE.get)(groups) * extra
    pi = np.minimum(1.0, odds * 1000 / odds.sum())  # about 1 000 expected rows
    return groups, proba, y, pi


def truths(groups, proba, y):
    """Every measured quantity of the whole population (unweighted)."""
    common = {"sensitive_features": groups, "min_group_size": 1}
    out = {}
    for k in CLASSES:
        p = proba[:, k]
        out[f"delta_dp[{k}]"] = delta_dp(None, p, **common)
        out[f"abcc[{k}]"] = abcc(None, p, **common)
        out[f"mcdp[{k}]"] = mcdp(None, p, **common)
        out[f"mcdp@0.05[{k}]"] = mcdp(None, p, epsilon=0.05, **common)
    pred = proba.argmax(axis=1)  # the first most probable class on ties
    for g in GROUPS:
        rows = groups == g
        for k in CLASSES:
            chosen = pred[rows] == k
            out[f"selection_rate {g} {k}"] = float(chosen.mean())
            out[f"tpr {g} {k}"] = float(chosen[y[rows] == k].mean())
            out[f"fpr {g} {k}"] = float(chosen[y[rows] != k].mean())
    return out


def intervals(report):
    """``{quantity: (low, high)}`` of one multiclass audit."""
    out = {}
    for key in METRICS:
        for k in CLASSES:
            row = report.metrics.loc[f"{key}[{k}]"]
            out[f"{key}[{k}]"] = (float(row["low"]), float(row["high"]))
    table = report.groups.set_index(["group", "class"])
    for g in GROUPS:
        for k in CLASSES:
            row = table.loc[(g, str(k))]
            for rate in RATES:
                out[f"{rate} {g} {k}"] = (
                    float(row[f"{rate}_low"]),
                    float(row[f"{rate}_high"]),
                )
    return out


def record(tally, found, truth):
    for name, interval in found.items():
        tally.add(name, interval, truth[name])


def _rows():
    """The main table's rows: ``(label, [quantity, ...])``."""
    rows = [(f"{key}[{k}]", [f"{key}[{k}]"]) for key in METRICS for k in CLASSES]
    short = {"selection_rate": "selection"}
    for rate in RATES:
        for g in GROUPS:
            rows.append(
                (f"{short.get(rate, rate)} {g}", [f"{rate} {g} {k}" for k in CLASSES])
            )
    return rows


def _cells():
    return [
        (f"{rate} {g} {k}", [f"{rate} {g} {k}"])
        for rate in RATES
        for g in GROUPS
        for k in CLASSES
    ]


def _print_table(rows, weighted, naive):
    print(
        f"{'quantity':<18} {'nominal':>7} {'coverage':>9} {'mean width':>11} "
        f"{'excl. 0':>8} {'naive coverage':>15} {'naive width':>12} "
        f"{'naive excl. 0':>14} {'intervals':>10} {'naive intervals':>16}"
    )
    for label, names in rows:
        cov, width, apart, n = weighted.row(names)
        ncov, nwidth, napart, nn = naive.row(names)
        print(
            f"{label:<18} {'0.95':>7} {cov:>9.3f} {width:>11.4f} {apart:>8.3f} "
            f"{ncov:>15.3f} {nwidth:>12.4f} {napart:>14.3f} {n:>10} {nn:>16}"
        )


def run(args):
    groups, proba, y, pi = population(args.population, args.seed, args.scenario)
    truth = truths(groups, proba, y)
    print(
        f"population: {args.population:,} people; group shares "
        + ", ".join(f"{g} {np.mean(groups == g):.2f}" for g in GROUPS)
        + f"; expected sample {pi.sum():.0f} rows"
    )
    print(
        "population values: "
        + ", ".join(
            f"{key}[{k}] {truth[f'{key}[{k}]']:.4f}" for key in METRICS for k in CLASSES
        )
    )
    print(
        "selection rates: "
        + "; ".join(
            f"{g} "
            + " ".join(f"{truth[f'selection_rate {g} {k}']:.3f}" for k in CLASSES)
            for g in GROUPS
        )
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
        common = {"sensitive_features": groups[rows], "task": "multiclass"}
        report = audit(y[rows], proba[rows], sample_weight=w, **common)
        record(weighted, intervals(report), truth)
        if k < args.naive_replicates:
            report = audit(y[rows], proba[rows], **common)
            record(naive, intervals(report), truth)
    seconds = time.perf_counter() - start
    print(
        f"{args.replicates} replicates ({args.scenario}; the first "
        f"{min(args.naive_replicates, args.replicates)} also without weights), "
        f"Kish design effect of the samples: mean {np.mean(deffs):.2f}; "
        f"{seconds:.0f} s"
    )
    print()
    _print_table(_rows(), weighted, naive)
    cells = [(label, *weighted.row(names)) for label, names in _cells()]
    label, cov, width, _, n = min(cells, key=lambda c: c[1])
    print(
        f"lowest weighted coverage of a single rate cell: {label} {cov:.3f} "
        f"(mean width {width:.4f}, {n} intervals)"
    )
    if args.cells:
        print()
        _print_table(_cells(), weighted, naive)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--population", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--scenario", choices=sorted(SHIFTS), default="shift")
    parser.add_argument(
        "--naive-replicates",
        type=int,
        default=30,
        help="audit the first N samples without weights too (0: none)",
    )
    parser.add_argument("--cells", action="store_true", help="every rate cell")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.replicates, args.naive_replicates = 5, 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(args)


if __name__ == "__main__":
    main()
