"""Trace preparation: obtain, verify, clean, subset, rescale and describe.

This is what the pipeline's **traces** rule does to a Parallel Workloads
Archive (PWA) log before any simulation, in this order::

    fetch_trace -> read_swf -> clean -> subset -> rescale_to_load -> write_swf
                                                  characterize (for tables)

Obtaining a trace
-----------------
Traces are never committed to the project.  :mod:`simlib.workload.fetch`
finds, copies or downloads them and verifies their pinned sha256; its names
(:func:`fetch_trace`, :func:`read_manifest`, ...) are re-exported here.

Cleaning rules
--------------
"Size" is the number of processors the job asks for at submission,
``requested_procs`` (SWF field 8): what a scheduler sees.  "Missing" means
the SWF value ``-1`` (any negative value is treated the same way).  The
rules are applied in the order of the table; each one is counted, and each
has an action chosen in :class:`CleaningPolicy` (every rule also accepts
``"error"``, which raises :class:`~simlib.errors.TraceFormatError`).

=====================  =============================  ===========================================  ==============================
rule                   what                           why                                          default action (options)
=====================  =============================  ===========================================  ==============================
runtime_missing        ``run_time`` missing           nothing to simulate without a runtime        ``drop`` (error)
runtime_zero           ``run_time == 0``              jobs that never ran (mostly cancelled        ``drop`` (keep, error)
                                                      while queued): they use no resources and
                                                      their slowdown is undefined
size_from_allocated    ``requested_procs`` missing    the scheduler needs a size; the allocated    ``allocated``: copy field 5
                       or 0, ``allocated_procs`` > 0  count is what the job really ran on          into field 8 (drop, error)
size_missing           both sizes missing or 0        no size at all                               ``drop`` (error)
size_above_machine     size > machine processors      could never start, and would block FCFS /    ``drop`` (clip to the machine,
                                                      the EASY head forever                        error)
request_missing        ``requested_time`` missing     reservations (EASY, LOS, conservative        ``runtime``: use the actual
                       or 0                           backfilling) need an estimate                runtime as a perfect estimate
                                                                                                   (drop, error)
runtime_above_request  ``run_time >                   real resource managers kill a job at its     ``clip`` the runtime to the
                       requested_time``               limit; logs show overruns of a few seconds   request, i.e. the job is
                                                      (grace periods, accounting)                  killed at its limit (drop,
                                                                                                   keep: the engine must then
                                                                                                   handle overruns)
=====================  =============================  ===========================================  ==============================

Job ids are never renumbered; dropped jobs simply disappear (fields 17
``preceding_job`` of other jobs may then name a job that is gone).  The
cleaned workload's header keeps the original lines and gains ``; simlib:``
lines recording the policy and the counts.

Subsetting
----------
:func:`subset` keeps a submit-time window and/or a range of job positions,
then (by default) shifts submit times so the first kept job is submitted at
time 0 -- recorded in the header.

Load
----
The *offered load* is ``sum(size * run_time) / (span * P)`` with ``P`` the
machine's processors and, by default, ``span = last submit - first submit``
(``span="submit"``): known before simulation and exactly inversely
proportional to an inter-arrival scale factor.  The alternative
``span="last_end"`` uses ``max(submit + run_time) - first submit``, the
makespan if no job ever waited (the real makespan is only known after
simulating).  Paper K's ``Load = lambda / M * sum(w.num / mu)`` is the same
quantity with ``lambda = jobs / span``.

Loads are changed as in the LOS papers, by multiplying every inter-arrival
time by a factor (:func:`scale_interarrivals`); the job mix is unchanged.
Scaled submit times are kept as **float seconds**: rounding them to whole
seconds (as archive files have) would move the load off its target, so it
is only an option (``round_to_seconds=True``).

Characterization
----------------
:func:`characterize` computes the columns of paper U's Table 2 (CPUs, jobs,
average CPU utilization ``avg_cpu_time / run_time`` over all jobs and over
*long* jobs -- more than 64 processes and more than 8 hours -- and mean
requested CPUs over machine CPUs) plus runtime percentiles, serial and
power-of-two fractions; :func:`characterization_table` stacks them.

Pipeline steps
--------------
:func:`prepare_trace` and :func:`scale_load` are the pipeline rules of the
same names as functions from files to files: each reads its inputs, calls
the functions above and writes its outputs atomically (:mod:`simlib.io`), a
JSON of facts included. (The characterization table of the traces rule is
:func:`simlib.figures.traces.characterize_traces`.)
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from simlib.errors import ConfigError, TraceFormatError
from simlib.io import write_json, write_text
from simlib.table import Table
from simlib.workload.swf import Workload, max_procs, read_swf, write_swf

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from simlib.workload.fetch import (
        MANIFEST_COLUMNS,
        ManifestEntry,
        TraceDownloadError,
        TraceNotFoundError,
        fetch_trace,
        read_manifest,
        verify_sha256,
    )

#: Names of :mod:`simlib.workload.fetch` re-exported here. They are imported
#: on first use (module ``__getattr__``): fetch pulls in urllib, http and
#: hashlib, which cleaning a trace (``simlib simulate``) does not need.
_FETCH_NAMES = ("MANIFEST_COLUMNS", "ManifestEntry", "TraceDownloadError", "TraceNotFoundError",
                "fetch_trace", "read_manifest", "verify_sha256")


def __getattr__(name: str):
    if name in _FETCH_NAMES:
        from simlib.workload import fetch

        return getattr(fetch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "MANIFEST_COLUMNS",
    "ManifestEntry",
    "read_manifest",
    "verify_sha256",
    "TraceNotFoundError",
    "TraceDownloadError",
    "fetch_trace",
    "CLEANING_RULES",
    "CleaningPolicy",
    "clean",
    "format_cleaning_log",
    "subset",
    "job_size",
    "scale_interarrivals",
    "offered_load",
    "rescale_to_load",
    "LONG_JOB_MIN_PROCS",
    "LONG_JOB_MIN_RUNTIME",
    "CHARACTERIZATION_COLUMNS",
    "characterize",
    "characterization_table",
    "prepare_trace",
    "scale_load",
]

# --------------------------------------------------------------------------
# Cleaning
# --------------------------------------------------------------------------

#: Rule name -> (short description, allowed actions), in application order.
CLEANING_RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "runtime_missing": ("run_time missing", ("drop", "error")),
    "runtime_zero": ("run_time is 0", ("drop", "keep", "error")),
    "size_from_allocated": ("requested_procs missing, allocated_procs used",
                            ("allocated", "drop", "error")),
    "size_missing": ("requested_procs and allocated_procs missing", ("drop", "error")),
    "size_above_machine": ("size above the machine's processors", ("drop", "clip", "error")),
    "request_missing": ("requested_time missing", ("runtime", "drop", "error")),
    "runtime_above_request": ("run_time above requested_time", ("clip", "drop", "keep", "error")),
}


@dataclass(frozen=True)
class CleaningPolicy:
    """The action taken by each cleaning rule (see the module docstring).

    Each attribute is named after a rule of :data:`CLEANING_RULES`; the
    defaults are the documented default actions.

    Examples
    --------
    >>> CleaningPolicy(runtime_above_request="drop").runtime_above_request
    'drop'
    >>> CleaningPolicy.from_mapping({"runtime_zero": "keep"}).runtime_zero
    'keep'
    """

    runtime_missing: str = "drop"
    runtime_zero: str = "drop"
    size_from_allocated: str = "allocated"
    size_missing: str = "drop"
    size_above_machine: str = "drop"
    request_missing: str = "runtime"
    runtime_above_request: str = "clip"

    def __post_init__(self):
        for f in fields(self):
            action = getattr(self, f.name)
            allowed = CLEANING_RULES[f.name][1]
            if action not in allowed:
                raise ConfigError(
                    f"cleaning rule {f.name!r}: unknown action {action!r}; choose one of {list(allowed)}")

    @classmethod
    def from_mapping(cls, mapping) -> CleaningPolicy:
        """Build from a config mapping, rejecting unknown rule names."""
        unknown = set(mapping) - set(CLEANING_RULES)
        if unknown:
            raise ConfigError(f"unknown cleaning rule(s) {sorted(unknown)}; known: {list(CLEANING_RULES)}")
        return cls(**dict(mapping))

    def as_dict(self) -> dict[str, str]:
        """Rule name -> action."""
        return asdict(self)


def _rule_error(workload: Workload, rule: str, field: str, job_ids: np.ndarray, mask) -> None:
    ids = job_ids[mask].tolist()
    shown = ", ".join(str(i) for i in ids[:5]) + (", ..." if len(ids) > 5 else "")
    raise TraceFormatError(
        workload.path or "<workload>", None, field,
        f"{len(ids)} job(s) with {CLEANING_RULES[rule][0]} (job_id {shown}); "
        f"cleaning rule {rule!r} is set to 'error'")


def clean(workload: Workload, machine_procs: int, *,
          policy: CleaningPolicy = CleaningPolicy()) -> tuple[Workload, dict[str, int]]:
    """Apply the cleaning rules of the module docstring to a workload.

    Parameters
    ----------
    workload : Workload
        Input; not modified.
    machine_procs : int
        Processors of the simulated machine (for ``size_above_machine``).
    policy : CleaningPolicy, optional
        Action of each rule; defaults to the documented defaults.

    Returns
    -------
    cleaned : Workload
        Rows re-indexed from 0, job ids untouched, header extended with
        ``; simlib:`` lines describing the policy and counts.
    counts : dict of str to int
        ``jobs_in``, then every rule of :data:`CLEANING_RULES` (jobs it
        matched, whatever the action), then ``jobs_dropped`` and
        ``jobs_out``.  Write it to the trace's log with
        :func:`format_cleaning_log`.

    Raises
    ------
    TraceFormatError
        A rule whose action is ``"error"`` matched some job.
    ConfigError
        ``machine_procs`` is not a positive integer.

    Examples
    --------
    >>> cleaned, counts = clean(workload, 100)           # doctest: +SKIP
    >>> counts["runtime_above_request"]                  # doctest: +SKIP
    475
    """
    if int(machine_procs) != machine_procs or machine_procs < 1:
        raise ConfigError(f"machine_procs must be a positive integer, got {machine_procs!r}")
    table = workload.table
    jobs = {name: table[name] for name in table.columns}  # columns are replaced, not changed
    keep = np.ones(len(table), dtype=bool)
    counts: dict[str, int] = {"jobs_in": len(table)}

    def apply(rule: str, field: str, mask: np.ndarray) -> tuple[str, np.ndarray]:
        mask = mask & keep  # rules only see jobs still in the workload
        counts[rule] = int(mask.sum())
        action = getattr(policy, rule)
        if counts[rule] and action == "error":
            _rule_error(workload, rule, field, jobs["job_id"], mask)
        if action == "drop":
            keep[mask] = False
        return action, mask

    def set_where(name: str, mask: np.ndarray, values) -> None:
        jobs[name] = _set_where(jobs[name], mask, values)

    run = jobs["run_time"]
    apply("runtime_missing", "run_time", run < 0)
    apply("runtime_zero", "run_time", run == 0)

    req, alloc = jobs["requested_procs"], jobs["allocated_procs"]
    action, mask = apply("size_from_allocated", "requested_procs", (req <= 0) & (alloc > 0))
    if action == "allocated":
        set_where("requested_procs", mask, jobs["allocated_procs"])
    apply("size_missing", "requested_procs", (req <= 0) & (alloc <= 0))

    action, mask = apply("size_above_machine", "requested_procs",
                         jobs["requested_procs"] > machine_procs)
    if action == "clip":
        set_where("requested_procs", mask, machine_procs)

    action, mask = apply("request_missing", "requested_time", jobs["requested_time"] <= 0)
    if action == "runtime":
        set_where("requested_time", mask, jobs["run_time"])

    action, mask = apply("runtime_above_request", "run_time",
                         (jobs["requested_time"] > 0) & (jobs["run_time"] > jobs["requested_time"]))
    if action == "clip":
        set_where("run_time", mask, jobs["requested_time"])

    jobs = Table(jobs).take(keep)
    counts["jobs_dropped"] = counts["jobs_in"] - len(jobs)
    counts["jobs_out"] = len(jobs)

    header = list(workload.header)
    header.append(f"; simlib: cleaned by simlib.workload.prepare.clean for a machine of "
                  f"{int(machine_procs)} processors")
    for rule, (what, _) in CLEANING_RULES.items():
        header.append(f"; simlib:   {rule} ({what}): {counts[rule]} jobs -> {getattr(policy, rule)}")
    header.append(f"; simlib:   jobs in {counts['jobs_in']}, dropped {counts['jobs_dropped']}, "
                  f"out {counts['jobs_out']} (job ids unchanged)")
    return Workload(jobs=jobs, header=header, path=workload.path), counts


def _set_where(column: np.ndarray, mask: np.ndarray, values) -> np.ndarray:
    """A copy of ``column`` with ``values`` where ``mask``, as pandas' ``loc`` sets them.

    The column keeps its dtype when that holds the new values exactly (an
    int64 column given integral floats stays int64), else takes their common
    dtype, as ``DataFrame.loc[mask, name] = values`` does.

    Examples
    --------
    >>> col = np.array([1, 2, 3])
    >>> _set_where(col, np.array([False, True, False]), 9).tolist()
    [1, 9, 3]
    >>> _set_where(col, np.array([True, False, False]), np.array([5.0, 0, 0])).dtype
    dtype('int64')
    >>> _set_where(col, np.array([True, False, False]), np.array([0.5, 0, 0])).tolist()
    [0.5, 2.0, 3.0]
    """
    new = np.broadcast_to(np.asarray(values), column.shape)[mask]
    out = column.copy()
    if new.size and new.dtype != column.dtype:
        try:
            cast = new.astype(column.dtype)
            exact = bool((cast == new).all())
        except (TypeError, ValueError, OverflowError):
            exact = False
        if exact:
            new = cast
        else:
            out = out.astype(np.result_type(column, new))
    out[mask] = new
    return out


def format_cleaning_log(name: str, counts: dict[str, int],
                        policy: CleaningPolicy | None = None) -> str:
    """Render the counts returned by :func:`clean` as a per-trace log.

    Parameters
    ----------
    name : str
        Trace name, for the title line.
    counts : dict of str to int
        As returned by :func:`clean`.
    policy : CleaningPolicy, optional
        When given, an ``action`` column is added.

    Returns
    -------
    str
        Plain text, one rule per line, ending with a newline.

    Examples
    --------
    >>> print(format_cleaning_log("KTH", counts))    # doctest: +SKIP
    cleaning log of KTH
    jobs in: 28476
    ...
    """
    lines = [f"cleaning log of {name}", f"jobs in: {counts.get('jobs_in', '?')}"]
    width = max(len(r) for r in CLEANING_RULES)
    head = f"{'rule':<{width}}  {'jobs':>8}"
    lines.append(head + ("  action" if policy is not None else "") + "  what")
    for rule, (what, _) in CLEANING_RULES.items():
        row = f"{rule:<{width}}  {counts.get(rule, 0):>8}"
        if policy is not None:
            row += f"  {getattr(policy, rule):<9}"
        lines.append(row + f"  {what}")
    lines.append(f"jobs dropped: {counts.get('jobs_dropped', '?')}")
    lines.append(f"jobs out: {counts.get('jobs_out', '?')}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Subsetting
# --------------------------------------------------------------------------

def subset(workload: Workload, *, first_job: int | None = None, n_jobs: int | None = None,
           t_start: float | None = None, t_end: float | None = None,
           shift_to_zero: bool = True) -> Workload:
    """Keep a part of a workload, by submit-time window and/or job position.

    The time window ``t_start <= submit_time < t_end`` (trace seconds) is
    applied first, then the positions ``first_job .. first_job + n_jobs - 1``
    (0-based row positions, in file order, *not* job ids) within it.

    Parameters
    ----------
    workload : Workload
        Input; not modified.
    first_job : int, optional
        First row position kept (default 0).
    n_jobs : int, optional
        Number of jobs kept (default: all remaining).
    t_start, t_end : float, optional
        Submit-time window, half-open; unbounded when omitted.
    shift_to_zero : bool, default True
        Subtract the first kept submit time from every submit time, so the
        subset starts at 0 (recorded in the header).

    Returns
    -------
    Workload
        Rows re-indexed from 0, job ids unchanged.

    Raises
    ------
    ConfigError
        Invalid bounds, or nothing left.

    Examples
    --------
    >>> part = subset(workload, first_job=1000, n_jobs=5000)   # doctest: +SKIP
    >>> part.jobs["submit_time"].iloc[0]                        # doctest: +SKIP
    0
    """
    where = workload.path or "<workload>"
    if first_job is not None and (int(first_job) != first_job or first_job < 0):
        raise ConfigError(f"{where}: first_job must be an integer >= 0, got {first_job!r}")
    if n_jobs is not None and (int(n_jobs) != n_jobs or n_jobs < 1):
        raise ConfigError(f"{where}: n_jobs must be an integer >= 1, got {n_jobs!r}")
    if t_start is not None and t_end is not None and t_end <= t_start:
        raise ConfigError(f"{where}: empty submit window [{t_start}, {t_end})")

    import pandas as pd

    jobs = workload.jobs
    mask = pd.Series(True, index=jobs.index)
    if t_start is not None:
        mask &= jobs["submit_time"] >= t_start
    if t_end is not None:
        mask &= jobs["submit_time"] < t_end
    sel = jobs[mask]
    start = int(first_job or 0)
    stop = None if n_jobs is None else start + int(n_jobs)
    sel = sel.iloc[start:stop].reset_index(drop=True)
    if sel.empty:
        raise ConfigError(
            f"{where}: subset is empty (first_job={first_job}, n_jobs={n_jobs}, "
            f"window [{t_start}, {t_end}) on {len(jobs)} jobs)")

    header = list(workload.header)
    header.append(f"; simlib: subset first_job={first_job} n_jobs={n_jobs} "
                  f"t_start={t_start} t_end={t_end}: {len(sel)} of {len(jobs)} jobs kept")
    if shift_to_zero:
        offset = sel["submit_time"].min()
        sel["submit_time"] = sel["submit_time"] - offset
        header.append(f"; simlib: submit times shifted by -{offset} s so the subset starts at 0")
    return Workload(jobs=sel, header=header, path=workload.path)


# --------------------------------------------------------------------------
# Load
# --------------------------------------------------------------------------

def job_size(jobs: pd.DataFrame | Table) -> pd.Series | np.ndarray:
    """Processors of each job: ``requested_procs``, else ``allocated_procs``.

    A Series for a DataFrame, an array for a :class:`~simlib.table.Table`.

    The fallback only matters for uncleaned workloads (cleaning fills field 8).
    Missing sizes stay ``-1``.

    Examples
    --------
    >>> job_size(workload.jobs).max()   # doctest: +SKIP
    100
    """
    req = jobs["requested_procs"]
    if isinstance(req, np.ndarray):
        return np.where(req > 0, req, jobs["allocated_procs"])
    return req.where(req > 0, jobs["allocated_procs"])


_SPANS = ("submit", "last_end")


def _work_and_runs(jobs: Table) -> tuple[float, np.ndarray]:
    size = np.asarray(job_size(jobs), dtype=float).clip(min=0)
    run = np.asarray(jobs["run_time"], dtype=float).clip(min=0)
    return float(np.sum(size * run)), run


def _span(jobs: Table, span: str) -> float:
    submit = np.asarray(jobs["submit_time"], dtype=float)
    if span == "submit":
        return float(submit.max() - submit.min())
    if span == "last_end":
        run = np.asarray(jobs["run_time"], dtype=float).clip(min=0)
        return float((submit + run).max() - submit.min())
    raise ConfigError(f"unknown load span definition {span!r}; choose one of {list(_SPANS)}")


def offered_load(workload: Workload, machine_procs: int, *, span: str = "submit") -> float:
    """Offered load ``sum(size * run_time) / (span * machine_procs)``.

    Parameters
    ----------
    workload : Workload
        Ideally cleaned (missing runtimes/sizes count as 0).
    machine_procs : int
        Processors of the machine.
    span : {"submit", "last_end"}, default "submit"
        ``"submit"``: last submit - first submit.  ``"last_end"``:
        ``max(submit + run_time) - first submit`` (makespan without waiting).

    Returns
    -------
    float

    Raises
    ------
    ConfigError
        Empty workload, zero span, or unknown ``span``.

    Examples
    --------
    >>> offered_load(workload, 100)   # doctest: +SKIP
    0.69
    """
    jobs = workload.table
    if jobs.empty:
        raise ConfigError(f"{workload.path or '<workload>'}: offered load of an empty workload")
    s = _span(jobs, span)
    if s <= 0:
        raise ConfigError(f"{workload.path or '<workload>'}: span is 0 (span={span!r}); "
                          "the offered load is undefined")
    work, _ = _work_and_runs(jobs)
    return work / (s * machine_procs)


def scale_interarrivals(workload: Workload, factor: float, *,
                        round_to_seconds: bool = False) -> Workload:
    """Multiply every inter-arrival time by ``factor``.

    ``new submit_i = submit_0 + factor * (submit_i - submit_0)`` with
    ``submit_0`` the first submit time.  ``factor < 1`` compresses arrivals
    (higher load): with ``span="submit"`` the offered load becomes
    ``load / factor`` exactly.

    Parameters
    ----------
    workload : Workload
        Input; not modified.
    factor : float
        Positive scale factor.
    round_to_seconds : bool, default False
        Round the new submit times to whole seconds (as SWF archive files
        have); off by default because it moves the load off its target.

    Returns
    -------
    Workload
        Submit times as float seconds (unless rounded); header extended.

    Examples
    --------
    >>> scale_interarrivals(workload, 0.5)   # doctest: +SKIP
    """
    if not (isinstance(factor, (int, float, np.floating, np.integer))
            and math.isfinite(factor) and factor > 0):
        raise ConfigError(f"inter-arrival scale factor must be a finite number > 0, got {factor!r}")
    jobs = workload.table
    submit = np.asarray(jobs["submit_time"], dtype=float)
    if len(submit):
        s0 = submit.min()
        new = s0 + float(factor) * (submit - s0)
        jobs = jobs.assign(submit_time=np.rint(new).astype(np.int64) if round_to_seconds else new)
    header = list(workload.header)
    header.append(f"; simlib: inter-arrival times multiplied by {float(factor)!r}"
                  + (" (submit times rounded to seconds)" if round_to_seconds else
                     " (submit times in float seconds)"))
    return Workload(jobs=jobs, header=header, path=workload.path)


def rescale_to_load(workload: Workload, machine_procs: int, target_load: float, *,
                    span: str = "submit", round_to_seconds: bool = False
                    ) -> tuple[Workload, float]:
    """Scale inter-arrival times so the offered load equals ``target_load``.

    With ``span="submit"`` the factor is ``offered_load / target_load``.
    With ``span="last_end"`` it is the smallest factor ``f`` with
    ``max_i(f * d_i + r_i) = W / (target * P)`` (``d_i`` submit offset,
    ``r_i`` runtime, ``W`` total work), found in closed form.

    Parameters
    ----------
    workload : Workload
        Input; not modified.
    machine_procs : int
        Processors of the machine.
    target_load : float
        Wanted offered load, > 0.
    span : {"submit", "last_end"}, default "submit"
        Load definition, see :func:`offered_load`.
    round_to_seconds : bool, default False
        Passed to :func:`scale_interarrivals`.

    Returns
    -------
    workload : Workload
        Rescaled.
    factor : float
        Inter-arrival scale factor used.

    Raises
    ------
    ConfigError
        Non-positive target, undefined load, or (``"last_end"``) a target
        no factor can reach because single jobs already span too long.

    Examples
    --------
    >>> w70, f = rescale_to_load(workload, 128, 0.7)   # doctest: +SKIP
    >>> round(offered_load(w70, 128), 12)               # doctest: +SKIP
    0.7
    """
    if not (math.isfinite(target_load) and target_load > 0):
        raise ConfigError(f"target load must be a finite number > 0, got {target_load!r}")
    if span == "submit":
        factor = offered_load(workload, machine_procs, span="submit") / target_load
    elif span == "last_end":
        jobs = workload.table
        if jobs.empty:
            raise ConfigError(f"{workload.path or '<workload>'}: offered load of an empty workload")
        work, run = _work_and_runs(jobs)
        submit = np.asarray(jobs["submit_time"], dtype=float)
        d = submit - submit.min()
        target_span = work / (target_load * machine_procs)
        moving = d > 0
        # Jobs submitted with the first one do not move: their end bounds the span.
        if not moving.any() or run[~moving].max() > target_span or (
                (target_span - run[moving]) <= 0).any():
            raise ConfigError(
                f"{workload.path or '<workload>'}: target load {target_load} is unreachable "
                f"with span='last_end' (the longest job alone spans {run.max()} s > "
                f"{target_span} s)")
        factor = float(np.min((target_span - run[moving]) / d[moving]))
    else:
        raise ConfigError(f"unknown load span definition {span!r}; choose one of {list(_SPANS)}")
    scaled = scale_interarrivals(workload, factor, round_to_seconds=round_to_seconds)
    scaled.header.append(f"; simlib: rescaled to offered load {target_load} on {machine_procs} "
                         f"processors (span={span!r}, factor {factor!r})")
    return scaled, factor


# --------------------------------------------------------------------------
# Characterization
# --------------------------------------------------------------------------

#: Paper U's long jobs: more than 64 processes and more than 8 hours.
LONG_JOB_MIN_PROCS = 64
LONG_JOB_MIN_RUNTIME = 8 * 3600

_PERCENTILES = (10, 25, 50, 75, 90, 99)

#: Keys of :func:`characterize`, in table order.
CHARACTERIZATION_COLUMNS: tuple[str, ...] = (
    "jobs", "machine_cpus", "offered_load", "span_s",
    *(f"runtime_p{p}" for p in _PERCENTILES),
    "cpu_util_mean", "cpu_util_jobs",
    "long_jobs", "long_cpu_util_mean", "long_cpu_util_jobs",
    "req_cpus_ratio", "serial_fraction", "pow2_fraction", "pow2_parallel_fraction",
)


def _mean_or_nan(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def characterize(workload: Workload, machine_procs: int) -> dict:
    """Describe a workload (paper U's Table 2 and more).

    Parameters
    ----------
    workload : Workload
        Usually cleaned.
    machine_procs : int
        Processors of the machine.

    Returns
    -------
    dict
        Keys :data:`CHARACTERIZATION_COLUMNS`:

        - ``jobs``, ``machine_cpus``;
        - ``offered_load`` (``span="submit"``, NaN if the span is 0) and
          ``span_s`` (last - first submit, seconds);
        - ``runtime_p10`` ... ``runtime_p99``: percentiles (linear
          interpolation) of ``run_time`` over jobs where it is present;
        - ``cpu_util_mean``: mean of ``avg_cpu_time / run_time`` (fields
          6 / 4) clipped to [0, 1], over the ``cpu_util_jobs`` jobs where
          both are present and ``run_time > 0`` (NaN if none);
        - ``long_jobs``: jobs with size > 64 and ``run_time`` > 8 h; and
          ``long_cpu_util_mean`` / ``long_cpu_util_jobs``, the same mean
          restricted to them;
        - ``req_cpus_ratio``: mean size / machine processors;
        - ``serial_fraction``: fraction of jobs of size 1;
        - ``pow2_fraction``: fraction whose size is a power of two (1
          included); ``pow2_parallel_fraction``: the same among size > 1.

        Size is :func:`job_size`; fractions are over jobs with a size.

    Examples
    --------
    >>> characterize(workload, 100)["runtime_p50"]   # doctest: +SKIP
    848.0
    """
    jobs = workload.jobs
    out: dict = {"jobs": int(len(jobs)), "machine_cpus": int(machine_procs)}
    try:
        out["offered_load"] = offered_load(workload, machine_procs)
    except ConfigError:
        out["offered_load"] = float("nan")
    submit = jobs["submit_time"].to_numpy(dtype=float)
    out["span_s"] = float(submit.max() - submit.min()) if len(submit) else float("nan")

    run = jobs["run_time"].to_numpy(dtype=float)
    present = run[run >= 0]
    for p in _PERCENTILES:
        out[f"runtime_p{p}"] = float(np.percentile(present, p)) if len(present) else float("nan")

    cpu = jobs["avg_cpu_time"].to_numpy(dtype=float)
    size = job_size(jobs).to_numpy(dtype=float)
    has_util = (cpu >= 0) & (run > 0)
    util = np.zeros(len(jobs))
    util[has_util] = np.clip(cpu[has_util] / run[has_util], 0.0, 1.0)
    out["cpu_util_mean"] = _mean_or_nan(util[has_util])
    out["cpu_util_jobs"] = int(has_util.sum())
    long = (size > LONG_JOB_MIN_PROCS) & (run > LONG_JOB_MIN_RUNTIME)
    out["long_jobs"] = int(long.sum())
    out["long_cpu_util_mean"] = _mean_or_nan(util[has_util & long])
    out["long_cpu_util_jobs"] = int((has_util & long).sum())

    sized = size[size > 0]
    out["req_cpus_ratio"] = _mean_or_nan(sized) / machine_procs
    out["serial_fraction"] = _mean_or_nan((sized == 1).astype(float))
    # Sizes are integers in SWF; a non-integral size is simply not a power of two.
    integral = sized == np.floor(sized)
    as_int = np.where(integral, sized, 3).astype(np.int64)
    pow2 = integral & ((as_int & (as_int - 1)) == 0)
    out["pow2_fraction"] = _mean_or_nan(pow2.astype(float))
    out["pow2_parallel_fraction"] = _mean_or_nan(pow2[sized > 1].astype(float))
    return out


def characterization_table(rows: dict[str, dict]) -> pd.DataFrame:
    """Stack :func:`characterize` results into one table.

    Parameters
    ----------
    rows : dict of str to dict
        Workload name -> characterization.

    Returns
    -------
    pandas.DataFrame
        One row per workload (index named ``workload``, in the given order),
        columns :data:`CHARACTERIZATION_COLUMNS` then any extra keys; ready
        for ``to_csv`` / ``to_markdown``.

    Examples
    --------
    >>> table = characterization_table({"KTH": characterize(kth, 100)})  # doctest: +SKIP
    >>> table.loc["KTH", "jobs"]                                          # doctest: +SKIP
    28476
    """
    extra: list[str] = []
    for row in rows.values():
        for key in row:
            if key not in CHARACTERIZATION_COLUMNS and key not in extra:
                extra.append(key)
    columns = [*CHARACTERIZATION_COLUMNS, *extra]
    import pandas as pd

    table = pd.DataFrame([{c: row.get(c, np.nan) for c in columns} for row in rows.values()],
                         index=pd.Index(list(rows), name="workload"), columns=columns)
    return table


# --------------------------------------------------------------------------
# Pipeline steps: files in, files out
# --------------------------------------------------------------------------

def prepare_trace(raw, machine_procs: int, *, trace: str, scale: str, swf, cleaning_log, info,
                  cleaning: Mapping | None = None, unsorted: str = "reject", first_job: int = 0,
                  n_jobs: int | None = None, log=None) -> dict:
    """Clean one trace and keep the part a scale simulates (rule ``prepare_trace``).

    Reads ``raw``, applies :func:`clean` with the ``cleaning`` policy,
    keeps :func:`subset` ``(first_job, n_jobs)`` and writes it to ``swf``,
    the :func:`format_cleaning_log` to ``cleaning_log``, and the facts to
    ``info`` (JSON).

    Parameters
    ----------
    raw : path
        The trace (SWF, gzip or not).
    machine_procs : int
        Processors of the machine (not the header's MaxProcs: some logs
        state it wrongly).
    trace, scale : str
        Names recorded in the outputs.
    swf, cleaning_log, info : path
        Outputs.
    cleaning : mapping, optional
        :meth:`CleaningPolicy.from_mapping` (default: the default actions).
    unsorted : str, default "reject"
        What :func:`~simlib.workload.swf.read_swf` does with a log not in
        submit order.
    first_job, n_jobs : int
        The part kept: positions in the cleaned trace (``n_jobs`` None:
        to the end).
    log : logging.Logger, optional
        Gets the jobs read, the cleaning log and the jobs kept.

    Returns
    -------
    dict
        What ``info`` holds: names, machine and header processors, the
        policy and its counts, the part kept, and :func:`characterize` of
        the whole cleaned trace and of the part.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "raw.swf").write_text(
    ...     "1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\\n"
    ...     "2 5 -1 0 4 -1 -1 4 200 -1 0 -1 -1 -1 -1 -1 -1 -1\\n"
    ...     "3 9 -1 50 2 -1 -1 2 60 -1 1 -1 -1 -1 -1 -1 -1 -1\\n")
    >>> facts = prepare_trace(d / "raw.swf", 8, trace="T", scale="smoke", swf=d / "T.swf",
    ...                       cleaning_log=d / "T.txt", info=d / "T.json", n_jobs=1)
    >>> facts["cleaning_counts"]["runtime_zero"], facts["subset"]["jobs"]
    (1, 1)
    """
    wl = read_swf(raw, unsorted=unsorted)
    if log is not None:
        log.info("read %d jobs from %s (header MaxProcs %s)", len(wl.jobs), raw, max_procs(wl))
    policy = CleaningPolicy.from_mapping(cleaning or {})
    cleaned, counts = clean(wl, machine_procs, policy=policy)
    text = format_cleaning_log(trace, counts, policy)
    write_text(cleaning_log, text, encoding="utf-8")
    if log is not None:
        log.info("cleaning:\n%s", text)
    part = subset(cleaned, first_job=first_job, n_jobs=n_jobs)
    if log is not None:
        log.info("kept %d jobs from index %d (n_jobs=%s)", len(part.jobs), first_job, n_jobs)
    write_swf(part, swf)
    facts = {
        "trace": trace,
        "scale": scale,
        "machine_procs": machine_procs,
        "header_max_procs": max_procs(wl),
        "cleaning_policy": policy.as_dict(),
        "cleaning_counts": counts,
        "subset": {"first_job": first_job, "n_jobs": n_jobs, "jobs": len(part.jobs)},
        "characterization": {
            "cleaned": characterize(cleaned, machine_procs),
            "subset": characterize(part, machine_procs),
        },
    }
    write_json(facts, info)
    return facts


def scale_load(source, machine_procs: int, target_load: float, *, trace: str, scale: str,
               swf, info, log=None) -> dict:
    """Rescale a prepared trace to a target offered load (rule ``scale_load``).

    Inter-arrival times are multiplied by one factor
    (:func:`rescale_to_load`, the LOS papers' method). Submit times are
    rounded to whole seconds so that ``swf`` is a valid SWF file any
    simulator reads; the load reached therefore misses the target by a
    rounding error (~1e-7 at smoke scale), and ``info`` records both the
    factor and the load reached.

    Parameters
    ----------
    source : path
        The prepared trace (SWF).
    machine_procs : int
        Processors of the machine.
    target_load : float
        Wanted offered load (:func:`offered_load`, submit span), > 0.
    trace, scale : str
        Names recorded in ``info``.
    swf, info : path
        Outputs: the rescaled trace and its facts (JSON).
    log : logging.Logger, optional
        Gets the loads before and after and the factor.

    Returns
    -------
    dict
        What ``info`` holds.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rest = "-1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\\n"  # 100 s on 4 CPUs
    >>> _ = (d / "t.swf").write_text(f"1 0 {rest}2 100 {rest}")
    >>> facts = scale_load(d / "t.swf", 8, 0.5, trace="T", scale="smoke", swf=d / "s.swf",
    ...                    info=d / "s.json")
    >>> facts["original_offered_load"], facts["offered_load"], facts["interarrival_factor"]
    (1.0, 0.5, 2.0)
    """
    wl = read_swf(source)
    before = offered_load(wl, machine_procs)
    scaled, factor = rescale_to_load(wl, machine_procs, target_load, round_to_seconds=True)
    after = offered_load(scaled, machine_procs)
    if log is not None:
        log.info("offered load %.6f -> %.6f (target %s), inter-arrival factor %.6f",
                 before, after, target_load, factor)
    write_swf(scaled, swf)
    facts = {
        "trace": trace,
        "scale": scale,
        "machine_procs": machine_procs,
        "target_load": target_load,
        "original_offered_load": before,
        "offered_load": after,
        "interarrival_factor": factor,
        "jobs": len(scaled.jobs),
    }
    write_json(facts, info)
    return facts
