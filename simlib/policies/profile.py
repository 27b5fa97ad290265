"""Availability profiles: free processors as a step function of time.

Used by conservative backfilling (a reservation for every queued job) and
by any policy that plans ahead (paper K's dedicated jobs, paper D).
Breakpoints are kept in parallel Python lists; ``free[i]`` holds on
``[times[i], times[i+1])`` and the last value holds forever.

Two profiles share that layout:

* :class:`AvailabilityProfile` counts free processors: the fast path for
  policies that let the ledger pick any free cores when a job starts.
  :class:`CountSchedule` adds the queued jobs' reservations to it:
  count-based conservative backfilling's plan, the pure-Python twin of the
  compiled one in :mod:`simlib.policies._conservative_kernel`.
* :class:`PlacementProfile` also knows *which* cores are free in each step
  (a bit mask per step), so it can answer "earliest time a core set
  satisfying this allocation strategy is free for the whole job" and reserve
  exactly that set: paper D's allocation rules, paper Z's per-core placement.
"""
from __future__ import annotations

import bisect

from ..engine.allocation import Allocation, AllocationStrategy, ids_of, kernel_rule
from ..errors import SimulationError
from ..platform import Platform
from . import kernels

#: The compiled core of :class:`PlacementProfile`. The policies that plan on
#: placement profiles name it in their ``COMPILED_KERNELS`` (so its source is
#: a code input of their pipeline steps, :mod:`simlib.codedeps`), not this
#: module, which count-based policies import too.
PLACEMENT_KERNEL = "_placement_kernel"


def placement_kernel():
    """The compiled core of :class:`PlacementProfile` (a module), or None for
    the pure-Python path (chosen by ``SIMLIB_KERNELS``, see
    :mod:`simlib.policies.kernels`)."""
    return kernels.load(PLACEMENT_KERNEL)

INF = float("inf")


class _Steps:
    """The breakpoint bookkeeping both profiles share.

    A subclass keeps ``times`` and one list per step value, which
    :meth:`_columns` returns, the one that tells steps apart first.
    """

    __slots__ = ()

    def _columns(self) -> tuple[list, ...]:
        raise NotImplementedError

    def _split(self, t: float) -> int:
        """Index of the breakpoint at ``t``, inserting one if needed."""
        times = self.times
        i = bisect.bisect_right(times, t) - 1
        if times[i] == t:
            return i
        times.insert(i + 1, t)
        for values in self._columns():
            values.insert(i + 1, values[i])
        return i + 1

    def advance(self, now: float) -> None:
        """Forget breakpoints before ``now`` (the value at ``now`` is kept)."""
        times = self.times
        i = bisect.bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            for values in self._columns():
                del values[:i]
        times[0] = max(times[0], now)

    def compact(self) -> None:
        """Merge neighbouring steps with equal values (of the first column)."""
        key = self._columns()[0]
        keep = [0] + [k for k in range(1, len(key)) if key[k] != key[k - 1]]
        # In place: the lists are the profile's own, whoever holds them.
        for values in (self.times, *self._columns()):
            values[:] = [values[k] for k in keep]


class PeakFree:
    """The largest free count of a profile's first steps, for compression's
    exact test of whether a reservation can move at all.

    A start before a reservation's ``old`` one needs the job's size free in
    the step holding that start, a step before ``old``, which releasing the
    job's own reservation (from ``old`` on) does not change: when
    :meth:`before` is smaller than the size, the job cannot move. Maxima are
    computed as far as asked and kept; :meth:`changed_from` forgets those of
    steps the profile changed (from a time on: steps before it keep their
    values and places).

    Examples
    --------
    >>> prof = AvailabilityProfile(0.0, 8)
    >>> prof.reserve(0.0, 5.0, 6); prof.reserve(5.0, 9.0, 3)
    >>> peak = PeakFree(prof)
    >>> peak.before(5.0), peak.before(9.0), peak.before(0.0)
    (2, 5, -1)
    """

    __slots__ = ("times", "free", "peak")

    def __init__(self, profile: "_Steps") -> None:
        self.times, self.free = profile.times, profile.free
        self.peak: list = []  # peak[k] = max(free[:k + 1]), as far as computed

    def before(self, t: float):
        """The largest free count of the steps that begin before ``t`` (-1: none)."""
        k = bisect.bisect_left(self.times, t)
        if k == 0:
            return -1
        peak = self.peak
        if len(peak) < k:
            m = peak[-1] if peak else self.free[0]
            for f in self.free[len(peak):k]:
                if f > m:
                    m = f
                peak.append(m)
        return peak[k - 1]

    def changed_from(self, t: float) -> None:
        """The profile changed at ``t`` or later."""
        del self.peak[bisect.bisect_left(self.times, t):]


