"""Time user policies written with EASY's hooks against built-in EASY, as whole processes.

Usage::

    .venv/bin/python benchmarks/bench_user_policies.py [--trace SDSC-SP2] [--repeats 7]
        [--out benchmarks/RESULTS.md]

Each configuration is one ``simlib simulate TRACE ... -o jobs.csv`` process,
run from the repository's top directory as docs/writing_a_policy.md shows
(start-up, imports, reading and cleaning the trace, simulating, writing the
table): built-in ``easy``, the examples ``sjf_easy`` and ``easy_small``
(``--policy-module examples/policies/...``), and the same policies on the
engine's loop (``SIMLIB_KERNELS=python``: where a policy overriding more
than EASY's hooks runs). One repeat runs every configuration once, in turn
(paired: the machine's load is shared); reported are the median wall time
over the repeats and the median of the per-repeat ratios to ``easy``.
Prints a Markdown table; ``--out`` also writes it into that file between
this script's markers.
"""
from __future__ import annotations

import argparse
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

BEGIN, END = "<!-- bench_user_policies: begin -->", "<!-- bench_user_policies: end -->"
SIMLIB = Path(sys.executable).with_name("simlib")
#: label -> (options after TRACE, SIMLIB_KERNELS)
CONFIGS = {
    "easy": (["--policy", "easy"], "compiled"),
    "sjf_easy": (["--policy-module", "examples/policies/sjf_easy.py", "--policy", "sjf_easy"],
                 "compiled"),
    "easy_small": (["--policy-module", "examples/policies/easy_small.py", "--policy",
                    "easy_small"], "compiled"),
    "easy, engine loop": (["--policy", "easy"], "python"),
    "sjf_easy, engine loop": (["--policy-module", "examples/policies/sjf_easy.py", "--policy",
                               "sjf_easy"], "python"),
}


def one_process(trace: Path, options: list[str], kernels: str, out: Path) -> float:
    """Wall time of one ``simlib simulate`` process (seconds)."""
    env = dict(os.environ, SIMLIB_KERNELS=kernels)
    t0 = time.perf_counter()
    proc = subprocess.run([str(SIMLIB), "simulate", str(trace), *options, "-o", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(proc.stderr)
    loop = "compiled EASY loop)" in proc.stdout
    if loop != (kernels == "compiled"):
        raise SystemExit(f"{options} ran {'compiled' if loop else 'the engine loop'}: "
                         f"{proc.stdout}")
    return elapsed


def measure(trace: str, repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {label: [] for label in CONFIGS}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "jobs.csv"
        one_process(trace_path(trace), *CONFIGS["easy"], out)  # warm the file cache
        for _ in range(repeats):
            for label, (options, kernels) in CONFIGS.items():
                times[label].append(one_process(trace_path(trace), options, kernels, out))
    return times


def markdown(trace: str, times: dict[str, list[float]]) -> str:
    base = times["easy"]
    lines = [f"Trace {trace} ({FILES[trace][0]}, {FILES[trace][1]} CPUs), {len(base)} paired "
             f"repeats; {pyplatform.python_implementation()} {pyplatform.python_version()}, "
             f"{os.cpu_count()} CPUs.", "",
             "| policy | loop | median wall time (s) | min (s) | ratio to easy (median of pairs) |",
             "|---|---|---:|---:|---:|"]
    for label, values in times.items():
        ratio = statistics.median(v / b for v, b in zip(values, base))
        name, _, loop = label.partition(", ")
        lines.append(f"| {name} | {loop or 'compiled'} | {statistics.median(values):.3f} | "
                     f"{min(values):.3f} | {ratio:.2f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="SDSC-SP2", choices=list(FILES))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", type=Path, help="write the table into this file (between markers)")
    a = ap.parse_args()
    if a.repeats < 5:
        ap.error("--repeats must be at least 5 (medians of paired runs)")
    text = markdown(a.trace, measure(a.trace, a.repeats))
    print(text)
    if a.out:
        old = a.out.read_text(encoding="utf-8")
        if BEGIN in old:
            head, rest = old.split(BEGIN, 1)
            new = head + BEGIN + "\n" + text + "\n" + END + rest.split(END, 1)[1]
            a.out.write_text(new, encoding="utf-8")
        else:
            raise SystemExit(f"{a.out} has no {BEGIN} marker: add the section first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
