"""G-LOMARC-TS building blocks: formula 6 (and 5), blocks, windows, purify, variants."""
import numpy as np
import pytest

from simlib.policies.glomarc_ts import (Candidate, FormationRules, Member, form_groups, make_blocks,
                                        purify, utilization_gain, windows)


def test_formula_6_equals_formula_5_on_the_fig_5_case():
    # Fig. 5: primary job 3 with matched jobs 1 and 2, every job at 2
    # processes per node. Job 2 ends inside the group, job 1 outlives it.
    s1, s2, s3 = 4, 6, 8
    a = Member(3, size=s3, work=1200.0, self_slowdown=1.05, sl_cos={1: 1.1, 2: 1.2})
    m1 = Member(1, size=s1, work=5000.0, self_slowdown=1.02, sl_cos={3: 1.15})
    m2 = Member(2, size=s2, work=300.0, self_slowdown=1.10, sl_cos={3: 1.05})
    r = utilization_gain(a, [m1, m2])
    tg = r.t_total
    # By hand: job 2 ends after 300 * 1.1 * 1.05 s; meanwhile the primary runs
    # at 1/(1.05 * 1.2); then at 1/(1.05 * 1.1) until its work is done.
    t2 = 300 * 1.10 * 1.05
    done_a = t2 / (1.05 * 1.2)
    assert tg == pytest.approx(t2 + (1200 - done_a) * 1.05 * 1.1)
    # Formula 5: T_i = the time job i needs alone (one process per node, no
    # slowdown) for the work it did in the group.
    t1 = tg / (1.02 * 1.15)
    t2_work, t3 = 300.0, 1200.0
    formula_5 = (t1 * s1 + t2_work * s2 + t3 * s3 - tg * s3 / 2) / (tg * s3 / 2)
    assert r.gain == pytest.approx(formula_5)
    assert [p[1] for p in r.periods] == [(1, 2), (1,)]


def test_group_ends_when_every_matched_job_has_ended():
    a = Member(0, size=4, work=1000.0, sl_cos={1: 1.0})
    r = utilization_gain(a, [Member(1, size=4, work=100.0, sl_cos={0: 1.0})])
    assert r.t_total == 100.0 and r.gain == pytest.approx((400 + 400 - 200) / 200)


def cand(key, nodes, order, remaining, sl=1.0):
    return Candidate(Member(key, 2 * nodes, remaining, sl_cos={99: sl}), nodes, order=order,
                     remaining=remaining)


def test_blocks_keep_fcfs_then_sort_by_remaining_runtime():
    cs = [cand(i, 1, i, r) for i, r in enumerate([10, 30, 20, 5, 50])]
    assert [[c.order for c in b] for b in make_blocks(cs, FormationRules(block_size=2))] == \
        [[1, 0], [2, 3], [4]]
    unsorted = make_blocks(cs, FormationRules(block_size=2, sort_blocks=False))
    assert [[c.order for c in b] for b in unsorted] == [[0, 1], [2, 3], [4]]
    running = [Candidate(Member(i, 2, 1.0), 1, order=i, remaining=1.0, delay=d, running=True)
               for i, d in enumerate([3.0, 1.0, 2.0])]
    assert [c.order for c in make_blocks(running, FormationRules(sort_blocks=False))[0]] == [1, 2, 0]


def test_sliding_window_respects_matched_larger():
    b = [cand(i, n, i, 100.0) for i, n in enumerate([3, 2, 4, 1])]
    got = [[c.order for c in w] for w in windows(4, b, FormationRules(matched_larger=0.25))]
    # 4 nodes, up to 5 with MATCHED_LARGER 0.25: 3+2, 2 (2+4 too many), 4+1, 1.
    assert got == [[0, 1], [1], [2, 3], [3]]
    pairs = windows(4, b, FormationRules(matched_larger=0.25, max_matched=1))
    assert [[c.order for c in w] for w in pairs] == [[0], [1], [2], [3]]


def test_purify_drops_a_job_that_slows_the_primary_without_gain():
    a = Member(9, size=4, work=100.0, sl_cos={1: 3.0, 2: 1.0})
    c1 = Candidate(Member(1, 2, 40.0, sl_cos={9: 1.0}), 1, order=1, remaining=40.0)
    c2 = Candidate(Member(2, 2, 100.0, sl_cos={9: 1.0}), 1, order=2, remaining=100.0)
    gain = lambda ms: utilization_gain(a, [c.member for c in ms]).gain  # noqa: E731
    assert gain([c2]) > gain([c1, c2])
    assert [c.member.key for c in purify(a, [c1, c2], gain)] == [2]
    # A job that adds gain stays.
    a2 = Member(9, size=4, work=100.0, sl_cos={1: 1.0, 2: 1.0})
    gain2 = lambda ms: utilization_gain(a2, [c.member for c in ms]).gain  # noqa: E731
    assert len(purify(a2, [c1, c2], gain2)) == 2


