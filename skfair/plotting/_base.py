"""Code shared by the Displays: matplotlib guard, axes, scores, ECDFs, notes.

matplotlib is an optional extra (``pip install "skfair-learn[plot]"``); it is
imported inside functions only, here and in the Display modules, never at
module level (ruff's TID253 enforces it).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.special

from ..metrics import mcdp_details
from ..utils import SmallGroupWarning, select_sensitive, sensitive_groupings
from ..utils._docstrings import fill_doc
from ..utils._install import pip_install
from ..utils._response import positive_class_scores
from ..utils._validation import check_sample_weight_1d, check_scores

MATPLOTLIB_ERROR = (
    "{caller} requires matplotlib, which is not installed. Install it with: "
    + pip_install("plot")
    + " (or pip install matplotlib)."
)
RESPONSE_METHOD_ERROR = (
    "response_method must be 'auto', 'predict_proba' or 'decision_function'; "
    "got {value!r}."
)
NOT_BINARY_ERROR = (
    "{estimator} has {n_classes} classes {classes}; fairness Displays take the "
    "scores of a binary classifier."
)
MAX_POINTS_ERROR = "max_points must be None or an integer >= 2; got {value!r}."
XSCALE_ERROR = "xscale must be 'auto', 'linear', 'logit' or 'log'; got {value!r}."
XSCALE_RANGE_ERROR = (
    "xscale={scale!r} needs {needs}; the scores span [{low:.4g}, {high:.4g}]. "
    "Pass xscale='linear' (or 'auto')."
)
TEXT_BOX = {"boxstyle": "round", "facecolor": "white", "alpha": 0.9}
XSCALES = ("auto", "linear", "logit", "log")
# xscale="auto" draws a logit axis when at least this share of the scores is
# below EXTREME or above 1 - EXTREME (averaged over the groups).
CONCENTRATED_SHARE = 0.5
EXTREME = 0.1
_SCALE_NAMES = {"logit": "logit scale", "log": "log scale"}
_TINY = 1e-6  # a logit axis spans at most [1e-6, 1 - 1e-6]
_TAIL = 0.005  # and the central 99 % of the scores (the rest at its edges)


def check_matplotlib_support(caller):
    """Import matplotlib.pyplot, or raise an ImportError naming the extra.

    Parameters
    ----------
    caller : str
        What needs matplotlib, named in the error message.

    Returns
    -------
    plt : module
        ``matplotlib.pyplot``.

    Raises
    ------
    ImportError
        If matplotlib is not installed; the message says
        ``pip install "skfair-learn[plot]"``.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(MATPLOTLIB_ERROR.format(caller=caller)) from error
    return plt


class _FairnessDisplayMixin:
    """What the Displays share: the axes, as scikit-learn's Display mixins do."""

    def _set_axes(self, ax):
        """Store ``figure_`` and ``ax_`` (a new figure's axes if None); return ax."""
        plt = check_matplotlib_support(f"{type(self).__name__}.plot")
        if ax is None:
            _, ax = plt.subplots(layout="constrained")
        self.figure_, self.ax_ = ax.figure, ax
        return ax


def display_from_estimator(
    cls, estimator, X, y, *, sensitive, response_method, pos_label, name, **params
):
    """``cls.from_predictions`` on a fitted classifier's scores of ``X``.

    Every Display's ``from_estimator`` keeps its explicit signature and passes
    each of its arguments here by name: the scores come from
    :func:`get_response_values`, the groups from the ``sensitive`` columns of
    ``X``, ``name`` defaults to the estimator's class name, and ``y`` and the
    other ``params`` go to ``from_predictions`` as they are.
    """
    y_score, _ = get_response_values(
        estimator, X, response_method=response_method, pos_label=pos_label
    )
    name = type(estimator).__name__ if name is None else name
    sensitive_features = select_sensitive(X, sensitive)
    return cls.from_predictions(
        y, y_score, sensitive_features=sensitive_features, name=name, **params
    )


