"""Pipeline entry point: fetch one trace and verify its pinned sha256.

Reads ``traces.source`` from the config (not a tracked param: a verified
file is the same wherever it came from) and calls
:func:`simlib.workload.prepare.fetch_trace`, which copies or downloads to a
temporary file, verifies, and renames atomically.
"""
from pathlib import Path

from _common import job_log, repo_root
from simlib.workload.prepare import fetch_trace, read_manifest


def trace_source(config, trace, repo):
    """Local directory (absolute) or base URL of one trace, from the config."""
    src = config["traces"]["source"]
    if src == "pwa":
        return config["traces"]["catalog"][trace]["pwa_url"]
    if "://" in src:
        return src
    p = Path(src).expanduser()
    return str(p if p.is_absolute() else repo / p)


def main(snakemake):
    with job_log(snakemake) as log:
        repo = repo_root(snakemake)
        trace = snakemake.wildcards.trace
        manifest_path = Path(snakemake.config["traces"]["manifest"])
        if not manifest_path.is_absolute():
            manifest_path = repo / manifest_path
        manifest = read_manifest(manifest_path)
        source = trace_source(snakemake.config, trace, repo)
        log.info("trace %s: file %s from %s, pinned sha256 %s", trace, snakemake.params.file,
                 source, snakemake.params.sha256)
        fetch_trace(snakemake.params.file, source, snakemake.output[0], manifest)
        log.info("verified and written to %s", snakemake.output[0])


main(snakemake)  # noqa: F821 (injected by Snakemake)
