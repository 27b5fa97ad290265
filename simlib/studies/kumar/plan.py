"""Paper K's grid resolved for one scale (:class:`KumarPlan`), and its artifacts.

Every path, run list and tracked parameter of the study derives from the
plan; :func:`artifact_list` names every file written under
``paper_figures/kumar/`` (titles: ``templates/names.yaml``).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...errors import ConfigError
from ...io import read_yaml
from ...policies import POLICIES
from ..base import load_tag
from ..user_policies import policy_sources
from . import generator as kgen

__all__ = ["CS_INF", "cs_value", "cs_label", "ranges", "cs_param", "names", "PAPER_NAMES", "FIGURES",
           "TABLE_WORKLOADS", "HIGHER_IS_BETTER", "PURPOSES", "READING_SEP", "reading_workload",
           "KumarPlan", "spec_runs", "workload_file", "artifact_list"]

#: The study's schema (also the validation of the generator's fields).
SCHEMA = Path(__file__).resolve().with_name("kumar.schema.json")
#: Paper K's words that are data (``*.yaml``) beside its templates.
TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=None)
def names(file: str = "names.yaml") -> dict:
    """A YAML file of ``templates/``: by default ``names.yaml`` (paper names, figures,
    artifact titles); ``claims.yaml`` holds the claims' words."""
    return read_yaml(TEMPLATES / file)


#: Registry name -> name printed in paper K.
PAPER_NAMES: dict[str, str] = names()["paper_names"]
#: The figures of Section V: id -> what they show (``kind``: the sweep, ``cs`` or ``load``).
FIGURES: dict[str, dict] = names()["figures"]

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
    reading, _, workload = name.rpartition(READING_SEP)
    return reading or None, workload


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


def ranges(values: Sequence[int]) -> str:
    """C_s values as runs: ``[1, 2, 3, 7, CS_INF]`` -> ``"1–3, 7, ∞"``.

    Examples
    --------
    >>> ranges([3, 1, 2, 7, CS_INF])
    '1–3, 7, ∞'
    """
    values = sorted(int(v) for v in values)
    out, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(cs_label(values[i]) if i == j else f"{values[i]}–{values[j]}")
        i = j + 1
    return ", ".join(out)


def cs_param(cs):
    """The policy's ``cs`` for a C_s coordinate (None for infinity)."""
    return None if cs is None or int(cs) == CS_INF else int(cs)


