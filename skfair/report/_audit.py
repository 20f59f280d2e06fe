"""The fairness audit of one model's scores: numbers, intervals, tests, report.

:func:`audit` computes everything (per-group rates, every distribution
metric with its confidence intervals and p-value, where MCDP is attained,
HFM when features are given) and returns an :class:`AuditReport`, which
renders it as a dict, Markdown or one self-contained HTML page. Figures are
asked of :mod:`skfair.plotting` only when the HTML is rendered; without
matplotlib the page says so and keeps every table.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import expit

from ..metrics import hfm
from ..metrics._frame_arg import collected_columns
from ..metrics._score_type import check_score_type
from ..metrics.inference import check_confidence_level, check_n_resamples
from ..model_selection import threshold_tradeoff
from ..utils import sensitive_groupings
from ..utils._dask import check_not_mixed
from ..utils._groups import check_min_group_size
from ..utils._validation import check_fraction, check_same_index, check_scores
from ._advice import threshold_advice
from ._common import (
    AUDIT_DASK_X_ERROR,
    AUDIT_HFM_LABELS_ERROR,
    AUDIT_SCORE_REASON,
    auto_resamples,
    check_progress,
    report_metrics,
    sized_permutations,
)
from ._compute import (
    audited_inputs,
    audited_rows,
    encode_labels,
    group_table,
    margin_results,
    per_row_counts,
)
from ._dask import audit_dask
from ._facts import (
    AuditedData,
    AuditInputs,
    Resampling,
    Settings,
    ThresholdPoint,
)
from ._headline import binary_headline, computed_metrics
from ._multiclass import audit_multiclass
from ._multiclass_inputs import multiclass_inputs, multiclass_settings
from ._provenance import SURVEY_HFM_ERROR, prepare_audit
from ._regression import (
    audit_regression,
    check_regression_options,
    check_task,
    detect_task,
    regression_inputs,
    regression_settings,
)
from ._report import AuditReport

AUDIT_SCORE_TYPE_REASON = (
    f"{AUDIT_SCORE_REASON}, or pass score_type='logit' or 'margin' "
    "(--score-type) for raw scores, or task='regression' (--task) for a "
    "regressor's predictions"
)
AUDIT_BINARY_LABELS_REASON = (
    "the audit of a binary classifier (three or more classes: pass "
    "task='multiclass' (--task) with y_score a probability matrix, e.g. "
    "predict_proba(X), or predicted labels; a regressor's targets: "
    "task='regression')"
)
AUDIT_DASK_SCORE_TYPE_ERROR = (
    "score_type={value!r} is not supported on Dask collections: map the "
    "scores to probabilities first (e.g. with scipy.special.expit over the "
    "partitions) and audit them with score_type='probability'."
)
AUDIT_DASK_REGRESSION_ERROR = (
    "task={task!r} is not supported on Dask collections: audit an "
    "in-memory sample (.sample(frac=...).compute())."
)
AUDIT_RAW_THRESHOLD_ERROR = (
    "threshold must be a finite real number (in the units of the "
    "{score_type}s); got {value!r}."
)


def _data_inputs(data, y_true, y_score, sensitive_features):
    """:func:`audit`'s data arguments by name; with ``data``, the columns they name."""
    inputs = {
        "y_true": y_true,
        "y_score": y_score,
        "sensitive_features": sensitive_features,
    }
    if data is None:
        return inputs
    columns = collected_columns({**inputs, "data": data})
    return {name: columns[name] for name in inputs}


