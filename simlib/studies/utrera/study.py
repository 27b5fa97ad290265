"""Paper U's study: reads and checks the grid, declares the steps (see the package)."""
from __future__ import annotations

import functools
import itertools
from pathlib import Path

from ...errors import ConfigError
from ..base import Artifact, Step, Study, check_policies, deferred, load_tag, lublin_path
from ..user_policies import merge_policies, policy_sources
from . import EASY, MALLEABLE, OUT, PARTS, READINGS, WHOLE

__all__ = ["Utrera"]

#: Table 1's workloads (fits ``sizes`` and ``runtimes``), one directory per fit and seed.
T1_DIR = "data/workloads/utrera/table1"
#: Table 1's fits that build their own workloads (``arrivals`` uses the Lublin rule's).
T1_OWN_FITS = ("sizes", "runtimes")
#: Portions of the traces other than Fig. 3's (step ``utrera_prepare_portion``).
PORTION_USES = ("long_util", WHOLE)
#: The steps' messages and files, the index titles and the README's sections.
ARTIFACTS = Path(__file__).with_name("artifacts.yaml")
_PACKAGE = __name__.rpartition(".")[0]
_RUNS = "results/runs/utrera"


@functools.lru_cache(maxsize=1)
def declared() -> dict:
    """:data:`ARTIFACTS`: the index titles, the README's sections and the steps."""
    from ...io import read_yaml
    return read_yaml(ARTIFACTS)


