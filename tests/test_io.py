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


def test_a_symbolic_link_is_written_through_and_kept(tmp_path):
    (tmp_path / "runs").mkdir()
    target = tmp_path / "runs" / "jobs.csv"
    target.write_text("old\n")
    link = tmp_path / "latest.csv"
    link.symlink_to("runs/jobs.csv")
    write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == "runs/jobs.csv"
    assert target.read_text() == "new\n"
    # No temporary left beside the link or beside its target.
    assert _entries(tmp_path) == ["latest.csv", "runs"]
    assert _entries(tmp_path / "runs") == ["jobs.csv"]


def test_a_failed_write_through_a_link_keeps_both(tmp_path):
    target = tmp_path / "jobs.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    with pytest.raises(Boom):
        with atomic_write(link) as f:
            f.write("half")
            raise Boom()
    assert link.is_symlink() and target.read_text() == "old\n"
    assert _entries(tmp_path) == ["jobs.csv", "link.csv"]


def test_a_dangling_link_creates_its_target_and_a_chain_is_followed(tmp_path):
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("c.json")  # c.json does not exist yet
    write_text(tmp_path / "a.json", "{}\n")
    assert (tmp_path / "c.json").read_text() == "{}\n" and not (tmp_path / "c.json").is_symlink()
    assert (tmp_path / "a.json").is_symlink() and (tmp_path / "b.json").is_symlink()
    (tmp_path / "lost.json").symlink_to(tmp_path / "nodir" / "x.json")
    with pytest.raises(FileNotFoundError, match="nodir"):
        write_text(tmp_path / "lost.json", "{}\n")
    assert not (tmp_path / "nodir").exists()


def test_gzip_through_a_link_stores_the_name_given(tmp_path):
    # As open(link) would: gzip's header holds the name written to.
    (tmp_path / "t.csv.gz").symlink_to("real.csv.gz")
    write_csv(pd.DataFrame({"a": [1], "b": [2]}), tmp_path / "t.csv.gz", index=False)
    data = (tmp_path / "real.csv.gz").read_bytes()
    assert gzip.decompress(data) == b"a,b\n1,2\n" and b"t.csv" in data[:32]


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


def _edge_frame(n=300, seed=0, breaks=False):
    import numpy as np
    rng = np.random.default_rng(seed)
    floats = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
    floats[:12] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e16, 1e15, 5e-324, 1.7976931348623157e308,
                   0.1 + 0.2, 100.0, 12345678.9]
    words = ["", "plain", "a,b", 'q"x', '"', " sp ", "é", None, float("nan")]
    if breaks:
        words += ["new\nline", "cr\rx"]
    return pd.DataFrame({
        "f": floats,
        "i": rng.integers(-10**12, 10**12, n),
        "u8": rng.integers(0, 255, n).astype("uint8"),
        "b": rng.random(n) < 0.5,
        "o": [words[k] for k in rng.integers(0, len(words), n)],
        "s": pd.array([words[k] if isinstance(words[k], str) else None
                       for k in rng.integers(0, len(words), n)], dtype="str"),
        "with,comma": np.arange(n),
    })


@pytest.mark.parametrize("end", ["\n", "\r\n", None])
def test_write_csv_text_is_what_pandas_writes(tmp_path, end):
    # write_csv builds plain tables itself (pandas' writer is the slow part
    # of a paper K step); the text must be pandas' to the byte.
    kwargs = {"index": False} if end is None else {"index": False, "lineterminator": end}
    for seed in range(3):
        frame = _edge_frame(seed=seed)
        for name, f in (("all", frame), ("empty", frame.iloc[0:0]), ("floats", frame[["f", "i"]])):
            write_csv(f, tmp_path / f"{name}.csv", **kwargs)
            f.to_csv(tmp_path / f"{name}.pandas.csv", **kwargs)
            assert (tmp_path / f"{name}.csv").read_bytes() == (tmp_path / f"{name}.pandas.csv").read_bytes()


