"""Paper D's netCDF cubes, one per experiment (step ``dutot_aggregate``): dims
:data:`DIMS`, variables the run metrics of :data:`simlib.studies.dutot.runs.METRIC_INFO`
with their units, provenance in the attributes.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from simlib.cube import build_cube, study_attrs, write_cube

from .runs import METRIC_INFO, METRICS

__all__ = ["DIMS", "COORD_INFO", "records", "build", "aggregate"]

#: Dimensions of each experiment's cube.
DIMS = {"homogeneous": ["model", "variant", "seed", "f_comm"],
        "heterogeneous": ["set", "ordering", "variant", "seed", "f_comm"]}
#: Attributes of the coordinates.
COORD_INFO = {
    "model": {"long_name": "reading of the homogeneous platform (printed: §5.3 as printed; "
                           "griffon: SimGrid's Griffon description; base: Table 1's base "
                           "cluster b)"},
    "variant": {"long_name": "allocation rule of conservative backfilling (paper D §5.2)"},
    "seed": {"long_name": "workload seed index"},
    "f_comm": {"long_name": "communication factor F_comm", "units": "B/s",
               "description": "bytes per pair of the job's hosts and second of trace runtime"},
    "set": {"long_name": "set of Table 1 clusters (high: c1-c3, low: c4-c6)"},
    "ordering": {"long_name": "cluster ordering of the platform (paper D §5.4)"},
}


def records(summaries: Iterable[Mapping]) -> list[dict]:
    """One record per run (cube cell) from the simulation chunks' summaries."""
    return [{**s["coords"], "seed": int(s["seed"]), "variant": run["variant"],
             "f_comm": float(run["f_comm"]), **{m: run["metrics"].get(m) for m in METRICS}}
            for s in summaries for run in s["runs"]]


def build(recs: list[dict], experiment: str, attrs: Mapping | None = None):
    """The cube of one experiment from its records."""
    return build_cube(recs, DIMS[experiment], list(METRICS), attrs=attrs, metric_info=METRIC_INFO,
                      coord_info=COORD_INFO)


def aggregate(ctx) -> None:
    """Step ``dutot_aggregate``: the ``cube`` of experiment ``{experiment}`` from the chunks'
    ``summaries``; parameters ``subtree`` (its provenance) and ``variants`` (display order)."""
    experiment, scale = ctx.wildcards["experiment"], ctx.wildcards["scale"]
    summaries = [json.loads(Path(p).read_text()) for p in ctx.input.summaries]
    versions = sorted({s.get("simgrid_version", "unknown") for s in summaries})
    attrs = study_attrs(
        "dutot", ctx.params["subtree"], ctx.repo, experiment=experiment, scale=scale,
        title=f"paper D (Dutot et al.), {experiment} experiment, {scale} scale",
        variants_order=", ".join(ctx.params["variants"]),
        timing="job durations from SimGrid (ptask_L07 host model, flow-level network)",
        simgrid_version=", ".join(versions))
    write_cube(build(records(summaries), experiment, attrs), ctx.output.cube, ctx.log)
