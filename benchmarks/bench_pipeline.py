"""The pipeline's own time: a whole run from nothing, then a no-op re-run.

Usage::

    .venv/bin/python benchmarks/bench_pipeline.py [--scale smoke] [--cores 2]
        [--dir DIR] [--keep] [--repo TREE] [--snakemake-args ...]

Runs ``snakemake --workflow-profile profiles/local --cores N --config
scale=S`` in a fresh directory (``DIR``, by default a temporary one, removed
afterwards unless ``--keep``), the way ``make smoke`` / ``make reproduce``
do (simlib's bytecode compiled first, as they do), then runs it again with
nothing to do. Reported, as a Markdown table:

* wall time of the run and of the no-op re-run;
* CPU time of Snakemake's own process (DAG, scheduling, bookkeeping) and of
  its children (the jobs), from ``getrusage``: Snakemake runs in a small
  wrapper process so that the two can be told apart;
* per study (the top-level folder of ``logs/``): jobs, the summed wall time
  of the steps' work, and the summed CPU time of their processes with
  start-up and imports and of the child processes they waited for (paper
  D's SimGrid runs), from the ``done in ... s (CPU ..., ... with start-up,
  ... in child processes)`` line that ``workflow/scripts/_common.py`` writes
  at the end of every step's log.

``--summarize DIR`` prints only that per-study table for a run directory
that already exists (e.g. a long ``--config scale=full`` run made with
plain ``snakemake``), including runs cut short: the steps that finished;
``--by-rule`` splits it per study step. Both also say how many steps ran at
once over the run (from each step log's first and last time stamps): with
``--cores N``, the time with fewer than N steps running is where the DAG's
shape, not the work, set the wall time.

``--repo TREE`` runs another copy of the project instead of this one (its
Snakefile, profile and package, put first on ``PYTHONPATH`` for Snakemake
and its jobs), e.g. the code before a change exported with ``git archive
COMMIT | tar -x -C TREE``: run both, one after the other, on a quiet machine.

The machine's load average before and after is printed too: figures taken
while other work runs are upper bounds.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Runs Snakemake in this child process and prints its own CPU time and its
# children's as one JSON line on stderr.
_WRAPPER = """
import atexit, json, resource, sys, time
t0 = time.perf_counter()
def report():
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print("BENCH " + json.dumps({"wall": time.perf_counter() - t0,
                                  "snakemake_cpu": me.ru_utime + me.ru_stime,
                                  "jobs_cpu": kids.ru_utime + kids.ru_stime}), file=sys.stderr)
atexit.register(report)
from snakemake.cli import main
sys.argv = ["snakemake", *sys.argv[1:]]
main()
"""

_DONE = re.compile(r"done in ([0-9.]+) s(?: \(CPU ([0-9.]+) s, ([0-9.]+) s with start-up"
                   r"(?:, ([0-9.]+) s in child processes)?\))?")


def run(repo: Path, workdir: Path, scale: str, cores: int, extra: list[str]) -> dict:
    """One Snakemake run of ``repo``'s workflow in ``workdir``; its wall and CPU times."""
    snakemake_bin = Path(sys.executable).with_name("snakemake")
    if not snakemake_bin.exists():
        sys.exit(f"bench_pipeline: no snakemake beside {sys.executable}; run `make install` first")
    # As `make reproduce` does first (Makefile, BYTECODE): simlib's bytecode
    # compiled once, not by every step where PYTHONDONTWRITEBYTECODE is set.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(repo / "simlib"),
                    str(repo / "workflow" / "scripts")], check=True)
    cmd = [sys.executable, "-c", _WRAPPER, "--snakefile", str(repo / "Snakefile"),
           "--workflow-profile", str(repo / "profiles" / "local"), "--cores", str(cores),
           "--config", f"scale={scale}", "--directory", str(workdir), *extra]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(repo), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=repo, env=env)
    line = [x for x in out.stderr.splitlines() if x.startswith("BENCH ")]
    if out.returncode != 0 or not line:
        sys.stderr.write(out.stderr[-5000:])
        sys.exit(f"bench_pipeline: snakemake failed (exit {out.returncode}) in {workdir}")
    return json.loads(line[-1][len("BENCH "):])


def per_study(workdir: Path, by_rule: bool = False) -> dict[str, dict]:
    """Jobs, step wall time and process CPU time summed per top-level log folder
    (``by_rule``: per study step, ``logs/<study>/<rule>/...``)."""
    out: dict[str, dict] = {}
    for log in sorted((workdir / "logs").rglob("*.log")):
        rel = log.relative_to(workdir / "logs").parts
        study = rel[0] if len(rel) > 1 else "(top level)"
        if by_rule and len(rel) > 2:
            study = f"{rel[0]}/{rel[1]}"
        lines = _DONE.findall(log.read_text(encoding="utf-8", errors="replace"))
        if not lines:
            continue  # not a step's log (e.g. a trace's cleaning report)
        row = out.setdefault(study, {"jobs": 0, "wall": 0.0, "cpu": 0.0})
        row["jobs"] += 1
        wall, _, with_startup, children = lines[-1]  # the last run of the step
        row["wall"] += float(wall)
        row["cpu"] += float(with_startup or 0.0) + float(children or 0.0)
    return out


