"""Tests for the bundled data set loaders (skfair.datasets)."""

import gzip
import hashlib
import socket
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import Bunch
from sklearn.utils._param_validation import InvalidParameterError

from skfair.datasets import (
    load_adult,
    load_bank,
    load_compas,
    load_german_credit,
    load_hfm_dataset,
    load_ricci,
)
from skfair.datasets._base import _read_csv_cached, read_data_file

# name -> (loader, kwargs); "raw" and "hfm" variants of every data set.
LOADS = {
    "ricci_raw": (load_ricci, {}),
    "ricci_hfm": (load_ricci, {"preprocessing": "hfm"}),
    "credit_raw": (load_german_credit, {}),
    "credit_hfm": (load_german_credit, {"preprocessing": "hfm"}),
    "adult_raw": (load_adult, {}),
    "adult_hfm": (load_adult, {"preprocessing": "hfm"}),
    "ppr_raw": (load_compas, {}),
    "ppr_hfm": (load_compas, {"preprocessing": "hfm"}),
    "ppvr_raw": (load_compas, {"violent": True}),
    "ppvr_hfm": (load_compas, {"violent": True, "preprocessing": "hfm"}),
    "bank_raw": (load_bank, {}),
}

# The HFM paper's Table 1: rows, privileged members per attribute, and the joint
# counts (both attributes privileged / at least one privileged).
HFM_TABLE_1 = {
    "ricci": (118, {"race": 68}, None),
    "credit": (1000, {"sex": 690, "age": 851}, (625, 916)),
    "income": (30162, {"race": 25933, "sex": 20380}, (18038, 28275)),
    "ppr": (6167, {"sex": 4994, "race": 2100}, (1620, 5474)),
    "ppvr": (4010, {"sex": 3173, "race": 1452}, (1119, 3506)),
}
HFM_LOAD = {
    "ricci": "ricci_hfm",
    "credit": "credit_hfm",
    "income": "adult_hfm",
    "ppr": "ppr_hfm",
    "ppvr": "ppvr_hfm",
}

RAW_SHAPES = {
    "ricci_raw": (118, 4),
    "credit_raw": (1000, 22),
    "adult_raw": (48842, 14),
    "ppr_raw": (7214, 50),
    "ppvr_raw": (4743, 50),
    "bank_raw": (4521, 17),
}
POSITIVES = {
    "ricci_raw": 56,
    "ricci_hfm": 56,
    "credit_raw": 700,
    "credit_hfm": 700,
    "adult_raw": 11687,
    "adult_hfm": 7508,
    "ppr_raw": 3251,
    "ppr_hfm": 2809,
    "ppvr_hfm": 652,
    "bank_raw": 521,
}
SENSITIVE = {
    "ricci": ["race"],
    "credit": ["sex", "age"],
    "adult": ["race", "sex"],
    "ppr": ["race", "sex"],
    "ppvr": ["race", "sex"],
    "bank": ["age"],
}

# SHA-256 of the uncompressed CSV files as they were bundled (a file changed by
# accident, e.g. re-exported with other quoting, fails here).
CONTENT_SHA256 = {
    "adult.csv.gz": "d6362d8cb6d5ececd0b8bffc9db874989768ec3d10f2e9fb0df602f598cafb3f",
    "bank.csv.gz": "09de0bb208744ae3f9856b3cdf80c47bc249e651fb3f42d21aff19f927e61f5a",
    "compas_two_years.csv.gz": (
        "d180e410066da845eceb452417fbf8b119633f05526bcb29ef2c5b546d8946c5"
    ),
    "compas_two_years_violent.csv.gz": (
        "e226ab4c01e0998d1cca94e1a2bfb8a2f3482362f6021ab863da9bf78cab1edc"
    ),
    "german_credit.csv.gz": (
        "1b400bdf9119b3dcf0c02e4a27634783889cb2502f7bfcdd52b32fe0a43f9902"
    ),
    "ricci.csv.gz": "de684470b33027a600fe8cf520d166aba780338769a101015eb9c7787e6ac83e",
}


