"""Class probabilities held in Dask: the per-class engines, aggregated.

A 2-D Dask array or a Dask DataFrame of ``n_classes`` probability columns
reaches the engine of the binary metric once per column (one-vs-rest), and
the values are aggregated over the classes as the in-memory metric does
(``metrics/_multiclass.py``); each class's value is the in-memory one.
"""

from __future__ import annotations

import warnings

import numpy as np

from ...utils import SmallGroupWarning
from .._given import on_sides
from .._multiclass import (
    PROBA_COLUMNS_ERROR,
    aggregate_classes,
    check_class_agg,
    check_probabilities,
    class_details,
    class_labels,
)


def is_dask_class_scores(y_score):
    """Whether a Dask ``y_score`` holds several columns (class probabilities)."""
    columns = getattr(y_score, "columns", None)
    if columns is not None:
        return len(columns) != 1
    return getattr(y_score, "ndim", 1) == 2 and y_score.shape[1] != 1


def _columns(y_score, classes):
    """The Dask columns of ``y_score`` and their labels, range checked."""
    import dask

    frame = getattr(y_score, "columns", None) is not None
    n_columns = len(y_score.columns) if frame else int(y_score.shape[1])
    if n_columns < 2:
        raise ValueError(
            PROBA_COLUMNS_ERROR.format(
                shape=("n_samples", n_columns), n_columns=n_columns
            )
        )
    labels = class_labels(y_score, classes, n_columns)
    if frame:
        columns = [y_score[name] for name in y_score.columns]
        low, high = dask.compute(y_score.min(), y_score.max())
        low, high = np.asarray(low, float), np.asarray(high, float)
    else:
        columns = [y_score[:, k] for k in range(n_columns)]
        low, high = dask.compute(y_score.min(axis=0), y_score.max(axis=0))
    check_probabilities(np.vstack([low, high]), labels)
    return columns, labels


def class_engine(engine_name, engine, arguments):
    """The engine of ``engine_name`` on each class column, aggregated."""
    class_agg = check_class_agg(arguments.pop("class_agg"))
    columns, labels = _columns(arguments.pop("y_score"), arguments.pop("classes"))
    results = []
    for k, column in enumerate(columns):
        with warnings.catch_warnings():
            if k:
                warnings.simplefilter("ignore", SmallGroupWarning)
            one = {**arguments, "y_score": column}
            if arguments.get("given") is not None:  # one-vs-rest on the true class
                one["pos_label"] = labels[k]
            results.append(on_sides(engine, one))
    if engine_name == "mcdp_details":
        return class_details(labels, results, class_agg)
    return aggregate_classes(results, class_agg)
