# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A whole EASY simulation of rigid jobs, compiled: the engine loop and the policy in one pass.

:func:`run` does what :class:`simlib.engine.simulator.Simulator` does with
:class:`simlib.policies.easy.EASY` under the rate model, step by step and
with the same arithmetic, for the case nothing else takes part in (no
observer, timer, command, estimate watch, debug check or progress report;
:meth:`simlib.policies.easy.EASY.compiled_run` says when): the same rounds
(completions, then submissions, then one scheduling pass), the same order of
completions (finish time, then start order), the same cores taken and given
back (the ledger's free cores as sorted runs of consecutive ids, the lowest
taken first, as :class:`simlib.engine.cores.FreeRuns` holds them: memory by
runs, not by cores), the same shadow time and extra
processors, the same shortcut for submission-only passes, and the same
timeline rows. That engine path is this kernel's pure-Python twin:
``tests/test_easy_kernel.py`` compares both, job by job and row by row.

A subclass of EASY that changes its hooks (:meth:`EASY.order_key
<simlib.policies.easy.EASY.order_key>`, :meth:`EASY.backfill_candidate
<simlib.policies.easy.EASY.backfill_candidate>`) runs here too: each job's
place in the queue's order (``rank``) and whether it may be backfilled
(``candidate``) are computed once in Python and handed over as arrays.

