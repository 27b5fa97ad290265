# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled core of count-based conservative backfilling.

:class:`CountSchedule` holds what :class:`~simlib.policies.conservative.Conservative`
plans with when ``allocation="count"``: the availability profile (free
processors as a step function of time, as
:class:`~simlib.policies.profile.AvailabilityProfile` keeps it) and the wait
queue's reservations, in queue order. It applies the policy's rules with C
arrays instead of Python lists; the rules themselves, and which of them the
policy calls when, stay in ``conservative.py``:

* placing a job: its earliest start ``t >= now`` with its size free on
  ``[t, t + requested time)``, where it is then reserved;
* compressing after an early end: queued jobs in queue order, each released
  and placed again no later than its old start (``limit``);
* starting: the jobs whose reservation has arrived, in queue order.

With an empty queue it is a compiled count profile; paper K's dedicated
jobs plan on it (:class:`~simlib.policies.dedicated.DedicatedPlan`).

Every time and free count is computed by the same floating-point and
integer operations, in the same order, as the pure-Python path, so both
give bit-identical schedules (``tests/test_conservative_kernel.py`` checks
it). Profile invariants: ``times`` strictly increasing, ``avail[i]`` holds
on ``[times[i], times[i+1])`` and the last value forever, ``times[0]`` is
the current time after :meth:`CountSchedule.advance`.

Built by ``pip install`` (``setup.py``); ``SOURCE_SHA256`` is this file's
digest at build time, which lets the loader notice a stale build.
"""
from libc.stdlib cimport free, realloc
from libc.string cimport memmove

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    """
    const char* SIMLIB_KERNEL_SOURCE

#: sha256 of this source file when the module was built.
SOURCE_SHA256 = SIMLIB_KERNEL_SOURCE.decode("ascii")

ctypedef long long count_t
cdef double INF = float("inf")


cdef void* _resized(void* block, size_t size) except NULL:
    """``block`` reallocated to ``size`` bytes (a new block when NULL); on
    failure ``block`` is left as it was, for its owner to free."""
    cdef void* out = realloc(block, size)
    if not out:
        raise MemoryError()
    return out