def test_fairness_check_rejects_groups_in_decreasing_gain_order():
    a = Member(99, size=8, work=1000.0, sl_cos={i: 1.0 for i in range(4)})
    cs = [cand(i, 2, i, 900.0 + 10 * i) for i in range(4)]
    seen = []

    def fair(group):
        seen.append(tuple(c.member.key for c in group))
        return False

    assert form_groups(a, 4, cs, FormationRules(), fair=fair) is None
    gains = [utilization_gain(a, [cs[k].member for k in g]).gain for g in seen]
    assert seen and gains == sorted(gains, reverse=True)


VARIANTS = {
    "GLTS": FormationRules(block_size=4),
    "FBO": FormationRules(block_size=4, first_block_only=True),
    "NS": FormationRules(block_size=4, sort_blocks=False),
    "NH": FormationRules(block_size=4, blocks=False, sort_blocks=False, first_match=True),
    "CST": FormationRules(block_size=4, max_matched=1),
    "CSTWS": FormationRules(block_size=4, max_matched=1, first_match=True),
}


def test_each_variant_picks_a_different_group_where_its_definition_says():
    # A seeded queue of 9 candidates for a 16-process primary on 8 nodes.
    rng = np.random.default_rng(2)
    a = Member(100, size=16, work=3000.0,
               sl_cos={i: float(np.round(rng.uniform(1.0, 1.3), 2)) for i in range(9)})
    cands = []
    for i in range(9):
        nodes, w = int(rng.integers(1, 6)), float(rng.integers(5, 40) * 100)
        cands.append(Candidate(Member(i, 2 * nodes, w,
                                      sl_cos={100: float(np.round(rng.uniform(1.0, 1.3), 2))}),
                               nodes, order=i, remaining=w))
    picks = {k: tuple(sorted(c.member.key for c in form_groups(a, 8, cands, r)))
             for k, r in VARIANTS.items()}
    assert picks == {"GLTS": (0, 2, 3, 5), "FBO": (0, 2, 3), "NS": (0, 1, 2, 5), "NH": (0, 1, 2),
                     "CST": (2,), "CSTWS": (0,)}
    # FBO: only jobs of the first block (jobs 0-3); pairs only for CST/CSTWS.
    assert max(picks["FBO"]) < 4 and len(picks["CST"]) == len(picks["CSTWS"]) == 1
    gain = {k: utilization_gain(a, [cands[i].member for i in g]).gain for k, g in picks.items()}
    assert gain["CST"] >= gain["CSTWS"] and gain["GLTS"] >= gain["FBO"]


# ------------------------------------------------------------------ the policy
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from simlib.engine.job import DONE, RUNNING, Job  # noqa: E402
from simlib.engine.simulator import Simulator  # noqa: E402
from simlib.platform import Platform  # noqa: E402
from simlib.policies.glomarc_ts import GLomarcTS  # noqa: E402


class PairSlowdowns:
    """SL_cos from a table keyed by (a, b) job ids, 1.0 elsewhere."""

    def __init__(self, table=None):
        self.table = table or {}

    def __call__(self, a, b):
        return self.table.get((a, b), 1.0)


def zjob(i, submit, procs, work, sl_scr=1.2, sl_sno=1.05, cos=None, est=None):
    j = Job(i, i + 1, float(submit), procs, float(est or work), float(work))
    j.features = {"sl_scr": sl_scr, "sl_sno": sl_sno, "sl_cos": cos or PairSlowdowns()}
    return j


class NodeWatch:
    """After every change: at most two running jobs per node, never a core twice."""

    def __init__(self, sim):
        self.sim = sim
        self.max_jobs_per_node = 0

    def _look(self, job, now):
        sim = self.sim
        per_node = {}
        for j in sim.running.values():
            if j.state != RUNNING:
                continue
            for c in j.alloc:
                per_node.setdefault(int(sim.platform.core_node[c % sim.platform.cpus]), set()).add(j.idx)
        if per_node:
            self.max_jobs_per_node = max(self.max_jobs_per_node, max(len(s) for s in per_node.values()))

    job_started = job_resumed = job_suspended = job_ended = _look


def machine(nodes):
    return Platform.homogeneous(4 * nodes, cores_per_node=4, sockets_per_node=2)


