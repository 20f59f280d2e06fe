import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from skfair._cli import SUBCOMMANDS, build_parser, main
from skfair._cli._compare import (
    CV_CLASS_ERROR,
    CV_GROUP_ERROR,
    DATASETS,
    FAIRGBM_MISSING_NOTICE,
    TABLE_COLUMNS,
)
from skfair._cli._render import (
    OUTPUT_IS_DIRECTORY_ERROR,
    OUTPUT_NO_FOLDER_ERROR,
)
from skfair._cli._types import integer_type, unit_interval_type

TITLES = [title for _, title in TABLE_COLUMNS]
FAST = ["--cv", "2", "--n-estimators", "3"]


def test_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SUBCOMMANDS)


def test_compare_help_documents_every_option(capsys):
    with pytest.raises(SystemExit) as info:
        main(["compare", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for option in (
        "--dataset",
        "--sensitive",
        "--learners",
        "--n-estimators",
        "--cv",
        "--n-jobs",
        "--seed",
        "--paper-protocol",
        "--fair-groups",
        "--dr ",
        "--dr-ratio",
        "--dr-unscaled",
        "--train-scores",
        "--format",
        "--output",
    ):
        assert option in out
    for name in (*DATASETS, "markdown", "csv", "json"):
        assert name in out
    for title in ("DP", "EO", "PQP", "DR", "df_prev", "df_avg"):
        assert title in out
    # What DR disturbs, how the fair learners see the groups, fractions.
    for phrase in ("disturbed", "intersection", "percentages", "flaw"):
        assert phrase in out


def test_defaults():
    args = build_parser().parse_args(["compare", "--dataset", "credit"])
    assert (args.cv, args.format, args.seed, args.n_jobs, args.sensitive) == (
        5,
        "markdown",
        0,
        None,
        None,
    )
    assert (args.n_estimators, args.paper_protocol, args.dr_unscaled) == (
        7,
        False,
        None,
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "required"),
        (["compare"], "--dataset"),
        (["compare", "--dataset", "bank"], "invalid choice: 'bank'"),
        (["compare", "--dataset", "ricci", "--cv", "1"], "must be an integer >= 2"),
        (["compare", "--dataset", "ricci", "--cv", "five"], "must be an integer"),
        (["compare", "--dataset", "ricci", "--format", "xml"], "invalid choice"),
        (["compare", "--dataset", "ricci", "--n-jobs", "0"], "non-zero"),
        (["compare", "--dataset", "ricci", "--seed", "x"], "must be an integer"),
        # Issue 10 item 11: no traceback for a negative seed.
        (["compare", "--dataset", "ricci", "--seed", "-1"], "--seed: must be"),
        (["compare", "--dataset", "ricci", "--seed", str(2**32)], "--seed: must"),
        (["compare", "--dataset", "ricci", "--n-estimators", "0"], "must be"),
        (["compare", "--dataset", "ricci", "--dr-ratio", "1.5"], "in [0, 1]"),
        (["compare", "--dataset", "ricci", "--dr-ratio", "nan"], "in [0, 1]"),
        (["compare", "--dataset", "ricci", "--learners", "xgb"], "unknown learner"),
        (["compare", "--dataset", "ricci", "--dr", "all"], "invalid choice"),
        (
            ["compare", "--dataset", "ricci", "--sensitive", "sex"],
            "'sex' is not a sensitive attribute of ricci; choose from race",
        ),
        (
            ["compare", "--dataset", "ricci", "--cv", "200"],
            CV_CLASS_ERROR.format(dataset="ricci", smallest=56),
        ),
        (
            ["compare", "--dataset", "ricci", "--cv", "40"],
            CV_GROUP_ERROR.format(cv=40, fold=3, which="privileged", attribute="race"),
        ),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv, expected, capsys, monkeypatch):
    # Nothing is trained before an argument error.
    monkeypatch.setattr(
        "skfair.model_selection.compare_estimators",
        lambda *a, **k: pytest.fail("trained before checking the arguments"),
    )
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert expected in err
    assert err.count("\n") == 1  # one line, no usage block, no traceback


def _bad_output(tmp_path, kind):
    if kind == "directory":
        return str(tmp_path), OUTPUT_IS_DIRECTORY_ERROR.format(path=str(tmp_path))
    if kind == "missing folder":
        folder = tmp_path / "nowhere"
        return str(folder / "t.md"), OUTPUT_NO_FOLDER_ERROR.format(folder=str(folder))
    if kind == "read-only file":
        if not os.path.exists("/proc/version"):
            pytest.skip("needs Linux's read-only /proc")
        return "/proc/version", "argument --output: cannot write '/proc/version'"
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    return str(folder / "t.md"), "argument --output: cannot write"


@pytest.mark.parametrize(
    "kind", ["directory", "missing folder", "read-only file", "read-only folder"]
)
def test_bad_output_fails_before_any_work(kind, tmp_path, capsys, monkeypatch):
    # Issue 10 item 11: checked first, not after the whole run.
    path, expected = _bad_output(tmp_path, kind)
    monkeypatch.setattr(
        "skfair.datasets.load_hfm_dataset",
        lambda *a, **k: pytest.fail("loaded data before checking --output"),
    )
    with pytest.raises(SystemExit) as info:
        main(["compare", "--dataset", "ricci", "--output", path])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert expected in err
    assert err.count("\n") == 1
    assert kind != "missing folder" or not os.path.exists(os.path.dirname(path))


def test_output_check_leaves_no_file(tmp_path, capsys, monkeypatch):
    output = tmp_path / "t.md"
    monkeypatch.setattr(
        "skfair.datasets.load_hfm_dataset",
        lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt),
    )
    with pytest.raises(KeyboardInterrupt):
        main(["compare", "--dataset", "ricci", "--output", str(output)])
    assert not output.exists()


