"""The report's numbers: labels, groups, the per-group table, metrics, headline.

The groups are decided once (:func:`audited_groupings`) and every table,
metric, headline and note of a report is computed on them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..metrics import (
    abcc,
    abpc,
    delta_dp,
    demographic_parity_ratio,
    false_positive_rate_difference,
    mcdp_details,
    true_positive_rate_difference,
)
from ..metrics._score_type import unit_interval_reason
from ..metrics.inference import infer_metrics, metric_spec, proportion_interval
from ..utils import check_sensitive_features
from ..utils._groups import Grouping
from ..utils._labels import group_label_text, parse_group_label
from ..utils._validation import check_pos_label, check_same_length, same_label
from ._budget import check_resampling_cost
from ._common import (
    AUDIT_REFERENCE_ERROR,
    FEW_POSITIVES,
    FOUR_FIFTHS,
    report_metrics,
)
from ._facts import MetricResult, TableReference
from ._survey import effective_sizes, effective_trials, survey_per_row

MARGIN_NOT_APPLICABLE = (
    "not applicable to margins (score_type='margin'): it needs scores in "
    "[0, 1], for {reason}"
)

_PUBLIC_METRICS = {"delta_dp": delta_dp, "abcc": abcc, "abpc": abpc}
# rate -> (numerator count, denominator count), for the rates and intervals
_RATES = {
    "base_rate": ("n_positive", "size"),
    "positive_rate": ("n_selected", "size"),
    "tpr": ("tp", "n_positive"),
    "fpr": ("fp", "n_negative"),
    "fnr": ("fn", "n_positive"),
    "precision": ("tp", "n_selected"),
}
# (rate, how) -> the public function of skfair.metrics the report's
# between-group numbers come from (see :func:`between_groups`)
_BETWEEN_GROUPS = {
    ("tpr", "difference"): true_positive_rate_difference,
    ("fpr", "difference"): false_positive_rate_difference,
    ("positive_rate", "ratio"): demographic_parity_ratio,
}
# the true label and prediction of each confusion cell: TN, FP, FN, TP
_CELL_TRUTH, _CELL_PRED = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
# the numbers of MetricResult that infer_metrics gives (its other keys, e.g.
# the legacy bootstrap's, are not reported), and its two names
_INFERRED = ("low", "high", "dkw_low", "dkw_high", "pvalue", "pvalue_floor")
_NAMES = ("interval", "test")
# the rates compared with the reference group (ratio and difference)
REFERENCE_RATES = ("positive_rate", "tpr", "fpr", "fnr")


def encode_labels(y_true, n_samples, pos_label, why="the audit's rates"):
    """``(y as 0/1, the positive label)``; see ``check_pos_label``.

    ``why`` is what needs two classes, said when there are more or fewer.
    """
    check_same_length(
        y_true, np.empty(n_samples), first_name="y_true", second_name="y_score"
    )
    return check_pos_label(y_true, pos_label=pos_label, why=why)


# -- the groups ----------------------------------------------------------------
def _sizes(grouping, weights):
    kept = grouping.kept
    return np.bincount(
        grouping.codes[kept],
        weights=None if weights is None else weights[kept],
        minlength=grouping.n_groups,
    )


def _drop_groups(grouping, drop):
    """``grouping`` without the groups flagged in ``drop`` (their rows get -1)."""
    if not drop.any():
        return grouping
    table = np.append(np.cumsum(~drop) - 1, -1)  # code -1 stays -1
    table[:-1][drop] = -1
    codes = table[grouping.codes]
    labels = tuple(label for label, d in zip(grouping.labels, drop) if not d)
    return Grouping(grouping.name, codes, labels, int((codes < 0).sum()))


def _on_rows(grouping, rows, weights):
    """``grouping`` restricted to ``rows`` (a mask), without emptied groups."""
    codes = np.where(rows, grouping.codes, -1)
    restricted = Grouping(grouping.name, codes, grouping.labels, int((~rows).sum()))
    return _drop_groups(restricted, _sizes(restricted, weights) <= 0)


def audited_groupings(attributes, combine, keep, weights=None):
    """The groups of a report, decided once.

    Parameters
    ----------
    attributes : SensitiveAttributes
    combine : {"intersection", "marginal"}
    keep : int
        Groups (of the compared groupings) with fewer samples are left out.
    weights : ndarray or None
        Samples per row (Dask: per distinct row), None for one each.

    Returns
    -------
    compared : list of Grouping
        What the metrics compare (``combine``), small groups left out.
    tables : list of (Grouping, int or None)
        The per-group tables, each with the index of its attribute (None for
        an intersection): with ``combine="intersection"``, each attribute
        and (with several) their intersection, all on the samples of the
        compared groups; with ``"marginal"``, the compared groupings.
    left_out : list of tuple
        ``(grouping name, group label text, size)`` of each left-out group.
    """
    compared, left_out = [], []
    for grouping in attributes.groupings(combine):
        sizes = _sizes(grouping, weights)
        small = sizes < keep
        left_out += [
            (grouping.name, group_label_text(label), int(size))
            for label, size, s in zip(grouping.labels, sizes, small)
            if s
        ]
        compared.append(_drop_groups(grouping, small))
    if combine == "marginal":
        return compared, [(g, k) for k, g in enumerate(compared)], left_out
    rows = compared[0].kept
    tables = [
        (_on_rows(attributes.attribute(k), rows, weights), k)
        for k in range(attributes.n_attributes)
    ]
    if attributes.n_attributes > 1:
        tables.append((compared[0], None))
    return compared, tables, left_out


# -- the per-group table -----------------------------------------------------------
def per_row_counts(scores, decisions, y, weights=None):
    """The per-row quantities the group table sums (one row per sample).

    With survey ``weights``: :func:`~._survey.survey_per_row`.
    """
    if weights is not None:
        return survey_per_row(scores, decisions, y, weights)
    out = {"size": None, "score_sum": scores, "n_selected": decisions}
    if y is not None:
        out.update(n_positive=y, tp=decisions & (y == 1))
    return out


def _ratio(numerator, denominator):
    out = np.full(np.shape(numerator), np.nan)
    ok = np.isfinite(denominator) & (denominator > 0) & np.isfinite(numerator)
    return np.divide(numerator, denominator, out=out, where=ok)


def _counts(grouping, per_row):
    """Each group's counts: size, score sum, selected, positives, TP, FP, FN, TN."""
    kept, codes, n = grouping.kept, grouping.codes, grouping.n_groups

    def total(values):
        if values is None:  # one sample per row
            return np.bincount(codes[kept], minlength=n).astype(np.float64)
        values = np.asarray(values, dtype=np.float64)
        return np.bincount(codes[kept], weights=values[kept], minlength=n)

    counts = {key: total(per_row[key]) for key in ("size", "score_sum", "n_selected")}
    if "n_positive" in per_row:
        counts["n_positive"] = total(per_row["n_positive"])
        counts["tp"] = total(per_row["tp"])
        counts["n_negative"] = counts["size"] - counts["n_positive"]
        counts["fp"] = counts["n_selected"] - counts["tp"]
        counts["fn"] = counts["n_positive"] - counts["tp"]
        counts["tn"] = counts["n_negative"] - counts["fp"]
    else:
        nan = np.full(n, np.nan)
        counts.update(dict.fromkeys(("n_positive", "n_negative", "tp"), nan))
        counts.update(dict.fromkeys(("fp", "fn", "tn"), nan))
    if "weights" in per_row:
        counts.update(effective_sizes(grouping, per_row, counts))
    return counts


