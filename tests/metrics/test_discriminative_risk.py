"""Discriminative risk (HFM paper, footnote 7) and its disturbance."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from skfair.metrics._discriminative_risk import (
    NO_PREDICT_ERROR,
    NO_UNPRIVILEGED_ERROR,
    _disturb,
    discriminative_risk,
)
from skfair.utils import SmallGroupWarning
from skfair.utils._groups import PRIVILEGED_UNKNOWN_ERROR
from skfair.utils._sensitive_spec import PRIVILEGED_KEYS_ERROR, PRIVILEGED_TYPE_ERROR

# Most cases compare a handful of samples on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


class ColumnIsPrivileged(ClassifierMixin, BaseEstimator):
    """Predicts whether column ``column`` holds ``value`` (no fitting needed)."""

    def __init__(self, column=0, value=1):
        self.column = column
        self.value = value

    def predict(self, X):
        col = (
            X.iloc[:, self.column]
            if hasattr(X, "iloc")
            else np.asarray(X)[:, self.column]
        )
        return (np.asarray(col) == self.value).astype(int)


class ColumnValue(ClassifierMixin, BaseEstimator):
    """Predicts the value of column ``column`` itself."""

    def __init__(self, column=0):
        self.column = column

    def predict(self, X):
        return np.asarray(
            X.iloc[:, self.column] if hasattr(X, "iloc") else X[:, self.column]
        )


def data(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "x": rng.random(n),
            "sex": rng.choice(["f", "m"], n),
            "race": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
        }
    )


def test_extreme_ratios():
    X = np.array([[0, 0.1], [0, 0.9], [1, 0.2], [1, 0.8]])
    model = ColumnIsPrivileged(column=0, value=1)
    assert discriminative_risk(model, X, sensitive=0, privileged=1, ratio=1.0) == 1.0
    assert discriminative_risk(model, X, sensitive=0, privileged=1, ratio=0.0) == 0.0


def test_every_disturbance_changes_privilege_so_dr_is_the_flip_rate():
    # A model that looks only at privilege: DR = share of disturbed samples.
    X = data()
    model = ColumnIsPrivileged(column=1, value="m")
    dr = discriminative_risk(model, X, sensitive="sex", privileged="m", random_state=0)
    assert dr == pytest.approx(0.97, abs=0.01)
    dr = discriminative_risk(
        model, X, sensitive="sex", privileged="m", ratio=0.3, random_state=0
    )
    assert dr == pytest.approx(0.3, abs=0.015)


def test_disturbance_follows_the_reference_rule():
    X = data()
    rng = np.random.RandomState(0)
    options = {"ratio": 0.5, "rng": rng, "min_group_size": None}
    out, _ = _disturb(X, [1, 2], ["sex", "race"], ["m", "b"], options)
    pd.testing.assert_series_equal(out["x"], X["x"])
    assert out["race"].dtype == X["race"].dtype
    assert out["sex"].dtype == X["sex"].dtype
    for col, priv in (("sex", "m"), ("race", "b")):
        changed = out[col] != X[col]
        assert changed.mean() == pytest.approx(0.5, abs=0.02)
        # Non-privileged values become privileged ...
        moved = changed & (X[col] != priv)
        assert (out.loc[moved, col] == priv).all()
        # ... and privileged ones a uniformly drawn non-privileged value.
        demoted = out.loc[changed & (X[col] == priv), col]
        assert (demoted != priv).all()
        shares = demoted.value_counts(normalize=True)
        others = sorted(set(X[col]) - {priv})
        assert sorted(shares.index[shares > 0]) == others
        assert shares[shares > 0].to_numpy() == pytest.approx(
            np.full(len(others), 1 / len(others)), abs=0.03
        )
    # The columns are disturbed independently of each other.
    both = (out["sex"] != X["sex"]) & (out["race"] != X["race"])
    assert both.mean() == pytest.approx(0.25, abs=0.02)


def test_reproducible_with_random_state():
    X = data(2000)
    model = ColumnValue(column=2)
    kw = {
        "sensitive": ["sex", "race"],
        "privileged": {"sex": "m", "race": "a"},
        "ratio": 0.5,
    }
    first = discriminative_risk(model, X, random_state=3, **kw)
    assert discriminative_risk(model, X, random_state=3, **kw) == first
    assert (
        discriminative_risk(model, X, random_state=np.random.RandomState(3), **kw)
        == first
    )
    assert (
        len({discriminative_risk(model, X, random_state=s, **kw) for s in range(5)}) > 1
    )


def test_pipeline_with_string_and_categorical_columns():
    X = data(500)
    y = ((X["sex"] == "m") & (X["x"] > 0.3) | (X["race"] == "c")).astype(int)
    model = make_pipeline(
        make_column_transformer(
            (OneHotEncoder(), ["sex", "race"]), remainder="passthrough"
        ),
        LogisticRegression(),
    ).fit(X, y)
    dr = discriminative_risk(
        model,
        X,
        sensitive=["sex", "race"],
        privileged={"sex": "m", "race": "a"},
        random_state=0,
    )
    assert 0.0 < dr < 1.0
    # A model that ignores the sensitive columns has no discriminative risk.
    blind = make_pipeline(
        make_column_transformer(("passthrough", ["x"])), LogisticRegression()
    ).fit(X, y)
    assert (
        discriminative_risk(
            blind,
            X,
            sensitive=["sex", "race"],
            privileged={"sex": "m", "race": "a"},
            random_state=0,
        )
        == 0.0
    )


def test_unused_categories_are_never_drawn():
    X = data(3000)
    X["race"] = X["race"].cat.add_categories(["unused"])
    options = {"ratio": 1.0, "rng": np.random.RandomState(0), "min_group_size": None}
    out, _ = _disturb(X, [2], ["race"], ["a"], options)
    assert out["race"].dtype == X["race"].dtype
    assert set(out["race"]) == {"a", "b", "c", "d"}


def test_array_with_integer_columns():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.random(1000), rng.integers(0, 3, 1000)])
    model = ColumnValue(column=1)
    by_index = discriminative_risk(model, X, sensitive=1, privileged=2, random_state=0)
    by_negative = discriminative_risk(
        model, X, sensitive=-1, privileged=2, random_state=0
    )
    by_dict = discriminative_risk(
        model, X, sensitive=[1], privileged={1: 2}, random_state=0
    )
    assert by_index == by_negative == by_dict
    assert 0.9 < by_index < 1.0


def test_errors():
    X = data(50)
    model = ColumnValue(column=1)
    with pytest.raises(ValueError, match="privileged='x' is not a group"):
        discriminative_risk(model, X, sensitive="sex", privileged="x")
    assert "{labels}" in PRIVILEGED_UNKNOWN_ERROR
    only_m = X.assign(sex="m")
    with pytest.raises(ValueError, match="holds only its privileged value"):
        discriminative_risk(model, only_m, sensitive="sex", privileged="m")
    assert "{column!r}" in NO_UNPRIVILEGED_ERROR
    with pytest.raises(ValueError, match="exactly the sensitive columns"):
        discriminative_risk(
            model, X, sensitive=["sex", "race"], privileged={"sex": "m"}
        )
    assert "{expected}" in PRIVILEGED_KEYS_ERROR
    with pytest.raises(TypeError, match="a single value when there is one"):
        discriminative_risk(model, X, sensitive=["sex", "race"], privileged="m")
    assert "{privileged!r}" in PRIVILEGED_TYPE_ERROR
    with pytest.raises(ValueError, match="ratio must be a real number"):
        discriminative_risk(model, X, sensitive="sex", privileged="m", ratio=1.5)
    with pytest.raises(TypeError, match="predict"):
        discriminative_risk(object(), X, sensitive="sex", privileged="m")
    assert "{kind}" in NO_PREDICT_ERROR
    with pytest.raises(ValueError, match="names columns"):
        discriminative_risk(model, X.to_numpy(), sensitive="sex", privileged="m")
    with pytest.raises(ValueError, match="missing value"):
        discriminative_risk(
            model, X.assign(sex=[None] + ["m"] * 49), sensitive="sex", privileged="m"
        )


def test_sample_weight_and_min_group_size():
    X = data(200)
    model = ColumnValue(column=1)
    # ratio=1 with two values: every sample changes group and prediction.
    assert (
        discriminative_risk(
            model,
            X,
            sensitive="sex",
            privileged="m",
            ratio=1.0,
            sample_weight=np.arange(200.0),
        )
        == 1.0
    )
    keep = discriminative_risk(
        model,
        X,
        sensitive="sex",
        privileged="m",
        ratio=0.5,
        random_state=0,
        sample_weight=np.ones(200),
    )
    assert keep == discriminative_risk(
        model, X, sensitive="sex", privileged="m", ratio=0.5, random_state=0
    )
    with pytest.raises(ValueError, match="sample_weight has 3 and X has 200"):
        discriminative_risk(model, X, sensitive="sex", sample_weight=[1, 2, 3])
    # privileged=None: the most frequent value.
    top = X["sex"].value_counts().idxmax()
    assert discriminative_risk(model, X, sensitive="sex", random_state=1) == (
        discriminative_risk(model, X, sensitive="sex", privileged=top, random_state=1)
    )


@pytest.mark.filterwarnings("error::skfair.utils.SmallGroupWarning")
def test_min_group_size_leaves_rare_values_out():
    X = pd.DataFrame({"x": np.zeros(62), "s": ["a"] * 30 + ["b"] * 30 + ["c"] * 2})
    model = ColumnIsPrivileged(column=1, value="a")
    with pytest.warns(SmallGroupWarning, match=r"'c' \(2 samples\)"):
        discriminative_risk(model, X, sensitive="s", privileged="a", ratio=1.0)
    # ratio=1: "b" samples become "a" (prediction changes), "a" samples are
    # drawn into "b" only ("c" is left out), so every kept prediction changes.
    rng_free = discriminative_risk(
        model, X, sensitive="s", privileged="a", ratio=1.0, min_group_size=30
    )
    assert rng_free == 1.0
    disturbed, kept = _disturb(
        X,
        [1],
        ["s"],
        ["a"],
        {"ratio": 1.0, "rng": np.random.RandomState(0), "min_group_size": 30},
    )
    assert kept.tolist() == [True] * 60 + [False] * 2
    assert disturbed["s"].tolist() == ["b"] * 30 + ["a"] * 30 + ["c"] * 2


@pytest.mark.parametrize("kind", ["int", "bool"])
def test_numeric_and_boolean_sensitive_columns_in_every_library(constructor, kind):
    # polars refused to cast the disturbed labels ("cannot cast 'Object' type")
    rng = np.random.default_rng(0)
    n = 400
    codes = rng.integers(0, 3, n)
    sensitive = codes if kind == "int" else codes > 0
    x = rng.normal(size=n)
    y = (x + codes > 1.0).astype(int)
    columns = {"x": x, "s": sensitive}
    model = LogisticRegression().fit(pd.DataFrame(columns).to_numpy(float), y)

    class OnValues(ClassifierMixin, BaseEstimator):
        def predict(self, X):
            values = np.column_stack([np.asarray(X[name]) for name in ("x", "s")])
            return model.predict(values.astype(float))

    X = constructor(columns)
    dr = discriminative_risk(OnValues(), X, sensitive="s", random_state=0)
    expected = discriminative_risk(
        OnValues(), pd.DataFrame(columns), sensitive="s", random_state=0
    )
    assert dr == expected
    assert 0.0 < dr < 1.0


def test_huge_weights_give_the_unweighted_share():
    # weights of 1e308 summed to infinity: np.average returned NaN
    X = data(300)
    model = ColumnValue(column=1)  # predicts the "sex" column itself
    options = {"sensitive": "sex", "privileged": "m", "random_state": 0}
    plain = discriminative_risk(model, X, **options)
    huge = discriminative_risk(model, X, sample_weight=np.full(300, 1e308), **options)
    assert huge == pytest.approx(plain) and 0.0 < plain < 1.0
