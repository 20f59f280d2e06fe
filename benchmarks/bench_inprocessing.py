"""Reproduce Table 1 and Figures 3-4 of the MCDP paper (Jin et al., ICML 2024)
with ``skfair.inprocessing``, and time it.

Protocol (the paper's Appendix D and its published code, mitao-cat/icml24_mcdp):

* Adult (sensitive attribute sex) or Bank (age > 25), rows with missing
  values dropped, ``fnlwgt`` dropped (Adult), the sensitive column kept out of
  the model's inputs, categorical columns one-hot encoded, numeric columns
  standardised on the training split;
* per seed: stratified split 40 % train / 30 % validation / 30 % test
  (``train_test_split(test_size=0.6)`` then halves, ``random_state=seed``);
* MLP with one hidden layer of 256 ReLU units, Adam, mini-batches of 1024,
  temperature 10; the step size is 3e-3, not the paper's 1e-3 (see
  ``LEARNING_RATE``), and 300 steps with StepLR 100 / 0.1, not the paper's
  150 / 50 (see ``STEPS``), for every method alike;
* the seven rows: ERM, AdvDebias (``AdversarialDebiasingClassifier``,
  ``projection=False``: plain adversarial training, as the paper's code has no
  projection), DiffDP, FairMixup, DRAlign, DiffABCC and DiffMCDP
  (``FairMLPClassifier``), each with a grid of five weights of its own (see
  ``GRID``), plus Zhang et al.'s projected update as an eighth row;
* per seed and method, the model with the lowest *validation* MCDP(0) among
  those whose *validation* AP is >= 95 % of ERM's (ERM itself when none is);
  the test split is used for nothing but the reported numbers;
* test AP, ΔDP (positive-rate gap at threshold 0.5), ABCC and MCDP(0),
  mean ± std over the seeds, ×100, beside the paper's numbers.

``--figure-csv PATH`` writes what the paper's Figures 3 and 4 plot (per method
and weight: test AP and MCDP(0), mean and std over the seeds; per method, the
selected models' test MCDP(ε) on a grid of ε, mean and std over the seeds);
``examples/plot_mcdp_paper_figures.py`` draws it (the copy committed under
``examples/`` came from the run reported in the docs).

It also times one fit of ``FairMLPClassifier`` (ERM and DiffMCDP) against
scikit-learn's ``MLPClassifier`` with the same architecture and the same
number of Adam steps (``max_iter`` epochs of ``batch_size`` rows, no early
stopping) and prints the ratio.

Run: ``python benchmarks/bench_inprocessing.py [--dataset adult|bank]
[--seeds 5] [--csv runs.csv] [--figure-csv figures.csv] [--no-timing]``.
Figures depend on the machine and its load; the script prints
``os.getloadavg()`` before and after.
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import average_precision_score
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

from skfair.datasets import load_adult, load_bank
from skfair.inprocessing import AdversarialDebiasingClassifier, FairMLPClassifier
from skfair.metrics import abcc, delta_dp, mcdp, mcdp_curve
from skfair.utils import SmallGroupWarning

PAPER = {  # Table 1, ×100: AP, ΔDP, ABCC, MCDP(0) (mean, std)
    "adult": {
        "ERM": [(76.77, 0.54), (19.67, 0.94), (18.89, 0.29), (36.62, 0.53)],
        "AdvDebias": [(76.52, 0.62), (12.73, 1.81), (12.95, 1.35), (29.28, 2.26)],
        "DiffDP": [(75.02, 0.28), (7.77, 1.20), (8.97, 0.73), (22.37, 1.11)],
        "FairMixup": [(74.52, 0.40), (3.87, 1.20), (7.34, 0.62), (24.87, 1.53)],
        "DRAlign": [(74.98, 0.28), (7.64, 1.22), (8.86, 0.75), (22.08, 1.19)],
        "DiffABCC": [(74.19, 0.24), (5.90, 1.28), (7.83, 0.74), (21.18, 1.23)],
        "DiffMCDP": [(73.90, 0.29), (6.63, 0.85), (6.09, 0.59), (11.53, 1.12)],
    },
    "bank": {
        "ERM": [(61.02, 1.12), (9.85, 1.28), (9.83, 0.98), (25.36, 1.81)],
        "AdvDebias": [(60.54, 1.02), (1.95, 2.76), (3.95, 0.97), (17.52, 4.12)],
        "DiffDP": [(58.36, 1.67), (1.03, 0.23), (2.13, 0.20), (14.01, 1.34)],
        "FairMixup": [(59.45, 1.94), (1.28, 0.44), (2.95, 0.91), (13.22, 2.91)],
        "DRAlign": [(58.19, 1.54), (1.15, 0.41), (1.98, 0.23), (13.58, 1.26)],
        "DiffABCC": [(58.06, 1.60), (0.99, 0.44), (2.23, 0.19), (14.67, 1.35)],
        "DiffMCDP": [(59.98, 1.80), (2.13, 0.72), (1.83, 0.28), (11.02, 1.00)],
    },
}
# One grid per method, as the paper's Table 3 has. DiffDP, DiffABCC and
# DiffMCDP: five weights 0.02 apart, each centred on the weights where that
# method's validation AP crosses 95 % of ERM's on Adult (interpolated per
# seed on the validation split of a first run with grids 0.03 apart; the test
# split was not used to choose them). AdvDebias, FairMixup and DRAlign: the
# paper's own Adult grids (Table 3 and its run.sh), which bracket the 95 %
# crossing for FairMixup and DRAlign on seed 0's validation split (AdvDebias
# stays above 95 % over the whole grid, as in the paper). Zhang's projected
# update: the trade-off is not monotone in its weight (see the docs), so a
# log grid. Entries: (kind, penalty, weights); kind "adv" is
# AdversarialDebiasingClassifier (penalty = projection), "mlp" FairMLPClassifier.
GRID = {
    "AdvDebias": ("adv", False, [0.2, 0.4, 0.6, 0.8, 1.0]),
    "DiffDP": ("mlp", "dp", [0.38, 0.40, 0.42, 0.44, 0.46]),
    "FairMixup": ("mlp", "mixup", [0.1, 0.2, 0.3, 0.4, 0.5]),
    "DRAlign": ("mlp", "dralign", [0.1, 0.2, 0.3, 0.4, 0.5]),
    "DiffABCC": ("mlp", "abcc", [0.51, 0.53, 0.55, 0.57, 0.59]),
    "DiffMCDP": ("mlp", "mcdp", [0.35, 0.37, 0.39, 0.41, 0.43]),
    "AdvDebias (Zhang)": ("adv", True, [0.01, 0.03, 0.1, 0.3, 1.0]),
}
#: β of DRAlign's alignment term (the reference code: 0.05 on Adult, 0.03 on
#: Bank).
ALIGNMENT = {"adult": 0.05, "bank": 0.03}
#: ε of the paper's Figure 4 (MCDP(ε) of the selected models).
EPSILONS = np.round(np.linspace(0.0, 0.1, 21), 3)
#: Adam's step size. The paper states 1e-3 for a 256-unit MLP and 150 steps;
#: that under-trains it here (ERM test AP 74.5 on seed 0, 2.3 points under the
#: paper's 76.77), while the paper's code runs a 512-256-64 MLP with dropout
#: 0.5 (77.7 on seed 0, 6x slower). 3e-3 brings the paper's 256-unit MLP to
#: the same fit in 150 steps.
LEARNING_RATE = 3e-3
#: Adam steps and the StepLR period (x0.1), the same for every method. The
#: paper's 150 steps / 50 leave the penalised models short of converged: with
#: 300 / 100 ERM's validation AP rises by 0.9 points and DiffMCDP's validation
#: MCDP(0) at 95 % of ERM's AP falls from about 0.088 to 0.076 (5 seeds).
#: Temperatures 20 and 30 were tried too (validation only) and did no better.
STEPS, LR_STEP = 300, 100
#: τ of DiffABCC and DiffMCDP (the paper's code: 10; ``--temperature``).
TEMPERATURE = 10.0
METRICS = ["AP", "ΔDP", "ABCC", "MCDP(0)"]


def load(dataset):
    """Features (one-hot, sensitive column last as strings), target, name."""
    if dataset == "adult":
        frame = load_adult(return_X_y=False)
        X, y = frame.data.copy(), pd.Series(frame.target)
        X = X.drop(columns="fnlwgt")
        sensitive = "sex"
    else:
        frame = load_bank()
        X, y = frame.data.copy(), pd.Series(frame.target)
        X = X.drop(columns="age_years")  # the paper drops raw age too
        sensitive = "age"
    keep = X.notna().all(axis=1).to_numpy()
    X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    groups = X.pop(sensitive).astype(str)
    numeric = X.select_dtypes("number").columns.tolist()
    X = pd.get_dummies(X, dtype=np.float64)
    X[sensitive] = groups
    return X, y.to_numpy(), sensitive, numeric


def split(X, y, seed):
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, test_size=0.6, stratify=y, random_state=seed
    )
    X_te, X_va, y_te, y_va = train_test_split(
        X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=seed
    )
    return X_tr.copy(), X_va.copy(), X_te.copy(), y_tr, y_va, y_te


def standardise(parts, numeric):
    train = parts[0]
    mean, std = train[numeric].mean(), train[numeric].std(ddof=0).replace(0, 1)
    for part in parts:
        part[numeric] = (part[numeric] - mean) / std


def evaluate(y, score, groups):
    return np.array(
        [
            average_precision_score(y, score),
            delta_dp(y, score, sensitive_features=groups, threshold=0.5),
            abcc(y, score, sensitive_features=groups),
            mcdp(y, score, sensitive_features=groups),
        ]
    )


def make_model(kind, penalty, lam, sensitive, seed, temperature, alignment):
    """The estimator of one grid point (kind and penalty as in ``GRID``)."""
    common = {
        "sensitive": sensitive,
        "learning_rate_init": LEARNING_RATE,
        "max_iter": STEPS,
        "lr_step_size": LR_STEP,
        "random_state": seed,
    }
    if kind == "adv":
        return AdversarialDebiasingClassifier(
            adversary_weight=lam, projection=penalty, **common
        )
    return FairMLPClassifier(
        penalty=penalty,
        fairness_weight=lam,
        temperature=temperature,
        alignment_strength=alignment,
        **common,
    )


def run_seed(X, y, sensitive, numeric, seed, grid, temperature, alignment):
    X_tr, X_va, X_te, y_tr, y_va, y_te = split(X, y, seed)
    standardise([X_tr, X_va, X_te], numeric)
    rows = []
    configs = [("ERM", "mlp", None, 0.0)] + [
        (method, kind, penalty, lam)
        for method, (kind, penalty, lams) in grid.items()
        for lam in lams
    ]
    for method, kind, penalty, lam in configs:
        model = make_model(kind, penalty, lam, sensitive, seed, temperature, alignment)
        start = time.perf_counter()
        model.fit(X_tr, y_tr)
        elapsed = time.perf_counter() - start
        val = evaluate(y_va, model.predict_proba(X_va)[:, 1], X_va[sensitive])
        score = model.predict_proba(X_te)[:, 1]
        test = evaluate(y_te, score, X_te[sensitive])
        curve = mcdp_curve(
            y_te, score, sensitive_features=X_te[sensitive], epsilons=EPSILONS
        )
        rows.append(
            {
                "seed": seed,
                "method": method,
                "lambda": lam,
                "fit_s": elapsed,
                **{f"val_{m}": v for m, v in zip(METRICS, val)},
                **{f"test_{m}": v for m, v in zip(METRICS, test)},
                **{f"test_MCDP({e:g})": v for e, v in zip(EPSILONS, curve)},
            }
        )
    return rows


def select(results):
    """Per seed and method: fairest (val MCDP(0)) with val AP >= 95 % of ERM."""
    chosen = []
    for _seed, per_seed in results.groupby("seed"):
        erm = per_seed[per_seed.method == "ERM"].iloc[0]
        chosen.append(erm)
        for method, runs in per_seed[per_seed.method != "ERM"].groupby("method"):
            ok = runs[runs["val_AP"] >= 0.95 * erm["val_AP"]]
            pick = ok.loc[ok["val_MCDP(0)"].idxmin()] if len(ok) else erm
            pick = pick.copy()
            pick["method"] = method
            chosen.append(pick)
    return pd.DataFrame(chosen)


def table(chosen, dataset, methods):
    lines = []
    head = f"{'method':<18} {'lambda*':<25}" + "".join(
        f"{m + ' ours':>15} {m + ' paper':>15}" for m in METRICS
    )
    lines.append(head)
    for method in ["ERM", *methods]:
        runs = chosen[chosen.method == method]
        if runs.empty:
            continue
        cells = ""
        for k, m in enumerate(METRICS):
            values = 100 * runs[f"test_{m}"].to_numpy()
            mean, std = values.mean(), values.std()
            paper = PAPER[dataset].get(method)
            paper = (
                f"{paper[k][0]:>8.2f} ±{paper[k][1]:<5.2f}" if paper else f"{'-':>15}"
            )
            cells += f"{mean:>8.2f} ±{std:<5.2f} {paper}"
        lams = ",".join(f"{v:g}" for v in runs["lambda"])
        lines.append(f"{method:<18} {lams:<25}{cells}")
    return "\n".join(lines)


def figure_table(results, chosen):
    """What Figures 3 and 4 plot, tidy: one row per (figure, method, x)."""
    rows = []
    for (method, lam), runs in results.groupby(["method", "lambda"]):
        for metric in ("AP", "MCDP(0)"):
            values = runs[f"test_{metric}"]
            rows.append(
                {
                    "figure": 3,
                    "method": method,
                    "x": lam,
                    "metric": metric,
                    "mean": values.mean(),
                    "std": values.std(ddof=0),
                }
            )
    for method, runs in chosen.groupby("method"):
        for eps in EPSILONS:
            values = runs[f"test_MCDP({eps:g})"]
            rows.append(
                {
                    "figure": 4,
                    "method": method,
                    "x": eps,
                    "metric": "MCDP(ε)",
                    "mean": values.mean(),
                    "std": values.std(ddof=0),
                }
            )
    return pd.DataFrame(rows)


def time_against_sklearn(X, y, sensitive, numeric, repeat=3):
    """Median fit time: FairMLPClassifier (ERM, DiffMCDP) / sklearn's MLP."""
    X_tr, _, _, y_tr, _, _ = split(X, y, 0)
    standardise([X_tr], numeric)
    n_batches = len(X_tr) // 1024
    # sklearn's max_iter counts epochs: choose epochs and batch size so that
    # it takes STEPS Adam steps of 1024 rows (n_batches per epoch).
    epochs = max(1, round(STEPS / n_batches))
    X_num = X_tr.drop(columns=sensitive).to_numpy()
    sk = MLPClassifier(
        hidden_layer_sizes=(256,),
        batch_size=1024,
        max_iter=epochs,
        learning_rate_init=LEARNING_RATE,
        early_stopping=False,
        n_iter_no_change=10**6,
        tol=0.0,
        random_state=0,
        shuffle=True,
    )
    ours = {
        name: FairMLPClassifier(
            sensitive=sensitive,
            penalty=penalty,
            fairness_weight=0.4,
            learning_rate_init=LEARNING_RATE,
            max_iter=STEPS,
            lr_step_size=LR_STEP,
            random_state=0,
        )
        for name, penalty in [
            ("ERM", None),
            ("DiffDP", "dp"),
            ("DiffABCC", "abcc"),
            ("DiffMCDP", "mcdp"),
        ]
    }

    def median(fit):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fit()
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    from threadpoolctl import threadpool_limits

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t_sk_default = median(lambda: sk.fit(X_num, y_tr))
        with threadpool_limits(limits=1, user_api="blas"):
            t_sk = median(lambda: sk.fit(X_num, y_tr))
    steps_sk = epochs * -(-len(X_tr) // 1024)
    print(
        f"\nsklearn MLPClassifier: {epochs} epochs = {steps_sk} Adam steps of "
        f"<=1024 rows: {t_sk:.2f} s on one BLAS thread (as FairMLPClassifier "
        f"runs), {t_sk_default:.2f} s with the default BLAS threads"
    )
    for name, model in ours.items():
        t = median(lambda model=model: model.fit(X_tr, y_tr))
        print(
            f"FairMLPClassifier {name:<8} ({STEPS} steps of 1024 rows): {t:.2f} s, "
            f"{t / t_sk:.2f}x sklearn"
        )


def boosting_frontier(X, y, sensitive, numeric, seed=0, n_estimators=200):
    """AP-MCDP(0) frontier: FairLGBMClassifier vs LightGBM vs repair."""
    from lightgbm import LGBMClassifier
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    from skfair.inprocessing import FairLGBMClassifier
    from skfair.postprocessing import ThresholdInvariantClassifier

    X_tr, X_va, X_te, y_tr, _y_va, y_te = split(X, y, seed)
    standardise([X_tr, X_va, X_te], numeric)
    common = {"n_estimators": n_estimators, "learning_rate": 0.1, "num_leaves": 31}

    def lgbm():
        drop = ColumnTransformer([("s", "drop", [sensitive])], remainder="passthrough")
        return make_pipeline(
            drop, LGBMClassifier(**common, n_jobs=1, verbose=-1, random_state=seed)
        )

    configs = [("LightGBM", lgbm())]
    for lam in BOOST_WEIGHTS:
        for penalty in ("mcdp", "dp"):
            configs.append(
                (
                    f"FairLGBM {penalty} λ={lam:g}",
                    FairLGBMClassifier(
                        sensitive=sensitive,
                        penalty=penalty,
                        fairness_weight=lam,
                        random_state=seed,
                        **common,
                    ),
                )
            )
    for repair in (0.25, 0.5, 0.75, 1.0):
        configs.append(
            (
                f"LightGBM + TIC repair={repair:g}",
                ThresholdInvariantClassifier(
                    lgbm(), sensitive=sensitive, repair=repair, random_state=seed
                ),
            )
        )
    print(f"\nBoosting frontier on Adult, seed {seed} split (test set, ×100):")
    print(f"{'model':<34}{'AP':>7}{'ΔDP':>7}{'ABCC':>7}{'MCDP(0)':>9}{'fit s':>7}")
    for name, model in configs:
        start = time.perf_counter()
        model.fit(X_tr, y_tr)
        elapsed = time.perf_counter() - start
        test = 100 * evaluate(y_te, model.predict_proba(X_te)[:, 1], X_te[sensitive])
        print(
            f"{name:<34}"
            + "".join(f"{v:>7.2f}" for v in test[:3])
            + f"{test[3]:>9.2f}{elapsed:>7.1f}",
            flush=True,
        )


BOOST_WEIGHTS = [0.1, 0.2, 0.3, 0.5, 1.0]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["adult", "bank"], default="adult")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--temperature", type=float, default=TEMPERATURE)
    parser.add_argument("--methods", nargs="*", default=list(GRID), choices=list(GRID))
    parser.add_argument("--csv", default=None, help="save every run to this CSV")
    parser.add_argument(
        "--figure-csv", default=None, help="save Figures 3 and 4's data to this CSV"
    )
    parser.add_argument(
        "--boosting",
        action="store_true",
        help="only the boosting frontier (Adult, seed 0)",
    )
    return parser.parse_args()


