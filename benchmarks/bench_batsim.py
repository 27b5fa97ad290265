"""Cross-check with Batsim: the same jobs under Batsim + pybatsim and under simlib.

Usage::

    scripts/batsim.sh install ~/.local/batsim          # once (see the script)
    SIMLIB_BATSIM=~/.local/batsim .venv/bin/python benchmarks/bench_batsim.py \\
        [--jobs 5000] [--traces KTH-SP2 SDSC-SP2] [--traces-dir DIR] [--d-jobs 300] \\
        [--out benchmarks/RESULTS_batsim.md]

Traces (``--traces-dir``, default ``$SIMLIB_TRACES`` or ``../shared/traces``
beside the repository, where the pipeline's traces rule also looks): each
log is cleaned by the pipeline's rules on its MaxProcs, its first ``--jobs``
jobs are written as a Batsim workload of delay profiles (``simlib convert``'s
writer; submit times shifted so the first is 1 s, since pybatsim's
``schedFcfs`` asserts on a job submitted at 0) with a platform of one
zero-latency cluster, and both simulators read those same two files:

* Batsim v4.2.1 with pybatsim 3.2.1's ``schedFcfs`` and ``easyBackfill``;
* ``simlib simulate W.json`` with ``fcfs`` (counts, then ``allocation=contiguous``,
  then also ``--passes per_event``, the rules pybatsim's FCFS follows) and ``easy``
  (Mu'alem & Feitelson's, then ``reading=pybatsim`` with ``--passes per_event``).

Each row gives the share of jobs whose start times are equal (within 1e-6 s),
the first job that differs and the mean waits, and each simulator's
whole-process wall time and peak memory (simlib under ``/usr/bin/time -v``;
Batsim and pybatsim from ``wait4``, both processes' times added).

Paper D (``--d-jobs``): one seed's workload made as the study makes it (the
CEA-Curie log, :mod:`simlib.studies.dutot.workloads`, seed 0), its jobs as
Batsim ``parallel`` profiles (computation vector and communication matrix of
:func:`simlib.studies.dutot.tasks.parallel_task`, F_comm = ``--d-f-comm``), on
§5.3's platform as printed (config), run by Batsim under ``schedFcfs`` and by
simlib's SimGrid backend under ``fcfs`` with ``allocation=contiguous`` (the
same order and the same rule, hence the same hosts): start times, execution
times and hosts are compared job by job.

The section between the markers below in ``--out`` is replaced; the rest of
the file is left as it is.
"""
from __future__ import annotations

import argparse
import os
import platform as pyplatform
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import yaml
from process_time import time_v
from results_file import write_section

from simlib.batsim.crosscheck import FIRST_SUBMIT, delay_inputs, read_batsim_jobs
from simlib.io import write_text

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BEGIN, END = "<!-- bench_batsim: begin -->", "<!-- bench_batsim: end -->"
SIMLIB = Path(sys.executable).with_name("simlib")
#: (label, simlib --policy and --param/--passes options, pybatsim scheduler).
DELAY_RUNS = (
    ("FCFS", ["--policy", "fcfs"], "schedFcfs"),
    ("FCFS, contiguous", ["--policy", "fcfs", "--param", "allocation=contiguous"], "schedFcfs"),
    ("FCFS, contiguous, per event", ["--policy", "fcfs", "--param", "allocation=contiguous",
                                     "--passes", "per_event"], "schedFcfs"),
    ("EASY", ["--policy", "easy"], "easyBackfill"),
    ("EASY, pybatsim reading, per event", ["--policy", "easy", "--param", "reading=pybatsim",
                                           "--passes", "per_event"], "easyBackfill"),
)
ATOL = 1e-6


def trace_path(traces_dir: Path, name: str) -> Path:
    hits = sorted(traces_dir.glob(f"{name}-*.swf.gz"))
    if not hits:
        sys.exit(f"bench_batsim: no {name}-*.swf.gz in {traces_dir} (give --traces-dir, or run "
                 "the pipeline's traces rule, which downloads the logs)")
    return hits[0]


def run_simlib(workload: Path, options: list[str], out: Path) -> tuple[Path, float, int]:
    """``simlib simulate`` under ``/usr/bin/time -v``: jobs table, wall seconds, peak KiB."""
    table = out / "jobs.csv"
    wall, peak = time_v([str(SIMLIB), "simulate", str(workload), *options, "-o", str(table)])
    return table, wall, peak