This kernel is kept with the policies' (built the same way, see
:mod:`simlib.policies.kernels`). ``SOURCE_SHA256`` is this file's digest at
build time.
"""
from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport free, malloc, realloc

import numpy as np

from simlib.engine.cores import CoreRuns
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

# simlib.engine.job's states (the kernel keeps its own copy of each job's).
cdef enum:
    PENDING = 0
    WAITING = 1
    RUNNING = 2
    DONE = 3

cdef double INF = float("inf")


cdef struct Event:
    double time   # finish time
    long long seq  # start order: breaks ties as the rate model's heap does
    Py_ssize_t job


cdef inline bint _before(Event* a, Event* b) noexcept nogil:
    return a.time < b.time or (a.time == b.time and a.seq < b.seq)


cdef struct State:
    double* submit
    long long* procs
    double* requested
    double* work
    double* start
    double* finish
    char* state
    long long* f_lo       # the free cores: sorted, disjoint runs f_lo[k]..f_hi[k]
    long long* f_hi       # (none touching: runs given back merge)
    Py_ssize_t n_runs
    Py_ssize_t f_cap
    long long n_free      # free cores
    long long* a_lo       # each job's cores as runs (lo, hi), in the order taken:
    long long* a_hi       # job j's are a_first[j] .. a_first[j] + a_count[j] - 1
    Py_ssize_t n_a
    Py_ssize_t a_cap
    Py_ssize_t* a_first
    Py_ssize_t* a_count
    bint out_of_memory    # a growth failed: the loop stops, run raises MemoryError
    Event* heap           # completions, earliest first
    Py_ssize_t n_heap
    long long seq
    double* end_time      # running jobs by (estimated end, index): by_estimated_end
    Py_ssize_t* end_job
    Py_ssize_t n_running
    Py_ssize_t* queue     # waiting jobs by rank: queue[q_first:q_last]
    long long* rank       # each job's place in the queue's order (FCFS: its index)
    char* candidate       # whether each job may be backfilled
    Py_ssize_t* new_jobs  # a round's submissions by rank (the shortcut's candidates)
    Py_ssize_t q_first
    Py_ssize_t q_last
    long long waiting
    long long processes
    long long done        # jobs completed (for progress reports)
    double now


cdef inline void _push(State* s, double time, Py_ssize_t job) noexcept nogil:
    cdef Py_ssize_t i = s.n_heap, parent
    cdef Event e
    s.seq += 1
    e.time = time
    e.seq = s.seq
    e.job = job
    s.n_heap += 1
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(&e, &s.heap[parent]):
            break
        s.heap[i] = s.heap[parent]
        i = parent
    s.heap[i] = e


cdef inline Py_ssize_t _pop(State* s) noexcept nogil:
    cdef Py_ssize_t job = s.heap[0].job, i = 0, child
    cdef Event last
    s.n_heap -= 1
    if s.n_heap == 0:
        return job
    last = s.heap[s.n_heap]
    while True:
        child = 2 * i + 1
        if child >= s.n_heap:
            break
        if child + 1 < s.n_heap and _before(&s.heap[child + 1], &s.heap[child]):
            child += 1
        if not _before(&s.heap[child], &last):
            break
        s.heap[i] = s.heap[child]
        i = child
    s.heap[i] = last
    return job


cdef inline Py_ssize_t _end_position(State* s, double end, Py_ssize_t job) noexcept nogil:
    """How many running jobs come before ``(end, job)`` in (estimated end, index) order."""
    cdef Py_ssize_t lo = 0, hi = s.n_running, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if s.end_time[mid] < end or (s.end_time[mid] == end and s.end_job[mid] < job):
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef bint _grow(long long** lo, long long** hi, Py_ssize_t* cap) noexcept nogil:
    """Double the capacity of a pair of run arrays; False when memory runs out."""
    cdef Py_ssize_t new_cap = 2 * cap[0] + 16
    cdef long long* a = <long long*> realloc(lo[0], new_cap * sizeof(long long))
    if not a:
        return False
    lo[0] = a
    a = <long long*> realloc(hi[0], new_cap * sizeof(long long))
    if not a:
        return False
    hi[0] = a
    cap[0] = new_cap
    return True


cdef bint _give_back(State* s, long long a, long long b) noexcept nogil:
    """FreeRuns.give_back of one run ``a..b``: merged with the runs it touches."""
    cdef Py_ssize_t lo = 0, hi = s.n_runs, mid
    cdef bint left, right
    while lo < hi:  # the first run starting at or after a
        mid = (lo + hi) >> 1
        if s.f_lo[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    left = lo > 0 and s.f_hi[lo - 1] == a - 1
    right = lo < s.n_runs and s.f_lo[lo] == b + 1
    if left and right:
        s.f_hi[lo - 1] = s.f_hi[lo]
        s.n_runs -= 1
        memmove(s.f_lo + lo, s.f_lo + lo + 1, (s.n_runs - lo) * sizeof(long long))
        memmove(s.f_hi + lo, s.f_hi + lo + 1, (s.n_runs - lo) * sizeof(long long))
    elif left:
        s.f_hi[lo - 1] = b
    elif right:
        s.f_lo[lo] = a
    else:
        if s.n_runs == s.f_cap and not _grow(&s.f_lo, &s.f_hi, &s.f_cap):
            return False
        memmove(s.f_lo + lo + 1, s.f_lo + lo, (s.n_runs - lo) * sizeof(long long))
        memmove(s.f_hi + lo + 1, s.f_hi + lo, (s.n_runs - lo) * sizeof(long long))
        s.f_lo[lo] = a
        s.f_hi[lo] = b
        s.n_runs += 1
    return True


cdef void _start(State* s, Py_ssize_t j) noexcept nogil:
    """Simulator.start: take the lowest free cores, index the estimated end."""
    cdef long long p = s.procs[j], need = p, a, size
    cdef double end = s.now + s.requested[j]
    cdef Py_ssize_t at, k = 0
    s.a_first[j] = s.n_a
    while need:
        if s.n_a == s.a_cap and not _grow(&s.a_lo, &s.a_hi, &s.a_cap):
            s.out_of_memory = True
            return
        a = s.f_lo[k]
        size = s.f_hi[k] - a + 1
        s.a_lo[s.n_a] = a
        if size <= need:  # the whole run
            s.a_hi[s.n_a] = s.f_hi[k]
            k += 1
            need -= size
        else:
            s.a_hi[s.n_a] = a + need - 1
            s.f_lo[k] = a + need
            need = 0
        s.n_a += 1
    if k:
        s.n_runs -= k
        memmove(s.f_lo, s.f_lo + k, s.n_runs * sizeof(long long))
        memmove(s.f_hi, s.f_hi + k, s.n_runs * sizeof(long long))
    s.a_count[j] = s.n_a - s.a_first[j]
    s.n_free -= p
    s.state[j] = RUNNING
    s.start[j] = s.now
    at = _end_position(s, end, j)
    memmove(s.end_time + at + 1, s.end_time + at, (s.n_running - at) * sizeof(double))
    memmove(s.end_job + at + 1, s.end_job + at, (s.n_running - at) * sizeof(Py_ssize_t))
    s.end_time[at] = end
    s.end_job[at] = j
    s.n_running += 1
    s.waiting -= 1
    s.processes += p
    _push(s, s.now + s.work[j] / 1.0, j)  # the rate model's finish: now + work left / rate


cdef void _complete(State* s, Py_ssize_t j) noexcept nogil:
    """Simulator._complete: give the cores back, drop the estimated end."""
    cdef long long p = s.procs[j]
    cdef Py_ssize_t at, k
    s.state[j] = DONE
    s.finish[j] = s.now
    s.done += 1
    for k in range(s.a_first[j], s.a_first[j] + s.a_count[j]):
        if not _give_back(s, s.a_lo[k], s.a_hi[k]):
            s.out_of_memory = True
            return
    s.n_free += p
    at = _end_position(s, s.start[j] + s.requested[j], j)
    memmove(s.end_time + at, s.end_time + at + 1, (s.n_running - at - 1) * sizeof(double))
    memmove(s.end_job + at, s.end_job + at + 1, (s.n_running - at - 1) * sizeof(Py_ssize_t))
    s.n_running -= 1
    s.processes -= p


cdef void _shadow(State* s, long long need, long long free_now, double* shadow,
                  long long* extra) noexcept nogil:
    """simlib.policies.base.shadow_time."""
    cdef long long avail = free_now
    cdef Py_ssize_t i = 0
    cdef double at = s.now
    while i < s.n_running:
        avail += s.procs[s.end_job[i]]
        i += 1
        if avail >= need:
            at = s.end_time[i - 1]
            break
    while i < s.n_running and s.end_time[i] == at:  # ties release their cores too
        avail += s.procs[s.end_job[i]]
        i += 1
    shadow[0] = at if at > s.now else s.now
    extra[0] = avail - need


cdef inline void _enqueue(State* s, Py_ssize_t j) noexcept nogil:
    """Put waiting job ``j`` at its rank's place in the queue (FCFS: the end, at once)."""
    cdef Py_ssize_t lo = s.q_first, hi = s.q_last, mid
    cdef long long r = s.rank[j]
    if hi > lo and s.rank[s.queue[hi - 1]] > r:
        while lo < hi:
            mid = (lo + hi) >> 1
            if s.rank[s.queue[mid]] < r:
                lo = mid + 1
            else:
                hi = mid
        memmove(s.queue + lo + 1, s.queue + lo, (s.q_last - lo) * sizeof(Py_ssize_t))
    else:
        lo = hi
    s.queue[lo] = j
    s.q_last += 1


