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
"""
from __future__ import annotations

from itertools import islice

from ..engine.job import WAITING
from .base import QueuePolicy, shadow_time


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
