"""The ``kumar`` study: paper K's Section V, and every figure and table of the paper.

Config ``studies.kumar`` (``config/grids/kumar.yaml``, schema ``kumar.schema.json``
beside this module). Steps, in pipeline order, each running a function of the
module named (a step's code is that module's import closure: editing this file
reruns no step):

=========================== ============================================================
``kumar_workloads``         one set of CWF workloads per (sweep, variant) (:mod:`.workloads`)
``kumar_simulate``          one chunk per (sweep, variant, policy): every load x seed (x C_s)
                            (:mod:`.runs`)
``kumar_aggregate``         one cube per sweep (:mod:`.cubes`)
``kumar_pick_cs``           the C_s of each P_S, from the C_s sweep (:mod:`.cubes`)
``kumar_fig1``              Fig. 1 from the ``kumar_fig1`` sweep, when it runs (:mod:`.figures`)
``kumar_fig1_segment``      EASY and every LOS variant on one (log segment, load), and
``kumar_fig1_sensitivity``  their cube, table and figure (:mod:`.fig1_sensitivity`), when
                            ``fig1_sensitivity`` is set and kumar_fig1 runs
``kumar_examples``          Fig. 2 (simulated) and Table III (from the policy registry)
``kumar_figures``           Figs. 5–11 and the C_s sweeps of the other P_S (:mod:`.figures`)
``kumar_tables``            Tables IV–VII, n̄, the claims' verdicts (:mod:`.report`)
``kumar_report``            ``paper_figures/kumar/README.md`` (:mod:`.readme`)
=========================== ============================================================
"""
from __future__ import annotations

import functools
import re

from ...errors import ConfigError
from ...policies import POLICIES
from ..base import Artifact, Step, Study, load_study, load_tag
from ..user_policies import merge_policies
from .plan import FIGURES, PAPER_NAMES, READING_SEP, TABLE_WORKLOADS, KumarPlan, artifact_list, names

__all__ = ["Kumar"]

#: Where the study's figures and tables go.
OUT = "paper_figures/kumar"
#: One workload set (a directory: every load x seed of the scale).
SET_DIR = "data/workloads/kumar/{scale}/{purpose}/{workload}"
#: One simulation chunk.
RUN_DIR = "results/runs/kumar/{scale}/{purpose}/{workload}/{policy}"
#: One (segment, load) of the Fig. 1 sensitivity sweep.
SEGMENT_DIR = "results/runs/kumar_fig1_sensitivity/{scale}/{segment}/load{load}"
#: Config key of the Fig. 1 sweep (:class:`.fig1.KumarFig1`), reached through
#: the study registry: importing its module here would make every step of
#: this study depend on the trace sweep's simulation code.
FIG1_KEY = "kumar_fig1"
#: The package of the step functions.
PKG = "simlib.studies.kumar"


