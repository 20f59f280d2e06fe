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
from ._common import AUDIT_SCORE_REASON, label_text, metric_table
from ._compute import encode_labels, table_groupings
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
    ("value", "bootstrap_low", "bootstrap_high", "bootstrap_se", "dkw_low", "dkw_high"),
    float("nan"),
) | {"pvalue": float("nan"), "test": ""}


def _sizes(grouping, counts):
    return np.bincount(grouping.codes, weights=counts, minlength=grouping.n_groups)


def _check_groups(grouping, sizes, min_group_size):
    """Warn (None) or keep the groups of at least ``min_group_size`` samples."""
    if min_group_size is None:
        warn_small_groups(grouping, sizes, stacklevel=6)
        return np.ones(grouping.n_groups, dtype=bool)
    return sizes >= min_group_size


def _rates(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is not positive."""
    out = np.full(np.shape(denominator), np.nan)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def audit_dask(y_true, y_score, *, sensitive_features, pos_label, **report):
    """:func:`skfair.audit` on Dask collections (validated arguments).

    ``report`` holds the audit's threshold, epsilon, confidence_level,
    combine, min_group_size and title, which the report records as given.
    """
    summary, sensitive, labels = dask_group_summary(
        y_true, y_score, sensitive_features, report["threshold"]
    )
    n = summary["n"]
    if n:  # the in-memory check's error, on the extreme scores
        check_scores(
            [summary["low"], summary["high"]], unit_interval_for=AUDIT_SCORE_REASON
        )
    y = None if labels is None else encode_labels(labels, labels.shape[0], pos_label)
    attributes = check_sensitive_features(sensitive)
    compared = _compared_groupings(
        attributes, summary, report["combine"], report["min_group_size"]
    )
    keep = 1 if report["min_group_size"] is None else report["min_group_size"]
    groups, left_out = _group_table(table_groupings(attributes), summary, y, keep)
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
    return AuditReport(
        n_samples=n,
        groups=groups,
        metrics=metrics,
        mcdp_details=details,
        has_labels=y is not None,
        left_out=left_out,
        attributes=attributes.names,
        **report,
        **_LEFT_OUT_ON_DASK,
    )


def _compared_groupings(attributes, summary, combine, min_group_size):
    """The groupings the metrics compare: warn once or leave groups out."""
    compared = []
    for grouping in attributes.groupings(combine):
        sizes = _sizes(grouping, summary["count"])
        kept = _check_groups(grouping, sizes, min_group_size)
        if kept.sum() < 2:
            labels = [lab for lab, k in zip(grouping.labels, kept) if k]
            raise ValueError(
                TOO_FEW_GROUPS_ERROR.format(
                    name=grouping.name,
                    n_groups=len(labels),
                    labels=labels,
                    n_samples=summary["n"],
                )
            )
        compared.append((grouping, sizes, kept))
    return compared


def _group_table(groupings, summary, y, keep):
    """The per-group table from per-partition sums, and the groups left out."""
    counts, n = summary["count"], summary["n"]
    weights = {"size": counts, "total": summary["sum"], "positive": summary["above"]}
    if y is not None:
        yf = y.astype(np.float64)
        above = summary["above"]
        weights.update(n_pos=counts * yf, tp=above * yf, fp=above * (1.0 - yf))
    frames, left_out = [], []
    for grouping in groupings:
        per = {
            name: np.bincount(grouping.codes, weights=w, minlength=grouping.n_groups)
            for name, w in weights.items()
        }
        size, nan = per["size"], np.full(grouping.n_groups, np.nan)
        n_pos, tp, fp = (per.get(name, nan) for name in ("n_pos", "tp", "fp"))
        frame = pd.DataFrame(
            {
                "grouping": grouping.name,
                "group": [label_text(label) for label in grouping.labels],
                "size": size.astype(np.int64),
                "share": size / n,
                "base_rate": n_pos / size,
                "mean_score": per["total"] / size,
                "positive_rate": per["positive"] / size,
                "tpr": _rates(tp, n_pos),
                "fpr": _rates(fp, size - n_pos),
                "precision": _rates(tp, per["positive"]),
            }
        )
        small = size < keep
        left_out += [
            (grouping.name, label, int(s))
            for label, s in zip(frame["group"][small], size[small])
        ]
        frames.append(frame[~small])
    return pd.concat(frames, ignore_index=True), left_out


def _pair_slacks(compared, summary, threshold, confidence_level):
    """DKW slack ``t_a + t_b`` and ΔDP (mean, at the threshold) of every pair."""
    alpha = 1.0 - confidence_level
    n_groups_total = int(sum(kept.sum() for _, _, kept in compared))
    slack = {}  # (grouping name, label a, label b) -> t_a + t_b
    levels = {None: {}, threshold: {}}  # ΔDP of every pair, from the sums
    for grouping, sizes, kept in compared:
        labels = [lab for lab, k in zip(grouping.labels, kept) if k]
        t = dkw_halfwidth(sizes[kept], alpha / n_groups_total)
        mean = np.bincount(grouping.codes, weights=summary["sum"], minlength=len(kept))
        rate = np.bincount(
            grouping.codes, weights=summary["above"], minlength=len(kept)
        )
        mean, rate = mean[kept] / sizes[kept], rate[kept] / sizes[kept]
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
