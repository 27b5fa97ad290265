"""Tests of the simlib command line (simlib.cli): diff exit codes and output, --version, Ctrl-C."""
import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simlib import __version__
from simlib import cli
from simlib.cube import build_cube, write_cube


def _cube(path, bump=0.0):
    recs = [{"policy": p, "load": load, "mean_wait": 10.0 * i + j, "makespan": 100.0}
            for i, p in enumerate(["easy", "fcfs"]) for j, load in enumerate([0.5, 0.9])]
    recs[3]["mean_wait"] += bump  # fcfs, load 0.9
    return write_cube(build_cube(recs, ["policy", "load"], ["mean_wait", "makespan"],
                                 attrs={"study": "t"}), path)


@pytest.fixture
def cubes(tmp_path):
    (tmp_path / "bad.nc").write_text("garbage")
    return {
        "a": _cube(tmp_path / "a.nc"),
        "same": _cube(tmp_path / "same.nc"),
        "changed": _cube(tmp_path / "changed.nc", bump=0.25),
        "bad": tmp_path / "bad.nc",
        "missing": tmp_path / "missing.nc",
    }


def test_diff_equal_exits_0(cubes, capsys):
    assert cli.main(["diff", str(cubes["a"]), str(cubes["same"])]) == 0
    assert "equal within" in capsys.readouterr().out


def test_diff_changed_exits_1_with_table(cubes, capsys):
    assert cli.main(["diff", str(cubes["a"]), str(cubes["changed"])]) == 1
    out = capsys.readouterr().out
    assert "mean_wait" in out
    assert "policy=fcfs, load=0.9" in out
    assert "11.25" in out and "0.25" in out
    rows = out.split("differences")[-1] if "differences" in out else out.split("difference")[-1]
    assert "makespan" not in rows  # unchanged variables are in the summary only, not the rows
    summary = [line.split() for line in out.splitlines() if line.startswith(("makespan", "mean_wait"))]
    assert summary[:2] == [["makespan", "compared", "4", "0", "0", "0", "0", "0"],
                           ["mean_wait", "compared", "4", "1", "0.25", "0.0222", "0", "0"]]


def test_diff_tolerance_flags(cubes):
    assert cli.main(["diff", str(cubes["a"]), str(cubes["changed"]), "--atol", "0.3"]) == 0
    assert cli.main(["diff", str(cubes["a"]), str(cubes["changed"]), "--rtol", "0.03"]) == 0
    assert cli.main(["diff", str(cubes["a"]), str(cubes["changed"]), "--rtol", "0.01"]) == 1


@pytest.mark.parametrize("which,reason", [("missing", "no such file"), ("bad", "not a readable netCDF")])
def test_diff_unreadable_exits_2(cubes, capsys, which, reason):
    assert cli.main(["diff", str(cubes["a"]), str(cubes[which])]) == 2
    err = capsys.readouterr().err
    assert reason in err and str(cubes[which]) in err


def test_diff_1e12_change_is_visible(tmp_path, capsys):
    a = _cube(tmp_path / "a.nc")
    b = _cube(tmp_path / "b.nc", bump=11.0 * 1e-12)  # fcfs/0.9 mean_wait 11.0 -> 11.0 * (1 + 1e-12)
    assert cli.main(["diff", str(a), str(b)]) == 1
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("value")]
    assert row[0].split()[-4:-2] == ["11", "11.00000000001"] and "1e-12" in row[0]


