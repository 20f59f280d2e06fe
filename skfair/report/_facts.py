"""The report's facts as typed, frozen records: what is computed, not how it reads.

:mod:`._compute`, :mod:`._headline` and :mod:`._advice` build these records;
the renderings (:mod:`._sentences`, :mod:`._tables`, :mod:`._html`,
:mod:`._markdown`, :mod:`._figures`) read their fields. ``to_dict`` gives
each as plain Python values (JSON, once NaN becomes None).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


def plain(record):
    """A record (or None) as a dict of plain values, recursively."""
    return None if record is None else dataclasses.asdict(record)


class _MetricName:
    """A metric's ``name``, which may end with an explanation in parentheses."""

    @property
    def short_name(self):
        """The name without its explanation, e.g. ``"MCDP(0)"``."""
        return self.name.split(" (")[0]


@dataclass(frozen=True)
class Settings:
    """What the audit was asked for, validated (and the positive label used).

    ``threshold`` is on the scale the metrics are computed on: for
    ``score_type="logit"`` the sigmoid of ``score_threshold``, the threshold
    as given (in logit units); None otherwise. ``task`` is what was audited
    ("binary", "regression" or "multiclass"); ``task_reason`` says why when it was
    detected (None when given; "multiclass" when the labels have three or
    more classes and the scores are a probability matrix or labels, with
    ``threshold`` None). For regression, ``threshold`` is None unless
    one was given (in the target's units), ε is in the target's units and
    ``epsilon_rule`` says how the default was chosen (None when given).
    ``threshold_rule`` says how the default threshold was chosen (0.5 for
    probabilities, 0 for logits and margins; None when given).
    """

    title: str
    threshold: float | None
    epsilon: float
    confidence_level: float
    combine: str
    min_group_size: int | None
    reference: object = None
    pos_label: object = None
    score_type: str = "probability"
    score_threshold: float | None = None
    task: str = "binary"
    task_reason: str | None = None
    epsilon_rule: str | None = None
    threshold_rule: str | None = None

    @property
    def decision_threshold(self):
        """The threshold in the scores' own units (a logit for logits)."""
        return self.threshold if self.score_threshold is None else self.score_threshold

    @property
    def keep(self):
        """The least group size compared (1 when every group is kept)."""
        return 1 if self.min_group_size is None else self.min_group_size

    @property
    def alpha(self):
        """The tests' level: ``1 - confidence_level``."""
        return 1.0 - self.confidence_level


@dataclass(frozen=True)
class Resampling:
    """Bootstrap resamples, permutations and the seed (0 and 0 on Dask)."""

    n_resamples: int
    n_permutations: int
    random_state: object = None


@dataclass(frozen=True)
class AuditedData:
    """What was audited: its size, attributes, labels and where it lives."""

    n_samples: int
    attributes: tuple
    has_labels: bool
    engine: str = "numpy"
    kept_groups: dict = field(default_factory=dict)
    left_out: tuple = ()

    @classmethod
    def of(cls, n_samples, attributes, has_labels, compared, left_out, **kwargs):
        """What was audited, from :func:`audited_groupings`' groups."""
        return cls(
            n_samples=n_samples,
            attributes=tuple(attributes.names),
            has_labels=has_labels,
            kept_groups={g.name: g.labels for g in compared},
            left_out=tuple(left_out),
            **kwargs,
        )


@dataclass(frozen=True)
class AuditInputs:
    """The validated in-memory inputs (for figures and ``group_arguments``).

    ``weights``: the rows' survey weights (None without, or with frequency
    weights, applied by repeating the rows).
    """

    scores: object
    sensitive_features: object
    y: object = None
    weights: object = None


