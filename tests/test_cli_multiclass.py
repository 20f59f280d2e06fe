"""``skfair audit`` on a multiclass classifier, end to end on a CSV file."""

import json

import numpy as np
import pandas as pd
import pytest

from skfair._cli import main
from skfair._cli._multiclass import PREFIX_COLUMNS_ERROR, SCORE_OPTIONS_ERROR
from skfair.metrics import mcdp, multiclass_selection_rate_difference

FAST = ["--n-resamples", "9"]
CLASSES = np.array(["Low", "Medium", "High"])


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 400
    race = rng.choice(["a", "b", "c"], n)
    proba = rng.dirichlet([2, 2, 2], n)
    proba[race == "b", 2] += 0.4
    proba /= proba.sum(axis=1, keepdims=True)
    frame = pd.DataFrame({f"proba_{c}": proba[:, k] for k, c in enumerate(CLASSES)})
    frame["race"] = race
    frame["risk"] = CLASSES[rng.integers(0, 3, n)]
    frame["pred"] = CLASSES[proba.argmax(axis=1)]
    path = tmp_path_factory.mktemp("mc") / "preds.csv"
    frame.to_csv(path, index=False)
    return path


def _run(csv, tmp_path, *extra, name="r.json"):
    out = tmp_path / name
    argv = ["audit", "--predictions", str(csv), "--sensitive", "race"]
    argv += ["--output", str(out), *FAST, *extra]
    return main(argv), out


def test_probability_columns_by_prefix(csv, tmp_path, capsys):
    status, out = _run(csv, tmp_path, "--score-prefix", "proba_", "--label", "risk")
    assert status == 0
    err = capsys.readouterr().err
    assert "task detected: multiclass (3 classes: Low, Medium, High)" in err
    report = json.loads(out.read_text())
    assert report["summary"]["task"] == "multiclass"
    frame = pd.read_csv(csv)
    metrics = {m["key"]: m["value"] for m in report["metrics"]}
    assert metrics["mcdp[High]"] == pytest.approx(
        mcdp(None, frame["proba_High"], sensitive_features=frame["race"])
    )
    assert metrics["selection_rate_gap"] == pytest.approx(
        multiclass_selection_rate_difference(
            frame["risk"], frame["pred"], sensitive_features=frame["race"]
        )
    )
    expected = pd.crosstab(frame["race"], frame["pred"], normalize="index")
    for row in report["groups"]:
        assert row["selection_rate"] == pytest.approx(
            expected.loc[row["group"], row["class"]]
        )


def test_predicted_labels_detected(csv, tmp_path, capsys):
    status, out = _run(csv, tmp_path, "--score", "pred", "--label", "risk", name="r.md")
    assert status == 0
    assert "task detected: multiclass (3 classes" in capsys.readouterr().err
    text = out.read_text()
    assert "predicted class: the labels given" in text
    assert "Confusion matrix" in text


def test_task_multiclass_without_labels(csv, tmp_path):
    status, out = _run(
        csv, tmp_path, "--score-prefix", "proba_", "--task", "multiclass"
    )
    assert status == 0
    report = json.loads(out.read_text())
    assert report["summary"]["task_reason"] is None
    assert "tpr_gap" not in {m["key"] for m in report["metrics"]}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--score", "pred", "--score-prefix", "proba_"), SCORE_OPTIONS_ERROR),
        (
            ("--score-prefix", "nope_"),
            PREFIX_COLUMNS_ERROR.split("{count}")[1].split("{path")[0],
        ),
        (
            ("--score-prefix", "proba_", "--label", "risk", "--threshold", "0.4"),
            "threshold does not apply to task='multiclass'",
        ),
    ],
)
def test_errors(csv, tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as raised:
        _run(csv, tmp_path, *extra)
    assert raised.value.code == 2
    assert message in capsys.readouterr().err
