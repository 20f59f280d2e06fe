"""``skfair audit``: a fairness report of one model's scores.

Audits a predictions file (CSV or Parquet: one row per sample with a score
column, the sensitive column(s) and optionally the true label), or, with
``--dataset``, a default model on a bundled data set (a demonstration).
Argument errors (a missing file or column, a bad threshold, an unwritable
output, labels that need ``--pos-label``) stop with a one-line message and
exit status 2; progress and warnings go to stderr, one line each.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import math
import os
import shlex
import sys
import time

from skfair._cli._datasets import (
    DATASETS,
    canonical_dataset,
    dataset_help,
    demo_model,
)
from skfair._cli._engine import add_engine_argument, run_engine
from skfair._cli._feedback import LiveWarnings, Progress, say_line, say_size
from skfair._cli._groups import (
    BINS_COLUMN_ERROR,
    CONTINUOUS_ERROR,
    bins_type,
    check_groups,
    group_sizes,
    reference_group,
    shape_sensitive,
)
from skfair._cli._inputs import (
    POS_LABEL_NO_LABELS_ERROR,
    file_kind,
    numeric_scores,
    positive_label,
    read_columns,
    read_frame,
    reader_note,
)
from skfair._cli._multiclass import (
    MULTICLASS_POS_LABEL_ERROR,
    add_multiclass_arguments,
    check_multiclass_arguments,
    load_multiclass,
    wants_labels,
)
from skfair._cli._render import check_output
from skfair._cli._types import integer_type
from skfair.report._common import NO_MATPLOTLIB_NOTE

NO_INPUT_ERROR = (
    "give either --predictions FILE (with --score and --sensitive) or --dataset NAME"
)
BOTH_INPUTS_ERROR = "--predictions and --dataset exclude each other"
NEEDS_COLUMNS_ERROR = "--predictions needs --score COL and --sensitive COL [COL ...]"
DATASET_COLUMNS_ERROR = (
    "--score, --score-prefix and --label apply to --predictions only"
)
FILE_MISSING_ERROR = "argument --predictions: file {path!r} does not exist"
FILE_TYPE_ERROR = (
    "argument --predictions: cannot tell the format of {path!r}; use a .csv, "
    ".csv.gz, .parquet or .pq file"
)
FILE_UNREADABLE_ERROR = "argument --predictions: cannot read {path!r}: {reason}"
MISSING_COLUMN_ERROR = (
    "argument {option}: column(s) {missing} not in {path!r}; its columns are {columns}"
)
DUPLICATE_SENSITIVE_ERROR = (
    "argument --sensitive: {duplicates} given more than once; name each column once"
)
BAD_DATA_ERROR = "{source}: {message}"
THRESHOLD_RANGE_ERROR = (
    "argument --threshold: must be in [0, 1] for probabilities; got {value!r} "
    "(pass --score-type logit or margin for a threshold in raw-score units)"
)
EPSILON_RANGE_ERROR = (
    "argument --epsilon: must be in (0, 1) for a classifier's scores; got "
    "{value!r} (an epsilon in the target's units is for --task regression)"
)
POS_LABEL_REGRESSION_ERROR = (
    "argument --pos-label: a regressor's --label holds true targets, not "
    "classes; leave --pos-label out (or pass --task binary)"
)
DATASET_TASK_ERROR = (
    "argument --task: --dataset audits the demonstration binary classifier; "
    "--task {task} applies to --predictions"
)
DATASET_SCORE_TYPE_ERROR = (
    "argument --score-type: --dataset audits the demonstration model's "
    "probabilities; --score-type logit or margin applies to --predictions"
)
REFERENCE_IGNORED_NOTICE = (
    "skfair audit: note: --reference is not supported by this version of "
    "skfair.report.audit; the report keeps its default reference group"
)
OUTPUT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json"}
OUTPUT_TYPE_ERROR = (
    "argument --output: {path!r} must end in .html (report), .md (Markdown) or "
    ".json (numbers only)"
)

HELP = "write a fairness report (HTML) of a model's scores"
DESCRIPTION = """\
Audit the fairness of a binary classifier's scores (or a regressor's
predictions, --task regression): per-group rates at the decision threshold
(a regressor's bias, MAE, RMSE and prediction quantiles by group), the
distribution metrics ΔDP, ABCC, ABPC and MCDP(ε) with confidence intervals
and p-values of "no disparity", where MCDP is attained, and figures, written
as one self-contained HTML page (or Markdown / JSON, by the --output
extension). Progress and warnings go to stderr.

Your own predictions:
  python -m skfair audit --predictions preds.csv --score proba \\
      --sensitive sex race --label income --output report.html

A continuous attribute is grouped with --bins, labels other than 0/1 name
their positive outcome with --pos-label, missing group labels become a group
with --na-group:
  python -m skfair audit --predictions preds.parquet --score proba \\
      --sensitive sex age --bins age=25,45,65 --label outcome \\
      --pos-label approved --na-group unknown --output report.html

A regressor's predictions (--label holds the true targets; the task is
detected from a numeric label with many values, or given with --task):
  python -m skfair audit --predictions preds.csv --score predicted_amount \\
      --sensitive sex --label amount --task regression --output report.html

