"""The bundled data sets' names on the command line, one vocabulary for all.

Every subcommand names a data set by its loader (``adult`` for
:func:`~skfair.datasets.load_adult`, ...) and also accepts the HFM paper's
names (``income``, ``credit``, ``ppr``, ``ppvr``) as aliases, so that
``audit --dataset credit`` and ``compare --dataset german_credit`` both work.
``--help`` lists the canonical names only.
"""

from __future__ import annotations

from collections import namedtuple

from skfair._cli._groups import BINS_COLUMN_ERROR

Dataset = namedtuple("Dataset", "loader kwargs paper_name description")

#: Canonical name -> how to load it, its name in the HFM paper (None if it is
#: not in the paper's benchmark) and a description for ``--help``.
DATASETS = {
    "adult": Dataset("load_adult", {}, "income", "Adult census income"),
    "bank": Dataset("load_bank", {}, None, "bank marketing"),
    "compas": Dataset("load_compas", {}, "ppr", "COMPAS recidivism"),
    "compas_violent": Dataset(
        "load_compas", {"violent": True}, "ppvr", "COMPAS violent recidivism"
    ),
    "german_credit": Dataset("load_german_credit", {}, "credit", "German credit"),
    "ricci": Dataset("load_ricci", {}, "ricci", "Ricci v. DeStefano"),
}
#: Other accepted names (the HFM paper's) -> canonical name.
ALIASES = {
    data.paper_name: name
    for name, data in DATASETS.items()
    if data.paper_name not in (None, name)
}
#: The data sets of the HFM paper's benchmark (``compare``), canonical names.
HFM_DATASETS = tuple(name for name, data in DATASETS.items() if data.paper_name)


def canonical_dataset(text):
    """An argparse type: a data set's canonical name, aliases resolved.

    An unknown name is returned as given, for argparse's "invalid choice"
    error against the subcommand's ``choices``.

    Examples
    --------
    >>> canonical_dataset("credit"), canonical_dataset("Adult")
    ('german_credit', 'adult')
    """
    name = text.strip().lower()
    return ALIASES.get(name, name)


def dataset_help(names, what):
    """The ``--dataset`` help text: ``what``, each name described, the aliases."""
    listed = "; ".join(f"{n} ({DATASETS[n].description})" for n in names)
    aliases = ", ".join(
        f"{alias} = {name}" for alias, name in ALIASES.items() if name in names
    )
    return f"{what}: {listed} (the HFM paper's names are accepted too: {aliases})"


def load_dataset(name, *, preprocessing=None):
    """The bundled data set ``name`` (canonical) as its loader returns it.

    ``preprocessing="hfm"`` loads it as the HFM paper's benchmark does
    (:func:`skfair.datasets.load_hfm_dataset`).
    """
    from skfair import datasets

    if preprocessing == "hfm":
        return datasets.load_hfm_dataset(DATASETS[name].paper_name)
    data = DATASETS[name]
    return getattr(datasets, data.loader)(**data.kwargs)


def dataset_title(name):
    """``name``, with the HFM paper's name beside it when that differs."""
    paper = DATASETS[name].paper_name
    return name if paper in (None, name) else f"{name} (the paper's {paper})"


DATASET_SENSITIVE_ERROR = (
    "argument --sensitive: {missing} not a sensitive attribute of {dataset!r}; "
    "choose from {available}"
)


#: The demonstration model's features where the bundled file holds more: the
#: COMPAS file is ProPublica's raw table, whose case numbers, dates and
#: ``r_*``/``vr_*``/``is_recid``/``event`` columns record the outcome itself
#: (and hold missing values); the model takes ProPublica's features.
_COMPAS_FEATURES = (
    "age",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "c_charge_degree",
)
DEMO_FEATURES = {"compas": _COMPAS_FEATURES, "compas_violent": _COMPAS_FEATURES}


def demo_model(args, parser):
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
    for column, _ in args.bins:
        if column not in sensitive:
            parser.error(BINS_COLUMN_ERROR.format(column=column))
    features = bunch.data.drop(columns=available)
    if args.dataset in DEMO_FEATURES:  # the raw file also holds the outcome
        features = features[list(DEMO_FEATURES[args.dataset])]
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
