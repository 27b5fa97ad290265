"""The Lublin & Feitelson (2003) workload model of rigid parallel jobs.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs", JPDC 63(11), 2003.  This is our
own implementation of the model as its reference implementation (lublin99)
defines it; issue 3 of the project states the facts it is built from.

The model, per job type (a *stream*)
------------------------------------
**Size** (processors).  Draw ``u ~ U(0,1)``.  ``u <= serial_prob``: 1.
Otherwise draw ``par`` (log2 of the size) from the two-stage uniform: with
probability ``uprob`` from ``U(ulow, umed)``, else from ``U(umed, uhi)``; if
``u <= serial_prob + pow2_prob`` round ``par`` to the nearest integer (so
``pow2_prob`` is a fraction of *all* jobs).  Size = ``round(2**par)``, capped
at ``round(2**uhi)`` as lublin99 does.  Rounding is half-up
(``floor(x + 0.5)``), as in the C code.

**Runtime** (seconds).  ``p = clip(pa*size + pb, 0, 1)``; the hyper-gamma
draws ``g ~ Gamma(a1, b1)`` with probability ``p``, else ``Gamma(a2, b2)``;
the whole hyper-gamma draw (component choice included) is repeated while
``g > 12``; runtime = ``floor(exp(g))``.  ``g`` is ln(runtime) before the
floor; :func:`log_runtime_cdf` is its CDF, :func:`runtime_cdf` the CDF of the
integer runtime.

**Arrivals**.  The day is 48 half-hour buckets.  Bucket weights:
``w[(i-1) mod 48] = F(i+0.5) - F(i-0.5)`` for ``i = 11..58``, ``F`` the
``Gamma(anum, bnum)`` CDF, normalised to mean 1 (:func:`bucket_weights`).
Each inter-arrival draws ``g ~ Gamma(aarr*arar, barr)`` (redrawn while
``g > 13``) and pays ``exp(g)/1800`` "points"; a bucket of weight ``w`` costs
``w`` points and lasts 1800 s, and the remainder advances time within the
bucket in proportion to its weight, carrying over between jobs.  Walking the
buckets this way is exactly the inverse of the cumulative weight function
``W(t)``: the k-th arrival is at ``W^-1(W(t0) + sum of the first k point
draws)``.  We evaluate that inverse vectorised (a cumulative sum and one
interpolation) instead of looping bucket by bucket; the times are the same
as the sequential walk's.  The first job arrives one inter-arrival after the
start (as in lublin99).  Because the weights have mean 1, the long-run mean
inter-arrival time is ``E[exp(g) | g <= 13]`` seconds.

With job types (``LublinParams.typed()``), the batch and interactive streams
run side by side and the earlier next arrival wins (ties: the stream listed
first, or the interactive one with the lublin99 clock below).
``LublinParams.typeless()`` is the single whole-sample stream.

Arrival clocks: ``arrival_clock="exact" | "lublin99"``
-----------------------------------------------------
``"exact"`` (default) keeps every arrival time as an exact real: the model
as published.  ``"lublin99"`` reproduces the clock of the archive's C
program (m_lublin99.c), which the papers most likely used.  Our reading of
that program, implemented independently here:

* each job type keeps its time since the start in an ``unsigned long``;
  the step from one arrival to the next is computed in seconds as a
  ``double`` by the bucket walk above, and adding it to the integer clock
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

>>> p = LublinParams.typeless()
>>> e = generate_lublin(p, n_jobs=50_000, seed=3)
>>> c = generate_lublin(p, n_jobs=50_000, seed=3, arrival_clock="lublin99")
>>> lag_hours = (e.jobs["submit_time"] - c.jobs["submit_time"]).iloc[-1] / 3600
>>> bool(6 < lag_hours < 7.5), c.jobs["run_time"].equals(e.jobs["run_time"])
(True, True)

Choices and interpretations (documented deviations)
---------------------------------------------------
* Times are kept as exact reals and floored to whole seconds only when the
  SWF is written; lublin99 truncates every increment instead, which drifts
  (``arrival_clock="lublin99"`` reproduces it).
* ``arrival_scale`` multiplies every inter-arrival *point* draw (default 1):
  it changes the arrival rate while keeping the daily cycle.  Load
  calibration (:func:`calibrate_load`) solves for it.
* ``start_hour`` (default 0 = midnight) may be fractional.
* SWF queue field (15) = job type: :data:`QUEUE_INTERACTIVE` = 0 (the SWF
  convention for interactive jobs), :data:`QUEUE_BATCH` = 1,
  :data:`QUEUE_TYPELESS` = -1 (the typeless model has no type: "missing").
* SWF fields written: job id, submit time, run time, allocated and requested
  processors (both = size), status 1; everything else ``-1``.  Requested
  time is left ``-1``: user estimates are a separate step
  (:mod:`simlib.workload.estimates`).
* Machine size: ``uhi`` is log2 of the largest job a stream makes.  A
  stream whose largest job exceeds ``machine_size`` is an error;
  :meth:`LublinParams.for_machine` shifts ``uhi``/``umed`` for another
  machine size.

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

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from simlib.errors import ConfigError
from simlib.workload.estimates import apply_estimates
from simlib.workload.swf import SWF_FIELDS, Workload

__all__ = [
    "QUEUE_INTERACTIVE", "QUEUE_BATCH", "QUEUE_TYPELESS",
    "RUNTIME_LOG_LIMIT", "ARRIVAL_LOG_LIMIT", "BUCKETS", "SECONDS_PER_BUCKET",
    "REFERENCE_MACHINE_SIZE", "ARRIVAL_CLOCKS",
    "JobTypeParams", "Stream", "LublinParams", "BATCH", "INTERACTIVE", "TYPELESS",
    "bucket_weights", "expected_bucket_distribution", "expected_hour_of_day",
    "interarrival_moments", "expected_mean_interarrival", "cycle_deviation",
    "interarrival_cdf", "expected_clock_drift", "submit_gap_cdf",
    "size_pmf", "expected_serial_fraction", "expected_pow2_fraction",
    "hyper_gamma_p", "log_runtime_cdf", "runtime_cdf", "log_runtime_moments",
    "expected_mean_log_runtime", "expected_runtime", "expected_offered_load",
    "generate_lublin", "calibrate_load", "offered_load", "arrival_bucket", "arrival_times",
    "ESTIMATES_SPAWN_KEY", "model_from_params", "workload_from_params",
]

#: SWF queue code of interactive jobs (SWF reserves queue 0 for them).
QUEUE_INTERACTIVE = 0
#: SWF queue code of batch jobs.
QUEUE_BATCH = 1
#: SWF queue code of the typeless model's jobs (no type: SWF "missing").
QUEUE_TYPELESS = -1

#: ln(runtime) draws above this are redrawn (exp(12) s ~ 45 h).
RUNTIME_LOG_LIMIT = 12.0
#: ln(inter-arrival) draws above this are redrawn (exp(13) s ~ 5 days).
ARRIVAL_LOG_LIMIT = 13.0
#: Half-hour buckets of the daily cycle.
BUCKETS = 48
#: Seconds per bucket.
SECONDS_PER_BUCKET = 1800
SECONDS_PER_DAY = BUCKETS * SECONDS_PER_BUCKET
#: The gamma of the daily cycle is evaluated at i = 11 .. 58 (lublin99).
CYCLIC_DAY_START = 11
#: Machine size the published parameters were fitted for (uhi = 7).
REFERENCE_MACHINE_SIZE = 128
#: Arrival clocks: ``"exact"`` (the model as published, default) and
#: ``"lublin99"`` (the archive's C program: whole-second clocks, see the
#: module docstring).
ARRIVAL_CLOCKS = ("exact", "lublin99")

_BLOCK = 4096  # jobs per seed block (prefix stability, see module docstring)
_R_MAX = int(math.floor(math.exp(RUNTIME_LOG_LIMIT)))  # largest runtime: 162754 s


def _round_half_up(x):
    return np.floor(np.asarray(x, dtype=float) + 0.5)


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class JobTypeParams:
    """Parameters of one job type (stream) of the Lublin–Feitelson model.

    Field names follow lublin99.  Defaults are none: use :data:`BATCH`,
    :data:`INTERACTIVE` or :data:`TYPELESS` and :meth:`replace`.

    Attributes
    ----------
    serial_prob, pow2_prob : float
        Fractions of all jobs that are serial / power-of-two parallel.
    ulow, umed, uhi, uprob : float
        Two-stage uniform on log2(size): ``U(ulow, umed)`` w.p. ``uprob``,
        else ``U(umed, uhi)``.
    a1, b1, a2, b2 : float
        Shapes and scales of the hyper-gamma of ln(runtime).
    pa, pb : float
        ``p = pa * size + pb`` (clipped to [0, 1]) picks ``Gamma(a1, b1)``.
    aarr, barr, arar : float
        ln(inter-arrival) ~ ``Gamma(aarr * arar, barr)``.
    anum, bnum : float
        Gamma whose CDF gives the daily-cycle bucket weights.

    Examples
    --------
    >>> BATCH.replace(aarr=5.0).aarr
    5.0
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(v):
                raise ConfigError(f"Lublin parameter {f.name!r} = {v!r}: must be a finite number")
            object.__setattr__(self, f.name, float(v))
        for name in ("serial_prob", "pow2_prob", "uprob"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"Lublin parameter {name!r} = {getattr(self, name)}: "
                                  "must be a probability in [0, 1]")
        if self.serial_prob + self.pow2_prob > 1.0 + 1e-12:
            raise ConfigError(f"Lublin parameters serial_prob + pow2_prob = "
                              f"{self.serial_prob + self.pow2_prob}: must be <= 1")
        if not 0.0 <= self.ulow <= self.umed <= self.uhi:
            raise ConfigError(f"Lublin parameters need 0 <= ulow <= umed <= uhi, got ulow="
                              f"{self.ulow}, umed={self.umed}, uhi={self.uhi}")
        for name in ("a1", "b1", "a2", "b2", "aarr", "barr", "anum", "bnum", "arar"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"Lublin parameter {name!r} = {getattr(self, name)}: "
                                  "must be > 0 (gamma shape/scale)")

    def replace(self, **overrides) -> "JobTypeParams":
        """Copy with some parameters changed; unknown names raise ConfigError.

        Examples
        --------
        >>> TYPELESS.replace(aarr=13.2303, anum=15.1737, bnum=0.9631).anum
        15.1737
        """
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(f"unknown Lublin parameter(s) {unknown}; known: {sorted(known)}")
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, float]:
        """Parameters as a plain dict (for headers and provenance).

        Examples
        --------
        >>> BATCH.to_dict()["serial_prob"]
        0.2927
        """
        return dataclasses.asdict(self)

    @property
    def max_size(self) -> int:
        """Largest size this stream can draw, ``round(2**uhi)``.

        Examples
        --------
        >>> INTERACTIVE.max_size
        45
        """
        return int(_round_half_up(2.0 ** self.uhi))


