"""``python -m skfair audit``'s options for real files (issues 19, 20, 23).

``--bins``, ``--na-group``, ``--pos-label``, ``--reference``, progress and
warnings on stderr, the data-set vocabulary, and CSV/Parquet reading with
polars or pandas.
"""

import io
import json
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from skfair._cli import build_parser, main
from skfair._cli._datasets import ALIASES, DATASETS, HFM_DATASETS
from skfair._cli._feedback import (
    Progress,
    caught_warnings,
    close_bars,
    warning_lines,
)
from skfair._cli._groups import (
    bin_column,
    bins_type,
    reference_group,
    shape_sensitive,
)
from skfair._cli._inputs import match_label, positive_label

FAST = ["--n-resamples", "19"]


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 240
    score = rng.random(n)
    return pd.DataFrame(
        {
            "proba": score,
            "age": np.r_[18, 89, rng.integers(19, 89, n - 2)],
            "sex": np.repeat(["f", "m"], n // 2),
            "outcome": np.where(rng.random(n) < score, "no", "yes"),
        }
    )


def _write(frame, tmp_path, name="preds.csv"):
    path = tmp_path / name
    if name.endswith(".csv"):
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    return str(path)


def _audit(path, tmp_path, *options):
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", path, "--score", "proba", *options, *FAST]
    assert main([*argv, "--output", str(out)]) == 0
    return json.loads(out.read_text())


def _error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


# --bins ---------------------------------------------------------------------


def test_bins_edges_give_readable_groups(frame, tmp_path):
    path = _write(frame, tmp_path)
    got = _audit(path, tmp_path, "--sensitive", "age", "--bins", "age=25,45,65")
    groups = [row["group"] for row in got["groups"]]
    assert groups == ["[18, 25)", "[25, 45)", "[45, 65)", "[65, 89]"]
    sizes = [row["size"] for row in got["groups"]]
    expected = np.histogram(frame["age"], [18, 25, 45, 65, 90])[0]
    assert sizes == expected.tolist()


def test_bins_quantiles_intersected_with_another_attribute(frame, tmp_path):
    path = _write(frame, tmp_path)
    options = ["--sensitive", "sex", "age", "--bins", "age=q3"]
    got = _audit(path, tmp_path, *options)
    groups = [row["group"] for row in got["groups"] if row["grouping"] == "age"]
    assert len(groups) == 3 and all(g.startswith("[") for g in groups)
    sizes = [row["size"] for row in got["groups"] if row["grouping"] == "age"]
    assert max(sizes) - min(sizes) <= 10  # about equal


def test_bin_column_labels_and_edge_cases():
    ages = pd.Series([18.0, 30, 50, 70, 90, 44, np.nan], name="age")
    binned = bin_column(ages, (25, 45, 65))
    assert binned.cat.ordered
    assert binned.cat.categories.tolist() == [
        "[18, 25)",
        "[25, 45)",
        "[45, 65)",
        "[65, 90]",
    ]
    assert binned.isna().tolist() == [False] * 6 + [True]
    # edges outside the data are dropped: no empty group
    assert bin_column(ages, (10, 100)).cat.categories.tolist() == ["[18, 90]"]
    assert bin_column(ages, (10, 45)).cat.categories.tolist() == [
        "[18, 45)",
        "[45, 90]",
    ]
    quartiles = bin_column(pd.Series(np.arange(100)), 4)
    assert quartiles.value_counts().tolist() == [25] * 4
    assert quartiles.cat.categories[0] == "[0, 24.75)"
    # ties: fewer groups than asked, none empty
    ties = bin_column(pd.Series([1] * 9 + [2]), 4)
    assert ties.cat.categories.tolist() == ["[1, 2)", "[2, 2]"]


@pytest.mark.parametrize(
    "text", ["age", "age=", "=25", "age=45,25", "age=q1", "age=qx", "age=1,nan"]
)
def test_bins_format_errors(text):
    with pytest.raises(Exception, match="COL=EDGES"):
        bins_type(text)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--sensitive", "sex", "--bins", "age=q2"], "'age' is not a --sensitive"),
        (["--sensitive", "sex", "--bins", "sex=q2"], "'sex' is not numeric"),
    ],
)
def test_bins_argument_errors(options, message, frame, tmp_path, capsys):
    path = _write(frame, tmp_path)
    argv = ["audit", "--predictions", path, "--score", "proba", *options]
    line = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert message in line


