"""Scheduling metrics, one named function per published definition.

The four papers reproduced here (ids U, K, D, Z in ``shared/DESIGN.md``) use
metrics that share names but not formulas: U's *slowdown* divides by the
expanded execution time, K's *slowdown* is a ratio of means, Z's *bounded
relative response time* is what others call bounded slowdown. Each definition
therefore has its own function whose docstring states the formula and its
source; nothing in this module switches definitions behind the caller's back.

Inputs
------
``jobs``
    A per-job table in the Batsim ``jobs.csv`` schema (``submission_time``,
    ``starting_time``, ``execution_time``, ``finish_time``,
    ``waiting_time``, ``turnaround_time``, ``requested_number_of_resources``,
    ...), as returned in ``SimResult.jobs`` (or its numpy columns,
    ``SimResult.table``: the generic metrics read columns only). Every row counts, including jobs
    killed at their walltime (``success == 0``): they did occupy the machine.
    Filter the table first to evaluate a subset (e.g. Z's job classes).
``timeline``
    A piecewise-constant system state with columns ``time``, ``busy_cpus``,
    ``queued_jobs`` and ``processes``: row *i* holds from ``time[i]`` until
    ``time[i+1]``; the last row marks the end of the simulation and so has
    zero duration. Time-averaged metrics use the span from the first to the
    last row unless a ``span`` is given.

Empty inputs give ``nan`` rather than an exception, so a cube cell of an
empty run stays visibly missing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, Union

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: A column name or one value per job (a sequence, an array, a Series).
ArrayOrColumn = Union[str, Sequence[float], np.ndarray, "pd.Series"]

__all__ = [
    "METRICS",
    "DEFAULT_TAU",
    "wait_times",
    "mean_wait",
    "wait_percentile",
    "max_wait",
    "response_times",
    "mean_response",
    "bounded_slowdowns",
    "mean_bounded_slowdown",
    "utilization",
    "makespan",
    "timeline_utilization",
    "utrera_slowdowns",
    "utrera_slowdown",
    "utrera_fragmentation",
    "utrera_mean_mpl",
    "kumar_slowdown",
    "percent_improvement",
    "max_percent_improvement",
    "dutot_makespan",
    "zeng_bounded_relative_response_times",
    "zeng_bounded_relative_response_time",
    "zeng_high_load_core_utilization",
    "zeng_high_load_phases",
    "zeng_high_load_utilization",
    "zeng_core_utilization",
    "zeng_node_utilization",
    "summarize",
]

#: Default bound of the bounded slowdown, in seconds (Feitelson's usual 10 s).
DEFAULT_TAU = 10.0


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def _column(jobs: pd.DataFrame, name: str) -> np.ndarray:
    # jobs: a DataFrame or a simlib.table.Table (the same columns as arrays)
    if name not in jobs.columns:
        raise KeyError(
            f"jobs table has no column {name!r} (columns: {', '.join(map(str, jobs.columns))})"
        )
    return np.asarray(jobs[name], dtype=float)


def _values(jobs: pd.DataFrame, spec: ArrayOrColumn, what: str) -> np.ndarray:
    """Resolve ``spec`` (a column name or one value per job) to a float array."""
    if isinstance(spec, str):
        return _column(jobs, spec)
    arr = np.asarray(spec, dtype=float)
    if arr.shape != (len(jobs),):
        raise ValueError(f"{what}: expected {len(jobs)} values (one per job), got shape {arr.shape}")
    return arr


def _mean(x: np.ndarray) -> float:
    return float(np.mean(x)) if x.size else float("nan")


def _segments(timeline: pd.DataFrame, span: tuple[float, float] | None):
    """Per-row durations of a piecewise-constant timeline, clipped to ``span``.

    Returns ``(durations, t0, t1)``.
    """
    if "time" not in timeline.columns:
        raise KeyError(f"timeline has no column 'time' (columns: {', '.join(map(str, timeline.columns))})")
    t = timeline["time"].to_numpy(dtype=float)
    if t.size == 0:
        return np.zeros(0), float("nan"), float("nan")
    if np.any(np.diff(t) < 0):
        raise ValueError("timeline times must be non-decreasing")
    t0, t1 = (float(t[0]), float(t[-1])) if span is None else (float(span[0]), float(span[1]))
    starts = np.clip(t, t0, t1)
    ends = np.clip(np.append(t[1:], t[-1]), t0, t1)
    return ends - starts, t0, t1


# --------------------------------------------------------------------------
# generic metrics (used for every run)
# --------------------------------------------------------------------------
def wait_times(jobs: pd.DataFrame) -> np.ndarray:
    """Per-job wait, ``starting_time - submission_time`` (Batsim ``waiting_time``).

    Examples
    --------
    >>> import pandas as pd
    >>> wait_times(pd.DataFrame({"waiting_time": [0.0, 5.0]})).tolist()
    [0.0, 5.0]
    """
    return _column(jobs, "waiting_time")


def mean_wait(jobs: pd.DataFrame) -> float:
    """Mean wait time over all jobs, in seconds.

    ``mean_i (start_i - submit_i)``; used by every paper (K plots it directly).

    Examples
    --------
    >>> import pandas as pd
    >>> mean_wait(pd.DataFrame({"waiting_time": [0.0, 5.0]}))
    2.5
    """
    return _mean(wait_times(jobs))


def wait_percentile(jobs: pd.DataFrame, q: float) -> float:
    """The ``q``-th percentile (0–100) of wait times.

    Linear interpolation between order statistics (``numpy.percentile``'s
    default), so the median of an even count is the mean of the middle two.

    Examples
    --------
    >>> import pandas as pd
    >>> wait_percentile(pd.DataFrame({"waiting_time": [0.0, 10.0]}), 50)
    5.0
    """
    w = wait_times(jobs)
    return float(np.percentile(w, q)) if w.size else float("nan")


def max_wait(jobs: pd.DataFrame) -> float:
    """Largest wait time, in seconds (a starvation indicator).

    Examples
    --------
    >>> import pandas as pd
    >>> max_wait(pd.DataFrame({"waiting_time": [0.0, 7.0]}))
    7.0
    """
    w = wait_times(jobs)
    return float(np.max(w)) if w.size else float("nan")


def response_times(jobs: pd.DataFrame) -> np.ndarray:
    """Per-job response (turnaround) time, ``finish - submit``.

    This is U's *response time* ("time elapsed between the job submission and
    termination") and Z's R_i.

    Examples
    --------
    >>> import pandas as pd
    >>> response_times(pd.DataFrame({"submission_time": [0.0], "finish_time": [4.0]})).tolist()
    [4.0]
    """
    return _column(jobs, "finish_time") - _column(jobs, "submission_time")


def mean_response(jobs: pd.DataFrame) -> float:
    """Mean response (turnaround) time ``mean_i (finish_i - submit_i)``, seconds.

    Examples
    --------
    >>> import pandas as pd
    >>> mean_response(pd.DataFrame({"submission_time": [0.0, 1.0], "finish_time": [4.0, 3.0]}))
    3.0
    """
    return _mean(response_times(jobs))


def bounded_slowdowns(jobs: pd.DataFrame, tau: float = DEFAULT_TAU) -> np.ndarray:
    """Per-job bounded slowdown ``max(1, (wait + exec) / max(exec, tau))``.

    Feitelson, Rudolph, Schwiegelshohn, Sevcik & Wong, "Theory and practice
    in parallel job scheduling" (JSSPP 1997). ``exec`` is the job's actual
    execution time (Batsim ``execution_time``), ``tau`` the bound in seconds
    that keeps very short jobs from dominating the mean.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"waiting_time": [20.0], "execution_time": [2.0]})
    >>> bounded_slowdowns(j, tau=10.0).tolist()
    [2.2]
    """
    if not tau > 0:
        raise ValueError(f"tau must be positive, got {tau}")
    w = wait_times(jobs)
    e = _column(jobs, "execution_time")
    return np.maximum(1.0, (w + e) / np.maximum(e, tau))


def mean_bounded_slowdown(jobs: pd.DataFrame, tau: float = DEFAULT_TAU) -> float:
    """Mean bounded slowdown ``mean_i max(1, (w_i + e_i) / max(e_i, tau))``.

    See :func:`bounded_slowdowns` for the source; ``tau`` = 10 s by default
    as DESIGN.md fixes for the cross-paper metrics.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"waiting_time": [20.0, 0.0], "execution_time": [2.0, 100.0]})
    >>> round(mean_bounded_slowdown(j), 10)
    1.6
    """
    return _mean(bounded_slowdowns(jobs, tau))


def makespan(jobs: pd.DataFrame) -> float:
    """Workload makespan ``max_i finish_i - min_i submit_i``, seconds.

    The span starts at the *first submission*, not the first start: the
    machine is accountable from the moment work exists, so a policy that
    delays the first start is charged for it, and the value does not depend
    on the absolute time origin of the trace. (D's C_max, measured from the
    workload's time origin, is :func:`dutot_makespan`.)

    Examples
    --------
    >>> import pandas as pd
    >>> makespan(pd.DataFrame({"submission_time": [10.0, 12.0], "finish_time": [20.0, 30.0]}))
    20.0
    """
    if len(jobs) == 0:
        return float("nan")
    return float(np.max(_column(jobs, "finish_time")) - np.min(_column(jobs, "submission_time")))


def utilization(jobs: pd.DataFrame, cpus: int) -> float:
    """Fraction of the machine used: ``sum_i size_i * exec_i / (cpus * span)``.

    ``size_i`` is ``requested_number_of_resources`` and ``exec_i`` the actual
    ``execution_time``; ``span`` is :func:`makespan` (last finish − first
    submit), so idle time before the first job starts counts as unused. This
    is K's *utilization*. It assumes rigid jobs holding their requested CPUs
    while running; for jobs that shrink (U) or share cores (Z) use
    :func:`timeline_utilization`, which integrates the CPUs actually busy.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"submission_time": [0.0, 0.0], "finish_time": [10.0, 10.0],
    ...                   "execution_time": [10.0, 5.0], "requested_number_of_resources": [2, 4]})
    >>> utilization(j, cpus=8)
    0.5
    """
    span = makespan(jobs)
    if not span > 0 or cpus <= 0:
        return float("nan")
    work = np.sum(_column(jobs, "requested_number_of_resources") * _column(jobs, "execution_time"))
    return float(work / (cpus * span))


def timeline_utilization(
    timeline: pd.DataFrame, cpus: int, *, span: tuple[float, float] | None = None
) -> float:
    """Time-averaged busy fraction ``∫ busy_cpus(t) dt / (cpus * (t1 - t0))``.

    Integrates the engine's record of CPUs actually held, so it is correct
    for malleable (U) and coscheduled (Z) jobs where size × execution time is
    not the CPU time used. ``span = (t0, t1)`` defaults to the timeline's
    first and last row.

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 2.0, 4.0], "busy_cpus": [4, 2, 0],
    ...                    "queued_jobs": [0, 0, 0], "processes": [4, 2, 0]})
    >>> timeline_utilization(tl, cpus=4)
    0.75
    """
    d, t0, t1 = _segments(timeline, span)
    if not (t1 - t0) > 0 or cpus <= 0:
        return float("nan")
    busy = timeline["busy_cpus"].to_numpy(dtype=float)
    return float(np.sum(busy * d) / (cpus * (t1 - t0)))


# --------------------------------------------------------------------------
# paper U: Utrera et al., FCFS-malleable
# --------------------------------------------------------------------------
def utrera_slowdowns(jobs: pd.DataFrame, exec_expanded: ArrayOrColumn = "execution_time") -> np.ndarray:
    """Per-job slowdown of paper U, formula (1).

    ``slowdown_i = (WaitTime_i + ExecutionTime_i) / ExecutionTimeExpanded_i``

    Utrera, Corbalán & Labarta, "Scheduling parallel jobs on multicore
    clusters using CPU oversubscription" (FCFS-malleable), Sect. 3.1,
    formula (1). ``ExecutionTime`` is the actual execution time including
    the overhead of running shrunk (Batsim ``execution_time``);
    ``ExecutionTimeExpanded`` is the time the job would take on all its
    requested CPUs. For rigid policies (EASY) both coincide, which is the
    default column. Not bounded: U does not bound its slowdown.

    Parameters
    ----------
    exec_expanded : str or array-like
        Column name in ``jobs`` or one value per job.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"waiting_time": [0.0], "execution_time": [4.0], "exp": [2.0]})
    >>> utrera_slowdowns(j, "exp").tolist()
    [2.0]
    """
    w = wait_times(jobs)
    e = _column(jobs, "execution_time")
    ex = _values(jobs, exec_expanded, "exec_expanded")
    if np.any(ex <= 0):
        raise ValueError("exec_expanded must be positive for every job (formula 1 divides by it)")
    return (w + e) / ex


def utrera_slowdown(jobs: pd.DataFrame, exec_expanded: ArrayOrColumn = "execution_time") -> float:
    """Average slowdown of paper U: mean of formula (1) over all jobs.

    See :func:`utrera_slowdowns`. The toy example of U's Fig. 2(a) (FCFS)
    gives 3.5.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"waiting_time": [0.0, 2.0], "execution_time": [2.0, 1.0]})
    >>> utrera_slowdown(j)
    2.0
    """
    return _mean(utrera_slowdowns(jobs, exec_expanded))


def utrera_fragmentation(
    timeline: pd.DataFrame, cpus: int, *, span: tuple[float, float] | None = None
) -> float:
    """Fragmentation of paper U, formula (2).

    ``Fragmentation = Σ_{t: wait queue non-empty} freeCPUs(t) / (WorkloadTotalTime × TotalCPUs)``

    Utrera et al., Sect. 3.1, formula (2): the free-CPU time accumulated
    while at least one job waits, over the whole CPU time of the run. The
    sum is the integral of ``cpus - busy_cpus`` over the periods with
    ``queued_jobs > 0``. ``WorkloadTotalTime`` ("t = start to termination")
    is taken as the timeline's span, first row to last row (the engine
    starts the timeline at the first submission and ends it at the last
    finish, i.e. :func:`makespan`); pass ``span`` to override. With this
    choice the toy example of U's Fig. 2(a)/(b) gives the printed 30 %.

    Returns a fraction (0.3, not 30).

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 1.0, 2.0], "busy_cpus": [2, 2, 0],
    ...                    "queued_jobs": [1, 0, 0], "processes": [2, 2, 0]})
    >>> utrera_fragmentation(tl, cpus=4)
    0.25
    """
    d, t0, t1 = _segments(timeline, span)
    if not (t1 - t0) > 0 or cpus <= 0:
        return float("nan")
    free = cpus - timeline["busy_cpus"].to_numpy(dtype=float)
    waiting = timeline["queued_jobs"].to_numpy() > 0
    return float(np.sum(free * d * waiting) / ((t1 - t0) * cpus))


def utrera_mean_mpl(
    timeline: pd.DataFrame, cpus: int, *, span: tuple[float, float] | None = None
) -> float:
    """Average multiprogramming level (MPL) of paper U, Table 3.

    ``MPL = (1 / span) ∫ processes(t) / TotalCPUs dt``

    Utrera et al., Sect. 5: "MPL was calculated by averaging the total
    number of processes in the system per CPU". ``processes`` counts the
    processes of *running* jobs (a shrunk job keeps all its processes), and
    the divisor is the machine's CPU count, not the busy CPUs — which is why
    the paper's EASY values are below 1 (0.75 for CTC): for rigid jobs this
    equals the time-averaged utilization. Averaged over the timeline's span
    (first to last row) unless ``span`` is given.

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 1.0, 2.0], "busy_cpus": [4, 2, 0],
    ...                    "queued_jobs": [0, 0, 0], "processes": [8, 2, 0]})
    >>> utrera_mean_mpl(tl, cpus=4)
    1.25
    """
    d, t0, t1 = _segments(timeline, span)
    if not (t1 - t0) > 0 or cpus <= 0:
        return float("nan")
    procs = timeline["processes"].to_numpy(dtype=float)
    return float(np.sum(procs * d) / (cpus * (t1 - t0)))


# --------------------------------------------------------------------------
# paper K: Kumar, Shae & Jamjoom, Delayed-LOS / Hybrid-LOS
# --------------------------------------------------------------------------
def kumar_slowdown(jobs: pd.DataFrame) -> float:
    """Slowdown of paper K: a ratio of means, as printed.

    ``slowdown = (avg. waiting time + avg. runtime) / avg. runtime``

    Kumar, Shae & Jamjoom, Sect. V (metrics paragraph). This is *not* the
    mean of per-job slowdowns: long jobs dominate both means, so it is much
    smaller than :func:`mean_bounded_slowdown` on the same run. Runtime is
    the actual ``execution_time``.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"waiting_time": [10.0, 0.0], "execution_time": [1.0, 9.0]})
    >>> kumar_slowdown(j)
    2.0
    """
    if len(jobs) == 0:
        return float("nan")
    w = _mean(wait_times(jobs))
    r = _mean(_column(jobs, "execution_time"))
    return (w + r) / r if r > 0 else float("nan")


def percent_improvement(new, base, *, higher_is_better: bool = False) -> np.ndarray:
    """Percentage improvement of ``new`` over ``base``, element-wise.

    ``100 (base - new) / base`` for lower-is-better metrics (wait,
    slowdown); ``100 (new - base) / base`` for higher-is-better ones
    (utilization). Positive means ``new`` is better. The relative base is
    the compared-against policy, as in paper K's Tables IV–VII.

    Examples
    --------
    >>> percent_improvement([80.0], [100.0]).tolist()
    [20.0]
    >>> percent_improvement([0.9], [0.8], higher_is_better=True).round(6).tolist()
    [12.5]
    """
    new = np.asarray(new, dtype=float)
    base = np.asarray(base, dtype=float)
    delta = (new - base) if higher_is_better else (base - new)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 100.0 * delta / base


def max_percent_improvement(new, base, *, higher_is_better: bool = False) -> float:
    """Maximum % improvement over a load sweep (paper K, Tables IV–VII).

    ``max_load percent_improvement(new(load), base(load))``

    Kumar et al., Sect. V-A: "we have listed *maximum* percentage
    improvements in the various tables", because improvements are not
    uniform over the load. ``new`` and ``base`` hold one value per load point
    (same order); points where either is NaN are ignored.

    Examples
    --------
    >>> max_percent_improvement([90.0, 60.0], [100.0, 100.0])
    40.0
    """
    p = percent_improvement(new, base, higher_is_better=higher_is_better)
    p = p[np.isfinite(p)]
    return float(np.max(p)) if p.size else float("nan")


# --------------------------------------------------------------------------
# paper D: Dutot, Poquet & Trystram, communication models
# --------------------------------------------------------------------------
def dutot_makespan(jobs: pd.DataFrame, *, origin: float = 0.0) -> float:
    """Makespan C_max of paper D: completion time of the last job.

    ``C_max = max_i finish_i - origin``

    Dutot, Poquet & Trystram, Sect. 4 ("completion time of the last running
    job"). Measured from the workload's time origin (default 0, where D's
    workload extraction places it), unlike :func:`makespan` which starts at
    the first submission.

    Examples
    --------
    >>> import pandas as pd
    >>> dutot_makespan(pd.DataFrame({"finish_time": [3.0, 7.5]}))
    7.5
    """
    if len(jobs) == 0:
        return float("nan")
    return float(np.max(_column(jobs, "finish_time")) - origin)


# --------------------------------------------------------------------------
# paper Z: Zeng, Sodan et al., G-LOMARC-TS
# --------------------------------------------------------------------------
def zeng_bounded_relative_response_times(
    jobs: pd.DataFrame,
    *,
    pure_runtime: ArrayOrColumn = "execution_time",
    bound: float = DEFAULT_TAU,
) -> np.ndarray:
    """Per-job bounded relative response time of paper Z.

    ``RR_i = max(1, R_i / max(T_i, bound))`` with ``R_i = finish - submit``

    Zeng, Sodan et al., Sect. 5.1: "response time in relation to pure runtime
    (without time slicing) while using cut-offs for very short jobs"; the
    footnote equates it with bounded slowdown, so the Feitelson form is used
    (floor of 1, runtime cut-off). ``T_i`` is the *pure* runtime: the job's
    execution without time-slice suspension, i.e. the rate-1 work plus any
    coscheduling slowdown — pass it as a column name or an array when the
    engine reports it separately from ``execution_time``. The paper does not
    print the cut-off; ``bound`` defaults to 10 s and is a parameter.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"submission_time": [0.0, 0.0], "finish_time": [30.0, 2.0],
    ...                   "execution_time": [15.0, 1.0]})
    >>> zeng_bounded_relative_response_times(j, bound=10.0).tolist()
    [2.0, 1.0]
    """
    if not bound > 0:
        raise ValueError(f"bound must be positive, got {bound}")
    r = response_times(jobs)
    t = _values(jobs, pure_runtime, "pure_runtime")
    return np.maximum(1.0, r / np.maximum(t, bound))


def zeng_bounded_relative_response_time(
    jobs: pd.DataFrame,
    *,
    pure_runtime: ArrayOrColumn = "execution_time",
    bound: float = DEFAULT_TAU,
) -> float:
    """Average bounded relative response time (RR) of paper Z.

    Mean of :func:`zeng_bounded_relative_response_times`; filter ``jobs`` to
    one class (short ≤ 10 min, medium ≤ 3 h, long) to get Z's per-class bars.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"submission_time": [0.0, 0.0], "finish_time": [30.0, 2.0],
    ...                   "execution_time": [15.0, 1.0]})
    >>> zeng_bounded_relative_response_time(j)
    1.5
    """
    return _mean(zeng_bounded_relative_response_times(jobs, pure_runtime=pure_runtime, bound=bound))


def zeng_high_load_core_utilization(
    timeline: pd.DataFrame, cores: int, *, n_high: int = 12
) -> float:
    """Core utilization U_core during high-load phases of paper Z.

    ``U_core,H = ∫_{N_wait(t) ≥ N_H} busy_cores(t) dt / (cores × |Phase_H|)``

    Zeng, Sodan et al., Sect. 4.1, formula (1) and the U_core definition: a
    high-load phase starts when the waiting-queue length N_wait reaches
    N_H and lasts while it stays ≥ N_H, so the union of phases is the time
    with ``queued_jobs >= n_high``. ``busy_cpus`` of the timeline counts
    cores. N_H = 12 in the paper's Table 5. Returns ``nan`` when the run has
    no high-load phase.

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 1.0, 3.0], "busy_cpus": [2, 4, 0],
    ...                    "queued_jobs": [0, 12, 0], "processes": [2, 4, 0]})
    >>> zeng_high_load_core_utilization(tl, cores=8)
    0.5
    """
    d, _, _ = _segments(timeline, None)
    high = timeline["queued_jobs"].to_numpy() >= n_high
    phase = float(np.sum(d * high))
    if not phase > 0 or cores <= 0:
        return float("nan")
    busy = timeline["busy_cpus"].to_numpy(dtype=float)
    return float(np.sum(busy * d * high) / (cores * phase))


def zeng_high_load_phases(timeline: pd.DataFrame, *, n_high: int = 12) -> np.ndarray:
    """High-load phases of paper Z, formula (1), as rows ``(start, end)``.

    A phase starts at a load change where the waiting-queue length
    ``queued_jobs`` reaches ``n_high`` (it was below before) and ends at the
    first later change where it is below again. A phase still open at the
    timeline's last row ends there.

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 1.0, 2.0, 4.0, 5.0, 7.0],
    ...                    "queued_jobs": [0, 12, 15, 3, 12, 12]})
    >>> zeng_high_load_phases(tl).tolist()
    [[1.0, 4.0], [5.0, 7.0]]
    """
    t = _column(timeline, "time")
    high = _column(timeline, "queued_jobs") >= n_high
    if t.size == 0:
        return np.zeros((0, 2))
    edges = np.diff(np.concatenate(([0], high.astype(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    end_times = np.where(ends < t.size, t[np.minimum(ends, t.size - 1)], t[-1])
    return np.column_stack((t[starts], end_times)).astype(float)


def zeng_high_load_utilization(
    timeline: pd.DataFrame, capacity: int, *, column: str = "busy_cpus", n_high: int = 12
) -> float:
    """Utilization of ``column`` over paper Z's high-load phases (formula 1).

    :func:`zeng_high_load_core_utilization` for any usage column, e.g.
    ``busy_nodes`` against the machine's nodes for U_node in the phases.

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 1.0, 3.0], "busy_nodes": [1, 2, 0],
    ...                    "queued_jobs": [0, 12, 0]})
    >>> zeng_high_load_utilization(tl, 4, column="busy_nodes")
    0.5
    """
    d, _, _ = _segments(timeline, None)
    high = _column(timeline, "queued_jobs") >= n_high
    phase = float(np.sum(d * high))
    if not phase > 0 or capacity <= 0:
        return float("nan")
    return float(np.sum(_column(timeline, column) * d * high) / (capacity * phase))


def _zeng_utilization(timeline, jobs, capacity, column) -> float:
    span = (float(np.min(_column(jobs, "submission_time"))), float(np.max(_column(jobs, "finish_time"))))
    d, t0, t1 = _segments(timeline, span)
    if not (t1 - t0) > 0 or capacity <= 0:
        return float("nan")
    return float(np.sum(_column(timeline, column) * d) / (capacity * (t1 - t0)))


def zeng_core_utilization(timeline: pd.DataFrame, jobs: pd.DataFrame, cores: int) -> float:
    """U_core of paper Z, formula (3): used-core time over ``T_makespan * M * N_core``.

    ``timeline`` holds the cores in use (``busy_cpus``: running processes,
    suspended jobs not counted) after every load change; the makespan runs
    from the first submission to the last finish (:func:`makespan`).

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 2.0, 4.0], "busy_cpus": [4, 2, 0]})
    >>> j = pd.DataFrame({"submission_time": [0.0], "finish_time": [4.0]})
    >>> zeng_core_utilization(tl, j, cores=8)
    0.375
    """
    return _zeng_utilization(timeline, jobs, cores, "busy_cpus")


def zeng_node_utilization(timeline: pd.DataFrame, jobs: pd.DataFrame, nodes: int) -> float:
    """U_node of paper Z, formula (2): used-node time over ``T_makespan * M``.

    A node is used while some running process is on it (``busy_nodes``).

    Examples
    --------
    >>> import pandas as pd
    >>> tl = pd.DataFrame({"time": [0.0, 2.0, 4.0], "busy_nodes": [2, 1, 0]})
    >>> j = pd.DataFrame({"submission_time": [0.0], "finish_time": [4.0]})
    >>> zeng_node_utilization(tl, j, nodes=2)
    0.75
    """
    return _zeng_utilization(timeline, jobs, nodes, "busy_nodes")


# --------------------------------------------------------------------------
# summary and metadata
# --------------------------------------------------------------------------
def summarize(jobs: pd.DataFrame, cpus: int, *, tau: float = DEFAULT_TAU) -> dict[str, float]:
    """The cross-paper metrics of one run, as a flat dict of floats.

    Keys: ``mean_wait``, ``p50_wait``, ``p95_wait``, ``max_wait``,
    ``mean_response``, ``mean_bounded_slowdown`` (bound ``tau``),
    ``utilization``, ``makespan``; units and meaning in :data:`METRICS`.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"submission_time": [0.0], "starting_time": [0.0],
    ...     "finish_time": [10.0], "execution_time": [10.0], "waiting_time": [0.0],
    ...     "requested_number_of_resources": [2]})
    >>> summarize(j, cpus=4)["utilization"]
    0.5
    """
    return {
        "mean_wait": mean_wait(jobs),
        "p50_wait": wait_percentile(jobs, 50),
        "p95_wait": wait_percentile(jobs, 95),
        "max_wait": max_wait(jobs),
        "mean_response": mean_response(jobs),
        "mean_bounded_slowdown": mean_bounded_slowdown(jobs, tau),
        "utilization": utilization(jobs, cpus),
        "makespan": makespan(jobs),
    }


#: Metric name -> (units, long_name, description); the source of every cube
#: variable's attributes. Units follow CF/UDUNITS: "s" for times, "1" for
#: dimensionless ratios and fractions, "%" for percentages.
METRICS: dict[str, tuple[str, str, str]] = {
    "mean_wait": ("s", "mean wait time", "mean over jobs of start - submit"),
    "p50_wait": ("s", "median wait time", "50th percentile of start - submit (linear interpolation)"),
    "p95_wait": ("s", "95th percentile wait time",
                 "95th percentile of start - submit (linear interpolation)"),
    "max_wait": ("s", "maximum wait time", "largest start - submit over jobs"),
    "mean_response": ("s", "mean response time", "mean over jobs of finish - submit (turnaround)"),
    "mean_bounded_slowdown": (
        "1",
        "mean bounded slowdown",
        "mean over jobs of max(1, (wait + exec) / max(exec, tau)), tau = 10 s unless stated",
    ),
    "utilization": (
        "1",
        "utilization",
        "sum(size * exec) / (CPUs * (last finish - first submit))",
    ),
    "timeline_utilization": (
        "1",
        "time-averaged utilization",
        "integral of busy CPUs over the run / (CPUs * span)",
    ),
    "makespan": ("s", "makespan", "last finish - first submit"),
    "utrera_slowdown": (
        "1",
        "average slowdown (Utrera formula 1)",
        "mean over jobs of (wait + exec) / exec_expanded",
    ),
    "utrera_fragmentation": (
        "1",
        "fragmentation (Utrera formula 2)",
        "free-CPU time while the wait queue is non-empty / (span * CPUs)",
    ),
    "utrera_mean_mpl": (
        "1",
        "average multiprogramming level (Utrera Table 3)",
        "time average of running processes per machine CPU",
    ),
    "kumar_slowdown": (
        "1",
        "slowdown (Kumar, ratio of means)",
        "(mean wait + mean runtime) / mean runtime",
    ),
    "kumar_max_percent_improvement": (
        "%",
        "maximum % improvement over the load sweep (Kumar Tables IV-VII)",
        "max over loads of 100 * (base - new) / base (lower-is-better) or (new - base) / base",
    ),
    "dutot_makespan": ("s", "makespan C_max (Dutot)", "completion time of the last job from time origin"),
    "zeng_bounded_relative_response_time": (
        "1",
        "average bounded relative response time (Zeng RR)",
        "mean over jobs of max(1, response / max(pure runtime, bound)), bound = 10 s unless stated",
    ),
    "zeng_high_load_core_utilization": (
        "1",
        "core utilization in high-load phases (Zeng)",
        "busy-core time / (cores * time with N_wait >= N_H), N_H = 12 unless stated",
    ),
}
