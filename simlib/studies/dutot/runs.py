"""Paper D's simulations: one (platform, seed) over every variant and F_comm value.

Each run is conservative backfilling with one allocation rule (the
*variant*) on one platform, the seed's workload, and job durations from
SimGrid (:func:`simlib.backends.simgrid.simulate_simgrid`, one fresh
process per run): every job is a parallel task
(:func:`simlib.studies.dutot.tasks.parallel_task`) killed at its walltime.
What a run measures (:func:`run_metrics`) are the cube's variables
(:data:`METRIC_INFO`); the makespan C_max is paper D's metric.
"""
from __future__ import annotations

import time

import pandas as pd

from simlib.backends.simgrid import require_simgrid, simulate_simgrid
from simlib.io import GZIP, write_csv, write_json
from simlib.policies import make_policy
from simlib.workload.swf import read_swf

from ...metrics import dutot_makespan, mean_wait
from .platforms import from_description
from .tasks import task_function

__all__ = ["METRICS", "METRIC_INFO", "run_metrics", "simulate_chunk"]

#: The cube's variables: name -> (units, long name, description).
METRIC_INFO = {
    "makespan": ("s", "makespan C_max",
                 "last completion time of the workload (every job released at 0)"),
    "mean_execution": ("s", "mean execution time",
                       "mean over the jobs of finish - start, as SimGrid timed them"),
    "mean_wait": ("s", "mean wait time", "mean over the jobs of start - release (release 0)"),
    "jobs_killed": ("1", "jobs killed at their walltime",
                    "jobs still running at w_j = max(rw_j, ret_j * F_w) after their start"),
    "jobs": ("1", "jobs simulated", "number of jobs of the workload"),
}
#: Variable names, in cube order.
METRICS = tuple(METRIC_INFO)


def run_metrics(jobs: pd.DataFrame) -> dict:
    """What one run measures, from its Batsim-style job table."""
    return {
        "makespan": dutot_makespan(jobs),
        "mean_execution": float(jobs["execution_time"].mean()),
        "mean_wait": mean_wait(jobs),
        "jobs_killed": int((jobs["final_state"] != "COMPLETED_SUCCESSFULLY").sum()),
        "jobs": int(len(jobs)),
    }


def simulate_chunk(ctx) -> None:
    """Step ``dutot_simulate``: the seed's workload ``swf`` on one ``platform`` (its
    :func:`~simlib.studies.dutot.platforms.describe`) under every variant (``policy`` and
    its parameters per variant) and ``f_comm`` value; ``summary``: :func:`run_metrics` of
    each run (and the SimGrid version), ``jobs``: every run's job table.
    """
    p, w = ctx.params, ctx.wildcards
    net = from_description(p["platform"])
    wl = read_swf(ctx.input.swf)
    runs, tables = [], []
    t_all = time.perf_counter()
    for variant, params in p["variants"].items():
        for f_comm in p["f_comm"]:
            task = task_function(f_comp=p["f_comp"], f_comm=f_comm,
                                 self_communication=p["self_communication"])
            policy = make_policy(p["policy"], **params)
            t0 = time.perf_counter()
            res = simulate_simgrid(wl, policy, net, task,
                                   workload_name=f"seed{w['seed']}")
            metrics = run_metrics(res.jobs)
            runs.append({"variant": variant, "f_comm": float(f_comm), "metrics": metrics})
            jobs = res.jobs.copy()
            jobs.insert(0, "f_comm", float(f_comm))
            jobs.insert(0, "variant", variant)
            tables.append(jobs)
            # Wall time to the log only: the summary must be reproducible.
            ctx.log.info("%s, F_comm %.4g: makespan %.1f s, mean execution %.1f s, %d killed "
                         "(%.2f s)", variant, f_comm, metrics["makespan"],
                         metrics["mean_execution"], metrics["jobs_killed"],
                         time.perf_counter() - t0)
    ctx.log.info("%d runs in %.1f s", len(runs), time.perf_counter() - t_all)
    write_csv(pd.concat(tables, ignore_index=True), ctx.output.jobs, index=False,
              lineterminator="\n", compression=GZIP)
    version = str(require_simgrid().simgrid_version)
    write_json({"platform": net.name, "seed": int(w["seed"]), "coords": p["coords"],
                "simgrid_version": version,
                "policy": p["policy"], "variants": p["variants"], "f_comp": p["f_comp"],
                "self_communication": p["self_communication"], "runs": runs},
               ctx.output.summary)
