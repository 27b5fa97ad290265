"""Tests of simlib.studies.utrera.cubes: paper U's cubes from the run summaries."""
import doctest
import json
import logging

import numpy as np
import pytest

from simlib.cube import read_cube
from simlib.studies import Files, StepContext
from simlib.studies.utrera import cubes
from simlib.studies.utrera.cubes import aggregate, metrics_of, records
from simlib.studies.utrera.metrics import RUN_METRICS

SUBTREE = {"study": "utrera", "simulation": {"overrun": "kill", "tau": 10.0}}


def metrics(x):
    return {m: float(x) for m in metrics_of("traces")}


def summary(policy, runs):
    return {"kind": "traces", "policy": policy, "runs": runs}


def trace_runs():
    easy = summary("easy", [{"trace": "T", "policy": "easy", "seed": None, "metrics": metrics(5)}])
    fm = summary("fcfs_malleable", [{"trace": "T", "policy": "fcfs_malleable:ov0", "seed": s,
                                     "metrics": metrics(10 + s)} for s in (0, 1)])
    return [easy, fm]


def test_doctests():
    assert doctest.testmod(cubes).failed == 0


def test_a_seedless_run_stands_for_every_seed():
    recs, fixed = records("traces", trace_runs(), [0, 1])
    assert fixed == {"easy"}
    got = [(r["trace"], r["policy"], r["seed"], r["mean_wait"]) for r in recs]
    # The run's own policy label is the coordinate, else the chunk's policy.
    assert got == [("T", "easy", 0, 5.0), ("T", "easy", 1, 5.0),
                   ("T", "fcfs_malleable:ov0", 0, 10.0), ("T", "fcfs_malleable:ov0", 1, 11.0)]


def test_fig2_records_have_policy_only():
    sched = {"policies": {p: {"metrics": {m: 1.0 for m in RUN_METRICS}} for p in ("easy", "fcfs")}}
    recs, fixed = records("fig2", [sched], [])
    assert [r["policy"] for r in recs] == ["easy", "fcfs"] and not fixed
    assert "offered_load" not in recs[0] and set(recs[0]) == {"policy", *RUN_METRICS}


@pytest.mark.parametrize("part, dims", [("traces", {"trace": 1, "policy": 2, "seed": 2}),
                                        ("long_util", {"policy": 1, "long_util": 2, "seed": 1})])
def test_aggregate_writes_the_cube_with_provenance(tmp_path, part, dims):
    if part == "traces":
        summaries = trace_runs()
    else:
        summaries = [summary("easy", [{"long_util": u, "policy": "easy", "seed": 0,
                                       "metrics": metrics(u)} for u in (0.6, 1.0)])]
    paths = []
    for i, s in enumerate(summaries):
        paths.append(str(tmp_path / f"s{i}.json"))
        (tmp_path / f"s{i}.json").write_text(json.dumps(s))
    out = tmp_path / "cube.nc"
    aggregate(StepContext(input=Files(summaries=paths), output=Files(cube=str(out)),
                          params={"subtree": SUBTREE, "seeds": [0, 1]},
                          wildcards={"part": part, "scale": "smoke"},
                          log=logging.getLogger("test"), config={}))
    cube = read_cube(out)
    assert dict(cube.sizes) == dims
    assert cube.attrs["study"] == "utrera" and cube.attrs["part"] == part
    assert json.loads(cube.attrs["config_subtree"]) == SUBTREE
    assert cube.attrs["tau_s"] == 10.0 and len(cube.attrs["config_sha256"]) == 64
    assert cube["utrera_slowdown"].attrs["units"] == "1"
    assert cube["offered_load"].attrs["units"] == "1"
    if part == "traces":
        assert cube.attrs["seed_independent_policies"] == "easy"
        assert np.allclose(cube["mean_wait"].sel(trace="T", policy="easy"), [5.0, 5.0])
    else:
        assert cube["long_util"].attrs["units"] == "1"
        assert cube.attrs["seed_independent_policies"] == ""