@pytest.mark.parametrize("compression", ["infer", "gzip", {"method": "gzip"}])
def test_every_gzip_header_has_a_zero_time_stamp(tmp_path, compression):
    frame = _edge_frame(seed=0)
    # A DataFrame takes the fast writer, a Series pandas' own: both stamp 0.
    for name, table in (("frame", frame), ("series", frame["i"])):
        write_csv(table, tmp_path / f"{name}.csv.gz", index=False, compression=compression)
        raw = (tmp_path / f"{name}.csv.gz").read_bytes()
        assert raw[4:8] == b"\0\0\0\0", name
        assert gzip.decompress(raw) == table.to_csv(index=False).encode()
    write_csv(frame, tmp_path / "kept.csv.gz", index=False,
              compression={"method": "gzip", "mtime": 7})  # a given stamp stays
    assert (tmp_path / "kept.csv.gz").read_bytes()[4:8] == (7).to_bytes(4, "little")


def test_plain_csv_gzip_holds_pandas_text_and_the_destination_name(tmp_path):
    frame = pd.concat([_edge_frame(seed=s) for s in range(40)], ignore_index=True)
    write_csv(frame, tmp_path / "jobs.csv.gz", index=False, lineterminator="\n", compression=GZIP)
    raw = (tmp_path / "jobs.csv.gz").read_bytes()
    assert raw[3] & 0x08 and raw[10:19] == b"jobs.csv\0"   # FNAME flag, then the name
    assert raw[4:8] == b"\0\0\0\0"                         # mtime 0
    assert gzip.decompress(raw) == frame.to_csv(index=False, lineterminator="\n").encode()
    (tmp_path / "p").mkdir()
    frame.to_csv(tmp_path / "p" / "jobs.csv.gz", index=False, lineterminator="\n", compression=GZIP)
    assert raw == (tmp_path / "p" / "jobs.csv.gz").read_bytes()


@pytest.mark.parametrize("kwargs", [{"index": True}, {"index": False, "float_format": "%.3g"},
                                    {"index": False, "sep": ";"}])
def test_other_csv_options_are_pandas_own(tmp_path, kwargs):
    frame = _edge_frame(n=20)
    write_csv(frame, tmp_path / "a.csv", **kwargs)
    frame.to_csv(tmp_path / "b.csv", **kwargs)
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


@pytest.mark.parametrize("end", ["\n", "\r\n", ";"])
def test_line_breaks_in_cells_and_other_terminators_are_pandas_own(tmp_path, end):
    frame = _edge_frame(n=40, breaks=True)
    write_csv(frame, tmp_path / "a.csv", index=False, lineterminator=end)
    frame.to_csv(tmp_path / "b.csv", index=False, lineterminator=end)
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_other_dtypes_are_pandas_own(tmp_path):
    frame = pd.DataFrame({"c": pd.Categorical(["x", "y"]), "n": pd.array([1, None], dtype="Int64"),
                          "t": pd.to_datetime(["2020-01-01", "2020-01-02"]), "m": [1, "a"],
                          "f32": pd.Series([0.1, 2.5], dtype="float32")})
    for cols in (["c", "n"], ["t", "n"], ["m", "n"], ["f32", "n"]):
        write_csv(frame[cols], tmp_path / "a.csv", index=False)
        frame[cols].to_csv(tmp_path / "b.csv", index=False)
        assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


