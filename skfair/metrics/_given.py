"""Label-conditional distribution metrics: the rows of one true label.

Every distribution metric (ΔDP, ABCC, ABPC, MCDP(ε)) compares the groups'
score distributions. With ``given="positive"`` it compares them among the
samples whose true label is ``pos_label`` only, with ``given="negative"``
among the others: the same metric on a subset of the rows. So
conditioning on the label is one row filter, applied here
(:func:`given_rows`) where a metric's inputs are prepared
(:meth:`~._dist_inputs.ScoreData.prepared`) and, for the intervals and
tests, before they resample (:func:`split_given`); the Dask and lazy engines
filter on the label column the same way.

MCDP(0) given positive is the largest gap between the groups' true-positive
rates over all thresholds (threshold-free equal opportunity), given negative
the largest false-positive-rate gap (predictive equality); the larger of the
two (``given="both"``) is the largest equalised-odds violation over all
thresholds.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..utils._dataframe import as_narwhals
from ..utils._groups import SmallGroupWarning, user_stacklevel
from ..utils._validation import (
    _labels_1d,
    check_same_index,
    check_same_length,
    same_label,
)

GIVEN_ERROR = "given must be None, 'positive', 'negative' or 'both'; got {given!r}."
GIVEN_Y_TRUE_ERROR = (
    "given={given!r} compares the groups' scores among the samples of one "
    "true label, so it needs y_true (the labels); got y_true=None."
)
GIVEN_POS_LABEL_ERROR = (
    "given={given!r}: pos_label={pos_label!r} is not a label of y_true, whose "
    "labels are {labels}. Pass the positive class as pos_label (for class "
    "probabilities, the columns' labels, from classes= or a DataFrame's "
    "columns, must be y_true's labels)."
)
GIVEN_BOTH_ERROR = (
    "{what} takes given='positive' or given='negative' in metric_params; "
    "given='both' (the larger of the two metrics) has no interval or test of "
    "its own here: compute each side's."
)
GIVEN_CLASS_SCORES_ERROR = (
    "given={given!r} with class probabilities (y_score of shape (n_samples, "
    "n_classes)) is not supported by {what}: each class keeps other rows. "
    "Pass one class's probability column with pos_label=<that class>."
)
#: What is added to the errors and warnings of a metric on the filtered rows.
GIVEN_NOTE = (
    "(given={given!r}: the groups are compared on the {n_kept} of {n} samples "
    "whose y_true {relation} pos_label={pos_label!r}.)"
)
_SIDES = ("positive", "negative")


def check_given(given):
    """``given`` if it is None, "positive", "negative" or "both"; else a ValueError.

    Examples
    --------
    >>> from skfair.metrics._given import check_given
    >>> check_given("positive")
    'positive'
    """
    if given is not None and (not isinstance(given, str) or given not in GIVEN_SIDES):
        raise ValueError(GIVEN_ERROR.format(given=given))
    return given


#: The values of ``given`` besides None.
GIVEN_SIDES = (*_SIDES, "both")


class GivenRows(NamedTuple):
    """A metric's per-sample inputs restricted to the rows of one label side."""

    y_true: object
    y_score: object
    sensitive_features: object
    sample_weight: object
    note: str


def given_mask(given, pos_label, y_true, n_samples):
    """The rows ``given`` keeps: ``y_true == pos_label`` ("positive") or ``!=``.

    ``y_true`` must hold ``pos_label`` (a ValueError naming its labels
    otherwise: a misspelt label would silently keep every row, or none).

    Examples
    --------
    >>> from skfair.metrics._given import given_mask
    >>> given_mask("negative", "yes", ["yes", "no", "no"], 3).tolist()
    [False, True, True]
    """
    if y_true is None:
        raise ValueError(GIVEN_Y_TRUE_ERROR.format(given=given))
    labels = _labels_1d(y_true, "y_true")
    check_same_length(labels, n_samples, first_name="y_true", second_name="y_score")
    classes = pd.unique(labels)
    match = [c for c in classes if same_label(c, pos_label)]
    if not match:
        shown = sorted(classes.tolist(), key=repr)[:10]
        raise ValueError(
            GIVEN_POS_LABEL_ERROR.format(given=given, pos_label=pos_label, labels=shown)
        )
    mask = labels == match[0]
    return ~mask if given == "negative" else mask


