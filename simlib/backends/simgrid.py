"""SimGrid execution backend: jobs timed by SimGrid's flow-level network model (paper D).

Paper D (Dutot, Poquet & Trystram, HeteroPar 2015) lets SimGrid decide how
long a job runs, because a job's communications cross cluster switches and a
shared backbone, so its duration depends on *where* it is placed and on what
else runs. This module keeps that split: the policy decides where and when
(the same policy objects as under the rate model), SimGrid decides how long.

Pieces
------
* :class:`Cluster` and :class:`NetworkPlatform`: clusters of identical nodes,
  each node on a private link (``bw``, ``lat``; by default one link per
  direction, SimGrid's ``SPLITDUPLEX``, or one shared by both directions:
  ``private_links``) to its cluster switch
  (``switch_bw``, ``switch_lat``), the cluster switches joined by one shared
  backbone switch (``backbone_bw``, ``backbone_lat``). :meth:`NetworkPlatform.to_xml`
  writes it as a SimGrid platform file; node ids ``0..N-1`` follow cluster
  order (host ``node-<id>``), so contiguity is an id range and locality is
  "all in one cluster", and :meth:`NetworkPlatform.platform` gives the
  engine's :class:`~simlib.platform.Platform` with the same ids.
* :class:`SimGridExecution`: an :class:`~simlib.engine.execution.ExecutionModel`.
  Each started job is one SimGrid *parallel task* on exactly its allocated
  hosts (``ptask_L07`` host model) with the computation vector and the
  communication matrix a ``task`` function gives, run by a job actor (reused
  from job to job) and killed at its walltime (``job.requested_time``). The
  simulator's loop runs inside a SimGrid actor, so releases and completions
  happen in SimGrid's simulated time, as in Batsim (which grew out of paper
  D's tool).
* :func:`simulate_simgrid`: one run, in a fresh process (SimGrid allows one
  engine per process), returning the same :class:`~simlib.runner.SimResult`
  as :func:`simlib.runner.simulate`.

SimGrid itself is Debian's ``python3-simgrid`` (3.32); :func:`require_simgrid`
says what to install when it is missing, and nothing falls back to another
timing model.

Examples
--------
>>> net = NetworkPlatform.homogeneous(clusters=2, nodes=2, speed=1e9, bw=1.25e8, lat=1e-6,
...                                   switch_bw=1.25e9, switch_lat=0.0,
...                                   backbone_bw=1.25e9, backbone_lat=1e-6)
>>> net.nodes, net.platform().node_cluster.tolist()
(4, [0, 0, 1, 1])
>>> print(net.to_xml().splitlines()[5].strip()[:60])
<cluster id="cluster-0" prefix="node-" suffix="" radical="0-
"""
from __future__ import annotations

import heapq
import math
import multiprocessing
import os
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Sequence
from xml.sax.saxutils import quoteattr

import numpy as np

from ..engine.execution import ExecutionModel
from ..engine.job import Job
from ..errors import ConfigError, SimulationError
from ..platform import Platform

__all__ = ["Cluster", "NetworkPlatform", "PRIVATE_LINKS", "SimGridExecution",
           "SimGridUnavailable", "require_simgrid", "run_isolated", "simulate_simgrid"]

INF = math.inf

#: What to do when SimGrid cannot be imported (also in the README).
INSTALL_HINT = (
    "paper D needs SimGrid's Python bindings (SimGrid 3.32): on Debian or Ubuntu run "
    "`sudo apt-get install python3-simgrid`, then `make install` to expose the module to "
    ".venv (scripts/simgrid.sh link); elsewhere build SimGrid with its Python bindings for "
    "this Python and put the `simgrid` module on PYTHONPATH")


class SimGridUnavailable(ConfigError):
    """SimGrid's Python module cannot be imported; the message says what to install."""


