"""Shared helpers for engine and policy tests: tiny workloads, runs, assertions."""
from __future__ import annotations

from hypothesis import strategies as st

from simlib.engine.job import DONE, Job
from simlib.engine.simulator import Simulator
from simlib.platform import Platform
from simlib.policies import make_policy


def make_jobs(rows):
    """Jobs from ``(submit, procs, runtime[, requested])`` tuples; ids 1..n."""
    jobs = []
    for i, row in enumerate(rows):
        submit, procs, run = row[:3]
        req = row[3] if len(row) > 3 else run
        jobs.append(Job(i, i + 1, float(submit), int(procs), float(req), float(run)))
    return jobs


def draw_job(draw, t, widest):
    """One random ``(submit, procs, runtime, requested)`` row for a Hypothesis strategy.

    Parameters
    ----------
    draw : callable
        The ``draw`` of a :func:`hypothesis.strategies.composite` strategy.
    t : int
        Submit time of the previous job; this one comes 0 to 15 s later.
    widest : int
        Most processors the job may ask for.
    """
    t += draw(st.integers(0, 15))
    procs = draw(st.integers(1, widest))
    runtime = draw(st.integers(1, 40))
    # Estimates from exact to 4x, sometimes too short (killed at walltime).
    factor, cut = draw(st.sampled_from([1, 1, 2, 4])), draw(st.sampled_from([0, 0, 0, 5]))
    return t, procs, runtime, max(1, runtime * factor - cut)


def draw_rows(draw, widest, most=25):
    """1 to ``most`` rows of :func:`draw_job`, in submission order."""
    n = draw(st.integers(1, most))
    rows, t = [], 0
    for _ in range(n):
        rows.append(draw_job(draw, t, widest))
        t = rows[-1][0]
    return rows


def run(policy, rows, cpus, *, debug=True, overrun="kill", platform=None, **params):
    """Simulate ``rows`` under ``policy``; return (jobs, simulator).

    ``platform`` defaults to ``cpus`` single-core nodes in one cluster.
    """
    jobs = make_jobs(rows)
    pol = make_policy(policy, **params) if isinstance(policy, str) else policy
    platform = Platform.homogeneous(cpus) if platform is None else platform
    sim = Simulator(platform, jobs, pol, debug=debug, overrun=overrun)
    sim.run()
    return jobs, sim


def schedule(jobs):
    """``{job_id: (start, finish)}`` for compact assertions."""
    return {j.job_id: (j.start, j.finish) for j in jobs}


def assert_valid_schedule(jobs, cpus, sim=None):
    """Every job done, none before its submission, and no instant over-allocated.

    With ``sim`` (needed for malleable policies, whose jobs may hold fewer CPUs
    than processes) the check uses the busy-CPU timeline instead of sizes.
    """
    for j in jobs:
        assert j.state == DONE, j
        assert j.start >= j.submit, j
        assert j.finish >= j.start, j
    if sim is not None:
        assert all(busy <= cpus for _, busy, _, _ in sim.timeline)
        return
    # Sweep over start/finish events; finishes first at equal times.
    events = sorted([(j.start, 1, j.procs) for j in jobs] + [(j.finish, 0, -j.procs) for j in jobs])
    used = 0
    for t, _, d in events:
        used += d
        assert used <= cpus, f"over-allocation at t={t}: {used} > {cpus}"


def recording(policy_name, record, **params):
    """A policy ``policy_name`` that calls ``record(policy, now)`` after every round."""
    pol = make_policy(policy_name, **params)
    inner = pol.on_round

    def on_round(now, *args):
        inner(now, *args)
        record(pol, now)

    pol.on_round = on_round
    return pol
