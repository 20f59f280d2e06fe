"""Survey weights in the multiclass audit (issue 36): weighted and honest.

The group table's weighted counts, shares and rates are checked against an
independent pandas/numpy recomputation (vectorised groupby sums), the
Wilson intervals against Kish's effective size of each denominator; no
test is run and the report says so.
"""

import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skfair import audit
from skfair.report._common import SURVEY_NO_DKW, SURVEY_NO_TEST

FAST = {"n_resamples": 49}
CLASSES = ["lo", "mid", "hi"]
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


def multiclass_sample(seed=0, n=900):
    """True classes, probabilities shifted toward "hi" for M, weights 1 / π."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    y = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    logits = rng.normal(size=(n, 3))
    logits[np.arange(n), y] += 1.5
    logits[:, 2] += 0.6 * (sex == "M")
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    # women and class hi under-sampled: their weights are larger
    w = np.where(sex == "F", 2.5, 1.0) * np.where(y == 2, 3.0, 1.0)
    w = w * rng.uniform(0.8, 1.25, n)
    return np.array(CLASSES)[y], proba, pd.Series(sex, name="sex"), w


def _wilson(rate, n, level=0.95):
    z = stats.norm.isf((1 - level) / 2)
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _audit(y, proba, sex, w=None):
    return audit(
        y,
        proba,
        sensitive_features=sex,
        classes=CLASSES,
        task="multiclass",
        sample_weight=w,
        **FAST,
    )


def test_weighted_multiclass_table_equals_pandas_recomputation():
    y, proba, sex, w = multiclass_sample()
    report = _audit(y, proba, sex, w)
    pred = np.array(CLASSES)[proba.argmax(axis=1)]
    data = pd.DataFrame({"sex": sex, "w": w, "w2": w * w})
    for c in CLASSES:
        data[f"pred_{c}"] = w * (pred == c)
        data[f"true_{c}"] = w * (y == c)
        data[f"tp_{c}"] = w * ((pred == c) & (y == c))
        data[f"fp_{c}"] = w * ((pred == c) & (y != c))
        data[f"true2_{c}"] = (w * w) * (y == c)
        data[f"score_{c}"] = w * proba[:, CLASSES.index(c)]
    sums = data.groupby("sex").sum()
    rows = sex.value_counts()
    table = report.groups.set_index(["group", "class"])
    for g in ("F", "M"):
        s = sums.loc[g]
        n_eff = s["w"] ** 2 / s["w2"]
        for c in CLASSES:
            row = table.loc[(g, c)]
            assert row["size"] == pytest.approx(s["w"], rel=1e-12)
            assert row["n_rows"] == rows[g]
            assert row["n_eff"] == pytest.approx(n_eff, rel=1e-12)
            assert row["design_effect"] == pytest.approx(rows[g] / n_eff)
            assert row["n_predicted"] == pytest.approx(s[f"pred_{c}"], rel=1e-12)
            assert row["n_true"] == pytest.approx(s[f"true_{c}"], rel=1e-12)
            assert row["mean_score"] == pytest.approx(s[f"score_{c}"] / s["w"])
            rate = s[f"pred_{c}"] / s["w"]
            assert row["selection_rate"] == pytest.approx(rate, rel=1e-9)
            low, high = _wilson(rate, n_eff)
            assert row["selection_rate_low"] == pytest.approx(low, rel=1e-9)
            assert row["selection_rate_high"] == pytest.approx(high, rel=1e-9)
            tpr = s[f"tp_{c}"] / s[f"true_{c}"]
            n_eff_true = s[f"true_{c}"] ** 2 / s[f"true2_{c}"]
            assert row["n_eff_true"] == pytest.approx(n_eff_true, rel=1e-12)
            assert row["tpr"] == pytest.approx(tpr, rel=1e-9)
            low, high = _wilson(tpr, n_eff_true)
            assert row["tpr_low"] == pytest.approx(low, rel=1e-9)
            assert row["tpr_high"] == pytest.approx(high, rel=1e-9)
            others = s["w"] - s[f"true_{c}"]
            assert row["fpr"] == pytest.approx(s[f"fp_{c}"] / others, rel=1e-9)
            n_eff_others = others**2 / (s["w2"] - s[f"true2_{c}"])
            assert row["n_eff_not_true"] == pytest.approx(n_eff_others, rel=1e-12)
    # predicted beside true shares, and the confusion matrices, weighted
    facts = report.headline.multiclass
    share = next(x for x in facts.shares if x.group == "F" and x.label == "hi")
    f = sums.loc["F"]
    assert share.predicted == pytest.approx(f["pred_hi"] / f["w"])
    assert share.true == pytest.approx(f["true_hi"] / f["w"])
    matrix = next(m for m in facts.confusion if m.group == "F")
    assert matrix.size == pytest.approx(f["w"])
    hi_as_lo = w[(sex == "F").to_numpy() & (y == "hi") & (pred == "lo")].sum()
    assert matrix.counts[2][0] == pytest.approx(hi_as_lo)
    # the weighted rates differ from the unweighted: the test can fail
    plain = _audit(y, proba, sex).groups.set_index(["group", "class"])
    assert abs(plain.loc[("F", "hi"), "tpr"] - table.loc[("F", "hi"), "tpr"]) > 1e-3


def test_weighted_multiclass_metrics_and_gaps():
    y, proba, sex, w = multiclass_sample(1)
    report, plain = _audit(y, proba, sex, w), _audit(y, proba, sex)
    m, p = report.metrics, plain.metrics
    pred = proba.argmax(axis=1)
    rows = {g: (sex == g).to_numpy() for g in ("F", "M")}
    rates = {g: np.average(pred[r] == 2, weights=w[r]) for g, r in rows.items()}
    assert m.loc["selection_rate_gap[hi]", "value"] == pytest.approx(
        abs(rates["F"] - rates["M"]), rel=1e-9
    )
    means = {g: np.average(proba[r, 2], weights=w[r]) for g, r in rows.items()}
    assert m.loc["delta_dp[hi]", "value"] == pytest.approx(
        abs(means["F"] - means["M"]), rel=1e-9
    )
    for key in ("delta_dp[hi]", "mcdp[hi]", "selection_rate_gap[hi]", "tpr_gap"):
        assert abs(m.loc[key, "value"] - p.loc[key, "value"]) > 1e-3, key
    defined = m[m["undefined_reason"].isna()]
    assert defined["pvalue"].isna().all() and defined["test"].isna().all()
    assert defined["dkw_low"].isna().all()
    assert p["pvalue"].notna().any()


def test_multiclass_report_says_not_tested():
    y, proba, sex, w = multiclass_sample(2)
    report = _audit(y, proba, sex, w)
    text = report.to_dict()
    methods = " ".join(text["methods"])
    assert SURVEY_NO_TEST in methods
    assert "Each class has its own tests" not in methods
    assert SURVEY_NO_DKW in text["notes"]
    headline = " ".join(text["headline"]["text"])
    assert "not tested (survey weights" in headline
    assert "p =" not in headline and "p ≤" not in headline
    assert "weighted n = " in headline and "n_eff = " in headline
    summary = " ".join(text["plain_summary"])
    assert "No test is run with survey weights" in summary
    assert "no finding" not in summary and "beyond chance" not in summary
    note = next(t for t in text["notes"] if t.startswith("Design effect"))
    assert note.count("F: ") == 1  # each group once, not once per class
    markdown = report.to_markdown()
    assert "| group | weighted size | rows | n\\_eff | deff |" in markdown
    assert "Confusion matrix (weighted counts)" in markdown


#: A number followed by the noun it counts ("30 samples", "2,412.2 people").
_COUNTED = re.compile(r"(?<![\w-])(\d[\d,]*(?:\.\d+)?) (samples?|people|person)\b")


def _texts(report):
    d = report.to_dict()
    return {
        "headline": " ".join(d["headline"]["text"]),
        "summary": " ".join(d["plain_summary"]),
        "methods": " ".join(d["methods"]),
        "notes": " ".join(d["notes"]),
    }


def test_weighted_multiclass_text_never_calls_an_effective_size_samples():
    """With survey weights the sizes the small-group rules read are Kish's
    n_eff: no Methods, headline, summary or note sentence counts them as
    "samples" or "people"; the only counted people are the weighted total."""
    rng = np.random.default_rng(11)
    n = 700
    g = rng.choice(["big", "mid", "tiny"], n, p=[0.6, 0.36, 0.04])
    y = rng.choice(4, n, p=[0.6, 0.25, 0.1, 0.05])
    logits = rng.normal(size=(n, 4))
    logits[np.arange(n), y] += 1.5
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    w = rng.uniform(0.5, 6, n) * np.where(g == "tiny", 3, 1)
    common = {"sensitive_features": pd.Series(g, name="grp"), "task": "multiclass"}
    report = audit(y, proba, sample_weight=w, **common, **FAST)
    texts = _texts(report)
    tiny = w[g == "tiny"]
    assert tiny.sum() ** 2 / (tiny**2).sum() < 30  # the small-group rules fire
    total = f"{w.sum():,.1f}"
    for section, text in texts.items():
        counted = set(_COUNTED.findall(text))
        assert counted <= {(total, "people")}, (section, counted)
    assert (
        "at least 30 effective samples (Kish) for the selection rate"
        in (texts["methods"])
    )
    assert "of at least 10 effective samples (Kish) of the class" in texts["methods"]
    assert "count each group's people (weighted counts)" in texts["methods"]
    assert "fewer than 30 effective samples (Kish)" in texts["summary"]
    assert "Kish effective size" in texts["headline"]  # the small pair
    # the same audit without weights counts samples and people, as before
    plain = _texts(audit(y, proba, **common, **FAST))
    assert "at least 30 samples for the selection rate" in plain["methods"]
    tiny_rows = (str(int((g == "tiny").sum())), "people")
    assert tiny_rows in set(_COUNTED.findall(plain["headline"]))
