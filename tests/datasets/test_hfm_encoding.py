"""The HFM paper's feature encoding (skfair.model_selection.make_hfm_encoder)
on the bundled data sets."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline

from skfair.datasets import load_adult, load_german_credit, load_hfm_dataset
from skfair.model_selection import make_hfm_encoder

# Non-sensitive encoded columns; the HFM paper's Table 1 "processed" features are
# these plus one column per sensitive attribute: 6, 58, 98, 401, 327.
EXPECTED_COLUMNS = {"ricci": 5, "credit": 56, "income": 96, "ppr": 399, "ppvr": 325}
PAPER_PROCESSED = {"ricci": 6, "credit": 58, "income": 98, "ppr": 401, "ppvr": 327}


@pytest.fixture(scope="module")
def hfm_bunches():
    return {name: load_hfm_dataset(name) for name in EXPECTED_COLUMNS}


@pytest.mark.parametrize("name", sorted(EXPECTED_COLUMNS))
def test_column_counts_match_paper(hfm_bunches, name):
    bunch = hfm_bunches[name]
    encoder = make_hfm_encoder(list(bunch.sensitive))
    Xt = encoder.fit_transform(bunch.data)
    assert Xt.shape == (bunch.data.shape[0], EXPECTED_COLUMNS[name])
    assert Xt.shape[1] + bunch.sensitive.shape[1] == PAPER_PROCESSED[name]
    assert isinstance(Xt, np.ndarray)
    assert Xt.dtype == np.float64
    assert np.isfinite(Xt).all()
    assert Xt.min() == 0.0
    assert Xt.max() == 1.0
    names = encoder.get_feature_names_out()
    assert len(names) == Xt.shape[1]
    for col in bunch.sensitive.columns:
        assert f"numeric__{col}" not in names
        assert not any(f.startswith(f"categorical__{col}_") for f in names)


def test_column_choice_fnlwgt():
    # With the sampling weight fnlwgt the Adult encoding has one column too many.
    raw_train = load_adult(subset="train")
    X = raw_train.data.dropna()
    assert make_hfm_encoder(["race", "sex"]).fit_transform(X).shape[1] == (
        EXPECTED_COLUMNS["income"] + 1
    )


def test_column_choice_german_raw():
    # personal_status_sex (4 codes) and age_years would add 5 columns.
    raw = load_german_credit()
    Xt = make_hfm_encoder(list(raw.sensitive)).fit_transform(raw.data)
    assert Xt.shape[1] == EXPECTED_COLUMNS["credit"] + 4 + 1


def test_encoder_structure(hfm_bunches):
    bunch = hfm_bunches["ppr"]
    encoder = make_hfm_encoder(list(bunch.sensitive)).fit(bunch.data)
    assert isinstance(encoder, ColumnTransformer)
    columns = {name: cols for name, _, cols in encoder.transformers_}
    assert columns["sensitive"] == ["race", "sex"]
    assert columns["numeric"] == [
        "age",
        "juv_fel_count",
        "juv_misd_count",
        "juv_other_count",
        "priors_count",
    ]
    assert columns["categorical"] == ["age_cat", "c_charge_degree", "c_charge_desc"]


def test_clone_and_pickle(hfm_bunches):
    bunch = hfm_bunches["credit"]
    encoder = make_hfm_encoder(list(bunch.sensitive))
    cloned = clone(encoder)
    assert cloned.get_params().keys() == encoder.get_params().keys()
    fitted = pickle.loads(pickle.dumps(clone(encoder).fit(bunch.data)))
    np.testing.assert_array_equal(
        fitted.transform(bunch.data), encoder.fit_transform(bunch.data)
    )


def test_sensitive_argument(hfm_bunches):
    bunch = hfm_bunches["credit"]
    as_str = make_hfm_encoder("sex").fit_transform(bunch.data)
    # the age group is then one-hot encoded (2 columns)
    assert as_str.shape[1] == EXPECTED_COLUMNS["credit"] + 2
    keep_all = make_hfm_encoder([]).fit_transform(bunch.data)
    assert keep_all.shape[1] == EXPECTED_COLUMNS["credit"] + 4
    with pytest.raises(ValueError, match="gender"):
        make_hfm_encoder(["gender"]).fit(bunch.data)
    numbers = bunch.data.select_dtypes("number").to_numpy()
    scaled = make_hfm_encoder([0]).fit_transform(numbers)
    np.testing.assert_allclose(scaled.min(axis=0), 0.0)
    assert scaled.shape[1] == numbers.shape[1] - 1


def test_unseen_categories_are_zeros(hfm_bunches):
    data = hfm_bunches["credit"].data
    encoder = make_hfm_encoder(["sex", "age"]).fit(data)
    row = data.iloc[[0]].copy()
    row["purpose"] = pd.Series(["A47"], index=row.index, dtype="category")
    Xt = encoder.transform(row)
    names = encoder.get_feature_names_out()
    purpose = np.array([n.startswith("categorical__purpose_") for n in names])
    assert (Xt[0, purpose] == 0).all()


def test_pipeline_cross_val_score_on_german_credit(hfm_bunches):
    bunch = hfm_bunches["credit"]
    model = make_pipeline(
        make_hfm_encoder(list(bunch.sensitive)), LogisticRegression(solver="liblinear")
    )
    scores = cross_val_score(model, bunch.data, bunch.target, cv=5)
    assert scores.shape == (5,)
    assert np.all(scores > 0.6)


def test_cross_validate_with_rare_categories(hfm_bunches):
    # ppvr's c_charge_desc has many values seen in one fold only.
    bunch = hfm_bunches["ppvr"]
    model = make_pipeline(
        make_hfm_encoder(list(bunch.sensitive)), LogisticRegression(solver="liblinear")
    )
    result = cross_validate(
        model, bunch.data, bunch.target, cv=5, scoring="roc_auc", error_score="raise"
    )
    assert np.all(result["test_score"] > 0.5)
