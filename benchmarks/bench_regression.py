"""skfair's regression metrics and repair against scipy and holisticai.

Metrics (``--metrics``, default on): two groups of real-valued predictions
(normal, unit and shifted scale, with ties from rounding to 1e-3), at 1e6 and
1e7 rows. In the same process it times and compares

* MCDP(0) (:func:`skfair.metrics.mcdp`, ε = 0) with
  :func:`scipy.stats.ks_2samp` (the same statistic);
* ABCC (:func:`skfair.metrics.abcc`) with
  :func:`scipy.stats.wasserstein_distance` (the same distance);
* MCDP(ε) with ε = 5 % of the range, ``domain=None``, with ``np.sort`` of the
  predictions (the floor of any exact sort-based method);
* holisticai's ``max_statistical_parity`` (the largest positive-rate gap over
  150 quantile thresholds, a lower bound of KS) and its
  ``statistical_parity_auc`` (a weighted mean of those 150 gaps: another
  quantity than ABCC, timed only), when holisticai is importable.

Repair (``--repair``): :class:`skfair.postprocessing.ThresholdInvariantRegressor`
(the barycentre transport of Chzhen et al. 2020, the base predictions given
as a frozen model) against holisticai's ``WassersteinBarycenter`` on the same
predictions, at 1e3 … 1e6 rows (holisticai only while its projected time
stays under ``--budget`` seconds: its transform is quadratic). Both are fitted
on one half and applied to the other; the table gives the seconds and the
held-out KS between the groups after the repair.

holisticai is not a dependency of skfair. Install it in the benchmark's own
environment::

    python -m venv --system-site-packages .bench
    .bench/bin/pip install -r benchmarks/requirements-holisticai.txt
    .bench/bin/python benchmarks/bench_regression.py

Reproduction (``--reproduce SEEDS``): the setting of Chzhen et al. (2020) on
the bundled Communities and Crime data (50/50 splits, the group visible to the
model): held-out RMSE and KS of ridge, kernel ridge and a random forest,
before and after ThresholdInvariantRegressor.

Bundled data (``--bundled SEEDS``): the table of the regression user guide
(``bench_regression_bundled.py``): ThresholdInvariantRegressor on COMPAS,
Adult and German credit (70/30 splits, the sensitive column left out of the
model's features), held-out KS and its 5 % bound, ABCC and RMSE before and
after the repair, ridge and gradient boosting.

Run: ``python benchmarks/bench_regression.py [--sizes 1e6 1e7] [--repair]
[--repair-sizes 1e3 1e4 1e5 1e6] [--budget 60] [--repeat 3]
[--reproduce 5] [--bundled 3]``.
Figures depend on the machine and its load; compare ratios, not seconds.
"""

import argparse
import time

import numpy as np
from scipy.stats import ks_2samp, wasserstein_distance

from skfair.metrics import abcc, mcdp

try:  # optional: only in the benchmark's environment
    from holisticai.bias.metrics import max_statistical_parity, statistical_parity_auc
except ImportError:  # pragma: no cover - depends on the environment
    max_statistical_parity = statistical_parity_auc = None


def predictions(n, seed=0):
    """Two groups (60/40), the second shifted and wider, rounded to 1e-3."""
    rng = np.random.default_rng(seed)
    group = (rng.random(n) < 0.4).astype(np.int64)
    y = rng.normal(50.0 + 3.0 * group, 10.0 + 2.0 * group)
    return np.round(y, 3), group


def median_time(fn, repeat):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), value


