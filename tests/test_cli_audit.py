"""``python -m skfair audit``."""

import ast
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
from skfair._cli._groups import ONE_GROUP_ERROR
from skfair.utils._labels import parse_group_label

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


def test_one_group_is_named_without_cross_validation_advice(
    predictions, tmp_path, capsys
):
    path, frame = predictions
    frame.assign(sex="a").to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    line = _error(capsys, [*argv, "--sensitive", "sex", "--output", "r.json"])
    expected = ONE_GROUP_ERROR.format(name="sex", group="a", size=200)
    assert line == f"skfair audit: error: {expected} (see skfair audit --help)"
    assert "at least two groups are needed" in line and "fold" not in line


# unusual input ---------------------------------------------------------------


@pytest.fixture(params=["polars", "pandas"])
def reader(request, monkeypatch):
    """Read files with polars, or with pandas (polars blocked)."""
    if request.param == "polars":
        pytest.importorskip("polars")
    else:
        monkeypatch.setitem(sys.modules, "polars", None)
    return request.param


def _run(tmp_path, path, *options, output="r.json"):
    out = tmp_path / output
    argv = ["audit", "--predictions", str(path), "--score", "p", *options, *FAST]
    assert main([*argv, "--output", str(out)]) == 0
    return json.loads(out.read_text()) if output.endswith(".json") else None


def test_group_labels_are_read_as_written(reader, tmp_path):
    rng = np.random.default_rng(3)
    codes = np.repeat(["01", "1", "007", "10"], [40, 30, 20, 35])
    path = tmp_path / "codes.csv"
    path.write_text(
        "p,code,y\n"
        + "".join(
            f"{p:.4f},{c},{y}\n"
            for p, c, y in zip(rng.random(codes.size), codes, rng.integers(0, 2, 125))
        )
    )
    got = _run(tmp_path, path, "--sensitive", "code", "--label", "y")
    groups = [(row["group"], row["size"]) for row in got["groups"]]
    # "01" and "1" are two groups, "007" stays "007"; numeric order
    assert groups == [("01", 40), ("1", 30), ("007", 20), ("10", 35)]
    assert got["summary"]["pos_label"] == 1  # the labels are still numbers


def test_non_numeric_score_names_column_row_and_value(reader, tmp_path, capsys):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {"p": rng.random(60).round(3).astype(str), "g": np.repeat(["a", "b"], 30)}
    )
    frame.loc[6, "p"] = "high"
    frame.loc[9, "p"] = "n/a?"
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "p", "--sensitive", "g"]
    line = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert line == (
        "skfair audit: error: argument --score: column 'p' must hold numbers, but "
        "data row 7 (the header not counted) holds 'high' (and 1 more such cell) "
        "(see skfair audit --help)"
    )
    assert path.read_text().splitlines()[7].startswith("high,")  # row 7 is it


def test_a_sensitive_column_named_twice_is_an_error(predictions, tmp_path, capsys):
    path, _ = predictions
    argv = ["audit", "--predictions", str(path), "--score", "proba", "--sensitive"]
    argv += ["sex", "race", "sex", "--output", str(tmp_path / "r.json")]
    line = _error(capsys, argv)
    assert "argument --sensitive: 'sex' given more than once" in line
    assert "ambiguous" not in line


def test_min_group_size_above_the_groups_names_their_sizes(
    predictions, tmp_path, capsys
):
    path, _ = predictions
    argv = ["audit", "--predictions", str(path), "--score", "proba", "--sensitive"]
    argv += ["sex", "--min-group-size", "101", "--output", str(tmp_path / "r.json")]
    line = _error(capsys, argv)
    assert line == (
        "skfair audit: error: argument --min-group-size: 101 leaves 0 group(s) of "
        "'sex' with at least 101 rows, and at least two are needed to compare; its "
        "group sizes are 'a' (100), 'b' (100); use K <= 100 "
        "(see skfair audit --help)"
    )


def test_bins_outside_the_data_name_its_range(predictions, tmp_path, capsys):
    path, frame = predictions
    frame.assign(age=np.linspace(18, 89, len(frame)).round()).to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "proba", "--sensitive"]
    argv += ["age", "--bins", "age=100,200", "--output", str(tmp_path / "r.json")]
    line = _error(capsys, argv)
    assert "argument --bins: age=100,200 puts every value of column 'age' in one " in (
        line
    )
    assert "group '[18, 89]': its values range from 18 to 89" in line
    assert "fold" not in line


