"""The permutation test of any metric, on permutations shared by several metrics.

Group labels are permuted among the samples of the compared groups
(:func:`scipy.stats.permutation_test`, or the same computation without scipy
above ``_SCIPY_PERMUTATION_MAX`` samples or with a group of one sample); each
permutation relabels the once-sorted scores
(``_resampling.resampled_statistic``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from ._resampling import batch_size, resampled_statistic
from ._threads import n_threads

# Above this many samples the permutations are drawn without
# scipy.stats.permutation_test (see permutation_pvalues).
_SCIPY_PERMUTATION_MAX = 50_000
# Permutations per thread in one evaluated batch.
_ROWS_PER_THREAD = 12


def permutation_resolution(shared, n_permutations):
    """``(n_evaluated, pvalue_floor)`` of :func:`permutation_pvalues`.

    With at most ``n_permutations`` distinct partitions of the permuted
    samples into groups, scipy evaluates them all (an exact test, whose
    p-values are multiples of ``1 / n_partitions``): then ``n_evaluated`` is
    their number and the floor ``1 / n_evaluated``. Otherwise
    ``n_permutations`` random permutations, floor ``1 / (n_permutations + 1)``.
    No p-value is below the floor.
    """
    sizes = [shared.members[c].shape[0] for c in shared.permuted_cells]
    n_moved = sum(sizes)
    if _scipy_counts(sizes):
        # the multinomial coefficient's log first: the count itself can be huge
        log_count = (
            special.gammaln(n_moved + 1) - special.gammaln(np.add(sizes, 1)).sum()
        )
        if log_count < np.log(n_permutations) + 1.0:
            cum = np.cumsum([0, *sizes]).tolist()
            count = math.prod(math.comb(n, k) for n, k in zip(cum[1:], cum[:-1]))
            if count <= n_permutations:  # scipy's criterion for the exact test
                return count, 1.0 / count
    return n_permutations, 1.0 / (n_permutations + 1)


def permutation_pvalues(shared, specs, *, n_permutations, rng, progress=None):
    """One-sided permutation p-values of several specs on shared permutations.

    Group labels are permuted among the samples of the compared groups
    (:func:`scipy.stats.permutation_test`); large values are evidence of
    disparity. Returns an array of shape (n_specs,), NaN where a permutation
    leaves the metric undefined; never below the floor of
    :func:`permutation_resolution`.

    scipy first counts the distinct partitions exactly (``math.comb(n,
    n_a)``, a big integer that alone takes many seconds at a million
    samples); above ``_SCIPY_PERMUTATION_MAX`` samples, where that count
    always exceeds ``n_permutations``, the same random permutations and the
    same p-value formula are computed here instead. The samples of groups
    left out by ``min_group_size`` keep their labels.

    The permutations are evaluated in batches of a few per thread (the
    random permutations are drawn in order, so the p-values do not depend
    on the batches); ``progress``, if given, is called with the number of
    permutations of each batch once it is evaluated.
    """
    members = [shared.members[c] for c in shared.permuted_cells]
    fixed = np.concatenate(
        [shared.members[c] for c in shared.fixed_cells] + [np.empty(0, np.intp)]
    ).astype(np.intp)
    statistic = resampled_statistic(
        shared, specs, "permutation", fixed, progress=_after_first(progress)
    )
    batch = min(batch_size(shared.n), _ROWS_PER_THREAD * n_threads())
    return permutation_test(
        members, statistic, n_permutations=n_permutations, rng=rng, batch=batch
    )


def permutation_test(members, statistic, *, n_permutations, rng, batch):
    """One-sided permutation p-values of ``statistic`` over the groups' ``members``.

    ``statistic(*samples, axis=-1)`` is vectorized (scipy's convention) and
    returns one value or several; ``members`` holds the permuted samples of
    each group. :func:`scipy.stats.permutation_test`, or above
    ``_SCIPY_PERMUTATION_MAX`` samples :func:`_own_permutations`; ``batch``
    permutations are evaluated at a time. Returns an array (one p-value per
    value of the statistic), NaN where a permutation leaves it undefined.
    """
    if not _scipy_counts([m.shape[0] for m in members]):
        return _own_permutations(members, statistic, n_permutations, rng, batch)
    # scipy < 1.17 counts the partitions with a float product that may
    # overflow to inf: harmless (it then samples permutations), so quiet it
    with np.errstate(over="ignore"):
        res = stats.permutation_test(
            tuple(members),
            statistic,
            permutation_type="independent",
            vectorized=True,
            n_resamples=n_permutations,
            batch=batch,
            alternative="greater",
            rng=rng,
        )
    undefined = np.isnan(np.atleast_2d(res.null_distribution.T)).any(axis=-1)
    return np.where(undefined, np.nan, np.atleast_1d(res.pvalue))


def _scipy_counts(sizes):
    """Whether :func:`scipy.stats.permutation_test` takes groups of these sizes.

    Not above ``_SCIPY_PERMUTATION_MAX`` samples (its exact count of the
    partitions is slow there), nor with a group of one sample, which scipy
    refuses ("two or more observations") although permuting labels is as
    valid for it as for any group: :func:`_own_permutations` then draws the
    random permutations.
    """
    return sum(sizes) <= _SCIPY_PERMUTATION_MAX and min(sizes) >= 2


def _after_first(progress):
    """``progress`` for every call but the first (the observed statistic)."""
    if progress is None:
        return None
    calls = []

    def count(n_rows):
        if calls:
            progress(n_rows)
        calls.append(n_rows)

    return count


def _own_permutations(members, statistic, n_permutations, rng, batch):
    """The random permutations and one-sided p-value of scipy, without its count.

    The permutations are drawn one by one (``rng.permutation``, as scipy
    draws them) and evaluated ``batch`` at a time.
    """
    n_moved = sum(m.shape[0] for m in members)
    pooled = np.concatenate(members)
    cuts = np.cumsum([m.shape[0] for m in members])[:-1]
    observed = np.atleast_1d(statistic(*members))
    null = []
    for start in range(0, n_permutations, batch):
        rows = min(batch, n_permutations - start)
        permuted = np.stack([pooled[rng.permutation(n_moved)] for _ in range(rows)])
        values = statistic(*np.split(permuted, cuts, axis=1))
        null.append(np.asarray(values).reshape(rows, -1))
    null = np.concatenate(null)
    # scipy's one-sided p-value, with its tolerance for floating-point ties
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
    pvalues = (np.sum(null >= observed - gamma, axis=0) + 1) / (n_permutations + 1)
    return np.where(np.isnan(null).any(axis=0), np.nan, pvalues)
