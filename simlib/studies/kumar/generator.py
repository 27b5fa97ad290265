"""Paper K's CWF workload generator: the Lublin model on a BlueGene/P.

D. Kumar, Z.-Y. Shae, H. Jamjoom, "Scheduling Batch and Heterogeneous Jobs
with Runtime Elasticity in a Parallel Processing Environment", Section IV-D
(the generator), Tables I-II (parameters) and Section V (M = 320, N_J = 500,
P_E = 0.2, P_R = 0.1).  Output is a CWF workload
(:mod:`simlib.workload.cwf`): jobs, dedicated jobs' requested start times and
elastic control commands.

The model, per job (size, runtime, arrivals, dedicated jobs, elastic
control commands), and how we read what the paper leaves open (the unit
of size in ``p = pa * s + pb``, the size rounding and scale fitted to the
printed n̄, the Load's duration, the means the paper does not give, β_arr)
are written out in ``generator.md`` beside this module; :class:`KumarParams`
names every choice.

Determinism: every random quantity comes from its own child of the seed's
SeedSequence, one draw per job whatever the parameters (common random
numbers: ``generator.md``).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.errors import ConfigError
from simlib.workload import lublin
from simlib.workload.cwf import ElasticCommand, merge_commands, split_commands
from simlib.workload.lublin.calibration import _solve_decreasing
from simlib.workload.lublin.model import _as_seed_sequence, _child, _seed_text
from simlib.workload.lublin.params import _round_half_up
from simlib.workload.swf import SWF_FIELDS, Workload, max_procs

__all__ = [
    "MACHINE_SIZE", "ALLOCATION_UNIT", "N_JOBS", "PAPER_P_E", "PAPER_P_R", "TABLE_I", "TABLE_II",
    "BETA_ARR_RANGE", "QUEUE_BATCH", "QUEUE_DEDICATED", "KumarParams", "size_pmf",
    "expected_mean_job_size", "mean_job_size_se", "hyper_gamma_p", "expected_runtime",
    "expected_load", "expected_beta_arr", "generate_kumar", "kumar_load", "mean_job_size",
    "kumar_info", "published_n_bar_fit"]

#: Processors of the simulated BlueGene/P (Section IV-A).
MACHINE_SIZE = 320
#: Processors per allocation unit (BlueGene/P node card).
ALLOCATION_UNIT = 32
#: Jobs per workload (N_J, Section V).
N_JOBS = 500
#: Probabilities of ET and RT commands used for every elastic experiment.
PAPER_P_E = 0.2
PAPER_P_R = 0.1

#: Table I (job runtimes), as printed.
TABLE_I: dict[str, float] = {"a1": 4.2, "b1": 0.94, "a2": 312.0, "b2": 0.03,
                             "pa": -0.0054, "pb": 0.78}
#: Table II (arrival process), as printed; β_arr "varies in [0.4101, 0.6101]".
TABLE_II: dict[str, float] = {"aarr": 13.2303, "anum": 15.1737, "bnum": 0.9631,
                              "arar": 1.0225}
#: Table II's printed range of β_arr.
BETA_ARR_RANGE: tuple[float, float] = (0.4101, 0.6101)

#: SWF queue (field 15) of batch jobs.
QUEUE_BATCH = 1
#: SWF queue of dedicated jobs (SWF's interactive queue 0).
QUEUE_DEDICATED = 0

_G_RUN_LIMIT = lublin.RUNTIME_LOG_LIMIT      # ln(runtime) <= 12
_G_ARR_LIMIT = lublin.ARRIVAL_LOG_LIMIT      # ln(inter-arrival) <= 13
_SIZE_SCALES = ("linear", "log2")
# Child seed keys, one per purpose.
_ARRIVALS, _SIZES, _RUNTIMES, _DEDICATED, _COMMANDS = range(5)


# Parameters.
@functools.lru_cache(maxsize=None)
def _fields_schema() -> dict:
    """The schema of :class:`KumarParams`' fields: the study schema's ``$defs.kumar_params``."""
    full = json.loads(Path(__file__).with_name("kumar.schema.json").read_text(encoding="utf-8"))
    return {"$defs": full["$defs"], "$ref": "#/$defs/kumar_params"}


@dataclass(frozen=True)
class KumarParams:
    """Parameters of paper K's generator (defaults: the paper's, batch only).

    One field per key of ``kumar.schema.json``'s ``$defs.kumar_params``,
    which describes each (and checks them here); the model and the choices
    the paper leaves open are in ``generator.md``.

    Examples
    --------
    >>> KumarParams(p_s=0.8).replace(p_d=0.5).p_d
    0.5
    """

    p_s: float = 0.5
    p_d: float = 0.0
    p_e: float = 0.0
    p_r: float = 0.0
    machine_size: int = MACHINE_SIZE
    unit: int = ALLOCATION_UNIT
    small_units: tuple[float, float] = (1.0, 3.0)
    large_units: tuple[float, float] = (4.0, 10.0)
    size_scale: str = "linear"
    a1: float = TABLE_I["a1"]
    b1: float = TABLE_I["b1"]
    a2: float = TABLE_I["a2"]
    b2: float = TABLE_I["b2"]
    pa: float = TABLE_I["pa"]
    pb: float = TABLE_I["pb"]
    p_size: str = "processors"
    aarr: float = TABLE_II["aarr"]
    barr: float = 0.5101
    anum: float = TABLE_II["anum"]
    bnum: float = TABLE_II["bnum"]
    arar: float = TABLE_II["arar"]
    start_hour: float = 0.0
    arrival_clock: str = "exact"
    dedicated_delay_mean: float = 3600.0
    amount_basis: str = "runtime"
    extension_mean: float = 0.25
    reduction_mean: float = 0.25
    command_window: float = 1.0

    def __post_init__(self):
        # Each field against the schema's definition (kumar.schema.json,
        # $defs.kumar_params: types, ranges, choices), then what involves
        # several fields.
        from simlib.schema import validate
        for name in ("small_units", "large_units"):
            v = getattr(self, name)
            object.__setattr__(self, name, list(v) if isinstance(v, (list, tuple)) else v)
        validate(dataclasses.asdict(self), _fields_schema(), "Kumar parameters")
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name in ("small_units", "large_units"):
                v = tuple(float(x) for x in v)
                if not v[0] <= v[1]:
                    raise ConfigError(f"Kumar parameter {f.name!r} = {v!r}: need low <= high")
            elif isinstance(v, (int, float, np.integer, np.floating)):
                if not math.isfinite(v):
                    raise ConfigError(f"Kumar parameter {f.name!r} = {v!r}: must be finite")
                v = int(v) if f.name in ("machine_size", "unit") else float(v)
            object.__setattr__(self, f.name, v)
        if self.p_e + self.p_r > 1.0 + 1e-12:
            raise ConfigError(f"Kumar parameters p_e + p_r = {self.p_e + self.p_r}: must be "
                              "<= 1 (a job gets at most one command)")
        biggest = self.unit * _round_half_up(max(self.small_units[1], self.large_units[1]))
        if biggest > self.machine_size:
            raise ConfigError(f"Kumar parameters: jobs of up to {int(biggest)} processors do "
                              f"not fit machine_size = {self.machine_size}")

    def replace(self, **overrides) -> "KumarParams":
        """Copy with some parameters changed; unknown names raise ConfigError."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(f"unknown Kumar parameter(s) {unknown}; known: {sorted(known)}")
        return dataclasses.replace(self, **overrides)

    @classmethod
    def from_config(cls, cfg: Mapping | None, where: str = "kumar") -> "KumarParams":
        """Build from a config mapping of field names (missing = default).

        Examples
        --------
        >>> KumarParams.from_config({"p_s": 0.8, "large_units": [4, 10]}).large_units
        (4.0, 10.0)
        """
        try:
            return cls().replace(**dict(cfg or {}))
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None

    def to_dict(self) -> dict:
        """Plain data (for headers and provenance).

        Examples
        --------
        >>> KumarParams().to_dict()["small_units"]
        [1.0, 3.0]
        """
        return {**dataclasses.asdict(self), "small_units": list(self.small_units),
                "large_units": list(self.large_units)}

    def lublin_equivalent(self, barr: float | None = None) -> lublin.JobTypeParams:
        """Lublin stream parameters with Table I/II (runtime and arrivals).

        Only the runtime and arrival fields are meaningful (sizes are drawn
        by this module); used to reuse lublin's analytic helpers.

        Examples
        --------
        >>> KumarParams().lublin_equivalent(0.45).barr
        0.45
        """
        fields = {k: getattr(self, k) for k in (*TABLE_I, *TABLE_II)}
        return lublin.TYPELESS.replace(**fields, barr=self.barr if barr is None else barr)


