import doctest

import pytest

import simlib.policies.profile as profile_module
from simlib.engine.allocation import (Allocation, BestEffort, Contiguous, LowestIds, OneCluster,
                                      PerCore, ids_of, make_rule)
from simlib.errors import SimulationError
from simlib.platform import Platform
from simlib.policies.profile import AvailabilityProfile, PlacementProfile


def test_earliest_start_skips_blocking_steps():
    prof = AvailabilityProfile(0.0, 10)
    prof.reserve(0.0, 10.0, 6)   # running job
    prof.reserve(10.0, 20.0, 8)  # a reservation
    assert prof.earliest_start(4, 5.0, 0.0) == 0.0
    assert prof.earliest_start(4, 15.0, 0.0) == 20.0  # [10,20) has only 2 free
    assert prof.earliest_start(2, 15.0, 0.0) == 0.0
    assert prof.earliest_start(9, 1.0, 3.0) == 20.0


def test_release_and_advance_and_compact():
    prof = AvailabilityProfile(0.0, 4)
    prof.reserve(2.0, 6.0, 3)
    prof.release(2.0, 6.0, 3)
    prof.compact()
    assert prof.times == [0.0] and prof.free == [4]
    prof.reserve(5.0, 9.0, 1)
    prof.advance(7.0)
    assert prof.times == [7.0, 9.0] and prof.free == [3, 4]


# ---------------------------------------------------------------- identity
# Two clusters of four single-core nodes: ids 0-3 | 4-7.
D = Platform.homogeneous(8, clusters=2)


def placed(prof, strategy, size, duration, not_before=0.0, **kw):
    t, a = prof.earliest_start(strategy, size, duration, not_before, **kw)
    return t, (None if a is None else list(a.cores))


def test_profile_examples():
    assert doctest.testmod(profile_module).failed == 0


def test_placement_profile_reserve_release_hole_and_compact(kernel_path):
    prof = PlacementProfile(0.0, D)
    a = Allocation.of(D, [1, 2])
    prof.reserve(2.0, 6.0, a)
    assert prof.times == [0.0, 2.0, 6.0] and prof.free == [8, 6, 8]
    assert ids_of(prof.hole(0.0, 3.0)) == [0, 3, 4, 5, 6, 7]
    assert ids_of(prof.hole(6.0, 3.0)) == list(range(8))
    with pytest.raises(SimulationError, match=r"reserving cores \[2\]"):
        prof.reserve(5.0, 8.0, Allocation.of(D, [2, 3]))
    prof.release(2.0, 6.0, a)
    with pytest.raises(SimulationError, match="already free"):
        prof.release(2.0, 6.0, a)
    prof.compact()
    assert prof.times == [0.0] and prof.free == [8]
    prof.reserve(5.0, 9.0, a)
    prof.advance(7.0)
    assert prof.times == [7.0, 9.0] and prof.free == [6, 8]


def test_a_job_needs_the_same_cores_for_its_whole_window():
    # Cores 0,1 busy on [0,5), cores 2,3 on [5,10): two cores are free in each
    # step, but no two cores are free throughout [0,10). The count profile
    # sees room at 0; with identity the first hole for 10 s opens at 5.
    total = Platform.homogeneous(4)
    prof = PlacementProfile(0.0, total)
    prof.reserve(0.0, 5.0, Allocation.of(total, [0, 1]))
    prof.reserve(5.0, 10.0, Allocation.of(total, [2, 3]))
    count = AvailabilityProfile(0.0, 4)
    count.reserve(0.0, 5.0, 2)
    count.reserve(5.0, 10.0, 2)
    assert count.earliest_start(2, 10.0, 0.0) == 0.0
    assert placed(prof, LowestIds(), 2, 10.0) == (5.0, [0, 1])
    assert placed(prof, LowestIds(), 2, 5.0) == (0.0, [2, 3])


def fragmented():
    """Cores 1, 3, 5, 7 busy until 10; the hole at 0 is {0, 2, 4, 6}."""
    prof = PlacementProfile(0.0, D)
    prof.reserve(0.0, 10.0, Allocation.of(D, [1, 3, 5, 7]))
    return prof


def spanning():
    """Cores 0, 1, 6, 7 busy until 10; the hole at 0 is {2, 3, 4, 5}, across clusters."""
    prof = PlacementProfile(0.0, D)
    prof.reserve(0.0, 10.0, Allocation.of(D, [0, 1, 6, 7]))
    return prof


