"""Reading the bundled data files and assembling the returned ``Bunch``.

The data ship inside the package as gzip-compressed CSV files in ``data/``, each
with a reStructuredText description in ``descr/``, both read with
:mod:`importlib.resources` (as in scikit-learn's ``sklearn/datasets/_base.py``),
so loading never touches the network.
"""

from functools import cache
from importlib import resources

import numpy as np
import pandas as pd

DATA_PACKAGE = __package__
"""Package whose ``data/`` and ``descr/`` folders hold the bundled files."""

# pandas >= 3 reads text as the ``str`` dtype (missing values are NaN); older pandas
# has no such default dtype, and ``astype(str)`` there would turn NaN into "nan".
TEXT_DTYPE = "str" if int(pd.__version__.split(".", 1)[0]) >= 3 else object


@cache
def _read_csv_cached(file_name):
    path = resources.files(DATA_PACKAGE) / "data" / file_name
    with path.open("rb") as stream:
        return pd.read_csv(stream, compression="gzip")


def read_data_file(file_name):
    """Return a fresh copy of the bundled file ``data/<file_name>``.

    Parsed by :func:`pandas.read_csv` with its defaults: empty cells and the
    literal ``N/A`` are NaN, repeated column names get a ``.1`` suffix.
    """
    return _read_csv_cached(file_name).copy()


def load_descr(descr_file_name):
    """Return the text of the description ``descr/<descr_file_name>``."""
    path = resources.files(DATA_PACKAGE) / "descr" / descr_file_name
    return path.read_text(encoding="utf-8")


def text_where(condition, if_true, if_false, *, index):
    """Map a boolean condition to two text labels, as a text Series."""
    labels = np.where(np.asarray(condition, dtype=bool), if_true, if_false)
    return pd.Series(labels, index=index, dtype=TEXT_DTYPE)


def binary_target(positive, *, name):
    """Encode a boolean Series as the 0/1 ``int64`` target named ``name``."""
    return pd.Series(
        np.asarray(positive, dtype=np.int64), index=positive.index, name=name
    )


def set_dtypes(frame, *, category):
    """Give ``frame``'s non-numeric columns an explicit dtype.

    The columns listed in ``category`` become unordered categoricals of the
    values they hold (names absent from ``frame`` are skipped); every other
    non-numeric column becomes text.
    """
    converted = {}
    for col in frame.columns:
        if col in category:
            converted[col] = frame[col].astype(TEXT_DTYPE).astype("category")
        elif not pd.api.types.is_numeric_dtype(frame[col]):
            converted[col] = frame[col].astype(TEXT_DTYPE)
    return frame.assign(**converted)