def _reference_parts(reference):
    """The parts of an intersection ``reference`` (a tuple, or its text)."""
    if isinstance(reference, tuple):
        return reference
    if isinstance(reference, str):
        try:
            return parse_group_label(reference)
        except ValueError:
            return None
    return None


def _find(labels, wanted):
    """The code of the label equal to ``wanted`` (or written as it), else None."""
    for g, label in enumerate(labels):
        if same_label(label, wanted) or group_label_text(label) == str(wanted):
            return g
    return None


def _reference_index(grouping, sizes, reference, component):
    """``(code, how)`` of a table's reference group (see :class:`TableReference`).

    ``reference`` itself where it is a group of the table; in the table of
    attribute ``component``, its part for that attribute (an intersection's
    component); else the largest group.
    """
    if reference is not None:
        g = _find(grouping.labels, reference)
        if g is not None:
            return g, "given"
        parts = _reference_parts(reference)
        if component is not None and parts is not None and len(parts) > 1:
            if component < len(parts):
                g = _find(grouping.labels, parts[component])
                if g is not None:
                    return g, "component"
    return int(np.argmax(sizes)), "largest"


def _grouping_frame(grouping, counts, ref, confidence_level):
    size = counts["size"]
    weighted = "n_eff" in counts
    frame = {
        "grouping": grouping.name,
        "group": [group_label_text(label) for label in grouping.labels],
        "is_reference": np.arange(grouping.n_groups) == ref,
        "size": size if weighted else size.astype(np.int64),
    }
    if weighted:  # the rows beside the weighted count, and their precision
        frame["n_rows"] = counts["n_rows"].astype(np.int64)
        frame["n_eff"] = counts["n_eff"]
        frame["design_effect"] = _ratio(counts["n_rows"], counts["n_eff"])
    frame["share"] = size / size.sum()
    frame["mean_score"] = _ratio(counts["score_sum"], size)
    for key in ("n_positive", "n_selected", "tp", "fp", "fn", "tn"):
        values = counts[key]
        integral = np.isfinite(values).all() and not weighted
        frame[key] = values.astype(np.int64) if integral else values
    for rate, (num, den) in _RATES.items():
        frame[rate] = _ratio(counts[num], counts[den])
        if weighted:  # Wilson's interval on Kish's effective trials
            trials = effective_trials(counts, den)
            low, high = proportion_interval(
                frame[rate] * trials, trials, confidence_level
            )
        else:
            low, high = proportion_interval(counts[num], counts[den], confidence_level)
        frame[f"{rate}_low"], frame[f"{rate}_high"] = low, high
    positives = counts["n_eff_positive"] if weighted else counts["n_positive"]
    labelled = np.isfinite(counts["n_positive"])
    few = positives < FEW_POSITIVES
    frame["few_positives"] = [bool(f) if labelled[0] else None for f in few]
    if weighted:
        frame["n_eff_positive"] = counts["n_eff_positive"]
        frame["n_eff_negative"] = counts["n_eff_negative"]
    for rate in REFERENCE_RATES:
        values = frame[rate]
        frame[f"{rate}_ratio"] = _ratio(values, np.full_like(values, values[ref]))
        frame[f"{rate}_diff"] = values - values[ref]
    frame["four_fifths"] = [
        None if not np.isfinite(c) else bool(c >= FOUR_FIFTHS)
        for c in rate_closeness(frame["positive_rate"], frame["positive_rate"][ref])
    ]
    return pd.DataFrame(frame)


