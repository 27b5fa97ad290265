"""Allocations as objects, and the strategies that choose them.

As in pybatsim, the scheduler decides *where* a job runs and the simulator
decides *how long*: a policy hands the simulator an :class:`Allocation` (a set
of core ids), chosen by an :class:`AllocationStrategy` it was given.

Strategies see the candidate free cores as a **bit mask**, a Python ``int``
whose bit ``i`` is set when core ``i`` is free. Planning ahead needs the
cores free during a whole time window, the intersection of the free sets of
every step of the window (see :class:`simlib.policies.profile.PlacementProfile`);
on an int that is one C-level ``&`` per step, and counting is ``bit_count``.
:func:`mask_of` and :func:`ids_of` convert to and from id lists, and
:meth:`AllocationStrategy.choose` takes an id list directly.

Strategies (paper D, Dutot, Poquet & Trystram §5.2, unless stated):

=========================  =================================================
``LowestIds``  (basic)     the ``size`` lowest free ids (smallest id sum)
``Contiguous``             the lowest block of ``size`` consecutive free ids;
                           rejects a set holding no such block
``OneCluster`` (local)     all cores in one cluster; rejects a set where no
                           cluster has ``size`` free cores
``BestEffort(strict)``     the strict strategy's choice, else basic's
``PerCore(ppn)``           paper Z §4.9: ``ppn`` processes per node, the
                           job's processes on different CPUs of the node
=========================  =================================================

On platforms with one core per node (paper D's) cores are nodes; on
multi-core platforms contiguity is over core ids, which is contiguity over
nodes too since every node owns a contiguous block of core ids.

Examples
--------
>>> from simlib.platform import Platform
>>> p = Platform.homogeneous(8, clusters=2)           # nodes 0-3 | 4-7
>>> free = mask_of([1, 3, 4, 5])
>>> LowestIds().select(p, free, 3).cores
(1, 3, 4)
>>> Contiguous().select(p, free, 3).cores
(3, 4, 5)
>>> OneCluster().select(p, free, 3) is None           # 1,3 | 4,5: no cluster has 3
True
>>> BestEffort(OneCluster()).select(p, free, 3).cores
(1, 3, 4)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Iterable

from ..errors import ConfigError
from ..platform import Platform


# ----------------------------------------------------------------- bit masks
def mask_of(ids: Iterable[int]) -> int:
    """Bit mask with the bits of ``ids`` set.

    Examples
    --------
    >>> bin(mask_of([0, 2, 3]))
    '0b1101'
    """
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def ids_of(mask: int) -> list[int]:
    """Sorted ids of the bits set in ``mask``.

    Examples
    --------
    >>> ids_of(0b1101)
    [0, 2, 3]
    """
    # The binary string, least significant bit first; str.find jumps over
    # runs of zeros in C, so the Python loop runs once per set bit.
    bits = bin(mask)[:1:-1]
    out = []
    i = bits.find("1")
    while i >= 0:
        out.append(i)
        i = bits.find("1", i + 1)
    return out


def lowest_bits(mask: int, k: int) -> int:
    """The ``k`` lowest set bits of ``mask`` (all of them if it has fewer).

    Examples
    --------
    >>> bin(lowest_bits(0b110110, 3)), bin(lowest_bits(0b110110, 9)), lowest_bits(0b11, 0)
    ('0b10110', '0b110110', 0)
    """
    if k >= mask.bit_count():
        return mask
    if k <= 8:
        # Few bits (most nodes asked for): peel the lowest set bit k times.
        out = 0
        for _ in range(k):
            low = mask & -mask
            out |= low
            mask ^= low
        return out
    # Many: binary search on the width w whose low bits hold k set bits,
    # O(log bit_length) big-int operations whatever k is.
    lo, hi = 0, mask.bit_length()  # fewer than k set bits below lo, k or more below hi
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if (mask & ((1 << mid) - 1)).bit_count() >= k:
            hi = mid
        else:
            lo = mid
    return mask & ((1 << hi) - 1)


def runs_of(mask: int, length: int) -> int:
    """Bits ``i`` such that bits ``i .. i+length-1`` are all set in ``mask``.

    Runs are found by doubling: ``r & (r >> s)`` turns starts of runs of
    length ``L`` into starts of runs of length ``L + s`` (for ``s <= L``), so
    ``O(log length)`` big-int operations suffice.

    Examples
    --------
    >>> bin(runs_of(0b0111011, 3))     # one run of 3, starting at bit 3
    '0b1000'
    """
    r, have = mask, 1
    while have < length and r:
        step = min(have, length - have)
        r &= r >> step
        have += step
    return r


# -------------------------------------------------------------- allocations
@dataclass(frozen=True, slots=True)
class Allocation:
    """An immutable set of cores given to one job, with its nodes.

    Build it with :meth:`of` (core ids) or :meth:`from_mask`; ``cores`` and
    ``nodes`` are sorted tuples, ``mask`` the cores' bit mask. Iterating
    yields the core ids, so an allocation can be passed as ``ids`` to
    :meth:`simlib.engine.simulator.Simulator.start`.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> p = Platform.homogeneous(16, cores_per_node=4, clusters=2)
    >>> a = Allocation.of(p, [9, 8, 4])
    >>> a.cores, a.nodes, len(a)
    ((4, 8, 9), (1, 2), 3)
    >>> a.is_contiguous, a.clusters(p), a.is_local(p)
    (False, (0, 1), False)
    """

    cores: tuple[int, ...]
    nodes: tuple[int, ...]
    mask: int = field(repr=False)

    @classmethod
    def of(cls, platform: Platform, cores: Iterable[int]) -> "Allocation":
        """The allocation of core ids ``cores`` (any order, no duplicates)."""
        ids = tuple(sorted(cores))
        if len(set(ids)) != len(ids):
            raise ConfigError(f"allocation lists a core twice: {list(ids)}")
        if ids and not 0 <= ids[0] <= ids[-1] < platform.cpus:
            raise ConfigError(f"allocation: core ids must be in 0..{platform.cpus - 1}")
        node = platform.core_node_ids
        return cls(ids, tuple(sorted({node[c] for c in ids})), mask_of(ids))

    @classmethod
    def from_mask(cls, platform: Platform, mask: int) -> "Allocation":
        """The allocation of the cores whose bits are set in ``mask``."""
        ids = tuple(ids_of(mask))
        node = platform.core_node_ids
        return cls(ids, tuple(sorted({node[c] for c in ids})), mask)

    def __len__(self) -> int:
        return len(self.cores)

    def __iter__(self):
        return iter(self.cores)

    def __contains__(self, core: int) -> bool:
        return bool(self.mask >> core & 1)

    @property
    def is_contiguous(self) -> bool:
        """True when the core ids form one range (an empty set is contiguous)."""
        c = self.cores
        return not c or c[-1] - c[0] + 1 == len(c)

    def clusters(self, platform: Platform) -> tuple[int, ...]:
        """Sorted ids of the clusters the allocation spans."""
        nc = platform.node_cluster
        return tuple(sorted({int(nc[n]) for n in self.nodes}))

    def is_local(self, platform: Platform) -> bool:
        """True when every core is in one cluster (paper D's *local* set)."""
        return len(self.clusters(platform)) <= 1

    def sockets(self, platform: Platform) -> tuple[int, ...]:
        """Sorted machine-wide ids of the sockets (CPUs) the allocation uses."""
        cs = platform.core_socket
        return tuple(sorted({int(cs[c]) for c in self.cores}))


# --------------------------------------------------------------- strategies
class _Layout:
    """Bit masks of a platform's clusters, nodes and sockets (cached per strategy)."""

    __slots__ = ("platform", "cluster_masks", "cluster_ordered", "node_masks", "node_sockets")

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        by_cluster: dict[int, int] = {}
        by_node: dict[int, int] = {}
        by_socket: dict[int, int] = {}
        for core, (node, sock) in enumerate(zip(platform.core_node.tolist(),
                                                 platform.core_socket.tolist())):
            bit = 1 << core
            cl = int(platform.node_cluster[node])
            by_cluster[cl] = by_cluster.get(cl, 0) | bit
            by_node[node] = by_node.get(node, 0) | bit
            by_socket[sock] = by_socket.get(sock, 0) | bit
        self.cluster_masks = [by_cluster[c] for c in sorted(by_cluster)]
        # Clusters laid out as increasing blocks of ids (the usual numbering):
        # the first cluster with room then also has the smallest id sum.
        ms = self.cluster_masks
        self.cluster_ordered = all(a.bit_length() <= (b & -b).bit_length() - 1
                                   for a, b in zip(ms, ms[1:]))
        spn = platform.sockets_per_node
        self.node_masks = [by_node[n] for n in range(platform.nodes)]
        self.node_sockets = [[by_socket[n * spn + k] for k in range(spn)]
                             for n in range(platform.nodes)]


class AllocationStrategy:
    """Chooses the cores of a job among candidate free cores.

    Subclasses implement :meth:`select`. ``strict`` strategies may reject a
    candidate set that holds enough cores (paper D: the *hole* is rejected and
    the search goes on at a later time); the others accept any set holding
    ``size`` cores.
    """

    #: Name used in configurations (paper D's rule names).
    name: ClassVar[str] = "strategy"
    #: True when :meth:`select` may return None for a set of >= size cores.
    strict: ClassVar[bool] = False

    def __init__(self) -> None:
        self._layout: _Layout | None = None

    def layout(self, platform: Platform) -> _Layout:
        """Masks of ``platform``'s clusters, nodes and sockets, built once."""
        lay = self._layout
        if lay is None or lay.platform is not platform:
            lay = self._layout = _Layout(platform)
        return lay

    def select(self, platform: Platform, free: int, size: int) -> Allocation | None:
        """An allocation of ``size`` cores among those set in ``free``, or None.

        Parameters
        ----------
        platform : Platform
        free : int
            Bit mask of the candidate cores (bit ``i`` = core ``i`` is free).
        size : int
            Number of cores (processes) wanted, >= 1.

        The answer must depend on these arguments only (no state that
        changes between calls): a planner may remember a refusal
        (:class:`PlanChoice`).
        """
        raise NotImplementedError

    def select_mask(self, platform: Platform, free: int, size: int) -> int | None:
        """The bit mask of the cores :meth:`select` would give, or None.

        Plans that are rebuilt often (conservative backfilling in placement
        mode) ask this and build an :class:`Allocation` only for a job that
        starts. The rules below compute the mask first, so theirs costs no
        more; a strategy that only implements :meth:`select` gets this one.
        """
        alloc = self.select(platform, free, size)
        return None if alloc is None else alloc.mask

    def choose(self, platform: Platform, free_ids: Iterable[int], size: int) -> Allocation | None:
        """:meth:`select` with candidates given as core ids.

        Examples
        --------
        >>> from simlib.platform import Platform
        >>> Contiguous().choose(Platform.homogeneous(8), [0, 2, 3, 4], 2).cores
        (2, 3)
        """
        return self.select(platform, mask_of(free_ids), size)

    def max_size(self, platform: Platform) -> int:
        """The widest job this strategy can ever place on ``platform``."""
        return platform.cpus

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MaskRule(AllocationStrategy):
    """A strategy whose rule chooses a mask (:meth:`select_mask`, which
    subclasses implement); :meth:`select` builds the :class:`Allocation`.
    Paper D's rules and paper Z's placements are written this way."""

    def select(self, platform, free, size):
        mask = self.select_mask(platform, free, size)
        return None if mask is None else Allocation.from_mask(platform, mask)

    def select_mask(self, platform, free, size):
        raise NotImplementedError


def mask_selector(strategy: AllocationStrategy):
    """``strategy``'s choice as a mask: ``(platform, free, size) -> int | None``.

    Its :meth:`~AllocationStrategy.select_mask` when that is defined in the
    class that defines its ``select`` or below (the same rule), else the mask
    of what ``select`` returns: a subclass that redefines only ``select`` is
    not planned with its parent's mask.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> class Highest(LowestIds):          # redefines select only
    ...     def select(self, platform, free, size):
    ...         return Allocation.from_mask(platform, 1 << (free.bit_length() - 1))
    >>> p = Platform.homogeneous(8)
    >>> mask_selector(LowestIds())(p, 0b1010, 1), mask_selector(Highest())(p, 0b1010, 1)
    (2, 8)
    """
    mro = type(strategy).__mro__

    def owner(name):
        return next(k for k in mro if name in vars(k))

    if issubclass(owner("select_mask"), owner("select")):
        return strategy.select_mask

    def via_select(platform, free, size):
        alloc = strategy.select(platform, free, size)
        return None if alloc is None else alloc.mask
    return via_select


class Planned:
    """Cores chosen in a plan that may be rebuilt before the job starts: the
    mask and the count that :class:`~simlib.policies.profile.PlacementProfile`
    reads, the core ids (in increasing order) when iterated. An
    :class:`Allocation` is only worth building for a job that starts.

    Examples
    --------
    >>> p = Planned(0b1101)
    >>> len(p), list(p), p
    (3, [0, 2, 3], Planned(0b1101))
    """

    __slots__ = ("mask", "size")

    def __init__(self, mask: int) -> None:
        self.mask = mask
        self.size = mask.bit_count()

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        return iter(ids_of(self.mask))

    def __repr__(self) -> str:
        return f"Planned({bin(self.mask)})"


class PlanChoice:
    """A strategy as a plan's searches ask it: its choice as :class:`Planned`
    cores (:meth:`AllocationStrategy.select_mask`), its answers remembered.

    A conservative plan offers the same holes again and again (queued jobs
    of one size scan the same candidate starts, and a rebuilt plan scans
    them again at the next completion); paper D's *local* rule refuses most
    of them, each after a look at every cluster. A hole seen before gets the
    same answer at once (it depends on the arguments only; one platform per
    plan): a refusal, or the very :class:`Planned` chosen then (read only).
    Each memory is emptied when it holds ``most`` answers.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> p = Platform.homogeneous(8, clusters=2)
    >>> choice = PlanChoice(OneCluster())
    >>> choice.select(p, 0b00111100, 3), choice.select(p, 0b00111100, 3), len(choice.refused)
    (None, None, 1)
    >>> choice.select(p, 0b11110000, 3)
    Planned(0b1110000)
    >>> choice.select(p, 0b11110000, 3) is choice.select(p, 0b11110000, 3)
    True
    """

    __slots__ = ("strategy", "refused", "chosen", "most", "_mask")

    def __init__(self, strategy: AllocationStrategy, most: int = 100_000) -> None:
        self.strategy = strategy
        self.refused: set[tuple[int, int]] = set()
        self.chosen: dict[tuple[int, int], Planned] = {}
        self.most = most
        self._mask = mask_selector(strategy)

    def select(self, platform: Platform, free: int, size: int) -> Planned | None:
        key = (free, size)
        got = self.chosen.get(key)
        if got is not None:
            return got
        refused = self.refused
        if key in refused:
            return None
        mask = self._mask(platform, free, size)
        if mask is None:
            if len(refused) >= self.most:
                refused.clear()
            refused.add(key)
            return None
        chosen = self.chosen
        if len(chosen) >= self.most:
            chosen.clear()
        got = chosen[key] = Planned(mask)
        return got

    def __repr__(self) -> str:
        return repr(self.strategy)


def kernel_rule(strategy, platform: Platform):
    """How the compiled placement kernel runs ``strategy``, or None.

    A :class:`PlanChoice` over one of paper D's rules, of exactly the classes
    below (a subclass may choose differently), as ``(preferred, fallback,
    cluster masks, clusters ordered)``: codes 1 = :class:`LowestIds`, 2 =
    :class:`Contiguous`, 3 = :class:`OneCluster`, fallback 0 = none (a
    :class:`BestEffort` has its strict rule first, then basic).

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> p = Platform.homogeneous(4, clusters=2)
    >>> kernel_rule(PlanChoice(make_rule("best_effort_local")), p)
    (3, 1, [3, 12], True)
    >>> kernel_rule(make_rule("basic"), p) is None      # not through a PlanChoice
    True
    """
    if type(strategy) is not PlanChoice:
        return None
    rule = strategy.strategy
    codes = {LowestIds: 1, Contiguous: 2, OneCluster: 3}
    if type(rule) is BestEffort:
        if type(rule.fallback) is not LowestIds or type(rule.preferred) not in codes:
            return None
        preferred, fallback = codes[type(rule.preferred)], 1
        rule = rule.preferred
    elif type(rule) in codes:
        preferred, fallback = codes[type(rule)], 0
    else:
        return None
    lay = rule.layout(platform)
    return preferred, fallback, lay.cluster_masks, lay.cluster_ordered


class LowestIds(MaskRule):
    """Paper D's *basic* rule: the ``size`` free cores of smallest ids.

    Smallest ids also means smallest sum of ids, the paper's wording
    ("``S ⊆ H`` with ``card(S) = size`` and ``Σ id_s`` minimal").

    This is *not* the count-based ledger order of today's policies
    (:meth:`simlib.engine.ledger.ResourceLedger.take` pops a LIFO stack, so
    after releases it need not hand out the lowest ids); count-based policies
    keep that fast path and pass no strategy.
    """

    name = "basic"

    def select_mask(self, platform, free, size):
        if free.bit_count() < size:
            return None
        return lowest_bits(free, size)


class Contiguous(MaskRule):
    """Paper D's *contiguous* rule: ``size`` consecutive core ids.

    Of all blocks of consecutive free ids, the lowest (which has the smallest
    id sum, basic's tie-break). Rejects a set with no such block.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> Contiguous().choose(Platform.homogeneous(8), [0, 1, 3, 4], 3) is None
    True
    """

    name = "contiguous"
    strict = True

    def select_mask(self, platform, free, size):
        starts = runs_of(free, size)
        if not starts:
            return None
        first = (starts & -starts).bit_length() - 1
        return ((1 << size) - 1) << first


class OneCluster(MaskRule):
    """Paper D's *local* rule: every core in the same cluster.

    Among the clusters with ``size`` free cores, the one whose ``size`` lowest
    free ids have the smallest sum (basic's rule restricted to local sets:
    with clusters numbered as blocks of ids, the first cluster with room),
    and those ids in it. Rejects a set where no cluster has room.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> p = Platform.homogeneous(8, clusters=2)
    >>> OneCluster().choose(p, [2, 3, 4, 5, 6], 3).cores
    (4, 5, 6)
    >>> OneCluster().max_size(p)
    4
    """

    name = "local"
    strict = True

    def select_mask(self, platform, free, size):
        lay = self.layout(platform)
        best, best_sum = None, None
        for cmask in lay.cluster_masks:
            mine = free & cmask
            if mine.bit_count() < size:
                continue
            chosen = lowest_bits(mine, size)
            if lay.cluster_ordered:
                return chosen
            s = sum(ids_of(chosen))
            if best is None or s < best_sum:
                best, best_sum = chosen, s
        return best

    def max_size(self, platform):
        return max(m.bit_count() for m in self.layout(platform).cluster_masks)


class BestEffort(AllocationStrategy):
    """Paper D's *best-effort* rules: the strict rule's choice when the set
    allows one, otherwise ``fallback``'s (default: basic). Never rejects a set
    holding ``size`` cores.

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> BestEffort(Contiguous()).choose(Platform.homogeneous(8), [0, 1, 3, 4], 3).cores
    (0, 1, 3)
    >>> BestEffort(Contiguous()).name
    'best_effort_contiguous'
    """

    strict = False

    def __init__(self, preferred: AllocationStrategy, fallback: AllocationStrategy | None = None) -> None:
        super().__init__()
        self.preferred = preferred
        self.fallback = fallback if fallback is not None else LowestIds()
        self.name = f"best_effort_{preferred.name}"
        self._masks = (mask_selector(self.preferred), mask_selector(self.fallback))

    def select(self, platform, free, size):
        got = self.preferred.select(platform, free, size)
        return got if got is not None else self.fallback.select(platform, free, size)

    def select_mask(self, platform, free, size):
        preferred, fallback = self._masks
        got = preferred(platform, free, size)
        return got if got is not None else fallback(platform, free, size)

    def max_size(self, platform):
        return max(self.preferred.max_size(platform), self.fallback.max_size(platform))

    def __repr__(self) -> str:
        return f"BestEffort({self.preferred!r}, {self.fallback!r})"


class PerCore(MaskRule):
    """Paper Z's per-core placement: ``ppn`` processes per node, spread over CPUs.

    Zeng & Sodan §4.9: "processes of the same job are allocated to cores of
    different CPUs per node, while processes of different jobs are allocated
    to the cores of the same CPU ... If there are N_core processes of the same
    job, they occupy all cores in a node."

    Nodes are walked in id order; each node that can host ``min(ppn,
    processes left)`` of them, spread over its sockets, takes them, until the
    job is placed. On a node the job's processes are dealt to the sockets as
    evenly as possible (shares differ by at most one), so one job never
    stacks two processes on a CPU while another CPU of the node could take
    one. The larger shares go to the sockets with the *fewest* free cores
    that can hold them (best fit, ties by socket id): a second job on a node
    then fills the cores the first left on each CPU, so different jobs share
    a CPU's cores. Within a socket the lowest free core ids are used.

    Parameters
    ----------
    ppn : int
        Processes of the job per node (paper Z's PPN: 1, 2 or 4 on its
        4-core nodes).

    Examples
    --------
    >>> from simlib.platform import Platform
    >>> p = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2)
    >>> a = PerCore(ppn=2).select(p, mask_of(range(8)), 4)
    >>> a.cores, a.sockets(p)              # one core on each CPU of each node
    ((0, 2, 4, 6), (0, 1, 2, 3))
    >>> PerCore(ppn=2).select(p, mask_of([1, 3, 5, 7]), 4).cores   # the CPUs' other cores
    (1, 3, 5, 7)
    """

    name = "per_core"
    strict = True

    def __init__(self, ppn: int = 1) -> None:
        super().__init__()
        if isinstance(ppn, bool) or not isinstance(ppn, int) or ppn < 1:
            raise ConfigError(f"per-core placement: ppn must be a positive integer, not {ppn!r}")
        self.ppn = ppn
        self._shares = None  # (layout, {(node, processes): cores}), see _walk

    def select_mask(self, platform, free, size):
        lay = self.layout(platform)
        return self._walk(lay, free, range(len(lay.node_masks)), size)

    def select_whole(self, platform, nodes, size):
        """:meth:`select_mask` of the cores of ``nodes`` (node ids, increasing),
        every one free: the same walk, over those nodes only.

        Examples
        --------
        >>> from simlib.platform import Platform
        >>> p = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2)
        >>> placer = PerCore(ppn=4)
        >>> placer.select_whole(p, [0, 1], 6) == placer.select_mask(p, mask_of(range(8)), 6)
        True
        >>> placer.select_whole(p, [1], 6) is None
        True
        """
        return self._walk(self.layout(platform), -1, nodes, size)  # -1: every core free

    def _walk(self, lay, free: int, nodes, size: int) -> int | None:
        """The cores of ``size`` processes, ``ppn`` a node, on the free cores of
        ``nodes`` in order; a wholly free node's share is kept (it depends on
        the node and the processes placed there only)."""
        memo = self._shares
        if memo is None or memo[0] is not lay:
            memo = self._shares = (lay, {})
        shares, masks, ppn = memo[1], lay.node_masks, self.ppn
        chosen = 0
        left = size
        for n in nodes:
            node = masks[n]
            mine = free & node
            if not mine:
                continue
            want = min(ppn, left)
            if mine == node:
                got = shares.get((n, want), -1)
                if got == -1:
                    got = shares[(n, want)] = (None if node.bit_count() < want
                                               else self._on_node(node, lay.node_sockets[n], want))
            elif mine.bit_count() < want:
                continue
            else:
                got = self._on_node(mine, lay.node_sockets[n], want)
            if got is not None:
                chosen |= got
                left -= want
                if not left:
                    return chosen
        return None

    @staticmethod
    def _on_node(free: int, sockets: list[int], want: int) -> int | None:
        """Cores for ``want`` processes of one job on one node, or None."""
        n = len(sockets)
        base, extra = divmod(want, n)
        have = [(free & s).bit_count() for s in sockets]
        if min(have) < base:
            return None
        # Sockets that can take one process more, fewest free cores first.
        bigger = sorted((h, k) for k, h in enumerate(have) if h > base)
        if len(bigger) < extra:
            return None
        share = [base] * n
        for _, k in bigger[:extra]:
            share[k] += 1
        got = 0
        for s, k in zip(sockets, share):
            if k:
                got |= lowest_bits(free & s, k)
        return got

    def max_size(self, platform):
        return sum(min(self.ppn, int(c)) for c in platform.cores_per_node)

    def __repr__(self) -> str:
        return f"PerCore(ppn={self.ppn})"


#: Paper D's five allocation rules: configuration name -> strategy factory.
RULES: dict[str, Callable[[], AllocationStrategy]] = {
    "basic": LowestIds,
    "best_effort_contiguous": lambda: BestEffort(Contiguous()),
    "best_effort_local": lambda: BestEffort(OneCluster()),
    "contiguous": Contiguous,
    "local": OneCluster,
}


def make_rule(name: str) -> AllocationStrategy:
    """A fresh strategy for paper D's rule ``name``.

    Examples
    --------
    >>> make_rule("best_effort_local")
    BestEffort(OneCluster(), LowestIds())
    >>> make_rule("nearby")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: unknown allocation rule 'nearby'; choices: basic, ..., local
    """
    factory = RULES.get(name) if isinstance(name, str) else None
    if factory is None:
        raise ConfigError(f"unknown allocation rule {name!r}; choices: {', '.join(RULES)}")
    return factory()


#: Values of a policy's ``allocation`` parameter: ``count`` (no rule: any
#: free cores, counted), then paper D's five rules.
ALLOCATIONS = ("count", *RULES)


def allocation_strategy(policy: str, value) -> AllocationStrategy | None:
    """The strategy a policy's ``allocation`` parameter names; None for ``count``.

    Examples
    --------
    >>> allocation_strategy("fcfs", "count") is None, allocation_strategy("fcfs", "contiguous")
    (True, Contiguous())
    >>> allocation_strategy("fcfs", "nearest")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: fcfs: parameter allocation must be one of count, ...; not 'nearest'
    """
    if value not in ALLOCATIONS:
        raise ConfigError(f"{policy}: parameter allocation must be one of "
                          f"{', '.join(ALLOCATIONS)}; not {value!r}")
    return None if value == "count" else make_rule(value)


def check_placeable(policy: str, strategy: AllocationStrategy, platform: Platform, jobs) -> None:
    """Refuse, before a run, a job wider than ``strategy`` can ever place on ``platform``.

    Such a job would wait for good (a policy that keeps it at the head of its
    queue would block every job behind it).
    """
    widest = max((job.procs for job in jobs), default=0)
    room = strategy.max_size(platform)
    if widest > room:
        job = next(j for j in jobs if j.procs == widest)
        raise ConfigError(f"{policy}: job {job.job_id} asks for {widest} processors; "
                          f"allocation {strategy.name!r} can place at most {room} on this "
                          "platform")


__all__ = ["ALLOCATIONS", "Allocation", "AllocationStrategy", "BestEffort", "Contiguous",
           "LowestIds", "MaskRule", "OneCluster", "PerCore", "PlanChoice", "Planned", "RULES",
           "allocation_strategy", "check_placeable", "ids_of", "lowest_bits", "make_rule",
           "mask_of", "mask_selector", "runs_of"]
