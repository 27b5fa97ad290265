"""The discrete-event simulator.

One loop, shared by every policy of the four papers::

    while events remain:
        horizon = time of the simulator's next event (heap top or next submission)
        now = min(horizon, execution.next_completion_time(horizon))
        apply every completion at `now`       (cores go back to the ledger)
        apply every change at `now`           (estimate watches)
        admit every submission at `now`
        collect every policy timer at `now`
        policy.on_round(now, finished, submitted, timers, changed)   # once

The policy decides where and when jobs start; the execution model
(:mod:`simlib.engine.execution`, default :class:`RateModel`) decides when
they end: the simulator tells it about starts, resizes, rate and work
changes, suspensions and ends, and asks it for the next completion. Changes
of a job can also be observed (:meth:`Simulator.observe`), e.g. to record
allocations for Gantt charts, without touching the policy.

The heap key ``(time, class, sequence)`` makes ties deterministic, so the
same inputs give bit-identical outputs; completions come first at a
timestamp, in the order the model reports them. A round happens only where
something happens: superseded events (a completion moved by a rate change,
an estimate watch whose estimate moved) neither call the policy nor add a
timeline row, so the timeline ends at the last event that changed something
(usually the last completion). Submissions are not pushed on the heap: they
are already sorted, so a cursor over them is cheaper.

Nothing in the loop scans all jobs: per round the work is proportional to
what happened in that round, plus whatever the policy itself does.
"""
from __future__ import annotations

import bisect
import gc
import math
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..errors import ConfigError, SimulationError
from ..platform import Platform
from .events import CHANGE, SUBMIT, TIMER, EventQueue
from .execution import ExecutionModel, RateModel
from .job import DONE, RUNNING, SUSPENDED, WAITING, Job
from .ledger import make_ledger

if TYPE_CHECKING:  # pragma: no cover
    from ..policies.base import Policy

INF = math.inf

#: When the policy is called (:class:`Simulator`'s ``passes``): once per
#: timestamp (default), or after each event as Batsim + pybatsim do.
PASSES = ("per_timestamp", "per_event")

#: Hooks an observer may define (see :meth:`Simulator.observe`).
OBSERVER_HOOKS = ("job_started", "job_resized", "job_suspended", "job_resumed", "job_ended")


@contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector inside the block (as :mod:`timeit` does).

    A simulation allocates many small objects that live long (jobs, event
    tuples, allocations) and creates no reference cycles of its own, so the
    collector's passes, each traversing every live object, only cost time
    (a quarter of a run of EASY on a 50,000-job trace). Reference counting
    still frees everything else at once; cycles made by a policy are freed
    at the first collection after the block. The collector's previous state
    is restored, so blocks nest.

    Examples
    --------
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class Observer:
    """Base of simulation observers: every hook does nothing.

    A hook is called as ``hook(job, now)`` right after the change, within the
    round that made it, in the order changes happen. Observers must not act
    on the simulation (use a policy for that). Subclassing is optional: any
    object with some of the methods named in :data:`OBSERVER_HOOKS` will do.

    Examples
    --------
    >>> from simlib.policies import make_policy
    >>> class Log(Observer):
    ...     def __init__(self): self.seen = []
    ...     def job_started(self, job, now): self.seen.append(("start", job.job_id, now))
    ...     def job_ended(self, job, now): self.seen.append(("end", job.job_id, now))
    >>> jobs = [Job(0, 1, 0.0, 1, 3.0, 3.0), Job(1, 2, 0.0, 1, 2.0, 2.0)]
    >>> sim = Simulator(Platform.homogeneous(1), jobs, make_policy("fcfs"))
    >>> log = sim.observe(Log())
    >>> sim.run(); log.seen
    [('start', 1, 0.0), ('end', 1, 3.0), ('start', 2, 3.0), ('end', 2, 5.0)]
    """

    def job_started(self, job: Job, now: float) -> None:
        """``job`` started (its cores are ``job.alloc``)."""

    def job_resized(self, job: Job, now: float) -> None:
        """``job`` got a new core set (``job.alloc``)."""

    def job_suspended(self, job: Job, now: float) -> None:
        """``job`` was suspended (it keeps its cores)."""

    def job_resumed(self, job: Job, now: float) -> None:
        """``job`` was resumed on its cores."""

    def job_ended(self, job: Job, now: float) -> None:
        """``job`` ended (``job.finish == now``; its cores are free again)."""


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
    execution : ExecutionModel, optional
        When jobs end (default: a fresh :class:`RateModel`). One model
        instance per simulator.
    layers : int, optional
        Time-sharing layers of the ledger (default: the policy's ``layers``,
        1 for space-sharing policies). With ``k`` layers a
        physical core can be held by one job per layer (ids ``layer * cpus +
        core``, see :class:`~simlib.engine.ledger.ResourceLedger`): paper Z's
        Scojo-PECT keeps one virtual machine per job type, whose suspended
        jobs keep their cores while another virtual machine's jobs run on
        them. The policy keeps at most one *running* job per physical core
        (checked in debug mode). Timeline rows then count held ledger ids.
    passes : {"per_timestamp", "per_event"}
        ``"per_timestamp"`` (default): at a timestamp, every completion, then
        every submission, then one policy round (module docstring).
        ``"per_event"``: pybatsim's way (its schedulers run a scheduling pass
        after each event of Batsim's message): one round per submission, in
        job order, then one per completion, in the execution model's order
        (the rate model's: the order in which the jobs' current rates were
        set, i.e. launch order for jobs never changed), then one for the
        changes and timers of that time if any. Batsim v4.2.1 delivers
        same-time events in that order (:meth:`_run_per_event`). A policy
        with a compiled loop (EASY) then runs in this Python loop.

    Notes
    -----
    ``running`` holds every job that holds cores: running and suspended
    ones (check ``job.state``), as does ``by_estimated_end``. A suspended
    job's cores count as busy and its processes as present in the timeline
    (they stay allocated, as in gang scheduling), and its estimated end is
    left to the policy (:meth:`set_estimate`).

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
                 progress_every: int = 4096,
                 execution: ExecutionModel | None = None, layers: int | None = None,
                 passes: str = "per_timestamp") -> None:
        if overrun not in ("kill", "extend"):
            raise ConfigError(f"overrun must be 'kill' or 'extend', not {overrun!r}")
        if passes not in PASSES:
            raise ConfigError(f"passes must be one of {', '.join(map(repr, PASSES))}, "
                              f"not {passes!r}")
        self.passes = passes
        self.platform = platform
        self.jobs = list(jobs)
        self.policy = policy
        self.overrun = overrun
        self.overrun_step = overrun_step
        self.debug = debug
        if layers is None:
            layers = getattr(policy, "layers", 1)
        if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
            raise ConfigError(f"layers must be a positive integer, not {layers!r}")
        self.ledger = make_ledger(platform, layers)
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
            # Policies plan windows [start, start + estimate): an empty one
            # would reserve nothing and let two jobs share processors.
            if not job.requested_time > 0:
                raise ConfigError(f"job {job.job_id} has requested time {job.requested_time}; "
                                  "it must be > 0 (cleaning fills a missing estimate)")
            if overrun == "kill" and job.work > job.requested_time:
                job.work = job.work_left = job.requested_time
                job.killed = True
        for time, payload in commands:
            self.events.push(float(time), TIMER, payload)
        # Observer hooks, one list per hook so that an unobserved change costs
        # one empty-list test.
        self._on_started: list[Callable[[Job, float], None]] = []
        self._on_resized: list[Callable[[Job, float], None]] = []
        self._on_suspended: list[Callable[[Job, float], None]] = []
        self._on_resumed: list[Callable[[Job, float], None]] = []
        self._on_ended: list[Callable[[Job, float], None]] = []
        self.execution = model = RateModel() if execution is None else execution
        model.attach(self)
        self._model_started = model.started
        self._extend = overrun == "extend"
        # The model's ended() is called once per job: skipped when it is the
        # base class's no-op (as in RateModel, which settles a job as it
        # reports its completion).
        self._model_ended = (None if getattr(type(model), "ended", None) is ExecutionModel.ended
                             else model.ended)
        policy.attach(self)

    def observe(self, observer: Any) -> Any:
        """Call ``observer``'s hooks on job changes from now on; return it.

        Hooks (all optional, see :class:`Observer`): ``job_started``,
        ``job_resized``, ``job_suspended``, ``job_resumed``, ``job_ended``,
        each called as ``hook(job, now)``. Observers are called in the order
        they were added.
        """
        for name in OBSERVER_HOOKS:
            hook = getattr(observer, name, None)
            if hook is None:
                continue
            # Skip hooks inherited unchanged from Observer: they do nothing.
            if getattr(type(observer), name, None) is getattr(Observer, name):
                continue
            getattr(self, "_on_" + name[4:]).append(hook)
        return observer

    def close(self) -> None:
        """Let go of the policy, the execution model and the observers.

        Each of them points back at the simulator (``policy.sim``,
        ``execution.sim``), a reference cycle that holds every job until
        Python's cyclic collector runs. Call this when done asking the
        simulator for anything but its jobs and timeline: the run's objects
        are then freed as soon as the caller lets go of them, and a caller
        running many simulations with the collector paused
        (:func:`gc_paused`) does not accumulate them. The policy and the
        model keep working (e.g. for their counters); the simulator cannot
        run again.
        """
        self.policy = self.execution = None
        self._model_started = self._model_ended = None
        for hooks in (self._on_started, self._on_resized, self._on_suspended, self._on_resumed,
                      self._on_ended):
            hooks.clear()

    def unobserved_and_fresh(self) -> bool:
        """Whether only the policy and the execution model take part, and nothing ran yet.

        No observer, timer or command, debug checks or estimate watches
        (overrun "kill"); no job holding cores, no core taken, no timeline
        row. A policy that can run a whole
        simulation in compiled code (:meth:`Policy.compiled_run
        <simlib.policies.base.Policy.compiled_run>`) asks this first; what
        else it needs (its execution model, the ledger's layers, the jobs)
        it checks itself.
        """
        ledger = self.ledger
        return not (self._extend or self.debug or self.events._heap or self.running
                    or self.passes != "per_timestamp"
                    or self.timeline or len(ledger._free) != ledger.total
                    or any(getattr(self, "_on_" + hook[4:]) for hook in OBSERVER_HOOKS))

    # ------------------------------------------------------------------ loop
    def run(self) -> None:
        """Simulate until every job has finished (the garbage collector paused: :func:`gc_paused`)."""
        with gc_paused():
            if self.passes == "per_event":
                self._run_per_event()
            else:
                self._run()

    def _run(self) -> None:
        """The event loop (module docstring): one round per time where something happens.

        The hot path: what a round needs is bound to locals before the loop;
        what runs once after it is a method.
        """
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
        next_completion = self.execution.next_completion_time
        completions_at = self.execution.completions_at
        complete = self._complete
        ledger = self.ledger
        debug = self.debug
        # Submit times with an INF sentinel: no bounds test, no attribute lookup.
        submits = [job.submit for job in jobs]
        submits.append(INF)
        while True:
            t_heap = heap[0][0] if heap else INF
            t_sub = submits[nxt]
            horizon = t_heap if t_heap < t_sub else t_sub
            t_end = next_completion(horizon)
            now = t_end if t_end < horizon else horizon
            if now == INF:
                break
            self.now = now
            changed: list[Job] = []
            timers: list[Any] = []
            if t_end == now:
                finished: list[Job] = completions_at(now)
                for job in finished:
                    complete(job)
            else:
                finished = []
            while heap and heap[0][0] == now and heap[0][1] < SUBMIT:
                job = self._apply_change(events.pop()[3])
                if job is not None:
                    changed.append(job)
            submitted = []
            if t_sub == now:
                while submits[nxt] == now:
                    job = jobs[nxt]
                    job.state = WAITING
                    submitted.append(job)
                    nxt += 1
                self.waiting_count += len(submitted)
            while heap and heap[0][0] == now:
                timers.append(events.pop()[3])
            if not (finished or submitted or timers or changed):
                # Only superseded events at `now` (an estimate watch of a job
                # whose estimate moved or that ended): nothing to decide, and
                # a timeline row would stretch the span of time averages.
                continue
            policy.on_round(now, finished, submitted, timers, changed)
            if record:
                # len(_free), not the ``free`` property: one call less per round.
                row = (now, ledger.total - len(ledger._free), self.waiting_count, self.processes)
                if timeline and timeline[-1][0] == now:
                    timeline[-1] = row
                else:
                    timeline.append(row)
            if debug:
                self.check_invariants()
            if progress is not None:
                done += len(finished)
                countdown -= 1
                if not countdown:
                    countdown = every
                    progress(done, n, now)
        self._end_of_run()

    def _run_per_event(self) -> None:
        """The event loop with one policy round per event (``passes="per_event"``).

        At a timestamp, in the order Batsim v4.2.1 + pybatsim 3.2.1 see them:

        1. each submission alone, in job order (Batsim's submitter sends the
           jobs of one time in one message, sorted by submit time then id;
           pybatsim schedules after each JOB_SUBMITTED);
        2. each completion alone, in the execution model's order (launch
           order under the rate model: SimGrid finishes same-time sleeps in
           the order they were created). Submissions come first because a
           job's sleep begins a little after its nominal start (the
           scheduler's reply and Batsim's 1-byte messages take simulated
           time), while the submitter wakes at the submit time itself;
        3. the changes (estimate watches) and timers of that time, together.

        A job that completes at ``now`` is still running during the rounds
        of the submissions before it, as pybatsim has not heard of its end.
        """
        jobs = self.jobs
        nxt = 0
        heap = self.events._heap
        next_completion = self.execution.next_completion_time
        submits = [job.submit for job in jobs]
        submits.append(INF)
        self._countdown = self.progress_every
        self._done = 0
        while True:
            t_heap = heap[0][0] if heap else INF
            t_sub = submits[nxt]
            horizon = t_heap if t_heap < t_sub else t_sub
            t_end = next_completion(horizon)
            now = t_end if t_end < horizon else horizon
            if now == INF:
                break
            self.now = now
            while submits[nxt] == now:
                job = jobs[nxt]
                job.state = WAITING
                self.waiting_count += 1
                nxt += 1
                self._event_round(now, [], [job], [], [])
            if t_end == now:
                for job in self.execution.completions_at(now):
                    self._complete(job)
                    self._event_round(now, [job], [], [], [])
            self._changes_and_timers(now)
        self._end_of_run()

    def _changes_and_timers(self, now: float) -> None:
        """Apply the changes at ``now``, collect its timers; one round for them if any."""
        events = self.events
        heap = events._heap
        changed: list[Job] = []
        while heap and heap[0][0] == now and heap[0][1] < SUBMIT:
            job = self._apply_change(events.pop()[3])
            if job is not None:
                changed.append(job)
        timers = []
        while heap and heap[0][0] == now:
            timers.append(events.pop()[3])
        if changed or timers:
            self._event_round(now, [], [], timers, changed)

    def _event_round(self, now: float, finished: list[Job], submitted: list[Job],
                     timers: list[Any], changed: list[Job]) -> None:
        """One policy round of the per-event loop, then its timeline row, checks, progress."""
        self.policy.on_round(now, finished, submitted, timers, changed)
        if self.record_timeline:
            ledger = self.ledger
            timeline = self.timeline
            row = (now, ledger.total - len(ledger._free), self.waiting_count, self.processes)
            if timeline and timeline[-1][0] == now:
                timeline[-1] = row
            else:
                timeline.append(row)
        if self.debug:
            self.check_invariants()
        if self.progress is not None:
            self._done += len(finished)
            self._countdown -= 1
            if not self._countdown:
                self._countdown = self.progress_every
                self.progress(self._done, len(self.jobs), now)

    def _end_of_run(self) -> None:
        """The last progress report, then a SimulationError if a job never finished."""
        jobs = self.jobs
        if self.progress is not None:
            self.progress(sum(1 for j in jobs if j.state == DONE), len(jobs), self.now)
        unfinished = [j for j in jobs if j.state != DONE]
        if unfinished:
            raise SimulationError(
                f"{len(unfinished)} jobs never finished (policy {self.policy.name!r} left them "
                f"waiting with nothing running, or suspended), e.g. {unfinished[:3]}")

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
        ``rate`` is its progress rate (work seconds per second, see
        :class:`~simlib.engine.execution.RateModel`).
        """
        if job.state != WAITING:
            raise SimulationError(f"cannot start {job!r}: not waiting")
        ledger = self.ledger
        if ids is None and strategy is not None:
            ids = ledger.choose(strategy, job.procs if cpus is None else cpus)
        if ids is not None:
            alloc = job.alloc = ledger.take_ids(ids, job.idx)
        else:
            alloc = job.alloc = ledger.take(job.procs if cpus is None else cpus, job.idx)
        now = self.now
        job.cpus = len(alloc)
        job.state = RUNNING
        job.start = now
        job.rate = rate
        end = job.estimated_end = now + job.requested_time
        idx = job.idx
        self.running[idx] = job
        by_end = self.by_estimated_end
        if not by_end or by_end[-1][0] < end:
            by_end.append((end, idx))  # later than every running job: no search
        else:
            bisect.insort(by_end, (end, idx))
        self.waiting_count -= 1
        self.processes += job.procs
        self._model_started(job)
        if self._extend and job.work > job.requested_time:
            self.events.push(end, CHANGE, ("estimate_passed", job, end))
        for hook in self._on_started:
            hook(job, now)

    def set_rate(self, job: Job, rate: float) -> None:
        """Change a running job's progress rate from now on.

        Rate 0 stalls the job (it stays running, with no completion). On a
        suspended job the new rate applies from its resumption.

        Examples
        --------
        >>> from simlib.policies import make_policy
        >>> jobs = [Job(0, 1, 0.0, 1, 10.0, 10.0)]
        >>> sim = Simulator(Platform.homogeneous(1), jobs, make_policy("fcfs"))
        >>> jobs[0].state = WAITING; sim.start(jobs[0])
        >>> sim.now = 4.0; sim.set_rate(jobs[0], 0.5)   # 6 s of work left, at half speed
        >>> sim.now = 10.0; sim.work_done(jobs[0])
        7.0
        """
        self._check_held(job, "change the rate of")
        job.rate = rate
        self.execution.rate_changed(job)

    def resize(self, job: Job, cpus: int | None = None, ids: list[int] | None = None,
               rate: float | None = None) -> None:
        """Give a running job a new core set (shrink/expand), optionally a new rate."""
        if job.state != RUNNING:
            raise SimulationError(f"cannot resize {job!r}: not running")
        self.ledger.give_back(job.alloc)
        job.alloc = (self.ledger.take_ids(ids, job.idx) if ids is not None
                     else self.ledger.take(cpus, job.idx))
        job.cpus = len(job.alloc)
        if rate is not None:
            job.rate = rate
        self.execution.resized(job)
        for hook in self._on_resized:
            hook(job, self.now)

    def suspend(self, job: Job) -> None:
        """Suspend a running job now: it keeps its cores and makes no progress.

        The ledger is untouched (the cores stay the job's, busy in the
        timeline); the job stays in ``running`` and ``by_estimated_end``
        with state ``SUSPENDED`` and has no completion until :meth:`resume`.

        Examples
        --------
        >>> from simlib.policies import make_policy
        >>> jobs = [Job(0, 1, 0.0, 2, 10.0, 10.0)]
        >>> sim = Simulator(Platform.homogeneous(4), jobs, make_policy("fcfs"))
        >>> jobs[0].state = WAITING; sim.start(jobs[0], ids=[1, 2])
        >>> sim.now = 3.0; sim.suspend(jobs[0])
        >>> sim.now = 7.0; sim.resume(jobs[0])
        >>> jobs[0].alloc, sim.work_done(jobs[0])
        ([1, 2], 3.0)
        >>> sim.now = 9.0; sim.work_done(jobs[0])
        5.0
        """
        self._switch(job, "suspend", (RUNNING, "running"), SUSPENDED, self.execution.suspended,
                     self._on_suspended)

    def resume(self, job: Job) -> None:
        """Resume a suspended job now, on the cores it kept, at ``job.rate``."""
        self._switch(job, "resume", (SUSPENDED, "suspended"), RUNNING, self.execution.resumed,
                     self._on_resumed)

    def _switch(self, job: Job, verb: str, before: tuple[int, str], after: int,
                tell: Callable[[Job], None], hooks: list[Callable[[Job, float], None]]) -> None:
        """Move ``job`` from state ``before`` (value, name) to ``after``.

        Then the execution model (``tell``) and the ``hooks``, in that order.
        """
        if job.state != before[0]:
            raise SimulationError(f"cannot {verb} {job!r}: not {before[1]}")
        job.state = after
        tell(job)
        for hook in hooks:
            hook(job, self.now)

    def work_done(self, job: Job) -> float:
        """Work done by ``job`` so far, in full-speed seconds (0 before its start).

        Asked from the execution model, so that policies never compute
        progress themselves.
        """
        state = job.state
        if state == RUNNING or state == SUSPENDED:
            return self.execution.work_done(job)
        return job.work if state == DONE else 0.0

    def set_timer(self, time: float, payload: Any = None) -> None:
        """Ask for a policy round at ``time`` (payload comes back in ``timers``)."""
        if time < self.now:
            raise SimulationError(f"timer at {time} is in the past (now {self.now})")
        self.events.push(time, TIMER, payload)

    def set_estimate(self, job: Job, estimated_end: float) -> None:
        """Move a running (or suspended) job's estimated end (runtime commands, overruns)."""
        idx = self.by_estimated_end
        i = bisect.bisect_left(idx, (job.estimated_end, job.idx))
        del idx[i]
        job.estimated_end = estimated_end
        bisect.insort(idx, (estimated_end, job.idx))
        if self.overrun == "extend":  # re-arm the overrun watch at the new estimate
            self.events.push(estimated_end, CHANGE, ("estimate_passed", job, estimated_end))

    def set_work(self, job: Job, work: float) -> None:
        """Change a running (or suspended) job's total work (full-speed seconds); its end moves.

        The work never drops below what is already done: a running job whose
        new work is done already completes now (a suspended one when resumed).
        """
        self._check_held(job, "change the work of")
        done = self.execution.work_done(job)
        job.work = done if done > work else work  # as max(work, done)
        self.execution.work_changed(job)

    # -------------------------------------------------------------- internals
    def _check_held(self, job: Job, what: str) -> None:
        if job.state != RUNNING and job.state != SUSPENDED:
            raise SimulationError(f"cannot {what} {job!r}: not started or already done")

    def _complete(self, job: Job) -> None:
        now = self.now
        job.state = DONE
        job.finish = now
        self.ledger.give_back(job.alloc)
        idx = job.idx
        del self.running[idx]
        by_end = self.by_estimated_end
        key = (job.estimated_end, idx)
        if by_end[0] == key:
            del by_end[0]  # the common case: the job that was due first
        else:
            del by_end[bisect.bisect_left(by_end, key)]
        self.processes -= job.procs
        if self._model_ended is not None:
            self._model_ended(job)
        for hook in self._on_ended:
            hook(job, now)

    def _apply_change(self, payload) -> Job | None:
        kind, job, when = payload
        if kind == "estimate_passed":
            if job.state == DONE or job.estimated_end != when:
                return None
            step = self.overrun_step or max(60.0, 0.1 * job.requested_time)
            self.set_estimate(job, self.now + step)  # re-arms the watch
            return job
        raise SimulationError(f"unknown change event {kind!r}")

    def check_invariants(self) -> None:
        """Raise :class:`SimulationError` if the bookkeeping is inconsistent."""
        running = list(self.running.values())
        for j in running:
            if j.state != RUNNING and j.state != SUSPENDED:
                raise SimulationError(f"t={self.now}: {j!r} holds cores but is neither running nor suspended")
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
        self.execution.check()