class Kumar(Study):
    """Paper K (Kumar, Shae, Jamjoom): Delayed-LOS, Hybrid-LOS and runtime elasticity."""

    key = "kumar"
    section = "kumar"
    title = "Kumar et al. (kumar): Delayed-LOS, Hybrid-LOS"
    schema = "kumar.schema.json"
    published_loader = ".published"
    uses = {FIG1_KEY: "Fig. 1 (EASY vs LOS on the SDSC-SP2 log), its sensitivity sweep and "
                      "their claims are"}
    #: The config's extra_policies join every Section V load sweep (not the
    #: C_s sweep, the long runs or the readings, which study the paper's own).
    extra_policies_refused = ""

    def add_extra_policies(self, spec: dict, extra) -> dict:
        spec["policies"] = merge_policies(self.key, spec["policies"], extra)
        spec["load_sweeps"] = {w: [*pols, *extra] for w, pols in spec["load_sweeps"].items()}
        # Kept in the grid so that every step's plan (built from the grid) knows them.
        spec["extra_policies"] = list(extra)
        return spec

    @functools.cached_property
    def plan(self) -> KumarPlan:
        """The grid at this study's scale."""
        return KumarPlan(self.spec, self.scale)

    def plan_at(self, scale: str) -> KumarPlan:
        """The grid at ``scale`` (a rule's ``scale`` wildcard)."""
        return self.plan if scale == self.scale else KumarPlan(self.spec, scale)

    @functools.cached_property
    def fig1(self) -> Study | None:
        """The ``kumar_fig1`` sweep when it runs too (its cube feeds Fig. 1 and a claim)."""
        selected = self.is_selected(FIG1_KEY)
        return load_study(FIG1_KEY, self.config, self.scale, repo=self.repo) if selected else None

    @property
    def sensitivity(self) -> dict | None:
        """``fig1_sensitivity`` when it runs (it needs kumar_fig1's trace), else None."""
        spec = self.spec.get("fig1_sensitivity")
        return spec if spec and self.fig1 is not None else None

    def check(self) -> None:
        """Policies (base), the published numbers (schema and registry), then what the
        grid's schema cannot say (:func:`check_grid`)."""
        super().check()
        check_grid(self.plan, self.published)
        if self.spec.get("fig1_sensitivity"):
            from .fig1_sensitivity import check_spec
            check_spec(self.spec["fig1_sensitivity"], "config studies.kumar.fig1_sensitivity")

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    def cube_path(self, purpose: str, scale: str | None = None) -> str:
        """The cube of a sweep (``purpose``: ``cs``, ``load``, ``long``, ``readings``)."""
        return f"results/kumar_{purpose}.{scale or self.scale}.nc"

    def picks_path(self, scale: str | None = None) -> str:
        """The C_s picks read by the load sweeps (:func:`.cubes.picks_document`)."""
        return f"results/kumar_cs_pick.{scale or self.scale}.json"

    def sensitivity_cube(self) -> str:
        return f"results/kumar_fig1_sensitivity.{self.scale}.nc"

    def artifact_list(self) -> list[dict]:
        """:func:`.plan.artifact_list` of what runs at this scale."""
        return artifact_list(self.plan, fig1=self.fig1 is not None,
                             sensitivity=self.sensitivity is not None)

    def outputs(self, rule: str) -> dict:
        """The artifacts (:func:`.plan.artifact_list`) step ``kumar_<rule>`` writes, by output
        name: their file's (``fig7_batch_ps02.png`` -> ``fig7_batch_ps02_png``)."""
        return {a["file"].replace(".", "_"): f"{OUT}/{a['file']}" for a in self.artifact_list()
                if a["rule"] == rule}

    def artifacts(self) -> list[Artifact]:
        """Figures and tables (:func:`.plan.artifact_list`), the README, the cubes, in that order."""
        text = names()
        arts = [Artifact("kumar", f"{OUT}/{a['file']}", a["title"]) for a in self.artifact_list()]
        arts.append(Artifact("kumar", f"{OUT}/README.md", text["readme"]))
        arts += [Artifact("kumar", self.cube_path(p), text["cubes"][p]) for p in self.plan.purposes]
        if self.sensitivity is not None:
            arts.append(Artifact("kumar", self.sensitivity_cube(), text["sensitivity_cube"]))
            if self.scale != "full":  # at full scale the traces section indexes it
                trace = self.fig1.traces()[0]
                arts.append(Artifact("traces", f"logs/traces/{trace}.full.cleaning.txt",
                                     text["cleaning_log"].format(trace=trace)))
        return arts

    def subtree(self, purpose: str, scale: str | None = None) -> dict:
        """Everything a sweep's cube depends on (its provenance)."""
        return {**self.plan_at(scale or self.scale).subtree(purpose), "simulation": self.simulation()}

    def steps(self) -> list[Step]:
        return [*self._sweep_steps(), *(self._fig1_steps() if self.fig1 is not None else ()),
                *self._paper_steps()]

    def _artifact_step(self, name: str, rule: str, run: str, extra: dict | None = None,
                       templates=("names.yaml",), stage: str = "figures", **kw) -> Step:
        """A step writing the artifacts of ``rule`` (and ``extra`` outputs), all reported."""
        out = {**self.outputs(rule), **(extra or {})}
        return Step(name, stage=stage, output=out, templates=list(templates),
                    report=dict.fromkeys(out, "kumar"), run=f"{PKG}.{run}", **kw)

    def _sweep_steps(self) -> list[Step]:
        plan = self.plan
        sets = [*plan.workloads, *plan.purpose_workloads("readings")]
        sweeps = {"purpose": "|".join(plan.purposes), "workload": "|".join(map(re.escape, sets))}
        pick = plan.cs_sweep["pick"]
        return [
            # A workload takes ~0.03 s to generate: one job per set.
            Step("kumar_workloads", stage="workloads",
                 message=("Generating paper K's {wildcards.workload} workloads for the "
                          "{wildcards.purpose} sweep ({wildcards.scale})"),
                 output={"dir": SET_DIR}, directories=["dir"],
                 params=lambda w: {"spec": self.plan_at(w.scale).generation_spec(w.purpose,
                                                                                 w.workload)},
                 batch=self.fold(*({"purpose": p, "workload": w} for p in plan.purposes
                                   for w in plan.purpose_workloads(p))),
                 wildcard_constraints=sweeps, run=f"{PKG}.workloads:make_set"),
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
                 policies=lambda w: [w.policy],
                 wildcard_constraints={**sweeps, "policy": "|".join(plan.policies)},
                 resources={"runtime": 60, "mem_mb": 2000}, group=None,
                 batch=self._simulate_batch(), run=f"{PKG}.runs:simulate_step"),
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
                 wildcard_constraints={"purpose": sweeps["purpose"]}, report={"cube": "cube"},
                 templates=["cubes.yaml"], group=None, run=f"{PKG}.cubes:aggregate_step"),
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
                         "scale": self.scale},
                 report={"csv": "kumar"}, group=None, run=f"{PKG}.cubes:pick_step"),
        ]

    def _fig1_steps(self) -> list[Step]:
        scale, traces, spec = self.scale, self.fig1.traces(), self.sensitivity
        steps = [self._artifact_step(
            "kumar_fig1", "fig1", "figures:fig1_step",
            message=f"Drawing paper K's Fig. 1 (EASY vs LOS on {', '.join(traces)}, {scale} scale)",
            input={"cube": self.fig1.cube_path()}, params={"scale": scale})]
        if spec is None:
            return steps
        from .fig1_sensitivity import segments
        return steps + [
            # ~25 s per (segment, load) at default scale: EASY and six
            # LOS variants on the same jobs.
            Step("kumar_fig1_segment", stage="simulate",
                 message=(f"Simulating EASY and LOS variants on {traces[0]} jobs "
                          "{wildcards.segment} at load {wildcards.load} "
                          "({wildcards.scale}, Fig. 1 sensitivity)"),
                 # The whole cleaned log (scale full: first job 0, every job).
                 input={"swf": f"data/traces/{traces[0]}.full.swf.gz"},
                 output={"summary": f"{SEGMENT_DIR}/summary.json"},
                 params=self._segment_params, policies=["easy", "los"],
                 wildcard_constraints={"segment": r"\d+-(\d+|end)"},
                 resources={"runtime": 60, "mem_mb": 2000},
                 batch=self.fold(segment=segments(spec, scale), load=map(load_tag, spec["loads"][scale])),
                 run=f"{PKG}.fig1_sensitivity:segment_step"),
            self._artifact_step(
                "kumar_fig1_sensitivity", "fig1_sensitivity", "figures:sensitivity_step",
                {"cube": self.sensitivity_cube()}, ["fig1_sensitivity.md.j2", "claims.yaml"],
                message=f"Fig. 1 sensitivity of paper K: cube, band table and figure ({scale})",
                input={"summaries": self._segment_summaries()},
                params={"tolerance": spec["tolerance"],
                        "subtree": {"fig1_sensitivity": spec, "trace": traces[0],
                                    "simulation": self.simulation(), "scale": scale}}),
        ]

    def _paper_steps(self) -> list[Step]:
        scale, published = self.scale, str(self.published_path)
        state = {"study": self.spec, "scale": scale}
        cubes = {"cs_cube": self.cube_path("cs"), "load_cube": self.cube_path("load"),
                 "picks": self.picks_path(), "published": published}
        return [
            self._artifact_step(
                "kumar_examples", "examples", "figures:examples_step",
                templates=["names.yaml", "table3_algorithms.md.j2"],
                message="Drawing paper K's Fig. 2 from simulation and Table III from the policy registry",
                input={"published": published}, policies=self._paper_policies),
            self._artifact_step(
                "kumar_figures", "figures", "figures:sweeps_step", input=cubes, params=state,
                message=f"Drawing paper K's Figs. 5-11 ({scale} scale)"),
            self._artifact_step(
                "kumar_tables", "tables", "report:tables_step",
                templates=["names.yaml", "claims.yaml", "tables_iv_vii.md.j2", "n_bar.md.j2",
                           "cs_forced_starts.md.j2", "long_runs.md.j2", "readings.md.j2"],
                message=f"Tabulating paper K's Tables IV-VII, n-bar and the claims ({scale} scale)",
                input={**cubes, **self._tables_inputs()}, params=state),
            # The README of paper K: every artifact, published vs reproduced,
            # a verdict per claim (rules in simlib.studies.kumar.report).
            self._artifact_step(
                "kumar_report", "report", "readme:readme_step", {"readme": f"{OUT}/README.md"},
                ["README.md.j2", "names.yaml"], stage="report",
                message=f"Writing {OUT}/README.md ({scale} scale)",
                input=self._report_inputs(), policies=self._paper_policies,
                params={**state, "fig1_scale": self._fig1_scale(), "artifacts": self.artifact_list(),
                        "cubes": [self.cube_path(p) for p in self.plan.purposes]}),
        ]

    def _paper_policies(self, wildcards=None) -> list[str]:
        # Fig. 2 simulates LOS and Delayed-LOS; Table III and the README
        # describe every registered policy the paper names.
        return [p for p in PAPER_NAMES if p in POLICIES]

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

    def _segment_params(self, w) -> dict:
        from .fig1_sensitivity import segments, variants
        trace = self.fig1.traces()[0]
        first, n = segments(self.sensitivity, w.scale)[w.segment]
        return {"trace": trace,
                "machine_procs": self.config["traces"]["catalog"][trace]["machine_procs"],
                "first_job": first, "n_jobs": n, "load": float(w.load),
                "variants": variants(self.sensitivity), "simulation": self.simulation()}

    def _tables_inputs(self) -> dict:
        out = {"workloads": [SET_DIR.format(scale=self.scale, purpose="load", workload=w)
                             for w in self.plan.purpose_workloads("load")]}
        if self.fig1 is not None:
            out["fig1_cube"] = self.fig1.cube_path()
        if self.sensitivity is not None:
            # The segments' runs, not the cube of kumar_fig1_sensitivity: that step draws
            # the figure too, and the claims must not rerun with the plot module.
            out["sensitivity_summaries"] = self._segment_summaries()
        return {**out, **{f"{p}_cube": self.cube_path(p) for p in ("long", "readings")
                          if p in self.plan.purposes}}

    def _segment_summaries(self) -> list[str]:
        from .fig1_sensitivity import segments
        spec, scale = self.sensitivity, self.scale
        return [f"{SEGMENT_DIR}/summary.json".format(scale=scale, segment=seg, load=load_tag(x))
                for seg in segments(spec, scale) for x in spec["loads"][scale]]

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