def test_continuous_attribute_error_names_bins(frame, tmp_path, capsys):
    path = _write(frame, tmp_path)
    argv = ["audit", "--predictions", path, "--score", "proba", "--sensitive", "age"]
    line = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert "column 'age' looks continuous" in line
    assert "--bins age=25,45,65" in line and "--bins age=q4" in line
    assert "pd.cut" not in line and "astype" not in line


# --na-group -----------------------------------------------------------------


def test_na_group(frame, tmp_path, capsys):
    frame.loc[:39, "sex"] = "NA"
    path = _write(frame, tmp_path)
    argv = ["audit", "--predictions", path, "--score", "proba", "--sensitive", "sex"]
    line = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert "'sex' has 40 missing value(s)" in line and "--na-group LABEL" in line
    got = _audit(path, tmp_path, "--sensitive", "sex", "--na-group", "NA")
    assert [(row["group"], row["size"]) for row in got["groups"]] == [
        ("NA", 40),
        ("f", 80),
        ("m", 120),
    ]


def test_na_group_on_numbers_and_categories():
    sensitive = pd.DataFrame(
        {"n": [1.0, np.nan, 2.0], "c": pd.Categorical(["a", None, "b"])}
    )
    shaped = shape_sensitive(sensitive, na_group="unknown")
    assert shaped["n"].tolist() == ["1", "unknown", "2"]
    assert shaped["c"].tolist() == ["a", "unknown", "b"]
    binned = shape_sensitive(sensitive, bins=[("n", (1.5,))], na_group="?")
    assert binned["n"].tolist() == ["[1, 1.5)", "?", "[1.5, 2]"]


# --pos-label ----------------------------------------------------------------


def test_pos_label(frame, tmp_path, capsys):
    from skfair.report import audit

    path = _write(frame, tmp_path)
    common = ["--sensitive", "sex", "--label", "outcome"]
    argv = ["audit", "--predictions", path, "--score", "proba", *common]
    line = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert "labels 'no', 'yes'" in line and "--pos-label LABEL" in line
    line = _error(
        capsys, [*argv, "--pos-label", "n", "--output", str(tmp_path / "r.json")]
    )
    assert "--pos-label: 'n' is not a label of column 'outcome'" in line
    got = _audit(path, tmp_path, *common, "--pos-label", "no")
    expected = audit(
        frame["outcome"],
        frame["proba"],
        sensitive_features=frame[["sex"]],
        pos_label="no",
        n_resamples=19,
    ).to_dict()
    assert got["groups"] == json.loads(json.dumps(expected["groups"]))


def test_pos_label_needs_label(frame, tmp_path, capsys):
    path = _write(frame, tmp_path)
    argv = ["audit", "--predictions", path, "--score", "proba", "--sensitive"]
    argv += ["sex", "--pos-label", "1", "--output", str(tmp_path / "r.json")]
    assert "--pos-label: needs --label COL" in _error(capsys, argv)


@pytest.mark.parametrize(
    ("labels", "text", "expected"),
    [
        ([0, 1, 1], None, None),
        ([False, True], None, None),
        ([-1, 1, -1], None, None),
        ([0.0, 1.0], None, None),
        ([0, 2, 2], "2", 2),
        ([0.0, 2.0], "2", 2.0),
        (["no", "yes"], "no", "no"),
        ([False, True], "false", False),
    ],
)
def test_positive_label(labels, text, expected):
    assert positive_label(pd.Series(labels), text, "y") == expected


@pytest.mark.parametrize("labels", [[0, 2], ["yes", "no"], ["0", "1"]])
def test_positive_label_needed(labels):
    with pytest.raises(ValueError, match="--pos-label LABEL"):
        positive_label(pd.Series(labels), None, "y")


def test_match_label():
    assert match_label("1", [0.0, 1.0]) == 1.0
    assert match_label("True", [False, True]) is True
    assert match_label("b", ["a"]) is None


# --reference ----------------------------------------------------------------


def test_reference_group():
    one = pd.DataFrame({"sex": ["f", "m"]})
    assert reference_group(one, "m") == "m"
    two = pd.DataFrame({"sex": ["f", "m"], "n": [1, 2]})
    assert reference_group(two, "m & 2") == ("m", 2)
    with pytest.raises(ValueError, match="its groups are 'f & 1', 'm & 2'$"):
        reference_group(two, "m")
    with pytest.raises(ValueError, match="'m & 1' is not a group"):
        reference_group(two, "m & 1")  # each label exists, the intersection not
    quoted = pd.DataFrame({"sex": ["f", "m"], "race": ["a & b", 'say "hi"']})
    assert reference_group(quoted, 'f & "a & b"') == ("f", "a & b")
    assert reference_group(quoted, 'm & "say ""hi"""') == ("m", 'say "hi"')
    with pytest.raises(ValueError, match="not a group"):
        reference_group(quoted, 'f & "a & b"c')  # text after the quote
    sizes = {"f": 5, "m": 40}
    with pytest.raises(ValueError, match="'f' has 5 rows, fewer than --min-group"):
        reference_group(one, "f", sizes=sizes, min_group_size=10)


