"""Reading the bundled data files and assembling the returned ``Bunch``.

The data ship inside the package as gzip-compressed CSV files in ``data/``, each
with a reStructuredText description in ``descr/``, both read with
:mod:`importlib.resources` (as in scikit-learn's ``sklearn/datasets/_base.py``),
so loading never touches the network. What every loader shares is here too:
the data sets' sensitive columns and privileged groups (:data:`DATASETS`),
the returned Bunch (:func:`make_bunch`) and the shared parts of the loaders'
docstrings (:func:`shared_doc`).
"""

import json
from functools import cache
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

# StrOptions: scikit-learn's own boundary validation (same error texts as its
# loaders); no public equivalent exists.
from sklearn.utils._param_validation import StrOptions

DATA_PACKAGE = __package__
"""Package whose ``data/`` and ``descr/`` folders hold the bundled files."""

# pandas >= 3 reads text as the ``str`` dtype (missing values are NaN). pandas 2
# has no NaN-valued text dtype without pyarrow: its ``StringDtype`` marks missing
# values ``pd.NA``, which scikit-learn's encoders reject, and ``astype(str)``
# turns NaN into "nan". So on pandas 2 text columns are ``object`` holding only
# ``str`` and NaN, which is what ``str`` hands to NumPy and scikit-learn.
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


PREPROCESSING = [StrOptions({"raw", "hfm"})]

#: Per data set: sensitive columns, privileged groups, class names (the
#: target's name for a regression), data file.
DATASETS = {
    "ricci": (["race"], {"race": "W"}, ["fail", "pass"], "ricci.csv.gz"),
    "german_credit": (
        ["sex", "age"],
        {"sex": "male", "age": "adult"},
        ["bad", "good"],
        "german_credit.csv.gz",
    ),
    "adult": (
        ["race", "sex"],
        {"race": "White", "sex": "Male"},
        ["<=50K", ">50K"],
        "adult.csv.gz",
    ),
    "compas": (
        ["race", "sex"],
        {"race": "Caucasian", "sex": "Male"},
        ["no_recid", "recid"],
        None,
    ),
    "bank": (["age"], {"age": ">25"}, ["no", "yes"], "bank.csv.gz"),
    "communities_crime": (
        ["black"],
        {"black": "<=0.06"},
        ["ViolentCrimesPerPop"],
        "communities_crime.csv.gz",
    ),
}


def make_bunch(name, data, target, return_X_y, data_file_name=None):
    """The Bunch (or ``(data, target)``) of the data set ``name``."""
    sensitive, privileged, target_names, file_name = DATASETS[name]
    data = data.reset_index(drop=True)
    target = target.reset_index(drop=True)
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=pd.concat([data, target], axis=1),
        sensitive=data[sensitive].copy(),
        privileged=dict(privileged),
        feature_names=list(data.columns),
        target_names=list(target_names),
        DESCR=load_descr(f"{name}.rst"),
        filename=data_file_name or file_name,
    )


_RETURNS = """\
    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

"""
_BUNCH_FIELDS = """\
        sensitive : pandas.DataFrame of shape (n_samples, {n_sensitive})
            {columns}, equal to {those} of ``data``.
        privileged : dict
            Privileged group label of each sensitive column, ``{privileged}``.
        target_names : list of str
            Class names, ``{classes}``.
        frame : pandas.DataFrame
            ``data`` with ``target`` as the last column.
        feature_names : list of str
            Column names of ``data``.
        DESCR : str
            Description of the data set.
        filename : str
            Name of the bundled file{file}.

    (data, target) : tuple if ``return_X_y`` is True
        The DataFrame ``data`` and the Series ``target`` described above.
"""
_SEE_ALSO = """
    See Also
    --------
    load_hfm_dataset : The data sets of the HFM paper by their names there.
    skfair.model_selection.make_hfm_encoder : The HFM paper's feature encoding.
"""
_RETURN_X_Y = """\
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
"""


def shared_doc(dataset=None):
    """Fill the parts of a loader's docstring that every loader shares."""

    def decorate(function):
        doc = function.__doc__.replace("    <return_X_y>\n", _RETURN_X_Y)
        if dataset is not None:
            sensitive, privileged, names, file = DATASETS[dataset]
            fields = _BUNCH_FIELDS.format(
                n_sensitive=len(sensitive),
                columns=("Columns " if len(sensitive) > 1 else "Column ")
                + " and ".join(f"``{column}``" for column in sensitive),
                those="those" if len(sensitive) > 1 else "that",
                privileged=json.dumps(privileged),
                classes=json.dumps(names),
                file="" if file is None else f', ``"{file}"``',
            )
            fields += "" if dataset == "bank" else _SEE_ALSO
            doc = doc.replace("    <returns>\n", _RETURNS)
            doc = doc.replace("        <bunch_fields>\n", fields)
        function.__doc__ = doc
        return function

    return decorate


def insert_after(frame, anchor, name, values):
    """Return a copy of ``frame`` with column ``name`` right after ``anchor``."""
    frame = frame.copy()
    frame.insert(frame.columns.get_loc(anchor) + 1, name, values)
    return frame
