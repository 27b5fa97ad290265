"""Dedicated jobs (paper K): EASY-D and LOS-D, and the layer Hybrid-LOS shares.

A *dedicated* (interactive) job has a requested start time
(:attr:`Job.requested_start` >= 0, CWF field 19); a *batch* job has -1.
Batch-only policies (EASY, LOS, Delayed-LOS) treat every job as batch.
The heterogeneous policies keep dedicated jobs out of the batch queue, in
the list ``W^d`` sorted by (requested start, job index), and at every round
build a **plan**, a count profile (free processors over time: the compiled
``CountSchedule`` or :class:`~simlib.policies.profile.AvailabilityProfile`)
of the running jobs (until their estimated end) and of every waiting
dedicated job (placed as far ahead as the round asks, the same plan:
:class:`DedicatedPlan`):

* Dedicated jobs are placed in requested-start order, each at the earliest
  time ``>= max(requested start, now)`` with room for it during its
  requested time — so among themselves they are scheduled by conservative
  backfilling.
* **On-time rule.** A dedicated job never starts before its requested
  start (a timer wakes the policy then). It starts exactly then whenever
  the processors are there: batch jobs are only started if they fit in the
  plan, so no batch job can take processors a planned dedicated job needs.
* **Lateness rule.** If the processors are not there at its requested
  start (jobs started before it was submitted still hold them, too many
  dedicated jobs ask for the same time, or an elastic command extended a
  running job), the job is *due*: as in paper K's Algorithm 3 it is moved
  to the head of the batch queue with ``scount = C_s`` — it starts as soon
  as it fits, ahead of every batch job, and its planned start is a
  reservation no batch job may delay (EASY's head reservation, for every
  due dedicated job). It is "moved" conceptually: due dedicated jobs stay
  in ``W^d`` and are planned first, which is the same priority.

The batch algorithms then run on the plan. The plan's **freeze points** are
the instants where its free processors drop (a dedicated or head
reservation begins): a set of batch jobs started now fits the plan exactly
when it fits the free processors now and, at every freeze point, the jobs
still running then (by their estimates) fit the *freeze end capacity* —
paper K's ``fret_d`` / ``frec_d`` (Algorithm 2, lines 9–30), generalized
from the first dedicated start time to all of them. EASY-D checks each job
against all points; LOS-D and Hybrid-LOS run the DP over the earliest
binding points (``max_freezes``) and check the rest job by job.

With no dedicated jobs in the workload, EASY-D schedules exactly as EASY
and LOS-D as LOS (tested).
"""
from __future__ import annotations

import bisect
import math

from . import kernels
from .base import QueuePolicy
from .los import LOS, Freezes
from .profile import INF, AvailabilityProfile

#: The plan is rebuilt at every round, placing the waiting dedicated jobs
#: (dozens when they are submitted a week ahead): on the compiled count
#: profile when it is built (same operations, same results; see
#: :mod:`simlib.policies.kernels`), else on :class:`AvailabilityProfile`.
COMPILED_KERNELS = ("_conservative_kernel",)


def count_profile_class():
    """The class the plan's profile is made of: compiled ``CountSchedule`` or
    :class:`AvailabilityProfile` (chosen by ``SIMLIB_KERNELS``)."""
    module = kernels.load(COMPILED_KERNELS[0])
    return AvailabilityProfile if module is None else module.CountSchedule


