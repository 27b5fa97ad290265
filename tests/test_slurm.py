"""The pipeline submitted to a real one-node Slurm cluster (profiles/slurm-local).

The module starts its own cluster with ``scripts/slurm-local.sh`` in a fresh
temporary directory (free ports, its own munged), runs the smoke sweep
through ``--workflow-profile profiles/slurm-local`` and compares its cube
with a local ``--cores`` run, checks how a failing job is reported and
retried, and finally stops the cluster and checks that exactly its daemons
are gone.

Needs root and Debian's Slurm and munge (``scripts/slurm-local.sh install``).
Locally the module is skipped, with the reason, when the cluster cannot be
started; in CI (``CI=true``) that is a failure.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from helpers_pipeline import fixture_traces_config
from helpers_slurm import (DAEMONS, PROFILE, REPO, SNAKEMAKE, ClusterUnavailable,
                           LocalCluster, job_records, missing_requirements,
                           new_cluster_dir, pid_alive, processes_of, run_id,
                           snakemake, submitted_jobs)

pytestmark = pytest.mark.slurm

IN_CI = os.environ.get("CI", "").lower() == "true"
CUBE = "results/baseline.smoke.nc"


def unavailable(reason: str):
    if IN_CI:
        pytest.fail(f"CI needs the local Slurm cluster: {reason}", pytrace=False)
    pytest.skip(f"no local Slurm cluster: {reason}")


@pytest.fixture(scope="module")
def cluster():
    reason = missing_requirements()
    if reason:
        unavailable(reason)
    c = LocalCluster(new_cluster_dir())
    try:
        c.start()
    except ClusterUnavailable as exc:
        c.stop()
        logs = c.logs()
        shutil.rmtree(c.directory, ignore_errors=True)
        unavailable(f"{exc}\n{logs}")
    yield c
    # Normally already done by the last test; stopping twice is harmless.
    c.stop()
    shutil.rmtree(c.directory, ignore_errors=True)


def test_start_is_idempotent(cluster):
    proc = cluster.script("start")
    assert proc.returncode == 0, proc.stderr
    assert "already running" in proc.stderr
    assert cluster.pids() == cluster.started
    assert subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                          check=True).stdout.split() == ["idle"]


# ------------------------------------------------------------- smoke sweep

def test_smoke_sweep_on_slurm_equals_local_run(cluster, tmp_path):
    on_slurm, local = tmp_path / "slurm", tmp_path / "local"
    on_slurm.mkdir()
    local.mkdir()
    # The local reference run shares the CPUs with the Slurm run, which
    # spends much of its time waiting (scheduling, status polls): overlap them.
    local_run = subprocess.Popen(
        [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(local),
         "--cores", "2", "--nocolor", CUBE, "--config", "scale=smoke",
         "--configfile", str(fixture_traces_config())],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        code, out, _ = snakemake(on_slurm, CUBE, "--workflow-profile", PROFILE,
                                 "--config", "scale=smoke")
    finally:
        local_out, _ = local_run.communicate(timeout=900)
    assert code == 0, out[-5000:] + cluster.logs()
    assert local_run.returncode == 0, local_out[-5000:]

    # Every job ran on Slurm and completed; grouping kept their number small
    # (traces, the sweep, the cube) instead of one per rule instance. At
    # smoke scale each policy's simulations are one batched job reading
    # every workload, so the sweep is one connected component: one group job.
    jobs = submitted_jobs(out)
    records = job_records(run_id(out))
    assert [r["id"] for r in records] == sorted(j for j, _ in jobs)
    assert {r["state"] for r in records} == {"COMPLETED"}
    assert len(jobs) == 3, out[-3000:]
    assert "Group job sweep" in out

    diff = subprocess.run([str(SNAKEMAKE.with_name("simlib")), "diff",
                           str(local / CUBE), str(on_slurm / CUBE)],
                          capture_output=True, text=True)
    assert diff.returncode == 0, diff.stdout + diff.stderr


# -------------------------------------------------------- failure and retry

FLAKY_POLICY = '''
"""EASY that fails on its first attempt: a test policy (config policy_modules)."""
from pathlib import Path

from simlib.policies import register
from simlib.policies.easy import EASY


class FlakyEASY(EASY):
    name = "easy_flaky"
    defaults = {"marker": ""}

    # Fails when the simulation starts, not when built: the config check
    # builds every policy before any job runs.
    def attach(self, sim):
        super().attach(sim)
        marker = Path(self.params["marker"])
        if not marker.exists():
            # The next attempt (another Slurm job) finds the marker and runs.
            marker.write_text("failed once\\n")
            raise RuntimeError(f"deliberate failure (first attempt; marker {marker})")


register(FlakyEASY)
'''

RUN = "results/runs/baseline/smoke/SDSC-SP2/easy_flaky/load0.6"


@pytest.fixture(scope="module")
def flaky(tmp_path_factory):
    """A one-simulation sweep whose policy fails once: (workdir, env, args)."""
    wd = tmp_path_factory.mktemp("flaky")
    plugins = wd / "plugins"
    plugins.mkdir()
    (plugins / "slurm_test_policies.py").write_text(FLAKY_POLICY)
    marker = wd / "failed-once"
    cfg = wd / "flaky.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        scale: smoke
        policy_modules: [slurm_test_policies]
        scales: {{smoke: {{trace_jobs: 300}}}}
        studies:
          baseline:
            traces: [SDSC-SP2]
            policies: {{easy_flaky: {{marker: '{marker}'}}}}
            loads: {{smoke: [0.6]}}
        """))
    # Slurm jobs inherit the environment (sbatch --export=ALL).
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(plugins),
                                                       os.environ.get("PYTHONPATH")]))}
    # The workload is built locally: only the simulation goes to Slurm.
    code, out, _ = snakemake(wd, "data/workloads/smoke/SDSC-SP2/load0.6.swf.gz",
                             "data/workloads/smoke/SDSC-SP2/load0.6.json",
                             "--cores", "2", "--configfile", cfg, env=env)
    assert code == 0, out[-3000:]
    return wd, env, marker, [f"{RUN}/summary.json", "--workflow-profile", PROFILE,
                             "--configfile", cfg]


