"""Paper U (Utrera et al., FCFS-malleable): the simulations.

* :func:`simulate_with_allocations` -- a simulation that also records which
  CPUs every job held over time (Fig. 2's Gantt charts);
* the simulation steps of the study: :func:`simulate_fig2` (the toy
  example) and :func:`simulate_chunk` (one point of Table 1, the traces or
  Sect. 5.1, every seed).

What a run measures is in :mod:`simlib.studies.utrera.metrics`.
"""
from __future__ import annotations

import time
from collections.abc import Mapping

import pandas as pd

from simlib.engine.simulator import Simulator
from simlib.io import write_csv, write_json
from simlib.platform import Platform
from simlib.policies import make_policy
from simlib.runner import SimResult, batsim_table, jobs_from_workload, simulate
from simlib.studies.utrera.transforms import long_jobs, set_long_job_cpu_util, toy_workload
from simlib.workload.prepare import offered_load
from simlib.workload.swf import read_swf

from . import MALLEABLE
from .metrics import run_metrics

__all__ = ["simulate_with_allocations", "simulate_fig2", "simulate_chunk"]


class _AllocationLog:
    """Engine observer: every job's core set after each change (see Simulator.observe)."""

    def __init__(self) -> None:
        #: ``idx -> [(time, cpu ids or None when ended), ...]`` in event order.
        self.changes: dict[int, list[tuple[float, tuple[int, ...] | None]]] = {}

    def job_started(self, job, now):
        self.changes.setdefault(job.idx, []).append((now, tuple(sorted(job.alloc))))

    job_resized = job_started

    def job_ended(self, job, now):
        self.changes[job.idx].append((now, None))

    def segments(self) -> list[tuple[int, float, float, tuple[int, ...]]]:
        """``(idx, start, end, cpu ids)`` of maximal intervals on one core set."""
        rows = []
        for idx, changes in self.changes.items():
            # The state at a time is the one after its last change: a job
            # shrunk and expanded back in one round never left its cores.
            last: dict[float, tuple[int, ...] | None] = {}
            for now, ids in changes:
                last[now] = ids
            t0, held = None, None
            for now, ids in last.items():
                if ids == held:
                    continue
                if held is not None:
                    rows.append((idx, t0, now, held))
                t0, held = now, ids
            if held is not None:  # pragma: no cover - every job ends at an event
                raise RuntimeError(f"job index {idx} still running after the simulation")
        return rows


def simulate_with_allocations(workload, policy: str, *, cpus: int,
                              policy_params: Mapping | None = None, overrun: str = "kill",
                              workload_name: str = "") -> tuple[SimResult, pd.DataFrame]:
    """Simulate and record every job's CPU set over time (for Gantt charts).

    Returns the :class:`~simlib.runner.SimResult` and one row per
    *segment* (a maximal interval during which a job holds the same CPUs):
    ``job_id, procs, start, end, cpus, mpl, cpu_ids`` with ``mpl =
    procs / cpus`` (2 while shrunk) and ``cpu_ids`` a tuple of core ids.
    The engine reports each start, resize and end to an observer; a job's
    allocation at a time is the one it has after the last change at that
    time (within one round no simulated time passes).

    Examples
    --------
    >>> from simlib.studies.utrera.transforms import toy_workload
    >>> w = toy_workload([(0, 4, 2), (1, 2, 1)])
    >>> res, seg = simulate_with_allocations(w, "fcfs_malleable", cpus=4,
    ...                                      policy_params={"ov_max": 0.0})
    >>> [(r.job_id, r.start, r.end, r.cpus) for r in seg.itertuples()]
    [(1, 0.0, 1.0, 4), (1, 1.0, 2.0, 2), (1, 2.0, 2.5, 4), (2, 1.0, 2.0, 2)]
    """
    pol = make_policy(policy, **dict(policy_params or {}))
    platform = Platform.homogeneous(cpus)
    jobs = jobs_from_workload(workload, cpus=platform.cpus)
    sim = Simulator(platform, jobs, pol, overrun=overrun, record_timeline=True)
    log = sim.observe(_AllocationLog())
    sim.run()
    rows = log.segments()
    seg = pd.DataFrame([{
        "job_id": jobs[idx].job_id, "procs": jobs[idx].procs, "start": t0, "end": t1,
        "cpus": len(ids), "mpl": jobs[idx].procs / len(ids), "cpu_ids": ids,
    } for idx, t0, t1, ids in rows if t1 > t0],
        columns=["job_id", "procs", "start", "end", "cpus", "mpl", "cpu_ids"])
    seg = seg.sort_values(["job_id", "start"], kind="mergesort").reset_index(drop=True)
    timeline = pd.DataFrame(sim.timeline, columns=["time", "busy_cpus", "queued_jobs", "processes"])
    res = SimResult(batsim_table(jobs, workload_name), timeline, platform.cpus, pol.name, jobs)
    return res, seg


