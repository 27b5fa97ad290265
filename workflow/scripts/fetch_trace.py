"""Pipeline entry point: fetch one trace and verify its pinned sha256.

Resolves ``traces.source`` from the config (not a tracked param: a verified
file is the same wherever it came from) with
:func:`simlib.workload.fetch.resolve_source`, the same function the
Snakefile's checks use, then calls :func:`simlib.workload.fetch.fetch_trace`,
which copies or downloads to a temporary file, verifies, and renames
atomically. A download names the file and its size and shows its progress
on stderr (a bar on a terminal, a line per tenth otherwise).
"""
import sys
from pathlib import Path

from _common import job_log, repo_root
from simlib.workload.fetch import (DEFAULT_LOCAL_DIRS, TextProgress, fetch_trace, read_manifest,
                                   resolve_source)


def main(snakemake):
    with job_log(snakemake) as log:
        repo = repo_root(snakemake)
        trace = snakemake.wildcards.trace
        traces = snakemake.config["traces"]
        manifest_path = Path(traces["manifest"])
        if not manifest_path.is_absolute():
            manifest_path = repo / manifest_path
        manifest = read_manifest(manifest_path)
        source = resolve_source(traces["source"], repo=repo,
                                local_dirs=traces.get("local_dirs", DEFAULT_LOCAL_DIRS))
        base = source.base_for(traces["catalog"][trace].get("pwa_url"), trace)
        name = snakemake.params.file
        size_mb = manifest[name].bytes_gz / 1e6
        verb = "downloading" if source.is_remote else "copying"
        message = (f"trace {trace}: {verb} {name} ({size_mb:.1f} MB) from {base}, "
                   f"{source.describe()}; pinned sha256 {snakemake.params.sha256}")
        log.info("%s", message)
        print(message, file=sys.stderr, flush=True)
        progress = TextProgress(name) if source.is_remote else None
        fetch_trace(name, base, snakemake.output[0], manifest, progress=progress)
        log.info("verified and written to %s", snakemake.output[0])


main(snakemake)  # noqa: F821 (injected by Snakemake)
