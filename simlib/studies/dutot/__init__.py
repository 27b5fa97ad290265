"""Paper D (Dutot, Poquet, Trystram, HeteroPar 2015): contiguity and locality, SimGrid.

The study ``dutot`` (config ``studies.dutot``, ``config/grids/dutot.yaml``;
printed parameters and claims in ``config/published/dutot.yaml``) rebuilds
the paper's experiments into ``paper_figures/dutot/``: conservative
backfilling with five allocation rules (the *variants*: basic, best-effort
contiguous, best-effort local, contiguous, local) on clustered platforms,
with job durations from SimGrid (:mod:`simlib.backends.simgrid`).

=================== ==========================================================
step                what
=================== ==========================================================
dutot_eligible      the whole CEA-Curie log cleaned; the jobs of size <= 16
                    and 1 h <= runtime <= 4 h (:mod:`.workloads`)
dutot_workload      one workload per seed: 300 picks, releases 0, walltimes
dutot_simulate      one (platform, seed): every variant and F_comm (:mod:`.runs`)
dutot_aggregate     one cube per experiment (:mod:`.cubes`)
dutot_figures_*     Figs. 1 and 3, trends, Table 1, the platforms and their SimGrid
                    files (:mod:`.figures`, :mod:`.platforms`)
dutot_claims        one verdict per claim and reading (:mod:`.report`)
dutot_readme        ``paper_figures/dutot/README.md`` (:mod:`.readme`)
=================== ==========================================================

Experiments: ``homogeneous`` (§5.3: one platform per reading, *model*
``printed`` or ``griffon``; cube dims model, variant, seed, f_comm) and
``heterogeneous`` (§5.4: one platform per *set* and *ordering*; dims set,
ordering, variant, seed, f_comm). A seed's workload is the same in both
experiments, so runs of equal (seed, F_comm) are paired across them.

The class below reads and checks the config and declares the steps; each
step's work is done by a module of this package imported only when the
step runs (so editing a figure reruns no simulation).
"""
from __future__ import annotations

from ...errors import ConfigError
from ..base import Artifact, Step, Study, deferred

__all__ = ["Dutot", "OUT", "EXPERIMENTS"]

#: The study's figures and tables.
OUT = "paper_figures/dutot"
#: The experiments, one cube each.
EXPERIMENTS = ("homogeneous", "heterogeneous")
#: Runs' inputs.
DATA = "data/dutot"

_WORKLOADS = f"{__name__}.workloads"
_PLATFORMS = f"{__name__}.platforms"
_RUNS = f"{__name__}.runs"
_CUBES = f"{__name__}.cubes"
_FIGURES = f"{__name__}.figures"
_REPORT = f"{__name__}.report"
_README = f"{__name__}.readme"

_CUBE_TITLES = {
    "homogeneous": "Cube (netCDF): §5.3's runs, dims (model, variant, seed, f_comm): makespan, "
                   "mean execution and wait times, killed jobs",
    "heterogeneous": "Cube (netCDF): §5.4's runs, dims (set, ordering, variant, seed, f_comm): "
                     "makespan, mean execution and wait times, killed jobs",
}


