"""How many threads skfair's own multi-threaded kernels may use."""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController


@functools.cache
def _controller():
    """One controller for the process.

    ``threadpool_info()`` rescans the loaded libraries on every call (about a
    millisecond), while a controller's ``num_threads`` asks each library for
    its current setting, so limits set later with ``threadpool_limits`` are
    still seen.
    """
    return ThreadpoolController()


def effective_n_threads():
    """Worker threads: the BLAS thread budget, capped by the usable CPUs.

    Following the BLAS setting lets joblib's workers (which lower it to share
    the cores) and ``threadpoolctl.threadpool_limits`` govern skfair too.

    Returns
    -------
    n_threads : int
        At least 1.

    Examples
    --------
    >>> effective_n_threads() >= 1
    True
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    if cpus < 2:
        return 1
    blas = [
        lib.num_threads
        for lib in _controller().lib_controllers
        if lib.user_api == "blas"
    ]
    return max(1, min(cpus, max(blas)) if blas else cpus)


# Below this many elements one thread sorts faster than partition + threads.
_PARALLEL_SORT_MIN = 1 << 18


def sort_in_place(array, n_threads=None):
    """Sort a 1-D array in place, on several threads when it is large.

    ``np.partition`` splits the array around ``n_threads - 1`` order
    statistics (every element of a part is <= every element of the next),
    then the parts are sorted concurrently: numpy releases the GIL while
    sorting. The result is exactly ``np.sort``'s.

    Parameters
    ----------
    array : ndarray of shape (n,)
        Contiguous array of a numeric dtype; sorted in place.
    n_threads : int or None, default=None
        Threads to use; None means :func:`effective_n_threads`.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([3, 1, 2])
    >>> sort_in_place(a)
    >>> a
    array([1, 2, 3])
    """
    n = array.shape[0]
    if n_threads is None and n >= _PARALLEL_SORT_MIN:
        n_threads = effective_n_threads()
    threads = min(n_threads or 1, n // (_PARALLEL_SORT_MIN // 2))
    if threads < 2:
        array.sort()
        return
    cuts = [n * i // threads for i in range(1, threads)]
    array.partition(cuts)
    bounds = [0, *cuts, n]
    parts = [array[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(np.ndarray.sort, parts))
