"""EASY's pybatsim reading (simlib.policies.easy_pybatsim): hand-made cases
where it and Mu'alem & Feitelson's EASY start jobs differently, each for a
stated rule of pybatsim 3.2.1's easyBackfill, and its free-space list."""
import pytest
from helpers_sim import assert_valid_schedule, make_jobs, recording, run, schedule

from simlib.engine.simulator import Simulator
from simlib.errors import ConfigError
from simlib.policies import make_policy
from simlib.policies.easy import EASY
from simlib.policies.easy_pybatsim import INF, FreeSpaces
from simlib.platform import Platform


def both(rows, cpus):
    """(Mu'alem & Feitelson's jobs, the pybatsim reading's jobs) of ``rows``."""
    mf, _ = run("easy", rows, cpus)
    pyb, _ = run("easy", rows, cpus, reading="pybatsim")
    assert_valid_schedule(mf, cpus)
    assert_valid_schedule(pyb, cpus)
    return schedule(mf), schedule(pyb), {j.job_id: j.alloc for j in pyb}


def test_the_head_waits_for_one_contiguous_free_space():
    # 10 CPUs: A on 0-3 until 10, B on 4-5 until 100, C on 6-9 until 20. The
    # head H (6) fits in 8 free CPUs at 20 (Mu'alem & Feitelson's shadow
    # time), but those are 0-3 and 6-9: one contiguous space of 6 exists only
    # when B ends at 100 (pybatsim's shadow time). X (4 CPUs, 50 s) then
    # fits before the reservation in 0-3 at 10; counted, it would end after
    # the shadow time 20 with 8 - 6 = 2 extra processors, so it waits for H.
    rows = [(0, 4, 10), (0, 2, 100), (0, 4, 20), (1, 6, 10), (2, 4, 50)]
    mf, pyb, alloc = both(rows, 10)
    assert mf[4] == (20, 30) and mf[5] == (30, 80)
    assert pyb[5] == (10, 60) and alloc[5] == [0, 1, 2, 3]
    assert pyb[4] == (100, 110)


def test_a_backfilled_job_needs_one_contiguous_free_space():
    # At 5, P and R end: 0-1 and 8-9 are free (Q holds 2-7 until 100). Y (3
    # CPUs, 10 s) ends before the shadow time 100, so Mu'alem & Feitelson
    # backfill it on 3 of the 4 free CPUs; no free space holds 3 CPUs in a
    # row, so pybatsim's reading keeps it waiting behind the head H (8).
    rows = [(0, 2, 5), (0, 6, 100), (0, 2, 5), (1, 8, 10), (2, 3, 10)]
    mf, pyb, _ = both(rows, 10)
    assert mf[5] == (5, 15)
    assert pyb[4] == (100, 110) and pyb[5] == (110, 120)


def test_a_released_block_joined_below_places_the_next_job_at_its_high_end():
    # A (0-3) ends at 10, B (4-6) at 20 and joins the free space 0-3 below it:
    # pybatsim places the next job next to where B was, at the high end
    # (5-6); the count-based reading hands out the lowest free ids.
    rows = [(0, 4, 10), (0, 3, 20), (0, 3, 100), (25, 2, 10)]
    mf, _ = run("easy", rows, 10)
    pyb, _ = run("easy", rows, 10, reading="pybatsim")
    assert [j.alloc for j in pyb] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9], [5, 6]]
    assert mf[3].start == pyb[3].start == 25 and mf[3].alloc == [0, 1]


def test_a_free_space_inside_the_reserved_block_is_not_limited():
    # The head H needs the whole machine at 100 (block 0-9). The free space
    # 3-5 (X ended at 5) lies strictly inside the block, away from its ends,
    # so pybatsim leaves its time unlimited: Y (3 CPUs, 1000 s) starts there
    # and delays the head to 1005. Mu'alem & Feitelson: Y would end after
    # the shadow time with no extra processors, so it waits.
    rows = [(0, 3, 100), (0, 3, 5), (0, 4, 100), (1, 10, 10), (2, 3, 1000)]
    mf, pyb, alloc = both(rows, 10)
    assert mf[4] == (100, 110) and mf[5] == (110, 1110)
    assert pyb[5] == (5, 1005) and alloc[5] == [3, 4, 5]
    assert pyb[4] == (1005, 1015)


def test_a_space_meeting_the_block_is_limited_to_the_shadow_time():
    # As above but X held 0-2 (the block's low end): the space 0-2 meets the
    # head's block, so it may be used until the shadow time 100 only: Y
    # (1000 s) waits, Z (3 CPUs, 90 s) is backfilled there.
    rows = [(0, 3, 5), (0, 3, 100), (0, 4, 100), (1, 10, 10), (2, 3, 1000), (3, 3, 90)]
    _, pyb, alloc = both(rows, 10)
    assert pyb[6] == (5, 95) and alloc[6] == [0, 1, 2]
    assert pyb[4] == (100, 110) and pyb[5] == (110, 1110)


def test_a_lone_waiting_head_is_not_reserved_and_nothing_is_backfilled():
    pol = make_policy("easy", reading="pybatsim")
    run(pol, [(0, 8, 10), (1, 4, 10)], 10)
    assert pol.reservation is None


