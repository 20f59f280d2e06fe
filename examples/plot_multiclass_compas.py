"""Auditing a multiclass classifier: COMPAS's Low / Medium / High risk
====================================================================

COMPAS sorts defendants into three risk categories, ``score_text`` Low,
Medium and High. A classifier of three classes has no single "positive
rate": each class is audited one-vs-rest. Its **selection rate** (the share
of a group predicted that class), its TPR and FPR against the true class,
and the distribution of its predicted probability are compared between
groups, class by class.

This example

1. fits a logistic regression that predicts ``score_text`` from
   non-leaking features (age, prior and juvenile counts, charge degree, sex;
   never the decile scores) and tabulates its per-class selection rates and
   gaps by race, with MCDP of each class's probability;
2. audits it with :func:`skfair.audit` (``task`` detected: multiclass);
3. audits COMPAS's **own** category against race: the vendor's
   ``score_text`` is the "prediction", and the two-year recidivism the
   context;
4. compares :class:`~skfair.inprocessing.FairMLPClassifier` with and without
   its MCDP penalty on the same three-class target.

Run: ``python examples/plot_multiclass_compas.py``.
"""

import os
import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import skfair
from skfair.datasets import load_compas
from skfair.inprocessing import FairMLPClassifier
from skfair.metrics import (
    mcdp,
    multiclass_rate_table,
    multiclass_selection_rate_difference,
)

FAST = os.environ.get("SKFAIR_EXAMPLES_FAST") == "1"
CLASSES = ["Low", "Medium", "High"]

compas = load_compas(preprocessing="raw").frame
features = ["age", "priors_count", "juv_fel_count", "juv_misd_count", "juv_other_count"]
X = pd.concat(
    [
        compas[features].astype(float),
        (compas["c_charge_degree"] == "F").astype(float).rename("felony"),
        (compas["sex"] == "Male").astype(float).rename("male"),
    ],
    axis=1,
)
y = compas["score_text"]
race = compas["race"]
X_train, X_test, y_train, y_test, race_train, race_test = train_test_split(
    X, y, race, test_size=0.4, stratify=y, random_state=0
)
# one index for every test column: skfair pairs samples by position and
# refuses pandas objects whose indexes differ
X_test, y_test, race_test = (
    v.reset_index(drop=True) for v in (X_test, y_test, race_test)
)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(X_train, y_train)
proba = pd.DataFrame(model.predict_proba(X_test), columns=model.classes_)[CLASSES]
pred = proba.idxmax(axis=1).to_numpy()
print(f"accuracy on held-out data: {np.mean(pred == y_test.to_numpy()):.3f}")

# %%
# Selection rates per race and class
# -----------------------------------
# :func:`skfair.metrics.multiclass_rate_table` gives each group's share
# predicted each class (with Wilson intervals) and its ratio to the largest
# group; the gap of each class is the largest difference between two groups.

table = multiclass_rate_table(
    y_test, pred, sensitive_features=race_test, labels=CLASSES, min_group_size=30
)
print(table["selection_rate"].round(3))
print(table["selection_rate_ratio"].round(3))
for class_agg in ("max", "mean"):
    gap = multiclass_selection_rate_difference(
        y_test,
        pred,
        sensitive_features=race_test,
        labels=CLASSES,
        class_agg=class_agg,
        min_group_size=30,
    )
    print(f"selection-rate gap over classes ({class_agg}): {gap:.3f}")

# %%
# MCDP of each class's probability: the largest gap between two groups'
# CDFs of that probability, over every threshold on it.
for cls in CLASSES:
    value = mcdp(None, proba[cls], sensitive_features=race_test, min_group_size=30)
    print(f"MCDP(0) of P({cls}): {value:.3f}")

# %%
# The audit of the model
# ----------------------
# Three or more labels and a probability matrix (its columns are the
# classes): the audit detects a multiclass task and says so. Groups of fewer
# than 30 people are left out of everything, and named in the notes.

resamples = {"n_resamples": 49, "n_permutations": 49} if FAST else {}
report = skfair.audit(
    y_test,
    proba,
    sensitive_features=race_test,
    min_group_size=30,
    title="Logistic regression predicting COMPAS's risk category, by race",
    **resamples,
)
print(report.settings.task_reason)
print("\n".join(report.to_dict()["headline"]["text"]))

# %%
# COMPAS's own category, audited against race
# -------------------------------------------
# The vendor's ``score_text`` is the "prediction"; with the labels given,
# each class's "probability" is 0 or 1, and the audit compares who is put in
# each category. The true recidivism is the context: among people who did
# (did not) reoffend within two years, the share each category holds.

vendor = compas["score_text"].to_numpy()
context = pd.crosstab(
    [compas["race"], compas["two_year_recid"].rename("reoffended in 2 years")],
    compas["score_text"],
    normalize="index",
)[CLASSES]
print(context.round(3))
vendor_report = skfair.audit(
    None,
    vendor,
    sensitive_features=compas["race"],
    task="multiclass",
    classes=CLASSES,
    min_group_size=30,
    title="COMPAS's risk category (score_text), by race",
    **resamples,
)
print("\n".join(vendor_report.to_dict()["headline"]["text"][:2]))

# %%
# Penalised and unpenalised: FairMLPClassifier on three classes
# -------------------------------------------------------------
# The MLP's softmax output gives a probability per class; the MCDP penalty
# is applied to each class's probability and aggregated by ``class_agg``
# (the worst class). ``fairness_weight=0`` is the same network without it.

train = X_train.assign(race=race_train.to_numpy())
test = X_test.assign(race=race_test.to_numpy())
scaler = StandardScaler().fit(X_train)
train[X.columns] = scaler.transform(X_train)
test[X.columns] = scaler.transform(X_test)
iterations = 20 if FAST else 60
for weight in (0.0, 1.0):
    mlp = FairMLPClassifier(
        sensitive="race",
        fairness_weight=weight,
        max_iter=iterations,
        min_group_size=30,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small groups, named by the audit above
        mlp.fit(train, y_train)
    scores = mlp.predict_proba(test)
    worst = max(
        mcdp(None, scores[:, k], sensitive_features=race_test, min_group_size=30)
        for k in range(scores.shape[1])
    )
    accuracy = np.mean(mlp.predict(test) == y_test.to_numpy())
    print(
        f"fairness_weight={weight:g}: accuracy {accuracy:.3f}, "
        f"worst class MCDP(0) {worst:.3f}"
    )

# %%
# The report
# ----------
# In a notebook (and in this gallery) a report displays itself; save it with
# ``open("compas_multiclass.html", "w").write(report.to_html())``.

report
