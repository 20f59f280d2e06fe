"""skfair's GroupMetricFrame against fairlearn's MetricFrame, and its intervals' coverage.

Timing (same process, same data): 1e6 samples, 10 groups, accuracy, recall
and precision, without intervals and with bootstrap intervals. fairlearn's
bootstrap (``MetricFrame(..., n_boot=, ci_quantiles=)``) recomputes the
frame on each resample, so it runs with a few resamples only; skfair runs
the same number, and its default 999 (bootstrap by group and for the
difference: ``by_group_interval(interval="bootstrap")`` and
``difference_interval(interval="bootstrap")``).

Coverage (``--coverage``): how often the default intervals cover the true
value, by simulation (three groups, selection rates 0.2, 0.3, 0.3).

Run ``python benchmarks/bench_disaggregation.py [--n-samples N] [--n-boot B]
[--coverage]``.
"""

import argparse
import time
import warnings

import numpy as np
import sklearn.metrics as skm

from skfair.metrics import GroupMetricFrame


def timed(function, repeat=1):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def data(n_samples, n_groups=10, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n_samples)
    y_true = rng.integers(0, 2, n_samples)
    flip = rng.random(n_samples) < 0.2 + 0.02 * groups
    return y_true, np.where(flip, 1 - y_true, y_true), groups


def skfair_frame(y_true, y_pred, groups, n_boot=None):
    frame = GroupMetricFrame(
        metrics={"accuracy": "accuracy", "recall": "recall", "precision": "precision"},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=groups,
    )
    frame.by_group, frame.difference()
    if n_boot:
        frame.by_group_interval(
            interval="bootstrap", n_resamples=n_boot, random_state=0
        )
        frame.difference_interval(
            interval="bootstrap", n_resamples=max(n_boot, 39), random_state=0
        )
    return frame


def fairlearn_frame(y_true, y_pred, groups, n_boot=None):
    from fairlearn.metrics import MetricFrame

    extra = {}
    if n_boot:
        extra = {"n_boot": n_boot, "ci_quantiles": [0.025, 0.975], "random_state": 0}
    frame = MetricFrame(
        metrics={
            "accuracy": skm.accuracy_score,
            "recall": skm.recall_score,
            "precision": skm.precision_score,
        },
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=groups,
        **extra,
    )
    frame.by_group, frame.difference()
    if n_boot:
        frame.by_group_ci, frame.difference_ci()
    return frame


def timing(n_samples, n_boot):
    y_true, y_pred, groups = data(n_samples)
    ours = skfair_frame(y_true, y_pred, groups)
    theirs = fairlearn_frame(y_true, y_pred, groups)
    np.testing.assert_allclose(ours.by_group, theirs.by_group, atol=1e-12)
    print(f"{n_samples:.0e} samples, 10 groups, accuracy + recall + precision")
    print(f"{'case':<38}{'skfair (s)':>12}{'fairlearn (s)':>15}{'ratio':>9}")
    rows = [
        ("by_group + difference", None, None),
        (f"+ bootstrap, {n_boot} resamples", n_boot, n_boot),
        (f"+ bootstrap, skfair 999 / fl {n_boot}", 999, n_boot),
    ]
    fairlearn_times = {}
    for label, ours_boot, their_boot in rows:
        ours_time = timed(
            lambda b=ours_boot: skfair_frame(y_true, y_pred, groups, b), 3
        )
        if their_boot not in fairlearn_times:
            fairlearn_times[their_boot] = timed(
                lambda b=their_boot: fairlearn_frame(y_true, y_pred, groups, b)
            )
        their_time = fairlearn_times[their_boot]
        print(
            f"{label:<38}{ours_time:>12.3f}{their_time:>15.2f}"
            f"{their_time / ours_time:>8.0f}x"
        )


def coverage(n_draws=1000, size=40):
    rates = np.array([0.2, 0.3, 0.3])
    groups = np.repeat(["a", "b", "c"], size)
    p = np.repeat(rates, size)
    truths = {
        ("difference", "between_groups"): 0.1,
        ("difference", "to_overall"): abs(0.2 - rates.mean()),
        ("ratio", "between_groups"): 2 / 3,
    }
    hits = {key: [] for key in truths}
    widths = {key: [] for key in truths}
    group_hits = []
    for seed in range(n_draws):
        rng = np.random.default_rng(seed)
        y = (rng.random(p.size) < p).astype(int)
        frame = GroupMetricFrame(
            metrics="selection_rate",
            y_true=y,
            y_pred=y,
            sensitive_features=groups,
            min_group_size=1,
        )
        low, high = frame.by_group_interval()
        group_hits.append(((low <= rates) & (rates <= high)).mean())
        for (how, method), truth in truths.items():
            low, high = getattr(frame, f"{how}_interval")(method, random_state=rng)
            hits[how, method].append(low <= truth <= high)
            widths[how, method].append(high - low)
    print(f"\ncoverage at 95 %, {n_draws} draws, groups of {size}, rates {rates}")
    print(f"{'value':<34}{'interval':<22}{'coverage':>9}{'width':>8}")
    print(f"{'selection rate by group':<34}{'Wilson':<22}{np.mean(group_hits):>9.3f}")
    names = {"between_groups": "Newcombe-Bonferroni"}
    for key in truths:
        interval = names.get(key[1], "bootstrap band")
        if key[0] == "ratio":
            interval = "bootstrap band"
        print(
            f"{key[0] + ' ' + key[1]:<34}{interval:<22}"
            f"{np.mean(hits[key]):>9.3f}{np.mean(widths[key]):>8.3f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-boot", type=int, default=5)
    parser.add_argument("--coverage", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # fairlearn's pandas deprecations
    timing(args.n_samples, args.n_boot)
    if args.coverage:
        coverage()


if __name__ == "__main__":
    main()
