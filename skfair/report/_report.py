"""The audit report object: its tables, notes and renderings."""

from __future__ import annotations

import math

import numpy as np

from ..utils import check_sensitive_features
from ._common import DASK_NOTE, label_text
from ._figures import draw_figures
from ._html import render_html
from ._markdown import render_markdown


class AuditReport:
    """The result of :func:`audit`: tables, details and their renderings.

    Attributes
    ----------
    title : str
        The report's title.
    n_samples : int
        Number of samples audited.
    threshold, epsilon, confidence_level : float
        The audit's parameters.
    n_resamples, n_permutations : int
        Bootstrap resamples and permutations drawn.
    combine : str
        How several attributes were combined.
    groups : DataFrame
        One row per group (per attribute, and per intersection with several
        attributes): size, share, base rate, mean score, positive rate, TPR,
        FPR and precision at the threshold (NaN where undefined or without
        labels).
    metrics : DataFrame
        One row per metric, indexed by key (``delta_dp``, ``delta_dp@t``,
        ``abcc``, ``abpc``, ``mcdp``, ``mcdp@ε``): value, bootstrap interval
        and standard error, DKW interval (NaN for ABPC), p-value and test.
    mcdp_details : dict of float to MCDPResult
        Where MCDP(0) and MCDP(ε) are attained, keyed by ε.
    hfm : HFMResult or None
        HFM of the decisions, when features were given.
    has_labels : bool
        Whether true labels were given.
    min_group_size : int or None
        The audit's ``min_group_size``.
    left_out : list of tuple
        ``(attribute, group, size)`` of each group left out by
        ``min_group_size`` (empty if none).
    engine : str
        "numpy", or "dask" when the data were Dask collections (then the
        bootstrap intervals, p-values, ABPC and figures are not computed).

    Examples
    --------
    >>> from skfair import audit
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> report = audit(None, rng.random(80), sensitive_features=[0, 1] * 40,
    ...                n_resamples=9, n_permutations=9)
    >>> sorted(report.to_dict())
    ['groups', 'hfm', 'mcdp_details', 'metrics', 'notes', 'summary']
    """

    def __init__(
        self,
        *,
        title,
        n_samples,
        threshold,
        epsilon,
        confidence_level,
        n_resamples,
        n_permutations,
        combine,
        groups,
        metrics,
        mcdp_details,
        hfm,
        has_labels,
        _data,
        min_group_size=None,
        left_out=(),
        engine="numpy",
        attributes=None,
    ):
        self.title = title
        self.n_samples = n_samples
        self.threshold = threshold
        self.epsilon = epsilon
        self.confidence_level = confidence_level
        self.n_resamples = n_resamples
        self.n_permutations = n_permutations
        self.combine = combine
        self.groups = groups
        self.metrics = metrics
        self.mcdp_details = mcdp_details
        self.hfm = hfm
        self.has_labels = has_labels
        self._data = _data
        self.min_group_size = min_group_size
        self.left_out = list(left_out)
        self.engine = engine
        self._attributes = (
            tuple(attributes)
            if attributes is not None
            else tuple(check_sensitive_features(_data[1], n_samples=n_samples).names)
        )

    def __repr__(self):
        worst = self.metrics["value"].idxmax()
        return (
            f"AuditReport(n_samples={self.n_samples}, n_groups={len(self.groups)}, "
            f"mcdp={self.metrics.loc['mcdp', 'value']:.4g}, largest={worst!r})"
        )

    # -- content shared by every rendering -------------------------------------
    def notes(self):
        """Plain-language notes on what the report can and cannot say.

        Returns
        -------
        notes : list of str
        """
        out = []
        if self.engine == "dask":
            out.append(DASK_NOTE)
        if self.left_out:
            names = ", ".join(f"{g} (n = {s})" for _, g, s in self.left_out)
            out.append(
                f"Left out (min_group_size = {self.min_group_size}): {names}. "
                "These groups are in no metric, interval, test or table."
            )
        small = self.groups[self.groups["size"] < 30]
        if len(small):
            names = ", ".join(
                f"{g} (n = {s})" for g, s in zip(small["group"], small["size"])
            )
            out.append(
                f"Small groups: {names}. Their rates and every interval involving "
                "them are very uncertain; prefer the DKW interval there."
            )
        abpc_low = self.metrics.loc["abpc", "bootstrap_low"]
        if self.engine == "dask":
            return out
        if not math.isfinite(abpc_low):
            out.append(
                "ABPC has no bootstrap interval or p-value here: on some resample a "
                "group's scores were all equal (a tiny group), where a density "
                "estimate is undefined. ABCC and MCDP need no density."
            )
        if not self.has_labels:
            out.append(
                "No true labels were given: base rates, TPR, FPR, precision, the "
                "trade-off figure and HFM are not available."
            )
        out.append(
            f"{self.n_resamples} bootstrap resamples (each group resampled on its "
            f"own, 'basic' intervals) and {self.n_permutations} permutations; a "
            f"permutation p-value is at least 1/{self.n_permutations + 1}."
        )
        return out

    def _details_rows(self):
        rows = []
        for eps, res in self.mcdp_details.items():
            where = (
                f"at the threshold {res.threshold:.4g}"
                if res.threshold is not None
                else f"over the scores [{res.window[0]:.4g}, {res.window[1]:.4g}]"
            )
            rows.append(
                {
                    "epsilon": eps,
                    "value": res.value,
                    "attribute": res.attribute,
                    "groups": " vs ".join(label_text(g) for g in res.groups),
                    "where": where,
                    "higher_cdf_group": label_text(res.higher_cdf_group),
                }
            )
        return rows

    def _summary(self):
        return {
            "title": self.title,
            "n_samples": self.n_samples,
            "attributes": list(self._attributes),
            "threshold": self.threshold,
            "epsilon": self.epsilon,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_permutations": self.n_permutations,
            "combine": self.combine,
            "min_group_size": self.min_group_size,
            "engine": self.engine,
        }

    # -- renderings --------------------------------------------------------------
    def to_dict(self):
        """Everything in the report as plain Python (JSON-serialisable) values.

        Returns
        -------
        report : dict
            Keys ``summary``, ``groups``, ``metrics``, ``mcdp_details``,
            ``hfm`` (None without features) and ``notes``; NaN becomes None.
        """
        metrics = self.metrics.reset_index().to_dict(orient="records")
        return _plain(
            {
                "summary": self._summary(),
                "groups": self.groups.to_dict(orient="records"),
                "metrics": metrics,
                "mcdp_details": self._details_rows(),
                "hfm": None if self.hfm is None else self.hfm.to_dict(),
                "notes": self.notes(),
            }
        )

    def to_markdown(self):
        """The report as GitHub-flavoured Markdown (tables; no figures).

        Returns
        -------
        text : str
        """
        return render_markdown(self)

    def to_html(self, *, figures=True, full_page=True):
        """The report as one self-contained HTML page.

        Figures are inline PNG images (``data:`` URIs); the page loads nothing
        from anywhere and needs no JavaScript.

        Parameters
        ----------
        figures : bool, default=True
            Whether to draw the four figures (needs matplotlib; without it the
            page says how to install it).
        full_page : bool, default=True
            A complete document, or a fragment for embedding (notebooks).

        Returns
        -------
        html : str
        """
        return render_html(self, figures=figures, full_page=full_page)

    def _repr_html_(self):
        return self.to_html(full_page=False)

    def figures(self):
        """Draw the four figures as PNG images.

        Returns
        -------
        figures : list of dict
            Each with ``title``, ``caption`` and ``png`` (bytes), or ``note``
            instead of ``png`` when a figure cannot be drawn (e.g. the
            trade-off without labels).

        Raises
        ------
        ImportError
            If matplotlib is not installed.
        """
        return draw_figures(self)


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
