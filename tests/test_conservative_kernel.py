"""Tests of :mod:`simlib.policies._conservative_kernel` (the compiled count-based core).

The kernel must give bit-identical answers to the pure-Python
:class:`~simlib.policies.profile.AvailabilityProfile` and to the
compression rule as stated: each check below runs the same operations on
both, on seeded random profiles and queues. The queue checks run on the
kernel's ``CountSchedule`` and on its pure-Python twin
(:class:`simlib.policies.profile.CountSchedule`) alike. Whole schedules on
both paths are compared in ``tests/test_conservative_golden.py``; how the
loader chooses a path, in ``tests/test_kernels.py``.
"""
from __future__ import annotations

import importlib
import os
import types

import numpy as np
import pytest

from simlib.policies import profile
from simlib.policies.profile import AvailabilityProfile

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._conservative_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))
CountSchedule = kernel.CountSchedule


@pytest.fixture(params=["compiled", "python"])
def Schedule(request):
    """The compiled ``CountSchedule`` and its pure-Python twin."""
    return CountSchedule if request.param == "compiled" else profile.CountSchedule


def step_function(steps):
    """Steps with neighbours of equal value merged: what answers depend on."""
    merged = []
    for t, f in steps:
        if not merged or merged[-1][1] != f:
            merged.append((t, f))
    return merged


def random_reservations(rng, total, n, integer):
    """``n`` reservations ``(start, end, procs)`` that never overdraw ``total``."""
    prof = AvailabilityProfile(0.0, total)
    made = []
    for _ in range(n):
        procs = int(rng.integers(1, total + 1))
        dur = float(np.ceil(rng.exponential(50.0)) if integer else rng.exponential(50.0) + 1e-3)
        start = prof.earliest_start(procs, dur, float(np.floor(rng.uniform(0, 200))))
        prof.reserve(start, start + dur, procs)
        made.append((start, start + dur, procs))
    return made


@pytest.mark.parametrize("seed", range(8))
def test_profile_operations_match_the_python_profile(seed):
    rng = np.random.default_rng(seed)
    total = int(rng.choice([8, 64, 338]))
    made = random_reservations(rng, total, 60, integer=seed % 2 == 0)
    py, c = AvailabilityProfile(0.0, total), CountSchedule(0.0, total)
    for start, end, procs in made:
        py.reserve(start, end, procs)
        c.reserve(start, end, procs)
    for start, end, procs in made[::3]:  # some end early: processors come back
        py.release(start, end, procs)
        c.release(start, end, procs)
    assert c.steps() == list(zip(py.times, py.free))
    for _ in range(200):
        procs = int(rng.integers(1, total + 1))
        dur = float(rng.exponential(80.0))
        nb = float(rng.uniform(0, 400))
        limit = float(rng.choice([np.inf, nb + rng.exponential(100.0)]))
        assert c.earliest_start(procs, dur, nb, limit) == py.earliest_start(procs, dur, nb, limit)
    assert c.drops() == py.drops()
    for lo, hi in [(-np.inf, 100.0), (50.0, np.inf), (py.times[1], py.times[-1]), (7.5, 7.5),
                   (py.times[-1] + 1.0, np.inf), (50.0, 10.0)]:
        assert c.drops(lo, hi) == py.drops(lo, hi) == [p for p in py.drops() if lo <= p[0] < hi]
    # Paper K's dedicated plan: jobs placed one after the other.
    procs = [int(rng.integers(1, total + 1)) for _ in range(12)]
    durations = [float(rng.exponential(40.0)) for _ in range(12)]
    not_before = [float(rng.uniform(0, 300)) for _ in range(12)]
    at = float(rng.uniform(0, 150))
    assert c.place_in_order(procs, durations, not_before, at) == \
        py.place_in_order(procs, durations, not_before, at)
    assert c.steps() == list(zip(py.times, py.free))
    # ... and as the dedicated plan asks: in requested-start order, up to a time.
    requested = sorted(not_before)
    jobs = [types.SimpleNamespace(requested_time=d) for d in durations]
    until = float(rng.uniform(0, 300))
    k = int(rng.integers(0, 4))
    assert c.place_waiting(procs, requested, jobs, k, until, at) == \
        py.place_waiting(procs, requested, jobs, k, until, at)
    assert c.steps() == list(zip(py.times, py.free))
    for p, d, nb in zip(procs, durations, not_before):  # and one at a time
        assert c.place(p, d, nb) == py.place(p, d, nb)
    assert c.steps() == list(zip(py.times, py.free))
    for prof in (c, py):
        with pytest.raises(ValueError, match="differ in length"):
            prof.place_in_order(procs, durations[1:], not_before, at)
        with pytest.raises(ValueError, match="differ in length"):
            prof.place_waiting(procs, requested, jobs[1:], 0, until, at)
        with pytest.raises(ValueError, match="< 0"):
            prof.place_waiting(procs, requested, jobs, -1, until, at)
    now = float(rng.uniform(0, 300))
    py.advance(now)
    c.advance(now)
    assert c.steps() == list(zip(py.times, py.free))
    py.compact()
    c.compact_over(0)
    assert c.steps() == list(zip(py.times, py.free))


