"""Groups: the samples' partition by the sensitive attributes, and its rules.

:class:`SensitiveAttributes` holds the encoded attributes (made by
:func:`~skfair.utils.check_sensitive_features`, in ``_group_encoding.py``);
each :class:`Grouping` is one partition to compare. Here too are the rules
every part of skfair applies to groups: at least two of them
(:func:`check_at_least_two_groups`), ``min_group_size`` (leave out the small
groups, or warn about them: :func:`drop_small_groups`), and which group is
privileged (:func:`resolve_privileged`).
"""

from __future__ import annotations

import functools
import numbers
import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import same_label

TOO_FEW_GROUPS_ERROR = (
    "{name!r} defines {n_groups} group(s) ({labels}) in these {n_samples} "
    "samples; at least two groups are needed to compare them. This happens "
    "when a cross-validation fold holds a single group: use a stratified "
    "splitter on the sensitive attribute or fewer folds."
)
TOO_FEW_GROUPS_LEFT_ERROR = (
    "{name!r} defines {n_groups} group(s) ({labels}) once min_group_size has "
    "left out the smaller groups ({n_left_out} samples); at least two groups "
    "are needed to compare them. Lower min_group_size, or pass None to keep "
    "every group (with a SmallGroupWarning about the small ones)."
)
COMBINE_ERROR = "combine must be 'intersection' or 'marginal'; got {combine!r}."
PRIVILEGED_UNKNOWN_ERROR = (
    "privileged={privileged!r} is not a group of {name!r}; its groups are "
    "{labels}. Pass one of them (a tuple of labels when several attributes "
    "are intersected), or None for the most frequent group."
)


# Groups smaller than this are named in a SmallGroupWarning (min_group_size=None).
SMALL_GROUP_SIZE = 30
SMALL_GROUP_WARNING = (
    "{name!r} has {n_small} group(s) with fewer than {threshold} samples: "
    "{groups}; a comparison of groups this small mostly "
    "measures sampling noise, and with agg='max' the smallest groups decide "
    "the value. Pass min_group_size=k to leave out groups with fewer than k "
    "samples, or min_group_size=1 to keep every group without this warning."
)
MIN_GROUP_SIZE_ERROR = "min_group_size must be None or an integer >= 1; got {value!r}."


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
    >>> from skfair.utils import sensitive_groupings
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
        keep = counts >= min_size
        if keep.all():
            return self
        codes, labels = _keep_groups(self.codes, self.labels, keep)
        left_out = self.n_left_out + int(counts[~keep].sum())
        return Grouping(self.name, codes, labels, left_out)


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
        codes, labels = encode_integers(flat)
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


def encode_integers(raw):
    """Encode bool/int labels in linear time (a lookup table, no sort)."""
    if raw.dtype.kind == "b":
        codes, labels = encode_integers(raw.view(np.uint8))
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


