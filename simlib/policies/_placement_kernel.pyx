# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled search of :class:`~simlib.policies.profile.PlacementProfile`.

:func:`earliest_start` is ``PlacementProfile.earliest_start`` on the
profile's own lists (``times``, ``masks`` as Python ints, ``free``): the
same candidates in the same order, the same holes offered to the allocation
strategy (a Python object, called back), the same skips; only the
interpreter's work per step is gone. Masks stay Python ints, so platforms of
any width work and nothing is mirrored: the profile's other methods and the
policies that read its lists (paper Z's plans) see no difference.
``tests/test_profile.py`` runs both paths against a scan of every candidate.

Built by ``pip install`` (``setup.py``); ``SOURCE_SHA256`` is this file's
digest at build time (see :mod:`simlib.policies.kernels`).
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE

from simlib.errors import SimulationError

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    """
    const char* SIMLIB_KERNEL_SOURCE

#: sha256 of this source file when the module was built.
SOURCE_SHA256 = SIMLIB_KERNEL_SOURCE.decode("ascii")

cdef object bit_count = int.bit_count


cdef inline double time_at(list times, Py_ssize_t k):
    return <double><object>PyList_GET_ITEM(times, k)


cdef inline long free_at(list free, Py_ssize_t k):
    return <long><object>PyList_GET_ITEM(free, k)


def earliest_start(profile, strategy, long size, double duration, not_before,
                   limit=float("inf")):
    """``PlacementProfile.earliest_start(strategy, size, duration, not_before, limit)``.

    Examples
    --------
    >>> from simlib.engine.allocation import Allocation, LowestIds
    >>> from simlib.platform import Platform
    >>> from simlib.policies.profile import PlacementProfile
    >>> p = Platform.homogeneous(4)
    >>> prof = PlacementProfile(0.0, p)
    >>> prof.reserve(0.0, 10.0, Allocation.of(p, [0, 1, 2]))
    >>> t, a = earliest_start(prof, LowestIds(), 2, 5.0, 0.0)
    >>> t, a.cores
    (10.0, (0, 1))
    """
    cdef list times = profile.times
    cdef list masks = profile.masks
    cdef list free = profile.free
    platform = profile.platform
    cdef Py_ssize_t n = PyList_GET_SIZE(times)
    cdef Py_ssize_t lo = 0, hi = n, mid, i, j, k
    cdef double start, end, nb = not_before, stop = limit
    # i = max(bisect_right(times, not_before) - 1, 0)
    while lo < hi:
        mid = (lo + hi) // 2
        if nb < time_at(times, mid):
            hi = mid
        else:
            lo = mid + 1
    i = lo - 1 if lo > 0 else 0
    # The first start is max(not_before, times[i]), that very object (as
    # the Python path returns it).
    first = not_before if nb >= time_at(times, i) else <object>PyList_GET_ITEM(times, i)
    start = first
    # `window`: the cores free on every step i .. j-1 (-1 when j == i).
    window = -1
    j = i
    while start < stop:
        end = start + duration
        while True:
            if j > i and (j == n or time_at(times, j) >= end):
                # The window covers [start, end): offer its hole.
                alloc = strategy.select(platform, window, size)
                if alloc is not None:
                    return (first if start == <double>first else start), alloc
                i += 1  # hole rejected by the strategy: the next start
                window = -1
                j = i
                break
            if free_at(free, j) < size:
                # Step j alone is too full: candidates up to j are skipped.
                i = j + 1
                window = -1
                j = i
                break
            window = window & <object>PyList_GET_ITEM(masks, j)
            if bit_count(window) < size:
                # As the Python path: the next candidate is the first k whose
                # suffix masks[k] & ... & masks[j] keeps `size` cores.
                suffix = <object>PyList_GET_ITEM(masks, j)
                k = j
                while k > i + 1:
                    wider = suffix & <object>PyList_GET_ITEM(masks, k - 1)
                    if bit_count(wider) < size:
                        break
                    suffix = wider
                    k -= 1
                i = k
                window = suffix
                j += 1
                break
            j += 1
        if i >= n:
            raise SimulationError(f"{strategy!r} can never place {size} cores on "
                                  f"{platform.name} ({profile.total} cores)")
        start = time_at(times, i)
    return limit, None
