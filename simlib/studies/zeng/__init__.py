"""Paper Z (Zeng & Sodan): time/space sharing on multi-core nodes under Scojo-PECT.

X. Zeng and A. Sodan, "Job Scheduling with Lookahead Group Matchmaking for
Time/Space Sharing on Multi-core Parallel Machines" (G-LOMARC-TS on top of
Scojo-PECT). The study ``zeng`` (config ``studies.zeng``,
``config/grids/zeng.yaml``; printed tables, parameters and claims in
``config/published/zeng.yaml``) rebuilds the paper's machine, workloads,
baseline scheduler *SSP*, G-LOMARC-TS with its variants, the sweeps and the
worked examples into ``paper_figures/zeng/``.

=================== ==========================================================
step                what
=================== ==========================================================
zeng_workload       one adjusted Lublin workload per (W1/W2, seed) (:mod:`.workloads`,
                    slowdowns and formulas 7-8 in :mod:`.slowdowns`)
zeng_simulate       one (workload, seed, machine) under Scojo-PECT with SSP
                    (:mod:`.runs`, the policy :mod:`simlib.policies.scojo_pect`,
                    the numbers :mod:`.summaries`)
zeng_aggregate      the cube, dims (workload, machine, seed) (:mod:`.cubes`)
zeng_tables         Tables 1-6, SSP's results, §4.8's validation (:mod:`.tables`)
zeng_figures        SSP's RR per class, a day of slices, Table 4 (:mod:`.figures`)
zeng_simulate_glts  every G-LOMARC-TS variant on one (workload, seed) (:mod:`.runs`,
                    the policy :mod:`simlib.policies.glomarc_ts`)
zeng_aggregate_glts the cube, dims (workload, scheduler, seed) (:mod:`.glts`)
zeng_figures_glts   Figs. 6-7 and §5.2-§5.3's headline numbers (:mod:`.glts`)
zeng_sweep          one (parameter, value, seed) of Figs. 8-9's sweeps (:mod:`.sweeps`)
zeng_aggregate_sweep a sweep's cube, dims (variant, parameter, seed) (:mod:`.sweeps`)
zeng_figures_sweeps Figs. 8-9 and a table per sweep (:mod:`.sweeps`)
zeng_examples       Figs. 1 and 5 from small simulations (:mod:`.examples`)
zeng_claims         one verdict per claim (:mod:`.report`)
zeng_readme         ``paper_figures/zeng/README.md`` (:mod:`.report`)
=================== ==========================================================

Machines (cube coordinate ``machine``): ``multicore``, the paper's 128 nodes
of two dual-core CPUs with the adjusted jobs; ``single_core``, §4.8's
reference, the unadjusted Lublin jobs on 128 single-core nodes.
"""
from __future__ import annotations

from ...errors import ConfigError
from ..base import Artifact, Step, Study, deferred

__all__ = ["Zeng", "OUT", "DATA"]

#: The study's figures and tables.
OUT = "paper_figures/zeng"
#: Workloads.
DATA = "data/zeng"

_WORKLOADS = f"{__name__}.workloads"
_RUNS = f"{__name__}.runs"
_CUBES = f"{__name__}.cubes"
_TABLES = f"{__name__}.tables"
_FIGURES = f"{__name__}.figures"
_REPORT = f"{__name__}.report"
_GLTS = f"{__name__}.glts"
_SWEEPS = f"{__name__}.sweeps"
_EXAMPLES = f"{__name__}.examples"

#: Sweepable G-LOMARC-TS parameters -> (Table 6 name, type, label on the
#: axis). Here rather than in :mod:`.sweeps` (which re-exports it) so that
#: checking the config does not import the sweep's plotting modules.
SWEEP_PARAMETERS = {
    "block_size": ("BLOCK_SIZE", int, "block size (jobs per block, BLOCK_SIZE)"),
    "f_slack": ("F_slack", float, "slack factor F_slack"),
    "matched_larger": ("MATCHED_LARGER", float, "MATCHED_LARGER"),
    "min_utilgain": ("MIN_UTILGAIN", float, "MIN_UTILGAIN"),
    "running_prim_num": ("RUNNING_PRIM_NUM", int, "RUNNING_PRIM_NUM"),
}


def depends(variant: str, parameter: str) -> bool:
    """Whether a variant's runs depend on a parameter (NH forms no blocks).

    Examples
    --------
    >>> depends("NH", "block_size"), depends("FBO", "block_size"), depends("NH", "f_slack")
    (False, True, True)
    """
    from simlib.policies.glomarc_ts import VARIANTS
    if parameter == "block_size":
        return bool(VARIANTS[variant].get("blocks", True))
    return True