def audit(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold="auto",
    X=None,
    epsilon="auto",
    pos_label=None,
    confidence_level=0.95,
    n_resamples=None,
    n_permutations=None,
    combine="intersection",
    random_state=0,
    title=None,
    min_group_size=None,
    reference=None,
    progress=None,
    score_type="probability",
    task=None,
    classes=None,
    sample_weight=None,
    exclude=None,
    data=None,
):
    """Audit a model's scores: every fairness metric, its uncertainty, a report.

    The report leads with the facts at the decision threshold (each group's
    positive rate against a reference group, the four-fifths rule, the TPR
    and FPR gaps), then the distribution-level finding (MCDP and where it is
    attained), a plain-language summary, the methods, the per-group table
    (counts, rates with Wilson intervals, ratios to the reference group), the
    metrics with intervals and tests, and the threshold trade-off
    (:func:`skfair.model_selection.threshold_tradeoff`). Every part is
    computed on the same groups.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True binary labels; None audits the scores alone (no base rates,
        counts, TPR, FPR, FNR, precision, trade-off or HFM). With
        ``task="regression"``, the true targets (None: the predictions
        alone, without errors).
    y_score : array-like of shape (n_samples,)
        Scores in [0, 1] (positive-class probabilities), or raw scores with
        ``score_type``; with ``task="regression"``, a regressor's
        predictions (any real numbers).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; a DataFrame names its attributes.
    threshold : float or "auto", default="auto"
        The decision threshold (decisions ``y_score >= threshold``), in the
        scores' own units: a logit with ``score_type="logit"``, a margin with
        ``score_type="margin"``. "auto": 0.5 for probabilities, 0 for logits
        (a probability of 0.5) and margins (the decision boundary), said in
        the report's lead (``settings.threshold_rule``); none for a
        regressor (its report has facts at a threshold, in the target's
        units, only when one is given).
    X : array-like or DataFrame of shape (n_samples, n_features), default=None
        The **non-sensitive** features; if given (with ``y_true``), HFM
        (:func:`skfair.metrics.hfm`) of the decisions is reported.
    epsilon : float or "auto", default="auto"
        The neighbourhood radius of the local MCDP(ε) reported beside
        MCDP(0), in (0, 1) for scores; "auto" is 0.05. For a regressor, in
        the target's units (any positive number), and "auto" is 5% of the
        range of the predictions (3 significant digits); the report says
        which ε was used and how it was chosen.
    pos_label : object or None, default=None
        The positive class of ``y_true``. None is allowed only for labels
        {0, 1}, {False, True} or {-1, 1} (the larger is positive); any other
        labels without it are an error, as in scikit-learn's metrics. The
        report's summary states it.
    confidence_level : float, default=0.95
        Of every confidence interval.
    n_resamples : int or None, default=None
        Bootstrap resamples; None: 199 up to 100 000 samples, then fewer
        (about ``2e7 / n_samples``, at least 49), so that an audit of a
        million rows takes well under a minute. The number is in the report;
        pass e.g. 999 for finer interval ends.
    n_permutations : int or None, default=None
        Permutations of the permutation tests. None: as ``n_resamples`` when
        that is given; else enough for Holm's correction over the audit's
        tests to reject (the smallest p-value ``1 / (B + 1)`` at most
        ``(1 - confidence_level) / m`` for ``m`` tests, one per metric and,
        for a multiclass audit, per class: 500 for five classes at 0.95),
        and at least the default ``n_resamples`` (199 up to 100 000 samples;
        a binary audit's six tests need 120). The report states the number.
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
        ``k`` samples everywhere (metrics, intervals, tests, HFM, the group
        table, the headline, the trade-off and the figures), as the metrics
        do, and the report's notes name them. With
        ``combine="intersection"`` a group is an intersection, and the
        per-attribute tables are computed on the samples of the kept
        intersections.
    reference : object or None, default=None
        The reference group of the ratios and differences of the group table
        and headline: a group label (or its text, e.g. ``"f & x"`` for an
        intersection), used in every table where it is a group; the other
        tables, and all with None, use their largest group. A label that is
        a group of no table is an error.
    progress : callable or None, default=None
        Called with each phase's name as it starts, in this order:
        ``"groups"`` (the per-group table), ``"metrics"`` (each metric's
        value, and which are undefined), ``"intervals and tests"``
        (resampling, usually the longest), ``"where MCDP is attained"``,
        ``"trade-off"`` (with labels) and ``"HFM"`` (with ``X``); a phase
        that does not apply is skipped (see ``skfair.report._common.
        AUDIT_PHASES``). For progress lines or a tqdm bar. A callable that
        also takes the keywords ``done`` and ``total`` (e.g. ``def
        progress(phase, done=None, total=None)``) is called during
        ``"intervals and tests"`` as ``progress("intervals and tests",
        done=k, total=n)`` each time more of the ``n`` bootstrap resamples
        and permutations are evaluated (``done=0`` first).
    score_type : {"probability", "logit", "margin"}, default="probability"
        What ``y_score`` holds. "probability": scores in [0, 1]. "logit":
        log-odds, mapped through the sigmoid (:func:`scipy.special.expit`)
        before anything else, ``threshold`` too; every number of the report
        is then that of the audit of the probabilities ``expit(y_score)`` at
        ``threshold=expit(threshold)`` (thresholds in the tables and the
        trade-off are probabilities), and the report states the decision
        rule in logits. Logits above about 36.7 all map to a probability of
        exactly 1.0 in floating point and tie in the report; MCDP(0) of the
        logits themselves (:func:`skfair.metrics.mcdp`, or
        :func:`~skfair.metrics.disparity_test` with ``score_type="logit"``)
        keeps them apart. "margin" (e.g. ``decision_function``): the scores
        keep their scale; ΔDP_c, ΔDP_b, ABCC and MCDP(0) are computed on
        them (ABCC and ΔDP_c in margin units: unlike MCDP(0), which is the
        same for every increasing map of the scores, they change with the
        scale), while ABPC and MCDP(ε), which need [0, 1], and the DKW
        intervals of ABCC and ΔDP_c are reported as not applicable, with the
        reason; render it with ``to_html(figures=False)`` (the MCDP(ε)
        curve needs [0, 1]). Not on Dask (map the scores first).
    task : {"binary", "regression", "multiclass"} or None, default=None
        What is audited. None detects it: "regression" when ``y_true`` is
        numeric with more than two distinct values and the predictions
        leave [0, 1] or the targets are not whole numbers (the report and
        ``settings.task_reason`` say "task detected: regression (y_true has
        N distinct numeric values)"), else "binary". A regression audit
        reports the same distribution metrics on the predictions (ΔDP_c and
        ABCC, the 1-Wasserstein distance, in the target's units; MCDP(0),
        the Kolmogorov–Smirnov statistic, scale-free; MCDP(ε) and ABPC on
        the observed range of the predictions), each group's prediction
        quantiles (10%, 50%, 90%) and, with ``y_true``, its bias (mean
        residual ``y_pred - y_true``), MAE and RMSE with intervals
        (:func:`skfair.metrics.regression_group_table`) and their gaps
        between groups; figures of the groups' prediction CDFs and
        residuals. ``X``, ``pos_label``, ``score_type`` and Dask inputs are
        for classifiers. "multiclass" (detected when ``y_true`` has three or
        more class labels and ``y_score`` is a matrix with a column per class,
        or labels of the same set; said as "task detected: multiclass (K
        classes: ...)"): each class one-vs-rest, see ``classes``.
    classes : array-like or None, default=None
        For ``task="multiclass"``: the classes, in the order of the columns of
        an ``(n_samples, n_classes)`` probability matrix ``y_score`` (a
        DataFrame's columns are the classes; None: the sorted labels of
        ``y_true``), or predicted labels. The report: per group and class,
        the selection rate, its ratio to the reference and the one-vs-rest
        TPR and FPR (:func:`skfair.metrics.multiclass_rate_table`), a
        confusion matrix per group, the per-class gaps, the distribution
        metrics of each class's probability column, per-class CDFs and a
        heat map. The predicted class is the most probable (``threshold``
        "auto"); ``X``, ``pos_label`` and ``score_type`` do not apply.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Non-negative weights, not all 0 (NaN, infinite or negative values and
        a wrong length are errors). Whole numbers are frequency weights, each
        row standing for that many people (e.g. rows aggregated by count):
        the rows are repeated by their weight before the audit, so every
        count, rate, interval and test is of the people. Any other values
        are survey weights (e.g. ``1 / inclusion probability``), for every
        task: each row is kept once with its weight (rows of weight 0 are
        left out); every count of the group table is weighted (``size``,
        beside ``n_rows`` and Kish's effective size ``n_eff = (sum w)^2 /
        sum w^2`` and ``design_effect = n_rows / n_eff``), every rate,
        mean, quantile, metric, the trade-off and the figures are weighted;
        the rates' Wilson and the headline's Newcombe intervals use the
        ``n_eff`` of their denominators (for a multiclass TPR and FPR, of
        the group's people of the class and of the others: ``n_eff_true``,
        ``n_eff_not_true``), the metrics' intervals are the weighted
        bootstrap band or the Welch and Newcombe intervals on ``n_eff``; a
        regressor's bias, MAE and RMSE (per group, against the reference,
        their gaps and the bias by quantile bin of ``y_true``, cut at the
        weighted quantiles) get Student-t and Welch intervals on the
        linearisation variance of a weighted mean with ``n_eff - 1``
        degrees of freedom, and its quantiles invert the weighted CDF; the
        tests (permutation, Kolmogorov–Smirnov, chi-square), the DKW
        intervals, HFM and the regression residuals' box plots, which do
        not hold under an unequal-probability design, are not computed
        (p-values NaN; ``X`` is an error), and the report says so; the
        small-group rules (under 30 people, under 10 positives) read
        ``n_eff``, and the notes give the design effect.
        Coverage of these intervals under Poisson sampling:
        ``benchmarks/bench_weighted_audit_coverage.py`` (binary) and
        ``benchmarks/bench_weighted_regression_coverage.py`` (regression).
        Not on Dask.
    exclude : label, sequence of labels, dict or None, default=None
        Groups set aside before the audit, by label (a value of one
        attribute, or the text of an intersection, ``"F & child"``): a
        sequence of labels, or a mapping ``{label: reason}``; the notes name
        each with its reason and its rows (e.g. groups whose outcome is fixed
        by definition). An unknown label is an error. Not on Dask.
    data : DataFrame or lazy frame, default=None
        A frame narwhals supports; then ``y_true``, ``y_score`` (a name, or
        the names of the class-probability columns) and
        ``sensitive_features`` (a name or a list of names) are the names of
        its columns. An eager frame's (pandas, polars, PyArrow) columns are
        taken out; a Dask frame's stay Dask Series (the Dask audit below). A
        lazy frame (DuckDB, polars ``LazyFrame``, Spark, SQLFrame, Ibis) is
        reduced in its engine to the named columns, which alone are
        collected into memory: the intervals, tests and figures need every
        score. For the metrics alone on data larger than memory, call them
        with ``data=`` (computed in the engine) or ``python -m skfair audit
        --engine duckdb``.

    Returns
    -------
    report : AuditReport
        Its ``provenance`` (:class:`~skfair.report._provenance.Provenance`)
        records skfair's version, the call, the input rows and their
        SHA-256 checksum, the date, the weights and the groups set aside.

    Raises
    ------
    ValueError
        On input errors only: NaN or infinite scores, scores outside [0, 1]
        with ``score_type="probability"`` (the error names ``score_type``),
        a single group, NaN group labels, mismatched lengths, labels that are
        not binary, labels other than {0, 1}, {False, True} or {-1, 1}
        without ``pos_label``, an unknown ``reference``, ``X`` without
        ``y_true``, or invalid parameters; and, before any resampling, when
        the intervals and tests would take too long: more than
        ``MAX_RESAMPLING_SECONDS`` (10 minutes) by the estimate of
        :func:`skfair.report.resampling_estimate`, which grows with the
        pairs of groups times the resamples and permutations (the error
        names a ``min_group_size`` or ``n_resamples`` that fits). A metric
        that is undefined on
        these groups (e.g. ABPC with a one-sample group) is reported as
        undefined (``value`` None, the reason in ``undefined_reason`` and the
        notes) and the audit goes on.

    See Also
    --------
    metric_confidence_interval : One metric's interval.
    disparity_test : One metric's test of "no disparity".

    Notes
    -----
    Per-group rates have Wilson score intervals. Each metric has a
    stratified bootstrap interval (all metrics, on shared
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
    >>> from skfair import audit
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
    >>> facts = report.headline.threshold
    >>> facts.reference.group, facts.disadvantaged.group, round(facts.impact_ratio, 3)
    ('b', 'a', 0.314)
    >>> "<table" in report.to_html(figures=False)
    True
    """
    shown = {
        "threshold": threshold,
        "score_type": score_type,
        "task": task,
        "min_group_size": min_group_size,
        "reference": reference,
        "combine": combine,
        "n_resamples": n_resamples,
        "n_permutations": n_permutations,
        "exclude": exclude,
    }
    inputs = _data_inputs(data, y_true, y_score, sensitive_features)
    y_true, y_score, sensitive_features = inputs.values()
    dask = check_not_mixed({k: v for k, v in inputs.items() if v is not None})
    record, prepared = prepare_audit(
        inputs, X, shown, sample_weight=sample_weight, exclude=exclude, dask=dask
    )
    y_true, y_score, sensitive_features, X, weights = prepared
    _check_survey(weights, X)
    report = _audit_rows(
        y_true,
        y_score,
        sensitive_features=sensitive_features,
        threshold=threshold,
        X=X,
        epsilon=epsilon,
        pos_label=pos_label,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        n_permutations=n_permutations,
        combine=combine,
        random_state=random_state,
        title=title,
        min_group_size=min_group_size,
        reference=reference,
        progress=progress,
        score_type=score_type,
        task=task,
        classes=classes,
        dask=dask,
        weights=weights,
    )
    report.provenance = record
    return report


