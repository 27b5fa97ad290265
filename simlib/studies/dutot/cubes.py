"""Paper D's netCDF cubes, one per experiment (step ``dutot_aggregate``): dims
:data:`DIMS`, variables the run metrics of :data:`simlib.studies.dutot.runs.METRIC_INFO`
with their units, provenance in the attributes.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from simlib.cube import build_cube, provenance, write_cube

from .runs import METRIC_INFO, METRICS

__all__ = ["DIMS", "COORD_INFO", "records", "build", "aggregate"]

#: Dimensions of each experiment's cube.
DIMS = {"homogeneous": ["model", "variant", "seed", "f_comm"],
        "heterogeneous": ["set", "ordering", "variant", "seed", "f_comm"]}
#: Attributes of the coordinates.
COORD_INFO = {
    "model": {"long_name": "reading of the homogeneous platform (printed: §5.3 as printed; "
                           "griffon: SimGrid's Griffon description)"},
    "variant": {"long_name": "allocation rule of conservative backfilling (paper D §5.2)"},
    "seed": {"long_name": "workload seed index"},
    "f_comm": {"long_name": "communication factor F_comm", "units": "B/s",
               "description": "bytes per pair of the job's hosts and second of trace runtime"},
    "set": {"long_name": "set of Table 1 clusters (high: c1-c3, low: c4-c6)"},
    "ordering": {"long_name": "cluster ordering of the platform (paper D §5.4)"},
}


def records(summaries: Iterable[Mapping], experiment: str) -> list[dict]:
    """One record per run (cube cell) from the simulation chunks' summaries."""
    out = []
    for s in summaries:
        base = {**s["coords"], "seed": int(s["seed"])}
        for run in s["runs"]:
            rec = {**base, "variant": run["variant"], "f_comm": float(run["f_comm"])}
            rec.update({m: run["metrics"].get(m) for m in METRICS})
            out.append({k: rec[k] for k in (*DIMS[experiment], *METRICS)})
    return out


def build(recs: list[dict], experiment: str, attrs: Mapping | None = None):
    """The cube of one experiment from its records."""
    cube = build_cube(recs, DIMS[experiment], list(METRICS), attrs=attrs,
                      metric_info=METRIC_INFO)
    for dim in DIMS[experiment]:
        cube[dim].attrs.update(COORD_INFO[dim])
    return cube


def aggregate(ctx, repo=None) -> None:
    """Step ``dutot_aggregate``: the ``cube`` of experiment ``{experiment}`` from the chunks'
    ``summaries``; parameters ``subtree`` (its provenance) and ``variants`` (display order)."""
    experiment, scale = ctx.wildcards["experiment"], ctx.wildcards["scale"]
    subtree = ctx.params["subtree"]
    summaries = [json.loads(Path(p).read_text()) for p in ctx.input.summaries]
    recs = records(summaries, experiment)
    versions = sorted({s.get("simgrid_version", "unknown") for s in summaries})
    attrs = provenance(subtree, repo_dir=repo)
    attrs.update({
        "study": "dutot", "experiment": experiment, "scale": scale,
        "title": f"paper D (Dutot et al.), {experiment} experiment, {scale} scale",
        "config_subtree": json.dumps(subtree, sort_keys=True),
        "variants_order": ", ".join(ctx.params["variants"]),
        "timing": "job durations from SimGrid (ptask_L07 host model, flow-level network)",
        "simgrid_version": ", ".join(versions)})
    cube = build(recs, experiment, attrs)
    write_cube(cube, ctx.output.cube)
    ctx.log.info("cube %s: dims %s", ctx.output.cube, dict(cube.sizes))
