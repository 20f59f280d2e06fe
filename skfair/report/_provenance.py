"""What an audit was run on, and what it set aside: provenance, exclusions, weights.

:func:`prepare_rows` applies ``exclude=`` (groups set aside by label, with the
reason) and ``sample_weight=`` to the in-memory inputs before the audit.
Whole-number weights are frequency weights: each row stands for that many
people, and the rows are repeated by their weight, so every count, rate,
interval and test is of the people. Any other non-negative weights are
survey weights (e.g. inverse inclusion probabilities): the rows are kept
once each with their weight (rows of weight 0 stand for no one and are
dropped), and the audit computes weighted counts and estimates, intervals
valid for such weights and a design-effect note
(:func:`~._survey.design_effect_notes`). :func:`provenance_of` records the
skfair version, the call, the input rows, their checksum and the date. The
report's notes state both (:func:`record_notes`).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils._labels import group_label_text
from ..utils._validation import check_same_index
from ._survey import design_effect_notes, weighted_count

EXCLUDE_ERROR = (
    "exclude must be a label, a sequence of group labels or a mapping "
    "{{label: reason}}; got {value!r}."
)
EXCLUDE_UNKNOWN_ERROR = (
    "exclude={label!r} is not a group of the sensitive features; their groups "
    "are: {labels}."
)
EXCLUDE_ALL_ERROR = "exclude sets aside every row: nothing is left to audit."
WEIGHT_ERROR = (
    "sample_weight must be finite non-negative numbers, one per sample, not "
    "all 0 (whole numbers are frequency weights, each row standing for that "
    "many people; other values survey weights, e.g. 1 / inclusion "
    "probability); got {reason}."
)
SURVEY_HFM_ERROR = (
    "X (for HFM) is not supported with survey weights (non-integer "
    "sample_weight): HFM's set distances take no weights. Pass X=None, or "
    "whole-number frequency weights."
)
DASK_OPTIONS_ERROR = (
    "sample_weight= and exclude= are not supported on Dask collections: "
    "filter and repeat the rows first."
)
#: The reason given when ``exclude`` lists labels without one.
DEFAULT_REASON = "set aside by the caller"


@dataclass(frozen=True)
class SetAside:
    """A group set aside by ``exclude=``: its label, the reason, its rows."""

    label: str
    reason: str
    n_rows: int


@dataclass(frozen=True)
class Provenance:
    """What was audited: skfair's version, the call, the input and the date.

    ``checksum`` is the SHA-256 of the inputs as given (scores, labels,
    sensitive features and weights, in that order); ``n_rows`` their rows,
    ``n_people`` the people audited: the total weight of the rows kept (the
    rows kept without weights), once ``set_aside`` (the :class:`SetAside`
    groups) are removed. ``survey``: the weights are survey weights (not
    whole numbers), ``n_audited_rows`` then the rows kept (of positive
    weight; None without survey weights).
    """

    version: str
    call: str
    n_rows: int
    checksum: str
    date: str
    n_people: int | float
    weighted: bool = False
    set_aside: tuple = ()
    survey: bool = False
    n_audited_rows: int | None = None


def _frame(sensitive_features, n):
    """The sensitive features as a DataFrame of label texts."""
    if isinstance(sensitive_features, pd.DataFrame):
        frame = sensitive_features.reset_index(drop=True)
    else:
        values = np.asarray(sensitive_features, dtype=object)
        if values.ndim == 1:
            name = getattr(sensitive_features, "name", None) or "sensitive_features"
            frame = pd.DataFrame({name: values})
        else:
            frame = pd.DataFrame(values)
    return frame.map(group_label_text) if len(frame) == n else frame


def _exclusions(exclude):
    """``{label text: reason}`` from ``exclude``."""
    if exclude is None:
        return {}
    if isinstance(exclude, (str, int, float, bool, np.generic)):
        exclude = [exclude]
    if isinstance(exclude, dict):
        return {group_label_text(k): str(v) for k, v in exclude.items()}
    try:
        return {group_label_text(k): DEFAULT_REASON for k in exclude}
    except TypeError:
        raise ValueError(EXCLUDE_ERROR.format(value=exclude)) from None


def _rows_of(frame, label):
    """Rows whose group is ``label``: any attribute's value, or the intersection."""
    texts = frame.astype(str)
    rows = (texts == label).any(axis=1).to_numpy(copy=True)
    if frame.shape[1] > 1:
        rows = rows | (texts.agg(" & ".join, axis=1) == label).to_numpy()
    return rows


