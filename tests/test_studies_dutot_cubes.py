"""Paper D's cubes (simlib.studies.dutot.cubes)."""
import json
import logging

import numpy as np

from simlib.cube import read_cube
from simlib.studies.base import Files, StepContext
from simlib.studies.dutot.cubes import DIMS, aggregate, build, records


def summary(coords, seed, values):
    return {"seed": seed, "coords": coords,
            "runs": [{"variant": v, "f_comm": f, "metrics": {
                "makespan": m, "mean_execution": m / 2, "mean_wait": 1.0, "jobs_killed": 0,
                "jobs": 3}} for (v, f), m in values.items()]}


def test_records_and_cube_dims_per_experiment():
    s = [summary({"set": st, "ordering": o}, seed, {("basic", 0.0): 10.0, ("local", 1e7): 20.0})
         for st in ("high", "low") for o in ("o1", "o2") for seed in (0, 1)]
    recs = records(s)
    assert len(recs) == 16 and set(recs[0]) == {*DIMS["heterogeneous"], "makespan", "mean_execution",
                                                "mean_wait", "jobs_killed", "jobs"}
    cube = build(recs, "heterogeneous")
    assert dict(cube.sizes) == {"set": 2, "ordering": 2, "variant": 2, "seed": 2, "f_comm": 2}
    # Cells never run are NaN (basic at 1e7, local at 0).
    assert np.isnan(cube["makespan"].sel(variant="basic", f_comm=1e7)).all()
    assert cube["makespan"].attrs["units"] == "s" and cube["f_comm"].attrs["units"] == "B/s"
    assert "Table 1" in cube["set"].attrs["long_name"]


def test_aggregate_writes_a_cube_with_provenance(tmp_path):
    paths = []
    for model in ("printed", "griffon"):
        p = tmp_path / f"{model}.json"
        p.write_text(json.dumps(summary({"model": model}, 0, {("basic", 0.0): 5.0})))
        paths.append(str(p))
    ctx = StepContext(Files(summaries=paths), Files(cube=str(tmp_path / "c.nc")),
                      {"subtree": {"study": "dutot", "x": 1}, "variants": ["basic"]},
                      {"experiment": "homogeneous", "scale": "smoke"}, logging.getLogger("t"), {})
    aggregate(ctx)
    cube = read_cube(tmp_path / "c.nc")
    assert dict(cube.sizes) == {"model": 2, "variant": 1, "seed": 1, "f_comm": 1}
    assert cube.attrs["study"] == "dutot" and cube.attrs["experiment"] == "homogeneous"
    assert cube.attrs["scale"] == "smoke" and len(cube.attrs["config_sha256"]) == 64
    assert json.loads(cube.attrs["config_subtree"]) == {"study": "dutot", "x": 1}
