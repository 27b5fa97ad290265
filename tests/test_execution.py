"""The execution-model seam (simlib.engine.execution) and what the simulator offers on it:
rate changes, suspension, work done, observers (issue 10, items 2 and 3)."""
from __future__ import annotations

import heapq

import pytest

from helpers_sim import make_jobs, run

from simlib.engine.execution import ExecutionModel, RateModel
from simlib.engine.job import DONE, RUNNING, SUSPENDED, WAITING
from simlib.engine.simulator import Observer, Simulator
from simlib.errors import SimulationError
from simlib.platform import Platform
from simlib.policies import make_policy
from simlib.policies.base import Policy
from simlib.policies.fcfs import FCFS


class Doubling(ExecutionModel):
    """A stub written from scratch against the seam: every job takes twice its work.

    It knows nothing of rates, so it only serves rigid policies.
    """

    def attach(self, sim):
        super().attach(sim)
        self.ends = []
        self.seq = 0

    def started(self, job):
        self.seq += 1
        heapq.heappush(self.ends, (self.sim.now + 2 * job.work, self.seq, job))

    def resized(self, job):  # pragma: no cover - rigid policies never resize
        raise AssertionError("the doubling stub supports rigid jobs only")

    rate_changed = work_changed = suspended = resumed = resized

    def next_completion_time(self, horizon):
        return self.ends[0][0] if self.ends else float("inf")

    def completions_at(self, now):
        done = []
        while self.ends and self.ends[0][0] == now:
            done.append(heapq.heappop(self.ends)[2])
        return done

    def work_done(self, job):
        return (self.sim.now - job.start) / 2


# Integer times (exact in binary), work within the request (no walltime
# kills, which the doubled request would not reproduce), sizes that make
# EASY and conservative backfill.
ROWS = [(0, 3, 10, 12), (1, 4, 6, 20), (2, 1, 3, 4), (2, 2, 8, 8), (4, 1, 2, 30),
        (5, 4, 5, 5), (6, 2, 1, 2), (9, 3, 7, 9), (9, 1, 4, 4), (15, 2, 2, 10)]


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_a_model_that_doubles_durations_gives_the_doubled_schedule(policy):
    plain, _ = run(policy, ROWS, 4)
    # The same workload on a clock twice as slow: submissions and requests
    # doubled (policies plan with requests), work unchanged, the model doubles it.
    jobs = make_jobs([(2 * s, p, w, 2 * r) for s, p, w, r in ROWS])
    sim = Simulator(Platform.homogeneous(4), jobs, make_policy(policy), debug=True,
                    execution=Doubling())
    sim.run()
    assert [(2 * j.start, 2 * j.finish, j.alloc) for j in plain] == \
        [(j.start, j.finish, j.alloc) for j in jobs]
    # The workload does exercise backfilling: some job overtakes an earlier one.
    if policy != "fcfs":
        assert any(b.start < a.start for a, b in zip(plain, plain[1:]))


class _Script(FCFS):
    """FCFS plus actions on jobs at given times: ``{time: [(method, job index, *args)]}``.

    ``seen`` records ``(time, job index, state, alloc, work done)`` after each action.
    """

    name = "script"

    def __init__(self, actions):
        super().__init__()
        self.actions = actions
        self.seen = []
        self.calls = []

    def attach(self, sim):
        super().attach(sim)
        for t in self.actions:
            sim.set_timer(t, t)

    def on_round(self, now, finished, submitted, timers, changed):
        self.calls.append(now)
        sim = self.sim
        for t in timers:
            for method, idx, *args in self.actions[t]:
                job = sim.jobs[idx]
                getattr(sim, method)(job, *args)
                self.seen.append((now, idx, job.state, list(job.alloc), sim.work_done(job)))
        super().on_round(now, finished, submitted, timers, changed)


def test_set_rate_moves_the_finish_to_the_hand_computed_time():
    # 10 s of work. 0-4 at rate 1: 4 done. 4-8 at rate 0.25: 1 more (5 done).
    # From 8 at rate 2: the 5 s left take 2.5 s, so the job ends at 10.5.
    pol = _Script({4.0: [("set_rate", 0, 0.25)], 8.0: [("set_rate", 0, 2.0)]})
    jobs, sim = run(pol, [(0, 1, 10, 100)], 1)
    assert jobs[0].finish == 10.5
    assert [s[4] for s in pol.seen] == [4.0, 5.0]
    assert sim.timeline[-1][0] == 10.5  # not 28, the completion superseded at 8


def test_set_rate_zero_stalls_a_running_job():
    # Stalled from 2 to 6: the 8 s left run from 6, end at 14.
    pol = _Script({2.0: [("set_rate", 0, 0.0)], 6.0: [("set_rate", 0, 1.0)]})
    jobs, _ = run(pol, [(0, 1, 10, 100)], 1)
    assert jobs[0].finish == 14.0
    assert [s[2] for s in pol.seen] == [RUNNING, RUNNING]