@dataclass(frozen=True)
class MetricDefinition(_MetricName):
    """One metric of the report: its key, display name, function and arguments."""

    key: str
    name: str
    metric: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MetricResult(_MetricName):
    """One metric's value, intervals, test and where it is attained.

    ``value`` is NaN and ``undefined_reason`` says why when the metric is
    undefined on these groups; ``inference_error`` says why a defined metric
    has no interval or p-value; ``untestable_reason`` why its test cannot
    decide (its p-value says nothing then). ``pair`` is the two groups (as
    text) whose gap is the value, ``pair_grouping`` their grouping.
    """

    key: str
    name: str
    value: float
    low: float = float("nan")
    high: float = float("nan")
    interval: str | None = None
    dkw_low: float = float("nan")
    dkw_high: float = float("nan")
    pvalue: float = float("nan")
    pvalue_floor: float = float("nan")
    test: str | None = None
    undefined_reason: str | None = None
    inference_error: str | None = None
    untestable_reason: str | None = None
    pair: tuple | None = None
    pair_grouping: str | None = None

    @property
    def defined(self):
        return self.undefined_reason is None


@dataclass(frozen=True)
class GroupRate:
    """A group's positive rate at the threshold, its Wilson interval and ratio.

    ``ratio`` is the rate over the comparison group's, None when that is 0;
    ``n_positive`` the group's positive labels (None without labels);
    ``diff_low`` and ``diff_high`` Newcombe's hybrid score interval of the
    rate minus the comparison group's (NaN where not compared): a claim
    that the group is selected less rests on ``diff_high < 0``. With survey
    weights ``size`` and ``n_positive`` are weighted counts, ``n_rows`` the
    group's rows and ``n_eff`` Kish's effective size (None without); a
    multiclass TPR's or FPR's ``n_eff_positive`` is the Kish size of its
    denominator (``n_positive``: the group's people of the class, or not
    of it).
    """

    group: str
    size: int | float
    rate: float
    low: float
    high: float
    ratio: float | None = None
    n_positive: int | float | None = None
    diff_low: float = float("nan")
    diff_high: float = float("nan")
    n_eff: float | None = None
    n_rows: int | None = None
    n_eff_positive: float | None = None

    @property
    def support(self):
        """The size small-group rules read: ``n_eff`` if weighted, else ``size``."""
        return self.size if self.n_eff is None else self.n_eff

    @property
    def n_negative(self):
        """The group's negative labels (None without labels)."""
        return None if self.n_positive is None else self.size - self.n_positive


@dataclass(frozen=True)
class RateGap:
    """The gap in a rate (TPR or FPR) between the groups that have enough samples."""

    rate: str
    value: float
    lowest: GroupRate
    highest: GroupRate
    left_out: tuple = ()


@dataclass(frozen=True)
class ThresholdFacts:
    """The headline's facts at the decision threshold, for one grouping.

    ``reference`` is the group the others are compared with: the
    most-selected group (``comparison == "most selected"``, the four-fifths
    convention; among the groups of at least 30 people when two or more
    are) or the reference the user gave (``"reference"``).
    ``disadvantaged`` is the least selected group whose Newcombe interval of
    the difference to the reference (``diff_low``, ``diff_high``) lies
    below 0 (None if no group's does); ``unclear`` the groups selected less
    often whose interval contains 0 (too few to tell); ``farthest`` the
    group farthest from the reference's rate either way (what the
    four-fifths rule reads); ``lowest`` and ``highest`` the groups of the
    impact ratio. ``fixed_outcome`` are the groups whose outcome is fixed in
    the labels (no positives or no negatives): set apart from every
    comparison, verdict, gap and ratio here (unless fewer than two groups
    would remain). ``n_below`` counts the groups whose interval of the
    difference lies below 0. The Newcombe intervals are simultaneous:
    Bonferroni over ``n_comparisons`` (every pair of compared groups when the
    reference is the most-selected group, which the data chose; the other
    groups against a reference the user gave), so that "selected less" is
    said of no group in at most ``1 - confidence_level`` of audits with no
    difference.
    """

    threshold: float
    grouping: str
    reference: GroupRate
    disadvantaged: GroupRate | None
    unclear: tuple
    farthest: GroupRate | None
    four_fifths: str | None
    lowest: GroupRate
    highest: GroupRate
    impact_ratio: float | None
    tpr_gap: RateGap | None = None
    fpr_gap: RateGap | None = None
    comparison: str = "reference"
    fixed_outcome: tuple = ()
    confidence_level: float = 0.95
    n_below: int = 0
    n_comparisons: int = 1


