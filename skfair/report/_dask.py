"""The audit of Dask collections: exact metrics and group table, no resampling.

What needs every score in memory (bootstrap intervals, p-values, ABPC, the
figures, HFM) is left out, with a note; see the Dask paragraph of
:func:`skfair.audit`'s Notes.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ..metrics import abcc, delta_dp, dkw_halfwidth, mcdp_details
from ..metrics.inference import aggregate, dask_group_summary
from ..utils import (
    TOO_FEW_GROUPS_ERROR,
    check_scores,
    check_sensitive_features,
    warn_small_groups,
)
from ._common import AUDIT_SCORE_REASON, metric_table
from ._compute import (
    audited_groupings,
    distribution_facts,
    encode_labels,
    group_table,
    threshold_facts,
)
from ._report import AuditReport

# what the Dask audit does not compute (see the Dask paragraph of audit's Notes)
_LEFT_OUT_ON_DASK = {
    "n_resamples": 0,
    "n_permutations": 0,
    "hfm": None,
    "_data": None,
    "engine": "dask",
}
_EMPTY_ROW = dict.fromkeys(
    ("value", "low", "high", "dkw_low", "dkw_high"),
    float("nan"),
) | {"interval": "", "pvalue": float("nan"), "test": ""}
_EMPTY_ROW |= {"undefined_reason": None, "inference_error": None}


def _check_groups(attributes, counts, combine, min_group_size, n):
    """Warn once about small groups (None); check that two groups remain."""
    for grouping in attributes.groupings(combine):
        sizes = np.bincount(grouping.codes, weights=counts, minlength=grouping.n_groups)
        if min_group_size is None:
            warn_small_groups(grouping, sizes, stacklevel=7)
        labels = [
            lab for lab, s in zip(grouping.labels, sizes) if s >= (min_group_size or 1)
        ]
        if len(labels) < 2:
            raise ValueError(
                TOO_FEW_GROUPS_ERROR.format(
                    name=grouping.name, n_groups=len(labels), labels=labels, n_samples=n
                )
            )


def audit_dask(
    y_true, y_score, *, sensitive_features, pos_label, reference, progress, **report
):
    """:func:`skfair.audit` on Dask collections (validated arguments).

    ``report`` holds the audit's threshold, epsilon, confidence_level,
    combine, min_group_size and title, which the report records as given.
    """
    progress("groups")
    summary, sensitive, labels = dask_group_summary(
        y_true, y_score, sensitive_features, report["threshold"]
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
    attributes = check_sensitive_features(sensitive)
    counts = summary["count"]
    _check_groups(attributes, counts, report["combine"], report["min_group_size"], n)
    keep = 1 if report["min_group_size"] is None else report["min_group_size"]
    compared, tables, left_out = audited_groupings(
        attributes, report["combine"], keep, weights=counts
    )
    per_row = {
        "size": counts,
        "score_sum": summary["sum"],
        "n_selected": summary["above"],
    }
    if y is not None:
        per_row.update(n_positive=counts * y, tp=summary["above"] * y)
    groups = group_table(
        tables,
        per_row,
        reference=reference,
        confidence_level=report["confidence_level"],
    )
    progress("metrics")
    common = {
        "sensitive_features": sensitive_features,
        "combine": report["combine"],
        "min_group_size": keep,
    }
    details = {
        eps: mcdp_details(None, y_score, epsilon=eps, **common)
        for eps in (0.0, report["epsilon"])
    }
    metrics = _metrics(y_score, common, compared, summary, details, report)
    headline = {
        "threshold": threshold_facts(
            groups, [g.name for g in compared], report["threshold"]
        ),
        "distribution": distribution_facts(metrics, details, None, report["epsilon"]),
    }
    return AuditReport(
        n_samples=n,
        groups=groups,
        metrics=metrics,
        mcdp_details=details,
        headline=headline,
        has_labels=y is not None,
        kept_groups={g.name: g.labels for g in compared},
        pos_label=pos_label,
        reference=reference,
        left_out=left_out,
        attributes=attributes.names,
        **report,
        **_LEFT_OUT_ON_DASK,
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


def _metrics(y_score, common, compared, summary, details, report):
    """The metrics table: exact values (Dask engines) and DKW intervals."""
    threshold = report["threshold"]
    slack, levels = _pair_slacks(
        compared, summary, threshold, report["confidence_level"]
    )
    out = []
    for key, name, metric, kwargs in metric_table(threshold, report["epsilon"]):
        row = {"key": key, "metric": name, **_EMPTY_ROW}
        out.append(row)
        if metric == "abpc":
            continue
        if metric == "mcdp":
            result = details[kwargs.get("epsilon", 0.0)]
            value, per_pair = float(result.value), result.pair_values
        else:
            func = delta_dp if metric == "delta_dp" else abcc
            value = float(func(None, y_score, **common, **kwargs))
            if len(slack) == 1:
                per_pair = dict.fromkeys(slack, value)
            elif metric == "delta_dp":
                per_pair = levels[kwargs.get("threshold")]
            else:  # ABCC of every pair needs a pass per pair: bound it instead
                per_pair = None
        row["value"] = value
        row["dkw_low"], row["dkw_high"] = _dkw_interval(value, per_pair, slack)
        # on Dask the distribution-free interval is the report's interval
        row["low"], row["high"], row["interval"] = (
            row["dkw_low"],
            row["dkw_high"],
            "dkw",
        )
    return pd.DataFrame(out).set_index("key")


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
