"""Validation and pair aggregation shared by the distribution-level metrics."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..utils import (
    Grouping,
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
    sensitive_groupings,
)
from ._kernels import SortedScores, group_pairs, sort_scores

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


class PreparedScores(NamedTuple):
    """Validated scores of one grouping's compared (kept) samples.

    Attributes
    ----------
    grouping : Grouping
        The grouping (an attribute, or the intersection of several).
    scores : ndarray
        The scores of its kept samples.
    weights : ndarray or None
        Their weights (or None).
    codes : ndarray
        Their group codes.
    sorted : SortedScores or None
        The scores sorted with their group codes (None with ``sort=False``).
    """

    grouping: Grouping
    scores: np.ndarray
    weights: np.ndarray | None
    codes: np.ndarray
    sorted: SortedScores | None


def prepare_scores(
    y_true,
    y_score,
    *,
    sensitive_features,
    sample_weight,
    combine,
    agg,
    min_group_size,
    unit_interval_for=None,
    sort=True,
):
    """Validate a distribution metric's inputs: one PreparedScores per grouping.

    The arguments are the public metric's, as the metrics document them.
    With ``unit_interval_for`` (the reason, for the error) the scores must lie
    in [0, 1]; ``sort=False`` skips the per-grouping sort.
    """
    check_agg(agg)
    check_same_index(
        y_true=y_true,
        y_score=y_score,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
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
    prepared = []
    for grouping in groupings:
        codes = grouping.restrict(grouping.codes)
        kept_weights = None if weights is None else grouping.restrict(weights)
        if kept_weights is not None:
            kept_weights = _scaled_per_group(kept_weights, codes, grouping)
        kept = grouping.restrict(scores)
        ordered = (
            sort_scores(kept, codes, grouping.n_groups, kept_weights) if sort else None
        )
        prepared.append(PreparedScores(grouping, kept, kept_weights, codes, ordered))
    return prepared


def _scaled_per_group(weights, codes, grouping):
    """Each group's weights scaled by a power of two to at most 1.

    A distribution metric compares the groups' *normalised* (weighted)
    distributions, so it is invariant to a scale per group. Weights near
    the float64 maximum (e.g. 1e308) would otherwise sum to infinity and the
    distributions to NaN; scaled, every sum stays below the number of
    samples. A power of two scales exactly: the metric keeps every bit.
    """
    peak = np.zeros(grouping.n_groups)
    np.maximum.at(peak, codes, weights)
    if (peak <= 0).any():  # weights are >= 0: a group of total weight 0
        label = grouping.labels[int(np.flatnonzero(peak <= 0)[0])]
        raise ValueError(
            ZERO_WEIGHT_GROUP_ERROR.format(label=label, name=grouping.name)
        )
    _, exponent = np.frexp(peak)  # peak = mantissa * 2**exponent, mantissa < 1
    return np.ldexp(weights, -exponent[codes])


def check_grid_size(n_points, what, fix):
    """Refuse an evaluation grid of more than ``MAX_GRID_POINTS`` points."""
    if n_points > MAX_GRID_POINTS:
        raise ValueError(
            GRID_TOO_LARGE_ERROR.format(
                what=what, n_points=n_points, limit=MAX_GRID_POINTS, fix=fix
            )
        )


def check_agg(agg):
    """Validate the pair aggregation."""
    if agg not in ("max", "mean"):
        raise ValueError(AGG_ERROR.format(agg=agg))


def aggregate(per_grouping, agg):
    """``agg`` ("max" or "mean") of each grouping's pair values, then the max."""
    reduce = max if agg == "max" else (lambda v: float(np.mean(v)))
    return float(max(reduce(values) for values in per_grouping))


def pairs_of(grouping):
    """Unordered pairs of group codes of a grouping."""
    return group_pairs(grouping.n_groups)
