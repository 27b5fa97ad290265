"""Paper D's workloads (simlib.studies.dutot.workloads): the eligible pool of the
cleaned log and one seed's picks, on small synthetic SWF logs."""
import gzip
import json
import logging

import numpy as np
import pandas as pd
import pytest

from simlib.studies.base import Files, StepContext
from simlib.studies.dutot.workloads import (eligible_jobs, eligible_step, generator, make_workload,
                                            pick_positions, summarize, workload_step)
from simlib.workload.swf import SWF_FIELDS, Workload, read_swf

BOUNDS = {"max_size": 16, "runtime_min": 3600, "runtime_max": 14400}


def job(i, run, size, request=86400, allocated=None, submit=0):
    """One SWF row: ``size`` requested processors (-1: missing), ``allocated`` (default: size)."""
    alloc = size if allocated is None else allocated
    return [i, submit, 5, run, alloc, -1, -1, size, request, -1, 1, 1, 1, -1, 1, 1, 3, 7]


def workload(rows):
    return Workload(pd.DataFrame(rows, columns=SWF_FIELDS))


def ctx(tmp_path, inputs, outputs, params, wildcards=None):
    return StepContext(Files(inputs), Files({k: str(tmp_path / v) for k, v in outputs.items()}),
                       params, dict(wildcards or {}), logging.getLogger("test"), {})


def test_the_bounds_are_inclusive_and_size_is_at_most_16():
    rows = [job(1, 3600, 16), job(2, 14400, 1), job(3, 3599, 4), job(4, 14401, 4),
            job(5, 7200, 17), job(6, 7200, 8)]
    pool, counts = eligible_jobs(workload(rows), **BOUNDS)
    assert pool.jobs["job_id"].tolist() == [1, 2, 6]
    assert counts == {"jobs_in": 6, "too_wide": 1, "too_short": 1, "too_long": 1, "eligible": 3}
    assert list(pool.jobs.index) == [0, 1, 2]


def pool_of(n, seed=0):
    rng = np.random.default_rng(seed)
    rows = [job(i + 1, int(rng.integers(3600, 14401)), int(rng.integers(1, 17)),
                request=int(rng.integers(3600, 10 ** 8)), submit=10 * i) for i in range(n)]
    return workload(rows)


def test_picks_are_deterministic_per_seed_and_differ_across_seeds():
    a = pick_positions(500, 300, base_seed=2015, seed=3)
    assert (a == pick_positions(500, 300, base_seed=2015, seed=3)).all()
    assert len(set(a.tolist())) == 300 and a.min() >= 0 and a.max() < 500
    assert (np.diff(a) > 0).all()  # trace order
    others = [pick_positions(500, 300, base_seed=2015, seed=s) for s in range(4)]
    assert len({tuple(o) for o in others}) == 4
    assert not (pick_positions(500, 300, base_seed=2016, seed=3) == a).all()


def test_picks_follow_the_stated_generator():
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([7, 2])))
    expected = rng.choice(50, size=10, replace=False)
    assert (pick_positions(50, 10, base_seed=7, seed=2, order="pick") == expected).all()
    assert (pick_positions(50, 10, base_seed=7, seed=2) == np.sort(expected)).all()
    assert generator(7, 2).bit_generator.state == np.random.Generator(
        np.random.PCG64(np.random.SeedSequence([7, 2]))).bit_generator.state


def test_too_small_a_pool_and_an_unknown_order_are_errors():
    with pytest.raises(ValueError, match="holds 5 eligible jobs, fewer than the 6 asked"):
        pick_positions(5, 6, base_seed=0, seed=0)
    with pytest.raises(ValueError, match="order must be"):
        pick_positions(5, 2, base_seed=0, seed=0, order="random")


def test_workload_has_releases_at_0_and_walltime_max_of_request_and_f_w_runtime():
    rows = [job(1, 3600, 4, request=5_000_000), job(2, 7200, 8, request=7200),
            job(3, 3601, 2, request=100)]
    wl = make_workload(workload(rows), jobs=3, base_seed=0, seed=0, order="trace", f_w=1000.0)
    j = wl.jobs.set_index("job_id")
    assert j["requested_time"].to_dict() == {1: 5_000_000, 2: 7_200_000, 3: 3_601_000}
    assert (j["submit_time"] == 0).all() and (j["wait_time"] == -1).all()
    assert (j["preceding_job"] == -1).all() and (j["think_time"] == -1).all()
    # The runtimes and sizes are the log's.
    assert j["run_time"].to_dict() == {1: 3600, 2: 7200, 3: 3601}
    assert j["requested_procs"].to_dict() == {1: 4, 2: 8, 3: 2}
    # A fractional F_w rounds the walltime up to a whole second.
    wl = make_workload(workload(rows), jobs=3, base_seed=0, seed=0, order="trace", f_w=1.0001)
    assert wl.jobs.set_index("job_id")["requested_time"].to_dict()[3] == 3602


