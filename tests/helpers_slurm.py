"""Shared helpers for the Slurm tests and benchmark: the one-node cluster of
``scripts/slurm-local.sh`` and Snakemake runs submitted to it.

Used by ``tests/test_slurm.py`` and ``benchmarks/bench_slurm.py``.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from helpers_pipeline import snakemake as pipeline_snakemake

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "slurm-local.sh"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
PROFILE = REPO / "profiles" / "slurm-local"
#: Programs `slurm-local.sh start` runs, in start order.
DAEMONS = ("munged", "slurmctld", "slurmd")


class ClusterUnavailable(RuntimeError):
    """The local Slurm cluster cannot be installed or started here."""


def missing_requirements() -> str | None:
    """Why a local cluster cannot be started here, or None if it can.

    Examples
    --------
    >>> missing_requirements()                # doctest: +SKIP
    'starting slurmd/munged needs root'
    """
    if os.name != "posix" or not Path("/proc").is_dir():
        return "needs Linux (/proc)"
    missing = [b for b in ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue")
               if shutil.which(b) is None]
    if missing:
        return (f"Slurm/munge not installed (missing {', '.join(missing)}); "
                f"as root: {SCRIPT.relative_to(REPO)} install")
    if os.geteuid() != 0:
        return "starting slurmd/munged needs root"
    if shutil.which("runuser") is None:
        return "runuser not found (util-linux)"
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LocalCluster:
    """One cluster started by ``scripts/slurm-local.sh`` in ``directory``.

    Examples
    --------
    >>> c = LocalCluster(Path("/tmp/simlib-slurm-x"))   # doctest: +SKIP
    >>> c.start(); c.pids()                              # doctest: +SKIP
    {'munged': 101, 'slurmctld': 102, 'slurmd': 103}
    >>> c.stop()                                         # doctest: +SKIP
    """

    directory: Path
    ctld_port: int = field(default_factory=free_port)
    slurmd_port: int = field(default_factory=free_port)
    started: dict = field(default_factory=dict)

    @property
    def env(self) -> dict:
        return {**os.environ,
                "SLURM_LOCAL_DIR": str(self.directory),
                "SLURM_LOCAL_CTLD_PORT": str(self.ctld_port),
                "SLURM_LOCAL_SLURMD_PORT": str(self.slurmd_port)}

    def script(self, command: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(SCRIPT), command], env=self.env, text=True,
                              capture_output=True, timeout=timeout)

    def start(self) -> None:
        """Start the daemons; raise ClusterUnavailable with the script's reason."""
        proc = self.script("start")
        if proc.returncode != 0:
            raise ClusterUnavailable(
                f"{SCRIPT.relative_to(REPO)} start failed:\n{proc.stdout}{proc.stderr}")
        self.started = self.pids()
        if set(self.started) != set(DAEMONS):
            raise ClusterUnavailable(f"daemons not all running after start: {self.started}")

    def pids(self) -> dict:
        """PIDs recorded in the cluster's run/ directory, by program."""
        out = {}
        for name in DAEMONS:
            f = self.directory / "run" / f"{name}.pid"
            if f.exists() and f.read_text().strip().isdigit():
                out[name] = int(f.read_text())
        return out

    def stop(self) -> str:
        proc = self.script("stop")
        return proc.stdout + proc.stderr

    def logs(self) -> str:
        """Tail of every daemon log, for failure messages."""
        parts = []
        for f in sorted(self.directory.glob("log/*")) + sorted(self.directory.glob("munge/*.log")):
            try:
                parts.append(f"== {f}\n" + "\n".join(f.read_text(errors="replace").splitlines()[-15:]))
            except OSError:
                pass
        return "\n".join(parts)


def new_cluster_dir() -> Path:
    """A fresh, short directory for a cluster (it holds a Unix socket)."""
    return Path(tempfile.mkdtemp(prefix="simlib-slurm-", dir="/tmp"))


def processes_of(directory: Path) -> list:
    """(pid, command line) of live processes whose command line names directory."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(directory) in cmd and int(proc.name) != os.getpid():
            found.append((int(proc.name), cmd.strip()))
    return found


def pid_alive(pid: int) -> bool:
    """True while pid exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


# ------------------------------------------------------------ Snakemake runs

def snakemake(workdir, *args, env=None, timeout=900):
    """Run the repository's Snakefile in workdir on the trace fixtures
    (:mod:`helpers_pipeline`); return (returncode, output, seconds)."""
    t0 = time.perf_counter()
    code, out = pipeline_snakemake(workdir, *args, env=env, check=False, cores=None,
                                   timeout=timeout)
    return code, out, time.perf_counter() - t0


SUBMITTED = re.compile(r"has been submitted with SLURM jobid (\d+) \(log: ([^)]+)\)")


def submitted_jobs(output: str) -> list:
    """(Slurm job id, Slurm log path) of every submission in a Snakemake output."""
    return [(int(j), Path(p)) for j, p in SUBMITTED.findall(output)]


def run_id(output: str) -> str:
    """The executor's run ID, which is every submitted job's Slurm job name."""
    m = re.search(r"SLURM run ID: (\S+)", output)
    if not m:
        raise AssertionError(f"no 'SLURM run ID' in the output:\n{output[-3000:]}")
    return m.group(1)


def job_records(name: str) -> list:
    """Slurm's record of every job named ``name`` (finished ones too, for
    MinJobAge): dicts with id, state, submit, start, end (epoch seconds)."""
    fmt = "%i|%T|%V|%S|%e"
    out = subprocess.run(["squeue", "--states=all", "--noheader", f"--name={name}",
                          f"--format={fmt}"], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    records = []
    for line in out.splitlines():
        jobid, state, *times = line.strip().split("|")
        stamps = [time.mktime(time.strptime(t, "%Y-%m-%dT%H:%M:%S")) if "T" in t else None
                  for t in times]
        records.append(dict(id=int(jobid), state=state, submit=stamps[0], start=stamps[1],
                            end=stamps[2]))
    return sorted(records, key=lambda r: r["id"])
