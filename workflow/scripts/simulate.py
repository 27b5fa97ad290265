"""Pipeline entry point: simulate one (trace, policy, load) point.

Writes the per-job table in Batsim's ``jobs.csv`` schema (readable by
evalys) and ``summary.json`` (the run's coordinates, workload facts and
:func:`simlib.metrics.summarize` metrics), which the aggregate step reads.
"""
import importlib
import json
import time
from pathlib import Path

from _common import job_log, write_json
from simlib.io import write_csv
from simlib.metrics import summarize
from simlib.runner import simulate
from simlib.workload.swf import read_swf


def main(snakemake):
    p = snakemake.params
    w = snakemake.wildcards
    with job_log(snakemake) as log:
        # User policies register themselves on import (config policy_modules).
        for module in snakemake.config.get("policy_modules") or []:
            importlib.import_module(module)
        wl = read_swf(snakemake.input.swf)
        info = json.loads(Path(snakemake.input.info).read_text())
        name = f"{w.trace}@load{w.load}"
        log.info("%d jobs on %d CPUs, policy %s with params %s, overrun=%s",
                 len(wl.jobs), p.machine_procs, w.policy, p.policy_params, p.simulation["overrun"])
        t0 = time.perf_counter()
        res = simulate(wl, w.policy, cpus=p.machine_procs, policy_params=p.policy_params,
                       overrun=p.simulation["overrun"],
                       debug=bool(snakemake.config["simulation"].get("debug", False)),
                       workload_name=name, record_timeline=False)
        elapsed = time.perf_counter() - t0
        # Wall time goes to the log only: summary.json must be reproducible.
        log.info("simulated in %.3f s (%.0f jobs/s)", elapsed, len(wl.jobs) / max(elapsed, 1e-9))
        write_csv(res.jobs, snakemake.output.jobs, index=False, lineterminator="\n")
        metrics = summarize(res.jobs, p.machine_procs, tau=p.simulation["tau"])
        log.info("metrics: %s", metrics)
        write_json({
            "study": w.study,
            "scale": w.scale,
            "trace": w.trace,
            "policy": w.policy,
            "policy_params": p.policy_params,
            "load": p.target_load,
            "cpus": p.machine_procs,
            "jobs": len(res.jobs),
            "jobs_killed": int((res.jobs["success"] == 0).sum()),
            "offered_load": info["offered_load"],
            "interarrival_factor": info["interarrival_factor"],
            "overrun": p.simulation["overrun"],
            "tau": p.simulation["tau"],
            "metrics": metrics,
        }, snakemake.output.summary)


main(snakemake)  # noqa: F821
