"""Multiclass rate metrics against fairlearn's MetricFrame, same data, same process.

Data: N predictions (default 1e6) of K = 5 classes ("c0" ... "c4" strings,
and the same as integers) in 10 groups, true labels agreeing with the
prediction 60 % of the time, group-dependent class rates.

Rows of the table (median of ``--repeat`` runs of skfair and of
``--fairlearn-repeat`` runs of fairlearn; ratio = fairlearn / skfair, so
> 1 means skfair is faster):

* **selection rate gap per class**: ``multiclass_selection_rate_difference``
  (every class's demographic-parity gap, then the worst class) against
  fairlearn's ``MetricFrame`` with one ``selection_rate(pos_label=k)`` per
  class (``by_group`` and ``difference()``), and against the fastest
  per-class route fairlearn offers, ``demographic_parity_difference`` on each
  one-vs-rest indicator (K calls);
* **rate table**: ``multiclass_rate_table`` (selection rate, one-vs-rest TPR
  and FPR of every class with Wilson intervals, ratio to the reference
  group) against one ``MetricFrame`` per class of the same three rates (no
  intervals) on the class's indicators;
* **distribution metric per class**: ``mcdp`` on ``(N, K)`` probabilities
  with ``class_agg``, against a loop of the binary ``mcdp`` over the columns
  and ``np.sort`` of each column.

Every skfair number is checked against the fairlearn baseline it is timed with.

Run ``python benchmarks/bench_multiclass.py [--n-samples N] [--repeat R]``.
Figures depend on the machine and its load; compare ratios, not seconds.
"""

import argparse
import time
import warnings
from functools import partial

import numpy as np
import pandas as pd

from skfair.metrics import (
    mcdp,
    multiclass_rate_details,
    multiclass_rate_table,
    multiclass_selection_rate_difference,
)

N_CLASSES, N_GROUPS = 5, 10


def data(n_samples, seed=0):
    """Integer classes, their string labels, groups; rates depend on the group."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, N_GROUPS, n_samples)
    y_true = rng.integers(0, N_CLASSES, n_samples)
    shift = (rng.random(n_samples) < 0.02 * groups).astype(np.int64)
    y_pred = np.where(rng.random(n_samples) < 0.6, y_true, (y_true + 1) % N_CLASSES)
    y_pred = (y_pred + shift) % N_CLASSES
    names = np.array([f"c{k}" for k in range(N_CLASSES)])
    return y_true, y_pred, names[y_true], names[y_pred], groups


def median_time(function, repeat):
    """Median wall time of ``repeat`` calls, and the last call's result."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def fairlearn_selection_frame(y_true, y_pred, groups, classes):
    from fairlearn.metrics import MetricFrame, selection_rate

    frame = MetricFrame(
        metrics={k: partial(selection_rate, pos_label=k) for k in classes},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=groups,
    )
    return frame.by_group, frame.difference()


def fairlearn_indicator_gaps(y_true, y_pred, groups, classes):
    from fairlearn.metrics import demographic_parity_difference

    return [
        demographic_parity_difference(
            y_true == k, y_pred == k, sensitive_features=groups
        )
        for k in classes
    ]


def fairlearn_rate_frame(y_true, y_pred, groups, classes):
    """The 3 K rates of the table: one MetricFrame per class on its indicators.

    (One MetricFrame of 3 K metrics, the indicators passed as sample
    parameters, computes the same numbers more slowly.)
    """
    from fairlearn.metrics import (
        MetricFrame,
        false_positive_rate,
        selection_rate,
        true_positive_rate,
    )

    frames = []
    for k in classes:
        frame = MetricFrame(
            metrics={
                f"sel_{k}": selection_rate,
                f"tpr_{k}": true_positive_rate,
                f"fpr_{k}": false_positive_rate,
            },
            y_true=(y_true == k).astype(int),
            y_pred=(y_pred == k).astype(int),
            sensitive_features=groups,
        )
        frames.append(frame.by_group)
    return pd.concat(frames, axis=1)


def check_selection(ours, frame, gaps, classes):
    """The per-class gaps and group rates equal fairlearn's."""
    by_group, difference = frame
    np.testing.assert_allclose(
        ours.by_class["difference"].to_numpy(),
        difference[list(classes)].to_numpy(dtype=float),
        atol=1e-12,
    )
    np.testing.assert_allclose(
        ours.by_group["sensitive_features"].to_numpy(),
        by_group[list(classes)].to_numpy(dtype=float),
        atol=1e-12,
    )
    if gaps is not None:
        np.testing.assert_allclose(ours.by_class["difference"], gaps, atol=1e-12)


