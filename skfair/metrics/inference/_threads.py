"""Both cores for the resampling: chunks of independent work on a thread pool.

The resamples and permutations are evaluated by numpy passes over arrays of
the sample size (sorts, cumulative sums, gathers, reductions), which release
the GIL; splitting the rows of a batch (or the pairs of groups of one row)
into one chunk per thread uses every core. The random draws stay in the
calling thread, in their usual order, so the numbers do not depend on the
number of threads.
"""

from __future__ import annotations

import collections
import functools
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...utils._parallel import effective_n_threads

# Below this many elements of work per chunk, threads cost more than they save.
_MIN_PARALLEL_WORK = 1 << 16
_PREFIX = "skfair-resampling"


@functools.cache
def _pool(n_threads):
    """One pool per thread count, for the process (threads are reused)."""
    return ThreadPoolExecutor(n_threads, thread_name_prefix=_PREFIX)


def n_threads():
    """The threads of the resampling (``effective_n_threads``)."""
    return effective_n_threads()


def chunks(n_items, n_parts):
    """``n_parts`` (at most ``n_items``) contiguous slices of ``range(n_items)``."""
    n_parts = max(1, min(n_parts, n_items))
    cuts = np.linspace(0, n_items, n_parts + 1).astype(np.intp)
    return [slice(int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]


def map_chunks(fn, n_items, work=None):
    """``[fn(s) for s in chunks(n_items, threads)]``, the chunks on the pool.

    ``work`` (elements touched per item) keeps small jobs on the calling
    thread. Results are in chunk order; an exception in a chunk is raised
    here. Inside a chunk (on a pool thread) the work stays on that thread.
    """
    nested = threading.current_thread().name.startswith(_PREFIX)
    threads = 1 if nested else n_threads()
    if threads < 2 or n_items < 2:
        return [fn(slice(0, n_items))]
    if work is not None and work * n_items < _MIN_PARALLEL_WORK * threads:
        return [fn(slice(0, n_items))]
    parts = chunks(n_items, threads)
    futures = [_pool(threads).submit(fn, part) for part in parts[1:]]
    first = fn(parts[0])  # the calling thread works too
    return [first] + [f.result() for f in futures]


def map_ordered(fn, items):
    """``fn`` of each of ``items`` (consumed in order, here), results in order.

    Up to two items per thread are in flight on the pool; ``items`` is
    iterated on the calling thread (its random draws stay in order).
    """
    threads = n_threads()
    if threads < 2 or threading.current_thread().name.startswith(_PREFIX):
        for item in items:
            yield fn(item)
        return
    pending = collections.deque()
    for item in items:
        pending.append(_pool(threads).submit(fn, item))
        if len(pending) >= 2 * threads:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