class DedicatedPlan(Freezes):
    """Freeze points read from an availability profile: the running jobs, then
    the waiting dedicated jobs placed in order -- as far ahead as asked.

    A dedicated job is placed at or after its requested start, so the jobs
    not placed yet (each requested at or after :attr:`horizon`) change
    nothing before the horizon: :attr:`points` holds the freeze points before
    it, exactly as if every job were placed. Each question about a job
    started now, which holds its processors until ``now + requested time``,
    first places the jobs requested by then (:meth:`ensure`). Dedicated jobs
    are requested up to a week ahead and batch jobs run for hours, so most
    are never placed in a round: its freeze points could not bind anyway.
    ``waiting`` is the mixin's ``(procs, requested starts, jobs)`` of
    ``W^d``, in order.

    Examples
    --------
    >>> from simlib.engine.job import Job, WAITING
    >>> from simlib.engine.simulator import Simulator
    >>> from simlib.platform import Platform
    >>> from simlib.policies.fcfs import FCFS
    >>> jobs = [Job(0, 1, 0.0, 6, 10.0, 10.0), Job(1, 2, 0.0, 4, 30.0, 30.0),
    ...         Job(2, 3, 0.0, 9, 10.0, 10.0)]
    >>> sim = Simulator(Platform.homogeneous(10), jobs, FCFS())
    >>> plan = DedicatedPlan(sim, 0.0, waiting=([6, 9], [5.0, 100.0], [jobs[0], jobs[2]]))
    >>> plan.ensure(0.0), plan.horizon   # nothing requested by t=0
    ([], 5.0)
    >>> plan.admits(jobs[1])   # 4 processors until t=30 fit the 4 left at t=5
    True
    >>> plan.points, plan.horizon   # the job requested at 100 is not placed
    ([[5.0, 4]], 100.0)
    """

    def __init__(self, sim, now: float, profile_class=AvailabilityProfile,
                 waiting=None) -> None:
        super().__init__(sim, now)
        prof = profile_class(now, sim.ledger.total)
        after = math.nextafter(now, math.inf)
        running = sim.running
        for end, idx in sim.by_estimated_end:
            # An estimate already passed (overrun="extend") still holds its cores now.
            prof.reserve(now, end if end > now else after, running[idx].cpus)
        self.profile = prof
        self._points = None  # read from the profile when first asked
        self._waiting = waiting = waiting or ([], [], [])
        self._placed = 0
        #: The earliest requested start of the jobs not placed yet (inf: none).
        self.horizon = waiting[1][0] if len(waiting[1]) else INF

    @property
    def points(self) -> list[list]:
        """Freeze points ``[time, free]`` before :attr:`horizon`, earliest first."""
        if self._points is None:
            self._points = self.profile.drops(hi=self.horizon)
        return self._points

    @points.setter
    def points(self, value) -> None:
        self._points = value

    def ensure(self, t: float) -> list[float]:
        """Place the waiting dedicated jobs requested at or before ``t`` (and
        on to twice as far from now: fewer, larger calls), in order, each at
        its earliest start ``>= max(requested start, now)``; returns their
        starts. The horizon moves past ``t``."""
        if t < self.horizon:
            return []
        procs, requested, jobs = self._waiting
        # Requested times are read now: elastic commands change them.
        m, starts = self.profile.place_waiting(procs, requested, jobs, self._placed,
                                               t + (t - self.now), self.now)
        old, self._placed = self.horizon, m
        self.horizon = requested[m] if m < len(requested) else INF
        if self._points is not None:  # a new list: one read before stays as it was
            self._points = self._points + self.profile.drops(old, self.horizon)
        return starts

    def forget(self, count: int) -> None:
        """``count`` placed jobs left ``waiting`` (they started): the rest shifted."""
        self._placed -= count

    def refresh(self) -> None:
        """Read the freeze points from the profile again (when next asked)."""
        self._points = None

    def admits(self, job) -> bool:
        if job.procs > self.free:  # no freeze point needed to say no
            return False
        end = self.now + job.requested_time
        if end >= self.horizon:
            self.ensure(end)
        return super().admits(job)

    def commit(self, job) -> None:
        end = self.now + job.requested_time
        self.ensure(end)
        super().commit(job)
        self.profile.reserve(self.now, end, job.procs)

    def place(self, job, not_before: float) -> float:
        """Reserve ``job`` at its earliest feasible start ``>= not_before``; return it.

        The window found must end before the horizon: otherwise the jobs
        requested within it are placed first and the search runs again (the
        start can only move later, and it is then the one of the whole plan).
        """
        duration = job.requested_time
        while True:
            start = self.profile.earliest_start(job.procs, duration, not_before)
            if start + duration < self.horizon or self.horizon == INF:
                break
            self.ensure(start + duration)
        self.profile.reserve(start, start + duration, job.procs)
        return start

    def reserve(self, job) -> float:
        start = self.place(job, self.now)
        self.refresh()
        return start