def confusion_cells(counts):
    """Each group's true/false negatives/positives: ``(n_groups, 4)`` TN, FP, FN, TP.

    From the report's ``counts`` (a dict of arrays, or the group table's
    columns). Without labels (NaN positives) every sample counts as a
    negative, so that the selection rate, and it alone, is still defined.
    """
    size = np.asarray(counts["size"], dtype=np.float64)
    selected = np.asarray(counts["n_selected"], dtype=np.float64)
    if np.isfinite(np.asarray(counts["n_positive"], dtype=np.float64)).all():
        cells = [counts[key] for key in ("tn", "fp", "fn", "tp")]
    else:
        cells = [size - selected, selected, np.zeros_like(size), np.zeros_like(size)]
    return np.column_stack([np.asarray(c, dtype=np.float64) for c in cells])


def between_groups(counts, rate, how):
    """The fairlearn difference or ratio of ``rate`` between groups of ``counts``.

    Computed by the public function itself:
    :func:`~skfair.metrics.true_positive_rate_difference` (``rate="tpr"``,
    ``how="difference"``), :func:`~skfair.metrics.false_positive_rate_difference`
    (``"fpr"``) or :func:`~skfair.metrics.demographic_parity_ratio`
    (``"positive_rate"``, ``"ratio"``; the ratio of
    :func:`~skfair.metrics.four_fifths`), with ``method="between_groups"``.
    The report holds counts, not rows (on Dask too), so the function gets
    four rows per group, one per confusion cell, weighted by the cell's
    count: the same rates as on the rows, up to rounding in the last bit
    (the function scales the weights by their maximum). NaN with fewer than
    two groups.
    """
    cells = confusion_cells(counts)
    n_groups = cells.shape[0]
    function = _BETWEEN_GROUPS[rate, how]
    return function(
        np.tile(_CELL_TRUTH, n_groups),
        np.tile(_CELL_PRED, n_groups),
        # categorical: many groups are groups, not a continuous attribute
        sensitive_features=pd.Categorical(np.repeat(np.arange(n_groups), 4)),
        sample_weight=cells.ravel(),
        min_group_size=1,  # the report has chosen its groups already
    )


def rate_closeness(rates, reference_rate):
    """``min(rate, ref) / max(rate, ref)``: 1 equal, 0 when one selects no one.

    Symmetric, so the four-fifths rule (a ratio to the reference within
    [0.8, 1.25]) is ``closeness >= 0.8``; defined when the reference's rate
    is 0 too (a group selected at all then fails), NaN only when both are 0.
    """
    rates = np.asarray(rates, dtype=np.float64)
    low, high = np.minimum(rates, reference_rate), np.maximum(rates, reference_rate)
    return _ratio(low, high)


