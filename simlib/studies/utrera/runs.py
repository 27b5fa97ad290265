"""Paper U (Utrera et al., FCFS-malleable): the simulations.

* :func:`simulate_with_allocations` -- a simulation that also records which
  CPUs every job held over time (Fig. 2's Gantt charts);
* the simulation steps of the study: :func:`simulate_fig2` (the toy
  example, under its policies or under every other reading of the time
  model) and :func:`simulate_chunk` (one point of Table 1, the traces,
  Sect. 5.1 or a whole workload, every seed, optionally every reading).

What a run measures is in :mod:`simlib.studies.utrera.metrics`.
"""
from __future__ import annotations

import json
import time
from collections.abc import Mapping

import pandas as pd

from simlib.engine.simulator import Simulator, gc_paused
from simlib.io import GZIP, write_csv, write_json
from simlib.platform import Platform
from simlib.policies import POLICIES, make_policy
from simlib.runner import SimResult, batsim_table, jobs_from_workload, simulate, timeline_frame
from simlib.studies.utrera.transforms import long_jobs, set_long_job_cpu_util, toy_workload
from simlib.workload.prepare import offered_load
from simlib.workload.swf import read_swf

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
    timeline = timeline_frame(sim.timeline)
    res = SimResult(batsim_table(jobs, workload_name), timeline, platform.cpus, pol.name, jobs)
    sim.close()  # the run is freed with its result, not at the next collection
    return res, seg


# --------------------------------------------------------------------------
# the simulation steps
# --------------------------------------------------------------------------
def simulate_fig2(ctx) -> None:
    """Step ``utrera_fig2``: the toy example of Fig. 2 under each of ``params.variants``.

    ``variants``: label -> ``policy`` and ``params`` (wildcard ``runs``
    "schedules": each policy of ``fig2.policies``; "readings": fcfs_malleable
    under every other reading, see :meth:`Utrera.fig2_variants
    <simlib.studies.utrera.Utrera.fig2_variants>`). Runs the hand-made jobs
    (``params.fig2``), recording every job's CPU set over time (the Gantt
    charts) and the example's metrics (:func:`run_metrics`). Output
    ``schedules``: one JSON with, per label, its parameters, metrics and
    segments (:func:`simulate_with_allocations`).
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


def simulate_chunk(ctx) -> None:
    """Steps ``utrera_simulate_{table1,traces,long_util,whole_workloads}``: one point, every seed.

    ``params.kind`` says what a run is:

    * ``table1`` -- one Table 1 workload per seed (input ``swfs``, in seed
      order); fcfs_malleable's OV seed is the seed index too.
    * ``traces`` -- one trace portion (input ``swf``), one run per OV seed.
    * ``long_util`` -- the trace portion with the long jobs' CPU
      utilization set to ``params.long_util`` (Sect. 5.1), one run per OV
      seed.

    A policy that draws nothing (``params.seeded`` false, i.e. EASY on a
    fixed workload) is simulated once; the cube uses that run for every
    seed. With ``params.variants`` (policy label -> parameters: the other
    readings of the time model), each workload and seed runs under every
    variant, and each run records its label as coordinate ``policy``;
    variants with equal parameters are simulated once, and so are the seeds
    of a reading whose runs draw nothing (``Policy.draws``: FCFS-malleable
    without OV), each seed keeping its record. Outputs:
    ``summary`` (one record per run: coordinates, seed, metrics of
    :func:`run_metrics` and the offered load), and ``jobs`` (Batsim
    columns) / ``timeline`` of the first run.
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
    cache, runs, first = {}, [], True
    # Equal parameters (two names of one reading, or seeds of a reading that
    # draws nothing: Policy.draws) on one workload: one run.
    done = {}
    policy_class = POLICIES[p["policy"]]
    t0 = time.perf_counter()
    # runner.simulate closes its simulator (no reference cycle left), so the
    # collector can stay paused over the set: see Simulator.close.
    with gc_paused():
        for seed, path in plan:
            if path not in cache:
                wl = read_swf(path)
                if p["kind"] == "long_util":
                    n_long = int(long_jobs(wl).sum())
                    wl = set_long_job_cpu_util(wl, p["long_util"], mode=p["long_util_mode"])
                    ctx.log.info("%d long jobs set to CPU utilization %s (%s)", n_long,
                                 p["long_util"], p["long_util_mode"])
                cache = {path: wl}  # one workload in memory at a time
            wl = cache[path]
            for label, vparams in variants.items():
                params = dict(vparams)
                if p["seeded"] and seed is not None:
                    params["seed"] = int(seed)
                draws = policy_class.draws(params)
                same = {k: v for k, v in params.items() if draws or k != "seed"}
                key = (path, json.dumps(same, sort_keys=True, default=str))
                if key not in done:
                    res = simulate(wl, p["policy"], cpus=p["cpus"], policy_params=params,
                                   overrun=p["simulation"]["overrun"], debug=debug,
                                   workload_name=f"{path}#seed{seed}", record_timeline=True)
                    metrics = run_metrics(res, tau=p["simulation"]["tau"])
                    metrics["offered_load"] = offered_load(wl, p["cpus"])
                    done[key] = metrics
                    if first:
                        write_csv(res.jobs, ctx.output.jobs, index=False, lineterminator="\n")
                        # mtime 0: equal runs give equal bytes.
                        write_csv(res.timeline, ctx.output.timeline, index=False,
                                  lineterminator="\n", compression=GZIP)
                        first = False
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
