"""Arrival clocks: the daily cycle, and the C program's whole-second clock.

A stream's arrivals are draws of inter-arrival *points* (:mod:`.model`);
the daily cycle's bucket weights (:func:`bucket_weights`) turn cumulative
points into seconds by the bucket walk of the model
(:mod:`simlib.workload.lublin`).  This module holds that walk, the two
clocks that time a stream's jobs with it (:func:`arrival_times`) and what
the lublin99 clock changes analytically (:func:`expected_clock_drift`,
:func:`submit_gap_cdf`, from the exact gap's :func:`interarrival_cdf`).

Arrival clocks: ``arrival_clock="exact" | "lublin99"``
-----------------------------------------------------
``"exact"`` (default) keeps every arrival time as an exact real: the model
as published.  ``"lublin99"`` reproduces the clock of the archive's C
program (m_lublin99.c), which the papers most likely used.  Our reading of
that program, implemented independently here:

* each job type keeps its time since the start in an ``unsigned long``;
  the step from one arrival to the next is computed in seconds as a
  ``double`` by the model's bucket walk, and adding it to the integer clock
  truncates it to whole seconds, so the clock gains ``floor(G)`` for an
  exact gap ``G`` (``G >= 0``, so truncation is flooring);
* the walk's own state (bucket, points left, remainder within the bucket)
  stays exact, so the daily cycle advances by ``G``: the printed times
  fall behind the cycle by ``frac(G)`` per job, about 0.5 s
  (:func:`expected_clock_drift`; ~7 h after 50,000 jobs of a stream), which
  moves the hour-of-day profile earlier
  (:func:`expected_bucket_distribution` with ``n_jobs``) and shortens every
  gap by its fractional part (:func:`submit_gap_cdf`);
* the next job is the batch one only if the batch clock is strictly
  earlier, so equal times go to the interactive stream; several streams
  are merged with the interactive stream first and the others in listed
  order;
* the start time is whole hours in the C program (``start_hour`` may be
  fractional here: the exact walk starts there and the integer clock at 0).

Both clocks use the same draws: each stream's sequence of jobs (sizes,
runtimes) is identical; submit times, the order of equal submit times and,
with several streams, where the first ``n_jobs`` merged jobs stop may
differ.  Switching is a config key (``arrival_clock`` of a
``lublin.param_sets`` entry and of paper K's ``generator``).

>>> from simlib.workload.lublin import LublinParams, generate_lublin
>>> p = LublinParams.typeless()
>>> e = generate_lublin(p, n_jobs=50_000, seed=3)
>>> c = generate_lublin(p, n_jobs=50_000, seed=3, arrival_clock="lublin99")
>>> lag_hours = (e.jobs["submit_time"] - c.jobs["submit_time"]).iloc[-1] / 3600
>>> bool(6 < lag_hours < 7.5), c.jobs["run_time"].equals(e.jobs["run_time"])
(True, True)
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from simlib.errors import ConfigError
from simlib.workload.lublin.params import (
    ARRIVAL_LOG_LIMIT,
    JobTypeParams,
    _as_stream_params,
    _check_scale,
)

__all__ = [
    "BUCKETS", "SECONDS_PER_BUCKET", "ARRIVAL_CLOCKS",
    "bucket_weights", "arrival_times", "interarrival_cdf", "expected_clock_drift",
    "submit_gap_cdf",
]

#: Half-hour buckets of the daily cycle.
BUCKETS = 48
#: Seconds per bucket.
SECONDS_PER_BUCKET = 1800
SECONDS_PER_DAY = BUCKETS * SECONDS_PER_BUCKET
#: The gamma of the daily cycle is evaluated at i = 11 .. 58 (lublin99).
CYCLIC_DAY_START = 11
#: Arrival clocks: ``"exact"`` (the model as published, default) and
#: ``"lublin99"`` (the archive's C program: whole-second clocks, see the
#: module docstring).
ARRIVAL_CLOCKS = ("exact", "lublin99")


def _check_clock(arrival_clock) -> str:
    if arrival_clock not in ARRIVAL_CLOCKS:
        raise ConfigError(f"arrival_clock {arrival_clock!r}: choose one of {list(ARRIVAL_CLOCKS)}")
    return arrival_clock


# --------------------------------------------------------------------------
# The daily cycle
# --------------------------------------------------------------------------

@lru_cache(maxsize=64)
def _bucket_weights(anum: float, bnum: float) -> np.ndarray:
    # The Gamma(anum, bnum) CDF (x > 0 here) as scipy.stats computes it,
    # without importing scipy.stats (~1 s): a config check calls this.
    from scipy import special

    w = np.zeros(BUCKETS)
    i = np.arange(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS, dtype=float)

    def cdf(x):
        return special.gammainc(anum, x / bnum)
    w[(i.astype(int) - 1) % BUCKETS] = cdf(i + 0.5) - cdf(i - 0.5)
    if not np.all(np.isfinite(w)) or w.sum() <= 0:
        raise ConfigError(f"daily cycle Gamma(anum={anum}, bnum={bnum}) puts no mass on "
                          "the day's buckets (i = 11..58)")
    w = w / w.mean()
    w.setflags(write=False)
    return w


def bucket_weights(params) -> np.ndarray:
    """Normalised (mean 1) weights of the 48 half-hour buckets of a day.

    Index ``j`` is the bucket starting at ``j * 30`` minutes after midnight.

    Parameters
    ----------
    params : JobTypeParams
        One stream's parameters.

    Returns
    -------
    numpy.ndarray
        Shape (48,), read-only.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> w = bucket_weights(TYPELESS)
    >>> round(float(w.mean()), 12), int(w.argmax()) // 2   # peak hour of day
    (1.0, 13)
    """
    p = _as_stream_params(params)
    return _bucket_weights(p.anum, p.bnum)


def _cumulative_knots(w: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(w)])


class _Clock:
    """Maps cumulative points to seconds after the start (one stream's cycle)."""

    def __init__(self, params: JobTypeParams, start_hour: float):
        w = bucket_weights(params)
        self.knots = _cumulative_knots(w)
        self.period = self.knots[-1]
        self.t0 = (start_hour % 24.0) * 3600.0
        b = int(self.t0 // SECONDS_PER_BUCKET)
        frac = self.t0 / SECONDS_PER_BUCKET - b
        self.q0 = self.knots[b] + frac * w[b]
        self._secs = SECONDS_PER_BUCKET * np.arange(BUCKETS + 1, dtype=float)

    def time(self, points: np.ndarray) -> np.ndarray:
        q = self.q0 + points
        day = np.floor(q / self.period)
        rest = q - day * self.period
        return day * SECONDS_PER_DAY + np.interp(rest, self.knots, self._secs) - self.t0

    def points_at(self, seconds: float) -> float:
        """Points elapsed between the start and ``seconds`` after it."""
        t = self.t0 + seconds
        day = math.floor(t / SECONDS_PER_DAY)
        rest = t - day * SECONDS_PER_DAY
        q = day * self.period + float(np.interp(rest, self._secs, self.knots))
        return q - self.q0


# --------------------------------------------------------------------------
# The clocks: exact and lublin99
# --------------------------------------------------------------------------

def _lublin99_times(exact: np.ndarray) -> np.ndarray:
    """lublin99's integer clock of one stream from its exact arrival times.

    Every exact gap (the first one from the start, time 0) is truncated to
    whole seconds and added to the clock; the daily cycle itself advances
    by the exact gap, so only the printed times lag.  (Gaps are >= 0; the
    ``maximum`` only absorbs float round-off of the vectorised walk.)
    """
    steps = np.diff(exact, prepend=0.0)
    return np.cumsum(np.floor(np.maximum(steps, 0.0)))


def arrival_times(interarrivals, params, *, start_hour: float = 0.0,
                  arrival_clock: str = "exact") -> np.ndarray:
    """Arrival times (s after the start) of raw inter-arrival draws under the cycle.

    ``interarrivals`` are the model's ``exp(g)`` values in seconds (already
    multiplied by any arrival scale); each pays ``exp(g)/1800`` points and
    the bucket walk turns cumulative points into time.  This is the
    vectorised form of lublin99's sequential walk used by the generator.
    ``arrival_clock="lublin99"`` returns lublin99's whole-second clock
    instead (every gap truncated, see the module docstring).

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> t = arrival_times([600.0, 600.0], TYPELESS, start_hour=14)
    >>> bool(0 < t[0] < t[1])
    True
    >>> arrival_times([0.5, 0.7, 1.9], TYPELESS, start_hour=14,
    ...               arrival_clock="lublin99").tolist()    # gaps 0.5 s, 0.7 s, 1.9 s at 14:00
    [0.0, 0.0, 1.0]
    """
    _check_clock(arrival_clock)
    ia = np.asarray(interarrivals, dtype=float)
    if np.any(ia < 0) or not np.all(np.isfinite(ia)):
        raise ConfigError("inter-arrival draws must be finite and >= 0")
    t = _Clock(_as_stream_params(params), float(start_hour)).time(
        np.cumsum(ia) / SECONDS_PER_BUCKET)
    return _lublin99_times(t) if arrival_clock == "lublin99" else t


# --------------------------------------------------------------------------
# Analytic helpers: exact gaps and the lublin99 clock's drift
# --------------------------------------------------------------------------

def _cum_points(knots: np.ndarray, t):
    """Points of the daily cycle between midnight of day 0 and ``t`` seconds after it."""
    t = np.asarray(t, dtype=float)
    day = np.floor(t / SECONDS_PER_DAY)
    rest = t - day * SECONDS_PER_DAY
    return day * knots[-1] + np.interp(rest, SECONDS_PER_BUCKET * np.arange(BUCKETS + 1.0), knots)


def _points_cdf(p: JobTypeParams, dq, arrival_scale: float):
    """P(one inter-arrival pays <= dq points): ``scale * exp(g) / 1800 <= dq``."""
    from scipy import special  # scipy's import is slow: only when needed

    shape = p.aarr * p.arar
    with np.errstate(divide="ignore"):
        y = np.log(np.maximum(dq, 0.0) * (SECONDS_PER_BUCKET / arrival_scale))
    y = np.clip(y, 0.0, ARRIVAL_LOG_LIMIT)       # g > 0 always; g <= 13 by truncation
    return special.gammainc(shape, y / p.barr) / special.gammainc(shape, ARRIVAL_LOG_LIMIT / p.barr)


_GAUSS_SEGMENT = np.polynomial.legendre.leggauss(12)
_GAUSS_UNIT = np.polynomial.legendre.leggauss(6)


def interarrival_cdf(params, x, arrival_scale: float = 1.0) -> np.ndarray:
    """Long-run CDF of one stream's exact inter-arrival time ``G`` (seconds).

    The previous arrival's time of day ``s`` has the density ``w(s) / 86400``
    (point time is uniform in the long run); the next arrival is within
    ``x`` seconds iff its point draw is at most the points between ``s`` and
    ``s + x``.  So ``P(G <= x)`` is the integral over the day of ``w(s) / 86400
    * P(points <= Q(s + x) - Q(s))``; the integrand is smooth between the
    bucket edges and the edges minus ``x``, and each such piece is
    integrated by 12-point Gauss-Legendre.

    Parameters
    ----------
    params : JobTypeParams
        One stream.
    x : array_like
        Seconds.
    arrival_scale : float, default 1

    Returns
    -------
    numpy.ndarray
        ``P(G <= x)``, shape of ``x``.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS, interarrival_moments
    >>> m, _ = interarrival_moments(TYPELESS)
    >>> float(interarrival_cdf(TYPELESS, 0.0)), 0.5 < float(interarrival_cdf(TYPELESS, m)) < 1
    (0.0, True)
    """
    p = _as_stream_params(params)
    w = bucket_weights(p)
    knots = _cumulative_knots(w)
    x = np.asarray(x, dtype=float)
    flat = x.ravel()
    out = np.zeros(flat.size)
    edges = SECONDS_PER_BUCKET * np.arange(BUCKETS + 1, dtype=float)
    nodes, weights = _GAUSS_SEGMENT
    for lo in range(0, flat.size, 128):
        xs = np.clip(flat[lo:lo + 128], 0.0, 1e12)[:, None]    # 1e12 s: F = 1 already
        brk = np.sort(np.concatenate([np.broadcast_to(edges, (len(xs), BUCKETS + 1)),
                                      np.mod(edges[:-1] - xs, SECONDS_PER_DAY)], axis=1), axis=1)
        half = np.diff(brk, axis=1) / 2
        s = (brk[:, :-1] + half)[..., None] + half[..., None] * nodes
        rate = w[np.minimum((s // SECONDS_PER_BUCKET).astype(np.int64), BUCKETS - 1)]
        dq = _cum_points(knots, s + xs[..., None]) - _cum_points(knots, s)
        f = rate * _points_cdf(p, dq, arrival_scale)
        out[lo:lo + 128] = np.einsum("nsm,m,ns->n", f, weights, half) / (
            SECONDS_PER_BUCKET * knots[-1])
    out[flat <= 0] = 0.0
    return np.clip(out, 0.0, 1.0).reshape(x.shape)


def _unit_integrals(params, k: np.ndarray, arrival_scale: float) -> np.ndarray:
    """``integral of P(G <= v) dv over [k, k + 1]`` for integers k (Gauss-Legendre)."""
    nodes, weights = _GAUSS_UNIT
    v = k[:, None] + (nodes + 1.0) / 2.0
    return interarrival_cdf(params, v, arrival_scale) @ weights / 2.0


@lru_cache(maxsize=64)
def _clock_drift(p: JobTypeParams, arrival_scale: float, head: int) -> float:
    k = np.arange(head, dtype=float)
    F = interarrival_cdf(p, np.arange(head + 2, dtype=float), arrival_scale)
    near = float(np.sum(F[1:head + 1] - _unit_integrals(p, k, arrival_scale)))
    density = (F[head + 1] - F[head - 1]) / 2.0
    return float(near + (1.0 - F[head]) / 2.0 - density / 12.0)


def expected_clock_drift(params, arrival_scale: float = 1.0) -> float:
    """Mean lag (s) per job of lublin99's integer clock behind the exact one.

    lublin99 adds ``floor(G)`` to a stream's clock for every exact gap
    ``G``, so after ``k`` jobs its submit time lies ``sum of frac(G_i)``
    behind the exact time; this returns the long-run ``E[frac(G)]``.  With
    ``F`` = :func:`interarrival_cdf`, ``E[frac(G)] = sum over k >= 0 of
    integral over [k, k+1] of (F(k+1) - F(v)) dv``: summed exactly
    (Gauss-Legendre) for ``k < 256`` s, where ``G``'s density may still
    change on the scale of a second, and by the Euler-Maclaurin formula
    beyond (``(1 - F(256)) / 2 - f(256) / 12``).  Gaps are seconds to hours
    long with a smooth density, so for the published parameters the result
    is within 1e-5 of 0.5.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> round(expected_clock_drift(TYPELESS), 2)
    0.5
    """
    p = _as_stream_params(params)
    _check_scale(arrival_scale)
    return _clock_drift(p, float(arrival_scale), 256)


def submit_gap_cdf(params, k, arrival_scale: float = 1.0, *,
                   arrival_clock: str = "exact") -> np.ndarray:
    """Long-run CDF of the whole-second gaps between one stream's SWF submit times.

    * ``"lublin99"``: the gap is ``floor(G)``, so ``P(gap <= k) = F(k + 1)``
      (``F`` = :func:`interarrival_cdf`, continuous).
    * ``"exact"``: submit times are the exact times floored, so the gap is
      ``floor(U + G)`` with ``U`` the previous arrival's fractional second,
      uniform and independent of ``G`` (it varies on a far finer scale than
      anything ``G`` depends on): ``P(gap <= k) = integral of F over
      [k, k + 1]``.

    Parameters
    ----------
    params : JobTypeParams
    k : array_like
        Gaps in seconds (floored to integers).
    arrival_scale : float, default 1
    arrival_clock : {"exact", "lublin99"}

    Examples
    --------
    >>> from simlib.workload.lublin import INTERACTIVE
    >>> a = submit_gap_cdf(INTERACTIVE, 5, arrival_clock="lublin99")
    >>> b = submit_gap_cdf(INTERACTIVE, 5)
    >>> bool(a > b)     # truncation makes short gaps more frequent
    True
    """
    _check_clock(arrival_clock)
    k = np.floor(np.asarray(k, dtype=float))
    flat = np.maximum(k.ravel(), -1.0)
    if arrival_clock == "lublin99":
        out = interarrival_cdf(params, flat + 1.0, arrival_scale)
    else:
        out = _unit_integrals(params, flat, arrival_scale)
    out[flat < 0] = 0.0
    return out.reshape(k.shape)
