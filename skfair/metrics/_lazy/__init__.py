"""Exact fairness metrics inside the engine that holds the predictions.

The internal API that the public metrics' ``data=`` calls: every function
takes a frame narwhals supports, eager or lazy (a DuckDB relation, a polars
``LazyFrame`` or ``DataFrame``, a PySpark or SQLFrame DataFrame, an Ibis
table, a Dask or pandas DataFrame), and the *names* of its columns for
``y_true``, ``y_score`` (``y_pred``), ``sensitive_features`` (one name, or
a list: one attribute each) and ``sample_weight``; every other parameter is
the public function's, and the result is the public function's result on
the same data. The engine computes group-by aggregations; only aggregates
reach the client. Modules, by concept:

``_frame``
    :class:`~._frame.LazyColumns`: the frame and the roles of its columns;
    missing columns, non-numeric scores or weights, and the nulls, NaN,
    infinities and negative weights *counted in the engine* are errors
    (module constants) that name the column, the count and the fix.
``_passes``
    The engine's passes. Pass 1 groups by (sensitive row, score bin): per
    group and bin, counts, weights and sums, about ``65,537 x groups`` rows
    out of the engine. The bin of ``x`` is ``floor(x * 2**s) - K``, exact
    in every IEEE engine and recomputed identically by the client; scores in
    [0, 1] take the Dask engine's grid (``s = 16``). Pass 2 ships the
    distinct (sensitive row, score) pairs of the bins pass 1 could not
    decide, with counts and weights (ties are collapsed in the engine: a
    running sum would count rows, not values). When the groups share
    scores (a probe of their ties decides; at most ``MAX_PIVOT_KEYS``
    distinct sensitive rows) it groups by score alone, with one count (and
    weight) column per row: one hash-table entry per distinct score instead
    of per (row, score) pair, which keeps an embedded engine's memory small.
    No window function is used, so nothing runs as one task on Spark.
``_groups``
    The in-memory resolver on the distinct rows (the Dask engine's): labels,
    their order, ``combine`` and ``min_group_size`` as in memory.
``_mcdp``, ``_distribution``, ``_counts``
    MCDP(ε) (exact, every ε; :func:`mcdp_details`' location too), ΔDP,
    ABCC; confusion counts and rates (:func:`group_rates`, the numbers of
    :class:`~skfair.metrics.GroupMetricFrame` and fairlearn's rate
    differences), :func:`group_sizes` (DKW bands) and
    :func:`group_summaries` (Welch and Newcombe intervals of ΔDP).
``_sql``, ``_files``
    The SQL text of pass 1 (narwhals' DuckDB query) and a hand-written
    exact KS query; :func:`scan_files`, Parquet/CSV paths or globs opened
    lazily with DuckDB (the ``--engine duckdb`` entry point).

One engine with the Dask backend
--------------------------------
The planning and the exact sweeps are the Dask engine's own
(``skfair/metrics/_dask``): ``PairBounds``, ``_plan_zero``, ``_plan_eps``,
``_mcdp_plans``, ``_mcdp_exact_pairs``, ``_assemble``, ``_pair_area`` and
the group resolver are imported from there, not copied; this package adds
the narwhals passes and the weighted case (which the Dask engine refuses:
bounds on the weighted CDFs widened by ``SLACK`` and scaled to integers so
that the same planners apply). A Dask DataFrame is one more narwhals
backend here; ``benchmarks/bench_lazy.py`` measures both paths on Dask.
On a quiet machine (1e8 rows of Parquet, MCDP(0.05)) the narwhals path
took 47.0 s and 4.2 GB, the Dask engine 56.7 s and 5.1 GB: a Dask
DataFrame given as ``data=`` takes the narwhals path; Dask arrays and
Series passed positionally keep the Dask engine (narwhals takes frames),
which shares these planners and sweeps.

Exactness
---------
Without weights: MCDP(ε) (every ε, both roundings, any domain), ΔDP at a
threshold, the confusion counts and every rate are bit-equal to the
in-memory values; ABCC and ΔDP_c agree to rounding, their sums running in
another order (measured: within 2e-14 and 4e-13 relative; the tests allow
1e-12). With real-valued weights every metric agrees to rounding (weighted
sums in another order; measured: MCDP within 2e-15 absolute, rates within
1e-15), and exactly with integer weights. When several windows
attain MCDP(ε > 0), :func:`mcdp_details` may report another maximising
window than the in-memory one (value, pair and threshold agree).
Not computed in the engine: ``method="approx"`` of MCDP, ABCC's grid
method, ABPC (errors say so).
"""

from ._counts import (
    GroupConfusion,
    group_confusion,
    group_rates,
    group_sizes,
    group_summaries,
)
from ._distribution import abcc, delta_dp
from ._files import scan_files
from ._mcdp import mcdp, mcdp_curve, mcdp_details
from ._sql import histogram_sql, ks_sql

__all__ = [
    "GroupConfusion",
    "abcc",
    "delta_dp",
    "group_confusion",
    "group_rates",
    "group_sizes",
    "group_summaries",
    "histogram_sql",
    "ks_sql",
    "mcdp",
    "mcdp_curve",
    "mcdp_details",
    "scan_files",
]
