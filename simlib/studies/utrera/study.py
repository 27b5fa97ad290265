"""Paper U's study: reads and checks the grid, declares the steps (see the package)."""
from __future__ import annotations

import itertools
from pathlib import Path

from ...errors import ConfigError
from ..base import Artifact, Step, Study, deferred, load_tag, lublin_path
from . import EASY, MALLEABLE, OUT, PARTS, READINGS, WHOLE

__all__ = ["Utrera"]

#: Table 1's workloads (fits ``sizes`` and ``runtimes``), one directory per fit and seed.
T1_DIR = "data/workloads/utrera/table1"
#: Table 1's fits that build their own workloads (``arrivals`` uses the Lublin rule's).
T1_OWN_FITS = ("sizes", "runtimes")
#: Portions of the traces other than Fig. 3's (step ``utrera_prepare_portion``).
PORTION_USES = ("long_util", WHOLE)
_COMPARED = (EASY, MALLEABLE)
#: The index titles (file -> title, part -> cube title).
ARTIFACTS = Path(__file__).with_name("artifacts.yaml")
_PACKAGE = __name__.rpartition(".")[0]
_FIGURES = f"{_PACKAGE}.figures"


class Utrera(Study):
    """Paper U: FCFS-malleable (virtual malleability) vs EASY backfilling."""

    key = "utrera"
    section = "utrera"
    title = "Utrera et al. (utrera): FCFS-malleable"
    schema = "utrera.schema.json"
    published_loader = ".published"

    # ------------------------------------------------------------ config
    def seeds(self, kind: str, scale: str | None = None) -> list[int]:
        """Seed indices of a part: ``"table1"`` (workload and OV) or ``"ov"`` (the others)."""
        n = self.spec["table1"]["seeds"] if kind == "table1" else self.spec["ov_seeds"]
        return list(range(int(n[scale or self.scale])))

    def policy(self, name: str) -> dict:
        """Parameters of one of the compared policies."""
        return dict(self.spec["policies"][name] or {})

    def trace_variants(self) -> dict[str, dict]:
        """Policies run on the traces: key (path-safe) -> policy, params, label, seeded.

        "easy" and "fcfs_malleable" (Fig. 3, Tables 2-3), one key per other
        candidate order (ablation) and per time-model reading (sensitivity).
        The label is the cube's policy coordinate.
        """
        base = self.policy(MALLEABLE)
        out = {EASY: dict(policy=EASY, params=self.policy(EASY), label=EASY, seeded=False),
               MALLEABLE: dict(policy=MALLEABLE, params=base, label=MALLEABLE, seeded=True)}
        for order in self.spec["orders"]:
            if order != base.get("order", "oldest"):
                out[f"order-{order}"] = dict(policy=MALLEABLE, params={**base, "order": order},
                                             label=f"{MALLEABLE}:order={order}", seeded=True)
        for label, params in self.reading_labels().items():
            out[f"reading-{label.partition(':')[2]}"] = dict(policy=MALLEABLE, params=params,
                                                            label=label, seeded=True)
        return out

    def reading_labels(self) -> dict[str, dict]:
        """Every other reading of the time model: its policy label in every cube
        (``fcfs_malleable:<name>``) -> the main fcfs_malleable parameters with its
        overrides (:meth:`readings`)."""
        base = self.policy(MALLEABLE)
        return {f"{MALLEABLE}:{name}": {**base, **over} for name, over in self.readings().items()}

    def fig2_variants(self, runs: str) -> dict[str, dict]:
        """What Fig. 2's step runs (``runs``): label -> policy and parameters.

        ``schedules``: each of ``fig2.policies``; ``readings``: fcfs_malleable
        under each reading. The example's own parameters
        (``fig2.malleable_params``: the paper's footnote, OV = 0) apply on top
        of fcfs_malleable's, a reading's overrides included: the footnote
        defines the example (README, interpretation 3).
        """
        own = self.spec["fig2"]["malleable_params"]
        if runs == READINGS:
            return {label: {"policy": MALLEABLE, "params": {**params, **own}}
                    for label, params in self.reading_labels().items()}
        return {p: {"policy": p, "params": {**self.policy(MALLEABLE), **own} if p == MALLEABLE
                    else {}} for p in self.spec["fig2"]["policies"]}

    def order_labels(self) -> dict[str, str]:
        """Candidate order -> its policy label in the traces cube."""
        base = self.policy(MALLEABLE).get("order", "oldest")
        return {o: (MALLEABLE if o == base else f"{MALLEABLE}:order={o}")
                for o in self.spec["orders"]}

    def combined_readings(self) -> dict[str, dict]:
        """Every combination of ``reading_factors`` but the main one (each factor's first level).

        Names join the levels that differ from the first, e.g.
        ``ov_zero__expand_blocked``; the overrides merge those levels'.
        """
        factors = self.spec["reading_factors"]
        out = {}
        for combo in itertools.product(*(list(levels.items()) for levels in factors.values())):
            moved = [(f, lvl, over) for f, (lvl, over) in zip(factors, combo)
                     if lvl != next(iter(factors[f]))]
            if moved:
                out["__".join(f"{f}_{lvl}" for f, lvl, _ in moved)] = {
                    k: v for _, _, over in moved for k, v in (over or {}).items()}
        return out

    def readings(self) -> dict[str, dict]:
        """Other readings of the time model: name -> fcfs_malleable parameter overrides
        (the named ones, ``readings``, then every combination of the reading factors)."""
        single = {n: dict(v or {}) for n, v in self.spec["readings"].items()}
        return {**single, **{n: o for n, o in self.combined_readings().items() if n not in single}}

    def portion(self, trace: str, scale: str | None = None) -> dict:
        """CPUs and portion of one trace at a scale: machine_procs, first_job, n_jobs."""
        tp = self.spec["trace_portions"][trace]
        scale = scale or self.scale
        return {"machine_procs": int(tp["machine_procs"]), "first_job": int(tp["first_job"][scale]),
                "n_jobs": int(tp["jobs"][scale])}

    def long_util_portion(self, scale: str | None = None) -> dict:
        """Sect. 5.1's portion at a scale: machine_procs, first_job, n_jobs, config_key.

        ``first_job`` is a position in the cleaned trace or ``"densest"``
        (the window of ``n_jobs`` jobs holding the most long jobs, chosen by
        step ``utrera_prepare_portion``). Without ``long_util.portion``, the
        trace's Fig. 3 portion.
        """
        scale = scale or self.scale
        lu = self.spec["long_util"]
        own = lu.get("portion")
        if not own:
            return {**self.portion(lu["trace"], scale),
                    "config_key": f"studies.{self.key}.trace_portions.{lu['trace']}"}
        first = own["first_job"][scale]
        return {"machine_procs": int(self.spec["trace_portions"][lu["trace"]]["machine_procs"]),
                "first_job": first if first == "densest" else int(first),
                "n_jobs": int(own["jobs"][scale]),
                "config_key": f"studies.{self.key}.long_util.portion"}

    def whole_portion(self, trace: str) -> dict:
        """One whole workload (``whole_workloads.traces``): machine_procs, first_job, n_jobs,
        config_key."""
        v = self.spec[WHOLE]["traces"][trace]
        return {"machine_procs": int(self.spec["trace_portions"][trace]["machine_procs"]),
                "first_job": int(v["first_job"]), "n_jobs": int(v["jobs"]),
                "config_key": f"studies.{self.key}.{WHOLE}.traces.{trace}"}

    def whole_workloads(self, scale: str | None = None) -> dict[str, dict]:
        """Whole workloads run at a scale: trace -> :meth:`whole_portion`; empty at a scale
        not in ``whole_workloads.scales``."""
        if (scale or self.scale) not in self.spec[WHOLE]["scales"]:
            return {}
        return {t: self.whole_portion(t) for t in self.spec[WHOLE]["traces"]}

    def scale_plan(self) -> dict[str, dict]:
        """What paper U runs at each scale (the README's scale lines): ``portions``
        (:meth:`portion`), ``long_util`` (:meth:`long_util_portion`),
        ``long_util_values``, ``ov_seeds``, ``table1_seeds`` and ``whole_workloads``."""
        return {sc: {"portions": {t: self.portion(t, sc) for t in self.spec["trace_portions"]},
                     "long_util": self.long_util_portion(sc),
                     "long_util_values": self.long_util_values(sc),
                     "ov_seeds": len(self.seeds("ov", sc)),
                     "table1_seeds": len(self.seeds("table1", sc)),
                     "whole_workloads": self.whole_workloads(sc)}
                for sc in ("smoke", "default", "full")}

    def lublin_set(self) -> dict:
        """The Lublin parameter set of Table 1 (``lublin.param_sets``)."""
        return self.config["lublin"]["param_sets"][self.spec["table1"]["lublin_params"]]

    def table1_fits(self) -> list[str]:
        """Table 1's fits simulated: the main one (``fit``), then ``fit_alternatives``."""
        t1 = self.spec["table1"]
        return [t1["fit"], *t1["fit_alternatives"]]

    def table1_workload(self, seed, load, fit: str | None = None) -> str:
        """Table 1 workload of a seed and load under a fit (default: the main one)."""
        t1 = self.spec["table1"]
        fit = fit or t1["fit"]
        if fit == "arrivals":
            return lublin_path(t1["lublin_params"], load, seed)
        return f"{T1_DIR}/{fit}/seed{int(seed)}/load{load_tag(load)}.swf.gz"

    def long_util_values(self, scale: str | None = None) -> list[float]:
        """Sect. 5.1's long-job CPU utilizations at a scale."""
        return [float(x) for x in self.spec["long_util"]["values"][scale or self.scale]]

    def long_util_file(self, scale: str | None = None, ext: str = "swf.gz") -> str:
        """Sect. 5.1's portion (``ext`` "json": its record), made by ``utrera_prepare_portion``."""
        trace = self.spec["long_util"]["trace"]
        return f"data/traces/utrera/long_util/{trace}.{scale or self.scale}.{ext}"

    def subtree(self, part: str, scale: str | None = None) -> dict:
        """Everything in the config one part's numbers depend on (the cube's provenance hash)."""
        scale = scale or self.scale
        spec = self.spec
        catalog = self.config["traces"]["catalog"]
        traces = {t: {"file": catalog[t]["file"], "sha256": self.trace_sha256[catalog[t]["file"]],
                      **self.portion(t, scale)} for t in spec["trace_portions"]}
        sub = {"study": self.key, "part": part, "scale": scale,
               "policies": {p: self.policy(p) for p in spec["policies"]},
               "simulation": self.simulation(),
               "trace_cleaning": self.config["traces"].get("cleaning", {})}
        ov = self.seeds("ov", scale)
        if part == "fig2":
            sub.update(fig2=spec["fig2"], readings={
                k: v["params"] for k, v in self.fig2_variants(READINGS).items()})
        elif part == "table1":
            sub.update(table1={**spec["table1"], "seeds": self.seeds("table1", scale),
                               "lublin": self.lublin_set()}, readings=self.reading_labels())
        elif part == "traces":
            sub.update(traces=traces, ov_seeds=ov,
                       variants={k: {"policy": v["policy"], "params": v["params"]}
                                 for k, v in self.trace_variants().items()})
        elif part == "long_util":
            lu = spec["long_util"]
            sub.update(trace={**traces[lu["trace"]], **self.long_util_portion(scale)},
                       ov_seeds=ov, long_util={"values": self.long_util_values(scale),
                                               "mode": lu["mode"]},
                       readings=self.reading_labels())
        elif part == WHOLE:
            sub.update(traces={t: {**traces[t], **v}
                               for t, v in self.whole_workloads(scale).items()},
                       ov_seeds=ov, policies={p: self.policy(p) for p in _COMPARED})
        return sub

    def traces(self) -> list[str]:
        return list(self.spec["trace_portions"])

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot check (names of other config sections, policies'
        parameters, Table 1's loads); ConfigError names the key."""
        from ...policies import POLICIES, make_policy
        super().check()
        spec, where = self.spec, f"config studies.{self.key}"
        catalog = self.config["traces"]["catalog"]
        for i, p in enumerate(spec["fig2"]["policies"]):
            if p not in POLICIES:
                raise ConfigError(f"{where}.fig2.policies[{i}]: unknown policy {p!r}")
        for trace in spec["trace_portions"]:
            if trace not in catalog:
                raise ConfigError(f"{where}.trace_portions.{trace}: unknown trace {trace!r}; "
                                  f"known traces (traces.catalog): {', '.join(sorted(catalog))}")
            if catalog[trace]["file"] not in self.trace_sha256:
                raise ConfigError(f"config traces.catalog.{trace}.file: no pinned sha256 in the "
                                  "manifest")
        named = {"long_util.trace": spec["long_util"]["trace"], "fig1.trace": spec["fig1"]["trace"],
                 **{f"{WHOLE}.traces.{t}": t for t in spec[WHOLE]["traces"]}}
        for key, t in named.items():
            if t not in spec["trace_portions"]:
                raise ConfigError(f"{where}.{key}: {t!r} is not in "
                                  f"studies.{self.key}.trace_portions")
        for factor, levels in spec["reading_factors"].items():
            first = next(iter(levels))
            if levels[first]:
                raise ConfigError(f"{where}.reading_factors.{factor}.{first}: the first level is "
                                  "the main reading's and overrides nothing (make it {})")
        for key, v in self.trace_variants().items():
            try:
                make_policy(v["policy"], **v["params"])
            except ConfigError as exc:
                name = key[8:]
                at = ("orders" if key.startswith("order-") else
                      f"readings.{name}" if name in spec["readings"] else
                      f"reading_factors (combination {name})" if key.startswith("reading-")
                      else f"policies.{key}")
                raise ConfigError(f"{where}.{at}: {exc}") from None
        sets = self.config["lublin"]["param_sets"]
        if spec["table1"]["lublin_params"] not in sets:
            raise ConfigError(f"{where}.table1.lublin_params: unknown parameter set "
                              f"{spec['table1']['lublin_params']!r}; known (lublin.param_sets): "
                              f"{', '.join(sorted(sets))}")
        self._check_table1(f"{where}.table1")
        # The published numbers against their schema, now rather than in a
        # figure step after the simulations ran.
        _ = self.published

    def _check_table1(self, where: str) -> None:
        """No alternative fit repeats the main one; ``sizes`` can reach every load: all jobs
        serial (``n * mean_runtime / (span * CPUs)``) to all machine-wide (``/ span``)."""
        t1, lub = self.spec["table1"], self.lublin_set()
        if t1["fit"] in t1["fit_alternatives"]:
            raise ConfigError(f"{where}.fit_alternatives: {t1['fit']!r} is the main fit "
                              "(table1.fit) already")
        if "sizes" in self.table1_fits():
            work = float(lub.get("n_jobs", 150)) * float(t1["mean_runtime"])
            low, high = work / (float(t1["span"]) * lub.get("machine_size", 128)), work / t1["span"]
            for i, x in enumerate(t1["loads"]):
                if not low < x < high:
                    raise ConfigError(
                        f"{where}.loads[{i}]: load {x} is out of reach of fit: sizes, which "
                        f"offers {low:.3g} (every job serial) to {high:.3g} (every job "
                        f"machine-wide) with mean_runtime {t1['mean_runtime']} s in "
                        f"{t1['span']} s")

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        return [*self.input_steps(), *self.simulation_steps(), self.aggregate_step(),
                *self.figure_steps(), self.claims_step(), self.readme_step()]

    def input_steps(self) -> list[Step]:
        """The trace portions (Table 2) and Table 1's workloads (fits ``sizes``, ``runtimes``)."""
        t1 = self.spec["table1"]
        traces = self.config["traces"]
        trace_re = "|".join(self.spec["trace_portions"])

        def prepare(name, use, portion):
            # Sect. 5.1's own portion and the whole workloads: the same
            # cleaning, another portion (a position or the densest window).
            where = "{use}/" if use else ""
            return Step(
                name, stage="workloads", group="traces",
                message=("Cleaning {wildcards.trace} and keeping paper U's "
                         + ("{wildcards.use} " if use else "") + "portion ({wildcards.scale} scale)"),
                input=lambda w: {"raw": f"data/traces/raw/{w.trace}.swf.gz"},
                output={"swf": f"data/traces/utrera/{where}{{trace}}.{{scale}}.swf.gz",
                        "info": f"data/traces/utrera/{where}{{trace}}.{{scale}}.json",
                        "cleaning_log": f"logs/traces/utrera/{where}{{trace}}.{{scale}}.cleaning.txt"},
                params=lambda w: {"portion": portion(w), "cleaning": traces.get("cleaning") or {},
                                  "unsorted": traces.get("unsorted", "sort")},
                wildcard_constraints={"trace": trace_re,
                                      **({"use": "|".join(PORTION_USES)} if use else {})},
                run="simlib.studies.utrera.workloads:prepare_trace")

        return [
            prepare("utrera_prepare_trace", False, lambda w: self.portion(w.trace, w.scale)),
            prepare("utrera_prepare_portion", True, lambda w: (
                self.long_util_portion(w.scale) if w.use == "long_util"
                else self.whole_portion(w.trace))),
            # One Lublin seed made into one workload per load, all jobs
            # submitted within the span.
            Step(
                "utrera_table1_workloads",
                stage="workloads",
                message=("Fitting Lublin seed {wildcards.seed} into {params.spec[span]} s at "
                         "loads {params.spec[loads]} by {wildcards.fit} (paper U, Table 1)"),
                input=lambda w: {"swf": lublin_path(t1["lublin_params"], None, w.seed)},
                output={"swfs": [f"{T1_DIR}/{{fit}}/seed{{seed}}/load{load_tag(x)}.swf.gz"
                                 for x in t1["loads"]],
                        "info": f"{T1_DIR}/{{fit}}/seed{{seed}}/fit.json"},
                params=lambda w: {
                    "fit": w.fit, "loads": [float(x) for x in t1["loads"]],
                    "span": float(t1["span"]),
                    "machine_size": self.lublin_set().get("machine_size", 128),
                    # Only fit: sizes reads it: no rerun of the other fit on a change.
                    **({"mean_runtime": float(t1["mean_runtime"])} if w.fit == "sizes" else {})},
                wildcard_constraints={"seed": "[0-9]+", "fit": "|".join(T1_OWN_FITS)},
                batch=self.fold(fit=[f for f in self.table1_fits() if f in T1_OWN_FITS],
                                seed=self.seeds("table1")),
                run="simlib.studies.utrera.workloads:table1_workloads"),
        ]

    def _runs(self, policy: str) -> dict:
        """What a chunk of ``policy`` runs: a compared policy, or :data:`READINGS`."""
        if policy == READINGS:
            labels = self.reading_labels()
            return {"policy": MALLEABLE, "variants": labels, "n_readings": len(labels),
                    "seeded": True}
        return {"policy": policy, "policy_params": self.policy(policy),
                "seeded": policy == MALLEABLE}

    def _chunk(self, kind: str, policy: str, scale: str, **extra) -> dict:
        """A simulation chunk's params (:func:`.runs.simulate_chunk`): one point, every seed."""
        seeds = self.seeds("table1" if kind == "table1" else "ov", scale)
        return {"kind": kind, **self._runs(policy), "seeds": seeds, "n_seeds": len(seeds),
                **extra, "simulation": self.simulation()}

    def _points(self, label_policies, readings_apart=False, **values) -> dict:
        # Where runs are short: one job per policy (the readings: one per point
        # with readings_apart, as their runs are long) over every point.
        groups = {}
        points = [dict(zip(values, c)) for c in itertools.product(*values.values())]
        for policy in label_policies:
            if policy == READINGS and readings_apart:
                groups.update({f"{READINGS}_{'_'.join(p.values())}": [{"policy": policy, **p}]
                               for p in points})
            else:
                groups[policy] = [{"policy": policy, **p} for p in points]
        return self.fold_groups(groups)

    def _chunk_step(self, name, message, where, **kw) -> Step:
        """A step of :func:`.runs.simulate_chunk`: one point, every seed, under ``where``
        (every seed's summary, and the first seed's job table and timeline)."""
        root = f"results/runs/utrera/{{scale}}/{where}"
        return Step(name, message=message, output={
            "summary": f"{root}/summary.json", "jobs": f"{root}/jobs.csv",
            "timeline": f"{root}/timeline.csv.gz"}, run=f"{_PACKAGE}.runs:simulate_chunk", **kw)

    def simulation_steps(self) -> list[Step]:
        """Fig. 2's toy example, and one job per point of Table 1, the traces, Sect. 5.1 and
        the whole workloads; the other readings as policy :data:`READINGS`."""
        t1, lu = self.spec["table1"], self.spec["long_util"]
        variants = self.trace_variants
        traces = "|".join(self.spec["trace_portions"])
        policies = [*_COMPARED, *([READINGS] if self.readings() else [])]
        loads = [load_tag(x) for x in t1["loads"]]
        return [
            Step(
                "utrera_fig2", message="Simulating paper U's Fig. 2 example: {wildcards.runs}",
                output={"schedules": "results/runs/utrera/{scale}/fig2/{runs}.json"},
                params=lambda w: {"fig2": self.spec["fig2"], "variants": self.fig2_variants(w.runs),
                                  "simulation": self.simulation()},
                policies=lambda w: list(dict.fromkeys(
                    v["policy"] for v in self.fig2_variants(w.runs).values())),
                wildcard_constraints={"runs": f"schedules|{READINGS}"},
                run=f"{_PACKAGE}.runs:simulate_fig2"),
            self._chunk_step(
                "utrera_simulate_table1", "Simulating {wildcards.policy} on paper U's Table 1 "
                "workloads (fit {wildcards.fit}, load {wildcards.load})",
                "table1/{fit}/{policy}/load{load}",
                input=lambda w: {"swfs": [self.table1_workload(s, float(w.load), w.fit)
                                          for s in self.seeds("table1", w.scale)]},
                params=lambda w: self._chunk(
                    "table1", w.policy, w.scale, cpus=self.lublin_set().get("machine_size", 128),
                    coords={"fit": w.fit, "load": float(w.load)}),
                policies=lambda w: [self._runs(w.policy)["policy"]],
                wildcard_constraints={"policy": "|".join(policies),
                                      "fit": "|".join(self.table1_fits())},
                # The readings on the main fit only (the verdict reads it only).
                batch={**self._points(_COMPARED, fit=self.table1_fits(), load=loads),
                       **self._points(policies[2:], fit=[t1["fit"]], load=loads)}),
            self._chunk_step(
                "utrera_simulate_traces", "Simulating {wildcards.variant} on {wildcards.trace} "
                "(paper U)", "traces/{trace}/{variant}",
                input=lambda w: {"swf": f"data/traces/utrera/{w.trace}.{w.scale}.swf.gz"},
                params=lambda w: {
                    "kind": "traces", "policy": variants()[w.variant]["policy"],
                    "policy_params": variants()[w.variant]["params"],
                    "seeded": variants()[w.variant]["seeded"], "seeds": self.seeds("ov", w.scale),
                    "cpus": self.portion(w.trace, w.scale)["machine_procs"],
                    "coords": {"trace": w.trace, "policy": variants()[w.variant]["label"]},
                    "simulation": self.simulation()},
                policies=lambda w: [variants()[w.variant]["policy"]],
                wildcard_constraints={"trace": traces, "variant": "|".join(variants())},
                # One job per policy over every trace and every variant of it.
                batch=self.fold_groups({p: [{"trace": t, "variant": k} for k, v in variants().items()
                                            if v["policy"] == p for t in self.spec["trace_portions"]]
                                        for p in _COMPARED})),
            self._chunk_step(
                "utrera_simulate_long_util", "Simulating {wildcards.policy} on paper U's Sect. 5.1 "
                "portion, long jobs' CPU utilization {wildcards.util}", "long_util/{policy}/util{util}",
                input=lambda w: {"swf": self.long_util_file(w.scale)},
                params=lambda w: self._chunk(
                    "long_util", w.policy, w.scale, trace=lu["trace"],
                    cpus=self.long_util_portion(w.scale)["machine_procs"],
                    long_util=float(w.util), long_util_mode=lu["mode"],
                    coords={"long_util": float(w.util)}),
                policies=lambda w: [self._runs(w.policy)["policy"]],
                wildcard_constraints={"policy": "|".join(policies), "util": "[0-9]+(\\.[0-9]+)?"},
                batch=self._points(policies, readings_apart=True,
                                   util=[load_tag(u) for u in self.long_util_values()])),
            self._chunk_step(
                "utrera_simulate_whole_workloads", "Simulating {wildcards.policy} on the whole "
                "{wildcards.trace} workload (paper U, Table 2's 'Jobs')", f"{WHOLE}/{{trace}}/{{policy}}",
                input=lambda w: {"swf": f"data/traces/utrera/{WHOLE}/{w.trace}.{w.scale}.swf.gz"},
                params=lambda w: self._chunk(
                    WHOLE, w.policy, w.scale, coords={"trace": w.trace},
                    cpus=int(self.spec["trace_portions"][w.trace]["machine_procs"])),
                policies=lambda w: [w.policy],
                wildcard_constraints={"policy": "|".join(_COMPARED), "trace": traces}),
        ]

    def summaries(self, part: str, scale: str) -> list[str]:
        """Run summaries (chunks) that make one part's cube."""
        root = f"results/runs/utrera/{scale}"
        # The other readings of the time model (one chunk per point, all readings).
        readings = [READINGS] if self.readings() else []
        if part == "fig2":
            return [f"{root}/fig2/{r}.json" for r in ("schedules", *readings)]
        if part == "table1":
            t1 = self.spec["table1"]
            return [f"{root}/table1/{f}/{p}/load{load_tag(x)}/summary.json"
                    for f, p in [*((f, p) for f in self.table1_fits() for p in _COMPARED),
                                 *((t1["fit"], r) for r in readings)]
                    for x in t1["loads"]]
        if part == "traces":
            return [f"{root}/traces/{t}/{v}/summary.json"
                    for t in self.spec["trace_portions"] for v in self.trace_variants()]
        if part == WHOLE:
            return [f"{root}/{WHOLE}/{t}/{p}/summary.json"
                    for t in self.whole_workloads(scale) for p in _COMPARED]
        return [f"{root}/long_util/{p}/util{load_tag(u)}/summary.json"
                for p in (*_COMPARED, *readings) for u in self.long_util_values(scale)]

    def aggregate_step(self) -> Step:
        """One cube per part (:mod:`simlib.studies.utrera.cubes`)."""
        return Step(
            "utrera_aggregate",
            stage="aggregate",
            message="Aggregating paper U's {wildcards.part} runs into {output.cube}",
            input=lambda w: {"summaries": self.summaries(w.part, w.scale)},
            output={"cube": "results/utrera_{part}.{scale}.nc"},
            params=lambda w: {"subtree": self.subtree(w.part, w.scale),
                              "seeds": self.seeds("table1" if w.part == "table1" else "ov",
                                                  w.scale)},
            wildcard_constraints={"part": "|".join((*PARTS, WHOLE))},
            report={"cube": "cube"},
            run=deferred(f"{_PACKAGE}.cubes", "aggregate", study=self.key, repo=self.repo))

    def _figure(self, name, message, input, params, report=("png", "md"), templates=(),
                **files) -> Step:
        """A step of :mod:`.figures` (function ``name``) writing ``files`` into :data:`OUT`,
        from ``input`` and the published numbers; it renders each Markdown file's template
        (``templates/<file>.j2``) and ``templates``."""
        return Step(
            f"utrera_figures_{name}", stage="figures", message=message,
            input={**input, "published": self.published_path},
            output={k: f"{OUT}/{f}" for k, f in files.items()},
            params={"scale": self.scale, **params},
            report={n: "utrera" for n in report},
            templates=[*(f"{f}.j2" for f in files.values() if f.endswith(".md")), *templates],
            run=f"{_FIGURES}:{name}")

    def figure_steps(self) -> list[Step]:
        """Figures and tables of paper_figures/utrera/ (:mod:`simlib.studies.utrera.figures`)."""
        scale, spec = self.scale, self.spec
        fig1, lu = spec["fig1"], spec["long_util"]
        fig1_run = f"results/runs/utrera/{scale}/traces/{fig1['trace']}/easy"
        readings = self.readings()
        whole = self.whole_workloads()
        fig2_runs = ("schedules", *([READINGS] if readings else []))
        return [
            self._figure(
                "fig2", "Drawing paper U's Fig. 2 Gantt charts and its nine numbers",
                {r: f"results/runs/utrera/{scale}/fig2/{r}.json" for r in fig2_runs},
                {"policies": spec["fig2"]["policies"]},
                png="fig2_gantt.png", csv="fig2_numbers.csv", md="fig2_numbers.md",
                readings_csv="fig2_readings.csv"),
            self._figure(
                "table1", "Tabulating and plotting paper U's Table 1 ({params.spec[scale]} scale)",
                {"cube": f"results/utrera_table1.{scale}.nc",
                 "fits": [f"{T1_DIR}/{f}/seed{s}/fit.json" for f in self.table1_fits()
                          if f in T1_OWN_FITS for s in self.seeds("table1")]},
                {"fit": spec["table1"]["fit"], "fits": self.table1_fits(),
                 "tau": self.simulation()["tau"], "lublin": self.lublin_set()},
                templates=["table1_fit.j2"],
                png="table1.png", csv="table1.csv", md="table1.md",
                readings_csv="table1_readings.csv"),
            self._figure(
                "traces", "Drawing paper U's Fig. 3, Tables 2-3, fragmentation, headline, orders "
                          "and readings ({params.spec[scale]} scale)",
                {"cube": f"results/utrera_traces.{scale}.nc",
                 "infos": [f"data/traces/utrera/{t}.{scale}.json" for t in spec["trace_portions"]],
                 "fig1_jobs": f"{fig1_run}/jobs.csv",
                 "fig1_timeline": f"{fig1_run}/timeline.csv.gz"},
                {"traces": list(spec["trace_portions"]), "orders": self.order_labels(),
                 # The main reading first.
                 "readings": {"main": MALLEABLE, **{n: f"{MALLEABLE}:{n}" for n in readings}},
                 "reading_params": {"main": self.policy(MALLEABLE), **readings},
                 # The sensitivity figure draws the named readings only.
                 "plotted_readings": ["main", *spec["readings"]],
                 "fig1": fig1, "fig1_cpus": self.portion(fig1["trace"])["machine_procs"]},
                ("fig3", "fig3_md", "table2_md", "table3_md", "frag_md", "gains_md", "orders",
                 "readings", "fig1", "classes_md"),
                fig3="fig3.png", fig3_csv="fig3.csv", fig3_md="fig3.md",
                table2_csv="table2.csv", table2_md="table2.md",
                table3_csv="table3.csv", table3_md="table3.md",
                frag_csv="fragmentation.csv", frag_md="fragmentation.md",
                gains_csv="headline_gains.csv", gains_md="headline_gains.md",
                orders="orders_ablation.png", orders_csv="orders_ablation.csv",
                readings="time_model_readings.png", readings_csv="time_model_readings.csv",
                classes_md="slowdown_by_class.md", classes_csv="slowdown_by_class.csv",
                fig1="fig1_substitute.png"),
            self._figure(
                "long_util", "Plotting paper U's Sect. 5.1 long-job CPU utilization sweep "
                             "({params.spec[scale]} scale)",
                {"cube": f"results/utrera_long_util.{scale}.nc",
                 "info": self.long_util_file(scale, "json")},
                {"trace": lu["trace"], "mode": lu["mode"], "min_long_jobs": lu["min_long_jobs"],
                 "portion": self.long_util_portion(scale)},
                templates=["long_util_note.j2"],
                png="long_util.png", csv="long_util.csv", md="long_util.md",
                readings_csv="long_util_readings.csv"),
            # Only targeted (artifact) at the scales of whole_workloads.scales.
            self._figure(
                WHOLE, "Comparing paper U's whole workloads with the trace portions "
                       "({params.spec[scale]} scale)",
                {"cube": f"results/utrera_{WHOLE}.{scale}.nc",
                 "portions_cube": f"results/utrera_traces.{scale}.nc",
                 "infos": [f"data/traces/utrera/{WHOLE}/{t}.{scale}.json" for t in whole]},
                {"traces": list(whole), "portions": {t: self.portion(t) for t in whole}},
                ("md",) if whole else (), ["claims.yaml"], csv=f"{WHOLE}.csv", md=f"{WHOLE}.md"),
        ]

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    def claims_step(self) -> Step:
        """paper_figures/utrera/claims.csv: a verdict per claim (:func:`.claims.write_claims`)."""
        tables = {"fig2": "fig2_numbers.csv", "table1": "table1.csv", "table2": "table2.csv",
                  "traces": "fig3.csv", "gains": "headline_gains.csv",
                  "long_util": "long_util.csv", "orders": "orders_ablation.csv"}
        return Step(
            "utrera_claims",
            stage="figures",
            message="Checking paper U's claims on its tables ({params.spec[scale]} scale)",
            input={**{k: f"{OUT}/{f}" for k, f in tables.items()},
                   "published": self.published_path},
            output={"csv": self.claims_file()},
            params={"scale": self.scale},
            report={"csv": "utrera"},
            templates=["claims.yaml"],
            run="simlib.studies.utrera.claims:write_claims")

    def readme_step(self) -> Step:
        """paper_figures/utrera/README.md (:mod:`simlib.studies.utrera.readme`)."""
        scale = self.scale
        mine = self.artifacts()
        tables = {"claims": "claims.csv", "gains": "headline_gains.csv",
                  "orders": "orders_ablation.csv", "readings": "time_model_readings.csv",
                  # Every reading's rows off the traces (the reading x claim matrix).
                  "fig2_readings": "fig2_readings.csv", "table1_readings": "table1_readings.csv",
                  "long_util_readings": "long_util_readings.csv"}
        return Step(
            "utrera_readme",
            stage="report",
            message="Writing paper_figures/utrera/README.md ({params.spec[scale]} scale)",
            input={**{k: f"{OUT}/{f}" for k, f in tables.items()},
                   "published": self.published_path,
                   # Every other artifact: the README comes last.
                   "others": [a.path for a in mine if not a.path.endswith("README.md")]},
            output={"readme": f"{OUT}/README.md"},
            params={"published": self.spec["published"], "scale": scale,
                    "scale_plan": self.scale_plan(),
                    "long_util_trace": self.spec["long_util"]["trace"],
                    "readings": {n: f"{MALLEABLE}:{n}" for n in self.readings()},
                    "single_readings": list(self.spec["readings"]),
                    "reading_factors": self.spec["reading_factors"],
                    "sections": self.titles()["sections"],
                    "artifacts": [a.as_dict() for a in mine]},
            report={"readme": "utrera"},
            templates=["README.md.j2", "claims.yaml"],
            run="simlib.studies.utrera.readme:readme")

    # ---------------------------------------------------------- artifacts
    @staticmethod
    def titles() -> dict:
        """The index titles and the README's sections (:data:`ARTIFACTS`)."""
        import yaml
        return yaml.safe_load(ARTIFACTS.read_text(encoding="utf-8"))

    def artifacts(self) -> list[Artifact]:
        """The figures, tables and cubes (:data:`ARTIFACTS`); the whole workloads' only
        where they run."""
        titles = self.titles()
        whole = bool(self.whole_workloads())
        files = {f: t for f, t in titles["files"].items() if whole or f != f"{WHOLE}.md"}
        parts = [*PARTS, *([WHOLE] if whole else [])]
        return ([Artifact(self.section, f"{OUT}/{name}", title) for name, title in files.items()]
                + [Artifact(self.section, f"results/utrera_{part}.{self.scale}.nc",
                            titles["cubes"][part]) for part in parts])
