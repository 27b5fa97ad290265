"""Check that this tree's paper-Z schedulers give the same schedules as another tree's.

Usage::

    .venv/bin/python benchmarks/check_identical_zeng.py --old /tmp/simlib_main
        [--workloads W1 W2] [--jobs 2500 10000] [--seeds 0 1]
        [--schedulers SSP GLTS CST CSTWS FBO NS NH] [--cache DIR]

``--old`` is a directory holding another copy of the package (e.g. ``main``
exported with ``git archive main | tar -x -C /tmp/simlib_main``). For each
workload (paper Z's adjusted Lublin workload, :func:`simlib.studies.zeng.
workloads.generate`), job count and seed, both trees run SSP (policy
``scojo_pect``) and each G-LOMARC-TS variant (policy ``glomarc_ts``, the
coscheduling slowdowns of the same seed) through
:func:`simlib.studies.zeng.runs.run`, each tree in a subprocess of its own.
Compared exactly (floats by ``repr``): the per-job table (every job's
start, finish, type, PPN, nodes, executed time, virtual reservation and
start), the slices, the usage timeline, the counters (the wall time left
out) and, for G-LOMARC-TS, every group formed (its case, virtual time,
primary job and matched jobs, in the order they were formed).

``--cache DIR`` keeps the reference tree's results there (keyed by the
run), so a second check only reruns this tree. ``--new-params JSON`` gives
this tree's G-LOMARC-TS runs parameters of their own (a switch whose
default changed, set to the reference's behaviour); counters only this
tree has are left out of the comparison.
Exit status 0 when everything is identical, 1 otherwise.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW = HERE.parent
SCHEDULERS = ("SSP", "GLTS", "CST", "CSTWS", "FBO", "NS", "NH")


def _record_groups(formed: list) -> None:
    """Wrap G-LOMARC-TS's group starts so each group formed is appended to ``formed``."""
    from simlib.policies.glomarc_ts import GLomarcTS

    def wrap(name):
        orig = getattr(GLomarcTS, name)

        def run_and_record(self, vm, *args):
            before = set(self.groups)
            out = orig(self, vm, *args)
            for gid in sorted(set(self.groups) - before):
                primary, matched = self.groups[gid]
                formed.append((name, repr(args[-1]), primary, sorted(matched)))
            return out
        setattr(GLomarcTS, name, run_and_record)

    for name in ("_run_group", "_run_case2", "_run_case3"):
        wrap(name)


def worker(spec: dict) -> dict:
    """Every run of ``spec`` in this process -> {run key: what is compared}."""
    from simlib.studies.zeng.runs import run
    from simlib.studies.zeng.slowdowns import TABLE4, CoschedulingSlowdowns
    from simlib.studies.zeng.workloads import ALPHA, generate

    formed: list = []
    _record_groups(formed)
    out = {}
    for name in spec["workloads"]:
        for n in spec["jobs"]:
            for seed in spec["seeds"]:
                frame = generate(ALPHA[name], n, seed)
                for sched in spec["schedulers"]:
                    formed.clear()
                    if sched == "SSP":
                        res = run(frame)
                    else:
                        res = run(frame, policy="glomarc_ts",
                                  params={**spec.get("params", {}), "variant": sched},
                                  cos=CoschedulingSlowdowns(TABLE4, seed))
                    counters = {k: v for k, v in res.counters.items() if k != "simulated_seconds"}
                    out[f"{name} n={n} seed={seed} {sched}"] = {
                        "jobs": res.jobs.to_dict("list"),
                        "slices": res.slices.to_dict("list"),
                        "usage": res.usage.to_dict("list"),
                        "counters": counters,
                        "groups": list(formed),
                        "seconds": res.seconds,
                    }
                    print(f"  {name} n={n} seed={seed} {sched}: {res.seconds:.1f} s",
                          file=sys.stderr, flush=True)
    return out


def run_tree(tree: Path, spec: dict, out: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec), str(out)],
                            env=env, cwd=tempfile.gettempdir())


def first_difference(a, b, path="") -> str:
    """Where ``a`` and ``b`` first differ (floats by repr), or ''."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}/{k}: only in {'new' if k not in a else 'old'}"
            d = first_difference(a[k], b[k], f"{path}/{k}")
            if d:
                return d
        return ""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return ""
    return "" if repr(a) == repr(b) else f"{path}: {a!r} != {b!r}"


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        Path(sys.argv[3]).write_bytes(pickle.dumps(worker(json.loads(sys.argv[2]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, type=Path, help="directory of the reference tree")
    ap.add_argument("--workloads", nargs="+", default=["W1", "W2"], choices=["W1", "W2"])
    ap.add_argument("--jobs", nargs="+", type=int, default=[2500, 10000])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS), choices=SCHEDULERS)
    ap.add_argument("--cache", type=Path, help="directory keeping the reference tree's results")
    ap.add_argument("--new-params", type=json.loads, default={},
                    help="JSON: G-LOMARC-TS parameters for this tree's runs only (e.g. the "
                         "reference tree's reading of a switch whose default changed)")
    a = ap.parse_args()
    spec = {"workloads": a.workloads, "jobs": a.jobs, "seeds": a.seeds, "schedulers": a.schedulers}
    key = hashlib.sha256(json.dumps([str(a.old.resolve()), spec]).encode()).hexdigest()[:16]
    with tempfile.TemporaryDirectory() as tmp:
        old_out = a.cache / f"zeng-{key}.pkl" if a.cache else Path(tmp, "old.pkl")
        new_out = Path(tmp, "new.pkl")
        procs = [run_tree(NEW, {**spec, "params": a.new_params}, new_out)]
        if not old_out.exists():
            if a.cache:
                a.cache.mkdir(parents=True, exist_ok=True)
            procs.append(run_tree(a.old, spec, old_out))
        for p in procs:
            if p.wait() != 0:
                raise SystemExit(f"a worker failed (exit {p.returncode})")
        old = pickle.loads(old_out.read_bytes())
        new = pickle.loads(new_out.read_bytes())
    bad = 0
    for run_key in old:
        o, n = old[run_key], dict(new[run_key])
        # Counters this tree adds are not part of the schedule: those of the reference only.
        n["counters"] = {k: v for k, v in n["counters"].items() if k in o["counters"]}
        d = first_difference({k: v for k, v in o.items() if k != "seconds"},
                             {k: v for k, v in n.items() if k != "seconds"})
        bad += bool(d)
        print(f"{run_key:28s} {len(o['jobs']['job_id']):6,d} jobs, {len(o['groups']):4d} groups: "
              f"{'identical' if not d else 'DIFFERENT ' + d}  "
              f"({o['seconds']:.1f} s -> {n['seconds']:.1f} s)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
