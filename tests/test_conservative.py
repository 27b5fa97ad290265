import doctest

import pytest

from helpers_sim import assert_valid_schedule, run, schedule
from test_easy import DELAYS_SECOND

import simlib.policies.conservative as conservative_module
from simlib.engine.allocation import PerCore
from simlib.errors import ConfigError
from simlib.platform import Platform
from simlib.policies import make_policy


def test_conservative_does_not_delay_the_second_queued_job():
    jobs, _ = run("conservative", DELAYS_SECOND, 10)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 20), 3: (20, 30), 4: (30, 70)}
    assert_valid_schedule(jobs, 10)


def test_backfills_into_holes_that_delay_nobody():
    # J3 (2 CPUs, 8 s) fits before J2's reservation at 10.
    jobs, _ = run("conservative", [(0, 6, 10), (1, 8, 10), (2, 2, 8)], 10)
    assert schedule(jobs)[3] == (2, 10)


def test_compression_moves_reservations_forward_on_early_end():
    # J1 is estimated at 100 s but ends at 10: J2 and J3 move up.
    jobs, _ = run("conservative", [(0, 10, 10, 100), (1, 10, 5), (2, 10, 5)], 10)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 15), 3: (15, 20)}


# ------------------------------------------------ allocation rules (paper D)
# Two clusters of four single-core nodes: ids 0-3 | 4-7.
D = Platform.homogeneous(8, clusters=2)
RULES = ["basic", "best_effort_contiguous", "best_effort_local", "contiguous", "local"]


def placements(rule, rows, platform=D):
    jobs, _ = run("conservative", rows, platform.cpus, platform=platform, allocation=rule)
    assert_valid_schedule(jobs, platform.cpus)
    return {j.job_id: (j.start, j.alloc) for j in jobs}


def test_conservative_examples():
    assert doctest.testmod(conservative_module).failed == 0


# J1 (2 procs, 10 s) and J2 (4 procs, 100 s) start at 0; J3 (3 procs) fits
# at 10 only in the fragmented hole {0, 1, 6, 7}.
FRAGMENTING = [(0, 2, 10), (0, 4, 100), (0, 3, 10)]


@pytest.mark.parametrize("rule, j2, j3", [
    ("count", [2, 3, 4, 5], (10.0, [0, 1, 6])),
    ("basic", [2, 3, 4, 5], (10.0, [0, 1, 6])),
    ("best_effort_contiguous", [2, 3, 4, 5], (10.0, [0, 1, 6])),
    ("contiguous", [2, 3, 4, 5], (100.0, [0, 1, 2])),      # rejects the hole at 10
    # Local puts J2 in cluster 1, so cluster 0 is whole again at 10.
    ("best_effort_local", [4, 5, 6, 7], (10.0, [0, 1, 2])),
    ("local", [4, 5, 6, 7], (10.0, [0, 1, 2])),
])
def test_each_rule_on_a_fragmenting_workload(rule, j2, j3):
    got = placements(rule, FRAGMENTING)
    assert got[1] == (0.0, [0, 1]) and got[2] == (0.0, j2) and got[3] == j3


# J1 fills 3 of cluster 0, J2 3 of cluster 1 (local) or 3, 4, 5 (others):
# the hole left for J3 (2 procs) spans both clusters.
SPANNING = [(0, 3, 100), (0, 3, 10), (0, 2, 50)]


@pytest.mark.parametrize("rule, j2, j3", [
    ("basic", [3, 4, 5], (0.0, [6, 7])),
    ("contiguous", [3, 4, 5], (0.0, [6, 7])),
    ("best_effort_local", [4, 5, 6], (0.0, [3, 7])),       # falls back to basic
    ("local", [4, 5, 6], (10.0, [4, 5])),                  # rejects {3, 7}
])
def test_each_rule_on_a_hole_spanning_clusters(rule, j2, j3):
    got = placements(rule, SPANNING)
    assert got[2] == (0.0, j2) and got[3] == j3


def test_strict_rules_keep_their_constraint_and_backfill_behind_reservations():
    rows = [(0, 3, 30), (1, 2, 5), (2, 4, 20), (3, 1, 4), (4, 3, 12), (5, 2, 40), (6, 4, 8)]
    for rule in ("contiguous", "local"):
        jobs, _ = run("conservative", rows, 8, platform=D, allocation=rule)
        assert_valid_schedule(jobs, 8)
        for j in jobs:
            ids = sorted(j.alloc)
            if rule == "contiguous":
                assert ids == list(range(ids[0], ids[0] + j.procs)), (rule, j, ids)
            else:
                assert len({i // 4 for i in ids}) == 1, (rule, j, ids)


def test_compression_keeps_planned_ids_consistent():
    # J1 is estimated at 100 s but ends at 10: J2 and J3 move up, on their cores.
    got = placements("contiguous", [(0, 8, 10, 100), (1, 4, 5), (2, 6, 5)])
    assert got == {1: (0.0, list(range(8))), 2: (10.0, [0, 1, 2, 3]), 3: (15.0, [0, 1, 2, 3, 4, 5])}


def test_allocation_parameter_is_checked():
    with pytest.raises(ConfigError, match="allocation must be one of count, basic, best_effort_"):
        make_policy("conservative", allocation="first_fit")
    with pytest.raises(ConfigError, match="allocation must be a string"):
        make_policy("conservative", allocation=3)
    assert make_policy("conservative").strategy is None


def test_local_refuses_a_job_wider_than_every_cluster():
    # Paper D removes such jobs from its workloads (section 5.1).
    with pytest.raises(ConfigError, match="job 2 asks for 5 processors; allocation 'local' "
                                          "can place at most 4"):
        run("conservative", [(0, 1, 5), (0, 5, 5)], 8, platform=D, allocation="local")
    jobs, _ = run("conservative", [(0, 1, 5), (0, 5, 5)], 8, platform=D,
                  allocation="best_effort_local")
    assert sorted(jobs[1].alloc) == [1, 2, 3, 4, 5]


def test_a_subclass_can_plan_with_per_core_placement():
    # Paper Z's hook: a conservative policy placing 2 processes per node, one
    # on each dual-core CPU; J2 shares J1's CPUs, J3 needs two nodes.
    class PerCoreConservative(conservative_module.Conservative):
        def __init__(self, **params):
            super().__init__(**params)
            self.strategy = PerCore(ppn=2)

    z = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2)
    jobs, _ = run(PerCoreConservative(), [(0, 2, 10), (0, 2, 10), (0, 4, 5)], 8, platform=z)
    assert {j.job_id: (j.start, j.alloc) for j in jobs} == {
        1: (0.0, [0, 2]), 2: (0.0, [1, 3]), 3: (10.0, [0, 2, 4, 6])}
