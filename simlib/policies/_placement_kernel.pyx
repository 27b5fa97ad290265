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


cdef inline Py_ssize_t step_of(list times, Py_ssize_t n, double t):
    """``max(bisect_right(times, t) - 1, 0)``: the step holding ``t``."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if t < time_at(times, mid):
            hi = mid
        else:
            lo = mid + 1
    return lo - 1 if lo > 0 else 0


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
    cdef double start, end, nb = not_before, stop = limit
    cdef Py_ssize_t i = step_of(times, n, nb), j, k
    # The first start is max(not_before, times[i]), that very object (as
    # the Python path returns it).
    first = not_before if nb >= time_at(times, i) else <object>PyList_GET_ITEM(times, i)
    start = first
    cand = first  # the candidate start as the Python path holds it (its type kept)
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
                    return cand, alloc
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
        cand = <object>PyList_GET_ITEM(times, i)
        start = cand
    return limit, None


def hole(profile, double start, double duration):
    """``PlacementProfile.hole(start, duration)``.

    Examples
    --------
    >>> from simlib.engine.allocation import Allocation
    >>> from simlib.platform import Platform
    >>> from simlib.policies.profile import PlacementProfile
    >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
    >>> prof.reserve(5.0, 10.0, Allocation.of(prof.platform, [0, 1]))
    >>> bin(hole(prof, 0.0, 5.0)), bin(hole(prof, 0.0, 6.0))
    ('0b1111', '0b1100')
    """
    cdef list times = profile.times
    cdef list masks = profile.masks
    cdef Py_ssize_t n = PyList_GET_SIZE(times)
    cdef Py_ssize_t i = step_of(times, n, start)
    cdef double end = start + duration
    m = <object>PyList_GET_ITEM(masks, i)
    i += 1
    while i < n and time_at(times, i) < end:
        m = m & <object>PyList_GET_ITEM(masks, i)
        i += 1
    return m


cdef inline object piece(list masks, Py_ssize_t k, double t, list given):
    """The cores free at ``t`` (in step ``k``) or held then by a given reservation."""
    m = <object>PyList_GET_ITEM(masks, k)
    cdef double frm, to
    for g in given:
        frm, to = g[0], g[1]
        if frm <= t < to:
            m = m | g[2]
    return m


def hole_given_back(profile, double start, double duration, given):
    """``PlacementProfile.hole_given_back(start, duration, given)``.

    The window's pieces start at ``start``, at each breakpoint inside it and
    at each given reservation's ends inside it, as in the Python path (a
    time met twice only repeats an ``&``).

    Examples
    --------
    >>> from simlib.engine.allocation import Allocation
    >>> from simlib.platform import Platform
    >>> from simlib.policies.profile import PlacementProfile
    >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
    >>> prof.reserve(0.0, 10.0, Allocation.of(prof.platform, [0, 1]))
    >>> prof.reserve(10.0, 20.0, Allocation.of(prof.platform, [2]))
    >>> bin(hole_given_back(prof, 0.0, 15.0, [(0.0, 10.0, 0b11), (10.0, 20.0, 0b100)]))
    '0b1111'
    """
    cdef list times = profile.times
    cdef list masks = profile.masks
    cdef list gl = list(given)
    cdef Py_ssize_t n = PyList_GET_SIZE(times)
    cdef Py_ssize_t i = step_of(times, n, start), k
    cdef double end = start + duration, t, frm, to
    h = piece(masks, i, start, gl)
    k = i + 1
    while k < n:
        t = time_at(times, k)
        if t >= end:
            break
        h = h & piece(masks, k, t, gl)
        k += 1
    for g in gl:
        frm, to = g[0], g[1]
        if start < frm < end:
            h = h & piece(masks, step_of(times, n, frm), frm, gl)
        if start < to < end:
            h = h & piece(masks, step_of(times, n, to), to, gl)
    return h


cdef Py_ssize_t flip_range(list masks, list free, Py_ssize_t i, Py_ssize_t j, m, long count,
                           expected) except -2:
    cdef Py_ssize_t k
    for k in range(i, j):
        cur = <object>PyList_GET_ITEM(masks, k)
        if (cur & m) != expected:
            return k
        masks[k] = cur ^ m
        free[k] = free_at(free, k) - count
    return -1


def flip_steps(profile, Py_ssize_t i, Py_ssize_t j, m, long count, expected):
    """The loop of ``PlacementProfile._flip``: steps ``i .. j-1`` get ``m`` flipped
    and ``count`` taken from their free count, in order; returns -1, or the
    first step where ``masks[k] & m`` is not ``expected`` (left unflipped,
    with the steps before it flipped, for the caller to report).

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> from simlib.policies.profile import PlacementProfile
    >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
    >>> flip_steps(prof, 0, 1, 0b11, 2, 0b11), bin(prof.masks[0]), prof.free
    (-1, '0b1100', [2])
    >>> flip_steps(prof, 0, 1, 0b11, 2, 0b11)   # already taken
    0
    """
    return flip_range(profile.masks, profile.free, i, j, m, count, expected)


cdef Py_ssize_t split(list times, list masks, list free, t_obj) except -2:
    """``_Steps._split(t)`` for ``t >= times[0]``: the index of the breakpoint at
    ``t``, inserting ``t_obj`` there (with the values of the step it cuts)."""
    cdef double t = t_obj
    cdef Py_ssize_t i = step_of(times, PyList_GET_SIZE(times), t)
    if time_at(times, i) == t:
        return i
    times.insert(i + 1, t_obj)
    masks.insert(i + 1, <object>PyList_GET_ITEM(masks, i))
    free.insert(i + 1, <object>PyList_GET_ITEM(free, i))
    return i + 1


def flip(profile, start, end, m, long count, expected):
    """``PlacementProfile._flip``'s work for ``times[0] <= start < end``: the
    breakpoints at ``start`` and ``end`` made as ``_split`` makes them, then
    :func:`flip_steps` on the steps between; returns what that returns.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> from simlib.policies.profile import PlacementProfile
    >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
    >>> flip(prof, 1.0, 2.0, 0b11, 2, 0b11), prof.times, prof.free
    (-1, [0.0, 1.0, 2.0], [4, 2, 4])
    >>> flip(prof, 0.0, 1.5, 0b10, 1, 0b10), prof.times   # core 1 taken from 1.0: step 1
    (1, [0.0, 1.0, 1.5, 2.0])
    """
    cdef list times = profile.times
    cdef list masks = profile.masks
    cdef list free = profile.free
    if not start >= time_at(times, 0):
        raise ValueError(f"flip: start {start} before the profile's first breakpoint")
    cdef Py_ssize_t i = split(times, masks, free, start)
    cdef Py_ssize_t j = split(times, masks, free, end)
    return flip_range(masks, free, i, j, m, count, expected)
