"""Discriminative risk (DR, Bian et al., 2023; 2024, footnote 7, Eq. 24).

The definition and the disturbance, which follows the reference
implementation, are documented in :func:`discriminative_risk`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ..utils import check_sensitive_features, resolve_privileged
from ..utils._dataframe import is_dataframe, replace_column
from ..utils._groups import apply_min_group_size, check_min_group_size
from ..utils._sensitive_spec import columns_at, privileged_by_column, resolve_columns
from ..utils._validation import check_fraction, check_same_index, check_sample_weight_1d

NO_UNPRIVILEGED_ERROR = (
    "column {column!r} holds only its privileged value {value!r}; a "
    "privileged sample has no non-privileged value to be disturbed into. DR "
    "needs at least one non-privileged sample per sensitive column."
)
NO_PREDICT_ERROR = "estimator must be a fitted classifier with predict; got {kind}."


def _disturbed_codes(codes, privileged_code, n_categories, ratio, rng):
    """Codes after the disturbance of one column (-1: left out, unchanged)."""
    flip = rng.random_sample(codes.shape[0]) < ratio
    others = np.array([c for c in range(n_categories) if c != privileged_code])
    draws = others[rng.randint(others.size, size=codes.shape[0])]
    out = codes.copy()
    is_privileged = codes == privileged_code
    out[flip & ~is_privileged & (codes >= 0)] = privileged_code
    out[flip & is_privileged] = draws[flip & is_privileged]
    return out


def _disturb(X, positions, names, values, options):
    """A copy of ``X`` with its sensitive columns disturbed, and the kept mask.

    The copy is of the library of ``X`` (a polars frame stays one); the
    labels are read as pandas (:func:`~skfair.utils._sensitive_spec.columns_at`).
    """
    frame = is_dataframe(X)
    out = X if frame else np.array(X, copy=True)
    kept = np.ones(X.shape[0], dtype=bool)
    for position, name, value in zip(positions, names, values):
        observed = columns_at(X, [position], [name]).iloc[:, 0]
        if isinstance(observed.dtype, pd.CategoricalDtype):
            observed = observed.cat.remove_unused_categories()
        grouping = apply_min_group_size(
            check_sensitive_features(observed).attribute(0),
            options["min_group_size"],
        )
        code = resolve_privileged(value, grouping)
        if grouping.n_groups < 2:
            raise ValueError(
                NO_UNPRIVILEGED_ERROR.format(column=name, value=grouping.labels[code])
            )
        new_codes = _disturbed_codes(
            grouping.codes, code, grouping.n_groups, options["ratio"], options["rng"]
        )
        kept &= grouping.kept
        new_values = np.empty(grouping.n_groups, dtype=object)
        new_values[:] = list(grouping.labels)
        new_values = np.where(
            grouping.kept, new_values[np.maximum(new_codes, 0)], observed.to_numpy()
        )
        if frame:
            out = replace_column(out, position, new_values)
        else:
            out[:, position] = new_values
    return out, kept


def discriminative_risk(
    estimator,
    X,
    *,
    sensitive,
    privileged=None,
    ratio=0.97,
    random_state=None,
    sample_weight=None,
    min_group_size=None,
):
    r"""Share of predictions that change when the sensitive attributes are disturbed.

    Discriminative risk (Bian et al., 2024, footnote 7, Eq. 24):

    .. math::

        \mathrm{DR}(f) = \frac{1}{n} \sum_{i=1}^n
        \mathbb{I}\big(f(\check x_i, a_i) \neq f(\check x_i, \tilde a_i)\big),

    where :math:`\tilde a_i` are sample *i*'s sensitive attributes after a
    random disturbance: each sensitive column of each sample is disturbed
    independently with probability ``ratio``; a non-privileged value becomes
    the privileged value, and the privileged value becomes a non-privileged
    value observed in that column, drawn uniformly. DR captures both
    individual and group fairness; it lies in [0, 1] and lower is fairer.

    Parameters
    ----------
    estimator : fitted classifier
        Anything with ``predict(X)``, e.g. a :class:`~sklearn.pipeline.Pipeline`
        whose :class:`~sklearn.compose.ColumnTransformer` encodes string or
        categorical sensitive columns.
    X : DataFrame or array-like of shape (n_samples, n_features)
        The samples, **including** the sensitive columns (as the estimator
        expects them).
    sensitive : str, int or list of str or int
        The sensitive columns: names for a DataFrame, integer indices for an
        array.
    privileged : dict, object or None, default=None
        The privileged value of each sensitive column, as
        ``{column: value}`` (keys as in ``sensitive``, e.g.
        ``bunch.privileged`` of the bundled datasets), or a single value when
        ``sensitive`` names one column. None (or a None value) takes the
        column's most frequent value, as :func:`skfair.utils.resolve_privileged`.
    ratio : float, default=0.97
        Probability in [0, 1] that a sensitive value is disturbed. The paper
        does not state it; 0.97 is the default of the authors' experiment code.
    random_state : int, RandomState instance or None, default=None
        Seeds the disturbance.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights: DR becomes the weighted share of changed predictions.
    min_group_size : int or None, default=None
        None uses every value and warns about values held by fewer than 30
        samples; an int ``k`` leaves out the values held by fewer than ``k``
        samples: those samples are neither disturbed nor counted, and no
        sample is disturbed into those values.

    Returns
    -------
    dr : float
        The fraction of samples whose prediction changes.

    Raises
    ------
    ValueError
        If the privileged value of a column does not occur in ``X``, or a
        column holds no non-privileged value, or ``ratio`` is not in [0, 1].

    See Also
    --------
    demographic_parity_gap : A group-level gap on hard labels.

    Notes
    -----
    Each disturbed value is drawn from the values that occur in ``X`` (for a
    categorical column with unused categories, from its observed ones only),
    as the reference implementation does. Both predictions come from
    ``estimator.predict``; nothing is refitted.

    References
    ----------
    Y. Bian, K. Zhang, A. Qiu, N. Chen. "Increasing Fairness via Combination
    with Learning Guarantees", 2023 (arXiv:2301.10813).

    Y. Bian, Y. Luo, P. Xu. "Does Machine Bring in Extra Bias in Learning?
    Approximating Discrimination Within Models Quickly", 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0, 0.1], [0, 0.9], [1, 0.2], [1, 0.8]])
    >>> model = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])  # predicts column 0
    >>> discriminative_risk(model, X, sensitive=0, privileged=1, ratio=1.0)
    1.0
    >>> discriminative_risk(model, X, sensitive=0, privileged=1, ratio=0.0)
    0.0
    """
    if not hasattr(estimator, "predict"):
        raise TypeError(NO_PREDICT_ERROR.format(kind=type(estimator).__name__))
    ratio = check_fraction(ratio, name="ratio")
    if not is_dataframe(X) and not hasattr(X, "shape"):
        X = np.asarray(X)
    check_min_group_size(min_group_size)
    check_same_index(X=X, sample_weight=sample_weight)
    weights = check_sample_weight_1d(sample_weight, X.shape[0])
    positions, names = resolve_columns(X, sensitive)
    values = privileged_by_column(privileged, sensitive)
    options = {
        "ratio": ratio,
        "rng": check_random_state(random_state),
        "min_group_size": min_group_size,
    }
    disturbed, kept = _disturb(X, positions, names, values, options)
    changed = np.asarray(estimator.predict(X)) != np.asarray(
        estimator.predict(disturbed)
    )
    if weights is not None:  # a weighted share: a common scale cancels, and
        weights = weights[kept] / weights.max()  # 1e308s would sum to inf
    return float(np.average(changed[kept], weights=weights))
