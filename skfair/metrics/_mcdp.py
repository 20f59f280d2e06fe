"""MCDP(ε): the maximal local CDF disparity of Jin et al. (ICML 2024)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np

from ._base import (
    UNIT_DOMAIN,
    aggregate,
    check_domain,
    check_grid_size,
    observed_domain,
    pairs_of,
)
from ._dask import dask_dispatch
from ._dist_inputs import ScoreData
from ._frame_arg import frame_dispatch
from ._kernels import AllPairs, mcdp_pair_approx, mcdp_pair_exact, pair_gap
from ._kernels._pivots import use_pivots
from ._mcdp_pairs import GroupingPairs, PairValues
from ._mcdp_result import MCDPResult
from ._multiclass import (
    aggregate_classes,
    check_scores_class_options,
    class_details,
    is_class_scores,
)

EPSILON_ERROR = "epsilon must be a finite real number >= 0; got {epsilon!r}."
METHOD_ERROR = "method must be 'exact' or 'approx'; got {method!r}."
ROUNDING_ERROR = "rounding must be 'exact' or 'float'; got {rounding!r}."
APPROX_EPSILON_ERROR = (
    "method='approx' (the paper's Algorithm 2) needs epsilon > 0; got "
    "epsilon={epsilon!r}. MCDP(0) is computed exactly in O(N log N) by "
    "method='exact'."
)
EMPTY_EPSILONS_ERROR = "epsilons must hold at least one value; got none."
SAMPLING_FREQUENCY_ERROR = (
    "sampling_frequency must be a positive integer; got {value!r}."
)
UNIT_INTERVAL_REASON = (
    "MCDP(epsilon) with epsilon > 0, whose neighbourhoods are clipped to "
    "domain=(0.0, 1.0); for real-valued predictions pass domain=None (their "
    "observed range) or domain=(lo, hi) (MCDP(0), the two-sample KS "
    "statistic, accepts any real scores)"
)
#: The reason in the error for predictions outside a domain other than [0, 1].
DOMAIN_REASON = "MCDP(epsilon) with epsilon > 0, whose neighbourhoods are clipped to it"


def check_epsilon(epsilon):
    """``epsilon`` as a float, or the ValueError of a negative or non-finite one.

    Examples
    --------
    >>> from skfair.metrics._mcdp import check_epsilon
    >>> check_epsilon(0.05)
    0.05
    """
    ok = isinstance(epsilon, numbers.Real) and not isinstance(epsilon, bool)
    if not ok or not np.isfinite(epsilon) or epsilon < 0:
        raise ValueError(EPSILON_ERROR.format(epsilon=epsilon))
    return float(epsilon)


def check_mcdp_method(method, epsilon, sampling_frequency, rounding, width=1.0):
    """Validate ``method``, ``rounding`` and Algorithm 2's grid at ``epsilon``.

    ``width`` is that of the domain the probes cover (``hi - lo``).
    """
    if method not in ("exact", "approx"):
        raise ValueError(METHOD_ERROR.format(method=method))
    if rounding not in ("exact", "float"):
        raise ValueError(ROUNDING_ERROR.format(rounding=rounding))
    if method == "approx":
        if epsilon == 0:
            raise ValueError(APPROX_EPSILON_ERROR.format(epsilon=epsilon))
        k = sampling_frequency
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(SAMPLING_FREQUENCY_ERROR.format(value=k))
        check_grid_size(
            int(np.ceil(k * width / epsilon)),
            f"method='approx' with epsilon={epsilon!r} and sampling_frequency={k}",
            "Lower sampling_frequency, or use method='exact'.",
        )


@dataclass(frozen=True)
class _Options:
    """MCDP's options besides the data: those of the public functions, in order."""

    method: str
    sampling_frequency: int
    rounding: str
    agg: str
    domain: tuple | None = UNIT_DOMAIN


