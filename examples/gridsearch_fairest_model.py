"""Select the fairest good model with GridSearchCV and ``fairest_within``
======================================================================

The MCDP paper's protocol: among the candidates keeping at least 95 % of the
best mean average precision, refit the one with the lowest MCDP(0). Here the
candidates are LightGBM models of increasing capacity on German credit (whose
``sex`` column is kept out of the model's inputs).

Run: ``python examples/gridsearch_fairest_model.py``
"""

import pandas as pd
from lightgbm import LGBMClassifier
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline

from skfair.datasets import load_german_credit
from skfair.metrics import make_mcdp_scorer
from skfair.model_selection import fairest_within, make_hfm_encoder
from skfair.plotting import FairnessTradeoffDisplay

credit = load_german_credit(preprocessing="hfm")
X, y = credit.data, credit.target
model = make_pipeline(
    make_hfm_encoder(list(credit.sensitive)), LGBMClassifier(verbose=-1, n_jobs=1)
)
grid = {
    "lgbmclassifier__n_estimators": [10, 50, 200],
    "lgbmclassifier__num_leaves": [4, 31],
}
search = GridSearchCV(
    model,
    grid,
    cv=StratifiedKFold(5, shuffle=True, random_state=0),
    scoring={
        "ap": "average_precision",
        "mcdp": make_mcdp_scorer(sensitive=["sex", "age"]),
    },
    refit=fairest_within(fairness="mcdp", performance="ap", tolerance=0.95),
)
search.fit(X, y)
table = pd.DataFrame(
    {
        "params": [str(p) for p in search.cv_results_["params"]],
        "AP": search.cv_results_["mean_test_ap"],
        "MCDP(0)": -search.cv_results_["mean_test_mcdp"],
    }
)
pd.set_option("display.width", 120)
print(table.round(4).to_string())
print(f"\nselected (fairest within 95% of the best AP): {search.best_params_}")

# %%
# Every candidate at its mean AP and MCDP(0) (one standard deviation over the
# folds), the Pareto front, the 95 % line and the candidate refitted.

display = FairnessTradeoffDisplay.from_cv_results(
    search.cv_results_, fairness="mcdp", performance="ap", annotate=False
)
_ = display.ax_.set(xlabel="average precision", ylabel="MCDP(0) (lower is fairer)")
