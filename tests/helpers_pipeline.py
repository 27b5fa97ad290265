"""Shared helpers of the pipeline tests: running Snakemake, and the trace
fixtures that let the pipeline run on a machine with no real traces.

Trace fixtures
--------------
A fresh clone has no ``../shared/traces`` and may have no network, so the
pipeline tests never read the real Parallel Workloads Archive logs. They
build small synthetic SWF files under the *same file names* as the catalog's
traces (so the config's catalog is used unchanged), pin their sha256 in a
manifest of their own, and point ``traces.source`` and ``traces.manifest``
at them with a config file. The whole pipeline path -- fetch, verify,
clean, subset, rescale, simulate, aggregate, figures -- then runs as it
does on real logs. The golden-cube tests (``tests/test_golden.py``, marker
``real_traces``) are the ones that need the real logs.

The synthetic logs are made by an independent generator (numpy only, not
simlib's Lublin model), with every feature the cleaning rules and the
studies look at: jobs wider than the machine, missing and zero runtimes,
missing requests, runtimes a few seconds over their request, CPU times
(field 6) for paper U's time model, and long wide jobs (> 64 processes,
> 8 h) for its Sect. 5.1 sweep.
"""
from __future__ import annotations

import atexit
import csv
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
# Seconds a pipeline run may take: the smoke run of every study takes a few
# minutes on an idle 2-core machine; a loaded one (CI beside other jobs) needs more.
TIMEOUT = int(os.environ.get("SIMLIB_TEST_TIMEOUT", 2400))

#: Fixture traces: catalog name -> (file name, machine processors). The
#: file names are the catalog's, so only source and manifest change.
FIXTURE_TRACES = {
    "SDSC-SP2": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
    "CTC-SP2": ("CTC-SP2-1996-3.1-cln.swf.gz", 338),
    "SDSC-BLUE": ("SDSC-BLUE-2000-4.2-cln.swf.gz", 1152),
}
#: Jobs per fixture trace (the smoke scale keeps the first 1,500).
FIXTURE_JOBS = 2200
#: Paper D's log (file name, machine processors, jobs), made by
#: :func:`synthetic_curie_swf`. Paper D needs SimGrid, so the fixture config
#: leaves its study out (``studies.dutot.enabled: false``): the other papers'
#: pipeline tests run without SimGrid, and tests/test_workflow_dutot.py
#: enables it. Paper Z (synthetic workloads only) is left out too, to keep
#: the other pipeline tests short; tests/test_workflow_zeng.py runs it.
FIXTURE_CURIE = ("CEA-Curie-2011-2.1-cln.swf.gz", 93312, 3000)
#: Paper U's trace portions at smoke scale, inside the fixtures.
FIXTURE_U_PORTION = {"first_job": 600, "jobs": 1000}

MANIFEST_COLUMNS = ("file", "jobs_in_file", "header_maxjobs", "maxprocs",
                    "sha256_uncompressed", "bytes_gz", "source")


