"""The demographic-parity gap of decisions ``y_score >= t`` against ``t``."""

from __future__ import annotations

import numpy as np

from ._base import (
    EXTREME,
    _FairnessDisplayMixin,
    annotate_beside,
    display_from_estimator,
    extreme_share,
    group_ecdfs,
    include_in_limits,
    mcdp_and_groupings,
    resolve_xscale,
    score_limits,
    set_score_axis,
    shared_doc,
)

AGG_ERROR = "agg must be 'max' or 'mean'; got {agg!r}."
DISPARITY_NAME = r"$\Delta DP_b^t$"
DISPARITY_LABEL = r"$\Delta DP_b^t$: positive-rate gap at t"
THRESHOLD_LABEL = r"decision threshold t  (positive if score $\geq$ t)"


def _positive_rates(scores, weights, grouping, thresholds):
    """``P(score >= t | group)`` for every group (rows) and threshold (columns)."""
    rates = np.empty((grouping.n_groups, thresholds.size))
    for code in range(grouping.n_groups):
        mask = grouping.codes == code
        group = scores[mask]
        order = np.argsort(group, kind="stable")
        values = group[order]
        below = np.searchsorted(values, thresholds, side="left")
        if weights is None:  # exact counts, as delta_dp computes them
            rates[code] = (values.size - below) / values.size
        else:
            cum = np.concatenate(([0.0], np.cumsum(weights[mask][order])))
            rates[code] = (cum[-1] - cum[below]) / cum[-1]
    return rates


def threshold_disparity(scores, weights, groupings, thresholds, agg="max"):
    """ΔDP_b^t at every threshold: ``agg`` over pairs, then max over groupings."""
    out = np.zeros(thresholds.size)
    for grouping in groupings:
        rates = _positive_rates(scores, weights, grouping, thresholds)
        if agg == "max":
            gap = rates.max(axis=0) - rates.min(axis=0)
        else:
            n = grouping.n_groups
            pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
            gap = sum(np.abs(rates[a] - rates[b]) for a, b in pairs) / len(pairs)
        out = np.maximum(out, gap)
    return out