def _audit_rows(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold,
    X,
    epsilon,
    pos_label,
    confidence_level,
    n_resamples,
    n_permutations,
    combine,
    random_state,
    title,
    min_group_size,
    reference,
    progress,
    score_type,
    task,
    classes,
    dask,
    weights=None,
):
    """:func:`audit` of the prepared rows (``weights``: survey weights, or None)."""
    score_type = check_score_type(score_type)
    task = check_task(task)
    settings = _check_settings(
        threshold, epsilon, confidence_level, combine, min_group_size, title, reference
    )
    progress = check_progress(progress)
    if dask and task in ("regression", "multiclass"):
        raise ValueError(AUDIT_DASK_REGRESSION_ERROR.format(task=task))
    task, reason = detect_task(None if dask else y_true, y_score, task)  # Dask: given
    if task == "regression":
        check_regression_options(X=X, pos_label=pos_label, score_type=score_type)
        scores, y = regression_inputs(y_true, y_score, sensitive_features)
    elif task == "multiclass":
        options = {"X": X, "pos_label": pos_label, "score_type": score_type}
        data = multiclass_inputs(y_true, y_score, sensitive_features, classes, options)
        scores = data.proba
    else:
        settings = _score_settings(settings, score_type)
        if dask:
            _check_dask(X, score_type)
            return audit_dask(
                y_true,
                y_score,
                sensitive_features=sensitive_features,
                pos_label=pos_label,
                settings=settings,
                progress=progress,
            )
        check_same_index(
            y_true=y_true, y_score=y_score, sensitive_features=sensitive_features, X=X
        )
        scores = _checked_scores(y_score, score_type)
    n = scores.shape[0]
    # warns once about small groups (None), or checks that two groups remain
    sensitive_groupings(
        sensitive_features, n_samples=n, combine=combine, min_group_size=min_group_size
    )
    draws = (n_resamples, n_permutations, random_state)
    if task == "regression":
        settings = regression_settings(settings, scores, reason)
        resampling = _check_resampling(n, settings, *draws)
        inputs = AuditInputs(scores, sensitive_features, y, weights)
        return audit_regression(inputs, settings, resampling, progress)
    if task == "multiclass":
        settings = multiclass_settings(settings, reason)  # checks the threshold
        resampling = _check_resampling(n, settings, *draws, n_columns=scores.shape[1])
        return audit_multiclass(
            data, sensitive_features, settings, resampling, progress, weights
        )
    y, pos_label = _binary_labels(y_true, n, pos_label)
    if X is not None and y is None:
        raise ValueError(AUDIT_HFM_LABELS_ERROR)
    settings = dataclasses.replace(settings, pos_label=pos_label)
    resampling = _check_resampling(n, settings, *draws)
    inputs = AuditInputs(scores, sensitive_features, y, weights)
    return _audit_in_memory(inputs, X, settings, resampling, progress)


