"""``skfair audit --engine duckdb``: the metrics computed where the predictions are.

``--predictions`` is then a Parquet or CSV path or glob
(``"preds/*.parquet"``), opened lazily with DuckDB
(:func:`skfair.metrics._lazy.scan_files`): every metric runs as group-by
aggregations inside DuckDB, which streams files larger than memory, and only
aggregates reach Python. Computed: the groups' sizes, their selection rates
at ``--threshold`` (and with ``--label`` their TPR and FPR), fairlearn's
demographic parity difference and ratio (and equalized odds difference and
ratio), and the distribution metrics MCDP(0), MCDP(``--epsilon``), ABCC,
ΔDP_c and ΔDP at the threshold: the in-memory values (bit-equal; ABCC and
ΔDP_c to rounding). The confidence intervals, tests and figures of the HTML
report need every score in memory: this mode writes the numbers, as JSON
(``.json``) or Markdown (``.md``), and prints the Markdown.
"""

from __future__ import annotations

import json
import os
import sys
import time

ENGINES = ("memory", "duckdb")
ENGINE_HELP = (
    "where the metrics run: memory (the full report) or duckdb (--predictions "
    "may be a glob of Parquet or CSV files larger than memory; the metrics and "
    "per-group rates are computed inside DuckDB and written as .json or .md, "
    "without intervals or figures) (default: memory)"
)
ENGINE_OUTPUT_ERROR = (
    "argument --output: --engine duckdb writes the numbers as .json or .md (the "
    "HTML report's intervals and figures need the scores in memory: leave "
    "--engine out for it); got {path!r}"
)
ENGINE_INPUT_ERROR = (
    "--engine duckdb needs --predictions FILE|GLOB, --score COL and "
    "--sensitive COL [COL ...] (not --dataset)"
)
ENGINE_OPTION_ERROR = (
    "argument {option}: not available with --engine duckdb, which audits one "
    "column of a binary classifier's probabilities by the sensitive columns "
    "as they are; leave it out, or leave --engine out"
)
ENGINE_READ_ERROR = "argument --predictions: {message}"
ENGINE_COLUMN_ERROR = (
    "argument {option}: column(s) {missing} not in {path!r}; its columns are {columns}"
)
# the decision column added inside the engine (not a user's column name), and
# its copy standing for the labels without --label (selection rates ignore it)
PRED = "__skfair_decision"
NO_LABEL = "__skfair_no_label"


def add_engine_argument(group):
    """Add ``--engine`` to the argument ``group``."""
    group.add_argument("--engine", choices=ENGINES, default="memory", help=ENGINE_HELP)


def _check(args, parser):
    """The output format; every mode option the engine does not take refused."""
    fmt = {".json": "json", ".md": "markdown"}.get(
        os.path.splitext(args.output)[1].lower()
    )
    if fmt is None:
        parser.error(ENGINE_OUTPUT_ERROR.format(path=args.output))
    if args.predictions is None or args.dataset is not None:
        parser.error(ENGINE_INPUT_ERROR)
    if args.score is None or not args.sensitive:
        parser.error(ENGINE_INPUT_ERROR)
    for option, given in (
        ("--score-prefix", args.score_prefix is not None),
        ("--bins", bool(args.bins)),
        ("--na-group", args.na_group is not None),
        ("--reference", args.reference is not None),
        ("--task", args.task not in ("auto", "binary")),
        ("--score-type", args.score_type != "probability"),
        ("--n-resamples", args.n_resamples is not None),
    ):
        if given:
            parser.error(ENGINE_OPTION_ERROR.format(option=option))
    return fmt


def _scan(args, parser):
    """The DuckDB relation of ``--predictions``, its columns checked."""
    try:
        import duckdb

        from skfair.metrics._lazy import scan_files

        relation = scan_files(args.predictions)
        columns = list(relation.columns)
    except (OSError, ValueError, ImportError, duckdb.Error) as error:
        parser.error(ENGINE_READ_ERROR.format(message=str(error).splitlines()[0]))
    for option, wanted in (
        ("--score", [args.score]),
        ("--sensitive", args.sensitive),
        ("--label", [] if args.label is None else [args.label]),
    ):
        missing = [c for c in wanted if c not in columns]
        if missing:
            parser.error(
                ENGINE_COLUMN_ERROR.format(
                    option=option,
                    missing=missing,
                    path=args.predictions,
                    columns=columns[:20] + (["..."] if len(columns) > 20 else []),
                )
            )
    return relation


