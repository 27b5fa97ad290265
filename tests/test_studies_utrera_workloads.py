"""Tests of simlib.studies.utrera.workloads: paper U's trace portions and Table 1 workloads."""
import doctest
import gzip
import json
import logging

import pytest

from helpers_pipeline import synthetic_swf
from simlib.studies import Files, StepContext
from simlib.studies.utrera import workloads
from simlib.studies.utrera.workloads import prepare_trace, table1_workloads
from simlib.workload.estimates import exact_estimates
from simlib.workload.lublin import LublinParams, generate_lublin
from simlib.workload.prepare import offered_load
from simlib.workload.swf import read_swf, write_swf


def ctx(inputs, outputs, params, **wildcards):
    return StepContext(input=Files(inputs), output=Files(outputs), params=params,
                       wildcards={"scale": "smoke", **wildcards}, log=logging.getLogger("test"),
                       config={})


def test_doctests():
    assert doctest.testmod(workloads).failed == 0


@pytest.fixture
def raw(tmp_path):
    path = tmp_path / "raw.swf.gz"
    path.write_bytes(gzip.compress(synthetic_swf(600, 128, seed=5), mtime=0))
    return str(path)


def prepare(tmp_path, raw, first_job, n_jobs, cpus=256):
    outputs = {k: str(tmp_path / f"portion.{k}") for k in ("swf", "info", "cleaning_log")}
    outputs["swf"] += ".gz"
    prepare_trace(ctx({"raw": raw}, outputs,
                      {"portion": {"machine_procs": cpus, "first_job": first_job, "n_jobs": n_jobs},
                       "cleaning": {}, "unsorted": "sort"}, trace="T"))
    return outputs


def test_prepare_trace_keeps_the_portion_on_the_papers_machine(tmp_path, raw):
    out = prepare(tmp_path, raw, first_job=100, n_jobs=200)
    part = read_swf(out["swf"])
    info = json.loads(open(out["info"]).read())
    assert len(part.jobs) == info["jobs"] == 200
    assert (info["machine_procs"], info["header_max_procs"], info["first_job"]) == (256, 128, 100)
    assert info["first_job_id"] == int(part.jobs["job_id"].iloc[0])
    assert any("paper U portion on 256 CPUs (header MaxProcs 128)" in h for h in part.header)
    # Table 2's facts, and our reading of Req.Cpus/Cpus from the log's schedule.
    for d in (info["portion"], info["cleaned"]):
        assert d["demand_ratio_log"] >= d["queue_demand_ratio_log"] > 0
    assert open(out["cleaning_log"]).read().startswith("cleaning log of T\njobs in: 600\n")


def test_prepare_trace_refuses_a_short_portion(tmp_path, raw):
    with pytest.raises(ValueError, match=r"T: config studies.utrera.trace_portions.T: only .* "
                                         r"jobs from position 500 of the .* \(asked 200\)"):
        prepare(tmp_path, raw, first_job=500, n_jobs=200)


def test_prepare_portion_picks_the_densest_window_and_records_it(tmp_path, raw):
    """Sect. 5.1's portion: the window with the most long jobs, its facts in the record."""
    from simlib.studies.utrera.transforms import densest_window, long_jobs
    from simlib.workload.prepare import CleaningPolicy, clean
    outputs = {k: str(tmp_path / f"lu.{k}") for k in ("swf", "info", "cleaning_log")}
    portion = {"machine_procs": 128, "first_job": "densest", "n_jobs": 100,
               "config_key": "studies.utrera.long_util.portion"}
    prepare_trace(ctx({"raw": raw}, outputs, {"portion": portion, "cleaning": {},
                                              "unsorted": "sort"}, trace="T"))
    info = json.loads(open(outputs["info"]).read())
    cleaned, _ = clean(read_swf(raw), 128, policy=CleaningPolicy.from_mapping({}))
    first, n_long = densest_window(long_jobs(cleaned), 100)
    assert n_long > 0  # the fixture has long wide jobs
    assert (info["first_job"], info["jobs"], info["long_jobs"], info["selection"]) == (
        first, 100, n_long, "densest")
    assert info["long_jobs"] == info["portion"]["long_jobs"]
    assert info["long_jobs_cleaned"] == int(long_jobs(cleaned).sum())
    assert info["config_key"] == "studies.utrera.long_util.portion"
    part = read_swf(outputs["swf"])
    assert int(long_jobs(part).sum()) == n_long
    # Too many jobs: the error names the key.
    with pytest.raises(ValueError, match="T: config studies.utrera.long_util.portion: the densest "
                                         "window of 9000 jobs asks more than the"):
        prepare_trace(ctx({"raw": raw}, outputs, {"portion": {**portion, "n_jobs": 9000},
                                                  "cleaning": {}, "unsorted": "sort"}, trace="T"))


