"""The baseline study: FCFS vs EASY vs conservative backfilling on real traces.

A :class:`~simlib.studies.trace_sweep.TraceSweep` (policies x traces x
offered loads, config ``studies.baseline`` in ``config/grids/baseline.yaml``)
plus its figure and table in ``paper_figures/baseline/`` (:mod:`.figures`):
mean wait vs offered load (one panel per trace, one line per policy) and
every metric of the cube as CSV and Markdown, each stating the scale that
produced it.
"""
from __future__ import annotations

from ..base import Artifact, Step
from ..trace_sweep import TraceSweep

__all__ = ["Baseline"]

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
            params={"scale": self.scale, "metric": "mean_wait",
                    # The user's policies, named in the table's text (config extra_policies).
                    **({"extra_policies": list(self.extra_policies)} if self.extra_policies else {})},
            report={k: "baseline" for k in ("png", "svg", "csv", "md")},
            templates=["metrics_by_load.md.j2"],
            run=f"{__name__}.figures:figures")]

    def artifacts(self) -> list[Artifact]:
        return super().artifacts() + [
            Artifact("baseline", f"{OUT}/mean_wait_vs_load.png",
                     "Mean wait time vs offered load, one line per policy, one panel per trace"),
            Artifact("baseline", f"{OUT}/mean_wait_vs_load.svg", "Same figure, vector (SVG)"),
            Artifact("baseline", f"{OUT}/metrics_by_load.csv",
                     "Table of the cube's metrics by trace, policy and load (CSV)"),
            Artifact("baseline", f"{OUT}/metrics_by_load.md", "Same table, Markdown"),
        ]
