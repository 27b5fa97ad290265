"""Paper U's workload transformations, each returning a new
:class:`~simlib.workload.swf.Workload` (input untouched) with one ``; simlib:``
header line saying what was done.

* :func:`toy_workload` -- Fig. 2's hand-made jobs (CPU utilization 1, as the
  paper's footnote assumes).
* :func:`fit_sizes_to_window` (``fit: sizes``) and :func:`fit_to_window`
  (``fit: runtimes``) -- Table 1's "150 jobs to be launched during 2 hours"
  at 30-90 % load. The Lublin-Feitelson model's 150 jobs carry several
  machine-loads of 2 hours, so arrivals alone cannot be calibrated: both map
  the submit times onto the window, then reach the load through the sizes or
  the runtimes (README, interpretation 5).
* :func:`long_jobs`, :func:`set_long_job_cpu_util` and :func:`densest_window`
  -- Sect. 5.1's long jobs (> 64 processes and > 8 h, Table 2's definition),
  their CPU utilization varied, on the window holding the most of them
  (README, interpretation 9).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from simlib.errors import ConfigError
from simlib.workload.prepare import LONG_JOB_MIN_PROCS, LONG_JOB_MIN_RUNTIME, job_size
from simlib.workload.swf import SWF_FIELDS, Workload

__all__ = ["toy_workload", "fit_sizes_to_window", "fit_to_window", "long_jobs",
           "set_long_job_cpu_util", "densest_window"]


def toy_workload(rows: Sequence[Sequence[float]], *, name: str = "toy") -> Workload:
    """A small workload from ``(submit, size, runtime)`` rows (submit times
    non-decreasing, sizes and runtimes > 0; ``name`` in errors and the header).

    Job ids are 1..n in row order; requested time = runtime (exact
    estimates) and average CPU time = runtime (CPU utilization 1).
    """
    cols = {f: np.full(len(rows), -1, dtype=np.int64) for f in SWF_FIELDS}
    last = -math.inf
    for i, row in enumerate(rows):
        if len(row) != 3:
            raise ConfigError(f"{name}: row {i} must be (submit, size, runtime), got {list(row)!r}")
        submit, size, run = row
        if submit < last or submit < 0 or size < 1 or run <= 0 or any(int(x) != x for x in row):
            raise ConfigError(f"{name}: row {i} {list(row)!r}: submit times must be non-decreasing "
                              "and >= 0, sizes >= 1 and runtimes > 0, all integers (SWF times "
                              "are whole seconds: use any time unit, but integers)")
        last = submit
        cols["job_id"][i] = i + 1
        cols["submit_time"][i] = int(submit)
        cols["run_time"][i] = int(run)
        cols["allocated_procs"][i] = cols["requested_procs"][i] = int(size)
        cols["requested_time"][i] = int(run)
        cols["status"][i] = 1
    jobs = pd.DataFrame(cols, columns=list(SWF_FIELDS))
    jobs["avg_cpu_time"] = jobs["run_time"].astype(np.float64)
    jobs["used_memory"] = jobs["used_memory"].astype(np.float64)
    header = [f"; Computer: {name} (hand-made jobs, simlib.studies.utrera.transforms.toy_workload)",
              "; simlib: requested_time = run_time, avg_cpu_time = run_time (CPU utilization 1)"]
    return Workload(jobs=jobs, header=header, path=None)


def _scaled_runs(run: np.ndarray, f: float) -> np.ndarray:
    # Whole seconds (SWF), at least 1 s so no job vanishes.
    return np.maximum(1, np.rint(run * f)).astype(np.int64)


def _solve_step(fn, target: float, hi: float) -> float:
    """``x >= 0`` with ``fn(x)`` closest to ``target``, ``fn`` a non-decreasing step function.

    Bisects for the smallest ``x`` reaching ``target`` (``hi`` is doubled
    until it does: the caller ensures it can), then keeps whichever
    neighbour is closer (ties: the smaller).

    Examples
    --------
    >>> _solve_step(lambda x: float(np.floor(x)), 3.0, 1.0)
    3.0
    """
    lo = 0.0
    for _ in range(1100):  # bounded: float rounding must not loop forever
        if fn(hi) >= target:
            break
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if fn(mid) >= target:
            hi = mid
        else:
            lo = mid
    return min((lo, hi), key=lambda x: (abs(fn(x) - target), x)) if lo > 0 else hi


def _window_arrays(workload: Workload, span: float):
    """Checked ``(where, jobs, size, run, new_submit)`` for fitting a workload to a window
    (span and load > 0: the grid's schema)."""
    where = workload.path or "<workload>"
    jobs = workload.jobs.copy().reset_index(drop=True)
    if len(jobs) < 2:
        raise ConfigError(f"{where}: fitting to a window needs at least 2 jobs")
    size = job_size(jobs).to_numpy(dtype=float)
    run = jobs["run_time"].to_numpy(dtype=float)
    if (size <= 0).any() or (run <= 0).any():
        raise ConfigError(f"{where}: every job needs a size and a runtime > 0 to fit a window")
    submit = jobs["submit_time"].to_numpy(dtype=float)
    if np.any(np.diff(submit) < 0):
        raise ConfigError(f"{where}: jobs must be sorted by submit time")
    # First job at 0, last at the span, relative spacing kept (whole seconds).
    t0, t1 = submit[0], submit[-1]
    new_submit = (np.floor((submit - t0) * (span / (t1 - t0))) if t1 > t0
                  else np.zeros_like(submit))
    new_submit[-1] = math.floor(span) if t1 > t0 else 0.0
    return where, jobs, size, run, new_submit


def _set_times(jobs: pd.DataFrame, new_submit, run, f: float) -> np.ndarray:
    """Write the new submit times and the runtimes x ``f``; requests and CPU times follow."""
    new_run = _scaled_runs(run, f)
    jobs["submit_time"] = new_submit.astype(np.int64)
    jobs["run_time"] = new_run
    req = jobs["requested_time"].to_numpy(dtype=float)
    jobs["requested_time"] = np.where(req > 0, np.maximum(new_run, np.rint(req * f)), -1).astype(np.int64)
    # CPU utilization (field 6 / field 4) unchanged.
    cpu = jobs["avg_cpu_time"].to_numpy(dtype=float)
    jobs["avg_cpu_time"] = np.where(cpu >= 0, np.minimum(cpu / run, 1.0) * new_run, -1.0)
    return new_run


def _nudge_sizes(size: np.ndarray, run: np.ndarray, machine_size: int, target: float,
                 slack: float) -> tuple[np.ndarray, int]:
    """Move single jobs' sizes by one process until the work is within ``slack`` of ``target``.

    Nothing moves when ``sum(size * run)`` is already within ``slack`` of
    ``target``. Otherwise passes go over the jobs in a fixed order --
    largest work ``size * run`` first, ties by job index -- and move a job
    by one process towards the target (up when the work is below, down when
    above; sizes stay in ``[1, machine_size]``) whenever the work then does
    not pass the target, or lands within ``slack`` of it: every move goes
    the same way. Should that stall outside ``slack``, further passes also
    take moves past the target that leave the work strictly closer. Passes
    stop once within ``slack``, or when one moves nothing (as close as
    this gets; the caller judges). Deterministic. Returns the new sizes (a
    copy) and the number of one-process moves made.

    Examples
    --------
    >>> s, n = _nudge_sizes(np.array([2, 2, 1]), np.array([30, 20, 5]), 8, 85, 2)
    >>> s.tolist(), n, int(np.sum(s * np.array([30, 20, 5])))
    ([2, 1, 1], 1, 85)
    >>> _nudge_sizes(np.array([2, 2, 1]), np.array([30, 20, 5]), 8, 130, 10)[0].tolist()
    [3, 2, 1]
    >>> _nudge_sizes(np.array([1, 1]), np.array([100, 100]), 8, 290, 5)  # closest: 300
    (array([2, 1]), 1)
    """
    size = np.array(size, dtype=np.int64)
    run = np.asarray(run, dtype=np.int64)
    order = np.argsort(-(size * run), kind="stable")
    work, moved = int(np.sum(size * run)), 0
    # Moves a pass takes: not past the target (or within the slack), then
    # strictly closer. Both shrink |gap|, so the passes end.
    for takes in (lambda r, gap: r - abs(gap) <= slack, lambda r, gap: r < 2 * abs(gap)):
        while abs(work - target) > slack:
            before = moved
            for i in order:
                gap = target - work
                if abs(gap) <= slack:
                    break
                step = 1 if gap > 0 else -1
                if takes(run[i], gap) and 1 <= size[i] + step <= machine_size:
                    size[i] += step
                    work += step * int(run[i])
                    moved += 1
            if moved == before:
                break
    return size, moved


def fit_sizes_to_window(workload: Workload, *, span: float, machine_size: int, load: float,
                        mean_runtime: float, tolerance: float = 0.01
                        ) -> tuple[Workload, float, float]:
    """Submit every job within ``span`` s with mean runtime ``mean_runtime``; load via sizes.

    Submit times as in :func:`fit_to_window`; every runtime times one factor
    ``f`` (whole seconds >= 1) to the mean ``mean_runtime``, the same ``f``
    at every load; every size times one factor ``g``, rounded and clipped to
    ``[1, machine_size]``, ``g`` bringing the offered load closest to
    ``load``. Jobs of equal size round together, so the load jumps with
    ``g`` and may miss ``tolerance`` at every ``g`` (Lublin seed 7 at load
    0.3: 0.2969 or 0.3032); then single jobs' sizes move by one process
    (:func:`_nudge_sizes`; the header counts the moves). Requested and CPU
    times follow the runtimes, ``allocated_procs`` the sizes. Nothing is drawn.

    A load sizes cannot reach is an error, not a silently different load:
    all jobs serial offer ``sum(run) / (span * machine_size)``, all jobs
    machine-wide ``sum(run) / span`` (1.08 for 150 jobs of 52 s in 2 h).
    ``tolerance``: the largest relative error of the mean runtime and of the
    load (whole seconds and processes make both inexact); ConfigError beyond
    it. Returns the workload, ``f`` and ``g``.
    """
    where, jobs, size, run, new_submit = _window_arrays(workload, span)
    mean_of = lambda f: float(np.mean(_scaled_runs(run, f)))  # noqa: E731
    f = _solve_step(mean_of, mean_runtime, mean_runtime / float(run.mean()))
    if abs(mean_of(f) / mean_runtime - 1) > tolerance:
        raise ConfigError(f"{where}: mean runtime {mean_runtime} s reached only "
                          f"{mean_of(f):.6g} s (tolerance {tolerance})")
    new_run = _set_times(jobs, new_submit, run, f).astype(float)

    # The load is a non-decreasing step function of g, between all-serial
    # (g -> 0) and all-machine-wide (g -> inf) jobs.
    cap = machine_size * span
    sizes_of = lambda g: np.clip(np.rint(size * g), 1, machine_size)  # noqa: E731
    load_of = lambda g: float(np.sum(sizes_of(g) * new_run)) / cap  # noqa: E731
    low, high = float(new_run.sum()) / cap, float(new_run.sum()) / span
    if not low * (1 - tolerance) <= load <= high * (1 + tolerance):
        raise ConfigError(
            f"{where}: load {load} is unreachable through job sizes with mean runtime "
            f"{mean_runtime} s in {span:g} s on {machine_size} CPUs: sizes in "
            f"[1, {machine_size}] give loads {low:.4g} to {high:.4g}")
    g = _solve_step(load_of, min(load, high), load / (float(np.sum(size * new_run)) / cap))
    new_size = sizes_of(g).astype(np.int64)
    # Jobs of equal size round together, so the load can jump over the
    # tolerance at every g: then single jobs move by one process.
    new_size, moved = _nudge_sizes(new_size, new_run.astype(np.int64), machine_size,
                                   load * cap, tolerance * load * cap)
    achieved = float(np.sum(new_size * new_run)) / cap
    if abs(achieved / load - 1) > tolerance:
        raise ConfigError(f"{where}: fitting sizes to load {load} reached only {achieved:.6g} "
                          f"(tolerance {tolerance}): too few jobs for whole processes")
    jobs["requested_procs"] = new_size
    jobs["allocated_procs"] = np.where(jobs["allocated_procs"] > 0, new_size, -1).astype(np.int64)
    header = [*workload.header,
              f"; simlib: fit_sizes_to_window: submit times mapped onto [0, {span:g}] s, "
              f"runtimes (and requests) x {f!r} rounded to whole seconds >= 1 (mean "
              f"{float(new_run.mean())!r} s, target {mean_runtime}), sizes x {g!r} rounded and clipped "
              f"to [1, {machine_size}]"
              + (f", then {moved} job(s) moved by one process (largest work first)" if moved else "")
              + f": offered load {achieved!r} on {machine_size} CPUs (target {load})"]
    return Workload(jobs=jobs, header=header, path=workload.path), float(f), float(g)


def fit_to_window(workload: Workload, *, span: float, machine_size: int, load: float,
                  tolerance: float = 0.01) -> tuple[Workload, float]:
    """Submit every job within ``span`` seconds at offered load ``load``.

    Submit times are mapped linearly onto ``[0, span]`` (first job at 0,
    last at ``span``, floored to whole seconds), keeping the arrival order
    and relative spacing; every runtime times one factor ``f`` (whole
    seconds >= 1) bringing ``sum(size * runtime) / (span * machine_size)``
    closest to ``load``. Requested times get the same factor (never below
    the runtime), CPU times too (CPU utilization unchanged). ``tolerance``:
    the largest relative error of the load reached; ConfigError beyond it.
    Returns the workload and ``f``.
    """
    where, jobs, size, run, new_submit = _window_arrays(workload, span)
    target = load * machine_size * span
    work = lambda f: float(np.sum(size * _scaled_runs(run, f)))  # noqa: E731
    if work(0.0) > target * (1 + tolerance):
        raise ConfigError(
            f"{where}: load {load} is unreachable in {span} s on {machine_size} CPUs: even "
            f"1-second jobs offer {work(0.0) / (machine_size * span):.4g}")
    f = _solve_step(work, target, target / float(np.sum(size * run)))
    achieved = work(f) / (machine_size * span)
    if abs(achieved / load - 1) > tolerance:
        raise ConfigError(f"{where}: fitting to load {load} reached only {achieved:.6g} "
                          f"(tolerance {tolerance}): too few jobs for whole-second runtimes")
    _set_times(jobs, new_submit, run, f)
    header = [*workload.header,
              f"; simlib: fit_to_window: submit times mapped onto [0, {span:g}] s, runtimes "
              f"(and requests) x {f!r} rounded to whole seconds >= 1: offered load "
              f"{achieved!r} on {machine_size} CPUs (target {load})"]
    return Workload(jobs=jobs, header=header, path=workload.path), float(f)


def long_jobs(workload: Workload, *, min_procs: int = LONG_JOB_MIN_PROCS,
              min_runtime: float = LONG_JOB_MIN_RUNTIME) -> np.ndarray:
    """Boolean mask of paper U's *long* jobs: size > 64 and runtime > 8 h."""
    j = workload.jobs
    size = job_size(j).to_numpy(dtype=float)
    run = j["run_time"].to_numpy(dtype=float)
    return (size > min_procs) & (run > min_runtime)


def set_long_job_cpu_util(workload: Workload, util: float, *, mode: str = "set",
                          missing: float = 1.0, min_procs: int = LONG_JOB_MIN_PROCS,
                          min_runtime: float = LONG_JOB_MIN_RUNTIME) -> Workload:
    """Give the long jobs an average CPU utilization of ``util`` (in [0, 1]).

    CPU utilization of a job is SWF field 6 / field 4 (average CPU time
    over runtime, paper U's footnote 2); only field 6 of long jobs
    (:func:`long_jobs`) changes. ``mode`` "set": every long job gets exactly
    ``util``; "scale": each long job's own utilization is multiplied by
    ``util / current average`` and clipped to [0, 1], keeping their spread
    (the average then falls short of ``util`` when clipping bites),
    ``missing`` being the utilization of a long job without CPU time (the
    fcfs_malleable policy's default).
    """
    jobs = workload.jobs.copy()
    mask = long_jobs(workload, min_procs=min_procs, min_runtime=min_runtime)
    run = jobs["run_time"].to_numpy(dtype=float)
    cpu = jobs["avg_cpu_time"].to_numpy(dtype=float).copy()
    if mode == "set":
        new_util = np.full(int(mask.sum()), float(util))
    else:
        cur = np.where(cpu[mask] >= 0, np.clip(cpu[mask] / run[mask], 0.0, 1.0), missing)
        mean = float(cur.mean()) if cur.size else 0.0
        new_util = np.clip(cur * (util / mean), 0.0, 1.0) if mean > 0 else np.full(cur.size, util)
    cpu[mask] = new_util * run[mask]
    jobs["avg_cpu_time"] = cpu
    header = [*workload.header,
              f"; simlib: CPU utilization of the {int(mask.sum())} long jobs (size > {min_procs}, "
              f"runtime > {min_runtime:g} s) {mode} to {util!r}"]
    return Workload(jobs=jobs, header=header, path=workload.path)


def densest_window(flags, n: int) -> tuple[int, int]:
    """The window of ``n`` consecutive positions holding the most flagged ones.

    Sect. 5.1's portion when ``long_util.portion.first_job`` is
    ``densest``: ``flags`` is :func:`long_jobs` of the cleaned trace, in file
    order. Returns the window's 0-based first position and its count of
    flagged positions (ValueError unless 1 <= ``n`` <= ``len(flags)``).
    Deterministic: the earliest window wins a tie.
    """
    f = np.asarray(flags, dtype=bool)
    n = int(n)
    if not 1 <= n <= len(f):
        raise ValueError(f"window of {n} positions in a sequence of {len(f)}")
    cum = np.concatenate([[0], np.cumsum(f, dtype=np.int64)])
    counts = cum[n:] - cum[:-n]
    first = int(np.argmax(counts))  # the first maximum
    return first, int(counts[first])
