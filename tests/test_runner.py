import pandas as pd
import pytest

from simlib.errors import ConfigError
from simlib.runner import BATSIM_COLUMNS, intervals, simulate
from simlib.workload.swf import SWF_FIELDS, Workload


def _workload(rows):
    """rows: (job_id, submit, runtime, procs, requested_time, avg_cpu_time)."""
    full = []
    for jid, sub, run, procs, req, cpu in rows:
        full.append([jid, sub, -1, run, procs, cpu, -1, procs, req, -1, 1, 1, 1, 1, 1, 1, -1, -1])
    return Workload(pd.DataFrame(full, columns=SWF_FIELDS), path="t.swf")


def test_batsim_columns_and_values():
    wl = _workload([(7, 0, 10, 4, 20, -1), (8, 5, 30, 2, 20, -1)])
    res = simulate(wl, "easy", cpus=4, workload_name="w")
    df = res.jobs
    assert tuple(df.columns) == BATSIM_COLUMNS
    assert df["job_id"].tolist() == ["7", "8"]
    assert df["starting_time"].tolist() == [0.0, 10.0]
    # Job 8 runs past its 20 s request: killed at its walltime.
    assert df["finish_time"].tolist() == [10.0, 30.0]
    assert df["final_state"].tolist() == ["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"]
    assert df["success"].tolist() == [1, 0]
    assert df["waiting_time"].tolist() == [0.0, 5.0]
    assert df["stretch"].tolist() == [1.0, 25.0 / 20.0]
    assert df["allocated_resources"].tolist() == ["0-3", "0-1"]
    assert res.platform_cpus == 4 and res.policy == "easy"
    assert list(res.timeline.columns) == ["time", "busy_cpus", "queued_jobs", "processes"]


def test_missing_request_falls_back_to_runtime_and_submit_order_is_used():
    wl = _workload([(2, 5, 10, 1, -1, -1), (1, 0, 10, 1, -1, -1)])
    df = simulate(wl, "fcfs", cpus=1).jobs
    assert df["job_id"].tolist() == ["1", "2"]
    assert df["requested_time"].tolist() == [10.0, 10.0]


def test_unusable_job_names_the_source():
    wl = _workload([(3, 0, 10, -1, 10, -1)])
    wl.jobs["allocated_procs"] = -1
    with pytest.raises(ConfigError, match=r"t.swf: job 3 has no usable size"):
        simulate(wl, "fcfs", cpus=1)


def test_intervals():
    assert intervals([5, 0, 1, 2, 7, 8]) == "0-2 5 7-8"
    assert intervals([]) == ""
