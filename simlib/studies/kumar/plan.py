"""Paper K's grid resolved for one scale, its config checks and its artifacts.

:class:`KumarPlan` is ``studies.kumar`` of one scale: every path, run list
and tracked parameter of the study derives from it. :func:`check_config`
checks what JSON schema cannot; :func:`artifact_list` names every file the
study writes under ``paper_figures/kumar/``. See :mod:`simlib.studies.kumar`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ConfigError
from ...policies import POLICIES
from ..base import load_tag
from . import generator as kgen

__all__ = ["CS_INF", "cs_value", "cs_label", "cs_param", "PAPER_NAMES", "FIGURES",
           "TABLE_WORKLOADS", "HIGHER_IS_BETTER", "PURPOSES", "READING_SEP", "reading_workload",
           "KumarPlan", "spec_runs", "check_config", "workload_file", "artifact_list"]

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

#: The sweeps and their seed-stream keys: C_s, load, the load sweep's long
#: runs (Sect. V's "scenarios with 10,000 jobs", ``long_runs``) and the load
#: sweeps re-run under other readings (``readings``). The readings share the
#: load sweep's key: the same seed draws the same numbers, so a reading that
#: only changes, e.g., the lead time of dedicated jobs runs the same jobs,
#: and its comparison with the load sweep is paired.
PURPOSES: tuple[str, ...] = ("cs", "load", "long", "readings")
_PURPOSE_KEY = {"cs": 0, "load": 1, "long": 2, "readings": 1}
#: Joins a reading and a workload in a ``readings`` set's name (``size_linear@ps02``).
READING_SEP = "@"


def reading_workload(name: str) -> tuple[str | None, str]:
    """``(reading, workload)`` of a set name (reading None for the other sweeps).

    Examples
    --------
    >>> reading_workload("size_linear@ps02"), reading_workload("ps02")
    (('size_linear', 'ps02'), (None, 'ps02'))
    """
    if READING_SEP in name:
        reading, workload = name.split(READING_SEP, 1)
        return reading, workload
    return None, name

#: C_s = infinity in the C_s coordinate (grid token ``"inf"``): larger than
#: any skip count a run can reach, and mapped to the policy's ``cs=None``
#: (never forced) when a run is made, so the runs are those of C_s = infinity.
CS_INF = 2**31 - 1


def cs_value(token) -> int:
    """A grid C_s (an integer, or ``"inf"``) as a C_s coordinate (:data:`CS_INF` for infinity).

    Examples
    --------
    >>> cs_value(7), cs_value("inf") == CS_INF
    (7, True)
    """
    return CS_INF if token == "inf" else int(token)


def cs_label(cs) -> str:
    """A C_s coordinate as text: its number, or the infinity sign.

    Examples
    --------
    >>> cs_label(7), cs_label(CS_INF)
    ('7', '∞')
    """
    return "∞" if int(cs) == CS_INF else str(int(cs))


def cs_param(cs):
    """The policy's ``cs`` for a C_s coordinate (None for infinity)."""
    return None if cs is None or int(cs) == CS_INF else int(cs)


