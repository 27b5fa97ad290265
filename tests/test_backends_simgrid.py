"""The SimGrid execution backend (simlib.backends.simgrid): walltime kills and
conservative backfilling's reservations at the same instant."""
import numpy as np
import pandas as pd
import pytest

from simlib.backends.simgrid import NetworkPlatform, simulate_simgrid
from simlib.policies import make_policy
from simlib.studies.dutot.tasks import task_function
from simlib.workload.swf import SWF_FIELDS, Workload

pytestmark = pytest.mark.simgrid

PRINTED = dict(speed=286.097e3, bw=1.25e6, lat=24e-9, switch_bw=1.25e9, switch_lat=0.0,
               backbone_bw=1.25e9, backbone_lat=24e-9)


def random_workload(n, seed):
    """Paper D-like jobs: sizes 1-16, runtimes 1-4 h, walltime 1000 x runtime, all at 0."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        run, size = int(rng.integers(3600, 14400)), int(rng.integers(1, 17))
        rows.append([i + 1, 0, -1, run, size, -1, -1, size, run * 1000, -1, 1] + [-1] * 7)
    return Workload(pd.DataFrame(rows, columns=SWF_FIELDS))


def nodes(text):
    """Node ids of a Batsim ``allocated_resources`` string (``"0-2 5"``)."""
    out = []
    for part in str(text).split():
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def no_node_held_twice(jobs):
    """No two jobs overlap in time on a node."""
    spans = {}
    for r in jobs.itertuples():
        for node in nodes(r.allocated_resources):
            spans.setdefault(node, []).append((r.starting_time, r.finish_time))
    for node, s in spans.items():
        s.sort()
        for (a0, a1), (b0, _) in zip(s, s[1:]):
            assert b0 >= a1, (node, (a0, a1), b0)


def test_a_job_killed_at_its_walltime_frees_its_nodes_for_a_reservation_then():
    """Job 1 (2 nodes) runs 10 s but may run 5; job 2 waits for its nodes, reserved at 5."""
    net = NetworkPlatform.homogeneous(clusters=1, nodes=2, speed=1.0, bw=1e9, lat=0.0,
                                      switch_bw=1e9, switch_lat=0.0, backbone_bw=1e9,
                                      backbone_lat=0.0)
    rows = [[1, 0, -1, 10, 2, -1, -1, 2, 5, -1, 1] + [-1] * 7,
            [2, 0, -1, 2, 2, -1, -1, 2, 3, -1, 1] + [-1] * 7]
    wl = Workload(pd.DataFrame(rows, columns=SWF_FIELDS))
    res = simulate_simgrid(wl, make_policy("conservative", allocation="basic", recompute="rebuild"),
                           net, task_function(f_comp=1.0, f_comm=0.0))
    j = res.jobs.set_index("job_id")
    assert j.loc["1", "final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert j.loc["1", "finish_time"] == 5.0
    assert j.loc["2", "starting_time"] == 5.0 and j.loc["2", "finish_time"] == 7.0
    assert j.loc["2", "final_state"] == "COMPLETED_SUCCESSFULLY"


@pytest.mark.parametrize("rule", ["basic", "local"])
def test_walltime_kills_and_reservations_at_the_same_instant_never_share_a_node(rule):
    """Regression: with kills timed by each job's actor, a reservation starting at a
    walltime could be served an ulp before the kill, on nodes still held
    ("core 77 is already held by job index 8" on this workload)."""
    net = NetworkPlatform.homogeneous(clusters=8, nodes=16, **PRINTED)
    wl = random_workload(30, seed=1)
    res = simulate_simgrid(wl, make_policy("conservative", allocation=rule, recompute="rebuild"),
                           net, task_function(f_comp=1e6, f_comm=2e8))
    jobs = res.jobs
    killed = jobs["final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert killed.any() and (~killed).any()
    # A killed job ends at its walltime exactly (the engine's start + requested time).
    assert (jobs.loc[killed, "finish_time"]
            == jobs.loc[killed, "starting_time"] + jobs.loc[killed, "requested_time"]).all()
    assert (jobs.loc[~killed, "execution_time"] < jobs.loc[~killed, "requested_time"]).all()
    no_node_held_twice(jobs)


def test_runs_are_deterministic():
    net = NetworkPlatform.homogeneous(clusters=8, nodes=16, **PRINTED)
    wl = random_workload(20, seed=4)
    policy = {"allocation": "contiguous", "recompute": "rebuild"}
    a = simulate_simgrid(wl, make_policy("conservative", **policy), net,
                         task_function(f_comp=1e6, f_comm=1e7)).jobs
    b = simulate_simgrid(wl, make_policy("conservative", **policy), net,
                         task_function(f_comp=1e6, f_comm=1e7)).jobs
    pd.testing.assert_frame_equal(a, b)
