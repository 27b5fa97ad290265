"""Pipeline entry point: clean one trace and keep the subset of a scale.

See :func:`simlib.workload.prepare.prepare_trace` (outputs ``swf``,
``cleaning_log``, ``info``).
"""
from _common import job_log
from simlib.workload.prepare import prepare_trace


def main(snakemake):
    p, out, w = snakemake.params, snakemake.output, snakemake.wildcards
    with job_log(snakemake) as log:
        prepare_trace(snakemake.input.raw, p.machine_procs, trace=w.trace, scale=w.scale,
                      swf=out.swf, cleaning_log=out.cleaning_log, info=out.info,
                      cleaning=p.cleaning, unsorted=p.unsorted, first_job=p.first_job,
                      n_jobs=p.n_jobs, log=log)


main(snakemake)  # noqa: F821 (injected by Snakemake)
