"""What the audit report says (issues 23 and 19): groups, labels, headline,
per-group table, reference ratios, trade-off, undefined metrics, escaping."""

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    demographic_parity_ratio,
    equalized_odds_difference,
    false_positive_rate_difference,
    four_fifths,
    mcdp,
    true_positive_rate_difference,
)
from skfair.model_selection import threshold_tradeoff
from skfair.report import audit
from skfair.report._common import AUDIT_PHASES, FEW_POSITIVES, markdown_text
from skfair.utils._validation import POS_LABEL_NOT_FOUND_ERROR

FAST = {"n_resamples": 19, "n_permutations": 19}
Z95 = 1.959963984540054  # the normal quantile of 0.975


def wilson(k, n, z=Z95):
    """The Wilson score interval, written out (no statsmodels)."""
    p = k / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 500
    sex = rng.choice(["f", "m"], n, p=[0.4, 0.6])
    race = rng.choice(["x", "y"], n)
    y_score = np.clip(rng.beta(2, 4, n) + 0.15 * (sex == "m"), 0, 1)
    y_true = (rng.random(n) < y_score).astype(int)
    return y_true, y_score, pd.DataFrame({"sex": sex, "race": race})


@pytest.fixture(scope="module")
def report(data):
    y_true, y_score, sensitive = data
    return audit(y_true, y_score, sensitive_features=sensitive, **FAST)


# -- 23.2: a metric undefined for some group ----------------------------------------
def test_an_undefined_metric_is_reported_and_the_audit_goes_on():
    rng = np.random.default_rng(1)
    y_score = rng.random(201)
    groups = np.array(["a"] * 100 + ["b"] * 100 + ["solo"])
    y_true = (rng.random(201) < y_score).astype(int)
    with pytest.raises(ValueError, match="ABPC is undefined") as info:
        abpc(None, y_score, sensitive_features=groups, min_group_size=1)
    report = audit(y_true, y_score, sensitive_features=groups, min_group_size=1, **FAST)
    row = report.metrics.loc["abpc"]
    assert np.isnan(row["value"]) and row["undefined_reason"] == str(info.value)
    assert report.metrics.drop(index="abpc")["undefined_reason"].isna().all()
    # the others are still the public metrics, with intervals
    for key, func, kwargs in [
        ("mcdp", mcdp, {}),
        ("abcc", abcc, {}),
        ("delta_dp@0.5", delta_dp, {"threshold": 0.5}),
    ]:
        expected = func(
            None, y_score, sensitive_features=groups, min_group_size=1, **kwargs
        )
        assert report.metrics.loc[key, "value"] == expected
        # an interval, or the reason there is none (a resampling engine may
        # need two samples per group)
        row = report.metrics.loc[key]
        assert np.isfinite(row["low"]) or row["inference_error"]
    out = report.to_dict()
    abpc_row = next(r for r in out["metrics"] if r["key"] == "abpc")
    assert (
        abpc_row["value"] is None
        and "ABPC is undefined" in abpc_row["undefined_reason"]
    )
    assert any(
        n.startswith("ABPC (area between densities) is undefined") for n in out["notes"]
    )
    assert any("ABPC (area between densities) (undefined)" in m for m in out["methods"])
    text = report.to_markdown()
    assert "| ABPC (area between densities) | undefined |" in text
    # only ABPC: every other metric shows its value (issue A)
    assert text.count("| undefined |") == 1
    for row in out["metrics"]:
        if row["key"] != "abpc":
            assert row["undefined_reason"] is None
            assert f"| {markdown_text(row['metric'])} | {row['value']:.4f} |" in text
    json.dumps(out, allow_nan=False)


