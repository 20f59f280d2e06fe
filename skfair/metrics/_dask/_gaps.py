"""The group gaps on hard labels (DP, EO, PQP) of Dask data.

Pass 1 counts the distinct (sensitive row, y_true, y_pred) rows; the
in-memory gap then runs on those rows, each weighted by its count.
"""

from __future__ import annotations

import numpy as np

from ...utils import resolve_privileged
from ...utils._validation import EMPTY_INPUT_ERROR, check_hard_labels
from .. import _group_gaps
from ._groups import sensitive_table, summary_groupings
from ._inputs import LABEL_COLUMNS, check_no_weights, collect
from ._passes import summarise


class _GroupSizes:
    """The parts of a Grouping that ``resolve_privileged`` reads."""

    def __init__(self, name, labels, sizes):
        self.name, self.labels, self._sizes = name, labels, sizes

    def counts(self):
        """Each group's number of samples."""
        return self._sizes


def _gap(
    gap,
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged,
    pos_label,
    sample_weight,
    min_group_size,
):
    """The in-memory ``gap`` on the distinct (group, y_true, y_pred) rows.

    Each distinct row is weighted by its count (zero in the groups that
    ``min_group_size`` leaves out), and the privileged group is resolved here
    on the true group sizes, so the in-memory rates are the rates of the data.
    """
    check_no_weights(sample_weight)
    names, aligned, meta = collect(
        {"y_true": y_true, "y_pred": y_pred, "sensitive_features": sensitive_features}
    )
    spec = {"score": None, "want": (), "n_bins": 0, "labels": ("y_true", "y_pred")}
    summary = summarise(names, aligned, meta, spec)
    table = summary["table"]
    if table is None:
        raise ValueError(EMPTY_INPUT_ERROR.format(name="y_true"))
    truth, pred = (table[column].to_numpy() for column in LABEL_COLUMNS)
    check_hard_labels(truth, pred, pos_label=pos_label)
    ((name, codes, labels),) = summary_groupings(
        summary, meta, combine="intersection", min_group_size=min_group_size
    )
    counts = summary["arrays"]["count"][0].astype(np.float64)
    kept = codes >= 0
    sizes = np.bincount(codes[kept], weights=counts[kept], minlength=len(labels))
    code = resolve_privileged(privileged, _GroupSizes(name, labels, sizes))
    return gap(
        truth,
        pred,
        sensitive_features=sensitive_table(table, meta, int(counts.sum())),
        privileged=labels[code],
        pos_label=pos_label,
        sample_weight=counts * kept,
        min_group_size=1,
    )


def demographic_parity_gap(y_true, y_pred, **arguments):
    """:func:`skfair.metrics.demographic_parity_gap` on Dask inputs."""
    return _gap(_group_gaps.demographic_parity_gap, y_true, y_pred, **arguments)


def equal_opportunity_gap(y_true, y_pred, **arguments):
    """:func:`skfair.metrics.equal_opportunity_gap` on Dask inputs."""
    return _gap(_group_gaps.equal_opportunity_gap, y_true, y_pred, **arguments)


def predictive_quality_parity_gap(y_true, y_pred, **arguments):
    """:func:`skfair.metrics.predictive_quality_parity_gap` on Dask inputs."""
    return _gap(_group_gaps.predictive_quality_parity_gap, y_true, y_pred, **arguments)
