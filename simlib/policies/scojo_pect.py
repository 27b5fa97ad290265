"""Scojo-PECT: coarse-grain time slices, one virtual machine per job type (paper Z).

Esbaugh & Sodan (HPCC 2007), as Zeng & Sodan use it (§4.7, §5.1), with space
sharing per virtual machine (*SSP*). Every term below is the papers'.

**Virtual machines.** Jobs are typed by their runtime estimate: *short*
(<= 10 min), *medium* (<= 3 h) or *long*. Each type has a virtual machine:
a full copy of the machine that exists only during its *slices*. The engine
holds one ledger layer per virtual machine (``Simulator(layers=3)``): a
job's cores are ids ``layer * cpus + core``, it keeps them while suspended,
and at any time only one job per physical core runs.

**Slices.** Time is cut into intervals (1 h). Each interval holds an optional
short slice (only when short jobs wait or are suspended at the interval's
start), then a medium and a long slice sharing the rest 30 : 70. Every slice
begins with the preemption/resumption overhead (60 s): the previous slice's
jobs stop at its end, this slice's jobs resume after the overhead. Every job
is preempted at its slice's end and resumed on the same nodes and cores in
its virtual machine's next slice.

**Virtual time and conservative backfilling.** A virtual machine's clock runs
only during the *effective* part of its slices (after the overhead). Each
virtual machine plans its jobs by conservative backfilling in its own
virtual time, on a profile of the machine's nodes: every queued job holds a
reservation (earliest start at which enough nodes are free for its planned
duration), a job starts when its virtual machine's clock reaches its
reservation, and when a job ends early the schedule is *compressed*: queued
jobs, in FCFS order, move to an earlier start where there is room, never
later — "keeping backfilled jobs in their backfill position" (§4.7).

**Space sharing (SSP, §5.1, formula 8).** One job per node, with ``PPN`` =
1, 2 or 4 of its processes per node, from its self slowdowns (the workload
gives ``features["ppn"]``, or the policy applies formula 8 with ``max_sl``
and ``self_sl2``); the job runs on ``ceil(size / PPN)`` nodes, its processes
on different CPUs of each node (§4.9), at rate ``1 / self slowdown`` (1 at
PPN 1, ``SL_sno`` at 2, ``SL_scr * SL_sno`` at 4). Its planned duration is
its estimate times that slowdown.

**Safe non-type slice backfilling (§4.7).** During a slice of type X, nodes
that X's plan leaves idle until the slice's end may run jobs of another
type Y, until the slice's end: a suspended Y job whose nodes are all idle
resumes there; a waiting Y job starts there if its virtual machine could
start it now (a hole at Y's clock for its whole planned duration, among the
idle nodes), so no job of type Y is delayed either. Such a job holds a
temporary reservation in X's plan until the slice's end, which later X jobs
respect. Candidates are tried short, medium, long (suspended jobs before
waiting ones, each in FCFS order).

**Response-time estimates (§4.1).** At submission, ``R_est`` is the wall time
at which the job's reservation would end, mapping virtual time to wall time
with the current interval's slice layout for all future intervals, times
``r_est_factor`` (0.75, §5.1: estimates ignore non-type backfilling).

Choices where the papers are silent (switches where cheap): the short
slice's length (``short_slice``, 600 s, overhead included); the overhead is
paid at the start of every slice, also when the same jobs continue (§5.1's
footnote 3 says this reduction is not considered); jobs are typed by their
estimate (a scheduler does not know runtimes); a job of a virtual machine
that is due while another slice runs waits for its own slice unless non-type
backfilling starts it; ties: FCFS (submission order).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from typing import Any

from ..engine.allocation import Allocation, LowestIds, PerCore, ids_of, lowest_bits
from ..engine.job import RUNNING, SUSPENDED, WAITING, Job
from ..errors import ConfigError, SimulationError
from ..platform import Platform
from .base import Policy
from .profile import PeakFree, PlacementProfile

#: Compiled kernels the policy's plans run on (:mod:`simlib.codedeps`).
COMPILED_KERNELS = ("_placement_kernel",)

#: The job types, in slice order; the index is the virtual machine's ledger layer.
TYPES = ("short", "medium", "long")
_EPS = 1e-6


def classify(estimate: float, short_max: float, medium_max: float) -> str:
    """Job type of Scojo-PECT from a runtime estimate (§5.1).

    Examples
    --------
    >>> [classify(t, 600, 10800) for t in (600, 601, 10800, 10801)]
    ['short', 'medium', 'medium', 'long']
    """
    if estimate <= short_max:
        return "short"
    return "medium" if estimate <= medium_max else "long"


def ssp_ppn(size: int, sl_scr: float, sl_sno: float, max_sl: float, self_sl2: float) -> int:
    """Processes per node under space sharing, formula 8 (§5.1).

    Examples
    --------
    >>> ssp_ppn(1, 1.0, 1.0, 1.25, 1.12), ssp_ppn(8, 1.3, 1.1, 1.25, 1.12), ssp_ppn(8, 1.1, 1.1, 1.25, 1.12)
    (1, 2, 4)
    >>> ssp_ppn(8, 1.3, 1.15, 1.25, 1.12)
    1
    """
    if size > 1 and sl_scr * sl_sno <= max_sl:
        return 4
    if size > 1 and sl_sno <= self_sl2:
        return 2
    return 1


def self_slowdown(ppn: int, sl_scr: float, sl_sno: float) -> float:
    """A job's self slowdown at ``ppn`` processes per node (§4.8-§4.9).

    Examples
    --------
    >>> self_slowdown(1, 1.3, 1.1), self_slowdown(2, 1.3, 1.1), round(self_slowdown(4, 1.3, 1.1), 2)
    (1.0, 1.1, 1.43)
    """
    if ppn == 1:
        return 1.0
    return sl_sno if ppn == 2 else sl_scr * sl_sno


class SliceSchedule:
    """The slices of one interval: ``(type, start offset, length)``.

    Examples
    --------
    >>> s = SliceSchedule(3600.0, 600.0, 0.3, 0.7, 60.0)
    >>> s.layout(with_short=True)
    [('short', 0.0, 600.0), ('medium', 600.0, 900.0), ('long', 1500.0, 2100.0)]
    >>> s.layout(with_short=False)
    [('medium', 0.0, 1080.0), ('long', 1080.0, 2520.0)]
    >>> s.effective("long", with_short=False)
    2460.0
    """

    def __init__(self, interval: float, short_slice: float, medium_share: float,
                 long_share: float, overhead: float) -> None:
        self.interval = interval
        self.short_slice = short_slice
        self.medium_share = medium_share
        self.long_share = long_share
        self.overhead = overhead
        self._layouts = {w: self._make(w) for w in (True, False)}
        self._own: dict[tuple[str, bool], tuple[float, tuple]] = {}

    def _make(self, with_short: bool) -> list[tuple[str, float, float]]:
        out, t = [], 0.0
        rest = self.interval
        if with_short:
            out.append(("short", 0.0, self.short_slice))
            t, rest = self.short_slice, self.interval - self.short_slice
        share = self.medium_share + self.long_share
        medium = rest * self.medium_share / share
        out.append(("medium", t, medium))
        out.append(("long", t + medium, rest - medium))
        return out

    def layout(self, with_short: bool) -> list[tuple[str, float, float]]:
        return list(self._layouts[with_short])

    def effective(self, vm: str, with_short: bool) -> float:
        """Effective time (after the overhead) of ``vm`` in one interval."""
        return self.slices_of(vm, with_short)[0]

    def slices_of(self, vm: str, with_short: bool) -> tuple[float, tuple]:
        """``vm``'s effective time in one interval and its slices ``(offset,
        overhead part, length)``; the layouts are fixed, so both are kept."""
        key = (vm, with_short)
        out = self._own.get(key)
        if out is None:
            own = tuple((offset, min(self.overhead, length), length)
                        for t, offset, length in self._layouts[with_short] if t == vm)
            out = self._own[key] = (sum(max(0.0, length - self.overhead) for _, _, length in own),
                                    own)
        return out


def _release(profile: PlacementProfile, start: float, end: float, alloc: Allocation) -> None:
    """Release what is left of ``[start, end)`` (the profile forgets the past)."""
    start = max(start, profile.times[0])
    if end > start:
        profile.release(start, end, alloc)


class WholeNodes(LowestIds):
    """The lowest ``size / units`` nodes whose every unit is free (exclusive use).

    For plans in ``units`` units per node (a node's units are consecutive
    ids); ``size`` counts units, a multiple of ``units``.

    Examples
    --------
    >>> p = Platform.homogeneous(8, cores_per_node=2)      # 4 nodes of 2 units
    >>> WholeNodes(2).select(p, 0b11110110, 4).cores     # node 0 is half busy
    (4, 5, 6, 7)
    """

    name = "whole_nodes"

    def __init__(self, units: int) -> None:
        super().__init__()
        self.units = units

    def select_mask(self, platform, free, size):
        """The mask :meth:`select` chooses (None: too few whole nodes free),
        without building the allocation (plans that are only checked, not
        kept, need no more).

        >>> bin(WholeNodes(2).select_mask(Platform.homogeneous(8), 0b11110110, 4))
        '0b11110000'
        """
        u = self.units
        whole = free
        for k in range(1, u):
            whole &= free >> k
        whole &= self._firsts(platform.cpus)  # bit u*n set: node n entirely free
        if whole.bit_count() * u < size:
            return None
        # The lowest nodes (LowestIds on their first units), each with its u
        # units: first units times 2**u - 1, the union of the u shifts (the
        # first units are u bits apart, so the shifts never overlap).
        return lowest_bits(whole, size // u) * ((1 << u) - 1)

    def _firsts(self, total: int) -> int:
        cached = getattr(self, "_firsts_mask", None)
        if cached is None or cached[0] != total:
            m = 0
            for i in range(0, total, self.units):
                m |= 1 << i
            cached = self._firsts_mask = (total, m)
        return cached[1]


class VirtualMachine:
    """One job type's virtual machine: its queue, plan and clock.

    ``vbase`` is the virtual clock at wall time ``wall_base`` when the
    virtual machine is active (its clock runs), else its frozen value.
    """

    __slots__ = ("name", "layer", "profile", "queue", "held", "vbase", "wall_base",
                 "active", "early")

    def __init__(self, name: str, layer: int, nodes: Platform) -> None:
        self.name = name
        self.layer = layer
        self.profile = PlacementProfile(0.0, nodes)
        self.queue: list[Job] = []
        #: Started jobs (running or suspended) -> planned virtual end.
        self.held: dict[int, Job] = {}
        self.vbase = 0.0
        self.wall_base = 0.0
        self.active = False
        self.early = False

    def vnow(self, now: float) -> float:
        return self.vbase + (now - self.wall_base) if self.active else self.vbase


class ScojoPECT(Policy):
    """Scojo-PECT with space sharing per virtual machine (paper Z's *SSP*).

    Jobs need ``features`` with ``sl_scr`` and ``sl_sno`` (self slowdowns)
    and optionally ``ppn`` (else formula 8); the platform paper Z's nodes of
    4 cores in 2 sockets (any cores per node works). The simulator gets one
    ledger layer per virtual machine (:attr:`layers`).

    Parameters (defaults: §5.1 and Table 6)
    ----------
    interval, short_slice, medium_share, long_share, overhead : float
        The slice layout (s, s, shares, shares, s).
    short_max, medium_max : float
        Type thresholds on the estimate (s).
    max_sl, self_sl2 : float
        Table 6's thresholds of formula 8 (used when a job has no ``ppn``).
    non_type_backfilling : bool
        Safe non-type slice backfilling on (default) or off.
    r_est_factor : float
        Factor on the simulated response-time estimate (0.75).

    Examples
    --------
    A long job alone on one node runs only in long slices (and, by non-type
    backfilling, in the others' idle time): with backfilling off, 3000 s of
    work in 2460 s of effective time per interval.

    >>> from simlib.engine.simulator import Simulator
    >>> j = Job(0, 1, 0.0, 1, 3000.0, 3000.0)
    >>> j.features = {"sl_scr": 1.0, "sl_sno": 1.0}
    >>> pol = ScojoPECT(interval=3600.0, short_slice=600.0, overhead=60.0,
    ...                 non_type_backfilling=False, short_max=60.0, medium_max=600.0)
    >>> sim = Simulator(Platform.homogeneous(4, cores_per_node=4, sockets_per_node=2), [j], pol)
    >>> sim.run(); j.start, j.finish          # long slice: [1080, 3600); work 2460 + 540
    (1140.0, 5280.0)
    """

    name = "scojo_pect"
    paper = "zeng: Zeng & Sodan §4.7, §5.1 (Scojo-PECT: Esbaugh & Sodan, HPCC 2007)"
    description = ("Scojo-PECT time slices (short/medium/long virtual machines), conservative "
                   "backfilling per virtual machine, space sharing (SSP)")
    rigid = False
    layers = len(TYPES)
    #: Planning units per node: 1 (whole nodes, space sharing); a subclass
    #: that semi-time-shares nodes plans in halves (one core of each CPU).
    units_per_node = 1
    #: Skip, without releasing and reserving it again, a queued job that
    #: cannot move (compression) or cannot be backfilled into another type's
    #: slice, by exact tests (free counts; the room it would find, asked
    #: without changing the plan). Off only in the paired test that checks
    #: the schedules are the same without them.
    skip_hopeless: bool = True
    defaults = {"interval": 3600.0, "short_slice": 600.0, "medium_share": 0.3,
                "long_share": 0.7, "overhead": 60.0, "short_max": 600.0,
                "medium_max": 10800.0, "max_sl": 1.25, "self_sl2": 1.12,
                "non_type_backfilling": True, "r_est_factor": 0.75}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        unknown = set(p) - set(self.defaults)
        if unknown:
            raise ConfigError(f"{self.name}: unknown parameter(s) {', '.join(sorted(unknown))}")
        for key in ("interval", "medium_share", "long_share", "max_sl", "self_sl2",
                    "r_est_factor", "short_max", "medium_max"):
            if not p[key] > 0:
                raise ConfigError(f"{self.name}: parameter {key} must be > 0, not {p[key]!r}")
        for key in ("short_slice", "overhead"):
            if not p[key] >= 0:
                raise ConfigError(f"{self.name}: parameter {key} must be >= 0, not {p[key]!r}")
        if p["short_slice"] >= p["interval"]:
            raise ConfigError(f"{self.name}: short_slice ({p['short_slice']}) must be shorter "
                              f"than the interval ({p['interval']})")
        if p["short_max"] >= p["medium_max"]:
            raise ConfigError(f"{self.name}: short_max must be below medium_max")
        self.slices = SliceSchedule(float(p["interval"]), float(p["short_slice"]),
                                    float(p["medium_share"]), float(p["long_share"]),
                                    float(p["overhead"]))
        for with_short in (True, False):
            for vm in (("short",) if with_short else ()) + ("medium", "long"):
                if not self.slices.effective(vm, with_short) > 0:
                    raise ConfigError(f"{self.name}: the {vm} slice is not longer than the "
                                      f"overhead ({p['overhead']} s)")

    # ------------------------------------------------------------- set-up
    def attach(self, sim) -> None:
        super().attach(sim)
        if sim.ledger.layers != len(TYPES):
            raise ConfigError(f"{self.name}: the simulator needs layers={len(TYPES)} "
                              f"(one per virtual machine), not {sim.ledger.layers}")
        plat = sim.platform
        self.cpus = plat.cpus
        u = self.units_per_node
        #: The plans' resources: ``units_per_node`` units per node (unit
        #: ``i`` is on node ``i // units_per_node``).
        self.unit_platform = Platform.homogeneous(plat.nodes * u, cores_per_node=u,
                                                  name=f"{plat.nodes}nodes")
        self.node_choice = LowestIds() if u == 1 else WholeNodes(u)
        self.vms = {t: VirtualMachine(t, k, self.unit_platform) for k, t in enumerate(TYPES)}
        #: Node of each core, as a list: read at every start, suspension and
        #: resumption (numpy indexing per core would cost more than the rest).
        self.core_node = plat.core_node.tolist()
        self.placers: dict[int, PerCore] = {}
        p = self.params
        #: job idx -> type, ppn, units needed, planned duration, rate
        #: The units each started job occupies (while running: busy_units).
        self.units: dict[int, Allocation] = {}
        self.plan: dict[int, tuple[str, int, int, float, float]] = {}
        self.reservation: dict[int, tuple[float, Allocation]] = {}
        self.r_est: dict[int, float] = {}
        #: Virtual times: each job's reservation at submission and its start
        #: (its virtual machine's clock when it started), for the guarantee
        #: of conservative backfilling: started <= reserved.
        self.v_reserved: dict[int, float] = {}
        self.v_started: dict[int, float] = {}
        for job in sim.jobs:
            f = job.features
            if f is None or "sl_scr" not in f or "sl_sno" not in f:
                raise ConfigError(f"{self.name}: job {job.job_id} has no self slowdowns "
                                  "(features sl_scr, sl_sno)")
            ppn = int(f.get("ppn") or ssp_ppn(job.procs, f["sl_scr"], f["sl_sno"],
                                              p["max_sl"], p["self_sl2"]))
            if ppn < 1 or ppn > int(plat.cores_per_node.min()):
                raise ConfigError(f"{self.name}: job {job.job_id}: {ppn} processes per node "
                                  f"do not fit nodes of {int(plat.cores_per_node.min())} cores")
            slow = self_slowdown(ppn, f["sl_scr"], f["sl_sno"])
            k = -(-job.procs // ppn)
            vm = classify(job.requested_time, p["short_max"], p["medium_max"])
            self.plan[job.idx] = (vm, ppn, k * u, job.requested_time * slow, 1.0 / slow)
            if k > plat.nodes:
                raise ConfigError(f"{self.name}: job {job.job_id} needs {k} nodes at {ppn} "
                                  f"processes per node; the machine has {plat.nodes}")
        # Slices: the interval being played and its layout, the slice index in it.
        self.unfinished = len(sim.jobs)
        self.interval_start = 0.0
        self.layout: list[tuple[str, float, float]] = []
        self.with_short = False
        self.slice_no = -1
        self.active: VirtualMachine | None = None
        self.slice_end = 0.0
        #: Non-type jobs running in the active slice: idx -> their block in its plan.
        self.guests: dict[int, tuple[float, float, Allocation]] = {}
        self.wakeups: set[float] = set()
        #: Physical usage after each round: (time, used nodes, used cores, waiting jobs).
        self.usage: list[tuple[float, int, int, int]] = []
        self.slice_log: list[tuple[float, float, float, str]] = []
        self._wall_memo: tuple = (None, None, None)   # see _wall_of
        self.node_procs = [0] * plat.nodes
        #: job idx -> (its cores, ((node, its cores there), ...)) while it holds cores (see _use)
        self._per_node: dict[int, tuple] = {}
        self.used_nodes = 0
        #: Bit mask of the plan units some running job occupies now.
        self.busy_units = 0
        self.used_cores = 0
        self.waiting = 0
        self.switches = 0
        self.preemptions = 0
        sim.observe(self)
        self._begin_interval(0.0)

    # ------------------------------------------------------ engine observer
    def _use(self, job: Job, sign: int) -> None:
        # The job's cores per node, counted once: a job keeps its cores (the
        # same list) from its start to its end, suspended or not.
        held = self._per_node.get(job.idx)
        if held is None or held[0] is not job.alloc:
            cpus, node = self.cpus, self.core_node
            per: dict[int, int] = {}
            for c in job.alloc:
                n = node[c % cpus]
                per[n] = per.get(n, 0) + 1
            held = self._per_node[job.idx] = (job.alloc, tuple(per.items()))
        npro = self.node_procs
        used = self.used_nodes
        # A node is counted while its count of processes is above 0 (counts
        # are never negative): counted when it leaves 0, uncounted at 0.
        for n, k in held[1]:
            before = npro[n]
            npro[n] = after = before + sign * k
            if not before:
                used += 1
            elif not after:
                used -= 1
        self.used_nodes = used
        self.used_cores += sign * len(job.alloc)
        units = self.units[job.idx].mask
        self.busy_units = self.busy_units | units if sign > 0 else self.busy_units & ~units

    def job_started(self, job, now):
        self._use(job, +1)

    def job_resumed(self, job, now):
        self._use(job, +1)

    def job_suspended(self, job, now):
        self._use(job, -1)

    def job_ended(self, job, now):
        self._use(job, -1)
        self._per_node.pop(job.idx, None)

    # --------------------------------------------------------------- slices
    def _begin_interval(self, start: float) -> None:
        short = self.vms["short"]
        self.interval_start = start
        self.with_short = bool(short.queue or short.held)
        self.layout = self.slices.layout(self.with_short)
        self.slice_no = -1
        self._next_slice(start)

    def _next_slice(self, now: float) -> None:
        """End the running slice (if any) at ``now`` and open the next one."""
        sim = self.sim
        vm = self.active
        if vm is not None:
            for idx in list(vm.held):
                job = vm.held[idx]
                if job.state == RUNNING:
                    sim.suspend(job)
                    self.preemptions += 1
            for idx in list(self.guests):
                job = sim.jobs[idx]
                if job.state == RUNNING:
                    sim.suspend(job)
                    self.preemptions += 1
                self._drop_guest(idx, now)
            vm.vbase = vm.vnow(now)
            vm.active = False
            self.active = None
        self.slice_no += 1
        if self.slice_no == len(self.layout):
            self._begin_interval(self.interval_start + self.slices.interval)
            return
        name, offset, length = self.layout[self.slice_no]
        start = self.interval_start + offset
        self.slice_end = start + length
        effective = start + min(self.slices.overhead, length)
        self.switches += 1
        self.slice_log.append((start, effective, self.slice_end, name))
        if self.unfinished:
            sim.set_timer(effective, ("effective", name))
            sim.set_timer(self.slice_end, ("slice_end", name))

    def _open(self, name: str, now: float) -> None:
        vm = self.vms[name]
        vm.active = True
        vm.wall_base = now
        self.active = vm
        for job in list(vm.held.values()):
            if job.state == SUSPENDED:
                self.sim.resume(job)

    # ---------------------------------------------------------------- round
    def on_round(self, now, finished, submitted, timers, changed):
        sim = self.sim
        for job in finished:
            self._finish(job, now)
        for payload in timers:
            if payload is None:
                continue
            kind = payload[0]
            if kind == "slice_end":
                self._next_slice(now)
            elif kind == "effective":
                self._open(payload[1], now)
            elif kind == "due":
                self.wakeups.discard(payload[1])
        for vm in self.vms.values():
            if vm.early:
                vm.early = False
                self._compress(vm, vm.vnow(now))
        for job in submitted:
            self._submit(job, now)
        active = self.active
        if active is not None:
            self._start_due(active, now)
            if self.params["non_type_backfilling"]:
                self._non_type_backfill(active, now)
            self._wake_for_next_due(active, now)
        for vm in self.vms.values():
            vm.profile.advance(vm.vnow(now))
            if len(vm.profile.times) > 2 * (len(vm.queue) + len(vm.held)) + 16:
                vm.profile.compact()
        row = (now, self.used_nodes, self.used_cores, self.waiting)
        usage = self.usage
        if usage and usage[-1][0] == now:
            usage[-1] = row
        else:
            usage.append(row)
        if sim.debug:
            self._check(now)

    def _finish(self, job: Job, now: float) -> None:
        self.unfinished -= 1
        vm = self.vms[self.plan[job.idx][0]]
        del vm.held[job.idx]
        vend, alloc = self.reservation.pop(job.idx)
        v = vm.vnow(now)
        if vend > v + _EPS:
            _release(vm.profile, v, vend, alloc)
            vm.early = True
        if job.idx in self.guests:
            self._drop_guest(job.idx, now)

    def _drop_guest(self, idx: int, now: float) -> None:
        """Give back what is left of a non-type job's block in the active plan."""
        vfrom, vto, alloc = self.guests.pop(idx)
        host = self.active
        v = host.vnow(now)
        if vto > v + _EPS:
            _release(host.profile, max(v, vfrom), vto, alloc)
            host.early = True

    def _submit(self, job: Job, now: float) -> None:
        vm_name, ppn, k, dur, _ = self.plan[job.idx]
        vm = self.vms[vm_name]
        v = vm.vnow(now)
        vm.profile.advance(v)
        start, alloc = vm.profile.earliest_start(self.node_choice, k, dur, v)
        vm.profile.reserve(start, start + dur, alloc)
        self.reservation[job.idx] = (start, alloc)
        self.v_reserved[job.idx] = start
        job.data = start
        vm.queue.append(job)
        self.waiting += 1
        self.r_est[job.idx] = self.params["r_est_factor"] * (
            self._wall_of(vm, start + dur, now) - job.submit)

    def _compress(self, vm: VirtualMachine, v: float) -> None:
        """Move each queued job, in FCFS order, to its earliest start before its old one.

        A job is skipped without releasing its reservation when no step
        before its old start has ``k`` free units (:class:`PeakFree`).
        """
        prof = vm.profile
        prof.advance(v)
        peak = PeakFree(prof)
        for job in vm.queue:
            old, alloc = self.reservation[job.idx]
            if old <= v:
                continue
            _, _, k, dur, _ = self.plan[job.idx]
            if peak.before(old) < k and self.skip_hopeless:
                continue
            prof.release(old, old + dur, alloc)
            start, new = prof.earliest_start(self.node_choice, k, dur, v, limit=old)
            alloc = alloc if new is None else new
            prof.reserve(start, start + dur, alloc)
            peak.changed_from(start)
            self.reservation[job.idx] = (start, alloc)
            job.data = start

    def _cores(self, job: Job, nodes: Allocation, layer: int) -> list[int]:
        """Core ids (in ``layer``) for ``job``'s processes on ``nodes`` (§4.9)."""
        ppn = self.plan[job.idx][1]
        placer = self.placers.get(ppn)
        if placer is None:
            placer = self.placers[ppn] = PerCore(ppn)
        u = self.units_per_node
        # The placer's choice among all cores of these nodes (plan "cores" are units).
        got = placer.select_whole(self.sim.platform, sorted({unit // u for unit in nodes.cores}),
                                  job.procs)
        if got is None:  # pragma: no cover - whole free nodes always host ppn processes
            raise SimulationError(f"{self.name}: cannot place job {job.job_id} on nodes {nodes.cores}")
        off = layer * self.cpus
        return [c + off for c in ids_of(got)]

    def _launch(self, vm: VirtualMachine, job: Job, nodes: Allocation) -> bool:
        """Start ``job`` of ``vm`` on ``nodes`` now; False if a core is still held."""
        if nodes.mask & self.busy_units:
            # A job planned to end at this instant has not ended yet (its
            # virtual and wall clocks differ by rounding): its completion,
            # at this instant, brings the next round.
            return False
        cores = self._cores(job, nodes, vm.layer)
        self.units[job.idx] = nodes
        self.sim.start(job, ids=cores, rate=self.plan[job.idx][4])
        self.v_started[job.idx] = vm.vnow(self.sim.now)
        vm.held[job.idx] = job
        self.waiting -= 1
        return True

    def _start_due(self, vm: VirtualMachine, now: float) -> None:
        v = vm.vnow(now)
        started = False
        for job in vm.queue:
            start, alloc = self.reservation[job.idx]
            if start <= v + _EPS:
                dur = self.plan[job.idx][3]
                if self._launch(vm, job, alloc):
                    self.reservation[job.idx] = (start + dur, alloc)
                    started = True
        if started:
            vm.queue = [j for j in vm.queue if j.state == WAITING]

    def _wake_for_next_due(self, vm: VirtualMachine, now: float) -> None:
        v = vm.vnow(now)
        # A job due now that could not start waits for a job ending at this
        # very instant (rounding): that completion brings the next round.
        # The earliest reservation after v + _EPS (a loop: this runs every round).
        nxt, after, reservation = math.inf, v + _EPS, self.reservation
        for j in vm.queue:
            s = reservation[j.idx][0]
            if after < s < nxt:
                nxt = s
        if nxt == math.inf:
            return
        wall = now + (nxt - v)
        if wall < self.slice_end and wall not in self.wakeups:
            self.wakeups.add(wall)
            self.sim.set_timer(wall, ("due", wall))

    # ------------------------------------------------ non-type backfilling
    def _non_type_backfill(self, host: VirtualMachine, now: float) -> None:
        sim = self.sim
        v = host.vnow(now)
        v_end = host.vbase + (self.slice_end - host.wall_base)
        if v_end - v <= _EPS:
            return
        idle = host.profile.hole(v, v_end - v) & ~self.busy_units
        if not idle:
            return
        for name in TYPES:
            guest = self.vms[name]
            if guest is host:
                continue
            for job in list(guest.held.values()):
                if job.state != SUSPENDED or job.idx in self.guests:
                    continue
                together = self._guest_unit(job)   # the job, or its whole group
                mask = 0
                for j in together:
                    mask |= self.reservation[j.idx][1].mask
                if not together or mask & idle != mask:
                    continue
                for j in together:
                    sim.resume(j)
                    self._host(j, self.reservation[j.idx][1], v, v_end)
                idle &= ~mask
                if not idle:
                    return
            gv = guest.vnow(now)
            guest.profile.advance(gv)
            started = False
            masks = guest.profile.masks  # masks[0]: the step at gv (advanced above)
            for job in guest.queue:
                _, _, k, dur, _ = self.plan[job.idx]
                if k > idle.bit_count() or not self._may_backfill(job):
                    continue
                old, alloc = self.reservation[job.idx]
                # Its room lies within the idle units free at gv once its own
                # reservation is given back: with too few there, releasing and
                # reserving it again would change nothing.
                if ((masks[0] | alloc.mask) & idle).bit_count() < k and self.skip_hopeless:
                    continue
                end = old + dur
                old = max(old, gv)  # what is left of a due job's reservation
                if self.skip_hopeless and self._no_room(guest.profile, gv, dur, old, end, alloc, idle, k):
                    continue
                _release(guest.profile, old, end, alloc)
                room = guest.profile.hole(gv, dur) & idle
                nodes = (self.node_choice.select(self.unit_platform, room, k)
                         if room.bit_count() >= k else None)
                if nodes is not None:
                    guest.profile.reserve(gv, gv + dur, nodes)
                    if self._launch(guest, job, nodes):
                        self.reservation[job.idx] = (gv + dur, nodes)
                        self._host(job, nodes, v, v_end)
                        self._backfilled(job)
                        idle &= ~nodes.mask
                        started = True
                        if not idle:
                            break
                        continue
                    guest.profile.release(gv, gv + dur, nodes)
                if end > old:
                    guest.profile.reserve(old, end, alloc)
            if started:
                guest.queue = [j for j in guest.queue if j.state == WAITING]
            if not idle:
                return

    @staticmethod
    def _no_room(profile, gv, dur, old, end, alloc, idle, k) -> bool:
        """Whether a queued job, its reservation ``[old, end)`` given back, finds
        fewer than ``k`` of the ``idle`` units free for ``[gv, gv+dur)``, when
        releasing and reserving it again would leave ``profile``'s lists as
        they are (both ends are breakpoints): then the question is asked
        without changing the profile (False: ask it the long way)."""
        times = profile.times
        if end > old:
            if (times[bisect_right(times, old) - 1] != old
                    or times[bisect_right(times, end) - 1] != end):
                return False  # a release would cut a step: the lists would change
            given = [(old, end, alloc.mask)]
        else:
            given = []
        return (profile.hole_given_back(gv, dur, given) & idle).bit_count() < k

    def _guest_unit(self, job: Job) -> list[Job]:
        """The suspended jobs that resume with ``job`` in another type's slice
        (here: ``job`` alone; none: it may not)."""
        return [job]

    def _may_backfill(self, job: Job) -> bool:
        """Whether a waiting job may start in another type's slice (all may, here)."""
        return True

    def _backfilled(self, job: Job) -> None:
        """Called when a waiting job has started in another type's slice."""

    def _host(self, job: Job, nodes: Allocation, v: float, v_end: float) -> None:
        """Block ``nodes`` in the active plan for a non-type job until the slice's end."""
        self.active.profile.reserve(v, v_end, nodes)
        self.guests[job.idx] = (v, v_end, nodes)

    # ------------------------------------------------------------ estimates
    def _wall_of(self, vm: VirtualMachine, vtarget: float, now: float) -> float:
        """Wall time at which ``vm``'s clock reaches ``vtarget``.

        The current interval as laid out; later intervals like it, except
        that a short job's own wait makes them hold a short slice.
        """
        need = vtarget - vm.vnow(now)
        if need <= 0:
            return now
        # What does not depend on vtarget is kept for the round (the policy
        # asks for hundreds of targets per round): a new layout list comes
        # with every interval.
        memo = self._wall_memo
        if memo[0] is not vm or memo[1] != now or memo[2] is not self.layout:
            memo = self._wall_memo = (vm, now, self.layout, *self._wall_plan(vm, now))
        _, _, _, first, base, per_interval, later, interval = memo
        for eff_from, span in first:
            if need <= span:
                return eff_from + need
            need -= span
        while True:
            if need > per_interval:  # skip whole intervals at once
                whole = math.ceil(need / per_interval) - 1
                need -= whole * per_interval
                base += whole * interval
            for offset, head, length in later:
                eff_from = base + offset + head
                if not eff_from > base:  # max(base, eff_from)
                    eff_from = base
                eff_to = base + offset + length
                if eff_to > eff_from:
                    if need <= eff_to - eff_from:
                        return eff_from + need
                    need -= eff_to - eff_from
            base += interval

    def _wall_plan(self, vm: VirtualMachine, now: float) -> tuple:
        """For :meth:`_wall_of` from ``now``: ``vm``'s effective spans left in this
        interval as laid out (``(from, length)`` each), the next interval's
        start, ``vm``'s effective time per later interval, its slices then and
        the interval."""
        base = self.interval_start
        name = vm.name
        # self.layout is always the slices' layout of self.with_short, once
        # an interval has begun.
        own = self.slices.slices_of(name, self.with_short)[1] if self.layout else ()
        first = []
        for offset, head, length in own:
            eff_from = max(now, base + offset + head)
            eff_to = base + offset + length
            if eff_to > eff_from:
                first.append((eff_from, eff_to - eff_from))
        per_interval, later = self.slices.slices_of(name, self.with_short or name == "short")  # > 0 (checked)
        return tuple(first), base + self.slices.interval, per_interval, later, self.slices.interval

    # ---------------------------------------------------------------- checks
    def _check(self, now: float) -> None:
        """Debug mode: the usage counters agree with the running jobs."""
        running = [j for j in self.sim.running.values() if j.state == RUNNING]
        cores = sum(len(j.alloc) for j in running)
        nodes = len({int(self.sim.platform.core_node[c % self.cpus]) for j in running
                     for c in j.alloc})
        if (cores, nodes) != (self.used_cores, self.used_nodes):
            raise SimulationError(f"t={now}: usage counters {self.used_cores} cores / "
                                  f"{self.used_nodes} nodes, running jobs use {cores} / {nodes}")
        if self.active is None and running:
            raise SimulationError(f"t={now}: jobs run during a slice switch: "
                                  f"{[j.job_id for j in running[:3]]}")


__all__ = ["ScojoPECT", "SliceSchedule", "VirtualMachine", "TYPES", "classify", "ssp_ppn",
           "self_slowdown"]
