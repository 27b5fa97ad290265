"""Pipeline entry point: generate one Lublin–Feitelson workload.

``snakemake.params`` is a parameter set with its load and seed: see
:func:`simlib.workload.lublin.calibration.workload_from_params`. Outputs: ``swf`` and,
if named, ``info`` (JSON: parameters, offered load reached, factor, jobs).
"""
from _common import job_log
from simlib.io import write_json
from simlib.workload.lublin.calibration import workload_from_params
from simlib.workload.swf import write_swf


def main(snakemake):
    with job_log(snakemake) as log:
        workload, info = workload_from_params(dict(snakemake.params.items()), log=log)
        write_swf(workload, snakemake.output.swf)
        if "info" in snakemake.output.keys():
            write_json(info, snakemake.output.info)


main(snakemake)  # noqa: F821 (injected by Snakemake)
