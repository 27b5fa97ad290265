"""Shared helpers for paper K's policy tests: dedicated jobs, elastic commands, random workloads."""
from __future__ import annotations

from hypothesis import strategies as st

from helpers_sim import draw_job, make_jobs

from simlib.engine.simulator import Simulator
from simlib.platform import Platform
from simlib.policies import make_policy
from simlib.workload.cwf import ElasticCommand


def run_k(policy, rows, cpus, *, dedicated=None, commands=(), debug=True, overrun="kill", **params):
    """Simulate ``rows`` (see :func:`helpers_sim.make_jobs`) under ``policy``.

    ``dedicated`` maps a row index to its requested start; ``commands`` are
    ``(time, job_id, kind, amount)`` tuples. Returns (jobs, simulator, policy).
    """
    jobs = make_jobs(rows)
    for i, rs in (dedicated or {}).items():
        jobs[i].requested_start = float(rs)
    pol = make_policy(policy, **params) if isinstance(policy, str) else policy
    events = [(float(t), ElasticCommand(t, jid, kind, amount)) for t, jid, kind, amount in commands]
    sim = Simulator(Platform.homogeneous(cpus), jobs, pol, debug=debug, overrun=overrun, commands=events)
    sim.run()
    return jobs, sim, pol


@st.composite
def heterogeneous_workloads(draw, commands=True, dedicated=True):
    """``(cpus, rows, dedicated, commands)``: random batch + dedicated jobs and ECCs."""
    cpus = draw(st.integers(1, 16))
    n = draw(st.integers(1, 20))
    rows, ded, t = [], {}, 0
    for i in range(n):
        rows.append(draw_job(draw, t, cpus))
        t = rows[-1][0]
        if dedicated and draw(st.booleans()):
            ded[i] = t + draw(st.sampled_from([0, 0, 1, 5, 20, 60]))
    cmds = []
    if commands:
        for _ in range(draw(st.integers(0, 10))):
            i = draw(st.integers(0, n - 1))
            when = rows[i][0] + draw(st.integers(0, 60))
            kind = draw(st.sampled_from(["ET", "RT", "RT", "EP"]))
            cmds.append((when, i + 1, kind, draw(st.integers(1, 50))))
        cmds.sort(key=lambda c: c[0])
    return cpus, rows, ded, cmds
