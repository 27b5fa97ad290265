"""Tests of simlib.studies.utrera.transforms: paper U's workload transformations."""
import json
import logging
from pathlib import Path

import numpy as np
import pytest
import yaml

from simlib.errors import ConfigError
from simlib.studies import Files, StepContext
from simlib.studies.utrera.workloads import table1_workloads
from simlib.workload.estimates import exact_estimates
from simlib.workload.lublin import LublinParams, generate_lublin, workload_from_params
from simlib.workload.swf import read_swf, write_swf
from simlib.studies.utrera.transforms import (
    densest_window,
    fit_sizes_to_window,
    fit_to_window,
    long_jobs,
    set_long_job_cpu_util,
    toy_workload,
)


@pytest.fixture(scope="module")
def lublin150():
    return exact_estimates(generate_lublin(LublinParams.typed(), n_jobs=150, seed=3))


def _load(w, cpus, span):
    j = w.jobs
    return float((j.requested_procs * j.run_time).sum() / (cpus * span))


def test_toy_workload_columns():
    w = toy_workload([(0, 8, 2), (1, 4, 3)])
    j = w.jobs
    assert j["job_id"].tolist() == [1, 2]
    assert j["submit_time"].tolist() == [0, 1]
    assert j["requested_procs"].tolist() == j["allocated_procs"].tolist() == [8, 4]
    assert j["requested_time"].tolist() == j["run_time"].tolist() == [2, 3]
    assert j["avg_cpu_time"].tolist() == [2.0, 3.0]  # CPU utilization 1


@pytest.mark.parametrize("rows", [[(1, 2, 1), (0, 2, 1)], [(0, 0, 1)], [(0, 2, 0)], [(0, 2)],
                                  [(0, 2, 1.5)]])
def test_toy_workload_rejects_bad_rows(rows):
    with pytest.raises(ConfigError, match="toy: row"):
        toy_workload(rows)


@pytest.mark.parametrize("load", [0.3, 0.5, 0.7, 0.9])
def test_fit_to_window_hits_the_load_within_the_span(lublin150, load):
    w, f = fit_to_window(lublin150, span=7200, machine_size=128, load=load)
    j = w.jobs
    assert len(j) == 150
    assert j["submit_time"].iloc[0] == 0 and j["submit_time"].iloc[-1] == 7200
    assert (np.diff(j["submit_time"]) >= 0).all()
    assert abs(_load(w, 128, 7200) / load - 1) < 0.01
    # One factor for every job (up to rounding to whole seconds, at least 1 s).
    expected = np.maximum(1, np.rint(lublin150.jobs["run_time"] * f))
    assert (j["run_time"].to_numpy() == expected).all()
    assert (j["requested_time"] >= j["run_time"]).all()
    # Sizes and order untouched, input untouched.
    assert (j["requested_procs"] == lublin150.jobs["requested_procs"]).all()
    assert lublin150.jobs["submit_time"].iloc[-1] > 7200


def test_fit_to_window_factor_grows_with_load(lublin150):
    factors = [fit_to_window(lublin150, span=7200, machine_size=128, load=x)[1]
               for x in (0.3, 0.6, 0.9)]
    assert factors[0] < factors[1] < factors[2]
    assert factors[2] / factors[0] == pytest.approx(3.0, rel=0.05)


def test_fit_to_window_keeps_relative_spacing():
    w = toy_workload([(0, 1, 10), (10, 1, 10), (30, 1, 10)])
    out, _ = fit_to_window(w, span=300, machine_size=1, load=0.1)
    assert out.jobs["submit_time"].tolist() == [0, 100, 300]


def test_fit_to_window_rejects_unreachable_load():
    w = toy_workload([(0, 64, 10), (5, 64, 10)])
    with pytest.raises(ConfigError, match="unreachable"):
        fit_to_window(w, span=10, machine_size=128, load=0.01)
    with pytest.raises(ConfigError, match="at least 2 jobs"):
        fit_to_window(toy_workload([(0, 1, 10)]), span=10, machine_size=1, load=0.5)


#: Hand-made jobs: (submit, size, runtime); mean runtime 200 s, sizes 1-4.
HAND = [(0, 2, 100), (50, 4, 300), (60, 1, 200), (100, 2, 200)]


def test_fit_sizes_hand_case_exact():
    # Runtimes x 0.1 (mean 20 s); sizes x 2: 4, 8, 2, 4; load
    # (4*10 + 8*30 + 2*20 + 4*20) / (100 * 8) = 0.5 exactly.
    w, f, g = fit_sizes_to_window(toy_workload(HAND), span=100, machine_size=8, load=0.5,
                                  mean_runtime=20)
    j = w.jobs
    assert j["submit_time"].tolist() == [0, 50, 60, 100]
    assert j["run_time"].tolist() == [10, 30, 20, 20]
    assert j["requested_procs"].tolist() == j["allocated_procs"].tolist() == [4, 8, 2, 4]
    assert j["requested_time"].tolist() == [10, 30, 20, 20]
    assert j["avg_cpu_time"].tolist() == [10.0, 30.0, 20.0, 20.0]  # utilization kept
    assert f == pytest.approx(0.1, rel=0.05) and g == pytest.approx(2.0, rel=0.2)
    assert _load(w, 8, 100) == 0.5
    assert "fit_sizes_to_window" in w.header[-1]