def check_table(table, theirs, classes):
    """The rate table's three rates equal fairlearn's MetricFrames'."""
    for ours_name, their_name in (
        ("selection_rate", "sel"),
        ("true_positive_rate", "tpr"),
        ("false_positive_rate", "fpr"),
    ):
        expected = theirs[[f"{their_name}_{k}" for k in classes]].to_numpy(float)
        np.testing.assert_allclose(table[ours_name].to_numpy(), expected, atol=1e-12)


def timing(n_samples, repeat, fairlearn_repeat):
    y_true, y_pred, y_true_s, y_pred_s, groups = data(n_samples)
    classes = [f"c{k}" for k in range(N_CLASSES)]
    print(
        f"{n_samples:.0e} samples, {N_CLASSES} classes, {N_GROUPS} groups; "
        f"median of {repeat} (skfair) and {fairlearn_repeat} (fairlearn) runs",
        flush=True,
    )
    print(
        f"{'skfair call':<38}{'skfair (s)':>11}  {'fairlearn baseline':<36}"
        f"{'fairlearn (s)':>14}{'ratio':>8}",
        flush=True,
    )

    def row(label, ours, baselines):
        ours_time, ours_result = median_time(ours, repeat)
        results = {}
        for name, baseline in baselines.items():
            their_time, results[name] = median_time(baseline, fairlearn_repeat)
            print(
                f"{label:<38}{ours_time:>11.3f}  {name:<36}{their_time:>14.3f}"
                f"{their_time / ours_time:>7.1f}x",
                flush=True,
            )
            label = ""
        return ours_result, results

    for label, truth, pred, labels in (
        ("selection-rate gap, string labels", y_true_s, y_pred_s, classes),
        ("selection-rate gap, integer labels", y_true, y_pred, list(range(N_CLASSES))),
    ):
        baselines = {
            "MetricFrame": partial(
                fairlearn_selection_frame, truth, pred, groups, labels
            )
        }
        if labels is classes:
            baselines["K x demographic_parity_difference"] = partial(
                fairlearn_indicator_gaps, truth, pred, groups, labels
            )
        _, results = row(
            label,
            partial(
                multiclass_selection_rate_difference,
                truth,
                pred,
                sensitive_features=groups,
            ),
            baselines,
        )
        ours = multiclass_rate_details(truth, pred, sensitive_features=groups)
        gaps = results.get("K x demographic_parity_difference")
        check_selection(ours, results["MetricFrame"], gaps, labels)
    table, results = row(
        "rate table (SR, TPR, FPR + Wilson)",
        partial(multiclass_rate_table, y_true_s, y_pred_s, sensitive_features=groups),
        {
            "K MetricFrames of 3 rates": partial(
                fairlearn_rate_frame, y_true_s, y_pred_s, groups, classes
            )
        },
    )
    check_table(table, results["K MetricFrames of 3 rates"], classes)
    print(
        f"worst-class selection-rate gap {ours.value:.4f}; every skfair number "
        "above equals fairlearn's (atol 1e-12)",
        flush=True,
    )


def distribution_per_class(n_samples, repeat):
    """``mcdp`` of ``(N, K)`` probabilities, against a loop over the columns."""
    rng = np.random.default_rng(1)
    groups = rng.integers(0, N_GROUPS, n_samples)
    logits = rng.normal(size=(n_samples, N_CLASSES)) + 0.05 * groups[:, None]
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    print(f"\nmcdp per class on ({n_samples:.0e}, {N_CLASSES}) probabilities")
    print(f"{'call':<44}{'skfair (s)':>11}{'value':>9}")
    for epsilon in (0.0, 0.05):
        for class_agg in ("max", "mean"):
            call = partial(
                mcdp,
                None,
                proba,
                sensitive_features=groups,
                epsilon=epsilon,
                class_agg=class_agg,
            )
            seconds, value = median_time(call, repeat)
            label = f"mcdp(eps={epsilon}, class_agg={class_agg!r})"
            print(f"{label:<44}{seconds:>11.3f}{value:>9.4f}")

        def loop(epsilon=epsilon):
            return max(
                mcdp(None, proba[:, k], sensitive_features=groups, epsilon=epsilon)
                for k in range(N_CLASSES)
            )

        seconds, value = median_time(loop, repeat)
        label = f"loop of binary mcdp(eps={epsilon}), max"
        print(f"{label:<44}{seconds:>11.3f}{value:>9.4f}")
    seconds, _ = median_time(
        lambda: [np.sort(proba[:, k]) for k in range(N_CLASSES)], repeat
    )
    print(f"{'baseline: np.sort of each column':<44}{seconds:>11.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--fairlearn-repeat",
        type=int,
        default=1,
        help="runs of each fairlearn baseline (tens of seconds each at 1e6)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # fairlearn's pandas deprecations
    pd.set_option("display.width", 120)
    timing(args.n_samples, args.repeat, args.fairlearn_repeat)
    distribution_per_class(args.n_samples, args.repeat)


if __name__ == "__main__":
    main()
