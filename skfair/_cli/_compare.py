"""``skfair compare``: the HFM paper's comparison table on a bundled data set."""

from __future__ import annotations

import argparse
import json
import sys
from inspect import signature

import numpy as np
import pandas as pd

from skfair._cli._datasets import (
    HFM_DATASETS,
    canonical_dataset,
    dataset_help,
    dataset_title,
    load_dataset,
)
from skfair._cli._feedback import Progress, caught_warnings, say_warnings
from skfair._cli._render import (
    check_output,
    format_cell,
    markdown,
    mean_std,
    write_report,
)
from skfair._cli._types import integer_type, unit_interval_type
from skfair.utils import SMALL_GROUP_SIZE

#: The data sets it runs on: those of the HFM paper (canonical names).
DATASETS = HFM_DATASETS
FORMATS = ("markdown", "csv", "json")
#: Command-line names of the learners (``--learners``).
LEARNERS = {
    "bagging": "Bagging",
    "adaboost": "AdaBoost",
    "lightgbm": "LightGBM",
    "fairgbm-fpr": "FairGBM (FPR)",
    "fairgbm-fnr": "FairGBM (FNR)",
    "fairgbm-fpr-fnr": "FairGBM (FPR,FNR)",
    "adafair": "AdaFair",
}
#: What ``--paper-protocol`` sets, unless given explicitly.
PAPER_PROTOCOL = {
    "fair_groups": "per-attribute",
    "dr": "joint",
    "dr_unscaled": True,
    "train_scores": True,
}
DEFAULTS = {
    "fair_groups": "intersection",
    "dr": "attribute",
    "dr_unscaled": False,
    "train_scores": False,
}

#: The table's metric columns: (metric key, column title).
TABLE_COLUMNS = (
    ("accuracy", "accuracy"),
    ("f1", "f1"),
    ("dp", "DP"),
    ("eo", "EO"),
    ("pqp", "PQP"),
    ("dr", "DR"),
    ("df_prev", "df_prev"),
    ("df", "df"),
    ("df_avg", "df_avg"),
)

FAIRGBM_MISSING_NOTICE = (
    "skfair compare: fairgbm cannot be imported on this platform; "
    "skipping the FairGBM rows"
)
CV_CLASS_ERROR = (
    "argument --cv: {dataset}'s smallest class has {smallest} samples; "
    "use at most {smallest} folds"
)
CV_GROUP_ERROR = (
    "argument --cv: with {cv} folds, test fold {fold} holds only "
    "{which} {attribute} samples; use fewer folds"
)

HELP = "reproduce the HFM paper's comparison table on a bundled data set"
DESCRIPTION = """\
Reproduce the HFM paper's comparison of ensemble learners on a bundled data
set: Bagging, AdaBoost and LightGBM, FairGBM with FPR, FNR and FPR,FNR
constraints and AdaFair (7 members each by default, other parameters at the
libraries' defaults), evaluated by seeded stratified k-fold cross-validation.

Features follow the paper's preprocessing (the loaders' preprocessing="hfm"):
each sensitive attribute becomes a 0/1 column (1 = privileged group), numeric
columns are min-max scaled to [0, 1] and the others one-hot encoded, with the
scaling and categories fitted on each training fold only.

How the fair learners see the groups (--fair-groups): FairGBM's constraint
groups and AdaFair's protected group are the intersection of the selected
sensitive attributes (default), or each attribute on its own, with one fit
per attribute whose row reports that attribute (the paper).

For each sensitive attribute (or the one given with --sensitive) the table
has the paper's Table 2 columns, as mean ± sample standard deviation over the
folds: accuracy, f1 (of the positive label 1), DP, EO and PQP (gaps in
positive rate, true-positive rate and precision between the privileged group
and the rest), DR and the HFM degrees df_prev, df and df_avg (exact distances
on the fold's encoded non-sensitive features). DR (discriminative risk) is the
share of predictions that change when the sensitive values are disturbed,
each with probability --dr-ratio: the row's attribute only (--dr attribute,
default) or every sensitive attribute jointly (--dr joint, the paper).

All values are fractions: the paper prints accuracy and f1 as percentages
(78 where this prints 0.78). For every fairness column lower is fairer. A
metric undefined on some folds (e.g. PQP when a group gets no positive
prediction) is averaged over the others, shown as "(k/n)"; "n/a" means
undefined on every fold. Rows identical on every fold (e.g. FairGBM (FNR)
and LightGBM when the constraint never binds) are named in a footnote.

--paper-protocol follows the paper's reference code: fair learners fitted per
attribute, DR disturbing all attributes jointly and predicting the disturbed
samples on features left unscaled (a flaw of that code, which inflates DR:
reproduced to match Table 2, not a measurement), and training-fold rows
(the paper's accuracy and f1 are training-fold values). Options given
explicitly override it.
"""


