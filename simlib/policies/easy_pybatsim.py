"""EASY as pybatsim 3.2.1's ``easyBackfill`` scheduler implements it.

The ``reading="pybatsim"`` switch of :class:`simlib.policies.easy.EASY`
(``simlib simulate --policy easy --param reading=pybatsim``): the scheduler
Batsim's cross-check runs, read from
``pybatsim-3.2.1/schedulers/easyBackfill.py`` (cited below as
``easyBackfill.py:LINE``). Jobs are rectangles: each one runs on one
**contiguous free space** (a block of consecutive core ids), never on
scattered cores, so the rules differ from Mu'alem & Feitelson's count-based
EASY in the shadow time, the extra nodes and where a job may be backfilled.

Rules
-----
**State.** The free cores are a list of maximal contiguous free spaces in
id order (``easyBackfill.py:66-235``). Each space remembers at which end
the next job is placed: its *low* end (the default) or its *high* end.
Running jobs are kept in order of their estimated end, ``start +
requested_time`` (walltime-based, never the actual end), ties in the order
they started (``easyBackfill.py:246-247``, a sorted list keyed by that
end). The queue is the policy's order, submission order by default
(``easyBackfill.py:248,255``).

**Placing a job in a space** (``easyBackfill.py:99-143``): at the low end
it takes the space's lowest ids, at the high end its highest ids; a space
left empty disappears.

**Releasing a job's block** (``easyBackfill.py:145-198``): the block joins
the free space just below it and/or just above it. Joined to the space
below only, that space's next job goes to its high end (next to where the
released job was); joined to the space above only, to its low end; joined
to both, the merged space keeps the lower space's end; joined to none, it
is a new space placing at its low end.

**A pass** runs after every event, one at a time: each submission
(``easyBackfill.py:250-258``) and each completion, after its block is
released (``easyBackfill.py:260-267``); with ``simlib simulate --passes
per_event`` the engine calls the policy so (at one time: each submission,
then each completion in launch order). A pass
(``easyBackfill.py:277-291``):

1. Starts queue-head jobs in order while the head fits in a free space:
   the first space in id order with at least its size
   (``easyBackfill.py:293-298,310-321``).
2. If more than one job still waits, reserves the head and backfills
   (``easyBackfill.py:281-284``); a lone waiting head gets nothing.

**Shadow time and the head's block** (``easyBackfill.py:323-337``). On a
copy of the free spaces, running jobs are released one by one in order of
estimated end; the **shadow time** is the estimated end of the first one
whose release leaves the space it joined wide enough for the head, and the
head's block is placed in that space by the placing rule above. Only one
contiguous free space counts: processors free at the shadow time but in
other spaces do not make a reservation earlier. There are no **extra
nodes** as a count: what the head leaves free is the space around its
block (next step).

**Time limits of the free spaces** (``easyBackfill.py:339-411``). With the
head's block ``[a, b]`` and ``window = shadow - now``:

* the free space starting at ``a`` and the free space ending at ``b`` may
  be used for ``window`` seconds only;
* a free space that holds ``a`` but starts below it becomes two
  overlapping spaces: itself, limited to ``window`` (placing at its high
  end), followed by its part below ``a``, unlimited (placing at its low
  end); likewise a free space that holds ``b`` and ends above it becomes
  itself limited (low end) followed by its part above ``b``, unlimited
  (high end). A job placed in one of the two trims the other;
* every other free space is unlimited -- also one lying strictly inside
  ``[a, b]`` (only the spaces meeting the block's two ends are limited).

**Backfilling** (``easyBackfill.py:300-308,413-428``): every waiting job
but the head, in queue order, starts in the first space (in list order) it
fits, in size and with ``requested_time <= `` the space's limit; the
reservation is not recomputed after a backfilled job. Afterwards the two
unlimited parts are dropped and the limited spaces become unlimited again,
placing at their low end (``easyBackfill.py:441-456``).

Notes
-----
Which of two same-time events Batsim v4.2.1 delivers first is decided by
sub-nanosecond rounding of its clock (a job's sleep begins a little after
its nominal start), not by the nominal times: it sometimes sends a
completion before a submission of the same time, or two same-time
completions against launch order. The free spaces and the placing ends
then differ, and so may later starts.

Examples
--------
>>> free = FreeSpaces(8)
>>> free.take(free.spaces[0], 3), free.take(free.spaces[0], 2)
((0, 2), (3, 4))
>>> free.release(0, 2).low        # joins nothing: a new space, low end
True
>>> [(s.first, s.last) for s in free.spaces]
[(0, 2), (5, 7)]
"""
from __future__ import annotations