def require_simgrid():
    """The ``simgrid`` module, or :class:`SimGridUnavailable` naming what to install.

    Examples
    --------
    >>> require_simgrid().simgrid_version            # doctest: +SKIP
    '3.32.0'
    """
    try:
        import simgrid
    except ImportError as exc:
        raise SimGridUnavailable(f"SimGrid is not available ({exc}): {INSTALL_HINT}") from None
    return simgrid


# ------------------------------------------------------------------ platforms
@dataclass(frozen=True)
class Cluster:
    """One cluster: ``nodes`` identical nodes on private links to one switch.

    Units: ``speed`` in flop/s, bandwidths in bytes/s, latencies in seconds.
    """

    name: str
    nodes: int
    speed: float
    bw: float
    lat: float
    switch_bw: float
    switch_lat: float

    def __post_init__(self):
        if int(self.nodes) != self.nodes or self.nodes < 1:
            raise ConfigError(f"cluster {self.name}: nodes must be a positive integer, "
                              f"not {self.nodes!r}")
        for field in ("speed", "bw", "switch_bw"):
            value = getattr(self, field)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ConfigError(f"cluster {self.name}: {field} must be a positive number, "
                                  f"not {value!r}")
        for field in ("lat", "switch_lat"):
            value = getattr(self, field)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ConfigError(f"cluster {self.name}: {field} must be a number >= 0, "
                                  f"not {value!r}")


#: How a node's private link carries its two directions -> SimGrid's sharing policy.
PRIVATE_LINKS = {"split_duplex": "SPLITDUPLEX", "shared": "SHARED"}


#: Speeds (flop/s), bandwidths (B/s) and latencies (s) of :meth:`NetworkPlatform.one_cluster`.
ONE_CLUSTER = {"speed": 1e9, "bw": 1.25e9, "lat": 0.0, "switch_bw": 1.25e10, "switch_lat": 0.0,
               "backbone_bw": 1.25e10, "backbone_lat": 0.0}


def _num(x: float) -> str:
    """A number as SimGrid's platform parser reads it, exactly (shortest repr)."""
    return repr(float(x))