@dataclass(frozen=True)
class DistributionFacts:
    """MCDP(0), where it is attained, and the scores near that point."""

    value: float
    groups: tuple
    attribute: str
    score: float
    higher_cdf_group: str
    epsilon: float
    share_near: float | None
    local_value: float
    small_group: tuple | None = None  # (label, size) when the worst pair has one
    large_pair: tuple | None = None  # (MCDP(0), (a, b), class or None), groups >= 30
    fixed_group: str | None = None  # a group of the pair whose outcome is fixed


@dataclass(frozen=True)
class GroupValue:
    """One group's value of a regression metric and its interval (NaN: none).

    With survey weights ``size`` is the weighted count, ``n_rows`` the
    group's rows and ``n_eff`` Kish's effective size (both None without).
    """

    group: str
    size: int | float
    value: float
    low: float = float("nan")
    high: float = float("nan")
    n_eff: float | None = None
    n_rows: int | None = None


@dataclass(frozen=True)
class ErrorGap:
    """The range of a per-group regression number over the compared groups.

    ``metric`` is "mean_prediction", "mean_residual", "mae" or "rmse";
    ``lowest`` and ``highest`` the groups at its ends, ``value`` their gap
    (in the target's units) with the simultaneous Welch interval
    (``low``, ``high``; NaN when undefined, ``note`` says why). Groups of
    fewer than ``SMALL_GROUP_SIZE`` samples are left out of it (``left_out``)
    when at least two larger groups remain.
    """

    metric: str
    value: float
    lowest: GroupValue
    highest: GroupValue
    low: float = float("nan")
    high: float = float("nan")
    note: str = ""
    left_out: tuple = ()


@dataclass(frozen=True)
class BinBias:
    """The mean residual of the samples whose true value is in one bin.

    ``low_value`` and ``high_value`` are the bin's ends in ``y_true`` (a
    quantile bin of the true values, ends included), ``size`` its samples,
    ``value`` the mean residual (``y_pred - y_true``) with its Student-t
    interval (``low``, ``high``; NaN with one sample). With survey weights
    the bins are cut at the weighted quantiles, ``size`` is the weighted
    count, ``value`` the weighted mean with its interval on Kish's
    ``n_eff``, beside ``n_rows`` (both None without).
    """

    low_value: float
    high_value: float
    size: int | float
    value: float
    low: float = float("nan")
    high: float = float("nan")
    n_eff: float | None = None
    n_rows: int | None = None


@dataclass(frozen=True)
class RegressionFacts:
    """The regression headline's facts for one grouping.

    ``predictions`` is the range of the mean prediction over the groups;
    ``bias``, ``mae`` and ``rmse`` those of the mean residual
    (``y_pred - y_true``), the MAE and the RMSE (None without ``y_true``).
    ``overall_bias`` is the mean residual of every audited sample and
    ``bias_by_truth`` a :class:`BinBias` per quantile bin of ``y_true``
    (the bias conditional on the true value, which the overall bias can
    hide); both empty or None without ``y_true``.
    """

    grouping: str
    reference: str
    predictions: ErrorGap
    bias: ErrorGap | None = None
    mae: ErrorGap | None = None
    rmse: ErrorGap | None = None
    overall_bias: BinBias | None = None
    bias_by_truth: tuple = ()


@dataclass(frozen=True)
class ClassGap:
    """The gap in one class's one-vs-rest rate between the compared groups.

    ``rate`` is "selection_rate", "tpr" or "fpr"; ``lowest`` and ``highest``
    the groups at its ends (``GroupRate.rate`` is the class's rate, with its
    Wilson interval), ``value`` their difference. Groups too small to read
    (fewer than ``SMALL_GROUP_SIZE`` samples for the selection rate, fewer
    than ``FEW_POSITIVES`` samples of the class, or not of it, for TPR and
    FPR) are left out (``left_out``) when two larger groups remain; groups
    whose rate is undefined (no sample of the class for TPR) are in
    ``undefined``.
    """

    label: str
    rate: str
    value: float
    lowest: GroupRate
    highest: GroupRate
    left_out: tuple = ()
    undefined: tuple = ()


