"""The elastic control command (ECC) processor of paper K, and the -E / -DE policies.

Paper K appends an *ECC processor* to a scheduler: an elastic control queue
whose commands are processed first-come first-served, each extending (ET)
or reducing (RT) the requested time — hence the kill-by time — *and* the
actual runtime of a previously submitted job, queued or running, batch or
dedicated (Sections III-C, IV-C; :class:`simlib.workload.cwf.ElasticCommand`).
Commands reach the policy through the engine (``Simulator(commands=...)``)
in the ``timers`` of the round at their issue time, after that time's
submissions; the processor applies them, in order, before the scheduler
runs, and the round is a full rescheduling (reservations are recomputed).

Effect of a command of ``amount`` seconds:

* **queued job** (direct update): ``requested_time`` and ``work`` change by
  ``±amount``;
* **running (or suspended) job**: the estimated end moves by the change of
  its requested time (:meth:`Simulator.set_estimate`) and its work changes
  (:meth:`Simulator.set_work`: the execution model moves its end); the
  work already done is :meth:`Simulator.work_done`'s;
* **reduction floor**: a reduction never takes the requested time below the
  time already elapsed, nor the work below the work already done — a
  running job whose reduced runtime has already elapsed ends at the
  command's time — and never below ``min_runtime`` (1 s; a value already
  smaller is left as it is);
* under ``overrun="kill"`` the work never exceeds the requested time
  (it cannot: both change by the same amount, and the floors keep the
  order), so the engine's kill-at-walltime rule still holds;
* a command for a finished job does nothing, nor do EP/RP (processor)
  commands: paper K restricts elasticity to the time dimension. Optionally
  at most ``max_per_job`` commands per job are applied ("a maximum count on
  number of ECCs can be imposed for a given job"). Ignored commands are
  counted in :attr:`ECCProcessor.ignored`.

**Queued jobs** (``queued``): ``"apply"`` (default, the paper) updates a
queued job directly, as above. ``"defer"`` is a sensitivity reading, not
the paper's: a command that finds its job queued is held and issued again
when the job has run for as long as the command came after the job's
earliest start (submit time, or the requested start of a dedicated job),
so every command meets a running job at the same point of its life. It
answers "what if commands came while jobs run": with long batch waits most
commands of paper K's generator reach queued jobs, where they only change
a job the scheduler has not planned yet. :attr:`ECCProcessor.hits` counts
the applied commands by the state they found (``queued`` / ``running``).

The twelve algorithms of paper K's Table III are EASY, LOS, Delayed-LOS
(batch), EASY-D, LOS-D, Hybrid-LOS (heterogeneous), and each of them with
the ECC processor: EASY-E, LOS-E, Delayed-LOS-E, EASY-DE, LOS-DE,
Hybrid-LOS-E.
"""
from __future__ import annotations

import math
from collections import Counter

from ..engine.job import DONE, PENDING, RUNNING, SUSPENDED, WAITING
from ..errors import ConfigError
from .dedicated import EASYD, LOSD
from .delayed_los import DelayedLOS
from .easy import EASY
from .hybrid_los import HybridLOS
from .los import LOS

#: Kinds of elastic control commands (CWF field 20, besides ``S``).
TIME_KINDS = ("ET", "RT")
PROCESSOR_KINDS = ("EP", "RP")


def is_command(payload) -> bool:
    """True for an elastic control command (anything with a CWF ``kind``).

    Examples
    --------
    >>> from simlib.workload.cwf import ElasticCommand
    >>> is_command(ElasticCommand(0, 1, "ET", 5)), is_command(("dedicated", 3))
    (True, False)
    """
    return getattr(payload, "kind", None) in TIME_KINDS + PROCESSOR_KINDS


