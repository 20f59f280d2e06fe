"""ΔDP, ABCC and ABPC: demographic parity on the whole score distribution."""

from __future__ import annotations

import inspect
import numbers

import numpy as np

from ._base import UNIT_DOMAIN, check_domain, check_grid_size, pairs_of
from ._dask import dask_dispatch
from ._dist_inputs import ScoreData, aggregate_pairs
from ._frame_arg import frame_dispatch
from ._kernels import (
    all_pair_areas,
    area_steps,
    binned_kde,
    check_bw_method,
    direct_kde,
    ecdf_gap_at,
    kde_bandwidth,
    kde_grid,
    pair_codes,
    pair_gap,
    pairs_abcc,
    pairs_l1,
    pivot_row,
    pivot_rows,
    sort_scores,
    worst_l1,
)
from ._kernels._pivots import first_pair_at_least

THRESHOLD_ERROR = "threshold must be None or a finite real number; got {value!r}."
ABCC_METHOD_ERROR = "method must be 'exact' or 'grid'; got {method!r}."
ABPC_METHOD_ERROR = "method must be 'auto', 'direct' or 'binned'; got {method!r}."
N_POINTS_ERROR = "n_points must be an integer >= 2; got {value!r}."
GRID_REASON = "the paper's integral over [0, 1] (method='grid')"
ABPC_REASON = (
    "ABPC, whose densities are integrated over domain=(0.0, 1.0); for "
    "real-valued predictions pass domain=None (the real line) or "
    "domain=(lo, hi)"
)
ABPC_DOMAIN_REASON = "ABPC, whose densities are integrated over it"

# method="auto" in abpc evaluates the KDE directly while n_samples * n_points
# stays below this (a few milliseconds), and by binned FFT convolution above.
_DIRECT_KDE_WORK = 2_000_000
# abcc evaluates pair by pair up to this many pairs (every number as before
# the vectorised kernels, to the last bit: 30 groups), all pairs at once
# above (the same areas summed in another order: about 1e-16 relative).
_LOOP_PAIRS = 435


def check_n_points(n_points, what):
    """``n_points`` as an int >= 2 within ``MAX_GRID_POINTS``, or a ValueError."""
    if (
        isinstance(n_points, bool)
        or not isinstance(n_points, numbers.Integral)
        or n_points < 2
    ):
        raise ValueError(N_POINTS_ERROR.format(value=n_points))
    check_grid_size(n_points, what, "Use the default n_points.")
    return int(n_points)


