"""Tests of :mod:`simlib.policies._easy_kernel` (a whole EASY run, compiled).

Its pure-Python twin is the engine itself: :class:`Simulator` running
:class:`EASY`. Every test runs both on the same jobs and requires the same
end state bit for bit: each job's attributes, the ledger's free list (so the
same cores are handed out next), the clock and every timeline row; and that
:meth:`EASY.compiled_run` declines whenever something else takes part. The
same for subclasses that change EASY's hooks (the example policies of
``examples/policies/`` and a few more), which keep the compiled loop.
"""
from __future__ import annotations

import importlib
import inspect
import math
import os

import numpy as np
import pandas as pd
import pytest
from helpers_examples import example_class
from helpers_sim import draw_rows, make_jobs
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.engine.execution import RateModel
from simlib.engine.job import Job
from simlib.engine.simulator import OBSERVER_HOOKS, Observer, Simulator
from simlib.platform import Platform
from simlib.policies import make_policy
from simlib.policies.easy import EASY
from simlib.runner import simulate
from simlib.workload.swf import SWF_FIELDS, Workload

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._easy_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))


def state(sim):
    """Everything a finished run leaves that a caller can read.

    The jobs, the free list (the cores handed out next), the clock, the
    timeline, then the simulator's, rate model's and policy's records.
    """
    jobs = [tuple("nan" if isinstance(v, float) and math.isnan(v) else v
                  for v in (getattr(j, k) for k in Job.__slots__)) for j in sim.jobs]
    model, policy = sim.execution, sim.policy
    records = (sim.waiting_count, sim.processes, dict(sim.running), list(sim.by_estimated_end),
               model._seq, list(model._heap), list(model._rate), list(model._work),
               getattr(policy, "reservation", None), list(policy.queue))
    timeline = np.asarray(sim.timeline, dtype=float).reshape(-1, 4).tolist()
    return jobs, sim.ledger._stack_ids(), sim.now, timeline, records


def both(jobs_of, cpus, record_timeline=True, policy=lambda: make_policy("easy")):
    """Run the engine and the kernel on fresh copies of the same jobs; return both states.

    ``policy()`` makes a fresh policy (EASY or a subclass changing its hooks).
    """
    engine = Simulator(Platform.homogeneous(cpus), jobs_of(), policy(),
                       record_timeline=record_timeline)
    engine.run()
    compiled = Simulator(Platform.homogeneous(cpus), jobs_of(), policy(),
                         record_timeline=record_timeline)
    assert compiled.policy.compiled_run(compiled)
    return state(engine), state(compiled)


def jobs_for(rows):
    """Fresh jobs of ``rows`` on each call (each run needs its own)."""
    return lambda: make_jobs(rows)


def assert_same_run(jobs_of, cpus, record_timeline=True, policy=lambda: make_policy("easy")):
    engine, compiled = both(jobs_of, cpus, record_timeline, policy)
    for name, a, b in zip(("jobs", "free list", "clock", "timeline", "records"), engine,
                          compiled):
        assert a == b, f"{name} differs"


@st.composite
def workloads(draw):
    cpus = draw(st.integers(1, 12))
    return draw_rows(draw, cpus, most=40), cpus


@settings(max_examples=300, deadline=None)
@given(workloads())
def test_random_small_workloads_run_as_in_the_engine(case):
    rows, cpus = case
    assert_same_run(jobs_for(rows), cpus)


