import pytest

from helpers_sim import make_jobs, run

from simlib.engine.simulator import Simulator
from simlib.errors import ConfigError, SimulationError
from simlib.platform import Platform
from simlib.policies import make_policy
from simlib.policies.base import Policy


def test_same_inputs_give_identical_schedules():
    rows = [(i * 3 % 17, 1 + i % 7, 5 + (i * 13) % 41, 60) for i in range(200)]
    rows.sort()
    a, _ = run("easy", rows, 8, debug=False)
    b, _ = run("easy", rows, 8, debug=False)
    assert [(j.start, j.finish, j.alloc) for j in a] == [(j.start, j.finish, j.alloc) for j in b]


def test_finishes_are_applied_before_submissions_at_the_same_time():
    # J2 arrives exactly when J1 ends: it must see the freed CPUs in that round.
    jobs, _ = run("fcfs", [(0, 4, 10), (10, 4, 5)], 4)
    assert jobs[1].start == 10


class _StartThen(Policy):
    """Starts each job on all its CPUs, then at time ``at`` calls ``action(sim, job)``."""
    name = "start_then"

    def __init__(self, at, action):
        super().__init__()
        self.at, self.action = at, action

    def on_round(self, now, finished, submitted, timers, changed):
        for job in submitted:
            self.sim.start(job)
            self.sim.set_timer(self.at, job)
        for job in timers:
            self.action(self.sim, job)


