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

:func:`place_in_order` is a plan rebuilt from scratch (conservative
backfilling's ``recompute="rebuild"``, paper D's reading) for paper D's
rules behind a ``PlanChoice``: every queued job searched and reserved in
turn on a C copy of the profile (masks as 64-bit words), the rules run as
``allocation.py`` states them. A rebuild re-places the whole queue at every
completion, and Python-int masks cost ~4 us a placement
(``benchmarks/RESULTS.md``, session 19).

Built by ``pip install`` (``setup.py``); ``SOURCE_SHA256`` is this file's
digest at build time (see :mod:`simlib.policies.kernels`).
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from libc.stdint cimport uint64_t
from libc.stdlib cimport free as c_free
from libc.stdlib cimport malloc
from libc.math cimport INFINITY
from libc.string cimport memcpy, memmove

from simlib.engine.allocation import Planned, ids_of
from simlib.errors import SimulationError

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    """
    const char* SIMLIB_KERNEL_SOURCE
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil

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
    the steps between flipped (``masks[k] ^ m``, ``count`` taken from
    ``free[k]``) in order; returns -1, or the first step where ``masks[k] & m``
    is not ``expected`` (left unflipped, the steps before it flipped, for the
    caller to report).

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


# ------------------------------------------------------------ on C words
# Paper D's rules on masks of `w` 64-bit words (bit c of the mask = bit
# c % 64 of word c // 64), as allocation.py states them on Python ints.
# Codes: kernel_rule's.
cdef enum:
    LOWEST = 1
    CONTIGUOUS = 2
    ONE_CLUSTER = 3


cdef inline long pop(const uint64_t* a, Py_ssize_t w) noexcept nogil:
    cdef long c = 0
    cdef Py_ssize_t k
    for k in range(w):
        c += popcount64(a[k])
    return c


cdef inline void fill_ones(uint64_t* a, Py_ssize_t w) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(w):
        a[k] = ~(<uint64_t>0)


cdef inline void and_into(uint64_t* out, const uint64_t* a, const uint64_t* b,
                          Py_ssize_t w) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(w):
        out[k] = a[k] & b[k]


cdef bint lowest(const uint64_t* hole, long size, Py_ssize_t w, uint64_t* out) noexcept nogil:
    """LowestIds.select_mask: the ``size`` lowest bits of ``hole`` (none if fewer)."""
    if pop(hole, w) < size:
        return False
    cdef long left = size, c
    cdef Py_ssize_t k
    cdef uint64_t word, low
    for k in range(w):
        word = hole[k]
        c = popcount64(word)
        if c <= left:
            out[k] = word
            left -= c
        else:
            out[k] = 0
            while left > 0:
                low = word & (~word + 1)
                out[k] |= low
                word ^= low
                left -= 1
    return True


cdef bint contiguous(const uint64_t* hole, long size, Py_ssize_t w, uint64_t* out) noexcept nogil:
    """Contiguous.select_mask: the lowest run of ``size`` consecutive bits."""
    cdef long run = 0, p, first, b
    for p in range(64 * w):
        if hole[p >> 6] >> (p & 63) & 1:
            run += 1
            if run == size:
                first = p - size + 1
                for b in range(w):
                    out[b] = 0
                for b in range(first, p + 1):
                    out[b >> 6] |= (<uint64_t>1) << (b & 63)
                return True
        else:
            run = 0
    return False


cdef long id_sum(const uint64_t* a, Py_ssize_t w) noexcept nogil:
    cdef long s = 0, p
    for p in range(64 * w):
        if a[p >> 6] >> (p & 63) & 1:
            s += p
    return s


cdef bint one_cluster(const uint64_t* hole, long size, Py_ssize_t w, const uint64_t* clusters,
                      Py_ssize_t nclusters, bint ordered, uint64_t* out,
                      uint64_t* mine, uint64_t* chosen) noexcept nogil:
    """OneCluster.select_mask: in the first cluster with room (ids in blocks),
    else in the one whose ``size`` lowest free ids have the smallest sum."""
    cdef bint found = False
    cdef long best_sum = 0, s
    cdef Py_ssize_t c, k
    for c in range(nclusters):
        and_into(mine, hole, clusters + c * w, w)
        if pop(mine, w) < size:
            continue
        lowest(mine, size, w, chosen)
        if ordered:
            memcpy(out, chosen, w * sizeof(uint64_t))
            return True
        s = id_sum(chosen, w)
        if not found or s < best_sum:
            found, best_sum = True, s
            memcpy(out, chosen, w * sizeof(uint64_t))
    return found


cdef bint select_rule(int code, const uint64_t* hole, long size, Py_ssize_t w,
                      const uint64_t* clusters, Py_ssize_t nclusters, bint ordered,
                      uint64_t* out, uint64_t* tmp1, uint64_t* tmp2) noexcept nogil:
    if code == LOWEST:
        return lowest(hole, size, w, out)
    if code == CONTIGUOUS:
        return contiguous(hole, size, w, out)
    return one_cluster(hole, size, w, clusters, nclusters, ordered, out, tmp1, tmp2)


cdef void to_words(m, uint64_t* out, Py_ssize_t w) except *:
    cdef Py_ssize_t k
    for k in range(w):
        out[k] = <uint64_t>(m & 0xFFFFFFFFFFFFFFFF)
        m = m >> 64


cdef object from_words(const uint64_t* a, Py_ssize_t w):
    m = 0
    cdef Py_ssize_t k
    for k in range(w - 1, -1, -1):
        m = (m << 64) | a[k]
    return m


cdef Py_ssize_t step_at(const double* times, Py_ssize_t n, double t) noexcept nogil:
    """``max(bisect_right(times, t) - 1, 0)`` on a C array."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if t < times[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo - 1 if lo > 0 else 0


