"""``given=`` on frames: the engines filter on the label column (issue 37).

A lazy frame is filtered in its engine (``frame.filter``), a Dask frame per
partition, an eager frame's columns in memory; every result equals the
in-memory call with ``given`` (MCDP and ΔDP at a threshold bit-equal, ABCC
and ΔDP_c to rounding, as without ``given``).
"""

import re

import numpy as np
import pytest
from _frames import frame_on, make_rows

from skfair.metrics import abcc, delta_dp, mcdp, mcdp_curve, mcdp_details
from skfair.metrics._given import GIVEN_POS_LABEL_ERROR, GIVEN_Y_TRUE_ERROR

ENGINES = ["duckdb", "polars-lazy", "polars", "pandas", "dask"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("weights", [None, "int"])
@pytest.mark.parametrize("side", ["positive", "negative", "both"])
def test_given_on_frames_equals_in_memory(engine, weights, side, duckdb_connection):
    if engine == "dask" and weights is not None:
        pytest.skip("the Dask engine refuses weights (as without given)")
    df = make_rows(3, 500, 3, 2, weights)
    frame = frame_on(engine, df, duckdb_connection)
    w = None if weights is None else "w"
    mem = {
        "sensitive_features": df[["g", "h"]],
        "sample_weight": None if w is None else df["w"].to_numpy(),
        "given": side,
        "min_group_size": 1,
    }
    names = {"sensitive_features": ["g", "h"], "sample_weight": w, "given": side}
    names["min_group_size"] = 1
    for epsilon in (0.0, 0.05):
        got = mcdp("y", "score", epsilon=epsilon, data=frame, **names)
        assert got == mcdp(df["y"], df["score"], epsilon=epsilon, **mem)
    got = mcdp_details("y", "score", data=frame, **names)
    want = mcdp_details(df["y"], df["score"], **mem)
    assert (got.value, got.given, got.groups) == (want.value, want.given, want.groups)
    got = mcdp_curve("y", "score", epsilons=[0, 0.1], data=frame, **names)
    np.testing.assert_array_equal(
        got, mcdp_curve(df["y"], df["score"], epsilons=[0, 0.1], **mem)
    )
    for threshold in (None, 0.5):
        got = delta_dp("y", "score", threshold=threshold, data=frame, **names)
        want = delta_dp(df["y"], df["score"], threshold=threshold, **mem)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    got = abcc("y", "score", data=frame, **names)
    assert got == pytest.approx(abcc(df["y"], df["score"], **mem), rel=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy"])
def test_given_on_lazy_frames_errors(engine, duckdb_connection):
    df = make_rows(4, 100, 2, 2, None)
    frame = frame_on(engine, df, duckdb_connection)
    options = {"sensitive_features": "g", "data": frame, "min_group_size": 1}
    with pytest.raises(
        ValueError, match=re.escape(GIVEN_Y_TRUE_ERROR.format(given="positive"))
    ):
        mcdp(None, "score", given="positive", **options)
    message = GIVEN_POS_LABEL_ERROR.format(given="negative", pos_label=7, labels=[0, 1])
    with pytest.raises(ValueError, match=re.escape(message)):
        abcc("y", "score", given="negative", pos_label=7, **options)
    message = GIVEN_POS_LABEL_ERROR.format(
        given="positive", pos_label="1", labels=[0, 1]
    )
    with pytest.raises(ValueError, match=re.escape(message)):  # a string for ints
        delta_dp("y", "score", given="positive", pos_label="1", **options)
