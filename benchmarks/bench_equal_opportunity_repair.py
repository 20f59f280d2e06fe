"""Equal opportunity and predictive equality at every threshold, on fresh data.

For Adult (sex) and COMPAS (race, African-American vs Caucasian; the target
is two-year recidivism, so its "positives" are the people who reoffended), a
base model (one-hot encoding and scaling, then a logistic regression, or
LightGBM with ``--model lgbm``) is fitted on a stratified half of the rows,
and :class:`~skfair.postprocessing.ThresholdInvariantClassifier` with every
``constraint`` on the same half (cross-fitted, ``cv=5``). Every figure is
measured on the other half, which neither saw:

* ``KS pos`` / ``KS neg``: the Kolmogorov-Smirnov distance between the
  groups' scores among the positives (negatives):
  :func:`skfair.metrics.mcdp` with ``epsilon=0`` and ``given="positive"``
  (``"negative"``), checked equal to ``mcdp`` on that subset;
* ``TPR gap`` / ``FPR gap``: the largest gap between the groups'
  true-positive (false-positive) rates over every threshold, by brute force
  over all the scores (it is the KS distance; the script checks that they
  agree);
* ``DP``: MCDP(0) over everyone (demographic parity at every threshold);
* ``acc``: accuracy at the threshold 0.5, and its ratio to the base model's;
* ``floor pos`` / ``floor neg``: the KS distance that sampling alone gives
  at these group sizes (the mean over 200 permutations of the group labels
  within the subset): a repaired KS near it is as small as the held-out rows
  can show.

* ``null KS pos`` (equal opportunity's row): the same repair, fitted and
  measured with the sensitive column permuted (groups with no true gap):
  the held-out KS that learning the maps on one half's positives and
  measuring on the other's leaves by itself, about ``floor pos`` times
  the square root of 2.

Mean ± standard deviation over ``--seeds`` splits (3 by default). Pooling
the held-out scores of k folds instead would not be fresh data: every
fold's maps are learnt on rows that the other folds measure, which cancels
part of the sampling error and gives KS values below the floor.

Run: ``python benchmarks/bench_equal_opportunity_repair.py [--seeds 3]
[--model logistic|lgbm] [--datasets ...]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair.metrics import mcdp
from skfair.postprocessing import ThresholdInvariantClassifier

CONSTRAINTS = ("demographic_parity", "equal_opportunity", "predictive_equality")
N_PERMUTATIONS = 200


# ---------------------------------------------------------------- data
def adult_sex():
    from skfair.datasets import load_adult

    adult = load_adult()
    return adult.data.drop(columns="fnlwgt"), adult.target.to_numpy(), "sex"


def compas_race():
    from skfair.datasets import load_compas

    compas = load_compas(preprocessing="hfm")
    keep = compas.data["race"].isin(["African-American", "Caucasian"]).to_numpy()
    data = compas.data[keep].drop(columns="c_charge_desc").reset_index(drop=True)
    return data, compas.target.to_numpy()[keep], "race"


DATASETS = {"Adult (sex)": adult_sex, "COMPAS (race)": compas_race}


def base_model(data, kind, seed):
    """One-hot the nominal columns, scale the numeric ones, then the classifier."""
    nominal = [c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])]
    numeric = [c for c in data.columns if c not in nominal]
    encode = ColumnTransformer(
        [
            ("nominal", OneHotEncoder(handle_unknown="ignore"), nominal),
            ("numeric", StandardScaler(), numeric),
        ]
    )
    if kind == "lgbm":
        from lightgbm import LGBMClassifier

        model = LGBMClassifier(
            n_estimators=200, random_state=seed, n_jobs=1, verbose=-1
        )
    else:
        model = LogisticRegression(max_iter=2000)
    return make_pipeline(encode, model)


# ---------------------------------------------------------------- measures
def ks(scores, groups):
    """MCDP(0): the largest CDF gap between two groups (KS distance)."""
    return mcdp(None, scores, sensitive_features=groups, epsilon=0.0)


def largest_rate_gap(scores, groups):
    """Brute force: max over thresholds t of |P(S >= t | a) - P(S >= t | b)|."""
    labels = np.unique(groups)
    thresholds = np.unique(scores)
    rates = []
    for label in labels:
        own = np.sort(scores[groups == label])
        below = np.searchsorted(own, thresholds, side="left")
        rates.append(1.0 - below / own.size)
    return max(
        float(np.max(np.abs(rates[i] - rates[j])))
        for i in range(len(labels))
        for j in range(i + 1, len(labels))
    )


def noise_floor(scores, groups, rng):
    """Mean KS between the groups with their labels permuted (no true gap)."""
    return float(
        np.mean([ks(scores, rng.permutation(groups)) for _ in range(N_PERMUTATIONS)])
    )


def evaluate(scores, y, groups, rng=None):
    positives = y == 1
    row = {
        "KS pos": mcdp(y, scores, sensitive_features=groups, given="positive"),
        "KS neg": mcdp(y, scores, sensitive_features=groups, given="negative"),
        "TPR gap": largest_rate_gap(scores[positives], groups[positives]),
        "FPR gap": largest_rate_gap(scores[~positives], groups[~positives]),
        "DP": ks(scores, groups),
        "acc": float(np.mean((scores >= 0.5) == positives)),
    }
    for label, rate, rows in (("pos", "TPR", positives), ("neg", "FPR", ~positives)):
        assert abs(row[f"KS {label}"] - row[f"{rate} gap"]) < 1e-12
        assert row[f"KS {label}"] == ks(scores[rows], groups[rows])  # the subset
    if rng is not None:
        row["floor pos"] = noise_floor(scores[positives], groups[positives], rng)
        row["floor neg"] = noise_floor(scores[~positives], groups[~positives], rng)
    return row


def held_out_scores(data, y, sensitive, kind, train, test, seed):
    """Every method's scores on the test rows, from models fitted on the others."""
    X_train, X_test = data.iloc[train], data.iloc[test]
    base = base_model(data, kind, seed).fit(X_train, y[train])
    scores = {"base model": base.predict_proba(X_test)[:, 1]}
    for constraint in CONSTRAINTS:
        repair = ThresholdInvariantClassifier(
            base_model(data, kind, seed),
            sensitive=sensitive,
            constraint=constraint,
            random_state=seed,
        ).fit(X_train, y[train])
        scores[constraint] = repair.predict_proba(X_test)[:, 1]
    return scores