# Checks of the grid the schema cannot express.
WHERE = "config studies.kumar"


def _known(key: str, name: str, pool, kind: str = "workload") -> None:
    """``name`` is a key of ``pool`` (the grid's workloads or policies); ConfigError naming ``key``."""
    if name not in pool:
        listed = ", ".join(pool) or "none"
        raise ConfigError(f"{WHERE}.{key}: unknown workload {name!r}; defined in {WHERE}.workloads: "
                          f"{listed}" if kind == "workload" else
                          f"{WHERE}.{key}: policy {name!r} is not in {WHERE}.policies ({listed})")


def check_grid(plan: KumarPlan, published=None) -> None:
    """What the schema cannot check: names referring to each other, the generator's
    fields together, the P_S of the picks, what the paper's figures and tables need.

    Raises ConfigError naming the offending key, e.g. ``config studies.kumar.load_sweeps.ps02[2]:
    policy 'delayed' is not in config studies.kumar.policies (...)``.
    """
    for w in plan.workloads:
        plan.params(w)
    cs = plan.cs_sweep
    for i, w in enumerate(cs["workloads"]):
        _known(f"cs_sweep.workloads[{i}]", w, plan.workloads)
    for i, p in enumerate(cs["policies"]):
        _known(f"cs_sweep.policies[{i}]", p, plan.policies, "policy")
    _known("cs_sweep.swept", cs["swept"], plan.policies, "policy")
    if "cs" not in POLICIES[cs["swept"]].defaults:
        raise ConfigError(f"{WHERE}.cs_sweep.swept: {cs['swept']!r} has no C_s parameter 'cs'")
    _check_load_sweeps(plan)
    for fig, spec in FIGURES.items():
        on_cs = spec["kind"] == "cs"
        for w in spec["workloads"]:
            if w not in (cs["workloads"] if on_cs else plan.load_sweeps):
                raise ConfigError(f"{WHERE}.{'cs_sweep.workloads' if on_cs else 'load_sweeps'}: "
                                  f"paper K's {fig} needs workload {w!r}")
    for table, w in TABLE_WORKLOADS.items() if published is not None else ():
        t = published["tables"][table]
        for p in [t["new"], *t["values"]]:
            if p not in plan.load_sweeps.get(w, []):
                raise ConfigError(f"{WHERE}.load_sweeps.{w}: Table {table} compares {p}, "
                                  "which this workload does not run")
    for w, pols in plan.long_runs["workloads"].items():
        _known(f"long_runs.workloads.{w}", w, plan.workloads)
        for i, p in enumerate(pols):
            if p not in plan.load_sweeps.get(w, []):
                raise ConfigError(f"{WHERE}.long_runs.workloads.{w}[{i}]: {p} does not run in "
                                  f"{WHERE}.load_sweeps.{w}: the long runs are compared with "
                                  "the 500-job ones")
    _check_readings(plan)


