"""The groups of a frame: the in-memory resolver on the table of distinct rows.

Every pass groups by the sensitive columns (and the labels), so the client
sees each distinct sensitive row once, with its number of samples; the Dask
engine's :func:`~skfair.metrics._dask._groups.summary_groupings` resolves
those rows as the in-memory metrics resolve the samples (intersection or
marginal groupings, ``min_group_size`` on the true group sizes), so the
group labels, their order and the left-out groups are the in-memory ones.
"""

from __future__ import annotations

import numpy as np

from .._base import ZERO_WEIGHT_GROUP_ERROR
from .._dask._groups import per_group, summary_groupings

# how the Dask helpers are told the table's shape: a DataFrame of attributes
FRAME_META = {"sensitive_features": ("frame", None)}


def groupings_of(summary, *, combine, min_group_size):
    """``[(name, codes, labels)]`` of the summary's distinct rows (see module)."""
    return summary_groupings(
        summary, FRAME_META, combine=combine, min_group_size=min_group_size
    )


def group_weights(summary, codes, labels, name):
    """Each group's total weight; :data:`ZERO_WEIGHT_GROUP_ERROR` for a zero total."""
    totals = per_group(summary["arrays"]["whist"][0].sum(axis=1), codes, len(labels))
    empty = np.flatnonzero(~(totals > 0))
    if empty.size:
        raise ValueError(
            ZERO_WEIGHT_GROUP_ERROR.format(label=labels[int(empty[0])], name=name)
        )
    return totals