def metric_rows(n, repeat):
    y, s = predictions(n)
    a, b = y[s == 0], y[s == 1]
    eps = 0.05 * float(np.ptp(y))
    ga, gb = (s == 0).astype(int), (s == 1).astype(int)
    cases = [
        (
            "MCDP(0)",
            lambda: mcdp(None, y, sensitive_features=s),
            "scipy ks_2samp",
            lambda: ks_2samp(a, b).statistic,
        ),
        (
            "ABCC",
            lambda: abcc(None, y, sensitive_features=s),
            "scipy wasserstein",
            lambda: wasserstein_distance(a, b),
        ),
        (
            "MCDP(5% range)",
            lambda: mcdp(None, y, sensitive_features=s, epsilon=eps, domain=None),
            "np.sort",
            lambda: np.sort(y)[0],
        ),
    ]
    if max_statistical_parity is not None:
        cases.append(
            (
                "MCDP(0)",
                lambda: mcdp(None, y, sensitive_features=s),
                "holisticai max_statistical_parity",
                lambda: max_statistical_parity(ga, gb, y),
            )
        )
        cases.append(
            (
                "ABCC",
                lambda: abcc(None, y, sensitive_features=s),
                "holisticai statistical_parity_auc",
                lambda: statistical_parity_auc(ga, gb, y),
            )
        )
    rows = []
    for name, ours, base_name, base in cases:
        t_ours, v_ours = median_time(ours, repeat)
        t_base, v_base = median_time(base, repeat)
        rows.append((n, name, base_name, t_ours, t_base, v_ours, float(v_base)))
    return rows


