"""Per-job overhead of Slurm submission and wall time of the smoke sweep on
the one-node cluster of ``scripts/slurm-local.sh``.

Usage (as root, Slurm and munge installed: ``scripts/slurm-local.sh install``)::

    .venv/bin/python benchmarks/bench_slurm.py [--no-ungrouped] [--out benchmarks/RESULTS_slurm.md]

Builds the baseline smoke cube (``results/baseline.smoke.nc``: fetch, prepare,
rescale, 36 simulations, aggregate) three ways, each in a fresh directory:

- ``local``: ``--cores <nproc>``, no Slurm (the reference);
- ``grouped``: ``--workflow-profile profiles/slurm-local`` (job groups);
- ``ungrouped``: the same profile without its ``groups``: one Slurm job per
  rule instance.

Reported per way: Slurm jobs, wall time, and from Slurm's own records the mean
queue wait (submit to start) and the mean job duration (start to end). The
per-job overhead is the extra CPU-slot time each Slurm job costs over
running the same rules locally: ``(wall_ungrouped - wall_local) * cpus /
jobs_ungrouped`` (scheduling, Snakemake start-up in the job, status polling).
All cubes are checked equal to the local one with ``simlib diff``.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from helpers_slurm import (  # noqa: E402
    PROFILE,
    SNAKEMAKE,
    ClusterUnavailable,
    LocalCluster,
    job_records,
    missing_requirements,
    new_cluster_dir,
    run_id,
    snakemake,
    submitted_jobs,
)

CUBE = "results/baseline.smoke.nc"
#: Why the numbers come out as they do; the job counts are filled in from the run.
READING = (
    "Reading: a Slurm job costs a fixed overhead here (the `sbatch`, the Snakemake start-up "
    "inside the job, the executor's status polling), which the short smoke steps cannot "
    "hide. The smoke scale batches its short runs (`scales.smoke.batch`: one job per "
    "policy rather than per run), so few jobs are left to submit, and grouping "
    "(`groups:` in the profile) {grouping}. On a shared cluster each job also waits in the "
    "queue, often for minutes, and users have job-count limits: fewer, longer jobs are the "
    "form that scales there."
)


def job_stats(output: str) -> list[tuple[str, int]]:
    """``(rule, count)`` of the first "Job stats" table in a Snakemake output, total excluded.

    Examples
    --------
    >>> out = ["Job stats:", "job   count", "---  -----", "a         2", "b  1", "total 3", ""]
    >>> job_stats("\\n".join(out))
    [('a', 2), ('b', 1)]
    """
    lines = output.splitlines()
    try:
        first = lines.index("Job stats:") + 3  # past the header and its rule line
    except ValueError:
        return []
    stats = []
    for line in lines[first:]:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit() or parts[0] == "total":
            break
        stats.append((parts[0], int(parts[1])))
    return stats


def equal_cell(r):
    """'yes' / 'NO' when the run's cube was compared with the local one, else '-'."""
    return "-" if "equal" not in r else ("yes" if r["equal"] else "NO")

def ungrouped_profile(dest: Path) -> Path:
    """profiles/slurm-local without its groups (everything from `groups:` on)."""
    text = (PROFILE / "config.yaml").read_text()
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "config.yaml").write_text(text.split("\ngroups:")[0] + "\n")
    return dest


def one_way(name: str, workdir: Path, args: list, cpus: int) -> dict:
    workdir.mkdir(parents=True)
    code, out, wall = snakemake(workdir, CUBE, *args, "--config", "scale=smoke")
    if code != 0:
        raise SystemExit(f"{name} run failed:\n{out[-4000:]}")
    row = {"way": name, "wall": wall, "jobs": 0, "queue": None, "duration": None,
           "dag": job_stats(out)}
    if "SLURM run ID" in out:
        records = job_records(run_id(out))
        assert len(records) == len(submitted_jobs(out))
        row["jobs"] = len(records)
        row["queue"] = sum(r["start"] - r["submit"] for r in records) / len(records)
        row["duration"] = sum(r["end"] - r["start"] for r in records) / len(records)
    print(f"{name}: { {k: v for k, v in row.items() if k != 'dag'} }", flush=True)
    return row


