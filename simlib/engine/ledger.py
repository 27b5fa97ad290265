"""The resource ledger: which core is held by which job.

Cores have identities (see :class:`simlib.platform.Platform`). The free
cores are kept as sorted runs of consecutive ids
(:class:`~simlib.engine.cores.FreeRuns`): count-based allocation takes the
lowest free ids and hands out a :class:`~simlib.engine.cores.CoreRuns`, so
memory grows with the blocks in use, not with the machine's cores (one
layer; time sharing keeps a stack of ids, :class:`TimeSharedLedger`);
placement-aware policies pass
explicit core ids instead, or an allocation strategy
(:mod:`simlib.engine.allocation`) that picks among the free cores.
"""
from __future__ import annotations

from ..errors import SimulationError
from ..platform import Platform
from .cores import FreeRuns


class ResourceLedger:
    """Tracks free cores and each job's allocation.

    With ``layers > 1`` (time sharing: paper Z's Scojo-PECT virtual
    machines) the ledger holds ``layers`` copies of the platform's cores:
    id ``layer * cpus + core`` is physical core ``core`` in that layer, so a
    physical core can be held by one job per layer. Which of those jobs may
    *run* at a time is the policy's business (the others are suspended);
    :meth:`check` verifies that no two running jobs share a physical core.

    Examples
    --------
    >>> led = ResourceLedger(Platform.homogeneous(4))
    >>> led.take(3)
    [0, 1, 2]
    >>> led.free
    1
    """

    __slots__ = ("platform", "total", "cpus", "layers", "_free")

    def __init__(self, platform: Platform, layers: int = 1) -> None:
        self.platform = platform
        self.cpus = platform.cpus
        self.layers = layers
        self.total = platform.cpus * layers
        self._free = self._new_stack()

    def _new_stack(self):
        return FreeRuns(self.total)

    def _stack_ids(self) -> list[int]:
        """The free cores' ids in the order the ledger keeps them."""
        return self._free.ids()

    @property
    def free(self) -> int:
        return len(self._free)

    def free_ids(self) -> list[int]:
        """Sorted ids of free cores (O(cpus); for placement policies and checks)."""
        return sorted(self._stack_ids())

    def free_mask(self) -> int:
        """Bit mask of the free cores (bit ``i`` set = core ``i`` free); O(runs)."""
        m = 0
        for lo, hi in zip(self._free.lo, self._free.hi):
            m |= (1 << (hi + 1)) - (1 << lo)
        return m

    def choose(self, strategy, count: int) -> list[int]:
        """Ids of ``count`` free cores chosen by ``strategy``, without taking them.

        Raises
        ------
        SimulationError
            When the strategy finds no placement among the free cores.

        Examples
        --------
        >>> from simlib.engine.allocation import Contiguous
        >>> led = ResourceLedger(Platform.homogeneous(6))
        >>> _ = led.take_ids([1, 3])
        >>> led.choose(Contiguous(), 2)
        [4, 5]
        """
        if count > len(self._free):
            raise SimulationError(f"over-allocation: {count} cores asked, {len(self._free)} free")
        alloc = strategy.select(self.platform, self.free_mask(), count)
        if alloc is None:
            raise SimulationError(f"{strategy!r} finds no placement for {count} cores among "
                                  f"the {len(self._free)} free")
        return list(alloc.cores)

    def take(self, count: int, owner: int = -2) -> list[int]:
        """Allocate ``count`` free cores (any), return their ids.

        ``owner`` (the job's index) is accepted for symmetry with
        :meth:`take_ids`; the ledger does not record it per core (that would
        cost a Python loop over the cores of every start and end): who holds
        what is in the jobs' ``alloc``, which :meth:`check` compares.
        """
        free = self._free
        if count > free.count:
            raise SimulationError(f"over-allocation: {count} cores asked, {free.count} free")
        return free.take(count)

    def take_ids(self, ids: list[int], owner: int = -2) -> list[int]:
        """Allocate exactly the cores ``ids`` (placement-aware policies).

        One pass over the free list: every id was free when it drops by as
        many cores as ``ids`` names (the free list keeps its order).

        Examples
        --------
        >>> led = ResourceLedger(Platform.homogeneous(4))
        >>> led.take_ids([2, 0]), led.free_ids()
        ([2, 0], [1, 3])
        >>> led.take_ids([1, 2])
        Traceback (most recent call last):
        ...
        simlib.errors.SimulationError: core 2 is already held (not free)
        """
        ids = list(ids)
        if not self._free.remove(ids):
            self._refuse(ids)
        return ids

    def _refuse(self, ids: list[int]) -> None:
        """Raise why :meth:`take_ids` cannot take ``ids`` (one not free, or named twice)."""
        free = set(self._stack_ids())
        for c in ids:
            if c not in free:
                what = "out of range" if not 0 <= c < self.total else "already held"
                raise SimulationError(f"core {c} is {what} (not free)")
        raise SimulationError(f"cores {ids} name a core twice")

    def give_back(self, ids) -> None:
        self._free.give_back(ids)

    def physical(self, core: int) -> int:
        """The physical core of ledger id ``core`` (itself with one layer)."""
        return core % self.cpus

    def check(self, running) -> None:
        """Invariant check (debug mode): every core free xor held by one job;
        with layers, no physical core used by two jobs that are running."""
        from .job import RUNNING
        if self.layers > 1:
            used: dict[int, int] = {}
            cpus = self.cpus
            for job in running:
                if job.state != RUNNING:
                    continue
                for c in job.alloc:
                    p = c % cpus
                    if p in used:
                        raise SimulationError(f"physical core {p} used by running jobs "
                                              f"{used[p]} and {job.job_id}")
                    used[p] = job.job_id
        held = {}
        for job in running:
            for c in job.alloc:
                if c in held:
                    raise SimulationError(f"core {c} held by job {held[c]} and {job.job_id}")
                held[c] = job.job_id
            if len(job.alloc) != job.cpus:
                raise SimulationError(f"job {job.job_id}: {len(job.alloc)} cores recorded, cpus={job.cpus}")
        stack = self._stack_ids()
        free = set(stack)
        if len(free) != len(stack):
            raise SimulationError("a core is listed twice in the free list")
        if free & held.keys():
            raise SimulationError(f"cores both free and held: {sorted(free & held.keys())[:5]}")
        if len(free) + len(held) != self.total:
            raise SimulationError(f"{len(free)} free + {len(held)} held != {self.total} cores")


