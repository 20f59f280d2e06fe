"""``MCDPResult.pair_values`` of many groups: every pair's value, on demand.

:func:`~skfair.metrics.mcdp_details` of many groups (``agg="max"``, the
exact method; see :func:`~._kernels._pivots.use_pivots`) finds the worst
pair without evaluating every pair (:meth:`~._kernels.AllPairs.worst_pair`),
so its ``pair_values`` is a read-only mapping that evaluates every pair only
when first read (:class:`PairValues`): at 10,000 groups the 50 million pairs
of a plain dict take about 10 GB, which is what made an audit of that many
groups impossible. The mapping holds the same keys and the same values, in
the same order, as the dict of fewer groups; its :meth:`PairValues.largest`
gives the largest value over the pairs of chosen groups (the audit's claim
about large groups) without evaluating every pair either.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from ._kernels import AllPairs


class GroupingPairs(Mapping):
    """MCDP(ε) of every pair of one grouping's groups, evaluated when first read.

    ``sorted_scores`` (``values``, ``codes``, ``weights``) and ``domain`` are
    those the grouping's :class:`~._kernels.AllPairs` was made from; keys are
    ``(name, label_a, label_b)`` in pair order.
    """

    def __init__(self, name, labels, sorted_scores, domain, epsilon, rounding):
        self.name = name
        self.labels = list(labels)
        self.scores = sorted_scores
        self.domain = domain
        self.epsilon = epsilon
        self.rounding = rounding

    @functools.cached_property
    def _engine(self):
        s = self.scores
        return AllPairs(s.values, s.codes, len(self.labels), s.weights, self.domain)

    @functools.cached_property
    def _values(self):
        return self._engine.values(self.epsilon, self.rounding)

    @functools.cached_property
    def _codes(self):
        return {label: code for code, label in enumerate(self.labels)}

    def __len__(self):
        n = len(self.labels)
        return n * (n - 1) // 2

    def __iter__(self):  # pair_codes' order, without its 16 bytes a pair
        labels = self.labels
        for i, first in enumerate(labels):
            for second in labels[i + 1 :]:
                yield (self.name, first, second)

    def __getitem__(self, key):
        try:
            name, label_a, label_b = key
            a, b = self._codes[label_a], self._codes[label_b]
        except (TypeError, ValueError, KeyError):
            raise KeyError(key) from None
        if name != self.name or a >= b:
            raise KeyError(key)
        n = len(self.labels)
        return float(self._values[a * (2 * n - a - 1) // 2 + b - a - 1])

    def largest(self, keep):
        """``(value, (label_a, label_b))`` over the pairs of kept groups, or None.

        ``keep(name, label)`` says whether a group takes part; the value is
        MCDP(0) (the only ε the audit asks this of) or this mapping's ε, of
        the first pair (in pair order) attaining the largest, without
        evaluating every pair: the kept groups' rows make their own
        :class:`~._kernels.AllPairs`, whose pair values are those of the
        whole grouping (a pair's CDF gap depends only on its two groups).
        """
        kept = np.array([bool(keep(self.name, label)) for label in self.labels])
        if kept.sum() < 2:
            return None
        s = self.scores
        rows = kept[s.codes]
        new_codes = np.cumsum(kept) - 1
        engine = AllPairs(
            s.values[rows],
            new_codes[s.codes[rows]],
            int(kept.sum()),
            None if s.weights is None else s.weights[rows],
            self.domain,
        )
        value, a, b = engine.worst_pair(self.epsilon, self.rounding)
        labels = [label for label, k in zip(self.labels, kept) if k]
        return value, (labels[a], labels[b])


class PairValues(Mapping):
    """The pair values of several groupings (``parts``: mappings), in order."""

    def __init__(self, parts):
        self.parts = list(parts)

    def __len__(self):
        return sum(len(part) for part in self.parts)

    def __iter__(self):
        for part in self.parts:
            yield from part

    def __getitem__(self, key):
        for part in self.parts:
            try:
                return part[key]
            except KeyError:
                continue
        raise KeyError(key)

    def __repr__(self):
        return f"<{type(self).__name__}: {len(self):,} pairs, evaluated when read>"

    def largest(self, keep):
        """The largest ``(value, (a, b))`` over pairs of kept groups, or None.

        As :meth:`GroupingPairs.largest`, over every grouping: the first
        (in grouping and pair order) of the largest values.
        """
        best = None
        for part in self.parts:
            if isinstance(part, GroupingPairs):
                found = part.largest(keep)
            else:
                found = largest_in(part, keep)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return best


def largest_pair(pair_values, keep):
    """``(value, (a, b))``: the largest over pairs of kept groups, or None.

    ``pair_values``: an :class:`MCDPResult`'s, a :class:`PairValues` (not
    every pair evaluated) or a plain dict; ``keep(name, label)``.
    """
    if isinstance(pair_values, PairValues):
        return pair_values.largest(keep)
    return largest_in(pair_values, keep)


def largest_in(pair_values, keep):
    """:meth:`PairValues.largest` of a plain ``{(name, a, b): value}`` dict."""
    best = None
    for (name, a, b), value in pair_values.items():
        if not (keep(name, a) and keep(name, b)):
            continue
        if best is None or value > best[0]:
            best = (float(value), (a, b))
    return best
