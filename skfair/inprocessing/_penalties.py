"""Differentiable demographic-parity penalties: DiffMCDP, DiffDP, DiffABCC.

Each penalty is a plain function of the scores and the groups that returns
its value and its gradient with respect to every score, so that any training
loop (the MLP and the boosting model of this subpackage, or your own) can add
``fairness_weight * gradient`` to the gradient of its loss. Probabilities live
on the domain [0, 1]; real-valued predictions (regression) are penalised on
an interval, e.g. their observed range, through the affine map of that
interval onto [0, 1] (:func:`_penalty_on_domain`).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.special import expit

from skfair.metrics import mcdp_details
from skfair.metrics._mcdp import check_epsilon
from skfair.utils import check_sensitive_features
from skfair.utils._groups import codes_as_groups

PENALTIES = ("mcdp", "dp", "abcc")

PENALTY_ERROR = "penalty must be one of {options}; got {penalty!r}."
TEMPERATURE_ERROR = "temperature must be a finite real number > 0; got {value!r}."
SCORE_SHAPE_ERROR = "y_score must be 1-dimensional; got an array of shape {shape}."
SCORE_NAN_ERROR = (
    "y_score contains {n_bad} NaN or infinite value(s) (first at index {first}); "
    "the fairness penalty needs finite scores. If they come from a diverging "
    "model, lower its learning rate or the fairness weight."
)
SCORE_DOMAIN_ERROR = (
    "penalty={penalty!r}{extra} needs scores inside domain={domain!r}; got "
    "values in [{low!r}, {high!r}]. Pass domain=None for their observed range."
)
SCORE_UNIT_INTERVAL_ERROR = (
    "penalty={penalty!r}{extra} needs scores in [0, 1] (probabilities); got "
    "values in [{low!r}, {high!r}]."
)
DOMAIN_ERROR = (
    "domain must be None (the observed range of the scores) or a pair (low, "
    "high) of finite numbers with low < high; got {domain!r}."
)
SINGLE_GROUP_ERROR = (
    "The fairness penalty compares groups, but the sensitive features hold "
    "{n_groups} group(s) ({labels}) among {n_samples} sample(s); at least two "
    "are needed."
)

#: Points of the grid on [0, 1] on which DiffABCC integrates (as in the
#: paper's published code: ``torch.linspace(0, 1, steps=101)`` + trapezoid).
ABCC_GRID_POINTS = 101
#: Evenly spaced probes added to the scores inside the MCDP(ε) window when the
#: smooth disparity is minimised over it (ε > 0 only).
WINDOW_PROBES = 33


def _check_temperature(temperature):
    ok = isinstance(temperature, numbers.Real) and not isinstance(temperature, bool)
    if not ok or not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(TEMPERATURE_ERROR.format(value=temperature))
    return float(temperature)


def _check_penalty(penalty):
    if not isinstance(penalty, str) or penalty not in PENALTIES:
        raise ValueError(PENALTY_ERROR.format(options=list(PENALTIES), penalty=penalty))
    return penalty


def _check_score(y_score):
    scores = np.asarray(y_score, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(SCORE_SHAPE_ERROR.format(shape=scores.shape))
    bad = ~np.isfinite(scores)
    if bad.any():
        raise ValueError(
            SCORE_NAN_ERROR.format(n_bad=int(bad.sum()), first=int(np.argmax(bad)))
        )
    return scores


def _check_unit_interval(scores, penalty, extra=""):
    if scores.size and (scores.min() < 0.0 or scores.max() > 1.0):
        raise ValueError(
            SCORE_UNIT_INTERVAL_ERROR.format(
                penalty=penalty,
                extra=extra,
                low=float(scores.min()),
                high=float(scores.max()),
            )
        )


def _check_domain(domain, scores, penalty, epsilon):
    """``(low, high)`` of the penalty's domain; None for the observed range.

    Only DiffABCC (its integral) and DiffMCDP with ε > 0 (its windows) depend
    on the domain; for them, scores outside a given domain are an error.
    """
    if domain is None:
        return _observed_range(scores)
    try:
        low, high = (float(v) for v in domain)
    except (TypeError, ValueError):
        raise ValueError(DOMAIN_ERROR.format(domain=domain)) from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(DOMAIN_ERROR.format(domain=domain))
    if penalty == "abcc" or (penalty == "mcdp" and epsilon > 0):
        extra = "" if penalty == "abcc" else " with epsilon > 0"
        if scores.size and (scores.min() < low or scores.max() > high):
            if (low, high) == (0.0, 1.0):
                _check_unit_interval(scores, penalty, extra)
            raise ValueError(
                SCORE_DOMAIN_ERROR.format(
                    penalty=penalty,
                    extra=extra,
                    domain=(low, high),
                    low=float(scores.min()),
                    high=float(scores.max()),
                )
            )
    return low, high


def _observed_range(scores):
    """The smallest and largest score (0 and 1 for no scores)."""
    if scores.size == 0:
        return 0.0, 1.0
    return float(scores.min()), float(scores.max())


def _encode_groups(sensitive_features, n_samples):
    """Integer codes of the intersection of the attributes, and their labels."""
    grouping = check_sensitive_features(
        sensitive_features, n_samples=n_samples
    ).intersection()
    if grouping.n_groups < 2:
        raise ValueError(
            SINGLE_GROUP_ERROR.format(
                n_groups=grouping.n_groups,
                labels=list(grouping.labels),
                n_samples=n_samples,
            )
        )
    return np.asarray(grouping.codes, dtype=np.intp), grouping.n_groups


def _smooth_cdf_terms(t, scores, temperature):
    """``σ_τ(t - ŷ_i)`` and its derivative with respect to ``ŷ_i``."""
    s = expit(temperature * (t - scores))
    return s, -temperature * s * (1.0 - s)


def _pair_gap_at(points, scores, in_a, in_b, temperature):
    """Smooth CDF gap ``F̃_a - F̃_b`` at each point, shape (n_points,)."""
    s = expit(temperature * (np.asarray(points)[:, None] - scores[None, :]))
    return s[:, in_a].mean(axis=1) - s[:, in_b].mean(axis=1)


def _pair_gap_grad(t, scores, in_a, in_b, temperature):
    """Value ``|F̃_a(t) - F̃_b(t)|`` and its gradient w.r.t. every score."""
    s, ds = _smooth_cdf_terms(t, scores, temperature)
    n_a, n_b = in_a.sum(), in_b.sum()
    gap = s[in_a].mean() - s[in_b].mean()
    sign = np.sign(gap)
    grad = np.zeros_like(scores)
    grad[in_a] = sign * ds[in_a] / n_a
    grad[in_b] = -sign * ds[in_b] / n_b
    return abs(float(gap)), grad


def _locate_mcdp(scores, codes, temperature, epsilon):
    """``(ŷ*, a, b)``: where the smooth MCDP(ε) penalty is evaluated.

    The location comes from skfair's exact MCDP: the threshold (ε = 0) or
    the window (ε > 0) and the worst pair of groups ``(a, b)``.
    """
    groups = codes_as_groups(codes)
    details = mcdp_details(None, scores, sensitive_features=groups, epsilon=epsilon)
    a, b = (int(g) for g in details.groups)
    if epsilon == 0.0:
        return float(details.threshold), a, b
    # MCDP(ε) = max_y0 min_{|ŷ - y0| <= ε} ΔF(ŷ): at the maximising window,
    # minimise the smooth gap over the window (scores inside it plus probes).
    low, high = details.window
    inside = scores[(scores >= low) & (scores <= high)]
    probes = np.union1d(np.linspace(low, high, WINDOW_PROBES), inside)
    gaps = np.abs(_pair_gap_at(probes, scores, codes == a, codes == b, temperature))
    return float(probes[int(np.argmin(gaps))]), a, b


def _mcdp_penalty(scores, codes, temperature, epsilon):
    t, a, b = _locate_mcdp(scores, codes, temperature, epsilon)
    # The gradient holds ŷ* fixed (the paper's bi-level scheme; Danskin's
    # theorem for the inner minimum when ε > 0).
    return _pair_gap_grad(t, scores, codes == a, codes == b, temperature)


def _dp_penalty(scores, codes, n_groups):
    counts = np.bincount(codes, minlength=n_groups).astype(np.float64)
    means = np.bincount(codes, weights=scores, minlength=n_groups) / counts
    a, b = int(np.argmax(means)), int(np.argmin(means))
    grad = np.zeros_like(scores)
    if a == b:  # all group means equal: no gap, no direction
        return 0.0, grad
    grad[codes == a] = 1.0 / counts[a]
    grad[codes == b] = -1.0 / counts[b]
    return float(means[a] - means[b]), grad


def _abcc_penalty(scores, codes, n_groups, temperature):
    grid = np.linspace(0.0, 1.0, ABCC_GRID_POINTS)
    weights = np.full(grid.size, grid[1] - grid[0])
    weights[[0, -1]] /= 2.0  # trapezoid rule
    s = expit(temperature * (grid[:, None] - scores[None, :]))  # (K, N)
    counts = np.bincount(codes, minlength=n_groups).astype(np.float64)
    onehot = np.zeros((scores.size, n_groups))
    onehot[np.arange(scores.size), codes] = 1.0
    cdf = (s @ onehot) / counts  # (K, G)
    best = (-1.0, 0, 1)
    for a in range(n_groups):
        for b in range(a + 1, n_groups):
            value = float(weights @ np.abs(cdf[:, a] - cdf[:, b]))
            if value > best[0]:
                best = (value, a, b)
    value, a, b = best
    # d|D_k|/dŷ_i = sign(D_k) * (±1/n_g) * dσ/dŷ_i, summed with the weights.
    coef = weights * np.sign(cdf[:, a] - cdf[:, b])  # (K,)
    dsig = -temperature * s * (1.0 - s)  # (K, N)
    along = coef @ dsig  # (N,)
    grad = np.zeros_like(scores)
    in_a, in_b = codes == a, codes == b
    grad[in_a] = along[in_a] / counts[a]
    grad[in_b] = -along[in_b] / counts[b]
    return value, grad


def _penalty_from_codes(scores, codes, n_groups, penalty, temperature, epsilon):
    """Trusted core: validated scores and integer group codes 0..n_groups-1."""
    if penalty == "mcdp":
        with warnings.catch_warnings():
            _ignore_small_groups()
            return _mcdp_penalty(scores, codes, temperature, epsilon)
    if penalty == "dp":
        return _dp_penalty(scores, codes, n_groups)
    return _abcc_penalty(scores, codes, n_groups, temperature)


def _penalty_on_domain(scores, codes, n_groups, penalty, temperature, epsilon, domain):
    """The penalty of scores on ``domain = (low, high)``, through [0, 1].

    The scores are mapped by ``u = (ŷ - low) / (high - low)`` onto [0, 1],
    with ``τ·(high - low)`` and ``ε / (high - low)``, so that the sigmoid
    CDFs, the windows and the integral are those of the scores on their own
    scale: DiffMCDP (a difference of CDFs) is unchanged by the map, DiffDP
    (a mean gap) and DiffABCC (an area) come back in the scores' units.
    ``(0, 1)`` is the identity. A domain of zero width (all scores equal)
    has no gap: value and gradient 0.
    """
    low, high = domain
    span = high - low
    if not span > 0:
        return 0.0, np.zeros_like(scores)
    if (low, high) != (0.0, 1.0):
        scores = (scores - low) / span
        temperature, epsilon = temperature * span, epsilon / span
    value, grad = _penalty_from_codes(
        scores, codes, n_groups, penalty, temperature, epsilon
    )
    if penalty == "mcdp":
        return value, grad / span
    return value * span, grad


def _ignore_small_groups():
    """Silence skfair's small-group warning inside training loops, if defined."""
    import skfair.utils

    category = getattr(skfair.utils, "SmallGroupWarning", None)
    if category is not None:
        warnings.simplefilter("ignore", category=category)


