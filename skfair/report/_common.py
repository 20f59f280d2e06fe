"""Definitions shared by every module of the report: messages, metrics, formats.

Every other module of :mod:`skfair.report` may import this one; it imports
only :mod:`._facts` (records that import nothing) and the distribution name
of the install hint.
"""

from __future__ import annotations

import html
import inspect
import math
import re

from ..utils._install import pip_install
from ._facts import MetricDefinition

AUDIT_SCORE_REASON = (
    "an audit (decisions at a threshold in [0, 1] and MCDP(epsilon) "
    "neighbourhoods); pass probabilities, e.g. predict_proba(X)[:, 1]"
)
# the texts of skfair.utils._validation.check_fraction, which checks both
AUDIT_THRESHOLD_ERROR = "threshold must be a real number in [0, 1]; got {value!r}."
AUDIT_EPSILON_ERROR = "epsilon must be a real number in (0, 1); got {value!r}."
AUDIT_HFM_LABELS_ERROR = (
    "X was given for HFM, which compares the predictions with the true labels; "
    "pass y_true as well (or X=None)."
)
AUDIT_REFERENCE_ERROR = (
    "reference={reference!r} is not a group of {names}; its groups are: {labels}."
)
AUDIT_PROGRESS_ERROR = (
    "progress must be None or a callable taking one str (the phase's name); "
    "got {value!r}."
)
AUDIT_DASK_X_ERROR = (
    "X (for HFM) is not supported with Dask inputs: HFM needs every sample in "
    "memory. Pass X=None, or audit an in-memory sample."
)
AUDIT_DASK_FIGURES_ERROR = (
    "The figures need every score in memory; this report was computed on Dask "
    "collections. Audit an in-memory sample to draw them."
)
DASK_NOTE = (
    "Computed on Dask collections: the metric values, the DKW intervals, the "
    "group table (counts, rates and their Wilson intervals, ratios to the "
    "reference group) and where MCDP is attained are exact on all the data; "
    "the bootstrap intervals, p-values, ABPC, the share of scores near the "
    "MCDP location, the threshold trade-off and the figures need every score "
    "in memory and are left out. Audit an in-memory sample for them."
)
NO_MATPLOTLIB_NOTE = (
    f"Figures omitted: matplotlib is not installed ({pip_install('plot')})."
)

#: The phases of :func:`skfair.report.audit`, in order, as passed to its
#: ``progress`` callable; a phase that does not apply is skipped (the
#: trade-off without labels, HFM without features; on Dask collections only
#: "groups" and "metrics" run, one pass over the data each).
AUDIT_PHASES = (
    "groups",
    "metrics",
    "intervals and tests",
    "where MCDP is attained",
    "trade-off",
    "HFM",
)
#: A group with fewer positive labels than this is flagged: its TPR and FNR
#: rest on a handful of samples.
FEW_POSITIVES = 10
#: With survey weights: why the audit's tests are not run (a permutation
#: test relabels rows as if exchangeable, and the exact and chi-square
#: tests count rows; neither holds under an unequal-probability design).
SURVEY_NO_TEST = (
    "not tested: with survey weights the permutation, Kolmogorov–Smirnov and "
    "chi-square tests (which treat rows as exchangeable, equally likely "
    "draws) are not valid; read the interval (a weighted bootstrap or a "
    "Kish-effective-size interval): a lower bound above 0 is the evidence "
    "of a disparity"
)
#: With survey weights: how the group table's numbers are weighted.
SURVEY_RATES = (
    " With survey weights every count is a weighted count (the people the "
    "rows stand for, beside the rows), every rate a weighted estimate, and "
    "the Wilson and Newcombe intervals and the small-group rules (under 30 "
    "effective samples (Kish) in a group, under 10 among its positives) use "
    "Kish's effective size n_eff of each denominator instead of its rows."
)
#: With survey weights: why the DKW interval is not given.
SURVEY_NO_DKW = (
    "The DKW interval is not given with survey weights: its inequality is "
    "for unweighted independent samples."
)


def survey_weighted(report):
    """Whether ``report`` was computed with survey weights (non-integer)."""
    record = getattr(report, "provenance", None)
    return record is not None and record.survey


def group_support(groups):
    """The groups' sizes for small-group rules: Kish's ``n_eff`` when weighted.

    With survey weights the group table's ``size`` is a weighted count (the
    people a group stands for), and its precision is that of ``n_eff``
    samples; without, ``size`` itself.
    """
    return groups["n_eff"] if "n_eff" in groups else groups["size"]