@pytest.fixture(scope="module")
def bunches():
    return {name: loader(**kwargs) for name, (loader, kwargs) in LOADS.items()}


def _dataset(name):
    return name.rsplit("_", 1)[0]


@pytest.mark.parametrize("file_name", sorted(CONTENT_SHA256))
def test_bundled_file_matches_manifest(file_name):
    path = resources.files("skfair.datasets") / "data" / file_name
    content = gzip.decompress(path.read_bytes())
    assert hashlib.sha256(content).hexdigest() == CONTENT_SHA256[file_name]


@pytest.mark.parametrize("hfm_name", sorted(HFM_TABLE_1))
def test_hfm_counts_match_table_1(bunches, hfm_name):
    n_rows, privileged_counts, joint = HFM_TABLE_1[hfm_name]
    bunch = bunches[HFM_LOAD[hfm_name]]
    assert bunch.data.shape[0] == n_rows
    is_privileged = pd.DataFrame(
        {col: bunch.sensitive[col] == label for col, label in bunch.privileged.items()}
    )
    assert is_privileged.sum().to_dict() == privileged_counts
    if joint is not None:
        assert int(is_privileged.all(axis=1).sum()) == joint[0]
        assert int(is_privileged.any(axis=1).sum()) == joint[1]


@pytest.mark.parametrize("name", sorted(RAW_SHAPES))
def test_raw_keeps_every_row(bunches, name):
    assert bunches[name].data.shape == RAW_SHAPES[name]


@pytest.mark.parametrize("name", sorted(POSITIVES))
def test_positive_class_counts(bunches, name):
    assert int(bunches[name].target.sum()) == POSITIVES[name]


@pytest.mark.parametrize("name", sorted(LOADS))
def test_bunch_structure(bunches, name):
    bunch = bunches[name]
    assert isinstance(bunch, Bunch)
    expected_keys = {
        "data",
        "target",
        "frame",
        "sensitive",
        "privileged",
        "feature_names",
        "target_names",
        "DESCR",
        "filename",
    }
    assert set(bunch) == expected_keys
    assert bunch.feature_names == list(bunch.data.columns)
    assert len(bunch.target_names) == 2
    assert bunch.DESCR.startswith(".. _")
    assert bunch.filename.endswith(".csv.gz")
    assert isinstance(bunch.data.index, pd.RangeIndex)
    assert bunch.target.index.equals(bunch.data.index)
    pd.testing.assert_frame_equal(
        bunch.frame, pd.concat([bunch.data, bunch.target], axis=1)
    )
    assert bunch.target.name not in bunch.data.columns


@pytest.mark.parametrize("name", sorted(LOADS))
def test_target_is_binary_int(bunches, name):
    target = bunches[name].target
    assert target.dtype == np.int64
    assert set(np.unique(target)) == {0, 1}


@pytest.mark.parametrize("name", sorted(LOADS))
def test_dtypes_are_explicit(bunches, name):
    data = bunches[name].data
    for col in data.columns[data.dtypes == np.dtype(object)]:
        # only pandas 2, which has no NaN-valued text dtype, gets `object` text:
        # then of str and NaN only (what pandas 3's `str` holds)
        assert int(pd.__version__.split(".", 1)[0]) < 3, col
        assert all(isinstance(v, str) for v in data[col].dropna()), col
        assert not any(v is pd.NA for v in data[col]), col
    for col in data.columns:
        dtype = data[col].dtype
        assert (
            isinstance(dtype, pd.CategoricalDtype)
            or pd.api.types.is_string_dtype(dtype)
            or pd.api.types.is_numeric_dtype(dtype)
        ), (col, dtype)
        if isinstance(dtype, pd.CategoricalDtype):
            assert not dtype.ordered
            # categories are the values present, as text
            assert set(dtype.categories) == set(data[col].dropna())
            assert pd.api.types.is_string_dtype(dtype.categories.dtype)


