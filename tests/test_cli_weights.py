"""``skfair audit --weight COL --exclude LABEL[=REASON]`` and the provenance note."""

import json

import numpy as np
import pandas as pd
import pytest

from skfair._cli import main

FAST = ["--n-resamples", "19"]


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_weight_and_exclude_reach_the_report(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "p": rng.random(n),
            "sex": rng.choice(["F", "M"], n),
            "age": rng.choice(["child", "adult"], n, p=[0.2, 0.8]),
            "w": rng.integers(1, 4, n),
        }
    )
    frame["y"] = (rng.random(n) < frame["p"]).astype(int)
    frame.loc[frame["age"] == "child", "y"] = 0
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", str(path), "--score", "p", "--label", "y"]
    argv += ["--sensitive", "sex", "age", "--weight", "w"]
    argv += ["--exclude", "child=no child has the outcome", "--output", str(out)]
    assert main([*argv, *FAST]) == 0
    report = json.loads(out.read_text())
    kept = frame[frame["age"] != "child"]
    assert report["summary"]["n_samples"] == kept["w"].sum()
    sizes = {g["group"]: g["size"] for g in report["groups"]}
    assert sizes["F"] == kept.loc[kept["sex"] == "F", "w"].sum()
    notes = " ".join(report["notes"])
    assert "reason: no child has the outcome" in notes
    assert "stand for" in notes
    p = report["provenance"]
    assert p["call"].startswith("skfair audit ")
    assert "--weight w" in p["call"] and "--exclude" in p["call"]
    assert p["n_rows"] == n and p["n_people"] == kept["w"].sum()  # audited
