"""First-come first-served: start jobs in submission order while they fit."""
from __future__ import annotations

from collections import deque

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
    """

    name = "fcfs"
    paper = "baseline: first-come first-served"
    description = "strict FCFS: a job that does not fit blocks every job behind it"

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.queue = deque()

    def keeps_core_state(self) -> bool:
        return False  # counts of free processors only

    def schedule(self, now, full):
        q, sim = self.queue, self.sim
        free = sim.free
        while q and q[0].procs <= free:
            job = q.popleft()
            sim.start(job)  # takes job.procs cores
            free -= job.procs
