"""Pipeline entry point: clean one trace and keep the subset of a scale.

Writes the prepared SWF, the cleaning log (counts of every cleaning rule),
and a JSON with the counts and the characterization of both the whole
cleaned trace and the subset.
"""

from _common import job_log, write_json
from simlib.io import write_text
from simlib.workload.prepare import (CleaningPolicy, characterize, clean,
                                     format_cleaning_log, subset)
from simlib.workload.swf import max_procs, read_swf, write_swf


def main(snakemake):
    p = snakemake.params
    trace = snakemake.wildcards.trace
    with job_log(snakemake) as log:
        raw = read_swf(snakemake.input.raw, unsorted=p.unsorted)
        log.info("read %d jobs from %s (header MaxProcs %s)", len(raw.jobs), snakemake.input.raw,
                 max_procs(raw))
        policy = CleaningPolicy.from_mapping(p.cleaning)
        cleaned, counts = clean(raw, p.machine_procs, policy=policy)
        text = format_cleaning_log(trace, counts, policy)
        write_text(snakemake.output.cleaning_log, text, encoding="utf-8")
        log.info("cleaning:\n%s", text)
        part = subset(cleaned, first_job=p.first_job, n_jobs=p.n_jobs)
        log.info("kept %d jobs from index %d (n_jobs=%s)", len(part.jobs), p.first_job, p.n_jobs)
        write_swf(part, snakemake.output.swf)
        write_json({
            "trace": trace,
            "scale": snakemake.wildcards.scale,
            "machine_procs": p.machine_procs,
            "header_max_procs": max_procs(raw),
            "cleaning_policy": policy.as_dict(),
            "cleaning_counts": counts,
            "subset": {"first_job": p.first_job, "n_jobs": p.n_jobs, "jobs": len(part.jobs)},
            "characterization": {
                "cleaned": characterize(cleaned, p.machine_procs),
                "subset": characterize(part, p.machine_procs),
            },
        }, snakemake.output.info)


main(snakemake)  # noqa: F821