def check_at_least_two_groups(grouping):
    """Raise a clear ValueError if a grouping has fewer than two groups.

    Parameters
    ----------
    grouping : Grouping
        The grouping to check.

    Examples
    --------
    >>> from skfair.utils import check_sensitive_features
    >>> g = check_sensitive_features([0, 1]).attribute(0)
    >>> check_at_least_two_groups(g)
    """
    if grouping.n_groups < 2:
        if grouping.n_left_out:  # min_group_size, not the data, left one group
            raise ValueError(
                TOO_FEW_GROUPS_LEFT_ERROR.format(
                    name=grouping.name,
                    n_groups=grouping.n_groups,
                    labels=list(grouping.labels),
                    n_left_out=grouping.n_left_out,
                )
            )
        raise ValueError(
            TOO_FEW_GROUPS_ERROR.format(
                name=grouping.name,
                n_groups=grouping.n_groups,
                labels=list(grouping.labels),
                n_samples=grouping.codes.shape[0],
            )
        )


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
    The warning points at the caller's caller's caller: the user's call of a
    public metric that calls :func:`~skfair.utils.sensitive_groupings`.
    """
    if min_group_size is not None:
        return grouping.keep_at_least(min_group_size)
    _warn_small(grouping.name, grouping.labels, grouping.counts(), stacklevel=4)
    return grouping


def drop_small_groups(
    codes, labels, counts, min_group_size, *, name="sensitive_features", stacklevel=1
):
    """Apply ``min_group_size`` to groups given by their codes, labels and sizes.

    The one rule of ``min_group_size`` in skfair: None keeps every group and
    issues one :class:`SmallGroupWarning` naming the groups of fewer than
    :data:`SMALL_GROUP_SIZE` samples; an integer ``k`` silently leaves out
    the groups of fewer than ``k`` samples. For callers whose group sizes
    are not the counts of ``codes`` (rows weighted by their multiplicity,
    sizes summed over Dask partitions); :meth:`Grouping.keep_at_least` and
    :func:`~skfair.utils.sensitive_groupings` apply the same rule.

    Parameters
    ----------
    codes : array-like of int of shape (n,)
        Group code of each sample (or distinct row), in ``range(len(labels))``,
        or -1 for one already left out.
    labels : sequence
        The label of each group, in code order.
    counts : array-like of shape (len(labels),)
        The size of each group.
    min_group_size : int or None
        None, or an integer ``>= 1`` (:func:`check_min_group_size` checks it).
    name : str, default="sensitive_features"
        The attribute's name, for the warning.
    stacklevel : int, default=1
        Where the warning points, counted as by :func:`warnings.warn` from the
        caller: 1 is the line that calls this function, 2 its caller's, ...

    Returns
    -------
    codes : ndarray of shape (n,), dtype intp
        The codes renumbered over the kept groups; -1 for a left-out sample.
    labels : tuple
        The labels of the kept groups, in code order (``codes >= 0`` is the
        mask of the kept samples).

    Warns
    -----
    SmallGroupWarning
        With ``min_group_size=None``, once, if a group is under 30 samples.

    Examples
    --------
    >>> codes, labels = drop_small_groups([0, 1, 2, 1], ["a", "b", "c"],
    ...                                   [40, 50, 3], min_group_size=30)
    >>> codes.tolist(), labels
    ([0, 1, -1, 1], ('a', 'b'))
    """
    codes, labels = np.asarray(codes, dtype=np.intp), tuple(labels)
    counts = np.asarray(counts)
    if min_group_size is None:
        _warn_small(name, labels, counts, stacklevel=stacklevel + 1)
        return codes, labels
    return _keep_groups(codes, labels, counts >= min_group_size)


def _keep_groups(codes, labels, keep):
    """``codes`` and ``labels`` of the groups where ``keep``; -1 for the rest."""
    if keep.all():
        return codes, tuple(labels)
    table = np.append(np.cumsum(keep) - 1, -1)  # code -1 stays -1
    table[:-1][~keep] = -1
    return table[codes], tuple(label for label, k in zip(labels, keep) if k)


def _warn_small(name, labels, counts, *, stacklevel):
    """Issue one SmallGroupWarning naming the groups under SMALL_GROUP_SIZE.

    ``stacklevel=1`` points at the line that calls this function.
    """
    counts = np.asarray(counts)
    small = np.flatnonzero(counts < SMALL_GROUP_SIZE)
    if small.size == 0:
        return
    small = small[np.argsort(counts[small], kind="stable")]
    shown = ", ".join(f"{labels[k]!r} ({int(counts[k])} samples)" for k in small[:10])
    if small.size > 10:
        shown += f", ... ({small.size - 10} more)"
    message = SMALL_GROUP_WARNING.format(
        name=name, n_small=small.size, threshold=SMALL_GROUP_SIZE, groups=shown
    )
    facts = [(labels[k], int(counts[k])) for k in small]
    warnings.warn(
        SmallGroupWarning(message, name=name, threshold=SMALL_GROUP_SIZE, groups=facts),
        stacklevel=max(stacklevel + 1, user_stacklevel()),
    )


# with the separator: a user's "skfair_demo/x.py" beside the package is not in it
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel():
    """The ``stacklevel`` of :func:`warnings.warn` that points out of skfair.

    Counted from the caller of this function: the first frame whose file is
    not inside the skfair package (the user's line, or the library that
    called skfair, e.g. a scikit-learn scorer), whatever the depth of
    skfair's own calls. A fixed ``stacklevel`` cannot do this: the depth
    differs from metric to metric, and before Python 3.12 every list
    comprehension is a frame of its own. The frame of scikit-learn's
    ``_fit_context`` wrapper of an skfair estimator's ``fit`` counts as
    skfair's: the warning points at the user's ``fit`` call.
    """
    frame = sys._getframe(1)
    level = 1
    wrapper = _fit_wrapper_code()
    while frame is not None and (
        frame.f_code.co_filename.startswith(_PACKAGE_DIR) or frame.f_code is wrapper
    ):
        frame = frame.f_back
        level += 1
    return level


@functools.cache
def _fit_wrapper_code():
    """The code object of the wrapper that ``_fit_context`` puts around a fit."""
    from sklearn.base import (  # skfair.utils is light: imported when needed
        _fit_context,  # no public equivalent: skfair's estimators are wrapped by it
    )

    return _fit_context(prefer_skip_nested_validation=True)(lambda self: None).__code__


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
    >>> from skfair.utils import sensitive_groupings
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