A multiclass classifier: one probability column per class, named PREFIX +
class (proba_Low, proba_Medium, proba_High), or a column of predicted labels
(--score COL; detected when --label has three or more classes):
  python -m skfair audit --predictions preds.csv --score-prefix proba_ \\
      --sensitive race --label risk --output report.html

A demonstration on bundled data (logistic regression fitted on 70% of the
data, without the sensitive columns, audited on the other 30%):
  python -m skfair audit --dataset adult --output report.html
"""


def _add_input_arguments(parser):
    group = parser.add_argument_group("what to audit")
    group.add_argument(
        "--predictions",
        metavar="FILE",
        help=f"a CSV or Parquet file with one row per sample ({reader_note()})",
    )
    group.add_argument(
        "--score",
        metavar="COL",
        help="the column of scores in [0, 1] (or raw scores with --score-type; "
        "predicted class labels with --task multiclass)",
    )
    add_multiclass_arguments(group)
    group.add_argument(
        "--sensitive",
        metavar="COL",
        nargs="+",
        help="the sensitive column(s); several are compared by their intersections "
        "(with --dataset: a subset of the data set's sensitive attributes)",
    )
    group.add_argument(
        "--label", metavar="COL", help="the column of true labels (optional)"
    )
    group.add_argument(
        "--dataset",
        type=canonical_dataset,
        choices=tuple(DATASETS),
        metavar="NAME",
        help=dataset_help(
            DATASETS,
            "audit a default model (logistic regression) on a bundled data set",
        ),
    )


def _add_group_arguments(parser):
    group = parser.add_argument_group("groups and labels")
    group.add_argument(
        "--bins",
        type=bins_type,
        action="append",
        default=[],
        metavar="COL=EDGES|COL=qN",
        help="group the numeric sensitive column COL at the EDGES "
        "(age=25,45,65 gives [min, 25), [25, 45), [45, 65), [65, max]) or into "
        "N groups of about equal size (age=q4); repeat for several columns",
    )
    group.add_argument(
        "--na-group",
        metavar="LABEL",
        help="read missing sensitive values (empty cells, 'NA', 'null', ...) as "
        "a group named LABEL (default: they are an error)",
    )
    group.add_argument(
        "--weight",
        metavar="COL",
        help="weights from column COL of --predictions: whole numbers are "
        "frequency weights (each row stands for that many people; every count, "
        "rate, interval and test is then of the people), other non-negative "
        "values survey weights (e.g. 1 / inclusion probability: weighted "
        "counts, rates and errors, intervals on Kish's effective size, no "
        "tests, a design-effect note; for binary, regression and multiclass "
        "audits)",
    )
    group.add_argument(
        "--exclude",
        action="append",
        metavar="LABEL[=REASON]",
        help="set aside the group LABEL (a value of an attribute, or an "
        "intersection 'F & child') before the audit, with the reason printed in "
        "the notes; repeat for several groups",
    )
    group.add_argument(
        "--min-group-size",
        type=integer_type(1),
        metavar="K",
        help="leave out groups with fewer than K samples (default: keep every "
        "group and warn about groups of fewer than 30)",
    )
    group.add_argument(
        "--reference",
        metavar="GROUP",
        help="the group whose rates the others are compared with (ratios, "
        "differences), as the report writes it: with several attributes one "
        "label each, joined by ' & ', a label that contains ' & ' or a quote "
        "in double quotes (e.g. 'female & \"Asian & Pacific\"'); default: the "
        "largest group",
    )
    group.add_argument(
        "--pos-label",
        metavar="LABEL",
        help="the --label value of the positive outcome; needed unless the "
        "labels are 0/1, False/True or -1/1 (then 1 or True)",
    )


def _add_audit_arguments(parser):
    group = parser.add_argument_group("the audit")
    group.add_argument(
        "--task",
        choices=("auto", "binary", "regression", "multiclass"),
        default="auto",
        help="what --score holds: a binary classifier's scores, or a "
        "regressor's predictions (--label then holds the true targets); auto: "
        "regression when --label is numeric with more than two values and the "
        "scores leave [0, 1] or the labels are not whole numbers; multiclass "
        "with --score-prefix, or when --label has three or more classes and "
        "--score holds labels of them; said on stderr (default: auto)",
    )
    for flag, parse, metavar, meaning in (  # "auto" or a number
        (
            "--threshold",
            _real_type,
            "T",
            "decision threshold, decision = score >= T, in the scores' units "
            "(a logit with --score-type logit; the target's with --task "
            "regression) (default: auto, 0.5 for probabilities, 0 for logits and "
            "margins, none for a regressor)",
        ),
        (
            "--epsilon",
            _positive_type,
            "E",
            "radius of the local MCDP(E) beside MCDP(0), in (0, 1) for "
            "scores, in the target's units for a regressor (default: auto, 0.05 "
            "for scores, 5%% of the predictions' range for a regressor)",
        ),
    ):
        group.add_argument(
            flag, type=_auto_or(parse), default="auto", metavar=metavar, help=meaning
        )
    group.add_argument(
        "--score-type",
        choices=("probability", "logit", "margin"),
        default="probability",
        help="what --score holds: probabilities in [0, 1]; logits (mapped "
        "through the sigmoid first); or margins, e.g. decision_function "
        "(kept on their scale: ABPC and MCDP(E) are then not applicable) "
        "(default: probability)",
    )
    group.add_argument(
        "--n-resamples",
        type=integer_type(1),
        metavar="N",
        help="bootstrap resamples and permutations (default: 199, fewer above "
        "100 000 rows)",
    )
    group.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    add_engine_argument(group)
    group.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="where to write the report: .html, .md or .json",
    )


def _auto_or(parse):
    """An argument type: ``"auto"``, or what ``parse`` reads."""

    def parse_or_auto(text):
        return "auto" if text.strip().lower() == "auto" else parse(text)

    return parse_or_auto


def _positive_type(text):
    """An argument type: a finite real number > 0 (``--epsilon``)."""
    value = _real_type(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(
            "must be in (0, 1) for scores, or a positive number in the target's "
            f"units for a regressor; got {text!r}"
        )
    return value


def _real_type(text):
    """An argument type: a finite real number (``--threshold``)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number; got {text!r}")
    return value


