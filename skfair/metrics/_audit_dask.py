"""The audit's numbers on Dask collections (see :func:`skfair.metrics.audit`).

Everything here runs partition by partition: one pass sums, per distinct
(sensitive row, label), the counts, score sums and decisions that the group
table needs; the metric values come from the public metric functions, which
dispatch to their exact Dask engines. Nothing here imports Dask before a Dask
input arrives.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..utils import (
    check_binary_target,
    check_scores,
    check_sensitive_features,
)
from ..utils._sensitive import TOO_FEW_GROUPS_ERROR, warn_small_groups
from ._base import aggregate
from ._distribution import abcc, delta_dp
from ._ecdf import group_pairs
from ._mcdp import mcdp_details
from ._uncertainty import dkw_halfwidth

_LABEL = "__skfair_y_true__"


def _audit_scan(k, names, kinds, threshold, *parts):
    """One partition: per distinct (sensitive row, label) sums."""
    from ._dask_engine import _check_partition, _encode_rows, _scores_of

    data = dict(zip(names, parts))
    _check_partition(k, data)
    x = _scores_of(k, data["y_score"])
    labels = (data["y_true"],) if "y_true" in data else None
    kind, extra = kinds["sensitive_features"]
    rows, table, keys = _encode_rows(
        k, data["sensitive_features"], kind, extra, labels=labels
    )
    n_rows = len(keys)
    above = (x >= threshold).astype(np.float64)
    arrays = {
        "count": (np.bincount(rows, minlength=n_rows).astype(np.int64), "add"),
        "sum": (np.bincount(rows, weights=x, minlength=n_rows), "add"),
        "above": (np.bincount(rows, weights=above, minlength=n_rows), "add"),
    }
    return {
        "n": int(x.size),
        "low": float(x.min()) if x.size else np.inf,
        "high": float(x.max()) if x.size else -np.inf,
        "keys": keys,
        "table": table if n_rows else None,
        "arrays": arrays,
    }


def _summary(y_true, y_score, sensitive_features, threshold):
    import dask
    from dask import delayed

    from ._dask_engine import _collect, _merge, _tree

    names, aligned, meta = _collect(
        {
            "y_score": y_score,
            "y_true": y_true,
            "sensitive_features": sensitive_features,
        }
    )
    kinds = {n: meta[n] for n in names}
    parts = [
        delayed(_audit_scan, pure=True)(k, names, kinds, threshold, *p)
        for k, p in enumerate(aligned)
    ]
    (summary,) = dask.compute(_tree(parts, _merge))
    return summary, meta


def _sensitive_table(table, meta):
    """The distinct sensitive rows, shaped like the original input."""
    kind, extra = meta["sensitive_features"]
    sens = table.drop(columns=[_LABEL], errors="ignore")
    if kind == "series":
        return sens.iloc[:, 0].rename(extra)
    if kind == "frame":
        return sens
    if kind == "array":
        return sens.iloc[:, 0].to_numpy()
    return sens.to_numpy()


def _sizes(grouping, counts):
    return np.bincount(grouping.codes, weights=counts, minlength=grouping.n_groups)


def _check_groups(grouping, sizes, min_group_size):
    """Warn (None) or keep the groups of at least ``min_group_size`` samples."""
    if min_group_size is None:
        warn_small_groups(grouping, sizes, stacklevel=5)
        return np.ones(grouping.n_groups, dtype=bool)
    return sizes >= min_group_size


def _rate(numerator, denominator):
    return float(numerator / denominator) if denominator > 0 else float("nan")


def audit_dask(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold,
    epsilon,
    pos_label,
    confidence_level,
    combine,
    title,
    min_group_size,
):
    """:func:`skfair.metrics.audit` on Dask collections (validated arguments)."""
    from ._audit import (
        AUDIT_POS_LABEL_ERROR,
        AUDIT_SCORE_REASON,
        AuditReport,
        _label_text,
        _metric_table,
    )

    summary, meta = _summary(y_true, y_score, sensitive_features, threshold)
    n = summary["n"]
    if n:  # the in-memory check's error, on the extreme scores
        check_scores(
            [summary["low"], summary["high"]], unit_interval_for=AUDIT_SCORE_REASON
        )
    table = summary["table"]
    counts = summary["arrays"]["count"][0].astype(np.float64)
    sums = summary["arrays"]["sum"][0]
    above = summary["arrays"]["above"][0]
    y = None
    if y_true is not None:
        values = table[_LABEL].to_numpy()
        if pos_label is None:
            y = check_binary_target(values, why="the audit's rates")[0]
        else:
            classes = np.unique(values).tolist()
            if pos_label not in classes:
                raise ValueError(
                    AUDIT_POS_LABEL_ERROR.format(pos_label=pos_label, classes=classes)
                )
            y = (values == pos_label).astype(np.int64)
    attributes = check_sensitive_features(_sensitive_table(table, meta))
    keep_arg = 1 if min_group_size is None else min_group_size

    # the groupings the metrics compare: warn once or leave groups out
    compared = []
    for grouping in attributes.groupings(combine):
        sizes = _sizes(grouping, counts)
        kept = _check_groups(grouping, sizes, min_group_size)
        if kept.sum() < 2:
            labels = [lab for lab, k in zip(grouping.labels, kept) if k]
            raise ValueError(
                TOO_FEW_GROUPS_ERROR.format(
                    name=grouping.name,
                    n_groups=len(labels),
                    labels=labels,
                    n_samples=n,
                )
            )
        compared.append((grouping, sizes, kept))

    # the group table
    table_groupings = [attributes.attribute(k) for k in range(attributes.n_attributes)]
    if attributes.n_attributes > 1:
        table_groupings.append(attributes.intersection())
    rows, left_out = [], []
    for grouping in table_groupings:
        size = _sizes(grouping, counts)
        total = np.bincount(grouping.codes, weights=sums, minlength=grouping.n_groups)
        positive = np.bincount(
            grouping.codes, weights=above, minlength=grouping.n_groups
        )
        if y is not None:
            yf = y.astype(np.float64)
            n_pos, tp, fp = (
                np.bincount(grouping.codes, weights=w, minlength=grouping.n_groups)
                for w in (counts * yf, above * yf, above * (1.0 - yf))
            )
        for g, label in enumerate(grouping.labels):
            if size[g] < keep_arg:
                left_out.append((grouping.name, _label_text(label), int(size[g])))
                continue
            row = {
                "grouping": grouping.name,
                "group": _label_text(label),
                "size": int(size[g]),
                "share": int(size[g]) / n,
                "base_rate": float("nan"),
                "mean_score": float(total[g] / size[g]),
                "positive_rate": float(positive[g] / size[g]),
                "tpr": float("nan"),
                "fpr": float("nan"),
                "precision": float("nan"),
            }
            if y is not None:
                row["base_rate"] = float(n_pos[g] / size[g])
                row["tpr"] = _rate(tp[g], n_pos[g])
                row["fpr"] = _rate(fp[g], size[g] - n_pos[g])
                row["precision"] = _rate(tp[g], positive[g])
            rows.append(row)
    groups = pd.DataFrame(rows)

    # the metrics: exact, through the public functions' Dask engines
    common = {
        "sensitive_features": sensitive_features,
        "combine": combine,
        "min_group_size": keep_arg,
    }
    details = {
        eps: mcdp_details(None, y_score, epsilon=eps, **common)
        for eps in (0.0, epsilon)
    }
    alpha = 1.0 - confidence_level
    n_groups_total = int(sum(kept.sum() for _, _, kept in compared))
    slack = {}  # (grouping name, label a, label b) -> t_a + t_b
    levels = {None: {}, threshold: {}}  # ΔDP of every pair, from the sums
    for grouping, sizes, kept in compared:
        labels = [lab for lab, k in zip(grouping.labels, kept) if k]
        t = dkw_halfwidth(sizes[kept], alpha / n_groups_total)
        mean = np.bincount(grouping.codes, weights=sums, minlength=len(kept))
        rate = np.bincount(grouping.codes, weights=above, minlength=len(kept))
        mean, rate = mean[kept] / sizes[kept], rate[kept] / sizes[kept]
        for a, b in group_pairs(len(labels)):
            key = (grouping.name, labels[a], labels[b])
            slack[key] = float(t[a] + t[b])
            levels[None][key] = abs(float(mean[a] - mean[b]))
            levels[threshold][key] = abs(float(rate[a] - rate[b]))
    out = []
    for key, name, metric, kwargs in _metric_table(threshold, epsilon):
        row = {
            "key": key,
            "metric": name,
            "value": float("nan"),
            "bootstrap_low": float("nan"),
            "bootstrap_high": float("nan"),
            "bootstrap_se": float("nan"),
            "dkw_low": float("nan"),
            "dkw_high": float("nan"),
            "pvalue": float("nan"),
            "test": "",
        }
        if metric == "abpc":
            out.append(row)
            continue
        if metric == "mcdp":
            result = details[kwargs.get("epsilon", 0.0)]
            value = float(result.value)
            per_pair = result.pair_values
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
        out.append(row)
    metrics = pd.DataFrame(out).set_index("key")
    return AuditReport(
        title=title or "Fairness audit",
        n_samples=n,
        threshold=threshold,
        epsilon=epsilon,
        confidence_level=confidence_level,
        n_resamples=0,
        n_permutations=0,
        combine=combine,
        groups=groups,
        metrics=metrics,
        mcdp_details=details,
        hfm=None,
        has_labels=y is not None,
        _data=None,
        min_group_size=min_group_size,
        left_out=left_out,
        engine="dask",
        attributes=attributes.names,
    )


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
