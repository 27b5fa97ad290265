"""Tests of simlib.studies.zeng.workloads: paper Z's adjusted Lublin workloads.

Generation is compared with the plain Lublin generator of the same seed
(jobs and arrivals) and with the slowdown model (sizes); the arrival rate
with the Lublin model's analytic mean inter-arrival time, within 5
standard errors plus what the daily cycle can add. Files: round trips and
one malformed file per rule, each error naming the file, line and column.
"""
from __future__ import annotations

import gzip
import json
import math

import jsonschema
import numpy as np
import pandas as pd
import pytest

from simlib.errors import ConfigError, TraceFormatError
from simlib.studies.zeng import slowdowns as S
from simlib.studies.zeng import workloads as W
from simlib.workload import lublin as L

N = 10_000
SEED = 0


@pytest.fixture(scope="module")
def w1():
    return W.generate(W.ALPHA["W1"], N, SEED)


@pytest.fixture(scope="module")
def w2():
    return W.generate(W.ALPHA["W2"], N, SEED)


def test_columns_and_dtypes(w1):
    assert list(w1.columns) == list(W.COLUMNS)
    assert len(w1) == N and w1["job_id"].tolist() == list(range(1, N + 1))
    for col in ("job_id", "orig_size", "size", "runtime", "estimate", "ppn"):
        assert w1[col].dtype == np.int64, col
    for col in ("submit", "sl_scr", "sl_sno"):
        assert w1[col].dtype == np.float64, col
    assert w1["submit"].is_monotonic_increasing


def test_deterministic_per_seed(w1):
    pd.testing.assert_frame_equal(W.generate(W.ALPHA["W1"], N, SEED), w1)
    other = W.generate(W.ALPHA["W1"], N, SEED + 1)
    assert not other["runtime"].equals(w1["runtime"])
    assert not other["sl_scr"].equals(w1["sl_scr"])


@pytest.mark.parametrize("name", ["W1", "W2"])
def test_jobs_are_the_lublin_jobs(name, request):
    df = request.getfixturevalue(name.lower())
    plain = L.generate_lublin(L.LublinParams.typeless(aarr=W.ALPHA[name]), n_jobs=N,
                              seed=SEED).jobs
    np.testing.assert_array_equal(df["runtime"], plain["run_time"].clip(lower=1))
    np.testing.assert_array_equal(df["orig_size"], plain["requested_procs"])
    np.testing.assert_array_equal(df["submit"], plain["submit_time"].astype(float))