def null_repair_ks(data, y, sensitive, kind, train, test, seed):
    """Held-out KS of the positives after the repair when the groups are random.

    The sensitive column is permuted, so the groups have no true gap; the KS
    left is what estimating the maps on the training positives and measuring
    on the test positives gives by themselves.
    """
    rng = np.random.default_rng(10_000 + seed)
    permuted = data.assign(**{sensitive: rng.permutation(data[sensitive].to_numpy())})
    repair = ThresholdInvariantClassifier(
        base_model(data, kind, seed),
        sensitive=sensitive,
        constraint="equal_opportunity",
        random_state=seed,
    ).fit(permuted.iloc[train], y[train])
    scores = repair.predict_proba(permuted.iloc[test])[:, 1]
    positives = y[test] == 1
    return ks(scores[positives], permuted[sensitive].to_numpy()[test][positives])


def run(name, kind, seeds):
    data, y, sensitive = DATASETS[name]()
    groups = data[sensitive].to_numpy()
    strata = (pd.Series(groups).astype(str) + "|" + pd.Series(y).astype(str)).to_numpy()
    rows = []
    for seed in range(seeds):
        train, test = train_test_split(
            np.arange(y.size), test_size=0.5, stratify=strata, random_state=seed
        )
        scores = held_out_scores(data, y, sensitive, kind, train, test, seed)
        rng = np.random.default_rng(seed)
        for method, values in scores.items():
            floor = rng if method == "base model" else None
            rows.append(
                {"method": method, "seed": seed}
                | evaluate(values, y[test], groups[test], floor)
            )
        (eo,) = [r for r in rows[-len(scores) :] if r["method"] == "equal_opportunity"]
        eo["null KS pos"] = null_repair_ks(data, y, sensitive, kind, train, test, seed)
    frame = pd.DataFrame(rows)
    base_acc = frame[frame.method == "base model"].set_index("seed")["acc"]
    frame["acc ratio"] = frame["acc"] / frame["seed"].map(base_acc)
    return frame


def summarise(frame):
    columns = [c for c in frame.columns if c not in ("method", "seed")]
    order = ["base model", *CONSTRAINTS]
    mean = frame.groupby("method")[columns].mean().loc[order]
    std = frame.groupby("method")[columns].std(ddof=1).loc[order]
    table = mean.copy().astype(object)
    for c in columns:
        table[c] = [
            "" if np.isnan(m) else f"{m:.3f} ± {s:.3f}"
            for m, s in zip(mean[c], std[c].fillna(0.0))
        ]
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--model", choices=("logistic", "lgbm"), default="logistic")
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=None)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 20)
    for name in args.datasets or DATASETS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            frame = run(name, args.model, args.seeds)
        table = summarise(frame)
        print(f"\n{name}, {args.model}, {args.seeds} seeds (held-out half)")
        print(table.to_string())
        eo = frame[frame.method == "equal_opportunity"]
        pe = frame[frame.method == "predictive_equality"]
        before = frame[frame.method == "base model"]
        print(
            f"acceptance: base KS pos {before['KS pos'].mean():.3f} "
            f"(>= 0.2: {before['KS pos'].mean() >= 0.2}); equal_opportunity "
            f"KS pos {eo['KS pos'].mean():.3f} (<= 0.05: "
            f"{eo['KS pos'].mean() <= 0.05}; with the groups permuted "
            f"{eo['null KS pos'].mean():.3f}), worst split "
            f"{eo['KS pos'].max():.3f}; accuracy ratio "
            f"{eo['acc ratio'].mean():.4f} (>= 0.95: {eo['acc ratio'].min() >= 0.95}); "
            f"predictive_equality KS neg {pe['KS neg'].mean():.3f}, accuracy "
            f"ratio {pe['acc ratio'].mean():.4f}"
        )


if __name__ == "__main__":
    main()
