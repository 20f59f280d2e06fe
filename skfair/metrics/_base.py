"""Validation and pair aggregation shared by the distribution-level metrics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..utils import (
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
    sensitive_groupings,
)
from ._ecdf import group_pairs, sort_scores

AGG_ERROR = "agg must be 'max' or 'mean'; got {agg!r}."
# Evaluation grids (ABCC's and ABPC's n_points, MCDP's Algorithm 2 probes)
# larger than this are refused: the paper defaults are 5,000-10,000 points, and
# a grid of millions costs memory without changing the number.
MAX_GRID_POINTS = 1_000_000
GRID_TOO_LARGE_ERROR = (
    "{what} asks for a grid of {n_points:,} points, more than MAX_GRID_POINTS "
    "= {limit:,}; such a grid costs time and memory without changing the value "
    "measurably. {fix}"
)
ZERO_WEIGHT_GROUP_ERROR = (
    "group {label!r} of {name!r} has a total sample weight of 0; its "
    "distribution is undefined."
)


@dataclass(frozen=True, eq=False)
class PreparedScores:
    """Validated scores of the compared samples, per grouping.

    Attributes
    ----------
    groupings : list of Grouping
        The groupings to compare (one, or one per attribute).
    scores : list of ndarray
        For each grouping, the scores of its kept samples.
    weights : list of ndarray or None
        For each grouping, the weights of its kept samples (or None).
    codes : list of ndarray
        For each grouping, the group codes of its kept samples.
    sorted : list of SortedScores
        For each grouping, the scores sorted with their group codes.
    """

    groupings: list
    scores: list
    weights: list
    codes: list
    sorted: list


def prepare_scores(
    y_true,
    y_score,
    sensitive_features,
    *,
    sample_weight=None,
    combine="intersection",
    unit_interval_for=None,
    sort=True,
    min_group_size=None,
):
    """Validate a distribution metric's inputs and sort the scores once.

    Parameters
    ----------
    y_true : array-like or None
        Unused by demographic-parity metrics; its length is checked if given.
    y_score : array-like of shape (n_samples,)
        Scores.
    sensitive_features : array-like
        Sensitive attributes, see :func:`skfair.utils.check_sensitive_features`.
    sample_weight : array-like or None, default=None
        Sample weights.
    combine : {"intersection", "marginal"}, default="intersection"
        How several attributes are combined.
    unit_interval_for : str or None, default=None
        If given, the scores must lie in [0, 1] (the reason for the error).
    sort : bool, default=True
        Whether to sort the scores per grouping.
    min_group_size : int or None, default=None
        See :func:`skfair.utils.sensitive_groupings`.

    Returns
    -------
    PreparedScores
    """
    check_same_index(
        y_true=y_true, y_score=y_score, sensitive_features=sensitive_features
    )
    scores = check_scores(y_score, unit_interval_for=unit_interval_for)
    n_samples = scores.shape[0]
    if y_true is not None:
        check_same_length(y_true, scores, first_name="y_true", second_name="y_score")
    weights = check_sample_weight_1d(sample_weight, n_samples, against="y_score")
    groupings = sensitive_groupings(
        sensitive_features,
        n_samples=n_samples,
        combine=combine,
        min_group_size=min_group_size,
    )
    parts = []
    for grouping in groupings:
        codes = grouping.restrict(grouping.codes)
        kept_weights = None if weights is None else grouping.restrict(weights)
        if kept_weights is not None:
            totals = np.bincount(
                codes, weights=kept_weights, minlength=grouping.n_groups
            )
            if (totals <= 0).any():
                label = grouping.labels[int(np.flatnonzero(totals <= 0)[0])]
                raise ValueError(
                    ZERO_WEIGHT_GROUP_ERROR.format(label=label, name=grouping.name)
                )
        kept = grouping.restrict(scores)
        parts.append((kept, kept_weights, codes))
    sorted_scores = [
        sort_scores(kept, codes, g.n_groups, w) if sort else None
        for g, (kept, w, codes) in zip(groupings, parts)
    ]
    return PreparedScores(groupings, *map(list, zip(*parts)), sorted_scores)


def check_agg(agg):
    """Validate the pair aggregation."""
    if agg not in ("max", "mean"):
        raise ValueError(AGG_ERROR.format(agg=agg))


def aggregate(per_grouping, agg):
    """Aggregate pair values: ``agg`` over pairs, then max over groupings.

    Parameters
    ----------
    per_grouping : list of list of float
        For each grouping, the metric of each pair of groups.
    agg : {"max", "mean"}
        Aggregation over the pairs within a grouping.

    Returns
    -------
    value : float
    """
    reduce = max if agg == "max" else (lambda v: float(np.mean(v)))
    return float(max(reduce(values) for values in per_grouping))


def pairs_of(grouping):
    """Unordered pairs of group codes of a grouping."""
    return group_pairs(grouping.n_groups)
