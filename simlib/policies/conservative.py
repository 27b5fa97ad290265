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

**Two count-based paths, one schedule.** Count-based planning runs on a
compiled kernel (:mod:`simlib.policies._conservative_kernel`, Cython, built
by ``pip install``) that applies the rule as stated over C arrays. Without
it, the pure-Python path gives exactly the schedule of that rule while
searching only for the jobs whose reservation the returned processors could
move (see :meth:`Conservative._compress_counts`). :func:`count_kernel` says
which one runs. Placement mode applies the rule as stated.

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

import bisect
import heapq

from ..engine.allocation import RULES, Allocation, AllocationStrategy, make_rule
from ..errors import ConfigError
from . import kernels
from .base import QueuePolicy
from .profile import AvailabilityProfile, PlacementProfile

#: Values of the ``allocation`` parameter: today's count-based planning, then
#: paper D's five rules.
ALLOCATIONS = ("count", *RULES)
#: Values of the ``recompute`` parameter: what happens to the queued jobs'
#: reservations when a job ends before its estimate.
RECOMPUTE = ("compress", "rebuild")
INF = float("inf")

#: Compiled kernels (:mod:`simlib.policies.kernels`) the count-based path runs
#: on; their sources are code inputs of the pipeline's steps like the
#: policy's own (:mod:`simlib.codedeps`).
COMPILED_KERNELS = ("_conservative_kernel",)


def count_kernel():
    """The compiled :class:`CountSchedule` class, or None for the pure-Python path
    (chosen by ``SIMLIB_KERNELS``, see :mod:`simlib.policies.kernels`)."""
    module = kernels.load(COMPILED_KERNELS[0])
    return None if module is None else module.CountSchedule


