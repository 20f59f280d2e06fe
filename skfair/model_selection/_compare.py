"""Cross-validated comparison of several estimators on accuracy and fairness.

Built on :func:`sklearn.model_selection.cross_validate` (which brings
``return_train_score`` and metadata routing of fit parameters); skfair adds
the tidy mean/std table over the folds where a metric is defined, the default
fairness scoring and a progress report.
"""

from __future__ import annotations

import numbers
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold, check_cv, cross_validate

from skfair.metrics import (
    demographic_parity_gap,
    equal_opportunity_gap,
    predictive_quality_parity_gap,
)
from skfair.utils import select_sensitive
from skfair.utils._sensitive_spec import check_sensitive_spec

ESTIMATORS_TYPE_ERROR = (
    "estimators must be a dict {{name: estimator}} or a list of (name, "
    "estimator) pairs; got {kind}."
)
ESTIMATORS_EMPTY_ERROR = "estimators is empty; give at least one estimator."
ESTIMATOR_NAME_ERROR = "estimator names must be unique strings; got {names}."
NOT_AN_ESTIMATOR_ERROR = "estimators[{name!r}] has no fit method; got {kind}."
SCORING_TYPE_ERROR = (
    "scoring must be None, a dict {{name: scorer or scikit-learn scorer "
    "name}}, or a callable(estimator, X, y) returning a dict {{name: value}}; "
    "got {kind}."
)
SENSITIVE_REQUIRED_ERROR = (
    "compare_estimators needs sensitive= (column name(s) or index(es) of X) "
    "for its default fairness metrics, or an explicit scoring."
)
FIT_FAILED_ERROR = "estimator {name!r} failed in cross-validation: {error}"

#: The HFM paper's group gaps, by metric name.
_GAPS = (
    ("dp", demographic_parity_gap),
    ("eo", equal_opportunity_gap),
    ("pqp", predictive_quality_parity_gap),
)
SUMMARY_COLUMNS = ["estimator", "metric", "mean", "std", "n_folds"]
FOLD_COLUMNS = ["estimator", "fold", "metric", "value"]


def _check_estimators(estimators):
    if isinstance(estimators, dict):
        pairs = list(estimators.items())
    elif isinstance(estimators, (list, tuple)):
        pairs = []
        for item in estimators:
            if not (isinstance(item, (list, tuple)) and len(item) == 2):
                raise TypeError(
                    ESTIMATORS_TYPE_ERROR.format(kind=f"a list holding {item!r}")
                )
            pairs.append(tuple(item))
    else:
        raise TypeError(ESTIMATORS_TYPE_ERROR.format(kind=type(estimators).__name__))
    if not pairs:
        raise ValueError(ESTIMATORS_EMPTY_ERROR)
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names) or not all(isinstance(n, str) for n in names):
        raise ValueError(ESTIMATOR_NAME_ERROR.format(names=names))
    for name, estimator in pairs:
        if not hasattr(estimator, "fit"):
            raise TypeError(
                NOT_AN_ESTIMATOR_ERROR.format(name=name, kind=type(estimator).__name__)
            )
    return pairs


class _GapScoring:
    """Accuracy, F1 and, per sensitive column, the HFM paper's group gaps.

    A callable ``(estimator, X, y) -> dict``. The gaps compare the privileged
    group (``privileged[column]``, or the metric's default rule) with the
    rest. The positive label is ``pos_label``, or ``estimator.classes_[-1]``:
    never read from the fold, which may hold one class only. Subclasses add
    metrics per attribute through ``_context`` and ``_attribute_scores``.
    """

    def __init__(self, sensitive, *, privileged=None, pos_label=None):
        self.sensitive = sensitive
        self.privileged = privileged
        self.pos_label = pos_label

    def _context(self, estimator, X):
        return None

    def _attribute_scores(self, estimator, X, y_true, y_pred, labels, context):
        return {}

    def __call__(self, estimator, X, y):
        context = self._context(estimator, X)
        y_true, y_pred = np.asarray(y), np.asarray(estimator.predict(X))
        positive = self.pos_label
        if positive is None:
            positive = estimator.classes_[-1]
        scores = {
            "accuracy": accuracy_score(y_true, y_pred),
            "f1": f1_score(y_true, y_pred, pos_label=positive, zero_division=np.nan),
        }
        groups = select_sensitive(X, self.sensitive)
        for attribute in groups.columns:
            kwargs = {"sensitive_features": groups[attribute], "pos_label": positive}
            if self.privileged is not None:
                kwargs["privileged"] = self.privileged[attribute]
            with warnings.catch_warnings():
                # Undefined on this fold: NaN, counted in n_folds.
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                for key, gap in _GAPS:
                    scores[f"{key}[{attribute}]"] = gap(y_true, y_pred, **kwargs)
            scores.update(
                self._attribute_scores(
                    estimator, X, y_true, y_pred, groups[attribute], context
                )
            )
        return {name: float(value) for name, value in scores.items()}


