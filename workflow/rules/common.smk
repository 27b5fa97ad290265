# Shared helpers of the rules: configuration checks that JSON schema cannot
# express, path builders, and the registry of artifacts indexed by the report.
# Included first by the Snakefile, so a bad config fails before any job runs.

import functools
import json
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from simlib.errors import ConfigError
from simlib.policies import POLICIES


def validate_section(data, schema, prefix=""):
    """Validate (and fill defaults of) ``data`` against a JSON schema file;
    a ConfigError names the offending key in one line, prefixed by ``prefix``."""
    try:
        validate(data, schema)
    except WorkflowError as exc:
        err = exc.__cause__ or exc.__context__
        if not hasattr(err, "absolute_path"):
            raise
        key = prefix + "".join(f"[{k}]" if isinstance(k, int) else f".{k}"
                               for k in err.absolute_path)
        rel = Path(schema).resolve().relative_to(Path(workflow.basedir).resolve())
        raise ConfigError(f"config {key.lstrip('.') or '(top level)'}: {err.message} "
                          f"(schema: {rel})") from None


# Structure first (types, enums, unknown keys; fills defaults), then names.
validate_section(config, f"{workflow.basedir}/config/config.schema.json")


#: The repository (the directory holding the Snakefile); relative paths in
#: the config (traces.source, traces.manifest, policy_modules) are relative
#: to it, so the pipeline also runs with --directory elsewhere.
REPO = Path(workflow.basedir).resolve()

# The user's policies (docs/writing_a_policy.md): their modules register
# them, then extra_policies is checked like any study's policies.
from simlib.studies.user_policies import check_extra_policies, import_policy_modules

import_policy_modules(config, REPO)
check_extra_policies(config)


#: The scale of this run.
SCALE = config["scale"]

#: The studies this run builds (config `only`, else every study not disabled
#: in its grid), each checked against its own schema; their rules come from
#: their steps (workflow/rules/studies.smk). The registry (config `registry`,
#: filled by the grids) must match the grids both ways: no study is left out
#: silently.
from simlib.studies.base import (builds_all, check_batches, check_registry, load_study,
                                 selected_keys)

check_registry(config, REPO)


#: Each loaded through its schema (load_study), which fills its defaults.
STUDIES = [load_study(key, config, SCALE, repo=REPO) for key in selected_keys(config)]

#: Whether this run builds every study (no `only`, no `skip`): the shared
#: index and CLAIMS.md, which list them all, are only written then.
ALL_STUDIES = builds_all(config)

#: One line per thing `only` leaves out, printed once the workflow is parsed.
LEFT_OUT = [line for s in STUDIES for line in s.left_out()]
if not ALL_STUDIES:
    LEFT_OUT.append(f"building {', '.join(s.key for s in STUDIES) or 'no study'}: "
                    "paper_figures/README.md, paper_figures/CLAIMS.md and the shared Lublin "
                    "validation figure are left out: they cover every study (run without only= "
                    "and skip= to rebuild them)")
for _line in LEFT_OUT:
    print(_line, file=sys.stderr)

#: Artifacts listed in paper_figures/README.md: dicts with path, title,
#: section (study or "traces"); appended to by the figures rules.
ARTIFACTS = []


def code_inputs(*modules):
    """Code inputs of a generic rule: the source files of the simlib modules
    its script calls, and of every simlib module they import
    (simlib.codedeps). The logic lives there, not in the script, and
    Snakemake only watches a rule's script: as inputs, editing the logic
    reruns the rule, as studies.smk does for the studies' steps."""
    from simlib.codedeps import import_closure
    return import_closure(modules)


def repo_path(p):
    """Absolute path of a config path given relative to the repository."""
    p = Path(p).expanduser()
    return str(p if p.is_absolute() else REPO / p)


@functools.cache
def trace_source_of_run():
    """Where traces come from this run (simlib.workload.fetch.resolve_source);
    resolved when a trace is first needed, so a run that reads none (e.g.
    only=zeng) does not depend on SIMLIB_TRACES or the network."""
    from simlib.workload.fetch import DEFAULT_LOCAL_DIRS, resolve_source
    tr = config["traces"]
    return resolve_source(tr["source"], repo=REPO,
                          local_dirs=tr.get("local_dirs", DEFAULT_LOCAL_DIRS))



