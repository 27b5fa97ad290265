"""Paper D's workloads (simlib.studies.dutot.workloads): the eligible pool of the
cleaned log and one seed's picks, on small synthetic SWF logs."""
import gzip
import json
import logging

import numpy as np
import pandas as pd
import pytest

from simlib.studies.base import Files, StepContext
from simlib.studies.dutot.workloads import (POOL_RULES, compare_pool_rules, eligible_jobs,
                                            eligible_step, generator, make_workload,
                                            pick_positions, pool_by_rule, summarize,
                                            workload_step)
from simlib.workload.prepare import CleaningPolicy
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
                                     "eligible": 2, "runtime_above_request": 0}
    assert info["pool_sizes"] == {"8": 1, "16": 1}
    assert "runtime_zero" in (tmp_path / "clean.txt").read_text()
    assert info["pool_rule"] == "filter_then_clip"


# A log where the two pool rules differ: job 1 ran 5 h past a 3 h request (its
# logged runtime is above u_t = 4 h; clipped first, it enters), job 2 ran 3 h
# on a 2 h request (eligible either way, its runtime clipped to 2 h either
# way), job 3 ran 30 min past its request of 50 min (logged 1 h 20 min: in
# filtered first, out clipped first), job 4 is plain.
RULE_ROWS = [job(1, 18000, 4, request=10800), job(2, 10800, 8, request=7200),
             job(3, 4800, 2, request=3000), job(4, 7200, 16, request=86400)]


@pytest.mark.parametrize("rule, ids, runtimes", [
    ("filter_then_clip", [2, 3, 4], [7200, 3000, 7200]),
    ("clip_then_filter", [1, 2, 4], [10800, 7200, 7200]),
])
def test_the_pool_rule_orders_the_runtime_filter_and_the_clip(rule, ids, runtimes):
    pool, cleaning, counts = pool_by_rule(workload(RULE_ROWS), 93312, CleaningPolicy(), rule=rule,
                                          **BOUNDS)
    assert pool.jobs["job_id"].tolist() == ids
    assert pool.jobs["run_time"].tolist() == runtimes
    assert counts["eligible"] == 3 and cleaning["runtime_above_request"] == 3
    if rule == "filter_then_clip":
        # The bounds saw the logged runtimes; the clip came after, on the pool.
        assert counts["too_long"] == 1 and counts["too_short"] == 0
        assert counts["runtime_above_request"] == 2
    else:
        assert counts["too_long"] == 0 and counts["too_short"] == 1
        assert counts["runtime_above_request"] == 2   # jobs 1 and 2


def test_the_pool_rules_compared_and_other_cleaning_actions():
    pools = {r: pool_by_rule(workload(RULE_ROWS), 93312, CleaningPolicy(), rule=r, **BOUNDS)[0]
             for r in POOL_RULES}
    assert compare_pool_rules(pools, "filter_then_clip", {"filter_then_clip": 2}) == {
        "rule": "filter_then_clip", "other": "clip_then_filter",
        "pool_jobs": {"filter_then_clip": 3, "clip_then_filter": 3},
        "runtime_above_request": {"filter_then_clip": 2},
        "entering": 1, "leaving": 1, "runtime_changed": 0}
    # runtime_above_request "drop" or "keep": both orders give the same pool.
    for action in ("drop", "keep"):
        policy = CleaningPolicy(runtime_above_request=action)
        a, b = (pool_by_rule(workload(RULE_ROWS), 93312, policy, rule=r, **BOUNDS)[0].jobs
                for r in POOL_RULES)
        assert a.equals(b)
    with pytest.raises(Exception, match="pool_rule must be one of"):
        pool_by_rule(workload(RULE_ROWS), 93312, CleaningPolicy(), rule="clip", **BOUNDS)


@pytest.mark.parametrize("rule", POOL_RULES)
def test_eligible_step_follows_the_pool_rule_and_counts_both(tmp_path, rule):
    raw = write_log(tmp_path / "raw.swf.gz", RULE_ROWS)
    c = ctx(tmp_path, {"raw": str(raw)},
            {"swf": "pool.swf.gz", "info": "pool.json", "cleaning_log": "clean.txt"},
            {"trace": "CEA-Curie", "machine_procs": 93312, "cleaning": {}, "unsorted": "sort",
             "pool_rule": rule, **BOUNDS})
    eligible_step(c)
    info = json.loads((tmp_path / "pool.json").read_text())
    expected = {"filter_then_clip": [2, 3, 4], "clip_then_filter": [1, 2, 4]}[rule]
    assert read_swf(c.output.swf).jobs["job_id"].tolist() == expected
    assert info["pool_rule"] == rule and info["pool_rules"]["rule"] == rule
    assert info["pool_rules"]["entering"] == 1 and info["pool_rules"]["leaving"] == 1
    assert info["pool_rules"]["runtime_above_request"] == {"filter_then_clip": 2,
                                                           "clip_then_filter": 2}


#: CEA-Curie's pool under each rule (size <= 16, 1 h <= runtime <= 4 h) and the eligible
#: jobs whose runtime is clipped to their request, measured.
CURIE_POOLS = {"filter_then_clip": 10464, "clip_then_filter": 10490}
CURIE_CLIPPED = {"filter_then_clip": 344, "clip_then_filter": 370}


@pytest.mark.real_traces
@pytest.mark.parametrize("rule, pool_jobs", CURIE_POOLS.items(),
                         ids=[f"pool[{r}-{n}]" for r, n in CURIE_POOLS.items()])
def test_cea_curie_pool_under_each_rule(rule, pool_jobs, real_traces):
    from simlib.workload.swf import read_swf as read
    raw = read(real_traces / "CEA-Curie-2011-2.1-cln.swf.gz", unsorted="sort")
    pool, _, counts = pool_by_rule(raw, 93312, CleaningPolicy(), rule=rule, **BOUNDS)
    print(f"CEA-Curie pool under {rule}: {len(pool.jobs)} jobs, "
          f"{counts['runtime_above_request']} runtimes clipped to the request")
    assert len(pool.jobs) == counts["eligible"] == pool_jobs
    assert counts["runtime_above_request"] == CURIE_CLIPPED[rule]


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
