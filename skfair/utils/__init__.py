"""Sensitive-attribute resolution and input validation shared by skfair.

Public: the resolver (:func:`check_sensitive_features`,
:func:`sensitive_groupings`, :func:`select_sensitive`, :func:`drop_sensitive`,
:func:`resolve_privileged`) and :class:`SmallGroupWarning`. The validators and
error messages (``*_ERROR``) that serve skfair's own subpackages live in the
private modules, which are:

* ``_sensitive_spec.py``: the ``sensitive=`` spec of estimators and scorers
  (which columns of ``X``), and ``privileged=`` per column;
* ``_group_encoding.py``: ``sensitive_features`` as integer group codes;
* ``_groups.py``: the encoded groups and their rules (at least two groups,
  ``min_group_size``, small-group warnings, the privileged group);
* ``_dataframe.py``: the one place that tells pandas, polars and other
  frames apart (:func:`to_pandas`, :func:`describe`, :func:`is_dataframe`,
  ...); the rest of skfair reads frames through it;
* ``_validation.py`` (scores, labels, weights), ``_response.py`` (a fitted
  model's scores for its positive class), ``_estimator.py`` (the estimators'
  shared mixins), ``_labels.py``, ``_parallel.py`` and ``_docstrings.py``
  (docstring parts several public names share, :func:`fill_doc`).
"""

from ._group_encoding import check_sensitive_features, sensitive_groupings
from ._groups import SMALL_GROUP_SIZE, SmallGroupWarning, resolve_privileged
from ._sensitive_spec import drop_sensitive, select_sensitive

__all__ = [
    "SMALL_GROUP_SIZE",
    "SmallGroupWarning",
    "check_sensitive_features",
    "drop_sensitive",
    "resolve_privileged",
    "select_sensitive",
    "sensitive_groupings",
]