@dataclass(frozen=True)
class NetworkPlatform:
    """Clusters joined by one backbone switch: paper D's platforms (§5.1).

    Parameters
    ----------
    clusters : sequence of Cluster
        In node-id order: cluster ``k``'s nodes follow cluster ``k-1``'s.
    backbone_bw, backbone_lat : float
        The shared switch joining the clusters (bytes/s, s).
    name : str
    private_links : str
        How each node's private link carries its two directions (:data:`PRIVATE_LINKS`):
        ``"split_duplex"`` (SimGrid's ``SPLITDUPLEX``: one link per direction, each
        with the full ``bw``, so a node sends and receives ``bw`` at once) or
        ``"shared"`` (SimGrid's ``SHARED``: one link whose ``bw`` the node's sent and
        received bytes share).
    """

    clusters: tuple[Cluster, ...]
    backbone_bw: float
    backbone_lat: float
    name: str = "platform"
    private_links: str = "split_duplex"

    def __post_init__(self):
        object.__setattr__(self, "clusters", tuple(self.clusters))
        if not self.clusters:
            raise ConfigError(f"platform {self.name}: no cluster")
        if not (self.backbone_bw > 0 and math.isfinite(self.backbone_bw)):
            raise ConfigError(f"platform {self.name}: backbone_bw must be a positive number")
        if not (self.backbone_lat >= 0 and math.isfinite(self.backbone_lat)):
            raise ConfigError(f"platform {self.name}: backbone_lat must be a number >= 0")
        if self.private_links not in PRIVATE_LINKS:
            raise ConfigError(f"platform {self.name}: private_links must be one of "
                              f"{list(PRIVATE_LINKS)}, not {self.private_links!r}")

    @classmethod
    def homogeneous(cls, *, clusters: int, nodes: int, speed: float, bw: float, lat: float,
                    switch_bw: float, switch_lat: float, backbone_bw: float,
                    backbone_lat: float, name: str = "homogeneous",
                    private_links: str = "split_duplex") -> "NetworkPlatform":
        """``clusters`` identical clusters of ``nodes`` nodes."""
        return cls(tuple(Cluster(f"c{k}", nodes, speed, bw, lat, switch_bw, switch_lat)
                         for k in range(clusters)), backbone_bw, backbone_lat, name,
                   private_links)

    @classmethod
    def one_cluster(cls, nodes: int, name: str = "cluster") -> "NetworkPlatform":
        """One cluster of ``nodes`` hosts with zero-latency links: the machine of an SWF
        trace for Batsim (``simlib convert --platform``). Its speeds and bandwidths are
        not read by ``delay`` profiles; without latency, Batsim adds no time to a decision.
        """
        return cls.homogeneous(clusters=1, nodes=nodes, name=name, **ONE_CLUSTER)

    def to_batsim_xml(self) -> str:
        """:meth:`to_xml` for Batsim: its master host (``master_host0``) and host
        names of one width, so that Batsim's machine ids are this platform's node ids."""
        return self.to_xml(master="master_host", fixed_width=True)

    @property
    def nodes(self) -> int:
        return sum(c.nodes for c in self.clusters)

    def first_ids(self) -> list[int]:
        """Id of each cluster's first node."""
        out, k = [], 0
        for c in self.clusters:
            out.append(k)
            k += c.nodes
        return out

    def platform(self) -> Platform:
        """The engine's view: one core per node, cluster membership, relative speeds.

        Speeds are relative to the slowest cluster; policies of paper D do not
        read them (the scheduler knows only ids, §3), SimGrid uses the real ones.
        """
        cluster = np.repeat(np.arange(len(self.clusters)), [c.nodes for c in self.clusters])
        speed = np.repeat([c.speed for c in self.clusters], [c.nodes for c in self.clusters])
        return Platform(np.ones(self.nodes, dtype=np.int64), cluster, speed / speed.min(),
                        name=self.name)

    def host_names(self, *, fixed_width: bool = False) -> list[str]:
        """Name of each node, in id order: ``node-<id>``, or fixed-width numbers.

        SimGrid lists hosts, and Batsim v4.2.1 numbers them, in the
        lexicographic order of their names, where ``node-10`` comes before
        ``node-2``. With ``fixed_width`` every name has as many digits
        (``node-100`` ... ``node-227`` for 128 nodes: the id plus a power of
        ten), so that order is the id order.

        Examples
        --------
        >>> net = NetworkPlatform.homogeneous(clusters=1, nodes=12, speed=1e9, bw=1e9, lat=0.0,
        ...                                   switch_bw=1e9, switch_lat=0.0, backbone_bw=1e9,
        ...                                   backbone_lat=0.0)
        >>> net.host_names()[-3:], net.host_names(fixed_width=True)[-3:]
        (['node-9', 'node-10', 'node-11'], ['node-109', 'node-110', 'node-111'])
        """
        base = 10 ** len(str(self.nodes - 1)) if fixed_width else 0
        return [f"node-{base + i}" for i in range(self.nodes)]

    def to_xml(self, *, master: str | None = None, fixed_width: bool = False) -> str:
        """SimGrid platform file (DTD version 4.1).

        Each cluster is a SimGrid ``<cluster>``: private links ``bw``/``lat``
        (``private_links``: ``split_duplex``, SimGrid's ``SPLITDUPLEX``, each
        direction a link of the full bandwidth, as in SimGrid's Griffon
        description; ``shared``, SimGrid's ``SHARED``, one link both directions
        share) and a backbone that plays the cluster switch
        (``bb_bw``/``bb_lat``, shared by all flows through it). Clusters talk through
        the one shared ``backbone`` link between their switches.

        Parameters
        ----------
        master : str, optional
            Also write Batsim's master host, under this name: a one-host
            cluster with the property ``role=master`` (Batsim runs its own
            processes there; jobs never do), joined to every cluster's switch
            through its own ``master-link`` (the backbone's bandwidth, no
            latency: no job traffic crosses it, and a latency there would
            delay every message of Batsim's to and from the jobs).
        fixed_width : bool
            Host names with fixed-width numbers (:meth:`host_names`), so that
            SimGrid's and Batsim's host order is the id order.
        """
        lines = [
            "<?xml version='1.0'?>",
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
            '<platform version="4.1">',
            f"  <!-- {self.name}: written by simlib.backends.simgrid; node ids follow "
            "cluster order -->",
            f'  <zone id={quoteattr(self.name)} routing="Full">',
        ]
        base = 10 ** len(str(self.nodes - 1)) if fixed_width else 0
        first = self.first_ids()
        for k, (c, lo) in enumerate(zip(self.clusters, first)):
            lines.append(
                f'    <cluster id="cluster-{k}" prefix="node-" suffix="" '
                f'radical="{base + lo}-{base + lo + c.nodes - 1}" speed="{_num(c.speed)}f" '
                f'bw="{_num(c.bw)}Bps" lat="{_num(c.lat)}s" bb_bw="{_num(c.switch_bw)}Bps" '
                f'bb_lat="{_num(c.switch_lat)}s" sharing_policy="{PRIVATE_LINKS[self.private_links]}" '
                f'bb_sharing_policy="SHARED" router_id="cluster-{k}-switch"/>')
        if master is not None:
            speed = _num(max(c.speed for c in self.clusters))
            lines += [
                f'    <cluster id="master" prefix={quoteattr(master)} suffix="" radical="0-0" '
                f'speed="{speed}f" bw="{_num(self.backbone_bw)}Bps" lat="0.0s" '
                f'bb_bw="{_num(self.backbone_bw)}Bps" bb_lat="0.0s" router_id="master-switch">',
                '      <prop id="role" value="master"/>',
                "    </cluster>",
                f'    <link id="master-link" bandwidth="{_num(self.backbone_bw)}Bps" '
                'latency="0.0s" sharing_policy="SHARED"/>']
        if len(self.clusters) > 1:
            lines.append(f'    <link id="backbone" bandwidth="{_num(self.backbone_bw)}Bps" '
                         f'latency="{_num(self.backbone_lat)}s" sharing_policy="SHARED"/>')
            for a in range(len(self.clusters)):
                for b in range(a + 1, len(self.clusters)):
                    lines.append(
                        f'    <zoneRoute src="cluster-{a}" dst="cluster-{b}" '
                        f'gw_src="cluster-{a}-switch" gw_dst="cluster-{b}-switch">'
                        '<link_ctn id="backbone"/></zoneRoute>')
        if master is not None:
            for a in range(len(self.clusters)):
                lines.append(
                    f'    <zoneRoute src="cluster-{a}" dst="master" gw_src="cluster-{a}-switch" '
                    'gw_dst="master-switch"><link_ctn id="master-link"/></zoneRoute>')
        lines += ["  </zone>", "</platform>", ""]
        return "\n".join(lines)