@pytest.mark.parametrize("rule, expected", [
    ("basic", (0.0, [0, 2])),
    ("best_effort_contiguous", (0.0, [0, 2])),
    ("best_effort_local", (0.0, [0, 2])),
    ("contiguous", (10.0, [0, 1])),          # rejects the fragmented hole at 0
    ("local", (0.0, [0, 2])),
])
def test_each_rule_on_a_fragmented_hole(rule, expected):
    assert placed(fragmented(), make_rule(rule), 2, 5.0) == expected


@pytest.mark.parametrize("rule, expected", [
    ("basic", (0.0, [2, 3, 4])),
    ("best_effort_contiguous", (0.0, [2, 3, 4])),
    ("best_effort_local", (0.0, [2, 3, 4])),
    ("contiguous", (0.0, [2, 3, 4])),
    ("local", (10.0, [0, 1, 2])),            # rejects the hole spanning clusters
])
def test_each_rule_on_a_hole_spanning_clusters(rule, expected):
    assert placed(spanning(), make_rule(rule), 3, 5.0) == expected


def test_best_effort_local_prefers_a_local_set_inside_the_hole():
    prof = spanning()
    prof.reserve(10.0, 20.0, Allocation.of(D, [0]))   # hole for [10, 15): 1..7
    assert placed(prof, make_rule("best_effort_local"), 3, 5.0, 10.0) == (10.0, [1, 2, 3])
    assert placed(prof, make_rule("best_effort_local"), 4, 5.0, 10.0) == (10.0, [4, 5, 6, 7])
    assert placed(prof, make_rule("basic"), 4, 5.0, 10.0) == (10.0, [1, 2, 3, 4])


def test_rejected_holes_are_skipped_until_one_is_accepted():
    # The hole at 0, {2, 3, 4, 5}, has 2 cores per cluster; at 10 cores 0, 1,
    # 6, 7 come back while a reservation holds 2 and 3 on [10, 30): the hole
    # {0, 1, 4, 5, 6, 7} has a cluster with room for a local job of 3 or 4.
    prof = spanning()
    prof.reserve(10.0, 30.0, Allocation.of(D, [2, 3]))
    assert placed(prof, OneCluster(), 3, 5.0) == (10.0, [4, 5, 6])
    assert placed(prof, OneCluster(), 4, 5.0) == (10.0, [4, 5, 6, 7])
    # Contiguous 5 needs 0..4 or later blocks: 4..7 is only 4 long, 2,3 busy until 30.
    assert placed(prof, Contiguous(), 5, 5.0) == (30.0, [0, 1, 2, 3, 4])
    assert placed(prof, BestEffort(Contiguous()), 5, 5.0) == (10.0, [0, 1, 4, 5, 6])


def test_limit_stops_the_search_and_keeps_the_old_allocation():
    prof = fragmented()
    assert placed(prof, Contiguous(), 2, 5.0, limit=10.0) == (10.0, None)
    assert placed(prof, Contiguous(), 2, 5.0, limit=20.0) == (10.0, [0, 1])


def test_per_core_placement_in_a_profile():
    z = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2)
    prof = PlacementProfile(0.0, z)
    prof.reserve(0.0, 10.0, Allocation.of(z, [0, 2]))      # a PPN-2 job on node 0
    # A second PPN-2 job shares node 0's CPUs with the first one right away.
    assert placed(prof, PerCore(ppn=2), 4, 5.0) == (0.0, [1, 3, 4, 6])
    assert placed(prof, PerCore(ppn=4), 4, 5.0) == (0.0, [4, 5, 6, 7])
    assert placed(prof, PerCore(ppn=4), 8, 5.0) == (10.0, list(range(8)))
    prof.reserve(0.0, 4.0, Allocation.of(z, [1, 3]))
    assert placed(prof, PerCore(ppn=2), 4, 5.0) == (4.0, [1, 3, 4, 6])


def test_a_strategy_that_can_never_place_the_job_is_an_error():
    prof = PlacementProfile(0.0, D)
    with pytest.raises(SimulationError, match="can never place 5"):
        prof.earliest_start(OneCluster(), 5, 1.0, 0.0)


