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

from itertools import chain, repeat
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from .engine.cores import CoreRuns
from .engine.job import DONE, Job
from .engine.simulator import Simulator, gc_paused
from .errors import ConfigError
from .io import write_csv
from .platform import Platform
from .policies import Policy, make_policy
from .table import Table, duplicated
from .workload.swf import MAX_EXACT_TIME

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The compiled kernel of the jobs table's allocation text (see
#: :func:`_intervals_of`); its Cython source is a code input of every step
#: that imports this module (:mod:`simlib.codedeps` reads this tuple).
COMPILED_KERNELS = ("_intervals_kernel",)

#: Batsim's jobs.csv columns, in its order (Batsim's docs, "Jobs" output;
#: evalys' ``JobSet`` reads them, ``allocated_resources`` as "0-3 5").
BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time",
    "requested_number_of_resources", "requested_time", "success", "final_state",
    "starting_time", "execution_time", "finish_time", "waiting_time",
    "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata",
)


class SimResult:
    """What one simulation produced.

    Attributes
    ----------
    jobs : pandas.DataFrame
        One row per job, Batsim ``jobs.csv`` columns.
    table : simlib.table.Table
        The same columns as numpy arrays (no pandas needed).
    timeline : pandas.DataFrame
        ``time, busy_cpus, queued_jobs, processes``; each row holds from its
        time until the next row's.
    platform_cpus : int
    policy : str
    engine_jobs : list of Job
        The engine's job objects (for policy-specific post-processing).

    Notes
    -----
    ``jobs`` may be given as a :class:`~simlib.table.Table` and ``timeline``
    as the simulator's rows (:attr:`Simulator.timeline`): each DataFrame is
    then built on first use, so a run that reads neither imports no pandas
    (``simlib simulate``; see :mod:`simlib.table`).
    """

    def __init__(self, jobs, timeline, platform_cpus: int, policy: str, engine_jobs
                 ) -> None:
        self._jobs, self._timeline = jobs, timeline
        self.platform_cpus, self.policy, self._engine_jobs = platform_cpus, policy, engine_jobs

    @property
    def engine_jobs(self) -> list:
        # A columnar run (a plain EASY workload) makes its Job objects only if asked.
        if callable(self._engine_jobs):
            self._engine_jobs = self._engine_jobs()
        return self._engine_jobs

    @engine_jobs.setter
    def engine_jobs(self, jobs) -> None:
        self._engine_jobs = jobs   # e.g. the SimGrid backend's: its Job objects stay in its child

    @property
    def jobs(self) -> pd.DataFrame:
        if isinstance(self._jobs, Table):
            self._jobs = self._jobs.to_frame()
        return self._jobs

    @property
    def table(self) -> Table:
        return self._jobs if isinstance(self._jobs, Table) else Table.from_frame(self._jobs)

    @property
    def timeline(self) -> pd.DataFrame:
        if isinstance(self._timeline, (list, np.ndarray)):
            self._timeline = timeline_frame(self._timeline)
        return self._timeline

    def __repr__(self) -> str:
        return (f"SimResult({len(self.table)} jobs, policy={self.policy!r}, "
                f"platform_cpus={self.platform_cpus})")


def jobs_from_workload(workload, *, source: str = "", cpus: int | None = None) -> list[Job]:
    """Engine jobs from SWF columns.

    Size = requested processors (field 8), or allocated processors (field 5)
    when missing; estimate = requested time (field 9), or the runtime when
    missing; work = runtime (field 4); CPU utilization = field 6 / field 4
    when both are present, else NaN (each policy that
    uses it states its default). A ``requested_start`` column (CWF) sets
    :attr:`Job.requested_start`. Jobs are taken in submission order
    (stable), as the engine requires.

    Parameters
    ----------
    workload : Workload
    source : str, optional
        Name for error messages; default ``workload.path``.
    cpus : int, optional
        Machine size: a job asking for more processors is an error.

    Raises
    ------
    ConfigError
        If the workload has no jobs, or a job cannot be simulated: a job id
        used twice, a time beyond 2**53 s (not exact in float64), no submit
        time, no size (requested and allocated processors both missing or
        zero), a size above ``cpus``, no runtime (-1), or no estimate. One
        line naming the source, the first such job (id and row), the field
        and the reason.

    Examples
    --------
    >>> import pandas as pd
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> row = [1, 0, -1, -1, 4, -1, -1, 4, 20] + [-1] * 9
    >>> jobs_from_workload(Workload(pd.DataFrame([row], columns=SWF_FIELDS), path="w.swf"))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.runner.UnusableJobError: w.swf: job 1 (row 0): field 'run_time': no runtime (-1); ...
    """
    c = job_columns(workload, source=source, cpus=cpus)
    jobs = _jobs_of(c)
    if c["requested_start"] is not None:  # CWF field 19 (paper K's dedicated jobs)
        for job, rs in zip(jobs, c["requested_start"].tolist()):
            job.requested_start = rs
    return jobs