# ------------------------------------------------------------ execution model
#: ``task(job) -> (flops, bytes)``: the computation vector (one amount per
#: allocated host, in allocation order) and the communication matrix
#: flattened row-major (``bytes[r * size + c]`` from host r to host c).
TaskFunction = Callable[[Job], "tuple[Sequence[float], Sequence[float]]"]


class SimGridExecution(ExecutionModel):
    """Jobs as SimGrid parallel tasks; must run inside a SimGrid actor.

    Each started job is given to a job actor (an idle one, else a new one
    on the job's first host: :class:`_JobActor`) that runs the job's parallel
    task on its hosts; when the task completes, the actor reports the job,
    wakes the scheduler actor through a semaphore and waits for another job.
    :meth:`next_completion_time` blocks the scheduler actor until a job ends,
    a walltime is reached or the simulator's horizon arrives, so SimGrid's
    clock is the simulation's clock.

    Walltimes are enforced here, by the scheduler actor, not by the job
    actors' own timers: a job still running at ``start + requested_time``
    (the instant the policy planned its nodes free from) is cancelled and
    reported killed at exactly that instant. A timer in the job's actor
    would fire in a later SimGrid scheduling round than the scheduler's own
    wake-up at the same instant, and the policy would find the nodes still
    taken.

    Only what paper D's policies do is supported: rigid jobs, started once.
    Resizing, rate changes and suspension raise :class:`SimulationError`.

    Parameters
    ----------
    hosts : sequence of simgrid.Host
        Host of each node id.
    task : callable
        ``task(job) -> (flops, bytes)``, see :data:`TaskFunction`.
    """

    def __init__(self, hosts: Sequence[Any], task: TaskFunction) -> None:
        self.sg = require_simgrid()
        self.hosts = list(hosts)
        self.task = task
        self._sem = self.sg.Semaphore(0)
        self._done: list[Job] = []
        self._done_at = INF  # when the jobs in _done ended
        self._running: dict[int, Any] = {}  # job idx -> its SimGrid activity (None until it starts)
        self._walltimes: list[tuple[float, int]] = []  # heap of (start + walltime, idx)
        self._idle: list[_JobActor] = []  # job actors waiting for their next job
        self._closed = False

    def attach(self, sim) -> None:
        super().attach(sim)
        if sim.overrun != "kill":
            raise ConfigError("the SimGrid backend kills jobs at their walltime "
                              f"(overrun 'kill'), not {sim.overrun!r}")
        if sim.platform.cpus != len(self.hosts):
            raise ConfigError(f"the SimGrid platform has {len(self.hosts)} hosts, "
                              f"the engine's {sim.platform.cpus} cores")

    # ------------------------------------------------------------- notices
    def started(self, job: Job) -> None:
        hosts = [self.hosts[i] for i in job.alloc]
        flops, nbytes = self.task(job)
        if len(flops) != len(hosts) or len(nbytes) != len(hosts) ** 2:
            raise SimulationError(f"job {job.job_id}: task has {len(flops)} computation amounts "
                                  f"and {len(nbytes)} communication amounts for {len(hosts)} hosts")
        self._running[job.idx] = None
        heapq.heappush(self._walltimes, (job.start + job.requested_time, job.idx))
        work = (job, hosts, list(map(float, flops)), list(map(float, nbytes)))
        if self._idle:
            self._idle.pop().give(work)
        else:
            actor = _JobActor(self, work)
            self.sg.Actor.create(f"job-actor-{job.job_id}", hosts[0], actor.run)

    def close(self) -> None:
        """Let the idle job actors end (the scheduler actor calls this when
        the simulation is over, so SimGrid's engine can stop)."""
        self._closed = True
        while self._idle:
            self._idle.pop().give(None)

    def _execute(self, job: Job, hosts, flops, nbytes) -> None:
        sg = self.sg
        activity = sg.this_actor.exec_init(hosts, flops, nbytes)
        self._running[job.idx] = activity
        activity.start()
        try:
            activity.wait()
        except sg.CancelException:
            return  # killed at its walltime by the scheduler actor, which reported it
        if job.idx in self._running:
            del self._running[job.idx]
            self._done.append(job)
            self._sem.release()

    def _unsupported(self, job: Job, what: str) -> None:
        raise SimulationError(f"job {job.job_id}: the SimGrid backend runs rigid jobs; "
                              f"{what} is not supported")

    def resized(self, job: Job) -> None:
        self._unsupported(job, "resizing")

    def rate_changed(self, job: Job) -> None:
        self._unsupported(job, "a rate change")

    def work_changed(self, job: Job) -> None:
        self._unsupported(job, "a work change")

    def suspended(self, job: Job) -> None:
        self._unsupported(job, "suspension")

    def resumed(self, job: Job) -> None:
        self._unsupported(job, "resumption")

    # ------------------------------------------------------------- queries
    def _settle(self) -> None:
        """Let every job actor ending at this instant report (they run in
        SimGrid's scheduling rounds at the same clock)."""
        while True:
            n = len(self._done)
            self.sg.this_actor.yield_()
            if len(self._done) == n:
                return

    def next_completion_time(self, horizon: float) -> float:
        sg = self.sg
        walltimes, running = self._walltimes, self._running
        while walltimes and walltimes[0][1] not in running:
            heapq.heappop(walltimes)  # that job already ended
        deadline = walltimes[0][0] if walltimes else INF
        if self._done:
            # Already collected, not yet taken (the simulator's own event
            # came first): the same answer again.
            return self._done_at
        if not running:
            # Idle: SimGrid's clock must still reach the simulator's next
            # event, or the jobs started then would run from an earlier
            # clock (a workload whose machine empties before a later submit).
            now = sg.Engine.clock
            if now < horizon < INF:
                sg.this_actor.sleep_for(horizon - now)
            return INF
        if running:
            until = min(horizon, deadline)
            now = sg.Engine.clock
            if until == INF:
                self._sem.acquire()
            elif until > now:
                self._sem.acquire_timeout(until - now)
            self._settle()
        if self._done:
            self._done_at = sg.Engine.clock
            return self._done_at
        if deadline <= horizon and running:
            # Walltime reached: cancel every job due now and report it killed
            # at exactly its planned end.
            while walltimes and walltimes[0][0] == deadline:
                _, idx = heapq.heappop(walltimes)
                activity = running.pop(idx, False)
                if activity is False:
                    continue
                job = self.sim.jobs[idx]
                if activity is not None:
                    activity.cancel()
                job.killed = True
                self._done.append(job)
            self._done_at = deadline
            return deadline
        return INF

    def completions_at(self, now: float) -> list[Job]:
        # Deterministic order among simultaneous ends: job index.
        done = sorted(self._done, key=lambda j: j.idx)
        self._done.clear()
        sem = self._sem
        while not sem.would_block:  # one release per job its actor reported
            sem.acquire()
        return done

    def work_done(self, job: Job) -> float:
        raise SimulationError(f"job {job.job_id}: the SimGrid backend does not measure work done "
                              "(no policy of paper D asks for it)")


