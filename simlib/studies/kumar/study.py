"""The ``kumar`` study: paper K's Section V, and every figure and table of the paper.

Config ``studies.kumar`` (``config/grids/kumar.yaml``, schema
``simlib/studies/schemas/kumar.schema.json``). Steps, in pipeline order:

=================== ========================================================
``kumar_workloads`` one set of CWF workloads per (sweep, variant): every load x seed
``kumar_simulate``  one chunk per (sweep, variant, policy): every load x seed (x C_s)
``kumar_aggregate`` one cube per sweep
``kumar_pick_cs``   the C_s of each P_S, from the C_s sweep
``kumar_fig1``      Fig. 1 from the ``kumar_fig1`` sweep (:mod:`.fig1`), when enabled
``kumar_fig1_segment`` EASY and every LOS variant on one (log segment, load), when
                    ``fig1_sensitivity`` is set and kumar_fig1 enabled
``kumar_fig1_sensitivity`` their cube, table, figure (:mod:`.fig1_sensitivity`)
``kumar_examples``  Fig. 2 (simulated) and Table III (from the policy registry)
``kumar_figures``   Figs. 5–11 and the C_s sweeps of the other P_S
``kumar_tables``    Tables IV–VII, n̄, the claims' verdicts
``kumar_report``    ``paper_figures/kumar/README.md``
=================== ========================================================

Each step's function imports the modules doing its work inside its body
(see :mod:`simlib.studies.kumar`), so that, e.g., editing the README's
wording reruns no simulation.
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ...policies import POLICIES
from ..base import Artifact, Step, StepContext, Study, load_study, load_tag
from .plan import PAPER_NAMES, KumarPlan, artifact_list, check_config

__all__ = ["Kumar"]

#: Where the study's figures and tables go.
OUT = "paper_figures/kumar"
#: One workload set (a directory: every load x seed of the scale).
SET_DIR = "data/workloads/kumar/{scale}/{purpose}/{workload}"
#: One simulation chunk.
RUN_DIR = "results/runs/kumar/{scale}/{purpose}/{workload}/{policy}"
#: The sweeps' cubes and their index titles.
CUBES = (("cs", "Cube (netCDF): the C_s sweep, dims (workload, policy, cs, seed)"),
         ("load", "Cube (netCDF): the load sweeps, dims (workload, policy, load, seed)"),
         ("long", "Cube (netCDF): the 10,000-job runs, dims (workload, policy, load, seed)"),
         ("readings", "Cube (netCDF): load sweeps under other readings, dims (reading, "
                      "workload, policy, load, seed)"))
#: Config key of the Fig. 1 sweep (:class:`.fig1.KumarFig1`), reached through
#: the study registry: importing its module here would make every step of
#: this study depend on the trace sweep's simulation code.
FIG1_KEY = "kumar_fig1"
#: One (segment, load) of the Fig. 1 sensitivity sweep.
SEGMENT_DIR = "results/runs/kumar_fig1_sensitivity/{scale}/{segment}/load{load}"
README_TITLE = ("Paper K: every artifact with published vs reproduced numbers and a verdict "
                "per claim")


def _output_name(file: str) -> str:
    """Output name of a file of paper_figures/kumar (``fig7_batch_ps02.png`` -> ``fig7_batch_ps02_png``)."""
    return file.replace(".", "_")


class Kumar(Study):
    """Paper K (Kumar, Shae, Jamjoom): Delayed-LOS, Hybrid-LOS and runtime elasticity."""

    key = "kumar"
    section = "kumar"
    title = "Kumar et al. (kumar): Delayed-LOS, Hybrid-LOS"
    schema = "kumar.schema.json"
    published_loader = ".published"
    uses = {FIG1_KEY: "Fig. 1 (EASY vs LOS on the SDSC-SP2 log), its sensitivity sweep and "
                      "their claims are"}

    # ------------------------------------------------------------- config
    @functools.cached_property
    def plan(self) -> KumarPlan:
        """The grid at this study's scale."""
        return KumarPlan.from_config(self.config, self.scale)

    def plan_at(self, scale: str) -> KumarPlan:
        """The grid at ``scale`` (a rule's ``scale`` wildcard)."""
        return self.plan if scale == self.scale else KumarPlan.from_config(self.config, scale)

    @functools.cached_property
    def fig1(self) -> Study | None:
        """The ``kumar_fig1`` sweep when it runs too (its cube feeds Fig. 1 and a claim)."""
        if not self.is_selected(FIG1_KEY):
            return None
        return load_study(FIG1_KEY, self.config, self.scale, repo=self.repo)

    @property
    def sensitivity(self) -> dict | None:
        """``fig1_sensitivity`` when it runs (it needs kumar_fig1's trace), else None."""
        spec = self.spec.get("fig1_sensitivity")
        return spec if spec and self.fig1 is not None else None

    def sensitivity_cube(self, scale: str | None = None) -> str:
        return f"results/kumar_fig1_sensitivity.{scale or self.scale}.nc"

    def _segment_summaries(self, scale: str) -> dict:
        from .fig1_sensitivity import segments
        spec = self.sensitivity
        return {"summaries": [
            f"{SEGMENT_DIR}/summary.json".format(scale=scale, segment=seg, load=load_tag(x))
            for seg in segments(spec, scale) for x in spec["loads"][scale]]}

    def _segment_batch(self) -> dict:
        from .fig1_sensitivity import segments
        return self.fold(segment=segments(self.sensitivity, self.scale),
                         load=map(load_tag, self.sensitivity["loads"][self.scale]))

    def _segment_params(self, w) -> dict:
        from .fig1_sensitivity import segments, variants
        trace = self.fig1.traces()[0]
        first, n = segments(self.sensitivity, w.scale)[w.segment]
        return {"trace": trace,
                "machine_procs": self.config["traces"]["catalog"][trace]["machine_procs"],
                "first_job": first, "n_jobs": n, "load": float(w.load),
                "variants": variants(self.sensitivity), "simulation": self.simulation()}

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    def check(self) -> None:
        """Policies (base), the published numbers (schema and registry) and the grid.

        The grid's own rules are :func:`.plan.check_config`.
        """
        super().check()
        check_config(self.config, self.published)
        if self.spec.get("fig1_sensitivity"):
            from .fig1_sensitivity import check_spec
            check_spec(self.spec["fig1_sensitivity"], "config studies.kumar.fig1_sensitivity")

    def cubes(self) -> list[tuple[str, str]]:
        """(purpose, index title) of the sweeps this scale runs."""
        return [(p, t) for p, t in CUBES if p in self.plan.purposes]

    def cube_path(self, purpose: str, scale: str | None = None) -> str:
        """The cube of a sweep (``purpose``: ``cs`` or ``load``)."""
        return f"results/kumar_{purpose}.{scale or self.scale}.nc"

    def picks_path(self, scale: str | None = None) -> str:
        """The C_s picks read by the load sweeps (:func:`.cubes.picks_document`)."""
        return f"results/kumar_cs_pick.{scale or self.scale}.json"

    def _paper_policies(self, wildcards=None) -> list[str]:
        # Fig. 2 simulates LOS and Delayed-LOS; Table III and the README
        # describe every registered policy the paper names.
        return [p for p in PAPER_NAMES if p in POLICIES]

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        plan, scale = self.plan, self.scale
        sets = [*plan.workloads, *plan.purpose_workloads("readings")]
        sweeps = {"purpose": "|".join(plan.purposes), "workload": "|".join(map(re.escape, sets))}
        files = {a["file"]: a for a in artifact_list(plan, fig1=self.fig1 is not None,
                                                     sensitivity=self.sensitivity is not None)}

        def outputs(rule):
            return {_output_name(f): f"{OUT}/{f}" for f, a in files.items() if a["rule"] == rule}

        def marked(names):
            # Every figure and table of paper K is an artifact (caption kumar.rst).
            return {n: "kumar" for n in names}

        pick = plan.cs_sweep["pick"]
        figures = outputs("figures")
        tables = {"tables_md": f"{OUT}/tables_iv_vii.md", "tables_csv": f"{OUT}/tables_iv_vii.csv",
                  "by_load_csv": f"{OUT}/improvements_by_load.csv",
                  "n_bar_md": f"{OUT}/n_bar.md", "n_bar_csv": f"{OUT}/n_bar.csv",
                  "forced_md": f"{OUT}/cs_forced_starts.md",
                  "forced_csv": f"{OUT}/cs_forced_starts.csv",
                  "claims_csv": self.claims_file()}
        if "long" in plan.purposes:
            tables.update(long_runs_md=f"{OUT}/long_runs.md", long_runs_csv=f"{OUT}/long_runs.csv")
        if "readings" in plan.purposes:
            tables.update(readings_md=f"{OUT}/readings.md", readings_csv=f"{OUT}/readings.csv")
        examples = {"fig2_png": f"{OUT}/fig2_delayed_los_example.png",
                    "fig2_svg": f"{OUT}/fig2_delayed_los_example.svg",
                    "fig2_csv": f"{OUT}/fig2_delayed_los_example.csv",
                    "table3_md": f"{OUT}/table3_algorithms.md",
                    "table3_csv": f"{OUT}/table3_algorithms.csv"}
        steps = [
            # A workload takes ~0.03 s to generate: one job per set.
            Step("kumar_workloads", stage="workloads",
                 message=("Generating paper K's {wildcards.workload} workloads for the "
                          "{wildcards.purpose} sweep ({wildcards.scale})"),
                 output={"dir": SET_DIR}, directories=["dir"],
                 params=lambda w: {"spec": self.plan_at(w.scale).generation_spec(w.purpose,
                                                                                 w.workload)},
                 code=["simlib.studies.kumar.workloads"],
                 batch=self.fold(*({"purpose": p, "workload": w} for p in plan.purposes
                                   for w in plan.purpose_workloads(p))),
                 wildcard_constraints=sweeps, run=self.make_workloads),
            # A 500-job run takes ~0.05 s: one job per (sweep, variant,
            # policy) over every load x seed (x C_s). Each chunk depends on
            # its own policy's entry and code only; Delayed-LOS / Hybrid-LOS
            # chunks of the load sweeps also on the pipeline's C_s pick.
            # No Slurm group for this step, the cubes and the pick: the load
            # sweep depends through kumar_pick_cs on the C_s sweep, so a
            # group merging them could wait on itself.
            Step("kumar_simulate", stage="simulate",
                 message=("Simulating {wildcards.policy} on paper K's {wildcards.workload} "
                          "workloads ({wildcards.purpose} sweep, {wildcards.scale})"),
                 input=self._simulate_inputs,
                 output={"summary": f"{RUN_DIR}/summary.json", "jobs": f"{RUN_DIR}/jobs.csv.gz"},
                 params=lambda w: {"spec": self.plan_at(w.scale).simulation_spec(
                                       w.purpose, w.workload, w.policy),
                                   "simulation": self.simulation()},
                 policies=lambda w: [w.policy], code=["simlib.studies.kumar.runs"],
                 wildcard_constraints={**sweeps, "policy": "|".join(plan.policies)},
                 resources={"runtime": 60, "mem_mb": 2000}, group=None,
                 batch=self._simulate_batch(), run=self.simulate),
            Step("kumar_aggregate", stage="aggregate",
                 message=("Aggregating paper K's {wildcards.purpose} sweep ({wildcards.scale}) "
                          "into {output.cube}"),
                 input=lambda w: {"summaries": [
                     f"{RUN_DIR}/summary.json".format(scale=w.scale, purpose=p, workload=wl,
                                                      policy=pol)
                     for p, wl, pol in self.plan_at(w.scale).jobs() if p == w.purpose]},
                 output={"cube": "results/kumar_{purpose}.{scale}.nc"},
                 params=lambda w: {"subtree": self.subtree(w.purpose, w.scale),
                                   "cs_values": list(self.plan_at(w.scale).cs_values)},
                 code=["simlib.studies.kumar.cubes"],
                 wildcard_constraints={"purpose": sweeps["purpose"]}, report={"cube": "cube"},
                 group=None, run=self.aggregate),
            # The C_s of each P_S, picked from the C_s sweep as the paper
            # did; read by the load sweeps' Delayed-LOS / Hybrid-LOS chunks.
            Step("kumar_pick_cs", stage="aggregate",
                 message=(f"Picking C_s per P_S from paper K's C_s sweep ({pick['rule']} of "
                          f"{pick['metric']})"),
                 input={"cube": self.cube_path("cs")},
                 output={"picks": self.picks_path(), "csv": f"{OUT}/cs_pick.csv"},
                 params={"pick": pick, "swept": plan.cs_sweep["swept"],
                         "load": float(plan.cs_sweep["load"]),
                         "p_s": {w: plan.p_s(w) for w in plan.purpose_workloads("cs")},
                         "scale": scale},
                 code=["simlib.studies.kumar.cubes"], report={"csv": "kumar"}, group=None,
                 run=self.pick),
        ]
        if self.fig1 is not None:
            steps.append(Step(
                "kumar_fig1", stage="figures",
                message=(f"Drawing paper K's Fig. 1 (EASY vs LOS on "
                         f"{', '.join(self.fig1.traces())}, {scale} scale)"),
                input={"cube": self.fig1.cube_path()}, output=outputs("fig1"),
                params={"scale": scale},
                code=["simlib.studies.kumar.figures", "simlib.cube"],
                report=marked(outputs("fig1")), run=self.draw_fig1))
        if self.sensitivity is not None:
            trace = self.fig1.traces()[0]
            sens = outputs("fig1_sensitivity")
            steps += [
                # ~25 s per (segment, load) at default scale: EASY and six
                # LOS variants on the same jobs.
                Step("kumar_fig1_segment", stage="simulate",
                     message=(f"Simulating EASY and LOS variants on {trace} jobs "
                              "{wildcards.segment} at load {wildcards.load} "
                              "({wildcards.scale}, Fig. 1 sensitivity)"),
                     # The whole cleaned log (scale full: first job 0, every job).
                     input={"swf": f"data/traces/{trace}.full.swf.gz"},
                     output={"summary": f"{SEGMENT_DIR}/summary.json"},
                     params=self._segment_params, policies=["easy", "los"],
                     code=["simlib.studies.kumar.fig1_sensitivity"],
                     wildcard_constraints={"segment": r"\d+-(\d+|end)"},
                     resources={"runtime": 60, "mem_mb": 2000},
                     batch=self._segment_batch(), run=self.simulate_segment),
                Step("kumar_fig1_sensitivity", stage="figures",
                     message=(f"Fig. 1 sensitivity of paper K: cube, band table and figure "
                              f"({scale})"),
                     input=self._segment_summaries(scale),
                     output={"cube": self.sensitivity_cube(), **sens},
                     params={"tolerance": float(self.sensitivity["tolerance"]),
                             "subtree": {"fig1_sensitivity": self.sensitivity,
                                         "trace": self.fig1.traces()[0],
                                         "simulation": self.simulation(), "scale": scale}},
                     code=["simlib.studies.kumar.fig1_sensitivity", "simlib.studies.kumar.plots",
                           "simlib.cube"],
                     report={**marked(sens), "cube": "kumar"}, run=self.write_sensitivity),
            ]
        steps += [
            Step("kumar_examples", stage="figures",
                 message="Drawing paper K's Fig. 2 from simulation and Table III from the policy registry",
                 input={"published": str(self.published_path)}, output=examples,
                 policies=self._paper_policies,
                 code=["simlib.studies.kumar.runs", "simlib.studies.kumar.figures",
                       "simlib.studies.kumar.tables", "simlib.studies.kumar.published"],
                 report=marked(examples), run=self.draw_examples),
            Step("kumar_figures", stage="figures",
                 message=f"Drawing paper K's Figs. 5-11 ({scale} scale)",
                 input={"cs_cube": self.cube_path("cs"), "load_cube": self.cube_path("load"),
                        "picks": self.picks_path(), "published": str(self.published_path)},
                 output=figures, params={"study": self.spec, "scale": scale},
                 code=["simlib.studies.kumar.figures", "simlib.studies.kumar.published",
                       "simlib.cube"],
                 report=marked(figures), run=self.draw_figures),
            Step("kumar_tables", stage="figures",
                 message=f"Tabulating paper K's Tables IV-VII, n-bar and the claims ({scale} scale)",
                 input=self._tables_inputs(), output=tables,
                 params={"study": self.spec, "scale": scale,
                         "workloads": plan.purpose_workloads("load")},
                 code=["simlib.studies.kumar.tables", "simlib.studies.kumar.report",
                       "simlib.studies.kumar.published", "simlib.studies.kumar.readings",
                       "simlib.cube"],
                 report=marked(tables), run=self.write_tables),
            # The README of paper K: every artifact, published vs reproduced,
            # a verdict per claim (rules in simlib.studies.kumar.report).
            Step("kumar_report", stage="report",
                 message=f"Writing {OUT}/README.md ({scale} scale)",
                 input=self._report_inputs(), output={"readme": f"{OUT}/README.md"},
                 params={"study": self.spec, "scale": scale, "fig1_scale": self._fig1_scale(),
                         "cubes": [self.cube_path(p) for p, _ in self.cubes()]},
                 policies=self._paper_policies,
                 code=["simlib.studies.kumar.report", "simlib.studies.kumar.tables",
                       "simlib.studies.kumar.runs", "simlib.studies.kumar.published",
                       "simlib.cube"],
                 report={"readme": "kumar"}, run=self.write_readme),
        ]
        return steps

    def artifacts(self) -> list[Artifact]:
        """Figures and tables (:func:`.plan.artifact_list`), the README, the cubes, in that order."""
        arts = [Artifact("kumar", f"{OUT}/{a['file']}", a["title"])
                for a in artifact_list(self.plan, fig1=self.fig1 is not None,
                                       sensitivity=self.sensitivity is not None)]
        arts.append(Artifact("kumar", f"{OUT}/README.md", README_TITLE))
        arts += [Artifact("kumar", self.cube_path(p), title) for p, title in self.cubes()]
        if self.sensitivity is not None:
            arts.append(Artifact("kumar", self.sensitivity_cube(), "Cube (netCDF): Fig. 1 "
                                 "sensitivity, dims (segment, load, policy)"))
            if self.scale != "full":  # at full scale the traces section indexes it
                trace = self.fig1.traces()[0]
                arts.append(Artifact("traces", f"logs/traces/{trace}.full.cleaning.txt",
                                     f"Cleaning log of the whole {trace} log, whose segments "
                                     "the Fig. 1 sensitivity simulates"))
        return arts

    def subtree(self, purpose: str, scale: str | None = None) -> dict:
        """Everything a sweep's cube depends on (its provenance)."""
        return {**self.plan_at(scale or self.scale).subtree(purpose),
                "simulation": self.simulation(),
                "policy_modules": list(self.config.get("policy_modules") or [])}

    # --------------------------------------------------------- step inputs
    def _simulate_batch(self) -> dict:
        # Where runs are short: one job per policy, its chunks that read the
        # C_s pick apart from the others (the pick is made from the C_s
        # sweep's chunks, so one job holding both would wait on itself).
        plan, labels = self.plan, {}
        for purpose, workload, policy in plan.jobs():
            picked = plan.simulation_spec(purpose, workload, policy)["cs"] == "pick"
            labels.setdefault(policy + ("_picked" if picked else ""), []).append(
                {"purpose": purpose, "workload": workload, "policy": policy})
        return self.fold_groups(labels)

    def _simulate_inputs(self, w) -> dict:
        spec = self.plan_at(w.scale).simulation_spec(w.purpose, w.workload, w.policy)
        out = {"workloads": SET_DIR.format(scale=w.scale, purpose=w.purpose, workload=w.workload)}
        if spec["cs"] == "pick":
            out["picks"] = self.picks_path(w.scale)
        return out

    def _tables_inputs(self) -> dict:
        out = {"load_cube": self.cube_path("load"), "cs_cube": self.cube_path("cs"),
               "picks": self.picks_path(), "published": str(self.published_path),
               "workloads": [SET_DIR.format(scale=self.scale, purpose="load", workload=w)
                             for w in self.plan.purpose_workloads("load")]}
        if self.fig1 is not None:
            out["fig1_cube"] = self.fig1.cube_path()
        if self.sensitivity is not None:
            out["sensitivity_cube"] = self.sensitivity_cube()
        if "long" in self.plan.purposes:
            out["long_cube"] = self.cube_path("long")
        if "readings" in self.plan.purposes:
            out["readings_cube"] = self.cube_path("readings")
        return out

    def _report_inputs(self) -> dict:
        # Every other artifact of paper K: the README links them all.
        others = [a.path for a in self.artifacts() if not a.path.endswith("README.md")]
        if self.fig1 is not None:
            others += [a.path for a in self.fig1.artifacts()]
        return {"published": str(self.published_path), "picks": self.picks_path(),
                "load_cube": self.cube_path("load"), "tables_csv": f"{OUT}/tables_iv_vii.csv",
                "claims_csv": f"{OUT}/claims.csv", "n_bar_csv": f"{OUT}/n_bar.csv",
                "forced_csv": f"{OUT}/cs_forced_starts.csv", "others": others}

    def _fig1_scale(self) -> str:
        """Which part of which trace Fig. 1 simulates at this scale (for the README)."""
        if self.fig1 is None:
            return ""
        jobs = self.config["scales"][self.scale].get("trace_jobs") or "all"
        return f"{jobs} jobs of " + ", ".join(self.fig1.traces())

    # ----------------------------------------------------------- run steps
    def make_workloads(self, ctx: StepContext) -> None:
        """One workload set (:func:`.workloads.generate_set`)."""
        from .workloads import generate_set
        entries = generate_set(ctx.params["spec"], ctx.output.dir, log=ctx.log)
        ctx.log.info("wrote %d workloads to %s", len(entries), ctx.output.dir)

    def simulate(self, ctx: StepContext) -> None:
        """One simulation chunk (:func:`.runs.simulate_chunk`)."""
        from .runs import simulate_chunk
        simulate_chunk(ctx.params["spec"], ctx.input.workloads, jobs_out=ctx.output.jobs,
                       summary_out=ctx.output.summary, simulation=ctx.params["simulation"],
                       picks_path=ctx.input.get("picks"),
                       debug=bool((ctx.config.get("simulation") or {}).get("debug", False)),
                       log=ctx.log)

    def aggregate(self, ctx: StepContext) -> None:
        """One sweep's cube (:func:`.cubes.aggregate_sweep`)."""
        from .cubes import aggregate_sweep
        aggregate_sweep(ctx.input.summaries, ctx.wildcards["purpose"], scale=ctx.scale,
                        subtree=ctx.params["subtree"], cs_values=ctx.params["cs_values"],
                        out=ctx.output.cube, repo=self.repo, log=ctx.log)

    def pick(self, ctx: StepContext) -> None:
        """The C_s picks (:func:`.cubes.write_picks`)."""
        from .cubes import write_picks
        p = ctx.params
        write_picks(ctx.input.cube, swept=p["swept"], pick=p["pick"], p_s=p["p_s"], load=p["load"],
                    scale=p["scale"], picks_out=ctx.output.picks, csv_out=ctx.output.csv,
                    log=ctx.log)

    def draw_fig1(self, ctx: StepContext) -> None:
        """Fig. 1 from the ``kumar_fig1`` cube (:func:`.figures.draw_fig1`)."""
        from ...cube import read_cube
        from .figures import draw_fig1
        out = ctx.output
        draw_fig1(read_cube(ctx.input.cube), scale=ctx.params["scale"],
                  png=out[_output_name("fig1_easy_vs_los_sdsc.png")],
                  svg=out[_output_name("fig1_easy_vs_los_sdsc.svg")],
                  csv=out[_output_name("fig1_easy_vs_los_sdsc.csv")], log=ctx.log)

    def simulate_segment(self, ctx: StepContext) -> None:
        """EASY and every LOS variant on one (segment, load) (:func:`.fig1_sensitivity.simulate_segment`)."""
        from ...io import write_json
        from .fig1_sensitivity import simulate_segment
        p, w = ctx.params, ctx.wildcards
        records = simulate_segment(ctx.input.swf, machine_procs=p["machine_procs"],
                                   first_job=p["first_job"], n_jobs=p["n_jobs"], load=p["load"],
                                   variants=p["variants"], simulation=p["simulation"],
                                   log=ctx.log)
        write_json({"trace": p["trace"], "segment": w["segment"], "load": p["load"],
                    "records": records}, ctx.output.summary)

    def write_sensitivity(self, ctx: StepContext) -> None:
        """The sensitivity cube, table and figure (:mod:`.fig1_sensitivity`)."""
        from ...cube import provenance, write_cube
        from .fig1_sensitivity import build_sensitivity_cube, improvements, read_summaries, write_tables
        from .plots import plot_fig1_sensitivity
        p, out = ctx.params, ctx.output
        attrs = provenance(p["subtree"], repo_dir=self.repo)
        attrs.update({"study": "kumar", "scale": ctx.scale, "config_subtree": json.dumps(
            p["subtree"], sort_keys=True), "title": f"Paper K, Fig. 1 sensitivity, {ctx.scale} "
            "scale", "load_method": "inter-arrival times multiplied by one factor per "
            "(segment, load)"})
        cube = build_sensitivity_cube(read_summaries(ctx.input.summaries), attrs)
        write_cube(cube, out.cube)
        bands = write_tables(cube, tolerance=p["tolerance"],
                             csv=out[_output_name("fig1_sensitivity.csv")],
                             md=out[_output_name("fig1_sensitivity.md")], scale=ctx.scale)
        imp = improvements(cube)
        for ext in ("png", "svg"):
            plot_fig1_sensitivity(imp, out[_output_name(f"fig1_sensitivity.{ext}")],
                                  tolerance=p["tolerance"], scale_label=ctx.scale)
        ctx.log.info("bands: %s", bands.to_dict("records"))

    def draw_examples(self, ctx: StepContext) -> None:
        """Fig. 2, simulated, and Table III, from the policy registry."""
        from .figures import draw_fig2
        from .published import load_published
        from .runs import fig2_example
        from .tables import write_table3
        out = ctx.output
        draw_fig2(fig2_example(), png=out.fig2_png, svg=out.fig2_svg, csv=out.fig2_csv,
                  log=ctx.log)
        table = write_table3(load_published(ctx.input.published), csv_out=out.table3_csv,
                             md_out=out.table3_md)
        ctx.log.info("Table III: %d algorithms", len(table))

    def draw_figures(self, ctx: StepContext) -> None:
        """Figs. 5–11 and the other C_s sweeps (:func:`.figures.draw_sweeps`)."""
        from ...cube import read_cube
        from .figures import draw_sweeps
        from .published import load_published
        picks = json.loads(Path(ctx.input.picks).read_text(encoding="utf-8"))
        draw_sweeps(self.plan, read_cube(ctx.input.cs_cube), read_cube(ctx.input.load_cube),
                    picks, OUT, log=ctx.log, published=load_published(ctx.input.published))

    def write_tables(self, ctx: StepContext) -> None:
        """Tables IV–VII, n̄ (:func:`.tables.write_tables`) and the claims (:func:`.report.write_claims`)."""
        from ...claims import verdict_counts
        from ...cube import read_cube
        from .published import load_published
        from .report import write_claims
        from .tables import write_forced_starts, write_tables
        scale = ctx.params["scale"]
        published = load_published(ctx.input.published)
        load_cube = read_cube(ctx.input.load_cube)
        indices = {w: json.loads((Path(d) / "index.json").read_text(encoding="utf-8"))
                   for w, d in zip(ctx.params["workloads"], ctx.input.workloads)}
        tables, nbar = write_tables(load_cube, published, indices, scale=scale,
                                    seeds=self.plan.seeds, out=ctx.output)
        cs_cube = read_cube(ctx.input.cs_cube)
        write_forced_starts(cs_cube, ctx.output.forced_csv, ctx.output.forced_md, scale=scale,
                            swept=self.plan.cs_sweep["swept"])
        fig1 = ctx.input.get("fig1_cube")
        sens = ctx.input.get("sensitivity_cube")
        long_table = None
        if ctx.input.get("long_cube"):
            from .long_runs import write_long_tables
            long_table = write_long_tables(
                load_cube, read_cube(ctx.input.long_cube),
                policies=self.plan.long_runs["workloads"], md=ctx.output.long_runs_md,
                csv=ctx.output.long_runs_csv, n_jobs=self.plan.long_runs["n_jobs"], scale=scale,
                margin=self.plan.long_runs["margin"])
        if ctx.input.get("readings_cube"):
            from .readings import write_readings
            matrix = write_readings(load_cube, read_cube(ctx.input.readings_cube), published,
                                    self.plan, md=ctx.output.readings_md,
                                    csv=ctx.output.readings_csv, scale=scale)
            ctx.log.info("readings: %d claims x %d readings", len(matrix), len(self.plan.readings))
        verdicts = write_claims(ctx.output.claims_csv, scale=scale, picks_path=ctx.input.picks,
                                published=published, load_cube=load_cube,
                                cs_cube=cs_cube,
                                fig1_cube=None if fig1 is None else read_cube(fig1),
                                sensitivity_cube=None if sens is None else read_cube(sens),
                                sensitivity_tolerance=float(
                                    (self.sensitivity or {}).get("tolerance", 0.0)),
                                long_table=long_table,
                                long_n_jobs=self.plan.long_runs["n_jobs"],
                                long_margin=self.plan.long_runs["margin"],
                                n_bar=nbar, tables=tables, plan=self.plan)
        ctx.log.info("verdicts: %s", verdict_counts(verdicts["verdict"]))

    def write_readme(self, ctx: StepContext) -> None:
        """``paper_figures/kumar/README.md`` (:func:`.report.write_readme`)."""
        from ...cube import read_cube
        from .published import load_published
        from .report import write_readme
        from .runs import fig2_example
        from .tables import algorithms_frame, dedicated_frame
        inp = ctx.input
        published = load_published(inp.published)
        claims_df = write_readme(
            ctx.output.readme, plan=self.plan,
            artifacts=artifact_list(self.plan, fig1=self.fig1 is not None,
                                    sensitivity=self.sensitivity is not None),
            published=published,
            picks_path=inp.picks, tables_csv=inp.tables_csv, claims_csv=inp.claims_csv,
            n_bar_csv=inp.n_bar_csv, forced_csv=inp.forced_csv,
            algorithms=algorithms_frame(published),
            fig2=fig2_example(), dedicated=dedicated_frame(read_cube(inp.load_cube)),
            fig1_scale=ctx.params["fig1_scale"], cubes=ctx.params["cubes"])
        ctx.log.info("wrote %s (%d claims)", ctx.output.readme, len(claims_df))
