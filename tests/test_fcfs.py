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


def test_a_job_the_allocation_rule_can_never_place_is_refused_before_the_run():
    import pytest

    from simlib.engine.job import Job
    from simlib.engine.simulator import Simulator
    from simlib.errors import ConfigError
    from simlib.platform import Platform
    from simlib.policies.fcfs import FCFS

    jobs = [Job(0, 1, 0.0, 6, 5.0, 5.0)]
    platform = Platform.homogeneous(8, clusters=2)   # "local": at most 4, one cluster's
    with pytest.raises(ConfigError, match="job 1 asks for 6 processors; allocation 'local' can "
                                          "place at most 4"):
        Simulator(platform, jobs, FCFS(allocation="local")).run()