class _JobActor:
    """The body of a SimGrid actor that runs jobs' parallel tasks, one after
    another: made for a job when no actor is idle, then given the next job
    that starts while it waits. Starting an actor costs a thread in
    SimGrid's Python bindings (~0.25 ms, as much as a placement plan), and
    where an actor lives does not matter: a parallel task runs on the hosts
    it names, at the instant the actor starts it, the instant it is given.
    """

    __slots__ = ("model", "work", "wake")

    def __init__(self, model: SimGridExecution, work) -> None:
        self.model, self.work = model, work
        self.wake = model.sg.Semaphore(0)

    def give(self, work) -> None:
        """The next job's ``(job, hosts, flops, bytes)``, or None: stop."""
        self.work = work
        self.wake.release()

    def run(self) -> None:
        model = self.model
        while self.work is not None:
            model._execute(*self.work)
            if model._closed:  # the simulation ended while this job's report was handed over
                return
            model._idle.append(self)
            self.wake.acquire()


# ------------------------------------------------------------------ isolation
def _stay_on_one_core() -> None:
    """Keep this process's threads on the core it runs on now (Linux).

    SimGrid's Python actors are threads that run one at a time, handing over
    to each other at every simulated event. Left to move, a woken thread is
    often placed on another core -- busy with another pipeline step -- and
    waits there while this one idles: a paper D step took 25 s of wall time
    for 14.5 s of CPU beside a busy core, 12.1 s for 11.9 s kept on one
    (``benchmarks/RESULTS.md``, session 17). Schedules are not affected.
    Nothing is done where the call or ``/proc`` is missing.
    """
    try:
        with open("/proc/self/stat", "rb") as f:
            # Field 39 is the core last run on; the command name (field 2,
            # in parentheses) may hold spaces, so count after its ")".
            core = int(f.read().rsplit(b")", 1)[1].split()[36])
        if core in os.sched_getaffinity(0):
            os.sched_setaffinity(0, {core})
    except (OSError, AttributeError, IndexError, ValueError):
        pass


