"""skfair: measuring and improving group fairness beyond ΔDP, the scikit-learn way.

Subpackages
-----------
metrics
    Distribution-level demographic parity (ΔDP, ABCC, ABPC, MCDP), HFM, group
    gaps, discriminative risk, confidence intervals, tests of "no disparity"
    and the scorers built on them.
model_selection
    Fairness-aware model selection and the comparison harness.
postprocessing
    :class:`~skfair.postprocessing.ThresholdInvariantClassifier`.
inprocessing
    Penalised training with the DiffMCDP, DiffDP and DiffABCC penalties.
ensemble
    Estimators that take sensitive attributes at fit (FairGBM, AdaFair).
datasets
    Bundled real benchmark data and their loaders.
plotting
    Display objects (matplotlib, the ``plot`` extra).
report
    The fairness audit of one model's predictions (``skfair.audit``).
utils
    Sensitive-attribute resolution and input validation.

The subpackages are imported on first use (``import skfair`` stays cheap), as
are the shortcuts ``skfair.audit``.

Examples
--------
>>> import skfair
>>> skfair.metrics.mcdp(None, [0.1, 0.9, 0.2, 0.8], sensitive_features=[0, 1, 0, 1],
...                     min_group_size=1)
1.0
"""

import importlib

__version__ = "0.1.0.dev0"

_SUBPACKAGES = (
    "datasets",
    "ensemble",
    "inprocessing",
    "metrics",
    "model_selection",
    "plotting",
    "postprocessing",
    "report",
    "utils",
)
_SHORTCUTS = {"audit": "report"}

__all__ = ["__version__", "audit", *_SUBPACKAGES]


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _SHORTCUTS:
        module = importlib.import_module(f"{__name__}.{_SHORTCUTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