@frame_dispatch("delta_dp")
@dask_dispatch("delta_dp")
def delta_dp(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold=None,
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    class_agg="max",
    classes=None,
    given=None,
    pos_label=1,
    data=None,
):
    r"""Demographic-parity gap of mean scores (ΔDP_c) or of decisions (ΔDP_b^t).

    With ``threshold=None``, ΔDP_c is the absolute difference of the groups'
    mean scores, :math:`|E[\hat y \mid a] - E[\hat y \mid b]|`. With a
    threshold ``t``, ΔDP_b^t is the difference of the groups' positive rates
    with decisions ``y_score >= t``. Lower is fairer.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored (demographic parity does not use labels); kept first for
        scikit-learn's scorer conventions. Its length is checked if given.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores (or hard 0/1 predictions, for which ΔDP_c is the positive-rate
        gap), or any finite real-valued predictions (a regressor's). A 2-D
        array (or DataFrame) holds class probabilities, one column per class:
        each column is scored one-vs-rest and the classes' values are
        aggregated by ``class_agg`` (see :func:`mcdp`).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    threshold : float or None, default=None
        None for ΔDP_c; a number ``t`` for ΔDP_b^t with decisions
        ``y_score >= t``.
    agg : {"max", "mean"}, default="max"
        With more than two groups, the worst pair or the mean over pairs.
    combine : {"intersection", "marginal"}, default="intersection"
        With several attributes, compare intersectional groups, or each
        attribute separately and report the worst.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    min_group_size : int or None, default=None
        None compares every group and warns
        (:class:`~skfair.utils.SmallGroupWarning`) about groups of fewer than
        30 samples; an int ``k`` leaves out groups of fewer than ``k``.
    class_agg : {"max", "mean"}, default="max"
        For class probabilities: the worst class or the mean over classes.
        Ignored for 1-D scores.
    classes : sequence or None, default=None
        For class probabilities, the label of each column (default: a
        DataFrame's columns, else ``0 .. n_classes - 1``).
    given : {None, "positive", "negative", "both"}, default=None
        Compare the groups among the samples of one true label (see
        :func:`mcdp`): ``given="positive"`` gives the gap of the groups'
        mean scores among those with ``y_true == pos_label`` (ΔDP_b^t given
        positive is the TPR gap at ``t``, given negative the FPR gap),
        "negative" among the others, "both" the larger. Needs ``y_true``;
        class probabilities are compared one-vs-rest on the true class.
    pos_label : int, float, bool or str, default=1
        The positive label of ``y_true`` for ``given`` (ignored otherwise,
        and for class probabilities).
    data : DataFrame or lazy frame, default=None
        A frame narwhals supports, eager or lazy (pandas, polars
        ``DataFrame`` or ``LazyFrame``, a DuckDB relation, PySpark, SQLFrame,
        Ibis, Dask); then ``y_true``, ``y_score``, ``sensitive_features``
        (a name or a list of names) and ``sample_weight`` are the names of
        its columns. An eager frame's columns are taken out and computed in
        memory; a Dask frame's go to the Dask engine; any other lazy frame is
        computed inside its engine by group-by aggregations, with only
        aggregates reaching the client (see :ref:`warehouse`). In an engine
        the results equal the in-memory values (MCDP and ΔDP at a threshold
        bit-equal, ABCC and ΔDP_c to rounding); ABCC's grid
        method and class probabilities are not computed there.

    Returns
    -------
    gap : float
        In [0, 1] for scores in [0, 1]. For real-valued predictions ΔDP_c
        is the gap of the groups' mean predictions in the target's units
        (e.g. dollars), and ΔDP_b^t the gap of the rates of ``y_score >=
        t``, a fraction.

    See Also
    --------
    abcc : The average of ΔDP_b^t over all thresholds in [0, 1].
    mcdp : The worst ΔDP_b^t over thresholds (ε = 0), and its local version.

    Notes
    -----
    The ABCC paper's reference code decides ``y_score > t``; we use ``>=``,
    the usual decision rule of :meth:`predict` at threshold 0.5. The two differ
    only when scores equal ``t`` exactly.

    Examples
    --------
    >>> from skfair.metrics import delta_dp
    >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
    >>> s = [0] * 5 + [1] * 5
    >>> round(delta_dp(None, y0 + y1, sensitive_features=s), 6)
    0.16
    >>> delta_dp(None, y0 + y1, sensitive_features=s, threshold=0.5)
    0.2

    The true-positive-rate gap at 0.5 (equal opportunity), among the
    samples labelled 1:

    >>> y_true = [1, 1, 1, 0, 0] * 2
    >>> delta_dp(y_true, y0 + y1, sensitive_features=s, threshold=0.5,
    ...          given="positive", min_group_size=1)
    0.0
    """
    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, numbers.Real)
        or not np.isfinite(threshold)
    ):
        raise ValueError(THRESHOLD_ERROR.format(value=threshold))

    def gaps(prepared):
        grouping, scores, weights, codes, _ = prepared
        values = scores if threshold is None else (scores >= threshold) * 1.0
        totals = np.bincount(codes, weights=weights, minlength=grouping.n_groups)
        if weights is not None:
            values = values * weights
        means = np.bincount(codes, weights=values, minlength=grouping.n_groups)
        means /= totals
        if agg == "max":  # the largest |m_a - m_b|, to the last bit, without pairs
            return [abs(means.max() - means.min())]
        a, b = pair_codes(grouping.n_groups)
        return np.abs(means[a] - means[b])

    inputs = ScoreData(
        y_true, y_score, sensitive_features, sample_weight, combine, given, pos_label
    )
    return aggregate_pairs(
        gaps, inputs, agg, min_group_size, class_agg, classes, sort=False
    )


