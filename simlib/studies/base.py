"""The shape every reproduced paper takes: a :class:`Study` of :class:`Step` s.

A study is what the pipeline knows of a paper (or of the baseline): it
reads its own config sub-tree, checks it before any job runs, and declares
its *steps* -- rule templates with output patterns, inputs, tracked
parameters and the function that does the work. The Snakemake side is
generic (``workflow/rules/studies.smk`` turns every step of every enabled
study into one rule; ``workflow/scripts/run_step.py`` runs one), so adding a
paper is one study package, one grid file and one published-numbers file.
``docs/adding_a_study.md`` walks through a small example.

A step's function receives a :class:`StepContext` (its files, parameters,
wildcards, logger and the config), never the Snakemake object, so study
code runs and is tested without Snakemake.

Examples
--------
>>> class Tiny(Study):
...     key = "tiny"
...     def steps(self):
...         return [Step("tiny_hello", output={"txt": "results/tiny/{scale}/hello.txt"},
...                      run=self.hello, message="Saying hello")]
...     def hello(self, ctx):
...         ctx.log.info("hello")
>>> t = Tiny({"scale": "smoke", "studies": {"tiny": {}}})
>>> [s.name for s in t.steps()], t.step("tiny_hello").output["txt"]
(['tiny_hello'], 'results/tiny/{scale}/hello.txt')
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import itertools
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence

from ..errors import ConfigError

__all__ = ["deferred", "wildcard_names", "Step", "StepContext", "Files", "Artifact", "Study", "registry",
           "study_class", "check_registry", "only_keys", "builds_all", "selected_keys",
           "selected_studies",
           "load_study", "load_tag", "REPO",
           "check_traces", "check_policies", "lublin_path"]

#: The repository (simlib lives in it; config paths are relative to it).
REPO = Path(__file__).resolve().parents[2]


def deferred(module: str, function: str, **kwargs) -> Callable:
    """A step function that imports ``module`` only when the step runs.

    A module a study package imports on import is a code input of every one
    of its steps (:mod:`simlib.codedeps`); a step names its own module in
    ``Step.code`` and runs through this instead, so editing a figure module
    reruns no simulation, and building the steps stays cheap (no matplotlib
    or SimGrid while Snakemake parses).

    Examples
    --------
    >>> run = deferred("json", "dumps")
    >>> run.__name__
    'json.dumps'
    """
    def run(ctx):
        getattr(importlib.import_module(module), function)(ctx, **kwargs)
    run.__qualname__ = run.__name__ = f"{module.rpartition('.')[2]}.{function}"
    run.module = module   # the step's code (Step.code_modules)
    return run


def load_tag(load) -> str:
    """File-name form of a target load; ``float(tag)`` gives the load back exactly.

    Examples
    --------
    >>> load_tag(0.7), load_tag(1)
    ('0.7', '1.0')
    """
    return repr(float(load))


def wildcard_names(pattern: str) -> list[str]:
    """The Snakemake wildcards of a path pattern, in order, each once.

    Examples
    --------
    >>> wildcard_names("r/{scale}/{trace}/{policy,[a-z]+}.{scale}.json")
    ['scale', 'trace', 'policy']
    """
    return list(dict.fromkeys(re.findall(r"{(\w+)", pattern)))


def lublin_path(param_set: str, load, seed, ext: str = "swf.gz") -> str:
    """A workload of the generic ``lublin_workload`` rule (workflow/rules/workloads.smk).

    ``load`` None means the model's own arrival rate (no calibration,
    file-name load "native").

    Examples
    --------
    >>> lublin_path("typed", None, 3)
    'data/workloads/lublin/typed/loadnative/seed3.swf.gz'
    >>> lublin_path("typed", 0.5, 3, "json")
    'data/workloads/lublin/typed/load0.5/seed3.json'
    """
    tag = "native" if load is None else load_tag(load)
    return f"data/workloads/lublin/{param_set}/load{tag}/seed{int(seed)}.{ext}"


#: Stages, in pipeline order (the stage files of workflow/rules/ and the
#: groups of the Slurm profiles use them).
STAGES = ("workloads", "simulate", "aggregate", "figures", "report")


@dataclass(frozen=True)
class Step:
    """One rule template of a study.

    Parameters
    ----------
    name : str
        Rule name, unique over the workflow (prefix it with the study key).
    output : mapping of str to str (or list of str)
        Output name -> path pattern (or a list of them, one output name for
        several files); wildcards in braces, ``{scale}`` for the scale.
    run : callable(StepContext) or str
        Does the work: reads ``ctx.input``, writes every ``ctx.output``.
        ``"package.module:function"`` imports the module only when the step
        runs (:func:`deferred`).
    input : mapping or callable(wildcards) -> mapping, optional
        Input name -> path or list of paths (or a callable of the rule's
        wildcards, as Snakemake input functions).
    params : mapping or callable(wildcards) -> mapping, optional
        JSON-able values the outputs depend on; Snakemake reruns the step
        when they change. Callables as for ``input``.
    message : str
        Shown when the job runs (Snakemake ``message:``, may use
        ``{wildcards.x}``).
    code : sequence of str
        Modules (dotted names) whose import closure is the step's code:
        editing any module it reaches reruns the step. The module of
        ``run`` is always included (:meth:`code_modules`): a step whose
        ``run`` is ``"module:function"`` (or :func:`deferred`) depends on
        that module's imports, not on the module declaring the study.
    templates : sequence of str
        Templates the step renders (file names in the ``templates/``
        folder of the package of ``run``'s module, :mod:`simlib.render`):
        they and what they include are inputs of the step.
    policies : sequence or callable(wildcards) -> sequence
        Policies the step runs: their modules are code inputs too, each
        only for the steps that run it.
    wildcard_constraints : mapping of str to str
    stage : str
        One of :data:`STAGES`.
    report : mapping of str to str
        Output name -> caption family (``workflow/report/<family>.rst``)
        for outputs shown in ``snakemake --report``.
    directories : sequence of str
        Output names that are directories the step fills (Snakemake
        ``directory()``), e.g. a set of files whose number depends on the
        config; never reported.
    local : bool
        Run on the host running Snakemake (tiny or network-bound steps).
    group : str or None
        Slurm job group (Snakemake ``group:``; ignored when running
        locally): by default ``"sweep"`` for workload and simulation steps,
        ``"summary"`` for the others (see ``profiles/slurm``); None keeps
        the step out of any group.
    resources : mapping
        Snakemake resources (e.g. ``runtime`` in minutes, ``mem_mb``).
    batch : mapping of str to sequence of mapping of str to str
        Runs folded into one job, for steps whose runs last well under the
        cost of starting a job (a Python process importing numpy, pandas
        and simlib: ~0.5 s). Label -> entries; every entry of every label
        gives values for the same wildcard names. Each label becomes one
        rule (:meth:`batch_rule`) without those wildcards: its outputs are the patterns
        filled with each entry, and its job runs :attr:`run` once per entry,
        in one process, with that entry's inputs, outputs, params and
        wildcards, so the files written are the same. Several labels keep
        apart runs that must not share a job (one's outputs feeding
        another's inputs). Empty (default): one job per match. Studies
        fill it through :meth:`Study.fold`, only at scales that ask for it
        (``scales.<scale>.batch``); never put two policies in one label, so
        that editing a policy still reruns only its own jobs.
    """

    name: str
    output: Mapping[str, str | Sequence[str]]
    run: Callable[["StepContext"], None]
    input: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] = field(default_factory=dict)
    params: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] = field(default_factory=dict)
    message: str = ""
    code: Sequence[str] = ()
    templates: Sequence[str] = ()
    policies: Sequence[str] | Callable[[Any], Sequence[str]] = ()
    wildcard_constraints: Mapping[str, str] = field(default_factory=dict)
    stage: str = "simulate"
    report: Mapping[str, str] = field(default_factory=dict)
    local: bool = False
    resources: Mapping[str, Any] = field(default_factory=dict)
    group: str | None = "auto"
    directories: Sequence[str] = ()
    batch: Mapping[str, Sequence[Mapping[str, str]]] = field(default_factory=dict)

    def __post_init__(self):
        if isinstance(self.run, str):
            module, _, function = self.run.partition(":")
            if not module or not function:
                raise ConfigError(f"step {self.name}: run {self.run!r} is not 'package.module:function'")
            object.__setattr__(self, "run", deferred(module, function))
        if self.templates and not self.package:
            raise ConfigError(f"step {self.name}: templates need a run given as 'module:function'")
        if self.stage not in STAGES:
            raise ConfigError(f"step {self.name}: stage {self.stage!r} is not one of {STAGES}")
        if self.group == "auto":
            object.__setattr__(self, "group", None if self.local else
                               "sweep" if self.stage in ("workloads", "simulate") else "summary")
        unknown = set(self.report) - set(self.output)
        if unknown:
            raise ConfigError(f"step {self.name}: report marks unknown outputs {sorted(unknown)}")
        bad = set(self.directories) - set(self.output)
        if bad:
            raise ConfigError(f"step {self.name}: directories names unknown outputs {sorted(bad)}")
        if set(self.directories) & set(self.report):
            raise ConfigError(f"step {self.name}: a directory output cannot be reported")
        if self.batch:
            self._check_batch()

    def _check_batch(self) -> None:
        entries = [e for group in self.batch.values() for e in group]
        names = set(entries[0]) if entries else set()
        if not names or any(set(e) != names for e in entries):
            raise ConfigError(f"step {self.name}: every batch entry must give the same wildcards, "
                              f"got {[sorted(e) for e in entries]}")
        rules = [self.batch_rule(label) for label in self.batch]
        if len(set(rules)) != len(rules):
            raise ConfigError(f"step {self.name}: batch labels {list(self.batch)} give the same "
                              "rule name twice")
        for out, value in self.output.items():
            for pattern in [value] if isinstance(value, str) else value:
                used = set(wildcard_names(pattern))
                if not names <= used:
                    raise ConfigError(f"step {self.name}: batch folds {sorted(names - used)}, "
                                      f"absent from output {out!r} ({pattern})")
                if re.search(r"{(%s)," % "|".join(map(re.escape, names)), pattern):
                    raise ConfigError(f"step {self.name}: a folded wildcard of output {out!r} "
                                      "has an inline constraint")

    @property
    def run_module(self) -> str | None:
        """The module of ``run`` when it is one (``"module:function"`` or :func:`deferred`)."""
        return getattr(self.run, "module", None)

    @property
    def package(self) -> str | None:
        """The package of ``run``'s module: where its templates are."""
        module = self.run_module
        return module.rpartition(".")[0] if module else None

    def code_modules(self) -> tuple[list[str], list[str]]:
        """(modules, shallow): the step's code is the import closure of ``modules``,
        plus the import-time imports of ``shallow`` (:func:`simlib.codedeps.import_closure`).

        A run function in a module: that module and :attr:`code`. A bound
        method of a study: :attr:`code`, and the study classes' modules,
        shallow (their imports made when the module loads), since the method
        is theirs.
        """
        if self.run_module:
            return [*self.code, self.run_module], []
        owner = getattr(self.run, "__self__", None)
        if isinstance(owner, Study):
            return list(self.code), [c.__module__ for c in type(owner).__mro__
                                     if issubclass(c, Study)]
        module = getattr(self.run, "__module__", None)
        return [*self.code, *([module] if module else [])], []

    def unbatched(self) -> "Step":
        """The same step without its batch (one rule per run)."""
        return dataclasses.replace(self, batch={})

    def batch_rule(self, label: str) -> str:
        """The rule name of a batch label: the step's, ``_<label>`` appended (non-word
        characters as ``_``) unless the label is empty.

        Examples
        --------
        >>> Step("x_run", output={"o": "{p}"}, run=print).batch_rule("easy-2")
        'x_run_easy_2'
        """
        return self.name + ("_" + re.sub(r"\W", "_", label) if label else "")

    @property
    def folds(self) -> tuple[str, ...]:
        """The wildcard names its batch folds (empty without a batch)."""
        return tuple(next(iter(e for g in self.batch.values() for e in g), {}))

    def folded(self, pattern: str, values: Mapping[str, str]) -> str:
        """``pattern`` with the wildcards of ``values`` filled in (the others kept).

        Examples
        --------
        >>> s = Step("x_run", output={"o": "r/{scale}/{trace}/{policy}.json"}, run=print,
        ...          batch={"": [{"trace": "A"}, {"trace": "B"}]})
        >>> s.folds, s.folded(s.output["o"], s.batch[""][1])
        (('trace',), 'r/{scale}/B/{policy}.json')
        """
        return re.sub(r"{(\w+)}", lambda m: str(values.get(m.group(1), m.group(0))), pattern)


class Files(dict):
    """A step's inputs or outputs: name -> path (or list of paths), also as attributes.

    Examples
    --------
    >>> f = Files(cube="results/a.nc", runs=["r/1.json", "r/2.json"])
    >>> f.cube, len(f.runs)
    ('results/a.nc', 2)
    """

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class StepContext:
    """What a step's function gets: its files, parameters and logger.

    Attributes
    ----------
    input, output : Files
    params : dict
        The step's tracked parameters (as declared by the step).
    wildcards : dict of str to str
    log : logging.Logger
        Writes to the rule's log file.
    config : dict
        The whole (validated) pipeline config.
    repo : Path
        The repository holding the workflow (for provenance: its git commit).
    """

    input: Files
    output: Files
    params: dict
    wildcards: dict
    log: logging.Logger
    config: dict
    repo: Path = REPO

    @property
    def scale(self) -> str:
        """The scale of this job (its ``scale`` wildcard, else the config's)."""
        return self.wildcards.get("scale", self.config.get("scale", "default"))


@dataclass(frozen=True)
class Artifact:
    """One entry of ``paper_figures/README.md`` (and of the HTML report)."""

    section: str
    path: str
    title: str

    def as_dict(self) -> dict:
        return {"section": self.section, "path": self.path, "title": self.title}


class Study:
    """Base of every study: one paper (or the baseline) in the pipeline.

    Subclasses set :attr:`key` (their config key under ``studies``) and
    implement :meth:`steps`; most also implement :meth:`check`,
    :meth:`artifacts` and :meth:`subtree`.

    Parameters
    ----------
    config : mapping
        The whole pipeline config; the study reads ``config["studies"][key]``.
    scale : str, optional
        Default: ``config["scale"]``.
    key : str, optional
        Config key, when a class serves several (default :attr:`key`).
    repo : path-like, optional
        The repository holding the config's relative paths (default: the
        one simlib is installed from).
    """

    #: Config key under ``studies`` (also the prefix of rule names).
    key: ClassVar[str] = ""
    #: Section of paper_figures/README.md (paper letter or study key).
    section: ClassVar[str] = ""
    #: Title of the study's category in the HTML report (e.g. the paper).
    title: ClassVar[str] = ""
    #: JSON schema of the study's config sub-tree: a file name in
    #: ``simlib/studies/schemas/`` or a path next to the study's module.
    schema: ClassVar[str | None] = None
    #: Studies this one cannot run without: selected with it by ``only``.
    requires: ClassVar[tuple[str, ...]] = ()
    #: Studies whose results this one shows when they run too: study key ->
    #: what is left out without it (one line, printed when ``only`` leaves
    #: that study out).
    uses: ClassVar[Mapping[str, str]] = {}
    #: Module of the study's package (relative, e.g. ``".published"``) whose
    #: ``load_published(path)`` reads and validates its published-numbers
    #: file (``published`` in its grid); None for a study without one.
    published_loader: ClassVar[str | None] = None
    #: Why the study runs none of the config's ``extra_policies`` (one line,
    #: printed when some are given); empty when :meth:`add_extra_policies`
    #: puts them into its comparisons.
    extra_policies_refused: ClassVar[str] = "its comparisons have no place for another policy"

    @classmethod
    def schema_path(cls) -> Path:
        """The schema file (:attr:`schema`)."""
        here = Path(__file__).resolve().parent / "schemas" / str(cls.schema)
        if here.exists():
            return here
        import sys
        return Path(sys.modules[cls.__module__].__file__).resolve().parent / str(cls.schema)

    @property
    def published_path(self) -> str:
        """The published-numbers file (``published`` in the study's grid), absolute."""
        return str(self.repo_path(self.spec["published"]))

    @functools.cached_property
    def published(self) -> dict:
        """The published numbers, read and validated by :attr:`published_loader`.

        Loaded when first asked for (a study's module imports are code
        inputs of its steps, so the loader is not imported with it); a
        missing file is a ConfigError naming the config key.
        """
        import sys
        if self.published_loader is None:
            raise TypeError(f"study {self.key} has no published numbers (published_loader)")
        path = self.published_path
        if not Path(path).is_file():
            raise ConfigError(f"config studies.{self.key}.published: no such file {path}")
        # Relative to the package of the class that names the loader (a
        # subclass elsewhere inherits its parent's).
        owner = next(c for c in type(self).__mro__ if "published_loader" in vars(c))
        package = sys.modules[owner.__module__].__package__
        return importlib.import_module(self.published_loader, package).load_published(path)

    def __init__(self, config: Mapping, scale: str | None = None, *, key: str | None = None,
                 repo=None) -> None:
        self.config = config
        self.scale = scale or config.get("scale", "default")
        self.key = key or self.key
        self.repo = Path(repo) if repo is not None else REPO
        try:
            self.spec = config["studies"][self.key]
        except KeyError:
            raise ConfigError(f"config studies.{self.key}: missing (study {type(self).__name__})") from None
        from .user_policies import extra_policies
        #: The config's extra_policies this study runs (name -> parameters).
        self.extra_policies = {} if self.extra_policies_refused else extra_policies(config)
        if self.extra_policies:
            # A copy: the config's grid stays the user's.
            self.spec = self.add_extra_policies(copy.deepcopy(self.spec), self.extra_policies)

    # ------------------------------------------------------------ contract
    def check(self) -> None:
        """Raise :class:`ConfigError` naming the key of anything wrong (before any job).

        The base checks the study's ``traces`` (catalog names) and
        ``policies`` (registered names, accepted parameters, their types
        and values) when its config has them; subclasses add their own.
        """
        where = f"config studies.{self.key}"
        check_traces(self.config, f"{where}.traces", self.spec.get("traces") or [])
        check_policies(f"{where}.policies", self.spec.get("policies") or {})

    def steps(self) -> list[Step]:
        """Every rule template of the study."""
        raise NotImplementedError

    def add_extra_policies(self, spec: dict, extra: Mapping[str, dict]) -> dict:
        """The grid ``spec`` (a copy) with the user's ``extra`` policies in its comparisons.

        Called when the config has ``extra_policies`` and the study takes
        them (:attr:`extra_policies_refused` empty). A policy that cannot
        run here raises :class:`ConfigError` saying why.
        """
        raise NotImplementedError(f"study {self.key} takes extra policies but does not add them")

    def artifacts(self) -> list[Artifact]:
        """What the study adds to ``paper_figures/`` (and the index), at this scale."""
        return []

    def traces(self) -> list[str]:
        """Catalog traces the study reads (fetched and verified before any job)."""
        return []

    def claims_file(self) -> str | None:
        """The study's claims file, when it checks a paper's claims (default: none).

        A CSV written by one of its steps with :func:`simlib.claims.write_claims`
        (columns :data:`simlib.claims.CLAIMS_FILE_COLUMNS`); the generic rule
        ``claims`` gathers every study's into ``paper_figures/CLAIMS.md``.
        """
        return None

    def readme_file(self) -> str | None:
        """The study's own README (linked from ``paper_figures/CLAIMS.md``).

        By default its artifact named ``README.md``, if any.
        """
        return next((a.path for a in self.artifacts() if Path(a.path).name == "README.md"), None)

    # --------------------------------------------------------------- helpers
    def is_selected(self, key: str) -> bool:
        """Whether study ``key`` runs in this pipeline too (config ``only`` / ``enabled``)."""
        return key in selected_keys(self.config)

    def left_out(self) -> list[str]:
        """One line per used study (:attr:`uses`) that this run leaves out, saying what is lost."""
        lines = [f"study {self.key}: {what} left out: it needs study {other}'s results "
                 f"(build {other} too to have them)"
                 for other, what in self.uses.items() if not self.is_selected(other)]
        from .user_policies import extra_policies
        refused = list(extra_policies(self.config)) if self.extra_policies_refused else []
        if refused:
            lines.append(f"study {self.key}: extra_policies {', '.join(refused)} not run: "
                         f"{self.extra_policies_refused}")
        return lines

    def step(self, name: str) -> Step:
        """The step called ``name``."""
        for s in self.steps():
            if s.name == name:
                return s
        raise ConfigError(f"study {self.key}: no step {name!r}")

    def repo_path(self, path) -> Path:
        """A config path (relative to the repository) as an absolute path."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.repo / p

    @functools.cached_property
    def trace_sha256(self) -> dict[str, str]:
        """Pinned sha256 of each trace file (``traces.manifest``)."""
        from ..workload.fetch import read_manifest
        manifest = read_manifest(self.repo_path(self.config["traces"]["manifest"]))
        return {name: e.sha256_uncompressed for name, e in manifest.items()}

    @property
    def _batch_setting(self):
        return ((self.config.get("scales") or {}).get(self.scale) or {}).get("batch", False)

    @property
    def batching(self) -> bool:
        """Whether this scale runs some steps several per job (``scales.<scale>.batch``:
        true, or a non-empty list of step names)."""
        return bool(self._batch_setting)

    def batches(self, step: str) -> bool:
        """Whether step ``step`` runs several per job at this scale: ``scales.<scale>.batch``
        is true, or a list naming it (the steps whose runs are shorter than a job's start-up).

        Examples
        --------
        >>> t = Study.__new__(Study)
        >>> t.config, t.scale = {"scales": {"default": {"batch": ["x_run"]}}}, "default"
        >>> t.batching, t.batches("x_run"), t.batches("x_long")
        (True, True, False)
        """
        setting = self._batch_setting
        return step in setting if isinstance(setting, list) else bool(setting)

    def __init_subclass__(cls, **kwargs):
        # Every study's steps() is wrapped: a step the scale does not batch (a
        # list in scales.<scale>.batch without its name) drops the batch fold()
        # gave it (Step.unbatched), so one rule per run, as at scales without batches.
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("steps")
        if own is not None and not getattr(own, "_filters_batches", False):
            @functools.wraps(own)
            def steps(self):
                return [s if not s.batch or self.batches(s.name) else s.unbatched()
                        for s in own(self)]
            steps._filters_batches = True
            cls.steps = steps

    def fold(self, *combinations: Mapping[str, Any], label: str = "",
             **values: Sequence[Any]) -> dict[str, list[dict]]:
        """A :attr:`Step.batch` of one label: empty unless :attr:`batching`.

        Either explicit wildcard mappings, or every combination of the
        given values (the product, first name slowest). Merge several
        labels with ``{**a, **b}``.

        Examples
        --------
        >>> t = Study.__new__(Study)
        >>> t.config, t.scale = {"scales": {"smoke": {"batch": True}}}, "smoke"
        >>> t.fold(trace=["A", "B"], load=[0.5])
        {'': [{'trace': 'A', 'load': '0.5'}, {'trace': 'B', 'load': '0.5'}]}
        >>> t.scale = "full"
        >>> t.fold(trace=["A", "B"])
        {}
        """
        if combinations and values:
            raise TypeError("fold: give mappings or values, not both")
        if values:
            combinations = tuple(dict(zip(values, c)) for c in itertools.product(*values.values()))
        return self.fold_groups({label: combinations})

    def fold_groups(self, groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, list[dict]]:
        """A :attr:`Step.batch` of several labels (label -> wildcard mappings), values as
        strings, empty labels dropped; empty unless :attr:`batching`.

        Examples
        --------
        >>> t = Study.__new__(Study)
        >>> t.config, t.scale = {"scales": {"smoke": {"batch": True}}}, "smoke"
        >>> t.fold_groups({"easy": [{"seed": 0}], "los": [], "fcfs": [{"seed": 1}]})
        {'easy': [{'seed': '0'}], 'fcfs': [{'seed': '1'}]}
        """
        if not self.batching:
            return {}
        folded = {label: [{k: str(v) for k, v in c.items()} for c in entries]
                  for label, entries in groups.items()}
        return {label: entries for label, entries in folded.items() if entries}

    def simulation(self) -> dict:
        """Engine options that change results (``config.simulation``; debug checks do not)."""
        sim = self.config.get("simulation") or {}
        return {"overrun": sim.get("overrun", "kill"), "tau": float(sim.get("tau", 10.0))}


def check_traces(config: Mapping, where: str, traces: Sequence[str]) -> None:
    """Every name a trace of ``traces.catalog``; ConfigError naming ``where[i]``."""
    catalog = config["traces"]["catalog"]
    for i, trace in enumerate(traces):
        if trace not in catalog:
            raise ConfigError(f"{where}[{i}]: unknown trace {trace!r}; known traces "
                              f"(traces.catalog): {', '.join(sorted(catalog))}")


def check_policies(where: str, policies: Mapping[str, Mapping | None]) -> None:
    """Policy names registered, parameters accepted and valid; ConfigError naming ``where.policy``.

    Examples
    --------
    >>> check_policies("config studies.x.policies", {"easy": {"depth": 3}})
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: config studies.x.policies.easy: unknown parameter(s) depth; accepted: reading
    """
    from ..policies import POLICIES, make_policy
    for policy, params in policies.items():
        if policy not in POLICIES:
            raise ConfigError(f"{where}.{policy}: unknown policy {policy!r}; registered policies "
                              f"(simlib.policies.POLICIES): {', '.join(sorted(POLICIES))}")
        accepted = POLICIES[policy].defaults
        unknown = sorted(set(params or {}) - set(accepted))
        if unknown:
            raise ConfigError(f"{where}.{policy}: unknown parameter(s) {', '.join(unknown)}; "
                              f"accepted: {', '.join(sorted(accepted)) or 'none'}")
        # Types, ranges and choices: the policy's own checks, now rather
        # than in a job after others ran.
        try:
            make_policy(policy, **(params or {}))
        except ConfigError as exc:
            raise ConfigError(f"{where}.{policy}: {exc}") from None


#: Config key of the registry of studies: study key -> ``"module:Class"``.
#: Every grid file registers the studies it configures (``registry:``), the
#: built-in ones and a user's alike; Snakemake merges the grids into one
#: mapping, which is the one list of studies.
REGISTRY_KEY = "registry"

#: Config keys selecting studies: comma-separated lists of study keys (or lists).
ONLY_KEY = "only"
SKIP_KEY = "skip"


def registry(config: Mapping) -> dict[str, str]:
    """The registry of studies: study key -> ``"module:Class"`` (config ``registry``).

    Examples
    --------
    >>> registry({"registry": {"tiny": "tiny_study:Tiny"}})
    {'tiny': 'tiny_study:Tiny'}
    """
    return dict(config.get(REGISTRY_KEY) or {})


def grid_file(key: str, repo=None) -> str | None:
    """The grid file (``config/grids/*.yaml``, relative) that names study ``key``, if any.

    Read as text, for messages only: the config is already merged.
    """
    root = Path(repo) if repo is not None else REPO
    pattern = re.compile(r"^\s+" + re.escape(key) + r"\s*:", re.MULTILINE)
    for path in sorted((root / "config" / "grids").glob("*.yaml")):
        if pattern.search(path.read_text(encoding="utf-8")):
            return str(path.relative_to(root))
    return None


def _where(key: str, repo=None) -> str:
    found = grid_file(key, repo)
    return f" ({found})" if found else ""


_CLASSES: dict[str, type] = {}


def study_class(key: str, config: Mapping, repo=None) -> type["Study"]:
    """The class registered for study ``key``, imported on first use.

    A study's module is imported only when the study is loaded, so a
    pipeline job pays for its own study's imports only.
    """
    reg = registry(config)
    if key not in reg:
        raise ConfigError(f"config studies.{key}{_where(key, repo)}: no study registered under "
                          f"{key!r}; a grid registers its study with `{REGISTRY_KEY}: {{{key}: "
                          f"package.module:Class}}`; registered: {', '.join(sorted(reg)) or 'none'}")
    target = reg[key]
    if target not in _CLASSES:
        module, _, name = str(target).partition(":")
        where = f"config {REGISTRY_KEY}.{key}{_where(key, repo)}"
        if not module or not name:
            raise ConfigError(f"{where}: {target!r} is not of the form package.module:Class")
        try:
            cls = getattr(importlib.import_module(module), name)
        except ImportError as exc:
            raise ConfigError(f"{where}: cannot import {module!r} ({exc}); is its directory "
                              "on PYTHONPATH?") from None
        except AttributeError:
            raise ConfigError(f"{where}: module {module!r} has no {name!r}") from None
        if not (isinstance(cls, type) and issubclass(cls, Study)):
            raise ConfigError(f"{where}: {target} is not a subclass of simlib.studies.Study")
        _CLASSES[target] = cls
    return _CLASSES[target]


def check_registry(config: Mapping, repo=None) -> None:
    """Every configured study is registered and every registered study configured.

    ConfigError naming the study and its grid file; nothing is left out silently.

    Examples
    --------
    >>> check_registry({"registry": {"a": "m:A"}, "studies": {"a": {}, "b": {}}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: config studies.b: no study registered under 'b'; ...; registered: a
    """
    reg, studies = registry(config), dict(config.get("studies") or {})
    for key in studies:
        if key not in reg:
            study_class(key, config, repo)   # raises, naming the grid
    for key in reg:
        if key not in studies:
            raise ConfigError(f"config {REGISTRY_KEY}.{key}{_where(key, repo)}: study {key!r} is "
                              f"registered but has no grid entry studies.{key}")


def only_keys(config: Mapping, key: str = ONLY_KEY) -> list[str] | None:
    """The study keys of config ``only`` (or ``skip``): comma-separated or a list; None when unset.

    Examples
    --------
    >>> only_keys({"only": "kumar, zeng"}), only_keys({"only": ["zeng"]}), only_keys({})
    (['kumar', 'zeng'], ['zeng'], None)
    """
    only = config.get(key)
    if only is None or only == "":
        return None
    items = only.split(",") if isinstance(only, str) else [str(x) for x in only]
    return [x.strip() for x in items if x.strip()]


def _check_names(config: Mapping, key: str, names: Sequence[str]) -> None:
    reg = registry(config)
    for name in names:
        if name not in reg:
            raise ConfigError(f"config {key}: unknown study {name!r}; registered studies: "
                              f"{', '.join(sorted(reg)) or 'none'}")


def builds_all(config: Mapping) -> bool:
    """Whether this run builds every configured study (no ``only``, no ``skip``)."""
    return only_keys(config) is None and only_keys(config, SKIP_KEY) is None


def selected_keys(config: Mapping) -> list[str]:
    """The studies this run builds, in config order.

    With ``only``: those named, and the studies they require
    (:attr:`Study.requires`). Without: every configured study not disabled
    in its grid (``enabled: false``). Then ``skip`` takes studies out. An
    unknown name in either is a ConfigError listing the registered ones.

    Examples
    --------
    >>> cls = "simlib.studies.base:Study"
    >>> cfg = {"registry": {"a": cls, "b": cls}, "studies": {"a": {}, "b": {"enabled": False}}}
    >>> selected_keys(cfg), selected_keys({**cfg, "only": "b"}), selected_keys({**cfg, "skip": "a"})
    (['a'], ['b'], [])
    >>> selected_keys({**cfg, "only": "a,nosuch"})
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: config only: unknown study 'nosuch'; registered studies: a, b
    """
    studies = dict(config.get("studies") or {})
    only, skip = only_keys(config), only_keys(config, SKIP_KEY) or []
    _check_names(config, SKIP_KEY, skip)
    if only is None:
        return [k for k, spec in studies.items()
                if (spec or {}).get("enabled", True) is not False and k not in skip]
    _check_names(config, ONLY_KEY, only)
    chosen, todo = set(), list(only)
    while todo:
        key = todo.pop()
        if key not in chosen:
            chosen.add(key)
            todo += list(study_class(key, config).requires)
    return [k for k in studies if k in chosen and k not in skip]


def load_study(key: str, config: Mapping, scale: str | None = None, repo=None, *,
               validate: bool = True) -> Study:
    """The study ``key`` built from the config: its class from the registry, its grid
    checked against the class's schema and completed with the schema's defaults.

    The one path from a grid to a study, in the workflow, in a job and in a
    test alike; the grid in ``config`` is completed in place. ``validate``
    False skips the check for a config the workflow has checked and
    completed already (a pipeline job's: the check costs a job ~0.1 s).
    """
    cls = study_class(key, config, repo)
    if cls.schema and validate:
        from ..schema import validate
        studies = config["studies"]
        if studies.get(key) is None:
            studies[key] = {}
        path = cls.schema_path()
        validate(studies[key], path, f"config studies.{key}", source=_relative(path, repo))
    return cls(config, scale, key=key, repo=repo)


def _relative(path: Path, repo=None) -> str:
    root = Path(repo) if repo is not None else REPO
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def check_batches(config: Mapping, studies: Sequence[Study]) -> None:
    """Every step named in a ``scales.<scale>.batch`` list is a step of ``studies``
    (or of a disabled study: its key starts the name); ConfigError naming the entry.

    Examples
    --------
    >>> check_batches({"scales": {"default": {"batch": ["nope_run"]}}, "studies": {}}, [])
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: config scales.default.batch[0]: no step 'nope_run' in the selected studies
    """
    names = {s.name for study in studies for s in study.steps()}
    built = {study.key for study in studies}
    disabled = [key for key in (config.get("studies") or {}) if key not in built]
    for scale, spec in (config.get("scales") or {}).items():
        listed = (spec or {}).get("batch")
        if not isinstance(listed, list):
            continue
        for i, name in enumerate(listed):
            if name not in names and not any(name.startswith(k + "_") for k in disabled):
                raise ConfigError(f"config scales.{scale}.batch[{i}]: no step {name!r} in the "
                                  "selected studies")


def selected_studies(config: Mapping, scale: str | None = None, repo=None) -> list[Study]:
    """Every study this run builds (:func:`selected_keys`), loaded, in config order."""
    return [load_study(key, config, scale, repo) for key in selected_keys(config)]