def _as_params(params) -> KumarParams:
    if params is None:
        return KumarParams()
    if isinstance(params, KumarParams):
        return params
    if isinstance(params, Mapping):
        return KumarParams.from_config(params)
    raise ConfigError(f"expected KumarParams or a mapping, got {params!r}")


# Analytic expectations.
def _stage_pmf(lo: float, hi: float, scale: str = "linear") -> dict[int, float]:
    """P(round(x) = k): the rounding cells [k - 1/2, k + 1/2) cut by [lo, hi].

    ``x`` is uniform on [lo, hi] (``"linear"``) or its log2 is (``"log2"``).
    """
    if hi == lo:
        return {int(_round_half_up(lo)): 1.0}
    f = math.log2 if scale == "log2" else (lambda v: v)
    out = {}
    for k in range(int(_round_half_up(lo)), int(_round_half_up(hi)) + 1):
        mass = (f(min(hi, k + 0.5)) - f(max(lo, k - 0.5))) / (f(hi) - f(lo))
        if mass > 0:
            out[k] = mass
    return out


def size_pmf(params=None) -> dict[int, float]:
    """Exact distribution of job sizes in processors."""
    p = _as_params(params)
    pmf: dict[int, float] = {}
    for weight, (lo, hi) in ((p.p_s, p.small_units), (1.0 - p.p_s, p.large_units)):
        if weight == 0:
            continue
        for k, m in _stage_pmf(lo, hi, p.size_scale).items():
            pmf[p.unit * k] = pmf.get(p.unit * k, 0.0) + weight * m
    return dict(sorted(pmf.items()))


