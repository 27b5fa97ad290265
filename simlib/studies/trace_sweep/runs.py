"""The steps of a trace sweep (:class:`~simlib.studies.trace_sweep.TraceSweep`): one run, one cube."""
from __future__ import annotations

import json
import time
from pathlib import Path

from ...io import write_csv, write_json
from ..base import StepContext

__all__ = ["simulate_point", "aggregate", "SUMMARY_EXTRA", "DIMS"]

#: Per-run workload facts stored in the cube beside the metrics.
SUMMARY_EXTRA = {
    "offered_load": ("1", "offered load reached",
                     "sum(size * runtime) / (CPUs * submit span) of the rescaled workload"),
    "interarrival_factor": ("1", "inter-arrival scale factor",
                            "factor multiplying the trace's inter-arrival times to reach the target load"),
    "jobs": ("1", "jobs simulated", "number of jobs in the run"),
    "jobs_killed": ("1", "jobs killed at their requested time",
                    "jobs whose runtime exceeded their request (overrun policy 'kill')"),
}

#: The cube's dimensions.
DIMS = ["policy", "trace", "load"]


def simulate_point(ctx: StepContext) -> None:
    """One (trace, policy, load): Batsim ``jobs.csv`` and ``summary.json``."""
    from ...metrics import summarize
    from ...runner import simulate
    from ...workload.swf import read_swf
    p, w = ctx.params, ctx.wildcards
    wl = read_swf(ctx.input.swf)
    info = json.loads(Path(ctx.input.info).read_text())
    ctx.log.info("%d jobs on %d CPUs, policy %s with params %s, overrun=%s", len(wl.jobs),
                 p["machine_procs"], w["policy"], p["policy_params"], p["simulation"]["overrun"])
    t0 = time.perf_counter()
    res = simulate(wl, w["policy"], cpus=p["machine_procs"], policy_params=p["policy_params"],
                   overrun=p["simulation"]["overrun"],
                   debug=bool(ctx.config["simulation"].get("debug", False)),
                   workload_name=f"{w['trace']}@load{w['load']}", record_timeline=False)
    elapsed = time.perf_counter() - t0
    # Wall time goes to the log only: summary.json must be reproducible.
    ctx.log.info("simulated in %.3f s (%.0f jobs/s)", elapsed, len(wl.jobs) / max(elapsed, 1e-9))
    write_csv(res.jobs, ctx.output.jobs, index=False, lineterminator="\n")
    metrics = summarize(res.jobs, p["machine_procs"], tau=p["simulation"]["tau"])
    ctx.log.info("metrics: %s", metrics)
    write_json({
        "study": p["study"], "scale": w["scale"], "trace": w["trace"], "policy": w["policy"],
        "policy_params": p["policy_params"], "load": p["target_load"],
        "cpus": p["machine_procs"], "jobs": len(res.jobs),
        "jobs_killed": int((res.jobs["success"] == 0).sum()),
        "offered_load": info["offered_load"],
        "interarrival_factor": info["interarrival_factor"],
        "overrun": p["simulation"]["overrun"], "tau": p["simulation"]["tau"],
        "metrics": metrics,
    }, ctx.output.summary)


def aggregate(ctx: StepContext) -> None:
    """The sweep's cube from its run summaries."""
    from ...cube import build_cube, provenance, write_cube
    records, metric_names = [], None
    for path in ctx.input.summaries:
        s = json.loads(Path(path).read_text())
        if metric_names is None:
            metric_names = list(s["metrics"])
        rec = {"policy": s["policy"], "trace": s["trace"], "load": float(s["load"])}
        rec.update({m: s["metrics"].get(m) for m in metric_names})
        rec.update({k: s[k] for k in SUMMARY_EXTRA})
        records.append(rec)
    subtree, key = ctx.params["subtree"], ctx.params["study"]
    attrs = provenance(subtree, repo_dir=ctx.repo)
    attrs.update({
        "study": key,
        "scale": ctx.scale,
        "title": f"{key} study, {ctx.scale} scale",
        "config_subtree": json.dumps(subtree, sort_keys=True),
        "tau_s": float(subtree["simulation"]["tau"]),
        "load_method": "inter-arrival times multiplied by one factor per (trace, load)",
    })
    cube = build_cube(records, DIMS, metric_names + list(SUMMARY_EXTRA), attrs=attrs,
                      metric_info=SUMMARY_EXTRA)
    write_cube(cube, ctx.output.cube)
    ctx.log.info("cube %s: dims %s, variables %s", ctx.output.cube, dict(cube.sizes),
                 list(cube.data_vars))
