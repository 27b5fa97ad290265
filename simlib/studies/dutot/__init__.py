"""Paper D (Dutot, Poquet, Trystram, HeteroPar 2015): contiguity and locality, SimGrid.

The study ``dutot`` (grid ``config/grids/dutot.yaml``, printed parameters and
claims ``config/published/dutot.yaml``) rebuilds the paper's experiments
into ``paper_figures/dutot/``: conservative backfilling with five allocation
rules (the *variants*) on clustered platforms, job durations from SimGrid.
Experiments: ``homogeneous`` (§5.3, one platform per reading *model*) and
``heterogeneous`` (§5.4, one platform per *set* and *ordering*); a seed's
workload is the same in both, so runs of equal (seed, F_comm) pair across them.

The class reads and checks the grid and declares the steps; each step runs
a function of one module of this package, imported only when it runs, so
editing a figure reruns no simulation. The artifacts, their titles and the
platforms' sources are data: ``study.yaml``.
"""
from __future__ import annotations

import functools
import itertools
from pathlib import Path

from ...errors import ConfigError
from ...io import read_yaml
from ..base import Artifact, Step, Study

__all__ = ["Dutot", "OUT", "EXPERIMENTS", "f_comm_values"]

#: The study's figures and tables.
OUT = "paper_figures/dutot"
#: The experiments, one cube each.
EXPERIMENTS = ("homogeneous", "heterogeneous")
#: Runs' inputs.
DATA = "data/dutot"
#: One simulation job's folder.
CHUNK = "results/runs/dutot/{scale}/{platform}/seed{seed}"


@functools.cache
def texts() -> dict:
    """``study.yaml``: artifact titles and platform sources."""
    return read_yaml(Path(__file__).with_name("study.yaml"))


def f_comm_values(grid) -> list[float]:
    """F_comm values of an experiment's grid at one scale: 0, step, ..., (count-1) step."""
    return [float(i * float(grid["step"])) for i in range(int(grid["count"]))]


def _run(module: str) -> str:
    return f"{__name__}.{module}"