def test_slowdowns_and_sizes_follow_the_model(w1, w2):
    scr, sno = S.self_slowdowns(S.TABLE4, N, SEED)
    np.testing.assert_array_equal(w1["sl_scr"], scr)
    np.testing.assert_array_equal(w1["sl_sno"], sno)
    # The slowdowns belong to the seed, not to the arrival rate.
    np.testing.assert_array_equal(w2["sl_scr"], scr)
    want = S.adjusted_size(w1["orig_size"].to_numpy(), scr, sno, 1.25, 1.12)
    p = S.ppn(want, scr, sno, 1.25, 1.12)
    np.testing.assert_array_equal(w1["ppn"], p)
    # Formula 7 everywhere except the few jobs capped to the machine.
    capped = want > w1["size"].to_numpy()
    assert capped.sum() < 0.01 * N
    np.testing.assert_array_equal(w1["size"][~capped], want[~capped])
    np.testing.assert_array_equal(w1["size"][capped], 128 * p[capped])
    assert (-(-w1["size"] // w1["ppn"])).max() <= 128


def test_serial_share_unchanged(w1):
    np.testing.assert_array_equal(w1["orig_size"] == 1, w1["size"] == 1)
    t = W.table5(w1)
    assert t["serial_pct_orig"] == t["serial_pct_adjusted"]
    assert 20 < t["serial_pct_orig"] < 28   # Lublin's 24.4 %


def test_types_follow_thresholds(w1):
    run = w1["runtime"]
    want = np.where(run <= 600, "short", np.where(run <= 10800, "medium", "long"))
    np.testing.assert_array_equal(w1["type"].to_numpy(), want)
    assert set(w1["type"]) == set(W.JOB_TYPES)
    df = W.generate(W.ALPHA["W1"], 500, SEED, short_max=60, medium_max=3600)
    assert (df.loc[df["runtime"] <= 60, "type"] == "short").all()
    assert (df.loc[(df["runtime"] > 60) & (df["runtime"] <= 3600), "type"] == "medium").all()
    assert (df.loc[df["runtime"] > 3600, "type"] == "long").all()
    # Thresholds out of order are refused by the study's check (the scheduler's own check,
    # tests/test_studies_zeng_study.py), not here.


def test_alpha_sets_the_arrival_rate(w1, w2):
    assert W.table5(w2)["load_jobs_per_hour"] > W.table5(w1)["load_jobs_per_hour"]
    # Inter-arrival times are heavy-tailed (CV about 7): 200,000 jobs bring
    # the tolerance below 9 %, well under the 35 % between W1 and W2.
    n = 200_000
    for name in ("W1", "W2"):
        df = W.generate(W.ALPHA[name], n, SEED)
        p = L.LublinParams.typeless(aarr=W.ALPHA[name])
        expected = L.expected_mean_interarrival(p)
        sd = L.interarrival_moments(p)[1]
        observed = (df["submit"].iloc[-1] - df["submit"].iloc[0]) / (n - 1)
        # Sample error of the mean gap, whole-second submit times, and the
        # daily cycle's shift of the first and last arrival.
        tol = 5 * sd / math.sqrt(n - 1) + (1 + L.cycle_deviation(p)) / (n - 1)
        assert tol < 0.09 * expected
        assert abs(observed - expected) < tol, (name, observed, expected)
    ratio = (L.expected_mean_interarrival(L.LublinParams.typeless(aarr=W.ALPHA["W1"]))
             / L.expected_mean_interarrival(L.LublinParams.typeless(aarr=W.ALPHA["W2"])))
    assert 1.3 < ratio < 1.4


def test_estimates(w1):
    np.testing.assert_array_equal(w1["estimate"], w1["runtime"])
    exact = W.generate(W.ALPHA["W1"], 300, SEED, estimates={"model": "exact"})
    np.testing.assert_array_equal(exact["estimate"], exact["runtime"])
    spec = {"model": "factor", "f": 3.0, "mode": "uniform"}
    a = W.generate(W.ALPHA["W1"], 300, SEED, estimates=spec)
    b = W.generate(W.ALPHA["W1"], 300, SEED, estimates=spec)
    np.testing.assert_array_equal(a["estimate"], b["estimate"])
    assert (a["estimate"] >= a["runtime"]).all()
    assert (a["estimate"] <= np.ceil(3.0 * a["runtime"])).all()
    assert (a["estimate"] > a["runtime"]).mean() > 0.5
    # Estimates draw from their own stream: the jobs do not change.
    pd.testing.assert_frame_equal(a.drop(columns="estimate"), exact.drop(columns="estimate"))
    # Other models are refused by the grid's schema (tests/test_studies_zeng_study.py).


def test_other_machine_and_roundings():
    df = W.generate(W.ALPHA["W1"], 2000, SEED, machine_nodes=64)
    assert df["orig_size"].max() <= 64 and (-(-df["size"] // df["ppn"])).max() <= 64
    for rounding in S.ROUNDINGS:
        r = W.generate(W.ALPHA["W1"], 500, SEED, rounding=rounding)
        want = S.adjusted_size(r["orig_size"].to_numpy(), r["sl_scr"].to_numpy(),
                               r["sl_sno"].to_numpy(), 1.25, 1.12, rounding)
        np.testing.assert_array_equal(r["size"], np.minimum(want, 128 * r["ppn"]))
    with pytest.raises(ConfigError):
        W.generate(W.ALPHA["W1"], 10, SEED, rounding="floor")
    with pytest.raises(ConfigError, match="seed"):
        W.generate(W.ALPHA["W1"], 10, None)


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------

def test_round_trip(tmp_path, w2):
    p = W.write_workload(w2, tmp_path / "w2.csv.gz")
    with gzip.open(p, "rt") as f:
        assert f.readline().strip() == ",".join(W.COLUMNS)
    pd.testing.assert_frame_equal(W.read_workload(p), w2, check_exact=True)
    # Equal tables give equal bytes (no time stamp in the gzip header).
    q = W.write_workload(w2, tmp_path / "again" / "w2.csv.gz")
    assert p.read_bytes() == q.read_bytes()


def test_write_refuses_a_bad_table(tmp_path, w1):
    bad = w1.head(5).copy()
    bad.loc[2, "size"] = 0
    with pytest.raises(TraceFormatError, match="not written"):
        W.write_workload(bad, tmp_path / "bad.csv.gz")
    assert list(tmp_path.iterdir()) == []


def text_rows(n=6):
    """A small workload as text cells, as a file holds them."""
    return W.generate(W.ALPHA["W1"], n, SEED).astype(str)


def write_text_csv(path, frame, gz=False):
    text = frame.to_csv(index=False)
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


# (row, column, new cell, expected line, field, words of the reason)
BAD_CELLS = [
    (3, "size", "0", 5, "size", "below 1"),
    (2, "runtime", "0", 4, "runtime", "below 1"),
    (1, "runtime", "-5", 3, "runtime", "below 1"),
    (4, "orig_size", "abc", 6, "orig_size", "not a finite number"),
    (0, "sl_scr", "", 2, "sl_scr", "missing value"),
    (2, "sl_sno", "0", 4, "sl_sno", "must be > 0"),
    (3, "size", "2.5", 5, "size", "not a whole number"),
    (5, "type", "huge", 7, "type", "not one of"),
    (1, "ppn", "3", 3, "ppn", "not one of [1, 2, 4]"),
    (2, "job_id", "9", 4, "job_id", "expected 3"),
    (4, "submit", "-1", 6, "submit", "below 0"),
]


@pytest.mark.parametrize("row, col, value, line, field, words", BAD_CELLS)
def test_malformed_cells(tmp_path, row, col, value, line, field, words):
    frame = text_rows()
    frame.loc[row, col] = value
    path = write_text_csv(tmp_path / "bad.csv.gz", frame, gz=True)
    with pytest.raises(TraceFormatError) as info:
        W.read_workload(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, field)
    assert words in err.reason
    assert str(path) in str(err) and f":{line}:" in str(err)


def test_submit_out_of_order(tmp_path):
    frame = text_rows()
    frame.loc[3, "submit"] = "0.0"
    frame.loc[2, "submit"] = "99999999.0"
    path = write_text_csv(tmp_path / "w.csv", frame)
    with pytest.raises(TraceFormatError, match=r"w\.csv:5: field 'submit':.*submit order"):
        W.read_workload(path)


def test_serial_job_with_several_processes_per_node(tmp_path):
    frame = text_rows(50)
    i = frame.index[frame["size"] == "1"][0]
    frame.loc[i, "ppn"] = "4"
    path = write_text_csv(tmp_path / "w.csv", frame)
    with pytest.raises(TraceFormatError, match=rf"w\.csv:{i + 2}: field 'ppn': a job of size 1"):
        W.read_workload(path)


def test_first_problem_wins(tmp_path):
    frame = text_rows()
    frame.loc[4, "size"] = "0"
    frame.loc[1, "type"] = "?"
    path = write_text_csv(tmp_path / "w.csv", frame)
    with pytest.raises(TraceFormatError) as info:
        W.read_workload(path)
    assert (info.value.line, info.value.field) == (3, "type")


def test_header_problems(tmp_path):
    frame = text_rows()
    path = write_text_csv(tmp_path / "a.csv", frame.drop(columns="ppn"))
    with pytest.raises(TraceFormatError, match=r"a\.csv:1: field 'ppn': missing column"):
        W.read_workload(path)
    path = write_text_csv(tmp_path / "b.csv", frame.assign(extra="1"))
    with pytest.raises(TraceFormatError, match=r"b\.csv:1: field 'extra': unexpected column"):
        W.read_workload(path)


def test_unreadable_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(TraceFormatError, match=r"empty\.csv:1: empty file"):
        W.read_workload(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text(",".join(W.COLUMNS) + "\n")
    with pytest.raises(TraceFormatError, match="no jobs"):
        W.read_workload(header_only)
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(b"\x1f\x8b" + b"not really gzip")
    with pytest.raises(TraceFormatError, match=r"broken\.csv\.gz: not a readable CSV"):
        W.read_workload(broken)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text(text_rows().to_csv(index=False) + "1,2,3,4,5,6,7,8,9,10,11\n")
    with pytest.raises(TraceFormatError, match=r"ragged\.csv: not a readable CSV"):
        W.read_workload(ragged)
    with pytest.raises(FileNotFoundError):
        W.read_workload(tmp_path / "missing.csv.gz")


def test_blank_line_is_reported(tmp_path):
    lines = text_rows().to_csv(index=False).splitlines()
    lines.insert(3, "")
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceFormatError, match=r"blank\.csv:4: field 'job_id': missing value"):
        W.read_workload(path)


def test_schema_describes_the_rows(w1):
    schema = json.loads(W.SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == list(W.COLUMNS)
    assert list(schema["properties"]) == list(W.COLUMNS)
    validator = jsonschema.Draft202012Validator(schema)
    for row in json.loads(w1.head(300).to_json(orient="records")):
        validator.validate(row)
    row = json.loads(w1.head(1).to_json(orient="records"))[0]
    for col, value in (("ppn", 3), ("type", "tiny"), ("runtime", 0), ("sl_scr", 0.0)):
        assert not validator.is_valid({**row, col: value}), col


# --------------------------------------------------------------------------
# Table 5
# --------------------------------------------------------------------------

def test_table5_by_hand():
    df = pd.DataFrame({
        "submit": [0.0, 1800.0, 3600.0, 7200.0],
        "orig_size": [1, 2, 4, 3],
        "size": [1, 4, 16, 3],
        "runtime": [100, 1000, 20000, 700],
        "sl_scr": [1.2, 1.5, 1.0, 1.3],
        "sl_sno": [1.0, 1.1, 1.2, 1.3],
        "ppn": [1, 2, 4, 1],
        "type": ["short", "medium", "long", "medium"],
    })
    t = W.table5(df, machine_nodes=10)
    span, work = 7200.0, 100 + 2000 + 80000 + 2100
    want = {
        "n_jobs": 4, "span_s": span,
        "short_pct": 25.0, "medium_pct": 50.0, "long_pct": 25.0,
        "medium_of_medium_long_pct": 200 / 3, "long_of_medium_long_pct": 100 / 3,
        "work_short_pct": 100 * 100 / work, "work_medium_pct": 100 * 4100 / work,
        "work_long_pct": 100 * 80000 / work,
        "serial_pct_orig": 25.0, "serial_pct_adjusted": 25.0,
        "pow2_pct_orig": 75.0, "pow2_pct_adjusted": 75.0,
        "pow2_parallel_pct_orig": 50.0, "pow2_parallel_pct_adjusted": 50.0,
        "pow2_among_parallel_pct_orig": 200 / 3, "pow2_among_parallel_pct_adjusted": 200 / 3,
        "ppn1_pct": 50.0, "ppn2_pct": 25.0, "ppn4_pct": 25.0,
        "load_jobs_per_hour": 1.5,
        "load_node_lublin": work / (span * 10),
        # nodes 1, 2, 4, 3; slowdowns 1, 1.1, 1.2, 1
        "load_node_ssp": (100 + 2 * 1000 * 1.1 + 4 * 20000 * 1.2 + 3 * 700) / (span * 10),
        "load_core_ssp": (100 + 4 * 1000 * 1.1 + 16 * 20000 * 1.2 + 2100) / (span * 40),
        "load_processes": (100 + 4000 + 320000 + 2100) / (span * 40),
    }
    assert set(t) == set(want)
    for k, v in want.items():
        assert t[k] == pytest.approx(v, rel=1e-12), k


def test_table5_power_of_two_share_after_adjustment(w1):
    t = W.table5(w1)
    # "nearest" keeps the node-time, not the sizes' shape: fewer powers of two.
    assert t["pow2_pct_adjusted"] < t["pow2_pct_orig"]
    kept = W.table5(W.generate(W.ALPHA["W1"], N, SEED, rounding="power_of_two"))
    assert kept["pow2_pct_adjusted"] >= kept["pow2_pct_orig"]
    # Work is orig_size * runtime: the same for every rounding.
    assert kept["work_long_pct"] == t["work_long_pct"]
