"""audit() on many small groups (issue 40): its worst pairs are all pairs'.

300 groups of 20 rows (44,850 pairs): the worst-pair numbers of the audit
equal a brute-force maximum over every pair of groups.
"""

import numpy as np
import pytest

from skfair.report import audit

N_GROUPS, SIZE = 300, 20


@pytest.fixture(scope="module")
def many():
    rng = np.random.default_rng(40)
    groups = np.repeat([f"g{k}" for k in range(N_GROUPS)], SIZE)
    scores = rng.random(groups.size)
    y = (rng.random(groups.size) < scores).astype(int)
    report = audit(
        y,
        scores,
        sensitive_features=groups,
        n_resamples=9,
        n_permutations=9,
        random_state=0,
        min_group_size=1,
    )
    return groups, scores, report.to_dict()


def _cdfs(groups, scores):
    """Every group's CDF at every distinct score (rows: groups)."""
    labels = np.unique(groups)
    points = np.unique(scores)
    rows = np.array(
        [
            np.searchsorted(np.sort(scores[groups == g]), points, side="right") / SIZE
            for g in labels
        ]
    )
    return points, rows


def _all_pairs(rows, reduce):
    """max over every pair (a < b) of ``reduce(|F_a - F_b|)``, pair by pair."""
    best = -np.inf
    for a in range(rows.shape[0] - 1):
        gaps = np.abs(rows[a + 1 :] - rows[a])
        best = max(best, float(reduce(gaps).max()))
    return best


def _metric(report, key):
    (row,) = [m for m in report["metrics"] if m["key"] == key]
    return row["value"]


def test_many_groups_rates_and_means_are_the_worst_pair(many):
    groups, scores, report = many
    labels = np.unique(groups)
    means = np.array([scores[groups == g].mean() for g in labels])
    rates = np.array([(scores[groups == g] >= 0.5).mean() for g in labels])
    pair_means = max(abs(u - v) for i, u in enumerate(means) for v in means[i + 1 :])
    pair_rates = max(abs(u - v) for i, u in enumerate(rates) for v in rates[i + 1 :])
    assert _metric(report, "delta_dp") == pytest.approx(pair_means, abs=1e-12)
    assert _metric(report, "delta_dp@0.5") == pytest.approx(pair_rates, abs=1e-12)


def test_many_groups_mcdp_and_abcc_are_the_worst_pair(many):
    groups, scores, report = many
    points, rows = _cdfs(groups, scores)
    widths = np.diff(points)
    mcdp0 = next(d for d in report["mcdp_details"] if d["epsilon"] == 0.0)["value"]
    assert mcdp0 == pytest.approx(_all_pairs(rows, lambda g: g.max(axis=1)), abs=1e-12)
    abcc = _all_pairs(rows, lambda g: g[:, :-1] @ widths)
    assert _metric(report, "abcc") == pytest.approx(abcc, abs=1e-9)
