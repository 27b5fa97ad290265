"""Tests of simlib.batsim.run: finding an installation, the stand-in warning,
failures and timeouts (with fake processes, always run), and real Batsim +
pybatsim runs on a hand-made workload (marked ``batsim``).

Hand-computed expectations (4 nodes, zero-latency platform, jobs of
``delay`` profiles, walltimes above the delays):

* job 1: 2 nodes, submitted at 1, runs 10 s, walltime 20 -> starts at 1, ends at 11
* job 2: 4 nodes, submitted at 2, runs 5 s -> waits for job 1: starts at 11
* job 3: 2 nodes, submitted at 3, runs 3 s, walltime 5. FCFS keeps it
  behind job 2 (starts at 16); EASY backfills it at 3 (it ends by 8, before
  job 2's reservation at 21 = job 1's start + walltime, and it uses the 2
  free nodes).
"""
from __future__ import annotations

import csv
import json
import os
import stat
import warnings

import pytest

from simlib.batsim import run as batsim_run
from simlib.batsim.run import (
    BatsimRunError,
    BatsimUnavailable,
    IntervalsetStandinWarning,
    find_batsim,
    run_batsim,
)
from simlib.errors import ConfigError

WORKLOAD = {
    "nb_res": 4,
    "jobs": [
        {"id": "1", "subtime": 1, "walltime": 20, "res": 2, "profile": "d10"},
        {"id": "2", "subtime": 2, "walltime": 20, "res": 4, "profile": "d5"},
        {"id": "3", "subtime": 3, "walltime": 5, "res": 2, "profile": "d3"},
    ],
    "profiles": {
        "d10": {"type": "delay", "delay": 10},
        "d5": {"type": "delay", "delay": 5},
        "d3": {"type": "delay", "delay": 3},
    },
}

# Four compute hosts and a master host, every link of zero latency.
PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<zone id="AS0" routing="Full">
  <cluster id="compute" prefix="node-" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="0"/>
  <cluster id="master" prefix="master" suffix="" radical="0-0" speed="1Gf" bw="125MBps" lat="0">
    <prop id="role" value="master"/>
  </cluster>
  <link id="backbone" bandwidth="1.25GBps" latency="0"/>
  <zoneRoute src="compute" dst="master" gw_src="node-compute_router" gw_dst="mastermaster_router">
    <link_ctn id="backbone"/>
  </zoneRoute>
