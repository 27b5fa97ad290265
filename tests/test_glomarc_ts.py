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