# --------------------------------------------------------------------------
# the plan: the grid of one scale
# --------------------------------------------------------------------------
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
    #: ``{"workloads": {workload: [policy, ...]}, "n_jobs": int, "seeds": int}``
    #: of this scale (no workloads: no long runs).
    long_runs: dict = field(default_factory=lambda: {"workloads": {}, "n_jobs": 0, "seeds": 0,
                                                     "margin": 10.0})
    #: Reading name -> ``{"description", "generator", "policy_params",
    #: "workloads"}``: load sweeps re-run with generator fields and/or policy
    #: parameters changed (``readings`` in the grid).
    readings: dict = field(default_factory=dict)
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
        lr = st.get("long_runs") or {}
        long_runs = {"workloads": {k: list(v) for k, v in (lr.get("workloads") or {}).items()},
                     "n_jobs": int((lr.get("n_jobs") or {}).get(scale, 0)),
                     "seeds": int((lr.get("seeds") or {}).get(scale, 0)),
                     "margin": float(lr.get("margin", 10.0))}
        return cls(
            scale=scale,
            seeds=int(st["seeds"][scale]),
            loads=tuple(float(x) for x in st["loads"][scale]),
            cs_values=tuple(cs_value(x) for x in st["cs_values"][scale]),
            workloads={k: dict(v or {}) for k, v in st["workloads"].items()},
            policies={k: dict(v or {}) for k, v in st["policies"].items()},
            cs_sweep=cs,
            load_sweeps={k: list(v) for k, v in st["load_sweeps"].items()},
            generator=dict(st.get("generator") or {}),
            long_runs=long_runs,
            readings={name: {"description": str(r.get("description", "")),
                             "generator": dict(r.get("generator") or {}),
                             "policy_params": dict(r.get("policy_params") or {}),
                             "workloads": list(r.get("workloads") or [])}
                      for name, r in (st.get("readings") or {}).items()},
            machine_procs=int(st.get("machine_procs", kgen.MACHINE_SIZE)),
            n_jobs=int(st.get("n_jobs", kgen.N_JOBS)),
            base_seed=int(st.get("base_seed", 2011)),
            tolerance=float(st.get("tolerance", 0.01)),
        )

    # ---------------------------------------------------------- workloads
    def params(self, workload: str) -> kgen.KumarParams:
        """Generator parameters of a workload variant (generator defaults + its fields).

        A ``readings`` set (``reading@workload``) adds the reading's
        generator fields last.
        """
        reading, workload = reading_workload(workload)
        fields = {"machine_size": self.machine_procs, **self.generator, **self.workloads[workload]}
        where = f"config studies.kumar.workloads.{workload}"
        if reading is not None:
            fields.update(self.readings[reading]["generator"])
            where = f"config studies.kumar.readings.{reading} on {workload}"
        return kgen.KumarParams.from_config(fields, where=where)

    def p_s(self, workload: str) -> float:
        return self.params(workload).p_s

    def entropy(self, purpose: str, seed: int) -> list[int]:
        """Seed entropy of run ``seed`` of a sweep (shared by all variants and loads)."""
        return [self.base_seed, _PURPOSE_KEY[purpose], int(seed)]

    def purpose_loads(self, purpose: str) -> list[float]:
        return [float(self.cs_sweep["load"])] if purpose == "cs" else list(self.loads)

    def purpose_workloads(self, purpose: str) -> list[str]:
        if purpose == "long":
            return list(self.long_runs["workloads"])
        if purpose == "readings":
            return [f"{r}{READING_SEP}{w}" for r, spec in self.readings.items()
                    for w in spec["workloads"]]
        return list(self.cs_sweep["workloads"]) if purpose == "cs" else list(self.load_sweeps)

    def purpose_policies(self, purpose: str, workload: str) -> list[str]:
        if purpose == "cs":
            return list(self.cs_sweep["policies"]) + [self.cs_sweep["swept"]]
        if purpose == "long":
            return list(self.long_runs["workloads"][workload])
        return list(self.load_sweeps[reading_workload(workload)[1]])

    def purpose_seeds(self, purpose: str) -> int:
        return self.long_runs["seeds"] if purpose == "long" else self.seeds

    def purpose_n_jobs(self, purpose: str) -> int:
        return self.long_runs["n_jobs"] if purpose == "long" else self.n_jobs

    @property
    def purposes(self) -> list[str]:
        """The sweeps this scale runs (``long`` only with long-run workloads)."""
        return [p for p in PURPOSES if self.purpose_workloads(p)]

    def jobs(self):
        """Every (purpose, workload, policy) simulation chunk of this scale."""
        return [(p, w, pol) for p in self.purposes for w in self.purpose_workloads(p)
                for pol in self.purpose_policies(p, w)]

    # ----------------------------------------------------------- policies
    def cs_dependent(self, policy: str) -> bool:
        """True when the policy takes C_s and the grid leaves it to the pipeline's pick."""
        return "cs" in POLICIES[policy].defaults and "cs" not in self.policies.get(policy, {})

    def policy_params(self, policy: str, cs: int | None = None) -> dict:
        params = dict(self.policies.get(policy) or {})
        if cs is not None:
            params["cs"] = cs_param(cs)
        return params

    def generation_spec(self, purpose: str, workload: str) -> dict:
        """Everything one workload set depends on (the workloads rule's params)."""
        return {"workload": workload, "purpose": purpose, "params": self.params(workload).to_dict(),
                "loads": self.purpose_loads(purpose), "seeds": self.purpose_seeds(purpose),
                "n_jobs": self.purpose_n_jobs(purpose), "tolerance": self.tolerance,
                "entropy_prefix": [self.base_seed, _PURPOSE_KEY[purpose]]}

    def simulation_spec(self, purpose: str, workload: str, policy: str) -> dict:
        """Everything one simulation chunk depends on (the simulate rule's params).

        ``cs`` is the list of C_s values to run, ``"pick"`` (read the
        pipeline's pick for ``p_s``) or None (the policy's own parameters).
        """
        if purpose == "cs" and policy == self.cs_sweep["swept"]:
            cs = list(self.cs_values)
        elif purpose in ("load", "long", "readings") and self.cs_dependent(policy):
            cs = "pick"
        else:
            cs = None
        return {"workload": workload, "purpose": purpose, "policy": policy,
                "policy_params": self.reading_policy_params(workload, policy),
                "loads": self.purpose_loads(purpose), "seeds": self.purpose_seeds(purpose),
                "cs": cs,
                "p_s": self.p_s(workload), "machine_procs": self.machine_procs}

    def reading_policy_params(self, workload: str, policy: str) -> dict:
        """The grid's parameters of ``policy``, plus those of the set's reading it takes.

        A reading's ``policy_params`` apply to every policy that has such a
        parameter (e.g. ``ecc_queued`` to the -E / -DE policies only).
        """
        params = dict(self.policies.get(policy) or {})
        reading = reading_workload(workload)[0]
        if reading is not None:
            takes = POLICIES[policy].defaults
            params.update({k: v for k, v in self.readings[reading]["policy_params"].items()
                           if k in takes})
        return params

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
        if purpose == "long" or (purpose is None and self.long_runs["workloads"]):
            out["loads"] = list(self.loads)
            out["long_runs"] = self.long_runs
        if purpose == "readings" or (purpose is None and self.readings):
            out["loads"] = list(self.loads)
            out["load_sweeps"] = self.load_sweeps
            out["readings"] = self.readings
        used = {pol for p, _, pol in self.jobs() if purpose in (None, p)}
        used_w = set(self.purpose_workloads("cs")) | set(self.purpose_workloads("load"))
        if purpose == "long":
            used_w |= set(self.purpose_workloads("long"))
        out["workloads"] = {w: self.workloads[w] for w in sorted(used_w)}
        out["policies"] = {p: self.policies.get(p, {}) for p in sorted(used)}
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
    # Checked last: the load sweeps' own errors say more.
    for w, pols in ((st.get("long_runs") or {}).get("workloads") or {}).items():
        need_workload(w, f"{where}.long_runs.workloads.{w}")
        for i, p in enumerate(pols):
            need_policy(p, f"{where}.long_runs.workloads.{w}[{i}]")
            if p not in (st.get("load_sweeps") or {}).get(w, []):
                raise ConfigError(f"{where}.long_runs.workloads.{w}[{i}]: {p} does not run in "
                                  f"{where}.load_sweeps.{w}: the long runs are compared with "
                                  "the 500-job ones")
    _check_readings(st, where, gen, workloads, policies)