def _weights(sample_weight, n):
    """``(weights, survey)``: float weights and whether they are not whole numbers.

    ``(None, False)`` without weights. Raises :data:`WEIGHT_ERROR` for a
    wrong shape or length, a non-numeric dtype, NaN, infinite or negative
    values, or weights that are all 0.
    """
    if sample_weight is None:
        return None, False
    w = np.asarray(sample_weight)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(WEIGHT_ERROR.format(reason=f"shape {w.shape} for {n} rows"))
    if w.dtype.kind not in "biuf":
        raise ValueError(WEIGHT_ERROR.format(reason=f"dtype {w.dtype}"))
    w = w.astype(np.float64)
    bad = [
        (~np.isfinite(w), "NaN or infinite"),
        (np.isfinite(w) & (w < 0), "negative"),
    ]
    for rows, what in bad:
        if rows.any():
            first = int(np.flatnonzero(rows)[0])
            reason = (
                f"{int(rows.sum()):,} {what} value(s), the first {float(w[first])!r} "
            )
            raise ValueError(WEIGHT_ERROR.format(reason=reason + f"at row {first}"))
    if not (w > 0).any():
        raise ValueError(WEIGHT_ERROR.format(reason="weights that are all 0"))
    return w, bool((w != np.rint(w)).any())


def _take(value, index):
    """Rows ``index`` of an array-like (frames keep their columns), or None."""
    if value is None:
        return None
    if isinstance(value, pd.Series):
        out = value.iloc[index].reset_index(drop=True)
        # a group set aside is no category of the audit (no empty groups)
        if isinstance(out.dtype, pd.CategoricalDtype):
            out = out.cat.remove_unused_categories()
        return out
    if isinstance(value, pd.DataFrame):
        out = value.iloc[index].reset_index(drop=True)
        for column in out.columns:
            if isinstance(out[column].dtype, pd.CategoricalDtype):
                out[column] = out[column].cat.remove_unused_categories()
        return out
    if hasattr(value, "__dataframe__") or hasattr(value, "to_pandas"):
        value = value.to_pandas() if hasattr(value, "to_pandas") else value
        return _take(
            pd.DataFrame(value) if not hasattr(value, "iloc") else value, index
        )
    return np.asarray(value)[index]


def prepare_rows(y_true, y_score, sensitive_features, X, *, sample_weight, exclude):
    """The inputs with ``exclude`` set aside and the weights applied.

    Whole-number weights repeat each row by its weight (frequency weights);
    survey weights keep each row of positive weight once, and are returned.
    Returns ``(y_true, y_score, sensitive_features, X, weights, set_aside,
    n_people)``: ``weights`` the survey weights of the rows kept (None for
    frequency weights and without weights), ``n_people`` their total weight
    (the rows kept without weights).
    """
    n = len(y_score)
    weights, survey = _weights(sample_weight, n)
    set_aside, keep = _set_aside(sensitive_features, n, exclude, weights)
    index = np.flatnonzero(keep)
    if survey:
        index = index[weights[index] > 0]  # a weight of 0 stands for no one
        n_people = float(weights[index].sum())
    elif weights is not None:
        index = np.repeat(index, weights[index].astype(np.int64))
        n_people = len(index)
    else:
        n_people = len(index)
    if keep.all() and weights is None:
        return y_true, y_score, sensitive_features, X, None, (), n_people
    return (
        _take(y_true, index),
        _take(y_score, index),
        _take(sensitive_features, index),
        _take(X, index),
        weights[index] if survey else None,
        tuple(set_aside),
        n_people,
    )


def _set_aside(sensitive_features, n, exclude, weights):
    """``(set_aside, keep)``: the :class:`SetAside` groups and the rows kept."""
    wanted = _exclusions(exclude)
    keep = np.ones(n, bool)
    set_aside = []
    if not wanted:
        return set_aside, keep
    frame = _frame(sensitive_features, n)
    labels = sorted(
        set(frame.astype(str).to_numpy().ravel())
        | set(frame.astype(str).agg(" & ".join, axis=1))
    )
    for label, reason in wanted.items():
        rows = _rows_of(frame, label)
        if not rows.any():
            raise ValueError(
                EXCLUDE_UNKNOWN_ERROR.format(label=label, labels=", ".join(labels))
            )
        count = rows.sum() if weights is None else weights[rows].sum()
        count = float(count) if (count != np.rint(count)) else int(count)
        set_aside.append(SetAside(label, reason, count))
        keep &= ~rows
    if not keep.any():
        raise ValueError(EXCLUDE_ALL_ERROR)
    return set_aside, keep


