"""``python -m skfair audit``."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from skfair._cli import main
from skfair._cli._audit import (
    BOTH_INPUTS_ERROR,
    DATASET_COLUMNS_ERROR,
    NEEDS_COLUMNS_ERROR,
    NO_INPUT_ERROR,
)

FAST = ["--n-resamples", "19"]


@pytest.fixture
def predictions(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    group = np.repeat(["a", "b"], n // 2)
    score = np.r_[rng.beta(2, 5, n // 2), rng.beta(3, 4, n // 2)]
    frame = pd.DataFrame(
        {
            "proba": score,
            "sex": group,
            "race": rng.choice(["x", "y"], n),
            "label": (rng.random(n) < score).astype(int),
        }
    )
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    return err[-1]  # argparse prints the usage, then one line with the error


def test_csv_to_json_matches_the_python_audit(predictions, tmp_path):
    from skfair.report import audit

    path, frame = predictions
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    argv += ["--sensitive", "sex", "--label", "label", *FAST, "--output", str(out)]
    assert main(argv) == 0
    got = json.loads(out.read_text())
    expected = audit(
        frame["label"],
        frame["proba"],
        sensitive_features=frame[["sex"]],
        n_resamples=19,
        random_state=0,
    ).to_dict()
    assert got["metrics"] == json.loads(json.dumps(expected["metrics"]))
    assert got["groups"] == json.loads(json.dumps(expected["groups"]))


def test_parquet_two_attributes_to_markdown(predictions, tmp_path):
    _path, frame = predictions
    parquet = tmp_path / "preds.parquet"
    frame.to_parquet(parquet)
    out = tmp_path / "r.md"
    argv = ["audit", "--predictions", str(parquet), "--score", "proba"]
    argv += ["--sensitive", "sex", "race", "--threshold", "0.3", *FAST]
    assert main([*argv, "--output", str(out)]) == 0
    text = out.read_text()
    assert "sex & race" in text and "0.3" in text


def test_html_output(predictions, tmp_path):
    pytest.importorskip("matplotlib")
    path, _ = predictions
    out = tmp_path / "r.html"
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    argv += ["--sensitive", "sex", "--label", "label", *FAST, "--output", str(out)]
    assert main(argv) == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<img") == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--output", "r.html"], NO_INPUT_ERROR),
        (
            ["--dataset", "ricci", "--predictions", "p.csv", "--output", "r.html"],
            BOTH_INPUTS_ERROR,
        ),
        (
            ["--dataset", "ricci", "--score", "p", "--output", "r.html"],
            DATASET_COLUMNS_ERROR,
        ),
        (["--predictions", "{csv}", "--output", "r.html"], NEEDS_COLUMNS_ERROR),
        (["--dataset", "ricci", "--output", "r.pdf"], "must end in .html"),
        (
            ["--dataset", "ricci", "--output", "/no/such/folder/r.html"],
            "does not exist",
        ),
        (
            ["--dataset", "ricci", "--threshold", "1.5", "--output", "r.html"],
            "must be in [0, 1]",
        ),
        (
            ["--dataset", "ricci", "--epsilon", "0", "--output", "r.html"],
            "must be in (0, 1)",
        ),
        (["--dataset", "ricci", "--n-resamples", "0", "--output", "r.html"], ">= 1"),
        (
            ["--dataset", "ricci", "--sensitive", "sex", "--output", "r.html"],
            "not a sensitive",
        ),
        (["--dataset", "nope", "--output", "r.html"], "invalid choice"),
        (
            [
                "--predictions",
                "missing.csv",
                "--score",
                "p",
                "--sensitive",
                "g",
                "--output",
                "r.html",
            ],
            "does not exist",
        ),
        (
            [
                "--predictions",
                "{txt}",
                "--score",
                "p",
                "--sensitive",
                "g",
                "--output",
                "r.html",
            ],
            "cannot tell the format",
        ),
        (
            [
                "--predictions",
                "{csv}",
                "--score",
                "score",
                "--sensitive",
                "sex",
                "--output",
                "r.html",
            ],
            "argument --score: column(s) ['score'] not in",
        ),
        (
            [
                "--predictions",
                "{csv}",
                "--score",
                "proba",
                "--sensitive",
                "sex",
                "age",
                "--output",
                "r.html",
            ],
            "argument --sensitive: column(s) ['age'] not in",
        ),
        (
            [
                "--predictions",
                "{csv}",
                "--score",
                "proba",
                "--sensitive",
                "sex",
                "--label",
                "y",
                "--output",
                "r.html",
            ],
            "argument --label: column(s) ['y'] not in",
        ),
    ],
)
def test_argument_errors_exit_2_with_one_line(
    argv, message, predictions, tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    path, _ = predictions
    (tmp_path / "p.txt").write_text("x")
    argv = [a.format(csv=path, txt=tmp_path / "p.txt") for a in argv]
    line = _error(capsys, ["audit", *argv])
    assert line.startswith("skfair audit: error: ")
    assert message in line
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"proba": np.nan}, "y_score contains NaN"),
        ({"proba": 1.5}, "y_score must lie in [0, 1]"),
        ({"sex": "a"}, "at least two groups are needed"),
        ({"label": 2}, "exactly two classes"),
    ],
)
def test_bad_data_exit_2_with_one_line(change, message, predictions, tmp_path, capsys):
    path, frame = predictions
    frame = frame.copy()
    for column, value in change.items():
        if column == "sex":
            frame[column] = value
        else:
            frame.loc[3, column] = value
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    argv += [
        "--sensitive",
        "sex",
        "--label",
        "label",
        "--output",
        str(tmp_path / "r.json"),
    ]
    line = _error(capsys, argv)
    assert str(path) in line and message in line


def test_dataset_demo_through_python_m(tmp_path):
    out = tmp_path / "ricci.md"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "skfair",
            "audit",
            "--dataset",
            "ricci",
            *FAST,
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "wrote" in run.stderr
    text = out.read_text()
    assert "ricci: logistic regression" in text and "## HFM" in text


def test_min_group_size_option(tmp_path):
    from skfair.report import audit

    rng = np.random.default_rng(1)
    group = np.r_[np.repeat(["a", "b"], 100), ["c"] * 4]
    score = rng.random(group.size)
    frame = pd.DataFrame({"proba": score, "g": group})
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    argv += ["--sensitive", "g", *FAST, "--output", str(out)]
    assert main([*argv, "--min-group-size", "5"]) == 0
    got = json.loads(out.read_text())
    assert got["summary"]["min_group_size"] == 5
    assert [row["group"] for row in got["groups"]] == ["a", "b"]
    expected = audit(
        None,
        frame["proba"],
        sensitive_features=frame[["g"]],
        n_resamples=19,
        random_state=0,
        min_group_size=5,
    ).to_dict()
    assert got["metrics"] == json.loads(json.dumps(expected["metrics"]))


def test_min_group_size_option_is_validated(predictions, capsys):
    path, _ = predictions
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    argv += ["--sensitive", "sex", "--output", "r.html", "--min-group-size", "0"]
    assert "--min-group-size: must be an integer >= 1" in _error(capsys, argv)
