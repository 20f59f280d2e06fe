"""Coverage of skfair's confidence intervals, measured by simulation.

For every metric (ΔDP_c, ΔDP_b^0.5, ABCC, ABPC, MCDP(0), MCDP(0.05)) and case
below, draws seeded samples whose true metric is known, computes the
intervals at nominal 90% and 95%, and prints how often each covers the truth
(for "identical": how often it contains 0), with the median width, for

* ``new``: the default of :func:`skfair.metrics.metric_confidence_interval`
  (``method="auto"``: Welch for ΔDP_c, Newcombe for ΔDP_b, the bootstrap
  band of the centred gap for ABCC, ABPC and MCDP, and lower bound 0 where
  the closed-form test does not reject), exactly as the library computes it;
* ``basic``: the previous default, scipy's 'basic' bootstrap of the metric;
* ``dkw``: the distribution-free DKW interval (not for ABPC).

Cases (scores are Φ(X), X normal; group means of X in brackets):

* ``shift``: [0, 0.3], 400 + 400;  ``unequal``: [0, 0.3], 80 + 1500;
* ``ties``: [0, 0.3], 400 + 400, scores rounded to a multiple of 0.05;
* ``three``: [0, 0.3, 0.3], 3 x 400, max over pairs (two pairs tie for it);
* ``identical``: [0, 0], 400 + 400 (every metric is 0);
* ``small``: [0, 0.3], 30 + 400.

True values. For Φ(N(0, 1)) against Φ(N(δ, 1)) the CDF gap is
``G(u) = u - Φ(Φ⁻¹(u) - δ) >= 0``, so ΔDP_c = ABCC = Φ(δ/√2) - 1/2, ΔDP_b^0.5
= Φ(δ) - 1/2, MCDP(0) = sup G = 2Φ(δ/2) - 1, ABPC = 2 TV = 2 (2Φ(δ/2) - 1),
and MCDP(0.05) = max over windows [t, t + 0.1] of min G, found numerically on
a grid of 10⁶ points (G is unimodal). With ties the population is the 21
atoms with their exact probabilities, and ΔDP, ABCC and MCDP are skfair's own
metrics on it (weighted by the probabilities: the same window and tie
conventions); ABPC's limit is then 2 TV of the rounded distributions. A
check evaluates every metric on samples 500 times larger (15 000 to
750 000 scores per group) and prints the largest difference from these
values: sampling error (~0.005) for all but ABPC, whose kernel estimate
stays ~0.02 below the true ABPC at those sizes (smoothing, and the density of
Φ(N(0.3, 1)) is unbounded at 1).

Resamples are 199 (``--resamples``); both levels use the same resamples. The
old methods are evaluated on the first ``--legacy-draws`` draws only (their
per-resample metric evaluations dominate the run time).
'basic' for ABPC evaluates the metric's binned KDE (equal to the default
direct one to ~1e-5) on separately drawn per-group resamples: the library
recomputes the public function per resample, far too slow for a simulation.

Run ``python benchmarks/bench_coverage.py`` (``--quick`` for a smoke run,
``--draws N``).
"""

import argparse
import time

import numpy as np
from scipy import stats

from skfair.metrics import abcc, abpc, delta_dp, mcdp
from skfair.metrics._kernels import binned_kde
from skfair.metrics.inference import (
    auto_method,
    bootstrap_draws,
    closed_form_pvalue,
    dkw_bounds,
    interval_band,
    interval_bounds,
    metric_spec,
    random_generator,
    shared_sort,
    zero_if_not_rejected,
)

METRICS = [
    ("ΔDP_c", "delta_dp", {}),
    ("ΔDP_b^0.5", "delta_dp", {"threshold": 0.5}),
    ("ABCC", "abcc", {}),
    ("ABPC", "abpc", {}),
    ("MCDP(0)", "mcdp", {}),
    ("MCDP(0.05)", "mcdp", {"epsilon": 0.05}),
]
FUNCTIONS = {"delta_dp": delta_dp, "abcc": abcc, "abpc": abpc, "mcdp": mcdp}
CASES = {
    "shift": ([0.0, 0.3], [400, 400], False),
    "unequal": ([0.0, 0.3], [80, 1500], False),
    "ties": ([0.0, 0.3], [400, 400], True),
    "three": ([0.0, 0.3, 0.3], [400, 400, 400], False),
    "identical": ([0.0, 0.0], [400, 400], False),
    "small": ([0.0, 0.3], [30, 400], False),
}
LEVELS = (0.90, 0.95)
STEP = 0.05


