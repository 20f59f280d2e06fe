"""``python -m skfair audit --engine duckdb``: the metrics computed inside DuckDB.

Parquet pieces written to ``tmp_path`` are scanned by a glob; every number
written is compared with the public in-memory function on the same rows:
bit-equal for MCDP, ΔDP at the threshold, the rates and fairlearn's
differences and ratios, to rounding for ABCC and ΔDP_c.
"""

import json

import numpy as np
import pandas as pd
import pytest

import skfair.metrics as M
from skfair._cli import main
from skfair._cli._engine import (
    ENGINE_OPTION_ERROR,
    ENGINE_OUTPUT_ERROR,
)
from skfair.metrics._rates import group_rates

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

SENS = ["sex", "race"]


@pytest.fixture
def parquet_glob(tmp_path):
    rng = np.random.default_rng(7)
    n = 3000
    sex = rng.choice(np.array(["f", "m"], dtype=object), n).astype(str)
    race = rng.integers(0, 3, n)
    score = np.round(rng.beta(2 + race, 3.0), 3)  # ties
    frame = pd.DataFrame(
        {
            "score": score,
            "sex": sex,
            "race": race,
            "y": (rng.random(n) < score).astype(np.int64),
        }
    )
    folder = tmp_path / "preds"
    folder.mkdir()
    for k in range(3):
        frame.iloc[k::3].to_parquet(folder / f"part-{k}.parquet")
    # the rows in the order DuckDB reads them does not matter: every metric
    # is order-free
    return str(folder / "*.parquet"), frame


def _run(pattern, tmp_path, *extra, output="m.json"):
    out = tmp_path / output
    argv = ["audit", "--engine", "duckdb", "--predictions", pattern]
    argv += ["--score", "score", "--sensitive", *SENS, *extra, "--output", str(out)]
    assert main(argv) == 0
    return out


def test_numbers_equal_the_in_memory_functions(parquet_glob, tmp_path, capsys):
    pattern, df = parquet_glob
    extra = ["--label", "y", "--threshold", "0.4", "--epsilon", "0.1"]
    out = _run(pattern, tmp_path, *extra, "--min-group-size", "5")
    got = json.loads(out.read_text())
    assert capsys.readouterr().out.startswith("# Fairness metrics of")
    sens = df[SENS]
    common = {"sensitive_features": sens, "min_group_size": 5}
    pred = (df["score"] >= 0.4).astype(int)
    metrics = got["metrics"]
    assert metrics["mcdp(0)"] == M.mcdp(None, df["score"], **common)
    assert metrics["mcdp(0.1)"] == M.mcdp(None, df["score"], epsilon=0.1, **common)
    assert metrics["delta_dp@0.4"] == M.delta_dp(
        None, df["score"], threshold=0.4, **common
    )
    assert metrics["abcc"] == pytest.approx(M.abcc(None, df["score"], **common))
    assert metrics["delta_dp"] == pytest.approx(M.delta_dp(None, df["score"], **common))
    for name in (
        "demographic_parity_difference",
        "demographic_parity_ratio",
        "equalized_odds_difference",
        "equalized_odds_ratio",
    ):
        assert metrics[name] == getattr(M, name)(df["y"], pred, **common)
    names = ["selection_rate", "true_positive_rate", "false_positive_rate"]
    values, overall, grouping = group_rates(
        names, df["y"], pred, pos_label=1, sample_weight=None, **common
    )
    assert [row["group"] for row in got["groups"]] == [
        " & ".join(map(str, label)) for label in grouping.labels
    ]
    assert [row["n"] for row in got["groups"]] == grouping.counts().tolist()
    assert [[row[r] for r in names] for row in got["groups"]] == values.tolist()
    assert [got["overall"][r] for r in names] == overall.tolist()
    assert got["n_samples"] == len(df)


def test_markdown_without_labels(parquet_glob, tmp_path, capsys):
    pattern, df = parquet_glob
    out = _run(pattern, tmp_path, output="m.md")
    text = out.read_text()
    assert text == capsys.readouterr().out
    assert "| mcdp(0.05) |" in text and "equalized_odds" not in text
    expected = M.demographic_parity_difference(
        df["score"] >= 0.5, df["score"] >= 0.5, sensitive_features=df[SENS]
    )
    assert f"| demographic_parity_difference | {expected:.6g} |" in text


def _error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_clear_errors(parquet_glob, tmp_path, capsys):
    pattern, _ = parquet_glob
    base = ["audit", "--engine", "duckdb", "--predictions", pattern, "--score"]
    html = str(tmp_path / "r.html")
    err = _error(capsys, [*base, "score", "--sensitive", "sex", "--output", html])
    assert err.endswith(
        ENGINE_OUTPUT_ERROR.format(path=html) + " (see skfair audit --help)"
    )
    out = str(tmp_path / "m.json")
    err = _error(
        capsys,
        [*base, "score", "--sensitive", "sex", "--bins", "race=q2", "--output", out],
    )
    assert ENGINE_OPTION_ERROR.format(option="--bins") in err
    err = _error(capsys, [*base, "nope", "--sensitive", "sex", "--output", out])
    assert "column(s) ['nope'] not in" in err
    missing = str(tmp_path / "none" / "*.parquet")
    err = _error(
        capsys,
        ["audit", "--engine", "duckdb", "--predictions", missing, "--score", "score"]
        + ["--sensitive", "sex", "--output", out],
    )
    assert "No file matches" in err
    err = _error(
        capsys,
        [*base, "score", "--sensitive", "sex", "--threshold", "2", "--output", out],
    )
    assert "--threshold: must be in [0, 1]" in err
