"""Paper K's simulations: one policy on every run of one workload set, and the Fig. 2 example.

A simulation chunk (one Snakemake job, :func:`simulate_step`) is one
(sweep, workload variant, policy) over every load x seed (x C_s for the
swept policy); a 500-job run takes ~0.05 s.
"""
from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ...engine.simulator import gc_paused
from ...errors import ConfigError
from ...io import GZIP, write_csv, write_json
from ...metrics import kumar_slowdown, summarize
from ...policies import make_policy
from ...runner import simulate
from ...table import Table
from ...workload.cwf import command_events, read_cwf, split_commands
from ..base import load_tag
from .plan import cs_param, spec_runs, workload_file

__all__ = ["run_metrics", "simulate_set", "simulate_step", "fig2_example"]
_LOG = logging.getLogger(__name__)


def run_metrics(res, jobs_workload, cpus: int, policy, *, tau: float = 10.0) -> dict:
    """Metrics of one run of ``policy`` (the instance simulated) on ``jobs_workload``:
    :func:`summarize`'s, the paper's slowdown, dedicated jobs' timeliness (from the
    ``requested_start`` column), the ECC processor's commands, Delayed-LOS's forced starts.
    """
    # The run's table as numpy columns: a DataFrame per run cost ~5 % of a step.
    table = res.table
    out = summarize(table, cpus, tau=tau)
    out["kumar_slowdown"] = kumar_slowdown(table)
    # Requested start of each result row, by job id (NaN if unknown): a dict
    # lookup per row, what Series.map does, without its per-call overhead.
    wl = jobs_workload.jobs
    rs = dict(zip(map(str, wl["job_id"].tolist()), wl["requested_start"].to_numpy(float).tolist()))
    req = np.fromiter((rs.get(j, math.nan) for j in table["job_id"].tolist()), float, len(table))
    ded = req >= 0
    if ded.any():
        delay = np.asarray(table["starting_time"], dtype=float)[ded] - req[ded]
        out["dedicated_mean_delay"] = float(delay.mean())
        out["dedicated_on_time"] = float(np.mean(delay <= 0.5))
    else:
        out["dedicated_mean_delay"] = out["dedicated_on_time"] = math.nan
    out["dedicated_jobs"] = int(ded.sum())
    ecc = getattr(policy, "ecc", None)
    out["commands_applied"] = float(ecc.applied) if ecc is not None else math.nan
    # Whether a command found its job running (the estimate of a planned job
    # moves) or queued (only a job not yet planned changes).
    out["commands_on_running"] = (ecc.hits["running"] / ecc.applied
                                  if ecc is not None and ecc.applied else math.nan)
    # Delayed-LOS's skip limit at work: heads started because they reached C_s.
    out["forced_starts"] = float(getattr(policy, "forced_starts", math.nan))
    out["max_skip_count"] = float(getattr(policy, "max_skips", math.nan))
    return out



