"""ThresholdInvariantRegressor on the bundled data sets (``--bundled SEEDS``).

The setting of the "up to sampling error" table of the regression user guide
(``docs/user_guide/regression.rst``): 70/30 ``train_test_split`` with seeds
0 … SEEDS-1; the sensitive column is a column of ``X`` that the model's
``ColumnTransformer`` drops and ThresholdInvariantRegressor receives as
``sensitive=`` (defaults otherwise, ``random_state=seed``).

* COMPAS (African-American and Caucasian defendants): ``decile_score`` ~
  race. Features: what was known at screening (sex, age, age category,
  juvenile and prior counts, days between arrest and screening, the current
  charge's degree and description). Left out: identifiers, names and dates;
  COMPAS's other outputs (``score_text``, ``v_decile_score``,
  ``v_score_text``, assessment types), which are the target or derived from
  the same assessment; and everything recorded after the screening
  (recidivism labels and charges, custody dates, survival columns).
* Adult: ``hours_per_week`` ~ sex; every other column is a feature.
* German credit: ``credit_amount`` ~ sex; every other column but
  ``personal_status_sex`` (the column ``sex`` is derived from) is a feature.

Models: ridge (one-hot categories, standardised numbers, median-imputed with
missing indicators) and ``HistGradientBoostingRegressor(max_iter=100)``
(categories ordinal-encoded and declared categorical, at most 255 levels;
``random_state=0`` seeds the early stopping it does on Adult's 34,000 rows).
Per data set and model, the mean over seeds of the held-out KS between the
groups (MCDP(0)) before and after the repair, its 5 % bound
``1.358 * sqrt(1/n_a + 1/n_b + 1/m_a + 1/m_b)`` (test and train group
sizes), ABCC and RMSE before and after (in the target's units).
"""

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from skfair.datasets import load_adult, load_compas, load_german_credit
from skfair.metrics import abcc, mcdp
from skfair.postprocessing import ThresholdInvariantRegressor

C_05 = 1.358  # c(0.05) of the two-sample KS test

COMPAS_FEATURES = [
    "sex",
    "age",
    "age_cat",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "days_b_screening_arrest",
    "c_days_from_compas",
    "c_charge_degree",
    "c_charge_desc",
]


def compas():
    data = load_compas().data
    data = data[data["race"].isin(["African-American", "Caucasian"])]
    return data[["race", *COMPAS_FEATURES]], data["decile_score"], "race"


def adult():
    data = load_adult().data
    return data.drop(columns="hours_per_week"), data["hours_per_week"], "sex"


def german_credit():
    data = load_german_credit().data
    X = data.drop(columns=["credit_amount", "personal_status_sex"])
    return X, data["credit_amount"], "sex"


DATASETS = {
    "COMPAS: decile_score ~ race": compas,
    "Adult: hours_per_week ~ sex": adult,
    "German credit: credit_amount ~ sex": german_credit,
}


def _columns(X, sensitive):
    """The categorical and numeric feature columns (the sensitive one left out)."""
    features = X.drop(columns=sensitive)
    numeric = list(features.select_dtypes("number").columns)
    return [c for c in features.columns if c not in numeric], numeric


def ridge(X, sensitive):
    categorical, numeric = _columns(X, sensitive)
    encode = ColumnTransformer(
        [
            ("sensitive", "drop", [sensitive]),
            ("cat", OneHotEncoder(handle_unknown="ignore"), categorical),
            (
                "num",
                make_pipeline(
                    SimpleImputer(strategy="median", add_indicator=True),
                    StandardScaler(),
                ),
                numeric,
            ),
        ]
    )
    return make_pipeline(encode, Ridge())


def boosting(X, sensitive):
    categorical, numeric = _columns(X, sensitive)
    ordinal = OrdinalEncoder(
        handle_unknown="use_encoded_value",
        unknown_value=np.nan,
        max_categories=255,
    )
    encode = ColumnTransformer(
        [
            ("sensitive", "drop", [sensitive]),
            ("cat", ordinal, categorical),
            ("num", "passthrough", numeric),
        ]
    )
    is_categorical = [True] * len(categorical) + [False] * len(numeric)
    hgb = HistGradientBoostingRegressor(  # seeded: Adult's early stopping
        max_iter=100, categorical_features=is_categorical, random_state=0
    )
    return make_pipeline(encode, hgb)


MODELS = {"ridge": ridge, "gradient boosting": boosting}


def ks_bound(groups_test, groups_train):
    """The 5 % bound of the held-out KS after the repair."""
    n = pd.Series(groups_test).value_counts()
    m = pd.Series(groups_train).value_counts()
    return C_05 * float(np.sqrt((1 / n).sum() + (1 / m).sum()))


def _rmse(y, pred):
    return float(np.sqrt(np.mean((np.asarray(y, float) - pred) ** 2)))


def run_one(X, y, sensitive, make_model, seed):
    """Figures of one data set, model and seed."""
    X_fit, X_new, y_fit, y_new = train_test_split(
        X, y.to_numpy(float), test_size=0.3, random_state=seed
    )
    groups = X_new[sensitive].to_numpy()
    repair = ThresholdInvariantRegressor(
        make_model(X, sensitive), sensitive=sensitive, random_state=seed
    )
    repair.fit(X_fit, y_fit)
    base, fair = repair.estimator_.predict(X_new), repair.predict(X_new)
    row = {"bound": ks_bound(groups, X_fit[sensitive].to_numpy())}
    for kind, pred in (("before", base), ("after", fair)):
        row[f"KS {kind}"] = mcdp(None, pred, sensitive_features=groups)
        row[f"ABCC {kind}"] = abcc(None, pred, sensitive_features=groups)
        row[f"RMSE {kind}"] = _rmse(y_new, pred)
    return row


def print_bundled(seeds):
    """Print the table of the user guide, measured over ``seeds`` splits.

    One OpenMP thread: these are not timings, and gradient boosting's
    threads can slow down a hundredfold on a loaded machine.
    """
    with threadpool_limits(limits=1, user_api="openmp"):
        _print_bundled(seeds)


def _print_bundled(seeds):
    print(f"\n## Bundled data, 70/30 splits, mean over {seeds} seeds")
    print(
        "| data: target ~ groups | rows | model | KS before | KS after | "
        "5 % bound | ABCC before → after | RMSE before → after |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, load in DATASETS.items():
        X, y, sensitive = load()
        for model_name, make_model in MODELS.items():
            rows = [run_one(X, y, sensitive, make_model, s) for s in range(seeds)]
            m = pd.DataFrame(rows).mean()
            print(
                f"| {name} | {len(X):,} | {model_name} | {m['KS before']:.3f} | "
                f"{m['KS after']:.3f} | {m['bound']:.3f} | "
                f"{m['ABCC before']:.2f} → {m['ABCC after']:.2f} | "
                f"{m['RMSE before']:.2f} → {m['RMSE after']:.2f} |",
                flush=True,
            )