def test_case_1_group_by_hand_and_disbanding_when_the_matched_job_ends():
    # Two medium jobs on 2 nodes. J (4 processes; SL_scr 1.6, SL_sno 1.05:
    # formula 8 gives PPN 2) is due at the first medium slice (effective at
    # 60 s). Case 4 gains 2/1.05 - 1 = 0.90, Case 5 4/1.68 - 1 = 1.38, the
    # group with M (2 processes) on the other cores of J's CPUs, by formula 6,
    # (252 x 4 / 1.155 + 252 x 2 / 1.26) / 504 - 1 = 1.53: the group wins.
    cos = PairSlowdowns({(1, 2): 1.1, (2, 1): 1.2})
    j = zjob(0, 0.0, 4, 800.0, sl_scr=1.6, sl_sno=1.05, cos=cos)
    m = zjob(1, 0.0, 2, 200.0, sl_scr=1.6, sl_sno=1.05, cos=cos)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False)
    sim = Simulator(machine(2), [j, m], pol, debug=True)
    cores = {}
    sim.observe(type("Cores", (), {"job_started": lambda self, job, now: cores.setdefault(
        job.job_id, sorted(job.alloc))})())
    sim.run()
    assert (j.start, m.start) == (60.0, 60.0)
    # M at 1 / (1.05 x 1.2): 200 x 1.26 = 252 s; then the group is disbanded
    # (its only matched job ended) and J goes on at 1 / 1.05.
    assert m.finish == pytest.approx(312.0)
    done = 252.0 / (1.05 * 1.1)
    assert j.finish == pytest.approx(312.0 + (800.0 - done) * 1.05)
    off = 4 * 2  # medium jobs: ledger layer 1 of a 8-core machine
    assert [c - off for c in cores[1]] == [0, 2, 4, 6]   # one core of each CPU of nodes 0-1
    assert [c - off for c in cores[2]] == [1, 3]         # the other core of node 0's CPUs
    stats = pol.group_stats()
    assert stats["groups"] == 1 and stats["jobs_per_group"] == 2 and not pol.groups


def test_disbanding_when_the_primary_ends_leaves_the_matched_job_at_its_self_slowdown():
    cos = PairSlowdowns({(1, 2): 1.1, (2, 1): 1.2})
    j = zjob(0, 0.0, 4, 200.0, sl_scr=1.6, sl_sno=1.05, cos=cos)
    m = zjob(1, 0.0, 2, 300.0, sl_scr=1.6, sl_sno=1.05, cos=cos)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False)
    Simulator(machine(2), [j, m], pol, debug=True).run()
    assert (j.start, m.start) == (60.0, 60.0)
    # J at 1 / (1.05 x 1.1) ends after 231 s; M did 231 / 1.26 = 183.33, then alone.
    assert j.finish == pytest.approx(60.0 + 200 * 1.155)
    assert m.finish == pytest.approx(60.0 + 231.0 + (300.0 - 231.0 / 1.26) * 1.05)


def test_a_heavy_random_workload_forms_groups_and_keeps_the_invariants():
    rng = np.random.default_rng(5)
    n = 120
    table = {(a, b): float(rng.choice([1.0, 1.05, 1.1, 1.2])) for a in range(1, n + 1)
             for b in range(1, n + 1) if a != b}
    jobs, t = [], 0.0
    for i in range(n):
        t += float(rng.integers(0, 200))
        jobs.append(zjob(i, t, int(rng.choice([2, 4, 6, 8])), float(rng.integers(7, 60) * 100),
                         float(rng.uniform(1.3, 1.7)), float(rng.uniform(0.95, 1.12)),
                         PairSlowdowns(table)))
    pol = GLomarcTS(short_max=60.0, medium_max=3000.0, block_size=4)
    sim = Simulator(machine(8), jobs, pol, debug=True)
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    assert all(j.state == DONE and j.start >= j.submit for j in jobs)
    assert watch.max_jobs_per_node == 2 and pol.group_stats()["groups"] > 0


@st.composite
def workloads(draw):
    n = draw(st.integers(2, 18))
    t, rows = 0, []
    for _ in range(n):
        t += draw(st.integers(0, 600))
        rows.append((t, draw(st.sampled_from([1, 2, 3, 4, 6, 8])),
                     draw(st.sampled_from([30, 700, 2000, 5000, 12000])),
                     draw(st.floats(1.0, 1.6)), draw(st.floats(0.9, 1.3))))
    cos = {(a, b): draw(st.sampled_from([1.0, 1.05, 1.1, 1.2, 1.4]))
           for a in range(1, n + 1) for b in range(1, n + 1) if a != b}
    return rows, cos


