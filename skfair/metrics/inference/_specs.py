"""The metric registry, metric specs and the argument checks of the inference.

A *spec* (:func:`metric_spec`) is one metric of the registry with the keyword
arguments of its public function; the one-sort engine
(:func:`~skfair.metrics.inference.shared_sort`) evaluates every spec on every
resample. Adding a metric to the intervals and tests is one entry of
``METRICS`` and, where the one-sort engine computes it, a branch of
``SharedSort``; :func:`auto_method`, :func:`band_norm` and
:func:`metric_upper` say which interval it gets, in which norm, and where its
intervals clip.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .._base import UNIT_DOMAIN, check_domain
from .._distribution import abcc, abpc, delta_dp
from .._mcdp import mcdp

METRIC_ERROR = (
    "metric must be one of 'delta_dp', 'abcc', 'abpc', 'mcdp'; got {metric!r}."
)
METRIC_PARAMS_ERROR = (
    "metric_params must not hold {key!r}; pass it as its own argument."
)
CONFIDENCE_LEVEL_ERROR = (
    "confidence_level must be a real number strictly between 0 and 1; got {value!r}."
)
N_RESAMPLES_ERROR = "n_resamples must be an integer >= 1; got {value!r}."
TOO_FEW_RESAMPLES_ERROR = (
    "n_resamples={value!r} is too few for a band interval at "
    "confidence_level={level!r}: its critical value is the "
    "ceil((n_resamples + 1) * confidence_level)-th smallest of n_resamples "
    "bootstrap values, which exists only for n_resamples >= {minimum} "
    "(ceil(1 / alpha) - 1 at level 1 - alpha). Pass n_resamples >= {minimum} "
    "(the default is 999)."
)

#: The metrics with intervals and tests, by name.
METRICS = {"delta_dp": delta_dp, "abcc": abcc, "abpc": abpc, "mcdp": mcdp}


@dataclass(frozen=True)
class MetricSpec:
    """One metric with its keyword arguments (those of the public function)."""

    metric: str
    kwargs: tuple = ()

    @property
    def options(self):
        """The keyword arguments, as a dict."""
        return dict(self.kwargs)

    @property
    def sortable(self):
        """Whether the one-sort engine computes it (everything but ABPC)."""
        return self.metric != "abpc"


def metric_spec(metric, params=None):
    """One metric (``"mcdp"``, ``"abcc"``, ``"abpc"``, ``"delta_dp"``) and its options.

    Parameters
    ----------
    metric : str
        The metric's name.
    params : dict or None
        Keyword arguments of the public metric function (not
        ``sample_weight``, ``combine`` or ``sensitive_features``).

    Returns
    -------
    spec : MetricSpec
        What the other functions of :mod:`skfair.metrics.inference` take;
        ``spec.metric`` is the name and ``spec.options`` the keyword
        arguments. Hashable.

    Raises
    ------
    ValueError
        For an unknown metric, or ``params`` holding one of the excluded keys.

    Examples
    --------
    >>> from skfair.metrics.inference import metric_spec
    >>> spec = metric_spec("mcdp", {"epsilon": 0.05})
    >>> spec.metric, spec.options
    ('mcdp', {'epsilon': 0.05})
    """
    if metric not in METRICS:
        raise ValueError(METRIC_ERROR.format(metric=metric))
    params = {} if params is None else dict(params)
    for key in ("sample_weight", "combine", "sensitive_features"):
        if key in params:
            raise ValueError(METRIC_PARAMS_ERROR.format(key=key))
    return MetricSpec(metric, tuple(sorted(params.items())))


def check_confidence_level(value):
    """``value`` as a float in (0, 1), or the public functions' ValueError."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not 0.0 < value < 1.0:
        raise ValueError(CONFIDENCE_LEVEL_ERROR.format(value=value))
    return float(value)


