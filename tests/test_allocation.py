"""Allocation objects and strategies on hand-made platforms.

Platforms used: ``D`` = 2 clusters x 4 single-core nodes (paper D's shape,
scaled down: cores are nodes, cluster 0 = ids 0-3, cluster 1 = ids 4-7);
``Z`` = 2 nodes of two dual-core CPUs (paper Z's node: cores 0-1 on CPU 0,
2-3 on CPU 1).
"""
from __future__ import annotations

import dataclasses
import doctest

import numpy as np
import pytest

import simlib.engine.allocation as allocation
from simlib.engine.allocation import (Allocation, BestEffort, Contiguous, LowestIds, OneCluster,
                                      PerCore, PlanChoice, ids_of, lowest_bits, make_rule, mask_of,
                                      runs_of)
from simlib.engine.job import WAITING, Job
from simlib.engine.simulator import Simulator
from simlib.errors import ConfigError, SimulationError
from simlib.platform import Platform
from simlib.policies import make_policy

D = Platform.homogeneous(8, clusters=2)
Z = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2)


def pick(strategy, free, size, platform=D):
    got = strategy.choose(platform, free, size)
    return None if got is None else list(got.cores)


def test_module_examples():
    assert doctest.testmod(allocation).failed == 0


# ------------------------------------------------------------------ masks
def test_mask_helpers_round_trip():
    ids = [0, 3, 4, 5, 9, 70]
    assert ids_of(mask_of(ids)) == ids
    assert ids_of(0) == []
    assert ids_of(lowest_bits(mask_of(ids), 4)) == [0, 3, 4, 5]
    assert lowest_bits(mask_of(ids), 10) == mask_of(ids)
    assert ids_of(runs_of(mask_of(ids), 3)) == [3]
    assert ids_of(runs_of(mask_of(range(10)), 7)) == [0, 1, 2, 3]
    assert runs_of(mask_of(ids), 4) == 0


def test_lowest_bits_keeps_the_k_lowest_ids_of_random_masks():
    # Both ways of finding them (peeling for k <= 8, a binary search on the
    # width above), against the definition: the first k sorted ids.
    rng = np.random.default_rng(7)
    for _ in range(300):
        width = int(rng.choice([8, 64, 130, 512]))
        ids = sorted(rng.choice(width, size=int(rng.integers(0, width + 1)), replace=False).tolist())
        for k in (0, 1, 2, 7, 8, 9, 31, 100, len(ids), len(ids) + 1):
            assert ids_of(lowest_bits(mask_of(ids), k)) == ids[:k], (ids, k)


def test_plan_choice_answers_as_its_strategy_and_stays_bounded():
    plat = Platform.homogeneous(16, clusters=4)
    rng = np.random.default_rng(3)
    for rule in (OneCluster(), Contiguous(), LowestIds(), make_rule("best_effort_local")):
        choice = PlanChoice(rule, most=20)
        for _ in range(400):
            free, size = int(rng.integers(0, 1 << 16)), int(rng.integers(1, 6))
            for _ in range(2):  # the second time from the memory, when refused
                got, want = choice.select(plat, free, size), rule.select(plat, free, size)
                assert (got and list(got)) == (want and list(want.cores))
                assert rule.select_mask(plat, free, size) == (want and want.mask)
            assert len(choice.refused) <= 20


# ------------------------------------------------------------ Allocation
def test_allocation_is_immutable_and_derives_nodes_and_clusters():
    p = Platform.homogeneous(16, cores_per_node=4, clusters=2)
    a = Allocation.of(p, [13, 4, 5])
    assert a.cores == (4, 5, 13) and a.nodes == (1, 3) and len(a) == 3
    assert list(a) == [4, 5, 13] and 13 in a and 6 not in a
    assert a.clusters(p) == (0, 1) and not a.is_local(p) and not a.is_contiguous
    assert Allocation.of(p, [6, 4, 5]).is_contiguous
    assert Allocation.from_mask(p, a.mask) == a
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.cores = (0,)
    with pytest.raises(ConfigError, match="twice"):
        Allocation.of(p, [1, 1])
    with pytest.raises(ConfigError, match="0..15"):
        Allocation.of(p, [16])


