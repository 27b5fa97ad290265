"""Property tests over random workloads, for every registered policy.

For each random workload, under parameters drawn from the policy's
parameter space (:data:`PARAM_SPACES`): the engine's debug mode checks the
ledger after every round; afterwards every job has completed, none started
before its submission and no instant is over-allocated. Policies that need
per-job features (paper Z's time-sliced ones) get generated features on a
machine of multi-core nodes (:data:`FEATURED`). EASY must never push back the
reservation (shadow time) of the job at the head of the queue, and
conservative backfilling must never push back any job's reservation, with
every allocation rule of paper D too (on random clustered platforms, where
the strict rules must also keep their constraint).
"""
from __future__ import annotations

import os
from collections import defaultdict
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_sim import assert_valid_schedule, draw_rows, make_jobs, recording, run

from simlib.engine.allocation import RULES, OneCluster
from simlib.engine.job import DONE, WAITING
from simlib.engine.simulator import Simulator
from simlib.platform import Platform
from simlib.policies import POLICIES, make_policy
from simlib.policies.glomarc_ts import READINGS, VARIANTS
from simlib.policies.kernels import KERNEL_ENV
from simlib.studies.zeng.slowdowns import TABLE4, CoschedulingSlowdowns

#: Count-based conservative backfilling's two paths (the compiled kernel, pure
#: Python): the properties must hold on each.
COUNT_PATHS = [pytest.param("compiled", marks=pytest.mark.compiled_kernel), "python"]


@st.composite
def workloads(draw):
    cpus = draw(st.integers(1, 16))
    return cpus, draw_rows(draw, cpus)


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


# ------------------------------------------------------- parameter spaces
@st.composite
def slice_params(draw):
    """Scojo-PECT's parameters (§5.1, Table 6), always a valid slice layout.

    Lengths are fractions of the interval, so every slice outlasts its
    overhead; the type thresholds put the drawn estimates (5 s to 21,000 s)
    in all three virtual machines.
    """
    interval = draw(st.sampled_from([600.0, 3600.0]))
    return {"interval": interval,
            "short_slice": interval * draw(st.sampled_from([0.1, 0.25])),
            "overhead": interval * draw(st.sampled_from([0.0, 0.01, 0.05])),
            "medium_share": draw(st.sampled_from([0.3, 0.5, 0.7])),
            "long_share": draw(st.sampled_from([0.3, 0.7])),
            "short_max": draw(st.sampled_from([60.0, 300.0])),
            "medium_max": draw(st.sampled_from([600.0, 3000.0])),
            "max_sl": draw(st.sampled_from([1.1, 1.25, 1.5])),
            "self_sl2": draw(st.sampled_from([1.0, 1.12, 1.3])),
            "non_type_backfilling": draw(st.booleans()),
            "r_est_factor": draw(st.sampled_from([0.5, 0.75, 1.0]))}


#: Values of each reading of §4.4-§4.9 (glomarc_ts.READINGS): the default
#: and the other reading (preselect_sl: MAX_SL, a lower one, none at all).
READING_VALUES = {"preselect_sl": [None, 1.1, float("inf")],
                  "window_fill": ["consecutive", "first_fit"],
                  **{k: [True, False] for k, (v, _) in READINGS.items() if isinstance(v, bool)}}


@st.composite
def glomarc_params(draw):
    """G-LOMARC-TS's parameters: Scojo-PECT's, a variant, every reading, the thresholds."""
    return {**draw(slice_params()),
            "variant": draw(st.sampled_from(sorted(VARIANTS))),
            **{k: draw(st.sampled_from(v)) for k, v in READING_VALUES.items()},
            "block_size": draw(st.sampled_from([1, 4, 16])),
            "matched_larger": draw(st.sampled_from([0.0, 0.125, 1.0])),
            "matched_longer": draw(st.sampled_from([0.0, 300.0, 3000.0])),
            "min_utilgain": draw(st.sampled_from([0.0, 0.45, 1.0])),
            "f_slack": draw(st.sampled_from([0.0, 1.5, 3.0, 3.0])),
            "running_prim_num": draw(st.sampled_from([1, 8])),
            **{k: draw(st.booleans()) for k in ("replan", "case2", "case3")}}


