"""Paper K (Kumar, Shae, Jamjoom): the experiments of Section V as a study.

D. Kumar, Z.-Y. Shae, H. Jamjoom, "Scheduling Batch and Heterogeneous Jobs
with Runtime Elasticity in a Parallel Processing Environment". The pipeline
(``config/grids/kumar.yaml``, study ``kumar``) runs two sweeps on CWF
workloads of :mod:`simlib.workload.kumar` (M = 320 processors in units of
32, N_J = 500 jobs per run):

* the **C_s sweep** (purpose ``cs``, Figs. 5–6): Delayed-LOS at every
  C_s of the grid against EASY and LOS (which do not depend on C_s), at
  Load 0.9, for every P_S of the load sweeps;
* the **load sweeps** (purpose ``load``, Figs. 7–11, Tables IV–VII): each
  workload variant under its three policies, Load 0.5 … 1.0.

The C_s given to Delayed-LOS, Hybrid-LOS and their -E variants in the load
sweeps is **picked by the pipeline** from the C_s sweep, per P_S, as the
paper did ("we first empirically obtain the optimal value of C_s for a
given value of P_S which is then used for Delayed-LOS and hence
Hybrid-LOS"): :func:`pick_cs` (default: the C_s with the smallest mean
wait, averaged over seeds).

Seeds
-----
The paper ran one simulation per point; we run ``seeds`` per point and
show 95 % Student-t confidence bands over them. A run's workload comes
from ``SeedSequence([base_seed, purpose, seed])``, and every policy runs
on the same workloads, so every comparison between policies is paired.
The same seed also draws the same random numbers for every variant and
load (the generator's common random numbers): variants differing only in
P_D, P_E or P_R get identical jobs and arrivals, P_S only moves jobs
between the two size stages, and the load rescales the arrivals. The C_s sweep uses its own
seeds (purpose 0), disjoint from the load sweeps' (purpose 1): the C_s is
tuned on workloads the load sweeps never see, so the picked C_s does not
flatter Delayed-LOS at Load 0.9 by construction.

Metrics are those of the paper: mean utilization, mean wait and its
slowdown ``(mean wait + mean runtime) / mean runtime``
(:func:`simlib.metrics.kumar_slowdown`), plus the usual ones.

This module holds what the *runs* depend on (the grid, workloads,
simulations, cubes, the C_s pick); :mod:`simlib.studies.kumar_report`
holds the tables, claims and README built from the cubes, so that editing
a report does not rerun a simulation.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from ..cube import build_cube
from ..errors import ConfigError
from ..io import write_text
from ..metrics import kumar_slowdown, summarize
from ..policies import POLICIES, make_policy
from ..runner import simulate
from ..workload import kumar as kgen
from ..published import published_number, read_published
from ..stats import mean_ci  # noqa: F401  (re-exported)
from ..workload.cwf import command_events, read_cwf, split_commands, write_cwf

__all__ = [
    "PAPER_NAMES", "FIGURES", "TABLE_WORKLOADS", "HIGHER_IS_BETTER", "PURPOSES", "RUN_INFO",
    "KumarPlan", "check_config", "generate_set", "workload_file", "run_metrics",
    "spec_runs", "simulate_set", "build_kumar_cube", "mean_ci", "pick_cs", "picks_document",
    "load_published", "fig2_example", "artifact_list",
]

#: Registry name -> name printed in paper K.
PAPER_NAMES: dict[str, str] = {
    "easy": "EASY", "los": "LOS", "delayed_los": "Delayed-LOS",
    "easy_d": "EASY-D", "los_d": "LOS-D", "hybrid_los": "Hybrid-LOS",
    "easy_e": "EASY-E", "los_e": "LOS-E", "delayed_los_e": "Delayed-LOS-E",
    "easy_de": "EASY-DE", "los_de": "LOS-DE", "hybrid_los_e": "Hybrid-LOS-E",
    "fcfs": "FCFS", "conservative": "Conservative",
}

#: The figures of Section V: id -> what they show. ``kind`` is the sweep
#: (``cs`` or ``load``), ``workloads`` are keys of the grid's workloads.
FIGURES: dict[str, dict] = {
    "fig5": {"kind": "cs", "workloads": ["ps05"], "metrics": ["utilization", "mean_wait"],
             "file": "fig5_cs_sweep_ps05",
             "title": "Fig. 5: batch workload, metrics vs C_s, Load 0.9, P_S = 0.5"},
    "fig6": {"kind": "cs", "workloads": ["ps08"], "metrics": ["utilization", "mean_wait"],
             "file": "fig6_cs_sweep_ps08",
             "title": "Fig. 6: batch workload, metrics vs C_s, Load 0.9, P_S = 0.8"},
    "fig7": {"kind": "load", "workloads": ["ps02"],
             "metrics": ["utilization", "mean_wait", "kumar_slowdown"],
             "file": "fig7_batch_ps02",
             "title": "Fig. 7: batch workload, metrics vs Load, P_S = 0.2"},
    "fig8": {"kind": "load", "workloads": ["ps05", "ps08"], "metrics": ["mean_wait"],
             "file": "fig8_wait_ps05_ps08",
             "title": "Fig. 8: batch workload, mean wait vs Load, P_S = 0.5 and 0.8"},
    "fig9": {"kind": "load", "workloads": ["het_pd05_ps02"],
             "metrics": ["utilization", "mean_wait", "kumar_slowdown"],
             "file": "fig9_het_pd05_ps02",
             "title": "Fig. 9: heterogeneous workload, P_D = 0.5, P_S = 0.2"},
    "fig10": {"kind": "load", "workloads": ["het_pd09_ps05"],
              "metrics": ["utilization", "mean_wait", "kumar_slowdown"],
              "file": "fig10_het_pd09_ps05",
              "title": "Fig. 10: heterogeneous workload, P_D = 0.9, P_S = 0.5"},
    "fig11": {"kind": "load", "workloads": ["elastic_batch", "elastic_het"],
              "metrics": ["utilization", "mean_wait", "kumar_slowdown"],
              "file": "fig11_elastic",
              "title": "Fig. 11: elastic control commands, batch (P_S = 0.5) and "
                       "heterogeneous (P_S = 0.5, P_D = 0.5)"},
}

#: Tables IV–VII: the load-sweep workload each table summarizes.
TABLE_WORKLOADS: dict[str, str] = {"IV": "ps02", "V": "het_pd05_ps02",
                                   "VI": "elastic_batch", "VII": "elastic_het"}

#: Direction of each metric the paper improves.
HIGHER_IS_BETTER: dict[str, bool] = {"utilization": True, "mean_wait": False,
                                     "kumar_slowdown": False, "mean_response": False,
                                     "mean_bounded_slowdown": False}

#: The two sweeps and their seed-stream keys.
PURPOSES: tuple[str, ...] = ("cs", "load")
_PURPOSE_KEY = {"cs": 0, "load": 1}

#: Cube variables besides simlib.metrics.summarize's: name -> (units, long_name, description).
RUN_INFO: dict[str, tuple[str, str, str]] = {
    "offered_load": ("1", "offered Load (paper K's formula)",
                     "sum(size * runtime) / (M * (last - first submit)), runtimes before commands"),
    "load_with_commands": ("1", "offered Load after elastic commands",
                           "as offered_load, runtimes changed by the ET/RT commands"),
    "beta_arr": ("1", "beta_arr of the arrival process",
                 "Table II's beta_arr solved for the target Load"),
    "n_bar": ("1", "mean job size n-bar (processors)", "(1/N_J) sum of requested processors"),
    "jobs": ("1", "jobs simulated", "number of jobs (S lines) in the run"),
    "dedicated_jobs": ("1", "dedicated jobs", "jobs with a requested start time"),
    "commands": ("1", "elastic control commands in the workload", "ET + RT lines"),
    "commands_applied": ("1", "elastic control commands applied",
                         "commands the ECC processor applied (NaN: policy without ECC processor)"),
    "dedicated_mean_delay": ("s", "mean start delay of dedicated jobs",
                             "mean over dedicated jobs of start - requested start"),
    "dedicated_on_time": ("1", "fraction of dedicated jobs started on time",
                          "dedicated jobs started at their requested start time / dedicated jobs"),
    "cs_used": ("1", "C_s used", "skip-count threshold given to the policy (NaN: none)"),
}


# --------------------------------------------------------------------------
# the plan: the grid of one scale
# --------------------------------------------------------------------------
def _tag(x: float) -> str:
    return repr(float(x))


@dataclass(frozen=True)
class KumarPlan:
    """The ``studies.kumar`` grid resolved for one scale.

    Build it with :meth:`from_config`; every path and run list of the
    pipeline derives from it.

    Examples
    --------
    >>> cfg = {"scale": "smoke", "studies": {"kumar": {
    ...     "workloads": {"ps05": {"p_s": 0.5}}, "policies": {"easy": {}, "delayed_los": {}},
    ...     "cs_sweep": {"workloads": ["ps05"], "policies": ["easy"], "swept": "delayed_los"},
    ...     "load_sweeps": {"ps05": ["easy", "delayed_los"]},
    ...     "seeds": {"smoke": 2}, "loads": {"smoke": [0.5]}, "cs_values": {"smoke": [1, 2]}}}}
    >>> plan = KumarPlan.from_config(cfg)
    >>> plan.seeds, plan.cs_dependent("delayed_los"), plan.cs_dependent("easy")
    (2, True, False)
    """

    scale: str
    seeds: int
    loads: tuple[float, ...]
    cs_values: tuple[int, ...]
    workloads: dict
    policies: dict
    cs_sweep: dict
    load_sweeps: dict
    generator: dict = field(default_factory=dict)
    machine_procs: int = kgen.MACHINE_SIZE
    n_jobs: int = kgen.N_JOBS
    base_seed: int = 2011
    tolerance: float = 0.01

    @classmethod
    def from_config(cls, config: Mapping, scale: str | None = None) -> "KumarPlan":
        """Resolve ``config["studies"]["kumar"]`` for ``scale`` (default ``config["scale"]``)."""
        scale = scale or config["scale"]
        st = config["studies"]["kumar"]
        cs = dict(st["cs_sweep"])
        cs.setdefault("load", 0.9)
        cs.setdefault("policies", [])
        cs.setdefault("pick", {})
        cs["pick"] = {"metric": "mean_wait", "rule": "argmin", **(cs["pick"] or {})}
        return cls(
            scale=scale,
            seeds=int(st["seeds"][scale]),
            loads=tuple(float(x) for x in st["loads"][scale]),
            cs_values=tuple(int(x) for x in st["cs_values"][scale]),
            workloads={k: dict(v or {}) for k, v in st["workloads"].items()},
            policies={k: dict(v or {}) for k, v in st["policies"].items()},
            cs_sweep=cs,
            load_sweeps={k: list(v) for k, v in st["load_sweeps"].items()},
            generator=dict(st.get("generator") or {}),
            machine_procs=int(st.get("machine_procs", kgen.MACHINE_SIZE)),
            n_jobs=int(st.get("n_jobs", kgen.N_JOBS)),
            base_seed=int(st.get("base_seed", 2011)),
            tolerance=float(st.get("tolerance", 0.01)),
        )

    # ---------------------------------------------------------- workloads
    def params(self, workload: str) -> kgen.KumarParams:
        """Generator parameters of a workload variant (generator defaults + its fields)."""
        fields = {"machine_size": self.machine_procs, **self.generator, **self.workloads[workload]}
        return kgen.KumarParams.from_config(fields, where=f"config studies.kumar.workloads.{workload}")

    def p_s(self, workload: str) -> float:
        return self.params(workload).p_s

    def entropy(self, purpose: str, seed: int) -> list[int]:
        """Seed entropy of run ``seed`` of a sweep (shared by all variants and loads)."""
        return [self.base_seed, _PURPOSE_KEY[purpose], int(seed)]

    def purpose_loads(self, purpose: str) -> list[float]:
        return [float(self.cs_sweep["load"])] if purpose == "cs" else list(self.loads)

    def purpose_workloads(self, purpose: str) -> list[str]:
        return list(self.cs_sweep["workloads"]) if purpose == "cs" else list(self.load_sweeps)

    def purpose_policies(self, purpose: str, workload: str) -> list[str]:
        if purpose == "cs":
            return list(self.cs_sweep["policies"]) + [self.cs_sweep["swept"]]
        return list(self.load_sweeps[workload])

    def jobs(self):
        """Every (purpose, workload, policy) simulation chunk of this scale."""
        return [(p, w, pol) for p in PURPOSES for w in self.purpose_workloads(p)
                for pol in self.purpose_policies(p, w)]

    # ----------------------------------------------------------- policies
    def cs_dependent(self, policy: str) -> bool:
        """True when the policy takes C_s and the grid leaves it to the pipeline's pick."""
        return "cs" in POLICIES[policy].defaults and "cs" not in self.policies.get(policy, {})

    def policy_params(self, policy: str, cs: int | None = None) -> dict:
        params = dict(self.policies.get(policy) or {})
        if cs is not None:
            params["cs"] = int(cs)
        return params

    def generation_spec(self, purpose: str, workload: str) -> dict:
        """Everything one workload set depends on (the workloads rule's params)."""
        return {"workload": workload, "purpose": purpose, "params": self.params(workload).to_dict(),
                "loads": self.purpose_loads(purpose), "seeds": self.seeds, "n_jobs": self.n_jobs,
                "tolerance": self.tolerance,
                "entropy_prefix": [self.base_seed, _PURPOSE_KEY[purpose]]}

    def simulation_spec(self, purpose: str, workload: str, policy: str) -> dict:
        """Everything one simulation chunk depends on (the simulate rule's params).

        ``cs`` is the list of C_s values to run, ``"pick"`` (read the
        pipeline's pick for ``p_s``) or None (the policy's own parameters).
        """
        if purpose == "cs" and policy == self.cs_sweep["swept"]:
            cs = list(self.cs_values)
        elif purpose == "load" and self.cs_dependent(policy):
            cs = "pick"
        else:
            cs = None
        return {"workload": workload, "purpose": purpose, "policy": policy,
                "policy_params": dict(self.policies.get(policy) or {}),
                "loads": self.purpose_loads(purpose), "seeds": self.seeds, "cs": cs,
                "p_s": self.p_s(workload), "machine_procs": self.machine_procs}

    def runs(self, purpose: str, workload: str, policy: str, pick: int | None = None) -> list[dict]:
        """The (load, seed, cs) runs of one chunk, in a fixed order."""
        return spec_runs(self.simulation_spec(purpose, workload, policy), pick)

    def subtree(self, purpose: str | None = None) -> dict:
        """Everything this scale's numbers depend on (provenance)."""
        out = {"study": "kumar", "scale": self.scale, "seeds": self.seeds,
               "machine_procs": self.machine_procs, "n_jobs": self.n_jobs,
               "base_seed": self.base_seed, "tolerance": self.tolerance,
               "generator": self.generator, "cs_sweep": self.cs_sweep}
        if purpose in (None, "cs"):
            out["cs_values"] = list(self.cs_values)
        if purpose in (None, "load"):
            out["loads"] = list(self.loads)
            out["load_sweeps"] = self.load_sweeps
        used = {pol for p, _, pol in self.jobs() if purpose in (None, p)}
        out["workloads"] = {w: self.workloads[w] for w in sorted(
            set(self.purpose_workloads("cs")) | set(self.purpose_workloads("load")))}
        out["policies"] = {p: self.policies.get(p, {}) for p in sorted(used)}
        return out


