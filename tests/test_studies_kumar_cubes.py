"""Paper K's cubes and C_s pick (simlib.studies.kumar.cubes)."""
from __future__ import annotations

import json
import logging
import math

import numpy as np
import pytest

from helpers_kumar_study import cs_cube

from simlib.errors import ConfigError
from simlib.studies.base import Files, StepContext
from simlib.studies.kumar import cubes as C


def test_build_cube_repeats_cs_independent_policies_along_cs():
    recs = [{"workload": "ps05", "policy": "easy", "load": 0.9, "seed": 0, "cs": None,
             "mean_wait": 5.0, "cs_used": math.nan},
            {"workload": "ps05", "policy": "delayed_los", "load": 0.9, "seed": 0, "cs": 2,
             "mean_wait": 3.0, "cs_used": 2.0}]
    cube = C.build_kumar_cube(recs, "cs", [1, 2])
    assert dict(cube.sizes) == {"workload": 1, "policy": 2, "cs": 2, "seed": 1}
    assert cube["mean_wait"].sel(policy="easy").values.ravel().tolist() == [5.0, 5.0]
    dl = cube["mean_wait"].sel(policy="delayed_los").values.ravel()
    assert np.isnan(dl[0]) and dl[1] == 3.0
    assert "cs_used" not in cube
    load = C.build_kumar_cube(recs[:1], "load")
    assert dict(load.sizes) == {"workload": 1, "policy": 1, "load": 1, "seed": 1}
    assert load["mean_wait"].attrs["units"] == "s"


def test_load_and_readings_cubes_say_which_policies_ran():
    recs = [{"workload": w, "policy": p, "load": x, "seed": 0, "cs": None, "mean_wait": 1.0}
            for w, pols in (("ps02", ["easy", "los"]), ("ps05", ["easy", "delayed_los"]))
            for p in pols for x in (0.5, 0.9)]
    load = C.build_kumar_cube(recs, "load")
    assert load["ran"].dims == ("workload", "policy")
    assert load["ran"].sel(workload="ps02").values.tolist() == [False, True, True]  # delayed_los, easy, los
    assert "studies.kumar.load_sweeps" in load["ran"].attrs["description"]
    assert load.attrs["share_of_cells_run"] == 8 / 12
    readings = C.build_kumar_cube([dict(r, workload=f"slow@{r['workload']}") for r in recs[:4]],
                                  "readings")
    assert readings["ran"].dims == ("reading", "workload", "policy")
    assert "studies.kumar.readings" in readings["ran"].attrs["description"]
    assert "ran" not in C.build_kumar_cube([r for r in recs if r["load"] == 0.5], "cs", [1, 2])


def test_pick_cs_argmin_and_near_best():
    cube = cs_cube(best=3)
    df = C.pick_cs(cube)
    assert df["cs"].tolist() == [3, 3, 3] and df["best_cs"].tolist() == [3, 3, 3]
    # Every seed is scaled by the same factor: differences to the best are
    # exact, so only the best itself is "near".
    assert df["near_best"].tolist() == [[3], [3], [3]]
    util = C.pick_cs(cube, metric="utilization")
    assert util["cs"].tolist() == [1, 1, 1]  # all equal: smallest C_s wins ties


def test_pick_cs_one_se_prefers_the_smallest_close_cs():
    from simlib.cube import build_cube
    recs = []
    # Seed offsets -2..2: standard error sqrt(2.5 / 5) = 0.707 at every C_s.
    for c, m in ((1, 100.0), (2, 89.6), (3, 89.3), (4, 89.0)):
        for s, d in enumerate((-2, -1, 0, 1, 2)):
            recs.append({"workload": "w", "policy": "delayed_los", "cs": c, "seed": s,
                         "mean_wait": m + d})
    cube = build_cube(recs, ["workload", "policy", "cs", "seed"], ["mean_wait"])
    assert C.pick_cs(cube)["cs"].item() == 4
    assert C.pick_cs(cube, rule="one_se")["cs"].item() == 2   # 89.6 <= 89.0 + 0.707
    with pytest.raises(ConfigError, match="rule"):
        C.pick_cs(cube, rule="best")


def test_picks_document_keys_by_p_s():
    df = C.pick_cs(cs_cube(best=2))
    doc = C.picks_document(df, {"ps02": 0.2, "ps05": 0.5, "ps08": 0.8}, metric="mean_wait")
    assert doc["by_p_s"] == {"0.2": 2, "0.5": 2, "0.8": 2}
    assert doc["by_workload"]["ps05"] == 2 and doc["metric"] == "mean_wait"
    json.dumps(doc)  # JSON-ready


def test_aggregate_step_writes_the_cube_with_provenance(tmp_path):
    from simlib.cube import read_cube
    recs = [{"workload": "ps05", "policy": p, "load": 0.9, "seed": s, "cs": c,
             "mean_wait": 10.0 * s + (c or 0), "cs_used": math.nan if c is None else float(c)}
            for p, c in (("easy", None), ("delayed_los", 1), ("delayed_los", 2)) for s in (0, 1)]
    paths = []
    for i, chunk in enumerate((recs[:2], recs[2:])):
        paths.append(tmp_path / f"s{i}.json")
        paths[-1].write_text(json.dumps({"records": chunk}))
    subtree = {"study": "kumar", "simulation": {"overrun": "kill", "tau": 10.0}}
    out = tmp_path / "cube.nc"
    C.aggregate_step(StepContext(Files(summaries=paths), Files(cube=str(out)),
                                 {"subtree": subtree, "cs_values": [1, 2]},
                                 {"purpose": "cs", "scale": "smoke"}, logging.getLogger("t"), {}))
    cube = read_cube(out)
    assert dict(cube.sizes) == {"workload": 1, "policy": 2, "cs": 2, "seed": 2}
    assert cube.attrs["sweep"] == "cs" and cube.attrs["scale"] == "smoke"
    assert cube.attrs["tau_s"] == 10.0 and len(cube.attrs["config_sha256"]) == 64
    assert json.loads(cube.attrs["config_subtree"]) == subtree
    assert cube["mean_wait"].sel(workload="ps05", policy="easy", seed=1).values.tolist() == [10.0, 10.0]


def test_pick_step_writes_the_json_and_the_table(tmp_path):
    from simlib.cube import write_cube
    cube = tmp_path / "cs.nc"
    write_cube(cs_cube(best=2), cube)
    p_s = {"ps02": 0.2, "ps05": 0.5, "ps08": 0.8}
    C.pick_step(StepContext(Files(cube=str(cube)),
                            Files(picks=str(tmp_path / "p.json"), csv=str(tmp_path / "p.csv")),
                            {"swept": "delayed_los", "pick": {"metric": "mean_wait", "rule": "argmin"},
                             "p_s": p_s, "load": 0.9, "scale": "smoke"}, {},
                            logging.getLogger("t"), {}))
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["by_p_s"] == {"0.2": 2, "0.5": 2, "0.8": 2} and doc["load"] == 0.9
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "scale,workload,p_s,cs,value,best_cs,best_value,near_best"
    assert lines[1].startswith("smoke,ps02,0.2,2,")
    assert lines[1].endswith(",2")   # near_best, space-separated
