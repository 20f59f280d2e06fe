"""Demographic parity at every threshold: repairing LightGBM's scores on Adult
===========================================================================

Equal positive rates at one threshold say nothing about the next threshold a
user picks. ``ThresholdInvariantClassifier`` maps each group's scores onto the
groups' common (Wasserstein barycentric) score distribution, so that the
positive rates match at *every* threshold; ``repair`` in [0, 1] moves the
scores part of the way.

This script trains LightGBM (200 trees, without the ``sex`` column) on the
bundled UCI Adult data, then prints on the test split

* the trade-off between average precision (AP) and MCDP(0), the largest gap
  in positive rates over all thresholds, and ABCC, for repair 0 to 1;
* ΔDP_b^t, the gap in positive rates at threshold t, before and after a full
  repair.

Values are fractions; lower is fairer.

Run: ``python examples/threshold_invariant_adult.py``
"""

import matplotlib.pyplot as plt
from lightgbm import LGBMClassifier
from sklearn.compose import ColumnTransformer
from sklearn.metrics import average_precision_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from skfair.datasets import load_adult
from skfair.metrics import abcc, delta_dp, mcdp
from skfair.plotting import ThresholdDisparityDisplay
from skfair.postprocessing import ThresholdInvariantClassifier

adult = load_adult()
X, y = adult.data, adult.target
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
encode = ColumnTransformer(
    [("sex", "drop", ["sex"]), ("race", OrdinalEncoder(), ["race"])],
    remainder="passthrough",
).set_output(transform="pandas")
model = make_pipeline(
    encode, LGBMClassifier(n_estimators=200, verbose=-1, n_jobs=1, random_state=0)
)

# The groups are read from X["sex"]; the model itself never sees that column.
# F_g is estimated from 5-fold out-of-fold scores, then the model is refitted.
fair = ThresholdInvariantClassifier(model, sensitive="sex", random_state=0)
fair.fit(X_train, y_train)
sex = X_test["sex"]
print(
    f"Adult: {len(y_train)} training and {len(y_test)} test rows; "
    f"groups {fair.groups_} with weights {fair.group_weights_.round(3).tolist()}"
)


def scores(repair):
    # `repair` acts at predict time only: no refit is needed to change it.
    return fair.set_params(repair=repair).predict_proba(X_test)[:, 1]


print("\nFairness-accuracy frontier on the test split")
print(f"{'repair':>6}  {'AP':>6}  {'MCDP(0)':>7}  {'ABCC':>6}")
base_ap = None
for repair in (0.0, 0.25, 0.5, 0.75, 1.0):
    s = scores(repair)
    ap = average_precision_score(y_test, s)
    base_ap = ap if base_ap is None else base_ap
    print(
        f"{repair:>6.2f}  {ap:.4f}  {mcdp(y_test, s, sensitive_features=sex):>7.4f}"
        f"  {abcc(y_test, s, sensitive_features=sex):.4f}"
        f"   ({ap / base_ap:.1%} of the base AP)"
    )

before, after = scores(0.0), scores(1.0)
print("\nΔDP_b^t: gap in positive rates between the groups at threshold t")
print(f"{'t':>4}  {'before':>6}  {'after':>6}")
for t in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
    gap_before = delta_dp(y_test, before, sensitive_features=sex, threshold=t)
    gap_after = delta_dp(y_test, after, sensitive_features=sex, threshold=t)
    print(f"{t:>4.1f}  {gap_before:.4f}  {gap_after:.4f}")

# %%
# The gap at every threshold, before and after the full repair, on one axis.

fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for name, s in [("before the repair", before), ("repair = 1", after)]:
    ThresholdDisparityDisplay.from_predictions(
        y_test, s, sensitive_features=sex, name=name, ax=ax, xscale="linear"
    )
