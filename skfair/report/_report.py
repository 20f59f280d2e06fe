"""The audit report object: its tables, notes and renderings."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..utils import SMALL_GROUP_SIZE, check_sensitive_features, store_params
from ._common import AUDIT_DASK_FIGURES_ERROR, DASK_NOTE, FEW_POSITIVES, label_text
from ._figures import draw_figures
from ._html import render_html
from ._markdown import render_markdown
from ._views import headline, methods, plain_summary


def _listed(rows, column, form):
    """``"group (form(value))"`` of each row of a group table, comma-separated."""
    return ", ".join(f"{g} ({form(n)})" for g, n in zip(rows["group"], rows[column]))


class AuditReport:
    """The result of :func:`audit`: tables, details and their renderings.

    Every table, headline and note is computed on the same groups: those of
    the compared groupings (``combine``) with ``min_group_size`` applied
    once (see :attr:`kept_groups` and :meth:`group_arguments`).

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
    pos_label : object or None
        The positive class of ``y_true`` (None without labels).
    reference : object or None
        The ``reference`` group asked for (None: the largest of each grouping).
    groups : DataFrame
        One row per group (per attribute, and per intersection with several
        attributes and ``combine="intersection"``): ``is_reference``, size,
        share, mean score, counts (``n_positive``, ``n_selected``, ``tp``,
        ``fp``, ``fn``, ``tn``), rates (``base_rate``, ``positive_rate``,
        ``tpr``, ``fpr``, ``fnr``, ``precision``) each with its Wilson
        interval (``<rate>_low``, ``<rate>_high``), ``few_positives``, and
        for ``positive_rate``, ``tpr``, ``fpr`` and ``fnr`` the ratio
        (``<rate>_ratio``) and difference (``<rate>_diff``) to the reference
        group, and ``four_fifths`` (the ratio of positive rates within
        [0.8, 1.25]). Label-based columns are NaN without labels.
    metrics : DataFrame
        One row per metric, indexed by key (``delta_dp``, ``delta_dp@t``,
        ``abcc``, ``abpc``, ``mcdp``, ``mcdp@ε``): value, the interval
        columns of :func:`skfair.metrics.inference.infer_metrics`, p-value,
        test, and ``undefined_reason`` (None, or why the metric is undefined
        on these groups; its other columns are then NaN).
    mcdp_details : dict of float to MCDPResult
        Where MCDP(0) and MCDP(ε) are attained, keyed by ε.
    headline : dict
        ``threshold``: the threshold facts (reference and worst group,
        positive-rate ratio, four-fifths rule, impact ratio, TPR and FPR
        gaps); ``distribution``: MCDP(0), where, and the share of scores
        within ±ε of it.
    tradeoff : ThresholdTradeoff or None
        :func:`skfair.model_selection.threshold_tradeoff` on the audited
        groups (None without labels or on Dask).
    tradeoff_at_threshold : dict or None
        ``threshold``, ``performance`` and ``delta_dp`` at the audit's
        threshold.
    hfm : HFMResult or None
        HFM of the decisions, when features were given.
    has_labels : bool
        Whether true labels were given.
    min_group_size : int or None
        The audit's ``min_group_size``.
    kept_groups : dict of str to tuple
        The compared groupings' names and the labels of their groups.
    left_out : list of tuple
        ``(attribute, group, size)`` of each group left out by
        ``min_group_size`` (empty if none).
    engine : str
        "numpy", or "dask" when the data were Dask collections (then the
        bootstrap intervals, p-values, ABPC, trade-off and figures are not
        computed).

    Examples
    --------
    >>> from skfair import audit
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> report = audit(None, rng.random(80), sensitive_features=[0, 1] * 40,
    ...                n_resamples=9, n_permutations=9)
    >>> sorted(report.to_dict())  # doctest: +NORMALIZE_WHITESPACE
    ['groups', 'headline', 'hfm', 'mcdp_details', 'methods', 'metrics', 'notes',
     'plain_summary', 'summary', 'tradeoff']
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
        headline,
        hfm,
        has_labels,
        _data,
        kept_groups,
        pos_label=None,
        reference=None,
        tradeoff=None,
        tradeoff_at_threshold=None,
        min_group_size=None,
        left_out=(),
        engine="numpy",
        attributes=None,
    ):
        store_params(self, locals(), exclude=("kept_groups", "left_out", "attributes"))
        self.kept_groups = dict(kept_groups)
        self.left_out = list(left_out)
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

    def group_arguments(self):
        """The arguments that give any skfair function the report's groups.

        With the report's scores (in memory), e.g.
        ``GroupCDFDisplay.from_predictions(None, scores, **report.group_arguments())``,
        a figure or metric compares exactly the groups of the report's tables.

        Returns
        -------
        arguments : dict
            ``sensitive_features``, ``combine`` and ``min_group_size`` (an
            int: 1 when every group is kept, so that nothing warns again).

        Raises
        ------
        ValueError
            For a report computed on Dask collections (no data in memory).
        """
        if self._data is None:
            raise ValueError(AUDIT_DASK_FIGURES_ERROR)
        return {
            "sensitive_features": self._data[1],
            "combine": self.combine,
            "min_group_size": 1 if self.min_group_size is None else self.min_group_size,
        }

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
                "These groups are in no metric, interval, test, table or figure."
            )
        compared = self.groups[self.groups["grouping"].isin(list(self.kept_groups))]
        small = compared[compared["size"] < SMALL_GROUP_SIZE]
        if len(small):
            out.append(
                f"Small groups: {_listed(small, 'size', 'n = {}'.format)}. Their "
                "rates and every interval involving them are very uncertain; "
                "prefer the DKW interval there."
            )
        few = compared[compared["few_positives"] == True]  # noqa: E712
        if len(few):
            out.append(
                f"Few positives (under {FEW_POSITIVES} positive labels): "
                f"{_listed(few, 'n_positive', int)}. Their TPR and FNR rest on a "
                "handful of samples; read the Wilson intervals."
            )
        for key, reason in self.metrics["undefined_reason"].dropna().items():
            out.append(
                f"{self.metrics.loc[key, 'metric']} is undefined on these groups "
                f"and reported as such: {reason}"
            )
        out += self._interval_notes()
        if not self.has_labels:
            out.append(
                "No true labels were given: base rates, TP/FP/FN/TN, TPR, FPR, "
                "FNR, precision, the trade-off and HFM are not available."
            )
        elif self.tradeoff is not None and self.tradeoff.note:
            out.append(self.tradeoff.note)
        return out

    def _interval_notes(self):
        if self.engine == "dask":
            return []
        out = [
            f"{self.metrics.loc[key, 'metric']}: no interval or p-value on these "
            f"groups ({error})"
            for key, error in self.metrics["inference_error"].dropna().items()
        ]
        if "bootstrap_low" not in self.metrics:
            return out
        fine = self.metrics["undefined_reason"].isna()
        fine &= self.metrics["inference_error"].isna()
        defined = self.metrics[fine]
        missing = [
            name
            for name, low in zip(defined["metric"], defined["bootstrap_low"])
            if not math.isfinite(low)
        ]
        if missing:
            out.append(
                f"{', '.join(missing)}: no bootstrap interval here: on some "
                "resample a group's scores were all equal (a tiny group), where "
                "the metric is undefined. ABCC and MCDP need no density."
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
            "pos_label": self.pos_label,
            "reference": self.reference,
            "epsilon": self.epsilon,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_permutations": self.n_permutations,
            "combine": self.combine,
            "min_group_size": self.min_group_size,
            "kept_groups": {
                name: [label_text(g) for g in labels]
                for name, labels in self.kept_groups.items()
            },
            "n_left_out": int(sum(size for *_, size in self.left_out)),
            "engine": self.engine,
        }

    def _tradeoff_dict(self):
        if self.tradeoff is None:
            return None
        return {**self.tradeoff.to_dict(), "at_threshold": self.tradeoff_at_threshold}

    # -- renderings --------------------------------------------------------------
    def to_dict(self):
        """Everything in the report as plain Python (JSON-serialisable) values.

        Returns
        -------
        report : dict
            ``summary`` (settings, ``pos_label``, ``reference``,
            ``kept_groups``, ...), ``headline`` (``text``: the headline's
            sentences; ``threshold`` and ``distribution``: its facts),
            ``plain_summary`` and ``methods`` (lists of sentences), ``groups``
            and ``metrics`` (one dict per row; an undefined metric has
            ``value`` None and an ``undefined_reason``), ``mcdp_details``,
            ``tradeoff`` (None without labels or on Dask: ``threshold``,
            ``performance`` ``{"name", "value"}``, ``positive_rate`` (group ->
            rate), ``delta_dp``, ``best``, ``at_threshold``, ...), ``hfm``
            (None without features) and ``notes``; NaN becomes None.
        """
        metrics = self.metrics.reset_index().to_dict(orient="records")
        return _plain(
            {
                "summary": self._summary(),
                "headline": {"text": headline(self), **self.headline},
                "plain_summary": plain_summary(self),
                "methods": methods(self),
                "groups": self.groups.to_dict(orient="records"),
                "metrics": metrics,
                "mcdp_details": self._details_rows(),
                "tradeoff": self._tradeoff_dict(),
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
    if value is pd.NA or value is pd.NaT:
        return None
    return value