def draw(case, rng, n_scale=1):
    shifts, sizes, rounded = CASES[case]
    y = np.concatenate(
        [stats.norm.cdf(rng.normal(m, 1.0, n * n_scale)) for m, n in zip(shifts, sizes)]
    )
    if rounded:
        y = np.round(y / STEP) * STEP
    return y, np.repeat(np.arange(len(sizes)), np.multiply(sizes, n_scale))


# -- true values ----------------------------------------------------------------
def continuous_truth(delta):
    """The six metrics of Φ(N(0,1)) against Φ(N(δ,1))."""
    if delta == 0:
        return np.zeros(len(METRICS))
    u = np.linspace(0.0, 1.0, 1_000_001)
    gap = u - stats.norm.cdf(stats.norm.ppf(u) - delta)
    k = 100_000  # a window of width 0.1 spans k grid steps
    window_min = np.minimum(gap[:-k], gap[k:])  # G unimodal: min at an end
    sup = 2 * stats.norm.cdf(delta / 2) - 1
    mean_gap = stats.norm.cdf(delta / np.sqrt(2)) - 0.5
    return np.array(
        [
            mean_gap,
            stats.norm.cdf(delta) - 0.5,
            mean_gap,
            2 * sup,
            sup,
            window_min.max(),
        ]
    )


def atom_probabilities(shift):
    edges = np.clip((np.arange(22) - 0.5) * STEP, 0.0, 1.0)
    return np.diff(stats.norm.cdf(stats.norm.ppf(edges) - shift))


def tied_truth(shifts):
    """The metrics of the rounded populations: skfair's, weighted by the atoms."""
    atoms = np.arange(21) * STEP
    probs = [atom_probabilities(s) for s in shifts]
    y = np.tile(atoms, len(shifts))
    groups = np.repeat(np.arange(len(shifts)), atoms.size)
    w = np.concatenate(probs)
    out = []
    for _, metric, kwargs in METRICS:
        if metric == "abpc":
            out.append(max(np.abs(p - q).sum() for p in probs for q in probs))
            continue
        f = FUNCTIONS[metric]
        out.append(
            f(
                None,
                y,
                sensitive_features=groups,
                sample_weight=w,
                min_group_size=1,
                **kwargs,
            )
        )
    return np.array(out)


def truth(case):
    shifts, _, rounded = CASES[case]
    if rounded:
        return tied_truth(shifts)
    return continuous_truth(max(shifts) - min(shifts))


def check_truths():
    """Per metric, the largest |metric on 500x the sample - true value| over cases."""
    worst = np.zeros(len(METRICS))
    for case in CASES:
        y, g = draw(case, np.random.default_rng(12345), n_scale=500)
        big = np.array(
            [
                FUNCTIONS[m](None, y, sensitive_features=g, min_group_size=1, **kw)
                for _, m, kw in METRICS
            ]
        )
        worst = np.maximum(worst, np.abs(big - truth(case)))
    return ", ".join(f"{name} {w:.4f}" for (name, _, _), w in zip(METRICS, worst))


# -- one draw -------------------------------------------------------------------
def basic_from(values, estimate, level, upper):
    """scipy's 'basic' interval from a bootstrap distribution."""
    alpha = 1.0 - level
    hi_q, lo_q = np.percentile(values, [100 * (1 - alpha / 2), 100 * alpha / 2])
    return np.clip(2 * estimate - hi_q, 0, upper), np.clip(
        2 * estimate - lo_q, 0, upper
    )


def legacy_abpc_values(y, g, rng, n_resamples):
    """ABPC on per-group resamples, with each resample's own bandwidth (binned KDE)."""
    grid = np.linspace(0.0, 1.0, 5000)
    densities = []
    for code in np.unique(g):
        x = y[g == code]
        n = x.shape[0]
        rows = []
        for _ in range(n_resamples):
            counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
            mean = counts @ x / n
            h = np.sqrt(counts @ (x - mean) ** 2 / (n - 1)) * n ** (-0.2)
            rows.append(binned_kde(x, counts, h, grid))
        densities.append(np.array(rows))
    k = len(densities)
    return np.max(
        [
            np.trapezoid(np.abs(densities[a] - densities[b]), grid, axis=1)
            for a in range(k)
            for b in range(a + 1, k)
        ],
        axis=0,
    )


