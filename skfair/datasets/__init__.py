"""Bundled fairness benchmark data sets and their loaders.

The data ship inside the package (gzip-compressed CSV files), so everything runs
offline. Each loader returns a :class:`~sklearn.utils.Bunch` with ``data``,
``target`` (0/1; real-valued for the regression data set
:func:`load_communities_crime`), ``sensitive`` (the standard sensitive
attributes, also kept in ``data`` under the same names), ``privileged`` (the
privileged group of each), ``frame``, ``feature_names``, ``target_names`` and
``DESCR``.
``preprocessing="hfm"`` reproduces the instances and features of the HFM paper's
benchmark; :func:`load_hfm_dataset` loads those by their names there, and
:func:`skfair.model_selection.make_hfm_encoder` builds the paper's feature
encoding.
"""

from ._compas import load_compas
from ._hfm import load_hfm_dataset
from ._loaders import load_adult, load_bank, load_german_credit, load_ricci
from ._regression import load_communities_crime

__all__ = [
    "load_adult",
    "load_bank",
    "load_communities_crime",
    "load_compas",
    "load_german_credit",
    "load_hfm_dataset",
    "load_ricci",
]
