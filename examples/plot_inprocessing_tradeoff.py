"""Training for demographic parity: the AP vs MCDP(0) trade-off on Adult
=====================================================================

``FairMLPClassifier`` is the MLP of the MCDP paper (Jin et al., ICML 2024):
one hidden layer of 256 ReLU units, Adam on mini-batches of 1024 (300 steps
with ``--full``, as in ``benchmarks/bench_inprocessing.py``), and a fairness
penalty weighted by ``fairness_weight``:

* DiffDP, the gap between the groups' mean scores;
* DiffABCC, the area between the groups' temperature-sigmoid CDFs;
* DiffMCDP, the gap between those CDFs where the exact MCDP(0) (the largest
  gap in positive rates over all thresholds) is attained, re-found on every
  mini-batch.

``FairLGBMClassifier`` puts the same penalties into LightGBM's objective.
The script prints test average precision (AP) and MCDP(0) for each penalty
and weight (sex is the sensitive attribute and is not a model input), and
draws the trade-off when matplotlib is installed. Up and to the left is
better.

By default it trains on an 8,000-row sample of Adult with mini-batches of 128,
two weights per penalty and 50 trees, so that it runs in seconds; ``--full`` runs the
paper's setting (all 45,222 complete rows, batches of 1024, five weights).

Run: ``python examples/plot_inprocessing_tradeoff.py [--full]``
"""

import sys

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.metrics import average_precision_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair.datasets import load_adult
from skfair.inprocessing import FairLGBMClassifier, FairMLPClassifier
from skfair.metrics import mcdp

full = "--full" in sys.argv
X, y = load_adult(return_X_y=True)
X = X.drop(columns="fnlwgt")
complete = X.notna().all(axis=1).to_numpy()
X, y = X[complete].reset_index(drop=True), np.asarray(y)[complete]
if not full:
    keep = np.random.default_rng(0).choice(len(y), 8_000, replace=False)
    X, y = X.iloc[keep].reset_index(drop=True), y[keep]
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)

categorical = X.drop(columns="sex").select_dtypes(exclude="number").columns.tolist()
numeric = X.select_dtypes("number").columns.tolist()
encode = ColumnTransformer(
    [
        (
            "cat",
            OneHotEncoder(handle_unknown="ignore", sparse_output=False),
            categorical,
        ),
        ("num", StandardScaler(), numeric),
        ("sex", "passthrough", ["sex"]),  # read by the model, not learnt from
    ],
    verbose_feature_names_out=False,
).set_output(transform="pandas")


def evaluate(model):
    model.fit(X_train, y_train)
    score = model.predict_proba(X_test)[:, 1]
    return (
        average_precision_score(y_test, score),
        mcdp(y_test, score, sensitive_features=X_test["sex"]),
    )


weights = [0.2, 0.3, 0.4, 0.5, 0.6] if full else [0.3, 0.5]
results = {}
mlp = {
    "sensitive": "sex",
    "learning_rate_init": 3e-3,
    "batch_size": 1024 if full else 128,
    # --full: the steps of benchmarks/bench_inprocessing.py (see STEPS there)
    "max_iter": 300 if full else 150,
    "lr_step_size": 100 if full else 50,
    "random_state": 0,
}
results["ERM"] = [
    evaluate(make_pipeline(encode, FairMLPClassifier(penalty=None, **mlp)))
]
for name, penalty in [("DiffDP", "dp"), ("DiffABCC", "abcc"), ("DiffMCDP", "mcdp")]:
    results[name] = [
        evaluate(
            make_pipeline(
                encode,
                FairMLPClassifier(penalty=penalty, fairness_weight=w, **mlp),
            )
        )
        for w in weights
    ]
boost = {"sensitive": "sex", "n_estimators": 200 if full else 50, "random_state": 0}
boost_weights = [0.0, 0.3, 1.0] if full else [0.0, 0.3]
results["LightGBM + DiffMCDP"] = [
    evaluate(make_pipeline(encode, FairLGBMClassifier(fairness_weight=w, **boost)))
    for w in boost_weights
]

print(f"Adult ({len(y)} rows), test split; AP higher is better, MCDP(0) lower")
print(f"{'model':<22}{'weight':>8}{'AP':>8}{'MCDP(0)':>9}")
for name, points in results.items():
    grid = {"ERM": [0.0], "LightGBM + DiffMCDP": boost_weights}.get(name, weights)
    for w, (ap, gap) in zip(grid, points):
        print(f"{name:<22}{w:>8g}{ap:>8.3f}{gap:>9.3f}")

try:
    import matplotlib.pyplot as plt
except ImportError:  # the table above is the result; the figure is optional
    plt = None
if plt is not None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, points in results.items():
        ap, gap = np.array(points).T
        ax.plot(gap, ap, marker="o", label=name)
    ax.set_xlabel("MCDP(0) on test (lower is fairer)")
    ax.set_ylabel("average precision on test")
    ax.set_title("Adult, sensitive attribute sex")
    ax.legend()
    fig.tight_layout()
