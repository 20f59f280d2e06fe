"""The one mechanism that turns sensitive attributes into encoded groups.

Two entry points, used by every part of skfair:

* :func:`check_sensitive_features` validates what metric functions receive as
  ``sensitive_features=`` (1-D array-like, 2-D array, Series or DataFrame) and
  encodes every attribute as integer codes.
* :func:`select_sensitive` / :func:`drop_sensitive` read (or remove) the
  columns named by an estimator's or scorer's ``sensitive=`` spec from ``X``
  (column names for a DataFrame, integer indices for an array).

Frames of any library reach them through the dataframe layer
(:mod:`skfair.utils._dataframe`); the encoding below reads pandas and NumPy.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._dataframe import (
    column_names,
    describe,
    drop_columns,
    select_columns,
    to_pandas,
)
from ._validation import check_same_length, same_label

NAN_SENSITIVE_ERROR = (
    "sensitive attribute {name!r} contains {count} missing value(s) (NaN/None), "
    "the first at position {first}; every sample needs a group. Drop or impute "
    "those rows, or encode missingness as its own group label."
)
SENSITIVE_NDIM_ERROR = (
    "sensitive_features must be 1-D (one attribute) or 2-D (one column per "
    "attribute); got an array of shape {shape}."
)
SENSITIVE_EMPTY_ERROR = "sensitive_features has no samples or no attribute columns."
TOO_FEW_GROUPS_ERROR = (
    "{name!r} defines {n_groups} group(s) ({labels}) in these {n_samples} "
    "samples; at least two groups are needed to compare them. This happens "
    "when a cross-validation fold holds a single group: use a stratified "
    "splitter on the sensitive attribute or fewer folds."
)
EMPTY_GROUP_ERROR = (
    "group(s) {labels} of the categorical attribute {name!r} have no samples "
    "here (e.g. in this cross-validation fold); a fairness comparison with an "
    "empty group is undefined. Use a splitter stratified on the attribute, or, "
    "if those categories are not groups, drop them (pandas: "
    ".cat.remove_unused_categories(); polars: cast the Enum to one of the "
    "categories present)."
)
COMBINE_ERROR = "combine must be 'intersection' or 'marginal'; got {combine!r}."
SPEC_TYPE_ERROR = (
    "sensitive must be a column name or list of names (DataFrame X), or an "
    "integer index or list of indices (array X); got {spec!r}."
)
SPEC_MISSING_COLUMN_ERROR = (
    "sensitive column(s) {missing} not found in X; X is {kind} with columns {columns}."
)
SPEC_NAME_ON_ARRAY_ERROR = (
    "sensitive={spec!r} names columns, but X is {kind}, which has no column "
    "names; pass integer column indices, or give X as a DataFrame (pandas, "
    "polars, ...)."
)
SPEC_INDEX_ERROR = (
    "sensitive column index {index} is out of range for X with {n_features} columns."
)
SPEC_EMPTY_ERROR = "sensitive must name at least one column; got an empty list."
SPEC_NONE_ERROR = (
    "No sensitive attribute given: pass sensitive= (column name(s) or index(es) of X)."
)
PRIVILEGED_UNKNOWN_ERROR = (
    "privileged={privileged!r} is not a group of {name!r}; its groups are "
    "{labels}. Pass one of them (a tuple of labels when several attributes "
    "are intersected), or None for the most frequent group."
)
PRIVILEGED_TYPE_ERROR = (
    "privileged must map every sensitive column to its privileged value (a "
    "dict), or be a single value when there is one sensitive column; got "
    "{privileged!r} for sensitive={sensitive!r}."
)
PRIVILEGED_KEYS_ERROR = (
    "privileged must give a value for exactly the sensitive columns "
    "{expected}; got keys {got}."
)
SPEC_SPARSE_ERROR = (
    "X is a sparse matrix; sensitive columns cannot be read from it. Pass X as "
    "a DataFrame or dense array."
)


# Groups smaller than this are named in a SmallGroupWarning (min_group_size=None).
SMALL_GROUP_SIZE = 30
# A numeric (non-categorical) attribute with more distinct values than this is
# taken for a continuous variable, as is any attribute whose groups average
# fewer than _MIN_MEAN_GROUP_SIZE samples once there are more than this many.
MAX_NUMERIC_GROUPS = 50
_MIN_MEAN_GROUP_SIZE = 5
SMALL_GROUP_WARNING = (
    "{name!r} has {n_small} group(s) with fewer than {threshold} samples: "
    "{groups}; a comparison of groups this small mostly "
    "measures sampling noise, and with agg='max' the smallest groups decide "
    "the value. Pass min_group_size=k to leave out groups with fewer than k "
    "samples, or min_group_size=1 to keep every group without this warning."
)
MIN_GROUP_SIZE_ERROR = "min_group_size must be None or an integer >= 1; got {value!r}."
CONTINUOUS_SENSITIVE_ERROR = (
    "sensitive attribute {name!r} looks continuous: {n_groups} distinct values "
    "in {n_samples} samples, and every distinct value would become its own "
    "group. Bin it into a few groups first, e.g. pd.cut(column, bins=[0, 25, "
    "45, 65, 150]) or pd.qcut(column, q=4); if these values really are groups, "
    "pass the column as a pandas categorical (column.astype('category'))."
)


class SmallGroupWarning(UserWarning):
    """A group is too small for a fairness comparison to mean much.

    Emitted when ``min_group_size=None`` (the default) and a group has fewer
    than :data:`SMALL_GROUP_SIZE` samples; the message names each such group
    and its size. Pass ``min_group_size=k`` to leave out groups with fewer
    than ``k`` samples instead (``min_group_size=1`` keeps every group
    silently).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always", SmallGroupWarning)
    ...     _ = sensitive_groupings(["a"] * 40 + ["b"] * 3)
    >>> print(str(caught[0].message).split(";")[0])
    'sensitive_features' has 1 group(s) with fewer than 30 samples: 'b' (3 samples)

    The warning also carries its facts, for a caller that words them its
    own way (skfair's command line): ``name`` (the attribute's),
    ``threshold`` and ``groups``, the ``(label, size)`` of every small group,
    smallest first (a label is a tuple for an intersection).
    """

    def __init__(self, message, *, name=None, threshold=None, groups=()):
        super().__init__(message)
        self.name, self.threshold, self.groups = name, threshold, tuple(groups)


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


@dataclass(frozen=True, eq=False)
class Grouping:
    """One partition of the samples into groups.

    Compared by identity (its arrays make value equality ambiguous).

    Attributes
    ----------
    name : str
        The attribute's name (``"a & b"`` for an intersection).
    codes : ndarray of shape (n_samples,), dtype intp
        Group index of every sample, in ``range(n_groups)``, or -1 for a
        sample of a group left out by ``min_group_size``.
    labels : tuple
        The label of each group, in code order; tuples for intersections.
    n_left_out : int, default=0
        Number of samples left out (code -1).
    """

    name: str
    codes: np.ndarray
    labels: tuple
    n_left_out: int = 0

    @property
    def n_groups(self):
        """Number of groups."""
        return len(self.labels)

    @property
    def kept(self):
        """Boolean mask of the samples that belong to a compared group."""
        return self.codes >= 0

    def restrict(self, values):
        """``values`` of the kept samples only (``values`` itself if all kept)."""
        return values if self.n_left_out == 0 else values[self.kept]

    def counts(self):
        """Number of samples in each group, in code order."""
        return np.bincount(self.restrict(self.codes), minlength=self.n_groups)

    def keep_at_least(self, min_size):
        """The grouping without the groups of fewer than ``min_size`` samples."""
        counts = self.counts()
        small = counts < min_size
        if not small.any():
            return self
        table = np.append(np.cumsum(~small) - 1, -1)  # code -1 stays -1
        table[:-1][small] = -1
        labels = tuple(label for label, s in zip(self.labels, small) if not s)
        left_out = self.n_left_out + int(counts[small].sum())
        return Grouping(self.name, table[self.codes], labels, left_out)


@dataclass(frozen=True, eq=False)
class SensitiveAttributes:
    """Validated, encoded sensitive attributes.

    Compared by identity (its arrays make value equality ambiguous).

    Attributes
    ----------
    names : tuple of str
        One name per attribute (DataFrame/Series names, else ``"attribute_k"``).
    codes : ndarray of shape (n_samples, n_attributes), dtype intp
        Integer code of every sample's label in each attribute.
    categories : tuple of tuple
        The observed labels of each attribute, in code order.
    """

    names: tuple
    codes: np.ndarray
    categories: tuple

    @property
    def n_samples(self):
        """Number of samples."""
        return self.codes.shape[0]

    @property
    def n_attributes(self):
        """Number of attributes."""
        return self.codes.shape[1]

    def attribute(self, k):
        """The :class:`Grouping` of attribute ``k`` alone."""
        return Grouping(self.names[k], self.codes[:, k], self.categories[k])

    def intersection(self):
        """The :class:`Grouping` by every combination of attributes."""
        if self.n_attributes == 1:
            return self.attribute(0)
        dims = tuple(len(c) for c in self.categories)
        flat = np.ravel_multi_index(tuple(self.codes.T), dims)
        codes, labels = _encode_integers(flat)
        parts = np.unravel_index(np.asarray(labels, dtype=np.intp), dims)
        labels = tuple(
            tuple(self.categories[k][parts[k][g]] for k in range(self.n_attributes))
            for g in range(len(labels))
        )
        return Grouping(" & ".join(self.names), codes, labels)

    def groupings(self, combine="intersection"):
        """Groupings to compare: the intersection, or each attribute (marginal).

        Parameters
        ----------
        combine : {"intersection", "marginal"}, default="intersection"
            How several attributes are combined.

        Returns
        -------
        groupings : list of Grouping
        """
        if combine == "intersection":
            return [self.intersection()]
        if combine == "marginal":
            return [self.attribute(k) for k in range(self.n_attributes)]
        raise ValueError(COMBINE_ERROR.format(combine=combine))


def _encode_integers(raw):
    """Encode bool/int labels in linear time (a lookup table, no sort)."""
    if raw.dtype.kind == "b":
        codes, labels = _encode_integers(raw.view(np.uint8))
        return codes, tuple(bool(label) for label in labels)
    low, high = int(raw.min()), int(raw.max())
    if high - low > 4 * raw.size + 1024:  # too sparse for a table
        uniques, codes = np.unique(raw, return_inverse=True)
        return codes.astype(np.intp).ravel(), tuple(uniques.tolist())
    shifted = (
        raw.astype(np.intp, copy=False) if low == 0 else (raw - low).astype(np.intp)
    )
    present = np.flatnonzero(np.bincount(shifted))
    if present.size == high - low + 1:  # labels are consecutive: codes = shifted
        return shifted, tuple(range(low, high + 1))
    table = np.zeros(high - low + 1, dtype=np.intp)
    table[present] = np.arange(present.size)
    return table[shifted], tuple((present + low).tolist())


def _encode_column(values, name):
    """Encode one attribute (a Series or an ndarray); refuse missing values.

    Labels are sorted (when orderable); a categorical's keep the category order.
    """
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
            codes, labels = _encode_integers(raw)
            check_continuous(name, kind, len(labels), codes.shape[0])
            return codes, labels
        if kind == "U":
            codes, uniques = _factorize_unicode(raw)
        else:
            codes, uniques = pd.factorize(raw)  # missing values get code -1
    _check_missing(codes < 0, name)
    codes, labels = _sort_labels(codes, uniques)
    check_continuous(name, kind, len(labels), codes.shape[0])
    return codes, labels


def _check_missing(missing, name):
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            NAN_SENSITIVE_ERROR.format(name=name, count=int(missing.sum()), first=first)
        )


def check_continuous(name, kind, n_groups, n_samples):
    """Refuse an attribute that looks continuous (see MAX_NUMERIC_GROUPS)."""
    many = n_groups > MAX_NUMERIC_GROUPS
    if many and (kind in "iuf" or n_groups * _MIN_MEAN_GROUP_SIZE > n_samples):
        raise ContinuousSensitiveError(
            CONTINUOUS_SENSITIVE_ERROR.format(
                name=name, n_groups=n_groups, n_samples=n_samples
            ),
            name=name,
            n_groups=n_groups,
            n_samples=n_samples,
        )


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
        categoricals. Missing values (NaN, None) are an error.
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
    ValueError
        On missing labels, a length mismatch, a wrong number of dimensions, a
        declared categorical group with no samples, or an attribute that looks
        continuous: more than ``MAX_NUMERIC_GROUPS = 50`` distinct values in a
        numeric column, or more than 50 groups averaging fewer than 5 samples
        in any column (a pandas categorical is never refused).

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


def check_at_least_two_groups(grouping):
    """Raise a clear ValueError if a grouping has fewer than two groups.

    Parameters
    ----------
    grouping : Grouping
        The grouping to check.

    Examples
    --------
    >>> g = check_sensitive_features([0, 1]).attribute(0)
    >>> check_at_least_two_groups(g)
    """
    if grouping.n_groups < 2:
        raise ValueError(
            TOO_FEW_GROUPS_ERROR.format(
                name=grouping.name,
                n_groups=grouping.n_groups,
                labels=list(grouping.labels),
                n_samples=grouping.codes.shape[0],
            )
        )


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
    groupings = [
        apply_min_group_size(g, min_group_size) for g in attributes.groupings(combine)
    ]
    for grouping in groupings:
        check_at_least_two_groups(grouping)
    return groupings


def check_min_group_size(min_group_size):
    """Raise a ValueError unless ``min_group_size`` is None or an int >= 1."""
    if min_group_size is not None and (
        isinstance(min_group_size, bool)
        or not isinstance(min_group_size, numbers.Integral)
        or min_group_size < 1
    ):
        raise ValueError(MIN_GROUP_SIZE_ERROR.format(value=min_group_size))


def apply_min_group_size(grouping, min_group_size):
    """Warn about small groups (None) or leave them out (an int), once.

    ``min_group_size`` is validated by the caller (:func:`check_min_group_size`).
    """
    if min_group_size is not None:
        return grouping.keep_at_least(min_group_size)
    warn_small_groups(grouping, grouping.counts(), stacklevel=5)
    return grouping


def warn_small_groups(grouping, counts, *, stacklevel=4):
    """Issue one SmallGroupWarning naming the groups under SMALL_GROUP_SIZE.

    ``counts`` holds each group's size (e.g. summed over Dask partitions).
    """
    small = np.flatnonzero(np.asarray(counts) < SMALL_GROUP_SIZE)
    if small.size == 0:
        return
    small = small[np.argsort(counts[small], kind="stable")]
    shown = ", ".join(
        f"{grouping.labels[k]!r} ({int(counts[k])} samples)" for k in small[:10]
    )
    if small.size > 10:
        shown += f", ... ({small.size - 10} more)"
    message = SMALL_GROUP_WARNING.format(
        name=grouping.name, n_small=small.size, threshold=SMALL_GROUP_SIZE, groups=shown
    )
    facts = [(grouping.labels[k], int(counts[k])) for k in small]
    warnings.warn(
        SmallGroupWarning(
            message, name=grouping.name, threshold=SMALL_GROUP_SIZE, groups=facts
        ),
        stacklevel=stacklevel,
    )


def resolve_privileged(privileged, grouping):
    """The code of the privileged group of ``grouping``.

    This is the one meaning of ``privileged`` in skfair: the label of the
    privileged group (a tuple of labels, one per attribute, for an
    intersection), compared with each group's label by value; every other
    group is unprivileged. ``None`` means the most frequent group (ties: the
    first in sorted label order); with two groups a symmetric gap does not
    depend on the choice.

    Parameters
    ----------
    privileged : object or None
        Label of the privileged group, or None.
    grouping : Grouping
        The groups.

    Returns
    -------
    code : int
        The privileged group's code in ``grouping``.

    Raises
    ------
    ValueError
        If ``privileged`` is not the label of a group of ``grouping``.

    Examples
    --------
    >>> g, = sensitive_groupings(["f", "m", "m"], min_group_size=1)
    >>> resolve_privileged("m", g), resolve_privileged(None, g)
    (1, 1)
    """
    if privileged is None:
        return int(np.argmax(grouping.counts()))
    for code, label in enumerate(grouping.labels):
        if same_label(label, privileged):
            return code
    raise ValueError(
        PRIVILEGED_UNKNOWN_ERROR.format(
            privileged=privileged, name=grouping.name, labels=list(grouping.labels)
        )
    )


def privileged_by_column(privileged, sensitive):
    """One privileged value per column named by an estimator's ``sensitive``.

    Parameters
    ----------
    privileged : dict, object or None
        ``{column: value}`` with a key for exactly the columns of
        ``sensitive`` (e.g. ``bunch.privileged`` of the bundled datasets), a
        single value when ``sensitive`` names one column, or None (each
        column's most frequent value, resolved later).
    sensitive : str, int or list of str or int
        The column spec.

    Returns
    -------
    values : list
        The privileged value of each column, in the order of ``sensitive``.

    Examples
    --------
    >>> privileged_by_column({"race": "w", "sex": "m"}, ["sex", "race"])
    ['m', 'w']
    """
    spec = check_sensitive_spec(sensitive)
    if privileged is None:
        return [None] * len(spec)
    if not isinstance(privileged, dict):
        if len(spec) != 1:
            raise TypeError(
                PRIVILEGED_TYPE_ERROR.format(privileged=privileged, sensitive=sensitive)
            )
        return [privileged]
    by_column = {_column_key(key): value for key, value in privileged.items()}
    wanted = [_column_key(item) for item in spec]
    if len(privileged) != len(spec) or set(by_column) != set(wanted):
        keys = list(privileged)
        raise ValueError(PRIVILEGED_KEYS_ERROR.format(expected=spec, got=keys))
    return [by_column[key] for key in wanted]


def _column_key(item):
    """A column name as is, an integer index as an int, anything else as None."""
    if isinstance(item, str):
        return item
    if isinstance(item, numbers.Integral) and not isinstance(item, bool):
        return int(item)
    return None


def check_sensitive_spec(sensitive):
    """An estimator's or scorer's ``sensitive=`` spec as a non-empty list.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        Column name(s) or integer index(es).

    Returns
    -------
    spec : list of str or int

    Raises
    ------
    ValueError
        For None or an empty list.
    TypeError
        For anything but names and integers (a bool is no column index).

    Examples
    --------
    >>> check_sensitive_spec("sex"), check_sensitive_spec(("sex", 2))
    (['sex'], ['sex', 2])
    """
    if sensitive is None:
        raise ValueError(SPEC_NONE_ERROR)
    if isinstance(sensitive, (str, numbers.Integral)) and not isinstance(
        sensitive, bool
    ):
        return [sensitive]
    if isinstance(sensitive, (list, tuple, np.ndarray, pd.Index)):
        spec = list(sensitive)
        if not spec:
            raise ValueError(SPEC_EMPTY_ERROR)
        for item in spec:
            if isinstance(item, bool) or not isinstance(item, (str, numbers.Integral)):
                raise TypeError(SPEC_TYPE_ERROR.format(spec=sensitive))
        return spec
    raise TypeError(SPEC_TYPE_ERROR.format(spec=sensitive))


def resolve_columns(X, sensitive):
    """The integer positions and the names of the columns ``sensitive`` names.

    The one column-name check of skfair: names are looked up in a dataframe
    of any library (pandas, polars, ...), integer indices in an array.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The data.
    sensitive : str, int or list of str or int
        Column name(s) (DataFrame ``X``) or integer index(es) (array ``X``).

    Returns
    -------
    positions : list of int
        The columns' positions in ``X``.
    names : list of str
        Their names: the DataFrame's, or ``"x<index>"`` for an array.

    Examples
    --------
    >>> import numpy as np
    >>> resolve_columns(np.zeros((2, 3)), [-1, 0])
    ([2, 0], ['x2', 'x0'])
    """
    spec = check_sensitive_spec(sensitive)
    columns = column_names(X)
    if columns is not None:
        missing = [s for s in spec if s not in columns]
        if missing:
            shown = columns if len(columns) <= 20 else columns[:20] + ["..."]
            raise ValueError(
                SPEC_MISSING_COLUMN_ERROR.format(
                    missing=missing, kind=describe(X, columns=False), columns=shown
                )
            )
        return [columns.index(s) for s in spec], [str(s) for s in spec]
    if hasattr(X, "tocsr") or hasattr(X, "sparse"):
        raise TypeError(SPEC_SPARSE_ERROR)
    shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
    if len(shape) != 2:
        raise ValueError(f"X must be 2-dimensional; got shape {tuple(shape)}.")
    n_features = shape[1]
    positions = []
    for item in spec:
        if isinstance(item, str):
            raise ValueError(
                SPEC_NAME_ON_ARRAY_ERROR.format(spec=sensitive, kind=describe(X))
            )
        if not -n_features <= item < n_features:
            raise IndexError(SPEC_INDEX_ERROR.format(index=item, n_features=n_features))
        positions.append(int(item) % n_features)
    return positions, [f"x{p}" for p in positions]


def columns_at(X, positions, names):
    """The columns of ``X`` at ``positions`` as a pandas DataFrame named ``names``.

    A dataframe of any library is converted column by column
    (:func:`~skfair.utils._dataframe.to_pandas`); a pandas ``X`` keeps its
    index. See :func:`select_sensitive`, which resolves a spec first.
    """
    if column_names(X) is not None:
        out = to_pandas(select_columns(X, positions)).copy()
        out.columns = list(names)
        return out
    array = X if hasattr(X, "shape") else np.asarray(X)
    return pd.DataFrame(
        {name: np.asarray(array[:, p]).ravel() for name, p in zip(names, positions)}
    )


def select_sensitive(X, sensitive):
    """Read the sensitive columns named by ``sensitive`` from ``X``.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The data an estimator or scorer receives: a pandas or polars
        DataFrame (or one of any library narwhals reads), or an array.
    sensitive : str, int or list of str or int
        Column name(s) (DataFrame ``X``) or integer index(es) (array ``X``).

    Returns
    -------
    columns : pandas DataFrame of shape (n_samples, n_sensitive)
        The sensitive columns, named after the DataFrame's columns or
        ``"x<index>"`` for arrays, with the index of a pandas ``X`` so that
        it pairs with ``y`` by index; pass it as ``sensitive_features``.
        Whatever the library of ``X``, the groups come back as pandas, like
        skfair's other tables (a polars ``Enum`` as a categorical).

    Examples
    --------
    >>> import numpy as np
    >>> select_sensitive(np.array([[0.5, 1], [0.2, 0]]), 1)
        x1
    0  1.0
    1  0.0
    """
    positions, names = resolve_columns(X, sensitive)
    return columns_at(X, positions, names)


def codes_as_groups(codes):
    """Integer group codes (``>= 0``) as a categorical Series of the groups present.

    For skfair's own calls of the public metrics on group codes: the
    resolver takes a categorical's categories as groups, whereas plain
    integer codes of more than ``MAX_NUMERIC_GROUPS`` groups would look like
    a continuous numeric attribute. Labels are the codes themselves.
    """
    present = np.flatnonzero(np.bincount(codes))
    table = np.zeros(present[-1] + 1, dtype=np.intp)
    table[present] = np.arange(present.size)
    return pd.Series(pd.Categorical.from_codes(table[codes], categories=present))


def drop_unused_categories(columns):
    """Drop the unused categories of ``columns``' categorical columns, in place.

    A categorical's unused categories are no groups: a subset of rows (a
    cross-validation fold) may miss some. Returns ``columns``.
    """
    for name in columns.columns:
        if isinstance(columns[name].dtype, pd.CategoricalDtype):
            columns[name] = columns[name].cat.remove_unused_categories()
    return columns


def drop_sensitive(X, sensitive):
    """Return ``X`` without the columns named by ``sensitive``.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The data.
    sensitive : str, int or list of str or int
        Column name(s) or index(es), as for :func:`select_sensitive`.

    Returns
    -------
    X_rest : DataFrame or ndarray
        ``X`` minus those columns, of the same kind (and dataframe library)
        as ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> drop_sensitive(np.array([[0.5, 1.0], [0.2, 0.0]]), 1)
    array([[0.5],
           [0.2]])
    """
    positions, _ = resolve_columns(X, sensitive)
    if column_names(X) is not None:
        return drop_columns(X, positions)
    return np.delete(np.asarray(X), positions, axis=1)
