"""Are the regression and multiclass audits' statements true? Measured, not assumed.

Two parts, on real predictions from the bundled data:

* ``--null R``: the groups are drawn at random (3 groups, independent of
  everything), so every population gap is 0. For ``R`` draws it runs
  ``skfair.audit`` and counts, per metric, how often its test rejects at
  5 % (should be about 0.05 or less: a valid p-value) and how often its
  interval contains 0, the true value (about 0.95 or more); and how often
  the plain-language summary says "the groups differ beyond chance" (its
  claim over all the tests together, with Holm's correction), beside how
  often some test alone is below 5 % (the claim without the correction).
  Regression: ridge predictions of Communities and Crime's violent-crime
  rate (held-out half). Multiclass: logistic-regression probabilities of
  COMPAS's three-level ``score_text`` (held-out half).
* ``--messy``: the same predictions audited on messy real groupings: state
  × race on Communities and Crime (many one-community groups) and race × sex
  × age category on COMPAS. It prints the groups, how many are of one person
  or under 30, the seconds, whether the headline's extremes are groups of
  at least 30, and the largest difference between the report's per-group
  numbers and a pandas groupby / crosstab of the same data.

Run: ``python benchmarks/bench_task_audits.py [--null 100] [--messy]``.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.model_selection import train_test_split

import skfair
from skfair.datasets import load_communities_crime, load_compas

COMPAS_FEATURES = [
    "age",
    "priors_count",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
]


def regression_data():
    bunch = load_communities_crime()
    X = bunch.data.select_dtypes("number").drop(columns=["fold"], errors="ignore")
    split = train_test_split(X, bunch.target.to_numpy(), test_size=0.5, random_state=0)
    X_fit, X_new, y_fit, y_new = split
    pred = RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X_fit, y_fit).predict(X_new)
    frame = pd.DataFrame(
        {  # text labels: a categorical keeps unused states
            "state": bunch.data.loc[X_new.index, "state"].astype(str).to_numpy(),
            "black": bunch.sensitive.loc[X_new.index, "black"].astype(str).to_numpy(),
        }
    )
    return y_new, pred, frame.reset_index(drop=True)


def multiclass_data():
    frame = load_compas(preprocessing="raw").frame
    frame = frame.dropna(subset=["score_text"])
    X = (
        frame[COMPAS_FEATURES]
        .astype(float)
        .assign(
            felony=(frame["c_charge_degree"] == "F").astype(float),
            male=(frame["sex"] == "Male").astype(float),
        )
    )
    y = frame["score_text"].astype(str).to_numpy()
    split = train_test_split(X, y, frame, test_size=0.5, random_state=0)
    X_fit, X_new, y_fit, y_new, _, f_new = split
    model = LogisticRegression(max_iter=1000).fit(X_fit, y_fit)
    proba = pd.DataFrame(model.predict_proba(X_new), columns=model.classes_)
    groups = f_new[["race", "sex", "age_cat"]].astype(str).reset_index(drop=True)
    return y_new, proba, groups


def _audit(y, pred, groups, task, seed, resamples):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skfair.audit(
            y,
            pred,
            sensitive_features=groups,
            task=task,
            n_resamples=resamples,
            n_permutations=resamples,
            random_state=seed,
        ).to_dict()


def null_rates(task, y, pred, reps, resamples):
    rng = np.random.default_rng(0)
    rejected, covered, claims, alone = {}, {}, 0, 0
    for rep in range(reps):
        groups = rng.integers(0, 3, len(y))
        report = _audit(y, pred, groups, task, rep, resamples)
        for row in report["metrics"]:
            key = row["key"]
            if row.get("pvalue") is not None:
                rejected.setdefault(key, []).append(row["pvalue"] < 0.05)
            if row.get("low") is not None:
                covered.setdefault(key, []).append(row["low"] <= 0.0)
        claims += "differ beyond chance by" in " ".join(report["plain_summary"])
        # what the summary would claim without Holm's correction: any test
        # that can decide below 5 % on its own
        alone += any(
            row.get("pvalue") is not None
            and row["pvalue"] < 0.05
            and not row.get("untestable_reason")
            for row in report["metrics"]
        )
    print(f"\n## {task}: random groups, {reps} audits, {resamples} resamples")
    print("| metric | tests | rejected at 5 % | intervals | contain 0 |")
    print("|---|---|---|---|---|")
    for key in sorted(set(rejected) | set(covered)):
        r, c = rejected.get(key, []), covered.get(key, [])
        print(
            f"| {key} | {len(r)} | {np.mean(r) if r else float('nan'):.3f} | "
            f"{len(c)} | {np.mean(c) if c else float('nan'):.3f} |"
        )
    print(f"summary says the groups differ: {claims} of {reps}")
    print(f"some test alone below 5 % (no correction): {alone} of {reps}")


def messy(task, y, pred, groups, resamples, check):
    start = time.perf_counter()
    report = _audit(y, pred, groups, task, 0, resamples)
    seconds = time.perf_counter() - start
    sizes = groups.astype(str).agg(" & ".join, axis=1).value_counts()
    rows = pd.DataFrame(report["groups"])
    print(
        f"\n## {task} on {' × '.join(groups.columns)}: {sizes.size} groups, "
        f"{int((sizes == 1).sum())} of one, {int((sizes < 30).sum())} under 30; "
        f"{seconds:.1f} s"
    )
    print("largest |report - pandas|:", check(rows, y, pred, groups))
    small = set(sizes.index[sizes < 30])
    text = report["headline"]["text"]
    named = [g for g in small if f" {g} (n =" in " ".join(text)]
    print(f"headline extremes that are groups under 30: {len(named)}")
    mcdp = [t for t in text if "MCDP(0) =" in t]
    pair = report["headline"]["distribution"]
    if pair.get("small_group"):
        # the worst MCDP(0) pair has a group under 30: the headline must say
        # so and give the largest gap between groups of 30 or more
        print("MCDP(0) pair with a group under 30:", pair["small_group"])
        print("  said:", " / ".join(mcdp))


def check_regression(rows, y, pred, groups):
    label = groups.astype(str).agg(" & ".join, axis=1)
    truth = pd.Series(pred).groupby(label.to_numpy()).mean()
    ours = rows[rows["grouping"] == " & ".join(groups.columns)].set_index("group")
    common = truth.index.intersection(ours.index)
    return float(np.max(np.abs(ours.loc[common, "mean_prediction"] - truth[common])))


def check_multiclass(rows, y, proba, groups):
    label = groups.astype(str).agg(" & ".join, axis=1).to_numpy()
    predicted = proba.columns.to_numpy()[np.argmax(proba.to_numpy(), axis=1)]
    truth = pd.crosstab(label, predicted, normalize="index").stack()
    rows = rows[rows["grouping"] == " & ".join(groups.columns)]
    ours = rows.set_index(["group", "class"])["selection_rate"]
    common = truth.index.intersection(ours.index)
    return float(np.max(np.abs(ours.loc[common] - truth.loc[common])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null", type=int, default=0, metavar="R")
    parser.add_argument("--messy", action="store_true")
    parser.add_argument("--resamples", type=int, default=199)
    args = parser.parse_args()
    reg, mc = regression_data(), multiclass_data()
    if args.null:
        null_rates("regression", reg[0], reg[1], args.null, args.resamples)
        null_rates("multiclass", mc[0], mc[1], args.null, args.resamples)
    if args.messy:
        messy("regression", *reg, args.resamples, check_regression)
        messy("multiclass", *mc, args.resamples, check_multiclass)


if __name__ == "__main__":
    main()
