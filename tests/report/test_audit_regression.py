"""The audit of a regressor's predictions: its numbers and what it says.

Numbers against the public metric functions and a pandas groupby; the task's
detection and its message; facts at a threshold only when one is given; the
sentences on groupings that break things (a one-person group, a group whose
predictions are all equal, 40+ intersections of real data).
"""

import math

import numpy as np
import pandas as pd
import pytest
from _report_texts import quiet_audit as _quiet
from _report_texts import texts as _texts

from skfair import audit
from skfair.datasets import load_compas, load_german_credit
from skfair.metrics import (
    abcc,
    delta_dp,
    mcdp,
    mean_absolute_error_difference,
    mean_residual_difference,
    root_mean_squared_error_difference,
)
from skfair.report._common import markdown_text
from skfair.report._regression import detect_task

FAST = {"n_resamples": 19, "n_permutations": 99}


@pytest.fixture(scope="module")
def messy():
    """Two groups of 200, a one-person group and a group of 40 equal predictions."""
    rng = np.random.default_rng(0)
    g = np.array(["a"] * 200 + ["b"] * 200 + ["solo"] + ["flat"] * 40)
    y = rng.normal(50, 10, g.size)
    p = y + rng.normal(0, 5, g.size) + 4 * (g == "b")
    p[g == "flat"] = 42.0
    return g, y, p


@pytest.fixture(scope="module")
def messy_report(messy):
    g, y, p = messy
    return _quiet(y, p, sensitive_features=g, **FAST)


def test_the_task_is_detected_and_said(messy, messy_report):
    y = messy[1]
    s = messy_report.settings
    n = np.unique(y).size
    assert s.task == "regression"
    assert s.task_reason == f"y_true has {n:,} distinct numeric values"
    out, md, page = _texts(messy_report)
    said = f"task detected: regression (y_true has {n:,} distinct numeric values)"
    assert out["summary"]["task_reason"] == s.task_reason
    assert out["methods"][0].startswith("T" + said[1:])
    assert said in page and markdown_text(said) in md  # the lead
    assert detect_task([0, 1, 1], [0.2, 0.5, 0.9]) == ("binary", None)
    # three whole-number classes with scores in [0, 1] are not a regression
    assert detect_task([0, 1, 2], [0.2, 0.5, 0.9]) == ("binary", None)
    assert detect_task([0, 1, 2], [0.2, 5.0, 0.9])[0] == "regression"


def test_metrics_equal_the_public_functions(messy, messy_report):
    g, y, p = messy
    values = messy_report.metrics["value"]
    common = {"sensitive_features": g, "min_group_size": 1}
    eps = messy_report.epsilon
    assert values["delta_dp"] == pytest.approx(delta_dp(None, p, **common))
    assert values["abcc"] == pytest.approx(abcc(None, p, **common))
    assert values["mcdp"] == pytest.approx(mcdp(None, p, **common))
    assert values[f"mcdp@{eps:g}"] == pytest.approx(
        mcdp(None, p, epsilon=eps, domain=None, **common)
    )
    gaps = {
        "mean_residual_gap": mean_residual_difference,
        "mae_gap": mean_absolute_error_difference,
        "rmse_gap": root_mean_squared_error_difference,
    }
    for key, function in gaps.items():
        assert values[key] == pytest.approx(function(y, p, **common)), key
    # no threshold given: no ΔDP_b, no facts at a threshold
    assert not any(k.startswith("delta_dp@") for k in values.index)
    assert messy_report.headline.threshold is None
    assert messy_report.threshold is None


def test_epsilon_default_is_five_percent_of_the_range(messy, messy_report):
    _, _, p = messy
    want = float(f"{0.05 * (p.max() - p.min()):.3g}")
    assert messy_report.epsilon == want
    lead = _texts(messy_report)[0]["methods"][2]
    assert f"ε = {want:g} in the target's units (the default: 5% of the range" in lead
    given = _quiet(messy[1], p, sensitive_features=messy[0], epsilon=2.5, **FAST)
    assert given.epsilon == 2.5 and given.settings.epsilon_rule is None
    assert "mcdp@2.5" in given.metrics.index


