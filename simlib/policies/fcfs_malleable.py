"""FCFS-malleable with virtual malleability (Utrera et al., paper U, §3.1).

A job runs *shrunk* when it has fewer CPUs than processes; its multiprogramming
level (MPL) is processes per CPU, at most 2 here, so a shrunk job holds
``ceil(procs / 2)`` CPUs. The policy is event driven:

* **Arrival / head of queue (Algorithm 1).** The queue is FCFS: only its
  head is considered. If it fits, it starts expanded. Otherwise running,
  expanded jobs are taken in candidate order (oldest first by default) and
  as many are shrunk to half their CPUs as needed; the head itself is shrunk
  too only when shrinking the others is not enough for it to run expanded
  (paper Fig. 2(c): J2 and J3 run expanded after J1 is shrunk). If even
  that is not enough, nothing is shrunk and the head waits. Repeated while
  heads start.
* **Completion.** If the queue is not empty, Algorithm 1 is applied to its
  head; otherwise shrunk jobs are expanded onto the free CPUs, in candidate
  order, each only if all its processes get a CPU back.

Reading chosen to reproduce all nine numbers of the paper's Fig. 2: a job
that *started* shrunk (Algorithm 1 line 10) keeps its CPUs until it ends;
only jobs shrunk while running (line 12) are expanded again
(``expand_started_shrunk=False``). With True, J6 of Fig. 2 would expand at
t=5 and end at 5.5, not 6. See ``paper_figures/utrera/README.md``.

Time model (formulas 3–4, our reading). While a job runs at MPL ``m`` with
CPU utilization ``u``, one second of its expanded work takes
``max(1, m·u) + OV`` seconds, where ``OV ~ U(0, ov_max)`` is drawn once per
job from the run's seed; expanded phases take 1 s per second of work.
``max(1, ·)`` because formula 3 as printed (``m·u``) would make an expanded
job with ``u < 1`` faster than its trace runtime (``stretch="as_printed"``
restores it, floored at 0.01 so that ``u = 0`` does not mean zero time).
``ov_scope="all_work"`` charges OV on expanded work too.
``ov_fraction="communication"`` charges OV on the job's communication
fraction only, ``OV · (1 - u)`` per second of work (a job that only
computes pays no sharing overhead).
Jobs without CPU time in the trace use ``missing_cpu_util`` (default 1.0:
no overlap of communication and computation is assumed), or, with
``impute_cpu_util="trace_mean"``, the mean utilization of the jobs that have one.

Expansion (the text's "running shrunk jobs are expanded to the newly freed
CPUs"): by default only when the queue is empty at a completion; with
``expand_when_blocked=True`` also when the head cannot start at a
completion (it keeps waiting, the freed CPUs go to shrunk jobs).
"""
from __future__ import annotations

import math

import numpy as np

from ..engine.job import RUNNING
from ..errors import ConfigError
from .base import QueuePolicy

_ORDERS = {
    # The paper's four candidate orders; ties broken by job index (deterministic).
    "oldest": lambda j: (j.submit, j.idx),
    "least_util": lambda j: (j.cpu_util, j.idx),
    "longest": lambda j: (-j.requested_time, j.idx),
    "shortest": lambda j: (j.requested_time, j.idx),
}


