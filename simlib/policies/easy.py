"""EASY backfilling (Lifka 1995; as defined by Mu'alem & Feitelson, TPDS 2001).

At every scheduling pass:

1. Start queue-head jobs in order while they fit.
2. If the head job still does not fit, compute its reservation: the
   **shadow time** is the earliest estimated end of running jobs at which
   enough processors are free for it; the **extra processors** are those free
   at the shadow time beyond what the head needs — counting every running job
   whose estimated end is at or before the shadow time, ties included.
3. Backfill: scan the rest of the queue in order; a job may start now if it
   fits in the free processors and either ends (by its estimate) by the
   shadow time, or uses no more than the extra processors (which it then
   consumes).

The head is retried at every pass (jobs end early, so its reservation can
move forward), never only when its reservation time arrives.

When a pass is triggered only by submissions (nothing ended, no estimate
changed), the shadow time and extra processors are what they were at the
previous pass minus what was started since, and the older queued jobs were
already refused under conditions that only got stricter (``now`` grew), so
only the newly submitted jobs are examined. This keeps submission-only
rounds O(new jobs) instead of O(queue).

:func:`simlib.runner.simulate` runs a whole EASY simulation in compiled
code (:meth:`EASY.compiled_run`, the kernel ``_easy_kernel``) when nothing
but the engine and this policy takes part: same rounds, same decisions,
same cores, same timeline. The engine with this class is the reference and
the kernel's pure-Python twin (``SIMLIB_KERNELS=python`` runs it).

The ``reading`` parameter switches to EASY as pybatsim 3.2.1's
``easyBackfill`` implements it (jobs on contiguous free spaces; the rules
are in :mod:`simlib.policies.easy_pybatsim`), which runs in the engine's
loop only.

**Hooks for a user's variant.** Two decisions can be changed by a subclass
without leaving the compiled loop (``docs/writing_a_policy.md``):

* :meth:`EASY.order_key` — the queue's priority order (default: submission
  order, FCFS); the head of that order gets the reservation;
* :meth:`EASY.backfill_candidate` — which jobs may be backfilled (default:
  every job).

Both are computed once per job, from the job's static fields (submit time,
requested time, size, ...) and the policy's parameters, before the run:
they may not look at the machine or the clock. With an order other than
FCFS a new job may overtake the head; the submission-only shortcut then
holds only while the head and the free processors are those of the previous
pass (nothing started at the head of the queue), otherwise the pass is a
full one. :meth:`EASY.compiled_problem` says whether a class keeps the
compiled loop; ``policy.ran_compiled`` whether a run used it.
"""
from __future__ import annotations

from bisect import insort
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..engine.job import WAITING, Job
from ..errors import ConfigError
from .base import QueuePolicy, shadow_time

if TYPE_CHECKING:  # pragma: no cover
    from .easy_pybatsim import PybatsimReading

#: Kernels this module runs (a code input of steps using it: simlib.codedeps).
COMPILED_KERNELS = ("_easy_kernel",)

#: Values of the ``reading`` parameter: which EASY (the default first).
READINGS = ("mualem_feitelson", "pybatsim")

#: What a subclass of EASY may define and still run in the compiled loop:
#: its identity and parameters, the two hooks, and the class machinery
#: Python itself writes. Names EASY does not have are allowed too (helpers
#: and constants of the subclass: nothing in the loop calls them).
COMPILED_OVERRIDES = frozenset({
    "name", "paper", "description", "defaults", "__init__", "check_param_types", "draws",
    "order_key", "backfill_candidate",
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__",
    "__firstlineno__", "__static_attributes__", "__orig_bases__", "__parameters__",
    "__annotate_func__", "__annotations_cache__",
})