def _pos_label(text):
    """``--pos-label`` as the number it spells (the files' labels are typed)."""
    if text is None:
        return 1
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def engine_metrics(relation, args):
    """Every number of ``--engine duckdb``, computed in DuckDB (a dict).

    ``relation``: the predictions; ``args``: the parsed options
    (``score``, ``sensitive``, ``label``, ``pos_label``, ``threshold``,
    ``epsilon``, ``min_group_size``; ``"auto"`` is 0.5 and 0.05).
    """
    import narwhals.stable.v2 as nw

    from skfair.metrics import (
        abcc,
        delta_dp,
        demographic_parity_difference,
        demographic_parity_ratio,
        equalized_odds_difference,
        equalized_odds_ratio,
        mcdp,
    )
    from skfair.metrics._lazy import group_rates

    threshold = 0.5 if args.threshold == "auto" else args.threshold
    epsilon = 0.05 if args.epsilon == "auto" else args.epsilon
    common = {
        "sensitive_features": args.sensitive,
        "min_group_size": args.min_group_size,
    }
    decision = (nw.col(args.score) >= threshold).cast(nw.Int8)
    decided = nw.from_native(relation).with_columns(decision.alias(PRED))
    if args.label is None:
        decided = decided.with_columns(decision.alias(NO_LABEL))
    decided = nw.to_native(decided)
    truth = NO_LABEL if args.label is None else args.label
    rates = ["selection_rate"]
    rate_pairs = [demographic_parity_difference, demographic_parity_ratio]
    if args.label is not None:
        rates += ["true_positive_rate", "false_positive_rate"]
        rate_pairs += [equalized_odds_difference, equalized_odds_ratio]
    labelled = {**common, "pos_label": _pos_label(args.pos_label)}
    values, overall, labels = group_rates(rates, decided, truth, PRED, **labelled)
    metrics = {
        "mcdp(0)": mcdp(None, args.score, epsilon=0.0, data=relation, **common),
        f"mcdp({epsilon:g})": mcdp(
            None, args.score, epsilon=epsilon, data=relation, **common
        ),
        "abcc": abcc(None, args.score, data=relation, **common),
        "delta_dp": delta_dp(None, args.score, data=relation, **common),
        f"delta_dp@{threshold:g}": delta_dp(
            None, args.score, threshold=threshold, data=relation, **common
        ),
    }
    for metric in rate_pairs:
        metrics[metric.__name__] = metric(truth, PRED, data=decided, **labelled)
    return {
        "threshold": threshold,
        "epsilon": epsilon,
        "metrics": metrics,
        "groups": _group_rows(labels, values, rates, relation, args),
        "overall": dict(zip(rates, overall.tolist())),
    }


def _group_rows(labels, values, rates, relation, args):
    from skfair.metrics._lazy import group_sizes

    ((_, sized, n, _, _),) = group_sizes(
        relation,
        sensitive_features=args.sensitive,
        min_group_size=args.min_group_size,
    )
    sizes = dict(zip(sized, n.tolist()))
    rows = []
    for label, row in zip(labels, values.tolist()):
        shown = " & ".join(map(str, label)) if isinstance(label, tuple) else str(label)
        rows.append({"group": shown, "n": int(sizes[label]), **dict(zip(rates, row))})
    return rows


def _json(result):
    """``result`` as JSON, an undefined rate (NaN) as null."""

    def defined(value):
        if isinstance(value, dict):
            return {key: defined(v) for key, v in value.items()}
        if isinstance(value, list):
            return [defined(v) for v in value]
        return None if isinstance(value, float) and value != value else value

    return json.dumps(defined(result), indent=2, allow_nan=False) + "\n"


def to_markdown(result):
    """The numbers of :func:`engine_metrics` as two Markdown tables."""
    lines = [
        f"# Fairness metrics of {result['predictions']} (computed in DuckDB)",
        "",
        f"{result['n_samples']:,} samples; groups: {result['grouping']}; "
        f"decision: score >= {result['threshold']:g}.",
        "",
        "| metric | value |",
        "|---|---|",
    ]
    lines += [f"| {name} | {value:.6g} |" for name, value in result["metrics"].items()]
    rates = list(result["overall"])
    lines += ["", "| group | n | " + " | ".join(rates) + " |"]
    lines.append("|---" * (len(rates) + 2) + "|")
    for row in result["groups"]:
        cells = [f"{row[r]:.6g}" for r in rates]
        lines.append(f"| {row['group']} | {row['n']:,} | " + " | ".join(cells) + " |")
    overall = [f"{result['overall'][r]:.6g}" for r in rates]
    lines.append(f"| overall | {result['n_samples']:,} | " + " | ".join(overall) + " |")
    return "\n".join(lines) + "\n"


def run_engine(args, parser):
    """Run ``skfair audit --engine duckdb``; return the exit status.

    Examples
    --------
    >>> import os, tempfile
    >>> import duckdb
    >>> from skfair._cli import main
    >>> folder = tempfile.mkdtemp()
    >>> duckdb.sql("SELECT (range % 97) / 97 AS p, range % 2 AS g, "
    ...            "range % 3 = 0 AS y FROM range(200)").write_parquet(
    ...     os.path.join(folder, "part-0.parquet"))
    >>> main(["audit", "--engine", "duckdb", "--predictions",
    ...       os.path.join(folder, "*.parquet"), "--score", "p",
    ...       "--sensitive", "g", "--label", "y", "--pos-label", "true",
    ...       "--output", os.path.join(folder, "m.json")])  # doctest: +ELLIPSIS
    # Fairness metrics of ...
    0
    """
    from skfair._cli._feedback import LiveWarnings
    from skfair._cli._render import check_output

    fmt = _check(args, parser)
    check_output(args.output, parser)
    start = time.perf_counter()
    relation = _scan(args, parser)
    handled = {"small_groups"} if args.min_group_size is not None else set()
    with LiveWarnings("audit", handled=handled):
        try:
            result = engine_metrics(relation, args)
        except ValueError as error:
            parser.error(f"{args.predictions}: {error}")
    n_samples = int(relation.count("*").fetchall()[0][0])
    result = {
        "engine": "duckdb",
        "predictions": args.predictions,
        "grouping": " & ".join(args.sensitive),
        "n_samples": n_samples,
        **result,
    }
    markdown = to_markdown(result)
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(markdown if fmt == "markdown" else _json(result))
    print(markdown, end="")
    print(
        f"skfair audit: wrote {args.output} ({n_samples:,} samples in DuckDB, "
        f"{time.perf_counter() - start:.1f} s)",
        file=sys.stderr,
    )
    return 0
