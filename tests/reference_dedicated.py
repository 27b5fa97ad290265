"""The dedicated-job plan as first written: every waiting dedicated job placed
at every round (the slow reference for ``tests/test_dedicated.py``).

:class:`simlib.policies.dedicated.DedicatedPlan` places only as far ahead as
a round's questions reach; the policies below (:func:`eager`) plan as this
module does, and must schedule every job at the same instant.
"""
from __future__ import annotations

import math

from simlib.policies import POLICIES
from simlib.policies.los import Freezes


class EagerPlan(Freezes):
    """Running jobs and every waiting dedicated job (``waiting``: the mixin's
    ``(procs, requested starts, jobs)``) on one count profile; the freeze
    points read from all of it. ``starts``: where each waiting job is planned."""

    def __init__(self, sim, now, profile_class, waiting=([], [], [])):
        super().__init__(sim, now)
        prof = profile_class(now, sim.ledger.total)
        after = math.nextafter(now, math.inf)
        for end, idx in sim.by_estimated_end:
            prof.reserve(now, end if end > now else after, sim.running[idx].cpus)
        procs, requested, jobs = waiting
        self.starts = prof.place_in_order(procs, [job.requested_time for job in jobs],
                                          requested, now)
        self.profile = prof
        self.refresh()

    def refresh(self):
        self.points = self.profile.drops()

    def commit(self, job):
        super().commit(job)
        self.profile.reserve(self.now, self.now + job.requested_time, job.procs)

    def reserve(self, job):
        start = self.profile.place(job.procs, job.requested_time, self.now)
        self.refresh()
        return start


def eager_constraints(self, now):
    """``DedicatedMixin.constraints`` on an :class:`EagerPlan`."""
    sim = self.sim
    plan = EagerPlan(sim, now, self._profile_class, self._columns)
    procs, _, jobs = self._columns
    started = []
    for k, start in enumerate(plan.starts):
        if start == now and procs[k] <= plan.free:
            sim.start(jobs[k])
            plan.free -= procs[k]
            started.append(k)
    for k in reversed(started):
        for column in (self.dedicated, *self._columns):
            del column[k]
    return plan


def eager(name, **params):
    """Policy ``name`` (a heterogeneous one) planning eagerly."""
    cls = POLICIES[name]
    return type(f"Eager{cls.__name__}", (cls,), {"constraints": eager_constraints})(**params)
