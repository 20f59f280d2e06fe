"""Exact distribution metrics on Dask collections, partition by partition.

The public metrics decorated with :func:`dask_dispatch` hand Dask inputs to
the engine of the same name here (every argument by keyword, the public
defaults applied); each engine returns exactly what the in-memory function
returns on the same data. Dask is imported inside the functions only, and the
engines on the first Dask call only. Modules:

``_dispatch``
    :func:`dask_dispatch` and the name-to-engine table.
``_inputs``
    Aligned partitions of the inputs, their scores and encoded group rows.
``_passes``
    Pass 1, per-partition summaries (counts, sums, histograms) summed in a
    tree on the workers, so that the client receives O(bins x groups)
    numbers; pass 2, the scores of the bins pass 1 could not decide.
``_groups``
    The in-memory resolver on the table of distinct sensitive rows, with the
    groups' true sizes (``min_group_size``); :func:`dask_group_summary`.
``_pair_bounds``
    One pair's certified bounds on the CDF gap numerator, bin by bin.
``_mcdp``, ``_distribution``, ``_gaps``
    The engines: MCDP (exact and Algorithm 2), ΔDP and ABCC, the group gaps.

How MCDP stays exact without gathering the scores
-------------------------------------------------
Pass 1 returns, per distinct sensitive row, a histogram of the scores on a
fine grid: for scores in [0, 1] the bins are ``[k/B, (k+1)/B)`` with
``B = 2**16`` and a last bin holding the score 1 exactly (``floor(x * B)`` is
exact because ``B`` is a power of two); other real scores (MCDP(0), ABCC) use
``np.linspace(min, max, B + 1)`` as edges and ``searchsorted``. For a pair of
groups the histogram gives the exact numerator ``N(t) = c_a(t) n_b - c_b(t)
n_a`` of the CDF gap just before every edge and certified bounds inside each
bin; the bins that cannot start or end a maximising window nor hold its
minimum are decided there, and only the scores of the others travel (pass 2),
compressed to distinct (score, group) pairs with counts. The client runs
skfair's exact sweep on that reduced step function: the value is bit-for-bit
the in-memory one (see ``_mcdp``).

ABCC agrees with the in-memory value to rounding (about 1e-12 relative), as
does ΔDP_c (group means); ΔDP at a threshold, the group gaps, Algorithm 2
(``method="approx"``) and ABCC's grid method are computed from exact counts
and equal the in-memory results exactly. :func:`record_shipments` records
what pass 2 ships (the Dask benchmark reads it).
"""

from ._dispatch import dask_dispatch, dask_engine
from ._groups import dask_group_summary
from ._passes import Shipment, record_shipments

__all__ = [
    "Shipment",
    "dask_dispatch",
    "dask_engine",
    "dask_group_summary",
    "record_shipments",
]
