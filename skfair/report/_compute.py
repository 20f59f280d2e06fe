"""The report's numbers: labels, the per-group table and the metrics table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics.inference import infer_metrics, metric_spec
from ..utils import check_binary_target, check_same_length
from ._common import AUDIT_POS_LABEL_ERROR, label_text, metric_table


def encode_labels(y_true, n_samples, pos_label):
    """``y_true`` as 0/1 (1 = ``pos_label``, by default the larger label)."""
    check_same_length(
        y_true, np.empty(n_samples), first_name="y_true", second_name="y_score"
    )
    # two classes and no NaN, with or without pos_label
    y, classes = check_binary_target(y_true, why="the audit's rates")
    if pos_label is None:
        return y
    classes = classes.tolist()
    if pos_label not in classes:
        raise ValueError(
            AUDIT_POS_LABEL_ERROR.format(pos_label=pos_label, classes=classes)
        )
    return (y == classes.index(pos_label)).astype(np.int64)


def _rate(numerator, denominator):
    return float(numerator / denominator) if denominator > 0 else float("nan")


def _group_rows(grouping, scores, decisions, y):
    rows = []
    n = scores.shape[0]
    for g, label in enumerate(grouping.labels):
        members = grouping.codes == g
        size = int(members.sum())
        d = decisions[members]
        row = {
            "grouping": grouping.name,
            "group": label_text(label),
            "size": size,
            "share": size / n,
            "base_rate": float("nan"),
            "mean_score": float(scores[members].mean()),
            "positive_rate": float(d.mean()),
            "tpr": float("nan"),
            "fpr": float("nan"),
            "precision": float("nan"),
        }
        if y is not None:
            t = y[members]
            row["base_rate"] = float(t.mean())
            row["tpr"] = _rate(np.sum(d & (t == 1)), np.sum(t == 1))
            row["fpr"] = _rate(np.sum(d & (t == 0)), np.sum(t == 0))
            row["precision"] = _rate(np.sum(d & (t == 1)), np.sum(d))
        rows.append(row)
    return rows


def table_groupings(attributes):
    """Each attribute's grouping, and their intersection with several."""
    out = [attributes.attribute(k) for k in range(attributes.n_attributes)]
    if attributes.n_attributes > 1:
        out.append(attributes.intersection())
    return out


def group_table(groupings, scores, decisions, y, keep):
    """One row per kept group of every grouping: sizes and rates at the threshold."""
    return pd.DataFrame(
        [
            row
            for g in groupings
            for row in _group_rows(g.keep_at_least(keep), scores, decisions, y)
        ]
    )


def left_out_groups(groupings, keep):
    """(grouping name, group label, size) of every group below ``keep``."""
    out = []
    for grouping in groupings:
        counts = grouping.counts()
        out += [
            (grouping.name, label_text(label), int(size))
            for label, size in zip(grouping.labels, counts)
            if size < keep
        ]
    return out


def metrics_table(scores, sensitive_features, settings, resampling, keep):
    """One row per metric of :func:`metric_table`: value, intervals, p-value."""
    table = metric_table(settings["threshold"], settings["epsilon"])
    specs = [metric_spec(metric, kwargs) for _, _, metric, kwargs in table]
    rows = infer_metrics(
        scores,
        sensitive_features,
        specs,
        combine=settings["combine"],
        confidence_level=settings["confidence_level"],
        min_group_size=keep,
        **resampling,
    )
    for (key, name, _, _), row in zip(table, rows):
        row.update(key=key, metric=name)
    columns = ["key", "metric"] + [k for k in rows[0] if k not in ("key", "metric")]
    return pd.DataFrame(rows, columns=columns).set_index("key")