cdef void _sort_new(State* s, Py_ssize_t first, Py_ssize_t last) noexcept nogil:
    """``new_jobs``: jobs first..last-1 by rank (insertion sort: a round's few submissions)."""
    cdef Py_ssize_t i, k, j
    for i in range(last - first):
        j = first + i
        k = i
        while k > 0 and s.rank[s.new_jobs[k - 1]] > s.rank[j]:
            s.new_jobs[k] = s.new_jobs[k - 1]
            k -= 1
        s.new_jobs[k] = j


cdef void _schedule(State* s, bint full, Py_ssize_t new_first, Py_ssize_t new_last,
                    Py_ssize_t* res_head, double* res_shadow, long long* res_extra) noexcept nogil:
    """EASY.schedule (after QueuePolicy.on_round queued the new jobs)."""
    cdef long long free_now = s.n_free, p, extra
    cdef Py_ssize_t head, j, i, last, kept, first = s.q_first
    cdef double shadow
    cdef bint started = False, only_new
    # start_head_jobs: in queue order while the head fits.
    while s.q_first < s.q_last:
        j = s.queue[s.q_first]
        if s.procs[j] > free_now:
            break
        _start(s, j)
        free_now -= s.procs[j]
        s.q_first += 1
    if s.q_first == s.q_last:
        res_head[0] = -1
        return
    head = s.queue[s.q_first]
    # Submissions only, same head, nothing started at the head: its
    # reservation stands and only the new jobs (new_first..new_last-1, in
    # rank order) are candidates.
    only_new = not full and res_head[0] == head and s.q_first == first
    if only_new:
        shadow = res_shadow[0]
        extra = res_extra[0]
        _sort_new(s, new_first, new_last)
        i = 0
        last = new_last - new_first
    else:
        _shadow(s, s.procs[head], free_now, &shadow, &extra)
        i = s.q_first + 1
        last = s.q_last
    while i < last:
        if free_now == 0:
            break
        j = s.new_jobs[i] if only_new else s.queue[i]
        i += 1
        p = s.procs[j]
        if p > free_now or s.state[j] != WAITING or not s.candidate[j]:
            continue
        if s.now + s.requested[j] <= shadow:
            _start(s, j)
        elif p <= extra:
            _start(s, j)
            extra -= p
        else:
            continue
        free_now -= p
        started = True
    if started:  # drop the started jobs from the queue, keeping its order
        kept = s.q_first
        for i in range(s.q_first, s.q_last):
            if s.state[s.queue[i]] == WAITING:
                s.queue[kept] = s.queue[i]
                kept += 1
        s.q_last = kept
    res_head[0] = head
    res_shadow[0] = shadow
    res_extra[0] = extra


