"""Jobs as the engine sees them.

Life cycle: ``PENDING`` (not yet submitted) -> ``WAITING`` (queued) ->
``RUNNING`` <-> ``SUSPENDED`` -> ``DONE``. A suspended job (paper Z's time
slices) keeps its cores and makes no progress until it is resumed on them.

When a job ends is the business of the execution model
(:mod:`simlib.engine.execution`). Under the default rate model a running
job holds ``work_left`` (seconds of work at full speed, measured at
``last_update``) and a ``rate`` (work seconds per wall-clock second); its
finish time is derived, ``last_update + work_left / rate``, and is
recomputed whenever the rate changes. Rigid jobs keep rate 1; a shrunk
malleable job (paper U), a coscheduled or suspended job (paper Z) or a job
whose runtime is changed by a command (paper K) only differ in how the rate
or work is updated. ``work_left``, ``last_update`` and ``version`` are that
model's bookkeeping: read progress through ``Simulator.work_done``.

``requested_time`` is the user's estimate (SWF field 9); policies plan with
``estimated_end``; the engine ends jobs by their actual work.
"""
from __future__ import annotations

PENDING, WAITING, RUNNING, DONE = 0, 1, 2, 3
#: Started, holds its cores, makes no progress (``Simulator.suspend``).
SUSPENDED = 4
STATE_NAMES = ("PENDING", "WAITING", "RUNNING", "DONE", "SUSPENDED")


class Job:
    """One job. Attribute access is hot, hence ``__slots__``.

    Attributes
    ----------
    idx : int
        Dense index 0..n-1 in submission order (the engine's identity).
    job_id : int
        Identifier from the workload (SWF field 1).
    submit : float
        Submission time (s).
    procs : int
        Processes requested (the rigid size).
    requested_time : float
        User estimate of the runtime (s); reservations are based on it.
    work : float
        Total work in full-speed seconds (the trace runtime, or the
        requested time when the job is killed at its walltime).
    killed : bool
        True when the job will be (or was) ended at its walltime.
    state : int
        ``PENDING``, ``WAITING``, ``RUNNING``, ``SUSPENDED`` or ``DONE``.
    rate : float
        Progress rate the policy asked for (work seconds per second); a
        suspended job resumes at it.
    cpus : int
        Cores currently allocated (< procs while shrunk; kept while suspended).
    alloc : list of int
        Identities of the allocated cores.
    estimated_end : float
        When the policy should expect the cores back.
    requested_start : float
        Start time a *dedicated* job asks for (paper K), ``-1`` for batch jobs.
    cpu_util : float
        Fraction of its runtime the job computes (SWF field 6 / field 4),
        NaN when unknown; used by paper U's time model.
    features : dict or None
        Workload attributes beyond the SWF fields that a policy reads (paper
        Z: the job's self slowdowns and type), None when there are none.
    """

    __slots__ = (
        "idx", "job_id", "submit", "procs", "requested_time", "work", "killed",
        "cpu_util", "state", "start", "finish", "rate", "work_left",
        "last_update", "version", "cpus", "alloc", "estimated_end", "data",
        "requested_start", "features",
    )

    def __init__(self, idx: int, job_id: int, submit: float, procs: int,
                 requested_time: float, work: float, killed: bool = False,
                 cpu_util: float = 1.0) -> None:
        self.idx = idx
        self.job_id = job_id
        self.submit = submit
        self.procs = procs
        self.requested_time = requested_time
        self.work = work
        self.killed = killed
        self.cpu_util = cpu_util
        self.state = PENDING
        self.start = -1.0
        self.finish = -1.0
        self.rate = 0.0
        self.work_left = work
        self.last_update = 0.0
        self.version = 0  # rate model: invalidates superseded completions
        self.cpus = 0
        self.alloc: list[int] = []
        self.estimated_end = float("inf")
        self.data: dict | None = None  # free slot for policies (reservation, skip count...)
        self.requested_start = -1.0  # dedicated jobs (paper K): fixed start time, -1 = batch
        self.features: dict | None = None

    def __repr__(self) -> str:
        return (f"Job(id={self.job_id}, submit={self.submit}, procs={self.procs}, "
                f"req={self.requested_time}, work={self.work}, {STATE_NAMES[self.state]})")
