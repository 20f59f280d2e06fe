"""The HFM paper's comparison protocol: its feature encoding, learners and metrics.

Bian et al. (HFM, Appendix C) compare bagging, AdaBoost, LightGBM, FairGBM
and AdaFair under 5-fold cross-validation with features scaled to [0, 1], and
report accuracy, F1, three group gaps, discriminative risk and the three HFM
degrees per sensitive attribute (Table 2). Everything specific to reproducing
that comparison lives here: :func:`make_hfm_encoder` (the paper's features),
:func:`hfm_paper_learners` (its learners, as pipelines that encode on the
training fold only) and :func:`hfm_paper_scoring` (its Table 2 metrics). The
general harness is :func:`compare_estimators`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, OneHotEncoder

from skfair.metrics import HFMUndefinedWarning, discriminative_risk, hfm
from skfair.utils._dataframe import as_pandas_frame, column_names, non_numeric_columns
from skfair.utils._sensitive_spec import check_sensitive_spec, resolve_columns

from ._compare import _GapScoring

PRIVILEGED_KEYS_ERROR = (
    "privileged must map every sensitive column to its privileged label; "
    "missing {missing} (got keys {keys})."
)
FAIRNESS_ATTRIBUTES_ERROR = (
    "fairness_attributes {unknown} are not among the sensitive columns {sensitive}."
)
UNKNOWN_LEARNERS_ERROR = "unknown learner(s) {unknown}; choose from {names}."
NOT_A_PAPER_PIPELINE_ERROR = (
    "hfm_paper_scoring needs a fitted Pipeline whose first step is the "
    "'encode' step built by hfm_paper_learners (it computes the HFM distances "
    "on the encoded non-sensitive features); got {kind}."
)
DR_MODE_ERROR = "dr must be 'attribute' or 'joint'; got {dr!r}."

#: Names of the learners, in the HFM paper's order.
LEARNER_NAMES = (
    "Bagging",
    "AdaBoost",
    "LightGBM",
    "FairGBM (FPR)",
    "FairGBM (FNR)",
    "FairGBM (FPR,FNR)",
    "AdaFair",
)
#: The fairness-aware learners (constrained on the sensitive groups).
FAIR_LEARNER_NAMES = LEARNER_NAMES[3:]

#: Metric names of :func:`hfm_paper_scoring`, per sensitive attribute.
ATTRIBUTE_METRICS = ("dp", "eo", "pqp", "dr", "df_prev", "df", "df_avg")


def _check_privileged(columns, privileged):
    missing = [c for c in columns if c not in privileged]
    if missing:
        raise ValueError(
            PRIVILEGED_KEYS_ERROR.format(missing=missing, keys=list(privileged))
        )


def _privileged_indicator(X, *, privileged):
    """1.0 where a sensitive column holds its privileged label, else 0.0."""
    frame = as_pandas_frame(X)
    columns = [
        (frame.iloc[:, k] == label).to_numpy(dtype=np.float64)
        for k, label in enumerate(privileged)
    ]
    return np.column_stack(columns)


class _NonSensitiveColumns:
    """Column selector: the non-sensitive numeric (or non-numeric) columns.

    With ``numeric=None`` it selects the sensitive columns themselves.

    A picklable callable for :class:`~sklearn.compose.ColumnTransformer`, so
    that the column kinds are read from the training fold at fit time.
    """

    def __init__(self, sensitive, numeric):
        self.sensitive = sensitive
        self.numeric = numeric

    def __call__(self, X):
        # Resolving names a missing sensitive column, on every scikit-learn version.
        positions = resolve_columns(X, self.sensitive)[0] if self.sensitive else []
        if self.numeric is None:  # the sensitive columns themselves
            return list(self.sensitive)
        names = column_names(X)
        if names is not None:  # a DataFrame of any library
            other = {name for name, _ in non_numeric_columns(X)}
            kept = [c for c in names if c not in set(self.sensitive)]
            return [c for c in kept if (c not in other) == self.numeric]
        if not self.numeric:  # an array's columns are all numeric
            return []
        return [k for k in range(np.shape(X)[1]) if k not in positions]


def make_hfm_encoder(sensitive, *, privileged=None):
    """Build the HFM paper's feature encoding as a scikit-learn transformer.

    The numeric non-sensitive columns are min-max scaled to [0, 1] and the
    others one-hot encoded (categories unseen in ``fit`` are all zeros); the
    column kinds are read from the data at ``fit``. With ``privileged``, the
    output's first columns are one 0/1 indicator per sensitive column (1 =
    the privileged label), in the order of ``sensitive``: the paper's
    "processed" feature set (Table 1), e.g. 58 columns for credit, which its
    learners see. Without it the sensitive columns are dropped. Inside a
    pipeline the scaling and categories are learnt on the training fold only.

    Parameters
    ----------
    sensitive : str, int or list of str or int
        The sensitive column(s) of ``X`` (``[]`` for none), e.g.
        ``list(bunch.sensitive)`` for a loader's Bunch.
    privileged : dict or None, default=None
        The privileged label of every sensitive column (a loader's
        ``Bunch.privileged``): keep them as indicators. None drops them.

    Returns
    -------
    encoder : ColumnTransformer
        Unfitted, with steps ``"sensitive"``, ``"numeric"``
        (:class:`~sklearn.preprocessing.MinMaxScaler`) and ``"categorical"``
        (:class:`~sklearn.preprocessing.OneHotEncoder`); dense float64 output.

    Notes
    -----
    Fitted on a whole data set loaded with ``preprocessing="hfm"``, the
    encoder without ``privileged`` gives 5, 56, 96, 399 and 325 columns for
    ricci, credit, income, ppr and ppvr; with the 1, 2, 2, 2 and 2 sensitive
    indicators these are the paper's 6, 58, 98, 401 and 327 (Table 1), from
    the column choices of fairness-comparison that the loaders' ``"hfm"``
    mode follows. Missing values are not imputed: NaN stays NaN after scaling
    and is its own category in the one-hot encoding.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"sex": ["m", "f", "m"], "age": [20, 40, 30],
    ...                   "job": ["a", "b", "a"]})
    >>> make_hfm_encoder("sex", privileged={"sex": "m"}).fit_transform(X)
    array([[1. , 0. , 1. , 0. ],
           [0. , 1. , 0. , 1. ],
           [1. , 0.5, 1. , 0. ]])
    >>> make_hfm_encoder("sex").fit(X).get_feature_names_out().tolist()
    ['numeric__age', 'categorical__job_a', 'categorical__job_b']
    """
    empty = isinstance(sensitive, (list, tuple)) and not sensitive
    columns = [] if empty else check_sensitive_spec(sensitive)
    if privileged is None:
        kept = "drop"
    else:
        _check_privileged(columns, privileged)
        kept = FunctionTransformer(
            _privileged_indicator,
            kw_args={"privileged": [privileged[c] for c in columns]},
            feature_names_out="one-to-one",
        )
    onehot = OneHotEncoder(
        handle_unknown="ignore", sparse_output=False, dtype=np.float64
    )
    return ColumnTransformer(
        [
            ("sensitive", kept, _NonSensitiveColumns(columns, numeric=None)),
            ("numeric", MinMaxScaler(), _NonSensitiveColumns(columns, numeric=True)),
            ("categorical", onehot, _NonSensitiveColumns(columns, numeric=False)),
        ],
        remainder="drop",
        sparse_threshold=0.0,
    )


def hfm_paper_learners(
    sensitive,
    *,
    privileged,
    fairness_attributes=None,
    learners=None,
    n_estimators=7,
    random_state=None,
    n_jobs=1,
):
    """Build the learners of the HFM paper's comparison, as pipelines.

    Every learner is ``Pipeline([("encode", make_hfm_encoder(sensitive,
    privileged=privileged)), ("model", model)])``, so the scaling and one-hot
    categories are fitted on the training fold only, and every model sees
    the same features (the sensitive attributes as 0/1 privileged indicators
    included, as in the paper, so that discriminative risk is meaningful).

    Parameters
    ----------
    sensitive : str or list of str
        The sensitive column(s) of the data (all of them become features).
    privileged : dict
        The privileged label of every sensitive column (``Bunch.privileged``).
    fairness_attributes : str, list of str or None, default=None
        The sensitive columns whose intersection defines the groups of
        FairGBM's constraints and AdaFair's protected group (all groups but
        the all-privileged one); None means all of ``sensitive``. The paper
        fits the fair learners once per attribute: call once per attribute.
    learners : list of str or None, default=None
        The learners to build, among :data:`LEARNER_NAMES`; None builds all.
    n_estimators : int, default=7
        Ensemble size of every learner (the paper's setting for bagging,
        AdaBoost and LightGBM, used for FairGBM and AdaFair too so that the
        comparison is like for like).
    random_state : int or None, default=None
        Passed to every learner.
    n_jobs : int or None, default=1
        Threads of LightGBM/FairGBM; 1 suits :func:`compare_estimators`,
        which parallelises over folds.

    Returns
    -------
    learners : dict of str to Pipeline
        By name, in the order of :data:`LEARNER_NAMES`; LightGBM has
        ``verbose=-1``, other parameters are the libraries' defaults.

    See Also
    --------
    compare_estimators : Cross-validate them.
    hfm_paper_scoring : The paper's Table 2 metrics.

    Examples
    --------
    >>> learners = hfm_paper_learners(["sex", "age"],
    ...                               privileged={"sex": "male", "age": "adult"},
    ...                               random_state=0)
    >>> list(learners)  # doctest: +NORMALIZE_WHITESPACE
    ['Bagging', 'AdaBoost', 'LightGBM', 'FairGBM (FPR)', 'FairGBM (FNR)',
     'FairGBM (FPR,FNR)', 'AdaFair']
    >>> learners["AdaFair"].named_steps["model"].privileged
    (1, 1)
    """
    from lightgbm import LGBMClassifier

    # A sibling subpackage: imported here to keep model_selection's import
    # independent of the ensemble estimators.
    from skfair.ensemble import AdaFairClassifier, FairGBMClassifier

    columns = check_sensitive_spec(sensitive)
    targets = (
        columns
        if fairness_attributes is None
        else check_sensitive_spec(fairness_attributes)
    )
    unknown = [c for c in targets if c not in columns]
    if unknown:
        raise ValueError(
            FAIRNESS_ATTRIBUTES_ERROR.format(unknown=unknown, sensitive=columns)
        )
    names = LEARNER_NAMES if learners is None else list(learners)
    unknown = [name for name in names if name not in LEARNER_NAMES]
    if unknown:
        raise ValueError(
            UNKNOWN_LEARNERS_ERROR.format(unknown=unknown, names=list(LEARNER_NAMES))
        )
    # Positions of the fairness attributes among the encoder's first columns.
    positions = [columns.index(c) for c in targets]
    seeded = {"n_estimators": n_estimators, "random_state": random_state}
    fair = {"sensitive": positions, "sensitive_as_feature": True, **seeded}
    build = {
        "Bagging": lambda: BaggingClassifier(**seeded),
        "AdaBoost": lambda: AdaBoostClassifier(**seeded),
        "LightGBM": lambda: LGBMClassifier(**seeded, n_jobs=n_jobs, verbose=-1),
        "AdaFair": lambda: AdaFairClassifier(
            privileged=1 if len(positions) == 1 else (1,) * len(positions), **fair
        ),
    }
    for constraint in ("FPR", "FNR", "FPR,FNR"):
        build[f"FairGBM ({constraint})"] = lambda c=constraint: FairGBMClassifier(
            constraint_type=c, n_jobs=n_jobs, **fair
        )
    return {
        name: Pipeline(
            [
                ("encode", make_hfm_encoder(columns, privileged=privileged)),
                ("model", build[name]()),
            ]
        )
        for name in LEARNER_NAMES
        if name in names
    }


class _UnscaledAfterDisturbance:
    """A paper pipeline that predicts disturbed data on unscaled features.

    ``predict(X)`` on the very ``X`` given here is the pipeline's; on any
    other data (the disturbed copy made by
    :func:`~skfair.metrics.discriminative_risk`) the encoded numeric columns
    are mapped back to their original scale before the model predicts, as
    the HFM reference code does.
    """

    def __init__(self, pipeline, X):
        self.pipeline = pipeline
        self.X = X

    def predict(self, X):
        if X is self.X:
            return self.pipeline.predict(X)
        encoder = self.pipeline.named_steps["encode"]
        features = encoder.transform(X)
        numeric = encoder.output_indices_["numeric"]
        scaler = encoder.named_transformers_["numeric"]
        if features[:, numeric].shape[1]:
            features[:, numeric] = scaler.inverse_transform(features[:, numeric])
        return self.pipeline[1:].predict(features)


class hfm_paper_scoring(_GapScoring):
    """The metrics of the HFM paper's Table 2, as one scoring callable.

    ``hfm_paper_scoring(sensitive, privileged=...)(estimator, X, y)`` returns
    ``accuracy``, ``f1`` (of ``pos_label``) and, for every sensitive column
    ``a``: ``dp[a]``, ``eo[a]`` and ``pqp[a]`` (demographic parity, equal
    opportunity and predictive quality parity gaps between the privileged
    group and the rest), ``dr[a]`` (discriminative risk) and the HFM degrees
    ``df_prev[a]``, ``df[a]``, ``df_avg[a]``. HFM uses the exact distances on
    the fold's encoded non-sensitive features (the ``encode`` step of a
    :func:`hfm_paper_learners` pipeline, fitted on the training fold) and the
    binary privileged indicator of ``a``. Pass it as ``scoring`` to
    :func:`compare_estimators`.

    Parameters
    ----------
    sensitive : str or list of str
        The sensitive columns to report on.
    privileged : dict
        The privileged label of every sensitive column of the data (its keys
        are the columns ``dr="joint"`` disturbs).
    pos_label : int, str or None, default=None
        The positive class; None takes ``estimator.classes_[-1]`` (never the
        labels of the fold, which may hold one class only).
    dr : {"attribute", "joint"}, default="attribute"
        What discriminative risk disturbs: ``a`` alone for ``dr[a]``, or every
        column of ``privileged`` jointly (the paper's reference code, so
        every attribute shows the same DR).
    dr_ratio : float or None, default=None
        ``ratio`` of :func:`~skfair.metrics.discriminative_risk`; None keeps
        that function's default.
    dr_unscaled : bool, default=False
        Predict the disturbed samples on features left unscaled (the numeric
        columns on their original scale) while the model was trained on
        scaled ones. This reproduces a flaw of the paper's reference code,
        which inflates DR (about 0.34 instead of 0.005 for LightGBM on credit);
        it is offered to reproduce Table 2, not as a measurement.
    random_state : int or None, default=None
        Seeds discriminative risk's disturbance.

    Notes
    -----
    Values are fractions (accuracy 0.78 where the paper prints 78), lower is
    fairer for every fairness metric. F1 and a gap undefined on a fold (no
    positives, or a group without positive predictions) are NaN there,
    without a warning. A zero HFM distance follows
    :func:`~skfair.metrics.hfm`'s conventions; its warning is not repeated
    for every fold.

    Examples
    --------
    >>> scoring = hfm_paper_scoring("sex", privileged={"sex": "male"})
    >>> scoring.metric_names()
    ['accuracy', 'f1', 'dp[sex]', 'eo[sex]', 'pqp[sex]', 'dr[sex]', \
'df_prev[sex]', 'df[sex]', 'df_avg[sex]']
    """

    def __init__(
        self,
        sensitive,
        *,
        privileged,
        pos_label=None,
        dr="attribute",
        dr_ratio=None,
        dr_unscaled=False,
        random_state=None,
    ):
        super().__init__(sensitive, privileged=privileged, pos_label=pos_label)
        self.dr = dr
        self.dr_ratio = dr_ratio
        self.dr_unscaled = dr_unscaled
        self.random_state = random_state
        _check_privileged(check_sensitive_spec(sensitive), privileged)
        if dr not in ("attribute", "joint"):
            raise ValueError(DR_MODE_ERROR.format(dr=dr))

    def metric_names(self):
        """Return the metric names, in the order of the returned dict.

        Returns
        -------
        names : list of str
        """
        names = ["accuracy", "f1"]
        for attribute in check_sensitive_spec(self.sensitive):
            names += [f"{metric}[{attribute}]" for metric in ATTRIBUTE_METRICS]
        return names

    def _context(self, estimator, X):
        if not (isinstance(estimator, Pipeline) and "encode" in estimator.named_steps):
            raise TypeError(
                NOT_A_PAPER_PIPELINE_ERROR.format(kind=type(estimator).__name__)
            )
        encoder = estimator.named_steps["encode"]
        start = encoder.output_indices_["sensitive"].stop
        return {"features": encoder.transform(X)[:, start:]}

    def _dr(self, estimator, X, columns):
        kwargs = {} if self.dr_ratio is None else {"ratio": self.dr_ratio}
        model = estimator
        if self.dr_unscaled:
            model = _UnscaledAfterDisturbance(estimator, X)
        return discriminative_risk(
            model,
            X,
            sensitive=columns,
            privileged={c: self.privileged[c] for c in columns},
            random_state=self.random_state,
            **kwargs,
        )

    def _attribute_scores(self, estimator, X, y_true, y_pred, labels, context):
        attribute = labels.name
        if self.dr == "joint":
            if "dr" not in context:
                context["dr"] = self._dr(estimator, X, list(self.privileged))
            dr = context["dr"]
        else:
            dr = self._dr(estimator, X, [attribute])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HFMUndefinedWarning)
            result = hfm(
                context["features"],
                y_true,
                y_pred,
                sensitive_features=(labels == self.privileged[attribute]).to_numpy(),
                method="exact",
            )
        return {
            f"dr[{attribute}]": dr,
            f"df_prev[{attribute}]": result.df_prev,
            f"df[{attribute}]": result.df,
            f"df_avg[{attribute}]": result.df_avg,
        }
