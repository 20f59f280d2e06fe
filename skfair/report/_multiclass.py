"""The audit of a multiclass classifier: the task, the classes, the tables, facts.

The multiclass branch of :func:`skfair.report.audit`. ``y_score`` is an
``(n_samples, n_classes)`` probability matrix (the predicted class is the
most probable one) or the predicted labels (then class ``k``'s "probability"
is the indicator ``y_pred == k``). Class ``k`` is audited one-vs-rest: its
probability column is a score, and the distribution metrics, their
intervals and tests are the classifier's (:func:`check_metrics`,
:func:`metrics_table`, :func:`finish_metrics`, once per column); the rate
table is :func:`skfair.metrics.multiclass_rate_table` for each table
grouping (selection rate, TPR and FPR of every class with Wilson intervals,
ratios to the reference group); the per-class gaps between groups are
:func:`skfair.metrics.multiclass_rate_details`' (the values of
``multiclass_selection_rate_difference`` and co.). The texts are in
:mod:`._multiclass_views`, the figures in :mod:`._multiclass_figures`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning

from ..metrics import multiclass_rate_details, multiclass_rate_table
from ..utils import SMALL_GROUP_SIZE
from ..utils._labels import group_label_text
from ._common import FEW_POSITIVES, group_support
from ._compute import (
    _reference_index,
    _sizes,
    audited_inputs,
    audited_rows,
    check_metrics,
    metrics_table,
)
from ._facts import (
    AuditedData,
    AuditInputs,
    ClassGap,
    ClassShare,
    ConfusionMatrix,
    GroupRate,
    Headline,
    MetricResult,
    MulticlassFacts,
    TableReference,
)
from ._headline import distribution_facts, finish_metrics
from ._report import AuditReport
from ._survey import kish

_RATE_COLUMNS = {
    "selection_rate": "selection_rate",
    "tpr": "true_positive_rate",
    "fpr": "false_positive_rate",
}
_GAP_RATES = (
    ("selection_rate_gap", "selection_rate", "Selection-rate gap"),
    ("tpr_gap", "true_positive_rate", "TPR gap (one-vs-rest)"),
    ("fpr_gap", "false_positive_rate", "FPR gap (one-vs-rest)"),
)


# -- the group table ------------------------------------------------------------
def _survey_counts(codes, data, rows, w, n, k):
    """Weighted counts and Kish sizes of each group (and class) under survey ``w``.

    ``size``, ``n_predicted`` and ``n_true`` weighted; ``n_rows``; ``n_eff``
    of each group, ``n_eff_true`` and ``n_eff_not_true`` of its people of
    each class and of the others (the TPR's and FPR's denominators).
    """
    truth = data.pred[rows] if data.truth is None else data.truth[rows]

    def by_class(values, cls):
        return np.bincount(codes * k + cls, weights=values, minlength=n * k).reshape(
            n, k
        )

    size = np.bincount(codes, weights=w, minlength=n)
    squares = np.bincount(codes, weights=w * w, minlength=n)
    true, true_squares = by_class(w, truth), by_class(w * w, truth)
    not_true = size[:, None] - true
    n_eff_true = kish(true, true_squares)
    n_eff_not_true = kish(not_true, squares[:, None] - true_squares)
    return {
        "size": size,
        "n_rows": np.bincount(codes, minlength=n),
        "n_eff": kish(size, squares),
        "n_predicted": by_class(w, data.pred[rows]),
        "n_true": true,
        "n_eff_true": n_eff_true,
        "n_eff_not_true": n_eff_not_true,
    }


def _grouping_rows(grouping, data, ref, settings, weights=None):
    """One row per (group, class) of ``grouping``: the rates and the mean score.

    With survey ``weights``: the weighted counts (:func:`_survey_counts`)
    beside the rows, and the weighted rates of
    :func:`skfair.metrics.multiclass_rate_table`, whose Wilson intervals
    count Kish's effective trials of each denominator.
    """
    rows = grouping.codes >= 0
    codes, n, k = grouping.codes[rows], grouping.n_groups, len(data.classes)
    truth = data.pred[rows] if data.truth is None else data.truth[rows]
    w = None if weights is None else weights[rows]
    with warnings.catch_warnings():  # undefined rates: NaN, named in the notes
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        table = multiclass_rate_table(
            truth,
            data.pred[rows],
            sensitive_features=pd.Categorical.from_codes(codes, categories=range(n)),
            labels=list(range(k)),
            sample_weight=w,
            min_group_size=1,  # the report has chosen its groups
            reference=ref,
            confidence_level=settings.confidence_level,
        ).reindex(range(n))
    if w is None:
        counts = {
            "size": table[("size", "")].to_numpy(),
            "n_predicted": table["n_predicted"].to_numpy(),
            "n_true": table["n_true"].to_numpy(),
        }
    else:
        counts = _survey_counts(codes, data, rows, w, n, k)
    sizes = counts["size"]
    sums = np.zeros((n, k))
    np.add.at(sums, codes, data.proba[rows] * (1.0 if w is None else w[:, None]))
    frame = {
        "grouping": np.repeat(grouping.name, n * k),
        "group": np.repeat([group_label_text(g) for g in grouping.labels], k),
        "class": np.tile([str(c) for c in data.classes], n),
        "is_reference": np.repeat(np.arange(n) == ref, k),
        "size": np.repeat(sizes, k),
    }
    if w is not None:
        for name in ("n_rows", "n_eff"):
            frame[name] = np.repeat(counts[name], k)
        frame["design_effect"] = frame["n_rows"] / frame["n_eff"]
    frame["share"] = np.repeat(sizes / sizes.sum(), k)
    frame["mean_score"] = (sums / sizes[:, None]).ravel()
    for name in ("n_predicted", "n_true"):
        frame[name] = counts[name].ravel()
    if w is not None:
        for name in ("n_eff_true", "n_eff_not_true"):
            frame[name] = counts[name].ravel()
    for short, long in _RATE_COLUMNS.items():
        for suffix in ("", "_low", "_high"):
            frame[short + suffix] = table[long + suffix].to_numpy().ravel()
    rates = table["selection_rate"].to_numpy()
    frame["selection_rate_ratio"] = table["selection_rate_ratio"].to_numpy().ravel()
    frame["selection_rate_diff"] = (rates - rates[ref]).ravel()
    if data.truth is None:
        frame["n_true"] = np.full(n * k, np.nan)
        if w is not None:
            frame["n_eff_true"] = frame["n_eff_not_true"] = np.full(n * k, np.nan)
        for short in ("tpr", "fpr"):
            for suffix in ("", "_low", "_high"):
                frame[short + suffix] = np.full(n * k, np.nan)
    return pd.DataFrame(frame)


def _confusion(grouping, data, weights=None):
    """A :class:`ConfusionMatrix` per group of ``grouping`` (labels needed).

    With survey ``weights`` the counts are weighted.
    """
    rows = grouping.codes >= 0
    n, k = grouping.n_groups, len(data.classes)
    cell = (grouping.codes[rows] * k + data.truth[rows]) * k + data.pred[rows]
    w = None if weights is None else weights[rows]
    counts = np.bincount(cell, weights=w, minlength=n * k * k).reshape(n, k, k)
    number = int if w is None else float
    return [
        ConfusionMatrix(
            grouping.name,
            group_label_text(label),
            number(counts[g].sum()),
            tuple(tuple(number(c) for c in row) for row in counts[g]),
        )
        for g, label in enumerate(grouping.labels)
    ]


def multiclass_groups(tables, data, settings, weights=None):
    """The long group table, a :class:`TableReference` per table, confusion.

    ``weights``: survey weights (None without); the largest group, the
    default reference, is then the one of the largest weighted count.
    """
    frames, references, confusion = [], [], []
    reference = settings.reference
    for grouping, component in tables:
        sizes = _sizes(grouping, weights)
        ref, how = _reference_index(grouping, sizes, reference, component)
        frames.append(_grouping_rows(grouping, data, ref, settings, weights))
        references.append(
            TableReference(grouping.name, group_label_text(grouping.labels[ref]), how)
        )
        if data.truth is not None:
            confusion += _confusion(grouping, data, weights)
    if reference is not None and all(r.how == "largest" for r in references):
        from ._common import AUDIT_REFERENCE_ERROR

        raise ValueError(
            AUDIT_REFERENCE_ERROR.format(
                reference=reference,
                names=" or ".join(repr(g.name) for g, _ in tables),
                labels=sorted({g for f in frames for g in f["group"]}),
            )
        )
    return pd.concat(frames, ignore_index=True), tuple(references), tuple(confusion)


# -- the metrics ------------------------------------------------------------------
def _text_pair(row):
    if row["lowest_group"] is None:
        return None, None
    pair = tuple(group_label_text(row[k]) for k in ("highest_group", "lowest_group"))
    return pair, row["grouping"]


def _gap_result(key, name, value, pair=None, grouping=None):
    undefined = None
    if not math.isfinite(value):
        undefined = "fewer than two groups have this rate (see the notes)"
    return MetricResult(
        key,
        name,
        float(value),
        undefined_reason=undefined,
        pair=pair,
        pair_grouping=grouping,
    )


def gap_results(data, sensitive_features, settings, weights=None):
    """The per-class rate gaps between groups, their worst class and mean.

    From :func:`skfair.metrics.multiclass_rate_details` (the values of
    ``multiclass_selection_rate_difference`` and co.; with survey
    ``weights``, of the weighted rates); no interval, no test.
    """
    rates = _GAP_RATES if data.truth is not None else _GAP_RATES[:1]
    if data.truth is not None:
        rates += (("equalized_odds_gap", "equalized_odds", "Equalised-odds gap"),)
    common = {
        "sensitive_features": sensitive_features,
        "labels": list(range(len(data.classes))),
        "combine": settings.combine,
        "min_group_size": settings.keep,
        "sample_weight": weights,
    }
    truth = data.pred if data.truth is None else data.truth
    out = []
    with warnings.catch_warnings():  # undefined rates: named in the notes
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for key, rate, name in rates:
            result = multiclass_rate_details(truth, data.pred, rate=rate, **common)
            mean = multiclass_rate_details(
                truth, data.pred, rate=rate, class_agg="mean", **common
            )
            worst = result.worst_class
            which = "" if worst is None else f": {data.classes[worst]}"
            out.append(_gap_result(key, f"{name} (worst class{which})", result.value))
            out.append(
                _gap_result(f"{key}_mean", f"{name} (mean over classes)", mean.value)
            )
            if rate == "equalized_odds":
                continue
            for code, row in result.by_class.iterrows():
                cls = data.classes[code]
                out.append(
                    _gap_result(
                        f"{key}[{cls}]",
                        f"class {cls}: {name}",
                        row["difference"],
                        *_text_pair(row),
                    )
                )
    return out


# -- the headline's facts ----------------------------------------------------------
#: A rate's denominator's Kish size in the group table (survey weights).
_EFFECTIVE = {"selection_rate": "n_eff", "tpr": "n_eff_true", "fpr": "n_eff_not_true"}


def _rate(row, rate):
    weighted = "n_eff" in row
    size = float(row["size"]) if weighted else int(row["size"])
    n_true = row["n_true"]
    positives = {"tpr": n_true, "fpr": size - n_true}.get(rate)
    fields = {}
    if weighted:
        fields = {"n_eff": float(row["n_eff"]), "n_rows": int(row["n_rows"])}
        if positives is not None:
            fields["n_eff_positive"] = float(row[_EFFECTIVE[rate]])
    if positives is not None:
        positives = float(positives) if weighted else int(positives)
    return GroupRate(
        group=row["group"],
        size=size,
        rate=float(row[rate]),
        low=float(row[f"{rate}_low"]),
        high=float(row[f"{rate}_high"]),
        ratio=float(row["selection_rate_ratio"]) if rate == "selection_rate" else None,
        n_positive=positives,
        **fields,
    )


def class_gap(frame, label, rate):
    """The :class:`ClassGap` of ``rate`` over the groups of ``frame`` (one class).

    The groups that are too small to read are left out when two larger ones
    remain (see :class:`ClassGap`); None when no group has the rate.
    """
    values = frame[rate].to_numpy(dtype=np.float64)
    finite = frame[np.isfinite(values)]
    undefined = tuple(frame.loc[~np.isfinite(values), "group"])
    if "n_eff" in finite:  # survey weights: Kish's size of the denominator
        count = finite[_EFFECTIVE[rate]]
    else:
        count = {
            "selection_rate": finite["size"],
            "tpr": finite["n_true"],
            "fpr": finite["size"] - finite["n_true"],
        }[rate]
    least = SMALL_GROUP_SIZE if rate == "selection_rate" else FEW_POSITIVES
    enough = finite[count.to_numpy() >= least]
    left_out = ()
    if len(enough) >= 2:
        left_out = tuple(finite.loc[count.to_numpy() < least, "group"])
        finite = enough
    if finite.empty:
        return None
    low = finite.loc[finite[rate].idxmin()]
    high = finite.loc[finite[rate].idxmax()]
    return ClassGap(
        label=label,
        rate=rate,
        value=float(high[rate] - low[rate]),
        lowest=_rate(low, rate),
        highest=_rate(high, rate),
        left_out=left_out,
        undefined=undefined,
    )


def _gaps(frame, classes, rate):
    gaps = (class_gap(frame[frame["class"] == c], c, rate) for c in classes)
    return tuple(g for g in gaps if g is not None)


def multiclass_facts(groups, compared_names, data, distribution_class, confusion):
    """The :class:`MulticlassFacts` of the grouping of the largest selection gap.

    A grouping with two groups of ``SMALL_GROUP_SIZE`` samples or more is
    preferred (its gaps leave the smaller groups out), then one the metrics
    compare (``compared_names``) over the other tables' (an attribute of an
    intersection).
    """
    classes = tuple(str(c) for c in data.classes)
    candidates = []
    for name in groups["grouping"].unique():
        frame = groups[groups["grouping"] == name]
        selection = _gaps(frame, classes, "selection_rate")
        sizes = group_support(frame.drop_duplicates("group"))
        readable = int((sizes >= SMALL_GROUP_SIZE).sum()) >= 2
        gap = max(g.value for g in selection)
        compared = name in compared_names
        candidates.append(((readable, compared, gap), name, frame, selection))
    # two readable groups or more first, then a compared grouping (the
    # metrics'), then the largest gap
    _, name, frame, selection = max(candidates, key=lambda c: c[0])
    labelled = data.truth is not None
    return MulticlassFacts(
        classes=classes,
        prediction=data.prediction,
        grouping=name,
        reference=frame.loc[frame["is_reference"], "group"].iloc[0],
        selection=selection,
        distribution_class=distribution_class,
        tpr=_gaps(frame, classes, "tpr") if labelled else (),
        fpr=_gaps(frame, classes, "fpr") if labelled else (),
        confusion=confusion,
        shares=_shares(frame),
    )


def _shares(frame):
    """A :class:`ClassShare` per row (group and class) of one grouping's table."""
    out = []
    for row in frame.to_dict(orient="records"):
        size = float(row["size"]) if "n_eff" in row else int(row["size"])
        true = float(row["n_true"]) / size if size else float("nan")
        out.append(
            ClassShare(
                group=row["group"],
                label=row["class"],
                size=size,
                predicted=float(row["n_predicted"]) / size,
                true=true,
            )
        )
    return tuple(out)


