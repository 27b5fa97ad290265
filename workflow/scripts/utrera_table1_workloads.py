"""Pipeline entry point: paper U's Table 1 workloads of one Lublin seed.

For each load: :func:`simlib.workload.utrera.fit_to_window` maps the
submit times of the generated jobs onto [0, span] and scales every runtime
by one factor so that the offered load over the span is the target. The
factors and loads reached go to ``info``.
"""
from _common import job_log, write_json
from simlib.workload.prepare import offered_load
from simlib.workload.swf import read_swf, write_swf
from simlib.workload.utrera import fit_to_window


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        base = read_swf(snakemake.input.swf)
        fits = []
        for load, out in zip(p.loads, snakemake.output.swfs):
            wl, factor = fit_to_window(base, span=p.span, machine_size=p.machine_size, load=load)
            write_swf(wl, out)
            reached = offered_load(wl, p.machine_size)
            run = wl.jobs["run_time"]
            fits.append({"load": load, "runtime_factor": factor, "offered_load": reached,
                         "mean_runtime": float(run.mean()), "one_second_jobs": int((run == 1).sum())})
            log.info("load %s: runtime factor %.6g, reached %.6f, mean runtime %.1f s",
                     load, factor, reached, run.mean())
        write_json({"seed": int(snakemake.wildcards.seed), "span": p.span,
                    "machine_size": p.machine_size, "jobs": len(base.jobs), "fits": fits},
                   snakemake.output.info)


main(snakemake)  # noqa: F821
