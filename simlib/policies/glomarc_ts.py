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

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..engine.allocation import Allocation, PlanChoice, Planned, lowest_bits
from ..engine.job import RUNNING, SUSPENDED, WAITING, Job
from ..errors import ConfigError
from .profile import PlacementProfile
from .scojo_pect import ScojoPECT, _release, self_slowdown

__all__ = ["Member", "GroupRun", "Candidate", "FormationRules", "utilization_gain", "make_blocks",
           "may_join", "windows", "purify", "group_offers", "form_groups", "VARIANTS", "GLomarcTS"]


# Not frozen: made by the hundred thousand per run (a frozen dataclass's
# __init__ costs 4x); treated as values, never changed after creation.
@dataclass(slots=True)
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


@dataclass(slots=True)  # not frozen: see Member
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
    # In increasing key order: deleting keys keeps it, so tuple(rem) is the
    # running matched jobs sorted (this runs for every group scored).
    rem = {m.key: m.work for m in sorted(matched, key=lambda m: m.key)}
    rate = {m.key: 1.0 / (m.self_slowdown * m.sl_cos[primary.key]) for m in matched}
    size = {m.key: m.size for m in matched}
    sl_cos_a = primary.sl_cos
    left_a = primary.work
    t_total = work = 0.0
    periods = []
    while rem and left_a > 0:
        running = tuple(rem)
        sl_q = max([sl_cos_a[k] for k in running])
        rate_a = 1.0 / (primary.self_slowdown * sl_q)
        # The next termination: the primary or a matched job.
        t = min(left_a / rate_a, *[rem[k] / rate[k] for k in running])
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
@dataclass(slots=True)  # not frozen: see Member
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

    Where §4.5 is silent (readings, see :data:`READINGS`): ``window_fill``
    "consecutive" (a window holds consecutive jobs, Fig. 4) or "first_fit"
    (it skips a job that does not fit and goes on); ``window_filter`` True
    (windows failing MATCHED_LONGER or MIN_UTILGAIN are dropped before the
    best is chosen) or False (the best window is chosen, then must pass;
    first-match variants always take the first window that passes);
    ``other_block_windows`` True (when no window of the first block passes,
    the other blocks' windows are tried) or False (step 4 only extends the
    first block's best group).
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
    window_fill: str = "consecutive"
    window_filter: bool = True
    other_block_windows: bool = True


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


def runs_short(primary: Member, c: Candidate, rules: FormationRules) -> bool:
    """Candidate ``c`` ends at most MATCHED_LONGER after the primary's run."""
    return not c.remaining > primary.work * primary.self_slowdown + rules.matched_longer


def may_join(primary: Member, primary_nodes: int, c: Candidate, rules: FormationRules) -> bool:
    """Whether candidate ``c`` can be in a group :func:`group_offers` offers.

    Every group offered is part of one that passes its test of the members
    (each within MATCHED_LONGER of the primary's run; their nodes :func:`fits`),
    so ``c`` alone must pass those tests: the same comparisons, one job.

    Examples
    --------
    >>> a = Member(9, size=4, work=100.0)
    >>> m = Member(1, 2, 1.0)
    >>> rules = FormationRules(matched_longer=50.0, matched_larger=0.5)
    >>> may_join(a, 2, Candidate(m, 3, order=0, remaining=150.0), rules)
    True
    >>> may_join(a, 2, Candidate(m, 3, order=0, remaining=151.0), rules)   # runs too long
    False
    >>> may_join(a, 2, Candidate(m, 4, order=0, remaining=1.0), rules)     # too wide
    False
    """
    return runs_short(primary, c, rules) and fits(primary_nodes, [c], rules)


def windows(primary_nodes: int, block: list[Candidate], rules: FormationRules) -> list[list[Candidate]]:
    """Step 3: the window of the primary's node count sliding over a block (Fig. 4).

    From each position, consecutive jobs are taken while their nodes stay
    within the window (the last may overshoot by MATCHED_LARGER); a position
    whose job cannot fit at all starts no window. With ``window_fill``
    "first_fit" a job that does not fit is skipped and the next ones are
    tried. Pairs-only variants take one job.

    Examples
    --------
    >>> m = Member(0, 1, 1.0)
    >>> b = [Candidate(m, n, order=i, remaining=0.0) for i, n in enumerate([2, 3, 4, 1])]
    >>> [[c.order for c in w] for w in windows(5, b, FormationRules(matched_larger=0.2))]
    [[0, 1], [1], [2, 3], [3]]
    >>> rules = FormationRules(matched_larger=0.2, window_fill="first_fit")
    >>> [[c.order for c in w] for w in windows(5, b, rules)]
    [[0, 1, 3], [1, 3], [2, 3], [3]]
    """
    out = []
    limit = rules.max_matched or len(block)
    cap = primary_nodes * (1.0 + rules.matched_larger)   # fits(), with a running sum
    skip = rules.window_fill == "first_fit"
    for i in range(len(block)):
        group: list[Candidate] = []
        nodes = 0
        for c in itertools.islice(block, i, None):
            if len(group) == limit:
                break
            if nodes + c.nodes > cap:
                if skip and group:
                    continue
                break
            group.append(c)
            nodes += c.nodes
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


class _Scoring:
    """The gains and tests of one primary's candidate groups (:func:`group_offers`).

    ``runs`` memoizes :func:`utilization_gain` by the members' keys: the same
    group is scored by the tests, the choice, purify and the order of step 6.
    """

    def __init__(self, primary: Member, primary_nodes: int, rules: FormationRules, runs: dict):
        self.primary, self.primary_nodes, self.rules, self.runs = primary, primary_nodes, rules, runs

    def gain(self, ms) -> float:
        key = tuple(c.member.key for c in ms)
        run = self.runs.get(key)
        if run is None:
            run = self.runs[key] = utilization_gain(self.primary, [c.member for c in ms])
        return run.gain

    def ok(self, ms) -> bool:
        """May ``ms`` be a group: it fits, every member within MATCHED_LONGER, MIN_UTILGAIN."""
        if not ms or not fits(self.primary_nodes, ms, self.rules):
            return False
        if not all(runs_short(self.primary, c, self.rules) for c in ms):
            return False
        return self.gain(ms) >= self.rules.min_gain

    def best(self, ws):
        """The window of highest gain (ties: the one starting earlier in FCFS order)."""
        return max(ws, key=lambda w: (self.gain(w), -min(c.order for c in w)))

    def passing(self, ws):
        """Step 3's windows that may be groups: every one that passes (``window_filter``,
        and always for first-match variants), or the best by gain if it passes."""
        if self.rules.window_filter or self.rules.first_match:
            return [w for w in ws if self.ok(w)]
        if not ws:
            return []
        best = self.best(ws)
        return [best] if self.ok(best) else []

    def extend(self, best, blocks) -> list:
        """Step 4: ``best`` and every group made from it by adding a job of ``blocks``
        that raises the gain, in the order found."""
        rules = self.rules
        found = [best]
        if rules.first_block_only or (rules.max_matched or 2) <= 1:
            return found
        group = list(best)
        for block in blocks:
            for c in block:
                if rules.max_matched and len(group) >= rules.max_matched:
                    break
                trial = group + [c]
                if self.ok(trial) and self.gain(trial) > self.gain(group):
                    group = trial
                    found.append(list(group))
        return found


def group_offers(primary: Member, primary_nodes: int, cands: list[Candidate], rules: FormationRules,
                 runs: dict | None = None) -> list[list[Candidate]]:
    """Steps 2-5 of §4.5: the groups offered to the fairness check, in the order offered.

    Groups are scored by :func:`utilization_gain`; those below MIN_UTILGAIN,
    or whose matched jobs run more than MATCHED_LONGER past the primary, are
    dropped. The best group of the first block's windows is extended from
    the other blocks while that raises the gain, every improvement kept
    (step 4); each kept group is purified (step 5); they are offered in
    decreasing order of gain, or (first-match variants) in the order found.

    A function of its arguments only (``runs`` is a memo): a caller whose
    candidates have not changed may keep the answer. ``runs``, when given,
    receives the :class:`GroupRun` of every group scored, by its members'
    keys in order.
    """
    sc = _Scoring(primary, primary_nodes, rules, {} if runs is None else runs)
    blocks = make_blocks(cands, rules)
    if not blocks:
        return []
    first = sc.passing(windows(primary_nodes, blocks[0], rules))
    if rules.first_match:
        found = first
    else:
        found = sc.extend(sc.best(first), blocks[1:]) if first else []
    if not found and not rules.first_block_only and rules.other_block_windows:
        # No window of the first block qualifies: the other blocks' windows.
        for block in blocks[1:]:
            found += sc.passing(windows(primary_nodes, block, rules))
            if found and rules.first_match:
                break
    groups = [purify(primary, g, sc.gain) for g in found]
    return groups if rules.first_match else sorted(groups, key=lambda g: -sc.gain(g))


def form_groups(primary: Member, primary_nodes: int, cands: list[Candidate], rules: FormationRules,
                *, fair=lambda group: True, counters: dict | None = None,
                runs: dict | None = None, offers: list | None = None) -> list[Candidate] | None:
    """Steps 2-6 of §4.5: the group to run with ``primary``, or None.

    ``cands`` are the pre-selected candidates (step 1). The groups of
    :func:`group_offers` (``offers``, when the caller kept them for these
    candidates) are offered to ``fair`` in its order (step 6, the fairness
    check); the first that passes is the group. ``runs``: as in
    :func:`group_offers` (``fair`` and the caller plan with them).
    """
    if counters is not None:
        counters.setdefault("candidates", []).append(len(cands))
    if offers is None:
        offers = group_offers(primary, primary_nodes, cands, rules, runs)
    for g in offers:
        if fair(g):
            return g
    return None


# ------------------------------------------------------------------ the policy
#: The variants of §5.1 as formation switches (SSP is the space-sharing policy).
VARIANTS: dict[str, dict] = {
    "GLTS": {},
    "FBO": {"first_block_only": True},
    "NS": {"sort_blocks": False},
    "NH": {"blocks": False, "sort_blocks": False, "first_match": True},
    "CST": {"max_matched": 1},
    "CSTWS": {"max_matched": 1, "first_match": True},
}


#: Readings of §4.4-§4.9 where our code could depart from the text: parameter
#: -> (default, what the other value does). The defaults follow the text
#: where it is explicit, unless another sentence of the paper supports the
#: other reading; where it is silent we chose (paper_figures/zeng/README.md
#: quotes the sentences; config/grids/zeng.yaml runs every alternative).
READINGS: dict[str, tuple] = {
    # §4.5 step 1 names no threshold: MAX_SL ("Maximum slowdown that a job
    # should experience", Table 6), both ways ("do not slow down each
    # other"); a number sets another threshold (inf: no pre-selection).
    "preselect_sl": (None, "another step-1 threshold"),
    # §4.5 step 3 (silent): windows of consecutive jobs, or first fit.
    "window_fill": ("consecutive", "first_fit: a window skips a job that does not fit"),
    # §4.5 step 3 (silent): MATCHED_LONGER and MIN_UTILGAIN drop windows
    # before the best is chosen, or the best is chosen and then tested.
    "window_filter": (True, "the best window by gain, then tested"),
    # §4.5 (silent): the other blocks' windows when the first block has none.
    "other_block_windows": (True, "only step 4 reaches the other blocks"),
    # §4.5 step 6 says "any other job"; §4.1 asks R_i <= R_max,i of every job.
    "fairness_members": (True, "step 6 checks only the jobs outside the group"),
    # §4.4: Case 4 only when Cases 1-3 and 5 all fail.
    "case4_last": (True, "Case 4 competes with the other cases on gain"),
    # §4.3: space sharing chooses its PPN by "a threshold on acceptable self
    # slowdown": Case 5 (PPN 4) fails above MAX_SL, as formula 8 has it.
    "case5_max_sl": (True, "Case 5 at any self slowdown, on gain"),
    # §4.4: "a job may be matched more than once over its runtime".
    "rematch": (True, "a job that was in a group is never matched again"),
    # §4.7: "Groups are preempted and resumed as well as non-type slice
    # backfilled like individual jobs".
    "group_non_type_backfilling": (True, "group members are never non-type backfilled"),
    # Formula 6 has no self slowdown; §4.9 says the processes of one job on a
    # node (different CPUs) slow it down by SL_sno: kept in a group.
    "group_self_slowdown": (True, "formula 6 as printed: members slowed by SL_cos only"),
    # Fig. 3 is not in our copy: off, non-type backfilling may start a waiting
    # job before its own virtual machine's matchmaking has seen it.
    "matchmaking_first": (False, "a waiting job is non-type backfilled only after "
                                 "its virtual machine's matchmaking has seen it"),
}


class GLomarcTS(ScojoPECT):
    """G-LOMARC-TS inside each Scojo-PECT virtual machine (paper Z §4.2-§4.7): Cases 1-5.

    The order of tests (Fig. 3 is not in our copy; reconstructed from
    §4.3-§4.4), at every scheduling round of a medium or long slice::

        if no whole node is free now (counting those of jobs due now):
           only the head's Cases 3 and 2 (they use the idle cores of
           running jobs' nodes); then go to the last step
        if the virtual machine's load is low (its waiting jobs' processes
           fit its free nodes at one process per node): space sharing only
        for each waiting job J in FCFS order (the first: the head; the
           others: backfilling, where the paper also applies only Cases 1,
           4 and 5), while whole nodes are free:
            Case 5: J at 4 processes per node on whole nodes free now for its
                    whole planned run, if SL_scr SL_sno <= MAX_SL (§4.3's
                    threshold); gain 4 / (SL_scr SL_sno) - 1
            Case 2 (head only): J primary on the idle core of each CPU of
                    running jobs' nodes (running jobs not in a group, at
                    PPN <= 2; also those a disbanded group left: §4.4)
            Case 3 (head only): a running primary, J among its matched jobs
            Case 1: J primary at PPN 2 (1 if SL_sno > SELF_SL2) with other
                    waiting jobs of its type matched on the other halves of
                    its nodes: candidates pre-selected by SL_cos <= MAX_SL
                    both ways, groups by steps 2-6 (form_groups), needing
                    max(J's nodes, matched nodes) whole nodes free now for
                    the group's planned run; gain by formula 6
            take the option of highest gain among Cases 1-3 and 5 (a group
               needs MIN_UTILGAIN and every member's predicted response
               within F_slack x R_est); none: Case 4, J keeps its
               reservation (space sharing at its formula-8 PPN)
        last: start every job whose reservation is due (conservative
           backfilling, as SSP)

    Short jobs are only space-shared. A group runs as a whole: each member
    at ``1 / (self slowdown x SL_cos)`` (the primary at its worst SL_cos
    with the matched jobs running); when a matched job ends the primary's
    pace is recomputed; when the primary ends, or the last matched job, the
    group is disbanded and the others go on at their self slowdown (§4.4).
    A suspended group is non-type slice backfilled like a job (§4.7): all
    its members resume together, or none. Groups take holes of the
    conservative plan, so no queued job's reservation moves later.

    Each place where this reading of the text could be another is a
    parameter (:data:`READINGS`); the flow above is the main reading's.

    Case 3 (``case3``, for the head job): a running job not in a group, at
    PPN <= 2 (the ``RUNNING_PRIM_NUM`` least delayed by their predicted
    response over R_est) becomes the primary of a group whose matched jobs,
    the head among them, take the other core of each CPU of its nodes; its
    pace drops to its worst SL_cos and the plan is rebuilt and checked.

    Case 2 (``case2``, for the head job): the head is the primary, on the
    idle core of each CPU of the nodes of running jobs (alone at PPN <= 2,
    sorted by increasing delay), which become its matched jobs and slow down.

    Serial jobs need no rule of their own here: a serial primary takes one
    half node and is matched like any other (§4.5's special treatment of
    serial bursts is not described in our copy). The study ``zeng`` runs
    it (``simlib.studies.zeng.runs``, Figs. 6-7 and §5.2's numbers).

    Jobs need ``features["sl_cos"]``, a callable ``(job_id_a, job_id_b) ->
    SL_cos`` of ``a`` coscheduled with ``b``.
    """

    name = "glomarc_ts"
    paper = "zeng: Zeng & Sodan §4.2-§4.7 (G-LOMARC-TS on Scojo-PECT)"
    description = ("G-LOMARC-TS group matchmaking with fairness per Scojo-PECT virtual machine "
                   "(variants GLTS, CST, CSTWS, FBO, NS, NH)")
    units_per_node = 2
    defaults = {**ScojoPECT.defaults, "variant": "GLTS", "block_size": 16,
                "matched_larger": 0.125, "matched_longer": 3000.0, "min_utilgain": 0.45,
                "f_slack": 1.5, "replan": True, "case2": True, "case3": True,
                "running_prim_num": 8, **{k: v for k, (v, _) in READINGS.items()}}

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        if p["variant"] not in VARIANTS:
            raise ConfigError(f"{self.name}: parameter variant must be one of "
                              f"{', '.join(VARIANTS)}; not {p['variant']!r}")
        if p["block_size"] < 1:
            raise ConfigError(f"{self.name}: parameter block_size must be >= 1")
        for key in ("matched_larger", "matched_longer", "f_slack"):
            if not p[key] >= 0:
                raise ConfigError(f"{self.name}: parameter {key} must be >= 0")
        if p["window_fill"] not in ("consecutive", "first_fit"):
            raise ConfigError(f"{self.name}: parameter window_fill must be consecutive or first_fit; "
                              f"not {p['window_fill']!r}")
        if p["preselect_sl"] is not None and (isinstance(p["preselect_sl"], bool)
                                              or not isinstance(p["preselect_sl"], (int, float))
                                              or not p["preselect_sl"] > 0):
            raise ConfigError(f"{self.name}: parameter preselect_sl must be > 0 or null (MAX_SL)")
        self.rules = FormationRules(block_size=int(p["block_size"]),
                                    matched_larger=float(p["matched_larger"]),
                                    matched_longer=float(p["matched_longer"]),
                                    min_gain=float(p["min_utilgain"]),
                                    window_fill=p["window_fill"], window_filter=bool(p["window_filter"]),
                                    other_block_windows=bool(p["other_block_windows"]),
                                    **VARIANTS[p["variant"]])
        self.preselect_sl = float(p["max_sl"] if p["preselect_sl"] is None else p["preselect_sl"])

    def attach(self, sim):
        super().attach(sim)
        for job in sim.jobs:
            if not callable(job.features.get("sl_cos")):
                raise ConfigError(f"{self.name}: job {job.job_id} has no coscheduling slowdowns "
                                  "(features sl_cos)")
        #: job idx -> group id; group id -> [primary idx, set of matched idx]
        self.group_of: dict[int, int] = {}
        self.groups: dict[int, list] = {}
        self.group_sizes: list[int] = []
        self.grouped: set[int] = set()
        self.counters = {"candidates": [], "no_room": 0, "unfair": 0, "replans": 0,
                         "nontype_before_matchmaking": 0}
        #: virtual machine -> wall time of its last matchmaking round
        self._last_round: dict[str, float] = {}
        self.case5 = 0
        self.case3 = 0
        self.case2 = 0
        self._head = None
        #: (vm, v, running members) -> (the plan of running jobs and guests,
        #: the waiting jobs) for _replan, until an option runs
        self._plan_base: dict[tuple, tuple[PlacementProfile, list[tuple]]] = {}
        # Rebuilt plans are only checked (most fail step 6): masks, not
        # Allocations, and the node choice's refusals remembered.
        self._checked_choice = PlanChoice(self.node_choice)
        #: first unit of every node (whole-node tests)
        self._unit_firsts = self.node_choice._firsts(self.unit_platform.cpus)
        #: primary idx -> {waiting job idx -> None when step 1 refuses the
        #: pair, else (SL_cos of the primary with the job, the job as a
        #: matched Member, its nodes)}: fixed per pair, and a primary meets
        #: the same waiting jobs round after round. A job's own entry goes
        #: when it ends.
        self._pairs: dict[int, dict[int, tuple[float, Member, int] | None]] = {}
        #: primary idx -> (ids of the waiting jobs it was last offered, their
        #: candidates, its SL_cos with each): the queue is often unchanged
        #: from one round to the next (read only: form_groups changes no
        #: candidate).
        self._candidates: dict[int, tuple[tuple[int, ...], list[Candidate], dict]] = {}
        #: primary idx -> {member keys -> GroupRun} (see _case1)
        self._group_runs: dict[int, dict[tuple[int, ...], GroupRun]] = {}
        #: primary idx -> (its candidates, their keys, the groups group_offers
        #: made of them) (see _case1)
        self._offers: dict[int, tuple[list[Candidate], tuple[int, ...], list[list[Candidate]]]] = {}
        #: primary idx -> {member keys -> (plan, primary's and matched jobs'
        #: planned runs, extra nodes, member jobs)} (see _case1)
        self._group_plans: dict[int, dict[tuple[int, ...], tuple]] = {}

    # ------------------------------------------------------------ helpers
    def _sl_cos(self, a: Job, b: Job) -> float:
        return float(a.features["sl_cos"](a.job_id, b.job_id))

    def _cos_ppn(self, job: Job) -> int:
        f = job.features
        return 2 if job.procs > 1 and f["sl_sno"] <= self.params["self_sl2"] else 1

    def _self_at(self, job: Job, ppn: int) -> float:
        return self_slowdown(ppn, job.features["sl_scr"], job.features["sl_sno"])

    def _group_self(self, job: Job, ppn: int) -> float:
        """A member's self slowdown while in a group: at its PPN there (§4.9), or
        none (``group_self_slowdown`` off: formula 6 as printed)."""
        return self._self_at(job, ppn) if self.params["group_self_slowdown"] else 1.0

    def _cores(self, job, nodes, layer):
        if job.idx not in self.group_of:
            return super()._cores(job, nodes, layer)
        # One core of each CPU per unit: side s of node n is cores 4n+s, 4n+2+s.
        ppn = self.plan[job.idx][1]
        left, out = job.procs, []
        cpn = int(self.sim.platform.cores_per_node[0])
        half = cpn // 2
        for unit in nodes.cores:
            n, side = divmod(unit, 2)
            take = min(ppn, left)
            out += [n * cpn + side, n * cpn + half + side][:take]
            left -= take
        off = layer * self.cpus
        return [c + off for c in out]

    def _guest_unit(self, job):
        gid = self.group_of.get(job.idx)
        if gid is None:
            return [job]
        if not self.params["group_non_type_backfilling"]:
            return []   # their pace assumes their partners run
        # §4.7: a group is non-type backfilled like a job: all its members or none.
        primary, matched = self.groups[gid]
        jobs = self.sim.jobs
        members = [jobs[i] for i in (primary, *sorted(matched))]
        if any(j.state != SUSPENDED for j in members):
            return []
        return members

    def _seen(self, job) -> bool:
        """Whether a matchmaking round of ``job``'s own virtual machine has seen it:
        one has run since its submission (while it waits, it is in that queue)."""
        return self._last_round.get(self.plan[job.idx][0], -1.0) >= job.submit

    def _may_backfill(self, job):
        # A job of a matched type that its own virtual machine's matchmaking
        # has not yet seen waits for it when matchmaking has the first look.
        if self.plan[job.idx][0] == "short" or not self.params["matchmaking_first"]:
            return True
        return self._seen(job)

    def _backfilled(self, job):
        if self.plan[job.idx][0] != "short" and not self._seen(job):
            self.counters["nontype_before_matchmaking"] += 1

    def _free_whole_nodes(self, vm, v: float, dur: float) -> int:
        """Mask of units of the nodes wholly free in ``vm``'s plan for ``[v, v+dur)`` and idle now."""
        hole = vm.profile.hole(v, dur) & ~self.busy_units
        return hole & (hole >> 1) & self._unit_firsts

    def _given_back(self, vm, members, v: float) -> list[tuple[float, float, int]]:
        """What releasing ``members``' reservations in ``vm``'s plan would give
        back (the part not yet past), for :meth:`PlacementProfile.hole_given_back`."""
        prof = vm.profile
        given = []
        for job in members:
            old, alloc = self.reservation[job.idx]
            start, end = max(old, v, prof.times[0]), old + self.plan[job.idx][3]
            if end > start:
                given.append((start, end, alloc.mask))
        return given

    def _hole_without(self, vm, given, v: float, dur: float) -> int:
        """Whole nodes (first-unit bits) free in ``vm``'s plan for ``[v, v+dur)`` and
        idle now, with the reservations ``given`` (:meth:`_given_back`) given back."""
        hole = vm.profile.hole_given_back(v, dur, given) & ~self.busy_units
        return hole & (hole >> 1) & self._unit_firsts

    # ------------------------------------------------------------ scheduling
    def _start_due(self, vm, now):
        # Matchmaking first: a job due now may start in a group (or at
        # PPN 4) instead of alone; the jobs left start as SSP would (Case 4).
        if vm.name != "short":
            self._matchmake(vm, now)
        super()._start_due(vm, now)

    def _matchmake(self, vm, now):
        v = vm.vnow(now)
        queue = [j for j in vm.queue if j.state == WAITING]
        if not queue:
            return
        # Matchmaking has looked at every job waiting now (at low load it
        # decides for space sharing; with no whole node free, the head only).
        self._last_round[vm.name] = now
        self._plan_base = {}   # the rebuilt plans' common part, until an option runs
        def free_now():
            # Whole nodes free now, counting those of jobs due now (they may
            # start in another way than planned).
            due = [j for j in vm.queue if j.state == WAITING and self.reservation[j.idx][0] <= v + 1e-6]
            return self._hole_without(vm, self._given_back(vm, due, v), v, 1e-9).bit_count()

        free = free_now()
        if not free:
            # No whole node free: Cases 1, 4 and 5 cannot start anything, but
            # the head may still run on the idle cores of running jobs' nodes.
            self._head = queue[0]
            best = self._best_option(vm, queue[0], queue[1:], v, now, whole_nodes=False)
            if best is not None:
                best()
                self._plan_base = {}
                vm.queue = [j for j in vm.queue if j.state == WAITING]
            return
        # Low load: every waiting job fits at one process per node.
        if sum(j.procs for j in queue) <= free:
            return
        started = False
        self._head = queue[0]
        waiting = None  # the jobs still waiting, made again after an option runs
        for job in queue:
            if job.state != WAITING:
                continue
            if started and free_now() == 0:
                break
            if waiting is None:
                waiting = [j for j in queue if j.state == WAITING]
                position = {j.idx: i for i, j in enumerate(waiting)}
            i = position[job.idx]
            others = waiting[:i] + waiting[i + 1:]
            best = self._best_option(vm, job, others, v, now)
            if best is not None:
                best()
                self._plan_base = {}
                started = True
                waiting = None
        if started:
            vm.queue = [j for j in vm.queue if j.state == WAITING]

    def _best_option(self, vm, job, others, v, now, whole_nodes=True):
        options = []
        if whole_nodes:
            self._whole_node_options(vm, job, others, v, now, options)
        # Case 3 (the head only): a running primary, this job among the matched.
        if self.params["case3"] and self._head is job:
            group = self._case3(vm, job, others, v, now)
            if group is not None:
                options.append(group)
        # Case 2 (the head only): this job the primary, running jobs matched.
        if self.params["case2"] and self._head is job:
            group = self._case2(vm, job, v, now)
            if group is not None:
                options.append(group)
        if not options:
            return None
        # Ties: the first option (Case 4, when it competes, before 5 before 1:
        # space sharing first).
        return max(options, key=lambda o: o[0])[1]

    def _whole_node_options(self, vm, job, others, v, now, options):
        """Cases 4, 5 and 1: the options that need whole nodes free now."""
        # The job's own reservation is given back (Cases 5 and 1 replace it).
        given = self._given_back(vm, [job], v)
        # Whole nodes free now: Case 1 needs that many for its primary, and
        # Case 5's hole over its run lies within this one (a longer window
        # keeps fewer cores free), so too few now rule Case 5 out as well.
        whole_now = self._hole_without(vm, given, v, 1e-9).bit_count()
        if self.reservation[job.idx][0] <= v + 1e-6 and not self.params["case4_last"]:
            # Case 4, due now: space sharing at its formula-8 PPN, gain PPN / SL - 1.
            ppn = self.plan[job.idx][1]
            options.append((ppn / self._self_at(job, ppn) - 1.0, None))
        # Case 5: space sharing on all cores of each node; read with §4.3 ("a
        # threshold on acceptable self slowdown"), it fails beyond MAX_SL.
        slow4 = self._self_at(job, 4)
        if job.procs > 1 and not (self.params["case5_max_sl"] and slow4 > self.params["max_sl"]):
            dur = job.requested_time * slow4
            nodes = -(-job.procs // 4)
            late = (self._wall_of(vm, v + dur, now) - job.submit
                    > self.params["f_slack"] * self.r_est[job.idx] + 1e-6)
            if late:  # step 6 for the job itself: slower at 4 per node than R_max allows
                self.counters["unfair"] += 1
            elif whole_now >= nodes:
                whole = self._hole_without(vm, given, v, dur)
                if whole.bit_count() >= nodes:
                    gain = 4.0 / slow4 - 1.0
                    options.append((gain, lambda: self._run_case5(vm, job, whole, nodes, dur, v)))
        # Case 1: a group of waiting jobs around this one.
        group = self._case1(vm, job, others, v, now, given, whole_now)
        if group is not None:
            options.append(group)

    def _waiting_candidates(self, primary, waiting):
        """Step 1 for ``primary`` among waiting jobs: those with SL_cos <= MAX_SL
        both ways, as candidates (FCFS rank ``order``, at their own
        coscheduling PPN), and the primary's SL_cos with each, by key."""
        key = tuple([j.idx for j in waiting])
        last = self._candidates.get(primary.idx)
        if last is not None and last[0] == key:
            return last[1], last[2]
        max_sl = self.preselect_sl
        pairs = self._pairs.get(primary.idx)
        if pairs is None:
            pairs = self._pairs[primary.idx] = {}
        # A candidate is fixed but for its rank: the last ones are kept where
        # the rank is the same (jobs leave the queue and join at its end).
        before = {c.member.key: c for c in last[1]} if last is not None else {}
        cands, sl_a = [], {}
        for order, j in enumerate(waiting):
            pair = pairs.get(j.idx, False)
            if pair is False:
                pair = pairs[j.idx] = self._pair(primary, j, max_sl)
            if pair is None:
                continue
            ab, member, nodes = pair
            sl_a[j.idx] = ab
            c = before.get(j.idx)
            if c is None or c.order != order:
                c = Candidate(member, nodes, order=order, remaining=member.work * member.self_slowdown)
            cands.append(c)
        self._candidates[primary.idx] = (key, cands, sl_a)
        return cands, sl_a

    def _pair(self, primary, j, max_sl):
        """Step 1 for one pair, drawn once: see ``_pairs``."""
        ab = self._sl_cos(primary, j)
        if ab > max_sl:
            return None
        ba = self._sl_cos(j, primary)
        if ba > max_sl:
            return None
        ppn = self._cos_ppn(j)
        return ab, Member(j.idx, j.procs, j.requested_time, self._group_self(j, ppn),
                          {primary.idx: ba}, ppn), -(-j.procs // ppn)

    def _case1(self, vm, primary, others, v, now, given, whole_now):
        """Case 1: ``primary`` with waiting jobs matched (steps 1-6 of §4.5);
        ``given``: its own reservation as :meth:`_given_back` gives it back;
        ``whole_now``: the whole nodes free now with it given back."""
        ppn_a = self._cos_ppn(primary)
        nodes_a = -(-primary.procs // ppn_a)
        if nodes_a > whole_now:
            return None
        cands, sl_a = self._waiting_candidates(primary, others)
        if not cands:
            self.counters["candidates"].append(0)
            return None
        jobs = self.sim.jobs
        a = Member(primary.idx, primary.procs, primary.requested_time, self._group_self(primary, ppn_a),
                   sl_a, ppn_a)
        chosen = {}
        # form_groups' GroupRun of each group it scored: a function of the
        # members' fixed numbers only, so kept for the primary's later rounds.
        runs = self._group_runs.setdefault(primary.idx, {})
        offers = self._case1_offers(a, nodes_a, cands, runs)
        # Each group's plan, durations and members: fixed too, by member keys.
        fixed = self._group_plans.setdefault(primary.idx, {})

        def fair(group):
            key = tuple([c.member.key for c in group])
            known = fixed.get(key)
            if known is None:
                plan = self._group_plan(a, group, runs.get(key))
                known = fixed[key] = (plan, plan[primary.idx][0], max(plan[k][0] for k in key),
                                      max(0, sum(c.nodes for c in group) - nodes_a),
                                      [primary, *(jobs[k] for k in key)])
            plan, dur_a, dur_m, extra, members = known
            # The members' own reservations are given up for the group's.
            given = self._given_back(vm, members, v)
            prim, spare = self._case1_nodes(vm, given, v, dur_a, dur_m, nodes_a)
            fits_plan = prim.bit_count() >= nodes_a and spare.bit_count() >= extra
            if not fits_plan:
                if not self.params["replan"]:
                    self.counters["no_room"] += 1
                    return False
                # Nodes idle now; the plan of the others is rebuilt around
                # the group and checked against R_max (step 6).
                prim, spare = self._case1_nodes(vm, given, v, 1e-9, 1e-9, nodes_a)
                if prim.bit_count() < nodes_a or spare.bit_count() < extra:
                    self.counters["no_room"] += 1
                    return False
            units = self._member_units(primary, members[1:], plan, lowest_bits(prim, nodes_a),
                                       lowest_bits(spare, extra) if extra else 0)
            if self._past_slack(vm, plan, v, now):
                return False
            replan = None
            if not fits_plan:
                replan = self._replan(vm, units, plan, v, now)
                if replan is None:
                    self.counters["unfair"] += 1
                    return False
            chosen.update(plan=plan, units=units, replan=replan)
            return True

        group = form_groups(a, nodes_a, cands, self.rules, fair=fair, counters=self.counters,
                            runs=runs, offers=offers)
        if group is None:
            return None
        gain = runs[tuple(c.member.key for c in group)].gain
        return gain, lambda: self._run_group(vm, primary, [jobs[c.member.key] for c in group],
                                             chosen, v)

    def _case1_offers(self, a, nodes_a, cands, runs):
        """The groups :func:`group_offers` offers primary ``a`` (steps 2-5), kept per primary.

        They depend on the candidates only (``a`` is fixed per primary, a
        candidate per pair but for its rank, which only orders them): the
        same jobs as candidates, in the same order, are offered the same
        groups.
        """
        last = self._offers.get(a.key)
        if last is not None and last[0] is cands:
            return last[2]
        keys = tuple([c.member.key for c in cands])
        if last is not None and last[1] == keys:
            offers = last[2]
        else:
            offers = group_offers(a, nodes_a, cands, self.rules, runs)
        self._offers[a.key] = (cands, keys, offers)
        return offers

    def _case1_nodes(self, vm, given, v, dur_a, dur_m, nodes_a):
        """Nodes a Case 1 group may take from ``v`` (first-unit bits, idle now, the
        reservations ``given`` given back): ``(primary's, extra)``.

        The primary takes unit 0 of its nodes for its run (``dur_a``), the
        matched jobs unit 1 of them, then of extra nodes, for theirs (the
        longest, ``dur_m``); extra nodes are those left besides the primary's
        ``nodes_a`` lowest.
        """
        idle = ~self.busy_units
        h_a = vm.profile.hole_given_back(v, dur_a, given) & idle
        h_m = h_a if dur_m == dur_a else vm.profile.hole_given_back(v, dur_m, given) & idle
        firsts = self._unit_firsts
        prim = h_a & (h_m >> 1) & firsts
        spare = (h_m >> 1) & firsts & ~(lowest_bits(prim, nodes_a) if prim else 0)
        return prim, spare

    def _past_slack(self, vm, plan, v, now):
        """Step 6: whether a job of ``plan`` (its duration in ``vm``'s time from ``v``,
        by job) would end more than F_slack x R_est after its submission;
        counted as unfair."""
        if not self.params["fairness_members"]:
            return False   # step 6 as printed: only jobs outside the group ("any other job")
        jobs, r_est = self.sim.jobs, self.r_est
        f_slack = self.params["f_slack"]
        for idx, (dur, _) in plan.items():
            if self._wall_of(vm, v + dur, now) - jobs[idx].submit > f_slack * r_est[idx] + 1e-6:
                self.counters["unfair"] += 1
                return True
        return False

    def _case3(self, vm, head, others, v, now):
        """Case 3: a running job (alone on its nodes at PPN <= 2) becomes the
        primary of a group whose matched jobs, the head among them, take the
        other core of each CPU of its nodes. Its pace drops to its worst
        SL_cos; the plan of the others is rebuilt and checked (step 6)."""
        waiting = [head, *others]
        running = []
        for r in vm.held.values():
            # Alone on whole nodes: never grouped (a disbanded member holds half nodes).
            if r.state != RUNNING or self._halves(r) is None:
                continue
            end = self._wall_of(vm, self.reservation[r.idx][0], now)
            running.append(((end - r.submit) / max(self.r_est[r.idx], 1e-9), r.idx, r))
        running.sort(key=lambda x: x[:2])   # least delayed first (§4.5)
        best = None
        for _, _, r in running[:int(self.params["running_prim_num"])]:
            ppn_r = self.plan[r.idx][1]
            own, spare_r = self._halves(r)
            nodes_r = len(own)
            rem = max(0.0, r.requested_time - self.sim.work_done(r))
            if rem <= 0:
                continue
            cands, sl_r = self._waiting_candidates(r, waiting)
            if head.idx not in sl_r:
                continue
            a = Member(r.idx, r.procs, rem, self._group_self(r, ppn_r), sl_r, ppn_r)
            if not may_join(a, nodes_r, cands[0], self.rules):  # cands[0]: the head's (FCFS rank 0)
                # No group offered holds the head, and fair turns down every
                # group without it: form_groups would only count the candidates.
                self.counters["candidates"].append(len(cands))
                continue
            jobs = {j.idx: j for j in waiting}
            unit0 = Allocation.of(self.unit_platform, own)
            chosen = {}

            def fair(group, r=r, a=a, jobs=jobs, unit0=unit0, nodes_r=nodes_r, chosen=chosen,
                     spare_r=spare_r):
                if head.idx not in {c.member.key for c in group}:
                    return False
                if sum(c.nodes for c in group) > nodes_r:
                    self.counters["no_room"] += 1
                    return False
                plan = self._group_plan(a, group)
                spare = list(spare_r)
                units = {r.idx: unit0}
                for c in group:
                    units[c.member.key], spare = (Allocation.of(self.unit_platform, spare[:c.nodes]),
                                                  spare[c.nodes:])
                if self._past_slack(vm, plan, v, now):
                    return False
                members = [jobs[c.member.key] for c in group]
                back = []
                for j in members:   # their reservations are replaced by the group's
                    old, alloc = self.reservation[j.idx]
                    start, end = max(old, v), old + self.plan[j.idx][3]
                    if end > start:
                        _release(vm.profile, start, end, alloc)
                        back.append((start, end, alloc))
                try:
                    replan = self._replan(vm, units, plan, v, now)
                finally:
                    for start, end, alloc in back:
                        vm.profile.reserve(start, end, alloc)
                if replan is None:
                    self.counters["unfair"] += 1
                    return False
                chosen.update(plan=plan, units=units, replan=replan, members=members)
                return True

            group = form_groups(a, nodes_r, cands, self.rules, fair=fair, counters=self.counters)
            if group is None:
                continue
            gain = utilization_gain(a, [c.member for c in group]).gain
            if best is None or gain > best[0]:
                best = (gain, r, dict(chosen))
        if best is None:
            return None
        gain, r, chosen = best
        return gain, lambda: self._run_case3(vm, r, chosen, v)

    def _alone_running(self, vm):
        """Running jobs not in a group, at PPN <= 2, with the other core of each of
        their CPUs free (:meth:`_halves`)."""
        return [r for r in vm.held.values()
                if r.state == RUNNING and self._halves(r) is not None]

    def _halves(self, r: Job) -> tuple[list[int], list[int]] | None:
        """A running job's units in a group with it and the units its partners
        would take (the other core of each of its CPUs), or None if it cannot
        be matched now.

        A job alone on whole nodes keeps unit 0 of each and gives up unit 1.
        A job left from a disbanded group holds one unit per node; with
        ``rematch`` (§4.4: "a job may be matched more than once over its
        runtime") it may be matched again when the other units are idle.
        """
        if r.idx in self.group_of or self.plan[r.idx][1] > 2:
            return None
        if r.idx not in self.grouped:   # never grouped: alone on whole nodes
            held = self.units[r.idx].cores
            return held[0::2], held[1::2]
        if not self.params["rematch"]:
            return None
        held = self.units[r.idx].cores
        mine = set(held)
        own = [u for u in held if u % 2 == 0 or (u ^ 1) not in mine]
        spare = [u ^ 1 for u in own]
        idle = ~self.busy_units
        if any(u not in mine and not (idle >> u) & 1 for u in spare):
            return None
        return own, spare

    def _case2(self, vm, head, v, now):
        """Case 2: the head job the primary, on the idle core of each CPU of the
        nodes of running jobs (its matched jobs), which slow down by their
        SL_cos with it; the plan is rebuilt and checked (step 6)."""
        max_sl = self.preselect_sl
        ppn_a = self._cos_ppn(head)
        nodes_a = -(-head.procs // ppn_a)
        cands = []
        for r in self._alone_running(vm):
            if self._sl_cos(r, head) > max_sl or self._sl_cos(head, r) > max_sl:
                continue
            rem = max(0.0, r.requested_time - self.sim.work_done(r))
            if rem <= 0:
                continue
            ppn = self.plan[r.idx][1]
            end = self._wall_of(vm, self.reservation[r.idx][0], now)
            delay = (end - r.submit) / max(self.r_est[r.idx], 1e-9)
            cands.append(Candidate(Member(r.idx, r.procs, rem, self._group_self(r, ppn),
                                          {head.idx: self._sl_cos(r, head)}, ppn),
                                   len(self._halves(r)[0]), order=r.idx,
                                   remaining=rem * self._group_self(r, ppn), delay=delay, running=True))
        if not cands:
            return None
        running = {c.member.key: self.sim.jobs[c.member.key] for c in cands}
        a = Member(head.idx, head.procs, head.requested_time, self._group_self(head, ppn_a),
                   {k: self._sl_cos(head, r) for k, r in running.items()}, ppn_a)
        chosen = {}

        def fair(group):
            if sum(c.nodes for c in group) < nodes_a:
                self.counters["no_room"] += 1
                return False   # the primary needs that many halves
            plan = self._group_plan(a, group)
            units, halves = {}, []
            for c in group:
                own, spare = self._halves(running[c.member.key])
                units[c.member.key] = Allocation.of(self.unit_platform, own)
                halves += spare
            units[head.idx] = Allocation.of(self.unit_platform, halves[:nodes_a])
            if self._past_slack(vm, plan, v, now):
                return False
            old, alloc = self.reservation[head.idx]
            start, end = max(old, v), old + self.plan[head.idx][3]
            _release(vm.profile, start, end, alloc)
            try:
                replan = self._replan(vm, units, plan, v, now)
            finally:
                vm.profile.reserve(start, end, alloc)
            if replan is None:
                self.counters["unfair"] += 1
                return False
            chosen.update(plan=plan, units=units, replan=replan,
                          members=[running[c.member.key] for c in group])
            return True

        group = form_groups(a, nodes_a, cands, self.rules, fair=fair, counters=self.counters)
        if group is None:
            return None
        gain = utilization_gain(a, [c.member for c in group]).gain
        return gain, lambda: self._run_case2(vm, head, dict(chosen), v)

    def _run_case2(self, vm, head, chosen, v):
        plan, units, replan, matched = chosen["plan"], chosen["units"], chosen["replan"], chosen["members"]
        gid = head.idx
        self.groups[gid] = [head.idx, {r.idx for r in matched}]
        for j in (head, *matched):
            self.group_of[j.idx] = gid
            self.grouped.add(j.idx)
        self.group_sizes.append(1 + len(matched))
        self.case2 += 1
        for r in matched:  # each running job keeps unit 0 of its nodes, at its new pace
            self.busy_units &= ~(self.units[r.idx].mask & ~units[r.idx].mask)
            self.units[r.idx] = units[r.idx]
            dur, ppn = plan[r.idx]
            self.reservation[r.idx] = (v + dur, units[r.idx])
            self.sim.set_rate(r, 1.0 / (self._group_self(r, ppn) * self._sl_cos(r, head)))
        sl_q = max(self._sl_cos(head, r) for r in matched)
        dur, ppn = plan[head.idx]
        self._take(vm, head, units[head.idx], dur, v, ppn,
                   1.0 / (self._group_self(head, ppn) * sl_q), reserve=False)
        vm.profile = replan["profile"]
        for idx, (start, alloc) in replan["reservations"].items():
            self.reservation[idx] = (start, alloc)
            self.sim.jobs[idx].data = start
        self.counters["replans"] += 1

    def _run_case3(self, vm, r, chosen, v):
        plan, units, replan, matched = chosen["plan"], chosen["units"], chosen["replan"], chosen["members"]
        gid = r.idx
        self.groups[gid] = [r.idx, {j.idx for j in matched}]
        for j in (r, *matched):
            self.group_of[j.idx] = gid
            self.grouped.add(j.idx)
        self.group_sizes.append(1 + len(matched))
        self.case3 += 1
        # The running primary keeps only unit 0 of its nodes (its cores there).
        self.busy_units &= ~(self.units[r.idx].mask & ~units[r.idx].mask)
        self.units[r.idx] = units[r.idx]
        dur_r, ppn_r = plan[r.idx]
        self.reservation[r.idx] = (v + dur_r, units[r.idx])
        sl_q = max(self._sl_cos(r, j) for j in matched)
        self.sim.set_rate(r, 1.0 / (self._group_self(r, ppn_r) * sl_q))
        for j in matched:
            dur, ppn = plan[j.idx]
            self._take(vm, j, units[j.idx], dur, v, ppn,
                       1.0 / (self._group_self(j, ppn) * self._sl_cos(j, r)), reserve=False)
        vm.profile = replan["profile"]
        for idx, (start, alloc) in replan["reservations"].items():
            self.reservation[idx] = (start, alloc)
            self.sim.jobs[idx].data = start
        self.counters["replans"] += 1

    def _member_units(self, primary, matched, plan, prim: int, extra: int) -> dict[int, Planned]:
        """Units of each member: unit 0 of the primary's nodes for it, unit 1 of them
        (then of the extra nodes) for the matched jobs, in order.

        As masks (:class:`Planned`): the fairness check only plans with them,
        and most groups checked never run (:meth:`_run_group` makes the
        allocations of the one that does)."""
        k_a = -(-primary.procs // plan[primary.idx][1])
        out = {primary.idx: Planned(lowest_bits(prim, k_a))}
        # Unit 1 of each node: the primary's nodes first, then the extra ones
        # (each set from its lowest node; the extra nodes may lie below).
        first, then = prim << 1, extra << 1
        for j in matched:
            k = -(-j.procs // plan[j.idx][1])
            got = lowest_bits(first, k)
            first ^= got
            short = k - got.bit_count()
            if short > 0:
                more = lowest_bits(then, short)
                then ^= more
                got |= more
            out[j.idx] = Planned(got)
        return out

    def _replan(self, vm, units, plan, v, now):
        """The virtual machine's plan rebuilt with the group: running jobs, the
        group, then every other waiting job in FCFS order at its earliest
        start. None when a job's predicted response passes F_slack x R_est
        and is later than in today's plan (the group would cause it)."""
        # Running jobs and guests first: the same for every group tried until
        # an option runs (kept in _plan_base, cleared by _matchmake then), so
        # built once and copied. The order of reservations does not matter:
        # a profile's breakpoints and masks are those of the union.
        skip = tuple(sorted(idx for idx in units if idx in vm.held))
        key = (vm.name, v, skip)
        known = self._plan_base.get(key)
        if known is None:
            base = PlacementProfile(v, self.unit_platform)
            for idx in vm.held:
                if idx in units:  # a running member (Case 3): its new plan below
                    continue
                vend, alloc = self.reservation[idx]
                if vend > v:
                    base.reserve(v, vend, alloc)
            if vm is self.active:
                for _, vt, alloc in self.guests.values():
                    if vt > v:
                        base.reserve(v, vt, alloc)
            # The waiting jobs in FCFS order, with what their check reads:
            # fixed until an option runs too.
            f_slack = self.params["f_slack"]
            queue = []
            for job in vm.queue:
                if job.state == WAITING:
                    _, _, k, dur, _ = self.plan[job.idx]
                    queue.append((job.idx, k, dur, self.reservation[job.idx][0] + 1e-6, job.submit,
                                  f_slack * self.r_est[job.idx] + 1e-6))
            known = self._plan_base[key] = (base, queue)
        base, queue = known
        prof = base.copy()
        for idx, alloc in units.items():
            prof.reserve(v, v + plan[idx][0], alloc)
        earliest_start, reserve, choice = prof.earliest_start, prof.reserve, self._checked_choice
        out = {}
        for idx, k, dur, moved_after, submit, most in queue:
            if idx in units:
                continue
            start, chosen = earliest_start(choice, k, dur, v)
            reserve(start, start + dur, chosen)
            out[idx] = (start, chosen.mask)
            # Later than in today's plan, and its response past F_slack x R_est.
            if start > moved_after and self._wall_of(vm, start + dur, now) - submit > most:
                return None
        return {"profile": prof,
                "reservations": {idx: (start, Allocation.from_mask(self.unit_platform, mask))
                                 for idx, (start, mask) in out.items()}}

    def _group_plan(self, a: Member, group: list[Candidate],
                    run: GroupRun | None = None) -> dict[int, tuple[float, int]]:
        """Planned run (virtual s) and PPN of each member: the group's periods, then
        alone (``run``: the group's :func:`utilization_gain`, when already known)."""
        if run is None:
            run = utilization_gain(a, [c.member for c in group])
        members = {a.key: a, **{c.member.key: c.member for c in group}}
        done = {k: 0.0 for k in members}
        end = {}
        t = 0.0
        for length, running in run.periods:
            sl_q = max(a.sl_cos[k] for k in running)
            done[a.key] += length / (a.self_slowdown * sl_q)
            for k in running:
                m = members[k]
                done[k] += length / (m.self_slowdown * m.sl_cos[a.key])
            t += length
            for k in list(members):
                if k not in end and done[k] >= members[k].work - 1e-9:
                    end[k] = t
        jobs = self.sim.jobs
        for k, m in members.items():
            if k not in end:  # goes on alone after the group, at its self slowdown
                end[k] = t + max(0.0, m.work - done[k]) * self._self_at(jobs[k], m.ppn)
        return {k: (end[k], members[k].ppn) for k in members}

    # --------------------------------------------------------------- actions
    def _give_up(self, vm, job, v):
        """Release what is left of ``job``'s reservation (it is about to start otherwise)."""
        old, alloc = self.reservation[job.idx]
        _release(vm.profile, max(old, v), old + self.plan[job.idx][3], alloc)

    def _take(self, vm, job, units, dur, v, ppn, rate, reserve=True):
        """Start ``job`` now on ``units`` for ``[v, v+dur)`` (its reservation already given up)."""
        if reserve:
            vm.profile.reserve(v, v + dur, units)
        self.plan[job.idx] = (self.plan[job.idx][0], ppn, len(units), dur, rate)
        ok = self._launch(vm, job, units)
        if not ok:  # pragma: no cover - the units were checked idle
            raise RuntimeError(f"{self.name}: could not start job {job.job_id}")
        self.reservation[job.idx] = (v + dur, units)

    def _run_case5(self, vm, job, whole, nodes, dur, v):
        first = lowest_bits(whole, nodes)
        units = Allocation.from_mask(self.unit_platform, first | (first << 1))
        self._give_up(vm, job, v)
        self._take(vm, job, units, dur, v, 4, 1.0 / self._self_at(job, 4))
        self.case5 += 1

    def _run_group(self, vm, primary, matched, chosen, v):
        plan, replan = chosen["plan"], chosen["replan"]
        units = {idx: Allocation.from_mask(self.unit_platform, u.mask)
                 for idx, u in chosen["units"].items()}
        gid = primary.idx
        self.groups[gid] = [primary.idx, {j.idx for j in matched}]
        for j in (primary, *matched):
            self.group_of[j.idx] = gid
            self.grouped.add(j.idx)
        self.group_sizes.append(1 + len(matched))
        if replan is None:
            for j in (primary, *matched):  # all first: a member's new units may be another's old
                self._give_up(vm, j, v)
        sl_q = max(self._sl_cos(primary, j) for j in matched)
        rates = {primary.idx: 1.0 / (self._group_self(primary, plan[primary.idx][1]) * sl_q)}
        for j in matched:
            rates[j.idx] = 1.0 / (self._group_self(j, plan[j.idx][1]) * self._sl_cos(j, primary))
        for j in (primary, *matched):
            dur, ppn = plan[j.idx]
            self._take(vm, j, units[j.idx], dur, v, ppn, rates[j.idx], reserve=replan is None)
        if replan is not None:
            vm.profile = replan["profile"]
            for idx, (start, alloc) in replan["reservations"].items():
                self.reservation[idx] = (start, alloc)
                self.sim.jobs[idx].data = start
            self.counters["replans"] += 1

    def _finish(self, job, now):
        super()._finish(job, now)
        self._pairs.pop(job.idx, None)
        self._candidates.pop(job.idx, None)
        self._group_runs.pop(job.idx, None)
        self._offers.pop(job.idx, None)
        self._group_plans.pop(job.idx, None)
        gid = self.group_of.pop(job.idx, None)
        if gid is None or gid not in self.groups:
            return
        primary_idx, matched = self.groups[gid]
        jobs = self.sim.jobs
        if job.idx == primary_idx:
            self._disband(gid)
            return
        matched.discard(job.idx)
        if not matched:
            self._disband(gid)
            return
        primary = jobs[primary_idx]
        sl_q = max(self._sl_cos(primary, jobs[k]) for k in matched)
        self.sim.set_rate(primary, 1.0 / (self._group_self(primary, self.plan[primary_idx][1]) * sl_q))

    def _disband(self, gid):
        """§4.4: the group ends; whoever is left runs alone at its self slowdown."""
        primary_idx, matched = self.groups.pop(gid)
        for idx in (primary_idx, *matched):
            job = self.sim.jobs[idx]
            self.group_of.pop(idx, None)
            if job.state in (RUNNING, SUSPENDED):
                self.sim.set_rate(job, 1.0 / self._self_at(job, self.plan[idx][1]))

    def group_stats(self) -> dict:
        """Counters of §5.2-§5.3."""
        eligible = [j for j in self.sim.jobs if self.plan[j.idx][0] != "short"]
        cands = np.asarray(self.counters["candidates"], dtype=float)
        return {"groups": len(self.group_sizes), "grouped_jobs": len(self.grouped),
                "eligible_jobs": len(eligible),
                "jobs_per_group": float(np.mean(self.group_sizes)) if self.group_sizes else 0.0,
                "eligible_in_groups": 100.0 * len(self.grouped) / max(1, len(eligible)),
                "decisions": int(cands.size),
                "candidates_below_4": (float(100.0 * np.mean(cands < 4))
                                       if cands.size else float("nan")),
                "case5_starts": self.case5, "case2_groups": self.case2, "case3_groups": self.case3,
                "rejected_no_room": self.counters["no_room"],
                "rejected_unfair": self.counters["unfair"], "replans": self.counters["replans"],
                "nontype_before_matchmaking": self.counters["nontype_before_matchmaking"]}

