"""Tests of simlib.studies.utrera.runs: paper U's simulations and their steps."""
import doctest
import gzip
import json
import logging

import pandas as pd
import pytest

from simlib.studies import Files, StepContext
from simlib.studies.utrera import runs
from simlib.studies.utrera.runs import simulate_chunk, simulate_fig2
from simlib.workload.swf import write_swf
from simlib.studies.utrera.transforms import toy_workload

FIG2 = [(0, 8, 2), (0, 4, 1), (0, 2, 1), (0, 8, 2), (0, 4, 2), (0, 8, 1)]
MALLEABLE = {"ov_max": 0.0}
SIMULATION = {"overrun": "kill", "tau": 10.0}
#: The study's fcfs_malleable, with a real overhead (the grid's).
STUDY_MALLEABLE = {"order": "oldest", "ov_max": 1.0, "ov_scope": "shrunk_work"}


def ctx(tmp_path, params, inputs=None, outputs=("summary", "jobs", "timeline"), **wildcards):
    names = {"summary": "summary.json", "jobs": "jobs.csv", "timeline": "timeline.csv.gz",
             "schedules": "schedules.json"}
    return StepContext(input=Files(inputs or {}),
                       output=Files({k: str(tmp_path / names[k]) for k in outputs}),
                       params=params, wildcards={"scale": "smoke", **wildcards},
                       log=logging.getLogger("test"), config={"simulation": {}})


def test_doctests():
    assert doctest.testmod(runs).failed == 0


def test_fig2_step_gives_the_papers_numbers(tmp_path):
    fig2 = {"cpus": 10, "jobs": [list(j) for j in FIG2], "malleable_params": MALLEABLE}
    variants = {p: {"policy": p, "params": {}} for p in ("fcfs", "easy")}
    # The toy example's overrides on the study's parameters (Utrera.fig2_variants).
    variants["fcfs_malleable"] = {"policy": "fcfs_malleable",
                                  "params": {**STUDY_MALLEABLE, "ov_max": 0.0}}
    c = ctx(tmp_path, {"fig2": fig2, "variants": variants, "simulation": SIMULATION},
            outputs=("schedules",))
    simulate_fig2(c)
    out = json.loads((tmp_path / "schedules.json").read_text())
    assert set(out["policies"]) == {"fcfs", "easy", "fcfs_malleable"}
    got = {p: round(d["metrics"]["mean_response"], 9) for p, d in out["policies"].items()}
    assert got == {"fcfs": round(14 / 3, 9), "easy": round(13 / 3, 9),
                   "fcfs_malleable": round(11 / 3, 9)}
    assert out["policies"]["fcfs_malleable"]["params"] == {**STUDY_MALLEABLE, "ov_max": 0.0}
    assert out["policies"]["easy"]["params"] == {}
    seg = out["policies"]["fcfs_malleable"]["segments"]
    assert {tuple(s["cpu_ids"]) == tuple(sorted(s["cpu_ids"])) for s in seg} == {True}


@pytest.fixture
def portion(tmp_path):
    """A small workload file: 12 jobs of mixed sizes on 8 CPUs."""
    rows = [(10 * i, [8, 4, 2, 1][i % 4], 30 + 7 * i) for i in range(12)]
    path = tmp_path / "portion.swf.gz"
    write_swf(toy_workload(rows), path)
    return str(path)


def chunk_params(policy, seeded, **extra):
    return {"kind": "traces", "policy": policy,
            "policy_params": STUDY_MALLEABLE if policy == "fcfs_malleable" else {},
            "seeded": seeded, "seeds": [0, 1, 2], "cpus": 8,
            "coords": {"trace": "T", "policy": policy}, "simulation": SIMULATION, **extra}


def test_chunk_runs_a_seedless_policy_once(tmp_path, portion):
    simulate_chunk(ctx(tmp_path, chunk_params("easy", False), {"swf": portion}))
    s = json.loads((tmp_path / "summary.json").read_text())
    assert [r["seed"] for r in s["runs"]] == [None]
    assert s["runs"][0]["trace"] == "T" and s["runs"][0]["workload"] == portion
    assert s["runs"][0]["metrics"]["jobs"] == 12
    jobs = pd.read_csv(tmp_path / "jobs.csv")
    assert len(jobs) == 12 and "waiting_time" in jobs  # Batsim columns


def test_chunk_draws_the_overhead_from_each_seed(tmp_path, portion):
    simulate_chunk(ctx(tmp_path, chunk_params("fcfs_malleable", True), {"swf": portion}))
    s = json.loads((tmp_path / "summary.json").read_text())
    assert [r["seed"] for r in s["runs"]] == [0, 1, 2]
    assert [r["policy_params"]["seed"] for r in s["runs"]] == [0, 1, 2]
    responses = {r["metrics"]["mean_response"] for r in s["runs"]}
    assert len(responses) > 1  # different OV draws
    # jobs.csv and the timeline are the first seed's, written reproducibly.
    first = (tmp_path / "timeline.csv.gz").read_bytes()
    simulate_chunk(ctx(tmp_path, chunk_params("fcfs_malleable", True), {"swf": portion}))
    assert (tmp_path / "timeline.csv.gz").read_bytes() == first
    assert gzip.decompress(first).startswith(b"time,")