@pytest.mark.parametrize("seed", range(20))
def test_csv_text_equals_pandas_on_random_tables(seed):
    """The fast writer against pandas' to_csv: random columns of every kind it handles
    (integral, fractional, NaN, -0.0, huge and infinite floats; ints; bools;
    constant and varying strings, with '%')."""
    import numpy as np

    from simlib.io import csv_text

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    pick = rng.integers(0, 4, size=n)
    floats = np.choose(pick, [rng.integers(-10**6, 10**6, n).astype(float),
                              rng.normal(0, 1e3, n), np.full(n, np.nan),
                              rng.choice([0.0, -0.0, 2.0**60, np.inf, 1e-7], n)])
    columns = {
        "f_mixed": floats,
        "f_integral": rng.integers(-10**9, 10**9, n).astype(float),
        "f_zero": np.where(rng.random(n) < 0.5, 0.0, -0.0),
        "f_const": np.full(n, -1.0),
        "i": rng.integers(-2**62, 2**62, n),
        "i_const": np.full(n, 7),
        "b": rng.random(n) < 0.5,
        "s": [f"j%{k}s" for k in rng.integers(0, 5, n)],
        "s_const": "50% done",
        "s_empty": "",
    }
    names = list(columns)
    rng.shuffle(names)
    df = pd.DataFrame({name: columns[name] for name in names})
    # Both writers: the %-format one here, the compiled one (where it is
    # built) in tests/test_intervals_kernel.py.
    for end in ("\n", "\r\n"):
        assert csv_text(df, end, compiled=False) == df.to_csv(index=False, lineterminator=end)
    assert csv_text(df.iloc[:0], compiled=False) == df.iloc[:0].to_csv(index=False,
                                                                    lineterminator="\n")


def test_series_and_stored_gzip_are_pandas_own(tmp_path):
    # A Series has no columns (pandas writes it); level 0 stores blocks whose
    # bounds follow the writes, so only pandas' own writes give its bytes.
    s = pd.Series([1.5, 2.0], name="x")
    write_csv(s, tmp_path / "s.csv", index=False)
    assert (tmp_path / "s.csv").read_text() == s.to_csv(index=False)
    frame = pd.concat([_edge_frame(seed=k) for k in range(20)], ignore_index=True)
    stored = {"method": "gzip", "mtime": 0, "compresslevel": 0}
    (tmp_path / "p").mkdir()
    write_csv(frame, tmp_path / "t.csv.gz", index=False, lineterminator="\n", compression=stored)
    frame.to_csv(tmp_path / "p" / "t.csv.gz", index=False, lineterminator="\n", compression=stored)
    assert (tmp_path / "t.csv.gz").read_bytes() == (tmp_path / "p" / "t.csv.gz").read_bytes()


@pytest.mark.parametrize("name", ["a.csv", "a.csv.gz", "A.CSV.GZ", "a.tar", "a.tar.gz", "a.tgz",
                                  "a.csv.bz2", "a.zip", "a.xz", "a.zst", "a.gz.csv", "gz"])
def test_inferred_compression_is_pandas_inference(name):
    from pandas.io.common import infer_compression

    from simlib.io import _inferred_compression

    assert _inferred_compression(name) == infer_compression(name, "infer")


@pytest.mark.parametrize("name", ["t.csv", "t.csv.gz"])
def test_a_table_is_written_chunk_by_chunk_with_the_same_bytes(tmp_path, monkeypatch, name):
    # A jobs table of 25 rows written 4 rows at a time, plain and gzip: the
    # bytes of pandas' own file (a million-job table is never one text).
    import simlib.io as sio
    from simlib.table import Table
    frame = pd.DataFrame({"job_id": [str(i) for i in range(25)],
                          "t": [0.5 * i if i % 7 else float("nan") for i in range(25)],
                          "n": list(range(25)), "alloc": [f"{i}-{i + 3}" for i in range(25)]})
    monkeypatch.setattr(sio, "CSV_CHUNK_ROWS", 4)
    for table in (frame, Table.from_frame(frame)):
        got = sio.write_csv(table, tmp_path / name, index=False, lineterminator="\n")
        ref = tmp_path / "ref"
        ref.mkdir(exist_ok=True)   # the same name: gzip's header holds it
        frame.to_csv(ref / name, index=False, lineterminator="\n",
                     compression={"method": "gzip", "mtime": 0} if name.endswith(".gz") else None)
        assert got.read_bytes() == (ref / name).read_bytes()
    # A cell that needs quoting only in a later chunk: pandas writes the whole table.
    frame.loc[21, "alloc"] = "a,b"
    got = sio.write_csv(frame, tmp_path / "q.csv", index=False, lineterminator="\n")
    assert got.read_text() == frame.to_csv(index=False, lineterminator="\n")