def _check_survey(weights, X):
    """What survey ``weights`` cannot be audited with: HFM (``X``)."""
    if weights is not None and X is not None:
        raise ValueError(SURVEY_HFM_ERROR)


def _binary_labels(y_true, n_samples, pos_label):
    """``(y as 0/1, the positive label)``, or ``(None, None)`` without labels."""
    if y_true is None:
        return None, None
    return encode_labels(y_true, n_samples, pos_label, AUDIT_BINARY_LABELS_REASON)


def _check_dask(X, score_type):
    """What Dask collections cannot be audited with."""
    if X is not None:
        raise ValueError(AUDIT_DASK_X_ERROR)
    if score_type != "probability":
        raise ValueError(AUDIT_DASK_SCORE_TYPE_ERROR.format(value=score_type))


def _audit_in_memory(inputs, X, settings, resampling, progress):
    """The audit of validated in-memory data, phase by phase.

    The groups are encoded once (:func:`encoded_features`), each metric is
    evaluated once (MCDP with where it is attained), and the intervals and
    tests reuse those values and one set of resamples and permutations.
    """
    scores, y, weights = inputs.scores, inputs.y, inputs.weights
    decisions = scores >= settings.threshold
    attributes, compared, tables, left_out, sensitive_features = audited_inputs(
        inputs.sensitive_features, len(scores), settings, resampling
    )
    progress("groups")
    groups, references = group_table(
        tables,
        per_row_counts(scores, decisions, y, weights),
        reference=settings.reference,
        confidence_level=settings.confidence_level,
    )
    results, details = computed_metrics(
        scores,
        sensitive_features,
        settings,
        resampling,
        progress,
        groups,
        compared,
        weights,
    )
    margin = settings.score_type == "margin"
    if margin:
        results = margin_results(results)
    tradeoff = advice = None
    if y is not None:
        progress("trade-off")
        tradeoff, advice = _tradeoff(inputs, sensitive_features, settings, compared)
    if X is not None:
        progress("HFM")
    rows = audited_rows(compared, details)
    near = None if margin else scores[rows]
    return AuditReport(
        settings=settings,
        resampling=resampling,
        data=AuditedData.of(len(scores), attributes, y is not None, compared, left_out),
        groups=groups,
        references=references,
        metric_results=results,
        mcdp_details=details,
        headline=binary_headline(
            groups,
            compared,
            settings,
            results,
            details,
            near,
            references,
            weights=None if weights is None else weights[rows],
        ),
        tradeoff=tradeoff,
        advice=advice,
        hfm=_hfm(X, y, decisions, sensitive_features, settings.keep),
        inputs=inputs,
    )


