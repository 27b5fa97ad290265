"""The inputs of a cross-check with Batsim, and Batsim's jobs table read back.

The benchmark (``benchmarks/bench_batsim.py``) and the test marked ``batsim``
build their inputs the same way, here: :func:`delay_inputs` writes the first
jobs of an SWF trace as a Batsim workload and one zero-latency cluster as its
platform, for both simulators to read; :func:`read_batsim_jobs` gives
Batsim's ``out_jobs.csv`` indexed by our integer job ids.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["FIRST_SUBMIT", "delay_inputs", "read_batsim_jobs"]

#: Submit time of the first job in a cross-check: pybatsim 3.2.1's
#: ``schedFcfs`` fails an assertion on a job submitted at 0.
FIRST_SUBMIT = 1.0


def delay_inputs(trace, n_jobs: int, outdir) -> tuple[Path, Path, int]:
    """``(workload.json, platform.xml, CPUs)`` of the first ``n_jobs`` jobs of ``trace``.

    The trace is cleaned by the pipeline's rules on its MaxProcs (as ``simlib
    simulate`` does), its first ``n_jobs`` jobs become ``delay`` profiles
    (:func:`simlib.workload.batsim.from_swf`), submit times shifted so the
    first is :data:`FIRST_SUBMIT`; the platform is
    :meth:`NetworkPlatform.one_cluster <simlib.backends.simgrid.NetworkPlatform.one_cluster>`
    of MaxProcs hosts, written for Batsim.
    """
    from simlib.backends.simgrid import NetworkPlatform
    from simlib.io import write_text
    from simlib.workload.batsim import from_swf, write_batsim
    from simlib.workload.prepare import clean, subset
    from simlib.workload.swf import max_procs, read_swf

    raw = read_swf(trace)
    cpus = max_procs(raw)
    cleaned, _ = clean(raw, cpus)
    batsim = from_swf(subset(cleaned, n_jobs=n_jobs), cpus)
    batsim.subtime = batsim.subtime - batsim.subtime.min() + FIRST_SUBMIT
    outdir = Path(outdir)
    workload, platform = outdir / "workload.json", outdir / "platform.xml"
    write_batsim(batsim, workload)
    write_text(platform, NetworkPlatform.one_cluster(cpus).to_batsim_xml())
    return workload, platform, cpus


def read_batsim_jobs(path):
    """Batsim's ``out_jobs.csv`` as a DataFrame indexed by integer job id (``w0!0042`` -> 42)."""
    import pandas as pd

    table = pd.read_csv(path)
    ids = table["job_id"].astype(str).str.rsplit("!", n=1).str[-1].astype(int)
    return table.set_index(ids)
