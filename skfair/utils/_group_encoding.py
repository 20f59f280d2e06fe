"""Encoding: sensitive attributes given to a metric, as integer group codes.

:func:`check_sensitive_features` validates what metric functions receive as
``sensitive_features=`` (1-D array-like, 2-D array, Series or DataFrame) and
encodes every attribute as integer codes (a :class:`SensitiveAttributes`);
:func:`sensitive_groupings` turns them into the groupings to compare. Frames
of any library reach it through the dataframe layer (``_dataframe.py``); the
encoding below reads pandas and NumPy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._dataframe import to_pandas
from ._groups import (
    SMALL_GROUP_SIZE,
    SensitiveAttributes,
    apply_min_group_size,
    check_at_least_two_groups,
    check_min_group_size,
    encode_integers,
)
from ._validation import check_same_length

NAN_SENSITIVE_ERROR = (
    "sensitive attribute {name!r} contains {count} missing value(s) (NaN/None), "
    "the first at position {first}; every sample needs a group. Drop or impute "
    "those rows, or encode missingness as its own group label."
)
SENSITIVE_NDIM_ERROR = (
    "sensitive_features must be 1-D (one attribute) or 2-D (one column per "
    "attribute); got an array of shape {shape}."
)
UNHASHABLE_LABEL_ERROR = (
    "sensitive attribute {name!r} has dtype {dtype}; a group label must be a "
    "single hashable value (a string, number, bool or category). Turn each "
    "sample's value into one label first (e.g. join a list's items into a "
    "string), or pass the parts as separate columns."
)
SENSITIVE_EMPTY_ERROR = "sensitive_features has no samples or no attribute columns."
EMPTY_GROUP_ERROR = (
    "group(s) {labels} of the categorical attribute {name!r} have no samples "
    "here (e.g. in this cross-validation fold); a fairness comparison with an "
    "empty group is undefined. Use a splitter stratified on the attribute, or, "
    "if those categories are not groups, drop them (pandas: "
    ".cat.remove_unused_categories(); polars: cast the Enum to one of the "
    "categories present)."
)

# When an attribute that is not declared categorical looks continuous (a
# measurement or an identifier rather than groups): see check_continuous.
# Up to MAX_NUMERIC_GROUPS distinct values are always groups. Beyond that, a
# numeric column is read as group codes (region, country or category codes)
# only when its values are whole numbers, at most MAX_CODED_GROUPS of them,
# each with at least MIN_CODED_GROUP_SIZE samples (no group would get a
# SmallGroupWarning); any other column only when its groups average at least
# _MIN_MEAN_GROUP_SIZE samples.
MAX_NUMERIC_GROUPS = 50
MAX_CODED_GROUPS = 1000
MIN_CODED_GROUP_SIZE = SMALL_GROUP_SIZE
_MIN_MEAN_GROUP_SIZE = 5
CONTINUOUS_SENSITIVE_ERROR = (
    "sensitive attribute {name!r} looks continuous: {n_groups} distinct values "
    "in {n_samples} samples ({reason}), and every distinct value would become "
    "its own group. Bin it into a few groups first, e.g. pd.cut(column, "
    "bins=[0, 25, 45, 65, 150]) or pd.qcut(column, q=4). If these values "
    "really are groups, declare them as categories, which are groups however "
    "many: column.astype('category') in pandas, "
    "column.cast(pl.String).cast(pl.Categorical) in polars."
)
# The {reason} of CONTINUOUS_SENSITIVE_ERROR.
CODED_RULE = (
    f"more than {MAX_NUMERIC_GROUPS} numeric values are read as group codes "
    f"only when they are whole numbers, at most {MAX_CODED_GROUPS}, each with "
    f"at least {MIN_CODED_GROUP_SIZE} samples"
)
NOT_WHOLE_REASON = CODED_RULE + "; these are not all whole numbers"
TOO_MANY_CODES_REASON = CODED_RULE + "; there are more than {limit}"
RARE_CODE_REASON = CODED_RULE + "; the value {label!r} has {size}"
UNCOUNTED_REASON = (
    f"more than {MAX_NUMERIC_GROUPS} numeric values; their counts are not read "
    "on Dask collections, so no such column is taken for group codes there"
)
TINY_GROUPS_REASON = (
    f"more than {MAX_NUMERIC_GROUPS} labels with fewer than "
    f"{_MIN_MEAN_GROUP_SIZE} samples each on average"
)


class ContinuousSensitiveError(ValueError):
    """A sensitive attribute looks continuous (:data:`CONTINUOUS_SENSITIVE_ERROR`).

    A ``ValueError`` that carries its facts, for a caller that words them
    its own way (skfair's command line names its ``--bins`` option):
    ``name``, ``n_groups`` (distinct values) and ``n_samples``.

    Examples
    --------
    >>> try:
    ...     check_sensitive_features(np.arange(100.0))
    ... except ContinuousSensitiveError as error:
    ...     print(error.name, error.n_groups, error.n_samples)
    sensitive_features 100 100
    """

    def __init__(self, message, *, name=None, n_groups=None, n_samples=None):
        super().__init__(message)
        self.name, self.n_groups, self.n_samples = name, n_groups, n_samples


def _encode_column(values, name):
    """Encode one attribute (a Series or an ndarray); refuse missing values.

    Labels are sorted (when orderable); a categorical's keep the category order.
    """
    try:
        return _encode_labels(values, name)
    except TypeError as error:  # unhashable labels (lists, dicts, arrays)
        if "unhashable" not in str(error) and "not hashable" not in str(error):
            raise
        raise TypeError(
            UNHASHABLE_LABEL_ERROR.format(name=name, dtype=_dtype_text(values))
        ) from None


def _dtype_text(values):
    """The dtype of a column of unhashable labels, with its first label's type."""
    first = next(iter(values), None)
    return f"{values.dtype} (a {type(first).__name__} per sample)"


def _encode_labels(values, name):
    """:func:`_encode_column` without the unhashable-label message."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes, labels = values.cat.codes.to_numpy(), values.cat.categories
        _check_missing(codes < 0, name)
        present = np.bincount(codes, minlength=len(labels)) > 0
        if not present.all():
            absent = [labels[i] for i in np.flatnonzero(~present)]
            raise ValueError(EMPTY_GROUP_ERROR.format(labels=absent, name=name))
        return codes.astype(np.intp), tuple(labels.tolist())
    if getattr(values.dtype, "storage", "") == "pyarrow":
        kind = values.dtype.kind
        codes, uniques = pd.factorize(values.array)  # Arrow's dictionary encoding
    else:
        raw = np.asarray(values)
        kind = raw.dtype.kind
        if kind in "biu":  # sorted labels, no missing values
            codes, labels = encode_integers(raw)
            _check_levels(name, kind, codes, labels)
            return codes, labels
        if kind == "U":
            codes, uniques = _factorize_unicode(raw)
        else:
            codes, uniques = pd.factorize(raw)  # missing values get code -1
    _check_missing(codes < 0, name)
    codes, labels = _sort_labels(codes, uniques)
    _check_levels(name, kind, codes, labels)
    return codes, labels


def _check_missing(missing, name):
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            NAN_SENSITIVE_ERROR.format(name=name, count=int(missing.sum()), first=first)
        )


def _check_levels(name, kind, codes, labels):
    """:func:`check_continuous` on encoded labels, with their counts."""
    sizes = None
    if kind in "iuf" and len(labels) > MAX_NUMERIC_GROUPS:
        sizes = np.bincount(codes, minlength=len(labels))
    check_continuous(
        name, kind, len(labels), codes.shape[0], sizes=sizes, labels=labels
    )


def check_continuous(name, kind, n_groups, n_samples, *, sizes=None, labels=None):
    """Refuse an attribute that looks continuous (a measurement, not groups).

    Up to :data:`MAX_NUMERIC_GROUPS` (50) distinct values are groups. Beyond
    that, a numeric column (``kind`` in ``"iuf"``) is read as group codes --
    region, country or category codes -- only when its values are whole
    numbers, at most :data:`MAX_CODED_GROUPS` (1000) of them, each with at
    least :data:`MIN_CODED_GROUP_SIZE` (30) samples: 100 region codes in a
    million rows are groups, whereas incomes, ages in years with a few rare
    ages, or thousands of distinct numbers are refused. Any other column is
    refused when its groups average fewer than 5 samples (one per person).
    A declared categorical is never refused (callers do not call this).

    Parameters
    ----------
    name : str
        The attribute's name, for the message.
    kind : str
        The NumPy dtype kind of its values (``"O"`` for labels of any type).
    n_groups, n_samples : int
        Distinct values and samples.
    sizes : ndarray of int or None, default=None
        The samples of each distinct value, in the order of ``labels``;
        None when they were not counted (then a numeric column of more than
        50 values is refused, the rule before the counts were read).
    labels : sequence or None, default=None
        The distinct values, when ``sizes`` is given.

    Raises
    ------
    ContinuousSensitiveError
        With :data:`CONTINUOUS_SENSITIVE_ERROR`, whose reason says which
        part of the rule the column breaks.
    """
    if n_groups <= MAX_NUMERIC_GROUPS:
        return
    if kind in "iuf":
        reason = _coded_reason(kind, n_groups, sizes, labels)
    elif n_groups * _MIN_MEAN_GROUP_SIZE > n_samples:
        reason = TINY_GROUPS_REASON
    else:
        reason = None
    if reason is not None:
        raise ContinuousSensitiveError(
            CONTINUOUS_SENSITIVE_ERROR.format(
                name=name, n_groups=n_groups, n_samples=n_samples, reason=reason
            ),
            name=name,
            n_groups=n_groups,
            n_samples=n_samples,
        )


def _coded_reason(kind, n_groups, sizes, labels):
    """Why numeric values are no group codes (None if they are)."""
    if sizes is None:
        return UNCOUNTED_REASON
    if kind == "f":
        values = np.asarray(labels, dtype=float)
        if not (np.isfinite(values).all() and (values == np.round(values)).all()):
            return NOT_WHOLE_REASON
    if n_groups > MAX_CODED_GROUPS:
        return TOO_MANY_CODES_REASON.format(limit=MAX_CODED_GROUPS)
    rarest = int(np.argmin(sizes))
    if sizes[rarest] < MIN_CODED_GROUP_SIZE:
        return RARE_CODE_REASON.format(label=labels[rarest], size=int(sizes[rarest]))
    return None


def _sort_labels(codes, uniques):
    """Renumber codes so that the labels are sorted (when they are orderable)."""
    uniques = [u.item() if isinstance(u, np.generic) else u for u in uniques]
    identity = list(range(len(uniques)))
    try:
        order = sorted(identity, key=uniques.__getitem__)
    except TypeError:  # labels of mixed, unorderable types: first-seen order
        order = identity
    labels = tuple(uniques[k] for k in order)
    if order == identity:
        return codes.astype(np.intp, copy=False), labels
    rank = np.empty(len(uniques), dtype=np.intp)
    rank[order] = np.arange(len(uniques))
    return rank[codes], labels


def _factorize_unicode(raw):
    """Factorise a NumPy unicode array without an object copy.

    Each fixed-width string is read as its UTF-32 code units. When they fit
    (e.g. ASCII strings of up to 9 characters), they are packed exactly into
    one uint64 per string; otherwise they are hashed into one, and a
    vectorised comparison with each code's first string rules out collisions
    (if any, pandas' factorisation of the strings is used instead). Either
    way the integers are factorised in one linear pass.
    """
    raw = np.ascontiguousarray(raw)
    width = raw.dtype.itemsize // 4
    if width == 0:
        return np.zeros(raw.shape[0], dtype=np.intp), [""]
    units = raw.view(np.uint32).reshape(-1, width)
    bits = max(int(units.max()).bit_length(), 1)
    exact = bits * width <= 64
    keys = units[:, 0].astype(np.uint64)
    for k in range(1, width):
        if exact:  # shift the next code unit in
            keys <<= np.uint64(bits)
            keys |= units[:, k]
        else:  # multiplicative hash
            keys *= np.uint64(0x9E3779B97F4A7C15)
            keys ^= units[:, k]
    codes, packed = pd.factorize(keys)
    if exact:  # unpack the labels from their keys
        shifts = np.arange(width - 1, -1, -1, dtype=np.uint64) * np.uint64(bits)
        mask = np.uint64((1 << bits) - 1)
        unpacked = (packed[:, None] >> shifts) & mask
        uniques = unpacked.astype(np.uint32).view(raw.dtype).ravel()
        return codes, uniques.tolist()
    first = np.empty(packed.shape[0], dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.shape[0] - 1, -1, -1)
    uniques = raw[first]
    if not np.array_equal(uniques[codes], raw):  # a hash collision
        return pd.factorize(raw.astype(object))
    return codes, uniques.tolist()


def check_sensitive_features(
    sensitive_features, *, n_samples=None, against="the scores"
):
    """Validate and encode sensitive attributes given to a metric.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        One attribute (list, 1-D array, Series) or several (2-D array,
        DataFrame). Labels may be any hashable values: ints, bools, strings,
        categoricals. Missing values (NaN, None) are an error. A categorical
        (a pandas Categorical, alone or in a Series or DataFrame, or a polars
        Enum) declares its groups: its categories, in their order.
    n_samples : int or None, default=None
        Expected number of samples; a mismatch raises a ValueError naming both.
    against : str, default="the scores"
        What ``n_samples`` was taken from, named in the mismatch message.

    Returns
    -------
    attributes : SensitiveAttributes
        Integer codes per attribute and their labels.

    Raises
    ------
    TypeError
        For labels that are no single hashable value (lists, dicts, structs).
    ValueError
        On missing labels, a length mismatch, a wrong number of dimensions, a
        declared categorical group with no samples, or an attribute that looks
        continuous (:class:`ContinuousSensitiveError`): more than 50 distinct
        values in a numeric column, unless they are whole numbers, at most
        1000 of them, each with at least 30 samples (group codes); or more
        than 50 groups averaging fewer than 5 samples in any other column. A
        declared categorical (pandas Categorical, polars Categorical or Enum)
        is never refused.

    Examples
    --------
    >>> attrs = check_sensitive_features(["f", "m", "m", "f"])
    >>> attrs.codes[:, 0].tolist(), attrs.categories
    ([0, 1, 1, 0], (('f', 'm'),))
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f", "m", "m"], "race": ["a", "a", "b"]})
    >>> check_sensitive_features(df).intersection().labels
    (('f', 'a'), ('m', 'a'), ('m', 'b'))
    """
    columns, names = _attribute_columns(sensitive_features)
    if not columns or len(columns[0]) == 0:
        raise ValueError(SENSITIVE_EMPTY_ERROR)
    if n_samples is not None:
        check_same_length(
            columns[0], n_samples, first_name="sensitive_features", second_name=against
        )
    encoded = [_encode_column(col, name) for col, name in zip(columns, names)]
    if len(encoded) == 1:
        codes = encoded[0][0].reshape(-1, 1)
    else:
        codes = np.column_stack([c for c, _ in encoded]).astype(np.intp)
    return SensitiveAttributes(tuple(names), codes, tuple(lab for _, lab in encoded))


def _attribute_columns(sensitive_features):
    """``sensitive_features`` as a list of columns (Series or 1-D arrays), and names.

    A bare pandas Categorical is read as the Series it would make: its
    categories are its groups, in their order, all of them declared.
    """
    if isinstance(sensitive_features, (pd.Categorical, pd.CategoricalIndex)):
        sensitive_features = pd.Series(
            pd.Categorical(sensitive_features),
            name=getattr(sensitive_features, "name", None),
        )
    sensitive_features = to_pandas(sensitive_features, what="sensitive_features")
    if isinstance(sensitive_features, pd.DataFrame):
        columns = [
            sensitive_features.iloc[:, k] for k in range(sensitive_features.shape[1])
        ]
        names = [str(c) for c in sensitive_features.columns]
    elif isinstance(sensitive_features, pd.Series):
        columns = [sensitive_features]
        name = sensitive_features.name
        names = [str(name) if name is not None else "sensitive_features"]
    else:
        array = np.asarray(sensitive_features)
        if array.dtype.kind in "US" and not isinstance(sensitive_features, np.ndarray):
            # a list mixing strings with None/NaN: keep the missing values
            array = np.asarray(sensitive_features, dtype=object)
        if array.ndim == 1:
            array = array.reshape(-1, 1)
        if array.ndim != 2:
            raise ValueError(SENSITIVE_NDIM_ERROR.format(shape=array.shape))
        columns = [array[:, k] for k in range(array.shape[1])]
        names = (
            ["sensitive_features"]
            if array.shape[1] == 1
            else [f"attribute_{k}" for k in range(array.shape[1])]
        )
    return columns, names


def sensitive_groupings(
    sensitive_features,
    *,
    n_samples=None,
    combine="intersection",
    against="the scores",
    min_group_size=None,
):
    """Encode ``sensitive_features`` and return the groupings to compare.

    Each returned grouping has at least two groups, or a ValueError is raised.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        See :func:`check_sensitive_features`.
    n_samples : int or None, default=None
        Expected number of samples.
    combine : {"intersection", "marginal"}, default="intersection"
        With several attributes: one grouping by their intersection, or one
        grouping per attribute.
    against : str, default="the scores"
        What ``n_samples`` was taken from, named in a mismatch message.
    min_group_size : int or None, default=None
        None keeps every group and emits a :class:`SmallGroupWarning` naming
        each group with fewer than :data:`SMALL_GROUP_SIZE` samples; an int
        ``k >= 1`` silently leaves out the groups with fewer than ``k``
        samples (their samples get code -1, see :attr:`Grouping.kept`).

    Returns
    -------
    groupings : list of Grouping

    Warns
    -----
    SmallGroupWarning
        With ``min_group_size=None``, for groups of fewer than 30 samples.

    Examples
    --------
    >>> [g.name for g in sensitive_groupings([[0, 1], [1, 0], [0, 0]],
    ...                                      combine="marginal")]
    ['attribute_0', 'attribute_1']
    >>> g, = sensitive_groupings(["a"] * 40 + ["b"] * 30 + ["c"] * 2,
    ...                          min_group_size=30)
    >>> g.labels, g.codes[-3:].tolist(), int(g.kept.sum())
    (('a', 'b'), [1, -1, -1], 70)
    """
    check_min_group_size(min_group_size)
    attributes = check_sensitive_features(
        sensitive_features, n_samples=n_samples, against=against
    )
    # A loop, not a list comprehension: before Python 3.12 a comprehension is
    # a frame of its own, and the small-group warning would point one frame
    # short of the user's line.
    groupings = []
    for grouping in attributes.groupings(combine):
        groupings.append(apply_min_group_size(grouping, min_group_size))
    for grouping in groupings:
        check_at_least_two_groups(grouping)
    return groupings


def drop_unused_categories(columns):
    """Drop the unused categories of ``columns``' categorical columns, in place.

    A categorical's unused categories are no groups: a subset of rows (a
    cross-validation fold) may miss some. Returns ``columns``.
    """
    for name in columns.columns:
        if isinstance(columns[name].dtype, pd.CategoricalDtype):
            columns[name] = columns[name].cat.remove_unused_categories()
    return columns
