"""Paper U (Utrera et al., Euro-Par 2012): FCFS-malleable vs EASY backfilling.

The study ``utrera`` (config ``studies.utrera``, ``config/grids/utrera.yaml``;
published numbers in ``config/published/utrera.yaml``) rebuilds every table
and figure of the paper into ``paper_figures/utrera/``. Its parts, each one cube:

========= ============================================== ===========================
part      what                                           cube dims
========= ============================================== ===========================
fig2      the toy example, simulated (Gantt charts)      policy
table1    Lublin workloads of 150 jobs in 2 h per load   fit, policy, load, seed
          (the main fit and its alternatives)
traces    three PWA trace portions, EASY vs FCFS-mall.,  trace, policy, seed
          other candidate orders and time-model readings
long_util Sect. 5.1: SDSC, long jobs' CPU utilization    policy, long_util, seed
          (on its own portion, by default the 10,000
          jobs holding the most long jobs)
whole_    Table 2's "Jobs" read as whole workloads       trace, policy, seed
workloads (EASY, FCFS-malleable; ``whole_workloads``,
          by default at full scale only)
========= ============================================== ===========================

The class below reads and checks the config and declares the steps; the
work is done by the package's modules, each imported only by the steps
that use it (so editing a figure reruns no simulation):

* :mod:`~simlib.studies.utrera.workloads` -- trace portions, Table 1's
  workloads;
* :mod:`~simlib.studies.utrera.runs` -- the simulations;
* :mod:`~simlib.studies.utrera.metrics` -- what one run measures (the
  paper's metrics);
* :mod:`~simlib.studies.utrera.cubes` -- the cubes;
* :mod:`~simlib.studies.utrera.report` -- published numbers, tables,
  one criterion function per claim (step ``utrera_claims``);
* :mod:`~simlib.studies.utrera.figures` -- the figure and table steps;
* :mod:`~simlib.studies.utrera.readme` -- ``paper_figures/utrera/README.md``.

Every other reading of the time model (named ``readings`` and every
combination of ``reading_factors``) runs as policy ``fcfs_malleable:<name>``
on the traces, on Table 1's main-fit workloads, on Sect. 5.1's points and on
Fig. 2's example, with the main runs' workloads and seeds: the README's
reading x claim matrix (every reading of a point in one job).

Seeds: inner sweeps (the seeds) run inside one job per point, so the DAG
stays small: one simulation job per (policy, load) for Table 1, per (trace,
policy variant) on the traces, per (policy, utilization) for Sect. 5.1, per
(trace, policy) for the whole workloads.
fcfs_malleable's OV overhead is drawn from the seed index; EASY on a fixed
workload draws nothing and is simulated once.
"""
from __future__ import annotations

from ...errors import ConfigError
from ..base import Artifact, Step, Study, deferred, load_tag, lublin_path

__all__ = ["Utrera", "EASY", "MALLEABLE", "PARTS", "WHOLE", "OUT"]

#: The study's figures and tables.
OUT = "paper_figures/utrera"
#: Table 1's workloads (fits ``sizes`` and ``runtimes``), one directory per fit and seed.
T1_DIR = "data/workloads/utrera/table1"
#: Table 1's fits that build their own workloads (``arrivals`` uses the Lublin rule's).
T1_OWN_FITS = ("sizes", "runtimes")
#: The paper's parts, one cube each, in index order.
PARTS = ("fig2", "table1", "traces", "long_util")
#: The optional part: Table 2's "Jobs" column read as whole workloads (its cube
#: and ``whole_workloads.md`` only at the scales of ``whole_workloads.scales``).
WHOLE = "whole_workloads"
#: Portions of the traces other than Fig. 3's, one directory each (step
#: ``utrera_prepare_portion``): Sect. 5.1's and the whole workloads.
PORTION_USES = ("long_util", WHOLE)
#: Default of ``long_util.min_long_jobs``.
MIN_LONG_JOBS = 20
#: The two policies compared everywhere.
EASY, MALLEABLE = "easy", "fcfs_malleable"
_COMPARED = (EASY, MALLEABLE)

# Modules doing the work (imported when a step runs, see _deferred).
_WORKLOADS = f"{__name__}.workloads"
_RUNS = f"{__name__}.runs"
_CUBES = f"{__name__}.cubes"
_FIGURES = f"{__name__}.figures"
_REPORT = f"{__name__}.report"
_README = f"{__name__}.readme"