class Dutot(Study):
    """Paper D: conservative backfilling with contiguity and locality, timed by SimGrid."""

    key = "dutot"
    section = "dutot"
    title = "Dutot et al. (dutot): conservative backfilling with contiguity and locality, SimGrid"
    schema = "dutot.schema.json"
    published_loader = ".published"
    #: Why the config's extra_policies do not run here (printed when given).
    extra_policies_refused = ("its comparisons are between the allocation rules "
                              "(studies.dutot.variants) of conservative backfilling, timed by "
                              "SimGrid; a queue policy without an allocation rule has no place "
                              "in them")

    # ------------------------------------------------------------ config
    @property
    def variants(self) -> list[str]:
        return list(self.spec["variants"])

    @property
    def variant_params(self) -> dict[str, dict]:
        """conservative's parameters for each variant (its allocation rule)."""
        return {v: {"allocation": v, "recompute": self.spec["recompute"]} for v in self.variants}

    def models(self, scale: str | None = None) -> list[str]:
        """Readings of the homogeneous platform run at a scale."""
        return list(self.spec["homogeneous"]["models"][scale or self.scale])

    def seeds(self, experiment: str, scale: str | None = None) -> list[int]:
        return list(range(int(self.spec[experiment]["seeds"][scale or self.scale])))

    def f_comm(self, experiment: str, scale: str | None = None) -> list[float]:
        return f_comm_values(self.spec[experiment]["f_comm"][scale or self.scale])

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
        from .platforms import describe, heterogeneous_platform, homogeneous_platform
        pub, hom, het = self.published, self.spec["homogeneous"], self.spec["heterogeneous"]
        src = texts()["sources"]
        speed = (src["speed_table1_base"] if hom["printed_speed"] == "table1_base"
                 else src["speed_grid"].format(speed=hom["printed_speed"]))
        backbone = src["backbone_homogeneous" if het["backbone"] == "homogeneous" else "backbone_grid"]
        out = {}
        for model in self.models(scale):
            net = homogeneous_platform(pub, hom, model)
            out[net.name] = {"experiment": "homogeneous", "coords": {"model": model},
                             "source": src[model].format(speed=speed), "description": describe(net)}
        for set_name, ordering in itertools.product(het["sets"], het["orderings"]):
            net = heterogeneous_platform(pub, het, set_name, ordering)
            out[net.name] = {"experiment": "heterogeneous",
                             "coords": {"set": set_name, "ordering": ordering},
                             "source": src["heterogeneous"].format(set=set_name, ordering=ordering,
                                                                   backbone=backbone),
                             "description": describe(net)}
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
            "variants": self.variant_params,
            "seeds": self.seeds(experiment, scale), "f_comm": self.f_comm(experiment, scale),
            "platforms": {n: p["description"] for n, p in self.platforms(scale).items()
                          if p["experiment"] == experiment},
        }

    def traces(self) -> list[str]:
        return [self.spec["trace"]]

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    def cube_path(self, experiment: str, scale: str | None = None) -> str:
        return f"results/dutot_{experiment}.{scale or self.scale}.nc"

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot say (names and sizes of the catalog and the
        published file), then SimGrid; ConfigError names the key."""
        super().check()
        spec, pub, where = self.spec, self.published, f"config studies.{self.key}"
        catalog = self.config["traces"]["catalog"]
        if spec["trace"] not in catalog:
            raise ConfigError(f"{where}.trace: unknown trace {spec['trace']!r}; known traces "
                              f"(traces.catalog): {', '.join(sorted(catalog))}")
        wl = spec["workload"]
        if wl["runtime_min"] > wl["runtime_max"]:
            raise ConfigError(f"{where}.workload.runtime_min: {wl['runtime_min']} is above "
                              f"runtime_max ({wl['runtime_max']})")
        width = min(pub[e]["nodes_per_cluster"] for e in EXPERIMENTS)
        if wl["max_size"] > width:
            # Local allocations need every job to fit one cluster.
            raise ConfigError(f"{where}.workload.max_size: {wl['max_size']} is above the clusters' "
                              f"{width} nodes: local variants could never place such a job")
        self.check_heterogeneous(f"{where}.heterogeneous")
        try:
            self.platforms()
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        # Last: SimGrid itself (a config error above is reported even without it).
        self.check_simgrid()

    def check_heterogeneous(self, where: str) -> None:
        """Sets and orderings are printed (or in ``ordering_values``) and index into every set."""
        from .platforms import ordering_values
        het, pub = self.spec["heterogeneous"], self.published
        sets = pub["heterogeneous"]["sets"]["values"]
        orderings = ordering_values(pub, het)
        for key, known, whence in (("sets", sets, "printed sets"),
                                   ("orderings", orderings, "printed or in ordering_values")):
            for i, name in enumerate(het[key]):
                if name not in known:
                    raise ConfigError(f"{where}.{key}[{i}]: unknown {key[:-1]} {name!r}; "
                                      f"{whence}: {', '.join(known)}")
        for name, values in het["ordering_values"].items():
            for s in het["sets"]:
                bad = [k for k in values if k > len(sets[s])]
                if bad:
                    raise ConfigError(f"{where}.ordering_values.{name}: index {bad[0]} is past "
                                      f"set {s!r} ({len(sets[s])} clusters)")

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
                *self.figure_steps(), self.readme_step()]

    def input_steps(self) -> list[Step]:
        """The pool of eligible jobs, and one workload per seed."""
        traces, wl, trace = self.config["traces"], self.spec["workload"], self.spec["trace"]
        return [
            Step("dutot_eligible", stage="workloads",
                 message=f"Cleaning the whole {trace} log and keeping paper D's eligible jobs",
                 input={"raw": f"data/traces/raw/{trace}.swf.gz"},
                 output={"swf": f"{DATA}/eligible.swf.gz", "info": f"{DATA}/eligible.json",
                         "cleaning_log": f"logs/traces/dutot/{trace}.cleaning.txt"},
                 params={"trace": trace, "machine_procs": traces["catalog"][trace]["machine_procs"],
                         "cleaning": traces.get("cleaning") or {},
                         "unsorted": traces.get("unsorted", "sort"),
                         "pool_rule": wl.get("pool_rule", "filter_then_clip"),
                         **{k: wl[k] for k in ("max_size", "runtime_min", "runtime_max")}},
                 run=_run("workloads:eligible_step")),
            Step("dutot_workload", stage="workloads",
                 message="Drawing paper D's workload of seed {wildcards.seed} ({wildcards.scale})",
                 input={"pool": f"{DATA}/eligible.swf.gz"},
                 output={"swf": f"{DATA}/{{scale}}/workloads/seed{{seed}}.swf",
                         "info": f"{DATA}/{{scale}}/workloads/seed{{seed}}.json"},
                 params=lambda w: {"jobs": self.jobs(w.scale),
                                   **{k: wl[k] for k in ("base_seed", "order", "f_w")}},
                 wildcard_constraints={"seed": "[0-9]+"},
                 run=_run("workloads:workload_step")),
        ]

    def simulation_step(self) -> Step:
        """One job per (platform, seed): every variant and F_comm value of its experiment.

        A run of 300 jobs takes seconds and a Snakemake job's start about as
        long, so runs are chunked; per (platform, seed) keeps the DAG at
        500 simulation jobs at full scale (+20 per extra homogeneous model).
        Not batched: a platform's parameters rerun only its own runs, and
        each job holds several SimGrid runs already (10 at smoke).
        """
        def params(w):
            p, task = self.platforms(w.scale)[w.platform], self.spec["task"]
            return {"platform": p["description"], "coords": p["coords"], "policy": "conservative",
                    "variants": self.variant_params,
                    "f_comm": self.f_comm(p["experiment"], w.scale), "f_comp": task["f_comp"],
                    "self_communication": task["self_communication"]}

        return Step(
            "dutot_simulate",
            message=("Simulating every variant on {wildcards.platform}, seed {wildcards.seed}, "
                     "every F_comm (paper D, SimGrid, {wildcards.scale})"),
            input=lambda w: {"swf": f"{DATA}/{w.scale}/workloads/seed{w.seed}.swf"},
            output={"summary": f"{CHUNK}/summary.json", "jobs": f"{CHUNK}/jobs.csv.gz"},
            params=params, policies=["conservative"],
            wildcard_constraints={"platform": "|".join(self.platforms()) or "(?!)",
                                  "seed": "[0-9]+"},
            resources={"runtime": 240, "mem_mb": 1500}, run=_run("runs:simulate_chunk"))

    def aggregate_step(self) -> Step:
        return Step(
            "dutot_aggregate", stage="aggregate",
            message="Aggregating paper D's {wildcards.experiment} runs ({wildcards.scale})",
            input=lambda w: {"summaries": [f"{CHUNK}/summary.json".format(scale=w.scale, platform=p, seed=s)
                                           for p, s in self.chunks(w.experiment, w.scale)]},
            output={"cube": "results/dutot_{experiment}.{scale}.nc"},
            params=lambda w: {"subtree": self.subtree(w.experiment, w.scale),
                              "variants": self.variants},
            wildcard_constraints={"experiment": "|".join(EXPERIMENTS)},
            report={"cube": "cube"}, run=_run("cubes:aggregate"))

    # ------------------------------------------------- figures and report
    def artifact_step(self, name: str, message: str, run: str, templates: list[str],
                      stage: str = "figures", **kw) -> Step:
        """Step ``dutot_<name>``: runs ``run`` (``module:function``), writes its artifacts of
        ``study.yaml`` (each in the report), renders ``templates``."""
        outs = self.outputs(name)
        return Step(f"dutot_{name}", stage=stage, message=message, output=outs,
                    report={k: "dutot" for k in outs}, templates=templates, run=_run(run), **kw)

    def figure_steps(self) -> list[Step]:
        scale, platforms = self.scale, self.platforms()
        common = {"scale": scale, "variants": self.variants, "jobs": self.jobs()}
        return [
            self.artifact_step(
                "figures_homogeneous", f"Drawing paper D's Fig. 1 per homogeneous model ({scale} "
                "scale)", "figures:homogeneous_step", ["figure_titles.j2", "trends_homogeneous.md.j2"],
                input={"cube": self.cube_path("homogeneous")},
                params={**common, "models": self.models()}),
            self.artifact_step(
                "figures_heterogeneous", f"Drawing paper D's Fig. 3, by set and by ordering ({scale} "
                "scale)", "figures:heterogeneous_step",
                ["figure_titles.j2", "trends_heterogeneous.md.j2"],
                input={"cube": self.cube_path("heterogeneous")}, params=common),
            self.artifact_step(
                "figures_platforms", "Drawing paper D's platforms, writing their SimGrid files, "
                "rendering Table 1", "figures:platforms_step", ["figure_titles.j2", "table1.md.j2"],
                input={"published": self.published_path},
                params={"platforms": {n: p["description"] for n, p in platforms.items()},
                        "sources": {n: p["source"] for n, p in platforms.items()}}),
            self.artifact_step(
                "claims", f"Checking paper D's claims on our runs ({scale} scale)",
                "report:claims_step", ["claims.yaml.j2"],
                input={"homogeneous": self.cube_path("homogeneous"),
                       "heterogeneous": self.cube_path("heterogeneous"),
                       "published": self.published_path},
                params={"scale": scale, "thresholds": dict(self.spec["claims"])}),
        ]

    def readme_step(self) -> Step:
        scale, mine = self.scale, self.artifacts()
        return self.artifact_step(
            "readme", f"Writing {OUT}/README.md ({scale} scale)", "readme:readme_step",
            ["README.md.j2"], stage="report",
            input={"claims": self.claims_file(), "published": self.published_path,
                   **{f"trends_{e}": f"{OUT}/trends_{e}.csv" for e in EXPERIMENTS},
                   "eligible": f"{DATA}/eligible.json",
                   "workloads": [f"{DATA}/{scale}/workloads/seed{s}.json"
                                 for s in self.workload_seeds()],
                   "others": [a.path for a in mine if not a.path.endswith("README.md")]},
            params={"scale": scale,
                    "spec": {k: v for k, v in self.spec.items() if k != "description"},
                    "seeds": {e: self.seeds(e) for e in EXPERIMENTS},
                    "f_comm": {e: self.f_comm(e) for e in EXPERIMENTS},
                    "runs": {e: self.runs(e) for e in EXPERIMENTS},
                    "models": self.models(), "jobs": self.jobs(),
                    "platforms": self.platforms(), "artifacts": [a.as_dict() for a in mine]})

    # ---------------------------------------------------------- artifacts
    def _artifacts(self) -> list[tuple[str, str, str, str]]:
        """(step, output name, path, title) of every artifact of ``study.yaml`` at this scale,
        one per model or platform where its path says so."""
        fills = {"{model}": [{"model": m} for m in self.models()],
                 "{name}": [{"name": n, "key": n.replace("-", "_"), "source": p["source"]}
                            for n, p in self.platforms().items()]}
        out = []
        for a in texts()["artifacts"]:
            for f in next((v for k, v in fills.items() if k in a["path"]), [{}]):
                step, _, name = a["output"].format(**f).partition(".")
                out.append((step, name, a["path"].format(scale=self.scale, **f),
                            a["title"].format(**f)))
        return out

    def outputs(self, step: str) -> dict[str, str]:
        """Output name -> file of the artifacts step ``dutot_<step>`` writes."""
        return {name: path for s, name, path, _ in self._artifacts() if s == step}

    def artifacts(self) -> list[Artifact]:
        return [Artifact(self.section, path, title) for *_, path, title in self._artifacts()]