def _results(
    data, epsilons, options, min_group_size, class_agg="max", classes=None, details=True
):
    """Validate every parameter and the inputs, then MCDP(ε) for each ε.

    ``data`` is the public function's :class:`ScoreData`, ``options`` its
    :class:`_Options`; class probabilities (2-D ``y_score``) are evaluated
    one class at a time. One :class:`MCDPResult` per ε (for class
    probabilities the worst class's, with every class's), or with
    ``details=False`` only the values (floats; with ``agg="max"`` and many
    groups most pairs are then never evaluated: see
    :class:`~skfair.metrics._kernels.AllPairs`).
    """
    if is_class_scores(data.y_score):
        rest = (epsilons, options, min_group_size)
        labels, results = data.per_class(
            lambda one: _results(one, *rest, details=details), class_agg, classes
        )
        if details:  # per ε: the worst class's result, with every class's
            return [class_details(labels, r, class_agg) for r in zip(*results)]
        return [float(v) for v in aggregate_classes(results, class_agg).reshape(-1)]
    check_scores_class_options(class_agg, classes)
    if data.given == "both":  # the larger of the two sides, ε by ε
        sides = [
            _results(side, epsilons, options, min_group_size, details=details)
            for side in data.sides()
        ]
        key = (lambda r: r.value) if details else None
        return [max(pair, key=key) for pair in zip(*sides)]
    epsilons, prepared = _prepared(data, epsilons, options, min_group_size)
    if details:
        results = _evaluate(prepared, epsilons, options)
        return [replace(r, given=data.given) for r in results]
    worst_only = options.agg == "max"
    per_grouping = [_pair_values(p, epsilons, options, worst_only) for p in prepared]
    return [
        aggregate([values[i] for values in per_grouping], options.agg)
        for i in range(len(epsilons))
    ]


def _prepared(data, epsilons, options, min_group_size):
    """Validate every parameter and the 1-D inputs: ``(epsilons, prepared)``.

    The checked ε as floats, and each grouping's PreparedScores with its
    domain (:func:`~._base.observed_domain`).
    """
    epsilons = [check_epsilon(e) for e in epsilons]
    if not epsilons:
        raise ValueError(EMPTY_EPSILONS_ERROR)
    domain = check_domain(options.domain)
    width = 1.0 if domain == UNIT_DOMAIN else 0.0  # else checked once known
    for epsilon in epsilons:
        check_mcdp_method(
            options.method, epsilon, options.sampling_frequency, options.rounding, width
        )
    reason = UNIT_INTERVAL_REASON if domain == UNIT_DOMAIN else DOMAIN_REASON
    prepared = data.prepared(
        options.agg,
        min_group_size,
        unit_interval_for=reason if max(epsilons) > 0 else None,
        domain=domain,
    )
    domains = [observed_domain(domain, p.scores, p.weights) for p in prepared]
    if options.method == "approx" and domain != UNIT_DOMAIN:
        width = max(hi - lo for lo, hi in domains)
        for epsilon in epsilons:
            check_mcdp_method(
                "approx", epsilon, options.sampling_frequency, "exact", width
            )
    return epsilons, [(p, d) for p, d in zip(prepared, domains)]


def _pair_values(prepared, epsilons, options, worst_only=False):
    """Per ε, MCDP(ε) of every pair of one grouping (or only the largest).

    ``prepared`` is the grouping's PreparedScores and its domain. Two
    groups, and ``method="approx"``, take the pairs one at a time; exact
    MCDP of more groups evaluates all pairs at once on their merged
    supports, which gives the same values.
    """
    (grouping, *_, sorted_scores), domain = prepared
    exact = options.method == "exact"
    if not exact or grouping.n_groups == 2:
        pairs = [pair_gap(sorted_scores, a, b) for a, b in pairs_of(grouping)]
        return [
            [_pair(pair, e, options, domain)[0] for pair in pairs] for e in epsilons
        ]
    engine = _engine(prepared)
    rounding = options.rounding
    if worst_only:
        return [[engine.worst(e, rounding)] for e in epsilons]
    return [engine.values(e, rounding).tolist() for e in epsilons]


def _engine(prepared):
    """The :class:`~._kernels.AllPairs` of one grouping's sorted scores."""
    (grouping, *_, sorted_scores), domain = prepared
    s = sorted_scores
    return AllPairs(s.values, s.codes, grouping.n_groups, s.weights, domain)


def _pair(pair, epsilon, options, domain):
    if options.method == "exact":
        return mcdp_pair_exact(pair, epsilon, options.rounding, domain)
    return mcdp_pair_approx(pair, epsilon, options.sampling_frequency, domain)


