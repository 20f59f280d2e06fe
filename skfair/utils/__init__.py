"""Sensitive-attribute resolution and input validation shared by skfair.

Public: the resolver (:func:`check_sensitive_features`,
:func:`sensitive_groupings`, :func:`select_sensitive`, :func:`drop_sensitive`,
:func:`resolve_privileged`) and :class:`SmallGroupWarning`. The validators
imported below but left out of ``__all__`` serve skfair's own subpackages;
they may change without notice, as may the error messages (``*_ERROR``)
exported for the tests. Every other subpackage imports them from here,
never from the private modules, which are:

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

# ruff: noqa: F401 (the helpers left out of __all__ are re-exported on purpose)
from ._dask import MIXED_INPUT_ERROR, check_not_mixed, is_dask_collection
from ._dataframe import (
    LAZY_FRAME_ERROR,
    NESTED_COLUMN_ERROR,
    as_narwhals,
    as_pandas_frame,
    check_not_lazy,
    column_names,
    describe,
    drop_columns,
    is_dataframe,
    non_numeric_columns,
    numeric_array,
    numpy_columns,
    replace_column,
    select_columns,
    to_pandas,
)
from ._docstrings import fill_doc, fill_text
from ._estimator import (
    NO_FEATURES_ERROR,
    NON_NUMERIC_FEATURE_ERROR,
    NON_NUMERIC_SENSITIVE_HINT,
    BinaryDecisionMixin,
    SensitiveColumnsMixin,
)
from ._group_encoding import (
    CONTINUOUS_SENSITIVE_ERROR,
    EMPTY_GROUP_ERROR,
    MAX_NUMERIC_GROUPS,
    NAN_SENSITIVE_ERROR,
    SENSITIVE_EMPTY_ERROR,
    SENSITIVE_NDIM_ERROR,
    UNHASHABLE_LABEL_ERROR,
    ContinuousSensitiveError,
    check_continuous,
    check_sensitive_features,
    drop_unused_categories,
    sensitive_groupings,
)
from ._groups import (
    COMBINE_ERROR,
    MIN_GROUP_SIZE_ERROR,
    PRIVILEGED_UNKNOWN_ERROR,
    SMALL_GROUP_SIZE,
    SMALL_GROUP_WARNING,
    TOO_FEW_GROUPS_ERROR,
    TOO_FEW_GROUPS_LEFT_ERROR,
    Grouping,
    SensitiveAttributes,
    SmallGroupWarning,
    apply_min_group_size,
    check_at_least_two_groups,
    check_min_group_size,
    codes_as_groups,
    drop_small_groups,
    resolve_privileged,
    user_stacklevel,
)
from ._labels import group_label_text, parse_group_label
from ._parallel import effective_n_threads, sort_in_place
from ._response import (
    NO_RESPONSE_METHOD_ERROR,
    POSITIVE_CLASS_NEEDED_ERROR,
    POSITIVE_CLASS_UNKNOWN_ERROR,
    RESPONSE_METHOD_ERROR,
    positive_class_scores,
)
from ._sensitive_spec import (
    PRIVILEGED_KEYS_ERROR,
    PRIVILEGED_TYPE_ERROR,
    SPEC_EMPTY_ERROR,
    SPEC_INDEX_ERROR,
    SPEC_MISSING_COLUMN_ERROR,
    SPEC_NAME_ON_ARRAY_ERROR,
    SPEC_NONE_ERROR,
    SPEC_SPARSE_ERROR,
    SPEC_TYPE_ERROR,
    check_sensitive_spec,
    columns_at,
    drop_sensitive,
    privileged_by_column,
    resolve_columns,
    select_sensitive,
)
from ._validation import (
    EMPTY_INPUT_ERROR,
    INDEX_MISMATCH_ERROR,
    LABEL_NAN_ERROR,
    LENGTH_MISMATCH_ERROR,
    NON_BINARY_ERROR,
    NON_FINITE_ERROR,
    NOT_NUMERIC_ERROR,
    ONLY_BINARY_ERROR,
    OUT_OF_UNIT_INTERVAL_ERROR,
    POS_LABEL_ERROR,
    POS_LABEL_NEEDED_ERROR,
    POS_LABEL_NOT_FOUND_ERROR,
    SAMPLE_WEIGHT_ERROR,
    TOO_MANY_CLASSES_ERROR,
    check_binary_target,
    check_binary_y,
    check_fraction,
    check_hard_labels,
    check_pos_label,
    check_same_index,
    check_same_length,
    check_sample_weight_1d,
    check_scores,
    column_1d,
    column_or_1d_numeric,
    same_label,
)

__all__ = [
    "SMALL_GROUP_SIZE",
    "SmallGroupWarning",
    "check_sensitive_features",
    "drop_sensitive",
    "resolve_privileged",
    "select_sensitive",
    "sensitive_groupings",
]