#: Every reading's values, drawn independently (the switches of READINGS).
SWITCH_VALUES = {"preselect_sl": [None, 1.1, float("inf")], "window_fill": ["consecutive", "first_fit"],
                 **{k: [True, False] for k in ("window_filter", "other_block_windows", "fairness_members",
                                               "case4_last", "case5_max_sl", "rematch",
                                               "group_non_type_backfilling",
                                               "group_self_slowdown", "matchmaking_first")}}
SWITCHES = st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SWITCH_VALUES.items()})


def test_the_property_tests_draw_every_switch():
    assert set(SWITCH_VALUES) == set(READINGS)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(case=workloads(), variant=st.sampled_from(["GLTS", "CST", "CSTWS", "FBO", "NS", "NH"]),
       switches=SWITCHES)
def test_every_variant_keeps_the_spines_properties(case, variant, switches):
    rows, table = case
    cos = PairSlowdowns(table)
    jobs = [zjob(i, t, p, w, a, b, cos) for i, (t, p, w, a, b) in enumerate(rows)]
    pol = GLomarcTS(variant=variant, short_max=60.0, medium_max=3000.0, block_size=4, **switches)
    sim = Simulator(machine(8), jobs, pol, debug=True)   # ledger, physical cores, counters
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    assert watch.max_jobs_per_node <= 2
    for j in jobs:
        assert j.state == DONE and j.start >= j.submit and j.finish > j.start
    assert not pol.groups and not pol.group_of   # every group disbanded


@pytest.mark.parametrize("f_slack, case4_last, case5_max_sl, ppn, finish", [
    # R_est = 0.75 x (60 + 500 x 1.05) = 438.75: at PPN 4 the job would end at
    # 60 + 500 x 1.365 = 742.5 > 1.5 x R_est = 658.1, so Case 5 is refused
    # and the job runs as planned (Case 4, PPN 2); with F_slack 2 (877.5) and
    # Case 4 competing on gain, Case 5 wins: its gain 4 / 1.365 - 1 = 1.93
    # beats Case 4's 2 / 1.05 - 1 = 0.90.
    (1.5, False, False, 2, 60 + 500 * 1.05),
    (2.0, False, False, 4, 60 + 500 * 1.365),
    # Case 5 within MAX_SL (§4.3's threshold): it fails at 1.365 > 1.25,
    # whatever its gain, and Case 4 runs the job as planned.
    (2.0, False, True, 2, 60 + 500 * 1.05),
    (2.0, True, True, 2, 60 + 500 * 1.05),
    # Case 4 last (§4.4) and Case 5 at any self slowdown: Case 5 is the only option.
    (1.5, True, False, 2, 60 + 500 * 1.05),
    (2.0, True, False, 4, 60 + 500 * 1.365),
])
def test_case_5_against_case_4_and_the_fairness_check(f_slack, case4_last, case5_max_sl, ppn, finish):
    # Alone on 2 nodes, but not a low load: 4 processes > 2 nodes.
    j = zjob(0, 0.0, 4, 500.0, sl_scr=1.3, sl_sno=1.05)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False, f_slack=f_slack,
                    case4_last=case4_last, case5_max_sl=case5_max_sl)
    sim = Simulator(machine(2), [j], pol, debug=True)
    sim.run()
    assert pol.plan[0][1] == ppn and j.start == 60.0
    assert j.finish == pytest.approx(finish)


def running_then_head(r_procs, h_procs):
    """R (medium, PPN 2 on both nodes: Case 5's gain 4 / 2.625 - 1 is below Case 4's
    2 / 1.05 - 1) runs from the slice start; the head H arrives at 100 s with no
    whole node free. SL_cos = 1 both ways."""
    r = zjob(0, 0.0, r_procs, 900.0, sl_scr=2.5, sl_sno=1.05)
    h = zjob(1, 100.0, h_procs, 300.0, sl_scr=2.5, sl_sno=1.05)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False)
    sim = Simulator(machine(2), [r, h], pol, debug=True)
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    return r, h, pol, watch


def test_case_2_the_head_primary_on_the_idle_cores_of_a_running_job():
    # R has 4 processes, H 3 (both on 2 nodes at PPN 2): as primary H holds 1.5 node-units
    # per second against R's 2, so by formula 6 Case 2 (H primary) gains more than Case 3.
    from simlib.policies.glomarc_ts import Member, utilization_gain
    h = Member(1, 3, 300.0, 1.05, {0: 1.0})
    r = Member(0, 4, 900.0 - 40 / 1.05, 1.05, {1: 1.0})   # 40 s run by 100 s
    h_first, r_first = utilization_gain(h, [r]), utilization_gain(r, [h])
    assert h_first.gain > r_first.gain
    r, h, pol, watch = running_then_head(4, 3)
    assert (pol.case2, pol.case3) == (1, 0) and h.start == 100.0
    # Both at 1 / 1.05 (SL_cos = 1): H ends 315 s later, R as if alone.
    assert h.finish == pytest.approx(100.0 + 300 * 1.05)
    assert r.finish == pytest.approx(60.0 + 900 * 1.05)
    assert watch.max_jobs_per_node == 2


