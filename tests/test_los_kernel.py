"""Tests of :mod:`simlib.policies._los_kernel` (the compiled LOS dynamic program).

The compiled table must choose exactly the jobs the numpy path chooses:
:func:`simlib.policies.los.los_dp` runs on both paths (``SIMLIB_KERNELS``)
over seeded random candidates with zero to three freeze points, both
tie-breaks and several units; then whole schedules of paper K's policies
(dedicated jobs and elastic commands included) are compared run for run.
"""
from __future__ import annotations

import importlib
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings

from helpers_los import heterogeneous_workloads, run_k

from simlib.policies.kernels import KERNEL_ENV
from simlib.policies.los import los_dp

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._los_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))


def on_path(path, fn, *args, **kwargs):
    with mock.patch.dict(os.environ, {KERNEL_ENV: path}):
        return fn(*args, **kwargs)


@pytest.mark.parametrize("seed", range(40))
def test_choice_equals_the_numpy_table(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 30))
    machine = int(rng.choice([10, 16, 320, 1000]))
    sizes = [int(s) for s in rng.integers(1, machine + 1, n)]
    if seed % 3 == 0:  # BlueGene/P-like: multiples of 32 (the gcd divides out)
        sizes = [32 * int(s) for s in rng.integers(1, 11, n)]
        machine = 320
    free = int(rng.integers(-2, machine + 1))
    freezes = []
    for _ in range(int(rng.integers(0, 4)) if machine <= 16 or seed % 3 == 0 else int(rng.integers(0, 2))):
        frenums = [s if rng.random() < 0.5 else 0 for s in sizes]
        freezes.append((frenums, int(rng.integers(-5, machine + 1))))
    unit = int(rng.choice([1, 1, 2, 32]))
    for tie in ("earliest", "latest"):
        args = (sizes, free, freezes, unit, tie)
        assert on_path("compiled", los_dp, *args) == on_path("python", los_dp, *args), args


def test_ties_and_edges():
    assert kernel.choose([2, 2, 2], [[2, 2, 2]], [4]) == [0, 1]
    assert kernel.choose([5], [[5]], [4]) == []            # nothing fits
    assert kernel.choose([], [[]], [4]) == []
    assert kernel.choose([3, 3, 4], [[3, 3, 4], [3, 0, 4]], [6, 3]) == [0, 1]
    assert kernel.choose([1, 1], [[1, 1], [0, 0], [1, 0]], [2, 0, 0]) == [1]


SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


# The heterogeneous ones also plan dedicated jobs on the compiled count
# profile (simlib.policies.dedicated) on the compiled path.
@pytest.mark.parametrize("policy", ["los", "delayed_los", "hybrid_los", "hybrid_los_e", "easy_d",
                                    "los_d", "easy_de", "los_de"])
@SETTINGS
@given(case=heterogeneous_workloads())
def test_paper_k_schedules_are_the_same_on_both_paths(policy, case):
    cpus, rows, dedicated, commands = case
    starts = []
    for path in ("compiled", "python"):
        jobs, _, _ = on_path(path, run_k, policy, rows, cpus, dedicated=dedicated, commands=commands)
        starts.append([(j.start, j.finish, j.procs) for j in jobs])
    assert starts[0] == starts[1]
