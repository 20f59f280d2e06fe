"""The inputs every distribution metric shares, and its one-vs-rest branch.

ΔDP, ABCC, ABPC and MCDP(ε) take the same per-sample arguments and
``combine``; :class:`ScoreData` carries them together into ``prepare_scores``
and, for class probabilities (a 2-D ``y_score``), one class's column at a
time through :func:`~._multiclass.per_class`. :func:`aggregate_pairs` is the
whole evaluation of a metric given the values of each grouping's pairs.
"""

from __future__ import annotations

from typing import NamedTuple

from ._base import aggregate, prepare_scores
from ._multiclass import (
    aggregate_classes,
    check_scores_class_options,
    is_class_scores,
    per_class,
)


class ScoreData(NamedTuple):
    """A distribution metric's data arguments, as the public functions take them."""

    y_true: object
    y_score: object
    sensitive_features: object
    sample_weight: object
    combine: str

    def prepared(self, agg, min_group_size, **options):
        """``prepare_scores`` of these inputs: one PreparedScores per grouping.

        ``options`` are ``prepare_scores``'s further keywords
        (``unit_interval_for``, ``sort``, ``domain``).
        """
        return prepare_scores(
            self.y_true,
            self.y_score,
            sensitive_features=self.sensitive_features,
            sample_weight=self.sample_weight,
            combine=self.combine,
            agg=agg,
            min_group_size=min_group_size,
            **options,
        )

    def per_class(self, evaluate, class_agg, classes):
        """``(labels, results)``: ``evaluate`` of each class's column as ``y_score``.

        ``self.y_score`` holds class probabilities; ``evaluate`` takes a
        :class:`ScoreData` of 1-D scores (see :func:`~._multiclass.per_class`).
        """

        def evaluate_column(column):
            return evaluate(self._replace(y_score=column))

        return per_class(
            evaluate_column, self.y_score, class_agg=class_agg, classes=classes
        )


def aggregate_pairs(
    pair_values, data, agg, min_group_size, class_agg, classes, **options
):
    """A metric from the values of the pairs of groups of each grouping.

    ``pair_values(prepared)`` lists the metric of every pair of one
    grouping's PreparedScores; the metric is their ``agg`` over the
    groupings, and for class probabilities the ``class_agg`` of each class's
    metric. ``options`` go to :meth:`ScoreData.prepared`.
    """

    def evaluate(data):
        prepared = data.prepared(agg, min_group_size, **options)
        return aggregate([pair_values(p) for p in prepared], agg)

    if is_class_scores(data.y_score):
        _, values = data.per_class(evaluate, class_agg, classes)
        return aggregate_classes(values, class_agg)
    check_scores_class_options(class_agg, classes)
    return evaluate(data)
