"""Each group's empirical CDF, with the location of MCDP(ε) drawn on it."""

from __future__ import annotations

import numbers

import numpy as np

from ..utils._labels import group_label_text
from ._base import (
    _FairnessDisplayMixin,
    annotate_beside,
    check_max_points,
    display_from_estimator,
    ecdf_at,
    extreme_share,
    group_ecdfs,
    mcdp_and_groupings,
    resolve_xscale,
    score_limits,
    set_score_axis,
    shared_doc,
    thin_ecdf,
)

# More groups than this: the worst pair and the largest groups are coloured,
# the rest faded (see ``highlight``).
MAX_COLOURED = 10
CDF_LABEL = r"empirical CDF  $P(\mathrm{score} \leq t \mid \mathrm{group})$"


def _short(x):
    """A location on the score axis: 3 significant digits, no exponent below 1e7.

    Scores in [0, 1] read as before (``0.25``); a regressor's predictions in
    their units (``1,896``, not ``1.9e+03``).
    """
    if 1e3 <= abs(x) < 1e7:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def _min_gap_in_window(ecdf_a, ecdf_b, low, high):
    """Where in ``[low, high]`` the gap ``|F_a - F_b|`` is smallest.

    The gap is a right-continuous step function, so its minimum over the
    closed window is attained at ``low`` or at a breakpoint in ``(low, high]``.
    """
    points = np.union1d(ecdf_a[0], ecdf_b[0])
    points = points[(points > low) & (points <= high)]
    points = np.concatenate(([low], points))
    gaps = np.abs(ecdf_at(*ecdf_a, points) - ecdf_at(*ecdf_b, points))
    k = int(np.argmin(gaps))
    return float(points[k])


