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
import inspect
import math
import os
import sys
import time

from skfair._cli import integer_type, unit_interval_type
from skfair._cli._datasets import (
    DATASETS,
    canonical_dataset,
    dataset_help,
    load_dataset,
)
from skfair._cli._feedback import LiveWarnings, Progress, say_line
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
from skfair._cli._render import check_output

NO_INPUT_ERROR = (
    "give either --predictions FILE (with --score and --sensitive) or --dataset NAME"
)
BOTH_INPUTS_ERROR = "--predictions and --dataset exclude each other"
NEEDS_COLUMNS_ERROR = "--predictions needs --score COL and --sensitive COL [COL ...]"
DATASET_COLUMNS_ERROR = "--score and --label apply to --predictions only"
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
DATASET_SENSITIVE_ERROR = (
    "argument --sensitive: {missing} not a sensitive attribute of {dataset!r}; "
    "choose from {available}"
)
BAD_DATA_ERROR = "{source}: {message}"
THRESHOLD_RANGE_ERROR = (
    "argument --threshold: must be in [0, 1] for probabilities; got {value!r} "
    "(pass --score-type logit or margin for a threshold in raw-score units)"
)
DATASET_SCORE_TYPE_ERROR = (
    "argument --score-type: --dataset audits the demonstration model's "
    "probabilities; --score-type logit or margin applies to --predictions"
)
REFERENCE_IGNORED_NOTICE = (
    "skfair audit: note: --reference is not supported by this version of "
    "skfair.report.audit; the report keeps its default reference group"
)
LONG_RUN_NOTE = (
    "skfair audit: note: {n_groups:,} groups of {name!r} make {pairs:,} pairs, "
    "each resampled {draws:,} times (bootstrap and permutations): this audit "
    "may take roughly {estimate}; --min-group-size K compares only the "
    "groups of at least K rows{hint}, and --n-resamples N ({n_resamples}) "
    "shortens it in proportion"
)
#: The audit's resamples without --n-resamples (up to 100 000 rows).
DEFAULT_RESAMPLES = 199
#: The estimate beyond which the note is said.
LONG_RUN_SECONDS = 60
#: The most groups the --min-group-size hint keeps (about 1 000 pairs).
HINT_GROUPS = 45
OUTPUT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json"}
OUTPUT_TYPE_ERROR = (
    "argument --output: {path!r} must end in .html (report), .md (Markdown) or "
    ".json (numbers only)"
)

