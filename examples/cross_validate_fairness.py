"""Cross-validate accuracy and fairness together on Adult
======================================================

One ``cross_validate`` call mixes scikit-learn's built-in scorers with
skfair's: average precision, accuracy, MCDP(0), MCDP(0.05), ABCC and HFM.
The pipeline drops the sensitive column ``sex`` before LightGBM; the skfair
scorers read ``sex`` from the ``X`` they receive (``sensitive="sex"``), so no
metadata routing is needed. Scores are negated (greater is better), as for
scikit-learn's ``neg_*`` scorers; we print the metrics themselves.

Run: ``python examples/cross_validate_fairness.py``
"""

import matplotlib.pyplot as plt
from lightgbm import LGBMClassifier
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from skfair.datasets import load_adult
from skfair.metrics import make_abcc_scorer, make_hfm_scorer, make_mcdp_scorer
from skfair.model_selection import make_hfm_encoder

adult = load_adult(preprocessing="hfm")  # the 30,162 complete training rows
X, y = adult.data, adult.target
encode = ColumnTransformer(
    [("sex", "drop", ["sex"]), ("race", OrdinalEncoder(), ["race"])],
    remainder="passthrough",
).set_output(transform="pandas")
model = make_pipeline(encode, LGBMClassifier(n_estimators=100, verbose=-1, n_jobs=1))

scoring = {
    "AP": "average_precision",
    "accuracy": "accuracy",
    "MCDP(0)": make_mcdp_scorer(sensitive="sex"),
    "MCDP(0.05)": make_mcdp_scorer(sensitive="sex", epsilon=0.05),
    "ABCC": make_abcc_scorer(sensitive="sex"),
    # HFM's distances live in the paper's encoded feature space: one-hot and
    # min-max features without the sensitive columns, fitted on each test fold.
    "HFM df_avg": make_hfm_scorer(
        sensitive="sex", kind="avg", transform=make_hfm_encoder(list(adult.sensitive))
    ),
}
cv = StratifiedKFold(5, shuffle=True, random_state=0)
results = cross_validate(model, X, y, cv=cv, scoring=scoring)
print(f"Adult (HFM preprocessing): {len(y)} rows, 5-fold stratified CV")
for name in scoring:
    values = results[f"test_{name}"]
    sign = 1 if name in ("AP", "accuracy") else -1  # undo the negation
    print(f"{name:<12} {sign * values.mean():.4f} ± {values.std():.4f}")

# %%
# The same numbers as a picture: performance on the left, fairness metrics
# (lower is fairer) on the right, with the spread over the five folds.

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
for ax, names in [(left, ["AP", "accuracy"]), (right, list(scoring)[2:])]:
    means = [abs(results[f"test_{n}"].mean()) for n in names]
    stds = [results[f"test_{n}"].std() for n in names]
    ax.bar(names, means, yerr=stds, capsize=4, color="C0" if ax is left else "C3")
    ax.tick_params(axis="x", labelrotation=20)
left.set_title("performance (higher is better)")
right.set_title("unfairness (lower is fairer)")
