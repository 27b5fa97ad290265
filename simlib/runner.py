"""High-level entry point: simulate a workload under a policy.

Turns a :class:`~simlib.workload.swf.Workload` into engine jobs, runs the
:class:`~simlib.engine.simulator.Simulator` and returns per-job results in
the Batsim ``jobs.csv`` column schema (so evalys can read them), plus the
utilization timeline.

Examples
--------
>>> import pandas as pd
>>> from simlib.workload.swf import SWF_FIELDS, Workload
>>> rows = [[1, 0, -1, 10, 4, -1, -1, 4, 20, -1, 1, 1, 1, 1, 1, 1, -1, -1],
...         [2, 5, -1, 10, 4, -1, -1, 4, 20, -1, 1, 1, 1, 1, 1, 1, -1, -1]]
>>> wl = Workload(pd.DataFrame(rows, columns=SWF_FIELDS))
>>> res = simulate(wl, "fcfs", cpus=4)
>>> res.jobs["starting_time"].tolist()
[0.0, 10.0]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .engine.job import Job
from .engine.simulator import Simulator
from .errors import ConfigError
from .platform import Platform
from .policies import Policy, make_policy
from .workload.swf import _atomic_write

#: Batsim's jobs.csv columns, in its order (Batsim's docs, "Jobs" output;
#: evalys' ``JobSet`` reads them, ``allocated_resources`` as "0-3 5").
BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time",
    "requested_number_of_resources", "requested_time", "success", "final_state",
    "starting_time", "execution_time", "finish_time", "waiting_time",
    "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata",
)


@dataclass
class SimResult:
    """What one simulation produced.

    Attributes
    ----------
    jobs : pandas.DataFrame
        One row per job, Batsim ``jobs.csv`` columns.
    timeline : pandas.DataFrame
        ``time, busy_cpus, queued_jobs, processes``; each row holds from its
        time until the next row's.
    platform_cpus : int
    policy : str
    engine_jobs : list of Job
        The engine's job objects (for policy-specific post-processing).
    """

    jobs: pd.DataFrame
    timeline: pd.DataFrame
    platform_cpus: int
    policy: str
    engine_jobs: list


def _job_columns(df: pd.DataFrame):
    """Per-row submit, size, estimate, work and CPU utilization (see jobs_from_workload)."""
    submit = df["submit_time"].to_numpy(dtype=np.float64)
    run = df["run_time"].to_numpy(dtype=np.float64)
    procs = df["requested_procs"].to_numpy(dtype=np.int64)
    procs = np.where(procs > 0, procs, df["allocated_procs"].to_numpy(dtype=np.int64))
    req = df["requested_time"].to_numpy(dtype=np.float64)
    req = np.where(req > 0, req, run)
    cpu = df["avg_cpu_time"].to_numpy(dtype=np.float64)
    util = np.where((cpu >= 0) & (run > 0), np.clip(cpu / np.where(run > 0, run, 1), 0, 1), np.nan)
    return submit, procs, req, run, util


def unusable_job(workload, cpus: int | None = None) -> tuple[int, str, int] | None:
    """The first job (in row order) the simulator cannot run, if any.

    A job is unusable when it has no size (fields 8 and 5 both missing), a
    negative runtime, no estimate (field 9 missing and runtime <= 0), a
    negative submit time or, when ``cpus`` is given, more processors than
    the machine.

    Parameters
    ----------
    workload : Workload
    cpus : int, optional
        Machine size to check job sizes against.

    Returns
    -------
    (row, reason, count) or None
        Row position (0-based, file order for a read trace), what is wrong
        with that job, and how many jobs are unusable for any reason.

    Examples
    --------
    >>> import pandas as pd
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> rows = [[1, 0, -1, 10, 4, -1, -1, 4, 20, -1, 1, 1, 1, 1, 1, 1, -1, -1],
    ...         [2, 5, -1, 10, 9, -1, -1, 9, 20, -1, 1, 1, 1, 1, 1, 1, -1, -1]]
    >>> unusable_job(Workload(pd.DataFrame(rows, columns=SWF_FIELDS)), cpus=8)
    (1, 'asks for 9 processors, more than the 8 of the machine', 1)
    """
    submit, procs, req, run, _ = _job_columns(workload.jobs)
    checks = [
        (procs <= 0, lambda i: "has no size (requested_procs and allocated_procs are missing)"),
        (run < 0, lambda i: "has no runtime (run_time is missing)"),
        (req <= 0, lambda i: "has no estimate (requested_time is missing and run_time is 0)"),
        (submit < 0, lambda i: "has no submit time (submit_time is missing)"),
    ]
    if cpus is not None:
        checks.append((procs > cpus, lambda i: f"asks for {int(procs[i])} processors, more than "
                                               f"the {int(cpus)} of the machine"))
    bad = np.zeros(len(submit), dtype=bool)
    for mask, _ in checks:
        bad |= mask
    if not bad.any():
        return None
    row = int(np.flatnonzero(bad)[0])
    reason = next(why(row) for mask, why in checks if mask[row])
    return row, reason, int(bad.sum())


def jobs_from_workload(workload, *, source: str = "") -> list[Job]:
    """Engine jobs from SWF columns.

    Size = requested processors (field 8), or allocated processors (field 5)
    when missing; estimate = requested time (field 9), or the runtime when
    missing; work = runtime (field 4); CPU utilization = field 6 / field 4
    when both are present, else NaN (each policy that
    uses it states its default). A ``requested_start`` column (CWF) sets
    :attr:`Job.requested_start`. Jobs are taken in submission order
    (stable), as the engine requires. A job without a usable size, runtime,
    estimate or submit time (:func:`unusable_job`) is a ConfigError.
    """
    df = workload.jobs
    where = source or workload.path or "workload"
    problem = unusable_job(workload)
    if problem is not None:
        row, reason, count = problem
        raise ConfigError(f"{where}: job {int(df['job_id'].iat[row])} {reason} ({count} unusable "
                          f"jobs); clean the trace first")
    submit, procs, req, run, util = _job_columns(df)
    order = np.argsort(submit, kind="stable")
    ids = df["job_id"].to_numpy(dtype=np.int64)[order].tolist()
    cols = [submit[order].tolist(), procs[order].tolist(), req[order].tolist(),
            run[order].tolist(), util[order].tolist()]
    jobs = [Job(i, jid, s, p, r, w, False, u)
            for i, (jid, s, p, r, w, u) in enumerate(zip(ids, *cols))]
    if "requested_start" in df.columns:  # CWF field 19 (paper K's dedicated jobs)
        for job, rs in zip(jobs, df["requested_start"].to_numpy(dtype=np.float64)[order].tolist()):
            job.requested_start = rs
    return jobs


def intervals(ids) -> str:
    """Compact core ids as Batsim does: ``[0,1,2,5]`` -> ``"0-2 5"``."""
    ids = sorted(ids)
    if not ids:
        return ""
    out = []
    lo = prev = ids[0]
    for c in ids[1:]:
        if c != prev + 1:
            out.append(f"{lo}-{prev}" if prev > lo else str(lo))
            lo = c
        prev = c
    out.append(f"{lo}-{prev}" if prev > lo else str(lo))
    return " ".join(out)


def batsim_table(jobs: list[Job], workload_name: str) -> pd.DataFrame:
    """Per-job results in the Batsim jobs.csv schema."""
    submit = np.fromiter((j.submit for j in jobs), float, len(jobs))
    start = np.fromiter((j.start for j in jobs), float, len(jobs))
    finish = np.fromiter((j.finish for j in jobs), float, len(jobs))
    killed = np.fromiter((j.killed for j in jobs), bool, len(jobs))
    execution = finish - start
    turnaround = finish - submit
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = np.where(execution > 0, turnaround / np.where(execution > 0, execution, 1), np.nan)
    return pd.DataFrame({
        "job_id": [str(j.job_id) for j in jobs],
        "workload_name": workload_name,
        "profile": "rigid",
        "submission_time": submit,
        "requested_number_of_resources": np.fromiter((j.procs for j in jobs), np.int64, len(jobs)),
        "requested_time": np.fromiter((j.requested_time for j in jobs), float, len(jobs)),
        "success": np.where(killed, 0, 1),
        "final_state": np.where(killed, "COMPLETED_WALLTIME_REACHED", "COMPLETED_SUCCESSFULLY"),
        "starting_time": start,
        "execution_time": execution,
        "finish_time": finish,
        "waiting_time": start - submit,
        "turnaround_time": turnaround,
        "stretch": stretch,
        "allocated_resources": [intervals(j.alloc) for j in jobs],
        "consumed_energy": -1.0,
        "metadata": "",
    }, columns=list(BATSIM_COLUMNS))


def simulate(workload, policy: str | Policy, *, cpus: int | None = None,
             platform: Platform | None = None, policy_params: dict | None = None,
             overrun: str = "kill", debug: bool = False, workload_name: str = "",
             record_timeline: bool = True, commands=(), progress=None) -> SimResult:
    """Simulate ``workload`` under ``policy`` on a platform of ``cpus`` cores.

    Parameters
    ----------
    workload : Workload
    policy : str or Policy
        Registered name (see :data:`simlib.policies.POLICIES`) or an instance.
    cpus, platform
        Give one: a homogeneous machine of ``cpus`` cores, or a Platform.
    policy_params : dict, optional
        Keyword parameters for the policy (validated).
    overrun : {"kill", "extend"}
        See :class:`~simlib.engine.simulator.Simulator`.
    debug : bool
        Check invariants after every round (slow).
    commands : sequence of (time, payload)
        Timed external events passed to the policy (see Simulator); ignored
        unless the policy declares ``elastic = True``.
    progress : callable, optional
        ``progress(done, total, now)``, called now and then by the engine
        (see :class:`~simlib.engine.simulator.Simulator`).
    """
    if platform is None:
        if cpus is None:
            raise ConfigError("simulate: give cpus or platform")
        platform = Platform.homogeneous(int(cpus))
    if isinstance(policy, str):
        policy = make_policy(policy, **(policy_params or {}))
    if commands and not policy.elastic:
        # Only the -E/-DE variants process elastic commands; the others run the
        # same jobs without them (and without rounds at command times, which
        # would e.g. inflate Delayed-LOS skip counts).
        commands = ()
    jobs = jobs_from_workload(workload)
    sim = Simulator(platform, jobs, policy, overrun=overrun, debug=debug,
                    record_timeline=record_timeline, commands=commands, progress=progress)
    sim.run()
    timeline = pd.DataFrame(sim.timeline, columns=["time", "busy_cpus", "queued_jobs", "processes"])
    return SimResult(batsim_table(jobs, workload_name), timeline, platform.cpus, policy.name, jobs)


def write_jobs_csv(jobs: pd.DataFrame, path) -> None:
    """Write a per-job table as Batsim's ``jobs.csv`` (comma-separated, header).

    The file is replaced atomically: on any error nothing is left at ``path``
    (an existing file stays as it was).

    Examples
    --------
    >>> import os, tempfile
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> row = [1, 0, -1, 10, 4, -1, -1, 4, 20, -1, 1, 1, 1, 1, 1, 1, -1, -1]
    >>> res = simulate(Workload(pd.DataFrame([row], columns=SWF_FIELDS)), "fcfs", cpus=4)
    >>> path = os.path.join(tempfile.mkdtemp(), "jobs.csv")
    >>> write_jobs_csv(res.jobs, path)
    >>> open(path).readline().split(",")[:3]
    ['job_id', 'workload_name', 'profile']
    """
    text = jobs.to_csv(index=False, lineterminator="\n")
    _atomic_write(str(path), text.encode("utf-8"))
