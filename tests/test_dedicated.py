"""Dedicated jobs (paper K): EASY-D, LOS-D and the layer Hybrid-LOS shares."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_los import heterogeneous_workloads, run_k
from helpers_sim import assert_valid_schedule, schedule
from test_policy_properties import workloads

from simlib.policies import POLICIES

HETEROGENEOUS = sorted(name for name, cls in POLICIES.items() if cls.heterogeneous)
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True)


def test_the_heterogeneous_policies_of_table_iii():
    assert HETEROGENEOUS == ["easy_d", "easy_de", "hybrid_los", "hybrid_los_e", "los_d", "los_de"]


@pytest.mark.parametrize("policy", HETEROGENEOUS)
def test_dedicated_job_starts_exactly_at_its_requested_time(policy):
    # D (8 of 10 procs, t=50..70) is planned at submission: A and B (6 procs,
    # 100 s) would overlap it, so they wait; C (2 procs, 40 s) fits around it.
    rows = [(0, 6, 100), (0, 6, 100), (0, 2, 40), (0, 8, 20)]
    jobs, _, _ = run_k(policy, rows, 10, dedicated={3: 50})
    assert schedule(jobs) == {1: (70, 170), 2: (170, 270), 3: (0, 40), 4: (50, 70)}


@pytest.mark.parametrize("policy", HETEROGENEOUS)
def test_late_dedicated_job_starts_first_when_processors_free(policy):
    # A (8 procs until 100) started before D was submitted: D (4 procs,
    # requested 50) is late and starts at 100, ahead of C (8 procs, queued
    # at 60), which is reserved after it. E (2 procs, 500 s) fits around both.
    rows = [(0, 8, 100), (1, 4, 10), (60, 8, 10), (60, 2, 500)]
    jobs, _, _ = run_k(policy, rows, 10, dedicated={1: 50})
    assert schedule(jobs) == {1: (0, 100), 2: (100, 110), 3: (110, 120), 4: (60, 560)}


@pytest.mark.parametrize("policy", HETEROGENEOUS)
def test_late_dedicated_job_is_not_delayed_by_backfilling(policy):
    # D (9 procs) is late (A holds 8 until 100). G (2 procs, ends at 90) may
    # run before it; F (2 procs, 100 s) would hold 2 of the 1 left at 100, so
    # it waits for D to end although 2 processors are free at t=60.
    rows = [(0, 8, 100), (1, 9, 10), (60, 2, 100), (60, 2, 30)]
    jobs, _, _ = run_k(policy, rows, 10, dedicated={1: 50})
    assert schedule(jobs) == {1: (0, 100), 2: (100, 110), 3: (110, 210), 4: (60, 90)}


@pytest.mark.parametrize("policy", HETEROGENEOUS)
def test_dedicated_jobs_never_start_early_and_queue_by_requested_start(policy):
    # Idle machine: D1 waits for t=50. D2 and D3 ask for t=10 and need 6 of 10
    # each: D2 (lower index) starts at 10, D3 when D2 ends.
    rows = [(0, 2, 10), (0, 6, 10), (0, 6, 10)]
    jobs, _, _ = run_k(policy, rows, 10, dedicated={0: 50, 1: 10, 2: 10})
    assert schedule(jobs) == {1: (50, 60), 2: (10, 20), 3: (20, 30)}


@pytest.mark.parametrize("policy", HETEROGENEOUS)
def test_requested_start_not_after_submission_means_start_now(policy):
    jobs, _, _ = run_k(policy, [(5, 2, 10), (7, 2, 10)], 4, dedicated={0: 5, 1: 3})
    assert schedule(jobs) == {1: (5, 15), 2: (7, 17)}


def test_batch_policies_treat_dedicated_jobs_as_batch():
    jobs, _, _ = run_k("los", [(0, 2, 10)], 4, dedicated={0: 50})
    assert schedule(jobs) == {1: (0, 10)}


@SETTINGS
@given(case=workloads())
def test_without_dedicated_jobs_easy_d_is_easy_and_los_d_is_los(case):
    cpus, rows = case
    for batch, het in (("easy", "easy_d"), ("los", "los_d")):
        a, _, _ = run_k(batch, rows, cpus, debug=False)
        b, _, _ = run_k(het, rows, cpus, debug=False)
        assert schedule(a) == schedule(b), (batch, het)


@pytest.mark.parametrize("policy", HETEROGENEOUS)
@SETTINGS
@given(case=heterogeneous_workloads())
def test_random_heterogeneous_elastic_workloads_are_valid(policy, case):
    cpus, rows, ded, cmds = case
    jobs, sim, pol = run_k(policy, rows, cpus, dedicated=ded, commands=cmds if pol_elastic(policy) else ())
    assert_valid_schedule(jobs, cpus)  # debug=True checked the invariants every round
    for j in jobs:
        assert j.finish - j.start == pytest.approx(j.work)  # rigid, work as changed by ECCs
        if j.requested_start >= 0:
            assert j.start >= j.requested_start
    assert not pol.dedicated


def pol_elastic(policy):
    return POLICIES[policy].elastic


@st.composite
def spaced_dedicated(draw):
    """Dedicated jobs known at t=0 with disjoint slots, batch jobs with safe estimates."""
    cpus = draw(st.integers(1, 12))
    rows, ded, slot = [], {}, 0
    for _ in range(draw(st.integers(1, 5))):
        slot += draw(st.integers(0, 30))
        run = draw(st.integers(1, 20))
        ded[len(rows)] = slot
        rows.append((0, draw(st.integers(1, cpus)), run))
        slot += run
    t = 0
    for _ in range(draw(st.integers(0, 15))):
        t += draw(st.integers(0, 10))
        run = draw(st.integers(1, 30))
        rows.append((t, draw(st.integers(1, cpus)), run, run * draw(st.sampled_from([1, 2, 3]))))
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    return cpus, [rows[i] for i in order], {order.index(i): s for i, s in ded.items()}


@pytest.mark.parametrize("policy, params", [
    ("easy_d", {}), ("los_d", {}), ("hybrid_los", {}),
    # The DP models no / one freeze point: the job-by-job check alone keeps them on time.
    ("los_d", {"max_freezes": 0}), ("hybrid_los", {"max_freezes": 1}),
])
@SETTINGS
@given(case=spaced_dedicated())
def test_dedicated_jobs_known_in_advance_are_always_on_time(policy, params, case):
    cpus, rows, ded = case
    jobs, _, _ = run_k(policy, rows, cpus, dedicated=ded, **params)
    for i, rs in ded.items():
        assert jobs[i].start == rs, (i, schedule(jobs))