# --------------------------------------------------------------------------
# configuration checks (before any job runs)
# --------------------------------------------------------------------------
def check_config(config: Mapping, published: Mapping | None = None) -> None:
    """Checks of ``studies.kumar`` that JSON schema cannot express.

    Raises
    ------
    ConfigError
        Naming the offending key, e.g. ``config studies.kumar.load_sweeps.ps02[2]:
        unknown policy 'delayed'``.

    Examples
    --------
    >>> check_config({"studies": {}})   # no kumar study: nothing to check
    """
    st = (config.get("studies") or {}).get("kumar")
    if st is None:
        return
    where = "config studies.kumar"
    workloads = st.get("workloads") or {}
    policies = st.get("policies") or {}
    gen = dict(st.get("generator") or {})
    for w, fields in workloads.items():
        kgen.KumarParams.from_config({"machine_size": st.get("machine_procs", kgen.MACHINE_SIZE),
                                      **gen, **(fields or {})}, where=f"{where}.workloads.{w}")

    def need_workload(name, key):
        if name not in workloads:
            raise ConfigError(f"{key}: unknown workload {name!r}; defined in "
                              f"{where}.workloads: {', '.join(workloads) or 'none'}")

    def need_policy(name, key):
        if name not in policies:
            raise ConfigError(f"{key}: policy {name!r} is not in {where}.policies "
                              f"({', '.join(policies) or 'none'})")

    cs = st.get("cs_sweep") or {}
    for i, w in enumerate(cs.get("workloads", [])):
        need_workload(w, f"{where}.cs_sweep.workloads[{i}]")
    for i, p in enumerate(cs.get("policies", [])):
        need_policy(p, f"{where}.cs_sweep.policies[{i}]")
    swept = cs.get("swept")
    need_policy(swept, f"{where}.cs_sweep.swept")
    if "cs" not in POLICIES[swept].defaults:
        raise ConfigError(f"{where}.cs_sweep.swept: {swept!r} has no C_s parameter 'cs'")
    pick = cs.get("pick") or {}
    rule = pick.get("rule", "argmin")
    if rule not in ("argmin", "one_se"):
        raise ConfigError(f"{where}.cs_sweep.pick.rule: {rule!r} is not argmin or one_se")
    by_ps = {}
    for w in cs.get("workloads", []):
        ps = kgen.KumarParams.from_config({**gen, **(workloads[w] or {})}).p_s
        if ps in by_ps:
            raise ConfigError(f"{where}.cs_sweep.workloads: {by_ps[ps]!r} and {w!r} have the same "
                              f"P_S = {ps}; the pick is per P_S, keep one")
        by_ps[ps] = w
    for w, pols in (st.get("load_sweeps") or {}).items():
        need_workload(w, f"{where}.load_sweeps.{w}")
        ps = kgen.KumarParams.from_config({**gen, **(workloads[w] or {})}).p_s
        for i, p in enumerate(pols):
            need_policy(p, f"{where}.load_sweeps.{w}[{i}]")
            takes_cs = "cs" in POLICIES[p].defaults and "cs" not in (policies[p] or {})
            if takes_cs and ps not in by_ps:
                raise ConfigError(
                    f"{where}.load_sweeps.{w}[{i}]: {p} needs a C_s picked for P_S = {ps}, but "
                    f"no workload of {where}.cs_sweep.workloads has that P_S (or set {p}'s cs)")
    sweeps = st.get("load_sweeps") or {}
    for fig, spec in FIGURES.items():
        pool = cs.get("workloads", []) if spec["kind"] == "cs" else sweeps
        for w in spec["workloads"]:
            if w not in pool:
                part = "cs_sweep.workloads" if spec["kind"] == "cs" else "load_sweeps"
                raise ConfigError(f"{where}.{part}: paper K's {fig} needs workload {w!r}")
    if published is not None:
        for table, w in TABLE_WORKLOADS.items():
            t = published["tables"][table]
            for p in [t["new"], *t["values"]]:
                if p not in sweeps.get(w, []):
                    raise ConfigError(f"{where}.load_sweeps.{w}: Table {table} compares {p}, "
                                      "which this workload does not run")