def _tradeoff(inputs, sensitive_features, settings, compared):
    """The trade-off on the audited groups, and the report's advice from it.

    The trade-off is computed on the 0/1 labels; it records the user's
    positive label. The current threshold's point is the trade-off's row at
    it when the threshold is a candidate (the default grid holds 0.01, ...,
    0.99), else a trade-off of that threshold alone.
    """
    scores, y = inputs.scores, inputs.y
    common = {
        "sensitive_features": sensitive_features,
        "combine": settings.combine,
        "min_group_size": settings.keep,
        "sample_weight": inputs.weights,  # survey weights: the weighted trade-off
    }
    t = settings.threshold
    # one call: the current threshold is among the candidates, and the
    # trade-off never picks a threshold whose gap exceeds the current one's
    result = threshold_tradeoff(y, scores, current=t, **common)
    result = dataclasses.replace(result, pos_label=settings.pos_label)
    current = ThresholdPoint(
        t, result.current_performance_value, result.current_delta_dp
    )
    advice = threshold_advice(result, current, compared, y, settings.pos_label)
    return result, advice


def _check_settings(
    threshold, epsilon, confidence_level, combine, min_group_size, title, reference
):
    """The audit's settings, validated, as the report records them.

    ``threshold`` and ``epsilon`` are checked by :func:`_score_settings`
    (or :func:`regression_settings`), as their ranges depend on the score
    type and the task.
    """
    check_min_group_size(min_group_size)
    return Settings(
        title=title or "Fairness audit",
        threshold=threshold,
        epsilon=epsilon,
        confidence_level=check_confidence_level(confidence_level),
        combine=combine,
        min_group_size=min_group_size,
        reference=reference,
    )