def value_tag(value) -> str:
    """A sweep value as a path component (``{value}`` wildcard).

    Examples
    --------
    >>> value_tag(12), value_tag(1.25), value_tag(2.0)
    ('12', '1.25', '2')
    """
    return format(value, "g")


class Zeng(Study):
    """Paper Z: Scojo-PECT with space sharing and G-LOMARC-TS on multi-core nodes.

    Examples
    --------
    >>> from simlib.studies import study_class
    >>> study_class("zeng", {"registry": {"zeng": "simlib.studies.zeng:Zeng"}}) is Zeng, Zeng.section
    (True, 'zeng')
    """

    key = "zeng"
    section = "zeng"
    title = "Zeng & Sodan (zeng): Scojo-PECT time slicing on multi-core nodes"
    schema = "zeng.schema.json"
    published_loader = ".published"

    # ------------------------------------------------------------ config
    def workloads(self) -> list[str]:
        return list(self.spec["workloads"])

    def seeds(self, scale: str | None = None) -> list[int]:
        return list(range(int(self.spec["seeds"][scale or self.scale])))

    def jobs(self, scale: str | None = None) -> int:
        return int(self.spec["jobs"][scale or self.scale])

    def machines(self) -> list[str]:
        return ["multicore", "single_core"] if self.spec["validation"] else ["multicore"]

    def nodes(self) -> int:
        return int(self.published["table5"]["machine_nodes"])

    def policy_params(self) -> dict:
        """Scojo-PECT's parameters: §5.1 and Table 6 (published), the rest from the grid."""
        pub = self.published
        sp, t6 = pub["scojo_pect"], pub["table6"]
        return {"interval": float(sp["interval"]), "medium_share": float(sp["medium_share"]),
                "long_share": float(sp["long_share"]), "overhead": float(sp["overhead"]),
                "short_max": float(sp["short_max"]), "medium_max": float(sp["medium_max"]),
                "r_est_factor": float(sp["r_est_factor"]), "max_sl": float(t6["MAX_SL"]),
                "self_sl2": float(t6["SELF_SL2"]),
                "short_slice": float(self.spec["scojo_pect"]["short_slice"]),
                "non_type_backfilling": bool(self.spec["scojo_pect"]["non_type_backfilling"])}

    def workload_params(self, workload: str, scale: str) -> dict:
        pub = self.published
        wl = self.spec["workload"]
        return {"alpha": float(pub["table5"]["workloads"][workload]["alpha"]),
                "jobs": self.jobs(scale), "machine_nodes": self.nodes(),
                "max_sl": float(pub["table6"]["MAX_SL"]), "self_sl2": float(pub["table6"]["SELF_SL2"]),
                "table4": {k: pub["table4"][k] for k in ("bins", "sl_scr", "sl_sno", "sl_cos")},
                "rounding": wl["rounding"], "estimates": wl["estimates"],
                "arrival_clock": wl.get("arrival_clock", "exact"),
                "short_max": float(pub["scojo_pect"]["short_max"]),
                "medium_max": float(pub["scojo_pect"]["medium_max"])}

    def glts_variants(self) -> list[str]:
        return list(self.spec["glts"]["variants"])

    def glts_params(self) -> dict:
        """G-LOMARC-TS's parameters: Scojo-PECT's, Table 6's and the grid's switches."""
        t6 = self.published["table6"]
        g = self.spec["glts"]
        return {**self.policy_params(), "block_size": int(t6["BLOCK_SIZE"]),
                "matched_larger": float(t6["MATCHED_LARGER"]),
                "matched_longer": float(t6["MATCHED_LONGER"]),
                "min_utilgain": float(t6["MIN_UTILGAIN"]), "f_slack": float(t6["F_slack"]),
                "running_prim_num": int(t6["RUNNING_PRIM_NUM"]),
                "case2": bool(g.get("case2", True)), "case3": bool(g.get("case3", True)),
                "replan": bool(g.get("replan", True))}

    def sweeps(self) -> dict:
        """The parameter sweeps (``glts.sweeps``): parameter -> its spec."""
        return dict(self.spec["glts"].get("sweeps", {})) if self.glts_variants() else {}

    def sweep_values(self, parameter: str, scale: str | None = None) -> list:
        """The values run for a sweep at a scale, besides Table 6's (typed)."""
        cast = SWEEP_PARAMETERS[parameter][1]
        return [cast(v) for v in self.sweeps()[parameter]["values"][scale or self.scale]]

    def sweep_value(self, parameter: str, tag: str, scale: str):
        """The value of a ``{value}`` wildcard (its :func:`value_tag`)."""
        for v in self.sweep_values(parameter, scale):
            if value_tag(v) == tag:
                return v
        raise ValueError(f"{parameter} = {tag} is not a value of the {scale} sweep")

    def published_value(self, parameter: str):
        name, cast, _ = SWEEP_PARAMETERS[parameter]
        return cast(self.published["table6"][name])

    def gantt_day(self, scale: str | None = None) -> int:
        return int(self.spec["gantt"]["day"][scale or self.scale])

    def subtree(self, scale: str | None = None) -> dict:
        """Everything the cube depends on (its provenance)."""
        scale = scale or self.scale
        return {"study": self.key, "scale": scale,
                "workloads": {w: self.workload_params(w, scale) for w in self.workloads()},
                "seeds": self.seeds(scale), "machines": self.machines(),
                "policy": "scojo_pect", "policy_params": self.policy_params(),
                "rr_bound": self.spec["rr_bound"], "rr_bounds": self.spec["rr_bounds"],
                "n_high": self.published["table6"]["N_H"]}

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot say, and the policy's parameters; ConfigError names the key."""
        from ...policies import make_policy
        super().check()
        spec, where = self.spec, f"config studies.{self.key}"
        printed = self.published["table5"]["workloads"]
        for i, w in enumerate(self.workloads()):
            if w not in printed:
                raise ConfigError(f"{where}.workloads[{i}]: {w!r} is not a workload of Table 5 "
                                  f"({', '.join(printed)})")
        if spec["gantt"]["workload"] not in self.workloads():
            raise ConfigError(f"{where}.gantt.workload: {spec['gantt']['workload']!r} is not run "
                              f"(workloads: {', '.join(self.workloads())})")
        for scale in ("smoke", "default", "full"):
            if spec["gantt"]["seed"] >= int(spec["seeds"][scale]):
                raise ConfigError(f"{where}.gantt.seed: {spec['gantt']['seed']} is not run at "
                                  f"scale {scale} (seeds 0..{int(spec['seeds'][scale]) - 1})")
        if spec["rr_bound"] not in spec["rr_bounds"]:
            raise ConfigError(f"{where}.rr_bound: {spec['rr_bound']} must be one of rr_bounds")
        try:
            make_policy("scojo_pect", **self.policy_params())
        except ConfigError as exc:
            raise ConfigError(f"{where}.scojo_pect (with the published §5.1 values): {exc}") from None
        for i, variant in enumerate(self.glts_variants()):
            try:
                make_policy("glomarc_ts", **self.glts_params(), variant=variant)
            except ConfigError as exc:
                raise ConfigError(f"{where}.glts.variants[{i}]: {exc}") from None
        if self.glts_variants() and "GLTS" not in self.glts_variants():
            raise ConfigError(f"{where}.glts.variants: GLTS is needed (every comparison is "
                              "against it)")
        self._check_sweeps(where)
        from .workloads import generate
        try:  # the workload options, on a tiny workload
            generate(10.33, 5, 0, **{k: v for k, v in self.workload_params("W1" if "W1" in printed
                                                                           else next(iter(printed)),
                                                                           "smoke").items()
                                    if k not in ("alpha", "jobs")})
        except (ConfigError, ValueError) as exc:
            raise ConfigError(f"{where}.workload: {exc}") from None

    def _check_sweeps(self, where: str) -> None:
        from ...policies import make_policy
        for param, spec in self.sweeps().items():
            at = f"{where}.glts.sweeps.{param}"
            if spec["workload"] not in self.workloads():
                raise ConfigError(f"{at}.workload: {spec['workload']!r} is not run "
                                  f"(workloads: {', '.join(self.workloads())})")
            for i, v in enumerate(spec["variants"]):
                if v not in self.glts_variants():
                    raise ConfigError(f"{at}.variants[{i}]: {v!r} is not run by glts.variants "
                                      "(the sweep's point at Table 6's value comes from those runs)")
            cast, printed = SWEEP_PARAMETERS[param][1], self.published_value(param)
            for scale, values in spec["values"].items():
                for i, v in enumerate(values):
                    here = f"{at}.values.{scale}[{i}]"
                    if cast is int and v != int(v):
                        raise ConfigError(f"{here}: {param} takes whole numbers, not {v}")
                    if cast(v) == printed:
                        raise ConfigError(f"{here}: {v} is Table 6's value, taken from the "
                                          "main runs; drop it")
                    try:
                        make_policy("glomarc_ts", **{**self.glts_params(), param: cast(v)})
                    except ConfigError as exc:
                        raise ConfigError(f"{here}: {exc}") from None
                if len({cast(v) for v in values}) != len(values):
                    raise ConfigError(f"{at}.values.{scale}: a value is listed twice")

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        steps = [self.workload_step(), self.simulation_step(), self.aggregate_step(),
                 self.tables_step(), self.figures_step()]
        if self.glts_variants():
            steps += [self.glts_step(), self.glts_aggregate_step(), self.glts_figures_step()]
        if self.sweeps():
            steps += [self.sweep_step(), self.sweep_aggregate_step(), self.sweep_figures_step()]
        if self.glts_variants():
            steps.append(self.examples_step())
        return steps + [self.claims_step(), self.readme_step()]

    # ------------------------------------------------------- part 2: GLTS
    def glts_summary(self, scale, workload, seed) -> str:
        return f"results/runs/zeng/{scale}/{workload}/glts/seed{seed}.json"

    def glts_step(self) -> Step:
        """One job per (workload, seed): every G-LOMARC-TS variant on the multi-core machine."""
        return Step(
            "zeng_simulate_glts",
            message="Simulating every G-LOMARC-TS variant on {wildcards.workload}, seed "
                    "{wildcards.seed} (paper Z, {wildcards.scale})",
            input=lambda w: {"workload": self.workload_path(w.scale, w.workload, w.seed)},
            output={"summary": "results/runs/zeng/{scale}/{workload}/glts/seed{seed}.json"},
            params=lambda w: {"policy_params": self.glts_params(), "variants": self.glts_variants(),
                              **self._run_params()},
            wildcard_constraints={"workload": "|".join(self.workloads()), "seed": "[0-9]+"},
            resources={"runtime": 60, "mem_mb": 1500},
            batch=self.fold(workload=self.workloads(), seed=self.seeds()),
            policies=["glomarc_ts"], code=[_RUNS], run=deferred(_RUNS, "glts_step"))

    def glts_cube_path(self, scale: str | None = None) -> str:
        return f"results/zeng_glts.{scale or self.scale}.nc"

    def glts_aggregate_step(self) -> Step:
        root = self._run_dir()
        return Step(
            "zeng_aggregate_glts", stage="aggregate",
            message="Aggregating paper Z's G-LOMARC-TS and SSP runs ({wildcards.scale})",
            input=lambda w: {
                "ssp": [f"{root}/summary.json".format(scale=w.scale, workload=wl, machine="multicore",
                                                      seed=s)
                        for wl in self.workloads() for s in self.seeds(w.scale)],
                "glts": [self.glts_summary(w.scale, wl, s) for wl in self.workloads()
                         for s in self.seeds(w.scale)]},
            output={"cube": "results/zeng_glts.{scale}.nc"},
            params=lambda w: {"subtree": {**self.subtree(w.scale), "glts": self.glts_params(),
                                          "variants": self.glts_variants()}},
            report={"cube": "cube"},
            code=[_GLTS], run=deferred(_GLTS, "aggregate_step", repo=self.repo))

    def glts_outputs(self) -> dict[str, str]:
        return {"fig6": f"{OUT}/fig6_rr.png", "fig7": f"{OUT}/fig7_core_utilization.png",
                "headline_md": f"{OUT}/headline.md", "headline_csv": f"{OUT}/headline.csv"}

    def glts_figures_step(self) -> Step:
        scale = self.scale
        return Step(
            "zeng_figures_glts", stage="figures",
            message=f"Drawing paper Z's Figs. 6-7 and the headline numbers ({scale} scale)",
            input={"cube": self.glts_cube_path(), "published": self.published_path},
            output=self.glts_outputs(), params=self._common(),
            report={k: "zeng" for k in self.glts_outputs()},
            templates=["headline.md.j2", "labels.yaml"],
            code=[_GLTS], run=deferred(_GLTS, "figures_step"))

    # --------------------------------------------- part 2: Figs. 8-9's sweeps
    def sweep_summary(self, scale, parameter, value, seed) -> str:
        return f"results/runs/zeng/{scale}/sweeps/{parameter}/{value_tag(value)}/seed{seed}.json"

    def sweep_step(self) -> Step:
        """One job per (parameter, value, seed): the sweep's variants that depend on it."""

        def params(w):
            spec = self.sweeps()[w.parameter]
            return {"parameter": w.parameter, "value": self.sweep_value(w.parameter, w.value, w.scale),
                    "workload": spec["workload"], "policy_params": self.glts_params(),
                    "variants": [v for v in spec["variants"] if depends(v, w.parameter)],
                    **self._run_params()}
        return Step(
            "zeng_sweep",
            message="Simulating G-LOMARC-TS with {wildcards.parameter} = {wildcards.value}, seed "
                    "{wildcards.seed} (paper Z, {wildcards.scale})",
            input=lambda w: {"workload": self.workload_path(
                w.scale, self.sweeps()[w.parameter]["workload"], w.seed)},
            output={"summary": "results/runs/zeng/{scale}/sweeps/{parameter}/{value}/seed{seed}.json"},
            params=params,
            wildcard_constraints={"parameter": "|".join(self.sweeps()), "value": "[0-9.e+-]+",
                                  "seed": "[0-9]+"},
            resources={"runtime": 60, "mem_mb": 1500},
            # Where runs are short: one job per swept parameter.
            batch=self.fold_groups({p: [{"parameter": p, "value": value_tag(v), "seed": s}
                                        for v in self.sweep_values(p) for s in self.seeds()]
                                    for p in self.sweeps()}),
            policies=["glomarc_ts"], code=[_RUNS], run=deferred(_RUNS, "sweep_step"))

    def sweep_cube_path(self, parameter: str, scale: str | None = None) -> str:
        return f"results/zeng_{parameter}.{scale or self.scale}.nc"

    def sweep_aggregate_step(self) -> Step:
        def inputs(w):
            spec = self.sweeps()[w.parameter]
            seeds = self.seeds(w.scale)
            return {"sweep": [self.sweep_summary(w.scale, w.parameter, v, s)
                              for v in self.sweep_values(w.parameter, w.scale) for s in seeds],
                    "main": [self.glts_summary(w.scale, spec["workload"], s) for s in seeds]}

        def params(w):
            spec = self.sweeps()[w.parameter]
            return {"parameter": w.parameter, "workload": spec["workload"],
                    "variants": list(spec["variants"]),
                    "values": self.sweep_values(w.parameter, w.scale),
                    "published_value": self.published_value(w.parameter),
                    "subtree": {**self.subtree(w.scale), "glts": self.glts_params(),
                                "sweep": {"parameter": w.parameter, "workload": spec["workload"],
                                          "variants": list(spec["variants"]),
                                          "values": self.sweep_values(w.parameter, w.scale)}}}
        return Step(
            "zeng_aggregate_sweep", stage="aggregate",
            message="Aggregating paper Z's sweep of {wildcards.parameter} ({wildcards.scale})",
            input=inputs, output={"cube": "results/zeng_{parameter}.{scale}.nc"}, params=params,
            wildcard_constraints={"parameter": "|".join(self.sweeps())},
            report={"cube": "cube"},
            code=[_SWEEPS], run=deferred(_SWEEPS, "aggregate_step", repo=self.repo))

    def sweep_outputs(self) -> dict[str, str]:
        out = {}
        for param, spec in self.sweeps().items():
            fig = f"fig{spec['figure']}" if spec.get("figure") else "sweep"
            out[f"figure_{param}"] = f"{OUT}/{fig}_{param}.png"
            out[f"md_{param}"] = f"{OUT}/sweep_{param}.md"
            out[f"csv_{param}"] = f"{OUT}/sweep_{param}.csv"
        return out

    def sweep_figures_step(self) -> Step:
        scale = self.scale
        return Step(
            "zeng_figures_sweeps", stage="figures",
            message=f"Drawing paper Z's sweeps, Figs. 8-9 ({scale} scale)",
            input={"published": self.published_path,
                   **{f"cube_{p}": self.sweep_cube_path(p) for p in self.sweeps()}},
            output=self.sweep_outputs(),
            params={**self._common(), "sweeps": {p: {"workload": s["workload"],
                                                     "figure": s.get("figure")}
                                                 for p, s in self.sweeps().items()}},
            report={k: "zeng" for k in self.sweep_outputs()},
            templates=["sweep.md.j2"], code=[_SWEEPS], run=deferred(_SWEEPS, "figures_step"))

    # ------------------------------------- part 2: Figs. 1 and 5's examples
    def examples_outputs(self) -> dict[str, str]:
        return {"fig1": f"{OUT}/fig1_node_usage.png", "fig5": f"{OUT}/fig5_group.png",
                "md": f"{OUT}/examples.md", "json": f"{OUT}/examples.json"}

    def examples_step(self) -> Step:
        return Step(
            "zeng_examples", stage="figures",
            message="Simulating and drawing paper Z's worked examples, Figs. 1 and 5",
            input={"published": self.published_path}, output=self.examples_outputs(),
            params={"policy_params": self.glts_params()},
            report={k: "zeng" for k in self.examples_outputs()},
            policies=["glomarc_ts", "scojo_pect"], code=[_EXAMPLES], templates=["examples.md.j2"],
            run=deferred(_EXAMPLES, "examples_step"))

    def _run_params(self) -> dict:
        """What every G-LOMARC-TS run step needs besides the policy's parameters."""
        pub = self.published
        return {"nodes": self.nodes(), "rr_bound": float(self.spec["rr_bound"]),
                "rr_bounds": [float(b) for b in self.spec["rr_bounds"]],
                "n_high": int(pub["table6"]["N_H"]),
                "table4": {k: pub["table4"][k] for k in ("bins", "sl_scr", "sl_sno", "sl_cos")}}

    def workload_path(self, scale, workload, seed, ext="csv.gz") -> str:
        return f"{DATA}/{scale}/{workload}/seed{seed}.{ext}"

    def workload_step(self) -> Step:
        return Step(
            "zeng_workload", stage="workloads",
            message="Generating paper Z's workload {wildcards.workload}, seed {wildcards.seed} "
                    "({wildcards.scale})",
            output={"workload": f"{DATA}/{{scale}}/{{workload}}/seed{{seed}}.csv.gz",
                    "info": f"{DATA}/{{scale}}/{{workload}}/seed{{seed}}.json"},
            params=lambda w: self.workload_params(w.workload, w.scale),
            wildcard_constraints={"workload": "|".join(self.workloads()), "seed": "[0-9]+"},
            batch=self.fold(workload=self.workloads(), seed=self.seeds()),
            code=[_WORKLOADS], run=deferred(_WORKLOADS, "workload_step"))

    def _run_dir(self) -> str:
        return "results/runs/zeng/{scale}/{workload}/{machine}/seed{seed}"

    def simulation_step(self) -> Step:
        root = self._run_dir()
        return Step(
            "zeng_simulate",
            message="Simulating Scojo-PECT with space sharing on {wildcards.workload}, seed "
                    "{wildcards.seed}, {wildcards.machine} machine (paper Z, {wildcards.scale})",
            input=lambda w: {"workload": self.workload_path(w.scale, w.workload, w.seed)},
            output={"summary": f"{root}/summary.json", "segments": f"{root}/day_segments.csv.gz",
                    "slices": f"{root}/day_slices.csv"},
            params=lambda w: {"policy_params": self.policy_params(), "nodes": self.nodes(),
                              "rr_bound": float(self.spec["rr_bound"]),
                              "rr_bounds": [float(b) for b in self.spec["rr_bounds"]],
                              "n_high": int(self.published["table6"]["N_H"]),
                              "gantt_day": self.gantt_day(w.scale)},
            policies=["scojo_pect"],
            wildcard_constraints={"workload": "|".join(self.workloads()),
                                  "machine": "multicore|single_core", "seed": "[0-9]+"},
            resources={"runtime": 30, "mem_mb": 1500},
            batch=self.fold(workload=self.workloads(), seed=self.seeds()),
            code=[_RUNS], run=deferred(_RUNS, "simulate_step"))

    def summaries(self, scale: str) -> list[str]:
        root = self._run_dir()
        return [f"{root}/summary.json".format(scale=scale, workload=w, machine=m, seed=s)
                for w in self.workloads() for m in self.machines() for s in self.seeds(scale)]

    def cube_path(self, scale: str | None = None) -> str:
        return f"results/zeng.{scale or self.scale}.nc"

    def aggregate_step(self) -> Step:
        return Step(
            "zeng_aggregate", stage="aggregate",
            message="Aggregating paper Z's runs ({wildcards.scale})",
            input=lambda w: {"summaries": self.summaries(w.scale)},
            output={"cube": "results/zeng.{scale}.nc"},
            params=lambda w: {"subtree": self.subtree(w.scale)},
            report={"cube": "cube"},
            code=[_CUBES], run=deferred(_CUBES, "aggregate_step", repo=self.repo))

    def table_outputs(self) -> dict[str, str]:
        return {f"{name}_{ext}": f"{OUT}/{name}.{ext}"
                for name in ("published_tables", "table4", "table5", "ssp", "validation")
                for ext in ("md", "csv") if not (name == "published_tables" and ext == "csv")}

    def _common(self) -> dict:
        scale = self.scale
        return {"scale": scale, "scale_description": self.config["scales"][scale].get("description", ""),
                "workloads": self.workloads(), "seeds": self.seeds(), "jobs": self.jobs(),
                "machines": self.machines(), "rr_bound": float(self.spec["rr_bound"]),
                "rr_bounds": [float(b) for b in self.spec["rr_bounds"]]}

    def tables_step(self) -> Step:
        scale = self.scale
        infos = [self.workload_path(scale, w, s, "json") for w in self.workloads() for s in self.seeds()]
        files = [self.workload_path(scale, w, s) for w in self.workloads() for s in self.seeds()]
        return Step(
            "zeng_tables", stage="figures",
            message=f"Writing paper Z's tables ({scale} scale)",
            input={"cube": self.cube_path(), "published": self.published_path,
                   "infos": infos, "workloads": files},
            output=self.table_outputs(),
            params={**self._common(), "claims": dict(self.spec["claims"])},
            report={k: "zeng" for k in self.table_outputs()},
            templates=["published_tables.md.j2", "table4.md.j2", "table5.md.j2", "ssp.md.j2",
                       "validation.md.j2", "labels.yaml"],
            code=[_TABLES], run=deferred(_TABLES, "tables_step"))

    def figure_outputs(self) -> dict[str, str]:
        return {"ssp_rr": f"{OUT}/ssp_rr.png", "gantt_day": f"{OUT}/gantt_day.png",
                "table4": f"{OUT}/table4.png"}

    def figures_step(self) -> Step:
        scale = self.scale
        g = self.spec["gantt"]
        root = self._run_dir().format(scale=scale, workload=g["workload"], machine="multicore",
                                      seed=g["seed"])
        return Step(
            "zeng_figures", stage="figures",
            message=f"Drawing paper Z's figures ({scale} scale)",
            input={"cube": self.cube_path(), "published": self.published_path,
                   "segments": f"{root}/day_segments.csv.gz", "slices": f"{root}/day_slices.csv",
                   "table4": f"{OUT}/table4.csv"},
            output=self.figure_outputs(),
            params={**self._common(), "gantt": {"workload": g["workload"], "seed": g["seed"],
                                                "day": self.gantt_day()},
                    "nodes": self.nodes()},
            report={k: "zeng" for k in self.figure_outputs()},
            code=[_FIGURES], run=deferred(_FIGURES, "figures_step"))

    def claims_step(self) -> Step:
        scale = self.scale
        return Step(
            "zeng_claims", stage="figures",
            message=f"Checking paper Z's claims on our runs ({scale} scale)",
            input={"cube": self.cube_path(), "published": self.published_path,
                   "table5": f"{OUT}/table5.csv",
                   **({"glts": self.glts_cube_path()} if self.glts_variants() else {}),
                   **{f"sweep_{p}": self.sweep_cube_path(p) for p in self.sweeps()},
                   **({"examples": self.examples_outputs()["json"]} if self.glts_variants() else {})},
            output={"csv": self.claims_file()},
            params={**self._common(), "thresholds": dict(self.spec["claims"])},
            report={"csv": "zeng"},
            templates=["claims.yaml"], code=[_REPORT, _GLTS, _SWEEPS, _EXAMPLES],
            run=deferred(_REPORT, "claims_step"))

    def readme_step(self) -> Step:
        scale = self.scale
        mine = self.artifacts()
        return Step(
            "zeng_readme", stage="report",
            message=f"Writing {OUT}/README.md ({scale} scale)",
            input={"claims": self.claims_file(), "published": self.published_path,
                   "cube": self.cube_path(),
                   "others": [a.path for a in mine if not a.path.endswith("README.md")]},
            output={"readme": f"{OUT}/README.md"},
            params={**self._common(), "spec": {k: v for k, v in self.spec.items()
                                               if k != "description"},
                    "policy_params": self.policy_params(),
                    "artifacts": [a.as_dict() for a in mine]},
            report={"readme": "zeng"},
            # The README copies the policy's docstring (the Fig. 3 flow).
            templates=["README.md.j2"], code=[_REPORT, "simlib.policies.glomarc_ts"],
            run=deferred(_REPORT, "readme_step"))

    # ---------------------------------------------------------- artifacts
    def artifacts(self) -> list[Artifact]:
        s, t, f = self.section, self.table_outputs(), self.figure_outputs()
        return [
            Artifact(s, f"{OUT}/README.md", "Paper Z: every artifact, a verdict per claim, the "
                     "scale, the seeds and every interpretation chosen"),
            Artifact(s, t["published_tables_md"], "Tables 1, 2, 3 and 6 as printed (data the "
                     "pipeline reads; reference values, never results)"),
            Artifact(s, t["table4_md"], "Table 4: slowdown shares sampled back from our draws "
                     "beside the printed shares"),
            Artifact(s, t["table4_csv"], "Same table, CSV"),
            Artifact(s, f["table4"], "Table 4 as bars: printed shares and our draws"),
            Artifact(s, t["table5_md"], "Table 5: our W1 and W2 (mean over seeds) beside the "
                     "printed characteristics, with our readings of 'Load'"),
            Artifact(s, t["table5_csv"], "Same table, CSV"),
            Artifact(s, t["ssp_md"], "SSP under W1 and W2: RR of all, medium and long jobs "
                     "(95 % CIs over seeds), makespan, drain, utilization, high-load phases"),
            Artifact(s, t["ssp_csv"], "Same table, CSV"),
            Artifact(s, f["ssp_rr"], "SSP's RR per job class under W1 and W2, the paper's W2 "
                     "values beside ours"),
            Artifact(s, t["validation_md"], "§4.8's validation: SSP on the adjusted workload "
                     "(128 x 4 cores) vs the unadjusted one on 128 single-core nodes"),
            Artifact(s, t["validation_csv"], "Same table, CSV"),
            Artifact(s, f["gantt_day"], "One day of Scojo-PECT: the slices per virtual "
                     "machine and every job's running periods on the nodes (preemptions)"),
            Artifact(s, self.claims_file(), "Every tested claim of paper Z (part 1): criterion, "
                     "our numbers and the verdict (as data)"),
            Artifact(s, self.cube_path(), "Cube (netCDF): dims (workload, machine, seed), every "
                     "metric of every run"),
        ] + ([
            Artifact(s, self.glts_outputs()["fig6"], "Fig. 6: RR of all, medium and long jobs "
                     "per scheduler and G-LOMARC-TS variant, W1 (mean and 95 % CI over seeds)"),
            Artifact(s, self.glts_outputs()["fig7"], "Fig. 7: core utilization in high-load "
                     "phases per scheduler and variant, W1"),
            Artifact(s, self.glts_outputs()["headline_md"], "§5.2-§5.3's headline numbers "
                     "(improvements, groups, candidates, delay factors) beside ours"),
            Artifact(s, self.glts_outputs()["headline_csv"], "Same table, CSV"),
            Artifact(s, self.glts_cube_path(), "Cube (netCDF): G-LOMARC-TS variants and SSP, dims "
                     "(workload, scheduler, seed)"),
        ] if self.glts_variants() else []) + self._sweep_artifacts() + self._example_artifacts()

    def _sweep_artifacts(self) -> list[Artifact]:
        s, o, out = self.section, self.sweep_outputs(), []
        for param, spec in self.sweeps().items():
            name, fig = SWEEP_PARAMETERS[param][0], spec.get("figure")
            what = (f"RR of {', '.join(spec['variants'])} against {name} under "
                    f"{spec['workload']} (mean and 95 % CI over seeds)")
            out += [Artifact(s, o[f"figure_{param}"], (f"Fig. {fig}: " if fig else "") + what),
                    Artifact(s, o[f"md_{param}"], f"The sweep of {name} as a table: RR per class "
                             "and the group counters per variant and value"),
                    Artifact(s, o[f"csv_{param}"], "Same table, CSV"),
                    Artifact(s, self.sweep_cube_path(param), f"Cube (netCDF): the sweep of {name}, "
                             f"dims (variant, {param}, seed)")]
        return out

    def _example_artifacts(self) -> list[Artifact]:
        if not self.glts_variants():
            return []
        s, o = self.section, self.examples_outputs()
        return [Artifact(s, o["fig1"], "Fig. 1: six jobs under space sharing (SSP) and "
                         "G-LOMARC-TS on 4 nodes, core by core; the node time each holds"),
                Artifact(s, o["fig5"], "Fig. 5: the three-job group (Job 3 primary, Jobs 1-2 "
                         "matched) from a simulation; utilization gain by formulas 5 and 6"),
                Artifact(s, o["md"], "The two examples' jobs, every running period and "
                         "their numbers"),
                Artifact(s, o["json"], "Same numbers, JSON (read by the claims step)")]