class ECCProcessor:
    """Applies elastic control commands to the jobs of a simulation.

    Parameters
    ----------
    sim : Simulator
    min_runtime : float
        Floor of a reduction (see module notes).
    max_per_job : int or None
        Commands applied per job at most (None: no limit).

    Examples
    --------
    >>> from simlib.engine.job import Job
    >>> from simlib.engine.simulator import Simulator
    >>> from simlib.platform import Platform
    >>> from simlib.policies.fcfs import FCFS
    >>> from simlib.workload.cwf import ElasticCommand
    >>> jobs = [Job(0, 1, 0.0, 2, 100.0, 80.0)]
    >>> sim = Simulator(Platform.homogeneous(4), jobs, FCFS())
    >>> ecc = ECCProcessor(sim)
    >>> _ = ecc.apply(ElasticCommand(0, 1, "RT", 30))   # queued: direct update
    >>> jobs[0].requested_time, jobs[0].work
    (70.0, 50.0)
    """

    def __init__(self, sim, *, min_runtime: float = 1.0, max_per_job: int | None = None,
                 queued: str = "apply") -> None:
        if queued not in QUEUED_MODES:
            raise ConfigError(f"ECC processor: queued must be one of {', '.join(QUEUED_MODES)}; "
                              f"not {queued!r}")
        self.sim = sim
        self.min_runtime = float(min_runtime)
        self.max_per_job = max_per_job
        self.queued = queued
        #: Commands held for a queued job (``queued="defer"``): job idx -> commands.
        self.held: dict[int, list] = {}
        self.by_id = {}
        for job in sim.jobs:
            if job.job_id in self.by_id:
                raise ConfigError(f"elastic commands need unique job ids; {job.job_id} repeats")
            self.by_id[job.job_id] = job
        self.applied = 0
        self.ignored = {"finished": 0, "processors": 0, "limit": 0}
        self.count: Counter = Counter()
        #: Applied commands by the job state they found.
        self.hits = {"queued": 0, "running": 0}

    def process(self, payloads) -> list:
        """Apply every command among ``payloads`` (FCFS); return the jobs changed."""
        changed = []
        for payload in payloads:
            if is_command(payload):
                job = self.apply(payload)
                if job is not None:
                    changed.append(job)
        return changed

    def apply(self, cmd):
        """Apply one command; return the job it changed, or None if ignored."""
        job = self.by_id.get(cmd.job_id)
        if job is None:
            raise ConfigError(f"elastic command {cmd!r}: the workload has no job {cmd.job_id}")
        amount = float(cmd.amount)
        if not math.isfinite(amount) or amount < 0:
            raise ConfigError(f"elastic command {cmd!r}: amount must be a finite number >= 0")
        if cmd.kind in PROCESSOR_KINDS:
            self.ignored["processors"] += 1
            return None
        if job.state == DONE:
            self.ignored["finished"] += 1
            return None
        running = job.state == RUNNING or job.state == SUSPENDED
        if not running and self.queued == "defer":
            self.held.setdefault(job.idx, []).append(cmd)
            return None
        if self.max_per_job is not None and self.count[job.idx] >= self.max_per_job:
            self.ignored["limit"] += 1
            return None
        self.count[job.idx] += 1
        self.applied += 1
        delta = amount if cmd.kind == "ET" else -amount
        if running:
            self.hits["running"] += 1
            self._running(job, delta)
        else:
            self.hits["queued"] += 1
            req, work = self._changed(job.requested_time, job.work, delta, 0.0, 0.0)
            job.requested_time = req
            job.work = work
        return job

    def release_started(self) -> None:
        """Re-issue the held commands of jobs that have started (``queued="defer"``).

        A held command comes back (a timer) at the job's start plus the
        command's delay after the job's earliest start. Only the held jobs
        are looked at: a handful, never the whole workload.
        """
        if not self.held:
            return
        sim = self.sim
        for idx in [i for i, cmds in self.held.items() if sim.jobs[i].state not in (PENDING, WAITING)]:
            job = sim.jobs[idx]
            earliest = job.requested_start if job.requested_start >= 0 else job.submit
            for cmd in self.held.pop(idx):
                sim.set_timer(max(sim.now, job.start + max(0.0, float(cmd.time) - earliest)), cmd)

    def _changed(self, req, work, delta, elapsed, done):
        """New (requested time, work) after a change of ``delta`` seconds."""
        if delta >= 0:
            return req + delta, work + delta
        floor = self.min_runtime
        new_req = max(req + delta, min(req, max(floor, elapsed)))
        new_work = max(work + delta, min(work, max(floor, done)))
        if self.sim.overrun == "kill" and new_work > new_req:  # keep the walltime rule
            new_work = new_req
        return new_req, new_work

    def _running(self, job, delta) -> None:
        sim = self.sim
        now = sim.now
        # Progress comes from the engine's execution model, never from here.
        done = sim.work_done(job)
        req, work = self._changed(job.requested_time, job.work, delta, now - job.start, done)
        sim.set_estimate(job, max(job.estimated_end + (req - job.requested_time), now))
        job.requested_time = req
        sim.set_work(job, work)