def _digest(h, value):
    if value is None:
        h.update(b"\x00none")
        return
    if not isinstance(value, (pd.DataFrame, pd.Series)) and hasattr(value, "to_pandas"):
        value = value.to_pandas()  # polars, PyArrow: the same bytes as pandas
    if isinstance(value, pd.DataFrame):
        for column in value.columns:
            _digest(h, value[column])
        return
    arr = np.asarray(value)
    if arr.dtype.kind in "biuf":
        h.update(np.ascontiguousarray(arr, dtype=np.float64).tobytes())
    else:
        h.update("\x1f".join(map(str, arr.ravel().tolist())).encode("utf-8"))
    h.update(b"\x1e")


def provenance_of(call, y_true, y_score, sensitive_features, sample_weight, **extra):
    """The :class:`Provenance` of an audit of these inputs (as given)."""
    from .. import __version__

    h = hashlib.sha256()
    for value in (y_score, y_true, sensitive_features, sample_weight):
        _digest(h, value)
    return Provenance(
        version=__version__,
        call=call,
        n_rows=len(y_score),
        checksum=h.hexdigest(),
        date=datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M:%S UTC"
        ),
        weighted=sample_weight is not None,
        **extra,
    )


def call_text(options):
    """``"audit(threshold=0.3, score_type='logit')"``: the non-default options."""
    shown = ", ".join(f"{k}={v!r}" for k, v in options.items())
    return f"audit({shown})"


_SHOWN_DEFAULTS = {
    "threshold": "auto",
    "score_type": "probability",
    "combine": "intersection",
}


def prepare_audit(inputs, X, shown, *, sample_weight, exclude, dask):
    """``(provenance, (y_true, y_score, sensitive_features, X, weights))`` for audit.

    ``weights``: the survey weights of the rows kept, or None (no weights, or
    whole numbers: the rows are repeated).

    ``shown``: the options the call text names when not at their default.
    On Dask (``dask``) the inputs pass as they are, without a provenance.
    """
    y_true, y_score = inputs["y_true"], inputs["y_score"]
    sensitive_features = inputs["sensitive_features"]
    if not dask:  # before exclude= and the weights reset the rows' indexes
        check_same_index(
            y_true=y_true,
            y_score=y_score,
            sensitive_features=sensitive_features,
            X=X,
            sample_weight=sample_weight,
        )
    if dask:
        if sample_weight is not None or exclude is not None:
            raise ValueError(DASK_OPTIONS_ERROR)
        return None, (y_true, y_score, sensitive_features, X, None)
    options = {
        k: v
        for k, v in shown.items()
        if v is not None and not (k in _SHOWN_DEFAULTS and v == _SHOWN_DEFAULTS[k])
    }
    if sample_weight is not None:
        options["sample_weight"] = f"<{len(sample_weight)} weights>"
    record = provenance_of(
        call_text(options),
        y_true,
        y_score,
        sensitive_features,
        sample_weight,
        n_people=0,
    )
    *prepared, weights, set_aside, n_people = prepare_rows(
        y_true,
        y_score,
        sensitive_features,
        X,
        sample_weight=sample_weight,
        exclude=exclude,
    )
    record = dataclasses.replace(
        record,
        n_people=n_people,
        set_aside=set_aside,
        survey=weights is not None,
        n_audited_rows=None if weights is None else len(weights),
    )
    return record, (*prepared, weights)


def record_notes(report):
    """The notes stating the exclusions, the weights and the provenance."""
    p = getattr(report, "provenance", None)
    if p is None:
        return []
    out = []
    for s in p.set_aside:
        out.append(
            f"Set aside before the audit (exclude): {s.label}, "
            f"{weighted_count(s.n_rows) if p.survey else f'{s.n_rows:,}'} "
            f"{'people' if p.weighted else 'rows'}; reason: {s.reason}."
        )
    if p.survey:
        out.append(
            "Weights: sample_weight as survey weights (not whole numbers: each "
            f"row stands for its weight in people): the {p.n_audited_rows:,} "
            f"rows audited stand for {weighted_count(p.n_people)} people. Every "
            "count is a weighted count (the group table's size, beside its "
            "rows, n_rows), every rate and metric a weighted estimate; rows "
            "of weight 0 stand for no one and are left out."
        )
        out += design_effect_notes(report)
    elif p.weighted:
        out.append(
            f"Weights: sample_weight as frequency weights (whole numbers): the "
            f"{p.n_rows:,} input rows stand for {p.n_people:,} people, and every "
            "count, rate, interval and test is of the people (each row repeated "
            "its weight's number of times)."
        )
    out.append(
        f"Provenance: skfair {p.version}; {p.call}; {p.n_rows:,} input rows, "
        f"SHA-256 {p.checksum}; run {p.date}."
    )
    return out