# -- the audit ------------------------------------------------------------------------
def _per_class(data, sensitive_features, compared, groups, settings, run):
    """Each class's distribution metrics, phase by phase (keys ``"mcdp[High]"``).

    Returns the results and ``{class text: (its results, its MCDP details)}``.
    ``run``: the resampling, the progress and the survey weights (or None).
    """
    resampling, progress, weights = run
    columns = [data.proba[:, k] for k in range(len(data.classes))]
    progress("metrics")
    checked = [check_metrics(s, sensitive_features, settings, weights) for s in columns]
    progress("intervals and tests")
    tables = []
    for k, scores in enumerate(columns):

        def count(done, total, k=k):
            progress.count(k * total + done, len(columns) * total)

        tables.append(
            metrics_table(
                scores,
                sensitive_features,
                settings,
                resampling,
                checked[k],
                count,
                weights=weights,
            )
        )
    progress("where MCDP is attained")
    results, per_class = [], {}
    for k, cls in enumerate(map(str, data.classes)):
        found = finish_metrics(
            tables[k],
            settings=settings,
            groups=groups[groups["class"] == cls],
            compared=compared,
            details=checked[k][2],
            scores=columns[k],
            n_permutations=resampling.n_permutations,
            weights=weights,
        )
        per_class[cls] = (found, checked[k][2])
        results += [
            dataclasses.replace(r, key=f"{r.key}[{cls}]", name=f"class {cls}: {r.name}")
            for r in found
        ]
    return results, per_class


