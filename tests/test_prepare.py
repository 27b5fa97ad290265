"""Tests of simlib.workload.prepare (fetch, verify, clean, subset, load, characterize)."""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simlib.errors import ConfigError, TraceFormatError
from simlib.io import write_json
from simlib.workload import prepare as P
from simlib.workload import swf
from simlib.workload.swf import SWF_FIELDS, Workload

REPO_MANIFEST = Path(__file__).resolve().parents[1] / "config" / "traces_manifest.tsv"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
#: Logger handed to the functions that report progress (read with caplog).
LOG = logging.getLogger(__name__)


def make_workload(rows: list[dict], header=None, path="hand.swf") -> Workload:
    """A workload from partial rows; unspecified SWF fields are -1 (missing)."""
    records = []
    for i, row in enumerate(rows):
        rec = {f: -1 for f in SWF_FIELDS}
        rec["job_id"] = i + 1
        rec.update(row)
        records.append(rec)
    jobs = pd.DataFrame(records, columns=list(SWF_FIELDS))
    return Workload(jobs=jobs, header=list(header or ["; Version: 2.2"]), path=path)


def job(submit, run, size, req_time, **kw) -> dict:
    return dict(submit_time=submit, run_time=run, requested_procs=size,
                allocated_procs=size, requested_time=req_time, **kw)


# --------------------------------------------------------------------------
# Cleaning
# --------------------------------------------------------------------------

def dirty_workload() -> Workload:
    """One job per rule (job_id = position + 1), machine of 8 processors."""
    return make_workload([
        job(0, 100, 4, 200),                     # 1 clean
        job(1, -1, 4, 200),                      # 2 runtime_missing
        job(2, 0, 4, 200),                       # 3 runtime_zero
        dict(job(3, 50, -1, 100), allocated_procs=2),  # 4 size_from_allocated
        dict(job(4, 50, -1, 100), allocated_procs=-1),  # 5 size_missing
        job(5, 50, 16, 100),                     # 6 size_above_machine
        job(6, 70, 2, -1),                       # 7 request_missing
        job(7, 130, 2, 100),                     # 8 runtime_above_request
        job(8, 30, 1, 0),                        # 9 request_missing (0 = missing)
    ])


def test_clean_defaults():
    w = dirty_workload()
    before = w.jobs.copy()
    out, counts = P.clean(w, 8)
    pd.testing.assert_frame_equal(w.jobs, before)  # input untouched
    assert counts == {"jobs_in": 9, "runtime_missing": 1, "runtime_zero": 1,
                      "size_from_allocated": 1, "size_missing": 1, "size_above_machine": 1,
                      "request_missing": 2, "runtime_above_request": 1,
                      "jobs_dropped": 4, "jobs_out": 5}
    j = out.jobs.set_index("job_id")
    assert list(j.index) == [1, 4, 7, 8, 9]  # ids kept, not renumbered
    assert list(out.jobs.index) == [0, 1, 2, 3, 4]
    assert j.loc[4, "requested_procs"] == 2          # from allocated
    assert j.loc[7, "requested_time"] == 70          # runtime as estimate
    assert j.loc[9, "requested_time"] == 30
    assert j.loc[8, "run_time"] == 100               # clipped at the limit
    assert j.loc[1].tolist() == w.jobs.iloc[0].tolist()[1:]
    assert list(out.jobs.columns) == list(SWF_FIELDS)
    added = out.header[1:]
    assert out.header[0] == "; Version: 2.2"
    assert all(line.startswith("; simlib:") for line in added)
    assert any("runtime_above_request" in line and "1 jobs -> clip" in line for line in added)
    assert "out 5" in added[-1]


def test_clean_alternative_actions():
    policy = P.CleaningPolicy(runtime_zero="keep", size_from_allocated="drop",
                              size_above_machine="clip", request_missing="drop",
                              runtime_above_request="keep")
    out, counts = P.clean(dirty_workload(), 8, policy=policy)
    j = out.jobs.set_index("job_id")
    assert list(j.index) == [1, 3, 6, 8]
    assert j.loc[6, "requested_procs"] == 8
    assert j.loc[8, "run_time"] == 130
    assert counts["jobs_dropped"] == 5 and counts["jobs_out"] == 4
    assert counts["runtime_above_request"] == 1


def test_clean_runtime_above_request_drop():
    out, counts = P.clean(dirty_workload(), 8, policy=P.CleaningPolicy(runtime_above_request="drop"))
    assert 8 not in out.jobs["job_id"].tolist()
    assert counts["jobs_out"] == 4


