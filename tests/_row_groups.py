"""The groups of scikit-learn's check data, shared by the estimator checks."""

import numpy as np


class RowGroups:
    """Read the group of each row from its sensitive column 0 by a fixed rule.

    The checks' data are continuous, and skfair refuses a continuous
    sensitive column (one group per value is no grouping), so this is the one
    thing changed for the checks: the group is ``(floor(v) + floor(10 v)) %
    2`` of the column's value ``v``. It depends on the row alone (predictions
    on subsets or reordered rows stay comparable) and splits both the checks'
    uniform and their integer-valued data into two groups; NaN and infinity
    give a NaN group, which the resolver rejects.
    """

    def _sensitive_columns(self, X):
        columns = super()._sensitive_columns(X)
        values = np.asarray(columns.iloc[:, 0], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            groups = (np.floor(values) + np.floor(10 * values)) % 2
        return columns.iloc[:, :1].assign(**{columns.columns[0]: groups})
