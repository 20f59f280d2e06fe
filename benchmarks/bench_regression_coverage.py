"""Coverage of the regression group metrics' intervals, measured by simulation.

For residual distributions with a skew and with heavy tails, draws seeded
samples whose per-group mean residual, MAE and RMSE are known, computes the
library's 95% intervals exactly as the public functions do, and prints how
often each covers the truth, with the median width:

* ``group``: :func:`skfair.metrics.regression_group_table`'s interval of
  group ``b`` (Student t for the mean residual and the MAE, the square root
  of the t interval of the MSE for the RMSE);
* ``diff``: the same table's Welch interval of ``b`` minus the reference
  ``a`` (the delta method for RMSE);
* ``gap``: :func:`skfair.metrics.regression_gap_intervals` with
  ``method="welch"`` and ``method="bootstrap"``, for two groups
  (``two``), three groups whose largest gap is attained by two pairs at
  once (``tie``, the hard case for a maximum), and four identical groups
  (``null``: every gap is 0; coverage is how often the interval holds 0).

Residuals of a group are ``loc + scale * X`` with ``X``:

* ``normal``: N(0, 1);
* ``lognormal``: exp(N(0, 1/4)) - e^{1/8}, centred (skewness 1.75);
* ``lognormal1``: exp(N(0, 1)) - e^{1/2} (skewness 6.2, and the squared
  errors' kurtosis is in the millions: a stress case);
* ``t3``: Student's t with 3 degrees of freedom (infinite fourth moment:
  the squared errors have infinite variance).

Group ``a`` has ``(loc, scale) = (0, 1)``, ``b`` and ``c`` have ``(0.5, 1.5)``.
True values: mean ``loc + scale E[X]`` and RMSE from ``E[X^2]`` in closed
form, MAE ``E|loc + scale X|`` by numerical integration
(:meth:`scipy.stats.rv_continuous.expect`).

Run ``python benchmarks/bench_regression_coverage.py`` (``--quick`` for a smoke
run; ``--reps`` replications of the closed-form intervals, default 2000;
``--boot-reps`` of the bootstrap ones, default 300, with ``--resamples``
resamples each, default 499).
"""

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from skfair.metrics import regression_gap_intervals, regression_group_table