def _n_jobs(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"must be a non-zero integer (-1 for all cores); got {text!r}"
        )
    return value


def _learners(text):
    names = [name.strip().lower() for name in text.split(",")]
    unknown = [name for name in names if name not in LEARNERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown learner(s) {', '.join(unknown)}; "
            f"choose from {', '.join(LEARNERS)}"
        )
    return [LEARNERS[name] for name in names]


def _integer(minimum, *, default, metavar):
    """The ``add_argument`` keywords of an integer option ``>= minimum``."""
    return {"type": integer_type(minimum), "default": default, "metavar": metavar}


def add_arguments(parser):
    """Add the ``compare`` subcommand's arguments to its ``parser``.

    Examples
    --------
    >>> from skfair._cli import build_parser
    >>> args = build_parser().parse_args(["compare", "--dataset", "income"])
    >>> args.dataset, args.cv, args.learners
    ('adult', 5, None)
    """
    _add_data_arguments(parser)
    _add_protocol_arguments(parser)
    _add_output_arguments(parser)


def _add_data_arguments(parser):
    group = parser.add_argument_group("data and learners")
    group.add_argument(
        "--dataset",
        required=True,
        type=canonical_dataset,
        choices=DATASETS,
        metavar="NAME",
        help=dataset_help(DATASETS, "the data set (required)"),
    )
    group.add_argument(
        "--sensitive",
        metavar="ATTR",
        help="report on this sensitive attribute only (and constrain the fair "
        "learners on it); default: every sensitive attribute of the data set "
        "(ricci: race; german_credit: sex, age; the others: race, sex)",
    )
    group.add_argument(
        "--learners",
        type=_learners,
        metavar="NAMES",
        help="comma-separated learners to compare (default: all): "
        + ", ".join(LEARNERS),
    )
    group.add_argument(
        "--n-estimators",
        **_integer(1, default=7, metavar="N"),
        help="members of every ensemble (default: 7, the paper's)",
    )


def _add_protocol_arguments(parser):
    group = parser.add_argument_group("protocol")
    group.add_argument(
        "--cv",
        **_integer(2, default=5, metavar="K"),
        help="number of stratified cross-validation folds (default: 5)",
    )
    group.add_argument(
        "--n-jobs",
        type=_n_jobs,
        default=None,
        metavar="N",
        help="folds fitted in parallel; -1 uses every core (default: 1)",
    )
    group.add_argument(
        "--seed",
        type=integer_type(0, 2**32 - 1),
        default=0,
        help="seeds the fold shuffling, the learners and discriminative "
        "risk (default: 0)",
    )
    group.add_argument(
        "--paper-protocol",
        action="store_true",
        help="the paper's reference protocol: --fair-groups per-attribute "
        "--dr joint --dr-unscaled --train-scores (see above)",
    )
    for flag, choices, meaning in (
        (
            "--fair-groups",
            ("intersection", "per-attribute"),
            "the groups FairGBM and AdaFair are constrained on: the intersection "
            "of the attributes (default) or each attribute, fitted once per "
            "attribute (the paper)",
        ),
        (
            "--dr",
            ("attribute", "joint"),
            "what DR disturbs: the row's attribute (default) or all sensitive "
            "attributes jointly (the paper)",
        ),
    ):
        group.add_argument(flag, choices=choices, help=meaning)
    group.add_argument(
        "--dr-ratio",
        type=unit_interval_type(),
        metavar="R",
        help="probability that DR disturbs a sensitive value (default: 0.97, "
        "the reference code's)",
    )
    group.add_argument(
        "--dr-unscaled",
        action=argparse.BooleanOptionalAction,
        help="predict the disturbed samples on unscaled features: reproduces "
        "a flaw of the paper's reference code that inflates DR (default: no)",
    )