class Conservative(QueuePolicy):
    """Conservative backfilling with compression on early completion.

    ``job.data`` holds the job's reservation start while it waits, except
    on the compiled count-based path, whose kernel keeps the reservations;
    :meth:`planned_starts` gives them on every path.

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

    def __init__(self, **params):
        super().__init__(**params)
        rule = self.params["allocation"]
        if rule not in ALLOCATIONS:
            raise ConfigError(f"{self.name}: parameter allocation must be one of "
                              f"{', '.join(ALLOCATIONS)}; not {rule!r}")
        if self.params["recompute"] not in RECOMPUTE:
            raise ConfigError(f"{self.name}: parameter recompute must be one of "
                              f"{', '.join(RECOMPUTE)}; not {self.params['recompute']!r}")
        self._from_scratch = self.params["recompute"] == "rebuild"
        #: The allocation strategy, None for count-based planning. A subclass
        #: may set any :class:`AllocationStrategy` (e.g. paper Z's PerCore).
        self.strategy: AllocationStrategy | None = None if rule == "count" else make_rule(rule)

    def attach(self, sim):
        super().attach(sim)
        self._wakeups: set[float] = set()
        #: Planned or running allocation of each job, placement mode only.
        self._held: dict[int, Allocation] | None = None
        #: The compiled count-based core, when it is used (see :func:`count_kernel`).
        self._kernel = None
        if self.strategy is None:
            kernel = count_kernel()
            if kernel is not None:
                self._kernel = kernel(0.0, sim.platform.cpus)
                return
            self.profile = AvailabilityProfile(0.0, sim.platform.cpus)
            n = len(sim.jobs)
            #: Gain hull of each job (by idx): processors given back since it
            #: was last placed all lie in ``[ga, gb)``; ``ga = inf`` when none
            #: (see :meth:`_compress_counts`).
            self._ga = [INF] * n
            self._gb = [-INF] * n
            #: Heap of the idx of jobs whose hull is not empty (queue order
            #: is idx order); entries of jobs since cleaned or started are
            #: dropped when popped.
            self._dirty: list[int] = []
            #: Failed moves of the current compression (see there).
            self._fails: list[tuple] = []
            #: The queued jobs as ``(procs, idx, job)``, sorted: the jobs a
            #: given amount of returned processors can help are a slice.
            self._by_procs: list[tuple[int, int, object]] = []
            return
        self.profile = PlacementProfile(0.0, sim.platform)
        self._held = {}
        widest = max((job.procs for job in sim.jobs), default=0)
        room = self.strategy.max_size(sim.platform)
        if widest > room:
            job = next(j for j in sim.jobs if j.procs == widest)
            raise ConfigError(f"{self.name}: job {job.job_id} asks for {widest} processors; "
                              f"allocation {self.strategy.name!r} can place at most "
                              f"{room} on this platform")

    def planned_starts(self) -> dict[int, float]:
        """Each queued job's reserved start, by job idx, in queue order."""
        if self._kernel is not None:
            return dict(self._kernel.reservations())
        return {job.idx: job.data for job in self.queue}

    def _find(self, job, now, limit=float("inf")):
        """``(start, held)``: the job's earliest reservation and what it holds
        then (a processor count, or an Allocation in placement mode)."""
        req = job.requested_time
        if self._held is None:
            return self.profile.earliest_start(job.procs, req, now, limit), job.procs
        start, alloc = self.profile.earliest_start(self.strategy, job.procs, req, now, limit)
        if alloc is None:  # stopped at `limit`: the job keeps its allocation
            return start, self._held[job.idx]
        self._held[job.idx] = alloc
        return start, alloc

    def _place(self, job, now):
        start, held = self._find(job, now)
        self.profile.reserve(start, start + job.requested_time, held)
        job.data = start
        if self._held is None:  # placed at its earliest start: nothing gained yet
            self._ga[job.idx], self._gb[job.idx] = INF, -INF

    def _rebuild(self, now):
        sim = self.sim
        held = self._held
        if held is None:
            prof = self.profile = AvailabilityProfile(now, sim.platform.cpus)
            self._dirty.clear()
        else:
            prof = self.profile = PlacementProfile(now, sim.platform)
        for job in sim.running.values():
            # An estimate already passed still holds its cores until `now`.
            prof.reserve(now, max(job.estimated_end, now), job.cpus if held is None else held[job.idx])
        for job in self.queue:
            if job.data is not None:
                self._place(job, now)

    def _compress(self, now):
        """Compress the schedule (placement mode): the rule as stated."""
        prof = self.profile
        times, free = prof.times, prof.free
        held = self._held
        for job in self.queue:
            old = job.data
            if old is None or old <= now:
                continue
            # A job can only move if some step before its reservation has room
            # for it (its own reservation starts at `old`, so it is not counted);
            # the slice max runs in C and spares most jobs the full search.
            before = bisect.bisect_left(times, old)
            if before == 0 or max(free[:before]) < job.procs:
                continue
            req = job.requested_time
            prof.release(old, old + req, job.procs if held is None else held[job.idx])
            start, amount = self._find(job, now, limit=old)
            prof.reserve(start, start + req, amount)
            job.data = start

    def _gained(self, a, b, gain):
        """``gain`` processors were given back on ``[a, b)``: add it to the
        hull of the queued jobs it may let move, and forget the failed
        searches it may invalidate (see :meth:`_compress_counts`).

        Every step of ``[a, b)`` rose by ``gain``, so only a job whose size
        lies in ``(least, most]`` (lowest value before, highest after) can
        find one that rose from below its size to at least it; and only a
        job reserved after ``a`` can use it."""
        prof = self.profile
        times = prof.times
        region = prof.free[bisect.bisect_left(times, a):bisect.bisect_left(times, b)]
        most = max(region)
        least = min(region) - gain
        fails = self._fails
        if fails:  # drop the failures whose windows may gain a fitting start
            fails[:] = [f for f in fails if not (least < f[0] <= most and a < f[4] + f[1] and b > f[3])]
        ga, gb = self._ga, self._gb
        by = self._by_procs
        for _, k, job in by[bisect.bisect_right(by, (least, INF)):bisect.bisect_right(by, (most, INF))]:
            if job.data > a:
                if ga[k] == INF:
                    heapq.heappush(self._dirty, k)
                    ga[k] = a
                elif a < ga[k]:
                    ga[k] = a
                if b > gb[k]:
                    gb[k] = b

    def _compress_counts(self, now):
        """Compress the count-based schedule, visiting only jobs that could move.

        The rule is the module's; this only skips work it would not use. A
        job reserved at ``o`` moves iff some start ``t < o`` has its size free
        on ``[t, min(t + req, o))`` (:meth:`AvailabilityProfile.earliest_move`).
        Right after the job is placed there is no such start; reservations
        (which only take processors) cannot create one, only processors given
        back can, and :meth:`_gained` records where they came back in the
        job's hull ``[ga, gb)``. Hence, exactly:

        * A job with an empty hull, or no step of its hull before ``o`` with
          room for it now, cannot move: a window that fits now but did not
          covers a point whose free count rose past the job's size.
        * Otherwise only starts whose window meets the hull can be new:
          those in ``[ga - req, min(gb, o))`` are searched, nothing else.
        * A failed search of ``(procs, req, o)`` over ``[first, limit)``
          fails for a later job with no fewer processors, no shorter request,
          no earlier reservation and a range inside that one (each of its
          windows contains the failed job's), until processors come back
          where those windows lie (:meth:`_gained` drops the record).

        Jobs are visited in queue order; one flagged by a move behind it in
        the pass waits for the next compression, as the rule would not
        revisit it either.
        """
        prof = self.profile
        times, free = prof.times, prof.free
        ga, gb = self._ga, self._gb
        jobs = self.sim.jobs
        dirty = self._dirty
        later = []  # flagged again behind the pass: seen at the next one
        last = -1
        # Failed searches still valid for the current profile: (procs, req,
        # old, first, limit), none of them implied by another.
        fails = self._fails = []
        while dirty:
            k = heapq.heappop(dirty)
            if k <= last:
                later.append(k)
                continue
            last = k
            a = ga[k]
            if a == INF:
                continue  # cleaned since flagged
            job = jobs[k]
            old = job.data
            if old <= now:
                continue  # started, or starts this round
            limit = gb[k] if gb[k] < old else old
            ga[k], gb[k] = INF, -INF
            if a < now:
                a = now
            if a >= limit:
                continue
            procs = job.procs
            req = job.requested_time
            # Windows of earlier starts end before `a` (the margin covers the
            # rounding of start + req); search from the step holding it.
            first = a - req - 1e-9 * (abs(a) + req + 1.0)
            first = now if first <= now else times[bisect.bisect_right(times, first) - 1]
            for f in fails:
                if f[0] <= procs and f[1] <= req and f[2] <= old and f[3] <= first and f[4] >= limit:
                    break  # a start of this job would be one for that job too
            else:
                if max(free[bisect.bisect_right(times, a) - 1:bisect.bisect_left(times, limit)]) < procs:
                    continue  # no gained step before its start has room for it now
                start = prof.earliest_move(procs, req, old, first, limit)
                if start >= limit:
                    fails[:] = [f for f in fails if not (procs <= f[0] and req <= f[1] and old <= f[2]
                                                         and first <= f[3] and limit >= f[4])]
                    fails.append((procs, req, old, first, limit))
                    continue
                prof.move(old, start, req, procs)
                job.data = start
                vacated = max(old, start + req)
                if vacated < old + req:  # (the job itself now starts before it)
                    self._gained(vacated, old + req, procs)
        for k in later:
            heapq.heappush(dirty, k)

    def _kernel_round(self, now, finished, submitted, timers, changed):
        """One round of the count-based path on the compiled kernel: the
        same steps, in the same order, as :meth:`on_round`'s."""
        kernel = self._kernel
        kernel.advance(now)
        early = False
        for job in finished:
            if job.finish < job.estimated_end:
                kernel.release(now, job.estimated_end, job.cpus)
                early = True
        queue = self.queue
        sim = self.sim
        if changed or (early and self._from_scratch and queue):
            kernel.reset(now)
            for job in sim.running.values():
                kernel.reserve(now, max(job.estimated_end, now), job.cpus)
            kernel.replan(now)
        elif early and queue:
            kernel.compress(now)
        for job in submitted:
            kernel.add(job.idx, job.procs, job.requested_time, now)
        queue.extend(submitted)
        due, next_start = kernel.pop_due(now)
        if due:
            jobs = sim.jobs
            started = [jobs[k] for k in due]
            for job in started:
                sim.start(job)
            self.drop(started)
        self._wake(now, next_start, timers)
        kernel.compact_over(2 * (len(queue) + len(sim.running)) + 16)

    def _wake(self, now, next_start, timers):
        # Compression can leave a reservation at a time when no job is due to
        # end, so nothing would wake us: ask for a round then.
        if next_start != INF and next_start not in self._wakeups:
            self._wakeups.add(next_start)
            self.sim.set_timer(next_start)
        if timers:
            self._wakeups.discard(now)

    def on_round(self, now, finished, submitted, timers, changed):
        if self._kernel is not None:
            self._kernel_round(now, finished, submitted, timers, changed)
            return
        prof = self.profile
        prof.advance(now)
        held = self._held
        early = False
        for job in finished:
            amount = job.cpus if held is None else held.pop(job.idx)
            if job.finish < job.estimated_end:
                prof.release(now, job.estimated_end, amount)
                early = True
                if held is None and self.queue and not self._from_scratch:
                    self._gained(now, job.estimated_end, amount)
        if changed or (early and self._from_scratch and self.queue):
            self._rebuild(now)
        elif early and self.queue:
            if held is None:
                self._compress_counts(now)
            else:
                self._compress(now)
        for job in submitted:
            job.data = None
            self._place(job, now)
            if held is None:
                bisect.insort(self._by_procs, (job.procs, job.idx, job))
        self.queue.extend(submitted)
        started = False
        sim = self.sim
        next_start = float("inf")
        for job in self.queue:
            if job.data <= now:
                if held is None:
                    sim.start(job)
                    by = self._by_procs
                    del by[bisect.bisect_left(by, (job.procs, job.idx))]
                else:  # exactly the planned cores: they are free, the profile says so
                    sim.start(job, ids=held[job.idx])
                started = True
            elif job.data < next_start:
                next_start = job.data
        if started:
            self.prune()
        self._wake(now, next_start, timers)
        if len(prof.times) > 2 * (len(self.queue) + len(sim.running)) + 16:
            prof.compact()