class ThresholdDisparityDisplay(_FairnessDisplayMixin):
    """The positive-rate gap ΔDP_b^t between groups at every decision threshold.

    For decisions ``y_score >= t``, ΔDP_b^t is the largest difference between
    two groups' positive rates ``P(score >= t | group) = 1 - F(t⁻)``. The
    curve shows where a decision threshold would be unfair. Its maximum over
    ``t`` is MCDP(0), the largest CDF gap; the marker shows the smallest
    threshold that reaches it: the first score above the threshold ``t*``
    that :func:`skfair.metrics.mcdp_details` reports (with ``>=`` decisions,
    every ``t`` in ``(t*, next score]`` gives the gap ``|F_a(t*) - F_b(t*)|``).

    By default the curve is exact: it is evaluated at every distinct score
    and drawn as the left-continuous step function it is (constant on each
    interval between consecutive scores). ``thresholds`` evaluates it, still
    exactly, at given thresholds only (a line through those points), which
    keeps figures small for millions of scores.

    Parameters
    ----------
    thresholds : ndarray of shape (n_thresholds,)
        Thresholds ``t``, increasing.
    disparity : ndarray of shape (n_thresholds,)
        ΔDP_b^t at each threshold.
    peak_threshold : float or None, default=None
        The smallest threshold where ΔDP_b^t equals MCDP(0) (see above).
    peak_value : float or None, default=None
        ΔDP_b^t at ``peak_threshold``.
    mcdp_value : float or None, default=None
        MCDP(0), annotated.
    steps : bool, default=True
        Draw the exact left-continuous step function (``thresholds`` are all
        the distinct scores) rather than a line through the points.
    name : str or None, default=None
        Name of the model in the legend.
    extreme_share : float or None, default=None
        The share of the scores below 0.1 or above 0.9 (mean over groups),
        which ``xscale="auto"`` reads; None reads the thresholds instead.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The ΔDP_b^t curve.
    peak_marker_ : matplotlib Line2D or None
        The marker at ``(peak_threshold, peak_value)``.
    peak_line_ : matplotlib Line2D or None
        A vertical line at ``peak_threshold``.
    annotation_ : matplotlib Annotation or None
        The annotated MCDP(0) value.
    xscale_ : {"linear", "logit", "log"}
        The scale of the threshold axis.
    ax_, figure_ : matplotlib Axes and Figure
        The axes with the plot, and its figure.

    See Also
    --------
    skfair.metrics.delta_dp : ΔDP_b^t at one threshold.
    GroupCDFDisplay : The group CDFs and the MCDP location.

    Examples
    --------
    >>> from skfair.plotting import ThresholdDisparityDisplay
    >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
    >>> display = ThresholdDisparityDisplay.from_predictions(
    ...     None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5)
    >>> display.peak_threshold, display.peak_value, display.mcdp_value
    (0.33, 0.4, 0.4)
    """

    def __init__(
        self,
        *,
        thresholds,
        disparity,
        peak_threshold=None,
        peak_value=None,
        mcdp_value=None,
        steps=True,
        name=None,
        extreme_share=None,
    ):
        self.thresholds = thresholds
        self.disparity = disparity
        self.peak_threshold = peak_threshold
        self.peak_value = peak_value
        self.mcdp_value = mcdp_value
        self.steps = steps
        self.name = name
        self.extreme_share = extreme_share

    @shared_doc
    def plot(
        self, ax=None, *, name=None, line_kwargs=None, annotate=True, xscale="auto"
    ):
        """Draw ΔDP_b^t against t.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        name : str or None, default=None
            Name of the model for the legend; ``self.name`` if None.
        line_kwargs : dict or None, default=None
            Keyword arguments for matplotlib's ``plot`` of the curve.
        annotate : bool, default=True
            Whether to mark and annotate the MCDP(0) threshold.
        <xscale>

        Returns
        -------
        display : ThresholdDisparityDisplay
        """
        ax = self._set_axes(ax)
        name = self.name if name is None else name
        grid = np.asarray(self.thresholds, dtype=np.float64)
        inner = grid[1:-1] if self.steps and grid.size > 2 else grid
        share = self.extreme_share
        if share is None:  # no scores stored: read the thresholds themselves
            share = float(np.mean((inner < EXTREME) | (inner > 1 - EXTREME)))
        self.xscale_ = resolve_xscale(xscale, inner, share)
        limits = score_limits(self.xscale_, grid if self.xscale_ == "linear" else inner)
        peak_shown = True
        if self.peak_threshold is not None:  # the marker stays on the curve
            limits, peak_shown = include_in_limits(
                self.xscale_, limits, float(self.peak_threshold)
            )
        set_score_axis(ax, self.xscale_, limits, THRESHOLD_LABEL)
        kwargs = {"label": DISPARITY_NAME if name is None else name}
        if self.steps:
            kwargs["drawstyle"] = "steps-pre"
        kwargs.update(line_kwargs or {})
        drawn = np.clip(grid, *limits)
        shared = ax.has_data()  # another curve is on these axes: keep it in view
        (self.line_,) = ax.plot(drawn, self.disparity, **kwargs)
        top = np.nanmax(self.disparity, initial=0.0)
        if self.peak_value is not None:
            top = max(top, self.peak_value)
        top = 1.3 * top if top > 0 else 1.0
        if shared:
            top = max(top, ax.get_ylim()[1])
        ax.set(ylabel=DISPARITY_LABEL, ylim=(0, top))
        self.peak_marker_ = self.peak_line_ = self.annotation_ = None
        if annotate and self.peak_threshold is not None:
            self._mark_peak(
                ax, float(np.clip(self.peak_threshold, *limits)), peak_shown
            )
        # where the curve and the notes leave room (one entry: cheap to place)
        ax.legend(loc="best", fontsize="small")
        return self

    def _mark_peak(self, ax, t, shown):
        """The marker (on the curve), a dotted line and the MCDP(0) value at t.

        ``t`` is the peak threshold, on the axis (the limits include it)
        unless the scale cannot show it (``shown`` False: a logit axis and
        t = 1): then the marker is at the axis's edge, where the curve is
        drawn, and the note says so.
        """
        color = self.line_.get_color()
        v = self.peak_value
        self.peak_line_ = ax.axvline(t, color=color, linestyle=":", linewidth=1)
        (self.peak_marker_,) = ax.plot([t], [v], "o", color=color, zorder=4)
        where = "" if shown else " (beyond the axis)"
        self.annotation_ = annotate_beside(
            ax,
            f"MCDP(0) = {self.mcdp_value:.4g}\nreached from t = "
            f"{self.peak_threshold:.3g}{where}",
            (t, v),
            offset=(8, 8),
            va="bottom",
        )

    @classmethod
    @shared_doc
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        sensitive_features,
        thresholds=None,
        agg="max",
        combine="intersection",
        sample_weight=None,
        min_group_size=None,
        name=None,
        ax=None,
        line_kwargs=None,
        annotate=True,
        xscale="auto",
    ):
        """Plot ΔDP_b^t against the threshold t from scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            Ignored; its length is checked if given.
        y_score : array-like of shape (n_samples,)
            Scores.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, k)
            Group labels.
        thresholds : array-like of float or None, default=None
            Where to evaluate ΔDP_b^t. None: at every distinct score, plus
            one point on each side of them (where the gap is 0), drawn as
            the exact step function. Given thresholds are drawn as a line
            through their values, with the peak threshold (see above) added
            so that the line passes through the marker.
        agg : {"max", "mean"}, default="max"
            Aggregation over pairs of groups, as in
            :func:`skfair.metrics.delta_dp`. With "mean" the curve's maximum
            may be below MCDP(0), which is a maximum over pairs.
        combine : {"intersection", "marginal"}, default="intersection"
            How several attributes are combined.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        <min_group_size>
        name : str or None, default=None
            Name of the model in the legend.
        ax, line_kwargs, annotate, xscale
            See :meth:`plot`.

        Returns
        -------
        display : ThresholdDisparityDisplay
            The ΔDP_b^t curve, drawn.

        Examples
        --------
        >>> from skfair.plotting import ThresholdDisparityDisplay
        >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
        >>> display = ThresholdDisparityDisplay.from_predictions(
        ...     None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5,
        ...     thresholds=[0.25, 0.5])
        >>> display.thresholds.tolist(), display.disparity.tolist()
        ([0.25, 0.33, 0.5], [0.2, 0.4, 0.2])
        """
        if agg not in ("max", "mean"):
            raise ValueError(AGG_ERROR.format(agg=agg))
        details, scores, weights, groupings = mcdp_and_groupings(
            y_true,
            y_score,
            sensitive_features=sensitive_features,
            agg=agg,
            combine=combine,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
        )
        kept = np.logical_and.reduce([g.kept for g in groupings])
        distinct = np.unique(scores[kept])
        above = distinct[distinct > details.threshold]
        peak = float(above[0]) if above.size else float(details.threshold)
        steps = thresholds is None
        if steps:  # the peak is a distinct score, on the grid
            low, high = float(distinct[0]), float(distinct[-1])
            pad = 0.05 * (high - low) or 0.5
            unit = low >= 0 and high <= 1
            left = 0.0 if unit and low > 0 else low - pad
            right = 1.0 if unit and high < 1 else high + pad
            grid = np.concatenate(([left], distinct, [right]))
        else:  # with the peak, so that the line passes through its marker
            given = np.asarray(thresholds, dtype=np.float64).ravel()
            grid = np.union1d(given, [peak])
        disparity = threshold_disparity(scores, weights, groupings, grid, agg)
        display = cls(
            thresholds=grid,
            disparity=disparity,
            peak_threshold=peak,
            peak_value=float(disparity[np.searchsorted(grid, peak)]),
            mcdp_value=details.value,
            steps=steps,
            name=name,
            extreme_share=extreme_share(
                ecdf
                for grouping in groupings
                for ecdf in group_ecdfs(scores, weights, grouping)[0].values()
            ),
        )
        return display.plot(
            ax=ax, line_kwargs=line_kwargs, annotate=annotate, xscale=xscale
        )

    @classmethod
    @shared_doc
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        sensitive,
        thresholds=None,
        response_method="auto",
        pos_label=None,
        agg="max",
        combine="intersection",
        sample_weight=None,
        min_group_size=None,
        name=None,
        ax=None,
        line_kwargs=None,
        annotate=True,
        xscale="auto",
    ):
        """Plot ΔDP_b^t against t for a fitted classifier's scores.

        Parameters
        ----------
        <estimator>
        thresholds, agg, combine, sample_weight, min_group_size, ax, line_kwargs, \
annotate, xscale
            See :meth:`from_predictions`.

        Returns
        -------
        display : ThresholdDisparityDisplay
            The ΔDP_b^t curve, drawn.

        Examples
        --------
        With a NumPy array, the sensitive column is given by its index:

        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skfair.plotting import ThresholdDisparityDisplay
        >>> rng = np.random.default_rng(0)
        >>> X = np.column_stack([rng.normal(size=300), rng.integers(0, 2, 300)])
        >>> y = (X[:, 0] + X[:, 1] + rng.normal(size=300) > 0.5).astype(int)
        >>> clf = LogisticRegression().fit(X, y)
        >>> display = ThresholdDisparityDisplay.from_estimator(
        ...     clf, X, y, sensitive=1)
        >>> display.line_.get_label()
        'LogisticRegression'
        """
        return display_from_estimator(
            cls,
            estimator,
            X,
            y,
            sensitive=sensitive,
            response_method=response_method,
            pos_label=pos_label,
            name=name,
            thresholds=thresholds,
            agg=agg,
            combine=combine,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
            ax=ax,
            line_kwargs=line_kwargs,
            annotate=annotate,
            xscale=xscale,
        )