def trace_source(trace):
    """Local directory (absolute) or base URL one trace is fetched from.

    (The fetch_trace rule resolves it the same way, from the config, with
    simlib.workload.fetch.fetch_catalog_trace, so that the source is not a
    rerun trigger.)"""
    return trace_source_of_run().base_for(config["traces"]["catalog"][trace].get("pwa_url"), trace)


def load_tag(load):
    """File-name form of a target load; float(tag) gives the load back exactly."""
    return repr(float(load))


def check_config():
    """Checks the JSON schema cannot express; raises ConfigError naming the key."""
    catalog = config["traces"]["catalog"]
    for trace in raw_traces_needed():
        name = catalog[trace]["file"]
        if name not in MANIFEST:
            raise ConfigError(
                f"config traces.catalog.{trace}.file: {name!r} has no pinned sha256 in "
                f"{repo_path(config['traces']['manifest'])} (traces.manifest)")
    # Cleaning policy: the library names what is wrong.
    from simlib.workload.prepare import CleaningPolicy
    try:
        CleaningPolicy.from_mapping(config["traces"].get("cleaning") or {})
    except ConfigError as exc:
        raise ConfigError(f"config traces.cleaning: {exc}") from None


def traces_in_use():
    """Traces the generic trace rules prepare and characterize: the `traces`
    lists of the studies this run builds, in first-use order."""
    seen = []
    for study in STUDIES:
        for t in study.spec.get("traces") or []:
            if t not in seen:
                seen.append(t)
    return seen


def raw_traces_needed():
    """Catalog traces whose raw file some selected study reads: traces_in_use(),
    then those a study prepares its own way (Study.traces)."""
    needed = traces_in_use()
    for study in STUDIES:
        needed += [t for t in study.traces() if t not in needed]
    return needed


def _read_manifest():
    from simlib.workload.prepare import read_manifest
    path = repo_path(config["traces"]["manifest"])
    if not Path(path).is_file():
        raise ConfigError(f"config traces.manifest: no such file {path}")
    return read_manifest(path)


#: Pinned checksums: file name -> ManifestEntry.
MANIFEST = _read_manifest()

# Studies first: they name their unknown traces before the manifest is consulted.
for _s in STUDIES:
    _s.check()
check_batches(config, STUDIES)
check_config()


# ------------------------------------------------ Lublin workloads (issue 3)

#: Named parameter sets of the Lublin–Feitelson generator (config lublin.param_sets).
LUBLIN_SETS = (config.get("lublin") or {}).get("param_sets") or {}


def check_lublin_config():
    """Each parameter set's model must build (the library names what is wrong)."""
    from simlib.workload.lublin.params import LublinParams
    for name, ps in LUBLIN_SETS.items():
        try:
            LublinParams.from_config(ps.get("model") or {}, where=f"lublin.param_sets.{name}.model")
        except ConfigError as exc:
            raise ConfigError(f"config {exc}") from None
    val = (config.get("lublin") or {}).get("validation")
    if val and val["param_set"] not in LUBLIN_SETS:
        raise ConfigError(f"config lublin.validation.param_set: unknown parameter set "
                          f"{val['param_set']!r}; known: {', '.join(sorted(LUBLIN_SETS))}")


check_lublin_config()


# lublin_path(param_set, load, seed): a workload of the lublin_workload rule
# (workloads.smk); studies build the same paths.
from simlib.studies.base import lublin_path


# ------------------------------------------------------ trace availability
# Checked last, once every study is known, and before any job runs: a trace
# that is neither fetched yet nor obtainable stops the run here with one
# message saying both ways out, instead of failing after simulations ran.