def expected_mean_job_size(params=None) -> float:
    """E[size] in processors (the expectation of n̄)."""
    return float(sum(k * m for k, m in size_pmf(params).items()))


def mean_job_size_se(params=None, n_jobs: int = N_JOBS) -> float:
    """Standard error of n̄ over ``n_jobs`` independent jobs.

    Examples
    --------
    >>> round(mean_job_size_se(KumarParams(p_s=0.5), 500), 2)
    4.07
    """
    pmf = size_pmf(params)
    mean = sum(k * m for k, m in pmf.items())
    var = sum(m * (k - mean) ** 2 for k, m in pmf.items())
    return math.sqrt(var / n_jobs)


def hyper_gamma_p(params, size) -> np.ndarray:
    """``p = clip(pa * s + pb, 0, 1)`` for sizes in processors; ``s`` is the size in
    processors or in units, per ``params.p_size``."""
    p = _as_params(params)
    s = np.asarray(size, dtype=float)
    if p.p_size == "units":
        s = s / p.unit
    return np.clip(p.pa * s + p.pb, 0.0, 1.0)


def expected_runtime(params, size: int) -> float:
    """E[runtime | size] in seconds (exact sum over integer runtimes).

    Examples
    --------
    >>> expected_runtime(KumarParams(), 320) > expected_runtime(KumarParams(), 32)
    True
    """
    p = _as_params(params)
    s = size / p.unit if p.p_size == "units" else size
    return lublin.expected_runtime(p.lublin_equivalent(), s)


def _expected_work(p: KumarParams) -> float:
    return float(sum(m * k * expected_runtime(p, k) for k, m in size_pmf(p).items()))


def expected_load(params=None, barr: float | None = None) -> float:
    """Long-run Load ``E[size * runtime] / (E[inter-arrival] * M)``."""
    p = _as_params(params)
    mean_ia, _ = lublin.interarrival_moments(p.lublin_equivalent(barr))
    return _expected_work(p) / (mean_ia * p.machine_size)


def expected_beta_arr(params=None, load: float = 0.9) -> float:
    """β_arr whose long-run Load (:func:`expected_load`) is ``load``."""
    p = _as_params(params)
    return _solve_decreasing(lambda b: expected_load(p, b), float(load), p.barr,
                             f"expected beta_arr for Load {load}")


# Generation.
def _truncated_gamma(u, shape, scale, limit):
    """Inverse-CDF draw of Gamma(shape, scale) conditioned on <= limit.

    Continuous and increasing in ``scale`` for fixed ``u`` (the truncated
    family is ordered by likelihood ratio), which makes load calibration a
    1-D root search with common random numbers.
    """
    from scipy import special  # here: a study job that draws no workload skips scipy's import

    top = special.gammainc(shape, limit / scale)
    return scale * special.gammaincinv(shape, u * top)


