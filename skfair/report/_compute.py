"""The report's numbers: labels, groups, the per-group table, metrics, headline.

The groups are decided once (:func:`audited_groupings`) and every table,
metric, headline and note of a report is computed on them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics import abcc, abpc, delta_dp, mcdp
from ..metrics.inference import infer_metrics, metric_spec, proportion_interval
from ..utils import Grouping, check_pos_label, check_same_length, same_label
from ._common import (
    AUDIT_REFERENCE_ERROR,
    FEW_POSITIVES,
    FOUR_FIFTHS,
    label_text,
    metric_table,
)

_PUBLIC_METRICS = {"delta_dp": delta_dp, "abcc": abcc, "abpc": abpc, "mcdp": mcdp}
# rate -> (numerator count, denominator count), for the rates and intervals
_RATES = {
    "base_rate": ("n_positive", "size"),
    "positive_rate": ("n_selected", "size"),
    "tpr": ("tp", "n_positive"),
    "fpr": ("fp", "n_negative"),
    "fnr": ("fn", "n_positive"),
    "precision": ("tp", "n_selected"),
}
# the metrics table's columns when no metric has intervals (infer_metrics'
# columns otherwise, whatever they are)
_COLUMNS = [
    "value",
    "low",
    "high",
    "interval",
    "dkw_low",
    "dkw_high",
    "pvalue",
    "test",
]
# the rates compared with the reference group (ratio and difference)
REFERENCE_RATES = ("positive_rate", "tpr", "fpr", "fnr")


def encode_labels(y_true, n_samples, pos_label):
    """``(y as 0/1, the positive label)``; see :func:`skfair.utils.check_pos_label`."""
    check_same_length(
        y_true, np.empty(n_samples), first_name="y_true", second_name="y_score"
    )
    return check_pos_label(y_true, pos_label=pos_label, why="the audit's rates")


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
    tables : list of Grouping
        The per-group tables: with ``combine="intersection"``, each attribute
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
            (grouping.name, label_text(label), int(size))
            for label, size, s in zip(grouping.labels, sizes, small)
            if s
        ]
        compared.append(_drop_groups(grouping, small))
    if combine == "marginal":
        return compared, compared, left_out
    rows = compared[0].kept
    tables = [
        _on_rows(attributes.attribute(k), rows, weights)
        for k in range(attributes.n_attributes)
    ]
    if attributes.n_attributes > 1:
        tables.append(compared[0])
    return compared, tables, left_out


# -- the per-group table -----------------------------------------------------------
def per_row_counts(scores, decisions, y):
    """The per-row quantities the group table sums (one row per sample)."""
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
    return counts


def _reference_index(grouping, sizes, reference):
    """The reference group's code: ``reference`` if it is a group, else the largest."""
    if reference is not None:
        for g, label in enumerate(grouping.labels):
            if same_label(label, reference) or label_text(label) == str(reference):
                return g, True
    return int(np.argmax(sizes)), False


def _grouping_frame(grouping, per_row, reference, confidence_level):
    counts = _counts(grouping, per_row)
    size = counts["size"]
    ref, matched = _reference_index(grouping, size, reference)
    frame = {
        "grouping": grouping.name,
        "group": [label_text(label) for label in grouping.labels],
        "is_reference": np.arange(grouping.n_groups) == ref,
        "size": size.astype(np.int64),
        "share": size / size.sum(),
        "mean_score": _ratio(counts["score_sum"], size),
    }
    for key in ("n_positive", "n_selected", "tp", "fp", "fn", "tn"):
        values = counts[key]
        frame[key] = values.astype(np.int64) if np.isfinite(values).all() else values
    for rate, (num, den) in _RATES.items():
        frame[rate] = _ratio(counts[num], counts[den])
        low, high = proportion_interval(counts[num], counts[den], confidence_level)
        frame[f"{rate}_low"], frame[f"{rate}_high"] = low, high
    labelled = np.isfinite(counts["n_positive"])
    few = counts["n_positive"] < FEW_POSITIVES
    frame["few_positives"] = [bool(f) if labelled[0] else None for f in few]
    for rate in REFERENCE_RATES:
        values = frame[rate]
        frame[f"{rate}_ratio"] = _ratio(values, np.full_like(values, values[ref]))
        frame[f"{rate}_diff"] = values - values[ref]
    frame["four_fifths"] = [
        None if not np.isfinite(c) else bool(c >= FOUR_FIFTHS)
        for c in _rate_closeness(frame["positive_rate"], frame["positive_rate"][ref])
    ]
    return pd.DataFrame(frame), matched