METRICS = ("mean_residual", "mae", "rmse")
GROUPS = {"a": (0.0, 1.0), "b": (0.5, 1.5), "c": (0.5, 1.5)}
SHIFT = np.exp(0.5)
BASES = {
    # name: (frozen scipy distribution of X before centring, shift, E[X^2])
    "normal": (stats.norm(), 0.0, 1.0),
    "lognormal": (stats.lognorm(0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
    "lognormal1": (stats.lognorm(1.0), SHIFT, (np.e - 1.0) * np.e),
    "t3": (stats.t(3), 0.0, 3.0),
}


def truth(base, loc, scale):
    """The population mean residual, MAE and RMSE of ``loc + scale * X``."""
    dist, shift, ex2 = BASES[base]
    offset = loc - scale * shift  # residual = offset + scale * raw draw
    kink = -offset / scale
    lo, hi = dist.support()
    mae = 0.0
    for lb, ub in ((lo, kink), (kink, hi)):
        lb, ub = max(lb, lo), min(ub, hi)
        if ub > lb:
            mae += dist.expect(lambda x: abs(offset + scale * x), lb=lb, ub=ub)
    return np.array([loc, mae, np.sqrt(loc**2 + scale**2 * ex2)])


def draw(base, loc, scale, n, rng):
    """``n`` residuals of a group."""
    dist, shift, _ = BASES[base]
    return loc + scale * (dist.rvs(size=n, random_state=rng) - shift)


def sample(base, groups, n, rng):
    """``(y_true, y_pred, s)`` with residuals of ``groups`` (n rows each)."""
    residual = np.concatenate([draw(base, *GROUPS[g], n, rng) for g in groups])
    y_true = rng.normal(10.0, 2.0, residual.shape[0])
    return y_true, y_true + residual, np.repeat(list(groups), n)


def covers(low, high, value):
    return (low <= value) & (value <= high)


def closed_form(base, n, reps, rng):
    """Coverage and width of the per-group, difference and Welch gap intervals."""
    t_a, t_b = truth(base, *GROUPS["a"]), truth(base, *GROUPS["b"])
    hits = {key: [] for key in ("group", "diff", "gap")}
    widths = {key: [] for key in hits}
    for _ in range(reps):
        y_true, y_pred, s = sample(base, "ab", n, rng)
        table = regression_group_table(
            y_true, y_pred, sensitive_features=s, reference="a"
        )
        gaps = regression_gap_intervals(
            y_true, y_pred, sensitive_features=s, method="welch"
        )
        row = table.loc["b"]
        for key, cols, value in (
            ("group", ("{}_lower", "{}_upper"), t_b),
            ("diff", ("{}_diff_lower", "{}_diff_upper"), t_b - t_a),
        ):
            low = np.array([row[cols[0].format(m)] for m in METRICS])
            high = np.array([row[cols[1].format(m)] for m in METRICS])
            hits[key].append(covers(low, high, value))
            widths[key].append(high - low)
        low, high = gaps["lower"].to_numpy(), gaps["upper"].to_numpy()
        hits["gap"].append(covers(low, high, np.abs(t_b - t_a)))
        widths["gap"].append(high - low)
    return {k: (np.mean(hits[k], 0), np.median(widths[k], 0)) for k in hits}


def gap_coverage(base, n, groups, method, reps, resamples, rng):
    """Coverage and width of ``regression_gap_intervals`` (max over pairs)."""
    if groups == "abcd":  # the null case: every group like "a", every gap 0
        true_gap = np.zeros(len(METRICS))
    else:
        values = np.array([truth(base, *GROUPS[g]) for g in groups])
        true_gap = np.max(np.abs(values[:, None] - values[None]), axis=(0, 1))
    hits, widths = [], []
    for _ in range(reps):
        y_true, y_pred, s = sample_null(base, groups, n, rng)
        gaps = regression_gap_intervals(
            y_true,
            y_pred,
            sensitive_features=s,
            method=method,
            n_resamples=resamples,
            random_state=rng,
        )
        low, high = gaps["lower"].to_numpy(), gaps["upper"].to_numpy()
        hits.append(covers(low, high, true_gap))
        widths.append(high - low)
    return np.mean(hits, 0), np.median(widths, 0)


def sample_null(base, groups, n, rng):
    """As :func:`sample`; in the null case (``"abcd"``) every group is like ``a``."""
    if groups == "abcd":
        residual = np.concatenate([draw(base, *GROUPS["a"], n, rng) for _ in groups])
        y_true = rng.normal(10.0, 2.0, residual.shape[0])
        return y_true, y_true + residual, np.repeat(list(groups), n)
    return sample(base, groups, n, rng)


def show(label, coverage, width):
    cells = "  ".join(f"{c:6.3f} ({w:7.3f})" for c, w in zip(coverage, width))
    print(f"  {label:<22}{cells}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--boot-reps", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=499)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 1000])
    parser.add_argument("--bases", nargs="+", default=list(BASES))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.boot_reps, args.resamples = 100, 40, 199
    print(
        f"95% intervals; coverage (median width) of mean_residual, mae, rmse; "
        f"{args.reps} replications (closed form), {args.boot_reps} (bootstrap, "
        f"{args.resamples} resamples)"
    )
    for base in args.bases:
        for n in args.sizes:
            start = time.perf_counter()
            rng = np.random.default_rng([n, len(base)])
            print(f"{base}, n = {n} per group")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SmallGroupWarning at n < 30
                result = closed_form(base, n, args.reps, rng)
                show("group b (t)", *result["group"])
                show("b - a (Welch)", *result["diff"])
                show("gap two (welch)", *result["gap"])
                for groups, name in (("abc", "tie"), ("abcd", "null")):
                    for method in ("welch", "bootstrap"):
                        reps = args.reps if method == "welch" else args.boot_reps
                        cov, wid = gap_coverage(
                            base, n, groups, method, reps, args.resamples, rng
                        )
                        show(f"gap {name} ({method})", cov, wid)
                cov, wid = gap_coverage(
                    base, n, "ab", "bootstrap", args.boot_reps, args.resamples, rng
                )
                show("gap two (bootstrap)", cov, wid)
            print(f"  [{time.perf_counter() - start:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