def test_group_table_equals_a_pandas_groupby(messy, messy_report):
    g, y, p = messy
    frame = pd.DataFrame({"g": g, "r": p - y, "p": p})
    by = frame.groupby("g")
    table = messy_report.groups.set_index("group")
    for group, rows in by:
        row = table.loc[group]
        assert row["size"] == len(rows)
        assert row["mean_prediction"] == pytest.approx(rows["p"].mean())
        assert row["mean_residual"] == pytest.approx(rows["r"].mean())
        assert row["mae"] == pytest.approx(rows["r"].abs().mean())
        assert row["rmse"] == pytest.approx(np.sqrt((rows["r"] ** 2).mean()))
        for q in (10, 50, 90):
            assert row[f"q{q}"] == pytest.approx(np.quantile(rows["p"], q / 100))
    # the largest group is the reference, its differences are 0
    assert table.loc["a", "is_reference"] and table.loc["a", "mean_residual_diff"] == 0
    assert np.isnan(table.loc["solo", "mae_low"])
    assert table.loc["flat", "q10"] == table.loc["flat", "q90"] == 42.0


def test_sentences_are_true_on_a_messy_grouping(messy, messy_report):
    out, md, page = _texts(messy_report)
    head = out["headline"]["text"]
    facts = messy_report.headline.regression
    # the headline's ranges leave the one-person group out, and say so
    assert facts.bias.left_out == ("solo",)
    bias = next(s for s in head if s.startswith("The bias"))
    assert "left out of this range, fewer than 30 samples: solo" in bias
    g, y, p = messy
    big = pd.DataFrame({"g": g, "r": p - y})
    means = big[big["g"] != "solo"].groupby("g")["r"].mean()
    assert facts.bias.highest.group == means.idxmax() == "b"
    assert facts.bias.value == pytest.approx(means.max() - means.min())
    assert facts.bias.low > 0  # b is over-predicted by 4 ± noise
    summary = out["plain_summary"][0]
    assert summary.startswith("The model over-predicts b by")
    assert "its interval excludes 0, so it is unlikely to be noise" in summary
    # the one-person group: no interval, said in the notes, never "1 people"
    assert any(
        n.startswith("One sample, so no spread and no interval: solo")
        for n in out["notes"]
    )
    assert any("group 'solo' has 1 sample(s), fewer than 10" in n for n in out["notes"])
    everything = " ".join(head + out["plain_summary"] + out["notes"] + out["methods"])
    assert "1 people" not in everything and "scores" not in " ".join(head)
    # every sentence reaches the Markdown and the HTML
    for sentence in head + out["plain_summary"]:
        assert sentence in page
    assert "| flat | 40 |" in md
    # no threshold: no facts at a threshold anywhere
    assert "No decision threshold was given" in " ".join(out["methods"])
    assert "At the threshold" not in everything and "Four-fifths" not in everything


def test_threshold_facts_only_when_a_threshold_is_given(messy):
    g, y, p = messy
    report = _quiet(y, p, sensitive_features=g, threshold=55.0, **FAST)
    values = report.metrics["value"]
    assert values["delta_dp@55"] == pytest.approx(
        delta_dp(None, p, sensitive_features=g, threshold=55.0, min_group_size=1)
    )
    rates = pd.Series(p >= 55.0).groupby(g).mean()
    table = report.groups.set_index("group")
    for group, rate in rates.items():
        assert table.loc[group, "positive_rate"] == pytest.approx(rate)
    facts = report.headline.threshold
    assert facts is not None and facts.threshold == 55.0
    out, md, page = _texts(report)
    assert out["headline"]["text"][0].startswith("At the threshold 55,")
    assert "Groups (decisions at the threshold 55)" in page
    assert "decision: positive when the prediction ≥ 55" in md


def test_no_labels_reports_the_predictions_alone(messy):
    g, _, p = messy
    report = _quiet(None, p, sensitive_features=g, task="regression", **FAST)
    assert "mean_residual_gap" not in report.metrics.index
    assert "mae" not in report.groups.columns
    out, md, _ = _texts(report)
    assert any("Without true values (y_true)" in s for s in out["headline"]["text"])
    assert "task: regression (as given)" in md


def test_regression_refuses_classifier_options(messy):
    g, y, p = messy
    with pytest.raises(ValueError, match="pos_label is for binary classification"):
        _quiet(y, p, sensitive_features=g, pos_label=1, task="regression")
    with pytest.raises(ValueError, match="score_type='logit' is for binary"):
        _quiet(y, p, sensitive_features=g, score_type="logit", task="regression")
    with pytest.raises(ValueError, match="task must be None, 'binary'"):
        _quiet(y, p, sensitive_features=g, task="multi")
    with pytest.raises(ValueError, match="threshold must be 'auto'"):
        _quiet(y, p, sensitive_features=g, threshold="high", task="regression")
    with pytest.raises(ValueError, match="epsilon must be 'auto' or a positive"):
        _quiet(y, p, sensitive_features=g, epsilon=-1.0, task="regression")