def test_chunk_table1_reads_one_workload_per_seed(tmp_path):
    paths = []
    for seed in (0, 1):
        p = tmp_path / f"seed{seed}.swf.gz"
        write_swf(toy_workload([(0, 4, 10 + seed), (1, 4, 5)]), p)
        paths.append(str(p))
    params = {**chunk_params("easy", False), "kind": "table1", "seeds": [0, 1],
              "coords": {"load": 0.5}}
    simulate_chunk(ctx(tmp_path, params, {"swfs": paths}))
    runs_ = json.loads((tmp_path / "summary.json").read_text())["runs"]
    assert [(r["seed"], r["workload"], r["load"]) for r in runs_] == [(0, paths[0], 0.5),
                                                                      (1, paths[1], 0.5)]
    with pytest.raises(ValueError):  # a workload per seed, no fewer
        simulate_chunk(ctx(tmp_path, {**params, "seeds": [0, 1, 2]}, {"swfs": paths}))


def test_chunk_long_util_sets_the_long_jobs_utilization(tmp_path):
    # Two long jobs (> 64 processes, > 8 h) and a short one on 128 CPUs.
    path = tmp_path / "long.swf.gz"
    write_swf(toy_workload([(0, 100, 40000), (10, 100, 40000), (20, 8, 60)]), path)
    out = {}
    for util in (0.6, 1.0):
        params = {**chunk_params("fcfs_malleable", True), "kind": "long_util", "seeds": [0],
                  "cpus": 128, "long_util": util, "long_util_mode": "set",
                  "coords": {"long_util": util, "policy": "fcfs_malleable"}}
        simulate_chunk(ctx(tmp_path, params, {"swf": str(path)}))
        out[util] = json.loads((tmp_path / "summary.json").read_text())["runs"][0]
    assert out[0.6]["long_util"] == 0.6
    # Shrunk long jobs compute faster at a lower utilization (formula 3-4).
    assert out[0.6]["metrics"]["mean_response"] < out[1.0]["metrics"]["mean_response"]


# ------------------------------------------- the other readings of the time model
def test_chunk_runs_every_reading_under_its_label_paired_by_seed(tmp_path, portion):
    variants = {"fcfs_malleable:ov0": {**STUDY_MALLEABLE, "ov_max": 0.0},
                "fcfs_malleable:ov_zero": {**STUDY_MALLEABLE, "ov_max": 0.0},
                "fcfs_malleable:blocked": {**STUDY_MALLEABLE, "expand_when_blocked": True}}
    params = {**chunk_params("fcfs_malleable", True), "variants": variants,
              "coords": {"trace": "T"}}
    simulate_chunk(ctx(tmp_path, params, {"swf": portion}))
    runs_ = json.loads((tmp_path / "summary.json").read_text())["runs"]
    # One run per (seed, reading), each under its label, with its seed.
    assert [(r["seed"], r["policy"]) for r in runs_] == [
        (s, label) for s in (0, 1, 2) for label in variants]
    assert all(r["policy_params"]["seed"] == r["seed"] for r in runs_)
    by = {(r["seed"], r["policy"]): r for r in runs_}
    # Two names of one reading give the same numbers (simulated once).
    for s in (0, 1, 2):
        assert by[s, "fcfs_malleable:ov0"]["metrics"] == by[s, "fcfs_malleable:ov_zero"]["metrics"]
    # The main chunk's outputs are as without variants: no policy label of its own.
    simulate_chunk(ctx(tmp_path, {**chunk_params("fcfs_malleable", True),
                                  "coords": {"trace": "T"}}, {"swf": portion}))
    assert "policy" not in json.loads((tmp_path / "summary.json").read_text())["runs"][0]


def test_fig2_step_runs_the_readings_with_the_examples_own_parameters(tmp_path):
    fig2 = {"cpus": 10, "jobs": [list(j) for j in FIG2], "malleable_params": MALLEABLE}
    variants = {"fcfs_malleable:ov_comm": {**STUDY_MALLEABLE, "ov_fraction": "communication",
                                           "ov_max": 0.0},
                "fcfs_malleable:expand_started_shrunk": {**STUDY_MALLEABLE, "ov_max": 0.0,
                                                         "expand_started_shrunk": True}}
    variants = {k: {"policy": "fcfs_malleable", "params": v} for k, v in variants.items()}
    c = ctx(tmp_path, {"fig2": fig2, "variants": variants, "simulation": SIMULATION},
            outputs=("schedules",))
    simulate_fig2(c)
    out = json.loads((tmp_path / "schedules.json").read_text())
    assert set(out["policies"]) == set(variants)
    # OV = 0 under every reading: the OV factor leaves the paper's numbers.
    assert round(out["policies"]["fcfs_malleable:ov_comm"]["metrics"]["mean_response"], 9) == \
        round(11 / 3, 9)
    assert out["policies"]["fcfs_malleable:ov_comm"]["params"]["ov_max"] == 0.0
    assert out["policies"]["fcfs_malleable:expand_started_shrunk"]["segments"]