def test_case_3_a_running_primary_with_the_head_matched():
    # R has 3 processes, H 4: now R as primary holds fewer node-units; Case 3 wins.
    r, h, pol, watch = running_then_head(3, 4)
    assert (pol.case2, pol.case3) == (0, 1) and h.start == 100.0
    assert h.finish == pytest.approx(100.0 + 300 * 1.05)
    assert watch.max_jobs_per_node == 2


def test_without_cases_2_and_3_the_head_waits_for_whole_nodes():
    r = zjob(0, 0.0, 4, 900.0, sl_scr=2.5, sl_sno=1.05)
    h = zjob(1, 100.0, 3, 300.0, sl_scr=2.5, sl_sno=1.05)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False, case2=False, case3=False)
    Simulator(machine(2), [r, h], pol, debug=True).run()
    assert (pol.case2, pol.case3) == (0, 0) and h.start == pytest.approx(r.finish)


def test_checked_plans_choose_the_units_the_kept_plans_do():
    # _replan places jobs through a PlanChoice (masks only) and builds the
    # Allocations of a kept plan from those masks: the same as WholeNodes.select.
    import random

    from simlib.engine.allocation import PlanChoice
    from simlib.platform import Platform
    from simlib.policies.scojo_pect import WholeNodes
    p = Platform.homogeneous(256, cores_per_node=2)
    whole = WholeNodes(2)
    rng = random.Random(0)
    for _ in range(300):
        free, size = rng.getrandbits(256), 2 * rng.randint(1, 80)
        got, want = PlanChoice(whole).select(p, free, size), whole.select(p, free, size)
        assert (got is None) == (want is None)
        if want is not None:
            assert (got.mask, len(got)) == (want.mask, len(want))


def test_a_plans_steps_do_not_depend_on_the_order_of_its_reservations():
    # _replan reserves running jobs and guests first (kept from one group
    # tried to the next), then the group: the order must not matter.
    import random

    from simlib.engine.allocation import Allocation
    from simlib.platform import Platform
    from simlib.policies.profile import PlacementProfile
    rng = random.Random(2)
    plat = Platform.homogeneous(16)
    for _ in range(100):
        res = []
        for c in rng.sample(range(16), rng.randint(1, 16)):
            res.append((rng.choice([1.0, 2.5, 4.0, 7.0]), Allocation.of(plat, [c])))
        a, b = PlacementProfile(0.0, plat), PlacementProfile(0.0, plat)
        for end, alloc in res:
            a.reserve(0.0, end, alloc)
        for end, alloc in rng.sample(res, len(res)):
            b.reserve(0.0, end, alloc)
        assert (a.times, a.masks, a.free) == (b.times, b.masks, b.free)


# ----------------------------------------- the readings of group matchmaking
# Every switch of READINGS on a hand-made state: the main reading (the
# policy's default) and the alternative differ exactly where the switch says.
from simlib.policies.glomarc_ts import READINGS, group_offers  # noqa: E402


def test_every_reading_is_a_parameter_with_the_documented_default():
    pol = GLomarcTS()
    for key, (default, _) in READINGS.items():
        assert pol.params[key] == default
    assert pol.preselect_sl == pol.params["max_sl"]
    assert GLomarcTS(preselect_sl=2.0).preselect_sl == 2.0
    from simlib.errors import ConfigError
    for bad in ({"window_fill": "best"}, {"preselect_sl": 0.0}, {"case4_last": 1}):
        with pytest.raises(ConfigError):
            GLomarcTS(**bad)


def test_first_fit_windows_skip_a_job_that_does_not_fit():
    b = [cand(i, n, i, 100.0) for i, n in enumerate([2, 3, 2, 1])]
    rules = FormationRules(matched_larger=0.0)
    assert [[c.order for c in w] for w in windows(4, b, rules)] == [[0], [1], [2, 3], [3]]
    fill = FormationRules(matched_larger=0.0, window_fill="first_fit")
    assert [[c.order for c in w] for w in windows(4, b, fill)] == [[0, 2], [1, 3], [2, 3], [3]]