def add_arguments(parser):
    """Add the ``audit`` subcommand's arguments to its ``parser``.

    Examples
    --------
    >>> from skfair._cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["audit", "--dataset", "credit", "--bins", "age=q4",
    ...      "--output", "report.html"])
    >>> args.dataset, args.bins, args.threshold, args.output
    ('german_credit', [('age', 4)], 'auto', 'report.html')
    """
    _add_input_arguments(parser)
    _add_group_arguments(parser)
    _add_audit_arguments(parser)


def _columns(path, kind, parser):
    """The file's column names, read without loading the data."""
    try:
        return read_columns(path, kind)
    except (OSError, ValueError, ImportError) as error:
        parser.error(
            FILE_UNREADABLE_ERROR.format(path=path, reason=str(error).splitlines()[0])
        )


def _check_arguments(args, parser):
    """Every check that needs no data, in the order a user would fix them."""
    if args.predictions is None and args.dataset is None:
        parser.error(NO_INPUT_ERROR)
    if args.predictions is not None and args.dataset is not None:
        parser.error(BOTH_INPUTS_ERROR)
    fmt = OUTPUT_FORMATS.get(os.path.splitext(args.output)[1].lower())
    if fmt is None:
        parser.error(OUTPUT_TYPE_ERROR.format(path=args.output))
    check_output(args.output, parser)
    named = args.sensitive or []
    duplicates = [c for c in dict.fromkeys(named) if named.count(c) > 1]
    if duplicates:
        shown = ", ".join(map(repr, duplicates))
        parser.error(DUPLICATE_SENSITIVE_ERROR.format(duplicates=shown))
    binary = args.task == "binary" or (args.task == "auto" and args.label is None)
    if binary or args.dataset is not None:
        check_binary_ranges(args, parser)
    if args.dataset is not None:
        if {args.score, args.label, args.score_prefix} != {None}:
            parser.error(DATASET_COLUMNS_ERROR)
        if args.score_type != "probability":
            parser.error(DATASET_SCORE_TYPE_ERROR)
        if args.task in ("regression", "multiclass"):
            parser.error(DATASET_TASK_ERROR.format(task=args.task))
        return fmt, None
    if (args.score is None and args.score_prefix is None) or not args.sensitive:
        parser.error(NEEDS_COLUMNS_ERROR)
    if args.pos_label is not None and args.label is None:
        parser.error(POS_LABEL_NO_LABELS_ERROR)
    if not os.path.isfile(args.predictions):
        parser.error(FILE_MISSING_ERROR.format(path=args.predictions))
    _check_bins(args, parser, args.sensitive)
    kind = file_kind(args.predictions)
    if kind is None:
        parser.error(FILE_TYPE_ERROR.format(path=args.predictions))
    columns = _columns(args.predictions, kind, parser)
    shown = columns if len(columns) <= 20 else columns[:20] + ["..."]
    for option, wanted in (
        ("--score", [] if args.score is None else [args.score]),
        ("--sensitive", args.sensitive),
        ("--label", [] if args.label is None else [args.label]),
    ):
        missing = [c for c in wanted if c not in columns]
        if missing:
            parser.error(
                MISSING_COLUMN_ERROR.format(
                    option=option, missing=missing, path=args.predictions, columns=shown
                )
            )
    prefixed = check_multiclass_arguments(args, columns, args.predictions, parser)
    return fmt, (kind, prefixed)


