"""Time G-LOMARC-TS runs of paper Z under the main reading of group matchmaking and the old one.

Usage::

    .venv/bin/python benchmarks/bench_glts_readings.py [--repeat 1] [--seeds 0]
        [--variants GLTS CST CSTWS FBO NS NH] [--out benchmarks/RESULTS.md]

Each row: one (workload, seed, variant) of 10,000 jobs with the pipeline's
parameters (``config/grids/zeng.yaml`` at the default scale, Table 6 and
§5.1 from ``config/published/zeng.yaml``), under

- ``main``: the grid's ``glts.matchmaking`` (Case 4 last, jobs matched again,
  groups non-type backfilled: the text's reading);
- ``before``: the four switches whose default changed set to the code's
  behaviour before they existed (``case4_last``, ``case5_max_sl``,
  ``rematch``, ``group_non_type_backfilling`` false), which gives the old code's schedules
  exactly (``benchmarks/check_identical_zeng.py --new-params``).

Times are CPU seconds of the simulation alone (``time.process_time`` around
:func:`simlib.studies.zeng.runs.run`, workload generation left out; the
median of ``--repeat``), so that another process on the machine does not
inflate them as it does wall time. The table goes into the section of
``--out`` between the markers below (the rest of the file is left as it is).
"""
from __future__ import annotations

import argparse
import platform as pyplatform
import statistics
import time
from pathlib import Path

from results_file import write_section

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BEGIN, END = "<!-- bench_glts_readings: begin -->", "<!-- bench_glts_readings: end -->"
BEFORE = {"case4_last": False, "case5_max_sl": False, "rematch": False,
          "group_non_type_backfilling": False}


def study():
    from simlib.io import read_yaml
    from simlib.studies.base import load_study
    grid = read_yaml(REPO / "config/grids/zeng.yaml")
    cfg = {"scale": "default", "registry": grid["registry"], "studies": dict(grid["studies"])}
    cfg["studies"]["zeng"]["published"] = str(REPO / "config/published/zeng.yaml")
    return load_study("zeng", cfg, "default", repo=REPO)


def main() -> None:
    from simlib.engine.simulator import gc_paused
    from simlib.studies.zeng.runs import run
    from simlib.studies.zeng.slowdowns import CoschedulingSlowdowns
    from simlib.studies.zeng.workloads import generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--workloads", nargs="+", default=["W1", "W2"])
    ap.add_argument("--variants", nargs="+", default=["GLTS", "CST", "CSTWS", "FBO", "NS", "NH"])
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()
    st = study()
    rows = []
    for w in args.workloads:
        for seed in args.seeds:
            wp = st.workload_params(w, "default")
            frame = generate(wp.pop("alpha"), wp.pop("jobs"), seed, **wp)
            for variant in args.variants:
                for name, extra in (("before", BEFORE), ("main", {})):
                    params = {**st.glts_params(), "variant": variant, **extra}
                    cpu, res = [], None
                    for _ in range(args.repeat):
                        cos = CoschedulingSlowdowns(st._table4(), seed)
                        with gc_paused():
                            t0 = time.process_time()
                            res = run(frame, policy="glomarc_ts", params=params, cos=cos)
                            cpu.append(time.process_time() - t0)
                    c = res.counters
                    rows.append(f"| {w} | {seed} | {variant} | {name} | {statistics.median(cpu):.1f} | "
                                f"{c['groups']:,} | {c['grouped_jobs']:,} | {c['eligible_in_groups']:.1f} |")
                    print(rows[-1], flush=True)
    section = "\n".join([
        BEGIN,
        "## Paper Z: G-LOMARC-TS under the main reading of group matchmaking and before it",
        "",
        "`benchmarks/bench_glts_readings.py`: 10,000 jobs, the pipeline's parameters (default "
        "scale); `before` = `case4_last`, `case5_max_sl`, `rematch` and "
        "`group_non_type_backfilling` false (the "
        "old code's schedules, checked identical by `benchmarks/check_identical_zeng.py "
        "--new-params`), `main` = the grid's reading. CPU seconds of the simulation alone, "
        f"median of {args.repeat}. Machine: {pyplatform.machine()}, Python "
        f"{pyplatform.python_version()}, one core.",
        "",
        "| workload | seed | variant | reading | CPU s | groups | grouped jobs | grouped (% of eligible) |",
        "|---|---:|---|---|---:|---:|---:|---:|",
        *rows,
        END,
    ])
    write_section(args.out, section, BEGIN, END)


if __name__ == "__main__":
    main()