def _jobs_of(c: dict) -> list[Job]:
    """Pending engine jobs from :func:`job_columns`' columns."""
    # Job(idx, job_id, submit, procs, requested_time, work, killed, cpu_util)
    return list(map(Job, range(len(c["job_id"])), c["job_id"].tolist(), c["submit"].tolist(),
                    c["procs"].tolist(), c["requested_time"].tolist(), c["work"].tolist(),
                    repeat(False), c["cpu_util"].tolist()))


def job_columns(workload, *, source: str = "", cpus: int | None = None) -> dict:
    """The engine's job fields as numpy columns in submission order (stable),
    checked as :func:`jobs_from_workload` checks them (which makes its jobs
    from these): ``job_id``, ``submit``, ``procs``, ``requested_time``,
    ``work``, ``cpu_util`` and ``requested_start`` (None without a CWF
    field 19). Columns, not objects: what a run of many jobs keeps.

    Examples
    --------
    >>> import pandas as pd
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> rows = [[2, 5, -1, 30, 4, -1, -1, 4, 60] + [-1] * 9, [1, 0, -1, 10, 2, -1, -1, -1, -1] + [-1] * 9]
    >>> c = job_columns(Workload(pd.DataFrame(rows, columns=SWF_FIELDS)))
    >>> c["job_id"].tolist(), c["procs"].tolist(), c["requested_time"].tolist()
    ([1, 2], [2, 4], [10.0, 60.0])
    """
    if isinstance(workload, dict):   # columns already (checked when they were made)
        if cpus is not None and len(workload["procs"]) and int(workload["procs"].max()) > cpus:
            raise ConfigError(f"{source or 'workload'}: a job asks for more than the "
                              f"machine's {cpus} CPUs")
        return workload
    df = workload.table
    where = source or workload.path or "workload"
    if len(df) == 0:
        raise ConfigError(f"{where}: no jobs to simulate")
    submit = np.asarray(df["submit_time"], dtype=np.float64)
    run = np.asarray(df["run_time"], dtype=np.float64)
    requested = np.asarray(df["requested_procs"], dtype=np.int64)
    allocated = np.asarray(df["allocated_procs"], dtype=np.int64)
    procs = np.where(requested > 0, requested, allocated)
    req = np.asarray(df["requested_time"], dtype=np.float64)
    req = np.where(req > 0, req, run)
    _check_jobs(df, where, cpus, submit, run, requested, allocated, procs, req)
    cpu = np.asarray(df["avg_cpu_time"], dtype=np.float64)
    util = np.where((cpu >= 0) & (run > 0), np.clip(cpu / np.where(run > 0, run, 1), 0, 1), np.nan)
    order = np.argsort(submit, kind="stable")
    return {"job_id": np.asarray(df["job_id"], dtype=np.int64)[order],
            "submit": submit[order], "procs": procs[order], "requested_time": req[order],
            "work": run[order], "cpu_util": util[order],
            "requested_start": (np.asarray(df["requested_start"], dtype=np.float64)[order]
                                if "requested_start" in df.columns else None)}


class UnusableJobError(ConfigError):
    """A workload job the simulator cannot run (see :func:`jobs_from_workload`).

    Attributes
    ----------
    row : int
        0-based row of the job in the workload (a command line maps it to
        the file's line).
    job_id : int
    field : str
        The SWF field at fault.
    """

    def __init__(self, message: str, *, row: int, job_id: int, field: str) -> None:
        super().__init__(message)
        self.row, self.job_id, self.field = row, job_id, field


