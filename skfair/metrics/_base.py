"""Validation and pair aggregation shared by the distribution-level metrics."""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from ..utils import sensitive_groupings
from ..utils._groups import Grouping
from ..utils._validation import (
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
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
DOMAIN_ERROR = (
    "domain must be None (the observed range of the predictions) or a pair "
    "(lo, hi) of finite real numbers with lo < hi; got {domain!r}."
)
OUTSIDE_DOMAIN_ERROR = (
    "y_score must lie in domain=({lo!r}, {hi!r}) for {why}; got values in "
    "[{low!r}, {high!r}]. Pass domain=None (the observed range of the "
    "predictions) or a wider interval."
)
#: The default ``domain`` of MCDP(ε) and ABPC: scores (probabilities) in [0, 1].
UNIT_DOMAIN = (0.0, 1.0)
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
    domain=UNIT_DOMAIN,
):
    """Validate a distribution metric's inputs: one PreparedScores per grouping.

    The arguments are the public metric's, as the metrics document them.
    With ``unit_interval_for`` (the reason, for the error) the scores must lie
    in ``domain`` (a checked ``(lo, hi)``, or None: no bound), the error
    naming ``domain`` unless it is [0, 1]; ``sort=False`` skips the
    per-grouping sort.
    """
    check_agg(agg)
    check_same_index(
        y_true=y_true,
        y_score=y_score,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    unit = domain == UNIT_DOMAIN
    scores = check_scores(
        y_score, unit_interval_for=unit_interval_for if unit else None
    )
    if unit_interval_for is not None and domain is not None and not unit:
        check_in_domain(scores, domain, unit_interval_for)
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


def check_domain(domain):
    """``domain`` as None or a ``(lo, hi)`` tuple of floats, or :data:`DOMAIN_ERROR`.

    Examples
    --------
    >>> from skfair.metrics._base import check_domain
    >>> check_domain((0, 100)), check_domain(None)
    ((0.0, 100.0), None)
    """
    if domain is None:
        return None
    ok = isinstance(domain, (tuple, list)) and len(domain) == 2
    ok = ok and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v)
        for v in domain
    )
    if not ok or not domain[0] < domain[1]:
        raise ValueError(DOMAIN_ERROR.format(domain=domain))
    return float(domain[0]), float(domain[1])


def check_in_domain(scores, domain, why):
    """Raise :data:`OUTSIDE_DOMAIN_ERROR` if a score leaves ``domain`` (lo, hi)."""
    low, high = float(scores.min()), float(scores.max())
    if low < domain[0] or high > domain[1]:
        raise ValueError(
            OUTSIDE_DOMAIN_ERROR.format(
                lo=domain[0], hi=domain[1], why=why, low=low, high=high
            )
        )


def observed_domain(domain, scores, weights=None):
    """``domain``, or for None the range ``(min, max)`` of ``scores``.

    With ``weights``, the range of the scores of positive weight (those of
    the weighted distributions compared).
    """
    if domain is not None:
        return domain
    if weights is not None:
        scores = scores[weights > 0]
    return float(scores.min()), float(scores.max())


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


def checked_label_pair(y_true, y_pred, column, **aligned):
    """``column(y_true, "y_true")`` and ``column(y_pred, "y_pred")``, checked.

    First the pandas indexes of ``y_true``, ``y_pred`` and the ``aligned``
    arguments (``sensitive_features=...``) must agree, then the two columns
    ``column`` makes of the labels must have the same length.
    """
    check_same_index(y_true=y_true, y_pred=y_pred, **aligned)
    truth, pred = column(y_true, "y_true"), column(y_pred, "y_pred")
    check_same_length(truth, pred, first_name="y_true", second_name="y_pred")
    return truth, pred
