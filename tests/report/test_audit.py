"""The audit report (skfair.report.audit, AuditReport)."""

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    disparity_test,
    hfm,
    mcdp,
    mcdp_details,
)
from skfair.report import audit
from skfair.report._common import (
    AUDIT_EPSILON_ERROR,
    AUDIT_HFM_LABELS_ERROR,
    AUDIT_THRESHOLD_ERROR,
    NO_MATPLOTLIB_NOTE,
)
from skfair.utils._groups import TOO_FEW_GROUPS_ERROR, TOO_FEW_GROUPS_LEFT_ERROR

N_FAST = {"n_resamples": 19, "n_permutations": 19}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 300
    sex = rng.choice(["f", "m"], n)
    race = rng.choice(["x", "y"], n, p=[0.6, 0.4])
    y_score = np.clip(rng.beta(2, 4, n) + 0.15 * (sex == "m"), 0, 1)
    y_true = (rng.random(n) < y_score).astype(int)
    X = rng.normal(size=(n, 3))
    return y_true, y_score, pd.DataFrame({"sex": sex, "race": race}), X


@pytest.fixture(scope="module")
def report(data):
    y_true, y_score, sensitive, X = data
    return audit(y_true, y_score, sensitive_features=sensitive, X=X, **N_FAST)


def test_metric_values_are_the_public_metrics(data, report):
    _, y_score, s, _ = data
    m = report.metrics
    assert m.loc["delta_dp", "value"] == delta_dp(None, y_score, sensitive_features=s)
    assert m.loc["delta_dp@0.5", "value"] == delta_dp(
        None, y_score, sensitive_features=s, threshold=0.5
    )
    assert m.loc["abcc", "value"] == abcc(None, y_score, sensitive_features=s)
    assert m.loc["abpc", "value"] == abpc(
        None, y_score, sensitive_features=s, method="binned"
    )
    assert m.loc["mcdp", "value"] == mcdp(None, y_score, sensitive_features=s)
    assert m.loc["mcdp@0.05", "value"] == mcdp(
        None, y_score, sensitive_features=s, epsilon=0.05
    )
    # the default intervals (infer_metrics' low/high) contain the value
    assert (m["low"] <= m["value"]).all() and (m["value"] <= m["high"]).all()
    assert set(m["interval"]) <= {"band", "welch", "newcombe"}
    assert not any(c.startswith("bootstrap") for c in m.columns)
    dkw = m.drop(index="abpc")
    assert (dkw["dkw_low"] <= dkw["value"]).all()
    assert (dkw["value"] <= dkw["dkw_high"]).all()
    assert np.isnan(m.loc["abpc", "dkw_low"])
    # four intersectional groups: every metric has a test (the permutation
    # test, or an exact/asymptotic one where infer_metrics offers it)
    assert m["test"].map(bool).all()
    assert ((m["pvalue"] > 0) & (m["pvalue"] <= 1)).all()
    permuted = m[m["test"] == "permutation"]
    assert (permuted["pvalue"] >= 1 / 20).all()


def test_group_table_against_brute_force(data, report):
    y_true, y_score, s, _ = data
    frame = s.assign(y=y_true, score=y_score, d=y_score >= 0.5)
    table = report.groups
    assert list(dict.fromkeys(table["grouping"])) == ["sex", "race", "sex & race"]
    for _, row in table[table["grouping"] == "sex"].iterrows():
        part = frame[frame["sex"] == row["group"]]
        assert row["size"] == len(part)
        assert row["share"] == pytest.approx(len(part) / len(frame))
        assert row["base_rate"] == pytest.approx(part["y"].mean())
        assert row["mean_score"] == pytest.approx(part["score"].mean())
        assert row["positive_rate"] == pytest.approx(part["d"].mean())
        assert row["tpr"] == pytest.approx(part.loc[part["y"] == 1, "d"].mean())
        assert row["fpr"] == pytest.approx(part.loc[part["y"] == 0, "d"].mean())
        assert row["precision"] == pytest.approx(part.loc[part["d"], "y"].mean())
    inter = table[table["grouping"] == "sex & race"]
    assert inter["size"].sum() == len(frame)
    assert set(inter["group"]) == {"f & x", "f & y", "m & x", "m & y"}


def test_mcdp_details_and_hfm(data, report):
    y_true, y_score, s, X = data
    expected = mcdp_details(None, y_score, sensitive_features=s)
    assert report.mcdp_details[0.0] == expected
    assert report.mcdp_details[0.05].value == mcdp(
        None, y_score, sensitive_features=s, epsilon=0.05
    )
    decisions = (y_score >= 0.5).astype(int)
    assert (
        report.hfm.to_dict()
        == hfm(X, y_true, decisions, sensitive_features=s).to_dict()
    )


