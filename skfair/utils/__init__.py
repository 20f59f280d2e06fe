"""Sensitive-attribute resolution and input validation shared by skfair.

Public: the resolver (:func:`check_sensitive_features`,
:func:`sensitive_groupings`, :func:`select_sensitive`, :func:`drop_sensitive`,
:func:`resolve_privileged`) and :class:`SmallGroupWarning`. The validators
imported below but left out of ``__all__`` serve skfair's own subpackages;
they may change without notice. Among them, the dataframe layer
(``_dataframe.py``: :func:`to_pandas`, :func:`describe`, :func:`is_dataframe`,
...) is the one place that tells pandas, polars and other frames apart; the
rest of skfair reads frames through it.
"""

# ruff: noqa: F401 (the helpers left out of __all__ are re-exported on purpose)
from ._dask import check_not_mixed, dask_dispatch
from ._dataframe import (
    LAZY_FRAME_ERROR,
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
from ._estimator import BinaryDecisionMixin, SensitiveColumnsMixin, store_params
from ._labels import group_label_text, parse_group_label
from ._parallel import effective_n_threads, sort_in_place
from ._sensitive import (
    MAX_NUMERIC_GROUPS,
    SMALL_GROUP_SIZE,
    TOO_FEW_GROUPS_ERROR,
    ContinuousSensitiveError,
    Grouping,
    SensitiveAttributes,
    SmallGroupWarning,
    apply_min_group_size,
    check_at_least_two_groups,
    check_continuous,
    check_min_group_size,
    check_sensitive_features,
    check_sensitive_spec,
    codes_as_groups,
    columns_at,
    drop_sensitive,
    drop_unused_categories,
    privileged_by_column,
    resolve_columns,
    resolve_privileged,
    select_sensitive,
    sensitive_groupings,
    warn_small_groups,
)
from ._validation import (
    EMPTY_INPUT_ERROR,
    OUT_OF_UNIT_INTERVAL_ERROR,
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