# --------------------------------------------------------------------------
# workloads
# --------------------------------------------------------------------------
def workload_file(directory, load: float, seed: int) -> Path:
    """Path of one generated CWF workload inside a set's directory.

    Examples
    --------
    >>> workload_file("data/w", 0.9, 3).as_posix()
    'data/w/load0.9/seed3.cwf.gz'
    """
    return Path(directory) / f"load{_tag(load)}" / f"seed{int(seed)}.cwf.gz"


def generate_set(spec: Mapping, outdir, log=None) -> list[dict]:
    """Generate every (load, seed) CWF workload of one variant and sweep.

    ``spec`` is :meth:`KumarPlan.generation_spec`. Writes
    ``<outdir>/load<x>/seed<s>.cwf.gz`` and ``<outdir>/index.json`` (the
    spec, E[n̄] and its standard error, and one entry per file: load, seed,
    β_arr, Load reached with and without commands, n̄, counts); returns the
    entries.

    Examples
    --------
    >>> import tempfile
    >>> spec = {"workload": "ps05", "purpose": "load", "params": {"p_s": 0.5},
    ...         "loads": [0.8], "seeds": 2, "n_jobs": 20, "tolerance": 0.01,
    ...         "entropy_prefix": [1, 1]}
    >>> out = tempfile.mkdtemp()
    >>> [(e["load"], e["seed"], e["file"]) for e in generate_set(spec, out)]
    [(0.8, 0, 'load0.8/seed0.cwf.gz'), (0.8, 1, 'load0.8/seed1.cwf.gz')]
    """
    outdir = Path(outdir)
    params = kgen.KumarParams.from_config(spec["params"], where=f"workload {spec['workload']}")
    entries = []
    for load in spec["loads"]:
        for seed in range(int(spec["seeds"])):
            entropy = [*spec["entropy_prefix"], seed]
            wl = kgen.generate_kumar(params, load=float(load), n_jobs=int(spec["n_jobs"]),
                                     seed=entropy, tolerance=float(spec["tolerance"]))
            path = workload_file(outdir, load, seed)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_cwf(wl, path)
            info = kgen.kumar_info(wl)
            entries.append({
                "load": float(load), "seed": seed, "entropy": entropy,
                "file": path.relative_to(outdir).as_posix(),
                "beta_arr": info["beta_arr"],
                "beta_arr_in_paper_range": info["beta_arr_in_paper_range"],
                "offered_load": info["load"], "load_with_commands": info["load_with_commands"],
                "n_bar": info["n_bar"], "dedicated": info["dedicated"],
                "commands": info["commands"], "n_jobs": info["n_jobs"],
            })
            if log is not None:
                log.info("%s load %s seed %d: Load %.4f, beta_arr %.4f, n_bar %.1f",
                         spec["workload"], load, seed, info["load"], info["beta_arr"],
                         info["n_bar"])
    doc = {**dict(spec), "expected_n_bar": kgen.expected_mean_job_size(params),
           "n_bar_se": kgen.mean_job_size_se(params, int(spec["n_jobs"])), "entries": entries}
    write_text(outdir / "index.json", json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return entries


# --------------------------------------------------------------------------
# simulations
# --------------------------------------------------------------------------
def run_metrics(res, jobs_workload, cpus: int, policy, *, tau: float = 10.0) -> dict:
    """Metrics of one run: :func:`summarize`'s, the paper's slowdown, dedicated-job timeliness.

    Parameters
    ----------
    res : SimResult
    jobs_workload : Workload
        The jobs simulated (``requested_start`` column for dedicated jobs).
    cpus : int
    policy : Policy
        The instance simulated (for its ECC processor's count).

    Examples
    --------
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> row = [1, 0, -1, 10, 4, -1, -1, 4, 10] + [-1] * 9
    >>> wl = Workload(pd.DataFrame([row], columns=list(SWF_FIELDS)).assign(requested_start=-1))
    >>> pol = make_policy("easy")
    >>> m = run_metrics(simulate(wl, pol, cpus=4), wl, 4, pol)
    >>> m["kumar_slowdown"], m["dedicated_jobs"], m["utilization"]
    (1.0, 0, 1.0)
    """
    out = summarize(res.jobs, cpus, tau=tau)
    out["kumar_slowdown"] = kumar_slowdown(res.jobs)
    rs = dict(zip(jobs_workload.jobs["job_id"].astype(str),
                  jobs_workload.jobs["requested_start"].to_numpy(float)))
    req = res.jobs["job_id"].map(rs).to_numpy(float)
    ded = req >= 0
    if ded.any():
        delay = res.jobs["starting_time"].to_numpy(float)[ded] - req[ded]
        out["dedicated_mean_delay"] = float(delay.mean())
        out["dedicated_on_time"] = float(np.mean(delay <= 0.5))
    else:
        out["dedicated_mean_delay"] = out["dedicated_on_time"] = math.nan
    out["dedicated_jobs"] = int(ded.sum())
    ecc = getattr(policy, "ecc", None)
    out["commands_applied"] = float(ecc.applied) if ecc is not None else math.nan
    return out


def spec_runs(spec: Mapping, pick: int | None = None) -> list[dict]:
    """The (load, seed, cs) runs of a simulation spec, in a fixed order.

    Examples
    --------
    >>> spec = {"loads": [0.9], "seeds": 2, "cs": [1, 5], "policy_params": {}}
    >>> [(r["seed"], r["cs"]) for r in spec_runs(spec)]
    [(0, 1), (0, 5), (1, 1), (1, 5)]
    """
    cs = spec["cs"]
    if cs == "pick":
        if pick is None:
            raise ConfigError(f"{spec.get('policy')} on {spec.get('workload')}: the C_s pick "
                              "is needed")
        cs_list = [int(pick)]
    elif cs is None:
        cs_list = [spec["policy_params"].get("cs")]
    else:
        cs_list = [int(c) for c in cs]
    return [{"load": float(x), "seed": s, "cs": c} for x in spec["loads"]
            for s in range(int(spec["seeds"])) for c in cs_list]


def simulate_set(spec: Mapping, workload_dir, *, picks: Mapping | None = None,
                 overrun: str = "kill", tau: float = 10.0, debug: bool = False,
                 log=None) -> tuple[list[dict], pd.DataFrame]:
    """Simulate one policy on every run of one workload variant and sweep.

    Parameters
    ----------
    spec : mapping
        :meth:`KumarPlan.simulation_spec`.
    workload_dir : path
        The set written by :func:`generate_set`.
    picks : mapping, optional
        :func:`picks_document`; needed when ``spec["cs"] == "pick"``.

    Returns
    -------
    records : list of dict
        One per run: coordinates (workload, policy, load, seed, cs), metrics
        (:func:`run_metrics`) and workload facts (:data:`RUN_INFO`).
    jobs : pandas.DataFrame
        Every run's per-job table (Batsim ``jobs.csv`` columns) after the
        columns ``load, seed, cs`` (``cs`` -1: none).

    Examples
    --------
    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> _ = generate_set({"workload": "ps05", "purpose": "cs", "params": {"p_s": 0.5},
    ...                   "loads": [0.9], "seeds": 1, "n_jobs": 20, "tolerance": 0.01,
    ...                   "entropy_prefix": [1, 0]}, out)
    >>> spec = {"workload": "ps05", "purpose": "cs", "policy": "delayed_los",
    ...         "policy_params": {"unit": 32}, "loads": [0.9], "seeds": 1, "cs": [1, 7],
    ...         "p_s": 0.5, "machine_procs": 320}
    >>> records, jobs = simulate_set(spec, out)
    >>> [(r["cs"], r["jobs"]) for r in records], len(jobs)
    ([(1, 20), (7, 20)], 40)
    """
    workload, policy = spec["workload"], spec["policy"]
    pick = None
    if spec["cs"] == "pick":
        if picks is None:
            raise ConfigError(f"{policy} on {workload}: no C_s pick given")
        key = _tag(spec["p_s"])
        if key not in picks["by_p_s"]:
            raise ConfigError(f"{policy} on {workload}: the C_s sweep picked no C_s for "
                              f"P_S = {spec['p_s']} (picks for {sorted(picks['by_p_s'])})")
        pick = int(picks["by_p_s"][key])
    machine = int(spec["machine_procs"])
    index = json.loads((Path(workload_dir) / "index.json").read_text(encoding="utf-8"))
    facts = {(float(e["load"]), int(e["seed"])): e for e in index["entries"]}
    records, tables = [], []
    for run in spec_runs(spec, pick):
        load, seed, cs = run["load"], run["seed"], run["cs"]
        wl = read_cwf(workload_file(workload_dir, load, seed))
        jobs_wl, commands = split_commands(wl)
        params = dict(spec["policy_params"])
        if cs is not None:
            params["cs"] = int(cs)
        pol = make_policy(policy, **params)
        name = f"{workload}@load{_tag(load)}#seed{seed}"
        res = simulate(jobs_wl, pol, cpus=machine, overrun=overrun, debug=debug,
                       workload_name=name, record_timeline=False,
                       commands=command_events(commands))
        metrics = run_metrics(res, jobs_wl, machine, pol, tau=tau)
        e = facts[(float(load), int(seed))]
        rec = {"workload": workload, "policy": policy, "load": float(load), "seed": int(seed),
               "cs": None if cs is None else int(cs), **metrics,
               "offered_load": e["offered_load"], "load_with_commands": e["load_with_commands"],
               "beta_arr": e["beta_arr"], "n_bar": e["n_bar"], "jobs": len(res.jobs),
               "commands": sum(e["commands"].values()),
               "cs_used": math.nan if cs is None else float(cs)}
        records.append(rec)
        table = res.jobs.copy()
        table.insert(0, "cs", -1 if cs is None else int(cs))
        table.insert(0, "seed", int(seed))
        table.insert(0, "load", float(load))
        tables.append(table)
        if log is not None:
            log.info("%s %s cs=%s: wait %.0f s, utilization %.4f", policy, name, cs,
                     metrics["mean_wait"], metrics["utilization"])
    return records, pd.concat(tables, ignore_index=True)


def build_kumar_cube(records: Sequence[Mapping], purpose: str, cs_values: Sequence[int] = (),
                     attrs: Mapping | None = None):
    """The cube of a sweep from :func:`simulate_set`'s records.

    ``cs`` sweep: dims ``(workload, policy, cs, seed)``; a policy that does
    not take C_s (EASY, LOS) ran once per seed and its values are repeated
    along ``cs``. ``load`` sweep: dims ``(workload, policy, load, seed)``;
    combinations not run are NaN.

    Examples
    --------
    >>> recs = [{"workload": "w", "policy": "easy", "load": 0.9, "seed": 0, "cs": None,
    ...          "mean_wait": 5.0}]
    >>> cube = build_kumar_cube(recs, "cs", [1, 2])
    >>> cube["mean_wait"].sel(policy="easy").values.ravel().tolist()
    [5.0, 5.0]
    """
    skip = {"workload", "policy", "load", "seed", "cs"}
    metrics = [k for k in records[0] if k not in skip] if records else []
    if purpose == "cs":
        dims = ["workload", "policy", "cs", "seed"]
        rows = []
        for r in records:
            values = [r["cs"]] if r["cs"] is not None else list(cs_values)
            for c in values:
                rows.append({**r, "cs": int(c)})
        metrics = [m for m in metrics if m != "cs_used"]
    else:
        dims = ["workload", "policy", "load", "seed"]
        rows = list(records)
    info = dict(RUN_INFO)
    cube = build_cube(rows, dims, metrics, attrs=attrs, metric_info=info)
    cube["seed"].attrs.update({"long_name": "random seed index",
                               "description": "run index; workload seed = SeedSequence([base_seed, purpose, seed])"})
    if purpose == "cs":
        cube["cs"].attrs.update({"long_name": "maximum skip count C_s", "units": "1"})
    return cube


# --------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------
# mean_ci lives in simlib.stats (shared by the studies).
# --------------------------------------------------------------------------
# the C_s pick
# --------------------------------------------------------------------------
def pick_cs(cube, swept: str = "delayed_los", metric: str = "mean_wait", rule: str = "argmin",
            level: float = 0.95) -> pd.DataFrame:
    """The C_s of each C_s-sweep workload, as the pipeline picks it.

    ``argmin``: the C_s whose seed-mean ``metric`` is best (smallest; largest
    for utilization), the smallest C_s on ties. ``one_se``: the smallest C_s
    whose seed mean is within one standard error of the best (a common
    guard against picking noise). ``near_best`` lists the C_s values whose
    paired difference to the best is not significant at ``level``.

    Returns
    -------
    pandas.DataFrame
        ``workload, cs, value, best_cs, best_value, near_best`` per workload.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> recs = [{"workload": "w", "policy": "delayed_los", "cs": c, "seed": s,
    ...          "mean_wait": (c - 3) ** 2 + s} for c in (1, 2, 3, 4) for s in (0, 1, 2)]
    >>> cube = build_cube(recs, ["workload", "policy", "cs", "seed"], ["mean_wait"])
    >>> pick_cs(cube)[["workload", "cs"]].values.tolist()
    [['w', 3]]
    """
    higher = HIGHER_IS_BETTER.get(metric, False)
    rows = []
    for w in cube["workload"].values:
        da = cube[metric].sel(workload=w, policy=swept).transpose("cs", "seed")
        vals = da.values
        if not np.isfinite(vals).any():
            continue
        cs = [int(c) for c in da["cs"].values]
        mean = np.nanmean(vals, axis=1)
        score = -mean if higher else mean
        best = int(np.nanargmin(score))
        chosen = best
        if rule == "one_se":
            n = np.isfinite(vals).sum(axis=1)
            se = np.nanstd(vals, axis=1, ddof=1) / np.sqrt(np.maximum(n, 1))
            ok = score <= score[best] + (se[best] if np.isfinite(se[best]) else 0.0)
            chosen = int(np.flatnonzero(ok)[0])
        elif rule != "argmin":
            raise ConfigError(f"pick_cs: rule must be argmin or one_se, not {rule!r}")
        near = []
        for k in range(len(cs)):
            d = vals[k] - vals[best]
            m, h, _ = mean_ci(d, level)
            if k == best or not np.isfinite(h) or abs(m) <= h:
                near.append(cs[k])
        rows.append({"workload": str(w), "cs": cs[chosen], "value": float(mean[chosen]),
                     "best_cs": cs[best], "best_value": float(mean[best]), "near_best": near})
    return pd.DataFrame(rows, columns=["workload", "cs", "value", "best_cs", "best_value",
                                       "near_best"])


def picks_document(frame: pd.DataFrame, p_s: Mapping[str, float], **about) -> dict:
    """JSON-ready record of the picks, keyed by workload and by P_S.

    ``p_s`` maps each C_s-sweep workload to its P_S; ``about`` (metric,
    rule, ...) is recorded as is. The load sweeps read ``by_p_s[repr(P_S)]``.

    Examples
    --------
    >>> df = pd.DataFrame({"workload": ["ps05"], "cs": [7], "value": [1.0], "best_cs": [7],
    ...                    "best_value": [1.0], "near_best": [[6, 7]]})
    >>> picks_document(df, {"ps05": 0.5}, metric="mean_wait")["by_p_s"]
    {'0.5': 7}
    """
    return {
        **about,
        "by_workload": {r.workload: int(r.cs) for r in frame.itertuples()},
        "by_p_s": {_tag(p_s[r.workload]): int(r.cs) for r in frame.itertuples()},
        "table": json.loads(frame.to_json(orient="records")),
    }


# --------------------------------------------------------------------------
# published numbers
# --------------------------------------------------------------------------
def load_published(path) -> dict:
    """Read ``config/published/kumar.yaml`` and check its structure.

    Raises
    ------
    ConfigError
        Naming the file and the missing or malformed key.

    Examples
    --------
    >>> pub = load_published("config/published/kumar.yaml")   # doctest: +SKIP
    >>> pub["tables"]["IV"]["values"]["los"]["mean_wait"]       # doctest: +SKIP
    31.88
    """
    blocks = ("table3", "n_bar", "tables", "headline", "cs_optimum", "cs_insensitive")
    data = read_published(path, blocks, sourced=[b for b in blocks if b != "tables"])
    num = partial(published_number, path)

    for name, row in data["table3"].get("values", {}).items():
        if name not in POLICIES:
            raise ConfigError(f"{path}: table3.values.{name}: not a registered policy")
        if not (isinstance(row, list) and len(row) == 3):
            raise ConfigError(f"{path}: table3.values.{name} must be [paper name, workload, ECC]")
    for i, e in enumerate(data["n_bar"].get("values", [])):
        for k in ("p_s", "p_d", "n_bar"):
            num((e or {}).get(k), f"n_bar.values[{i}].{k}")
    for table in TABLE_WORKLOADS:
        t = data["tables"].get(table)
        if not isinstance(t, dict) or not isinstance(t.get("source"), str):
            raise ConfigError(f"{path}: tables.{table} missing or without source")
        if t.get("new") not in POLICIES:
            raise ConfigError(f"{path}: tables.{table}.new: not a registered policy")
        for base, vals in (t.get("values") or {}).items():
            if base not in POLICIES:
                raise ConfigError(f"{path}: tables.{table}.values.{base}: not a registered policy")
            for m in ("utilization", "mean_wait", "kumar_slowdown"):
                num((vals or {}).get(m), f"tables.{table}.values.{base}.{m}")
    num(data["cs_optimum"].get("p_s"), "cs_optimum.p_s")
    num(data["cs_insensitive"].get("p_s"), "cs_insensitive.p_s")
    num(data["cs_insensitive"].get("above"), "cs_insensitive.above")
    return data


# --------------------------------------------------------------------------
# examples
# --------------------------------------------------------------------------
def fig2_example(durations: Sequence[float] = (10.0, 10.0, 10.0), cpus: int = 10,
                 cs: int = 7) -> dict[str, pd.DataFrame]:
    """Paper K's Fig. 2, simulated: jobs of 7, 4, 6 processors on an idle machine of 10.

    Returns the per-job tables of LOS (alternative (a): the head job of 7
    starts at once) and Delayed-LOS (alternative (b): 4 + 6 start, the 7 is
    skipped while its skip count is below C_s).

    Examples
    --------
    >>> s = fig2_example()
    >>> s["los"]["starting_time"].tolist(), s["delayed_los"]["starting_time"].tolist()
    ([0.0, 10.0, 10.0], [10.0, 0.0, 0.0])
    """
    from ..workload.swf import SWF_FIELDS, Workload

    rows = []
    for i, (procs, dur) in enumerate(zip((7, 4, 6), durations)):
        r = [-1] * len(SWF_FIELDS)
        r[0], r[1], r[3], r[4], r[7], r[8] = i + 1, 0, int(dur), procs, procs, int(dur)
        rows.append(r)
    wl = Workload(pd.DataFrame(rows, columns=list(SWF_FIELDS)))
    return {"los": simulate(wl, "los", cpus=cpus, workload_name="fig2").jobs,
            "delayed_los": simulate(wl, "delayed_los", cpus=cpus, policy_params={"cs": cs},
                                    workload_name="fig2").jobs}


# --------------------------------------------------------------------------
# artifacts
# --------------------------------------------------------------------------
def artifact_list(plan: KumarPlan, fig1: bool = True) -> list[dict]:
    """Every file the pipeline writes under ``paper_figures/K/`` (README excluded).

    Each item: ``file`` (relative to ``paper_figures/K``), ``title``,
    ``rule`` (which pipeline rule writes it: fig1, examples, figures,
    tables) and ``figure`` (the key of the claims it illustrates).

    Examples
    --------
    >>> cfg = {"scale": "smoke", "studies": {"kumar": {
    ...     "workloads": {"ps05": {"p_s": 0.5}}, "policies": {"delayed_los": {}},
    ...     "cs_sweep": {"workloads": ["ps05"], "swept": "delayed_los"}, "load_sweeps": {},
    ...     "seeds": {"smoke": 1}, "loads": {"smoke": [0.5]}, "cs_values": {"smoke": [1]}}}}
    >>> files = [a["file"] for a in artifact_list(KumarPlan.from_config(cfg))]
    >>> "fig2_delayed_los_example.png" in files, "tables_iv_vii.md" in files
    (True, True)
    """
    out = []

    def add(stem, exts, title, rule, figure):
        for ext in exts:
            what = {"png": title, "svg": "same figure, vector (SVG)",
                    "csv": f"{title} (CSV)", "md": f"{title} (Markdown)"}[ext]
            out.append({"file": f"{stem}.{ext}", "title": what, "rule": rule, "figure": figure})

    if fig1:
        add("fig1_easy_vs_los_sdsc", ("png", "svg"),
            "Fig. 1: EASY vs LOS mean wait vs offered load on the SDSC-SP2 log", "fig1", "fig1")
        add("fig1_easy_vs_los_sdsc", ("csv",), "Fig. 1 data: mean wait by policy and load",
            "fig1", "fig1")
    add("fig2_delayed_los_example", ("png", "svg"),
        "Fig. 2: the 7-4-6 example on 10 processors, LOS (a) vs Delayed-LOS (b), simulated",
        "examples", "fig2")
    add("fig2_delayed_los_example", ("csv",), "Fig. 2 schedules: start and end of each job",
        "examples", "fig2")
    add("table3_algorithms", ("md", "csv"),
        "Table III: the twelve algorithms, generated from the policy registry", "examples",
        "table3")
    for fig, spec in FIGURES.items():
        add(spec["file"], ("png", "svg"), spec["title"], "figures", fig)
    shown = {w for spec in FIGURES.values() if spec["kind"] == "cs" for w in spec["workloads"]}
    for w in plan.purpose_workloads("cs"):
        if w not in shown:
            add(f"cs_sweep_{w}", ("png", "svg"),
                f"C_s sweep for {w} (P_S = {plan.p_s(w):g}; not a figure of the paper: it "
                "gives the C_s used for this P_S)", "figures", "cs")
    add("tables_iv_vii", ("md", "csv"),
        "Tables IV–VII: maximum % improvement, published beside ours, plus mean % "
        "improvement with 95 % CI", "tables", "tables")
    add("improvements_by_load", ("csv",),
        "Paired % improvement per load (mean and CI over seeds) for every pair of Tables IV–VII",
        "tables", "tables")
    add("n_bar", ("md", "csv"), "n̄ per workload beside the published values", "tables",
        "n_bar")
    add("cs_pick", ("csv",), "C_s picked per P_S by the pipeline from the C_s sweep", "pick",
        "cs")
    add("claims", ("csv",), "Every tested claim with published and reproduced numbers and a "
        "verdict", "tables", "claims")
    return out