</zone>
</platform>
"""


def _executable(path, text="#!/bin/sh\nexit 0\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _fake_install(prefix, batsim="#!/bin/sh\nexit 0\n", pybatsim="#!/bin/sh\nexit 0\n"):
    _executable(prefix / "bin" / "batsim", batsim)
    _executable(prefix / "pybatsim-venv" / "bin" / "pybatsim", pybatsim)
    return prefix


def _inputs(tmp_path, workload=WORKLOAD):
    wl = tmp_path / "workload.json"
    wl.write_text(json.dumps(workload))
    pf = tmp_path / "platform.xml"
    pf.write_text(PLATFORM)
    return wl, pf


def _starts(jobs_csv):
    with open(jobs_csv, newline="") as f:
        return {row["job_id"]: float(row["starting_time"]) for row in csv.DictReader(f)}


# --- always run ---------------------------------------------------------------

def test_empty_prefix_says_what_to_run(tmp_path):
    with pytest.raises(BatsimUnavailable) as info:
        find_batsim(tmp_path)
    message = str(info.value)
    assert f"scripts/batsim.sh install {tmp_path}" in message
    assert str(tmp_path / "bin" / "batsim") in message
    assert isinstance(info.value, ConfigError)


def test_prefix_from_the_environment_then_the_default(tmp_path, monkeypatch):
    _fake_install(tmp_path)
    monkeypatch.setenv(batsim_run.PREFIX_ENV, str(tmp_path))
    assert find_batsim().prefix == tmp_path
    monkeypatch.delenv(batsim_run.PREFIX_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(BatsimUnavailable, match=str(tmp_path / "home" / ".local" / "batsim")):
        find_batsim()


def test_standin_is_detected_from_the_marker_file(tmp_path, capsys):
    install = find_batsim(_fake_install(tmp_path))
    assert not install.standin
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert batsim_run.warn_if_standin(install) is False
    (tmp_path / batsim_run.STANDIN_MARKER).write_text("built from simlib's stand-in\n")
    install = find_batsim(tmp_path)
    assert install.standin and "stand-in" in install.standin_note
    with pytest.warns(IntervalsetStandinWarning, match="STAND-IN"):
        batsim_run.warn_if_standin(install)
    assert "!!! WARNING" in capsys.readouterr().err


def test_a_failing_batsim_is_reported_with_both_logs(tmp_path):
    prefix = _fake_install(tmp_path / "prefix",
                           batsim="#!/bin/sh\necho 'platform is broken' >&2\nexit 3\n",
                           pybatsim="#!/bin/sh\necho 'scheduler waiting'\nexec sleep 30\n")
    wl, pf = _inputs(tmp_path)
    with pytest.raises(BatsimRunError) as info:
        run_batsim(wl, pf, "easyBackfill", tmp_path / "out", prefix=prefix, timeout=20)
    message = str(info.value)
    assert "batsim exited with status 3" in message
    assert "platform is broken" in message and "scheduler waiting" in message


def test_a_run_past_its_timeout_is_killed(tmp_path):
    prefix = _fake_install(tmp_path / "prefix", batsim="#!/bin/sh\nexec sleep 30\n",
                           pybatsim="#!/bin/sh\nexec sleep 30\n")
    wl, pf = _inputs(tmp_path)
    with pytest.raises(BatsimRunError, match="timed out after 0.5 s"):
        run_batsim(wl, pf, "easyBackfill", tmp_path / "out", prefix=prefix, timeout=0.5)


def test_success_without_a_jobs_file_is_an_error(tmp_path):
    wl, pf = _inputs(tmp_path)
    with pytest.raises(BatsimRunError, match="out_jobs.csv is missing"):
        run_batsim(wl, pf, "easyBackfill", tmp_path / "out", prefix=_fake_install(tmp_path / "p"))


def test_missing_input_file(tmp_path):
    with pytest.raises(ConfigError, match="no file"):
        run_batsim(tmp_path / "nope.json", tmp_path / "nope.xml", "schedFcfs", tmp_path / "out",
                   prefix=_fake_install(tmp_path / "p"))


# --- real Batsim --------------------------------------------------------------

@pytest.fixture
def quiet_standin():
    """Run Batsim whether or not it links the intervalset stand-in (it warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntervalsetStandinWarning)
        yield


@pytest.mark.batsim
@pytest.mark.parametrize("scheduler, job3_start", [("easyBackfill", 3.0), ("schedFcfs", 16.0)])
def test_hand_computed_starts(tmp_path, quiet_standin, scheduler, job3_start):
    wl, pf = _inputs(tmp_path)
    result = run_batsim(wl, pf, scheduler, tmp_path / "out", timeout=120)
    assert result.jobs_csv == tmp_path / "out" / "out_jobs.csv"
    assert os.fspath(result) == str(result.jobs_csv)
    assert _starts(result.jobs_csv) == {"1": 1.0, "2": 11.0, "3": job3_start}
    assert result.batsim.wall_s > 0 and result.batsim.peak_rss_kib > 0
    assert result.scheduler.peak_rss_kib > 0
    assert result.wall_s >= result.batsim.wall_s