# -- 23.3: the positive label ----------------------------------------------------
def test_pos_label_is_needed_for_other_labels_and_stated(data):
    y_true, y_score, sensitive = data
    words = np.where(y_true == 1, "no", "yes")  # "no" is the positive outcome
    with pytest.raises(ValueError) as info:
        audit(words, y_score, sensitive_features=sensitive, **FAST)
    message = str(info.value)
    assert "['no', 'yes']" in message and "pass pos_label=" in message
    assert "{0, 1}, {False, True} or {-1, 1}" in message
    with pytest.raises(ValueError, match=re.escape("pos_label='maybe' is not one")):
        audit(words, y_score, sensitive_features=sensitive, pos_label="maybe")
    assert POS_LABEL_NOT_FOUND_ERROR.startswith("pos_label=")
    report = audit(words, y_score, sensitive_features=sensitive, pos_label="no", **FAST)
    same = audit(y_true, y_score, sensitive_features=sensitive, **FAST)
    assert report.to_dict()["summary"]["pos_label"] == "no"
    assert same.to_dict()["summary"]["pos_label"] == 1
    pd.testing.assert_frame_equal(report.groups, same.groups)
    assert "positive label: 'no'" in report.to_markdown()


@pytest.mark.parametrize(
    ("labels", "positive"), [([-1, 1], 1), ([False, True], True), ([0.0, 1.0], 1.0)]
)
def test_unambiguous_labels_need_no_pos_label(data, labels, positive):
    y_true, y_score, sensitive = data
    y = np.where(y_true == 1, labels[1], labels[0])
    report = audit(y, y_score, sensitive_features=sensitive, **FAST)
    assert report.pos_label == positive
    assert report.groups["n_positive"].iloc[0] == np.sum(
        y_true[sensitive["sex"] == report.groups["group"].iloc[0]]
    )


# -- 23.7: the per-group table -----------------------------------------------------
def test_per_group_counts_and_wilson_intervals(data, report):
    y_true, y_score, sensitive = data
    d = y_score >= 0.5
    table = report.groups
    for _, row in table.iterrows():
        if row["grouping"] == "sex & race":
            sex, race = row["group"].split(" & ")
            member = (sensitive["sex"] == sex) & (sensitive["race"] == race)
        else:
            member = sensitive[row["grouping"]] == row["group"]
        member = member.to_numpy()
        t, p = y_true[member], d[member]
        counts = {
            "size": member.sum(),
            "n_positive": t.sum(),
            "n_selected": p.sum(),
            "tp": np.sum(p & (t == 1)),
            "fp": np.sum(p & (t == 0)),
            "fn": np.sum(~p & (t == 1)),
            "tn": np.sum(~p & (t == 0)),
        }
        for key, value in counts.items():
            assert row[key] == value, key
        for rate, (k, n) in {
            "positive_rate": (counts["n_selected"], counts["size"]),
            "tpr": (counts["tp"], counts["n_positive"]),
            "fpr": (counts["fp"], counts["size"] - counts["n_positive"]),
            "fnr": (counts["fn"], counts["n_positive"]),
            "precision": (counts["tp"], counts["n_selected"]),
        }.items():
            assert row[rate] == pytest.approx(k / n)
            low, high = wilson(k, n)
            assert row[f"{rate}_low"] == pytest.approx(low, abs=1e-12)
            assert row[f"{rate}_high"] == pytest.approx(high, abs=1e-12)
        assert row["few_positives"] == (counts["n_positive"] < FEW_POSITIVES)


def test_wilson_interval_at_zero_and_few_positives():
    # a group with one positive label, which the model misses: TPR 0 with a
    # wide interval, flagged
    rng = np.random.default_rng(3)
    g = np.repeat(["big", "small"], [200, 40])
    y_score = rng.random(240) * 0.4
    y_true = (rng.random(240) < 0.4).astype(int)
    y_true[200:] = 0
    y_true[200] = 1
    report = audit(y_true, y_score, sensitive_features=g, **FAST)
    small = report.groups.set_index("group").loc["small"]
    assert small["tpr"] == 0 and small["tpr_low"] == 0
    assert small["tpr_high"] == pytest.approx(wilson(0, 1)[1])
    assert small["few_positives"] is True or small["few_positives"] == True  # noqa: E712
    assert any(
        n.startswith("Few positives") and "small (1)" in n for n in report.notes()
    )