#: Index entries under paper_figures/utrera/: file name, title (in index order).
_ARTIFACTS = [
    ("fig2_gantt.png", "Fig. 2: Gantt charts of FCFS, EASY and FCFS-malleable on the toy "
     "example, rendered from simulation, with the paper's nine numbers"),
    ("fig2_numbers.md", "Fig. 2: the nine numbers (average response, slowdown, fragmentation), "
     "ours vs published"),
    ("table1.png", "Table 1: Lublin workloads (150 jobs in 2 h) at 30-90 % load, ours (mean ± "
     "95 % CI over seeds) vs the paper's S and R columns, and the gains"),
    ("table1.md", "Table 1 as a table: ours vs published S and R"),
    ("table2.md", "Table 2: workload characteristics of the trace portions (CPUs, jobs, CPU "
     "utilization, long jobs' utilization, Req.Cpus/Cpus readings) vs published"),
    ("fig3.png", "Fig. 3 (a)-(d): average wait, execution, response time and slowdown per "
     "trace, EASY vs FCFS-malleable (95 % CI over OV seeds)"),
    ("fig3.md", "Fig. 3's values as a table"),
    ("table3.md", "Table 3: average MPL per trace and policy vs published"),
    ("fragmentation.md", "Fragmentation (formula 2) per trace and policy vs published"),
    ("headline_gains.md", "Headline claim (28 % slowdown, 31 % response) recomputed: gains of "
     "FCFS-malleable over EASY per trace and averaged"),
    ("orders_ablation.png", "Ablation: the four candidate orders for shrinking/expanding "
     "(oldest, least CPU utilization, longest, shortest)"),
    ("time_model_readings.png", "Sensitivity: FCFS-malleable / EASY under other readings of "
     "the time model (OV = 0, OV on all work, expanding jobs started shrunk)"),
    ("long_util.png", "Sect. 5.1: SDSC re-simulated with the long jobs' CPU utilization from "
     "60 % to 100 %"),
    ("long_util.md", "Sect. 5.1 values as a table, with the portion simulated and its long jobs"),
    ("slowdown_by_class.md", "Sect. 5.1: average slowdown per job class (runtime under / over "
     "3 min x under / over 16 processes), per trace and policy"),
    ("fig1_substitute.png", "Fig. 1 SUBSTITUTE: one week of utilization and wait queue of a "
     "PWA trace simulated under EASY (MareNostrum data are not public)"),
    ("claims.csv", "Every tested claim of paper U: published and reproduced numbers, the "
     "criterion and the verdict (the README's verdicts, as data)"),
    ("README.md", "Paper U: every artifact with published vs reproduced numbers, a verdict "
     "per claim, scale, seeds and interpretation choices"),
]
#: Index titles of the cubes.
_CUBE_TITLES = {
    "fig2": "Cube (netCDF): Fig. 2 metrics, dims (policy; FCFS-malleable also under each "
            "time-model reading)",
    "table1": "Cube (netCDF): Table 1 runs, dims (fit, policy, load, seed; the main fit also "
              "under each time-model reading)",
    "traces": "Cube (netCDF): trace runs (Fig. 3, Tables 2-3, orders, readings), dims "
              "(trace, policy, seed)",
    "long_util": "Cube (netCDF): Sect. 5.1 runs, dims (policy, long_util, seed; FCFS-malleable "
                 "also under each time-model reading)",
    WHOLE: "Cube (netCDF): whole-workload runs (Table 2's 'Jobs' as workload sizes), dims "
           "(trace, policy, seed)",
}
#: Index entry of the whole workloads' table (at the scales that run them).
_WHOLE_ARTIFACT = ("whole_workloads.md", "Table 2's 'Jobs' column read as whole workloads: "
                   "Fig. 3's four metrics, Table 3's MPL and fragmentation on them, beside "
                   "the portions' and the paper's, and the claims on the traces under this "
                   "reading")


