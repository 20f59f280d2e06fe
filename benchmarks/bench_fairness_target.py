"""Penalised training aimed at a fairness level: defaults and ``fairness_target``.

On three bundled problems, the held-out MCDP(0) and accuracy (R² for the
regressor) of :class:`~skfair.inprocessing.FairMLPClassifier` and
:class:`~skfair.inprocessing.FairMLPRegressor` trained

* without penalty (``penalty=None``);
* at ``fairness_weight=0.2``, the classifier's default before
  ``fairness_weight="auto"``;
* at today's default (``"auto"``: 0.2 for two classes, 0.8 for more; the
  regressor's 0.5);
* with ``fairness_target`` at 50 % and 25 % of the unpenalised model's
  held-out MCDP(0), the weight found on the estimator's own validation split
  (``validation_fraction=0.2``, ``max_fairness_search=8``).

The problems:

* ``compas3``: COMPAS's three-level ``score_text`` (Low/Medium/High) from
  age, priors and juvenile counts, charge degree and sex; African-American
  and Caucasian defendants, sensitive ``race`` (not a model input); the
  per-class MCDP(0) of the predicted probabilities, worst class;
* ``adult``: Adult income (binary), 10,000 rows drawn at random, one-hot
  features, sensitive ``sex``;
* ``crime``: Communities & Crime ``ViolentCrimesPerPop`` (regression), the
  numeric features, sensitive ``black`` (share of Black residents above
  0.06); MCDP(0) of the predictions (the groups' KS statistic). The
  regressor runs 600 steps (``lr_step_size=400``) instead of its default
  2,000 to keep the search short.

Each problem: a 70/30 split (stratified for the classifiers), counts
standardised on the training part, the estimators' defaults otherwise,
``random_state`` = the seed. Every number is on the 30 % held out, never
seen by the search.

Run: ``nice -n 10 python benchmarks/bench_fairness_target.py [--seeds 1]
[--problems compas3 adult crime] [--weights 0.4 0.6 ...] [--csv runs.csv]``
(``--weights``: more rows at fixed weights); ``--from-csv a.csv
b.csv`` prints the table of saved runs (e.g. of problems run in parallel).
The table gives means over the seeds.
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from skfair.datasets import load_adult, load_communities_crime, load_compas
from skfair.inprocessing import (
    FairMLPClassifier,
    FairMLPRegressor,
    FairnessTargetWarning,
)
from skfair.metrics import mcdp

REGRESSOR_STEPS = {"max_iter": 600, "lr_step_size": 400}
TARGET_SHARES = (0.5, 0.25)


def _standardise(X_tr, X_te, columns):
    mean, std = X_tr[columns].mean(), X_tr[columns].std(ddof=0).replace(0, 1)
    scale = {c: (lambda part, c=c: (part[c] - mean[c]) / std[c]) for c in columns}
    return X_tr.assign(**scale), X_te.assign(**scale)


def compas3(seed):
    raw = load_compas(preprocessing="raw").data
    raw = raw[raw["race"].isin(["African-American", "Caucasian"])]
    counts = ["age", "priors_count", "juv_fel_count", "juv_misd_count"]
    counts.append("juv_other_count")
    X = raw[counts].astype(float)
    X["felony"] = (raw["c_charge_degree"].astype(str) == "F").astype(float)
    X["male"] = (raw["sex"].astype(str) == "Male").astype(float)
    X["race"] = raw["race"].astype(str).to_numpy()
    y = raw["score_text"].astype(str).to_numpy()
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    return (*_standardise(X_tr, X_te, counts), y_tr, y_te, "race")


def adult(seed, n_rows=10_000):
    bunch = load_adult()
    X, y = bunch.data.drop(columns="fnlwgt"), pd.Series(bunch.target)
    keep = X.notna().all(axis=1).to_numpy()
    X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    rows = np.random.default_rng(seed).choice(len(X), n_rows, replace=False)
    X, y = X.iloc[rows].reset_index(drop=True), y.iloc[rows].to_numpy()
    sex = X.pop("sex").astype(str).to_numpy()
    numeric = X.select_dtypes("number").columns.tolist()
    X = pd.get_dummies(X, dtype=np.float64)
    X["sex"] = sex
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    return (*_standardise(X_tr, X_te, numeric), y_tr, y_te, "sex")


def crime(seed):
    bunch = load_communities_crime()
    X = bunch.data.select_dtypes("number").drop(columns=["fold"], errors="ignore")
    numeric = X.columns.tolist()
    X = X.assign(black=bunch.sensitive["black"].astype(str).to_numpy())
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, bunch.target.to_numpy(), test_size=0.3, random_state=seed
    )
    return (*_standardise(X_tr, X_te, numeric), y_tr, y_te, "black")


PROBLEMS = {"compas3": compas3, "adult": adult, "crime": crime}


def _model(problem, seed, **params):
    if problem == "crime":
        return FairMLPRegressor(
            sensitive="black", random_state=seed, **REGRESSOR_STEPS, **params
        )
    sensitive = "race" if problem == "compas3" else "sex"
    return FairMLPClassifier(sensitive=sensitive, random_state=seed, **params)


def _evaluate(model, X_te, y_te, sensitive):
    groups = X_te[sensitive].to_numpy()
    if isinstance(model, FairMLPRegressor):
        pred = model.predict(X_te)
        return mcdp(None, pred, sensitive_features=groups), r2_score(y_te, pred)
    proba = model.predict_proba(X_te)
    proba = proba[:, 1] if proba.shape[1] == 2 else proba
    fairness = mcdp(None, proba, sensitive_features=groups)
    return fairness, float(np.mean(model.predict(X_te) == y_te))


def run(problem, seed, weights=()):
    X_tr, X_te, y_tr, y_te, sensitive = PROBLEMS[problem](seed)
    rows = []

    def fit(label, **params):
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", FairnessTargetWarning)
            model = _model(problem, seed, **params).fit(X_tr, y_tr)
        seconds = time.perf_counter() - start
        fairness, performance = _evaluate(model, X_te, y_te, sensitive)
        search = getattr(model, "fairness_search_", {"weight": [None]})
        rows.append(
            {
                "problem": problem,
                "seed": seed,
                "model": label,
                "target": params.get("fairness_target"),
                "weight": model.fairness_weight_ if model.penalty else 0.0,
                "validation": getattr(model, "fairness_achieved_", np.nan),
                "held-out MCDP(0)": fairness,
                "performance": performance,
                "fits": len(search["weight"]),
                "reached": not any(
                    issubclass(w.category, FairnessTargetWarning) for w in caught
                ),
                "seconds": seconds,
            }
        )
        return fairness

    unpenalised = fit("no penalty", penalty=None)
    fit("weight 0.2", fairness_weight=0.2)
    fit("default")
    for weight in weights:
        fit(f"weight {weight:g}", fairness_weight=weight)
    for share in TARGET_SHARES:
        target = round(share * unpenalised, 3)
        fit(f"target {share:.0%} of unpenalised", fairness_target=target)
    return rows


def table(frame):
    lines = [
        "| problem | model | target | weight | validation | held-out MCDP(0) "
        "| Δ vs none | accuracy / R² | fits | met | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    by = frame.groupby(["problem", "model"], sort=False)
    means = by.mean(numeric_only=True)
    met = by["reached"].agg(["sum", "size"])
    for (problem, model), row in means.iterrows():
        base = means.loc[(problem, "no penalty"), "held-out MCDP(0)"]
        change = row["held-out MCDP(0)"] / base - 1.0
        target = "" if np.isnan(row["target"]) else f"{row['target']:.3f}"
        valid = "" if np.isnan(row["validation"]) else f"{row['validation']:.3f}"
        count = met.loc[(problem, model)]
        reached = "" if not target else f"{count['sum']}/{count['size']}"
        lines.append(
            f"| {problem} | {model} | {target} | {row['weight']:.3g} | {valid} "
            f"| {row['held-out MCDP(0)']:.3f} | {change:+.0%} "
            f"| {row['performance']:.3f} | {row['fits']:.1f} "
            f"| {reached} "
            f"| {row['seconds']:.0f} |"
        )
    return "\n".join(lines)


def target_runs(frame):
    """Each run with a target: its validation and held-out MCDP(0)."""
    lines = [
        "| problem | seed | target | weight | validation | held-out | held-out - target |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, row in frame[frame["target"].notna()].iterrows():
        lines.append(
            f"| {row['problem']} | {row['seed']} | {row['target']:.3f} "
            f"| {row['weight']:.3g} | {row['validation']:.3f} "
            f"| {row['held-out MCDP(0)']:.3f} "
            f"| {row['held-out MCDP(0)'] - row['target']:+.3f} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    parser.add_argument(
        "--weights", nargs="*", type=float, default=(), help="more fixed weights"
    )
    parser.add_argument("--csv", default=None, help="write the runs to this file")
    parser.add_argument(
        "--from-csv", nargs="+", default=None, help="print the table of saved runs"
    )
    args = parser.parse_args()
    if args.from_csv:
        frame = pd.concat([pd.read_csv(path) for path in args.from_csv])
        print(table(frame), target_runs(frame), sep="\n\n")
        return
    print(f"load average before: {os.getloadavg()}")
    rows = []
    for problem in args.problems:
        for seed in range(args.seeds):
            rows.extend(run(problem, seed, args.weights))
            print(f"done: {problem} seed {seed}", flush=True)
    frame = pd.DataFrame(rows)
    if args.csv:
        frame.to_csv(args.csv, index=False)
    unreached = frame[~frame["reached"]]
    print(table(frame), target_runs(frame), sep="\n\n")
    if len(unreached):
        print(f"target not reached on validation: {len(unreached)} run(s)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
