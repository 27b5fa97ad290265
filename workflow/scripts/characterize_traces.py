"""Pipeline entry point: the trace characterization table (CSV + Markdown).

See :func:`simlib.figures.traces.characterize_traces`: per trace, the
whole cleaned trace and the subset the current scale simulates.
"""
from _common import job_log
from simlib.figures.traces import characterize_traces


def main(snakemake):
    with job_log(snakemake) as log:
        characterize_traces(dict(zip(snakemake.params.traces, snakemake.input.info)),
                            scale=snakemake.params.scale, csv=snakemake.output.csv,
                            md=snakemake.output.md, log=log)


main(snakemake)  # noqa: F821 (injected by Snakemake)
