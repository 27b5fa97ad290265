"""Paper Z's runs: workload tables through Scojo-PECT on the two machines."""
import numpy as np
import pytest

from simlib.studies.zeng.runs import engine_jobs, machine, run
from simlib.studies.zeng.slowdowns import self_slowdown_at
from simlib.studies.zeng.workloads import generate


@pytest.fixture(scope="module")
def workload():
    return generate(10.33, 300, 1)


def test_engine_jobs_carry_the_adjusted_or_the_original_jobs(workload):
    multi, single = engine_jobs(workload), engine_jobs(workload, "single_core")
    assert [j.procs for j in multi] == workload["size"].tolist()
    assert [j.procs for j in single] == workload["orig_size"].tolist()
    assert {j.features["ppn"] for j in single} == {1}
    assert machine("multicore", 8).sockets_per_node == 2


def test_a_run_stretches_each_job_by_its_self_slowdown(workload):
    res = run(workload, nodes=128, window=(0.0, 86400.0), debug=True)
    j = res.jobs
    slow = self_slowdown_at(workload["ppn"].to_numpy(), workload["sl_scr"].to_numpy(),
                            workload["sl_sno"].to_numpy())
    np.testing.assert_allclose(j["executed"], workload["runtime"] * slow)
    assert (j["starting_time"] >= j["submission_time"]).all()
    assert (j["v_started"] <= j["v_reserved"] + 1e-6).all()
    assert set(j["type"]) <= {"short", "medium", "long"}
    assert res.usage["busy_cpus"].max() <= 512 and res.usage["busy_nodes"].max() <= 128
    # The day's running periods and the slices are recorded.
    assert len(res.segments) > 0 and set(res.slices["vm"]) <= {"short", "medium", "long"}


def test_runs_are_deterministic(workload):
    a, b = run(workload), run(workload)
    assert a.jobs.equals(b.jobs) and a.usage.equals(b.usage)


def test_the_single_core_machine_runs_the_unadjusted_jobs_unslowed(workload):
    res = run(workload, kind="single_core")
    np.testing.assert_allclose(res.jobs["executed"], workload["runtime"])
    assert res.usage["busy_cpus"].max() <= 128


def test_the_machines_have_four_cores_or_one_per_node():
    assert (machine("multicore", 128).cpus, machine("single_core", 128).cpus) == (512, 128)
