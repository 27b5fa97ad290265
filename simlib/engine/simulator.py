"""The discrete-event simulator.

One loop, shared by every policy of the four papers::

    while events remain:
        now = time of the next event (heap top or next submission)
        apply every completion at `now`       (cores go back to the ledger)
        apply every change at `now`           (estimate / work commands)
        admit every submission at `now`
        collect every policy timer at `now`
        policy.on_round(now, finished, submitted, timers, changed)   # once

The heap key ``(time, class, sequence)`` makes ties deterministic, so the
same inputs give bit-identical outputs. Submissions are not pushed on the
heap: they are already sorted, so a cursor over them is cheaper.

Nothing in the loop scans all jobs: per round the work is proportional to
what happened in that round, plus whatever the policy itself does.
"""
from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..errors import ConfigError, SimulationError
from ..platform import Platform
from .events import CHANGE, FINISH, SUBMIT, TIMER, EventQueue
from .job import DONE, RUNNING, WAITING, Job
from .ledger import ResourceLedger

if TYPE_CHECKING:  # pragma: no cover
    from ..policies.base import Policy

INF = math.inf


class Simulator:
    """Runs ``jobs`` on ``platform`` under ``policy``.

    Parameters
    ----------
    platform : Platform
    jobs : sequence of Job
        Sorted by submission time, ``idx`` equal to the position.
    policy : Policy
    overrun : {"kill", "extend"}
        What happens when a job's actual work exceeds its requested time.
        ``"kill"`` (what batch systems do) ends it at its walltime: its work is
        truncated to the requested time and it is marked
        ``COMPLETED_WALLTIME_REACHED``. ``"extend"`` lets it run; each time
        its estimated end passes, the estimate is pushed ``overrun_step`` ahead
        (default: 10 % of the request, at least 60 s) and the policy is told.
        Reservation guarantees of EASY/conservative only hold under "kill".
    debug : bool
        Check ledger and bookkeeping invariants after every round.
    record_timeline : bool
        Keep (time, busy cores, waiting jobs, processes) after every round,
        for fragmentation, MPL and utilization-over-time metrics.
    commands : sequence of (time, payload)
        External events from the workload (e.g. paper K's elastic control
        commands), handed to the policy in ``timers`` at their time, after
        that time's submissions.
    progress : callable, optional
        ``progress(done, total, now)`` is called every ``progress_every``
        rounds and once at the end, with the number of finished jobs, the
        number of jobs and the simulated time (for a progress bar; it must
        not touch the simulation). Without it the loop pays one comparison
        per round.
    progress_every : int
        Rounds between two calls of ``progress`` (default 4096).

    Examples
    --------
    >>> from simlib.policies import make_policy
    >>> jobs = [Job(0, 1, 0.0, 2, 10.0, 10.0), Job(1, 2, 1.0, 2, 5.0, 5.0)]
    >>> sim = Simulator(Platform.homogeneous(2), jobs, make_policy("fcfs"))
    >>> sim.run()
    >>> [(j.start, j.finish) for j in jobs]
    [(0.0, 10.0), (10.0, 15.0)]
    """

    def __init__(self, platform: Platform, jobs: Sequence[Job], policy: "Policy", *,
                 overrun: str = "kill", overrun_step: float | None = None,
                 debug: bool = False, record_timeline: bool = True,
                 commands: Sequence[tuple[float, Any]] = (),
                 progress: Callable[[int, int, float], None] | None = None,
                 progress_every: int = 4096) -> None:
        if overrun not in ("kill", "extend"):
            raise ConfigError(f"overrun must be 'kill' or 'extend', not {overrun!r}")
        self.platform = platform
        self.jobs = list(jobs)
        self.policy = policy
        self.overrun = overrun
        self.overrun_step = overrun_step
        self.debug = debug
        self.ledger = ResourceLedger(platform)
        self.events = EventQueue()
        self.now = 0.0
        self.running: dict[int, Job] = {}
        #: Running jobs sorted by estimated end: ``(estimated_end, idx)``.
        self.by_estimated_end: list[tuple[float, int]] = []
        self.waiting_count = 0
        self.processes = 0  # processes of running jobs (> busy cores when shrunk)
        self.record_timeline = record_timeline
        if progress_every < 1:
            raise ConfigError(f"progress_every must be >= 1, not {progress_every!r}")
        self.progress = progress
        self.progress_every = int(progress_every)
        self.timeline: list[tuple[float, int, int, int]] = []
        cpus = platform.cpus
        last = -INF
        for i, job in enumerate(self.jobs):
            if job.idx != i:
                raise ConfigError(f"job {job.job_id}: idx {job.idx} at position {i}")
            if job.submit < last:
                raise ConfigError(f"job {job.job_id}: jobs must be sorted by submission time")
            last = job.submit
            if not 1 <= job.procs <= cpus:
                raise ConfigError(f"job {job.job_id} asks for {job.procs} processors; "
                                  f"the platform has {cpus} (clean the trace first)")
            if overrun == "kill" and job.work > job.requested_time:
                job.work = job.work_left = job.requested_time
                job.killed = True
        for time, payload in commands:
            self.events.push(float(time), TIMER, payload)
        policy.attach(self)

    # ------------------------------------------------------------------ loop
    def run(self) -> None:
        """Simulate until every job has finished."""
        jobs = self.jobs
        n = len(jobs)
        nxt = 0
        events = self.events
        heap = events._heap
        policy = self.policy
        timeline = self.timeline
        record = self.record_timeline
        progress = self.progress
        every = self.progress_every
        countdown = every
        done = 0
        while True:
            t_heap = heap[0][0] if heap else INF
            t_sub = jobs[nxt].submit if nxt < n else INF
            now = t_heap if t_heap < t_sub else t_sub
            if now == INF:
                break
            self.now = now
            finished: list[Job] = []
            changed: list[Job] = []
            timers: list[Any] = []
            while heap and heap[0][0] == now and heap[0][1] < SUBMIT:
                _, klass, _, payload = events.pop()
                if klass == FINISH:
                    job, version = payload
                    if version == job.version and job.state == RUNNING:
                        self._complete(job)
                        finished.append(job)
                else:
                    job = self._apply_change(payload)
                    if job is not None:
                        changed.append(job)
            submitted = []
            while nxt < n and jobs[nxt].submit == now:
                job = jobs[nxt]
                job.state = WAITING
                submitted.append(job)
                nxt += 1
            self.waiting_count += len(submitted)
            while heap and heap[0][0] == now:
                timers.append(events.pop()[3])
            policy.on_round(now, finished, submitted, timers, changed)
            if record:
                row = (now, self.ledger.total - self.ledger.free, self.waiting_count, self.processes)
                if timeline and timeline[-1][0] == now:
                    timeline[-1] = row
                else:
                    timeline.append(row)
            if self.debug:
                self.check_invariants()
            if progress is not None:
                done += len(finished)
                countdown -= 1
                if not countdown:
                    countdown = every
                    progress(done, n, now)
        if progress is not None:
            progress(sum(1 for j in jobs if j.state == DONE), n, self.now)
        unfinished = [j for j in jobs if j.state != DONE]
        if unfinished:
            raise SimulationError(
                f"{len(unfinished)} jobs never finished (policy {policy.name!r} left them "
                f"waiting with nothing running), e.g. {unfinished[:3]}")

    # ------------------------------------------------------- policy-facing API
    @property
    def free(self) -> int:
        """Free cores now."""
        return len(self.ledger._free)

    def start(self, job: Job, cpus: int | None = None, ids: list[int] | None = None,
              rate: float = 1.0, strategy=None) -> None:
        """Start a waiting job now on ``cpus`` cores (default: its size) or on ``ids``.

        ``ids`` may be any iterable of core ids, e.g. an
        :class:`~simlib.engine.allocation.Allocation`. Without ``ids``, an
        allocation ``strategy`` (:mod:`simlib.engine.allocation`) chooses the
        cores among the free ones; without either, the ledger hands out any.
        """
        if job.state != WAITING:
            raise SimulationError(f"cannot start {job!r}: not waiting")
        if ids is None and strategy is not None:
            ids = self.ledger.choose(strategy, job.procs if cpus is None else cpus)
        if ids is not None:
            job.alloc = self.ledger.take_ids(ids, job.idx)
        else:
            job.alloc = self.ledger.take(job.procs if cpus is None else cpus, job.idx)
        now = self.now
        job.cpus = len(job.alloc)
        job.state = RUNNING
        job.start = now
        job.last_update = now
        job.rate = rate
        job.estimated_end = now + job.requested_time
        self.running[job.idx] = job
        bisect.insort(self.by_estimated_end, (job.estimated_end, job.idx))
        self.waiting_count -= 1
        self.processes += job.procs
        self._schedule_finish(job)
        if self.overrun == "extend" and job.work > job.requested_time:
            self.events.push(job.estimated_end, CHANGE, ("estimate_passed", job, job.estimated_end))

    def set_rate(self, job: Job, rate: float) -> None:
        """Change a running job's progress rate from now on (0 = suspended)."""
        self._advance(job)
        job.rate = rate
        job.version += 1
        self._schedule_finish(job)

    def resize(self, job: Job, cpus: int | None = None, ids: list[int] | None = None,
               rate: float | None = None) -> None:
        """Give a running job a new core set (shrink/expand), optionally a new rate."""
        self._advance(job)
        self.ledger.give_back(job.alloc)
        job.alloc = (self.ledger.take_ids(ids, job.idx) if ids is not None
                     else self.ledger.take(cpus, job.idx))
        job.cpus = len(job.alloc)
        if rate is not None:
            job.rate = rate
        job.version += 1
        self._schedule_finish(job)

    def set_timer(self, time: float, payload: Any = None) -> None:
        """Ask for a policy round at ``time`` (payload comes back in ``timers``)."""
        if time < self.now:
            raise SimulationError(f"timer at {time} is in the past (now {self.now})")
        self.events.push(time, TIMER, payload)

    def set_estimate(self, job: Job, estimated_end: float) -> None:
        """Move a running job's estimated end (runtime commands, overruns)."""
        idx = self.by_estimated_end
        i = bisect.bisect_left(idx, (job.estimated_end, job.idx))
        del idx[i]
        job.estimated_end = estimated_end
        bisect.insort(idx, (estimated_end, job.idx))
        if self.overrun == "extend":  # re-arm the overrun watch at the new estimate
            self.events.push(estimated_end, CHANGE, ("estimate_passed", job, estimated_end))

    def set_work(self, job: Job, work: float) -> None:
        """Change a running job's total work (full-speed seconds); its finish moves."""
        self._advance(job)
        done = job.work - job.work_left
        job.work = max(work, done)
        job.work_left = job.work - done
        job.version += 1
        self._schedule_finish(job)

    # -------------------------------------------------------------- internals
    def _advance(self, job: Job) -> None:
        now = self.now
        job.work_left -= (now - job.last_update) * job.rate
        if job.work_left < 0.0:  # float round-off only
            job.work_left = 0.0
        job.last_update = now

    def _schedule_finish(self, job: Job) -> None:
        if job.rate > 0.0:
            self.events.push(self.now + job.work_left / job.rate, FINISH, (job, job.version))

    def _complete(self, job: Job) -> None:
        if self.debug:  # work conservation: the rate integral must equal the work
            left = job.work_left - (self.now - job.last_update) * job.rate
            if abs(left) > 1e-6 * max(1.0, job.work):
                raise SimulationError(f"job {job.job_id} ends with {left} s of work left")
        job.work_left = 0.0
        job.state = DONE
        job.finish = self.now
        self.ledger.give_back(job.alloc)
        del self.running[job.idx]
        idx = self.by_estimated_end
        i = bisect.bisect_left(idx, (job.estimated_end, job.idx))
        del idx[i]
        self.processes -= job.procs

    def _apply_change(self, payload) -> Job | None:
        kind, job, when = payload
        if kind == "estimate_passed":
            if job.state != RUNNING or job.estimated_end != when:
                return None
            step = self.overrun_step or max(60.0, 0.1 * job.requested_time)
            self.set_estimate(job, self.now + step)  # re-arms the watch
            return job
        raise SimulationError(f"unknown change event {kind!r}")

    def check_invariants(self) -> None:
        """Raise :class:`SimulationError` if the bookkeeping is inconsistent."""
        running = list(self.running.values())
        self.ledger.check(running)
        busy = sum(j.cpus for j in running)
        if busy + self.free != self.ledger.total:
            raise SimulationError(f"t={self.now}: {busy} busy + {self.free} free != total")
        if sorted((j.estimated_end, j.idx) for j in running) != self.by_estimated_end:
            raise SimulationError(f"t={self.now}: estimated-end index out of sync")
        if self.processes != sum(j.procs for j in running):
            raise SimulationError(f"t={self.now}: process count out of sync")
        for j in running:
            if j.start < j.submit:
                raise SimulationError(f"job {j.job_id} started at {j.start} before submit {j.submit}")
            if j.cpus > j.procs:
                raise SimulationError(f"job {j.job_id} holds {j.cpus} cores for {j.procs} processes")