def _long_and_short():
    """Two one-node candidates of a one-node primary (100 s): job 0 (2 processes)
    adds more gain but runs 400 s past the primary; job 1 (1 process) ends with it."""
    a = Member(9, size=2, work=100.0, sl_cos={0: 1.0, 1: 1.0})
    c0 = Candidate(Member(0, 2, 500.0, sl_cos={9: 1.0}), 1, order=0, remaining=500.0)
    c1 = Candidate(Member(1, 1, 100.0, sl_cos={9: 1.0}), 1, order=1, remaining=100.0)
    assert (utilization_gain(a, [c0.member]).gain > utilization_gain(a, [c1.member]).gain)
    return a, [c0, c1]


def test_window_filter_drops_failing_windows_before_the_best_or_tests_the_best():
    a, cands = _long_and_short()
    keys = lambda offers: [[c.member.key for c in g] for g in offers]  # noqa: E731
    rules = FormationRules(matched_longer=0.0, block_size=4)
    assert keys(group_offers(a, 1, cands, rules)) == [[1]]
    # The best window (job 0) is chosen first, then fails MATCHED_LONGER: no group.
    late = FormationRules(matched_longer=0.0, block_size=4, window_filter=False)
    assert keys(group_offers(a, 1, cands, late)) == []


def test_other_blocks_windows_only_when_switched_on():
    a, cands = _long_and_short()
    keys = lambda offers: [[c.member.key for c in g] for g in offers]  # noqa: E731
    # Blocks of one job: the first block (job 0) has no window that passes.
    rules = FormationRules(matched_longer=0.0, block_size=1, sort_blocks=False)
    assert keys(group_offers(a, 1, cands, rules)) == [[1]]
    only_step4 = FormationRules(matched_longer=0.0, block_size=1, sort_blocks=False,
                                other_block_windows=False)
    assert keys(group_offers(a, 1, cands, only_step4)) == []


def _pair_run(cos_jm=1.25, cos_mj=1.25, j_sno=0.95, m_work=200.0, **params):
    """J (4 processes, formula-8 PPN 2 by SL_sno <= SELF_SL2; SL_scr SL_sno far above
    MAX_SL) and a serial M, both medium, on 2 nodes."""
    cos = PairSlowdowns({(1, 2): cos_jm, (2, 1): cos_mj})
    j = zjob(0, 0.0, 4, 800.0, sl_scr=2.5, sl_sno=j_sno, cos=cos)
    m = zjob(1, 0.0, 1, m_work, sl_scr=2.5, sl_sno=1.05, cos=cos)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False, **params)
    sim = Simulator(machine(2), [j, m], pol, debug=True)
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    assert watch.max_jobs_per_node <= 2
    return j, m, pol


def test_case_4_is_not_taken_when_case_1_forms_a_group():
    # J's Case 4: 2 / 0.95 - 1 = 1.105. The group (J primary, M matched):
    # 2 / (0.95 x 1.25) + 0.5 / 1.25 - 1 = 1.084 by formula 6, above MIN_UTILGAIN.
    a = Member(0, 4, 800.0, 0.95, {1: 1.25}, 2)
    assert utilization_gain(a, [Member(1, 1, 200.0, 1.0, {0: 1.25}, 1)]).gain == \
        pytest.approx(2 / (0.95 * 1.25) + 0.5 / 1.25 - 1)
    j, m, pol = _pair_run()
    assert pol.group_stats()["groups"] == 1 and m.start == j.start == 60.0
    # Case 4 competing on gain wins: J runs alone on both nodes, M waits for it.
    j, m, pol = _pair_run(case4_last=False)
    assert pol.group_stats()["groups"] == 0 and m.start >= j.finish
    # Case 5 at any self slowdown (4 / 2.375 - 1 = 0.68) does not matter here.
    j, m, pol = _pair_run(case4_last=False, case5_max_sl=False)
    assert pol.group_stats()["groups"] == 0 and m.start >= j.finish


def test_fairness_check_of_the_groups_own_members():
    # F_slack between J's response alone and in the group: only J itself is
    # delayed past R_max by the group (M gains), so only the members' check refuses it.
    j, m, pol = _pair_run()
    in_group = j.finish - j.submit
    j, m, pol = _pair_run(case4_last=False)
    alone = j.finish - j.submit
    r_est = pol.r_est[0]
    f_slack = (alone + in_group) / 2 / r_est
    assert alone < f_slack * r_est < in_group
    j, m, pol = _pair_run(f_slack=f_slack)
    assert pol.group_stats()["groups"] == 0 and pol.counters["unfair"] > 0
    j, m, pol = _pair_run(f_slack=f_slack, fairness_members=False)
    assert pol.group_stats()["groups"] == 1 and j.finish - j.submit > f_slack * pol.r_est[0]