def _check_resampling(
    n_samples, settings, n_resamples, n_permutations, random_state, n_columns=1
):
    """Resamples and permutations, validated.

    ``n_resamples`` None: :func:`auto_resamples`. ``n_permutations`` None:
    as ``n_resamples`` when that was given, else enough for Holm's
    correction over the audit's tests (one per metric, per class for a
    multiclass audit) to reject (:func:`sized_permutations`).
    """
    if n_permutations is None:
        if n_resamples is None:
            n_tests = len(report_metrics(settings)) * n_columns
            n_permutations = sized_permutations(n_samples, n_tests, settings.alpha)
        else:
            n_permutations = n_resamples
    n_resamples = auto_resamples(n_samples) if n_resamples is None else n_resamples
    return Resampling(
        n_resamples=check_n_resamples(n_resamples),
        n_permutations=check_n_resamples(n_permutations),
        random_state=random_state,
    )


def _hfm(X, y, decisions, sensitive_features, keep):
    """HFM of the decisions (None without features)."""
    if X is None:
        return None
    return hfm(
        X,
        y,
        decisions.astype(np.int64),
        sensitive_features=sensitive_features,
        min_group_size=keep,
    )


def _score_settings(settings, score_type):
    """``settings`` with the threshold checked for ``score_type`` and recorded.

    A logit threshold is kept as given (``score_threshold``) and its sigmoid,
    on the scale of the mapped scores, is the ``threshold`` every number is
    computed at. "auto" is 0.5 for probabilities and 0 for logits and
    margins, recorded in ``threshold_rule`` (ε: 0.05).
    """
    epsilon = 0.05 if _is_auto(settings.epsilon) else settings.epsilon
    rule = None
    threshold = settings.threshold
    if _is_auto(threshold):
        # raw scores decide at 0: a logit of 0 is a probability of 0.5, a
        # margin of 0 the side of the decision boundary
        threshold = 0.5 if score_type == "probability" else 0.0
        rule = _AUTO_THRESHOLD_RULES[score_type]
    settings = dataclasses.replace(
        settings,
        epsilon=check_fraction(epsilon, name="epsilon", closed=False),
        threshold=threshold,
        threshold_rule=rule,
    )
    value = settings.threshold
    if score_type == "probability":
        return dataclasses.replace(
            settings, threshold=check_fraction(value, name="threshold")
        )
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
    ):
        raise ValueError(
            AUDIT_RAW_THRESHOLD_ERROR.format(score_type=score_type, value=value)
        )
    raw = float(value)
    return dataclasses.replace(
        settings,
        threshold=float(expit(raw)) if score_type == "logit" else raw,
        score_type=score_type,
        score_threshold=raw,
    )


_AUTO_THRESHOLD_RULES = {
    "probability": "threshold auto: 0.5",
    "logit": "threshold auto: 0 for logits",
    "margin": "threshold auto: 0 for margins, the decision boundary",
}


def _is_auto(value):
    return isinstance(value, str) and value == "auto"


def _checked_scores(y_score, score_type):
    """The scores as a float array: probabilities checked, logits mapped."""
    if score_type == "probability":
        return check_scores(y_score, unit_interval_for=AUDIT_SCORE_TYPE_REASON)
    scores = check_scores(y_score)
    return expit(scores) if score_type == "logit" else scores
