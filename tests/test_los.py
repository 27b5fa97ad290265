"""LOS: the DP functions against brute force, and the LOS policy (paper K / Shmueli & Feitelson)."""
from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings

from helpers_los import run_k
from helpers_sim import assert_valid_schedule, recording, schedule
from test_policy_properties import workloads

from simlib.engine.job import WAITING
from simlib.errors import ConfigError
from simlib.policies import make_policy
from simlib.policies.los import LOS, basic_dp, los_dp, reservation_dp


def brute_force(sizes, free, freezes=()):
    """Best utilization and the lexicographically first optimal subset (queue order)."""
    n = len(sizes)
    best, best_set = -1, None
    # Inclusion vectors in decreasing lexicographic order: the first optimum
    # found is the one that includes the earliest jobs.
    for bits in itertools.product((1, 0), repeat=n):
        chosen = [i for i in range(n) if bits[i]]
        if sum(sizes[i] for i in chosen) > free:
            continue
        if any(sum(fr[i] for i in chosen) > max(cap, 0) for fr, cap in freezes):
            continue
        used = sum(sizes[i] for i in chosen)
        if used > best:
            best, best_set = used, chosen
    return best, best_set


def random_case(rng, n_freezes):
    n = int(rng.integers(0, 9))
    free = int(rng.integers(0, 25))
    sizes = rng.integers(1, 12, n).tolist()
    freezes = []
    for _ in range(n_freezes):
        long = rng.random(n) < 0.5
        freezes.append(([s if lo else 0 for s, lo in zip(sizes, long)], int(rng.integers(-2, 15))))
    return sizes, free, freezes


@pytest.mark.parametrize("n_freezes", [0, 1, 2])
def test_dp_is_optimal_with_the_documented_tie_break(n_freezes):
    rng = np.random.default_rng(np.random.SeedSequence([5, n_freezes]))
    for _ in range(300):
        sizes, free, freezes = random_case(rng, n_freezes)
        best, first = brute_force(sizes, free, freezes)
        got = los_dp(sizes, free, freezes)
        assert sum(sizes[i] for i in got) == max(best, 0)
        assert got == (first if best > 0 else []), (sizes, free, freezes)


def test_basic_and_reservation_dp_against_brute_force():
    rng = np.random.default_rng(np.random.SeedSequence(11))
    for _ in range(200):
        sizes, free, [(frenums, frec)] = random_case(rng, 1)
        assert sum(sizes[i] for i in basic_dp(sizes, free)) == max(brute_force(sizes, free)[0], 0)
        got = reservation_dp(sizes, frenums, free, frec)
        assert sum(frenums[i] for i in got) <= max(frec, 0)
        assert sum(sizes[i] for i in got) == max(brute_force(sizes, free, [(frenums, frec)])[0], 0)


def test_tie_break_prefers_earlier_queue_positions():
    # {0, 3} and {1, 2} both use 6 of 6: the set with the earlier job wins.
    assert basic_dp([3, 2, 4, 3], 6) == [0, 3]
    assert basic_dp([2, 4, 3, 3], 6) == [0, 1]


@pytest.mark.parametrize("n_freezes", [0, 1, 2])
def test_latest_tie_rule_is_the_earliest_rule_in_reverse_queue_order(n_freezes):
    rng = np.random.default_rng(np.random.SeedSequence([7, n_freezes]))
    for _ in range(300):
        sizes, free, freezes = random_case(rng, n_freezes)
        n = len(sizes)
        best, first = brute_force(sizes[::-1], free, [(f[::-1], c) for f, c in freezes])
        got = los_dp(sizes, free, freezes, tie="latest")
        assert sum(sizes[i] for i in got) == max(best, 0)
        assert got == (sorted(n - 1 - i for i in first) if best > 0 else []), (sizes, free)


