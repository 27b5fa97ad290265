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
"""
from __future__ import annotations

from itertools import islice

from ..engine.job import WAITING
from .base import QueuePolicy, shadow_time

#: Kernels this module runs (a code input of steps using it: simlib.codedeps).
COMPILED_KERNELS = ("_easy_kernel",)


class EASY(QueuePolicy):
    """EASY backfilling with one reservation, for the queue head.

    ``self.reservation`` is ``(head job, shadow time, extra processors)`` after a
    pass where the head could not start (read by tests and figures).
    """

    name = "easy"
    paper = "baseline: Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6) 2001"
    description = "EASY backfilling: one reservation, for the queue head"

    def __init__(self, **params):
        super().__init__(**params)
        self.reservation = None

    def compiled_run(self, sim) -> bool:
        """Run ``sim`` to its end in the compiled EASY loop when it can; whether it did.

        It can when ``sim`` is a fresh :class:`~simlib.engine.simulator.Simulator`
        of this fresh policy (exactly :class:`EASY`, not a subclass) and
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
        # moot (a progress callback hears the end once).
        if (type(self) is not EASY or type(sim) is not Simulator or sim.policy is not self
                or self.queue or self.reservation is not None
                or type(sim.execution) is not RateModel or sim.ledger.layers != 1
                or not sim.unobserved_and_fresh()):
            return False
        ledger = sim.ledger
        kernel = kernels.load(COMPILED_KERNELS[0])
        if kernel is None:
            return False
        done = kernel.run(sim.jobs, ledger._free, sim.record_timeline)
        if done is None:  # a job outside what the kernel does (it changed nothing)
            return False
        ledger._free, sim.now, sim.timeline = done
        sim.execution.ran_rigid(sim.jobs)
        self.new_jobs = []
        if sim.progress is not None:
            sim.progress(len(sim.jobs), len(sim.jobs), sim.now)
        return True

    def shadow(self, head):
        """Return ``(shadow_time, extra_processors)`` for ``head`` (which does not fit now)."""
        return shadow_time(self.sim, head.procs)

    def schedule(self, now, full):
        q = self.queue
        free = self.start_head_jobs()
        if not q:
            self.reservation = None
            return
        sim = self.sim
        head = q[0]
        if full or self.reservation is None or self.reservation[0] is not head:
            shadow, extra = self.shadow(head)
            candidates = islice(q, 1, None)  # the queue does not change during the scan
        else:
            _, shadow, extra = self.reservation
            candidates = self.new_jobs
        started = []
        for job in candidates:
            if free == 0:
                break
            p = job.procs
            if p > free or job.state != WAITING:
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