def _evaluate(prepared, epsilons, options):
    """One :class:`MCDPResult` per ε, with every pair's value.

    The worst pair is the first (in grouping and pair order) of the largest
    values; its window, threshold and sign come from ``mcdp_pair_exact`` (or
    ``mcdp_pair_approx``) on its own gap. With ``agg="max"``, the exact
    method and many groups (:func:`~._kernels._pivots.use_pivots`) a
    grouping's pairs are not all evaluated: its worst pair comes from
    :meth:`~._kernels.AllPairs.worst_pair` and its ``pair_values`` are a
    :class:`~._mcdp_pairs.GroupingPairs`, evaluated when read.
    """
    method, agg = options.method, options.agg
    per_grouping = [_grouping_pairs(p, epsilons, options) for p in prepared]
    results = []
    for i, epsilon in enumerate(epsilons):
        parts, worst = [], None
        for g in range(len(prepared)):
            part, top = per_grouping[g][i]
            parts.append(part)
            if worst is None or top[0] > worst[0]:
                worst = (top[0], g, top[1], top[2])
        value, g, a, b = worst
        value = float(value)
        if agg != "max":
            value = aggregate([list(part.values()) for part in parts], agg)
        p, domain = prepared[g]
        grouping = p.grouping
        out = _pair(pair_gap(p.sorted, a, b), epsilon, options, domain)
        labels = (grouping.labels[a], grouping.labels[b])
        lazy = any(isinstance(part, GroupingPairs) for part in parts)
        if lazy:
            pair_values = PairValues(parts)
        else:
            pair_values = {k: v for part in parts for k, v in part.items()}
        results.append(
            MCDPResult(
                value=value,
                epsilon=epsilon,
                method=method,
                attribute=grouping.name,
                groups=labels,
                window=out[1],
                threshold=out[2],
                higher_cdf_group=labels[0] if out[3] >= 0 else labels[1],
                pair_values=pair_values,
            )
        )
    return results


def _grouping_pairs(prepared, epsilons, options):
    """Per ε, ``(pair values, (value, a, b) of the grouping's worst pair)``.

    The pair values are a dict keyed by ``(name, label_a, label_b)``, or for
    many groups with ``agg="max"`` and the exact method a
    :class:`~._mcdp_pairs.GroupingPairs` (evaluated when read).
    """
    (grouping, *_, sorted_scores), domain = prepared
    lazy = (
        options.agg == "max"
        and options.method == "exact"
        and use_pivots(grouping.n_groups)
    )
    if lazy:
        engine = _engine(prepared)
        out = []
        for epsilon in epsilons:
            part = GroupingPairs(
                grouping.name,
                grouping.labels,
                sorted_scores,
                domain,
                epsilon,
                options.rounding,
            )
            out.append((part, engine.worst_pair(epsilon, options.rounding)))
        return out
    out = []
    for values in _pair_values(prepared, epsilons, options):
        part, top = {}, None
        for (a, b), value in zip(pairs_of(grouping), values):
            labels = (grouping.labels[a], grouping.labels[b])
            part[(grouping.name, *labels)] = value
            if top is None or value > top[0]:
                top = (value, a, b)
        out.append((part, top))
    return out