def simulate_set(spec: Mapping, workload_dir, *, picks: Mapping | None = None,
                 overrun: str = "kill", tau: float = 10.0, debug: bool = False,
                 log=_LOG) -> tuple[list[dict], Table]:
    """Simulate one policy on every run of a workload set (:func:`.workloads.generate_set`)
    as ``spec`` says (:meth:`.plan.KumarPlan.simulation_spec`; ``picks``:
    :func:`.cubes.picks_document`, needed when ``spec["cs"] == "pick"``).

    Returns ``(records, jobs)``: one record per run (coordinates workload, policy,
    load, seed, cs; :func:`run_metrics`; the workload's facts, :data:`.cubes.RUN_INFO`),
    and every run's per-job table (Batsim ``jobs.csv`` columns) after the columns
    ``load, seed, cs`` (``cs`` -1: none).
    """
    workload, policy = spec["workload"], spec["policy"]
    pick = None
    if spec["cs"] == "pick":
        if picks is None:
            raise ConfigError(f"{policy} on {workload}: no C_s pick given")
        key = load_tag(spec["p_s"])
        if key not in picks["by_p_s"]:
            raise ConfigError(f"{policy} on {workload}: the C_s sweep picked no C_s for "
                              f"P_S = {spec['p_s']} (picks for {sorted(picks['by_p_s'])})")
        pick = int(picks["by_p_s"][key])
    machine = int(spec["machine_procs"])
    index = json.loads((Path(workload_dir) / "index.json").read_text(encoding="utf-8"))
    facts = {(float(e["load"]), int(e["seed"])): e for e in index["entries"]}
    records, tables = [], []
    # runner.simulate closes its simulator (no reference cycle left), so the
    # collector can stay paused over the set: see Simulator.close.
    read = {}  # the last workload read: a C_s sweep runs it once per C_s
    with gc_paused():
        for run in spec_runs(spec, pick):
            load, seed, cs = run["load"], run["seed"], run["cs"]
            if (load, seed) not in read:
                read = {(load, seed): split_commands(read_cwf(workload_file(workload_dir, load,
                                                                            seed)))}
            jobs_wl, commands = read[(load, seed)]
            params = dict(spec["policy_params"])
            if cs is not None:
                params["cs"] = cs_param(cs)
            pol = make_policy(policy, **params)
            name = f"{workload}@load{load_tag(load)}#seed{seed}"
            res = simulate(jobs_wl, pol, cpus=machine, overrun=overrun, debug=debug,
                           workload_name=name, record_timeline=False,
                           commands=command_events(commands))
            metrics = run_metrics(res, jobs_wl, machine, pol, tau=tau)
            run_table = res.table
            n = len(run_table)
            e = facts[(float(load), int(seed))]
            records.append({
                "workload": workload, "policy": policy, "load": float(load), "seed": int(seed),
                "cs": None if cs is None else int(cs), **metrics,
                "offered_load": e["offered_load"], "load_with_commands": e["load_with_commands"],
                "beta_arr": e["beta_arr"], "n_bar": e["n_bar"], "jobs": n,
                "commands": sum(e["commands"].values()),
                "cs_used": math.nan if cs is None else float(cs)})
            tables.append(Table({"load": np.full(n, float(load)),
                                 "seed": np.full(n, int(seed), dtype=np.int64),
                                 "cs": np.full(n, -1 if cs is None else int(cs), dtype=np.int64),
                                 **{c: run_table[c] for c in run_table.columns}}))
            log.info("%s %s cs=%s: wait %.0f s, utilization %.4f", policy, name, cs,
                     metrics["mean_wait"], metrics["utilization"])
    return records, Table.concat(tables)


def fig2_example(durations: Sequence[float] = (10.0, 10.0, 10.0), cpus: int = 10,
                 cs: int = 7) -> dict[str, pd.DataFrame]:
    """Paper K's Fig. 2, simulated: jobs of 7, 4, 6 processors on an idle machine of 10.

    Returns the per-job tables of LOS (alternative (a): the head job of 7
    starts at once) and Delayed-LOS (alternative (b): 4 + 6 start, the 7 is
    skipped while its skip count is below C_s).
    """
    from ...workload.swf import SWF_FIELDS, Workload

    rows = []
    for i, (procs, dur) in enumerate(zip((7, 4, 6), durations)):
        r = [-1] * len(SWF_FIELDS)
        r[0], r[1], r[3], r[4], r[7], r[8] = i + 1, 0, int(dur), procs, procs, int(dur)
        rows.append(r)
    wl = Workload(pd.DataFrame(rows, columns=list(SWF_FIELDS)))
    return {"los": simulate(wl, "los", cpus=cpus, workload_name="fig2").jobs,
            "delayed_los": simulate(wl, "delayed_los", cpus=cpus, policy_params={"cs": cs},
                                    workload_name="fig2").jobs}


def simulate_step(ctx) -> None:
    """The ``kumar_simulate`` step: one chunk of ``ctx.params["spec"]`` (:func:`simulate_set`):
    every run's per-job table (gzip CSV) and a summary (the spec, the engine options, one
    record per run)."""
    picks, spec, sim = ctx.input.get("picks"), ctx.params["spec"], ctx.params["simulation"]
    t0 = time.perf_counter()
    records, jobs = simulate_set(
        spec, ctx.input.workloads, overrun=sim["overrun"], tau=sim["tau"], log=ctx.log,
        picks=None if picks is None else json.loads(Path(picks).read_text(encoding="utf-8")),
        debug=bool((ctx.config.get("simulation") or {}).get("debug", False)))
    # Wall time goes to the log only: the outputs must be reproducible.
    ctx.log.info("%d runs in %.1f s", len(records), time.perf_counter() - t0)
    # mtime 0: the gzip header would otherwise hold the time of writing.
    write_csv(jobs, ctx.output.jobs, index=False, lineterminator="\n", compression=GZIP)
    write_json({"spec": dict(spec), "simulation": dict(sim), "records": records},
               ctx.output.summary)