def test_fit_sizes_clips_sizes_to_the_machine():
    # Load 0.9 of 8 CPUs needs most jobs machine-wide: sizes stop at 8.
    w, _, _ = fit_sizes_to_window(toy_workload(HAND), span=100, machine_size=8, load=0.7,
                                  mean_runtime=20)
    size = w.jobs["requested_procs"]
    assert size.min() >= 1 and size.max() == 8
    assert _load(w, 8, 100) == pytest.approx(0.7, rel=0.01)


@pytest.mark.parametrize("load", [0.3, 0.5, 0.7, 0.9])
def test_fit_sizes_lublin_mean_runtime_and_load(lublin150, load):
    w, f, g = fit_sizes_to_window(lublin150, span=7200, machine_size=128, load=load,
                                  mean_runtime=52)
    j = w.jobs
    assert len(j) == 150 and (j["submit_time"].min(), j["submit_time"].max()) == (0, 7200)
    assert j["run_time"].mean() == pytest.approx(52, rel=0.01)
    assert _load(w, 128, 7200) == pytest.approx(load, rel=0.01)
    assert j["requested_procs"].between(1, 128).all()
    assert (j["requested_time"] >= j["run_time"]).all()


def test_fit_sizes_same_runtimes_at_every_load_and_deterministic(lublin150):
    kw = dict(span=7200, machine_size=128, mean_runtime=52)
    a = fit_sizes_to_window(lublin150, load=0.3, **kw)
    b = fit_sizes_to_window(lublin150, load=0.9, **kw)
    again = fit_sizes_to_window(lublin150, load=0.9, **kw)
    assert a[0].jobs["run_time"].tolist() == b[0].jobs["run_time"].tolist()
    assert a[1] == b[1] and b[2] > a[2]  # one runtime factor; the sizes carry the load
    assert b[0].jobs.equals(again[0].jobs) and b[1:] == again[1:]


REPO = Path(__file__).resolve().parents[1]


def test_fit_sizes_reaches_every_pipeline_load_on_every_full_scale_seed(tmp_path):
    """Every Table 1 workload of the full pipeline (Lublin seeds 0-49) fits its load.

    Same path as the pipeline: the ``lublin_workload`` rule's
    :func:`~simlib.workload.lublin.workload_from_params` on the config's
    parameter set, written to SWF, then step ``utrera_table1_workloads``
    (read back, fit, written). Seed 7 at load 0.3 used to stop at 0.296947:
    equal sizes round together, so no single ``g`` is within 1 %.
    """
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    t1 = yaml.safe_load((REPO / "config/grids/utrera.yaml").read_text())["studies"]["utrera"]["table1"]
    lub = config["lublin"]["param_sets"][t1["lublin_params"]]
    cpus, loads = lub.get("machine_size", 128), [float(x) for x in t1["loads"]]
    params = {"fit": "sizes", "loads": loads, "span": float(t1["span"]), "machine_size": cpus,
              "mean_runtime": float(t1["mean_runtime"])}
    seeds = range(t1["seeds"]["full"])
    assert 7 in seeds
    for seed in seeds:
        # The lublin_workload rule's params: the set's entry, native load, the seed.
        model, _ = workload_from_params({**lub, "load": None, "seed": seed})
        base = tmp_path / f"seed{seed}.swf.gz"
        write_swf(model, base)
        outputs = {"swfs": [str(tmp_path / f"s{seed}_load{x}.swf.gz") for x in loads],
                   "info": str(tmp_path / f"s{seed}_fit.json")}
        table1_workloads(StepContext(
            input=Files({"swf": str(base)}), output=Files(outputs), params=params,
            wildcards={"scale": "full", "seed": str(seed), "fit": "sizes"},
            log=logging.getLogger("test"), config={}))
        info = json.loads(Path(outputs["info"]).read_text())
        for load, swf, fit in zip(loads, outputs["swfs"], info["fits"], strict=True):
            j = read_swf(swf).jobs
            assert abs(fit["offered_load"] / load - 1) <= 0.01, (seed, load, fit["offered_load"])
            assert abs(_load(read_swf(swf), cpus, t1["span"]) / load - 1) <= 0.01, (seed, load)
            assert j["requested_procs"].between(1, cpus).all(), (seed, load)
            assert (j["allocated_procs"] == j["requested_procs"]).all(), (seed, load)
            assert j["run_time"].mean() == pytest.approx(t1["mean_runtime"], rel=0.01)


