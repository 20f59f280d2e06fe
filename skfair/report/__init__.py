"""The fairness audit of one model's predictions.

:func:`audit` computes every distribution metric with its confidence
intervals and test of "no disparity", the per-group rates at a decision
threshold and where MCDP is attained, and returns an :class:`AuditReport`,
rendered as a dict, Markdown or one self-contained HTML page (figures from
:mod:`skfair.plotting`). ``python -m skfair audit`` is its command line.
``skfair.audit`` is a shortcut for :func:`skfair.report.audit`.
:func:`resampling_estimate` is how long its intervals and tests take (the
audit refuses more than ``MAX_RESAMPLING_SECONDS``). ``audit(...,
task="regression")`` (or a numeric target it detects) audits a regressor's
predictions the same way.
"""

from ._audit import audit
from ._budget import MAX_RESAMPLING_SECONDS, resampling_estimate
from ._report import AuditReport

__all__ = ["MAX_RESAMPLING_SECONDS", "AuditReport", "audit", "resampling_estimate"]