def test_clean_drop_counts_add_up():
    # Jobs removed = sum of the counts of rules whose action is drop.
    policy = P.CleaningPolicy()
    out, counts = P.clean(dirty_workload(), 8, policy=policy)
    dropped = sum(counts[r] for r, a in policy.as_dict().items() if a == "drop")
    assert dropped == counts["jobs_dropped"] == counts["jobs_in"] - len(out.jobs)


def test_clean_error_action_names_job():
    with pytest.raises(TraceFormatError) as info:
        P.clean(dirty_workload(), 8, policy=P.CleaningPolicy(size_above_machine="error"))
    assert info.value.path == "hand.swf" and info.value.field == "requested_procs"
    assert "job_id 6" in str(info.value)


def test_clean_already_clean_is_identity():
    w = make_workload([job(0, 10, 1, 20), job(5, 20, 2, 20)])
    out, counts = P.clean(w, 4)
    pd.testing.assert_frame_equal(out.jobs, w.jobs)
    assert counts["jobs_dropped"] == 0 and all(counts[r] == 0 for r in P.CLEANING_RULES)


def _clean_with_pandas(workload: Workload, machine_procs: int, policy: P.CleaningPolicy):
    """The cleaning rules as written on DataFrames before :func:`P.clean` used numpy
    columns (commit 8baebc6): the reference it must equal, frame and counts."""
    jobs = workload.jobs.copy()
    keep = pd.Series(True, index=jobs.index)
    counts = {"jobs_in": len(jobs)}

    def apply(rule, mask):
        mask = mask & keep
        counts[rule] = int(mask.sum())
        if getattr(policy, rule) == "drop":
            keep[mask] = False
        return getattr(policy, rule), mask

    run = jobs["run_time"]
    apply("runtime_missing", run < 0)
    apply("runtime_zero", run == 0)
    req, alloc = jobs["requested_procs"], jobs["allocated_procs"]
    action, mask = apply("size_from_allocated", (req <= 0) & (alloc > 0))
    if action == "allocated":
        jobs.loc[mask, "requested_procs"] = jobs.loc[mask, "allocated_procs"]
    apply("size_missing", (req <= 0) & (alloc <= 0))
    action, mask = apply("size_above_machine", jobs["requested_procs"] > machine_procs)
    if action == "clip":
        jobs.loc[mask, "requested_procs"] = machine_procs
    action, mask = apply("request_missing", jobs["requested_time"] <= 0)
    if action == "runtime":
        jobs.loc[mask, "requested_time"] = jobs.loc[mask, "run_time"]
    action, mask = apply("runtime_above_request",
                         (jobs["requested_time"] > 0) & (jobs["run_time"] > jobs["requested_time"]))
    if action == "clip":
        jobs.loc[mask, "run_time"] = jobs.loc[mask, "requested_time"]
    jobs = jobs[keep].reset_index(drop=True)
    counts["jobs_dropped"] = counts["jobs_in"] - len(jobs)
    counts["jobs_out"] = len(jobs)
    return jobs, counts


@pytest.mark.parametrize("seed", range(8))
def test_clean_equals_the_dataframe_rules(seed, tmp_path):
    # Paired with the DataFrame formulation on random dirty workloads, every
    # action of every rule drawn at random, read from a file (numpy columns)
    # and given as a DataFrame.
    rng = np.random.default_rng(seed)
    n = 300
    rows = [dict(job(int(t), int(rng.choice([-1, 0, rng.integers(1, 500)])),
                     int(rng.choice([-1, 0, rng.integers(1, 40)])),
                     int(rng.choice([-1, 0, rng.integers(1, 600)])),
                     avg_cpu_time=float(rng.choice([-1.0, 0.5, 12.25]))),
                 allocated_procs=int(rng.choice([-1, rng.integers(1, 40)])))
            for t in np.sort(rng.integers(0, 10_000, n))]
    policy = P.CleaningPolicy(**{rule: str(rng.choice([a for a in actions if a != "error"]))
                                 for rule, (_, actions) in P.CLEANING_RULES.items()})
    frame_workload = make_workload(rows)
    swf.write_swf(frame_workload, tmp_path / "dirty.swf")
    for workload in (frame_workload, swf.read_swf(tmp_path / "dirty.swf")):
        want, want_counts = _clean_with_pandas(workload, 32, policy)
        assert 0 < want_counts["jobs_out"] < n  # the rules did something
        out, counts = P.clean(workload, 32, policy=policy)
        pd.testing.assert_frame_equal(out.jobs, want, check_exact=True)
        assert {k: counts[k] for k in want_counts} == want_counts


