from helpers_sim import assert_valid_schedule, run, schedule


def test_fcfs_head_blocks_smaller_jobs():
    # 10 CPUs: J2 (8) cannot start until J1 ends; J3 (2) would fit but FCFS keeps order.
    jobs, _ = run("fcfs", [(0, 6, 10), (1, 8, 5), (2, 2, 3)], 10)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 15), 3: (10, 13)}
    assert_valid_schedule(jobs, 10)


def test_fcfs_retries_head_when_jobs_end_early():
    # Estimates are 100 s but J1 ends at 10: the head starts at 10, not 100.
    jobs, _ = run("fcfs", [(0, 8, 10, 100), (1, 4, 5, 100)], 10)
    assert schedule(jobs)[2] == (10, 15)