def _add_output_arguments(parser):
    group = parser.add_argument_group("output")
    group.add_argument(
        "--train-scores",
        action=argparse.BooleanOptionalAction,
        help="also report every metric on the training folds (default: no)",
    )
    group.add_argument(
        "--format",
        choices=FORMATS,
        default="markdown",
        help="markdown table with 'mean ± std' cells, CSV with <metric>_mean "
        "and <metric>_std columns, or JSON (default: markdown)",
    )
    group.add_argument(
        "--output",
        metavar="FILE",
        help="write the report to FILE instead of standard output (checked "
        "before any work)",
    )


def _options(args):
    """The protocol options: explicit, else --paper-protocol's, else defaults."""
    preset = PAPER_PROTOCOL if args.paper_protocol else DEFAULTS
    return {
        key: preset[key] if getattr(args, key) is None else getattr(args, key)
        for key in DEFAULTS
    }


def _check_folds(args, parser, bunch, attributes):
    """Exit with status 2 unless every test fold holds both groups and classes."""
    from sklearn.model_selection import StratifiedKFold

    y = np.asarray(bunch.target)
    smallest = int(np.unique(y, return_counts=True)[1].min())
    if args.cv > smallest:
        parser.error(CV_CLASS_ERROR.format(dataset=args.dataset, smallest=smallest))
    cv = StratifiedKFold(args.cv, shuffle=True, random_state=args.seed)
    splits, smallest = list(cv.split(bunch.data, y)), (np.inf, None)
    for fold, (_, test) in enumerate(splits, start=1):
        for attribute in attributes:
            is_privileged = (
                bunch.data[attribute].iloc[test] == bunch.privileged[attribute]
            )
            size = min(is_privileged.sum(), (~is_privileged).sum())
            smallest = min(smallest, (int(size), attribute))
            if size == 0:
                which = "privileged" if is_privileged.all() else "non-privileged"
                parser.error(
                    CV_GROUP_ERROR.format(
                        cv=args.cv, fold=fold, which=which, attribute=attribute
                    )
                )
    return splits, smallest


def _fairgbm_available():
    try:
        import fairgbm  # noqa: F401
    except ImportError:
        return False
    return True


def _runs(names, attributes, fair_groups):
    """(learner names, fairness attributes, reported attributes) per fit."""
    plain = [name for name in names if not name.startswith(("FairGBM", "AdaFair"))]
    fair = [name for name in names if name not in plain]
    runs = [(plain, attributes, attributes)] if plain else []
    if fair and fair_groups == "per-attribute":
        runs += [(fair, [a], [a]) for a in attributes]
    elif fair:
        runs.append((fair, attributes, attributes))
    return runs


def _evaluate(args, bunch, attributes, splits, options, names):
    """Cross-validate; return {(learner, attribute, folds): {metric: values}}."""
    from skfair.model_selection import (
        compare_estimators,
        hfm_paper_learners,
        hfm_paper_scoring,
    )

    all_attributes = list(bunch.sensitive.columns)
    results = {}
    for learners, fairness, reported in _runs(
        names, attributes, options["fair_groups"]
    ):
        estimators = hfm_paper_learners(
            all_attributes,
            privileged=bunch.privileged,
            fairness_attributes=fairness,
            learners=learners,
            n_estimators=args.n_estimators,
            random_state=args.seed,
        )
        scoring = hfm_paper_scoring(
            reported,
            privileged=bunch.privileged,
            pos_label=1,
            dr=options["dr"],
            dr_ratio=args.dr_ratio,
            dr_unscaled=options["dr_unscaled"],
            random_state=args.seed,
        )
        if reported != attributes:  # one fit per attribute: say which
            estimators = {f"{k} [{reported[0]}]": v for k, v in estimators.items()}
        _, folds = compare_estimators(
            estimators,
            bunch.data,
            np.asarray(bunch.target),
            sensitive=reported,
            cv=splits,
            scoring=scoring,
            n_jobs=args.n_jobs,
            return_folds=True,
            return_train_score=options["train_scores"],
        )
        for (name, metric), group in folds.groupby(["estimator", "metric"], sort=False):
            learner = name.split(" [")[0]
            split = "train" if metric.startswith("train_") else "test"
            key, _, attribute = metric.removeprefix("train_").partition("[")
            for a in [attribute[:-1]] if attribute else reported:
                results.setdefault((learner, a, split), {})[key] = group[
                    "value"
                ].to_numpy()
    return results


