"""Pipeline entry point: paper U's portion of one trace.

Cleans the trace for the paper's machine size (Table 2: 430 CPUs for CTC,
not the header's 338), keeps the configured portion (job positions in the
cleaned trace), and records its characterization (Table 2) with the demand
ratio under the log's own schedule (our reading of Req.Cpus/Cpus, see
simlib.studies.utrera), for the portion and for the whole cleaned trace.
"""

from _common import job_log, write_json
from simlib.io import write_text
from simlib.studies.utrera import log_demand_ratios
from simlib.workload.prepare import (CleaningPolicy, characterize, clean,
                                     format_cleaning_log, subset)
from simlib.workload.swf import max_procs, read_swf, write_swf


def describe(workload, cpus):
    out = characterize(workload, cpus)
    out["demand_ratio_log"], out["queue_demand_ratio_log"] = log_demand_ratios(workload, cpus)
    return out


def main(snakemake):
    p = snakemake.params
    trace = snakemake.wildcards.trace
    portion = p.portion
    cpus = portion["machine_procs"]
    with job_log(snakemake) as log:
        raw = read_swf(snakemake.input.raw, unsorted=p.unsorted)
        policy = CleaningPolicy.from_mapping(p.cleaning)
        cleaned, counts = clean(raw, cpus, policy=policy)
        text = format_cleaning_log(trace, counts, policy)
        write_text(snakemake.output.cleaning_log, text, encoding="utf-8")
        part = subset(cleaned, first_job=portion["first_job"], n_jobs=portion["n_jobs"])
        if len(part.jobs) < portion["n_jobs"]:
            raise ValueError(f"{trace}: only {len(part.jobs)} jobs from position "
                             f"{portion['first_job']} (asked {portion['n_jobs']})")
        part.header.append(f"; simlib: paper U portion on {cpus} CPUs (header MaxProcs "
                           f"{max_procs(raw)})")
        write_swf(part, snakemake.output.swf)
        log.info("%s: %d jobs from position %d on %d CPUs", trace, len(part.jobs),
                 portion["first_job"], cpus)
        write_json({
            "trace": trace,
            "scale": snakemake.wildcards.scale,
            "machine_procs": cpus,
            "header_max_procs": max_procs(raw),
            "first_job": portion["first_job"],
            "jobs": len(part.jobs),
            "first_job_id": int(part.jobs["job_id"].iloc[0]),
            "last_job_id": int(part.jobs["job_id"].iloc[-1]),
            "cleaning_counts": counts,
            "portion": describe(part, cpus),
            "cleaned": describe(cleaned, cpus),
        }, snakemake.output.info)


main(snakemake)  # noqa: F821