class Dutot(Study):
    """Paper D: conservative backfilling with contiguity and locality, timed by SimGrid.

    Examples
    --------
    >>> from simlib.studies import study_class
    >>> study_class("dutot", {"registry": {"dutot": "simlib.studies.dutot:Dutot"}}) is Dutot, Dutot.section
    (True, 'dutot')
    """

    key = "dutot"
    section = "dutot"
    title = "Dutot et al. (dutot): conservative backfilling with contiguity and locality, SimGrid"
    schema = "dutot.schema.json"
    published_loader = ".published"

    # ------------------------------------------------------------ config
    @property
    def variants(self) -> list[str]:
        return list(self.spec["variants"])

    def policy_params(self, variant: str) -> dict:
        """conservative's parameters for one variant (its allocation rule)."""
        return {"allocation": variant, "recompute": self.spec.get("recompute", "rebuild")}

    def models(self, scale: str | None = None) -> list[str]:
        """Readings of the homogeneous platform run at a scale."""
        return list(self.spec["homogeneous"]["models"][scale or self.scale])

    def seeds(self, experiment: str, scale: str | None = None) -> list[int]:
        """Seeds 0..n-1 of an experiment at a scale."""
        return list(range(int(self.spec[experiment]["seeds"][scale or self.scale])))

    def f_comm(self, experiment: str, scale: str | None = None) -> list[float]:
        """F_comm values of an experiment at a scale."""
        grid = self.spec[experiment]["f_comm"][scale or self.scale]
        return [float(i * float(grid["step"])) for i in range(int(grid["count"]))]

    def workload_seeds(self, scale: str | None = None) -> list[int]:
        """Every seed a workload is drawn for (both experiments)."""
        return sorted(set(self.seeds("homogeneous", scale)) | set(self.seeds("heterogeneous", scale)))

    def jobs(self, scale: str | None = None) -> int:
        return int(self.spec["workload"]["jobs"][scale or self.scale])

    def platforms(self, scale: str | None = None) -> dict[str, dict]:
        """Platforms run at a scale: name -> experiment, cube coordinates, source, description."""
        scale = scale or self.scale
        cache = self.__dict__.setdefault("_platforms", {})
        if scale not in cache:
            cache[scale] = self._platforms_at(scale)
        return cache[scale]

    def _platforms_at(self, scale: str) -> dict[str, dict]:
        from .platforms import (
            describe,
            heterogeneous_name,
            heterogeneous_platform,
            homogeneous_name,
            homogeneous_platform,
        )
        pub, out = self.published, {}
        hom, het = self.spec["homogeneous"], self.spec["heterogeneous"]
        for model in self.models(scale):
            speed = ("Table 1's base cp" if hom["printed_speed"] == "table1_base"
                     else f"{hom['printed_speed']} flop/s (grid)")
            source = ("§5.3 as printed (config/published/dutot.yaml); node speed, not printed "
                      f"there: {speed}" if model == "printed" else
                      "SimGrid's Griffon description (examples/platforms/griffon.xml, grid "
                      "homogeneous.griffon)")
            out[homogeneous_name(model)] = {
                "experiment": "homogeneous", "coords": {"model": model}, "source": source,
                "description": describe(homogeneous_platform(pub, hom, model))}
        backbone = ("§5.3's main switch" if het["backbone"] == "homogeneous"
                    else "grid heterogeneous.backbone")
        for set_name in het["sets"]:
            for ordering in het["orderings"]:
                out[heterogeneous_name(set_name, ordering)] = {
                    "experiment": "heterogeneous",
                    "coords": {"set": set_name, "ordering": ordering},
                    "source": f"Table 1 (base x multipliers), set {set_name}, ordering {ordering} "
                              f"(§5.4); backbone not printed: {backbone}",
                    "description": describe(heterogeneous_platform(pub, het, set_name, ordering))}
        return out

    def chunks(self, experiment: str, scale: str | None = None) -> list[tuple[str, int]]:
        """Simulation jobs of an experiment: (platform, seed)."""
        return [(name, s) for name, p in self.platforms(scale).items()
                if p["experiment"] == experiment for s in self.seeds(experiment, scale)]

    def runs(self, experiment: str, scale: str | None = None) -> int:
        """Run instances of an experiment at a scale."""
        return (len(self.chunks(experiment, scale)) * len(self.variants)
                * len(self.f_comm(experiment, scale)))

    def subtree(self, experiment: str, scale: str | None = None) -> dict:
        """Everything an experiment's cube depends on (its provenance hash)."""
        scale = scale or self.scale
        trace = self.spec["trace"]
        catalog = self.config["traces"]["catalog"][trace]
        return {
            "study": self.key, "experiment": experiment, "scale": scale,
            "trace": {"name": trace, "file": catalog["file"],
                      "sha256": self.trace_sha256.get(catalog["file"]),
                      "machine_procs": catalog["machine_procs"]},
            "trace_cleaning": self.config["traces"].get("cleaning") or {},
            "workload": {**{k: v for k, v in self.spec["workload"].items() if k != "jobs"},
                         "jobs": self.jobs(scale)},
            "task": dict(self.spec["task"]),
            "variants": {v: self.policy_params(v) for v in self.variants},
            "seeds": self.seeds(experiment, scale), "f_comm": self.f_comm(experiment, scale),
            "platforms": {n: p["description"] for n, p in self.platforms(scale).items()
                          if p["experiment"] == experiment},
            "policy_modules": list(self.config.get("policy_modules") or []),
        }

    def traces(self) -> list[str]:
        return [self.spec["trace"]]

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot check, then SimGrid; ConfigError names the key."""
        from ...policies import make_policy
        from ...policies.conservative import RECOMPUTE
        super().check()
        spec, where = self.spec, f"config studies.{self.key}"
        catalog = self.config["traces"]["catalog"]
        if spec["trace"] not in catalog:
            raise ConfigError(f"{where}.trace: unknown trace {spec['trace']!r}; known traces "
                              f"(traces.catalog): {', '.join(sorted(catalog))}")
        pub = self.published
        recompute = spec.get("recompute", "rebuild")
        if recompute not in RECOMPUTE:
            raise ConfigError(f"{where}.recompute: {recompute!r} is not one of "
                              f"{', '.join(RECOMPUTE)}")
        for i, v in enumerate(self.variants):
            try:
                make_policy("conservative", **self.policy_params(v))
            except ConfigError as exc:
                raise ConfigError(f"{where}.variants[{i}]: {exc}") from None
        wl = spec["workload"]
        if wl["runtime_min"] > wl["runtime_max"]:
            raise ConfigError(f"{where}.workload.runtime_min: {wl['runtime_min']} is above "
                              f"runtime_max ({wl['runtime_max']})")
        widths = [pub["homogeneous"]["nodes_per_cluster"], pub["heterogeneous"]["nodes_per_cluster"]]
        if wl["max_size"] > min(widths):
            # Local allocations need every job to fit one cluster.
            raise ConfigError(f"{where}.workload.max_size: {wl['max_size']} is above the clusters' "
                              f"{min(widths)} nodes: local variants could never place such a job")
        het = spec["heterogeneous"]
        sets = pub["heterogeneous"]["sets"]["values"]
        for i, s in enumerate(het["sets"]):
            if s not in sets:
                raise ConfigError(f"{where}.heterogeneous.sets[{i}]: unknown set {s!r}; printed "
                                  f"sets: {', '.join(sets)}")
        from .platforms import ordering_values
        orderings = ordering_values(pub, het)
        for i, o in enumerate(het["orderings"]):
            if o not in orderings:
                raise ConfigError(f"{where}.heterogeneous.orderings[{i}]: unknown ordering {o!r}; "
                                  f"printed or in ordering_values: {', '.join(orderings)}")
        for name, values in (het.get("ordering_values") or {}).items():
            for s in het["sets"]:
                bad = [k for k in values if k > len(sets[s])]
                if bad:
                    raise ConfigError(f"{where}.heterogeneous.ordering_values.{name}: index "
                                      f"{bad[0]} is past set {s!r} ({len(sets[s])} clusters)")
        try:
            self.platforms()
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        # Last: SimGrid itself (a config error above is reported even without it).
        self.check_simgrid()

    def check_simgrid(self) -> None:
        """SimGrid's Python module is importable; else what to install, or how to skip the study."""
        from ...backends.simgrid import SimGridUnavailable, require_simgrid
        try:
            require_simgrid()
        except SimGridUnavailable as exc:
            raise SimGridUnavailable(f"config studies.{self.key}: {exc}; or leave paper D out "
                                     f"with --config skip={self.key}") from None

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        return [*self.input_steps(), self.simulation_step(), self.aggregate_step(),
                *self.figure_steps(), self.claims_step(), self.readme_step()]

    def input_steps(self) -> list[Step]:
        """The pool of eligible jobs, and one workload per seed."""
        spec, traces = self.spec, self.config["traces"]
        wl = spec["workload"]
        trace = spec["trace"]
        return [
            Step("dutot_eligible", stage="workloads",
                 message=f"Cleaning the whole {trace} log and keeping paper D's eligible jobs",
                 input={"raw": f"data/traces/raw/{trace}.swf.gz"},
                 output={"swf": f"{DATA}/eligible.swf.gz", "info": f"{DATA}/eligible.json",
                         "cleaning_log": f"logs/traces/dutot/{trace}.cleaning.txt"},
                 params={"trace": trace,
                         "machine_procs": self.config["traces"]["catalog"][trace]["machine_procs"],
                         "cleaning": traces.get("cleaning") or {},
                         "unsorted": traces.get("unsorted", "sort"),
                         "max_size": wl["max_size"], "runtime_min": wl["runtime_min"],
                         "runtime_max": wl["runtime_max"]},
                 code=[_WORKLOADS], run=deferred(_WORKLOADS, "eligible_step")),
            Step("dutot_workload", stage="workloads",
                 message="Drawing paper D's workload of seed {wildcards.seed} ({wildcards.scale})",
                 input={"pool": f"{DATA}/eligible.swf.gz"},
                 output={"swf": f"{DATA}/{{scale}}/workloads/seed{{seed}}.swf",
                         "info": f"{DATA}/{{scale}}/workloads/seed{{seed}}.json"},
                 params=lambda w: {"jobs": self.jobs(w.scale), "base_seed": wl["base_seed"],
                                   "order": wl["order"], "f_w": wl["f_w"]},
                 wildcard_constraints={"seed": "[0-9]+"},
                 code=[_WORKLOADS], run=deferred(_WORKLOADS, "workload_step")),
        ]

    def _chunk_dir(self) -> str:
        return "results/runs/dutot/{scale}/{platform}/seed{seed}"

    def simulation_step(self) -> Step:
        """One job per (platform, seed): every variant and F_comm value of its experiment.

        A run of 300 jobs takes seconds and a Snakemake job's start about as
        long, so runs are chunked; per (platform, seed) keeps the DAG at
        500 simulation jobs at full scale (+20 per extra homogeneous model).
        """
        def params(w):
            p = self.platforms(w.scale)[w.platform]
            task = self.spec["task"]
            return {"platform": p["description"], "coords": p["coords"], "policy": "conservative",
                    "variants": {v: self.policy_params(v) for v in self.variants},
                    "f_comm": self.f_comm(p["experiment"], w.scale), "f_comp": task["f_comp"],
                    "self_communication": task["self_communication"]}

        root = self._chunk_dir()
        return Step(
            "dutot_simulate",
            message=("Simulating every variant on {wildcards.platform}, seed {wildcards.seed}, "
                     "every F_comm (paper D, SimGrid, {wildcards.scale})"),
            input=lambda w: {"swf": f"{DATA}/{w.scale}/workloads/seed{w.seed}.swf"},
            output={"summary": f"{root}/summary.json", "jobs": f"{root}/jobs.csv.gz"},
            params=params,
            policies=["conservative"],
            wildcard_constraints={"platform": "|".join(self.platforms()) or "(?!)",
                                  "seed": "[0-9]+"},
            resources={"runtime": 240, "mem_mb": 1500},
            # Not batched: a platform's parameters rerun only its own runs,
            # and each job holds several SimGrid runs already (10 at smoke).
            code=[_RUNS], run=deferred(_RUNS, "simulate_chunk"))

    def summaries(self, experiment: str, scale: str) -> list[str]:
        root = self._chunk_dir()
        return [f"{root}/summary.json".format(scale=scale, platform=p, seed=s)
                for p, s in self.chunks(experiment, scale)]

    def cube_path(self, experiment: str, scale: str | None = None) -> str:
        return f"results/dutot_{experiment}.{scale or self.scale}.nc"

    def aggregate_step(self) -> Step:
        return Step(
            "dutot_aggregate", stage="aggregate",
            message="Aggregating paper D's {wildcards.experiment} runs ({wildcards.scale})",
            input=lambda w: {"summaries": self.summaries(w.experiment, w.scale)},
            output={"cube": "results/dutot_{experiment}.{scale}.nc"},
            params=lambda w: {"subtree": self.subtree(w.experiment, w.scale),
                              "variants": self.variants},
            wildcard_constraints={"experiment": "|".join(EXPERIMENTS)},
            report={"cube": "cube"},
            code=[_CUBES], run=deferred(_CUBES, "aggregate", repo=self.repo))

    # ---------------------------------------------------------- figures
    def figure_outputs(self, scale: str | None = None) -> dict[str, dict[str, str]]:
        """Output name -> file of each figure step (at a scale)."""
        return {
            "homogeneous": {
                **{f"fig1_{m}": f"{OUT}/fig1_homogeneous_{m}.png" for m in self.models(scale)},
                "trends_csv": f"{OUT}/trends_homogeneous.csv",
                "trends_md": f"{OUT}/trends_homogeneous.md"},
            "heterogeneous": {
                "fig3": f"{OUT}/fig3_heterogeneous.png",
                "fig3_by_set": f"{OUT}/fig3_heterogeneous_by_set.png",
                "fig3_by_ordering": f"{OUT}/fig3_heterogeneous_by_ordering.png",
                "trends_csv": f"{OUT}/trends_heterogeneous.csv",
                "trends_md": f"{OUT}/trends_heterogeneous.md"},
            "platforms": {
                "drawing": f"{OUT}/platforms.png",
                "table1_md": f"{OUT}/table1.md",
                "table1_csv": f"{OUT}/table1.csv",
                **{f"xml_{n.replace('-', '_')}": f"{OUT}/platforms/{n}.xml"
                   for n in self.platforms(scale)}},
        }

    def figure_steps(self) -> list[Step]:
        scale, outs = self.scale, self.figure_outputs()
        platforms = self.platforms()
        common = {"scale": scale,
                  "scale_description": self.config["scales"][scale].get("description", ""),
                  "variants": self.variants, "jobs": self.jobs()}
        return [
            Step("dutot_figures_homogeneous", stage="figures",
                 message=f"Drawing paper D's Fig. 1 per homogeneous model ({scale} scale)",
                 input={"cube": self.cube_path("homogeneous")},
                 output=outs["homogeneous"],
                 params={**common, "models": self.models()},
                 report={k: "dutot" for k in outs["homogeneous"]},
                 code=[_FIGURES], run=deferred(_FIGURES, "homogeneous_step")),
            Step("dutot_figures_heterogeneous", stage="figures",
                 message=f"Drawing paper D's Fig. 3, by set and by ordering ({scale} scale)",
                 input={"cube": self.cube_path("heterogeneous")},
                 output=outs["heterogeneous"], params=common,
                 report={k: "dutot" for k in outs["heterogeneous"]},
                 code=[_FIGURES], run=deferred(_FIGURES, "heterogeneous_step")),
            Step("dutot_figures_platforms", stage="figures",
                 message="Drawing paper D's platforms, writing their SimGrid files, rendering "
                         "Table 1",
                 input={"published": self.published_path},
                 output=outs["platforms"],
                 params={"platforms": {n: p["description"] for n, p in platforms.items()},
                         "sources": {n: p["source"] for n, p in platforms.items()}},
                 report={k: "dutot" for k in outs["platforms"]},
                 code=[_FIGURES, _PLATFORMS], run=deferred(_FIGURES, "platforms_step")),
        ]

    def claims_step(self) -> Step:
        scale = self.scale
        return Step(
            "dutot_claims", stage="figures",
            message=f"Checking paper D's claims on our runs ({scale} scale)",
            input={"homogeneous": self.cube_path("homogeneous"),
                   "heterogeneous": self.cube_path("heterogeneous"),
                   "published": self.published_path},
            output={"csv": self.claims_file()},
            params={"scale": scale, "thresholds": dict(self.spec["claims"]),
                    "variants": self.variants},
            report={"csv": "dutot"},
            code=[_REPORT], run=deferred(_REPORT, "claims_step"))

    def readme_step(self) -> Step:
        scale = self.scale
        mine = self.artifacts()
        return Step(
            "dutot_readme", stage="report",
            message=f"Writing {OUT}/README.md ({scale} scale)",
            input={"claims": self.claims_file(), "published": self.published_path,
                   "homogeneous": self.cube_path("homogeneous"),
                   "heterogeneous": self.cube_path("heterogeneous"),
                   "trends_homogeneous": f"{OUT}/trends_homogeneous.csv",
                   "trends_heterogeneous": f"{OUT}/trends_heterogeneous.csv",
                   "eligible": f"{DATA}/eligible.json",
                   "workloads": [f"{DATA}/{scale}/workloads/seed{s}.json"
                                 for s in self.workload_seeds()],
                   "others": [a.path for a in mine if not a.path.endswith("README.md")]},
            output={"readme": f"{OUT}/README.md"},
            params={"scale": scale,
                    "scale_description": self.config["scales"][scale].get("description", ""),
                    "spec": {k: v for k, v in self.spec.items() if k != "description"},
                    "seeds": {e: self.seeds(e) for e in EXPERIMENTS},
                    "f_comm": {e: self.f_comm(e) for e in EXPERIMENTS},
                    "runs": {e: self.runs(e) for e in EXPERIMENTS},
                    "models": self.models(), "jobs": self.jobs(),
                    "platforms": {n: {k: p[k] for k in ("experiment", "coords", "source",
                                                        "description")}
                                  for n, p in self.platforms().items()},
                    "artifacts": [a.as_dict() for a in mine]},
            report={"readme": "dutot"},
            code=[_README], run=deferred(_README, "readme_step"))

    # ---------------------------------------------------------- artifacts
    def artifacts(self) -> list[Artifact]:
        outs = self.figure_outputs()
        s = self.section
        arts = [Artifact(s, f"{OUT}/README.md", "Paper D: every artifact, a verdict per claim "
                         "(and per reading), scale, seeds and interpretation choices")]
        for m in self.models():
            arts.append(Artifact(s, outs["homogeneous"][f"fig1_{m}"],
                                 f"Fig. 1 ({m} model): makespan vs F_comm per variant on the "
                                 "homogeneous platform, one point per run, least-squares trend"))
        arts += [
            Artifact(s, outs["homogeneous"]["trends_md"], "Homogeneous runs: trend slope and "
                     "intercept, residual SD, mean makespan, killed jobs per model and variant"),
            Artifact(s, outs["homogeneous"]["trends_csv"], "Same table, CSV"),
            Artifact(s, outs["heterogeneous"]["fig3"], "Fig. 3: makespan vs F_comm per variant "
                     "on the heterogeneous platforms, both sets together as the paper plots them"),
            Artifact(s, outs["heterogeneous"]["fig3_by_set"], "Fig. 3 split by set of clusters "
                     "(high: c1-c3, low: c4-c6), one trend per set"),
            Artifact(s, outs["heterogeneous"]["fig3_by_ordering"], "Fig. 3 split by cluster "
                     "ordering (o1-o4), one trend per ordering"),
            Artifact(s, outs["heterogeneous"]["trends_md"], "Heterogeneous runs: trends and "
                     "residual SDs per variant, per set and per ordering"),
            Artifact(s, outs["heterogeneous"]["trends_csv"], "Same table, CSV"),
            Artifact(s, outs["platforms"]["table1_md"], "Table 1: multipliers of the base "
                     "cluster and absolute values of c1-c6, rendered from the published file"),
            Artifact(s, outs["platforms"]["table1_csv"], "Same table, CSV"),
            Artifact(s, outs["platforms"]["drawing"], "Fig. 2 substitute: our platforms drawn "
                     "from the config (nodes coloured by speed, switch and backbone bandwidths)"),
            Artifact(s, self.claims_file(), "Every tested claim of paper D: criterion, our "
                     "numbers and the verdict, per reading of the platform (as data)"),
        ]
        for name, p in self.platforms().items():
            arts.append(Artifact(s, f"{OUT}/platforms/{name}.xml",
                                 f"SimGrid platform file of {name} ({p['source']})"))
        arts += [Artifact(s, self.cube_path(e), _CUBE_TITLES[e]) for e in EXPERIMENTS]
        return arts
