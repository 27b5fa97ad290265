"""A tiny study, outside simlib, run through the pipeline by the tests.

EASY vs FCFS on a few seeded Lublin-Feitelson workloads: one workload file
per seed, one simulation per (policy, seed), one cube with dims (policy,
seed), one figure and one table. ``docs/adding_a_study.md`` explains each
part; ``tests/test_workflow.py::test_example_study_runs_through_the_pipeline``
runs it.

Config (``studies.example`` in a grid file)::

    registry:
      example: example_study:Example   # this file, importable on PYTHONPATH
    studies:
      example:
        policies: {fcfs: {}, easy: {}}
        jobs: 200
        cpus: 64
        load: 0.8
        seeds: {smoke: 2, default: 5, full: 20}
"""
from __future__ import annotations

import json
from pathlib import Path

from simlib.cube import build_cube, provenance, read_cube, write_cube
from simlib.errors import ConfigError
from simlib.figures.common import new_figure, save_figure
from simlib.io import write_json, write_text
from simlib.markdown import markdown_table
from simlib.metrics import summarize
from simlib.runner import simulate
from simlib.studies import Artifact, Step, Study
from simlib.workload.lublin import LublinParams, calibrate_load
from simlib.workload.swf import read_swf, write_swf

OUT = "paper_figures/example"


class Example(Study):
    """EASY vs FCFS on seeded Lublin workloads (an example of the Study shape)."""

    key = "example"
    section = "example"
    title = "Example study"

    # -------------------------------------------------------------- config
    def seeds(self, scale=None) -> list[int]:
        return list(range(int(self.spec["seeds"][scale or self.scale])))

    def check(self) -> None:
        super().check()  # policies: registered, parameters valid
        for key in ("jobs", "cpus"):
            if not isinstance(self.spec.get(key), int) or self.spec[key] < 1:
                raise ConfigError(f"config studies.example.{key}: a positive integer is needed")

    # --------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        run = "results/runs/example/{scale}/{policy}/seed{seed}.json"
        return [
            Step("example_workload", stage="workloads",
                 message="Generating example workload seed {wildcards.seed}",
                 output={"swf": "data/example/{scale}/seed{seed}.swf"},
                 params={"jobs": self.spec["jobs"], "cpus": self.spec["cpus"],
                         "load": self.spec["load"]},
                 code=["simlib.workload.lublin"], run=self.workload),
            Step("example_simulate", stage="simulate",
                 message="Simulating {wildcards.policy} on example seed {wildcards.seed}",
                 input=lambda w: {"swf": f"data/example/{w.scale}/seed{w.seed}.swf"},
                 output={"summary": run},
                 params=lambda w: {"policy_params": dict(self.spec["policies"][w.policy] or {}),
                                   "cpus": self.spec["cpus"]},
                 policies=lambda w: [w.policy], code=["simlib.runner", "simlib.metrics"],
                 run=self.simulate),
            Step("example_aggregate", stage="aggregate",
                 message="Aggregating the example study",
                 input=lambda w: {"runs": [run.format(scale=w.scale, policy=p, seed=s)
                                           for p in self.spec["policies"]
                                           for s in self.seeds(w.scale)]},
                 output={"cube": "results/example.{scale}.nc"},
                 params=lambda w: {"spec": dict(self.spec), "scale": w.scale},
                 code=["simlib.cube"], report={"cube": "cube"}, run=self.aggregate),
            Step("example_figures", stage="figures",
                 message="Drawing the example study's figure",
                 input={"cube": f"results/example.{self.scale}.nc"},
                 output={"png": f"{OUT}/mean_wait.png", "md": f"{OUT}/mean_wait.md"},
                 params={"scale": self.scale}, report={"png": "cube", "md": "cube"},
                 run=self.figures),
        ]

    def artifacts(self) -> list[Artifact]:
        return [Artifact("example", f"results/example.{self.scale}.nc", "Cube: dims (policy, seed)"),
                Artifact("example", f"{OUT}/mean_wait.png", "Mean wait per policy and seed"),
                Artifact("example", f"{OUT}/mean_wait.md", "Same numbers as a table")]

    # ------------------------------------------------------------ the work
    def workload(self, ctx) -> None:
        p = ctx.params
        wl, _ = calibrate_load(p["load"], LublinParams.typed().for_machine(p["cpus"]), n_jobs=p["jobs"],
                               machine_size=p["cpus"], seed=[7, int(ctx.wildcards["seed"])])
        write_swf(wl, ctx.output.swf)

    def simulate(self, ctx) -> None:
        res = simulate(read_swf(ctx.input.swf), ctx.wildcards["policy"], cpus=ctx.params["cpus"],
                       policy_params=ctx.params["policy_params"])
        write_json({"policy": ctx.wildcards["policy"], "seed": int(ctx.wildcards["seed"]),
                    **summarize(res.jobs, ctx.params["cpus"])}, ctx.output.summary)

    def aggregate(self, ctx) -> None:
        records = [json.loads(Path(f).read_text()) for f in ctx.input.runs]
        cube = build_cube(records, ["policy", "seed"], ["mean_wait", "utilization"],
                          attrs={**provenance(ctx.params, repo_dir=self.repo), "study": "example"})
        write_cube(cube, ctx.output.cube)

    def figures(self, ctx) -> None:
        cube = read_cube(ctx.input.cube)
        fig = new_figure(5, 3)
        ax = fig.add_subplot()
        for policy in cube["policy"].values:
            ax.plot(cube["seed"].values, cube["mean_wait"].sel(policy=policy).values, "o-",
                    label=str(policy))
        ax.set(xlabel="seed", ylabel="mean wait (s)", title=f"Example study ({ctx.params['scale']} scale)")
        ax.legend()
        save_figure(fig, ctx.output.png)
        table = cube["mean_wait"].to_dataframe().reset_index()[["policy", "seed", "mean_wait"]]
        write_text(ctx.output.md, f"# Example study ({ctx.params['scale']} scale)\n\n"
                   + markdown_table(table, headers={"mean_wait": "mean wait (s)"}))