def compare_starts(ours: pd.DataFrame, theirs: pd.DataFrame) -> dict:
    """Share of equal start times and the first job (in our start order) that differs."""
    theirs = theirs.loc[ours.index]
    same = np.isclose(ours["starting_time"], theirs["starting_time"], rtol=0, atol=ATOL)
    out = {"identical": float(same.mean()), "jobs": int(len(same)),
           "wait_ours": float(ours["waiting_time"].mean()),
           "wait_batsim": float(theirs["waiting_time"].mean()), "first": None}
    if not same.all():
        order = np.argsort(ours["starting_time"].to_numpy(), kind="stable")
        i = next(k for k in order if not same[k])
        out["first"] = {"job": int(ours.index[i]), "submit": float(ours["submission_time"].iloc[i]),
                        "size": int(ours["requested_number_of_resources"].iloc[i]),
                        "ours": float(ours["starting_time"].iloc[i]),
                        "batsim": float(theirs["starting_time"].iloc[i])}
    return out


def delay_rows(args, trace_name: str) -> list[dict]:
    out = Path(args.work) / trace_name
    out.mkdir(parents=True, exist_ok=True)
    workload, platform, cpus = delay_inputs(trace_path(Path(args.traces_dir), trace_name),
                                            args.jobs, out)   # simlib.batsim.crosscheck
    batsim_runs = {}
    rows = []
    for label, options, scheduler in DELAY_RUNS:
        if scheduler not in batsim_runs:
            run = batsim_run(workload, platform, scheduler, out / f"batsim-{scheduler}", args)
            batsim_runs[scheduler] = (run, read_batsim_jobs(run["jobs_csv"]))
        run, theirs = batsim_runs[scheduler]
        mine = out / re.sub(r"\W+", "-", label.lower())
        mine.mkdir(exist_ok=True)
        table, wall, peak = run_simlib(workload, options, mine)
        ours = pd.read_csv(table).set_index("job_id")
        rows.append({"trace": trace_name, "cpus": cpus, "label": label, "scheduler": scheduler,
                     "options": " ".join(options), **compare_starts(ours, theirs),
                     "simlib_s": wall, "simlib_mib": peak / 1024, **run["usage"]})
        print(f"{trace_name} {label}: {rows[-1]['identical']:.1%} identical", flush=True)
    return rows


def batsim_run(workload: Path, platform: Path, scheduler: str, outdir: Path, args) -> dict:
    """Batsim's jobs table and whole-process usage, from a run now or, with
    ``--reuse-batsim``, from an earlier run on the same input files (pybatsim's
    FCFS takes minutes per 5,000 jobs; the sha256 of both files decides)."""
    import hashlib
    import json

    from simlib.batsim.run import run_batsim

    key = hashlib.sha256(workload.read_bytes() + platform.read_bytes()
                         + scheduler.encode()).hexdigest()
    stamp = outdir / "simlib-bench.json"
    if args.reuse_batsim and stamp.exists():
        saved = json.loads(stamp.read_text())
        if saved["key"] == key and Path(saved["jobs_csv"]).exists():
            return saved
    run = run_batsim(workload, platform, scheduler, outdir, timeout=args.timeout)
    saved = {"key": key, "jobs_csv": str(run.jobs_csv),
             "usage": {"batsim_s": run.batsim.wall_s, "pybatsim_s": run.scheduler.wall_s,
                       "batsim_mib": (run.batsim.peak_rss_kib + run.scheduler.peak_rss_kib) / 1024}}
    stamp.write_text(json.dumps(saved))
    return saved


