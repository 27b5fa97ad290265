"""Paper U's simulation steps: :func:`simulate_fig2` (the toy example, every job's CPU set
over time for the Gantt charts) and :func:`simulate_chunk` (one point of Table 1, the
traces, Sect. 5.1 or a whole workload, every seed, optionally every reading).

What a run measures is in :mod:`simlib.studies.utrera.metrics`.
"""
from __future__ import annotations

import json
import time

from simlib.allocations import simulate_with_allocations
from simlib.engine.simulator import gc_paused
from simlib.io import GZIP, write_csv, write_json
from simlib.policies import POLICIES
from simlib.runner import simulate
from simlib.studies.utrera.transforms import long_jobs, set_long_job_cpu_util, toy_workload
from simlib.workload.prepare import offered_load
from simlib.workload.swf import read_swf

from .metrics import run_metrics

__all__ = ["simulate_fig2", "simulate_chunk"]


def simulate_fig2(ctx) -> None:
    """Step ``utrera_fig2``: the toy example of Fig. 2 (``params.fig2``) under each of
    ``params.variants`` (label -> ``policy`` and ``params``: :meth:`Utrera.fig2_variants
    <simlib.studies.utrera.study.Utrera.fig2_variants>`).

    Output ``schedules``: one JSON with, per label, its parameters, metrics
    (:func:`run_metrics`) and segments (:func:`simulate_with_allocations`).
    """
    p = ctx.params
    fig2, sim = p["fig2"], p["simulation"]
    wl = toy_workload(fig2["jobs"], name="paper U Fig. 2")
    out = {"cpus": fig2["cpus"], "jobs": fig2["jobs"], "policies": {}}
    for label, v in p["variants"].items():
        res, seg = simulate_with_allocations(wl, v["policy"], cpus=fig2["cpus"],
                                             policy_params=v["params"], overrun=sim["overrun"],
                                             workload_name="fig2")
        metrics = run_metrics(res, tau=sim["tau"])
        ctx.log.info("%s: %s", label, {k: metrics[k] for k in
                                       ("mean_response", "utrera_slowdown", "utrera_fragmentation")})
        # JSON has no tuples.
        out["policies"][label] = {
            "params": dict(v["params"]), "metrics": metrics,
            "segments": [{**r, "cpu_ids": list(r["cpu_ids"])} for r in seg.to_dict("records")]}
    write_json(out, ctx.output.schedules)


def _workload(p: dict, path: str, log):
    """The workload of a run; Sect. 5.1's with its long jobs' CPU utilization set."""
    wl = read_swf(path)
    if p["kind"] == "long_util":
        n_long = int(long_jobs(wl).sum())
        wl = set_long_job_cpu_util(wl, p["long_util"], mode=p["long_util_mode"])
        log.info("%d long jobs set to CPU utilization %s (%s)", n_long, p["long_util"],
                 p["long_util_mode"])
    return wl


def simulate_chunk(ctx) -> None:
    """Steps ``utrera_simulate_{table1,traces,long_util,whole_workloads}``: one point, every seed.

    ``params.kind`` ``table1``: one workload per seed (input ``swfs``; the
    OV seed is the seed index too); otherwise one workload (input ``swf``)
    and one run per OV seed. A policy that draws nothing (``params.seeded``
    false: EASY on a fixed workload) is simulated once; the cube uses that
    run for every seed. With ``params.variants`` (policy label -> parameters:
    the other readings), every workload and seed runs under each, labelled
    as coordinate ``policy``; equal parameters on one workload (two names of
    one reading, or the seeds of a reading that draws nothing:
    ``Policy.draws``) are simulated once. Outputs: ``summary`` (one record
    per run: coordinates, seed, metrics and offered load) and the first
    run's ``jobs`` (Batsim columns) and ``timeline``.
    """
    p = ctx.params
    seeds = list(p["seeds"])
    if p["kind"] == "table1":
        plan = list(zip(seeds, ctx.input.swfs, strict=True))
    else:
        plan = [(s, ctx.input.swf) for s in (seeds if p["seeded"] else [None])]
    debug = bool((ctx.config.get("simulation") or {}).get("debug", False))
    # None: the chunk's one policy, coordinates as given (no label of its own).
    variants = p.get("variants") or {None: p["policy_params"]}
    draws = POLICIES[p["policy"]].draws
    runs, done, current, t0 = [], {}, None, time.perf_counter()
    # runner.simulate closes its simulator (no reference cycle left), so the
    # collector can stay paused over the set: see Simulator.close.
    with gc_paused():
        for seed, path in plan:
            if path != current:  # one workload in memory at a time
                wl, current = _workload(p, path, ctx.log), path
            for label, vparams in variants.items():
                params = {**vparams, **({"seed": int(seed)} if p["seeded"] and seed is not None
                                        else {})}
                same = {k: v for k, v in params.items() if draws(params) or k != "seed"}
                key = (path, json.dumps(same, sort_keys=True, default=str))
                if key not in done:
                    res = simulate(wl, p["policy"], cpus=p["cpus"], policy_params=params,
                                   overrun=p["simulation"]["overrun"], debug=debug,
                                   workload_name=f"{path}#seed{seed}", record_timeline=True)
                    done[key] = {**run_metrics(res, tau=p["simulation"]["tau"]),
                                 "offered_load": offered_load(wl, p["cpus"])}
                    if len(done) == 1:
                        write_csv(res.jobs, ctx.output.jobs, index=False, lineterminator="\n")
                        # mtime 0: equal runs give equal bytes.
                        write_csv(res.timeline, ctx.output.timeline, index=False,
                                  lineterminator="\n", compression=GZIP)
                metrics = dict(done[key])
                coords = {**p["coords"], **({"policy": label} if label is not None else {})}
                runs.append({**coords, "seed": seed, "workload": path, "policy_params": params,
                             "metrics": metrics})
                ctx.log.info("%sseed %s: response %.1f slowdown %.3f frag %.4f mpl %.3f",
                             f"{label} " if label else "", seed, metrics["mean_response"],
                             metrics["utrera_slowdown"], metrics["utrera_fragmentation"],
                             metrics["utrera_mean_mpl"])
    ctx.log.info("%d runs in %.2f s", len(runs), time.perf_counter() - t0)
    write_json({"kind": p["kind"], "policy": p["policy"], "seeded": bool(p["seeded"]),
                "cpus": p["cpus"], "coords": p["coords"], "runs": runs}, ctx.output.summary)