def test_rate_change_moves_the_finish_time():
    jobs = make_jobs([(0, 4, 10, 100)])
    # Halve the job at t=5 (rate 0.5).
    shrinker = _StartThen(5.0, lambda sim, job: sim.resize(job, cpus=job.cpus // 2, rate=0.5))
    sim = Simulator(Platform.homogeneous(4), jobs, shrinker, debug=True)
    sim.run()
    # 5 s at rate 1, then the remaining 5 s of work at rate 0.5 take 10 s.
    assert jobs[0].finish == 15.0 and jobs[0].cpus == 2
    assert sim.timeline[1][:2] == (5.0, 2)


def test_set_work_changes_a_running_job():
    jobs = make_jobs([(0, 1, 10, 100)])
    extender = _StartThen(4.0, lambda sim, job: sim.set_work(job, 20.0))
    Simulator(Platform.homogeneous(1), jobs, extender, debug=True).run()
    assert jobs[0].finish == 20.0


def test_oversized_job_is_a_clear_error():
    with pytest.raises(ConfigError, match="asks for 9 processors; the platform has 8"):
        Simulator(Platform.homogeneous(8), make_jobs([(0, 9, 1)]), make_policy("fcfs"))


@pytest.mark.parametrize("requested", [0.0, -5.0])
def test_a_job_without_a_positive_estimate_is_a_clear_error(requested):
    # With an empty window, conservative backfilling would reserve nothing
    # and start it beside another job on the same processor.
    with pytest.raises(ConfigError, match="job 2 has requested time .*must be > 0"):
        Simulator(Platform.homogeneous(1), make_jobs([(0, 1, 5, 10), (1, 1, 0, requested)]),
                  make_policy("conservative"))


def test_starving_policy_is_detected():
    class Idle(Policy):
        name = "idle"

        def on_round(self, *args):
            pass

    with pytest.raises(SimulationError, match="never finished"):
        Simulator(Platform.homogeneous(2), make_jobs([(0, 1, 1)]), Idle()).run()


def test_unknown_policy_and_parameter():
    with pytest.raises(ConfigError, match="unknown policy 'nope'"):
        make_policy("nope")
    with pytest.raises(ConfigError, match="unknown parameter"):
        make_policy("easy", lookahead=3)


def test_timeline_tracks_busy_and_queued():
    _, sim = run("fcfs", [(0, 3, 10), (1, 3, 5)], 4)
    assert sim.timeline == [(0.0, 3, 0, 3), (1.0, 3, 1, 3), (10.0, 3, 0, 3), (15.0, 0, 0, 0)]


def test_progress_hook_reports_finished_jobs_and_ends_at_the_total():
    rows = [(i, 1 + i % 3, 2 + i % 5) for i in range(50)]
    calls = []
    jobs = make_jobs(rows)
    sim = Simulator(Platform.homogeneous(4), jobs, make_policy("easy"),
                    progress=lambda done, total, now: calls.append((done, total, now)),
                    progress_every=7)
    sim.run()
    assert len(calls) >= 50 // 7   # at least one call per 7 rounds, plus the final one
    assert calls[-1] == (50, 50, max(j.finish for j in jobs))
    done = [c[0] for c in calls]
    assert done == sorted(done) and all(c[1] == 50 for c in calls)
    # Reporting changes nothing in the schedule.
    plain, _ = run("easy", rows, 4, debug=False)
    assert [(j.start, j.finish) for j in plain] == [(j.start, j.finish) for j in jobs]


def test_progress_every_must_be_positive():
    with pytest.raises(ConfigError, match="progress_every"):
        Simulator(Platform.homogeneous(1), make_jobs([(0, 1, 1)]), make_policy("fcfs"),
                  progress=print, progress_every=0)


def test_close_breaks_the_reference_cycles():
    # The policy and the rate model point back at the simulator: without
    # close() every job waits for the cyclic collector; after it, none does.
    import gc

    def leftover(close):
        gc.collect()
        was = gc.isenabled()
        gc.disable()
        try:
            sim = Simulator(Platform.homogeneous(4), make_jobs([(0, 2, 5), (1, 4, 3), (2, 1, 9)]),
                            make_policy("easy"))
            sim.run()
            if close:
                sim.close()
            del sim
            return gc.collect()
        finally:
            if was:
                gc.enable()

    assert leftover(close=False) > 0
    assert leftover(close=True) == 0


def test_a_closed_simulator_keeps_its_results_and_its_policy_usable():
    jobs = make_jobs([(0, 2, 5), (1, 4, 3)])
    pol = make_policy("conservative")
    sim = Simulator(Platform.homogeneous(4), jobs, pol)
    sim.run()
    sim.close()
    assert sim.policy is None and sim.execution is None
    assert [j.finish for j in sim.jobs] == [5.0, 8.0] and pol.sim is sim


def _contiguous_fcfs(rows, cpus, passes=None):
    """Jobs of ``rows`` (make_jobs) run under FCFS, allocation=contiguous; ``passes`` if given."""
    jobs = make_jobs(rows)
    extra = {} if passes is None else {"passes": passes}
    Simulator(Platform.homogeneous(cpus), jobs, make_policy("fcfs", allocation="contiguous"),
              debug=True, **extra).run()
    return [(j.start, list(j.alloc)) for j in jobs]


# A (cores 0-2) and C (4-5) end together at t=10; B (3) and D (6) run on, 7 is free.
# H (3 cores) blocks the queue until then. Per timestamp: H -> 0-2, J -> 4, and L (2)
# finds no two consecutive free cores (5, 7) until H ends (t=60). Per event (pybatsim): A's
# end alone (A was launched first) -> H 0-2, J 7; then C's end -> L 4-5 at t=10.
_TWO_ENDS = [(0, 3, 10), (0, 1, 100), (0, 2, 10), (0, 1, 100), (1, 3, 50), (2, 1, 50),
             (3, 2, 50)]


def test_per_event_passes_schedule_after_each_completion_in_launch_order():
    default = _contiguous_fcfs(_TWO_ENDS, 8)
    assert default == _contiguous_fcfs(_TWO_ENDS, 8, "per_timestamp")
    assert default[4:] == [(10.0, [0, 1, 2]), (10.0, [4]), (60.0, [0, 1])]
    assert _contiguous_fcfs(_TWO_ENDS, 8, "per_event")[4:] == [
        (10.0, [0, 1, 2]), (10.0, [7]), (10.0, [4, 5])]


def test_per_event_passes_see_a_submission_before_a_completion_at_its_time():
    # S arrives at t=10 as A (core 0) ends; core 2 is free. Batsim sends the
    # submission first: pybatsim places S on 2 while A still runs.
    rows = [(0, 1, 10), (0, 1, 100), (10, 1, 5)]
    assert _contiguous_fcfs(rows, 3)[2] == (10.0, [0])
    assert _contiguous_fcfs(rows, 3, "per_event")[2] == (10.0, [2])


def test_per_event_keeps_one_timeline_row_per_timestamp():
    jobs = make_jobs(_TWO_ENDS)
    sim = Simulator(Platform.homogeneous(8), jobs, make_policy("fcfs"), passes="per_event")
    sim.run()
    times = [row[0] for row in sim.timeline]
    assert times == sorted(set(times))


def test_passes_must_be_known():
    with pytest.raises(ConfigError, match="passes must be one of 'per_timestamp', 'per_event'"):
        Simulator(Platform.homogeneous(2), make_jobs([(0, 1, 5)]), make_policy("fcfs"),
                  passes="per_job")


def test_per_event_runs_easy_in_the_python_loop():
    # EASY's compiled loop does one pass per timestamp: it declines, and the
    # engine's loop runs the passes asked for.
    sim = Simulator(Platform.homogeneous(8), make_jobs(_TWO_ENDS), make_policy("easy"),
                    passes="per_event")
    assert sim.policy.compiled_run(sim) is False
    assert not sim.unobserved_and_fresh()
