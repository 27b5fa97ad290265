"""Paper D's simulation chunks (simlib.studies.dutot.runs)."""
import gzip
import json
import logging

import pandas as pd
import pytest

from simlib.studies.base import Files, StepContext
from simlib.studies.dutot.platforms import describe
from simlib.studies.dutot.runs import METRIC_INFO, METRICS, run_metrics, simulate_chunk
from simlib.workload.swf import SWF_FIELDS, Workload, write_swf


def test_run_metrics_from_a_job_table():
    jobs = pd.DataFrame({"starting_time": [0.0, 0.0, 10.0], "finish_time": [10.0, 4.0, 30.0],
                         "execution_time": [10.0, 4.0, 20.0], "waiting_time": [0.0, 0.0, 10.0],
                         "final_state": ["COMPLETED_SUCCESSFULLY"] * 2 + ["COMPLETED_WALLTIME_REACHED"]})
    assert run_metrics(jobs) == {"makespan": 30.0, "mean_execution": pytest.approx(34 / 3),
                                 "mean_wait": pytest.approx(10 / 3), "jobs_killed": 1, "jobs": 3}
    assert set(METRICS) == set(METRIC_INFO) and METRIC_INFO["makespan"][0] == "s"


@pytest.mark.simgrid
def test_a_chunk_runs_every_variant_and_f_comm(tmp_path):
    from simlib.backends.simgrid import NetworkPlatform
    net = NetworkPlatform.homogeneous(clusters=2, nodes=2, speed=1e6, bw=1e6, lat=0.0,
                                      switch_bw=1e9, switch_lat=0.0, backbone_bw=1e9,
                                      backbone_lat=0.0, name="hom-test")
    rows = [[i + 1, 0, -1, 10 * (i + 1), size, -1, -1, size, 100000, -1, 1] + [-1] * 7
            for i, size in enumerate([2, 1, 2, 1])]
    write_swf(Workload(pd.DataFrame(rows, columns=SWF_FIELDS)), tmp_path / "seed0.swf")
    variants = {v: {"allocation": v, "recompute": "rebuild"} for v in ("basic", "local")}
    ctx = StepContext(Files(swf=str(tmp_path / "seed0.swf")),
                      Files(summary=str(tmp_path / "summary.json"), jobs=str(tmp_path / "jobs.csv.gz")),
                      {"platform": describe(net), "coords": {"model": "test"}, "policy": "conservative",
                       "variants": variants, "f_comm": [0.0, 1e6], "f_comp": 1e6,
                       "self_communication": True},
                      {"scale": "smoke", "platform": "hom-test", "seed": "0"},
                      logging.getLogger("test"), {})
    simulate_chunk(ctx)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [(r["variant"], r["f_comm"]) for r in summary["runs"]] == [
        ("basic", 0.0), ("basic", 1e6), ("local", 0.0), ("local", 1e6)]
    assert summary["coords"] == {"model": "test"} and summary["seed"] == 0
    no_comm = summary["runs"][0]["metrics"]
    # Without communication a job lasts its runtime x F_comp / speed = its runtime.
    assert no_comm["mean_execution"] == pytest.approx(25.0) and no_comm["jobs_killed"] == 0
    # A 2-host job sends 2 x 1e6 B per second of runtime through its 1e6 B/s
    # private links (itself included): twice as long; a 1-host job's 1e6 B to
    # itself take as long as its computation. Runtimes 10, 20, 30, 40 s:
    # (20 + 20 + 60 + 40) / 4.
    assert summary["runs"][1]["metrics"]["mean_execution"] == pytest.approx(35.0, rel=1e-3)
    with gzip.open(tmp_path / "jobs.csv.gz", "rt") as fh:
        jobs = pd.read_csv(fh)
    assert list(jobs.columns[:2]) == ["variant", "f_comm"] and len(jobs) == 16