class TimeSharedLedger(ResourceLedger):
    """A :class:`ResourceLedger` for many layers: the same stack of free cores,
    kept as the keys of an insertion-ordered dict.

    Time-sharing policies (paper Z) place every job on named cores, in a
    free list ``layers`` times the machine: a list would be scanned whole
    at every start, the dict drops the named cores one by one. Its key
    order is the list's order (top last), so :meth:`take` hands out the
    same cores in the same order as the list would.

    Examples
    --------
    >>> led = TimeSharedLedger(Platform.homogeneous(4), layers=2)
    >>> led.take_ids([6, 1]), led.take(2), led.free_ids()
    ([6, 1], [0, 2], [3, 4, 5, 7])
    """

    __slots__ = ()

    def _new_stack(self):
        return dict.fromkeys(range(self.total - 1, -1, -1))

    def _stack_ids(self) -> list[int]:
        return list(self._free)

    def free_mask(self) -> int:
        m = 0
        for c in self._free:
            m |= 1 << c
        return m

    def take(self, count: int, owner: int = -2) -> list[int]:
        free = self._free
        if count > len(free):
            raise SimulationError(f"over-allocation: {count} cores asked, {len(free)} free")
        return [free.popitem()[0] for _ in range(count)]  # the top first, as the list's

    def take_ids(self, ids: list[int], owner: int = -2) -> list[int]:
        ids = list(ids)
        free = self._free
        wanted = set(ids)
        if len(wanted) != len(ids) or not free.keys() >= wanted:
            self._refuse(ids)
        for c in ids:
            del free[c]
        return ids

    def give_back(self, ids: list[int]) -> None:
        self._free.update(dict.fromkeys(reversed(ids)))


def make_ledger(platform: Platform, layers: int = 1) -> ResourceLedger:
    """The ledger for ``layers``: a list stack for one, the dict stack for more."""
    return ResourceLedger(platform) if layers == 1 else TimeSharedLedger(platform, layers)
