"""The malformed-input corpus (tests/malformed/, manifest CASES.yaml).

One parametrized test: each case is read by its reader (SWF, CWF, cube),
then simulated or diffed as the manifest says; trace cases also from a gzip
copy. A rejected input must raise the manifest's error type with the file's
path, line, field and reason in a single line; an accepted one must give the
manifest's number of rows and jobs.
"""
from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
import yaml

from simlib import errors
from simlib.cube import CubeReadError, build_cube, read_cube, write_cube
from simlib.runner import simulate
from simlib.workload.cwf import command_events, read_cwf, split_commands
from simlib.workload.swf import FLOAT_FIELDS, SWF_DTYPES, SWF_FIELDS, Workload, read_swf

CORPUS = Path(__file__).parent / "malformed"
CASES = yaml.safe_load((CORPUS / "CASES.yaml").read_text(encoding="utf-8"))["cases"]
ERRORS = {"TraceFormatError": errors.TraceFormatError, "ConfigError": errors.ConfigError,
          "CubeReadError": CubeReadError}
DEFAULT_CPUS = {"swf": 8, "cwf": 320}


def _params():
    for case in CASES:
        yield pytest.param(case, False, id=case["name"])
        if case["reader"] != "cube" and (CORPUS / case["file"]).is_file():
            yield pytest.param(case, True, id=case["name"] + "-gz")


# ---------------------------------------------------------------- cubes


def _good_cube() -> xr.Dataset:
    recs = [{"policy": p, "load": load, "mean_wait": 1.0 + i + load}
            for i, p in enumerate(["easy", "fcfs"]) for load in (0.5, 0.9)]
    return build_cube(recs, ["policy", "load"], ["mean_wait"], attrs={"study": "corpus"})


def _to_netcdf(ds: xr.Dataset, path: Path) -> Path:
    ds.to_netcdf(path, engine="netcdf4")
    return path


def _make_cube(kind: str, path: Path) -> Path:
    """Write the cube of one case to ``path`` (or make ``path`` what it needs)."""
    good = _good_cube()
    if kind == "valid":
        return write_cube(good, path)
    if kind == "duplicate_coords":
        return _to_netcdf(good.assign_coords(policy=["easy", "easy"]), path)
    if kind == "dim_without_coords":
        return _to_netcdf(good.drop_vars("load"), path)
    if kind == "no_variables":
        return _to_netcdf(good.drop_vars("mean_wait"), path)
    if kind == "not_netcdf":
        path.write_text("this is not a netCDF file\n")
        return path
    if kind == "directory":
        path.mkdir()
        return path
    raise AssertionError(f"unknown cube builder {kind!r}")


def _simlib_command() -> list[str]:
    script = Path(sys.executable).parent / "simlib"
    if script.exists():
        return [str(script)]
    found = shutil.which("simlib")
    return [found] if found else [sys.executable, "-m", "simlib.cli"]


# --------------------------------------------------------------- traces


def _input_path(case: dict, compressed: bool, tmp_path: Path) -> Path:
    src = CORPUS / case["file"]
    if not compressed:
        return src
    dst = tmp_path / (src.name + ".gz")
    dst.write_bytes(gzip.compress(src.read_bytes(), mtime=0))
    return dst


def _read(reader: str, path: Path):
    return read_swf(path) if reader == "swf" else read_cwf(path)


def _unchecked_swf(path: Path) -> Workload:
    """The file's job lines as a Workload, bypassing the reader's checks."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    rows = [[float(t) if f in FLOAT_FIELDS else int(t) for f, t in zip(SWF_FIELDS, line.split())]
            for line in data.decode("utf-8-sig").splitlines()
            if line.strip() and not line.lstrip().startswith(";")]
    return Workload(pd.DataFrame(rows, columns=list(SWF_FIELDS)).astype(SWF_DTYPES), path=str(path))


def _simulate(reader: str, workload: Workload, spec: dict):
    cpus = spec.get("cpus", DEFAULT_CPUS[reader])
    commands = ()
    if reader == "cwf":
        workload, cmds = split_commands(workload)
        commands = command_events(cmds)
    return simulate(workload, spec.get("policy", "fcfs"), cpus=cpus, commands=commands)


def _check_error(err: Exception, expected: dict, path: Path, *, names_file: bool = True):
    message = str(err)
    assert isinstance(err, ERRORS[expected["error"]]), repr(err)
    assert expected["match"] in message, message
    assert "\n" not in message and len(message) < 400 + len(str(path)), message
    if names_file:
        assert str(path) in message, message
    if "line" in expected:
        assert (err.path, err.line, err.field) == (str(path), expected["line"], expected["field"])


# ----------------------------------------------------------------- test


@pytest.mark.parametrize("case, compressed", list(_params()))
def test_malformed_input(case, compressed, tmp_path):
    reader, read_spec = case["reader"], case["read"]
    if reader == "cube":
        path = _make_cube(case["cube"], tmp_path / f"{case['name']}.nc")
        if "error" in read_spec:
            with pytest.raises(CubeReadError) as info:
                read_cube(path)
            _check_error(info.value, read_spec, path)
        else:
            read_cube(path)
        good = write_cube(_good_cube(), tmp_path / "good.nc")
        proc = subprocess.run([*_simlib_command(), "diff", str(path), str(good)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == case["diff"]["status"], proc.stderr
        assert "Traceback" not in proc.stderr, proc.stderr
        if proc.returncode == 2:
            assert str(path) in proc.stderr and case["diff"]["match"] in proc.stderr
            assert proc.stderr.count("\n") == 1 and proc.stdout == ""
        return

    path = _input_path(case, compressed, tmp_path)
    workload = None
    if "error" in read_spec:
        with pytest.raises(Exception) as info:
            _read(reader, path)
        _check_error(info.value, read_spec, path)
    else:
        workload = _read(reader, path)
        assert len(workload.jobs) == read_spec["rows"]
        if "header" in read_spec:
            assert len(workload.header) == read_spec["header"]
            assert all(line.startswith(";") for line in workload.header), workload.header

    spec = case.get("simulate")
    if spec is None:
        return
    if spec.get("in_memory"):
        assert workload is None, "in_memory is for inputs the reader rejects"
        workload = _unchecked_swf(path)
    if "error" in spec:
        with pytest.raises(Exception) as info:
            _simulate(reader, workload, spec)
        _check_error(info.value, spec, path, names_file=spec.get("names_file", True))
    else:
        result = _simulate(reader, workload, spec)
        assert len(result.jobs) == spec["jobs"]
        assert np.isfinite(result.jobs["finish_time"]).all()
