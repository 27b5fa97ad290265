"""Time EASY and conservative backfilling over full traces.

Usage::

    .venv/bin/python benchmarks/bench_policies.py [--traces CTC-SP2 ...] [--policies easy ...]
        [--sizes 10000 50000 ...] [--out benchmarks/RESULTS.md]

Each (trace, policy) runs in a fresh subprocess so peak memory (ru_maxrss)
is per run. Reported: jobs simulated, wall time of the simulation alone
(trace parsing and result tables are timed separately), jobs/s, peak RSS.
The per-size rows (first N jobs of SDSC-BLUE) show whether per-job cost
stays flat as the trace grows.
"""
from __future__ import annotations

import argparse
import json
import os
import platform as pyplatform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The cleaned PWA logs: $SIMLIB_TRACES, else ../shared/traces beside the repository.
TRACES = Path(os.environ.get("SIMLIB_TRACES", HERE.parent.parent / "shared" / "traces"))
FILES = {
    "CTC-SP2": ("CTC-SP2-1996-3.1-cln.swf.gz", 338),
    "SDSC-SP2": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
    "SDSC-BLUE": ("SDSC-BLUE-2000-4.2-cln.swf.gz", 1152),
}


def trace_path(trace: str) -> Path:
    """The cleaned log of one of :data:`FILES`' traces (shared by every benchmark script)."""
    return TRACES / FILES[trace][0]


def one_run(trace: str, policy: str, n_jobs: int | None) -> dict:
    from simlib.engine.simulator import Simulator
    from simlib.platform import Platform
    from simlib.policies import make_policy
    from simlib.runner import batsim_table, jobs_from_workload
    from simlib.workload.prepare import clean
    from simlib.workload.swf import read_swf

    fname, cpus = FILES[trace]
    t0 = time.perf_counter()
    wl = read_swf(TRACES / fname)
    t_read = time.perf_counter() - t0
    wl, _ = clean(wl, cpus)
    if n_jobs:
        wl.jobs = wl.jobs.iloc[:n_jobs]
    jobs = jobs_from_workload(wl)
    sim = Simulator(Platform.homogeneous(cpus), jobs, make_policy(policy))
    t0 = time.perf_counter()
    sim.run()
    t_sim = time.perf_counter() - t0
    t0 = time.perf_counter()
    batsim_table(jobs, trace)
    t_table = time.perf_counter() - t0
    return {"trace": trace, "policy": policy, "jobs": len(jobs), "read_s": t_read,
            "sim_s": t_sim, "table_s": t_table, "jobs_per_s": len(jobs) / t_sim,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", nargs="+", default=list(FILES))
    ap.add_argument("--policies", nargs="+", default=["easy", "conservative"])
    ap.add_argument("--sizes", nargs="*", type=int, default=[10000, 50000, 100000, 243306],
                    help="prefix sizes of SDSC-BLUE for the EASY scaling rows")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    ap.add_argument("--one", nargs=3, metavar=("TRACE", "POLICY", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        trace, policy, n = args.one
        print(json.dumps(one_run(trace, policy, int(n) or None)))
        return 0

    def child(trace, policy, n):
        out = subprocess.run([sys.executable, __file__, "--one", trace, policy, str(n)],
                             check=True, capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        print(f"{row['trace']:10} {row['policy']:13} {row['jobs']:7d} jobs "
              f"{row['sim_s']:7.2f} s {row['jobs_per_s']:9.0f} jobs/s {row['peak_rss_mb']:6.0f} MB",
              flush=True)
        return row

    rows = [child(t, p, 0) for t in args.traces for p in args.policies]
    scaling = [child("SDSC-BLUE", "easy", n) for n in args.sizes]
    lines = [
        "# Benchmarks", "",
        f"Machine: {os.cpu_count()} cores, Python {pyplatform.python_version()}, "
        f"{pyplatform.machine()}; one core per run. Rerun: `.venv/bin/python benchmarks/bench_policies.py` "
        "(writes this file).", "",
        "Full cleaned traces (simlib's default cleaning policy), original arrival times; "
        "`sim s` is the event loop alone, `read s` the SWF parse, `table s` building the "
        "Batsim jobs table.", "",
        "| trace | policy | jobs | read s | sim s | table s | jobs/s | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['trace']} | {r['policy']} | {r['jobs']} | {r['read_s']:.2f} | {r['sim_s']:.2f} | "
                     f"{r['table_s']:.2f} | {r['jobs_per_s']:,.0f} | {r['peak_rss_mb']:.0f} |")
    lines += ["", "## Per-job cost against trace length (EASY, first N jobs of SDSC-BLUE)", "",
              "| jobs | sim s | µs per job |", "|---:|---:|---:|"]
    for r in scaling:
        lines.append(f"| {r['jobs']} | {r['sim_s']:.2f} | {1e6 * r['sim_s'] / r['jobs']:.1f} |")
    # Keep the sections other scripts write into this file (bench_simgrid.py).
    out = Path(args.out)
    old = out.read_text() if out.exists() else ""
    kept = old[old.index("<!-- bench_simgrid: begin -->"):] if "<!-- bench_simgrid: begin -->" in old else ""
    out.write_text("\n".join(lines) + "\n" + ("\n" + kept if kept else ""))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