def test_reference_error(frame, tmp_path, capsys):
    path = _write(frame, tmp_path)
    argv = ["audit", "--predictions", path, "--score", "proba", "--sensitive"]
    argv += ["sex", "--reference", "x", "--output", str(tmp_path / "r.json")]
    line = _error(capsys, argv)
    assert "--reference: 'x' is not a group of sex; its groups are 'f', 'm' (" in line


def test_reference_and_progress_reach_an_audit_that_takes_them(
    frame, tmp_path, capsys, monkeypatch
):
    import skfair.report

    real, seen = skfair.report.audit, {}

    def audit(y_true, y_score, *, reference=None, progress=None, **kwargs):
        seen["reference"] = reference
        for phase in ("metrics", "bootstrap", "permutations"):
            progress(phase)
        return real(y_true, y_score, **kwargs)

    monkeypatch.setattr(skfair.report, "audit", audit)
    path = _write(frame, tmp_path)
    _audit(path, tmp_path, "--sensitive", "sex", "--reference", "m")
    assert seen["reference"] == "m"
    err = capsys.readouterr().err.splitlines()
    assert err[:5] == [
        f"skfair audit: {phase}"
        for phase in ("loading", "metrics", "bootstrap", "permutations", "writing")
    ]


# progress and warnings ------------------------------------------------------


def test_progress_lines_when_stderr_is_no_terminal(frame, tmp_path, capsys):
    path = _write(frame, tmp_path)
    _audit(path, tmp_path, "--sensitive", "sex")
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "skfair audit: loading"
    assert err[-2] == "skfair audit: writing"
    assert err[-1].startswith("skfair audit: wrote ")
    assert len(err) >= 4  # the audit's own phase(s) in between


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal():
    stream = _Terminal()
    with Progress("audit", 3, stream=stream) as progress:
        for phase in ("loading", "metrics", "writing", "extra"):
            progress(phase)
    text = stream.getvalue()
    assert "\r" in text and "4/4 phases" in text and "skfair audit: extra" in text
    assert "skfair audit: loading\n" not in text


def test_an_error_closes_the_bar_before_its_line():
    stream = _Terminal()
    progress = Progress("audit", 3, stream=stream)
    progress("loading")
    close_bars()
    assert progress.bar is None and stream.getvalue().endswith("\n")
    assert "0/3 phases" in stream.getvalue()  # where it stood, not completed


def test_one_warning_line_per_condition(tmp_path, capsys):
    rng = np.random.default_rng(2)
    group = np.r_[np.repeat(["a", "b"], 100), ["c"] * 6, ["d"] * 5]
    frame = pd.DataFrame({"proba": rng.random(group.size), "g": group})
    path = _write(frame, tmp_path)
    _audit(path, tmp_path, "--sensitive", "g")
    err = capsys.readouterr().err
    warned = [line for line in err.splitlines() if ": warning:" in line]
    assert warned == [
        "skfair audit: warning: 2 group(s) of 'g' have fewer than 30 samples: "
        "'d' (5 samples), 'c' (6 samples); --min-group-size K leaves out the "
        "groups of fewer than K samples"
    ]
    assert "SmallGroupWarning" not in err and ".py" not in err
    _audit(path, tmp_path, "--sensitive", "g", "--min-group-size", "1")
    assert ": warning:" not in capsys.readouterr().err


def test_warning_names_intersections_as_the_report_does():
    from skfair.utils import sensitive_groupings

    groups = pd.DataFrame({"sex": ["f"] * 40 + ["m"] * 3, "age": ["old"] * 43})
    with caught_warnings() as caught:
        sensitive_groupings(groups)
    (line,) = warning_lines(caught)
    assert "'m & old' (3 samples)" in line
    groups = pd.DataFrame({"sex": ["f"] * 40 + ["m"] * 3, "age": [1] * 43})
    with caught_warnings() as caught:
        sensitive_groupings(groups)
    (line,) = warning_lines(caught)  # labels that are not all strings
    assert line.startswith("1 group(s) of 'sex & age' have fewer than 30")
    assert "'m & 1' (3 samples)" in line


# one data-set vocabulary ----------------------------------------------------