def test_reference_group_ratios_and_differences(data, report):
    table = report.groups[report.groups["grouping"] == "sex"].set_index("group")
    # the largest group is the reference by default
    assert table["is_reference"].idxmax() == table["size"].idxmax() == "m"
    ref = table.loc["m"]
    for rate in ("positive_rate", "tpr", "fpr", "fnr"):
        assert table.loc["f", f"{rate}_ratio"] == pytest.approx(
            table.loc["f", rate] / ref[rate]
        )
        assert table.loc["f", f"{rate}_diff"] == pytest.approx(
            table.loc["f", rate] - ref[rate]
        )
        assert ref[f"{rate}_ratio"] == 1 and ref[f"{rate}_diff"] == 0
    y_true, y_score, sensitive = data
    other = audit(y_true, y_score, sensitive_features=sensitive, reference="f", **FAST)
    sex = other.groups[other.groups["grouping"] == "sex"].set_index("group")
    assert sex.loc["f", "is_reference"] and not sex.loc["m", "is_reference"]
    assert sex.loc["m", "positive_rate_ratio"] == pytest.approx(
        table.loc["m", "positive_rate"] / table.loc["f", "positive_rate"]
    )
    assert other.to_dict()["summary"]["reference"] == "f"
    # an intersection, by its text; a group of no table is an error
    inter = audit(
        y_true, y_score, sensitive_features=sensitive, reference="f & y", **FAST
    )
    rows = inter.groups[inter.groups["grouping"] == "sex & race"]
    assert rows.loc[rows["is_reference"], "group"].tolist() == ["f & y"]
    assert inter.headline.threshold.reference.group == "f & y"
    # every table takes the reference's part for its attribute (issue G)
    for grouping, group in [("sex", "f"), ("race", "y")]:
        rows = inter.groups[inter.groups["grouping"] == grouping]
        assert rows.loc[rows["is_reference"], "group"].tolist() == [group]
    assert [(r.grouping, r.group, r.how) for r in inter.references] == [
        ("sex", "f", "component"),
        ("race", "y", "component"),
        ("sex & race", "f & y", "given"),
    ]
    methods = " ".join(inter.to_dict()["methods"])
    assert "sex: f (the given reference's part for this attribute)" in methods
    assert "sex & race: f & y (as given)" in methods
    with pytest.raises(ValueError, match="reference='z' is not a group"):
        audit(y_true, y_score, sensitive_features=sensitive, reference="z")


@pytest.mark.parametrize(("selected_b", "verdict"), [(35, "fail"), (45, "pass")])
def test_four_fifths_rule(selected_b, verdict):
    # group a: 120 samples, 60 selected (0.5); group b: 100, selected_b
    y_score = np.r_[
        np.repeat([0.9, 0.1], 60), np.repeat([0.9, 0.1], [selected_b, 100 - selected_b])
    ]
    g = np.repeat(["a", "b"], [120, 100])
    y_true = np.tile([1, 0], 110)
    report = audit(y_true, y_score, sensitive_features=g, **FAST)
    facts = report.headline.threshold
    ratio = (selected_b / 100) / 0.5
    assert (facts.reference.group, facts.reference.rate) == ("a", 0.5)
    assert facts.farthest.group == "b"
    assert facts.farthest.ratio == pytest.approx(ratio)
    assert facts.impact_ratio == pytest.approx(ratio)
    assert facts.four_fifths == verdict
    # the reference "a" is the top group here, so the report's verdict (each
    # group against the reference) and four_fifths (lowest against highest) agree
    public = four_fifths(y_true, (y_score >= 0.5).astype(int), sensitive_features=g)
    assert public.passed == (verdict == "pass")
    assert public.ratio == pytest.approx(facts.impact_ratio, rel=1e-14)
    b = report.groups.set_index("group").loc["b"]
    assert b["four_fifths"] == (verdict == "pass")
    text = report.to_dict()["headline"]["text"]
    if verdict == "fail":  # 35 of 100: Wilson interval 26%–45%, below 50%
        assert facts.disadvantaged.group == "b" and facts.unclear == ()
        assert f"a positive-rate ratio of {ratio:.3f}" in text[0]
        assert "Four-fifths rule (0.8 to 1.25 times the rate of a): failed" in text[1]
    else:  # 45 of 100: Wilson interval 35.6%–54.8% contains 50%
        assert facts.disadvantaged is None
        assert [g.group for g in facts.unclear] == ["b"]
        assert "no group of sensitive_features is selected clearly less" in text[0]
        assert text[1].startswith("Too few to tell") and "b (n = 100)" in text[1]
        assert "every group compared is within 0.8 to 1.25 times" in text[2]


