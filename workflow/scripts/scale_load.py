"""Pipeline entry point: rescale a prepared trace to a target offered load.

See :func:`simlib.workload.prepare.scale_load` (outputs ``swf``, ``info``).
"""
from _common import job_log
from simlib.workload.prepare import scale_load


def main(snakemake):
    p, out, w = snakemake.params, snakemake.output, snakemake.wildcards
    with job_log(snakemake) as log:
        if "target_loads" not in p.keys():
            scale_load(snakemake.input.swf, p.machine_procs, p.target_load, trace=w.trace,
                       scale=w.scale, swf=out.swf, info=out.info, log=log)
            return
        # A batched job (workflow/rules/workloads.smk): every load of one trace.
        for i, load in enumerate(p.target_loads):
            scale_load(snakemake.input.swf, p.machine_procs, load, trace=p.trace,
                       scale=w.scale, swf=out[f"swf__{i}"], info=out[f"info__{i}"], log=log)


main(snakemake)  # noqa: F821 (injected by Snakemake)