from bisect import insort

INF = float("inf")


class Space:
    """One contiguous free space ``[first, last]`` of core ids.

    ``low``: the next job placed here takes the lowest ids (else the
    highest); ``window``: for how long from now it may be used (INF but
    during a backfill); ``partner``: the overlapping space it was split
    into during a backfill (a job placed in one trims the other).
    """

    __slots__ = ("first", "last", "low", "window", "partner", "gone")

    def __init__(self, first: int, last: int, low: bool = True, window: float = INF) -> None:
        self.first, self.last, self.low, self.window = first, last, low, window
        self.partner: Space | None = None
        self.gone = False

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def __repr__(self) -> str:
        return f"Space({self.first}, {self.last}, {'low' if self.low else 'high'}, {self.window})"


class FreeSpaces:
    """The free contiguous spaces of a machine of ``cpus`` cores, in id order."""

    def __init__(self, cpus: int) -> None:
        self.spaces: list[Space] = [Space(0, cpus - 1)] if cpus > 0 else []

    def copy(self) -> FreeSpaces:
        """An independent copy (outside a backfill: no partners)."""
        other = FreeSpaces(0)
        other.spaces = [Space(s.first, s.last, s.low, s.window) for s in self.spaces]
        return other

    def _drop(self, space: Space) -> None:
        space.gone = True
        self.spaces.remove(space)

    def first_fit(self, size: int, length: float = 0.0) -> Space | None:
        """The first space of at least ``size`` cores usable for ``length`` seconds."""
        for space in self.spaces:
            if size <= space.size and length <= space.window:
                return space
        return None

    def take(self, space: Space, size: int) -> tuple[int, int]:
        """Place ``size`` cores at ``space``'s placing end; return the block ``(lo, hi)``."""
        other = space.partner
        if space.low:
            lo, hi = space.first, space.first + size - 1
            space.first = hi + 1
            if other is not None and other.first <= hi:
                other.first = hi + 1
        else:
            lo, hi = space.last - size + 1, space.last
            space.last = lo - 1
            if other is not None and other.last >= lo:
                other.last = lo - 1
        if space.size == 0:
            self._drop(space)
        if other is not None and not other.gone and other.size <= 0:
            self._drop(other)
        return lo, hi

    def release(self, lo: int, hi: int) -> Space:
        """Give the block ``[lo, hi]`` back; return the free space now holding it."""
        spaces = self.spaces
        i = next((k for k, s in enumerate(spaces) if s.first > lo), len(spaces))
        below = spaces[i - 1] if i > 0 and spaces[i - 1].last + 1 == lo else None
        above = spaces[i] if i < len(spaces) and spaces[i].first - 1 == hi else None
        if below is not None and above is not None:
            below.last = above.last   # the lower space keeps its placing end
            del spaces[i]
            return below
        if below is not None:
            below.last, below.low = hi, False
            return below
        if above is not None:
            above.first, above.low = lo, True
            return above
        new = Space(lo, hi)
        spaces.insert(i, new)
        return new

    def limit(self, a: int, b: int, window: float) -> tuple[list[Space], list[Space]]:
        """Limit the spaces meeting the ends of the head's block ``[a, b]`` to
        ``window`` seconds, splitting off their unlimited parts outside it.

        Returns ``(limited, parts)`` for :meth:`unlimit`.
        """
        limited: list[Space] = []
        parts: list[Space] = []
        for space in list(self.spaces):
            if space.first == a:
                space.window = window
                limited.append(space)
            elif space.first < a <= space.last:
                self._split(space, Space(space.first, a - 1, True), window, low=False)
                limited.append(space)
                parts.append(space.partner)
            if space.last == b:
                space.window = window
                limited.append(space)
            elif space.first <= b < space.last:
                self._split(space, Space(b + 1, space.last, False), window, low=True)
                limited.append(space)
                parts.append(space.partner)
                break
        return limited, parts

    def _split(self, space: Space, part: Space, window: float, low: bool) -> None:
        self.spaces.insert(self.spaces.index(space) + 1, part)
        space.partner, part.partner = part, space
        space.window, space.low = window, low

    def unlimit(self, limited: list[Space], parts: list[Space]) -> None:
        """Undo :meth:`limit` after the backfill."""
        for part in parts:
            part.partner = None
            if not part.gone:
                self._drop(part)
        for space in limited:
            space.partner, space.window, space.low = None, INF, True