#: The four-fifths rule: a group's positive rate is within [0.8, 1.25] times
#: the reference group's.
FOUR_FIFTHS = 0.8

# Above this many samples the number of resamples shrinks (see _auto_resamples).
_FULL_RESAMPLES_UP_TO = 100_000


def auto_resamples(n_samples, full=199, floor=49):
    """199 resamples up to 100 000 samples, then fewer (at least 49)."""
    if n_samples <= _FULL_RESAMPLES_UP_TO:
        return full
    return max(floor, int(full * _FULL_RESAMPLES_UP_TO / n_samples))


def holm_permutations(n_tests, alpha):
    """The fewest permutations with which Holm's correction can reject.

    Holm's first step compares the smallest p-value with ``alpha / n_tests``;
    a permutation test's smallest p-value is ``1 / (B + 1)``, so ``B`` must
    be at least ``n_tests / alpha - 1``: ``ceil(n_tests / alpha)`` keeps a
    margin of one (119 for 6 tests at 0.05 would tie, 120 is returned).

    >>> holm_permutations(30, 0.05), holm_permutations(6, 0.05)
    (600, 120)
    """
    return math.ceil(n_tests / alpha - 1e-9)


def sized_permutations(n_samples, n_tests, alpha):
    """The default permutations: :func:`auto_resamples`, raised to Holm's floor."""
    return max(auto_resamples(n_samples), holm_permutations(n_tests, alpha))


def metric_table(threshold, epsilon):
    """The :class:`MetricDefinition` of every metric the audit reports, in order."""
    return [
        MetricDefinition("delta_dp", "ΔDP_c (gap in mean score)", "delta_dp"),
        MetricDefinition(
            f"delta_dp@{threshold:g}",
            f"ΔDP_b at t = {threshold:g} (gap in positive rate)",
            "delta_dp",
            {"threshold": threshold},
        ),
        MetricDefinition("abcc", "ABCC (area between CDFs)", "abcc"),
        MetricDefinition(
            "abpc", "ABPC (area between densities)", "abpc", {"method": "binned"}
        ),
        MetricDefinition("mcdp", "MCDP(0) (largest CDF gap)", "mcdp"),
        MetricDefinition(
            f"mcdp@{epsilon:g}",
            f"MCDP({epsilon:g}) (local CDF gap)",
            "mcdp",
            {"epsilon": epsilon},
        ),
    ]


def regression_metric_table(threshold, epsilon):
    """The metrics of a regression audit: the same families on the real line.

    ε is in the target's units and the MCDP(ε) windows (and ABPC's density)
    live on the observed range of the predictions (``domain=None``); ΔDP_b
    only at a threshold the user gave.
    """
    out = [MetricDefinition("delta_dp", "ΔDP_c (gap in mean prediction)", "delta_dp")]
    if threshold is not None:
        out.append(
            MetricDefinition(
                f"delta_dp@{threshold:g}",
                f"ΔDP_b at t = {threshold:g} (gap in the share predicted ≥ t)",
                "delta_dp",
                {"threshold": threshold},
            )
        )
    return out + [
        MetricDefinition("abcc", "ABCC (area between CDFs: 1-Wasserstein)", "abcc"),
        MetricDefinition(
            "abpc",
            "ABPC (area between densities)",
            "abpc",
            {"method": "binned", "domain": None},
        ),
        MetricDefinition("mcdp", "MCDP(0) (largest CDF gap: KS)", "mcdp"),
        MetricDefinition(
            f"mcdp@{epsilon:g}",
            f"MCDP({epsilon:g}) (local CDF gap)",
            "mcdp",
            {"epsilon": epsilon, "domain": None},
        ),
    ]


def multiclass_metric_table(epsilon):
    """The metrics of each class of a multiclass audit, on its probability column.

    As a classifier's, without ΔDP_b: the decision is the most probable
    class, not a threshold on one column.
    """
    return [d for d in metric_table(0.5, epsilon) if not d.key.startswith("delta_dp@")]


def report_metrics(settings):
    """The :class:`MetricDefinition` of every metric of this audit's task."""
    if settings.task == "multiclass":
        return multiclass_metric_table(settings.epsilon)
    if settings.task == "regression":
        return regression_metric_table(settings.threshold, settings.epsilon)
    return metric_table(settings.threshold, settings.epsilon)


def counted(n, singular, plural=None):
    """``"1 person"``, ``"2 people"``: a count with its noun in the right number."""
    noun = singular if n == 1 else (plural or singular + "s")
    return f"{n:,} {noun}"


