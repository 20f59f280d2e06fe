"""The audit of a regressor's predictions: the task, ε, the groups' errors, facts.

The regression branch of :func:`skfair.report.audit`: the same groups
(:func:`audited_groupings`), the same distribution metrics on the real line
(:func:`~skfair.report._common.regression_metric_table`: ε in the target's
units, windows on the observed range), the same intervals and tests; what
differs is computed here. The group table holds each group's mean
prediction, prediction quantiles and, with ``y_true``, its bias (mean
residual ``y_pred - y_true``), MAE and RMSE with intervals
(:func:`skfair.metrics.regression_group_table`); the gaps of those between
groups are metrics of the report (:func:`skfair.metrics.
regression_gap_intervals`); :class:`RegressionFacts` is the headline's
reading of them. A task is added by a module like this one, its metric
table in ``_common`` and its view in ``_views``.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from ..metrics import regression_gap_intervals, regression_group_table
from ..metrics._regression_table import survey_gap_intervals, survey_group_table
from ..metrics.inference._intervals import summarise_groups
from ..utils import SMALL_GROUP_SIZE
from ..utils._labels import group_label_text
from ..utils._validation import check_same_index, check_same_length, check_scores
from ._common import format_target, group_support
from ._compute import (
    audited_inputs,
    audited_rows,
    group_table,
    per_row_counts,
)
from ._facts import (
    AuditedData,
    BinBias,
    ErrorGap,
    GroupValue,
    Headline,
    MetricResult,
    RegressionFacts,
)
from ._headline import (
    computed_metrics,
    distribution_facts,
    threshold_facts,
)
from ._multiclass_inputs import multiclass_reason
from ._report import AuditReport

TASKS = ("binary", "regression", "multiclass")
TASK_ERROR = "task must be None, 'binary', 'regression' or 'multiclass'; got {value!r}."
REGRESSION_EPSILON_ERROR = (
    "epsilon must be 'auto' or a positive real number (in the target's units "
    "for task='regression'); got {value!r}."
)
REGRESSION_THRESHOLD_ERROR = (
    "threshold must be 'auto' (no threshold) or a finite real number in the "
    "target's units for task='regression'; got {value!r}."
)
REGRESSION_OPTION_ERROR = (
    "{name} is for binary classification and does not apply to "
    "task='regression'; {advice}"
)
#: The default ε of a regression audit: this share of the predictions' range.
EPSILON_SHARE = 0.05
#: The regression table's per-group numbers with intervals (y_true given).
ERROR_COLUMNS = ("mean_residual", "mae", "rmse")
_GAP_NAMES = {
    "mean_residual": "Mean residual gap (bias, ŷ − y)",
    "mae": "MAE gap (mean absolute error)",
    "rmse": "RMSE gap (root mean squared error)",
}
_THRESHOLD_COLUMNS = (
    "n_selected",
    "positive_rate",
    "positive_rate_low",
    "positive_rate_high",
    "positive_rate_ratio",
    "positive_rate_diff",
    "four_fifths",
)


# -- the task, ε and the threshold ---------------------------------------------------
def check_task(task):
    """``task`` validated: None (detect), "binary", "regression" or "multiclass"."""
    if task is not None and (not isinstance(task, str) or task not in TASKS):
        raise ValueError(TASK_ERROR.format(value=task))
    return task


def detect_task(y_true, y_pred, task=None):
    """``(task, reason)``: the task given, or the one the data show.

    Regression when ``y_true`` is numeric with more than two distinct values
    and either the predictions leave [0, 1] or the targets are not whole
    numbers (three integer labels with scores in [0, 1] are classes, not a
    regression target). ``reason`` says so ("y_true has N distinct numeric
    values"); it is None for a task given or for "binary". Multiclass first
    (:func:`multiclass_reason`): ``y_true`` with three or more class labels
    and ``y_score`` a matrix with a column per class or labels of the same
    set; ``reason`` is then "K classes: a, b, c".

    Examples
    --------
    >>> detect_task([1.5, 2.0, 7.25], [1.0, 2.5, 6.0])
    ('regression', 'y_true has 3 distinct numeric values')
    >>> detect_task([0, 1, 1], [0.2, 0.7, 0.9])
    ('binary', None)
    >>> detect_task(["Low", "High", "Medium"], ["Low", "Low", "High"])
    ('multiclass', '3 classes: High, Low, Medium')
    """
    task = check_task(task)
    if task is not None:
        return task, None
    if y_true is None:
        return "binary", None
    reason = multiclass_reason(y_true, y_pred)
    if reason is not None:
        return "multiclass", reason
    try:
        truth = np.asarray(y_true)
        pred = np.asarray(y_pred, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return "binary", None
    if truth.dtype.kind not in "iuf" or truth.size == 0:
        return "binary", None
    truth = truth.astype(np.float64).ravel()
    if not np.isfinite(truth).all():
        return "binary", None
    n_distinct = np.unique(truth).size
    with np.errstate(invalid="ignore"):
        outside = bool(np.any((pred < 0) | (pred > 1)))
    whole = bool(np.all(truth == np.round(truth)))
    if n_distinct > 2 and (outside or not whole):
        return "regression", f"y_true has {n_distinct:,} distinct numeric values"
    return "binary", None


def regression_inputs(y_true, y_pred, sensitive_features):
    """The predictions and targets (None without) of a regression, validated."""
    check_same_index(
        y_true=y_true, y_score=y_pred, sensitive_features=sensitive_features
    )
    scores = check_scores(y_pred)
    if y_true is None:
        return scores, None
    check_same_length(y_true, scores, first_name="y_true", second_name="y_score")
    return scores, check_scores(y_true, name="y_true")


def _real(value):
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and bool(np.isfinite(value))
    )


def regression_threshold(threshold):
    """None for "auto", else the threshold as a float (target units)."""
    if isinstance(threshold, str) and threshold == "auto":
        return None
    if not _real(threshold):
        raise ValueError(REGRESSION_THRESHOLD_ERROR.format(value=threshold))
    return float(threshold)


def regression_epsilon(epsilon, scores):
    """``(ε, rule)``: ε as given (rule None) or 5% of the predictions' range.

    The default is rounded to three significant digits; when every
    prediction is the same (every CDF gap is 0 whatever ε), ε is 1.
    """
    if not (isinstance(epsilon, str) and epsilon == "auto"):
        if not _real(epsilon) or epsilon <= 0:
            raise ValueError(REGRESSION_EPSILON_ERROR.format(value=epsilon))
        return float(epsilon), None
    low, high = float(np.min(scores)), float(np.max(scores))
    if high <= low:
        return 1.0, (
            f"the default: every prediction equals {format_target(low)}, so any ε "
            "gives the "
            "same (zero) gaps; ε = 1"
        )
    epsilon = float(f"{EPSILON_SHARE * (high - low):.3g}")
    return epsilon, (
        f"the default: {100 * EPSILON_SHARE:g}% of the range of the predictions, "
        f"[{format_target(low)}, {format_target(high)}], to 3 significant digits"
    )


def regression_settings(settings, scores, reason):
    """``settings`` for a regression audit: the threshold, ε and the task."""
    epsilon, rule = regression_epsilon(settings.epsilon, scores)
    return dataclasses.replace(
        settings,
        threshold=regression_threshold(settings.threshold),
        epsilon=epsilon,
        epsilon_rule=rule,
        task="regression",
        task_reason=reason,
    )


def check_regression_options(*, X, pos_label, score_type):
    """Refuse the options that belong to a classifier's audit."""
    if X is not None:
        raise ValueError(
            REGRESSION_OPTION_ERROR.format(
                name="X (HFM of the decisions)", advice="pass X=None."
            )
        )
    if pos_label is not None:
        raise ValueError(
            REGRESSION_OPTION_ERROR.format(
                name="pos_label", advice="y_true holds the true targets."
            )
        )
    if score_type != "probability":
        raise ValueError(
            REGRESSION_OPTION_ERROR.format(
                name=f"score_type={score_type!r}",
                advice="the predictions are used on their own scale.",
            )
        )


# -- the group table -------------------------------------------------------------------
def _grouping_errors(grouping, scores, y, confidence_level, reference, weights=None):
    """The regression columns of one grouping's rows (in its code order).

    With survey ``weights``: :func:`~skfair.metrics._regression_table.
    survey_group_table` (weighted means and quantiles, intervals on Kish's
    ``n_eff``).
    """
    rows = grouping.codes >= 0
    n = grouping.n_groups
    codes = list(range(n))
    feature = pd.Categorical.from_codes(grouping.codes[rows], categories=codes)
    truth = scores[rows] if y is None else y[rows]  # no labels: residuals of 0
    common = {
        "sensitive_features": feature,
        "confidence_level": confidence_level,
        "reference": reference,
    }
    if weights is None:
        table = regression_group_table(
            truth, scores[rows], min_group_size=1, **common
        )  # the report has chosen its groups
    else:
        table = survey_group_table(
            truth, scores[rows], sample_weight=weights[rows], **common
        )
    table = table.reindex([group_label_text(c) for c in codes])
    columns = {"mean_prediction": table["mean_prediction"].to_numpy()}
    for q in ("q10", "q50", "q90"):
        columns[q] = table[q].to_numpy()
    if y is None:
        return columns
    columns["mean_true"] = columns["mean_prediction"] - table["mean_residual"]
    for name in ERROR_COLUMNS:
        columns[name] = table[name].to_numpy()
        columns[f"{name}_low"] = table[f"{name}_lower"].to_numpy()
        columns[f"{name}_high"] = table[f"{name}_upper"].to_numpy()
    for name in ERROR_COLUMNS:
        columns[f"{name}_diff"] = table[f"{name}_diff"].to_numpy()
        columns[f"{name}_diff_low"] = table[f"{name}_diff_lower"].to_numpy()
        columns[f"{name}_diff_high"] = table[f"{name}_diff_upper"].to_numpy()
    columns["note"] = table["note"].to_numpy()
    return columns


def regression_groups(tables, scores, y, settings, weights=None):
    """The regression group table, its references and the threshold table.

    The rows, their order and the reference groups are those of the
    classifier's table (:func:`group_table`), whose columns at the threshold
    (positive rate, Wilson interval, ratio, four-fifths) are kept when a
    threshold was given. Returns ``(groups, references, at_threshold)``,
    the last the classifier-style table for :func:`threshold_facts` (None
    without a threshold). With survey ``weights`` every count is weighted,
    beside ``n_rows``, ``n_eff`` and ``design_effect`` (as a classifier's).
    """
    t = settings.threshold
    decisions = scores >= (np.inf if t is None else t)
    base, references = group_table(
        tables,
        per_row_counts(scores, decisions, None, weights),
        reference=settings.reference,
        confidence_level=settings.confidence_level,
    )
    keep = ["grouping", "group", "is_reference", "size", "share"]
    if weights is not None:
        keep[4:4] = ["n_rows", "n_eff", "design_effect"]
    frame = base[keep].copy()
    parts = []
    for grouping, _ in tables:
        rows = base["grouping"] == grouping.name
        ref = int(np.flatnonzero(base.loc[rows, "is_reference"].to_numpy())[0])
        parts.append(
            _grouping_errors(
                grouping, scores, y, settings.confidence_level, ref, weights
            )
        )
    for column in parts[0]:
        frame[column] = np.concatenate([np.asarray(p[column]) for p in parts])
    if t is None:
        return frame, references, None
    for column in _THRESHOLD_COLUMNS:
        frame[column] = base[column]
    return frame, references, base


# -- the gaps between groups ------------------------------------------------------
def _gaps(y, scores, sensitive_features, settings, weights):
    """:func:`skfair.metrics.regression_gap_intervals` (Welch), survey-weighted."""
    common = {
        "sensitive_features": sensitive_features,
        "combine": settings.combine,
        "min_group_size": settings.keep,
        "confidence_level": settings.confidence_level,
    }
    if weights is None:
        return regression_gap_intervals(y, scores, method="welch", **common)
    return survey_gap_intervals(y, scores, sample_weight=weights, **common)


def error_gap_results(scores, y, sensitive_features, settings, weights=None):
    """A :class:`MetricResult` per gap in bias, MAE and RMSE between groups.

    Computed by :func:`skfair.metrics.regression_gap_intervals` (the value
    is that of ``mean_residual_difference`` etc.), with Welch intervals,
    Bonferroni over the pairs; no test. With survey ``weights``: the gaps
    of the weighted means, Welch on Kish's effective sizes.
    """
    gaps = _gaps(y, scores, sensitive_features, settings, weights)
    out = []
    for name in ERROR_COLUMNS:
        row = gaps.loc[name]
        pair = None
        if isinstance(row["group_a"], str):
            pair = (row["group_a"], row["group_b"])
        out.append(
            MetricResult(
                key=f"{name}_gap",
                name=_GAP_NAMES[name],
                value=float(row["gap"]),
                low=float(row["lower"]),
                high=float(row["upper"]),
                interval="welch" if np.isfinite(row["lower"]) else None,
                inference_error=row["note"] or None,
                pair=pair,
            )
        )
    return out


def _range(frame, column, with_interval):
    """The groups of the lowest and highest ``column`` among the defined ones."""
    defined = frame[np.isfinite(frame[column].to_numpy(dtype=np.float64))]
    if defined.empty:
        return None

    def value(row):
        bounds = (
            (float(row[f"{column}_low"]), float(row[f"{column}_high"]))
            if with_interval
            else ()
        )
        weighted = {}
        if "n_eff" in row:  # survey weights: the weighted count, rows, n_eff
            weighted = {"n_eff": float(row["n_eff"]), "n_rows": int(row["n_rows"])}
        size = float(row["size"]) if weighted else int(row["size"])
        return GroupValue(row["group"], size, float(row[column]), *bounds, **weighted)

    low = defined.loc[defined[column].idxmin()]
    high = defined.loc[defined[column].idxmax()]
    return value(low), value(high)


def _gap_interval(frame, grouping, column, scores, y, settings, weights=None):
    """The Welch interval of the gap in ``column`` among ``frame``'s groups.

    The groups are passed by their text, so that a note names the group
    ("group 'G & z' has 9 samples"), not its code.
    """
    texts = np.array([group_label_text(g) for g in grouping.labels], dtype=object)
    codes = {g: k for k, g in enumerate(texts)}
    wanted = np.array([codes[g] for g in frame["group"]])
    rows = np.isin(grouping.codes, wanted)
    gaps = _gaps(
        y[rows],
        scores[rows],
        pd.Categorical(texts[grouping.codes[rows]]),
        dataclasses.replace(settings, min_group_size=1),
        None if weights is None else weights[rows],
    )
    row = gaps.loc[column]
    return float(row["lower"]), float(row["upper"]), row["note"]


def _error_gap(frame, grouping, column, scores, y, settings, weights=None):
    """An :class:`ErrorGap`: the range of ``column`` over the larger groups.

    Larger: of ``SMALL_GROUP_SIZE`` samples or more (Kish's ``n_eff`` with
    survey ``weights``).
    """
    support = group_support(frame).to_numpy()
    large = frame[support >= SMALL_GROUP_SIZE]
    left_out = ()
    if len(large) >= 2:
        left_out = tuple(frame.loc[support < SMALL_GROUP_SIZE, "group"])
        frame = large
    ends = _range(frame, column, with_interval=column != "mean_prediction")
    if ends is None:
        return None
    low, high = ends
    bounds = {}
    if column != "mean_prediction" and len(frame) > 1:
        lo, hi, note = _gap_interval(
            frame, grouping, column, scores, y, settings, weights
        )
        bounds = {"low": lo, "high": hi, "note": note}
    return ErrorGap(
        column, high.value - low.value, low, high, left_out=left_out, **bounds
    )


#: Quantile bins of ``y_true`` for the bias conditional on the true value.
TRUTH_BINS = 4


def _mean_with_interval(values, confidence_level, weights=None):
    """``(mean, low, high)``: the Student-t interval of a mean (NaN for n < 2).

    With survey ``weights``: the weighted mean, its linearisation variance
    and ``n_eff - 1`` degrees of freedom (Kish's effective size), as
    :func:`~skfair.metrics.inference._intervals.summarise_groups` gives them.
    """
    n = values.size
    if weights is None:
        mean = float(values.mean())
        if n < 2:
            return mean, float("nan"), float("nan")
        t = student_t.ppf(0.5 + confidence_level / 2, n - 1)
        half = float(t * values.std(ddof=1) / np.sqrt(n))
        return mean, mean - half, mean + half
    one = summarise_groups(values, np.zeros(n, dtype=np.intp), weights, 1)
    mean = float(one.mean[0])
    if n < 2:
        return mean, float("nan"), float("nan")
    t = student_t.ppf(0.5 + confidence_level / 2, one.n_eff[0] - 1.0)
    half = float(t * np.sqrt(one.se2[0]))
    return mean, mean - half, mean + half


def _bin_bias(y, residual, rows, confidence_level, weights):
    """The :class:`BinBias` of the samples ``rows`` (a mask, or all: None)."""
    if rows is not None:
        y, residual = y[rows], residual[rows]
        weights = None if weights is None else weights[rows]
    if weights is None:
        return BinBias(
            float(y.min()),
            float(y.max()),
            int(y.size),
            *_mean_with_interval(residual, confidence_level),
        )
    return BinBias(
        float(y.min()),
        float(y.max()),
        float(weights.sum()),
        *_mean_with_interval(residual, confidence_level, weights),
        n_eff=float(weights.sum() ** 2 / np.dot(weights, weights)),
        n_rows=int(y.size),
    )


def _truth_edges(y, n_bins, weights):
    """The inner cut points of ``n_bins`` quantile bins of ``y`` (weighted)."""
    q = np.linspace(0, 1, n_bins + 1)[1:-1]
    if weights is None:
        return np.unique(np.quantile(y, q))
    return np.unique(np.quantile(y, q, method="inverted_cdf", weights=weights))


def bias_by_truth(scores, y, confidence_level, n_bins=TRUTH_BINS, weights=None):
    """``(overall, bins)``: the mean residual overall and per quantile bin of ``y``.

    The bins are cut at the quantiles of the true values (ties kept in one
    bin: a bin holds every sample whose true value lies in its closed
    range, and the bins of tied quantiles merge), so each holds about
    ``1 / n_bins`` of the samples. With survey ``weights``: cut at the
    weighted quantiles (``numpy.quantile(method="inverted_cdf")``), each
    bin about ``1 / n_bins`` of the people, the weighted mean residual with
    its interval on Kish's ``n_eff``.
    """
    residual = scores - y
    overall = _bin_bias(y, residual, None, confidence_level, weights)
    edges = _truth_edges(y, n_bins, weights)
    # a bin is (previous edge, edge]; the last is above the last edge
    which = np.searchsorted(edges, y, side="left")
    bins = []
    for k in range(len(edges) + 1):
        rows = which == k
        if not rows.any():
            continue
        bins.append(_bin_bias(y, residual, rows, confidence_level, weights))
    return overall, tuple(bins)


def regression_facts(groups, compared, grouping_name, scores, y, settings, weights):
    """The :class:`RegressionFacts` of the grouping ``grouping_name``.

    ``weights``: survey weights (None without).
    """
    grouping = next(g for g in compared if g.name == grouping_name)
    frame = groups[groups["grouping"] == grouping_name].reset_index(drop=True)
    reference = frame.loc[frame["is_reference"], "group"].iloc[0]
    args = (scores, y, settings, weights)
    errors = {}
    if y is not None:
        errors = {
            key: _error_gap(frame, grouping, column, *args)
            for key, column in (
                ("bias", "mean_residual"),
                ("mae", "mae"),
                ("rmse", "rmse"),
            )
        }
        kept = grouping.codes >= 0
        errors["overall_bias"], errors["bias_by_truth"] = bias_by_truth(
            scores[kept],
            y[kept],
            settings.confidence_level,
            weights=None if weights is None else weights[kept],
        )
    return RegressionFacts(
        grouping=grouping_name,
        reference=reference,
        predictions=_error_gap(frame, grouping, "mean_prediction", *args),
        **errors,
    )


# -- the audit ------------------------------------------------------------------------
def audit_regression(inputs, settings, resampling, progress):
    """The regression audit of validated in-memory data, phase by phase.

    With survey weights (``inputs.weights``) every count, mean, quantile,
    interval and metric is weighted (see :func:`skfair.report.audit`), and
    no test is run.
    """
    scores, y, weights = inputs.scores, inputs.y, inputs.weights
    attributes, compared, tables, left_out, sensitive_features = audited_inputs(
        inputs.sensitive_features, len(scores), settings, resampling
    )
    progress("groups")
    groups, references, at_threshold = regression_groups(
        tables, scores, y, settings, weights
    )
    results, details = computed_metrics(
        scores,
        sensitive_features,
        settings,
        resampling,
        progress,
        groups,
        compared,
        weights,
    )
    if y is not None:
        results += error_gap_results(scores, y, sensitive_features, settings, weights)
    names = [g.name for g in compared]
    mean_gap = next(r for r in results if r.key == "delta_dp")
    headline_grouping = mean_gap.pair_grouping or names[0]
    audited = audited_rows(compared, details)
    at_t = None
    if at_threshold is not None:
        at_t = threshold_facts(
            at_threshold,
            names,
            settings.threshold,
            references=references,
            confidence_level=settings.confidence_level,
        )
    return AuditReport(
        settings=settings,
        resampling=resampling,
        data=AuditedData.of(len(scores), attributes, y is not None, compared, left_out),
        groups=groups,
        references=references,
        metric_results=results,
        mcdp_details=details,
        headline=Headline(
            at_t,
            distribution_facts(
                results,
                details,
                scores[audited],
                settings.epsilon,
                groups,
                weights=None if weights is None else weights[audited],
            ),
            regression_facts(
                groups, compared, headline_grouping, scores, y, settings, weights
            ),
        ),
        inputs=inputs,
    )
