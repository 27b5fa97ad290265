"""Execution models: how long jobs take, once a policy has decided where they run.

The split follows SimPy's core and pybatsim: the *policy* decides which job
runs where and when it starts; the *execution model* decides when it ends.
The :class:`~simlib.engine.simulator.Simulator` sits between them. It owns
the clock, the resources and the job states, and it

* tells the model what happened to a job, right after the job's attributes
  were updated: :meth:`~ExecutionModel.started`,
  :meth:`~ExecutionModel.resized`, :meth:`~ExecutionModel.rate_changed`,
  :meth:`~ExecutionModel.work_changed`, :meth:`~ExecutionModel.suspended`,
  :meth:`~ExecutionModel.resumed`, :meth:`~ExecutionModel.ended`;
* asks the model, once per loop iteration, when the next job completes
  (:meth:`~ExecutionModel.next_completion_time`) and, at that time, which
  jobs complete (:meth:`~ExecutionModel.completions_at`);
* asks it how much of a job's work is done (:meth:`~ExecutionModel.work_done`),
  for policies that must not compute durations themselves (paper K's
  elastic commands, paper Z's time slices).

Protocol
--------
``next_completion_time(horizon)`` receives the time of the simulator's own
next event (a submission, a timer, an estimate watch; ``inf`` if none). The
simulator promises to change nothing before ``min(answer, horizon)``, so a
model with its own clock (SimGrid, paper D) may advance that clock up to
there while looking for the next end. Completions are then collected at
exactly the answer; the simulator applies them before anything else at that
time (DESIGN.md: finishes before submissions), calls :meth:`ended` for each
and runs one policy round.

A model must never report a job whose completion was superseded (a rate
change, a resize, a suspension moved it): superseded completions produce
no policy round and no timeline row. Ties are the model's to order, and the
order must be deterministic (same inputs, same order).

:class:`RateModel` is the default and the only model the four papers'
policies need besides SimGrid: a running job has ``work_left`` full-speed
seconds at ``last_update`` and progresses at ``rate``.

Examples
--------
A model in which every job takes twice its work, through the same policies
(it supports neither rate changes nor suspensions):

>>> import heapq
>>> from simlib.engine.job import Job
>>> from simlib.engine.simulator import Simulator
>>> from simlib.platform import Platform
>>> from simlib.policies import make_policy
>>> class Doubling(ExecutionModel):
...     def attach(self, sim):
...         super().attach(sim); self.ends = []
...     def started(self, job):
...         heapq.heappush(self.ends, (self.sim.now + 2 * job.work, job.idx, job))
...     def next_completion_time(self, horizon):
...         return self.ends[0][0] if self.ends else float("inf")
...     def completions_at(self, now):
...         done = []
...         while self.ends and self.ends[0][0] == now:
...             done.append(heapq.heappop(self.ends)[2])
...         return done
...     def work_done(self, job):
...         return (self.sim.now - job.start) / 2
>>> jobs = [Job(0, 1, 0.0, 2, 10.0, 10.0), Job(1, 2, 1.0, 2, 20.0, 5.0)]
>>> Simulator(Platform.homogeneous(2), jobs, make_policy("fcfs"), execution=Doubling()).run()
>>> [(j.start, j.finish) for j in jobs]
[(0.0, 20.0), (20.0, 30.0)]
"""
from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

from ..errors import SimulationError
from .job import RUNNING, SUSPENDED, Job

if TYPE_CHECKING:  # pragma: no cover
    from .simulator import Simulator

INF = math.inf


