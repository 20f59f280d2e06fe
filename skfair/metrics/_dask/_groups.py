"""Groups of Dask data: the in-memory resolver on the table of distinct rows.

Pass 1 returns one row per distinct sensitive row (and labels); the in-memory
resolver (:func:`skfair.utils.sensitive_groupings`) encodes that table, and
``min_group_size`` applies to the groups' numbers of samples, summed over the
partitions.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ...utils import SmallGroupWarning, sensitive_groupings
from ...utils._group_encoding import check_continuous
from ...utils._groups import (
    TOO_FEW_GROUPS_ERROR,
    check_min_group_size,
    drop_small_groups,
)
from ._inputs import LABEL_COLUMNS, start
from ._passes import summarise


def sensitive_table(table, meta, n_samples):
    """The distinct sensitive rows of a summary, shaped like the input.

    The resolver would count distinct rows, not samples, in its rule on the
    mean group size of a non-numeric attribute (more than 50 groups of fewer
    than 5 samples each look continuous): that rule is checked here on the
    ``n_samples`` of the data, and such columns go on as categoricals, which
    the resolver takes as they are. Its rule on numeric attributes does not
    depend on the counts. Columns carry the names the resolver gives them.
    """
    kind, extra = meta["sensitive_features"]
    sens = table.drop(columns=list(LABEL_COLUMNS), errors="ignore")
    for column in sens.columns:
        values = sens[column]
        if isinstance(values.dtype, pd.CategoricalDtype) or values.dtype.kind in "biuf":
            continue
        check_continuous(str(column), values.dtype.kind, values.nunique(), n_samples)
        sens[column] = values.astype("category")
    if kind == "series":
        return sens.iloc[:, 0].rename(extra)
    if kind == "array":
        return sens.iloc[:, 0].rename(None)
    return sens


def summary_groupings(summary, meta, *, combine, min_group_size):
    """Groupings of the distinct rows: ``(name, codes, labels)``, true group sizes.

    ``codes`` give each distinct row's group (-1: left out by
    ``min_group_size``, applied to the groups' numbers of samples).
    """
    check_min_group_size(min_group_size)
    counts = summary["arrays"]["count"][0]
    sens = sensitive_table(summary["table"], meta, int(counts.sum()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        groupings = sensitive_groupings(sens, combine=combine)
    out = []
    for g in groupings:
        codes = np.asarray(g.codes, dtype=np.intp)
        sizes = np.bincount(codes, weights=counts, minlength=g.n_groups)
        codes, labels = _apply_min_group_size(g, codes, sizes, min_group_size)
        out.append((g.name, codes, labels))
    return out


def _apply_min_group_size(grouping, codes, sizes, min_group_size):
    """``min_group_size`` on the true group sizes; at least two groups must stay."""
    codes, labels = drop_small_groups(
        codes,
        grouping.labels,
        sizes,
        min_group_size,
        name=grouping.name,
        stacklevel=5,
    )
    if len(labels) < 2:
        raise ValueError(
            TOO_FEW_GROUPS_ERROR.format(
                name=grouping.name,
                n_groups=len(labels),
                labels=list(labels),
                n_samples=int(sizes.sum()),
            )
        )
    return codes, labels


def per_group(array, codes, n_groups, how="add"):
    """Sum (or min) the per-row ``array`` into per-group rows."""
    kept = codes >= 0
    shape = (n_groups, *array.shape[1:])
    if how == "add":
        out = np.zeros(shape, dtype=array.dtype)
        np.add.at(out, codes[kept], array[kept])
    else:
        out = np.full(shape, np.inf)
        np.minimum.at(out, codes[kept], array[kept])
    return out


def dask_group_summary(y_true, y_score, sensitive_features, threshold):
    """Per distinct (sensitive row, label) of Dask data: counts, sums, decisions.

    One pass over the partitions (the Dask metric engines' scan).

    Parameters
    ----------
    y_true : Dask array or Series, or None
        Labels; with them the rows are the distinct (sensitive row, label)
        pairs.
    y_score : Dask array or Series
        Scores.
    sensitive_features : Dask array, Series or DataFrame
        Group labels, partitioned like ``y_score``.
    threshold : float
        Decisions are ``y_score >= threshold``.

    Returns
    -------
    summary : dict
        ``n`` (samples), ``low`` and ``high`` (extreme scores), and per
        distinct row ``count``, ``sum`` (of scores) and ``above`` (scores at
        least ``threshold``).
    sensitive : Series or DataFrame
        The distinct rows' group labels, shaped like ``sensitive_features``,
        for :func:`skfair.utils.check_sensitive_features`.
    labels : ndarray or None
        The distinct rows' labels (None without ``y_true``).
    """
    options = {"sensitive_features": sensitive_features}
    names, aligned, meta = start(y_true, y_score, options)
    spec = {"score": "y_score", "want": ("sum", "above"), "n_bins": 0}
    spec.update(threshold=threshold, labels=("y_true",))
    out = summarise(names, aligned, meta, spec)
    table = out["table"]
    arrays = out["arrays"]
    summary = {
        "n": out["n"],
        "low": out.get("low"),
        "high": out.get("high"),
        "count": arrays["count"][0].astype(np.float64),
        "sum": arrays["sum"][0],
        "above": arrays["above"][0],
    }
    labels = None if y_true is None else table[LABEL_COLUMNS[0]].to_numpy()
    return summary, sensitive_table(table, meta, out["n"]), labels
