"""Paper Z (Zeng & Sodan): time/space sharing on multi-core nodes under Scojo-PECT.

X. Zeng and A. Sodan, "Job Scheduling with Lookahead Group Matchmaking for
Time/Space Sharing on Multi-core Parallel Machines" (G-LOMARC-TS on top of
Scojo-PECT). The study ``zeng`` (config ``studies.zeng``,
``config/grids/zeng.yaml``; printed tables, parameters and claims in
``config/published/zeng.yaml``) rebuilds, so far, the paper's machine,
workloads and baseline scheduler *SSP* into ``paper_figures/zeng/``.

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
zeng_claims         one verdict per claim (:mod:`.report`)
zeng_readme         ``paper_figures/zeng/README.md`` (:mod:`.report`)
=================== ==========================================================

Machines (cube coordinate ``machine``): ``multicore``, the paper's 128 nodes
of two dual-core CPUs with the adjusted jobs; ``single_core``, §4.8's
reference, the unadjusted Lublin jobs on 128 single-core nodes.
"""
from __future__ import annotations

import functools

from ...errors import ConfigError
from ..base import Artifact, Step, Study, deferred, register_study

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


@register_study
class Zeng(Study):
    """Paper Z: Scojo-PECT with space sharing on multi-core nodes (part 1).

    Examples
    --------
    >>> from simlib.studies import STUDY_CLASSES
    >>> STUDY_CLASSES["zeng"] is Zeng, Zeng.section
    (True, 'zeng')
    """

    key = "zeng"
    section = "zeng"
    title = "Zeng & Sodan (zeng): Scojo-PECT time slicing on multi-core nodes"
    schema = "zeng.schema.json"

    # ------------------------------------------------------------ config
    @functools.cached_property
    def published(self) -> dict:
        """``config/published/zeng.yaml``, validated."""
        from .published import load_published
        return load_published(self.published_path)

    @property
    def published_path(self) -> str:
        return str(self.repo_path(self.spec["published"]))

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
        if not self.repo_path(spec["published"]).is_file():
            raise ConfigError(f"{where}.published: no such file {self.published_path}")
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
        from .workloads import generate
        try:  # the workload options, on a tiny workload
            generate(10.33, 5, 0, **{k: v for k, v in self.workload_params("W1" if "W1" in printed
                                                                           else next(iter(printed)),
                                                                           "smoke").items()
                                    if k not in ("alpha", "jobs")})
        except (ConfigError, ValueError) as exc:
            raise ConfigError(f"{where}.workload: {exc}") from None

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        steps = [self.workload_step(), self.simulation_step(), self.aggregate_step(),
                 self.tables_step(), self.figures_step()]
        if self.glts_variants():
            steps += [self.glts_step(), self.glts_aggregate_step(), self.glts_figures_step()]
        return steps + [self.claims_step(), self.readme_step()]

    # ------------------------------------------------------- part 2: GLTS
    def glts_summary(self, scale, workload, seed) -> str:
        return f"results/runs/zeng/{scale}/{workload}/glts/seed{seed}.json"

    def glts_step(self) -> Step:
        """One job per (workload, seed): every G-LOMARC-TS variant on the multi-core machine."""
        pub = self.published
        return Step(
            "zeng_simulate_glts",
            message="Simulating every G-LOMARC-TS variant on {wildcards.workload}, seed "
                    "{wildcards.seed} (paper Z, {wildcards.scale})",
            input=lambda w: {"workload": self.workload_path(w.scale, w.workload, w.seed)},
            output={"summary": "results/runs/zeng/{scale}/{workload}/glts/seed{seed}.json"},
            params=lambda w: {"policy_params": self.glts_params(), "variants": self.glts_variants(),
                              "nodes": self.nodes(), "rr_bound": float(self.spec["rr_bound"]),
                              "rr_bounds": [float(b) for b in self.spec["rr_bounds"]],
                              "n_high": int(pub["table6"]["N_H"]),
                              "table4": {k: pub["table4"][k] for k in ("bins", "sl_scr", "sl_sno",
                                                                       "sl_cos")}},
            wildcard_constraints={"workload": "|".join(self.workloads()), "seed": "[0-9]+"},
            resources={"runtime": 60, "mem_mb": 1500},
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
            code=[_GLTS], run=deferred(_GLTS, "figures_step"))

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
                   **({"glts": self.glts_cube_path()} if self.glts_variants() else {})},
            output={"csv": self.claims_file()},
            params={**self._common(), "thresholds": dict(self.spec["claims"])},
            report={"csv": "zeng"},
            code=[_REPORT, _GLTS], run=deferred(_REPORT, "claims_step"))

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
            code=[_REPORT], run=deferred(_REPORT, "readme_step"))

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
        ] if self.glts_variants() else [])