def one_draw(case, seed, specs, n_resamples, legacy=True):
    """Per level and method, the (low, high) of every metric.

    ``legacy=False`` computes the new default only (no 'basic', no 'dkw').
    """
    rng = np.random.default_rng(seed)
    y, g = draw(case, rng)
    # the metrics' values only serve 'basic' (the band centres on its own pair
    # values); skipping them saves ABPC's exact KDE on the new-only draws
    estimated = specs if legacy else specs[:1]
    data = (None, y, g, None, "intersection")
    estimates, resampler = shared_sort(data, estimated, 1)
    band = interval_band(resampler, [s for s in specs if auto_method(s) == "band"])
    sortable = [s for s in specs if s.metric != "abpc"]
    draws = bootstrap_draws(
        resampler,
        sortable if legacy else [],
        confidence_level=0.95,
        n_resamples=n_resamples,
        bootstrap_method="basic",
        rng=random_generator(seed),
        band=band,
    )
    if legacy:
        values = dict(zip(sortable, draws.values))
        values[specs[3]] = legacy_abpc_values(y, g, rng, n_resamples)
    methods = [auto_method(s) for s in specs]
    pvalues = []
    for s in specs:
        test = closed_form_pvalue(resampler, s)
        pvalues.append(np.nan if test is None else test[0])
    out = {}
    for level in LEVELS:
        low, high = interval_bounds(
            resampler, specs, methods, level, band, draws.maxima
        )
        out[level, "new"] = (zero_if_not_rejected(low, pvalues, level), high)
        if not legacy:
            continue
        basic = [
            basic_from(values[s], e, level, 2.0 if s.metric == "abpc" else 1.0)
            for s, e in zip(specs, estimates)
        ]
        out[level, "basic"] = tuple(np.array(b) for b in zip(*basic))
        low, high = dkw_bounds(resampler, sortable, level)
        out[level, "dkw"] = (np.insert(low, 3, np.nan), np.insert(high, 3, np.nan))
    return out


def run(n_draws, n_legacy, n_resamples):
    specs = [metric_spec(m, kw) for _, m, kw in METRICS]
    results = {}
    for c, case in enumerate(CASES):
        start = time.perf_counter()
        target = truth(case)
        hits, widths = {}, {}
        for d in range(n_draws):
            out = one_draw(case, 1000 * c + d, specs, n_resamples, d < n_legacy)
            for key, (low, high) in out.items():
                inside = (low <= target + 1e-9) & (target <= high + 1e-9)
                hits.setdefault(key, []).append(np.where(np.isnan(low), np.nan, inside))
                widths.setdefault(key, []).append(high - low)
        results[case] = (hits, widths, time.perf_counter() - start)
        print(f"  {case}: {n_draws} draws in {results[case][2]:.0f} s", flush=True)
    return results


def print_table(results, n_draws, n_legacy, n_resamples):
    print(
        f"\nCoverage % (median width): 'new' over {n_draws} draws, 'basic' and "
        f"'dkw' over the first {n_legacy}; {n_resamples} resamples; 'identical': "
        "% of intervals containing 0."
    )
    header = f"{'case':10s} {'metric':11s}"
    for level in LEVELS:
        for method in ("new", "basic", "dkw"):
            header += f" | {method} {100 * level:.0f}%".ljust(17)
    print(header)
    misses = []
    for case, (hits, widths, _) in results.items():
        for j, (name, _, _) in enumerate(METRICS):
            line = f"{case:10s} {name:11s}"
            for level in LEVELS:
                for method in ("new", "basic", "dkw"):
                    if not hits.get((level, method)):  # --legacy-draws 0
                        line += " | " + "—".ljust(14)
                        continue
                    h = np.array(hits[level, method])[:, j]
                    w = np.array(widths[level, method])[:, j]
                    if np.isnan(h).all():
                        line += " | " + "—".ljust(14)
                        continue
                    cov = 100 * np.nanmean(h)
                    line += f" | {cov:5.1f} ({np.nanmedian(w):.3f})".ljust(17)
                    if method == "new" and cov < 100 * level - 3:
                        misses.append((case, name, level, cov))
            print(line)
    print(
        "\nEvery 'new' cell >= nominal - 3 points."
        if not misses
        else f"\nCells of 'new' below nominal - 3 points: {misses}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=400, help="for the new default")
    parser.add_argument(
        "--legacy-draws", type=int, default=100, help="for 'basic' and 'dkw'"
    )
    parser.add_argument("--resamples", type=int, default=199)
    parser.add_argument(
        "--quick", action="store_true", help="30 draws (10 legacy), 99 resamples"
    )
    args = parser.parse_args()
    n_draws, n_legacy, n_resamples = (
        (30, 10, 99) if args.quick else (args.draws, args.legacy_draws, args.resamples)
    )
    start = time.perf_counter()
    print(f"Largest |metric on 500x larger samples - true value|: {check_truths()}")
    results = run(n_draws, n_legacy, n_resamples)
    print_table(results, n_draws, n_legacy, n_resamples)
    print(f"\nWall time: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
