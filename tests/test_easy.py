import random

import pytest
from helpers_sim import assert_valid_schedule, recording, run, schedule

from simlib.errors import ConfigError
from simlib.policies import make_policy
from simlib.policies.easy import EASY

# J1 runs on 6 of 10 CPUs until 10; J2 (8 CPUs, head) is reserved at the shadow
# time 10 with 2 extra processors; J3 (9 CPUs) is second in the queue; J4 (2 CPUs,
# 40 s) fits in the extra processors, so EASY backfills it at 3 — it holds 2
# CPUs until 43, so J3 cannot start at 20 (8 free < 9) and waits until 43.
# Conservative gives J3 its reservation at 20 and places J4 after it, at 30.
DELAYS_SECOND = [(0, 6, 10), (1, 8, 10), (2, 9, 10), (3, 2, 40)]


def test_easy_backfill_may_delay_the_second_queued_job():
    jobs, _ = run("easy", DELAYS_SECOND, 10)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 20), 3: (43, 53), 4: (3, 43)}
    assert_valid_schedule(jobs, 10)


def test_backfill_when_job_ends_before_shadow_time():
    # J3 (4 CPUs, 5 s) ends at 7 <= shadow 10 although 4 > extra 2.
    jobs, _ = run("easy", [(0, 6, 10), (1, 8, 10), (2, 4, 5)], 10)
    assert schedule(jobs)[3] == (2, 7)


def test_no_backfill_past_shadow_time_beyond_extra_processors():
    # J3 (4 CPUs, 20 s) would end after the shadow time and 4 > 2 extra: it waits.
    jobs, _ = run("easy", [(0, 6, 10), (1, 8, 10), (2, 4, 20)], 10)
    assert schedule(jobs)[3] == (20, 40)
    assert schedule(jobs)[2] == (10, 20)


def test_extra_processors_count_every_job_ending_at_shadow_time():
    # Three 3-CPU jobs end at 10; the head needs 4, so the shadow time is 10 and ALL
    # nine CPUs come back then: extra = 1 + 9 - 4 = 6. J5 (1 CPU, 100 s) uses the
    # last free CPU. Counting only the first job released at 10 would give extra 0.
    rows = [(0, 3, 10), (0, 3, 10), (0, 3, 10), (1, 4, 10), (2, 1, 100)]
    jobs, _ = run("easy", rows, 10)
    assert schedule(jobs)[5] == (2, 102)
    assert schedule(jobs)[4] == (10, 20)


def test_head_retried_at_every_pass_when_jobs_end_early():
    # J1's estimate is 100 but it ends at 10; the head must start then, not at 100.
    jobs, _ = run("easy", [(0, 8, 10, 100), (1, 4, 5, 100), (2, 8, 5, 100)], 10)
    assert schedule(jobs)[2] == (10, 15)


def test_reservation_is_exposed():
    # After the round at t=2, J2 (8 CPUs) is the blocked head: shadow time 10
    # (J1 ends), extra processors 10 - 8 = 2; J3 did not backfill.
    seen = {}

    def record(pol, now):
        if pol.reservation is not None:
            head, shadow, extra = pol.reservation
            seen[now] = (head.job_id, shadow, extra)

    pol = recording("easy", record)
    run(pol, [(0, 6, 10), (1, 8, 10), (2, 4, 20)], 10)
    assert seen[2.0] == (2, 10.0, 2)
    assert pol.reservation is None  # queue empty at the end


def test_overrun_kill_ends_job_at_walltime():
    jobs, _ = run("easy", [(0, 4, 50, 20)], 4)
    assert schedule(jobs)[1] == (0, 20) and jobs[0].killed


def test_overrun_extend_lets_job_finish():
    jobs, _ = run("easy", [(0, 4, 50, 20), (1, 4, 5, 5)], 4, overrun="extend")
    assert schedule(jobs) == {1: (0, 50), 2: (50, 55)}
    assert not jobs[0].killed


class _PruningEASY(EASY):
    """EASY dropping started jobs with the one-pass prune (the general path)."""

    def drop(self, started):
        self.prune()


@pytest.mark.parametrize("seed", range(12))
def test_dropping_started_jobs_one_by_one_gives_the_schedule_of_prune(seed):
    # Paired: QueuePolicy.drop (list.remove of a few jobs) against prune, on
    # random workloads with queues long enough for both branches of drop.
    rng = random.Random(seed)
    t, rows = 0, []
    for _ in range(300):
        t += rng.randint(0, 6)
        run_time = rng.randint(1, 60)
        rows.append((t, rng.choice([1, 1, 2, 3, 8, 16, 30]), run_time,
                     run_time * rng.choice([1, 1, 2, 5])))
    fast, _ = run(make_policy("easy"), rows, 32)
    slow, _ = run(_PruningEASY(), rows, 32)
    assert schedule(fast) == schedule(slow)
    assert [j.alloc for j in fast] == [j.alloc for j in slow]


def test_reading_is_validated_before_any_job_runs():
    with pytest.raises(ConfigError, match="parameter reading must be one of "
                                          "mualem_feitelson, pybatsim; not 'lifka'"):
        make_policy("easy", reading="lifka")
    with pytest.raises(ConfigError, match="parameter reading must be a string"):
        make_policy("easy", reading=1)


def test_reading_default_is_mualem_feitelson_on_counts_and_compiled():
    pol = make_policy("easy")
    assert pol.params == {"reading": "mualem_feitelson"} and not pol.keeps_core_state()
    assert make_policy("easy", reading="pybatsim").keeps_core_state()
    jobs, _ = run(pol, DELAYS_SECOND, 10, debug=False)
    assert schedule(jobs) == {1: (0, 10), 2: (10, 20), 3: (43, 53), 4: (3, 43)}