def escape(text):
    """``text`` escaped for HTML (quotes too)."""
    return html.escape(str(text), quote=True)


# Markdown: characters that start inline markup, a table cell or raw HTML.
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
_MARKDOWN_SPECIAL = str.maketrans(
    {
        **{c: "\\" + c for c in "\\`*_[]|~#"},
        "<": "&lt;",
        ">": "&gt;",
        "\n": " ",
        "\r": " ",
    }
)


def markdown_text(text):
    """``text`` as literal Markdown text: no markup, link, raw HTML or cell break.

    A ``&`` stays as is unless it would start a character reference
    (``&lt;``, ``&#60;``), which becomes ``&amp;...``.
    """
    return _ENTITY.sub("&amp;", str(text)).translate(_MARKDOWN_SPECIAL)


def _finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


_ROUNDING = 1e-12


def format_percent(value):
    """A rate as a percentage, with the digits it needs.

    One decimal, except within 1% of 0% and 100%, where two significant
    digits of the distance to them: 0 of 24,901 has the upper Wilson bound
    ``"0.015%"``, not ``"0.0%"``. Exactly 0 and 1 are ``"0%"`` and
    ``"100%"``.
    """
    if not _finite(value):
        return "—"
    if value <= _ROUNDING or value >= 1 - _ROUNDING:  # 0 or 1 but for rounding
        return f"{100 * round(value):g}%"
    percent = 100 * value
    distance = min(percent, 100 - percent)
    if distance >= 1:
        return f"{percent:.1f}%"
    # two significant digits of the distance to 0% (100%), no trailing zeros
    decimals = 1 - math.floor(math.log10(distance))
    return f"{percent:.{decimals}f}".rstrip("0").rstrip(".") + "%"


def format_number(value, kind="num"):
    """A count (``"int"``), a rate (``"pct"``) or a metric's value (4 decimals)."""
    if not _finite(value):
        return "—"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "pct":
        return format_percent(value)
    return f"{value:.4f}"


def format_ratio(value):
    """A ratio of rates, 3 decimals (the same in every table and sentence)."""
    return f"{value:.3f}" if _finite(value) else "—"


def format_target(value):
    """A number in the target's units: 4 significant digits, no exponent.

    Examples
    --------
    >>> format_target(18424.31), format_target(3.14159), format_target(-0.012345)
    ('18,424', '3.142', '-0.01235')
    """
    if not (isinstance(value, (int, float)) and math.isfinite(value)):
        return "—"
    if value == 0:
        return "0"
    size = math.floor(math.log10(abs(value)))
    if not -4 <= size < 9:
        return f"{value:.4g}"
    return f"{value:,.{max(0, 3 - size)}f}"


def format_pvalue(p):
    if p is None or not math.isfinite(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def format_table_pvalue(p, test, n_permutations):
    floor = 1.0 / (n_permutations + 1)
    if test == "permutation" and p <= floor * (1 + 1e-9):
        return f"≤ {floor:.3g}"
    return format_pvalue(p)


def format_interval(low, high):
    if not (math.isfinite(low) and math.isfinite(high)):
        return "—"
    return f"[{low:.4f}, {high:.4f}]"


# -- the audit's progress callable ---------------------------------------------------
class _Progress:
    """The audit's ``progress``: phases, and the resampling's counter.

    Called with each phase's name; :meth:`count` passes ``done=`` and
    ``total=`` (resamples and permutations) to a callable that takes them.
    """

    def __init__(self, progress):
        self.progress = progress
        self.counts = progress is not None and _takes_counts(progress)

    def __call__(self, phase):
        if self.progress is not None:
            self.progress(phase)

    def count(self, done, total):
        if self.counts:
            self.progress("intervals and tests", done=done, total=total)


def _takes_counts(progress):
    """Whether ``progress`` accepts the keywords ``done`` and ``total``."""
    try:
        parameters = inspect.signature(progress).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    names = {p.name for p in parameters if p.kind != p.POSITIONAL_ONLY}
    kwargs = any(p.kind == p.VAR_KEYWORD for p in parameters)
    return kwargs or {"done", "total"} <= names


def check_progress(progress):
    """``progress`` as a :class:`_Progress`; a ValueError unless None or callable."""
    if progress is not None and not callable(progress):
        raise ValueError(AUDIT_PROGRESS_ERROR.format(value=progress))
    return _Progress(progress)
