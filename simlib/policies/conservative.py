"""Conservative backfilling (Mu'alem & Feitelson, TPDS 2001).

Every queued job holds a reservation: on submission it is placed at the
earliest time the availability profile (running jobs until their estimated
end, plus all earlier reservations) has room for its size during its
requested time. A job starts when its reservation time arrives; a later job
may start earlier than an earlier one only in a hole that delays nobody.

**Compression when jobs end early.** When a job ends before its estimate,
its remaining reserved processors are returned to the profile and the
schedule is compressed: queued jobs are visited in priority (submission)
order; each one's reservation is removed and the job re-placed at the
earliest feasible time. Its old slot is still free when it is re-placed, so
no reservation ever moves later — the guarantee conservative backfilling
gives every job. (A from-scratch rebuild could delay some jobs; we do not
use it except when a running job's estimate grows, which only happens with
``overrun="extend"`` or runtime-extension commands.)
"""
from __future__ import annotations

import bisect

from .base import QueuePolicy
from .profile import AvailabilityProfile


class Conservative(QueuePolicy):
    """Conservative backfilling with compression on early completion.

    ``job.data`` holds the job's reservation start while it waits.
    """

    name = "conservative"
    paper = "baseline: Mu'alem & Feitelson, IEEE TPDS 12(6) 2001"
    description = "conservative backfilling: every queued job holds a reservation"

    def attach(self, sim):
        super().attach(sim)
        self.profile = AvailabilityProfile(0.0, sim.platform.cpus)
        self._wakeups: set[float] = set()

    def _place(self, job, now):
        req = job.requested_time
        start = self.profile.earliest_start(job.procs, req, now)
        self.profile.reserve(start, start + req, job.procs)
        job.data = start

    def _rebuild(self, now):
        prof = self.profile = AvailabilityProfile(now, self.sim.platform.cpus)
        for job in self.sim.running.values():
            # An estimate already passed still holds its cores until `now`.
            prof.reserve(now, max(job.estimated_end, now), job.cpus)
        for job in self.queue:
            if job.data is not None:
                self._place(job, now)

    def _compress(self, now):
        prof = self.profile
        times, free = prof.times, prof.free
        for job in self.queue:
            old = job.data
            if old is None or old <= now:
                continue
            # A job can only move if some step before its reservation has room
            # for it (its own reservation starts at `old`, so it is not counted);
            # the slice max runs in C and spares most jobs the full search.
            before = bisect.bisect_left(times, old)
            if before == 0 or max(free[:before]) < job.procs:
                continue
            req = job.requested_time
            prof.release(old, old + req, job.procs)
            start = prof.earliest_start(job.procs, req, now, limit=old)
            prof.reserve(start, start + req, job.procs)
            job.data = start

    def on_round(self, now, finished, submitted, timers, changed):
        prof = self.profile
        prof.advance(now)
        early = False
        for job in finished:
            if job.finish < job.estimated_end:
                prof.release(now, job.estimated_end, job.cpus)
                early = True
        if changed:
            self._rebuild(now)
        elif early and self.queue:
            self._compress(now)
        for job in submitted:
            job.data = None
            self._place(job, now)
        self.queue.extend(submitted)
        started = False
        sim = self.sim
        next_start = float("inf")
        for job in self.queue:
            if job.data <= now:
                sim.start(job)
                started = True
            elif job.data < next_start:
                next_start = job.data
        if started:
            self.prune()
        # Compression can leave a reservation at a time when no job is due to
        # end, so nothing would wake us: ask for a round then.
        if next_start != float("inf") and next_start not in self._wakeups:
            self._wakeups.add(next_start)
            sim.set_timer(next_start)
        if timers:
            self._wakeups.discard(now)
        if len(prof.times) > 2 * (len(self.queue) + len(sim.running)) + 16:
            prof.compact()