def _check_readings(st: Mapping, where: str, gen: Mapping, workloads: Mapping,
                    policies: Mapping) -> None:
    """``readings``: known load-sweep workloads, generator fields, parameters some policy takes."""
    sweeps = st.get("load_sweeps") or {}
    for name, spec in (st.get("readings") or {}).items():
        key = f"{where}.readings.{name}"
        if READING_SEP in name:
            raise ConfigError(f"{key}: a reading's name may not contain {READING_SEP!r}")
        spec = spec or {}
        if not spec.get("workloads"):
            raise ConfigError(f"{key}.workloads: name at least one workload of {where}.load_sweeps")
        if not spec.get("generator") and not spec.get("policy_params"):
            raise ConfigError(f"{key}: give generator fields or policy_params, or the reading "
                              "is the load sweep itself")
        used = set()
        for i, w in enumerate(spec["workloads"]):
            if w not in sweeps:
                raise ConfigError(f"{key}.workloads[{i}]: {w!r} is not a workload of "
                                  f"{where}.load_sweeps ({', '.join(sweeps) or 'none'}): a "
                                  "reading re-runs a load sweep")
            kgen.KumarParams.from_config({"machine_size": st.get("machine_procs", kgen.MACHINE_SIZE),
                                          **gen, **(workloads[w] or {}),
                                          **(spec.get("generator") or {})},
                                         where=f"{key} on {w}")
            used |= set(sweeps[w])
        for param, value in (spec.get("policy_params") or {}).items():
            takers = sorted(p for p in used if param in POLICIES[p].defaults)
            if not takers:
                raise ConfigError(f"{key}.policy_params.{param}: no policy of the reading's "
                                  f"workloads ({', '.join(sorted(used))}) has this parameter")
            for p in takers:  # the value is checked as the policy itself checks it
                try:
                    POLICIES[p](**{**(policies.get(p) or {}), param: value})
                except ConfigError as err:
                    raise ConfigError(f"{key}.policy_params.{param}: {err}") from None