def test_audit_rate_numbers_are_the_public_rate_functions(data, report):
    # One definition: the headline's gaps and impact ratio are fairlearn's
    # between-group difference and ratio of skfair.metrics (computed from the
    # group counts as weighted rows, hence equal up to the last bits).
    y_true, y_score, sensitive = data
    decisions = (y_score >= 0.5).astype(int)
    facts = report.headline.threshold
    assert facts.grouping == "sex & race"
    assert facts.tpr_gap.left_out == () and facts.fpr_gap.left_out == ()
    kwargs = {"sensitive_features": sensitive}
    tpr = true_positive_rate_difference(y_true, decisions, **kwargs)
    fpr = false_positive_rate_difference(y_true, decisions, **kwargs)
    assert facts.tpr_gap.value == pytest.approx(tpr, rel=1e-14)
    assert facts.fpr_gap.value == pytest.approx(fpr, rel=1e-14)
    assert max(tpr, fpr) == equalized_odds_difference(y_true, decisions, **kwargs)
    rule = four_fifths(y_true, decisions, **kwargs)
    assert facts.impact_ratio == pytest.approx(rule.ratio, rel=1e-14)
    assert rule.ratio == demographic_parity_ratio(y_true, decisions, **kwargs)
    assert 0 < rule.ratio < 0.8 and tpr > 0.05  # not a trivial case
    table = report.groups[report.groups["grouping"] == "sex & race"]
    by_text = dict(zip(table["group"], table["positive_rate"]))
    assert {f"{a} & {b}": v for (a, b), v in rule.selection_rates.items()} == by_text
    assert facts.lowest.group == "{} & {}".format(*rule.lowest_group)
    assert facts.highest.group == "{} & {}".format(*rule.highest_group)


# -- 23.6: headline, summary, methods ---------------------------------------------
def test_headline_leads_with_the_threshold_facts(report):
    out = report.to_dict()
    text = out["headline"]["text"]
    assert text[0].startswith("At the threshold 0.5,")
    assert any("Four-fifths rule" in t and "Impact ratio" in t for t in text)
    gaps = next(t for t in text if t.startswith("True-positive rates range"))
    assert "false-positive" in gaps
    assert text[-2].startswith("Over all thresholds") and "MCDP(0)" in text[-2]
    assert "of the scores lie within ±0.05" in text[-1]
    facts = out["headline"]["threshold"]
    table = report.groups[report.groups["grouping"] == "sex & race"]
    assert facts["tpr_gap"]["value"] == pytest.approx(
        table["tpr"].max() - table["tpr"].min()
    )
    assert facts["fpr_gap"]["value"] == pytest.approx(
        table["fpr"].max() - table["fpr"].min()
    )
    dist = out["headline"]["distribution"]
    scores = report.inputs.scores
    assert dist["share_near"] == pytest.approx(
        np.mean(np.abs(scores - dist["score"]) <= 0.05)
    )
    assert dist["value"] == report.metrics.loc["mcdp", "value"]
    assert 2 <= len(out["plain_summary"]) <= 7
    methods = " ".join(out["methods"])
    assert "Wilson" in methods and "19 resamples" in methods
    assert "Newcombe" in methods and "Welch" in methods
    assert "smallest p-value is 1/(19 + 1) = 0.05" in methods
    assert "Left out: nothing." in methods


def test_the_metrics_table_reads_each_metrics_interval(report):
    # the views read each MetricResult's fields: its interval and method,
    # else its DKW interval
    import dataclasses

    from skfair.report._tables import metrics_rows

    class Fake:
        pass

    fake = Fake()
    fake.__dict__.update(report.__dict__)
    first = dataclasses.replace(
        report.metric_results[0], low=0.01, high=0.99, interval="studentized"
    )
    fake.metric_results = (first, *report.metric_results[1:])
    fake.confidence_level, fake.engine = report.confidence_level, report.engine
    header, rows = metrics_rows(fake)
    assert header[1:5] == ["value", "groups", "95% CI", "method"]
    assert rows[0][3:5] == ["[0.0100, 0.9900]", "studentized"]
    header, rows = metrics_rows(report)
    assert rows[0][4] == report.metrics["interval"].iloc[0]
    no_main = dataclasses.replace(first, low=float("nan"), high=float("nan"))
    fake.metric_results = (no_main, *report.metric_results[1:])
    header, rows = metrics_rows(fake)
    assert rows[0][4] == "DKW"


