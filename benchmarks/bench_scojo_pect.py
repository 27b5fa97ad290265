"""Time paper Z's Scojo-PECT with space sharing (SSP) and how it grows with the workload.

Usage::

    .venv/bin/python benchmarks/bench_scojo_pect.py [--repeat 3] [--out benchmarks/RESULTS.md]

Paper Z's adjusted Lublin workloads (W1, W2; seed 0) of 2,500, 5,000 and
10,000 jobs on 128 nodes of two dual-core CPUs (the paper's runs: 10,000
jobs). Each row: median over ``--repeat`` runs of the simulation alone
(engine jobs built, event loop, per-job table), workload generation left
out. The table goes into the section of ``--out`` between the markers
below (the rest of the file is left as it is).
"""
from __future__ import annotations

import argparse
import platform as pyplatform
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench_scojo_pect: begin -->", "<!-- bench_scojo_pect: end -->"


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
            times, res = [], None
            for _ in range(args.repeat):
                res = run(frame)
                times.append(res.seconds)
            t = statistics.median(times)
            rows.append(f"| {name} | {n:,} | {t:.2f} | {n / t:,.0f} | {res.counters['slice_switches']:,} "
                        f"| {res.counters['preemptions']:,} | {1e6 * t / n:.0f} |")
            print(rows[-1], flush=True)
    section = "\n".join([
        BEGIN,
        "## Scojo-PECT with space sharing (paper Z)",
        "",
        "`benchmarks/bench_scojo_pect.py`: paper Z's adjusted Lublin workloads (seed 0) on 128 "
        "nodes of two dual-core CPUs, policy `scojo_pect` with the study's parameters' "
        f"defaults; simulation only, median of {args.repeat}. Machine: "
        f"{pyplatform.machine()}, Python {pyplatform.python_version()}, one core.",
        "",
        "| workload | jobs | s | jobs/s | slice switches | preemptions | us per job |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "Per-job cost grows with the queue lengths (W2 saturates at times): each round looks at "
        "the active virtual machine's queue (due reservations, non-type backfilling candidates).",
        END,
    ])
    text = args.out.read_text() if args.out.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    args.out.write_text(text)


if __name__ == "__main__":
    main()