def check_binary_ranges(args, parser):
    """``--threshold`` and ``--epsilon`` in their ranges for a classifier's scores."""
    t = args.threshold
    if args.score_type == "probability" and t != "auto" and not 0.0 <= t <= 1.0:
        parser.error(THRESHOLD_RANGE_ERROR.format(value=t))
    if args.epsilon != "auto" and not 0.0 < args.epsilon < 1.0:
        parser.error(EPSILON_RANGE_ERROR.format(value=args.epsilon))


def _check_task(args, parser, y_true, y_score):
    """``(task, reason)``: given, implied by --score-prefix, or detected (said)."""
    from skfair.report._regression import detect_task

    task, reason = detect_task(
        y_true, y_score, None if args.task == "auto" else args.task
    )
    if args.score_prefix is not None and task != "multiclass":
        task, reason = "multiclass", None  # class probabilities: implied
    if task == "binary":
        check_binary_ranges(args, parser)
    elif reason is not None:
        say_line(f"skfair audit: task detected: {task} ({reason})")
    return task, reason


def _check_bins(args, parser, sensitive_columns):
    for column, _ in args.bins:
        if column not in sensitive_columns:
            parser.error(BINS_COLUMN_ERROR.format(column=column))


def _load_predictions(args, kind, parser):
    kind, columns = kind
    if columns:  # --score-prefix
        loaded = load_multiclass(args, kind, columns, parser)
        return *loaded, None, args.predictions
    wanted = [args.score, *args.sensitive] + ([args.label] if args.label else [])
    wanted = list(dict.fromkeys(wanted))
    # group labels as written ("01" is not "1"); scores and labels as numbers
    text = [c for c in args.sensitive if c not in (args.score, args.label)]
    try:
        frame = read_frame(args.predictions, kind, wanted, text=text)
    except (OSError, ValueError, ImportError) as error:
        reason = str(error).splitlines()[0]
        parser.error(FILE_UNREADABLE_ERROR.format(path=args.predictions, reason=reason))
    if wants_labels(args, frame):  # predicted labels of a multiclass model
        return (
            frame[args.label],
            frame[args.score],
            frame[args.sensitive],
            None,
            (args.predictions),
        )
    try:
        y_score = numeric_scores(frame[args.score], args.score)
    except ValueError as error:
        parser.error(str(error))
    y_true = None if args.label is None else frame[args.label]
    return y_true, y_score, frame[args.sensitive], None, args.predictions


