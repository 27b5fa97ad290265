"""Paper Z (Zeng & Sodan, JSSPP 2009): time/space sharing on multi-core nodes under Scojo-PECT.

The study ``zeng`` (grid ``config/grids/zeng.yaml``, printed values
``config/published/zeng.yaml``) rebuilds the paper's machine, its adjusted
Lublin workloads (:mod:`.workloads`, :mod:`.slowdowns`), the space-sharing
baseline SSP (:mod:`.runs`, :mod:`.tables`, :mod:`.figures`), G-LOMARC-TS and
its variants (:mod:`.glts`), the sweeps of Figs. 8-9 (:mod:`.sweeps`) and
the worked examples of Figs. 1 and 5 (:mod:`.examples`) into the artifacts
of ``artifacts.yaml``, with a verdict per claim (:mod:`.report`).

Cube coordinate ``machine``: ``multicore``, the paper's 128 nodes of two
dual-core CPUs with the adjusted jobs; ``single_core``, §4.8's reference,
the unadjusted Lublin jobs on 128 single-core nodes.
"""
from __future__ import annotations

import functools
from pathlib import Path

from ...errors import ConfigError
from ..base import Artifact, Step, Study, deferred

__all__ = ["Zeng", "DATA", "SWEEP_PARAMETERS", "depends", "value_tag"]

#: Workloads.
DATA = "data/zeng"
#: Runs (one folder per scale).
RUNS = "results/runs/zeng/{scale}"

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
    """Whether a variant's runs depend on a parameter (NH forms no blocks)."""
    from simlib.policies.glomarc_ts import VARIANTS
    return parameter != "block_size" or bool(VARIANTS[variant].get("blocks", True))


def value_tag(value) -> str:
    """A sweep value as a path component (``{value}`` wildcard)."""
    return format(value, "g")


@functools.lru_cache(maxsize=None)
def _data(name: str) -> dict:
    """A YAML file of this package: ``artifacts.yaml`` (per group, output name -> its step,
    path and title) or ``steps.yaml``."""
    from ...io import read_yaml
    return read_yaml(Path(__file__).with_name(name))


