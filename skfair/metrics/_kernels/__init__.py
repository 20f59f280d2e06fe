"""The sort-based kernels behind skfair's metrics: an architecture note.

Private to :mod:`skfair.metrics`. The metric definitions (``_distribution``,
``_mcdp``, ``_hfm``), the interval and test engine (:mod:`~skfair.metrics.inference`)
and the Dask backend (``_dask``) import the names below from this package,
never from its modules. Each kernel trusts its inputs: validation happens once,
in the public functions.

``_ecdf`` -- group ECDFs from one sort
    :func:`sort_scores` sorts a grouping's scores once (for two groups and
    scores in [0, 2), one ``np.sort`` of int64 keys packing score and group);
    :func:`pair_gap` gives a pair's gap ``F_a - F_b`` at every distinct score
    as a :class:`PairGap` (an exact int64 numerator over ``n_a n_b`` without
    weights), :func:`ecdf_gap_at` the gap at arbitrary thresholds. O(N log N)
    for the sort, O(n_a + n_b) per pair. :func:`pair_codes` /
    :func:`group_pairs` are the one enumeration of the pairs of groups.
    Used by ΔDP at a threshold, ABCC, MCDP, the report's and Dask's pair
    loops.

``_allpairs`` -- every pair of groups at once
    :func:`group_steps` lays out every group's CDF where it steps; the
    ``pairs_*`` functions evaluate MCDP(ε), sup and L1 gaps of many pairs in
    vectorised passes over their merged supports (``(n_groups - 1) N`` points
    in all, not ``n_pairs N``); :func:`worst_mcdp` / :func:`worst_abcc`
    evaluate only the pairs whose upper bound (:func:`cell_bounds`,
    :func:`grid_bounds`) can beat the best found (:func:`max_over_pairs`).
    Used by exact MCDP with more than two groups (:class:`AllPairs`) and by the
    inference engine, which evaluates every bootstrap resample and permutation
    on the once-sorted scores.

``_windows`` -- the max-min over sliding windows (MCDP's core)
    :func:`max_window_min` of a step function over windows ``[p, p + w]`` in
    O(m) (greedy blocks, van Herk/Gil-Werman in value space; a sparse table
    when the blocks are many), with window membership decided in exact real
    arithmetic (:func:`window_ends`). :func:`mcdp_pair_exact` and
    :func:`mcdp_pair_approx` (the paper's Algorithm 2) give MCDP(ε) of one
    pair; :func:`sliding_min` is the fixed-width sliding minimum, O(n). The
    windows are clipped to a domain ``(lo, hi)`` holding the scores (``(0,
    1)`` by default; :func:`clip_to_domain` pads its ends exactly, never
    rescaling the scores, which would break exact ties; :func:`left_window`
    and :func:`approx_probes` are its lower end's neighbourhood and
    Algorithm 2's probes ``np.arange(lo, hi, ε/K)``). Used by ``_mcdp``, the
    inference engine and the Dask engine.

``_kde`` -- Gaussian KDE on a regular grid (ABPC)
    :func:`kde_bandwidth` as :class:`scipy.stats.gaussian_kde` sets it
    (:class:`DegenerateGroupError` for a group without spread);
    :func:`binned_kde` by linear binning and one FFT convolution,
    O(N + G log G), on :func:`kde_grid` (``[0, 1]``, a domain, or the
    scores' range widened by 4 bandwidths); :func:`direct_kde` exactly,
    O(N M); :func:`kde_plan` /
    :func:`kde_rows` the binned KDE of fixed samples under many rows of
    weights (the bootstrap band of ABPC; :func:`resampled_kde_rows` the same
    without the FFT for groups of a few dozen samples). Used by ABPC and its
    intervals.

``_nearest`` and ``_projections`` -- distances to the nearest other group (HFM)
    :func:`nearest_other_group`: exact, by KD-trees in low dimension or by
    tiled BLAS products with a certified refinement, never an N x N matrix;
    :func:`projected_other_group_distances`: the HFM paper's AcceleDist /
    ApproxDist, sorting random projections, O(m1 N (log N + m2 d)). Used by
    :func:`~skfair.metrics.hfm` and :func:`~skfair.metrics.hfm_distances`.
"""

from ._allpairs import (
    AllPairs,
    all_pair_areas,
    area_steps,
    group_steps,
    padded_points,
    pairs_abcc,
    pairs_max_gap,
    pairs_mcdp,
    window_plan,
    worst_abcc,
    worst_mcdp,
)
from ._ecdf import (
    PairGap,
    SortedScores,
    ecdf_gap_at,
    group_pairs,
    pair_codes,
    pair_gap,
    run_ends,
    sort_scores,
)
from ._kde import (
    BW_METHOD_ERROR,
    DEGENERATE_GROUP_ERROR,
    MAX_FINE_GRID,
    TRUNCATE,
    DegenerateGroupError,
    binned_kde,
    check_bw_method,
    compact_plans,
    direct_kde,
    fine_grid,
    kde_bandwidth,
    kde_grid,
    kde_plan,
    kde_rows,
    linear_bins,
    resampled_kde_rows,
    unit_weights,
)
from ._nearest import ALGORITHM_ERROR, nearest_other_group
from ._pair_l1 import (
    pair_l1_bounds,
    pair_l1_values,
    pairs_l1,
    worst_l1,
)
from ._pivots import end_candidates, pivot_row, pivot_rows, use_pivots
from ._projections import projected_other_group_distances
from ._windows import (
    approx_probes,
    clip_to_domain,
    left_window,
    max_window_min,
    mcdp_pair_approx,
    mcdp_pair_exact,
    sliding_min,
    window_ends,
)

__all__ = [
    "ALGORITHM_ERROR",
    "BW_METHOD_ERROR",
    "DEGENERATE_GROUP_ERROR",
    "MAX_FINE_GRID",
    "TRUNCATE",
    "AllPairs",
    "DegenerateGroupError",
    "PairGap",
    "SortedScores",
    "all_pair_areas",
    "approx_probes",
    "area_steps",
    "binned_kde",
    "check_bw_method",
    "clip_to_domain",
    "compact_plans",
    "direct_kde",
    "ecdf_gap_at",
    "end_candidates",
    "fine_grid",
    "group_pairs",
    "group_steps",
    "kde_bandwidth",
    "kde_grid",
    "kde_plan",
    "kde_rows",
    "left_window",
    "linear_bins",
    "max_window_min",
    "mcdp_pair_approx",
    "mcdp_pair_exact",
    "nearest_other_group",
    "padded_points",
    "pair_codes",
    "pair_gap",
    "pair_l1_bounds",
    "pair_l1_values",
    "pairs_abcc",
    "pairs_l1",
    "pairs_max_gap",
    "pairs_mcdp",
    "pivot_row",
    "pivot_rows",
    "projected_other_group_distances",
    "resampled_kde_rows",
    "run_ends",
    "sliding_min",
    "sort_scores",
    "unit_weights",
    "use_pivots",
    "window_ends",
    "window_plan",
    "worst_abcc",
    "worst_l1",
    "worst_mcdp",
]