_SHARED_PARAMETERS = {
    "estimator": """\
        estimator : fitted binary classifier
            Its ``predict_proba`` (or ``decision_function``) gives the scores.
        X : DataFrame or array-like of shape (n_samples, n_features)
            Data, including the sensitive column(s).
        y : array-like of shape (n_samples,) or None
            Labels; only their length is checked.
        sensitive : str, int or list
            The sensitive column(s) of ``X``: names for a DataFrame, integer
            indices for an array (see :func:`skfair.utils.select_sensitive`).
        response_method : {"auto", "predict_proba", "decision_function"}, \
default="auto"
            Which scores to use; "auto" tries ``predict_proba`` first.
        pos_label : object or None, default=None
            The positive class; ``estimator.classes_[-1]`` if None.
        name : str or None, default=None
            As in :meth:`from_predictions`; the estimator's class name if None.
""",
    "min_group_size": """\
        min_group_size : int or None, default=None
            None keeps every group (with a SmallGroupWarning for groups of
            fewer than 30 samples); an int leaves out smaller groups, as in
            :func:`skfair.metrics.mcdp`.
""",
    "xscale": """\
        xscale : {"auto", "linear", "logit", "log"}, default="auto"
            Scale of the score axis. "auto" picks "logit" when the scores are
            in [0, 1] and at least half of them (averaged over the groups) are
            below 0.1 or above 0.9, where a linear axis squeezes every curve
            against an edge; else "linear". "logit" spreads both ends (scores
            of exactly 0 or 1 are drawn at the axis's edges), "log" the low
            end. The axis label names a non-linear scale; the scale used is in
            ``xscale_``.
""",
}


shared_doc = fill_doc(_SHARED_PARAMETERS)
"""Write the parameters the Displays share at their placeholder lines."""


def check_max_points(max_points):
    """Validate a thinning parameter: None or an integer >= 2."""
    if max_points is None:
        return None
    if (
        isinstance(max_points, bool)
        or not isinstance(max_points, numbers.Integral)
        or max_points < 2
    ):
        raise ValueError(MAX_POINTS_ERROR.format(value=max_points))
    return int(max_points)


def get_response_values(estimator, X, *, response_method="auto", pos_label=None):
    """Continuous scores of a fitted binary classifier for its positive class.

    :func:`skfair.utils._response.positive_class_scores`, restricted to what a Display
    draws: continuous scores of a binary classifier.

    Parameters
    ----------
    estimator : fitted classifier
        With ``classes_`` and ``predict_proba`` or ``decision_function``.
    X : array-like or DataFrame
        The data.
    response_method : {"auto", "predict_proba", "decision_function"}
        "auto" tries ``predict_proba`` first, then ``decision_function``.
    pos_label : object or None, default=None
        The positive class; the larger class (``classes_[-1]``) if None.

    Returns
    -------
    y_score : ndarray of shape (n_samples,)
        The positive class's probability, or the decision function oriented
        so that larger means more positive.
    pos_label : object
        The positive class used.
    """
    if response_method not in ("auto", "predict_proba", "decision_function"):
        raise ValueError(RESPONSE_METHOD_ERROR.format(value=response_method))
    classes = list(getattr(estimator, "classes_", [0, 1]))
    if len(classes) != 2:
        raise ValueError(
            NOT_BINARY_ERROR.format(
                estimator=type(estimator).__name__,
                n_classes=len(classes),
                classes=classes,
            )
        )
    y_score, used = positive_class_scores(
        estimator, X, response_method=response_method, pos_label=pos_label
    )
    if used is None:  # no classes_: classes [0, 1] assumed, 1 positive
        used = 1
        y_score = y_score[:, -1] if y_score.ndim == 2 else y_score.ravel()
    return y_score, used


def weighted_ecdf(scores, weights=None):
    """Exact ECDF of one group: distinct scores and F at each (right-continuous).

    Parameters
    ----------
    scores : ndarray of shape (n,)
        The group's scores.
    weights : ndarray of shape (n,) or None
        Sample weights.

    Returns
    -------
    x : ndarray of shape (n_distinct,)
        The distinct scores, increasing.
    F : ndarray of shape (n_distinct,)
        ``F(x_k)``, the (weighted) fraction of scores ``<= x_k``; the last is
        exactly 1.
    """
    order = np.argsort(scores, kind="stable")
    values = scores[order]
    w = np.ones_like(values) if weights is None else weights[order]
    cum = np.cumsum(w)
    last = np.flatnonzero(np.append(values[1:] != values[:-1], True))
    x = values[last]
    # Without weights, exact fractions of counts.
    F = (last + 1) / values.size if weights is None else cum[last] / cum[-1]
    F[-1] = 1.0
    return x, F


def group_ecdfs(scores, weights, grouping):
    """``({label: (x, F)}, {label: n})``: each group's exact ECDF and size."""
    ecdfs, counts = {}, {}
    for code, label in enumerate(grouping.labels):
        mask = grouping.codes == code  # codes of left-out samples (-1) match none
        counts[label] = int(mask.sum())
        ecdfs[label] = weighted_ecdf(
            scores[mask], None if weights is None else weights[mask]
        )
    return ecdfs, counts