def audit_multiclass(
    data, sensitive_features, settings, resampling, progress, weights=None
):
    """The multiclass audit of validated in-memory data (:class:`MulticlassInputs`).

    With survey ``weights`` every count, share, rate and metric is weighted,
    the intervals rest on Kish's effective sizes, and no test is run.
    """
    n = data.proba.shape[0]
    # K columns resampled: as costly as K times the samples
    attributes, compared, tables, left_out, encoded = audited_inputs(
        sensitive_features, n, settings, resampling, columns=len(data.classes)
    )
    progress("groups")
    groups, references, confusion = multiclass_groups(tables, data, settings, weights)
    results, per_class = _per_class(
        data, encoded, compared, groups, settings, (resampling, progress, weights)
    )
    results += gap_results(data, encoded, settings, weights)
    worst = max(per_class, key=lambda c: per_class[c][1][0.0].value)
    found, details = per_class[worst]
    k = [str(c) for c in data.classes].index(worst)
    audited = audited_rows(compared, details)
    distribution = distribution_facts(
        found,
        details,
        data.proba[audited, k],
        settings.epsilon,
        groups,
        per_class={c: per_class[c][1][0.0] for c in per_class},
        weights=None if weights is None else weights[audited],
    )
    names = [g.name for g in compared]
    return AuditReport(
        settings=settings,
        resampling=resampling,
        data=AuditedData.of(n, attributes, data.truth is not None, compared, left_out),
        groups=groups,
        references=references,
        metric_results=results,
        mcdp_details={
            eps: dataclasses.replace(r, attribute=f"{r.attribute}, class {worst}")
            for eps, r in details.items()
        },
        headline=Headline(
            None,
            distribution,
            multiclass=multiclass_facts(groups, names, data, worst, confusion),
        ),
        inputs=AuditInputs(data.proba, sensitive_features, data.truth, weights),
    )
