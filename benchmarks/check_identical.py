"""Check that this tree's ``simlib simulate`` gives the same outputs as another tree's.

Usage::

    .venv/bin/python benchmarks/check_identical.py --old /tmp/simlib_main [--traces SDSC-SP2 ...]
        [--policies easy conservative ...] [--extend]

``--old`` is a directory holding another copy of the package (e.g. ``main``
exported with ``git archive main | tar -x -C /tmp/simlib_main``). For each
trace and policy both trees run ``python -m simlib.cli simulate TRACE
--policy P -o jobs.csv`` in a subprocess (cleaning on, the machine size from
the header); the jobs tables must be equal byte for byte (they hold every
job's start and finish) and so must the printed summaries, but for the wall
time line. ``--extend`` adds runs with ``--overrun extend``. ``--skip-columns
NAME ...`` leaves columns of the jobs tables out of the comparison (e.g.
``allocated_resources`` against a tree where count-based jobs took the
cores freed last rather than the lowest free ids: the same schedule on
other core ids).
Exit status 0 when everything is identical, 1 otherwise.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW = HERE.parent
sys.path.insert(0, str(HERE))
from bench_policies import FILES, trace_path  # noqa: E402


def run(tree: Path, args: list[str], out: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, "-m", "simlib.cli", "simulate", *args, "-o", str(out)],
                          env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: simlib simulate {' '.join(args)} failed:\n{proc.stderr}")
    return "\n".join(line for line in proc.stdout.splitlines()
                     if not line.startswith(("wall time", "jobs table")))


def _without(path: Path, columns: list[str]) -> list[list[str]]:
    """The rows of a jobs table (as text cells) without ``columns``."""
    import csv
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    keep = [i for i, name in enumerate(rows[0]) if name not in columns]
    return [[row[i] for i in keep] for row in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, type=Path, help="directory of the reference tree")
    ap.add_argument("--traces", nargs="+", default=list(FILES), choices=list(FILES))
    ap.add_argument("--policies", nargs="+", default=["easy"])
    ap.add_argument("--extend", action="store_true", help="also --overrun extend")
    ap.add_argument("--skip-columns", nargs="+", default=[],
                    help="jobs-table columns left out of the comparison")
    a = ap.parse_args()
    variants = [[]] + ([["--overrun", "extend"]] if a.extend else [])
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for trace in a.traces:
            for policy in a.policies:
                for extra in variants:
                    args = [str(trace_path(trace)), "--policy", policy, *extra]
                    old_csv, new_csv = Path(tmp, "old.csv"), Path(tmp, "new.csv")
                    old_out = run(a.old, args, old_csv)
                    new_out = run(NEW, args, new_csv)
                    same_csv = (filecmp.cmp(old_csv, new_csv, shallow=False)
                                if not a.skip_columns
                                else _without(old_csv, a.skip_columns)
                                == _without(new_csv, a.skip_columns))
                    same_out = old_out == new_out
                    ok = same_csv and same_out
                    bad += not ok
                    print(f"{trace:10s} {policy:14s} {' '.join(extra):28s} "
                          f"jobs.csv {'identical' if same_csv else 'DIFFERENT'}, "
                          f"summary {'identical' if same_out else 'DIFFERENT'}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
