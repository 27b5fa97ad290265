"""simlib vs AccaSim 1.1.3: EASY backfilling on the same SWF file, whole processes, interleaved.

Usage::

    .venv/bin/python benchmarks/bench_accasim.py [--trace SDSC-SP2] [--pairs 3]
        [--out benchmarks/RESULTS.md]

What a user waits for is timed: a fresh process each run, start-up,
imports, reading the file, simulating and writing the schedule. The two
simulators run in turn (A B A B ...), so a load change on the machine hits
both alike; the table gives each side's median and every pair's ratio.

* **The file.** The cleaned PWA log is cleaned once more by simlib's
  default policy (jobs with no runtime or size dropped, runtimes clipped to
  their request) and written as plain SWF; both simulators read that file,
  simlib with ``--no-clean``, so both schedule the same jobs.
* **AccaSim** is installed from PyPI into its own venv
  (``benchmarks/.accasim-venv``, created on first use). 1.1.3 predates
  Python 3.10, where ``collections.Mapping`` and its siblings moved to
  ``collections.abc``: the runner puts them back before importing it. Its
  dispatcher is ``EASYBackfilling(FirstFit())`` on a system of one group
  of single-core nodes, as many as the trace's processors; it writes its
  dispatching plan (``scheduling_output``), statistics off.
* **Bytecode.** pip compiled AccaSim's modules when it installed them;
  simlib's editable install compiles its own on first import and caches
  them, unless ``PYTHONDONTWRITEBYTECODE`` is set (as on our CI machine),
  when every run would compile the modules edited since the cache was
  written. So simlib's bytecode is compiled before timing (``compileall``):
  both sides start as an installed program does.
* **Semantics.** AccaSim's EASY differs from ours (Mu'alem & Feitelson's):
  it allocates nodes by first fit and keeps memory out of it here; it
  reads the same fields, but its start-up also builds a resource manager
  per node. The point of the row is jobs/s, not identical schedules.

The table goes into ``--out`` between the markers below (the rest of the
file is kept).
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import platform as pyplatform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from bench_policies import FILES, trace_path  # noqa: E402
from results_file import write_section  # noqa: E402

VENV = HERE / ".accasim-venv"
ACCASIM = "accasim==1.1.3"
BEGIN, END = "<!-- bench_accasim: begin -->", "<!-- bench_accasim: end -->"

#: Runs AccaSim's EASY in its venv; argv: swf, system config, output folder.
RUNNER = '''\
import collections, collections.abc, sys
for name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
    if not hasattr(collections, name):   # moved in Python 3.10; AccaSim 1.1.3 is older
        setattr(collections, name, getattr(collections.abc, name))
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import EASYBackfilling
from accasim.base.allocator_class import FirstFit
swf, cfg, out = sys.argv[1:4]
Simulator(swf, cfg, EASYBackfilling(FirstFit()), RESULTS_FOLDER_PATH=out, scheduling_output=True,
          statistics_output=False, show_statistics=False).start_simulation(system_status=False)
'''


def accasim_python() -> Path:
    """The venv's interpreter, installing AccaSim there first if needed."""
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    if subprocess.run([str(py), "-c", "import accasim"], capture_output=True).returncode:
        subprocess.run([str(py), "-m", "pip", "install", "-q", ACCASIM], check=True)
    return py


def prepare(trace: str, workdir: Path) -> tuple[Path, Path, int, int]:
    """(swf, AccaSim system config, jobs, processors) of the cleaned trace."""
    from simlib.workload.prepare import clean
    from simlib.workload.swf import header_value, read_swf, write_swf
    wl = read_swf(trace_path(trace))
    procs = int(header_value(wl, "MaxProcs") or header_value(wl, "MaxNodes"))
    wl, _ = clean(wl, procs)
    swf = workdir / f"{trace}.swf"
    write_swf(wl, swf)
    start = int(header_value(wl, "UnixStartTime") or 0)
    cfg = workdir / f"{trace}.accasim.json"
    cfg.write_text(json.dumps({"system_name": trace, "start_time": start, "equivalence": {},
                               "groups": {"g0": {"core": 1}}, "resources": {"g0": procs}}))
    return swf, cfg, len(wl.jobs), procs


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="SDSC-SP2", choices=sorted(FILES))
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = ap.parse_args(argv)
    acc_py = accasim_python()
    simlib = Path(sys.executable).with_name("simlib")
    compileall.compile_dir(str(REPO / "simlib"), quiet=1)  # see "Bytecode" above
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        swf, cfg, n_jobs, procs = prepare(args.trace, work)
        runner = work / "run_accasim.py"
        runner.write_text(RUNNER)
        acc_cmd = [str(acc_py), str(runner), str(swf), str(cfg), str(work / "accasim-out")]
        ours_cmd = [str(simlib), "simulate", str(swf), "--policy", "easy", "--cpus", str(procs),
                    "--no-clean", "-o", str(work / "jobs.csv")]
        pairs = []
        for i in range(args.pairs):
            a = timed(acc_cmd)
            b = timed(ours_cmd)
            pairs.append((a, b))
            print(f"pair {i + 1}: AccaSim {a:.2f} s, simlib {b:.2f} s, ratio {b / a:.4f}",
                  flush=True)
    acc = statistics.median(a for a, _ in pairs)
    ours = statistics.median(b for _, b in pairs)
    lines = [
        BEGIN,
        "## simlib vs AccaSim (EASY, whole process)", "",
        f"`benchmarks/bench_accasim.py --trace {args.trace} --pairs {args.pairs}`: "
        f"{args.trace} cleaned by simlib's default policy and written as plain SWF "
        f"({n_jobs:,} jobs, {procs} processors); each run a fresh process (start-up, imports, "
        "read, simulate, write the schedule); AccaSim 1.1.3 `EASYBackfilling(FirstFit())` in "
        "its own venv vs `simlib simulate --policy easy --no-clean -o jobs.csv`, interleaved "
        f"A B A B. Machine: {pyplatform.machine()}, Python {pyplatform.python_version()}, "
        f"{os.cpu_count()} cores (timings taken with other work running are upper bounds).", "",
        "| pair | AccaSim s | simlib s | simlib / AccaSim |", "|---:|---:|---:|---:|",
        *[f"| {i + 1} | {a:.2f} | {b:.2f} | {b / a:.4f} |" for i, (a, b) in enumerate(pairs)],
        f"| **median** | **{acc:.2f}** | **{ours:.2f}** | **{ours / acc:.4f}** "
        f"(simlib {acc / ours:.0f}× faster) |", "",
        f"Jobs/s, whole process: AccaSim {n_jobs / acc:,.0f}, simlib {n_jobs / ours:,.0f}.",
        END,
    ]
    block = "\n".join(lines)
    write_section(Path(args.out), block, BEGIN, END)
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
