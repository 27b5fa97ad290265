"""Conservative backfilling (Mu'alem & Feitelson, TPDS 2001).

Every queued job holds a reservation: on submission it is placed at the
earliest time the availability profile (running jobs until their estimated
end, plus all earlier reservations) has room for its size during its
requested time. A job starts when its reservation time arrives; a later job
may start earlier than an earlier one only in a hole that delays nobody.

**Compression when jobs end early.** When a job ends before its estimate,
its remaining reserved processors are returned to the profile and the
schedule is compressed: queued jobs are visited in priority (submission)
order; each one's reservation is removed and the job re-placed at the
earliest feasible time. Its old slot is still free when it is re-placed, so
no reservation ever moves later — the guarantee conservative backfilling
gives every job. A from-scratch rebuild could delay some jobs; it is used
when a running job's estimate grows (``overrun="extend"`` or
runtime-extension commands), and at every early end with
``recompute="rebuild"`` (paper D's reading of the algorithm).

**Two count-based paths, one schedule.** Count-based planning keeps the
profile and the queue's reservations in a ``CountSchedule``: the compiled
one (:mod:`simlib.policies._conservative_kernel`, Cython, built by ``pip
install``) or its pure-Python twin
(:class:`simlib.policies.profile.CountSchedule`) where there is no C
compiler; both apply the rule as stated, with the same two exact
shortcuts (a job no step before its reservation has room for is not
searched; the search runs without releasing the job, and only a job that
moves is touched). :func:`count_kernel` says which one runs. Placement
mode applies the rule as stated on a
:class:`~simlib.policies.profile.PlacementProfile`.

**Allocation rules.** By default (``allocation="count"``) reservations count
processors and the ledger picks the cores when a job starts, as
count-based conservative backfilling does. Any other value names one of
paper D's rules (Dutot, Poquet & Trystram §5.2, after Lucarelli et al.): the
schedule is then planned on a
:class:`~simlib.policies.profile.PlacementProfile`, each reservation is a
set of core ids chosen by an allocation strategy
(:mod:`simlib.engine.allocation`), and the job starts on exactly those ids.
"""
from __future__ import annotations

from ..engine.allocation import (
    AllocationStrategy,
    PlanChoice,
    Planned,
    allocation_strategy,
    check_placeable,
    ids_of,
)
from ..errors import ConfigError
from . import kernels
from .base import QueuePolicy
from .profile import CountSchedule, PeakFree, PlacementProfile

#: Values of the ``recompute`` parameter: what happens to the queued jobs'
#: reservations when a job ends before its estimate.
RECOMPUTE = ("compress", "rebuild")
INF = float("inf")

#: Compiled kernels (:mod:`simlib.policies.kernels`) the count-based path runs
#: on; their sources are code inputs of the pipeline's steps like the
#: policy's own (:mod:`simlib.codedeps`).
COMPILED_KERNELS = ("_conservative_kernel", "_placement_kernel")


def count_kernel():
    """The compiled :class:`CountSchedule` class, or None for the pure-Python path
    (chosen by ``SIMLIB_KERNELS``, see :mod:`simlib.policies.kernels`)."""
    module = kernels.load(COMPILED_KERNELS[0])
    return None if module is None else module.CountSchedule


