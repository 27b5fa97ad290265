"""Pipeline entry point: the Lublin–Feitelson validation figure.

``snakemake.params``: the parameter set (and seed) of input ``swf``, and the
pipeline ``scale``; see :func:`simlib.figures.workloads.lublin_validation`.
Output: ``png``.
"""
from _common import job_log
from simlib.figures.workloads import lublin_validation


def main(snakemake):
    with job_log(snakemake) as log:
        swf = snakemake.input.swf if "swf" in snakemake.input.keys() else None
        lublin_validation(dict(snakemake.params.items()), snakemake.output.png, swf=swf, log=log)


main(snakemake)  # noqa: F821 (injected by Snakemake)