def check_n_resamples(value):
    """``value`` as an int >= 1, or the public functions' ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(N_RESAMPLES_ERROR.format(value=value))
    return int(value)


def check_band_resamples(value, confidence_level):
    """:func:`check_n_resamples`, and at least :func:`min_band_resamples`.

    With fewer resamples the band's critical value (a ``confidence_level``
    quantile) does not exist, and clamping it to the largest value
    under-covers; :data:`TOO_FEW_RESAMPLES_ERROR` names the minimum.
    """
    value = check_n_resamples(value)
    minimum = min_band_resamples(confidence_level)
    if value < minimum:
        raise ValueError(
            TOO_FEW_RESAMPLES_ERROR.format(
                value=value, level=confidence_level, minimum=minimum
            )
        )
    return value


def min_band_resamples(confidence_level):
    """The fewest resamples whose ``confidence_level`` quantile exists.

    The band's critical value (``_bands.critical_value``) is the ``ceil((B +
    1) level)``-th smallest of ``B`` values; it exists when that rank is at
    most ``B``, i.e. ``B >= level / (1 - level)``: 19 at 0.95, 99 at 0.99.
    Computed with the same floating-point arithmetic as the critical value.

    Examples
    --------
    >>> from skfair.metrics.inference import min_band_resamples
    >>> min_band_resamples(0.95), min_band_resamples(0.99), min_band_resamples(0.5)
    (19, 99, 1)
    """
    level = float(confidence_level)
    n = max(1, int(level / (1.0 - level)) - 1)
    while int(np.ceil((n + 1) * level)) > n:
        n += 1
    return n


def random_generator(random_state):
    """A numpy Generator from scikit-learn's ``random_state`` conventions.

    An int or a RandomState seeds a new Generator (``None`` draws the seed
    from numpy's global RandomState); a Generator is returned as is.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)


def binary_scores(shared):
    """Whether every score of the ``shared`` sort is 0 or 1 (hard predictions)."""
    scores = shared.points
    return bool(np.all((scores == 0.0) | (scores == 1.0)))


def auto_method(spec, shared=None):
    """The default interval of a metric: "welch", "newcombe" or "band".

    Welch for ΔDP_c, Newcombe for ΔDP_b^t (closed forms), the bootstrap band
    of the centred gap for ABCC, ABPC and MCDP(ε). Given the ``shared``
    sort, ΔDP_c of scores that are all 0 or 1 (hard predictions, whose means
    are proportions) gets Newcombe's interval too.
    """
    if spec.metric == "delta_dp":
        if spec.options.get("threshold") is not None:
            return "newcombe"
        binary = shared is not None and binary_scores(shared)
        return "newcombe" if binary else "welch"
    return "band"


def band_norm(spec):
    """The norm of the gap in which a metric is 1-Lipschitz (see ``_bands``).

    ``"sup"`` for MCDP(ε) (every ε and domain) and ΔDP_b^t = ``|G(t)|``,
    ``"l1"`` for ABCC = ``∫|G|`` and ΔDP_c = ``|∫G|`` (on the real line),
    ``("kde", bw_method, n_points, domain)`` (the density gap's L1 norm on
    ABPC's domain) for ABPC.
    """
    opts = spec.options
    if spec.metric == "abpc":
        return (
            "kde",
            opts.get("bw_method", "scott"),
            int(opts.get("n_points", 5000)),
            check_domain(opts.get("domain", UNIT_DOMAIN)),
        )
    if spec.metric == "mcdp" or opts.get("threshold") is not None:
        return "sup"
    return "l1"


def metric_upper(shared, spec):
    """The largest value of ``spec``'s metric on ``shared``: where intervals clip.

    2 for ABPC; 1 for MCDP and ΔDP_b^t (CDF gaps); ABCC and ΔDP_c are at
    most the width of the scores' support: 1 when the scores lie in [0, 1],
    else ``inf`` (scores such as logits).
    """
    if spec.metric == "abpc":
        return 2.0
    if spec.metric == "mcdp" or spec.options.get("threshold") is not None:
        return 1.0
    unit = shared.points[0] >= 0.0 and shared.points[-1] <= 1.0
    return 1.0 if unit else np.inf