@frame_dispatch("abcc")
@dask_dispatch("abcc")
def abcc(
    y_true,
    y_score,
    *,
    sensitive_features,
    method="exact",
    n_points=10000,
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    class_agg="max",
    classes=None,
    given=None,
    pos_label=1,
    data=None,
):
    r"""Area between the groups' empirical CDF curves (ABCC).

    .. math::

        \mathrm{ABCC} = \int |\hat F_a(t) - \hat F_b(t)| \, dt,

    the 1-Wasserstein distance between the groups' score distributions
    (Han et al., ICLR 2024). It is ΔDP_b^t averaged over all thresholds in
    [0, 1] for scores in [0, 1]; for real-valued predictions it is the
    Wasserstein-1 distance on the real line, in the target's units (the
    average amount by which one group's predictions must move to match the
    other's). Lower is fairer.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored; kept first for scikit-learn's scorer conventions.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores. Any finite reals for ``method="exact"``; [0, 1] for "grid".
        Class probabilities (2-D) as in :func:`delta_dp`.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    method : {"exact", "grid"}, default="exact"
        "exact" integrates the step functions in closed form over the merged
        sorted scores (equal to ``scipy.stats.wasserstein_distance``); "grid"
        reproduces the paper's code: the trapezoid rule on
        ``np.linspace(0, 1, n_points)``.
    n_points : int, default=10000
        Grid size for ``method="grid"``.
    agg, combine, sample_weight, min_group_size, class_agg, classes, data
        As in :func:`delta_dp` (``agg="mean"`` is the paper's choice; the
        weights give weighted ECDFs).
    given, pos_label
        As in :func:`delta_dp`: ``given="positive"`` is the area between the
        positives' score CDFs, the TPR gap averaged over all thresholds in
        [0, 1] (Becker et al.'s equal-opportunity measure on scores in [0,
        1]), "negative" the FPR gap's (predictive equality).

    Returns
    -------
    abcc : float
        In [0, 1] for scores in [0, 1]; in the predictions' units otherwise
        (scaling them by ``a > 0`` scales ABCC by ``a``).

    See Also
    --------
    mcdp : The maximal (local) CDF gap instead of its area.
    abpc : The area between the estimated densities.

    References
    ----------
    .. [1] X. Han, Z. Jiang, H. Jin, Z. Liu, N. Zou, Q. Wang, X. Hu,
       "Retiring ΔDP: New Distribution-Level Metrics for Demographic Parity",
       TMLR 2023.

    Examples
    --------
    >>> from skfair.metrics import abcc
    >>> round(abcc(None, [.2, .4, .6, .3, .5, .7],
    ...            sensitive_features=[0, 0, 0, 1, 1, 1]), 12)
    0.1
    """
    if method not in ("exact", "grid"):
        raise ValueError(ABCC_METHOD_ERROR.format(method=method))
    n_points = check_n_points(n_points, "abcc(method='grid')")
    grid = np.linspace(0, 1, n_points) if method == "grid" else None

    def areas(prepared):
        n_groups = prepared.grouping.n_groups
        if grid is None and n_groups * (n_groups - 1) // 2 > _LOOP_PAIRS:
            many = all_pair_areas(prepared.sorted, worst_only=agg == "max")
            if many is not None:
                return many
        values = []
        for a, b in pairs_of(prepared.grouping):
            pair = pair_gap(prepared.sorted, a, b)
            if grid is None:
                area = _area_between(pair)
            else:
                area = np.trapezoid(np.abs(ecdf_gap_at(pair, grid)), grid)
            values.append(float(area))
        return values

    inputs = ScoreData(
        y_true, y_score, sensitive_features, sample_weight, combine, given, pos_label
    )
    reason = GRID_REASON if method == "grid" else None
    return aggregate_pairs(
        areas, inputs, agg, min_group_size, class_agg, classes, unit_interval_for=reason
    )


