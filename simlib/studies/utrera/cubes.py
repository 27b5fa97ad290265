"""Paper U's netCDF cubes, one per part of the paper (step ``utrera_aggregate``).

Dimensions :data:`DIMS`; one variable per metric of
:func:`.metrics.run_metrics`, units on each, provenance in the attributes.
Runs of a policy that draws nothing (EASY on a fixed workload) were
simulated once; their values stand for every seed (attribute
``seed_independent_policies``). The other readings of the time model are
policies ``fcfs_malleable:<reading>``: each run's own ``policy`` label.
"""
from __future__ import annotations

import json
from pathlib import Path

from simlib.cube import build_cube, study_attrs, write_cube

from .metrics import METRIC_INFO, RUN_METRICS

__all__ = ["DIMS", "PARTS", "metrics_of", "records", "aggregate"]

#: Dimensions of each part's cube.
DIMS = {"table1": ["fit", "policy", "load", "seed"], "traces": ["trace", "policy", "seed"],
        "long_util": ["policy", "long_util", "seed"], "fig2": ["policy"],
        "whole_workloads": ["trace", "policy", "seed"]}
#: The parts, in the order of the paper (and of the index); then the optional one.
PARTS = ("fig2", "table1", "traces", "long_util", "whole_workloads")

_LONG_UTIL = {"long_name": "long jobs' CPU utilization", "units": "1"}
_INFO = {**METRIC_INFO, "long_util": ("1", _LONG_UTIL["long_name"], "")}


def metrics_of(part: str) -> list[str]:
    """Variables of a part's cube: the run metrics, and the offered load except for Fig. 2.

    Examples
    --------
    >>> metrics_of("fig2")[-1], metrics_of("traces")[-1]
    ('slowdown_long_wide', 'offered_load')
    """
    return list(RUN_METRICS) + (["offered_load"] if part != "fig2" else [])


def records(part: str, summaries, seeds) -> tuple[list[dict], set[str]]:
    """One record per cube cell of ``part`` (a key of :data:`DIMS`) from the simulation
    steps' ``summary.json`` (``schedules.json`` for fig2), and the policies simulated
    once: a run without a seed (a policy that draws nothing) stands for each of ``seeds``.

    Examples
    --------
    >>> s = {"policy": "easy", "runs": [{"trace": "T", "seed": None,
    ...                                  "metrics": {"mean_wait": 1.0}}]}
    >>> recs, fixed = records("traces", [s], [0, 1])
    >>> [(r["seed"], r["mean_wait"]) for r in recs], fixed
    ([(0, 1.0), (1, 1.0)], {'easy'})
    """
    metrics = metrics_of(part)
    out, fixed = [], set()
    for s in summaries:
        if part == "fig2":
            out += [{"policy": policy, **{m: d["metrics"].get(m) for m in metrics}}
                    for policy, d in s["policies"].items()]
            continue
        for run in s["runs"]:
            # Coordinates: the run's own (trace, load, long_util, policy
            # label), else the chunk's policy.
            base = {d: run.get(d, s["policy"]) if d == "policy" else run[d]
                    for d in DIMS[part] if d != "seed"}
            values = {m: run["metrics"].get(m) for m in metrics}
            if run["seed"] is None:
                fixed.add(base["policy"])
            out += [{**base, "seed": int(seed), **values}
                    for seed in (seeds if run["seed"] is None else [run["seed"]])]
    return out, fixed


def aggregate(ctx, study: str = "utrera", repo=None) -> None:
    """Step ``utrera_aggregate``: the cube of part ``{part}`` from its ``summaries``.

    Parameters ``subtree`` (the config the cube depends on: its provenance
    hash) and ``seeds``; ``study`` (the study's key) and ``repo`` (whose
    commit the cube records) are attributes.
    """
    part, scale = ctx.wildcards["part"], ctx.wildcards["scale"]
    subtree = ctx.params["subtree"]
    recs, fixed = records(part, (json.loads(Path(p).read_text()) for p in ctx.input.summaries),
                          ctx.params["seeds"])
    attrs = study_attrs(
        study, subtree, repo, part=part, scale=scale,
        title=f"paper U (Utrera et al.), {part}, {scale} scale",
        tau_s=float(subtree["simulation"]["tau"]),
        seed_independent_policies=", ".join(sorted(fixed)),
        seed_note=("seed = index of the OV draw of fcfs_malleable (and of the Lublin workload "
                   "in table1); policies in seed_independent_policies were simulated once and "
                   "repeated along seed"))
    write_cube(build_cube(recs, DIMS[part], metrics_of(part), attrs=attrs, metric_info=_INFO,
                          coord_info={"long_util": _LONG_UTIL}), ctx.output.cube, ctx.log)