class PybatsimReading:
    """The pybatsim reading's state and passes, for one simulation.

    :class:`~simlib.policies.easy.EASY` with ``reading="pybatsim"`` makes
    one at ``attach``, hands it each round's finished jobs
    (:meth:`released`) and runs :meth:`schedule` as its pass.
    """

    def __init__(self, policy) -> None:
        self.policy = policy
        self.sim = policy.sim
        self.free = FreeSpaces(self.sim.platform.cpus)
        #: Running jobs as ``(estimated end, start order, job)``, sorted.
        self.running: list[tuple[float, int, object]] = []
        self.blocks: dict[int, tuple[int, int]] = {}
        self._started = 0

    def released(self, finished) -> None:
        """Give back the blocks of ``finished`` jobs, in order (``easyBackfill.py:260-264``)."""
        for job in finished:
            block = self.blocks.pop(job.idx, None)
            if block is None:
                continue
            self.free.release(*block)
            self.running = [r for r in self.running if r[2] is not job]

    def _start(self, job, space: Space, now: float) -> None:
        lo, hi = self.free.take(space, job.procs)
        self.blocks[job.idx] = (lo, hi)
        self._started += 1
        insort(self.running, (now + job.requested_time, self._started, job),
               key=lambda r: (r[0], r[1]))
        self.sim.start(job, ids=range(lo, hi + 1))

    def reserve(self, head) -> tuple[tuple[int, int], float]:
        """The head's block and the shadow time (``easyBackfill.py:323-337``)."""
        free = self.free.copy()
        for end, _, job in self.running:
            space = free.release(*self.blocks[job.idx])
            if head.procs <= space.size:
                return free.take(space, head.procs), end
        raise AssertionError(f"job {head.job_id} never fits")  # sizes are checked up front

    def schedule(self, now: float) -> None:
        """One pass (``easyBackfill.py:277-291``)."""
        policy = self.policy
        q = policy.queue
        k = 0
        while k < len(q):
            space = self.free.first_fit(q[k].procs)
            if space is None:
                break
            self._start(q[k], space, now)
            k += 1
        del q[:k]
        if len(q) <= 1:
            policy.reservation = None
            return
        head = q[0]
        block, shadow = self.reserve(head)
        limited, parts = self.free.limit(block[0], block[1], shadow - now)
        allowed = policy._candidate
        started = []
        for job in q[1:]:
            if allowed is not None and not allowed[job.idx]:
                continue
            space = self.free.first_fit(job.procs, job.requested_time)
            if space is not None:
                self._start(job, space, now)
                started.append(job)
        self.free.unlimit(limited, parts)
        if started:
            policy.drop(started)
        policy.reservation = (head, shadow, block)
