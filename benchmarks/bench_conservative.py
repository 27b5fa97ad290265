"""Conservative backfilling: the fast policy against the slow reference.

Usage::

    .venv/bin/python benchmarks/bench_conservative.py [--traces CTC-SP2 SDSC-SP2 SDSC-BLUE]
        [--sizes 10000 50000 100000 0] [--repeats N] [--no-reference] [--path compiled|python]

For each full cleaned trace (read as :mod:`bench_policies` does) the current
:class:`simlib.policies.conservative.Conservative` (count-based, compress)
and :class:`reference_conservative.ReferenceConservative` (today's algorithm
before the speed-up) each run in a fresh subprocess; the script checks that
every job starts at exactly the same time (bit for bit) and reports the
event loop's wall time and jobs/s. The per-size rows (first N jobs of
SDSC-BLUE, 0 = all) time the fast policy alone, to show whether the per-job
cost stays flat as the trace grows, beside the mean number of waiting jobs
(total wait / span of submissions): the work of a compression grows with
the queue. ``--path`` chooses the count-based path of the fast policy
(``SIMLIB_KERNELS``: the compiled kernel, the default, or pure
Python). Exit status 1 if any start differs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_policies import FILES, TRACES  # noqa: E402


def one_run(trace: str, impl: str, n_jobs: int, out: str) -> dict:
    from simlib.engine.simulator import Simulator
    from simlib.platform import Platform
    from simlib.policies import make_policy
    from simlib.runner import jobs_from_workload
    from simlib.workload.prepare import clean
    from simlib.workload.swf import read_swf

    fname, cpus = FILES[trace]
    wl, _ = clean(read_swf(TRACES / fname), cpus)
    if n_jobs:
        wl.jobs = wl.jobs.iloc[:n_jobs]
    jobs = jobs_from_workload(wl)
    if impl == "reference":
        from reference_conservative import ReferenceConservative
        policy = ReferenceConservative()
    else:
        policy = make_policy("conservative")
    sim = Simulator(Platform.homogeneous(cpus), jobs, policy)
    t0 = time.perf_counter()
    sim.run()
    t_sim = time.perf_counter() - t0
    if out:
        np.save(out, np.array([j.start for j in jobs], dtype=float))
    wait = sum(j.start - j.submit for j in jobs)
    span = jobs[-1].submit - jobs[0].submit
    return {"trace": trace, "impl": impl, "jobs": len(jobs), "sim_s": t_sim,
            "jobs_per_s": len(jobs) / t_sim, "us_per_job": 1e6 * t_sim / len(jobs),
            "mean_queue": wait / span if span > 0 else 0.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", nargs="*", default=list(FILES),
                    help="full traces to time against the reference (none: the sizes only)")
    ap.add_argument("--sizes", nargs="*", type=int, default=[10000, 50000, 100000, 0],
                    help="prefix sizes of SDSC-BLUE timed with the fast policy (0 = all)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs of each prefix size, interleaved (size after size, N rounds); "
                         "the table gives the median and the range (default 1)")
    ap.add_argument("--no-reference", action="store_true",
                    help="time the fast policy only (no identity check)")
    ap.add_argument("--path", choices=["compiled", "python"], default="compiled",
                    help="count-based path of the fast policy (default: the compiled kernel)")
    ap.add_argument("--one", nargs=4, metavar=("TRACE", "IMPL", "N", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    args.sizes = list(dict.fromkeys(args.sizes))  # each size once
    if not args.traces and not args.sizes and not args.one:
        ap.error("nothing to time: give --traces or --sizes")
    if args.one:
        trace, impl, n, out = args.one
        print(json.dumps(one_run(trace, impl, int(n), out)))
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="bench_conservative_"))
    env = {**os.environ, "SIMLIB_KERNELS": args.path}
    print(f"fast policy: count-based path {args.path!r}", flush=True)

    def child(trace, impl, n, save=True):
        out = str(tmp / f"{trace}.{impl}.{n}.npy") if save else ""
        res = subprocess.run([sys.executable, __file__, "--one", trace, impl, str(n), out],
                             check=True, capture_output=True, text=True, env=env).stdout
        row = json.loads(res.strip().splitlines()[-1])
        print(f"{row['trace']:10} {row['impl']:9} {row['jobs']:7d} jobs {row['sim_s']:8.2f} s "
              f"{row['jobs_per_s']:9.0f} jobs/s {row['us_per_job']:8.1f} µs/job", flush=True)
        return row, out

    bad = 0
    lines = ["| trace | jobs | reference s | reference jobs/s | fast s | fast jobs/s | speed-up | "
             "identical starts |", "|---|---:|---:|---:|---:|---:|---:|---|"] if args.traces else []
    for trace in args.traces:
        fast, fast_out = child(trace, "fast", 0)
        if args.no_reference:
            lines.append(f"| {trace} | {fast['jobs']} | | | {fast['sim_s']:.2f} | "
                         f"{fast['jobs_per_s']:,.0f} | | not checked |")
            continue
        ref, ref_out = child(trace, "reference", 0)
        a, b = np.load(fast_out), np.load(ref_out)
        differ = int(np.count_nonzero(a != b))
        bad += differ
        lines.append(f"| {trace} | {fast['jobs']} | {ref['sim_s']:.2f} | {ref['jobs_per_s']:,.0f} | "
                     f"{fast['sim_s']:.2f} | {fast['jobs_per_s']:,.0f} | "
                     f"{ref['sim_s'] / fast['sim_s']:.1f}x | "
                     f"{'yes' if differ == 0 else f'NO: {differ} differ'} |")
    # Sizes interleaved, round after round: a drift in the machine's speed
    # then touches every size alike instead of the last ones only.
    rows: dict[int, list[dict]] = {n: [] for n in args.sizes}
    for _ in range(args.repeats):
        for n in args.sizes:
            rows[n].append(child("SDSC-BLUE", "fast", n, save=False)[0])
    if lines:
        lines.append("")
    lines += [f"| SDSC-BLUE first N jobs | fast s (median of {args.repeats}) | µs per job, "
              "median | µs per job, range | mean queue (jobs) |", "|---:|---:|---:|---:|---:|"]
    for n in args.sizes:
        us = sorted(r["us_per_job"] for r in rows[n])
        sim = sorted(r["sim_s"] for r in rows[n])
        row = rows[n][0]
        lines.append(f"| {row['jobs']} | {float(np.median(sim)):.2f} | {float(np.median(us)):.1f} | "
                     f"{us[0]:.1f}–{us[-1]:.1f} | {row['mean_queue']:.1f} |")
    print("\n".join(lines))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
