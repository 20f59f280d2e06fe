"""Time ThresholdInvariantClassifier against its base estimator, and measure
what the choice of calibration scores costs in fairness.

Timing (default): LightGBM (200 trees, n_jobs=1) on the bundled Adult data,
stratified 70/30 split. Prints the median time of the post-processor's
fit + predict_proba divided by the base estimator's own fit + predict_proba:

* ``calibration="oof"`` (default, cv=5): about cv + 1 base fits;
* ``calibration="in_sample"``: one base fit;
* predict_proba alone: the repair's overhead on top of the model's predict.

``--mismatch``: the mapping is estimated from one set of scores and applied to
the refitted model's scores on new data. For several seeds it prints the test
MCDP(0), ABCC and AP after a full repair when F_g is estimated from

* ``oof``: out-of-fold scores (5 folds), model refitted on all training rows;
* ``in_sample``: the refitted model's scores on its own training rows;
* ``holdout``: a model fitted on 80 % of the training rows and frozen
  (FrozenEstimator), F_g from its scores on the other 20 %;
* ``oracle``: the refitted (oof) model, F_g from its scores on half A of the
  test split (data it has never seen, from the test distribution).

All four are evaluated on half B of the test split, for LightGBM with 200
trees and for an overfitting LightGBM (1000 trees of 127 leaves).

``--discrete``: models with discrete, constant or continuous scores on
synthetic data (``--n`` training rows, as many fresh rows from the same
distribution, ``--seeds`` seeds). Prints the fresh rows' MCDP(0) before the
repair and after it under the defaults and with ``calibration="in_sample"``,
and the scores the defaults picked (``calibration_``).

Run: ``python benchmarks/bench_postprocessing.py [--repeat 3] [--mismatch]
[--discrete [--n 4000]]``
Figures depend on the machine and its load; compare ratios, not seconds.
"""

import argparse
import time

import numpy as np
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.metrics import average_precision_score
from sklearn.model_selection import train_test_split

from skfair.datasets import load_adult
from skfair.metrics import abcc, mcdp
from skfair.postprocessing import ThresholdInvariantClassifier


def lightgbm(seed=0, **params):
    from lightgbm import LGBMClassifier

    params = {"n_estimators": 200, **params}
    return LGBMClassifier(n_jobs=1, verbose=-1, random_state=seed, **params)


def adult_split(seed=0):
    X, y = load_adult(return_X_y=True)
    # LightGBM takes pandas categoricals, not strings
    X = X.astype(dict.fromkeys(X.select_dtypes(exclude="number"), "category"))
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)