#: Policy name -> strategy of its parameters, drawn by the property tests. A
#: policy not listed runs with its defaults. The validation in each policy's
#: __init__ is the declared space: every value here must pass it.
PARAM_SPACES = {
    "scojo_pect": slice_params(),
    "glomarc_ts": glomarc_params(),
}


@pytest.mark.parametrize("policy", sorted(PARAM_SPACES))
@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_parameter_space_draws_every_parameter_and_only_valid_values(policy, data):
    # A parameter added to a policy (a new reading of paper Z) must be drawn too.
    params = data.draw(PARAM_SPACES[policy])
    assert set(params) == set(POLICIES[policy].defaults)
    make_policy(policy, **params)   # the policy's own validation accepts them


# ------------------------------------------------- policies needing features
class ConstantSlowdown:
    """``SL_cos`` of every pair: one value (the extremes of Table 4's range)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def __call__(self, a: int, b: int) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"ConstantSlowdown({self.value})"


@st.composite
def paper_z_jobs(draw):
    """Paper Z's jobs with their features, on nodes of two dual-core CPUs.

    Returns ``(platform, jobs)``. Features as the study builds them
    (``simlib.studies.zeng.runs.engine_jobs``): self slowdowns ``sl_scr``,
    ``sl_sno`` in Table 4's ranges, sometimes a ``ppn`` given by the
    workload (else the policy applies formula 8), and ``sl_cos`` of every
    pair drawn from Table 4 by seed, as the study does, or one constant.
    Estimates are at least the runtime (paper Z's exact or f-model ones);
    the job type follows from the estimate and the drawn thresholds.
    """
    nodes = draw(st.integers(1, 8))
    platform = Platform.homogeneous(4 * nodes, cores_per_node=4, sockets_per_node=2)
    n = draw(st.integers(1, 20))
    cos = draw(st.one_of(st.integers(0, 2**32 - 1).map(lambda s: CoschedulingSlowdowns(TABLE4, s)),
                         st.sampled_from([1.0, 1.8]).map(ConstantSlowdown)))
    t, rows, features = 0, [], []
    for _ in range(n):
        # Bursts as well as gaps: groups need jobs waiting together.
        t += draw(st.sampled_from([0, 0, 30, 300, 900]))
        ppn = draw(st.sampled_from([None, None, 1, 2, 4]))
        procs = draw(st.integers(1, nodes * (ppn or 1)))   # fits the machine at its PPN
        work = draw(st.sampled_from([5, 40, 59, 200, 599, 900, 3000, 7000]))
        rows.append((t, procs, work, work * draw(st.sampled_from([1, 1, 1.5, 3]))))
        f = {"sl_scr": draw(st.floats(1.0, 1.7)), "sl_sno": draw(st.floats(0.9, 1.4)),
             "sl_cos": cos}
        if ppn is not None:
            f["ppn"] = ppn
        features.append(f)
    jobs = make_jobs(rows)
    for job, f in zip(jobs, features):
        job.features = f
    return platform, jobs


#: Policies that cannot run featureless jobs -> strategy of ``(platform,
#: jobs)`` with the features they read. Every other registered policy runs
#: the plain rows of :func:`workloads` on single-core nodes.
FEATURED = {"scojo_pect": paper_z_jobs(), "glomarc_ts": paper_z_jobs()}


class Periods:
    """Each job's running periods ``(start, end, physical cores)``."""

    def __init__(self, cpus: int) -> None:
        self.cpus = cpus
        self.open: dict[int, tuple[float, tuple[int, ...]]] = {}
        self.periods: dict[int, list[tuple[float, float, tuple[int, ...]]]] = defaultdict(list)

    def job_started(self, job, now):
        self.open[job.idx] = (now, tuple(sorted(c % self.cpus for c in job.alloc)))

    job_resumed = job_started

    def job_suspended(self, job, now):
        start, cores = self.open.pop(job.idx)
        self.periods[job.idx].append((start, now, cores))

    job_ended = job_suspended


def _keeps_reservations(policy: str, params: dict) -> bool:
    """Whether no job may start, in its virtual machine's time, after its reservation.

    Scojo-PECT's conservative backfilling guarantees it. G-LOMARC-TS does
    too as long as groups only take holes of the plan: Cases 2 and 3 and
    ``replan`` rebuild the plan around a group, which may delay other jobs
    within F_slack x R_est (§4.5 step 6) instead.
    """
    if policy == "glomarc_ts":
        return not (params.get("replan", True) or params.get("case2", True)
                    or params.get("case3", True))
    return True


def _assert_time_shared_schedule(jobs, sim, pol, periods):
    """The checks of a time-sliced run that do not rely on the engine's own.

    Every job done after its submission and ran for some time; a physical
    core never runs two jobs at once; a node runs at most
    ``units_per_node`` jobs at once (1: space sharing, 2: paper Z's
    semi-time-sharing); where a job's pace is fixed (no group), its
    running time times its rate is its work; no group is left at the end.
    """
    for j in jobs:
        assert j.state == DONE and j.submit <= j.start <= j.finish, j
        assert periods.periods[j.idx], j
    # Sweep over the periods; ends first at equal times.
    events = sorted((t, kind, idx, cores) for idx, ps in periods.periods.items()
                    for a, b, cores in ps if b > a for t, kind in ((a, 1), (b, 0)))
    running: dict[int, tuple[int, ...]] = {}
    node = sim.platform.core_node
    for t, kind, idx, cores in events:
        if kind == 0:
            del running[idx]
            continue
        running[idx] = cores
        held = [c for cs in running.values() for c in cs]
        assert len(held) == len(set(held)), f"t={t}: a physical core runs two jobs"
        per_node = defaultdict(set)
        for k, cs in running.items():
            for c in cs:
                per_node[int(node[c])].add(k)
        assert max(len(s) for s in per_node.values()) <= pol.units_per_node, t
    for j in jobs:
        if getattr(pol, "grouped", set()) and j.idx in pol.grouped:
            continue
        ran = sum(b - a for a, b, _ in periods.periods[j.idx])
        assert ran * pol.plan[j.idx][4] == pytest.approx(j.work, rel=1e-9, abs=1e-6), j
    assert not getattr(pol, "groups", None) and not getattr(pol, "group_of", None)


def _run_featured(policy, platform, jobs, params):
    pol = make_policy(policy, **params)
    # debug=True: the ledger, the physical cores of every layer and the
    # policy's own counters are checked after every round.
    sim = Simulator(platform, jobs, pol, debug=True)
    periods = sim.observe(Periods(platform.cpus))
    sim.run()
    return pol, sim, periods


@pytest.mark.parametrize("policy", sorted(POLICIES))
@SETTINGS
@given(data=st.data())
def test_every_policy_gives_a_valid_schedule(policy, data):
    params = data.draw(PARAM_SPACES.get(policy, st.just({})), label="params")
    if policy in FEATURED:
        platform, jobs = data.draw(FEATURED[policy], label="jobs")
        pol, sim, periods = _run_featured(policy, platform, jobs, params)
        _assert_time_shared_schedule(jobs, sim, pol, periods)
        if _keeps_reservations(policy, params):
            for j in jobs:
                assert pol.v_started[j.idx] <= pol.v_reserved[j.idx] + 1e-6, j
        return
    cpus, rows = data.draw(workloads(), label="workload")
    jobs, sim = run(policy, rows, cpus, debug=True, **params)
    if POLICIES[policy].rigid:
        assert_valid_schedule(jobs, cpus)
        for j in jobs:
            assert j.finish - j.start == pytest.approx(min(j.work, j.requested_time))
    else:
        assert_valid_schedule(jobs, cpus, sim)


def test_the_generated_features_reach_what_the_time_sliced_policies_decide():
    """The random cases of paper Z's policies are not all trivial.

    Over 150 of them (as many as the property test draws): jobs of every type
    and at 1, 2 and 4 processes per node, preemptions at slice ends, and
    under G-LOMARC-TS groups, Case 5 and Case 3, with every variant drawn.
    """
    seen = defaultdict(set)

    @settings(max_examples=150, deadline=None, derandomize=True, database=None)
    @given(data=st.data())
    def collect(policy, data):
        params = data.draw(PARAM_SPACES[policy], label="params")
        platform, jobs = data.draw(FEATURED[policy], label="jobs")
        pol, _, _ = _run_featured(policy, platform, jobs, params)
        seen[policy, "type"] |= {pol.plan[j.idx][0] for j in jobs}
        seen[policy, "ppn"] |= {pol.plan[j.idx][1] for j in jobs}
        seen[policy, "preempted"].add(pol.preemptions > 0)
        if policy == "glomarc_ts":
            seen[policy, "variant"].add(params["variant"])
            seen[policy, "grouped"].add(bool(pol.group_sizes))
            seen[policy, "case5"].add(pol.case5 > 0)
            seen[policy, "case3"].add(pol.case3 > 0)

    for policy in FEATURED:
        collect(policy)
        assert seen[policy, "type"] == {"short", "medium", "long"}
        assert seen[policy, "ppn"] == {1, 2, 4}
        assert True in seen[policy, "preempted"]
    assert seen["glomarc_ts", "variant"] == set(VARIANTS)
    for what in ("grouped", "case5", "case3"):
        assert True in seen["glomarc_ts", what], what


def _conservative_recorder():
    """``(reservations, record)``: every queued job's planned start, after every round."""
    reservations = defaultdict(list)

    def record(pol, now):
        for idx, start in pol.planned_starts().items():
            reservations[idx].append(start)

    return reservations, record


def _assert_never_delayed(reservations, jobs):
    """No recorded reservation moved later, and every job started by its first one."""
    for idx, seq in reservations.items():
        assert all(b <= a for a, b in zip(seq, seq[1:])), (idx, seq)
        assert jobs[idx].start <= seq[0]


@SETTINGS
@given(case=workloads())
def test_easy_never_delays_the_head_reservation(case):
    cpus, rows = case
    shadows = defaultdict(list)

    def record(pol, now):
        if pol.reservation is not None:
            head, shadow, _ = pol.reservation
            if head.state == WAITING:
                shadows[head.idx].append(shadow)

    jobs, _ = run(recording("easy", record), rows, cpus)
    _assert_never_delayed(shadows, jobs)


@pytest.mark.parametrize("path", COUNT_PATHS)
@SETTINGS
@given(case=workloads())
def test_conservative_never_delays_any_reservation(path, case):
    cpus, rows = case
    reservations, record = _conservative_recorder()
    with mock.patch.dict(os.environ, {KERNEL_ENV: path}):
        jobs, _ = run(recording("conservative", record), rows, cpus)
    _assert_never_delayed(reservations, jobs)


@st.composite
def clustered_workloads(draw):
    """A platform of 1-4 clusters (1 or 2 cores per node) and jobs that fit in one cluster."""
    cores = draw(st.sampled_from([1, 1, 2]))
    nodes = draw(st.integers(1, 12))
    clusters = draw(st.integers(1, min(4, nodes)))
    platform = Platform.homogeneous(nodes * cores, cores_per_node=cores, clusters=clusters)
    widest = OneCluster().max_size(platform)
    return platform, draw_rows(draw, widest)


@pytest.mark.parametrize("rule", ["count", *RULES])
@SETTINGS
@given(case=clustered_workloads())
def test_conservative_keeps_its_guarantees_with_every_allocation_rule(rule, case):
    platform, rows = case
    reservations, record = _conservative_recorder()
    # debug=True: the ledger is checked after every round (no core held twice).
    jobs, _ = run(recording("conservative", record, allocation=rule), rows, platform.cpus,
                  platform=platform)
    assert_valid_schedule(jobs, platform.cpus)
    for j in jobs:
        assert j.finish - j.start == pytest.approx(min(j.work, j.requested_time))
        assert len(set(j.alloc)) == j.procs
    _assert_never_delayed(reservations, jobs)
    if rule == "contiguous":
        for j in jobs:
            ids = sorted(j.alloc)
            assert ids[-1] - ids[0] + 1 == j.procs, (j, ids)
    elif rule == "local":
        cluster = platform.node_cluster[platform.core_node]
        for j in jobs:
            assert len({int(cluster[c]) for c in j.alloc}) == 1, (j, j.alloc)


@pytest.mark.parametrize("rule", ["count", *RULES])
@settings(max_examples=50, deadline=None, derandomize=True)
@given(case=clustered_workloads())
def test_conservative_replans_on_overruns_with_every_allocation_rule(rule, case):
    # Under overrun="extend" estimates grow and the schedule is rebuilt from
    # the running jobs' cores: planned cores must still be free at each start.
    platform, rows = case
    jobs, _ = run("conservative", rows, platform.cpus, platform=platform, overrun="extend",
                  allocation=rule)
    assert_valid_schedule(jobs, platform.cpus)
    assert all(j.finish - j.start == pytest.approx(j.work) for j in jobs)
