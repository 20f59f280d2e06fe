"""The issue's acceptance check on Adult: each baseline lowers MCDP(0) against
ERM while keeping at least 95 % of ERM's average precision (one seed, the
benchmark's protocol, one weight of each method's benchmark grid)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score
from sklearn.model_selection import train_test_split

from skfair.datasets import load_adult
from skfair.inprocessing import AdversarialDebiasingClassifier, FairMLPClassifier
from skfair.metrics import mcdp

COMMON = {
    "sensitive": "sex",
    "learning_rate_init": 3e-3,
    "max_iter": 300,
    "lr_step_size": 100,
    "random_state": 0,
}


@pytest.fixture(scope="module")
def adult_split():
    frame = load_adult()
    X = frame.data.drop(columns="fnlwgt")
    y = np.asarray(frame.target)
    keep = X.notna().all(axis=1).to_numpy()
    X, y = X[keep].reset_index(drop=True), y[keep]
    sex = X.pop("sex").astype(str)
    numeric = X.select_dtypes("number").columns
    X = pd.get_dummies(X, dtype=np.float64)
    X["sex"] = sex
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, train_size=0.4, test_size=0.3, stratify=y, random_state=0
    )
    X_tr, X_te = X_tr.copy(), X_te.copy()
    mean, std = X_tr[numeric].mean(), X_tr[numeric].std(ddof=0)
    for part in (X_tr, X_te):
        part[numeric] = (part[numeric] - mean) / std
    return X_tr, X_te, y_tr, y_te


def _ap_and_gap(model, adult_split):
    X_tr, X_te, y_tr, y_te = adult_split
    score = model.fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
    return (
        average_precision_score(y_te, score),
        mcdp(y_te, score, sensitive_features=X_te["sex"]),
    )


@pytest.mark.slow
def test_baselines_lower_mcdp_at_95_percent_of_erm_ap(adult_split):
    erm_ap, erm_gap = _ap_and_gap(
        FairMLPClassifier(penalty=None, **COMMON), adult_split
    )
    models = {
        "AdvDebias": AdversarialDebiasingClassifier(
            adversary_weight=1.0, projection=False, **COMMON
        ),
        "FairMixup": FairMLPClassifier(penalty="mixup", fairness_weight=0.3, **COMMON),
        "DRAlign": FairMLPClassifier(penalty="dralign", fairness_weight=0.3, **COMMON),
    }
    for name, model in models.items():
        ap, gap = _ap_and_gap(model, adult_split)
        assert ap >= 0.95 * erm_ap, name
        assert gap < erm_gap - 0.02, name
