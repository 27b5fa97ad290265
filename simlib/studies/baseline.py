"""The baseline study: FCFS vs EASY vs conservative backfilling on real traces.

A :class:`~simlib.studies.trace_sweep.TraceSweep` (policies x traces x
offered loads, config ``studies.baseline`` in ``config/grids/baseline.yaml``)
plus its figure and table in ``paper_figures/baseline/``: mean wait vs
offered load (one panel per trace, one line per policy) and every metric of
the cube as CSV and Markdown, each stating the scale that produced it.
"""
from __future__ import annotations

from ..io import write_csv, write_text
from .base import Artifact, Step, StepContext
from .trace_sweep import TraceSweep

__all__ = ["Baseline"]

#: The traces' source, cited wherever results derived from them are shown.
PWA_NOTE = ("Traces: Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), 2014), "
            "cleaned logs SDSC-SP2 and CTC-SP2; see each log's header for its acknowledgement.")

#: Table column order: the study's headline metrics first.
FIRST = ["mean_wait", "mean_response", "mean_bounded_slowdown", "utilization", "makespan",
         "p50_wait", "p95_wait", "max_wait", "offered_load", "interarrival_factor",
         "jobs", "jobs_killed"]

OUT = "paper_figures/baseline"


class Baseline(TraceSweep):
    """FCFS, EASY and conservative backfilling on SDSC-SP2 and CTC-SP2."""

    key = "baseline"
    section = "baseline"
    title = "Baseline"

    def figure_steps(self) -> list[Step]:
        return [Step(
            "baseline_figures",
            stage="figures",
            message=("Plotting mean wait vs offered load and tabulating the baseline study "
                     f"({self.scale} scale)"),
            input={"cube": self.cube_path()},
            output={"png": f"{OUT}/mean_wait_vs_load.png", "svg": f"{OUT}/mean_wait_vs_load.svg",
                    "csv": f"{OUT}/metrics_by_load.csv", "md": f"{OUT}/metrics_by_load.md"},
            params={"scale": self.scale, "metric": "mean_wait"},
            code=["simlib.figures.baseline", "simlib.cube"],
            report={k: "baseline" for k in ("png", "svg", "csv", "md")},
            run=self.figures)]

    def artifacts(self) -> list[Artifact]:
        return super().artifacts() + [
            Artifact("baseline", f"{OUT}/mean_wait_vs_load.png",
                     "Mean wait time vs offered load, one line per policy, one panel per trace"),
            Artifact("baseline", f"{OUT}/mean_wait_vs_load.svg", "Same figure, vector (SVG)"),
            Artifact("baseline", f"{OUT}/metrics_by_load.csv",
                     "Table of the cube's metrics by trace, policy and load (CSV)"),
            Artifact("baseline", f"{OUT}/metrics_by_load.md", "Same table, Markdown"),
        ]

    def figures(self, ctx: StepContext) -> None:
        from ..cube import read_cube
        from ..figures.baseline import baseline_table, plot_wait_vs_load, table_to_markdown

        scale = ctx.params["scale"]
        cube = read_cube(ctx.input.cube)
        for out in (ctx.output.png, ctx.output.svg):
            plot_wait_vs_load(cube, out, metric=ctx.params["metric"], scale_label=scale,
                              note=PWA_NOTE)
            ctx.log.info("wrote %s", out)
        names = [str(v) for v in cube.data_vars]
        table = baseline_table(cube, [m for m in FIRST if m in names]
                               + [m for m in names if m not in FIRST])
        table.insert(0, "scale", scale)
        write_csv(table, ctx.output.csv, index=False, lineterminator="\n")
        units = {str(v): cube[v].attrs.get("units", "") for v in cube.data_vars}
        md = [
            f"# Baseline study: metrics by trace, policy and offered load ({scale} scale)",
            "",
            f"Source: `{ctx.input.cube}` (config sha256 {cube.attrs.get('config_sha256', '?')[:12]}, "
            f"commit {cube.attrs.get('git_commit', '?')[:12]}). Bounded slowdown with "
            f"tau = {cube.attrs.get('tau_s', 10.0):g} s. Load is the target offered load, reached by "
            f"scaling inter-arrival times; `offered_load` is the value reached.",
            "",
            table_to_markdown(table.drop(columns=["scale"]), units),
            "",
        ]
        write_text(ctx.output.md, "\n".join(md), encoding="utf-8")
        ctx.log.info("wrote %s and %s (%d rows)", ctx.output.csv, ctx.output.md, len(table))
