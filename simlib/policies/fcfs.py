"""First-come first-served: start jobs in submission order while they fit."""
from __future__ import annotations

from collections import deque

from ..engine.allocation import AllocationStrategy, allocation_strategy, check_placeable
from .base import QueuePolicy


class FCFS(QueuePolicy):
    """Strict FCFS; a job that does not fit blocks every job behind it.

    The queue is a :class:`collections.deque`: jobs only ever leave from its
    head, and a saturated run's queue holds most of the workload (millions
    of jobs), where dropping a list's head each round would copy the rest.

    Examples
    --------
    >>> from simlib.engine.job import Job
    >>> from simlib.engine.simulator import Simulator
    >>> from simlib.platform import Platform
    >>> jobs = [Job(0, 1, 0.0, 2, 5.0, 5.0), Job(1, 2, 0.0, 2, 5.0, 5.0),
    ...         Job(2, 3, 1.0, 1, 5.0, 5.0)]
    >>> Simulator(Platform.homogeneous(3), jobs, FCFS()).run()
    >>> [j.start for j in jobs]   # job 3 would fit at 1 but waits behind job 2
    [0.0, 5.0, 5.0]

    ``allocation`` (default ``count``: any free cores, the lowest ids) may
    name one of paper D's rules (:data:`simlib.engine.allocation.RULES`):
    the head job then starts only where the rule places it, and a strict
    rule that finds no place (``contiguous``: no block of consecutive free
    ids) blocks the queue as a lack of cores does. ``contiguous`` is the
    rule of pybatsim's ``schedFcfs`` (the lowest block of consecutive free
    machines), which the cross-check with Batsim uses.

    >>> jobs = [Job(0, 1, 0.0, 1, 5.0, 5.0), Job(1, 2, 0.0, 1, 9.0, 9.0),
    ...         Job(2, 3, 0.0, 1, 2.0, 2.0), Job(3, 4, 1.0, 2, 5.0, 5.0)]
    >>> Simulator(Platform.homogeneous(3), jobs, FCFS(allocation="contiguous")).run()
    >>> [j.start for j in jobs]   # from 5, ids 0 and 2 are free but not consecutive
    [0.0, 0.0, 0.0, 9.0]
    """

    name = "fcfs"
    paper = "baseline: first-come first-served"
    description = "strict FCFS: a job that does not fit blocks every job behind it"
    defaults = {"allocation": "count"}

    def __init__(self, **params) -> None:
        super().__init__(**params)
        #: The allocation strategy, None for counts (any free cores).
        self.strategy: AllocationStrategy | None = allocation_strategy(
            self.name, self.params["allocation"])
        self.queue = deque()

    def attach(self, sim) -> None:
        super().attach(sim)
        if self.strategy is not None:
            check_placeable(self.name, self.strategy, sim.platform, sim.jobs)

    def keeps_core_state(self) -> bool:
        # Counts of free processors only, unless a rule places jobs on core ids.
        return self.strategy is not None

    def schedule(self, now, full):
        q, sim = self.queue, self.sim
        if self.strategy is not None:
            self._schedule_placed(q, sim)
            return
        free = sim.free
        while q and q[0].procs <= free:
            job = q.popleft()
            sim.start(job)  # takes job.procs cores
            free -= job.procs

    def _schedule_placed(self, q, sim) -> None:
        """Start head jobs while the allocation rule places them."""
        while q and q[0].procs <= sim.free:
            alloc = self.strategy.select(sim.platform, sim.ledger.free_mask(), q[0].procs)
            if alloc is None:
                break
            sim.start(q.popleft(), ids=alloc)