#: Values of ``ecc_queued``: what a command that finds its job queued does.
QUEUED_MODES = ("apply", "defer")
#: Parameters of the ECC processor, added to every -E / -DE policy.
ECC_DEFAULTS = {"ecc_min_runtime": 1.0, "ecc_max_per_job": None, "ecc_queued": "apply"}


class ElasticMixin:
    """Runs the ECC processor on each round's commands, then the scheduler."""

    #: The policy processes elastic control commands.
    elastic = True

    def __init__(self, **params):
        super().__init__(**params)
        if self.params["ecc_queued"] not in QUEUED_MODES:
            raise ConfigError(f"{self.name}: parameter ecc_queued must be one of "
                              f"{', '.join(QUEUED_MODES)}; not {self.params['ecc_queued']!r}")

    def attach(self, sim):
        super().attach(sim)
        limit = self.params["ecc_max_per_job"]
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ConfigError(f"{self.name}: ecc_max_per_job must be None or an integer >= 0")
        self.ecc = ECCProcessor(sim, min_runtime=self.params["ecc_min_runtime"], max_per_job=limit,
                                queued=self.params["ecc_queued"])

    def on_round(self, now, finished, submitted, timers, changed):
        if timers:
            self.ecc.process(timers)
        super().on_round(now, finished, submitted, timers, changed)
        self.ecc.release_started()


def elastic_variant(base: type, label: str) -> type:
    """The -E / -DE variant of ``base``: the same scheduler behind the ECC processor.

    Parameters
    ----------
    base : type
        A registered policy class (EASY, LOS, Delayed-LOS, EASY-D, LOS-D,
        Hybrid-LOS).
    label : str
        ``base``'s name in paper K's Table III, e.g. ``"EASY-D"``.

    Returns
    -------
    type
        A subclass of :class:`ElasticMixin` and ``base``, named as in the
        paper without dashes (``EASYDE``), registry name ``base.name`` plus
        ``e`` (``easy_de``), parameters ``base.defaults`` (but EASY's ``reading``) plus the
        processor's.

    Examples
    --------
    >>> cls = elastic_variant(EASY, "EASY")
    >>> cls.__name__, cls.name, cls.__doc__
    ('EASYE', 'easy_e', 'EASY-E: EASY with the ECC processor.')
    """
    # Paper K appends "E" to the heterogeneous "-D" names and "-E" to the others.
    elastic = label + "E" if label.endswith("-D") else label + "-E"
    name = base.name + "e" if base.name.endswith("_d") else base.name + "_e"
    return type(elastic.replace("-", ""), (ElasticMixin, base), {
        "__doc__": f"{elastic}: {label} with the ECC processor.",
        "__module__": __name__,
        "name": name,
        "paper": f"kumar: Kumar, Shae & Jamjoom, {elastic} (Table III, elastic)",
        "description": f"{label} with the ECC processor (runtime extension/reduction commands)",
        # EASY's ``reading`` stays EASY's own: the pybatsim reading keeps
        # walltime-based estimates, which the processor changes.
        "defaults": {**{k: v for k, v in base.defaults.items() if k != "reading"},
                     **ECC_DEFAULTS},
    })


EASYE = elastic_variant(EASY, "EASY")
LOSE = elastic_variant(LOS, "LOS")
DelayedLOSE = elastic_variant(DelayedLOS, "Delayed-LOS")
EASYDE = elastic_variant(EASYD, "EASY-D")
LOSDE = elastic_variant(LOSD, "LOS-D")
HybridLOSE = elastic_variant(HybridLOS, "Hybrid-LOS")
