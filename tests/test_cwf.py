"""Tests of simlib.workload.cwf: CWF reading, writing, round trip, errors."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.errors import TraceFormatError
from simlib.runner import jobs_from_workload
from simlib.workload import cwf
from simlib.workload.cwf import (
    COMMAND_KINDS,
    CWF_DTYPES,
    CWF_FIELDS,
    REQUEST_TYPE_NAMES,
    REQUEST_TYPES,
    ElasticCommand,
    command_events,
    merge_commands,
    read_cwf,
    split_commands,
    write_cwf,
)
from simlib.workload.swf import SWF_FIELDS, Workload

BLANK16 = " ".join(["-1"] * 16)  # fields 3-18 of a command line

# Header, a blank line, a batch job, a dedicated job (requested start 100),
# a fractional CPU time, an ET at the same second as its job's submission,
# an RT later, a whitespace-only line, an EP.
SMALL = (
    "; Version: 2.2\n"
    "; Format: CWF\n"
    "\n"
    "1  0 -1  50  32 -1 -1  32  60 -1 1 -1 -1 -1 1 -1 -1 -1  -1  S -1\n"
    "2  5 -1  70  64 1.5 -1 64  80 -1 1 -1 -1 -1 0 -1 -1 -1 100  S -1\n"
    f"2  5 {BLANK16} -1 ET 30\n"
    f"1 20 {BLANK16} -1 RT 10\n"
    "  \t \n"
    f"2 40 {BLANK16} -1 EP 32\n"
)
SMALL_LINES = [4, 5, 6, 7, 9]


def _write(path: Path, text: str, compress: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def _small_workload() -> Workload:
    jobs = pd.DataFrame(
        [[1, 0, -1, 50, 32, -1, -1, 32, 60, -1, 1, -1, -1, -1, 1, -1, -1, -1],
         [2, 5, -1, 70, 64, 1.5, -1, 64, 80, -1, 1, -1, -1, -1, 0, -1, -1, -1]],
        columns=list(SWF_FIELDS))
    jobs["requested_start"] = [-1, 100]
    cmds = [ElasticCommand(5, 2, "ET", 30), ElasticCommand(20, 1, "RT", 10),
            ElasticCommand(40, 2, "EP", 32)]
    return merge_commands(Workload(jobs, header=["; Version: 2.2", "; Format: CWF"]), cmds)


# ----------------------------------------------------------------------------- reading


def test_read_small_values_and_dtypes(tmp_path):
    w = read_cwf(_write(tmp_path / "s.cwf", SMALL))
    j = w.jobs
    assert list(j.columns) == list(CWF_FIELDS)
    assert {c: j[c].dtype for c in j.columns} == CWF_DTYPES
    assert isinstance(j.index, pd.RangeIndex)
    assert j["job_id"].tolist() == [1, 2, 2, 1, 2]
    assert j["submit_time"].tolist() == [0, 5, 5, 20, 40]
    assert j["request_type"].tolist() == ["S", "S", "ET", "RT", "EP"]
    assert j["amount"].tolist() == [-1, -1, 30, 10, 32]
    assert j["requested_start"].tolist() == [-1, 100, -1, -1, -1]
    assert j["avg_cpu_time"].tolist() == [-1.0, 1.5, -1.0, -1.0, -1.0]
    assert w.header == ["; Version: 2.2", "; Format: CWF"]
    assert j.equals(_small_workload().jobs)


def test_fast_and_line_by_line_parsers_agree(tmp_path):
    data = SMALL.encode()
    header, start = cwf._swf._split_header(data)
    fast = cwf._parse_body_fast(data[start:], "reject")
    assert fast is not None  # a valid file takes the vectorised path
    slow_header, slow = cwf._parse_lines(data, "x", "reject")
    assert slow_header == header
    assert cwf._frame(fast).equals(cwf._frame(slow))


def test_gzip_and_empty(tmp_path):
    w = read_cwf(_write(tmp_path / "s.cwf.gz", SMALL, compress=True))
    assert w.jobs.equals(_small_workload().jobs)
    # Accepted on request only (tests/test_malformed_inputs.py: the default).
    empty = read_cwf(_write(tmp_path / "e.cwf", "; only a header\n"), allow_empty=True)
    assert len(empty.jobs) == 0 and list(empty.jobs.columns) == list(CWF_FIELDS)
    assert empty.header == ["; only a header"]


def test_unsorted_sort_is_stable_and_checks_references_after_sorting(tmp_path):
    text = ("1 10 -1 50 32 -1 -1 32 60 -1 1 -1 -1 -1 1 -1 -1 -1 -1 S -1\n"
            f"1 30 {BLANK16} -1 ET 5\n"
            "2  0 -1 50 32 -1 -1 32 60 -1 1 -1 -1 -1 1 -1 -1 -1 -1 S -1\n"
            f"2 10 {BLANK16} -1 RT 5\n")
    path = _write(tmp_path / "u.cwf", text)
    with pytest.raises(TraceFormatError) as e:
        read_cwf(path)
    assert (e.value.line, e.value.field) == (3, "submit_time")
    w = read_cwf(path, unsorted="sort")
    assert w.jobs["job_id"].tolist() == [2, 1, 2, 1]
    assert w.jobs["request_type"].tolist() == ["S", "S", "RT", "ET"]
    # Sorting puts a command before its job: error names the command's line.
    bad = ("1 10 -1 50 32 -1 -1 32 60 -1 1 -1 -1 -1 1 -1 -1 -1 -1 S -1\n"
           f"1  5 {BLANK16} -1 ET 5\n")
    with pytest.raises(TraceFormatError) as e:
        read_cwf(_write(tmp_path / "b.cwf", bad), unsorted="sort")
    assert (e.value.line, e.value.field) == (2, "job_id")
    with pytest.raises(ValueError):
        read_cwf(path, unsorted="maybe")


# ----------------------------------------------------------------------------- errors

S1 = "1  0 -1 50 32 -1 -1 32 60 -1 1 -1 -1 -1 1 -1 -1 -1 -1 S -1"
S2 = "2  5 -1 70 64 -1 -1 64 80 -1 1 -1 -1 -1 1 -1 -1 -1 -1 S -1"


def _cmd(job, time, kind="ET", amount="30", start="-1", blank=BLANK16):
    return f"{job} {time} {blank} {start} {kind} {amount}"


MALFORMED = {
    # name: (job lines, bad line number (1-based within the job lines), field, reason part)
    "swf_line": ([S1, "2 5 -1 70 64 -1 -1 64 80 -1 1 -1 -1 -1 1 -1 -1 -1"], 2,
                 "requested_start", "expected 21 fields, found 18 (an SWF line?"),
    "too_few_fields": ([S1, S2.rsplit(" ", 1)[0]], 2, "amount", "expected 21 fields, found 20"),
    "too_many_fields": ([S1 + " 7", S2], 1, None, "expected 21 fields, found 22"),
    "non_numeric_swf_field": ([S1.replace(" 50 ", " 5O "), S2], 1, "run_time", "not a number"),
    "bad_request_type": ([S1, _cmd(1, 9, kind="XT")], 2, "request_type",
                         "unknown request type 'XT'"),
    "lowercase_request_type": ([S1, _cmd(1, 9, kind="et")], 2, "request_type",
                               "unknown request type 'et'"),
    "numeric_request_type": ([S1, _cmd(1, 9, kind="2")], 2, "request_type",
                             "unknown request type '2'"),
    "non_numeric_amount": ([S1, _cmd(1, 9, amount="ten")], 2, "amount",
                           "not a number: 'ten'"),
    "exponent_amount": ([S1, _cmd(1, 9, amount="1e3")], 2, "amount", "not a number: '1e3'"),
    "fractional_amount": ([S1, _cmd(1, 9, amount="2.5")], 2, "amount",
                          "fractional value 2.5 in an integer field"),
    "negative_amount": ([S1, _cmd(1, 9, amount="-5")], 2, "amount", "negative value -5"),
    "zero_amount": ([S1, _cmd(1, 9, amount="0")], 2, "amount", "needs an amount >= 1"),
    "missing_amount_on_command": ([S1, _cmd(1, 9, amount="-1")], 2, "amount",
                                  "needs an amount >= 1"),
    "amount_on_submission": ([S1[:-2] + "60", S2], 1, "amount",
                             "a job submission (S) has no amount"),
    "non_numeric_requested_start": ([S1.replace(" -1 S ", " noon S "), S2], 1,
                                    "requested_start", "not a number: 'noon'"),
    "negative_requested_start": ([S1.replace(" -1 S ", " -7 S "), S2], 1, "requested_start",
                                 "negative value -7"),
    "requested_start_before_submit": ([S1, S2.replace(" -1 S ", " 4 S ")], 2,
                                      "requested_start",
                                      "requested start time 4 is before the job's submit time 5"),
    "requested_start_on_command": ([S1, _cmd(1, 9, start="50")], 2, "requested_start",
                                   "requested_start must be -1"),
    "runtime_on_command": ([S1, _cmd(1, 9, blank="-1 20 " + " ".join(["-1"] * 14))], 2,
                           "run_time", "run_time must be -1, got 20"),
    "command_without_issue_time": ([_cmd(1, -1), S1], 1, "submit_time",
                                   "needs its issue time"),
    "command_for_unknown_job": ([S1, _cmd(9, 9)], 2, "job_id",
                                "ET command for job 9, which has no job submission"),
    "command_before_its_job": ([S1, _cmd(2, 5, kind="RT"), S2], 2, "job_id",
                               "RT command for job 2"),
    "duplicate_job_id": ([S1, S2.replace("2  5", "1  5", 1)], 2, "job_id",
                         "job id 1 is submitted (S) twice (first on line 3)"),
    "decreasing_submit": ([S2, S1], 2, "submit_time", "earlier than 5"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_input_names_file_line_field_reason(tmp_path, name):
    lines, bad, field, reason = MALFORMED[name]
    header = "; Version: 2.2\n; Note: test\n"
    path = _write(tmp_path / f"{name}.cwf", header + "\n".join(lines) + "\n")
    with pytest.raises(TraceFormatError) as e:
        read_cwf(path)
    err = e.value
    assert err.path == str(path)
    assert err.line == bad + 2
    assert err.field == field
    assert reason in err.reason, err.reason
    assert f"{path}:{bad + 2}" in str(err)


def test_header_after_job_line(tmp_path):
    path = _write(tmp_path / "h.cwf", f"{S1}\n; late header\n{S2}\n")
    with pytest.raises(TraceFormatError) as e:
        read_cwf(path)
    assert e.value.line == 2 and "header comment line" in e.value.reason


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "c.cwf.gz"
    path.write_bytes(gzip.compress(SMALL.encode())[:30])
    with pytest.raises(TraceFormatError) as e:
        read_cwf(path)
    assert e.value.line is None and "gzip" in e.value.reason


# ----------------------------------------------------------------------------- writing


def test_round_trip_exact_plain_and_gzip(tmp_path):
    w = _small_workload()
    for name in ("w.cwf", "w.cwf.gz"):
        path = tmp_path / name
        write_cwf(w, path)
        back = read_cwf(path)
        assert back.jobs.equals(w.jobs)
        assert back.header == w.header
        write_cwf(back, tmp_path / ("again." + name))
        assert (tmp_path / ("again." + name)).read_bytes() == path.read_bytes()
    text = (tmp_path / "w.cwf").read_text().splitlines()
    assert text[2].split() == S1.split()[:1] + ["0", "-1", "50", "32"] + text[2].split()[5:]
    assert text[3].split()[-3:] == ["100", "S", "-1"]
    assert text[4].split()[-3:] == ["-1", "ET", "30"]


def _row_frame(row, col, value) -> pd.DataFrame:
    jobs = _small_workload().jobs.copy()
    jobs.loc[row, col] = value
    return jobs


@pytest.mark.parametrize("row,col,value,message", [
    (2, "request_type", "XX", "unknown request type"),
    (2, "amount", 0, "needs an amount >= 1"),
    (0, "amount", 5, "has no amount"),
    (1, "requested_start", 2, "is before the job's submit time"),
    (2, "run_time", 9, "run_time must be -1"),
    (2, "job_id", 7, "command for job 7"),
    (1, "submit_time", 30, "earlier"),
])
def test_writer_rejects_what_the_reader_would(tmp_path, row, col, value, message):
    jobs = _row_frame(row, col, value)
    with pytest.raises(ValueError, match=message) as e:
        write_cwf(Workload(jobs), tmp_path / "x.cwf")
    assert f"row {row}" in str(e.value) or col == "submit_time"
    assert not (tmp_path / "x.cwf").exists()


def test_writer_rejects_bad_columns_and_header(tmp_path):
    w = _small_workload()
    with pytest.raises(ValueError, match="CWF_FIELDS"):
        write_cwf(Workload(w.jobs[list(SWF_FIELDS)]), tmp_path / "x.cwf")
    with pytest.raises(ValueError, match="header line 0"):
        write_cwf(Workload(w.jobs, header=["no semicolon"]), tmp_path / "x.cwf")
    jobs = w.jobs.copy()
    jobs["amount"] = jobs["amount"].astype(float)
    jobs.loc[2, "amount"] = 2.5
    with pytest.raises(ValueError, match="amount"):
        write_cwf(Workload(jobs), tmp_path / "x.cwf")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_round_trip_property(tmp_path_factory, data):
    n = data.draw(st.integers(1, 12))
    gaps = data.draw(st.lists(st.integers(0, 1000), min_size=n, max_size=n))
    submit = np.cumsum(gaps)
    jobs = pd.DataFrame({name: np.full(n, -1, np.int64) for name in SWF_FIELDS})
    jobs["job_id"] = np.arange(1, n + 1)
    jobs["submit_time"] = submit
    jobs["run_time"] = data.draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n))
    jobs["requested_procs"] = data.draw(st.lists(st.sampled_from([32, 64, 320]),
                                                 min_size=n, max_size=n))
    jobs["avg_cpu_time"] = data.draw(st.lists(
        st.floats(0, 1e6, allow_nan=False, allow_infinity=False) | st.just(-1.0),
        min_size=n, max_size=n))
    jobs["used_memory"] = -1.0
    delays = data.draw(st.lists(st.integers(-1, 5000), min_size=n, max_size=n))
    jobs["requested_start"] = [-1 if d < 0 else int(s) + d for s, d in zip(submit, delays)]
    m = data.draw(st.integers(0, 8))
    cmds = [ElasticCommand(int(submit[j]) + data.draw(st.integers(0, 500)), j + 1,
                           data.draw(st.sampled_from(COMMAND_KINDS)),
                           data.draw(st.integers(1, 10**5)))
            for j in data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))]
    w = merge_commands(Workload(jobs, header=["; x"]), cmds)
    path = tmp_path_factory.mktemp("rt") / "w.cwf"
    write_cwf(w, path)
    back = read_cwf(path)
    assert back.jobs.equals(w.jobs)
    jobs_back, cmds_back = split_commands(back)
    assert sorted(cmds_back, key=lambda c: (c.time, c.job_id, c.kind, c.amount)) == \
        sorted(cmds, key=lambda c: (c.time, c.job_id, c.kind, c.amount))
    assert jobs_back.jobs["submit_time"].tolist() == submit.tolist()


# ----------------------------------------------------------------------------- commands


def test_split_and_merge_are_inverse(tmp_path):
    w = read_cwf(_write(tmp_path / "s.cwf", SMALL))
    jobs, cmds = split_commands(w)
    assert list(jobs.jobs.columns) == list(SWF_FIELDS) + ["requested_start"]
    assert jobs.jobs["job_id"].tolist() == [1, 2]
    assert jobs.jobs["requested_start"].tolist() == [-1, 100]
    assert cmds == [ElasticCommand(5, 2, "ET", 30), ElasticCommand(20, 1, "RT", 10),
                    ElasticCommand(40, 2, "EP", 32)]
    assert merge_commands(jobs, cmds).jobs.equals(w.jobs)
    assert command_events(cmds)[1] == (20.0, cmds[1])
    engine_jobs = jobs_from_workload(jobs)
    assert [j.requested_start for j in engine_jobs] == [-1.0, 100.0]


def test_merge_without_requested_start_makes_batch_jobs():
    jobs = pd.DataFrame([[1, 0, -1, 5, 1, -1, -1, 1, 5] + [-1] * 9], columns=list(SWF_FIELDS))
    w = merge_commands(Workload(jobs))
    assert w.jobs[["requested_start", "request_type", "amount"]].values.tolist() == \
        [[-1, "S", -1]]
    with pytest.raises(ValueError, match="command for job 3"):
        merge_commands(Workload(jobs), [ElasticCommand(1, 3, "ET", 1)])
    with pytest.raises(ValueError, match="no job submission"):
        # issued before its job is submitted
        merge_commands(Workload(jobs.assign(submit_time=10)), [ElasticCommand(1, 1, "ET", 1)])


def test_elastic_command_validation_and_deltas():
    assert ElasticCommand(0, 1, "ET", 60).time_delta == 60
    assert ElasticCommand(0, 1, "RT", 60).time_delta == -60
    assert ElasticCommand(0, 1, "EP", 64).procs_delta == 64
    assert ElasticCommand(0, 1, "EP", 64).time_delta == 0
    assert ElasticCommand(np.int64(3), np.int32(2), "RP", np.int64(32)).time == 3
    for bad in [dict(kind="S"), dict(kind="et"), dict(amount=0), dict(time=-1),
                dict(time=1.5), dict(amount="3")]:
        args = dict(time=0, job_id=1, kind="ET", amount=1) | bad
        with pytest.raises(ValueError):
            ElasticCommand(**args)
    with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError
        ElasticCommand(0, 1, "ET", 1).amount = 5  # frozen


def test_request_type_vocabulary_is_the_papers():
    assert REQUEST_TYPES == ("S", "ET", "EP", "RT", "RP")
    assert REQUEST_TYPE_NAMES["EP"] == "processors extension"
    assert REQUEST_TYPE_NAMES["RT"] == "time reduction"


def test_docs_example_parses(tmp_path):
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cwf_format.md").read_text()
    example = doc.split("## Example", 1)[1].split("```")[1]
    w = read_cwf(_write(tmp_path / "doc.cwf", example.lstrip("\n")))
    jobs, cmds = split_commands(w)
    assert jobs.jobs["requested_start"].tolist() == [-1, 100]
    assert [(c.job_id, c.time_delta) for c in cmds] == [(2, 30), (1, -10)]
