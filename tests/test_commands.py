"""Tests of simlib.commands through the console script: simulate, policies, generate.

Every command runs as a user would run it, ``.venv/bin/simlib ...`` in a
subprocess, including bad input: one line on stderr, exit status 2, no
traceback, no output file left behind.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers_pipeline import synthetic_swf
from helpers_signals import ctrl_c_when, popen_with_ctrl_c

from simlib import commands
from simlib.errors import ConfigError
from simlib.metrics import makespan, mean_bounded_slowdown, mean_wait, utilization
from simlib.policies import POLICIES
from simlib.runner import BATSIM_COLUMNS, simulate
from simlib.workload.lublin import offered_load as lublin_load
from simlib.workload.prepare import offered_load
from simlib.workload.swf import SWF_FIELDS, Workload, read_swf, write_swf

SIMLIB = shutil.which("simlib", path=str(Path(sys.executable).parent))


def simlib(*args, cwd, env=None):
    """Run the console script; return (exit status, stdout, stderr).

    ``env``: variables set for the run, on top of this process's.
    """
    assert SIMLIB, "the simlib console script is not installed next to this Python"
    proc = subprocess.run([SIMLIB, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=None if env is None else {**os.environ, **env})
    return proc.returncode, proc.stdout, proc.stderr


def _trace(path: Path, n: int = 40, *, max_procs: int | None = 16, bad_line: str | None = None):
    """A small SWF trace: sizes 1..8, runtimes 20..200 s, estimates 2x the runtime."""
    rows = [[i + 1, 7 * i, -1, 20 + (37 * i) % 181, 1 + (5 * i) % 8, -1, -1, 1 + (5 * i) % 8,
             2 * (20 + (37 * i) % 181), -1, 1, 1, 1, 1, 1, -1, -1, -1] for i in range(n)]
    header = ["; Version: 2.2", "; Computer: test"]
    if max_procs:
        header.append(f"; MaxProcs: {max_procs}")
    write_swf(Workload(pd.DataFrame(rows, columns=SWF_FIELDS), header=header), path)
    if bad_line is not None:
        lines = path.read_text().splitlines()
        lines[len(header) + 2] = bad_line   # the third job
        path.write_text("\n".join(lines) + "\n")
    return path


def _summary(stdout: str) -> dict:
    out = {}
    for line in stdout.splitlines():
        key, _, value = line.partition("  ")
        out[key.strip()] = value.strip()
    return out


def _first_number(text: str) -> float:
    return float(text.split()[0])


# --------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------
def test_simulate_writes_the_batsim_table_and_prints_the_summary(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    code, out, err = simlib("simulate", trace, "--policy", "easy", "--cpus", 16,
                            "-o", "jobs.csv", cwd=tmp_path)
    assert (code, err) == (0, "")
    jobs = pd.read_csv(tmp_path / "jobs.csv", dtype={"job_id": str})
    assert tuple(jobs.columns) == BATSIM_COLUMNS
    ref = simulate(read_swf(trace), "easy", cpus=16).jobs
    for col in ("job_id", "starting_time", "finish_time", "allocated_resources"):
        assert jobs[col].tolist() == ref[col].tolist()
    s = _summary(out)
    assert len(out.splitlines()) <= 24   # one screen
    assert s["jobs"] == "40"
    assert _first_number(s["mean wait"]) == pytest.approx(mean_wait(ref), abs=0.05)
    assert _first_number(s["mean bounded slowdown"]) == pytest.approx(
        mean_bounded_slowdown(ref), rel=1e-3)
    assert _first_number(s["utilization"]) == pytest.approx(utilization(ref, 16), abs=1e-4)
    assert _first_number(s["makespan"]) == pytest.approx(makespan(ref), abs=0.05)
    assert "simulated jobs/s" in s["wall time"]
    assert s["jobs table"] == "jobs.csv"


@pytest.mark.parametrize("options", [["--no-clean"], [], ["--load", "0.7"]])
def test_simulate_of_a_rigid_policy_does_not_import_pandas(tmp_path, options):
    # Importing pandas is a third of a whole run on a 50,000-job trace: the
    # read-clean-simulate-write path keeps to numpy columns (simlib.table).
    trace = _trace(tmp_path / "t.swf")
    argv = ["simulate", str(trace), "--policy", "easy", "--cpus", "16", *options, "-o", "j.csv"]
    probe = ("import sys\nfrom simlib.cli import main\n"
             f"status = main({argv!r})\n"
             "print(status, 'pandas' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.stderr == "" and proc.stdout.splitlines()[-1] == "0 False"
    ref = simulate(read_swf(trace), "easy", cpus=16).jobs
    if not options:  # and the table is the one the library gives
        assert pd.read_csv(tmp_path / "j.csv", dtype={"job_id": str})["starting_time"].tolist() \
            == ref["starting_time"].tolist()


def test_simulate_takes_the_cpus_from_the_header_and_params_from_the_command_line(tmp_path):
    trace = _trace(tmp_path / "t.swf.gz", max_procs=8)
    code, out, _ = simlib("simulate", trace, "--policy", "delayed_los", "--param", "cs=0",
                          "--param", "lookahead=5", "-o", "a.csv", cwd=tmp_path)
    assert code == 0
    s = _summary(out)
    assert "(40 jobs, 8 CPUs)" in s["trace"]
    assert s["policy"].startswith("delayed_los cs=0 lookahead=5")
    ref = simulate(read_swf(trace), "delayed_los", cpus=8,
                   policy_params={"cs": 0, "lookahead": 5}).jobs
    got = pd.read_csv(tmp_path / "a.csv")
    assert got["starting_time"].tolist() == ref["starting_time"].tolist()


def test_simulate_rescales_to_the_offered_load(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    code, out, _ = simlib("simulate", trace, "--cpus", 16, "--load", "0.9", "-o", "j.csv",
                          cwd=tmp_path)
    assert code == 0
    # Submit times are rounded to seconds, as the pipeline does: the load is 0.9 to ~1e-3.
    assert _first_number(_summary(out)["offered load"]) == pytest.approx(0.9, rel=1e-3)
    jobs = pd.read_csv(tmp_path / "j.csv")
    assert jobs["workload_name"].iat[0] == "t.swf@load0.9"
    submit = jobs["submission_time"].to_numpy()
    w = read_swf(trace)
    w.jobs["submit_time"] = submit.astype(np.int64)
    assert offered_load(w, 16) == pytest.approx(0.9, rel=0.01)


def test_simulate_overrun_extend_lets_jobs_run_past_their_request(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    df = read_swf(trace).jobs
    df.loc[0, "requested_time"] = 5   # job 1 runs 20 s
    write_swf(Workload(df, header=["; MaxProcs: 16"]), trace)
    # --no-clean: the default cleaning clips runtimes to their request.
    assert simlib("simulate", trace, "--no-clean", "-o", "k.csv", cwd=tmp_path)[0] == 0
    assert simlib("simulate", trace, "--no-clean", "--overrun", "extend", "-o", "e.csv",
                  cwd=tmp_path)[0] == 0
    killed = pd.read_csv(tmp_path / "k.csv").iloc[0]
    extended = pd.read_csv(tmp_path / "e.csv").iloc[0]
    assert (killed["execution_time"], killed["success"]) == (5.0, 0)
    assert (extended["execution_time"], extended["success"]) == (20.0, 1)


def test_simulate_passes_per_event_schedules_after_each_event(tmp_path):
    # Two jobs end at t=10 (cores 0-2 and 4-5; 3 and 6 busy, 7 free): after the
    # first end alone (pybatsim's way) the 1-core job goes to 7 and the 2-core
    # job to 4-5 at once; after both, to 4, and the 2-core job waits.
    rows = [(0, 3, 10), (0, 1, 100), (0, 2, 10), (0, 1, 100), (1, 3, 50), (2, 1, 50),
            (3, 2, 50)]
    frame = pd.DataFrame([[i + 1, s, -1, r, p, -1, -1, p, r] + [-1] * 9
                          for i, (s, p, r) in enumerate(rows)], columns=SWF_FIELDS)
    write_swf(Workload(frame, header=["; MaxProcs: 8"]), tmp_path / "t.swf")
    runs = {}
    for passes in ("per_timestamp", "per_event"):
        code, out, err = simlib("simulate", "t.swf", "--policy", "fcfs", "--param",
                                "allocation=contiguous", "--passes", passes, "-o", f"{passes}.csv",
                                cwd=tmp_path)
        assert code == 0, err
        runs[passes] = pd.read_csv(tmp_path / f"{passes}.csv").set_index("job_id")
        assert ("passes=per_event" in _summary(out)["policy"]) == (passes == "per_event")
    assert list(runs["per_timestamp"].loc[[6, 7], "allocated_resources"]) == ["4", "0-1"]
    assert list(runs["per_event"].loc[[6, 7], "allocated_resources"]) == ["7", "4-5"]
    assert list(runs["per_event"].loc[[6, 7], "starting_time"]) == [10.0, 10.0]
    code, _, _ = simlib("simulate", "t.swf", "--policy", "fcfs", "--param", "allocation=contiguous",
                        "-o", "default.csv", cwd=tmp_path)
    assert (tmp_path / "default.csv").read_bytes() == (tmp_path / "per_timestamp.csv").read_bytes()


def test_simulate_cleans_the_trace_first_and_says_what_it_did(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    code, out, _ = simlib("simulate", trace, "--cpus", "4", cwd=tmp_path)
    assert code == 0
    summary = _summary(out)
    # The 20 jobs wider than 4 CPUs are dropped by the pipeline's rule, and counted.
    assert summary["cleaning"].startswith("20 of ")
    assert "size_above_machine 20" in summary["cleaning"]
    assert int(summary["jobs"]) == int(summary["cleaning"].split(" of ")[1].split()[0]) - 20
    code, out, err = simlib("simulate", trace, "--cpus", "4", "--no-clean", cwd=tmp_path)
    assert code == 2 and "size 6 is larger than the machine" in err


def test_simulate_draws_the_gantt_chart(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    code, out, _ = simlib("simulate", trace, "--gantt", "g.png", cwd=tmp_path)
    assert code == 0 and _summary(out)["Gantt chart"] == "g.png"
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.png", "t.swf"]


def test_simulate_writes_through_symbolic_links_and_keeps_them(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "jobs.csv").write_text("previous results\n")
    (tmp_path / "jobs.csv").symlink_to("runs/jobs.csv")
    (tmp_path / "g.png").symlink_to("runs/g.png")          # a dangling link: its target is made
    code, _, err = simlib("simulate", trace, "-o", "jobs.csv", "--gantt", "g.png", cwd=tmp_path)
    assert (code, err) == (0, "")
    assert (tmp_path / "jobs.csv").is_symlink() and (tmp_path / "g.png").is_symlink()
    assert (tmp_path / "runs" / "jobs.csv").read_text().startswith("job_id,")
    assert (tmp_path / "runs" / "g.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["g.png", "jobs.csv"]


def test_simulate_link_into_a_missing_directory_is_one_line(tmp_path):
    trace = _trace(tmp_path / "t.swf")
    (tmp_path / "jobs.csv").symlink_to("gone/jobs.csv")
    code, out, err = simlib("simulate", trace, "-o", "jobs.csv", cwd=tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("simlib simulate: jobs.csv: directory ") and err.count("\n") == 1
    assert "gone does not exist (-o, a symbolic link to " in err


def test_simulate_with_a_user_policy_module(tmp_path):
    (tmp_path / "mine.py").write_text(
        "from simlib.policies import register\n"
        "from simlib.policies.fcfs import FCFS\n\n"
        "@register\n"
        "class Mine(FCFS):\n"
        "    name = 'mine'\n"
        "    paper = 'test: a user policy'\n"
        "    description = 'FCFS under another name'\n")
    trace = _trace(tmp_path / "t.swf")
    for spec in ("mine", "mine.py"):
        code, out, err = simlib("simulate", trace, "--policy-module", spec, "--policy", "mine",
                                cwd=tmp_path)
        assert (code, err) == (0, "") and _summary(out)["policy"].startswith("mine")
    code, out, _ = simlib("policies", "--policy-module", "mine.py", cwd=tmp_path)
    assert "test: a user policy" in out


def test_a_policy_module_is_found_from_another_directory_by_path_or_on_pythonpath(tmp_path):
    pkg = tmp_path / "lib" / "mypolicies"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "mine.py").write_text(
        "from simlib.policies import register\n"
        "from simlib.policies.easy import EASY\n\n"
        "@register\n"
        "class Mine(EASY):\n"
        "    name = 'mine'\n")
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    trace = _trace(run_dir / "t.swf")
    code, _, err = simlib("simulate", trace, "--policy-module", "mypolicies.mine", "--policy",
                          "mine", cwd=run_dir)
    assert code == 2 and "no module named 'mypolicies'" in err
    assert f"looked up in the current directory {run_dir} and then on PYTHONPATH" in err
    code, out, err = simlib("simulate", trace, "--policy-module", pkg / "mine.py", "--policy",
                            "mine", cwd=run_dir)
    assert (code, err) == (0, "")
    assert _summary(out)["wall time"].endswith("compiled EASY loop)")
    env = {"PYTHONPATH": str(tmp_path / "lib")}
    code, out, err = simlib("simulate", trace, "--policy-module", "mypolicies.mine", "--policy",
                            "mine", cwd=run_dir, env=env)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("spec, message", [
    ("nomodule", "cannot import policy module 'nomodule': no module named 'nomodule'; "
                 "--policy-module takes a dotted module name, looked up in the current "
                 "directory"),
    ("pkg.nomodule", "no module named 'pkg'; --policy-module takes a dotted module name"),
    ("examples/mine", "or the path of a .py file (ending in .py)"),
    ("missing.py", "missing.py: no such policy module file (in "),
    # A module the user's module imports is the user's error, told as it is.
    ("needs.py", "needs.py: cannot import policy module 'needs.py': ModuleNotFoundError: "
                 "No module named 'not_installed_anywhere'"),
])
def test_a_policy_module_that_cannot_be_imported_says_how_modules_are_found(tmp_path, spec,
                                                                             message):
    (tmp_path / "needs.py").write_text("import not_installed_anywhere\n")
    _trace(tmp_path / "t.swf")
    code, out, err = simlib("simulate", "t.swf", "--policy-module", spec, cwd=tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert message in err
    assert ("PYTHONPATH" in err) == (spec != "needs.py")


@pytest.mark.parametrize("policy, message", [
    ("eazy", "--policy 'eazy': unknown policy; did you mean easy, easy_e or easy_d? Registered: "),
    ("delayed-los", "did you mean delayed_los"),
    ("mine", "unknown policy; registered: "),
])
def test_an_unknown_policy_suggests_names_and_policy_modules(tmp_path, policy, message):
    _trace(tmp_path / "t.swf")
    code, _, err = simlib("simulate", "t.swf", "--policy", policy, cwd=tmp_path)
    assert code == 2 and message in err
    assert err.rstrip().endswith("a policy of your own needs --policy-module MODULE (a dotted "
                                 "module name or a .py file) to register it first")


def test_debug_checks_the_engine_loop(tmp_path):
    _trace(tmp_path / "t.swf")
    code, out, _ = simlib("simulate", "t.swf", cwd=tmp_path)
    assert code == 0 and _summary(out)["wall time"].endswith("compiled EASY loop)")
    code, debug_out, _ = simlib("simulate", "t.swf", "--debug", cwd=tmp_path)
    assert code == 0 and not _summary(debug_out)["wall time"].endswith("compiled EASY loop)")
    assert _summary(debug_out)["mean wait"] == _summary(out)["mean wait"]
    (tmp_path / "broken.py").write_text(
        "from simlib.policies import register\n"
        "from simlib.policies.fcfs import FCFS\n\n"
        "@register\n"
        "class Broken(FCFS):\n"
        "    name = 'broken'\n"
        "    def schedule(self, now, full):\n"
        "        super().schedule(now, full)\n"
        "        self.sim.processes += 1  # bookkeeping gone wrong\n")
    args = ("simulate", "t.swf", "--policy-module", "broken.py", "--policy", "broken")
    assert simlib(*args, cwd=tmp_path)[0] == 0
    code, _, err = simlib(*args, "--debug", cwd=tmp_path)
    assert code == 2 and "process count out of sync" in err


@pytest.mark.parametrize("policy, features, call", [
    ("scojo_pect", "self slowdowns sl_scr, sl_sno (ppn optional)", "runs.run(frame, policy='scojo_pect')"),
    ("glomarc_ts", "self slowdowns sl_scr, sl_sno and coscheduling slowdowns sl_cos",
     "runs.run(frame, policy='glomarc_ts', cos="),
    # A user's subclass reads the same features.
    ("my_scojo", "self slowdowns sl_scr, sl_sno (ppn optional)", "runs.run(frame, policy='my_scojo')"),
])
def test_a_policy_needing_job_features_says_which_and_how_to_give_them(tmp_path, policy, features,
                                                                       call):
    # Paper Z's policies read per-job slowdowns an SWF trace has no field
    # for: refused before the trace is read (it does not even exist here).
    (tmp_path / "mine.py").write_text(
        "from simlib.policies import register\n"
        "from simlib.policies.scojo_pect import ScojoPECT\n\n"
        "@register\n"
        "class MyScojo(ScojoPECT):\n"
        "    name = 'my_scojo'\n")
    code, out, err = simlib("simulate", "missing.swf", "--policy-module", "mine.py", "--policy",
                            policy, "--debug", cwd=tmp_path)
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith(f"simlib simulate: --policy {policy} needs per-job features an SWF "
                          f"trace does not have: {features} (paper Z); "), err
    assert f"simlib.studies.zeng.{call}" in err and "Job.features" in err


_STARVING = ("from simlib.policies import register\n"
             "from simlib.policies.base import Policy\n\n"
             "@register\n"
             "class Idle(Policy):\n"
             "    name = 'idle'\n"
             "    def on_round(self, *args):\n"
             "        pass\n")


@pytest.mark.parametrize("args, message", [
    (["--policy", "nope"], "--policy 'nope': unknown policy; registered: conservative,"),
    (["--policy", "easy", "--param", "cs=7"],
     "--param cs: policy 'easy' has no parameter 'cs'; it accepts reading"),
    (["--policy", "delayed_los", "--param", "c=7"],
     "policy 'delayed_los' has no parameter 'c'; it accepts lookahead, unit, max_freezes, tie, cs"),
    (["--policy", "delayed_los", "--param", "cs"], "--param 'cs': expected NAME=VALUE"),
    (["--policy", "delayed_los", "--param", "cs=[1, 2]"], "the value must be a number"),
    (["--policy", "delayed_los", "--param", "cs=-1"], "cs (C_s) must be an integer >= 0"),
    (["--policy", "delayed_los", "--param", "cs=1", "--param", "cs=2"], "--param cs given twice"),
    (["--cpus", "64.7"], "--cpus must be a positive integer, got '64.7'"),
    (["--cpus", "0"], "--cpus must be a positive integer, got '0'"),
    (["--load", "-0.5"], "--load must be a number > 0, got '-0.5'"),
    (["--overrun", "maybe"], "argument --overrun: invalid choice: 'maybe'"),
    (["--passes", "per_job"], "argument --passes: invalid choice: 'per_job'"),
    (["--gantt", "g.pdf"], "--gantt g.pdf: the name must end in .png or .svg"),
    (["-o", "nodir/jobs.csv"], "nodir/jobs.csv: directory nodir does not exist (-o)"),
    (["-o", "t.swf/jobs.csv"], "t.swf/jobs.csv: directory t.swf does not exist (-o)"),
    (["-o", "."], ".: is a directory"),
    # 3 header lines, then job 1 on line 4: job 2 (6 CPUs) is on line 5.
    (["--cpus", "4", "--no-clean"], "t.swf:5: job 2: field 'requested_procs': size 6 is larger than the "
                      "machine (4 processors) (20 jobs have such problems); clean the trace or "
                      "change --cpus"),
    (["--policy-module", "nomodule"], "cannot import policy module 'nomodule'"),
])
def test_simulate_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    _trace(tmp_path / "t.swf")
    code, out, err = simlib("simulate", "t.swf", "-o", "jobs.csv", "--gantt", "g.png", *args,
                            cwd=tmp_path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("simlib simulate: "), err
    assert message in err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]   # nothing written


@pytest.mark.parametrize("setup, trace, message", [
    (lambda d: None, "missing.swf", "missing.swf: No such file or directory"),
    (lambda d: (d / "adir").mkdir(), "adir", "adir: is a directory, not a trace file"),
    (lambda d: _trace(d / "bad.swf", bad_line="3 14 -1 94 abc -1 -1 3 188 -1 1 1 1 1 1 -1 -1 -1"),
     "bad.swf", "bad.swf:6: field 'allocated_procs': not a number: 'abc'"),
    (lambda d: _trace(d / "short.swf", bad_line="3 14 -1 94"),
     "short.swf", "short.swf:6: field 'allocated_procs': expected 18 fields, found 4"),
    (lambda d: _trace(d / "nohead.swf", max_procs=None),
     "nohead.swf", "nohead.swf: no --cpus given and the header has no MaxProcs or MaxNodes"),
    # A header item that is there but invalid is not "missing" (header lines 1-3).
    (lambda d: _trace(d / "abc.swf", max_procs="abc"),
     "abc.swf", "abc.swf:3: field 'MaxProcs': invalid header value 'abc': the machine's size "
                "must be an integer >= 1 (or -1 for unknown)"),
    (lambda d: _trace(d / "zero.swf", max_procs="0"),
     "zero.swf", "zero.swf:3: field 'MaxProcs': invalid header value '0'"),
    (lambda d: (d / "idle.py").write_text(_STARVING) and _trace(d / "t.swf"),
     "t.swf --policy-module idle.py --policy idle", "40 jobs never finished (policy 'idle'"),
])
def test_simulate_bad_trace_names_file_and_line(tmp_path, setup, trace, message):
    setup(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = simlib("simulate", *trace.split(), "-o", "jobs.csv", "--gantt", "g.png",
                            cwd=tmp_path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("simlib simulate: "), err
    assert message in err and "Traceback" not in err
    # No output, no temp file (Python's own bytecode cache of a policy module aside).
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == before


@pytest.mark.parametrize("bad_line, field, advice", [
    # No requested time and a runtime of 0 (which would stand in for it) under
    # --no-clean: cleaning drops such a job; the machine's size is not at fault.
    ("3 14 -1 0 2 -1 -1 2 -1 -1 1 1 1 1 1 -1 -1 -1", "requested_time",
     "no usable estimate: requested_time -1, run_time 0; run without --no-clean (cleaning "
     "drops jobs with a runtime of 0) or fix the trace"),
    ("3 14 -1 -1 2 -1 -1 2 60 -1 1 1 1 1 1 -1 -1 -1", "run_time",
     "no runtime (-1); run without --no-clean (cleaning drops jobs without a runtime) or fix "
     "the trace"),
    ("3 -1 -1 94 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1", "submit_time",
     "no submit time (-1); fix the trace (cleaning does not change this)"),
])
def test_simulate_advice_fits_the_error(tmp_path, bad_line, field, advice):
    _trace(tmp_path / "t.swf", bad_line=bad_line)
    code, out, err = simlib("simulate", "t.swf", "--no-clean", "--cpus", "16", cwd=tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("simlib simulate: t.swf:6: job ") and f"field '{field}': " in err
    assert err.rstrip("\n").endswith(advice), err
    assert "--cpus" not in err   # the machine's size is not what is wrong


_SLOW = ("import pathlib, time\n"
         "from simlib.policies import register\n"
         "from simlib.policies.base import Policy\n\n"
         "@register\n"
         "class Slow(Policy):\n"
         "    name = 'slow'\n"
         "    def on_round(self, *args):\n"
         "        pathlib.Path('started').touch()\n"
         "        time.sleep(60)\n")


def test_ctrl_c_of_a_run_is_one_line_exit_130_and_no_output(tmp_path):
    """A real SIGINT, as a terminal's Ctrl-C sends it, while the simulation runs."""

    _trace(tmp_path / "t.swf")
    (tmp_path / "slow.py").write_text(_SLOW)
    (tmp_path / "jobs.csv").write_text("previous results\n")
    proc = popen_with_ctrl_c([SIMLIB, "simulate", "t.swf", "--policy-module", "slow.py",
                              "--policy", "slow", "-o", "jobs.csv", "--gantt", "g.png"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    # Once the policy is running.
    out, err = ctrl_c_when(proc, lambda: (tmp_path / "started").exists())
    assert (proc.returncode, out, err) == (130, "", "simlib simulate: interrupted\n")
    assert (tmp_path / "jobs.csv").read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == [
        "jobs.csv", "slow.py", "started", "t.swf"]


def test_simulate_failure_keeps_an_existing_output_untouched(tmp_path):
    (tmp_path / "idle.py").write_text(_STARVING)
    _trace(tmp_path / "t.swf")
    (tmp_path / "jobs.csv").write_text("previous results\n")
    code, _, _ = simlib("simulate", "t.swf", "--policy-module", "idle.py", "--policy", "idle",
                        "-o", "jobs.csv", cwd=tmp_path)
    assert code == 2
    assert (tmp_path / "jobs.csv").read_text() == "previous results\n"


def test_simulate_without_arguments_is_a_one_line_usage_error(tmp_path):
    code, out, err = simlib("simulate", cwd=tmp_path)
    assert code == 2 and out == ""
    assert err == ("simlib simulate: the following arguments are required: TRACE.swf[.gz]|W.json "
                   "(see simlib simulate --help)\n")


# --------------------------------------------------------------------------
# policies
# --------------------------------------------------------------------------
def test_policies_table_lists_every_policy_with_paper_and_defaults(tmp_path):
    code, out, err = simlib("policies", cwd=tmp_path)
    assert (code, err) == (0, "")
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line and line[0] != " "}
    for name, cls in POLICIES.items():
        assert cls.paper in rows[name]
        if cls.defaults:
            first = next(iter(cls.defaults.items()))
            assert f"{first[0]}={commands._show(first[1])}" in rows[name]
    assert "cs=7" in out and "ecc_max_per_job=null" in out
    code, out, _ = simlib("policies", "--long", cwd=tmp_path)
    assert POLICIES["easy"].description in out


def test_policies_lists_a_policy_modules_policies_apart(tmp_path):
    (tmp_path / "mine.py").write_text(
        "from simlib.policies import register\n"
        "from simlib.policies.easy import EASY\n\n"
        "@register\n"
        "class Mine(EASY):\n"
        "    name = 'mine'\n"
        "    paper = 'test: a user policy'\n"
        "    description = 'EASY in another order'\n"
        "    defaults = {'depth': 3}\n"
        "    def order_key(self, job):\n"
        "        return job.procs\n\n"
        "@register\n"
        "class Slow(EASY):\n"
        "    name = 'slow'\n"
        "    def schedule(self, now, full):\n"
        "        super().schedule(now, full)\n")
    code, out, err = simlib("policies", "--policy-module", "mine.py", cwd=tmp_path)
    assert (code, err) == (0, "")
    builtin, user = out.split("\nFrom --policy-module:\n")
    assert "mine" not in builtin and "easy" in builtin
    assert user.splitlines()[1].split() == ["mine", "test:", "a", "user", "policy", "depth=3"]
    assert "  EASY in another order" in user
    assert "mine: mine.py; runs in EASY's compiled loop" in user
    assert ("slow: mine.py; runs in the engine's loop: Slow overrides EASY.schedule (only "
            "order_key and backfill_candidate keep the compiled loop)") in user
    code, out, _ = simlib("policies", "--json", "--policy-module", "mine.py", cwd=tmp_path)
    by_name = {d["name"]: d for d in json.loads(out)}
    assert by_name["mine"]["policy_module"] == "mine.py"
    assert by_name["mine"]["parameters"] == {"depth": 3}
    assert by_name["easy"]["policy_module"] is None


def test_policies_of_a_module_registering_nothing_is_an_error(tmp_path):
    (tmp_path / "empty.py").write_text("X = 1\n")
    code, out, err = simlib("policies", "--policy-module", "empty.py", cwd=tmp_path)
    assert code == 2 and out == ""
    assert err == ("simlib policies: --policy-module empty.py: the module registered no policy "
                   "(a policy class registers itself with simlib.policies.register, see "
                   "docs/writing_a_policy.md)\n")


def test_policies_json(tmp_path):
    code, out, _ = simlib("policies", "--json", cwd=tmp_path)
    data = json.loads(out)
    assert [d["name"] for d in data] == list(POLICIES)
    by_name = {d["name"]: d for d in data}
    assert by_name["delayed_los"]["parameters"] == {"lookahead": 50, "unit": 1,
                                                    "max_freezes": 2, "tie": "earliest", "cs": 7}
    assert by_name["fcfs_malleable"]["paper"].startswith("utrera:")


def test_every_registered_policy_states_its_own_paper_and_description():
    # Set on the class itself: a subclass (LOS-D of LOS...) must not inherit its parent's.
    for name, cls in POLICIES.items():
        assert cls.__dict__.get("paper") and cls.__dict__.get("description"), name
        assert cls.paper.split(":")[0] in ("baseline", "utrera", "kumar", "dutot", "zeng"), name


# --------------------------------------------------------------------------
# generate
# --------------------------------------------------------------------------
def test_generate_lublin_writes_a_readable_swf(tmp_path):
    code, out, err = simlib("generate", "lublin", "--jobs", 300, "--cpus", 64, "--seed", 3,
                            "-o", "w.swf", cwd=tmp_path)
    assert (code, err) == (0, "")
    assert out.startswith("wrote w.swf: 300 jobs")
    w = read_swf(tmp_path / "w.swf")
    assert len(w.jobs) == 300
    assert "; MaxProcs: 64" in w.header
    assert w.jobs["requested_procs"].max() <= 64
    assert (w.jobs["requested_time"] >= w.jobs["run_time"]).all()   # exact estimates
    # Same seed, same bytes; another seed, another workload; .gz is the same workload.
    simlib("generate", "lublin", "--jobs", 300, "--cpus", 64, "--seed", 3, "-o", "again.swf",
           cwd=tmp_path)
    simlib("generate", "lublin", "--jobs", 300, "--cpus", 64, "--seed", 4, "-o", "other.swf",
           cwd=tmp_path)
    simlib("generate", "lublin", "--jobs", 300, "--cpus", 64, "--seed", 3, "-o", "w.swf.gz",
           cwd=tmp_path)
    assert (tmp_path / "again.swf").read_bytes() == (tmp_path / "w.swf").read_bytes()
    assert (tmp_path / "other.swf").read_bytes() != (tmp_path / "w.swf").read_bytes()
    assert read_swf(tmp_path / "w.swf.gz").jobs.equals(w.jobs)


def test_generate_calibrates_the_load_and_simulate_reads_it(tmp_path):
    code, out, _ = simlib("generate", "lublin", "--jobs", 500, "--load", "0.7", "--cpus", 32,
                          "--seed", 1, "-o", "w.swf.gz", cwd=tmp_path)
    assert code == 0 and "offered load 0.7" in out
    assert lublin_load(read_swf(tmp_path / "w.swf.gz"), 32) == pytest.approx(0.7, rel=0.01)
    code, out, _ = simlib("simulate", "w.swf.gz", "--policy", "conservative", cwd=tmp_path)
    assert code == 0 and "(500 jobs, 32 CPUs)" in out


@pytest.mark.parametrize("args, message", [
    (["--jobs", "0"], "--jobs must be a positive integer, got '0'"),
    (["--cpus", "4.5"], "--cpus must be a positive integer, got '4.5'"),
    (["--seed", "x"], "--seed must be an integer >= 0, got 'x'"),
    (["--load", "nan"], "--load must be a number > 0, got 'nan'"),
    (["-o", "w.csv"], "-o w.csv: the name must end in .swf or .swf.gz"),
    (["-o", "no/w.swf"], "no/w.swf: directory no does not exist (-o)"),
])
def test_generate_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    base = {"--jobs": "10", "--cpus": "16", "--seed": "1", "-o": "w.swf"}
    base.update(dict(zip(args[::2], args[1::2])))
    code, out, err = simlib("generate", "lublin", *[x for kv in base.items() for x in kv],
                            cwd=tmp_path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("simlib generate: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_generate_needs_its_arguments(tmp_path):
    code, _, err = simlib("generate", "lublin", "--jobs", 10, cwd=tmp_path)
    assert code == 2 and err.count("\n") == 1
    assert "the following arguments are required: --cpus, --seed, -o/--output" in err


# --------------------------------------------------------------------------
# convert, and simulate of a Batsim workload
# --------------------------------------------------------------------------
def _schedule_columns(path: Path) -> pd.DataFrame:
    """A jobs table without its workload name (which names the input file)."""
    return pd.read_csv(path).drop(columns=["workload_name"])


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_convert_to_batsim_then_simulate_gives_the_schedule_of_the_swf(tmp_path, policy):
    # The synthetic trace needs cleaning (zero and missing runtimes, too-wide jobs):
    # convert cleans as simulate does, so the two runs see the same jobs.
    (tmp_path / "t.swf").write_bytes(synthetic_swf(300, 128, seed=2))
    code, out, err = simlib("convert", "t.swf", "w.json", "--platform", "p.xml", cwd=tmp_path)
    assert code == 0, err
    assert "wrote w.json: " in out and "nb_res 128; cleaning: " in out and "wrote p.xml" in out
    for trace, table in (("t.swf", "a.csv"), ("w.json", "b.csv")):
        code, out, err = simlib("simulate", trace, "--policy", policy, "-o", table, cwd=tmp_path)
        assert code == 0, err
    a, b = _schedule_columns(tmp_path / "a.csv"), _schedule_columns(tmp_path / "b.csv")
    pd.testing.assert_frame_equal(a, b)
    assert (a["waiting_time"] > 0).sum() > 20
    # And back to SWF: the same schedule again.
    code, out, err = simlib("convert", "w.json", "back.swf.gz", cwd=tmp_path)
    assert code == 0 and "wrote back.swf.gz: " in out, err
    code, _, err = simlib("simulate", "back.swf.gz", "--policy", policy, "-o", "c.csv",
                          cwd=tmp_path)
    assert code == 0, err
    pd.testing.assert_frame_equal(a, _schedule_columns(tmp_path / "c.csv"))


def test_a_batsim_workload_out_of_order_converts_and_simulates_by_submit_time(tmp_path):
    (tmp_path / "w.json").write_text(
        '{"nb_res": 4, "jobs": [{"id": 1, "subtime": 9, "res": 4, "profile": "d"}, '
        '{"id": 2, "subtime": 3, "res": 4, "profile": "d"}], '
        '"profiles": {"d": {"type": "delay", "delay": 5}}}')
    code, _, err = simlib("convert", "w.json", "t.swf", cwd=tmp_path)
    assert code == 0, err
    assert read_swf(tmp_path / "t.swf").table["job_id"].tolist() == [2, 1]
    code, _, err = simlib("simulate", "w.json", "-o", "jobs.csv", cwd=tmp_path)
    assert code == 0, err
    starts = pd.read_csv(tmp_path / "jobs.csv").set_index("job_id")["starting_time"]
    assert starts.to_dict() == {2: 3.0, 1: 9.0}


def test_convert_writes_a_batsim_platform_of_the_machine(tmp_path):
    from simlib.backends.platform_file import read_platform

    _trace(tmp_path / "t.swf", max_procs=16)
    code, _, err = simlib("convert", "t.swf", "w.json", "--platform", "p.xml", cwd=tmp_path)
    assert code == 0, err
    got = read_platform(tmp_path / "p.xml")
    assert got.network.nodes == 16 and got.master == "master_host0"
    assert got.batsim_order == list(range(16))   # Batsim's machine k is our CPU k
    assert json.loads((tmp_path / "w.json").read_text())["nb_res"] == 16


@pytest.mark.parametrize("files, args, message", [
    ({"w.json": '{"nb_res": 4, "jobs": [\n  {"id": 1, "subtime": 0, "res": 9, '
                '"profile": "d"}\n], "profiles": {"d": {"type": "delay", "delay": 5}}}'},
     ["simulate", "w.json", "--no-clean"], "w.json:2: job 1: field 'requested_procs': size 9 "
                                           "is larger than the machine (4 processors)"),
    ({"w.json": '{"nb_res": 4, "jobs": [\n  {"id": 1, "subtime": 0, "res": 2}\n], '
                '"profiles": {}}'},
     ["simulate", "w.json"], "w.json:2: field 'jobs[0].profile': missing"),
    ({"w.json": '{"nb_res": 4,'}, ["convert", "w.json", "t.swf"], "w.json:1: not valid JSON"),
    ({"t.swf": None}, ["convert", "t.swf", "w.xml"], "OUT w.xml: the name must end in .json"),
    ({"t.swf": None}, ["convert", "t.swf", "w.json", "--platform", "p.txt"],
     "--platform p.txt: the name must end in .xml"),
    ({"w.json": "{}"}, ["convert", "w.json", "t.csv"], "the name must end in .swf or .swf.gz"),
    ({"w.json": '{"nb_res": 4, "jobs": [\n  {"id": 1, "subtime": 0.5, "res": 2, '
                '"profile": "d"}\n], "profiles": {"d": {"type": "delay", "delay": 5}}}'},
     ["convert", "w.json", "t.swf"], "w.json:2: field 'jobs[0].subtime': 0.5 s is not a whole "
                                     "number of seconds, which SWF times are"),
    ({"w.json": '{"nb_res": 4, "jobs": [\n  {"id": 1, "subtime": 0, "res": 2, '
                '"profile": "d"}\n], "profiles": {"d": {"type": "delay", "delay": 2.5}}}'},
     ["convert", "w.json", "t.swf"], "field 'profiles.d.delay': 2.5 s is not a whole number"),
    ({"w.json": '{"nb_res": 4, "jobs": [\n  {"id": 1, "subtime": 9, "res": 2, "profile": "d"},'
                '\n  {"id": 2, "subtime": 3, "res": 2, "profile": "d"}\n], '
                '"profiles": {"d": {"type": "delay", "delay": 5}}}'},
     ["simulate", "w.json", "--unsorted", "reject"],
     "w.json:3: field 'jobs[1].subtime': submit time 3 is before the previous job's (9)"),
    ({"w.json": '{"nb_res": 4, "jobs": [\n  {"id": "042", "subtime": 0, "res": 2, '
                '"profile": "d"},\n  {"id": 42, "subtime": 3, "res": 2, "profile": "d"}\n], '
                '"profiles": {"d": {"type": "delay", "delay": 5}}}'},
     ["simulate", "w.json"], "w.json:3: field 'jobs[1].id': job id 42 is the integer of "
                             "jobs[0].id '042'"),
])
def test_batsim_bad_input_is_one_line_and_exit_2(tmp_path, files, args, message):
    for name, text in files.items():
        if text is None:
            _trace(tmp_path / name)
        else:
            (tmp_path / name).write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = simlib(*args, cwd=tmp_path)
    assert code == 2 and out == "", (out, err)
    assert err.count("\n") == 1 and err.startswith(f"simlib {args[0]}: "), err
    assert message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# --------------------------------------------------------------------------
# pieces
# --------------------------------------------------------------------------
def test_parse_param_reads_yaml_scalars():
    assert commands.parse_param("ov_max=0.25") == ("ov_max", 0.25)
    assert commands.parse_param("order= least_util") == ("order", "least_util")
    assert commands.parse_param("flag=false") == ("flag", False)
    with pytest.raises(ConfigError, match="not a YAML scalar"):
        commands.parse_param("x='unclosed")


def test_progress_bar_waits_then_draws_then_clears():
    ticks = iter([0.0, 1.0, 2.5, 2.6, 3.0])
    out = io.StringIO()
    bar = commands.ProgressBar(out, delay=2.0, clock=lambda: next(ticks))
    bar(10, 100, 3600.0)           # t = 1.0: too early
    assert out.getvalue() == ""
    bar(40, 100, 86400.0)          # t = 2.5: drawn
    assert "40%" in out.getvalue() and "40/100 jobs" in out.getvalue()
    bar(41, 100, 86400.0)          # t = 2.6: within 0.2 s of the last draw
    assert "41/100" not in out.getvalue()
    bar.close()
    assert out.getvalue().endswith("\r\033[K")


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path):
    # stderr is a pipe here: a successful run writes nothing to it.
    _trace(tmp_path / "t.swf", n=400)
    code, _, err = simlib("simulate", "t.swf", cwd=tmp_path)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("policy, cpus, message", [
    (["easy"], 10**30, "CPUs is too large: core ids are 64-bit, the limit is "
                       "4,611,686,018,427,387,904 CPUs (2**62)"),
    (["conservative", "--param", "allocation=contiguous"], 2**31,
     "a machine of 2,147,483,648 CPUs is too large for policy conservative, which keeps state "
     "per core: its limit is 16,777,216 CPUs (2**24)"),
    (["los"], 2**31, "too large for policy los, which keeps state per core"),
])
def test_a_machine_too_large_is_one_line_and_exit_2(tmp_path, policy, cpus, message):
    _trace(tmp_path / "t.swf")
    code, out, err = simlib("simulate", "t.swf", "--policy", *policy, "--cpus", cpus,
                            "-o", "jobs.csv", cwd=tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err, err
    assert not (tmp_path / "jobs.csv").exists()


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_count_based_policies_run_on_any_machine_size(tmp_path, policy):
    # 2**31 cores: the free cores are one run of ids, the platform's per-node
    # values one broadcast value, so nothing is allocated per core.
    _trace(tmp_path / "t.swf")
    code, out, err = simlib("simulate", "t.swf", "--policy", policy, "--cpus", 2**31,
                            "-o", "jobs.csv", cwd=tmp_path)
    assert code == 0, err
    table = pd.read_csv(tmp_path / "jobs.csv")
    assert (table["waiting_time"] == 0).all()   # nothing ever waits on such a machine
    # The lowest free ids first: the first job (one CPU) on core 0, the second (6) on 1-6.
    assert table["allocated_resources"].iloc[:2].tolist() == ["0", "1-6"]