def test_binary_defaults_are_unchanged():
    rng = np.random.default_rng(1)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    report = audit(y, s, sensitive_features=np.repeat([0, 1], 150), **FAST)
    assert report.settings.task == "binary" and report.threshold == 0.5
    assert report.epsilon == 0.05 and "delta_dp@0.5" in report.metrics.index


# -- real data -------------------------------------------------------------------
def _ridge_predictions(data, target, drop):
    from sklearn.linear_model import Ridge

    features = pd.get_dummies(data.drop(columns=[target, *drop]), dtype=float)
    features = features.fillna(0.0)
    model = Ridge(alpha=1.0).fit(features, data[target])
    return model.predict(features)


@pytest.fixture(scope="module")
def credit_report():
    bunch = load_german_credit()
    data = bunch.data
    sensitive = ["sex", "age", "personal_status_sex", "age_years"]
    pred = _ridge_predictions(data, "credit_amount", sensitive)
    return (
        _quiet(
            data["credit_amount"],
            pred,
            sensitive_features=bunch.sensitive,
            **FAST,
        ),
        data,
        pred,
    )


def test_german_credit_amount(credit_report):
    report, data, pred = credit_report
    assert report.settings.task == "regression"
    table = report.groups
    one = table[table["grouping"] == "sex"].set_index("group")
    truth = data["credit_amount"].to_numpy(dtype=float)
    by = pd.DataFrame({"s": report.inputs.sensitive_features["sex"], "r": pred - truth})
    for group, rows in by.groupby("s", observed=True):
        assert one.loc[str(group), "mean_residual"] == pytest.approx(rows["r"].mean())
    out = report.to_dict()
    assert "Group prediction CDFs" in report.to_html()  # the figures are drawn
    assert all(
        math.isfinite(r["value"]) for r in out["metrics"] if r["value"] is not None
    )


def test_compas_priors_on_many_intersections():
    """40+ intersections, many tiny: every sentence stays true."""
    bunch = load_compas()
    data = bunch.data
    groups = data[["race", "sex", "age_cat", "c_charge_degree"]].astype(str)
    drop = [c for c in data.columns if data[c].dtype == object or c in ("id",)]
    numeric = data.drop(columns=drop).select_dtypes("number").fillna(0.0)
    pred = _ridge_predictions(
        numeric, "priors_count", ["decile_score", "v_decile_score"]
    )
    report = _quiet(numeric["priors_count"], pred, sensitive_features=groups, **FAST)
    kept = report.kept_groups["race & sex & age_cat & c_charge_degree"]
    assert len(kept) >= 40
    out, _, page = _texts(report)
    facts = report.headline.regression
    sizes = report.groups.set_index("group")["size"]
    for gap in (facts.bias, facts.mae, facts.rmse, facts.predictions):
        assert sizes[gap.lowest.group] >= 30 and sizes[gap.highest.group] >= 30
        assert all(sizes[g] < 30 for g in gap.left_out)
    head = " ".join(out["headline"]["text"])
    assert "and " in head and "more)" in head  # long lists are cut
    small = int((report.groups["size"] < 30).sum())
    assert small > 0
    assert any(n.startswith("Small groups:") for n in out["notes"])
    for sentence in out["headline"]["text"] + out["plain_summary"]:
        assert sentence in page


def test_headline_gap_note_names_the_group_not_its_code():
    """The headline's error-gap interval note names a small group by its label.

    Before, the interval was computed on the groups' codes: "group '2' has 6
    sample(s)".
    """
    rng = np.random.default_rng(7)
    g = np.array(["north"] * 20 + ["south"] * 20 + ["tiny"] * 6)
    y = rng.normal(50, 10, g.size)
    p = y + rng.normal(0, 5, g.size)
    report = _quiet(y, p, sensitive_features=g, **FAST)
    bias = report.headline.regression.bias
    assert bias.note is not None and "group 'tiny' has 6 sample(s)" in bias.note
    text = " ".join(_texts(report)[0]["headline"]["text"])
    assert "group 'tiny' has 6" in text and "group '2'" not in text
