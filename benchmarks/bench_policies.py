"""Time the trace-driven policies over full traces: EASY, conservative, LOS, Delayed-LOS, FCFS-malleable.

Usage::

    .venv/bin/python benchmarks/bench_policies.py [--traces CTC-SP2 ...] [--policies easy ...]
        [--sizes 10000 50000 ...] [--out benchmarks/RESULTS.md]

Each (trace, policy) runs in a fresh subprocess so peak memory (ru_maxrss)
is per run. Reported: jobs simulated, wall time of the simulation alone
(trace parsing and result tables are timed separately), jobs/s, peak RSS.
The per-size rows (first N jobs of SDSC-BLUE, each policy) show how the
per-job cost grows with the trace. Policies run with their defaults (LOS
family: lookahead 50, unit 1) and the compiled kernels where built
(``SIMLIB_KERNELS``, see :mod:`simlib.policies.kernels`; the header says
which).
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
BEGIN, END = "<!-- bench_policies: begin -->", "<!-- bench_policies: end -->"
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
    ap.add_argument("--policies", nargs="+",
                    default=["easy", "conservative", "los", "delayed_los", "fcfs_malleable"])
    ap.add_argument("--sizes", nargs="*", type=int, default=[10000, 50000, 100000, 243306],
                    help="prefix sizes of SDSC-BLUE for the scaling rows (every policy)")
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

    load_before = os.getloadavg()[0]
    rows = [child(t, p, 0) for t in args.traces for p in args.policies]
    scaling = {(p, n): child("SDSC-BLUE", p, n) for n in args.sizes for p in args.policies}
    from simlib.policies import kernels
    compiled = kernels.mode() != "python"
    paths = ", ".join(f"{k} {'compiled' if compiled and kernels.problem(k)[0] else 'pure Python'}"
                      for k in kernels.KERNELS)
    lines = [
        f"Machine: {os.cpu_count()} cores, Python {pyplatform.python_version()}, "
        f"{pyplatform.machine()}; one core per run. Rerun: `.venv/bin/python benchmarks/bench_policies.py` "
        f"(writes this section). Measured {time.strftime('%Y-%m-%d')}, load average "
        f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after (above 1, other work shared "
        "the cores: times are upper bounds).", "",
        "Full cleaned traces (simlib's default cleaning policy), original arrival times; "
        "`sim s` is the engine's event loop alone (`Simulator.run`; for EASY not the "
        "compiled run that `simulate()` uses when nothing else takes part: "
        "`bench_easy.py`), `read s` the SWF parse, `table s` building the "
        f"Batsim jobs table. Kernels: {paths}.", "",
        "| trace | policy | jobs | read s | sim s | table s | jobs/s | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['trace']} | {r['policy']} | {r['jobs']} | {r['read_s']:.2f} | {r['sim_s']:.2f} | "
                     f"{r['table_s']:.2f} | {r['jobs_per_s']:,.0f} | {r['peak_rss_mb']:.0f} |")
    lines += ["", "## Per-job cost against trace length (first N jobs of SDSC-BLUE)", "",
              "µs per simulated job (event loop alone).", "",
              "| jobs | " + " | ".join(args.policies) + " |",
              "|---:|" + "---:|" * len(args.policies)]
    for n in args.sizes:
        cells = [scaling[p, n] for p in args.policies]
        lines.append(f"| {cells[0]['jobs']} | "
                     + " | ".join(f"{1e6 * r['sim_s'] / r['jobs']:.1f}" for r in cells) + " |")
    # Only this script's section changes; the rest of the file is kept.
    out = Path(args.out)
    old = out.read_text() if out.exists() else ""
    section = "\n".join([BEGIN, *lines, END])
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = section + "\n\n" + old
    out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