def test_tie_rules_differ_on_a_tie_and_in_a_schedule():
    # Any two of the three use 6 of 6.
    assert basic_dp([3, 3, 3], 6) == [0, 1]
    assert los_dp([3, 3, 3], 6, tie="latest") == [1, 2]
    # {0, 3} and {1, 2} both use 6 of 6; {0, 3} holds both the earliest job
    # and the latest one, so both rules pick it.
    assert los_dp([3, 2, 4, 3], 6, tie="latest") == basic_dp([3, 2, 4, 3], 6) == [0, 3]
    # J1 (4 of 10 CPUs, 100 s) runs; the head J2 (8) is reserved at 100; J3
    # and J4 (3 CPUs, 50 s each) and J5 (3, 50 s) all fit the 6 free CPUs and
    # end before 100: any two of them is optimal. earliest starts J3 and J4,
    # latest starts J4 and J5.
    rows = [(0, 4, 100), (1, 8, 10), (2, 3, 50), (2, 3, 50), (2, 3, 50)]
    early, _, _ = run_k("los", rows, 10)
    late, _, _ = run_k("los", rows, 10, tie="latest")
    assert schedule(early)[3][0] == 2 and schedule(early)[5][0] > 2
    assert schedule(late)[3][0] > 2 and schedule(late)[5][0] == 2
    with pytest.raises(ConfigError, match="tie"):
        los_dp([1], 5, tie="newest")
    with pytest.raises(ConfigError, match="tie"):
        LOS(tie="newest")


def test_lookahead_all_sees_the_whole_queue():
    rows = [(0, 6, 100), (1, 8, 10), (2, 5, 10), (2, 3, 10)]
    jobs, _, _ = run_k("los", rows, 10, lookahead="all")
    assert schedule(jobs)[4] == (2, 12)
    assert LOS(lookahead="all").lookahead is None
    for bad in ("some", 0, 2.5):
        with pytest.raises(ConfigError, match="lookahead"):
            LOS(lookahead=bad)


def test_units_are_exact_for_multiples_and_never_over_allocate():
    rng = np.random.default_rng(np.random.SeedSequence(3))
    for _ in range(100):
        sizes = (32 * rng.integers(1, 11, 8)).tolist()
        frenums = [s if rng.random() < 0.5 else 0 for s in sizes]
        free, frec = int(32 * rng.integers(0, 11)), int(32 * rng.integers(0, 11))
        a = reservation_dp(sizes, frenums, free, frec, unit=1)
        b = reservation_dp(sizes, frenums, free, frec, unit=32)
        assert a == b
        # A coarser unit rounds sizes up: the choice stays feasible.
        c = reservation_dp([s - 5 for s in sizes], frenums, free, frec, unit=32)
        assert sum(sizes[i] - 5 for i in c) <= free
        assert sum(frenums[i] for i in c) <= frec


def test_dp_edge_cases():
    assert los_dp([], 10) == []
    assert los_dp([3], 0) == []
    assert los_dp([5, 1], 4) == [1]
    with pytest.raises(ValueError):
        los_dp([1, 2], 5, [([1], 3)])
    with pytest.raises(ConfigError):
        los_dp([1], 5, unit=0)


def test_fig2_los_starts_the_head_job():
    # Paper K, Fig. 2 alternative (a): 10 free processors, jobs of 7, 4, 6.
    jobs, _, pol = run_k("los", [(0, 7, 10), (0, 4, 10), (0, 6, 10)], 10)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 20), 3: (10, 20)}
    assert pol.stats["head_start"] == 3 and pol.stats["basic_dp"] == 0


def test_reservation_dp_packs_better_than_easy():
    # J1 holds 5 of 10 until 100; head J2 (8) is reserved at 100 with 2 extra.
    # Of J3 (3, 10 s), J4 (4, 10 s), J5 (1, 200 s) LOS fills the 5 free with
    # J4 + J5; EASY takes J3 first (first fit) and uses only 4.
    rows = [(0, 5, 100), (1, 8, 10), (2, 3, 10), (2, 4, 10), (2, 1, 200)]
    los, _, _ = run_k("los", rows, 10)
    easy, _, _ = run_k("easy", rows, 10)
    assert schedule(los) == {1: (0, 100), 2: (100, 110), 3: (12, 22), 4: (2, 12), 5: (2, 202)}
    assert schedule(easy)[3] == (2, 12) and schedule(easy)[4] == (12, 22)


