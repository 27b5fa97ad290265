"""Pipeline entry point: the baseline study's figure and table.

Mean wait vs offered load (one panel per trace, one line per policy) as PNG
and SVG, and the cube's metrics as a CSV and a Markdown table; each states
the scale that produced it.
"""

from _common import job_log
from simlib.io import write_csv, write_text
from simlib.cube import read_cube
from simlib.figures.baseline import baseline_table, plot_wait_vs_load, table_to_markdown

#: The traces' source, to be cited wherever results derived from them are shown.
PWA_NOTE = ("Traces: Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), 2014), "
            "cleaned logs SDSC-SP2 and CTC-SP2; see each log's header for its acknowledgement.")

#: Table column order: the study's headline metrics first.
FIRST = ["mean_wait", "mean_response", "mean_bounded_slowdown", "utilization", "makespan",
         "p50_wait", "p95_wait", "max_wait", "offered_load", "interarrival_factor",
         "jobs", "jobs_killed"]


def main(snakemake):
    scale = snakemake.params.scale
    with job_log(snakemake) as log:
        cube = read_cube(snakemake.input.cube)
        for out in (snakemake.output.png, snakemake.output.svg):
            plot_wait_vs_load(cube, out, metric=snakemake.params.metric, scale_label=scale,
                              note=PWA_NOTE)
            log.info("wrote %s", out)
        names = [str(v) for v in cube.data_vars]
        table = baseline_table(cube, [m for m in FIRST if m in names]
                               + [m for m in names if m not in FIRST])
        table.insert(0, "scale", scale)
        write_csv(table, snakemake.output.csv, index=False, lineterminator="\n")
        units = {str(v): cube[v].attrs.get("units", "") for v in cube.data_vars}
        md = [
            f"# Baseline study: metrics by trace, policy and offered load ({scale} scale)",
            "",
            f"Source: `{snakemake.input.cube}` (config sha256 {cube.attrs.get('config_sha256', '?')[:12]}, "
            f"commit {cube.attrs.get('git_commit', '?')[:12]}). Bounded slowdown with "
            f"tau = {cube.attrs.get('tau_s', 10.0):g} s. Load is the target offered load, reached by "
            f"scaling inter-arrival times; `offered_load` is the value reached.",
            "",
            table_to_markdown(table.drop(columns=["scale"]), units),
            "",
        ]
        write_text(snakemake.output.md, "\n".join(md), encoding="utf-8")
        log.info("wrote %s and %s (%d rows)", snakemake.output.csv, snakemake.output.md, len(table))


main(snakemake)  # noqa: F821