def _check_jobs(df, where, cpus, submit, run, requested, allocated, procs, req) -> None:
    """Raise ConfigError for the first job (by row) that cannot be simulated."""
    ids = df["job_id"]
    checks = [(duplicated(ids), "job_id",
               lambda i: f"job id appears twice (first in row "
                         f"{int(np.flatnonzero(ids == ids[i])[0])})")]
    for name in ("submit_time", "run_time", "requested_time", "requested_start"):
        if name in df.columns:
            raw = df[name]
            checks.append(((raw > MAX_EXACT_TIME) | (raw < -MAX_EXACT_TIME), name,
                           lambda i, raw=raw: f"time {raw[i]} is beyond 2**53 s, where float64 "
                                              f"is no longer exact"))
    checks += [
        (submit < 0, "submit_time", lambda i: f"no submit time ({submit[i]:g})"),
        (procs <= 0, "requested_procs",
         lambda i: f"no usable size: requested_procs {requested[i]}, allocated_procs "
                   f"{allocated[i]}"),
        (procs > (cpus if cpus is not None else np.inf), None,
         lambda i: f"size {procs[i]} is larger than the machine ({cpus} processors)"),
        (run < 0, "run_time", lambda i: f"no runtime ({run[i]:g})"),
        (req <= 0, "requested_time",
         lambda i: f"no usable estimate: requested_time {df['requested_time'][i]}, "
                   f"run_time {run[i]:g}"),
    ]
    bad = np.zeros(len(df), dtype=bool)
    for mask, _, _ in checks:
        bad |= mask
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    _, field, reason = next(c for c in checks if c[0][i])
    if field is None:  # the size came from whichever field was used
        field = "requested_procs" if requested[i] > 0 else "allocated_procs"
    n = int(bad.sum())
    more = f" ({n} jobs have such problems)" if n > 1 else ""
    raise UnusableJobError(f"{where}: job {ids[i]} (row {i}): field '{field}': {reason(i)}{more}; "
                           f"clean the trace first", row=i, job_id=int(ids[i]), field=field)


def intervals(ids) -> str:
    """Compact core ids as Batsim does: ``[0,1,2,5]`` -> ``"0-2 5"``.

    ``ids`` are distinct (an allocation), in any order.

    Examples
    --------
    >>> intervals([5, 2, 0, 1]), intervals([3]), intervals([4, 3]), intervals([])
    ('0-2 5', '3', '3-4', '')
    """
    n = len(ids)
    if n == 1:
        return str(ids[0])
    if n and max(ids) - min(ids) == n - 1:
        # Distinct ids spanning exactly n values are one block (min/max run in
        # C: most allocations are one block, and this skips the sort).
        return f"{min(ids)}-{max(ids)}"
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


def _intervals_of(allocs: list[list[int]]) -> list[str]:
    """``[intervals(a) for a in allocs]``: the ``allocated_resources`` column.

    On the compiled kernel :mod:`simlib.policies._intervals_kernel` (one
    pass over the ids in C), else with numpy (:func:`_intervals_numpy`);
    ``SIMLIB_KERNELS`` chooses (:mod:`simlib.policies.kernels`).

    Examples
    --------
    >>> _intervals_of([[3], [], [5, 2, 0, 1], [9, 7, 8], [1, 4, 6, 3]])
    ['3', '', '0-2 5', '7-9', '1 3-4 6']
    """
    if any(type(a) is CoreRuns for a in allocs):
        # Runs of consecutive cores (count-based allocation): their blocks
        # directly, without listing every core.
        return [a.intervals() if type(a) is CoreRuns else intervals(a) for a in allocs]
    from .policies import kernels  # here: importing the runner loads no policy module
    kernel = kernels.load(COMPILED_KERNELS[0])
    if kernel is not None:
        return kernel.intervals_of(allocs)
    return _intervals_numpy(allocs)


