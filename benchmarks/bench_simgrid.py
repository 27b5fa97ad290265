"""Time paper D's runs: conservative backfilling with SimGrid timing the jobs.

Usage::

    .venv/bin/python benchmarks/bench_simgrid.py [--jobs 300] [--repeat 2]
        [--out benchmarks/RESULTS.md]

Workloads like paper D's (§5.1): ``--jobs`` rigid jobs of 1-16 nodes and 1-4 h
(seeded, synthetic, so the script needs no trace), all released at 0,
walltime 1000x the runtime, F_comp = 1e6; the homogeneous platform of §5.3
(8 clusters x 16 nodes). For each allocation rule and F_comm in {0, 2e8} it
times one SimGrid run (fork, SimGrid engine, scheduler) and, for F_comm = 0,
the same schedule under the rate model (the scheduler alone: durations c/cp).
The table goes into the section of ``--out`` between the markers below
(the rest of the file is left as it is).
"""
from __future__ import annotations

import argparse
import os
import platform as pyplatform
import time
from pathlib import Path

import numpy as np
import pandas as pd
from results_file import write_section

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench_simgrid: begin -->", "<!-- bench_simgrid: end -->"
SPEED = 286097.0
F_COMP = 1e6


def workload(n: int, seed: int = 0):
    from simlib.workload.swf import SWF_FIELDS, Workload
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 17, n)
    run = rng.integers(3600, 14401, n).astype(float)
    rows = [[i + 1, 0, -1, run[i], size[i], -1, -1, size[i], run[i] * 1000, -1,
             1, 1, 1, 1, 1, 1, -1, -1] for i in range(n)]
    return Workload(pd.DataFrame(rows, columns=SWF_FIELDS)), run, size


def network():
    from simlib.backends.simgrid import NetworkPlatform
    return NetworkPlatform.homogeneous(clusters=8, nodes=16, speed=SPEED, bw=1.25e6, lat=24e-9,
                                       switch_bw=1.25e9, switch_lat=0.0, backbone_bw=1.25e9,
                                       backbone_lat=24e-9, name="homogeneous")


class Task:
    """Paper D's task: ret x F_comp flops per host, ret x F_comm bytes per pair."""

    def __init__(self, f_comm: float) -> None:
        self.f_comm = f_comm

    def __call__(self, job):
        k = len(job.alloc)
        return [job.work * F_COMP] * k, [job.work * self.f_comm] * (k * k)


def main() -> None:
    from simlib.backends.simgrid import simulate_simgrid
    from simlib.engine.allocation import RULES
    from simlib.policies import make_policy
    from simlib.runner import simulate
    from simlib.workload.swf import SWF_FIELDS, Workload

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=2, help="runs per cell; the best is kept")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    wl, run, size = workload(args.jobs)
    net = network()
    rate_wl = Workload(wl.jobs.assign(run_time=run * F_COMP / SPEED)[list(SWF_FIELDS)])
    rows = []
    for rule in RULES:
        policy = dict(allocation=rule, recompute="rebuild")
        best_rate = min(_timed(simulate, rate_wl, make_policy("conservative", **policy),
                               platform=net.platform()) for _ in range(args.repeat))
        for f_comm in (0.0, 2e8):
            walls, makespan = [], None
            for _ in range(args.repeat):
                t = time.perf_counter()
                res = simulate_simgrid(wl, make_policy("conservative", **policy), net,
                                       Task(f_comm))
                walls.append(time.perf_counter() - t)
                makespan = float(res.jobs["finish_time"].max())
            wall = min(walls)
            rows.append((rule, f_comm, args.jobs, wall, 1 / wall, args.jobs / wall,
                         best_rate if f_comm == 0 else float("nan"), makespan))
        print(rule, "done", flush=True)

    table = ["| allocation | F_comm | jobs | wall s | runs/s | jobs/s | scheduler alone s | makespan s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for rule, f_comm, n, wall, rps, jps, alone, makespan in rows:
        alone_s = "" if alone != alone else f"{alone:.2f}"
        table.append(f"| {rule} | {f_comm:g} | {n} | {wall:.2f} | {rps:.2f} | {jps:,.0f} | "
                     f"{alone_s} | {makespan:,.0f} |")
    total = sum(r[3] for r in rows)
    # The rows with a scheduler-alone time: the share of a SimGrid run that is
    # the scheduler, said as measured (it was most of a run before session 19).
    paired = [(r[3], r[6]) for r in rows if r[6] == r[6]]
    share = sum(a for _, a in paired) / sum(w for w, _ in paired)
    section = [
        BEGIN,
        "## SimGrid backend (paper D)",
        "",
        f"`benchmarks/bench_simgrid.py`: {args.jobs}-job workloads like paper D's on its "
        "homogeneous platform (8 x 16 nodes), conservative backfilling with "
        "`recompute=rebuild`, one SimGrid run per row (fork + SimGrid engine + scheduler, "
        f"best of {args.repeat}); *scheduler alone* is the same schedule under the rate "
        "model (F_comm = 0). Machine: "
        f"{pyplatform.machine()}, Python {pyplatform.python_version()}, one core per run; "
        f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
        "(other work on the 2 cores inflates the times).",
        "",
        *table,
        "",
        f"Mean over the rows: {len(rows) / total:.2f} runs/s. The scheduler alone (the "
        "placement profile, rebuilt at every completion) takes "
        f"{100 * share:.0f} % of the F_comm = 0 runs' time; SimGrid itself (fork, engine, "
        "solver, actors) adds the difference between the two time columns.",
        END,
    ]
    out = Path(args.out)
    write_section(out, "\n".join(section), BEGIN, END)
    print(f"wrote {out}")


def _timed(fn, *args, **kwargs) -> float:
    t = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