#: Batch jobs (lublin99 defaults, fitted on a 128-node machine).
BATCH = JobTypeParams(
    serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, umed=5.0, uhi=7.0, uprob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519)
#: Interactive jobs (lublin99 defaults).
INTERACTIVE = JobTypeParams(
    serial_prob=0.1541, pow2_prob=0.625, ulow=1.0, umed=3.0, uhi=5.5, uprob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797)
#: Whole sample without job types (lublin99 defaults).
TYPELESS = JobTypeParams(
    serial_prob=0.244, pow2_prob=0.576, ulow=0.8, umed=4.5, uhi=7.0, uprob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631, arar=1.0225)

_DEFAULTS = {"batch": (QUEUE_BATCH, BATCH), "interactive": (QUEUE_INTERACTIVE, INTERACTIVE),
             "typeless": (QUEUE_TYPELESS, TYPELESS)}
_MODELS = {"typed": ("batch", "interactive"), "typeless": ("typeless",),
           "batch": ("batch",), "interactive": ("interactive",)}


@dataclass(frozen=True)
class Stream:
    """One job type of a workload: its name, SWF queue code and parameters.

    Examples
    --------
    >>> Stream("batch", QUEUE_BATCH, BATCH).queue
    1
    """

    name: str
    queue: int
    params: JobTypeParams