def _child(conn, fn, args) -> None:
    _stay_on_one_core()
    try:
        result = ("ok", fn(*args))
    except BaseException as exc:  # noqa: BLE001 -- everything goes back to the parent
        result = ("error", exc, traceback.format_exc())
    try:
        conn.send(result)
    except Exception:  # an unpicklable exception or result
        conn.send(("error", SimulationError(repr(result[1])), ""))
    conn.close()
    # Skip interpreter shutdown: SimGrid's engine is not meant to be torn down.
    os._exit(0)


def run_isolated(fn: Callable, *args) -> Any:
    """``fn(*args)`` in a forked child process; its result or its exception.

    SimGrid allows one engine per process, so every run gets a fresh process;
    fork keeps the parent's imports, which makes it cheap.
    """
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, args))
    proc.start()
    send.close()
    try:
        message = receive.recv()
    except EOFError:
        proc.join()
        raise SimulationError(f"the SimGrid run died (exit code {proc.exitcode}); "
                              "its messages are on stderr") from None
    finally:
        receive.close()
    proc.join()
    if message[0] == "error":
        exc = message[1]
        if message[2]:
            exc.add_note("in the SimGrid run's process:\n" + message[2])
        raise exc
    return message[1]


# ------------------------------------------------------------------ one run
#: SimGrid options: the parallel-task host model (paper D's jobs are parallel
#: tasks); SimGrid's own log kept to warnings and worse.
SIMGRID_OPTIONS = ("--cfg=host/model:ptask_L07", "--log=root.thres:warning",
                   "--log=xbt_cfg.thres:warning")


