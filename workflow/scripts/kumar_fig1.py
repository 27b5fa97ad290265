"""Pipeline entry point: paper K's Fig. 1 (EASY vs LOS on the SDSC log).

Reads the ``kumar_fig1`` trace-sweep cube; writes the figure (PNG, SVG) and
its data (CSV).
"""
from _common import job_log
from simlib.io import write_csv
from simlib.cube import read_cube
from simlib.figures.kumar import plot_fig1

NOTE = ("Trace: Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), 2014), "
        "cleaned SDSC-SP2 log; load by multiplying inter-arrival times")


def main(snakemake):
    scale = snakemake.params.scale
    with job_log(snakemake) as log:
        cube = read_cube(snakemake.input.cube)
        for out in (snakemake.output.png, snakemake.output.svg):
            plot_fig1(cube, out, scale_label=scale, note=NOTE)
            log.info("wrote %s", out)
        df = cube[["mean_wait", "offered_load"]].to_dataframe().reset_index()
        df.insert(0, "scale", scale)
        write_csv(df, snakemake.output.csv, index=False, lineterminator="\n")


main(snakemake)  # noqa: F821
