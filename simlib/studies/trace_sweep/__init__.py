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

from ..base import Artifact, Step, Study, load_tag
from ..user_policies import merge_policies, policy_sources

__all__ = ["TraceSweep"]

#: The steps' functions (:mod:`.runs`): imported only when a step runs.
_RUNS = f"{__name__}.runs"


class TraceSweep(Study):
    """Policies x traces x loads on load-rescaled trace subsets (see the module docstring).

    Subclasses add their figures (:meth:`figure_steps`) and name their
    index section.
    """

    schema = "trace_sweep.schema.json"
    #: The config's extra_policies join ``policies``: every trace, every load.
    extra_policies_refused = ""

    # ------------------------------------------------------------- config
    @property
    def traces_(self) -> list[str]:
        return list(self.spec.get("traces") or [])

    @property
    def policies(self) -> dict[str, dict]:
        return {p: dict(v or {}) for p, v in (self.spec.get("policies") or {}).items()}

    def add_extra_policies(self, spec: dict, extra) -> dict:
        spec["policies"] = merge_policies(self.key, spec.get("policies"), extra)
        return spec

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
        tree = {
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
        }
        # A user's policy: its module's file and hash (editing it reruns the aggregate).
        sources = policy_sources(self.policies)
        if sources:
            tree["policy_sources"] = sources
        return tree

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
                    "study": key,
                    "policy_params": self.policies[w.policy],
                    "machine_procs": self.config["traces"]["catalog"][w.trace]["machine_procs"],
                    "target_load": float(w.load),
                    "simulation": self.simulation()},
                policies=lambda w: [w.policy],
                wildcard_constraints={"trace": "|".join(self.traces_) or "(?!)",
                                      "policy": "|".join(self.policies) or "(?!)"},
                resources={"runtime": 60, "mem_mb": 2000},
                # Where runs are short, one job per policy over traces x loads.
                batch=self.fold(trace=self.traces_, load=map(load_tag, self.loads())),
                run=f"{_RUNS}:simulate_point"),
            Step(
                f"{key}_aggregate",
                stage="aggregate",
                message=f"Aggregating {key} ({{wildcards.scale}}) into {{output.cube}}",
                input=lambda w: {"summaries": [f"{self.run_dir(t, p, x, w.scale)}/summary.json"
                                               for t in self.traces_ for p in self.policies
                                               for x in self.loads(w.scale)]},
                output={"cube": f"results/{key}.{{scale}}.nc"},
                params=lambda w: {"study": key, "subtree": self.subtree(w.scale)},
                report={"cube": "cube"},
                run=f"{_RUNS}:aggregate"),
            *self.figure_steps(),
        ]

    def figure_steps(self) -> list[Step]:
        """Steps drawing this sweep's figures (none in the generic sweep)."""
        return []

    def artifacts(self) -> list[Artifact]:
        return [Artifact(self.section or self.key, self.cube_path(),
                         "Result cube (netCDF): every metric over dims (policy, trace, load), "
                         "units and provenance in attributes")]
