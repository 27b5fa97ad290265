"""Offered load and load calibration of Lublin–Feitelson workloads.

:func:`offered_load` measures a workload's load; :func:`calibrate_load`
generates a workload at a target load by scaling every inter-arrival draw
(or stretching the arrival times), a smooth 1-D problem thanks to the
draws' prefix stability (:mod:`.model`).  :func:`workload_from_params`
makes the workload a ``lublin.param_sets`` entry describes, calibrated when
the entry names a load: the pipeline's ``lublin_workload`` rule.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from simlib.errors import ConfigError
from simlib.workload.estimates import apply_estimates
from simlib.workload.lublin.analytic import expected_offered_load
from simlib.workload.lublin.model import _check_extent, _Generator, generate_lublin
from simlib.workload.lublin.params import REFERENCE_MACHINE_SIZE, _param, model_from_params
from simlib.workload.swf import Workload

__all__ = ["calibrate_load", "offered_load", "ESTIMATES_SPAWN_KEY", "workload_from_params"]


# --------------------------------------------------------------------------
# Load calibration
# --------------------------------------------------------------------------

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
    >>> from simlib.workload.lublin import LublinParams
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
    >>> from simlib.workload.lublin import LublinParams
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


def _entropy(seed):
    """The seed as plain JSON-able entropy (int or list of ints), or None."""
    if seed is None or isinstance(seed, (int, np.integer)):
        return None if seed is None else int(seed)
    return [int(x) for x in seed]


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
