"""The elastic control command (ECC) processor and the -E / -DE policies (paper K)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings

from helpers_los import heterogeneous_workloads, run_k
from helpers_sim import assert_valid_schedule, schedule

from simlib.errors import ConfigError
from simlib.policies import POLICIES, make_policy
from simlib.policies.ecc import is_command
from simlib.workload.cwf import ElasticCommand

ELASTIC = sorted(name for name, cls in POLICIES.items() if cls.elastic)


def test_the_elastic_policies_of_table_iii():
    assert ELASTIC == ["delayed_los_e", "easy_de", "easy_e", "hybrid_los_e", "los_de", "los_e"]
    for name in ELASTIC:
        base = name[:-2] if name.endswith("_e") else name[:-3] + "_d"
        assert POLICIES[base].heterogeneous == POLICIES[name].heterogeneous, name
        assert issubclass(POLICIES[name], POLICIES[base])


@pytest.mark.parametrize("policy", ELASTIC)
def test_extension_of_a_running_job(policy):
    # 50 s of work, 100 s requested; +30 s at t=10: both grow.
    jobs, _, pol = run_k(policy, [(0, 4, 50, 100)], 4, commands=[(10, 1, "ET", 30)])
    assert schedule(jobs) == {1: (0, 80)}
    assert jobs[0].requested_time == 130 and jobs[0].work == 80
    assert pol.ecc.applied == 1


@pytest.mark.parametrize("policy", ELASTIC)
def test_reduction_of_a_running_job(policy):
    jobs, _, _ = run_k(policy, [(0, 4, 50, 100)], 4, commands=[(10, 1, "RT", 20)])
    assert schedule(jobs) == {1: (0, 30)}
    assert jobs[0].requested_time == 80


@pytest.mark.parametrize("policy", ["easy_e", "los_de"])
def test_reduction_below_the_work_done_ends_the_job_now(policy):
    jobs, _, _ = run_k(policy, [(0, 4, 50, 100), (1, 4, 10)], 4, commands=[(20, 1, "RT", 90)])
    assert schedule(jobs) == {1: (0, 20), 2: (20, 30)}
    assert jobs[0].requested_time == 20 and jobs[0].work == 20


# J1 holds the machine until 50; J2 (30 s of work, 40 s requested) waits.
QUEUED = [(0, 4, 50), (1, 4, 30, 40)]


@pytest.mark.parametrize("policy", ELASTIC)
@pytest.mark.parametrize("kind, amount, finish, requested", [
    ("ET", 10, 90, 50),    # 30 + 10 s of work
    ("RT", 25, 55, 15),    # 30 - 25
    ("RT", 100, 51, 1),    # floored at min_runtime = 1 s
])
def test_command_on_a_queued_job(policy, kind, amount, finish, requested):
    jobs, _, _ = run_k(policy, QUEUED, 4, commands=[(5, 2, kind, amount)])
    assert schedule(jobs)[2] == (50, finish)
    assert jobs[1].requested_time == requested


def test_commands_are_processed_in_order():
    # Same instant, opposite orders: +10 then -50 floors at 1 s; -50 then +10 gives 11 s.
    a, _, _ = run_k("easy_e", QUEUED, 4, commands=[(5, 2, "ET", 10), (5, 2, "RT", 50)])
    b, _, _ = run_k("easy_e", QUEUED, 4, commands=[(5, 2, "RT", 50), (5, 2, "ET", 10)])
    assert schedule(a)[2] == (50, 51) and schedule(b)[2] == (50, 61)


def test_new_estimates_move_reservations():
    # A (6 of 10, 50 s) is extended by 100 s at t=2: the head H (8) is then
    # reserved at 150, so B (4 procs, 100 s) may backfill at t=3 (ends by 150).
    # EASY without the ECC processor ignores the command: H is reserved at 50
    # and B (4 > 2 extra, ends after 50) waits.
    rows = [(0, 6, 50), (1, 8, 10), (3, 4, 100)]
    cmds = [(2, 1, "ET", 100)]
    jobs, _, _ = run_k("easy_e", rows, 10, commands=cmds)
    assert schedule(jobs) == {1: (0, 150), 2: (150, 160), 3: (3, 103)}
    jobs, _, _ = run_k("easy", rows, 10, commands=cmds)
    assert schedule(jobs) == {1: (0, 50), 2: (50, 60), 3: (60, 160)}


def test_extending_a_running_job_can_make_a_dedicated_job_late():
    # D (6 procs at t=60) was planned around A (6 procs until 50); A is then
    # extended to 80, so D starts late, as soon as A ends.
    rows = [(0, 6, 50), (0, 6, 10)]
    jobs, _, _ = run_k("easy_de", rows, 10, dedicated={1: 60}, commands=[(10, 1, "ET", 30)])
    assert schedule(jobs) == {1: (0, 80), 2: (80, 90)}


def test_ignored_commands_are_counted():
    cmds = [(20, 1, "ET", 5), (2, 2, "EP", 32), (2, 2, "ET", 1), (3, 2, "ET", 1), (4, 2, "RT", 1)]
    jobs, _, pol = run_k("los_e", [(0, 1, 10), (0, 1, 10)], 2, commands=cmds, ecc_max_per_job=2)
    assert pol.ecc.ignored == {"finished": 1, "processors": 1, "limit": 1}
    assert pol.ecc.applied == 2
    assert schedule(jobs)[2] == (0, 12)


@pytest.mark.parametrize("policy", ELASTIC)
def test_deferred_command_meets_the_job_running(policy):
    # J2 (submitted at 1) waits until 50; a +10 s command at 5 comes 4 s
    # after its submit, so under "defer" it is applied at 50 + 4 = 54, while
    # J2 runs: its planned end moves from 80 to 90, as "apply" also gives.
    jobs, _, pol = run_k(policy, QUEUED, 4, commands=[(5, 2, "ET", 10)], ecc_queued="defer")
    assert schedule(jobs)[2] == (50, 90)
    assert pol.ecc.hits == {"queued": 0, "running": 1}
    jobs, _, pol = run_k(policy, QUEUED, 4, commands=[(5, 2, "ET", 10)])
    assert pol.ecc.hits == {"queued": 1, "running": 0}


def test_deferred_reduction_ends_a_job_that_ran_past_it():
    # -28 s at 5 (4 s after J2's submit). Applied while queued (the paper),
    # J2's 30 s become 2 s: 50..52. Deferred, it comes at 54, when J2 has
    # done 4 s, more than the reduced 2: J2 ends at once, at 54.
    jobs, _, _ = run_k("easy_e", QUEUED, 4, commands=[(5, 2, "RT", 28)])
    assert schedule(jobs)[2] == (50, 52)
    jobs, _, pol = run_k("easy_e", QUEUED, 4, commands=[(5, 2, "RT", 28)], ecc_queued="defer")
    assert schedule(jobs)[2] == (50, 54)
    assert pol.ecc.hits["running"] == 1 and not pol.ecc.held


def test_deferred_command_of_a_dedicated_job_counts_from_its_requested_start():
    # Dedicated J2 asks for 60; it starts at 60 and the command came 5 s
    # after 60, so it is applied at 65 + 0 -> J2 at 60 + 5 = 65, extended.
    rows = [(0, 6, 50), (0, 6, 10)]
    jobs, _, pol = run_k("easy_de", rows, 10, dedicated={1: 60}, commands=[(65, 2, "ET", 30)],
                         ecc_queued="defer")
    assert schedule(jobs)[2] == (60, 100)
    assert pol.ecc.hits == {"queued": 0, "running": 1}


def test_deferred_command_of_a_late_job_keeps_its_delay():
    # Dedicated J2 (submitted at 1) asks for 10 but J1 holds the machine
    # until 50: its command, issued at 12 (2 s after the requested start), is
    # applied at 50 + 2 = 52: -9 s leaves 1 s of work, less than the 2 s
    # done, so J2 ends at 52 (applied while queued: 50..51).
    rows = [(0, 10, 50), (1, 6, 10)]
    jobs, _, _ = run_k("easy_de", rows, 10, dedicated={1: 10}, commands=[(12, 2, "RT", 9)],
                       ecc_queued="defer")
    assert schedule(jobs)[2] == (50, 52)
    jobs, _, _ = run_k("easy_de", rows, 10, dedicated={1: 10}, commands=[(12, 2, "RT", 9)])
    assert schedule(jobs)[2] == (50, 51)


def test_bad_queued_mode_is_an_error():
    with pytest.raises(ConfigError, match="ecc_queued must be one of apply, defer; not 'later'"):
        make_policy("easy_e", ecc_queued="later")


def test_unknown_job_is_an_error():
    with pytest.raises(ConfigError, match="no job 9"):
        run_k("easy_e", [(0, 1, 10)], 2, commands=[(1, 9, "ET", 5)])


def test_bad_limit_is_an_error():
    with pytest.raises(ConfigError, match="ecc_max_per_job"):
        run_k(make_policy("easy_e", ecc_max_per_job=-1), [(0, 1, 10)], 2)


def test_is_command():
    assert is_command(ElasticCommand(0, 1, "RT", 1))
    assert not is_command(("dedicated", 1)) and not is_command(None)


@pytest.mark.parametrize("policy", ["easy_e", "los_e", "delayed_los_e"])
@settings(max_examples=80, deadline=None, derandomize=True)
@given(case=heterogeneous_workloads(dedicated=False))
@pytest.mark.parametrize("queued", ["apply", "defer"])
def test_random_elastic_workloads_are_valid(policy, queued, case):
    cpus, rows, _, cmds = case
    jobs, _, pol = run_k(policy, rows, cpus, commands=cmds, ecc_queued=queued)
    assert_valid_schedule(jobs, cpus)
    for j in jobs:
        assert j.finish - j.start == pytest.approx(j.work)
        assert j.work <= j.requested_time + 1e-9  # overrun="kill" still holds
    assert pol.ecc.applied + sum(pol.ecc.ignored.values()) == len(cmds)
    assert sum(pol.ecc.hits.values()) == pol.ecc.applied and not pol.ecc.held
    if queued == "defer":
        assert pol.ecc.hits["queued"] == 0