def group_table(tables, per_row, *, reference, confidence_level):
    """One row per group of every table grouping: counts, rates, intervals, ratios.

    Rates have Wilson score intervals at ``confidence_level``; ratios and
    differences compare each group with its table's reference group (see
    :func:`_reference_index`). Returns the table and a
    :class:`TableReference` per table.
    """
    frames, references = [], []
    for grouping, component in tables:
        counts = _counts(grouping, per_row)
        ref, how = _reference_index(grouping, counts["size"], reference, component)
        frames.append(_grouping_frame(grouping, counts, ref, confidence_level))
        label = group_label_text(grouping.labels[ref])
        references.append(TableReference(grouping.name, label, how))
    if reference is not None and all(r.how == "largest" for r in references):
        raise ValueError(
            AUDIT_REFERENCE_ERROR.format(
                reference=reference,
                names=" or ".join(repr(g.name) for g, _ in tables),
                labels=sorted(
                    {group_label_text(lab) for g, _ in tables for lab in g.labels}
                ),
            )
        )
    return pd.concat(frames, ignore_index=True), tuple(references)


def audited_inputs(sensitive_features, n_samples, settings, resampling, columns=1):
    """The groups of in-memory data, checked and encoded once.

    Returns ``(attributes, compared, tables, left_out, encoded)``: the
    validated attributes, :func:`audited_groupings`' groups and
    :func:`encoded_features`. The resampling's cost is checked on
    ``n_samples * columns`` samples (``columns`` resampled score columns).
    """
    attributes = check_sensitive_features(sensitive_features, n_samples=n_samples)
    compared, tables, left_out = audited_groupings(
        attributes, settings.combine, settings.keep
    )
    check_resampling_cost(compared, n_samples * columns, resampling)
    encoded = encoded_features(attributes, sensitive_features)
    return attributes, compared, tables, left_out, encoded


def audited_rows(compared, details):
    """The rows kept by the grouping on which MCDP(0) was attained (``details``)."""
    return {g.name: g.kept for g in compared}[details[0.0].attribute]


# -- the metrics -------------------------------------------------------------------
def encoded_features(attributes, sensitive_features):
    """The groups as categoricals of their codes: encoded once, read as they are.

    Every later computation (the metrics, the intervals and tests, the
    trade-off, HFM) encodes ``sensitive_features`` again; a categorical's
    codes are taken as they are, so this one encoding serves all. The
    original is returned when the categoricals would not give back the same
    labels (of the same types).
    """
    columns = [
        pd.Series(
            pd.Categorical.from_codes(
                attributes.codes[:, k], categories=pd.Index(list(labels), dtype=object)
            ),
            name=name,
        )
        for k, (name, labels) in enumerate(zip(attributes.names, attributes.categories))
    ]
    encoded = columns[0] if len(columns) == 1 else pd.concat(columns, axis=1)
    again = check_sensitive_features(encoded, n_samples=attributes.n_samples)
    same = again.names == attributes.names and all(
        len(x) == len(y) and all(type(u) is type(v) and u == v for u, v in zip(x, y))
        for x, y in zip(again.categories, attributes.categories)
    )
    return (
        encoded
        if same and np.array_equal(again.codes, attributes.codes)
        else (sensitive_features)
    )


def check_metrics(scores, sensitive_features, settings, weights=None):
    """Each metric by its public function, once.

    Returns ``({key: value}, {key: reason}, {epsilon: MCDPResult})``. MCDP(0)
    and MCDP(ε) are evaluated by :func:`~skfair.metrics.mcdp_details`, whose
    value is ``mcdp(...)`` and which also says where each is attained. A
    metric that raises a ValueError on these (validated) inputs is undefined
    on these groups, e.g. ABPC with a one-sample group; the message is the
    reason (MCDP is defined on any two groups: its errors are raised). With
    margins (``score_type="margin"``) the metrics that need scores in [0, 1]
    are not applicable, with the reason. ``weights``: survey weights (the
    weighted metrics).
    """
    values, undefined, details = {}, {}, {}
    common = {
        "sensitive_features": sensitive_features,
        "combine": settings.combine,
        "min_group_size": settings.keep,
        "sample_weight": weights,
    }
    for definition in report_metrics(settings):
        if settings.score_type == "margin":
            reason = unit_interval_reason(definition.metric, definition.params)
            if reason is not None:  # even margins that happen to lie in [0, 1]
                undefined[definition.key] = MARGIN_NOT_APPLICABLE.format(reason=reason)
                continue
        if definition.metric == "mcdp":
            result = mcdp_details(None, scores, **common, **definition.params)
            details[result.epsilon] = result
            values[definition.key] = result.value
            continue
        try:
            values[definition.key] = _PUBLIC_METRICS[definition.metric](
                None, scores, **common, **definition.params
            )
        except ValueError as error:
            undefined[definition.key] = str(error)
    return values, undefined, details


