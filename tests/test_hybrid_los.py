"""Hybrid-LOS (paper K, Algorithms 2 and 3)."""
from __future__ import annotations

from hypothesis import given, settings

from helpers_los import run_k
from helpers_sim import schedule
from test_policy_properties import workloads

FIG2 = [(0, 7, 10), (0, 4, 10), (0, 6, 10)]


def test_fig2_with_a_dedicated_job_waiting():
    # W^d is not empty (D asks for t=100): the head fits, scount < C_s, so the
    # DP runs under D's freeze point (Algorithm 2, lines 16-22) and prefers
    # 4 + 6; LOS-D starts the head at once.
    rows = FIG2 + [(0, 2, 10)]
    jobs, _, pol = run_k("hybrid_los", rows, 10, dedicated={3: 100}, cs=3)
    assert schedule(jobs) == {1: (10, 20), 2: (0, 10), 3: (0, 10), 4: (100, 110)}
    assert pol.scount == {0: 1}
    jobs, _, _ = run_k("los_d", rows, 10, dedicated={3: 100})
    assert schedule(jobs) == {1: (0, 10), 2: (10, 20), 3: (10, 20), 4: (100, 110)}


def test_dp_respects_the_dedicated_freeze_point():
    # D needs 5 of 10 from t=20. A (4, 100 s) and C (1, 100 s) still run then
    # (4 + 1 <= 5); B (5) ends at 10. All three start, D on time.
    rows = [(0, 4, 100), (0, 5, 10), (0, 1, 100), (0, 5, 10)]
    jobs, _, _ = run_k("hybrid_los", rows, 10, dedicated={3: 20}, cs=3)
    assert schedule(jobs) == {1: (0, 100), 2: (0, 10), 3: (0, 100), 4: (20, 30)}
    # With a 6-processor C the three cannot all run past t=20: the DP keeps
    # A + B (9 now) and C waits for D to end.
    rows[2] = (0, 2, 100)
    rows[3] = (0, 5, 10)
    jobs, _, pol = run_k("hybrid_los", rows, 10, dedicated={3: 20}, cs=3)
    assert schedule(jobs)[4] == (20, 30)
    assert schedule(jobs)[1] == (0, 100) and schedule(jobs)[2] == (0, 10)
    assert schedule(jobs)[3] == (30, 130)


def test_a_non_fitting_head_counts_skips_while_dedicated_jobs_wait():
    # Algorithm 2, lines 22/30: with W^d not empty, every round where the head
    # (H, 5 procs, blocked by R until 100) is not started is a skip: the rounds
    # at t=1, 2, 3 and 13 (J5 ends) give scount 4 >= C_s = 3, so at t=100 H
    # starts at once, although the DP would prefer J4 (7 procs) to it.
    rows = [(0, 8, 100), (1, 5, 10), (1, 1, 1), (2, 7, 10), (3, 2, 10)]
    jobs, _, pol = run_k("hybrid_los", rows, 10, dedicated={2: 500}, cs=3)
    assert pol.scount == {1: 4, 3: 1}  # J4 then heads the queue and is reserved
    assert schedule(jobs)[2] == (100, 110) and schedule(jobs)[4] == (110, 120)
    # Without the dedicated job (Delayed-LOS) those rounds are not skips: at
    # t=100 H has scount 0 and the DP starts J4 instead.
    jobs, _, pol = run_k("hybrid_los", rows, 10, cs=3)
    assert pol.scount == {1: 1}
    assert schedule(jobs)[2] == (110, 120) and schedule(jobs)[4] == (100, 110)


def test_due_dedicated_job_goes_ahead_of_the_batch_head():
    # B (10 procs, 20 s) heads the batch queue when A ends at 40, but would
    # overlap D (due at 50): it is reserved after D, which starts on time.
    rows = [(0, 10, 40), (1, 4, 10), (2, 10, 20)]
    jobs, _, _ = run_k("hybrid_los", rows, 10, dedicated={1: 50}, cs=0)
    assert schedule(jobs) == {1: (0, 40), 2: (50, 60), 3: (60, 80)}
    # A 10-s B ends by 50 and may run first.
    rows[2] = (2, 10, 10)
    jobs, _, _ = run_k("hybrid_los", rows, 10, dedicated={1: 50}, cs=0)
    assert schedule(jobs) == {1: (0, 40), 2: (50, 60), 3: (40, 50)}


@settings(max_examples=80, deadline=None, derandomize=True)
@given(case=workloads())
def test_without_dedicated_jobs_hybrid_los_is_delayed_los(case):
    cpus, rows = case
    a, _, pa = run_k("delayed_los", rows, cpus, debug=False, cs=2)
    b, _, pb = run_k("hybrid_los", rows, cpus, debug=False, cs=2)
    assert schedule(a) == schedule(b)
    assert pa.scount == pb.scount
