"""``audit(data=frame, y_true="col", y_score="col", sensitive_features=[...])``.

Eager frames' columns are taken out; a lazy frame is reduced to the named
columns in its engine and collected: the report equals the audit of the
same columns passed directly (the same numbers, to the last bit).
"""

import re

import numpy as np
import pytest
from _frames import frame_on, make_rows

from skfair.metrics._frame_arg import LAZY_MISSING_COLUMN_ERROR
from skfair.report import audit

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")
OPTIONS = {"n_resamples": 19, "n_permutations": 19, "min_group_size": 5}


def _same_audits(got, want):
    """Two audits' ``to_dict()`` equal but for the call and time they record."""
    got, want = got.to_dict(), want.to_dict()
    for d in (got, want):
        d["provenance"].pop("call"), d["provenance"].pop("date")
        d["notes"] = [n for n in d["notes"] if not n.startswith("Provenance:")]
    _same(got, want)


def _same(a, b):
    """Two ``to_dict()`` trees equal (NaN equal to NaN)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b)
    else:
        assert a == b


@pytest.mark.parametrize("engine", ["pandas", "polars", "polars-lazy", "duckdb"])
def test_audit_of_a_frame_equals_the_audit_of_its_columns(engine, duckdb_connection):
    df = make_rows(seed=8, n=400, n_groups=3, decimals=2, weights=None)
    frame = frame_on(engine, df, duckdb_connection)
    got = audit("y", "score", sensitive_features=["g", "h"], data=frame, **OPTIONS)
    want = audit(df["y"], df["score"], sensitive_features=df[["g", "h"]], **OPTIONS)
    _same_audits(got, want)


def test_audit_without_labels_and_errors(duckdb_connection):
    df = make_rows(seed=9, n=300, n_groups=2, decimals=None, weights=None)
    frame = frame_on("duckdb", df, duckdb_connection)
    got = audit(None, "score", sensitive_features="g", data=frame, **OPTIONS)
    want = audit(None, df["score"], sensitive_features=df["g"], **OPTIONS)
    _same_audits(got, want)
    message = LAZY_MISSING_COLUMN_ERROR.format(
        role="sensitive_features", name="race", columns=sorted(df.columns)
    )
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        audit(None, "score", sensitive_features=["g", "race"], data=frame)
    with pytest.raises(TypeError, match="y_score must be the name of a column"):
        audit(None, df["score"], sensitive_features="g", data=frame)