def test_cleaning_policy_validation():
    with pytest.raises(ConfigError, match="runtime_zero"):
        P.CleaningPolicy(runtime_zero="clip")
    with pytest.raises(ConfigError, match="bogus"):
        P.CleaningPolicy.from_mapping({"bogus": "drop"})
    assert P.CleaningPolicy.from_mapping({"size_above_machine": "clip"}).size_above_machine == "clip"
    with pytest.raises(ConfigError):
        P.clean(dirty_workload(), 0)


def test_format_cleaning_log():
    _, counts = P.clean(dirty_workload(), 8)
    text = P.format_cleaning_log("KTH", counts, P.CleaningPolicy())
    lines = text.splitlines()
    assert lines[0] == "cleaning log of KTH" and lines[1] == "jobs in: 9"
    row = next(line for line in lines if line.startswith("request_missing"))
    assert row.split()[1:3] == ["2", "runtime"]
    assert lines[-1] == "jobs out: 5" and lines[-2] == "jobs dropped: 4"
    plain = P.format_cleaning_log("KTH", counts)  # no action column without a policy
    row = next(line for line in plain.splitlines() if line.startswith("request_missing"))
    assert row.split()[1:] == ["2", "requested_time", "missing"]


# --------------------------------------------------------------------------
# Subsetting
# --------------------------------------------------------------------------

def ten_jobs() -> Workload:
    return make_workload([job(100 + 10 * i, 5, 1, 10) for i in range(10)])


def test_subset_by_index_shifts_to_zero():
    out = P.subset(ten_jobs(), first_job=2, n_jobs=3)
    assert out.jobs["job_id"].tolist() == [3, 4, 5]
    assert out.jobs["submit_time"].tolist() == [0, 10, 20]
    assert "-120 s" in out.header[-1]


def test_subset_by_window_keep_times():
    out = P.subset(ten_jobs(), t_start=130, t_end=160, shift_to_zero=False)
    assert out.jobs["job_id"].tolist() == [4, 5, 6]
    assert out.jobs["submit_time"].tolist() == [130, 140, 150]


def test_subset_window_then_positions():
    out = P.subset(ten_jobs(), t_start=130, first_job=1, n_jobs=10)
    assert out.jobs["job_id"].tolist() == [5, 6, 7, 8, 9, 10]
    assert out.jobs["submit_time"].iloc[0] == 0


def test_subset_errors():
    with pytest.raises(ConfigError, match="empty"):
        P.subset(ten_jobs(), t_start=1000)
    with pytest.raises(ConfigError):
        P.subset(ten_jobs(), n_jobs=0)
    with pytest.raises(ConfigError):
        P.subset(ten_jobs(), t_start=5, t_end=5)


# --------------------------------------------------------------------------
# Load
# --------------------------------------------------------------------------

def load_workload() -> Workload:
    # work = 2*10 + 4*5 + 1*20 = 60; submit span 20; last end max(10, 15, 40) = 40
    return make_workload([job(0, 10, 2, 10), job(10, 5, 4, 10), job(20, 20, 1, 30)])


def test_offered_load_definitions():
    w = load_workload()
    assert P.offered_load(w, 4) == pytest.approx(60 / (20 * 4))
    assert P.offered_load(w, 4, span="last_end") == pytest.approx(60 / (40 * 4))
    with pytest.raises(ConfigError):
        P.offered_load(w, 4, span="bogus")
    with pytest.raises(ConfigError, match="span is 0"):
        P.offered_load(make_workload([job(3, 10, 1, 10)]), 4)


def test_offered_load_size_fallback():
    w = make_workload([dict(job(0, 10, -1, 10), allocated_procs=3), job(10, 10, 1, 10)])
    assert P.offered_load(w, 2) == pytest.approx(40 / 20)


def test_scale_interarrivals_formula():
    w = make_workload([job(s, 1, 1, 1) for s in (100, 103, 110)])
    out = P.scale_interarrivals(w, 0.5)
    assert out.jobs["submit_time"].tolist() == [100.0, 101.5, 105.0]
    assert w.jobs["submit_time"].tolist() == [100, 103, 110]
    assert "0.5" in out.header[-1]
    rounded = P.scale_interarrivals(w, 0.5, round_to_seconds=True)
    assert rounded.jobs["submit_time"].tolist() == [100, 102, 105]  # round half to even
    for bad in (0, -1, float("nan")):
        with pytest.raises(ConfigError):
            P.scale_interarrivals(w, bad)