@pytest.mark.batsim
def test_easy_backfill_schedules_after_each_event(tmp_path, quiet_standin):
    """pybatsim's easyBackfill runs a pass per event of Batsim's message.

    Jobs 1 and 2 (2 nodes each) end together at 11 and Batsim sends both
    completions in one message, but the pass after the first one sees 2 free
    nodes: the head job 3 (4 nodes) does not fit, its reservation is at 101
    (job 2's walltime), so job 4 (2 nodes, walltime 2) is backfilled at 11
    and job 3 waits until 13. An EASY that handles simultaneous events
    together would start job 3 at 11 and job 4 at 16.
    """
    workload = {
        "nb_res": 4,
        "jobs": [
            {"id": "1", "subtime": 1, "walltime": 100, "res": 2, "profile": "d10"},
            {"id": "2", "subtime": 1, "walltime": 100, "res": 2, "profile": "d10"},
            {"id": "3", "subtime": 2, "walltime": 10, "res": 4, "profile": "d5"},
            {"id": "4", "subtime": 3, "walltime": 2, "res": 2, "profile": "d2"},
        ],
        "profiles": {"d10": {"type": "delay", "delay": 10}, "d5": {"type": "delay", "delay": 5},
                     "d2": {"type": "delay", "delay": 2}},
    }
    wl, pf = _inputs(tmp_path, workload)
    result = run_batsim(wl, pf, "easyBackfill", tmp_path / "out", timeout=120)
    assert _starts(result.jobs_csv) == {"1": 1.0, "2": 1.0, "3": 13.0, "4": 11.0}


@pytest.mark.batsim
def test_a_delay_reaching_its_walltime_is_killed_then(tmp_path, quiet_standin):
    workload = {
        "nb_res": 4,
        "jobs": [
            {"id": "1", "subtime": 1, "walltime": 10, "res": 1, "profile": "d10"},
            {"id": "2", "subtime": 1, "walltime": 5, "res": 1, "profile": "d10"},
            {"id": "3", "subtime": 1, "walltime": -1, "res": 1, "profile": "d10"},
        ],
        "profiles": {"d10": {"type": "delay", "delay": 10}},
    }
    wl, pf = _inputs(tmp_path, workload)
    result = run_batsim(wl, pf, "schedFcfs", tmp_path / "out", timeout=120)
    with open(result.jobs_csv, newline="") as f:
        rows = {r["job_id"]: (float(r["finish_time"]), r["final_state"]) for r in csv.DictReader(f)}
    # a delay equal to the walltime ends at the same time but counts as killed
    assert rows == {"1": (11.0, "COMPLETED_WALLTIME_REACHED"),
                    "2": (6.0, "COMPLETED_WALLTIME_REACHED"),
                    "3": (11.0, "COMPLETED_SUCCESSFULLY")}


# --- the cross-check on a real trace -------------------------------------------

#: simlib's options that follow pybatsim's schedFcfs: the lowest block of
#: consecutive free machines, and a scheduling pass after each event.
PYBATSIM_FCFS = ["--policy", "fcfs", "--param", "allocation=contiguous", "--passes", "per_event"]


@pytest.mark.batsim
@pytest.mark.real_traces
def test_our_fcfs_gives_batsims_starts_on_a_real_trace_prefix(tmp_path, quiet_standin,
                                                               real_traces):
    """The first 1,000 cleaned jobs of KTH-SP2 under Batsim + schedFcfs and under our
    FCFS with schedFcfs's rules: every start time equal. (Without ``--passes
    per_event`` job 414 starts 2 s later than in Batsim, benchmarks/RESULTS_batsim.md.)"""
    import subprocess
    import sys
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from simlib.batsim.crosscheck import delay_inputs, read_batsim_jobs

    wl, pf, _ = delay_inputs(next(Path(real_traces).glob("KTH-SP2-*.swf.gz")), 1000, tmp_path)
    result = run_batsim(wl, pf, "schedFcfs", tmp_path / "batsim", timeout=600)
    simlib = Path(sys.executable).with_name("simlib")
    subprocess.run([str(simlib), "simulate", str(wl), *PYBATSIM_FCFS, "-o",
                    str(tmp_path / "ours.csv")], check=True, capture_output=True)
    ours = pd.read_csv(tmp_path / "ours.csv").set_index("job_id")
    theirs = read_batsim_jobs(result.jobs_csv).loc[ours.index]
    assert len(ours) == 1000
    np.testing.assert_allclose(ours["starting_time"], theirs["starting_time"], rtol=0, atol=1e-6)
    assert (ours["allocated_resources"] == theirs["allocated_resources"]).all()
