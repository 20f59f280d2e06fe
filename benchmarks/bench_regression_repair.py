"""Time ThresholdInvariantRegressor's repair against ``np.sort`` of the same array.

The repair alone: the base predictions are given by a frozen model that reads
them from a column of ``X`` (no training), two groups with shifted and
rescaled predictions. For each size ``n`` (1e3 … 1e6 rows) it fits on ``n``
rows (every group's quantile table: a sort per group, O(N log N)) and
predicts ``n`` fresh rows (a binary search in the group's table and an
interpolation in the barycentre's, O(log m) per row, plus the hash of each
row for the tie-breaking), and times ``np.sort`` of the ``n`` predictions in
the same process. It prints the median seconds, the ratios to ``np.sort``,
and the held-out KS between the groups (MCDP(0)) before and after the repair.

:func:`repair_timings` returns one row of that table, for other benchmarks
to import.

Run: ``python benchmarks/bench_regression_repair.py [--repeat 3]
[--sizes 1000 10000 100000 1000000]``. Figures depend on the machine and its
load; compare ratios, not seconds.
"""

import argparse

import numpy as np
from bench_metrics import median_time  # the same timer as the metric benchmarks
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.frozen import FrozenEstimator

from skfair.metrics import mcdp
from skfair.postprocessing import ThresholdInvariantRegressor


class ColumnRegressor(RegressorMixin, BaseEstimator):
    """A "fitted" regressor whose prediction is column 1 of ``X``, as it is."""

    def fit(self, X, y=None):
        self.fitted_ = True
        return self

    def predict(self, X):
        return np.asarray(X)[:, 1]


def make_predictions(n, seed):
    """``X = [group, prediction]``: two groups, the second shifted and wider."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    prediction = rng.normal(3.0 * group, 1.0 + group)
    return np.column_stack([group, prediction]), group


def repair_timings(n, *, repeat=3, ties="random", seed=0):
    """Median seconds of the repair's fit and predict on ``n`` rows, and np.sort's.

    Parameters
    ----------
    n : int
        Rows fitted on, and fresh rows predicted.
    repeat : int, default=3
        Timings per measure; the median is kept.
    ties : {"random", "midrank"}, default="random"
        The regressor's ``ties`` ("random" hashes every predicted row).
    seed : int, default=0
        Seed of the synthetic predictions.

    Returns
    -------
    timings : dict
        ``n``, ``fit``, ``predict`` and ``sort`` (seconds), ``fit_ratio`` and
        ``predict_ratio`` (to ``sort``), ``ks_before`` and ``ks_after`` (the
        held-out MCDP(0) between the groups).
    """
    X_fit, _ = make_predictions(n, seed)
    X_new, group_new = make_predictions(n, seed + 1)
    y_fit = X_fit[:, 1]
    model = ThresholdInvariantRegressor(
        FrozenEstimator(ColumnRegressor().fit(X_fit)),
        sensitive=0,
        ties=ties,
        random_state=0,
    )
    fit = median_time(lambda: model.fit(X_fit, y_fit), repeat)
    predict = median_time(lambda: model.predict(X_new), repeat)
    raw = X_new[:, 1].copy()
    sort = median_time(lambda: np.sort(raw), repeat)
    fair = model.predict(X_new)
    return {
        "n": n,
        "fit": fit,
        "predict": predict,
        "sort": sort,
        "fit_ratio": fit / sort,
        "predict_ratio": predict / sort,
        "ks_before": mcdp(None, raw, sensitive_features=group_new),
        "ks_after": mcdp(None, fair, sensitive_features=group_new),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000]
    )
    parser.add_argument("--ties", choices=["random", "midrank"], default="random")
    args = parser.parse_args()
    print(f"ThresholdInvariantRegressor, frozen predictions, ties={args.ties!r}")
    print(
        "| rows | fit s | predict s | np.sort s | fit / sort | predict / sort "
        "| KS before | KS after |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        t = repair_timings(n, repeat=args.repeat, ties=args.ties)
        print(
            f"| {n:.0e} | {t['fit']:.4f} | {t['predict']:.4f} | {t['sort']:.5f} "
            f"| {t['fit_ratio']:.1f} | {t['predict_ratio']:.1f} "
            f"| {t['ks_before']:.3f} | {t['ks_after']:.4f} |"
        )


if __name__ == "__main__":
    main()