def _simulate_in_engine(workload, policy, network: NetworkPlatform, task: TaskFunction,
                        platform_file: str | None, workload_name: str):
    from ..runner import simulate

    sg = require_simgrid()
    engine = sg.Engine(["simlib", *SIMGRID_OPTIONS])
    if platform_file is None:
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
            f.write(network.to_xml())
            platform_file = f.name
        try:
            engine.load_platform(platform_file)
        finally:
            os.unlink(platform_file)
    else:
        engine.load_platform(str(platform_file))
    hosts = [engine.host_by_name(f"node-{i}") for i in range(network.nodes)]
    model = SimGridExecution(hosts, task)
    out: dict[str, Any] = {}

    def scheduler():
        try:
            out["result"] = simulate(workload, policy, platform=network.platform(),
                                     execution=model, workload_name=workload_name,
                                     record_timeline=False)
        except BaseException as exc:  # noqa: BLE001 -- re-raised after the engine stops
            out["error"] = exc
        model.close()

    # The scheduler lives on node 0: an actor waiting on a semaphore uses
    # neither CPU nor network, so it does not disturb the jobs there.
    sg.Actor.create("scheduler", hosts[0], scheduler)
    engine.run()
    if "error" in out:
        raise out["error"]
    result = out["result"]
    result.engine_jobs = []  # Job objects stay in the child
    return result


def simulate_simgrid(workload, policy, network: NetworkPlatform, task: TaskFunction, *,
                     platform_file=None, workload_name: str = ""):
    """Simulate ``workload`` under ``policy`` with job durations from SimGrid.

    Parameters
    ----------
    workload : Workload
        Jobs as for :func:`simlib.runner.simulate`; the requested time is the
        walltime at which SimGrid kills a job.
    policy : Policy or str
    network : NetworkPlatform
    task : callable
        ``task(job) -> (flops, bytes)`` (:data:`TaskFunction`); must be
        picklable only if the caller needs it to be -- it runs in a fork.
    platform_file : path, optional
        A platform file written from ``network`` (:meth:`NetworkPlatform.to_xml`);
        written to a temporary file when not given.
    workload_name : str

    Returns
    -------
    SimResult
        As :func:`simlib.runner.simulate` (no timeline, no engine jobs).

    Raises
    ------
    SimGridUnavailable
        SimGrid cannot be imported (checked here, before forking).
    """
    require_simgrid()
    return run_isolated(_simulate_in_engine, workload, policy, network, task, platform_file,
                        workload_name)
