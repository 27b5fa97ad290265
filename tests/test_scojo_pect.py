"""Scojo-PECT with space sharing (paper Z's SSP): slices, preemption, placement, safety."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.engine.job import DONE, Job
from simlib.engine.simulator import Simulator
from simlib.errors import ConfigError
from simlib.platform import Platform
from simlib.policies import make_policy
from simlib.policies.scojo_pect import SliceSchedule, classify, self_slowdown, ssp_ppn

#: Short jobs <= 60 s, medium <= 600 s, long above (small numbers, same rules).
SMALL = {"short_max": 60.0, "medium_max": 600.0}


def zjob(i, submit, procs, work, est=None, sl_scr=1.0, sl_sno=1.0, ppn=None):
    j = Job(i, i + 1, float(submit), procs, float(est if est is not None else work), float(work))
    j.features = {"sl_scr": sl_scr, "sl_sno": sl_sno}
    if ppn is not None:
        j.features["ppn"] = ppn
    return j


def machine(nodes=4):
    return Platform.homogeneous(4 * nodes, cores_per_node=4, sockets_per_node=2)


class Segments:
    """Records when each job runs and on which cores."""

    def __init__(self):
        self.runs, self.open, self.cores = {}, {}, {}

    def job_started(self, job, now):
        self.open[job.job_id] = now
        self.cores.setdefault(job.job_id, []).append(tuple(job.alloc))

    job_resumed = job_started

    def job_suspended(self, job, now):
        self.runs.setdefault(job.job_id, []).append((self.open.pop(job.job_id), now))

    job_ended = job_suspended


def simulate(jobs, nodes=4, **params):
    pol = make_policy("scojo_pect", **{**SMALL, **params})
    sim = Simulator(machine(nodes), jobs, pol, debug=True)
    seg = sim.observe(Segments())
    sim.run()
    return pol, sim, seg


# ------------------------------------------------------------------ slices
def test_slice_layout_of_an_interval():
    s = SliceSchedule(3600.0, 600.0, 0.3, 0.7, 60.0)
    assert s.layout(True) == [("short", 0.0, 600.0), ("medium", 600.0, 900.0),
                              ("long", 1500.0, 2100.0)]
    assert s.layout(False) == [("medium", 0.0, 1080.0), ("long", 1080.0, 2520.0)]
    assert s.effective("short", True) == 540.0 and s.effective("short", False) == 0.0


def test_slices_of_a_hand_made_day_with_an_optional_short_slice():
    # A short job arrives at 4000 s (interval 1): only interval 2 (from 7200 s)
    # starts with short jobs waiting, so only it holds a short slice.
    jobs = [zjob(0, 0.0, 1, 500.0), zjob(1, 4000.0, 1, 30.0)]
    pol, sim, seg = simulate(jobs, non_type_backfilling=False)
    log = pol.slice_log
    assert log[:2] == [(0.0, 60.0, 1080.0, "medium"), (1080.0, 1140.0, 3600.0, "long")]
    assert log[2:4] == [(3600.0, 3660.0, 4680.0, "medium"), (4680.0, 4740.0, 7200.0, "long")]
    # The last job ends in the short slice: slicing stops after the next switch.
    assert log[4:] == [(7200.0, 7260.0, 7800.0, "short"), (7800.0, 7860.0, 8700.0, "medium")]
    # The medium job runs in its first slice's effective part; the short job
    # in the short slice after the 60 s overhead.
    assert seg.runs[1] == [(60.0, 560.0)]
    assert seg.runs[2] == [(7260.0, 7290.0)]


def test_preempted_job_resumes_on_the_same_cores_at_the_hand_computed_time():
    # Medium job of 2,000 s on 2 nodes at PPN 2 (SL_sno 1.1: rate 1/1.1, so
    # 2,200 s of running). Medium slices without short jobs: [60, 1080) of
    # every hour: 1020 s, 1020 s, then 160 s -> ends at 7200 + 60 + 160.
    j = zjob(0, 0.0, 4, 2000.0, sl_scr=1.5, sl_sno=1.1, ppn=2)
    pol, sim, seg = simulate([j], non_type_backfilling=False, short_max=600.0, medium_max=10800.0)
    assert seg.runs[1] == [(60.0, 1080.0), (3660.0, 4680.0), (7260.0, 7420.0)]
    assert j.finish == pytest.approx(7420.0)
    assert len(set(seg.cores[1])) == 1  # the same cores after every preemption
    assert pol.preemptions == 2


def test_r_est_maps_the_reservation_through_the_slices():
    j = zjob(0, 0.0, 4, 2000.0, sl_scr=1.5, sl_sno=1.1, ppn=2)
    pol, _, _ = simulate([j], non_type_backfilling=False, short_max=600.0, medium_max=10800.0)
    assert pol.r_est[0] == pytest.approx(0.75 * 7420.0)


# --------------------------------------------------------------- placement
@pytest.mark.parametrize("ppn, cores", [(1, [0, 4]), (2, [0, 2, 4, 6]), (4, list(range(8)))])
def test_space_sharing_places_a_jobs_processes_on_different_cpus(ppn, cores):
    # Cores 0-1 are CPU 0 of node 0, 2-3 its CPU 1.
    j = zjob(0, 0.0, 2 * ppn, 100.0, ppn=ppn)
    _, sim, seg = simulate([j])
    # A medium job: its virtual machine's layer is 1 (ids offset by the cores).
    assert sorted(c - sim.platform.cpus for c in seg.cores[1][0]) == cores
    sockets = sim.platform.core_socket[cores]
    assert all(np.bincount(sockets[sim.platform.core_node[cores] == n]).max() <= max(1, ppn // 2)
               for n in set(sim.platform.core_node[cores]))


def test_jobs_of_different_virtual_machines_take_turns_on_the_same_cores():
    # A medium and a long job, each on all 4 nodes: both keep their cores,
    # in different layers, and never run at the same time.
    jobs = [zjob(0, 0.0, 16, 1500.0, ppn=4), zjob(1, 0.0, 16, 200.0, ppn=4)]
    pol, sim, seg = simulate(jobs, non_type_backfilling=False)
    cpus = sim.platform.cpus
    assert {c % cpus for c in seg.cores[1][0]} == {c % cpus for c in seg.cores[2][0]}
    runs = sorted(seg.runs[1] + seg.runs[2])
    assert all(a[1] <= b[0] for a, b in zip(runs, runs[1:]))


def test_formula_8_and_the_self_slowdown_on_each_branch():
    assert ssp_ppn(1, 1.0, 1.0, 1.25, 1.12) == 1             # serial
    assert ssp_ppn(8, 1.3, 1.15, 1.25, 1.12) == 1            # both too slow
    assert ssp_ppn(8, 1.3, 1.12, 1.25, 1.12) == 2            # SL_sno == SELF_SL2
    assert ssp_ppn(8, 1.25, 1.0, 1.25, 1.12) == 4            # product == MAX_SL
    assert self_slowdown(4, 1.2, 1.05) == pytest.approx(1.26)
    assert [classify(t, 600, 10800) for t in (1, 600, 601, 10801)] == \
        ["short", "short", "medium", "long"]


def test_bad_parameters_are_refused_before_any_job_runs():
    with pytest.raises(ConfigError, match="short_slice"):
        make_policy("scojo_pect", short_slice=3600.0)
    with pytest.raises(ConfigError, match="overhead"):
        make_policy("scojo_pect", overhead=2000.0)
    with pytest.raises(ConfigError, match="self slowdowns"):
        Simulator(machine(), [Job(0, 1, 0.0, 1, 5.0, 5.0)], make_policy("scojo_pect"))


# -------------------------------------------------------------- properties
@st.composite
def workloads(draw):
    n = draw(st.integers(1, 25))
    t, rows = 0, []
    for _ in range(n):
        t += draw(st.integers(0, 900))
        procs = draw(st.sampled_from([1, 2, 3, 4, 8, 16]))
        work = draw(st.sampled_from([5, 40, 59, 200, 599, 900, 3000, 7000]))
        factor = draw(st.sampled_from([1.0, 1.0, 1.5, 3.0]))
        sl_scr = draw(st.floats(1.0, 1.7))
        sl_sno = draw(st.floats(0.9, 1.4))
        rows.append((t, procs, work, work * factor, sl_scr, sl_sno))
    return rows, draw(st.booleans())


@settings(max_examples=120, deadline=None, derandomize=True)
@given(case=workloads())
def test_ssp_with_slicing_keeps_the_spines_properties(case):
    rows, non_type = case
    jobs = [zjob(i, t, p, w, e, a, b) for i, (t, p, w, e, a, b) in enumerate(rows)]
    # debug=True: after every round the ledger (no core held twice, no two
    # running jobs on a physical core) and the usage counters are checked.
    pol, sim, seg = simulate(jobs, nodes=16, non_type_backfilling=non_type)
    for j in jobs:
        assert j.state == DONE and j.start >= j.submit
        # Work conserved: running time x rate is the job's work.
        rate = pol.plan[j.idx][4]
        ran = sum(b - a for a, b in seg.runs[j.job_id])
        assert ran * rate == pytest.approx(j.work, rel=1e-9, abs=1e-6)
        # Conservative backfilling per virtual machine, non-type backfilling
        # included: no job starts (in its virtual machine's time) after the
        # reservation it got at submission, so none is delayed by another.
        assert pol.v_started[j.idx] <= pol.v_reserved[j.idx] + 1e-6
    # Nothing runs during an overhead (the debug check) and the usage
    # timeline never counts more cores than the machine has.
    assert max(u[2] for u in pol.usage) <= sim.platform.cpus


@settings(max_examples=60, deadline=None, derandomize=True)
@given(case=workloads(), policy=st.sampled_from(["scojo_pect", "glomarc_ts"]))
def test_skipping_hopeless_jobs_leaves_every_schedule_as_it_was(case, policy):
    # Paired: the exact count tests that spare compression and non-type
    # backfilling a release and a new reservation, on and off.
    from simlib.studies.zeng.slowdowns import TABLE4, CoschedulingSlowdowns
    rows, non_type = case
    cos = CoschedulingSlowdowns(TABLE4, 0)
    runs = []
    for skip in (True, False):
        jobs = [zjob(i, t, p, w, e, a, b) for i, (t, p, w, e, a, b) in enumerate(rows)]
        for j in jobs:
            j.features["sl_cos"] = cos
        pol = make_policy(policy, **SMALL, non_type_backfilling=non_type)
        pol.skip_hopeless = skip
        sim = Simulator(machine(16), jobs, pol)
        seg = sim.observe(Segments())
        sim.run()
        runs.append((seg.runs, seg.cores, [(j.start, j.finish) for j in jobs],
                     pol.v_reserved, pol.v_started))
    assert runs[0] == runs[1]


def test_non_type_backfilling_runs_a_short_job_in_a_long_slice():
    jobs = [zjob(0, 0.0, 4, 7000.0), zjob(1, 1500.0, 4, 30.0)]   # long, then short
    _, _, seg = simulate(jobs, non_type_backfilling=True)
    assert seg.runs[2] == [(1500.0, 1530.0)]          # at once, in the long slice
    _, _, seg = simulate(jobs, non_type_backfilling=False)
    assert seg.runs[2][0][0] == 3660.0                # waits for the next short slice


def test_formula_8_agrees_with_the_workload_models_vectorised_version():
    # The policy applies formula 8 itself only when a job carries no PPN; the
    # workloads of paper Z compute it vectorised. Both must agree everywhere.
    from simlib.studies.zeng.slowdowns import ppn, self_slowdown_at
    rng = np.random.default_rng(0)
    size = rng.integers(1, 5, 2000)
    scr, sno = rng.uniform(0.9, 1.8, 2000), rng.uniform(0.9, 1.8, 2000)
    ours = [ssp_ppn(int(a), b, c, 1.25, 1.12) for a, b, c in zip(size, scr, sno)]
    assert ours == ppn(size, scr, sno, 1.25, 1.12).tolist()
    slow = [self_slowdown(p, b, c) for p, b, c in zip(ours, scr, sno)]
    np.testing.assert_allclose(slow, self_slowdown_at(ours, scr, sno))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 64) - 1), st.integers(min_value=1, max_value=16),
       st.sampled_from([2, 4]))
def test_whole_nodes_takes_the_lowest_wholly_free_nodes_with_all_their_units(free, nodes, u):
    # WholeNodes builds its mask arithmetically; the plain rule: LowestIds on
    # the nodes whose every unit is free, then each chosen node's u units.
    from simlib.engine.allocation import LowestIds, ids_of
    from simlib.policies.scojo_pect import WholeNodes
    p = Platform.homogeneous(64, cores_per_node=u)
    whole = sum(1 << i for i in range(0, 64, u) if (free >> i) & ((1 << u) - 1) == (1 << u) - 1)
    got = WholeNodes(u).select(p, free, nodes * u)
    firsts = LowestIds().select(p, whole, nodes)
    if firsts is None:
        assert got is None
    else:
        assert got.cores == tuple(c + k for c in firsts.cores for k in range(u))
        assert got.mask == sum(1 << c for c in got.cores) and ids_of(got.mask) == list(got.cores)
        assert got.nodes == tuple(sorted({c // u for c in got.cores}))