def _rows(results, names, attributes, splits):
    rows = []
    for learner in names:
        for attribute in attributes:
            for split in splits:
                values = results[(learner, attribute, split)]
                row = {"learner": learner, "attribute": attribute, "folds": split}
                for key, title in TABLE_COLUMNS:
                    row[title] = values[key]
                rows.append(row)
    return rows


#: Unconstrained counterpart of each fair learner, for the footnotes.
COUNTERPARTS = {"FairGBM": "LightGBM", "AdaFair": "AdaBoost"}


def _footnotes(rows):
    """Name the rows whose values equal an earlier row's on every fold."""
    notes, seen = [], {}
    for row in rows:
        values = np.concatenate([row[title] for _, title in TABLE_COLUMNS])
        key = (row["attribute"], row["folds"])
        for earlier, earlier_values in seen.get(key, []):
            if np.array_equal(values, earlier_values, equal_nan=True):
                note = (
                    f"{row['learner']} equals {earlier} on every {row['folds']} "
                    f"fold for {row['attribute']}"
                )
                if COUNTERPARTS.get(row["learner"].split(" ")[0]) == earlier:
                    note += ": its fairness constraint never changes the model here"
                notes.append(note)
                break
        seen.setdefault(key, []).append((row["learner"], values))
    return notes


def _header(args, bunch, attributes, n_encoded, options):
    described = ", ".join(
        f"{a} (privileged {bunch.privileged[a]!r}, "
        f"{int((bunch.data[a] == bunch.privileged[a]).sum())} samples)"
        for a in attributes
    )
    all_attributes = list(bunch.sensitive.columns)
    fair = (
        "each attribute on its own, one fit per attribute (the paper)"
        if options["fair_groups"] == "per-attribute" and len(attributes) > 1
        else f"the intersection of {', '.join(attributes)}"
    )
    disturbed = (
        f"all of {', '.join(all_attributes)} jointly (the paper)"
        if options["dr"] == "joint"
        else "the row's attribute"
    )
    from skfair.metrics import discriminative_risk

    ratio = args.dr_ratio
    if ratio is None:  # discriminative_risk's own default
        ratio = signature(discriminative_risk).parameters["ratio"].default
    flaw = (
        "; disturbed samples predicted on unscaled features (reproduces a "
        "flaw of the paper's reference code)"
        if options["dr_unscaled"]
        else ""
    )
    folds = "test and training folds" if options["train_scores"] else "test folds"
    return [
        f"HFM paper comparison on {dataset_title(args.dataset)}: "
        f"n = {bunch.data.shape[0]} samples, {n_encoded} encoded features",
        f"sensitive attributes: {described}",
        f"{args.cv}-fold stratified cross-validation, seed {args.seed}, "
        f"{args.n_estimators} members per ensemble; mean ± std over {folds}",
        f"fair learners constrained on: {fair}",
        f"DR disturbs {disturbed}, each value with probability {ratio}{flaw}",
        "values are fractions (the paper prints accuracy and f1 as "
        "percentages); lower is fairer for every fairness column",
    ]


