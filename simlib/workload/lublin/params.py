"""Parameters of the Lublin–Feitelson model.

A job type (a *stream*) is a :class:`JobTypeParams`, field names as in
lublin99, whose published defaults are :data:`BATCH`, :data:`INTERACTIVE`
and :data:`TYPELESS`; the streams of a workload, each with its SWF queue
code, are a :class:`LublinParams`, built from the defaults, from overrides
or from a config mapping (:meth:`LublinParams.from_config`).
:func:`model_from_params` reads the model and machine size of a
``lublin.param_sets`` entry (the pipeline's parameter mappings).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from simlib.errors import ConfigError

__all__ = [
    "QUEUE_INTERACTIVE", "QUEUE_BATCH", "QUEUE_TYPELESS",
    "RUNTIME_LOG_LIMIT", "ARRIVAL_LOG_LIMIT", "REFERENCE_MACHINE_SIZE",
    "JobTypeParams", "Stream", "LublinParams", "BATCH", "INTERACTIVE", "TYPELESS",
    "model_from_params",
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
#: Machine size the published parameters were fitted for (uhi = 7).
REFERENCE_MACHINE_SIZE = 128


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


def _check_scale(scale):
    if not (isinstance(scale, (int, float, np.integer, np.floating)) and math.isfinite(scale)
            and scale > 0):
        raise ConfigError(f"arrival_scale must be a finite number > 0, got {scale!r}")


# --------------------------------------------------------------------------
# A parameter mapping (the pipeline's lublin.param_sets)
# --------------------------------------------------------------------------

def _param(params: Mapping, name: str, default=None):
    # A key that is absent and one set to None (a rule's "not configured")
    # both mean the default.
    value = params.get(name)
    return default if value is None else value


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
