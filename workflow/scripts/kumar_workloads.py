"""Pipeline entry point: generate one set of paper K's CWF workloads.

One set = one workload variant (``wildcards.workload``) of one sweep
(``wildcards.purpose``: ``cs`` or ``load``), every load x seed of the scale.
``params.spec`` is :meth:`simlib.studies.kumar.KumarPlan.generation_spec`;
output ``dir`` receives ``load<x>/seed<s>.cwf.gz`` and ``index.json``
(:func:`simlib.studies.kumar.generate_set`).
"""
from _common import job_log
from simlib.studies.kumar import generate_set


def main(snakemake):
    with job_log(snakemake) as log:
        entries = generate_set(snakemake.params.spec, snakemake.output.dir, log=log)
        log.info("wrote %d workloads to %s", len(entries), snakemake.output.dir)


main(snakemake)  # noqa: F821