def _rate_closeness(rates, reference_rate):
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
    differences compare each group with its grouping's reference group
    (``reference`` where it is a group of that grouping, else the largest).
    """
    frames, matched = [], False
    for grouping in tables:
        frame, found = _grouping_frame(grouping, per_row, reference, confidence_level)
        frames.append(frame)
        matched |= found
    if reference is not None and not matched:
        raise ValueError(
            AUDIT_REFERENCE_ERROR.format(
                reference=reference,
                names=" or ".join(repr(g.name) for g in tables),
                labels=sorted({label_text(lab) for g in tables for lab in g.labels}),
            )
        )
    return pd.concat(frames, ignore_index=True)


# -- the metrics -------------------------------------------------------------------
def check_metrics(scores, sensitive_features, settings, keep):
    """Each metric by its public function: ``({key: value}, {key: reason})``.

    A metric that raises a ValueError on these (validated) inputs is
    undefined on these groups, e.g. ABPC with a one-sample group; the
    message is the reason.
    """
    values, undefined = {}, {}
    for key, _, metric, kwargs in metric_table(
        settings["threshold"], settings["epsilon"]
    ):
        try:
            values[key] = _PUBLIC_METRICS[metric](
                None,
                scores,
                sensitive_features=sensitive_features,
                combine=settings["combine"],
                min_group_size=keep,
                **kwargs,
            )
        except ValueError as error:
            undefined[key] = str(error)
    return values, undefined


def _infer(scores, sensitive_features, defined, options):
    """infer_metrics on every defined metric; one by one if that fails.

    ``{key: row or the error's message}``.
    """
    specs = [metric_spec(metric, kwargs) for _, _, metric, kwargs in defined]
    if not specs:
        return {}
    try:
        rows = infer_metrics(scores, sensitive_features, specs, **options)
        return {key: dict(row) for (key, *_), row in zip(defined, rows)}
    except ValueError:
        if len(specs) == 1:
            raise
    out = {}
    for entry in defined:
        try:
            out.update(_infer(scores, sensitive_features, [entry], options))
        except ValueError as error:
            out[entry[0]] = str(error)
    return out


def metrics_table(scores, sensitive_features, settings, resampling, keep, checked):
    """One row per metric of :func:`metric_table`: value, intervals, p-value.

    ``checked`` is :func:`check_metrics`' result: the undefined metrics get
    NaN values and their reason in ``undefined_reason``; the others come
    from :func:`~skfair.metrics.inference.infer_metrics` on shared
    resamples. A defined metric whose intervals and test cannot be computed
    (e.g. a resampling that needs two samples per group) keeps its value,
    with NaN intervals and the reason in ``inference_error``.
    """
    values, undefined = checked
    table = metric_table(settings["threshold"], settings["epsilon"])
    defined = [row for row in table if row[0] not in undefined]
    options = {
        "combine": settings["combine"],
        "confidence_level": settings["confidence_level"],
        "min_group_size": keep,
        # the default intervals only: the old bootstrap is not reported
        "legacy_bootstrap": False,
        **resampling,
    }
    inferred = _infer(scores, sensitive_features, defined, options)
    for row in inferred.values():
        if isinstance(row, dict):
            for legacy in ("bootstrap_low", "bootstrap_high", "bootstrap_se"):
                row.pop(legacy, None)
    rows = [r for r in inferred.values() if isinstance(r, dict)]
    columns = list(dict.fromkeys(k for row in rows for k in row)) or _COLUMNS
    out = []
    for key, name, _, _ in table:
        row = inferred.get(key)
        error = row if isinstance(row, str) else None
        if not isinstance(row, dict):
            row = dict.fromkeys(columns, np.nan)
            if key in values:
                row["value"] = float(values[key])
        if "test" in row and not isinstance(row["test"], str):
            row["test"] = ""
        row.update(
            key=key,
            metric=name,
            undefined_reason=undefined.get(key),
            inference_error=error,
        )
        out.append(row)
    first = ["key", "metric", "value"]
    columns = first + [c for c in columns if c not in first]
    columns += ["undefined_reason", "inference_error"]
    return pd.DataFrame(out, columns=columns).set_index("key")


# -- the headline ------------------------------------------------------------------
def _extreme(frame, column, count):
    """(value, group) of the smallest and largest finite ``column``.

    Groups with fewer than ``FEW_POSITIVES`` samples in ``count`` (the rate's
    denominator) are left out, so that a group with one positive (TPR 0 or
    1) does not make the headline's gap; they are listed in ``left_out``.
    With fewer than two such groups, every group counts.
    """
    finite = frame[np.isfinite(frame[column].astype(float))]
    positives = finite["n_positive"].astype(float)
    counts = positives if count == "n_positive" else finite["size"] - positives
    enough = finite[counts >= FEW_POSITIVES]
    left_out = (
        [] if len(enough) < 2 else sorted(set(finite["group"]) - set(enough["group"]))
    )
    if len(enough) >= 2:
        finite = enough
    if finite.empty:
        return None
    low, high = finite.loc[finite[column].idxmin()], finite.loc[finite[column].idxmax()]
    return {
        "value": float(high[column] - low[column]),
        "lowest": {"group": low["group"], "rate": float(low[column])},
        "highest": {"group": high["group"], "rate": float(high[column])},
        "left_out": left_out,
    }


def _grouping_facts(frame):
    ref = frame[frame["is_reference"]].iloc[0]
    rates = frame["positive_rate"].astype(float).to_numpy()
    close = _rate_closeness(rates, ref["positive_rate"])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = rates / ref["positive_rate"]  # inf where the reference selects no one
    facts = {
        "grouping": frame["grouping"].iloc[0],
        "reference": {"group": ref["group"], "positive_rate": ref["positive_rate"]},
        "worst": None,
        "four_fifths": None,
        "impact_ratio": None,
        "tpr_gap": _extreme(frame, "tpr", "n_positive"),
        "fpr_gap": _extreme(frame, "fpr", "n_negative"),
        "_closeness": 1.0,
    }
    if rates.max() > 0:
        facts["impact_ratio"] = float(rates.min() / rates.max())
    if np.isfinite(close).any():
        k = int(np.nanargmin(close))
        row = frame.iloc[k]
        facts["worst"] = {
            "group": row["group"],
            "size": int(row["size"]),
            "positive_rate": float(row["positive_rate"]),
            "positive_rate_interval": [
                float(row["positive_rate_low"]),
                float(row["positive_rate_high"]),
            ],
            "positive_rate_ratio": float(ratio[k]),
        }
        facts["four_fifths"] = (
            "pass" if all(f is not False for f in frame["four_fifths"]) else "fail"
        )
        facts["_closeness"] = float(close[k])
    return facts


def threshold_facts(groups, compared_names, threshold):
    """The threshold facts of the compared grouping with the worst ratio."""
    candidates = [
        _grouping_facts(groups[groups["grouping"] == name]) for name in compared_names
    ]
    facts = min(candidates, key=lambda f: f["_closeness"])
    del facts["_closeness"]
    return {"threshold": threshold, **facts}


def distribution_facts(metrics, details, scores, epsilon):
    """MCDP(0), where it is attained and the share of scores within ±ε of it."""
    worst = details[0.0]
    row = metrics.loc["mcdp"]
    share = None
    if scores is not None:
        share = float(np.mean(np.abs(scores - worst.threshold) <= epsilon))
    return {
        "metric": "mcdp",
        "value": float(row["value"]),
        "groups": [label_text(g) for g in worst.groups],
        "attribute": worst.attribute,
        "score": float(worst.threshold),
        "higher_cdf_group": label_text(worst.higher_cdf_group),
        "epsilon": float(epsilon),
        "share_near": share,
        "local_value": float(metrics.loc[f"mcdp@{epsilon:g}", "value"]),
        "pvalue": float(row["pvalue"]) if "pvalue" in row else None,
        "test": row.get("test") or None,
    }
