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


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_survey_weight_column_end_to_end(tmp_path):
    rng = np.random.default_rng(1)
    n = 400
    frame = pd.DataFrame(
        {
            "p": rng.random(n),
            "sex": rng.choice(["F", "M"], n),
            "w": rng.uniform(0.5, 8.0, n).round(3),
        }
    )
    frame["y"] = (rng.random(n) < frame["p"]).astype(int)
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    argv = ["audit", "--predictions", str(path), "--score", "p", "--label", "y"]
    argv += ["--sensitive", "sex", "--weight", "w", "--output", str(out)]
    assert main([*argv, *FAST]) == 0
    report = json.loads(out.read_text())
    groups = {g["group"]: g for g in report["groups"]}
    for sex, rows in frame.groupby("sex"):
        w = rows["w"]
        assert groups[sex]["size"] == pytest.approx(w.sum(), rel=1e-12)
        assert groups[sex]["n_rows"] == len(rows)
        assert groups[sex]["n_eff"] == pytest.approx(w.sum() ** 2 / (w**2).sum())
        rate = np.average(rows["p"] >= 0.5, weights=w)
        assert groups[sex]["positive_rate"] == pytest.approx(rate, rel=1e-12)
    rates = [np.average(r["p"] >= 0.5, weights=r["w"]) for _, r in frame.groupby("sex")]
    metrics = {m["key"]: m for m in report["metrics"]}
    assert metrics["delta_dp@0.5"]["value"] == pytest.approx(
        abs(rates[0] - rates[1]), rel=1e-9
    )
    assert all(m["pvalue"] is None for m in metrics.values())
    notes = " ".join(report["notes"])
    assert "as survey weights" in notes and "Design effect" in notes
    p = report["provenance"]
    assert p["survey"] and p["n_people"] == pytest.approx(frame["w"].sum())
    assert "--weight w" in p["call"]


def test_a_bad_weight_column_is_a_clear_error(tmp_path, capsys):
    frame = pd.DataFrame(
        {"p": [0.2, 0.7, 0.4, 0.9], "sex": list("FMFM"), "y": [0, 1, 0, 1]}
    )
    frame["w"] = [1.5, np.nan, 2.0, 1.0]
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "p", "--label", "y"]
    argv += ["--sensitive", "sex", "--weight", "w", *FAST]
    argv += ["--output", str(tmp_path / "r.json")]
    with pytest.raises(SystemExit):
        main(argv)
    err = capsys.readouterr().err
    assert "NaN or infinite value(s), the first nan at row 1" in err


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_survey_weight_column_regression_and_multiclass(tmp_path):
    """--weight COL with survey weights reaches the regression and the
    multiclass audits: weighted counts and means, no p-value."""
    rng = np.random.default_rng(2)
    n = 400
    sex = rng.choice(["F", "M"], n)
    y = rng.normal(40, 10, n)
    classes = np.array(["lo", "mid", "hi"])
    labels = rng.integers(0, 3, n)
    proba = rng.dirichlet([1, 1, 1], n)
    proba[np.arange(n), labels] += 1.0
    proba /= proba.sum(axis=1, keepdims=True)
    frame = pd.DataFrame(
        {
            "pred": y + rng.normal(0, 5, n) + 2 * (sex == "M"),
            "y": y,
            "cls": classes[labels],
            **{f"proba_{c}": proba[:, k] for k, c in enumerate(classes)},
            "sex": sex,
            "w": rng.uniform(0.5, 8.0, n).round(3),
        }
    )
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    common = ["--sensitive", "sex", "--weight", "w", *FAST]
    runs = {
        "regression": ["--score", "pred", "--label", "y", "--task", "regression"],
        "multiclass": ["--score-prefix", "proba_", "--label", "cls"],
    }
    for task, argv in runs.items():
        out = tmp_path / f"{task}.json"
        argv = ["audit", "--predictions", str(path), *argv, *common]
        assert main([*argv, "--output", str(out)]) == 0
        report = json.loads(out.read_text())
        assert report["summary"]["task"] == task
        groups = {}
        for g in report["groups"]:
            groups.setdefault(g["group"], g)
        for group, rows in frame.groupby("sex"):
            w = rows["w"]
            assert groups[group]["size"] == pytest.approx(w.sum(), rel=1e-12)
            assert groups[group]["n_rows"] == len(rows)
            assert groups[group]["n_eff"] == pytest.approx(w.sum() ** 2 / (w**2).sum())
            if task == "regression":
                bias = np.average(rows["pred"] - rows["y"], weights=w)
                assert groups[group]["mean_residual"] == pytest.approx(bias)
        assert all(m["pvalue"] is None for m in report["metrics"])
        assert "Design effect" in " ".join(report["notes"])
        assert report["provenance"]["survey"]