def test_workload_keeps_trace_order_or_pick_order():
    pool = pool_of(40)
    trace = make_workload(pool, jobs=10, base_seed=1, seed=0, order="trace", f_w=1000)
    picked = make_workload(pool, jobs=10, base_seed=1, seed=0, order="pick", f_w=1000)
    assert sorted(picked.jobs["job_id"]) == trace.jobs["job_id"].tolist()
    assert picked.jobs["job_id"].tolist() != trace.jobs["job_id"].tolist()


def test_summary():
    wl = make_workload(pool_of(20), jobs=5, base_seed=1, seed=0, order="trace", f_w=1000)
    s = summarize(wl)
    assert s["jobs"] == 5 and sum(s["sizes"].values()) == 5
    assert s["job_ids"] == wl.jobs["job_id"].tolist()
    assert s["work_node_seconds"] == float((wl.jobs["requested_procs"] * wl.jobs["run_time"]).sum())


def write_log(path, rows):
    lines = ["; MaxProcs: 93312"] + [" ".join(map(str, r)) for r in rows]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    return path


def test_eligible_step_cleans_the_whole_log_and_falls_back_to_allocated_sizes(tmp_path):
    rows = [job(1, 3600, 16), job(2, 7200, -1, allocated=8), job(3, 7200, -1, allocated=32),
            job(4, 0, 4), job(5, 100, 4), job(6, 20000, 4), job(7, 9000, 64)]
    raw = write_log(tmp_path / "raw.swf.gz", rows)
    c = ctx(tmp_path, {"raw": str(raw)},
            {"swf": "pool.swf.gz", "info": "pool.json", "cleaning_log": "clean.txt"},
            {"trace": "CEA-Curie", "machine_procs": 93312, "cleaning": {}, "unsorted": "sort",
             **BOUNDS})
    eligible_step(c)
    pool = read_swf(c.output.swf)
    # Job 2 has no requested size: its allocated 8 processors stand for it.
    assert pool.jobs["job_id"].tolist() == [1, 2]
    assert pool.jobs["requested_procs"].tolist() == [16, 8]
    info = json.loads((tmp_path / "pool.json").read_text())
    assert info["size_from_allocated"] == 2
    assert info["cleaning_counts"]["runtime_zero"] == 1
    assert info["filter_counts"] == {"jobs_in": 6, "too_wide": 2, "too_short": 1, "too_long": 1,
                                     "eligible": 2}
    assert info["pool_sizes"] == {"8": 1, "16": 1}
    assert "runtime_zero" in (tmp_path / "clean.txt").read_text()


def test_workload_step_writes_the_seed_and_its_facts(tmp_path):
    pool = pool_of(30)
    from simlib.workload.swf import write_swf
    write_swf(pool, tmp_path / "pool.swf.gz")
    c = ctx(tmp_path, {"pool": str(tmp_path / "pool.swf.gz")},
            {"swf": "seed4.swf", "info": "seed4.json"},
            {"jobs": 12, "base_seed": 2015, "order": "trace", "f_w": 1000.0}, {"seed": "4"})
    workload_step(c)
    wl = read_swf(c.output.swf)
    expected = make_workload(pool, jobs=12, base_seed=2015, seed=4, order="trace", f_w=1000.0)
    assert wl.jobs["job_id"].tolist() == expected.jobs["job_id"].tolist()
    info = json.loads((tmp_path / "seed4.json").read_text())
    assert info["seed"] == 4 and info["jobs"] == 12 and info["pool_jobs"] == 30
    assert info["generator"] == "Generator(PCG64(SeedSequence([2015, 4])))"
    from_request = (pool.jobs.set_index("job_id").loc[wl.jobs["job_id"], "requested_time"]
                    > 1000 * wl.jobs["run_time"].to_numpy())
    assert info["walltime_from_request"] == int(from_request.sum())