class Conservative(QueuePolicy):
    """Conservative backfilling with compression on early completion.

    In placement mode ``job.data`` holds the job's reservation start while
    it waits; count-based, the ``CountSchedule`` keeps the reservations.
    :meth:`planned_starts` gives them in both.

    Parameters
    ----------
    allocation : str
        ``"count"`` (default): plan in processor counts; a job starting takes
        whichever cores the ledger hands out. Otherwise one of paper D's
        rules, read as follows. The profile is traversed by ascending date;
        at each candidate start ``t`` (now, then each later breakpoint) the
        *hole* ``H`` is the set of resources free during the whole window
        ``[t, t + requested time)``; a hole *fits* when ``|H| >= size``. A
        fitting hole is offered to the rule, which either selects
        ``S ⊆ H`` (accept) or rejects the hole, and the traversal goes on.

        ``"basic"``
            Accepts the first fitting hole; ``S`` = the ``size`` lowest ids
            of ``H`` (minimal id sum).
        ``"best_effort_contiguous"``
            Accepts the first fitting hole; ``S`` = the lowest block of
            ``size`` consecutive ids in ``H`` if there is one, else basic's.
        ``"best_effort_local"``
            Accepts the first fitting hole; ``S`` = ``size`` ids of one
            cluster if a cluster has that many in ``H`` (the cluster whose
            lowest ids have the smallest sum, i.e. the first cluster with
            room), else basic's.
        ``"contiguous"``
            Rejects fitting holes with no block of ``size`` consecutive ids;
            otherwise as best-effort contiguous.
        ``"local"``
            Rejects fitting holes where no cluster has ``size`` resources;
            otherwise as best-effort local.

        Resources are cores; on paper D's platforms (one core per node) they
        are the nodes. A job wider than every cluster can never be local:
        paper D removes such jobs from its workloads (§5.1), and this policy
        refuses them with a :class:`~simlib.errors.ConfigError`.

    recompute : str
        When a job ends before its estimate: ``"compress"`` (default) moves
        each queued job's reservation earlier where it can, in priority
        order, so no reservation ever moves later; ``"rebuild"`` plans every
        queued job again from scratch, in priority order, on the profile of
        the running jobs -- "the job allocation is completely recomputed at
        each new event" (paper D §2, of Mu'alem & Feitelson's algorithm),
        which can move a reservation later and give a job other cores.

    Examples
    --------
    >>> from simlib.policies import make_policy
    >>> make_policy("conservative", allocation="contiguous").strategy
    Contiguous()
    >>> make_policy("conservative", allocation="nearest")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: conservative: parameter allocation must be one of ...; not 'nearest'
    """

    name = "conservative"
    paper = "baseline: Mu'alem & Feitelson, IEEE TPDS 12(6) 2001"
    description = "conservative backfilling: every queued job holds a reservation"
    defaults = {"allocation": "count", "recompute": "compress"}

    def keeps_core_state(self) -> bool:
        # A count profile; the allocation rules plan core ids (bit masks).
        return self.params["allocation"] != "count"

    def __init__(self, **params):
        super().__init__(**params)
        strategy = allocation_strategy(self.name, self.params["allocation"])
        if self.params["recompute"] not in RECOMPUTE:
            raise ConfigError(f"{self.name}: parameter recompute must be one of "
                              f"{', '.join(RECOMPUTE)}; not {self.params['recompute']!r}")
        self._from_scratch = self.params["recompute"] == "rebuild"
        #: The allocation strategy, None for count-based planning. A subclass
        #: may set any :class:`AllocationStrategy` (e.g. paper Z's PerCore).
        self.strategy: AllocationStrategy | None = strategy

    def attach(self, sim):
        super().attach(sim)
        self._wakeups: set[float] = set()
        #: Planned or running allocation of each job, placement mode only.
        self._held: dict[int, Planned] | None = None
        #: Count-based planning: the profile and the queued reservations
        #: (compiled or pure Python, see :func:`count_kernel`); None in
        #: placement mode.
        self._counts = None
        if self.strategy is None:
            self._counts = (count_kernel() or CountSchedule)(0.0, sim.platform.cpus)
            return
        self.profile = PlacementProfile(0.0, sim.platform)
        # What the searches call: the rule's choice as a mask (a plan is
        # rebuilt at completions, most of its choices never start), its
        # refusals remembered (the same holes come back at every completion).
        self._choose = PlanChoice(self.strategy)
        self._held = {}
        check_placeable(self.name, self.strategy, sim.platform, sim.jobs)

    def planned_starts(self) -> dict[int, float]:
        """Each queued job's reserved start, by job idx, in queue order."""
        if self._counts is not None:
            return dict(self._counts.reservations())
        return {job.idx: job.data for job in self.queue}

    # -- placement mode (paper D's rules, paper Z's per-core placement) --------

    def _find(self, job, now, limit=float("inf")):
        """``(start, allocation)``: the job's earliest reservation and the cores
        it holds then (its old allocation when the search stops at ``limit``)."""
        start, alloc = self.profile.earliest_start(self._choose, job.procs, job.requested_time,
                                                   now, limit)
        if alloc is None:  # stopped at `limit`: the job keeps its allocation
            return start, self._held[job.idx]
        self._held[job.idx] = alloc
        return start, alloc

    def _place(self, job, now):
        start, alloc = self._find(job, now)
        self.profile.reserve(start, start + job.requested_time, alloc)
        job.data = start

    def _rebuild(self, now):
        held = self._held
        prof = self.profile = PlacementProfile(now, self.sim.platform)
        for job in self.sim.running.values():
            # An estimate already passed still holds its cores until `now`.
            prof.reserve(now, max(job.estimated_end, now), held[job.idx])
        planned = [job for job in self.queue if job.data is not None]
        placed = prof.place_in_order(self._choose, [job.procs for job in planned],
                                     [job.requested_time for job in planned], now)
        for job, (start, alloc) in zip(planned, placed):
            held[job.idx] = alloc
            job.data = start

    def _compress(self, now):
        """Compress the schedule: the rule as stated."""
        prof = self.profile
        held = self._held
        peak = PeakFree(prof)
        for job in self.queue:
            old = job.data
            if old is None or old <= now:
                continue
            # A job can only move if some step before its reservation has room
            # for it (its own reservation starts at `old`, so it is not counted).
            if peak.before(old) < job.procs:
                continue
            req = job.requested_time
            prof.release(old, old + req, held[job.idx])
            start, alloc = self._find(job, now, limit=old)
            prof.reserve(start, start + req, alloc)
            peak.changed_from(start)
            job.data = start

    def _placement_round(self, now, finished, submitted, timers, changed):
        prof = self.profile
        prof.advance(now)
        held = self._held
        early = False
        for job in finished:
            alloc = held.pop(job.idx)
            if job.finish < job.estimated_end:
                prof.release(now, job.estimated_end, alloc)
                early = True
        if changed or (early and self._from_scratch and self.queue):
            self._rebuild(now)
        elif early and self.queue:
            self._compress(now)
        for job in submitted:
            job.data = None
            self._place(job, now)
        self.queue.extend(submitted)
        started = False
        sim = self.sim
        next_start = INF
        for job in self.queue:
            if job.data <= now:
                # Exactly the planned cores: they are free, the profile says so.
                sim.start(job, ids=ids_of(held[job.idx].mask))
                started = True
            elif job.data < next_start:
                next_start = job.data
        if started:
            self.prune()
        self._wake(now, next_start, timers)
        if len(prof.times) > 2 * (len(self.queue) + len(sim.running)) + 16:
            prof.compact()

    # -- count-based (CountSchedule, compiled or pure Python) -------------------

    def _count_round(self, now, finished, submitted, timers, changed):
        """The placement round's steps, in the same order, on the ``CountSchedule``."""
        counts = self._counts
        counts.advance(now)
        early = False
        for job in finished:
            if job.finish < job.estimated_end:
                counts.release(now, job.estimated_end, job.cpus)
                early = True
        queue = self.queue
        sim = self.sim
        if changed or (early and self._from_scratch and queue):
            counts.reset(now)
            for job in sim.running.values():
                counts.reserve(now, max(job.estimated_end, now), job.cpus)
            counts.replan(now)
        elif early and queue:
            counts.compress(now)
        for job in submitted:
            counts.add(job.idx, job.procs, job.requested_time, now)
        queue.extend(submitted)
        due, next_start = counts.pop_due(now)
        if due:
            jobs = sim.jobs
            started = [jobs[k] for k in due]
            for job in started:
                sim.start(job)
            self.drop(started)
        self._wake(now, next_start, timers)
        counts.compact_over(2 * (len(queue) + len(sim.running)) + 16)

    def _wake(self, now, next_start, timers):
        # Compression can leave a reservation at a time when no job is due to
        # end, so nothing would wake us: ask for a round then.
        if next_start != INF and next_start not in self._wakeups:
            self._wakeups.add(next_start)
            self.sim.set_timer(next_start)
        if timers:
            self._wakeups.discard(now)

    def on_round(self, now, finished, submitted, timers, changed):
        if self._counts is not None:
            self._count_round(now, finished, submitted, timers, changed)
        else:
            self._placement_round(now, finished, submitted, timers, changed)
