"""Pipeline entry point: generate one Lublin–Feitelson workload.

Thin wrapper around :mod:`simlib.workload.lublin` and
:mod:`simlib.workload.estimates`.  ``snakemake.params`` (missing = default):

``model``          mapping ``{model: typed|typeless|batch|interactive,
                   overrides: {stream: {param: value}}}`` (default: typed).
``machine_size``   processors (default 128).
``fit_machine``    shift the size distribution to ``machine_size``
                   (``LublinParams.for_machine``; default False).
``n_jobs``, ``span``  number of jobs and/or seconds (at least one).
``start_hour``     hour of day at time 0 (default 0).
``seed``           int or list of ints: the run's coordinates (required).
``load``           target offered load, or None for no calibration.
``calibration``    ``cycle`` (default) or ``stretch``.
``arrival_scale``  used when ``load`` is None (default 1).
``arrival_clock``  ``exact`` (default) or ``lublin99`` (the archive C
                   program's whole-second clock; see simlib.workload.lublin).
``estimates``      estimate model mapping for ``apply_estimates``
                   (default ``{model: exact}``).

Outputs: ``swf`` (SWF, gzip if it ends in .gz) and, if named, ``info``
(JSON: parameters, offered load reached, scale factor, job counts).
The estimate step draws from ``SeedSequence(seed, spawn_key=(1000,))``,
disjoint from the generator's own streams.
"""
import numpy as np

from _common import job_log, write_json
from simlib.workload import lublin
from simlib.workload.estimates import apply_estimates
from simlib.workload.swf import write_swf


def _get(p, name, default=None):
    value = getattr(p, name, default)
    return default if value is None else value


def _entropy(seed):
    return int(seed) if isinstance(seed, (int, np.integer)) else [int(x) for x in seed]


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        machine_size = int(_get(p, "machine_size", lublin.REFERENCE_MACHINE_SIZE))
        params = lublin.LublinParams.from_config(_get(p, "model", {}), where="lublin.model")
        if _get(p, "fit_machine", False):
            params = params.for_machine(machine_size)
        seed = _get(p, "seed")
        entropy = _entropy(seed) if seed is not None else None
        common = dict(n_jobs=getattr(p, "n_jobs", None), span=getattr(p, "span", None),
                      machine_size=machine_size, start_hour=float(_get(p, "start_hour", 0.0)),
                      arrival_clock=_get(p, "arrival_clock", "exact"), seed=entropy)
        target = getattr(p, "load", None)
        if target is not None:
            workload, factor = lublin.calibrate_load(
                float(target), params, method=_get(p, "calibration", "cycle"), **common)
        else:
            factor = float(_get(p, "arrival_scale", 1.0))
            workload = lublin.generate_lublin(params, arrival_scale=factor, **common)
        load = lublin.offered_load(workload, machine_size)
        log.info("%d jobs, offered load %.6f (target %s), factor %.6g",
                 len(workload.jobs), load, target, factor)
        spec = _get(p, "estimates", {"model": "exact"})
        workload = apply_estimates(
            workload, spec, seed=np.random.SeedSequence(entropy, spawn_key=(1000,)),
            where="lublin.estimates")
        write_swf(workload, snakemake.output.swf)
        if "info" in snakemake.output.keys():
            queue = workload.jobs["queue"].to_numpy()
            write_json({
                "model": params.to_dict(),
                "machine_size": machine_size,
                "seed": entropy,
                "jobs": len(workload.jobs),
                "jobs_per_stream": {s.name: int((queue == s.queue).sum())
                                    for s in params.streams},
                "target_load": target,
                "offered_load": load,
                "arrival_clock": common["arrival_clock"],
                "expected_offered_load_at_factor": (
                    lublin.expected_offered_load(params, machine_size, factor)
                    if _get(p, "calibration", "cycle") == "cycle" or target is None else None),
                "factor": factor,
                "calibration": _get(p, "calibration", "cycle") if target is not None else None,
                "estimates": spec,
            }, snakemake.output.info)


main(snakemake)  # noqa: F821