def test_scale_changes_load_inversely():
    w = load_workload()
    assert P.offered_load(P.scale_interarrivals(w, 3.0), 4) == pytest.approx(P.offered_load(w, 4) / 3)


def test_rescale_to_load_submit_span():
    w = load_workload()  # load 0.75
    out, factor = P.rescale_to_load(w, 4, 0.5)
    assert factor == pytest.approx(1.5)
    assert out.jobs["submit_time"].tolist() == [0.0, 15.0, 30.0]
    assert P.offered_load(out, 4) == pytest.approx(0.5, rel=1e-12)


def test_rescale_to_load_last_end_span():
    w = load_workload()  # load 0.375 with last_end
    out, factor = P.rescale_to_load(w, 4, 0.6, span="last_end")
    # target span 60 / (0.6 * 4) = 25 = max(10, 10f + 5, 20f + 20) -> f = 0.25
    assert factor == pytest.approx(0.25)
    assert P.offered_load(out, 4, span="last_end") == pytest.approx(0.6, rel=1e-12)
    with pytest.raises(ConfigError, match="unreachable"):
        P.rescale_to_load(w, 4, 0.8, span="last_end")  # needs span 18.75 < the 20 s job


def test_rescale_to_load_on_random_trace():
    rng = np.random.default_rng(np.random.SeedSequence(7))
    n = 200
    w = make_workload([job(int(s), int(r), int(p), int(r) + 5) for s, r, p in zip(
        np.cumsum(rng.integers(0, 600, n)), rng.integers(1, 5000, n), rng.integers(1, 65, n))])
    for target in (0.3, 0.7, 0.95):
        out, _ = P.rescale_to_load(w, 64, target)
        assert P.offered_load(out, 64) == pytest.approx(target, rel=1e-12)
        out, _ = P.rescale_to_load(w, 64, target, span="last_end")
        assert P.offered_load(out, 64, span="last_end") == pytest.approx(target, rel=1e-12)


# --------------------------------------------------------------------------
# Characterization
# --------------------------------------------------------------------------

def test_characterize_percentiles_and_sizes():
    sizes = [1, 2, 3, 4, 8, 1, 6, 16, 1, 5]
    runs = [i * 10 for i in range(11)]  # 0..100
    rows = [job(i, runs[i], sizes[i % 10], 200) for i in range(11)]
    rows.append(job(11, -1, 2, 200))    # runtime missing: not in percentiles
    c = P.characterize(make_workload(rows), 32)
    assert c["jobs"] == 12 and c["machine_cpus"] == 32
    assert [c[f"runtime_p{p}"] for p in (10, 25, 50, 75, 90, 99)] == pytest.approx(
        [10, 25, 50, 75, 90, 99])
    # sizes: 1,2,3,4,8,1,6,16,1,5,1,2  -> 12 jobs
    all_sizes = [sizes[i % 10] for i in range(11)] + [2]
    assert c["req_cpus_ratio"] == pytest.approx(np.mean(all_sizes) / 32)
    assert c["serial_fraction"] == pytest.approx(4 / 12)
    assert c["pow2_fraction"] == pytest.approx(9 / 12)      # 1,2,4,8,1,16,1,1,2
    assert c["pow2_parallel_fraction"] == pytest.approx(5 / 8)
    assert c["span_s"] == 11
    assert c["offered_load"] == pytest.approx(
        sum(s * max(r, 0) for s, r in zip(all_sizes, runs + [-1])) / (11 * 32))
    assert c["cpu_util_jobs"] == 0 and np.isnan(c["cpu_util_mean"])
    assert list(c) == list(P.CHARACTERIZATION_COLUMNS)


