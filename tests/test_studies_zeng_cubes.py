"""Paper Z's cubes (simlib.studies.zeng.cubes): records to a cube with units, coordinates
described and provenance; the aggregate step on summaries."""
import json
import logging

import numpy as np

from simlib.cube import read_cube
from simlib.studies.base import Files, StepContext
from simlib.studies.zeng.cubes import aggregate_step, build, ci_text


def test_build_describes_dims_and_units_and_records_the_config():
    recs = [{"workload": "W1", "machine": "multicore", "seed": s, "makespan": 10.0 + s,
             "rr_all": 2.0} for s in (0, 1)]
    cube = build(recs, subtree={"scale": "smoke"}, attrs={"scale": "smoke", "title": "t",
                                                          "policy": "p"})
    assert cube["makespan"].attrs["units"] == "s" and cube["rr_all"].attrs["units"] == "1"
    assert "single_core" in cube["machine"].attrs["long_name"]
    assert {"study", "scale", "title", "policy", "git_commit", "config_sha256"} <= set(cube.attrs)
    assert json.loads(cube.attrs["config_subtree"]) == {"scale": "smoke"}


def test_ci_text_without_spread():
    m, h, text = ci_text([3.0])
    assert m == 3.0 and np.isnan(h) and text == "3"


def test_aggregate_step_drops_timings(tmp_path):
    paths = []
    for w in ("W1", "W2"):
        path = tmp_path / f"{w}.json"
        path.write_text(json.dumps({"workload": w, "machine": "multicore", "seed": 0,
                                    "rr_all": 2.0, "simulated_seconds": 1.5}))
        paths.append(str(path))
    out = tmp_path / "zeng.smoke.nc"
    ctx = StepContext(input=Files(summaries=paths), output=Files(cube=str(out)),
                      params={"subtree": {"scale": "smoke"}}, wildcards={"scale": "smoke"},
                      log=logging.getLogger("test"), config={})
    aggregate_step(ctx, repo=tmp_path)
    cube = read_cube(out)
    assert dict(cube.sizes) == {"workload": 2, "machine": 1, "seed": 1}
    assert "simulated_seconds" not in cube and cube.attrs["policy"].startswith("scojo_pect")
