"""Tests of simlib.io: atomic output (complete file or none, never a temporary left)."""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys

import matplotlib
import pandas as pd
import pytest

from simlib.io import GZIP, atomic_path, atomic_write, write_bytes, write_csv, write_text

matplotlib.use("Agg")


class Boom(Exception):
    pass


def _entries(directory):
    return sorted(p.name for p in directory.iterdir())


def test_write_text_and_bytes(tmp_path):
    assert write_text(tmp_path / "sub" / "a.md", "x\n").read_text() == "x\n"
    assert write_bytes(tmp_path / "b.bin", b"\x00\x01").read_bytes() == b"\x00\x01"
    assert _entries(tmp_path) == ["b.bin", "sub"]
    assert _entries(tmp_path / "sub") == ["a.md"]


def test_destination_appears_only_when_complete(tmp_path):
    dest = tmp_path / "out.txt"
    with atomic_write(dest) as f:
        f.write("partial")
        f.flush()
        assert not dest.exists()
    assert dest.read_text() == "partial"
    assert _entries(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt])
def test_interrupted_write_leaves_no_file_and_no_temporary(tmp_path, exc):
    dest = tmp_path / "jobs.csv"
    with pytest.raises(exc):
        with atomic_write(dest) as f:
            f.write("job_id\n1\n")
            raise exc()
    assert _entries(tmp_path) == []


def test_interrupted_rewrite_keeps_the_previous_file(tmp_path):
    dest = tmp_path / "summary.json"
    dest.write_text("old")
    with pytest.raises(Boom):
        with atomic_path(dest) as tmp:
            tmp.write_text("new, half written")
            raise Boom()
    assert dest.read_text() == "old"
    assert _entries(tmp_path) == ["summary.json"]


def test_atomic_path_for_libraries_that_take_a_name(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure()
    fig.subplots().plot([0, 1], [1, 0])
    with atomic_path(tmp_path / "f.png") as tmp:
        assert tmp.name == "f.png" and tmp.parent != tmp_path and not tmp.exists()
        fig.savefig(tmp, format="png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert _entries(tmp_path) == ["f.png"]


def test_nothing_written_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing was written"):
        with atomic_path(tmp_path / "x.nc"):
            pass
    assert _entries(tmp_path) == []


def test_mode_must_be_a_fresh_write(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        with atomic_write(tmp_path / "x", "a"):
            pass


def test_permissions_are_those_of_a_plain_open(tmp_path):
    write_text(tmp_path / "atomic.txt", "x")
    (tmp_path / "plain.txt").write_text("x")
    assert (tmp_path / "atomic.txt").stat().st_mode == (tmp_path / "plain.txt").stat().st_mode


def test_gzip_csv_bytes_do_not_depend_on_the_temporary_name(tmp_path):
    # The gzip header stores the file name: it must be the destination's.
    frame = pd.DataFrame({"job_id": [1, 2], "wait": [0.5, 3.0]})
    kwargs = dict(index=False, lineterminator="\n", compression=GZIP)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_csv(frame, tmp_path / "a" / "jobs.csv.gz", **kwargs)
    frame.to_csv(tmp_path / "b" / "jobs.csv.gz", **kwargs)
    assert (tmp_path / "a" / "jobs.csv.gz").read_bytes() == (tmp_path / "b" / "jobs.csv.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a" / "jobs.csv.gz").read_bytes()) == b"job_id,wait\n1,0.5\n2,3.0\n"


def test_kill_9_mid_write_leaves_no_partial_file(tmp_path):
    dest = tmp_path / "jobs.csv"
    code = (
        "import sys, time\n"
        "from simlib.io import atomic_write\n"
        f"with atomic_write({str(dest)!r}) as f:\n"
        "    f.write('job_id\\n' * 1000); f.flush()\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
    assert not dest.exists()
    # Only the hidden temporary directory may remain, never a partial jobs.csv.
    assert all(name.startswith(".jobs.csv.") for name in _entries(tmp_path))