class FCFSMalleable(QueuePolicy):
    """FCFS with virtual malleability (MPL ≤ 2)."""

    name = "fcfs_malleable"
    paper = "utrera: Utrera, Tabik, Corbalan & Labarta (Sec. 3.1)"
    description = "FCFS whose jobs shrink to half their CPUs to start the head (MPL <= 2)"
    rigid = False
    schedule_when_queue_empty = True  # shrunk jobs expand at completions
    defaults = {
        "order": "oldest",
        "ov_max": 1.0,
        "ov_scope": "shrunk_work",
        "stretch": "max1",
        "missing_cpu_util": 1.0,
        "expand_started_shrunk": False,
        "ov_fraction": "whole",
        "impute_cpu_util": "constant",
        "expand_when_blocked": False,
        "seed": 0,
    }

    @classmethod
    def draws(cls, params):
        # The seed draws OV only (attach): without OV every seed gives one run.
        return float({**cls.defaults, **params}["ov_max"]) > 0

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        if p["order"] not in _ORDERS:
            raise ConfigError(f"fcfs_malleable: order must be one of {sorted(_ORDERS)}, not {p['order']!r}")
        if p["ov_scope"] not in ("shrunk_work", "all_work"):
            raise ConfigError("fcfs_malleable: ov_scope must be 'shrunk_work' or 'all_work'")
        if p["stretch"] not in ("max1", "as_printed"):
            raise ConfigError("fcfs_malleable: stretch must be 'max1' or 'as_printed'")
        if p["ov_fraction"] not in ("whole", "communication"):
            raise ConfigError("fcfs_malleable: ov_fraction must be 'whole' or 'communication'")
        if p["impute_cpu_util"] not in ("constant", "trace_mean"):
            raise ConfigError("fcfs_malleable: impute_cpu_util must be 'constant' or 'trace_mean'")
        if not 0.0 <= float(p["ov_max"]):
            raise ConfigError("fcfs_malleable: ov_max must be >= 0")
        self.key = _ORDERS[p["order"]]

    def attach(self, sim):
        super().attach(sim)
        p = self.params
        rng = np.random.default_rng(np.random.SeedSequence(int(p["seed"])))
        # One draw per job, by job index: independent of the schedule.
        self.ov = (rng.uniform(0.0, float(p["ov_max"]), len(sim.jobs)).tolist()
                   if p["ov_max"] > 0 else [0.0] * len(sim.jobs))
        miss = float(p["missing_cpu_util"])
        if p["impute_cpu_util"] == "trace_mean":
            known = [j.cpu_util for j in sim.jobs if j.cpu_util == j.cpu_util]
            miss = float(np.mean(known)) if known else miss
        for job in sim.jobs:
            if job.cpu_util != job.cpu_util:  # NaN: no CPU time in the trace
                job.cpu_util = miss
        #: Jobs shrunk while running (eligible for expansion).
        self.shrunk: dict[int, object] = {}
        #: The queue head that last failed to start, while nothing has
        #: changed since (see :meth:`schedule`).
        self.blocked_head = None
        # The time model's switches, read once (rate() runs at every start and resize).
        self._as_printed = p["stretch"] == "as_printed"
        self._ov_always = p["ov_scope"] == "all_work"
        self._communication = p["ov_fraction"] == "communication"

    # ------------------------------------------------------------ time model
    def rate(self, job, cpus: int) -> float:
        """Progress rate (expanded-work seconds per second) on ``cpus`` CPUs."""
        mpl = job.procs / cpus
        u = job.cpu_util
        if self._as_printed:
            # As printed, a job with no computation would take no time at all:
            # floor the stretch so the reading stays usable for sensitivity runs.
            stretch = max(mpl * u, 0.01)
        else:
            stretch = max(1.0, mpl * u)
        if cpus < job.procs or self._ov_always:
            share = (1.0 - u) if self._communication else 1.0
            stretch += self.ov[job.idx] * max(0.0, share)
        return 1.0 / stretch

    # ------------------------------------------------------------- algorithm
    def schedule(self, now, full):
        q = self.queue
        if not full and q and q[0] is self.blocked_head:
            # Only arrivals since the head failed to start (no completion,
            # command or timer: ``full`` is False): the free CPUs and the
            # running jobs are those it failed with, and FCFS looks no further.
            return
        k = 0
        while k < len(q) and self.try_start(q[k]):
            k += 1
        if k:
            del q[:k]
        self.blocked_head = q[0] if q else None
        # Expansion happens at completions only, once the queue is empty
        # (or, expand_when_blocked, also while its head cannot start).
        if (full and self.sim.free and self.shrunk
                and (not q or self.params["expand_when_blocked"])):
            # A blocked head stays blocked: an expanded job gives back as many
            # CPUs by shrinking (procs // 2) as its expansion took from the
            # free ones, so free + shrinkable is what the head failed with.
            self.expand()

    def try_start(self, job) -> bool:
        """Algorithm 1 for ``job`` (the queue head); True if it started."""
        sim = self.sim
        free = sim.free
        if job.procs <= free:
            sim.start(job, rate=self.rate(job, job.procs))
            return True
        expanded = [j for j in sim.running.values() if j.cpus == j.procs and j.procs > 1]
        half = math.ceil(job.procs / 2)
        # Shrinking an expanded job frees procs // 2 CPUs: when shrinking all
        # of them leaves no room even for the head's half, no target below can.
        if free + sum(j.procs // 2 for j in expanded) < half:
            return False
        candidates = sorted(expanded, key=self.key)
        for target in (job.procs, half) if half < job.procs else (job.procs,):
            need = target - free
            chosen, freed = [], 0
            for v in candidates:
                if freed >= need:
                    break
                chosen.append(v)
                freed += v.cpus - math.ceil(v.procs / 2)
            if freed >= need:
                for v in chosen:
                    cpus = math.ceil(v.procs / 2)
                    sim.resize(v, ids=v.alloc[:cpus], rate=self.rate(v, cpus))
                    self.shrunk[v.idx] = v
                sim.start(job, cpus=target, rate=self.rate(job, target))
                if target < job.procs and self.params["expand_started_shrunk"]:
                    self.shrunk[job.idx] = job
                return True
        return False

    def expand(self) -> None:
        sim = self.sim
        for job in sorted(self.shrunk.values(), key=self.key):
            if job.state != RUNNING:
                continue
            if job.procs - job.cpus <= sim.free:
                sim.resize(job, cpus=job.procs, rate=self.rate(job, job.procs))
        self.shrunk = {i: j for i, j in self.shrunk.items() if j.state == RUNNING and j.cpus < j.procs}