def run(list jobs, object free_runs, bint record_timeline, list rank=None, list candidate=None,
        object progress=None):
    """Simulate ``jobs`` (validated, in submission order) under EASY to the end.

    Parameters
    ----------
    jobs : list of simlib.engine.job.Job
        Every job pending, ``idx`` its position, in submission order, with
        float times, an integer size from 1 to the number of cores and
        ``work`` within [0, requested time] (overrun "kill"); otherwise
        None is returned and nothing is changed.
    free_runs : simlib.engine.cores.FreeRuns
        The ledger's free cores at the start (the top taken first); left as
        they are (the caller puts the returned runs in place).
    record_timeline : bool
        Whether to record the timeline rows.
    rank : list of int, optional
        Each job's place in the queue's order, a permutation of 0..n-1
        (:meth:`EASY.static_hooks <simlib.policies.easy.EASY.static_hooks>`);
        None: submission order (FCFS).
    candidate : list of bool, optional
        Whether each job may be backfilled; None: every job.
    progress : callable, optional
        ``progress(done, total, now)``, called every 65,536 rounds (the
        engine's ``Simulator(progress=...)``; what it does is the caller's:
        the command line draws a bar on a terminal after 2 s).

    Returns
    -------
    tuple or None
        ``(lo, hi, now, timeline)``: the free stack's runs at the end (as
        ``FreeRuns.lo`` and ``.hi``), the last round's time and the
        timeline's rows ``(time, busy cores, queued jobs, processes)`` as
        a float64 array of 4 columns (no rows unless recorded). Each job's
        ``state``, ``start``, ``finish``,
        ``cpus``, ``alloc``, ``estimated_end``, ``rate`` and the rate model's
        ``work_left``, ``last_update``, ``version`` are set as the engine
        leaves them.

    Examples
    --------
    Two cores; the second job waits for the first (its shadow time, 10):

    >>> from simlib.engine.cores import FreeRuns
    >>> from simlib.engine.job import Job
    >>> jobs = [Job(0, 1, 0.0, 2, 10.0, 10.0), Job(1, 2, 1.0, 1, 5.0, 5.0)]
    >>> lo, hi, now, timeline = run(jobs, FreeRuns(2), True)
    >>> [(j.start, j.finish, j.alloc) for j in jobs]
    [(0.0, 10.0, [0, 1]), (10.0, 15.0, [0])]
    >>> lo, hi, now
    ([0], [1], 15.0)
    >>> timeline.tolist()
    [[0.0, 2.0, 0.0, 2.0], [1.0, 2.0, 1.0, 2.0], [10.0, 1.0, 0.0, 1.0], [15.0, 0.0, 0.0, 0.0]]
    """
    cdef Py_ssize_t n = len(jobs), j
    cdef object job
    if n == 0:
        return list(free_runs.lo), list(free_runs.hi), 0.0, np.zeros((0, 4))
    # Jobs outside what the loop does are the engine's (it has the errors for
    # them): decline before changing anything.
    for j in range(n):
        job = jobs[j]
        if (type(job.submit) is not float or type(job.requested_time) is not float
                or type(job.work) is not float or type(job.procs) is not int
                or job.state != PENDING or job.idx != j):
            return None
    if (rank is not None and len(rank) != n) or (candidate is not None and len(candidate) != n):
        raise ValueError("rank and candidate need one value per job")
    out = run_columns(
        np.fromiter([job.submit for job in jobs], np.float64, n),
        np.fromiter([job.procs for job in jobs], np.int64, n),
        np.fromiter([job.requested_time for job in jobs], np.float64, n),
        np.fromiter([job.work for job in jobs], np.float64, n),
        free_runs, record_timeline,
        None if rank is None else np.asarray(rank, dtype=np.int64),
        None if candidate is None else np.asarray(candidate, dtype=np.int8), progress)
    if out is None:
        return None
    start, finish = out["start"].tolist(), out["finish"].tolist()
    first, count = out["run_first"].tolist(), out["run_count"].tolist()
    lo, hi = out["run_lo"].tolist(), out["run_hi"].tolist()
    for j in range(n):
        job = jobs[j]
        job.state = DONE
        job.start = start[j]
        job.finish = finish[j]
        job.rate = 1.0
        job.cpus = job.procs
        k = first[j]
        job.alloc = CoreRuns(tuple([c for r in range(k, k + count[j]) for c in (lo[r], hi[r])]))
        job.estimated_end = start[j] + job.requested_time
        job.work_left = 0.0
        job.last_update = start[j]
        job.version += 1
    return out["free_lo"], out["free_hi"], out["now"], out["timeline"]