# --------------------------------------------------------------------------
# paths and artifacts
# --------------------------------------------------------------------------
def workload_file(directory, load: float, seed: int) -> Path:
    """Path of one generated CWF workload inside a set's directory.

    Examples
    --------
    >>> workload_file("data/w", 0.9, 3).as_posix()
    'data/w/load0.9/seed3.cwf.gz'
    """
    return Path(directory) / f"load{load_tag(load)}" / f"seed{int(seed)}.cwf.gz"


def artifact_list(plan: KumarPlan, fig1: bool = True, sensitivity: bool = False) -> list[dict]:
    """Every file the pipeline writes under ``paper_figures/kumar/`` (README excluded).

    Each item: ``file`` (relative to ``paper_figures/kumar``), ``title``,
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
    if fig1 and sensitivity:
        add("fig1_sensitivity", ("png", "svg"),
            "Fig. 1 sensitivity: LOS's improvement over EASY by load on three segments of the "
            "SDSC-SP2 log, LOS lookahead x tie rule", "fig1_sensitivity", "fig1_sensitivity")
        add("fig1_sensitivity", ("md", "csv"), "Fig. 1 sensitivity: the band per load and "
            "every variant", "fig1_sensitivity", "fig1_sensitivity")
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
    if "long" in plan.purposes:
        add("long_runs", ("md", "csv"), f"{plan.long_runs['n_jobs']}-job runs vs the 500-job load "
            "sweep: improvement per point with a Welch interval, offered vs achieved load, "
            "saturated points marked", "tables", "long_runs")
    if "readings" in plan.purposes:
        add("readings", ("md", "csv"), "Other readings (" + ", ".join(plan.readings) + "): the "
            "claims' verdicts under each (reading x claim matrix), Tables IV–VII side by side, "
            "Tables I–II with the solved β_arr against the paper's range, n̄, dedicated jobs' "
            "timeliness, commands on running jobs", "tables", "readings")
    add("cs_forced_starts", ("md", "csv"), "C_s sweep: forced head starts per run, the largest "
        "skip count and the mean wait per C_s (∞ included)", "tables", "fig5")
    add("claims", ("csv",), "Every tested claim with published and reproduced numbers and a "
        "verdict", "tables", "claims")
    return out