def _render(args, header, rows, notes):
    cells = pd.DataFrame(
        [
            {
                **{k: row[k] for k in ("learner", "attribute", "folds")},
                **{title: mean_std(row[title]) for _, title in TABLE_COLUMNS},
            }
            for row in rows
        ]
    )
    if args.format == "markdown":
        table = cells.copy()
        for _, title in TABLE_COLUMNS:
            table[title] = [format_cell(*cell, args.cv) for cell in table[title]]
        lines = header + ["", markdown(table, n_left=3)]
        lines += [""] + [f"note: {note}" for note in notes] if notes else []
        return "\n".join(lines) + "\n"
    numeric = cells[["learner", "attribute", "folds"]].copy()
    for _, title in TABLE_COLUMNS:
        numeric[f"{title}_mean"] = [cell[0] for cell in cells[title]]
        numeric[f"{title}_std"] = [cell[1] for cell in cells[title]]
        numeric[f"{title}_n_folds"] = [cell[2] for cell in cells[title]]
    if args.format == "csv":
        comments = [f"# {line}" for line in header + [f"note: {n}" for n in notes]]
        return "\n".join(comments) + "\n" + numeric.to_csv(index=False)
    records = numeric.astype(object).where(numeric.notna(), None).to_dict("records")
    report = {"header": header, "notes": notes, "rows": records}
    return json.dumps(report, indent=1, allow_nan=False) + "\n"


def _attributes(args, parser, bunch):
    """The reported sensitive attributes: --sensitive's, else all of them."""
    all_attributes = list(bunch.sensitive.columns)
    if args.sensitive is None:
        return all_attributes
    if args.sensitive not in all_attributes:
        parser.error(
            f"argument --sensitive: {args.sensitive!r} is not a sensitive "
            f"attribute of {args.dataset}; choose from {', '.join(all_attributes)}"
        )
    return [args.sensitive]


def _learner_names(args, parser):
    from skfair.model_selection._hfm_paper import LEARNER_NAMES

    names = [n for n in LEARNER_NAMES if n in (args.learners or LEARNER_NAMES)]
    if any(n.startswith("FairGBM") for n in names) and not _fairgbm_available():
        print(FAIRGBM_MISSING_NOTICE, file=sys.stderr)
        names = [n for n in names if not n.startswith("FairGBM")]
    if not names:
        parser.error("argument --learners: no learner left to compare")
    return names


def run(args, parser):
    """Run ``skfair compare``; write the report to ``--output`` or standard output.

    ``--output`` is checked first, and the argument errors found after loading
    the data exit with status 2 before any model is trained. Progress goes to
    stderr (a line per phase, and :func:`compare_estimators`' own bar or
    lines), and so do warnings, one line each. Returns 0.
    """
    from skfair.model_selection import make_hfm_encoder

    check_output(args.output, parser)
    progress = Progress("compare", 2, bar=False)
    with caught_warnings() as caught:
        bunch = load_dataset(args.dataset, preprocessing="hfm")
        attributes = _attributes(args, parser, bunch)
        splits, smallest = _check_folds(args, parser, bunch, attributes)
        options = _options(args)
        names = _learner_names(args, parser)
        all_attributes = list(bunch.sensitive.columns)
        encoder = make_hfm_encoder(all_attributes, privileged=bunch.privileged)
        n_encoded = encoder.fit_transform(bunch.data).shape[1]
        progress(
            f"cross-validating {len(names)} learner(s) on {dataset_title(args.dataset)}"
            f", {args.cv} folds"
        )
        results = _evaluate(args, bunch, attributes, splits, options, names)
        progress("writing")
        folds = ["test", "train"] if options["train_scores"] else ["test"]
        rows = _rows(results, names, attributes, folds)
        header = _header(args, bunch, attributes, n_encoded, options)
        if smallest[0] < SMALL_GROUP_SIZE:
            header.append(
                f"small groups: a test fold holds only {smallest[0]} samples of one "
                f"{smallest[1]} group; gaps and HFM degrees of groups under "
                f"{SMALL_GROUP_SIZE} samples mostly measure sampling noise"
            )
        report = _render(args, header, rows, _footnotes(rows))
    progress.close()
    # small groups are said once, in the header, not for every fold and metric
    say_warnings("compare", caught, handled={"small_groups"})
    write_report(report, args.output, "compare")
    return 0
