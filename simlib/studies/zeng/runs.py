"""Paper Z's simulations: one workload under Scojo-PECT on the multi-core machine.

:func:`run` turns a workload table (:mod:`.workloads`) into engine jobs, runs
the policy on 128 nodes of two dual-core CPUs (or, for §4.8's validation, the
unadjusted jobs on 128 single-core nodes) and returns what the metrics need:
the per-job table, the physical usage over time, the slices and the
policy's counters. :func:`simulate_step` and :func:`glts_step` are the pipeline's steps.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...engine.job import Job
from ...engine.simulator import Simulator, gc_paused
from ...platform import Platform
from ...policies import make_policy

__all__ = ["RunResult", "RunningPeriods", "run", "machine", "engine_jobs", "simulate_step",
           "glts_step", "MACHINES"]

#: The machines of a run: paper Z's (§5.1) and §4.8's reference machine.
MACHINES = ("multicore", "single_core")


@dataclass
class RunResult:
    """One run's outputs (see :func:`run`)."""

    jobs: pd.DataFrame
    usage: pd.DataFrame
    slices: pd.DataFrame
    counters: dict
    seconds: float
    segments: pd.DataFrame


def machine(kind: str, nodes: int) -> Platform:
    """``nodes`` nodes of 2 dual-core CPUs (``multicore``) or of one core."""
    if kind == "multicore":
        return Platform.homogeneous(4 * nodes, cores_per_node=4, sockets_per_node=2,
                                    name=f"{nodes}x2x2cores")
    if kind == "single_core":
        return Platform.homogeneous(nodes, name=f"{nodes}x1core")
    raise ValueError(f"unknown machine {kind!r}; choices: {', '.join(MACHINES)}")


def engine_jobs(frame: pd.DataFrame, kind: str = "multicore") -> list[Job]:
    """Engine jobs of a workload table.

    On the multi-core machine a job has its adjusted size, its self
    slowdowns and its formula-8 PPN; on the single-core machine (§4.8's
    reference) the Lublin size, PPN 1 and no slowdown.
    """
    single = kind == "single_core"
    sizes = frame["orig_size" if single else "size"].to_numpy()
    out = []
    cols = [frame[c].to_numpy() for c in ("job_id", "submit", "runtime", "estimate",
                                          "sl_scr", "sl_sno", "ppn")]
    for i, (jid, submit, runtime, est, scr, sno, ppn) in enumerate(zip(*cols)):
        job = Job(i, int(jid), float(submit), int(sizes[i]), float(est), float(runtime))
        job.features = ({"sl_scr": 1.0, "sl_sno": 1.0, "ppn": 1} if single else
                        {"sl_scr": float(scr), "sl_sno": float(sno), "ppn": int(ppn)})
        out.append(job)
    return out


class RunningPeriods:
    """Each job's running periods: its total time running (its pace may change
    in paper Z's groups) and, within ``window``, the periods themselves as rows
    ``(job_id, vm, start, end, cores)`` for the Gantt chart."""

    def __init__(self, policy, window: tuple[float, float] | None = None) -> None:
        self.policy, self.window = policy, window
        self.open: dict[int, float] = {}
        self.total: dict[int, float] = {}
        self.rows: list[tuple] = []

    def job_started(self, job, now):
        self.open[job.idx] = now

    job_resumed = job_started

    def job_suspended(self, job, now):
        start = self.open.pop(job.idx)
        self.total[job.idx] = self.total.get(job.idx, 0.0) + now - start
        if self.window is not None and start < self.window[1] and now > self.window[0]:
            cpus = self.policy.cpus
            cores = sorted(c % cpus for c in job.alloc)
            self.rows.append((job.job_id, self.policy.plan[job.idx][0], start, now,
                              " ".join(map(str, cores))))

    job_ended = job_suspended