def synthetic_swf(n_jobs: int, machine_procs: int, seed: int, load: float = 0.8) -> bytes:
    """SWF text of a synthetic log with the quirks of real archive logs.

    Sizes are log-uniform over 1..machine with a bias to powers of two,
    runtimes log-normal (median ~10 min, clipped to 36 h), requests
    1-5 times the runtime rounded up to minutes, Poisson arrivals at the
    offered ``load``, exponential waits (field 3). About 1 % of the jobs each get a zero runtime, a
    missing runtime, a missing request, a runtime 1-60 s over the request;
    two jobs are wider than the machine; 1 % are long and wide.

    Examples
    --------
    >>> text = synthetic_swf(50, 64, seed=1)
    >>> len([l for l in text.splitlines() if not l.startswith(b";")])
    50
    """
    rng = np.random.default_rng(seed)
    n = n_jobs
    log2max = np.log2(machine_procs)
    exp = rng.uniform(0, log2max, n)
    size = np.where(rng.random(n) < 0.6, 2 ** np.floor(exp), np.exp2(exp))
    size = np.clip(np.round(size), 1, machine_procs).astype(np.int64)
    run = np.clip(np.round(rng.lognormal(np.log(600), 1.6, n)), 1, 36 * 3600).astype(np.int64)
    long_wide = rng.random(n) < 0.01
    size[long_wide] = rng.integers(max(65, machine_procs // 2), machine_procs + 1, long_wide.sum())
    run[long_wide] = rng.integers(9 * 3600, 20 * 3600, long_wide.sum())
    request = (np.ceil(run * rng.uniform(1.0, 5.0, n) / 60) * 60).astype(np.int64)
    gaps = rng.exponential((size * run).mean() / (load * machine_procs), n)
    submit = np.floor(np.cumsum(gaps) - gaps[0]).astype(np.int64)
    # Waits as a log records them (field 3): paper U reads the log's own
    # schedule from them.
    wait = np.round(rng.exponential(1800.0, n)).astype(np.int64)
    cpu = np.round(run * rng.uniform(0.3, 1.0, n), 1)
    cpu[rng.random(n) < 0.1] = -1

    quirk = rng.random(n)
    run[quirk < 0.01] = 0                                        # runtime_zero
    run[(quirk >= 0.01) & (quirk < 0.02)] = -1                   # runtime_missing
    request[(quirk >= 0.02) & (quirk < 0.03)] = -1               # request_missing
    over = (quirk >= 0.03) & (quirk < 0.04) & (run > 0)
    run[over] = request[over] + rng.integers(1, 61, over.sum())  # runtime_above_request
    size[[n // 3, 2 * n // 3]] = machine_procs + 8               # size_above_machine
    cpu[run <= 0] = -1

    lines = ["; Version: 2.2", "; Computer: synthetic test machine",
             f"; MaxJobs: {n}", f"; MaxRecords: {n}", f"; MaxProcs: {machine_procs}",
             "; Note: synthetic fixture for simlib's pipeline tests (tests/helpers_pipeline.py)"]
    for i in range(n):
        lines.append(" ".join(str(v) for v in (
            i + 1, submit[i], wait[i], run[i], size[i], cpu[i], -1, size[i], request[i], -1,
            1, 1 + i % 7, 1, -1, 1, -1, -1, -1)))
    return ("\n".join(lines) + "\n").encode()


def synthetic_curie_swf(n_jobs: int, machine_procs: int, seed: int) -> bytes:
    """SWF text of a synthetic stand-in for the CEA-Curie log (paper D).

    What paper D's selection looks at, in known proportions: sizes 1-16
    (powers of two mostly, about 60 %) and wider (up to 2,048), runtimes
    log-uniform from 1 min to 1 day (about a third within 1-4 h), exactly
    1 h and exactly 4 h for a few jobs (the bounds are inclusive), zero
    runtimes (dropped by the cleaning) and jobs without a requested size
    (field 8 = -1, the allocated size in field 5: the cleaning's
    ``size_from_allocated`` rule). Requests 1-3 times the runtime plus a
    minute (paper D's walltimes, max(request, 1000 x runtime), then come
    from the runtime).

    Examples
    --------
    >>> text = synthetic_curie_swf(40, 93312, seed=1)
    >>> len([l for l in text.splitlines() if not l.startswith(b";")])
    40
    """
    rng = np.random.default_rng(seed)
    n = n_jobs
    narrow = rng.random(n) < 0.6
    size = np.where(narrow, rng.choice([1, 2, 4, 8, 16, 3, 12], n, p=[.3, .1, .2, .15, .2, .025, .025]),
                    rng.choice([32, 64, 128, 256, 1024, 2048], n))
    run = np.round(np.exp(rng.uniform(np.log(60), np.log(86400), n))).astype(np.int64)
    run[rng.random(n) < 0.02] = 3600
    run[rng.random(n) < 0.02] = 14400
    run[rng.random(n) < 0.02] = 0
    request = np.ceil(run * rng.uniform(1.0, 3.0, n) / 60).astype(np.int64) * 60 + 60
    submit = np.cumsum(rng.integers(0, 120, n)).astype(np.int64)
    requested = size.copy()
    requested[rng.random(n) < 0.2] = -1
    lines = ["; Version: 2.2", "; Computer: synthetic stand-in for CEA Curie",
             f"; MaxJobs: {n}", f"; MaxRecords: {n}", f"; MaxProcs: {machine_procs}",
             "; Note: synthetic fixture for simlib's pipeline tests (tests/helpers_pipeline.py)"]
    for i in range(n):
        lines.append(" ".join(str(v) for v in (
            i + 1, submit[i], 0, run[i], size[i], -1, -1, requested[i], request[i], -1,
            1, 1 + i % 5, 1, -1, 1, 1, -1, -1)))
    return ("\n".join(lines) + "\n").encode()


def build_fixture_traces(directory: Path) -> Path:
    """Write the fixture traces, their manifest and a config override.

    Returns the config file to pass with ``--configfile``: it sets
    ``traces.source`` and ``traces.manifest`` to the fixtures, moves
    paper U's smoke-scale portions inside them and leaves paper D (SimGrid)
    out (see :data:`FIXTURE_CURIE`).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rows = []
    for k, (_trace, (name, procs)) in enumerate(sorted(FIXTURE_TRACES.items())):
        text = synthetic_swf(FIXTURE_JOBS, procs, seed=1000 + k)
        packed = gzip.compress(text, mtime=0)
        (directory / name).write_bytes(packed)
        rows.append(dict(file=name, jobs_in_file=FIXTURE_JOBS, header_maxjobs=FIXTURE_JOBS,
                         maxprocs=procs, sha256_uncompressed=hashlib.sha256(text).hexdigest(),
                         bytes_gz=len(packed), source="tests/helpers_pipeline.py"))
    name, procs, jobs = FIXTURE_CURIE
    text = synthetic_curie_swf(jobs, procs, seed=2015)
    packed = gzip.compress(text, mtime=0)
    (directory / name).write_bytes(packed)
    rows.append(dict(file=name, jobs_in_file=jobs, header_maxjobs=jobs, maxprocs=procs,
                     sha256_uncompressed=hashlib.sha256(text).hexdigest(), bytes_gz=len(packed),
                     source="tests/helpers_pipeline.py"))
    manifest = directory / "MANIFEST.tsv"
    with open(manifest, "w", newline="") as fh:
        w = csv.DictWriter(fh, MANIFEST_COLUMNS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    portions = "\n".join(
        f"      {t}: {{first_job: {{smoke: {FIXTURE_U_PORTION['first_job']}}}, "
        f"jobs: {{smoke: {FIXTURE_U_PORTION['jobs']}}}}}" for t in FIXTURE_TRACES)
    cfg = directory / "fixture_traces.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        # Written by tests/helpers_pipeline.py: synthetic traces for the pipeline tests.
        traces:
          source: '{directory}'
          manifest: '{manifest}'
        studies:
          dutot: {{enabled: false}}
          zeng: {{enabled: false}}
          utrera:
            trace_portions:
        """) + portions + "\n")
    return cfg


_FIXTURE_CONFIG: list[Path] = []


def fixture_traces_config() -> Path:
    """The trace fixtures of this test process, built on first use.

    Built once per process in a temporary directory removed at exit, so
    every pipeline test of a session shares them.
    """
    if not _FIXTURE_CONFIG:
        directory = Path(tempfile.mkdtemp(prefix="simlib-trace-fixtures-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        _FIXTURE_CONFIG.append(build_fixture_traces(directory))
    return _FIXTURE_CONFIG[0]


# ------------------------------------------------------------ Snakemake runs

def _with_configfiles(args, extra_first):
    """Put every config file after one ``--configfile`` flag (Snakemake takes
    all the words after it), the fixture's first so the test's override it."""
    args = [str(a) for a in args]
    rest, files, i = [], [], 0
    while i < len(args):
        if args[i] == "--configfile":
            i += 1
            while i < len(args) and not args[i].startswith("-"):
                files.append(args[i])
                i += 1
            continue
        rest.append(args[i])
        i += 1
    files = [str(f) for f in extra_first] + files
    return rest + (["--configfile", *files] if files else [])


#: A user's policy module (config policy_modules): EASY with a parameter, registered
#: from outside simlib; write it to a directory on PYTHONPATH.
USER_POLICY_MODULE = '''
"""A user's policy, registered from outside simlib (config policy_modules)."""
from simlib.policies import register
from simlib.policies.easy import EASY


class TaggedEASY(EASY):
    name = "easy_tagged"
    defaults = {"tag": 0}


register(TaggedEASY)
'''


def copy_repository(dest) -> Path:
    """A copy of the repository's tracked files (as in the working tree) and its
    compiled kernels in ``dest``, to edit and run without touching the repository
    (run it with ``PYTHONPATH=dest`` and ``snakefile=dest / "Snakefile"``)."""
    dest = Path(dest)
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    for kernel in (REPO / "simlib" / "policies").glob("*.so"):
        shutil.copy2(kernel, dest / "simlib" / "policies" / kernel.name)
    return dest


def snakemake(workdir, *args, env=None, check=True, traces="fixtures", cores=2,
              timeout=TIMEOUT, snakefile=None):
    """Run snakemake on the repository's Snakefile (or ``snakefile``) in ``workdir``.

    Parameters
    ----------
    workdir : path-like
        ``--directory``; results land there, never in the repository.
    *args
        More arguments (targets, ``--config``, ``--configfile``...).
    env : dict, optional
        Added to the environment.
    check : bool, default True
        Raise AssertionError with the output's tail on a non-zero exit.
    traces : "fixtures", path-like or None
        Config file of trace fixtures, passed first so the test's own config
        files override it: by default this process's synthetic traces
        (:func:`fixture_traces_config`); None for the config as it is
        (real traces, for the golden-cube tests).
    cores : int or None, default 2
        ``--cores``; None leaves it out (e.g. with a Slurm profile).
    snakefile : path-like, optional
        Another copy's Snakefile (:func:`copy_repository`).

    Returns
    -------
    (int, str)
        Exit status and combined output.
    """
    cmd = [str(SNAKEMAKE), "-s", str(snakefile or REPO / "Snakefile"), "--directory", str(workdir),
           "--nocolor"]
    if cores is not None:
        cmd += ["--cores", str(cores)]
    if traces == "fixtures":
        traces = fixture_traces_config()
    cmd += _with_configfiles(args, [traces] if traces else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    out = proc.stdout + proc.stderr
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{out[-5000:]}")
    return proc.returncode, out


# ------------------------------------------------ what an edit reruns

def planned(run, *args) -> dict[str, int]:
    """Rule -> jobs a dry run of ``run`` (a function running snakemake) plans; the total
    and the target rule `all` left out."""
    _, out = run("-n", *args)
    return {rule: n for rule, n in job_counts(out).items()
            if n and rule not in ("total", "all")}


def edited(path, run, *args) -> dict[str, int]:
    """The jobs planned once ``path`` gets one more line; the file restored after."""
    text = path.read_text()
    try:
        path.write_text(text + ("\n# an edit\n" if path.suffix == ".py" else "\n"))
        return planned(run, *args)
    finally:
        path.write_text(text)


def pending(workdir, *args, **kw):
    """Output files Snakemake would (re)build, as {path: rule}."""
    _, out = snakemake(workdir, "--detailed-summary", *args, **kw)
    rows = list(csv.reader(out.splitlines(), delimiter="\t"))
    header = next(i for i, r in enumerate(rows) if r[:1] == ["output_file"])
    cols = rows[header]
    result = {}
    for r in rows[header + 1:]:
        if len(r) != len(cols):
            continue
        rec = dict(zip(cols, r))
        if rec["plan"] != "no update":
            result[rec["output_file"]] = rec["rule"]
    return result


def job_counts(out):
    """Rule -> planned job count, from Snakemake's job-stats table."""
    stats = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            stats[parts[0]] = int(parts[1])
    return stats


def unbatched(workdir) -> Path:
    """A config file that runs one job per step match at smoke scale.

    The smoke scale folds short runs into few jobs (``scales.smoke.batch``,
    :attr:`simlib.studies.base.Step.batch`); the plan tests count the
    unfolded jobs, one per grid point, with this file.
    """
    return write_yaml(Path(workdir) / "unbatched.yaml", "scales: {smoke: {batch: false}}\n")


def write_yaml(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def assert_config_rejected(workdir, override, message):
    """A dry run with the config ``override`` (YAML text) fails on a ConfigError saying ``message``.

    And before any job: nothing is written under ``workdir/data``.
    """
    cfg = write_yaml(Path(workdir) / "override.yaml", override)
    code, out = snakemake(workdir, "-n", "--configfile", cfg, check=False)
    assert code != 0
    assert message in out, out[-3000:]
    assert "ConfigError" in out
    assert not (Path(workdir) / "data").exists()  # nothing ran


def repo_registry() -> dict:
    """The registry of studies of the repository's grids (config ``registry``, merged)."""
    import yaml
    out = {}
    for path in sorted((REPO / "config/grids").glob("*.yaml")):
        out.update(yaml.safe_load(path.read_text()).get("registry") or {})
    return out


def repo_config(grid: str, scale: str = "smoke") -> dict:
    """The repository's config with one study's grid merged in (as the Snakefile does)."""
    import yaml
    cfg = yaml.safe_load((REPO / "config/config.yaml").read_text())
    grid_cfg = yaml.safe_load((REPO / f"config/grids/{grid}.yaml").read_text())
    cfg["studies"] = {**(cfg.get("studies") or {}), **grid_cfg["studies"]}
    cfg["registry"] = repo_registry()
    cfg["scale"] = scale
    return cfg


def repo_study(key: str, scale: str = "smoke", edit=None):
    """The study ``key`` built from the repository's config; ``edit(spec)`` may change its keys first."""
    from simlib.studies import load_study
    cfg = repo_config(key, scale)
    if edit:
        edit(cfg["studies"][key])
    return load_study(key, cfg)