def ecdf_at(x, F, t, *, left=False):
    """Evaluate a step ECDF ``(x, F)`` at ``t``: ``F(t)``, or ``F(t⁻)`` if left."""
    idx = np.searchsorted(x, t, side="left" if left else "right")
    padded = np.concatenate(([0.0], F))
    return padded[idx]


def thin_ecdf(x, F, max_points):
    """Keep breakpoints so the drawn steps stay within ``1/max_points`` of F.

    Keeps, for every level ``k / max_points``, the first breakpoint where F
    reaches it (and the last breakpoint). Between two kept breakpoints F rises
    by less than one level, so the step drawn from the kept points is below F
    by less than ``1 / max_points`` everywhere, and equals F at every kept x.
    """
    if max_points is None or x.size <= max_points:
        return x, F
    levels = np.arange(1, max_points + 1) / max_points
    keep = np.unique(
        np.append(np.searchsorted(F, levels, side="left").clip(0, x.size - 1), 0)
    )
    keep = np.union1d(keep, [x.size - 1])
    return x[keep], F[keep]


def mcdp_and_groupings(y_true, y_score, **params):
    """MCDP of the scores, and the validated data a Display draws with it.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_samples,)
        As in :func:`skfair.metrics.mcdp_details`.
    **params
        The arguments of :func:`skfair.metrics.mcdp_details`; all of
        ``sensitive_features``, ``combine``, ``sample_weight`` and
        ``min_group_size`` are required.

    Returns
    -------
    details : MCDPResult
        What :func:`skfair.metrics.mcdp_details` returns.
    scores : ndarray of shape (n_samples,)
        The scores as floats.
    weights : ndarray of shape (n_samples,) or None
        The sample weights.
    groupings : list of Grouping
        As :func:`skfair.utils.sensitive_groupings`. The metric has validated
        the groups and warned once about small ones; they are built here
        without repeating that SmallGroupWarning.
    """
    details = mcdp_details(y_true, y_score, **params)
    scores = check_scores(y_score)
    weights = check_sample_weight_1d(params["sample_weight"], scores.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        groupings = sensitive_groupings(
            params["sensitive_features"],
            n_samples=scores.shape[0],
            combine=params["combine"],
            min_group_size=params["min_group_size"],
        )
    return details, scores, weights, groupings


def axes_fraction_x(ax, x):
    """Where the data abscissa ``x`` lies across the axes (0 left, 1 right).

    Read after the scale and limits are set, so it holds on logit and log
    axes too.
    """
    display = ax.transData.transform((x, 0.5))
    return float(ax.transAxes.inverted().transform(display)[0])


def extreme_share(ecdfs):
    """Mean over groups of the share of scores below 0.1 or above 0.9.

    Parameters
    ----------
    ecdfs : iterable of (x, F)
        Each group's exact ECDF, as :func:`weighted_ecdf` returns it.

    Returns
    -------
    share : float
        ``mean_g [F_g(0.1⁻) + 1 - F_g(0.9)]``: where each group's mass is,
        every group counted equally (a small group's scores are read too).
    """
    shares = [
        float(ecdf_at(x, F, EXTREME, left=True) + 1.0 - ecdf_at(x, F, 1 - EXTREME))
        for x, F in ecdfs
    ]
    return float(np.mean(shares))


def resolve_xscale(xscale, values, share):
    """The scale of a score axis: ``xscale``, or the "auto" choice.

    Parameters
    ----------
    xscale : {"auto", "linear", "logit", "log"}
        The requested scale.
    values : ndarray
        The scores (or thresholds) drawn on the axis.
    share : float
        The share of the scores below 0.1 or above 0.9 (see
        :func:`extreme_share`).

    Returns
    -------
    scale : {"linear", "logit", "log"}
        "auto" is "logit" when every score is in [0, 1], some lie strictly
        inside, and at least half the mass (:data:`CONCENTRATED_SHARE`) is
        below 0.1 or above 0.9; else "linear".

    Raises
    ------
    ValueError
        If ``xscale`` is not one of the four, "logit" with scores outside
        [0, 1] (or none strictly inside), or "log" with negative scores (or
        none positive).
    """
    if xscale not in XSCALES:
        raise ValueError(XSCALE_ERROR.format(value=xscale))
    low, high = float(np.min(values)), float(np.max(values))
    inside = np.any((values > 0) & (values < 1))
    logit_ok = low >= 0 and high <= 1 and inside
    if xscale == "auto":
        return "logit" if logit_ok and share >= CONCENTRATED_SHARE else "linear"
    if xscale == "logit" and not logit_ok:
        needs = "scores in [0, 1], some strictly between 0 and 1"
    elif xscale == "log" and not (low >= 0 and high > 0):
        needs = "non-negative scores, some positive"
    else:
        return xscale
    raise ValueError(
        XSCALE_RANGE_ERROR.format(scale=xscale, needs=needs, low=low, high=high)
    )


def score_limits(scale, values):
    """``(left, right)`` of a score axis on ``scale`` that shows every value.

    On the linear scale, ``[0, 1]`` for scores in [0, 1], else the range
    padded by 5 %. On a logit (log) axis, where 0 and 1 (0) cannot be drawn,
    the range of the central 99 % of the scores strictly inside (0, 1)
    (above 0), at most 10⁻⁶ to 1 - 10⁻⁶ (six decades below the largest),
    padded by 5 % of its logit (log) width; a few outlying scores (and 0 and
    1) are drawn at the edge, so the axis shows where the mass is.
    """
    values = np.asarray(values, dtype=np.float64)
    low, high = float(values.min()), float(values.max())
    if scale == "linear":
        if low >= 0.0 and high <= 1.0:
            return 0.0, 1.0
        pad = 0.05 * (high - low) or 0.5
        return low - pad, high + pad
    if scale == "logit":
        inner = values[(values > 0) & (values < 1)]
        forward, backward = scipy.special.logit, scipy.special.expit
    else:
        inner = values[values > 0]
        forward, backward = np.log10, _exp10
    lo, hi = np.quantile(inner, [_TAIL, 1.0 - _TAIL])
    if scale == "logit":
        lo, hi = max(lo, _TINY), min(hi, 1.0 - _TINY)
    else:
        lo = max(lo, _TINY * hi)
    a, b = forward(float(lo)), forward(float(hi))
    pad = 0.05 * (b - a) or 0.5
    left, right = float(backward(a - pad)), float(backward(b + pad))
    if scale == "log" and high <= 1.0:
        right = min(right, 1.0)
    return left, right


def _exp10(z):
    return 10.0**z


def include_in_limits(scale, limits, x):
    """``(limits, shown)``: ``limits`` widened on ``scale`` so that ``x`` is inside.

    The new edge is 4 % of the widened axis beyond ``x``. ``shown`` is False
    when ``x`` cannot be drawn on the scale (0 or 1 on a logit axis, 0 on a
    log axis); the limits are then unchanged.
    """
    left, right = limits
    if left <= x <= right:
        return limits, True
    if scale == "logit":
        if not 0.0 < x < 1.0:
            return limits, False
        forward, backward = scipy.special.logit, scipy.special.expit
    elif scale == "log":
        if x <= 0.0:
            return limits, False
        forward, backward = np.log10, _exp10
    else:
        forward = backward = float
    a, b, c = (float(forward(v)) for v in (left, right, x))
    pad = 0.04 * (max(b, c) - min(a, c))
    low, high = (c - pad, b) if c < a else (a, c + pad)
    return (float(backward(low)), float(backward(high))), True


def set_score_axis(ax, scale, limits, label):
    """Put the score axis on ``scale`` with ``limits``; the label names the scale."""
    if scale == "logit":
        from matplotlib.ticker import LogitLocator

        ax.set_xscale("logit", one_half="0.5", nonpositive="clip")
        ax.xaxis.set_major_locator(LogitLocator(nbins=6))  # labels do not touch
    elif scale == "log":
        ax.set_xscale("log", nonpositive="clip")
    if scale in _SCALE_NAMES:
        label = f"{label}  [{_SCALE_NAMES[scale]}]"
    ax.set(xlim=limits, xlabel=label)


def annotate_beside(ax, text, xy, *, offset, va):
    """Write ``text`` in a box next to ``xy``, on the side with more room.

    The box goes right of ``xy`` when ``xy`` lies in the left 60 % of the
    axes (read after the scale and limits are set), else left of it;
    ``offset`` is ``(dx, dy)`` in points, dx mirrored on the left.
    """
    right = axes_fraction_x(ax, xy[0]) < 0.6
    dx, dy = offset
    return ax.annotate(
        text,
        xy=xy,
        xytext=(dx if right else -dx, dy),
        textcoords="offset points",
        ha="left" if right else "right",
        va=va,
        multialignment="left",
        fontsize="small",
        bbox=TEXT_BOX,
        zorder=5,
    )
