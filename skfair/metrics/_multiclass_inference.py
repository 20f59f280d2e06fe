"""Intervals and tests of a distribution metric on class probabilities.

The metric of ``(n_samples, n_classes)`` probabilities is the ``class_agg``
("max" or "mean") of the per-class metrics (``_multiclass``). Each class's
column is sorted once (one :class:`~.inference.SharedSort` per class: the
cells of the sensitive attributes are the same for every class, only the
order differs), and the resamples and permutations are drawn once, as row
indices, and shared by every class:

* **band** (MCDP(ε), ABCC, ABPC): the bootstrap quantile ``c`` of the
  largest studentised norm of the centred gap over every pair of groups
  *and every class* on the same resamples; each class then gets the
  one-class band interval at that ``c``. All classes' pairs hold together
  with probability about ``confidence_level``, so the ``class_agg`` of the
  per-class intervals covers the ``class_agg`` of the true values (max and
  mean are monotone in each class's value).
* **welch**, **newcombe**, **dkw**: the one-class interval of each class at
  level ``1 - alpha / n_classes`` (Bonferroni over classes), aggregated.
* **permutation test**: the statistic is the ``class_agg`` of the classes'
  metrics; one permutation of the group labels relabels every class.
"""

from __future__ import annotations

import numpy as np

from ._multiclass import CLASS_OPTIONS, aggregate_classes, check_class_agg, per_class
from .inference import (
    auto_method,
    class_band_maxima,
    dkw_bounds,
    interval_band,
    interval_bounds,
    metric_spec,
    metric_upper,
    permutation_test,
    resampled_statistic,
    shared_sort,
)

CLASS_METHOD_ERROR = (
    "{what}={method!r} does not apply to class probabilities (y_score of shape "
    "(n_samples, n_classes)); use {allowed}. {why}"
)
CLASS_SCORE_TYPE_ERROR = (
    "y_score of shape (n_samples, n_classes) holds class probabilities; "
    "score_type must be 'probability', got {score_type!r}."
)
_BOOTSTRAP_WHY = (
    "The plain bootstrap of the aggregated metric under-covers (a maximum of "
    "maxima); the band interval covers every class at once."
)
_TEST_WHY = (
    "The test's statistic is the class_agg over classes, whose null "
    "distribution only the permutation test gives."
)


class ClassSorts:
    """Each class's column sorted once, with the per-class spec and estimates.

    Parameters
    ----------
    data : tuple
        ``(y_true, y_score, sensitive_features, sample_weight, combine)``
        with a 2-D ``y_score``.
    spec : MetricSpec
        The metric with its options (``class_agg`` and ``classes`` included).
    min_group_size : int or None
    """

    def __init__(self, data, spec, min_group_size):
        y_true, y_score, sensitive_features, sample_weight, combine = data
        options = spec.options
        self.class_agg = check_class_agg(options.get("class_agg", "max"))
        kept = {k: v for k, v in options.items() if k not in CLASS_OPTIONS}
        self.spec = metric_spec(spec.metric, kept)

        def evaluate(column):
            one = (y_true, column, sensitive_features, sample_weight, combine)
            return shared_sort(one, [self.spec], min_group_size)

        self.labels, results = per_class(
            evaluate,
            y_score,
            class_agg=self.class_agg,
            classes=options.get("classes"),
        )
        self.estimates = [r[0][0] for r in results]
        self.shared = [r[1] for r in results]
        self.estimate = aggregate_classes(self.estimates, self.class_agg)

    def aggregate(self, lows, highs):
        """The interval of the aggregate from the classes' intervals."""
        upper = min(metric_upper(s, self.spec) for s in self.shared)
        low = aggregate_classes(lows, self.class_agg)
        high = min(aggregate_classes(highs, self.class_agg), upper)
        return max(0.0, low), high


def class_method(method, spec):
    """The interval method for class probabilities; "auto" resolved."""
    if method == "bootstrap":
        raise ValueError(
            CLASS_METHOD_ERROR.format(
                what="method",
                method=method,
                allowed="'auto', 'band', 'welch', 'newcombe' or 'dkw'",
                why=_BOOTSTRAP_WHY,
            )
        )
    return auto_method(spec) if method == "auto" else method


def class_interval(sorts, method, confidence_level, n_resamples, rng):
    """``(low, high)`` of the aggregated metric by ``method`` (see the module)."""
    spec, shared = sorts.spec, sorts.shared
    if method == "band":
        bands = [interval_band(s, [spec]) for s in shared]
        maxima = class_band_maxima(shared, bands, n_resamples, rng)
        bounds = [
            interval_bounds(s, [spec], ["band"], confidence_level, band, maxima)
            for s, band in zip(shared, bands)
        ]
    else:
        level = 1.0 - (1.0 - confidence_level) / len(shared)  # Bonferroni
        if method == "dkw":
            bounds = [dkw_bounds(s, [spec], level) for s in shared]
        else:
            bounds = [interval_bounds(s, [spec], [method], level) for s in shared]
    lows = [float(b[0][0]) for b in bounds]
    highs = [float(b[1][0]) for b in bounds]
    return sorts.aggregate(lows, highs)


def class_permutation_pvalue(sorts, n_permutations, rng):
    """The permutation p-value of the aggregated metric (one-sided)."""
    shared = sorts.shared
    first = shared[0]
    members = [first.members[c] for c in first.permuted_cells]
    fixed = np.concatenate(
        [first.members[c] for c in first.fixed_cells] + [np.empty(0, np.intp)]
    ).astype(np.intp)
    per_class_statistics = [
        resampled_statistic(s, [sorts.spec], "permutation", fixed) for s in shared
    ]

    def statistic(*samples, axis=-1):
        values = [np.asarray(f(*samples)) for f in per_class_statistics]
        return np.asarray(aggregate_classes(np.stack(values), sorts.class_agg))

    pvalues = permutation_test(
        members, statistic, n_permutations=n_permutations, rng=rng, batch=64
    )
    return float(pvalues[0])


def check_class_test_method(method):
    """The test for class probabilities: the permutation test."""
    if method not in ("auto", "permutation"):
        raise ValueError(
            CLASS_METHOD_ERROR.format(
                what="method",
                method=method,
                allowed="'auto' or 'permutation'",
                why=_TEST_WHY,
            )
        )
    return "permutation"


def check_class_score_type(score_type):
    """Class probabilities are probabilities: ``score_type`` must say so."""
    if score_type != "probability":
        raise ValueError(CLASS_SCORE_TYPE_ERROR.format(score_type=score_type))