def _audit_options(args, y_true, sensitive, sizes, progress, task=("binary", None)):
    """The keyword arguments of ``audit`` that the options decide.

    ``task``: :func:`_check_task`'s; passed unless detected (the audit then
    says so). ``progress=`` and ``reference=`` only to an ``audit`` taking them.
    """
    from skfair.report import audit

    accepted = inspect.signature(audit).parameters
    task, reason = task
    options = {"pos_label": None}
    if reason is None:
        options["task"] = task
    if task in ("regression", "multiclass"):
        if args.pos_label is not None:
            raise ValueError(
                POS_LABEL_REGRESSION_ERROR
                if task == "regression"
                else MULTICLASS_POS_LABEL_ERROR
            )
    elif y_true is not None:
        options["pos_label"] = positive_label(y_true, args.pos_label, args.label)
    if args.reference is not None:
        reference = reference_group(
            sensitive, args.reference, sizes=sizes, min_group_size=args.min_group_size
        )
        if "reference" in accepted:
            options["reference"] = reference
        else:
            print(REFERENCE_IGNORED_NOTICE, file=sys.stderr)
    if args.score_type != "probability":  # "score_type" in accepted
        options["score_type"] = args.score_type
    if "progress" in accepted:
        options["progress"] = progress
    else:
        progress("metrics, intervals and tests")
    return options


def _groups(args, sensitive):
    """The shaped sensitive columns and their group sizes, checked.

    Raises ValueError with the CLI's message.
    """
    sensitive = shape_sensitive(
        sensitive,
        bins=args.bins,
        na_group=args.na_group,
        min_group_size=args.min_group_size,
    )
    sizes = group_sizes(sensitive)
    check_groups(sizes, " & ".join(map(str, sensitive.columns)), args.min_group_size)
    return sensitive, sizes


def _audit(args, parser, loaded, progress):
    """Shape the inputs, run :func:`skfair.report.audit`; errors in CLI words."""
    from skfair.report import audit
    from skfair.utils._group_encoding import ContinuousSensitiveError

    y_true, y_score, sensitive, X, source = loaded
    task = _check_task(args, parser, y_true, y_score)
    try:
        sensitive, sizes = _groups(args, sensitive)
        options = _audit_options(args, y_true, sensitive, sizes, progress, task)
    except ValueError as error:
        parser.error(str(error))
    say_size(args, sizes, " & ".join(map(str, sensitive.columns)))
    options.update(_weight_and_exclude(args, parser))
    try:
        report = audit(
            y_true,
            y_score,
            sensitive_features=sensitive,
            threshold=args.threshold,
            X=X,
            epsilon=args.epsilon,
            n_resamples=args.n_resamples,
            random_state=args.seed,
            title=f"Fairness audit — {source}",
            min_group_size=args.min_group_size,
            **options,
        )
    except ContinuousSensitiveError as error:  # a numeric column: name --bins
        parser.error(
            CONTINUOUS_ERROR.format(
                column=error.name, n_groups=error.n_groups, n_samples=error.n_samples
            )
        )
    except ValueError as error:
        parser.error(BAD_DATA_ERROR.format(source=source, message=error))
    if report.provenance is not None:
        report.provenance = dataclasses.replace(
            report.provenance, call=_command_text(args)
        )
    return report