def median_time(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def timing(repeat):
    X_train, X_test, y_train, _ = adult_split()
    print(f"Adult: {len(y_train)} training rows, {len(X_test)} test rows")

    def base():
        lightgbm().fit(X_train, y_train).predict_proba(X_test)

    t_base = median_time(base, repeat)
    print(f"base LightGBM fit + predict_proba: {t_base:.2f} s")
    for calibration in ("oof", "in_sample"):
        clf = ThresholdInvariantClassifier(
            lightgbm(), sensitive="sex", calibration=calibration, random_state=0
        )
        t = median_time(
            lambda clf=clf: clf.fit(X_train, y_train).predict_proba(X_test), repeat
        )
        print(
            f"ThresholdInvariantClassifier(calibration={calibration!r}) "
            f"fit + predict_proba: {t:.2f} s = {t / t_base:.2f} x base"
        )
    t_model = median_time(lambda: clf.estimator_.predict_proba(X_test), repeat)
    t_repair = median_time(lambda: clf.predict_proba(X_test), repeat)
    print(
        f"predict_proba only: {t_repair * 1e3:.0f} ms vs the model's "
        f"{t_model * 1e3:.0f} ms = {t_repair / t_model:.2f} x"
    )


def mismatch(seeds, configs):
    for name, params in configs.items():
        rows = {key: [] for key in ("oof", "in_sample", "holdout", "oracle")}
        for seed in seeds:
            X_train, X_test, y_train, y_test = adult_split(seed)
            half = np.random.default_rng(seed).permutation(len(y_test))
            a, b = half[: len(half) // 2], half[len(half) // 2 :]
            X_b, y_b = X_test.iloc[b], y_test.iloc[b]
            model = lightgbm(seed, **params)
            kw = {"sensitive": "sex", "random_state": seed}
            fitted = {
                "oof": ThresholdInvariantClassifier(model, **kw).fit(X_train, y_train),
                "in_sample": ThresholdInvariantClassifier(
                    model, calibration="in_sample", **kw
                ).fit(X_train, y_train),
            }
            X_fit, X_cal, y_fit, y_cal = train_test_split(
                X_train, y_train, test_size=0.2, stratify=y_train, random_state=seed
            )
            frozen = FrozenEstimator(clone(model).fit(X_fit, y_fit))
            fitted["holdout"] = ThresholdInvariantClassifier(frozen, **kw).fit(
                X_cal, y_cal
            )
            refitted = FrozenEstimator(fitted["oof"].estimator_)
            fitted["oracle"] = ThresholdInvariantClassifier(refitted, **kw).fit(
                X_test.iloc[a], y_test.iloc[a]
            )
            for key, clf in fitted.items():
                s = clf.predict_proba(X_b)[:, 1]
                rows[key].append(
                    (
                        mcdp(y_b, s, sensitive_features=X_b["sex"]),
                        abcc(y_b, s, sensitive_features=X_b["sex"]),
                        average_precision_score(y_b, s),
                    )
                )
        print(f"\n{name}: full repair, test half B, mean ± std over {len(seeds)} seeds")
        print(f"{'F_g from':<10}  {'MCDP(0)':>15}  {'ABCC':>15}  {'AP':>15}")
        for key, values in rows.items():
            values = np.asarray(values)
            cells = [
                f"{m:.4f} ± {s:.4f}"
                for m, s in zip(values.mean(axis=0), values.std(axis=0))
            ]
            print(f"{key:<10}  " + "  ".join(f"{c:>15}" for c in cells))


def synthetic(n, seed):
    """Group 1 has a higher feature and a binary feature set more often."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    x, z = rng.normal(group, 1.0, n), rng.normal(size=n)
    b = (rng.random(n) < 0.3 + 0.4 * group).astype(float)
    y = (x + 0.5 * z + b + rng.normal(0, 1, n) > 1.0).astype(int)
    return np.column_stack([group, x, z, b]), y, group


def discrete_models():
    from sklearn.compose import ColumnTransformer
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    binary = ColumnTransformer([("b", "passthrough", [3])])
    return {
        "tree, depth 2": DecisionTreeClassifier(max_depth=2, random_state=0),
        "tree, depth 4": DecisionTreeClassifier(max_depth=4, random_state=0),
        "constant (prior)": DummyClassifier(strategy="prior"),
        "logistic, C=1e-9": LogisticRegression(C=1e-9),
        "naive Bayes, 1 binary": make_pipeline(binary, GaussianNB()),
        "k-NN, 5 neighbours": KNeighborsClassifier(n_neighbors=5),
        "logistic regression": LogisticRegression(),
    }


def discrete(seeds, n):
    print(f"\nFresh-data MCDP(0), {n} training and {n} fresh rows, seeds {list(seeds)}")
    print(f"{'model':<24}{'before':>8}{'default':>9}{'in_sample':>11}  picked")
    for name, model in discrete_models().items():
        rows, picked = [], set()
        for seed in seeds:
            X, y, _ = synthetic(n, seed)
            X_new, y_new, group_new = synthetic(n, 1000 + seed)
            row = []
            for calibration in ("oof", "in_sample"):
                clf = ThresholdInvariantClassifier(
                    model, sensitive=0, calibration=calibration, random_state=seed
                ).fit(X, y)
                fair = clf.predict_proba(X_new)[:, 1]
                row.append(mcdp(y_new, fair, sensitive_features=group_new, epsilon=0))
                if calibration == "oof":
                    picked.add(clf.calibration_)
            raw = clf.estimator_.predict_proba(X_new)[:, 1]
            before = mcdp(y_new, raw, sensitive_features=group_new, epsilon=0)
            rows.append([before, *row])
        mean = np.mean(rows, axis=0)
        print(
            f"{name:<24}{mean[0]:>8.3f}{mean[1]:>9.3f}{mean[2]:>11.3f}  {sorted(picked)}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mismatch", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--discrete", action="store_true")
    parser.add_argument("--n", type=int, default=4000)
    args = parser.parse_args()
    if args.discrete:
        discrete(range(args.seeds), args.n)
        return
    timing(args.repeat)
    if args.mismatch:
        mismatch(
            range(args.seeds),
            {
                "LightGBM, 200 trees": {},
                "LightGBM, 1000 trees of 127 leaves": {
                    "n_estimators": 1000,
                    "num_leaves": 127,
                },
            },
        )


if __name__ == "__main__":
    main()