@pytest.mark.parametrize(
    ("command", "name", "expected"),
    [
        ("audit", "credit", "german_credit"),
        ("audit", "german_credit", "german_credit"),
        ("audit", "ppvr", "compas_violent"),
        ("audit", "Income", "adult"),
        ("compare", "german_credit", "german_credit"),
        ("compare", "credit", "german_credit"),
        ("compare", "adult", "adult"),
        ("compare", "ppr", "compas"),
    ],
)
def test_dataset_names_and_aliases(command, name, expected):
    argv = [command, "--dataset", name] + (
        ["--output", "r.html"] * (command == "audit")
    )
    assert build_parser().parse_args(argv).dataset == expected


@pytest.mark.parametrize("command", ["audit", "compare"])
def test_help_shows_the_canonical_names(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    names = HFM_DATASETS if command == "compare" else DATASETS
    for name in names:
        assert f"{name} (" in out
    for alias, name in ALIASES.items():
        assert f"{alias} = {name}" in out
    assert "--dataset NAME" in out and "--dataset {" not in out


def test_compare_refuses_a_data_set_outside_the_paper(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--dataset", "bank"])
    assert "invalid choice: 'bank'" in capsys.readouterr().err


# reading files --------------------------------------------------------------


@pytest.mark.parametrize("name", ["preds.csv", "preds.parquet"])
@pytest.mark.parametrize("library", ["polars", "pandas"])
def test_csv_and_parquet_with_polars_or_pandas(
    library, name, frame, tmp_path, monkeypatch
):
    from skfair.report import audit

    if library == "polars":
        pytest.importorskip("polars")
    else:
        monkeypatch.setitem(sys.modules, "polars", None)
    if name.endswith("parquet"):
        pytest.importorskip("pyarrow")  # to write it
    frame.loc[3:42, "sex"] = "NA"
    path = _write(frame, tmp_path, name)
    got = _audit(path, tmp_path, "--sensitive", "sex", "--na-group", "NA")
    sensitive = frame[["sex"]]
    expected = audit(None, frame["proba"], sensitive_features=sensitive, n_resamples=19)
    expected = json.loads(json.dumps(expected.to_dict()))
    assert got["metrics"] == expected["metrics"]
    assert got["groups"] == expected["groups"]


def test_help_says_which_library_reads(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "read with pandas; Parquet needs pyarrow" in out


def test_csv_needs_no_pyarrow(frame, tmp_path, run_without):
    # pyarrow hidden (no finder sees it) before pandas is imported, as if not
    # installed; pandas, then polars, read the CSV
    path = _write(frame, tmp_path)
    parquet = _write(frame, tmp_path, "preds.parquet")
    script = textwrap.dedent(
        f"""
        from skfair._cli import main
        for blocked in (True, False):
            if not blocked:
                BLOCKED.discard("polars")
            status = main(["audit", "--predictions", {path!r}, "--score",
                           "proba", "--sensitive", "sex", "--n-resamples", "9",
                           "--output", {str(tmp_path / "r.json")!r}])
            assert status == 0
        sys.modules["polars"] = None
        main(["audit", "--predictions", {parquet!r}, "--score", "proba",
              "--sensitive", "sex", "--output", {str(tmp_path / "p.json")!r}])
        """
    )
    run = run_without(script, "pyarrow", "polars")
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("wrote") == 2
    assert "reading Parquet needs polars or pyarrow" in run.stderr.splitlines()[-1]


# --score-type -----------------------------------------------------------------


def test_score_type_logit_audits_a_file_of_logits(frame, tmp_path):
    probabilities = frame["proba"].clip(0.01, 0.99)
    logits = frame.assign(proba=np.log(probabilities / (1 - probabilities)))
    options = ["--sensitive", "sex", "--label", "outcome", "--pos-label", "yes"]
    raw = _audit(
        _write(logits, tmp_path, "logits.csv"),
        tmp_path,
        *options,
        "--score-type",
        "logit",
        "--threshold",
        "0",
    )
    prob = _audit(
        _write(frame.assign(proba=probabilities), tmp_path),
        tmp_path,
        *options,
        "--threshold",
        "0.5",
    )
    # the logits went through a CSV: the probabilities agree to rounding
    for got, want in zip(raw["metrics"], prob["metrics"], strict=True):
        for key, value in want.items():
            if isinstance(value, float):
                assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
            else:
                assert got[key] == value, key
    assert [row["positive_rate"] for row in raw["groups"]] == [
        row["positive_rate"] for row in prob["groups"]
    ]
    assert raw["groups"][0]["size"] == prob["groups"][0]["size"]


def test_score_type_margin_marks_unit_interval_metrics(frame, tmp_path):
    path = _write(frame.assign(proba=5 * frame["proba"] - 2), tmp_path)
    got = _audit(
        path,
        tmp_path,
        "--sensitive",
        "sex",
        "--score-type",
        "margin",
        "--threshold",
        "-0.5",
    )
    rows = {row["key"]: row for row in got["metrics"]}
    assert rows["abpc"]["value"] is None
    html = tmp_path / "r.html"
    argv = ["audit", "--predictions", path, "--score", "proba", "--sensitive", "sex"]
    assert main([*argv, "--score-type", "margin", "--output", str(html), *FAST]) == 0
    # raw scores decide at 0 by default (issue 36 item 7), and the lead says so
    assert "positive when the margin ≥ 0 (threshold auto" in html.read_text()
    assert "not applicable to margins" in rows["abpc"]["undefined_reason"]
    assert rows["mcdp"]["value"] is not None


def test_out_of_range_scores_name_score_type_option(frame, tmp_path, capsys):
    path = _write(frame.assign(proba=frame["proba"] * 4 - 2), tmp_path)
    argv = ["audit", "--predictions", path, "--score", "proba", "--sensitive", "sex"]
    err = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert "(--score-type) for raw scores" in err
    err = _error(
        capsys, [*argv, "--threshold", "-1", "--output", str(tmp_path / "r.json")]
    )
    assert "must be in [0, 1]" in err and "--score-type" in err
    err = _error(
        capsys,
        ["audit", "--dataset", "ricci", "--score-type", "logit", "--output", "r.html"],
    )
    assert "--score-type" in err and "--predictions" in err


# --task multiclass with --score ----------------------------------------------
@pytest.fixture
def classes_csv(tmp_path):
    rng = np.random.default_rng(2)
    n = 300
    truth = rng.choice(["Low", "Medium", "High"], n)
    predicted = np.where(rng.random(n) < 0.6, truth, rng.choice(["Low", "High"], n))
    frame = pd.DataFrame(
        {
            "pred": predicted,
            "proba": rng.random(n),
            "risk": truth,
            "sex": np.repeat(["f", "m"], n // 2),
        }
    )
    return _write(frame, tmp_path), frame


def test_task_multiclass_with_a_label_column(classes_csv, tmp_path):
    """Before, ``--task multiclass --score COL`` crashed with a KeyError."""
    path, frame = classes_csv
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", path, "--score", "pred", "--label", "risk"]
    argv += ["--sensitive", "sex", "--task", "multiclass", *FAST]
    assert main([*argv, "--output", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["summary"]["task"] == "multiclass"
    rows = pd.DataFrame(report["groups"]).set_index(["group", "class"])
    expected = pd.crosstab(frame["sex"], frame["pred"], normalize="index").stack()
    for key, value in expected.items():
        assert rows.loc[key, "selection_rate"] == pytest.approx(value)


def test_task_multiclass_refuses_a_score_column(classes_csv, tmp_path, capsys):
    path, _ = classes_csv
    argv = ["audit", "--predictions", path, "--score", "proba", "--label", "risk"]
    argv += ["--sensitive", "sex", "--task", "multiclass"]
    line = _error(capsys, [*argv, "--output", str(tmp_path / "r.json")])
    assert "a fraction, not a class label" in line


def test_score_prefix_implies_multiclass_without_labels(tmp_path):
    """Before, without --label the task was detected as binary and refused."""
    rng = np.random.default_rng(5)
    proba = rng.dirichlet([1, 1, 1], 200)
    frame = pd.DataFrame(proba, columns=["p_Low", "p_Medium", "p_High"])
    frame["sex"] = np.repeat(["f", "m"], 100)
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", _write(frame, tmp_path), "--score-prefix"]
    argv += ["p_", "--sensitive", "sex", *FAST, "--output", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["summary"]["task"] == "multiclass"
    predicted = np.array(["Low", "Medium", "High"])[proba.argmax(axis=1)]
    rows = pd.DataFrame(report["groups"]).set_index(["group", "class"])
    expected = pd.crosstab(frame["sex"], predicted, normalize="index").stack()
    for key, value in expected.items():
        assert rows.loc[key, "selection_rate"] == pytest.approx(value)


@pytest.mark.parametrize("task", ["regression", "multiclass"])
def test_dataset_with_a_task_other_than_binary_is_a_usage_error(task, capsys):
    # --dataset compas --task multiclass used to end in scikit-learn's NaN
    # error from the demonstration model
    argv = ["audit", "--dataset", "compas", "--task", task, "--output", "r.html"]
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"--task {task} applies to --predictions" in err
