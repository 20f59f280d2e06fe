"""HFM: the harmonic fairness measure via manifolds (Bian et al., 2024).

Every sample is a point ``z = [label, non-sensitive features]``; a sensitive
attribute splits the points into groups, and HFM compares how far apart the
groups lie when the label is the true one (the data's own bias, ``D``) and
when it is the model's prediction (``D_f``). All distances are Euclidean;
:func:`hfm_distances` defines them (Eqs. 1, 4-7) and :func:`hfm` the degrees
that compare ``D_f`` with ``D`` (Eq. 8).

This module holds the public functions; the exact engine (nearest point of
another group) and the paper's approximation algorithms (AcceleDist,
ApproxDist) are kernels of :mod:`skfair.metrics._kernels`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_random_state

from ..utils import sensitive_groupings
from ..utils._dataframe import is_dataframe, non_numeric_columns, numeric_array
from ..utils._validation import (
    check_hard_labels,
    check_same_index,
    check_same_length,
    column_1d,
)
from ._kernels import nearest_other_group, projected_other_group_distances

METHOD_ERROR = "method must be 'exact' or 'approx'; got {method!r}."
M1_ERROR = "m1 must be a positive integer; got {value!r}."
M2_ERROR = "m2 must be a positive integer or None; got {value!r}."
X_SPARSE_ERROR = (
    "X is a sparse matrix; HFM needs the dense non-sensitive features. Pass a "
    "numpy array or a DataFrame."
)
X_NDIM_ERROR = (
    "X must be 2-dimensional (n_samples, n_features) and hold the "
    "non-sensitive features; got an array of shape {shape}. Use "
    "X.reshape(-1, 1) for a single feature."
)
X_NON_NUMERIC_ERROR = (
    "X must hold numeric non-sensitive features only; {what}. Encode them "
    "first (e.g. one-hot, then scale to [0, 1] as the HFM paper does), and "
    "pass the sensitive attributes separately as sensitive_features."
)
X_NON_FINITE_ERROR = (
    "X contains {count} non-finite value(s) (NaN or infinity), the first at "
    "row {row}, column {column}; HFM distances need finite features. Impute "
    "or drop them first."
)
LABEL_NON_FINITE_ERROR = (
    "{name} contains {count} non-finite value(s), the first at position "
    "{first}; labels must be finite numbers or class labels."
)
UNDEFINED_DEGREE_WARNING = (
    "HFM {degree} is undefined: {names[0]} = {num!r} and {names[1]} = {den!r}; "
    "returning {value}. {hint}"
)
_ZERO_D_HINT = (
    "D = 0 means that every point with the true labels coincides with a point "
    "of another group, so any positive D_f is an unbounded increase."
)
_ZERO_DF_HINT = (
    "D_f = 0 means that every point with the predicted labels coincides with "
    "a point of another group."
)


class HFMUndefinedWarning(UndefinedMetricWarning):
    """Warning raised when an HFM degree divides by a zero distance.

    ``0/0`` (both distances zero) is defined as no extra bias (degree 0) and
    does not warn; a zero ``D`` with a positive ``D_f`` gives ``inf``, and a
    zero ``D_f`` with a positive ``D`` gives ``-inf`` for the logarithmic
    degrees. The reference implementation silently replaces zeros by 1e-13,
    which turns these cases into numbers of size 1e13 or -13.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always", HFMUndefinedWarning)
    ...     hfm([[0.0], [0.0]], [1, 1], [0, 1], sensitive_features=[0, 1]).df
    inf
    >>> caught[0].category.__name__
    'HFMUndefinedWarning'
    """


@dataclass(frozen=True, repr=False)
class HFMResult:
    """HFM degrees and the set distances behind them.

    Attributes
    ----------
    df_prev : float
        ``D_f / D - 1`` (Eq. 8a, "previous HFM").
    df : float
        ``log10(D_f / D)`` (Eq. 8b, "maximum HFM").
    df_avg : float
        ``log10(D_f_avg / D_avg)`` (Eq. 8c, "average HFM").
    d_max : float
        ``D``: maximal distance with the true labels (Eqs. 4, 6).
    d_avg : float
        ``D_avg``: average distance with the true labels (Eqs. 5, 7).
    d_f_max : float
        ``D_f``: maximal distance with the predicted labels.
    d_f_avg : float
        ``D_f_avg``: average distance with the predicted labels.
    per_attribute : dict of str to HFMResult
        With several sensitive attributes, the result of each attribute on
        its own (the per-attribute columns of the paper's Tables 2-3); empty
        for a single attribute.

    Notes
    -----
    Lower (more negative) degrees mean that the model brings in less bias
    than the data hold; 0 means as much. :meth:`to_dict` gives the seven
    numbers as a dict.

    Examples
    --------
    >>> result = hfm([[0.0], [1.0], [0.2], [0.5]], [0, 1, 0, 1], [0, 1, 0, 0],
    ...              sensitive_features=[1, 1, 0, 0])
    >>> result.d_max, result.to_dict()["d_avg"]
    (0.5, 0.35)
    """

    df_prev: float
    df: float
    df_avg: float
    d_max: float
    d_avg: float
    d_f_max: float
    d_f_avg: float
    per_attribute: dict = field(default_factory=dict)

    _FIELDS = ("df_prev", "df", "df_avg", "d_max", "d_avg", "d_f_max", "d_f_avg")

    def to_dict(self):
        """The three degrees and four distances as a dict of floats.

        Returns
        -------
        values : dict
            Keys ``df_prev, df, df_avg, d_max, d_avg, d_f_max, d_f_avg``.
        """
        return {name: getattr(self, name) for name in self._FIELDS}

    def __repr__(self):
        parts = [f"{name}={getattr(self, name):.6g}" for name in self._FIELDS]
        if self.per_attribute:
            parts.append(f"per_attribute={list(self.per_attribute)}")
        return f"HFMResult({', '.join(parts)})"


# ----------------------------------------------------------------------------
# Validation


def _check_X(X):
    """Return the non-sensitive features as a finite float64 2-D array."""
    frame = is_dataframe(X)  # of any library (pandas, polars, ...)
    if hasattr(X, "tocsr") or (hasattr(X, "sparse") and not frame):
        raise TypeError(X_SPARSE_ERROR)
    if frame:
        bad = [f"{col!r} ({dtype})" for col, dtype in non_numeric_columns(X)]
        if bad:
            raise TypeError(
                X_NON_NUMERIC_ERROR.format(what="non-numeric columns " + ", ".join(bad))
            )
        array = numeric_array(X)
    else:
        array = np.asarray(X)
        if array.ndim != 2:
            raise ValueError(X_NDIM_ERROR.format(shape=array.shape))
        if array.dtype.kind not in "biuf":
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    X_NON_NUMERIC_ERROR.format(what=f"got dtype {array.dtype}")
                ) from None
    array = np.ascontiguousarray(array, dtype=np.float64)
    finite = np.isfinite(array)
    if not finite.all():
        bad_rows, bad_cols = np.nonzero(~finite)
        raise ValueError(
            X_NON_FINITE_ERROR.format(
                count=bad_rows.size, row=int(bad_rows[0]), column=int(bad_cols[0])
            )
        )
    return array


def _check_label(y, X):
    """``y`` as float coordinates; class labels are encoded 0..C-1 (sorted)."""
    array = column_1d(y, name="y")
    check_same_length(X, array, first_name="X", second_name="y")
    if array.dtype.kind in "biuf":
        array = np.asarray(array, dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(array))
    else:
        codes, _ = pd.factorize(array, sort=True)
        array, bad = codes.astype(np.float64), np.flatnonzero(codes < 0)
    if bad.size:
        raise ValueError(
            LABEL_NON_FINITE_ERROR.format(name="y", count=bad.size, first=int(bad[0]))
        )
    return array


def _check_groupings(sensitive_features, n_samples, min_group_size):
    """Each attribute as (name, codes); codes -1 for samples left out."""
    groupings = sensitive_groupings(
        sensitive_features,
        n_samples=n_samples,
        combine="marginal",
        against="X",
        min_group_size=min_group_size,
    )
    return [(grouping.name, grouping.codes) for grouping in groupings]


def _check_params(method, m1, m2):
    if method not in ("exact", "approx"):
        raise ValueError(METHOD_ERROR.format(method=method))
    if not isinstance(m1, numbers.Integral) or isinstance(m1, bool) or m1 < 1:
        raise ValueError(M1_ERROR.format(value=m1))
    if m2 is not None and (
        not isinstance(m2, numbers.Integral) or isinstance(m2, bool) or m2 < 1
    ):
        raise ValueError(M2_ERROR.format(value=m2))


def default_m2(n_samples):
    """The paper's default ``m2 = ceil(2 * log10(n))`` (at least 1).

    Parameters
    ----------
    n_samples : int
        Number of points.

    Returns
    -------
    m2 : int

    Examples
    --------
    >>> default_m2(30_000)
    9
    """
    return max(1, math.ceil(2.0 * math.log10(max(n_samples, 1))))


# ----------------------------------------------------------------------------
# Distances and degrees


def _distances(X, label, groupings, method, m1, m2, rng):
    """(D, D_avg, per-attribute list of (D, D_avg)) for one label vector."""
    m2 = default_m2(X.shape[0]) if m2 is None else int(m2)
    Z = np.empty((X.shape[0], X.shape[1] + 1))
    Z[:, 0] = label
    Z[:, 1:] = X
    per_attribute = []
    for _, codes in groupings:
        kept = codes >= 0
        Zk, codes = (Z, codes) if kept.all() else (Z[kept], codes[kept])
        n_groups = int(codes.max()) + 1
        if method == "exact":
            nearest = nearest_other_group(Zk, codes)
            per_attribute.append((float(nearest.max()), float(nearest.mean())))
        else:
            per_attribute.append(
                projected_other_group_distances(Zk, codes, n_groups, m1, m2, rng)
            )
    d_max = max(d for d, _ in per_attribute)
    d_avg = float(np.mean([d for _, d in per_attribute]))
    return d_max, d_avg, per_attribute


def _degree(numerator, denominator, name, names, *, log):
    """``numerator / denominator - 1`` or ``log10(numerator / denominator)``."""
    if numerator == 0.0 and denominator == 0.0:
        return 0.0
    if denominator == 0.0:
        value = math.inf
        hint = _ZERO_D_HINT
    elif numerator == 0.0 and log:
        value = -math.inf
        hint = _ZERO_DF_HINT
    else:
        ratio = numerator / denominator
        return math.log10(ratio) if log else ratio - 1.0
    message = UNDEFINED_DEGREE_WARNING.format(
        degree=name, names=names, num=numerator, den=denominator, value=value, hint=hint
    )
    warnings.warn(message, HFMUndefinedWarning, stacklevel=4)
    return value


def _result(d_max, d_avg, d_f_max, d_f_avg, per_attribute=None):
    maximal, average = ("D_f", "D"), ("D_f_avg", "D_avg")
    return HFMResult(
        _degree(d_f_max, d_max, "df_prev", maximal, log=False),
        _degree(d_f_max, d_max, "df", maximal, log=True),
        _degree(d_f_avg, d_avg, "df_avg", average, log=True),
        d_max,
        d_avg,
        d_f_max,
        d_f_avg,
        dict(per_attribute or {}),
    )


def hfm_distances(
    X,
    y,
    *,
    sensitive_features,
    method="exact",
    m1=25,
    m2=None,
    random_state=None,
    min_group_size=None,
):
    r"""Maximal and average distance between the groups (HFM's ``D`` and ``D_avg``).

    Each sample is the point :math:`z = [y, x]` (its label, then its
    non-sensitive features). For one attribute with groups
    :math:`S_1, \dots, S_r`, let :math:`\delta(z)` be the Euclidean distance
    from :math:`z \in S_j` to the nearest point of :math:`\bar S_j = S
    \setminus S_j`. Then

    .. math::

        D = \max_j \max_{z \in S_j} \delta(z), \qquad
        D_{avg} = \frac{1}{n} \sum_j \sum_{z \in S_j} \delta(z)

    (Bian et al., Eqs. 4-5; for a binary attribute ``D`` is the Hausdorff
    distance between the two groups, Eq. 1). With several attributes, ``D``
    is the maximum over the attributes and ``D_avg`` the mean (Eqs. 6-7).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        The **non-sensitive** features, numeric and finite (the paper scales
        them to [0, 1]). ``n_features`` may be 0.
    y : array-like of shape (n_samples,)
        Labels: true labels for ``D``, hard predictions for ``D_f``. Numeric
        labels are used as the coordinate as given (0/1 in the paper);
        class labels such as strings are encoded as 0, 1, ... in sorted order.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        One attribute (1-D) or several (2-D array or DataFrame); each needs at
        least two groups. Labels may be any hashable values.
    method : {"exact", "approx"}, default="exact"
        "exact": the definition, computed with an exact nearest-neighbour
        engine (KD-tree in low dimension, certified blocked BLAS otherwise);
        O(n) memory. "approx": the paper's randomised projection algorithms
        (ApproxDist / ExtendDist), which never return less than the exact
        distances.
    m1 : int, default=25
        Number of random repetitions (``method="approx"`` only).
    m2 : int or None, default=None
        Number of other-group neighbours examined on each side of a point in
        projection order (``method="approx"`` only). None means the paper's
        ``ceil(2 * log10(n))``.
    random_state : int, RandomState instance or None, default=None
        Seeds the random projections of ``method="approx"``.
    min_group_size : int or None, default=None
        None keeps every group and warns about groups of fewer than 30
        samples; an int ``k`` leaves the samples of groups of fewer than
        ``k`` out of that attribute's distances.

    Returns
    -------
    d_max : float
        ``D``, the maximal distance.
    d_avg : float
        ``D_avg``, the average distance.

    Raises
    ------
    ValueError
        On inconsistent lengths, non-finite features or labels, an attribute
        with a single group, or invalid parameters.
    TypeError
        On non-numeric or sparse ``X``.

    See Also
    --------
    hfm : The HFM fairness degrees of a classifier (and the paper's reference).

    Notes
    -----
    ``method="approx"`` follows the paper. For a binary attribute it is the
    simplified ApproxDist (Appendix B.1, Algorithm 4): each repetition draws
    one direction :math:`w` with :math:`\|w\|_1 = 1` (uniformly on the
    :math:`\ell_1` sphere, which the paper leaves open), sorts the points by
    :math:`w^\top z`, and runs AcceleDist (Algorithm 1). For a multi-valued
    attribute it is ApproxDist (Algorithm 2) with two random orthonormal
    directions per repetition. Several attributes are handled by ExtendDist
    (Algorithm 3). ``D`` and ``D_avg`` are the minima over all projections
    of the per-projection maximum and mean; every candidate is a true
    distance to an other-group point, so neither is ever below the exact
    value, and both equal it once ``m2 >= n``.

    Examples
    --------
    >>> X = [[0.0], [1.0], [0.2], [0.5]]
    >>> hfm_distances(X, [0, 1, 0, 1], sensitive_features=[1, 1, 0, 0])
    (0.5, 0.35)
    """
    _check_params(method, m1, m2)
    X = _check_X(X)
    check_same_index(X=X, y=y, sensitive_features=sensitive_features)
    label = _check_label(y, X)
    groupings = _check_groupings(sensitive_features, X.shape[0], min_group_size)
    rng = check_random_state(random_state) if method == "approx" else None
    d_max, d_avg, _ = _distances(X, label, groupings, method, m1, m2, rng)
    return d_max, d_avg


def hfm(
    X,
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="exact",
    m1=25,
    m2=None,
    random_state=None,
    min_group_size=None,
):
    r"""Harmonic fairness measure via manifolds: the extra bias a classifier adds.

    HFM (Bian et al., 2024) compares the distances between the groups of the
    sensitive attribute(s) computed with the true labels, ``D`` and
    ``D_avg`` (the bias in the data), and with the predicted labels,
    ``D_f`` and ``D_f_avg`` (the bias after the model), see
    :func:`hfm_distances`. Its three degrees (Eq. 8) are

    .. math::

        \mathrm{df}_{prev} = \frac{D_f}{D} - 1, \qquad
        \mathrm{df} = \log_{10} \frac{D_f}{D}, \qquad
        \mathrm{df}^{avg} = \log_{10} \frac{D_f^{avg}}{D^{avg}}.

    Lower is fairer: 0 means the model is as (un)fair as the labels; negative
    values mean that the predictions bring the groups closer together.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        The **non-sensitive** features, numeric and finite.
    y_true : array-like of shape (n_samples,)
        True labels, of two classes.
    y_pred : array-like of shape (n_samples,)
        Hard predictions of the same two classes (class labels, not scores or
        probabilities). Each label enters the distances as 1 for one class
        and 0 for the other; which class is 1 does not change any distance,
        so HFM takes no ``pos_label``.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        One attribute (1-D) or several (2-D array or DataFrame); each needs at
        least two groups.
    method, m1, m2, random_state, min_group_size
        How the distances are computed, see :func:`hfm_distances`.

    Returns
    -------
    result : HFMResult
        ``df_prev``, ``df``, ``df_avg``, the four distances, and with several
        attributes ``per_attribute`` (the same for each attribute alone).

    Warns
    -----
    HFMUndefinedWarning
        When a degree divides by a zero distance (see Notes).

    See Also
    --------
    hfm_distances : The set distances alone.

    Notes
    -----
    **Logarithm base.** ``df`` and ``df_avg`` use base 10, as the paper's
    reference implementation does; ``10 ** df`` is the ratio ``D_f / D``.

    **df_prev** is Eq. 8a with the same maximal distances as ``df``, so
    ``df_prev = 10 ** df - 1``. For a binary attribute this is exactly the
    paper's ``D_f(S_1, S̄_1) / D(S_1, S̄_1) - 1`` (Table 2, simplified
    Algorithm 4): the Hausdorff distance is symmetric, so which group is
    privileged does not matter. For a multi-valued attribute the Table 2
    "bin-val" column compares the privileged group with all others; get it
    by passing the binarised attribute, e.g.
    ``sensitive_features=(race == "White")``.

    **No sample_weight.** ``D`` and ``D_f`` are maxima over samples, on which
    weights have no effect, and the paper defines no weighted distance; so
    HFM takes no ``sample_weight``.

    **Zero distances.** ``0/0`` counts as no extra bias (all degrees 0), as in
    the reference code. ``D = 0 < D_f`` gives ``inf`` degrees and
    ``D_f = 0 < D`` gives ``df = -inf`` (``df_prev = -1``), each with an
    :class:`HFMUndefinedWarning`, where the reference code silently divides by
    1e-13.

    References
    ----------
    Y. Bian, Y. Luo, P. Xu. "Does Machine Bring in Extra Bias in Learning?
    Approximating Discrimination Within Models Quickly", 2024. Reference code:
    https://github.com/eustomaqua/ApproxBias.

    Examples
    --------
    >>> X = [[0.0], [1.0], [0.2], [0.5]]
    >>> result = hfm(X, [0, 1, 0, 1], [0, 1, 0, 0], sensitive_features=[1, 1, 0, 0])
    >>> result
    HFMResult(df_prev=1.23607, df=0.349485, df_avg=0.1588, d_max=0.5, d_avg=0.35,
              d_f_max=1.11803, d_f_avg=0.504508)
    >>> round(result.df, 6)
    0.349485
    """
    _check_params(method, m1, m2)
    check_same_index(
        X=X, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features
    )
    X = _check_X(X)
    label_true, label_pred = (
        labels.astype(np.float64) for labels in check_hard_labels(y_true, y_pred)
    )
    check_same_length(X, label_true, first_name="X", second_name="y_true")
    groupings = _check_groupings(sensitive_features, X.shape[0], min_group_size)
    rng = check_random_state(random_state) if method == "approx" else None
    d_max, d_avg, per_true = _distances(X, label_true, groupings, method, m1, m2, rng)
    d_f_max, d_f_avg, per_pred = _distances(
        X, label_pred, groupings, method, m1, m2, rng
    )
    per_attribute = None
    if len(groupings) > 1:
        per_attribute = {
            name: _result(t[0], t[1], p[0], p[1])
            for (name, _), t, p in zip(groupings, per_true, per_pred)
        }
    return _result(d_max, d_avg, d_f_max, d_f_avg, per_attribute)
