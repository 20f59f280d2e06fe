"""Survey weights in the audit: weighted counts, effective sizes, design effects.

With survey weights (non-negative, not all whole numbers: e.g. ``1 /
inclusion probability``) a row stands for ``w`` people of the population, but
it is one observation: the precision of a weighted estimate is that of
Kish's effective sample size ``n_eff = (sum w)^2 / sum w^2`` rows, and the
design effect ``deff = n / n_eff`` says how many times fewer rows' worth of
information the weights leave (Kish 1965, *Survey Sampling*, §11.7).
The group table sums weighted counts (:func:`survey_per_row`), gives each
rate its Wilson interval on the ``n_eff`` of its denominator
(:func:`effective_sizes`, :func:`effective_trials`), and the report's notes
carry the design effect (:func:`design_effect_notes`). The metrics' intervals
are the weighted bootstrap band and the Kish-size Welch and Newcombe
intervals of :mod:`skfair.metrics.inference`; their tests, which relabel or
count rows as if they were equally likely draws, are not run.
"""

from __future__ import annotations

import numpy as np

#: The design-effect note names this many groups (the largest design effects).
_LISTED = 5


def survey_per_row(scores, decisions, y, weights):
    """The weighted per-row quantities of the group table, and what ``n_eff`` needs."""
    out = {
        "size": weights,
        "score_sum": weights * scores,
        "n_selected": weights * decisions,
        "weights": weights,
        "decisions": decisions,
    }
    if y is not None:
        out.update(n_positive=weights * y, tp=weights * (decisions & (y == 1)), y=y)
    return out


def kish(total, squares):
    """``total**2 / squares`` (NaN where nothing is summed)."""
    out = np.full(np.shape(total), np.nan)
    ok = np.isfinite(total) & (squares > 0)
    return np.divide(total**2, squares, out=out, where=ok)


def effective_sizes(grouping, per_row, counts):
    """Rows and Kish's effective sizes of each group and rate denominator.

    Returns ``n_rows`` (the group's rows), ``n_eff`` (of the group),
    ``n_eff_selected`` (of its selected rows), ``n_eff_positive`` and
    ``n_eff_negative`` (of its positives and negatives; NaN without labels),
    from the weighted ``counts`` of :func:`~._compute._counts`.
    """
    kept, codes, n = grouping.kept, grouping.codes, grouping.n_groups
    w2 = per_row["weights"] ** 2

    def squares(mask):
        values = w2 if mask is None else w2 * mask
        return np.bincount(codes[kept], weights=values[kept], minlength=n)

    out = {
        "n_rows": np.bincount(codes[kept], minlength=n).astype(np.float64),
        "n_eff": kish(counts["size"], squares(None)),
        "n_eff_selected": kish(counts["n_selected"], squares(per_row["decisions"])),
    }
    if "y" in per_row:
        y = per_row["y"]
        out["n_eff_positive"] = kish(counts["n_positive"], squares(y))
        out["n_eff_negative"] = kish(counts["n_negative"], squares(1 - y))
    else:
        out["n_eff_positive"] = out["n_eff_negative"] = np.full(n, np.nan)
    return out


_TRIALS = {
    "size": "n_eff",
    "n_positive": "n_eff_positive",
    "n_negative": "n_eff_negative",
    "n_selected": "n_eff_selected",
}


def effective_trials(counts, denominator):
    """The trials of a weighted rate's Wilson interval: its denominator's ``n_eff``."""
    return counts[_TRIALS[denominator]]


def rows_text(n_rows):
    """``"1 row"`` or ``"1,234 rows"``."""
    n_rows = int(n_rows)
    return f"{n_rows:,} row" + ("" if n_rows == 1 else "s")


def weighted_count(value):
    """A weighted count as the report writes it: ``"1,234.5"`` (one decimal)."""
    return f"{float(value):,.1f}"


def design_effect_notes(report):
    """The design-effect note of a report with survey weights (else none).

    Overall and for the groups of the compared groupings with the largest
    design effect: the rows, Kish's ``n_eff`` and ``deff = n / n_eff``, and
    that every interval rests on ``n_eff``.
    """
    p = getattr(report, "provenance", None)
    if p is None or not p.survey:
        return []
    groups = report.groups
    compared = groups[groups["grouping"].isin(list(report.kept_groups))]
    # a multiclass table has a row per group and class: each group once
    compared = compared.drop_duplicates(["grouping", "group"])
    w = np.asarray(report.inputs.weights, dtype=np.float64)
    n_eff = float(w.sum() ** 2 / (w * w).sum())
    worst = compared.sort_values("design_effect", ascending=False).head(_LISTED)
    listed = "; ".join(
        f"{r['group']}: {rows_text(r['n_rows'])}, n_eff {r['n_eff']:,.1f}, "
        f"deff {r['design_effect']:.2f}"
        for r in worst.to_dict(orient="records")
    )
    return [
        f"Design effect of the survey weights (Kish): {len(w):,} rows standing "
        f"for {weighted_count(w.sum())} people have an effective sample size "
        f"n_eff = (Σw)²/Σw² = {n_eff:,.1f}, a design effect deff = n / n_eff "
        f"= {len(w) / n_eff:.2f}; the groups with the largest: {listed}. "
        "Every interval rests on these effective sizes (Wilson intervals of "
        "the rates and the Welch and Newcombe intervals on each denominator's "
        "n_eff, the band intervals on a bootstrap of the rows with their "
        "weights), and a group is small when its n_eff is under 30. Kish's "
        "n_eff reflects unequal weights only, not clustering or "
        "stratification, which the weights do not describe."
    ]