def _markdown_rows(text):
    lines = [line for line in text.splitlines() if line.startswith("|")]
    split = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return split[0], split[2:]


def test_compare_ricci_markdown(capsys):
    assert (
        main(["compare", "--dataset", "ricci", "--cv", "3", "--n-estimators", "3"]) == 0
    )
    streams = capsys.readouterr()
    out = streams.out
    header = out.splitlines()[:7]
    assert header[0].startswith("HFM paper comparison on ricci: n = 118 samples")
    assert "race (privileged 'W', 68 samples)" in header[1]
    assert "3-fold stratified cross-validation, seed 0, 3 members" in header[2]
    assert "fair learners constrained on: the intersection of race" in header[3]
    assert "DR disturbs the row's attribute" in header[4]
    assert "the paper prints accuracy and f1 as percentages" in header[5]
    assert header[6].startswith("small groups: a test fold holds only")
    columns, rows = _markdown_rows(out)
    assert columns == ["learner", "attribute", "folds", *TITLES]
    assert [row[0] for row in rows] == [
        "Bagging",
        "AdaBoost",
        "LightGBM",
        "FairGBM (FPR)",
        "FairGBM (FNR)",
        "FairGBM (FPR,FNR)",
        "AdaFair",
    ]
    assert all(row[1:3] == ["race", "test"] for row in rows)
    for row in rows:
        accuracy = float(row[3].split(" ± ")[0])
        assert 0.8 < accuracy <= 1.0  # ricci is nearly separable
    # Issue 11: progress, one line per finished estimator, when stderr is no
    # terminal; the small-group warnings are said once, in the header.
    progress = [line for line in streams.err.splitlines() if "done" in line]
    assert len(progress) == 7
    assert "SmallGroupWarning" not in streams.err


def test_compare_credit_one_attribute_csv_to_file(tmp_path, capsys):
    output = tmp_path / "table.csv"
    argv = ["compare", "--dataset", "credit", "--sensitive", "age", *FAST]
    argv += ["--format", "csv", "--output", str(output), "--seed", "1"]
    argv += ["--learners", "bagging,adafair"]
    assert main(argv) == 0
    streams = capsys.readouterr()
    assert streams.out == ""
    assert str(output) in streams.err
    text = output.read_text()
    assert text.startswith(
        "# HFM paper comparison on german_credit (the paper's credit): n = 1000 "
    )
    assert "age (privileged 'adult', 851 samples)" in text
    table = pd.read_csv(output, comment="#")
    expected = ["learner", "attribute", "folds"]
    for title in TITLES:
        expected += [f"{title}_mean", f"{title}_std", f"{title}_n_folds"]
    assert table.columns.tolist() == expected
    assert table["learner"].tolist() == ["Bagging", "AdaFair"]
    assert table["attribute"].tolist() == ["age"] * 2
    assert table["accuracy_mean"].between(0.6, 0.85).all()
    assert np.isfinite(table["DR_mean"]).all()