def test_select_portion_by_position_and_densest():
    from simlib.studies.utrera.transforms import toy_workload
    from simlib.studies.utrera.workloads import select_portion
    long, short = (0, 128, 30000), (0, 1, 10)
    w = toy_workload([short, long, short, short, long, long, short, long])
    part, facts = select_portion(w, {"first_job": "densest", "n_jobs": 3})
    assert (facts["first_job"], facts["long_jobs"], facts["long_jobs_cleaned"]) == (3, 2, 4)
    assert part.jobs["job_id"].tolist() == [4, 5, 6]
    part, facts = select_portion(w, {"first_job": 0, "n_jobs": 8})
    assert (facts["selection"], facts["jobs"], facts["long_jobs"]) == ("positions", 8, 4)
    with pytest.raises(ValueError, match="^k: only 0 jobs from position 9 of the 8"):
        select_portion(w, {"first_job": 9, "n_jobs": 1}, where="k")


def run_table1(tmp_path, loads, **params):
    """The Table 1 workload step on one Lublin workload: (output SWF paths, fit info)."""
    base = tmp_path / "lublin.swf.gz"
    write_swf(exact_estimates(generate_lublin(LublinParams.typed(), n_jobs=150, seed=3)), base)
    swfs = [str(tmp_path / f"load{x}.swf.gz") for x in loads]
    table1_workloads(ctx({"swf": str(base)}, {"swfs": swfs, "info": str(tmp_path / "fit.json")},
                         {"loads": loads, "span": 7200.0, "machine_size": 128, **params},
                         seed="4"))
    return swfs, json.loads((tmp_path / "fit.json").read_text())


def test_table1_workloads_reach_each_load_within_the_span(tmp_path):
    loads = [0.3, 0.9]
    swfs, info = run_table1(tmp_path, loads)
    assert (info["seed"], info["jobs"], info["span"]) == (4, 150, 7200.0)
    assert [f["load"] for f in info["fits"]] == loads
    for path, fit in zip(swfs, info["fits"]):
        wl = read_swf(path)
        assert len(wl.jobs) == 150 and wl.jobs["submit_time"].max() <= 7200
        assert offered_load(wl, 128) == pytest.approx(fit["offered_load"])
        assert fit["offered_load"] == pytest.approx(fit["load"], rel=0.01)
    # More load, longer jobs: the runtimes carry it (fit: runtimes).
    assert info["fits"][1]["runtime_factor"] > info["fits"][0]["runtime_factor"]


def test_table1_workloads_fit_sizes_keeps_the_mean_runtime(tmp_path):
    loads = [0.3, 0.9]
    swfs, info = run_table1(tmp_path, loads, fit="sizes", mean_runtime=52.0)
    assert info["fit"] == "sizes"
    for path, fit in zip(swfs, info["fits"]):
        wl = read_swf(path)
        assert wl.jobs["run_time"].mean() == pytest.approx(fit["mean_runtime"])
        assert fit["mean_runtime"] == pytest.approx(52.0, rel=0.01)
        assert fit["offered_load"] == pytest.approx(fit["load"], rel=0.01)
        assert wl.jobs["requested_procs"].between(1, 128).all()
    # The same runtimes at every load; the sizes carry the load.
    lo, hi = info["fits"]
    assert lo["runtime_factor"] == hi["runtime_factor"] and hi["size_factor"] > lo["size_factor"]
    assert hi["mean_size"] > lo["mean_size"] and hi["machine_wide_jobs"] >= lo["machine_wide_jobs"]
