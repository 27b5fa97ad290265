"""Paper Z's netCDF cube (step ``zeng_aggregate``): dims (workload, machine, seed).

Variables: every number of :func:`simlib.studies.zeng.summaries.summary`
(RR per class and bound, utilizations, high-load phases, makespan, drain,
overhead share, delay factors, preemptions), units where they have one,
provenance in the attributes. Timings are left out so that the same inputs
give an identical cube.
"""
from __future__ import annotations

import json
from pathlib import Path

from simlib.cube import build_cube, study_attrs, write_cube
from simlib.stats import mean_ci_text as ci_text  # the tables' "mean ± half" cells

__all__ = ["DIMS", "COORD_INFO", "UNITS", "build", "ci_text", "read_summaries", "write",
           "aggregate_step"]

DIMS = ["workload", "machine", "seed"]
COORD_INFO = {
    "workload": {"long_name": "adjusted Lublin workload of Table 5 (W1 normal, W2 high load)"},
    "machine": {"long_name": "machine: multicore = 128 nodes of 2 dual-core CPUs (adjusted jobs); "
                             "single_core = 128 single-core nodes (unadjusted jobs, §4.8)"},
    "seed": {"long_name": "workload seed"},
}
#: Units of the variables that have one (the others are ratios or counts).
UNITS = {"makespan": "s", "makespan_days": "d", "mean_response_all": "s",
         "mean_response_medium": "s", "mean_response_long": "s", "mean_wait": "s",
         "high_phase_hours_mean": "h", "high_phase_hours_total": "h", "overhead_share": "%"}


def build(records: list[dict], attrs=None, dims=None, *, subtree=None, repo=None):
    """The cube from one record per run (its dims and metrics).

    With ``subtree`` (the config it depends on), the attributes are the study's
    (:func:`simlib.cube.study_attrs`: provenance, ``study``, ``config_subtree``) and ``attrs``.

    Examples
    --------
    >>> recs = [{"workload": w, "machine": "multicore", "seed": 0, "rr_all": 2.0} for w in ("W1", "W2")]
    >>> dict(build(recs).sizes)
    {'workload': 2, 'machine': 1, 'seed': 1}
    """
    dims = DIMS if dims is None else dims
    if subtree is not None:
        attrs = study_attrs("zeng", subtree, repo, **attrs)
    metrics = sorted({k for r in records for k in r} - set(dims))
    info = {m: (UNITS.get(m, "1"), m.replace("_", " "), "paper Z run metric "
                "(simlib/studies/zeng/summaries.py)") for m in metrics}
    return build_cube(records, dims, metrics, attrs=attrs, metric_info=info, coord_info=COORD_INFO)


def read_summaries(paths) -> list[dict]:
    """The run summaries (JSON) of a step's input."""
    return [json.loads(Path(p).read_text()) for p in paths]


def write(cube, ctx) -> None:
    """Write an aggregate step's ``cube`` output."""
    write_cube(cube, ctx.output.cube, ctx.log)


def aggregate_step(ctx, repo=None) -> None:
    """Step ``zeng_aggregate``: input ``summaries``, parameter ``subtree``, output ``cube``."""
    subtree = ctx.params["subtree"]
    records = [{k: v for k, v in s.items() if not k.startswith("simulated_")}
               for s in read_summaries(ctx.input.summaries)]
    write(build(records, subtree=subtree, repo=repo, attrs=dict(
        scale=subtree["scale"], title=f"paper Z (Zeng & Sodan), SSP under Scojo-PECT, "
                                      f"{subtree['scale']} scale",
        policy="scojo_pect (space sharing, SSP)")), ctx)