def _intervals_numpy(allocs: list[list[int]]) -> list[str]:
    """:func:`_intervals_of` with numpy: sort, find the blocks, format once.

    Examples
    --------
    >>> _intervals_numpy([[3], [], [5, 2, 0, 1], [9, 7, 8], [1, 4, 6, 3]])
    ['3', '', '0-2 5', '7-9', '1 3-4 6']
    """
    lens = np.fromiter(map(len, allocs), np.int64, len(allocs))
    total = int(lens.sum())
    if total == 0:
        return [""] * len(allocs)
    cores = np.fromiter(chain.from_iterable(allocs), np.int64, total)
    if cores.min() < 0:
        return [intervals(a) for a in allocs]
    span = int(cores.max()) + 1
    # key = allocation * (span + 1) + core: sorted by allocation, then core;
    # consecutive keys are consecutive cores of one allocation (the extra
    # 1 keeps two allocations' keys from touching).
    stride = span + 1
    key = np.repeat(np.arange(len(allocs), dtype=np.int64) * stride, lens) + cores
    if not (key[1:] > key[:-1]).all():   # allocations usually list their cores in order
        key.sort()
    first = np.ones(total, dtype=bool)  # first core of a block
    np.not_equal(key[1:], key[:-1] + 1, out=first[1:])
    starts = np.flatnonzero(first)
    base = key[starts] // stride * stride  # the block's allocation * stride
    lo = key[starts] - base
    hi = key[np.append(starts[1:], total) - 1] - base
    last = np.append(base[1:] != base[:-1], True)  # last block of its allocation
    # One text for all, one or two tokens a block: "lo-" then "hi" for a
    # range, then " ", or "\n" after the last block of an allocation (a token
    # holds a number and what follows it; each token's text is made once).
    names = [str(c) for c in range(span)]
    tokens = np.array([c + "-" for c in names] + [c + " " for c in names]
                      + [c + "\n" for c in names], dtype=object)
    ranged = lo != hi
    width = 1 + ranged
    at = np.cumsum(width) - width
    index = np.empty(int(width.sum()), dtype=np.int64)
    index[at[ranged]] = lo[ranged]
    index[at + ranged] = hi + np.where(last, 2 * span, span)
    texts = "".join(tokens[index].tolist()).split("\n")
    if len(texts) - 1 == len(allocs):  # no empty allocation
        return texts[:-1]
    out = [""] * len(allocs)
    for i, t in zip(np.flatnonzero(lens).tolist(), texts):
        out[i] = t
    return out


def batsim_table(jobs: list[Job], workload_name: str) -> pd.DataFrame:
    """Per-job results in the Batsim jobs.csv schema (a DataFrame of :func:`batsim_columns`)."""
    return batsim_columns(jobs, workload_name).to_frame()


def batsim_columns(jobs: list[Job], workload_name: str, *, consume: bool = False) -> Table:
    """Per-job results in the Batsim jobs.csv schema, as numpy columns.

    With ``consume`` the jobs are read :data:`TABLE_CHUNK` at a time and
    each chunk's places in ``jobs`` set to None once read: the table grows
    as the Job objects go (a run that does not keep them peaks at one of
    the two, not both).

    Examples
    --------
    >>> from simlib.engine.job import Job
    >>> j = Job(0, 7, 0.0, 2, 10.0, 5.0)
    >>> j.start, j.finish, j.alloc = 1.0, 6.0, [0, 1]
    >>> t = batsim_columns([j], "w")
    >>> t["waiting_time"].tolist(), t["allocated_resources"].tolist(), t["final_state"].tolist()
    ([1.0], ['0-1'], ['COMPLETED_SUCCESSFULLY'])
    """
    names = ("submit", "start", "finish", "killed", "procs", "requested_time")
    dtypes = (float, float, float, bool, np.int64, float)
    parts: dict[str, list] = {name: [] for name in names}
    ids: list[str] = []
    allocated: list[str] = []
    step = TABLE_CHUNK if consume else max(len(jobs), 1)
    for first in range(0, len(jobs), step):
        chunk = jobs[first:first + step]
        for name, dtype in zip(names, dtypes):
            parts[name].append(np.fromiter(map(attrgetter(name), chunk), dtype, len(chunk)))
        ids += map(str, map(attrgetter("job_id"), chunk))
        allocated += _intervals_of([j.alloc for j in chunk])
        if consume:
            jobs[first:first + step] = [None] * len(chunk)
        del chunk
    cols = [np.concatenate(parts[name]) if parts[name] else np.zeros(0, dtype)
            for name, dtype in zip(names, dtypes)]
    return _batsim_table(ids, *cols, allocated, workload_name)


