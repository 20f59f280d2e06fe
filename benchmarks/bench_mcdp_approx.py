"""Figure 5 of the MCDP paper: the approximate MCDP(ε) against the exact one.

The paper runs its exact algorithm and its approximation (Algorithm 2,
``skfair.metrics.mcdp(method="approx", sampling_frequency=K)``) on the test
scores of the Figure 3 models and plots, over the sampling frequency K and
ε, the relative error ``(V_a - V_e) / V_e`` and the efficiency improvement
``T_e / T_a``.

Here: the seven Table 1 methods of ``bench_inprocessing.py``, each at the
middle weight of its grid, trained on Adult (sex) with seed ``--seed``'s
40 / 30 / 30 split; on each model's test scores, for every ε and K, the
relative error of ``method="approx"`` against ``method="exact"`` (mean and
max over the models) and the median time ratio exact / approx.

One difference matters for reading the time column: the paper's exact
algorithm is quadratic in the number of scores (its Table 4: 3.5 s per call on
Adult), skfair's exact MCDP(ε) is O(N log N) (one sort and a sweep), so the
approximation buys far less time here than the paper's "over 1000 times".

Run: ``python benchmarks/bench_mcdp_approx.py [--seed 0] [--repeat 5]
[--csv figure5.csv]``. Times depend on the machine and its load.
"""

import argparse
import os
import time
import warnings

import pandas as pd
from bench_inprocessing import (
    ALIGNMENT,
    GRID,
    TEMPERATURE,
    load,
    make_model,
    split,
    standardise,
)
from bench_metrics import median_time  # the same timer as the metric benchmarks

from skfair.metrics import mcdp

KS = [1, 2, 4, 8, 16, 32, 64, 128]
EPSILONS = [0.01, 0.02, 0.05, 0.1]
TABLE1 = ["AdvDebias", "DiffDP", "FairMixup", "DRAlign", "DiffABCC", "DiffMCDP"]


def test_scores(seed):
    """Test scores and groups of ERM and the six penalised methods."""
    X, y, sensitive, numeric = load("adult")
    X_tr, _, X_te, y_tr, _, _ = split(X, y, seed)
    standardise([X_tr, X_te], numeric)
    configs = [("ERM", "mlp", None, 0.0)] + [
        (m, GRID[m][0], GRID[m][1], GRID[m][2][2]) for m in TABLE1
    ]
    scores = {}
    for name, kind, penalty, lam in configs:
        model = make_model(
            kind, penalty, lam, sensitive, seed, TEMPERATURE, ALIGNMENT["adult"]
        )
        scores[name] = model.fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
    return scores, X_te[sensitive].to_numpy()


def measure(scores, groups, repeat):
    rows = []
    for name, score in scores.items():
        for eps in EPSILONS:
            exact = mcdp(None, score, sensitive_features=groups, epsilon=eps)
            t_exact = median_time(
                lambda s=score, e=eps: mcdp(
                    None, s, sensitive_features=groups, epsilon=e
                ),
                repeat,
            )
            for k in KS:
                kwargs = {"epsilon": eps, "method": "approx", "sampling_frequency": k}
                approx = mcdp(None, score, sensitive_features=groups, **kwargs)
                t_approx = median_time(
                    lambda s=score, kw=kwargs: mcdp(
                        None, s, sensitive_features=groups, **kw
                    ),
                    repeat,
                )
                rows.append(
                    {
                        "model": name,
                        "epsilon": eps,
                        "K": k,
                        "exact": exact,
                        "approx": approx,
                        "relative_error": (approx - exact) / exact,
                        "speedup": t_exact / t_approx,
                    }
                )
    return pd.DataFrame(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--csv", default=None)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scores, groups = test_scores(args.seed)
    print(f"7 models trained in {time.perf_counter() - start:.0f} s")
    results = measure(scores, groups, args.repeat)
    if args.csv:
        results.to_csv(args.csv, index=False)
    summary = results.groupby(["epsilon", "K"]).agg(
        mean_rel_error=("relative_error", "mean"),
        max_rel_error=("relative_error", "max"),
        min_rel_error=("relative_error", "min"),
        median_speedup=("speedup", "median"),
    )
    print(
        f"\nFigure 5 (Adult, test split of seed {args.seed}, {len(scores)} models, "
        f"{len(groups)} scores): relative error (V_a - V_e) / V_e of the "
        "approximation, and exact time / approx time"
    )
    with pd.option_context("display.float_format", "{:.4g}".format):
        print(summary.to_string())
    assert (results["relative_error"] >= -1e-12).all(), "approx under-estimated"
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
