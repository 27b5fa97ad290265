"""Pipeline entry point: rescale a prepared trace to a target offered load.

Inter-arrival times are multiplied by one factor (the LOS papers' method).
Submit times are rounded to whole seconds so the result is a valid SWF file
any simulator can read; the offered load reached therefore differs from the
target by a rounding error (~1e-7 at smoke scale), and the JSON records both
the factor and the load reached.
"""
from _common import job_log, write_json
from simlib.workload.prepare import offered_load, rescale_to_load
from simlib.workload.swf import read_swf, write_swf


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        wl = read_swf(snakemake.input.swf)
        before = offered_load(wl, p.machine_procs)
        scaled, factor = rescale_to_load(wl, p.machine_procs, p.target_load,
                                        round_to_seconds=True)
        after = offered_load(scaled, p.machine_procs)
        log.info("offered load %.6f -> %.6f (target %s), inter-arrival factor %.6f",
                 before, after, p.target_load, factor)
        write_swf(scaled, snakemake.output.swf)
        write_json({
            "trace": snakemake.wildcards.trace,
            "scale": snakemake.wildcards.scale,
            "machine_procs": p.machine_procs,
            "target_load": p.target_load,
            "original_offered_load": before,
            "offered_load": after,
            "interarrival_factor": factor,
            "jobs": len(scaled.jobs),
        }, snakemake.output.info)


main(snakemake)  # noqa: F821