def test_sockets_of_the_zeng_sodan_node():
    assert Z.core_socket.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert Allocation.of(Z, [0, 2, 5]).sockets(Z) == (0, 1, 2)
    with pytest.raises(ConfigError, match="sockets"):
        Platform.homogeneous(6, cores_per_node=3, sockets_per_node=2)


# ------------------------------------------------------ paper D's rules
def test_basic_takes_the_lowest_ids():
    assert pick(LowestIds(), [7, 2, 5, 3, 6], 3) == [2, 3, 5]
    assert pick(LowestIds(), [7, 2], 3) is None


def test_contiguous_rejects_a_fragmented_hole_that_basic_accepts():
    hole = [0, 1, 3, 4, 6]
    assert pick(LowestIds(), hole, 3) == [0, 1, 3]
    assert pick(Contiguous(), hole, 3) is None
    assert pick(Contiguous(), hole, 2) == [0, 1]          # the lowest block
    assert pick(Contiguous(), [0, 2, 3, 4, 5], 3) == [2, 3, 4]


def test_contiguity_may_cross_a_cluster_boundary():
    # Contiguity is about ids only; paper D's rule knows nothing of clusters.
    assert pick(Contiguous(), [2, 3, 4, 5], 4) == [2, 3, 4, 5]


def test_local_rejects_a_hole_spanning_clusters():
    hole = [2, 3, 4, 5]                                   # 2 free per cluster
    assert pick(LowestIds(), hole, 3) == [2, 3, 4]
    assert pick(OneCluster(), hole, 3) is None
    assert pick(OneCluster(), hole, 2) == [2, 3]          # first cluster with room
    assert pick(OneCluster(), [2, 3, 4, 5, 6], 3) == [4, 5, 6]


def test_local_picks_the_smallest_id_sum_when_clusters_interleave():
    # Nodes 0,2,4,6 in cluster 1 and 1,3,5,7 in cluster 0: the local set of
    # smallest id sum wins (basic's rule restricted to local sets), not the
    # cluster of smallest id.
    p = Platform([1] * 8, [1, 0, 1, 0, 1, 0, 1, 0], [1.0] * 8)
    assert pick(OneCluster(), [0, 2, 3, 4, 5, 7], 3, p) == [0, 2, 4]
    assert pick(OneCluster(), [0, 1, 3, 5, 6, 7], 3, p) == [1, 3, 5]
    assert OneCluster().max_size(p) == 4


def test_best_effort_falls_back_to_basic():
    assert pick(BestEffort(Contiguous()), [0, 1, 3, 4, 6], 3) == [0, 1, 3]
    assert pick(BestEffort(Contiguous()), [0, 2, 3, 4, 6], 3) == [2, 3, 4]
    assert pick(BestEffort(OneCluster()), [2, 3, 4, 5], 3) == [2, 3, 4]
    assert pick(BestEffort(OneCluster()), [2, 3, 4, 5, 6], 3) == [4, 5, 6]
    assert pick(BestEffort(OneCluster()), [2, 3], 3) is None   # no fitting hole
    assert not BestEffort(OneCluster()).strict and OneCluster.strict and Contiguous.strict


def test_rule_registry():
    names = ["basic", "best_effort_contiguous", "best_effort_local", "contiguous", "local"]
    assert list(allocation.RULES) == names
    assert [make_rule(n).name for n in names] == names
    assert make_rule("local") is not make_rule("local")   # fresh objects (they cache layouts)
    with pytest.raises(ConfigError, match="choices: basic, best_effort_contiguous"):
        make_rule("first_fit")


# ------------------------------------------------- paper Z's placement
def test_per_core_spreads_a_job_over_the_cpus_of_a_node():
    a = PerCore(ppn=2).choose(Z, range(8), 4)
    assert a.cores == (0, 2, 4, 6) and a.nodes == (0, 1)
    # Each node runs one process of the job on each of its two CPUs.
    assert a.sockets(Z) == (0, 1, 2, 3)