def test_failing_job_fails_the_run_with_its_log_path(cluster, flaky):
    wd, env, marker, args = flaky
    marker.unlink(missing_ok=True)
    code, out, _ = snakemake(wd, *args, "--retries", "0", env=env)
    assert code != 0
    assert not (wd / RUN / "summary.json").exists()
    jobs = submitted_jobs(out)
    assert len(jobs) == 1, out[-3000:]
    (jobid, slurm_log), = jobs
    assert job_records(run_id(out))[0]["state"] == "FAILED"
    # The Slurm job's log is named in the error and holds the rule's error.
    assert f"log: {slurm_log} (check log file(s) for error details)" in out, out[-3000:]
    assert "deliberate failure (first attempt" in slurm_log.read_text()
    # So is the rule's own log.
    # The smoke scale runs a policy's (trace, load) points in one job.
    rule_log = "logs/baseline/baseline_simulate/smoke/easy_flaky.log"
    assert rule_log in out
    assert "deliberate failure" in (wd / rule_log).read_text()


def test_retries_rerun_the_failed_job(cluster, flaky):
    wd, env, marker, args = flaky
    marker.unlink(missing_ok=True)
    code, out, _ = snakemake(wd, *args, "--retries", "1", env=env)
    assert code == 0, out[-5000:]
    assert marker.exists()  # the first attempt did fail
    jobs = submitted_jobs(out)
    assert len(jobs) == 2, out[-3000:]
    assert [r["state"] for r in job_records(run_id(out))] == ["FAILED", "COMPLETED"]
    assert "Trying to restart job" in out
    summary = (wd / RUN / "summary.json").read_text()
    assert '"policy": "easy_flaky"' in summary


# -------------------------------------------------------------- shutdown

def test_stop_ends_exactly_the_daemons_it_started(cluster):
    started = cluster.started
    assert set(started) == set(DAEMONS)
    # A PID file pointing at a process the script did not start (as after PID
    # reuse) must not get it killed.
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        out = cluster.stop()
        for name, pid in started.items():
            assert not pid_alive(pid), f"{name} (PID {pid}) still running after stop:\n{out}"
        assert processes_of(cluster.directory) == []
        assert not Path("/run/slurm/conf").is_symlink() or \
            os.readlink("/run/slurm/conf") != str(cluster.directory)

        (cluster.directory / "run" / "slurmd.pid").write_text(f"{bystander.pid}\n")
        out = cluster.stop()
        assert "nothing to stop" in out
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