class _Draws:
    """All per-job uniforms/exponentials of one workload, drawn once."""

    def __init__(self, ss: np.random.SeedSequence, n: int):
        rng = functools.partial(_child, ss)
        self.arrival_u = rng(_ARRIVALS).random(n)
        self.stage_u, self.pos_u = rng(_SIZES).random((2, n))
        self.comp_u, self.gamma_u = rng(_RUNTIMES).random((2, n))
        g = rng(_DEDICATED)
        self.dedicated_u = g.random(n)
        self.delay_e = g.standard_exponential(n)
        g = rng(_COMMANDS)
        self.command_u = g.random(n)
        self.amount_e = g.standard_exponential(n)
        self.issue_u = g.random(n)


def _sizes(p: KumarParams, d: _Draws) -> np.ndarray:
    small = d.stage_u < p.p_s
    lo = np.where(small, p.small_units[0], p.large_units[0])
    hi = np.where(small, p.small_units[1], p.large_units[1])
    if p.size_scale == "log2":
        x = lo * (hi / lo) ** d.pos_u
    else:
        x = lo + (hi - lo) * d.pos_u
    units = _round_half_up(x)
    return (p.unit * units).astype(np.int64)


def _runtimes(p: KumarParams, d: _Draws, size: np.ndarray) -> np.ndarray:
    from scipy import special

    q = hyper_gamma_p(p, size)
    # lublin99 redraws the whole mixture above the limit: the same as picking
    # the component with weights conditioned on g <= limit.
    f1 = special.gammainc(p.a1, _G_RUN_LIMIT / p.b1)
    f2 = special.gammainc(p.a2, _G_RUN_LIMIT / p.b2)
    w1 = q * f1 / (q * f1 + (1.0 - q) * f2)
    first = d.comp_u < w1
    # Each component's inverse CDF only where it was picked (elementwise: the
    # same values as computing both everywhere and choosing).
    g = np.empty(len(first))
    g[first] = _truncated_gamma(d.gamma_u[first], p.a1, p.b1, _G_RUN_LIMIT)
    g[~first] = _truncated_gamma(d.gamma_u[~first], p.a2, p.b2, _G_RUN_LIMIT)
    return np.maximum(np.floor(np.exp(g)), 1.0).astype(np.int64)


def _submits(p: KumarParams, d: _Draws, barr: float, stream: lublin.JobTypeParams) -> np.ndarray:
    """Submit times for scale ``barr``; ``stream`` is ``p.lublin_equivalent()``.

    ``arrival_times`` reads only the daily cycle (``anum``, ``bnum``) of
    ``stream``, never its ``barr``: so one ``stream`` serves every step of
    the load calibration (building it per step was a tenth of the solve).
    """
    g = _truncated_gamma(d.arrival_u, p.aarr * p.arar, barr, _G_ARR_LIMIT)
    t = lublin.arrival_times(np.exp(g), stream, start_hour=p.start_hour,
                             arrival_clock=p.arrival_clock)
    return np.floor(t).astype(np.int64)


def _work(size, run) -> np.float64:
    """Processor-seconds of the jobs: the numerator of :func:`_load`."""
    return np.sum(size * run.astype(float))


def _load(work, submit, machine_size) -> float:
    span = submit[-1] - submit[0]
    if span <= 0:
        return math.inf
    return float(work / (span * machine_size))


def _commands(p: KumarParams, d: _Draws, ids, run, earliest) -> tuple[list, int]:
    et = d.command_u < p.p_e
    rt = ~et & (d.command_u < p.p_e + p.p_r)
    base = np.where(et, p.extension_mean, p.reduction_mean) * d.amount_e
    if p.amount_basis == "runtime":
        base = base * run
    amount = np.maximum(1.0, np.ceil(base))
    amount = np.where(rt, np.minimum(amount, run - 1), amount)
    skipped = rt & (amount < 1)          # a 1-second job cannot be reduced
    rt &= ~skipped
    issue = earliest + np.maximum(1.0, np.ceil(d.issue_u * p.command_window * run))
    cmds = [ElasticCommand(int(issue[i]), int(ids[i]), "ET" if et[i] else "RT", int(amount[i]))
            for i in np.flatnonzero(et | rt)]
    return cmds, int(skipped.sum())


def _check_call(n_jobs, load):
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ConfigError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    if load is not None and n_jobs < 2:
        raise ConfigError("a target load needs n_jobs >= 2 (the load's duration is last "
                          "submit - first submit)")
    if load is not None and (isinstance(load, bool) or not isinstance(
            load, (int, float, np.integer, np.floating)) or not (math.isfinite(load) and load > 0)):
        raise ConfigError(f"load must be a finite number > 0, got {load!r}")