def test_per_core_puts_different_jobs_on_the_same_cpu():
    first = PerCore(ppn=2).choose(Z, range(8), 2)
    assert first.cores == (0, 2)
    left = set(range(8)) - set(first)
    second = PerCore(ppn=2).choose(Z, left, 2)
    assert second.cores == (1, 3)                       # CPU 0: cores 0|1, CPU 1: 2|3
    # One process per node: a second single-process job joins the first's CPU.
    one = PerCore(ppn=1).choose(Z, range(8), 1)
    assert one.cores == (0,)
    assert PerCore(ppn=1).choose(Z, set(range(8)) - {0}, 1).cores == (1,)


def test_per_core_full_nodes_and_remainders():
    assert PerCore(ppn=4).choose(Z, range(8), 8).cores == tuple(range(8))
    assert PerCore(ppn=4).choose(Z, range(8), 6).cores == (0, 1, 2, 3, 4, 6)
    assert PerCore(ppn=3).choose(Z, range(8), 3).cores == (0, 1, 2)
    assert PerCore(ppn=4).max_size(Z) == 8 and PerCore(ppn=1).max_size(Z) == 2


def test_per_core_on_whole_nodes_chooses_what_it_chooses_among_their_cores():
    # select_whole (Scojo-PECT places jobs on whole free nodes) against
    # select_mask on those nodes' cores: odd sockets and node sizes, any ppn.
    import random
    rng = random.Random(3)
    plats = [Z, Platform.homogeneous(24, cores_per_node=6, sockets_per_node=3),
             Platform.homogeneous(12, cores_per_node=1)]
    for plat in plats:
        lay = PerCore().layout(plat)
        for ppn in (1, 2, 3, 4):
            placer = PerCore(ppn=ppn)
            for _ in range(60):
                nodes = sorted(rng.sample(range(plat.nodes), rng.randint(0, plat.nodes)))
                free = mask_of(c for n in nodes for c in ids_of(lay.node_masks[n]))
                size = rng.randint(0, 4 * len(nodes) + 1)
                # A fresh placer has no node share kept: the plain walk.
                want = PerCore(ppn=ppn).select_mask(plat, free, size)
                assert placer.select_whole(plat, nodes, size) == want
                assert placer.select_mask(plat, free, size) == want
                # Partly free nodes beside whole ones, with the shares kept.
                some = free & ~mask_of(rng.sample(range(plat.cpus), plat.cpus // 3))
                assert placer.select_mask(plat, some, size) == \
                    PerCore(ppn=ppn).select_mask(plat, some, size)


def test_per_core_rejects_nodes_where_the_job_cannot_be_spread():
    # Node 0 has cores 0 and 1 free, both on CPU 0: two processes of one job
    # would share a CPU, so node 1 is used instead.
    assert PerCore(ppn=2).choose(Z, [0, 1, 5, 7], 2).cores == (5, 7)
    assert PerCore(ppn=2).choose(Z, [0, 1, 4, 5], 2) is None
    assert PerCore(ppn=4).choose(Z, [0, 1, 2, 4, 5, 6, 7], 4).cores == (4, 5, 6, 7)
    with pytest.raises(ConfigError, match="ppn"):
        PerCore(ppn=0)


# ------------------------------------------------- the simulator's hook
def test_simulator_start_with_a_strategy_and_with_an_allocation():
    jobs = [Job(i, i + 1, 0.0, n, 10.0, 10.0) for i, n in enumerate([1, 1, 3, 2])]
    sim = Simulator(D, jobs, make_policy("fcfs"), debug=True)
    for j in jobs:
        j.state = WAITING
    sim.start(jobs[0], ids=[1])
    sim.start(jobs[1], ids=Allocation.of(D, [4]))
    sim.start(jobs[2], strategy=Contiguous())            # 0 | 2 3 | 5 6 7 free
    assert jobs[2].alloc == [5, 6, 7] and jobs[1].alloc == [4]
    with pytest.raises(SimulationError, match="no placement"):
        sim.start(jobs[3], strategy=Contiguous(), cpus=3)   # 0 2 3 free: no run of 3
    with pytest.raises(SimulationError, match="over-allocation"):
        sim.start(jobs[3], strategy=OneCluster(), cpus=4)
    sim.start(jobs[3], strategy=OneCluster())
    assert jobs[3].alloc == [0, 2]
    sim.check_invariants()