def check_trace_availability():
    from simlib.workload.fetch import SOURCE_ENV, TraceDownloadError, check_reachable
    catalog = config["traces"]["catalog"]
    todo = [t for t in raw_traces_needed() if not Path(f"data/traces/raw/{t}.swf.gz").exists()]
    if not todo:
        return
    ways_out = (f"Either set {SOURCE_ENV}=DIR (or --config 'traces={{source: DIR}}') to a directory "
                "holding the Parallel Workloads Archive files listed in "
                f"{config['traces']['manifest']}, or run with network access "
                "(traces.source: auto downloads them from the archive).")
    files = {t: catalog[t]["file"] for t in todo}
    source = trace_source_of_run()
    if source.kind == "dir":
        absent = [f for f in files.values() if not (Path(source.location) / f).is_file()]
        if absent:
            raise ConfigError(
                f"config traces.source: {', '.join(absent)} not found in "
                f"{source.describe()}. {ways_out}")
        return
    checked = set()
    for t in todo:
        url = trace_source(t)
        host = url.split("/")[2] if "://" in url else url
        if host in checked:
            continue
        checked.add(host)
        try:
            check_reachable(url, timeout=10)
        except TraceDownloadError as exc:
            names = ", ".join(f"{files[x]} ({MANIFEST[files[x]].bytes_gz / 1e6:.1f} MB)" for x in todo)
            raise ConfigError(
                f"config traces.source: this run needs {names} from "
                f"{source.describe()}, but {exc}. {ways_out}") from None


check_trace_availability()

# ------------------------------------------- snakemake --report (issue 9)
# Every artifact of ARTIFACTS (and the index) is shown by `snakemake
# --report report.zip`, exactly what paper_figures/README.md indexes. The
# report shows images and HTML inline and offers other files as downloads
# only, so an image is reported as it is, and every other artifact (Markdown
# and CSV tables, READMEs, cleaning logs, cubes) through its HTML rendering
# under results/report/ (rule report_pages, report.smk; simlib.report_pages),
# which leaves the artifacts unchanged. Each has a caption of its own,
# written by the same rule (results/report/captions/<path>.rst): Snakemake
# renders a caption with its job's context only, never the file's, so a
# caption per artifact has to be a file per artifact. Rules mark their
# artifact outputs with reported(...); check_report_marks() (end of the
# Snakefile) fails the parse when an artifact is not marked, or a marked
# file is not an artifact.

from snakemake.exceptions import WorkflowError
import re

from snakemake.io import apply_wildcards, contains_wildcard, regex_from_filepattern

from simlib.report_pages import RENDERED, rendered_path

#: Report category (one per paper / part of the pipeline) of each ARTIFACTS
#: section; "index" is paper_figures/README.md. Short names: the report's
#: menu is as wide as its longest entry.
REPORT_CATEGORIES = {
    "index": "Index",
    "traces": "Traces",
    "workloads": "Workloads",
}
# Each study's: the authors, the part of its title before " (" (e.g.
# "Utrera et al." of "Utrera et al. (utrera): FCFS-malleable"). Taken here,
# not declared by the studies, so that naming the menu reruns no study step.
REPORT_CATEGORIES.update({s.section or s.key: s.title.split(" (")[0] for s in STUDIES})

#: The index itself is no ARTIFACTS entry (it lists them) but is reported.
INDEX = dict(section="index", path="paper_figures/README.md",
             title="Index of every artifact of this run, by section, with the scale that produced them")

#: Output patterns marked by reported(...): pattern -> caption family (the
#: kind of artifact named in its caption: cube, traces, workloads, a paper).
REPORT_MARKS = {}


def report_entries():
    """Every reported file: ARTIFACTS plus the index (when built), as {path: entry}."""
    return {a["path"]: a for a in [*ARTIFACTS, *([INDEX] if ALL_STUDIES else [])]}


def report_kind(path):
    """Subcategory of an artifact in the report, from its file name."""
    name = Path(path).name
    if name == "README.md":
        return "README"
    suffix = Path(path).suffix
    return {".png": "Figures", ".svg": "Figures", ".csv": "Tables", ".md": "Tables",
            ".nc": "Cubes", ".txt": "Cleaning logs"}.get(suffix, "Other")