class ExecutionModel:
    """Base of execution models: the hooks the simulator calls.

    Every hook is called *after* the simulator updated the job
    (``state``, ``alloc``, ``cpus``, ``rate``, ``work``), at ``sim.now``.
    The defaults do nothing, so a model overrides what it needs; the three
    queries (:meth:`next_completion_time`, :meth:`completions_at`,
    :meth:`work_done`) have no sensible default and must be provided.

    Attributes
    ----------
    sim : Simulator
        Set by :meth:`attach`.

    Examples
    --------
    See the module docstring for a complete model in a dozen lines.
    """

    sim: "Simulator"

    def attach(self, sim: "Simulator") -> None:
        """Called once by the simulator's constructor, before any event."""
        self.sim = sim

    # ------------------------------------------------------------- notices
    def started(self, job: Job) -> None:
        """``job`` started now on ``job.alloc`` at ``job.rate``."""

    def resized(self, job: Job) -> None:
        """``job`` (running) got a new core set now, and possibly a new ``job.rate``."""

    def rate_changed(self, job: Job) -> None:
        """``job.rate`` changed now (running or suspended job: then it applies at resume)."""

    def work_changed(self, job: Job) -> None:
        """``job.work`` changed now; it is never below :meth:`work_done`."""

    def suspended(self, job: Job) -> None:
        """``job`` was suspended now: it keeps its cores but makes no progress."""

    def resumed(self, job: Job) -> None:
        """``job`` was resumed now, on the cores it kept, at ``job.rate``."""

    def ended(self, job: Job) -> None:
        """``job`` ended now (reported by :meth:`completions_at`); forget it.

        Not called when a model leaves it as this no-op (the simulator
        checks once, at construction).
        """

    def check(self) -> None:
        """Raise :class:`SimulationError` if the model's bookkeeping is off (debug mode)."""

    # ------------------------------------------------------------- queries
    def next_completion_time(self, horizon: float) -> float:
        """Time of the next completion, ``inf`` if no job is due to complete.

        Parameters
        ----------
        horizon : float
            The simulator's next own event; nothing changes before
            ``min(result, horizon)``. A model may return any value
            ``>= horizon`` (e.g. ``inf``) when no job ends before it.
        """
        raise NotImplementedError

    def completions_at(self, now: float) -> list[Job]:
        """The jobs that complete at ``now`` (the last answer of :meth:`next_completion_time`).

        Each job once, in a deterministic order; the simulator ends them in
        that order.
        """
        raise NotImplementedError

    def work_done(self, job: Job) -> float:
        """Work done by a running or suspended ``job`` so far (full-speed seconds, at ``sim.now``)."""
        raise NotImplementedError