def test_fit_sizes_moves_single_jobs_when_no_size_factor_fits():
    # Three size-1 jobs of 100, 100 and 10 s on 10 CPUs in 100 s (runtimes
    # kept: mean 70 s) round together: every g gives work 210 or 420, none
    # load 0.31 (work 310) within 1 %; one process more on the first
    # largest-work job does, exactly.
    w = toy_workload([(0, 1, 100), (50, 1, 100), (100, 1, 10)])
    out, _, _ = fit_sizes_to_window(w, span=100, machine_size=10, load=0.31, mean_runtime=70)
    assert out.jobs["run_time"].tolist() == [100, 100, 10]
    assert out.jobs["requested_procs"].tolist() == out.jobs["allocated_procs"].tolist() == [2, 1, 1]
    assert _load(out, 10, 100) == pytest.approx(0.31)
    assert "1 job(s) moved by one process" in out.header[-1]
    # Load 0.3: the 10 s job grows by one process per pass, up to 10 (the machine).
    out, _, _ = fit_sizes_to_window(w, span=100, machine_size=10, load=0.3, mean_runtime=70)
    assert out.jobs["requested_procs"].tolist() == [1, 1, 10] and _load(out, 10, 100) == 0.3
    # Three 100 s jobs: loads 0.3, 0.4, ... only; 0.39 is out of reach (the
    # closest, 0.4, in the error).
    with pytest.raises(ConfigError, match=r"load 0.39 reached only 0.4 \(tolerance 0.01\): too few"):
        fit_sizes_to_window(toy_workload([(0, 1, 100), (50, 1, 100), (100, 1, 100)]), span=100,
                            machine_size=10, load=0.39, mean_runtime=100)
    # A load the factor reaches within tolerance is not touched.
    ok, _, _ = fit_sizes_to_window(w, span=100, machine_size=10, load=0.21, mean_runtime=70)
    assert "moved" not in ok.header[-1] and ok.jobs["requested_procs"].tolist() == [1, 1, 1]


@pytest.mark.parametrize("kw, message", [
    # 4 jobs of 20 s in 100 s on 8 CPUs: loads 0.1 (serial) to 0.8 (machine-wide).
    (dict(load=0.9), "load 0.9 is unreachable through job sizes .* give loads 0.1 to 0.8"),
    (dict(load=0.05), "load 0.05 is unreachable through job sizes"),
    # mean_runtime >= 1, span > 0: the grid's schema (test_studies_utrera_study).
])
def test_fit_sizes_rejects_the_infeasible(kw, message):
    args = {**dict(span=100, machine_size=8, load=0.5, mean_runtime=20), **kw}
    with pytest.raises(ConfigError, match=message):
        fit_sizes_to_window(toy_workload(HAND), **args)


def test_long_jobs_definition():
    w = toy_workload([(0, 65, 28801), (0, 64, 30000), (0, 128, 28800), (0, 100, 40000)])
    assert long_jobs(w).tolist() == [True, False, False, True]


def test_set_long_job_cpu_util_set_and_scale():
    w = toy_workload([(0, 65, 30000), (0, 100, 40000), (0, 8, 30000)])
    w.jobs["avg_cpu_time"] = [15000.0, 40000.0, 3000.0]  # utilizations 0.5, 1.0, 0.1
    s = set_long_job_cpu_util(w, 0.6)
    assert s.jobs["avg_cpu_time"].tolist() == [18000.0, 24000.0, 3000.0]
    c = set_long_job_cpu_util(w, 0.6, mode="scale")
    # Mean 0.75 scaled to 0.6: factor 0.8 -> 0.4 and 0.8; the short job is untouched.
    assert c.jobs["avg_cpu_time"].tolist() == pytest.approx([12000.0, 32000.0, 3000.0])
    assert w.jobs["avg_cpu_time"].tolist() == [15000.0, 40000.0, 3000.0]
    # Utilizations in [0, 1] and the modes: the grid's schema (test_studies_utrera_study).


@pytest.mark.parametrize("flags, n, expected", [
    ([0, 0, 1, 1, 1, 0, 1], 3, (2, 3)),
    ([1, 0, 0, 1], 2, (0, 1)),             # tie: the earliest window
    ([0, 1, 1, 0, 1, 1], 2, (1, 2)),       # two maxima: the first
    ([0, 0, 0], 3, (0, 0)),                # no flagged position at all: the first window
    ([0, 0, 0, 1], 1, (3, 1)),
    ([True, False, True], 3, (0, 2)),      # the whole sequence
])
def test_densest_window(flags, n, expected):
    assert densest_window(flags, n) == expected


@pytest.mark.parametrize("n", [0, 4])
def test_densest_window_rejects_bad_lengths(n):
    with pytest.raises(ValueError, match=f"window of {n} positions in a sequence of 3"):
        densest_window([1, 0, 1], n)


def test_densest_window_of_long_jobs_matches_a_brute_force_count():
    rng = np.random.default_rng(3)
    rows = [(0, int(rng.choice([1, 65, 128])), int(rng.choice([60, 30000]))) for _ in range(200)]
    flags = long_jobs(toy_workload(rows))
    for n in (1, 7, 50, 200):
        counts = [int(flags[i:i + n].sum()) for i in range(len(flags) - n + 1)]
        best = max(counts)
        assert densest_window(flags, n) == (counts.index(best), best)