def _infer(scores, sensitive_features, defined, options, values):
    """infer_metrics on every defined metric; one by one if that fails.

    ``values``: each metric's value (not evaluated again). ``{key: row or
    the error's message}``.
    """
    specs = [metric_spec(d.metric, d.params) for d in defined]
    if not specs:
        return {}
    estimates = [values[d.key] for d in defined]
    try:
        rows = infer_metrics(
            scores, sensitive_features, specs, estimates=estimates, **options
        )
        return {d.key: dict(row) for d, row in zip(defined, rows)}
    except ValueError:
        if len(specs) == 1:
            raise
    out = {}
    for definition in defined:
        try:
            out.update(
                _infer(scores, sensitive_features, [definition], options, values)
            )
        except ValueError as error:
            out[definition.key] = str(error)
    return out


def metrics_table(
    scores,
    sensitive_features,
    settings,
    resampling,
    checked,
    progress=None,
    weights=None,
):
    """A :class:`MetricResult` per metric of :func:`report_metrics`.

    ``checked`` is :func:`check_metrics`' result: the undefined metrics get
    NaN values and their reason in ``undefined_reason``; the others come
    from :func:`~skfair.metrics.inference.infer_metrics` on shared
    resamples. A defined metric whose intervals and test cannot be computed
    (e.g. a resampling that needs two samples per group) keeps its value,
    with NaN intervals and the reason in ``inference_error``. ``progress``
    is infer_metrics' (resamples and permutations done, and their total).
    With survey ``weights``: the weighted intervals, and no test nor DKW
    interval (``infer_metrics(survey=True)``).
    """
    values, undefined = checked[:2]
    table = report_metrics(settings)
    defined = [d for d in table if d.key not in undefined]
    options = {
        "combine": settings.combine,
        "confidence_level": settings.confidence_level,
        "min_group_size": settings.keep,
        "n_resamples": resampling.n_resamples,
        "n_permutations": resampling.n_permutations,
        "random_state": resampling.random_state,
        "progress": progress,
        "sample_weight": weights,
        "survey": weights is not None,
    }
    inferred = _infer(scores, sensitive_features, defined, options, values)
    return [
        MetricResult(
            key=d.key,
            name=d.name,
            value=float(values.get(d.key, np.nan)),
            undefined_reason=undefined.get(d.key),
            inference_error=inferred.get(d.key)
            if isinstance(inferred.get(d.key), str)
            else None,
            **_inferred_fields(inferred.get(d.key)),
        )
        for d in table
    ]


def _inferred_fields(row):
    """The :class:`MetricResult` fields of an infer_metrics row (none if no row)."""
    if not isinstance(row, dict):
        return {}
    out = {key: float(row[key]) for key in _INFERRED if key in row}
    for key in _NAMES:
        name = row.get(key)
        out[key] = name if isinstance(name, str) and name else None
    return out


def metrics_frame(results):
    """The metrics as a DataFrame indexed by key (:attr:`AuditReport.metrics`)."""
    rows = []
    for r in results:
        row = dataclasses.asdict(r)
        row["metric"] = row.pop("name")
        row["pair"] = None if r.pair is None else " vs ".join(r.pair)
        rows.append(row)
    first = ["key", "metric", "value"]
    columns = first + [c for c in rows[0] if c not in first]
    return pd.DataFrame(rows, columns=columns).set_index("key")


def margin_results(results):
    """Margin metrics without what assumes [0, 1].

    The DKW intervals of ABCC and ΔDP_c (their CDF gap integrated over
    [0, 1]) are dropped, and so is a "saturated statistic" verdict, which
    takes 1 as their largest value.
    """
    out = []
    for r in results:
        if r.key in ("abcc", "delta_dp"):
            saturated = (r.untestable_reason or "").startswith("saturated")
            r = dataclasses.replace(
                r,
                dkw_low=float("nan"),
                dkw_high=float("nan"),
                untestable_reason=None if saturated else r.untestable_reason,
            )
        out.append(r)
    return out