#: Jobs read at a time when a run's table is made from Job objects it does not keep.
TABLE_CHUNK = 100_000


def table_from_columns(cols: dict, out: dict, workload_name: str) -> Table:
    """:func:`batsim_columns` of a columnar run: the jobs' columns
    (:func:`job_columns`) and the schedule's (the compiled EASY loop's
    ``run_columns``: start, finish and each job's runs of cores).

    Examples
    --------
    >>> cols = {"job_id": np.array([7]), "submit": np.array([0.0]), "procs": np.array([3]),
    ...         "requested_time": np.array([9.0])}
    >>> out = {"start": np.array([1.0]), "finish": np.array([4.0]), "run_first": np.array([0]),
    ...        "run_count": np.array([2]), "run_lo": np.array([5, 0]), "run_hi": np.array([5, 1])}
    >>> table_from_columns(cols, out, "w")["allocated_resources"].tolist()
    ['0-1 5']
    """
    n = len(cols["job_id"])
    return _batsim_table(cols["job_id"].astype(str).tolist(), cols["submit"], out["start"],
                         out["finish"], np.zeros(n, dtype=bool), cols["procs"],
                         cols["requested_time"],
                         intervals_of_runs(out["run_first"], out["run_count"], out["run_lo"],
                                           out["run_hi"]), workload_name)


def jobs_from_columns(cols: dict, out: dict) -> list[Job]:
    """The engine's finished jobs of a columnar run (as the engine leaves them)."""
    jobs = _jobs_of(cols)
    first, count = out["run_first"].tolist(), out["run_count"].tolist()
    lo, hi = out["run_lo"].tolist(), out["run_hi"].tolist()
    for job, start, finish, k, c in zip(jobs, out["start"].tolist(), out["finish"].tolist(),
                                        first, count):
        job.state, job.start, job.finish, job.rate, job.cpus = DONE, start, finish, 1.0, job.procs
        job.alloc = CoreRuns(tuple(x for r in range(k, k + c) for x in (lo[r], hi[r])))
        job.estimated_end = start + job.requested_time
        job.work_left, job.last_update, job.version = 0.0, start, 1
    return jobs


def intervals_of_runs(first, count, lo, hi) -> list[str]:
    """Batsim's ``allocated_resources`` of each job from its runs of cores
    (job ``j``: ``lo[first[j]:first[j]+count[j]]`` to the same of ``hi``).

    Examples
    --------
    >>> intervals_of_runs(np.array([0, 1]), np.array([1, 2]), np.array([0, 7, 3]),
    ...                   np.array([2, 7, 4]))
    ['0-2', '3-4 7']
    """
    first, count = first.tolist(), count.tolist()
    lo, hi = lo.tolist(), hi.tolist()
    out = []
    for k, c in zip(first, count):
        if c == 1:  # most jobs: one block
            a, b = lo[k], hi[k]
            out.append(f"{a}-{b}" if a != b else str(a))
        else:
            out.append(CoreRuns(tuple(x for r in range(k, k + c) for x in (lo[r], hi[r])))
                       .intervals())
    return out


def _batsim_table(job_id: list, submit, start, finish, killed, procs, requested,
                  allocated: list, workload_name: str) -> Table:
    """The Batsim jobs.csv columns from per-job arrays (see :func:`batsim_columns`)."""
    n = len(job_id)
    execution = finish - start
    turnaround = finish - submit
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = np.where(execution > 0, turnaround / np.where(execution > 0, execution, 1), np.nan)

    def constant(value):  # as a DataFrame broadcasts a scalar
        return np.full(n, value, dtype=object if isinstance(value, str) else None)

    states = np.array(["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"], dtype=object)
    return Table({
        "job_id": job_id,
        "workload_name": constant(workload_name),
        "profile": constant("rigid"),
        "submission_time": submit,
        "requested_number_of_resources": np.asarray(procs, dtype=np.int64),
        "requested_time": np.asarray(requested, dtype=float),
        "success": np.where(killed, 0, 1),
        "final_state": states[killed.view(np.uint8)],
        "starting_time": start,
        "execution_time": execution,
        "finish_time": finish,
        "waiting_time": start - submit,
        "turnaround_time": turnaround,
        "stretch": stretch,
        "allocated_resources": allocated,
        "consumed_energy": constant(-1.0),
        "metadata": constant(""),
    })


