# Shared helpers of the rules: configuration checks that JSON schema cannot
# express, path builders, and the registry of artifacts indexed by the report.
# Included first by the Snakefile, so a bad config fails before any job runs.

import importlib
import inspect
import json
import sys
from pathlib import Path

from simlib.errors import ConfigError
from simlib.policies import POLICIES


def import_policy_modules(names):
    """Import user modules that register extra policies (config policy_modules)."""
    for name in names or []:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(
                f"config policy_modules: cannot import {name!r} ({exc}); "
                "is its directory on PYTHONPATH?") from None


import_policy_modules(config.get("policy_modules"))

#: The repository (the directory holding the Snakefile); relative paths in
#: the config (traces.source, traces.manifest) are relative to it, so the
#: pipeline also runs with --directory elsewhere.
REPO = Path(workflow.basedir).resolve()

#: The scale of this run.
SCALE = config["scale"]

#: Studies whose grid is (traces x policies x loads) on real, load-rescaled
#: traces. Other studies (synthetic workloads, published grids) get their own
#: rules.
TRACE_SWEEP_STUDIES = [s for s in ("baseline",) if s in config["studies"]]

#: Artifacts listed in paper_figures/README.md: dicts with path, title,
#: section (study or "traces"); appended to by the figures rules.
ARTIFACTS = []


def repo_path(p):
    """Absolute path of a config path given relative to the repository."""
    p = Path(p).expanduser()
    return str(p if p.is_absolute() else REPO / p)


def trace_source(trace):
    """Where a trace comes from: local dir (absolute) or base URL.

    (workflow/scripts/fetch_trace.py resolves it the same way, from the
    config, so that the source is not a rerun trigger.)"""
    src = config["traces"]["source"]
    if src == "pwa":
        url = config["traces"]["catalog"][trace].get("pwa_url")
        if not url:
            raise ConfigError(
                f"config traces.source is 'pwa' but traces.catalog.{trace}.pwa_url is missing")
        return url
    if "://" in src:
        return src
    return repo_path(src)


def load_tag(load):
    """File-name form of a target load; float(tag) gives the load back exactly."""
    return repr(float(load))


def study_loads(study, scale=None):
    """Target loads of a study at a scale (default: this run's)."""
    return [float(x) for x in config["studies"][study]["loads"][scale or SCALE]]


def policy_params(study, policy):
    """One policy's parameter mapping (its own config sub-tree)."""
    return dict(config["studies"][study]["policies"][policy] or {})


def study_subtree(study, scale=None):
    """Everything in the config a study's numbers depend on (for provenance).

    Where the trace files come from is excluded on purpose: they are verified
    against pinned checksums, so the source cannot change the results.
    """
    scale = scale or SCALE
    st = config["studies"][study]
    catalog = config["traces"]["catalog"]
    traces = {t: {"file": catalog[t]["file"], "machine_procs": catalog[t]["machine_procs"],
                  "sha256": MANIFEST[catalog[t]["file"]].sha256_uncompressed}
              for t in st.get("traces", [])}
    return {
        "study": study,
        "scale": scale,
        "scale_settings": {k: v for k, v in config["scales"][scale].items() if k != "description"},
        # This scale's grid only: editing another scale's loads or the
        # description must not touch this cube.
        "grid": {"traces": list(st.get("traces", [])),
                 "policies": {p: dict(v or {}) for p, v in (st.get("policies") or {}).items()},
                 "loads": [float(x) for x in st["loads"][scale]]},
        "traces": traces,
        "trace_cleaning": config["traces"].get("cleaning", {}),
        "trace_unsorted": config["traces"].get("unsorted", "sort"),
        "simulation": simulation_params(),
        "policy_modules": list(config.get("policy_modules") or []),
    }


def simulation_params():
    """Engine options that change results (debug checks do not)."""
    sim = config["simulation"]
    return {"overrun": sim.get("overrun", "kill"), "tau": float(sim.get("tau", 10.0))}


def _module_file(obj):
    try:
        return inspect.getsourcefile(obj)
    except TypeError:
        return None


