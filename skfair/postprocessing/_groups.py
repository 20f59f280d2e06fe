"""Which quantile table each row of ``X`` uses: its group's, the pooled one, none.

The groups are the intersection of the sensitive columns. A group left out at
fit by ``min_group_size`` is mapped through the pooled table; a group unseen
at fit raises, is pooled or is left unrepaired, as ``unseen_group`` says.
"""

from __future__ import annotations

import numpy as np

from ..utils import check_sensitive_features, sensitive_groupings

UNSEEN_GROUP_ERROR = (
    "X contains {count} sample(s) of group(s) {labels} of {name!r} that were "
    "not seen during fit; the groups seen during fit are {known}. Fit on data "
    "that holds every group, or set unseen_group='pooled' (map them through "
    "the pooled score distribution) or unseen_group='identity' (leave their "
    "scores unrepaired)."
)


def fit_groups(columns, *, min_group_size):
    """The fit data's groups and the labels of those ``min_group_size`` left out.

    Through :func:`~skfair.utils.sensitive_groupings` (two groups at least,
    ``min_group_size``, small-group warning).

    Parameters
    ----------
    columns : DataFrame
        The sensitive columns, unused categories dropped.
    min_group_size : int or None
        Groups of fewer samples are left out.

    Returns
    -------
    grouping : Grouping
        The kept groups' codes (-1 for a left-out sample).
    left_out : list
        The labels of the groups left out.
    """
    (grouping,) = sensitive_groupings(columns, min_group_size=min_group_size)
    left_out = columns[~grouping.kept]
    labels = (
        list(check_sensitive_features(left_out).intersection().labels)
        if len(left_out)
        else []
    )
    return grouping, labels


def table_indices(grouping, *, groups, left_out_groups, unseen_group, name):
    """Each row's table: its group's, the pooled one's, or -1 (unrepaired).

    Parameters
    ----------
    grouping : Grouping
        The groups of the rows to map.
    groups : list
        The labels of the groups with a table, in table order; the pooled
        table comes after them.
    left_out_groups : list
        The labels of the groups mapped through the pooled table.
    unseen_group : {"error", "pooled", "identity"}
        What to do with the other groups.
    name : str
        The sensitive attribute's name, for the error message.

    Returns
    -------
    index : ndarray of int of shape (n_samples,)

    Raises
    ------
    ValueError
        :data:`UNSEEN_GROUP_ERROR`, for an unseen group with
        ``unseen_group="error"``.
    """
    pooled = len(groups)  # the pooled table's index
    index = dict.fromkeys(left_out_groups, pooled)
    index.update({label: k for k, label in enumerate(groups)})
    fit_codes = np.array([index.get(lab, -1) for lab in grouping.labels])
    codes = fit_codes[grouping.codes]
    unseen = codes < 0
    if unseen.any() and unseen_group == "error":
        labels = [lab for lab, c in zip(grouping.labels, fit_codes) if c < 0]
        raise ValueError(
            UNSEEN_GROUP_ERROR.format(
                count=int(unseen.sum()), labels=labels, name=name, known=groups
            )
        )
    if unseen_group == "pooled":
        codes = np.where(unseen, pooled, codes)
    return codes