# -- 19.4: the trade-off in the report -------------------------------------------------
def test_tradeoff_in_the_report_on_an_imbalanced_case():
    rng = np.random.default_rng(5)
    n = 4000
    g = rng.choice(["a", "b"], n, p=[0.7, 0.3])
    y = (rng.random(n) < 0.04 + 0.01 * (g == "b")).astype(int)
    score = 1 / (1 + np.exp(-(rng.normal(-4, 1, n) + 2.5 * y + 0.5 * (g == "b"))))
    assert y.mean() <= 0.06
    # at 0.5 the gap (0.011) is smaller than at any threshold near the best
    # balanced accuracy: nothing to recommend, and the report says so
    report = audit(y, score, sensitive_features=g, **FAST)
    out = report.to_dict()["tradeoff"]
    assert out["threshold"] is None and out["at_threshold"]["delta_dp"] < 0.02
    summary = report.to_dict()["plain_summary"]
    assert any(
        s.startswith("No threshold improves on the audit's 0.5 (positive-rate gap")
        and "every threshold with a smaller gap keeps less than 95% of the best "
        "balanced accuracy"
        in s
        for s in summary
    )
    # at 0.05 a fairer threshold keeps 95% of the best
    report = audit(y, score, sensitive_features=g, threshold=0.05, **FAST)
    out = report.to_dict()["tradeoff"]
    assert {"threshold", "performance", "positive_rate"} <= set(out)
    assert out["performance"]["name"] == "balanced_accuracy"
    assert set(out["positive_rate"]) == {"a", "b"}
    assert all(0 < r < 1 for r in out["positive_rate"].values())
    direct = threshold_tradeoff(y, score, sensitive_features=g, min_group_size=1)
    at = out["at_threshold"]
    assert at["delta_dp"] == pytest.approx(
        delta_dp(None, score, sensitive_features=g, threshold=0.05)
    )
    # the report recommends a candidate of the trade-off, fairer than now
    assert out["threshold"] in set(direct.candidates["threshold"])
    assert out["delta_dp"] < at["delta_dp"]
    assert out["performance"]["value"] >= 0.95 * out["best"]["performance"]
    assert "## Threshold trade-off" in report.to_markdown()
    no_labels = audit(None, score, sensitive_features=g, **FAST)
    assert no_labels.to_dict()["tradeoff"] is None


# -- 19.6: Markdown escaping -----------------------------------------------------------
def _unescaped_pipes(line):
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_escapes_every_user_string():
    rng = np.random.default_rng(6)
    names = np.array(["<script>alert(1)</script>", "a|b", "*c*_[d](e)"])
    g = rng.choice(names, 300)
    sensitive = pd.DataFrame({"col|<i>": g})
    y_score = rng.random(300)
    y_true = (rng.random(300) < y_score).astype(int)
    report = audit(
        y_true,
        y_score,
        sensitive_features=sensitive,
        title="<script>x</script> | *title*",
        **FAST,
    )
    text = report.to_markdown()
    assert "<script" not in text.lower() and "<i>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "a\\|b" in text and "\\*c\\*\\_\\[d\\](e)" in text
    assert text.startswith("# &lt;script&gt;x&lt;/script&gt; \\| \\*title\\*")
    # every table row has as many cell separators as its header
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("|---"):
            header = _unescaped_pipes(lines[k - 1])
            j = k + 1
            while j < len(lines) and lines[j].startswith("|"):
                assert _unescaped_pipes(lines[j]) == header, lines[j]
                j += 1
    html = report.to_html(figures=False)
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