def test_reservation_is_respected():
    # J3 (4 procs, 200 s) fits now but would hold 4 > 2 extra processors at the
    # freeze end time 100: the reserved head J2 would be delayed, so it waits.
    rows = [(0, 6, 100), (1, 8, 10), (2, 4, 200)]
    jobs, _, _ = run_k("los", rows, 10)
    assert schedule(jobs) == {1: (0, 100), 2: (100, 110), 3: (110, 310)}


def test_lookahead_limits_the_window():
    # With lookahead 2 the DP sees the reserved head and J3 (5 > 4 free) only;
    # J4 (3) fits now but is beyond the window, so it waits.
    rows = [(0, 6, 100), (1, 8, 10), (2, 5, 10), (2, 3, 10)]
    jobs, _, _ = run_k("los", rows, 10, lookahead=2)
    assert schedule(jobs)[4] == (110, 120)
    jobs, _, _ = run_k("los", rows, 10)
    assert schedule(jobs)[4] == (2, 12)


def test_dp_runs_only_when_a_job_can_start(monkeypatch):
    import simlib.policies.los as los_mod
    calls = []
    real = los_mod.los_dp
    monkeypatch.setattr(los_mod, "los_dp", lambda *a: calls.append(a) or real(*a))
    # J2 (head) is blocked until 100 and J3 (5 procs) cannot start on the 4
    # free; J4..J6 are beyond lookahead 2. Rounds at t=1..4 run no DP; at 100
    # J2 starts, J3 is reserved and the DP starts J4 on the 2 left.
    rows = [(0, 6, 100), (1, 8, 10), (1, 5, 500), (2, 1, 10), (3, 1, 10), (4, 1, 10)]
    jobs, _, _ = run_k("los", rows, 10, lookahead=2)
    assert [a[:5] for a in calls] == [([1], 2, [], 1, "earliest")]
    assert schedule(jobs)[4] == (100, 110)


def test_bad_parameters_are_rejected():
    with pytest.raises(ConfigError, match="lookahead"):
        make_policy("los", lookahead=0)
    with pytest.raises(ConfigError, match="unit"):
        make_policy("los", unit=-32)
    with pytest.raises(ConfigError, match="unknown parameter"):
        make_policy("los", cs=3)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(case=workloads())
def test_bluegene_units_give_the_same_schedule(case):
    # Sizes in multiples of 32 on 32x the machine: unit=32 is exact.
    cpus, rows = case
    rows32 = [(t, 32 * p, r, q) for t, p, r, q in rows]
    a, _, _ = run_k("los", rows32, 32 * cpus, debug=False)
    b, _, _ = run_k("los", rows32, 32 * cpus, debug=False, unit=32)
    assert schedule(a) == schedule(b)
    assert_valid_schedule(b, 32 * cpus)


@pytest.mark.parametrize("policy", ["los", "los_d"])
@settings(max_examples=100, deadline=None, derandomize=True)
@given(case=workloads())
def test_los_never_delays_the_head_reservation(policy, case):
    cpus, rows = case
    reserved = defaultdict(list)

    def record(pol, now):
        if pol.reservation is not None and pol.reservation[0].state == WAITING:
            reserved[pol.reservation[0].idx].append(pol.reservation[1])

    jobs, _, _ = run_k(recording(policy, record), rows, cpus)
    for idx, seq in reserved.items():
        assert all(b <= a for a, b in zip(seq, seq[1:])), (idx, seq)
        assert jobs[idx].start <= seq[0]