def test_the_reservation_names_the_head_its_shadow_time_and_block():
    seen = {}

    def record(pol, now):
        if pol.reservation is not None:
            head, shadow, block = pol.reservation
            seen[now] = (head.job_id, shadow, block)

    pol = recording("easy", record, reading="pybatsim")
    run(pol, [(0, 4, 10), (0, 2, 100), (0, 4, 20), (1, 6, 10), (2, 4, 50)], 10)
    # At 10 A's block 0-3 is free; releasing C (6-9), then B (4-5) joins
    # 0-3 and 6-9 into 0-9, kept at the low end: H's block is 0-5.
    assert seen[10.0] == (4, 100.0, (0, 5))


# -- the free-space list ------------------------------------------------------

def spans(free):
    return [(s.first, s.last, s.low) for s in free.spaces]


def test_release_joins_neighbours_and_sets_the_placing_end():
    free = FreeSpaces(10)
    blocks = [free.take(free.spaces[0], n) for n in (2, 2, 2, 2)]
    assert blocks == [(0, 1), (2, 3), (4, 5), (6, 7)] and spans(free) == [(8, 9, True)]
    assert free.release(0, 1).low and spans(free) == [(0, 1, True), (8, 9, True)]
    free.release(2, 3)            # joins the space below only: high end
    assert spans(free) == [(0, 3, False), (8, 9, True)]
    free.release(6, 7)            # joins the space above only: low end
    assert spans(free) == [(0, 3, False), (6, 9, True)]
    free.release(4, 5)            # joins both: the lower space's end
    assert spans(free) == [(0, 9, False)]
    assert free.take(free.spaces[0], 3) == (7, 9)


def test_limit_splits_the_spaces_holding_the_block_ends_and_unlimit_undoes_it():
    free = FreeSpaces(10)
    free.take(free.spaces[0], 10)
    free.release(0, 3)
    free.release(7, 9)
    limited, parts = free.limit(2, 8, 50.0)
    # 0-3 holds a=2: itself limited (high end) then 0-1 unlimited (low end);
    # 7-9 holds b=8: itself limited (low end) then 9 unlimited (high end).
    assert [(s.first, s.last, s.low, s.window) for s in free.spaces] == [
        (0, 3, False, 50.0), (0, 1, True, INF), (7, 9, True, 50.0), (9, 9, False, INF)]
    assert free.take(free.spaces[1], 1) == (0, 0)      # trims its partner 0-3 to 1-3
    assert (free.spaces[0].first, free.spaces[0].last) == (1, 3)
    assert free.take(free.spaces[0], 2) == (2, 3)      # high end; trims 0-1 to 1-1
    assert (free.spaces[1].first, free.spaces[1].last) == (1, 1)
    free.unlimit(limited, parts)
    assert spans(free) == [(1, 1, True), (7, 9, True)]


def test_first_fit_checks_size_and_time():
    free = FreeSpaces(4)
    free.spaces[0].window = 10.0
    assert free.first_fit(4, 10.0) is free.spaces[0]
    assert free.first_fit(4, 11.0) is None and free.first_fit(5) is None


# -- the switch ---------------------------------------------------------------

def test_the_reading_never_runs_the_compiled_loop():
    pol = make_policy("easy", reading="pybatsim")
    run(pol, [(0, 4, 10), (1, 8, 10)], 10, debug=False)
    assert not pol.ran_compiled
    assert pol.columnar_run({}, 10, record_timeline=False, progress=None,
                            workload_name="w") is None


def test_subclasses_changing_more_than_the_hooks_refuse_the_reading():
    class Mine(EASY):
        def shadow(self, head):
            return super().shadow(head)

    with pytest.raises(ConfigError, match="reading 'pybatsim' is EASY's own"):
        Mine(reading="pybatsim")
    assert "reading" not in make_policy("easy_e").params


@pytest.mark.parametrize("passes, where", [("per_timestamp", [5, 6]), ("per_event", [3, 4])])
def test_a_pass_per_event_sees_a_submission_before_a_same_time_completion(passes, where):
    # At 30 D (5-6) ends and E (2 CPUs) arrives; 0-4 is free, placing at its
    # high end (B's block joined it from above at 20, D took 5-6 at 25).
    # One pass per event, as pybatsim: E's pass comes first and E takes 3-4
    # of 0-4. One pass for the timestamp: D's block joins 0-4 first and E
    # takes the high end of 0-6.
    jobs = make_jobs([(0, 4, 10), (0, 3, 20), (0, 3, 100), (25, 2, 5), (30, 2, 10)])
    sim = Simulator(Platform.homogeneous(10), jobs, make_policy("easy", reading="pybatsim"),
                    debug=True, passes=passes)
    sim.run()
    assert jobs[3].alloc == [5, 6] and jobs[4].start == 30 and jobs[4].alloc == where


def test_the_reading_keeps_the_queue_in_a_subclass_s_order():
    # A subclass changing only the order keeps the reading: at 10 the widest
    # waiting jobs start first (6 CPUs on 0-5, 4 on 6-9), the 2-CPU job that
    # came first waits; in submission order it would start with the 6-CPU
    # job and the 4-CPU one would wait.
    class Widest(EASY):
        def order_key(self, job):
            return -job.procs

    rows = [(0, 10, 10), (1, 2, 10), (2, 6, 10), (3, 4, 10)]
    jobs = make_jobs(rows)
    Simulator(Platform.homogeneous(10), jobs, Widest(reading="pybatsim"), debug=True).run()
    assert [j.start for j in jobs] == [0, 20, 10, 10]
    assert [j.alloc for j in jobs[2:]] == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]
    _, fcfs, _ = both(rows, 10)
    assert [fcfs[k][0] for k in (2, 3, 4)] == [10, 10, 20]