def _weight_and_exclude(args, parser):
    """``sample_weight=`` (read from --weight COL) and ``exclude=`` for audit."""
    out = {}
    if getattr(args, "weight", None):
        if args.predictions is None:
            parser.error("argument --weight: needs --predictions FILE")
        try:
            frame = read_frame(
                args.predictions, file_kind(args.predictions), [args.weight]
            )
        except (OSError, ValueError, ImportError) as error:
            reason = str(error).splitlines()[0]
            parser.error(
                FILE_UNREADABLE_ERROR.format(path=args.predictions, reason=reason)
            )
        out["sample_weight"] = frame[args.weight].to_numpy()
    if getattr(args, "exclude", None):
        exclude = {}
        for item in args.exclude:
            label, _, reason = item.partition("=")
            exclude[label.strip()] = reason.strip() or "set aside with --exclude"
        out["exclude"] = exclude
    return out


def _command_text(args):
    """The command line as the options were read (``skfair audit --score p ...``)."""
    parts = ["skfair audit"]
    for key, value in vars(args).items():
        if key in ("command", "func") or value in (None, False, [], ()):
            continue
        flag = "--" + key.replace("_", "-")
        for v in value if isinstance(value, list) else [value]:
            parts.append(flag if v is True else f"{flag} {shlex.quote(str(v))}")
    return " ".join(parts)


def _render(report, fmt, progress):
    if fmt == "html":
        progress("figures")
        return report.to_html()
    if fmt == "markdown":
        return report.to_markdown()
    import json

    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def run(args, parser):
    """Run ``skfair audit``; return the exit status.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np, pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> rng = np.random.default_rng(0)
    >>> pd.DataFrame({"p": rng.random(200), "g": np.repeat(["a", "b"], 100)}
    ...              ).to_csv(os.path.join(folder, "p.csv"), index=False)
    >>> from skfair._cli import main
    >>> main(["audit", "--predictions", os.path.join(folder, "p.csv"),
    ...       "--score", "p", "--sensitive", "g", "--n-resamples", "19",
    ...       "--output", os.path.join(folder, "r.md")])
    0
    """
    if args.engine != "memory":  # the metrics inside DuckDB: skfair._cli._engine
        check_binary_ranges(args, parser)
        return run_engine(args, parser)
    fmt, kind = _check_arguments(args, parser)
    start = time.perf_counter()
    # loading, about 4 of the audit's own, (figures,) writing; more are counted
    phases = 6 + (fmt == "html")
    handled = {"small_groups"} if args.min_group_size is not None else set()
    warned = LiveWarnings("audit", handled=handled)
    with Progress("audit", phases) as progress, warned:
        progress("loading")
        if args.dataset is None:
            loaded = _load_predictions(args, kind, parser)
        else:
            loaded = demo_model(args, parser)
        report = _audit(args, parser, loaded, progress)
        text = _render(report, fmt, progress)
        progress("writing")
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    elapsed = time.perf_counter() - start
    print(
        f"skfair audit: wrote {args.output} ({report.n_samples:,} samples, "
        f"{report.n_resamples} resamples, {elapsed:.1f} s)",
        file=sys.stderr,
    )
    if fmt == "html" and report.engine != "dask" and not _has_matplotlib():
        print(f"skfair audit: {NO_MATPLOTLIB_NOTE}", file=sys.stderr)
    return 0


def _has_matplotlib():
    """Whether the figures can be drawn (the page says so too when not)."""
    return importlib.util.find_spec("matplotlib") is not None
