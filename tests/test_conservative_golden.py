"""Golden schedules of conservative backfilling: start times, bit for bit.

The start time of every job, as made by the implementation of commit
6f32bc4 (before conservative backfilling was sped up), is stored in
``tests/golden/conservative/*.npz`` (float64, exact). Any change to
:mod:`simlib.policies.conservative` or :mod:`simlib.policies.profile` must
reproduce them exactly:

* seeded synthetic workloads (early completions, varied sizes, estimates
  too short with ``overrun="kill"`` and ``"extend"``), count-based and
  placement mode (paper D's rules), ``recompute="compress"`` and
  ``"rebuild"``: they run everywhere;
* the first 5,000 jobs of CTC-SP2 and SDSC-SP2 (marker ``real_traces``:
  collected only where the logs are, mandatory in CI).

Each runs on both count-based paths (the compiled kernel and pure Python,
fixture ``kernel_path``); placement-mode cases run the same code twice.

A deliberate change of the schedules regenerates them with
``python tests/test_conservative_golden.py`` (and says why in the commit).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from helpers_sim import make_jobs

from simlib.engine.simulator import Simulator
from simlib.platform import Platform
from simlib.policies import make_policy

GOLDEN = Path(__file__).resolve().parent / "golden" / "conservative"


def synthetic_rows(seed: int, n: int, cpus: int, *, integer: bool, overrun: float = 0.0,
                   widest: int | None = None):
    """``n`` rows ``(submit, procs, runtime, requested)`` drawn with ``seed``.

    Sizes mix serial, powers of two and arbitrary widths up to ``widest``
    (default ``cpus``);
    most jobs end well before their estimate (compressions), some exactly at
    it; a fraction ``overrun`` runs past it. ``integer`` rounds every time to
    whole seconds, so many events and breakpoints coincide (ties).
    """
    rng = np.random.default_rng(seed)
    widest = widest or cpus
    gaps = rng.exponential(30.0, n)
    kind = rng.integers(0, 3, n)
    widths = np.where(kind == 0, 1,
                      np.where(kind == 1, 2 ** rng.integers(0, int(np.log2(widest)) + 1, n),
                               rng.integers(1, widest + 1, n)))
    req = rng.lognormal(5.5, 1.2, n) + 1.0
    frac = np.where(rng.random(n) < 0.2, 1.0, rng.uniform(0.02, 1.0, n))
    run = req * frac
    over = rng.random(n) < overrun
    run = np.where(over, req * rng.uniform(1.05, 2.5, n), run)
    submit = np.cumsum(gaps)
    if integer:
        submit, req, run = np.floor(submit), np.ceil(req), np.maximum(np.round(run), 1.0)
    return [(float(s), int(p), float(r), float(q)) for s, p, r, q in zip(submit, widths, run, req)]


#: name -> (rows args, cpus, platform clusters or None, overrun, policy params).
SYNTHETIC = {
    **{f"count_s{seed}": (dict(seed=seed, n=600, integer=seed % 2 == 0), 64, None, "kill", {})
       for seed in range(4)},
    "count_wide": (dict(seed=11, n=500, integer=False), 1152, None, "kill", {}),
    "count_kill_overrun": (dict(seed=4, n=500, integer=True, overrun=0.15), 48, None, "kill", {}),
    "count_extend": (dict(seed=5, n=500, integer=False, overrun=0.15), 48, None, "extend", {}),
    "count_rebuild": (dict(seed=6, n=500, integer=True), 64, None, "kill", {"recompute": "rebuild"}),
    "contiguous": (dict(seed=7, n=300, integer=True), 16, 2, "kill", {"allocation": "contiguous"}),
    "local_rebuild": (dict(seed=8, n=300, integer=False, widest=4), 16, 4, "kill",
                      {"allocation": "local", "recompute": "rebuild"}),
    "basic_extend": (dict(seed=9, n=300, integer=True, overrun=0.1), 16, 2, "extend",
                     {"allocation": "basic"}),
}

#: Real traces: name -> (file, machine processors); their first N_REAL jobs.
REAL = {"CTC-SP2": ("CTC-SP2-1996-3.1-cln.swf.gz", 338),
        "SDSC-SP2": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128)}
N_REAL = 5000


def synthetic_starts(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(job ids, start times)`` of synthetic case ``name`` under conservative."""
    args, cpus, clusters, overrun, params = SYNTHETIC[name]
    jobs = make_jobs(synthetic_rows(cpus=cpus, **args))
    platform = Platform.homogeneous(cpus, clusters=clusters or 1)
    Simulator(platform, jobs, make_policy("conservative", **params), overrun=overrun).run()
    return np.array([j.job_id for j in jobs]), np.array([j.start for j in jobs], dtype=float)


