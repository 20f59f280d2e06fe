"""The HFM paper's benchmark data sets, by their names there."""

# validate_params/StrOptions: scikit-learn's own boundary validation (same error
# texts as its loaders); no public equivalent exists.
from sklearn.utils._param_validation import StrOptions, validate_params

from ._base import shared_doc
from ._compas import load_compas
from ._loaders import load_adult, load_german_credit, load_ricci

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
@shared_doc()
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