@dataclass(frozen=True)
class LublinParams:
    """The streams (job types) a workload is generated from.

    Build with :meth:`typed` (batch + interactive, the lublin99 default),
    :meth:`typeless`, :meth:`single` or :meth:`from_config`.

    Examples
    --------
    >>> p = LublinParams.typed(batch={"aarr": 6.5})
    >>> [s.name for s in p.streams], p.stream("batch").params.aarr
    (['batch', 'interactive'], 6.5)
    """

    streams: tuple[Stream, ...]

    def __post_init__(self):
        if not self.streams:
            raise ConfigError("LublinParams needs at least one stream")
        names = [s.name for s in self.streams]
        if len(set(names)) != len(names):
            raise ConfigError(f"duplicate Lublin stream names {names}")

    @staticmethod
    def _params(name, value) -> JobTypeParams:
        base = _DEFAULTS[name][1]
        if value is None:
            return base
        if isinstance(value, JobTypeParams):
            return value
        if isinstance(value, Mapping):
            return base.replace(**dict(value))
        raise ConfigError(f"Lublin stream {name!r}: overrides must be a mapping, got {value!r}")

    @classmethod
    def typed(cls, batch=None, interactive=None) -> "LublinParams":
        """Batch and interactive streams side by side (queues 1 and 0).

        Parameters
        ----------
        batch, interactive : JobTypeParams or mapping or None
            Full parameter sets, or overrides of the defaults.

        Examples
        --------
        >>> LublinParams.typed().stream("interactive").queue
        0
        """
        return cls((Stream("batch", QUEUE_BATCH, cls._params("batch", batch)),
                    Stream("interactive", QUEUE_INTERACTIVE,
                           cls._params("interactive", interactive))))

    @classmethod
    def typeless(cls, params=None, **overrides) -> "LublinParams":
        """The whole-sample model without job types (queue -1).

        Examples
        --------
        >>> LublinParams.typeless(aarr=13.2303).stream("typeless").params.aarr
        13.2303
        """
        p = cls._params("typeless", params).replace(**overrides)
        return cls((Stream("typeless", QUEUE_TYPELESS, p),))

    @classmethod
    def single(cls, name: str, params=None) -> "LublinParams":
        """One stream only: ``"batch"``, ``"interactive"`` or ``"typeless"``.

        Examples
        --------
        >>> LublinParams.single("batch").streams[0].queue
        1
        """
        if name not in _DEFAULTS:
            raise ConfigError(f"unknown Lublin stream {name!r}; choose one of {sorted(_DEFAULTS)}")
        return cls((Stream(name, _DEFAULTS[name][0], cls._params(name, params)),))

    @classmethod
    def from_config(cls, cfg: Mapping | None, where: str = "lublin") -> "LublinParams":
        """Build from a config mapping ``{model: ..., overrides: {stream: {...}}}``.

        ``model`` is ``typed`` (default), ``typeless``, ``batch`` or
        ``interactive``; ``overrides`` maps stream names to parameter
        overrides.  ``where`` names the config location in error messages.

        Examples
        --------
        >>> LublinParams.from_config({"model": "typeless",
        ...                           "overrides": {"typeless": {"aarr": 10.33}}}).streams[0].params.aarr
        10.33
        """
        cfg = dict(cfg or {})
        unknown = sorted(set(cfg) - {"model", "overrides"})
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {unknown}; expected 'model', 'overrides'")
        model = cfg.get("model", "typed")
        if model not in _MODELS:
            raise ConfigError(f"{where}.model = {model!r}: choose one of {sorted(_MODELS)}")
        overrides = dict(cfg.get("overrides") or {})
        extra = sorted(set(overrides) - set(_MODELS[model]))
        if extra:
            raise ConfigError(f"{where}.overrides: stream(s) {extra} not in model {model!r} "
                              f"(streams {list(_MODELS[model])})")
        streams = []
        for name in _MODELS[model]:
            try:
                params = cls._params(name, overrides.get(name))
            except ConfigError as exc:
                raise ConfigError(f"{where}.overrides.{name}: {exc}") from None
            streams.append(Stream(name, _DEFAULTS[name][0], params))
        return cls(tuple(streams))

    def stream(self, name: str) -> Stream:
        """The stream called ``name``.

        Examples
        --------
        >>> LublinParams.typed().stream("batch").params is BATCH
        True
        """
        for s in self.streams:
            if s.name == name:
                return s
        raise ConfigError(f"no Lublin stream {name!r}; have {[s.name for s in self.streams]}")

    def override(self, name: str, **overrides) -> "LublinParams":
        """Copy with parameters of stream ``name`` changed.

        Examples
        --------
        >>> LublinParams.typed().override("batch", barr=0.9).stream("batch").params.barr
        0.9
        """
        self.stream(name)
        return LublinParams(tuple(
            Stream(s.name, s.queue, s.params.replace(**overrides)) if s.name == name else s
            for s in self.streams))

    def for_machine(self, machine_size: int) -> "LublinParams":
        """Shift the size distribution to another machine size.

        Lublin & Feitelson set ``uhi = log2(machine size)`` and keep
        ``uhi - umed`` fixed (their advice: ``umed = uhi - 2.5``).  Every
        stream's ``uhi`` and ``umed`` move by ``log2(machine_size / 128)``
        (128 = the size the defaults were fitted for), so the interactive
        stream keeps its smaller maximum.  ``ulow`` (smallest parallel job)
        stays, clipped so that ``ulow <= umed <= uhi``.

        Examples
        --------
        >>> LublinParams.typeless().for_machine(1024).streams[0].params.uhi
        10.0
        """
        if not (isinstance(machine_size, (int, np.integer)) and machine_size >= 1):
            raise ConfigError(f"machine_size must be an integer >= 1, got {machine_size!r}")
        delta = math.log2(machine_size) - math.log2(REFERENCE_MACHINE_SIZE)
        out = []
        for s in self.streams:
            p = s.params
            uhi = max(p.uhi + delta, 0.0)
            umed = min(max(p.umed + delta, 0.0), uhi)
            ulow = min(p.ulow, umed)
            out.append(Stream(s.name, s.queue, p.replace(uhi=uhi, umed=umed, ulow=ulow)))
        return LublinParams(tuple(out))

    def to_dict(self) -> dict:
        """Plain-data description (streams with queue codes and parameters).

        Examples
        --------
        >>> sorted(LublinParams.typeless().to_dict()["typeless"])[:2]
        ['a1', 'a2']
        """
        return {s.name: {"queue": s.queue, **s.params.to_dict()} for s in self.streams}


def _as_stream_params(p) -> JobTypeParams:
    if isinstance(p, JobTypeParams):
        return p
    if isinstance(p, Stream):
        return p.params
    if isinstance(p, LublinParams) and len(p.streams) == 1:
        return p.streams[0].params
    raise ConfigError(f"expected one stream's JobTypeParams, got {type(p).__name__}")


def _as_lublin_params(p) -> LublinParams:
    if p is None:
        return LublinParams.typed()
    if isinstance(p, LublinParams):
        return p
    if isinstance(p, JobTypeParams):
        return LublinParams((Stream("stream", QUEUE_TYPELESS, p),))
    if isinstance(p, Mapping):
        return LublinParams.from_config(p)
    raise ConfigError(f"expected LublinParams, JobTypeParams or a config mapping, got {p!r}")