def generate_kumar(params=None, *, load: float | None = 0.9, n_jobs: int = N_JOBS,
                   seed) -> Workload:
    """Generate one CWF workload of paper K (``params``: default ``KumarParams()``).

    ``load``: the target Load (:func:`kumar_load`, without commands) β_arr
    is solved for, reached within a rounding (submit times are whole
    seconds; :func:`.workloads.generate_set` checks it against the grid's
    ``tolerance``); None: ``params.barr`` as given. ``seed`` is required:
    the same seed and arguments give the same bytes. The workload has
    ``n_jobs`` ``S`` lines (ids 1..n in arrival order), then the commands
    interleaved by time; its header records the parameters, seed, β_arr,
    the load with and without commands and the counts (:func:`kumar_info`).
    Bad parameters, a missing seed or an unreachable load: ConfigError.
    """
    p = _as_params(params)
    _check_call(n_jobs, load)
    ss = _as_seed_sequence(seed)
    d = _Draws(ss, int(n_jobs))
    size = _sizes(p, d)
    run = _runtimes(p, d, size)
    M = p.machine_size
    stream = p.lublin_equivalent()
    work = _work(size, run)  # the same at every calibration step
    barr = p.barr if load is None else _solve_decreasing(
        lambda b: _load(work, _submits(p, d, b, stream), M), float(load), p.barr,
        f"Load calibration to {load}")
    submit = _submits(p, d, barr, stream)
    achieved = _load(work, submit, M)
    n = int(n_jobs)
    ids = np.arange(1, n + 1, dtype=np.int64)
    dedicated = d.dedicated_u < p.p_d
    delay = np.maximum(1.0, np.ceil(d.delay_e * p.dedicated_delay_mean)).astype(np.int64)
    requested_start = np.where(dedicated, submit + delay, -1)
    cols = {name: np.full(n, -1, dtype=np.int64) for name in SWF_FIELDS}
    cols.update(job_id=ids, submit_time=submit, run_time=run, allocated_procs=size,
                requested_procs=size, requested_time=run, status=np.ones(n, np.int64),
                queue=np.where(dedicated, QUEUE_DEDICATED, QUEUE_BATCH))
    jobs = pd.DataFrame(cols, columns=list(SWF_FIELDS))
    jobs["avg_cpu_time"] = jobs["avg_cpu_time"].astype(float)
    jobs["used_memory"] = jobs["used_memory"].astype(float)
    jobs["requested_start"] = requested_start
    earliest = np.where(dedicated, requested_start, submit)
    commands, skipped = _commands(p, d, ids, run, earliest)
    with_cmds = _work_with_commands(size, run, ids, commands)
    kinds = [c.kind for c in commands]
    info = {
        "n_jobs": n, "beta_arr": barr,
        "beta_arr_in_paper_range": bool(BETA_ARR_RANGE[0] <= barr <= BETA_ARR_RANGE[1]),
        "target_load": None if load is None else float(load), "load": achieved,
        "load_with_commands": _load(with_cmds, submit, M),
        "n_bar": float(size.mean()), "dedicated": int(dedicated.sum()),
        "commands": {"ET": kinds.count("ET"), "RT": kinds.count("RT")},
        "rt_skipped_one_second_jobs": skipped,
        "seed": _seed_text(seed, ss),
    }
    header = [
        "; Version: 2.2",
        "; Format: CWF = SWF + field 19 requested start time, 20 request type "
        "(S, ET, EP, RT, RP), 21 amount (simlib docs/cwf_format.md)",
        "; Computer: synthetic BlueGene/P, allocation in units of "
        f"{p.unit} processors",
        "; Installation: simlib.studies.kumar.generator (paper K's CWF generator on the Lublin model)",
        f"; MaxJobs: {n}",
        f"; MaxRecords: {n + len(commands)}",
        f"; MaxNodes: {M}",
        f"; MaxProcs: {M}",
        f"; Queues: SWF field 15: {QUEUE_BATCH} = batch, {QUEUE_DEDICATED} = dedicated "
        "(requested start time in field 19)",
        f"; Note: beta_arr {barr!r}"
        + ("" if load is None else f" solved for Load {load} (achieved {achieved!r}, "
           "span = last - first submit, runtimes before commands)"),
        "; simlib: kumar params " + json.dumps(p.to_dict(), sort_keys=True),
        "; simlib: kumar generated " + json.dumps(info, sort_keys=True),
    ]
    return merge_commands(Workload(jobs=jobs, header=header), commands)