# -- to_dict, progress -----------------------------------------------------------------
def test_to_dict_layout(report):
    out = report.to_dict()
    assert list(out) == [
        "summary",
        "headline",
        "plain_summary",
        "methods",
        "groups",
        "metrics",
        "mcdp_details",
        "tradeoff",
        "hfm",
        "provenance",
        "notes",
    ]
    summary = out["summary"]
    assert summary["pos_label"] == 1 and summary["reference"] is None
    assert summary["kept_groups"] == {
        "sex & race": ["f & x", "f & y", "m & x", "m & y"]
    }
    assert set(out["headline"]) == {"text", "threshold", "distribution"}
    row = out["groups"][0]
    for key in (
        "tp",
        "fp",
        "fn",
        "tn",
        "fnr",
        "tpr_low",
        "tpr_high",
        "few_positives",
        "is_reference",
        "positive_rate_ratio",
        "positive_rate_diff",
        "four_fifths",
    ):
        assert key in row
    assert all("undefined_reason" in r for r in out["metrics"])
    json.dumps(out, allow_nan=False)


def test_progress_phases(data):
    y_true, y_score, sensitive = data
    seen = []
    X = np.random.default_rng(0).normal(size=(len(y_score), 2))
    audit(
        y_true, y_score, sensitive_features=sensitive, X=X, progress=seen.append, **FAST
    )
    assert seen == list(AUDIT_PHASES)
    seen.clear()
    audit(None, y_score, sensitive_features=sensitive, progress=seen.append, **FAST)
    assert seen == [
        "groups",
        "metrics",
        "intervals and tests",
        "where MCDP is attained",
    ]
    with pytest.raises(ValueError, match="progress must be None or a callable"):
        audit(None, y_score, sensitive_features=sensitive, progress="yes")


def test_group_arguments_give_the_report_groups(data):
    y_true, y_score, sensitive = data
    sensitive = sensitive.assign(
        sex=np.where(np.arange(len(y_score)) < 4, "z", sensitive["sex"])
    )
    report = audit(
        y_true, y_score, sensitive_features=sensitive, min_group_size=10, **FAST
    )
    args = report.group_arguments()
    assert args["min_group_size"] == 10 and args["combine"] == "intersection"
    assert (
        mcdp(None, report.inputs.scores, **args) == report.metrics.loc["mcdp", "value"]
    )
    assert all(not g.startswith("z") for g in report.groups["group"])
    assert set(report.kept_groups["sex & race"]) == {
        ("f", "x"),
        ("f", "y"),
        ("m", "x"),
        ("m", "y"),
    }


def test_headline_gaps_leave_out_groups_with_few_positives():
    # a group with 2 positives has TPR 0 or 1 by chance: the headline's TPR
    # gap compares the groups with enough positives and names the others
    rng = np.random.default_rng(3)
    sizes = {"big": 600, "mid": 400, "tiny": 40}
    groups = np.repeat(list(sizes), list(sizes.values()))
    y = (rng.random(groups.shape[0]) < 0.3).astype(int)
    y[groups == "tiny"] = 0
    y[np.flatnonzero(groups == "tiny")[:2]] = 1  # two positives
    score = np.clip(0.4 * y + rng.normal(0.3, 0.15, y.shape[0]), 0, 1)
    score[np.flatnonzero(groups == "tiny")[:2]] = 0.01  # both missed: TPR 0
    report = audit(y, score, sensitive_features=groups, **FAST)
    facts = report.to_dict()["headline"]["threshold"]
    table = report.groups.set_index("group")
    assert table.loc["tiny", "tpr"] == 0.0 and table.loc["tiny", "few_positives"]
    assert facts["tpr_gap"]["left_out"] == ["tiny"]
    assert facts["fpr_gap"]["left_out"] == []  # tiny has 38 negatives
    assert facts["tpr_gap"]["value"] == pytest.approx(
        abs(table.loc["big", "tpr"] - table.loc["mid", "tpr"])
    )
    text = " ".join(report.to_dict()["headline"]["text"])
    # the TPR gap names tiny, the FPR gap does not (issue E)
    assert (
        f"a gap of {facts['tpr_gap']['value']:.4f} (left out of this gap, fewer "
        f"than {FEW_POSITIVES} positives: tiny)" in text
    )
    assert "negatives:" not in text
    lowest = facts["lowest"]
    assert lowest["size"] == sizes[lowest["group"]]
    assert lowest["low"] <= lowest["rate"] <= lowest["high"]


