"""Tests of simlib.studies.utrera.figures: the figure and table steps of paper U."""
import doctest
import itertools
import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from simlib.cube import build_cube, write_cube
from simlib.io import write_json
from simlib.studies import Files, StepContext
from simlib.studies.utrera import figures
from simlib.studies.utrera.figures import fig2, long_util, pm, table1
from simlib.studies.utrera.metrics import METRIC_INFO, run_metrics
from simlib.studies.utrera.runs import simulate_with_allocations
from simlib.studies.utrera.transforms import toy_workload

PUBLISHED = str(Path(__file__).resolve().parents[1] / "config/published/utrera.yaml")
PNG = b"\x89PNG\r\n\x1a\n"
FIG2 = [(0, 8, 2), (0, 4, 1), (0, 2, 1), (0, 8, 2), (0, 4, 2), (0, 8, 1)]


def ctx(inputs, outputs, params):
    return StepContext(input=Files(inputs), output=Files(outputs), params=params,
                       wildcards={}, log=logging.getLogger("test"), config={"scale": "smoke"})


def outputs(tmp_path, *names):
    ext = {"png": "png", "csv": "csv", "md": "md"}
    return {n: str(tmp_path / f"out.{ext[n]}") for n in names}


def test_doctests():
    assert doctest.testmod(figures).failed == 0


def test_cells_say_when_there_is_no_interval():
    assert pm(1234.5678, 12.3) == "1235 ± 12"
    assert pm(0.5, float("nan")) == "0.500"


def test_fig2_step_writes_the_nine_numbers(tmp_path):
    sched = {"cpus": 10, "jobs": [list(j) for j in FIG2], "policies": {}}
    for pol in ("fcfs", "easy", "fcfs_malleable"):
        params = {"ov_max": 0.0} if pol == "fcfs_malleable" else {}
        res, seg = simulate_with_allocations(toy_workload(FIG2), pol, cpus=10,
                                             policy_params=params)
        sched["policies"][pol] = {"metrics": run_metrics(res), "segments": [
            {**r, "cpu_ids": list(r["cpu_ids"])} for r in seg.to_dict("records")]}
    write_json(sched, tmp_path / "schedules.json")
    out = outputs(tmp_path, "png", "csv", "md")
    fig2(ctx({"schedules": str(tmp_path / "schedules.json"), "published": PUBLISHED}, out,
             {"scale": "smoke", "policies": ["fcfs", "easy", "fcfs_malleable"]}))
    assert Path(out["png"]).read_bytes().startswith(PNG)
    table = pd.read_csv(out["csv"])
    assert len(table) == 9 and table["match"].all()
    md = Path(out["md"]).read_text()
    assert md.startswith("# Fig. 2: the nine numbers, ours vs published\n\nToy example on 10 CPUs")
    assert "| FCFS-malleable |" in md  # display names, not keys


def _cube(tmp_path, dims, coords, value):
    recs = []
    keys = list(coords)
    for combo in itertools.product(*coords.values()):
        rec = dict(zip(keys, combo))
        recs += [{**rec, "seed": s, **value(rec, s)} for s in (0, 1, 2)]
    cube = build_cube(recs, dims, ["mean_wait", "mean_response", "utrera_slowdown"],
                      metric_info=METRIC_INFO)
    path = tmp_path / "cube.nc"
    write_cube(cube, path)
    return str(path)


def test_table1_step_compares_gains_with_the_paper(tmp_path):
    def value(rec, s):
        f = 1.0 if rec["policy"] == "easy" else 0.5  # FCFS-malleable halves everything
        return {"mean_wait": f * 100 + s, "mean_response": f * 200 + s, "utrera_slowdown": f * 4}
    cube = _cube(tmp_path, ["policy", "load", "seed"],
                 {"policy": ["easy", "fcfs_malleable"], "load": [0.3, 0.5, 0.7, 0.9]}, value)
    fit = {"fits": [{"load": x, "mean_runtime": 40.0 + 10 * x} for x in (0.3, 0.9)]}
    (tmp_path / "fit.json").write_text(json.dumps(fit))
    out = outputs(tmp_path, "png", "csv", "md")
    table1(ctx({"cube": cube, "fits": [str(tmp_path / "fit.json")], "published": PUBLISHED}, out,
               {"scale": "smoke", "fit": "runtimes",
                "lublin": {"n_jobs": 150, "machine_size": 128}}))
    t1 = pd.read_csv(out["csv"])
    assert len(t1) == 4 * 2 * 3 and t1["paper_S"].notna().all()
    md = Path(out["md"]).read_text()
    assert "3 seeds" in md and "mean runtime per load 0.3: 43 s, 0.9: 49 s" in md
    gains = md.split("## Gain of FCFS-malleable over EASY")[1]
    assert "| utrera_slowdown | 90 % | 50 |" in gains
    assert Path(out["png"]).read_bytes().startswith(PNG)


def test_long_util_step_states_the_long_jobs(tmp_path):
    def value(rec, s):
        return {"mean_wait": 1.0, "mean_response": 10.0 + s,
                "utrera_slowdown": 2.0 if rec["policy"] == "easy" else 1.0 + rec["long_util"]}
    cube = _cube(tmp_path, ["policy", "long_util", "seed"],
                 {"policy": ["easy", "fcfs_malleable"], "long_util": [0.6, 1.0]}, value)
    info = {"jobs": 1000, "portion": {"long_jobs": 4, "long_cpu_util_mean": None}}
    (tmp_path / "info.json").write_text(json.dumps(info))
    out = outputs(tmp_path, "png", "csv", "md")
    long_util(ctx({"cube": cube, "info": str(tmp_path / "info.json"), "published": PUBLISHED},
                  out, {"scale": "smoke", "trace": "SDSC-SP2", "mode": "set"}))
    md = Path(out["md"]).read_text()
    assert md.startswith("# Sect. 5.1: SDSC-SP2 with long jobs' CPU utilization varied (smoke")
    assert "4 long jobs among the 1000 of the portion" in md
    assert "n/a: none with CPU time in the trace" in md
    assert "| 60 % | 2.00 | 11.0 ± 2.5 | 1.60 | 11.0 ± 2.5 |" in md
    assert set(pd.read_csv(out["csv"])["long_util"]) == {0.6, 1.0}


@pytest.mark.parametrize("x, text", [(float("inf"), "–"), (0.0, "0")])
def test_pm_edge_values(x, text):
    assert pm(x, 0.0) == text