def test_ks_p_value_for_two_groups():
    rng = np.random.default_rng(1)
    y_score = np.r_[rng.beta(2, 5, 60), rng.beta(3, 4, 60)]
    g = np.repeat(["a", "b"], 60)
    report = audit(None, y_score, sensitive_features=g, **N_FAST)
    row = report.metrics.loc["mcdp"]
    assert row["test"] == "ks"
    ks = stats.ks_2samp(y_score[:60], y_score[60:], method="exact")
    assert row["pvalue"] == pytest.approx(ks.pvalue)
    assert row["value"] == pytest.approx(ks.statistic)
    assert row["pvalue"] == disparity_test(None, y_score, sensitive_features=g).pvalue
    assert np.isnan(report.groups["tpr"]).all()  # no labels


def test_reproducible_with_a_seed(data):
    y_true, y_score, s, _ = data
    first = audit(y_true, y_score, sensitive_features=s, random_state=3, **N_FAST)
    again = audit(y_true, y_score, sensitive_features=s, random_state=3, **N_FAST)
    pd.testing.assert_frame_equal(first.metrics, again.metrics)


def test_to_dict_is_json(report):
    out = report.to_dict()
    text = json.dumps(out, allow_nan=False)
    assert json.loads(text)["summary"]["n_resamples"] == 19
    assert {r["key"] for r in out["metrics"]} == {
        "delta_dp",
        "delta_dp@0.5",
        "abcc",
        "abpc",
        "mcdp",
        "mcdp@0.05",
    }
    assert out["hfm"]["df"] == report.hfm.df


def test_markdown(report):
    text = report.to_markdown()
    assert text.startswith("# Fairness audit")
    for heading in (
        "## Disparity metrics",
        "## Where MCDP is attained",
        "### sex & race",
        "## HFM",
    ):
        assert heading in text
    assert "| MCDP(0) (largest CDF gap) |" in text


def _external_references(page):
    """src/href/url() values that point to another host."""
    refs = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", page, flags=re.I)
    refs += re.findall(r"url\(([^)]*)\)", page, flags=re.I)
    return [r for r in refs if re.match(r"\s*['\"]?(https?:)?//", r, flags=re.I)]


@pytest.fixture(scope="module")
def page(report):
    pytest.importorskip("matplotlib")
    return report.to_html()


def test_html_is_self_contained(report, page):
    assert page.startswith("<!DOCTYPE html>")
    assert _external_references(page) == []
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page.lower() and "@import" not in page
    assert page.count('<img src="data:image/png;base64,') == 4
    for section in ("metrics", "mcdp-location", "groups", "hfm", "figures", "notes"):
        assert f'<section id="{section}">' in page
    fragment = report._repr_html_()
    assert not fragment.startswith("<!DOCTYPE") and "<table>" in fragment


def test_external_reference_check_can_fail():
    page = '<img src="https://example.org/a.png"><a href="//cdn.x/y">'
    assert len(_external_references(page)) == 2
    assert _external_references('<img src="data:image/png;base64,AAA">') == []


def test_html_without_matplotlib(report, monkeypatch):
    import skfair.plotting._base as base

    def missing(caller):
        raise ImportError("no matplotlib")

    monkeypatch.setattr(base, "check_matplotlib_support", missing)
    page = report.to_html()
    assert NO_MATPLOTLIB_NOTE.replace('"', "&quot;") in page
    assert "<img" not in page and "<table>" in page


def test_no_labels_trade_off_note():
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(2)
    report = audit(
        None, rng.random(80), sensitive_features=np.repeat([0, 1], 40), **N_FAST
    )
    figures = report.figures()
    assert [("png" in f) for f in figures] == [True, True, True, False]
    assert figures[3]["note"] == "Needs true labels (y_true)."
    assert figures[0]["png"].startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"y_score": [0.2, np.nan] * 40}, "y_score contains NaN"),
        ({"y_score": [0.2, 1.5] * 40}, "y_score must lie in [0, 1] for an audit"),
        ({"sensitive_features": ["a"] * 80}, TOO_FEW_GROUPS_ERROR.split("{")[0]),
        ({"threshold": 1.5}, AUDIT_THRESHOLD_ERROR.format(value=1.5)),
        ({"epsilon": 0.0}, AUDIT_EPSILON_ERROR.format(value=0.0)),
        ({"X": np.ones((80, 2)), "y_true": None}, AUDIT_HFM_LABELS_ERROR),
        ({"y_true": [0, 1, 2, 1] * 20}, "exactly two classes"),
        ({"y_true": [0, 1, 2, 1] * 20, "pos_label": 1}, "exactly two classes"),
        ({"y_true": [0, 1] * 10}, "Inconsistent numbers of samples"),
        (
            {
                "y_true": pd.Series([0, 1] * 40),
                "y_score": pd.Series(np.linspace(0, 1, 80), index=range(80, 0, -1)),
            },
            "different indexes",
        ),
    ],
)
def test_clear_errors(change, message):
    kwargs = {
        "y_true": [0, 1] * 40,
        "y_score": np.linspace(0, 1, 80),
        "sensitive_features": ["a", "b"] * 40,
        **N_FAST,
    }
    kwargs.update(change)
    y_true, y_score = kwargs.pop("y_true"), kwargs.pop("y_score")
    with pytest.raises(ValueError) as info:
        audit(y_true, y_score, **kwargs)
    assert message in str(info.value)