def test_many_text_groups_are_not_told_to_use_bins(tmp_path, capsys):
    rng = np.random.default_rng(5)
    ids = np.r_[[f"id{k}" for k in range(60)], ["big"] * 40, ["other"] * 35]
    frame = pd.DataFrame({"p": rng.random(ids.size), "name": ids})
    path = tmp_path / "ids.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "p", "--sensitive"]
    line = _error(capsys, [*argv, "name", "--output", str(tmp_path / "r.json")])
    assert (
        "argument --sensitive: column 'name' has 62 distinct values in 135 rows "
        "(2.2 rows per group on average), too many small groups to compare; check "
        "that it is the group column you mean" in line
    )
    assert "--min-group-size K" in line and "e.g. --min-group-size 30" in line
    assert "--bins" not in line
    got = _run(tmp_path, path, "--sensitive", "name", "--min-group-size", "30")
    assert [row["group"] for row in got["groups"]] == ["big", "other"]


REFERENCE_LABELS = ["White", "Native Hawaiian & Other Pacific Islander", 'Say "hi"']


def test_reference_lists_written_labels_that_it_accepts_back(tmp_path, capsys):
    rng = np.random.default_rng(6)
    race = np.repeat(REFERENCE_LABELS, 40)
    frame = pd.DataFrame(
        {"p": rng.random(120), "sex": np.tile(["f", "m"], 60), "race": race}
    )
    path = tmp_path / "race.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "p", "--sensitive"]
    argv += ["sex", "race", "--output", str(tmp_path / "r.json")]
    line = _error(capsys, [*argv, "--reference", "f & Native Hawaiian"])
    listed = line.split("its groups are ")[1].removesuffix(" (see skfair audit --help)")
    written = ast.literal_eval(f"[{listed}]")  # the labels, as Python strings
    assert written == [
        'f & "Native Hawaiian & Other Pacific Islander"',
        'f & "Say ""hi"""',
        "f & White",
        'm & "Native Hawaiian & Other Pacific Islander"',
        'm & "Say ""hi"""',
        "m & White",
    ]
    for label in (written[0], written[1]):  # each is accepted back
        got = _run(tmp_path, path, "--sensitive", "sex", "race", "--reference", label)
        assert got["summary"]["reference"] == list(parse_group_label(label))


def test_json_pos_label_is_the_users_label(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "p": rng.random(120),
            "g": np.repeat(["a", "b"], 60),
            "y": rng.choice(["approved", "denied"], 120),
        }
    )
    path = tmp_path / "labels.csv"
    frame.to_csv(path, index=False)
    options = ["--sensitive", "g", "--label", "y", "--pos-label", "denied"]
    got = _run(tmp_path, path, *options)
    assert got["summary"]["pos_label"] == "denied"  # what the CLI passes
    assert got["tradeoff"]["pos_label"] == "denied"  # and the report writes


def test_small_group_warning_comes_before_the_resampling(tmp_path, capsys):
    rng = np.random.default_rng(8)
    groups = np.r_[np.repeat(["a", "b"], 60), ["c"] * 7]
    frame = pd.DataFrame({"p": rng.random(groups.size), "g": groups})
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    _run(tmp_path, path, "--sensitive", "g")
    err = capsys.readouterr().err.splitlines()
    warned = [k for k, line in enumerate(err) if ": warning: 1 group(s) of 'g'" in line]
    resampling = err.index("skfair audit: intervals and tests")
    assert len(warned) == 1 and warned[0] < resampling


def test_many_pairs_are_announced_with_the_options_that_help(
    tmp_path, capsys, monkeypatch
):
    import skfair.report

    def audit(*args, **kwargs):
        raise ValueError("stopped before the resampling")

    monkeypatch.setattr(skfair.report, "audit", audit)
    rng = np.random.default_rng(9)
    groups = np.r_[np.repeat([f"g{k:03d}" for k in range(120)], 20), ["big"] * 40]
    groups = np.r_[groups, ["large"] * 50]
    frame = pd.DataFrame({"p": rng.random(groups.size), "g": groups})
    path = tmp_path / "many.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "p", "--sensitive", "g"]
    argv += ["--n-resamples", "1999"]
    with pytest.raises(SystemExit):
        main([*argv, "--output", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    (note,) = [line for line in err.splitlines() if ": note: " in line]
    assert note.startswith(
        "skfair audit: note: 122 groups of 'g' make 7,381 pairs, each resampled "
        "3,998 times (bootstrap and permutations): this audit may take roughly "
    )
    assert "--min-group-size K compares only the groups of at least K rows (here " in (
        note
    )
    assert "--min-group-size 40 keeps 2 groups" in note
    assert "--n-resamples N (now 1999)" in note
    assert err.index(": note: ") < err.index("stopped before the resampling")
    _error(capsys, [*argv, "--min-group-size", "40", "--output", "r.json"])
    assert ": note: " not in capsys.readouterr().err
