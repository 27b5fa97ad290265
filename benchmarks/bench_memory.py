"""Time and peak memory of ``simlib simulate`` from 10,000 to 10 million jobs.

Usage::

    .venv/bin/python benchmarks/bench_memory.py [--sizes 10000 100000 1000000 10000000]
        [--policies fcfs easy conservative] [--before DIR] [--before-sizes 10000 100000 1000000]
        [--dir /tmp/simlib-bench-memory] [--out benchmarks/RESULTS.md]

Each trace is synthetic (a seeded ``numpy.random.Generator``, seed 0): 1,024
CPUs; sizes a power of two (70 %) or uniform in 1..1,024 (30 %); runtimes
lognormal (median ~11 min), estimates the runtime plus up to an hour;
Poisson arrivals at an offered load of 0.9. It is written once as a plain
SWF file under ``--dir`` and reused.

Each row is one whole process, ``simlib simulate TRACE --policy P -o
jobs.csv`` (the jobs table written, as a user runs it), measured by
``/usr/bin/time -v``: its wall time and its maximum resident set size.
``--before DIR`` runs the same command with another copy of the package
(e.g. ``git archive 2440dc0 | tar -x -C DIR``, its compiled kernels built)
for the ``--before-sizes``. The table goes into the section of ``--out``
between the markers below.
"""
from __future__ import annotations

import argparse
import os
import platform as pyplatform
import sys
import tempfile
from pathlib import Path

import numpy as np
from process_time import time_v
from results_file import write_section

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BEGIN, END = "<!-- bench_memory: begin -->", "<!-- bench_memory: end -->"
CPUS = 1024


def synthetic_trace(n: int, path: Path, seed: int = 0, chunk: int = 1_000_000) -> Path:
    """Write ``n`` synthetic jobs as an SWF file (see the module docstring)."""
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    size = np.minimum(2 ** rng.integers(0, 11, n), CPUS)
    size = np.where(rng.random(n) < 0.3, rng.integers(1, CPUS + 1, n), size)
    run = np.maximum(1, rng.lognormal(6.5, 1.8, n)).astype(np.int64)
    req = run + rng.integers(0, 3600, n)
    gap = (size * run).mean() / (CPUS * 0.9)
    submit = np.cumsum(rng.exponential(gap, n)).astype(np.int64)
    submit -= submit[0]
    tmp = path.with_suffix(".part")
    with open(tmp, "w") as fh:
        fh.write(f"; Computer: synthetic (benchmarks/bench_memory.py, seed {seed})\n"
                 f"; MaxProcs: {CPUS}\n")
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            m = np.full((b - a, 18), -1, dtype=np.int64)
            m[:, 0], m[:, 1], m[:, 3] = np.arange(a + 1, b + 1), submit[a:b], run[a:b]
            m[:, 4], m[:, 7], m[:, 8] = size[a:b], size[a:b], req[a:b]
            np.savetxt(fh, m, fmt="%d")
    tmp.rename(path)
    return path


def measure(trace: Path, policy: str, tree: Path) -> tuple[float, float]:
    """``(wall s, peak MB)`` of one ``simlib simulate`` process."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmd = [sys.executable, "-m", "simlib.cli", "simulate", str(trace), "--policy", policy,
               "-o", str(Path(tmp) / "jobs.csv")]
        secs, kb = time_v(cmd, env=env, cwd=tmp)
    return secs, kb / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000,
                                                             10_000_000])
    ap.add_argument("--policies", nargs="+", default=["fcfs", "easy", "conservative"])
    ap.add_argument("--before", type=Path, help="another copy of the package to measure")
    ap.add_argument("--before-sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "simlib-bench-memory")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    rows = []
    trees = [("after", REPO, args.sizes)] + ([("before", args.before.resolve(), args.before_sizes)]
                                              if args.before else [])
    for n in sorted(set(args.sizes) | (set(args.before_sizes) if args.before else set())):
        trace = synthetic_trace(n, args.dir / f"synthetic-{n}.swf")
        for policy in args.policies:
            for name, tree, sizes in trees:
                if n not in sizes:
                    continue
                wall, mb = measure(trace, policy, tree)
                rows.append(f"| {n:,} | {policy} | {name} | {wall:.1f} | {mb:,.0f} | "
                            f"{mb * 2**20 / n:,.0f} |")
                print(rows[-1], flush=True)
    section = "\n".join([
        BEGIN,
        "## A million jobs and more: time and peak memory (issue 40)",
        "",
        "`benchmarks/bench_memory.py`: synthetic SWF traces on 1,024 CPUs (seed 0, offered load "
        "0.9; see the script), each row one whole process `simlib simulate TRACE --policy P -o "
        "jobs.csv` measured by `/usr/bin/time -v` (wall time, maximum resident set size; bytes "
        "per job = peak / jobs, the interpreter and libraries included). `before`: the code "
        "before this issue's changes. Machine: "
        f"{pyplatform.machine()}, {os.cpu_count()} cores, Python {pyplatform.python_version()}.",
        "",
        "| jobs | policy | code | wall s | peak MB | bytes per job |",
        "|---:|---|---|---:|---:|---:|",
        *rows,
        END,
    ])
    write_section(args.out, section, BEGIN, END)


if __name__ == "__main__":
    main()
