"""``skfair audit``: a fairness report of one model's scores.

Audits a predictions file (CSV or Parquet: one row per sample with a score
column, the sensitive column(s) and optionally the true label), or, with
``--dataset``, a default model on a bundled data set (a demonstration).
Argument errors (a missing file or column, a bad threshold, an unwritable
output) stop with a one-line message and exit status 2 before any work.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pandas as pd

from skfair._cli import integer_type, unit_interval_type
from skfair._cli._render import check_output

_PANDAS_PARSES_EXACTLY = tuple(map(int, pd.__version__.split(".")[:2])) >= (3, 1)

DATASETS = ("adult", "bank", "compas", "german_credit", "ricci")
READERS = {".csv": "csv", ".gz": "csv", ".parquet": "parquet", ".pq": "parquet"}

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
DATASET_SENSITIVE_ERROR = (
    "argument --sensitive: {missing} not a sensitive attribute of {dataset!r}; "
    "choose from {available}"
)
BAD_DATA_ERROR = "{source}: {message}"
OUTPUT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json"}
OUTPUT_TYPE_ERROR = (
    "argument --output: {path!r} must end in .html (report), .md (Markdown) or "
    ".json (numbers only)"
)

AUDIT_DESCRIPTION = """\
Audit the fairness of a binary classifier's scores: per-group rates at the
decision threshold, the distribution metrics ΔDP, ABCC, ABPC and MCDP(ε) with
bootstrap and distribution-free (DKW) confidence intervals and p-values of
"no disparity", where MCDP is attained, and four figures, written as one
self-contained HTML page (or Markdown / JSON, by the --output extension).

Your own predictions:
  python -m skfair audit --predictions preds.csv --score proba \\
      --sensitive sex race --label income --output report.html

A demonstration on bundled data (logistic regression fitted on 70% of the
data, without the sensitive columns, audited on the other 30%):
  python -m skfair audit --dataset adult --output report.html
"""


def add_parser(subparsers):
    """Add the ``audit`` subcommand to ``subparsers``; return its parser.

    Examples
    --------
    >>> from skfair._cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["audit", "--dataset", "ricci", "--output", "report.html"])
    >>> args.dataset, args.threshold, args.output
    ('ricci', 0.5, 'report.html')
    """
    parser = subparsers.add_parser(
        "audit",
        help="write a fairness report (HTML) of a model's scores",
        description=AUDIT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = parser.add_argument_group("what to audit")
    source.add_argument(
        "--predictions",
        metavar="FILE",
        help="a CSV or Parquet file with one row per sample",
    )
    source.add_argument("--score", metavar="COL", help="the column of scores in [0, 1]")
    source.add_argument(
        "--sensitive",
        metavar="COL",
        nargs="+",
        help="the sensitive column(s); several are compared by their intersections "
        "(with --dataset: a subset of the data set's sensitive attributes)",
    )
    source.add_argument(
        "--label", metavar="COL", help="the column of true 0/1 labels (optional)"
    )
    source.add_argument(
        "--dataset",
        choices=DATASETS,
        help="audit a default model (logistic regression) on this bundled data set",
    )
    options = parser.add_argument_group("options")
    for flag, metavar, default, open_ends, meaning in (
        ("--threshold", "T", 0.5, False, "decision threshold, decision = score >= T"),
        ("--epsilon", "E", 0.05, True, "radius of the local MCDP(E) beside MCDP(0)"),
    ):
        options.add_argument(
            flag,
            type=unit_interval_type(open_ends=open_ends),
            default=default,
            metavar=metavar,
            help=f"{meaning} (default: {default})",
        )
    for flag, metavar, meaning in (
        (
            "--n-resamples",
            "N",
            "bootstrap resamples and permutations "
            "(default: 199, fewer above 100 000 rows)",
        ),
        (
            "--min-group-size",
            "K",
            "leave out groups with fewer than K samples "
            "(default: keep every group and warn about groups of fewer than 30)",
        ),
    ):
        options.add_argument(flag, type=integer_type(1), metavar=metavar, help=meaning)
    options.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    options.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="where to write the report: .html, .md or .json",
    )
    return parser


def _reader(path, parser):
    suffix = os.path.splitext(path)[1].lower()
    kind = READERS.get(suffix)
    if kind is None or (suffix == ".gz" and not path.lower().endswith(".csv.gz")):
        parser.error(FILE_TYPE_ERROR.format(path=path))
    return kind


def _columns(path, kind, parser):
    """The file's column names, read without loading the data."""
    try:
        if kind == "csv":
            return list(pd.read_csv(path, nrows=0).columns)
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
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
    if args.dataset is not None:
        if args.score is not None or args.label is not None:
            parser.error(DATASET_COLUMNS_ERROR)
        return fmt, None
    if args.score is None or not args.sensitive:
        parser.error(NEEDS_COLUMNS_ERROR)
    if not os.path.isfile(args.predictions):
        parser.error(FILE_MISSING_ERROR.format(path=args.predictions))
    kind = _reader(args.predictions, parser)
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


def _load_predictions(args, kind):
    wanted = list(
        dict.fromkeys(
            [args.score, *args.sensitive] + ([args.label] if args.label else [])
        )
    )
    if kind == "csv":
        # pandas < 3.1 parses floats with a fast, inexact reader by default;
        # round_trip gives every score the exact float that was written
        exact = {} if _PANDAS_PARSES_EXACTLY else {"float_precision": "round_trip"}
        frame = pd.read_csv(args.predictions, usecols=wanted, **exact)
    else:
        frame = pd.read_parquet(args.predictions, columns=wanted)
    y_true = None if args.label is None else frame[args.label]
    return y_true, frame[args.score], frame[args.sensitive], None, args.predictions


def _demo_model(args, parser):
    """A logistic regression on a bundled data set, scored on a held-out 30%."""
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from skfair import datasets

    loader = getattr(datasets, f"load_{args.dataset}")
    bunch = loader()
    available = list(bunch.sensitive.columns)
    sensitive = args.sensitive or available
    missing = [c for c in sensitive if c not in available]
    if missing:
        parser.error(
            DATASET_SENSITIVE_ERROR.format(
                missing=missing, dataset=args.dataset, available=available
            )
        )
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
    from skfair.report import audit

    fmt, kind = _check_arguments(args, parser)
    start = time.perf_counter()
    if args.dataset is None:
        y_true, y_score, sensitive, X, source = _load_predictions(args, kind)
    else:
        y_true, y_score, sensitive, X, source = _demo_model(args, parser)
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
        )
    except ValueError as error:
        parser.error(BAD_DATA_ERROR.format(source=source, message=error))
    if fmt == "html":
        text = report.to_html()
    elif fmt == "markdown":
        text = report.to_markdown()
    else:
        import json

        text = json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(text)
    elapsed = time.perf_counter() - start
    print(
        f"skfair audit: wrote {args.output} ({report.n_samples:,} samples, "
        f"{report.n_resamples} resamples, {elapsed:.1f} s)",
        file=sys.stderr,
    )
    return 0
