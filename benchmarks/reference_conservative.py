"""Slow reference: conservative backfilling as it was before the speed-up.

A self-contained copy of the count-based path (``allocation="count"``,
``recompute="compress"``) of :class:`simlib.policies.conservative.Conservative`
and of :class:`simlib.policies.profile.AvailabilityProfile` at commit
6f32bc4, kept so :mod:`bench_conservative` can check that the fast policy
gives every job of a whole trace exactly the same start time. Do not
optimise this file.
"""
from __future__ import annotations

import bisect

from simlib.policies.base import QueuePolicy


class ReferenceProfile:
    """Free processors over time: ``free[i]`` holds on ``[times[i], times[i+1])``."""

    __slots__ = ("times", "free", "total")

    def __init__(self, now: float, total: int) -> None:
        self.times = [now]
        self.free = [total]
        self.total = total

    def _split(self, t: float) -> int:
        times = self.times
        i = bisect.bisect_right(times, t) - 1
        if times[i] == t:
            return i
        times.insert(i + 1, t)
        self.free.insert(i + 1, self.free[i])
        return i + 1

    def advance(self, now: float) -> None:
        times = self.times
        i = bisect.bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
        times[0] = max(times[0], now)

    def compact(self) -> None:
        key = self.free
        keep = [0] + [k for k in range(1, len(key)) if key[k] != key[k - 1]]
        self.times[:] = [self.times[k] for k in keep]
        self.free[:] = [self.free[k] for k in keep]

    def reserve(self, start: float, end: float, procs: int) -> None:
        if end <= start:
            return
        i = self._split(start)
        j = self._split(end)
        free = self.free
        for k in range(i, j):
            free[k] -= procs

    def release(self, start: float, end: float, procs: int) -> None:
        self.reserve(start, end, -procs)

    def earliest_start(self, procs, duration, not_before, limit=float("inf")):
        times, free = self.times, self.free
        n = len(times)
        i = max(bisect.bisect_right(times, not_before) - 1, 0)
        start = max(not_before, times[i])
        while start < limit:
            end = start + duration
            j = i
            while free[j] >= procs:
                j += 1
                if j == n or times[j] >= end:
                    return start
            i = j + 1
            if i >= n:
                raise RuntimeError("profile never frees enough processors")
            start = times[i]
        return limit


class ReferenceConservative(QueuePolicy):
    """Count-based conservative backfilling with compression, as at 6f32bc4."""

    name = "conservative-reference"
    defaults: dict = {}

    def attach(self, sim):
        super().attach(sim)
        self._wakeups: set[float] = set()
        self.profile = ReferenceProfile(0.0, sim.platform.cpus)

    def _place(self, job, now):
        start = self.profile.earliest_start(job.procs, job.requested_time, now)
        self.profile.reserve(start, start + job.requested_time, job.procs)
        job.data = start

    def _rebuild(self, now):
        sim = self.sim
        prof = self.profile = ReferenceProfile(now, sim.platform.cpus)
        for job in sim.running.values():
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
        if next_start != float("inf") and next_start not in self._wakeups:
            self._wakeups.add(next_start)
            sim.set_timer(next_start)
        if timers:
            self._wakeups.discard(now)
        if len(prof.times) > 2 * (len(self.queue) + len(sim.running)) + 16:
            prof.compact()