def test_characterize_cpu_utilization():
    long_run = 9 * 3600
    rows = [
        job(0, 100, 4, 200, avg_cpu_time=50),                 # 0.5
        job(1, 100, 4, 200, avg_cpu_time=150),                # clipped to 1
        job(2, 100, 4, 200, avg_cpu_time=-1),                 # not counted
        job(3, long_run, 128, long_run, avg_cpu_time=0.9 * long_run),  # long: 0.9
        job(4, long_run, 65, long_run, avg_cpu_time=0.7 * long_run),   # long: 0.7
        job(5, long_run, 64, long_run, avg_cpu_time=0.0),     # 64 procs: not long, 0.0
        job(6, 8 * 3600, 128, long_run, avg_cpu_time=0.0),   # exactly 8 h: not long
        job(7, long_run, 100, long_run),                      # long, util unknown
        job(8, 0, 4, 200, avg_cpu_time=0),                    # run 0: not counted
    ]
    c = P.characterize(make_workload(rows), 128)
    assert c["cpu_util_jobs"] == 6
    assert c["cpu_util_mean"] == pytest.approx((0.5 + 1 + 0.9 + 0.7 + 0 + 0) / 6)
    assert c["long_jobs"] == 3 and c["long_cpu_util_jobs"] == 2
    assert c["long_cpu_util_mean"] == pytest.approx(0.8)


def test_characterization_table():
    a = P.characterize(load_workload(), 4)
    b = dict(P.characterize(ten_jobs(), 2), note=1.5)
    t = P.characterization_table({"A": a, "B": b})
    assert list(t.index) == ["A", "B"] and t.index.name == "workload"
    assert list(t.columns) == [*P.CHARACTERIZATION_COLUMNS, "note"]
    assert t.loc["A", "jobs"] == 3 and t.loc["B", "jobs"] == 10
    assert np.isnan(t.loc["A", "note"]) and t.loc["B", "note"] == 1.5
    back = pd.read_csv(pd.io.common.StringIO(t.to_csv()), index_col="workload")
    assert back.loc["A", "offered_load"] == pytest.approx(0.75)


# --------------------------------------------------------------------------
# Pipeline steps: prepare_trace, scale_load
# --------------------------------------------------------------------------

def _prepare_dirty(tmp_path, **kw):
    swf.write_swf(dirty_workload(), tmp_path / "raw.swf")
    out = {k: tmp_path / "out" / f"T.{k}" for k in ("swf", "cleaning_log", "info")}
    facts = P.prepare_trace(tmp_path / "raw.swf", 8, trace="T", scale="smoke", **out, **kw)
    return facts, out


def _written(tmp_path, workload):
    path = tmp_path / "by_hand.swf"
    swf.write_swf(workload, path)
    return path


def test_prepare_trace_writes_the_chain_of_steps(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger=LOG.name)
    policy = {"runtime_above_request": "drop"}
    facts, out = _prepare_dirty(tmp_path, cleaning=policy, first_job=1, n_jobs=2, log=LOG)
    # The same chain by hand.
    cleaned, counts = P.clean(swf.read_swf(tmp_path / "raw.swf"), 8,
                              policy=P.CleaningPolicy.from_mapping(policy))
    part = P.subset(cleaned, first_job=1, n_jobs=2)
    assert swf.read_swf(out["swf"]).jobs.equals(swf.read_swf(_written(tmp_path, part)).jobs)
    assert out["cleaning_log"].read_text() == P.format_cleaning_log(
        "T", counts, P.CleaningPolicy.from_mapping(policy))
    assert out["info"].read_bytes() == write_json(facts, tmp_path / "facts.json").read_bytes()
    assert facts["cleaning_counts"] == counts
    assert facts["cleaning_policy"]["runtime_above_request"] == "drop"
    assert facts["subset"] == {"first_job": 1, "n_jobs": 2, "jobs": 2}
    assert (facts["trace"], facts["scale"], facts["machine_procs"]) == ("T", "smoke", 8)
    assert facts["characterization"]["cleaned"]["jobs"] == len(cleaned.jobs)
    assert facts["characterization"]["subset"]["jobs"] == 2
    assert caplog.messages[0].startswith("read 9 jobs from ")
    assert caplog.messages[-1] == "kept 2 jobs from index 1 (n_jobs=2)"
    # Nothing but the three outputs (atomic writes leave no temporary file).
    assert sorted(f.name for f in (tmp_path / "out").iterdir()) == ["T.cleaning_log", "T.info",
                                                                    "T.swf"]


def test_prepare_trace_defaults_keep_the_whole_cleaned_trace(tmp_path):
    facts, out = _prepare_dirty(tmp_path)
    assert facts["subset"] == {"first_job": 0, "n_jobs": None, "jobs": 5}
    assert facts["cleaning_policy"] == P.CleaningPolicy().as_dict()


def test_prepare_trace_failure_writes_no_swf(tmp_path):
    with pytest.raises(ConfigError, match="unknown cleaning rule"):
        _prepare_dirty(tmp_path, cleaning={"nope": "drop"})
    assert not (tmp_path / "out").exists()


