"""The audit's claims: regression tests of issues 36 and 40 (each a reproducer)."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import logit

from skfair import audit
from skfair._cli import main

FAST = {"n_resamples": 19, "n_permutations": 19}


def _one_group_without_positives(seed=1, n=60):
    rng = np.random.default_rng(seed)
    groups = np.repeat(["a", "b"], n // 2)
    scores = rng.uniform(0.01, 0.99, n)
    y = (rng.random(n) < scores).astype(int)
    y[n // 2 :] = 0  # group b: no positives, so no TPR
    return y, scores, groups


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"pos_label": 1},
        {"score_type": "logit", "threshold": 0.0},
        {"min_group_size": 5},
    ],
)
def test_one_group_with_a_tpr_does_not_crash(options):
    # issue 40: two groups, one without positives, crashed blaming "a
    # cross-validation fold"; there is no TPR gap to state
    y, scores, groups = _one_group_without_positives()
    if options.get("score_type") == "logit":
        scores = logit(scores)
    report = audit(y, scores, sensitive_features=groups, **options, **FAST)
    facts = report.headline.threshold
    assert facts.tpr_gap is None
    # FPR is defined in both groups: its gap is the difference of the rates
    table = report.groups.set_index("group")
    assert facts.fpr_gap.value == pytest.approx(
        abs(table["fpr"]["a"] - table["fpr"]["b"])
    )
    html = report.to_html(figures=False)
    assert "cross-validation" not in html
    assert "true-positive rates range" not in html


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_one_group_with_an_fpr_does_not_crash():
    y, scores, groups = _one_group_without_positives()
    y[: len(y) // 2] = 1  # group a: no negatives, group b: no positives
    report = audit(y, scores, sensitive_features=groups, **FAST)
    assert report.headline.threshold.tpr_gap is None
    assert report.headline.threshold.fpr_gap is None
    html = report.to_html(figures=False)
    assert "Without true labels" not in html
    assert "neither rate can be compared" in html


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_marginal_with_one_group_without_positives():
    y, scores, groups = _one_group_without_positives()
    frame = pd.DataFrame({"sex": groups, "race": np.tile(["x", "y", "z"], 20)})
    report = audit(y, scores, sensitive_features=frame, combine="marginal", **FAST)
    assert report.headline.threshold is not None


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_cli_with_one_group_without_positives(tmp_path, capsys):
    y, scores, groups = _one_group_without_positives()
    path = tmp_path / "p.csv"
    pd.DataFrame({"s": scores, "g": groups, "y": y}).to_csv(path, index=False)
    out = tmp_path / "r.html"
    argv = ["audit", "--predictions", str(path), "--score", "s", "--sensitive", "g"]
    argv += ["--label", "y", "--n-resamples", "19", "--output", str(out)]
    assert main(argv) == 0
    assert "cross-validation" not in out.read_text()


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_repr_counts_the_compared_groups():
    # issue 40: 2 x 5 attributes with 7 compared... the repr counted every
    # table's rows (attributes and intersection)
    rng = np.random.default_rng(0)
    n = 140
    frame = pd.DataFrame(
        {"sex": np.repeat(["f", "m"], n // 2), "race": np.tile(list("vwxyz"), n // 5)}
    )
    scores = rng.random(n)
    marginal = audit(None, scores, sensitive_features=frame, combine="marginal", **FAST)
    assert "n_groups=7," in repr(marginal)
    both = audit(None, scores, sensitive_features=frame, **FAST)
    assert len(both.groups) == 2 + 5 + 10
    assert "n_groups=10," in repr(both)