def real_starts(name: str, traces: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(job ids, start times)`` of the first ``N_REAL`` cleaned jobs of a real log."""
    from simlib.runner import jobs_from_workload
    from simlib.workload.prepare import clean
    from simlib.workload.swf import read_swf

    fname, cpus = REAL[name]
    wl, _ = clean(read_swf(traces / fname), cpus)
    wl.jobs = wl.jobs.iloc[:N_REAL]
    jobs = jobs_from_workload(wl)
    Simulator(Platform.homogeneous(cpus), jobs, make_policy("conservative")).run()
    return np.array([j.job_id for j in jobs]), np.array([j.start for j in jobs], dtype=float)


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    with np.load(GOLDEN / f"{name}.npz") as z:
        return z["job_id"], z["start"]


def assert_same(name, got):
    ids, starts = load(name)
    got_ids, got_starts = got
    np.testing.assert_array_equal(got_ids, ids)
    differ = np.flatnonzero(got_starts != starts)   # exact, bit for bit
    assert differ.size == 0, (f"{name}: {differ.size} of {starts.size} jobs start elsewhere, first "
                              f"job {ids[differ[0]]}: {got_starts[differ[0]]!r} != {starts[differ[0]]!r}")


@pytest.mark.parametrize("name", sorted(SYNTHETIC))
def test_synthetic_schedule_is_golden(name, kernel_path):
    # Count mode: the compiled CountSchedule or its twin; placement mode: the
    # compiled placement search or the Python one.
    assert_same(name, synthetic_starts(name))


@pytest.mark.real_traces
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_trace_prefix_schedule_is_golden(name, real_traces, kernel_path):
    assert_same(name, real_starts(name, real_traces))


def regenerate(traces: Path | None) -> None:
    """Write every golden file (``traces``: directory of the real logs, or None to skip them)."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    made = {name: synthetic_starts(name) for name in SYNTHETIC}
    if traces is not None:
        made.update({name: real_starts(name, traces) for name in REAL})
    for name, (ids, starts) in made.items():
        np.savez_compressed(GOLDEN / f"{name}.npz", job_id=ids, start=starts)
        print(f"{name}: {ids.size} jobs")


if __name__ == "__main__":
    regenerate(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/work/shared/traces"))


def _reference_policy():
    """The slow reference copy kept in ``benchmarks/`` (the algorithm before the speed-up)."""
    import importlib.util
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "reference_conservative.py"
    spec = importlib.util.spec_from_file_location("reference_conservative", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ReferenceConservative()


@pytest.mark.parametrize("seed", range(20, 32))
def test_count_schedule_equals_the_reference(seed, kernel_path):
    # Differential check on more workloads than the golden files hold: odd
    # machine sizes, ties (integer times) on even seeds.
    cpus = (17, 64, 100, 338)[seed % 4]
    rows = synthetic_rows(seed, 400, cpus, integer=seed % 2 == 0, overrun=0.05)
    if seed % 3 == 0:  # some jobs end as soon as they start
        rows = [(s, p, 0.0, q) if k % 7 == 0 else (s, p, r, q)
                for k, (s, p, r, q) in enumerate(rows)]
    starts = []
    for policy in (make_policy("conservative"), _reference_policy()):
        jobs = make_jobs(rows)
        Simulator(Platform.homogeneous(cpus), jobs, policy).run()
        starts.append([j.start for j in jobs])
    assert starts[0] == starts[1]