def test_four_fifths_fails_when_the_reference_selects_no_one():
    # a (the largest group, the reference) selects no one, b half of its
    # members: no ratio to a, but the rule is plainly broken
    y_score = np.r_[np.full(120, 0.1), np.repeat([0.9, 0.1], 50)]
    g = np.repeat(["a", "b"], [120, 100])
    y_true = np.tile([1, 0], 110)
    report = audit(y_true, y_score, sensitive_features=g, reference="a", **FAST)
    table = report.groups.set_index("group")
    assert table.loc["a", "is_reference"] and table.loc["a", "positive_rate"] == 0
    assert np.isnan(table.loc["b", "positive_rate_ratio"])
    assert table.loc["b", "four_fifths"] == False  # noqa: E712
    assert table.loc["a", "four_fifths"] is None  # 0 against 0: no verdict
    facts = report.headline.threshold
    assert facts.four_fifths == "fail" and facts.farthest.group == "b"
    assert facts.reference.ratio is None and facts.farthest.ratio is None
    out = report.to_dict()
    text = out["headline"]["text"]
    assert text[0] == (
        "At the threshold 0.5, the reference group a (n = 120) of "
        "sensitive_features selects no one: 0%, Wilson interval 0%–3.1%. No "
        "group can be selected less often, and no ratio to it is defined."
    )
    assert "farthest is b (n = 100), selected at 50.0% against 0% for a." in text[1]
    assert out["plain_summary"][0] == (
        "The four-fifths rule fails: the farthest group is b (n = 100), "
        "selected at 50.0% against 0% for a."
    )
    assert not re.search(r"ratio of \d", " ".join(text))  # no ratio against 0
    json.dumps(out, allow_nan=False)
    # by default a is compared with the most-selected group, b
    facts = audit(y_true, y_score, sensitive_features=g, **FAST).headline.threshold
    assert facts.comparison == "most selected" and facts.reference.group == "b"
    assert facts.disadvantaged.group == "a" and facts.disadvantaged.ratio == 0
    assert facts.farthest.group == "a" and facts.disadvantaged.diff_high < 0


def test_four_fifths_verdict_on_two_people_says_so():
    # a group of 2, neither selected: the rule fails, and the plain summary
    # and its caveats say how little it rests on
    rng = np.random.default_rng(7)
    g = np.r_[np.repeat("a", 200), ["b", "b"]]
    y_score = np.r_[rng.random(200), [0.1, 0.2]]
    y_true = (rng.random(202) < 0.5).astype(int)
    report = audit(y_true, y_score, sensitive_features=g, min_group_size=1, **FAST)
    facts = report.headline.threshold
    assert facts.four_fifths == "fail" and facts.farthest.size == 2
    # b's interval contains a's rate: too few to tell, not crowned
    assert facts.disadvantaged is None and [g.group for g in facts.unclear] == ["b"]
    summary = report.to_dict()["plain_summary"]
    low, high = facts.farthest.low, facts.farthest.high
    assert low == 0 and high == pytest.approx(wilson(0, 2)[1])
    assert summary[0].startswith(
        "The four-fifths rule fails: the farthest group is b (n = 2, a small group)"
    )
    assert (
        "With only 2 people, its positive rate is very uncertain "
        f"(0%–{100 * high:.1f}%)." in summary[0]
    )
    assert "1 group of fewer than 30 samples" in summary[-1]


def test_tradeoff_at_the_threshold_is_the_metrics_gap_marginal_left_out():
    # combine="marginal" with a group left out of one attribute: its samples
    # still count in the other attribute, in the metrics and the trade-off
    rng = np.random.default_rng(8)
    n = 400
    sensitive = pd.DataFrame(
        {"sex": rng.choice(["f", "m"], n), "race": rng.choice(["x", "y"], n)}
    )
    # the race gap is the largest; the six left out of sex widen it
    y_score = np.clip(rng.random(n) - 0.2 * (sensitive["race"] == "y").to_numpy(), 0, 1)
    sensitive.loc[:5, ["sex", "race"]] = ["z", "x"]
    y_score[:6] = 0.95
    y_true = (rng.random(n) < y_score).astype(int)
    report = audit(
        y_true,
        y_score,
        sensitive_features=sensitive,
        combine="marginal",
        min_group_size=10,
        **FAST,
    )
    assert report.left_out == [("sex", "z", 6)]
    assert report.tradeoff_at_threshold["delta_dp"] == pytest.approx(
        report.metrics.loc["delta_dp@0.5", "value"]
    )
