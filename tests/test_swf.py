"""Tests of simlib.workload.swf: reading, writing, exact round trip, errors."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_pipeline import synthetic_swf
from simlib.errors import TraceFormatError
from simlib.workload.swf import (
    FLOAT_FIELDS,
    NONNEGATIVE_FIELDS,
    SWF_DTYPES,
    SWF_FIELDS,
    TIME_FIELDS,
    Workload,
    header_value,
    job_line,
    max_procs,
    read_swf,
    write_swf,
)

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"

# A small hand-made log: header with odd spacing, a blank line and a
# whitespace-only line in the body, fractional CPU time and memory, "7.00"
# in an integer field, equal submit times.
SMALL = (
    "; Version: 2.2\n"
    "; Computer: Toy\n"
    ";\n"
    "; MaxNodes: 64\n"
    "; MaxProcs: 128   \n"
    "; UnixStartTime: 843480031\n"
    "\n"
    "    1    0   5  100  4  98.50   -1   4  200   -1  1  1  1 -1 -1 -1 -1 -1\n"
    "    2   10  -1   -1 -1     -1 1.5  8  300 2048  0  2  1  3  1  1  1 30\n"
    "\n"
    "    3   10   0    7  1   7.00  -1   1  7.00  -1  5  2  1 -1 -1 -1 -1 -1\n"
    "   \t \n"
    "    4   25   0    0  2  .25 0.001   2   60   -1  1  3  2 -1 -1 -1 -1 -1\n"
)
SMALL_HEADER = [
    "; Version: 2.2",
    "; Computer: Toy",
    ";",
    "; MaxNodes: 64",
    "; MaxProcs: 128   ",
    "; UnixStartTime: 843480031",
]
# Line numbers of the four job lines in SMALL.
SMALL_JOB_LINES = [8, 9, 11, 13]


def _write_text(path: Path, text: str, *, compress: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def _assert_same(a: Workload, b: Workload) -> None:
    pd.testing.assert_frame_equal(a.jobs, b.jobs, check_exact=True)
    assert list(a.jobs.dtypes) == list(b.jobs.dtypes)
    assert a.header == b.header


@pytest.fixture(scope="module")
def kth(real_traces) -> Workload:
    return read_swf(real_traces / KTH)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Workload:
    """A 2,000-job synthetic log with archive quirks (helpers_pipeline)."""
    path = tmp_path_factory.mktemp("synthetic") / "synthetic.swf"
    path.write_bytes(synthetic_swf(2000, 128, seed=5))
    return read_swf(path)


# ------------------------------------------------------------------ reading


def test_small_values_dtypes_and_header(tmp_path):
    w = read_swf(_write_text(tmp_path / "small.swf", SMALL))
    assert w.path == str(tmp_path / "small.swf")
    assert w.header == SMALL_HEADER
    assert tuple(w.jobs.columns) == SWF_FIELDS
    assert dict(w.jobs.dtypes) == SWF_DTYPES
    assert set(FLOAT_FIELDS) == {"avg_cpu_time", "used_memory"}
    assert isinstance(w.jobs.index, pd.RangeIndex)
    assert w.jobs["job_id"].tolist() == [1, 2, 3, 4]
    assert w.jobs["avg_cpu_time"].tolist() == [98.5, -1.0, 7.0, 0.25]
    assert w.jobs["used_memory"].tolist() == [-1.0, 1.5, -1.0, 0.001]
    assert w.jobs["requested_time"].tolist() == [200, 300, 7, 60]
    assert w.jobs.loc[1].tolist() == [2, 10, -1, -1, -1, -1, 1.5, 8, 300, 2048,
                                      0, 2, 1, 3, 1, 1, 1, 30]


def test_gzip_detected_by_magic_not_name(tmp_path):
    plain = read_swf(_write_text(tmp_path / "a.swf", SMALL))
    gz_named_plain = read_swf(_write_text(tmp_path / "b.swf", SMALL, compress=True))
    plain_named_gz = read_swf(_write_text(tmp_path / "c.swf.gz", SMALL))
    _assert_same(plain, gz_named_plain)
    _assert_same(plain, plain_named_gz)


def test_crlf_line_ends(tmp_path):
    w = read_swf(_write_text(tmp_path / "crlf.swf", SMALL.replace("\n", "\r\n")))
    ref = read_swf(_write_text(tmp_path / "lf.swf", SMALL))
    _assert_same(w, ref)


def test_empty_and_header_only(tmp_path):
    # Accepted on request only (tests/test_malformed_inputs.py: the default).
    empty = read_swf(_write_text(tmp_path / "e.swf", ""), allow_empty=True)
    assert empty.header == [] and len(empty.jobs) == 0
    only = read_swf(_write_text(tmp_path / "h.swf", "; MaxProcs: 4\n\n"), allow_empty=True)
    assert only.header == ["; MaxProcs: 4"]
    assert tuple(only.jobs.columns) == SWF_FIELDS
    assert dict(only.jobs.dtypes) == SWF_DTYPES
    write_swf(only, tmp_path / "h2.swf")
    assert (tmp_path / "h2.swf").read_text() == "; MaxProcs: 4\n"


def test_huge_integers_exact(tmp_path):
    # Beyond 2**53 float64 is not exact: the reader must still get them right.
    big = 2**62 + 1
    line = f"{big} 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    w = read_swf(_write_text(tmp_path / "big.swf", line))
    assert int(w.jobs["job_id"].iloc[0]) == big
    write_swf(w, tmp_path / "big2.swf")
    assert (tmp_path / "big2.swf").read_text().split()[0] == str(big)


@pytest.mark.real_traces
def test_kth_real_trace(kth):
    assert len(kth.jobs) == 28476  # MANIFEST.tsv jobs_in_file
    assert dict(kth.jobs.dtypes) == SWF_DTYPES
    assert kth.jobs.iloc[0].tolist() == [15, 599850, 192180, 3477, 4, -1, -1, 4,
                                         53940, -1, 1, 12, 12, -1, -1, -1, -1, -1]
    assert kth.header[0] == "; Version: 2.2"
    assert len(kth.header) == 24
    assert max_procs(kth) == 100
    assert header_value(kth, "UnixStartTime") == "843480031"
    assert (np.diff(kth.jobs["submit_time"].to_numpy()) >= 0).all()


# ------------------------------------------------------------- round trip


@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_round_trip_small(tmp_path, suffix):
    first = read_swf(_write_text(tmp_path / "small.swf", SMALL))
    write_swf(first, tmp_path / f"a{suffix}")
    second = read_swf(tmp_path / f"a{suffix}")
    _assert_same(first, second)
    write_swf(second, tmp_path / f"b{suffix}")
    assert (tmp_path / f"a{suffix}").read_bytes() == (tmp_path / f"b{suffix}").read_bytes()
    text = (gzip.decompress if suffix.endswith(".gz") else bytes)(
        (tmp_path / f"a{suffix}").read_bytes()).decode()
    lines = text.splitlines()
    assert lines[:6] == SMALL_HEADER
    # Integral values without a decimal point, fractional ones exact.
    assert lines[6].split() == ["1", "0", "5", "100", "4", "98.5", "-1", "4",
                                "200", "-1", "1", "1", "1", "-1", "-1", "-1",
                                "-1", "-1"]
    assert lines[8].split()[5:10] == ["7", "-1", "1", "7", "-1"]
    assert lines[9].split()[5:7] == ["0.25", "0.001"]
    assert len(lines) == 10  # blank lines dropped


@pytest.mark.parametrize("log", ["synthetic", pytest.param("kth", marks=pytest.mark.real_traces)])
@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_round_trip_of_a_whole_log(tmp_path, request, log, suffix):
    log = request.getfixturevalue(log)
    write_swf(log, tmp_path / f"a{suffix}")
    again = read_swf(tmp_path / f"a{suffix}")
    _assert_same(log, again)
    write_swf(again, tmp_path / f"b{suffix}")
    assert (tmp_path / f"a{suffix}").read_bytes() == (tmp_path / f"b{suffix}").read_bytes()


def test_gzip_output_is_deterministic_and_named_by_suffix(tmp_path, synthetic):
    write_swf(synthetic, tmp_path / "x.swf.gz")
    write_swf(synthetic, tmp_path / "y.swf.gz")
    write_swf(synthetic, tmp_path / "z.swf")
    gz = (tmp_path / "x.swf.gz").read_bytes()
    assert gz[:2] == b"\x1f\x8b"
    assert gz == (tmp_path / "y.swf.gz").read_bytes()
    assert gzip.decompress(gz) == (tmp_path / "z.swf").read_bytes()
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left


_floats = st.one_of(
    st.just(-1.0),
    st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False),
    st.floats(min_value=0, max_value=1e-3, allow_nan=False),
)
_ints = st.one_of(st.just(-1), st.integers(0, 2**63 - 1))
_times = st.one_of(st.just(-1), st.integers(0, 2**53))


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(*[_floats if f in FLOAT_FIELDS else
                                 _times if f in TIME_FIELDS else _ints
                                 for f in SWF_FIELDS]),
                     min_size=1, max_size=6, unique_by=lambda row: row[0]))
def test_round_trip_property(tmp_path_factory, rows):
    jobs = pd.DataFrame(rows, columns=list(SWF_FIELDS)).astype(SWF_DTYPES)
    jobs = jobs.sort_values("submit_time", kind="stable", ignore_index=True)
    w = Workload(jobs=jobs, header=["; Note: property test"])
    path = tmp_path_factory.mktemp("prop") / "p.swf"
    write_swf(w, path)
    _assert_same(w, read_swf(path))


# ------------------------------------------------------------------- errors

GOOD = "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1"


def _line_with(field: str, token: str) -> str:
    tokens = GOOD.split()
    tokens[SWF_FIELDS.index(field)] = token
    return " ".join(tokens)


def _error(tmp_path, text: str, **kwargs) -> TraceFormatError:
    path = _write_text(tmp_path / "bad.swf.gz", text, compress=True)
    with pytest.raises(TraceFormatError) as info:
        read_swf(path, **kwargs)
    err = info.value
    assert err.path == str(path)
    assert str(path) in str(err) and f":{err.line}:" in str(err)
    return err


def _with_bad_third_job(bad_line: str) -> str:
    # Header, blank line, two good jobs, then the bad one (job id 1 unless it
    # is the bad field) on physical line 6, then another good job.
    return (f"; MaxProcs: 4\n\n{_line_with('job_id', '2')}\n{_line_with('job_id', '3')}\n\n"
            f"{bad_line}\n{_line_with('job_id', '4')}\n")


@pytest.mark.parametrize(
    "bad_line, field, reason",
    [
        (" ".join(GOOD.split()[:17]), "think_time", "expected 18 fields, found 17"),
        (" ".join(GOOD.split()[:3]), "run_time", "expected 18 fields, found 3"),
        (GOOD + " 7", None, "expected 18 fields, found 19"),
        (_line_with("run_time", "abc"), "run_time", "not a number: 'abc'"),
        (_line_with("user_id", "1e3"), "user_id", "not a number: '1e3'"),
        (_line_with("avg_cpu_time", "nan"), "avg_cpu_time", "not a number: 'nan'"),
        (_line_with("queue", "1-2"), "queue", "not a number: '1-2'"),
        (_line_with("status", "1.5"), "status", "fractional value 1.5 in an integer field"),
        (_line_with("job_id", str(2**63)), "job_id", "does not fit in a 64-bit integer"),
        (_line_with("submit_time", "-5"), "submit_time", "negative value -5"),
        (_line_with("used_memory", "-0.5"), "used_memory", "negative value -0.5"),
        ("; late comment", None, "header comment line"),
    ],
)
def test_malformed_line(tmp_path, bad_line, field, reason):
    err = _error(tmp_path, _with_bad_third_job(bad_line))
    assert err.line == 6
    assert err.field == field
    assert reason in err.reason


@pytest.mark.parametrize("field", NONNEGATIVE_FIELDS)
def test_every_nonnegative_field_rejects_negatives(tmp_path, field):
    token = "-2.5" if field in FLOAT_FIELDS else "-2"
    err = _error(tmp_path, _with_bad_third_job(_line_with(field, token)))
    assert (err.line, err.field) == (6, field)
    assert f"negative value {token}" in err.reason


def test_negative_allowed_outside_times_and_sizes(tmp_path):
    text = _with_bad_third_job(_line_with("think_time", "-30"))
    assert read_swf(_write_text(tmp_path / "ok.swf", text)).jobs["think_time"].iloc[2] == -30


def test_error_on_first_bad_line_only(tmp_path):
    text = f"{GOOD}\n{_line_with('run_time', 'x')}\n{_line_with('status', 'y')}\n"
    err = _error(tmp_path, text)
    assert (err.line, err.field) == (2, "run_time")


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(gzip.compress(SMALL.encode())[:40])
    with pytest.raises(TraceFormatError, match="corrupt gzip"):
        read_swf(path)


# --------------------------------------------------------------- unsorted

def _job(job_id: int, submit: int) -> str:
    return " ".join([str(job_id), str(submit)] + GOOD.split()[2:])


UNSORTED = "; MaxProcs: 8\n" + "".join(
    _job(i, t) + "\n" for i, t in [(1, 100), (2, 50), (3, 100), (4, 50)])


def test_unsorted_rejected_with_line(tmp_path):
    err = _error(tmp_path, UNSORTED)
    assert (err.line, err.field) == (3, "submit_time")
    assert "50 is earlier than 100 on line 2" in err.reason
    assert "unsorted='sort'" in err.reason


def test_unsorted_sorted_stably(tmp_path):
    w = read_swf(_write_text(tmp_path / "u.swf", UNSORTED), unsorted="sort")
    assert w.jobs["submit_time"].tolist() == [50, 50, 100, 100]
    assert w.jobs["job_id"].tolist() == [2, 4, 1, 3]  # ties keep file order
    assert isinstance(w.jobs.index, pd.RangeIndex)
    assert dict(w.jobs.dtypes) == SWF_DTYPES


def test_sort_mode_still_reports_other_errors(tmp_path):
    text = UNSORTED + _line_with("run_time", "-3") + "\n"
    err = _error(tmp_path, text, unsorted="sort")
    assert (err.line, err.field) == (6, "run_time")


def test_unsorted_argument_checked(tmp_path):
    with pytest.raises(ValueError, match="unsorted"):
        read_swf(_write_text(tmp_path / "s.swf", SMALL), unsorted="ignore")


# ------------------------------------------------------------- writer checks


def _small_workload(tmp_path) -> Workload:
    return read_swf(_write_text(tmp_path / "small.swf", SMALL))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda j: j.drop(columns="think_time"), "columns"),
        (lambda j: j.assign(status=j["status"].astype(float).where(j.index != 1, 0.5)),
         "status: value 0.5 at row 1 is not an integer"),
        (lambda j: j.assign(avg_cpu_time=j["avg_cpu_time"].where(j.index != 2, np.nan)),
         "avg_cpu_time: missing value at row 2"),
        (lambda j: j.assign(run_time=j["run_time"].where(j.index != 3, -7)),
         "run_time: negative value -7 at row 3"),
        (lambda j: j.assign(submit_time=[0, 10, 5, 25]), "submit_time decreases at row 2"),
        (lambda j: j.assign(job_id=[1, 2, 1, 4]), r"job id 1 appears twice \(rows 0 and 2\)"),
        (lambda j: j.assign(requested_time=[1, 2, 2**53 + 1, 4]),
         r"requested_time: time 9007199254740993 at row 2 is beyond 2\*\*53"),
    ],
)
def test_writer_refuses_invalid(tmp_path, mutate, message):
    w = _small_workload(tmp_path)
    bad = Workload(jobs=mutate(w.jobs.copy()), header=w.header)
    with pytest.raises(ValueError, match=message):
        write_swf(bad, tmp_path / "out.swf")
    assert not (tmp_path / "out.swf").exists()


def test_writer_refuses_bad_header(tmp_path):
    w = _small_workload(tmp_path)
    with pytest.raises(ValueError, match="header line 1"):
        write_swf(Workload(w.jobs, [";ok", "no semicolon"]), tmp_path / "o.swf")


def test_writer_accepts_integral_floats_in_int_columns(tmp_path):
    w = _small_workload(tmp_path)
    jobs = w.jobs.astype({"run_time": float})
    write_swf(Workload(jobs, w.header), tmp_path / "o.swf")
    _assert_same(read_swf(tmp_path / "o.swf"), w)


# ------------------------------------------------------------------- header


def test_header_value_and_max_procs(tmp_path):
    w = _small_workload(tmp_path)
    assert header_value(w, "MaxProcs") == "128"
    assert header_value(w, "maxprocs") == "128"
    assert header_value(w, "Computer") == "Toy"
    assert header_value(w, "UnixStartTime") == "843480031"
    assert header_value(w, "TimeZone") is None
    assert max_procs(w) == 128


@pytest.mark.parametrize(
    "header, expected",
    [
        (["; MaxNodes: 64"], 64),
        (["; MaxProcs: -1", "; MaxNodes: 32"], 32),
        # The archive's CTC log notes its partition after the number.
        (["; MaxNodes: 338 (batch partition; 512 total)"], 338),
        (["; MaxProcs: 430", "; MaxNodes: 338 (batch partition; 512 total)"], 430),
        (["; Version: 2"], None),
        ([], None),
    ],
)
def test_max_procs_fallback(header, expected):
    assert max_procs(Workload(pd.DataFrame(columns=list(SWF_FIELDS)), header)) == expected


_JOB = " ".join(["1", "0", "0", "10", "1", "-1", "-1", "1", "20"] + ["-1"] * 9)


@pytest.mark.parametrize("header, key, value, line", [
    ("; Version: 2.2\n; MaxProcs: abc\n", "MaxProcs", "abc", 2),
    ("; Version: 2.2\n\n; Computer: x\n; MaxProcs: 0\n", "MaxProcs", "0", 4),
    ("; MaxProcs: 12.5\n", "MaxProcs", "12.5", 1),
    ("; MaxProcs: -4\n", "MaxProcs", "-4", 1),
    # MaxProcs is tried first: an invalid one is not hidden by a valid MaxNodes.
    ("; MaxNodes: 16\n; MaxProcs: lots\n", "MaxProcs", "lots", 2),
    # MaxNodes, read when MaxProcs is absent or unknown, the same way.
    ("; MaxProcs: -1\n; MaxNodes: zero\n", "MaxNodes", "zero", 2),
])
@pytest.mark.parametrize("compress", [False, True])
def test_invalid_machine_size_names_value_file_and_line(tmp_path, header, key, value, line,
                                                        compress):
    path = _write_text(tmp_path / "t.swf", header + _JOB + "\n", compress=compress)
    w = read_swf(path)
    with pytest.raises(TraceFormatError) as info:
        max_procs(w)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, key)
    assert str(err) == (f"{path}:{line}: field {key!r}: invalid header value {value!r}: the "
                        "machine's size must be an integer >= 1 (or -1 for unknown)")
    assert "no MaxProcs" not in str(err)


def test_invalid_machine_size_without_a_file_names_the_header():
    w = Workload(pd.DataFrame(columns=list(SWF_FIELDS)), ["; MaxProcs: abc"])
    with pytest.raises(TraceFormatError, match=r"^workload header: field 'MaxProcs': invalid "
                                               r"header value 'abc'"):
        max_procs(w)


def test_header_value_first_occurrence():
    w = Workload(pd.DataFrame(columns=list(SWF_FIELDS)),
                 ["; Note: first", ";Note:second", "; Queue:  1  "])
    assert header_value(w, "Note") == "first"
    assert header_value(w, "Queue") == "1"


def test_job_line_maps_rows_to_file_lines(tmp_path):
    path = tmp_path / "small.swf"
    path.write_text(SMALL)
    lines = SMALL.splitlines()
    job_lines = [i + 1 for i, text in enumerate(lines) if text.strip() and not text.lstrip().startswith(";")]
    assert [job_line(path, k) for k in range(len(job_lines))] == job_lines
    assert job_line(path, len(job_lines)) is None
    gz = tmp_path / "small.swf.gz"
    gz.write_bytes(gzip.compress(SMALL.encode()))
    assert job_line(gz, 1) == job_lines[1]
    # By job id: the line whatever the rows became (sorted, cleaned).
    ids = [int(lines[n - 1].split()[0]) for n in job_lines]
    assert [job_line(path, job_id=i) for i in reversed(ids)] == list(reversed(job_lines))
    assert job_line(path, job_id=max(ids) + 1) is None


def test_workload_from_columns_builds_its_frame_once_and_follows_it(tmp_path):
    from simlib.table import Table

    columns = {name: np.arange(3, dtype=SWF_DTYPES[name]) for name in SWF_FIELDS}
    w = Workload(Table(columns), header=["; Version: 2.2"], path="w.swf")
    assert len(w.table) == 3 and w.table["job_id"] is columns["job_id"]  # no copy, no pandas
    frame = w.jobs
    assert frame is w.jobs and list(frame.columns) == list(SWF_FIELDS)
    assert list(frame.dtypes) == [SWF_DTYPES[name] for name in SWF_FIELDS]
    frame.loc[1, "run_time"] = 99  # from now on the frame is the content
    assert w.table["run_time"].tolist() == [0, 99, 2]
    w.jobs = Table({name: columns[name][:1] for name in SWF_FIELDS})
    assert len(w.jobs) == 1 and len(w.table) == 1
