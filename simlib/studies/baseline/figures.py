"""The baseline study's figure and table (step ``baseline_figures``)."""
from __future__ import annotations

from ...io import write_csv, write_text
from ...render import render
from ..base import StepContext

__all__ = ["figures"]

#: The traces' source, cited wherever results derived from them are shown.
PWA_NOTE = ("Traces: Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), 2014), "
            "cleaned logs SDSC-SP2 and CTC-SP2; see each log's header for its acknowledgement.")

#: The baseline's policies: one style each, whatever else the cube holds
#: (config extra_policies: :mod:`simlib.figures.styles`).
PAPER_STYLES = {"conservative": {"color": "tab:blue", "marker": "o"},
                "easy": {"color": "tab:orange", "marker": "s"},
                "fcfs": {"color": "tab:green", "marker": "D"}}

#: Table column order: the study's headline metrics first.
FIRST = ["mean_wait", "mean_response", "mean_bounded_slowdown", "utilization", "makespan",
         "p50_wait", "p95_wait", "max_wait", "offered_load", "interarrival_factor",
         "jobs", "jobs_killed"]


def figures(ctx: StepContext) -> None:
    """Mean wait vs offered load (PNG, SVG) and every metric as CSV and Markdown."""
    from ...cube import read_cube
    from ...figures.baseline import baseline_table, plot_wait_vs_load, table_to_markdown

    scale = ctx.params["scale"]
    cube = read_cube(ctx.input.cube)
    for out in (ctx.output.png, ctx.output.svg):
        plot_wait_vs_load(cube, out, metric=ctx.params["metric"], scale_label=scale, note=PWA_NOTE,
                          paper_styles=PAPER_STYLES)
        ctx.log.info("wrote %s", out)
    names = [str(v) for v in cube.data_vars]
    table = baseline_table(cube, [m for m in FIRST if m in names] + [m for m in names if m not in FIRST])
    table.insert(0, "scale", scale)
    write_csv(table, ctx.output.csv, index=False, lineterminator="\n")
    units = {str(v): cube[v].attrs.get("units", "") for v in cube.data_vars}
    write_text(ctx.output.md, render(__package__, "metrics_by_load.md.j2", scale=scale,
                                     cube_path=ctx.input.cube, attrs=cube.attrs,
                                     extra=ctx.params.get("extra_policies", []),
                                     table=table_to_markdown(table.drop(columns=["scale"]), units)),
               encoding="utf-8")
    ctx.log.info("wrote %s and %s (%d rows)", ctx.output.csv, ctx.output.md, len(table))
