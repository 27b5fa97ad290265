"""A sweep of policies x traces x offered loads on rescaled real traces.

The shape of the baseline study and of paper K's Fig. 1: each cleaned trace
subset (rule ``prepare_trace``) is rescaled to each target offered load by
multiplying its inter-arrival times by one factor (rule ``scale_load``,
the LOS papers' method); every policy runs on every rescaled workload; one
cube has dims (policy, trace, load). The sweep is deterministic, so it has
no seed dimension.

Config (``studies.<key>``): ``traces`` (catalog names), ``policies``
(name -> parameters), ``loads`` (per scale).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ..io import write_csv, write_json
from .base import Artifact, Step, StepContext, Study, load_tag

__all__ = ["TraceSweep", "SUMMARY_EXTRA"]

#: Per-run workload facts stored in the cube beside the metrics.
SUMMARY_EXTRA = {
    "offered_load": ("1", "offered load reached",
                     "sum(size * runtime) / (CPUs * submit span) of the rescaled workload"),
    "interarrival_factor": ("1", "inter-arrival scale factor",
                            "factor multiplying the trace's inter-arrival times to reach the target load"),
    "jobs": ("1", "jobs simulated", "number of jobs in the run"),
    "jobs_killed": ("1", "jobs killed at their requested time",
                    "jobs whose runtime exceeded their request (overrun policy 'kill')"),
}

#: The cube's dimensions.
DIMS = ["policy", "trace", "load"]


class TraceSweep(Study):
    """Policies x traces x loads on load-rescaled trace subsets (see the module docstring).

    Subclasses add their figures (:meth:`figure_steps`) and name their
    index section.
    """

    schema = "trace_sweep.schema.json"

    # ------------------------------------------------------------- config
    @property
    def traces_(self) -> list[str]:
        return list(self.spec.get("traces") or [])

    @property
    def policies(self) -> dict[str, dict]:
        return {p: dict(v or {}) for p, v in (self.spec.get("policies") or {}).items()}

    def loads(self, scale: str | None = None) -> list[float]:
        return [float(x) for x in self.spec["loads"][scale or self.scale]]

    def traces(self) -> list[str]:
        return self.traces_

    def subtree(self, scale: str) -> dict:
        """Everything in the config this sweep's numbers depend on (provenance).

        Where the trace files come from is excluded: they are verified
        against pinned checksums, so the source cannot change the results.
        """
        catalog = self.config["traces"]["catalog"]
        manifest = self.trace_sha256
        return {
            "study": self.key,
            "scale": scale,
            "scale_settings": {k: v for k, v in self.config["scales"][scale].items()
                               if k not in ("description", "batch")},
            # This scale's grid only: editing another scale's loads must not
            # touch this cube.
            "grid": {"traces": self.traces_, "policies": self.policies, "loads": self.loads(scale)},
            "traces": {t: {"file": catalog[t]["file"], "machine_procs": catalog[t]["machine_procs"],
                           "sha256": manifest[catalog[t]["file"]]} for t in self.traces_},
            "trace_cleaning": self.config["traces"].get("cleaning", {}),
            "trace_unsorted": self.config["traces"].get("unsorted", "sort"),
            "simulation": self.simulation(),
            "policy_modules": list(self.config.get("policy_modules") or []),
        }

    # --------------------------------------------------------------- paths
    def run_dir(self, trace: str, policy: str, load, scale: str | None = None) -> str:
        return f"results/runs/{self.key}/{scale or self.scale}/{trace}/{policy}/load{load_tag(load)}"

    def cube_path(self, scale: str | None = None) -> str:
        return f"results/{self.key}.{scale or self.scale}.nc"

    # --------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        key = self.key
        return [
            Step(
                f"{key}_simulate",
                stage="simulate",
                message=(f"Simulating {{wildcards.policy}} on {{wildcards.trace}} at load "
                         f"{{wildcards.load}} ({key}, {{wildcards.scale}})"),
                input=lambda w: {"swf": f"data/workloads/{w.scale}/{w.trace}/load{w.load}.swf.gz",
                                 "info": f"data/workloads/{w.scale}/{w.trace}/load{w.load}.json"},
                output={"jobs": f"results/runs/{key}/{{scale}}/{{trace}}/{{policy}}/load{{load}}/jobs.csv",
                        "summary": (f"results/runs/{key}/{{scale}}/{{trace}}/{{policy}}/"
                                    "load{load}/summary.json")},
                params=lambda w: {
                    "policy_params": self.policies[w.policy],
                    "machine_procs": self.config["traces"]["catalog"][w.trace]["machine_procs"],
                    "target_load": float(w.load),
                    "simulation": self.simulation()},
                policies=lambda w: [w.policy],
                code=["simlib.runner", "simlib.metrics", "simlib.workload.swf"],
                wildcard_constraints={"trace": "|".join(self.traces_) or "(?!)",
                                      "policy": "|".join(self.policies) or "(?!)"},
                resources={"runtime": 60, "mem_mb": 2000},
                # Where runs are short, one job per policy over traces x loads.
                batch=self.fold(trace=self.traces_, load=map(load_tag, self.loads())),
                run=self.simulate_point),
            Step(
                f"{key}_aggregate",
                stage="aggregate",
                message=f"Aggregating {key} ({{wildcards.scale}}) into {{output.cube}}",
                input=lambda w: {"summaries": [f"{self.run_dir(t, p, x, w.scale)}/summary.json"
                                               for t in self.traces_ for p in self.policies
                                               for x in self.loads(w.scale)]},
                output={"cube": f"results/{key}.{{scale}}.nc"},
                params=lambda w: {"subtree": self.subtree(w.scale)},
                code=["simlib.cube"],
                report={"cube": "cube"},
                run=self.aggregate),
            *self.figure_steps(),
        ]

    def figure_steps(self) -> list[Step]:
        """Steps drawing this sweep's figures (none in the generic sweep)."""
        return []

    def artifacts(self) -> list[Artifact]:
        return [Artifact(self.section or self.key, self.cube_path(),
                         "Result cube (netCDF): every metric over dims (policy, trace, load), "
                         "units and provenance in attributes")]

    # ------------------------------------------------------------ run steps
    def simulate_point(self, ctx: StepContext) -> None:
        """One (trace, policy, load): Batsim ``jobs.csv`` and ``summary.json``."""
        # Imported here: only this step depends on them (Step.code).
        from ..metrics import summarize
        from ..runner import simulate
        from ..workload.swf import read_swf
        p, w = ctx.params, ctx.wildcards
        wl = read_swf(ctx.input.swf)
        info = json.loads(Path(ctx.input.info).read_text())
        ctx.log.info("%d jobs on %d CPUs, policy %s with params %s, overrun=%s", len(wl.jobs),
                     p["machine_procs"], w["policy"], p["policy_params"], p["simulation"]["overrun"])
        t0 = time.perf_counter()
        res = simulate(wl, w["policy"], cpus=p["machine_procs"], policy_params=p["policy_params"],
                       overrun=p["simulation"]["overrun"],
                       debug=bool(ctx.config["simulation"].get("debug", False)),
                       workload_name=f"{w['trace']}@load{w['load']}", record_timeline=False)
        elapsed = time.perf_counter() - t0
        # Wall time goes to the log only: summary.json must be reproducible.
        ctx.log.info("simulated in %.3f s (%.0f jobs/s)", elapsed,
                     len(wl.jobs) / max(elapsed, 1e-9))
        write_csv(res.jobs, ctx.output.jobs, index=False, lineterminator="\n")
        metrics = summarize(res.jobs, p["machine_procs"], tau=p["simulation"]["tau"])
        ctx.log.info("metrics: %s", metrics)
        write_json({
            "study": self.key, "scale": w["scale"], "trace": w["trace"], "policy": w["policy"],
            "policy_params": p["policy_params"], "load": p["target_load"],
            "cpus": p["machine_procs"], "jobs": len(res.jobs),
            "jobs_killed": int((res.jobs["success"] == 0).sum()),
            "offered_load": info["offered_load"],
            "interarrival_factor": info["interarrival_factor"],
            "overrun": p["simulation"]["overrun"], "tau": p["simulation"]["tau"],
            "metrics": metrics,
        }, ctx.output.summary)

    def aggregate(self, ctx: StepContext) -> None:
        """The sweep's cube from its run summaries."""
        from ..cube import build_cube, provenance, write_cube
        records, metric_names = [], None
        for path in ctx.input.summaries:
            s = json.loads(Path(path).read_text())
            if metric_names is None:
                metric_names = list(s["metrics"])
            rec = {"policy": s["policy"], "trace": s["trace"], "load": float(s["load"])}
            rec.update({m: s["metrics"].get(m) for m in metric_names})
            rec.update({k: s[k] for k in SUMMARY_EXTRA})
            records.append(rec)
        subtree = ctx.params["subtree"]
        attrs = provenance(subtree, repo_dir=self.repo)
        attrs.update({
            "study": self.key,
            "scale": ctx.scale,
            "title": f"{self.key} study, {ctx.scale} scale",
            "config_subtree": json.dumps(subtree, sort_keys=True),
            "tau_s": float(subtree["simulation"]["tau"]),
            "load_method": "inter-arrival times multiplied by one factor per (trace, load)",
        })
        cube = build_cube(records, DIMS, metric_names + list(SUMMARY_EXTRA), attrs=attrs,
                          metric_info=SUMMARY_EXTRA)
        write_cube(cube, ctx.output.cube)
        ctx.log.info("cube %s: dims %s, variables %s", ctx.output.cube, dict(cube.sizes),
                     list(cube.data_vars))
