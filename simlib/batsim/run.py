"""Run one Batsim simulation with a pybatsim scheduler, timed and measured.

Batsim (the simulator, C++) and pybatsim (the scheduler, Python) are two
processes talking over a ZeroMQ socket: pybatsim binds it, Batsim connects to
it. :func:`run_batsim` picks a free local port, starts both, waits for both,
and returns a :class:`BatsimRun` with the path of Batsim's
``<outdir>/out_jobs.csv`` and the whole-process wall time, CPU time and peak
memory of each process (from ``wait4``, so only that process is counted).

Both are installed by ``scripts/batsim.sh install PREFIX``;
:func:`find_batsim` finds the prefix (argument, else ``$SIMLIB_BATSIM``,
else :data:`DEFAULT_PREFIX`) and raises :class:`BatsimUnavailable` saying
what to run when it is incomplete. A prefix whose intervalset library is
simlib's stand-in (``PREFIX/INTERVALSET-STANDIN``, built only on request)
is usable, but every run warns about it loudly.

Examples
--------
>>> from simlib.batsim.run import find_batsim, BatsimUnavailable
>>> try:
...     find_batsim("/nonexistent")
... except BatsimUnavailable as exc:
...     print("scripts/batsim.sh install /nonexistent" in str(exc))
True
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from simlib.errors import ConfigError, SimlibError

#: Environment variable naming the prefix Batsim was installed into.
PREFIX_ENV = "SIMLIB_BATSIM"
#: Prefix used when neither an argument nor :data:`PREFIX_ENV` names one.
DEFAULT_PREFIX = Path("~/.local/batsim")
#: File ``scripts/batsim.sh`` writes in a prefix built with the intervalset stand-in.
STANDIN_MARKER = "INTERVALSET-STANDIN"
#: Lines of each log quoted in a :class:`BatsimRunError`.
LOG_TAIL_LINES = 30


class BatsimUnavailable(ConfigError):
    """Batsim or pybatsim is not installed in the prefix looked at."""


class BatsimRunError(SimlibError, RuntimeError):
    """A Batsim run failed or timed out; the message quotes both logs' tails."""


class IntervalsetStandinWarning(UserWarning):
    """The Batsim in use links simlib's intervalset stand-in, not upstream's."""


@dataclass(frozen=True)
class BatsimInstall:
    """Paths of one Batsim installation (see :func:`find_batsim`).

    Attributes
    ----------
    prefix : pathlib.Path
        The installation prefix.
    batsim : pathlib.Path
        The ``batsim`` binary (``PREFIX/bin/batsim``).
    pybatsim : pathlib.Path
        pybatsim's launcher in its own venv (``PREFIX/pybatsim-venv/bin/pybatsim``).
    standin : bool
        True when the intervalset library is simlib's stand-in.
    standin_note : str
        The marker file's text when ``standin``, else ``""``.
    """

    prefix: Path
    batsim: Path
    pybatsim: Path
    standin: bool
    standin_note: str = ""


@dataclass(frozen=True)
class ProcessUsage:
    """Whole-process resource use of one child process.

    Attributes
    ----------
    wall_s : float
        Seconds from just before its start until it was reaped.
    user_s, sys_s : float
        CPU seconds in user and kernel mode.
    peak_rss_kib : int
        Peak resident set size (``ru_maxrss``, KiB on Linux).
    """

    wall_s: float
    user_s: float
    sys_s: float
    peak_rss_kib: int


