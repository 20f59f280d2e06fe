"""``audit(score_type=...)``: logits and margins audited without a manual transform."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from skfair import audit
from skfair.metrics import abcc, delta_dp, mcdp

FAST = {"n_resamples": 49, "n_permutations": 49}


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    n = 250
    groups = np.repeat(["a", "b"], n)
    logits = np.r_[rng.normal(-0.4, 1.0, n), rng.normal(0.4, 1.5, n)]
    y = (rng.random(2 * n) < expit(logits)).astype(int)
    return y, logits, groups


def test_logit_audit_equals_the_audit_of_the_probabilities(data):
    y, logits, groups = data
    raw = audit(
        y, logits, sensitive_features=groups, threshold=0.3, score_type="logit", **FAST
    )
    prob = audit(
        y, expit(logits), sensitive_features=groups, threshold=float(expit(0.3)), **FAST
    )
    pd.testing.assert_frame_equal(raw.metrics, prob.metrics)
    pd.testing.assert_frame_equal(raw.groups, prob.groups)
    assert raw.headline == prob.headline
    assert raw.advice == prob.advice
    assert raw.threshold == pytest.approx(expit(0.3))
    assert raw.settings.decision_threshold == 0.3
    assert "decision: positive when the logit ≥ 0.3" in raw.to_markdown()
    assert "Scores: logits, mapped through the sigmoid" in raw.to_markdown()


def test_margin_audit_keeps_the_scale(data):
    y, margins, groups = data
    margins = 3.0 * margins  # not a logit scale
    report = audit(
        y,
        margins,
        sensitive_features=groups,
        threshold=0.0,
        score_type="margin",
        **FAST,
    )
    values = report.metrics["value"]
    assert values["mcdp"] == pytest.approx(
        mcdp(None, margins, sensitive_features=groups)
    )
    assert values["abcc"] == pytest.approx(
        abcc(None, margins, sensitive_features=groups)
    )
    assert values["delta_dp"] == pytest.approx(
        delta_dp(None, margins, sensitive_features=groups)
    )
    assert values["delta_dp@0"] == pytest.approx(
        delta_dp(None, margins, sensitive_features=groups, threshold=0.0)
    )
    # MCDP(0) is the KS statistic: the same after any increasing map; ABCC is not
    prob = audit(y, expit(margins), sensitive_features=groups, **FAST)
    assert values["mcdp"] == pytest.approx(prob.metrics["value"]["mcdp"])
    assert values["delta_dp@0"] == pytest.approx(prob.metrics["value"]["delta_dp@0.5"])
    assert abs(values["abcc"] - prob.metrics["value"]["abcc"]) > 0.5
    assert values["abcc"] > 1.0  # in margin units, not clipped to [0, 1]
    for key in ("abpc", "mcdp@0.05"):
        row = report.metrics.loc[key]
        assert math.isnan(row["value"])
        assert row["undefined_reason"].startswith("not applicable to margins")
    for key in ("abcc", "delta_dp"):
        assert math.isnan(report.metrics.loc[key, "dkw_low"])
        assert report.metrics.loc[key, "high"] > report.metrics.loc[key, "low"]
    assert report.headline.distribution.share_near is None
    text = report.to_markdown()
    assert "they change with the scale" in text and "not applicable" in text
    assert "decision: positive when the margin ≥ 0" in report.to_markdown()
    assert "<table" in report.to_html(figures=False)


def test_margins_inside_the_unit_interval_are_still_not_computed_as_probabilities(data):
    y, logits, groups = data
    small = 0.1 * np.tanh(logits)  # margins that happen to lie in [-0.1, 0.1]
    small = small - small.min()
    report = audit(
        y, small, sensitive_features=groups, threshold=0.05, score_type="margin", **FAST
    )
    assert math.isnan(report.metrics.loc["abpc", "value"])


def test_out_of_range_scores_name_the_option(data):
    y, logits, groups = data
    with pytest.raises(
        ValueError, match=r"score_type='logit' or 'margin' \(--score-type\)"
    ):
        audit(y, logits, sensitive_features=groups, **FAST)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"score_type": "odds"},
            "score_type must be 'probability', 'logit' or 'margin'",
        ),
        ({"score_type": "logit", "threshold": math.inf}, "finite real number"),
        ({"score_type": "margin", "threshold": "0"}, "finite real number"),
        ({"threshold": -1.0}, "threshold must be a real number in"),
    ],
)
def test_invalid_score_type_and_thresholds(data, kwargs, message):
    y, logits, groups = data
    with pytest.raises(ValueError, match=message):
        audit(y, expit(logits), sensitive_features=groups, **kwargs, **FAST)


def test_infinite_logits_are_refused(data):
    y, logits, groups = data
    logits = logits.copy()
    logits[3] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        audit(y, logits, sensitive_features=groups, score_type="logit", **FAST)


def test_dask_refuses_raw_scores(data):
    dd = pytest.importorskip("dask.dataframe")
    y, logits, groups = data
    frame = dd.from_pandas(
        pd.DataFrame({"y": y, "s": logits, "g": groups}), npartitions=2
    )
    with pytest.raises(ValueError, match="not supported on Dask"):
        audit(frame["y"], frame["s"], sensitive_features=frame["g"], score_type="logit")


def test_margin_audit_renders_with_figures_and_says_its_scale(data):
    pytest.importorskip("matplotlib")
    y, margins, groups = data
    report = audit(
        y,
        3.0 * margins,
        sensitive_features=groups,
        threshold=0.0,
        score_type="margin",
        n_resamples=19,
        n_permutations=19,
    )
    page = report.to_html()
    assert "needs scores in [0, 1]; these are margins" in page
    assert page.count("data:image/png;base64") >= 3
    summary = report.to_dict()["summary"]
    assert summary["score_type"] == "margin" and summary["score_threshold"] == 0.0