def test_fairgbm_missing_skips_its_rows(capsys, monkeypatch):
    # Issue 10 item 17: fairgbm ships Linux binaries only.
    monkeypatch.setitem(sys.modules, "fairgbm", None)
    argv = ["compare", "--dataset", "ricci", *FAST]
    argv += ["--learners", "lightgbm,fairgbm-fpr,adafair"]
    assert main(argv) == 0
    streams = capsys.readouterr()
    assert FAIRGBM_MISSING_NOTICE + "\n" in streams.err
    _, rows = _markdown_rows(streams.out)
    assert [row[0] for row in rows] == ["LightGBM", "AdaFair"]


def test_paper_protocol_options_and_json(capsys):
    argv = ["compare", "--dataset", "credit", "--paper-protocol", *FAST]
    argv += ["--learners", "lightgbm,fairgbm-fnr", "--format", "json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    header = "\n".join(report["header"])
    assert "each attribute on its own, one fit per attribute" in header
    assert "DR disturbs all of sex, age jointly" in header
    assert "unscaled features (reproduces a flaw" in header
    assert "mean ± std over test and training folds" in header
    rows = pd.DataFrame(report["rows"])
    assert rows[["learner", "attribute", "folds"]].values.tolist() == [
        [learner, attribute, folds]
        for learner in ("LightGBM", "FairGBM (FNR)")
        for attribute in ("sex", "age")
        for folds in ("test", "train")
    ]
    # DR disturbs both attributes jointly: the same value on both rows.
    lightgbm = rows[rows["learner"] == "LightGBM"].set_index(["attribute", "folds"])
    assert lightgbm.loc[("sex", "test"), "DR_mean"] == pytest.approx(
        lightgbm.loc[("age", "test"), "DR_mean"]
    )
    # Identical rows are explained, not left to puzzle.
    assert (
        "FairGBM (FNR) equals LightGBM on every test fold for sex: its fairness "
        "constraint never changes the model here" in report["notes"]
    )


def test_explicit_options_override_the_paper_protocol(capsys):
    argv = ["compare", "--dataset", "credit", "--paper-protocol", *FAST]
    argv += ["--learners", "lightgbm", "--no-dr-unscaled", "--no-train-scores"]
    argv += ["--dr", "attribute", "--dr-ratio", "0.5"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "DR disturbs the row's attribute, each value with probability 0.5\n" in out
    assert "training folds" not in out
    _, rows = _markdown_rows(out)
    dr = [float(row[8].split(" ± ")[0]) for row in rows]
    assert max(dr) < 0.1  # the scaled, per-attribute DR is small on credit


def test_paper_reproduction_lightgbm_on_credit(capsys):
    # Issue 11 acceptance: the HFM paper's Table 2 LightGBM row on credit
    # (accuracy 77.8750, f1 86.2892 on the training folds; DR 0.3438).
    argv = ["compare", "--dataset", "credit", "--paper-protocol"]
    argv += ["--learners", "lightgbm", "--format", "json"]
    assert main(argv) == 0
    rows = pd.DataFrame(json.loads(capsys.readouterr().out)["rows"])
    train = rows[rows["folds"] == "train"]
    assert train["accuracy_mean"].to_numpy() == pytest.approx(0.778750, abs=0.01)
    assert train["f1_mean"].to_numpy() == pytest.approx(0.862892, abs=0.01)
    assert rows["DR_mean"].to_numpy() == pytest.approx(0.3438, abs=0.05)


def test_python_dash_m_exit_code():
    result = subprocess.run(
        [sys.executable, "-m", "skfair", "compare", "--dataset", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "invalid choice: 'nope'" in result.stderr


@pytest.mark.parametrize(
    ("parse", "text", "expected"),
    [
        (integer_type(2), "2", 2),
        (integer_type(0, 3), "3", 3),
        (unit_interval_type(), "0", 0.0),
        (unit_interval_type(), "1", 1.0),
        (unit_interval_type(open_ends=True), "0.5", 0.5),
    ],
)
def test_argument_types_accept_their_bounds(parse, text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (integer_type(2), "1", "must be an integer >= 2; got '1'"),
        (integer_type(0, 3), "4", "must be an integer in [0, 3]; got '4'"),
        (integer_type(1), "1.5", "must be an integer >= 1; got '1.5'"),
        (unit_interval_type(), "nan", "must be in [0, 1]; got 'nan'"),
        (unit_interval_type(), "x", "must be a number in [0, 1]; got 'x'"),
        (unit_interval_type(open_ends=True), "0", "must be in (0, 1); got '0'"),
        (unit_interval_type(open_ends=True), "1", "must be in (0, 1); got '1'"),
    ],
)
def test_argument_types_reject_with_the_bound(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
        parse(text)
