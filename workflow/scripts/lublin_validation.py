"""Pipeline entry point: the Lublin–Feitelson validation figure.

Draws ``paper_figures/workloads/lublin_validation.png`` with
:func:`simlib.figures.workloads.plot_lublin_validation`.

Input ``swf`` (optional): a workload made by ``lublin_workload.py``; without
it the workload is generated here from the same parameters as that script
(``model``, ``machine_size``, ``fit_machine``, ``n_jobs``, ``span``,
``start_hour``, ``seed``, ``arrival_scale``, ``arrival_clock``).
``params.scale`` (the pipeline scale) is printed on the figure.  Output:
``png``.
"""
import numpy as np

from _common import job_log
from simlib.figures.workloads import plot_lublin_validation
from simlib.workload import lublin
from simlib.workload.swf import read_swf


def _get(p, name, default=None):
    value = getattr(p, name, default)
    return default if value is None else value


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        machine_size = int(_get(p, "machine_size", lublin.REFERENCE_MACHINE_SIZE))
        params = lublin.LublinParams.from_config(_get(p, "model", {}), where="lublin.model")
        if _get(p, "fit_machine", False):
            params = params.for_machine(machine_size)
        if "swf" in snakemake.input.keys():
            workload = read_swf(snakemake.input.swf)
            log.info("read %d jobs from %s", len(workload.jobs), snakemake.input.swf)
        else:
            seed = _get(p, "seed")
            entropy = int(seed) if isinstance(seed, (int, np.integer)) or seed is None \
                else [int(x) for x in seed]
            workload = lublin.generate_lublin(
                params, n_jobs=getattr(p, "n_jobs", None), span=getattr(p, "span", None),
                machine_size=machine_size, start_hour=float(_get(p, "start_hour", 0.0)),
                arrival_scale=float(_get(p, "arrival_scale", 1.0)),
                arrival_clock=_get(p, "arrival_clock", "exact"), seed=entropy)
            log.info("generated %d jobs", len(workload.jobs))
        out = plot_lublin_validation(workload, params, snakemake.output.png,
                                     machine_size=machine_size,
                                     scale_label=_get(p, "scale", None))
        log.info("wrote %s", out)


main(snakemake)  # noqa: F821
