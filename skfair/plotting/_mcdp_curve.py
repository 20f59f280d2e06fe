"""MCDP(ε) as a function of the neighbourhood radius ε."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics import mcdp_curve
from ..utils import check_sensitive_features
from ..utils._dataframe import to_pandas
from ._base import (
    _FairnessDisplayMixin,
    display_from_estimator,
    shared_doc,
)

DEFAULT_EPSILONS = np.linspace(0.0, 0.2, 41)


def _attribute_columns(sensitive_features):
    """``[(name, column)]``: each attribute of ``sensitive_features`` alone."""
    sensitive_features = to_pandas(sensitive_features)  # any dataframe library
    names = check_sensitive_features(sensitive_features).names
    if isinstance(sensitive_features, pd.DataFrame):
        return [(n, sensitive_features.iloc[:, k]) for k, n in enumerate(names)]
    array = np.asarray(sensitive_features)
    if array.ndim == 1:
        return [(names[0], sensitive_features)]
    return [(n, array[:, k]) for k, n in enumerate(names)]


class MCDPCurveDisplay(_FairnessDisplayMixin):
    """MCDP(ε) over ε: how local disparity depends on the neighbourhood radius.

    MCDP(0) is the largest gap between two groups' CDFs at any threshold (the
    two-sample KS statistic); MCDP(ε) asks that the gap persist over a whole
    window of width 2ε, so it decreases with ε. A curve that falls slowly
    means a disparity spread over a wide range of scores; one that drops at
    once means a narrow, local gap.

    One Display draws one curve per model, or with ``by_attribute=True`` one
    per sensitive attribute. To compare several models on one plot, call
    :meth:`from_predictions` (or :meth:`plot`) once per model with the same
    ``ax`` and a different ``name``, as with scikit-learn's Displays; the
    legend gathers every curve on the axes.

    Parameters
    ----------
    epsilons : ndarray of shape (n_epsilons,)
        The radii ε, increasing.
    curves : dict
        ``{label: values}``: MCDP(ε) at each ε, one entry per curve.
    name : str or None, default=None
        Name of the model, prefixed to the curve labels in the legend.

    Attributes
    ----------
    lines_ : dict of matplotlib Line2D
        The line of each curve, keyed like ``curves``.
    ax_, figure_ : matplotlib Axes and Figure
        The axes with the plot, and its figure.

    See Also
    --------
    skfair.metrics.mcdp_curve : The values drawn.
    GroupCDFDisplay : Where MCDP(ε) is attained for one ε.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from skfair.plotting import MCDPCurveDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> fair, unfair = rng.random(400), rng.beta(2 + group, 2, size=400)
    >>> fig, ax = plt.subplots()
    >>> d1 = MCDPCurveDisplay.from_predictions(
    ...     None, unfair, sensitive_features=group, name="unfair", ax=ax)
    >>> d2 = MCDPCurveDisplay.from_predictions(
    ...     None, fair, sensitive_features=group, name="fair", ax=ax)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['unfair', 'fair']
    """

    def __init__(self, *, epsilons, curves, name=None):
        self.epsilons = epsilons
        self.curves = curves
        self.name = name

    def plot(self, ax=None, *, name=None, line_kwargs=None):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (possibly holding other models' curves); a new
            figure is created if None.
        name : str or None, default=None
            Name of the model for the legend; ``self.name`` if None.
        line_kwargs : dict or None, default=None
            Keyword arguments for matplotlib's ``plot`` (e.g. ``color``),
            applied to every curve.

        Returns
        -------
        display : MCDPCurveDisplay
        """
        ax = self._set_axes(ax)
        name = self.name if name is None else name
        single = len(self.curves) == 1
        self.lines_ = {}
        for key, values in self.curves.items():
            if single:
                label = name if name is not None else key
            else:
                label = key if name is None else f"{name}: {key}"
            kwargs = {"label": label, "marker": ".", "markersize": 3}
            kwargs.update(line_kwargs or {})
            (self.lines_[key],) = ax.plot(self.epsilons, values, **kwargs)
        ax.set(xlabel="ε (neighbourhood radius)", ylabel="MCDP(ε)")
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper right", fontsize="small")
        return self

    @classmethod
    @shared_doc
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        sensitive_features,
        epsilons=None,
        method="exact",
        agg="max",
        combine="intersection",
        by_attribute=False,
        sample_weight=None,
        min_group_size=None,
        name=None,
        ax=None,
        line_kwargs=None,
    ):
        """Plot MCDP(ε) over ε from scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            Ignored; its length is checked if given.
        y_score : array-like of shape (n_samples,)
            Scores in [0, 1].
        sensitive_features : array-like of shape (n_samples,) or (n_samples, k)
            Group labels.
        epsilons : array-like of float or None, default=None
            The radii; ``np.linspace(0, 0.2, 41)`` if None.
        method : {"exact", "approx"}, default="exact"
            See :func:`skfair.metrics.mcdp` ("approx" needs every ε > 0).
        agg : {"max", "mean"}, default="max"
            Aggregation over pairs of groups.
        combine : {"intersection", "marginal"}, default="intersection"
            How several attributes are combined (one curve).
        by_attribute : bool, default=False
            Draw one curve per sensitive attribute (each compared alone)
            instead of one curve for the combination.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        <min_group_size>
        name : str or None, default=None
            Name of the model in the legend.
        ax, line_kwargs
            See :meth:`plot`.

        Returns
        -------
        display : MCDPCurveDisplay
            The curves of MCDP(ε), drawn.

        Examples
        --------
        >>> from skfair.plotting import MCDPCurveDisplay
        >>> y0, y1 = [.1, .2, .3, .4, .5], [.12, .33, .35, .6, .9]
        >>> display = MCDPCurveDisplay.from_predictions(
        ...     None, y0 + y1, sensitive_features=[0] * 5 + [1] * 5,
        ...     epsilons=[0, 0.05, 0.5])
        >>> display.lines_["MCDP(ε)"].get_ydata().tolist()
        [0.4, 0.2, 0.0]
        """
        epsilons = DEFAULT_EPSILONS if epsilons is None else epsilons
        epsilons = np.asarray(epsilons, dtype=np.float64).ravel()
        kwargs = {
            "epsilons": epsilons,
            "method": method,
            "agg": agg,
            "sample_weight": sample_weight,
            "min_group_size": min_group_size,
        }
        if by_attribute:
            curves = {
                attribute: mcdp_curve(
                    y_true, y_score, sensitive_features=column, **kwargs
                )
                for attribute, column in _attribute_columns(sensitive_features)
            }
        else:
            curves = {
                "MCDP(ε)": mcdp_curve(
                    y_true,
                    y_score,
                    sensitive_features=sensitive_features,
                    combine=combine,
                    **kwargs,
                )
            }
        display = cls(epsilons=epsilons, curves=curves, name=name)
        return display.plot(ax=ax, line_kwargs=line_kwargs)

    @classmethod
    @shared_doc
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        sensitive,
        epsilons=None,
        response_method="auto",
        pos_label=None,
        method="exact",
        agg="max",
        combine="intersection",
        by_attribute=False,
        sample_weight=None,
        min_group_size=None,
        name=None,
        ax=None,
        line_kwargs=None,
    ):
        """Plot MCDP(ε) over ε for a fitted classifier's scores.

        Parameters
        ----------
        <estimator>
        epsilons, method, agg, combine, by_attribute, sample_weight, min_group_size, \
ax, line_kwargs
            See :meth:`from_predictions`.

        Returns
        -------
        display : MCDPCurveDisplay
            The curves of MCDP(ε), drawn.

        Examples
        --------
        One curve per sensitive attribute (columns 1 and 2):

        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skfair.plotting import MCDPCurveDisplay
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 3))
        >>> X[:, 1:] = X[:, 1:] > 0
        >>> y = (X.sum(axis=1) + rng.normal(size=300) > 1).astype(int)
        >>> clf = LogisticRegression().fit(X, y)
        >>> display = MCDPCurveDisplay.from_estimator(
        ...     clf, X, y, sensitive=[1, 2], by_attribute=True)
        >>> [line.get_label() for line in display.lines_.values()]
        ['LogisticRegression: x1', 'LogisticRegression: x2']
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
            epsilons=epsilons,
            method=method,
            agg=agg,
            combine=combine,
            by_attribute=by_attribute,
            sample_weight=sample_weight,
            min_group_size=min_group_size,
            ax=ax,
            line_kwargs=line_kwargs,
        )
