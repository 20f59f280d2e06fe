"""The audit on any dataframe library gives the pandas report (issue 20)."""

import numpy as np
import pandas as pd
import pytest

from skfair import audit

FAST = {"n_resamples": 19, "n_permutations": 19, "min_group_size": 1}


@pytest.fixture(scope="module")
def columns():
    rng = np.random.default_rng(0)
    n = 300
    sex = rng.choice(["f", "m"], n)
    race = rng.choice(["a", "b"], n)
    score = np.clip(rng.normal(0.5, 0.2, n) + 0.1 * (sex == "m"), 0, 1)
    y = (rng.random(n) < score).astype(int)
    return {"sex": sex, "race": race, "score": score, "y": y}


def test_audit_equals_pandas(columns, constructor):
    frame = constructor(columns)
    reference = pd.DataFrame(columns)
    got = audit(
        frame["y"], frame["score"], sensitive_features=frame[["sex", "race"]], **FAST
    ).to_dict()
    expected = audit(
        reference["y"],
        reference["score"],
        sensitive_features=reference[["sex", "race"]],
        **FAST,
    ).to_dict()
    # the same data, whatever the frame: the same checksum; only the date differs
    for out in (got, expected):
        out["provenance"].pop("date")
        assert out["notes"][-1].startswith("Provenance: ")
        out["notes"].pop()
    assert got == expected
    assert got["summary"]["attributes"] == ["sex", "race"]