def reference_compress(prof, queue, now):
    """The compression rule as stated (``benchmarks/reference_conservative.py``)
    on ``queue`` = ``[[idx, procs, requested, start], ...]``: queue order,
    release, earliest start no later than the old one, reserve."""
    import bisect
    for entry in queue:
        _, procs, req, old = entry
        if old <= now:
            continue
        before = bisect.bisect_left(prof.times, old)
        if before == 0 or max(prof.free[:before]) < procs:
            continue
        prof.release(old, old + req, procs)
        start = prof.earliest_start(procs, req, now, limit=old)
        prof.reserve(start, start + req, procs)
        entry[3] = start


@pytest.mark.parametrize("seed", range(12))
def test_compression_and_starts_follow_the_rule(seed, Schedule):
    rng = np.random.default_rng(100 + seed)
    total = int(rng.choice([16, 100, 338]))
    integer = seed % 2 == 0
    py, c = AvailabilityProfile(0.0, total), Schedule(0.0, total)
    running = [end - start for start, end, _ in random_reservations(rng, total, 8, integer)]
    widths = [procs for _, _, procs in random_reservations(rng, total, 8, integer)]
    for end, procs in zip(running, widths):  # running jobs: busy until their estimate
        py.reserve(0.0, end, procs)
        c.reserve(0.0, end, procs)
    queue = []
    for idx in range(40):
        procs = int(rng.integers(1, total + 1))
        req = float(np.ceil(rng.exponential(60.0)) if integer else rng.exponential(60.0) + 1e-3)
        start = py.earliest_start(procs, req, 0.0)
        py.reserve(start, start + req, procs)
        assert c.add(idx, procs, req, 0.0) == start
        queue.append([idx, procs, req, start])
    now = 0.0
    for end, procs in zip(running, widths):  # each ends early, in turn
        t = float(rng.uniform(0, end))
        now = max(now, np.floor(t) if integer else t)
        if now >= end:
            continue
        py.advance(now)
        c.advance(now)
        py.release(now, end, procs)
        c.release(now, end, procs)
        before = [q[3] for q in queue]
        reference_compress(py, queue, now)
        assert c.compress(now) == sum(a != q[3] for a, q in zip(before, queue))
        assert c.reservations() == [(q[0], q[3]) for q in queue]
        assert step_function(c.steps()) == step_function(zip(py.times, py.free))
        due, next_start = c.pop_due(now)
        assert due == [q[0] for q in queue if q[3] <= now]
        queue = [q for q in queue if q[3] > now]
        assert next_start == min((q[3] for q in queue), default=float("inf"))


def test_pop_due_keeps_queue_order_and_the_next_start(Schedule):
    s = Schedule(0.0, 4)
    s.reserve(0.0, 10.0, 4)
    assert [s.add(k, 2, 5.0, 0.0) for k in range(3)] == [10.0, 10.0, 15.0]
    assert s.pop_due(9.0) == ([], 10.0)
    s.advance(10.0)
    assert s.pop_due(10.0) == ([0, 1], 15.0)
    assert len(s) == 1 and s.reservations() == [(2, 15.0)]


def test_replan_places_the_queue_again_from_scratch(Schedule):
    s = Schedule(0.0, 4)
    s.reserve(0.0, 10.0, 4)
    s.add(7, 4, 5.0, 0.0)
    s.reset(2.0)           # the running job's estimate changed: plan again
    s.reserve(2.0, 20.0, 4)
    s.replan(2.0)
    assert s.reservations() == [(7, 20.0)]
    assert s.steps() == [(2.0, 0), (20.0, 0), (25.0, 4)]


def test_a_time_before_the_profile_is_an_error():
    s = CountSchedule(5.0, 4)
    with pytest.raises(ValueError, match="before the profile's start"):
        s.reserve(1.0, 6.0, 2)