TIMELINE_COLUMNS = ("time", "busy_cpus", "queued_jobs", "processes")


def timeline_frame(rows: list[tuple[float, int, int, int]]) -> pd.DataFrame:
    """The timeline table of a run from the simulator's rows (``Simulator.timeline``).

    Through one float64 array (counts are exact in it, far below 2**53):
    about half the time of pandas reading the tuples one by one. The cells
    are read as one flat stream (``np.fromiter``): half the time again of
    ``np.array`` looking at each tuple's shape.

    Examples
    --------
    >>> timeline_frame([(0.0, 3, 1, 3), (2.5, 0, 0, 0)]).dtypes.tolist()
    [dtype('float64'), dtype('int64'), dtype('int64'), dtype('int64')]
    >>> len(timeline_frame([]))
    0
    """
    import pandas as pd

    width = len(TIMELINE_COLUMNS)
    if isinstance(rows, np.ndarray):  # the compiled loops' rows, already a float64 table
        if rows.ndim != 2 or rows.shape[1] != width:
            raise ValueError(f"timeline rows must have {width} cells each")
        table = rows
    else:
        if rows and set(map(len, rows)) != {width}:  # a flat stream would not notice
            raise ValueError(f"timeline rows must have {width} cells each")
        table = np.fromiter(chain.from_iterable(rows), np.float64,
                            len(rows) * width).reshape(len(rows), width)
    return pd.DataFrame({name: table[:, k] if k == 0 else table[:, k].astype(np.int64)
                         for k, name in enumerate(TIMELINE_COLUMNS)})


def check_machine_size(policy: Policy, cpus) -> None:
    """Refuse a machine too large for ``policy`` before anything is allocated.

    Count-based policies run in memory independent of the number of cores
    (up to :data:`~simlib.policies.base.MAX_CPUS`); a policy that keeps
    state per core (:meth:`~simlib.policies.base.Policy.keeps_core_state`)
    up to :data:`~simlib.policies.base.MAX_CORE_STATE_CPUS`.

    Raises
    ------
    ConfigError
        Naming the size and the limit.

    Examples
    --------
    >>> check_machine_size(make_policy("easy"), 2**40)
    >>> check_machine_size(make_policy("conservative", allocation="contiguous"), 2**31)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: a machine of 2,147,483,648 CPUs is too large for policy ...(2**24)
    """
    from .platform import _positive_int
    from .policies.base import MAX_CORE_STATE_CPUS, MAX_CPUS

    n = _positive_int(cpus, "cpus")
    if n > MAX_CPUS:
        raise ConfigError(f"a machine of {n:,} CPUs is too large: core ids are 64-bit, "
                          f"the limit is {MAX_CPUS:,} CPUs (2**62)")
    if n > MAX_CORE_STATE_CPUS and policy.keeps_core_state():
        raise ConfigError(f"a machine of {n:,} CPUs is too large for policy {policy.name}, "
                          f"which keeps state per core: its limit is {MAX_CORE_STATE_CPUS:,} "
                          "CPUs (2**24)")


