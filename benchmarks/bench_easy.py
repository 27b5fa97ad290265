"""Time EASY backfilling: simulate() as a whole, the event loop alone, and ``simlib simulate``.

Usage::

    .venv/bin/python benchmarks/bench_easy.py [--traces SDSC-SP2 ...] [--repeats 5]
        [--compare OTHER_TREE]

For each trace (cleaned as the pipeline does, machine size from the SWF
header), in a fresh subprocess:

* ``simulate()``: :func:`simlib.runner.simulate` as a whole (engine jobs
  from the workload, the event loop, the Batsim jobs table), median of
  ``--repeats`` runs;
* ``loop``: ``Simulator.run()`` alone on jobs built beforehand, median:
  the engine's event loop, as every policy runs;
* ``compiled``: ``EASY.compiled_run(sim)`` alone on the same jobs, the
  compiled EASY loop that ``simulate()`` uses when nothing else takes part
  (``-`` for a tree without it);
* ``process``: wall time of ``python -m simlib.cli simulate TRACE -o
  jobs.csv`` (start-up, imports, reading, cleaning, simulating, writing the
  table, summary), median of ``--repeats`` processes.

With ``--compare DIR`` (another copy of the package, e.g. ``main`` exported
with ``git archive main | tar -x -C DIR``) every measurement alternates
between DIR and this tree (A/B interleaved, the machine's load shared), and
the table gets both columns and their ratio. Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
sys.path.insert(0, str(HERE))
from bench_policies import FILES, trace_path  # noqa: E402


def in_process(trace: str, repeats: int) -> dict:
    """simulate() and the loop alone, in this process (the tree on sys.path)."""
    from simlib.engine.simulator import Simulator, gc_paused
    from simlib.platform import Platform
    from simlib.policies import make_policy
    from simlib.runner import jobs_from_workload, simulate
    from simlib.workload.prepare import clean
    from simlib.workload.swf import max_procs, read_swf

    wl = read_swf(trace_path(trace))
    cpus = max_procs(wl)
    wl, _ = clean(wl, cpus)
    whole, loop, compiled = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate(wl, make_policy("easy"), cpus=cpus)
        whole.append(time.perf_counter() - t0)
        jobs = jobs_from_workload(wl, cpus=cpus)
        sim = Simulator(Platform.homogeneous(cpus), jobs, make_policy("easy"))
        t0 = time.perf_counter()
        sim.run()
        loop.append(time.perf_counter() - t0)
        jobs = jobs_from_workload(wl, cpus=cpus)
        sim = Simulator(Platform.homogeneous(cpus), jobs, make_policy("easy"))
        if hasattr(sim.policy, "compiled_run"):
            with gc_paused():  # as simulate() runs it
                t0 = time.perf_counter()
                ran = sim.policy.compiled_run(sim)
                t1 = time.perf_counter()
            if ran:
                compiled.append(t1 - t0)
    return {"jobs": len(wl.jobs), "cpus": cpus, "simulate_s": statistics.median(whole),
            "loop_s": statistics.median(loop),
            "compiled_s": statistics.median(compiled) if compiled else None}


FIELDS = ("simulate_s", "loop_s", "compiled_s", "process_s")


def measure(tree: Path, trace: str, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import bench_easy; "
            f"print(json.dumps(bench_easy.in_process({trace!r}, {repeats})))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=tempfile.gettempdir())
    return json.loads(out.stdout.splitlines()[-1])


def process_time(tree: Path, trace: str, out: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simlib.cli", "simulate", str(trace_path(trace)),
                    "-o", str(out)], env=env, check=True, stdout=subprocess.DEVNULL,
                   cwd=tempfile.gettempdir())
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", nargs="+", default=list(FILES), choices=list(FILES))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--compare", type=Path, metavar="DIR",
                    help="another tree to time alongside (A/B interleaved)")
    a = ap.parse_args()
    trees = ([("A", a.compare)] if a.compare else []) + [("B" if a.compare else "", TREE)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for trace in a.traces:
            res: dict = {}
            # Interleaved: one in-process run of each tree, alternately, then processes.
            for _ in range(a.repeats):
                for label, tree in trees:
                    m = measure(tree, trace, 1)
                    r = res.setdefault(label, {"jobs": m["jobs"], "cpus": m["cpus"], "simulate_s": [],
                                               "loop_s": [], "compiled_s": [], "process_s": []})
                    for field in ("simulate_s", "loop_s", "compiled_s"):
                        if m[field] is not None:
                            r[field].append(m[field])
                for label, tree in trees:
                    res[label]["process_s"].append(process_time(tree, trace, Path(tmp, "jobs.csv")))
            rows.append((trace, {k: {**v, **{f: statistics.median(v[f]) if v[f] else None
                                             for f in FIELDS}}
                                 for k, v in res.items()}))
    labels = [label for label, _ in trees]
    head = ["trace", "jobs", "CPUs"]
    for what in ("simulate() jobs/s", "engine loop jobs/s", "compiled loop jobs/s", "process s"):
        head += [f"{what} {label}".strip() for label in labels]
        if a.compare:
            head.append(f"{what.split()[0]} B/A")
    print(f"EASY, median of {a.repeats}" + (f"; A = {a.compare}, B = {TREE}" if a.compare else ""))
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for trace, res in rows:
        first = res[labels[0]]
        cells = [trace, f"{first['jobs']:,}", str(first["cpus"])]
        for field in FIELDS:
            rate = field != "process_s"
            vals = [res[label][field] for label in labels]
            cells += ["-" if v is None else f"{first['jobs'] / v:,.0f}" if rate else f"{v:.3f}"
                      for v in vals]
            if a.compare:
                cells.append("-" if None in vals else f"{vals[0] / vals[1]:.2f}x" if rate
                             else f"{vals[1] / vals[0]:.2f}")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
