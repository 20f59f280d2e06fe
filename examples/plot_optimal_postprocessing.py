"""Equalised odds with a tolerance: pick it with GridSearchCV and ``fairest_within``
==================================================================================

:class:`~skfair.postprocessing.OptimalParityClassifier` learns, for each
group, the randomised threshold rule on a model's scores that is the most
accurate while the largest between-group gap of the true- and false-positive
rates stays within ``tolerance``. A logistic regression is trained on half of
the Adult data (sensitive ``sex``) and frozen; the post-processor's
tolerance is then chosen on the other half by a 5-fold search: the fairest
tolerance (lowest held-out equalised-odds difference) whose accuracy is
within 99.5 % of the best.

Run: ``python examples/plot_optimal_postprocessing.py``
"""

import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair.datasets import load_adult
from skfair.metrics import make_rate_scorer
from skfair.model_selection import fairest_within
from skfair.plotting import FairnessTradeoffDisplay
from skfair.postprocessing import OptimalParityClassifier

adult = load_adult(preprocessing="hfm")
X, y = adult.data, adult.target
X_model, X_post, y_model, y_post = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
nominal = list(X.select_dtypes(exclude="number").columns)
model = make_pipeline(
    make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore"), nominal),
        remainder=StandardScaler(),
    ),
    LogisticRegression(max_iter=1000),
).fit(X_model, y_model)

post = OptimalParityClassifier(
    FrozenEstimator(model), sensitive="sex", constraint="equalized_odds", random_state=0
)
search = GridSearchCV(
    post,
    {"tolerance": [0.0, 0.01, 0.02, 0.05, 0.1, 0.2]},
    cv=StratifiedKFold(5, shuffle=True, random_state=0),
    scoring={
        "accuracy": "accuracy",
        "eo": make_rate_scorer("equalized_odds_difference", sensitive="sex"),
    },
    refit=fairest_within(fairness="eo", performance="accuracy", tolerance=0.995),
).fit(X_post, y_post)

table = pd.DataFrame(
    {
        "tolerance": search.cv_results_["param_tolerance"],
        "accuracy": search.cv_results_["mean_test_accuracy"],
        "EO difference": -search.cv_results_["mean_test_eo"],
    }
)
print(table.round(4).to_string(index=False))
best = search.best_estimator_
print(f"\nselected tolerance: {search.best_params_['tolerance']}")
print("the refitted rule (thresholds on P(>50K) and their probabilities):")
for group, thresholds, weights in zip(
    best.groups_, best.thresholds_, best.mixing_weights_
):
    rule = ", ".join(f"{t:.3f} w.p. {w:.2f}" for t, w in zip(thresholds, weights))
    print(f"  {group}: {rule}")
print(best.rates_.round(3))

# %%
# Held-out (cross-validated) accuracy against the equalised-odds difference
# for each tolerance, with the tolerance ``fairest_within`` refitted.

display = FairnessTradeoffDisplay.from_cv_results(
    search.cv_results_, fairness="eo", performance="accuracy", tolerance=0.995
)

# %%
# The same trade-off on the fit data, where every point is the exact
# optimum of the linear program: a tolerance of 0 costs accuracy, and each
# looser tolerance buys some back.

display = FairnessTradeoffDisplay.from_tolerances(
    post, X_post, y_post, tolerances=[0.0, 0.01, 0.02, 0.05, 0.1, 0.2]
)