@dataclass(frozen=True)
class ConfusionMatrix:
    """One group's confusion matrix: ``counts[i][j]`` true class i, predicted j.

    With survey weights the counts are weighted (floats).
    """

    grouping: str
    group: str
    size: int | float
    counts: tuple


@dataclass(frozen=True)
class ClassShare:
    """One group's predicted and true share of one class.

    ``predicted`` is the share of the group predicted ``label``; ``true``
    the share whose true class is ``label`` (NaN without labels); both
    weighted shares with survey weights, ``size`` then the weighted count.
    """

    group: str
    label: str
    size: int | float
    predicted: float
    true: float = float("nan")


@dataclass(frozen=True)
class MulticlassFacts:
    """The multiclass headline's facts for one grouping.

    ``classes`` are the classes as text, in column order; ``prediction`` is
    "probabilities" (the predicted class is the most probable) or "labels";
    ``grouping`` and ``reference`` the grouping of the largest selection-rate
    gap and its reference group; ``selection``, ``tpr`` and ``fpr`` a
    :class:`ClassGap` per class (``tpr`` and ``fpr`` empty without labels;
    a class whose rate no group has is left out of them);
    ``distribution_class`` the class of the largest MCDP(0); ``confusion``
    a :class:`ConfusionMatrix` per group of every table (empty without
    labels); ``shares`` a :class:`ClassShare` per group of ``grouping`` and
    class, the predicted share beside the true one.
    """

    classes: tuple
    prediction: str
    grouping: str
    reference: str
    selection: tuple
    distribution_class: str
    tpr: tuple = ()
    fpr: tuple = ()
    confusion: tuple = ()
    shares: tuple = ()


@dataclass(frozen=True)
class Headline:
    """The headline's facts: at the threshold, then over all thresholds.

    ``threshold`` is None for a regression audit without a threshold and
    for a multiclass audit; ``regression`` holds the regression audit's
    group facts, ``multiclass`` the multiclass audit's (``distribution``
    is then that of the class with the largest MCDP(0)).
    """

    threshold: ThresholdFacts | None
    distribution: DistributionFacts
    regression: RegressionFacts | None = None
    multiclass: MulticlassFacts | None = None


@dataclass(frozen=True)
class MCDPLocation:
    """Where MCDP(ε) is attained, as the location table shows it."""

    epsilon: float
    value: float
    attribute: str
    groups: tuple
    threshold: float | None
    window: tuple | None
    higher_cdf_group: str


@dataclass(frozen=True)
class TableReference:
    """The reference group of one table and how it was chosen.

    ``how`` is ``"given"`` (the ``reference`` itself), ``"component"`` (its
    part for this attribute) or ``"largest"``.
    """

    grouping: str
    group: str
    how: str


@dataclass(frozen=True)
class ThresholdPoint:
    """A threshold with its performance and positive-rate gap."""

    threshold: float
    performance: float
    delta_dp: float


@dataclass(frozen=True)
class ThresholdAdvice:
    """What the report recommends about the decision threshold, and why.

    ``recommended`` is a threshold with a smaller positive-rate gap than the
    current one and at least ``tolerance`` of the best performance, or None
    (``reason`` says why). ``no_positives`` and ``no_negatives`` name the
    groups with a single outcome: their balanced accuracy is undefined and
    a positive rate of 0 (or 1) there does not rule a threshold out.
    ``excluded`` marks the candidates never recommended. ``reason`` is
    written from these masks, so that it is true of every candidate it
    speaks of: ``current_trivial`` names the groups with both outcomes that
    the audit's own threshold selects at 0% or 100% (it is named when the
    reason rules thresholds out for doing the same); ``n_smaller`` counts
    the candidates with a smaller gap than the audit's threshold.
    """

    performance: str
    tolerance: float
    current: ThresholdPoint
    best: ThresholdPoint | None
    recommended: ThresholdPoint | None
    positive_rate: dict
    reason: str | None
    no_positives: tuple
    no_negatives: tuple
    n_candidates: int
    n_excluded: int
    excluded: tuple = field(repr=False, default=())
    pos_label: object = None
    current_trivial: tuple = ()
    n_smaller: int = 0
