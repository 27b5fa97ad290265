"""Drawing jobs from the Lublin–Feitelson model: sizes, runtimes, arrivals.

The model is described in :mod:`simlib.workload.lublin` and its parameters
live in :mod:`.params`.  Here each stream draws its jobs' sizes, runtimes
and inter-arrival points; its clock (:mod:`.clock`) turns the points into
submit times, and :func:`generate_lublin` merges the streams into an SWF
workload.

Randomness and determinism
--------------------------
Everything is drawn from :class:`numpy.random.SeedSequence` children of the
given seed: per stream, per purpose (arrivals / sizes+runtimes) and per
block of 4096 jobs.  Hence a job's draws depend only on its stream and its
position in that stream: the first ``k`` jobs of a stream are the same
whatever the number of jobs asked for or the arrival scale (prefix
stability), which makes load calibration a smooth 1-D problem.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from simlib.errors import ConfigError
from simlib.workload.lublin.clock import (
    SECONDS_PER_BUCKET,
    _check_clock,
    _Clock,
    _lublin99_times,
)
from simlib.workload.lublin.params import (
    ARRIVAL_LOG_LIMIT,
    QUEUE_INTERACTIVE,
    REFERENCE_MACHINE_SIZE,
    RUNTIME_LOG_LIMIT,
    JobTypeParams,
    _as_lublin_params,
    _check_scale,
    _round_half_up,
)
from simlib.workload.swf import SWF_FIELDS, Workload

__all__ = ["generate_lublin"]

_BLOCK = 4096  # jobs per seed block (prefix stability, see module docstring)


# --------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------

def _as_seed_sequence(seed) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        # Consume four words: the generator's state decides the workload.
        return np.random.SeedSequence([int(x) for x in seed.integers(0, 2**63, size=4)])
    if seed is None:
        raise ConfigError("a seed is required (int, sequence of ints, SeedSequence or "
                          "Generator): workloads must be reproducible")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return np.random.SeedSequence(int(seed))
    if isinstance(seed, Sequence) and all(isinstance(x, (int, np.integer)) for x in seed):
        return np.random.SeedSequence([int(x) for x in seed])
    raise ConfigError(f"invalid seed {seed!r}: give an int, a sequence of ints, a "
                      "SeedSequence or a Generator")


def _child(ss: np.random.SeedSequence, *key: int) -> np.random.Generator:
    # Built explicitly (not ss.spawn) so the caller's SeedSequence is never
    # mutated: the same SeedSequence always gives the same workload.
    return np.random.default_rng(np.random.SeedSequence(
        ss.entropy, spawn_key=tuple(ss.spawn_key) + key, pool_size=ss.pool_size))


def _seed_text(seed, ss: np.random.SeedSequence) -> str:
    if isinstance(seed, np.random.Generator):
        return f"numpy Generator -> SeedSequence(entropy={ss.entropy})"
    return f"SeedSequence(entropy={ss.entropy}, spawn_key={tuple(ss.spawn_key)})"


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------

class _StreamDraws:
    """Lazily drawn, prefix-stable random quantities of one stream."""

    def __init__(self, ss: np.random.SeedSequence, index: int, params: JobTypeParams):
        self.ss, self.index, self.p = ss, index, params
        self._logia: list[np.ndarray] = []      # accepted ln inter-arrival draws, per block
        self._points = np.zeros(0)             # cumulative points at arrival_scale 1
        self._sizes: list[np.ndarray] = []
        self._runs: list[np.ndarray] = []
        self._work = np.zeros(0)

    # -- arrivals ---------------------------------------------------------
    def _arrival_block(self, b: int) -> np.ndarray:
        rng = _child(self.ss, self.index, 0, b)
        shape = self.p.aarr * self.p.arar
        g = rng.gamma(shape, self.p.barr, size=_BLOCK)
        g = g[g <= ARRIVAL_LOG_LIMIT]
        while len(g) < _BLOCK:   # redraw the too-long inter-arrivals
            more = rng.gamma(shape, self.p.barr, size=_BLOCK - len(g))
            g = np.concatenate([g, more[more <= ARRIVAL_LOG_LIMIT]])
        return g

    def _extend(self):
        self._logia.append(self._arrival_block(len(self._logia)))
        pts = np.exp(self._logia[-1]) / SECONDS_PER_BUCKET
        base = self._points[-1] if len(self._points) else 0.0
        self._points = np.concatenate([self._points, base + np.cumsum(pts)])

    def points(self, n: int) -> np.ndarray:
        """Cumulative points (scale 1) of the first n arrivals."""
        while len(self._points) < n:
            self._extend()
        return self._points[:n]

    def count_below(self, q: float) -> int:
        """Number of arrivals whose cumulative points (scale 1) are < q."""
        while not len(self._points) or self._points[-1] < q:
            self._extend()
        return int(np.searchsorted(self._points, q, side="left"))

    # -- sizes and runtimes -------------------------------------------------
    def _job_block(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        p = self.p
        rng = _child(self.ss, self.index, 1, b)
        u, stage, pos = rng.random((3, _BLOCK))
        par = np.where(stage < p.uprob, p.ulow + (p.umed - p.ulow) * pos,
                       p.umed + (p.uhi - p.umed) * pos)
        serial = u <= p.serial_prob
        pow2 = ~serial & (u <= p.serial_prob + p.pow2_prob)
        par = np.where(pow2, _round_half_up(par), par)
        size = np.minimum(_round_half_up(2.0 ** par), p.max_size)
        size[serial] = 1.0
        size = size.astype(np.int64)
        # Hyper-gamma runtimes; the whole mixture draw is redrawn above 12.
        q = np.clip(p.pa * size + p.pb, 0.0, 1.0)
        g = np.empty(_BLOCK)
        todo = np.arange(_BLOCK)
        while len(todo):
            first = rng.random(len(todo)) <= q[todo]
            draw = rng.gamma(np.where(first, p.a1, p.a2), np.where(first, p.b1, p.b2))
            ok = draw <= RUNTIME_LOG_LIMIT
            g[todo[ok]] = draw[ok]
            todo = todo[~ok]
        run = np.floor(np.exp(g)).astype(np.int64)
        return size, run

    def jobs(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        while len(self._sizes) * _BLOCK < n:
            s, r = self._job_block(len(self._sizes))
            self._sizes.append(s)
            self._runs.append(r)
        if not self._sizes:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(self._sizes)[:n], np.concatenate(self._runs)[:n]

    def work(self, n: int) -> float:
        """Sum of size * runtime over the first n jobs."""
        if n > len(self._work):
            size, run = self.jobs(n)
            self._work = np.cumsum(size * run.astype(float))
        return float(self._work[n - 1]) if n > 0 else 0.0


class _Generator:
    """Shared machinery of :func:`generate_lublin` and :func:`calibrate_load`."""

    def __init__(self, params, machine_size, start_hour, seed, arrival_clock="exact"):
        self.arrival_clock = _check_clock(arrival_clock)
        self.lp = _as_lublin_params(params)
        if not (isinstance(machine_size, (int, np.integer)) and not isinstance(machine_size, bool)
                and machine_size >= 1):
            raise ConfigError(f"machine_size must be an integer >= 1, got {machine_size!r}")
        self.machine_size = int(machine_size)
        for s in self.lp.streams:
            if s.params.max_size > self.machine_size:
                raise ConfigError(
                    f"Lublin stream {s.name!r}: uhi={s.params.uhi} allows jobs of "
                    f"{s.params.max_size} processors > machine_size={self.machine_size}; "
                    f"use LublinParams.for_machine({self.machine_size}) or lower uhi")
        if not (isinstance(start_hour, (int, float, np.integer, np.floating))
                and math.isfinite(start_hour) and 0 <= start_hour < 24):
            raise ConfigError(f"start_hour must be in [0, 24), got {start_hour!r}")
        self.start_hour = float(start_hour)
        self.seed = seed
        self.ss = _as_seed_sequence(seed)
        self.draws = [_StreamDraws(self.ss, i, s.params) for i, s in enumerate(self.lp.streams)]
        self.clocks = [_Clock(s.params, self.start_hour) for s in self.lp.streams]
        # Merge priority on equal submit times: the stream listed first
        # (exact); lublin99 emits a batch job only if its clock is strictly
        # earlier, so the interactive stream goes first.
        k = len(self.lp.streams)
        self.merge_rank = list(range(k))
        if self.arrival_clock == "lublin99":
            self.merge_rank.sort(key=lambda i: (self.lp.streams[i].queue != QUEUE_INTERACTIVE, i))

    def _merge(self, times: list[np.ndarray]) -> np.ndarray:
        """Merged order of per-stream times, as indices into their concatenation."""
        t = np.concatenate([times[i] for i in self.merge_rank])
        if self.merge_rank == sorted(self.merge_rank):
            return np.argsort(t, kind="stable")
        start = np.cumsum([0] + [len(x) for x in times])
        index = np.concatenate([np.arange(start[i], start[i + 1]) for i in self.merge_rank])
        return index[np.argsort(t, kind="stable")]

    def _count_before(self, i: int, span: float, scale: float) -> int:
        """Number of stream i's arrivals submitted before ``span``."""
        n = self.draws[i].count_below(self.clocks[i].points_at(span) / scale)
        if self.arrival_clock == "exact":
            return n
        # lublin99 times are never later than the exact ones: look further.
        m = n + 1
        while True:
            t = self.times(i, m, scale)
            if t[-1] >= span:
                return int(np.searchsorted(t, span, side="left"))
            m = 2 * m

    def counts(self, n_jobs, span, scale) -> list[int]:
        """Jobs per stream: the first n_jobs merged arrivals before span."""
        k = len(self.draws)
        if span is not None:
            caps = [self._count_before(i, span, scale) for i in range(k)]
        else:
            caps = [n_jobs] * k
        if n_jobs is None:
            return caps
        caps = [min(c, n_jobs) for c in caps]
        if k == 1:
            return caps
        times = [self.times(i, cap, scale) for i, cap in enumerate(caps)]
        label = np.concatenate([np.full(len(t), i) for i, t in enumerate(times)])
        order = self._merge(times)[:n_jobs]
        return np.bincount(label[order], minlength=k).tolist()

    def load(self, counts, scale) -> float:
        """Offered load of the jobs ``counts`` at ``scale`` (O(1) per stream)."""
        first, last, work = math.inf, -math.inf, 0.0
        for i, n in enumerate(counts):
            if n <= 0:
                continue
            if self.arrival_clock == "exact":
                ends = self.clocks[i].time(scale * self.draws[i].points(n)[[0, n - 1]])
            else:   # the integer clock needs every gap: O(n)
                ends = self.times(i, n, scale)[[0, n - 1]]
            first = min(first, math.floor(ends[0]))
            last = max(last, math.floor(ends[1]))
            work += self.draws[i].work(n)
        if not last > first:
            return math.inf
        return work / ((last - first) * self.machine_size)

    def times(self, i: int, n: int, scale: float) -> np.ndarray:
        t = self.clocks[i].time(scale * self.draws[i].points(n))
        return _lublin99_times(t) if self.arrival_clock == "lublin99" else t

    def build(self, counts, scale, stretch: float = 1.0) -> tuple[np.ndarray, ...]:
        """Merged (submit float seconds, size, run, queue) for per-stream counts."""
        times, sizes, runs, queues = [], [], [], []
        for i, (n, s) in enumerate(zip(counts, self.lp.streams)):
            times.append(self.times(i, n, scale))
            sz, rt = self.draws[i].jobs(n)
            sizes.append(sz)
            runs.append(rt)
            queues.append(np.full(n, s.queue, dtype=np.int64))
        order = self._merge(times)
        t = np.concatenate(times)[order]
        if stretch != 1.0 and len(t):
            t = t[0] + stretch * (t - t[0])
        return (t, np.concatenate(sizes)[order], np.concatenate(runs)[order],
                np.concatenate(queues)[order])

    def workload(self, arrays, scale, stretch, extra_header=()) -> Workload:
        t, size, run, queue = arrays
        n = len(t)
        cols = {name: np.full(n, -1, dtype=np.int64) for name in SWF_FIELDS}
        cols["job_id"] = np.arange(1, n + 1, dtype=np.int64)
        cols["submit_time"] = np.floor(t).astype(np.int64)
        cols["run_time"] = run
        cols["allocated_procs"] = size
        cols["requested_procs"] = size
        cols["status"] = np.ones(n, dtype=np.int64)
        cols["queue"] = queue
        jobs = pd.DataFrame(cols, columns=list(SWF_FIELDS))
        P = self.machine_size
        queues = ", ".join(f"{s.queue} = {s.name}" for s in self.lp.streams)
        header = [
            "; Version: 2.2",
            "; Computer: synthetic, Lublin & Feitelson (2003) model (lublin99)",
            "; Installation: simlib.workload.lublin",
            f"; MaxJobs: {n}",
            f"; MaxRecords: {n}",
            f"; MaxNodes: {P}",
            f"; MaxProcs: {P}",
            f"; Queues: SWF field 15 is the job type: {queues}",
            f"; Note: submit time 0 is {self.start_hour:g} h after midnight of day 0 "
            "(the model's daily cycle)",
            f"; Note: arrival_scale {scale!r} (multiplies every inter-arrival draw)"
            + (f"; submit times then stretched by {stretch!r}" if stretch != 1.0 else ""),
            f"; Note: seed {_seed_text(self.seed, self.ss)}",
            "; simlib: lublin params " + json.dumps(self.lp.to_dict(), sort_keys=True),
            *extra_header,
        ]
        if self.arrival_clock != "exact":   # the default adds no line (same bytes as before)
            header.insert(-1 - len(extra_header),
                          f"; Note: arrival clock {self.arrival_clock}: each stream's clock "
                          "adds every inter-arrival truncated to whole seconds (the daily "
                          "cycle advances exactly); equal times go to the interactive stream")
        return Workload(jobs=jobs, header=header, path=None)


