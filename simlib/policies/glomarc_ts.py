"""G-LOMARC-TS building blocks (paper Z, Zeng & Sodan §4.2-§4.6): groups and their utilization gain.

A *group* is a *primary job* and one or more *matched jobs* semi-time-sharing
the primary's nodes: per node two jobs, each on one core of each CPU (§4.9).
While they share, each job runs slowed by its self slowdown at its processes
per node and by its *coscheduling slowdown* ``SL_cos`` with its partner; the
primary, sharing its nodes with several matched jobs, runs at the pace of the
worst of them (``SL_q``, §4.6). The group lasts until the primary ends or
every matched job has ended (§4.4: it is then disbanded).

:func:`utilization_gain` is formula 6: the work the group does, counted as the
node time it would take under space sharing with one process per node and
no slowdown, against the node time the group holds (the primary's nodes),
as a relative gain. With every job at ``PPN = 2`` it is formula 5 (Fig. 5).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Member", "GroupRun", "utilization_gain"]


@dataclass(frozen=True)
class Member:
    """One job of a group, as the gain calculation sees it.

    Attributes
    ----------
    size : int
        ``S_i``, processes.
    work : float
        Remaining work in seconds at one process per node without slowdown
        (the workload's runtime ``T_i`` for a job not yet started).
    self_slowdown : float
        Slowdown from its own processes sharing a node at its PPN in the group.
    sl_cos : dict
        For the primary: ``SL_cos`` of the primary with each matched job, by
        the matched job's key; for a matched job: ``{primary key: SL_cos}``.
    ppn : int
        Processes per node in the group (the primary's PPN sets the node count).
    """

    key: int
    size: int
    work: float
    self_slowdown: float = 1.0
    sl_cos: dict = field(default_factory=dict)
    ppn: int = 2


@dataclass(frozen=True)
class GroupRun:
    """What :func:`utilization_gain` computed: the gain and the group's periods.

    ``periods`` holds ``(length, matched keys running)`` per period between
    terminations; ``t_total`` their sum; ``work`` the work done (node-seconds
    at one process per node, no slowdown); ``node_time`` the nodes held
    (``t_total * S_A / PPN_A``).
    """

    gain: float
    t_total: float
    work: float
    node_time: float
    periods: tuple


def utilization_gain(primary: Member, matched: list[Member]) -> GroupRun:
    """Formula 6 for a primary job and its matched jobs, from their remaining work.

    Periods end when a matched job or the primary ends; the primary's pace
    in a period is set by its largest ``SL_cos`` with the matched jobs still
    running (``SL_q``). The group ends with the primary or with the last
    matched job.

    Examples
    --------
    Fig. 5's shape: primary job 3 and matched jobs 1 and 2, all at 2
    processes per node; job 2 ends first, then the primary (job 1 goes on).

    >>> a = Member(3, size=8, work=100.0, sl_cos={1: 1.25, 2: 1.0})
    >>> m1 = Member(1, size=4, work=200.0, sl_cos={3: 1.0})
    >>> m2 = Member(2, size=4, work=50.0, sl_cos={3: 1.0})
    >>> r = utilization_gain(a, [m1, m2])
    >>> r.periods, r.t_total       # the primary at 1/1.25 throughout: SL_q = 1.25
    (((50.0, (1, 2)), (75.0, (1,))), 125.0)
    >>> r.gain                     # formula 5: (125*4 + 50*4 + 100*8 - 125*8/2) / (125*8/2)
    2.0
    """
    rem = {m.key: m.work for m in matched}
    rate = {m.key: 1.0 / (m.self_slowdown * m.sl_cos[primary.key]) for m in matched}
    size = {m.key: m.size for m in matched}
    left_a = primary.work
    t_total = work = 0.0
    periods = []
    while rem and left_a > 0:
        running = tuple(sorted(rem))
        sl_q = max(primary.sl_cos[k] for k in running)
        rate_a = 1.0 / (primary.self_slowdown * sl_q)
        # The next termination: the primary or a matched job.
        t = min(left_a / rate_a, *(rem[k] / rate[k] for k in running))
        periods.append((t, running))
        t_total += t
        work += t * primary.size * rate_a
        left_a -= t * rate_a
        for k in running:
            work += t * size[k] * rate[k]
            rem[k] -= t * rate[k]
            if rem[k] <= 1e-9 * max(1.0, t):
                del rem[k]
        if left_a <= 1e-9 * max(1.0, t):
            left_a = 0.0
    node_time = t_total * primary.size / primary.ppn
    gain = (work - node_time) / node_time if node_time > 0 else float("nan")
    return GroupRun(gain, t_total, work, node_time, tuple(periods))


# ------------------------------------------------------------ group formation
@dataclass(frozen=True)
class Candidate:
    """A job that may be matched with a primary (§4.5).

    ``nodes`` is its node requirement in the group (processes over its PPN
    there), ``delay`` how far it is behind its estimate (running jobs are
    sorted by it), ``remaining`` its remaining runtime estimate (blocks are
    sorted by it, decreasing), ``order`` its FCFS rank (waiting jobs keep it).
    """

    member: Member
    nodes: int
    order: int
    remaining: float
    delay: float = 0.0
    running: bool = False


@dataclass(frozen=True)
class FormationRules:
    """The switches of group formation (Table 6 and the variants of §5.1).

    ``block_size`` BLOCK_SIZE; ``matched_larger`` MATCHED_LARGER;
    ``matched_longer`` MATCHED_LONGER (s); ``min_gain`` MIN_UTILGAIN;
    ``sort_blocks`` False for NS (and NH); ``blocks`` False for NH (one block,
    first suitable group); ``first_block_only`` FBO; ``max_matched`` 1 for
    CST and CSTWS (pairs only); ``first_match`` CSTWS and NH (take the first
    group that passes instead of the best).
    """

    block_size: int = 16
    matched_larger: float = 0.125
    matched_longer: float = 3000.0
    min_gain: float = 0.45
    sort_blocks: bool = True
    blocks: bool = True
    first_block_only: bool = False
    max_matched: int | None = None
    first_match: bool = False


def make_blocks(cands: list[Candidate], rules: FormationRules) -> list[list[Candidate]]:
    """Step 2: order the candidates, cut them into blocks, sort each block.

    Running candidates by increasing delay, waiting ones in FCFS order; then
    blocks of ``block_size``, each sorted by decreasing remaining runtime
    (unless ``sort_blocks`` is off). Without blocks (NH) one block in FCFS order.

    Examples
    --------
    >>> m = Member(0, 1, 1.0)
    >>> cs = [Candidate(m, 1, order=i, remaining=r) for i, r in enumerate([5, 9, 7, 1, 3])]
    >>> [[c.order for c in b] for b in make_blocks(cs, FormationRules(block_size=3))]
    [[1, 2, 0], [4, 3]]
    """
    ordered = sorted(cands, key=lambda c: (c.delay, c.order) if c.running else (0.0, c.order))
    if not rules.blocks:
        return [ordered] if ordered else []
    size = max(1, rules.block_size)
    out = [ordered[i:i + size] for i in range(0, len(ordered), size)]
    if rules.sort_blocks:
        out = [sorted(b, key=lambda c: (-c.remaining, c.order)) for b in out]
    return out


def fits(primary_nodes: int, matched: list[Candidate], rules: FormationRules) -> bool:
    """The matched jobs' nodes fill at most the primary's, plus MATCHED_LARGER of it."""
    return sum(c.nodes for c in matched) <= primary_nodes * (1.0 + rules.matched_larger)


def windows(primary_nodes: int, block: list[Candidate], rules: FormationRules) -> list[list[Candidate]]:
    """Step 3: the window of the primary's node count sliding over a block (Fig. 4).

    From each position, consecutive jobs are taken while their nodes stay
    within the window (the last may overshoot by MATCHED_LARGER); jobs that
    cannot fit at all are skipped. Pairs-only variants take one job.

    Examples
    --------
    >>> m = Member(0, 1, 1.0)
    >>> b = [Candidate(m, n, order=i, remaining=0.0) for i, n in enumerate([2, 3, 4, 1])]
    >>> [[c.order for c in w] for w in windows(5, b, FormationRules(matched_larger=0.2))]
    [[0, 1], [1], [2, 3], [3]]
    """
    out = []
    limit = rules.max_matched or len(block)
    for i in range(len(block)):
        group: list[Candidate] = []
        for c in block[i:]:
            if len(group) == limit:
                break
            if fits(primary_nodes, group + [c], rules):
                group.append(c)
            else:
                break
        if group and group not in out:
            out.append(group)
    return out


def purify(primary: Member, matched: list[Candidate], gain) -> list[Candidate]:
    """Step 5: drop the matched jobs that slow the primary most but add no gain.

    Repeatedly, the job with the largest ``SL_cos`` on the primary is removed
    while the group without it has at least the same gain (``gain`` maps a
    list of candidates to its utilization gain).

    Examples
    --------
    >>> a = Member(9, size=4, work=100.0, sl_cos={1: 3.0, 2: 1.0})
    >>> c1 = Candidate(Member(1, 2, 40.0, sl_cos={9: 1.0}), 1, order=1, remaining=40.0)
    >>> c2 = Candidate(Member(2, 2, 100.0, sl_cos={9: 1.0}), 1, order=2, remaining=100.0)
    >>> g = lambda ms: utilization_gain(a, [c.member for c in ms]).gain
    >>> [c.member.key for c in purify(a, [c1, c2], g)]
    [2]
    """
    group = list(matched)
    while len(group) > 1:
        worst = max(group, key=lambda c: (primary.sl_cos[c.member.key], c.order))
        rest = [c for c in group if c is not worst]
        if gain(rest) >= gain(group):
            group = rest
        else:
            break
    return group


def form_groups(primary: Member, primary_nodes: int, cands: list[Candidate], rules: FormationRules,
                *, fair=lambda group: True, counters: dict | None = None) -> list[Candidate] | None:
    """Steps 2-6 of §4.5: the group to run with ``primary``, or None.

    ``cands`` are the pre-selected candidates (step 1). Groups are scored by
    :func:`utilization_gain`; those below MIN_UTILGAIN, or whose matched jobs
    run more than MATCHED_LONGER past the primary, are dropped. The best
    group of the first block's windows is extended from the other blocks
    while that raises the gain, every improvement kept (step 4); each kept
    group is purified (step 5) and offered to ``fair`` in decreasing order of
    gain (step 6, the fairness check). First-match variants offer the groups
    in the order found and take the first that passes.
    """
    def gain_of(ms):
        return utilization_gain(primary, [c.member for c in ms]).gain

    def ok(ms):
        if not ms or not fits(primary_nodes, ms, rules):
            return False
        if any(c.remaining > primary.work * primary.self_slowdown + rules.matched_longer for c in ms):
            return False
        return gain_of(ms) >= rules.min_gain

    blocks = make_blocks(cands, rules)
    if counters is not None:
        counters.setdefault("candidates", []).append(len(cands))
    if not blocks:
        return None
    found: list[list[Candidate]] = []
    first = [w for w in windows(primary_nodes, blocks[0], rules) if ok(w)]
    if rules.first_match:
        found = first
    elif first:
        best = max(first, key=lambda w: (gain_of(w), -min(c.order for c in w)))
        found = [best]
        if not rules.first_block_only and (rules.max_matched or 2) > 1:
            group = list(best)
            for block in blocks[1:]:
                for c in block:
                    if rules.max_matched and len(group) >= rules.max_matched:
                        break
                    trial = group + [c]
                    if ok(trial) and gain_of(trial) > gain_of(group):
                        group = trial
                        found.append(list(group))
    if not found and not rules.first_block_only:
        # No window of the first block qualifies: the other blocks' windows.
        for block in blocks[1:]:
            found += [w for w in windows(primary_nodes, block, rules) if ok(w)]
            if found and rules.first_match:
                break
    groups = [purify(primary, g, gain_of) for g in found]
    order = groups if rules.first_match else sorted(groups, key=lambda g: -gain_of(g))
    for g in order:
        if fair(g):
            return g
    return None
