"""Seeing disparity: the four fairness Displays on Adult
=====================================================

A fairness audit is easier to read as a picture than as a float. This example
trains LightGBM on the bundled UCI Adult data (without the ``sex`` column),
repairs its scores with ``ThresholdInvariantClassifier``, and draws the four
Displays of :mod:`skfair.plotting`:

* :class:`~skfair.plotting.GroupCDFDisplay`: each group's score CDF, with
  where MCDP(ε) is attained;
* :class:`~skfair.plotting.MCDPCurveDisplay`: MCDP(ε) as a function of ε,
  one line per model;
* :class:`~skfair.plotting.ThresholdDisparityDisplay`: the positive-rate gap
  ΔDP at every decision threshold t;
* :class:`~skfair.plotting.FairnessTradeoffDisplay`: average precision
  against MCDP(0) for the candidates of a ``GridSearchCV``, with the Pareto
  front and the candidate ``fairest_within`` picks.

Values are fractions; lower is fairer. Needs matplotlib
(``pip install "skfair-learn[plot]"``).

Run: ``python examples/plot_fairness_displays.py``
"""

import os

import matplotlib.pyplot as plt
from lightgbm import LGBMClassifier
from sklearn.compose import ColumnTransformer
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from skfair.datasets import load_adult
from skfair.metrics import make_mcdp_scorer, mcdp
from skfair.model_selection import fairest_within
from skfair.plotting import (
    FairnessTradeoffDisplay,
    GroupCDFDisplay,
    MCDPCurveDisplay,
    ThresholdDisparityDisplay,
)
from skfair.postprocessing import ThresholdInvariantClassifier

# The documentation build sets SKFAIR_EXAMPLES_FAST=1: fewer rows and trees.
FAST = os.environ.get("SKFAIR_EXAMPLES_FAST") == "1"

adult = load_adult()
X, y = adult.data, adult.target
if FAST:
    X, _, y, _ = train_test_split(X, y, train_size=12_000, stratify=y, random_state=0)
# Three parts: the model learns on the first, the repair is tuned on the
# second, and everything is drawn on the third.
X_train, X_rest, y_train, y_rest = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
X_tune, X_test, y_tune, y_test = train_test_split(
    X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=0
)
encode = ColumnTransformer(
    [("sex", "drop", ["sex"]), ("race", OrdinalEncoder(), ["race"])],
    remainder="passthrough",
).set_output(transform="pandas")
n_trees = 100 if FAST else 200
model = make_pipeline(
    encode, LGBMClassifier(n_estimators=n_trees, verbose=-1, n_jobs=1, random_state=0)
)
model.fit(X_train, y_train)

# The repair of the fitted model, its maps estimated on the tuning part.
repaired = ThresholdInvariantClassifier(
    FrozenEstimator(model), sensitive="sex", random_state=0
).fit(X_tune, y_tune)
print(f"Adult: {len(y_train)} training, {len(y_tune)} tuning, {len(y_test)} test rows")
for name, clf in [("LightGBM", model), ("repaired", repaired)]:
    proba = clf.predict_proba(X_test)[:, 1]
    value = mcdp(y_test, proba, sensitive_features=X_test["sex"])
    print(f"{name:9s} MCDP(0) on the test part = {value:.4f}")

# %%
# Group CDFs and where MCDP is attained
# -------------------------------------
# The vertical line is the threshold at which the two groups' positive rates
# differ most: MCDP(0), the two-sample Kolmogorov–Smirnov statistic. With
# ε > 0 the shaded window is where the gap stays at least MCDP(ε).

fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
GroupCDFDisplay.from_estimator(
    model, X_test, y_test, sensitive="sex", name="LightGBM, ε = 0", ax=axes[0]
)
GroupCDFDisplay.from_estimator(
    model,
    X_test,
    y_test,
    sensitive="sex",
    epsilon=0.05,
    name="LightGBM, ε = 0.05",
    ax=axes[1],
)
fig.tight_layout()

# %%
# MCDP(ε) over ε
# --------------
# One line per model on the same axes. MCDP(ε) decreases with ε; a curve that
# falls fast marks a narrow spike in the CDF gap, a flat one a broad shift.
# After the repair the curve is close to zero for every ε.

fig, ax = plt.subplots(figsize=(6, 4))
for name, clf in [("LightGBM", model), ("repaired", repaired)]:
    MCDPCurveDisplay.from_estimator(
        clf, X_test, y_test, sensitive="sex", name=name, ax=ax
    )
ax.legend()
fig.tight_layout()

# %%
# Disparity at every threshold
# ----------------------------
# The positive-rate gap at each threshold t: where a decision threshold would
# be unfair. Its maximum over t is MCDP(0) and its mean over [0, 1] is ABCC.
# Note the scales: the repaired model's worst threshold is far below the
# original's.

fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for ax, (name, clf) in zip(axes, [("LightGBM", model), ("repaired", repaired)]):
    ThresholdDisparityDisplay.from_estimator(
        clf, X_test, y_test, sensitive="sex", name=name, ax=ax
    )
    ax.set_title(name)
fig.tight_layout()

# %%
# The fairness–performance trade-off
# ----------------------------------
# A grid search over ``repair`` (read at predict time, so each candidate only
# re-estimates the cheap score maps), scored by average precision and by
# MCDP(0). ``fairest_within`` refits the fairest candidate whose mean AP is at
# least 95 % of the best; the Display draws every candidate with its spread
# over the folds, the Pareto front and that choice.

search = GridSearchCV(
    ThresholdInvariantClassifier(
        FrozenEstimator(model), sensitive="sex", random_state=0
    ),
    {"repair": [0.0, 0.25, 0.5, 0.75, 1.0]},
    scoring={"ap": "average_precision", "mcdp": make_mcdp_scorer(sensitive="sex")},
    refit=fairest_within(fairness="mcdp", performance="ap", tolerance=0.95),
    cv=3,
)
search.fit(X_tune, y_tune)
print(f"fairest_within picks repair = {search.best_params_['repair']}")
display = FairnessTradeoffDisplay.from_cv_results(
    search.cv_results_, fairness="mcdp", performance="ap", tolerance=0.95
)
display.ax_.set_xlabel("average precision")
display.ax_.set_ylabel("MCDP(0)")
plt.show()
