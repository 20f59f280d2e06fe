"""The fairness audit of one model's scores: numbers, intervals, tests, report.

:func:`audit` computes everything (per-group rates, every distribution
metric with its confidence intervals and p-value, where MCDP is attained,
HFM when features are given) and returns an :class:`AuditReport`, which
renders it as a dict, Markdown or one self-contained HTML page. Figures are
asked of :mod:`skfair.plotting` only when the HTML is rendered; without
matplotlib the page says so and keeps every table.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..utils import (
    check_binary_target,
    check_fraction,
    check_same_index,
    check_same_length,
    check_scores,
    check_sensitive_features,
    sensitive_groupings,
)
from ..utils._dask import check_not_mixed
from ..utils._sensitive import check_min_group_size
from ._hfm import hfm
from ._mcdp import mcdp_details
from ._uncertainty import (
    _bootstrap,
    _check_confidence_level,
    _check_n_resamples,
    _dkw,
    _generator,
    _ks_problem,
    _ks_pvalue,
    _permutation_pvalues,
    _prepare,
    _spec,
)

AUDIT_SCORE_REASON = (
    "an audit (decisions at a threshold in [0, 1] and MCDP(epsilon) "
    "neighbourhoods); pass probabilities, e.g. predict_proba(X)[:, 1]"
)
# the texts of skfair.utils.check_fraction, which checks both
AUDIT_THRESHOLD_ERROR = "threshold must be a real number in [0, 1]; got {value!r}."
AUDIT_EPSILON_ERROR = "epsilon must be a real number in (0, 1); got {value!r}."
AUDIT_HFM_LABELS_ERROR = (
    "X was given for HFM, which compares the predictions with the true labels; "
    "pass y_true as well (or X=None)."
)
AUDIT_POS_LABEL_ERROR = "pos_label={pos_label!r} is not one of the labels {classes}."
AUDIT_DASK_X_ERROR = (
    "X (for HFM) is not supported with Dask inputs: HFM needs every sample in "
    "memory. Pass X=None, or audit an in-memory sample."
)
AUDIT_DASK_FIGURES_ERROR = (
    "The figures need every score in memory; this report was computed on Dask "
    "collections. Audit an in-memory sample to draw them."
)
DASK_NOTE = (
    "Computed on Dask collections: the metric values, the DKW intervals, the "
    "group table and where MCDP is attained are exact on all the data; the "
    "bootstrap intervals, p-values, ABPC and figures need every score in "
    "memory and are left out. Audit an in-memory sample for them."
)
NO_MATPLOTLIB_NOTE = (
    'Figures omitted: matplotlib is not installed (pip install "skfair[plot]").'
)

# Above this many samples the number of resamples shrinks (see _auto_resamples).
_FULL_RESAMPLES_UP_TO = 100_000


def _auto_resamples(n_samples, full=199, floor=49):
    """199 resamples up to 100 000 samples, then fewer (at least 49)."""
    if n_samples <= _FULL_RESAMPLES_UP_TO:
        return full
    return max(floor, int(full * _FULL_RESAMPLES_UP_TO / n_samples))


def _metric_table(threshold, epsilon):
    """(key, display name, metric, kwargs) of every metric the audit reports."""
    return [
        ("delta_dp", "ΔDP_c (gap in mean score)", "delta_dp", {}),
        (
            f"delta_dp@{threshold:g}",
            f"ΔDP_b at t = {threshold:g} (gap in positive rate)",
            "delta_dp",
            {"threshold": threshold},
        ),
        ("abcc", "ABCC (area between CDFs)", "abcc", {}),
        ("abpc", "ABPC (area between densities)", "abpc", {"method": "binned"}),
        ("mcdp", "MCDP(0) (largest CDF gap)", "mcdp", {}),
        (
            f"mcdp@{epsilon:g}",
            f"MCDP({epsilon:g}) (local CDF gap)",
            "mcdp",
            {"epsilon": epsilon},
        ),
    ]


def _rate(numerator, denominator):
    return float(numerator / denominator) if denominator > 0 else float("nan")


def _group_rows(grouping, scores, decisions, y):
    rows = []
    n = scores.shape[0]
    for g, label in enumerate(grouping.labels):
        members = grouping.codes == g
        size = int(members.sum())
        d = decisions[members]
        row = {
            "grouping": grouping.name,
            "group": _label_text(label),
            "size": size,
            "share": size / n,
            "base_rate": float("nan"),
            "mean_score": float(scores[members].mean()),
            "positive_rate": float(d.mean()),
            "tpr": float("nan"),
            "fpr": float("nan"),
            "precision": float("nan"),
        }
        if y is not None:
            t = y[members]
            row["base_rate"] = float(t.mean())
            row["tpr"] = _rate(np.sum(d & (t == 1)), np.sum(t == 1))
            row["fpr"] = _rate(np.sum(d & (t == 0)), np.sum(t == 0))
            row["precision"] = _rate(np.sum(d & (t == 1)), np.sum(d))
        rows.append(row)
    return rows


def _label_text(label):
    if isinstance(label, tuple):
        return " & ".join(str(part) for part in label)
    return str(label)


def _encode_labels(y_true, n_samples, pos_label):
    check_same_length(
        y_true, np.empty(n_samples), first_name="y_true", second_name="y_score"
    )
    # two classes and no NaN, with or without pos_label
    y, classes = check_binary_target(y_true, why="the audit's rates")
    if pos_label is None:
        return y
    classes = classes.tolist()
    if pos_label not in classes:
        raise ValueError(
            AUDIT_POS_LABEL_ERROR.format(pos_label=pos_label, classes=classes)
        )
    return (y == classes.index(pos_label)).astype(np.int64)


def audit(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold=0.5,
    X=None,
    epsilon=0.05,
    pos_label=None,
    confidence_level=0.95,
    n_resamples=None,
    n_permutations=None,
    combine="intersection",
    random_state=0,
    title=None,
    min_group_size=None,
):
    """Audit a model's scores: every fairness metric, its uncertainty, a report.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True binary labels; None audits the scores alone (no base rates,
        TPR, FPR, precision or HFM).
    y_score : array-like of shape (n_samples,)
        Scores in [0, 1] (positive-class probabilities).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; a DataFrame names its attributes.
    threshold : float, default=0.5
        The decision threshold (decisions ``y_score >= threshold``).
    X : array-like or DataFrame of shape (n_samples, n_features), default=None
        The **non-sensitive** features; if given (with ``y_true``), HFM
        (:func:`skfair.metrics.hfm`) of the decisions is reported.
    epsilon : float, default=0.05
        The neighbourhood radius of the local MCDP(ε) reported beside
        MCDP(0).
    pos_label : object or None, default=None
        The positive class of ``y_true``; None takes the larger label.
    confidence_level : float, default=0.95
        Of every confidence interval.
    n_resamples : int or None, default=None
        Bootstrap resamples; None: 199 up to 100 000 samples, then fewer
        (about ``2e7 / n_samples``, at least 49), so that an audit of a
        million rows takes well under a minute. The number is in the report;
        pass e.g. 999 for finer interval ends.
    n_permutations : int or None, default=None
        Permutations of the permutation tests; None as ``n_resamples``.
    combine : {"intersection", "marginal"}, default="intersection"
        How several attributes are combined by the metrics.
    random_state : int, RandomState, Generator or None, default=0
        Seeds the resampling (the report is reproducible by default).
    title : str or None, default=None
        The report's title.
    min_group_size : int or None, default=None
        None keeps every group and emits one
        :class:`~skfair.utils.SmallGroupWarning` naming each group of fewer
        than 30 samples; an int ``k`` leaves out the groups with fewer than
        ``k`` samples everywhere (metrics, intervals, tests, HFM and the group
        table), as the metrics do, and the report's notes name them.

    Returns
    -------
    report : AuditReport

    Raises
    ------
    ValueError
        On NaN or infinite scores, scores outside [0, 1], a single group,
        NaN group labels, mismatched lengths, labels that are not binary,
        ``X`` without ``y_true``, or invalid parameters.

    See Also
    --------
    metric_confidence_interval : One metric's interval.
    disparity_test : One metric's test of "no disparity".

    Notes
    -----
    Each metric has a stratified bootstrap interval (all metrics, on shared
    resamples) and, for ΔDP, ABCC and MCDP, the distribution-free DKW
    interval; see :func:`metric_confidence_interval` for when to trust
    which. The p-value of MCDP(0) with two groups is the exact
    Kolmogorov–Smirnov p-value (asymptotic above 10 000 samples per group);
    the others come from one permutation test on shared permutations. ABPC
    uses the binned KDE (``method="binned"``) so that each resample is cheap.

    **Dask.** If ``y_score`` (and ``y_true``, ``sensitive_features``) are
    Dask collections with the same partitions (e.g. columns of
    ``dask.dataframe.read_parquet``), the data stay distributed: the metric
    values are computed exactly by the public metric functions (their Dask
    engines), the group table by per-partition sums, the DKW intervals from
    the group sizes, and where MCDP is attained by :func:`mcdp_details`. The
    bootstrap intervals, the p-values, ABPC (a kernel density estimate) and
    the figures need every score in memory; they are left out (NaN, with a
    note in the report), and so is HFM (``X`` must be None). Compute a
    sample in memory (``.sample(frac=...).compute()``) and audit it for
    those. With more than one pair of groups, the DKW interval of ABCC on
    Dask comes from the aggregated value (``value ± the largest pair
    slack``, as the ABCC of each pair would need a pass of its own): still
    valid, a little wider than in memory.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import audit
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(["a", "b"], 200)
    >>> y_score = np.r_[rng.beta(2, 4, 200), rng.beta(3, 3, 200)]
    >>> y_true = (rng.random(400) < y_score).astype(int)
    >>> report = audit(y_true, y_score, sensitive_features=groups,
    ...                n_resamples=99, n_permutations=99)
    >>> row = report.metrics.loc["mcdp"]
    >>> round(float(row["value"]), 3), float(row["pvalue"]) < 1e-10, row["test"]
    (0.415, True, 'ks')
    >>> report.groups[["group", "size", "positive_rate"]].values.tolist()
    [['a', 200, 0.165], ['b', 200, 0.525]]
    >>> "<table" in report.to_html(figures=False)
    True
    """
    threshold = check_fraction(threshold, name="threshold")
    epsilon = check_fraction(epsilon, name="epsilon", closed=False)
    confidence_level = _check_confidence_level(confidence_level)
    check_min_group_size(min_group_size)
    # the audit's settings, recorded as given by the report of either engine
    settings = {
        "threshold": threshold,
        "epsilon": epsilon,
        "confidence_level": confidence_level,
        "combine": combine,
        "min_group_size": min_group_size,
        "title": title or "Fairness audit",
    }
    data = {"y_true": y_true, "y_score": y_score}
    data["sensitive_features"] = sensitive_features
    if check_not_mixed({k: v for k, v in data.items() if v is not None}):
        from ._audit_dask import audit_dask

        if X is not None:
            raise ValueError(AUDIT_DASK_X_ERROR)
        return audit_dask(
            y_true,
            y_score,
            sensitive_features=sensitive_features,
            pos_label=pos_label,
            **settings,
        )
    check_same_index(
        y_true=y_true, y_score=y_score, sensitive_features=sensitive_features, X=X
    )
    scores = check_scores(y_score, unit_interval_for=AUDIT_SCORE_REASON)
    n = scores.shape[0]
    # warns once about small groups (None), or checks that two groups remain
    sensitive_groupings(
        sensitive_features,
        n_samples=n,
        combine=combine,
        min_group_size=min_group_size,
    )
    keep = 1 if min_group_size is None else min_group_size
    n_resamples = _auto_resamples(n) if n_resamples is None else n_resamples
    n_permutations = n_resamples if n_permutations is None else n_permutations
    n_resamples = _check_n_resamples(n_resamples)
    n_permutations = _check_n_resamples(n_permutations)
    y = None if y_true is None else _encode_labels(y_true, n, pos_label)
    if X is not None and y is None:
        raise ValueError(AUDIT_HFM_LABELS_ERROR)
    decisions = scores >= threshold

    attributes = check_sensitive_features(sensitive_features, n_samples=n)
    table_groupings = [attributes.attribute(k) for k in range(attributes.n_attributes)]
    if attributes.n_attributes > 1:
        table_groupings.append(attributes.intersection())
    left_out = _left_out(table_groupings, keep)
    groups = pd.DataFrame(
        [
            row
            for g in table_groupings
            for row in _group_rows(g.keep_at_least(keep), scores, decisions, y)
        ]
    )

    metrics = _metrics_frame(
        scores,
        sensitive_features,
        combine,
        threshold,
        epsilon,
        confidence_level,
        n_resamples,
        n_permutations,
        random_state,
        keep,
    )
    details = {
        eps: mcdp_details(
            None,
            scores,
            sensitive_features=sensitive_features,
            epsilon=eps,
            combine=combine,
            min_group_size=keep,
        )
        for eps in (0.0, epsilon)
    }
    hfm_result = (
        None
        if X is None
        else hfm(
            X,
            y,
            decisions.astype(np.int64),
            sensitive_features=sensitive_features,
            min_group_size=keep,
        )
    )
    return AuditReport(
        **settings,
        n_samples=n,
        n_resamples=n_resamples,
        n_permutations=n_permutations,
        groups=groups,
        metrics=metrics,
        mcdp_details=details,
        hfm=hfm_result,
        has_labels=y is not None,
        _data=(scores, sensitive_features, y),
        left_out=left_out,
    )


def _left_out(groupings, keep):
    """(grouping name, group label, size) of every group below ``keep``."""
    out = []
    for grouping in groupings:
        counts = grouping.counts()
        out += [
            (grouping.name, _label_text(label), int(size))
            for label, size in zip(grouping.labels, counts)
            if size < keep
        ]
    return out


def _metrics_frame(
    scores,
    sensitive_features,
    combine,
    threshold,
    epsilon,
    level,
    n_resamples,
    n_permutations,
    random_state,
    keep,
):
    table = _metric_table(threshold, epsilon)
    specs = [_spec(metric, kwargs) for _, _, metric, kwargs in table]
    estimates, resampler = _prepare(
        None, scores, sensitive_features, None, combine, specs, keep
    )
    rng = _generator(random_state)
    low, high, se = _bootstrap(
        resampler,
        specs,
        confidence_level=level,
        n_resamples=n_resamples,
        bootstrap_method="basic",
        rng=rng,
    )
    dkw_at = [j for j, s in enumerate(specs) if s.metric != "abpc"]
    dkw_low, dkw_high = _dkw(resampler, [specs[j] for j in dkw_at], None, level)
    ks = [j for j, s in enumerate(specs) if _ks_problem(s, resampler, None) is None]
    permuted = [j for j in range(len(specs)) if j not in ks]
    pvalues = np.full(len(specs), np.nan)
    tests = [""] * len(specs)
    for j in ks:
        pvalues[j], tests[j] = _ks_pvalue(resampler), "ks"
    if permuted:
        pvalues[permuted] = _permutation_pvalues(
            resampler, [specs[j] for j in permuted], n_resamples=n_permutations, rng=rng
        )
        for j in permuted:
            tests[j] = "permutation"
    rows = []
    for j, (key, name, metric, _) in enumerate(table):
        upper = 2.0 if metric == "abpc" else 1.0
        d = dkw_at.index(j) if j in dkw_at else None
        rows.append(
            {
                "key": key,
                "metric": name,
                "value": estimates[j],
                "bootstrap_low": float(np.clip(low[j], 0.0, upper)),
                "bootstrap_high": float(np.clip(high[j], 0.0, upper)),
                "bootstrap_se": float(se[j]),
                "dkw_low": float("nan") if d is None else float(dkw_low[d]),
                "dkw_high": float("nan") if d is None else float(dkw_high[d]),
                "pvalue": float(pvalues[j]),
                "test": tests[j],
            }
        )
    return pd.DataFrame(rows).set_index("key")


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
    >>> from skfair.metrics import audit
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
                    "groups": " vs ".join(_label_text(g) for g in res.groups),
                    "where": where,
                    "higher_cdf_group": _label_text(res.higher_cdf_group),
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
        from ._audit_render import render_markdown

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
        from ._audit_render import render_html

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
        from ._audit_render import draw_figures

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
