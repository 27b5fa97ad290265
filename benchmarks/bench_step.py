"""One pipeline step timed outside Snakemake: its CPU time and its outputs' digests.

Usage::

    .venv/bin/python benchmarks/bench_step.py --dir RUNDIR STEP name=value ...
        [--repo TREE ...] [--repeats N]

Runs the study step ``STEP`` (its rule name, e.g. ``kumar_simulate``) for
the given wildcards, reading its inputs from ``RUNDIR`` (a directory where
the pipeline has made them, e.g. a checkout after ``make reproduce``) and
writing its outputs to a temporary directory, each time in a fresh process
that imports simlib from ``TREE`` (default: this tree; give several, e.g.
the code before a change exported with ``git archive COMMIT | tar -x -C
TREE``, to compare them interleaved). Printed per run: CPU time of the step
(its process and the child processes it waited for; simlib's modules
imported before it starts, those the step imports itself included), which
compiled kernels the tree used (a tree exported with ``git archive`` has
none built: copy them in or its pure-Python paths are timed) and a sha256
of each output's content (gzip files decompressed), so a pair of trees
shows the speed-up and that the results are the same.

The config is ``config/config.yaml`` with every grid merged in, as the
Snakefile reads it; it is not validated again (the pipeline did that when
it made ``RUNDIR``), so schema defaults are not filled in: a step reading
an optional key it does not set itself is not for this script.

Example (paper K, a default-scale step with dedicated jobs)::

    .venv/bin/python benchmarks/bench_step.py --dir ../repro kumar_simulate scale=default \\
        purpose=readings workload=lead_week@het_pd09_ps05 policy=easy_d --repo /tmp/before .
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def merged_config(repo: Path) -> dict:
    """``config/config.yaml`` with the grids merged in, recursively (Snakemake's way)."""
    import yaml

    def merge(into: dict, new: dict) -> None:
        for key, value in new.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            else:
                into[key] = value

    config = yaml.safe_load((repo / "config" / "config.yaml").read_text(encoding="utf-8"))
    for grid in sorted((repo / "config" / "grids").glob("*.yaml")):
        merge(config, yaml.safe_load(grid.read_text(encoding="utf-8")))
    return config


def digest(path: Path) -> str:
    if path.is_dir():
        h = hashlib.sha256()
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(str(f.relative_to(path)).encode() + b"\0" + digest(f).encode())
        return h.hexdigest()[:16]
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return hashlib.sha256(data).hexdigest()[:16]


def run_child(step_name: str, wildcards: dict, out_dir: Path) -> dict:
    """In the child process (cwd = the run directory): run the step once."""
    import logging
    import resource
    import time

    from simlib.studies.base import REPO as TREE
    from simlib.studies.base import Files, StepContext, enabled_studies

    config = merged_config(TREE)
    config["scale"] = wildcards.get("scale", config["scale"])
    step = study = None
    for study in enabled_studies(config, config["scale"], repo=TREE):
        step = next((s for s in study.steps() if s.name == step_name), None)
        if step is not None:
            break
    if step is None:
        sys.exit(f"bench_step: no enabled study has a step {step_name!r}")
    w = Files(wildcards)  # attribute and item access, as Snakemake's wildcards

    def resolve(value):
        return dict(value(w) if callable(value) else value or {})

    def out(pattern):
        return str(out_dir / pattern.format(**wildcards))

    outputs = {k: ([out(p) for p in v] if isinstance(v, list) else out(v))
               for k, v in step.output.items()}
    for paths in outputs.values():
        for p in paths if isinstance(paths, list) else [paths]:
            Path(p).parent.mkdir(parents=True, exist_ok=True)
    log = logging.getLogger("bench_step")
    log.addHandler(logging.NullHandler())
    ctx = StepContext(input=Files(resolve(step.input)), output=Files(outputs),
                      params=resolve(step.params), wildcards=dict(wildcards), log=log,
                      config=config)
    from simlib.policies import kernels
    used = {name: ("compiled" if kernels.problem(name)[0] is not None and kernels.mode() != "python"
                   else "python") for name in kernels.KERNELS}
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, cpu0 = time.perf_counter(), time.process_time()
    step.run(ctx)
    cpu = time.process_time() - cpu0
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += (child.ru_utime + child.ru_stime) - (child0.ru_utime + child0.ru_stime)
    digests = {}
    for _, paths in sorted(outputs.items()):
        for p in paths if isinstance(paths, list) else [paths]:
            digests[str(Path(p).relative_to(out_dir))] = digest(Path(p))
    return {"tree": str(TREE), "wall": time.perf_counter() - t0, "cpu": cpu, "kernels": used,
            "outputs": digests}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, required=True, help="run directory holding the inputs")
    ap.add_argument("--repo", type=Path, nargs="+", default=[REPO], help="project trees to time")
    ap.add_argument("--repeats", type=int, default=1, help="runs per tree, interleaved")
    ap.add_argument("step", help="the step's rule name")
    ap.add_argument("wildcards", nargs="*", metavar="name=value")
    ap.add_argument("--child", metavar="OUT", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    bad = [w for w in args.wildcards if "=" not in w]
    if bad:
        ap.error(f"wildcards are name=value, not {' '.join(bad)}")
    wildcards = dict(w.split("=", 1) for w in args.wildcards)
    if args.child:
        print("BENCH " + json.dumps(run_child(args.step, wildcards, Path(args.child))))
        return 0
    rows = []
    for _ in range(args.repeats):
        for tree in args.repo:
            tree = tree.resolve()
            with tempfile.TemporaryDirectory(prefix="bench_step_") as tmp:
                env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                    [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])]))
                res = subprocess.run([sys.executable, __file__, "--dir", str(args.dir), "--child",
                                      tmp, args.step, *args.wildcards], cwd=args.dir, env=env,
                                     capture_output=True, text=True)
                line = [x for x in res.stdout.splitlines() if x.startswith("BENCH ")]
                if res.returncode != 0 or not line:
                    sys.stderr.write(res.stderr[-4000:])
                    sys.exit(f"bench_step: the step failed with {tree}")
                row = json.loads(line[-1][len("BENCH "):])
                rows.append(row)
                outs = ", ".join(f"{k} {v}" for k, v in row["outputs"].items())
                used = ", ".join(f"{k} {v}" for k, v in row["kernels"].items())
                print(f"{row['tree']}: CPU {row['cpu']:.2f} s, wall {row['wall']:.2f} s "
                      f"(kernels: {used}); {outs}", flush=True)
    same = len({json.dumps(r["outputs"], sort_keys=True) for r in rows}) == 1
    print("outputs identical across runs" if same else "OUTPUTS DIFFER across runs")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