class EASY(QueuePolicy):
    """EASY backfilling with one reservation, for the queue head.

    ``self.reservation`` is ``(head job, shadow time, extra processors)`` after a
    pass where the head could not start (read by tests and figures);
    ``self.ran_compiled`` is True after a run of the compiled loop.

    Subclasses change the queue's order with :meth:`order_key` and the jobs
    that may be backfilled with :meth:`backfill_candidate`, and keep the
    compiled loop (:meth:`compiled_problem`).

    Parameters
    ----------
    reading : str
        Which EASY: ``"mualem_feitelson"`` (default) is the algorithm as
        Mu'alem & Feitelson define it, on counts of processors (the shadow
        time and the extra processors above; the compiled loop runs it).
        ``"pybatsim"`` is EASY as pybatsim 3.2.1's ``easyBackfill``
        scheduler implements it, the one Batsim's cross-check runs: jobs
        are rectangles on contiguous free spaces, the head is reserved in
        one contiguous free space, a job is backfilled into one contiguous
        free space whose time limit it respects, and jobs are placed at the
        low or the high end of a space (rules and line citations:
        :mod:`simlib.policies.easy_pybatsim`). That reading keeps per-core
        state and runs in the engine's loop, never the compiled one; run
        it with ``--passes per_event`` for pybatsim's one pass per event.
        Only EASY and its subclasses that change nothing but the hooks
        take it. ``self.reservation`` is then ``(head job, shadow time,
        (first, last) core ids of the head's block)``.

    Examples
    --------
    >>> from simlib.policies import make_policy
    >>> make_policy("easy", reading="pybatsim").keeps_core_state()
    True
    >>> make_policy("easy", reading="lifka")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: easy: parameter reading must be one of mualem_feitelson, pybatsim; not 'lifka'
    """

    def keeps_core_state(self) -> bool:
        # Counts of free processors only; pybatsim's reading keeps its free spaces.
        return self.params.get("reading") == "pybatsim"

    name = "easy"
    paper = "baseline: Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6) 2001"
    description = "EASY backfilling: one reservation, for the queue head"
    defaults = {"reading": READINGS[0]}
    simulator_switches = ("reading",)

    def __init__(self, **params):
        super().__init__(**params)
        reading = self.params.get("reading", READINGS[0])
        if reading not in READINGS:
            raise ConfigError(f"{self.name}: parameter reading must be one of "
                              f"{', '.join(READINGS)}; not {reading!r}")
        if reading != READINGS[0] and type(self).compiled_problem() is not None:
            raise ConfigError(f"{self.name}: reading {reading!r} is EASY's own; "
                              f"{type(self).compiled_problem()}")
        #: The pybatsim reading's state (made at ``attach``), None for Mu'alem
        #: & Feitelson's.
        self._pybatsim: PybatsimReading | None = None
        self.reservation = None
        self.ran_compiled = False
        #: Each job's place in the queue's order (by ``idx``), None for FCFS.
        self._rank: list[int] | None = None
        #: Each job's :meth:`backfill_candidate` (by ``idx``), None for all.
        self._candidate: list[bool] | None = None

    # ------------------------------------------------------------ the hooks
    def order_key(self, job: Job) -> Any:
        """The queue's priority of ``job``: smaller first, ties in submission order.

        Called once per job, before the run, on its static fields (``submit``,
        ``requested_time``, ``procs``, ``job_id``, ``features``, ...) and the
        policy's parameters. Any values that compare with each other (numbers,
        tuples), never NaN. The head of this order is started first and gets
        the reservation; backfilling scans the rest in this order. Default:
        the submit time, i.e. FCFS (the compiled loop then keeps its queue in
        submission order without sorting).

        Examples
        --------
        >>> from simlib.engine.job import Job
        >>> EASY().order_key(Job(0, 1, 30.0, 4, 600.0, 500.0))
        30.0
        """
        return job.submit

    def backfill_candidate(self, job: Job) -> bool:
        """Whether ``job`` may be backfilled (started ahead of the reserved head).

        Called once per job, before the run, as :meth:`order_key`. A job that
        is not a candidate still starts when it reaches the head of the
        queue. Default: every job is.

        Examples
        --------
        >>> from simlib.engine.job import Job
        >>> EASY().backfill_candidate(Job(0, 1, 30.0, 4, 600.0, 500.0))
        True
        """
        return True

    @classmethod
    def uses_hooks(cls) -> bool:
        """Whether ``cls`` changes :meth:`order_key` or :meth:`backfill_candidate`."""
        return (cls.order_key is not EASY.order_key
                or cls.backfill_candidate is not EASY.backfill_candidate)

    def static_hooks(self, jobs: list[Job]) -> tuple[list[int] | None, list[bool] | None]:
        """``(rank, candidate)`` of every job (indexed by ``idx``), None where the default.

        ``rank[i]`` is job ``i``'s place in the order of ``(order_key, idx)``.

        Raises
        ------
        ConfigError
            An order key that is NaN or does not compare with the others.

        Examples
        --------
        >>> from simlib.engine.job import Job
        >>> class Widest(EASY):
        ...     def order_key(self, job): return -job.procs
        >>> jobs = [Job(0, 1, 0.0, 2, 9.0, 9.0), Job(1, 2, 1.0, 8, 9.0, 9.0)]
        >>> Widest().static_hooks(jobs)
        ([1, 0], None)
        """
        cls = type(self)
        rank = candidate = None
        if cls.order_key is not EASY.order_key:
            keys = [self.order_key(job) for job in jobs]
            for job, key in zip(jobs, keys):
                if key != key:  # NaN would make the order depend on the sort's path
                    raise ConfigError(f"{self.name}: order_key of job {job.job_id} is NaN")
            try:
                order = sorted(range(len(jobs)), key=lambda i: (keys[i], i))
            except TypeError as exc:
                raise ConfigError(f"{self.name}: order_key values do not compare: "
                                  f"{exc}") from None
            rank = [0] * len(jobs)
            for place, i in enumerate(order):
                rank[i] = place
        if cls.backfill_candidate is not EASY.backfill_candidate:
            candidate = [bool(self.backfill_candidate(job)) for job in jobs]
        return rank, candidate

    def attach(self, sim) -> None:
        super().attach(sim)
        # Static per-job values, once: the engine has settled each job's work
        # (overrun "kill") by now, and the compiled loop reads the same lists.
        self._rank, self._candidate = self.static_hooks(sim.jobs)
        if self.params.get("reading") == "pybatsim":
            from .easy_pybatsim import PybatsimReading  # only this reading needs it
            self._pybatsim = PybatsimReading(self)

    def on_round(self, now, finished, submitted, timers, changed):
        if self._pybatsim is not None:
            self._pybatsim.released(finished)
        super().on_round(now, finished, submitted, timers, changed)

    # ------------------------------------------------------ the compiled loop
    @classmethod
    def compiled_problem(cls) -> str | None:
        """Why a run of ``cls`` cannot use the compiled loop, or None when it can.

        A subclass keeps it when it defines only its identity and parameters
        (``name``, ``paper``, ``description``, ``defaults``, ``__init__``,
        ``check_param_types``), the hooks :meth:`order_key` and
        :meth:`backfill_candidate`, and names EASY does not have (helpers).
        Overriding anything else of EASY (``schedule``, ``shadow``,
        ``on_round``, ``start_head_jobs``, ``attach``, ``rigid``, ...) sends
        its runs to the engine's loop, which runs every method as written.
        Whether a given run can also depends on the run
        (:meth:`compiled_run`).

        Examples
        --------
        >>> EASY.compiled_problem() is None
        True
        >>> class Mine(EASY):
        ...     def shadow(self, head): return super().shadow(head)
        >>> Mine.compiled_problem()
        'Mine overrides EASY.shadow (only order_key and backfill_candidate keep the compiled loop)'
        """
        for klass in cls.__mro__:
            if klass is EASY:
                return None
            for attr in vars(klass):
                if attr not in COMPILED_OVERRIDES and hasattr(EASY, attr):
                    return (f"{klass.__name__} overrides EASY.{attr} (only order_key and "
                            "backfill_candidate keep the compiled loop)")
        return f"{cls.__name__} is not a subclass of EASY"

    def compiled_run(self, sim) -> bool:
        """Run ``sim`` to its end in the compiled EASY loop when it can; whether it did.

        It can when ``sim`` is a fresh :class:`~simlib.engine.simulator.Simulator`
        of this fresh policy (:class:`EASY` or a subclass changing only its
        hooks: :meth:`compiled_problem`) and
        nothing else takes part: the rate model, overrun "kill", no
        observer, timer or command, no debug checks, one ledger layer, and
        the kernel built; every job pending, with float times and an integer
        size (the kernel declines other jobs itself). Then the jobs, the
        ledger, the rate model's records and the timeline end as
        :meth:`Simulator.run <simlib.engine.simulator.Simulator.run>` leaves
        them (``tests/test_easy_kernel.py`` compares both); a progress
        callback is called once, at the end.
        """
        from ..engine.execution import RateModel
        from ..engine.simulator import Simulator
        from . import kernels

        # Every Simulator option is looked at (here and in
        # unobserved_and_fresh; a test keeps this in step with Simulator's
        # parameters): what the kernel does not do makes it decline.
        # overrun_step only matters with overrun "extend"; progress_every is
        # moot (a progress callback hears the end once). An instance
        # attribute named as one of EASY's (a method replaced in __init__)
        # is a change the kernel would not make.
        if (self.params.get("reading") == "pybatsim"   # its own loop: the engine's
                or self.compiled_problem() is not None or type(sim) is not Simulator
                or sim.policy is not self or any(hasattr(EASY, k) for k in vars(self))
                or self.queue or self.reservation is not None
                or type(sim.execution) is not RateModel or sim.ledger.layers != 1
                or not sim.unobserved_and_fresh()):
            return False
        ledger = sim.ledger
        kernel = kernels.load(COMPILED_KERNELS[0])
        if kernel is None:
            return False
        done = kernel.run(sim.jobs, ledger._free, sim.record_timeline, self._rank,
                          self._candidate, sim.progress)
        if done is None:  # a job outside what the kernel does (it changed nothing)
            return False
        free = ledger._free
        # Every job has ended: the count of free cores is what it was.
        free.lo, free.hi, sim.now, sim.timeline = done
        sim.execution.ran_rigid(sim.jobs)
        self.new_jobs = []
        self.ran_compiled = True
        if sim.progress is not None:
            sim.progress(len(sim.jobs), len(sim.jobs), sim.now)
        return True

    def columnar_run(self, cols: dict, cpus: int, *, record_timeline: bool, progress,
                     workload_name: str):
        """A whole run as columns: :func:`simlib.runner.simulate`'s path for a
        plain EASY workload (no subclass, nothing else taking part, which the
        caller checks): the compiled loop reads the jobs' columns
        (:func:`simlib.runner.job_columns`) and gives the schedule as
        columns, so a million jobs make no object each (the engine's Job
        objects are made only if the result's ``engine_jobs`` is read).

        Returns the :class:`~simlib.runner.SimResult`, or None to decline
        (a subclass or a changed hook, no compiled kernel, a job outside what
        the loop does): the caller then runs the engine, with the same result.
        """
        from ..engine.cores import FreeRuns
        from . import kernels
        if (type(self) is not EASY or self.params.get("reading") == "pybatsim"
                or any(hasattr(EASY, k) for k in vars(self)) or self.queue
                or self.reservation is not None or self.compiled_problem() is not None):
            return None
        kernel = kernels.load(COMPILED_KERNELS[0])
        if kernel is None:
            return None
        out = kernel.run_columns(cols["submit"], cols["procs"], cols["requested_time"],
                                 cols["work"], FreeRuns(cpus), record_timeline, None, None,
                                 progress)
        if out is None:
            return None
        self.ran_compiled = True
        n = len(cols["submit"])
        if progress is not None:
            progress(n, n, out["now"])
        from ..runner import SimResult, jobs_from_columns, table_from_columns
        return SimResult(table_from_columns(cols, out, workload_name), out["timeline"], cpus,
                         self.name, lambda: jobs_from_columns(cols, out))

    # ----------------------------------------------------- the engine's loop
    def shadow(self, head):
        """Return ``(shadow_time, extra_processors)`` for ``head`` (which does not fit now)."""
        return shadow_time(self.sim, head.procs)

    def _queue_new_jobs(self) -> None:
        """Move this round's submissions (the queue's tail) to their places in the order."""
        q, new, rank = self.queue, self.new_jobs, self._rank
        k = len(new)
        if len(q) >= k and q[len(q) - k] is new[0]:  # QueuePolicy.on_round appended them
            del q[len(q) - k:]
            for job in new:
                insort(q, job, key=lambda j: rank[j.idx])
        else:  # a subclass queued them otherwise
            q.sort(key=lambda j: rank[j.idx])
        # The submission-only shortcut scans the new jobs in the queue's order.
        self.new_jobs = sorted(new, key=lambda j: rank[j.idx])

    def schedule(self, now, full):
        q = self.queue
        if self._rank is not None and self.new_jobs:
            self._queue_new_jobs()
        if self._pybatsim is not None:
            self._pybatsim.schedule(now)
            return
        waiting = len(q)
        free = self.start_head_jobs()
        if not q:
            self.reservation = None
            return
        sim = self.sim
        head = q[0]
        # The reservation stands when only submissions happened and the head
        # and the free processors are the last pass's (in FCFS order a started
        # head job means a new head; in another order a new job may overtake
        # the head and start).
        if (full or self.reservation is None or self.reservation[0] is not head
                or len(q) != waiting):
            shadow, extra = self.shadow(head)
            candidates = islice(q, 1, None)  # the queue does not change during the scan
        else:
            _, shadow, extra = self.reservation
            candidates = self.new_jobs
        allowed = self._candidate
        started = []
        for job in candidates:
            if free == 0:
                break
            p = job.procs
            if p > free or job.state != WAITING:
                continue
            if allowed is not None and not allowed[job.idx]:
                continue
            if now + job.requested_time <= shadow:
                sim.start(job)
            elif p <= extra:
                sim.start(job)
                extra -= p
            else:
                continue
            free -= p
            started.append(job)
        if started:
            self.drop(started)
        self.reservation = (head, shadow, extra)
