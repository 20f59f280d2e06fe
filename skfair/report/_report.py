"""The audit report object: its tables, notes and renderings."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..utils._labels import group_label_text
from ._common import AUDIT_DASK_FIGURES_ERROR
from ._compute import metrics_frame
from ._facts import MCDPLocation, plain
from ._figures import draw_figures
from ._html import render_html
from ._markdown import render_markdown
from ._views import view_of


class AuditReport:
    """The result of :func:`audit`: tables, details and their renderings.

    Every table, headline and note is computed on the same groups: those of
    the compared groupings (``combine``) with ``min_group_size`` applied
    once (see :attr:`kept_groups` and :meth:`group_arguments`).

    Built by :func:`audit` from typed facts (frozen dataclasses of
    ``skfair.report._facts``); the renderings read their fields.

    Parameters
    ----------
    settings : Settings
        The validated settings (title, threshold, ε, confidence level,
        combine, min_group_size, reference, positive label).
    resampling : Resampling
        Bootstrap resamples, permutations and the seed.
    data : AuditedData
        Samples, attributes, labels or not, engine, kept and left-out groups.
    groups : DataFrame
        The per-group table (see ``groups`` below).
    references : sequence of TableReference
        Each table's reference group and how it was chosen.
    metric_results : sequence of MetricResult
        Each metric's value, intervals, test and pair.
    mcdp_details : dict of float to MCDPResult
        Where MCDP(0) and MCDP(ε) are attained.
    headline : Headline
        The headline's facts.
    tradeoff : ThresholdTradeoff or None, default=None
        The threshold trade-off (with labels, in memory).
    advice : ThresholdAdvice or None, default=None
        The report's recommendation from it.
    hfm : HFMResult or None, default=None
        HFM of the decisions.
    inputs : AuditInputs or None, default=None
        The validated in-memory inputs (None on Dask).

    Attributes
    ----------
    settings, resampling, data, references, metric_results, inputs
        As given (see Parameters).
    locations : tuple of MCDPLocation
        Where MCDP(0) and MCDP(ε) are attained, as the location table shows.
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
        [0.8, 1.25]). Label-based columns are NaN without labels. With
        survey weights (non-integer ``sample_weight``) the counts are
        weighted (floats), and ``n_rows``, ``n_eff`` (Kish's effective size),
        ``design_effect`` (``n_rows / n_eff``), ``n_eff_positive`` and
        ``n_eff_negative`` follow; the Wilson intervals are on the ``n_eff``
        of each rate's denominator. For a
        regression audit (``settings.task == "regression"``): size, share,
        ``mean_prediction``, the quantiles ``q10``, ``q50``, ``q90`` and,
        with true values, ``mean_true``, ``mean_residual``, ``mae``,
        ``rmse`` (each with ``_low`` and ``_high``), their differences to
        the reference group (``<name>_diff`` with ``_low``, ``_high``) and
        ``note``; the positive-rate columns only with a threshold; with
        survey weights ``size`` is weighted, ``n_rows``, ``n_eff`` and
        ``design_effect`` follow it, and every mean, quantile and interval
        is weighted (intervals on Kish's ``n_eff``). A multiclass audit's
        table has a row per group and class; with survey weights its counts
        are weighted, beside ``n_rows``, ``n_eff``, ``design_effect``,
        ``n_eff_true`` and ``n_eff_not_true`` (of the TPR's and FPR's
        denominators).
    metrics : DataFrame
        One row per metric, indexed by key (``delta_dp``, ``delta_dp@t``,
        ``abcc``, ``abpc``, ``mcdp``, ``mcdp@ε``): value, the interval
        columns of :func:`skfair.metrics.inference.infer_metrics`, p-value,
        test, ``undefined_reason`` (None, or why the metric is undefined
        on these groups; its other columns are then NaN),
        ``untestable_reason`` (None, or why its test cannot decide) and
        ``pair`` (the two groups its value comes from).
    mcdp_details : dict of float to MCDPResult
        Where MCDP(0) and MCDP(ε) are attained, keyed by ε.
    headline : Headline
        ``threshold``: the facts at the threshold (the group compared with:
        the most-selected group, or the reference given; the least selected
        group clearly below it by the Newcombe interval of the difference and
        the groups too few to tell; the groups set apart as their outcome is
        fixed; the four-fifths rule, the impact ratio, the TPR and FPR gaps);
        ``distribution``: MCDP(0), where, and the share of scores within ±ε
        of it; ``regression``: a regression audit's ranges of mean
        prediction, bias, MAE and RMSE over the groups (``threshold`` is
        then None unless a threshold was given). Frozen dataclasses
        (``skfair.report._facts``).
    tradeoff : ThresholdTradeoff or None
        :func:`skfair.model_selection.threshold_tradeoff` on the audited
        groups (None without labels or on Dask).
    tradeoff_at_threshold : dict or None
        ``threshold``, ``performance`` and ``delta_dp`` at the audit's
        threshold.
    advice : ThresholdAdvice or None
        The report's recommendation from the trade-off: a threshold with a
        smaller positive-rate gap than the audit's at ``tolerance`` of the
        best performance, or None and why (None without labels or on Dask).
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
     'plain_summary', 'provenance', 'summary', 'tradeoff']
    """

    def __init__(
        self,
        *,
        settings,
        resampling,
        data,
        groups,
        references,
        metric_results,
        mcdp_details,
        headline,
        tradeoff=None,
        advice=None,
        hfm=None,
        inputs=None,
    ):
        self.settings = settings
        self.resampling = resampling
        self.data = data
        self.groups = groups
        self.references = tuple(references)
        self.metric_results = tuple(metric_results)
        self.mcdp_details = mcdp_details
        self.headline = headline
        self.tradeoff = tradeoff
        self.advice = advice
        self.hfm = hfm
        self.inputs = inputs
        self.provenance = None  # set by audit(): version, call, checksum, date
        self.metrics = metrics_frame(self.metric_results)
        self.locations = tuple(_location(eps, res) for eps, res in mcdp_details.items())

    # -- the settings and data, by their usual names -----------------------------
    title = property(lambda self: self.settings.title)
    threshold = property(lambda self: self.settings.threshold)
    epsilon = property(lambda self: self.settings.epsilon)
    confidence_level = property(lambda self: self.settings.confidence_level)
    combine = property(lambda self: self.settings.combine)
    min_group_size = property(lambda self: self.settings.min_group_size)
    reference = property(lambda self: self.settings.reference)
    pos_label = property(lambda self: self.settings.pos_label)
    n_resamples = property(lambda self: self.resampling.n_resamples)
    n_permutations = property(lambda self: self.resampling.n_permutations)
    n_samples = property(lambda self: self.data.n_samples)
    has_labels = property(lambda self: self.data.has_labels)
    engine = property(lambda self: self.data.engine)
    kept_groups = property(lambda self: dict(self.data.kept_groups))
    left_out = property(lambda self: list(self.data.left_out))

    @property
    def tradeoff_at_threshold(self):
        """``threshold``, ``performance`` and ``delta_dp`` at the audit's threshold."""
        if self.advice is None:
            return None
        current = self.advice.current
        return {
            "threshold": current.threshold,
            "performance": current.performance,
            "delta_dp": current.delta_dp,
        }

    def __repr__(self):
        worst = self.metrics["value"].idxmax()
        mcdp = self.headline.distribution.value  # MCDP(0) (of the worst class)
        # the compared groups (not the rows of every table: attributes and
        # their intersection)
        n_groups = sum(len(labels) for labels in self.data.kept_groups.values())
        # the groups set aside (under min_group_size), said only when there are
        left_out = f", left_out={len(self.left_out)}" if self.left_out else ""
        return (
            f"AuditReport(n_samples={self.n_samples}, n_groups={n_groups}{left_out}, "
            f"mcdp={mcdp:.4g}, largest={worst!r})"
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
            int: 1 when every group is kept, so that nothing warns again);
            with survey weights also ``sample_weight``, so that every
            figure is of the weighted distributions.

        Raises
        ------
        ValueError
            For a report computed on Dask collections (no data in memory).
        """
        if self.inputs is None:
            raise ValueError(AUDIT_DASK_FIGURES_ERROR)
        out = {
            "sensitive_features": self.inputs.sensitive_features,
            "combine": self.combine,
            "min_group_size": self.settings.keep,
        }
        if self.inputs.weights is not None:
            out["sample_weight"] = self.inputs.weights
        return out

    # -- content shared by every rendering -------------------------------------
    def notes(self):
        """Plain-language notes on what the report can and cannot say.

        Returns
        -------
        notes : list of str
        """
        return view_of(self).notes(self)

    def _summary(self):
        return {
            "title": self.title,
            "n_samples": self.n_samples,
            "attributes": list(self.data.attributes),
            "threshold": self.threshold,
            "score_type": self.settings.score_type,
            "score_threshold": self.settings.decision_threshold,
            "task": self.settings.task,
            "task_reason": self.settings.task_reason,
            "epsilon_rule": self.settings.epsilon_rule,
            "pos_label": self.pos_label,
            "reference": self.reference,
            "references": [plain(r) for r in self.references],
            "epsilon": self.epsilon,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_permutations": self.n_permutations,
            "combine": self.combine,
            "min_group_size": self.min_group_size,
            "kept_groups": {
                name: [group_label_text(g) for g in labels]
                for name, labels in self.data.kept_groups.items()
            },
            "n_left_out": int(sum(size for *_, size in self.data.left_out)),
            "engine": self.engine,
        }

    def _tradeoff_dict(self):
        """The report's recommendation (``threshold`` None when there is none)."""
        advice = self.advice
        if advice is None:
            return None
        pick, best = advice.recommended, advice.best
        return {
            "threshold": None if pick is None else pick.threshold,
            "performance": {
                "name": advice.performance,
                "value": None if pick is None else pick.performance,
            },
            "delta_dp": None if pick is None else pick.delta_dp,
            "positive_rate": dict(advice.positive_rate),
            "best": plain(best),
            "at_threshold": plain(advice.current),
            "tolerance": advice.tolerance,
            "n_candidates": advice.n_candidates,
            "n_excluded": advice.n_excluded,
            "no_positives": list(advice.no_positives),
            "no_negatives": list(advice.no_negatives),
            "pos_label": advice.pos_label,
            "note": advice.reason,
        }

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
            rate), ``delta_dp``: the recommended threshold, None when no
            threshold improves on the audit's, ``note`` saying why; ``best``,
            ``at_threshold``, ``no_positives``, ...), ``hfm``
            (None without features) and ``notes``; NaN becomes None.
        """
        metrics = self.metrics.reset_index().to_dict(orient="records")
        view = view_of(self)
        headline = {
            "text": view.headline(self),
            "threshold": plain(self.headline.threshold),
            "distribution": plain(self.headline.distribution),
        }
        if self.headline.regression is not None:
            headline["regression"] = plain(self.headline.regression)
        if self.headline.multiclass is not None:
            headline["multiclass"] = plain(self.headline.multiclass)
        return _plain(
            {
                "summary": self._summary(),
                "headline": headline,
                "plain_summary": view.plain_summary(self),
                "methods": view.methods(self),
                "groups": self.groups.to_dict(orient="records"),
                "metrics": metrics,
                "mcdp_details": [plain(loc) for loc in self.locations],
                "tradeoff": self._tradeoff_dict(),
                "hfm": None if self.hfm is None else self.hfm.to_dict(),
                "provenance": plain(self.provenance),
                "notes": view.notes(self),
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


def _location(eps, res):
    """Where MCDP(ε) is attained, as an :class:`MCDPLocation`."""
    return MCDPLocation(
        epsilon=eps,
        value=float(res.value),
        attribute=res.attribute,
        groups=tuple(group_label_text(g) for g in res.groups),
        threshold=None if res.threshold is None else float(res.threshold),
        window=None if res.window is None else tuple(map(float, res.window)),
        higher_cdf_group=group_label_text(res.higher_cdf_group),
    )


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