@frame_dispatch("abpc")
def abpc(
    y_true,
    y_score,
    *,
    sensitive_features,
    bw_method="scott",
    n_points=5000,
    method="auto",
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    domain=(0.0, 1.0),
    class_agg="max",
    classes=None,
    given=None,
    pos_label=1,
    data=None,
):
    r"""Area between the groups' probability density curves (ABPC).

    .. math::

        \mathrm{ABPC} = \int_{lo}^{hi} |\hat f_a(t) - \hat f_b(t)| \, dt,

    with :math:`\hat f_a` a Gaussian kernel density estimate of group *a*'s
    scores (Han et al., ICLR 2024) and ``[lo, hi]`` the ``domain``, [0, 1]
    for scores as in the paper. As in the paper's code, the densities are
    evaluated on ``np.linspace(lo, hi, n_points)`` and integrated with the
    trapezoid rule. Lower is fairer; the range is [0, 2].

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored; kept first for scikit-learn's scorer conventions.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores in ``domain`` ([0, 1] by default). Class probabilities (2-D)
        as in :func:`delta_dp`.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels.
    bw_method : {"scott", "silverman"} or float, default="scott"
        Bandwidth rule, as in :class:`scipy.stats.gaussian_kde` (a float is
        the factor multiplying each group's standard deviation).
    n_points : int, default=5000
        Integration grid size on the domain.
    method : {"auto", "direct", "binned"}, default="auto"
        "direct" evaluates each KDE exactly at every grid point (O(N · M));
        "binned" spreads the scores onto a fine regular grid (linear binning)
        and convolves with the Gaussian kernel by FFT (O(N + G log G)),
        agreeing with "direct" to about 1e-4 absolute; "auto" uses "direct"
        for small inputs and "binned" above that.
    agg, combine, sample_weight, min_group_size
        As in :func:`delta_dp` (the weights give weighted KDEs, as
        ``gaussian_kde(weights=...)``).
    domain : tuple of (float, float) or None, default=(0.0, 1.0)
        The interval the densities are integrated over; every score must lie
        in a ``(lo, hi)`` pair. None integrates over ``[min - 4h, max +
        4h]``, with ``min`` and ``max`` those of the compared predictions
        (of positive weight) and ``h`` the largest group bandwidth: the L1
        distance of the KDEs over the real line, up to the mass beyond 4
        bandwidths (less than 1.3e-4 in all). Use it for real-valued
        predictions.
    class_agg, classes, given, pos_label
        As in :func:`delta_dp` (``given``: the densities of one true label's
        scores).
    data : DataFrame, default=None
        As in :func:`delta_dp`, for eager frames (pandas, polars, PyArrow)
        and Dask frames' columns; ABPC is not computed inside a lazy engine
        (a kernel density estimate needs every score): collect the frame, or
        the columns needed, first.

    Returns
    -------
    abpc : float
        In [0, 2], whatever the predictions' units (an L1 distance between
        densities; scale-free once the bandwidths scale with the data, as
        Scott's and Silverman's rules do, and with ``domain=None``).

    Raises
    ------
    ValueError
        If a group's scores are all equal (or it has a single sample): its
        KDE bandwidth, proportional to its standard deviation, is 0 and the
        density is undefined. Also on scores outside ``domain``, an invalid
        ``domain``, and invalid inputs as for :func:`abcc`.

    Examples
    --------
    >>> from skfair.metrics import abpc
    >>> round(abpc(None, [.2, .4, .6, .3, .5, .7],
    ...            sensitive_features=[0, 0, 0, 1, 1, 1]), 4)
    0.2814
    >>> round(abpc(None, [20, 40, 60, 30, 50, 70],
    ...            sensitive_features=[0, 0, 0, 1, 1, 1], domain=None), 4)
    0.3168
    """
    if method not in ("auto", "direct", "binned"):
        raise ValueError(ABPC_METHOD_ERROR.format(method=method))
    check_bw_method(bw_method)
    n_points = check_n_points(n_points, "abpc")
    domain = check_domain(domain)

    def l1_distances(prepared):
        grouping, scores, weights, codes, _ = prepared
        densities, grid = group_densities(
            scores, weights, codes, grouping, bw_method, n_points, method, domain
        )
        if agg == "max":  # only the pairs that may be the worst, by blocks
            return [worst_l1(densities, grid)]
        return pairs_l1(densities, *pair_codes(grouping.n_groups), grid)

    inputs = ScoreData(
        y_true, y_score, sensitive_features, sample_weight, combine, given, pos_label
    )
    reason = ABPC_REASON if domain == UNIT_DOMAIN else ABPC_DOMAIN_REASON
    return aggregate_pairs(
        l1_distances,
        inputs,
        agg,
        min_group_size,
        class_agg,
        classes,
        unit_interval_for=reason,
        sort=False,
        domain=domain,
    )