def seeded_rows(seed, n, cpus):
    """Bursts of submissions, ties in submit and estimated end, killed and zero-length jobs."""
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.choice([0, 0, 1, 5, 60, 600], size=n))
    procs = np.minimum(cpus, rng.choice([1, 1, 2, 4, 8, cpus // 2, cpus], size=n))
    run = rng.choice([0, 1, 30, 60, 600, 3600], size=n) * rng.integers(1, 4, size=n)
    req = np.maximum(1, run * rng.choice([1, 1, 2, 10], size=n) - rng.choice([0, 0, 10], size=n))
    return list(zip(submit.tolist(), procs.tolist(), run.tolist(), req.tolist()))


@pytest.mark.parametrize("seed", range(8))
def test_seeded_workloads_run_as_in_the_engine(seed):
    rows = seeded_rows(seed, 3000, 64)
    assert_same_run(jobs_for(rows), 64)


@pytest.mark.parametrize("seed", range(4))
def test_fractional_times_run_as_in_the_engine(seed):
    # Sums and comparisons of non-integral floats (the trace times are whole
    # seconds): tenths, and arbitrary fractions.
    rng = np.random.default_rng(100 + seed)
    rows = seeded_rows(seed, 2000, 32)
    scale = 0.1 if seed % 2 else 1.0
    rows = [(s * scale + (0 if seed % 2 else rng.random()), p, r * scale + rng.random() * (r > 0),
             q * scale + rng.random() + 1.0) for s, p, r, q in rows]
    rows.sort(key=lambda row: row[0])
    assert_same_run(jobs_for(rows), 32)


def test_zero_length_jobs_end_in_their_start_round():
    # A second round at the same time replaces that time's timeline row.
    rows = [(0, 2, 0, 1), (0, 2, 0, 1), (0, 4, 5), (5, 1, 0, 2), (5, 4, 3, 3)]
    assert_same_run(jobs_for(rows), 4)
    _, compiled = both(jobs_for(rows), 4)
    # One row at 0: after the second round there (jobs 0 and 1 ended, job 2 started).
    assert [row for row in compiled[3] if row[0] == 0.0] == [[0.0, 4.0, 0.0, 4.0]]


def test_jobs_ending_at_the_shadow_time_all_count_as_extra():
    # The head (4 cores) can start when job 0 ends at 10; job 1 ends then
    # too, so 1 extra core: the long 1-core job may start at once.
    rows = [(0, 3, 10), (0, 1, 10), (1, 4, 5), (2, 1, 100)]
    engine, compiled = both(jobs_for(rows), 5)
    assert engine == compiled
    assert [j[Job.__slots__.index("start")] for j in compiled[0]] == [0.0, 0.0, 10.0, 2.0]


def test_without_a_timeline():
    rows = seeded_rows(99, 500, 16)
    engine, compiled = both(jobs_for(rows), 16, record_timeline=False)
    assert engine == compiled
    assert compiled[3] == []


class Watch(Observer):
    def job_started(self, job, now):
        pass


class SlowerModel(RateModel):
    pass


class OwnSimulator(Simulator):
    pass


@pytest.mark.parametrize("how", ["subclass", "extend", "debug", "observer", "timer", "started",
                                 "layers", "model", "simulator", "foreign", "held", "int times",
                                 "float size", "unsorted"])
def test_declines_when_something_else_takes_part(how):
    jobs = make_jobs([(0, 1, 5), (1, 2, 5)])
    if how == "int times":
        jobs[1].submit = 1
    if how == "float size":
        jobs[1].procs = 2.0
    policy = make_policy("easy_d" if how == "subclass" else "easy")
    make = OwnSimulator if how == "simulator" else Simulator
    kwargs = dict(overrun="extend" if how == "extend" else "kill", debug=how == "debug",
                  commands=[(3.0, "tick")] if how == "timer" else (),
                  layers=2 if how == "layers" else None,
                  execution=SlowerModel() if how == "model" else None,
                  record_timeline=how != "started")
    sim = make(Platform.homogeneous(2), jobs, policy, **kwargs)
    if how == "unsorted":  # after the Simulator's own check, as a caller could
        jobs[0].submit, jobs[1].submit = 1.0, 0.0
    if how == "observer":
        sim.observe(Watch())
    if how == "started":
        sim.run()   # no timeline, so only the jobs tell
    if how == "held":
        sim.ledger.take(1)
    if how == "foreign":
        policy = make_policy("easy")
    before = state(sim)
    assert policy.compiled_run(sim) is False
    assert state(sim) == before


def test_simulate_runs_the_kernel(monkeypatch):
    calls = []
    real = kernel.run

    def spy(*args):
        calls.append(len(args[0]))
        return real(*args)

    monkeypatch.setattr(kernel, "run", spy)
    monkeypatch.setenv("SIMLIB_KERNELS", "compiled")
    simulate(swf(seeded_rows(3, 200, 8)), "easy", cpus=8)
    assert calls == [200]


def test_a_progress_callback_hears_the_end_once():
    seen = []
    sim = Simulator(Platform.homogeneous(4), make_jobs(seeded_rows(5, 300, 4)),
                    make_policy("easy"), progress=lambda *a: seen.append(a))
    assert sim.policy.compiled_run(sim)
    assert seen == [(300, 300, sim.now)]


def test_no_jobs():
    sim = Simulator(Platform.homogeneous(3), [], make_policy("easy"))
    assert sim.policy.compiled_run(sim)
    assert (sim.now, list(sim.ledger._free), len(sim.timeline)) == (0.0, [0, 1, 2], 0)


def test_compiled_run_looks_at_every_simulator_option():
    # EASY.compiled_run declines whatever its kernel does not do. A new
    # engine option must be added to its conditions, then to this list.
    assert list(inspect.signature(Simulator.__init__).parameters) == [
        "self", "platform", "jobs", "policy", "overrun", "overrun_step", "debug",
        "record_timeline", "commands", "progress", "progress_every", "execution", "layers",
        "passes"]
    assert OBSERVER_HOOKS == ("job_started", "job_resized", "job_suspended", "job_resumed",
                              "job_ended")


@pytest.mark.parametrize("hook", OBSERVER_HOOKS)
def test_declines_with_any_observer_hook(hook):
    sim = Simulator(Platform.homogeneous(2), make_jobs([(0, 1, 5)]), make_policy("easy"))
    sim.observe(type("One", (), {hook: lambda self, job, now: None})())
    assert sim.policy.compiled_run(sim) is False


def test_python_kernels_mode_runs_the_engine(monkeypatch):
    monkeypatch.setenv("SIMLIB_KERNELS", "python")
    sim = Simulator(Platform.homogeneous(2), make_jobs([(0, 1, 5)]), make_policy("easy"))
    assert sim.policy.compiled_run(sim) is False


def swf(rows):
    frame = pd.DataFrame([[i + 1, s, -1, r, p, -1, -1, p, q] + [-1] * 9
                          for i, (s, p, r, q) in enumerate(rows)], columns=SWF_FIELDS)
    return Workload(frame, path="w.swf")


def test_simulate_gives_the_same_tables_either_way(monkeypatch):
    wl = swf(seeded_rows(7, 2000, 32))
    monkeypatch.setenv("SIMLIB_KERNELS", "python")
    engine = simulate(wl, "easy", cpus=32)
    monkeypatch.setenv("SIMLIB_KERNELS", "compiled")
    compiled = simulate(wl, "easy", cpus=32)
    pd.testing.assert_frame_equal(engine.jobs, compiled.jobs, check_exact=True)
    pd.testing.assert_frame_equal(engine.timeline, compiled.timeline, check_exact=True)


@pytest.mark.real_traces
@pytest.mark.parametrize("name,cpus", [("CTC-SP2-1996-3.1-cln.swf.gz", 338),
                                       ("SDSC-SP2-1998-4.2-cln.swf.gz", 128)])
def test_real_trace_prefix_runs_as_in_the_engine(name, cpus, real_traces):
    from simlib.runner import jobs_from_workload
    from simlib.workload.prepare import clean
    from simlib.workload.swf import read_swf

    wl, _ = clean(read_swf(real_traces / name), cpus)
    wl.jobs = wl.jobs.iloc[:5000]
    assert_same_run(lambda: jobs_from_workload(wl, cpus=cpus), cpus)


# --------------------------------------------------------------------------
# subclasses changing EASY's hooks: the example policies and a few more
# --------------------------------------------------------------------------
class WidestFirst(EASY):
    """Many ties in the order (sizes), broken by submission order."""

    name = "test_widest_first"

    def order_key(self, job):
        return -job.procs


class LongNotBackfilled(EASY):
    """Both hooks at once; a tuple as the order key."""

    name = "test_long_not_backfilled"

    def order_key(self, job):
        return (job.procs > 4, job.requested_time)

    def backfill_candidate(self, job):
        return job.requested_time < 100


def hooked_policies():
    """name -> factory of a fresh policy, for every subclass tested here."""
    sjf, small = example_class("sjf_easy"), example_class("easy_small")
    return {"sjf_easy": sjf, "easy_small": lambda: small(max_cpus=4),
            "easy_small_1": lambda: small(max_cpus=1), "widest_first": WidestFirst,
            "long_not_backfilled": LongNotBackfilled}


HOOKED = ["sjf_easy", "easy_small", "easy_small_1", "widest_first", "long_not_backfilled"]


@pytest.mark.parametrize("name", HOOKED)
@pytest.mark.parametrize("seed", range(3))
def test_hooked_subclasses_run_as_in_the_engine(name, seed):
    rows = seeded_rows(seed, 2000, 32)
    assert_same_run(jobs_for(rows), 32, policy=hooked_policies()[name])


@settings(max_examples=150, deadline=None)
@given(workloads(), st.sampled_from(HOOKED))
def test_hooked_subclasses_on_random_small_workloads(case, name):
    rows, cpus = case
    assert_same_run(jobs_for(rows), cpus, policy=hooked_policies()[name])


class AlwaysFull(EASY):
    """Every pass a full one: what the submission-only shortcut must equal."""

    def schedule(self, now, full):
        super().schedule(now, True)


@pytest.mark.parametrize("name", ["easy", *HOOKED])
@pytest.mark.parametrize("seed", range(3))
def test_the_submission_only_shortcut_equals_a_full_pass(name, seed):
    # With an order other than FCFS a new job can overtake the head: the
    # shortcut must then give way to a full pass (EASY.schedule).
    make = hooked_policies().get(name, EASY)
    cls = make if isinstance(make, type) else type(make())
    params = {} if isinstance(make, type) else make().params
    full = type("Full", (AlwaysFull, cls), {})
    rows = seeded_rows(seed, 1500, 16)
    shortcut = Simulator(Platform.homogeneous(16), make_jobs(rows), make())
    shortcut.run()
    reference = Simulator(Platform.homogeneous(16), make_jobs(rows), full(**params))
    reference.run()
    assert [(j.start, j.alloc) for j in shortcut.jobs] == [(j.start, j.alloc)
                                                           for j in reference.jobs]
    # Not a vacuous check: the workload makes the order matter.
    if name in ("sjf_easy", "widest_first"):
        fcfs = Simulator(Platform.homogeneous(16), make_jobs(rows), EASY())
        fcfs.run()
        assert [j.start for j in fcfs.jobs] != [j.start for j in shortcut.jobs]


def test_a_job_overtaking_the_reserved_head_moves_the_reservation():
    # 8 cores: job 0 holds 3 until 100; job 1 (6 cores) is the head, shadow
    # 100, 2 extra cores. Job 2 (2 cores, shorter) overtakes it under SJF and
    # starts at the head: now no core is extra. Job 3 (2 cores, longer than
    # job 1) arrives in a submission-only round: the old reservation would
    # let it start at 3 and delay job 1 to 202.
    rows = [(0, 3, 100), (1, 6, 500), (2, 2, 200), (3, 2, 600)]
    engine, compiled = both(jobs_for(rows), 8, policy=example_class("sjf_easy"))
    assert engine == compiled
    starts = [j[Job.__slots__.index("start")] for j in compiled[0]]
    assert starts == [0.0, 100.0, 2.0, 202.0]


def test_a_subclass_changing_only_hooks_keeps_the_compiled_loop():
    for make in hooked_policies().values():
        policy = make()
        assert type(policy).compiled_problem() is None
        sim = Simulator(Platform.homogeneous(4), make_jobs([(0, 1, 5), (1, 2, 5)]), policy)
        assert policy.compiled_run(sim) and policy.ran_compiled


@pytest.mark.parametrize("method", ["schedule", "shadow", "on_round", "start_head_jobs", "drop",
                                    "prune", "attach", "static_hooks", "compiled_run",
                                    "rigid", "layers", "schedule_when_queue_empty"])
def test_a_subclass_overriding_anything_else_runs_the_engine(method):
    cls = type("Other", (WidestFirst,), {method: getattr(EASY, method)})
    assert cls.compiled_problem() == (f"Other overrides EASY.{method} (only order_key and "
                                      "backfill_candidate keep the compiled loop)")
    grandchild = type("Grandchild", (cls,), {})
    assert grandchild.compiled_problem() is not None
    policy = grandchild()
    sim = Simulator(Platform.homogeneous(4), make_jobs([(0, 1, 5), (1, 2, 5)]), policy)
    assert policy.compiled_run(sim) is False and not policy.ran_compiled


def test_a_method_replaced_on_the_instance_runs_the_engine():
    policy = WidestFirst()
    policy.shadow = lambda head: (0.0, 0)
    sim = Simulator(Platform.homogeneous(4), make_jobs([(0, 1, 5), (1, 2, 5)]), policy)
    assert policy.compiled_run(sim) is False


def test_helpers_and_constants_of_a_subclass_keep_the_compiled_loop():
    class Helped(EASY):
        LIMIT = 3

        def _small(self, job):
            return job.procs <= self.LIMIT

        def backfill_candidate(self, job):
            return self._small(job)

    assert Helped.compiled_problem() is None


@pytest.mark.parametrize("key, message", [
    (float("nan"), "order_key of job 1 is NaN"),
    ("a string for job 2", "order_key values do not compare"),
])
def test_a_bad_order_key_is_a_config_error(key, message):
    from simlib.errors import ConfigError

    class Bad(EASY):
        name = "bad_key"

        def order_key(self, job):
            return key if job.job_id == 1 or isinstance(key, float) else float(job.job_id)

    with pytest.raises(ConfigError, match=message):
        Simulator(Platform.homogeneous(4), make_jobs([(0, 1, 5), (1, 2, 5)]), Bad())


def test_the_compiled_loop_reports_progress_and_hears_ctrl_c():
    # 140,000 one-core jobs, one submission time each: more than 2 x 65,536
    # rounds, so the loop reports (and checks for signals) on the way.
    n = 140_000
    jobs = [Job(i, i + 1, float(i), 1, 2.0, 1.0) for i in range(n)]
    calls = []
    sim = Simulator(Platform.homogeneous(4), jobs, make_policy("easy"), record_timeline=False,
                    progress=lambda done, total, now: calls.append((done, total, now)))
    assert sim.policy.compiled_run(sim)
    assert len(calls) >= 3 and calls[-1] == (n, n, sim.now)
    assert all(a[0] < b[0] and a[2] < b[2] for a, b in zip(calls, calls[1:]))

    def interrupt(done, total, now):
        raise KeyboardInterrupt
    sim = Simulator(Platform.homogeneous(4), [Job(i, i + 1, float(i), 1, 2.0, 1.0)
                                              for i in range(n)],
                    make_policy("easy"), record_timeline=False, progress=interrupt)
    with pytest.raises(KeyboardInterrupt):
        sim.policy.compiled_run(sim)