def test_suspension_keeps_the_cores_and_resumes_on_them():
    # J1 (2 of 4 cores, 10 s) is suspended from 3 to 7: it ends 4 s late, at
    # 14, on the cores it started on. Meanwhile J2 gets the two other cores
    # and J3, which fits only on J1's, waits until J2 ends.
    pol = _Script({3.0: [("suspend", 0)], 7.0: [("resume", 0)]})
    jobs, sim = run(pol, [(0, 2, 10, 100), (4, 2, 2), (5, 2, 1)], 4)
    assert pol.seen == [(3.0, 0, SUSPENDED, [0, 1], 3.0), (7.0, 0, RUNNING, [0, 1], 3.0)]
    assert jobs[0].alloc == [0, 1] and jobs[0].finish == 14.0
    assert (jobs[1].start, jobs[1].alloc) == (4.0, [2, 3])
    assert (jobs[2].start, jobs[2].finish) == (6.0, 7.0)
    # A suspended job's cores stay busy and its processes stay in the system.
    rows = {t: (busy, queued, procs) for t, busy, queued, procs in sim.timeline}
    assert rows[3.0] == (2, 0, 2) and rows[5.0] == (4, 1, 4)


def test_suspended_job_has_no_completion_and_may_change_rate():
    # Suspended at 2 with 8 s left; the rate set while suspended (0.5)
    # applies from the resumption at 5: 16 s, so the end is at 21.
    pol = _Script({2.0: [("suspend", 0), ("set_rate", 0, 0.5)], 5.0: [("resume", 0)]})
    jobs, _ = run(pol, [(0, 1, 10, 100)], 1)
    assert jobs[0].finish == 21.0
    assert pol.seen[1] == (2.0, 0, SUSPENDED, [0], 2.0)


def test_set_work_on_a_suspended_job():
    # 4 s done when suspended at 4; work cut to 6 s while suspended: the 2 s
    # left run after the resumption at 10.
    pol = _Script({4.0: [("suspend", 0)], 6.0: [("set_work", 0, 6.0)], 10.0: [("resume", 0)]})
    jobs, _ = run(pol, [(0, 1, 10, 100)], 1)
    assert jobs[0].finish == 12.0 and jobs[0].work == 6.0


@pytest.mark.parametrize("method, state", [("suspend", WAITING), ("resume", RUNNING),
                                           ("resize", SUSPENDED), ("set_rate", WAITING)])
def test_state_errors(method, state):
    jobs = make_jobs([(0, 1, 10)])
    sim = Simulator(Platform.homogeneous(2), jobs, make_policy("fcfs"))
    jobs[0].state = WAITING
    if state != WAITING:
        sim.start(jobs[0])
    if state == SUSPENDED:
        sim.suspend(jobs[0])
    args = (1,) if method == "set_rate" else ()
    with pytest.raises(SimulationError, match="cannot"):
        getattr(sim, method)(jobs[0], *args)


def test_work_done_over_a_job_life():
    jobs = make_jobs([(0, 1, 10)])
    sim = Simulator(Platform.homogeneous(1), jobs, make_policy("fcfs"))
    assert sim.work_done(jobs[0]) == 0.0
    sim.run()
    assert jobs[0].state == DONE and sim.work_done(jobs[0]) == 10.0


class _Log(Observer):
    def __init__(self):
        self.seen = []

    def job_started(self, job, now):
        self.seen.append((now, "started", job.job_id, job.cpus))

    def job_resized(self, job, now):
        self.seen.append((now, "resized", job.job_id, job.cpus))

    def job_suspended(self, job, now):
        self.seen.append((now, "suspended", job.job_id, job.cpus))

    def job_resumed(self, job, now):
        self.seen.append((now, "resumed", job.job_id, job.cpus))

    def job_ended(self, job, now):
        self.seen.append((now, "ended", job.job_id, job.cpus))


# FCFS-malleable on 4 CPUs, no overhead: J1 (4 procs) runs alone; J2 (1
# proc) arrives at 1 and J1 shrinks to 2 CPUs (rate 1/2); J3 (4 procs)
# arrives at 2 and waits with 1 CPU free; J2 ends at 3 and J3 starts shrunk
# (2 CPUs, 1 s of work at rate 1/2); J3 ends at 5 and J1 expands. J1 has
# done 1 + 4/2 = 3 s of work at 5; the 7 s left end it at 12.
MALLEABLE = [(0, 4, 10, 100), (1, 1, 2, 100), (2, 4, 1, 100)]


def test_observers_see_job_changes_in_order():
    jobs = make_jobs(MALLEABLE)
    sim = Simulator(Platform.homogeneous(4), jobs, make_policy("fcfs_malleable", ov_max=0.0),
                    debug=True)
    log = sim.observe(_Log())
    plain = sim.observe(type("Ends", (), {"job_ended": lambda self, job, now: ends.append(job.job_id)})())
    ends = []
    sim.run()
    assert log.seen == [
        (0.0, "started", 1, 4),
        (1.0, "resized", 1, 2), (1.0, "started", 2, 1),
        (3.0, "ended", 2, 1), (3.0, "started", 3, 2),
        (5.0, "ended", 3, 2), (5.0, "resized", 1, 4),
        (12.0, "ended", 1, 4),
    ]
    assert plain is not None and ends == [2, 3, 1]  # duck-typed observers work too


