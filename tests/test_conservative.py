from helpers_sim import assert_valid_schedule, run, schedule
from test_easy import DELAYS_SECOND


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