def test_diff_extra_policy_exits_1_comparing_the_shared_ones(tmp_path, capsys):
    a = _cube(tmp_path / "a.nc", bump=1.0)
    recs = [{"policy": p, "load": load, "mean_wait": 1.0, "makespan": 100.0}
            for p in ["easy", "easy_small", "fcfs"] for load in [0.5, 0.9]]
    b = write_cube(build_cube(recs, ["policy", "load"], ["mean_wait", "makespan"]), tmp_path / "b.nc")
    assert cli.main(["diff", str(a), str(b), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["only_in"] == {"policy": {"A": [], "B": ["easy_small"]}}
    assert doc["variables"]["makespan"] == {"status": "compared", "cells": 4, "differing": 0,
                                            "max_abs": 0.0, "max_rel": 0.0, "rtol": 0.0, "atol": 0.0}
    assert doc["variables"]["mean_wait"]["differing"] == 3  # easy/0.9 is 1.0 in both
    assert cli.main(["diff", str(a), str(b)]) == 1
    assert "policy: only in B: easy_small" in capsys.readouterr().out


def test_diff_json_parses_back(cubes, capsys):
    assert cli.main(["diff", str(cubes["a"]), str(cubes["changed"]), "--json", "--attrs"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["a"], doc["b"], doc["equal"], doc["rtol"], doc["atol"]) == (
        str(cubes["a"]), str(cubes["changed"]), False, 0.0, 0.0)
    assert doc["cells"] == [{"variable": "mean_wait", "coords": {"policy": "fcfs", "load": 0.9},
                             "a": 11.0, "b": 11.25, "abs": 0.25, "rel": 0.25 / 11.25}]
    assert doc["structure"] == [] and doc["attrs"] == [] and doc["only_in"] == {}
    assert cli.main(["diff", str(cubes["a"]), str(cubes["same"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["equal"] is True


def test_diff_per_variable_tolerance(cubes, capsys):
    a, changed = str(cubes["a"]), str(cubes["changed"])
    assert cli.main(["diff", a, changed, "--atol", "mean_wait=0.3"]) == 0
    assert cli.main(["diff", a, changed, "--atol", "makespan=0.3"]) == 1
    assert cli.main(["diff", a, changed, "--rtol", "0.03", "--rtol", "mean_wait=0"]) == 1
    capsys.readouterr()
    assert cli.main(["diff", a, changed, "--rtol", "mean_wiat=0.1"]) == 2
    assert "'mean_wiat'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["diff", a, changed, "--rtol", "mean_wait=lots"])
    assert exc.value.code == 2


def test_diff_help_documents_exit_codes_and_options(capsys):
    with pytest.raises(SystemExit):
        cli.main(["diff", "--help"])
    out = capsys.readouterr().out
    for words in ("exit status", "0  the cubes are equal", "1  they differ", "2  error",
                  "--attrs", "--max-rows", "--json", "VAR=R"):
        assert words in out


def test_negative_tolerance_exits_2(cubes, capsys):
    assert cli.main(["diff", str(cubes["a"]), str(cubes["a"]), "--atol", "-1"]) == 2
    assert "non-negative" in capsys.readouterr().err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"simlib {__version__}"


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "diff" in capsys.readouterr().err


def test_registered_providers_by_path(monkeypatch):
    # A provider given as "module:function" is imported lazily.
    monkeypatch.setattr(cli, "SUBCOMMAND_PROVIDERS",
                        [*cli.SUBCOMMAND_PROVIDERS, "tests_cli_provider:register"])
    mod = type(sys)("tests_cli_provider")

    def register(sub):
        sub.add_parser("hello").set_defaults(func=lambda args: 7)

    mod.register = register
    monkeypatch.setitem(sys.modules, "tests_cli_provider", mod)
    assert cli.main(["hello"]) == 7


def _run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_python_dash_m(cubes):
    r = _run([sys.executable, "-m", "simlib.cli", "diff", str(cubes["a"]), str(cubes["changed"])])
    assert r.returncode == 1, r.stderr
    assert "policy=fcfs, load=0.9" in r.stdout
    r = _run([sys.executable, "-m", "simlib.cli", "diff", str(cubes["a"]), str(cubes["missing"])])
    assert r.returncode == 2 and "no such file" in r.stderr and r.stdout == ""


def test_console_script(cubes):
    script = Path(sys.executable).parent / "simlib"
    if not script.exists():
        script = shutil.which("simlib")
    if script is None:
        pytest.skip("simlib console script not installed")
    assert _run([str(script), "diff", str(cubes["a"]), str(cubes["same"])]).returncode == 0
    assert _run([str(script), "diff", str(cubes["a"]), str(cubes["changed"])]).returncode == 1
    assert _run([str(script), "diff", str(cubes["bad"]), str(cubes["a"])]).returncode == 2
    r = _run([str(script), "--version"])
    assert r.returncode == 0 and r.stdout.strip() == f"simlib {__version__}"


def test_process_exit_keeps_outputs_and_in_process_calls_freeze_nothing(tmp_path):
    # main() without argv (this process's command line) skips the final garbage
    # collection with gc.freeze(): the table and the summary must still be whole.
    import gc

    swf = tmp_path / "t.swf"
    swf.write_text("".join(f"{i} {i} -1 {5 + i % 7} 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n"
                           for i in range(1, 301)))
    out = tmp_path / "jobs.csv"
    r = _run([sys.executable, "-m", "simlib.cli", "simulate", str(swf), "--cpus", "4",
              "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].split() == ["jobs", "table", str(out)]
    assert len(out.read_text().splitlines()) == 301
    frozen = gc.get_freeze_count()
    assert cli.main(["simulate", str(swf), "--cpus", "4", "-o", str(out)]) == 0
    assert gc.get_freeze_count() == frozen  # a caller's process is left alone
    assert gc.isenabled()  # simulate paused the collector, and restored it
    assert cli.main(["simulate", str(tmp_path / "missing.swf"), "--cpus", "4"]) == 2
    assert gc.isenabled()


# --------------------------------------------------------------------------
# Ctrl-C: one line, exit status 130, no traceback, no partial output
# --------------------------------------------------------------------------
def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def _swf(tmp_path):
    swf = tmp_path / "t.swf"
    swf.write_text("".join(f"{i} {i} -1 {5 + i % 7} 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n"
                           for i in range(1, 301)))
    return swf


@pytest.mark.parametrize("command, target", [
    # Where Ctrl-C lands: in each subcommand's work, and before any (parsing).
    ("diff", "simlib.cube.read_cube"),
    ("simulate", "simlib.runner.simulate"),
    # In the middle of writing the jobs table: nothing is left of it.
    ("simulate", "simlib.io.csv_text"),
    ("generate", "simlib.workload.lublin.generate_lublin"),
    ("policies", "simlib.commands.policy_table"),
    (None, "simlib.cli.build_parser"),
])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys, command, target):
    swf = _swf(tmp_path)
    argv = {"diff": ["diff", "a.nc", "b.nc"],
            "simulate": ["simulate", str(swf), "--cpus", "4", "-o", str(tmp_path / "jobs.csv")],
            "generate": ["generate", "lublin", "--jobs", "10", "--cpus", "8", "--seed", "1",
                         "-o", str(tmp_path / "w.swf")],
            "policies": ["policies"], None: ["policies"]}[command]
    module, _, name = target.rpartition(".")
    monkeypatch.setattr(importlib.import_module(module), name, _interrupt)
    assert cli.main(argv) == cli.EXIT_INTERRUPTED == 130
    out, err = capsys.readouterr()
    assert err == f"simlib{f' {command}' if command else ''}: interrupted\n" and out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]   # no output, no temporary