def test_scale_load_reaches_the_target(tmp_path, caplog):
    swf.write_swf(load_workload(), tmp_path / "in.swf")
    caplog.set_level(logging.INFO, logger=LOG.name)
    facts = P.scale_load(tmp_path / "in.swf", 4, 0.5, trace="T", scale="smoke",
                         swf=tmp_path / "o" / "s.swf", info=tmp_path / "o" / "s.json", log=LOG)
    back = swf.read_swf(tmp_path / "o" / "s.swf")
    assert facts["original_offered_load"] == pytest.approx(0.75)
    assert facts["interarrival_factor"] == pytest.approx(1.5)
    assert facts["offered_load"] == P.offered_load(back, 4) == pytest.approx(0.5)
    assert back.jobs["submit_time"].tolist() == [0, 15, 30]  # whole seconds
    assert (tmp_path / "o" / "s.json").read_bytes() == write_json(facts, tmp_path / "f").read_bytes()
    assert [facts[k] for k in ("trace", "scale", "target_load", "jobs")] == ["T", "smoke", 0.5, 3]
    assert caplog.messages == [
        "offered load 0.750000 -> 0.500000 (target 0.5), inter-arrival factor 1.500000"]


def test_scale_load_writes_whole_second_submit_times(tmp_path):
    # Factor 0.75 / 0.7: submit times 0, 10.71, 21.43 s before rounding.
    swf.write_swf(load_workload(), tmp_path / "in.swf")
    facts = P.scale_load(tmp_path / "in.swf", 4, 0.7, trace="T", scale="smoke",
                         swf=tmp_path / "s.swf", info=tmp_path / "s.json")
    assert swf.read_swf(tmp_path / "s.swf").jobs["submit_time"].tolist() == [0, 11, 21]
    assert facts["offered_load"] == pytest.approx(60 / (21 * 4))  # near 0.7, not exactly
    assert facts["interarrival_factor"] == pytest.approx(0.75 / 0.7)


def test_examples():
    import doctest
    assert doctest.testmod(P).failed == 0


# --------------------------------------------------------------------------
# Real trace (needs swf.read_swf)
# --------------------------------------------------------------------------

@pytest.mark.real_traces
def test_kth_clean_and_characterize(tmp_path, real_traces):
    w = swf.read_swf(real_traces / KTH)
    assert len(w.jobs) == 28476
    cleaned, counts = P.clean(w, 100)
    assert (cleaned.jobs.dtypes == w.jobs.dtypes).all()  # cleaning keeps the SWF dtypes
    # Counted on the file with awk: 8 jobs with run_time <= 0, 1 without size.
    assert counts["runtime_missing"] + counts["runtime_zero"] == 8
    assert counts["size_missing"] <= 1 and counts["size_above_machine"] == 0
    assert counts["jobs_out"] == len(cleaned.jobs) >= 28460
    c = P.characterize(cleaned, 100)
    assert c["jobs"] == counts["jobs_out"] and c["machine_cpus"] == 100
    assert c["cpu_util_jobs"] == 0  # KTH has no avg_cpu_time (field 6 all -1)
    assert 0.3 < c["offered_load"] < 1.0
    ps = [c[f"runtime_p{p}"] for p in (10, 25, 50, 75, 90, 99)]
    assert ps == sorted(ps) and ps[0] > 0 and ps[-1] <= 4 * 86400
    assert 0 < c["serial_fraction"] < 1 and 0 < c["pow2_fraction"] <= 1
    assert 0 < c["req_cpus_ratio"] < 1

    # The traces rule's chain, written and read back.  Submit times are
    # rounded here because write_swf (today) only writes integer submit times.
    part = P.subset(cleaned, first_job=1000, n_jobs=2000)
    scaled, factor = P.rescale_to_load(part, 100, 0.9, round_to_seconds=True)
    assert factor == pytest.approx(P.offered_load(part, 100) / 0.9)
    swf.write_swf(scaled, tmp_path / "kth.swf")
    back = swf.read_swf(tmp_path / "kth.swf")
    assert back.jobs["job_id"].tolist() == part.jobs["job_id"].tolist()
    assert back.jobs["submit_time"].iloc[0] == 0
    assert P.offered_load(back, 100) == pytest.approx(0.9, rel=1e-3)
    assert any(line.startswith("; simlib: rescaled") for line in back.header)