@frame_dispatch("mcdp_details")
@dask_dispatch("mcdp_details")
def mcdp_details(
    y_true,
    y_score,
    *,
    sensitive_features,
    epsilon=0.0,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
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
    """MCDP(ε) and where it is attained: threshold or window, and which groups.

    Takes the same parameters as :func:`mcdp` and returns an
    :class:`MCDPResult` whose ``value`` equals ``mcdp(...)``.

    Parameters
    ----------
    y_true, y_score, sensitive_features, epsilon, method, sampling_frequency, rounding
        See :func:`mcdp`.
    agg, combine, sample_weight, min_group_size, domain, class_agg, classes
        See :func:`mcdp`.
    given, pos_label, data
        See :func:`mcdp`: with ``given``, the result's ``given`` says which
        label's samples were compared (for "both", the side attaining the
        value) and ``threshold`` is where their TPR (FPR) gap is largest.

    Returns
    -------
    result : MCDPResult
        Its ``window`` is in the scores' units. For class probabilities its
        ``class_label`` names the worst class, whose pair, threshold and
        window the other fields describe, and ``per_class`` holds each
        class's own result; ``value`` is the ``class_agg`` over classes.

    See Also
    --------
    mcdp : The value alone.

    Examples
    --------
    >>> from skfair.metrics import mcdp_details
    >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
    >>> res = mcdp_details(None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5)
    >>> res.value, res.threshold, res.higher_cdf_group
    (0.4, 0.3, 0)
    >>> res = mcdp_details(None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5,
    ...                    epsilon=0.05)
    >>> res.value, res.window
    (0.2, (0.2, 0.30000000000000004))
    >>> proba = [[.7, .3], [.6, .4], [.2, .8], [.1, .9]]
    >>> res = mcdp_details(None, proba, sensitive_features=[0, 0, 1, 1],
    ...                    classes=["no", "yes"], min_group_size=1)
    >>> res.class_label, res.groups, res.threshold, sorted(res.per_class)
    ('no', (0, 1), 0.2, ['no', 'yes'])
    """
    inputs = ScoreData(
        y_true, y_score, sensitive_features, sample_weight, combine, given, pos_label
    )
    options = _Options(method, sampling_frequency, rounding, agg, domain)
    return _results(inputs, [epsilon], options, min_group_size, class_agg, classes)[0]


@frame_dispatch("mcdp")
@dask_dispatch("mcdp")
def mcdp(
    y_true,
    y_score,
    *,
    sensitive_features,
    epsilon=0.0,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
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
    r"""Maximal cumulative-ratio disparity along predictions' ε-neighbourhoods.

    MCDP(ε) (Jin et al., ICML 2024, Eq. 4) is the largest CDF gap between two
    groups that persists over a whole neighbourhood of scores:

    .. math::

        \mathrm{MCDP}(\epsilon) = \max_{y_0 \in [lo, hi]}
        \min_{\hat y \in [y_0 - \epsilon, y_0 + \epsilon] \cap [lo, hi]}
        |\hat F_0(\hat y) - \hat F_1(\hat y)|,

    with :math:`\hat F_a` the empirical CDF of group *a*'s scores and
    ``[lo, hi]`` the ``domain``, [0, 1] for scores as in the paper. MCDP(0)
    is the two-sample Kolmogorov–Smirnov statistic; MCDP(ε) is
    non-increasing in ε. Lower is fairer; the value lies in [0, 1] (a
    difference of two CDFs, whatever the scores' units).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored, as in :func:`~skfair.metrics.delta_dp` (length checked if given).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores, e.g. positive-class probabilities, or real-valued predictions
        (a regressor's). For ε > 0 they must lie in ``domain``; for ε = 0
        any finite reals are accepted (the domain does not enter). A 2-D
        array (or DataFrame) holds class probabilities, one column per class
        (``predict_proba``): each class's column is scored one-vs-rest and
        the per-class values are aggregated by ``class_agg``. They must lie
        in [0, 1]; rows need not sum to 1 exactly (each column is a score).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels (any hashable values). Several attributes are combined
        as ``combine`` says.
    epsilon : float, default=0.0
        The neighbourhood radius ε >= 0, in the scores' units (for
        real-valued predictions, e.g. a fraction of their range or of the
        target's standard deviation).
    method : {"exact", "approx"}, default="exact"
        "exact" computes Eq. 4 exactly in O(N log N) time and O(N) memory;
        "approx" is the paper's Algorithm 2 (probes ``np.arange(lo, hi,
        δ)``, δ = ε/K), which never under-estimates the exact value.
    sampling_frequency : int, default=32
        K of Algorithm 2 (``method="approx"`` only).
    rounding : {"exact", "float"}, default="exact"
        Window membership ``p_j ∈ [p_i, p_i + 2ε]`` decided in exact real
        arithmetic ("exact", the definition), or by comparing with the rounded
        double ``p_i + 2ε`` as the reference code does ("float").
    agg, combine, sample_weight, min_group_size
        As in :func:`~skfair.metrics.delta_dp` (the weights give weighted
        ECDFs).
    domain : tuple of (float, float) or None, default=(0.0, 1.0)
        The interval ``[lo, hi]`` the ε-neighbourhoods are clipped to (the
        paper's [0, 1] for scores). None takes the observed range ``[min,
        max]`` of the compared predictions (those of positive weight in the
        groups kept by ``min_group_size``; with ``combine="marginal"``, of
        each attribute);
        a pair ``(lo, hi)`` of finite reals, ``lo < hi``, must hold every
        prediction when ε > 0. The clipping is exact (the scores are never
        rescaled, so ties stay ties). Ignored for ε = 0.
    class_agg : {"max", "mean"}, default="max"
        For class probabilities: the worst class's MCDP(ε) ("max") or the
        mean over classes ("mean", macro). Ignored for 1-D scores.
    classes : sequence or None, default=None
        For class probabilities, the label of each column (reported by
        :func:`mcdp_details`); None takes a DataFrame's columns, else
        ``0 .. n_classes - 1``.
    given : {None, "positive", "negative", "both"}, default=None
        Condition on the true label (separation rather than demographic
        parity; see Notes). None compares every sample's score (demographic
        parity). "positive" compares the groups' scores among the samples
        whose ``y_true`` equals ``pos_label`` only, "negative" among the
        others, and "both" is the larger of the two. The metric is then the
        unconditional one on those rows: ``min_group_size``, the small-group
        warning and the errors (e.g. a group with no such samples) apply to
        the groups *within* the subset, and their messages say so. Needs
        ``y_true``. For class probabilities each class's column is compared
        one-vs-rest on the *true* class: "positive" keeps the samples of
        that class, "negative" the others (``pos_label`` is then ignored;
        the column labels, ``classes`` or a DataFrame's columns, must be
        ``y_true``'s labels).
    pos_label : int, float, bool or str, default=1
        The positive class of ``y_true`` for ``given``; it must be one of
        its labels. Ignored when ``given`` is None.
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
        bit-equal, ABCC and ΔDP_c to rounding); ``method="approx"``, ABCC's
        grid and class probabilities are not computed there.

    Returns
    -------
    mcdp : float
        MCDP(ε) in [0, 1] (a fraction, not the paper's ×100).

    Raises
    ------
    ValueError
        On NaN or infinite scores, scores outside ``domain`` when ε > 0, an
        invalid ``domain``, fewer than two groups, mismatched lengths, or
        invalid parameters.

    See Also
    --------
    mcdp_details : Where the maximum is attained.
    mcdp_curve : MCDP over several ε with one sort.
    abcc : The area between the CDFs.

    Notes
    -----
    The exact algorithm sorts the scores once, evaluates the CDF gap at every
    distinct score (the breakpoints of the step function, plus the domain's
    ends), and finds the best window with a linear-time max–min sweep (see
    ``skfair/metrics/_kernels/_windows.py``). It differs from the paper's published
    code (its Algorithm 4), which needs O(N²) memory, calls ``np.max(a, b)``
    (treating ``b`` as an axis), decides window membership with the rounded
    sum ``p_i + 2ε``, and mishandles scores equal to 0: on
    ``y0 = [0, 0, .15, .15]``, ``y1 = [.15] * 4``, ε = 0.1 it returns 0
    whereas Eq. 4 gives 0.5 (the neighbourhood [0, 0.1] of ``y0 = 0`` holds
    a gap of 0.5 throughout). ``method="approx"`` reproduces Algorithm 2 with
    ``np.max(a, b)`` read as ``max(a, b)``.

    **Separation over all thresholds.** With ``given="positive"`` the group
    CDFs are those of the positives' scores, :math:`F_a(t) = P(\hat y \le t
    \mid Y = 1, A = a)`, and :math:`1 - F_a(t)` is group *a*'s
    true-positive rate at threshold *t* (decisions ``y_score > t``); so
    MCDP(0) given positive is the largest gap between two groups' TPRs over
    every threshold: threshold-free *equal opportunity*. Given negative it
    is the largest FPR gap (*predictive equality*), and ``given="both"``
    the larger of the two, the largest violation of *equalised odds* at any
    one threshold. MCDP(ε > 0) asks the gap to persist over a window of
    thresholds; ABCC given positive (:func:`abcc`) is the TPR gap averaged
    over all thresholds in [0, 1], the Wasserstein-1 distance between the
    positives' score distributions (Becker et al., 2024).

    References
    ----------
    .. [1] J. Jin, H. Li, F. Feng, "On the Maximal Local Disparity of
       Fairness-Aware Classifiers", ICML 2024.
    .. [2] A.-K. Becker, O. Dumitrasc, K. Broelemann, "Standardized
       Interpretable Fairness Measures for Continuous Risk Scores", ICML
       2024.

    Examples
    --------
    >>> from skfair.metrics import mcdp
    >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
    >>> s = [0] * 5 + [1] * 5
    >>> mcdp(None, y0 + y1, sensitive_features=s)
    0.4
    >>> mcdp(None, y0 + y1, sensitive_features=s, epsilon=0.05)
    0.2
    >>> mcdp(None, y0 + y1, sensitive_features=s, epsilon=0.05, method="approx")
    0.4

    Real-valued predictions (here in thousands) take ``domain=None``:

    >>> salaries = [31.0, 42.5, 38.0, 55.0, 47.0, 36.0, 61.0, 58.5, 49.0, 70.0]
    >>> mcdp(None, salaries, sensitive_features=s, epsilon=2.0, domain=None)
    0.4

    Class probabilities (``predict_proba`` of a 3-class model): the worst
    class, or the mean over classes:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.dirichlet([2, 2, 2], size=60)
    >>> groups = np.repeat([0, 1], 30)
    >>> round(mcdp(None, proba, sensitive_features=groups), 4)
    0.3333
    >>> round(mcdp(None, proba, sensitive_features=groups, class_agg="mean"), 4)
    0.2889

    Equal opportunity over all thresholds: the largest TPR gap, MCDP(0)
    among the positives (``given="negative"``: the largest FPR gap):

    >>> y_true = [1, 1, 1, 0, 0] * 2
    >>> mcdp(y_true, y0 + y1, sensitive_features=s, given="positive",
    ...      min_group_size=1)
    0.6666666666666666
    >>> mcdp(y_true, y0 + y1, sensitive_features=s, given="negative",
    ...      min_group_size=1)
    1.0
    """
    inputs = ScoreData(
        y_true, y_score, sensitive_features, sample_weight, combine, given, pos_label
    )
    options = _Options(method, sampling_frequency, rounding, agg, domain)
    return _results(
        inputs, [epsilon], options, min_group_size, class_agg, classes, details=False
    )[0]


@frame_dispatch("mcdp_curve")
@dask_dispatch("mcdp_curve")
def mcdp_curve(
    y_true,
    y_score,
    *,
    sensitive_features,
    epsilons,
    method="exact",
    sampling_frequency=32,
    rounding="exact",
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
    """MCDP(ε) for a sequence of ε, sorting the scores only once.

    Parameters
    ----------
    epsilons : array-like of float
        The radii, each >= 0 (> 0 for ``method="approx"``), in the scores'
        units; the scores must lie in ``domain`` if any is > 0.
    y_true, y_score, sensitive_features, method, sampling_frequency, rounding
        See :func:`mcdp`.
    agg, combine, sample_weight, min_group_size, domain, class_agg, classes
        See :func:`mcdp` (for class probabilities, each ε's value is the
        ``class_agg`` of the classes' values at that ε).
    given, pos_label, data
        See :func:`mcdp` (``given="both"``: the larger side at each ε).

    Returns
    -------
    values : ndarray of shape (n_epsilons,)
        ``mcdp(..., epsilon=e)`` for each ``e`` in ``epsilons``; it is
        non-increasing in ε for the exact method.

    Examples
    --------
    >>> from skfair.metrics import mcdp_curve
    >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
    >>> mcdp_curve(None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5,
    ...            epsilons=[0, 0.05, 0.5]).tolist()
    [0.4, 0.2, 0.0]
    """
    epsilons = np.atleast_1d(epsilons).tolist()
    inputs = ScoreData(
        y_true, y_score, sensitive_features, sample_weight, combine, given, pos_label
    )
    options = _Options(method, sampling_frequency, rounding, agg, domain)
    values = _results(
        inputs, epsilons, options, min_group_size, class_agg, classes, details=False
    )
    return np.array(values)
