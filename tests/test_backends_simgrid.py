"""Tests of simlib.backends.simgrid: platform files, ptask_L07 timings against
hand-computed values, the cross-backend check against the rate model, the
walltime kill, and the errors."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from simlib.backends.simgrid import (
    Cluster,
    NetworkPlatform,
    SimGridUnavailable,
    require_simgrid,
    simulate_simgrid,
)
from simlib.engine.allocation import RULES
from simlib.errors import ConfigError, SimulationError
from simlib.policies import make_policy
from simlib.runner import simulate
from simlib.studies.dutot.tasks import task_function
from simlib.workload.swf import SWF_FIELDS, Workload


def workload(rows, submit=None) -> Workload:
    """SWF jobs from (runtime, size, walltime) rows, all released at 0 unless given."""
    submit = submit or [0] * len(rows)
    return Workload(pd.DataFrame(
        [[i + 1, s, -1, run, size, -1, -1, size, wall, -1, 1, 1, 1, 1, 1, 1, -1, -1]
         for i, ((run, size, wall), s) in enumerate(zip(rows, submit))], columns=SWF_FIELDS))


def two_single_node_clusters() -> NetworkPlatform:
    """Two clusters of one node: a two-node job crosses the backbone.

    Route between the nodes: private link (1 ms) + switch a (2 ms) + backbone
    (5 ms) + switch b (2 ms) + private link (1 ms) = 11 ms of latency.
    """
    node = dict(nodes=1, speed=1e9, bw=1.25e8, lat=1e-3, switch_bw=1e10, switch_lat=2e-3)
    return NetworkPlatform((Cluster("a", **node), Cluster("b", **node)),
                           backbone_bw=1e8, backbone_lat=5e-3, name="two")


# ------------------------------------------------------------------ platforms
def test_node_ids_follow_cluster_order():
    net = NetworkPlatform((Cluster("a", 3, 1e9, 1e8, 0.0, 1e9, 0.0),
                           Cluster("b", 2, 2e9, 1e8, 0.0, 1e9, 0.0)), 1e9, 0.0)
    p = net.platform()
    assert net.nodes == p.cpus == 5
    assert p.node_cluster.tolist() == [0, 0, 0, 1, 1]
    assert p.node_speed.tolist() == [1.0, 1.0, 1.0, 2.0, 2.0]
    xml = net.to_xml()
    assert 'radical="0-2"' in xml and 'radical="3-4"' in xml
    assert xml.count("<zoneRoute") == 1 and 'id="backbone"' in xml


def test_every_pair_of_clusters_is_joined_through_the_backbone():
    net = NetworkPlatform.homogeneous(clusters=4, nodes=2, speed=1.0, bw=1.0, lat=0.0,
                                      switch_bw=1.0, switch_lat=0.0, backbone_bw=1.0,
                                      backbone_lat=0.0)
    assert net.to_xml().count('<link_ctn id="backbone"/>') == 6   # 4 choose 2


@pytest.mark.parametrize("field, value", [("nodes", 0), ("speed", -1.0), ("bw", float("nan")),
                                          ("lat", -1e-9)])
def test_bad_cluster_values_are_config_errors(field, value):
    kw = dict(name="c", nodes=2, speed=1.0, bw=1.0, lat=0.0, switch_bw=1.0, switch_lat=0.0)
    kw[field] = value
    with pytest.raises(ConfigError, match=f"cluster c: {field}"):
        Cluster(**kw)


def test_missing_simgrid_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "simgrid", None)   # import fails
    with pytest.raises(SimGridUnavailable, match="apt-get install python3-simgrid"):
        require_simgrid()
    with pytest.raises(SimGridUnavailable):
        simulate_simgrid(workload([(1, 1, 10)]), "fcfs", two_single_node_clusters(),
                         lambda job: ([1.0], [0.0]))


# ------------------------------------------------------------- SimGrid runs
def crossing_job(task):
    """Makespan of one two-node job (nodes 0 and 1, one per cluster)."""
    res = simulate_simgrid(workload([(1, 2, 1000)]), make_policy("conservative",
                           allocation="basic"), two_single_node_clusters(), task)
    assert res.jobs["allocated_resources"].tolist() == ["0-1"]
    return float(res.jobs["finish_time"].iloc[0])


@pytest.mark.simgrid
def test_computation_bound_job_matches_ptask_l07_by_hand():
    # 1e10 flops at 1e9 flop/s: 10 s; 1e6 bytes each way on 1.25e8 B/s links:
    # 8 ms. L07 runs both at one rate (the slowest resource sets it) after
    # the route's latency: 11 ms + 10 s.
    assert crossing_job(lambda job: ([1e10, 1e10], [0.0, 1e6, 1e6, 0.0])) == pytest.approx(
        10.011, abs=1e-9)


@pytest.mark.simgrid
def test_communication_bound_job_matches_ptask_l07_by_hand():
    # 1.25e9 bytes each way: 10 s on each (split-duplex) private link, but the
    # shared backbone carries both directions, 2.5e9 bytes at 1e8 B/s: 25 s.
    # The switches (1e10 B/s) take 0.25 s, the computation (1e9 flops) 1 s.
    assert crossing_job(lambda job: ([1e9, 1e9], [0.0, 1.25e9, 1.25e9, 0.0])) == pytest.approx(
        25.011, abs=1e-9)


def one_cluster_job(task, private_links, size=2):
    """Makespan of one job on every node of one cluster of ``size`` nodes (1.25e8 B/s private
    links, a 1e10 B/s switch, no latency) whose private links are ``private_links``."""
    net = NetworkPlatform((Cluster("a", size, 1e9, 1.25e8, 0.0, 1e10, 0.0),), 1e10, 0.0,
                          name="one", private_links=private_links)
    res = simulate_simgrid(workload([(1, size, 1000)]), make_policy("conservative",
                           allocation="basic"), net, task)
    return float(res.jobs["finish_time"].iloc[0])


def test_private_links_are_split_duplex_or_shared_in_the_platform_file():
    net = NetworkPlatform((Cluster("a", 2, 1e9, 1.25e8, 0.0, 1e10, 0.0),), 1e10, 0.0)
    assert net.private_links == "split_duplex"
    assert 'sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED"' in net.to_xml()
    shared = NetworkPlatform(net.clusters, 1e10, 0.0, private_links="shared")
    assert 'sharing_policy="SHARED" bb_sharing_policy="SHARED"' in shared.to_xml()
    assert "SPLITDUPLEX" not in shared.to_xml()
    with pytest.raises(ConfigError, match="private_links must be one of"):
        NetworkPlatform(net.clusters, 1e10, 0.0, private_links="duplex")


@pytest.mark.simgrid
def test_a_shared_private_link_carries_both_directions():
    # Two hosts each send 1.25e9 bytes to the other: on split-duplex links
    # each direction has its own 1.25e8 B/s (10 s); on shared links each
    # node's link carries what it sends and what it receives (20 s). The
    # switch (2.5e9 bytes at 1e10 B/s) and the flops (0.1 s) do not bind.
    task = lambda job: ([1e8, 1e8], [0.0, 1.25e9, 1.25e9, 0.0])  # noqa: E731
    assert one_cluster_job(task, "split_duplex") == pytest.approx(10.0, abs=1e-9)
    assert one_cluster_job(task, "shared") == pytest.approx(20.0, abs=1e-9)


@pytest.mark.simgrid
def test_a_hosts_traffic_to_itself_as_simgrid_times_it():
    # Each of two hosts sends 1.25e9 bytes to itself and to the other. Split
    # duplex: each up link carries 2.5e9 bytes (20 s). Shared: each node's one
    # link carries what it sends to the other, receives from it, and its
    # traffic to itself once (SimGrid counts a link twice on one route once):
    # 3.75e9 bytes, 30 s.
    task = lambda job: ([1e8, 1e8], [1.25e9] * 4)  # noqa: E731
    assert one_cluster_job(task, "split_duplex") == pytest.approx(20.0, abs=1e-9)
    assert one_cluster_job(task, "shared") == pytest.approx(30.0, abs=1e-9)
    # A one-host job is a plain execution in SimGrid: its bytes cost nothing.
    alone = lambda job: ([1e8], [1.25e9])  # noqa: E731
    assert one_cluster_job(alone, "split_duplex", size=1) == pytest.approx(0.1, abs=1e-9)
    assert one_cluster_job(alone, "shared", size=1) == pytest.approx(0.1, abs=1e-9)


def homogeneous(clusters=2, nodes=4, speed=2.0e5):
    return NetworkPlatform.homogeneous(clusters=clusters, nodes=nodes, speed=speed, bw=1.25e6,
                                       lat=24e-9, switch_bw=1.25e9, switch_lat=0.0,
                                       backbone_bw=1.25e9, backbone_lat=24e-9)


@pytest.mark.simgrid
@pytest.mark.parametrize("rule", RULES)
def test_without_communication_simgrid_gives_the_rate_model_schedule(rule):
    """Cross-backend: F_comm = 0 on a homogeneous platform, durations c / cp."""
    rng = np.random.default_rng(7)
    n, speed, f_comp = 30, 2.0e5, 1e6
    runtime = rng.integers(3600, 14400, n).astype(float)
    size = rng.integers(1, 5, n)
    wall = runtime * 1000
    net = homogeneous(speed=speed)

    def task(job):
        k = len(job.alloc)
        return [job.work * f_comp] * k, [0.0] * (k * k)

    ours = simulate_simgrid(workload(list(zip(runtime, size, wall))),
                            make_policy("conservative", allocation=rule, recompute="rebuild"),
                            net, task).jobs
    rate = simulate(workload(list(zip(runtime * f_comp / speed, size, wall))),
                    make_policy("conservative", allocation=rule, recompute="rebuild"),
                    platform=net.platform()).jobs
    assert ours["allocated_resources"].tolist() == rate["allocated_resources"].tolist()
    # SimGrid integrates the flops step by step: equal up to rounding.
    np.testing.assert_allclose(ours["starting_time"], rate["starting_time"], rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(ours["finish_time"], rate["finish_time"], rtol=1e-12, atol=1e-6)
    # Not a vacuous check: jobs queue behind each other.
    assert (rate["starting_time"] > 0).sum() >= n // 2


@pytest.mark.simgrid
def test_job_past_its_walltime_is_killed_then_the_next_starts():
    net = homogeneous(clusters=1, nodes=2, speed=1.0)
    # Job 1 needs 100 s on both nodes but may run 40 s; job 2 waits for them.
    res = simulate_simgrid(workload([(100, 2, 40), (10, 2, 1000)]), make_policy("fcfs"), net,
                           lambda job: ([job.work] * len(job.alloc), [0.0] * len(job.alloc) ** 2))
    jobs = res.jobs.set_index("job_id")
    assert jobs.loc["1", "final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert jobs.loc["1", "finish_time"] == pytest.approx(40.0)
    assert jobs.loc["2", "starting_time"] == pytest.approx(40.0)
    assert jobs.loc["2", "final_state"] == "COMPLETED_SUCCESSFULLY"
    assert jobs.loc["2", "finish_time"] == pytest.approx(50.0)


@pytest.mark.simgrid
def test_later_releases_are_seen_in_simgrid_time():
    net = homogeneous(clusters=1, nodes=2, speed=1.0)
    res = simulate_simgrid(workload([(10, 2, 100), (5, 1, 100)], submit=[0, 3]),
                           make_policy("fcfs"), net,
                           lambda job: ([job.work] * len(job.alloc), [0.0] * len(job.alloc) ** 2))
    assert res.jobs["starting_time"].tolist() == [0.0, 10.0]
    assert res.jobs["submission_time"].tolist() == [0.0, 3.0]


@pytest.mark.simgrid
def test_a_job_released_on_an_idle_machine_runs_from_its_release():
    # Nothing runs between 0 and 3, nor between 13 and 20: SimGrid's clock must
    # still reach each release, or the job would run from an earlier clock
    # (found by the cross-check with Batsim, whose jobs were released at 1).
    net = homogeneous(clusters=1, nodes=2, speed=1.0)
    res = simulate_simgrid(workload([(10, 2, 100), (5, 1, 100)], submit=[3, 20]),
                           make_policy("fcfs"), net,
                           lambda job: ([job.work] * len(job.alloc), [0.0] * len(job.alloc) ** 2))
    assert res.jobs["starting_time"].tolist() == [3.0, 20.0]
    assert res.jobs["finish_time"].tolist() == [13.0, 25.0]


@pytest.mark.simgrid
def test_errors_in_the_simgrid_process_reach_the_caller():
    with pytest.raises(SimulationError, match="task has 1 computation amounts"):
        simulate_simgrid(workload([(1, 2, 10)]), make_policy("fcfs"), homogeneous(),
                         lambda job: ([1.0], [0.0]))


@pytest.mark.simgrid
def test_same_inputs_same_schedule():
    net = homogeneous()
    wl = workload([(3600 + 60 * i, 1 + i % 4, 10 ** 7) for i in range(12)])

    def task(job):
        k = len(job.alloc)
        return [job.work * 1e3] * k, [job.work * 1e3] * (k * k)

    runs = [simulate_simgrid(wl, make_policy("conservative", allocation="local"), net, task).jobs
            for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0], runs[1])


@pytest.mark.simgrid
def test_killed_jobs_end_exactly_at_their_planned_end():
    # Walltimes whose sum is not exact in binary: SimGrid's timer would end
    # the job an ulp late, while conservative backfilling plans the cores free
    # from start + walltime on; the next jobs reuse exactly those cores.
    net = homogeneous(clusters=1, nodes=2, speed=1.0)
    # The trace runtimes fit the walltimes; the tasks (1e6 s of flops) do not.
    rows = [(0.1, 2, 0.1 + 0.2 * k) for k in range(1, 30)]
    res = simulate_simgrid(workload(rows), make_policy("conservative", allocation="basic"), net,
                           lambda job: ([1e6] * len(job.alloc), [0.0] * len(job.alloc) ** 2))
    jobs = res.jobs
    assert (jobs["final_state"] == "COMPLETED_WALLTIME_REACHED").all()
    assert (jobs["finish_time"] == jobs["starting_time"] + jobs["requested_time"]).all()
    assert (jobs["starting_time"].iloc[1:].to_numpy() == jobs["finish_time"].iloc[:-1].to_numpy()).all()


def nodes(text):
    """Node ids of a Batsim ``allocated_resources`` string (``"0-2 5"``)."""
    out = []
    for part in str(text).split():
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


@pytest.mark.simgrid
@pytest.mark.parametrize("rule", ["basic", "local"])
def test_walltime_kills_and_reservations_at_the_same_instant_never_share_a_node(rule):
    """Paper D-like jobs on its printed homogeneous platform, where communication
    makes many jobs reach their walltime; reservations start at those instants."""
    rng = np.random.default_rng(1)
    run = rng.integers(3600, 14400, 30).astype(float)
    size = rng.integers(1, 17, 30)
    jobs = simulate_simgrid(workload(list(zip(run, size, run * 1000))),
                            make_policy("conservative", allocation=rule, recompute="rebuild"),
                            homogeneous(clusters=8, nodes=16, speed=286.097e3),
                            task_function(f_comp=1e6, f_comm=2e8)).jobs
    killed = jobs["final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert killed.any() and (~killed).any()
    assert (jobs.loc[killed, "finish_time"]
            == jobs.loc[killed, "starting_time"] + jobs.loc[killed, "requested_time"]).all()
    spans = {}
    for r in jobs.itertuples():
        for node in nodes(r.allocated_resources):
            spans.setdefault(node, []).append((r.starting_time, r.finish_time))
    for node, s in spans.items():
        s.sort()
        for (a0, a1), (b0, _) in zip(s, s[1:]):
            assert b0 >= a1, (node, (a0, a1), b0)


class _NoReuse(list):
    """An idle list that keeps nobody: each job actor ends after its job."""

    def append(self, actor):
        actor.give(None)


@pytest.mark.simgrid
@pytest.mark.parametrize("rule", ["basic", "contiguous", "best_effort_local"])
def test_job_actors_given_new_jobs_time_them_as_one_actor_per_job(rule, monkeypatch):
    # Paired: job actors reused (what runs) against one fresh actor per job,
    # with communication sharing links and jobs killed at their walltimes.
    import simlib.backends.simgrid as backend
    rng = np.random.default_rng(3)
    n = 60
    run = rng.integers(3600, 14400, n).astype(float)
    size = rng.integers(1, 17, n)
    wall = run * np.where(rng.random(n) < 0.5, 20.0, 1e4)  # some killed, some not
    def jobs():
        return simulate_simgrid(workload(list(zip(run, size, wall))),
                                make_policy("conservative", allocation=rule, recompute="rebuild"),
                                homogeneous(clusters=4, nodes=16, speed=286.097e3),
                                task_function(f_comp=1e6, f_comm=2e6)).jobs

    reused = jobs()

    class OneActorPerJob(backend.SimGridExecution):
        def __init__(self, *args):
            super().__init__(*args)
            self._idle = _NoReuse()

    monkeypatch.setattr(backend, "SimGridExecution", OneActorPerJob)
    fresh = jobs()
    pd.testing.assert_frame_equal(reused, fresh)
    killed = reused["final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert killed.any() and (~killed).any()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU affinity: Linux")
def test_a_simgrid_run_stays_on_the_core_it_started_on():
    # In a child process: the test process itself must keep all its cores.
    import subprocess
    code = ("import os; from simlib.backends.simgrid import _stay_on_one_core; "
            "allowed = os.sched_getaffinity(0); _stay_on_one_core(); "
            "now = os.sched_getaffinity(0); print(len(now), now <= allowed)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "True"]
