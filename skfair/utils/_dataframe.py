"""The dataframe layer: the one place in skfair that knows dataframe libraries.

Everything that reads a frame of the user's (``X``, ``sensitive_features``)
goes through these functions, built on `narwhals
<https://narwhals-dev.github.io/narwhals/>`_, so that pandas (NumPy- or
Arrow-backed), polars, PyArrow tables and the other libraries narwhals
supports are read alike; NumPy arrays and lists are left to NumPy. polars and
PyArrow are never imported here: narwhals recognises their objects only when
the user has passed one.

Two conventions:

* **Native in, native out** where a frame is handed back to the user's model
  (:func:`select_columns`, :func:`drop_columns`, :func:`replace_column`):
  a model fitted on polars keeps receiving polars.
* **pandas inside** where skfair itself reads values (group labels, row
  hashes, result tables): :func:`to_pandas` converts column by column through
  NumPy, so it needs no PyArrow (polars' own ``to_pandas`` does), and the same
  data give the same pandas columns whatever library held them.

Lazy frames (a polars ``LazyFrame``, DuckDB, Ibis, ...) are refused with
:data:`LAZY_FRAME_ERROR` rather than collected: collecting may run a whole
query plan, which is the user's decision. Dask collections are not seen here;
skfair's Dask dispatch handles them before.
"""

from __future__ import annotations

import narwhals.stable.v2 as nw
import numpy as np
import pandas as pd

LAZY_FRAME_ERROR = (
    "{what} is a lazy {library} frame ({kind}); skfair needs the data in "
    "memory. Collect it first (e.g. .collect() for a polars LazyFrame); "
    "mcdp, mcdp_details, mcdp_curve, abcc and delta_dp compute inside the "
    "engine when given the frame as data= and column names."
)
NESTED_COLUMN_ERROR = (
    "{what}: column {name!r} has the nested dtype {dtype}, one list or "
    "struct per row; skfair reads flat columns (one label or number per "
    "row). Unnest it first (polars: df.unnest({name!r}), "
    "pl.col({name!r}).list.join('-')), or pass its parts as separate columns."
)

#: Columns shown in a description before the list is cut short.
_MAX_SHOWN = 20


def _is_dask(obj):
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


def as_narwhals(obj, *, allow_series=False, what="X"):
    """``obj`` as an eager narwhals DataFrame (or Series), or None.

    Parameters
    ----------
    obj : object
        Anything; only dataframes (and, with ``allow_series``, series) of a
        library that narwhals supports are wrapped.
    allow_series : bool, default=False
        Also wrap a Series (pandas, polars) or a PyArrow ChunkedArray.
    what : str, default="X"
        The argument's name, for the lazy-frame error.

    Returns
    -------
    frame : narwhals DataFrame or Series, or None
        None for NumPy arrays, lists, sparse matrices and Dask collections.

    Raises
    ------
    TypeError
        For a lazy frame (:data:`LAZY_FRAME_ERROR`).
    """
    if isinstance(obj, (np.ndarray, list, tuple)) or _is_dask(obj):
        return None
    wrapped = nw.from_native(obj, pass_through=True, allow_series=allow_series)
    if isinstance(wrapped, nw.LazyFrame):
        native = type(obj)
        raise TypeError(
            LAZY_FRAME_ERROR.format(
                what=what,
                library=wrapped.implementation,
                kind=f"{native.__module__.split('.')[0]}.{native.__name__}",
            )
        )
    if isinstance(wrapped, (nw.DataFrame, nw.Series)):
        return wrapped
    return None


def check_not_lazy(X, *, what="X"):
    """Return ``X``; raise :data:`LAZY_FRAME_ERROR` if it is a lazy frame.

    For the estimators, before scikit-learn's ``validate_data`` (whose own
    error on a polars ``LazyFrame`` does not say what to do).

    Examples
    --------
    >>> check_not_lazy([[1.0]])
    [[1.0]]
    """
    as_narwhals(X, allow_series=True, what=what)
    return X


def numpy_columns(X):
    """``X`` with the Arrow columns of a pandas frame as NumPy columns.

    scikit-learn's ``check_array`` casts a pandas frame that mixes Arrow
    numbers with Arrow strings (``ArrowDtype``) to float as a whole, and
    fails on the strings; with the same columns backed by NumPy it keeps
    them as objects. Names and index are kept; anything else is returned
    unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> numpy_columns(pd.DataFrame({"a": [1.0]})).dtypes.tolist()
    [dtype('float64')]
    """
    if not isinstance(X, pd.DataFrame):
        return X
    arrow = [k for k, dtype in enumerate(X.dtypes) if isinstance(dtype, pd.ArrowDtype)]
    if not arrow:
        return X
    out = X.copy(deep=False)
    for k in arrow:
        out.isetitem(k, X.iloc[:, k].to_numpy())
    return out