@pytest.mark.parametrize("name", sorted(LOADS))
def test_sensitive_columns(bunches, name):
    bunch = bunches[name]
    assert list(bunch.sensitive.columns) == SENSITIVE[_dataset(name)]
    assert list(bunch.privileged) == list(bunch.sensitive.columns)
    assert bunch.sensitive.index.equals(bunch.data.index)
    for col, label in bunch.privileged.items():
        # text, not categorical: groups absent from a CV fold must not be declared
        assert pd.api.types.is_string_dtype(bunch.sensitive[col].dtype)
        assert not isinstance(bunch.sensitive[col].dtype, pd.CategoricalDtype)
        assert bunch.sensitive[col].notna().all()
        assert label in set(bunch.sensitive[col])
        assert bunch.sensitive[col].nunique() >= 2
        pd.testing.assert_series_equal(bunch.data[col], bunch.sensitive[col])


@pytest.mark.parametrize("name", sorted(LOADS))
def test_return_X_y(bunches, name):
    loader, kwargs = LOADS[name]
    X, y = loader(return_X_y=True, **kwargs)
    pd.testing.assert_frame_equal(X, bunches[name].data)
    pd.testing.assert_series_equal(y, bunches[name].target)


def test_returned_frames_are_copies():
    X, _ = load_german_credit(return_X_y=True)
    X["duration_months"] = -1
    X.loc[0, "sex"] = "female"
    raw = read_data_file("german_credit.csv.gz")
    raw.loc[:, "age"] = 0
    fresh = load_german_credit()
    assert (fresh.data["duration_months"] > 0).all()
    assert fresh.data.loc[0, "sex"] == "male"
    assert fresh.data.loc[0, "age_years"] == 67


