"""``skfair audit`` on a regressor's predictions, end to end on a CSV file."""

import json

import numpy as np
import pandas as pd
import pytest

from skfair._cli import main
from skfair.metrics import mcdp, mean_absolute_error_difference

FAST = ["--n-resamples", "19"]


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    g = np.repeat(["f", "m", "x"], [300, 300, 2])
    amount = rng.gamma(4, 500, g.size).round(2)
    predicted = amount + rng.normal(0, 300, g.size) + 150 * (g == "m")
    path = tmp_path_factory.mktemp("reg") / "preds.csv"
    pd.DataFrame({"pred": predicted, "amount": amount, "sex": g}).to_csv(
        path, index=False
    )
    return path


def _run(csv, tmp_path, *extra, name="r.json"):
    out = tmp_path / name
    argv = ["audit", "--predictions", str(csv), "--score", "pred"]
    argv += ["--sensitive", "sex", "--output", str(out), *FAST, *extra]
    return main(argv), out


def test_detected_regression_end_to_end(csv, tmp_path, capsys):
    status, out = _run(csv, tmp_path, "--label", "amount")
    assert status == 0
    err = capsys.readouterr().err
    frame = pd.read_csv(csv)
    n = frame["amount"].nunique()
    assert (
        f"task detected: regression (y_true has {n:,} distinct numeric values)" in err
    )
    report = json.loads(out.read_text())
    assert report["summary"]["task"] == "regression"
    assert report["summary"]["threshold"] is None
    assert report["headline"]["threshold"] is None
    metrics = {row["key"]: row for row in report["metrics"]}
    assert not any(key.startswith("delta_dp@") for key in metrics)
    common = {"sensitive_features": frame["sex"], "min_group_size": 1}
    assert metrics["mcdp"]["value"] == pytest.approx(
        mcdp(None, frame["pred"], **common)
    )
    assert metrics["mae_gap"]["value"] == pytest.approx(
        mean_absolute_error_difference(frame["amount"], frame["pred"], **common)
    )
    groups = {row["group"]: row for row in report["groups"]}
    residual = (frame["pred"] - frame["amount"]).groupby(frame["sex"]).mean()
    for group, value in residual.items():
        assert groups[group]["mean_residual"] == pytest.approx(value)


def test_threshold_facts_only_with_threshold(csv, tmp_path):
    status, out = _run(csv, tmp_path, "--label", "amount", "--threshold", "2500")
    assert status == 0
    report = json.loads(out.read_text())
    facts = report["headline"]["threshold"]
    assert facts["threshold"] == 2500.0
    assert "delta_dp@2500" in {row["key"] for row in report["metrics"]}
    assert report["headline"]["text"][0].startswith("At the threshold 2500,")


def test_html_and_markdown_render(csv, tmp_path):
    status, html = _run(csv, tmp_path, "--label", "amount", name="r.html")
    assert status == 0
    page = html.read_text()
    assert "Group prediction CDFs" in page and "Residuals by group" in page
    assert page.count("data:image/png;base64,") == 2
    status, md = _run(
        csv, tmp_path, "--label", "amount", "--epsilon", "100", name="r.md"
    )
    text = md.read_text()
    assert status == 0 and "MCDP(100) (local CDF gap)" in text
    assert "ε = 100 in the target's units (as given)" in text


def test_given_task_without_labels(csv, tmp_path, capsys):
    status, out = _run(csv, tmp_path, "--task", "regression")
    assert status == 0
    assert "task detected" not in capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["summary"]["task"] == "regression"
    assert report["summary"]["task_reason"] is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--label", "amount", "--pos-label", "1"],
            "argument --pos-label: a regressor",
        ),
        (["--threshold", "2500"], "argument --threshold: must be in [0, 1]"),
        (
            ["--task", "binary", "--epsilon", "100"],
            "argument --epsilon: must be in (0, 1)",
        ),
        (["--epsilon", "-1"], "must be in (0, 1) for scores, or a positive number"),
    ],
)
def test_errors_name_the_option(csv, tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        _run(csv, tmp_path, *extra)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_dataset_is_a_classifier_demo(tmp_path, capsys):
    argv = ["audit", "--dataset", "ricci", "--task", "regression"]
    with pytest.raises(SystemExit):
        main([*argv, "--output", str(tmp_path / "r.html")])
    assert "--task regression applies to --predictions" in capsys.readouterr().err


def test_given_binary_task_is_obeyed(csv, tmp_path, capsys):
    """``--task binary`` on a regressor's numbers: refused, not audited as regression.

    Before, the task was not passed on and the audit detected a regression.
    """
    with pytest.raises(SystemExit) as exit_info:
        _run(csv, tmp_path, "--label", "amount", "--task", "binary")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "y_score must lie in [0, 1]" in err and "task detected" not in err