def slurm_version() -> str:
    proc = subprocess.run(["sinfo", "-V"], capture_output=True, text=True)
    return (proc.stdout + proc.stderr).strip().split()[-1]


def same_cube(a: Path, b: Path) -> bool:
    return subprocess.run([str(SNAKEMAKE.with_name("simlib")), "diff", str(a), str(b)],
                          capture_output=True).returncode == 0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-ungrouped", action="store_true",
                    help="skip the slow one-job-per-rule run (no per-job overhead then)")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS_slurm.md")
    args = ap.parse_args(argv)

    reason = missing_requirements()
    if reason:
        raise SystemExit(f"cannot start a local Slurm cluster: {reason}")
    cpus = os.cpu_count() or 1
    cluster = LocalCluster(new_cluster_dir())
    tmp = Path(tempfile.mkdtemp(prefix="bench-slurm-"))
    load_before = os.getloadavg()[0]
    try:
        cluster.start()
        version = slurm_version()  # sinfo needs the running cluster's configuration
        rows = [one_way("local", tmp / "local", ["--cores", str(cpus)], cpus),
                one_way("grouped", tmp / "grouped", ["--workflow-profile", PROFILE], cpus)]
        if not args.no_ungrouped:
            prof = ungrouped_profile(tmp / "profile-ungrouped")
            rows.append(one_way("ungrouped", tmp / "ungrouped",
                                ["--workflow-profile", prof], cpus))
        for row in rows[1:]:
            row["equal"] = same_cube(tmp / "local" / CUBE, tmp / row["way"] / CUBE)
    except ClusterUnavailable as exc:
        raise SystemExit(str(exc)) from None
    finally:
        cluster.stop()
        shutil.rmtree(cluster.directory, ignore_errors=True)
    load_after = os.getloadavg()[0]

    by = {r["way"]: r for r in rows}
    lines = [
        "# Slurm submission: per-job overhead and smoke-sweep wall time",
        "",
        f"`benchmarks/bench_slurm.py`, {time.strftime('%Y-%m-%d')}, {platform.node()}: "
        f"{cpus} CPUs, Slurm {version}, "
        f"one-node cluster of `scripts/slurm-local.sh` (CPUs={cpus}), profile "
        f"`profiles/slurm-local`. Load average {load_before:.1f} before, "
        f"{load_after:.1f} after (other work on the machine inflates the times).",
        "",
        "Target: the baseline smoke cube `results/baseline.smoke.nc`; its steps, as the "
        "local run counted them: "
        + (", ".join(f"{n} {rule}" for rule, n in by["local"]["dag"]) or "(not printed)")
        + ". The Slurm jobs are those the executor submitted (rules may carry groups of "
        "their own, which the run without the profile's `groups:` keeps).",
        "",
        "| way | Slurm jobs | wall time (s) | mean wait in queue (s) | mean job duration (s) "
        "| cube equal to local |",
        "|---|---|---|---|---|---|",
    ]
    def fmt(v):
        return "-" if v is None else f"{v:.1f}"

    for r in rows:
        lines.append(f"| {r['way']} | {r['jobs'] or '-'} | {r['wall']:.0f} | {fmt(r['queue'])} "
                     f"| {fmt(r['duration'])} | {equal_cell(r)} |")
    lines += ["", "Wait in queue is submit to start: on this one-node cluster, Slurm's "
                  "scheduling and the wait for one of the node's CPUs."]
    if "ungrouped" in by:
        u, loc = by["ungrouped"], by["local"]
        per_job = (u["wall"] - loc["wall"]) * cpus / u["jobs"]
        lines += ["", f"Per-job overhead: ({u['wall']:.0f} s - {loc['wall']:.0f} s) x {cpus} CPUs "
                      f"/ {u['jobs']} jobs = **{per_job:.1f} s per Slurm job** (queue wait, "
                      "Snakemake start-up inside the job, status polling)."]
    if "ungrouped" in by and by["grouped"]["jobs"] < by["ungrouped"]["jobs"]:
        grouping = (f"turns {by['ungrouped']['jobs']} Slurm jobs into "
                    f"{by['grouped']['jobs']}")
    elif "ungrouped" in by:
        grouping = "saves no job"
    else:
        grouping = "was not compared (`--no-ungrouped`)"
    lines += ["", READING.format(grouping=grouping)]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
