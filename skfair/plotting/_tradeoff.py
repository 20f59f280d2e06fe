"""The fairness–performance trade-off of a model search or comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..model_selection import fairest_within
from ..model_selection._selection import tolerance_floor
from ._base import TEXT_BOX, _FairnessDisplayMixin
from ._threshold_disparity import DISPARITY_NAME

MISSING_METRIC_ERROR = "{where} has no {what} {key!r}; available: {available}."
TABLE_COLUMNS_ERROR = (
    "table must be a compare_estimators summary with columns {expected}; got "
    "columns {columns}."
)
MIXED_SIGN_ERROR = (
    "cannot tell whether {metric!r} is a gap (lower is fairer, >= 0) or a "
    "negated score (greater is fairer, <= 0): its means have both signs. Pass "
    "fairness_greater_is_better=True or False."
)


def pareto_front(performance, unfairness):
    """Mask of the candidates no other candidate dominates.

    A candidate is dominated when another has performance at least as high
    and unfairness at least as low, and is strictly better in one of them.
    Candidates with a non-finite coordinate are never on the front (and
    dominate nothing).

    Parameters
    ----------
    performance : array-like of shape (n_candidates,)
        Greater is better.
    unfairness : array-like of shape (n_candidates,)
        Lower is fairer.

    Returns
    -------
    mask : ndarray of bool of shape (n_candidates,)
    """
    p = np.asarray(performance, dtype=np.float64)
    u = np.asarray(unfairness, dtype=np.float64)
    finite = np.isfinite(p) & np.isfinite(u)
    p_f, u_f = p[finite], u[finite]
    weakly = (p_f[None, :] >= p_f[:, None]) & (u_f[None, :] <= u_f[:, None])
    strictly = (p_f[None, :] > p_f[:, None]) | (u_f[None, :] < u_f[:, None])
    mask = np.zeros(p.shape, dtype=bool)
    mask[finite] = ~(weakly & strictly).any(axis=1)
    return mask


def _format_value(value):
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def _format_params(params):
    return ", ".join(f"{key}={_format_value(value)}" for key, value in params.items())


def _column(results, key, where, what):
    if key not in results:
        available = sorted(str(k) for k in results)
        raise KeyError(
            MISSING_METRIC_ERROR.format(
                where=where, what=what, key=key, available=available
            )
        )
    return np.asarray(results[key], dtype=np.float64)


class FairnessTradeoffDisplay(_FairnessDisplayMixin):
    """Fairness against performance of candidate models, with the selection rule.

    Each candidate (a hyper-parameter setting of a search, or an estimator of
    :func:`skfair.model_selection.compare_estimators`) is a point at its mean
    performance and unfairness, with error bars of one standard deviation
    over the folds. The Pareto front joins the candidates no other beats on
    both axes; the vertical tolerance line is ``tolerance`` × the best mean
    performance, and the star marks the candidate that
    :class:`skfair.model_selection.fairest_within` picks: the fairest one to
    the right of that line.

    :meth:`from_threshold_tradeoff` draws the same picture for one model's
    decision thresholds, from :func:`skfair.model_selection.threshold_tradeoff`:
    each point a threshold, performance (balanced accuracy by default)
    against ΔDP_b^t, thresholds at which some group's positive rate is 0 or 1
    drawn as excluded crosses and never recommended.

    :meth:`from_tolerances` draws a post-processor's accuracy against its
    parity gap, one fitted rule per tolerance.

    Parameters
    ----------
    performance : ndarray of shape (n_candidates,)
        Mean performance (greater is better).
    unfairness : ndarray of shape (n_candidates,)
        Mean unfairness (lower is fairer): the fairness metric, i.e. minus
        skfair's negated fairness score.
    performance_std : ndarray of shape (n_candidates,) or None, default=None
        Standard deviation of the performance over the folds.
    unfairness_std : ndarray of shape (n_candidates,) or None, default=None
        Standard deviation of the unfairness over the folds.
    candidate_names : list of str or None, default=None
        A name per candidate (the selected one is annotated with it).
    selected : int or None, default=None
        Index of the candidate ``fairest_within`` picks.
    tolerance_floor : float or None, default=None
        The least performance ``fairest_within`` accepts.
    tolerance : float or None, default=None
        The tolerance, shown in the legend.
    performance_name : str, default="performance"
        Axis label.
    fairness_name : str, default="unfairness"
        Axis label.
    excluded : ndarray of bool of shape (n_candidates,) or None, default=None
        Candidates the rule never picks (in the threshold mode: thresholds
        at which some group's positive rate is 0 or 1), drawn as grey
        crosses and left out of the Pareto front.
    pick_label : str, default="picked by fairest_within"
        The legend's text for the selected candidate.

    Attributes
    ----------
    errorbar_ : matplotlib ErrorbarContainer
        The candidates with their error bars.
    pareto_mask_ : ndarray of bool
        Which candidates are on the Pareto front.
    pareto_line_ : matplotlib Line2D
        The Pareto front, in increasing performance.
    tolerance_line_ : matplotlib Line2D or None
        The vertical line at ``tolerance_floor``.
    excluded_marker_ : matplotlib Line2D or None
        The excluded candidates (grey crosses), if any.
    selected_marker_ : matplotlib Line2D or None
        The star on the selected candidate.
    annotation_ : matplotlib Annotation or None
        The selected candidate's name.
    tradeoff_ : ThresholdTradeoff
        Only in the threshold mode (:meth:`from_threshold_tradeoff`): the
        candidates and the pick.
    ax_, figure_ : matplotlib Axes and Figure
        The axes with the plot, and its figure.

    See Also
    --------
    skfair.model_selection.fairest_within : The selection rule drawn.
    skfair.model_selection.compare_estimators : A table this Display reads.
    skfair.model_selection.threshold_tradeoff : The threshold mode's rule.

    Examples
    --------
    >>> from skfair.plotting import FairnessTradeoffDisplay
    >>> cv_results = {
    ...     "params": [{"C": 0.01}, {"C": 0.1}, {"C": 1.0}],
    ...     "mean_test_ap": [0.70, 0.78, 0.80], "std_test_ap": [0.01] * 3,
    ...     "mean_test_mcdp": [-0.05, -0.10, -0.20],
    ...     "std_test_mcdp": [0.01] * 3,
    ... }
    >>> display = FairnessTradeoffDisplay.from_cv_results(
    ...     cv_results, fairness="mcdp", performance="ap", tolerance=0.95)
    >>> display.selected, display.pareto_mask_.tolist()
    (1, [True, True, True])
    """

    def __init__(
        self,
        *,
        performance,
        unfairness,
        performance_std=None,
        unfairness_std=None,
        candidate_names=None,
        selected=None,
        tolerance_floor=None,
        tolerance=None,
        performance_name="performance",
        fairness_name="unfairness",
        excluded=None,
        pick_label="picked by fairest_within",
    ):
        self.performance = performance
        self.unfairness = unfairness
        self.performance_std = performance_std
        self.unfairness_std = unfairness_std
        self.candidate_names = candidate_names
        self.selected = selected
        self.tolerance_floor = tolerance_floor
        self.tolerance = tolerance
        self.performance_name = performance_name
        self.fairness_name = fairness_name
        self.excluded = excluded
        self.pick_label = pick_label

    def plot(self, ax=None, *, annotate=True):
        """Draw the candidates, the Pareto front, the tolerance and the pick.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        annotate : bool, default=True
            Whether to write the selected candidate's name next to it.

        Returns
        -------
        display : FairnessTradeoffDisplay
        """
        ax = self._set_axes(ax)
        p = np.asarray(self.performance, dtype=np.float64)
        u = np.asarray(self.unfairness, dtype=np.float64)
        excluded = np.zeros(p.shape, dtype=bool)
        if self.excluded is not None:
            excluded = np.asarray(self.excluded, dtype=bool)
        self._draw_candidates(ax, p, u, excluded)
        self.pareto_mask_ = pareto_front(p, np.where(excluded, np.nan, u))
        front = np.flatnonzero(self.pareto_mask_)
        front = front[np.lexsort((u[front], p[front]))]
        (self.pareto_line_,) = ax.plot(
            p[front], u[front], "--", color="C1", linewidth=1.5, label="Pareto front"
        )
        self.tolerance_line_ = None
        if self.tolerance_floor is not None:
            label = "tolerance"
            if self.tolerance is not None:
                label = f"{self.tolerance:.0%} of the best {self.performance_name}"
            self.tolerance_line_ = ax.axvline(
                self.tolerance_floor, color="0.35", linestyle=":", label=label
            )
        self.selected_marker_ = self.annotation_ = None
        if self.selected is not None:
            self._draw_pick(ax, p, u, annotate)
        ax.set(
            xlabel=f"{self.performance_name} (higher is better)",
            ylabel=f"{self.fairness_name} (lower is fairer)",
        )
        # above the axes: the points and the pick stay visible
        ax.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.02),
            ncols=2,
            fontsize="small",
            borderaxespad=0.0,
        )
        return self

    def _draw_candidates(self, ax, p, u, excluded):
        """The candidates (with error bars) and the excluded ones (grey crosses)."""
        small = p.size > 40  # many thresholds: smaller points
        keep = ~excluded

        def std(values):
            return None if values is None else np.asarray(values)[keep]

        self.errorbar_ = ax.errorbar(
            p[keep],
            u[keep],
            xerr=std(self.performance_std),
            yerr=std(self.unfairness_std),
            fmt="o",
            markersize=3 if small else 6,
            color="C0",
            ecolor=(0.12, 0.47, 0.71, 0.3),
            elinewidth=1,
            capsize=2,
            label=(
                "_nolegend_"  # every threshold excluded: no candidate is drawn
                if not keep.any()
                else "candidate (mean ± std over folds)"
                if self.performance_std is not None or self.unfairness_std is not None
                else "candidate"
            ),
        )
        self.excluded_marker_ = None
        if excluded.any():
            (self.excluded_marker_,) = ax.plot(
                p[excluded],
                u[excluded],
                "x",
                color="0.6",
                markersize=3 if small else 6,
                linestyle="",
                label="excluded: a group's positive rate is 0 or 1",
            )

    def _draw_pick(self, ax, p, u, annotate):
        """The star on the selected candidate, and its name."""
        k = int(self.selected)
        (self.selected_marker_,) = ax.plot(
            [p[k]],
            [u[k]],
            marker="*",
            markersize=16,
            linestyle="",
            color="C3",
            zorder=5,
            label=self.pick_label,
        )
        if annotate and self.candidate_names is not None:
            self.annotation_ = ax.annotate(
                str(self.candidate_names[k]),
                xy=(p[k], u[k]),
                xytext=(0, 12),
                textcoords="offset points",
                ha="center",
                fontsize="small",
                bbox=TEXT_BOX,
                zorder=6,
            )

    @classmethod
    def from_cv_results(
        cls,
        cv_results,
        *,
        fairness,
        performance,
        tolerance=0.95,
        candidate_names=None,
        ax=None,
        annotate=True,
    ):
        """Plot the trade-off of a multi-metric search's candidates.

        Parameters
        ----------
        cv_results : dict of array-like
            The ``cv_results_`` of a fitted multi-metric
            :class:`~sklearn.model_selection.GridSearchCV` (or any search),
            with ``mean_test_<key>`` and ``std_test_<key>`` for both keys.
        fairness : str
            Scoring key of the fairness scorer, greater is fairer (skfair's
            scorers are negated metrics); the plot shows minus its score,
            i.e. the metric, lower is fairer.
        performance : str
            Scoring key of the performance scorer, greater is better.
        tolerance : float, default=0.95
            As in :class:`skfair.model_selection.fairest_within`.
        candidate_names : list of str or None, default=None
            A name per candidate; formatted from ``cv_results["params"]`` if
            None.
        ax, annotate
            See :meth:`plot`.

        Returns
        -------
        display : FairnessTradeoffDisplay
            The candidates, the Pareto front and the pick, drawn.

        Examples
        --------
        With ``fairest_within`` as the search's ``refit``, the star is the
        refitted candidate:

        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.model_selection import GridSearchCV
        >>> from skfair.metrics import make_mcdp_scorer
        >>> from skfair.model_selection import fairest_within
        >>> from skfair.plotting import FairnessTradeoffDisplay
        >>> rng = np.random.default_rng(0)
        >>> X = np.column_stack([rng.normal(size=300), rng.integers(0, 2, 300)])
        >>> y = (X[:, 0] + X[:, 1] + rng.normal(size=300) > 0.5).astype(int)
        >>> rule = fairest_within(fairness="mcdp", performance="ap")
        >>> scoring = {"ap": "average_precision", "mcdp": make_mcdp_scorer(sensitive=1)}
        >>> search = GridSearchCV(LogisticRegression(), {"C": [0.001, 0.01, 1.0]},
        ...                       scoring=scoring, refit=rule).fit(X, y)
        >>> display = FairnessTradeoffDisplay.from_cv_results(
        ...     search.cv_results_, fairness="mcdp", performance="ap")
        >>> display.selected == search.best_index_
        True
        """
        keys = (performance, fairness)
        means = [
            _column(cv_results, f"mean_test_{k}", "cv_results", "column") for k in keys
        ]
        stds = [cv_results.get(f"std_test_{k}") for k in keys]
        if candidate_names is None and "params" in cv_results:
            candidate_names = [_format_params(p) for p in cv_results["params"]]
        display = cls._pick(means, stds, keys, candidate_names, tolerance)
        return display.plot(ax=ax, annotate=annotate)

    @classmethod
    def from_compare_table(
        cls,
        table,
        *,
        fairness,
        performance,
        tolerance=0.95,
        fairness_greater_is_better=None,
        ax=None,
        annotate=True,
    ):
        """Plot the trade-off of a :func:`compare_estimators` summary.

        Parameters
        ----------
        table : DataFrame
            The summary of :func:`skfair.model_selection.compare_estimators`:
            one row per estimator and metric with columns ``estimator``,
            ``metric``, ``mean`` and ``std``.
        fairness : str
            The fairness metric's name in the ``metric`` column, e.g.
            ``"dp[sex]"`` (a gap, lower is fairer) or the key of a skfair
            scorer passed in ``scoring`` (negated, greater is fairer).
        performance : str
            The performance metric's name, greater is better (e.g.
            ``"accuracy"``).
        fairness_greater_is_better : bool or None, default=None
            Whether the fairness values are scores (greater is fairer, like
            skfair's negated scorers) or metrics (lower is fairer, like the
            default ``dp``/``eo``/``pqp`` gaps). None infers it from the
            sign: all means <= 0 are negated scores, all >= 0 are gaps, and
            mixed signs raise a ValueError. Pass it explicitly for a fairness
            score that is positive and greater-is-better.
        tolerance, ax, annotate
            See :meth:`from_cv_results`.

        Returns
        -------
        display : FairnessTradeoffDisplay
            The candidates, the Pareto front and the pick, drawn.

        Examples
        --------
        >>> import pandas as pd
        >>> from skfair.plotting import FairnessTradeoffDisplay
        >>> table = pd.DataFrame({
        ...     "estimator": ["a", "a", "b", "b"],
        ...     "metric": ["accuracy", "dp[sex]"] * 2,
        ...     "mean": [0.85, 0.20, 0.83, 0.05], "std": [0.01] * 4,
        ...     "n_folds": [5] * 4})
        >>> display = FairnessTradeoffDisplay.from_compare_table(
        ...     table, fairness="dp[sex]", performance="accuracy")
        >>> display.candidate_names[display.selected]
        'b'
        """
        expected = ["estimator", "metric", "mean", "std"]
        if not isinstance(table, pd.DataFrame) or any(
            c not in table.columns for c in expected
        ):
            columns = list(getattr(table, "columns", []))
            raise ValueError(
                TABLE_COLUMNS_ERROR.format(expected=expected, columns=columns)
            )
        names = list(dict.fromkeys(table["estimator"].tolist()))
        mean, std = (
            table.pivot(index="estimator", columns="metric", values=v).loc[names]
            for v in ("mean", "std")
        )
        for key in (fairness, performance):
            _column(mean, key, "table", "metric")
        fair = mean[fairness].to_numpy(dtype=np.float64)
        if fairness_greater_is_better is None:
            finite = fair[np.isfinite(fair)]
            if (finite <= 0).all():
                fairness_greater_is_better = True
            elif (finite >= 0).all():
                fairness_greater_is_better = False
            else:
                raise ValueError(MIXED_SIGN_ERROR.format(metric=fairness))
        score = fair if fairness_greater_is_better else -fair
        keys = (performance, fairness)
        means = [mean[performance].to_numpy(dtype=np.float64), score]
        stds = [std[k].to_numpy(dtype=np.float64) for k in keys]
        display = cls._pick(means, stds, keys, names, tolerance)
        return display.plot(ax=ax, annotate=annotate)

    @classmethod
    def from_threshold_tradeoff(cls, tradeoff, *, ax=None, annotate=True):
        """Plot a :func:`~skfair.model_selection.threshold_tradeoff` result.

        Each candidate is a threshold ``t`` (decisions ``y_score >= t``), at
        its performance and its positive-rate gap ΔDP_b^t; the star shows
        :func:`~skfair.model_selection.threshold_tradeoff`'s rule: the
        fairest threshold whose performance is within ``tolerance`` of the
        best, never one at which a group's positive rate is 0 or 1 (those are
        drawn as grey crosses). Balanced accuracy, its default, does not
        reward trivial classifiers. One model on one set of data: no error
        bars. Pass e.g. the ``tradeoff`` an audit report holds, and the
        figure shows exactly the report's pick.

        Parameters
        ----------
        tradeoff : ThresholdTradeoff
            What :func:`skfair.model_selection.threshold_tradeoff` returned.
        ax, annotate
            See :meth:`plot`.

        Returns
        -------
        display : FairnessTradeoffDisplay
            The thresholds, the Pareto front and the recommended threshold,
            drawn; ``display.tradeoff_`` is ``tradeoff``.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> group = rng.integers(0, 2, 1000)
        >>> score = rng.beta(2, 5 - group, 1000)
        >>> y = (rng.random(1000) < score).astype(int)
        >>> from skfair.model_selection import threshold_tradeoff
        >>> from skfair.plotting import FairnessTradeoffDisplay
        >>> result = threshold_tradeoff(y, score, sensitive_features=group,
        ...                             performance="f1")
        >>> display = FairnessTradeoffDisplay.from_threshold_tradeoff(result)
        >>> display.ax_.get_xlabel()
        'f1 (higher is better)'
        """
        table = tradeoff.candidates
        selected = floor = None
        if tradeoff.threshold is not None:
            selected = int(np.flatnonzero(table["threshold"] == tradeoff.threshold)[0])
        if tradeoff.best_performance_value is not None:
            floor = tolerance_floor(tradeoff.best_performance_value, tradeoff.tolerance)
        display = cls(
            performance=table["performance"].to_numpy(dtype=np.float64),
            unfairness=table["delta_dp"].to_numpy(dtype=np.float64),
            candidate_names=[f"t = {t:.3g}" for t in table["threshold"]],
            selected=selected,
            tolerance_floor=floor,
            tolerance=tradeoff.tolerance,
            performance_name=tradeoff.performance.replace("_", " "),
            fairness_name=DISPARITY_NAME,
            excluded=table["trivial"].to_numpy(dtype=bool),
            pick_label="recommended threshold",
        )
        display.tradeoff_ = tradeoff
        return display.plot(ax=ax, annotate=annotate)

    @classmethod
    def from_tolerances(
        cls,
        estimator,
        X,
        y,
        *,
        tolerances=(0.0, 0.01, 0.02, 0.05, 0.1),
        sample_weight=None,
        ax=None,
        annotate=True,
    ):
        """Plot accuracy against the parity gap of a post-processor's tolerances.

        ``estimator`` (an unfitted
        :class:`~skfair.postprocessing.OptimalParityClassifier`, or any
        estimator with a ``tolerance`` parameter and fitted ``accuracy_`` and
        ``violation_``) is cloned and fitted once per tolerance; each point is
        a fitted rule at its accuracy and largest gap on the fit data, which
        for ``OptimalParityClassifier`` trace the exact optimum of the rule
        class. A :class:`~sklearn.frozen.FrozenEstimator` base model makes
        each fit a single linear program. Nothing is selected: use
        :class:`~sklearn.model_selection.GridSearchCV` over ``tolerance``
        with :func:`~skfair.model_selection.fairest_within` to pick one on
        held-out folds.

        Parameters
        ----------
        estimator : estimator instance
            The post-processor, unfitted.
        X, y : array-like
            The data it is fitted on.
        tolerances : sequence of float, default=(0.0, 0.01, 0.02, 0.05, 0.1)
            The tolerances to fit.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to every ``fit``.
        ax, annotate
            See :meth:`plot`.

        Returns
        -------
        display : FairnessTradeoffDisplay
            One point per tolerance and the Pareto front, drawn;
            ``display.estimators_`` holds the fitted post-processors.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.frozen import FrozenEstimator
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skfair.plotting import FairnessTradeoffDisplay
        >>> from skfair.postprocessing import OptimalParityClassifier
        >>> rng = np.random.default_rng(0)
        >>> group = rng.integers(0, 2, 2000)
        >>> x = rng.normal(group, 1.0, 2000)
        >>> X = np.column_stack([group, x])
        >>> y = (x + rng.normal(size=2000) > 0.5).astype(int)
        >>> model = FrozenEstimator(LogisticRegression().fit(X[:1000], y[:1000]))
        >>> display = FairnessTradeoffDisplay.from_tolerances(
        ...     OptimalParityClassifier(model, sensitive=0), X[1000:], y[1000:],
        ...     tolerances=[0.0, 0.1, 0.2])
        >>> [round(float(a), 3) for a in display.performance]
        [0.742, 0.753, 0.76]
        """
        fitted = [
            clone(estimator)
            .set_params(tolerance=tolerance)
            .fit(X, y, sample_weight=sample_weight)
            for tolerance in tolerances
        ]
        constraint = getattr(estimator, "constraint", "parity").replace("_", " ")
        display = cls(
            performance=np.array([e.accuracy_ for e in fitted]),
            unfairness=np.array([e.violation_ for e in fitted]),
            candidate_names=[f"tolerance={t:g}" for t in tolerances],
            performance_name="accuracy on the fit data",
            fairness_name=f"{constraint} gap",
        )
        display.estimators_ = fitted
        return display.plot(ax=ax, annotate=annotate)

    @classmethod
    def _pick(cls, means, stds, keys, candidate_names, tolerance):
        """The Display of ``(performance, fairness score)`` means and stds.

        The fairness score is greater-is-fairer, as ``fairest_within`` takes
        it; the Display shows its negation, the unfairness.
        """
        (perf, score), (perf_std, score_std) = means, stds
        rule = fairest_within(
            fairness="fairness", performance="performance", tolerance=tolerance
        )
        selected = rule({"mean_test_fairness": score, "mean_test_performance": perf})
        return cls(
            performance=perf,
            unfairness=-score,
            performance_std=None if perf_std is None else np.asarray(perf_std),
            unfairness_std=None if score_std is None else np.asarray(score_std),
            candidate_names=candidate_names,
            selected=selected,
            tolerance_floor=_floor(perf, score, rule.tolerance),
            tolerance=rule.tolerance,
            performance_name=keys[0],
            fairness_name=keys[1],
        )


def _floor(performance, fairness, tolerance):
    """The least performance ``fairest_within`` accepts (same formula)."""
    valid = np.isfinite(performance) & np.isfinite(fairness)
    return tolerance_floor(performance[valid].max(), tolerance)