def report(results, chosen, args, total):
    grid = {m: GRID[m] for m in args.methods}
    print(
        f"\nTable 1 ({args.dataset}), test set, ×100, mean ± std over "
        f"{args.seeds} seeds; lambda* = the weight selected on validation per seed"
    )
    print(table(chosen, args.dataset, grid))
    erm_ap = chosen[chosen.method == "ERM"]["test_AP"].mean()
    for method in grid:
        ap = chosen[chosen.method == method]["test_AP"].mean()
        print(f"{method}: test AP / ERM test AP = {ap / erm_ap:.3f}")
    print(
        f"\n{len(results)} fits in {total:.0f} s wall, "
        f"{time.process_time():.0f} s process CPU "
        f"({results['fit_s'].mean():.2f} s per fit on average; per method: "
        + ", ".join(
            f"{m} {t:.2f} s"
            for m, t in results.groupby("method")["fit_s"].mean().items()
        )
        + ")"
    )


def main():
    args = parse_args()
    if args.boosting:
        print(f"load average before: {os.getloadavg()}")
        boosting_frontier(*load("adult"))
        print(f"load average after: {os.getloadavg()}")
        return
    # Bank's "<=25" group has 20-35 samples in the validation and test splits:
    # every metric call would warn. The report states the group sizes.
    warnings.simplefilter("ignore", SmallGroupWarning)
    print(f"load average before: {os.getloadavg()}; temperature {args.temperature:g}")
    X, y, sensitive, numeric = load(args.dataset)
    print(
        f"{args.dataset}: {X.shape[0]} rows, {X.shape[1] - 1} model features, "
        f"groups {X[sensitive].value_counts().to_dict()}"
    )
    grid = {m: GRID[m] for m in args.methods}
    start = time.perf_counter()
    rows = []
    for seed in range(args.seeds):
        rows += run_seed(
            X,
            y,
            sensitive,
            numeric,
            seed,
            grid,
            args.temperature,
            ALIGNMENT[args.dataset],
        )
        print(
            f"seed {seed} done at {time.perf_counter() - start:.0f} s "
            f"(process CPU {time.process_time():.0f} s)",
            flush=True,
        )
        if args.csv:  # after every seed, so that a partial run can be read
            pd.DataFrame(rows).to_csv(args.csv, index=False)
    results = pd.DataFrame(rows)
    total = time.perf_counter() - start
    chosen = select(results)
    if args.figure_csv:
        figure_table(results, chosen).to_csv(args.figure_csv, index=False)
    report(results, chosen, args, total)
    print(f"load average after: {os.getloadavg()}")
    if not args.no_timing:
        time_against_sklearn(X, y, sensitive, numeric)


if __name__ == "__main__":
    main()