def test_preselection_threshold():
    # SL_cos 1.3 both ways is above MAX_SL (1.25): no candidate, no group.
    j, m, pol = _pair_run(cos_jm=1.3, cos_mj=1.3, j_sno=1.05)
    assert pol.group_stats()["groups"] == 0
    j, m, pol = _pair_run(cos_jm=1.3, cos_mj=1.3, j_sno=1.05, preselect_sl=float("inf"))
    assert pol.group_stats()["groups"] == 1


@pytest.mark.parametrize("own", [True, False])
def test_formula_6_with_and_without_the_members_own_self_slowdown(own):
    # test_case_1's group: M at 1 / (1.05 x 1.2) with its own SL_sno, 1 / 1.2 without;
    # J at 1 / (1.05 x 1.1), or 1 / 1.1; after the group J goes on alone at 1 / 1.05.
    cos = PairSlowdowns({(1, 2): 1.1, (2, 1): 1.2})
    j = zjob(0, 0.0, 4, 800.0, sl_scr=1.6, sl_sno=1.05, cos=cos)
    m = zjob(1, 0.0, 2, 200.0, sl_scr=1.6, sl_sno=1.05, cos=cos)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False,
                    group_self_slowdown=own)
    Simulator(machine(2), [j, m], pol, debug=True).run()
    self_m, self_j = (1.05, 1.05) if own else (1.0, 1.0)
    t_m = 200.0 * self_m * 1.2
    assert m.finish == pytest.approx(60.0 + t_m)
    assert j.finish == pytest.approx(60.0 + t_m + (800.0 - t_m / (self_j * 1.1)) * 1.05)
    a = Member(0, 4, 800.0, self_j, {1: 1.1}, 2)
    r = utilization_gain(a, [Member(1, 2, 200.0, self_m, {0: 1.2}, 2)])
    assert r.t_total == pytest.approx(t_m)   # formula 6's period, as the run had it


@pytest.mark.parametrize("rematch", [True, False])
def test_a_job_is_matched_again_after_its_group_disbands(rematch):
    # J (4 processes, 2 nodes at PPN 2) and M (2 processes) form a group at 60 s;
    # M ends at 60 + 105 s and the group is disbanded: J holds one core of each
    # CPU of both nodes. H (2 processes) arrives at 400 s with no whole node
    # free: Cases 2 and 3 match it with J again, if J may be matched again.
    j = zjob(0, 0.0, 4, 3000.0, sl_scr=2.5, sl_sno=1.05)
    m = zjob(1, 0.0, 2, 100.0, sl_scr=2.5, sl_sno=1.05)
    h = zjob(2, 400.0, 2, 300.0, sl_scr=2.5, sl_sno=1.05)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False, rematch=rematch)
    sim = Simulator(machine(2), [j, m, h], pol, debug=True)
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    assert watch.max_jobs_per_node <= 2 and m.start == j.start == 60.0
    if rematch:
        assert pol.group_stats()["groups"] == 2 and h.start == 400.0
        assert pol.case2 + pol.case3 == 1 and pol.group_stats()["grouped_jobs"] == 3
    else:
        assert pol.group_stats()["groups"] == 1 and h.start >= j.finish


class Resumes:
    def __init__(self, pol):
        self.pol, self.rows = pol, []

    def job_resumed(self, job, now):
        self.rows.append((now, job.idx, self.pol.active.name))


@pytest.mark.parametrize("backfilled", [True, False])
def test_a_group_is_non_type_backfilled_into_another_types_slice(backfilled):
    # A medium group outlives its slice; no long job exists, so the long slice
    # leaves the group's nodes idle: the whole group resumes there, or none of it.
    cos = PairSlowdowns()
    j = zjob(0, 0.0, 4, 5000.0, sl_scr=2.5, sl_sno=1.05, cos=cos)
    m = zjob(1, 0.0, 2, 4000.0, sl_scr=2.5, sl_sno=1.05, cos=cos)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, group_non_type_backfilling=backfilled)
    sim = Simulator(machine(2), [j, m], pol, debug=True)
    seen = sim.observe(Resumes(pol))
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    assert watch.max_jobs_per_node <= 2 and pol.group_stats()["groups"] == 1
    # While the group lasts (until M ends; J then runs alone and may be a guest).
    guest = [(t, idx) for t, idx, vm in seen.rows if vm != "medium" and t < m.finish]
    if backfilled:
        assert guest, "the group never ran in the long slice"
        times = {}
        for t, idx in guest:
            times.setdefault(t, set()).add(idx)
        assert all(s == {0, 1} for s in times.values())   # both members together
    else:
        assert not guest