@dataclass(frozen=True)
class BatsimRun:
    """Result of :func:`run_batsim`; ``os.fspath(run)`` is the jobs file.

    Attributes
    ----------
    jobs_csv : pathlib.Path
        Batsim's ``<outdir>/out_jobs.csv``.
    batsim : ProcessUsage
        Batsim's process (the simulator).
    scheduler : ProcessUsage
        pybatsim's process (the scheduler).
    wall_s : float
        Seconds from the first start until both processes were reaped.
    standin : bool
        True when Batsim linked simlib's intervalset stand-in.
    batsim_log, scheduler_log : pathlib.Path
        Both processes' merged stdout and stderr.
    """

    jobs_csv: Path
    batsim: ProcessUsage
    scheduler: ProcessUsage
    wall_s: float
    standin: bool
    batsim_log: Path
    scheduler_log: Path

    def __fspath__(self) -> str:
        return str(self.jobs_csv)


def _prefix(prefix) -> Path:
    if prefix is None:
        prefix = os.environ.get(PREFIX_ENV) or DEFAULT_PREFIX
    return Path(prefix).expanduser()


def find_batsim(prefix=None) -> BatsimInstall:
    """Locate Batsim and pybatsim installed by ``scripts/batsim.sh``.

    Parameters
    ----------
    prefix : str or os.PathLike, optional
        Installation prefix; default ``$SIMLIB_BATSIM``, else
        :data:`DEFAULT_PREFIX` (``~/.local/batsim``).

    Returns
    -------
    BatsimInstall

    Raises
    ------
    BatsimUnavailable
        When the binary or pybatsim's launcher is missing; the message says
        which and the command that installs them.
    """
    where = _prefix(prefix)
    batsim = where / "bin" / "batsim"
    pybatsim = where / "pybatsim-venv" / "bin" / "pybatsim"
    missing = [str(p) for p in (batsim, pybatsim) if not os.access(p, os.X_OK)]
    if missing:
        raise BatsimUnavailable(
            f"Batsim is not installed in {where} (missing {', '.join(missing)}): run "
            f"'scripts/batsim.sh install {where}' (needs root for apt-get, ~2 min on 2 cores), "
            f"or point {PREFIX_ENV} at an existing prefix")
    marker = where / STANDIN_MARKER
    standin = marker.is_file()
    note = marker.read_text(encoding="utf-8", errors="replace") if standin else ""
    return BatsimInstall(where, batsim, pybatsim, standin, note)


def warn_if_standin(install: BatsimInstall) -> bool:
    """Warn loudly (a warning and a stderr line) when ``install`` uses the stand-in.

    Returns
    -------
    bool
        ``install.standin``.
    """
    if install.standin:
        message = (f"Batsim in {install.prefix} links simlib's intervalset STAND-IN, not the "
                   f"upstream library (see {install.prefix / STANDIN_MARKER}); "
                   "its results are provisional")
        print(f"!!! WARNING: {message}", file=sys.stderr)
        warnings.warn(message, IntervalsetStandinWarning, stacklevel=3)
    return install.standin


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return f"(cannot read {path}: {exc})"
    return "\n".join(text[-lines:]) or "(empty)"


class _Child:
    """A started process reaped with ``wait4``, so its own rusage is known."""

    def __init__(self, name, argv, log: Path, env, cwd: Path):
        self.name = name
        self.log = log
        self.started = time.perf_counter()
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                                         start_new_session=True)
        self.status: int | None = None
        self.usage: ProcessUsage | None = None

    def poll(self) -> int | None:
        if self.status is None:
            pid, status, rusage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                self.proc.returncode = self.status
                self.usage = ProcessUsage(time.perf_counter() - self.started, rusage.ru_utime,
                                          rusage.ru_stime, rusage.ru_maxrss)
        return self.status

    def kill(self):
        if self.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            while self.poll() is None:
                time.sleep(0.01)