class KumarPlan:
    """``studies.kumar`` at ``scale``, as :func:`simlib.studies.base.load_study` leaves it
    (checked by ``kumar.schema.json``, which writes every default once; :meth:`from_config`
    does both for a config that did not go through it).
    """

    def __init__(self, spec: Mapping, scale: str) -> None:
        self.spec, self.scale = spec, scale
        self.seeds = int(spec["seeds"][scale])
        self.loads = tuple(float(x) for x in spec["loads"][scale])
        self.cs_values = tuple(cs_value(x) for x in spec["cs_values"][scale])
        self.workloads = {k: dict(v or {}) for k, v in spec["workloads"].items()}
        self.policies = {k: dict(v or {}) for k, v in spec["policies"].items()}
        self.cs_sweep, self.load_sweeps = spec["cs_sweep"], spec["load_sweeps"]
        #: The user's policies (config extra_policies) in the load sweeps.
        self.extra = tuple(spec.get("extra_policies") or ())
        self.generator, self.readings = spec["generator"], spec["readings"]
        self.machine_procs, self.n_jobs = spec["machine_procs"], spec["n_jobs"]
        self.base_seed, self.tolerance = spec["base_seed"], spec["tolerance"]
        lr = spec.get("long_runs") or {"workloads": {}, "margin": None}
        #: ``{"workloads": {workload: [policy, ...]}, "n_jobs", "seeds", "margin"}``
        #: of this scale (no workloads: no long runs).
        self.long_runs = {"workloads": lr["workloads"], "n_jobs": lr.get("n_jobs", {}).get(scale, 0),
                          "seeds": lr.get("seeds", {}).get(scale, 0), "margin": lr["margin"]}

    @classmethod
    def from_config(cls, config: Mapping, scale: str | None = None) -> "KumarPlan":
        """The plan of ``config["studies"]["kumar"]``, validated against the schema first."""
        from ...schema import validate
        spec = validate(config["studies"]["kumar"], SCHEMA, "config studies.kumar")
        return cls(spec, scale or config["scale"])

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
        policies = self.load_sweeps[reading_workload(workload)[1]]
        if purpose == "readings":  # the paper's policies only
            return [p for p in policies if p not in self.extra]
        return list(policies)

    @functools.cached_property
    def paper_load_sweeps(self) -> dict[str, list[str]]:
        """``load_sweeps`` without the user's policies."""
        return {w: [p for p in pols if p not in self.extra] for w, pols in self.load_sweeps.items()}

    def purpose_size(self, purpose: str) -> tuple[int, int]:
        """(seeds, jobs per run) of a sweep."""
        lr = self.long_runs
        return (lr["seeds"], lr["n_jobs"]) if purpose == "long" else (self.seeds, self.n_jobs)

    @property
    def purposes(self) -> list[str]:
        """The sweeps this scale runs (``long`` only with long-run workloads)."""
        return [p for p in PURPOSES if self.purpose_workloads(p)]

    def jobs(self):
        """Every (purpose, workload, policy) simulation chunk of this scale."""
        return [(p, w, pol) for p in self.purposes for w in self.purpose_workloads(p)
                for pol in self.purpose_policies(p, w)]

    def picked_cs(self, by_workload: Mapping[str, int], workload: str) -> int | None:
        """The C_s picked for ``workload``'s P_S, from the picks of the C_s sweep's workloads."""
        return next((c for w, c in by_workload.items()
                     if math.isclose(self.p_s(w), self.p_s(workload))), None)

    def cs_dependent(self, policy: str) -> bool:
        """True when the policy takes C_s and the grid leaves it to the pipeline's pick."""
        return "cs" in POLICIES[policy].defaults and "cs" not in self.policies.get(policy, {})

    def generation_spec(self, purpose: str, workload: str) -> dict:
        """Everything one workload set depends on (the workloads step's params)."""
        seeds, n_jobs = self.purpose_size(purpose)
        return {"workload": workload, "purpose": purpose, "params": self.params(workload).to_dict(),
                "loads": self.purpose_loads(purpose), "seeds": seeds,
                "n_jobs": n_jobs, "tolerance": self.tolerance,
                "entropy_prefix": [self.base_seed, _PURPOSE_KEY[purpose]]}

    def simulation_spec(self, purpose: str, workload: str, policy: str) -> dict:
        """Everything one simulation chunk depends on (the simulate step's params).

        ``cs`` is the list of C_s values to run, ``"pick"`` (read the
        pipeline's pick for ``p_s``) or None (the policy's own parameters).
        """
        if purpose == "cs" and policy == self.cs_sweep["swept"]:
            cs = list(self.cs_values)
        elif purpose != "cs" and self.cs_dependent(policy):
            cs = "pick"
        else:
            cs = None
        return {"workload": workload, "purpose": purpose, "policy": policy,
                "policy_params": self.reading_policy_params(workload, policy),
                "loads": self.purpose_loads(purpose), "seeds": self.purpose_size(purpose)[0],
                "cs": cs, "p_s": self.p_s(workload), "machine_procs": self.machine_procs}

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

    def subtree(self, purpose: str | None = None) -> dict:
        """Everything this scale's numbers depend on (provenance)."""
        out = {"study": "kumar", "scale": self.scale, "seeds": self.seeds,
               "machine_procs": self.machine_procs, "n_jobs": self.n_jobs,
               "base_seed": self.base_seed, "tolerance": self.tolerance,
               "generator": self.generator, "cs_sweep": self.cs_sweep}
        if purpose in (None, "cs"):
            out["cs_values"] = list(self.cs_values)
        if purpose in (None, "load"):
            out.update(loads=list(self.loads), load_sweeps=self.load_sweeps)
        elif purpose == "readings":
            out.update(loads=list(self.loads), load_sweeps=self.paper_load_sweeps)
        if purpose == "long" or (purpose is None and self.long_runs["workloads"]):
            out.update(loads=list(self.loads), long_runs=self.long_runs)
        if purpose == "readings" or (purpose is None and self.readings):
            out["readings"] = self.readings
        used = {pol for p, _, pol in self.jobs() if purpose in (None, p)}
        used_w = set(self.purpose_workloads("cs")) | set(self.purpose_workloads("load"))
        if purpose == "long":
            used_w |= set(self.purpose_workloads("long"))
        out["workloads"] = {w: self.workloads[w] for w in sorted(used_w)}
        out["policies"] = {p: self.policies.get(p, {}) for p in sorted(used)}
        # A user's policy: its module's file and hash (editing it reruns the aggregate).
        sources = policy_sources(sorted(used))
        if sources:
            out["policy_sources"] = sources
        return out


def spec_runs(spec: Mapping, pick: int | None = None) -> list[dict]:
    """The (load, seed, cs) runs of a simulation spec, in a fixed order."""
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


def workload_file(directory, load: float, seed: int) -> Path:
    """Path of one generated CWF workload inside a set's directory."""
    return Path(directory) / f"load{load_tag(load)}" / f"seed{int(seed)}.cwf.gz"


def artifact_list(plan: KumarPlan, fig1: bool = True, sensitivity: bool = False) -> list[dict]:
    """Every file the pipeline writes under ``paper_figures/kumar/`` (README excluded).

    Each item: ``file`` (relative to ``paper_figures/kumar``), ``title``,
    ``rule`` (which pipeline rule writes it: fig1, examples, figures,
    tables) and ``figure`` (the key of the claims it illustrates); from
    ``names.yaml``'s ``files``.
    """
    text = names()
    shown = {w for f in FIGURES.values() if f["kind"] == "cs" for w in f["workloads"]}
    present = {"fig1": fig1, "sensitivity": fig1 and sensitivity,
               "long": "long" in plan.purposes, "readings": "readings" in plan.purposes}
    fields = {"n_jobs": plan.long_runs["n_jobs"], "readings": ", ".join(plan.readings)}
    entries = []
    for entry in text["files"]:
        if entry == "figures":
            entries += [{"stem": f["file"], "exts": ["png", "svg"], "title": f["title"],
                         "rule": "figures", "figure": key} for key, f in FIGURES.items()]
        elif entry == "cs_sweeps":
            entries += [{"stem": f"cs_sweep_{w}", "exts": ["png", "svg"], "rule": "figures",
                         "figure": "cs", "title": text["cs_sweep"].format(workload=w, p_s=plan.p_s(w))}
                        for w in plan.purpose_workloads("cs") if w not in shown]
        elif present.get(entry.get("when"), True):
            entries.append({**entry, "title": entry["title"].format(**fields)})
    return [{"file": f"{e['stem']}.{ext}", "title": text["formats"][ext].format(title=e["title"]),
             "rule": e["rule"], "figure": e["figure"]} for e in entries for ext in e["exts"]]
