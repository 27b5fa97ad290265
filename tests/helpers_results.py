"""Hand-built simulator outputs for the results-side tests (metrics, cube, figures).

The schedules are the toy example of paper U (Utrera et al., Fig. 2): a
10-CPU machine, six jobs all submitted at t = 0 with execution times
2, 1, 1, 2, 2, 1 and (reconstructed from the printed metric values) sizes
8, 4, 2, 8, 4, 8. The paper prints, for FCFS / EASY / FCFS-malleable,
average response 4.66 / 4.33 / 3.66, average slowdown 3.5 / 3.16 / 2.5 and
fragmentation 30 % / 30 % / 0 %.
"""
from __future__ import annotations

import pandas as pd

SIZES = {"J1": 8, "J2": 4, "J3": 2, "J4": 8, "J5": 4, "J6": 8}
EXEC_EXPANDED = {"J1": 2.0, "J2": 1.0, "J3": 1.0, "J4": 2.0, "J5": 2.0, "J6": 1.0}
CPUS = 10


def make_jobs(rows):
    """Batsim jobs.csv-shaped table from ``(job_id, size, submit, start, finish)`` rows."""
    out = []
    for job_id, size, submit, start, finish in rows:
        execution = finish - start
        wait = start - submit
        out.append({
            "job_id": str(job_id),
            "workload_name": "toy",
            "profile": "delay",
            "submission_time": float(submit),
            "requested_number_of_resources": int(size),
            "requested_time": float(execution),
            "success": 1,
            "final_state": "COMPLETED_SUCCESSFULLY",
            "starting_time": float(start),
            "execution_time": float(execution),
            "finish_time": float(finish),
            "waiting_time": float(wait),
            "turnaround_time": float(finish - submit),
            "stretch": float((finish - submit) / execution),
            "allocated_resources": f"0-{size - 1}",
            "consumed_energy": -1.0,
            "metadata": "",
        })
    return pd.DataFrame(out)


def make_timeline(rows):
    """Timeline table from ``(time, busy_cpus, queued_jobs, processes)`` rows."""
    return pd.DataFrame(rows, columns=["time", "busy_cpus", "queued_jobs", "processes"]).astype(
        {"time": float, "busy_cpus": int, "queued_jobs": int, "processes": int}
    )


def _jobs(schedule):
    return make_jobs([(j, SIZES[j], 0.0, s, f) for j, s, f in schedule])


def fcfs_jobs():
    """Paper U Fig. 2(a): FCFS."""
    return _jobs([("J1", 0, 2), ("J2", 2, 3), ("J3", 2, 3), ("J4", 3, 5), ("J5", 5, 7), ("J6", 7, 8)])


def fcfs_timeline():
    return make_timeline([(0, 8, 5, 8), (2, 6, 3, 6), (3, 8, 2, 8), (5, 4, 1, 4), (7, 8, 0, 8), (8, 0, 0, 0)])


def easy_jobs():
    """Paper U Fig. 2(b): EASY backfills J3 next to J1."""
    return _jobs([("J1", 0, 2), ("J3", 0, 1), ("J2", 2, 3), ("J4", 3, 5), ("J5", 5, 7), ("J6", 7, 8)])


def easy_timeline():
    return make_timeline([(0, 10, 4, 10), (1, 8, 4, 8), (2, 4, 3, 4), (3, 8, 2, 8), (5, 4, 1, 4),
                          (7, 8, 0, 8), (8, 0, 0, 0)])


def malleable_jobs():
    """Paper U Fig. 2(c): J1 shrunk to 4 CPUs, J4/J5 start shrunk at t = 1.

    Execution times include running shrunk (J1, J4, J5 take twice their
    expanded time); the ``exec_expanded`` column holds the expanded time.
    """
    jobs = _jobs([("J1", 0, 4), ("J2", 0, 1), ("J3", 0, 1), ("J4", 1, 5), ("J5", 1, 5), ("J6", 5, 6)])
    jobs["exec_expanded"] = jobs["job_id"].map(EXEC_EXPANDED)
    return jobs


def malleable_timeline():
    # t=0: J1 on 4 CPUs (8 procs) + J2 + J3; t=1: J1 4 + J4 4 + J5 2 CPUs;
    # t=4: J1 done, J4 takes the freed CPUs (illustrative: the toy's finish
    # times are kept as drawn); t=5: J6 alone.
    return make_timeline([(0, 10, 3, 14), (1, 10, 1, 20), (4, 10, 1, 12), (5, 8, 0, 8), (6, 0, 0, 0)])