def _check_load_sweeps(plan: KumarPlan) -> None:
    """Known workloads and policies; one C_s-sweep workload per P_S, and one for each P_S picked."""
    by_ps = {}
    for w in plan.cs_sweep["workloads"]:
        if plan.p_s(w) in by_ps:
            raise ConfigError(f"{WHERE}.cs_sweep.workloads: {by_ps[plan.p_s(w)]!r} and {w!r} have "
                              f"the same P_S = {plan.p_s(w)}; the pick is per P_S, keep one")
        by_ps[plan.p_s(w)] = w
    for w, pols in plan.load_sweeps.items():
        _known(f"load_sweeps.{w}", w, plan.workloads)
        ps = plan.p_s(w)
        for i, p in enumerate(pols):
            _known(f"load_sweeps.{w}[{i}]", p, plan.policies, "policy")
            if plan.cs_dependent(p) and ps not in by_ps:
                raise ConfigError(
                    f"{WHERE}.load_sweeps.{w}[{i}]: {p} needs a C_s picked for P_S = {ps}, but "
                    f"no workload of {WHERE}.cs_sweep.workloads has that P_S (or set {p}'s cs)")


def _check_readings(plan: KumarPlan) -> None:
    """Each reading re-runs load sweeps, with generator fields and parameters some policy takes."""
    for name, spec in plan.readings.items():
        key, used = f"{WHERE}.readings.{name}", set()
        for i, w in enumerate(spec["workloads"]):
            if w not in plan.load_sweeps:
                raise ConfigError(f"{key}.workloads[{i}]: {w!r} is not a workload of "
                                  f"{WHERE}.load_sweeps ({', '.join(plan.load_sweeps) or 'none'}): "
                                  "a reading re-runs a load sweep")
            plan.params(f"{name}{READING_SEP}{w}")
            used |= set(plan.load_sweeps[w])
        _check_paired_readings(plan, name, spec)
        for param, value in spec["policy_params"].items():
            takers = sorted(p for p in used if param in POLICIES[p].defaults)
            if not takers:
                raise ConfigError(f"{key}.policy_params.{param}: no policy of the reading's "
                                  f"workloads ({', '.join(sorted(used))}) has this parameter")
            for p in takers:  # the value is checked as the policy itself checks it
                try:
                    POLICIES[p](**{**plan.policies.get(p, {}), param: value})
                except ConfigError as err:
                    raise ConfigError(f"{key}.policy_params.{param}: {err}") from None


def _check_paired_readings(plan: KumarPlan, name: str, spec) -> None:
    """A reading that changes the jobs (its ``generator``) or the policies of one workload of
    a seed-paired comparison (:data:`.report.ECC_SAME_P_S`: elastic_batch with ps05) re-runs
    both, so that the comparison under the reading pairs the same jobs."""
    from .report import ECC_SAME_P_S
    ran = set(spec["workloads"])
    for with_w, without_w, *_ in ECC_SAME_P_S:
        pair = {with_w, without_w}
        if not pair <= set(plan.load_sweeps) or not (ran & pair) or pair <= ran:
            continue
        missing = (pair - ran).pop()
        changes = bool(spec["generator"]) or any(
            param in POLICIES[p].defaults for p in plan.load_sweeps[missing]
            for param in spec["policy_params"])
        if changes:
            raise ConfigError(
                f"{WHERE}.readings.{name}.workloads: add {missing!r}: the like-for-like ECC claim "
                f"compares {with_w} with {without_w} seed by seed, which pairs the same jobs only "
                "when both are drawn under the same reading")