def fairness_penalty(
    y_score,
    sensitive_features,
    *,
    penalty="mcdp",
    temperature=10.0,
    epsilon=0.0,
    domain=(0.0, 1.0),
):
    """Value and gradient of a differentiable demographic-parity penalty.

    The three regularisers compared in Table 1 of Jin et al. (ICML 2024):

    - ``"mcdp"`` (DiffMCDP, the paper's Section 3.4 and Algorithm 3): the
      temperature-sigmoid CDF gap
      ``ΔF̃_τ(ŷ*) = |mean_{i∈a} σ_τ(ŷ* - ŷ_i) - mean_{i∈b} σ_τ(ŷ* - ŷ_i)|``
      at the location ``ŷ*`` and pair of groups ``(a, b)`` where the *exact*
      MCDP(ε) is attained (:func:`skfair.metrics.mcdp_details`). For
      ε = 0, ``ŷ*`` is its threshold. For ε > 0 (the paper trains with
      ε = 0 only) we follow the definition
      ``MCDP(ε) = max_{y0} min_{|ŷ - y0| <= ε} ΔF(ŷ)``: at the maximising
      window, the smooth gap is minimised over the scores inside the window
      and ``WINDOW_PROBES`` evenly spaced points, and differentiated there.
    - ``"dp"`` (DiffDP): the gap between the groups' mean scores.
    - ``"abcc"`` (DiffABCC): the area between the temperature-sigmoid CDFs,
      integrated by the trapezoid rule on ``ABCC_GRID_POINTS`` evenly spaced
      points of the domain ([0, 1] by default, as in the paper's code).

    With more than two groups (several attributes are intersected), the
    penalty is that of the worst pair: the pair with the largest exact MCDP(ε)
    (``"mcdp"``), the largest mean gap (``"dp"``) or the largest smooth area
    (``"abcc"``); the gradient is zero on every other group.

    Parameters
    ----------
    y_score : array-like of shape (n_samples,)
        Scores, e.g. predicted probabilities. ``"abcc"`` and ``"mcdp"`` with
        ε > 0 need them inside ``domain``.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        Group labels; several attributes are intersected.
    penalty : {"mcdp", "dp", "abcc"}, default="mcdp"
        Which regulariser.
    temperature : float, default=10.0
        τ > 0 of the sigmoid ``σ_τ(x) = 1 / (1 + exp(-τ x))`` (ignored by
        ``"dp"``); the paper's code uses 10.
    epsilon : float, default=0.0
        ε >= 0 of MCDP(ε) (``"mcdp"`` only), in the scores' units.
    domain : (float, float) or None, default=(0.0, 1.0)
        The interval of the scores: DiffABCC integrates over it and the
        windows of DiffMCDP(ε > 0) are clipped to it, as for
        :func:`skfair.metrics.mcdp`. None takes the observed range of
        ``y_score``, for real-valued predictions (regression). DiffDP and
        DiffMCDP(0) do not depend on it. The temperature is in the scores'
        units (``σ_τ(t - ŷ)`` smooths over about ``1/τ`` of them); DiffDP and
        DiffABCC are in the scores' units too (a mean gap, an area), and
        DiffMCDP is a difference of CDFs, without unit.

    Returns
    -------
    value : float
        The penalty.
    grad : ndarray of shape (n_samples,)
        Its gradient with respect to each score (the location ``ŷ*`` held
        fixed, as in the paper's bi-level scheme).

    Raises
    ------
    ValueError
        For an unknown penalty, ``temperature <= 0``, ``epsilon < 0``, NaN or
        infinite scores, scores outside ``domain`` where it matters, an
        invalid ``domain``, or fewer than two groups.

    Notes
    -----
    Where we differ from the paper's code (``mitao-cat/icml24_mcdp``): it finds
    ``ŷ*`` by 31 Adam steps of gradient ascent on the smooth gap, started at
    the positive rate; we take the exact maximiser of the empirical gap, which
    is what Algorithm 3 asks for (line 5) and leaves no optimiser to tune.

    References
    ----------
    .. [1] Jin, Wu, Liu, Zhang, Wang. "On the Maximal Local Disparity of
       Fairness-Aware Classifiers". ICML 2024.

    Examples
    --------
    >>> from skfair.inprocessing import fairness_penalty
    >>> scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> groups = [0, 0, 0, 1, 1, 1]
    >>> value, grad = fairness_penalty(scores, groups, penalty="dp")
    >>> round(value, 2), grad.round(3).tolist()
    (0.3, [-0.333, -0.333, -0.333, 0.333, 0.333, 0.333])
    >>> value, grad = fairness_penalty(scores, groups, temperature=10.0)
    >>> round(value, 3)
    0.559

    Real-valued predictions, e.g. amounts: the area between the groups'
    smoothed CDFs over their observed range is close to the 1-Wasserstein
    distance between them, here a shift of 300:

    >>> amounts = [1000, 1100, 1200, 1300, 1400, 1500]
    >>> value, grad = fairness_penalty(
    ...     amounts, groups, penalty="abcc", temperature=0.1, domain=None)
    >>> round(value)
    295
    """
    penalty = _check_penalty(penalty)
    temperature = _check_temperature(temperature)
    epsilon = check_epsilon(epsilon)
    scores = _check_score(y_score)
    domain = _check_domain(domain, scores, penalty, epsilon)
    codes, n_groups = _encode_groups(sensitive_features, scores.shape[0])
    return _penalty_on_domain(
        scores, codes, n_groups, penalty, temperature, epsilon, domain
    )
