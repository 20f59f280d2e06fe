"""The ``sensitive=`` spec: which columns of ``X`` hold the sensitive attributes.

Estimators, scorers and displays take ``sensitive=`` (column names for a
DataFrame, integer indices for an array) and read those columns from ``X``:
:func:`check_sensitive_spec` validates the spec, :func:`resolve_columns`
finds the columns, :func:`select_sensitive` / :func:`drop_sensitive` read
or remove them, and :func:`privileged_by_column` pairs a ``privileged=``
value with each column. The columns then go to the encoding
(``_group_encoding.py``) as ``sensitive_features``.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ._dataframe import (
    column_names,
    describe,
    drop_columns,
    select_columns,
    to_pandas,
)

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
