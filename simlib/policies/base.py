"""Policy API.

Two levels, as in pybatsim:

* :class:`Policy` — the low-level contract with the engine: ``attach(sim)``
  once, then ``on_round(now, finished, submitted, timers, changed)`` once per
  timestamp, after completions and submissions at ``now`` were applied.
  A policy acts through the simulator: ``sim.start``, ``sim.resize``,
  ``sim.set_rate``, ``sim.suspend``, ``sim.resume``, ``sim.set_timer``,
  ``sim.set_estimate``, ``sim.set_work``; it reads progress with
  ``sim.work_done`` and never computes durations itself (the engine's
  execution model does, :mod:`simlib.engine.execution`).
* :class:`QueuePolicy` — the high-level base most policies use: it keeps the
  wait queue in priority order (FCFS: submission order) and calls
  ``schedule(now, full)``, where ``full`` is False when the only news is new
  submissions (so backfilling need only look at the new jobs).

A new policy is one module with one class plus one line in
:mod:`simlib.policies` (the registry).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..engine.job import WAITING, Job


def shadow_time(sim, need: int) -> tuple[float, int]:
    """EASY's reservation for a job of ``need`` processors that does not fit now.

    Returns ``(shadow_time, extra_processors)``: the **shadow time** is the
    earliest estimated end of running jobs at which ``need`` processors are
    free; the **extra processors** are those free at the shadow time beyond
    ``need`` — counting every running job whose estimated end is at or before
    the shadow time, ties included. Paper K calls them the *freeze end time*
    and *freeze end capacity* (``fret_b``, ``frec_b``).

    Examples
    --------
    >>> from simlib.engine.job import Job
    >>> from simlib.engine.simulator import Simulator
    >>> from simlib.platform import Platform
    >>> from simlib.policies.fcfs import FCFS
    >>> jobs = [Job(0, 1, 0.0, 6, 10.0, 10.0)]
    >>> sim = Simulator(Platform.homogeneous(10), jobs, FCFS())
    >>> jobs[0].state = WAITING; sim.start(jobs[0])   # 6 of 10 busy until 10
    >>> shadow_time(sim, 8)
    (10.0, 2)
    """
    avail = sim.free
    running = sim.running
    index = sim.by_estimated_end
    n = len(index)
    i = 0
    shadow = sim.now
    while i < n:
        end, idx = index[i]
        avail += running[idx].cpus
        i += 1
        if avail >= need:
            shadow = end
            break
    # Every job with the same estimated end also releases its processors then.
    while i < n and index[i][0] == shadow:
        avail += running[index[i][1]].cpus
        i += 1
    # Under overrun="extend" an estimate can lag behind the clock.
    return max(shadow, sim.now), avail - need


#: The largest machine (cores) for a policy that keeps state per core
#: (:meth:`Policy.keeps_core_state`): 2**24 cores, about 16.8 million, keeps a
#: bit mask at 2 MB and a per-core table at a few hundred MB.
MAX_CORE_STATE_CPUS = 2**24
#: The largest machine for any policy: core ids and counts are 64-bit in the
#: compiled loops.
MAX_CPUS = 2**62


class Policy:
    """Base of all policies (low-level API)."""

    #: Registry name, e.g. ``"easy"``.
    name: ClassVar[str] = "policy"
    #: Where the policy comes from: the paper id of ``shared/DESIGN.md``
    #: (U, K, D, Z) or ``baseline``, then the reference, for ``simlib policies``.
    paper: ClassVar[str] = ""
    #: One line saying what the policy does, for ``simlib policies``.
    description: ClassVar[str] = ""
    #: Accepted keyword parameters and their defaults (validated by make_policy).
    defaults: ClassVar[dict[str, Any]] = {}
    #: Parameters that choose how another simulator reads the algorithm (e.g.
    #: EASY's ``reading``), not parameters of the paper's algorithm: tables of
    #: a paper's algorithms leave them out.
    simulator_switches: ClassVar[tuple[str, ...]] = ()
    #: True when jobs always run on all their processors at full speed from
    #: start to end (their execution time is then their work).
    rigid: ClassVar[bool] = True
    #: True when the policy starts dedicated jobs (``Job.requested_start``
    #: >= 0, paper K) at their requested start; others treat them as batch.
    heterogeneous: ClassVar[bool] = False
    #: True when the policy applies elastic control commands (paper K's ECC
    #: processor); others ignore command payloads.
    elastic: ClassVar[bool] = False
    #: Time-sharing layers of the ledger the policy needs (paper Z's
    #: Scojo-PECT: one per virtual machine); the simulator's default.
    layers: ClassVar[int] = 1

    #: A run of whole workloads as columns, without engine objects per job
    #: (:meth:`simlib.policies.easy.EASY.columnar_run`); None: the policy has
    #: none, and :func:`simlib.runner.simulate` runs the engine.
    columnar_run = None

    def keeps_core_state(self) -> bool:
        """Whether the policy keeps something per core (a plan of core ids, a
        mask, a table sized by the free processors) rather than counts only.

        A count-based policy runs on a machine of any size in memory
        independent of its cores (the ledger holds runs of ids); one that
        keeps per-core state is refused beyond :data:`MAX_CORE_STATE_CPUS`
        before anything is allocated. Default: True (the safe answer for a
        user's policy); the count-based ones say False.
        """
        return True

    @classmethod
    def draws(cls, params: Mapping[str, Any]) -> bool:
        """Whether a run with ``params`` uses its ``seed`` parameter (random draws).

        When it does not, runs that differ in the seed only are the same
        run, and a sweep over seeds may simulate it once. Default: whether
        the policy takes a ``seed`` at all.
        """
        return "seed" in cls.defaults

    def __init__(self, **params: Any) -> None:
        self.params = {**self.defaults, **params}
        self.check_param_types(self.params)
        self.sim = None

    @classmethod
    def check_param_types(cls, params: dict[str, Any]) -> None:
        """Reject a parameter whose type differs from its default's.

        A float default also takes an int; a bool default takes only a bool
        and a number default never takes a bool (YAML's ``yes`` is not 1).
        ``None`` defaults accept anything (the policy checks them itself).
        Subclasses check ranges and choices in their ``__init__``.

        Raises
        ------
        ConfigError
            Naming the policy, the parameter, the expected type and the value.

        Examples
        --------
        >>> from simlib.policies.los import LOS
        >>> LOS.check_param_types({"lookahead": "abc"})
        Traceback (most recent call last):
        ...
        simlib.errors.ConfigError: los: parameter lookahead must be an integer, not 'abc'
        """
        from ..errors import ConfigError
        for key, value in params.items():
            default = cls.defaults.get(key)
            if default is None:
                continue
            if isinstance(default, bool):
                ok, what = isinstance(value, bool), "true or false"
            elif isinstance(default, int):
                ok, what = isinstance(value, int) and not isinstance(value, bool), "an integer"
            elif isinstance(default, float):
                ok, what = (isinstance(value, (int, float)) and not isinstance(value, bool),
                            "a number")
            elif isinstance(default, str):
                ok, what = isinstance(value, str), "a string"
            else:
                continue
            if not ok:
                raise ConfigError(f"{cls.name}: parameter {key} must be {what}, not {value!r}")

    def attach(self, sim) -> None:
        self.sim = sim

    def compiled_run(self, sim) -> bool:
        """Run ``sim`` to its end in compiled code if this policy can; whether it did.

        :func:`simlib.runner.simulate` asks before running the engine's
        loop. A policy that can (EASY) checks that nothing else takes part
        in ``sim`` and leaves its jobs, ledger and timeline exactly as the
        loop would. Default: it cannot.
        """
        return False

    def on_round(self, now: float, finished: list[Job], submitted: list[Job],
                 timers: list[Any], changed: list[Job]) -> None:
        raise NotImplementedError


class QueuePolicy(Policy):
    """A policy with one wait queue in FCFS priority order.

    ``self.queue`` holds the waiting jobs; subclasses implement
    :meth:`schedule`, start jobs through ``self.sim.start`` and drop them
    from the queue (:meth:`prune`, :meth:`start_head_jobs`).
    """

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.queue: list[Job] = []
        #: Jobs submitted this round (subset of the queue).
        self.new_jobs: list[Job] = []

    #: Call :meth:`schedule` on completions even when the queue is empty
    #: (malleable policies expand jobs then); otherwise an empty queue
    #: means there is nothing to decide.
    schedule_when_queue_empty: ClassVar[bool] = False

    def on_round(self, now, finished, submitted, timers, changed):
        self.queue.extend(submitted)
        self.new_jobs = submitted
        if self.queue or (finished and self.schedule_when_queue_empty):
            # Positional: a keyword argument costs a little on every round.
            self.schedule(now, bool(finished or timers or changed))

    def prune(self) -> None:
        """Drop started jobs from the queue (one pass, keeps order)."""
        self.queue = [j for j in self.queue if j.state == WAITING]

    def drop(self, started: list[Job]) -> None:
        """Remove ``started`` (jobs of the queue that were started) from the queue.

        Equivalent to :meth:`prune` when ``started`` holds every started job
        of the queue. A few jobs are removed one by one (``list.remove`` scans
        in C, by identity first), many with one pass of :meth:`prune`: a
        backfilling round usually starts one or two jobs of a queue of
        hundreds.
        """
        if len(started) > 4:
            self.prune()
            return
        q = self.queue
        for job in started:
            q.remove(job)

    def start_head_jobs(self) -> int:
        """Start queue-head jobs, in order, while they fit (strict FCFS part).

        Returns the processors left free (``sim.free``), which callers need next.
        """
        q = self.queue
        sim = self.sim
        free = sim.free
        n = len(q)
        k = 0
        while k < n:
            job = q[k]
            if job.procs > free:
                break
            sim.start(job)  # takes job.procs cores
            free -= job.procs
            k += 1
        if k:
            del q[:k]
        return free

    def schedule(self, now: float, full: bool) -> None:
        raise NotImplementedError