def test_hole_given_back_is_the_hole_after_releasing_those_reservations(kernel_path):
    # G-LOMARC-TS's _hole_without asks hole_given_back instead of releasing, asking and
    # reserving again: both must give the same hole on any plan.
    import random

    from simlib.engine.allocation import Allocation
    from simlib.platform import Platform
    from simlib.policies.profile import PlacementProfile
    rng = random.Random(1)
    plat = Platform.homogeneous(16)
    for _ in range(300):
        now = float(rng.randint(0, 5))
        prof = PlacementProfile(now, plat)
        held = []
        for _ in range(rng.randint(0, 12)):  # reservations on integer and fractional times
            start = now + rng.choice([0.0, 0.5]) + rng.randint(0, 20)
            dur = rng.choice([1e-9, 0.5, 1.0]) * rng.randint(1, 10)
            cores = rng.sample(range(16), rng.randint(1, 6))
            alloc = Allocation.of(plat, cores)
            if prof.hole(start, dur) & alloc.mask == alloc.mask:
                prof.reserve(start, start + dur, alloc)
                held.append((start, start + dur, alloc))
        given = [h for h in held if rng.random() < 0.4]
        v = now + rng.choice([0.0, 0.25, 3.0, 7.5])
        parts = [(max(s, v, prof.times[0]), e, a) for s, e, a in given]
        parts = [p for p in parts if p[1] > p[0]]
        shorter = -1
        for d in (1e-9, 0.5, 4.0, 30.0):
            for s, e, a in parts:
                prof.release(s, e, a)
            want = prof.hole(v, d)
            for s, e, a in parts:
                prof.reserve(s, e, a)
            got = prof.hole_given_back(v, d, [(s, e, a.mask) for s, e, a in parts])
            assert got == want
            # A longer window keeps no core free that a shorter one from the
            # same start does not (G-LOMARC-TS's Case 5 test relies on it).
            assert got & ~shorter == 0
            shorter = got


def scan_every_candidate(prof, strategy, size, duration, not_before, limit=float("inf")):
    """:meth:`PlacementProfile.earliest_start` as it was before its skip of
    candidates (every candidate start's window scanned afresh): the reference."""
    import bisect
    times, masks, free = prof.times, prof.masks, prof.free
    n = len(times)
    i = max(bisect.bisect_right(times, not_before) - 1, 0)
    start = max(not_before, times[i])
    while start < limit:
        end = start + duration
        window, j, nxt = masks[i], i, i + 1
        while True:
            if free[j] < size:
                nxt = j + 1
                break
            window &= masks[j]
            if window.bit_count() < size:
                break
            j += 1
            if j == n or times[j] >= end:
                alloc = strategy.select(prof.platform, window, size)
                if alloc is not None:
                    return start, alloc
                break
        i = nxt
        if i >= n:
            raise SimulationError("never")
        start = times[i]
    return limit, None


class Recording:
    """A strategy that records every hole offered to it; ``picky`` rejects
    holes by a rule that is not monotone (a hole's subset may pass)."""

    def __init__(self, inner, picky=False):
        self.inner, self.picky, self.offered = inner, picky, []

    def select(self, platform, free, size):
        self.offered.append(free)
        if self.picky and (free.bit_count() + free % 7) % 3 == 0:
            return None
        return self.inner.select(platform, free, size)