def _mean_std(values):
    """Mean, sample std (ddof=1) and count over the defined (non-NaN) values."""
    defined = values[~np.isnan(values)]
    n = defined.size
    if n == 0:
        return np.nan, np.nan, 0
    with np.errstate(invalid="ignore"):  # inf - inf in the std of infinite values
        std = float(np.std(defined, ddof=1)) if n > 1 else np.nan
    return float(np.mean(defined)), std, n


class _Progress:
    """A tqdm bar on a terminal, else one line per finished estimator."""

    def __init__(self, total, enabled):
        self.total, self.done, self.bar = total, 0, None
        self.enabled = enabled
        if enabled and sys.stderr.isatty():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="compare_estimators", unit="estimator")

    def update(self, name, seconds):
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
            if self.done == self.total:
                self.bar.close()
        elif self.enabled:
            print(
                f"compare_estimators: {name} done ({self.done}/{self.total}, "
                f"{seconds:.1f} s)",
                file=sys.stderr,
                flush=True,
            )


def compare_estimators(
    estimators,
    X,
    y,
    *,
    sensitive,
    cv=5,
    scoring=None,
    n_jobs=None,
    random_state=None,
    progress=True,
    return_folds=False,
    return_train_score=False,
    params=None,
):
    """Cross-validate several estimators and tabulate accuracy and fairness.

    Every estimator is cross-validated by
    :func:`~sklearn.model_selection.cross_validate` on the same folds; the
    result is a tidy table of the mean and standard deviation over the
    folds, one row per estimator and metric.

    Parameters
    ----------
    estimators : dict or list of (str, estimator)
        The estimators to compare, by name (names are kept in this order).
    X : {array-like, DataFrame} of shape (n_samples, n_features)
        The data, including the sensitive column(s) the estimators or scorers
        read.
    y : array-like of shape (n_samples,)
        Binary target.
    sensitive : str, int, list or None
        The sensitive column(s) of ``X`` (names for a DataFrame, integer
        indices for an array) used by the default scoring; may be None when
        ``scoring`` is given.
    cv : int, cross-validation generator or iterable, default=5
        An int gives a shuffled :class:`~sklearn.model_selection.StratifiedKFold`
        with that many folds, seeded by ``random_state``; anything else is
        passed to :func:`~sklearn.model_selection.check_cv`.
    scoring : dict, callable or None, default=None
        ``None``: accuracy, F1 (of the larger label of ``y``) and, for every sensitive
        column ``a``, ``dp[a]``, ``eo[a]`` and ``pqp[a]``, the HFM paper's
        demographic-parity, equal-opportunity and predictive-quality-parity
        gaps between its two groups (lower is fairer; a gap undefined on a
        fold is NaN there). Every sensitive column must then hold exactly two
        groups; for more, pass a scoring that names the privileged group,
        e.g. :func:`~skfair.model_selection.hfm_paper_scoring`.
        A dict maps metric names to scorers ``scorer(estimator, X, y)`` or
        scikit-learn scorer names. A callable ``scoring(estimator, X, y)``
        returns a dict ``{metric: value}`` (several metrics from one pass).
        Values are reported as the scorers return them: skfair's
        ``make_*_scorer`` scorers are negated (greater is better).
    n_jobs : int or None, default=None
        Number of folds fitted in parallel (``cross_validate``'s ``n_jobs``).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling of the folds when ``cv`` is an int; pass an int
        for reproducible folds. The estimators keep their own random_state.
    progress : bool, default=True
        Report progress on stderr: a tqdm bar over the estimators when
        stderr is a terminal, else one line per finished estimator (so that
        logs show it).
    return_folds : bool, default=False
        Also return the per-fold scores and times.
    return_train_score : bool, default=False
        Also score the training folds; their metrics are named ``train_``
        followed by the metric's name.
    params : dict or None, default=None
        Fit parameters (e.g. ``sample_weight``) routed to the estimators and
        scorers as by ``cross_validate``'s ``params``.

    Returns
    -------
    summary : DataFrame
        Columns ``estimator``, ``metric``, ``mean``, ``std`` and ``n_folds``,
        one row per estimator and metric, in the order of ``estimators`` and
        of the metrics. ``mean`` and ``std`` (the sample standard deviation,
        ``ddof=1``, as in the HFM paper's tables) are taken over the
        ``n_folds`` folds where the metric is defined: a metric that is NaN on
        a fold (e.g. a precision gap when a group has no positive prediction)
        is left out there, and is NaN in the summary if it is undefined on
        every fold.
    folds : DataFrame
        Only when ``return_folds``: columns ``estimator``, ``fold``,
        ``metric``, ``value``, plus ``fit_time`` and ``score_time`` in
        seconds.

    Raises
    ------
    RuntimeError
        When an estimator fails to fit or be scored; the message names the
        estimator, and the original error is chained.

    See Also
    --------
    sklearn.model_selection.cross_validate : One estimator, per-fold arrays.
    hfm_paper_learners : The learners of the HFM paper's comparison.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skfair.model_selection import compare_estimators
    >>> rng = np.random.default_rng(0)
    >>> X = np.column_stack([rng.normal(size=200), rng.integers(0, 2, 200)])
    >>> y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> summary = compare_estimators(
    ...     {"logreg": LogisticRegression(),
    ...      "tree": DecisionTreeClassifier(max_depth=2, random_state=0)},
    ...     X, y, sensitive=1, cv=3, random_state=0, progress=False,
    ... )
    >>> summary.columns.tolist()
    ['estimator', 'metric', 'mean', 'std', 'n_folds']
    >>> summary["metric"].unique().tolist()
    ['accuracy', 'f1', 'dp[x1]', 'eo[x1]', 'pqp[x1]']
    """
    pairs = _check_estimators(estimators)
    if scoring is None:
        if sensitive is None:
            raise ValueError(SENSITIVE_REQUIRED_ERROR)
        check_sensitive_spec(sensitive)
        scoring = _GapScoring(sensitive, pos_label=np.unique(np.asarray(y))[-1])
    elif not (isinstance(scoring, dict) or callable(scoring)):
        raise TypeError(SCORING_TYPE_ERROR.format(kind=type(scoring).__name__))
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        cv = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=random_state)
    else:
        cv = check_cv(cv, y, classifier=True)
    splits = list(cv.split(X, np.asarray(y)))
    rows = []
    report = _Progress(len(pairs), progress)
    for name, estimator in pairs:
        start = time.perf_counter()
        try:
            result = cross_validate(
                estimator,
                X,
                y,
                cv=splits,
                scoring=scoring,
                n_jobs=n_jobs,
                return_train_score=return_train_score,
                params=params,
                error_score="raise",
            )
        except Exception as error:
            raise RuntimeError(
                FIT_FAILED_ERROR.format(name=name, error=error)
            ) from error
        report.update(name, time.perf_counter() - start)
        for key, values in result.items():
            if key.startswith(("test_", "train_")):
                metric = key.removeprefix("test_")
                rows += [
                    (
                        name,
                        k,
                        metric,
                        float(v),
                        result["fit_time"][k],
                        result["score_time"][k],
                    )
                    for k, v in enumerate(values)
                ]
    folds = pd.DataFrame(rows, columns=[*FOLD_COLUMNS, "fit_time", "score_time"])
    groups = folds.groupby(["estimator", "metric"], sort=False)["value"]
    summary = pd.DataFrame(
        [(*key, *_mean_std(values.to_numpy())) for key, values in groups],
        columns=SUMMARY_COLUMNS,
    )
    return (summary, folds) if return_folds else summary