cdef class CountSchedule:
    """Availability profile and queued reservations of count-based conservative backfilling.

    Parameters
    ----------
    now : float
        The profile's first breakpoint.
    total : int
        Processors of the machine: the free count where nothing is reserved.

    Examples
    --------
    >>> s = CountSchedule(0.0, 10)
    >>> s.reserve(0.0, 5.0, 6)          # a running job until its estimated end
    >>> s.add(0, 8, 3.0, 0.0)           # job idx 0, 8 processors, 3 s requested
    5.0
    >>> s.add(1, 4, 5.0, 0.0)           # fits beside the running job: starts now
    0.0
    >>> s.pop_due(0.0)
    ([1], 5.0)
    >>> s.steps()
    [(0.0, 0), (5.0, 2), (8.0, 10)]
    """

    cdef double* times
    cdef count_t* avail
    cdef count_t* peak  # peak[i] = max(avail[:i + 1]) for i < peak_valid
    cdef Py_ssize_t n, cap
    cdef Py_ssize_t peak_valid
    cdef double first_start  # the earliest reservation in the queue (inf if none)
    cdef count_t* q_idx
    cdef count_t* q_procs
    cdef double* q_req
    cdef double* q_start
    cdef Py_ssize_t qn, qcap
    cdef readonly count_t total

    def __cinit__(self, double now, count_t total):
        # The pointers start NULL (a new object is zeroed): _resized allocates.
        self._steps_room(64)
        self._queue_room(64)
        self.total = total
        self.qn = 0
        self.first_start = INF
        self.reset(now)

    def __dealloc__(self):
        free(self.times)
        free(self.avail)
        free(self.peak)
        free(self.q_idx)
        free(self.q_procs)
        free(self.q_req)
        free(self.q_start)

    # -- the profile ---------------------------------------------------------

    cpdef void reset(self, double now):
        """Forget every reservation: ``total`` free from ``now`` on (the queue is kept)."""
        self.n = 1
        self.times[0] = now
        self.avail[0] = self.total
        self.peak_valid = 0

    cdef int _steps_room(self, Py_ssize_t cap) except -1:
        """Room for ``cap`` breakpoints."""
        self.times = <double*> _resized(self.times, cap * sizeof(double))
        self.avail = <count_t*> _resized(self.avail, cap * sizeof(count_t))
        self.peak = <count_t*> _resized(self.peak, cap * sizeof(count_t))
        self.cap = cap
        return 0

    cdef inline Py_ssize_t _right(self, double t) noexcept:
        """Number of breakpoints ``<= t`` (``bisect_right``)."""
        cdef Py_ssize_t lo = 0, hi = self.n, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if t < self.times[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo

    cdef inline Py_ssize_t _left(self, double t) noexcept:
        """Number of breakpoints ``< t`` (``bisect_left``)."""
        cdef Py_ssize_t lo = 0, hi = self.n, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.times[mid] < t:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef Py_ssize_t _split(self, double t) except -1:
        """Index of the breakpoint at ``t``, inserting one if needed."""
        cdef Py_ssize_t i = self._right(t) - 1
        if i < 0:
            raise ValueError(f"time {t!r} lies before the profile's start {self.times[0]!r}")
        if self.times[i] == t:
            return i
        if self.n == self.cap:
            self._steps_room(2 * self.cap)
        i += 1
        memmove(&self.times[i + 1], &self.times[i], (self.n - i) * sizeof(double))
        memmove(&self.avail[i + 1], &self.avail[i], (self.n - i) * sizeof(count_t))
        self.times[i] = t
        self.avail[i] = self.avail[i - 1]
        self.n += 1
        if self.peak_valid > i:
            self.peak_valid = i
        return i

    cdef int _take(self, double start, double end, count_t procs) except -1:
        """``procs`` fewer free on ``[start, end)`` (negative: given back)."""
        if end <= start:
            return 0
        cdef Py_ssize_t i = self._split(start)
        cdef Py_ssize_t j = self._split(end)
        cdef Py_ssize_t k
        for k in range(i, j):
            self.avail[k] -= procs
        if self.peak_valid > i:
            self.peak_valid = i
        return 0

    def reserve(self, double start, double end, count_t procs):
        """Take ``procs`` processors on ``[start, end)`` (nothing if ``end <= start``)."""
        self._take(start, end, procs)

    def release(self, double start, double end, count_t procs):
        """Give back ``procs`` processors on ``[start, end)``."""
        self._take(start, end, -procs)

    def advance(self, double now):
        """Forget breakpoints before ``now`` (the value at ``now`` is kept)."""
        cdef Py_ssize_t i = self._right(now) - 1
        if i > 0:
            memmove(&self.times[0], &self.times[i], (self.n - i) * sizeof(double))
            memmove(&self.avail[0], &self.avail[i], (self.n - i) * sizeof(count_t))
            self.n -= i
            self.peak_valid = 0
        if self.times[0] < now:
            self.times[0] = now

    def compact_over(self, Py_ssize_t most):
        """Merge neighbouring steps with equal free counts when there are more than ``most``."""
        if self.n <= most:
            return
        cdef Py_ssize_t k, m = 1
        for k in range(1, self.n):
            if self.avail[k] != self.avail[m - 1]:
                self.times[m] = self.times[k]
                self.avail[m] = self.avail[k]
                m += 1
        self.n = m
        self.peak_valid = 0

    cdef double _earliest(self, count_t procs, double duration, double not_before,
                          double limit, double held_from) except? -1.0:
        """Earliest ``t >= not_before`` with ``procs`` free on ``[t, t + duration)``,
        or ``limit`` if none comes before it (``limit`` is not checked).

        With a finite ``held_from`` (and ``limit = held_from``; else ``INF``):
        the same search on the
        profile without the job's own reservation on ``[held_from, held_from +
        duration)``, computed without releasing it. A start ``t < held_from``
        fits once the job's processors are given back iff ``procs`` are free
        on ``[t, min(t + duration, held_from))`` here: from ``held_from`` on
        its own processors suffice (no step is ever negative), and a window
        from ``t`` ends before ``held_from + duration``. The candidates
        (``not_before``, then the step after each blocking one) are those of
        the released profile, since every blocking step lies before
        ``held_from``.
        """
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t i = self._right(not_before) - 1
        cdef Py_ssize_t j
        cdef double start, end
        if i < 0:
            i = 0
        start = not_before if not_before > self.times[i] else self.times[i]
        while start < limit:
            end = start + duration
            if end > held_from:
                end = held_from
            j = i
            while self.avail[j] >= procs:  # extend the window while it has room
                j += 1
                if j == n or self.times[j] >= end:
                    return start
            i = j + 1  # blocked at step j: the next candidate starts after it
            if i >= n:
                raise RuntimeError("profile never frees enough processors")
            start = self.times[i]
        return limit

    cdef double _place(self, count_t procs, double duration, double not_before) except? -1.0:
        """Reserve ``procs`` at the earliest start ``>= not_before``; that start."""
        cdef double start = self._earliest(procs, duration, not_before, INF, INF)
        self._take(start, start + duration, procs)
        return start

    def place(self, count_t procs, double duration, double not_before):
        """Reserve ``procs`` for ``duration`` at the earliest start ``>= not_before``;
        returns that start (as :meth:`AvailabilityProfile.place`)."""
        return self._place(procs, duration, not_before)

    def earliest_start(self, count_t procs, double duration, double not_before,
                       double limit=float("inf")):
        """Earliest ``t >= not_before`` with ``procs`` free on ``[t, t + duration)``.

        As :meth:`AvailabilityProfile.earliest_start`: the search stops at
        ``limit`` (a start known to be feasible) and returns it unchecked.
        """
        return self._earliest(procs, duration, not_before, limit, INF)

    def steps(self):
        """The profile as ``[(time, free), ...]``."""
        return [(self.times[k], self.avail[k]) for k in range(self.n)]

    def place_in_order(self, list procs, list durations, list not_before, double now):
        """Reserve jobs one after the other, each at its earliest start ``>=
        max(not_before[k], now)``; their starts (as
        :meth:`AvailabilityProfile.place_in_order`)."""
        cdef Py_ssize_t k, n = len(procs)
        cdef double start
        if len(durations) != n or len(not_before) != n:
            raise ValueError("place_in_order: procs, durations and not_before differ in length")
        out = [None] * n
        for k in range(n):
            start = not_before[k]
            if now > start:
                start = now
            out[k] = self._place(procs[k], durations[k], start)
        return out

    def place_waiting(self, list procs, list requested, list jobs, Py_ssize_t k,
                      double until, double now):
        """Reserve waiting jobs ``k, k + 1, ...`` while ``requested[i] <= until``,
        each for ``jobs[i].requested_time`` at its earliest start ``>=
        max(requested[i], now)``; returns ``(i, starts)``, ``i`` the first job
        left (as :meth:`AvailabilityProfile.place_waiting`)."""
        cdef Py_ssize_t i = k, n = len(requested)
        cdef double start
        if len(procs) != n or len(jobs) != n:
            raise ValueError("place_waiting: procs, requested and jobs differ in length")
        if k < 0:
            raise ValueError(f"place_waiting: first job {k} < 0")
        out = []
        while i < n and <double>requested[i] <= until:
            start = requested[i]
            if now > start:
                start = now
            out.append(self._place(procs[i], jobs[i].requested_time, start))
            i += 1
        return i, out

    def drops(self, double lo=float("-inf"), double hi=float("inf")):
        """``[[time, free], ...]`` where the free count falls (the first step
        excluded), at times ``lo <= time < hi``."""
        cdef Py_ssize_t k, first = self._left(lo), last = self._left(hi)
        if first < 1:
            first = 1
        return [[self.times[k], self.avail[k]] for k in range(first, last)
                if self.avail[k] < self.avail[k - 1]]

    @property
    def n_steps(self):
        """Breakpoints in the profile."""
        return self.n

    # -- the queue -------------------------------------------------------------

    cdef int _queue_room(self, Py_ssize_t cap) except -1:
        """Room for ``cap`` queued jobs."""
        self.q_idx = <count_t*> _resized(self.q_idx, cap * sizeof(count_t))
        self.q_procs = <count_t*> _resized(self.q_procs, cap * sizeof(count_t))
        self.q_req = <double*> _resized(self.q_req, cap * sizeof(double))
        self.q_start = <double*> _resized(self.q_start, cap * sizeof(double))
        self.qcap = cap
        return 0

    def add(self, count_t idx, count_t procs, double requested, double now):
        """Queue job ``idx`` last and reserve its earliest start; returns that start."""
        if self.qn == self.qcap:
            self._queue_room(2 * self.qcap)
        cdef double start = self._place(procs, requested, now)
        cdef Py_ssize_t q = self.qn
        self.q_idx[q] = idx
        self.q_procs[q] = procs
        self.q_req[q] = requested
        self.q_start[q] = start
        self.qn = q + 1
        if start < self.first_start:
            self.first_start = start
        return start

    def replan(self, double now):
        """Place every queued job again, in queue order, at its earliest start
        from ``now`` (after :meth:`reset` and the running jobs' reservations)."""
        cdef Py_ssize_t q
        cdef double start
        self.first_start = INF
        for q in range(self.qn):
            start = self._place(self.q_procs[q], self.q_req[q], now)
            self.q_start[q] = start
            if start < self.first_start:
                self.first_start = start

    cdef inline count_t _peak(self, Py_ssize_t k) noexcept:
        """``max(avail[:k + 1])``, extending the valid prefix of ``peak`` as needed."""
        cdef Py_ssize_t u, v = self.peak_valid
        cdef count_t m
        if k >= v:
            m = self.peak[v - 1] if v else self.avail[0]
            for u in range(v, k + 1):
                if self.avail[u] > m:
                    m = self.avail[u]
                self.peak[u] = m
            self.peak_valid = k + 1
        return self.peak[k]

    def compress(self, double now):
        """Move reservations earlier after an early end; returns how many moved.

        Queued jobs are visited in queue order; each is released and placed
        again at its earliest start no later than its old one (its old slot
        is free, so none moves later). A job is skipped without a search when
        no step before its old start has room for it: then no earlier start
        can fit (``peak`` is the running maximum of the free counts). The
        search runs on the profile as it is (:meth:`_earliest` with
        ``held_from``), and only a job that moves is released and reserved
        again: a job that stays would leave every free count as it was.
        """
        cdef Py_ssize_t q, before
        cdef double old, req, start
        cdef count_t procs
        cdef Py_ssize_t moved = 0
        for q in range(self.qn):
            old = self.q_start[q]
            if old <= now:
                continue
            before = self._left(old)
            if before == 0:
                continue
            procs = self.q_procs[q]
            if self._peak(before - 1) < procs:
                continue
            req = self.q_req[q]
            start = self._earliest(procs, req, now, old, old)
            if start < old:
                self._take(old, old + req, -procs)
                self._take(start, start + req, procs)
                self.q_start[q] = start
                moved += 1
                if start < self.first_start:
                    self.first_start = start
        return moved

    def pop_due(self, double now):
        """Remove the queued jobs whose reservation is at or before ``now``.

        Returns their ids in queue order and the earliest reservation left
        (``inf`` if none).
        """
        cdef list due = []
        cdef Py_ssize_t q, m = 0
        cdef double nxt = INF, s
        if self.first_start > now:  # nothing due: no scan
            return due, self.first_start
        for q in range(self.qn):
            s = self.q_start[q]
            if s <= now:
                due.append(self.q_idx[q])
                continue
            if s < nxt:
                nxt = s
            if m != q:
                self.q_idx[m] = self.q_idx[q]
                self.q_procs[m] = self.q_procs[q]
                self.q_req[m] = self.q_req[q]
                self.q_start[m] = s
            m += 1
        self.qn = m
        self.first_start = nxt
        return due, nxt

    def reservations(self):
        """The queue as ``[(idx, reserved start), ...]`` in queue order."""
        return [(self.q_idx[q], self.q_start[q]) for q in range(self.qn)]

    def __len__(self):
        return self.qn
