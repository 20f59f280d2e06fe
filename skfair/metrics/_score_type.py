"""Raw scores (logits, margins) for the intervals and tests: ``score_type``.

``"probability"`` (the default) takes scores as they are; ``"logit"`` maps
them through the sigmoid (:func:`scipy.special.expit`) first, a ΔDP_b
``threshold`` too (it is given in logit units), except for the metrics that
depend only on the scores' order (MCDP(0), ΔDP_b), computed on the logits
themselves: in floating point the sigmoid ties every logit above 36.7 at
1.0, which would hide their differences; ``"margin"`` keeps their
scale, and refuses the metrics that need scores in [0, 1] (ABPC and MCDP(ε)
with ε > 0 on their default ``domain=(0.0, 1.0)``, ABCC with
``method="grid"``, the DKW interval of ABCC and ΔDP_c) rather than compute
them wrong. ABPC and MCDP(ε) with another ``domain`` (None: the observed
range) accept any real scores, margins included.
"""

from __future__ import annotations

from scipy.special import expit

from ..utils._validation import check_scores
from ._base import UNIT_DOMAIN
from ._distribution import ABPC_REASON, GRID_REASON
from ._mcdp import UNIT_INTERVAL_REASON

SCORE_TYPES = ("probability", "logit", "margin")
SCORE_TYPE_ERROR = (
    "score_type must be 'probability', 'logit' or 'margin'; got {value!r}."
)
RAW_SCORES_HINT = "pass score_type='logit' or 'margin' for raw scores"
DKW_REASON = (
    "a DKW interval of {metric}, which integrates the CDF gap over [0, 1] (a "
    "known bounded support; for real-valued predictions use method='band' "
    "or 'bootstrap')"
)
MARGIN_ERROR = (
    "metric={metric!r} with {options} is not applicable to score_type="
    "'margin': it needs scores in [0, 1] ({reason}). Margins keep their "
    "scale for MCDP(0), ABCC and ΔDP, and for MCDP(epsilon) and ABPC with "
    "domain=None (the observed range) or domain=(lo, hi); map them to "
    "probabilities first (or pass score_type='logit' if they are logits)."
)


def check_score_type(score_type):
    """``score_type``, or a ValueError naming the three choices."""
    if not isinstance(score_type, str) or score_type not in SCORE_TYPES:
        raise ValueError(SCORE_TYPE_ERROR.format(value=score_type))
    return score_type


def unit_interval_reason(metric, options, dkw=False):
    """Why a metric (with these options) needs scores in [0, 1], or None.

    ABPC and MCDP(ε > 0) need them only on their default ``domain``
    (``(0.0, 1.0)``); with another domain the metric checks its own.
    """
    unit = _is_unit_domain(options.get("domain", UNIT_DOMAIN))
    if metric == "abpc" and unit:
        return ABPC_REASON
    if metric == "mcdp" and unit and (options.get("epsilon") or 0.0) > 0.0:
        return UNIT_INTERVAL_REASON
    if metric == "abcc" and options.get("method") == "grid":
        return GRID_REASON
    if dkw and (
        metric == "abcc" or (metric == "delta_dp" and options.get("threshold") is None)
    ):
        return DKW_REASON.format(metric=metric)
    return None


def _is_unit_domain(domain):
    """Whether ``domain`` is [0, 1] (an invalid one is the metric's to refuse)."""
    try:
        return domain is not None and tuple(map(float, domain)) == UNIT_DOMAIN
    except (TypeError, ValueError):
        return False


def _order_only(metric, options):
    """Whether the metric depends on the scores' order only: MCDP(0), ΔDP_b."""
    if metric == "mcdp":
        return not options.get("epsilon")
    return metric == "delta_dp" and options.get("threshold") is not None


def scores_for(y_score, metric, metric_params, score_type, dkw=False):
    """``(y_score, metric_params)`` as the metrics take them for ``score_type``.

    Probabilities are checked against [0, 1] when the metric needs it, the
    error naming ``score_type``; logits are checked finite and mapped
    through the sigmoid (but for MCDP(0) and ΔDP_b, whose values and
    intervals the sigmoid, increasing, leaves unchanged, and which a
    rounded sigmoid's ties would change); margins are returned as they
    are, after refusing a metric that needs [0, 1].
    """
    score_type = check_score_type(score_type)
    options = dict(metric_params or {})
    reason = unit_interval_reason(metric, options, dkw)
    if score_type == "probability":
        if reason is not None:
            check_scores(y_score, unit_interval_for=f"{reason}; {RAW_SCORES_HINT}")
        return y_score, metric_params
    if score_type == "margin":
        if reason is not None:
            raise ValueError(
                MARGIN_ERROR.format(metric=metric, options=options, reason=reason)
            )
        return y_score, metric_params
    check_scores(y_score)  # an infinite logit would map to 0 or 1 unseen
    if _order_only(metric, options):  # the same on logits, which stay apart
        return y_score, metric_params
    if options.get("threshold") is not None:
        options["threshold"] = float(expit(float(options["threshold"])))
    return expit(y_score), options