def given_rows(given, pos_label, y_true, y_score, sensitive_features, sample_weight):
    """The inputs restricted to the rows of ``given`` ("positive" or "negative").

    Each input keeps its type (a pandas object its index, a list stays a
    list), so the metric on the result is the unconditional metric on the
    subset, with the same validation. The pandas indexes are checked before
    the rows are taken, as the metric would.
    """
    check_same_index(
        y_true=y_true,
        y_score=y_score,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    n_samples = len(y_score) if hasattr(y_score, "__len__") else np.size(y_score)
    mask = given_mask(given, pos_label, y_true, n_samples)
    if isinstance(pos_label, np.generic):  # shown as the user wrote it
        pos_label = pos_label.item()
    note = GIVEN_NOTE.format(
        given=given,
        n_kept=int(mask.sum()),
        n=mask.shape[0],
        relation="==" if given == "positive" else "!=",
        pos_label=pos_label,
    )
    return GivenRows(
        *(take_rows(x, mask) for x in (y_true, y_score, sensitive_features)),
        take_rows(sample_weight, mask),
        note,
    )


def take_rows(values, mask):
    """The rows of ``values`` where ``mask``, in the type ``values`` came in.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics._given import take_rows
    >>> take_rows(["a", "b", "c"], np.array([True, False, True]))
    ['a', 'c']
    """
    if values is None:
        return None
    if isinstance(values, (pd.Series, pd.DataFrame)):
        return values.iloc[mask]
    if isinstance(values, pd.Categorical):
        return values[mask]
    if isinstance(values, (list, tuple)):
        return [v for v, keep in zip(values, mask) if keep]
    wrapped = as_narwhals(values, allow_series=True)
    if wrapped is not None:  # polars, PyArrow, ...: their own type
        return wrapped[np.flatnonzero(mask)].to_native()
    return np.asarray(values)[mask]


class noted:  # a context manager, named as the function it replaces
    """Add ``note`` to the ValueErrors and SmallGroupWarnings raised inside.

    The errors and warnings are those of the metric on the filtered rows,
    which the unconditional metric raises alike; the note says which rows
    they concern. Other warnings pass through unchanged. (A class, not a
    ``contextlib`` generator: the warnings then point at the user's line.)
    """

    def __init__(self, note):
        self.note = note
        self._recording = None

    def __enter__(self):
        if self.note is not None:
            self._recording = warnings.catch_warnings(record=True)
            self._caught = self._recording.__enter__()
            warnings.simplefilter("always")
        return self

    def __exit__(self, kind, error, traceback):
        if self._recording is None:
            return False
        self._recording.__exit__(kind, error, traceback)
        if isinstance(error, ValueError) and error.args:
            if isinstance(error.args[0], str):
                error.args = (f"{error.args[0]} {self.note}", *error.args[1:])
        _reissue(self._caught, self.note)  # outside the recording
        return False


def _reissue(caught, note):
    for record in caught:
        message = record.message
        if isinstance(message, SmallGroupWarning):
            message = SmallGroupWarning(
                f"{message} {note}",
                name=message.name,
                threshold=message.threshold,
                groups=message.groups,
            )
        warnings.warn(message, stacklevel=user_stacklevel())


def split_given(metric_params):
    """``(given, pos_label, the other params)`` of ``metric_params``.

    Examples
    --------
    >>> from skfair.metrics._given import split_given
    >>> split_given({"given": "positive", "epsilon": 0.1})
    ('positive', 1, {'epsilon': 0.1})
    """
    params = {} if metric_params is None else dict(metric_params)
    given = check_given(params.pop("given", None))
    pos_label = params.pop("pos_label", 1)
    return given, pos_label, params


def given_inputs(
    what, metric_params, y_true, y_score, sensitive_features, sample_weight, classes
):
    """The rows an interval or a test of ``metric_params["given"]`` resamples.

    ``classes`` says whether ``y_score`` holds class probabilities (refused).

    Returns ``(rows, metric_params)``: :class:`GivenRows` (None without
    ``given``) and the parameters without ``given`` and ``pos_label``. The
    resampling of the kept rows within each group is then the resampling
    within each (group, label) cell, and every method (band, Welch,
    Newcombe, DKW, permutation, KS) sees those rows only.
    """
    given, pos_label, params = split_given(metric_params)
    if given is None:
        return None, metric_params
    if given == "both":
        raise ValueError(GIVEN_BOTH_ERROR.format(what=what))
    if classes:
        raise ValueError(GIVEN_CLASS_SCORES_ERROR.format(given=given, what=what))
    rows = given_rows(
        given, pos_label, y_true, y_score, sensitive_features, sample_weight
    )
    return rows, params


def larger(results):
    """The larger of two sides' results (``given="both"`` in the engines).

    Floats, arrays (element by element: ``mcdp_curve``) or
    :class:`~skfair.metrics.MCDPResult` (by value, the first on a tie), as
    the in-memory functions choose.
    """
    first, second = results
    if isinstance(first, np.ndarray):
        return np.maximum(first, second)
    if hasattr(first, "value"):
        return first if first.value >= second.value else second
    return max(first, second)


def on_sides(engine, arguments):
    """``engine(**arguments)``; for ``given="both"`` the larger of the two sides.

    For the engines (Dask, lazy frames), which take one side at a time.
    """
    if arguments.get("given") != "both":
        return engine(**arguments)
    return larger(
        [engine(**{**arguments, "given": side}) for side in ("positive", "negative")]
    )