def is_dataframe(X):
    """Whether ``X`` is an eager dataframe of any supported library.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> is_dataframe(pd.DataFrame({"a": [1]})), is_dataframe(np.ones((1, 1)))
    (True, False)
    """
    return isinstance(X, pd.DataFrame) or isinstance(as_narwhals(X), nw.DataFrame)


def column_names(X):
    """The column names of a dataframe ``X`` (a list), or None for arrays.

    Examples
    --------
    >>> import pandas as pd
    >>> column_names(pd.DataFrame({"a": [1], "b": [2]}))
    ['a', 'b']
    """
    if isinstance(X, pd.DataFrame):  # pandas allows duplicate names
        return list(X.columns)
    frame = as_narwhals(X)
    return None if frame is None else list(frame.columns)


def describe(obj, *, columns=True):
    """A short description of ``obj`` for error messages, naming its library.

    Parameters
    ----------
    obj : object
        Anything.
    columns : bool, default=True
        Name a dataframe's columns (the first 20).

    Returns
    -------
    text : str
        E.g. "a polars DataFrame with columns ['sex', 'age']".

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> describe(pd.DataFrame({"sex": ["f"], "age": [30]}))
    "a pandas DataFrame with columns ['sex', 'age']"
    >>> describe(np.zeros((3, 2)))
    'a numpy ndarray of shape (3, 2)'
    """
    kind = type(obj)
    if kind.__module__ == "builtins":
        return f"a {kind.__name__}"
    try:
        names = column_names(obj)
    except TypeError:  # a lazy frame
        names = None
    text = f"a {kind.__module__.split('.')[0]} {kind.__name__}"
    if names is not None:
        if not columns:
            return text
        shown = names[:_MAX_SHOWN]
        hidden = len(names) - len(shown)
        more = f" (and {hidden} more)" if hidden else ""
        return f"{text} with columns {shown}{more}"
    shape = getattr(obj, "shape", None)
    return text if shape is None else f"{text} of shape {tuple(shape)}"


def select_columns(X, positions):
    """The columns of dataframe ``X`` at ``positions``, in ``X``'s library.

    Examples
    --------
    >>> import pandas as pd
    >>> select_columns(pd.DataFrame({"a": [1], "b": [2]}), [1])
       b
    0  2
    """
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, list(positions)]
    frame = as_narwhals(X)
    return frame.select([frame.columns[p] for p in positions]).to_native()


def drop_columns(X, positions):
    """Dataframe ``X`` without the columns at ``positions``, in ``X``'s library.

    Examples
    --------
    >>> import pandas as pd
    >>> drop_columns(pd.DataFrame({"a": [1], "b": [2], "c": [3]}), [0, 2])
       b
    0  2
    """
    drop = set(positions)
    n_columns = len(column_names(X))
    return select_columns(X, [k for k in range(n_columns) if k not in drop])


def replace_column(X, position, values):
    """A copy of dataframe ``X`` whose column ``position`` holds ``values``.

    The column keeps its dtype (a categorical stays one), and the copy is
    of ``X``'s library.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 2], "s": pd.Categorical(["f", "m"])})
    >>> replace_column(X, 1, ["m", "m"])["s"].cat.categories.tolist()
    ['f', 'm']
    """
    if isinstance(X, pd.DataFrame):
        old = X.iloc[:, position]
        out = X.copy()
        new = pd.Series(values, index=X.index, name=old.name)
        out.isetitem(position, new.astype(old.dtype))
        return out
    frame = as_narwhals(X)
    name = frame.columns[position]
    # a list of Python scalars: polars cannot cast an object array to a
    # number or boolean dtype ("cannot cast 'Object' type")
    items = [v.item() if isinstance(v, np.generic) else v for v in values]
    new = nw.new_series(
        name, items, dtype=frame.schema[name], backend=frame.implementation
    )
    return frame.with_columns(new).to_native()


def _is_numeric(dtype):
    return dtype.is_numeric() or dtype == nw.Boolean


