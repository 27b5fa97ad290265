"""Paper U (Utrera et al., FCFS-malleable): what one simulation measures.

* :func:`run_metrics` -- the metrics of one simulation as the paper
  defines them (formula 1 slowdown over the *expanded* execution time,
  formula 2 fragmentation, Table 3's average MPL) plus the usual ones;
* :func:`demand_ratios` / :func:`log_demand_ratios` -- our reading of
  Table 2's "Req.Cpus/Cpus" (see below);
* :func:`waiting_cpus` and :func:`busiest_window` -- the Fig. 1 substitute.

Nothing here runs the engine (the simulations are in
:mod:`simlib.studies.utrera.runs`), so preparing the traces and drawing the
figures do not depend on the engine's code.

Req.Cpus/Cpus (Table 2) cannot be a mean job size over machine CPUs (at
most 1, the paper prints 5.8 / 3.8 / 8.8): we read it as the *demand*, the
CPUs requested by the jobs in the system, time-averaged, over the machine's
CPUs; the README's interpretation choices 6-7
(``templates/interpretation.md.j2``) give the evidence. ``demand_ratio``
(waiting + running) is the primary reading, ``queue_demand_ratio`` (waiting
only) the alternative; both are reported, from the log and from every
simulated schedule.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from simlib.metrics import (
    max_wait,
    mean_bounded_slowdown,
    mean_response,
    mean_wait,
    timeline_utilization,
    utilization,
    utrera_fragmentation,
    utrera_mean_mpl,
    utrera_slowdown,
    utrera_slowdowns,
)
from simlib.workload.prepare import job_size

__all__ = [
    "METRIC_INFO", "RUN_METRICS", "SHORT_RUNTIME", "NARROW_PROCS", "run_metrics", "class_slowdowns",
    "demand_ratios", "log_demand_ratios",
    "waiting_cpus", "busiest_window",
]

#: Sect. 5.1: "EASY backfilling outperformed FCFS-malleable only on jobs with execution
#: time less than 3 minutes and number of processes less than 16" -- the classes of
#: the per-class slowdowns (runtime in seconds, processes).
SHORT_RUNTIME = 180.0
NARROW_PROCS = 16

#: Units, long name and description of the U-specific run metrics (the rest
#: come from :data:`simlib.metrics.METRICS`).
METRIC_INFO: dict[str, tuple[str, str, str]] = {
    "mean_execution": ("s", "mean execution time",
                       "mean over jobs of finish - start, virtual-malleability overheads included"),
    "mean_execution_expanded": ("s", "mean expanded execution time",
                                "mean over jobs of the runtime on all requested CPUs (trace runtime)"),
    "demand_ratio": ("1", "requested CPUs of waiting and running jobs / machine CPUs",
                     "time average over first submit .. last finish (our reading of Req.Cpus/Cpus)"),
    "queue_demand_ratio": ("1", "requested CPUs of waiting jobs / machine CPUs",
                           "time average over first submit .. last finish"),
    "jobs": ("1", "jobs simulated", "number of jobs in the run"),
    "jobs_killed": ("1", "jobs killed at their requested time",
                    "jobs whose runtime exceeded their request (overrun policy 'kill')"),
    "offered_load": ("1", "offered load", "sum(size * runtime) / (CPUs * (last - first submit))"),
    **{f"slowdown_{r}_{w}": ("1", f"average slowdown (formula 1), {r} {w} jobs",
                             f"jobs with expanded runtime {'<' if r == 'short' else '>='} "
                             f"{SHORT_RUNTIME:g} s and {'<' if w == 'narrow' else '>='} "
                             f"{NARROW_PROCS} processes (Sect. 5.1's classes); NaN: none")
       for r in ("short", "long") for w in ("narrow", "wide")},
}

#: Metrics :func:`run_metrics` returns, in table order.
RUN_METRICS: tuple[str, ...] = (
    "mean_wait", "mean_execution", "mean_response", "utrera_slowdown", "utrera_fragmentation",
    "utrera_mean_mpl", "timeline_utilization", "utilization", "mean_bounded_slowdown",
    "max_wait", "mean_execution_expanded", "demand_ratio", "queue_demand_ratio", "jobs",
    "jobs_killed", "slowdown_short_narrow", "slowdown_short_wide", "slowdown_long_narrow",
    "slowdown_long_wide",
)


# --------------------------------------------------------------------------
# one run
# --------------------------------------------------------------------------
def demand_ratios(submit, wait, run, procs, cpus: int) -> tuple[float, float]:
    """Time-averaged requested CPUs in the system over machine CPUs.

    ``system = sum_j procs_j (wait_j + run_j) / (cpus * span)`` and
    ``queue = sum_j procs_j wait_j / (cpus * span)``, with ``span`` from
    the first submit to the last end (``submit + wait + run``): the time
    average of the CPUs requested by the jobs waiting (and running). Jobs
    with a negative (missing) wait or runtime are left out.

    Returns
    -------
    (system, queue) : tuple of float

    Examples
    --------
    >>> demand_ratios([0, 0], [0, 2], [2, 2], [4, 4], cpus=4)
    (1.5, 0.5)
    """
    s, w, r, p = (np.asarray(x, dtype=float) for x in (submit, wait, run, procs))
    ok = (w >= 0) & (r >= 0) & (p > 0)
    s, w, r, p = s[ok], w[ok], r[ok], p[ok]
    if not s.size:
        return float("nan"), float("nan")
    span = float((s + w + r).max() - s.min())
    if not span > 0:
        return float("nan"), float("nan")
    return (float(np.sum(p * (w + r)) / (cpus * span)), float(np.sum(p * w) / (cpus * span)))


def log_demand_ratios(workload, cpus: int) -> tuple[float, float]:
    """:func:`demand_ratios` of a trace under its own recorded schedule.

    Uses SWF fields 2 (submit), 3 (wait), 4 (runtime) and the job size, so
    it describes the workload as the real machine ran it.

    Examples
    --------
    >>> from simlib.studies.utrera.transforms import toy_workload
    >>> w = toy_workload([(0, 4, 2), (0, 4, 2)])
    >>> w.jobs["wait_time"] = [0, 2]
    >>> log_demand_ratios(w, 4)
    (1.5, 0.5)
    """
    j = workload.jobs
    return demand_ratios(j["submit_time"], j["wait_time"], j["run_time"], job_size(j), cpus)


def run_metrics(res, *, tau: float = 10.0) -> dict[str, float]:
    """Paper U's metrics of one simulation (keys :data:`RUN_METRICS`).

    * ``utrera_slowdown``: formula 1, ``(wait + execution) / expanded
      execution``; the expanded execution time is the job's work in the
      engine (its trace runtime, or its request when killed at it).
    * ``utrera_fragmentation``: formula 2; ``utrera_mean_mpl``: Table 3,
      processes of running jobs per machine CPU, time-averaged from the first
      submit to the last finish (the timeline's span) -- hence below 1 for
      EASY, as in the paper.
    * ``demand_ratio`` / ``queue_demand_ratio``: :func:`demand_ratios` of
      the simulated schedule.

    ``res`` is a :class:`simlib.runner.SimResult` of a simulation that
    recorded its timeline.

    Examples
    --------
    >>> from simlib.runner import simulate
    >>> from simlib.studies.utrera.transforms import toy_workload
    >>> res = simulate(toy_workload([(0, 2, 4), (0, 2, 4)]), "fcfs", cpus=2)
    >>> run_metrics(res)["mean_response"]
    6.0
    """
    jobs = res.jobs
    cpus = res.platform_cpus
    if res.timeline is None or len(res.timeline) == 0:
        raise ValueError("run_metrics needs the simulation's timeline (record_timeline=True)")
    expanded = np.fromiter((j.work for j in res.engine_jobs), float, len(res.engine_jobs))
    system, queue = demand_ratios(jobs["submission_time"], jobs["waiting_time"],
                                  jobs["execution_time"], jobs["requested_number_of_resources"],
                                  cpus)
    return {
        "mean_wait": mean_wait(jobs),
        "mean_execution": float(jobs["execution_time"].mean()),
        "mean_response": mean_response(jobs),
        "utrera_slowdown": utrera_slowdown(jobs, expanded),
        "utrera_fragmentation": utrera_fragmentation(res.timeline, cpus),
        "utrera_mean_mpl": utrera_mean_mpl(res.timeline, cpus),
        "timeline_utilization": timeline_utilization(res.timeline, cpus),
        "utilization": utilization(jobs, cpus),
        "mean_bounded_slowdown": mean_bounded_slowdown(jobs, tau),
        "max_wait": max_wait(jobs),
        "mean_execution_expanded": float(expanded.mean()),
        "demand_ratio": system,
        "queue_demand_ratio": queue,
        "jobs": float(len(jobs)),
        "jobs_killed": float((jobs["success"] == 0).sum()),
        **class_slowdowns(jobs, expanded),
    }


def class_slowdowns(jobs: pd.DataFrame, expanded) -> dict[str, float]:
    """Average slowdown (formula 1) per Sect. 5.1 class: short/long x narrow/wide.

    Examples
    --------
    >>> j = pd.DataFrame({"waiting_time": [10.0, 0.0], "execution_time": [10.0, 400.0],
    ...                   "requested_number_of_resources": [4, 32]})
    >>> d = class_slowdowns(j, [10.0, 400.0])
    >>> d["slowdown_short_narrow"], d["slowdown_long_wide"], bool(np.isnan(d["slowdown_short_wide"]))
    (2.0, 1.0, True)
    """
    exp = np.asarray(expanded, dtype=float)
    sd = utrera_slowdowns(jobs, exp)
    short = exp < SHORT_RUNTIME
    narrow = jobs["requested_number_of_resources"].to_numpy() < NARROW_PROCS
    out = {}
    for r, rm in (("short", short), ("long", ~short)):
        for w, wm in (("narrow", narrow), ("wide", ~narrow)):
            m = rm & wm
            out[f"slowdown_{r}_{w}"] = float(sd[m].mean()) if m.any() else float("nan")
    return out


# --------------------------------------------------------------------------
# the Fig. 1 substitute
# --------------------------------------------------------------------------
def waiting_cpus(jobs: pd.DataFrame, times) -> np.ndarray:
    """Requested CPUs of the jobs waiting at each of ``times`` (Batsim jobs table).

    Examples
    --------
    >>> j = pd.DataFrame({"submission_time": [0.0, 0.0], "starting_time": [0.0, 5.0],
    ...                   "requested_number_of_resources": [4, 2]})
    >>> waiting_cpus(j, [0.0, 4.0, 5.0]).tolist()
    [2.0, 2.0, 0.0]
    """
    t = np.asarray(times, dtype=float)
    s = jobs["submission_time"].to_numpy(dtype=float)
    b = jobs["starting_time"].to_numpy(dtype=float)
    p = jobs["requested_number_of_resources"].to_numpy(dtype=float)
    # +p at submit, -p at start; a job starting at t no longer waits at t.
    times_ev = np.concatenate([s, b])
    delta = np.concatenate([p, -p])
    order = np.argsort(times_ev, kind="mergesort")
    times_ev, cum = times_ev[order], np.cumsum(delta[order])
    k = np.searchsorted(times_ev, t, side="right")
    return np.where(k > 0, cum[np.maximum(k - 1, 0)], 0.0)


def busiest_window(timeline: pd.DataFrame, length: float) -> float:
    """Start of the ``length``-second window with the largest mean queue length.

    Candidate starts are the timeline's event times that leave a full window
    before the last event (or the first event when the run is shorter).

    Examples
    --------
    >>> tl = pd.DataFrame({"time": [0.0, 10.0, 20.0, 30.0], "queued_jobs": [0, 5, 0, 0],
    ...                    "busy_cpus": [0, 0, 0, 0], "processes": [0, 0, 0, 0]})
    >>> busiest_window(tl, 10.0)
    10.0
    """
    t = timeline["time"].to_numpy(dtype=float)
    q = timeline["queued_jobs"].to_numpy(dtype=float)
    if t.size < 2 or t[-1] - t[0] <= length:
        return float(t[0]) if t.size else 0.0
    # Integral of the queue length as a function of time, piecewise linear.
    area = np.concatenate([[0.0], np.cumsum(q[:-1] * np.diff(t))])

    def integral(x):
        k = np.clip(np.searchsorted(t, x, side="right") - 1, 0, t.size - 1)
        return area[k] + q[k] * (x - t[k])

    starts = t[t + length <= t[-1]]
    scores = integral(starts + length) - integral(starts)
    return float(starts[int(np.argmax(scores))])
