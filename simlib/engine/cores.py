"""Sets of core ids held as runs of consecutive ids: memory by runs, not by cores.

A job's allocation under a count-based policy is a few blocks of
consecutive cores, whatever the machine's size; listing every id cost
36 bytes per core (a list slot and an int), which made a million jobs of a
few hundred cores each 10 GB. :class:`CoreRuns` keeps the blocks and reads
like the list of ids it stands for (length, iteration, indexing, equality
with a list), in the order the cores were taken.

:class:`FreeRuns` is the ledger's free cores in the same form, sorted, a
job taking the lowest free ids ("first fit" in id order, as Batsim's
schedulers usually allocate). Before, the free cores were a list stack
(a job took the ones freed last): its order scatters over a long run, so
it could not be kept as runs; which cores a count-based policy gives a job
changes no start or end, only the ``allocated_resources`` written.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import chain


class CoreRuns:
    """Core ids as runs ``(lo, hi)`` of consecutive ids, ascending within a
    run, in the order taken; reads like the list of those ids.

    Examples
    --------
    >>> a = CoreRuns((4, 6, 0, 1))
    >>> list(a), len(a), a[3], a == [4, 5, 6, 0, 1]
    ([4, 5, 6, 0, 1], 5, 0, True)
    >>> CoreRuns.of([7, 8, 9, 2, 3]).runs
    ((7, 9), (2, 3))
    >>> a.intervals()
    '0-1 4-6'
    """

    __slots__ = ("flat", "_n")

    def __init__(self, flat: tuple = ()) -> None:
        #: ``(lo0, hi0, lo1, hi1, ...)``: one flat tuple (a tuple per run costs more).
        self.flat = flat
        n = 0
        for k in range(0, len(flat), 2):
            n += flat[k + 1] - flat[k] + 1
        self._n = n

    @classmethod
    def of(cls, ids) -> "CoreRuns":
        """The runs of the ids ``ids`` in their order (a new run where an id is
        not the one before plus one)."""
        flat: list[int] = []
        last = None
        for c in ids:
            if last is not None and c == last + 1:
                flat[-1] = c
            else:
                flat += (c, c)
            last = c
        return cls(tuple(flat))

    @property
    def runs(self) -> tuple[tuple[int, int], ...]:
        f = self.flat
        return tuple(zip(f[::2], f[1::2]))

    def __len__(self) -> int:
        return self._n

    def __iter__(self):
        f = self.flat
        return chain.from_iterable(range(f[k], f[k + 1] + 1) for k in range(0, len(f), 2))

    def __reversed__(self):
        f = self.flat
        return chain.from_iterable(range(f[k + 1], f[k] - 1, -1) for k in range(len(f) - 2, -1, -2))

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("core index out of range")
        f = self.flat
        for k in range(0, len(f), 2):
            size = f[k + 1] - f[k] + 1
            if i < size:
                return f[k] + i
            i -= size
        raise IndexError("core index out of range")  # pragma: no cover - sizes add up

    def __eq__(self, other) -> bool:
        if isinstance(other, CoreRuns):
            return list(self) == list(other)
        if isinstance(other, (list, tuple)):
            return len(other) == self._n and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # a list's stand-in: not hashable either

    def __repr__(self) -> str:
        return repr(list(self))

    def intervals(self) -> str:
        """Batsim's ``allocated_resources``: the ids sorted, as ``lo-hi`` blocks."""
        f = self.flat
        runs = sorted(zip(f[::2], f[1::2]))
        out: list[list[int]] = []
        for lo, hi in runs:
            if out and lo == out[-1][1] + 1:
                out[-1][1] = hi
            else:
                out.append([lo, hi])
        return " ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in out)


class FreeRuns:
    """The free cores as sorted, disjoint runs ``[lo, hi]`` of consecutive ids;
    a job takes the lowest free ids. Memory by runs: a machine of 2**31
    cores is one run, and blocks given back merge with their neighbours,
    so there are about as many runs as running jobs.

    Examples
    --------
    >>> s = FreeRuns(8)
    >>> a = s.take(3); b = s.take(2); list(a), list(b), s.count
    ([0, 1, 2], [3, 4], 3)
    >>> s.give_back(a); list(s.take(4))
    [0, 1, 2, 5]
    """

    __slots__ = ("lo", "hi", "count")

    def __init__(self, total: int) -> None:
        #: The runs' first and last ids, lowest run first.
        self.lo: list[int] = [0] if total else []
        self.hi: list[int] = [total - 1] if total else []
        self.count = total

    def take(self, count: int) -> CoreRuns:
        """The ``count`` lowest free cores (the caller checked there are that many)."""
        lo, hi = self.lo, self.hi
        flat: list[int] = []
        need, k = count, 0
        while need:
            a, b = lo[k], hi[k]
            if b - a + 1 <= need:  # the whole run
                flat += (a, b)
                need -= b - a + 1
                k += 1
            else:
                flat += (a, a + need - 1)
                lo[k] = a + need
                need = 0
        del lo[:k], hi[:k]
        self.count -= count
        return CoreRuns(tuple(flat))

    def give_back(self, cores) -> None:
        """Free ``cores`` (a :class:`CoreRuns` or a list of ids) again."""
        flat = cores.flat if isinstance(cores, CoreRuns) else CoreRuns.of(sorted(cores)).flat
        lo, hi = self.lo, self.hi
        for k in range(0, len(flat), 2):
            a, b = flat[k], flat[k + 1]
            i = bisect_left(lo, a)   # the runs before it end below a
            joins_left = i > 0 and hi[i - 1] == a - 1
            joins_right = i < len(lo) and lo[i] == b + 1
            if joins_left and joins_right:
                hi[i - 1] = hi[i]
                del lo[i], hi[i]
            elif joins_left:
                hi[i - 1] = b
            elif joins_right:
                lo[i] = a
            else:
                lo.insert(i, a)
                hi.insert(i, b)
        self.count += len(cores)

    def ids(self) -> list[int]:
        """The free ids, ascending (O(cores): for checks and tests)."""
        return [c for a, b in zip(self.lo, self.hi) for c in range(a, b + 1)]

    def remove(self, ids) -> bool:
        """Take exactly the cores ``ids``; False (and nothing changed) if one is
        not free or one is named twice."""
        want = sorted(ids)
        if len(set(want)) != len(want):
            return False
        lo, hi = self.lo, self.hi
        new_lo: list[int] = []
        new_hi: list[int] = []
        found = 0
        for a, b in zip(lo, hi):
            i, j = bisect_left(want, a), bisect_right(want, b)
            if i == j:
                new_lo.append(a)
                new_hi.append(b)
                continue
            found += j - i
            start = a  # the run without want[i:j]
            for c in want[i:j]:
                if c > start:
                    new_lo.append(start)
                    new_hi.append(c - 1)
                start = c + 1
            if start <= b:
                new_lo.append(start)
                new_hi.append(b)
        if found != len(want):
            return False
        self.lo, self.hi = new_lo, new_hi
        self.count -= found
        return True

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        """The free ids, ascending (O(cores): for checks and tests)."""
        return iter(self.ids())