@pytest.mark.parametrize("first", [False, True])
def test_matchmaking_gets_the_first_look_when_switched_on(first):
    # A medium job submitted in the long slice of an idle machine: non-type
    # backfilling starts it there before any medium matchmaking round has seen it,
    # unless matchmaking gets the first look.
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, matchmaking_first=first)
    probe = Simulator(machine(2), [zjob(0, 0.0, 2, 30.0, sl_scr=2.5, sl_sno=1.05)],
                      GLomarcTS(short_max=60.0, medium_max=8000.0))
    probe.run()
    long_slice = next(s for s in probe.policy.slice_log if s[3] == "long")
    t = long_slice[1] + 10.0
    jobs = [zjob(0, t, 4, 1000.0, sl_scr=2.5, sl_sno=1.05)]
    sim = Simulator(machine(2), jobs, pol, debug=True)
    sim.run()
    stats = pol.group_stats()
    if first:
        assert stats["nontype_before_matchmaking"] == 0 and jobs[0].start > long_slice[2]
    else:
        assert stats["nontype_before_matchmaking"] == 1 and jobs[0].start == t


def test_a_group_resumes_as_a_whole_or_not_at_all():
    # _guest_unit on hand-made states: a group's members all suspended -> all of
    # them (the non-type backfilling loop then needs every member's units idle);
    # one member not suspended -> none; a job in no group -> itself.
    from simlib.engine.job import SUSPENDED
    jobs = [zjob(i, 0.0, 2, 100.0) for i in range(4)]
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0)
    Simulator(machine(2), jobs, pol)   # attaches the policy
    pol.groups[0] = [0, {1, 2}]
    pol.group_of.update({0: 0, 1: 0, 2: 0})
    for j in jobs:
        j.state = SUSPENDED
    assert [j.idx for j in pol._guest_unit(jobs[1])] == [0, 1, 2]
    assert pol._guest_unit(jobs[3]) == [jobs[3]]
    jobs[2].state = RUNNING
    assert pol._guest_unit(jobs[0]) == []
    jobs[2].state = SUSPENDED
    pol.params["group_non_type_backfilling"] = False
    assert pol._guest_unit(jobs[0]) == [] and pol._guest_unit(jobs[3]) == [jobs[3]]


@pytest.mark.parametrize("rematch", [True, False])
def test_a_matched_job_left_by_its_primary_is_matched_again(rematch):
    # X runs alone on node 0 (its SL_cos with everyone is above MAX_SL). J (primary)
    # and M (matched) share node 1 from 60 s; J ends first and the group is
    # disbanded: M holds the second core of each CPU of node 1 only. H arrives at
    # 400 s with no whole node free and is matched with M again (Case 2 or 3).
    cos = PairSlowdowns({**{(1, k): 1.5 for k in (2, 3, 4)}, **{(k, 1): 1.5 for k in (2, 3, 4)}})
    x = zjob(0, 0.0, 2, 5000.0, sl_scr=2.5, sl_sno=1.05, cos=cos)
    j = zjob(1, 0.0, 2, 100.0, sl_scr=2.5, sl_sno=1.05, cos=cos)
    m = zjob(2, 0.0, 2, 2800.0, sl_scr=2.5, sl_sno=1.05, cos=cos)
    h = zjob(3, 400.0, 2, 300.0, sl_scr=2.5, sl_sno=1.05, cos=cos)
    pol = GLomarcTS(short_max=60.0, medium_max=8000.0, non_type_backfilling=False, rematch=rematch)
    sim = Simulator(machine(2), [x, j, m, h], pol, debug=True)
    watch = sim.observe(NodeWatch(sim))
    sim.run()
    assert watch.max_jobs_per_node <= 2 and x.start == j.start == m.start == 60.0
    assert pol.groups == {} and pol.group_stats()["groups"] == (2 if rematch else 1)
    if rematch:
        assert h.start == 400.0 and pol.case2 + pol.case3 == 1
    else:
        assert h.start >= min(m.finish, x.finish)


def test_preselection_needs_both_directions():
    # SL_cos of M with J above MAX_SL, J's with M below: still no candidate.
    j, m, pol = _pair_run(cos_jm=1.0, cos_mj=1.3, j_sno=1.05)
    assert pol.group_stats()["groups"] == 0
    j, m, pol = _pair_run(cos_jm=1.0, cos_mj=1.3, j_sno=1.05, preselect_sl=1.3)
    assert pol.group_stats()["groups"] == 1