_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ", re.M)


def concurrency(workdir: Path) -> dict[int, float]:
    """Seconds during which k steps were running, by k, from the first step's
    start to the last one's end (each step log's first and last time stamp).

    For a directory filled by several Snakemake runs, the time between them
    counts as time with no step running."""
    import datetime
    events = []
    for log in (workdir / "logs").rglob("*.log"):
        text = log.read_text(encoding="utf-8", errors="replace")
        if not _DONE.search(text):
            continue
        stamps = _STAMP.findall(text)
        if not stamps:
            continue
        start, end = (datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S,%f").timestamp()
                      for s in (stamps[0], stamps[-1]))
        events += [(start, 1), (max(end, start), -1)]
    out: dict[int, float] = {}
    running, last = 0, None
    for t, change in sorted(events):
        if last is not None and t > last:
            out[running] = out.get(running, 0.0) + t - last
        running += change
        last = t
    return out


def print_concurrency(seconds: dict[int, float]) -> None:
    total = sum(seconds.values())
    if not total:
        return
    parts = ", ".join(f"{k} for {v:.0f} s ({100 * v / total:.0f} %)"
                      for k, v in sorted(seconds.items(), reverse=True))
    print(f"\nSteps running at once, over {total:.0f} s from the first step's start to the "
          f"last one's end: {parts}.")


def print_studies(studies: dict[str, dict]) -> None:
    print("\n| study (logs/ folder) | jobs | steps' work, wall | jobs' CPU with start-up and children "
          "| per job |")
    print("|---|---|---|---|---|")
    for study, row in sorted(studies.items()):
        print(f"| {study} | {row['jobs']} | {row['wall']:.1f} s | {row['cpu']:.1f} s "
              f"| {row['cpu'] / row['jobs']:.1f} s |")
    total = {k: sum(r[k] for r in studies.values()) for k in ("jobs", "wall", "cpu")}
    print(f"| all | {total['jobs']} | {total['wall']:.1f} s | {total['cpu']:.1f} s | |")


def loadavg() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on Linux
        return "n/a"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="smoke", choices=["smoke", "default", "full"])
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--dir", type=Path, help="run here (must be empty or absent)")
    ap.add_argument("--keep", action="store_true", help="keep the run's directory")
    ap.add_argument("--repo", type=Path, default=REPO, help="the project copy to run (default: this one)")
    ap.add_argument("--snakemake-args", nargs=argparse.REMAINDER, default=[],
                    help="passed on to snakemake (last on the line)")
    ap.add_argument("--summarize", type=Path, metavar="DIR",
                    help="only print the per-study table of an existing run directory")
    ap.add_argument("--by-rule", action="store_true",
                    help="with --summarize: one row per study step (logs/<study>/<rule>/)")
    args = ap.parse_args(argv)
    if args.summarize:
        if not (args.summarize / "logs").is_dir():
            sys.exit(f"bench_pipeline: {args.summarize} has no logs/ folder")
        print_studies(per_study(args.summarize, by_rule=args.by_rule))
        print_concurrency(concurrency(args.summarize))
        return 0
    workdir = args.dir or Path(tempfile.mkdtemp(prefix=f"bench_pipeline_{args.scale}_"))
    if workdir.exists() and any(workdir.iterdir()):
        sys.exit(f"bench_pipeline: {workdir} is not empty")
    workdir.mkdir(parents=True, exist_ok=True)
    before = loadavg()
    repo = args.repo.resolve()
    first = run(repo, workdir, args.scale, args.cores, args.snakemake_args)
    again = run(repo, workdir, args.scale, args.cores, args.snakemake_args)
    studies = per_study(workdir)
    print(f"{repo}: scale {args.scale}, --cores {args.cores}, load average (1/5/15 min) before "
          f"{before}, after {loadavg()}\n")
    print("| what | wall | Snakemake's own CPU | jobs' CPU |")
    print("|---|---|---|---|")
    print(f"| whole run | {first['wall']:.1f} s | {first['snakemake_cpu']:.1f} s | "
          f"{first['jobs_cpu']:.1f} s |")
    print(f"| no-op re-run | {again['wall']:.1f} s | {again['snakemake_cpu']:.1f} s | "
          f"{again['jobs_cpu']:.1f} s |")
    print_studies(studies)
    print_concurrency(concurrency(workdir))
    if not args.keep and not args.dir:
        shutil.rmtree(workdir, ignore_errors=True)
    elif args.keep:
        print(f"\nkept {workdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