class RateModel(ExecutionModel):
    """Rate-based progress (DESIGN.md): a job ends when its work is done.

    A running job has ``job.work_left`` full-speed seconds left at
    ``job.last_update`` and progresses at ``job.rate`` work seconds per
    second; its completion is ``last_update + work_left / rate``. Every
    change first brings ``work_left`` up to now at the old rate, then
    schedules the completion again at the new one. A job at rate 0, or
    suspended, has no completion. ``job.rate`` of a suspended job is the rate
    it resumes at; the rate in effect (0) is kept here.

    Completions sit in a private heap keyed ``(time, sequence)``; a change
    bumps ``job.version``, which makes the older entries of the job stale.
    Stale entries are dropped when they reach the top of the heap
    (:meth:`next_completion_time`), so a superseded completion costs one
    pop and never wakes the policy.

    Examples
    --------
    >>> from simlib.engine.job import Job
    >>> from simlib.engine.simulator import Simulator
    >>> from simlib.platform import Platform
    >>> from simlib.policies import make_policy
    >>> jobs = [Job(0, 1, 0.0, 1, 10.0, 10.0)]
    >>> sim = Simulator(Platform.homogeneous(1), jobs, make_policy("fcfs"))
    >>> isinstance(sim.execution, RateModel)
    True
    >>> sim.run(); jobs[0].finish
    10.0
    """

    def attach(self, sim: "Simulator") -> None:
        super().attach(sim)
        self._heap: list[tuple[float, int, Job, int]] = []
        self._seq = 0
        n = len(sim.jobs)
        # Rate in effect since last_update (0 while suspended; job.rate is
        # what the policy asked for) and the work that work_left refers to:
        # both are needed to account a change after the job was updated.
        self._rate = [0.0] * n
        self._work = [0.0] * n

    # ------------------------------------------------------------- notices
    def started(self, job: Job) -> None:
        # Called once per job: _schedule inlined (the hot path of rigid policies).
        now = self.sim.now
        i = job.idx
        rate = self._rate[i] = job.rate
        job.work_left = self._work[i] = job.work
        job.last_update = now
        job.version += 1
        if rate > 0.0:
            self._seq += 1
            heapq.heappush(self._heap, (now + job.work_left / rate, self._seq, job, job.version))

    def ran_rigid(self, jobs: list[Job]) -> None:
        """Keep the records :meth:`started` leaves for ``jobs``, each started once
        at rate 1 and run to its end elsewhere (the compiled EASY run,
        :meth:`simlib.policies.easy.EASY.compiled_run`)."""
        self._seq = len(jobs)
        self._rate = [1.0] * len(jobs)
        self._work = [job.work for job in jobs]

    def rate_changed(self, job: Job) -> None:
        self._advance(job)
        if job.state == RUNNING:
            self._rate[job.idx] = job.rate
            self._schedule(job)

    # For the rate model the cores do not matter: the policy gives the rate.
    resized = rate_changed

    def work_changed(self, job: Job) -> None:
        self._advance(job)
        i = job.idx
        done = self._work[i] - job.work_left
        job.work_left = job.work - done
        self._work[i] = job.work
        if job.state == RUNNING:
            self._schedule(job)

    def suspended(self, job: Job) -> None:
        self._advance(job)
        self._rate[job.idx] = 0.0
        job.version += 1  # its pending completion is superseded

    def resumed(self, job: Job) -> None:
        self._advance(job)  # rate 0 since the suspension: only moves last_update
        self._rate[job.idx] = job.rate
        self._schedule(job)

    def check(self) -> None:
        for job in self.sim.running.values():
            i = job.idx
            want = 0.0 if job.state == SUSPENDED else job.rate
            if self._rate[i] != want:
                raise SimulationError(f"job {job.job_id}: rate in effect {self._rate[i]}, expected {want}")
            if self._work[i] != job.work:
                raise SimulationError(f"job {job.job_id}: work {job.work} not seen by the rate model")
            if job.work_left < 0.0:
                raise SimulationError(f"job {job.job_id}: negative work left {job.work_left}")

    # ------------------------------------------------------------- queries
    def next_completion_time(self, horizon: float) -> float:
        heap = self._heap
        while heap:
            top = heap[0]
            if top[3] == top[2].version:
                return top[0]
            # Superseded: dropped before it can decide `now`, so it neither
            # wakes the policy nor adds a timeline row.
            heapq.heappop(heap)
        return INF

    def completions_at(self, now: float) -> list[Job]:
        heap = self._heap
        done = []
        debug = self.sim.debug
        while heap and heap[0][0] <= now:
            _, _, job, version = heapq.heappop(heap)
            if version == job.version:
                if debug:  # work conservation: the rate integral must equal the work
                    left = job.work_left - (now - job.last_update) * self._rate[job.idx]
                    if abs(left) > 1e-6 * max(1.0, job.work):
                        raise SimulationError(f"job {job.job_id} ends with {left} s of work left")
                job.work_left = 0.0
                done.append(job)
        return done

    # ended() is not overridden: a job the model completes needs nothing more,
    # and the simulator skips hooks left as the base class's no-ops.

    def work_done(self, job: Job) -> float:
        # Same arithmetic as _advance, without touching the job.
        left = job.work_left - (self.sim.now - job.last_update) * self._rate[job.idx]
        return self._work[job.idx] - (left if left > 0.0 else 0.0)

    # ----------------------------------------------------------- internals
    def _advance(self, job: Job) -> None:
        now = self.sim.now
        job.work_left -= (now - job.last_update) * self._rate[job.idx]
        if job.work_left < 0.0:  # float round-off only
            job.work_left = 0.0
        job.last_update = now

    def _schedule(self, job: Job) -> None:
        job.version += 1
        rate = self._rate[job.idx]
        if rate > 0.0:
            self._seq += 1
            heapq.heappush(self._heap, (self.sim.now + job.work_left / rate, self._seq,
                                        job, job.version))
