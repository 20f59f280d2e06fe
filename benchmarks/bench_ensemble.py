"""Time skfair's ensemble estimators against their baselines on income (Adult).

Run: ``python benchmarks/bench_ensemble.py``. Prints seconds per fit (best of
``REPEATS``) and the ratios:

* ``FairGBMClassifier.fit / fairgbm.train`` -- the wrapper's overhead
  (validation, group encoding) over the native engine on the same arrays;
* ``FairGBMClassifier.fit / lightgbm.LGBMClassifier.fit`` -- the price of the
  constraints, same trees;
* ``AdaFairClassifier.fit / AdaBoostClassifier.fit`` -- same number of stumps;
* ``compare_estimators / cross_val_score`` -- the harness's overhead.
"""

import time

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score

from skfair.datasets import load_hfm_dataset
from skfair.ensemble import AdaFairClassifier, FairGBMClassifier
from skfair.model_selection import make_hfm_encoder
from skfair.model_selection._compare import compare_estimators

REPEATS = 3


def best_time(func):
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    import fairgbm
    import lightgbm

    income = load_hfm_dataset("income")
    features = make_hfm_encoder(list(income.sensitive)).fit_transform(income.data)
    male = (income.data["sex"] == "Male").to_numpy().astype(float)
    X = np.column_stack([male, features])
    y = income.target.to_numpy()
    n_trees = 100

    def native():
        params = {
            "objective": "constrained_cross_entropy",
            "constraint_type": "FNR",
            "verbose": -1,
            "num_threads": 1,
            "seed": 0,
        }
        dataset = fairgbm.Dataset(
            X[:, 1:], label=y, constraint_group=male.astype(np.int32)
        )
        fairgbm.train(params, dataset, num_boost_round=n_trees)

    def wrapper():
        FairGBMClassifier(
            sensitive=0,
            constraint_type="FNR",
            n_estimators=n_trees,
            random_state=0,
            n_jobs=1,
        ).fit(X, y)

    def plain():
        lightgbm.LGBMClassifier(
            n_estimators=n_trees, random_state=0, n_jobs=1, verbose=-1
        ).fit(X[:, 1:], y)

    def adafair():
        AdaFairClassifier(
            sensitive=0, privileged=1, n_estimators=50, random_state=0
        ).fit(X, y)

    def adaboost():
        AdaBoostClassifier(n_estimators=50, random_state=0).fit(X[:, 1:], y)

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    small = X[:5000], y[:5000]

    def harness():
        compare_estimators(
            {"adaboost": AdaBoostClassifier(n_estimators=20, random_state=0)},
            *small,
            sensitive=None,
            cv=cv,
            scoring={"accuracy": "accuracy"},
            progress=False,
        )

    def baseline():
        cross_val_score(
            AdaBoostClassifier(n_estimators=20, random_state=0), *small, cv=cv
        )

    timings = {
        name: best_time(func)
        for name, func in [
            ("fairgbm.train", native),
            ("FairGBMClassifier.fit", wrapper),
            ("LGBMClassifier.fit", plain),
            ("AdaFairClassifier.fit", adafair),
            ("AdaBoostClassifier.fit", adaboost),
            ("compare_estimators", harness),
            ("cross_val_score", baseline),
        ]
    }
    print(f"income: {X.shape[0]} samples, {X.shape[1] - 1} features + sex")
    for name, seconds in timings.items():
        print(f"{name:>24}: {seconds:8.3f} s")
    for top, bottom in [
        ("FairGBMClassifier.fit", "fairgbm.train"),
        ("FairGBMClassifier.fit", "LGBMClassifier.fit"),
        ("AdaFairClassifier.fit", "AdaBoostClassifier.fit"),
        ("compare_estimators", "cross_val_score"),
    ]:
        print(f"{top} / {bottom}: {timings[top] / timings[bottom]:.2f}")


if __name__ == "__main__":
    main()