# ------------------------------------------------------------------ paper D
def d_inputs(args, out: Path):
    """Paper D's seed-0 workload, §5.3's printed platform, and both as Batsim files."""
    from simlib.studies.dutot.platforms import homogeneous_platform
    from simlib.studies.dutot.tasks import parallel_task
    from simlib.studies.dutot.workloads import make_workload, pool_by_rule
    from simlib.workload.batsim import BatsimWorkload, write_batsim
    from simlib.workload.prepare import CleaningPolicy
    from simlib.workload.swf import max_procs, read_swf

    study = yaml.safe_load((REPO / "config/grids/dutot.yaml").read_text())["studies"]["dutot"]
    published = yaml.safe_load((REPO / study["published"]).read_text())
    wcfg, tcfg = study["workload"], study["task"]
    net = homogeneous_platform(published, study["homogeneous"], "printed")
    raw = read_swf(trace_path(Path(args.traces_dir), "CEA-Curie"))
    pool, _, _ = pool_by_rule(raw, max_procs(raw), CleaningPolicy(), rule=wcfg["pool_rule"],
                              max_size=int(wcfg["max_size"]),
                              runtime_min=float(wcfg["runtime_min"]),
                              runtime_max=float(wcfg["runtime_max"]))
    wl = make_workload(pool, jobs=args.d_jobs, base_seed=int(wcfg["base_seed"]), seed=0,
                       order=wcfg["order"], f_w=float(wcfg["f_w"]))
    wl.jobs["submit_time"] = FIRST_SUBMIT   # schedFcfs asserts on a job submitted at 0
    t = wl.jobs
    ids = [str(int(x)).zfill(len(str(int(t["job_id"].max())))) for x in t["job_id"]]
    profiles, names = {}, []
    for job_id, size, ret in zip(ids, t["requested_procs"], t["run_time"]):
        job = SimpleNamespace(procs=int(size), work=float(ret))
        cpu, com = parallel_task(job, f_comp=float(tcfg["f_comp"]), f_comm=args.d_f_comm,
                                 self_communication=bool(tcfg["self_communication"]))
        names.append(f"ptask_{job_id}")
        profiles[names[-1]] = {"type": "parallel", "cpu": cpu, "com": com}
    batsim = BatsimWorkload(nb_res=net.nodes, ids=ids, subtime=t["submit_time"],
                            walltime=t["requested_time"], res=t["requested_procs"],
                            profile=names, profiles=profiles)
    write_batsim(batsim, out / "workload.json")
    write_text(out / "platform.xml", net.to_batsim_xml())
    return wl, net, batsim, float(tcfg["f_comp"])


def d_row(args) -> dict:
    from simlib.backends.simgrid import simulate_simgrid
    from simlib.batsim.run import run_batsim
    from simlib.policies import make_policy
    from simlib.workload.batsim import read_batsim

    out = Path(args.work) / "dutot"
    out.mkdir(parents=True, exist_ok=True)
    wl, net, _, f_comp = d_inputs(args, out)
    # The task of each job as read back from the Batsim file: both simulators run the same numbers.
    batsim = read_batsim(out / "workload.json")
    index = {int(x): i for i, x in enumerate(batsim.ids)}

    def task(job):
        return batsim.parallel_task(index[int(job.job_id)])

    t0 = time.perf_counter()
    res = simulate_simgrid(wl, make_policy("fcfs", allocation="contiguous"), net, task,
                           workload_name="dutot-seed0")
    ours_s = time.perf_counter() - t0
    run = run_batsim(out / "workload.json", out / "platform.xml", "schedFcfs",
                     out / "batsim-schedFcfs", timeout=args.timeout)
    res.jobs.to_csv(out / "simlib-jobs.csv", index=False)
    ours = res.jobs.set_index(res.jobs["job_id"].astype(int))
    theirs = read_batsim_jobs(run.jobs_csv).loc[ours.index]
    hosts = (ours["allocated_resources"].astype(str).str.strip()
             == theirs["allocated_resources"].astype(str).str.strip())
    d_start = (ours["starting_time"] - theirs["starting_time"]).abs()
    d_exec = (ours["execution_time"] - theirs["execution_time"]).abs()
    return {"jobs": int(len(ours)), "nodes": net.nodes, "platform": net.name,
            "f_comm": args.d_f_comm, "f_comp": f_comp, "same_hosts": float(hosts.mean()),
            "start_max": float(d_start.max()), "exec_max": float(d_exec.max()),
            "exec_rel_max": float((d_exec / theirs["execution_time"]).max()),
            "killed_ours": int((ours["success"] == 0).sum()),
            "killed_batsim": int((theirs["final_state"] != "COMPLETED_SUCCESSFULLY").sum()),
            "makespan_ours": float(ours["finish_time"].max()),
            "makespan_batsim": float(theirs["finish_time"].max()),
            "simlib_s": ours_s, "batsim_s": run.batsim.wall_s, "pybatsim_s": run.scheduler.wall_s}