class Zeng(Study):
    """Paper Z: Scojo-PECT with space sharing and G-LOMARC-TS on multi-core nodes."""

    key = "zeng"
    section = "zeng"
    title = "Zeng & Sodan (zeng): Scojo-PECT time slicing on multi-core nodes"
    schema = "zeng.schema.json"
    published_loader = ".published"
    #: Why the config's extra_policies do not run here (printed when given).
    extra_policies_refused = ("its comparisons are between time-sharing schedulers (Scojo-PECT's "
                              "slices with space sharing, G-LOMARC-TS) on multi-core nodes with "
                              "the slowdown model of Table 4, which a space-sharing queue "
                              "policy does not implement")

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

    def glts_variants(self) -> list[str]:
        return list(self.spec["glts"]["variants"])

    def sweeps(self) -> dict:
        """The parameter sweeps (``glts.sweeps``): parameter -> its spec."""
        return dict(self.spec["glts"]["sweeps"]) if self.glts_variants() else {}

    def policy_params(self) -> dict:
        """Scojo-PECT's parameters: §5.1 and Table 6 (published), the rest from the grid."""
        sp, t6, g = self.published["scojo_pect"], self.published["table6"], self.spec["scojo_pect"]
        return {**{k: float(sp[k]) for k in ("interval", "medium_share", "long_share", "overhead",
                                             "short_max", "medium_max", "r_est_factor")},
                "max_sl": float(t6["MAX_SL"]), "self_sl2": float(t6["SELF_SL2"]),
                "short_slice": float(g["short_slice"]),
                "non_type_backfilling": bool(g["non_type_backfilling"])}

    def glts_params(self) -> dict:
        """G-LOMARC-TS's parameters: Scojo-PECT's, Table 6's and the grid's switches."""
        t6, g = self.published["table6"], self.spec["glts"]
        return {**self.policy_params(), **{p: self.published_value(p) for p in SWEEP_PARAMETERS},
                "matched_longer": float(t6["MATCHED_LONGER"]),
                **{k: bool(g[k]) for k in ("case2", "case3", "replan")},
                **dict(g.get("matchmaking") or {})}

    def readings(self) -> dict[str, dict]:
        """The alternative readings of group matchmaking (``glts.readings``): name ->
        the switches it changes; ``stacked`` (when listed) all of its alternatives at once."""
        spec = self.spec["glts"].get("readings")
        if not spec or not self.glts_variants():
            return {}
        out = {k: dict(v) for k, v in spec["alternatives"].items()}
        if spec.get("stacked"):
            out["stacked"] = {k: v for name in spec["stacked"] for k, v in out[name].items()}
        return out

    def main_reading(self) -> dict:
        """The main reading's switches (``glts.matchmaking``, else the policy's defaults)."""
        from simlib.policies.glomarc_ts import READINGS, GLomarcTS
        p = {**GLomarcTS.defaults, **self.glts_params()}
        return {k: p[k] for k in READINGS}

    def reading_variants(self) -> list[str]:
        return list(self.spec["glts"]["readings"]["variants"]) if self.readings() else []

    def reading_params(self, reading: str) -> dict:
        """G-LOMARC-TS's parameters under an alternative reading."""
        return {**self.glts_params(), **self.readings()[reading]}

    def published_value(self, parameter: str):
        name, cast, _ = SWEEP_PARAMETERS[parameter]
        return cast(self.published["table6"][name])

    def workload_params(self, workload: str, scale: str) -> dict:
        p = self.policy_params()
        return {"alpha": float(self.published["table5"]["workloads"][workload]["alpha"]),
                "jobs": self.jobs(scale), "machine_nodes": self.nodes(), "table4": self._table4(),
                **{k: p[k] for k in ("max_sl", "self_sl2", "short_max", "medium_max")},
                **{k: self.spec["workload"][k] for k in ("rounding", "estimates", "arrival_clock")}}

    def _table4(self) -> dict:
        return {k: self.published["table4"][k] for k in ("bins", "sl_scr", "sl_sno", "sl_cos")}

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

    def subtree(self, scale: str | None = None) -> dict:
        """Everything the cube depends on (its provenance)."""
        scale = scale or self.scale
        return {"study": self.key, "scale": scale,
                "workloads": {w: self.workload_params(w, scale) for w in self.workloads()},
                "seeds": self.seeds(scale), "machines": self.machines(),
                "policy": "scojo_pect", "policy_params": self.policy_params(),
                "rr_bound": self.spec["rr_bound"], "rr_bounds": self.spec["rr_bounds"],
                "n_high": self.published["table6"]["N_H"]}

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot say: names across keys, Table 6's values, the policies'
        own checks; ConfigError naming the key."""
        super().check()
        spec, where = self.spec, f"config studies.{self.key}"
        printed = self.published["table5"]["workloads"]
        for i, w in enumerate(self.workloads()):
            _require(w in printed, f"{where}.workloads[{i}]: {w!r} is not a workload of Table 5 "
                                   f"({', '.join(printed)})")
        self._run(spec["gantt"]["workload"], f"{where}.gantt.workload")
        for scale, n in spec["seeds"].items():
            _require(spec["gantt"]["seed"] < n, f"{where}.gantt.seed: {spec['gantt']['seed']} is "
                                                f"not run at scale {scale} (seeds 0..{n - 1})")
        _require(spec["rr_bound"] in spec["rr_bounds"],
                 f"{where}.rr_bound: {spec['rr_bound']} must be one of rr_bounds")
        _policy(f"{where}.scojo_pect (with the published §5.1 values)", "scojo_pect",
                self.policy_params())
        for i, variant in enumerate(self.glts_variants()):
            _policy(f"{where}.glts.variants[{i}]", "glomarc_ts", {**self.glts_params(),
                                                                  "variant": variant})
        for param, sweep in self.sweeps().items():
            at = f"{where}.glts.sweeps.{param}"
            self._run(sweep["workload"], f"{at}.workload")
            for i, v in enumerate(sweep["variants"]):
                _require(v in self.glts_variants(), f"{at}.variants[{i}]: {v!r} is not run by "
                         "glts.variants (the sweep's point at Table 6's value comes from those runs)")
            for scale in sweep["values"]:
                for i, v in enumerate(self.sweep_values(param, scale)):
                    here = f"{at}.values.{scale}[{i}]"
                    _require(v != self.published_value(param),
                             f"{here}: {v} is Table 6's value, taken from the main runs; drop it")
                    _policy(here, "glomarc_ts", {**self.glts_params(), param: v})

        self._check_readings(where)

    def _check_readings(self, where: str) -> None:
        spec = self.spec["glts"].get("readings")
        if not spec or not self.glts_variants():
            return
        at = f"{where}.glts.readings"
        for i, v in enumerate(spec["variants"]):
            _require(v in self.glts_variants(), f"{at}.variants[{i}]: {v!r} is not run by glts.variants "
                                                "(the main reading comes from those runs)")
        for v in ("GLTS", "CST", "CSTWS"):
            _require(v in spec["variants"], f"{at}.variants: must include {v} (the claims judged under "
                                            "each reading compare GLTS with CST and CSTWS)")
        seen: dict = {}
        for i, name in enumerate(spec.get("stacked") or []):
            _require(name in spec["alternatives"], f"{at}.stacked[{i}]: {name!r} is not an alternative "
                                                   f"({', '.join(spec['alternatives'])})")
            for k, v in spec["alternatives"][name].items():
                _require(seen.get(k, v) == v, f"{at}.stacked[{i}]: {name!r} sets {k} to {v!r}, "
                                              f"another stacked alternative to {seen.get(k)!r}")
                seen[k] = v
        main = self.main_reading()
        for name, switches in self.readings().items():
            _require(any(main[k] != v for k, v in switches.items()),
                     f"{at}.alternatives.{name}: changes nothing from the main reading (glts.matchmaking)")
            _policy(f"{at}.alternatives.{name}", "glomarc_ts", self.reading_params(name))

    def _run(self, workload: str, where: str) -> None:
        _require(workload in self.workloads(), f"{where}: {workload!r} is not run "
                                               f"(workloads: {', '.join(self.workloads())})")

    # -------------------------------------------------------------- paths
    def path(self, group: str, output: str, **context) -> str:
        """The path of an artifact of ``artifacts.yaml`` (``scale`` and a sweep's ``param``)."""
        from simlib.render import render_string
        return render_string(_data("artifacts.yaml")[group][output]["path"],
                             **{"scale": self.scale, **context})

    def outputs(self, step: str, group: str = "part1", **context) -> dict[str, str]:
        """The outputs ``step`` writes in a group of ``artifacts.yaml``: name -> path."""
        return {k: self.path(group, k, **context) for k, e in _data("artifacts.yaml")[group].items()
                if e["step"] == step}

    def _sweep_context(self, param: str) -> dict:
        return {"figure": None, **self.sweeps()[param], "param": param,
                "name": SWEEP_PARAMETERS[param][0]}

    def claims_file(self) -> str:
        return self.path("part1", "csv")

    def workload_path(self, scale, workload, seed, ext="csv.gz") -> str:
        return f"{DATA}/{scale}/{workload}/seed{seed}.{ext}"

    def run_dir(self, scale="{scale}", workload="{workload}", machine="{machine}", seed="{seed}"):
        return f"{RUNS.format(scale=scale)}/{workload}/{machine}/seed{seed}"

    def summaries(self, scale: str, machines=None) -> list[str]:
        return [f"{self.run_dir(scale, w, m, s)}/summary.json" for w in self.workloads()
                for m in machines or self.machines() for s in self.seeds(scale)]

    def glts_summary(self, scale, workload, seed) -> str:
        return f"{RUNS.format(scale=scale)}/{workload}/glts/seed{seed}.json"

    def reading_summary(self, scale, reading, workload, seed) -> str:
        return f"{RUNS.format(scale=scale)}/readings/{reading}/{workload}/seed{seed}.json"

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        """The steps of ``steps.yaml`` whose part of the grid is run."""
        built = {"part1": True, "glts": bool(self.glts_variants()), "sweep": bool(self.sweeps()),
                 "readings": bool(self.readings())}
        return [self._step(name, **spec) for name, spec in _data("steps.yaml").items()
                if built[spec["part"]]]

    def _step(self, name, part, kind, run, message, group=None, **fields) -> Step:
        """Step ``name`` of ``steps.yaml``: its fields, its kind's and its method's
        (``Zeng._<name without zeng_>``: inputs, parameters, outputs that are not artifacts)."""
        own = getattr(self, "_" + name.removeprefix("zeng_"))()
        if kind == "run":
            fields = {"batch": self.fold(workload=self.workloads(), seed=self.seeds()), **fields,
                      "wildcard_constraints": {"workload": "|".join(self.workloads()), "seed": "[0-9]+",
                                               **fields.get("wildcard_constraints", {})}}
            run = f"{__name__}.{run}"
        elif kind == "aggregate":
            fields.update(stage="aggregate", report={"cube": "cube"},
                          output={"cube": self.path(group, "cube", scale="{scale}", param="{parameter}")})
            run = deferred(f"{__name__}.{run}", "aggregate_step", repo=self.repo)
        else:   # figures
            output = own.pop("output", None) or self.outputs(name, group)
            fields = {"stage": "figures", **fields, "output": output, "report": {k: "zeng" for k in output}}
            own["input"] = {"published": self.published_path, **own.get("input", {})}
            run, message = f"{__name__}.{run}", f"{message} ({self.scale} scale)"
        return Step(name, run=run, message=message, **{**fields, **own})

    def _run_params(self) -> dict:
        """What every run step needs besides the policy's parameters."""
        return {"nodes": self.nodes(), "rr_bound": float(self.spec["rr_bound"]),
                "rr_bounds": [float(b) for b in self.spec["rr_bounds"]],
                "n_high": int(self.published["table6"]["N_H"])}

    def _common(self) -> dict:
        """What the figure and report steps print of the scale."""
        return {"scale": self.scale, "workloads": self.workloads(), "seeds": self.seeds(),
                "jobs": self.jobs(), "machines": self.machines(),
                "rr_bound": float(self.spec["rr_bound"]),
                "rr_bounds": [float(b) for b in self.spec["rr_bounds"]]}

    def _workload_input(self, workload=None):
        return lambda w: {"workload": self.workload_path(w.scale, workload or w.workload, w.seed)}

    def _workload(self) -> dict:
        return {"output": {"workload": self.workload_path("{scale}", "{workload}", "{seed}"),
                           "info": self.workload_path("{scale}", "{workload}", "{seed}", "json")},
                "params": lambda w: self.workload_params(w.workload, w.scale)}

    def _simulate(self) -> dict:
        root = self.run_dir()
        return {"output": {"summary": f"{root}/summary.json", "segments": f"{root}/day_segments.csv.gz",
                           "slices": f"{root}/day_slices.csv"},
                "input": self._workload_input(),
                "params": lambda w: {"policy_params": self.policy_params(), **self._run_params(),
                                     "gantt_day": int(self.spec["gantt"]["day"][w.scale])}}

    def _aggregate(self) -> dict:
        return {"input": lambda w: {"summaries": self.summaries(w.scale)},
                "params": lambda w: {"subtree": self.subtree(w.scale)}}

    def _tables(self) -> dict:
        pairs = [(w, s) for w in self.workloads() for s in self.seeds()]
        return {"input": {"cube": self.path("part1", "cube"),
                          "infos": [self.workload_path(self.scale, w, s, "json") for w, s in pairs],
                          "workloads": [self.workload_path(self.scale, w, s) for w, s in pairs]},
                "params": self._common()}

    def _figures(self) -> dict:
        g = self.spec["gantt"]
        root = self.run_dir(self.scale, g["workload"], "multicore", g["seed"])
        return {"input": {"cube": self.path("part1", "cube"), "segments": f"{root}/day_segments.csv.gz",
                          "slices": f"{root}/day_slices.csv", "table4": self.path("part1", "table4_csv")},
                "params": {**self._common(), "nodes": self.nodes(),
                           "gantt": {"workload": g["workload"], "seed": g["seed"],
                                     "day": int(g["day"][self.scale])}}}

    # ------------------------------------------------------- part 2: GLTS
    def _glts_params(self) -> dict:
        return {"policy_params": self.glts_params(), **self._run_params(), "table4": self._table4()}

    def _simulate_glts(self) -> dict:
        """One job per (workload, seed): every G-LOMARC-TS variant on the multi-core machine."""
        return {"output": {"summary": self.glts_summary("{scale}", "{workload}", "{seed}")},
                "input": self._workload_input(),
                "params": lambda w: {**self._glts_params(), "variants": self.glts_variants()}}

    def _aggregate_glts(self) -> dict:
        return {"input": lambda w: {"ssp": self.summaries(w.scale, ["multicore"]),
                                    "glts": [self.glts_summary(w.scale, wl, s) for wl in self.workloads()
                                             for s in self.seeds(w.scale)]},
                "params": lambda w: {"subtree": {**self.subtree(w.scale), "glts": self.glts_params(),
                                                 "variants": self.glts_variants()}}}

    def _figures_glts(self) -> dict:
        return {"input": {"cube": self.path("glts", "cube")}, "params": self._common()}

    # --------------------------------------------- part 2: Figs. 8-9's sweeps
    def _sweep_spec(self, parameter: str, scale: str) -> dict:
        spec = self.sweeps()[parameter]
        return {"parameter": parameter, "workload": spec["workload"],
                "variants": list(spec["variants"]), "values": self.sweep_values(parameter, scale)}

    def _sweep(self) -> dict:
        """One job per (parameter, value, seed): the sweep's variants that depend on it."""
        def params(w):
            sweep = self._sweep_spec(w.parameter, w.scale)
            return {"parameter": w.parameter, "value": self.sweep_value(w.parameter, w.value, w.scale),
                    "workload": sweep["workload"], **self._glts_params(),
                    "variants": [v for v in sweep["variants"] if depends(v, w.parameter)]}
        return {"output": {"summary": f"{RUNS}/sweeps/{{parameter}}/{{value}}/seed{{seed}}.json"},
                "input": lambda w: self._workload_input(self.sweeps()[w.parameter]["workload"])(w),
                "params": params,
                "wildcard_constraints": {"parameter": "|".join(self.sweeps()), "value": "[0-9.e+-]+",
                                         "seed": "[0-9]+"},
                # Where runs are short: one job per swept parameter.
                "batch": self.fold_groups({p: [{"parameter": p, "value": value_tag(v), "seed": s}
                                               for v in self.sweep_values(p) for s in self.seeds()]
                                           for p in self.sweeps()})}

    def _aggregate_sweep(self) -> dict:
        def inputs(w):
            seeds, sweep = self.seeds(w.scale), self._sweep_spec(w.parameter, w.scale)
            return {"sweep": [f"{RUNS.format(scale=w.scale)}/sweeps/{w.parameter}/{value_tag(v)}/"
                              f"seed{s}.json" for v in sweep["values"] for s in seeds],
                    "main": [self.glts_summary(w.scale, sweep["workload"], s) for s in seeds]}

        def params(w):
            sweep = self._sweep_spec(w.parameter, w.scale)
            return {**sweep, "published_value": self.published_value(w.parameter),
                    "subtree": {**self.subtree(w.scale), "glts": self.glts_params(), "sweep": sweep}}
        return {"input": inputs, "params": params,
                "wildcard_constraints": {"parameter": "|".join(self.sweeps())}}

    def _figures_sweeps(self) -> dict:
        return {"output": {f"{k}_{p}": path for p in self.sweeps() for k, path in self.outputs(
                    "zeng_figures_sweeps", "sweep", **self._sweep_context(p)).items()},
                "input": {f"cube_{p}": self.path("sweep", "cube", param=p) for p in self.sweeps()},
                "params": {**self._common(), "sweeps": {p: {"workload": s["workload"],
                                                            "figure": s.get("figure")}
                                                        for p, s in self.sweeps().items()}}}

    # ------------------------------- part 2: the reading x claim matrix
    def _simulate_reading(self) -> dict:
        """One job per (reading, workload, seed): ``glts.readings.variants`` under it."""
        return {"output": {"summary": self.reading_summary("{scale}", "{reading}", "{workload}", "{seed}")},
                "input": self._workload_input(),
                "params": lambda w: {**self._glts_params(), "reading": w.reading,
                                     "policy_params": self.reading_params(w.reading),
                                     "variants": self.reading_variants()},
                "wildcard_constraints": {"reading": "|".join(self.readings()) or "-",
                                         "workload": "|".join(self.workloads()), "seed": "[0-9]+"},
                "batch": self.fold_groups({r: [{"reading": r, "workload": w, "seed": s}
                                               for w in self.workloads() for s in self.seeds()]
                                           for r in self.readings()})}

    def _aggregate_readings(self) -> dict:
        def inputs(w):
            pairs = [(wl, s) for wl in self.workloads() for s in self.seeds(w.scale)]
            return {"ssp": self.summaries(w.scale, ["multicore"]),
                    "glts": [self.glts_summary(w.scale, wl, s) for wl, s in pairs],
                    "readings": [self.reading_summary(w.scale, r, wl, s) for r in self.readings()
                                 for wl, s in pairs]}
        return {"input": inputs,
                "params": lambda w: {"variants": self.reading_variants(),
                                     "readings": {"main": {}, **self.readings()},
                                     "subtree": {**self.subtree(w.scale), "glts": self.glts_params(),
                                                 "readings": self.readings(),
                                                 "variants": self.reading_variants()}}}

    def _figures_readings(self) -> dict:
        return {"input": {"cube": self.path("readings", "cube")},
                "params": {**self._common(), "thresholds": dict(self.spec["claims"]),
                           "readings": {"main": {}, **self.readings()},
                           "matchmaking": self.main_reading()}}

    # ------------------------------------- part 2: Figs. 1 and 5's examples
    def _examples(self) -> dict:
        return {"params": {"policy_params": self.glts_params()}}

    # --------------------------------------------------------- the report
    def _claims(self) -> dict:
        glts = self.glts_variants()
        return {"input": {"cube": self.path("part1", "cube"), "table5": self.path("part1", "table5_csv"),
                          **({"glts": self.path("glts", "cube")} if glts else {}),
                          **{f"sweep_{p}": self.path("sweep", "cube", param=p) for p in self.sweeps()},
                          **({"examples": self.path("examples", "json")} if glts else {})},
                "params": {**self._common(), "thresholds": dict(self.spec["claims"])}}

    def _readme(self) -> dict:
        mine = self.artifacts()
        extra = {**({"glts": self.path("glts", "cube")} if self.glts_variants() else {}),
                 **({"readings": self.path("readings", "md")} if self.readings() else {})}
        return {"input": {"claims": self.claims_file(), "cube": self.path("part1", "cube"), **extra,
                          "others": [a.path for a in mine if not a.path.endswith("README.md")]},
                "params": {**self._common(), "policy_params": self.policy_params(),
                           "matchmaking": self.main_reading() if self.glts_variants() else {},
                           "spec": {k: v for k, v in self.spec.items() if k != "description"},
                           "artifacts": [a.as_dict() for a in mine]}}

    # ---------------------------------------------------------- artifacts
    def artifacts(self) -> list[Artifact]:
        """The index's entries: the groups of ``artifacts.yaml`` that are built."""
        from simlib.render import render_string
        glts = bool(self.glts_variants())
        groups = [("part1", {}), *[("glts", {})] * glts,
                  *[("sweep", self._sweep_context(p)) for p in self.sweeps()],
                  *[("readings", {})] * bool(self.readings()),
                  *[("examples", {})] * glts]
        return [Artifact(self.section, self.path(g, k, **c), render_string(e["title"], **c))
                for g, c in groups for k, e in _data("artifacts.yaml")[g].items()]


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def _policy(where: str, policy: str, params: dict) -> None:
    """The policy's own checks of ``params``; ConfigError naming ``where``."""
    from ...policies import make_policy
    try:
        make_policy(policy, **params)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