def non_numeric_columns(X):
    """Names and dtypes of the columns of dataframe ``X`` that are not numbers.

    Booleans count as numbers (as for pandas' ``is_numeric_dtype``);
    categoricals, strings and objects do not.

    Returns
    -------
    columns : list of (name, str)
        Each non-numeric column's name and its dtype as ``X``'s library
        writes it.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1.0], "s": pd.Categorical(["f"]), "b": [True]})
    >>> non_numeric_columns(X)
    [('s', 'category')]
    """
    if isinstance(X, pd.DataFrame):  # pandas allows duplicate names
        numeric = pd.api.types.is_numeric_dtype  # True for booleans too
        return [
            (name, str(dtype)) for name, dtype in X.dtypes.items() if not numeric(dtype)
        ]
    frame = as_narwhals(X)
    native = frame.to_native()
    dtypes = list(getattr(native, "dtypes", frame.schema.values()))
    return [
        (name, str(native_dtype))
        for (name, dtype), native_dtype in zip(frame.schema.items(), dtypes)
        if not _is_numeric(dtype)
    ]


def numeric_array(X):
    """A dataframe ``X`` of numeric columns as a float64 array, nulls as NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> numeric_array(pd.DataFrame({"a": [1, 2], "b": [True, False]}))
    array([[1., 1.],
           [2., 0.]])
    """
    if isinstance(X, pd.DataFrame):
        return X.to_numpy(dtype=np.float64, na_value=np.nan)
    frame = as_narwhals(X)
    columns = [frame[name].cast(nw.Float64).to_numpy() for name in frame.columns]
    if not columns:
        return np.empty((len(frame), 0), dtype=np.float64)
    return np.column_stack(columns).astype(np.float64, copy=False)


def _series_to_pandas(series, what):
    """A narwhals Series as a pandas Series, through NumPy (no PyArrow)."""
    dtype, name = series.dtype, series.name
    if dtype.is_nested():  # a list, array or struct per row
        raise TypeError(NESTED_COLUMN_ERROR.format(what=what, name=name, dtype=dtype))
    values = series.to_numpy()
    if dtype == nw.Enum:  # declared categories, in their order
        categories = list(dtype.categories)
        codes = pd.Index(categories).get_indexer(values)
        return pd.Series(pd.Categorical.from_codes(codes, categories), name=name)
    if dtype == nw.Categorical:  # the categories present, sorted (as pandas)
        return pd.Series(pd.Categorical(values), name=name)
    return pd.Series(values, name=name)


def to_pandas(obj, *, what="X"):
    """A dataframe or series of any library as pandas; anything else unchanged.

    pandas objects are returned as they are. Others are converted column by
    column through NumPy, so no PyArrow is needed: numbers and booleans keep
    their NumPy dtype (integers or booleans with nulls become floats or
    objects), strings become pandas' ``str`` columns, a polars ``Enum``
    becomes a categorical with its categories in their declared order, and a
    polars ``Categorical`` a categorical of the labels present, sorted, as
    ``astype("category")`` gives in pandas.

    Parameters
    ----------
    obj : object
        A dataframe or series of any library narwhals supports, or anything
        else (returned unchanged).
    what : str, default="X"
        The argument's name, for the lazy-frame and nested-column errors.

    Returns
    -------
    converted : pandas DataFrame, pandas Series or ``obj``
        With a default ``RangeIndex`` when ``obj`` was not pandas.

    Raises
    ------
    TypeError
        For a lazy frame (:data:`LAZY_FRAME_ERROR`), or a column of a nested
        dtype, such as a polars ``Struct`` or ``List`` (:data:`NESTED_COLUMN_ERROR`).

    Examples
    --------
    >>> import numpy as np
    >>> to_pandas(np.arange(2))
    array([0, 1])
    """
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        return obj
    wrapped = as_narwhals(obj, allow_series=True, what=what)
    if wrapped is None:
        return obj
    if isinstance(wrapped, nw.Series):
        return _series_to_pandas(wrapped, what)
    columns = [_series_to_pandas(wrapped[name], what) for name in wrapped.columns]
    if not columns:
        return pd.DataFrame(index=pd.RangeIndex(len(wrapped)))
    return pd.concat(columns, axis=1)


def as_pandas_frame(X):
    """``X`` as a pandas DataFrame, whatever it is.

    A dataframe of any library is converted by :func:`to_pandas`; an array
    is wrapped, with columns ``0 .. n_features - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> as_pandas_frame(np.array([[1, 2]]))
       0  1
    0  1  2
    """
    frame = to_pandas(X)
    return frame if isinstance(frame, pd.DataFrame) else pd.DataFrame(np.asarray(X))