# --------------------------------------------------------------------------
# Analytic helpers: arrivals
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
    >>> w = bucket_weights(TYPELESS)
    >>> round(float(w.mean()), 12), int(w.argmax()) // 2   # peak hour of day
    (1.0, 13)
    """
    p = _as_stream_params(params)
    return _bucket_weights(p.anum, p.bnum)


def _cumulative_knots(w: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(w)])


@lru_cache(maxsize=64)
def _gamma_exp_moment(shape: float, scale: float, k: int, limit: float) -> float:
    """E[exp(k g) | g <= limit] for g ~ Gamma(shape, scale)."""
    from scipy import integrate, special, stats  # scipy's import is slow: only when needed

    logc = -special.gammaln(shape) - shape * math.log(scale)

    def f(x):
        if x <= 0:
            return 0.0
        return math.exp(k * x + (shape - 1) * math.log(x) - x / scale + logc)

    mode = max((shape - 1) * scale, 0.0)
    pts = sorted({min(max(mode, 1e-9), limit * 0.999), limit * 0.5})
    num, _ = integrate.quad(f, 0.0, limit, points=pts, limit=400, epsabs=0.0, epsrel=1e-11)
    return float(num / stats.gamma.cdf(limit, shape, scale=scale))


def interarrival_moments(params, arrival_scale: float = 1.0) -> tuple[float, float]:
    """Long-run mean and standard deviation of one stream's inter-arrival time.

    Inter-arrival *points* are iid ``arrival_scale * exp(g) / 1800`` with
    ``g ~ Gamma(aarr*arar, barr)`` truncated at 13; the weights have mean 1,
    so over whole days a point lasts 1800 s and the mean inter-arrival is
    ``arrival_scale * E[exp(g) | g <= 13]``.  The standard deviation is that
    of the iid point sums (what the sample mean's error is made of; the
    daily cycle adds at most :func:`cycle_deviation` to any time difference).

    Examples
    --------
    >>> m, s = interarrival_moments(TYPELESS)
    >>> round(m), s > m     # seconds; bursty (CV > 1)
    (911, True)
    """
    p = _as_stream_params(params)
    shape = p.aarr * p.arar
    m1 = _gamma_exp_moment(shape, p.barr, 1, ARRIVAL_LOG_LIMIT)
    m2 = _gamma_exp_moment(shape, p.barr, 2, ARRIVAL_LOG_LIMIT)
    return arrival_scale * m1, arrival_scale * math.sqrt(max(m2 - m1 * m1, 0.0))


def expected_mean_interarrival(params=None, arrival_scale: float = 1.0, *,
                               arrival_clock: str = "exact") -> float:
    """Long-run mean inter-arrival time (s) of the merged streams.

    Streams are independent renewal processes (in point time), so rates add:
    ``1 / sum(1 / m_s)``.  With ``arrival_clock="lublin99"`` every stream's
    mean gap is shorter by its truncation drift (:func:`expected_clock_drift`,
    about 0.5 s).

    Examples
    --------
    >>> round(expected_mean_interarrival(LublinParams.typed()))
    527
    >>> d = expected_mean_interarrival(TYPELESS) - expected_mean_interarrival(
    ...     TYPELESS, arrival_clock="lublin99")
    >>> round(d, 2)
    0.5
    """
    _check_clock(arrival_clock)
    rate = sum(1.0 / _clock_mean_gap(p, arrival_scale, arrival_clock)
               for p in _stream_params_list(params))
    return 1.0 / rate


def _stream_params_list(params) -> list[JobTypeParams]:
    if isinstance(params, (JobTypeParams, Stream)):
        return [_as_stream_params(params)]
    return [s.params for s in _as_lublin_params(params).streams]


def _clock_mean_gap(p: JobTypeParams, arrival_scale: float, arrival_clock: str) -> float:
    """Long-run mean gap (s) between one stream's submit times under a clock."""
    m = interarrival_moments(p, arrival_scale)[0]
    if arrival_clock == "lublin99":
        m -= expected_clock_drift(p, arrival_scale)
    return m


def cycle_deviation(params) -> float:
    """Largest change (s) the daily cycle can add to a time difference.

    ``t(Q) = 1800 * Q + D(Q)`` with ``D`` periodic (Q cumulative points); a
    difference of arrival times differs from ``1800 *`` (difference of
    points) by at most ``max D - min D``, returned here.

    Examples
    --------
    >>> 0 < cycle_deviation(TYPELESS) < 86400
    True
    """
    w = bucket_weights(params)
    knots = _cumulative_knots(w)
    d = SECONDS_PER_BUCKET * np.arange(BUCKETS + 1) - SECONDS_PER_DAY / knots[-1] * knots
    return float(d.max() - d.min())


def expected_bucket_distribution(params=None, arrival_scale: float = 1.0, *,
                                 arrival_clock: str = "exact",
                                 n_jobs: int | None = None) -> np.ndarray:
    """Long-run probability that an arrival falls in each half-hour bucket.

    For one stream it is ``w / 48`` (point time is uniform over a day in the
    long run, renewal theorem); streams are mixed by their arrival rates.

    With ``arrival_clock="lublin99"`` the submit time of a stream's k-th job
    lies ``k * d`` seconds before its exact time (``d`` =
    :func:`expected_clock_drift`, about 0.5 s), so over the first ``n_jobs``
    jobs the profile is the exact one averaged over lags uniform on
    ``[0, n_jobs * d]`` (computed exactly for the piecewise-constant
    profile; the random part of the lag, ``sqrt(k/12)`` s, is ignored).
    ``n_jobs`` is then required: the stream's own job count for one stream,
    the merged count for several (split by the streams' rates).

    Examples
    --------
    >>> p = expected_bucket_distribution(LublinParams.typed())
    >>> p.shape, round(float(p.sum()), 12)
    ((48,), 1.0)
    >>> q = expected_bucket_distribution(TYPELESS, arrival_clock="lublin99", n_jobs=50_000)
    >>> int(q.argmax()) < int(expected_bucket_distribution(TYPELESS).argmax())   # earlier peak
    True
    """
    _check_clock(arrival_clock)
    if arrival_clock == "lublin99" and not (
            isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, bool) and n_jobs >= 1):
        raise ConfigError(f"the lublin99 clock's hour-of-day profile depends on the number of "
                          f"jobs (its drift grows with it): give n_jobs >= 1, got {n_jobs!r}")
    streams = _stream_params_list(params)
    rates = np.array([1.0 / _clock_mean_gap(p, arrival_scale, arrival_clock) for p in streams])
    probs = []
    for p, r in zip(streams, rates):
        w = bucket_weights(p)
        lag = 0.0
        if arrival_clock == "lublin99":
            lag = n_jobs * (r / rates.sum()) * expected_clock_drift(p, arrival_scale)
        probs.append(_lagged_bucket_probs(w, lag))
    if len(streams) == 1:
        return probs[0]
    return (rates[:, None] * np.array(probs)).sum(axis=0) / rates.sum()


