"""Tests of "no disparity" for the distribution metrics: :func:`disparity_test`.

A permutation test of any distribution metric
(:func:`scipy.stats.permutation_test`, group labels permuted), the exact
two-sample Kolmogorov–Smirnov p-value for MCDP(0) of two groups, and Welch /
Alexander–Govern and chi-square / Fisher tests for ΔDP: the one-metric case
of :mod:`skfair.metrics.inference`, on which the audit report tests several
metrics with shared permutations. The intervals are
:func:`~skfair.metrics.metric_confidence_interval` (``_confidence.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._confidence import checked_metric_spec, given_dispatch
from ._frame_arg import frame_dispatch
from ._multiclass import is_class_scores
from ._multiclass_inference import (
    ClassSorts,
    check_class_score_type,
    check_class_test_method,
    class_permutation_pvalue,
)
from ._score_type import scores_for
from .inference import (
    check_n_resamples,
    delta_dp_test,
    ks_problem,
    ks_pvalue,
    permutation_pvalues,
    permutation_resolution,
    random_generator,
    shared_sort,
)

__all__ = ["DisparityTestResult", "disparity_test"]

TEST_METHOD_ERROR = (
    "method must be 'auto', 'permutation', 'ks', 'welch' or 'chi2'; got {method!r}."
)
CLOSED_FORM_TEST_ERROR = (
    "method={method!r} tests equal group {what} for metric='delta_dp' "
    "({options}) on unweighted data with at least two samples per group; got "
    "metric={metric!r} with {problem}. Use method='permutation'."
)
ONE_SAMPLE_GROUP_ERROR = (
    "group {label!r} of {where} has a single sample; "
    "the permutation test (method='permutation', metric={metric!r}) needs "
    "at least two samples in every group it compares. {fix}"
)
ONE_SAMPLE_FIX = "Pass min_group_size=2 to leave out the groups of one sample."
ONE_SAMPLE_MARGINAL_FIX = (
    "With combine='marginal' the labels of the intersections of the "
    "attributes are permuted, so each intersection needs two samples: merge "
    "this one into another group, or pass combine='intersection' with "
    "min_group_size=2."
)
KS_ERROR = (
    "method='ks' tests MCDP(0), the two-sample Kolmogorov-Smirnov statistic, "
    "of exactly two groups without sample weights; got {problem}. Use "
    "method='permutation'."
)


@dataclass(frozen=True)
class DisparityTestResult:
    """The p-value of a test of "no disparity", as :func:`disparity_test` returns.

    Attributes
    ----------
    metric : str
        The test statistic's name.
    statistic : float
        The metric on the data.
    pvalue : float
        The probability, if every group's scores come from the same
        distribution, of a metric at least as large.
    method : str
        The test: "permutation", "ks" (exact or asymptotic two-sample
        Kolmogorov–Smirnov), "welch" or "alexander-govern" (equal means, for
        ΔDP_c), "chi2" or "fisher" (equal positive rates, for ΔDP_b^t).
    n_resamples : int or None
        Permutations evaluated: those asked for, or, when the groups admit no
        more distinct partitions than that, every partition (scipy's exact
        test); None for the other tests.
    pvalue_floor : float or None
        The smallest p-value the permutation test can return: ``1 /
        (n_resamples + 1)`` for random permutations (a p-value equal to it
        means "larger than in every permutation": the resolution limit, not a
        measured probability), ``1 / n_resamples`` for the exact test; None
        for the other tests.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import disparity_test
    >>> y_score = np.r_[np.linspace(0, 0.6, 50), np.linspace(0.4, 1, 50)]
    >>> groups = np.repeat([0, 1], 50)
    >>> res = disparity_test(None, y_score, sensitive_features=groups)
    >>> res.metric, res.method, round(res.statistic, 2), res.pvalue < 1e-6
    ('mcdp', 'ks', 0.66, True)
    >>> res.n_resamples is None, res.pvalue_floor is None
    (True, True)
    """

    metric: str
    statistic: float
    pvalue: float
    method: str
    n_resamples: int | None = None
    pvalue_floor: float | None = None


@frame_dispatch("disparity_test")
@given_dispatch("disparity_test")
def disparity_test(
    y_true,
    y_score,
    *,
    sensitive_features,
    metric="mcdp",
    method="auto",
    n_resamples=9999,
    random_state=None,
    metric_params=None,
    sample_weight=None,
    combine="intersection",
    min_group_size=None,
    score_type="probability",
    data=None,
):
    """Test "no disparity": whether the groups' score distributions are the same.

    The null hypothesis is that every group's scores are drawn from one
    distribution (the group labels are exchangeable); a small p-value says
    the observed disparity is unlikely to be noise.

    Parameters
    ----------
    y_true, y_score
        See :func:`metric_confidence_interval`. For class probabilities
        (``y_score`` of shape ``(n_samples, n_classes)``) the statistic is
        the metric aggregated over classes by ``metric_params["class_agg"]``
        ("max" by default, or "mean") and the test is the permutation test
        (one permutation of the group labels shared by every class);
        ``method`` must be "auto" or "permutation".
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; with several attributes their intersections are
        permuted.
    metric : {"mcdp", "abcc", "abpc", "delta_dp"}, default="mcdp"
        The test statistic.
    method : {"auto", "permutation", "ks", "welch", "chi2"}, default="auto"
        "permutation": :func:`scipy.stats.permutation_test`, group labels
        permuted, one-sided (large values are evidence of disparity), any
        metric. "ks": for MCDP(0) of two unweighted groups, the two-sample
        Kolmogorov–Smirnov p-value of :func:`scipy.stats.ks_2samp` (exact
        when each group has at most 10 000 samples, asymptotic above, as
        scipy's ``method="auto"``). "welch": for ΔDP_c of unweighted groups,
        Welch's t-test (two groups) or the Alexander–Govern test (more; as
        :func:`scipy.stats.alexandergovern`) of equal means. "chi2": for
        ΔDP_b^t of unweighted groups, Pearson's chi-square test of equal
        positive rates (Fisher's exact test for two groups when an expected
        count is below 5). "auto" is "ks", then "welch" / "chi2" where they
        apply (no resampling, no resolution limit), else "permutation".
    n_resamples : int, default=9999
        Permutations; the smallest p-value is ``1 / (n_resamples + 1)``. When
        the groups admit at most that many distinct partitions, every one is
        evaluated instead (an exact test; ``pvalue_floor`` says which).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the permutations.
    metric_params, combine
        See :func:`metric_confidence_interval`.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (they stay with their samples when labels move).
    min_group_size : int or None, default=None
        As for :func:`metric_confidence_interval`; the permutations move
        labels among the samples of the compared groups only (the samples of
        groups left out keep theirs).
    score_type : {"probability", "logit", "margin"}, default="probability"
        As for :func:`metric_confidence_interval`: logits are mapped through
        the sigmoid (a ΔDP_b threshold too); margins keep their scale, and
        ABPC and MCDP(ε > 0) raise a ValueError for them unless
        ``metric_params`` gives a ``domain`` other than ``(0.0, 1.0)`` (e.g.
        None, the observed range, as for real-valued predictions). MCDP(0), the KS
        statistic, and its p-value are the same for logits, margins or any
        increasing map of them.

    data : DataFrame, default=None
        An eager frame (pandas, polars, PyArrow, ...) or a Dask frame; then
        ``y_true``, ``y_score``, ``sensitive_features`` and ``sample_weight``
        are the names of its columns. A lazy frame is refused with what to
        do (permutations need every score).

    Returns
    -------
    result : DisparityTestResult

    Raises
    ------
    ValueError
        On invalid inputs, or ``method="ks"`` where it does not apply.

    See Also
    --------
    metric_confidence_interval : How large the disparity may be.

    Notes
    -----
    MCDP(0) is the two-sample KS statistic, so for ε = 0 the KS test is exact
    and needs no resampling. The Welch and chi-square tests test a smaller
    null (equal means, equal positive rates at the threshold): exactly
    "ΔDP = 0". With several attributes and ``combine="marginal"`` their
    p-values are combined by Bonferroni. A permutation p-value is never
    below ``pvalue_floor``, ``1 / (n_resamples + 1)``: at that value the
    observed metric exceeded every permuted one, and only more permutations
    can say more (with every partition enumerated, ``1 / n_partitions``:
    exact, and nothing more to say). Since MCDP(ε) <= MCDP(0), the KS p-value at the
    observed MCDP(ε) is also a valid, conservative p-value for ε > 0; the
    permutation test is sharper.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import disparity_test
    >>> rng = np.random.default_rng(0)
    >>> y_score, groups = rng.random(120), np.repeat([0, 1], 60)
    >>> res = disparity_test(None, y_score, sensitive_features=groups)
    >>> res.method, round(res.statistic, 3), res.pvalue > 0.05  # one distribution
    ('ks', 0.167, True)
    >>> y_score[groups == 1] **= 0.5  # group 1 now scores higher
    >>> res = disparity_test(None, y_score, sensitive_features=groups,
    ...                      metric="abcc", n_resamples=999, random_state=0)
    >>> res.method, res.pvalue < 0.01
    ('permutation', True)
    """
    if method not in ("auto", "permutation", "ks", "welch", "chi2"):
        raise ValueError(TEST_METHOD_ERROR.format(method=method))
    spec = checked_metric_spec(metric, metric_params)
    if is_class_scores(y_score):
        data = (y_true, y_score, sensitive_features, sample_weight, combine)
        return _class_test(
            data, spec, method, score_type, n_resamples, random_state, min_group_size
        )
    y_score, metric_params = scores_for(y_score, metric, metric_params, score_type)
    spec = checked_metric_spec(metric, metric_params)  # a logit threshold mapped
    data = (y_true, y_score, sensitive_features, sample_weight, combine)
    estimates, shared = shared_sort(data, [spec], min_group_size)
    problem = ks_problem(shared, spec, sample_weight)
    if method == "ks" and problem is not None:
        raise ValueError(KS_ERROR.format(problem=problem))
    closed = None if method in ("permutation", "ks") else delta_dp_test(shared, spec)
    if method in ("welch", "chi2") and (closed is None or _TESTS[closed[1]] != method):
        what = "means" if method == "welch" else "positive rates"
        options = "no threshold" if method == "welch" else "with a threshold"
        problem = "sample weights" if sample_weight is not None else spec.options
        raise ValueError(
            CLOSED_FORM_TEST_ERROR.format(
                method=method,
                what=what,
                options=options,
                metric=metric,
                problem=problem,
            )
        )
    if method == "ks" or (method == "auto" and problem is None):
        return DisparityTestResult(metric, estimates[0], ks_pvalue(shared), "ks")
    if closed is not None:
        return DisparityTestResult(metric, estimates[0], closed[0], closed[1])
    n_resamples = check_n_resamples(n_resamples)
    _check_two_per_group(shared, metric, combine)
    pvalues = permutation_pvalues(
        shared, [spec], n_permutations=n_resamples, rng=random_generator(random_state)
    )
    return DisparityTestResult(
        metric,
        estimates[0],
        float(pvalues[0]),
        "permutation",
        *permutation_resolution(shared, n_resamples),
    )


def _class_test(
    data, spec, method, score_type, n_resamples, random_state, min_group_size
):
    """The permutation test of a metric of class probabilities."""
    check_class_test_method(method)
    check_class_score_type(score_type)
    n_resamples = check_n_resamples(n_resamples)
    sorts = ClassSorts(data, spec, min_group_size)
    _check_two_per_group(sorts.shared[0], spec.metric, data[4])
    pvalue = class_permutation_pvalue(
        sorts, n_resamples, random_generator(random_state)
    )
    return DisparityTestResult(
        spec.metric,
        sorts.estimate,
        pvalue,
        "permutation",
        *permutation_resolution(sorts.shared[0], n_resamples),
    )


# the public method name ("welch", "chi2") of each closed-form test
_TESTS = {
    "welch": "welch",
    "alexander-govern": "welch",
    "chi2": "chi2",
    "fisher": "chi2",
}


def _check_two_per_group(shared, metric, combine):
    """Refuse a permuted group of one sample (scipy's permutation test needs two).

    Its own error ("each sample in `data` must contain two or more
    observations") names neither the group nor the way out.
    """
    sizes = [shared.members[c].shape[0] for c in shared.permuted_cells]
    single = [c for c, size in zip(shared.permuted_cells, sizes) if size < 2]
    if single:
        cells = shared.attributes.intersection()  # the cells, in code order
        marginal = combine == "marginal" and shared.attributes.n_attributes > 1
        where = "sensitive_features"
        if cells.name != where:
            where = f"{where} ({cells.name!r})"
        raise ValueError(
            ONE_SAMPLE_GROUP_ERROR.format(
                label=cells.labels[single[0]],
                where=where,
                metric=metric,
                fix=ONE_SAMPLE_MARGINAL_FIX if marginal else ONE_SAMPLE_FIX,
            )
        )