def report_caption(path):
    """Absolute path of an artifact's caption (the report reads it from the working directory)."""
    return str(Path.cwd() / "results" / "report" / "captions" / f"{path}.rst")


def report_mark(path):
    """(pattern, family) of the reported(...) output producing ``path``, or (None, None)."""
    for pattern, family in REPORT_MARKS.items():
        if re.match(regex_from_filepattern(pattern), path):
            return pattern, family
    return None, None


def _report_entry(pattern, wildcards):
    path = apply_wildcards(pattern, wildcards)
    try:
        return report_entries()[path]
    except KeyError:
        raise WorkflowError(f"{path} is marked for the report (reported({pattern!r})) but is not "
                            "in ARTIFACTS, so paper_figures/README.md does not index it") from None


def report_flag(path, entry, caption):
    """``path`` with Snakemake's report flag: ``entry`` (an ARTIFACTS entry) gives the
    category, subcategory and label."""
    return report(
        path,
        caption=caption,
        category=REPORT_CATEGORIES[entry["section"]],
        subcategory=report_kind(entry["path"]),
        labels=_report_label(entry),
    )


def reported(pattern, caption):
    """Mark an artifact output for ``snakemake --report``.

    Parameters
    ----------
    pattern : str
        The output path (may hold wildcards). Each file it names must be an
        ARTIFACTS entry (or the index); its section gives the report
        category, its title the label.
    caption : str
        Caption family: the kind of artifact its caption names
        (simlib/templates/report_caption.rst.j2).

    Returns
    -------
    str
        An image: ``pattern`` with Snakemake's report flag. Anything else:
        ``pattern`` as it is, its HTML rendering being reported instead.
    """
    REPORT_MARKS[pattern] = caption
    if Path(pattern).suffix in RENDERED:
        return pattern
    if contains_wildcard(pattern):
        raise WorkflowError(f"reported({pattern!r}): an image is reported with a caption file of "
                            "its own, so its path cannot hold wildcards")
    # Callables: resolved when the report is built, once ARTIFACTS is complete.
    return report(
        pattern,
        caption=report_caption(pattern),
        category=lambda wildcards: REPORT_CATEGORIES[_report_entry(pattern, wildcards)["section"]],
        subcategory=lambda wildcards: report_kind(_report_entry(pattern, wildcards)["path"]),
        labels=lambda wildcards: _report_label(_report_entry(pattern, wildcards)),
    )


def _report_label(entry):
    # One label only: the report turns a second label with two values into
    # a toggle, which would split the two files of a small subcategory.
    return {"artifact": f"{Path(entry['path']).name} — {entry['title']}"}


def check_report_marks():
    """Fail the parse unless the report lists exactly the indexed artifacts.

    Every ARTIFACTS path (and the index) must be produced by a rule output
    wrapped in reported(...); every marked output without wildcards must be
    an artifact (marked patterns with wildcards are checked per file when
    the report is built). Called once every rule is defined.
    """
    entries = report_entries()
    for path, entry in entries.items():
        if entry["section"] not in REPORT_CATEGORIES:
            raise WorkflowError(f"ARTIFACTS section {entry['section']!r} ({path}) has no report "
                                "category: add it to REPORT_CATEGORIES (workflow/rules/common.smk)")
        # Snakemake's own wildcard rendering runs over categories and labels.
        if "{" in entry["title"] or "}" in entry["title"]:
            raise WorkflowError(f"ARTIFACTS title of {path} holds a brace, which the report "
                                f"would read as a wildcard: {entry['title']!r}")
        if report_mark(path)[0] is None:
            raise WorkflowError(f"{path} is in ARTIFACTS (paper_figures/README.md) but no rule "
                                "output producing it is marked for the report: wrap it in "
                                "reported(...) (workflow/rules/common.smk)")
    for f in REPORT_MARKS:
        if not contains_wildcard(f) and f not in entries:
            raise WorkflowError(f"{f} is marked for the report but is not in ARTIFACTS, so "
                                "paper_figures/README.md does not index it")