class DedicatedMixin:
    """Dedicated-job layer for a :class:`QueuePolicy` (see module notes).

    ``dedicated`` holds ``(requested_start, idx, job)`` of waiting dedicated
    jobs, sorted.
    """

    #: The policy schedules dedicated jobs at their requested start.
    heterogeneous = True

    def attach(self, sim):
        super().attach(sim)
        self.dedicated: list[tuple[float, int, object]] = []
        # Sizes, requested starts and jobs of `dedicated`, in its order,
        # kept between rounds (sizes and starts never change; requested
        # times do, by elastic commands, and are read from the jobs when
        # placed). Only on_round (insertions) and constraints (removals)
        # change `dedicated`, and both keep these lists parallel to it.
        self._columns: tuple[list, list, list] = ([], [], [])
        self._profile_class = count_profile_class()

    def on_round(self, now, finished, submitted, timers, changed):
        batch = []
        for job in submitted:
            rs = job.requested_start
            if rs >= 0:
                item = (rs, job.idx, job)
                k = bisect.bisect(self.dedicated, item)
                self.dedicated.insert(k, item)
                for column, value in zip(self._columns, (job.procs, rs, job)):
                    column.insert(k, value)
                if rs > now:
                    self.sim.set_timer(rs, ("dedicated", job.idx))
            else:
                batch.append(job)
        self.queue.extend(batch)
        self.new_jobs = batch
        if self.queue or self.dedicated:
            self.schedule(now, full=True)

    def waiting_dedicated(self, now: float) -> bool:
        """True when some dedicated job's requested start is still ahead (``W^d`` ≠ ∅)."""
        return bool(self.dedicated) and self.dedicated[-1][0] > now

    def constraints(self, now: float) -> DedicatedPlan:
        """Plan the dedicated jobs due (requested by ``now``), start those that
        fit now, return the plan (the later ones are placed when asked)."""
        sim = self.sim
        plan = DedicatedPlan(sim, now, self._profile_class, self._columns)
        starts = plan.ensure(now)
        if now in starts:  # no start is before now: some are now
            procs, _, jobs = self._columns
            # In order, the jobs planned now (found by list.index, in C).
            started = []
            k = starts.index(now)
            while k >= 0:
                if procs[k] <= plan.free:
                    sim.start(jobs[k])
                    plan.free -= procs[k]  # its reservation is in the plan already
                    started.append(k)
                try:
                    k = starts.index(now, k + 1)
                except ValueError:
                    k = -1
            # Deleted in place, last first: a job or two of dozens, cheaper
            # than rebuilding every list without them.
            for k in reversed(started):
                for column in (self.dedicated, *self._columns):
                    del column[k]
            plan.forget(len(started))
        return plan


class EASYD(DedicatedMixin, QueuePolicy):
    """EASY-D: EASY backfilling of batch jobs around dedicated jobs.

    One pass over the batch queue on the plan: jobs start in order while
    they fit; the first that does not is reserved at its earliest start in
    the plan (its shadow time); every later job starts if it fits the plan,
    i.e. delays neither that reservation nor any dedicated job.
    """

    name = "easy_d"
    paper = "kumar: Kumar, Shae & Jamjoom, EASY-D (Table III, heterogeneous)"
    description = "EASY backfilling of batch jobs around dedicated jobs' requested starts"

    def schedule(self, now, full):
        plan = self.constraints(now)
        sim = self.sim
        reserved = False
        started = False
        for job in self.queue:
            if plan.free == 0:
                break
            if plan.admits(job):
                sim.start(job)
                plan.commit(job)
                started = True
            elif not reserved:
                plan.reserve(job)
                reserved = True
        if started:
            self.prune()


class LOSD(DedicatedMixin, LOS):
    """LOS-D: LOS scheduling batch jobs around dedicated jobs (on the plan)."""

    name = "los_d"
    paper = "kumar: Kumar, Shae & Jamjoom, LOS-D (Table III, heterogeneous)"
    description = "LOS scheduling batch jobs around dedicated jobs' requested starts"
