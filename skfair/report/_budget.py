"""How long the audit's intervals and tests take, and the most it starts.

The audit evaluates its pairwise metrics once on every pair of groups, and
every bootstrap resample and every permutation evaluates each metric on all
the samples and, for the worst pair of groups, bounds every pair: the time
grows with the samples, the groups and the pairs of groups, times the
resamples and permutations. :func:`resampling_estimate` is that estimate
(measured on 2 cores); :func:`skfair.report.audit` refuses, before any
resampling, an audit whose estimate exceeds ``MAX_RESAMPLING_SECONDS``, and
the command line says the estimate up front.
"""

from __future__ import annotations

import math

import numpy as np

from ._common import auto_resamples

#: Seconds per resample (bootstrap or permutation) per sample, per group and
#: per pair of groups: the audit's intervals and tests with every metric, on
#: 2 cores (fitted on 20 rows per group, 9 resamples and 9 permutations, at
#: 1,000 and 10,000 groups: 0.24 s and 3.8 s a resample, nearly all of it
#: linear in the groups: each group's KDE and bootstrap band; the worst
#: pairs are found from pivots, not from a bound per pair).
SECONDS_PER_SAMPLE_DRAW = 1e-7
SECONDS_PER_GROUP_DRAW = 2.2e-4
SECONDS_PER_PAIR_DRAW = 3.2e-8
#: Seconds once per group, once per pair of groups (the point values, the
#: pairs behind them and the intervals' ends: about 30 s at 3,000 groups and
#: 3.5 minutes at 10,000, measured on 20 rows per group with 1 and 9
#: resamples; the worst pairs come from pivots, not from every pair) and once
#: per audit, whatever the resamples.
SECONDS_PER_GROUP = 5e-3
SECONDS_PER_PAIR = 3.2e-6
SECONDS_PER_AUDIT = 0.2
#: The longest estimated resampling :func:`skfair.report.audit` starts.
MAX_RESAMPLING_SECONDS = 600.0

RESAMPLING_COST_ERROR = (
    "The intervals and tests of this audit would take about {estimate} "
    "({groups} groups, {pairs:,} pairs of groups, {n_resamples} resamples and "
    "{n_permutations} permutations; the audit starts at most "
    "{limit:.0f} minutes of resampling). Compare fewer groups with "
    "min_group_size=K (the groups of fewer than K samples are left out{hint}), "
    "{resamples}"
)
FEWER_RESAMPLES = "or pass fewer resamples: n_resamples={k} and n_permutations={k} fit."
NO_RESAMPLES_FIT = (
    "or a coarser grouping: even one resample and one permutation would take "
    "about {estimate}, most of it evaluating every pair of groups once."
)


def resampling_estimate(n_samples, n_groups, n_resamples=None, n_permutations=None):
    """Estimated seconds of the intervals and tests of :func:`audit` (2 cores).

    Parameters
    ----------
    n_samples : int
        Samples audited.
    n_groups : int or sequence of int
        Groups compared (one count per grouping with ``combine="marginal"``).
    n_resamples, n_permutations : int or None, default=None
        As for :func:`audit` (None: its defaults).

    Returns
    -------
    seconds : float
        A rough guide (within a factor of about 2 on an idle machine, checked
        by ``benchmarks/bench_many_groups.py``): a one-off cost per pair of
        groups, plus the samples, the groups and the pairs of groups times
        the resamples plus the permutations. :func:`audit` refuses an audit
        whose estimate exceeds ``MAX_RESAMPLING_SECONDS`` (600, ten
        minutes).

    Examples
    --------
    >>> from skfair.report import resampling_estimate
    >>> round(resampling_estimate(100_000, 10))
    5
    >>> round(resampling_estimate(20_000, 1_000) / 60)  # minutes: under 10
    2
    >>> round(resampling_estimate(200_000, 10_000) / 60)  # minutes: refused
    16
    """
    counts = np.atleast_1d(np.asarray(n_groups, dtype=np.float64))
    r = auto_resamples(n_samples) if n_resamples is None else n_resamples
    p = r if n_permutations is None else n_permutations
    pairs = float(np.sum(counts * (counts - 1) / 2))
    per_draw = (
        n_samples * SECONDS_PER_SAMPLE_DRAW
        + counts.sum() * SECONDS_PER_GROUP_DRAW
        + pairs * SECONDS_PER_PAIR_DRAW
    )
    once = (
        SECONDS_PER_AUDIT + counts.sum() * SECONDS_PER_GROUP + pairs * SECONDS_PER_PAIR
    )
    return float(once + (r + p) * per_draw)


def _duration(seconds):
    if seconds < 5400:
        return f"{math.ceil(seconds / 60):.0f} min"
    return f"{seconds / 3600:.1f} h"


def check_resampling_cost(compared, n_samples, resampling):
    """Refuse (ValueError) an audit estimated over ``MAX_RESAMPLING_SECONDS``.

    ``compared``: the compared groupings. The message names a
    ``min_group_size`` that keeps few enough groups and the resamples that
    fit.
    """
    counts = [g.n_groups for g in compared]
    r, p = resampling.n_resamples, resampling.n_permutations
    seconds = resampling_estimate(n_samples, counts, r, p)
    if seconds <= MAX_RESAMPLING_SECONDS:
        return
    fits = [
        k
        for k in range(1, max(r, p) + 1)
        if resampling_estimate(n_samples, counts, k, k) <= MAX_RESAMPLING_SECONDS
    ]
    sizes = np.sort(np.concatenate([_sizes(g) for g in compared]))
    hint = _size_hint(sizes, n_samples, r, p)
    raise ValueError(
        RESAMPLING_COST_ERROR.format(
            estimate=_duration(seconds),
            groups=" + ".join(f"{c:,}" for c in counts),
            pairs=sum(c * (c - 1) // 2 for c in counts),
            n_resamples=r,
            n_permutations=p,
            limit=MAX_RESAMPLING_SECONDS / 60,
            hint=""
            if hint is None
            else f"; min_group_size={hint[0]} keeps {hint[1]:,} groups",
            resamples=FEWER_RESAMPLES.format(k=fits[-1])
            if fits
            else NO_RESAMPLES_FIT.format(
                estimate=_duration(resampling_estimate(n_samples, counts, 1, 1))
            ),
        )
    )


def _sizes(grouping):
    kept = grouping.kept
    return np.bincount(grouping.codes[kept], minlength=grouping.n_groups)


def _size_hint(sizes, n_samples, r, p):
    """The smallest ``min_group_size`` whose kept groups fit, and their number.

    None when none keeps two groups.
    """
    for k in np.unique(sizes):
        kept = int((sizes >= k).sum())
        if kept < 2:
            break
        if resampling_estimate(n_samples, kept, r, p) <= MAX_RESAMPLING_SECONDS:
            return int(k), kept
    return None