def run(frame: pd.DataFrame, *, policy: str = "scojo_pect", params: dict | None = None,
        nodes: int = 128, kind: str = "multicore", debug: bool = False,
        window: tuple[float, float] | None = None, cos=None) -> RunResult:
    """Simulate one workload table; the per-job table, usage, slices, counters.

    Per-job columns: ``job_id, type, size, ppn, submission_time, starting_time,
    finish_time, runtime`` (T_i: the workload's runtime at one process per
    node), ``executed`` (wall time running, slowdowns included, no slicing),
    ``r_est`` (§4.1's estimate) and ``v_reserved``/``v_started`` (virtual times).
    """
    jobs = engine_jobs(frame, kind)
    if cos is not None:  # coscheduling slowdowns, for policies that share nodes
        for job in jobs:
            job.features["sl_cos"] = cos
    pol = make_policy(policy, **(params or {}))
    sim = Simulator(machine(kind, nodes), jobs, pol, debug=debug, record_timeline=False)
    periods = sim.observe(RunningPeriods(pol, window))
    t0 = time.perf_counter()
    sim.run()
    seconds = time.perf_counter() - t0
    n = len(jobs)
    rate, work = np.array([pol.plan[i][4] for i in range(n)]), np.array([j.work for j in jobs])
    plan = [pol.plan[i] for i in range(n)]
    table = pd.DataFrame({
        "job_id": [j.job_id for j in jobs], "type": [q[0] for q in plan],
        "size": [j.procs for j in jobs], "ppn": [q[1] for q in plan], "nodes": [q[2] for q in plan],
        "submission_time": [j.submit for j in jobs], "starting_time": [j.start for j in jobs],
        "finish_time": [j.finish for j in jobs], "waiting_time": [j.start - j.submit for j in jobs],
        "runtime": frame["runtime"].to_numpy(dtype=float),
        # A job whose pace never changes runs its work over its rate (exact,
        # as the golden cubes hold it); grouped jobs change pace: measured.
        "executed": (work / rate if cos is None
                     else np.array([periods.total.get(i, 0.0) for i in range(n)])),
        "r_est": [pol.r_est[i] for i in range(n)],
        "v_reserved": [pol.v_reserved[i] for i in range(n)],
        "v_started": [pol.v_started[i] for i in range(n)],
    })
    # Column names of simlib.metrics' timelines: cores and nodes in use by
    # running processes, waiting (not yet started) jobs.
    usage = pd.DataFrame(pol.usage, columns=["time", "busy_nodes", "busy_cpus", "queued_jobs"])
    slices = pd.DataFrame(pol.slice_log, columns=["start", "effective", "end", "vm"])
    segments = pd.DataFrame(periods.rows, columns=["job_id", "vm", "start", "end", "cores"])
    counters = {"slice_switches": pol.switches, "preemptions": pol.preemptions,
                "simulated_seconds": seconds, "jobs": n}
    if hasattr(pol, "group_stats"):
        counters.update(pol.group_stats())
    sim.close()  # the run is freed with its result, not at the next collection
    return RunResult(table, usage, slices, counters, seconds, segments)


# The steps keep the cyclic garbage collector paused over their runs
# (gc_paused, as paper U's steps do): run() closes its simulator, so a run
# leaves no reference cycle and reference counting frees it when run()
# returns; a collector switched back on at the end of Simulator.run instead
# traversed every object the run still held (jobs, plans, caches), about
# 2 % of a step, once per run.


def _summary(res: RunResult, kind: str, p: dict) -> dict:
    """:func:`.summaries.summary` of a run with the step's ``nodes``, ``rr_bound(s)``, ``n_high``."""
    from .summaries import summary
    return summary(res, nodes=p["nodes"], kind=kind, bound=p["rr_bound"], bounds=p["rr_bounds"],
                   n_high=p["n_high"])


def simulate_step(ctx) -> None:  # pragma: no cover - exercised through the pipeline tests
    """Pipeline step: one (workload, seed, machine) run -> summary JSON, day's segments."""
    from ...io import write_csv, write_json
    from .workloads import read_workload
    p, w = ctx.params, ctx.wildcards
    frame = read_workload(ctx.input.workload)
    t0 = float(frame["submit"].min()) + 86400.0 * p["gantt_day"]
    with gc_paused():  # see above simulate_step
        res = run(frame, params=p["policy_params"], nodes=p["nodes"], kind=w["machine"],
                  window=(t0, t0 + 86400.0))
    write_json({"workload": w["workload"], "seed": int(w["seed"]), "machine": w["machine"],
                **_summary(res, w["machine"], p)}, ctx.output.summary)
    write_csv(res.segments, ctx.output.segments, index=False)
    day = res.slices[(res.slices["end"] > t0) & (res.slices["start"] < t0 + 86400.0)].copy()
    day["window_start"] = t0
    write_csv(day, ctx.output.slices, index=False)
    ctx.log.info("simulated %d jobs in %.1f s", len(frame), res.seconds)


def glts_step(ctx) -> None:  # pragma: no cover - exercised through the pipeline tests
    """Steps ``zeng_simulate_glts``, ``zeng_sweep`` and ``zeng_simulate_reading``: the
    G-LOMARC-TS variants on one (workload, seed) -> summary JSON, each variant's metrics and
    group counters; a sweep's run has one parameter at one value (``parameter``, ``value``;
    aggregated by :mod:`.sweeps`), a reading's run the reading's switches (``reading``)."""
    from ...io import write_json
    from .slowdowns import CoschedulingSlowdowns
    from .workloads import read_workload
    p = ctx.params
    frame = read_workload(ctx.input.workload)
    seed = int(ctx.wildcards["seed"])
    sweep = {p["parameter"]: p["value"]} if "parameter" in p else {}
    out = {**({k: p[k] for k in ("parameter", "value", "workload")} if sweep else
              {"workload": ctx.wildcards["workload"]}), "seed": seed, "variants": {}}
    if "reading" in p:   # step zeng_simulate_reading
        out["reading"] = p["reading"]
    with gc_paused():  # over all the runs: see above simulate_step
        for variant in p["variants"]:
            res = run(frame, policy="glomarc_ts", nodes=p["nodes"],
                      params={**p["policy_params"], "variant": variant, **sweep},
                      cos=CoschedulingSlowdowns(p["table4"], seed))
            out["variants"][variant] = {**_summary(res, "multicore", p), **{
                k: float(v) for k, v in res.counters.items() if k not in ("simulated_seconds", "jobs")}}
            ctx.log.info("%s%s: %d jobs in %.1f s, %d groups", variant,
                         "".join(f", {k} = {v}" for k, v in sweep.items()), len(frame), res.seconds,
                         res.counters.get("groups", 0))
    write_json(out, ctx.output.summary)