# --------------------------------------------------------------------------
# the simulation steps
# --------------------------------------------------------------------------
def simulate_fig2(ctx) -> None:
    """Step ``utrera_fig2``: the toy example of Fig. 2 under each policy.

    Runs the hand-made jobs (``params.fig2``) under each of
    ``params.policies``, recording every job's CPU set over time (the
    Gantt charts) and the example's metrics (:func:`run_metrics`).
    fcfs_malleable runs with the study's parameters overridden by
    ``fig2.malleable_params`` (the paper's footnote: no overhead). Output
    ``schedules``: one JSON with, per policy, its parameters, metrics and
    segments (:func:`simulate_with_allocations`).

    Parameters
    ----------
    ctx : simlib.studies.StepContext
    """
    p = ctx.params
    fig2 = p["fig2"]
    wl = toy_workload(fig2["jobs"], name="paper U Fig. 2")
    out = {"cpus": fig2["cpus"], "jobs": fig2["jobs"], "policies": {}}
    for policy in p["policies"]:
        params = ({**p["malleable"], **(fig2.get("malleable_params") or {})}
                  if policy == MALLEABLE else {})
        res, seg = simulate_with_allocations(wl, policy, cpus=fig2["cpus"], policy_params=params,
                                             overrun=p["simulation"]["overrun"],
                                             workload_name="fig2")
        metrics = run_metrics(res, tau=p["simulation"]["tau"])
        ctx.log.info("%s: %s", policy, {k: metrics[k] for k in
                                        ("mean_response", "utrera_slowdown",
                                         "utrera_fragmentation")})
        out["policies"][policy] = {
            "params": params,
            "metrics": metrics,
            # JSON has no tuples.
            "segments": [{**r, "cpu_ids": list(r["cpu_ids"])} for r in seg.to_dict("records")],
        }
    write_json(out, ctx.output.schedules)


def simulate_chunk(ctx) -> None:
    """Steps ``utrera_simulate_{table1,traces,long_util}``: one point, every seed.

    ``params.kind`` says what a run is:

    * ``table1`` -- one Table 1 workload per seed (input ``swfs``, in seed
      order); fcfs_malleable's OV seed is the seed index too.
    * ``traces`` -- one trace portion (input ``swf``), one run per OV seed.
    * ``long_util`` -- the trace portion with the long jobs' CPU
      utilization set to ``params.long_util`` (Sect. 5.1), one run per OV
      seed.

    A policy that draws nothing (``params.seeded`` false, i.e. EASY on a
    fixed workload) is simulated once; the cube uses that run for every
    seed. Outputs: ``summary`` (one record per run: coordinates, seed,
    metrics of :func:`run_metrics` and the offered load), and ``jobs``
    (Batsim columns) / ``timeline`` of the first run.

    Parameters
    ----------
    ctx : simlib.studies.StepContext
    """
    p = ctx.params
    seeds = list(p["seeds"])
    if p["kind"] == "table1":
        plan = list(zip(seeds, ctx.input.swfs, strict=True))
    else:
        plan = [(s, ctx.input.swf) for s in (seeds if p["seeded"] else [None])]
    debug = bool((ctx.config.get("simulation") or {}).get("debug", False))
    cache, runs = {}, []
    t0 = time.perf_counter()
    for i, (seed, path) in enumerate(plan):
        if path not in cache:
            wl = read_swf(path)
            if p["kind"] == "long_util":
                n_long = int(long_jobs(wl).sum())
                wl = set_long_job_cpu_util(wl, p["long_util"], mode=p["long_util_mode"])
                ctx.log.info("%d long jobs set to CPU utilization %s (%s)", n_long,
                             p["long_util"], p["long_util_mode"])
            cache = {path: wl}  # one workload in memory at a time
        wl = cache[path]
        params = dict(p["policy_params"])
        if p["seeded"] and seed is not None:
            params["seed"] = int(seed)
        res = simulate(wl, p["policy"], cpus=p["cpus"], policy_params=params,
                       overrun=p["simulation"]["overrun"], debug=debug,
                       workload_name=f"{path}#seed{seed}", record_timeline=True)
        metrics = run_metrics(res, tau=p["simulation"]["tau"])
        metrics["offered_load"] = offered_load(wl, p["cpus"])
        runs.append({**p["coords"], "seed": seed, "workload": path, "policy_params": params,
                     "metrics": metrics})
        if i == 0:
            write_csv(res.jobs, ctx.output.jobs, index=False, lineterminator="\n")
            # mtime 0: equal runs give equal bytes.
            write_csv(res.timeline, ctx.output.timeline, index=False, lineterminator="\n",
                      compression={"method": "gzip", "mtime": 0})
        ctx.log.info("seed %s: response %.1f slowdown %.3f frag %.4f mpl %.3f", seed,
                     metrics["mean_response"], metrics["utrera_slowdown"],
                     metrics["utrera_fragmentation"], metrics["utrera_mean_mpl"])
    ctx.log.info("%d runs in %.2f s", len(runs), time.perf_counter() - t0)
    write_json({"kind": p["kind"], "policy": p["policy"], "seeded": bool(p["seeded"]),
                "cpus": p["cpus"], "coords": p["coords"], "runs": runs}, ctx.output.summary)
