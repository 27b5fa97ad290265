"""Time paper Z's schedulers: Scojo-PECT with space sharing (SSP) and G-LOMARC-TS (GLTS).

Usage::

    .venv/bin/python benchmarks/bench_scojo_pect.py [--repeat 3] [--out benchmarks/RESULTS.md]

Paper Z's adjusted Lublin workloads (W1, W2; seed 0) of 2,500, 5,000 and
10,000 jobs on 128 nodes of two dual-core CPUs (the paper's runs: 10,000
jobs), under SSP and under G-LOMARC-TS (full variant, Table 6's
parameters). Each row: median over ``--repeat`` runs of the simulation
alone (engine jobs built, event loop), workload generation left out.
The table goes into the section of ``--out`` between the markers below
(the rest of the file is left as it is).
"""
from __future__ import annotations

import argparse
import platform as pyplatform
import statistics
from pathlib import Path

from results_file import write_section

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench_scojo_pect: begin -->", "<!-- bench_scojo_pect: end -->"


def glts(frame):
    """One GLTS run: (simulation seconds, groups formed)."""
    from simlib.studies.zeng.runs import run
    from simlib.studies.zeng.slowdowns import TABLE4, CoschedulingSlowdowns

    res = run(frame, policy="glomarc_ts", cos=CoschedulingSlowdowns(TABLE4, 0))
    return res.seconds, f"{res.counters['groups']:,}"


def main() -> None:
    from simlib.studies.zeng.runs import run
    from simlib.studies.zeng.workloads import ALPHA, generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()
    rows = []
    for name in ("W1", "W2"):
        for n in (2500, 5000, 10000):
            frame = generate(ALPHA[name], n, 0)
            for scheduler in ("SSP", "GLTS"):
                times, groups = [], ""
                for _ in range(args.repeat):
                    t, groups = glts(frame) if scheduler == "GLTS" else (run(frame).seconds, "")
                    times.append(t)
                t = statistics.median(times)
                rows.append(f"| {scheduler} | {name} | {n:,} | {t:.2f} | {n / t:,.0f} | "
                            f"{1e6 * t / n:.0f} | {groups} |")
                print(rows[-1], flush=True)
    section = "\n".join([
        BEGIN,
        "## Paper Z: Scojo-PECT with space sharing (SSP) and G-LOMARC-TS (GLTS)",
        "",
        "`benchmarks/bench_scojo_pect.py`: paper Z's adjusted Lublin workloads (seed 0) on 128 "
        "nodes of two dual-core CPUs; SSP: policy `scojo_pect`, GLTS: "
        "policy `glomarc_ts` (variant GLTS), defaults of §5.1 and Table 6; "
        f"simulation only, median of {args.repeat}. Machine: "
        f"{pyplatform.machine()}, Python {pyplatform.python_version()}, one core.",
        "",
        "| scheduler | workload | jobs | s | jobs/s | us per job | groups formed |",
        "|---|---|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "Per-job cost grows with the queue lengths (W2 saturates SSP at times): each round looks "
        "at the active virtual machine's queue (due reservations, non-type backfilling "
        "candidates); GLTS also forms groups for every waiting job it tries (Cases 1 and 5, "
        "Cases 2 and 3 for the head), and rebuilds the plan to check a group's fairness.",
        END,
    ])
    write_section(args.out, section, BEGIN, END)


if __name__ == "__main__":
    main()
