"""Fairness-aware model selection: a ``refit`` rule for multi-metric searches."""

from __future__ import annotations

import numbers

import numpy as np

MISSING_KEY_ERROR = (
    "cv_results_ has no column {key!r}: fairest_within(fairness={fairness!r}, "
    "performance={performance!r}) needs both names among the search's scoring "
    "keys; available: {available}."
)
NO_CANDIDATE_ERROR = (
    "fairest_within: no candidate has a finite mean {which} score; every fit or "
    "score failed (see the search's error_score and warnings)."
)
TOLERANCE_ERROR = "tolerance must be a real number in (0, 1]; got {value!r}."


def checked_real(value, ok, error):
    """``float(value)`` for a real number (not a bool) that passes ``ok``.

    Anything else raises a ValueError, ``error`` formatted with ``value``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not ok(value):
        raise ValueError(error.format(value=value))
    return float(value)


def check_tolerance(tolerance):
    """``tolerance`` as a float in (0, 1]."""
    return checked_real(tolerance, lambda t: 0 < t <= 1, TOLERANCE_ERROR)


def tolerance_floor(best, tolerance):
    """The least performance within ``tolerance`` of ``best``.

    ``tolerance * best`` for a positive best score; for a negative one (a
    negated loss), ``best - (1 - tolerance) * |best|``, so the floor is below
    the best either way. The one rule of :class:`fairest_within`,
    :func:`threshold_tradeoff` and the trade-off figure.

    Examples
    --------
    >>> tolerance_floor(0.8, 0.95), tolerance_floor(-0.2, 0.95)
    (0.76, -0.21)
    """
    return float(best - (1.0 - tolerance) * abs(best))


class fairest_within:
    """A ``refit`` rule: the fairest candidate whose performance is near the best.

    For multi-metric :class:`~sklearn.model_selection.GridSearchCV` or
    :class:`~sklearn.model_selection.RandomizedSearchCV`: among the candidates
    whose mean test ``performance`` is at least ``tolerance`` times the best
    (for a negative best score, within ``(1 - tolerance) * |best|`` of it), pick
    the one with the highest mean test ``fairness`` score, that is the lowest
    unfairness for skfair's negated scorers. Ties go to the better
    performance, then to the first candidate. This is the selection protocol
    of the MCDP paper (Jin et al., ICML 2024, Table 1: the fairest model
    keeping at least 95 % of the unconstrained model's average precision).

    Parameters
    ----------
    fairness : str
        Scoring key of the fairness scorer (greater is fairer, as skfair's
        scorers are).
    performance : str
        Scoring key of the performance scorer (greater is better).
    tolerance : float, default=0.95
        Fraction of the best performance a candidate must keep.

    Examples
    --------
    >>> from skfair.model_selection import fairest_within
    >>> rule = fairest_within(fairness="mcdp", performance="ap", tolerance=0.9)

    Candidates 0 and 2 keep 90 % of the best average precision; 2 is fairer:

    >>> rule({"mean_test_ap": [0.80, 0.70, 0.75], "mean_test_mcdp": [-0.3, 0, -0.1]})
    2

    As the ``refit`` of a multi-metric search:

    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skfair.metrics import make_mcdp_scorer
    >>> X, y = make_classification(400, n_features=3, n_informative=2,
    ...                            n_redundant=0, random_state=0)
    >>> X[:, 2] = X[:, 0] > 0  # a binary sensitive column
    >>> search = GridSearchCV(
    ...     LogisticRegression(), {"C": [0.001, 0.01, 1.0]},
    ...     scoring={"ap": "average_precision",
    ...              "mcdp": make_mcdp_scorer(sensitive=2)},
    ...     refit=rule,
    ... ).fit(X, y)
    >>> search.best_index_ == rule(search.cv_results_)
    True
    """

    def __init__(self, *, fairness, performance, tolerance=0.95):
        tolerance = check_tolerance(tolerance)
        self.fairness = fairness
        self.performance = performance
        self.tolerance = tolerance

    def __repr__(self):
        return (
            f"fairest_within(fairness={self.fairness!r}, "
            f"performance={self.performance!r}, tolerance={self.tolerance!r})"
        )

    def _columns(self, cv_results):
        """Mean test performance and fairness of every candidate."""
        columns = []
        for name in (self.performance, self.fairness):
            key = f"mean_test_{name}"
            if key not in cv_results:
                available = sorted(
                    k[len("mean_test_") :]
                    for k in cv_results
                    if k.startswith("mean_test_")
                )
                raise KeyError(
                    MISSING_KEY_ERROR.format(
                        key=key,
                        fairness=self.fairness,
                        performance=self.performance,
                        available=available,
                    )
                )
            columns.append(np.asarray(cv_results[key], dtype=np.float64))
        return columns

    def eligible(self, cv_results):
        """Boolean mask of the candidates within tolerance of the best.

        Parameters
        ----------
        cv_results : dict
            A search's ``cv_results_``.

        Returns
        -------
        mask : ndarray of bool
        """
        performance, fairness = self._columns(cv_results)
        valid = np.isfinite(performance) & np.isfinite(fairness)
        if not valid.any():
            raise ValueError(
                NO_CANDIDATE_ERROR.format(which="fairness and performance")
            )
        best = performance[valid].max()
        return valid & (performance >= tolerance_floor(best, self.tolerance))

    def __call__(self, cv_results):
        """Index of the selected candidate in a search's ``cv_results_``."""
        candidates = np.flatnonzero(self.eligible(cv_results))
        performance, fairness = (c[candidates] for c in self._columns(cv_results))
        # lexsort: last key is primary -> fairness, then performance, then index.
        return int(candidates[np.lexsort((candidates, -performance, -fairness))[0]])
