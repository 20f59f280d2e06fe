"""Tests of "no disparity" that need no resampling.

The exact two-sample Kolmogorov–Smirnov test for MCDP(0) of two groups (MCDP(0)
is the KS statistic), and for ΔDP Welch / Alexander–Govern (equal means,
ΔDP_c) and chi-square / Fisher (equal positive rates, ΔDP_b^t), from the
group summaries of ``_intervals``. Unweighted data only.
"""

from __future__ import annotations

from scipy import stats

from ._bounds import group_summaries
from ._intervals import delta_dp_pvalue
from ._specs import binary_scores


def ks_problem(shared, spec, sample_weight):
    """Why the exact KS test does not apply to ``spec`` (a string), or None.

    It applies to MCDP(0) (``method="exact"``) of exactly two unweighted
    groups.
    """
    opts = spec.options
    if spec.metric != "mcdp" or float(opts.get("epsilon", 0.0)) != 0.0:
        return f"metric={spec.metric!r} with {opts}"
    if opts.get("method", "exact") != "exact":
        return "method='approx'"
    if sample_weight is not None:
        return "sample weights"
    if len(shared.groupings) != 1 or shared.groupings[0].n_groups != 2:
        n = [g.n_groups for g in shared.groupings]
        return f"groupings with {n} groups"
    return None


def ks_pvalue(shared):
    """The two-sample Kolmogorov–Smirnov p-value of the two groups.

    :func:`scipy.stats.ks_2samp` with ``method="auto"``; only where
    :func:`ks_problem` is None.
    """
    codes = shared.cell_to_group[0][shared.cell_sorted]
    a = shared.sorted[codes == 0]
    b = shared.sorted[codes == 1]
    return float(stats.ks_2samp(a, b, method="auto").pvalue)


def delta_dp_test(shared, spec):
    """``(pvalue, test)`` of ΔDP's closed-form tests, or None.

    Welch / Alexander–Govern (equal means, ΔDP_c) or chi-square / Fisher
    (equal positive rates, ΔDP_b^t); None for other metrics or weighted data.
    ΔDP_c of scores that are all 0 or 1 is tested as ΔDP_b^0.5.
    """
    if shared.weights is not None or spec.metric != "delta_dp":
        return None
    threshold = spec.options.get("threshold")
    if threshold is None and binary_scores(shared):
        # hard predictions: the mean gap is the gap in positive rate at 0.5,
        # tested as such (Welch's t-test needs spread within each group)
        threshold = 0.5
    return delta_dp_pvalue(group_summaries(shared, threshold), threshold)


def closed_form_pvalue(shared, spec):
    """``(pvalue, test)`` of a test of "no disparity" needing no resampling, or None.

    The exact Kolmogorov–Smirnov test ("ks") for MCDP(0) of two groups;
    "welch" / "alexander-govern" (ΔDP_c) and "chi2" / "fisher" (ΔDP_b^t) for
    ΔDP. Unweighted data only.
    """
    if ks_problem(shared, spec, shared.weights) is None:
        return ks_pvalue(shared), "ks"
    return delta_dp_test(shared, spec)