# ------------------------------------------------------------------ report
def section(rows: list[dict], d: dict | None, args, standin: bool, seconds: float) -> str:
    lines = [BEGIN, "## Batsim cross-check", "",
             f"Command: `SIMLIB_BATSIM=PREFIX .venv/bin/python benchmarks/bench_batsim.py "
             f"--jobs {args.jobs} --traces {' '.join(args.traces)} --d-jobs {args.d_jobs} "
             f"--d-f-comm {args.d_f_comm:g}` ("
             + ("Batsim's delay-profile runs reused from an earlier run on the same files, "
                if args.reuse_batsim else "")
             + f"{seconds / 60:.0f} min). Machine: "
             f"{pyplatform.processor() or pyplatform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {pyplatform.python_version()}; Batsim v4.2.1, pybatsim 3.2.1.", ""]
    if standin:
        lines += ["**This Batsim links simlib's intervalset stand-in** (the upstream library "
                  "could not be fetched here; `scripts/batsim.sh`): rebuild with the upstream "
                  "intervalset before citing these figures.", ""]
    lines += [f"First {args.jobs} cleaned jobs of each log, delay profiles, one zero-latency "
              "cluster; equal = start times within 1e-6 s.", "",
              "| trace | simlib | pybatsim | equal starts | first job that differs "
              "(submit, size: simlib / Batsim start) | mean wait simlib / Batsim (s) | "
              "simlib s, MiB | Batsim + pybatsim s, MiB |",
              "|---|---|---|---:|---|---:|---:|---:|"]
    for r in rows:
        f = r["first"]
        first = ("none" if f is None else
                 f"job {f['job']} ({f['submit']:.0f} s, {f['size']}: {f['ours']:.0f} / "
                 f"{f['batsim']:.0f})")
        lines.append(f"| {r['trace']} ({r['cpus']} CPUs) | `{r['options']}` | {r['scheduler']} | "
                     f"{r['identical']:.1%} | {first} | {r['wait_ours']:.0f} / "
                     f"{r['wait_batsim']:.0f} | {r['simlib_s']:.2f}, {r['simlib_mib']:.0f} | "
                     f"{r['batsim_s'] + r['pybatsim_s']:.1f}, {r['batsim_mib']:.0f} |")
    if d is not None:
        lines += ["", f"Paper D: {d['jobs']} jobs (seed 0) as parallel tasks, F_comm "
                  f"{d['f_comm']:g}, F_comp {d['f_comp']:g}, on §5.3's platform "
                  f"({d['platform']}, {d['nodes']} nodes); FCFS, contiguous hosts.", "",
                  "| same hosts | max abs start difference (s) | max abs execution-time "
                  "difference (s, relative) | killed simlib / Batsim | makespan simlib / Batsim (s) "
                  "| simlib s | Batsim + pybatsim s |", "|---:|---:|---:|---:|---:|---:|---:|",
                  f"| {d['same_hosts']:.1%} | {d['start_max']:.3g} | {d['exec_max']:.3g} "
                  f"({d['exec_rel_max']:.2g}) | {d['killed_ours']} / {d['killed_batsim']} | "
                  f"{d['makespan_ours']:.1f} / {d['makespan_batsim']:.1f} | {d['simlib_s']:.1f} | "
                  f"{d['batsim_s'] + d['pybatsim_s']:.1f} |"]
    lines.append(END)
    return "\n".join(lines)


def main() -> None:
    from simlib.batsim.run import find_batsim

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=5000)
    ap.add_argument("--traces", nargs="*", default=["KTH-SP2", "SDSC-SP2"])
    ap.add_argument("--traces-dir", default=os.environ.get("SIMLIB_TRACES",
                                                           str(REPO.parent / "shared" / "traces")))
    ap.add_argument("--d-jobs", type=int, default=300, help="0: skip paper D's check")
    ap.add_argument("--d-f-comm", type=float, default=6e7)
    ap.add_argument("--work", default=str(REPO / "build" / "bench_batsim"))
    ap.add_argument("--timeout", type=float, default=3600.0)
    ap.add_argument("--reuse-batsim", action="store_true",
                    help="reuse Batsim's output of an earlier run on the same files (--work)")
    ap.add_argument("--out", default=str(HERE / "RESULTS_batsim.md"))
    args = ap.parse_args()
    install = find_batsim()
    t0 = time.perf_counter()
    rows = [row for name in args.traces for row in delay_rows(args, name)]
    d = d_row(args) if args.d_jobs else None
    text = section(rows, d, args, install.standin, time.perf_counter() - t0)
    write_section(Path(args.out), text, BEGIN, END)
    print(text)


if __name__ == "__main__":
    main()
