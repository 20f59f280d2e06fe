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
from ._given import check_given, given_rows, noted
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
    given: str | None = None
    pos_label: object = 1

    def prepared(self, agg, min_group_size, **options):
        """``prepare_scores`` of these inputs: one PreparedScores per grouping.

        ``options`` are ``prepare_scores``'s further keywords
        (``unit_interval_for``, ``sort``, ``domain``). With ``given``
        ("positive" or "negative") only the rows of that side of
        ``pos_label`` are prepared (:func:`~._given.given_rows`): the one
        place where a metric is conditioned on the label.
        """
        data, note = self, None
        if check_given(self.given) is not None:
            *rows, note = given_rows(self.given, self.pos_label, *self[:4])
            data = self._replace(
                y_true=rows[0],
                y_score=rows[1],
                sensitive_features=rows[2],
                sample_weight=rows[3],
            )
        with noted(note):
            return prepare_scores(
                data.y_true,
                data.y_score,
                sensitive_features=data.sensitive_features,
                sample_weight=data.sample_weight,
                combine=data.combine,
                agg=agg,
                min_group_size=min_group_size,
                **options,
            )

    def sides(self):
        """The label sides to evaluate: "positive" and "negative" for "both"."""
        if self.given != "both":
            return [self]
        return [self._replace(given=side) for side in ("positive", "negative")]

    def per_class(self, evaluate, class_agg, classes):
        """``(labels, results)``: ``evaluate`` of each class's column as ``y_score``.

        ``self.y_score`` holds class probabilities; ``evaluate`` takes a
        :class:`ScoreData` of 1-D scores (see :func:`~._multiclass.per_class`).
        With ``given``, class *k*'s column is compared one-vs-rest on the true
        class: its ``pos_label`` is class *k*'s label.
        """

        def evaluate_column(column, label):
            one = self._replace(y_score=column)
            if self.given is not None:
                one = one._replace(pos_label=label)
            return evaluate(one)

        return per_class(
            evaluate_column,
            self.y_score,
            class_agg=class_agg,
            classes=classes,
            labelled=True,
            warn_each=self.given is not None,  # each class keeps its own rows
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
        values = []
        for side in data.sides():  # given="both": the larger of the two
            prepared = side.prepared(agg, min_group_size, **options)
            values.append(aggregate([pair_values(p) for p in prepared], agg))
        return max(values)

    if is_class_scores(data.y_score):
        _, values = data.per_class(evaluate, class_agg, classes)
        return aggregate_classes(values, class_agg)
    check_scores_class_options(class_agg, classes)
    return evaluate(data)
