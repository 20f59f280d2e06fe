"""Input handling shared by the ensembles (skfair.ensemble._base)."""

import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from skfair.ensemble import AdaFairClassifier, FairGBMClassifier
from skfair.ensemble._base import NON_FINITE_FEATURE_ERROR
from skfair.ensemble._fairgbm import FAIRGBM_MISSING_ERROR
from skfair.utils import SmallGroupWarning
from skfair.utils._group_encoding import CONTINUOUS_SENSITIVE_ERROR, NOT_WHOLE_REASON
from skfair.utils._groups import TOO_FEW_GROUPS_ERROR


def _make(cls, **params):
    if cls is FairGBMClassifier:
        pytest.importorskip("fairgbm")
        params.setdefault("n_jobs", 1)
    return cls(n_estimators=5, random_state=0, **params)


def _frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    frame = pd.DataFrame(
        {"x": x, "z": rng.normal(size=n), "sex": rng.choice(["f", "m"], n)}
    )
    return frame, (x + rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize("cls", [AdaFairClassifier, FairGBMClassifier])
def test_single_group_is_refused_like_the_metrics(cls):
    # issue 10 item 5
    X, y = _frame()
    X = X.assign(sex="f")
    message = TOO_FEW_GROUPS_ERROR.format(
        name="sex", n_groups=1, labels=["f"], n_samples=200
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        _make(cls, sensitive="sex").fit(X, y)


@pytest.mark.parametrize("cls", [AdaFairClassifier, FairGBMClassifier])
def test_continuous_sensitive_column_is_refused(cls):
    # issue 10 item 1: age in years is not a grouping
    X, y = _frame()
    X = X.drop(columns="sex").assign(
        age=np.random.default_rng(1).uniform(18, 90, 200).round(1)
    )
    clf = _make(cls, sensitive="age")
    with pytest.raises(ValueError, match=re.escape("looks continuous")) as info:
        clf.fit(X, y)
    n_groups = X["age"].nunique()
    assert str(info.value) == CONTINUOUS_SENSITIVE_ERROR.format(
        name="age", n_groups=n_groups, n_samples=200, reason=NOT_WHOLE_REASON
    )
    # binned, as the message says, it is accepted
    X["age"] = pd.cut(X["age"], bins=[0, 45, 150])
    assert len(clf.fit(X, y).groups_) == 2


@pytest.mark.parametrize("cls", [AdaFairClassifier, FairGBMClassifier])
def test_small_groups_warn_by_default_and_min_group_size_leaves_them_out(cls):
    # issue 10 item 2
    X, y = _frame()
    X.loc[:2, "sex"] = "x"  # three people
    with pytest.warns(SmallGroupWarning, match="'x'"):
        clf = _make(cls, sensitive="sex").fit(X, y)
    assert clf.groups_ == ("f", "m", "x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = _make(cls, sensitive="sex", min_group_size=30).fit(X, y)
    assert clf.groups_ == ("f", "m")
    with pytest.raises(ValueError, match="at least two groups"):
        _make(cls, sensitive="sex", min_group_size=150).fit(X, y)


@pytest.mark.parametrize("cls", [AdaFairClassifier, FairGBMClassifier])
@pytest.mark.parametrize("string_column", [False, True])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_features_are_refused_naming_the_column(cls, string_column, bad):
    # issue 10 item 12: the same error whether or not X holds a string column
    X, y = _frame()
    if not string_column:
        X["sex"] = (X["sex"] == "m").astype(float)
    X.loc[7, "z"] = bad
    message = NON_FINITE_FEATURE_ERROR.format(
        columns=["z"], row=7, estimator=cls.__name__
    )
    clf = _make(cls, sensitive="sex")
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.fit(X, y)
    X.loc[7, "z"] = 0.0
    clf.fit(X, y)
    X.loc[7, "z"] = bad
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.predict(X)


def test_fairgbm_n_jobs_zero_is_rejected_in_validation():
    # issue 10 item 12
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _frame()
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
        FairGBMClassifier(sensitive="sex", n_jobs=0).fit(X, y)


def test_fairgbm_without_fairgbm_says_so(monkeypatch):
    # issue 10 item 17: fairgbm ships Linux-only binaries
    monkeypatch.setitem(sys.modules, "fairgbm", None)
    X, y = _frame()
    message = FAIRGBM_MISSING_ERROR.format(platform=sys.platform)
    with pytest.raises(ImportError, match=re.escape(message)):
        FairGBMClassifier(sensitive="sex").fit(X, y)


def test_import_skfair_and_the_metrics_work_without_fairgbm():
    # issue 10 item 17
    code = (
        "import sys; sys.modules['fairgbm'] = None\n"
        "import skfair, skfair.ensemble, skfair.metrics\n"
        "from skfair.ensemble import AdaFairClassifier, FairGBMClassifier\n"
        "print(skfair.metrics.delta_dp([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.4],"
        " sensitive_features=[0, 0, 1, 1]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert float(out.stdout) == pytest.approx(0.15)