def test_suspension_is_observed():
    pol = _Script({3.0: [("suspend", 0)], 7.0: [("resume", 0)]})
    jobs = make_jobs([(0, 2, 10, 100)])
    sim = Simulator(Platform.homogeneous(4), jobs, pol, debug=True)
    log = sim.observe(_Log())
    sim.run()
    assert [e[:2] for e in log.seen] == [(0.0, "started"), (3.0, "suspended"),
                                         (7.0, "resumed"), (14.0, "ended")]


def test_rate_model_is_the_default_and_reports_no_superseded_completion():
    jobs = make_jobs([(0, 2, 10, 100)])
    sim = Simulator(Platform.homogeneous(2), jobs, make_policy("fcfs"))
    assert isinstance(sim.execution, RateModel) and sim.execution.sim is sim
    jobs[0].state = WAITING
    sim.start(jobs[0])
    sim.now = 4.0
    sim.set_rate(jobs[0], 0.5)        # the completion at 10 is superseded by one at 16
    assert sim.execution.completions_at(10.0) == []
    assert sim.execution.next_completion_time(float("inf")) == 16.0
    assert sim.execution.completions_at(16.0) == [jobs[0]]


# ------------------------------------------------------------------------
# Superseded completions (issue 10, item 7)
# ------------------------------------------------------------------------
class _Counting(Policy):
    """Wraps a policy and records the time of each of its rounds."""

    name = "counting"

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.calls = []

    def attach(self, sim):
        super().attach(sim)
        self.inner.attach(sim)

    def on_round(self, now, *args):
        self.calls.append(now)
        self.inner.on_round(now, *args)


def test_superseded_completions_wake_no_policy_and_add_no_timeline_row():
    # MALLEABLE above: J1's completion at 10 (started expanded) is superseded
    # when it shrinks at 1 (new one at 1 + 9 / 0.5 = 19), which is superseded
    # when it expands at 5 (J1 then ends at 12). Neither 10 nor 19 is an event.
    jobs = make_jobs(MALLEABLE)
    pol = _Counting(make_policy("fcfs_malleable", ov_max=0.0))
    sim = Simulator(Platform.homogeneous(4), jobs, pol, debug=True)
    sim.run()
    assert [(j.start, j.finish) for j in jobs] == [(0.0, 12.0), (1.0, 3.0), (3.0, 5.0)]
    assert pol.calls == [0.0, 1.0, 2.0, 3.0, 5.0, 12.0]
    assert sim.timeline == [(0.0, 4, 0, 4), (1.0, 3, 0, 5), (2.0, 3, 1, 5),
                            (3.0, 4, 0, 8), (5.0, 4, 0, 4), (12.0, 0, 0, 0)]


def test_superseded_completions_do_not_stretch_time_weighted_metrics():
    # Paper U's formula 2 on the MALLEABLE schedule, by hand: a job waits only
    # in [2, 3), with 1 CPU free, over a span of 12 s on 4 CPUs: 1 / 48.
    # Average MPL: processes 4, 5, 5, 8, 4 over [0,1), [1,2), [2,3), [3,5),
    # [5,12): (4 + 5 + 5 + 16 + 28) / (4 x 12) = 58 / 48. The stale
    # completion at 19 used to end the timeline there: 1/76 and 58/76.
    import pandas as pd

    from simlib.metrics import utrera_fragmentation, utrera_mean_mpl

    _, sim = run("fcfs_malleable", MALLEABLE, 4, ov_max=0.0)
    tl = pd.DataFrame(sim.timeline, columns=["time", "busy_cpus", "queued_jobs", "processes"])
    assert utrera_fragmentation(tl, 4) == pytest.approx(1 / 48)
    assert utrera_mean_mpl(tl, 4) == pytest.approx(58 / 48)


def test_superseded_completion_after_set_work_wakes_no_policy():
    # The work is cut at 2 (end moves from 10 to 5), then extended at 3 (to
    # 8): the completions at 10 and 5 are superseded.
    pol = _Script({2.0: [("set_work", 0, 5.0)], 3.0: [("set_work", 0, 8.0)]})
    jobs, sim = run(pol, [(0, 1, 10, 100)], 1)
    assert jobs[0].finish == 8.0
    assert pol.calls == [0.0, 2.0, 3.0, 8.0]
    assert [row[0] for row in sim.timeline] == [0.0, 2.0, 3.0, 8.0]


def test_superseded_estimate_watch_wakes_no_policy():
    # overrun="extend": 10 s of work, 5 s requested. The estimate moved to 20
    # at 2 makes the watch at 5 stale; the job ends at 10, which makes the
    # watch at 20 stale too: no rounds at 5 nor 20.
    pol = _Script({2.0: [("set_estimate", 0, 20.0)]})
    jobs, sim = run(pol, [(0, 1, 10, 5)], 1, overrun="extend")
    assert jobs[0].finish == 10.0
    assert pol.calls == [0.0, 2.0, 10.0]
    assert sim.timeline[-1] == (10.0, 0, 0, 0)
