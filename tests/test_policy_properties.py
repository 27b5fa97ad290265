"""Property tests over random workloads, for every registered policy.

For each random workload: the engine's debug mode checks the ledger after
every round; afterwards every job has completed, none started before its
submission and no instant is over-allocated. EASY must never push back the
reservation (shadow time) of the job at the head of the queue, and
conservative backfilling must never push back any job's reservation, with
every allocation rule of paper D too (on random clustered platforms, where
the strict rules must also keep their constraint).
"""
from __future__ import annotations

import os
from collections import defaultdict
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_sim import assert_valid_schedule, draw_rows, run

from simlib.engine.allocation import RULES, OneCluster
from simlib.engine.job import WAITING
from simlib.platform import Platform
from simlib.policies import POLICIES, make_policy
from simlib.policies.kernels import KERNEL_ENV

#: Count-based conservative backfilling's two paths (the compiled kernel, pure
#: Python): the properties must hold on each.
COUNT_PATHS = [pytest.param("compiled", marks=pytest.mark.compiled_kernel), "python"]


@st.composite
def workloads(draw):
    cpus = draw(st.integers(1, 16))
    return cpus, draw_rows(draw, cpus)


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


# Time-sliced policies need per-job slowdowns: their own module tests them
# (tests/test_scojo_pect.py) with the same checks.
@pytest.mark.parametrize("policy", sorted(n for n, c in POLICIES.items() if c.layers == 1))
@SETTINGS
@given(case=workloads())
def test_every_policy_gives_a_valid_schedule(policy, case):
    cpus, rows = case
    jobs, sim = run(policy, rows, cpus, debug=True)
    if POLICIES[policy].rigid:
        assert_valid_schedule(jobs, cpus)
        for j in jobs:
            assert j.finish - j.start == pytest.approx(min(j.work, j.requested_time))
    else:
        assert_valid_schedule(jobs, cpus, sim)


def _recording(policy_name, record, **params):
    """Wrap a policy so that after every round ``record(policy, now)`` is called."""
    pol = make_policy(policy_name, **params)
    inner = pol.on_round

    def on_round(now, *args):
        inner(now, *args)
        record(pol, now)

    pol.on_round = on_round
    return pol


def _conservative_recorder():
    """``(reservations, record)``: every queued job's planned start, after every round."""
    reservations = defaultdict(list)

    def record(pol, now):
        for idx, start in pol.planned_starts().items():
            reservations[idx].append(start)

    return reservations, record


def _assert_never_delayed(reservations, jobs):
    """No recorded reservation moved later, and every job started by its first one."""
    for idx, seq in reservations.items():
        assert all(b <= a for a, b in zip(seq, seq[1:])), (idx, seq)
        assert jobs[idx].start <= seq[0]


@SETTINGS
@given(case=workloads())
def test_easy_never_delays_the_head_reservation(case):
    cpus, rows = case
    shadows = defaultdict(list)

    def record(pol, now):
        if pol.reservation is not None:
            head, shadow, _ = pol.reservation
            if head.state == WAITING:
                shadows[head.idx].append(shadow)

    jobs, _ = run(_recording("easy", record), rows, cpus)
    _assert_never_delayed(shadows, jobs)


@pytest.mark.parametrize("path", COUNT_PATHS)
@SETTINGS
@given(case=workloads())
def test_conservative_never_delays_any_reservation(path, case):
    cpus, rows = case
    reservations, record = _conservative_recorder()
    with mock.patch.dict(os.environ, {KERNEL_ENV: path}):
        jobs, _ = run(_recording("conservative", record), rows, cpus)
    _assert_never_delayed(reservations, jobs)


@st.composite
def clustered_workloads(draw):
    """A platform of 1-4 clusters (1 or 2 cores per node) and jobs that fit in one cluster."""
    cores = draw(st.sampled_from([1, 1, 2]))
    nodes = draw(st.integers(1, 12))
    clusters = draw(st.integers(1, min(4, nodes)))
    platform = Platform.homogeneous(nodes * cores, cores_per_node=cores, clusters=clusters)
    widest = OneCluster().max_size(platform)
    return platform, draw_rows(draw, widest)


@pytest.mark.parametrize("rule", ["count", *RULES])
@SETTINGS
@given(case=clustered_workloads())
def test_conservative_keeps_its_guarantees_with_every_allocation_rule(rule, case):
    platform, rows = case
    reservations, record = _conservative_recorder()
    # debug=True: the ledger is checked after every round (no core held twice).
    jobs, _ = run(_recording("conservative", record, allocation=rule), rows, platform.cpus,
                  platform=platform)
    assert_valid_schedule(jobs, platform.cpus)
    for j in jobs:
        assert j.finish - j.start == pytest.approx(min(j.work, j.requested_time))
        assert len(set(j.alloc)) == j.procs
    _assert_never_delayed(reservations, jobs)
    if rule == "contiguous":
        for j in jobs:
            ids = sorted(j.alloc)
            assert ids[-1] - ids[0] + 1 == j.procs, (j, ids)
    elif rule == "local":
        cluster = platform.node_cluster[platform.core_node]
        for j in jobs:
            assert len({int(cluster[c]) for c in j.alloc}) == 1, (j, j.alloc)


@pytest.mark.parametrize("rule", ["count", *RULES])
@settings(max_examples=50, deadline=None, derandomize=True)
@given(case=clustered_workloads())
def test_conservative_replans_on_overruns_with_every_allocation_rule(rule, case):
    # Under overrun="extend" estimates grow and the schedule is rebuilt from
    # the running jobs' cores: planned cores must still be free at each start.
    platform, rows = case
    jobs, _ = run("conservative", rows, platform.cpus, platform=platform, overrun="extend",
                  allocation=rule)
    assert_valid_schedule(jobs, platform.cpus)
    assert all(j.finish - j.start == pytest.approx(j.work) for j in jobs)
