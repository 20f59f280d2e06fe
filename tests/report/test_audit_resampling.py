"""The audit's resampling: its progress counter and its cost limit."""

import numpy as np
import pandas as pd
import pytest

from skfair.report import MAX_RESAMPLING_SECONDS, audit, resampling_estimate


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    groups = rng.choice(["a", "b", "c"], 600)
    y_score = np.clip(rng.beta(2, 4, 600) + 0.1 * (groups == "b"), 0, 1)
    y_true = (rng.random(600) < y_score).astype(int)
    return y_true, y_score, groups


def test_progress_counts_the_resamples_and_permutations(data):
    y_true, y_score, groups = data
    phases, counts = [], []

    def progress(phase, done=None, total=None):
        if done is None:
            phases.append(phase)
        else:
            assert phase == "intervals and tests" == phases[-1]
            counts.append((done, total))

    audit(
        y_true,
        y_score,
        sensitive_features=groups,
        n_resamples=29,
        n_permutations=39,
        progress=progress,
    )
    assert phases[:3] == ["groups", "metrics", "intervals and tests"]
    # three groups: every metric but the ΔDPs is permuted, the bands bootstrapped
    assert counts[0] == (0, 29 + 39) and counts[-1] == (68, 68)
    assert len(counts) > 2
    assert all(a[0] <= b[0] and a[1] == b[1] for a, b in zip(counts, counts[1:]))


def test_a_one_argument_progress_gets_phases_only(data):
    y_true, y_score, groups = data
    phases = []
    audit(
        y_true,
        y_score,
        sensitive_features=groups,
        n_resamples=19,
        n_permutations=19,
        progress=phases.append,
    )
    assert phases[:3] == ["groups", "metrics", "intervals and tests"]
    assert all(isinstance(p, str) for p in phases)


def test_too_long_an_audit_is_refused_before_resampling(monkeypatch):
    import skfair.report._headline as headline_module

    def no_metrics(*args, **kwargs):
        raise AssertionError("refused too late: the metrics were computed")

    # the audit's metrics are computed by _headline.computed_metrics
    monkeypatch.setattr(headline_module, "check_metrics", no_metrics)
    rng = np.random.default_rng(0)
    groups = pd.Series(np.repeat([f"g{k:03d}" for k in range(300)], 8)).astype(
        "category"
    )
    y_score = rng.random(groups.size)
    with pytest.raises(ValueError, match="min_group_size=") as error:
        audit(
            None,
            y_score,
            sensitive_features=groups,
            n_resamples=4999,
            min_group_size=1,
        )
    message = str(error.value)
    assert "44,850 pairs of groups" in message and "4999 resamples" in message
    assert "n_resamples=" in message and "about " in message
    # the resamples it names fit
    fits = int(message.split("n_resamples=")[1].split(" ")[0])
    assert resampling_estimate(groups.size, 300, fits, fits) <= MAX_RESAMPLING_SECONDS
    assert resampling_estimate(groups.size, 300, fits + 1, fits + 1) > (
        MAX_RESAMPLING_SECONDS
    )


def test_estimate_grows_with_pairs_and_resamples():
    small = resampling_estimate(10_000, 4, 99)
    assert resampling_estimate(10_000, 400, 99) > 20 * small  # ~linear in groups
    # affine in the resamples plus permutations: a one-off part, then per draw
    once = resampling_estimate(10_000, 4, 0, 0)
    assert 0 < once < small
    assert resampling_estimate(10_000, 4, 199) - once == pytest.approx(
        (small - once) * 398 / 198, rel=1e-12
    )
    assert resampling_estimate(10_000, [4, 3], 99) > small


def test_command_line_counter_lines_off_a_terminal(monkeypatch):
    import io

    from skfair._cli import _feedback

    stream = io.StringIO()
    progress = _feedback.Progress("audit", 3, stream=stream)
    progress("intervals and tests")
    progress("intervals and tests", done=10, total=40)  # too soon: no line
    monkeypatch.setattr(_feedback, "COUNT_SECONDS", 0.0)
    progress("intervals and tests", done=20, total=40)
    progress("intervals and tests", done=40, total=40)  # done: the phase ends
    progress("trade-off")
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "skfair audit: intervals and tests"
    assert lines[1].startswith(
        "skfair audit: intervals and tests: 20/40 resamples and permutations ("
    )
    assert lines[2:] == ["skfair audit: trade-off"]


def test_refusal_never_names_resamples_that_do_not_fit():
    """30,000 groups of 2: no resampling fits; the message says so (issue 40)."""
    groups = pd.Series(np.repeat([f"g{k:05d}" for k in range(30_000)], 2))
    groups = groups.astype("category")  # groups, however many
    y_score = np.random.default_rng(1).random(groups.size)
    with pytest.raises(ValueError, match="even one resample") as error:
        audit(None, y_score, sensitive_features=groups, min_group_size=1)
    message = str(error.value)
    assert "n_resamples=1 " not in message and "449,985,000 pairs" in message
    assert resampling_estimate(groups.size, 30_000, 1, 1) > MAX_RESAMPLING_SECONDS
    # min_group_size=3 would leave no two groups: no such hint either
    assert "keeps" not in message


def test_ten_thousand_groups_are_offered_the_resamples_that_fit():
    """10,000 groups of 20: the defaults are refused, with a number of
    resamples that fits (the point values no longer evaluate every pair)."""
    groups = np.repeat([f"g{k:05d}" for k in range(10_000)], 20)
    y_score = np.random.default_rng(1).random(groups.size)
    with pytest.raises(ValueError, match="n_resamples=") as error:
        audit(None, y_score, sensitive_features=groups, min_group_size=1)
    fits = int(str(error.value).split("n_resamples=")[1].split(" ")[0])
    assert 1 <= fits < 199
    assert resampling_estimate(groups.size, 10_000, fits, fits) <= (
        MAX_RESAMPLING_SECONDS
    )
