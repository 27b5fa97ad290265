"""Same inputs => identical cubes, byte for byte (DESIGN: determinism).

Two independent simulate → summarize → build_cube → write_cube passes over a
trace portion (synthetic, with archive quirks) must give identical netCDF files; a perturbed workload
must not (so the comparison can fail).
"""
from __future__ import annotations


import pytest

from helpers_pipeline import synthetic_swf
from simlib.cube import build_cube, write_cube
from simlib.metrics import summarize
from simlib.policies import POLICIES
from simlib.runner import simulate
from simlib.workload.prepare import clean, rescale_to_load, subset
from simlib.workload.swf import read_swf

RIGID = sorted(name for name, cls in POLICIES.items() if cls.rigid and not cls.heterogeneous)


@pytest.fixture(scope="module")
def workload(tmp_path_factory):
    trace = tmp_path_factory.mktemp("determinism") / "synthetic.swf"
    trace.write_bytes(synthetic_swf(600, 128, seed=11))
    wl, _ = clean(read_swf(trace, unsorted="sort"), 128)
    wl = subset(wl, n_jobs=400)
    wl, _ = rescale_to_load(wl, 128, 0.9, round_to_seconds=True)
    return wl


def _cube(wl, path):
    records = []
    for policy in RIGID:
        summary = summarize(simulate(wl, policy, cpus=128).jobs, 128)
        records.append({"policy": policy, **summary})
    metrics = [k for k in records[0] if k != "policy"]
    write_cube(build_cube(records, ["policy"], metrics, attrs={"study": "determinism"}), path)
    return path.read_bytes()


def test_two_runs_give_identical_cube_bytes(workload, tmp_path):
    assert _cube(workload, tmp_path / "a.nc") == _cube(workload, tmp_path / "b.nc")


def test_a_different_workload_gives_a_different_cube(workload, tmp_path):
    other = type(workload)(workload.jobs.copy(), list(workload.header), workload.path)
    other.jobs.loc[10, "run_time"] += 1000
    other.jobs.loc[10, "requested_time"] += 1000
    assert _cube(workload, tmp_path / "a.nc") != _cube(other, tmp_path / "b.nc")
