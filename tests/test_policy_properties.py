"""Property tests over random workloads, for every registered policy.

For each random workload: the engine's debug mode checks the ledger after
every round; afterwards every job has completed, none started before its
submission and no instant is over-allocated. EASY must never push back the
reservation (shadow time) of the job at the head of the queue, and
conservative backfilling must never push back any job's reservation.
"""
from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_sim import assert_valid_schedule, run

from simlib.engine.job import WAITING
from simlib.policies import POLICIES, make_policy


@st.composite
def workloads(draw):
    cpus = draw(st.integers(1, 16))
    n = draw(st.integers(1, 25))
    rows, t = [], 0
    for _ in range(n):
        t += draw(st.integers(0, 15))
        procs = draw(st.integers(1, cpus))
        runtime = draw(st.integers(1, 40))
        # Estimates from exact to 4x, sometimes too short (killed at walltime).
        requested = max(1, runtime * draw(st.sampled_from([1, 1, 2, 4])) - draw(st.sampled_from([0, 0, 0, 5])))
        rows.append((t, procs, runtime, requested))
    return cpus, rows


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


@pytest.mark.parametrize("policy", sorted(POLICIES))
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


def _recording(policy_name, record):
    """Wrap a policy so that after every round ``record(policy, now)`` is called."""
    pol = make_policy(policy_name)
    inner = pol.on_round

    def on_round(now, *args):
        inner(now, *args)
        record(pol, now)

    pol.on_round = on_round
    return pol


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
    for idx, seq in shadows.items():
        assert all(b <= a for a, b in zip(seq, seq[1:])), (idx, seq)
        assert jobs[idx].start <= seq[0]


@SETTINGS
@given(case=workloads())
def test_conservative_never_delays_any_reservation(case):
    cpus, rows = case
    reservations = defaultdict(list)

    def record(pol, now):
        for job in pol.queue:
            reservations[job.idx].append(job.data)

    jobs, _ = run(_recording("conservative", record), rows, cpus)
    for idx, seq in reservations.items():
        assert all(b <= a for a, b in zip(seq, seq[1:])), (idx, seq)
        assert jobs[idx].start <= seq[0]
