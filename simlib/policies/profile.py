"""Availability profile: free processors as a step function of time.

Used by conservative backfilling (a reservation for every queued job) and
by any policy that plans ahead (paper K's dedicated jobs, paper D).
Breakpoints are kept in two parallel Python lists; ``free[i]`` holds on
``[times[i], times[i+1])`` and the last value holds forever.
"""
from __future__ import annotations

import bisect


class AvailabilityProfile:
    """Free processors over time.

    Examples
    --------
    >>> prof = AvailabilityProfile(0.0, 10)
    >>> prof.reserve(0.0, 5.0, 6)
    >>> prof.earliest_start(8, 3.0, 0.0)
    5.0
    >>> prof.earliest_start(4, 3.0, 0.0)
    0.0
    """

    __slots__ = ("times", "free", "total")

    def __init__(self, now: float, total: int) -> None:
        self.times = [now]
        self.free = [total]
        self.total = total

    def _split(self, t: float) -> int:
        """Index of the breakpoint at ``t``, inserting one if needed."""
        times = self.times
        i = bisect.bisect_right(times, t) - 1
        if times[i] == t:
            return i
        times.insert(i + 1, t)
        self.free.insert(i + 1, self.free[i])
        return i + 1

    def reserve(self, start: float, end: float, procs: int) -> None:
        """Take ``procs`` processors on ``[start, end)``."""
        if end <= start:
            return
        i = self._split(start)
        j = self._split(end)
        free = self.free
        for k in range(i, j):
            free[k] -= procs

    def release(self, start: float, end: float, procs: int) -> None:
        """Give back ``procs`` processors on ``[start, end)``."""
        self.reserve(start, end, -procs)

    def earliest_start(self, procs: int, duration: float, not_before: float,
                       limit: float = float("inf")) -> float:
        """Earliest ``t >= not_before`` with ``procs`` free on ``[t, t+duration)``.

        With ``limit`` (a start already known to be feasible) the search stops
        there and returns ``limit`` without checking its window again: this is
        what makes schedule compression cheap for jobs that cannot move.
        """
        times, free = self.times, self.free
        n = len(times)
        i = max(bisect.bisect_right(times, not_before) - 1, 0)
        start = max(not_before, times[i])
        while start < limit:
            end = start + duration
            j = i
            # Extend the window from `start` while capacity holds.
            while free[j] >= procs:
                j += 1
                if j == n or times[j] >= end:
                    return start
            # Blocked at step j: the next candidate start is the step after it.
            i = j + 1
            if i >= n:  # pragma: no cover - last step always holds `total`
                raise RuntimeError("profile never frees enough processors")
            start = times[i]
        return limit

    def advance(self, now: float) -> None:
        """Forget breakpoints before ``now`` (the value at ``now`` is kept)."""
        times = self.times
        i = bisect.bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
        times[0] = max(times[0], now)

    def compact(self) -> None:
        """Merge neighbouring steps with equal free counts."""
        times, free = self.times, self.free
        nt, nf = [times[0]], [free[0]]
        for t, f in zip(times[1:], free[1:]):
            if f != nf[-1]:
                nt.append(t)
                nf.append(f)
        self.times, self.free = nt, nf
