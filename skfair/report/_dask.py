"""The audit of Dask collections: exact metrics and group table, no resampling.

What needs every score in memory (bootstrap intervals, p-values, ABPC, the
figures, HFM) is left out, with a note; see the Dask paragraph of
:func:`skfair.audit`'s Notes.
"""

from __future__ import annotations

import dataclasses
from itertools import combinations

import numpy as np

from ..metrics import abcc, delta_dp, dkw_halfwidth, mcdp_details
from ..metrics.inference import aggregate, dask_group_summary
from ..utils import check_sensitive_features
from ..utils._groups import TOO_FEW_GROUPS_ERROR, drop_small_groups
from ..utils._validation import check_scores
from ._common import AUDIT_SCORE_REASON, metric_table
from ._compute import audited_groupings, encode_labels, group_table
from ._facts import AuditedData, MetricResult, Resampling
from ._headline import binary_headline, finish_metrics
from ._report import AuditReport

_NAN = float("nan")


def _check_groups(attributes, counts, combine, min_group_size, n):
    """Warn once about small groups (None); check that two groups remain."""
    for grouping in attributes.groupings(combine):
        sizes = np.bincount(grouping.codes, weights=counts, minlength=grouping.n_groups)
        _, labels = drop_small_groups(
            grouping.codes,
            grouping.labels,
            sizes,
            min_group_size,
            name=grouping.name,
            stacklevel=4,  # the user's call of skfair.audit
        )
        if len(labels) < 2:
            raise ValueError(
                TOO_FEW_GROUPS_ERROR.format(
                    name=grouping.name, n_groups=len(labels), labels=labels, n_samples=n
                )
            )


def audit_dask(y_true, y_score, *, sensitive_features, pos_label, settings, progress):
    """:func:`skfair.audit` on Dask collections (validated arguments).

    ``settings`` are the audit's validated :class:`Settings`.
    """
    progress("groups")
    summary, sensitive, labels = dask_group_summary(
        y_true, y_score, sensitive_features, settings.threshold
    )
    n = summary["n"]
    if n:  # the in-memory check's error, on the extreme scores
        check_scores(
            [summary["low"], summary["high"]], unit_interval_for=AUDIT_SCORE_REASON
        )
    y, pos_label = (
        (None, None)
        if labels is None
        else encode_labels(labels, labels.shape[0], pos_label)
    )
    settings = dataclasses.replace(settings, pos_label=pos_label)
    attributes = check_sensitive_features(sensitive)
    counts = summary["count"]
    _check_groups(attributes, counts, settings.combine, settings.min_group_size, n)
    compared, tables, left_out = audited_groupings(
        attributes, settings.combine, settings.keep, weights=counts
    )
    per_row = {
        "size": counts,
        "score_sum": summary["sum"],
        "n_selected": summary["above"],
    }
    if y is not None:
        per_row.update(n_positive=counts * y, tp=summary["above"] * y)
    groups, references = group_table(
        tables,
        per_row,
        reference=settings.reference,
        confidence_level=settings.confidence_level,
    )
    progress("metrics")
    common = {
        "sensitive_features": sensitive_features,
        "combine": settings.combine,
        "min_group_size": settings.keep,
    }
    details = {
        eps: mcdp_details(None, y_score, epsilon=eps, **common)
        for eps in (0.0, settings.epsilon)
    }
    results = _metrics(y_score, common, compared, summary, details, settings)
    results = finish_metrics(
        results,
        settings=settings,
        groups=groups,
        compared=compared,
        details=details,
        scores=None,
        n_permutations=0,
    )
    return AuditReport(
        settings=settings,
        resampling=Resampling(n_resamples=0, n_permutations=0),
        data=AuditedData.of(
            n, attributes, y is not None, compared, left_out, engine="dask"
        ),
        groups=groups,
        references=references,
        metric_results=results,
        mcdp_details=details,
        headline=binary_headline(
            groups, compared, settings, results, details, None, references
        ),
    )


def _pair_slacks(compared, summary, threshold, confidence_level):
    """DKW slack ``t_a + t_b`` and ΔDP (mean, at the threshold) of every pair."""
    alpha = 1.0 - confidence_level
    n_groups_total = int(sum(g.n_groups for g in compared))
    slack = {}  # (grouping name, label a, label b) -> t_a + t_b
    levels = {None: {}, threshold: {}}  # ΔDP of every pair, from the sums
    for grouping in compared:
        kept, labels = grouping.kept, grouping.labels

        def total(values, grouping=grouping, kept=kept):
            return np.bincount(
                grouping.codes[kept], weights=values[kept], minlength=grouping.n_groups
            )

        sizes = total(summary["count"])
        t = dkw_halfwidth(sizes, alpha / n_groups_total)
        mean = total(summary["sum"]) / sizes
        rate = total(summary["above"]) / sizes
        for a, b in combinations(range(len(labels)), 2):
            key = (grouping.name, labels[a], labels[b])
            slack[key] = float(t[a] + t[b])
            levels[None][key] = abs(float(mean[a] - mean[b]))
            levels[threshold][key] = abs(float(rate[a] - rate[b]))
    return slack, levels


def _metrics(y_score, common, compared, summary, details, settings):
    """The metrics: exact values (Dask engines) and DKW intervals."""
    threshold = settings.threshold
    slack, levels = _pair_slacks(
        compared, summary, threshold, settings.confidence_level
    )
    out = []
    for definition in metric_table(threshold, settings.epsilon):
        if definition.metric == "abpc":
            out.append(MetricResult(definition.key, definition.name, _NAN))
            continue
        params = definition.params
        if definition.metric == "mcdp":
            result = details[params.get("epsilon", 0.0)]
            value, per_pair = float(result.value), result.pair_values
        else:
            func = delta_dp if definition.metric == "delta_dp" else abcc
            value = float(func(None, y_score, **common, **params))
            if len(slack) == 1:
                per_pair = dict.fromkeys(slack, value)
            elif definition.metric == "delta_dp":
                per_pair = levels[params.get("threshold")]
            else:  # ABCC of every pair needs a pass per pair: bound it instead
                per_pair = None
        low, high = _dkw_interval(value, per_pair, slack)
        # on Dask the distribution-free interval is the report's interval
        out.append(
            MetricResult(
                definition.key,
                definition.name,
                value,
                low=low,
                high=high,
                interval="dkw",
                dkw_low=low,
                dkw_high=high,
            )
        )
    return out


def _dkw_interval(value, per_pair, slack):
    """As the in-memory DKW interval (agg="max"), from per-pair values if known.

    Without per-pair values (ABCC with several pairs), the true maximum lies
    within the largest pair slack of the observed maximum: a valid, slightly
    wider interval.
    """
    if per_pair is not None and set(per_pair) == set(slack):
        low = aggregate([[per_pair[k] - slack[k] for k in slack]], "max")
        high = aggregate([[per_pair[k] + slack[k] for k in slack]], "max")
    else:
        widest = max(slack.values())
        low, high = value - widest, value + widest
    return max(0.0, float(low)), min(1.0, float(high))
