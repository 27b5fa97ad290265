"""Delayed-LOS (paper K, Algorithm 1): skip counting and the switch to LOS behaviour."""
from __future__ import annotations

import pytest
from hypothesis import given, settings

from helpers_los import run_k
from helpers_sim import schedule
from test_policy_properties import workloads

from simlib.errors import ConfigError
from simlib.policies import make_policy

FIG2 = [(0, 7, 10), (0, 4, 10), (0, 6, 10)]


def test_fig2_delayed_los_starts_the_two_rear_jobs():
    # Paper K, Fig. 2 alternative (b): 4 + 6 use all 10 processors; the 7 is skipped once.
    jobs, _, pol = run_k("delayed_los", FIG2, 10, cs=7)
    assert schedule(jobs) == {1: (10, 20), 2: (0, 10), 3: (0, 10)}
    assert pol.scount == {0: 1}
    assert pol.stats == {"head_start": 0, "basic_dp": 2, "reservation_dp": 0}


def test_fig2_with_cs_zero_is_los():
    jobs, _, _ = run_k("delayed_los", FIG2, 10, cs=0)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 20), 3: (10, 20)}


# J1 (7 procs, 100 s) heads the queue; at t=0, 10 and 20 a 4 and a 6 arrive
# that fill the machine exactly.
SKIPS = [(0, 7, 100), (0, 4, 10), (0, 6, 10), (10, 4, 10), (10, 6, 10), (20, 4, 10), (20, 6, 10)]


def test_skip_count_reaches_cs_then_head_is_forced():
    jobs, _, pol = run_k("delayed_los", SKIPS, 10, cs=2)
    # Skipped at t=0 and t=10 (scount 2 = C_s); at t=20 it starts although
    # J6 + J7 would fill the machine; J6 then heads the queue and does not
    # fit (3 free): it is reserved (Reservation_DP), and both start at 120.
    assert schedule(jobs) == {1: (20, 120), 2: (0, 10), 3: (0, 10), 4: (10, 20), 5: (10, 20),
                              6: (120, 130), 7: (120, 130)}
    assert pol.scount == {0: 2}
    assert pol.stats == {"head_start": 1, "basic_dp": 3, "reservation_dp": 1}


def test_forced_starts_and_the_largest_skip_count_are_counted():
    _, _, pol = run_k("delayed_los", SKIPS, 10, cs=2)
    assert (pol.forced_starts, pol.max_skips) == (1, 2)
    _, _, pol = run_k("delayed_los", SKIPS, 10, cs=0)   # LOS: every fitting head is forced
    assert pol.forced_starts == pol.stats["head_start"] > 0 and pol.max_skips == 0


def test_cs_infinity_never_forces_the_head():
    # C_s = None (infinity): J1 is skipped at t = 0, 10 and 20, while the 4 + 6
    # pairs fill the machine, and starts only when the queue holds nothing better.
    jobs, _, pol = run_k("delayed_los", SKIPS, 10, cs=None)
    assert schedule(jobs)[1] == (30, 130)
    assert (pol.forced_starts, pol.max_skips) == (0, 3)
    # Any C_s above the largest skip count gives the same run.
    same, _, big = run_k("delayed_los", SKIPS, 10, cs=4)
    assert schedule(same) == schedule(jobs) and big.forced_starts == 0


def test_larger_cs_keeps_skipping():
    jobs, _, pol = run_k("delayed_los", SKIPS, 10, cs=3)
    assert schedule(jobs)[1] == (30, 130)
    assert schedule(jobs)[6] == (20, 30)
    assert pol.scount == {0: 3}


def test_skips_are_counted_only_while_the_head_fits():
    # J2 (8) cannot fit while J1 runs: the rounds at t=1, 2, 3, 7, 8 reserve it
    # (Reservation_DP, which starts J3 and J4) and are not skips; at t=100 it
    # fits and the Basic_DP chooses it.
    rows = [(0, 6, 100), (1, 8, 10), (2, 1, 5), (3, 1, 5)]
    jobs, _, pol = run_k("delayed_los", rows, 10, cs=1)
    assert pol.scount == {}
    assert pol.stats == {"head_start": 0, "basic_dp": 2, "reservation_dp": 5}
    assert schedule(jobs) == {1: (0, 100), 2: (100, 110), 3: (2, 7), 4: (3, 8)}


def test_new_head_starts_with_zero_skips():
    # J1 is skipped at t=0 (scount 1 = C_s) and forced at t=10; the new head
    # J4 (2 procs) has scount 0, and the Basic_DP prefers J5 (3) on the 3
    # processors left: J4 is skipped once, then forced at t=20.
    rows = [(0, 7, 100), (0, 4, 10), (0, 6, 10), (10, 2, 10), (10, 3, 10)]
    jobs, _, pol = run_k("delayed_los", rows, 10, cs=1)
    assert pol.scount == {0: 1, 3: 1}
    assert schedule(jobs) == {1: (10, 110), 2: (0, 10), 3: (0, 10), 4: (20, 30), 5: (10, 20)}


def test_cs_must_be_a_non_negative_integer():
    with pytest.raises(ConfigError, match="cs"):
        make_policy("delayed_los", cs=-1)
    with pytest.raises(ConfigError, match="cs"):
        make_policy("delayed_los", cs=2.5)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(case=workloads())
def test_cs_zero_schedules_exactly_as_los(case):
    cpus, rows = case
    a, _, _ = run_k("los", rows, cpus, debug=False)
    b, _, _ = run_k("delayed_los", rows, cpus, debug=False, cs=0)
    assert schedule(a) == schedule(b)
