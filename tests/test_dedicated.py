"""Dedicated jobs (paper K): EASY-D, LOS-D and the layer Hybrid-LOS shares."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_los import heterogeneous_workloads, run_k
from helpers_sim import assert_valid_schedule, schedule
from reference_dedicated import EagerPlan, eager
from test_policy_properties import workloads

from simlib.engine.job import Job
from simlib.policies import POLICIES
from simlib.policies.dedicated import DedicatedPlan, count_profile_class
from simlib.policies.profile import INF, AvailabilityProfile

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


# -- the plan placed lazily against the plan placed whole (reference_dedicated)

def starts_of(jobs):
    return [(j.job_id, j.start, j.finish) for j in jobs]


@pytest.mark.parametrize("policy", HETEROGENEOUS)
@SETTINGS
@given(case=heterogeneous_workloads())
def test_the_lazy_plan_schedules_as_the_whole_plan(policy, case):
    cpus, rows, ded, cmds = case
    cmds = cmds if pol_elastic(policy) else ()
    lazy, _, _ = run_k(policy, rows, cpus, dedicated=ded, commands=cmds)
    whole, _, _ = run_k(eager(policy), rows, cpus, dedicated=ded, commands=cmds)
    assert starts_of(lazy) == starts_of(whole)


def seeded_heterogeneous(seed, n=300, cpus=64):
    """Rows, requested starts and commands like paper K's: dedicated jobs
    requested from now to many runtimes ahead (most of a plan is far away)."""
    rng = np.random.default_rng(seed)
    rows, ded, t = [], {}, 0
    for i in range(n):
        t += int(rng.integers(0, 40))
        run = int(rng.integers(1, 400))
        rows.append((t, int(rng.integers(1, cpus + 1)), run, int(run * rng.choice([1, 1, 2, 4]))))
        if rng.random() < 0.4:
            ded[i] = t + int(rng.choice([0, 1, 50, 500, 5_000, 50_000]))
    cmds = sorted((rows[i][0] + int(rng.integers(0, 600)), i + 1, str(rng.choice(["ET", "RT"])),
                   int(rng.integers(1, 200))) for i in rng.integers(0, n, size=n // 5))
    return cpus, rows, ded, cmds


@pytest.mark.parametrize("policy", HETEROGENEOUS)
@pytest.mark.parametrize("seed, kernels", [(s, "auto") for s in range(6)] + [(6, "python")])
@pytest.mark.parametrize("overrun", ["kill", "extend"])
def test_the_lazy_plan_schedules_as_the_whole_plan_on_long_workloads(policy, seed, kernels,
                                                                      overrun, monkeypatch):
    monkeypatch.setenv("SIMLIB_KERNELS", kernels)  # "python": the plan on AvailabilityProfile
    cpus, rows, ded, cmds = seeded_heterogeneous(seed)
    cmds = cmds if pol_elastic(policy) else ()
    plans = []

    def constraints(self, now):  # the lazy plans, kept to be looked at
        plans.append(POLICIES[policy].constraints(self, now))
        return plans[-1]

    lazy_policy = type("Lazy", (POLICIES[policy],), {"constraints": constraints})()
    lazy, _, _ = run_k(lazy_policy, rows, cpus, dedicated=ded, commands=cmds, overrun=overrun,
                       debug=False)
    whole, _, _ = run_k(eager(policy), rows, cpus, dedicated=ded, commands=cmds,
                        overrun=overrun, debug=False)
    assert starts_of(lazy) == starts_of(whole)
    # The two plans differed: most rounds left some of W^d unplaced.
    assert sum(plan.horizon < INF for plan in plans) > len(plans) / 2


class StubSim:
    """What a plan reads of the simulator: processors, free ones, running jobs."""

    def __init__(self, total, running):
        self.ledger = type("Ledger", (), {"total": total})()
        self.running = {j.idx: j for j in running}
        self.by_estimated_end = sorted((j.estimated_end, j.idx) for j in running)
        self.free = total - sum(j.cpus for j in running)


@pytest.mark.parametrize("profile_class", ["compiled", "python"])
@pytest.mark.parametrize("seed", range(40))
def test_the_lazy_plan_answers_as_the_whole_plan(seed, profile_class):
    """Random questions to a lazy plan and to a whole one: the same answers,
    and the lazy freeze points are the whole plan's before the horizon."""
    cls = count_profile_class() if profile_class == "compiled" else AvailabilityProfile
    rng = np.random.default_rng(seed)
    total, now = int(rng.integers(4, 40)), float(rng.integers(0, 100))
    running = []
    for i in range(int(rng.integers(0, 6))):
        job = Job(i, i + 1, 0.0, int(rng.integers(1, total // 4 + 1)), 10.0, 10.0)
        # Some estimates already passed (overrun "extend"): held until just after now.
        job.cpus, job.estimated_end = job.procs, now + float(rng.integers(-5, 200))
        running.append(job)
    sim = StubSim(total, running)
    n = int(rng.integers(0, 30))
    requested = sorted(now + float(rng.choice([0, 1, 20, 100, 400, 2_000])) for _ in range(n))
    waiting = ([int(rng.integers(1, total + 1)) for _ in range(n)], requested,
               [Job(100 + k, 0, 0.0, 1, float(rng.integers(1, 300)), 1.0) for k in range(n)])
    lazy = DedicatedPlan(sim, now, cls, waiting)
    whole = EagerPlan(sim, now, cls, waiting)
    for step in range(40):
        job = Job(1000 + step, 0, 0.0, int(rng.integers(1, total + 1)),
                  float(rng.choice([1, 10, 50, 200, 1_000, 5_000])), 1.0)
        op = rng.choice(["admits", "admits", "commit", "reserve"])
        if op == "admits" or (op == "commit" and not whole.admits(job)):
            assert lazy.admits(job) == whole.admits(job)
        elif op == "commit":
            lazy.commit(job)
            whole.commit(job)
        else:
            assert lazy.reserve(job) == whole.reserve(job)
        assert lazy.points == [p for p in whole.points if p[0] < lazy.horizon]


def test_a_plan_with_nothing_left_to_place_reserves_an_endless_job():
    running = Job(0, 1, 0.0, 4, 10.0, 10.0)
    running.cpus, running.estimated_end = 4, 10.0
    plan = DedicatedPlan(StubSim(8, [running]), 3.0)
    # Its window never ends before the horizon (inf): nothing is left to place.
    assert plan.horizon == INF and plan.reserve(Job(1, 2, 0.0, 8, INF, 1.0)) == 10.0
    assert plan.points == [[10.0, 0]]
    assert plan.admits(Job(2, 3, 0.0, 1, 5.0, 1.0))       # ends by 10
    assert not plan.admits(Job(3, 4, 0.0, 1, 20.0, 1.0))  # would delay the endless job
