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

from ..utils import check_scores, check_sensitive_features
from ..utils._sensitive import TOO_FEW_GROUPS_ERROR, warn_small_groups
from ._base import aggregate
from ._distribution import abcc, delta_dp
from ._ecdf import group_pairs
from ._mcdp import mcdp_details
from ._uncertainty import dkw_halfwidth

# what the Dask audit does not compute (see the Dask paragraph of audit's Notes)
_LEFT_OUT_ON_DASK = {
    "n_resamples": 0,
    "n_permutations": 0,
    "hfm": None,
    "_data": None,
    "engine": "dask",
}


def _summary(y_true, y_score, sensitive_features, threshold):
    """Per distinct (sensitive row, label): counts, score sums, decisions."""
    from ._dask_engine import _start, _summarise

    options = {"sensitive_features": sensitive_features}
    names, aligned, meta = _start(y_true, y_score, options)
    spec = {"score": "y_score", "want": ("sum", "above"), "n_bins": 0}
    spec.update(threshold=threshold, labels=("y_true",))
    return _summarise(names, aligned, meta, spec), meta


def _sizes(grouping, counts):
    return np.bincount(grouping.codes, weights=counts, minlength=grouping.n_groups)


def _check_groups(grouping, sizes, min_group_size):
    """Warn (None) or keep the groups of at least ``min_group_size`` samples."""
    if min_group_size is None:
        warn_small_groups(grouping, sizes, stacklevel=5)
        return np.ones(grouping.n_groups, dtype=bool)
    return sizes >= min_group_size


def _rates(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is not positive."""
    out = np.full(np.shape(denominator), np.nan)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def audit_dask(y_true, y_score, *, sensitive_features, pos_label, **report):
    """:func:`skfair.metrics.audit` on Dask collections (validated arguments).

    ``report`` holds the audit's threshold, epsilon, confidence_level,
    combine, min_group_size and title, which the report records as given.
    """
    from ._audit import (
        AUDIT_SCORE_REASON,
        AuditReport,
        _encode_labels,
        _label_text,
        _metric_table,
    )
    from ._dask_engine import _LABEL_COLUMNS, _sensitive_table

    threshold, epsilon = report["threshold"], report["epsilon"]
    combine, min_group_size = report["combine"], report["min_group_size"]

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
    if y_true is not None:  # the in-memory checks, on the distinct labels
        values = table[_LABEL_COLUMNS[0]].to_numpy()
        y = _encode_labels(values, values.shape[0], pos_label)
    attributes = check_sensitive_features(_sensitive_table(table, meta, n))
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
    weights = {"size": counts, "total": sums, "positive": above}
    if y is not None:
        yf = y.astype(np.float64)
        weights.update(n_pos=counts * yf, tp=above * yf, fp=above * (1.0 - yf))
    frames, left_out = [], []
    for grouping in table_groupings:
        per = {
            name: np.bincount(grouping.codes, weights=w, minlength=grouping.n_groups)
            for name, w in weights.items()
        }
        size, nan = per["size"], np.full(grouping.n_groups, np.nan)
        n_pos, tp, fp = (per.get(name, nan) for name in ("n_pos", "tp", "fp"))
        frame = pd.DataFrame(
            {
                "grouping": grouping.name,
                "group": [_label_text(label) for label in grouping.labels],
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
        small = size < keep_arg
        left_out += [
            (grouping.name, label, int(s))
            for label, s in zip(frame["group"][small], size[small])
        ]
        frames.append(frame[~small])
    groups = pd.concat(frames, ignore_index=True)

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
    alpha = 1.0 - report["confidence_level"]
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