@pytest.mark.parametrize("seed", range(40))
def test_placement_search_offers_the_same_holes_as_a_scan_of_every_candidate(seed, kernel_path):
    # Both searches (compiled and Python, chosen when the profile is made).
    import random
    rng = random.Random(seed)
    plat = Platform.homogeneous(rng.choice([8, 16, 32]), clusters=rng.choice([1, 2, 4]))
    prof = PlacementProfile(0.0, plat)
    assert (prof._kernel is None) == (kernel_path == "python")
    for _ in range(rng.randint(0, 40)):  # a busy plan: many steps, holes of every shape
        start = rng.choice([0.0, 0.5]) + rng.randint(0, 60)
        dur = rng.choice([0.5, 1.0, 3.0]) * rng.randint(1, 12)
        cores = rng.sample(range(plat.cpus), rng.randint(1, plat.cpus // 2))
        alloc = Allocation.of(plat, cores)
        if prof.hole(start, dur) & alloc.mask == alloc.mask:
            prof.reserve(start, start + dur, alloc)
    for _ in range(30):
        rule = rng.choice([LowestIds, Contiguous, OneCluster])
        picky = rng.random() < 0.5
        size = rng.randint(1, plat.cpus)
        dur = rng.choice([0.25, 1.0, 5.0, 20.0, 80.0])
        nb = rng.choice([0.0, 0.5]) + rng.randint(0, 70)
        limit = rng.choice([float("inf"), nb + rng.randint(0, 40)])
        got_s, want_s = Recording(rule(), picky), Recording(rule(), picky)
        try:
            want = scan_every_candidate(prof, want_s, size, dur, nb, limit)
        except SimulationError:
            with pytest.raises(SimulationError):
                prof.earliest_start(got_s, size, dur, nb, limit)
        else:
            got = prof.earliest_start(got_s, size, dur, nb, limit)
            assert got[0] == want[0]
            assert (got[1] and got[1].cores) == (want[1] and want[1].cores)
        assert got_s.offered == want_s.offered


def test_placement_search_returns_the_start_it_was_given(kernel_path):
    # The first candidate's start is max(not_before, times[0]): the very
    # object given (an int stays an int), on both paths, as is the limit.
    prof = PlacementProfile(0.0, Platform.homogeneous(4))
    start, alloc = prof.earliest_start(LowestIds(), 2, 5.0, 3)
    assert type(start) is int and start == 3 and alloc.cores == (0, 1)
    prof.reserve(3.0, 20.0, Allocation.of(prof.platform, [0, 1, 2]))
    assert prof.earliest_start(LowestIds(), 2, 5.0, 3, limit=7) == (7, None)
    start, _ = prof.earliest_start(LowestIds(), 2, 5.0, 3)
    assert type(start) is float and start == 20.0
    # A later candidate's start is the profile's own breakpoint object.
    prof = PlacementProfile(0, Platform.homogeneous(4))
    prof.reserve(0, 20, Allocation.of(prof.platform, [0, 1, 2]))
    start, _ = prof.earliest_start(LowestIds(), 2, 5, 0)
    assert type(start) is int and start == 20


def test_placement_profiles_copy_and_pickle(kernel_path):
    import copy
    import pickle
    prof = PlacementProfile(0.0, Platform.homogeneous(4))
    prof.reserve(0.0, 10.0, Allocation.of(prof.platform, [0, 1]))
    for twin in (copy.deepcopy(prof), pickle.loads(pickle.dumps(prof))):
        assert (twin.times, twin.masks, twin.free) == (prof.times, prof.masks, prof.free)
        assert (twin._kernel is None) == (prof._kernel is None)
        assert twin.hole(0.0, 5.0) == prof.hole(0.0, 5.0) == 0b1100


@pytest.mark.compiled_kernel
@pytest.mark.parametrize("seed", range(12))
def test_compiled_and_python_profiles_agree_operation_by_operation(seed, monkeypatch):
    # The same random operations on a profile of each path: every answer,
    # every error message and the lists after each operation are equal.
    import random

    from simlib.policies.kernels import KERNEL_ENV
    profiles = []
    for path in ("compiled", "python"):
        monkeypatch.setenv(KERNEL_ENV, path)
        profiles.append(PlacementProfile(0.0, Platform.homogeneous(24, clusters=3)))
    assert profiles[0]._kernel is not None and profiles[1]._kernel is None
    plat = profiles[0].platform
    rng = random.Random(seed)
    held = []

    def on_both(method, *args):
        out = []
        for prof in profiles:
            try:
                got = getattr(prof, method)(*args)
                if method == "earliest_start":
                    got = (got[0], got[1] and got[1].cores)
                out.append(("ok", got))
            except SimulationError as exc:
                out.append(("error", str(exc)))
        assert out[0] == out[1]
        assert [(p.times, p.masks, p.free) for p in profiles][0] == \
            [(p.times, p.masks, p.free) for p in profiles][1]
        return out[0]

    for _ in range(150):
        kind = rng.choice(["reserve", "reserve", "release", "hole", "given", "search", "advance"])
        start = rng.choice([0.0, 0.5]) + rng.randint(0, 40)
        dur = rng.choice([1e-9, 0.5, 2.0, 7.0]) * rng.randint(1, 8)
        alloc = Allocation.of(plat, rng.sample(range(24), rng.randint(1, 8)))
        if kind == "reserve":  # may fail (a core already taken): both fail alike
            if on_both("reserve", start, start + dur, alloc)[0] == "ok":
                held.append((start, start + dur, alloc))
        elif kind == "release":
            if held and rng.random() < 0.8:
                s0, e0, a0 = held.pop(rng.randrange(len(held)))
                s0 = max(s0, profiles[0].times[0])
                if e0 > s0:
                    on_both("release", s0, e0, a0)
            else:  # releasing cores that are free: an error on both
                on_both("release", start, start + dur, alloc)
        elif kind == "hole":
            on_both("hole", start, dur)
        elif kind == "given":
            given = [(max(s0, start), e0, a0.mask) for s0, e0, a0 in held if rng.random() < 0.3]
            on_both("hole_given_back", start, dur, [g for g in given if g[1] > g[0]])
        elif kind == "search":
            rule = rng.choice([LowestIds, Contiguous, OneCluster])
            size, limit = rng.randint(1, 8), rng.choice([float("inf"), start + 9])
            on_both("earliest_start", rule(), size, dur, start, limit)
        else:
            now = profiles[0].times[0] + rng.randint(0, 3)
            on_both("advance", now)
            held = [(s0, e0, a0) for s0, e0, a0 in held if e0 > now]


def random_platform(rng):
    """Single-core nodes in clusters of uneven sizes, across 64-bit word
    boundaries; clusters either blocks of ids or interleaved (then paper D's
    *local* rule compares id sums instead of taking the first with room)."""
    import numpy as np
    nodes = rng.choice([8, 24, 63, 64, 65, 130, 200])
    k = rng.choice([1, 2, 3, 5])
    if rng.random() < 0.5:
        cluster = np.sort(np.array([rng.randrange(k) for _ in range(nodes)]))
    else:
        cluster = np.array([rng.randrange(k) for _ in range(nodes)])
    cluster = np.unique(cluster, return_inverse=True)[1]  # no empty cluster
    return Platform(np.ones(nodes, dtype=np.int64), cluster, np.ones(nodes), name="random")


@pytest.mark.parametrize("seed", range(30))
def test_place_in_order_is_one_search_and_reservation_per_job(seed, monkeypatch):
    # Paired: a queue placed by PlacementProfile.place_in_order (through a
    # PlanChoice, as conservative backfilling's rebuild asks it: the compiled
    # path then runs paper D's rules on C words; on the raw rule, called
    # back) against each job's earliest_start and reserve on the Python path
    # with the raw rule: the same starts, cores and profile lists.
    import random

    from simlib.engine.allocation import PlanChoice
    from simlib.policies.kernels import KERNEL_ENV
    rng = random.Random(seed)
    plat = random_platform(rng)
    running = []
    for _ in range(rng.randint(0, 12)):
        cores = rng.sample(range(plat.cpus), rng.randint(1, max(1, plat.cpus // 3)))
        running.append((rng.choice([0.5, 1.0]) * rng.randint(1, 50), Allocation.of(plat, cores)))
    widest = max(OneCluster().max_size(plat), 1)
    # Now or later than the profile's start (a breakpoint or between two);
    # an endless job now and then (the jobs after it may find no finite start).
    nb = rng.choice([0.0, 0.5 * rng.randint(0, 40)])
    queue = [(rng.randint(1, widest),
              float("inf") if rng.random() < 0.03 else
              rng.choice([0.5, 1.0, 4.0]) * rng.randint(1, 30))
             for _ in range(rng.randint(1, 40))]
    sizes, durations = [s for s, _ in queue], [d for _, d in queue]

    def fresh(path):
        monkeypatch.setenv(KERNEL_ENV, path)
        prof = PlacementProfile(0.0, plat)
        held = 0
        for end, alloc in running:
            if alloc.mask & held == 0:
                prof.reserve(0.0, end, alloc)
                held |= alloc.mask
        return prof

    for name in ("basic", "contiguous", "local", "best_effort_contiguous", "best_effort_local"):
        want_prof = fresh("python")
        want = []
        for size, dur in queue:
            start, alloc = want_prof.earliest_start(make_rule(name), size, dur, nb)
            want_prof.reserve(start, start + dur, alloc)
            want.append((start, alloc and alloc.mask))
        for path in ("compiled", "python"):
            for choice in (PlanChoice(make_rule(name)), make_rule(name)):
                prof = fresh(path)
                got = prof.place_in_order(choice, sizes, durations, nb)
                assert [(s, a and a.mask) for s, a in got] == want, (name, path, choice)
                assert (prof.times, prof.masks, prof.free) == \
                    (want_prof.times, want_prof.masks, want_prof.free), (name, path)


def test_place_in_order_leaves_the_profile_as_the_python_path_when_a_job_cannot_be_placed(
        monkeypatch):
    # The third job is wider than any cluster: paper D's *local* rule can
    # never place it. Both paths raise the same error and keep the first two
    # jobs reserved; lists of different lengths are refused.
    from simlib.engine.allocation import PlanChoice
    from simlib.policies.kernels import KERNEL_ENV
    outcomes = []
    for path in ("compiled", "python"):
        monkeypatch.setenv(KERNEL_ENV, path)
        prof = PlacementProfile(0.0, D)
        with pytest.raises(SimulationError) as err:
            prof.place_in_order(PlanChoice(OneCluster()), [2, 3, 5], [4.0, 2.0, 1.0], 0.0)
        outcomes.append((str(err.value), prof.times, prof.masks, prof.free))
        with pytest.raises(ValueError, match="2 sizes for 1 durations"):
            prof.place_in_order(PlanChoice(OneCluster()), [1, 1], [1.0], 0.0)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] == [0.0, 2.0, 4.0]