def run_columns(const double[::1] submit, const long long[::1] procs,
                const double[::1] requested, const double[::1] work, object free_runs,
                bint record_timeline, const long long[::1] rank=None,
                const signed char[::1] candidate=None, object progress=None):
    """:func:`run` on columns: the jobs as arrays, the schedule as arrays.

    No object per job: a million jobs cost their columns (a few tens of
    bytes each) and their core runs, which is how
    :func:`simlib.runner.simulate` runs a plain EASY workload.

    Parameters
    ----------
    submit, procs, requested, work : numpy.ndarray
        One value per job in submission order (float64, int64, float64,
        float64), the fields :func:`run` reads from the jobs.
    free_runs, record_timeline, progress
        As for :func:`run`.
    rank : numpy.ndarray of int64, optional
    candidate : numpy.ndarray of int8, optional
        As for :func:`run`.

    Returns
    -------
    dict or None
        ``start``, ``finish`` (float64 per job), ``run_first``,
        ``run_count`` (int64 per job: the job's runs of cores are
        ``run_lo[run_first[j]:run_first[j] + run_count[j]]`` and the same of
        ``run_hi``, in the order taken), ``run_lo``, ``run_hi``, ``free_lo``,
        ``free_hi`` (lists), ``now`` and ``timeline`` (as :func:`run`); None
        when a job is outside what the loop does (nothing changed).

    Examples
    --------
    >>> import numpy as np
    >>> from simlib.engine.cores import FreeRuns
    >>> out = run_columns(np.array([0.0, 1.0]), np.array([2, 1]), np.array([10.0, 5.0]),
    ...                   np.array([10.0, 5.0]), FreeRuns(2), False)
    >>> out["start"].tolist(), out["finish"].tolist(), out["run_lo"].tolist(), out["run_hi"].tolist()
    ([0.0, 10.0], [10.0, 15.0], [0, 0], [1, 0])
    """
    cdef State st
    cdef State* s = &st
    cdef Py_ssize_t n = submit.shape[0], j, k, nxt = 0, new_first, rows = 0, cap_rows
    cdef Py_ssize_t res_head = -1
    cdef double res_shadow = 0.0, t_sub, t_end, t_now, previous = -INF
    cdef long long res_extra = 0, total = free_runs.count
    cdef list free_lo = free_runs.lo, free_hi = free_runs.hi
    cdef bint finished, report = progress is not None
    cdef long long rounds = 0
    cdef double* tl_time = NULL
    cdef long long* tl_busy = NULL
    cdef long long* tl_queued = NULL
    cdef long long* tl_processes = NULL
    cdef double[:, :] tv
    cdef double[::1] start_v, finish_v
    cdef long long[::1] first_v, count_v, lo_v, hi_v
    if procs.shape[0] != n or requested.shape[0] != n or work.shape[0] != n:
        raise ValueError("submit, procs, requested and work need one value per job")
    if (rank is not None and rank.shape[0] != n) or (candidate is not None
                                                     and candidate.shape[0] != n):
        raise ValueError("rank and candidate need one value per job")
    start_a, finish_a = np.empty(n), np.empty(n)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return {"start": start_a, "finish": finish_a, "run_first": empty, "run_count": empty,
                "run_lo": empty, "run_hi": empty, "free_lo": list(free_lo),
                "free_hi": list(free_hi), "now": 0.0, "timeline": np.zeros((0, 4))}
    start_v, finish_v = start_a, finish_a
    # The columns are read where they are; only the loop's own state is allocated.
    s.submit = <double*> &submit[0]
    s.procs = <long long*> &procs[0]
    s.requested = <double*> &requested[0]
    s.work = <double*> &work[0]
    s.start = &start_v[0]
    s.finish = &finish_v[0]
    s.state = <char*> malloc(n)
    s.a_first = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    s.a_count = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    s.f_cap = len(free_lo) + 16
    s.f_lo = <long long*> malloc(s.f_cap * sizeof(long long))
    s.f_hi = <long long*> malloc(s.f_cap * sizeof(long long))
    s.a_cap = n + 16  # a run per job to start with; grown as needed
    s.a_lo = <long long*> malloc(s.a_cap * sizeof(long long))
    s.a_hi = <long long*> malloc(s.a_cap * sizeof(long long))
    s.out_of_memory = False
    s.heap = <Event*> malloc((n + 1) * sizeof(Event))
    s.end_time = <double*> malloc((n + 1) * sizeof(double))
    s.end_job = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    s.queue = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    s.rank = <long long*> malloc((n + 1) * sizeof(long long))
    s.candidate = <char*> malloc(n + 1)
    s.new_jobs = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    cap_rows = 2 * n + 1  # at most one row per submission time and one per finish time
    if record_timeline:
        tl_time = <double*> malloc(cap_rows * sizeof(double))
        tl_busy = <long long*> malloc(cap_rows * sizeof(long long))
        tl_queued = <long long*> malloc(cap_rows * sizeof(long long))
        tl_processes = <long long*> malloc(cap_rows * sizeof(long long))
    try:
        if not (s.state and s.a_first and s.a_count and s.f_lo and s.f_hi and s.a_lo
                and s.a_hi and s.heap and s.end_time
                and s.end_job and s.queue and s.rank and s.candidate and s.new_jobs):
            raise MemoryError()
        if record_timeline and not (tl_time and tl_busy and tl_queued and tl_processes):
            raise MemoryError()
        for j in range(n):
            if not (1 <= s.procs[j] <= total and s.submit[j] >= previous and s.submit[j] < INF
                    and 0.0 < s.requested[j] < INF and 0.0 <= s.work[j] <= s.requested[j]):
                return None  # NaN fails every comparison
            previous = s.submit[j]
            s.state[j] = PENDING
            s.a_first[j] = s.a_count[j] = 0
            s.rank[j] = j if rank is None else rank[j]
            s.candidate[j] = True if candidate is None else candidate[j] != 0
        s.n_runs = len(free_lo)
        for k in range(s.n_runs):
            s.f_lo[k] = free_lo[k]
            s.f_hi[k] = free_hi[k]
        s.n_free = total
        s.n_a = 0
        s.n_heap = 0
        s.seq = 0
        s.n_running = 0
        s.q_first = s.q_last = 0
        s.waiting = s.processes = s.done = 0
        s.now = 0.0
        with nogil:
            while True:
                t_sub = s.submit[nxt] if nxt < n else INF
                t_end = s.heap[0].time if s.n_heap else INF
                t_now = t_end if t_end < t_sub else t_sub
                if t_now == INF or s.out_of_memory:
                    break
                rounds += 1
                if not (rounds & 0xFFFF):
                    with gil:  # Ctrl-C is heard here, not only at the end of a long run
                        PyErr_CheckSignals()
                        if report:
                            progress(s.done, n, t_now)
                s.now = t_now
                finished = False
                if t_end == s.now:
                    while s.n_heap and s.heap[0].time <= s.now:
                        _complete(s, _pop(s))
                        finished = True
                new_first = nxt
                if t_sub == s.now:
                    while nxt < n and s.submit[nxt] == s.now:
                        s.state[nxt] = WAITING
                        _enqueue(s, nxt)
                        nxt += 1
                    s.waiting += nxt - new_first
                if not finished and nxt == new_first:
                    continue
                if s.q_first < s.q_last:
                    _schedule(s, finished, new_first, nxt, &res_head, &res_shadow, &res_extra)
                if record_timeline:
                    if rows and tl_time[rows - 1] == s.now:
                        rows -= 1  # a second round at one time replaces its row
                    tl_time[rows] = s.now
                    tl_busy[rows] = total - s.n_free
                    tl_queued[rows] = s.waiting
                    tl_processes[rows] = s.processes
                    rows += 1
        if s.out_of_memory:
            raise MemoryError("the compiled EASY loop ran out of memory for core runs")
        for j in range(n):
            if s.state[j] != DONE:
                raise RuntimeError(f"the compiled EASY loop left job {j} unfinished")
        first_a, count_a = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        lo_a, hi_a = np.empty(s.n_a, dtype=np.int64), np.empty(s.n_a, dtype=np.int64)
        first_v, count_v, lo_v, hi_v = first_a, count_a, lo_a, hi_a
        for j in range(n):
            first_v[j] = s.a_first[j]
            count_v[j] = s.a_count[j]
        for k in range(s.n_a):
            lo_v[k] = s.a_lo[k]
            hi_v[k] = s.a_hi[k]
        timeline = np.empty((rows, 4))
        tv = timeline
        for k in range(rows):
            tv[k, 0] = tl_time[k]
            tv[k, 1] = tl_busy[k]
            tv[k, 2] = tl_queued[k]
            tv[k, 3] = tl_processes[k]
        return {"start": start_a, "finish": finish_a, "run_first": first_a,
                "run_count": count_a, "run_lo": lo_a, "run_hi": hi_a,
                "free_lo": [s.f_lo[k] for k in range(s.n_runs)],
                "free_hi": [s.f_hi[k] for k in range(s.n_runs)], "now": s.now,
                "timeline": timeline}
    finally:
        free(s.state); free(s.a_first); free(s.a_count); free(s.heap)
        free(s.f_lo); free(s.f_hi); free(s.a_lo); free(s.a_hi)
        free(s.end_time); free(s.end_job); free(s.queue)
        free(s.rank); free(s.candidate); free(s.new_jobs)
        free(tl_time); free(tl_busy); free(tl_queued); free(tl_processes)