class Utrera(Study):
    """Paper U: FCFS-malleable (virtual malleability) vs EASY backfilling."""

    key = "utrera"
    section = "utrera"
    title = "Utrera et al. (utrera): FCFS-malleable"
    schema = "utrera.schema.json"
    published_loader = ".published"
    #: The config's extra_policies run beside EASY wherever EASY is compared
    #: with FCFS-malleable: the traces (Fig. 3, Tables 2-3), Table 1's
    #: workloads, Sect. 5.1 and the whole workloads; not in Fig. 2's toy
    #: example, the candidate orders or the time-model readings, which study
    #: FCFS-malleable itself.
    extra_policies_refused = ""

    def add_extra_policies(self, spec: dict, extra) -> dict:
        """``spec`` with ``extra`` in ``policies`` and their names in ``extra_policies``.

        Raises
        ------
        ConfigError
            When an extra policy has the name of a paper policy or of the
            readings' wildcard value (:data:`READINGS`).
        """
        if READINGS in extra:
            raise ConfigError(f"config extra_policies.{READINGS}: the name of paper U's "
                              "time-model readings in its file names; register yours under "
                              "another name")
        spec["policies"] = merge_policies(self.key, spec["policies"], extra)
        # Kept in the grid so that every step, which rebuilds its study from
        # the grid, knows them.
        spec["extra_policies"] = list(extra)
        return spec

    # ------------------------------------------------------------ config
    @property
    def extra(self) -> tuple[str, ...]:
        """The user's policies (config ``extra_policies``) run beside EASY, in config order."""
        return tuple(self.spec.get("extra_policies") or ())

    def compared(self) -> tuple[str, ...]:
        """The policies of the comparisons: EASY, the user's (:attr:`extra`), FCFS-malleable."""
        return (EASY, *self.extra, MALLEABLE)

    def seeded(self, name: str) -> bool:
        """Whether runs of compared policy ``name`` take the seed: FCFS-malleable's OV draws;
        a user's policy when it draws with its parameters (``Policy.draws``); EASY never."""
        from ...policies import POLICIES
        if name in self.extra:
            return bool(POLICIES[name].draws(self.policy(name)))
        return name == MALLEABLE

    def seeds(self, kind: str, scale: str | None = None) -> list[int]:
        """Seed indices of a part: ``"table1"`` (workload and OV) or ``"ov"`` (the others)."""
        n = self.spec["table1"]["seeds"] if kind == "table1" else self.spec["ov_seeds"]
        return list(range(int(n[scale or self.scale])))

    def policy(self, name: str) -> dict:
        """Parameters of one of the compared policies."""
        return dict(self.spec["policies"][name] or {})

    def readings(self) -> dict[str, dict]:
        """Other readings of the time model: name -> fcfs_malleable parameter overrides.

        The named ones (``readings``), then every combination of the levels
        of ``reading_factors`` but the main one (each factor's first level),
        named by the levels that differ from the first (e.g.
        ``ov_zero__expand_blocked``), their overrides merged.
        """
        out = {n: dict(v or {}) for n, v in self.spec["readings"].items()}
        factors = self.spec["reading_factors"]
        for combo in itertools.product(*(list(levels.items()) for levels in factors.values())):
            moved = [(f, lvl, over) for f, (lvl, over) in zip(factors, combo)
                     if lvl != next(iter(factors[f]))]
            if moved:
                out.setdefault("__".join(f"{f}_{lvl}" for f, lvl, _ in moved),
                               {k: v for *_, over in moved for k, v in (over or {}).items()})
        return out

    def reading_labels(self) -> dict[str, dict]:
        """Every other reading: its policy label in every cube (``fcfs_malleable:<name>``) ->
        the main fcfs_malleable parameters with its overrides (:meth:`readings`)."""
        base = self.policy(MALLEABLE)
        return {f"{MALLEABLE}:{name}": {**base, **over} for name, over in self.readings().items()}

    def order_labels(self) -> dict[str, str]:
        """Candidate order -> its policy label in the traces cube."""
        base = self.policy(MALLEABLE).get("order", "oldest")
        return {o: (MALLEABLE if o == base else f"{MALLEABLE}:order={o}")
                for o in self.spec["orders"]}

    def trace_variants(self) -> dict[str, dict]:
        """Policies run on the traces: key (path-safe) -> policy, params, label, seeded.

        "easy", the user's policies (:attr:`extra`) and "fcfs_malleable"
        (Fig. 3, Tables 2-3), one key per other candidate order (ablation)
        and per time-model reading (sensitivity). The label is the cube's
        policy coordinate.
        """
        def variant(params, label, policy=MALLEABLE, seeded=True):
            return {"policy": policy, "params": params, "label": label, "seeded": seeded}
        base = self.policy(MALLEABLE)
        out = {EASY: variant(self.policy(EASY), EASY, EASY, False),
               **{p: variant(self.policy(p), p, p, self.seeded(p)) for p in self.extra},
               MALLEABLE: variant(base, MALLEABLE)}
        out.update({f"order-{o}": variant({**base, "order": o}, label)
                    for o, label in self.order_labels().items() if label != MALLEABLE})
        out.update({f"reading-{label.partition(':')[2]}": variant(params, label)
                    for label, params in self.reading_labels().items()})
        return out

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

    def _readings_runs(self) -> list[str]:
        """:data:`READINGS` when there are other readings: the runs of every one of them."""
        return [READINGS] if self.readings() else []

    def _fig2_runs(self) -> list[str]:
        return ["schedules", *self._readings_runs()]

    def _portion(self, trace: str, first, n_jobs, key: str | None = None) -> dict:
        """A portion of a trace: machine_procs, first_job (a position, or ``"densest"``: the
        window of ``n_jobs`` jobs holding the most long jobs, chosen by step
        ``utrera_prepare_portion``), n_jobs, and the config key it comes from (``key``)."""
        return {"machine_procs": int(self.spec["trace_portions"][trace]["machine_procs"]),
                "first_job": first if first == "densest" else int(first), "n_jobs": int(n_jobs),
                **({"config_key": f"studies.{self.key}.{key}"} if key else {})}

    def portion(self, trace: str, scale: str | None = None) -> dict:
        """Fig. 3's portion of one trace at a scale (:meth:`_portion`)."""
        tp, scale = self.spec["trace_portions"][trace], scale or self.scale
        return self._portion(trace, tp["first_job"][scale], tp["jobs"][scale])

    def long_util_portion(self, scale: str | None = None) -> dict:
        """Sect. 5.1's portion at a scale (``long_util.portion``; without it, the trace's Fig. 3
        portion)."""
        scale, lu = scale or self.scale, self.spec["long_util"]
        own = lu.get("portion") or self.spec["trace_portions"][lu["trace"]]
        key = "long_util.portion" if lu.get("portion") else f"trace_portions.{lu['trace']}"
        return self._portion(lu["trace"], own["first_job"][scale], own["jobs"][scale], key)

    def whole_portion(self, trace: str) -> dict:
        """One whole workload (``whole_workloads.traces``)."""
        v = self.spec[WHOLE]["traces"][trace]
        return self._portion(trace, v["first_job"], v["jobs"], f"{WHOLE}.traces.{trace}")

    def whole_workloads(self, scale: str | None = None) -> dict[str, dict]:
        """Whole workloads run at a scale: trace -> :meth:`whole_portion`; empty at a scale
        not in ``whole_workloads.scales``."""
        if (scale or self.scale) not in self.spec[WHOLE]["scales"]:
            return {}
        return {t: self.whole_portion(t) for t in self.spec[WHOLE]["traces"]}

    def scale_plan(self) -> dict[str, dict]:
        """What paper U runs at each scale (the README's scale lines)."""
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

    def table1_workload(self, seed, load, fit: str) -> str:
        """Table 1 workload of a seed and load under a fit."""
        if fit == "arrivals":
            return lublin_path(self.spec["table1"]["lublin_params"], load, seed)
        return f"{T1_DIR}/{fit}/seed{int(seed)}/load{load_tag(load)}.swf.gz"

    def long_util_values(self, scale: str | None = None) -> list[float]:
        """Sect. 5.1's long-job CPU utilizations at a scale."""
        return [float(x) for x in self.spec["long_util"]["values"][scale or self.scale]]

    def long_util_file(self, scale: str, ext: str = "swf.gz") -> str:
        """Sect. 5.1's portion (``ext`` "json": its record), made by ``utrera_prepare_portion``."""
        return f"data/traces/utrera/long_util/{self.spec['long_util']['trace']}.{scale}.{ext}"

    def subtree(self, part: str, scale: str | None = None) -> dict:
        """Everything in the config one part's numbers depend on (the cube's provenance hash).

        A part with the user's policies (every part but Fig. 2's) also holds
        their modules' files and hashes (``policy_sources``), so editing one
        rebuilds the cube.
        """
        scale, spec = scale or self.scale, self.spec
        policies = [p for p in spec["policies"] if part != "fig2" or p not in self.extra]
        catalog = self.config["traces"]["catalog"]
        traces = {t: {"file": catalog[t]["file"], "sha256": self.trace_sha256[catalog[t]["file"]],
                      **self.portion(t, scale)} for t in spec["trace_portions"]}
        sub = {"study": self.key, "part": part, "scale": scale,
               "policies": {p: self.policy(p) for p in policies},
               "simulation": self.simulation(),
               "trace_cleaning": self.config["traces"].get("cleaning", {})}
        ov, lu = self.seeds("ov", scale), spec["long_util"]
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
            sub.update(trace={**traces[lu["trace"]], **self.long_util_portion(scale)},
                       ov_seeds=ov, long_util={"values": self.long_util_values(scale),
                                               "mode": lu["mode"]},
                       readings=self.reading_labels())
        elif part == WHOLE:
            sub.update(traces={t: {**traces[t], **v}
                               for t, v in self.whole_workloads(scale).items()}, ov_seeds=ov)
        sources = policy_sources(policies)
        if sources:
            sub["policy_sources"] = sources
        return sub

    def traces(self) -> list[str]:
        return list(self.spec["trace_portions"])

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot check (names of other config sections, policies'
        parameters, Table 1's loads); ConfigError names the key."""
        from ...policies import POLICIES, make_policy
        # The user's policies first, under their own config key.
        check_policies("config extra_policies", {p: self.policy(p) for p in self.extra})
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
                raise ConfigError(f"{where}.{key}: {t!r} is not in studies.{self.key}.trace_portions")
        for factor, levels in spec["reading_factors"].items():
            first = next(iter(levels))
            if levels[first]:
                raise ConfigError(f"{where}.reading_factors.{factor}.{first}: the first level is "
                                  "the main reading's and overrides nothing (make it {})")
        for key, v in self.trace_variants().items():
            try:
                make_policy(v["policy"], **v["params"])
            except ConfigError as exc:
                if key in self.extra:
                    raise ConfigError(f"config extra_policies.{key}: {exc}") from None
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
        if "sizes" not in self.table1_fits():
            return
        work = float(lub.get("n_jobs", 150)) * float(t1["mean_runtime"])
        low, high = work / (float(t1["span"]) * lub.get("machine_size", 128)), work / t1["span"]
        for i, x in enumerate(t1["loads"]):
            if not low < x < high:
                raise ConfigError(
                    f"{where}.loads[{i}]: load {x} is out of reach of fit: sizes, which offers "
                    f"{low:.3g} (every job serial) to {high:.3g} (every job machine-wide) with "
                    f"mean_runtime {t1['mean_runtime']} s in {t1['span']} s")

    # -------------------------------------------------------------- steps
    def steps(self) -> list[Step]:
        return [*self.input_steps(), *self.simulation_steps(), self.aggregate_step(),
                *self.output_steps()]

    @staticmethod
    def _step(name: str, **kw) -> Step:
        """Step ``name`` with its message (:data:`ARTIFACTS`)."""
        return Step(name, message=declared()["steps"][name]["message"], **kw)

    def input_steps(self) -> list[Step]:
        """The trace portions (Table 2) and Table 1's workloads (fits ``sizes``, ``runtimes``)."""
        t1, traces = self.spec["table1"], self.config["traces"]

        def prepare(name, use, portion):
            # Sect. 5.1's own portion and the whole workloads: the same
            # cleaning, another portion (a position or the densest window).
            where = "{use}/" if use else ""
            data = f"data/traces/utrera/{where}{{trace}}.{{scale}}"
            return self._step(
                name, stage="workloads", group="traces",
                input=lambda w: {"raw": f"data/traces/raw/{w.trace}.swf.gz"},
                output={"swf": f"{data}.swf.gz", "info": f"{data}.json", "cleaning_log":
                        f"logs/traces/utrera/{where}{{trace}}.{{scale}}.cleaning.txt"},
                params=lambda w: {"portion": portion(w), "cleaning": traces.get("cleaning") or {},
                                  "unsorted": traces.get("unsorted", "sort")},
                wildcard_constraints={"trace": "|".join(self.spec["trace_portions"]),
                                      **({"use": "|".join(PORTION_USES)} if use else {})},
                run=f"{_PACKAGE}.workloads:prepare_trace")

        return [
            prepare("utrera_prepare_trace", False, lambda w: self.portion(w.trace, w.scale)),
            prepare("utrera_prepare_portion", True, lambda w: (
                self.long_util_portion(w.scale) if w.use == "long_util"
                else self.whole_portion(w.trace))),
            # One Lublin seed made into one workload per load, all jobs
            # submitted within the span.
            self._step(
                "utrera_table1_workloads", stage="workloads",
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
                run=f"{_PACKAGE}.workloads:table1_workloads"),
        ]

    def _runs(self, policy: str) -> dict:
        """What a chunk of ``policy`` runs: a compared policy, or :data:`READINGS`."""
        if policy == READINGS:
            labels = self.reading_labels()
            return {"policy": MALLEABLE, "variants": labels, "n_readings": len(labels),
                    "seeded": True}
        return {"policy": policy, "policy_params": self.policy(policy),
                "seeded": self.seeded(policy)}

    def _chunk(self, kind: str, scale: str, runs: dict, **extra) -> dict:
        """A simulation chunk's params (:func:`.runs.simulate_chunk`): one point, every seed."""
        seeds = self.seeds("table1" if kind == "table1" else "ov", scale)
        return {"kind": kind, **runs, "seeds": seeds, "n_seeds": len(seeds), **extra,
                "simulation": self.simulation()}

    def _trace_chunk(self, w) -> dict:
        v = self.trace_variants()[w.variant]
        return self._chunk("traces", w.scale, {"policy": v["policy"], "policy_params": v["params"],
                                               "seeded": v["seeded"]},
                           cpus=self.portion(w.trace, w.scale)["machine_procs"],
                           coords={"trace": w.trace, "policy": v["label"]})

    def points(self, part: str, scale: str | None = None) -> list[dict]:
        """The simulation chunks of a part (one job each, every seed inside), as wildcards;
        the other readings of the time model (:data:`READINGS`) as one more policy."""
        readings = self._readings_runs()
        if part == "table1":
            t1 = self.spec["table1"]
            # The readings on the main fit only (the verdict reads it only).
            pairs = [*((f, p) for f in self.table1_fits() for p in self.compared()),
                     *((t1["fit"], r) for r in readings)]
            return [{"fit": f, "policy": p, "load": load_tag(x)} for f, p in pairs for x in t1["loads"]]
        if part == "traces":
            return [{"trace": t, "variant": v} for t in self.spec["trace_portions"]
                    for v in self.trace_variants()]
        if part == "long_util":
            return [{"policy": p, "util": load_tag(u)} for p in (*self.compared(), *readings)
                    for u in self.long_util_values(scale)]
        return [{"trace": t, "policy": p} for t in self.whole_workloads(scale)
                for p in self.compared()]

    def _batch(self, part: str) -> dict:
        """Where runs are short: one job per policy over every point of a part (the readings
        of Sect. 5.1: one per point, as their runs are long)."""
        variants, groups = self.trace_variants(), {}
        for p in self.points(part):
            label = variants[p["variant"]]["policy"] if part == "traces" else p["policy"]
            groups.setdefault(f"{READINGS}_{p['util']}" if label == READINGS and part == "long_util"
                              else label, []).append(p)
        return self.fold_groups(groups)

    def _chunk_step(self, part: str, **kw) -> Step:
        """Step ``utrera_simulate_<part>`` (:func:`.runs.simulate_chunk`): one point, every seed
        (every seed's summary, and the first seed's job table and timeline)."""
        name = f"utrera_simulate_{part}"
        root = f"{_RUNS}/{{scale}}/{declared()['steps'][name]['runs']}"
        kw.setdefault("policies", lambda w: [self._runs(w.policy)["policy"]])
        return self._step(name, output={
            "summary": f"{root}/summary.json", "jobs": f"{root}/jobs.csv",
            "timeline": f"{root}/timeline.csv.gz"}, run=f"{_PACKAGE}.runs:simulate_chunk", **kw)

    def simulation_steps(self) -> list[Step]:
        """Fig. 2's toy example, and one job per point of Table 1, the traces, Sect. 5.1 and
        the whole workloads (:meth:`points`)."""
        lu, variants = self.spec["long_util"], self.trace_variants
        traces = "|".join(self.spec["trace_portions"])
        policies = "|".join([*self.compared(), *self._readings_runs()])
        return [
            self._step(
                "utrera_fig2", output={"schedules": f"{_RUNS}/{{scale}}/fig2/{{runs}}.json"},
                params=lambda w: {"fig2": self.spec["fig2"], "variants": self.fig2_variants(w.runs),
                                  "simulation": self.simulation()},
                policies=lambda w: list(dict.fromkeys(
                    v["policy"] for v in self.fig2_variants(w.runs).values())),
                wildcard_constraints={"runs": f"schedules|{READINGS}"},
                run=f"{_PACKAGE}.runs:simulate_fig2"),
            self._chunk_step(
                "table1",
                input=lambda w: {"swfs": [self.table1_workload(s, float(w.load), w.fit)
                                          for s in self.seeds("table1", w.scale)]},
                params=lambda w: self._chunk(
                    "table1", w.scale, self._runs(w.policy), coords={"fit": w.fit, "load": float(w.load)},
                    cpus=self.lublin_set().get("machine_size", 128)),
                wildcard_constraints={"policy": policies, "fit": "|".join(self.table1_fits())},
                batch=self._batch("table1")),
            self._chunk_step(
                "traces", input=lambda w: {"swf": f"data/traces/utrera/{w.trace}.{w.scale}.swf.gz"},
                params=self._trace_chunk, policies=lambda w: [variants()[w.variant]["policy"]],
                wildcard_constraints={"trace": traces, "variant": "|".join(variants())},
                batch=self._batch("traces")),
            self._chunk_step(
                "long_util", input=lambda w: {"swf": self.long_util_file(w.scale)},
                params=lambda w: self._chunk(
                    "long_util", w.scale, self._runs(w.policy), trace=lu["trace"],
                    cpus=self.long_util_portion(w.scale)["machine_procs"],
                    long_util=float(w.util), long_util_mode=lu["mode"],
                    coords={"long_util": float(w.util)}),
                wildcard_constraints={"policy": policies, "util": "[0-9]+(\\.[0-9]+)?"},
                batch=self._batch("long_util")),
            self._chunk_step(
                WHOLE, input=lambda w: {"swf": f"data/traces/utrera/{WHOLE}/{w.trace}.{w.scale}.swf.gz"},
                params=lambda w: self._chunk(
                    WHOLE, w.scale, self._runs(w.policy), coords={"trace": w.trace},
                    cpus=int(self.spec["trace_portions"][w.trace]["machine_procs"])),
                wildcard_constraints={"policy": "|".join(self.compared()), "trace": traces}),
        ]

    def summaries(self, part: str, scale: str) -> list[str]:
        """Run summaries (chunks) that make one part's cube."""
        if part == "fig2":
            return [f"{_RUNS}/{scale}/fig2/{r}.json" for r in self._fig2_runs()]
        runs = declared()["steps"][f"utrera_simulate_{part}"]["runs"]
        return [f"{_RUNS}/{scale}/{runs.format(**p)}/summary.json" for p in self.points(part, scale)]

    def aggregate_step(self) -> Step:
        """One cube per part (:mod:`simlib.studies.utrera.cubes`)."""
        return self._step(
            "utrera_aggregate", stage="aggregate",
            input=lambda w: {"summaries": self.summaries(w.part, w.scale)},
            output={"cube": "results/utrera_{part}.{scale}.nc"},
            params=lambda w: {"subtree": self.subtree(w.part, w.scale),
                              "seeds": self.seeds("table1" if w.part == "table1" else "ov",
                                                  w.scale)},
            wildcard_constraints={"part": "|".join((*PARTS, WHOLE))},
            report={"cube": "cube"},
            run=deferred(f"{_PACKAGE}.cubes", "aggregate", study=self.key, repo=self.repo))

    def _out_step(self, name: str, input=None, params=None, report=None) -> Step:
        """Step ``name`` writing into :data:`OUT` as :data:`ARTIFACTS` declares it, from
        ``input`` (besides its declared inputs) and the published numbers."""
        d = declared()["steps"][name]
        out = d["outputs"]
        return self._step(
            name, stage=d.get("stage", "figures"),
            input={**{k: f"{OUT}/{f}" for k, f in d.get("inputs", {}).items()}, **(input or {}),
                   "published": self.published_path},
            output={k: f"{OUT}/{f}" for k, f in out.items()},
            params={"scale": self.scale, **(params or {})},
            report={k: "utrera" for k in (d.get("report", ["png", "md"]) if report is None else report)},
            templates=[*(f"{f}.j2" for f in out.values() if f.endswith(".md")),
                       *d.get("templates", [])],
            run=f"{_PACKAGE}.{d['run']}")

    def output_steps(self) -> list[Step]:
        """The figures and tables (:mod:`.figures`), the claims (:mod:`.claims`) and the
        README (:mod:`.readme`) of paper_figures/utrera/."""
        scale, spec = self.scale, self.spec
        fig1, lu, t1 = spec["fig1"], spec["long_util"], spec["table1"]
        fig1_run = f"{_RUNS}/{scale}/traces/{fig1['trace']}/easy"
        readings, whole = self.readings(), self.whole_workloads()
        artifacts = self.artifacts()
        return [
            self._out_step(
                "utrera_figures_fig2",
                {r: f"{_RUNS}/{scale}/fig2/{r}.json" for r in self._fig2_runs()},
                {"policies": spec["fig2"]["policies"]}),
            self._out_step(
                "utrera_figures_table1",
                {"cube": f"results/utrera_table1.{scale}.nc",
                 "fits": [f"{T1_DIR}/{f}/seed{s}/fit.json" for f in self.table1_fits()
                          if f in T1_OWN_FITS for s in self.seeds("table1")]},
                {"fit": t1["fit"], "fits": self.table1_fits(), "tau": self.simulation()["tau"],
                 "lublin": self.lublin_set()}),
            self._out_step(
                "utrera_figures_traces",
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
                 "fig1": fig1, "fig1_cpus": self.portion(fig1["trace"])["machine_procs"]}),
            self._out_step(
                "utrera_figures_long_util",
                {"cube": f"results/utrera_long_util.{scale}.nc",
                 "info": self.long_util_file(scale, "json")},
                {"trace": lu["trace"], "mode": lu["mode"], "min_long_jobs": lu["min_long_jobs"],
                 "portion": self.long_util_portion(scale)}),
            # Only an artifact at the scales of whole_workloads.scales.
            self._out_step(
                "utrera_figures_whole_workloads",
                {"cube": f"results/utrera_{WHOLE}.{scale}.nc",
                 "portions_cube": f"results/utrera_traces.{scale}.nc",
                 "infos": [f"data/traces/utrera/{WHOLE}/{t}.{scale}.json" for t in whole]},
                {"traces": list(whole), "portions": {t: self.portion(t) for t in whole}},
                report=None if whole else []),
            self._out_step("utrera_claims"),
            self._out_step(
                "utrera_readme",
                # Every other artifact: the README comes last.
                {"others": [a.path for a in artifacts if not a.path.endswith("README.md")]},
                {"published": spec["published"], "scale_plan": self.scale_plan(),
                 "long_util_trace": lu["trace"],
                 "readings": {n: f"{MALLEABLE}:{n}" for n in readings},
                 "single_readings": list(spec["readings"]),
                 "reading_factors": spec["reading_factors"],
                 "sections": declared()["sections"],
                 "artifacts": [a.as_dict() for a in artifacts],
                 # Only with some: without, the step's parameters are unchanged.
                 **({"extra_policies": list(self.extra)} if self.extra else {})}),
        ]

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    # ---------------------------------------------------------- artifacts
    def artifacts(self) -> list[Artifact]:
        """The figures, tables and cubes (:data:`ARTIFACTS`); the whole workloads' only
        where they run."""
        titles, whole = declared(), bool(self.whole_workloads())
        files = {f: t for f, t in titles["files"].items() if whole or f != f"{WHOLE}.md"}
        parts = [*PARTS, *([WHOLE] if whole else [])]
        return ([Artifact(self.section, f"{OUT}/{name}", title) for name, title in files.items()]
                + [Artifact(self.section, f"results/utrera_{part}.{self.scale}.nc",
                            titles["cubes"][part]) for part in parts])
