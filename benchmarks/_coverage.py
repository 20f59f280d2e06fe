"""The tally of the survey-weight coverage benchmarks (shared, not a benchmark).

``bench_weighted_audit_coverage.py``, ``bench_weighted_regression_coverage.py``
and ``bench_weighted_multiclass_coverage.py`` count, per quantity, the
replicates whose interval covers the population's value, the intervals'
widths and the intervals that exclude 0.
"""

import numpy as np


class Tally:
    """Covered counts, widths and intervals excluding 0, per quantity."""

    def __init__(self):
        self.hits, self.widths, self.counts, self.apart = {}, {}, {}, {}

    def add(self, name, interval, truth):
        """One replicate's ``(low, high)`` for ``name`` (skipped if not finite)."""
        low, high = interval
        if not (np.isfinite(low) and np.isfinite(high)):
            return
        self.counts[name] = self.counts.get(name, 0) + 1
        self.hits[name] = self.hits.get(name, 0) + int(
            low - 1e-12 <= truth <= high + 1e-12
        )
        self.apart[name] = self.apart.get(name, 0) + int(low > 0 or high < 0)
        self.widths.setdefault(name, []).append(high - low)

    def row(self, names):
        """Coverage, mean width, share excluding 0 and count.

        ``names``: one quantity, or a list of them pooled.
        """
        names = [names] if isinstance(names, str) else list(names)
        n = sum(self.counts.get(name, 0) for name in names)
        if not n:
            return float("nan"), float("nan"), float("nan"), 0
        hits = sum(self.hits.get(name, 0) for name in names)
        apart = sum(self.apart.get(name, 0) for name in names)
        widths = [w for name in names for w in self.widths.get(name, [])]
        return hits / n, float(np.mean(widths)), apart / n, n
