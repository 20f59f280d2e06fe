"""The groups of a frame: the in-memory resolver on the table of distinct rows.

Every pass groups by the sensitive columns (and the labels), so the client
sees each distinct sensitive row once, with its number of samples; the in-memory
resolver encodes the table of those rows (the Dask engine's
``sensitive_table`` shapes it), and ``min_group_size`` and the "at least
two groups" rule apply to the groups' numbers of samples, so the group
labels, their order, the left-out groups and the errors are the in-memory
ones.
"""

from __future__ import annotations

import warnings

import numpy as np

from ...utils import SmallGroupWarning, check_sensitive_features
from ...utils._groups import (
    TOO_FEW_GROUPS_ERROR,
    TOO_FEW_GROUPS_LEFT_ERROR,
    check_min_group_size,
    drop_small_groups,
)
from .._base import ZERO_WEIGHT_GROUP_ERROR
from .._dask._groups import per_group, sensitive_table

# how the Dask helpers are told the table's shape: a DataFrame of attributes
FRAME_META = {"sensitive_features": ("frame", None)}


def groupings_of(summary, *, combine, min_group_size):
    """``[(name, codes, labels)]`` of the summary's distinct rows (see module).

    ``codes`` give each distinct row's group (-1: left out by
    ``min_group_size``, applied to the groups' numbers of samples); a
    grouping of fewer than two groups raises the in-memory error, with the
    numbers of samples, not of distinct rows.
    """
    check_min_group_size(min_group_size)
    counts = summary["arrays"]["count"][0]
    n_samples = int(counts.sum())
    sens = sensitive_table(summary["table"], FRAME_META, n_samples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        attributes = check_sensitive_features(sens)
    out = []
    for grouping in attributes.groupings(combine):
        codes = np.asarray(grouping.codes, dtype=np.intp)
        sizes = np.bincount(codes, weights=counts, minlength=grouping.n_groups)
        kept, labels = drop_small_groups(
            codes,
            grouping.labels,
            sizes,
            min_group_size,
            name=grouping.name,
            stacklevel=4,
        )
        out.append((grouping.name, kept, labels, sizes, len(grouping.labels)))
    for name, kept, labels, sizes, n_groups in out:
        _check_two_groups(name, kept, labels, sizes, n_groups, counts)
    return [(name, kept, labels) for name, kept, labels, *_ in out]


def _check_two_groups(name, kept, labels, sizes, n_groups, counts):
    """The in-memory errors of a grouping left with fewer than two groups."""
    if len(labels) >= 2:
        return
    if len(labels) < n_groups:  # min_group_size, not the data, left one group
        raise ValueError(
            TOO_FEW_GROUPS_LEFT_ERROR.format(
                name=name,
                n_groups=len(labels),
                labels=list(labels),
                n_left_out=int(counts[kept < 0].sum()),
            )
        )
    raise ValueError(
        TOO_FEW_GROUPS_ERROR.format(
            name=name,
            n_groups=len(labels),
            labels=list(labels),
            n_samples=int(sizes.sum()),
        )
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