def simulate(workload, policy: str | Policy, *, cpus: int | None = None,
             platform: Platform | None = None, policy_params: dict | None = None,
             overrun: str = "kill", debug: bool = False, workload_name: str = "",
             record_timeline: bool = True, commands=(), progress=None,
             execution=None, keep_jobs: bool = True,
             passes: str = "per_timestamp") -> SimResult:
    """Simulate ``workload`` under ``policy`` on a platform of ``cpus`` cores.

    Parameters
    ----------
    workload : Workload or dict
        The jobs, or their columns as :func:`job_columns` gives them (a
        caller that drops its workload then keeps no table of it during the run).
    policy : str or Policy
        Registered name (see :data:`simlib.policies.POLICIES`) or an instance.
    cpus, platform
        Give one: a homogeneous machine of ``cpus`` cores (an integer; an
        integral float such as ``64.0`` is accepted, ``64.7`` is not), or a
        Platform.
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
    execution : ExecutionModel, optional
        When jobs end (default: the rate model, see
        :mod:`simlib.engine.execution`).
    passes : {"per_timestamp", "per_event"}
        When the policy is called: once per timestamp (default), or after
        each event as pybatsim's schedulers are (see
        :class:`~simlib.engine.simulator.Simulator`); ``"per_event"`` always
        runs the engine's Python loop.
    keep_jobs : bool, default True
        Whether the result keeps the engine's Job objects
        (``SimResult.engine_jobs``). Without them the jobs table is made as
        the objects are let go: a run of many jobs peaks lower (what
        ``simlib simulate`` does).

    Notes
    -----
    The policy may run the whole simulation in compiled code
    (:meth:`~simlib.policies.base.Policy.compiled_run`; EASY does when
    nothing else takes part): the same result, faster. ``SIMLIB_KERNELS=python``
    runs the engine's loop instead.

    Raises
    ------
    ConfigError
        Neither or a bad ``cpus`` / ``platform``, an unknown policy or
        parameter, or a workload that cannot be simulated (see
        :func:`jobs_from_workload`: the message names the workload's file,
        the job, the field and the reason).
    """
    if isinstance(policy, str):
        policy = make_policy(policy, **(policy_params or {}))
    if platform is None:
        if cpus is None:
            raise ConfigError("simulate: give cpus or platform")
        check_machine_size(policy, cpus)
        platform = Platform.homogeneous(cpus)
    else:
        check_machine_size(policy, platform.cpus)
    if commands and not policy.elastic:
        # Only the -E/-DE variants process elastic commands; the others run the
        # same jobs without them (and without rounds at command times, which
        # would e.g. inflate Delayed-LOS skip counts).
        commands = ()
    workload = job_columns(workload, cpus=platform.cpus)   # checked here, once
    if (not commands and not debug and overrun == "kill" and execution is None
            and passes == "per_timestamp" and policy.columnar_run is not None):
        res = policy.columnar_run(workload, platform.cpus,
                                  record_timeline=record_timeline, progress=progress,
                                  workload_name=workload_name)
        if res is not None:
            return res
    with gc_paused():  # many long-lived objects, no cycles: see gc_paused
        jobs = jobs_from_workload(workload, cpus=platform.cpus)
        sim = Simulator(platform, jobs, policy, overrun=overrun, debug=debug,
                        record_timeline=record_timeline, commands=commands, progress=progress,
                        execution=execution, passes=passes)
        if not policy.compiled_run(sim):  # EASY alone has a compiled loop
            sim.run()
        timeline = sim.timeline  # its DataFrame is made on first use
        sim.close()  # no reference cycle left: the run is freed with its result
        if not keep_jobs:
            sim.jobs = []   # its own list of them (the policy still points at the simulator)
        table = batsim_columns(jobs, workload_name, consume=not keep_jobs)
    return SimResult(table, timeline, platform.cpus, policy.name, jobs if keep_jobs else None)


def write_jobs_csv(jobs: pd.DataFrame | Table, path) -> None:
    """Write a per-job table as Batsim's ``jobs.csv`` (comma-separated, header).

    ``jobs`` is a DataFrame or a :class:`~simlib.table.Table` (the same text).

    The file is replaced atomically: on any error nothing is left at ``path``
    (an existing file stays as it was). A ``.gz`` path is gzip-compressed
    with a zero time stamp in its header (:func:`simlib.io.write_csv`), so the
    same run gives the same bytes.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> row = [1, 0, -1, 10, 4, -1, -1, 4, 20, -1, 1, 1, 1, 1, 1, 1, -1, -1]
    >>> res = simulate(Workload(pd.DataFrame([row], columns=SWF_FIELDS)), "fcfs", cpus=4)
    >>> path = os.path.join(tempfile.mkdtemp(), "jobs.csv")
    >>> write_jobs_csv(res.jobs, path)
    >>> open(path).readline().split(",")[:3]
    ['job_id', 'workload_name', 'profile']
    """
    write_csv(jobs, path, index=False, lineterminator="\n")