class GroupCDFDisplay(_FairnessDisplayMixin):
    """Each group's empirical CDF of the scores, with MCDP(ε) drawn on it.

    The empirical CDFs are exact step functions. The location of MCDP(ε)
    (:func:`skfair.metrics.mcdp_details`) is drawn on them: for ε = 0 a
    vertical line at the threshold where the two groups' CDFs are furthest
    apart, for ε > 0 the window (shaded) over which their gap stays at least
    MCDP(ε). The two groups that realise it are drawn in bold, their gap is
    marked by a vertical segment (at the threshold, or where the gap is
    smallest inside the window) and the value is annotated.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`;
    calling the constructor stores the data without drawing. The annotated
    value is always ``mcdp(...)``; the segment is the worst pair's gap. The
    two agree for ``agg="max"`` and ``method="exact"``; with ``agg="mean"``
    the value is a mean over pairs, and with ``method="approx"`` (which
    never under-estimates) the exact smallest gap in the reported window
    may be below the value.

    Parameters
    ----------
    ecdfs : dict
        ``{group label: (x, F)}``: each group's distinct scores ``x``
        (increasing) and its empirical CDF ``F(x)`` there (right-continuous,
        the last value 1). Intersection labels are tuples.
    mcdp_result : MCDPResult
        What :func:`skfair.metrics.mcdp_details` returned for these scores.
    attribute : str or None, default=None
        Name of the grouping (the legend's title), e.g. ``"sex & race"``.
    counts : dict or None, default=None
        ``{group label: number of samples}``, shown in the legend.
    name : str or None, default=None
        Name of the model, used as the axes' title.

    Attributes
    ----------
    lines_ : dict of matplotlib Line2D
        The step line of each group, keyed by group label.
    threshold_line_ : matplotlib Line2D or None
        The vertical line at the MCDP(0) threshold (ε = 0), else None.
    window_span_ : matplotlib Polygon or None
        The shaded MCDP(ε) window (ε > 0), else None.
    gap_line_ : matplotlib Line2D
        The vertical segment between the two groups' CDFs that realise MCDP.
    annotation_ : matplotlib Annotation or None
        The annotated value (None with ``annotate=False``).
    highlighted_ : list
        The groups drawn in colour (every group, up to 10); the others are
        faded grey.
    xscale_ : {"linear", "logit", "log"}
        The scale of the score axis.
    ax_, figure_ : matplotlib Axes and Figure
        The axes with the plot, and its figure.

    See Also
    --------
    skfair.metrics.mcdp_details : The value and its location.
    MCDPCurveDisplay : MCDP(ε) as a function of ε.
    ThresholdDisparityDisplay : The positive-rate gap at every threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.plotting import GroupCDFDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> y_score = rng.beta(2 + group, 2, size=400)
    >>> display = GroupCDFDisplay.from_predictions(
    ...     None, y_score, sensitive_features=group)
    >>> display.mcdp_result.threshold == display.threshold_line_.get_xdata()[0]
    True
    """

    def __init__(self, *, ecdfs, mcdp_result, attribute=None, counts=None, name=None):
        self.ecdfs = ecdfs
        self.mcdp_result = mcdp_result
        self.attribute = attribute
        self.counts = counts
        self.name = name

    @shared_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        max_points=None,
        annotate=True,
        xscale="auto",
        highlight=None,
    ):
        """Draw the group CDFs and the MCDP location.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        name : str or None, default=None
            Title of the axes; ``self.name`` if None.
        max_points : int or None, default=None
            Draw at most about this many breakpoints per group, kept so that
            the drawn step function is within ``1 / max_points`` of the exact
            ECDF everywhere and equal to it at every drawn point (use e.g.
            2000 for millions of scores). None draws every breakpoint. The
            two groups realising MCDP are always drawn exactly where their
            gap is marked, so the marker sits on both curves.
        annotate : bool, default=True
            Whether to write the value of MCDP(ε) next to the gap.
        <xscale>
        highlight : None, int or list, default=None
            Which groups are drawn in colour; the others are faded grey
            behind them, with one legend entry ("other k groups"). None:
            every group up to 10 groups; with more, the two groups realising
            MCDP and the largest groups, 10 in all. An int ``k``: the pair
            and the largest groups, ``k`` in all. A list of group labels:
            those and the pair. The coloured groups are in ``highlighted_``.

        Returns
        -------
        display : GroupCDFDisplay
            The object, with its artists stored.
        """
        max_points = check_max_points(max_points)
        ax = self._set_axes(ax)
        values = np.concatenate([np.asarray(x) for x, _ in self.ecdfs.values()])
        self.xscale_ = resolve_xscale(
            xscale, values, extreme_share(self.ecdfs.values())
        )
        limits = score_limits(self.xscale_, values)
        set_score_axis(ax, self.xscale_, limits, "score")
        t, where = self._gap_location()
        self.highlighted_ = highlighted_groups(
            list(self.ecdfs), self.counts, self.mcdp_result.groups, highlight
        )
        self._colors = _group_colors(
            list(self.ecdfs), self.highlighted_, self.mcdp_result.groups
        )
        self.lines_ = {}
        for label in self.ecdfs:
            self.lines_[label] = self._draw_group(ax, label, limits, max_points, t)
        self._draw_location(ax, annotate, t, where, limits)
        ax.set(ylabel=CDF_LABEL, ylim=(-0.02, 1.02))
        title = name if name is not None else self.name
        if title is not None:
            ax.set_title(title)
        self._legend(ax)
        return self

    def _gap_location(self):
        """Where the gap segment goes: the threshold, or the window's smallest gap."""
        result = self.mcdp_result
        if result.threshold is not None:
            t = float(result.threshold)
            return t, f"at t = {_short(t)}"
        low, high = (float(v) for v in result.window)
        a, b = result.groups
        t = _min_gap_in_window(self.ecdfs[a], self.ecdfs[b], low, high)
        return t, f"on [{_short(low)}, {_short(high)}]"

    def _draw_group(self, ax, label, limits, max_points, t):
        """One group's step line; faded unless highlighted."""
        x, F = (np.asarray(v) for v in self.ecdfs[label])
        xs, Fs = thin_ecdf(x, F, max_points)
        worst = label in self.mcdp_result.groups
        if worst and xs.size < x.size:  # keep the breakpoint the marker sits on
            k = int(np.searchsorted(x, t, side="right")) - 1
            if k >= 0:
                keep = np.searchsorted(x, xs)
                xs, Fs = x[np.union1d(keep, [k])], F[np.union1d(keep, [k])]
        x_left, x_right = limits
        xs = np.clip(xs, x_left, x_right)  # 0 and 1 at a logit axis's edges
        xs = np.concatenate(([x_left], xs, [x_right]))
        Fs = np.concatenate(([0.0], Fs, [1.0]))
        text = group_label_text(label)
        if self.counts is not None and label in self.counts:
            text += f" (n={self.counts[label]})"
        color = self._colors[label]
        bold = label in self.mcdp_result.groups
        if color is None:  # faded: one legend entry for all of them
            first = label == next(k for k, c in self._colors.items() if c is None)
            n_other = len(self.ecdfs) - len(self.highlighted_)
            text = f"other {n_other} groups (faded)" if first else "_nolegend_"
            style = {"color": "0.6", "linewidth": 0.8, "alpha": 0.35, "zorder": 1}
        else:
            style = {
                "color": color,
                "linewidth": 2.2 if bold else 1.2,
                "alpha": 1.0 if bold else 0.75,
                "zorder": 3 if bold else 2,
            }
        (line,) = ax.plot(xs, Fs, drawstyle="steps-post", label=text, **style)
        return line

    def _draw_location(self, ax, annotate, t, where, limits):
        result = self.mcdp_result
        a, b = result.groups
        ecdf_a, ecdf_b = self.ecdfs[a], self.ecdfs[b]
        drawn = float(np.clip(t, *limits))
        self.threshold_line_ = self.window_span_ = None
        if result.threshold is not None:
            self.threshold_line_ = ax.axvline(
                drawn, color="0.25", linestyle=":", linewidth=1.2, zorder=1
            )
        else:
            low, high = np.clip([float(v) for v in result.window], *limits)
            self.window_span_ = ax.axvspan(low, high, color="0.5", alpha=0.2, zorder=1)
        Fa, Fb = float(ecdf_at(*ecdf_a, t)), float(ecdf_at(*ecdf_b, t))
        (self.gap_line_,) = ax.plot(
            [drawn, drawn],
            [Fa, Fb],
            color="k",
            linewidth=2,
            marker="o",
            markersize=4,
            zorder=4,
        )
        self.annotation_ = None
        if annotate:
            pair = f"{group_label_text(a)} vs {group_label_text(b)}"
            if len(pair) > 32:  # long intersection names: one per line
                pair = f"{group_label_text(a)}\nvs {group_label_text(b)}"
            text = f"MCDP({result.epsilon:g}) = {result.value:.4g}\n{where}\n{pair}"
            self.annotation_ = annotate_beside(
                ax, text, (drawn, (Fa + Fb) / 2), offset=(12, 0), va="center"
            )

    def _legend(self, ax):
        """The legend, outside on the right: it never covers a curve."""
        n_entries = len(self.highlighted_) + (len(self.highlighted_) < len(self.ecdfs))
        handles, labels = ax.get_legend_handles_labels()
        faded = [k for k, text in enumerate(labels) if text.startswith("other ")]
        order = [k for k in range(len(labels)) if k not in faded] + faded
        ax.legend(
            [handles[k] for k in order],
            [labels[k] for k in order],
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            title=self.attribute,
            fontsize="small",
            title_fontsize="small",
            ncols=2 if n_entries > 16 else 1,
        )

    @classmethod
    @shared_doc
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        sensitive_features,
        epsilon=0.0,
        method="exact",
        agg="max",
        combine="intersection",
        sample_weight=None,
        min_group_size=None,
        name=None,
        ax=None,
        max_points=None,
        annotate=True,
        xscale="auto",
        highlight=None,
    ):
        """Plot the group CDFs and MCDP(ε) from scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            Ignored (demographic parity does not use labels); its length is
            checked if given.
        y_score : array-like of shape (n_samples,)
            Scores (in [0, 1] when ``epsilon > 0``).
        sensitive_features : array-like of shape (n_samples,) or (n_samples, k)
            Group labels. With several attributes the groups are their
            intersections (labelled ``"a & b"``), or, with
            ``combine="marginal"``, the groups of the attribute where MCDP(ε)
            is largest.
        epsilon : float, default=0.0
            The neighbourhood radius ε of MCDP(ε).
        method : {"exact", "approx"}, default="exact"
            How MCDP(ε) is computed; see :func:`skfair.metrics.mcdp`.
        agg : {"max", "mean"}, default="max"
            Aggregation over pairs of groups; the drawn location is always the
            worst pair's.
        combine : {"intersection", "marginal"}, default="intersection"
            How several attributes are combined.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights (weighted ECDFs).
        <min_group_size>
        name : str or None, default=None
            Title of the axes.
        ax, max_points, annotate, xscale, highlight
            See :meth:`plot`.

        Returns
        -------
        display : GroupCDFDisplay
            The group CDFs, with MCDP(ε) drawn on them.

        Examples
        --------
        >>> from skfair.plotting import GroupCDFDisplay
        >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
        >>> display = GroupCDFDisplay.from_predictions(
        ...     None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5,
        ...     epsilon=0.05)
        >>> display.mcdp_result.value, display.mcdp_result.window
        (0.2, (0.2, 0.30000000000000004))
        """
        result, scores, weights, groupings = mcdp_and_groupings(
            y_true,
            y_score,
            sensitive_features=sensitive_features,
            epsilon=epsilon,
            method=method,
            agg=agg,
            combine=combine,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
        )
        grouping = next(
            (g for g in groupings if g.name == result.attribute), groupings[0]
        )
        ecdfs, counts = group_ecdfs(scores, weights, grouping)
        display = cls(
            ecdfs=ecdfs,
            mcdp_result=result,
            attribute=grouping.name,
            counts=counts,
            name=name,
        )
        return display.plot(
            ax=ax,
            max_points=max_points,
            annotate=annotate,
            xscale=xscale,
            highlight=highlight,
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
        epsilon=0.0,
        response_method="auto",
        pos_label=None,
        method="exact",
        agg="max",
        combine="intersection",
        sample_weight=None,
        min_group_size=None,
        name=None,
        ax=None,
        max_points=None,
        annotate=True,
        xscale="auto",
        highlight=None,
    ):
        """Plot the group CDFs and MCDP(ε) of a fitted classifier's scores.

        Parameters
        ----------
        <estimator>
        epsilon, method, agg, combine, sample_weight, min_group_size, ax, \
max_points, annotate, xscale, highlight
            See :meth:`from_predictions`.

        Returns
        -------
        display : GroupCDFDisplay
            The group CDFs, with MCDP(ε) drawn on them.

        Examples
        --------
        With a DataFrame, the sensitive column is named (and titles the
        legend):

        >>> import numpy as np
        >>> import pandas as pd
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skfair.plotting import GroupCDFDisplay
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame(
        ...     {"income": rng.normal(size=300), "sex": rng.integers(0, 2, 300)})
        >>> y = (X["income"] + X["sex"] + rng.normal(size=300) > 0.5).astype(int)
        >>> clf = LogisticRegression().fit(X, y)
        >>> display = GroupCDFDisplay.from_estimator(clf, X, y, sensitive="sex")
        >>> [t.get_text() for t in display.ax_.get_legend().get_texts()]
        ['0 (n=142)', '1 (n=158)']
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
            epsilon=epsilon,
            method=method,
            agg=agg,
            combine=combine,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
            ax=ax,
            max_points=max_points,
            annotate=annotate,
            xscale=xscale,
            highlight=highlight,
        )


def highlighted_groups(labels, counts, worst, highlight):
    """The groups drawn in colour, in the order of ``labels``.

    Parameters
    ----------
    labels : list
        Every group's label.
    counts : dict or None
        ``{label: size}``; the largest groups are highlighted first.
    worst : tuple
        The two groups realising MCDP, always highlighted.
    highlight : None, int or list
        None: every group up to ``MAX_COLOURED`` (10) groups, else the worst
        pair and the largest groups, ten in all. An int
        ``k``: the worst pair and the largest groups, ``k`` in all (at least
        the pair). A list of labels: those and the worst pair.

    Returns
    -------
    highlighted : list
    """
    if highlight is None:
        if len(labels) <= MAX_COLOURED:
            return list(labels)
        highlight = MAX_COLOURED
    if isinstance(highlight, numbers.Integral) and not isinstance(highlight, bool):
        sizes = counts or {}
        by_size = sorted(labels, key=lambda g: -sizes.get(g, 0))  # stable
        chosen = list(worst) + [g for g in by_size if g not in worst]
        chosen = set(chosen[: max(int(highlight), len(worst))])
    else:
        chosen = set(worst) | {g for g in highlight if g in labels}
    return [g for g in labels if g in chosen]


def _group_colors(labels, highlighted, worst):
    """``{label: colour or None}``; None is a faded group.

    Every group highlighted: the default cycle ``C0``...``C9``. Otherwise the
    two groups realising MCDP are red and blue, the other highlighted groups
    take the remaining tab10 colours, and the rest are faded grey.
    """
    if len(highlighted) == len(labels):
        return {g: f"C{k % 10}" for k, g in enumerate(labels)}
    others = iter([g for g in highlighted if g not in worst])
    colors = dict.fromkeys(labels)
    colors.update(zip(worst, ("tab:red", "tab:blue")))
    for k, g in enumerate(others):
        colors[g] = _OTHER_COLORS[k % len(_OTHER_COLORS)]
    return colors


_OTHER_COLORS = [
    "tab:orange",
    "tab:green",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:olive",
    "tab:cyan",
    "darkgoldenrod",
]
