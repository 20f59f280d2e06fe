"""``skfair audit`` of a multiclass classifier: its options and its columns.

Two layouts of a predictions file: one probability column per class, named
by a common prefix and the class (``--score-prefix proba_``: the columns
``proba_Low``, ``proba_Medium``, ``proba_High`` are the probabilities of
the classes ``Low``, ``Medium``, ``High``), or one column of predicted
labels (``--score COL`` with ``--task multiclass``, or detected when
``--label`` has three or more classes and ``COL`` holds labels of the same
set). The classes are matched to the ``--label`` values as text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from skfair._cli._inputs import numeric_scores, read_frame

SCORE_OPTIONS_ERROR = (
    "argument --score-prefix: give either --score COL or --score-prefix PREFIX, "
    "not both"
)
PREFIX_COLUMNS_ERROR = (
    "argument --score-prefix: {count} column(s) of {path!r} start with "
    "{prefix!r} ({found}); a multiclass audit needs one probability column "
    "per class, at least two; its columns are {columns}"
)
PREFIX_TASK_ERROR = (
    "argument --task: --score-prefix gives class probabilities, which only "
    "--task multiclass (or auto) audits"
)
MULTICLASS_POS_LABEL_ERROR = (
    "argument --pos-label: a multiclass audit compares every class; leave "
    "--pos-label out"
)


def add_multiclass_arguments(group):
    """Add ``--score-prefix`` to the "what to audit" argument group."""
    group.add_argument(
        "--score-prefix",
        metavar="PREFIX",
        help="multiclass probabilities: the columns whose names start with "
        "PREFIX, one per class, the class being the rest of the name "
        "(--score-prefix proba_ reads proba_Low, proba_High, ...); implies "
        "--task multiclass",
    )


def check_multiclass_arguments(args, columns, path, parser):
    """The ``--score-prefix`` columns (empty without it), checked."""
    if args.score_prefix is None:
        return []
    if args.score is not None:
        parser.error(SCORE_OPTIONS_ERROR)
    if args.task not in ("auto", "multiclass"):
        parser.error(PREFIX_TASK_ERROR)
    found = [c for c in columns if str(c).startswith(args.score_prefix)]
    if len(found) < 2:
        shown = columns if len(columns) <= 20 else columns[:20] + ["..."]
        parser.error(
            PREFIX_COLUMNS_ERROR.format(
                count=len(found),
                path=path,
                prefix=args.score_prefix,
                found=", ".join(found) or "none",
                columns=shown,
            )
        )
    return found


def _label_set(values):
    return {str(v) for v in pd.unique(values.dropna())}


def wants_labels(args, frame):
    """Whether the ``--score`` column holds predicted class labels.

    With ``--task multiclass``, or (``--task auto``) when it is not numeric,
    ``--label`` has three or more classes and every prediction is one of
    them.
    """
    if args.task == "multiclass":
        return True
    if args.task != "auto" or args.label is None:
        return False
    scores = frame[args.score]
    if pd.api.types.is_numeric_dtype(scores):
        return False
    truth = _label_set(frame[args.label])
    return len(truth) >= 3 and _label_set(scores) <= truth


def load_multiclass(args, kind, columns, parser):
    """``(y_true, y_score, sensitive)`` of a multiclass audit.

    ``y_score`` is a DataFrame with a column per class (``--score-prefix``),
    its columns named by the classes (as the ``--label`` values where their
    text matches), or the predicted labels (``--score``).
    """
    wanted = list(columns) + list(args.sensitive)
    wanted += [args.label] if args.label else []
    wanted = list(dict.fromkeys(wanted))
    text = [c for c in args.sensitive if c not in columns and c != args.label]
    frame = read_frame(args.predictions, kind, wanted, text=text)
    y_true = None if args.label is None else frame[args.label]
    if not args.score_prefix:
        return y_true, frame[args.score], frame[args.sensitive]
    names = [c[len(args.score_prefix) :] for c in columns]
    if y_true is not None:
        labels = {str(v): v for v in pd.unique(y_true.dropna())}
        names = [labels.get(name, name) for name in names]
    try:
        proba = {
            name: np.asarray(numeric_scores(frame[c], c), dtype=np.float64)
            for name, c in zip(names, columns)
        }
    except ValueError as error:
        parser.error(
            str(error).replace("argument --score:", "argument --score-prefix:")
        )
    return y_true, pd.DataFrame(proba, columns=names), frame[args.sensitive]