def _check_extent(n_jobs, span):
    if n_jobs is None and span is None:
        raise ConfigError("give n_jobs and/or span (seconds) to bound the workload")
    if n_jobs is not None and not (isinstance(n_jobs, (int, np.integer))
                                   and not isinstance(n_jobs, bool) and n_jobs >= 1):
        raise ConfigError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    if span is not None and not (isinstance(span, (int, float, np.integer, np.floating))
                                 and math.isfinite(span) and span > 0):
        raise ConfigError(f"span must be a number of seconds > 0, got {span!r}")


def generate_lublin(params=None, *, n_jobs: int | None = None, span: float | None = None,
                    machine_size: int = REFERENCE_MACHINE_SIZE, start_hour: float = 0.0,
                    arrival_scale: float = 1.0, arrival_clock: str = "exact",
                    seed) -> Workload:
    """Generate a workload from the Lublin–Feitelson model.

    Parameters
    ----------
    params : LublinParams, JobTypeParams or config mapping, optional
        Streams to generate; default ``LublinParams.typed()`` (lublin99's
        default: batch + interactive).
    n_jobs : int, optional
        Number of jobs (the first ``n_jobs`` arrivals of the merged streams).
    span : float, optional
        Keep arrivals before ``span`` seconds after the start.  With both,
        whichever bound is hit first.
    machine_size : int, default 128
        Processors; written to the header, and no stream may make larger jobs.
    start_hour : float, default 0
        Hour of the day at submit time 0.
    arrival_scale : float, default 1
        Multiplies every inter-arrival draw (> 1: fewer arrivals, lower load).
    arrival_clock : {"exact", "lublin99"}, default "exact"
        ``"exact"``: the model as published (times kept exact, floored when
        written).  ``"lublin99"``: the archive's C program's clock (each
        stream adds every gap truncated to whole seconds, about 0.5 s/job
        behind the daily cycle; ties to the interactive stream).  Each
        stream's jobs are the same either way; submit times, the order of
        equal times and, with several streams, which stream the last of
        the first ``n_jobs`` jobs come from may differ.
    seed : int, sequence of int, SeedSequence or Generator
        Required.  Same seed and arguments give the same workload.

    Returns
    -------
    Workload
        18 SWF columns, job ids 1..n in submit order, queue = job type.

    Raises
    ------
    ConfigError
        Invalid parameters, missing bound or seed, jobs larger than the machine.

    Examples
    --------
    >>> from simlib.workload.lublin import LublinParams
    >>> w = generate_lublin(LublinParams.typeless(), n_jobs=1000, seed=1)
    >>> len(w.jobs), int(w.jobs["requested_procs"].max()) <= 128
    (1000, True)
    >>> c = generate_lublin(LublinParams.typeless(), n_jobs=1000, seed=1, arrival_clock="lublin99")
    >>> lag = w.jobs["submit_time"] - c.jobs["submit_time"]      # grows ~0.5 s per job
    >>> int(lag.iloc[-1]) in range(450, 551), c.jobs["run_time"].equals(w.jobs["run_time"])
    (True, True)
    """
    _check_extent(n_jobs, span)
    _check_scale(arrival_scale)
    gen = _Generator(params, machine_size, start_hour, seed, arrival_clock)
    counts = gen.counts(n_jobs, span, float(arrival_scale))
    return gen.workload(gen.build(counts, float(arrival_scale)), float(arrival_scale), 1.0)