def _work_with_commands(size, run, ids, commands) -> float:
    run = run.astype(float).copy()
    pos = {int(j): i for i, j in enumerate(ids)}
    for c in commands:
        i = pos[c.job_id]
        run[i] = max(run[i] + c.time_delta, 0.0)
    return float(np.sum(size * run))


# Measurements on a workload.
def _split(workload: Workload):
    return split_commands(workload) if "request_type" in workload.jobs.columns else (workload, [])


def kumar_load(workload: Workload, machine_size: int | None = None, *,
               include_commands: bool = False) -> float:
    """The paper's Load ``λ/M Σ num_i / μ_i`` of a (CWF or SWF) workload.

    ``1/λ`` = last submit - first submit of the jobs (``S`` lines),
    ``num_i`` = requested processors, ``1/μ_i`` = runtime, plus the
    ET/RT changes when ``include_commands`` (a runtime never below 0).

    ``machine_size`` M: default the header's MaxProcs, else 320.
    """
    jobs_w, commands = _split(workload)
    j = jobs_w.jobs
    M = machine_size or max_procs(workload) or MACHINE_SIZE
    submit = j["submit_time"].to_numpy(np.int64)
    size = j["requested_procs"].to_numpy(np.int64)
    run = j["run_time"].to_numpy(np.int64)
    if len(submit) < 2 or submit.max() <= submit.min():
        raise ConfigError(f"{workload.path or '<workload>'}: Load needs a submit span > 0")
    work = (_work_with_commands(size, run, j["job_id"].to_numpy(), commands) if include_commands
            else float(_work(size, run)))
    return work / (float(submit.max() - submit.min()) * M)


def mean_job_size(workload: Workload) -> float:
    """n̄ = (1/N_J) Σ w_i.num: mean requested processors over the jobs.

    Commands (CWF lines other than ``S``) are not jobs and are excluded.
    """
    jobs_w, _ = _split(workload)
    return float(jobs_w.jobs["requested_procs"].to_numpy(float).mean())


def kumar_info(workload: Workload) -> dict:
    """``{"params": {...}, **generated}``: what :func:`generate_kumar` recorded in a
    workload's header (ConfigError without its ``; simlib: kumar`` lines).
    """
    out = {}
    for line in workload.header:
        for key, prefix in (("params", "; simlib: kumar params "),
                            ("generated", "; simlib: kumar generated ")):
            if line.startswith(prefix):
                out[key] = json.loads(line[len(prefix):])
    if set(out) != {"params", "generated"}:
        raise ConfigError(f"{workload.path or '<workload>'}: not made by simlib.studies.kumar.generator "
                          "(no '; simlib: kumar' header lines)")
    return {"params": out["params"], **out["generated"]}


def published_n_bar_fit(published: Iterable[Mapping], n_jobs: int = N_JOBS,
                        params=None) -> pd.DataFrame:
    """How well each size model explains the paper's n̄ values.

    ``published``: the printed values, ``{p_s, p_d, n_bar}`` each (the
    published file's ``n_bar.values``). For each and each ``size_scale``:
    the expected n̄, its standard error for ``n_jobs`` jobs and the
    published value's z-score; ``attrs["chi2_pvalue"]`` maps each scale to
    the p-value of the sum of squared z-scores (chi-square, one d.o.f. per
    published value, treating the paper's workloads as independent samples).
    Only the size fields of ``params`` matter.
    """
    base = _as_params(params)
    rows = []
    for e in published:
        for scale in _SIZE_SCALES:
            p = base.replace(p_s=e["p_s"], p_d=e["p_d"], size_scale=scale)
            mean, se = expected_mean_job_size(p), mean_job_size_se(p, n_jobs)
            rows.append({"p_s": p.p_s, "p_d": p.p_d, "size_scale": scale, "published": e["n_bar"],
                         "expected": mean, "se": se, "published_z": (e["n_bar"] - mean) / se})
    out = pd.DataFrame(rows)
    from scipy import stats

    out.attrs["chi2_pvalue"] = {
        scale: float(stats.chi2.sf(float((g["published_z"] ** 2).sum()), len(g)))
        for scale, g in out.groupby("size_scale")}
    return out