def test_loading_uses_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("skfair.datasets tried to open a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    _read_csv_cached.cache_clear()
    try:
        for loader, kwargs in LOADS.values():
            loader(**kwargs)
        for name in HFM_LOAD:
            load_hfm_dataset(name)
    finally:
        _read_csv_cached.cache_clear()


@pytest.mark.parametrize("hfm_name", sorted(HFM_LOAD))
def test_load_hfm_dataset_matches_loader(bunches, hfm_name):
    X, y = load_hfm_dataset(hfm_name, return_X_y=True)
    expected = bunches[HFM_LOAD[hfm_name]]
    pd.testing.assert_frame_equal(X, expected.data)
    pd.testing.assert_series_equal(y, expected.target)
    assert load_hfm_dataset(hfm_name).privileged == expected.privileged


@pytest.mark.parametrize(
    ("loader", "kwargs"),
    [
        (load_ricci, {"preprocessing": "clean"}),
        (load_ricci, {"keep_combine": "yes"}),
        (load_german_credit, {"preprocessing": None}),
        (load_adult, {"subset": "validation"}),
        (load_compas, {"violent": "yes"}),
        (load_bank, {"return_X_y": 1.5}),
        (load_hfm_dataset, {"name": "german"}),
    ],
)
def test_invalid_parameters(loader, kwargs):
    with pytest.raises(InvalidParameterError):
        loader(**kwargs)


# --- per data set -----------------------------------------------------------


def test_ricci_label_and_combine(bunches):
    raw, hfm = bunches["ricci_raw"], bunches["ricci_hfm"]
    assert "combine" not in raw.data.columns
    assert list(hfm.data.columns) == ["position", "oral", "written", "race", "combine"]
    np.testing.assert_array_equal(hfm.target, (hfm.data["combine"] >= 70).astype(int))
    assert hfm.target.name == "pass"
    assert hfm.target_names == ["fail", "pass"]
    assert sorted(raw.sensitive["race"].unique()) == ["B", "H", "W"]
    assert "combine" in load_ricci(keep_combine=True).data.columns
    hfm_no_leak = load_ricci(preprocessing="hfm", keep_combine=False)
    pd.testing.assert_frame_equal(hfm_no_leak.data, raw.data)


def test_german_credit_derived_attributes(bunches):
    raw = bunches["credit_raw"].data
    males = raw["personal_status_sex"].isin(["A91", "A93", "A94"])
    np.testing.assert_array_equal(raw["sex"] == "male", males)
    assert set(raw["sex"]) == {"male", "female"}
    np.testing.assert_array_equal(raw["age"] == "adult", raw["age_years"] >= 25)
    assert set(raw["age"]) == {"adult", "youth"}
    assert raw["age_years"].dtype == np.int64
    columns = list(raw.columns)
    assert columns.index("sex") == columns.index("personal_status_sex") + 1
    assert columns.index("age_years") == columns.index("age") + 1

    hfm = bunches["credit_hfm"].data
    assert "personal_status_sex" not in hfm.columns
    assert "age_years" not in hfm.columns
    pd.testing.assert_frame_equal(
        hfm, raw.drop(columns=["personal_status_sex", "age_years"])[hfm.columns]
    )
    assert bunches["credit_hfm"].target_names == ["bad", "good"]


def test_adult_subsets_and_hfm(bunches):
    raw = bunches["adult_raw"].data
    assert raw[
        ["workclass", "occupation", "native_country"]
    ].isna().sum().to_dict() == {
        "workclass": 2799,
        "occupation": 2809,
        "native_country": 857,
    }
    assert "split" not in raw.columns
    assert load_adult(subset="train").data.shape[0] == 32561
    assert load_adult(subset="test").data.shape[0] == 16281
    hfm_test = load_adult(preprocessing="hfm", subset="test")
    assert hfm_test.data.shape[0] == 15060
    hfm = bunches["adult_hfm"].data
    assert "fnlwgt" not in hfm.columns
    assert hfm.notna().all().all()
    assert set(hfm.columns) == set(raw.columns) - {"fnlwgt"}
    all_complete = load_adult(preprocessing="hfm", subset="all")
    assert all_complete.data.shape[0] == 30162 + 15060


def test_compas_columns(bunches):
    hfm_features = [
        "sex",
        "age",
        "age_cat",
        "race",
        "juv_fel_count",
        "juv_misd_count",
        "juv_other_count",
        "priors_count",
        "c_charge_degree",
        "c_charge_desc",
    ]
    for name in ["ppr", "ppvr"]:
        raw, hfm = bunches[f"{name}_raw"].data, bunches[f"{name}_hfm"].data
        assert list(hfm.columns) == hfm_features
        assert not any(col.endswith(".1") for col in raw.columns)
        assert "two_year_recid" not in raw.columns
        for col in ["decile_score", "score_text", "v_decile_score", "v_score_text"]:
            assert col in raw.columns
        assert raw.columns.is_unique
    # the violent file's literal "N/A" scores are missing values in "raw"
    assert int(bunches["ppvr_raw"].data["score_text"].isna().sum()) == 5
    assert int(bunches["ppr_raw"].data["score_text"].isna().sum()) == 0


@pytest.mark.parametrize(
    "file_name", ["compas_two_years.csv.gz", "compas_two_years_violent.csv.gz"]
)
def test_compas_duplicated_columns_are_equal(file_name):
    frame = read_data_file(file_name)
    duplicates = [col for col in frame.columns if col.endswith(".1")]
    assert duplicates
    for col in duplicates:
        pd.testing.assert_series_equal(
            frame[col], frame[col.removesuffix(".1")], check_names=False
        )


def test_compas_hfm_filter():
    # ProPublica's filter keeps 6172 / 4015 rows; the 5 empty c_charge_desc of
    # each file make the difference to the HFM counts.
    for violent, filtered in [(False, 6172), (True, 4015)]:
        raw = load_compas(violent=violent).data
        days = raw["days_b_screening_arrest"]
        keep = (
            days.between(-30, 30)
            & (raw["is_recid"] != -1)
            & (raw["c_charge_degree"] != "O")
            & raw["score_text"].notna()
        )
        assert int(keep.sum()) == filtered
        assert int((keep & raw["c_charge_desc"].isna()).sum()) == 5


def test_bank_age_groups(bunches):
    data = bunches["bank_raw"].data
    np.testing.assert_array_equal(data["age"] == ">25", data["age_years"] > 25)
    assert set(data["age"]) == {">25", "<=25"}
    columns = list(data.columns)
    assert columns.index("age_years") == columns.index("age") + 1
    assert bunches["bank_raw"].target.name == "y"