def _lagged_bucket_probs(w: np.ndarray, lag: float) -> np.ndarray:
    """Bucket probabilities of times-of-day moved earlier by a lag ~ U(0, lag).

    The exact time of day has the piecewise-constant density ``w / 86400``
    (cumulative ``C``, extended by ``C(t + day) = C(t) + 1``); a lag ``D``
    uniform on ``[0, L]`` gives the density ``(C(y + L) - C(y)) / L``, whose
    integral over a bucket is a difference of ``H = integral of C``,
    piecewise quadratic and evaluated exactly.
    """
    base = w / w.sum()
    if lag <= 0:
        return base
    c = np.concatenate([[0.0], np.cumsum(base)])                 # C at the bucket edges
    h_knots = np.concatenate([[0.0], np.cumsum(SECONDS_PER_BUCKET * (c[:-1] + c[1:]) / 2)])
    h_day = h_knots[-1]

    def H(t):
        t = np.asarray(t, dtype=float)
        m = np.floor(t / SECONDS_PER_DAY)
        r = t - m * SECONDS_PER_DAY
        j = np.minimum((r // SECONDS_PER_BUCKET).astype(np.int64), BUCKETS - 1)
        tau = r - j * SECONDS_PER_BUCKET
        within = h_knots[j] + c[j] * tau + base[j] / SECONDS_PER_BUCKET * tau * tau / 2
        return m * h_day + SECONDS_PER_DAY * m * (m - 1) / 2 + within + m * r

    e = SECONDS_PER_BUCKET * np.arange(BUCKETS + 1, dtype=float)
    he = H(e + lag)
    p = (np.diff(he) - np.diff(H(e))) / lag
    p = np.clip(p, 0.0, None)
    return p / p.sum()


def expected_hour_of_day(params=None, arrival_scale: float = 1.0, *,
                         arrival_clock: str = "exact", n_jobs: int | None = None) -> np.ndarray:
    """Long-run probability of an arrival in each hour of the day (24 values).

    ``arrival_clock`` and ``n_jobs`` as :func:`expected_bucket_distribution`.

    Examples
    --------
    >>> int(expected_hour_of_day(TYPELESS).argmax())
    13
    """
    return expected_bucket_distribution(params, arrival_scale, arrival_clock=arrival_clock,
                                        n_jobs=n_jobs).reshape(24, 2).sum(axis=1)


def arrival_bucket(submit_time, start_hour: float = 0.0) -> np.ndarray:
    """Half-hour bucket of the day (0..47) of submit times (s since start).

    Examples
    --------
    >>> arrival_bucket([0, 1800, 86399], start_hour=1.0).tolist()
    [2, 3, 1]
    """
    t = np.asarray(submit_time, dtype=float) + start_hour * 3600.0
    return (np.floor(t / SECONDS_PER_BUCKET).astype(np.int64)) % BUCKETS


# --------------------------------------------------------------------------
# Analytic helpers: arrival clocks (exact vs lublin99)
# --------------------------------------------------------------------------

def _check_clock(arrival_clock) -> str:
    if arrival_clock not in ARRIVAL_CLOCKS:
        raise ConfigError(f"arrival_clock {arrival_clock!r}: choose one of {list(ARRIVAL_CLOCKS)}")
    return arrival_clock


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


# --------------------------------------------------------------------------
# Analytic helpers: sizes
# --------------------------------------------------------------------------

def _two_stage_cdf(p: JobTypeParams, x):
    x = np.asarray(x, dtype=float)

    def uni(lo, hi):
        if hi <= lo:
            return (x >= lo).astype(float)
        return np.clip((x - lo) / (hi - lo), 0.0, 1.0)

    return p.uprob * uni(p.ulow, p.umed) + (1.0 - p.uprob) * uni(p.umed, p.uhi)


def size_pmf(params, machine_size: int | None = None) -> np.ndarray:
    """Exact probability of each job size.

    Parameters
    ----------
    params : JobTypeParams
    machine_size : int, optional
        Only to size the array (default: the stream's largest job).

    Returns
    -------
    numpy.ndarray
        ``pmf[k]`` = P(size = k); ``pmf[0] = 0``.

    Examples
    --------
    >>> pmf = size_pmf(BATCH)
    >>> round(float(pmf.sum()), 12), len(pmf) - 1
    (1.0, 128)
    """
    p = _as_stream_params(params)
    top = p.max_size
    n = max(top, machine_size or 0)
    pmf = np.zeros(n + 1)
    pmf[1] += p.serial_prob
    k = np.arange(1, top + 1, dtype=float)
    # Not rounded: size k  <=>  2**par in [k - 0.5, k + 0.5).
    lo = np.log2(np.maximum(k - 0.5, 1e-300))
    hi = np.log2(k + 0.5)
    lo[0] = -np.inf
    frac_plain = 1.0 - p.serial_prob - p.pow2_prob
    plain = _two_stage_cdf(p, hi) - _two_stage_cdf(p, lo)
    plain[-1] = 1.0 - _two_stage_cdf(p, lo[-1])   # lublin99's cap at round(2**uhi)
    pmf[1:top + 1] += frac_plain * plain
    # Rounded: exponent e = floor(par + 0.5), size round(2**e), capped.
    emax = int(math.floor(p.uhi + 0.5))
    for e in range(0, emax + 1):
        mass = float(_two_stage_cdf(p, e + 0.5) - _two_stage_cdf(p, e - 0.5)) if e > 0 \
            else float(_two_stage_cdf(p, 0.5))
        size = min(int(_round_half_up(2.0 ** e)), top)
        pmf[size] += p.pow2_prob * mass
    return pmf


def expected_serial_fraction(params) -> float:
    """Probability that a job has size 1 (serial, or a parallel draw of 1).

    Examples
    --------
    >>> expected_serial_fraction(BATCH)
    0.2927
    """
    return float(size_pmf(params)[1])


def expected_pow2_fraction(params, include_serial: bool = False) -> float:
    """Probability that a job's size is a power of two (>= 2 by default).

    Includes non-rounded parallel draws that land on a power of two.

    Examples
    --------
    >>> round(expected_pow2_fraction(TYPELESS), 4) > TYPELESS.pow2_prob
    True
    """
    pmf = size_pmf(params)
    k = np.arange(len(pmf))
    is_pow2 = (k >= 1) & ((k & (k - 1)) == 0)
    if not include_serial:
        is_pow2 &= k >= 2
    return float(pmf[is_pow2].sum())


# --------------------------------------------------------------------------
# Analytic helpers: runtimes
# --------------------------------------------------------------------------

def hyper_gamma_p(params, size) -> np.ndarray:
    """Probability of the first gamma, ``clip(pa * size + pb, 0, 1)``.

    Examples
    --------
    >>> round(float(hyper_gamma_p(TYPELESS, 1)), 10)
    0.7746
    """
    p = _as_stream_params(params)
    return np.clip(p.pa * np.asarray(size, dtype=float) + p.pb, 0.0, 1.0)


def log_runtime_cdf(params, size, x) -> np.ndarray:
    """CDF of ``g`` = ln(runtime) before the floor, given the size.

    The hyper-gamma mixture conditioned on ``g <= 12`` (lublin99 redraws the
    whole mixture draw above 12):
    ``(p F1(x) + (1-p) F2(x)) / (p F1(12) + (1-p) F2(12))``, 1 above 12.

    Examples
    --------
    >>> float(log_runtime_cdf(BATCH, 1, 12.0)), float(log_runtime_cdf(BATCH, 1, 0.0))
    (1.0, 0.0)
    """
    from scipy import stats  # scipy's import is slow: only when needed

    p = _as_stream_params(params)
    q = hyper_gamma_p(p, size)
    x = np.minimum(np.asarray(x, dtype=float), RUNTIME_LOG_LIMIT)
    f1 = stats.gamma.cdf(x, p.a1, scale=p.b1)
    f2 = stats.gamma.cdf(x, p.a2, scale=p.b2)
    z = q * stats.gamma.cdf(RUNTIME_LOG_LIMIT, p.a1, scale=p.b1) \
        + (1 - q) * stats.gamma.cdf(RUNTIME_LOG_LIMIT, p.a2, scale=p.b2)
    return (q * f1 + (1 - q) * f2) / z


def runtime_cdf(params, size, r) -> np.ndarray:
    """P(runtime <= r) for the integer runtime ``floor(exp(g))``.

    ``runtime <= r  <=>  exp(g) < r + 1``, so this is
    :func:`log_runtime_cdf` at ``ln(floor(r) + 1)``.

    Examples
    --------
    >>> float(runtime_cdf(TYPELESS, 1, 162754))
    1.0
    """
    r = np.floor(np.asarray(r, dtype=float))
    out = log_runtime_cdf(params, size, np.log(np.maximum(r + 1.0, 1.0)))
    return np.where(r < 1, 0.0, out)


@lru_cache(maxsize=64)
def _component_sums(shape: float, scale: float) -> tuple[float, float, float, float]:
    """Sums over integer runtimes r of one gamma component (g <= 12):
    (Z, sum r P, sum ln r P, sum (ln r)^2 P) with P = P(floor(exp g) = r, g <= 12)."""
    from scipy import stats  # scipy's import is slow: only when needed

    r = np.arange(1, _R_MAX + 1, dtype=float)
    upper = np.minimum(np.log(r + 1.0), RUNTIME_LOG_LIMIT)
    cdf = stats.gamma(shape, scale=scale).cdf
    prob = cdf(upper) - cdf(np.log(r))
    lr = np.log(r)
    return (float(cdf(RUNTIME_LOG_LIMIT)), float(prob @ r), float(prob @ lr),
            float(prob @ (lr * lr)))


def _runtime_sums(p: JobTypeParams, size):
    q = hyper_gamma_p(p, size)
    c1 = _component_sums(p.a1, p.b1)
    c2 = _component_sums(p.a2, p.b2)
    return [(q * a + (1 - q) * b) for a, b in zip(c1, c2)]


def log_runtime_moments(params, size) -> tuple[float, float]:
    """Exact mean and standard deviation of ln(runtime), runtime = floor(exp g).

    Summed over every integer runtime 1..floor(e^12) with the truncated
    mixture probabilities (the floor makes ln(runtime) slightly smaller
    than g).

    Examples
    --------
    >>> m, s = log_runtime_moments(BATCH, 1)
    >>> 5 < m < 9 and s > 1
    True
    """
    z, _, s1, s2 = _runtime_sums(_as_stream_params(params), size)
    mean = s1 / z
    return float(mean), float(math.sqrt(max(s2 / z - mean * mean, 0.0)))


def expected_mean_log_runtime(params, size) -> float:
    """E[ln(runtime) | size] (see :func:`log_runtime_moments`).

    Examples
    --------
    >>> expected_mean_log_runtime(TYPELESS, 128) > expected_mean_log_runtime(TYPELESS, 1)
    True
    """
    return log_runtime_moments(params, size)[0]


def expected_runtime(params, size) -> float:
    """E[runtime | size] in seconds (exact over integer runtimes).

    Examples
    --------
    >>> 1000 < expected_runtime(TYPELESS, 1) < 20000
    True
    """
    z, s, _, _ = _runtime_sums(_as_stream_params(params), size)
    return float(s / z)


def _expected_work(p: JobTypeParams) -> float:
    pmf = size_pmf(p)
    k = np.arange(len(pmf), dtype=float)
    nz = pmf > 0
    er = np.array([expected_runtime(p, kk) for kk in k[nz]])
    return float(np.sum(pmf[nz] * k[nz] * er))


def expected_offered_load(params=None, machine_size: int = REFERENCE_MACHINE_SIZE,
                          arrival_scale: float = 1.0) -> float:
    """Long-run offered load ``E[work] * rate / P`` summed over streams.

    ``work = size * runtime``; the rate of a stream is 1 / its mean
    inter-arrival time.  Finite samples scatter around it (heavy tails).

    Examples
    --------
    >>> 0 < expected_offered_load(LublinParams.typeless(), 128) < 5
    True
    """
    lp = _as_lublin_params(params)
    return float(sum(_expected_work(s.params) / interarrival_moments(s.params, arrival_scale)[0]
                     for s in lp.streams) / machine_size)


# --------------------------------------------------------------------------
# Generation
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


def _check_scale(scale):
    if not (isinstance(scale, (int, float, np.integer, np.floating)) and math.isfinite(scale)
            and scale > 0):
        raise ConfigError(f"arrival_scale must be a finite number > 0, got {scale!r}")


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


def _load_of(arrays, machine_size) -> float:
    t, size, run, _ = arrays
    if len(t) < 2:
        return float("nan")
    sub = np.floor(t)
    span = sub[-1] - sub[0]
    if span <= 0:
        return float("inf")
    return float(np.sum(size * run.astype(float)) / (span * machine_size))


def offered_load(workload: Workload, machine_size: int) -> float:
    """Offered load ``sum(size * run_time) / (span * machine_size)``.

    ``span`` = last submit time - first submit time; size =
    ``requested_procs``.  Same definition as
    ``simlib.workload.prepare.offered_load(span="submit")``.

    Examples
    --------
    >>> w = generate_lublin(LublinParams.typeless(), n_jobs=500, seed=3)
    >>> offered_load(w, 128) > 0
    True
    """
    j = workload.jobs
    sub = j["submit_time"].to_numpy(dtype=float)
    if len(sub) < 2 or sub.max() <= sub.min():
        raise ConfigError(f"{workload.path or '<workload>'}: offered load needs a span > 0")
    work = float(np.sum(j["requested_procs"].to_numpy(float).clip(min=0)
                        * j["run_time"].to_numpy(float).clip(min=0)))
    return float(work / ((sub.max() - sub.min()) * machine_size))


def _solve_decreasing(f, target, x0, what):
    """x > 0 with f(x) closest to target, for f non-increasing in x.

    Brackets the target by halving/doubling from x0, then bisects in log x
    to machine precision, returning the best point evaluated.
    """
    memo = {}

    def err(x):
        if x not in memo:
            memo[x] = f(x) / target - 1.0
        return memo[x]

    lo = hi = x0
    for _ in range(200):
        if err(lo) >= 0:
            break
        lo /= 2.0
    else:
        raise ConfigError(f"{what}: the load stays below the target however close the "
                          "arrivals are (too little work?)")
    for _ in range(200):
        if err(hi) <= 0:
            break
        hi *= 2.0
    else:
        raise ConfigError(f"{what}: the load stays above the target however far apart "
                          "the arrivals are")
    for _ in range(200):
        if hi / lo - 1 < 1e-13:
            break
        mid = math.sqrt(lo * hi)
        if err(mid) > 0:
            lo = mid
        else:
            hi = mid
    return min(memo, key=lambda x: (abs(memo[x]), x))


def calibrate_load(target_load: float, params=None, *, n_jobs: int | None = None,
                   span: float | None = None, machine_size: int = REFERENCE_MACHINE_SIZE,
                   start_hour: float = 0.0, arrival_clock: str = "exact", seed,
                   method: str = "cycle", tolerance: float = 0.01) -> tuple[Workload, float]:
    """Generate a workload whose offered load is ``target_load`` (within 1 %).

    Offered load = ``sum(size * runtime) / (span * machine_size)`` with span
    = last submit - first submit (:func:`offered_load`).  Sizes and
    runtimes are those of :func:`generate_lublin` with the same seed; only
    inter-arrival times are scaled, so the result is deterministic for a
    seed.

    Parameters
    ----------
    target_load : float
        Wanted offered load, > 0.
    params, n_jobs, span, machine_size, start_hour, arrival_clock, seed
        As :func:`generate_lublin`.
    method : {"cycle", "stretch"}
        ``"cycle"`` (default) solves for ``arrival_scale``: every
        inter-arrival draw is scaled *inside* the model, so arrivals keep
        the daily cycle.  ``"stretch"`` generates at scale 1 and multiplies
        every inter-arrival time afterwards (what K and its reference [7]
        do: "multiplying the arrival time of each job by a constant"); the
        daily cycle is stretched with it.  ``"stretch"`` needs ``n_jobs``
        and no ``span``.
    tolerance : float, default 0.01
        Maximum relative error of the achieved load; ConfigError if missed.

    Returns
    -------
    workload : Workload
    factor : float
        The ``arrival_scale`` (``"cycle"``) or stretch factor found.

    Notes
    -----
    With typed streams and ``n_jobs``, which stream the last few jobs come
    from depends on the scale; the solver keeps the per-stream job counts
    fixed while solving (so the load is continuous in the scale) and
    re-solves until the counts agree with the solution (at most 10 rounds;
    the header records the counts).  With ``span`` the number of jobs moves
    with the scale and a single heavy job can make the target unreachable
    within tolerance: ConfigError then.

    Examples
    --------
    >>> w, c = calibrate_load(0.7, LublinParams.typeless(), n_jobs=2000, seed=1)
    >>> round(offered_load(w, 128), 2)
    0.7
    """
    _check_extent(n_jobs, span)
    if not (isinstance(target_load, (int, float, np.integer, np.floating))
            and math.isfinite(target_load) and target_load > 0):
        raise ConfigError(f"target_load must be a finite number > 0, got {target_load!r}")
    if method not in ("cycle", "stretch"):
        raise ConfigError(f"calibration method {method!r}: choose 'cycle' or 'stretch'")
    gen = _Generator(params, machine_size, start_hour, seed, arrival_clock)
    P = gen.machine_size
    what = f"load calibration to {target_load}"
    extra = []
    if method == "stretch":
        if span is not None or n_jobs is None:
            raise ConfigError("calibration method 'stretch' needs n_jobs and no span")
        counts = gen.counts(n_jobs, None, 1.0)
        base = gen.build(counts, 1.0)
        t = base[0]
        work = float(np.sum(base[1] * base[2].astype(float)))

        def load(k):
            s = np.floor(t[0] + k * (t[-1] - t[0])) - np.floor(t[0])
            return work / (s * P) if s > 0 else float("inf")

        x0 = max(load(1.0), 1e-12) / target_load
        factor = _solve_decreasing(load, target_load, x0, what)
        arrays = gen.build(counts, 1.0, stretch=factor)
        scale, stretch = 1.0, factor
    else:
        x0 = expected_offered_load(gen.lp, P) / target_load
        if n_jobs is not None and span is None:
            counts = gen.counts(n_jobs, None, x0)
            for _ in range(10):
                frozen = list(counts)
                factor = _solve_decreasing(lambda c, frozen=frozen: gen.load(frozen, c),
                                           target_load, x0, what)
                counts = gen.counts(n_jobs, None, factor)
                if counts == frozen:
                    break
                x0 = factor
            counts = frozen
        else:
            factor = _solve_decreasing(lambda c: gen.load(gen.counts(n_jobs, span, c), c),
                                       target_load, x0, what)
            counts = gen.counts(n_jobs, span, factor)
        arrays = gen.build(counts, factor)
        scale, stretch = factor, 1.0
        extra.append(f"; simlib: jobs per stream {dict(zip([s.name for s in gen.lp.streams], counts))}")
    achieved = _load_of(arrays, P)
    if not abs(achieved / target_load - 1) <= tolerance:
        raise ConfigError(f"{what}: reached only {achieved:.6g} (tolerance {tolerance}); "
                          "generate more jobs or use n_jobs instead of span")
    extra.insert(0, f"; simlib: calibrated to offered load {target_load} on {P} processors "
                    f"(method {method!r}, achieved {achieved!r}, span = last - first submit)")
    return gen.workload(arrays, scale, stretch, extra), factor


# --------------------------------------------------------------------------
# A workload from a parameter mapping (the pipeline's lublin.param_sets)
# --------------------------------------------------------------------------

#: Seed-sequence branch of the estimate draws of :func:`workload_from_params`:
#: apart from the generator's own (stream, purpose, block) children, so the
#: estimate model chosen never changes the jobs themselves.
ESTIMATES_SPAWN_KEY = (1000,)


def _param(params: Mapping, name: str, default=None):
    # A key that is absent and one set to None (a rule's "not configured")
    # both mean the default.
    value = params.get(name)
    return default if value is None else value


def _entropy(seed):
    """The seed as plain JSON-able entropy (int or list of ints), or None."""
    if seed is None or isinstance(seed, (int, np.integer)):
        return None if seed is None else int(seed)
    return [int(x) for x in seed]


def model_from_params(params: Mapping, where: str = "lublin") -> tuple[LublinParams, int]:
    """The model and machine size a parameter mapping names.

    Parameters
    ----------
    params : mapping
        Uses ``model`` (a :meth:`LublinParams.from_config` mapping; default
        typed), ``machine_size`` (default 128) and ``fit_machine`` (shift
        the size distribution with :meth:`LublinParams.for_machine`;
        default False); other keys are ignored. A key set to None takes
        its default.
    where : str, default "lublin"
        Config location named in errors (``<where>.model``).

    Returns
    -------
    params : LublinParams
    machine_size : int

    Examples
    --------
    >>> lp, m = model_from_params({"model": {"model": "typeless"}, "machine_size": 512,
    ...                            "fit_machine": True})
    >>> m, lp.streams[0].params.uhi
    (512, 9.0)
    """
    machine_size = int(_param(params, "machine_size", REFERENCE_MACHINE_SIZE))
    lp = LublinParams.from_config(_param(params, "model", {}), where=f"{where}.model")
    if _param(params, "fit_machine", False):
        lp = lp.for_machine(machine_size)
    return lp, machine_size


def workload_from_params(params: Mapping, *, where: str = "lublin",
                         log=None) -> tuple[Workload, dict]:
    """Generate the workload a parameter mapping describes, with its facts.

    The mapping is an entry of the config's ``lublin.param_sets`` plus the
    run's ``load`` and ``seed``: what the pipeline's ``lublin_workload``
    rule passes as params. With ``load`` the arrivals are calibrated to it
    (:func:`calibrate_load`), without it they are drawn at
    ``arrival_scale`` (:func:`generate_lublin`); then user estimates are
    set (:func:`simlib.workload.estimates.apply_estimates`), drawn from
    ``SeedSequence(seed, spawn_key=ESTIMATES_SPAWN_KEY)``.

    Parameters
    ----------
    params : mapping
        Keys (absent or None = default; other keys are ignored):

        ``model``, ``machine_size``, ``fit_machine``
            As :func:`model_from_params`.
        ``n_jobs``, ``span``
            Number of jobs and/or seconds (at least one).
        ``start_hour``
            Hour of day at time 0 (default 0).
        ``seed``
            Int or list of ints: the run's coordinates (required).
        ``load``
            Target offered load; None: no calibration.
        ``calibration``
            ``cycle`` (default) or ``stretch`` (:func:`calibrate_load`'s
            ``method``).
        ``arrival_scale``
            Used when ``load`` is None (default 1).
        ``arrival_clock``
            ``exact`` (default) or ``lublin99``.
        ``estimates``
            :func:`~simlib.workload.estimates.apply_estimates` mapping
            (default ``{model: exact}``).
    where : str, default "lublin"
        Config location named in errors (``<where>.model``,
        ``<where>.estimates``).
    log : logging.Logger, optional
        Gets one line: jobs, offered load reached, target and factor.

    Returns
    -------
    workload : Workload
    info : dict
        JSON-able: the model (:meth:`LublinParams.to_dict`), machine size,
        seed, jobs in all and per stream, target and offered load, arrival
        clock, the factor found (arrival scale or stretch), the offered
        load the model expects at that factor (None for a stretch, which
        leaves the model), the calibration method (None without a target)
        and the estimate model.

    Raises
    ------
    ConfigError
        Invalid parameters (the message names ``where``), a missing seed
        or bound, or a load that cannot be reached.

    Examples
    --------
    >>> w, info = workload_from_params({"model": {"model": "typeless"}, "n_jobs": 500,
    ...                                 "seed": 3, "load": 0.7})
    >>> info["jobs"], round(info["offered_load"], 2), info["calibration"]
    (500, 0.7, 'cycle')
    >>> bool((w.jobs["requested_time"] == w.jobs["run_time"].clip(lower=1)).all())
    True
    """
    lp, machine_size = model_from_params(params, where)
    entropy = _entropy(_param(params, "seed"))
    common = dict(n_jobs=params.get("n_jobs"), span=params.get("span"),
                  machine_size=machine_size, start_hour=float(_param(params, "start_hour", 0.0)),
                  arrival_clock=_param(params, "arrival_clock", "exact"), seed=entropy)
    target = params.get("load")
    method = _param(params, "calibration", "cycle")
    if target is not None:
        workload, factor = calibrate_load(float(target), lp, method=method, **common)
    else:
        factor = float(_param(params, "arrival_scale", 1.0))
        workload = generate_lublin(lp, arrival_scale=factor, **common)
    load = offered_load(workload, machine_size)
    if log is not None:
        log.info("%d jobs, offered load %.6f (target %s), factor %.6g",
                 len(workload.jobs), load, target, factor)
    spec = _param(params, "estimates", {"model": "exact"})
    workload = apply_estimates(
        workload, spec, where=f"{where}.estimates",
        seed=np.random.SeedSequence(entropy, spawn_key=ESTIMATES_SPAWN_KEY))
    queue = workload.jobs["queue"].to_numpy()
    info = {
        "model": lp.to_dict(),
        "machine_size": machine_size,
        "seed": entropy,
        "jobs": len(workload.jobs),
        "jobs_per_stream": {s.name: int((queue == s.queue).sum()) for s in lp.streams},
        "target_load": target,
        "offered_load": load,
        "arrival_clock": common["arrival_clock"],
        # A stretch moves arrivals outside the model: it expects no load there.
        "expected_offered_load_at_factor": (
            expected_offered_load(lp, machine_size, factor)
            if method == "cycle" or target is None else None),
        "factor": factor,
        "calibration": method if target is not None else None,
        "estimates": spec,
    }
    return workload, info