class Utrera(Study):
    """Paper U: FCFS-malleable (virtual malleability) vs EASY backfilling.

    Examples
    --------
    >>> from simlib.studies import study_class
    >>> registry = {"utrera": "simlib.studies.utrera:Utrera"}
    >>> study_class("utrera", {"registry": registry}) is Utrera, Utrera.section
    (True, 'utrera')
    """

    key = "utrera"
    section = "utrera"
    title = "Utrera et al. (utrera): FCFS-malleable"
    schema = "utrera.schema.json"
    published_loader = ".report"

    # ------------------------------------------------------------ config
    def seeds(self, kind: str, scale: str | None = None) -> list[int]:
        """Seed indices of a part: ``"table1"`` (workload and OV) or ``"ov"`` (traces)."""
        n = self.spec["table1"]["seeds"] if kind == "table1" else self.spec["ov_seeds"]
        return list(range(int(n[scale or self.scale])))

    def policy(self, name: str) -> dict:
        """Parameters of one of the compared policies."""
        return dict(self.spec["policies"].get(name) or {})

    def trace_variants(self) -> dict[str, dict]:
        """Policies run on the traces: key (path-safe) -> policy, params, label, seeded.

        "easy" and "fcfs_malleable" (Fig. 3, Tables 2-3), one key per other
        candidate order (ablation) and per time-model reading (sensitivity).
        The label is the cube's policy coordinate.
        """
        base = self.policy("fcfs_malleable")
        out = {"easy": dict(policy="easy", params=self.policy("easy"), label="easy", seeded=False),
               "fcfs_malleable": dict(policy="fcfs_malleable", params=base, label="fcfs_malleable",
                                      seeded=True)}
        for order in self.spec["orders"]:
            if order != base.get("order", "oldest"):
                out[f"order-{order}"] = dict(policy="fcfs_malleable",
                                             params={**base, "order": order},
                                             label=f"fcfs_malleable:order={order}", seeded=True)
        for name, v in self.reading_variants().items():
            out[f"reading-{name}"] = dict(policy="fcfs_malleable", params=v["params"],
                                          label=v["label"], seeded=True)
        return out

    def reading_variants(self) -> dict[str, dict]:
        """Every other reading of the time model: name -> label, params.

        ``label`` is its policy coordinate in every cube
        (``fcfs_malleable:<name>``), ``params`` the main fcfs_malleable
        parameters with the reading's overrides (:meth:`readings`). They run
        on the traces (:meth:`trace_variants`), on Table 1's main-fit
        workloads, on Sect. 5.1's points and on Fig. 2's example (there under
        ``fig2.malleable_params``, see :meth:`fig2_reading_params`).
        """
        base = self.policy(MALLEABLE)
        return {name: {"label": f"{MALLEABLE}:{name}", "params": {**base, **over}}
                for name, over in self.readings().items()}

    def reading_labels(self) -> dict[str, dict]:
        """The readings as a chunk's ``variants``: policy label -> fcfs_malleable parameters."""
        return {v["label"]: v["params"] for v in self.reading_variants().values()}

    def fig2_reading_params(self) -> dict[str, dict]:
        """Fig. 2's fcfs_malleable under each reading: policy label -> parameters.

        The example's own parameters (``fig2.malleable_params``: the paper's
        footnote, no overhead) apply on top of the reading's overrides: the
        footnote defines the example, so every reading runs it with OV = 0
        and the OV factor cannot change it; the expansion factor (and
        ``expand_started_shrunk``) can. The example's jobs carry no CPU
        utilization, so the util factor cannot either (trace_mean of none
        falls back to ``missing_cpu_util``).
        """
        own = dict(self.spec["fig2"].get("malleable_params") or {})
        return {v["label"]: {**v["params"], **own} for v in self.reading_variants().values()}

    def order_labels(self) -> dict[str, str]:
        """Candidate order -> its policy label in the traces cube."""
        base = self.policy("fcfs_malleable").get("order", "oldest")
        return {o: ("fcfs_malleable" if o == base else f"fcfs_malleable:order={o}")
                for o in self.spec["orders"]}

    def single_readings(self) -> dict[str, dict]:
        """The grid's named readings (``readings``): name -> fcfs_malleable overrides."""
        return {n: dict(v or {}) for n, v in (self.spec.get("readings") or {}).items()}

    def combined_readings(self) -> dict[str, dict]:
        """Every combination of ``reading_factors`` but the main one (each factor's first level).

        Names join the levels that differ from the first, e.g.
        ``ov_zero__expand_blocked``; the overrides merge those levels'.
        """
        import itertools
        factors = self.spec.get("reading_factors") or {}
        names = list(factors)
        out = {}
        for combo in itertools.product(*(list(factors[f].items()) for f in names)):
            moved = [(f, lvl, over) for f, (lvl, over) in zip(names, combo)
                     if lvl != next(iter(factors[f]))]
            if not moved:
                continue
            out["__".join(f"{f}_{lvl}" for f, lvl, _ in moved)] = {
                k: v for _, _, over in moved for k, v in (over or {}).items()}
        return out

    def readings(self) -> dict[str, dict]:
        """Other readings of the time model: name -> fcfs_malleable parameter overrides
        (the named ones, then every combination of the reading factors)."""
        single = self.single_readings()
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

        Examples
        --------
        >>> from simlib.studies.utrera import Utrera
        >>> u = Utrera({"scale": "smoke", "studies": {"utrera": {
        ...     "trace_portions": {"T": {"machine_procs": 8, "first_job": {"smoke": 5},
        ...                              "jobs": {"smoke": 10}}},
        ...     "long_util": {"trace": "T", "portion": {"first_job": {"smoke": "densest"},
        ...                                             "jobs": {"smoke": 4}}}}}})
        >>> p = u.long_util_portion()
        >>> p["machine_procs"], p["first_job"], p["n_jobs"], p["config_key"]
        (8, 'densest', 4, 'studies.utrera.long_util.portion')
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

    def min_long_jobs(self) -> int:
        """Sect. 5.1: fewer long jobs in its portion and the claim is not testable here."""
        return int(self.spec["long_util"].get("min_long_jobs", MIN_LONG_JOBS))

    def whole_workloads(self, scale: str | None = None) -> dict[str, dict]:
        """Whole workloads run at a scale: trace -> machine_procs, first_job, n_jobs, config_key.

        Empty at a scale not in ``whole_workloads.scales`` (default: full only).
        """
        ww = self.spec.get(WHOLE) or {}
        if (scale or self.scale) not in ww.get("scales", ["full"]):
            return {}
        return {t: {"machine_procs": int(self.spec["trace_portions"][t]["machine_procs"]),
                    "first_job": int(v["first_job"]), "n_jobs": int(v["jobs"]),
                    "config_key": f"studies.{self.key}.{WHOLE}.traces.{t}"}
                for t, v in (ww.get("traces") or {}).items()}

    def other_portion(self, use: str, trace: str, scale: str | None = None) -> dict:
        """The portion of step ``utrera_prepare_portion``: ``use`` is one of :data:`PORTION_USES`."""
        if use == "long_util":
            return self.long_util_portion(scale)
        ww = self.spec.get(WHOLE) or {}
        v = (ww.get("traces") or {})[trace]
        return {"machine_procs": int(self.spec["trace_portions"][trace]["machine_procs"]),
                "first_job": int(v["first_job"]), "n_jobs": int(v["jobs"]),
                "config_key": f"studies.{self.key}.{WHOLE}.traces.{trace}"}

    def scale_plan(self) -> dict[str, dict]:
        """What paper U runs at each scale (the README's scale line).

        Per scale: ``portions`` (Fig. 3's, as :meth:`portion`),
        ``long_util`` (:meth:`long_util_portion`), ``long_util_values``,
        ``ov_seeds``, ``table1_seeds`` and ``whole_workloads``
        (:meth:`whole_workloads`, empty when not run).
        """
        return {sc: {"portions": {t: self.portion(t, sc) for t in self.spec["trace_portions"]},
                     "long_util": self.long_util_portion(sc),
                     "long_util_values": self.long_util_values(sc),
                     "ov_seeds": len(self.seeds("ov", sc)),
                     "table1_seeds": len(self.seeds("table1", sc)),
                     "whole_workloads": self.whole_workloads(sc)}
                for sc in ("smoke", "default", "full")}

    def lublin_set(self) -> dict:
        """The Lublin parameter set of Table 1 (``lublin.param_sets``)."""
        sets = (self.config.get("lublin") or {}).get("param_sets") or {}
        return sets[self.spec["table1"]["lublin_params"]]

    def table1_fits(self) -> list[str]:
        """Table 1's fits simulated: the main one (``fit``), then ``fit_alternatives``."""
        t1 = self.spec["table1"]
        return [t1["fit"], *(f for f in t1.get("fit_alternatives") or [] if f != t1["fit"])]

    def table1_workload(self, seed, load, fit: str | None = None) -> str:
        """Table 1 workload of a seed and load under a fit (default: the main one)."""
        t1 = self.spec["table1"]
        fit = fit or t1["fit"]
        if fit == "arrivals":
            return lublin_path(t1["lublin_params"], load, seed)
        return f"{T1_DIR}/{fit}/seed{int(seed)}/load{load_tag(load)}.swf.gz"

    def table1_load_range(self) -> tuple[float, float]:
        """Loads ``fit: sizes`` can reach: all jobs serial to all machine-wide.

        ``n * mean_runtime / (span * CPUs)`` and ``n * mean_runtime / span``
        (the workload step checks the exact range of each seed's runtimes).
        """
        t1, lub = self.spec["table1"], self.lublin_set()
        work = float(lub.get("n_jobs", 150)) * float(t1["mean_runtime"])
        return (work / (float(t1["span"]) * lub.get("machine_size", 128)),
                work / float(t1["span"]))

    def long_util_values(self, scale: str | None = None) -> list[float]:
        """Sect. 5.1's long-job CPU utilizations at a scale."""
        return [float(x) for x in self.spec["long_util"]["values"][scale or self.scale]]

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
               "trace_cleaning": self.config["traces"].get("cleaning", {}),
               "policy_modules": list(self.config.get("policy_modules") or [])}
        if part == "fig2":
            sub["fig2"] = spec["fig2"]
            sub["readings"] = self.fig2_reading_params()
        elif part == "table1":
            sub["table1"] = {**spec["table1"], "seeds": self.seeds("table1", scale),
                             "lublin": self.lublin_set()}
            sub["readings"] = self.reading_labels()
        elif part == "traces":
            sub.update(traces=traces, ov_seeds=self.seeds("ov", scale),
                       variants={k: {"policy": v["policy"], "params": v["params"]}
                                 for k, v in self.trace_variants().items()})
        elif part == "long_util":
            lu = spec["long_util"]
            sub.update(trace={**traces[lu["trace"]], **self.long_util_portion(scale)},
                       ov_seeds=self.seeds("ov", scale),
                       long_util={"values": self.long_util_values(scale),
                                  "mode": lu.get("mode", "set")},
                       readings=self.reading_labels())
        elif part == WHOLE:
            sub.update(traces={t: {**traces[t], **v}
                               for t, v in self.whole_workloads(scale).items()},
                       ov_seeds=self.seeds("ov", scale),
                       policies={p: self.policy(p) for p in _COMPARED})
        return sub

    def traces(self) -> list[str]:
        return list(self.spec["trace_portions"])

    # ------------------------------------------------------------- checks
    def check(self) -> None:
        """What the schema cannot check; ConfigError names the key."""
        from ...policies import POLICIES, make_policy
        super().check()
        spec, where = self.spec, f"config studies.{self.key}"
        catalog = self.config["traces"]["catalog"]
        for p in _COMPARED:
            if p not in spec["policies"]:
                raise ConfigError(f"{where}.policies: the study compares easy and "
                                  f"fcfs_malleable; {p!r} is missing")
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
        for key in ("long_util", "fig1"):
            t = spec[key]["trace"]
            if t not in spec["trace_portions"]:
                raise ConfigError(f"{where}.{key}.trace: {t!r} is not in "
                                  f"studies.{self.key}.trace_portions")
        for t in ((spec.get(WHOLE) or {}).get("traces") or {}):
            if t not in spec["trace_portions"]:
                raise ConfigError(f"{where}.{WHOLE}.traces.{t}: {t!r} is not in "
                                  f"studies.{self.key}.trace_portions (its CPUs come from there)")
        for factor, levels in (spec.get("reading_factors") or {}).items():
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
                      f"readings.{name}" if name in self.single_readings() else
                      f"reading_factors (combination {name})" if key.startswith("reading-")
                      else f"policies.{key}")
                raise ConfigError(f"{where}.{at}: {exc}") from None
        sets = (self.config.get("lublin") or {}).get("param_sets") or {}
        if spec["table1"]["lublin_params"] not in sets:
            raise ConfigError(f"{where}.table1.lublin_params: unknown parameter set "
                              f"{spec['table1']['lublin_params']!r}; known (lublin.param_sets): "
                              f"{', '.join(sorted(sets))}")
        self._check_table1(f"{where}.table1")
        # The published numbers against their schema, now rather than in a
        # figure step after the simulations ran.
        _ = self.published  # read and validated (Study.published)

    def _check_table1(self, where: str) -> None:
        """Table 1's fits: no alternative repeats the main one; ``sizes`` can reach every load."""
        t1 = self.spec["table1"]
        if t1["fit"] in (t1.get("fit_alternatives") or []):
            raise ConfigError(f"{where}.fit_alternatives: {t1['fit']!r} is the main fit "
                              "(table1.fit) already")
        if "sizes" in self.table1_fits():
            low, high = self.table1_load_range()
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
        return [
            Step(
                "utrera_prepare_trace",
                stage="workloads",
                group="traces",
                message=("Cleaning {wildcards.trace} and keeping paper U's portion "
                         "({wildcards.scale} scale)"),
                input=lambda w: {"raw": f"data/traces/raw/{w.trace}.swf.gz"},
                output={"swf": "data/traces/utrera/{trace}.{scale}.swf.gz",
                        "info": "data/traces/utrera/{trace}.{scale}.json",
                        "cleaning_log": "logs/traces/utrera/{trace}.{scale}.cleaning.txt"},
                params=lambda w: {"portion": self.portion(w.trace, w.scale),
                                  "cleaning": traces.get("cleaning") or {},
                                  "unsorted": traces.get("unsorted", "sort")},
                wildcard_constraints={"trace": "|".join(self.spec["trace_portions"])},
                code=[_WORKLOADS],
                run=deferred(_WORKLOADS, "prepare_trace")),
            # Sect. 5.1's own portion and the whole workloads: the same
            # cleaning, another portion (a position or the densest window).
            Step(
                "utrera_prepare_portion",
                stage="workloads",
                group="traces",
                message=("Cleaning {wildcards.trace} and keeping paper U's {wildcards.use} "
                         "portion ({wildcards.scale} scale)"),
                input=lambda w: {"raw": f"data/traces/raw/{w.trace}.swf.gz"},
                output={"swf": "data/traces/utrera/{use}/{trace}.{scale}.swf.gz",
                        "info": "data/traces/utrera/{use}/{trace}.{scale}.json",
                        "cleaning_log": "logs/traces/utrera/{use}/{trace}.{scale}.cleaning.txt"},
                params=lambda w: {"portion": self.other_portion(w.use, w.trace, w.scale),
                                  "cleaning": traces.get("cleaning") or {},
                                  "unsorted": traces.get("unsorted", "sort")},
                wildcard_constraints={"trace": "|".join(self.spec["trace_portions"]),
                                      "use": "|".join(PORTION_USES)},
                code=[_WORKLOADS],
                run=deferred(_WORKLOADS, "prepare_trace")),
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
                code=[_WORKLOADS],
                run=deferred(_WORKLOADS, "table1_workloads")),
        ]

    def _traces_batch(self) -> dict:
        # Where runs are short: one job per policy over every trace and every
        # variant (order, reading) of that policy.
        by_policy = {}
        for key, v in self.trace_variants().items():
            by_policy.setdefault(v["policy"], []).extend(
                {"trace": t, "variant": key} for t in self.spec["trace_portions"])
        return self.fold_groups(by_policy)

    def _chunk_outputs(self, where: str) -> dict[str, str]:
        # Every seed's summary, and the first seed's job table and timeline.
        root = f"results/runs/utrera/{{scale}}/{where}"
        return {"summary": f"{root}/summary.json", "jobs": f"{root}/jobs.csv",
                "timeline": f"{root}/timeline.csv.gz"}

    def simulation_steps(self) -> list[Step]:
        """Fig. 2's toy example, and one job per point of Table 1, the traces and Sect. 5.1."""
        fig2, lu_trace = self.spec["fig2"], self.spec["long_util"]["trace"]
        variants = self.trace_variants
        compared = "|".join(_COMPARED)
        return [
            Step(
                "utrera_fig2",
                message=("Simulating paper U's Fig. 2 toy example under {params.spec[policies]} "
                         "({wildcards.scale})"),
                output={"schedules": "results/runs/utrera/{scale}/fig2/schedules.json"},
                params={"fig2": fig2, "policies": fig2["policies"],
                        "malleable": self.policy("fcfs_malleable"),
                        "simulation": self.simulation()},
                policies=list(fig2["policies"]),
                code=[_RUNS],
                run=deferred(_RUNS, "simulate_fig2")),
            Step(
                "utrera_simulate_table1",
                message=("Simulating {wildcards.policy} on paper U's Table 1 workloads (fit "
                         "{wildcards.fit}) at load {wildcards.load}, {params.spec[n_seeds]} seeds "
                         "({wildcards.scale})"),
                input=lambda w: {"swfs": [self.table1_workload(s, float(w.load), w.fit)
                                          for s in self.seeds("table1", w.scale)]},
                output=self._chunk_outputs("table1/{fit}/{policy}/load{load}"),
                params=lambda w: {
                    "kind": "table1", "policy": w.policy, "policy_params": self.policy(w.policy),
                    "seeded": w.policy == "fcfs_malleable",
                    "seeds": self.seeds("table1", w.scale),
                    "n_seeds": len(self.seeds("table1", w.scale)),
                    "cpus": self.lublin_set().get("machine_size", 128),
                    "coords": {"fit": w.fit, "load": float(w.load)},
                    "simulation": self.simulation()},
                policies=lambda w: [w.policy],
                wildcard_constraints={"policy": compared,
                                      "fit": "|".join(self.table1_fits())},
                code=[_RUNS],
                # Where runs are short: one job per policy over fits x loads.
                batch=self.fold(fit=self.table1_fits(),
                                load=map(load_tag, self.spec["table1"]["loads"])),
                run=deferred(_RUNS, "simulate_chunk")),
            Step(
                "utrera_simulate_traces",
                message=("Simulating {wildcards.variant} on {wildcards.trace} "
                         "(paper U, {wildcards.scale})"),
                input=lambda w: {"swf": f"data/traces/utrera/{w.trace}.{w.scale}.swf.gz"},
                output=self._chunk_outputs("traces/{trace}/{variant}"),
                params=lambda w: {
                    "kind": "traces", "policy": variants()[w.variant]["policy"],
                    "policy_params": variants()[w.variant]["params"],
                    "seeded": variants()[w.variant]["seeded"], "seeds": self.seeds("ov", w.scale),
                    "cpus": self.portion(w.trace, w.scale)["machine_procs"],
                    "coords": {"trace": w.trace, "policy": variants()[w.variant]["label"]},
                    "simulation": self.simulation()},
                policies=lambda w: [variants()[w.variant]["policy"]],
                wildcard_constraints={"trace": "|".join(self.spec["trace_portions"]),
                                      "variant": "|".join(variants())},
                batch=self._traces_batch(),
                code=[_RUNS],
                run=deferred(_RUNS, "simulate_chunk")),
            Step(
                "utrera_simulate_long_util",
                message=("Simulating {wildcards.policy} on {params.spec[trace]} with long jobs' "
                         "CPU utilization {wildcards.util} (paper U, Sect. 5.1, "
                         "{wildcards.scale})"),
                input=lambda w: {"swf": self.long_util_file(w.scale)},
                output=self._chunk_outputs("long_util/{policy}/util{util}"),
                params=lambda w: {
                    "kind": "long_util", "trace": lu_trace, "policy": w.policy,
                    "policy_params": self.policy(w.policy), "seeded": w.policy == "fcfs_malleable",
                    "seeds": self.seeds("ov", w.scale),
                    "cpus": self.long_util_portion(w.scale)["machine_procs"],
                    "long_util": float(w.util),
                    "long_util_mode": self.spec["long_util"].get("mode", "set"),
                    "coords": {"long_util": float(w.util), "policy": w.policy},
                    "simulation": self.simulation()},
                policies=lambda w: [w.policy],
                wildcard_constraints={"policy": compared, "util": "[0-9]+(\\.[0-9]+)?"},
                code=[_RUNS],
                batch=self.fold(util=map(load_tag, self.long_util_values())),
                run=deferred(_RUNS, "simulate_chunk")),
            Step(
                "utrera_simulate_whole_workloads",
                message=("Simulating {wildcards.policy} on the whole {wildcards.trace} workload "
                         "(paper U, Table 2's 'Jobs' as workload sizes, {wildcards.scale})"),
                input=lambda w: {"swf": f"data/traces/utrera/{WHOLE}/{w.trace}.{w.scale}.swf.gz"},
                output=self._chunk_outputs(f"{WHOLE}/{{trace}}/{{policy}}"),
                params=lambda w: {
                    "kind": WHOLE, "policy": w.policy, "policy_params": self.policy(w.policy),
                    "seeded": w.policy == MALLEABLE, "seeds": self.seeds("ov", w.scale),
                    "cpus": int(self.spec["trace_portions"][w.trace]["machine_procs"]),
                    "coords": {"trace": w.trace, "policy": w.policy},
                    "simulation": self.simulation()},
                policies=lambda w: [w.policy],
                wildcard_constraints={"policy": compared,
                                      "trace": "|".join(self.spec["trace_portions"])},
                code=[_RUNS],
                run=deferred(_RUNS, "simulate_chunk")),
            # The other readings of the time model on the parts off the traces
            # (the reading x claim matrix): every reading of a point in one
            # job, paired with the main runs (same workloads and seeds).
            Step(
                "utrera_fig2_readings",
                message=("Simulating paper U's Fig. 2 toy example under every reading of the "
                         "time model ({wildcards.scale})"),
                output={"schedules": "results/runs/utrera/{scale}/fig2/readings.json"},
                params={"fig2": fig2, "variants": self.fig2_reading_params(),
                        "simulation": self.simulation()},
                policies=[MALLEABLE],
                code=[_RUNS],
                run=deferred(_RUNS, "simulate_fig2_readings")),
            Step(
                "utrera_simulate_table1_readings",
                message=("Simulating fcfs_malleable under {params.spec[n_readings]} readings on "
                         "paper U's Table 1 workloads (fit {wildcards.fit}) at load "
                         "{wildcards.load}, {params.spec[n_seeds]} seeds ({wildcards.scale})"),
                input=lambda w: {"swfs": [self.table1_workload(s, float(w.load), w.fit)
                                          for s in self.seeds("table1", w.scale)]},
                output=self._chunk_outputs("table1/{fit}/readings/load{load}"),
                params=lambda w: {
                    "kind": "table1", "policy": MALLEABLE, "variants": self.reading_labels(),
                    "n_readings": len(self.reading_labels()), "seeded": True,
                    "seeds": self.seeds("table1", w.scale),
                    "n_seeds": len(self.seeds("table1", w.scale)),
                    "cpus": self.lublin_set().get("machine_size", 128),
                    "coords": {"fit": w.fit, "load": float(w.load)},
                    "simulation": self.simulation()},
                policies=[MALLEABLE],
                # The verdict reads the main fit only.
                wildcard_constraints={"fit": self.spec["table1"]["fit"]},
                code=[_RUNS],
                batch=self.fold(load=map(load_tag, self.spec["table1"]["loads"])),
                run=deferred(_RUNS, "simulate_chunk")),
            Step(
                "utrera_simulate_long_util_readings",
                message=("Simulating fcfs_malleable under {params.spec[n_readings]} readings on "
                         "{params.spec[trace]} with long jobs' CPU utilization {wildcards.util} "
                         "(paper U, Sect. 5.1, {wildcards.scale})"),
                input=lambda w: {"swf": self.long_util_file(w.scale)},
                output=self._chunk_outputs("long_util/readings/util{util}"),
                params=lambda w: {
                    "kind": "long_util", "trace": lu_trace, "policy": MALLEABLE,
                    "variants": self.reading_labels(), "n_readings": len(self.reading_labels()),
                    "seeded": True, "seeds": self.seeds("ov", w.scale),
                    "cpus": self.long_util_portion(w.scale)["machine_procs"],
                    "long_util": float(w.util),
                    "long_util_mode": self.spec["long_util"].get("mode", "set"),
                    "coords": {"long_util": float(w.util)},
                    "simulation": self.simulation()},
                policies=[MALLEABLE],
                wildcard_constraints={"util": "[0-9]+(\\.[0-9]+)?"},
                code=[_RUNS],
                batch=self.fold(util=map(load_tag, self.long_util_values())),
                run=deferred(_RUNS, "simulate_chunk")),
        ]

    def long_util_file(self, scale: str | None = None, ext: str = "swf.gz") -> str:
        """Sect. 5.1's portion (``ext`` "json": its record), made by ``utrera_prepare_portion``."""
        trace = self.spec["long_util"]["trace"]
        return f"data/traces/utrera/long_util/{trace}.{scale or self.scale}.{ext}"

    def summaries(self, part: str, scale: str) -> list[str]:
        """Run summaries (chunks) that make one part's cube."""
        root = f"results/runs/utrera/{scale}"
        # The other readings of the time model (one chunk per point, all readings).
        readings = ["readings"] if self.readings() else []
        if part == "fig2":
            return [f"{root}/fig2/schedules.json",
                    *(f"{root}/fig2/readings.json" for _ in readings)]
        if part == "table1":
            main = self.spec["table1"]["fit"]
            return [f"{root}/table1/{f}/{p}/load{load_tag(x)}/summary.json"
                    for f in self.table1_fits() for p in _COMPARED
                    for x in self.spec["table1"]["loads"]] + [
                f"{root}/table1/{main}/{r}/load{load_tag(x)}/summary.json"
                for r in readings for x in self.spec["table1"]["loads"]]
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
            code=[_CUBES],
            run=deferred(_CUBES, "aggregate", study=self.key, repo=self.repo))

    def figure_steps(self) -> list[Step]:
        """Figures and tables of paper_figures/utrera/ (:mod:`simlib.studies.utrera.figures`)."""
        scale, spec = self.scale, self.spec
        published = self.published_path
        fig1, lu = spec["fig1"], spec["long_util"]
        fig1_run = f"results/runs/utrera/{scale}/traces/{fig1['trace']}/easy"
        readings = self.readings()
        whole = self.whole_workloads()

        def outputs(**files):
            return {name: f"{OUT}/{f}" for name, f in files.items()}

        def mark(*names):
            return {n: "utrera" for n in names}

        return [
            Step(
                "utrera_figures_fig2",
                stage="figures",
                message="Drawing paper U's Fig. 2 Gantt charts and its nine numbers",
                input={"schedules": f"results/runs/utrera/{scale}/fig2/schedules.json",
                       **({"readings": f"results/runs/utrera/{scale}/fig2/readings.json"}
                          if readings else {}),
                       "published": published},
                output=outputs(png="fig2_gantt.png", csv="fig2_numbers.csv", md="fig2_numbers.md",
                               readings_csv="fig2_readings.csv"),
                params={"scale": scale, "policies": spec["fig2"]["policies"]},
                report=mark("png", "md"),
                code=[_FIGURES],
                run=deferred(_FIGURES, "fig2")),
            Step(
                "utrera_figures_table1",
                stage="figures",
                message="Tabulating and plotting paper U's Table 1 ({params.spec[scale]} scale)",
                input={"cube": f"results/utrera_table1.{scale}.nc",
                       "fits": [f"{T1_DIR}/{f}/seed{s}/fit.json" for f in self.table1_fits()
                                if f in T1_OWN_FITS for s in self.seeds("table1")],
                       "published": published},
                output=outputs(png="table1.png", csv="table1.csv", md="table1.md",
                               readings_csv="table1_readings.csv"),
                params={"scale": scale, "fit": spec["table1"]["fit"], "fits": self.table1_fits(),
                        "tau": self.simulation()["tau"], "lublin": self.lublin_set()},
                report=mark("png", "md"),
                code=[_FIGURES],
                run=deferred(_FIGURES, "table1")),
            Step(
                "utrera_figures_traces",
                stage="figures",
                message=("Drawing paper U's Fig. 3, Tables 2-3, fragmentation, headline, orders "
                         "and readings ({params.spec[scale]} scale)"),
                input={"cube": f"results/utrera_traces.{scale}.nc",
                       "infos": [f"data/traces/utrera/{t}.{scale}.json"
                                 for t in spec["trace_portions"]],
                       "fig1_jobs": f"{fig1_run}/jobs.csv",
                       "fig1_timeline": f"{fig1_run}/timeline.csv.gz",
                       "published": published},
                output=outputs(
                    fig3="fig3.png", fig3_csv="fig3.csv", fig3_md="fig3.md",
                    table2_csv="table2.csv", table2_md="table2.md",
                    table3_csv="table3.csv", table3_md="table3.md",
                    frag_csv="fragmentation.csv", frag_md="fragmentation.md",
                    gains_csv="headline_gains.csv", gains_md="headline_gains.md",
                    orders="orders_ablation.png", orders_csv="orders_ablation.csv",
                    readings="time_model_readings.png", readings_csv="time_model_readings.csv",
                    classes_md="slowdown_by_class.md", classes_csv="slowdown_by_class.csv",
                    fig1="fig1_substitute.png"),
                params={"scale": scale, "traces": list(spec["trace_portions"]),
                        "orders": self.order_labels(),
                        # The main reading first.
                        "readings": {"main": "fcfs_malleable",
                                     **{n: f"fcfs_malleable:{n}" for n in readings}},
                        "reading_params": {"main": self.policy("fcfs_malleable"), **readings},
                        # The sensitivity figure draws the named readings only.
                        "plotted_readings": ["main", *self.single_readings()],
                        "fig1": fig1,
                        "fig1_cpus": self.portion(fig1["trace"])["machine_procs"]},
                report=mark("fig3", "fig3_md", "table2_md", "table3_md", "frag_md", "gains_md",
                            "orders", "readings", "fig1", "classes_md"),
                code=[_FIGURES],
                run=deferred(_FIGURES, "traces")),
            Step(
                "utrera_figures_long_util",
                stage="figures",
                message=("Plotting paper U's Sect. 5.1 long-job CPU utilization sweep "
                         "({params.spec[scale]} scale)"),
                input={"cube": f"results/utrera_long_util.{scale}.nc",
                       "info": self.long_util_file(scale, "json"),
                       "published": published},
                output=outputs(png="long_util.png", csv="long_util.csv", md="long_util.md",
                               readings_csv="long_util_readings.csv"),
                params={"scale": scale, "trace": lu["trace"], "mode": lu.get("mode", "set"),
                        "min_long_jobs": self.min_long_jobs(),
                        "portion": self.long_util_portion(scale)},
                report=mark("png", "md"),
                code=[_FIGURES],
                run=deferred(_FIGURES, "long_util")),
            # Only targeted (artifact) at the scales of whole_workloads.scales.
            Step(
                "utrera_figures_whole_workloads",
                stage="figures",
                message=("Comparing paper U's whole workloads with the trace portions "
                         "({params.spec[scale]} scale)"),
                input={"cube": f"results/utrera_{WHOLE}.{scale}.nc",
                       "portions_cube": f"results/utrera_traces.{scale}.nc",
                       "infos": [f"data/traces/utrera/{WHOLE}/{t}.{scale}.json" for t in whole],
                       "published": published},
                output=outputs(csv=f"{WHOLE}.csv", md=f"{WHOLE}.md"),
                params={"scale": scale, "traces": list(whole),
                        "portions": {t: self.portion(t) for t in whole}},
                report=mark("md") if whole else {},
                code=[_FIGURES],
                run=deferred(_FIGURES, "whole_workloads")),
        ]

    def claims_file(self) -> str:
        return f"{OUT}/claims.csv"

    def claims_step(self) -> Step:
        """paper_figures/utrera/claims.csv: a verdict per claim (:func:`.report.write_claims`)."""
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
            code=[_REPORT],
            run=deferred(_REPORT, "write_claims"))

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
                    "scale_description": self.config["scales"][scale].get("description", ""),
                    "portions": {t: self.portion(t) for t in self.spec["trace_portions"]},
                    "table1_seeds": len(self.seeds("table1")), "ov_seeds": len(self.seeds("ov")),
                    "long_util_values": self.long_util_values(),
                    "scale_plan": self.scale_plan(),
                    "long_util_trace": self.spec["long_util"]["trace"],
                    "readings": {n: f"fcfs_malleable:{n}" for n in self.readings()},
                    "single_readings": list(self.single_readings()),
                    "reading_factors": self.spec.get("reading_factors") or {},
                    "artifacts": [a.as_dict() for a in mine]},
            report={"readme": "utrera"},
            code=[_README],
            run=deferred(_README, "readme"))

    # ---------------------------------------------------------- artifacts
    def artifacts(self) -> list[Artifact]:
        """The figures, tables and cubes; the whole workloads' only where they run."""
        entries, parts = list(_ARTIFACTS), list(PARTS)
        if self.whole_workloads():
            entries.insert(len(entries) - 2, _WHOLE_ARTIFACT)  # before claims.csv, README.md
            parts.append(WHOLE)
        return ([Artifact(self.section, f"{OUT}/{name}", title) for name, title in entries]
                + [Artifact(self.section, f"results/utrera_{part}.{self.scale}.nc",
                            _CUBE_TITLES[part]) for part in parts])