#: Engine code every simulation depends on; editing it reruns all runs.
ENGINE_CODE = sorted(
    str(p) for p in [
        *(Path(sys.modules["simlib"].__file__).parent / "engine").glob("*.py"),
        Path(sys.modules["simlib"].__file__).parent / "runner.py",
        Path(sys.modules["simlib"].__file__).parent / "platform.py",
        Path(sys.modules["simlib"].__file__).parent / "metrics.py",
    ] if p.exists())


def policy_code(policy):
    """Source files a policy's behaviour depends on (its class, its bases,
    and the simlib.policies helpers its module uses), so editing one policy's
    module reruns only that policy's simulations."""
    cls = POLICIES[policy]
    files = set()
    for c in cls.__mro__:
        # The class's own module may live outside simlib (policy_modules).
        if c is cls or c.__module__.startswith("simlib."):
            files.add(_module_file(c))
    policy_module = sys.modules[cls.__module__]
    for value in vars(policy_module).values():
        owner = getattr(value, "__module__", None) or getattr(value, "__name__", "")
        if isinstance(owner, str) and owner.startswith("simlib.policies.") and owner in sys.modules:
            files.add(_module_file(sys.modules[owner]))
    return sorted(f for f in files if f)


def check_config():
    """Checks the JSON schema cannot express; raises ConfigError naming the key."""
    catalog = config["traces"]["catalog"]
    for study, st in config["studies"].items():
        for i, trace in enumerate(st.get("traces", [])):
            if trace not in catalog:
                raise ConfigError(
                    f"config studies.{study}.traces[{i}]: unknown trace {trace!r}; "
                    f"known traces (traces.catalog): {', '.join(sorted(catalog))}")
        for policy, params in (st.get("policies") or {}).items():
            if policy not in POLICIES:
                raise ConfigError(
                    f"config studies.{study}.policies.{policy}: unknown policy {policy!r}; "
                    f"registered policies (simlib.policies.POLICIES): {', '.join(sorted(POLICIES))}")
            unknown = sorted(set(params or {}) - set(POLICIES[policy].defaults))
            if unknown:
                raise ConfigError(
                    f"config studies.{study}.policies.{policy}: unknown parameter(s) "
                    f"{', '.join(unknown)}; accepted: {', '.join(sorted(POLICIES[policy].defaults)) or 'none'}")
    for trace in traces_in_use():
        name = catalog[trace]["file"]
        if name not in MANIFEST:
            raise ConfigError(
                f"config traces.catalog.{trace}.file: {name!r} has no pinned sha256 in "
                f"{repo_path(config['traces']['manifest'])} (traces.manifest)")
    if config["traces"]["source"] == "pwa":
        for study, st in config["studies"].items():
            for trace in st.get("traces", []):
                trace_source(trace)
    # Cleaning policy: the library names what is wrong.
    from simlib.workload.prepare import CleaningPolicy
    try:
        CleaningPolicy.from_mapping(config["traces"].get("cleaning") or {})
    except ConfigError as exc:
        raise ConfigError(f"config traces.cleaning: {exc}") from None


def traces_in_use():
    """Traces of every configured study, in first-use order."""
    seen = []
    for st in config["studies"].values():
        for t in st.get("traces", []):
            if t not in seen:
                seen.append(t)
    return seen


def _read_manifest():
    from simlib.workload.prepare import read_manifest
    path = repo_path(config["traces"]["manifest"])
    if not Path(path).is_file():
        raise ConfigError(f"config traces.manifest: no such file {path}")
    return read_manifest(path)


#: Pinned checksums: file name -> ManifestEntry.
MANIFEST = _read_manifest()

check_config()


# ---------------------------------------------------------------- paths


def run_dir(study, trace, policy, load, scale=None):
    return f"results/runs/{study}/{scale or SCALE}/{trace}/{policy}/load{load_tag(load)}"


def study_summaries(study, scale=None):
    st = config["studies"][study]
    return [f"{run_dir(study, t, p, x, scale)}/summary.json"
            for t in st["traces"] for p in st["policies"] for x in study_loads(study, scale)]


def cube_path(study, scale=None):
    return f"results/{study}.{scale or SCALE}.nc"