@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="chromium is not installed"
)
def test_renders_in_a_headless_browser(page, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    page = path
    shot = tmp_path / "shot.png"
    dom = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "Disparity metrics" in dom and dom.count("<img") == 4
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            f"--screenshot={shot}",
            "--window-size=1280,2000",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes().startswith(b"\x89PNG") and os.path.getsize(shot) > 10_000


def _tiny_group_data(seed=0):
    """Groups "f" and "m" of 150, a group "z" of 5 (sex), race x/y."""
    rng = np.random.default_rng(seed)
    n = 305
    sex = np.r_[rng.choice(["f", "m"], n - 5), ["z"] * 5]
    race = rng.choice(["x", "y"], n)
    y_score = np.clip(rng.beta(2, 4, n) + 0.15 * (sex == "m"), 0, 1)
    y_true = (rng.random(n) < y_score).astype(int)
    return y_true, y_score, sex, race


def test_min_group_size_leaves_the_group_out_everywhere():
    y_true, y_score, sex, _ = _tiny_group_data()
    kept = sex != "z"
    left = audit(y_true, y_score, sensitive_features=sex, min_group_size=10, **N_FAST)
    dropped = audit(y_true[kept], y_score[kept], sensitive_features=sex[kept], **N_FAST)
    # every number is the audit of the data without the small group
    pd.testing.assert_frame_equal(left.metrics, dropped.metrics, rtol=1e-12)
    pd.testing.assert_frame_equal(left.groups, dropped.groups)
    assert left.headline == dropped.headline
    assert left.tradeoff.to_dict() == dropped.tradeoff.to_dict()
    assert left.mcdp_details[0.0].value == dropped.mcdp_details[0.0].value
    assert left.left_out == [("sensitive_features", "z", 5)]
    assert left.to_dict()["summary"]["min_group_size"] == 10
    assert any("Left out (min_group_size = 10): z (n = 5)" in n for n in left.notes())
    assert "z (n = 5)" in left.to_markdown()


def test_min_group_size_with_two_attributes():
    y_true, y_score, sex, race = _tiny_group_data(1)
    sensitive = pd.DataFrame({"sex": sex, "race": race})
    report = audit(
        y_true, y_score, sensitive_features=sensitive, min_group_size=10, **N_FAST
    )
    shown = set(zip(report.groups["grouping"], report.groups["group"]))
    assert ("sex", "z") not in shown and ("sex", "f") in shown
    assert not any(g.startswith("z &") for _, g in shown)
    # the compared groups are the intersections: z & x and z & y are left out,
    # and every table (sex, race, sex & race) is on the samples kept
    assert {(a, g) for a, g, _ in report.left_out} == {
        ("sex & race", "z & x"),
        ("sex & race", "z & y"),
    }
    assert (report.groups["size"] >= 10).all()
    for name in ("sex", "race", "sex & race"):
        sizes = report.groups.loc[report.groups["grouping"] == name, "size"]
        assert sizes.sum() == len(y_score) - 5
    for key, metric, kwargs in [
        ("mcdp", mcdp, {}),
        ("abcc", abcc, {}),
        ("delta_dp@0.5", delta_dp, {"threshold": 0.5}),
    ]:
        expected = metric(
            None, y_score, sensitive_features=sensitive, min_group_size=10, **kwargs
        )
        assert report.metrics.loc[key, "value"] == expected


def test_min_group_size_none_warns_once():
    from skfair.utils import SmallGroupWarning

    y_true, y_score, sex, _ = _tiny_group_data()
    with pytest.warns(SmallGroupWarning) as caught:
        report = audit(y_true, y_score, sensitive_features=sex, **N_FAST)
    assert [str(w.message) for w in caught].count(str(caught[0].message)) == 1
    assert len([w for w in caught if w.category is SmallGroupWarning]) == 1
    assert "z" in set(report.groups["group"]) and report.left_out == []
    assert any("Small groups: z (n = 5)" in n for n in report.notes())


def test_min_group_size_errors():
    from skfair.utils._groups import MIN_GROUP_SIZE_ERROR

    y_true, y_score, sex, _ = _tiny_group_data()
    with pytest.raises(ValueError, match=re.escape(MIN_GROUP_SIZE_ERROR[:30])):
        audit(y_true, y_score, sensitive_features=sex, min_group_size=0)
    # min_group_size, not a fold, left no group: the message says so
    with pytest.raises(ValueError, match=re.escape(TOO_FEW_GROUPS_LEFT_ERROR[-60:])):
        audit(y_true, y_score, sensitive_features=sex, min_group_size=1000)
