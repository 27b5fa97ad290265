"""Pipeline entry point: fetch one trace and verify its pinned sha256.

See :func:`simlib.workload.fetch.fetch_catalog_trace`. It reads
``traces.source`` from the config, not from a tracked param: a verified file
is the same wherever it came from, so a new source must not refetch it.
"""
from _common import job_log, repo_root
from simlib.workload.fetch import fetch_catalog_trace


def main(snakemake):
    with job_log(snakemake) as log:
        fetch_catalog_trace(snakemake.wildcards.trace, snakemake.config["traces"],
                            snakemake.output[0], repo=repo_root(snakemake), log=log)


main(snakemake)  # noqa: F821 (injected by Snakemake)