def run_batsim(workload_json, platform_xml, scheduler, outdir, *, prefix=None,
               timeout=600.0, scheduler_options=None, quiet=True) -> BatsimRun:
    """Simulate a workload on a platform with Batsim and a pybatsim scheduler.

    Parameters
    ----------
    workload_json : str or os.PathLike
        Batsim JSON workload (``nb_res``, ``jobs``, ``profiles``).
    platform_xml : str or os.PathLike
        SimGrid platform with one host whose ``role`` property is ``master``.
    scheduler : str
        pybatsim scheduler: a module of its ``schedulers`` package
        (``easyBackfill``, ``schedFcfs``, ``fcfsSchedSleep``, ...) or a path
        to a scheduler file.
    outdir : str or os.PathLike
        Created if needed, and both processes' working directory; receives
        ``out_jobs.csv``, Batsim's other outputs (``out_*``), pybatsim's
        (``pybatsim_*``) and both logs (``batsim.log``, ``pybatsim.log``).
    prefix : str or os.PathLike, optional
        Installation prefix (see :func:`find_batsim`).
    timeout : float
        Seconds allowed to the whole run; both processes are killed after it.
    scheduler_options : dict, optional
        JSON options given to the scheduler (pybatsim's ``-o``); its
        ``export-prefix`` defaults to ``<outdir>/pybatsim``.
    quiet : bool
        Run Batsim with ``-q`` and pybatsim at ``warning`` level (their
        per-event logging otherwise dominates the measured times).

    Returns
    -------
    BatsimRun
        ``jobs_csv`` and each process's wall time, CPU time and peak memory.

    Raises
    ------
    BatsimUnavailable
        When Batsim is not installed (see :func:`find_batsim`).
    BatsimRunError
        When a process fails, the run times out, or ``out_jobs.csv`` is
        missing; the message quotes the tail of both logs.

    Warns
    -----
    IntervalsetStandinWarning
        When the installation links simlib's intervalset stand-in.
    """
    install = find_batsim(prefix)
    standin = warn_if_standin(install)
    workload_json, platform_xml = Path(workload_json).resolve(), Path(platform_xml).resolve()
    for path in (workload_json, platform_xml):
        if not path.is_file():
            raise ConfigError(f"run_batsim: no file {path}")
    out = Path(outdir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    jobs_csv = out / "out_jobs.csv"
    jobs_csv.unlink(missing_ok=True)
    port = free_port()
    # pybatsim's scheduler API writes <export-prefix>_events.csv (default: ./out).
    options = {"export-prefix": str(out / "pybatsim"), **(scheduler_options or {})}
    sched_argv = [str(install.pybatsim), scheduler, "-s", f"tcp://127.0.0.1:{port}",
                  "-t", "0", "-o", json.dumps(options)]
    batsim_argv = [str(install.batsim), "-p", str(platform_xml), "-w", str(workload_json),
                   "-e", str(out / "out"), "-s", f"tcp://localhost:{port}"]
    if quiet:
        sched_argv += ["-v", "warning"]
        batsim_argv += ["-q"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    started = time.perf_counter()
    sched = _Child("pybatsim", sched_argv, out / "pybatsim.log", env, out)
    children = [sched]
    try:
        batsim = _Child("batsim", batsim_argv, out / "batsim.log", env, out)
        children.append(batsim)
        failure = None
        while failure is None and any(c.poll() is None for c in children):
            if time.perf_counter() - started > timeout:
                failure = f"timed out after {timeout:g} s"
            for c in children:
                if c.poll() not in (None, 0):
                    failure = f"{c.name} exited with status {c.status}"
            time.sleep(0.005)
    finally:
        for c in children:
            c.kill()
    wall = time.perf_counter() - started
    if failure is None and not jobs_csv.is_file():
        failure = f"both exited with status 0 but {jobs_csv} is missing"
    if failure is not None:
        raise BatsimRunError(
            f"Batsim run {failure} (scheduler {scheduler}, workload {workload_json}, "
            f"platform {platform_xml}).\n"
            f"--- {batsim.log} (last lines) ---\n{_tail(batsim.log)}\n"
            f"--- {sched.log} (last lines) ---\n{_tail(sched.log)}")
    return BatsimRun(jobs_csv, batsim.usage, sched.usage, wall, standin, batsim.log, sched.log)
