"""A simulation that also records which CPUs every job held over time (for Gantt charts).

:func:`simulate_with_allocations` runs a workload as :func:`simlib.runner.simulate`
does, with an engine observer (:class:`AllocationLog`, see
:meth:`simlib.engine.simulator.Simulator.observe`) noting every job's core
set after each start, resize and end; a job's allocation at a time is the
one it has after the last change at that time (within one scheduling round
no simulated time passes).
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .engine.simulator import Simulator
from .platform import Platform
from .policies import make_policy
from .runner import SimResult, batsim_table, jobs_from_workload, timeline_frame

__all__ = ["AllocationLog", "simulate_with_allocations"]


class AllocationLog:
    """Engine observer: every job's core set after each change (see Simulator.observe)."""

    def __init__(self) -> None:
        #: ``idx -> [(time, cpu ids or None when ended), ...]`` in event order.
        self.changes: dict[int, list[tuple[float, tuple[int, ...] | None]]] = {}

    def job_started(self, job, now):
        self.changes.setdefault(job.idx, []).append((now, tuple(sorted(job.alloc))))

    job_resized = job_started

    def job_ended(self, job, now):
        self.changes[job.idx].append((now, None))

    def segments(self) -> list[tuple[int, float, float, tuple[int, ...]]]:
        """``(idx, start, end, cpu ids)`` of maximal intervals on one core set."""
        rows = []
        for idx, changes in self.changes.items():
            # The state at a time is the one after its last change: a job
            # shrunk and expanded back in one round never left its cores.
            last: dict[float, tuple[int, ...] | None] = {}
            for now, ids in changes:
                last[now] = ids
            t0, held = None, None
            for now, ids in last.items():
                if ids == held:
                    continue
                if held is not None:
                    rows.append((idx, t0, now, held))
                t0, held = now, ids
            if held is not None:  # pragma: no cover - every job ends at an event
                raise RuntimeError(f"job index {idx} still running after the simulation")
        return rows


def simulate_with_allocations(workload, policy: str, *, cpus: int,
                              policy_params: Mapping | None = None, overrun: str = "kill",
                              workload_name: str = "") -> tuple[SimResult, pd.DataFrame]:
    """Simulate and record every job's CPU set over time.

    Returns the :class:`~simlib.runner.SimResult` and one row per
    *segment* (a maximal interval during which a job holds the same CPUs):
    ``job_id, procs, start, end, cpus, mpl, cpu_ids`` with ``mpl =
    procs / cpus`` (2 while shrunk to half its CPUs) and ``cpu_ids`` a
    tuple of core ids.

    Examples
    --------
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> rows = [[1, 0, -1, 2, 4, 2, -1, 4, 2, -1, 1, 1, 1, 1, 1, 1, -1, -1],
    ...         [2, 1, -1, 1, 2, 1, -1, 2, 1, -1, 1, 1, 1, 1, 1, 1, -1, -1]]
    >>> w = Workload(pd.DataFrame(rows, columns=SWF_FIELDS))
    >>> res, seg = simulate_with_allocations(w, "fcfs_malleable", cpus=4,
    ...                                      policy_params={"ov_max": 0.0})
    >>> [(r.job_id, r.start, r.end, r.cpus) for r in seg.itertuples()]
    [(1, 0.0, 1.0, 4), (1, 1.0, 2.0, 2), (1, 2.0, 2.5, 4), (2, 1.0, 2.0, 2)]
    """
    pol = make_policy(policy, **dict(policy_params or {}))
    platform = Platform.homogeneous(cpus)
    jobs = jobs_from_workload(workload, cpus=platform.cpus)
    sim = Simulator(platform, jobs, pol, overrun=overrun, record_timeline=True)
    log = sim.observe(AllocationLog())
    sim.run()
    rows = log.segments()
    seg = pd.DataFrame([{
        "job_id": jobs[idx].job_id, "procs": jobs[idx].procs, "start": t0, "end": t1,
        "cpus": len(ids), "mpl": jobs[idx].procs / len(ids), "cpu_ids": ids,
    } for idx, t0, t1, ids in rows if t1 > t0],
        columns=["job_id", "procs", "start", "end", "cpus", "mpl", "cpu_ids"])
    seg = seg.sort_values(["job_id", "start"], kind="mergesort").reset_index(drop=True)
    timeline = timeline_frame(sim.timeline)
    res = SimResult(batsim_table(jobs, workload_name), timeline, platform.cpus, pol.name, jobs)
    sim.close()  # the run is freed with its result, not at the next collection
    return res, seg