def group_densities(
    scores, weights, codes, grouping, bw_method, n_points, method, domain
):
    """``(densities, grid)``: each group's KDE on ABPC's grid, as :func:`abpc`.

    ``densities`` has one row per group of ``grouping`` (codes ``0 ..
    n_groups - 1`` in ``codes``); ``pairs_l1(densities, a, b, grid)`` is
    ABPC of any pairs ``(a, b)``, on the grid of all the groups.
    """
    # each group's rows in their order (a stable sort, not one mask per group)
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes, minlength=grouping.n_groups))[:-1]
    members = np.split(order, ends)
    samples = [(scores[m], None if weights is None else weights[m]) for m in members]
    bandwidths = [
        kde_bandwidth(x, w, bw_method, label=grouping.labels[g])
        for g, (x, w) in enumerate(samples)
    ]
    observed = scores  # for domain=None, the range of positive weights
    if domain is None and weights is not None:
        observed = scores[weights > 0]
    grid = kde_grid(domain, observed, bandwidths, n_points)
    densities = np.empty((grouping.n_groups, grid.shape[0]))
    for g, ((x, w), bandwidth) in enumerate(zip(samples, bandwidths)):
        use_direct = method == "direct" or (
            method == "auto" and x.shape[0] * n_points <= _DIRECT_KDE_WORK
        )
        kde = direct_kde if use_direct else binned_kde
        densities[g] = kde(x, w, bandwidth, grid)
    return densities, grid


def _area_between(pair, slab=1 << 16):
    """∫|F_a - F_b| of the step functions, one cache-sized slab at a time.

    Slabs keep the temporaries (|gap|, widths) in two reused buffers: on
    large inputs fresh full-size arrays cost more in page faults than the
    arithmetic. The products are summed by ``np.add.reduce``, not ``np.dot``:
    a BLAS call per slab wakes its thread pool, which on a busy machine costs
    far more than the sum.
    """
    points, numerator = pair.points, pair.numerator
    size = min(slab, max(points.shape[0] - 1, 0))
    magnitude, widths = np.empty(size), np.empty(size)
    total = 0.0
    for lo in range(0, points.shape[0] - 1, slab):
        hi = min(lo + slab, points.shape[0] - 1)
        gap, width = magnitude[: hi - lo], widths[: hi - lo]
        np.abs(numerator[lo:hi], out=gap)  # cast as astype(np.float64)
        np.subtract(points[lo + 1 : hi + 1], points[lo:hi], out=width)
        total += float(np.multiply(gap, width, out=gap).sum())
    return total / pair.scale


#: The parameters :func:`first_pair_reaching` takes for each metric.
_PAIR_PARAMS = {
    "abcc": ("method",),
    "abpc": ("bw_method", "n_points", "method", "domain"),
}


def _defaults(function, names):
    """The public ``function``'s defaults of ``names`` (one source of them)."""
    parameters = inspect.signature(function).parameters
    return {name: parameters[name].default for name in names}


def first_pair_reaching(
    metric, scores, codes, grouping, target, weights=None, params=None
):
    """``(a, b)``: the first pair (in pair order) whose ABCC or ABPC reaches ``target``.

    For many groups: every group's CDF steps (ABCC) or density (ABPC) are
    made once, three pivot rows bound every pair by the triangle inequality
    (both are metrics on the groups), and the pairs are scanned in order,
    a block at a time, evaluating only those whose bound reaches ``target``
    (:func:`~._kernels._pivots.first_pair_at_least`); the values are those
    of the public function on all these groups (ABPC on their common grid).
    ``codes``: ``0 .. n_groups - 1`` for the rows compared, negative for the
    others. None when no pair reaches ``target``; NotImplemented for
    parameters other than those of :data:`_PAIR_PARAMS` (ABCC's grid).
    """
    options = _defaults({"abcc": abcc, "abpc": abpc}[metric], _PAIR_PARAMS[metric])
    params = dict(params or {})
    if set(params) - set(options) or (
        metric == "abcc" and params.get("method", "exact") != "exact"
    ):
        return NotImplemented
    options.update(params)
    rows = codes >= 0
    scores, codes = scores[rows], codes[rows]
    weights = None if weights is None else weights[rows]
    n_groups = grouping.n_groups
    if metric == "abcc":
        steps, padded = area_steps(sort_scores(scores, codes, n_groups, weights))

        def evaluate(a, b):
            return pairs_abcc(steps, a, b, padded)

    else:
        densities, grid = group_densities(
            scores,
            weights,
            codes,
            grouping,
            options["bw_method"],
            options["n_points"],
            options["method"],
            options["domain"],
        )

        def evaluate(a, b):
            return pairs_l1(densities, a, b, grid)

    def row_of(g):
        row = pivot_row(n_groups, g, evaluate)
        return row, row

    _, bounds, _ = pivot_rows(n_groups, row_of)
    return first_pair_at_least(n_groups, bounds, target, evaluate)