def print_metrics(sizes, repeat):
    print("## Metrics on real-valued predictions (median seconds, same process)")
    print(
        "| rows | skfair | baseline | skfair s | baseline s | ratio | "
        "skfair value | baseline value |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for n_, name, base, t1, t2, v1, v2 in metric_rows(n, repeat):
            shown = "-" if base == "np.sort" else f"{v2:.6f}"
            print(
                f"| {n_:.0e} | {name} | {base} | {t1:.3f} | {t2:.3f} | "
                f"{t1 / t2:.2f} | {v1:.6f} | {shown} |"
            )


def _frozen_repair(y_fit, s_fit, y_new, s_new):
    """ThresholdInvariantRegressor on given predictions (a frozen column model)."""
    from bench_regression_repair import ColumnRegressor
    from sklearn.frozen import FrozenEstimator

    from skfair.postprocessing import ThresholdInvariantRegressor

    X_fit, X_new = np.column_stack([s_fit, y_fit]), np.column_stack([s_new, y_new])
    base = FrozenEstimator(ColumnRegressor().fit(X_fit))
    model = ThresholdInvariantRegressor(base, sensitive=0)
    start = time.perf_counter()
    model.fit(X_fit, y_fit)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    out = model.predict(X_new)
    return fit, time.perf_counter() - start, out


def _holisticai_repair(y_fit, s_fit, y_new, s_new):
    from holisticai.bias.mitigation import WassersteinBarycenter

    model = WassersteinBarycenter()
    start = time.perf_counter()
    model.fit(y_fit, s_fit == 0, s_fit == 1)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    out = model.transform(y_new, s_new == 0, s_new == 1)["y_pred"]
    return fit, time.perf_counter() - start, np.asarray(out, dtype=float)


def print_repair(sizes, budget):
    print("\n## Repair: fit on one half, predict the other (seconds; held-out KS)")
    print(
        "| rows | KS before | skfair fit | skfair predict | skfair KS | "
        "holisticai fit | holisticai transform | holisticai KS |"
    )
    print("|---|---|---|---|---|---|---|---|")
    projected = 0.0
    last = None
    for n in sizes:
        y, s = predictions(2 * n, seed=1)
        y_fit, s_fit, y_new, s_new = y[:n], s[:n], y[n:], s[n:]
        before = ks_2samp(y_new[s_new == 0], y_new[s_new == 1]).statistic
        fit, pred, out = _frozen_repair(y_fit, s_fit, y_new, s_new)
        ours = ks_2samp(out[s_new == 0], out[s_new == 1]).statistic
        hai = "not installed"
        if last is not None:
            projected = last[1] * (n / last[0]) ** 2
        if max_statistical_parity is not None and projected <= budget:
            h_fit, h_pred, h_out = _holisticai_repair(y_fit, s_fit, y_new, s_new)
            last = (n, h_fit + h_pred)
            h_ks = ks_2samp(h_out[s_new == 0], h_out[s_new == 1]).statistic
            hai = f"{h_fit:.3f} | {h_pred:.3f} | {h_ks:.4f}"
        elif max_statistical_parity is not None:
            hai = f"skipped (projected {projected:.0f} s) | - | -"
        else:
            hai = f"{hai} | - | -"
        print(
            f"| {n:.0e} | {before:.4f} | {fit:.3f} | {pred:.3f} | {ours:.4f} | {hai} |"
        )


def print_reproduction(seeds):
    """Chzhen et al. (2020)'s setting on Communities and Crime: RMSE and KS.

    50/50 random splits; the models see the group (their "aware" setting);
    ThresholdInvariantRegressor (full repair) cross-fits the same model. KS is
    the held-out MCDP(0) between the groups' predictions.
    """
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import GridSearchCV, train_test_split

    from skfair.datasets import load_communities_crime
    from skfair.postprocessing import ThresholdInvariantRegressor

    bunch = load_communities_crime()
    X = bunch.data.select_dtypes("number").drop(columns=["fold"], errors="ignore")
    X = X.assign(black=(bunch.sensitive["black"] == ">0.06").to_numpy(float))
    y = bunch.target.to_numpy()
    models = {
        "ridge (RidgeCV)": RidgeCV(alphas=np.logspace(-3, 3, 13)),
        "kernel ridge (RBF, 3-fold grid)": GridSearchCV(
            KernelRidge(kernel="rbf"),
            {"alpha": [1e-2, 1e-1, 1.0], "gamma": [1e-3, 1e-2, 1e-1]},
            cv=3,
        ),
        "random forest (200 trees)": RandomForestRegressor(
            200, min_samples_leaf=2, n_jobs=2, random_state=0
        ),
    }
    rows = []
    for seed in range(seeds):
        X_fit, X_new, y_fit, y_new = train_test_split(
            X, y, test_size=0.5, random_state=seed
        )
        groups = X_new["black"].to_numpy()
        for name, model in models.items():
            base = model.fit(X_fit, y_fit).predict(X_new)
            repair = ThresholdInvariantRegressor(
                model, sensitive="black", random_state=seed
            )
            fair = repair.fit(X_fit, y_fit).predict(X_new)
            for kind, pred in (("unconstrained", base), ("repaired", fair)):
                rows.append(
                    {
                        "model": name,
                        "kind": kind,
                        "RMSE": float(np.sqrt(np.mean((pred - y_new) ** 2))),
                        "KS": mcdp(None, pred, sensitive_features=groups),
                    }
                )
    table = pd.DataFrame(rows).groupby(["model", "kind"], sort=False)
    print(f"\n## Communities and Crime, 50/50 splits, {seeds} seeds (mean ± sd)")
    print("| model | predictions | RMSE | KS |")
    print("|---|---|---|---|")
    for (name, kind), part in table:
        print(
            f"| {name} | {kind} | {part.RMSE.mean():.4f} ± {part.RMSE.std():.4f}"
            f" | {part.KS.mean():.3f} ± {part.KS.std():.3f} |"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-metrics", action="store_true")
    parser.add_argument("--repair", action="store_true")
    parser.add_argument(
        "--repair-sizes", type=float, nargs="+", default=[1e3, 1e4, 1e5, 1e6]
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=60.0,
        help="largest projected holisticai time to run (s)",
    )
    parser.add_argument(
        "--reproduce",
        type=int,
        default=0,
        metavar="SEEDS",
        help="Chzhen et al.'s setting on Communities and Crime",
    )
    parser.add_argument(
        "--bundled",
        type=int,
        default=0,
        metavar="SEEDS",
        help="the user guide's table on COMPAS, Adult and German credit",
    )
    args = parser.parse_args()
    if not args.no_metrics:
        print_metrics([int(n) for n in args.sizes], args.repeat)
    if args.repair:
        print_repair([int(n) for n in args.repair_sizes], args.budget)
    if args.reproduce:
        print_reproduction(args.reproduce)
    if args.bundled:
        from bench_regression_bundled import print_bundled

        print_bundled(args.bundled)


if __name__ == "__main__":
    main()