cdef Py_ssize_t split_words(double* times, long* free, uint64_t* masks, Py_ssize_t* n,
                            Py_ssize_t w, double t) noexcept nogil:
    """``_Steps._split(t)`` for ``t >= times[0]`` on C arrays with room for one more step."""
    cdef Py_ssize_t i = step_at(times, n[0], t), tail = n[0] - i - 1
    if times[i] == t:
        return i
    memmove(times + i + 2, times + i + 1, tail * sizeof(double))
    memmove(free + i + 2, free + i + 1, tail * sizeof(long))
    memmove(masks + (i + 2) * w, masks + (i + 1) * w, tail * w * sizeof(uint64_t))
    times[i + 1] = t
    free[i + 1] = free[i]
    memcpy(masks + (i + 1) * w, masks + i * w, w * sizeof(uint64_t))
    n[0] += 1
    return i + 1


#: How many of the jobs placed just before a job ``place_in_order`` looks at
#: for its dominance bound.
cdef Py_ssize_t DOMINANCE_WINDOW = 64


def place_in_order(profile, strategy, tuple rule, list sizes, list durations, not_before):
    """``PlacementProfile.place_in_order`` for one of paper D's rules behind a
    ``PlanChoice`` (``rule``: :func:`~simlib.engine.allocation.kernel_rule`'s
    answer), ``not_before >= times[0]`` and as many durations as sizes (the
    method checks both). The profile is copied to C arrays (times, free
    counts, masks as words); every job is searched and reserved there with
    the same candidates, skips and choices as :func:`earliest_start` and the
    rule's ``select_mask``; the lists are written back (times as floats),
    also when a job raises, with the jobs before it reserved, as the Python
    path leaves them. Allocations are
    :class:`~simlib.engine.allocation.Planned`, as a ``PlanChoice`` gives
    them; a job with no finite start gets ``(inf, None)`` and no
    reservation, as from ``earliest_start``.

    A job's search starts at the latest start of the jobs just before it
    (the last 64) that it *dominates* (no more cores, no longer duration):
    where it would fit, in
    a plan that has only gained reservations since, each of those would have
    fitted too (a window of fewer steps holds more free cores, and every
    rule that takes ``size`` cores of a mask also takes fewer, of it or of a
    larger one), and each was placed at its earliest feasible start. The
    starts skipped are all infeasible: the search finds the same start.

    Examples
    --------
    >>> from simlib.engine.allocation import LowestIds, PlanChoice, kernel_rule
    >>> from simlib.platform import Platform
    >>> from simlib.policies.profile import PlacementProfile
    >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
    >>> choice = PlanChoice(LowestIds())
    >>> place_in_order(prof, choice, kernel_rule(choice, prof.platform), [3, 2], [5.0, 1.0], 0.0)
    [(0.0, Planned(0b111)), (5.0, Planned(0b11))]
    """
    cdef double nb = not_before
    cdef int preferred = rule[0], fallback = rule[1]
    cdef list cluster_masks = list(rule[2])
    cdef bint ordered = rule[3]
    cdef list times_l = profile.times
    cdef list masks_l = profile.masks
    cdef list free_l = profile.free
    cdef long total = profile.total
    cdef Py_ssize_t w = max((total + 63) // 64, 1)
    cdef Py_ssize_t n = PyList_GET_SIZE(times_l), q, nq = PyList_GET_SIZE(sizes)
    cdef Py_ssize_t cap = n + 2 * nq + 2, nclusters = len(cluster_masks)
    cdef double* times = <double*>malloc(cap * sizeof(double))
    cdef long* free = <long*>malloc(cap * sizeof(long))
    cdef uint64_t* masks = <uint64_t*>malloc(cap * w * sizeof(uint64_t))
    # window, suffix, wider, choice, two scratch masks, then the clusters
    cdef uint64_t* scratch = <uint64_t*>malloc((6 + nclusters) * w * sizeof(uint64_t))
    # each job's size, duration and start (inf: none), for the dominance bound
    cdef long* placed_size = <long*>malloc((nq + 1) * sizeof(long))
    cdef double* placed_duration = <double*>malloc((nq + 1) * sizeof(double))
    cdef double* placed_start = <double*>malloc((nq + 1) * sizeof(double))
    if (times == NULL or free == NULL or masks == NULL or scratch == NULL
            or placed_size == NULL or placed_duration == NULL or placed_start == NULL):
        c_free(times); c_free(free); c_free(masks); c_free(scratch)
        c_free(placed_size); c_free(placed_duration); c_free(placed_start)
        raise MemoryError()
    cdef uint64_t* window = scratch
    cdef uint64_t* suffix = scratch + w
    cdef uint64_t* wider = scratch + 2 * w
    cdef uint64_t* choice = scratch + 3 * w
    cdef uint64_t* tmp1 = scratch + 4 * w
    cdef uint64_t* tmp2 = scratch + 5 * w
    cdef uint64_t* clusters = scratch + 6 * w
    cdef Py_ssize_t i, j, k, b
    cdef long size, count
    cdef double start, end, duration, lower
    cdef bint ok, bad, copied = False
    cdef list out = []
    try:
        for i in range(n):
            times[i] = time_at(times_l, i)
            free[i] = free_at(free_l, i)
            to_words(<object>PyList_GET_ITEM(masks_l, i), masks + i * w, w)
        for k in range(nclusters):
            to_words(cluster_masks[k], clusters + k * w, w)
        copied = True
        for q in range(nq):
            size = <object>PyList_GET_ITEM(sizes, q)
            duration = <object>PyList_GET_ITEM(durations, q)
            # -- the search (as `search`, on words), from the dominance bound --
            lower = nb
            # The last DOMINANCE_WINDOW jobs only: any of them gives an exact
            # bound, and a long queue costs no more per job.
            for k in range(q - DOMINANCE_WINDOW if q > DOMINANCE_WINDOW else 0, q):
                if (placed_size[k] <= size and placed_duration[k] <= duration
                        and placed_start[k] > lower):
                    lower = placed_start[k]
            placed_size[q] = size
            placed_duration[q] = duration
            placed_start[q] = INFINITY  # until placed
            if lower == INFINITY:  # a job it dominates has no finite start: neither has it
                out.append((float("inf"), None))
                continue
            i = step_at(times, n, lower)
            start = lower if lower >= times[i] else times[i]
            fill_ones(window, w)  # no step intersected yet
            j = i
            ok = False
            while start < INFINITY:
                end = start + duration
                while True:
                    if j > i and (j == n or times[j] >= end):
                        ok = select_rule(preferred, window, size, w, clusters, nclusters,
                                         ordered, choice, tmp1, tmp2)
                        if not ok and fallback:
                            ok = select_rule(fallback, window, size, w, clusters, nclusters,
                                             ordered, choice, tmp1, tmp2)
                        if ok:
                            break
                        i += 1
                        fill_ones(window, w)
                        j = i
                        break
                    if free[j] < size:
                        i = j + 1
                        fill_ones(window, w)
                        j = i
                        break
                    and_into(window, window, masks + j * w, w)
                    if pop(window, w) < size:
                        memcpy(suffix, masks + j * w, w * sizeof(uint64_t))
                        k = j
                        while k > i + 1:
                            and_into(wider, suffix, masks + (k - 1) * w, w)
                            if pop(wider, w) < size:
                                break
                            memcpy(suffix, wider, w * sizeof(uint64_t))
                            k -= 1
                        i = k
                        memcpy(window, suffix, w * sizeof(uint64_t))
                        j += 1
                        break
                    j += 1
                if ok:
                    break
                if i >= n:
                    raise SimulationError(f"{strategy!r} can never place {size} cores on "
                                          f"{profile.platform.name} ({total} cores)")
                start = times[i]
            if not ok:  # the search reached infinity: no finite start, nothing reserved
                out.append((float("inf"), None))
                continue
            placed_start[q] = start
            # -- the reservation (as `PlacementProfile.reserve`) --
            end = start + duration
            if end > start:
                i = split_words(times, free, masks, &n, w, start)
                j = split_words(times, free, masks, &n, w, end)
                count = pop(choice, w)
                for k in range(i, j):
                    bad = False
                    for b in range(w):
                        if masks[k * w + b] & choice[b] != choice[b]:
                            bad = True
                    if bad:
                        and_into(tmp1, choice, masks + k * w, w)
                        for b in range(w):
                            tmp1[b] ^= choice[b]
                        raise SimulationError(f"reserving cores {ids_of(from_words(tmp1, w))} "
                                              f"on [{start}, {end}): already taken at {times[k]}")
                    for b in range(w):
                        masks[k * w + b] ^= choice[b]
                    free[k] -= count
            out.append((start, Planned(from_words(choice, w))))
    finally:
        if copied:
            times_l[:] = [times[i] for i in range(n)]
            free_l[:] = [free[i] for i in range(n)]
            masks_l[:] = [from_words(masks + i * w, w) for i in range(n)]
        c_free(times)
        c_free(free)
        c_free(masks)
        c_free(scratch)
        c_free(placed_size)
        c_free(placed_duration)
        c_free(placed_start)
    return out
