"""LOS, the Lookahead Optimizing Scheduler (Shmueli & Feitelson, JPDC 2005).

Paper K (Kumar, Shae, Jamjoom) builds Delayed-LOS and Hybrid-LOS on LOS and
names its two dynamic programs:

* **Basic_DP** — among the waiting jobs (the first ``lookahead`` = 50 of the
  queue), choose the subset that maximizes the processors used now: a 0/1
  knapsack whose weight and value are both the job size, capacity the free
  processors ``m``.
* **Reservation_DP** — when the head job does not fit, it is reserved at its
  shadow time (paper K: *freeze end time* ``fret``) and the processors free
  then beyond its size (*freeze end capacity* ``frec``) are the *extra*
  processors. The DP runs over two capacities, (free processors now, extra
  processors at ``fret``): a selected job still running at ``fret`` by its
  estimate also uses extra processors (its ``frenum``, Notations box of
  paper K, equals its size; 0 when it ends by ``fret``).

Both are one function here, :func:`los_dp`, over the free processors and any
number of *freeze points* ``(frenums, frec)``; :func:`basic_dp` and
:func:`reservation_dp` are the two cases the papers name. Its table is
filled by a compiled kernel (:mod:`simlib.policies._los_kernel`) when one
is built, else with numpy: the same integers, the same choice.

LOS itself: start the head job at once whenever it fits (repeatedly, as the
new head may fit too); when the head does not fit, reserve it with EASY's
shadow-time rule (:func:`~simlib.policies.base.shadow_time`, which counts
every job ending at the shadow time) and start the Reservation_DP's choice
among the next ``lookahead - 1`` jobs.

**Tie-break** (parameter ``tie``). Several subsets can use the same
number of processors. ``earliest`` (the default) picks the one that is
*lexicographically first in queue order*: it contains the earliest-queued
job that any optimal subset contains, then, given that, the next earliest,
and so on -- it favours older jobs, in the FCFS spirit of the queue.
``latest`` picks the lexicographically first in *reverse* queue order:
the latest-queued job any optimal subset holds, and so on -- what a
back-tracking over the DP table from the last job yields when it takes a
job on ties (the reading of "prefers later jobs" for Shmueli &
Feitelson's LOS; their table code is not in our copy of the papers).
Both are deterministic. The
papers do not say which they used, and the rule is not neutral: on the
SDSC log it can flip the sign of LOS - EASY below saturation (paper K's
Fig. 1 sensitivity, ``paper_figures/kumar/fig1_sensitivity.md``).

**Lookahead.** ``lookahead`` bounds the jobs the DP sees (50 in both
papers); ``"all"`` lets it see the whole queue.

**Allocation units.** The DP works in units: sizes are rounded up to a
multiple of ``unit`` processors and capacities down (so a choice never
over-allocates), then the greatest common divisor of all weights is divided
out, which is exact. With BlueGene/P sizes (multiples of 32 on 320
processors) the tables are 11 × 11 whatever ``unit`` is; ``unit`` > 1 only
coarsens workloads whose sizes are not multiples of it.

**Freeze end tests.** A job started now "ends by the freeze end time" when
``now + requested_time <= fret`` (EASY's test; Algorithm 1 of paper K prints
``<``): a job ending exactly at ``fret`` gives its processors back before
the reserved job starts (the engine applies completions first).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..engine.job import WAITING
from ..errors import ConfigError
from . import kernels
from .base import QueuePolicy, shadow_time

#: Compiled modules behind :func:`los_dp` (code inputs of the pipeline's
#: steps, :mod:`simlib.codedeps`); see :mod:`simlib.policies.kernels`.
COMPILED_KERNELS = ("_los_kernel",)

#: Largest DP table (cells per job) before freeze points are left to the
#: greedy feasibility check instead (memory is ``lookahead`` tables).
MAX_DP_CELLS = 1 << 17
#: Largest whole DP table (cells over all candidates, 8 bytes each): with
#: lookahead "all" a saturated queue holds thousands of candidates, so
#: freeze points go to the feasibility check before memory runs out.
MAX_TABLE_CELLS = 1 << 24


#: ``los_dp``'s default ``compiled``: look the kernel up (``SIMLIB_KERNELS``) at each call.
_LOOK_UP = object()


def los_dp(sizes: Sequence[int], free: int, freezes: Sequence[tuple[Sequence[int], int]] = (),
           unit: int = 1, tie: str = "earliest", compiled=_LOOK_UP) -> list[int]:
    """Subset of jobs maximizing the processors used now, under freeze points.

    Parameters
    ----------
    sizes : sequence of int
        Processors of each candidate job, in queue order.
    free : int
        Processors free now (``m``).
    freezes : sequence of (frenums, frec)
        Each freeze point gives, per candidate, the processors it still holds
        at the freeze end time (``frenum``: its size, or 0 if it ends by
        then), and the capacity available then (``frec``; a negative one
        counts as 0: jobs gone by then may still be chosen).
    unit : int
        Allocation unit of the DP (sizes round up, capacities down).
    tie : {"earliest", "latest"}
        Among the optimal subsets, the lexicographically first in queue
        order (``earliest``) or in reverse queue order (``latest``).
    compiled : module or None, optional
        The compiled DP kernel to use, None for the pure-Python table; by
        default looked up at each call (:func:`simlib.policies.kernels.load`,
        which reads ``SIMLIB_KERNELS``). A policy looks it up once.

    Returns
    -------
    list of int
        Positions (into ``sizes``) of the chosen jobs, increasing.

    Examples
    --------
    >>> los_dp([7, 4, 6], 10)                 # paper K, Fig. 2: 4 + 6 beats 7
    [1, 2]
    >>> los_dp([3, 3, 4], 6, [([3, 0, 4], 3)])  # only one long job fits the extra
    [0, 1]
    >>> los_dp([2, 2, 2], 4), los_dp([2, 2, 2], 4, tie="latest")
    ([0, 1], [1, 2])
    """
    if tie == "latest":
        # The earliest rule on the reversed queue, positions mapped back.
        n = len(sizes)
        picks = los_dp(list(sizes)[::-1], free,
                       [(list(frenums)[::-1], frec) for frenums, frec in freezes], unit,
                       compiled=compiled)
        return sorted(n - 1 - i for i in picks)
    if tie != "earliest":
        raise ConfigError(f"los_dp: tie must be 'earliest' or 'latest', not {tie!r}")
    if len(sizes) == 0 or free <= 0:
        return []
    if unit < 1:
        raise ConfigError(f"los_dp: unit must be >= 1, not {unit}")
    weights, caps = _dp_weights(sizes, free, freezes, unit)
    if compiled is _LOOK_UP:
        compiled = kernels.load(COMPILED_KERNELS[0])
    if compiled is not None:  # the same table and choice, in C
        return compiled.choose(sizes, weights, caps)
    return _dp_choice(sizes, weights, caps)


def _dp_weights(sizes: Sequence[int], free: int, freezes: Sequence[tuple[Sequence[int], int]],
                unit: int) -> tuple[list[list[int]], list[int]]:
    """The DP's weights and capacities, in allocation units, their gcd divided out.

    Row 0 holds the sizes against the free processors, then one row per
    freeze point its frenums against its ``frec`` (module notes: sizes
    round up to units, capacities down; dividing by the gcd of all weights
    is exact).

    Examples
    --------
    >>> _dp_weights([64, 32], 100, [([64, 0], 40)], 1)
    ([[2, 1], [2, 0]], [3, 1])
    >>> _dp_weights([5, 3], 10, [], 4)
    ([[2, 1]], [2])
    """
    n = len(sizes)
    # Sizes in units, rounded up (with unit 1, the sizes: no divisions).
    weights = [list(map(int, sizes)) if unit == 1 else [-(-int(s) // unit) for s in sizes]]
    caps = [int(free) // unit]
    for frenums, frec in freezes:
        if len(frenums) != n:
            raise ValueError(f"los_dp: {len(frenums)} frenums for {n} jobs")
        weights.append([(int(f) if unit == 1 else -(-int(f) // unit)) if f > 0 else 0
                        for f in frenums])
        caps.append(max(int(frec), 0) // unit)
    g = 0
    for row in weights:
        g = math.gcd(g, *row)  # one call per row: the same gcd
    if g > 1:  # exact: every weight is a multiple of g
        weights = [[x // g for x in row] for row in weights]
        caps = [c // g for c in caps]
    return weights, caps


def _dp_choice(sizes: Sequence[int], weights: list[list[int]], caps: list[int]) -> list[int]:
    """The pure-Python twin of the compiled kernel's ``choose``: positions of the
    lexicographically first subset using the most processors.

    Examples
    --------
    >>> _dp_choice([7, 4, 6], [[7, 4, 6]], [10])
    [1, 2]
    """
    dims = len(caps)
    cols = [tuple(row[i] for row in weights) for i in range(len(sizes))]
    fits = [all(w[d] <= caps[d] for d in range(dims)) for w in cols]
    table = _dp_table(sizes, cols, fits, caps)
    # Forward: take a job whenever an optimal completion still exists
    # (this is what makes the choice lexicographically first).
    c = list(caps)
    chosen = []
    for i, w in enumerate(cols):
        if not fits[i]:
            continue
        if all(c[d] >= w[d] for d in range(dims)):
            rest = [c[d] - w[d] for d in range(dims)]
            if table[i + 1][tuple(rest)] + int(sizes[i]) == table[i][tuple(c)]:
                chosen.append(i)
                c = rest
    return chosen


def _dp_table(sizes: Sequence[int], cols: list[tuple[int, ...]], fits: list[bool],
              caps: list[int]) -> np.ndarray:
    """The DP table, filled backward: ``table[i][c]`` is the most processors
    jobs ``i..`` can use within capacities ``c`` (job ``i`` takes ``cols[i]``
    of them; ``fits[i]``: it fits in ``caps`` at all)."""
    dims = len(caps)
    table = np.zeros((len(sizes) + 1,) + tuple(c + 1 for c in caps), dtype=np.int64)
    for i in range(len(sizes) - 1, -1, -1):
        nxt, cur = table[i + 1], table[i]
        cur[...] = nxt
        if fits[i]:
            w = cols[i]
            dst = tuple(slice(w[d], None) for d in range(dims))
            src = tuple(slice(0, caps[d] + 1 - w[d]) for d in range(dims))
            np.maximum(cur[dst], nxt[src] + int(sizes[i]), out=cur[dst])
    return table


def basic_dp(sizes: Sequence[int], free: int, unit: int = 1) -> list[int]:
    """Basic_DP: the subset using the most of ``free`` processors now.

    Examples
    --------
    >>> basic_dp([7, 4, 6], 10)
    [1, 2]
    """
    return los_dp(sizes, free, (), unit)


def reservation_dp(sizes: Sequence[int], frenums: Sequence[int], free: int, frec: int,
                   unit: int = 1) -> list[int]:
    """Reservation_DP: as Basic_DP, but jobs still running at the freeze end
    time (``frenums[i] > 0``) must also fit in the ``frec`` extra processors.

    Examples
    --------
    >>> reservation_dp([4, 2], [4, 0], 6, 2)   # the 4 would delay the reserved head
    [1]
    """
    return los_dp(sizes, free, [(frenums, frec)], unit)


class Freezes:
    """Free processors now and the freeze points a job started now must respect.

    A freeze point ``[fret, frec]``: every job started now whose estimated
    end is after ``fret`` holds its processors at ``fret``, and together they
    may not exceed ``frec``. This is the batch version: the only freeze point
    is the head's reservation (EASY's shadow time and extra processors);
    :class:`~simlib.policies.dedicated.DedicatedPlan` adds those of dedicated
    jobs. Checking a job against every point is then exact.
    """

    def __init__(self, sim, now: float) -> None:
        self.sim = sim
        self.now = now
        self.free = sim.free
        self.points: list[list] = []

    def admits(self, job) -> bool:
        """Can ``job`` start now without breaking the free count or a freeze point?"""
        p = job.procs
        if p > self.free:
            return False
        end = self.now + job.requested_time
        for fret, frec in self.points:
            if end > fret and p > frec:
                return False
        return True

    def commit(self, job) -> None:
        """Account for ``job``, just started."""
        p = job.procs
        self.free -= p
        end = self.now + job.requested_time
        for point in self.points:
            if end > point[0]:
                point[1] -= p

    def reserve(self, job) -> float:
        """Reserve ``job`` (which does not fit now); return its start time."""
        fret, frec = shadow_time(self.sim, job.procs)
        self.points = [[fret, frec]]
        return fret


class LOS(QueuePolicy):
    """Lookahead Optimizing Scheduler with reservations for the head job.

    Parameters
    ----------
    lookahead : int or "all"
        Waiting jobs (from the head) the DP looks at (default 50; ``"all"``:
        the whole queue).
    unit : int
        Allocation unit of the DP (default 1; see the module notes).
    max_freezes : int
        Freeze points modelled in the DP (default 2); further ones, which
        only dedicated jobs create, are enforced job by job in queue order.
    tie : {"earliest", "latest"}
        Which of several optimal subsets the DP starts (module notes;
        default ``earliest``).

    ``stats`` counts head starts, Basic_DP and Reservation_DP calls;
    ``reservation`` is ``(head job, reserved start)`` after a pass that
    reserved the head, else None.
    """

    name = "los"
    paper = "kumar: Kumar, Shae & Jamjoom; LOS of Shmueli & Feitelson 2005"
    description = "Lookahead Optimizing Scheduler: DP packing of the first jobs, head reserved"
    defaults = {"lookahead": 50, "unit": 1, "max_freezes": 2, "tie": "earliest"}

    @classmethod
    def check_param_types(cls, params):
        # "all" is the one non-integer lookahead.
        if params.get("lookahead") == "all":
            params = {k: v for k, v in params.items() if k != "lookahead"}
        super().check_param_types(params)

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        for key, low in (("lookahead", 1), ("unit", 1), ("max_freezes", 0)):
            if key == "lookahead" and p[key] == "all":
                continue
            if not isinstance(p[key], int) or p[key] < low:
                raise ConfigError(f"{self.name}: {key} must be an integer >= {low}, not {p[key]!r}")
        if p["tie"] not in ("earliest", "latest"):
            raise ConfigError(f"{self.name}: tie must be 'earliest' or 'latest', not {p['tie']!r}")
        self.tie = p["tie"]
        # None slices to the end of the queue.
        self.lookahead = None if p["lookahead"] == "all" else p["lookahead"]
        self.unit = p["unit"]
        self.max_freezes = p["max_freezes"]
        self.stats = {"head_start": 0, "basic_dp": 0, "reservation_dp": 0}
        self.reservation = None

    def attach(self, sim):
        super().attach(sim)
        # The DP kernel, looked up once per run: a lookup reads the
        # environment, ~3 % of a LOS run when done at every DP.
        self._dp_kernel = kernels.load(COMPILED_KERNELS[0])

    # -------------------------------------------------- hooks for variants
    def constraints(self, now: float) -> Freezes:
        """What jobs started now must respect (batch: the head's shadow)."""
        return Freezes(self.sim, now)

    def head_must_start(self, head) -> bool:
        """LOS starts a head that fits at once (Delayed-LOS may skip it)."""
        return True

    def head_skipped(self, head) -> None:
        """The head fitted but the Basic_DP did not choose it."""

    def head_reserved(self, head, chosen) -> None:
        """The head did not fit; it was reserved and ``chosen`` started."""

    # ------------------------------------------------------------ algorithm
    def schedule(self, now, full):
        cons = self.constraints(now)
        q = self.queue
        sim = self.sim
        look = self.lookahead
        stats = self.stats
        k = 0
        started = False
        chosen = ()
        self.reservation = None
        while k < len(q) and cons.free > 0:
            head = q[k]
            if cons.admits(head):
                if self.head_must_start(head):
                    sim.start(head)
                    cons.commit(head)
                    stats["head_start"] += 1
                    k += 1
                    started = True
                    continue
                stats["basic_dp"] += 1
                end = None if look is None else k + look
                chosen = self.start_chosen(self.select(q[k:end], cons), cons)
                if not chosen or chosen[0] is not head:
                    self.head_skipped(head)
            else:
                self.reservation = (head, cons.reserve(head))
                stats["reservation_dp"] += 1
                end = None if look is None else k + look
                chosen = self.start_chosen(self.select(q[k + 1:end], cons), cons)
                self.head_reserved(head, chosen)
            started = started or bool(chosen)
            break
        if started:
            # The queue holds waiting jobs only: the started ones are the k
            # heads and the DP's chosen, cheaper to remove than a pass of
            # prune() over the whole queue (same order left).
            del q[:k]
            self.drop(chosen)

    def select(self, window, cons: Freezes) -> list:
        """The DP's choice among ``window`` (jobs in queue order).

        Jobs that cannot start now on their own are filtered out first (a
        cheap test), and the DP runs only when some job is left — then it
        starts at least one job, so it never reruns on an unchanged state.
        """
        now = cons.now
        free = cons.free
        # `procs <= free` first: admits() refuses the others anyway, and most
        # of a window is refused by size, without a method call.
        cands = [j for j in window if j.state == WAITING and j.procs <= free and cons.admits(j)]
        if not cands:
            return []
        # Only freeze points that can bind go into the DP, earliest first.
        points = []
        for fret, frec in cons.points:
            frenums = [j.procs if now + j.requested_time > fret else 0 for j in cands]
            if sum(frenums) > frec:
                points.append((frenums, frec))
        points = points[:self.max_freezes]
        unit = self.unit
        while points and ((free // unit + 1) * math.prod(frec // unit + 1 for _, frec in points)
                          > min(MAX_DP_CELLS, MAX_TABLE_CELLS // (len(cands) + 1))):
            points.pop()
        picks = los_dp([j.procs for j in cands], free, points, unit, self.tie, self._dp_kernel)
        return [cands[i] for i in picks]

    def start_chosen(self, chosen, cons: Freezes) -> list:
        """Start the chosen jobs in queue order, re-checking every freeze point
        (exact when the DP modelled them all; otherwise drops later jobs)."""
        started = []
        sim = self.sim
        for job in chosen:
            if cons.admits(job):
                sim.start(job)
                cons.commit(job)
                started.append(job)
        return started