class AvailabilityProfile(_Steps):
    """Free processors over time.

    Invariants: ``times`` is strictly increasing, ``free[i]`` holds on
    ``[times[i], times[i+1])`` and the last value forever, and
    ``0 <= free[i] <= total`` as long as every release gives back what a
    reservation took; after :meth:`advance`, ``times[0]`` is the current
    time. Neighbouring steps may hold equal values (:meth:`compact` merges
    them): no answer depends on where the breakpoints are, only on the step
    function, since the earliest fitting start is always ``not_before`` or a
    time where the free count rises.

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

    def _columns(self) -> tuple[list, ...]:
        return (self.free,)

    def reserve(self, start: float, end: float, procs: int) -> None:
        """Take ``procs`` processors on ``[start, end)``."""
        if end <= start:
            return
        i = self._split(start)
        j = self._split(end)
        free = self.free
        free[i:j] = [f - procs for f in free[i:j]]

    def release(self, start: float, end: float, procs: int) -> None:
        """Give back ``procs`` processors on ``[start, end)``."""
        self.reserve(start, end, -procs)

    def place(self, procs: int, duration: float, not_before: float) -> float:
        """Reserve ``procs`` for ``duration`` at the earliest start ``>= not_before``; that start.

        Examples
        --------
        >>> prof = AvailabilityProfile(0.0, 10)
        >>> prof.place(6, 5.0, 0.0), prof.place(6, 5.0, 0.0)
        (0.0, 5.0)
        """
        start = self.earliest_start(procs, duration, not_before)
        self.reserve(start, start + duration, procs)
        return start

    def place_in_order(self, procs: list, durations: list, not_before: list, now: float) -> list:
        """Reserve jobs one after the other, each at its earliest start ``>= max(not_before[k], now)``.

        Returns the starts. Each job sees the reservations of those before it
        (conservative backfilling among them).

        Examples
        --------
        >>> prof = AvailabilityProfile(0.0, 10)
        >>> prof.place_in_order([6, 6, 4], [5.0, 5.0, 5.0], [1.0, 0.0, 0.0], 0.0)
        [1.0, 6.0, 0.0]
        """
        if not len(procs) == len(durations) == len(not_before):
            raise ValueError("place_in_order: procs, durations and not_before differ in length")
        return [self.place(p, d, now if now > start else start)
                for p, d, start in zip(procs, durations, not_before)]

    def place_waiting(self, procs: list, requested: list, jobs: list, k: int, until: float,
                      now: float) -> tuple[int, list]:
        """Reserve waiting jobs ``k, k + 1, ...`` while ``requested[i] <= until``.

        Each for ``jobs[i].requested_time``, at its earliest start ``>=
        max(requested[i], now)``, one after the other (``requested`` is
        sorted: paper K's dedicated jobs). Returns ``(i, starts)``, ``i`` the
        first job left.

        Examples
        --------
        >>> from types import SimpleNamespace as Job
        >>> prof = AvailabilityProfile(0.0, 10)
        >>> jobs = [Job(requested_time=5.0), Job(requested_time=5.0), Job(requested_time=1.0)]
        >>> prof.place_waiting([6, 6, 4], [0.0, 1.0, 50.0], jobs, 0, 10.0, 0.0)
        (2, [0.0, 5.0])
        """
        if not len(procs) == len(jobs) == len(requested):
            raise ValueError("place_waiting: procs, requested and jobs differ in length")
        if k < 0:
            raise ValueError(f"place_waiting: first job {k} < 0")
        i = bisect.bisect_right(requested, until, k)
        return i, self.place_in_order(procs[k:i], [job.requested_time for job in jobs[k:i]],
                                      requested[k:i], now)

    def drops(self, lo: float = -INF, hi: float = INF) -> list[list]:
        """``[[time, free], ...]`` where the free count falls (the first step
        excluded), at times ``lo <= time < hi``.

        Examples
        --------
        >>> prof = AvailabilityProfile(0.0, 10)
        >>> prof.reserve(5.0, 9.0, 6)
        >>> prof.reserve(7.0, 9.0, 2)
        >>> prof.drops(), prof.drops(6.0), prof.drops(hi=7.0)
        ([[5.0, 4], [7.0, 2]], [[7.0, 2]], [[5.0, 4]])
        """
        times, free = self.times, self.free
        first = max(bisect.bisect_left(times, lo), 1)
        last = bisect.bisect_left(times, hi)
        return [[times[i], free[i]] for i in range(first, last) if free[i] < free[i - 1]]

    def move(self, old: float, start: float, duration: float, procs: int) -> None:
        """Move a reservation of ``procs`` from ``old`` to ``start < old``.

        The same profile as ``release(old, old + duration, procs)`` then
        ``reserve(start, start + duration, procs)``, touching only the steps
        whose value changes.

        Examples
        --------
        >>> prof = AvailabilityProfile(0.0, 10)
        >>> prof.reserve(5.0, 15.0, 4)
        >>> prof.move(5.0, 2.0, 10.0, 4)
        >>> list(zip(prof.times, prof.free))
        [(0.0, 10), (2.0, 6), (5.0, 6), (12.0, 10), (15.0, 10)]
        """
        end = start + duration
        i = self._split(start)
        j = self._split(min(end, old))
        free = self.free
        free[i:j] = [f - procs for f in free[i:j]]
        i = self._split(max(end, old))
        j = self._split(old + duration)
        free[i:j] = [f + procs for f in free[i:j]]

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

    def earliest_move(self, procs: int, duration: float, held_from: float,
                      not_before: float, limit: float) -> float:
        """Earliest start before ``limit`` of a job that holds ``procs`` from ``held_from``.

        The job is reserved on ``[held_from, held_from + duration)``, with
        ``limit <= held_from``. The result is :meth:`earliest_start`'s on
        the profile without that reservation, computed without releasing
        it: a start ``t < held_from`` needs ``procs`` free on
        ``[t, t + duration)`` once the job's own processors are given back,
        i.e. on ``[t, min(t + duration, held_from))`` in this profile (from
        ``held_from`` on, the job's own processors suffice: no step is ever
        negative). Returns ``limit`` when no start before it fits.

        Candidate starts are visited as in :meth:`earliest_start` until a
        window reaches past ``limit``. From then on every later candidate's
        window covers ``limit`` too, so a fitting start lies in the run of
        steps with room that contains ``limit``: only the earliest candidate
        of that run is checked. Likewise, when the first candidate's window
        already reaches past ``limit``, every window covers the steps from
        ``limit`` to its end: one of them without room rules out every start.

        Examples
        --------
        >>> prof = AvailabilityProfile(0.0, 10)
        >>> prof.reserve(0.0, 4.0, 6)      # 4 free until 4
        >>> prof.reserve(6.0, 16.0, 8)     # a job of 8 reserved at 6, for 10
        >>> prof.earliest_move(8, 10.0, 6.0, 0.0, 6.0)   # 8 free from 4 only
        4.0
        >>> prof.earliest_move(8, 10.0, 6.0, 0.0, 4.0)
        4.0
        >>> prof.earliest_move(2, 1.0, 6.0, 0.0, 6.0)
        0.0
        """
        times, free = self.times, self.free
        n = len(times)
        i = max(bisect.bisect_right(times, not_before) - 1, 0)
        start = max(not_before, times[i])
        if start >= limit:
            return limit
        reach = start + duration
        if reach > held_from:
            reach = held_from
        if reach > limit and min(free[bisect.bisect_right(times, limit) - 1:
                                      bisect.bisect_left(times, reach)]) < procs:
            return limit  # every window would cover a step without room
        stop = bisect.bisect_left(times, limit)  # candidates: steps before it
        while True:
            if free[i] < procs:  # no window from a step without room fits
                i += 1
                while i < stop and free[i] < procs:
                    i += 1
                if i >= stop:
                    return limit
                start = times[i]
            end = start + duration
            if end > held_from:
                end = held_from
            if end > limit:
                # Every window from here on covers `limit`: look in the run of
                # steps with room around the step holding `limit`, from its
                # first step (or the current candidate), for a window that fits.
                m = bisect.bisect_right(times, limit) - 1
                if free[m] < procs:
                    return limit
                u = m
                while u > i and free[u - 1] >= procs:
                    u -= 1
                if u > i:
                    start = times[u]
                    if start >= limit:
                        return limit
                    end = start + duration
                    if end > held_from:
                        end = held_from
                j = m + 1
                while j < n and times[j] < end:
                    if free[j] < procs:
                        return limit
                    j += 1
                return start
            j = i + 1
            while j < n and times[j] < end:
                if free[j] < procs:
                    break
                j += 1
            else:
                return start
            # Blocked at step j: so is every start up to it.
            i = j + 1
            if i >= stop:
                return limit
            start = times[i]


class CountSchedule(AvailabilityProfile):
    """The count-based conservative schedule: profile and queued reservations.

    The pure-Python twin of the compiled
    :class:`simlib.policies._conservative_kernel.CountSchedule` (same
    methods, same results; tested side by side), for installs without a C
    compiler. The queue's reservations are kept in queue order; the rules
    are those of :mod:`simlib.policies.conservative`:

    * :meth:`add` places a job at its earliest start from now and reserves it;
    * :meth:`compress` visits the queue in order after an early end and
      moves each job to its earliest start before its old one, if any;
    * :meth:`pop_due` removes the jobs whose reservation has arrived.

    Examples
    --------
    >>> s = CountSchedule(0.0, 10)
    >>> s.reserve(0.0, 5.0, 6)          # a running job until its estimated end
    >>> s.add(0, 8, 3.0, 0.0), s.add(1, 4, 5.0, 0.0)
    (5.0, 0.0)
    >>> s.pop_due(0.0)
    ([1], 5.0)
    >>> s.steps()
    [(0.0, 0), (5.0, 2), (8.0, 10)]
    """

    __slots__ = ("_idx", "_procs", "_req", "_start", "first_start")

    def __init__(self, now: float, total: int) -> None:
        super().__init__(now, total)
        self._idx: list[int] = []
        self._procs: list[int] = []
        self._req: list[float] = []
        self._start: list[float] = []
        #: The earliest reservation in the queue (inf if none).
        self.first_start = INF

    def reset(self, now: float) -> None:
        """Forget every reservation: ``total`` free from ``now`` on (the queue is kept)."""
        self.times[:] = [now]
        self.free[:] = [self.total]

    def compact_over(self, most: int) -> None:
        """:meth:`compact` when there are more than ``most`` steps."""
        if len(self.times) > most:
            self.compact()

    def steps(self) -> list[tuple[float, int]]:
        """The profile as ``[(time, free), ...]``."""
        return list(zip(self.times, self.free))

    @property
    def n_steps(self) -> int:
        """Breakpoints in the profile."""
        return len(self.times)

    def add(self, idx: int, procs: int, requested: float, now: float) -> float:
        """Queue job ``idx`` last and reserve its earliest start; returns that start."""
        start = self.place(procs, requested, now)
        self._idx.append(idx)
        self._procs.append(procs)
        self._req.append(requested)
        self._start.append(start)
        if start < self.first_start:
            self.first_start = start
        return start

    def replan(self, now: float) -> None:
        """Place every queued job again, in queue order, at its earliest start
        from ``now`` (after :meth:`reset` and the running jobs' reservations)."""
        starts = self._start
        starts[:] = self.place_in_order(self._procs, self._req, [now] * len(starts), now)
        self.first_start = min(starts, default=INF)

    def compress(self, now: float) -> int:
        """Move reservations earlier after an early end; returns how many moved.

        In queue order, each job goes to its earliest start before its old
        one, if there is one (its old slot is free, so none moves later). A
        job is skipped without a search when no step before its old start has
        room for it.
        """
        procs_of, req_of, starts = self._procs, self._req, self._start
        moved = 0
        peak = PeakFree(self)
        for q, old in enumerate(starts):
            if old <= now:
                continue
            procs = procs_of[q]
            if peak.before(old) < procs:
                continue
            req = req_of[q]
            start = self.earliest_move(procs, req, old, now, old)
            if start < old:
                self.move(old, start, req, procs)
                peak.changed_from(start)
                starts[q] = start
                moved += 1
                if start < self.first_start:
                    self.first_start = start
        return moved

    def pop_due(self, now: float) -> tuple[list[int], float]:
        """Remove the queued jobs whose reservation is at or before ``now``.

        Returns their ids in queue order and the earliest reservation left
        (``inf`` if none).
        """
        if self.first_start > now:  # nothing due: no scan
            return [], self.first_start
        starts = self._start
        keep = [q for q, s in enumerate(starts) if s > now]
        due = [self._idx[q] for q, s in enumerate(starts) if s <= now]
        for column in (self._idx, self._procs, self._req, starts):
            column[:] = [column[q] for q in keep]
        self.first_start = min(starts, default=INF)
        return due, self.first_start

    def reservations(self) -> list[tuple[int, float]]:
        """The queue as ``[(idx, reserved start), ...]`` in queue order."""
        return list(zip(self._idx, self._start))

    def __len__(self) -> int:
        return len(self._idx)


class PlacementProfile(_Steps):
    """Free cores *with identity* over time.

    Step ``i`` holds on ``[times[i], times[i+1])``; ``masks[i]`` is the bit
    mask of the cores free then (bit ``c`` = core ``c``) and ``free[i]`` their
    number, so count-only checks (such as conservative backfilling's test of
    whether a reservation could move at all) read the same ``times`` and
    ``free`` lists as in :class:`AvailabilityProfile`. Reservations are
    :class:`~simlib.engine.allocation.Allocation` objects.

    **Holes.** A job of ``size`` cores and duration ``d`` fits at a candidate
    start ``t`` when the *hole* ``H(t) = cores free during all of [t, t+d)`` has
    at least ``size`` cores. :meth:`earliest_start` visits the candidate
    starts in ascending order (``not_before``, then every later breakpoint:
    a hole can only open when some core becomes free) and offers each fitting
    hole to the allocation strategy, which accepts it by returning the cores
    it selects within ``H(t)`` or rejects it by returning None (paper D's
    *contiguous* and *local* rules); the search then goes on. A job needs the
    same cores during its whole run, so ``H(t)`` can be smaller than the
    smallest free count of the window's steps, and a job may start later
    here than in a count-only profile.

    Examples
    --------
    Two clusters of four single-core nodes; cores 0, 1, 6 and 7 are busy
    until 10, so the hole at 0 is ``{2, 3, 4, 5}``, which spans both clusters:

    >>> from simlib.engine.allocation import OneCluster, LowestIds, Allocation
    >>> p = Platform.homogeneous(8, clusters=2)
    >>> prof = PlacementProfile(0.0, p)
    >>> prof.reserve(0.0, 10.0, Allocation.of(p, [0, 1, 6, 7]))
    >>> t, a = prof.earliest_start(LowestIds(), 3, 5.0, 0.0)
    >>> t, a.cores
    (0.0, (2, 3, 4))
    >>> t, a = prof.earliest_start(OneCluster(), 3, 5.0, 0.0)   # rejects that hole
    >>> t, a.cores
    (10.0, (0, 1, 2))
    """

    __slots__ = ("times", "masks", "free", "total", "platform", "_kernel")

    def __init__(self, now: float, platform: Platform) -> None:
        self.platform = platform
        self.total = platform.cpus
        self.times = [now]
        self.masks = [(1 << self.total) - 1]
        self.free = [self.total]
        #: The compiled core when there is one (the same operations on the
        #: same lists, the same results), chosen when the profile is made.
        self._kernel = placement_kernel()

    def __getstate__(self):
        # A module does not pickle: copies choose their core again.
        return {k: getattr(self, k) for k in self.__slots__ if k != "_kernel"}

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self._kernel = placement_kernel()

    def _columns(self) -> tuple[list, ...]:
        return (self.masks, self.free)

    def copy(self) -> "PlacementProfile":
        """The same steps in lists of its own, on the same core (plans rebuilt
        from a common part copy it)."""
        twin = type(self).__new__(type(self))
        twin.platform, twin.total, twin._kernel = self.platform, self.total, self._kernel
        twin.times, twin.masks, twin.free = list(self.times), list(self.masks), list(self.free)
        return twin

    def reserve(self, start: float, end: float, alloc: Allocation) -> None:
        """Take the cores of ``alloc`` on ``[start, end)``.

        Raises
        ------
        SimulationError
            If one of them is already taken at some time of the window (one
            ``&`` per step: cheap enough to check always).
        """
        self._flip(start, end, alloc, taking=True)

    def release(self, start: float, end: float, alloc: Allocation) -> None:
        """Give back the cores of ``alloc`` on ``[start, end)``.

        Raises
        ------
        SimulationError
            If one of them is already free at some time of the window.
        """
        self._flip(start, end, alloc, taking=False)

    def _flip(self, start: float, end: float, alloc: Allocation, taking: bool) -> None:
        """Flip the cores of ``alloc`` on ``[start, end)``: all free before if ``taking``, else none."""
        if end <= start:
            return
        m, n = alloc.mask, len(alloc)
        expected, n = (m, n) if taking else (0, -n)
        masks, free = self.masks, self.free
        if self._kernel is not None and start >= self.times[0]:
            # The breakpoints and the flips in one call (a profile is never
            # changed before its first breakpoint, but that path stays Python).
            k = self._kernel.flip(self, start, end, m, n, expected)
            if k < 0:
                return
            i, j = k, k + 1  # the step to report, below (the ones before it are flipped)
        else:
            i = self._split(start)
            j = self._split(end)
        for k in range(i, j):
            # Reserving: the cores of m not free; releasing: those already free.
            wrong = (masks[k] & m) ^ expected
            if wrong:
                raise SimulationError(f"{'reserving' if taking else 'releasing'} cores {ids_of(wrong)} "
                                      f"on [{start}, {end}): already {'taken' if taking else 'free'} "
                                      f"at {self.times[k]}")
            masks[k] ^= m
            free[k] -= n

    def hole(self, start: float, duration: float) -> int:
        """Bit mask of the cores free during all of ``[start, start+duration)``."""
        if self._kernel is not None:
            return self._kernel.hole(self, start, duration)
        times, masks = self.times, self.masks
        i = max(bisect.bisect_right(times, start) - 1, 0)
        end = start + duration
        m = masks[i]
        i += 1
        while i < len(times) and times[i] < end:
            m &= masks[i]
            i += 1
        return m

    def hole_given_back(self, start: float, duration: float, given) -> int:
        """:meth:`hole` as if the reservations ``given`` were released:
        ``(from, to, mask)`` each, reserved in this profile on that window.

        Read only: releasing, asking and reserving again would split the
        profile's steps and flip every step twice per reservation, and
        G-LOMARC-TS asks this for every job it tries as a primary. A core is in the hole when at every
        time of the window it is free or held by a given reservation then; the
        window is cut at the profile's breakpoints and the given reservations' ends.

        Examples
        --------
        >>> from simlib.engine.allocation import Allocation
        >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
        >>> prof.reserve(0.0, 10.0, Allocation.of(prof.platform, [0, 1]))
        >>> prof.reserve(10.0, 20.0, Allocation.of(prof.platform, [2]))
        >>> bin(prof.hole(0.0, 15.0)), bin(prof.hole_given_back(0.0, 15.0, [(5.0, 10.0, 0b11)]))
        ('0b1000', '0b1000')
        >>> bin(prof.hole_given_back(0.0, 15.0, [(0.0, 10.0, 0b11), (10.0, 20.0, 0b100)]))
        '0b1111'
        """
        if self._kernel is not None:
            return self._kernel.hole_given_back(self, start, duration, given)
        times, masks = self.times, self.masks
        end = start + duration
        i = max(bisect.bisect_right(times, start) - 1, 0)
        cuts = {start}
        for k in range(i + 1, len(times)):
            if times[k] >= end:
                break
            cuts.add(times[k])
        for frm, to, _ in given:
            if start < frm < end:
                cuts.add(frm)
            if start < to < end:
                cuts.add(to)
        hole = -1
        for t in cuts:  # the order does not matter: one & per piece
            piece = masks[max(bisect.bisect_right(times, t) - 1, 0)]
            for frm, to, mask in given:
                if frm <= t < to:
                    piece |= mask
            hole &= piece
        return hole

    def earliest_start(self, strategy: AllocationStrategy, size: int, duration: float,
                       not_before: float, limit: float = float("inf")
                       ) -> tuple[float, Allocation | None]:
        """Earliest ``t >= not_before`` whose hole ``strategy`` accepts, and its choice.

        Returns ``(t, allocation)``: the cores are free during all of
        ``[t, t+duration)`` and satisfy the strategy. With ``limit`` (a start
        already known to be feasible, e.g. the job's current reservation) the
        search stops there and returns ``(limit, None)``: the caller keeps
        the allocation it had.

        Raises
        ------
        SimulationError
            When even the last step (every reservation over) has no hole the
            strategy accepts: the job can never be placed.
        """
        if self._kernel is not None:
            return self._kernel.earliest_start(self, strategy, size, duration, not_before, limit)
        times, masks, free = self.times, self.masks, self.free
        platform = self.platform
        n = len(times)
        i = max(bisect.bisect_right(times, not_before) - 1, 0)
        start = max(not_before, times[i])
        # `window`: the cores free on every step i .. j-1 (-1 when j == i).
        window, j = -1, i
        while start < limit:
            end = start + duration
            while True:
                if j > i and (j == n or times[j] >= end):
                    # The window covers [start, end): offer its hole.
                    alloc = strategy.select(platform, window, size)
                    if alloc is not None:
                        return start, alloc
                    i += 1  # hole rejected by the strategy: the next start
                    window, j = -1, i
                    break
                if free[j] < size:
                    # Step j alone is too full: no window covering it fits,
                    # so candidates up to j are skipped at once.
                    i = j + 1
                    window, j = -1, i
                    break
                window &= masks[j]
                if window.bit_count() < size:
                    # Same cores not free throughout. Every later candidate
                    # up to j covers step j too (times[j] < end), so those
                    # whose cores free from them to j are too few are
                    # skipped: the next is the first k whose suffix
                    # masks[k] & ... & masks[j] keeps `size` cores (the
                    # suffix only shrinks as k goes down), and its window
                    # goes on from step j + 1. The same holes reach the
                    # strategy as when every candidate is scanned afresh.
                    suffix, k = masks[j], j
                    while k > i + 1:
                        wider = suffix & masks[k - 1]
                        if wider.bit_count() < size:
                            break
                        suffix, k = wider, k - 1
                    i = k
                    window, j = suffix, j + 1
                    break
                j += 1
            if i >= n:
                raise SimulationError(f"{strategy!r} can never place {size} cores on "
                                      f"{platform.name} ({self.total} cores)")
            start = times[i]
        return limit, None

    def place_in_order(self, strategy: AllocationStrategy, sizes: list[int],
                       durations: list[float], not_before: float
                       ) -> list[tuple[float, Allocation]]:
        """Place jobs one after the other: each at its :meth:`earliest_start`
        from ``not_before``, reserved before the next one is searched.

        What a plan built from scratch does with its queue (conservative
        backfilling's rebuild), in one call: for paper D's rules behind a
        :class:`~simlib.engine.allocation.PlanChoice`
        (:func:`~simlib.engine.allocation.kernel_rule`) the compiled core
        runs the whole loop. Returns each job's ``(start, allocation)``, in
        order.

        Examples
        --------
        >>> from simlib.engine.allocation import LowestIds
        >>> prof = PlacementProfile(0.0, Platform.homogeneous(4))
        >>> [(t, a.cores) for t, a in prof.place_in_order(LowestIds(), [3, 2], [5.0, 1.0], 0.0)]
        [(0.0, (0, 1, 2)), (5.0, (0, 1))]
        """
        if len(sizes) != len(durations):
            raise ValueError(f"place_in_order: {len(sizes)} sizes for {len(durations)} durations")
        rule = None if self._kernel is None else kernel_rule(strategy, self.platform)
        if rule is not None and not_before >= self.times[0]:
            return self._kernel.place_in_order(self, strategy, rule, list(sizes),
                                               list(durations), not_before)
        out = []
        for size, duration in zip(sizes, durations):
            start, alloc = self.earliest_start(strategy, size, duration, not_before)
            self.reserve(start, start + duration, alloc)
            out.append((start, alloc))
        return out


