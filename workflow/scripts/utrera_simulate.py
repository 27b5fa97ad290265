"""Pipeline entry point: one chunk of paper U's runs (a point, all its seeds).

``params.kind``:

* ``table1`` -- one Table 1 workload per seed (input ``swfs``, in seed
  order); fcfs_malleable's OV seed is the seed index too.
* ``traces`` -- one trace portion (input ``swf``), one run per OV seed.
* ``long_util`` -- the trace portion with the long jobs' CPU utilization
  set to ``params.long_util`` (Sect. 5.1), one run per OV seed.

A policy that draws nothing (``params.seeded`` false, i.e. EASY on a fixed
workload) is simulated once; the aggregate step uses that run for every
seed. Outputs: ``summary`` (one record per run: coordinates, seed, metrics
of :func:`simlib.studies.utrera.run_metrics`), and ``jobs`` / ``timeline``
of the first run.
"""
import importlib
import time

from _common import job_log, write_json
from simlib.io import write_csv
from simlib.runner import simulate
from simlib.studies.utrera import run_metrics
from simlib.workload.prepare import offered_load
from simlib.workload.swf import read_swf
from simlib.workload.utrera import long_jobs, set_long_job_cpu_util


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        for module in snakemake.config.get("policy_modules") or []:
            importlib.import_module(module)
        seeds = list(p.seeds)
        if p.kind == "table1":
            paths = list(snakemake.input.swfs)
            plan = [(s, paths[i]) for i, s in enumerate(seeds)]
        else:
            plan = [(s, snakemake.input.swf) for s in (seeds if p.seeded else [None])]
        cache, runs = {}, []
        t0 = time.perf_counter()
        for i, (seed, path) in enumerate(plan):
            if path not in cache:
                wl = read_swf(path)
                if p.kind == "long_util":
                    n_long = int(long_jobs(wl).sum())
                    wl = set_long_job_cpu_util(wl, p.long_util, mode=p.long_util_mode)
                    log.info("%d long jobs set to CPU utilization %s (%s)", n_long, p.long_util,
                             p.long_util_mode)
                cache = {path: wl}  # one workload in memory at a time
            wl = cache[path]
            params = dict(p.policy_params)
            if p.seeded and seed is not None:
                params["seed"] = int(seed)
            res = simulate(wl, p.policy, cpus=p.cpus, policy_params=params,
                           overrun=p.simulation["overrun"],
                           debug=bool(snakemake.config["simulation"].get("debug", False)),
                           workload_name=f"{path}#seed{seed}", record_timeline=True)
            metrics = run_metrics(res, tau=p.simulation["tau"])
            metrics["offered_load"] = offered_load(wl, p.cpus)
            runs.append({**p.coords, "seed": seed, "workload": path, "policy_params": params,
                         "metrics": metrics})
            if i == 0:
                write_csv(res.jobs, snakemake.output.jobs, index=False, lineterminator="\n")
                # mtime 0: equal runs give equal bytes.
                write_csv(res.timeline, snakemake.output.timeline, index=False,
                          lineterminator="\n", compression={"method": "gzip", "mtime": 0})
            log.info("seed %s: response %.1f slowdown %.3f frag %.4f mpl %.3f", seed,
                     metrics["mean_response"], metrics["utrera_slowdown"],
                     metrics["utrera_fragmentation"], metrics["utrera_mean_mpl"])
        log.info("%d runs in %.2f s", len(runs), time.perf_counter() - t0)
        write_json({"kind": p.kind, "policy": p.policy, "seeded": bool(p.seeded),
                    "cpus": p.cpus, "coords": p.coords, "runs": runs}, snakemake.output.summary)


main(snakemake)  # noqa: F821
