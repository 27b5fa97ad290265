"""One run's numbers: paper Z's metrics (simlib.metrics' ``zeng_*``) on a :class:`~.runs.RunResult`.

Every value is a plain float so that a summary is a flat JSON object and a
cube variable. Names: ``rr_<class>`` is the average bounded relative response
time RR (§5.1) of a job class (``all``, ``short``, ``medium``, ``long``) with
the grid's primary bound; ``rr_b<bound>_<class>`` the same with the other
bounds; ``rr_t_<class>`` with T_i (the workload's runtime at one process per
node) as the pure runtime instead of the job's own running time.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import metrics as m
from .runs import RunResult

__all__ = ["CLASSES", "summary", "rr_by_class", "overhead_share", "drain_fraction",
           "delay_factors", "mean_queue_length"]

#: Job classes of RR: all jobs and each Scojo-PECT type.
CLASSES = ("all", "short", "medium", "long")


def rr_by_class(jobs: pd.DataFrame, bound: float, pure: str = "executed") -> dict[str, float]:
    """RR per class; ``pure`` names the column used as the pure runtime.

    ``executed`` (default): the job's running time without slicing, its self
    slowdown included -- "response time in relation to pure runtime (without
    time slicing)" (§5.1); ``runtime``: T_i, the same for every scheduler."""
    subsets = {cls: jobs if cls == "all" else jobs[jobs["type"] == cls] for cls in CLASSES}
    return {cls: m.zeng_bounded_relative_response_time(sub, pure_runtime=pure, bound=bound)
            if len(sub) else float("nan") for cls, sub in subsets.items()}


def overhead_share(slices: pd.DataFrame, jobs: pd.DataFrame) -> float:
    """Percent of the makespan spent in slice-switch overheads (§5.1's "5 % overhead")."""
    t0 = float(jobs["submission_time"].min())
    t1 = float(jobs["finish_time"].max())
    a = np.clip(slices["start"].to_numpy(float), t0, t1)
    b = np.clip(slices["effective"].to_numpy(float), t0, t1)
    return float(100.0 * np.sum(b - a) / (t1 - t0)) if t1 > t0 else float("nan")


def drain_fraction(jobs: pd.DataFrame) -> float:
    """Time from the last submission to the last finish, over the submission span.

    A scheduler that keeps up with its workload finishes soon after the last
    submission; one that is saturated leaves a backlog that takes a large
    fraction of the submission span to drain ("jobs queue up as shown by an
    increased makespan", §5.3)."""
    sub = jobs["submission_time"].to_numpy(float)
    span = sub.max() - sub.min()
    return float((jobs["finish_time"].max() - sub.max()) / span) if span > 0 else float("nan")


def delay_factors(jobs: pd.DataFrame) -> np.ndarray:
    """Each job's response time over its estimate ``R_est`` (§5.2's delay factor)."""
    r = (jobs["finish_time"] - jobs["submission_time"]).to_numpy(float)
    est = jobs["r_est"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(est > 0, r / est, np.nan)


def mean_queue_length(usage: pd.DataFrame, jobs: pd.DataFrame) -> float:
    """Time-averaged number of waiting jobs over the makespan."""
    t = usage["time"].to_numpy(float)
    q = usage["queued_jobs"].to_numpy(float)
    t0, t1 = float(jobs["submission_time"].min()), float(jobs["finish_time"].max())
    d = np.diff(np.clip(np.append(t, t1), t0, t1))
    return float(np.sum(q * d) / (t1 - t0)) if t1 > t0 else float("nan")


def summary(res: RunResult, *, nodes: int, kind: str, bound: float, bounds, n_high: int) -> dict:
    """Every metric of one run, flat (see the module docstring for the names)."""
    jobs, usage = res.jobs, res.usage
    cores = nodes * (4 if kind == "multicore" else 1)
    out = {f"rr_{cls}": v for cls, v in rr_by_class(jobs, bound).items()}
    out.update({f"rr_t_{cls}": v for cls, v in rr_by_class(jobs, bound, pure="runtime").items()})
    out.update({f"rr_b{int(b)}_{cls}": v for b in bounds if b != bound
                for cls, v in rr_by_class(jobs, b).items()})
    phases = m.zeng_high_load_phases(usage, n_high=n_high)
    lengths = phases[:, 1] - phases[:, 0] if len(phases) else np.zeros(0)
    response = jobs["finish_time"] - jobs["submission_time"]
    delay = delay_factors(jobs)
    eligible = jobs["type"].isin(["medium", "long"]).to_numpy()
    out.update({
        "u_core": m.zeng_core_utilization(usage, jobs, cores),
        "u_node": m.zeng_node_utilization(usage, jobs, nodes),
        "u_core_high": m.zeng_high_load_utilization(usage, cores, column="busy_cpus", n_high=n_high),
        "u_node_high": m.zeng_high_load_utilization(usage, nodes, column="busy_nodes", n_high=n_high),
        "high_phases": float(len(phases)),
        "high_phase_hours_mean": float(lengths.mean() / 3600) if len(lengths) else 0.0,
        "high_phase_hours_total": float(lengths.sum() / 3600),
        "makespan": m.makespan(jobs),
        "makespan_days": m.makespan(jobs) / 86400,
        "drain_fraction": drain_fraction(jobs),
        **{f"mean_response_{c}": float((response if c == "all" else response[jobs["type"] == c]).mean())
           for c in ("all", "medium", "long")},
        "mean_wait": m.mean_wait(jobs),
        "mean_queue": mean_queue_length(usage, jobs),
        "overhead_share": overhead_share(res.slices, jobs),
        **{f"delay_p{q}_ml": float(np.nanpercentile(delay[eligible], q)) if eligible.any()
           else float("nan") for q in (50, 75, 95)},
        "preemptions": float(res.counters["preemptions"]),
        "slice_switches": float(res.counters["slice_switches"]),
    })
    return out