HELP = "write a fairness report (HTML) of a model's scores"
DESCRIPTION = """\
Audit the fairness of a binary classifier's scores: per-group rates at the
decision threshold, the distribution metrics ΔDP, ABCC, ABPC and MCDP(ε) with
confidence intervals and p-values of "no disparity", where MCDP is attained,
and figures, written as one self-contained HTML page (or Markdown / JSON, by
the --output extension). Progress and warnings go to stderr.

Your own predictions:
  python -m skfair audit --predictions preds.csv --score proba \\
      --sensitive sex race --label income --output report.html

A continuous attribute is grouped with --bins, labels other than 0/1 name
their positive outcome with --pos-label, missing group labels become a group
with --na-group:
  python -m skfair audit --predictions preds.parquet --score proba \\
      --sensitive sex age --bins age=25,45,65 --label outcome \\
      --pos-label approved --na-group unknown --output report.html

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
        help="the column of scores in [0, 1] (or raw scores with --score-type)",
    )
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
        "--threshold",
        type=_real_type,
        default=0.5,
        metavar="T",
        help="decision threshold, decision = score >= T, in the scores' units "
        "(a logit with --score-type logit) (default: 0.5)",
    )
    group.add_argument(
        "--epsilon",
        type=unit_interval_type(open_ends=True),
        default=0.05,
        metavar="E",
        help="radius of the local MCDP(E) beside MCDP(0) (default: 0.05)",
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
    group.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="where to write the report: .html, .md or .json",
    )


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
    ('german_credit', [('age', 4)], 0.5, 'report.html')
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
    if args.score_type == "probability" and not 0.0 <= args.threshold <= 1.0:
        parser.error(THRESHOLD_RANGE_ERROR.format(value=args.threshold))
    if args.dataset is not None:
        if args.score is not None or args.label is not None:
            parser.error(DATASET_COLUMNS_ERROR)
        if args.score_type != "probability":
            parser.error(DATASET_SCORE_TYPE_ERROR)
        return fmt, None
    if args.score is None or not args.sensitive:
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
        ("--score", [args.score]),
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
    return fmt, kind


def _check_bins(args, parser, sensitive_columns):
    for column, _ in args.bins:
        if column not in sensitive_columns:
            parser.error(BINS_COLUMN_ERROR.format(column=column))


def _load_predictions(args, kind, parser):
    wanted = [args.score, *args.sensitive] + ([args.label] if args.label else [])
    wanted = list(dict.fromkeys(wanted))
    # group labels as written ("01" is not "1"); scores and labels as numbers
    text = [c for c in args.sensitive if c not in (args.score, args.label)]
    try:
        frame = read_frame(args.predictions, kind, wanted, text=text)
    except (OSError, ValueError, ImportError) as error:
        reason = str(error).splitlines()[0]
        parser.error(FILE_UNREADABLE_ERROR.format(path=args.predictions, reason=reason))
    try:
        y_score = numeric_scores(frame[args.score], args.score)
    except ValueError as error:
        parser.error(str(error))
    y_true = None if args.label is None else frame[args.label]
    return y_true, y_score, frame[args.sensitive], None, args.predictions


def _demo_model(args, parser):
    """A logistic regression on a bundled data set, scored on a held-out 30%."""
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    bunch = load_dataset(args.dataset)
    available = list(bunch.sensitive.columns)
    sensitive = args.sensitive or available
    missing = [c for c in sensitive if c not in available]
    if missing:
        parser.error(
            DATASET_SENSITIVE_ERROR.format(
                missing=missing, dataset=args.dataset, available=available
            )
        )
    _check_bins(args, parser, sensitive)
    features = bunch.data.drop(columns=available)
    X_train, X_test, y_train, y_test, _, s_test = train_test_split(
        features,
        bunch.target,
        bunch.sensitive[sensitive],
        test_size=0.3,
        stratify=bunch.target,
        random_state=args.seed,
    )
    encode = make_column_transformer(
        (StandardScaler(), make_column_selector(dtype_include="number")),
        (
            OneHotEncoder(
                handle_unknown="ignore", min_frequency=20, sparse_output=False
            ),
            make_column_selector(dtype_exclude="number"),
        ),
    )
    model = make_pipeline(encode, LogisticRegression(max_iter=1000))
    model.fit(X_train, y_train)
    y_score = model.predict_proba(X_test)[:, 1]
    X_encoded = model[0].transform(X_test)
    source = (
        f"{args.dataset}: logistic regression (without {', '.join(available)}) "
        f"fitted on {len(X_train):,} rows, audited on {len(X_test):,} held-out rows"
    )
    return (
        y_test.reset_index(drop=True),
        y_score,
        s_test.reset_index(drop=True),
        X_encoded,
        source,
    )


def _audit_options(args, y_true, sensitive, sizes, progress):
    """The keyword arguments of ``audit`` that the options decide.

    ``progress=`` and ``reference=`` are passed only to an ``audit`` that
    takes them.
    """
    from skfair.report import audit

    accepted = inspect.signature(audit).parameters
    options = {"pos_label": None}
    if y_true is not None:
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


def _say_size(args, sizes, name):
    """Say up front when the number of pairs of groups makes a long audit.

    The estimate is the library's (:func:`skfair.report.resampling_estimate`);
    above ``MAX_RESAMPLING_SECONDS`` the audit refuses with its own message,
    so nothing is said here.
    """
    from skfair.report import MAX_RESAMPLING_SECONDS, resampling_estimate

    k = args.min_group_size or 1
    kept = [size for size in sizes.values() if size >= k]
    n_groups, n_rows = len(kept), sum(kept)
    pairs = n_groups * (n_groups - 1) // 2
    seconds = resampling_estimate(n_rows, n_groups, args.n_resamples)
    if seconds < LONG_RUN_SECONDS or seconds > MAX_RESAMPLING_SECONDS:
        return
    draws = 2 * (args.n_resamples or DEFAULT_RESAMPLES)  # bootstrap, permutations
    estimate = (
        f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.0f} h"
    )
    say_line(
        LONG_RUN_NOTE.format(
            n_groups=n_groups,
            name=name,
            pairs=pairs,
            draws=draws,
            estimate=estimate,
            hint=_min_group_size_hint(sizes, k),
            n_resamples=f"now {args.n_resamples}"
            if args.n_resamples
            else f"default {DEFAULT_RESAMPLES}, fewer above 100 000 rows",
        )
    )


def _min_group_size_hint(sizes, k):
    """``--min-group-size K`` that keeps at least 2 and at most 45 groups, said."""
    for size in sorted(set(sizes.values())):
        kept = sum(s >= size for s in sizes.values())
        if size > k and 2 <= kept <= HINT_GROUPS:
            return f" (here --min-group-size {size} keeps {kept} groups)"
    return ""


def _audit(args, parser, loaded, progress):
    """Shape the inputs, run :func:`skfair.report.audit`; errors in CLI words."""
    from skfair.report import audit
    from skfair.utils import ContinuousSensitiveError

    y_true, y_score, sensitive, X, source = loaded
    try:
        sensitive, sizes = _groups(args, sensitive)
        options = _audit_options(args, y_true, sensitive, sizes, progress)
    except ValueError as error:
        parser.error(str(error))
    _say_size(args, sizes, " & ".join(map(str, sensitive.columns)))
    try:
        return audit(
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
            loaded = _demo_model(args, parser)
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
    return 0
